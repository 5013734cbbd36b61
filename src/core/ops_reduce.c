/* ops_reduce.c: reductions with PyTorch's rules (sum, mean, max, min,
 * argmax, argmin, prod over a dim, several or everything, keepdim), the tests of
 * every element (isnan, isinf, isfinite, all, any) and isclose. Like ops.c,
 * never prints: a bad dim comes back as NULL with a message in the error
 * record. */
#include "core/ops_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How a reduction over dim (every element when all, or when t is 0-d) sees
 * t: (outer, n, inner), and the shape of its result (keepdim as in torch). */
struct reduction {
	bool all;
	int dim;	/* (not all) the dim reduced, from 0 */
	int64_t outer, n, inner;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
};

/* Fills r; -1 with err when dim is out of range. */
static int reduction_of(const struct tensor *t, bool all, int dim, bool keepdim, struct reduction *r,
			struct qkv_error *err)
{
	if (!all && (dim = ops_norm_dim(dim, t->ndim, err)) < 0)
		return -1;
	all = all || t->ndim == 0;
	r->all = all;
	r->dim = all ? 0 : dim;
	r->outer = 1;
	r->n = tensor_numel(t);
	r->inner = 1;
	r->ndim = 0;
	if (!all) {
		r->n = t->shape[dim];
		for (int i = 0; i < dim; i++)
			r->outer *= t->shape[i];
		for (int i = dim + 1; i < t->ndim; i++)
			r->inner *= t->shape[i];
	}
	for (int i = 0; i < t->ndim; i++) {
		if (!all && i != dim)
			r->shape[r->ndim++] = t->shape[i];
		else if (keepdim)
			r->shape[r->ndim++] = 1;
	}
	return 0;
}

/* torch and numpy sum in memory order: the order of t's dims by stride,
 * largest first (perm[i]: the dim of t at place i; stable). Whether it is
 * t's own order. */
static bool memory_order(const struct tensor *t, int *perm)
{
	bool same = true;
	for (int i = 0; i < t->ndim; i++) {
		int j = i;
		for (; j > 0 && llabs(t->strides[perm[j - 1]]) < llabs(t->strides[i]); j--)
			perm[j] = perm[j - 1];
		perm[j] = i;
		same = same && j == i;
	}
	return same;
}

/* Whether NumPy's sum along dim is pairwise: dim is t's innermost in
 * memory (no other dim of more than one element has a smaller stride). */
static bool numpy_innermost(const struct tensor *t, int dim)
{
	for (int i = 0; i < t->ndim; i++)
		if (i != dim && t->shape[i] > 1 && llabs(t->strides[i]) < llabs(t->strides[dim]))
			return false;
	return true;
}

/* REDUCE_ARGMAX / REDUCE_ARGMIN over rs (see enum reduce_op). */
static struct tensor *argreduce(struct tensor *t, const struct reduction *rs, bool max)
{
	int64_t outer = rs->outer, n = rs->n, inner = rs->inner;
	struct tensor *c = contig_as(t, DT_F64);
	const double *x = tensor_data(c);
	struct tensor *out = tensor_new(DT_I64, t->flavor, rs->ndim, rs->shape);
	int64_t *y = out->storage->data;
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t in = 0; in < inner; in++) {
			int64_t best = 0;
			double bv = x[o * n * inner + in];
			for (int64_t k = 1; k < n && !isnan(bv); k++) {
				double v = x[(o * n + k) * inner + in];
				if (isnan(v) || (max ? v > bv : v < bv)) {
					best = k;
					bv = v;
				}
			}
			y[o * inner + in] = best;
		}
	}
	tensor_unref(c);
	return out;
}

/* The product over rs (REDUCE_PROD), one factor after another in index
 * order: floats in their own type, integers and bools as int64, wrapping. */
static struct tensor *prod_reduce(struct tensor *t, const struct reduction *rs)
{
	int64_t outer = rs->outer, n = rs->n, inner = rs->inner;
	enum dtype dt = dtype_is_float(t->dtype) ? t->dtype : DT_I64;
	struct tensor *c = contig_as(t, dt);
	struct tensor *out = tensor_new(dt, t->flavor, rs->ndim, rs->shape);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t at = o * n * inner + in, to = o * inner + in;
			if (dt == DT_F32) {
				const float *x = tensor_data(c);
				float acc = 1;
				for (int64_t k = 0; k < n; k++)
					acc *= x[at + k * inner];
				((float *)out->storage->data)[to] = acc;
			} else if (dt == DT_F64) {
				const double *x = tensor_data(c);
				double acc = 1;
				for (int64_t k = 0; k < n; k++)
					acc *= x[at + k * inner];
				((double *)out->storage->data)[to] = acc;
			} else {
				const int64_t *x = tensor_data(c);
				uint64_t acc = 1;
				for (int64_t k = 0; k < n; k++)
					acc *= (uint64_t)x[at + k * inner];
				((int64_t *)out->storage->data)[to] = (int64_t)acc;
			}
		}
	tensor_unref(c);
	return out;
}

/* A float sum or mean of a t whose dims are not in memory order (a
 * transpose: perm from memory_order): computed on the view in memory order,
 * so that its additions come in the order torch's and numpy's do, then put
 * back in t's order. */
static struct tensor *reduce_in_memory_order(const struct ops_ctx *ctx, struct tensor *t,
					     const struct reduction *rs, const int *perm, enum reduce_op op,
					     struct qkv_error *err)
{
	int inv[TENSOR_MAX_DIMS], vdim = 0;
	for (int i = 0; i < t->ndim; i++) {
		inv[perm[i]] = i;
		if (perm[i] == rs->dim)
			vdim = i;
	}
	struct tensor *v = ops_permute(t, perm, t->ndim, err);
	struct tensor *r = v ? ops_reduce(ctx, v, rs->all, vdim, true, op, err) : NULL;	/* v's dims, vdim kept as 1 */
	struct tensor *back = r ? ops_permute(r, inv, r->ndim, err) : NULL;
	struct tensor *c = back ? ops_contiguous(back) : NULL;
	struct tensor *out = c ? ops_reshape(ctx, c, rs->ndim, rs->shape, err) : NULL;
	tensor_unref(v);
	tensor_unref(r);
	tensor_unref(back);
	tensor_unref(c);
	return out;
}

struct tensor *ops_reduce(const struct ops_ctx *ctx, struct tensor *t, bool all, int dim,
			  bool keepdim, enum reduce_op op, struct qkv_error *err)
{
	static const char *names[] = { "sum", "mean", "max", "min", "argmax", "argmin" };
	(void)ctx;
	struct reduction rs;
	if (reduction_of(t, all, dim, keepdim, &rs, err) < 0)
		return NULL;
	if (op == REDUCE_PROD)
		return prod_reduce(t, &rs);
	int64_t outer = rs.outer, n = rs.n, inner = rs.inner;
	/* torch infers no float type for a mean, and has no argmax of bools */
	if (t->flavor == FLAVOR_TORCH && op == REDUCE_MEAN && !dtype_is_float(t->dtype)) {
		error_set(err, 0, 0, "mean(): could not infer output dtype. Input dtype must be either a floating point "
			  "or complex dtype. Got: %s", t->dtype == DT_BOOL ? "Bool" : "Long");
		return NULL;
	}
	if (t->flavor == FLAVOR_TORCH && op >= REDUCE_ARGMAX && t->dtype == DT_BOOL) {
		error_set(err, 0, 0, "\"%s_cpu\" not implemented for 'Bool'", names[op]);
		return NULL;
	}
	if (n == 0 && op >= REDUCE_ARGMAX) {
		error_set(err, 0, 0, "%s of an empty %s has no index", names[op], rs.all ? "tensor" : "dimension");
		return NULL;
	}
	if (op >= REDUCE_ARGMAX)
		return argreduce(t, &rs, op == REDUCE_ARGMAX);
	if (n == 0 && (op == REDUCE_MAX || op == REDUCE_MIN)) {
		error_set(err, 0, 0, "%s of an empty tensor has no value", names[op]);
		return NULL;
	}
	enum dtype rd = t->dtype;
	if (op == REDUCE_MEAN && !dtype_is_float(rd))
		rd = default_float(t->flavor);
	if ((op == REDUCE_SUM) && rd == DT_BOOL)
		rd = DT_I64;
	enum dtype cd = compute_dtype(rd);
	if (cd == DT_I64 && op == REDUCE_MEAN)
		cd = DT_F64;
	int perm[TENSOR_MAX_DIMS];
	if (op <= REDUCE_MEAN && cd != DT_I64 && !memory_order(t, perm))
		return reduce_in_memory_order(ctx, t, &rs, perm, op, err);
	struct tensor *c = contig_as(t, cd);
	struct tensor *out = tensor_new(cd, t->flavor, rs.ndim, rs.shape);
	void *po = out->storage->data;
	const void *pi = tensor_data(c);
	if (cd == DT_I64) {
		/* int64 exactly: sums wrap like torch's, max and min compare ints */
		const int64_t *x = pi;
		int64_t *y = po;
		for (int64_t o = 0; o < outer; o++) {
			for (int64_t in = 0; in < inner; in++) {
				int64_t acc = op == REDUCE_SUM ? 0 : x[o * n * inner + in];
				for (int64_t k = op == REDUCE_SUM ? 0 : 1; k < n; k++) {
					int64_t v = x[(o * n + k) * inner + in];
					if (op == REDUCE_SUM)
						acc = (int64_t)((uint64_t)acc + (uint64_t)v);
					else if (op == REDUCE_MAX ? v > acc : v < acc)
						acc = v;
				}
				y[o * inner + in] = acc;
			}
		}
		tensor_unref(c);
		return retype(out, rd);
	}
	bool is_min = op == REDUCE_MIN;
	if (is_min) {	/* min(x) = -max(-x) */
		struct tensor *neg = tensor_new(cd, t->flavor, c->ndim, c->shape);
		if (cd == DT_F32)
			ew_unary_f32(neg->storage->data, pi, tensor_numel(t), EW_NEG);
		else
			ew_unary_f64(neg->storage->data, pi, tensor_numel(t), EW_NEG);
		tensor_unref(c);
		c = neg;
		pi = tensor_data(c);
	}
	if (op == REDUCE_MAX || op == REDUCE_MIN) {
		if (cd == DT_F32)
			max_dim_f32(po, pi, outer, n, inner);
		else
			max_dim_f64(po, pi, outer, n, inner);
		if (is_min) {
			if (cd == DT_F32)
				ew_unary_f32(po, po, outer * inner, EW_NEG);
			else
				ew_unary_f64(po, po, outer * inner, EW_NEG);
		}
	} else {
		bool numpy = t->flavor == FLAVOR_NUMPY, pairwise = rs.all || numpy_innermost(t, rs.dim);
		if (cd == DT_F32 && numpy)
			sum_dim_numpy_f32(po, pi, outer, n, inner, pairwise);
		else if (cd == DT_F32)
			sum_dim_f32(po, pi, outer, n, inner);
		else if (numpy)
			sum_dim_numpy_f64(po, pi, outer, n, inner, pairwise);
		else
			sum_dim_f64(po, pi, outer, n, inner);
		if (op == REDUCE_MEAN) {
			for (int64_t i = 0; i < outer * inner; i++) {
				if (cd == DT_F32)
					((float *)po)[i] /= (float)n;
				else
					((double *)po)[i] /= (double)n;
			}
		}
	}
	tensor_unref(c);
	return retype(out, rd);
}

struct tensor *ops_classify(struct tensor *t, enum ops_class what)
{
	struct tensor *out = tensor_new(DT_BOOL, t->flavor, t->ndim, t->shape);
	int64_t n = tensor_numel(t);
	for (int64_t i = 0; i < n; i++) {
		double x = tensor_get(t, i);
		/* isinf(-inf) may be -1: a bool is stored as 0 or 1 */
		((uint8_t *)out->storage->data)[i] = (what == OPS_ISINF ? isinf(x) : what == OPS_ISNAN ? isnan(x) : isfinite(x)) != 0;
	}
	return out;
}

struct tensor *ops_all_any(struct tensor *t, bool any)
{
	int64_t n = tensor_numel(t);
	bool r = !any;
	for (int64_t i = 0; i < n; i++) {
		bool nz = tensor_get(t, i) != 0;
		if (any && nz) {
			r = true;
			break;
		}
		if (!any && !nz) {
			r = false;
			break;
		}
	}
	return ops_scalar(DT_BOOL, t->flavor, r);
}

struct tensor *ops_isclose(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
			   double rtol, double atol, bool equal_nan, struct qkv_error *err)
{
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	if (ops_broadcast_shape(ctx, a, b, &ndim, shape, "isclose", err) < 0)
		return NULL;
	struct tensor *ea = ops_expand(a, ndim, shape, err), *eb = ops_expand(b, ndim, shape, err);
	enum flavor fl = a->flavor == FLAVOR_NUMPY && b->flavor == FLAVOR_NUMPY ? FLAVOR_NUMPY : FLAVOR_TORCH;
	struct tensor *out = tensor_new(DT_BOOL, fl, ndim, shape);
	int64_t n = tensor_numel(out);
	for (int64_t i = 0; i < n; i++) {
		double x = tensor_get(ea, i), y = tensor_get(eb, i);
		bool close;
		if (isnan(x) || isnan(y))
			close = equal_nan && isnan(x) && isnan(y);
		else if (x == y)
			close = true;	/* equal infinities too */
		else
			close = isfinite(x) && isfinite(y) && fabs(x - y) <= atol + rtol * fabs(y);
		((uint8_t *)out->storage->data)[i] = close;
	}
	tensor_unref(ea);
	tensor_unref(eb);
	return out;
}

int ops_max_dim(const struct ops_ctx *ctx, struct tensor *t, int dim, bool keepdim, bool min,
		struct tensor **values, struct tensor **indices, struct qkv_error *err)
{
	(void)ctx;
	struct reduction rs;
	if (reduction_of(t, false, dim, keepdim, &rs, err) < 0)
		return -1;
	if (rs.n == 0 && rs.outer * rs.inner > 0) {
		error_set(err, 0, 0, "IndexError: %s(): Expected reduction dim %d to have non-zero size.",
			  min ? "min" : "max", rs.dim);
		return -1;
	}
	struct tensor *idx = argreduce(t, &rs, !min);
	struct tensor *c = ops_contiguous(t);
	struct tensor *vals = tensor_new(t->dtype, t->flavor, rs.ndim, rs.shape);
	size_t esz = dtype_size(t->dtype);
	const unsigned char *src = tensor_data(c);
	unsigned char *dst = vals->storage->data;
	const int64_t *best = idx->storage->data;
	for (int64_t o = 0; o < rs.outer; o++)
		for (int64_t in = 0; in < rs.inner; in++)
			memcpy(dst + (size_t)(o * rs.inner + in) * esz,
			       src + (size_t)((o * rs.n + best[o * rs.inner + in]) * rs.inner + in) * esz, esz);
	tensor_unref(c);
	*values = vals;
	*indices = idx;
	return 0;
}

/* torch's var of everything (std_var_all_cpu): the float mean torch's mean
 * gives, then the squared deviations summed in double in memory order. */
static double var_two_pass(const struct ops_ctx *ctx, struct tensor *t, double correction, struct qkv_error *err)
{
	struct tensor *m = ops_reduce(ctx, t, true, 0, false, REDUCE_MEAN, err);
	double mean = tensor_get(m, 0), sum = 0;
	tensor_unref(m);
	int perm[TENSOR_MAX_DIMS];
	memory_order(t, perm);
	struct tensor *v = ops_permute(t, perm, t->ndim, err);
	struct tensor *c = ops_contiguous(v);
	int64_t n = tensor_numel(c);
	for (int64_t i = 0; i < n; i++) {
		double dx = tensor_get(c, i) - mean;
		sum += dx * dx;
	}
	tensor_unref(v);
	tensor_unref(c);
	double div = (double)n - correction;
	return sum / (div > 0 ? div : 0);
}

/* numpy's _var: mean (keepdims), deviations, their squares summed; then
 * divided by max(n - ddof, 0) in the array's dtype. */
static struct tensor *var_numpy(const struct ops_ctx *ctx, struct tensor *t, const struct reduction *rs, bool keepdim,
				double ddof, bool take_sqrt, struct qkv_error *err)
{
	struct tensor *x = dtype_is_float(t->dtype) ? tensor_ref(t) : ops_to_dtype(t, DT_F64);
	struct tensor *mean = ops_reduce(ctx, x, rs->all, rs->dim, true, REDUCE_MEAN, err);
	struct operand a = { x, false }, b = { mean, false };
	struct tensor *dev = mean ? ops_binary(ctx, a, b, EW_SUB, err) : NULL;
	struct operand d = { dev, false };
	struct tensor *sq = dev ? ops_binary(ctx, d, d, EW_MUL, err) : NULL;
	struct tensor *s = sq ? ops_reduce(ctx, sq, rs->all, rs->dim, keepdim, REDUCE_SUM, err) : NULL;
	tensor_unref(x);
	tensor_unref(mean);
	tensor_unref(dev);
	tensor_unref(sq);
	if (!s)
		return NULL;
	double rc = (double)rs->n - ddof;
	rc = rc > 0 ? rc : 0;
	int64_t n = tensor_numel(s);
	for (int64_t i = 0; i < n; i++) {
		if (s->dtype == DT_F32) {
			float *p = (float *)s->storage->data + i;
			*p = *p / (float)rc;
			if (take_sqrt)
				*p = sqrtf(*p);
		} else {
			double *p = (double *)s->storage->data + i;
			*p = *p / rc;
			if (take_sqrt)
				*p = sqrt(*p);
		}
	}
	return s;
}

struct tensor *ops_var(const struct ops_ctx *ctx, struct tensor *t, bool all, int dim, bool keepdim,
		       double correction, bool take_sqrt, struct qkv_error *err)
{
	struct reduction rs;
	if (reduction_of(t, all, dim, keepdim, &rs, err) < 0)
		return NULL;
	if (t->flavor == FLAVOR_NUMPY)
		return var_numpy(ctx, t, &rs, keepdim, correction, take_sqrt, err);
	if (!dtype_is_float(t->dtype)) {
		error_set(err, 0, 0, "std and var only support floating point and complex dtypes");
		return NULL;
	}
	struct tensor *out = tensor_new(t->dtype, t->flavor, rs.ndim, rs.shape);
	int64_t nout = rs.outer * rs.inner;
	if (nout == 1 && rs.n > 0) {
		double var = var_two_pass(ctx, t, correction, err);
		tensor_set(out, 0, take_sqrt ? sqrt(var) : var);
		return out;
	}
	/* torch's WelfordOps, one line at a time, in double, its m2 update fused */
	struct tensor *c = ops_contiguous(t);
	for (int64_t o = 0; o < rs.outer; o++) {
		for (int64_t in = 0; in < rs.inner; in++) {
			double mean = 0, m2 = 0;
			for (int64_t k = 0; k < rs.n; k++) {
				double x = tensor_get(c, (o * rs.n + k) * rs.inner + in);
				double nf = (double)(k + 1), delta = x - mean, new_mean = mean + delta / nf;
				m2 = fma(delta, x - new_mean, m2);	/* torch's kernel is built with FMA contraction */
				mean = new_mean;
			}
			double nf = (double)rs.n, div = nf > correction ? nf - correction : 0;
			double var = rs.n == 0 ? NAN : m2 / div;
			tensor_set(out, o * rs.inner + in, take_sqrt ? sqrt(var) : var);
		}
	}
	tensor_unref(c);
	return out;
}

/* ---- over several dims at once ------------------------------------------------------------ */

/* t with the dims marked in red moved last, in order, and merged into one
 * (the kept dims before it, in order): a reduction over its last dim is
 * one over all of them. With none marked, a last dim of 1 (numpy's
 * axis=(): each element alone). */
struct tensor *ops_merge_reduced(const struct ops_ctx *ctx, struct tensor *t, const bool *red,
				 struct qkv_error *err)
{
	int perm[TENSOR_MAX_DIMS], k = 0, nk = 0;
	int64_t shape[TENSOR_MAX_DIMS], n = 1;
	for (int i = 0; i < t->ndim; i++)
		if (!red[i]) {
			perm[k++] = i;
			shape[nk++] = t->shape[i];
		}
	for (int i = 0; i < t->ndim; i++)
		if (red[i]) {
			perm[k++] = i;
			n *= t->shape[i];
		}
	if (nk == TENSOR_MAX_DIMS) {
		error_set(err, 0, 0, "a tensor has at most %d dims", TENSOR_MAX_DIMS);
		return NULL;
	}
	shape[nk] = n;
	struct tensor *p = ops_permute(t, perm, t->ndim, err);
	if (!p)
		return NULL;
	struct tensor *m = ops_reshape(ctx, p, nk + 1, shape, err);
	tensor_unref(p);
	return m;
}

/* r (reduced over the last dim of merge_reduced's tensor) given the shape a
 * reduction of t over red keeps (a 1 in place of each dim reduced) with
 * keepdim; r itself without. */
static struct tensor *keep_dims(const struct ops_ctx *ctx, struct tensor *r, const struct tensor *t, const bool *red,
				bool keepdim, struct qkv_error *err)
{
	if (!r || !keepdim)
		return r;
	int64_t shape[TENSOR_MAX_DIMS];
	for (int i = 0; i < t->ndim; i++)
		shape[i] = red[i] ? 1 : t->shape[i];
	struct tensor *k = ops_reshape(ctx, r, t->ndim, shape, err);
	tensor_unref(r);
	return k;
}

/* Marks the n distinct dims (from 0) in red; whether they are all of t's
 * (or t is 0-d: there is nothing but everything to reduce). */
static bool mark_dims(const struct tensor *t, int n, const int *dims, bool *red)
{
	memset(red, 0, sizeof(bool) * TENSOR_MAX_DIMS);
	for (int i = 0; i < n; i++)
		red[dims[i]] = true;
	return t->ndim == 0 || (n == t->ndim && n > 0);
}

struct tensor *ops_reduce_dims(const struct ops_ctx *ctx, struct tensor *t, int n, const int *dims, bool keepdim,
			       enum reduce_op op, struct qkv_error *err)
{
	bool red[TENSOR_MAX_DIMS];
	if (mark_dims(t, n, dims, red))
		return ops_reduce(ctx, t, true, 0, keepdim, op, err);
	if (n == 1)
		return ops_reduce(ctx, t, false, dims[0], keepdim, op, err);
	struct tensor *m = ops_merge_reduced(ctx, t, red, err);
	if (!m)
		return NULL;
	struct tensor *r = ops_reduce(ctx, m, false, m->ndim - 1, false, op, err);
	tensor_unref(m);
	return keep_dims(ctx, r, t, red, keepdim, err);
}

struct tensor *ops_var_dims(const struct ops_ctx *ctx, struct tensor *t, int n, const int *dims, bool keepdim,
			    double correction, bool take_sqrt, struct qkv_error *err)
{
	bool red[TENSOR_MAX_DIMS];
	if (mark_dims(t, n, dims, red))
		return ops_var(ctx, t, true, 0, keepdim, correction, take_sqrt, err);
	if (n == 1)
		return ops_var(ctx, t, false, dims[0], keepdim, correction, take_sqrt, err);
	struct tensor *m = ops_merge_reduced(ctx, t, red, err);
	if (!m)
		return NULL;
	struct tensor *r = ops_var(ctx, m, false, m->ndim - 1, false, correction, take_sqrt, err);
	tensor_unref(m);
	return keep_dims(ctx, r, t, red, keepdim, err);
}
