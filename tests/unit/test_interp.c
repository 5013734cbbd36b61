/* test_interp.c: the evaluator in-process: statements as transactions, views
 * sharing storage, the workspace API the UI and lessons will use. */
#include "lang/interp.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
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
