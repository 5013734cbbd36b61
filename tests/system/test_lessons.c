/* test_lessons.c: lessons as a teacher and a student meet them through the
 * command line: qkv check, qkv run, qkv list. Every broken lesson under
 * tests/lessons/bad must be refused with its exact message (expected.txt)
 * and exit status 2; the built-in lessons must check and run cleanly. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int qkv(const char *a1, const char *a2, const char *a3, const char *env, char **out, char **err)
{
	const char *argv[] = { "qkv", a1, a2, a3, NULL };
	return run_qkv(argv, NULL, env, out, err);
}

Test(lessons, every_broken_lesson_should_be_refused_with_its_exact_message)
{
	char *list = read_text("tests/lessons/bad/expected.txt");
	cr_assert(list, "cannot read tests/lessons/bad/expected.txt");
	int cases = 0;
	for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');
		cr_assert(tab, "bad line in expected.txt: %s", line);
		*tab = 0;
		char path[256];
		snprintf(path, sizeof path, "tests/lessons/bad/%s", line);
		char *out, *err;
		int rc = qkv("check", path, NULL, NULL, &out, &err);
		char *nl = strchr(err, '\n');
		if (nl)
			*nl = 0;
		cr_expect_eq(rc, 2, "%s: exit %d", line, rc);
		cr_expect_str_eq(err, tab + 1, "%s", line);
		free(out);
		free(err);
		cases++;
	}
	cr_assert_geq(cases, 30, "at least 30 broken lessons");
	free(list);
}

/* An error raised inside a function a step before: qkv check and qkv run
 * name the statement that called it and, under it, the function's line,
 * each at its place in the file (the function's line was taken for one of
 * the calling step's: no place, or the wrong one). */
Test(lessons, an_error_inside_a_function_should_name_the_call_and_the_functions_line)
{
	static const char *const cmds[] = { "check", "run" };
	static const char want[] =
		"qkv: tests/lessons/bad/59-error-inside-a-function.json:21:10: steps[1].code[1]: name 'd_k' is not defined\n"
		"  tests/lessons/bad/59-error-inside-a-function.json:13:44: steps[0].code[2], in attend\n";
	for (int i = 0; i < 2; i++) {
		char *out, *err;
		int rc = qkv(cmds[i], "tests/lessons/bad/59-error-inside-a-function.json", NULL, NULL, &out, &err);
		cr_expect_eq(rc, 2, "qkv %s: exit %d", cmds[i], rc);
		cr_expect_str_eq(err, want, "qkv %s", cmds[i]);
		free(out);
		free(err);
	}
}

Test(lessons, a_missing_file_and_a_huge_file_should_be_refused)
{
	char *out, *err;
	cr_assert_eq(qkv("check", "tests/lessons/bad/no-such-lesson.json", NULL, NULL, &out, &err), 2);
	cr_assert_str_eq(err, "qkv: tests/lessons/bad/no-such-lesson.json: No such file or directory\n");
	free(out);
	free(err);
	char path[64];
	snprintf(path, sizeof path, "/tmp/qkv-huge-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("{\"id\": \"huge\", \"title\": \"", f);
	for (int i = 0; i < 9 * 1024 * 1024 / 64; i++)
		fputs("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", f);
	fputs("\"}\n", f);
	fclose(f);
	cr_assert_eq(qkv("check", path, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "a lesson file may have at most 8388608") != NULL, "%s", err);
	unlink(path);
	free(out);
	free(err);
}

Test(lessons, unknown_fields_should_be_warnings_so_newer_lessons_still_open)
{
	const char *lesson = "{\"format\": 2, \"id\": \"newer\", \"title\": \"Newer\", \"source\": \"x\", "
			     "\"summary\": \"s\", \"colour\": \"blue\", \"steps\": [{\"title\": \"t\", \"text\": \"x\", "
			     "\"code\": \"x = 1\", \"quiz\": {\"ask\": \"?\"}}]}";
	char path[64];
	snprintf(path, sizeof path, "/tmp/qkv-newer-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	fputs(lesson, f);
	fclose(f);
	char *out, *err;
	cr_assert_eq(qkv("check", path, NULL, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(err, ":1:2: format: warning: written for lesson format 2") != NULL, "%s", err);
	cr_assert(strstr(err, "colour: warning: unknown field 'colour' (ignored)") != NULL, "%s", err);
	cr_assert(strstr(err, "steps[0].quiz: warning: unknown field 'quiz'") != NULL, "%s", err);
	cr_assert_str_eq(out, "0 passed, 0 failed\n");
	unlink(path);
	free(out);
	free(err);
}

Test(lessons, the_example_in_format_md_should_be_the_committed_one_and_pass)
{
	char *doc = read_text("lessons/FORMAT.md"), *example = read_text("tests/lessons/format-example.json");
	cr_assert(doc && example);
	cr_assert(strstr(doc, example) != NULL, "FORMAT.md's example differs from tests/lessons/format-example.json");
	char *out, *err;
	cr_assert_eq(qkv("check", "tests/lessons/format-example.json", NULL, NULL, &out, &err), 0, "%s%s", out, err);
	cr_assert_str_eq(out, "3 passed, 0 failed\n");
	free(out);
	free(err);
	free(doc);
	free(example);
}

Test(lessons, a_wrong_expected_value_should_fail_with_the_largest_difference)
{
	char *example = read_text("tests/lessons/format-example.json");
	char *p = strstr(example, "0.5761");
	cr_assert(p);
	memcpy(p, "0.5771", 6);
	char path[64];
	snprintf(path, sizeof path, "/tmp/qkv-wrong-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	fputs(example, f);
	fclose(f);
	char *out, *err;
	cr_assert_eq(qkv("check", path, NULL, NULL, &out, &err), 1, "%s", err);
	cr_assert(strstr(out, path) == out, "%s", out);
	cr_assert(strstr(out, ":39:21: steps[1].expect[0]: step 2 (Scores and weights): the printed output differs, "
		  "line 3: got 0.5761 where 0.5771 was expected\n") != NULL, "%s", out);
	cr_assert(strstr(out, "\n2 passed, 1 failed\n") != NULL, "%s", out);
	unlink(path);
	free(out);
	free(err);
	free(example);
}

/* The example with its printed 0.5761 changed to 0.5771 and a "tol" on
 * that output expect: check's exit status and output. */
static int check_with_tol(const char *tol, char **out)
{
	char *example = read_text("tests/lessons/format-example.json");
	const char *tail = "0.5761]])\" }";
	char *p = strstr(example, tail);
	cr_assert(p);
	char path[64];
	snprintf(path, sizeof path, "/tmp/qkv-tol-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	fprintf(f, "%.*s0.5771]])\", \"tol\": %s }%s", (int)(p - example), example, tol, p + strlen(tail));
	fclose(f);
	char *err;
	int rc = qkv("check", path, NULL, NULL, out, &err);
	cr_assert_str_empty(err, "%s", err);
	unlink(path);
	free(err);
	free(example);
	return rc;
}

Test(lessons, a_tol_on_an_output_expect_should_allow_that_much_and_no_more)
{
	char *out;
	cr_assert_eq(check_with_tol("0.002", &out), 0, "%s", out);
	cr_assert_str_eq(out, "3 passed, 0 failed\n");
	free(out);
	cr_assert_eq(check_with_tol("0.0005", &out), 1, "%s", out);
	cr_assert(strstr(out, "the printed output differs, line 3: got 0.5761 where 0.5771 was expected "
			 "(tolerance 0.0005)\n") != NULL, "%s", out);
	free(out);
}

Test(lessons, a_value_one_unit_off_should_pass_only_in_a_decimals_last_digit)
{
	const char *path = "tests/lessons/compare/off-by-one.json";
	char *out, *err;
	cr_assert_eq(qkv("check", path, NULL, NULL, &out, &err), 1, "%s%s", out, err);
	cr_assert_str_empty(err, "%s", err);
	const char *want =
		"tests/lessons/compare/off-by-one.json:17:21: steps[0].expect[0]: step 1 (Integers and whole floats): "
		"the printed output differs, line 1: got 41 where 42 was expected\n"
		"tests/lessons/compare/off-by-one.json:18:21: steps[0].expect[1]: step 1 (Integers and whole floats): "
		"'n' prints differently, line 1: got 7 where 8 was expected\n"
		"tests/lessons/compare/off-by-one.json:19:21: steps[0].expect[2]: step 1 (Integers and whole floats): "
		"'x.shape' prints differently, line 1: got 3 where 4 was expected\n"
		"tests/lessons/compare/off-by-one.json:20:21: steps[0].expect[3]: step 1 (Integers and whole floats): "
		"'x.sum()' prints differently, line 1: got 3. where 2. was expected\n"
		"tests/lessons/compare/off-by-one.json:21:21: steps[0].expect[4]: step 1 (Integers and whole floats): "
		"'x' prints differently, line 1: got 1. where 2. was expected\n"
		"2 passed, 5 failed\n";
	cr_assert_str_eq(out, want);
	free(out);
	free(err);
}

/* display width of a UTF-8 line (tabs to 8-column stops) */
static int width_of(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\t')
			w = (w / 8 + 1) * 8;
		else
			w += ((unsigned char)s[i] & 0xC0) != 0x80;
	}
	return w;
}

static void check_runs_in_80_columns(const char *lesson)
{
	char *out, *err;
	int rc = qkv("run", "--plain", lesson, "NO_COLOR=1", &out, &err);
	cr_assert_eq(rc, 0, "%s: %s", lesson, err);
	cr_assert_str_empty(err, "%s: %s", lesson, err);
	int line = 1;
	for (char *p = out; *p; line++) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		/* narration, code and heatmaps fit 80 columns; torch's own printed
		 * lines may end a bracket or two later, as torch prints them */
		cr_expect_leq(width_of(p, n), 82, "%s: line %d is %d columns: %.*s", lesson, line, width_of(p, n),
			      (int)n, p);
		cr_expect(memchr(p, '\x1b', n) == NULL, "%s: escape codes with NO_COLOR", lesson);
		p += n + (nl != NULL);
	}
	free(out);
	free(err);
}

Test(lessons, run_plain_should_fit_80_columns_without_colour)
{
	check_runs_in_80_columns("tests/lessons/format-example.json");
}

/* A teacher wrote this lesson from FORMAT.md alone (without reading qkv's
 * code or the other lessons): the format's documentation is enough. */
Test(lessons, a_lesson_written_from_format_md_alone_should_check_and_run)
{
	char *out, *err;
	cr_assert_eq(qkv("check", "tests/lessons/sixth/temperature.json", NULL, NULL, &out, &err), 0, "%s%s", out,
		     err);
	cr_assert(strstr(out, " passed, 0 failed\n") != NULL, "%s", out);
	free(out);
	free(err);
	check_runs_in_80_columns("tests/lessons/sixth/temperature.json");
}

Test(lessons, lessons_in_qkv_lessons_should_be_listed_and_override_by_id)
{
	char *out, *err;
	cr_assert_eq(qkv("list", NULL, NULL, "QKV_LESSONS=tests/lessons", &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "tiny-attention") != NULL, "%s", out);
	char *line = strstr(out, "tiny-attention");
	cr_assert(strstr(line, "Attention in three tokens (2 steps)") != NULL, "%s", out);
	free(out);
	free(err);
	cr_assert_eq(qkv("check", "tiny-attention", NULL, "QKV_LESSONS=tests/lessons", &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "3 passed, 0 failed\n");
	free(out);
	free(err);
	cr_assert_eq(qkv("run", "--plain", "no-such-id", NULL, &out, &err), 2);
	cr_assert(strstr(err, "no lesson named 'no-such-id'") != NULL, "%s", err);
	free(out);
	free(err);
}

Test(lessons, every_built_in_lesson_should_check_and_run_in_80_columns, .timeout = 300)
{
	char *out, *err;
	int rc = qkv("check", NULL, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 0, "qkv check: %s%s", out, err);
	cr_assert(strstr(out, " passed, 0 failed\n") != NULL, "%s", out);
	free(out);
	free(err);
	cr_assert_eq(qkv("list", NULL, NULL, NULL, &out, &err), 0);
	int n = 0;
	for (char *p = out; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	free(out);
	free(err);
	cr_assert_geq(n, 3, "the built-in lessons are listed");
	for (int i = 1; i <= n; i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", i);
		check_runs_in_80_columns(num);
	}
}

/* The header of `qkv run --plain N`: lessons 7 and 8 go beyond the five
 * documents and say so, "(beyond the documents: ...)", never "retells";
 * lessons 1 to 5 retell one each. */
Test(lessons, run_plain_should_head_lessons_7_and_8_as_beyond_the_documents, .timeout = 120)
{
	static const struct { const char *num, *head; } cases[] = {
		{ "7", "(beyond the documents: permutations, the causal mask and position vectors;" },
		{ "8", "(beyond the documents: a KV cache, cross-attention and padding masks;" },
		{ "4", "(retells a post on dot-product attention unravelled into for-loops;" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		cr_assert_eq(qkv("run", "--plain", cases[i].num, NULL, &out, &err), 0, "%s: %s", cases[i].num, err);
		/* the title's line, then the header up to the blank line before the summary */
		char *head = strchr(out, '\n');
		cr_assert(head, "%s", out);
		head++;
		char *end = strstr(head, "\n\n");
		cr_assert(end, "%s", out);
		*end = 0;
		/* at 80 columns the header may wrap: compare it as one line */
		for (char *p = head; *p; p++)
			if (*p == '\n')
				*p = ' ';
		cr_expect(strncmp(head, cases[i].head, strlen(cases[i].head)) == 0, "lesson %s's header: %s",
			  cases[i].num, head);
		if (strcmp(cases[i].num, "4") != 0)
			cr_expect(!strstr(head, "retells"), "lesson %s's header: %s", cases[i].num, head);
		free(out);
		free(err);
	}
}

Test(lessons, run_json_should_emit_one_object_per_step)
{
	char *out, *err;
	cr_assert_eq(qkv("run", "--json", "tests/lessons/format-example.json", NULL, &out, &err), 0, "%s", err);
	const char *first = "{\"lesson\":\"tiny-attention\",\"step\":1,\"title\":\"Three tokens\",";
	cr_assert(strncmp(out, first, strlen(first)) == 0, "%s", out);
	char *second = strchr(out, '\n');
	cr_assert(second && strstr(second + 1, "{\"lesson\":\"tiny-attention\",\"step\":2,") == second + 1);
	const char *cmp = strstr(out, "\"kind\":\"compare\",\"expr\":\"torch.softmax(X @ X.T, dim=-1)\"");
	cr_assert(cmp != NULL, "%s", out);
	/* both verdicts against the loops, and the three times */
	cr_assert(strstr(cmp, "\"agree\":true,\"max_diff\":"), "%.400s", cmp);
	cr_assert(strstr(cmp, ",\"loops_ms\":") && strstr(cmp, ",\"simd_ms\":") && strstr(cmp, ",\"unrolled_ms\":"),
		  "%.400s", cmp);
	const char *key = ",\"unrolled_agree\":true,\"unrolled_diff\":", *un = strstr(cmp, key);
	cr_assert(un, "%.400s", cmp);
	double diff = strtod(un + strlen(key), NULL);
	cr_assert(diff >= 0 && diff < 1e-5, "%.400s", cmp);
	free(out);
	free(err);
}

/* A fuzzer's find: a heatmap of a tensor with an empty leading dimension
 * divided by zero in qkv run (and at the full-screen prompt). */
Test(lessons, heatmaps_of_empty_tensors_should_draw_as_empty_matrices)
{
	const char *lesson = "{\"id\": \"empty\", \"title\": \"Empty\", \"source\": \"x\", \"summary\": \"s\", \"steps\": "
			     "[{\"title\": \"t\", \"text\": \"x\", \"code\": \"X = torch.rand(0, 2, 6)\", \"show\": "
			     "[{\"heatmap\": \"X\"}, {\"heatmap\": \"torch.zeros(1, 0, 2, 2)\"}, "
			     "{\"compare\": \"X @ X.mT\"}]}]}";
	char path[64];
	snprintf(path, sizeof path, "/tmp/qkv-empty-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(lesson, f);
	fclose(f);
	char *out, *err;
	cr_assert_eq(qkv("run", "--plain", path, NULL, &out, &err), 0, "%s", err);
	/* the shapes, and the legends of a sequential scale (no value is negative) */
	cr_assert(strstr(out, "  0\u00d76, batch 0\n") != NULL, "%s", out);
	cr_assert(strstr(out, "  0\u00d72, batch 0, head 0\n") != NULL, "%s", out);
	cr_assert(strstr(out, "  X: 0 \u2026 1") != NULL, "%s", out);
	free(out);
	free(err);
	cr_assert_eq(qkv("check", path, NULL, NULL, &out, &err), 0, "%s", err);
	unlink(path);
	free(out);
	free(err);
}
