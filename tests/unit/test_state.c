/* test_state.c: nothing lost (issue 7, point 5) without a terminal: each kind
 * of damaged progress.json or history is set aside as NAME.bad, reported in
 * one line and started afresh; a failing save says so and leaves the old
 * file whole. In a real terminal: tests/system/test_state.c. */

/* The failing saves: a read-only directory or file system, a full disk, a
 * state directory that is a file, a write cut short. Root writes anywhere,
 * so the permission tests drop to nobody in a child process; a full disk
 * and a read-only file system are a small tmpfs in a mount namespace of the
 * child's own (skipped where mounting is not allowed); a write cut short is
 * RLIMIT_FSIZE, which binds root too. */
#define _GNU_SOURCE 1	/* unshare */
#include "helpers.h"
#include "lesson/progress.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];       /* XDG_STATE_HOME of the test */
static char qdir[128];     /* dir/qkv */
static char pfile[160];    /* dir/qkv/progress.json */
static char hfile[160];    /* dir/qkv/history */

static void make_dir(void)
{
	dir_make_temp(dir, sizeof dir, "qkv-state");
	snprintf(qdir, sizeof qdir, "%s/qkv", dir);
	snprintf(pfile, sizeof pfile, "%s/progress.json", qdir);
	snprintf(hfile, sizeof hfile, "%s/history", qdir);
	setenv("XDG_STATE_HOME", dir, 1);
}

static void remove_dir(void)
{
	dir_remove(dir);
}

TestSuite(state, .init = make_dir, .fini = remove_dir);

/* ---- helpers ------------------------------------------------------------------ */

static void put_file(const char *path, const char *data, size_t len)
{
	file_put(path, data, len);
}

static void put_text(const char *path, const char *text)
{
	file_put(path, text, strlen(text));
}

static void assert_names(const char *want)
{
	char *got = dir_list(qdir);
	cr_assert_str_eq(got, want, "the state directory holds %s", got);
	free(got);
}

/* Loads a damaged progress.json (data[0..len)) and checks that it was set
 * aside whole, reported with want, and that the next save writes a fresh
 * file that loads cleanly. */
static void assert_progress_set_aside(const char *data, size_t len, const char *want)
{
	put_file(pfile, data, len);
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, want);
	cr_assert_eq(p.n, 0, "entries were loaded from a damaged file");
	cr_assert_not_null(p.path);
	assert_names("progress.json.bad ");
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", pfile);
	file_assert_holds(bad, data, len);
	/* replaced: the next save writes a good file */
	progress_mark(&p, "lesson", 2, 5);
	cr_assert_eq(progress_save(&p), 0, "%s", p.problem);
	progress_free(&p);
	progress_load(&p);
	cr_assert_str_eq(p.problem, "");
	cr_assert_eq(p.n, 1);
	cr_assert_eq(progress_get(&p, "lesson")->furthest, 2);
	progress_free(&p);
	assert_names("progress.json progress.json.bad ");
}

#define SET_ASIDE(data, why) \
	assert_progress_set_aside(data, sizeof data - 1, \
				  "progress.json was unreadable, kept as progress.json.bad; starting afresh (" why ")")

/* What a child process reports: its result and one line of text. */
struct child_report {
	int rc;
	char msg[600];
};

enum { CHILD_SKIP = 77 };

/* Runs body in a child process after setup (false: the child cannot do what
 * the test needs, and the test is skipped with msg); returns what it wrote. */
static struct child_report in_child(bool (*setup)(char *msg, size_t size), int (*body)(char *msg, size_t size))
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		struct child_report r = { 0, "" };
		int code = 0;
		if (setup && !setup(r.msg, sizeof r.msg))
			code = CHILD_SKIP;
		else
			r.rc = body(r.msg, sizeof r.msg);
		if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r)
			_exit(2);
		_exit(code);	/* no atexit: the parent owns the test */
	}
	close(fds[1]);
	struct child_report r = { -99, "(the child wrote nothing)" };
	size_t got = 0;
	ssize_t n;
	while (got < sizeof r && (n = read(fds[0], (char *)&r + got, sizeof r - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_SKIP)
		cr_skip_test("%s", r.msg);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed: %s", r.msg);
	return r;
}

/* root writes anywhere: become nobody (owning the test's directory) so the
 * mode bits count */
static bool as_nobody(char *msg, size_t size)
{
	if (geteuid() != 0)
		return true;
	char cmd[200];
	snprintf(cmd, sizeof cmd, "chown -R 65534:65534 %s", dir);
	if (system(cmd) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
		snprintf(msg, size, "cannot become nobody");
		return false;
	}
	return true;
}

/* a tmpfs of 64 KiB on qdir, in a mount namespace of the child's own */
static bool small_tmpfs(char *msg, size_t size)
{
	mkdir(qdir, 0700);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", qdir, "tmpfs", 0, "size=64k,mode=0700") != 0) {
		snprintf(msg, size, "no mount namespace here (%s): a full disk cannot be made", strerror(errno));
		return false;
	}
	return true;
}

/* fills the file system holding qdir */
static void fill_disk(void)
{
	char path[200];
	snprintf(path, sizeof path, "%s/filler", qdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	static char block[4096];
	while (fd >= 0 && write(fd, block, sizeof block) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/* the file size limit: a write fails midway, as on a full disk */
static bool small_files(char *msg, size_t size)
{
	(void)msg;
	(void)size;
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = { 40, 40 };
	return setrlimit(RLIMIT_FSIZE, &lim) == 0;
}

static const char good_progress[] =
	"{\n\t\"lessons\":\t{\n\t\t\"one\":\t{\n\t\t\t\"furthest\":\t3,\n\t\t\t\"steps\":\t9\n\t\t}\n\t}\n}\n";

/* loads progress.json, marks a step, saves: the save's result and problem */
static int load_mark_save(char *msg, size_t size)
{
	struct progress p;
	progress_load(&p);
	for (int i = 0; i < 20; i++) {
		char id[32];
		snprintf(id, sizeof id, "lesson-number-%d", i);
		progress_mark(&p, id, 1, 1);
	}
	int rc = progress_save(&p);
	snprintf(msg, size, "%s", p.problem);
	progress_free(&p);
	return rc;
}

/* ---- progress.json: damaged files ---------------------------------------------- */

Test(state, a_progress_file_that_is_not_json_should_be_kept_as_bad_and_replaced)
{
	SET_ASIDE("{\"lessons\": {\n  \"a\": {\"furthest\": 2},\n  oops\n}}", "line 3, column 4: not valid JSON");
}

Test(state, text_after_the_json_should_make_the_progress_file_bad)
{
	SET_ASIDE("{\"lessons\": {}}\n}", "line 2, column 1: text after the JSON");
}

Test(state, json_that_cjson_takes_in_but_json_refuses_should_make_the_progress_file_bad)
{
	/* cJSON read \uZZZZ as a NUL, cutting the lesson's id short */
	SET_ASIDE("{\"lessons\": {\"a\\uZZZZb\": {\"furthest\": 2}}}", "line 1, column 16: not valid JSON");
}

Test(state, an_empty_progress_file_should_be_kept_as_bad)
{
	SET_ASIDE("", "line 1, column 1: not valid JSON");
}

Test(state, a_progress_file_of_the_wrong_shape_should_be_kept_as_bad)
{
	SET_ASIDE("[1, 2]", "line 1: not a JSON object");
	remove_dir();
	make_dir();
	SET_ASIDE("{\"version\": 1}", "no \"lessons\" in it");
	remove_dir();
	make_dir();
	SET_ASIDE("{\n\"lessons\": [\"a\"]}", "line 2: \"lessons\" is not an object");
}

Test(state, a_progress_file_with_a_nul_byte_should_be_kept_as_bad)
{
	SET_ASIDE("{\"lessons\": {\n\"a\": {\"furthest\": 2}}}\0\0\0", "line 2, column 23: a NUL byte");
}

Test(state, a_progress_file_that_is_not_utf8_should_be_kept_as_bad)
{
	SET_ASIDE("{\"lessons\": {\"caf\xe9\": {\"furthest\": 2}}}", "line 1, column 18: not UTF-8 text (byte 0xe9)");
}

Test(state, a_huge_progress_file_should_be_kept_as_bad_without_reading_it)
{
	put_text(pfile, "{}");
	cr_assert_eq(truncate(pfile, 64 << 20), 0);	/* sparse: 64 MiB of zeros */
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "progress.json was unreadable, kept as progress.json.bad; starting afresh "
		       "(it is 67108864 bytes, more than 1048576)");
	assert_names("progress.json.bad ");
	struct stat st;
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", pfile);
	cr_assert_eq(stat(bad, &st), 0);
	cr_assert_eq(st.st_size, 64 << 20);
	progress_free(&p);
}

Test(state, a_directory_named_progress_json_should_be_set_aside)
{
	mkdir(qdir, 0700);
	cr_assert_eq(mkdir(pfile, 0700), 0);
	char inside[200];
	snprintf(inside, sizeof inside, "%s/keep-me", pfile);
	put_text(inside, "mine");
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "progress.json was unreadable, kept as progress.json.bad; starting afresh "
		       "(it is a directory)");
	snprintf(inside, sizeof inside, "%s.bad/keep-me", pfile);
	file_assert_holds(inside, "mine", 4);
	cr_assert_eq(progress_save(&p), 0, "%s", p.problem);
	assert_names("progress.json progress.json.bad ");
	progress_free(&p);
}

Test(state, a_fifo_named_progress_json_should_not_hang_the_load)
{
	mkdir(qdir, 0700);
	cr_assert_eq(mkfifo(pfile, 0600), 0);
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "progress.json was unreadable, kept as progress.json.bad; starting afresh "
		       "(it is not a regular file)");
	assert_names("progress.json.bad ");
	progress_free(&p);
}

static int load_unreadable(char *msg, size_t size)
{
	put_text(pfile, good_progress);
	chmod(pfile, 0);
	struct progress p;
	progress_load(&p);
	snprintf(msg, size, "%s", p.problem);
	progress_free(&p);
	return 0;
}

Test(state, a_progress_file_without_read_permission_should_be_set_aside)
{
	struct child_report r = in_child(as_nobody, load_unreadable);
	cr_assert_str_eq(r.msg, "progress.json was unreadable, kept as progress.json.bad; starting afresh "
		       "(Permission denied)");
	assert_names("progress.json.bad ");
}

Test(state, a_bad_entry_should_be_set_aside_with_the_file_and_the_others_loaded)
{
	static const char text[] = "{\"lessons\": {\n"
				   "  \"one\": {\"furthest\": 3, \"steps\": 9},\n"
				   "  \"two\": {\"furthest\": \"far\"},\n"
				   "  \"three\": {\"furthest\": -1},\n"
				   "  \"four\": {\"furthest\": 2.5},\n"
				   "  \"five\": {\"furthest\": 1e300},\n"
				   "  \"six\": {\"furthest\": 1, \"steps\": null},\n"
				   "  \"seven\": [],\n"
				   "  \"eight\": {\"furthest\": 4}\n"
				   "}}\n";
	put_text(pfile, text);
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "progress.json had unreadable entries, kept as progress.json.bad; the other "
		       "lessons loaded (line 3: \"two\" has no whole number \"furthest\", and 5 more)");
	cr_assert_eq(p.n, 2);
	cr_assert_eq(progress_get(&p, "one")->furthest, 3);
	cr_assert_eq(progress_get(&p, "one")->steps, 9);
	cr_assert_eq(progress_get(&p, "eight")->furthest, 4);
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", pfile);
	file_assert_holds(bad, text, sizeof text - 1);
	progress_free(&p);
}

Test(state, an_earlier_bad_file_should_never_be_replaced)
{
	char bad[200], bad1[200], bad2[200];
	snprintf(bad, sizeof bad, "%s.bad", pfile);
	snprintf(bad1, sizeof bad1, "%s.bad.1", pfile);
	snprintf(bad2, sizeof bad2, "%s.bad.2", pfile);
	put_text(bad, "the first");
	put_text(bad1, "the second");
	put_text(pfile, "the third");
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "progress.json was unreadable, kept as progress.json.bad.2; starting afresh "
		       "(line 1, column 1: not valid JSON)");
	file_assert_holds(bad, "the first", 9);
	file_assert_holds(bad1, "the second", 10);
	file_assert_holds(bad2, "the third", 9);
	progress_free(&p);
}

static int load_in_read_only_dir(char *msg, size_t size)
{
	put_text(pfile, "not json");
	chmod(qdir, 0500);
	struct progress p;
	progress_load(&p);
	int rc = p.path == NULL;
	progress_mark(&p, "x", 1, 1);
	rc += 10 * (progress_save(&p) == 0);	/* a quiet no-op */
	snprintf(msg, size, "%s", p.problem);
	progress_free(&p);
	return rc;
}

Test(state, a_bad_file_that_cannot_be_set_aside_should_be_left_alone_and_never_written)
{
	struct child_report r = in_child(as_nobody, load_in_read_only_dir);
	cr_assert_eq(r.rc, 11, "path kept or save failed: %s", r.msg);
	cr_assert_str_eq(r.msg, "progress.json was unreadable and could not be set aside (Permission denied): qkv "
		       "leaves it as it is and does not save it (line 1, column 1: not valid JSON)");
	file_assert_holds(pfile, "not json", 8);
	assert_names("progress.json ");
}

Test(state, a_good_progress_file_should_load_without_a_problem_and_save_as_0600)
{
	put_text(pfile, good_progress);
	chmod(pfile, 0644);
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "");
	cr_assert_eq(p.n, 1);
	cr_assert_eq(progress_get(&p, "one")->furthest, 3);
	cr_assert_eq(progress_save(&p), 0, "%s", p.problem);
	file_assert_holds(pfile, good_progress, sizeof good_progress - 1);
	struct stat st;
	cr_assert_eq(stat(pfile, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	assert_names("progress.json ");
	progress_free(&p);
}

Test(state, no_progress_file_should_be_no_progress_and_no_problem)
{
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "");
	cr_assert_eq(p.n, 0);
	progress_free(&p);
	assert_names("");
}

/* ---- progress.json: saves that fail --------------------------------------------- */

Test(state, a_state_directory_that_is_a_file_should_fail_the_save_with_a_message)
{
	put_text(qdir, "a file where the directory goes");
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "", "a missing file is no problem");
	progress_mark(&p, "x", 1, 1);
	cr_assert_eq(progress_save(&p), -1);
	char want[300];
	snprintf(want, sizeof want, "progress.json not saved: cannot make the directory %s (Not a directory)", qdir);
	cr_assert_str_eq(p.problem, want);
	progress_free(&p);
	file_assert_holds(qdir, "a file where the directory goes", 31);
}

static int save_in_read_only_dir(char *msg, size_t size)
{
	put_text(pfile, good_progress);
	chmod(qdir, 0500);
	return load_mark_save(msg, size);
}

Test(state, a_read_only_directory_should_fail_the_save_and_keep_the_old_file)
{
	struct child_report r = in_child(as_nobody, save_in_read_only_dir);
	cr_assert_eq(r.rc, -1);
	char want[300];
	snprintf(want, sizeof want, "progress.json not saved: no permission to write in %s", qdir);
	cr_assert_str_eq(r.msg, want);
	file_assert_holds(pfile, good_progress, sizeof good_progress - 1);
	assert_names("progress.json ");
}

static int save_on_read_only_fs(char *msg, size_t size)
{
	put_text(pfile, good_progress);
	if (mount(NULL, qdir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0) {
		snprintf(msg, size, "remount: %s", strerror(errno));
		return -2;
	}
	int rc = load_mark_save(msg, size);
	/* what the file holds, seen from inside the namespace */
	size_t len;
	char *s = file_read(pfile, &len);
	if (!s || len != sizeof good_progress - 1 || memcmp(s, good_progress, len) != 0)
		rc = -3;
	free(s);
	return rc;
}

Test(state, a_read_only_file_system_should_fail_the_save_and_keep_the_old_file)
{
	struct child_report r = in_child(small_tmpfs, save_on_read_only_fs);
	cr_assert_eq(r.rc, -1, "%d %s", r.rc, r.msg);
	char want[300];
	snprintf(want, sizeof want, "progress.json not saved: %s is on a read-only file system", qdir);
	cr_assert_str_eq(r.msg, want);
}

static int save_on_full_disk(char *msg, size_t size)
{
	put_text(pfile, good_progress);
	fill_disk();
	int rc = load_mark_save(msg, size);
	size_t len;
	char *s = file_read(pfile, &len);
	if (!s || len != sizeof good_progress - 1 || memcmp(s, good_progress, len) != 0)
		rc = -3;
	free(s);
	char *left = dir_list(qdir);
	if (strcmp(left, "filler progress.json ") != 0) {
		snprintf(msg, size, "left behind: %s", left);
		rc = -4;
	}
	free(left);
	return rc;
}

Test(state, a_full_disk_should_fail_the_save_and_keep_the_old_file)
{
	struct child_report r = in_child(small_tmpfs, save_on_full_disk);
	cr_assert_eq(r.rc, -1, "%d %s", r.rc, r.msg);
	cr_assert_str_eq(r.msg, "progress.json not saved: the disk is full");
}

static int save_cut_short(char *msg, size_t size)
{
	return load_mark_save(msg, size);
}

Test(state, a_write_cut_short_should_keep_the_old_file_and_leave_no_temporary_file)
{
	put_text(pfile, good_progress);
	struct child_report r = in_child(small_files, save_cut_short);
	cr_assert_eq(r.rc, -1, "%s", r.msg);
	cr_assert_str_eq(r.msg, "progress.json not saved: File too large");
	file_assert_holds(pfile, good_progress, sizeof good_progress - 1);
	assert_names("progress.json ");
}

/* ---- the history ---------------------------------------------------------------- */

static void assert_history_set_aside(const char *data, size_t len, const char *why)
{
	put_file(hfile, data, len);
	struct progress_history h;
	progress_history_load(&h, hfile, 1000);
	char want[400];
	snprintf(want, sizeof want, "history was unreadable, kept as history.bad; starting afresh (%s)", why);
	cr_assert_str_eq(h.problem, want);
	cr_assert_eq(h.n, 0);
	cr_assert_not(h.keep_out);
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", hfile);
	file_assert_holds(bad, data, len);
	progress_history_free(&h);
	assert_names("history.bad ");
}

Test(state, a_history_with_a_nul_byte_should_be_kept_as_bad)
{
	static const char data[] = "X = [1 2; 3 4]\nY = X\0\0\x01\x02\n";
	assert_history_set_aside(data, sizeof data - 1, "line 2, column 6: a NUL byte");
}

Test(state, a_history_of_binary_garbage_should_be_kept_as_bad)
{
	static const char data[] = "\x7f" "ELF\x02\x01\x01\xff\xfe";
	assert_history_set_aside(data, sizeof data - 1, "line 1, column 8: not UTF-8 text (byte 0xff)");
}

Test(state, a_history_line_over_the_limit_should_make_it_bad)
{
	size_t n = PROGRESS_HISTORY_LINE_MAX + 1;
	char *data = malloc(n + 8);
	memcpy(data, "A = 1\n", 6);
	memset(data + 6, 'x', n);
	data[6 + n] = '\n';
	char why[100];
	snprintf(why, sizeof why, "line 2 is %zu bytes, more than %d", n, PROGRESS_HISTORY_LINE_MAX);
	assert_history_set_aside(data, n + 7, why);
	free(data);
}

Test(state, a_directory_named_history_should_be_set_aside)
{
	mkdir(qdir, 0700);
	cr_assert_eq(mkdir(hfile, 0700), 0);
	struct progress_history h;
	progress_history_load(&h, hfile, 1000);
	cr_assert_str_eq(h.problem, "history was unreadable, kept as history.bad; starting afresh (it is a directory)");
	progress_history_free(&h);
	assert_names("history.bad ");
}

Test(state, the_history_should_keep_its_newest_lines_as_0600_and_load_them_back)
{
	char **lines = malloc(sizeof *lines * 1500);
	for (int i = 0; i < 1500; i++) {
		lines[i] = malloc(32);
		snprintf(lines[i], 32, "X%d = %d", i, i);
	}
	free(lines[1400]);
	lines[1400] = strdup("caf\xe9 = 1");	/* not UTF-8: left out, it would not load */
	char problem[300] = "";
	cr_assert_eq(progress_history_save(hfile, (const char *const *)lines, 1500, 1000, problem, sizeof problem), 0,
		     "%s", problem);
	struct stat st;
	cr_assert_eq(stat(hfile, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	struct progress_history h;
	progress_history_load(&h, hfile, 1000);
	cr_assert_str_eq(h.problem, "");
	cr_assert_eq(h.n, 1000);
	cr_assert_str_eq(h.lines[0], "X499 = 499");
	cr_assert_str_eq(h.lines[999], "X1499 = 1499");
	progress_history_free(&h);
	/* a shorter max keeps the newest */
	progress_history_load(&h, hfile, 3);
	cr_assert_eq(h.n, 3);
	cr_assert_str_eq(h.lines[0], "X1497 = 1497");
	progress_history_free(&h);
	for (int i = 0; i < 1500; i++)
		free(lines[i]);
	free(lines);
	assert_names("history ");
}

static int history_save_cut_short(char *msg, size_t size)
{
	const char *lines[] = { "A = torch.ones(100, 100)", "B = A @ A", "C = torch.softmax(B, dim=-1)" };
	return progress_history_save(hfile, lines, 3, 1000, msg, size);
}

Test(state, a_history_save_cut_short_should_keep_the_old_file)
{
	put_text(hfile, "X = 1\n");
	struct child_report r = in_child(small_files, history_save_cut_short);
	cr_assert_eq(r.rc, -1, "%s", r.msg);
	cr_assert_str_eq(r.msg, "history not saved: File too large");
	file_assert_holds(hfile, "X = 1\n", 6);
	assert_names("history ");
}

static int history_save_on_full_disk(char *msg, size_t size)
{
	put_text(hfile, "X = 1\n");
	fill_disk();
	int rc = history_save_cut_short(msg, size);
	size_t len;
	char *s = file_read(hfile, &len);
	if (!s || strcmp(s, "X = 1\n") != 0)
		rc = -3;
	free(s);
	return rc;
}

Test(state, a_history_save_on_a_full_disk_should_say_so_and_keep_the_old_file)
{
	struct child_report r = in_child(small_tmpfs, history_save_on_full_disk);
	cr_assert_eq(r.rc, -1, "%d %s", r.rc, r.msg);
	cr_assert_str_eq(r.msg, "history not saved: the disk is full");
}

/* ---- two sessions on one state directory (issue 15, item 4) ------------------------ */

/* The entry of id in p: it must be there. */
static const struct progress_entry *entry(const struct progress *p, const char *id)
{
	const struct progress_entry *e = progress_get(p, id);
	cr_assert_not_null(e, "no entry for %s", id);
	return e;
}

/* What progress.json holds now, loaded afresh (cleanly). */
static void load_clean(struct progress *p)
{
	progress_load(p);
	cr_assert_str_eq(p->problem, "", "the saved file does not load cleanly");
}

static const char third_lesson[] =
	"{\"lessons\": {\"three\": {\"furthest\": 4, \"steps\": 9, \"last\": 4}}, \"last_lesson\": \"three\"}\n";

Test(state, two_sessions_should_keep_the_furthest_step_the_exercises_of_both_and_a_lesson_only_on_disk)
{
	put_text(pfile, third_lesson);
	struct progress a, b;
	load_clean(&a);
	load_clean(&b);
	/* qkv 1 in one terminal, qkv 1 and 2 in another */
	progress_visit(&a, "one", 5, 10);
	progress_mark(&a, "one#2.0", 1, 1);
	progress_visit(&b, "one", 3, 10);
	progress_mark(&b, "one#1.1", 1, 1);
	progress_visit(&b, "two", 2, 7);
	cr_assert_eq(progress_save(&a), 0, "%s", a.problem);
	cr_assert_eq(progress_save(&b), 0, "%s", b.problem);	/* the last writer */
	struct progress c;
	load_clean(&c);
	cr_assert_eq(entry(&c, "one")->furthest, 5, "the furthest step of lesson one was lost");
	cr_assert_eq(entry(&c, "one")->steps, 10);
	cr_assert_eq(entry(&c, "one")->last, 3, "the step seen last is the last session's");
	entry(&c, "one#2.0");
	entry(&c, "one#1.1");
	cr_assert_eq(entry(&c, "two")->furthest, 2);
	cr_assert_eq(entry(&c, "three")->furthest, 4, "the lesson only on disk was lost");
	cr_assert_eq(entry(&c, "three")->steps, 9);
	cr_assert_eq(c.n, 5, "%d entries", c.n);
	cr_assert_str_eq(c.last_lesson, "two");
	/* and the last writer now holds the merge too (for its menu) */
	cr_assert_eq(entry(&b, "one")->furthest, 5);
	entry(&b, "one#2.0");
	progress_free(&a);
	progress_free(&b);
	progress_free(&c);
	assert_names("progress.json ");
}

Test(state, a_session_that_did_not_move_should_not_undo_what_another_saved)
{
	put_text(pfile, third_lesson);
	struct progress a, b;
	load_clean(&a);
	load_clean(&b);
	progress_visit(&b, "three", 7, 9);	/* further in lesson three, elsewhere */
	cr_assert_eq(progress_save(&b), 0, "%s", b.problem);
	progress_mark(&a, "three#1.0", 1, 1);	/* only an exercise here */
	cr_assert_eq(progress_save(&a), 0, "%s", a.problem);
	struct progress c;
	load_clean(&c);
	cr_assert_eq(entry(&c, "three")->furthest, 7);
	cr_assert_eq(entry(&c, "three")->last, 7, "a stale step seen last was written back");
	entry(&c, "three#1.0");
	cr_assert_str_eq(c.last_lesson, "three");
	progress_free(&a);
	progress_free(&b);
	progress_free(&c);
}

Test(state, a_lesson_used_last_elsewhere_should_win_over_one_merely_loaded)
{
	put_text(pfile, third_lesson);
	struct progress a, b;
	load_clean(&a);
	load_clean(&b);
	progress_visit(&b, "two", 1, 7);
	cr_assert_eq(progress_save(&b), 0, "%s", b.problem);
	progress_mark(&a, "three", 5, 9);
	cr_assert_eq(progress_save(&a), 0, "%s", a.problem);
	struct progress c;
	load_clean(&c);
	cr_assert_str_eq(c.last_lesson, "two");
	cr_assert_eq(entry(&c, "three")->furthest, 5);
	progress_free(&a);
	progress_free(&b);
	progress_free(&c);
}

/* ---- writers in parallel ------------------------------------------------------------ */

enum { WRITERS = 4, WRITER_STEPS = 30 };

/* One session: loaded once, then a save after each step and exercise, as
 * the full screen does; exits 0 when every save worked. */
static void writer(int w)
{
	struct progress p;
	progress_load(&p);
	char id[32], key[48];
	snprintf(id, sizeof id, "lesson-%d", w);
	int failed = 0;
	for (int s = 1; s <= WRITER_STEPS; s++) {
		progress_visit(&p, id, s, WRITER_STEPS);
		snprintf(key, sizeof key, "%s#%d.0", id, s);
		progress_mark(&p, key, 1, 1);
		failed += progress_save(&p) != 0;
	}
	progress_free(&p);
	_exit(failed ? 1 : 0);
}

Test(state, writers_in_parallel_should_lose_no_step_and_no_exercise)
{
	put_text(pfile, third_lesson);
	pid_t pids[WRITERS];
	fflush(NULL);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		cr_assert_geq(pids[w], 0);
		if (pids[w] == 0)
			writer(w);
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;
		cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed a save", w);
	}
	struct progress p;
	load_clean(&p);
	for (int w = 0; w < WRITERS; w++) {
		char id[32], key[48];
		snprintf(id, sizeof id, "lesson-%d", w);
		cr_assert_eq(entry(&p, id)->furthest, WRITER_STEPS, "%s lost steps", id);
		for (int s = 1; s <= WRITER_STEPS; s++) {
			snprintf(key, sizeof key, "%s#%d.0", id, s);
			cr_assert_not_null(progress_get(&p, key), "%s was lost", key);
		}
	}
	cr_assert_eq(entry(&p, "three")->furthest, 4);
	cr_assert_eq(p.n, 1 + WRITERS * (WRITER_STEPS + 1), "%d entries", p.n);
	progress_free(&p);
	assert_names("progress.json ");
}

/* ---- saving as the student goes -------------------------------------------------------- */

/* The furthest step of lesson one in the file, or 0. */
static int furthest_on_disk(void)
{
	struct progress p;
	progress_load(&p);
	const struct progress_entry *e = progress_get(&p, "one");
	int f = e ? e->furthest : 0;
	progress_free(&p);
	return f;
}

Test(state, pending_saves_should_come_at_most_once_a_gap_and_only_after_a_change)
{
	struct progress p;
	load_clean(&p);
	cr_assert_eq(progress_save_pending(&p, 5000, 1000), 0, "%s", p.problem);
	assert_names("");	/* nothing changed: nothing written */
	progress_visit(&p, "one", 2, 10);
	cr_assert_eq(progress_save_pending(&p, 5000, 1000), 0, "%s", p.problem);
	cr_assert_eq(furthest_on_disk(), 2, "the first change waits for nothing");
	progress_visit(&p, "one", 3, 10);
	cr_assert_eq(progress_save_pending(&p, 5500, 1000), 0);
	cr_assert_eq(furthest_on_disk(), 2, "saved again within the gap");
	cr_assert_eq(progress_save_pending(&p, 6000, 1000), 0, "%s", p.problem);
	cr_assert_eq(furthest_on_disk(), 3, "the pending change was not saved after the gap");
	progress_visit(&p, "one", 4, 10);
	cr_assert_eq(progress_save_pending(&p, 6100, 0), 0, "%s", p.problem);
	cr_assert_eq(furthest_on_disk(), 4, "a flush (gap 0) did not save");
	cr_assert_eq(unlink(pfile), 0);
	cr_assert_eq(progress_save_pending(&p, 9000, 1000), 0);
	assert_names("");	/* saved already: not written again */
	progress_free(&p);
}

Test(state, a_save_failing_again_the_same_way_should_be_news_once)
{
	put_text(qdir, "a file where the directory goes");
	struct progress p;
	load_clean(&p);
	progress_visit(&p, "one", 2, 10);
	cr_assert_eq(progress_save_pending(&p, 1000, 1000), -1);
	char want[300];
	snprintf(want, sizeof want, "progress.json not saved: cannot make the directory %s (Not a directory)", qdir);
	cr_assert_str_eq(p.problem, want);
	p.problem[0] = 0;	/* shown */
	progress_visit(&p, "one", 3, 10);
	cr_assert_eq(progress_save_pending(&p, 1500, 1000), 0, "tried again within the gap");
	cr_assert_eq(progress_save_pending(&p, 1600, 0), 0, "a flush tried a failing save again at once");
	cr_assert_eq(progress_save_pending(&p, 2000, 1000), -1);
	cr_assert_str_eq(p.problem, "", "the same failure was news again");
	/* when qkv ends, the save says so once more (on stderr) */
	cr_assert_eq(progress_save(&p), -1);
	cr_assert_str_eq(p.problem, want);
	progress_free(&p);
}

Test(state, a_file_damaged_since_the_load_should_be_set_aside_and_this_session_saved)
{
	struct progress p;
	load_clean(&p);
	progress_visit(&p, "one", 2, 10);
	put_text(pfile, "{\"lessons\": oops");	/* written meanwhile by something else */
	cr_assert_eq(progress_save(&p), 0, "%s", p.problem);
	cr_assert_str_eq(p.problem, "progress.json was unreadable, kept as progress.json.bad; this session's "
				    "progress saved in its place (line 1, column 13: not valid JSON)");
	assert_names("progress.json progress.json.bad ");
	progress_free(&p);
	cr_assert_eq(furthest_on_disk(), 2);
}

/* ---- the prompt's history ---------------------------------------------------------------- */

/* Loads the history file as the prompt does when it opens. */
static void history_open(int max)
{
	struct progress_history h;
	progress_history_load(&h, hfile, max);
	cr_assert_str_eq(h.problem, "");
	progress_history_free(&h);
}

static void history_save(const char *const *lines, int n, int max)
{
	char problem[512];
	cr_assert_eq(progress_history_save(hfile, lines, n, max, problem, sizeof problem), 0, "%s", problem);
}

static void assert_history(const char *want)
{
	char *got = read_text(hfile);
	cr_assert_str_eq(got ? got : "(no file)", want);
	free(got);
}

Test(state, a_history_saved_by_another_session_meanwhile_should_keep_its_lines_and_get_ours)
{
	put_text(hfile, "A = 1\nB = 2\n");
	history_open(100);
	put_text(hfile, "A = 1\nB = 2\nOTHER = 3\n");	/* the other session quit first */
	const char *const ours[] = { "A = 1", "B = 2", "MINE = 4" };
	history_save(ours, 3, 100);
	assert_history("A = 1\nB = 2\nOTHER = 3\nMINE = 4\n");
	/* saved again later in the same session: only what is new since */
	const char *const more[] = { "A = 1", "B = 2", "MINE = 4", "MORE = 5" };
	history_save(more, 4, 100);
	assert_history("A = 1\nB = 2\nOTHER = 3\nMINE = 4\nMORE = 5\n");
	/* nothing new: the file is left as another session made it */
	put_text(hfile, "A = 1\nLATER = 6\n");
	history_save(more, 4, 100);
	assert_history("A = 1\nLATER = 6\n");
}

Test(state, a_history_list_that_dropped_its_oldest_lines_should_still_append_only_the_new_ones)
{
	put_text(hfile, "a\nb\nc\n");
	history_open(3);
	put_text(hfile, "a\nb\nc\nx\n");	/* another session's line */
	const char *const ours[] = { "c", "d", "e" };	/* the list keeps 3: a and b dropped */
	history_save(ours, 3, 3);
	assert_history("x\nd\ne\n");	/* the newest 3 of a b c x d e */
}

Test(state, an_old_line_edited_in_the_list_should_not_be_saved_twice)
{
	put_text(hfile, "a\nb\n");
	history_open(100);
	put_text(hfile, "a\nb\nx\n");
	const char *const ours[] = { "a", "b edited", "c" };	/* readline keeps an edit of a recalled line */
	history_save(ours, 3, 100);
	assert_history("a\nb\nx\nc\n");
}
