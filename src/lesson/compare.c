/* compare.c: loops against SIMD for one expression (see compare.h), for
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

int compare_run(struct interp *I, compare_eval_fn eval, void *ctx, struct compare *out, struct qkv_error *err)
{
	memset(out, 0, sizeof *out);
	struct ops_ctx *ops = interp_ops(I);
	enum kernel_variant saved = ops->variant;
	out->loops = timed_eval(ops, KERNEL_LOOPS, eval, ctx, &out->loops_ms, err);
	out->simd = out->loops ? timed_eval(ops, KERNEL_SIMD, eval, ctx, &out->simd_ms, err) : NULL;
	/* a short SIMD run is timed a few more times and the best kept, as
	 * timeit does: one run of a millisecond is at the mercy of the machine */
	double spent = out->simd_ms;
	for (int k = 0; out->simd && out->loops_ms >= 1.0 && k < 4 && spent < 20 && out->simd_ms < 10; k++) {
		struct qkv_error again_err;
		double ms;
		struct tensor *again = timed_eval(ops, KERNEL_SIMD, eval, ctx, &ms, &again_err);
		if (!again)
			break;	/* (interrupted: the caller sees the flag) */
		tensor_unref(again);
		spent += ms;
		out->simd_ms = ms < out->simd_ms ? ms : out->simd_ms;
	}
	ops->variant = saved;
	if (!out->simd) {
		compare_free(out);
		return -1;
	}
	compare_judge(out->simd, out->loops, out);
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
	out->same_shape = tensor_same_shape(simd, loops);
	out->agree = out->same_shape;
	out->max_diff = 0;
	int64_t n = out->same_shape ? tensor_numel(simd) : 0;
	for (int64_t i = 0; i < n; i++) {
		double b = tensor_get(loops, i), d = compare_diff(tensor_get(simd, i), b);
		if (d == 0)
			continue;
		if (d > out->max_diff)
			out->max_diff = d;
		if (!(d <= COMPARE_ATOL + COMPARE_RTOL * fabs(b)))
			out->agree = false;
	}
}

void compare_free(struct compare *c)
{
	tensor_unref(c->loops);
	tensor_unref(c->simd);
	memset(c, 0, sizeof *c);
}
