/* unrolled.c: loops.c's matmul, row softmax and attention head with every
 * long sum unrolled by KERNEL_UNROLL (4) into independent accumulators s0..s3,
 * merged at the end as (s0 + s1) + (s2 + s3): the form a person or a compiler
 * writes before vectorising, shown to students as the middle variant.
 *
 * Why it is faster: in `sum += a * b` each addition waits for the one before
 * (a chain as long as k, one add latency per term). Four partial sums are four
 * chains the CPU runs side by side. The build has no -ffast-math, so the
 * compiler may not do this itself: changing the order of a float sum changes
 * its last digits. That is also why unrolled and loops agree only within a
 * tolerance (kernel.h), not bit for bit; the maximum is exact either way.
 *
 * Plain C, no vector types; stops and counts its work as loops.c does. */
#include "kernel/ctl.h"
#include "kernel/kernel.h"

#include <math.h>

/* ---- the unrolled sums -------------------------------------------------------
 * sum over p < n of a[p·sa] · b[p·sb]: term p goes to s(p mod 4); the last
 * n mod 4 terms to s0, s1, s2 in order. One helper serves the matmul (a row
 * against a column, sb = n), the scores (a query against a key) and the
 * weighted sums (a row of weights against a column of values, sb = dv). */
static float dot4_f32(const float *a, int64_t sa, const float *b, int64_t sb, int64_t n)
{
	float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
	int64_t p = 0;
	for (; p + 4 <= n; p += 4) {
		s0 += a[p * sa] * b[p * sb];
		s1 += a[(p + 1) * sa] * b[(p + 1) * sb];
		s2 += a[(p + 2) * sa] * b[(p + 2) * sb];
		s3 += a[(p + 3) * sa] * b[(p + 3) * sb];
	}
	if (p < n)
		s0 += a[p * sa] * b[p * sb];
	if (p + 1 < n)
		s1 += a[(p + 1) * sa] * b[(p + 1) * sb];
	if (p + 2 < n)
		s2 += a[(p + 2) * sa] * b[(p + 2) * sb];
	return (s0 + s1) + (s2 + s3);
}

static double dot4_f64(const double *a, int64_t sa, const double *b, int64_t sb, int64_t n)
{
	double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
	int64_t p = 0;
	for (; p + 4 <= n; p += 4) {
		s0 += a[p * sa] * b[p * sb];
		s1 += a[(p + 1) * sa] * b[(p + 1) * sb];
		s2 += a[(p + 2) * sa] * b[(p + 2) * sb];
		s3 += a[(p + 3) * sa] * b[(p + 3) * sb];
	}
	if (p < n)
		s0 += a[p * sa] * b[p * sb];
	if (p + 1 < n)
		s1 += a[(p + 1) * sa] * b[(p + 1) * sb];
	if (p + 2 < n)
		s2 += a[(p + 2) * sa] * b[(p + 2) * sb];
	return (s0 + s1) + (s2 + s3);
}

/* ---- weighted sums ------------------------------------------------------------
 * o[c] = sum over p < tk of w[p] · v[p, c] for c < dv (v is (tk, dv)): each
 * o[c] in four partial sums exactly as dot4 above (term p to s(p mod 4)),
 * but a block of columns at a time, the partial sums of UNROLLED_COLS
 * columns side by side on the stack, so that v is read row by row as the
 * loops read it, not down its columns. */
#define UNROLLED_COLS 64

static void weighted_sum_f32(float *o, const float *w, const float *v, int64_t tk, int64_t dv)
{
	for (int64_t c0 = 0; c0 < dv; c0 += UNROLLED_COLS) {
		int64_t nc = dv - c0 < UNROLLED_COLS ? dv - c0 : UNROLLED_COLS;
		float s0[UNROLLED_COLS] = { 0 }, s1[UNROLLED_COLS] = { 0 };
		float s2[UNROLLED_COLS] = { 0 }, s3[UNROLLED_COLS] = { 0 };
		const float *row = &v[c0];
		int64_t p = 0;
		for (; p + 4 <= tk; p += 4, row += 4 * dv)
			for (int64_t c = 0; c < nc; c++) {
				s0[c] += w[p] * row[c];
				s1[c] += w[p + 1] * row[dv + c];
				s2[c] += w[p + 2] * row[2 * dv + c];
				s3[c] += w[p + 3] * row[3 * dv + c];
			}
		for (int64_t c = 0; c < nc; c++) {
			if (p < tk)
				s0[c] += w[p] * row[c];
			if (p + 1 < tk)
				s1[c] += w[p + 1] * row[dv + c];
			if (p + 2 < tk)
				s2[c] += w[p + 2] * row[2 * dv + c];
			o[c0 + c] = (s0[c] + s1[c]) + (s2[c] + s3[c]);
		}
	}
}

static void weighted_sum_f64(double *o, const double *w, const double *v, int64_t tk, int64_t dv)
{
	for (int64_t c0 = 0; c0 < dv; c0 += UNROLLED_COLS) {
		int64_t nc = dv - c0 < UNROLLED_COLS ? dv - c0 : UNROLLED_COLS;
		double s0[UNROLLED_COLS] = { 0 }, s1[UNROLLED_COLS] = { 0 };
		double s2[UNROLLED_COLS] = { 0 }, s3[UNROLLED_COLS] = { 0 };
		const double *row = &v[c0];
		int64_t p = 0;
		for (; p + 4 <= tk; p += 4, row += 4 * dv)
			for (int64_t c = 0; c < nc; c++) {
				s0[c] += w[p] * row[c];
				s1[c] += w[p + 1] * row[dv + c];
				s2[c] += w[p + 2] * row[2 * dv + c];
				s3[c] += w[p + 3] * row[3 * dv + c];
			}
		for (int64_t c = 0; c < nc; c++) {
			if (p < tk)
				s0[c] += w[p] * row[c];
			if (p + 1 < tk)
				s1[c] += w[p + 1] * row[dv + c];
			if (p + 2 < tk)
				s2[c] += w[p + 2] * row[2 * dv + c];
			o[c0 + c] = (s0[c] + s1[c]) + (s2[c] + s3[c]);
		}
	}
}

/* ---- matmul ------------------------------------------------------------------
 * c is (m,n), a is (m,k), b is (k,n): as loops.c, each c[i,j] the dot product
 * of row i of a with column j of b, summed in four partial sums. */
void matmul_f32_unrolled(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n)
{
	for (int64_t i = 0; i < m; i++) {
		if (ctl_stop())
			return;
		for (int64_t j = 0; j < n; j++)
			c[i * n + j] = dot4_f32(&a[i * k], 1, &b[j], n, k);
		ctl_done(k * n);
	}
}

void matmul_f64_unrolled(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
	for (int64_t i = 0; i < m; i++) {
		if (ctl_stop())
			return;
		for (int64_t j = 0; j < n; j++)
			c[i * n + j] = dot4_f64(&a[i * k], 1, &b[j], n, k);
		ctl_done(k * n);
	}
}

/* ---- softmax -----------------------------------------------------------------
 * dst and src are (rows, cols); dst may equal src. loops.c's three steps, the
 * maximum and the sum each in four partials; the special rows (all -inf, a
 * NaN, a +inf) come out as in loops.c. */

/* the larger of two running maxima; a NaN in either sticks */
static float max_nan_f32(float m, float x)
{
	return (x > m || x != x) ? x : m;
}

static double max_nan_f64(double m, double x)
{
	return (x > m || x != x) ? x : m;
}

static void softmax_row_f32(float *y, const float *x, int64_t cols)
{
	/* 1. the maximum, four running maxima merged */
	float m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
	int64_t j = 0;
	for (; j + 4 <= cols; j += 4) {
		m0 = max_nan_f32(m0, x[j]);
		m1 = max_nan_f32(m1, x[j + 1]);
		m2 = max_nan_f32(m2, x[j + 2]);
		m3 = max_nan_f32(m3, x[j + 3]);
	}
	for (; j < cols; j++)
		m0 = max_nan_f32(m0, x[j]);
	float max = max_nan_f32(max_nan_f32(m0, m1), max_nan_f32(m2, m3));

	if (max == -INFINITY) {
		for (j = 0; j < cols; j++)
			y[j] = NAN;
		return;
	}

	/* 2. exponentiate, four partial sums */
	float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
	for (j = 0; j + 4 <= cols; j += 4) {
		y[j] = expf(x[j] - max);
		y[j + 1] = expf(x[j + 1] - max);
		y[j + 2] = expf(x[j + 2] - max);
		y[j + 3] = expf(x[j + 3] - max);
		s0 += y[j];
		s1 += y[j + 1];
		s2 += y[j + 2];
		s3 += y[j + 3];
	}
	/* the last cols mod 4 terms: to s0, s1, s2 in order */
	for (int64_t t = j; t < cols; t++)
		y[t] = expf(x[t] - max);
	if (j < cols)
		s0 += y[j];
	if (j + 1 < cols)
		s1 += y[j + 1];
	if (j + 2 < cols)
		s2 += y[j + 2];
	float sum = (s0 + s1) + (s2 + s3);

	/* 3. divide so the row sums to 1 */
	for (j = 0; j < cols; j++)
		y[j] = y[j] / sum;
}

static void softmax_row_f64(double *y, const double *x, int64_t cols)
{
	double m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
	int64_t j = 0;
	for (; j + 4 <= cols; j += 4) {
		m0 = max_nan_f64(m0, x[j]);
		m1 = max_nan_f64(m1, x[j + 1]);
		m2 = max_nan_f64(m2, x[j + 2]);
		m3 = max_nan_f64(m3, x[j + 3]);
	}
	for (; j < cols; j++)
		m0 = max_nan_f64(m0, x[j]);
	double max = max_nan_f64(max_nan_f64(m0, m1), max_nan_f64(m2, m3));

	if (max == -INFINITY) {
		for (j = 0; j < cols; j++)
			y[j] = NAN;
		return;
	}

	double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
	for (j = 0; j + 4 <= cols; j += 4) {
		y[j] = exp(x[j] - max);
		y[j + 1] = exp(x[j + 1] - max);
		y[j + 2] = exp(x[j + 2] - max);
		y[j + 3] = exp(x[j + 3] - max);
		s0 += y[j];
		s1 += y[j + 1];
		s2 += y[j + 2];
		s3 += y[j + 3];
	}
	/* the last cols mod 4 terms: to s0, s1, s2 in order */
	for (int64_t t = j; t < cols; t++)
		y[t] = exp(x[t] - max);
	if (j < cols)
		s0 += y[j];
	if (j + 1 < cols)
		s1 += y[j + 1];
	if (j + 2 < cols)
		s2 += y[j + 2];
	double sum = (s0 + s1) + (s2 + s3);

	for (j = 0; j < cols; j++)
		y[j] = y[j] / sum;
}

void softmax_rows_f32_unrolled(float *dst, const float *src, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		if (ctl_stop())
			return;
		ctl_done(cols);
		softmax_row_f32(&dst[r * cols], &src[r * cols], cols);
	}
}

void softmax_rows_f64_unrolled(double *dst, const double *src, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		if (ctl_stop())
			return;
		ctl_done(cols);
		softmax_row_f64(&dst[r * cols], &src[r * cols], cols);
	}
}

/* ---- attention for one head ----------------------------------------------------
 * loops.c's three steps: 1. scores, each an unrolled dot product of a query
 * and a key (hidden keys get -inf); 2. the unrolled softmax of each row;
 * 3. out[row, c], the unrolled sum over v_idx of weights[row, v_idx] ·
 * v[v_idx, c] (weighted_sum; a hidden key's zero weight still multiplies its value, as in
 * loops.c, so an infinite value gives NaN there too). */
void attention_f32_unrolled(float *out, float *weights, const float *q, const float *k,
			    const float *v, const uint8_t *mask, bool causal, float scale,
			    int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	for (int64_t q_idx = 0; q_idx < tq; q_idx++) {
		if (ctl_stop())
			return;
		ctl_done(tk * d);
		for (int64_t k_idx = 0; k_idx < tk; k_idx++) {
			bool hidden = (causal && k_idx > q_idx) ||
				      (mask != NULL && mask[q_idx * tk + k_idx] != 0);
			weights[q_idx * tk + k_idx] =
				hidden ? -INFINITY : dot4_f32(&q[q_idx * d], 1, &k[k_idx * d], 1, d) * scale;
		}
	}

	softmax_rows_f32_unrolled(weights, weights, tq, tk);

	for (int64_t row = 0; row < tq; row++) {
		if (ctl_stop())
			return;
		ctl_done(tk * dv);
		weighted_sum_f32(&out[row * dv], &weights[row * tk], v, tk, dv);
	}
}

void attention_f64_unrolled(double *out, double *weights, const double *q, const double *k,
			    const double *v, const uint8_t *mask, bool causal, double scale,
			    int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	for (int64_t q_idx = 0; q_idx < tq; q_idx++) {
		if (ctl_stop())
			return;
		ctl_done(tk * d);
		for (int64_t k_idx = 0; k_idx < tk; k_idx++) {
			bool hidden = (causal && k_idx > q_idx) ||
				      (mask != NULL && mask[q_idx * tk + k_idx] != 0);
			weights[q_idx * tk + k_idx] =
				hidden ? -INFINITY : dot4_f64(&q[q_idx * d], 1, &k[k_idx * d], 1, d) * scale;
		}
	}

	softmax_rows_f64_unrolled(weights, weights, tq, tk);

	for (int64_t row = 0; row < tq; row++) {
		if (ctl_stop())
			return;
		ctl_done(tk * dv);
		weighted_sum_f64(&out[row * dv], &weights[row * tk], v, tk, dv);
	}
}
