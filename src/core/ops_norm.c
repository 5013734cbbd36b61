/* ops_norm.c: layer normalisation and vector norms as torch 1.13's CPU
 * kernels compute them (nn.LayerNorm, F.layer_norm; torch.norm, x.norm,
 * F.normalize). For layer normalisation: Each row of the last dims is normalised by
 * its mean and biased variance, which torch finds with Welford's algorithm
 * over the lanes of its AVX2 vectors (8 floats or 4 doubles) in chunks of
 * 16, the chunks' moments summed in a cascade, the lanes combined after the
 * tail; then y = (x·rstd + (-rstd·mean))·w + b, each operation rounded in
 * the tensor's type; the two multiply-adds of y are fused, as torch's
 * compiler fused them (its moments are not). Done here in the same order,
 * checked against torch to the last bit. */
#include "core/ops_private.h"
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

/* ---- vector norms ------------------------------------------------------------------ */

/* torch's 2-norm of one contiguous row of n in the fast path (a reduction
 * over the innermost dims): the squares fused into 8 (4 for double) lane
 * sums a vector at a time, the lanes added in order, then the tail fused
 * in one by one. */
static double norm2_lanes(bool f32, const double *x, int64_t n)
{
	int lanes = f32 ? 8 : 4;
	double acc[8] = { 0 };
	int64_t d = 0;
	for (; d + lanes <= n; d += lanes)
		for (int e = 0; e < lanes; e++)
			acc[e] = fmadd(f32, x[d + e], x[d + e], acc[e]);
	double s = acc[0];
	for (int e = 1; e < lanes; e++)
		s = rnd(f32, s + acc[e]);
	for (; d < n; d++)
		s = fmadd(f32, x[d], x[d], s);
	return rnd(f32, sqrt(s));
}

/* torch's p-norm of one row in its general reduction: one by one. */
static double norm_seq(bool f32, const double *x, int64_t n, double p)
{
	double acc = isinf(p) && p > 0 ? 0 : isinf(p) ? INFINITY : 0;
	for (int64_t k = 0; k < n; k++) {
		double a = fabs(x[k]);
		if (p == 2)
			acc = fmadd(f32, x[k], x[k], acc);
		else if (p == 1)
			acc = rnd(f32, acc + a);
		else if (p == 0)
			acc = rnd(f32, acc + (x[k] != 0));
		else if (isinf(p))	/* NaN wins, as torch's AbsMaxOps */
			acc = isnan(a) || isnan(acc) ? NAN : p > 0 ? fmax(acc, a) : fmin(acc, a);
	}
	return p == 2 ? rnd(f32, sqrt(acc)) : acc;
}

/* Whether torch reduces t over red in its fast path: t contiguous and the
 * dims reduced all after the ones kept (each kept one of more than 1). */
static bool innermost(const struct tensor *t, const bool *red)
{
	if (!tensor_is_contiguous(t))
		return false;
	bool seen_red = false;
	for (int i = 0; i < t->ndim; i++) {
		if (red[i])
			seen_red = true;
		else if (seen_red && t->shape[i] > 1)
			return false;
	}
	return true;
}

struct tensor *ops_vector_norm(const struct ops_ctx *ctx, struct tensor *t, double p, int ndims, const int *dims,
			       bool keepdim, struct qkv_error *err)
{
	if (!dtype_is_float(t->dtype))
		return error_set(err, 0, 0, "RuntimeError: norm(): input dtype should be either floating point or "
				 "complex. Got %s instead.", t->dtype == DT_I64 ? "Long" : "Bool"),
		       NULL;
	if (!(p == 0 || p == 1 || p == 2 || isinf(p)))
		return error_set(err, 0, 0, "qkv computes the norms of order 0, 1, 2, inf and -inf: p=%g is not "
				 "supported", p),
		       NULL;
	bool red[TENSOR_MAX_DIMS] = { false };
	for (int i = 0; i < ndims; i++)
		red[dims[i]] = true;
	int mem[TENSOR_MAX_DIMS];	/* t's dims in memory order, largest stride first */
	for (int i = 0; i < t->ndim; i++) {
		int j = i;
		for (; j > 0 && llabs(t->strides[mem[j - 1]]) < llabs(t->strides[i]); j--)
			mem[j] = mem[j - 1];
		mem[j] = i;
	}
	if (ndims == 0 && t->ndim > 0) {	/* every dim, read in memory order (torch's iterator does) */
		struct tensor *m = ops_permute(t, mem, t->ndim, err);
		if (!m)
			return NULL;
		int all[TENSOR_MAX_DIMS] = { 0, 1, 2, 3 };
		struct tensor *r = ops_vector_norm(ctx, m, p, m->ndim, all, false, err);
		tensor_unref(m);
		if (r && keepdim) {
			int64_t ones[TENSOR_MAX_DIMS] = { 1, 1, 1, 1 };
			struct tensor *k = ops_reshape(ctx, r, t->ndim, ones, err);
			tensor_unref(r);
			r = k;
		}
		return r;
	}
	int kept = 0;
	int64_t shape[TENSOR_MAX_DIMS], kshape[TENSOR_MAX_DIMS], n = 1;
	for (int i = 0; i < t->ndim; i++) {
		shape[i] = red[i] ? 1 : t->shape[i];
		if (red[i])
			n *= t->shape[i];
		else
			kshape[kept++] = t->shape[i];
	}
	if (n == 0 && isinf(p) && p < 0)
		return error_set(err, 0, 0, "RuntimeError: linalg.vector_norm cannot compute the -inf norm on an "
				 "empty tensor because the operation does not have an identity"),
		       NULL;
	bool fast = p == 2 && innermost(t, red);
	/* the reduced dims last, in t's order: one row of n per result */
	struct tensor *v = t->ndim > 0 ? ops_merge_reduced(ctx, t, red, err) : tensor_ref(t);
	if (!v)
		return NULL;
	struct tensor *c = ops_clone(v);	/* rows of n in order */
	tensor_unref(v);
	struct tensor *out = tensor_new(t->dtype, t->flavor, keepdim ? t->ndim : kept, keepdim ? shape : kshape);
	int64_t rows = tensor_numel(out);
	double *row = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *row);
	bool f32 = t->dtype == DT_F32;
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t j = 0; j < n; j++)
			row[j] = tensor_get(c, r * n + j);
		tensor_set(out, r, fast ? norm2_lanes(f32, row, n) : norm_seq(f32, row, n, p));
	}
	free(row);
	tensor_unref(c);
	return out;
}
