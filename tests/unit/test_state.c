/* test_state.c: nothing lost (issue 7, point 5). The state files, progress.json
 * and the prompt history (lesson/progress.h), without a terminal: each kind of
 * damaged file is set aside as NAME.bad with its bytes, reported in one line
 * and started afresh; a save that fails (a read-only directory or file
 * system, a full disk, a state directory that is a file, a write cut short)
 * says so and leaves the old file whole. Then in a real terminal (tmux): the
 * message on screen, qkv going on, the terminal restored, the files after.
 *
 * Root writes anywhere, so the permission tests drop to nobody in a child
 * process; a full disk and a read-only file system are a small tmpfs in a
 * mount namespace of the child's own (skipped where mounting is not allowed);
 * a write cut short is RLIMIT_FSIZE, which binds root too. */
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
	snprintf(dir, sizeof dir, "/tmp/qkv-state-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(qdir, sizeof qdir, "%s/qkv", dir);
	snprintf(pfile, sizeof pfile, "%s/progress.json", qdir);
	snprintf(hfile, sizeof hfile, "%s/history", qdir);
	setenv("XDG_STATE_HOME", dir, 1);
}

static void remove_dir(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s 2>/dev/null; rm -rf %s", dir, dir);
	if (system(cmd) != 0) {
		/* left in /tmp */
	}
}

TestSuite(state, .init = make_dir, .fini = remove_dir);

/* ---- helpers ------------------------------------------------------------------ */

static void put_file(const char *path, const char *data, size_t len)
{
	if (strcmp(path, qdir) != 0)
		mkdir(qdir, 0700);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static void put_text(const char *path, const char *text)
{
	put_file(path, text, strlen(text));
}

/* The bytes of a file (malloc'd, NUL appended), or NULL. */
static char *get_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void assert_holds(const char *path, const char *data, size_t len)
{
	size_t got;
	char *s = get_file(path, &got);
	cr_assert_not_null(s, "%s is missing", path);
	cr_assert(got == len && memcmp(s, data, len) == 0, "%s holds %zu bytes, not the %zu expected:\n%s", path, got,
		  len, s);
	free(s);
}

/* The names in qdir, sorted, space-separated ("" when none). */
static char *names(void)
{
	char cmd[256], out[160];
	snprintf(cmd, sizeof cmd, "ls -A %s 2>/dev/null | tr '\\n' ' '", qdir);
	FILE *p = popen(cmd, "r");
	size_t n = fread(out, 1, sizeof out - 1, p);
	pclose(p);
	out[n] = 0;
	return strdup(out);
}

static void assert_names(const char *want)
{
	char *got = names();
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
	assert_holds(bad, data, len);
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
	assert_holds(inside, "mine", 4);
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
	assert_holds(bad, text, sizeof text - 1);
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
	assert_holds(bad, "the first", 9);
	assert_holds(bad1, "the second", 10);
	assert_holds(bad2, "the third", 9);
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
	assert_holds(pfile, "not json", 8);
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
	assert_holds(pfile, good_progress, sizeof good_progress - 1);
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
	assert_holds(qdir, "a file where the directory goes", 31);
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
	assert_holds(pfile, good_progress, sizeof good_progress - 1);
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
	char *s = get_file(pfile, &len);
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
	char *s = get_file(pfile, &len);
	if (!s || len != sizeof good_progress - 1 || memcmp(s, good_progress, len) != 0)
		rc = -3;
	free(s);
	char *left = names();
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
	assert_holds(pfile, good_progress, sizeof good_progress - 1);
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
	assert_holds(bad, data, len);
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
	assert_holds(hfile, "X = 1\n", 6);
	assert_names("history ");
}

static int history_save_on_full_disk(char *msg, size_t size)
{
	put_text(hfile, "X = 1\n");
	fill_disk();
	int rc = history_save_cut_short(msg, size);
	size_t len;
	char *s = get_file(hfile, &len);
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

/* ---- in a terminal (tmux) ------------------------------------------------------------ */

static char session[64];

static void stop(void)
{
	tmux_private_server_end();
	remove_dir();
}

TestSuite(state_screen, .init = make_dir, .fini = stop);

static void tmux(const char *fmt, const char *arg)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, fmt, session, arg);
	if (system(cmd) != 0) {
		/* a failed tmux command shows up in what the screen lacks */
	}
}

static void keys(const char *k)
{
	tmux("tmux send-keys -t %s %s", k);
}

static void type(const char *text)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "tmux send-keys -t %%s -l '%s'%%s", text);
	tmux(buf, "");
}

/* Runs the shell command line in a 100x30 tmux window; it should end with
 * "echo QKV-EXIT=\$?" after qkv (the line is in double quotes). */
static void start(const char *line)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	snprintf(session, sizeof session, "qkvst%d", (int)getpid());
	tmux_private_server();
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "tmux new-session -d -s %s -x 100 -y 30 \"%s; sleep 30\"", session, line);
	cr_assert_eq(system(cmd), 0, "tmux failed");
}

static char *wait_for(const char *want)
{
	char *s = tmux_wait_for(session, want);
	cr_assert(strstr(s, want), "never shown: %s\n%s", want, s);
	return s;
}

Test(state_screen, a_damaged_progress_file_should_be_reported_on_screen_and_replaced, .timeout = 60)
{
	static const char text[] = "{\"lessons\": {\"attention-step-by-step\": {\"furthest\": 5, \"steps\": 28},\n"
				   "  oops}}\n";
	put_text(pfile, text);
	char line[600];
	snprintf(line, sizeof line, "TERM=xterm-256color XDG_STATE_HOME=%s %s; echo QKV-EXIT=\\$?", dir, qkv_binary());
	start(line);
	/* the menu's status line, what matters first */
	free(wait_for("progress.json was unreadable, kept as progress.json.bad; starting afresh (line 2"));
	keys("Enter");
	free(wait_for("step 1/28"));
	keys("Right");
	free(wait_for("step 2/28"));
	keys("q");	/* back to the menu: progress saved */
	char *s = wait_for("\u25d0 2/28");
	cr_assert_null(strstr(s, "unreadable"), "reported twice:\n%s", s);
	free(s);
	keys("q");
	s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	cr_assert_null(strstr(s, "qkv:"), "a message on stderr:\n%s", s);
	free(s);
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", pfile);
	assert_holds(bad, text, sizeof text - 1);
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "", "the new file is damaged too");
	const struct progress_entry *e = progress_get(&p, "attention-step-by-step");
	cr_assert(e && e->furthest == 2 && e->steps == 28, "the new file lacks the step reached");
	progress_free(&p);
	assert_names("progress.json progress.json.bad ");
}

Test(state_screen, a_damaged_history_should_be_reported_at_the_prompt_and_replaced, .timeout = 60)
{
	static const char text[] = "A = 1\nB\0= 2\n";
	put_file(hfile, text, sizeof text - 1);
	char line[600];
	snprintf(line, sizeof line, "TERM=xterm-256color XDG_STATE_HOME=%s %s --repl; echo QKV-EXIT=\\$?", dir,
		 qkv_binary());
	start(line);
	free(wait_for("history was unreadable, kept as history.bad; starting afresh (line 2, column 2: a NUL byte)"));
	type("torch.ones(2) * 3");
	keys("Enter");
	free(wait_for("tensor([3., 3.])"));
	keys("Up");
	free(wait_for(">>> torch.ones(2) * 3"));
	keys("C-u");
	type(":quit");
	keys("Enter");
	char *s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	free(s);
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", hfile);
	assert_holds(bad, text, sizeof text - 1);
	assert_holds(hfile, "torch.ones(2) * 3\n:quit\n", 24);
}

/* stty -g before and after qkv, in the shell inside tmux */
static char stty_before[128], stty_after[128];

static void assert_terminal_restored(void)
{
	char *a = read_text(stty_after), *b = read_text(stty_before);
	cr_assert(a && b, "stty was not recorded");
	cr_assert_str_eq(a, b, "the terminal was not restored");
	free(a);
	free(b);
	unlink(stty_before);
	unlink(stty_after);
}

Test(state_screen, an_unwritable_state_directory_should_give_messages_and_qkv_should_go_on, .timeout = 60)
{
	put_text(qdir, "a file where the state directory goes");
	snprintf(stty_before, sizeof stty_before, "/tmp/qkv-stty-before-%d", (int)getpid());
	snprintf(stty_after, sizeof stty_after, "/tmp/qkv-stty-after-%d", (int)getpid());
	char line[800];
	snprintf(line, sizeof line, "stty -g > %s; TERM=xterm-256color XDG_STATE_HOME=%s %s; echo QKV-EXIT=\\$?; "
		 "stty -g > %s", stty_before, dir, qkv_binary(), stty_after);
	start(line);
	free(wait_for("Choose a lesson"));
	keys("Enter");
	free(wait_for("step 1/28"));
	keys("Right");
	free(wait_for("step 2/28"));
	/* the prompt: its history cannot be saved when it closes */
	keys(":");
	free(wait_for(">>>"));
	type("Q = 1");
	keys("Enter");
	keys("Escape");
	char want[300];
	snprintf(want, sizeof want, "history not saved: cannot make the directory %s (Not a directory)", qdir);
	free(wait_for(want));
	/* back to the menu: the progress cannot be saved */
	keys("q");
	snprintf(want, sizeof want, "progress.json not saved: cannot make the directory %s (Not a directory)", qdir);
	free(wait_for(want));
	/* and qkv goes on: the lesson opens again, the step is remembered */
	keys("Enter");
	free(wait_for("step 1/28"));
	keys("q");
	free(wait_for("\u25d0 2/28"));
	keys("q");
	/* after the terminal is restored, the last save's failure stays on it */
	char *s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	snprintf(want, sizeof want, "qkv: progress.json not saved: cannot make the directory %s (Not a directory)",
		 qdir);
	cr_assert(strstr(s, want), "no message after the end:\n%s", s);
	snprintf(want, sizeof want, "qkv: history not saved: cannot make the directory %s (Not a directory)", qdir);
	cr_assert(strstr(s, want), "no history message after the end:\n%s", s);
	free(s);
	for (int i = 0; i < 40 && access(stty_after, F_OK) != 0; i++)
		usleep(50000);
	assert_terminal_restored();
	assert_holds(qdir, "a file where the state directory goes", 37);
}

Test(state_screen, a_full_disk_should_be_reported_when_qkv_ends_and_the_old_files_kept, .timeout = 60)
{
	if (system("unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs tmpfs /mnt' 2>/dev/null") != 0)
		cr_skip_test("no mount namespace here: a full disk cannot be made");
	put_text(pfile, good_progress);
	put_text(hfile, "X = 1\n");
	snprintf(stty_before, sizeof stty_before, "/tmp/qkv-stty-before-%d", (int)getpid());
	snprintf(stty_after, sizeof stty_after, "/tmp/qkv-stty-after-%d", (int)getpid());
	/* the old files are copied onto a 64 KiB tmpfs over the state
	 * directory, which is then filled; after qkv they are compared with
	 * the originals beside it */
	char line[4096];
	snprintf(line, sizeof line,
		 "stty -g > %s; unshare -m sh -c '"
		 "mkdir -p %s/orig && cp %s %s %s/orig/ && mount --make-rprivate / && "
		 "mount -t tmpfs -o size=64k tmpfs %s && cp %s/orig/* %s/ && "
		 "(cat /dev/zero > %s/filler) 2>/dev/null; "
		 "TERM=xterm-256color XDG_STATE_HOME=%s %s --repl; echo QKV-EXIT=\\$?; "
		 "cmp %s/orig/progress.json %s && cmp %s/orig/history %s && echo BOTH-INTACT'; "
		 "stty -g > %s",
		 stty_before, dir, pfile, hfile, dir, qdir, dir, qdir, qdir, dir, qkv_binary(), dir, pfile, dir, hfile,
		 stty_after);
	start(line);
	free(wait_for(">>>"));
	type("torch.eye(2) * 5");
	keys("Enter");
	free(wait_for("tensor([[5., 0.],"));
	type(":quit");
	keys("Enter");
	char *s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	cr_assert(strstr(s, "qkv: progress.json not saved: the disk is full"), "%s", s);
	cr_assert(strstr(s, "qkv: history not saved: the disk is full"), "%s", s);
	free(s);
	free(wait_for("BOTH-INTACT"));
	for (int i = 0; i < 40 && access(stty_after, F_OK) != 0; i++)
		usleep(50000);
	assert_terminal_restored();
}
