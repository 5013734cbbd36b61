/* test_session.c: :save and :load of the prompt (lesson/save.h) in
 * process: a saved session loads as a lesson pinning the same tensors;
 * saving is atomic and refuses what it must; :load gives back code; blocks
 * typed at a prompt save whole. That ./qkv checks and runs a saved session
 * is tests/system/test_session.c. */
#include "fixture.h"
#include "helpers.h"
#include "lesson/lesson.h"
#include "lesson/save.h"
#include "lang/interp.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(session, .init = fixture_dir_make, .fini = fixture_dir_remove);

/* The names in the directory other than the ones listed (NULL-ended), as one
 * text: "" when there are no others. */
static char *other_entries(const char *const *expected)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, "");
	DIR *d = opendir(fixture_dir);
	cr_assert_not_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		bool known = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
		for (int i = 0; expected[i] && !known; i++)
			known = strcmp(e->d_name, expected[i]) == 0;
		if (!known)
			strbuf_printf(&sb, "%s ", e->d_name);
	}
	closedir(d);
	return strbuf_detach(&sb);
}

/* The directory holds name and nothing else (no temporary file left). */
static void assert_alone(const char *name)
{
	const char *const left[] = { name, NULL };
	char *others = other_entries(left);
	cr_assert_str_eq(others, "", "left behind: %s", others);
	free(others);
}

static void assert_file_holds(const char *path, const char *want)
{
	char *text = read_text(path);
	cr_assert(text, "%s is gone", path);
	cr_assert_str_eq(text, want);
	free(text);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void assert_same_tensor(const struct interp *A, const struct interp *B, const char *name)
{
	const struct value *a = interp_get(A, name), *b = interp_get(B, name);
	cr_assert(a && b && a->kind == V_TENSOR && b->kind == V_TENSOR, "'%s' is not a tensor in both", name);
	cr_assert(tensor_same_shape(a->t, b->t), "'%s' has another shape", name);
	cr_assert_eq(a->t->dtype, b->t->dtype, "'%s' has another dtype", name);
	for (int64_t i = 0; i < tensor_numel(a->t); i++)
		cr_assert(tensor_get(a->t, i) == tensor_get(b->t, i), "'%s' element %lld: %.9g against %.9g", name,
			  (long long)i, tensor_get(a->t, i), tensor_get(b->t, i));
}

/* ---- what a saved session is ------------------------------------------------ */

/* The basic statements, run in I, saved as name in the test directory. */
static char *saved_basic(struct interp *I, const char *name, const char *title)
{
	char *path = fixture_in_dir(name);
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, title, fixture_basic, FIXTURE_NBASIC, I, &err), 0, "%s", err.msg);
	return path;
}

Test(session, a_saved_session_should_load_as_a_lesson_of_one_step_holding_the_statements)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("My Session!.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "Softmax of a 2x2", fixture_basic, FIXTURE_NBASIC, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	cr_assert_str_eq(l->id, "my-session");
	cr_assert_str_eq(l->title, "Softmax of a 2x2");
	cr_assert_str_eq(l->source, "a qkv session");
	cr_assert_eq(l->nsteps, 1);
	const struct step *st = &l->steps[0];
	cr_assert_str_eq(st->title, "Softmax of a 2x2");
	cr_assert_eq(st->nlines, FIXTURE_NBASIC);
	for (int i = 0; i < FIXTURE_NBASIC; i++)
		cr_assert_str_eq(st->lines[i].text, fixture_basic[i]);
	/* a heatmap of each tensor, the newest name first */
	cr_assert_eq(st->nshows, 3);
	cr_assert_str_eq(st->shows[0].expr, "R");
	cr_assert_str_eq(st->shows[1].expr, "W");
	cr_assert_str_eq(st->shows[2].expr, "X");
	cr_assert_eq(st->nexpects, 3);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(st->expects[i].kind, EXPECT_VALUES);
	lesson_free(l);
	free(path);
	interp_free(I);
}

Test(session, float32_values_should_be_written_so_they_read_back_exactly)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = saved_basic(I, "exact.json", "exact");
	struct lesson *l = fixture_load(path);
	const char *names[] = { "X", "W", "R" };
	for (int k = 0; k < 3; k++) {
		const struct expect *e = fixture_expect(&l->steps[0], names[k]);
		const struct tensor *t = interp_get(I, names[k])->t;
		cr_assert_eq(e->ndim, t->ndim);
		for (int64_t i = 0; i < tensor_numel(t); i++)
			cr_assert_eq((float)e->values[i], (float)tensor_get(t, i), "%s[%lld]", names[k], (long long)i);
	}
	/* shortest digits: W[0][0] is 0.0024726233 in float32 */
	char *text = read_text(path);
	cr_assert(strstr(text, "0.0024726233,"), "%s", text);
	free(text);
	lesson_free(l);
	free(path);
	interp_free(I);
}

Test(session, values_beyond_the_budget_and_heatmaps_beyond_eight_should_be_left_to_text_and_off_screen)
{
	/* 18 tensors of 4096 elements: the first 16 fill the values budget */
	const char *st[18];
	char lines[18][64];
	for (int i = 0; i < 18; i++) {
		snprintf(lines[i], sizeof lines[i], "T%d = torch.full((64, 64), %d.5)", i, i);
		st[i] = lines[i];
	}
	struct interp *I = fixture_session_typed(st, 18);
	char *path = fixture_in_dir("many.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "many", st, 18, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	const struct step *s0 = &l->steps[0];
	cr_assert_eq(s0->nexpects, 18);
	cr_assert_eq(fixture_expect(s0, "T15")->kind, EXPECT_VALUES);
	cr_assert_eq(fixture_expect(s0, "T16")->kind, EXPECT_TEXT);
	cr_assert_eq(s0->nshows, SAVE_MAX_HEATMAPS);
	cr_assert_str_eq(s0->shows[0].expr, "T17");
	cr_assert_str_eq(s0->shows[7].expr, "T10");
	lesson_free(l);
	free(path);
	interp_free(I);
}

Test(session, saving_should_leave_the_workspace_and_its_random_stream_as_they_were)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC), *twin = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("same.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "same", fixture_basic, FIXTURE_NBASIC, I, &err), 0, "%s", err.msg);
	const char *next = "N = torch.randn(4)";
	cr_assert_eq(interp_run(I, next, strlen(next), 1, 0, &err), INTERP_OK);
	cr_assert_eq(interp_run(twin, next, strlen(next), 1, 0, &err), INTERP_OK);
	assert_same_tensor(I, twin, "N");
	cr_assert_eq(interp_var_count(I), interp_var_count(twin));
	free(path);
	interp_free(I);
	interp_free(twin);
}

/* ---- what saving refuses ---------------------------------------------------- */

Test(session, saving_over_an_existing_file_without_overwrite_should_fail_and_keep_the_old_file)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("taken.json");
	write_text(path, "my own notes\n");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "basic", fixture_basic, FIXTURE_NBASIC, I, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s exists; :save! %s replaces it", path, path);
	cr_assert_str_eq(err.msg, want);
	assert_file_holds(path, "my own notes\n");
	assert_alone("taken.json");
	free(path);
	interp_free(I);
}

Test(session, saving_with_overwrite_should_replace_an_existing_file_and_keep_its_permissions)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("taken.json");
	write_text(path, "my own notes\n");
	chmod(path, 0640);
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, true, "basic", fixture_basic, FIXTURE_NBASIC, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	cr_assert_eq(l->steps[0].nexpects, 3);
	lesson_free(l);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0640);
	assert_alone("taken.json");
	free(path);
	interp_free(I);
}

Test(session, a_directory_in_place_of_the_file_should_be_refused)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("sub");
	cr_assert_eq(mkdir(path, 0700), 0);
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, true, "basic", fixture_basic, FIXTURE_NBASIC, I, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "cannot save %s: it is a directory; give a file name", path);
	cr_assert_str_eq(err.msg, want);
	assert_alone("sub");
	free(path);
	interp_free(I);
}

/* Runs save_write_lesson in a child process that first calls setup (dropping
 * privileges, limiting the file size); returns its status and message. */
static int save_in_child(void (*setup)(void), const char *path, bool overwrite, struct interp *I, char *msg,
			 size_t size)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		setup();
		struct qkv_error err;
		error_clear(&err);
		int rc = save_write_lesson(path, overwrite, "basic", fixture_basic, FIXTURE_NBASIC, I, &err);
		char buf[400];
		int len = snprintf(buf, sizeof buf, "%d %s", rc, err.msg);
		if (write(fds[1], buf, (size_t)len) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < size && (r = read(fds[0], msg + got, size - got - 1)) > 0)
		got += (size_t)r;
	msg[got] = 0;
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed: %s", msg);
	return atoi(msg);
}

static void become_nobody(void)
{
	/* root writes anywhere: drop to nobody so the mode bits count */
	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		_exit(3);
}

Test(session, a_read_only_directory_should_give_a_clear_error_and_leave_no_temporary_file)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("basic.json");
	cr_assert_eq(chmod(fixture_dir, 0555), 0);
	char msg[400], want[400];
	cr_assert_eq(save_in_child(become_nobody, path, false, I, msg, sizeof msg), -1, "%s", msg);
	snprintf(want, sizeof want, "-1 cannot save %s: no permission to write in %s", path, fixture_dir);
	cr_assert_str_eq(msg, want);
	const char *const none[] = { NULL };
	char *others = other_entries(none);
	cr_assert_str_eq(others, "", "left behind: %s", others);
	free(others);
	free(path);
	interp_free(I);
}

static void small_disk(void)
{
	/* the file size limit stands in for a full disk: write fails midway */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = { 200, 200 };
	if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
		_exit(3);
}

Test(session, a_write_that_fails_midway_should_keep_the_old_file_and_leave_no_temporary_file)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("basic.json");
	write_text(path, "the old file\n");
	char msg[400];
	cr_assert_eq(save_in_child(small_disk, path, true, I, msg, sizeof msg), -1, "%s", msg);
	cr_assert(strstr(msg, "cannot save ") && strstr(msg, path), "%s", msg);
	assert_file_holds(path, "the old file\n");
	assert_alone("basic.json");
	free(path);
	interp_free(I);
}

Test(session, a_missing_directory_should_be_named_in_the_error)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = fixture_in_dir("nowhere/basic.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "basic", fixture_basic, FIXTURE_NBASIC, I, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "cannot save %s: there is no directory %s/nowhere", path, fixture_dir);
	cr_assert_str_eq(err.msg, want);
	free(path);
	interp_free(I);
}

Test(session, a_file_name_of_255_bytes_should_save)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char name[256];
	memset(name, 'a', 250);
	memcpy(name + 250, ".json", 6);	/* NAME_MAX bytes: the longest a name can be */
	char *path = fixture_in_dir(name);
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "long", fixture_basic, FIXTURE_NBASIC, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	cr_assert_eq(l->steps[0].nexpects, 3);
	lesson_free(l);
	assert_alone(name);
	free(path);
	interp_free(I);
}

Test(session, a_file_where_no_file_can_be_made_should_give_the_real_reason)
{
	/* /proc/self/mem stats as a regular file, but /proc/self takes no new
	 * file (the temporary one): that is the reason, not "no directory" */
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	struct qkv_error err;
	cr_assert_eq(save_write_lesson("/proc/self/mem", true, "mem", fixture_basic, FIXTURE_NBASIC, I, &err), -1);
	cr_assert_str_eq(err.msg, "cannot save /proc/self/mem: cannot create a temporary file in /proc/self: No such "
				  "file or directory");
	cr_assert_eq(save_write_lesson("/proc/self/mem", false, "mem", fixture_basic, FIXTURE_NBASIC, I, &err), -1);
	cr_assert_str_eq(err.msg, "/proc/self/mem exists; :save! /proc/self/mem replaces it");
	interp_free(I);
}

Test(session, statements_that_do_not_run_from_scratch_should_refuse_the_save)
{
	/* S came from somewhere else (a lesson's workspace); only W was typed */
	const char *const before[] = { "S = torch.ones(2, 2)" };
	const char *const st[] = { "W = S * 2" };
	struct interp *I = fixture_session_typed(before, 1);
	struct qkv_error err;
	cr_assert_eq(interp_run(I, st[0], strlen(st[0]), 1, 0, &err), INTERP_OK);
	char *path = fixture_in_dir("partial.json");
	cr_assert_eq(save_write_lesson(path, false, "partial", st, 1, I, &err), -1);
	cr_assert(strstr(err.msg, "statement 1 fails when the statements run from scratch (col 5): "), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, "'S' is not defined"), "%s", err.msg);
	const char *const none[] = { NULL };
	char *others = other_entries(none);
	cr_assert_str_eq(others, "", "left behind: %s", others);
	free(others);
	free(path);
	interp_free(I);
}

Test(session, a_workspace_the_statements_do_not_recreate_should_refuse_the_save)
{
	const char *const st[] = { "X = torch.ones(2)" };
	struct interp *I = fixture_session_typed(st, 1);
	struct qkv_error err;
	const char *untold = "X += 1";	/* ran, but is not among the statements */
	cr_assert_eq(interp_run(I, untold, strlen(untold), 1, 0, &err), INTERP_OK);
	char *path = fixture_in_dir("differs.json");
	cr_assert_eq(save_write_lesson(path, false, "differs", st, 1, I, &err), -1);
	cr_assert_str_eq(err.msg, "the statements do not recreate the workspace: run from scratch, 'X' comes out "
			 "differently (element 0 is 1 instead of 2)");
	cr_assert_eq(access(path, F_OK), -1);
	free(path);
	interp_free(I);
}

/* ---- :load ------------------------------------------------------------------ */

Test(session, loading_a_saved_session_should_recreate_its_tensors_in_a_fresh_workspace)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = saved_basic(I, "basic.json", "basic");
	struct qkv_error err;
	struct strbuf code;
	strbuf_init(&code);
	cr_assert_eq(save_load_code(path, &code, NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(code.s, "torch.manual_seed(0); X = [1 2; 3 4]\nW = torch.softmax(X @ X.T, dim=-1)\n"
			 "R = torch.randn(3, 3)\nW\nR");
	struct interp *fresh = interp_new(KERNEL_SIMD);
	cr_assert_eq(interp_run(fresh, code.s, code.len, 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	assert_same_tensor(I, fresh, "X");
	assert_same_tensor(I, fresh, "W");
	assert_same_tensor(I, fresh, "R");
	strbuf_free(&code);
	free(path);
	interp_free(fresh);
	interp_free(I);
}

Test(session, loading_a_lesson_of_several_steps_should_give_their_code_in_order)
{
	char *path = fixture_in_dir("two-steps.json");
	write_text(path, "{ \"id\": \"two\", \"title\": \"Two\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
		   "  { \"title\": \"a\", \"text\": \"a\", \"code\": [\"X = [1 0; 0 1; 1 1]\"] },\n"
		   "  { \"title\": \"no code\", \"text\": \"b\" },\n"
		   "  { \"title\": \"c\", \"text\": \"c\", \"code\": [\"S = X @ X.T\", \"W = torch.softmax(S, dim=-1)\"] }\n"
		   "] }\n");
	struct strbuf code;
	strbuf_init(&code);
	struct qkv_error err;
	cr_assert_eq(save_load_code(path, &code, NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(code.s, "X = [1 0; 0 1; 1 1]\nS = X @ X.T\nW = torch.softmax(S, dim=-1)");
	/* the same lesson under another name is recognised by its '{' */
	char *other = fixture_in_dir("two-steps.txt");
	cr_assert_eq(rename(path, other), 0);
	strbuf_reset(&code);
	cr_assert_eq(save_load_code(other, &code, NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(code.s, "X = [1 0; 0 1; 1 1]\nS = X @ X.T\nW = torch.softmax(S, dim=-1)");
	strbuf_free(&code);
	free(other);
	free(path);
}

Test(session, loading_a_statement_file_should_give_its_text_as_it_is)
{
	char *path = fixture_in_dir("notes.qkv");
	const char *text = "# my notes\nX = torch.randn(2, 3)\nS = X @ X.T  # scores\n\nS\n";
	write_text(path, text);
	struct strbuf code;
	strbuf_init(&code);
	struct qkv_error err;
	cr_assert_eq(save_load_code(path, &code, NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(code.s, text);
	strbuf_free(&code);
	free(path);
}

Test(session, loading_a_broken_lesson_should_give_the_loaders_file_line_and_column)
{
	/* the loader's own message, as tests/lessons/bad/expected.txt pins it */
	const char *name = "06-id-not-a-string.json";
	char *list = read_text("tests/lessons/bad/expected.txt");
	cr_assert_not_null(list);
	char *line = strstr(list, name);
	cr_assert_not_null(line);
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = 0;
	const char *want = strchr(line, '\t') + 1 + strlen("qkv: ");
	char path[128];
	snprintf(path, sizeof path, "tests/lessons/bad/%s", name);
	struct strbuf code;
	strbuf_init(&code);
	struct qkv_error err;
	cr_assert_eq(save_load_code(path, &code, NULL, &err), -1);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(code.len, 0);
	strbuf_free(&code);
	free(list);
}

Test(session, loading_a_missing_file_a_directory_or_a_binary_file_should_say_which)
{
	struct strbuf code;
	strbuf_init(&code);
	struct qkv_error err;
	char *missing = fixture_in_dir("missing.qkv"), want[256];
	cr_assert_eq(save_load_code(missing, &code, NULL, &err), -1);
	snprintf(want, sizeof want, "%s: No such file or directory", missing);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(save_load_code(fixture_dir, &code, NULL, &err), -1);
	snprintf(want, sizeof want, "%s: is a directory, not a file to load", fixture_dir);
	cr_assert_str_eq(err.msg, want);
	char *binary = fixture_in_dir("data.bin");
	FILE *f = fopen(binary, "wb");
	fwrite("X = 1\0\x01\x02", 1, 8, f);
	fclose(f);
	cr_assert_eq(save_load_code(binary, &code, NULL, &err), -1);
	snprintf(want, sizeof want, "%s: holds a NUL byte; only text files of statements can be loaded", binary);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(code.len, 0);
	strbuf_free(&code);
	free(binary);
	free(missing);
}

/* Blocks typed at a prompt (each one statement of the session, its lines
 * together) save as a lesson whose code runs them again whole: a loop, a
 * function and the statement after them. */
Test(session, blocks_typed_should_save_whole_and_load_to_the_same_tensors)
{
	const char *typed[] = {
		"acc = torch.zeros(2)\nfor i in range(3):\n    acc = acc + i",
		"def scaled(t, k=2):\n    return t * k",
		"W = scaled(acc) + 1",
	};
	struct interp *I = fixture_session_typed(typed, 3);
	char *path = fixture_in_dir("blocks.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "blocks", typed, 3, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	cr_assert_eq(l->steps[0].nlines, 6, "a block's lines are the step's lines");
	cr_assert_str_eq(l->steps[0].lines[2].text, "    acc = acc + i");
	lesson_free(l);
	struct strbuf code;
	strbuf_init(&code);
	cr_assert_eq(save_load_code(path, &code, NULL, &err), 0, "%s", err.msg);
	struct interp *fresh = interp_new(KERNEL_SIMD);
	cr_assert_eq(interp_run(fresh, code.s, code.len, 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	assert_same_tensor(I, fresh, "acc");
	assert_same_tensor(I, fresh, "W");
	strbuf_free(&code);
	free(path);
	interp_free(fresh);
	interp_free(I);
}
