/* test_session_api.c: the workspace facade of lesson/session.h in-process,
 * as the prompt and qkv eval/repl use it: lines run atomically or statement
 * by statement, a failing line leaves the workspace as it was and says
 * where, unfinished input, what the output callback is given, the last
 * value, :show and :show loops, :ls, completion, :reset, the statements
 * kept for :save, :load, exercises judged, quit() and Ctrl-C; when a block
 * typed at a prompt is finished, its indentation, a pasted cell's
 * statements, blocks in the history file. */
#include "lang/interp.h"
#include "lesson/exercise.h"
#include "lesson/session.h"
#include "lesson/compare.h"
#include "lesson/lineedit.h"
#include "lesson/statements.h"
#include "lesson/lesson.h"
#include "lesson/runner.h"
#include "core/format.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------ */

#define MAX_OUT 16

struct seen {
	int n;
	enum session_kind kind[MAX_OUT];
	char text[MAX_OUT][64];
	enum dtype dtype[MAX_OUT];
	double number[MAX_OUT];
	int64_t integer[MAX_OUT];
	int ndim[MAX_OUT];
};

static void record(void *udata, const struct session_output *o)
{
	struct seen *s = udata;
	if (s->n >= MAX_OUT)
		return;
	int i = s->n++;
	s->kind[i] = o->kind;
	snprintf(s->text[i], sizeof s->text[i], "%s", o->text);
	s->dtype[i] = o->dtype;
	s->number[i] = o->number;
	s->integer[i] = o->integer;
	s->ndim[i] = o->t ? o->t->ndim : -1;
}

static enum session_status run(struct session *s, const char *src, struct qkv_error *err)
{
	return session_run(s, src, strlen(src), 1, SESSION_ATOMIC, err);
}

static void must_run(struct session *s, const char *src)
{
	struct qkv_error err;
	cr_assert_eq(run(s, src, &err), SESSION_OK, "%s: %s", src, err.msg);
}

/* What :show expr gives in s: a 0-d tensor's value ("%g"), another
 * tensor's shape, or a value's text; NULL when it fails (freed by the
 * caller). */
static char *shown(struct session *s, const char *expr)
{
	struct session_value v;
	struct qkv_error err;
	if (session_show(s, expr, &v, &err) < 0)
		return NULL;
	char buf[96];
	if (v.t && v.t->ndim == 0)
		snprintf(buf, sizeof buf, "%g", tensor_get(v.t, 0));
	else if (v.t)
		tensor_shape_str(buf, sizeof buf, v.t->ndim, v.t->shape);
	char *text = strdup(v.t ? buf : v.text);
	session_value_free(&v);
	return text;
}

static bool has_name(struct session *s, const char *name)
{
	char *t = shown(s, name);
	free(t);
	return t != NULL;
}

/* ---- running ------------------------------------------------------------------------- */

Test(session_api, a_line_should_run_atomically_and_an_error_leave_the_workspace_as_before)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	must_run(s, "X = [1 2; 3 4]");
	struct qkv_error err;
	cr_assert_eq(run(s, "Y = X + 1; X = X * 2; Z = X @ torch.ones(3)", &err), SESSION_ERROR);
	cr_assert_eq(err.line, 1);
	cr_assert_eq(err.col, 29, "col %d: %s", err.col, err.msg);
	cr_assert(strstr(err.msg, "cannot be multiplied"), "%s", err.msg);
	cr_assert_not(has_name(s, "Y"), "Y of a failed line is kept");
	char *x = shown(s, "X.sum()");
	cr_assert_str_eq(x, "10");
	free(x);
	/* a failed line is not a statement typed */
	int n;
	const char *const *st = session_statements(s, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(st[0], "X = [1 2; 3 4]");
	session_free(s);
}

Test(session_api, per_statement_should_keep_the_statements_before_an_error_and_number_lines)
{
	struct session *s = session_new(KERNEL_LOOPS, 0);
	struct qkv_error err;
	const char *src = "a = 1\nb = a + 1\nc = nope\nd = 4\n";
	cr_assert_eq(session_run(s, src, strlen(src), 7, SESSION_PER_STATEMENT, &err), SESSION_ERROR);
	cr_assert_eq(err.line, 9);
	cr_assert_eq(err.col, 5);
	cr_assert(has_name(s, "a") && has_name(s, "b"));
	cr_assert_not(has_name(s, "c") || has_name(s, "d"));
	session_free(s);
}

Test(session_api, unfinished_input_should_be_incomplete_and_say_where)
{
	cr_assert_not(session_is_complete("X = [1 2;", 9));
	cr_assert_not(session_is_complete("torch.softmax(X,\n", 17));
	cr_assert(session_is_complete("X = [1 2]", 9));
	cr_assert(session_is_complete("X = = 1", 7), "a syntax error is for session_run to report");
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err;
	cr_assert_eq(run(s, "y = (1 +", &err), SESSION_INCOMPLETE);
	cr_assert(err.msg[0], "no message");
	cr_assert_eq(err.line, 1);
	cr_assert_gt(err.col, 0);
	cr_assert_not(has_name(s, "y"));
	cr_assert_eq(run(s, "y = (1 +\n 2)", &err), SESSION_OK, "%s", err.msg);
	char *y = shown(s, "y");
	cr_assert_str_eq(y, "3");
	free(y);
	session_free(s);
}

/* As in CPython, a line that ends after an operator is a syntax error on that
 * line: a prompt runs it at once (to report it), never waits for another
 * line, and never takes the next line as the operand. */
Test(session_api, a_line_that_ends_after_an_operator_should_be_finished_and_an_error)
{
	const char *done[] = { "x = 1 -", "x = 1 -\n", "x = not\n", "x =\n", "y = a and\n", "z = A @\n" };
	for (size_t k = 0; k < sizeof done / sizeof *done; k++)
		cr_assert(session_is_complete(done[k], strlen(done[k])), "%s", done[k]);
	const char *open[] = { "x = (1 -\n", "x = [1,\n", "x = 1 - \\\n", "d = {'a':\n" };
	for (size_t k = 0; k < sizeof open / sizeof *open; k++)
		cr_assert_not(session_is_complete(open[k], strlen(open[k])), "%s", open[k]);
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err;
	cr_assert_eq(run(s, "x = 1 -\n5\nprint(x)\n", &err), SESSION_ERROR);
	cr_expect_eq(err.line, 1);
	cr_expect_eq(err.col, 7);
	cr_expect_str_eq(err.msg, "the line ends after '-'");
	cr_assert_not(has_name(s, "x"), "the next line is no operand");
	const char *cell = "a = 1\nb = a +\nc = 2\n";
	cr_assert_eq(session_run(s, cell, strlen(cell), 1, SESSION_PER_STATEMENT, &err), SESSION_ERROR);
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.col, 7);
	cr_expect_str_eq(err.msg, "the line ends after '+'");
	cr_assert(has_name(s, "a"));
	cr_assert_not(has_name(s, "b") || has_name(s, "c"));
	/* brackets and a backslash still join lines */
	static const struct { const char *src, *name, *value; } joined[] = {
		{ "x = (1 -\n5)", "x", "-4" }, { "y = 1 - \\\n5", "y", "-4" }, { "z = max(1,\n2)", "z", "2" },
		{ "w = [1,\n2][1]", "w", "2" }, { "v = {'a':\n 3}['a']", "v", "3" }, { "u = 7 # -\n", "u", "7" },
	};
	for (size_t k = 0; k < sizeof joined / sizeof *joined; k++) {
		cr_assert_eq(run(s, joined[k].src, &err), SESSION_OK, "%s: %s", joined[k].src, err.msg);
		char *got = shown(s, joined[k].name);
		cr_expect_str_eq(got, joined[k].value, "%s", joined[k].src);
		free(got);
	}
	session_free(s);
}

Test(session_api, the_output_callback_should_give_tensors_numbers_and_text_with_their_kinds)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct seen seen = { 0 };
	session_set_output(s, record, &seen);
	must_run(s, "X = torch.ones(2, 3); X; 2.5; 4611686018427387905; True; print('hi'); (1, 2); print(X.sum())");
	cr_assert_eq(seen.n, 7);
	cr_assert_eq(seen.kind[0], SESSION_TENSOR);
	cr_assert_eq(seen.ndim[0], 2);
	cr_assert(strncmp(seen.text[0], "tensor([[1., 1., 1.],", 21) == 0, "%s", seen.text[0]);
	cr_assert_eq(seen.kind[1], SESSION_NUMBER);
	cr_assert_eq(seen.dtype[1], DT_F64);
	cr_assert_eq(seen.number[1], 2.5);
	cr_assert_str_eq(seen.text[1], "2.5");
	cr_assert_eq(seen.kind[2], SESSION_NUMBER);
	cr_assert_eq(seen.dtype[2], DT_I64);
	cr_assert_eq(seen.integer[2], 4611686018427387905LL, "an int is given exactly");
	cr_assert_eq(seen.kind[3], SESSION_NUMBER);
	cr_assert_eq(seen.dtype[3], DT_BOOL);
	cr_assert_eq(seen.number[3], 1);
	cr_assert_eq(seen.kind[4], SESSION_TEXT);
	cr_assert_str_eq(seen.text[4], "hi");
	cr_assert_eq(seen.kind[5], SESSION_TEXT);
	cr_assert_str_eq(seen.text[5], "(1, 2)");
	cr_assert_eq(seen.kind[6], SESSION_TENSOR, "print() of one tensor gives the tensor");
	cr_assert_eq(seen.ndim[6], 0);
	/* no callback: nothing is given, the statements still run */
	session_set_output(s, NULL, NULL);
	must_run(s, "X; print(1)");
	cr_assert_eq(seen.n, 7);
	session_free(s);
}

Test(session_api, the_last_value_should_be_the_last_tensor_or_number_of_a_line_that_ran)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct session_value v;
	must_run(s, "X = torch.zeros(2, 5); n = 3");
	cr_assert(session_last_value(s, &v));
	cr_assert_null(v.t);
	cr_assert_str_eq(v.text, "3");
	session_value_free(&v);
	must_run(s, "X.T; print('no value'); s = 'text'");
	cr_assert(session_last_value(s, &v));
	cr_assert_not_null(v.t);
	cr_assert_eq(v.t->shape[0], 5);
	session_value_free(&v);
	must_run(s, "print(1)");
	cr_assert_not(session_last_value(s, &v), "print makes no value");
	cr_assert_null(v.t);
	cr_assert_null(v.text);
	struct qkv_error err;
	cr_assert_eq(run(s, "Y = X + 1; Y @ X", &err), SESSION_ERROR);
	cr_assert_not(session_last_value(s, &v), "a failed line makes no value");
	session_free(s);
}

/* A line whose values are neither tensors nor numbers (`X.shape`, a list, a
 * string, a type) makes its last one, as text: the prompt's view shows it
 * instead of going on drawing an older tensor under its name. */
Test(session_api, a_line_that_makes_no_tensor_or_number_should_make_its_last_value_as_text)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct session_value v;
	must_run(s, "X = torch.zeros(2, 5)");
	const char *lines[][2] = {
		{ "X.shape", "torch.Size([2, 5])" },
		{ "X.size()", "torch.Size([2, 5])" },
		{ "[1, 2]", "[1, 2]" },
		{ "w = 'text'", "'text'" },
		{ "type(X)", "<class 'torch.Tensor'>" },
		{ "X.shape; print('after it')", "torch.Size([2, 5])" },
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		must_run(s, lines[i][0]);
		cr_assert(session_last_value(s, &v), "%s", lines[i][0]);
		cr_assert_null(v.t, "%s", lines[i][0]);
		cr_assert_str_eq(v.text, lines[i][1], "%s", lines[i][0]);
		session_value_free(&v);
	}
	/* a tensor or a number of the same line still comes first */
	must_run(s, "X.shape; n = 4; w = 'x'");
	cr_assert(session_last_value(s, &v));
	cr_assert_str_eq(v.text, "4");
	session_value_free(&v);
	/* None, a def, an import make no value */
	const char *none[] = { "q = None", "def f(a): return a", "import math" };
	for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
		must_run(s, none[i]);
		cr_assert_not(session_last_value(s, &v), "%s", none[i]);
	}
	session_free(s);
}

/* ---- :show, :ls, completion, :reset ------------------------------------------------------- */

Test(session_api, show_should_evaluate_without_changing_the_workspace_and_loops_should_compare)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	must_run(s, "torch.manual_seed(2); X = torch.randn(20, 8)");
	struct session_value v;
	struct qkv_error err;
	cr_assert_eq(session_show(s, "torch.randn(2)", &v, &err), 0, "%s", err.msg);
	struct session_value again;
	cr_assert_eq(session_show(s, "torch.randn(2)", &again, &err), 0, "%s", err.msg);
	cr_assert_eq(tensor_get(v.t, 0), tensor_get(again.t, 0), "the random stream moved");
	session_value_free(&v);
	session_value_free(&again);
	cr_assert_eq(session_show(s, "(1, 'a')", &v, &err), 0, "%s", err.msg);
	cr_assert_null(v.t);
	cr_assert_str_eq(v.text, "(1, 'a')");
	session_value_free(&v);
	cr_assert_eq(session_show(s, "X @ X", &v, &err), -1);
	cr_assert_eq(err.col, 3);
	cr_assert_null(v.t);

	struct compare c;
	cr_assert_eq(session_compare(s, "torch.softmax(X @ X.T, dim=-1)", &c, &err), 0, "%s", err.msg);
	cr_assert(c.agree && c.same_shape, "max_diff %g", c.max_diff);
	cr_assert_eq(c.loops->shape[0], 20);
	cr_assert_eq(c.simd->shape[1], 20);
	compare_free(&c);
	cr_assert_eq(session_compare(s, "X.shape[0]", &c, &err), -1);
	cr_assert_str_eq(err.msg, ":show ... loops needs a tensor expression");
	cr_assert_eq(err.col, 1);
	cr_assert_eq(session_compare(s, "X + nope", &c, &err), -1);
	cr_assert_eq(err.col, 5);
	cr_assert_null(c.loops);
	int n;
	session_statements(s, &n);
	cr_assert_eq(n, 1, ":show is not a statement typed");
	session_free(s);
}

Test(session_api, ls_should_list_names_types_shapes_and_dtypes)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct strbuf sb;
	strbuf_init(&sb);
	session_list(s, &sb);
	cr_assert_str_eq(sb.s, "(the workspace is empty)");
	strbuf_reset(&sb);
	must_run(s, "W = torch.ones(2, 3, dtype=torch.float64); k = 4");
	session_list(s, &sb);
	const char *w = strstr(sb.s, "W "), *k = strstr(sb.s, "k ");
	cr_assert(w && k && w < k, "%s", sb.s);
	cr_assert(strstr(sb.s, "[2, 3]") && strstr(sb.s, "float64"), "%s", sb.s);
	strbuf_free(&sb);
	session_free(s);
}

struct names {
	char all[1024];
};

static void add_name(void *udata, const char *name)
{
	struct names *n = udata;
	size_t len = strlen(n->all);
	snprintf(n->all + len, sizeof n->all - len, "%s ", name);
}

Test(session_api, completion_should_offer_workspace_names_and_a_modules_functions)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	must_run(s, "Query = torch.ones(2); Queue = 1");
	struct names n = { "" };
	session_complete(s, NULL, "Que", add_name, &n);
	cr_assert(strstr(n.all, "Query ") && strstr(n.all, "Queue "), "%s", n.all);
	memset(&n, 0, sizeof n);
	session_complete(s, "torch", "sof", add_name, &n);
	cr_assert(strstr(n.all, "softmax "), "%s", n.all);
	cr_assert_null(strstr(n.all, "matmul"), "%s", n.all);
	memset(&n, 0, sizeof n);
	session_complete(s, "torch", "", add_name, &n);	/* :help torch */
	cr_assert(strstr(n.all, "softmax ") && strstr(n.all, "matmul "), "%s", n.all);
	session_free(s);
}

Test(session_api, completion_of_a_numpy_array_should_offer_numpys_methods_only)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	must_run(s, "import numpy as np; a = np.ones(2); t = torch.ones(2)");
	struct names n = { "" };
	session_complete(s, "a", "s", add_name, &n);
	cr_assert(strstr(n.all, "sum ") && strstr(n.all, "sort ") && strstr(n.all, "std "), "%s", n.all);
	cr_assert_null(strstr(n.all, "softmax"), "%s", n.all);
	cr_assert_null(strstr(n.all, "sign"), "%s", n.all);
	memset(&n, 0, sizeof n);
	session_complete(s, "t", "s", add_name, &n);
	cr_assert(strstr(n.all, "sum ") && strstr(n.all, "softmax ") && strstr(n.all, "sign "), "%s", n.all);
	session_free(s);
}

Test(session_api, reset_should_go_back_to_an_empty_workspace_and_forget_the_statements)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	must_run(s, "A = torch.eye(2)");
	cr_assert_not(session_reset(s), "an empty session is empty again");
	cr_assert_not(has_name(s, "A"));
	int n;
	session_statements(s, &n);
	cr_assert_eq(n, 0);
	must_run(s, "B = 1");
	session_statements(s, &n);
	cr_assert_eq(n, 1);
	session_free(s);
}

Test(session_api, a_limit_should_hold_and_stay_through_reset)
{
	struct session *s = session_new(KERNEL_SIMD, 10);
	struct qkv_error err;
	cr_assert_eq(run(s, "x = torch.ones(11)", &err), SESSION_ERROR);
	cr_assert(strstr(err.msg, "over the limit of 10 elements"), "%s", err.msg);
	session_reset(s);
	cr_assert_eq(run(s, "x = torch.ones(11)", &err), SESSION_ERROR);
	must_run(s, "x = torch.ones(10)");
	session_free(s);
}

Test(session_api, quit_should_be_requested_by_quit_or_exit)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	must_run(s, "x = 1");
	cr_assert_not(session_quit_requested(s));
	must_run(s, "quit()");
	cr_assert(session_quit_requested(s));
	session_free(s);
}

Test(session_api, a_raised_interrupt_flag_should_stop_a_line_and_leave_the_workspace)
{
	static volatile sig_atomic_t flag;
	struct session *s = session_new(KERNEL_SIMD, 0);
	session_set_interrupt(s, &flag);
	must_run(s, "X = torch.ones(2)");
	flag = 1;
	struct qkv_error err;
	cr_assert_eq(run(s, "X = X * 3; Y = X", &err), SESSION_INTERRUPTED);
	cr_assert(strstr(err.msg, "interrupted"), "%s", err.msg);
	flag = 0;
	cr_assert_not(has_name(s, "Y"));
	char *x = shown(s, "X.sum()");
	cr_assert_str_eq(x, "2");
	free(x);
	/* the flag stays through :reset */
	session_reset(s);
	flag = 1;
	cr_assert_eq(run(s, "Z = 1", &err), SESSION_INTERRUPTED);
	flag = 0;
	session_free(s);
}

/* ---- a lesson step's copy, exercises, :save and :load ------------------------------------------ */

static const char exercise_lesson[] =
	"{\"id\": \"ex\", \"title\": \"Exercise\", \"source\": \"tests\", \"summary\": \"s\", \"steps\": ["
	"{\"title\": \"Scores\", \"text\": \"x\", \"code\": [\"X = [1 0; 0 1; 1 1]\"], \"exercise\": ["
	"{\"ask\": \"Compute X times its transpose.\", \"answer\": \"X @ X.T\", \"solution\": \"S = X @ X.T\"},"
	"{\"ask\": \"Sum its columns.\", \"answer\": \"X.sum(dim=0)\", \"solution\": \"X.sum(dim=0)\"}]}]}";

struct step_ws {
	struct lesson *l;
	struct runner *r;
};

static struct step_ws open_step(void)
{
	struct qkv_error err;
	struct step_ws w;
	w.l = lesson_parse("ex.json", exercise_lesson, strlen(exercise_lesson), NULL, NULL, &err);
	cr_assert_not_null(w.l, "%s", err.msg);
	w.r = runner_new(w.l, KERNEL_SIMD);
	cr_assert_eq(runner_step(w.r, NULL, &err), 0, "%s", err.msg);
	return w;
}

static void close_step(struct step_ws *w)
{
	runner_free(w->r);
	lesson_free(w->l);
}

Test(session_api, a_copy_should_leave_the_step_alone_and_reset_back_to_it)
{
	struct step_ws w = open_step();
	struct session *s = session_new_copy(runner_interp(w.r));
	must_run(s, "X = X * 10; Z = 1");
	struct session *other = session_new_copy(runner_interp(w.r));
	char *x = shown(other, "X.sum()");
	cr_assert_str_eq(x, "4", "the step's workspace changed");
	free(x);
	session_free(other);
	cr_assert(session_reset(s), "a copy goes back to the step's workspace");
	x = shown(s, "X.sum()");
	cr_assert_str_eq(x, "4");
	free(x);
	cr_assert_not(has_name(s, "Z"));
	session_free(s);
	close_step(&w);
}

Test(session_api, exercises_should_be_judged_against_every_tensor_of_a_line_that_runs)
{
	struct step_ws w = open_step();
	const struct step *st = &w.l->steps[0];
	struct session *s = session_new_copy(runner_interp(w.r));
	session_set_exercises(s, st->exercises, st->nexercises);
	cr_assert_eq(session_exercise_verdict(s)[0], 0);

	/* of equal verdicts, the first open exercise's is shown */
	must_run(s, "X.T @ X");
	cr_assert_str_eq(session_exercise_verdict(s), "Not yet: the answer has shape [3, 3], yours [2, 2]");
	cr_assert_not(session_exercise_solved(s, 0));
	must_run(s, "torch.ones(2)");
	cr_assert(strstr(session_exercise_verdict(s), "Not yet: 2 cells differ"), "%s", session_exercise_verdict(s));

	/* the right tensor in a line that fails counts for nothing */
	struct qkv_error err;
	cr_assert_eq(run(s, "S = X @ X.T; S @ X.T @ torch.ones(5)", &err), SESSION_ERROR);
	cr_assert_not(session_exercise_solved(s, 0));
	cr_assert_not(session_exercise_solved_now(s, 0));
	cr_assert_str_eq(session_exercise_verdict(s), "");

	must_run(s, "S = X @ X.T");
	cr_assert(session_exercise_solved(s, 0));
	cr_assert(session_exercise_solved_now(s, 0));
	cr_assert_not(session_exercise_solved(s, 1));
	cr_assert(strstr(session_exercise_verdict(s), "Exercise solved: Compute X times its transpose."), "%s",
		  session_exercise_verdict(s));

	/* solved stays solved, also through :reset; solved_now is the last run's */
	must_run(s, "X.sum(dim=0)");
	cr_assert_not(session_exercise_solved_now(s, 0));
	cr_assert(session_exercise_solved_now(s, 1));
	session_reset(s);
	cr_assert(session_exercise_solved(s, 0) && session_exercise_solved(s, 1));
	cr_assert_not(session_exercise_solved(s, 2), "out of range");
	session_free(s);

	/* an empty session has no workspace to judge against */
	s = session_new(KERNEL_SIMD, 0);
	session_set_exercises(s, st->exercises, st->nexercises);
	must_run(s, "X = [1 0; 0 1; 1 1]; X @ X.T");
	cr_assert_not(session_exercise_solved(s, 0));
	session_free(s);
	close_step(&w);
}

static const char predict_lesson[] =
	"{\"id\": \"pr\", \"title\": \"Predict\", \"source\": \"tests\", \"summary\": \"s\", \"steps\": ["
	"{\"title\": \"Mask\", \"text\": \"x\", \"code\": [\"W = torch.softmax(torch.tensor([[0., 2.], [1., 1.]]), dim=-1)\","
	"\"M = torch.triu(torch.full((4, 4), float('-inf')), diagonal=1)\"], \"exercise\": ["
	"{\"ask\": \"How many entries of M are -inf?\", \"predict\": true, \"answer\": \"torch.isinf(M).sum()\","
	" \"solution\": \"6\", \"hints\": \"Count above the diagonal.\"},"
	"{\"ask\": \"Which key does query 0 weight most?\", \"predict\": true, \"answer\": \"int(W[0].argmax())\","
	" \"solution\": \"1\"},"
	"{\"ask\": \"Type row 1 of W.\", \"predict\": true, \"answer\": \"W[1]\", \"tol\": 0.01,"
	" \"solution\": \"[0.5, 0.5]\"},"
	"{\"ask\": \"Compute W times 2.\", \"answer\": \"W * 2\", \"solution\": \"W * 2\"}]}]}";

Test(session_api, a_prediction_should_be_answered_by_typing_a_number_or_a_list)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("pr.json", predict_lesson, strlen(predict_lesson), NULL, NULL, &err);
	cr_assert_not_null(l, "%s", err.msg);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	cr_assert_eq(runner_step(r, NULL, &err), 0, "%s", err.msg);
	const struct step *st = &l->steps[0];
	cr_assert(st->exercises[0].predict && !st->exercises[3].predict);
	cr_assert_str_eq(exercise_kind(&st->exercises[0]), "Predict");
	cr_assert_str_eq(exercise_kind(&st->exercises[3]), "Exercise");
	struct session *s = session_new_copy(runner_interp(r));
	session_set_exercises(s, st->exercises, st->nexercises);

	/* a wrong count says how far off it is, and solves nothing */
	must_run(s, "5");
	cr_assert_str_eq(session_exercise_verdict(s), "Not yet: off by 1");
	cr_assert_not(session_exercise_solved(s, 0));
	must_run(s, "[5.5]");
	cr_assert_str_eq(session_exercise_verdict(s), "Not yet: off by 0.5", "a one-element list against a number");
	must_run(s, "-100000000");
	cr_assert_str_eq(session_exercise_verdict(s), "Not yet: off by 100000006", "a count is off by a count");
	must_run(s, "6");
	cr_assert(session_exercise_solved(s, 0));
	cr_assert(strstr(session_exercise_verdict(s), "\u2713 Predicted right: How many entries of M are -inf?"),
		  "%s", session_exercise_verdict(s));
	/* an index, then a row typed as a list, within the tolerance */
	must_run(s, "1");
	cr_assert(session_exercise_solved(s, 1));
	must_run(s, "[0.5, 0.5, 0.5]");
	cr_assert_str_eq(session_exercise_verdict(s), "Not yet: the answer has shape [2], yours [3]");
	must_run(s, "[0.501, 0.499]");
	cr_assert(session_exercise_solved(s, 2));
	/* a number is never judged against an exercise that wants a tensor */
	must_run(s, "k = 2");
	cr_assert_not(session_exercise_solved(s, 3));
	cr_assert_str_eq(session_exercise_verdict(s), "");
	must_run(s, "W * 2");
	cr_assert(session_exercise_solved(s, 3));
	session_free(s);

	/* qkv check: each solution, typed as a student would, gives the answer */
	for (int k = 0; k < st->nexercises; k++) {
		bool solved;
		char detail[400];
		cr_assert_eq(runner_check_exercise(r, st, k, &solved, detail, sizeof detail, &err), 0, "%s", err.msg);
		cr_expect(solved, "exercise %d: %s", k, detail);
	}
	runner_free(r);
	lesson_free(l);
}

Test(session_api, only_numbers_and_rectangular_lists_of_them_should_stand_for_an_answer)
{
	struct interp *I = interp_new(KERNEL_SIMD);
	static const char *const none[] = { "[[1, 2], [3]]", "'six'", "[1, 'a']", "[[[[[1]]]]]", "None", "[[1], 2]" };
	for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
		struct qkv_error err;
		struct value *v = interp_eval(I, none[i], strlen(none[i]), &err);
		cr_assert_not_null(v, "%s: %s", none[i], err.msg);
		struct tensor *t = answer_tensor(v);
		cr_expect_null(t, "%s stands for a tensor", none[i]);
		tensor_unref(t);
		value_unref(v);
	}
	struct qkv_error err;
	struct value *v = interp_eval(I, "([1, 2.5], (3, True))", 21, &err);
	cr_assert_not_null(v, "%s", err.msg);
	struct tensor *t = answer_tensor(v);
	cr_assert_not_null(t);
	cr_assert(t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 2);
	cr_assert(tensor_get(t, 1) == 2.5 && tensor_get(t, 3) == 1);
	tensor_unref(t);
	value_unref(v);
	interp_free(I);
}

Test(session_api, save_should_write_the_code_before_then_the_statements_typed_and_load_should_run_a_file)
{
	char dir[] = "/tmp/qkv-session-api-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[128], bad[128];
	snprintf(path, sizeof path, "%s/saved.json", dir);
	snprintf(bad, sizeof bad, "%s/bad.qkv", dir);

	/* a copy of a step's workspace: its code goes before what was typed */
	struct step_ws w = open_step();
	struct session *s = session_new_copy(runner_interp(w.r));
	must_run(s, "W = X * 2");
	struct qkv_error err;
	cr_assert_eq(session_save(s, path, false, "t", NULL, 0, &err), -1, "W's X is not made by what was typed");
	const char *const *code = (const char *const *)&w.l->steps[0].code;
	cr_assert_eq(session_save(s, path, false, "t", code, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(session_save(s, path, false, "t", code, 1, &err), -1);
	cr_assert(strstr(err.msg, ":save!"), "%s", err.msg);
	close_step(&w);

	/* :load of the saved lesson into a fresh session makes the same tensors */
	struct session *t = session_new(KERNEL_SIMD, 0);
	cr_assert_eq(session_load(t, path, &err), 0, "%s", err.msg);
	char *wsum = shown(t, "W.sum()");
	cr_assert_str_eq(wsum, "8");
	free(wsum);
	int n;
	session_statements(t, &n);
	cr_assert_eq(n, 1, "the loaded code is one statement typed");

	/* a failing statement names the file, its line and column */
	FILE *f = fopen(bad, "w");
	fputs("a = 1\nb = a + nope\n", f);
	fclose(f);
	cr_assert_eq(session_load(t, bad, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:2:9: name 'nope' is not defined", bad);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(err.line, 2);
	cr_assert_eq(err.col, 9);
	cr_assert_not(has_name(t, "a"), ":load is atomic");

	/* in a lesson, the statement's place in the JSON file, named as qkv check names it */
	f = fopen(bad, "w");
	fputs("{\"format\": 1, \"id\": \"l\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
	      "  {\"title\": \"a\", \"text\": \"x\", \"code\": [\"a = 1\"]},\n"
	      "  {\"title\": \"b\", \"text\": \"x\", \"code\": [\"b = 2\",\n"
	      "                                         \"c = '\\u00e9' + nope\"]}]}\n", f);
	fclose(f);
	cr_assert_eq(session_load(t, bad, &err), -1);
	snprintf(want, sizeof want, "%s:4:58: steps[1].code[1]: name 'nope' is not defined", bad);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(err.line, 4);
	cr_assert_eq(err.col, 58);
	cr_assert_not(has_name(t, "b"), ":load is atomic");
	snprintf(want, sizeof want, "%s/missing.qkv", dir);
	cr_assert_eq(session_load(t, want, &err), -1);
	cr_assert(strstr(err.msg, "missing.qkv"), "%s", err.msg);
	session_free(t);
	session_free(s);
	unlink(path);
	unlink(bad);
	rmdir(dir);
}

/* An error raised inside a function of a file :load ran: the code as it
 * ran and the error's place in it (the traceback's line, not the JSON
 * file's), for the prompt to show the function's line with a caret. */
Test(session_api, a_failed_load_should_keep_its_code_and_the_place_of_the_error_in_it)
{
	char dir[] = "/tmp/qkv-session-load-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char py[128], json[128];
	snprintf(py, sizeof py, "%s/f.qkv", dir);
	snprintf(json, sizeof json, "%s/f.json", dir);
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err, ran;
	size_t len;
	cr_assert_null(session_load_failure(s, &len, &ran), "no load yet");

	FILE *f = fopen(py, "w");
	fputs("def f(a):\n    b = a + 1\n    return b.nope\n\ny = f(torch.ones(2))\n", f);
	fclose(f);
	cr_assert_eq(session_load(s, py, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:3:14: ", py);
	cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
	cr_assert(strstr(err.msg, "\n  line 3, in f"), "%s", err.msg);
	const char *code = session_load_failure(s, &len, &ran);
	cr_assert_not_null(code);
	cr_assert_eq(len, strlen(code));
	cr_assert(strncmp(code, "def f(a):\n", 10) == 0, "%s", code);
	cr_assert_eq(ran.line, 3);
	cr_assert_eq(ran.col, 14);
	cr_assert(strstr(ran.msg, "\n  line 3, in f"), "%s", ran.msg);

	/* a lesson: the place in the code its steps make, not in the JSON */
	f = fopen(json, "w");
	fputs("{\"format\": 1, \"id\": \"l\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
	      "  {\"title\": \"a\", \"text\": \"x\", \"code\": [\"def g(a):\", \"    return a.nope\"]},\n"
	      "  {\"title\": \"b\", \"text\": \"x\", \"code\": [\"y = g(torch.ones(2))\"]}]}\n", f);
	fclose(f);
	cr_assert_eq(session_load(s, json, &err), -1);
	/* in the message, the statement that ran and the function's line, each
	 * at its place in the JSON file, as qkv check names them */
	cr_assert_eq(err.line, 3, "%s", err.msg);
	char *tb = strchr(err.msg, '\n');
	cr_assert(tb && strstr(err.msg, ":3:41: steps[1].code: 'Tensor' object has no attribute") &&
		  strstr(tb, ":2:67: steps[0].code[1], in g"),
		  "%s", err.msg);
	code = session_load_failure(s, &len, &ran);
	cr_assert_not_null(code);
	cr_assert_str_eq(code, "def g(a):\n    return a.nope\ny = g(torch.ones(2))");
	cr_assert_eq(ran.line, 2);
	cr_assert_eq(ran.col, 14);

	/* a file that cannot be read, or a load that runs, leaves none */
	snprintf(want, sizeof want, "%s/missing.qkv", dir);
	cr_assert_eq(session_load(s, want, &err), -1);
	cr_assert_null(session_load_failure(s, &len, &ran));
	f = fopen(py, "w");
	fputs("z = 1\n", f);
	fclose(f);
	cr_assert_eq(session_load(s, py, &err), 0, "%s", err.msg);
	cr_assert_null(session_load_failure(s, &len, &ran));
	session_free(s);
	unlink(py);
	unlink(json);
	rmdir(dir);
}

/* ---- blocks typed at a prompt, pasted cells, history (lesson/statements, lineedit) ---- */

Test(session_api, a_block_should_be_unfinished_until_an_empty_line_as_in_pythons_repl)
{
	const char *open[] = { "for i in range(3):\n", "for i in range(3):\n    print(i)\n",
			       "if x:  # a comment\n    y = 1\n", "class A:\n    def f(self):\n        pass\n",
			       "%%time\nx = 1\n" };
	for (size_t k = 0; k < sizeof open / sizeof *open; k++)
		cr_assert_not(session_is_complete(open[k], strlen(open[k])), "%s", open[k]);
	const char *done[] = { "for i in range(3):\n    print(i)\n\n", "if x:\n    y = 1\n    \n",
			       "d = {'a': 1,\n 'b': 2}\n", "s = 'a:'\n", "x = 1  # note:\n" };
	for (size_t k = 0; k < sizeof done / sizeof *done; k++)
		cr_assert(session_is_complete(done[k], strlen(done[k])), "%s", done[k]);
	cr_assert_not(statements_opens_block("d = {1:\n", 8), "a ':' inside brackets opens nothing");
}

Test(session_api, the_next_line_of_a_block_should_be_offered_its_indentation)
{
	struct { const char *src; int indent; } cases[] = {
		{ "for i in range(3):\n", 4 },
		{ "def f(x):\n    if x:\n", 8 },
		{ "def f(x):\n    y = x\n", 4 },
		{ "def f(x):\n    return x\n", 0 },
		{ "while True:\n    if x:\n        break\n", 4 },
		{ "x = [1,\n", 0 },
		{ "class A:\n\tdef f(self):\n", 12 },
		{ "if x:\n    y = 1\n\n", 4 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
		cr_assert_eq(statements_indent(cases[k].src, strlen(cases[k].src)), cases[k].indent, "%s",
			     cases[k].src);
}

Test(session_api, a_pasted_cell_should_split_into_its_statements_with_the_lines_they_hold)
{
	const char *cell = "a = 1\n\n# b next\nb = [a,\n 2]; c = 3\nd = (\n";
	size_t end, off = 0;
	cr_assert_eq(statements_first(cell, strlen(cell), &end), STATEMENTS_ONE);
	cr_assert_eq(end, 6);
	off += end;
	cr_assert_eq(statements_first(cell + off, strlen(cell) - off, &end), STATEMENTS_ONE);
	cr_assert_str_eq(cell + off + end, "d = (\n", "the blank line, the comment, b and c together");
	off += end;
	cr_assert_eq(statements_first(cell + off, strlen(cell) - off, &end), STATEMENTS_INCOMPLETE);
	cr_assert_eq(statements_first("\n# only\n", 8, &end), STATEMENTS_NONE);
	cr_assert_eq(statements_first("x = = 1\ny = 2\n", 14, &end), STATEMENTS_ERROR);
}

/* the title of the value a line typed at the prompt made: what its last
 * statement assigns or is, passing over the print() calls after it, and
 * strings, brackets and comments holding ';', '=' or "print(" */
Test(session_api, a_line_should_name_its_value_by_its_last_statement)
{
	struct { const char *line; enum statements_name kind; const char *name; } cases[] = {
		{ "X = [1 2; 3 4]", STATEMENTS_NAME_ASSIGNED, "X" },
		{ "X += 1  # more", STATEMENTS_NAME_ASSIGNED, "X" },
		{ "a = 1; Q @ K.T ;", STATEMENTS_NAME_EXPRESSION, "Q @ K.T" },
		{ "W = softmax(S); print(W); print('x;y')", STATEMENTS_NAME_ASSIGNED, "W" },
		{ "s = 'a; b = print(c)'", STATEMENTS_NAME_ASSIGNED, "s" },
		{ "x.shape", STATEMENTS_NAME_EXPRESSION, "x.shape" },
		{ "f(a=1)[0] == 2", STATEMENTS_NAME_EXPRESSION, "f(a=1)[0] == 2" },
		{ "a, b = 1, 2", STATEMENTS_NAME_NONE, "" },
		{ "x[0] = 5", STATEMENTS_NAME_NONE, "" },
		{ "print(X)", STATEMENTS_NAME_NONE, "" },
		{ "X = = 1", STATEMENTS_NAME_NONE, "" },
		{ "", STATEMENTS_NAME_NONE, "" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char buf[64];
		cr_assert_eq(statements_value_name(cases[k].line, buf, sizeof buf), cases[k].kind, "%s", cases[k].line);
		cr_assert_str_eq(buf, cases[k].name, "%s", cases[k].line);
	}
	char small[4];
	cr_assert_eq(statements_value_name("Q @ K.T", small, sizeof small), STATEMENTS_NAME_EXPRESSION);
	cr_assert_str_eq(small, "Q @", "cut to the buffer");
}

Test(session_api, a_block_in_the_history_file_should_come_back_as_one_entry)
{
	const char *entries[] = { "x = 1", "for i in range(3):\n    print(i)\n\n    print(-i)", "\\weird", "\\|odd" };
	struct strbuf file;
	strbuf_init(&file);
	for (size_t k = 0; k < 4; k++) {
		lineedit_history_encode(&file, entries[k]);
		strbuf_putc(&file, '\n');
	}
	/* the file's lines, empty ones left out as progress_history_load does */
	char *lines[16];
	int n = 0;
	for (char *l = strtok(file.s, "\n"); l && n < 16; l = strtok(NULL, "\n"))
		lines[n++] = l;
	cr_assert_eq(n, 7, "one line per line, none empty");
	clear_history();
	lineedit_history_load(lines, n);
	HIST_ENTRY **h = history_list();
	cr_assert(h);
	for (size_t k = 0; k < 4; k++)
		cr_assert_str_eq(h[k]->line, entries[k]);
	cr_assert_null(h[4]);
	/* an entry whose first line was cut off by the file's limit is dropped */
	clear_history();
	lineedit_history_load(lines + 2, n - 2);
	h = history_list();
	cr_assert_str_eq(h[0]->line, "\\weird");
	clear_history();
	strbuf_free(&file);
}

Test(session_api, a_block_should_be_kept_whole_for_save_without_its_ending_empty_line)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err;
	const char *block = "x = [1,\n     2]\n    \n";
	cr_assert_eq(session_run(s, block, strlen(block), 1, SESSION_ATOMIC, &err), SESSION_OK, "%s", err.msg);
	must_run(s, "y = 3");
	int n;
	const char *const *typed = session_statements(s, &n);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(typed[0], "x = [1,\n     2]");
	cr_assert_str_eq(typed[1], "y = 3");
	session_free(s);
}

/* The full screen's keymaps (readline in callback mode): the searches that
 * freed undo lists twice become the incremental ones, and keyboard macros,
 * whose replay crashed, ring the bell; nothing else changes. */
Test(session_api, callback_keymaps_should_replace_the_searches_and_macros_that_crashed_readline)
{
	rl_initialize();
	Keymap emacs = rl_get_keymap_by_name("emacs");
	Keymap meta = (Keymap)emacs[27].function, ctlx = (Keymap)emacs[24].function;
	cr_assert(emacs[27].type == ISKMAP && ctlx && emacs[24].type == ISKMAP);
	cr_assert(meta['p'].function == rl_noninc_reverse_search, "readline's own binding to begin with");
	cr_assert(ctlx['('].function == rl_start_kbd_macro);
	lineedit_callback_keymaps();
	cr_expect(meta['p'].function == rl_reverse_search_history);
	cr_expect(meta['n'].function == rl_forward_search_history);
	cr_expect(ctlx['('].function != rl_start_kbd_macro && ctlx['('].function != NULL);
	cr_expect(ctlx[')'].function != rl_end_kbd_macro);
	cr_expect(ctlx['e'].function != rl_call_last_kbd_macro);
	cr_expect(emacs['a'].function == rl_insert, "a key typed is still itself");
	cr_expect(emacs[CTRL('R')].function == rl_reverse_search_history);
	Keymap vi = rl_get_keymap_by_name("vi-command");
	cr_expect(vi['/'].function == rl_reverse_search_history);
	cr_expect(vi['?'].function == rl_forward_search_history);
}

/* a value shown after a run (:show, the prompt's view) prints with the
 * options the session's statements set */
Test(session_api, show_should_print_with_the_print_options_the_statements_set)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err;
	const char *src = "import torch\nx = torch.tensor([1 / 3])\ntorch.set_printoptions(precision=2)";
	cr_assert_eq(session_run(s, src, strlen(src), 1, SESSION_ATOMIC, &err), 0, "%s", err.msg);
	struct session_value v;
	cr_assert_eq(session_show(s, "[x, 2]", &v, &err), 0, "%s", err.msg);
	cr_assert_str_eq(v.text, "[tensor([0.33]), 2]");
	session_value_free(&v);
	struct strbuf sb;
	strbuf_init(&sb);
	cr_assert_eq(session_show(s, "x", &v, &err), 0, "%s", err.msg);
	const struct print_options *was = format_use_options(session_print_options(s));
	format_repr(&sb, v.t);
	format_use_options(was);
	cr_assert_str_eq(sb.s, "tensor([0.33])");
	strbuf_free(&sb);
	session_value_free(&v);
	session_free(s);
}
