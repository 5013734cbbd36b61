/* ops_norm.c: layer normalisation as torch 1.13's CPU kernel computes it
 * (nn.LayerNorm, F.layer_norm). Each row of the last dims is normalised by
 * its mean and biased variance, which torch finds with Welford's algorithm
 * over the lanes of its AVX2 vectors (8 floats or 4 doubles) in chunks of
 * 16, the chunks' moments summed in a cascade, the lanes combined after the
 * tail; then y = (x·rstd + (-rstd·mean))·w + b, each operation rounded in
 * the tensor's type; the two multiply-adds of y are fused, as torch's
 * compiler fused them (its moments are not). Done here in the same order,
 * checked against torch to the last bit. */
#include "core/ops.h"
#include "core/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LANES_MAX 8
#define CHUNK 16

/* One type's arithmetic: each result rounded to float when f32. */
static inline double rnd(bool f32, double v)
{
	return f32 ? (double)(float)v : v;
}

/* a·b + c rounded once: where torch's compiler fused the two */
static inline double fmadd(bool f32, double a, double b, double c)
{
	return f32 ? (double)fmaf((float)a, (float)b, (float)c) : fma(a, b, c);
}

struct moments {
	int64_t m0;
	double m1[LANES_MAX], m2[LANES_MAX];
};

/* AddMomentsVec: (m0_add, a1, a2) into (*m0, m1, m2), lane by lane. */
static void add_moments_vec(bool f32, int lanes, int64_t m0_add, const double *a1, const double *a2, int64_t *m0,
			    double *m1, double *m2)
{
	int64_t n = *m0 + m0_add;
	double c = n == 0 ? 0 : rnd(f32, (double)m0_add / (double)n);
	double cm0 = rnd(f32, (double)*m0);
	for (int e = 0; e < lanes; e++) {
		double delta = rnd(f32, a1[e] - m1[e]);
		m1[e] = rnd(f32, m1[e] + rnd(f32, c * delta));
		double t = rnd(f32, rnd(f32, rnd(f32, delta * delta) * c) * cm0);
		m2[e] = rnd(f32, m2[e] + rnd(f32, a2[e] + t));
	}
	*m0 = n;
}

/* RowwiseMoments: the mean and the biased variance of x[0..n). */
static void row_moments(bool f32, const double *x, int64_t n, double *mean, double *var)
{
	int lanes = f32 ? 8 : 4;
	int64_t vecs = n / lanes, chunks = (vecs + CHUNK - 1) / CHUNK;
	int depth = 1;	/* CeilLog2(chunks), at least 1 */
	while (((int64_t)1 << depth) < chunks)
		depth++;
	struct moments stk[64];
	memset(stk, 0, sizeof stk[0] * (size_t)depth);
	for (int64_t i = 0; i < chunks; i++) {
		const double *xp = x + i * CHUNK * lanes;
		int64_t m0 = vecs - i * CHUNK < CHUNK ? vecs - i * CHUNK : CHUNK;
		double m1[LANES_MAX] = { 0 }, m2[LANES_MAX] = { 0 };
		for (int64_t j = 0; j < m0; j++) {
			double c = rnd(f32, 1.0 / (double)(j + 1));
			for (int e = 0; e < lanes; e++) {
				double xv = xp[j * lanes + e];
				double delta = rnd(f32, xv - m1[e]);
				m1[e] = rnd(f32, m1[e] + rnd(f32, delta * c));
				m2[e] = rnd(f32, m2[e] + rnd(f32, delta * rnd(f32, xv - m1[e])));
			}
		}
		add_moments_vec(f32, lanes, m0, m1, m2, &stk[0].m0, stk[0].m1, stk[0].m2);
		int64_t mask = i + 1;
		for (int j = 1; j < depth && (mask & 1) == 0; j++) {
			add_moments_vec(f32, lanes, stk[j - 1].m0, stk[j - 1].m1, stk[j - 1].m2, &stk[j].m0, stk[j].m1,
					stk[j].m2);
			memset(&stk[j - 1], 0, sizeof stk[j - 1]);
			mask >>= 1;
		}
	}
	for (int i = 1; i < depth; i++)
		add_moments_vec(f32, lanes, stk[i].m0, stk[i].m1, stk[i].m2, &stk[0].m0, stk[0].m1, stk[0].m2);
	/* the tail, one by one, then each lane's moments added to it */
	int64_t m0 = 0;
	double m1 = 0, m2 = 0;
	for (int64_t i = vecs * lanes; i < n; i++) {
		double delta = rnd(f32, x[i] - m1);
		m0++;
		m1 = rnd(f32, m1 + rnd(f32, delta / (double)m0));
		m2 = rnd(f32, m2 + rnd(f32, delta * rnd(f32, x[i] - m1)));
	}
	for (int e = 0; e < lanes; e++)
		add_moments_vec(f32, 1, vecs, &stk[0].m1[e], &stk[0].m2[e], &m0, &m1, &m2);
	*mean = m1;
	*var = rnd(f32, m2 / (double)n);
}

/* "[2, 3]", as torch's messages write a shape */
static const char *int_list(char *buf, size_t size, int n, const int64_t *v)
{
	size_t at = (size_t)snprintf(buf, size, "[");
	for (int i = 0; i < n && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, i ? ", %lld" : "%lld", (long long)v[i]);
	if (at < size)
		snprintf(buf + at, size - at, "]");
	return buf;
}

struct tensor *ops_layer_norm(struct tensor *x, int ndims, const int64_t *shape, const struct tensor *w,
			      const struct tensor *b, double eps, struct qkv_error *err)
{
	if (!dtype_is_float(x->dtype))
		return error_set(err, 0, 0, "RuntimeError: \"LayerNormKernelImpl\" not implemented for '%s'",
				 x->dtype == DT_I64 ? "Long" : "Bool"),
		       NULL;
	bool fits = x->ndim >= ndims;
	for (int i = 0; fits && i < ndims; i++)
		fits = x->shape[x->ndim - ndims + i] == shape[i];
	if (!fits) {
		char want[160], got[160];
		int_list(want, sizeof want, ndims, shape);
		want[strlen(want) - 1] = '\0';	/* "[4": torch writes "[*, 4]" after it */
		return error_set(err, 0, 0, "RuntimeError: Given normalized_shape=%s], expected input with shape "
				 "[*, %s], but got input of size%s", want, want + 1,
				 int_list(got, sizeof got, x->ndim, x->shape)),
		       NULL;
	}
	for (int k = 0; k < 2; k++) {
		const struct tensor *a = k == 0 ? w : b;
		bool same = !a || a->ndim == ndims;
		for (int i = 0; same && a && i < ndims; i++)
			same = a->shape[i] == shape[i];
		if (!same) {
			char want[160], got[160];
			return error_set(err, 0, 0, "RuntimeError: Expected %s to be of same shape as normalized_shape, "
					 "but got %s of shape %s and normalized_shape = %s", k ? "bias" : "weight",
					 k ? "bias" : "weight", int_list(got, sizeof got, a->ndim, a->shape),
					 int_list(want, sizeof want, ndims, shape)),
			       NULL;
		}
	}
	bool f32 = x->dtype == DT_F32;
	struct tensor *c = ops_clone(x);	/* rows in order, computed in place */
	int64_t cols = 1;
	for (int i = 0; i < ndims; i++)
		cols *= shape[i];
	int64_t rows = cols ? tensor_numel(c) / cols : 0;
	double *row = xmalloc((size_t)(cols > 0 ? cols : 1) * sizeof *row);
	double feps = rnd(f32, eps);
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t k = 0; k < cols; k++)
			row[k] = tensor_get(c, r * cols + k);
		double mean, var;
		row_moments(f32, row, cols, &mean, &var);
		double rstd = rnd(f32, 1.0 / rnd(f32, sqrt(rnd(f32, var + feps))));
		double shift = rnd(f32, -rstd * mean);
		for (int64_t k = 0; k < cols; k++) {
			/* (times 1 and plus 0 without weight or bias, as torch: -0 becomes 0) */
			double y = fmadd(f32, row[k], rstd, shift);
			y = fmadd(f32, y, w ? tensor_get(w, k) : 1.0, b ? tensor_get(b, k) : 0.0);
			tensor_set(c, r * cols + k, y);
		}
	}
	free(row);
	return c;
}
