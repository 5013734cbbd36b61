/* test_compare.c: the one loops-against-SIMD comparison (lesson/compare.h)
 * in-process: the rule (same shape, allclose with rtol 1e-5 and atol 1e-6,
 * NaN equal to NaN, the largest difference), both kernels really used in
 * order, and the interpreter's kernel variant restored, also on failure. */
#include "lesson/compare.h"
#include "core/ops.h"
#include "lang/interp.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

/* A float64 vector of n values (float64 so the tolerance's edges are exact
 * enough to test). */
static struct tensor *vec(int n, const double *v)
{
	int64_t shape[1] = { n };
	struct tensor *t = tensor_new(DT_F64, FLAVOR_TORCH, 1, shape);
	for (int i = 0; i < n; i++)
		tensor_set(t, i, v[i]);
	return t;
}

static struct compare judged(int n, const double *simd, const double *loops)
{
	struct tensor *a = vec(n, simd), *b = vec(n, loops);
	struct compare c;
	memset(&c, 0, sizeof c);
	compare_judge(a, b, &c);
	tensor_unref(a);
	tensor_unref(b);
	return c;
}

Test(compare, equal_results_should_agree_with_no_difference)
{
	double v[] = { 1, -2.5, 0, 1e30, -INFINITY };
	struct compare c = judged(5, v, v);
	cr_assert(c.same_shape);
	cr_assert(c.agree);
	cr_assert_eq(c.max_diff, 0);
}

Test(compare, a_nan_should_equal_a_nan_and_differ_from_a_number)
{
	double loops[] = { NAN, 1 };
	double same[] = { NAN, 1 };
	struct compare c = judged(2, same, loops);
	cr_assert(c.agree);
	cr_assert_eq(c.max_diff, 0);
	double other[] = { 0.5, 1 };
	c = judged(2, other, loops);
	cr_assert_not(c.agree);
	cr_assert(isinf(c.max_diff) && c.max_diff > 0, "max_diff %g", c.max_diff);
	c = judged(2, loops, other);	/* the NaN on the SIMD side */
	cr_assert_not(c.agree);
	cr_assert(isinf(c.max_diff), "max_diff %g", c.max_diff);
}

Test(compare, different_shapes_should_differ)
{
	double a[] = { 1, 2, 3 };
	struct tensor *x = vec(3, a), *y = vec(2, a);
	struct compare c;
	compare_judge(x, y, &c);
	cr_assert_not(c.same_shape);
	cr_assert_not(c.agree);
	cr_assert_eq(c.max_diff, 0);
	/* the same number of elements in another shape differs too */
	int64_t shape[2] = { 3, 1 };
	struct tensor *z = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	compare_judge(x, z, &c);
	cr_assert_not(c.same_shape);
	cr_assert_not(c.agree);
	tensor_unref(x);
	tensor_unref(y);
	tensor_unref(z);
}

Test(compare, a_difference_just_inside_the_tolerance_should_agree_and_just_outside_should_not)
{
	/* at 1000 the tolerance is 1e-6 + 1e-5 * 1000 = 0.010001 */
	double loops[] = { 1000, 0 };
	double inside[] = { 1000.0100009, 0 };
	struct compare c = judged(2, inside, loops);
	cr_assert(c.agree, "max_diff %.10g", c.max_diff);
	cr_assert_float_eq(c.max_diff, 0.0100009, 1e-9);
	double outside[] = { 1000.0100011, 0 };
	c = judged(2, outside, loops);
	cr_assert_not(c.agree, "max_diff %.10g", c.max_diff);
	cr_assert_float_eq(c.max_diff, 0.0100011, 1e-9);
	/* at 0 only the absolute tolerance counts; the loops side is the reference */
	double near0[] = { 1000, 0.9e-6 };
	cr_assert(judged(2, near0, loops).agree);
	double off0[] = { 1000, 1.1e-6 };
	c = judged(2, off0, loops);
	cr_assert_not(c.agree);
	cr_assert_float_eq(c.max_diff, 1.1e-6, 1e-12);
}

/* ---- compare_run on an interpreter ----------------------------------------------- */

struct probe {
	struct interp *I;
	const char *expr;
	enum kernel_variant seen[8];
	int calls;
};

static struct tensor *eval_probe(void *ctx, struct qkv_error *err)
{
	struct probe *p = ctx;
	if (p->calls < 8)
		p->seen[p->calls] = interp_ops(p->I)->variant;
	p->calls++;
	struct value *v = interp_eval(p->I, p->expr, strlen(p->expr), err);
	if (!v)
		return NULL;
	struct tensor *t = v->kind == V_TENSOR ? tensor_ref(v->t) : NULL;
	value_unref(v);
	if (!t)
		error_set(err, 1, 1, "not a tensor");
	return t;
}

static struct interp *workspace(enum kernel_variant kv)
{
	struct interp *I = interp_new(kv);
	struct qkv_error err;
	const char *src = "torch.manual_seed(1); X = torch.randn(40, 24); Y = torch.randn(24, 33)";
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	return I;
}

Test(compare, run_should_compute_on_loops_unrolled_then_simd_judge_them_and_restore_the_variant)
{
	enum kernel_variant variants[] = { KERNEL_LOOPS, KERNEL_SIMD, KERNEL_UNROLLED };
	for (int v = 0; v < 3; v++) {
		struct interp *I = workspace(variants[v]);
		struct probe p = { I, "torch.softmax(X @ Y, dim=-1)", { 0 }, 0 };
		struct compare c;
		struct qkv_error err;
		cr_assert_eq(compare_run(I, eval_probe, &p, &c, &err), 0, "%s", err.msg);
		cr_assert_eq(interp_ops(I)->variant, variants[v], "the variant was not restored");
		cr_assert_geq(p.calls, 3);
		/* loops once, then unrolled (timed best of a few when short), then SIMD */
		cr_assert_eq(p.seen[0], KERNEL_LOOPS);
		cr_assert_eq(p.seen[1], KERNEL_UNROLLED);
		int k = 1;
		while (k < p.calls && k < 8 && p.seen[k] == KERNEL_UNROLLED)
			k++;
		cr_assert(k < p.calls, "no SIMD call");
		for (; k < p.calls && k < 8; k++)
			cr_assert_eq(p.seen[k], KERNEL_SIMD, "call %d", k);
		cr_assert(c.loops && c.simd && c.unrolled);
		cr_assert_eq(c.simd->shape[0], 40);
		cr_assert_eq(c.simd->shape[1], 33);
		cr_assert(tensor_same_shape(c.unrolled, c.loops));
		cr_assert(c.same_shape && c.agree, "max_diff %g", c.max_diff);
		cr_assert_lt(c.max_diff, 1e-5);
		cr_assert(c.unrolled_agree, "unrolled_diff %g", c.unrolled_diff);
		cr_assert_lt(c.unrolled_diff, 1e-5);
		cr_assert_geq(c.loops_ms, 0);
		cr_assert_geq(c.simd_ms, 0);
		cr_assert_geq(c.unrolled_ms, 0);
		/* the workspace is as it was: nothing was assigned */
		cr_assert_eq(interp_var_count(I), 2);
		compare_free(&c);
		cr_assert(!c.loops && !c.unrolled && !c.simd);
		interp_free(I);
	}
}

Test(compare, a_failing_expression_should_give_its_error_nothing_else_and_restore_the_variant)
{
	struct interp *I = workspace(KERNEL_LOOPS);
	struct probe p = { I, "X @ X", { 0 }, 0 };
	struct compare c;
	struct qkv_error err;
	cr_assert_eq(compare_run(I, eval_probe, &p, &c, &err), -1);
	cr_assert(strstr(err.msg, "cannot be multiplied"), "%s", err.msg);
	cr_assert_eq(err.col, 3);
	cr_assert_null(c.loops);
	cr_assert_null(c.unrolled);
	cr_assert_null(c.simd);
	cr_assert_eq(p.calls, 1, "unrolled or SIMD ran after the loops side failed");
	cr_assert_eq(interp_ops(I)->variant, KERNEL_LOOPS);
	interp_free(I);
}

/* The order of the sums, through ops: in float32, (1e8, 1, -1e8, 1, 1, 1)
 * summed in order gives 3 (only the first 1 is lost against 1e8), in four
 * partial sums merged (s0 + s1) + (s2 + s3) it gives 0 (kernel.h); the rule
 * then says they differ, by 3 */
Test(compare, unrolled_should_sum_in_its_own_order_and_be_judged_by_the_rule)
{
	struct interp *I = interp_new(KERNEL_SIMD);
	struct qkv_error err;
	const char *src = "a = torch.tensor([[1e8, 1., -1e8, 1., 1., 1.]]); b = torch.ones(6, 1)";
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	struct probe p = { I, "a @ b", { 0 }, 0 };
	struct compare c;
	cr_assert_eq(compare_run(I, eval_probe, &p, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(tensor_get(c.loops, 0), 3);
	cr_assert_eq(tensor_get(c.unrolled, 0), 0);
	cr_assert_not(c.unrolled_agree);
	cr_assert_eq(c.unrolled_diff, 3);
	compare_free(&c);
	interp_free(I);
}
