/* compare.c: loops against unrolled and SIMD for one expression (see compare.h), for
 * lesson/runner.c's compare shows and lesson/session.c's :show EXPR loops.
 * The one place that switches an interpreter's kernel variant for a
 * comparison and the one rule that says whether two results agree. Never
 * prints, and always leaves the interpreter's variant as it found it. */
#include "lesson/compare.h"
#include "core/clock.h"
#include "core/ops.h"
#include "lang/interp.h"

#include <math.h>
#include <string.h>

/* eval on the given variant, its time in *ms */
static struct tensor *timed_eval(struct ops_ctx *ops, enum kernel_variant kv, compare_eval_fn eval, void *ctx,
				 double *ms, struct qkv_error *err)
{
	ops->variant = kv;
	double t0 = clock_now_ms();
	struct tensor *t = eval(ctx, err);
	*ms = clock_now_ms() - t0;
	return t;
}

/* eval on kv, timed: once, and a short run a few more times, the best
 * kept, as timeit does (one run of a millisecond is at the mercy of the
 * machine), while the loops took at least a millisecond (loops_ms) */
static struct tensor *best_eval(struct ops_ctx *ops, enum kernel_variant kv, compare_eval_fn eval, void *ctx,
				double loops_ms, double *ms, struct qkv_error *err)
{
	struct tensor *t = timed_eval(ops, kv, eval, ctx, ms, err);
	double spent = *ms;
	for (int k = 0; t && loops_ms >= 1.0 && k < 4 && spent < 20 && *ms < 10; k++) {
		struct qkv_error again_err;
		double again_ms;
		struct tensor *again = timed_eval(ops, kv, eval, ctx, &again_ms, &again_err);
		if (!again)
			break;	/* (interrupted: the caller sees the flag) */
		tensor_unref(again);
		spent += again_ms;
		*ms = again_ms < *ms ? again_ms : *ms;
	}
	return t;
}

/* how far got is from the loops' result, by the rule of compare.h */
static void judge(const struct tensor *got, const struct tensor *loops, bool *same_shape, bool *agree,
		  double *max_diff)
{
	*same_shape = tensor_same_shape(got, loops);
	*agree = *same_shape;
	*max_diff = 0;
	int64_t n = *same_shape ? tensor_numel(got) : 0;
	for (int64_t i = 0; i < n; i++) {
		double b = tensor_get(loops, i), d = compare_diff(tensor_get(got, i), b);
		if (d == 0)
			continue;
		if (d > *max_diff)
			*max_diff = d;
		if (!(d <= COMPARE_ATOL + COMPARE_RTOL * fabs(b)))
			*agree = false;
	}
}

int compare_run(struct interp *I, compare_eval_fn eval, void *ctx, struct compare *out, struct qkv_error *err)
{
	memset(out, 0, sizeof *out);
	struct ops_ctx *ops = interp_ops(I);
	enum kernel_variant saved = ops->variant;
	out->loops = timed_eval(ops, KERNEL_LOOPS, eval, ctx, &out->loops_ms, err);
	if (out->loops)
		out->unrolled = best_eval(ops, KERNEL_UNROLLED, eval, ctx, out->loops_ms, &out->unrolled_ms, err);
	if (out->unrolled)
		out->simd = best_eval(ops, KERNEL_SIMD, eval, ctx, out->loops_ms, &out->simd_ms, err);
	ops->variant = saved;
	if (!out->simd) {
		compare_free(out);
		return -1;
	}
	compare_judge(out->simd, out->loops, out);
	bool same_shape;
	judge(out->unrolled, out->loops, &same_shape, &out->unrolled_agree, &out->unrolled_diff);
	return 0;
}

double compare_diff(double a, double b)
{
	if (a == b || (isnan(a) && isnan(b)))
		return 0;
	double d = fabs(a - b);
	return isnan(d) ? INFINITY : d;	/* a NaN against a number */
}

void compare_judge(const struct tensor *simd, const struct tensor *loops, struct compare *out)
{
	judge(simd, loops, &out->same_shape, &out->agree, &out->max_diff);
}

void compare_free(struct compare *c)
{
	tensor_unref(c->loops);
	tensor_unref(c->unrolled);
	tensor_unref(c->simd);
	memset(c, 0, sizeof *c);
}
