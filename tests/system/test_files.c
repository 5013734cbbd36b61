/* test_files.c: the files qkv reads and the text it prints from them, as a
 * user meets them: statement files that are devices, directories or
 * unreadable (qkv eval), lessons whose text holds control characters (qkv
 * list, run --plain, check), and $QKV_LESSONS directories that are empty,
 * too full or hold one id twice. Each must give one message and exit 2, or
 * print what the file holds with nothing a terminal would obey. */
#include "system.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int qkv(const char *a1, const char *a2, const char *a3, const char *env, char **out, char **err)
{
	const char *argv[] = { "qkv", a1, a2, a3, NULL };
	return run_qkv(argv, NULL, env, out, err);
}

/* The test fails when text holds a byte a terminal obeys (C0 controls but
 * tab and newline, DEL, the UTF-8 C1 controls). */
static void assert_nothing_obeyed(const char *text, const char *what)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		bool c0 = (*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7F;
		bool c1 = *p == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0;
		cr_assert(!c0 && !c1, "%s: byte 0x%02x at %ld in:\n%s", what, *p, (long)(p - (const unsigned char *)text),
			  text);
	}
}

/* Runs qkv; the test fails when its output or its errors hold a byte a
 * terminal obeys. */
static int qkv_shown(const char *a1, const char *a2, const char *a3, const char *env, char **out, char **err)
{
	int rc = qkv(a1, a2, a3, env, out, err);
	assert_nothing_obeyed(*out, a1);
	assert_nothing_obeyed(*err, a1);
	return rc;
}

/* ---- qkv eval FILE ------------------------------------------------------- */

Test(files, eval_of_dev_zero_should_stop_at_8_mib_with_exit_2_in_bounded_memory)
{
	char dir[64], cmd[1024];
	dir_make_temp(dir, sizeof dir, "qkv-zero");
	/* the sanitizers reserve terabytes of address space: ulimit -v only
	 * without them; the peak resident size is checked with both */
	bool san = strstr(qkv_binary(), "san") != NULL;
	snprintf(cmd, sizeof cmd, "sh -c '%s exec %s eval /dev/zero' >%s/out 2>%s/err", san ? "" : "ulimit -v 1000000;",
		 qkv_binary(), dir, dir);
	int st = system(cmd);
	cr_assert(WIFEXITED(st), "status %d", st);
	cr_expect_eq(WEXITSTATUS(st), 2);
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	cr_expect_lt(ru.ru_maxrss, 400 * 1024, "peak %ld KiB", ru.ru_maxrss);
	char path[128];
	snprintf(path, sizeof path, "%s/err", dir);
	char *err = read_text(path);
	cr_assert_str_eq(err, "qkv: /dev/zero: it is more than 8388608 bytes (8 MiB), the most a file of "
			      "statements may hold\n");
	free(err);
	dir_remove(dir);
}

Test(files, eval_of_more_than_8_mib_on_standard_input_should_exit_2)
{
	size_t n = 9u << 20;
	char *text = malloc(n + 1);
	memset(text, '\n', n);
	text[n] = 0;
	const char *argv[] = { "qkv", "eval", "-", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, text, NULL, &out, &err), 2);
	cr_assert_str_eq(err, "qkv: standard input: it is more than 8388608 bytes (8 MiB), the most a file of "
			      "statements may hold\n");
	free(text);
	free(out);
	free(err);
}

Test(files, eval_of_a_directory_should_exit_2_naming_it)
{
	char *out, *err;
	cr_assert_eq(qkv("eval", "/tmp", NULL, NULL, &out, &err), 2);
	cr_assert_str_eq(err, "qkv: /tmp: it is a directory\n");
	cr_assert_str_eq(out, "");
	free(out);
	free(err);
}

Test(files, eval_of_a_file_that_fails_to_read_should_exit_2_with_the_reason)
{
	/* /proc/self/mem opens, and reading its first page fails with EIO */
	char *out, *err;
	cr_assert_eq(qkv("eval", "/proc/self/mem", NULL, NULL, &out, &err), 2);
	cr_assert_str_eq(err, "qkv: /proc/self/mem: Input/output error\n");
	free(out);
	free(err);
}

Test(files, eval_of_an_unreadable_file_should_exit_2_with_the_reason)
{
	if (geteuid() == 0)
		cr_skip_test("root reads a file of mode 000");
	char dir[64], path[128];
	dir_make_temp(dir, sizeof dir, "qkv-unreadable");
	snprintf(path, sizeof path, "%s/x.qkv", dir);
	file_put(path, "print(1)\n", 9);
	chmod(path, 0);
	char *out, *err, want[256];
	cr_assert_eq(qkv("eval", path, NULL, NULL, &out, &err), 2);
	snprintf(want, sizeof want, "qkv: %s: Permission denied\n", path);
	cr_assert_str_eq(err, want);
	cr_assert_str_eq(out, "");
	free(out);
	free(err);
	dir_remove(dir);
}

Test(files, eval_should_still_read_statements_from_a_pipe)
{
	const char *argv[] = { "qkv", "eval", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, "x = 2\nprint(x * 21)\n", NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "42\n");
	free(out);
	free(err);
}

/* ---- control characters in a lesson ------------------------------------- */

static const char control_lesson[] =
	"{\n"
	"  \"id\": \"controls\",\n"
	"  \"title\": \"\\u001b]0;pwned\\u0007\\u001b[2J\",\n"
	"  \"source\": \"tests \\u009b2J\",\n"
	"  \"summary\": \"A lesson \\u001b[31mred\\u001b[0m.\",\n"
	"  \"colour\\u001b[2J\": 1,\n"
	"  \"steps\": [\n"
	"    {\n"
	"      \"title\": \"One \\u001b[2J\",\n"
	"      \"text\": \"Some \\u001b[2J text.\",\n"
	"      \"code\": [\"X = torch.ones(2, 2)\", \"print('\\\\x1b[2J')\"],\n"
	"      \"show\": {\"heatmap\": \"X\", \"title\": \"T\\u001b[2J\", \"rows\": [\"a\\u001b[2J\", \"b\"], "
	"\"cols\": [\"c\\u0007\", \"d\"]},\n"
	"      \"expect\": {\"tensor\": \"X\", \"values\": [[1, 1], [1, 2]], \"why\": \"w\\u001b[2J\"}\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void control_dir(char *dir, size_t size, char *path, size_t psize)
{
	dir_make_temp(dir, size, "qkv-controls");
	snprintf(path, psize, "%s/controls.json", dir);
	file_put(path, control_lesson, strlen(control_lesson));
}

/* Runs qkv a1 [a2] on the lesson of control characters (its path last, or
 * through $QKV_LESSONS when by_dir), expects status rc, nothing a terminal
 * obeys, and every string of want (NULL-terminated) in its output or its
 * errors. Leaves the lesson's path in path and its directory in dir. */
static void expect_shown(const char *a1, const char *a2, bool by_dir, int rc, const char *const *want, char *dir,
			 char *path)
{
	char env[128];
	control_dir(dir, 64, path, 128);
	snprintf(env, sizeof env, "QKV_LESSONS=%s", dir);
	char *out, *err;
	const char *last = by_dir ? NULL : path;
	cr_assert_eq(qkv_shown(a1, a2 ? a2 : last, a2 ? last : NULL, by_dir ? env : NULL, &out, &err), rc, "%s", err);
	for (int i = 0; want[i]; i++)
		cr_expect(strstr(out, want[i]) || strstr(err, want[i]), "no %s in:\n%s%s", want[i], out, err);
	free(out);
	free(err);
}

Test(files, list_should_show_a_titles_control_characters_not_obey_them)
{
	char dir[64], path[128];
	const char *want[] = { "controls                       ^[]0;pwned^G^[[2J (1 steps)", "colour^[[2J", NULL };
	expect_shown("list", NULL, true, 0, want, dir, path);
	dir_remove(dir);
}

Test(files, run_plain_should_show_control_characters_not_obey_them)
{
	char dir[64], path[128];
	const char *want[] = { "^[]0;pwned^G^[[2J\n", "retells tests ~[2J", "A lesson ^[[31mred^[[0m.", "Step 1/1: One ^[[2J",
			       "Some ^[[2J text.", "\n^[[2J\n", "  T^[[2J\n", "c^G", "a^[[2J", NULL };
	expect_shown("run", "--plain", false, 0, want, dir, path);
	dir_remove(dir);
}

Test(files, check_should_show_control_characters_in_its_messages_not_obey_them)
{
	char dir[64], path[128];
	const char *want[] = { "step 1 (One ^[[2J)", "w^[[2J\n", NULL };
	expect_shown("check", NULL, false, 1, want, dir, path);
	char *out, *err;
	/* a refused lesson's message quotes it too: here its id */
	struct strbuf bad;
	strbuf_init(&bad);
	const char *id = strstr(control_lesson, "controls");
	strbuf_putn(&bad, control_lesson, (size_t)(id - control_lesson));
	strbuf_printf(&bad, "c\\u001b[2J%s", id + strlen("controls"));
	file_put(path, bad.s, bad.len);
	cr_assert_eq(qkv_shown("check", path, NULL, NULL, &out, &err), 2);
	cr_expect(strstr(err, "id: 'c^[[2J' may hold only") != NULL, "%s", err);
	strbuf_free(&bad);
	free(out);
	free(err);
	dir_remove(dir);
}

/* ---- $QKV_LESSONS -------------------------------------------------------- */

static void put_lesson(const char *dir, const char *file, const char *id)
{
	char path[256], text[512];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	snprintf(text, sizeof text,
		 "{\"id\": \"%s\", \"title\": \"Lesson %s\", \"source\": \"tests\", \"summary\": \"s\", "
		 "\"steps\": [{\"title\": \"t\", \"text\": \"x\"}]}\n",
		 id, id);
	file_put(path, text, strlen(text));
}

/* How many times what occurs in text. */
static int count_of(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* qkv list with $QKV_LESSONS=dir, which must exit 0. */
static void list_lessons(const char *dir, char **out, char **err)
{
	char env[128];
	snprintf(env, sizeof env, "QKV_LESSONS=%s", dir);
	cr_assert_eq(qkv("list", NULL, NULL, env, out, err), 0, "%s", *err);
}

Test(files, an_empty_lessons_directory_should_list_the_built_in_lessons)
{
	char dir[64];
	dir_make_temp(dir, sizeof dir, "qkv-empty");
	char *out, *err, *out0, *err0;
	list_lessons(dir, &out, &err);
	cr_assert_eq(qkv("list", NULL, NULL, NULL, &out0, &err0), 0);
	cr_expect_str_eq(out, out0);
	cr_expect_str_eq(err, "");
	free(out);
	free(err);
	free(out0);
	free(err0);
	dir_remove(dir);
}

Test(files, three_hundred_lessons_should_load_the_first_256_by_name_and_say_so)
{
	char dir[64];
	dir_make_temp(dir, sizeof dir, "qkv-300");
	/* written last to first: the directory's order is not the names' */
	for (int i = 300; i >= 1; i--) {
		char file[32], id[32];
		snprintf(file, sizeof file, "%03d.json", i);
		snprintf(id, sizeof id, "many-%03d", i);
		put_lesson(dir, file, id);
	}
	char *out, *err;
	list_lessons(dir, &out, &err);
	cr_expect(strstr(out, "many-001 ") != NULL, "%s", out);
	cr_expect(strstr(out, "many-256 ") != NULL, "%s", out);
	cr_expect(strstr(out, "many-257 ") == NULL, "%s", out);
	cr_expect_eq(count_of(out, "Lesson many-"), 256);
	char want[256];
	snprintf(want, sizeof want,
		 "QKV_LESSONS=%s: 300 lessons, more than 256: the first 256 by file name are loaded, the 44 from "
		 "257.json on are skipped\n",
		 dir);
	cr_expect_str_eq(err, want);
	free(out);
	free(err);
	dir_remove(dir);
}

Test(files, two_lessons_with_one_id_should_be_an_error_naming_both)
{
	char dir[64], env[128];
	dir_make_temp(dir, sizeof dir, "qkv-dup");
	put_lesson(dir, "a.json", "twice");
	put_lesson(dir, "b.json", "twice");
	snprintf(env, sizeof env, "QKV_LESSONS=%s", dir);
	char want[512];
	snprintf(want, sizeof want, "%s/b.json: the id 'twice' is already the id of %s/a.json; this file is not loaded",
		 dir, dir);
	char *out, *err;
	list_lessons(dir, &out, &err);
	cr_expect(strstr(out, want) != NULL, "%s", out);
	cr_expect_eq(count_of(out, "Lesson twice"), 1, "%s", out);
	int lines = count_of(out, "\n");
	free(out);
	free(err);
	/* the second file is the last lesson of the list: checking it refuses it */
	char num[16];
	snprintf(num, sizeof num, "%d", lines);
	cr_assert_eq(qkv("check", num, NULL, env, &out, &err), 2);
	cr_expect(strstr(err, want) != NULL, "%s", err);
	free(out);
	free(err);
	dir_remove(dir);
}
