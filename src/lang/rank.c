/* rank.c: the functions and tensor methods that order, pick and spread
 * (torch.max/min with a dim, sort, argsort, topk, std, var; numpy's sort,
 * argsort, std, var), and flatten, mm, linspace and numpy's scalar types
 * (np.float32(x)). Each binds its arguments as torch or numpy names them and
 * calls core/ops; torch's named tuples (torch.return_types.max) are tuples
 * that carry their type's name. Called through builtins.c's and methods.c's
 * tables; never prints. */
#include "lang/args.h"
#include "lang/bound.h"
#include "lang/runtime.h"
#include "core/mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

static struct ops_ctx *OPS(struct call *c)
{
	return &c->I->ops;
}

/* torch.return_types.NAME(values=..., indices=...): a tuple of the two that
 * prints as torch's named tuple and has .values and .indices (methods.c). */
static struct value *return_types(const char *name, struct tensor *values, struct tensor *indices)
{
	struct value *r = value_seq(V_TUPLE, 2);
	r->items[0] = value_tensor(values);
	r->items[1] = value_tensor(indices);
	char buf[48];
	snprintf(buf, sizeof buf, "torch.return_types.%s", name);
	r->str = xstrdup(buf);
	return r;
}

static struct value *bound_pair(struct call *c, struct bound *b, const char *name, int rc, struct tensor *v,
				struct tensor *i, struct qkv_error *err)
{
	if (rc < 0)
		return args_error(err, c, &b->a, -1, "%s", err->msg), bound_fail(b);
	if (b->owned)
		tensor_unref(b->x);
	return args_return(&b->a, return_types(name, v, i));
}

/* A dim argument (function numbering i) of x: torch's or numpy's words. */
static int dim_of(struct call *c, struct bound *b, int i, int *dim, struct qkv_error *err)
{
	return args_axis(c, &b->a, i - b->off, b->x->ndim, b->x->flavor, dim, err);
}

/* ---- max and min with a dim ---------------------------------------------------------- */

static struct value *max_min(struct call *c, bool min, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("input", "dim", "keepdim"), 1, &b, err) < 0)
		return NULL;
	bool keep;
	int dim;
	if (args_bool(c, &b.a, 2 - b.off, false, &keep, err) < 0)
		return bound_fail(&b);
	if (!given(&b, 1))
		return bound_done(c, &b, ops_reduce(OPS(c), b.x, true, 0, false, min ? REDUCE_MIN : REDUCE_MAX, err),
				  err);
	if (arg(&b, 1)->kind == V_TENSOR)
		return FAIL_AT(c, &b, 1, "%s(input, other) is not supported in qkv; torch.%s(input, dim) is",
			       c->name, min ? "min" : "max");
	if (dim_of(c, &b, 1, &dim, err) < 0)
		return bound_fail(&b);
	struct tensor *v = NULL, *i = NULL;
	int rc = ops_max_dim(OPS(c), b.x, dim, keep, min, &v, &i, err);
	return bound_pair(c, &b, min ? "min" : "max", rc, v, i, err);
}

struct value *rank_max(struct call *c, struct qkv_error *err) { return max_min(c, false, err); }
struct value *rank_min(struct call *c, struct qkv_error *err) { return max_min(c, true, err); }

/* ---- sort, argsort, topk ------------------------------------------------------------- */

/* numpy's kind= (None: quicksort) */
static int sort_kind_of(struct call *c, struct bound *b, int i, enum sort_kind *kind, struct qkv_error *err)
{
	*kind = SORT_NUMPY_QUICK;
	if (!given(b, i))
		return 0;
	struct value *v = arg(b, i);
	if (v->kind == V_STR) {
		const char *s = v->str;
		if (s[0] == 'q' || s[0] == 'Q')
			return 0;
		if (s[0] == 'm' || s[0] == 'M' || s[0] == 's' || s[0] == 'S') {
			*kind = SORT_STABLE;
			return 0;
		}
		if (s[0] == 'h' || s[0] == 'H') {
			*kind = SORT_NUMPY_HEAP;
			return 0;
		}
	}
	return args_error(err, c, &b->a, i - b->off, "ValueError: sort kind must be one of 'quick', 'heap', or 'stable'");
}

/* np.sort / np.argsort / a.sort / a.argsort: axis (-1; None flattens) and kind */
static struct value *np_sort_common(struct call *c, bool want_indices, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("a", "axis", "kind", "order"), 1, &b, err) < 0)
		return NULL;
	enum sort_kind kind;
	int axis = 0;
	bool flat = arg(&b, 1) && arg(&b, 1)->kind == V_NONE;
	if (given(&b, 3))
		return FAIL_AT(c, &b, 3, "%s(order=...) sorts structured arrays, which qkv does not have", c->name);
	if (sort_kind_of(c, &b, 2, &kind, err) < 0)
		return bound_fail(&b);
	struct tensor *x = b.x;
	int64_t n = tensor_numel(x);
	struct tensor *in = flat ? ops_reshape(OPS(c), x, 1, &n, err) : tensor_ref(x);
	if (!flat && in->ndim == 0) {
		tensor_unref(in);
		return FAIL_AT(c, &b, 1, "AxisError: axis -1 is out of bounds for array of dimension 0");
	}
	if (!flat && given(&b, 1) && args_axis(c, &b.a, 1 - b.off, in->ndim, FLAVOR_NUMPY, &axis, err) < 0) {
		tensor_unref(in);
		return bound_fail(&b);
	}
	if (!flat && !given(&b, 1))
		axis = in->ndim - 1;
	struct tensor *v = NULL, *i = NULL;
	int rc = ops_sort(OPS(c), in, axis, false, kind, &v, &i, err);
	tensor_unref(in);
	if (rc < 0)
		return bound_done(c, &b, NULL, err);
	if (c->self && !want_indices) {	/* a.sort(): in place, gives None */
		tensor_unref(i);
		interp_will_write(c->I, x->storage);
		int w = ops_assign(x, v, err);
		tensor_unref(v);
		if (w < 0)
			return bound_fail(&b);
		return args_return(&b.a, value_none());
	}
	tensor_unref(want_indices ? v : i);
	return bound_done(c, &b, want_indices ? i : v, err);
}

/* torch.sort(input, dim=-1, descending=False, stable=False) (the named
 * tuple) and torch.argsort (its indices); numpy's arrays sort as numpy */
static struct value *torch_sort_common(struct call *c, bool want_indices, struct qkv_error *err)
{
	if ((c->self ? c->self->t->flavor : FLAVOR_TORCH) == FLAVOR_NUMPY)
		return np_sort_common(c, want_indices, err);
	struct bound b;
	if (bound_bind(c, P("input", "dim", "descending", "stable"), 1, &b, err) < 0)
		return NULL;
	int dim = -1;
	bool desc, stable;
	if ((given(&b, 1) && dim_of(c, &b, 1, &dim, err) < 0) || args_bool(c, &b.a, 2 - b.off, false, &desc, err) < 0 ||
	    args_bool(c, &b.a, 3 - b.off, false, &stable, err) < 0)
		return bound_fail(&b);
	struct tensor *v = NULL, *i = NULL;
	int rc = ops_sort(OPS(c), b.x, dim, desc, stable ? SORT_STABLE : SORT_TORCH, &v, &i, err);
	if (!want_indices)
		return bound_pair(c, &b, "sort", rc, v, i, err);
	tensor_unref(v);
	return bound_done(c, &b, rc < 0 ? NULL : i, err);
}

struct value *rank_sort(struct call *c, struct qkv_error *err) { return torch_sort_common(c, false, err); }
struct value *rank_argsort(struct call *c, struct qkv_error *err) { return torch_sort_common(c, true, err); }
static struct value *rank_np_sort(struct call *c, struct qkv_error *err) { return np_sort_common(c, false, err); }
static struct value *rank_np_argsort(struct call *c, struct qkv_error *err) { return np_sort_common(c, true, err); }

/* torch.topk(input, k, dim=-1, largest=True, sorted=True) */
struct value *rank_topk(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("input", "k", "dim", "largest", "sorted"), 2, &b, err) < 0)
		return NULL;
	int64_t k;
	int dim = -1;
	bool largest, sorted;
	if (args_int(c, &b.a, 1 - b.off, 0, &k, err) < 0 || (given(&b, 2) && dim_of(c, &b, 2, &dim, err) < 0) ||
	    args_bool(c, &b.a, 3 - b.off, true, &largest, err) < 0 || args_bool(c, &b.a, 4 - b.off, true, &sorted, err) < 0)
		return bound_fail(&b);
	struct tensor *v = NULL, *i = NULL;
	int rc = ops_topk(OPS(c), b.x, k, dim, largest, sorted, &v, &i, err);
	return bound_pair(c, &b, "topk", rc, v, i, err);
}

/* ---- std and var ------------------------------------------------------------------------ */

static struct value *spread(struct call *c, bool take_sqrt, struct qkv_error *err)
{
	bool numpy = (c->self ? c->self->t->flavor : FLAVOR_TORCH) == FLAVOR_NUMPY || strncmp(c->name, "np.", 3) == 0;
	struct bound b;
	if (numpy ? bound_bind(c, P("a", "axis", "dtype", "out", "ddof", "keepdims"), 1, &b, err) < 0
		  : bound_bind(c, P("input", "dim", "unbiased", "keepdim", "correction"), 1, &b, err) < 0)
		return NULL;
	bool all, keep;
	int dims[TENSOR_MAX_DIMS], n = 0;
	double corr = 1;
	enum flavor fl = numpy ? FLAVOR_NUMPY : FLAVOR_TORCH;
	if (numpy) {
		if (given(&b, 2) || given(&b, 3))
			return FAIL_AT(c, &b, given(&b, 2) ? 2 : 3, "%s(): dtype= and out= are not supported in qkv", c->name);
		if (args_reduce_dims(c, &b.a, 1 - b.off, b.x->ndim, fl, true, &all, &n, dims, err) < 0 ||
		    args_double(c, &b.a, 4 - b.off, 0, &corr, err) < 0 ||
		    args_bool(c, &b.a, 5 - b.off, false, &keep, err) < 0)
			return bound_fail(&b);
	} else {
		/* torch.var(x, True): the overload whose first argument is unbiased */
		bool unbiased = true;
		int at = 2;
		if (given(&b, 1) && arg(&b, 1)->kind == V_BOOL) {
			if (given(&b, 2))
				return FAIL_AT(c, &b, 2, "%s(): unbiased given twice", c->name);
			at = 1;
			all = true;
		} else if (args_reduce_dims(c, &b.a, 1 - b.off, b.x->ndim, fl, true, &all, &n, dims, err) < 0) {
			return bound_fail(&b);
		}
		if (args_bool(c, &b.a, at - b.off, true, &unbiased, err) < 0 || args_bool(c, &b.a, 3 - b.off, false, &keep, err) < 0)
			return bound_fail(&b);
		corr = unbiased ? 1 : 0;
		if (given(&b, 4)) {
			int64_t ci;
			if (given(&b, 2))
				return FAIL_AT(c, &b, 4, "%s(): give unbiased or correction, not both", c->name);
			if (args_int(c, &b.a, 4 - b.off, 1, &ci, err) < 0)
				return bound_fail(&b);
			corr = (double)ci;
		}
	}
	struct tensor *r = all ? ops_var(OPS(c), b.x, true, 0, keep, corr, take_sqrt, err)
			       : ops_var_dims(OPS(c), b.x, n, dims, keep, corr, take_sqrt, err);
	if (!r)
		args_error(err, c, &b.a, -1, "%s", err->msg);
	return bound_done(c, &b, r, err);
}

struct value *rank_std(struct call *c, struct qkv_error *err) { return spread(c, true, err); }
struct value *rank_var(struct call *c, struct qkv_error *err) { return spread(c, false, err); }

/* ---- flatten, mm, linspace ---------------------------------------------------------------- */

/* torch.flatten(input, start_dim=0, end_dim=-1); numpy's a.flatten(): a copy */
struct value *rank_flatten(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (c->self && c->self->t->flavor == FLAVOR_NUMPY) {
		if (bound_bind(c, P("a", "order"), 1, &b, err) < 0)
			return NULL;
		if (given(&b, 1) && !(arg(&b, 1)->kind == V_STR && strcmp(arg(&b, 1)->str, "C") == 0))
			return FAIL_AT(c, &b, 1, "flatten(): qkv flattens in C order only");
		int64_t n = tensor_numel(b.x);
		struct tensor *c1 = ops_contiguous(b.x);
		struct tensor *copy = ops_clone(c1);
		tensor_unref(c1);
		struct tensor *r = ops_reshape(OPS(c), copy, 1, &n, err);
		tensor_unref(copy);
		return bound_done(c, &b, r, err);
	}
	if (bound_bind(c, P("input", "start_dim", "end_dim"), 1, &b, err) < 0)
		return NULL;
	int64_t s, e;
	if (args_int(c, &b.a, 1 - b.off, 0, &s, err) < 0 || args_int(c, &b.a, 2 - b.off, -1, &e, err) < 0)
		return bound_fail(&b);
	struct tensor *r = ops_flatten(OPS(c), b.x, s, e, err);
	if (!r)
		args_error(err, c, &b.a, -1, "%s", err->msg);
	return bound_done(c, &b, r, err);
}

/* x.mm(mat2) and torch.mm(input, mat2): two matrices, torch's words otherwise */
struct value *rank_mm(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("input", "mat2"), 2, &b, err) < 0)
		return NULL;
	struct tensor *m2;
	if (args_tensor(c, &b.a, 1 - b.off, &m2, err) < 0)
		return bound_fail(&b);
	if (b.x->ndim != 2)
		return FAIL_AT(c, &b, 0, "self must be a matrix");
	if (m2->ndim != 2)
		return FAIL_AT(c, &b, 1, "mat2 must be a matrix");
	if (b.x->shape[1] != m2->shape[0])
		return FAIL_AT(c, &b, 1, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
			       (long long)b.x->shape[0], (long long)b.x->shape[1], (long long)m2->shape[0],
			       (long long)m2->shape[1]);
	return bound_done(c, &b, ops_matmul(OPS(c), b.x, m2, err), err);
}

/* torch.linspace(start, end, steps, dtype=None) */
static struct value *rank_linspace(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("start", "end", "steps", "dtype"), 2, &a, err) < 0)
		return NULL;
	double s, e;
	int64_t n;
	bool has_dt;
	enum dtype dt = DT_F32;
	if (!a.v[2])
		return args_error(err, c, &a, -1, "TypeError: linspace() missing 1 required positional arguments: \"steps\""),
		       args_fail(&a);
	if (args_double(c, &a, 0, 0, &s, err) < 0 || args_double(c, &a, 1, 0, &e, err) < 0 ||
	    args_int(c, &a, 2, 0, &n, err) < 0 || args_dtype(c, &a, 3, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_linspace(OPS(c), FLAVOR_TORCH, s, e, n, true, dt, err), err);
}

/* np.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None) */
static struct value *rank_np_linspace(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("start", "stop", "num", "endpoint", "retstep", "dtype", "axis"), 2, &a, err) < 0)
		return NULL;
	double s, e;
	int64_t n;
	bool endpoint, retstep, has_dt;
	enum dtype dt = DT_F64;
	if (args_double(c, &a, 0, 0, &s, err) < 0 || args_double(c, &a, 1, 0, &e, err) < 0 ||
	    args_int(c, &a, 2, 50, &n, err) < 0 || args_bool(c, &a, 3, true, &endpoint, err) < 0 ||
	    args_bool(c, &a, 4, false, &retstep, err) < 0 || args_dtype(c, &a, 5, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if (a.v[6] && !(a.v[6]->kind == V_INT && a.v[6]->i == 0))
		return args_error(err, c, &a, 6, "np.linspace(axis=...) of numbers has only axis 0"), args_fail(&a);
	struct tensor *t = ops_linspace(OPS(c), FLAVOR_NUMPY, s, e, n, endpoint, dt, err);
	if (!t || !retstep)
		return args_done(c, &a, t, err);
	int64_t div = endpoint ? n - 1 : n;
	struct value *r = value_seq(V_TUPLE, 2);
	r->items[0] = value_tensor(t);
	r->items[1] = value_float(div > 0 ? (e - s) / (double)div : NAN);
	return args_return(&a, r);
}

/* ---- numpy's scalar types ---------------------------------------------------------------- */

/* np.float32(x), np.float64(x), np.int64(x), np.bool_(x): a number becomes
 * numpy's scalar of that type, an array (or a list) a converted array. */
const struct builtin rank_functions[] = {
	{ "torch.max", rank_max }, { "torch.min", rank_min }, { "torch.sort", rank_sort },
	{ "torch.argsort", rank_argsort }, { "torch.topk", rank_topk }, { "torch.std", rank_std },
	{ "torch.var", rank_var }, { "torch.flatten", rank_flatten }, { "torch.mm", rank_mm },
	{ "torch.linspace", rank_linspace },
	{ "numpy.sort", rank_np_sort }, { "numpy.argsort", rank_np_argsort }, { "numpy.std", rank_std },
	{ "numpy.var", rank_var }, { "numpy.linspace", rank_np_linspace },
	{ NULL, NULL },
};

struct value *rank_np_scalar(struct call *c, enum dtype dt, struct qkv_error *err)
{
	static const char *const names[] = { [DT_F32] = "np.float32", [DT_F64] = "np.float64", [DT_I64] = "np.int64",
					      [DT_BOOL] = "np.bool_" };
	c->name = names[dt];
	struct args a;
	if (args_bind(c, P("x"), 0, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	struct tensor *t;
	if (!v) {
		t = ops_scalar(dt, FLAVOR_NUMPY, 0);
	} else if (v->kind == V_TENSOR) {
		struct tensor *conv = ops_to_dtype(v->t, dt);
		t = tensor_alias(conv);
		t->flavor = FLAVOR_NUMPY;
		tensor_unref(conv);
	} else if (value_is_number(v) || v->kind == V_LIST || v->kind == V_TUPLE) {
		if (dt == DT_I64 && v->kind == V_FLOAT && !isfinite(v->f))
			return args_error(err, c, &a, 0, "%s: cannot convert float %s to integer",
					  isnan(v->f) ? "ValueError" : "OverflowError", isnan(v->f) ? "NaN" : "infinity"),
			       args_fail(&a);
		if (dt == DT_I64 && v->kind == V_FLOAT && fabs(v->f) >= 9.2233720368547758e18)
			return args_error(err, c, &a, 0, "OverflowError: Python int too large to convert to C long"),
			       args_fail(&a);
		t = args_to_tensor(c, &a, 0, FLAVOR_NUMPY, true, dt, err);
		if (!t)
			return args_fail(&a);
	} else if (v->kind == V_STR) {	/* np.float32("1.5"): as float("1.5") (int("3") for int64) */
		const struct builtin *conv = runtime_find_function(dt == DT_I64 ? "builtins.int" : "builtins.float");
		struct value *num = dt == DT_BOOL ? value_bool(v->str[0] != 0) : conv->fn(c, err);
		if (!num)
			return args_fail(&a);
		t = ops_scalar(dt, FLAVOR_NUMPY, num->kind == V_INT ? (double)num->i : num->kind == V_BOOL ? num->b : num->f);
		value_unref(num);
	} else {
		return args_error(err, c, &a, 0, "%s() of a %s is not supported in qkv; give a number or an array",
				  c->name, value_type_name(v)), args_fail(&a);
	}
	return args_done(c, &a, t, err);
}
