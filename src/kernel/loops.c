/* loops.c: matmul, row softmax and one attention head as plain for-loops, the
 * "unravelled" attention of the notebook (seed 003) and the reference forever.
 * Called via kernel.h and shown to students beside the simd twins: no blocking,
 * no hand vectorisation; never allocates, prints or touches global state.
 * Each row starts by asking ctl_stop() whether Ctrl-C asked to stop (the
 * kernel then returns, its output partial) and ends by counting its work
 * for the progress line (ctl_done): see kernel.h. */
#include "kernel/ctl.h"
#include "kernel/kernel.h"

#include <math.h>

/* ---- matmul --------------------------------------------------------------
 * c is (m,n), a is (m,k), b is (k,n).
 * Every entry of c is one dot product: row i of a with column j of b.
 *
 *         k                n                n
 *    +---------+      +---------+      +---------+
 *  m | row i   |  ·  k|    col j|  =  m |   c[i,j]|
 *    +---------+      +---------+      +---------+
 */
void matmul_f32_loops(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n)
{
	for (int64_t i = 0; i < m; i++) {
		if (ctl_stop())
			return;
		for (int64_t j = 0; j < n; j++) {
			float sum = 0.0f;
			for (int64_t p = 0; p < k; p++)
				sum += a[i * k + p] * b[p * n + j];
			c[i * n + j] = sum;
		}
		ctl_done(k * n);
	}
}

/* c is (m,n), a is (m,k), b is (k,n); the same loops in double precision. */
void matmul_f64_loops(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
	for (int64_t i = 0; i < m; i++) {
		if (ctl_stop())
			return;
		for (int64_t j = 0; j < n; j++) {
			double sum = 0.0;
			for (int64_t p = 0; p < k; p++)
				sum += a[i * k + p] * b[p * n + j];
			c[i * n + j] = sum;
		}
		ctl_done(k * n);
	}
}

/* ---- softmax ---------------------------------------------------------------
 * dst and src are (rows, cols); dst may equal src.
 * softmax(x)[j] = exp(x[j]) / sum over t of exp(x[t]), one row at a time.
 * Subtracting the row maximum first changes nothing mathematically (it
 * cancels between top and bottom) but keeps exp from overflowing: the
 * largest term becomes exp(0) = 1.
 * Special rows, the same in the simd variant:
 *   all -inf (a fully masked row): every exp(-inf) is 0, and 0/0 is NaN, so
 *     the whole row is NaN, as in torch (there is nothing to attend to);
 *   any NaN: the whole row is NaN;
 *   any +inf (and no NaN): inf - inf is NaN, so the whole row is NaN, as in torch. */
void softmax_rows_f32_loops(float *dst, const float *src, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *x = &src[r * cols];
		float *y = &dst[r * cols];
		if (ctl_stop())
			return;
		ctl_done(cols);

		/* 1. the largest entry of the row (a NaN, once seen, sticks) */
		float max = -INFINITY;
		for (int64_t j = 0; j < cols; j++)
			if (x[j] > max || x[j] != x[j])
				max = x[j];

		/* a row of -inf only: 0/0, every weight is NaN */
		if (max == -INFINITY) {
			for (int64_t j = 0; j < cols; j++)
				y[j] = NAN;
			continue;
		}

		/* 2. exponentiate the shifted entries and add them up */
		float sum = 0.0f;
		for (int64_t j = 0; j < cols; j++) {
			y[j] = expf(x[j] - max);
			sum += y[j];
		}

		/* 3. divide so the row sums to 1 */
		for (int64_t j = 0; j < cols; j++)
			y[j] = y[j] / sum;
	}
}

/* dst and src are (rows, cols); the same loops in double precision. */
void softmax_rows_f64_loops(double *dst, const double *src, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		const double *x = &src[r * cols];
		double *y = &dst[r * cols];
		if (ctl_stop())
			return;
		ctl_done(cols);

		double max = -INFINITY;
		for (int64_t j = 0; j < cols; j++)
			if (x[j] > max || x[j] != x[j])
				max = x[j];

		if (max == -INFINITY) {
			for (int64_t j = 0; j < cols; j++)
				y[j] = NAN;
			continue;
		}

		double sum = 0.0;
		for (int64_t j = 0; j < cols; j++) {
			y[j] = exp(x[j] - max);
			sum += y[j];
		}

		for (int64_t j = 0; j < cols; j++)
			y[j] = y[j] / sum;
	}
}

/* ---- attention for one head ------------------------------------------------
 * out is (tq,dv), weights is (tq,tk), q is (tq,d), k is (tk,d), v is (tk,dv);
 * mask is NULL or (tq,tk) bytes, nonzero meaning "may not look".
 * The notebook's loops, step by step:
 *   1. for each query q_idx and each key k_idx, the score is the dot product
 *      of the two vectors, times scale (1/sqrt(d) in a transformer); a key
 *      the query may not see (in the future when causal, or masked) gets
 *      -inf instead, and the dot product is skipped;
 *   2. softmax each row of scores, so the weights of a query sum to 1
 *      (a masked score becomes a weight of exactly 0);
 *   3. each output row is the weighted sum of the value vectors:
 *      out[row] = sum over v_idx of weights[row, v_idx] * v[v_idx]. */
void attention_f32_loops(float *out, float *weights, const float *q, const float *k,
			 const float *v, const uint8_t *mask, bool causal, float scale,
			 int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	/* 1. scores: how well does each query match each key? */
	for (int64_t q_idx = 0; q_idx < tq; q_idx++) {
		const float *query = &q[q_idx * d];
		if (ctl_stop())
			return;
		ctl_done(tk * d);
		for (int64_t k_idx = 0; k_idx < tk; k_idx++) {
			const float *key = &k[k_idx * d];
			float *att = &weights[q_idx * tk + k_idx];

			/* no looking at future tokens, nor at masked ones */
			bool hidden = (causal && k_idx > q_idx) ||
				      (mask != NULL && mask[q_idx * tk + k_idx] != 0);
			if (hidden) {
				*att = -INFINITY;
				continue;
			}

			float similarity = 0.0f;
			for (int64_t c = 0; c < d; c++)
				similarity += query[c] * key[c];
			*att = similarity * scale;
		}
	}

	/* 2. softmax each row, so each query's weights sum to 1 */
	softmax_rows_f32_loops(weights, weights, tq, tk);

	/* 3. each output row is a weighted sum of all the value vectors */
	for (int64_t row = 0; row < tq; row++) {
		const float *a = &weights[row * tk];
		float *o = &out[row * dv];
		if (ctl_stop())
			return;
		ctl_done(tk * dv);

		for (int64_t c = 0; c < dv; c++)
			o[c] = 0.0f;
		for (int64_t v_idx = 0; v_idx < tk; v_idx++) {
			const float *value = &v[v_idx * dv];
			for (int64_t c = 0; c < dv; c++)
				o[c] += a[v_idx] * value[c];
		}
	}
}

/* out is (tq,dv), weights is (tq,tk), q is (tq,d), k is (tk,d), v is (tk,dv);
 * the same three steps in double precision. */
void attention_f64_loops(double *out, double *weights, const double *q, const double *k,
			 const double *v, const uint8_t *mask, bool causal, double scale,
			 int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	for (int64_t q_idx = 0; q_idx < tq; q_idx++) {
		const double *query = &q[q_idx * d];
		if (ctl_stop())
			return;
		ctl_done(tk * d);
		for (int64_t k_idx = 0; k_idx < tk; k_idx++) {
			const double *key = &k[k_idx * d];
			double *att = &weights[q_idx * tk + k_idx];

			bool hidden = (causal && k_idx > q_idx) ||
				      (mask != NULL && mask[q_idx * tk + k_idx] != 0);
			if (hidden) {
				*att = -INFINITY;
				continue;
			}

			double similarity = 0.0;
			for (int64_t c = 0; c < d; c++)
				similarity += query[c] * key[c];
			*att = similarity * scale;
		}
	}

	softmax_rows_f64_loops(weights, weights, tq, tk);

	for (int64_t row = 0; row < tq; row++) {
		const double *a = &weights[row * tk];
		double *o = &out[row * dv];
		if (ctl_stop())
			return;
		ctl_done(tk * dv);

		for (int64_t c = 0; c < dv; c++)
			o[c] = 0.0;
		for (int64_t v_idx = 0; v_idx < tk; v_idx++) {
			const double *value = &v[v_idx * dv];
			for (int64_t c = 0; c < dv; c++)
				o[c] += a[v_idx] * value[c];
		}
	}
}
