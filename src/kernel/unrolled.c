/* unrolled.c: loops.c's matmul, row softmax and attention head with every
 * long sum unrolled by KERNEL_UNROLL (4) into independent accumulators s0..s3,
 * merged at the end as (s0 + s1) + (s2 + s3): the form a person or a compiler
 * writes before vectorising, shown to students as the middle variant.
 *
 * Why it is faster: in `sum += a * b` each addition waits for the one before
 * (a chain as long as k, one add latency per term). Four partial sums are four
 * chains the CPU runs side by side (and the matmul's, summed for a block of
 * columns at once, read b row by row where the loops walk down its columns). The build has no -ffast-math, so the
 * compiler may not do this itself: changing the order of a float sum changes
 * its last digits. That is also why unrolled and loops agree only within a
 * tolerance (kernel.h), not bit for bit; the maximum is exact either way.
 *
 * Plain C, no vector types; stops and counts its work as loops.c does. */
#include "kernel/ctl.h"
#include "kernel/kernel.h"

#include <math.h>

/* ---- the unrolled sums ---------------------------------------------------------
 * dot4: sum over p < n of a[p] · b[p]: term p goes to s(p mod 4), the last
 * n mod 4 terms to s0, s1, s2 in order; a query against a key. */
static float dot4_f32(const float *a, const float *b, int64_t n)
{
	float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
	int64_t p = 0;
	for (; p + 4 <= n; p += 4) {
		s0 += a[p] * b[p];
		s1 += a[p + 1] * b[p + 1];
		s2 += a[p + 2] * b[p + 2];
		s3 += a[p + 3] * b[p + 3];
	}
	if (p < n)
		s0 += a[p] * b[p];
	if (p + 1 < n)
		s1 += a[p + 1] * b[p + 1];
	if (p + 2 < n)
		s2 += a[p + 2] * b[p + 2];
	return (s0 + s1) + (s2 + s3);
}

static double dot4_f64(const double *a, const double *b, int64_t n)
{
	double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
	int64_t p = 0;
	for (; p + 4 <= n; p += 4) {
		s0 += a[p] * b[p];
		s1 += a[p + 1] * b[p + 1];
		s2 += a[p + 2] * b[p + 2];
		s3 += a[p + 3] * b[p + 3];
	}
	if (p < n)
		s0 += a[p] * b[p];
	if (p + 1 < n)
		s1 += a[p + 1] * b[p + 1];
	if (p + 2 < n)
		s2 += a[p + 2] * b[p + 2];
	return (s0 + s1) + (s2 + s3);
}

/* vecmat4: o[c] = sum over p < k of w[p] · v[p, c] for each c < n (w is a
 * row of k, v is (k, n)): every o[c] in four partial sums exactly as dot4
 * (term p to s(p mod 4)), but a block of UNROLLED_COLS columns at a time,
 * their partial sums side by side on the stack, so that v is read row by
 * row as the loops read it, not down its columns (a column walk misses the
 * cache at every step once v is large). A row of a matmul (w a row of a, v
 * the whole b) and an attention's weighted sum (w a row of weights, v the
 * values). */
#define UNROLLED_COLS 64

static void vecmat4_f32(float *o, const float *w, const float *v, int64_t k, int64_t n)
{
	for (int64_t c0 = 0; c0 < n; c0 += UNROLLED_COLS) {
		int64_t nc = n - c0 < UNROLLED_COLS ? n - c0 : UNROLLED_COLS;
		float s0[UNROLLED_COLS] = { 0 }, s1[UNROLLED_COLS] = { 0 };
		float s2[UNROLLED_COLS] = { 0 }, s3[UNROLLED_COLS] = { 0 };
		const float *row = &v[c0];
		int64_t p = 0;
		for (; p + 4 <= k; p += 4, row += 4 * n)
			for (int64_t c = 0; c < nc; c++) {
				s0[c] += w[p] * row[c];
				s1[c] += w[p + 1] * row[n + c];
				s2[c] += w[p + 2] * row[2 * n + c];
				s3[c] += w[p + 3] * row[3 * n + c];
			}
		for (int64_t c = 0; c < nc; c++) {
			if (p < k)
				s0[c] += w[p] * row[c];
			if (p + 1 < k)
				s1[c] += w[p + 1] * row[n + c];
			if (p + 2 < k)
				s2[c] += w[p + 2] * row[2 * n + c];
			o[c0 + c] = (s0[c] + s1[c]) + (s2[c] + s3[c]);
		}
	}
}

static void vecmat4_f64(double *o, const double *w, const double *v, int64_t k, int64_t n)
{
	for (int64_t c0 = 0; c0 < n; c0 += UNROLLED_COLS) {
		int64_t nc = n - c0 < UNROLLED_COLS ? n - c0 : UNROLLED_COLS;
		double s0[UNROLLED_COLS] = { 0 }, s1[UNROLLED_COLS] = { 0 };
		double s2[UNROLLED_COLS] = { 0 }, s3[UNROLLED_COLS] = { 0 };
		const double *row = &v[c0];
		int64_t p = 0;
		for (; p + 4 <= k; p += 4, row += 4 * n)
			for (int64_t c = 0; c < nc; c++) {
				s0[c] += w[p] * row[c];
				s1[c] += w[p + 1] * row[n + c];
				s2[c] += w[p + 2] * row[2 * n + c];
				s3[c] += w[p + 3] * row[3 * n + c];
			}
		for (int64_t c = 0; c < nc; c++) {
			if (p < k)
				s0[c] += w[p] * row[c];
			if (p + 1 < k)
				s1[c] += w[p + 1] * row[n + c];
			if (p + 2 < k)
				s2[c] += w[p + 2] * row[2 * n + c];
			o[c0 + c] = (s0[c] + s1[c]) + (s2[c] + s3[c]);
		}
	}
}

/* ---- matmul ------------------------------------------------------------------
 * c is (m,n), a is (m,k), b is (k,n): as loops.c, each c[i,j] the dot product
 * of row i of a with column j of b, in four partial sums; a row of c at a
 * time (vecmat4). */
void matmul_f32_unrolled(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n)
{
	for (int64_t i = 0; i < m; i++) {
		if (ctl_stop())
			return;
		vecmat4_f32(&c[i * n], &a[i * k], b, k, n);
		ctl_done(k * n);
	}
}

void matmul_f64_unrolled(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
	for (int64_t i = 0; i < m; i++) {
		if (ctl_stop())
			return;
		vecmat4_f64(&c[i * n], &a[i * k], b, k, n);
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
				hidden ? -INFINITY : dot4_f32(&q[q_idx * d], &k[k_idx * d], d) * scale;
		}
	}

	softmax_rows_f32_unrolled(weights, weights, tq, tk);

	for (int64_t row = 0; row < tq; row++) {
		if (ctl_stop())
			return;
		ctl_done(tk * dv);
		vecmat4_f32(&out[row * dv], &weights[row * tk], v, tk, dv);
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
				hidden ? -INFINITY : dot4_f64(&q[q_idx * d], &k[k_idx * d], d) * scale;
		}
	}

	softmax_rows_f64_unrolled(weights, weights, tq, tk);

	for (int64_t row = 0; row < tq; row++) {
		if (ctl_stop())
			return;
		ctl_done(tk * dv);
		vecmat4_f64(&out[row * dv], &weights[row * tk], v, tk, dv);
	}
}
