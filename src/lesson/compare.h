/* compare.h: one expression computed on the plain for-loop kernels, on the
 * unrolled ones and on the SIMD kernels, timed, and judged by one rule. A lesson's compare show
 * (runner.c) and the prompt's `:show EXPR loops` (through session.c) both
 * come here, so they can never disagree about whether two results agree.
 * Includes nothing from lang/: callers above lesson/ may read the result. */
#ifndef QKV_LESSON_COMPARE_H
#define QKV_LESSON_COMPARE_H

#include "core/error.h"
#include "core/tensor.h"

#include <stdbool.h>

struct interp;

/* The rule: the SIMD (or unrolled) result agrees with the loops one (the
 * reference) when both have the same shape and every element has
 * |simd - loops| <= COMPARE_ATOL + COMPARE_RTOL * |loops| (torch.allclose
 * with rtol 1e-5 and atol 1e-6), a NaN being equal to a NaN. */
#define COMPARE_RTOL 1e-5
#define COMPARE_ATOL 1e-6

/* How far apart two elements are, for every comparison of results (the
 * loops against SIMD here, a lesson's expected values, an exercise's
 * answer): 0 when equal, infinities of one sign included, or both NaN (a
 * NaN equals a NaN in the same place, as torch.allclose(equal_nan=True));
 * INFINITY when one is NaN and the other is not, or for infinities of
 * opposite signs, so a NaN is never hidden against a number; else |a - b|. */
double compare_diff(double a, double b);

struct compare {
	struct tensor *loops;      /* the loops result (owned: a reference) */
	struct tensor *simd;       /* the SIMD result (owned: a reference) */
	double loops_ms, simd_ms;  /* their times; SIMD's is the best of up to 5 short runs */
	bool same_shape;
	bool agree;                /* same shape and close by the rule above */
	double max_diff;           /* largest |simd - loops| (INFINITY where one is NaN and the
	                              other is not); 0 with different shapes */
	struct tensor *unrolled;   /* the unrolled result (owned: a reference) */
	double unrolled_ms;        /* its time, the best of runs as SIMD's */
	bool unrolled_agree;       /* unrolled against loops, by the same rule (false with
	                              different shapes) */
	double unrolled_diff;      /* largest |unrolled - loops|, as max_diff */
};

/* Computes the expression once, on the kernel variant the interpreter is set
 * to now: a new tensor reference, or NULL with err. It must leave the
 * workspace as it was (interp_eval does). */
typedef struct tensor *(*compare_eval_fn)(void *ctx, struct qkv_error *err);

/* Calls eval with I's kernels set to loops, then to unrolled, then to SIMD
 * (unrolled and SIMD again, up to 4 more times each, while the run is short
 * and the loops one took at least a millisecond: the best time is kept, as
 * timeit does), then judges SIMD's and unrolled's results against the
 * loops' (compare_judge's rule). I's kernel variant is restored whatever happens.
 * Returns 0 with out filled (free it with compare_free), or -1 with err
 * from eval and out holding nothing. */
int compare_run(struct interp *I, compare_eval_fn eval, void *ctx, struct compare *out, struct qkv_error *err);

/* Fills out->same_shape, agree and max_diff from two tensors by the rule
 * above; the tensors are only read (out does not take them). */
void compare_judge(const struct tensor *simd, const struct tensor *loops, struct compare *out);

/* Drops the tensors of c and zeroes it; a zeroed c is fine. */
void compare_free(struct compare *c);

#endif
