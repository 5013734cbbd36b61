/* test_interp.c: the evaluator in-process: statements as transactions, views
 * sharing storage, the workspace API the UI and lessons will use, the print
 * options as an interpreter's own state. */
#include "lang/interp.h"
#include "core/format.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct strbuf printed;

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)udata;
	(void)v;
	strbuf_puts(&printed, text);
	strbuf_putc(&printed, '\n');
}

static struct interp *fresh(void)
{
	strbuf_init(&printed);
	struct interp *I = interp_new(KERNEL_SIMD);
	interp_set_output(I, capture, NULL);
	return I;
}

static enum interp_status run(struct interp *I, const char *src, int flags, struct qkv_error *err)
{
	return interp_run(I, src, strlen(src), 1, flags, err);
}

static const char *show(struct interp *I, const char *expr)
{
	struct qkv_error err;
	strbuf_reset(&printed);
	cr_assert_eq(run(I, expr, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s: %s", expr, err.msg);
	return printed.s;
}

/* A statement qkv refuses: the message and the column it gives. */
struct refused {
	const char *src, *msg;
	int col;
};

/* Each of the n statements fails in I, run whole, with its message at its column. */
static void expect_refused(struct interp *I, const struct refused *bad, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct qkv_error err;
		cr_expect_eq(run(I, bad[i].src, INTERP_ATOMIC, &err), INTERP_ERROR, "%s ran", bad[i].src);
		cr_expect_str_eq(err.msg, bad[i].msg, "%s", bad[i].src);
		cr_expect_eq(err.col, bad[i].col, "%s: column %d", bad[i].src, err.col);
	}
}

Test(interp, a_failing_statement_should_undo_its_in_place_writes)
{
	struct interp *I = fresh();
	struct qkv_error err;
	cr_assert_eq(run(I, "x = torch.zeros(2, 2); v = x.view(4)", 0, &err), INTERP_OK);
	/* masked_fill_ writes into x, then the matmul fails: x must be as before */
	cr_assert_eq(run(I, "y = x.masked_fill_(torch.eye(2).bool(), 7.0) @ torch.ones(3)", 0, &err), INTERP_ERROR);
	cr_assert_str_eq(show(I, "v"), "tensor([0., 0., 0., 0.])\n");
	cr_assert_null(interp_get(I, "y"));
	interp_free(I);
	strbuf_free(&printed);
}

/* a list of indices copies (torch's advanced indexing): the forms whose
 * torch meaning qkv does not reproduce are refused at their column, and a
 * write through one, which would land in the copy, never happens silently */
Test(interp, a_list_of_indices_should_copy_and_its_unsupported_forms_be_refused_at_their_place)
{
	static const struct refused bad[] = {
		{ "X[[1], [0]]", "qkv takes one list of indices per subscript", 8 },
		{ "X[[0, 1]] = 0", "qkv cannot assign through a list of indices; assign to a slice", 3 },
		{ "X[[True, False, True, True]]", "indexing with a list of booleans (a mask) is not supported in qkv", 3 },
		{ "X[[0.5]]", "a list of indices must hold integers only", 3 },
		{ "X[torch.tensor([0., 1.])]", "tensors used as indices must be integer tensors", 15 },
		{ "X[torch.tensor([[0]])]", "qkv indexes with a 1-D list of indices, not a 2-D tensor", 15 },
		{ "X[[4]]", "index 4 is out of range for dimension 0 with size 4", 3 },
		{ "Y = torch.zeros(2, 3, 4); Y[0, :, [1]]", "qkv does not combine a list of indices with an integer "
							"index across a slice", 32 },
	};
	struct interp *I = fresh();
	struct qkv_error err;
	cr_assert_eq(run(I, "X = torch.arange(12).view(4, 3)", 0, &err), INTERP_OK, "%s", err.msg);
	expect_refused(I, bad, sizeof bad / sizeof *bad);
	cr_assert_str_eq(show(I, "X.sum()"), "tensor(66)\n", "X was written");
	/* the copy is a copy */
	cr_assert_eq(run(I, "Z = X[[0]]; Z += 100", 0, &err), INTERP_OK, "%s", err.msg);
	cr_assert_str_eq(show(I, "X[0]"), "tensor([0, 1, 2])\n");
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, a_failing_statement_should_leave_the_random_streams_as_they_were)
{
	struct interp *I = fresh();
	struct qkv_error err;
	const char *first = NULL;
	run(I, "torch.manual_seed(3)", 0, &err);
	cr_assert_eq(run(I, "a = torch.randn(4) + torch.ones(3)", 0, &err), INTERP_ERROR);
	first = show(I, "torch.randn(4)");
	char *copy = strdup(first);
	run(I, "torch.manual_seed(3)", 0, &err);
	cr_assert_str_eq(show(I, "torch.randn(4)"), copy);
	free(copy);
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, an_atomic_run_should_undo_every_statement_of_the_line)
{
	struct interp *I = fresh();
	struct qkv_error err;
	run(I, "a = 1", 0, &err);
	cr_assert_eq(run(I, "a = 2; b = 3; x = torch.ones(2); x += 1; c = undefined", INTERP_ATOMIC, &err),
		     INTERP_ERROR);
	cr_assert_eq(err.line, 1);
	cr_assert_eq(err.col, 46);
	cr_assert_str_eq(show(I, "a"), "1\n");
	cr_assert_null(interp_get(I, "b"));
	cr_assert_null(interp_get(I, "x"));
	cr_assert_eq(interp_var_count(I), 1);
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, views_should_share_storage_as_in_torch)
{
	struct interp *I = fresh();
	show(I, "x = torch.zeros(2, 3); t = x.T; r = x[1]");
	show(I, "r[0] = 5.0; t[2, 0] = 9.0");
	cr_assert_str_eq(show(I, "x"), "tensor([[0., 0., 9.],\n        [5., 0., 0.]])\n");
	/* a copy does not share */
	show(I, "c = x.clone(); c[0, 0] = 1.0");
	cr_assert_str_eq(show(I, "x[0, 0]"), "tensor(0.)\n");
	/* x += on a tensor writes in place, through every view */
	show(I, "x += 1");
	cr_assert_str_eq(show(I, "r"), "tensor([6., 1., 1.])\n");
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, the_workspace_should_list_names_in_order_of_first_assignment)
{
	struct interp *I = fresh();
	show(I, "b = 1; a = torch.ones(2); b = 2; import numpy as xp");
	cr_assert_eq(interp_var_count(I), 3);
	cr_assert_str_eq(interp_var_name(I, 0), "b");
	cr_assert_str_eq(interp_var_name(I, 1), "a");
	cr_assert_str_eq(interp_var_name(I, 2), "xp");
	cr_assert_eq(interp_get(I, "a")->kind, V_TENSOR);
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, loops_and_simd_should_print_the_same_attention)
{
	const char *src = "torch.manual_seed(0); q = torch.randn(2, 7, 5); k = torch.randn(2, 7, 5); "
			  "v = torch.randn(2, 7, 3); m = torch.tril(torch.ones(7, 7)); "
			  "s = (q @ k.transpose(1, 2) / 5 ** 0.5).masked_fill(m == 0, float('-inf')); "
			  "torch.softmax(s, dim=-1) @ v; "
			  "F.scaled_dot_product_attention(q, k, v, is_causal=True)";
	struct interp *a = interp_new(KERNEL_SIMD), *b = interp_new(KERNEL_LOOPS);
	struct strbuf sa, sb;
	strbuf_init(&sa);
	strbuf_init(&sb);
	strbuf_init(&printed);
	interp_set_output(a, capture, NULL);
	interp_set_output(b, capture, NULL);
	struct qkv_error err;
	cr_assert_eq(run(a, src, 0, &err), INTERP_OK, "%s", err.msg);
	strbuf_puts(&sa, printed.s);
	strbuf_reset(&printed);
	cr_assert_eq(run(b, src, 0, &err), INTERP_OK, "%s", err.msg);
	strbuf_puts(&sb, printed.s);
	cr_assert_str_eq(sa.s, sb.s);
	/* the fused attention prints the same as the step-by-step pipeline */
	char *half = strstr(sa.s, "tensor(");
	char *second = strstr(half + 1, "tensor(");
	cr_assert(second);
	cr_assert(strncmp(half, second, (size_t)(second - half)) == 0, "%s", sa.s);
	interp_free(a);
	interp_free(b);
	strbuf_free(&sa);
	strbuf_free(&sb);
	strbuf_free(&printed);
}

/* ---- fused attention in one expression ------------------------------------------ */

/* The largest |a - b| of two workspace tensors, printed by the interpreter. */
static double max_abs_diff(struct interp *I, const char *a, const char *b)
{
	char expr[160];
	snprintf(expr, sizeof expr, "float((%s - %s).abs().max())", a, b);
	return strtod(show(I, expr), NULL);
}

Test(interp, attention_in_one_expression_should_match_the_step_by_step_result)
{
	/* 100 x 100 scores per head: over the 4096 where the evaluator fuses */
	struct interp *I = fresh();
	struct qkv_error err;
	cr_assert_eq(run(I, "torch.manual_seed(1); Q = torch.randn(2, 3, 100, 16); K = torch.randn(2, 3, 100, 16); "
			    "V = torch.randn(2, 3, 100, 8); M = torch.triu(torch.ones(100, 100), diagonal=1).bool(); "
			    "S = (Q @ K.transpose(-2, -1) / 4).masked_fill(M, float('-inf')); "
			    "B = torch.softmax(S, dim=-1) @ V; B2 = Q[0, 0] @ K[0, 0].T",
		     0, &err), INTERP_OK, "%s", err.msg);
	static const char *const spellings[] = {
		"torch.softmax((Q @ K.transpose(-2, -1) / 4).masked_fill(M, float('-inf')), dim=-1) @ V",
		"F.softmax((Q @ K.transpose(3, 2) * 0.25).masked_fill(M, -float('inf')), -1) @ V",
		"(0.25 * Q @ K.mT).masked_fill(M, float('-inf')).softmax(dim=-1) @ V",
		"torch.nn.functional.softmax((Q @ K.mT / math.sqrt(16)).masked_fill(M, float('-inf')), dim=3) @ V",
	};
	for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
		char stmt[300];
		snprintf(stmt, sizeof stmt, "A = %s", spellings[i]);
		cr_assert_eq(run(I, stmt, 0, &err), INTERP_OK, "%s: %s", stmt, err.msg);
		double d = max_abs_diff(I, "A", "B");
		cr_assert(d < 1e-5, "%s: differs by %g", spellings[i], d);
	}
	/* 2-D, unmasked, K.T */
	cr_assert_eq(run(I, "A = torch.softmax(Q[0, 0] @ K[0, 0].T / 4, dim=-1) @ V[0, 0]; "
			    "B = torch.softmax(B2 / 4, dim=-1) @ V[0, 0]", 0, &err), INTERP_OK, "%s", err.msg);
	cr_assert(max_abs_diff(I, "A", "B") < 1e-5);
	interp_free(I);
}

Test(interp, attention_in_one_expression_should_not_need_room_for_the_weights)
{
	/* 4 heads of 128 x 128 scores would be 65536 numbers, over the limit set
	 * here; fused, the largest tensor is q, k, v or the output */
	struct interp *I = fresh();
	struct qkv_error err;
	interp_ops(I)->max_elems = 20000;
	cr_assert_eq(run(I, "torch.manual_seed(2); q = torch.randn(4, 128, 32); k = torch.randn(4, 128, 32); "
			    "v = torch.randn(4, 128, 32)", 0, &err), INTERP_OK, "%s", err.msg);
	cr_assert_eq(run(I, "o = torch.softmax(q @ k.transpose(1, 2) / 32 ** 0.5, dim=-1) @ v", 0, &err), INTERP_OK,
		     "%s", err.msg);
	cr_assert_str_eq(show(I, "o.shape"), "torch.Size([4, 128, 32])\n");
	/* the same written in two statements needs the weights, and says so */
	cr_assert_eq(run(I, "w = torch.softmax(q @ k.transpose(1, 2) / 32 ** 0.5, dim=-1)", 0, &err), INTERP_ERROR);
	cr_assert(strstr(err.msg, "over the limit"), "%s", err.msg);
	interp_free(I);
}

Test(interp, attention_like_expressions_that_differ_should_be_computed_as_written)
{
	/* softmax over another axis, a fill that is not -inf, the loops kernel:
	 * evaluated step by step, with their own results */
	struct interp *I = fresh();
	struct qkv_error err;
	cr_assert_eq(run(I, "torch.manual_seed(3); Q = torch.randn(100, 8); K = torch.randn(100, 8); "
			    "V = torch.randn(100, 8); M = torch.rand(100, 100) > 0.5", 0, &err), INTERP_OK, "%s", err.msg);
	cr_assert_eq(run(I, "A = torch.softmax(Q @ K.T, dim=0) @ V; W = torch.softmax(Q @ K.T, dim=0); B = W @ V; "
			    "A2 = torch.softmax((Q @ K.T).masked_fill(M, -1e9), dim=-1) @ V; "
			    "B2 = torch.softmax((Q @ K.T).masked_fill(M, -1e9), dim=-1); B2 = B2 @ V",
		     0, &err), INTERP_OK, "%s", err.msg);
	cr_assert_eq(max_abs_diff(I, "A", "B"), 0);
	cr_assert_eq(max_abs_diff(I, "A2", "B2"), 0);
	interp_free(I);
}

/* ---- Ctrl-C: the interrupt flag --------------------------------------------- */

static volatile sig_atomic_t stop_flag;

/* print("stop") raises the flag, as the UI's SIGINT handler would while the
 * statement runs */
static void capture_and_stop(void *udata, const struct value *v, const char *text)
{
	capture(udata, v, text);
	if (strcmp(text, "stop") == 0)
		stop_flag = 1;
}

static struct interp *interruptible(void)
{
	struct interp *I = fresh();
	stop_flag = 0;
	interp_set_output(I, capture_and_stop, NULL);
	interp_set_interrupt(I, &stop_flag);
	return I;
}

Test(interp, an_interrupt_between_operations_should_stop_the_statement_and_undo_it)
{
	struct interp *I = interruptible();
	struct qkv_error err;
	cr_assert_eq(run(I, "x = torch.ones(2)", 0, &err), INTERP_OK);
	/* the flag rises while the right operand of @ is evaluated: the matmul
	 * never runs, the in-place write before it is undone */
	cr_assert_eq(run(I, "y = x.masked_fill_(x > 0, 5.0) @ (print('stop') or x)", 0, &err), INTERP_INTERRUPTED);
	cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
	cr_assert_eq(err.line, 1);
	cr_assert_eq(err.col, 32, "the caret should be under the @, not at %d", err.col);
	cr_assert_null(interp_get(I, "y"));
	stop_flag = 0;
	cr_assert_str_eq(show(I, "x"), "tensor([1., 1.])\n");
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, an_interrupt_should_keep_the_statements_before_it_or_none_when_atomic)
{
	struct interp *I = interruptible();
	struct qkv_error err;
	/* per statement: a and the write to x stay, b is never computed; the
	 * statement the flag rose during counts as interrupted */
	cr_assert_eq(run(I, "a = 1; x = torch.zeros(2); x += 1; print('stop'); b = x * 2", 0, &err),
		     INTERP_INTERRUPTED);
	cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
	cr_assert_eq(err.col, 36, "the statement running: col %d", err.col);
	cr_assert_null(interp_get(I, "b"));
	stop_flag = 0;
	cr_assert_str_eq(show(I, "x"), "tensor([1., 1.])\n");
	/* atomic (a prompt line): nothing of the line is kept */
	cr_assert_eq(run(I, "a = 2; x += 1; c = torch.randn(3); print('stop'); d = 4", INTERP_ATOMIC, &err),
		     INTERP_INTERRUPTED);
	stop_flag = 0;
	cr_assert_str_eq(show(I, "a"), "1\n");
	cr_assert_str_eq(show(I, "x"), "tensor([1., 1.])\n");
	cr_assert_null(interp_get(I, "c"));
	cr_assert_eq(interp_var_count(I), 2);
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, undo_all_on_interrupt_should_undo_the_whole_source_but_an_error_one_statement)
{
	struct interp *I = interruptible();
	struct qkv_error err;
	const int flags = INTERP_PER_STATEMENT | INTERP_UNDO_ALL_ON_INTERRUPT;
	run(I, "torch.manual_seed(5); x = torch.zeros(2)", 0, &err);
	char *first = strdup(show(I, "torch.randn(2)"));
	run(I, "torch.manual_seed(5)", 0, &err);
	/* an interrupt: every statement undone, the random stream too */
	cr_assert_eq(run(I, "a = torch.randn(2); x += 1; x += 1; print('stop'); b = 1", flags, &err),
		     INTERP_INTERRUPTED);
	stop_flag = 0;
	cr_assert_null(interp_get(I, "a"));
	cr_assert_str_eq(show(I, "x"), "tensor([0., 0.])\n");
	cr_assert_str_eq(show(I, "torch.randn(2)"), first);
	/* an error: the failing statement only (its write to x too) */
	cr_assert_eq(run(I, "a = 1; x += 1; x += torch.ones(2) + torch.ones(3)", flags, &err), INTERP_ERROR);
	cr_assert_str_eq(show(I, "a"), "1\n");
	cr_assert_str_eq(show(I, "x"), "tensor([1., 1.])\n");
	free(first);
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, an_expression_or_a_clone_should_see_the_interrupt_too)
{
	struct interp *I = interruptible();
	struct qkv_error err;
	cr_assert_eq(run(I, "x = torch.ones(2)", 0, &err), INTERP_OK);
	struct interp *C = interp_clone(I);
	stop_flag = 1;
	cr_assert(interp_interrupted(C));
	cr_assert_null(interp_eval(I, "x @ x", 5, &err));
	cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
	cr_assert_eq(run(C, "y = x + 1", 0, &err), INTERP_INTERRUPTED);
	cr_assert_null(interp_get(C, "y"));
	stop_flag = 0;
	struct value *v = interp_eval(I, "x @ x", 5, &err);
	cr_assert_not_null(v, "%s", err.msg);
	value_unref(v);
	interp_free(C);
	interp_free(I);
	strbuf_free(&printed);
}

/* None, the bools and the ints -5 .. 256 are one shared object each, as in
 * CPython (a is b); arithmetic across that range and past it is unchanged */
Test(interp, small_ints_should_be_one_object_as_in_cpython)
{
	static const char *const cases[][2] = {
		{ "a = 5; b = 2 + 3; print(a is b, None is None, (1 < 2) is True)", "True True True\n" },
		{ "s = 0\nfor i in range(-10, 300):\n    s = s + i * 3 % 7\nprint(s, i, -i, i - 300)", "930 299 -299 -1\n" },
		{ "x = [0, 1, None, True]\nx[0] = 7\nprint(x, [0, 1, None, True])", "[7, 1, None, True] [0, 1, None, True]\n" },
	};
	struct interp *I = fresh();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_str_eq(show(I, cases[i][0]), cases[i][1]);
	interp_free(I);
	strbuf_free(&printed);
}

/* torch.set_printoptions and np.set_printoptions are the interpreter's own
 * state: each interpreter has its own options (a clone copies them), a
 * failing statement or line puts them back, the printing outside a run
 * follows the defaults unless a caller asks for an interpreter's, and what
 * qkv does not follow is refused at its column. What the options print is
 * checked against torch and numpy in tests/ref/python_semantics.py. */
Test(interp, printoptions_a_failing_statement_or_line_should_put_the_options_back)
{
	struct interp *I = fresh();
	struct qkv_error err;
	cr_assert_str_eq(show(I, "import torch\nimport numpy as np\nx = torch.tensor([1 / 3])\na = np.array([1 / 3])\n"
				 "def f():\n    torch.set_printoptions(precision=1)\n    np.set_printoptions(precision=2)\n"
				 "    return 1 / 0\n"),
			 "");
	cr_assert_eq(run(I, "f()", INTERP_PER_STATEMENT, &err), INTERP_ERROR);
	cr_assert_str_eq(show(I, "x\na"), "tensor([0.3333])\narray([0.33333333])\n");
	/* a line runs whole: its error undoes the options set before it */
	cr_assert_eq(run(I, "torch.set_printoptions(precision=1); np.set_printoptions(precision=2); y = nothing",
			 INTERP_ATOMIC, &err),
		     INTERP_ERROR);
	cr_assert_str_eq(show(I, "x\na"), "tensor([0.3333])\narray([0.33333333])\n");
	/* statement by statement: the ones before the error stay */
	cr_assert_eq(run(I, "torch.set_printoptions(precision=1)\ny = nothing", INTERP_PER_STATEMENT, &err),
		     INTERP_ERROR);
	cr_assert_str_eq(show(I, "x\na"), "tensor([0.3])\narray([0.33333333])\n");
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, printoptions_each_interpreter_should_have_its_own_options_and_a_clone_a_copy)
{
	struct interp *I = fresh(), *J = interp_new(KERNEL_SIMD);
	interp_set_output(J, capture, NULL);
	show(I, "import torch\nx = torch.tensor([1 / 3])\ntorch.set_printoptions(precision=2)");
	show(J, "import torch\nx = torch.tensor([1 / 3])");
	cr_assert_str_eq(show(J, "x"), "tensor([0.3333])\n");
	cr_assert_str_eq(show(I, "x"), "tensor([0.33])\n");
	struct interp *C = interp_clone(I);
	interp_set_output(C, capture, NULL);
	cr_assert_str_eq(show(C, "x"), "tensor([0.33])\n");
	show(C, "torch.set_printoptions(precision=6)");
	cr_assert_str_eq(show(C, "x"), "tensor([0.333333])\n");
	cr_assert_str_eq(show(I, "x"), "tensor([0.33])\n");

	/* outside a run the printing follows the defaults, or the options a
	 * caller asks for */
	struct strbuf sb;
	strbuf_init(&sb);
	const struct value *x = interp_get(I, "x");
	value_repr(&sb, x);
	cr_assert_str_eq(sb.s, "tensor([0.3333])");
	strbuf_reset(&sb);
	const struct print_options *was = format_use_options(interp_print_options(I));
	value_repr(&sb, x);
	format_use_options(was);
	cr_assert_str_eq(sb.s, "tensor([0.33])");
	strbuf_free(&sb);
	interp_free(C);
	interp_free(J);
	interp_free(I);
	strbuf_free(&printed);
}

Test(interp, printoptions_what_qkv_does_not_follow_should_be_refused_at_the_argument)
{
	static const struct refused bad[] = {
		/* torch takes these and fails at the next print */
		{ "torch.set_printoptions(precision=2.5)", "TypeError: precision must be an integer", 24 },
		{ "torch.set_printoptions(precision=-1)", "ValueError: precision must be >= 0", 24 },
		/* torch's a[-0:] would print every element after "..." */
		{ "torch.set_printoptions(edgeitems=0)", "ValueError: edgeitems must be >= 1", 24 },
		{ "torch.set_printoptions(sci_mode=1)", "TypeError: sci_mode must be True, False or None, not int", 24 },
		{ "np.set_printoptions(precision=-1)", "ValueError: precision must be >= 0", 21 },
		{ "np.set_printoptions(precision=80)", "ValueError: qkv takes precision up to 50, not 80", 21 },
		{ "np.set_printoptions(formatter={'float': str})",
		  "qkv does not support a formatter: it prints numbers as numpy does", 21 },
		{ "np.set_printoptions(nanstr='NaN')", "qkv prints nan and inf as they are: nanstr is not supported", 21 },
		{ "np.set_printoptions(legacy='1.13')",
		  "qkv prints as numpy 1.24 does: legacy printing is not supported", 21 },
		{ "np.set_printoptions(edgeitems=-2)", "ValueError: edgeitems must be >= 0", 21 },
	};
	struct interp *I = fresh();
	show(I, "import torch\nimport numpy as np\nx = torch.tensor([1 / 3])");
	expect_refused(I, bad, sizeof bad / sizeof bad[0]);
	cr_assert_str_eq(show(I, "x"), "tensor([0.3333])\n");
	/* what numpy takes and qkv follows as it does */
	cr_assert_str_eq(show(I, "np.set_printoptions(nanstr='nan', legacy=False, formatter=None)"), "");
	interp_free(I);
	strbuf_free(&printed);
}

/* the norms qkv does not compute are refused at the argument that asks for
 * one, never computed some other way */
Test(interp, a_norm_qkv_does_not_compute_should_be_refused_at_its_argument)
{
	static const struct refused bad[] = {
		{ "torch.norm(x, p='nuc')", "qkv computes vector norms: the 'nuc' norm is not supported", 15 },
		{ "x.norm(p=3)", "qkv computes the norms of order 0, 1, 2, inf and -inf: p=3 is not supported", 8 },
		{ "torch.linalg.norm(x, ord=2)", "qkv computes torch.linalg.norm with ord=None only (a vector's or a "
		  "matrix's 2-norm): use torch.linalg.vector_norm for another order", 22 },
		{ "np.linalg.norm(a, ord=2)", "qkv computes vector norms: a matrix norm (ord of a 2-D array or of two "
		  "axes) is not supported", 19 },
		{ "np.linalg.norm(a[0], ord=3)", "qkv computes the norms of order 0, 1, 2, inf and -inf: ord=3 is not "
		  "supported", 22 },
	};
	struct interp *I = fresh();
	show(I, "import torch\nimport numpy as np\nx = torch.ones(2, 3)\na = np.ones((2, 3))");
	expect_refused(I, bad, sizeof bad / sizeof bad[0]);
	interp_free(I);
	strbuf_free(&printed);
}

/* the operators' function forms refuse what qkv would not compute as torch
 * does, at the argument */
Test(interp, an_operator_form_qkv_does_not_compute_should_be_refused_at_its_argument)
{
	static const struct refused bad[] = {
		{ "torch.add(x, 1, alpha=2)", "qkv's torch.add takes alpha=1 only: write x + alpha * y", 17 },
		{ "x.sub(1, alpha=0.5)", "qkv's sub takes alpha=1 only: write x - alpha * y", 10 },
		{ "torch.div(x, 2, rounding_mode='trunc')", "qkv does not divide with rounding_mode='trunc'; 'floor' (or //) "
		  "rounds towards minus infinity", 17 },
	};
	struct interp *I = fresh();
	show(I, "import torch\nx = torch.ones(2)");
	expect_refused(I, bad, sizeof bad / sizeof bad[0]);
	cr_assert_str_eq(show(I, "x"), "tensor([1., 1.])\n");
	interp_free(I);
	strbuf_free(&printed);
}
