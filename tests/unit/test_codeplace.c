/* test_codeplace.c: the lesson-wide numbering of a lesson's code and the
 * places it names (lesson/codeplace), and what qkv check and qkv run say
 * through the runner of an error raised inside a function a step before:
 * the statement that called it and the function's own line, each at its
 * place in the file (the function's line used to be taken as a line of the
 * step that called it: no place, or the wrong one). */
#include "lesson/codeplace.h"
#include "lesson/lesson.h"
#include "lesson/runner.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* lines of the file: 1 the header; 2 step 0 (a def over two elements and a
 * lambda); 3 step 1, no code; 4-5 step 2 (one string of two lines, then a
 * call in an element of its own); 6 step 3 with a timing entry; 7 step 4
 * with an expect, 8 its exercise */
static const char text[] =
	"{\"id\": \"cp\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
	" {\"title\": \"a\", \"text\": \"x\", \"code\": [\"def f(x):\", \"    return x + nope\", \"g = lambda y: 2 * f(y)\"]},\n"
	" {\"title\": \"b\", \"text\": \"x\"},\n"
	" {\"title\": \"c\", \"text\": \"x\", \"code\": [\"a = 1\\nprint(a)\",\n"
	"   \"b = g(a)\"]},\n"
	" {\"title\": \"d\", \"text\": \"x\", \"show\": {\"timing\": [{\"label\": \"t\", \"code\": [\"u = 1\", \"f(u)\"]}]}},\n"
	" {\"title\": \"e\", \"text\": \"x\", \"code\": \"c = 3\", \"expect\": [{\"tensor\": \"g(c)\", \"values\": 1}],\n"
	"  \"exercise\": [{\"ask\": \"q\", \"answer\": \"c\", \"solution\": [\"v = 1\", \"w = f(v)\"]}]}]}\n";

static struct lesson *parse(void)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("cp.json", text, strlen(text), NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

/* The place of lesson-wide line `line` at column col, as "L:C PATH". */
static const char *place(const struct lesson *l, int line, int col)
{
	static char buf[256];
	struct loc at;
	char *path;
	int step;
	if (!codeplace_find(l, line, col, &at, &path, &step))
		return "none";
	snprintf(buf, sizeof buf, "%d:%d %s (step %d)", at.line, at.col, path, step);
	free(path);
	return buf;
}

Test(codeplace, lines_should_be_numbered_across_steps_then_timings_then_solutions)
{
	struct lesson *l = parse();
	const struct step *st = l->steps;
	cr_expect_eq(codeplace_first_line(l, st[0].lines), 1);
	cr_expect_eq(codeplace_first_line(l, st[2].lines), 4, "step 1 has no code: no lines");
	cr_expect_eq(codeplace_first_line(l, st[4].lines), 7);
	cr_expect_eq(codeplace_first_line(l, st[3].shows[0].timings[0].lines), 8);
	cr_expect_eq(codeplace_first_line(l, st[4].exercises[0].solution_lines), 10);

	cr_expect_str_eq(place(l, 1, 1), "2:40 steps[0].code[0] (step 0)");
	cr_expect_str_eq(place(l, 2, 16), "2:68 steps[0].code[1] (step 0)");
	cr_expect_str_eq(place(l, 3, 1), "2:76 steps[0].code[2] (step 0)");
	/* an element of two lines: the element, and the line in it */
	cr_expect_str_eq(place(l, 5, 1), "4:47 steps[2].code[0] (line 2) (step 2)");
	cr_expect_str_eq(place(l, 6, 1), "5:5 steps[2].code[1] (step 2)");
	cr_expect_str_eq(place(l, 7, 1), "7:39 steps[4].code (step 4)");
	cr_expect_str_eq(place(l, 9, 1), "6:84 steps[3].show.timing[0].code[1] (step -1)");
	cr_expect_str_eq(place(l, 11, 5), "8:71 steps[4].exercise[0].solution[1] (step -1)");
	cr_expect_str_eq(place(l, 12, 1), "none");
	cr_expect_str_eq(place(l, 0, 1), "none");

	struct strbuf code;
	strbuf_init(&code);
	codeplace_steps_code(l, &code);
	cr_expect_str_eq(code.s, "def f(x):\n    return x + nope\ng = lambda y: 2 * f(y)\na = 1\nprint(a)\nb = g(a)\nc = 3");
	strbuf_free(&code);
	lesson_free(l);
}

Test(codeplace, a_traceback_should_name_each_functions_line_in_the_file)
{
	struct lesson *l = parse();
	struct strbuf out;
	strbuf_init(&out);
	codeplace_traceback(l, "name 'nope' is not defined\n  line 3, in <lambda>\n  line 2, in f", 2, 16, &out);
	cr_expect_str_eq(out.s, "name 'nope' is not defined\n"
				"  cp.json:2:76: steps[0].code[2], in <lambda>\n"
				"  cp.json:2:68: steps[0].code[1], in f");
	/* a line no block holds stays as it was; no traceback, the message */
	strbuf_reset(&out);
	codeplace_traceback(l, "oops\n  line 99, in h", 99, 3, &out);
	cr_expect_str_eq(out.s, "oops\n  line 99, in h");
	strbuf_reset(&out);
	codeplace_traceback(l, "oops", 1, 1, &out);
	cr_expect_str_eq(out.s, "oops");
	strbuf_free(&out);
	lesson_free(l);
}

/* Through the runner, as qkv check and qkv run report them. */
Test(codeplace, an_error_in_a_function_of_an_earlier_step_should_name_the_call_and_the_function)
{
	struct lesson *l = parse();
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	step_result_free(&res);
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	step_result_free(&res);
	cr_assert_eq(runner_step(r, &res, &err), -1);
	cr_expect_str_eq(err.msg, "cp.json:5:5: steps[2].code[1]: name 'nope' is not defined\n"
				  "  cp.json:2:76: steps[0].code[2], in <lambda>\n"
				  "  cp.json:2:68: steps[0].code[1], in f");
	cr_expect_eq(err.line, 5);
	/* what printed before it stays under its own line of the step */
	cr_assert_eq(res.npieces, 1);
	cr_expect_eq(res.pieces[0].line, 2);
	cr_expect_str_eq(res.pieces[0].text, "1\n");
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}

Test(codeplace, an_error_in_a_function_from_a_timing_an_expect_or_a_solution_should_name_both)
{
	struct lesson *l = parse();
	/* step 2 without its failing call, so that the steps after it run */
	char *fixed = strdup(text);
	char *call = strstr(fixed, "b = g(a)");
	memcpy(call, "b = 2   ", 8);
	struct qkv_error err;
	lesson_free(l);
	l = lesson_parse("cp.json", fixed, strlen(fixed), NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct step_result res;
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
		step_result_free(&res);
	}
	cr_assert_eq(runner_step(r, &res, &err), -1, "the timing fails");
	cr_expect_str_eq(err.msg, "cp.json:6:84: steps[3].show.timing[0].code[1]: name 'nope' is not defined\n"
				  "  cp.json:2:68: steps[0].code[1], in f");
	step_result_free(&res);
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	struct expect_result er;
	cr_assert_eq(runner_expect(r, &l->steps[4], &res, 0, &er, &err), -1);
	cr_expect_str_eq(err.msg, "cp.json:7:70: steps[4].expect[0]: name 'nope' is not defined\n"
				  "  cp.json:2:76: steps[0].code[2], in <lambda>\n"
				  "  cp.json:2:68: steps[0].code[1], in f");
	step_result_free(&res);
	bool solved;
	char detail[256];
	cr_assert_eq(runner_check_exercise(r, &l->steps[4], 0, &solved, detail, sizeof detail, &err), -1);
	cr_expect_str_eq(err.msg, "cp.json:8:67: steps[4].exercise[0].solution[1]: name 'nope' is not defined\n"
				  "  cp.json:2:68: steps[0].code[1], in f");
	runner_free(r);
	lesson_free(l);
	free(fixed);
}
