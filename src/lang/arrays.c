/* arrays.c: numpy's array makers and shape helpers that torch names
 * otherwise: np.full and np.full_like, np.zeros_like, np.ones_like,
 * np.empty and np.empty_like (zeros: an empty array's values are whatever
 * was there), np.identity, np.asarray (the array itself when it already is
 * one), np.expand_dims and np.squeeze (views; a.squeeze is numpy's here
 * too), np.outer and np.diag; and torch.as_tensor (np.asarray's twin),
 * each binding its arguments as numpy names them and refusing what
 * numpy refuses in its words. Called through builtins.c's and methods.c's
 * tables; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

static struct ops_ctx *OPS(struct call *c)
{
	return &c->I->ops;
}

/* The dtype numpy gives an array filled with v: int64, float64 (a float32
 * scalar's float32), bool. */
static enum dtype fill_dtype(const struct value *v)
{
	return v->kind == V_INT ? DT_I64 : v->kind == V_BOOL ? DT_BOOL : v->f32 ? DT_F32 : DT_F64;
}

/* An array of shape ndim/shape and dtype dt holding v everywhere. */
static struct tensor *filled(struct call *c, enum dtype dt, int ndim, const int64_t *shape, const struct value *v,
			     struct qkv_error *err)
{
	struct tensor *t = ops_full(OPS(c), dt, FLAVOR_NUMPY, ndim, shape, 0, err);
	if (!t || !v)
		return t;
	int64_t n = tensor_numel(t);
	if (dt == DT_I64 && v->kind == V_INT) {	/* exact, past 2**53 */
		int64_t *d = t->storage->data;
		for (int64_t i = 0; i < n; i++)
			d[i] = v->i;
	} else {
		double x = value_as_double(v);
		for (int64_t i = 0; i < n; i++)
			tensor_set(t, i, x);
	}
	return t;
}

/* Argument i as a number to fill with; -1 with numpy's words otherwise. */
static int fill_value(struct call *c, struct args *a, int i, struct qkv_error *err)
{
	if (value_is_number(a->v[i]))
		return 0;
	return args_error(err, c, a, i, "%s(): qkv fills with a number (an int, a float or a bool), not %s", c->name,
			  value_type_name(a->v[i]));
}

/* np.full(shape, fill_value, dtype=None) */
static struct value *np_full(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("shape", "fill_value", "dtype"), 2, &a, err) < 0)
		return NULL;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	bool has_dt;
	enum dtype dt;
	if (args_shape(c, &a, 0, &ndim, shape, false, err) < 0 || fill_value(c, &a, 1, err) < 0 ||
	    args_dtype(c, &a, 2, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, filled(c, has_dt ? dt : fill_dtype(a.v[1]), ndim, shape, a.v[1], err), err);
}

/* np.empty(shape, dtype=float) */
static struct value *np_empty(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("shape", "dtype"), 1, &a, err) < 0)
		return NULL;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	bool has_dt;
	enum dtype dt;
	if (args_shape(c, &a, 0, &ndim, shape, false, err) < 0 || args_dtype(c, &a, 1, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, filled(c, has_dt ? dt : DT_F64, ndim, shape, NULL, err), err);
}

/* np.zeros_like(a, dtype=None), ones_like, empty_like and full_like(a,
 * fill_value, dtype=None): a's shape and dtype (a list made an array). */
static struct value *like(struct call *c, int fill, struct qkv_error *err)
{
	struct args a;
	bool full = fill < 0;
	if (args_bind(c, full ? P("a", "fill_value", "dtype") : P("a", "dtype"), full ? 2 : 1, &a, err) < 0)
		return NULL;
	int dt_at = full ? 2 : 1;
	bool has_dt;
	enum dtype dt;
	if ((full && fill_value(c, &a, 1, err) < 0) || args_dtype(c, &a, dt_at, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	struct tensor *x = args_array(c, &a, 0, err);
	if (!x)
		return args_fail(&a);
	struct value *one = full ? NULL : value_int(fill);
	struct tensor *t = filled(c, has_dt ? dt : x->dtype, x->ndim, x->shape, full ? a.v[1] : one, err);
	value_unref(one);
	tensor_unref(x);
	return args_done(c, &a, t, err);
}

static struct value *np_zeros_like(struct call *c, struct qkv_error *err) { return like(c, 0, err); }
static struct value *np_ones_like(struct call *c, struct qkv_error *err) { return like(c, 1, err); }
static struct value *np_full_like(struct call *c, struct qkv_error *err) { return like(c, -1, err); }

/* np.identity(n, dtype=None) */
static struct value *np_identity(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("n", "dtype"), 1, &a, err) < 0)
		return NULL;
	int64_t n;
	bool has_dt;
	enum dtype dt;
	if (args_int(c, &a, 0, 0, &n, err) < 0 || args_dtype(c, &a, 1, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if (n < 0)
		return args_error(err, c, &a, 0, "ValueError: negative dimensions are not allowed"), args_fail(&a);
	int64_t shape[2] = { n, n };
	struct tensor *t = filled(c, has_dt ? dt : DT_F64, 2, shape, NULL, err);
	for (int64_t i = 0; t && i < n; i++)
		tensor_set(t, i * n + i, 1);
	return args_done(c, &a, t, err);
}

/* np.asarray(a, dtype=None): a itself when it is an array of that dtype;
 * torch.as_tensor(data, dtype=None) the same for a tensor */
static struct value *as_array(struct call *c, enum flavor fl, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, fl == FLAVOR_NUMPY ? P("a", "dtype") : P("data", "dtype"), 1, &a, err) < 0)
		return NULL;
	bool has_dt;
	enum dtype dt;
	if (args_dtype(c, &a, 1, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	struct value *v = a.v[0];
	if (v->kind == V_TENSOR && v->t->flavor == fl && (!has_dt || dt == v->t->dtype))
		return args_return(&a, value_ref(v));
	return args_done(c, &a, args_to_tensor(c, &a, 0, fl, has_dt, dt, err), err);
}

static struct value *np_asarray(struct call *c, struct qkv_error *err) { return as_array(c, FLAVOR_NUMPY, err); }
static struct value *t_as_tensor(struct call *c, struct qkv_error *err) { return as_array(c, FLAVOR_TORCH, err); }

/* Argument i as numpy's axes: an int or a tuple of them, each normalised
 * against ndim, none twice ("repeated axis"); *n of them into axes. */
static int axes_of(struct call *c, struct args *a, int i, int ndim, int *n, int *axes, struct qkv_error *err)
{
	const struct value *v = a->v[i];
	bool one = v->kind == V_INT || v->kind == V_BOOL;
	if (!one && v->kind != V_TUPLE && v->kind != V_LIST)
		return args_error(err, c, a, i, "TypeError: '%s' object cannot be interpreted as an integer",
				  value_type_name(v));
	*n = one ? 1 : v->n;
	if (*n > TENSOR_MAX_DIMS)
		return args_error(err, c, a, i, "ValueError: repeated axis");
	for (int k = 0; k < *n; k++) {
		const struct value *e = one ? v : v->items[k];
		if (e->kind != V_INT && e->kind != V_BOOL)
			return args_error(err, c, a, i, "TypeError: '%s' object cannot be interpreted as an integer",
					  value_type_name(e));
		if (args_norm_dim(e->kind == V_INT ? e->i : e->b, ndim, FLAVOR_NUMPY, &axes[k], err) < 0)
			return args_error(err, c, a, i, "%s", err->msg);
		for (int j = 0; j < k; j++)
			if (axes[j] == axes[k])
				return args_error(err, c, a, i, "ValueError: repeated axis");
	}
	return 0;
}

/* np.expand_dims(a, axis): a view with a dim of 1 at each axis (numbered
 * in the result) */
static struct value *np_expand_dims(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("a", "axis"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x = args_array(c, &a, 0, err);
	if (!x)
		return args_fail(&a);
	int n, axes[TENSOR_MAX_DIMS];
	int out = x->ndim + (a.v[1]->kind == V_TUPLE || a.v[1]->kind == V_LIST ? a.v[1]->n : 1);
	if (out > TENSOR_MAX_DIMS) {
		tensor_unref(x);
		return args_error(err, c, &a, 1, "expand_dims: a qkv array has at most %d dims", TENSOR_MAX_DIMS),
		       args_fail(&a);
	}
	if (axes_of(c, &a, 1, out, &n, axes, err) < 0) {
		tensor_unref(x);
		return args_fail(&a);
	}
	bool at[TENSOR_MAX_DIMS] = { false };
	for (int k = 0; k < n; k++)
		at[axes[k]] = true;
	int64_t shape[TENSOR_MAX_DIMS];
	for (int d = 0, j = 0; d < out; d++)
		shape[d] = at[d] ? 1 : x->shape[j++];
	struct tensor *r = ops_reshape(OPS(c), x, out, shape, err);
	tensor_unref(x);
	return args_done(c, &a, r, err);
}

/* np.squeeze(a, axis=None) and a.squeeze(axis=None): a view without the
 * dims of 1 (those of axis alone, each of which must be 1) */
struct value *arrays_squeeze(struct call *c, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	if (args_bind(c, method ? P("axis") : P("a", "axis"), method ? 0 : 1, &a, err) < 0)
		return NULL;
	int ax = method ? 0 : 1;
	struct tensor *x = method ? tensor_ref(c->self->t) : args_array(c, &a, 0, err);
	if (!x)
		return args_fail(&a);
	bool drop[TENSOR_MAX_DIMS] = { false };
	if (a.v[ax] && a.v[ax]->kind != V_NONE) {
		int n, axes[TENSOR_MAX_DIMS];
		if (axes_of(c, &a, ax, x->ndim, &n, axes, err) < 0) {
			tensor_unref(x);
			return args_fail(&a);
		}
		for (int k = 0; k < n; k++) {
			if (x->shape[axes[k]] != 1) {
				tensor_unref(x);
				return args_error(err, c, &a, ax, "ValueError: cannot select an axis to squeeze out which has "
						  "size not equal to one"), args_fail(&a);
			}
			drop[axes[k]] = true;
		}
	} else {
		for (int d = 0; d < x->ndim; d++)
			drop[d] = x->shape[d] == 1;
	}
	int64_t shape[TENSOR_MAX_DIMS];
	int out = 0;
	for (int d = 0; d < x->ndim; d++)
		if (!drop[d])
			shape[out++] = x->shape[d];
	struct tensor *r = ops_reshape(OPS(c), x, out, shape, err);
	tensor_unref(x);
	return args_done(c, &a, r, err);
}

/* np.outer(a, b): a and b flattened, each a[i] * b[j] (promoted as * does) */
static struct value *np_outer(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("a", "b"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x[2] = { NULL, NULL }, *col = NULL, *row = NULL, *r = NULL;
	for (int i = 0; i < 2; i++) {
		struct tensor *t = args_array(c, &a, i, err);
		if (!t)
			goto done;
		int64_t n = tensor_numel(t);
		int64_t shape[2] = { i ? 1 : n, i ? n : 1 };
		x[i] = ops_reshape(OPS(c), t, 2, shape, err);
		tensor_unref(t);
		if (!x[i])
			goto done;
	}
	col = x[0];
	row = x[1];
	r = ops_binary(OPS(c), (struct operand){ col, false }, (struct operand){ row, false }, EW_MUL, err);
	if (r)
		r->flavor = FLAVOR_NUMPY;
done:
	tensor_unref(x[0]);
	tensor_unref(x[1]);
	return r ? args_done(c, &a, r, err) : args_fail(&a);
}

/* Element si of src (in its logical order) into element di of dst, of the
 * same dtype: int64 exactly, past 2**53. */
static void put(struct tensor *dst, int64_t di, const struct tensor *src, int64_t si)
{
	if (dst->dtype == DT_I64)
		((int64_t *)dst->storage->data)[di] = tensor_get_i64(src, si);
	else
		tensor_set(dst, di, tensor_get(src, si));
}

/* np.diag(v, k=0): a 1-d v on the k-th diagonal of a square array of
 * zeros; the k-th diagonal of a 2-d v (a copy) */
static struct value *np_diag(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("v", "k"), 1, &a, err) < 0)
		return NULL;
	int64_t k;
	if (args_int(c, &a, 1, 0, &k, err) < 0)
		return args_fail(&a);
	struct tensor *v = args_array(c, &a, 0, err);
	if (!v)
		return args_fail(&a);
	struct tensor *r = NULL;
	if (v->ndim == 1) {
		int64_t n = v->shape[0], off = k < 0 ? -k : k, size;
		if (__builtin_add_overflow(n, off, &size)) {
			tensor_unref(v);
			return args_error(err, c, &a, 1, "diag: k is far too large"), args_fail(&a);
		}
		int64_t shape[2] = { size, size };
		r = filled(c, v->dtype, 2, shape, NULL, err);
		for (int64_t i = 0; r && i < n; i++)
			put(r, (k >= 0 ? i : i - k) * size + (k >= 0 ? i + k : i), v, i);
	} else if (v->ndim == 2) {
		int64_t rows = v->shape[0], cols = v->shape[1];
		int64_t r0 = k < 0 ? -k : 0, c0 = k > 0 ? k : 0;
		int64_t n = r0 < rows && c0 < cols ? (rows - r0 < cols - c0 ? rows - r0 : cols - c0) : 0;
		r = filled(c, v->dtype, 1, &n, NULL, err);
		for (int64_t i = 0; r && i < n; i++)
			put(r, i, v, (r0 + i) * cols + c0 + i);
	} else {
		tensor_unref(v);
		return args_error(err, c, &a, 0, "ValueError: Input must be 1- or 2-d."), args_fail(&a);
	}
	tensor_unref(v);
	return args_done(c, &a, r, err);
}

const struct builtin arrays_functions[] = {
	{ "numpy.full", np_full }, { "numpy.full_like", np_full_like }, { "numpy.zeros_like", np_zeros_like },
	{ "numpy.ones_like", np_ones_like }, { "numpy.empty", np_empty }, { "numpy.empty_like", np_zeros_like },
	{ "numpy.identity", np_identity }, { "numpy.asarray", np_asarray }, { "numpy.expand_dims", np_expand_dims },
	{ "numpy.squeeze", arrays_squeeze }, { "numpy.outer", np_outer }, { "numpy.diag", np_diag },
	{ "torch.as_tensor", t_as_tensor },
	{ NULL, NULL },
};
