/* methods.c: attributes and methods of values: x.T, x.shape, x.view(...),
 * x.masked_fill(...), module members (torch.randn), and calling nn objects
 * (Linear, Dropout). Also the one dispatcher every call goes through.
 * Called by eval.c; never prints. */
#include "lang/args.h"
#include "lang/autograd.h"
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




static struct tensor *SELF(struct call *c)
{
	return c->self->t;
}

static bool is_numpy(struct call *c)
{
	return SELF(c)->flavor == FLAVOR_NUMPY;
}

static struct value *shape_value(const struct tensor *t)
{
	struct value *s = value_seq(t->flavor == FLAVOR_NUMPY ? V_TUPLE : V_SIZE, t->ndim);
	for (int i = 0; i < t->ndim; i++)
		s->items[i] = value_int(t->shape[i]);
	return s;
}

/* ---- tensor methods ------------------------------------------------------------ */

static struct value *m_transpose(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (is_numpy(c)) {
		/* numpy: a.transpose() reverses the axes, a.transpose(1, 0, 2) permutes */
		if (args_bind(c, P("*"), 0, &a, err) < 0)
			return NULL;
		int n, perm[TENSOR_MAX_DIMS];
		if (args_dims(c, &a, 0, SELF(c)->ndim, FLAVOR_NUMPY, &n, perm, err) < 0)
			return args_fail(&a);
		if (n == 0)
			return args_done(c, &a, ops_reverse_dims(SELF(c)), err);
		return args_done(c, &a, ops_permute(SELF(c), perm, n, err), err);
	}
	if (args_bind(c, P("dim0", "dim1"), 2, &a, err) < 0)
		return NULL;
	int d0, d1;
	if (args_dim(c, &a, 0, SELF(c)->ndim, &d0, err) < 0 || args_dim(c, &a, 1, SELF(c)->ndim, &d1, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_transpose(SELF(c), d0, d1, err), err);
}

static struct value *m_t(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	if (SELF(c)->ndim > 2)
		return args_error(err, c, &a, -1, "t() expects a tensor of at most 2 dimensions, got %d-D "
				  "(use transpose(a, b))", SELF(c)->ndim), args_fail(&a);
	return args_done(c, &a, ops_reverse_dims(SELF(c)), err);
}

static struct value *reshape_like(struct call *c, bool view, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("*"), 1, &a, err) < 0)
		return NULL;
	int n;
	int64_t shape[TENSOR_MAX_DIMS];
	if (args_shape(c, &a, 0, &n, shape, true, err) < 0)
		return args_fail(&a);
	struct tensor *r = view ? ops_view(OPS(c), SELF(c), n, shape, err) : ops_reshape(OPS(c), SELF(c), n, shape, err);
	return args_done(c, &a, r, err);
}

static struct value *m_view(struct call *c, struct qkv_error *err) { return reshape_like(c, true, err); }
static struct value *m_reshape(struct call *c, struct qkv_error *err) { return reshape_like(c, false, err); }

static struct value *m_permute(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("*"), 1, &a, err) < 0)
		return NULL;
	int n, perm[TENSOR_MAX_DIMS];
	if (args_dims(c, &a, 0, SELF(c)->ndim, FLAVOR_TORCH, &n, perm, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_permute(SELF(c), perm, n, err), err);
}

static struct value *no_args(struct call *c, struct tensor *(*fn)(struct tensor *), struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_done(c, &a, fn(SELF(c)), err);
}

static struct tensor *clone_of(struct tensor *t) { return ops_clone(t); }
static struct tensor *ref_of(struct tensor *t) { return tensor_ref(t); }
static struct tensor *all_of(struct tensor *t) { return ops_all_any(t, false); }
static struct tensor *any_of(struct tensor *t) { return ops_all_any(t, true); }
static struct tensor *to_bool(struct tensor *t) { return ops_to_dtype(t, DT_BOOL); }
static struct tensor *to_f32(struct tensor *t) { return ops_to_dtype(t, DT_F32); }
static struct tensor *to_f64(struct tensor *t) { return ops_to_dtype(t, DT_F64); }
static struct tensor *to_i64(struct tensor *t) { return ops_to_dtype(t, DT_I64); }

static struct tensor *as_numpy(struct tensor *t)
{
	struct tensor *v = tensor_alias(t);
	v->flavor = FLAVOR_NUMPY;
	return v;
}

static struct value *m_contiguous(struct call *c, struct qkv_error *err) { return no_args(c, ops_contiguous, err); }
static struct value *m_clone(struct call *c, struct qkv_error *err) { return no_args(c, clone_of, err); }
static struct value *m_detach(struct call *c, struct qkv_error *err) { return no_args(c, ref_of, err); }
static struct value *m_bool(struct call *c, struct qkv_error *err) { return no_args(c, to_bool, err); }
static struct value *m_float(struct call *c, struct qkv_error *err) { return no_args(c, to_f32, err); }
static struct value *m_double(struct call *c, struct qkv_error *err) { return no_args(c, to_f64, err); }
static struct value *m_long(struct call *c, struct qkv_error *err) { return no_args(c, to_i64, err); }
static struct value *m_numpy(struct call *c, struct qkv_error *err) { return no_args(c, as_numpy, err); }
static struct value *m_T_fn(struct call *c, struct qkv_error *err) { return no_args(c, ops_reverse_dims, err); }

static struct value *m_all(struct call *c, struct qkv_error *err)
{
	if (c->nargs || c->nkw)
		return error_set(err, c->node->line, c->node->col, "all() with a dim is not supported; "
				 "use .all() over the whole tensor"), NULL;
	return no_args(c, all_of, err);
}

static struct value *m_any(struct call *c, struct qkv_error *err)
{
	if (c->nargs || c->nkw)
		return error_set(err, c->node->line, c->node->col, "any() with a dim is not supported; "
				 "use .any() over the whole tensor"), NULL;
	return no_args(c, any_of, err);
}

static struct value *m_is_contiguous(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_return(&a, value_bool(tensor_is_contiguous(SELF(c))));
}

static struct value *m_masked_fill_common(struct call *c, bool inplace, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("mask", "value"), 2, &a, err) < 0)
		return NULL;
	struct tensor *m;
	double v;
	if (args_tensor(c, &a, 0, &m, err) < 0 || args_double(c, &a, 1, 0, &v, err) < 0)
		return args_fail(&a);
	if (!inplace) {
		struct tensor *r = ops_masked_fill(OPS(c), SELF(c), m, v, err);
		if (!r)
			args_error(err, c, &a, 0, "%s", err->msg);
		return args_done(c, &a, r, err);
	}
	interp_will_write(c->I, SELF(c)->storage);
	if (ops_masked_fill_(OPS(c), SELF(c), m, v, err) < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_ref(c->self));
}

static struct value *m_masked_fill(struct call *c, struct qkv_error *err) { return m_masked_fill_common(c, false, err); }
static struct value *m_masked_fill_(struct call *c, struct qkv_error *err) { return m_masked_fill_common(c, true, err); }

static struct value *m_fill_common(struct call *c, bool zero, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, zero ? P(NULL) : P("value"), zero ? 0 : 1, &a, err) < 0)
		return NULL;
	double v = 0;
	if (!zero && args_double(c, &a, 0, 0, &v, err) < 0)
		return args_fail(&a);
	if (!dtype_is_float(SELF(c)->dtype) && !(v > -9.2233720368547758e18 && v < 9.2233720368547758e18))
		return args_error(err, c, &a, 0, "fill_(): %g does not fit in an %s tensor", v,
				  dtype_name(SELF(c)->dtype)), args_fail(&a);
	struct tensor *s = ops_scalar(SELF(c)->dtype, SELF(c)->flavor, v);
	interp_will_write(c->I, SELF(c)->storage);
	int rc = ops_assign(SELF(c), s, err);
	tensor_unref(s);
	if (rc < 0)
		return args_fail(&a);
	return args_return(&a, value_ref(c->self));
}

static struct value *m_fill_(struct call *c, struct qkv_error *err) { return m_fill_common(c, false, err); }

/* x.copy_(src): src's values (broadcast, converted to x's dtype) written into x */
static struct value *m_copy_(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("src", "non_blocking"), 1, &a, err) < 0)
		return NULL;
	struct tensor *src;
	if (args_tensor(c, &a, 0, &src, err) < 0)
		return args_fail(&a);
	interp_will_write(c->I, SELF(c)->storage);
	if (ops_assign(SELF(c), src, err) < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_ref(c->self));
}
static struct value *m_zero_(struct call *c, struct qkv_error *err) { return m_fill_common(c, true, err); }

static struct value *m_reduce(struct call *c, enum reduce_op op, struct qkv_error *err)
{
	struct args a;
	bool numpy = is_numpy(c);
	if (args_bind(c, numpy ? P("axis", "keepdims") : P("dim", "keepdim"), 0, &a, err) < 0)
		return NULL;
	bool all, keep;
	int dims[TENSOR_MAX_DIMS], n;
	/* argmax and argmin take one dim, the others several */
	if (args_reduce_dims(c, &a, 0, SELF(c)->ndim, SELF(c)->flavor, op < REDUCE_ARGMAX, &all, &n, dims, err) < 0 ||
	    args_bool(c, &a, 1, false, &keep, err) < 0)
		return args_fail(&a);
	struct tensor *r = all ? ops_reduce(OPS(c), SELF(c), true, 0, keep, op, err)
			       : ops_reduce_dims(OPS(c), SELF(c), n, dims, keep, op, err);
	if (!r)
		args_error(err, c, &a, 0, "%s", err->msg);
	return args_done(c, &a, r, err);
}

static struct value *m_sum(struct call *c, struct qkv_error *err) { return m_reduce(c, REDUCE_SUM, err); }
static struct value *m_mean(struct call *c, struct qkv_error *err) { return m_reduce(c, REDUCE_MEAN, err); }
/* torch's x.max(dim) gives values and indices (rank.c), numpy's a.max(axis) the values */
static struct value *m_max(struct call *c, struct qkv_error *err)
{
	return is_numpy(c) ? m_reduce(c, REDUCE_MAX, err) : rank_max(c, err);
}

static struct value *m_min(struct call *c, struct qkv_error *err)
{
	return is_numpy(c) ? m_reduce(c, REDUCE_MIN, err) : rank_min(c, err);
}
static struct value *m_argmax(struct call *c, struct qkv_error *err) { return m_reduce(c, REDUCE_ARGMAX, err); }
static struct value *m_argmin(struct call *c, struct qkv_error *err) { return m_reduce(c, REDUCE_ARGMIN, err); }

static struct value *m_amax_common(struct call *c, enum reduce_op op, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dim", "keepdim"), 0, &a, err) < 0)
		return NULL;
	bool all, keep;
	int dims[TENSOR_MAX_DIMS], n;
	if (args_reduce_dims(c, &a, 0, SELF(c)->ndim, FLAVOR_TORCH, true, &all, &n, dims, err) < 0 ||
	    args_bool(c, &a, 1, false, &keep, err) < 0)
		return args_fail(&a);
	struct tensor *r = all ? ops_reduce(OPS(c), SELF(c), true, 0, keep, op, err)
			       : ops_reduce_dims(OPS(c), SELF(c), n, dims, keep, op, err);
	if (!r)
		args_error(err, c, &a, 0, "%s", err->msg);
	return args_done(c, &a, r, err);
}

static struct value *m_classify(struct call *c, enum ops_class what, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_done(c, &a, ops_classify(SELF(c), what), err);
}

static struct value *m_isinf(struct call *c, struct qkv_error *err) { return m_classify(c, OPS_ISINF, err); }
static struct value *m_isnan(struct call *c, struct qkv_error *err) { return m_classify(c, OPS_ISNAN, err); }
static struct value *m_isfinite(struct call *c, struct qkv_error *err) { return m_classify(c, OPS_ISFINITE, err); }

static struct value *m_amax(struct call *c, struct qkv_error *err) { return m_amax_common(c, REDUCE_MAX, err); }
static struct value *m_amin(struct call *c, struct qkv_error *err) { return m_amax_common(c, REDUCE_MIN, err); }

static struct value *m_unary(struct call *c, enum ew_unary op, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_done(c, &a, ops_unary(OPS(c), SELF(c), op, err), err);
}

static struct value *m_exp(struct call *c, struct qkv_error *err) { return m_unary(c, EW_EXP, err); }
static struct value *m_sqrt(struct call *c, struct qkv_error *err) { return m_unary(c, EW_SQRT, err); }
static struct value *m_log(struct call *c, struct qkv_error *err) { return m_unary(c, EW_LOG, err); }
static struct value *m_abs(struct call *c, struct qkv_error *err) { return m_unary(c, EW_ABS, err); }
static struct value *m_tanh(struct call *c, struct qkv_error *err) { return m_unary(c, EW_TANH, err); }
static struct value *m_relu(struct call *c, struct qkv_error *err) { return m_unary(c, EW_RELU, err); }
static struct value *m_sigmoid(struct call *c, struct qkv_error *err) { return m_unary(c, EW_SIGMOID, err); }
static struct value *m_sin(struct call *c, struct qkv_error *err) { return m_unary(c, EW_SIN, err); }
static struct value *m_cos(struct call *c, struct qkv_error *err) { return m_unary(c, EW_COS, err); }

static struct value *m_softmax(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dim"), 1, &a, err) < 0)
		return NULL;
	int dim;
	if (args_need_float(c, &a, -1, SELF(c), err) < 0 || args_dim(c, &a, 0, SELF(c)->ndim, &dim, err) < 0)
		return args_fail(&a);
	bool log = strcmp(c->name, "log_softmax") == 0;	/* x.log_softmax(dim) */
	return args_done(c, &a, log ? ops_log_softmax(SELF(c), dim, err) : ops_softmax(OPS(c), SELF(c), dim, err), err);
}

static struct value *m_unsqueeze(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dim"), 1, &a, err) < 0)
		return NULL;
	int dim;
	if (args_dim(c, &a, 0, SELF(c)->ndim + 1, &dim, err) < 0)
		return args_fail(&a);
	struct tensor *r = ops_unsqueeze(SELF(c), dim, err);
	if (!r)
		args_error(err, c, &a, 0, "%s", err->msg);
	return args_done(c, &a, r, err);
}

static struct value *m_squeeze(struct call *c, struct qkv_error *err)
{
	if (is_numpy(c))
		return arrays_squeeze(c, err);	/* numpy's axis must be a dim of 1 */
	struct args a;
	if (args_bind(c, P("dim"), 0, &a, err) < 0)
		return NULL;
	struct tensor *t = SELF(c);
	int64_t shape[TENSOR_MAX_DIMS];
	int n = 0;
	if (a.v[0] && a.v[0]->kind != V_NONE) {
		int dim;
		if (args_dim(c, &a, 0, t->ndim, &dim, err) < 0)
			return args_fail(&a);
		for (int i = 0; i < t->ndim; i++)
			if (i != dim || t->shape[i] != 1)
				shape[n++] = t->shape[i];
	} else {
		for (int i = 0; i < t->ndim; i++)
			if (t->shape[i] != 1)
				shape[n++] = t->shape[i];
	}
	return args_done(c, &a, ops_reshape(OPS(c), t, n, shape, err), err);
}

static struct value *m_binary_tensor(struct call *c,
				     struct tensor *(*fn)(const struct ops_ctx *, struct tensor *, struct tensor *,
							  struct qkv_error *), struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("other"), 1, &a, err) < 0)
		return NULL;
	struct tensor *o;
	if (args_tensor(c, &a, 0, &o, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, fn(OPS(c), SELF(c), o, err), err);
}

static struct value *m_matmul(struct call *c, struct qkv_error *err) { return m_binary_tensor(c, ops_matmul, err); }

static struct value *m_dot(struct call *c, struct qkv_error *err)
{
	return m_binary_tensor(c, is_numpy(c) ? ops_matmul : ops_dot, err);
}

static struct value *m_tri(struct call *c, bool upper, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("diagonal"), 0, &a, err) < 0)
		return NULL;
	int64_t d;
	if (args_int(c, &a, 0, 0, &d, err) < 0)
		return args_fail(&a);
	d = d > INT32_MAX ? INT32_MAX : d < -INT32_MAX ? -INT32_MAX : d;
	return args_done(c, &a, ops_tri(OPS(c), SELF(c), d, upper, err), err);
}

static struct value *m_tril(struct call *c, struct qkv_error *err) { return m_tri(c, false, err); }
static struct value *m_triu(struct call *c, struct qkv_error *err) { return m_tri(c, true, err); }

static struct value *m_item(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	struct tensor *t = SELF(c);
	if (tensor_numel(t) != 1)
		return args_error(err, c, &a, -1, "item() needs a tensor with one element, this one has %lld",
				  (long long)tensor_numel(t)), args_fail(&a);
	struct value *v = t->dtype == DT_BOOL ? value_bool(tensor_get(t, 0) != 0)
			: t->dtype == DT_I64 ? value_int(tensor_get_i64(t, 0)) : value_float(tensor_get(t, 0));
	return args_return(&a, v);
}

static struct value *m_size(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dim"), 0, &a, err) < 0)
		return NULL;
	struct tensor *t = SELF(c);
	if (!a.v[0])
		return args_return(&a, shape_value(t));
	int dim;
	if (args_dim(c, &a, 0, t->ndim, &dim, err) < 0)
		return args_fail(&a);
	return args_return(&a, value_int(t->shape[dim]));
}

static struct value *m_stride(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dim"), 0, &a, err) < 0)
		return NULL;
	struct tensor *t = SELF(c);
	if (!a.v[0]) {
		struct value *s = value_seq(V_TUPLE, t->ndim);
		for (int i = 0; i < t->ndim; i++)
			s->items[i] = value_int(t->strides[i]);
		return args_return(&a, s);
	}
	int dim;
	if (args_dim(c, &a, 0, t->ndim, &dim, err) < 0)
		return args_fail(&a);
	return args_return(&a, value_int(t->strides[dim]));
}

static struct value *m_dim(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_return(&a, value_int(SELF(c)->ndim));
}

static struct value *m_numel(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_return(&a, value_int(tensor_numel(SELF(c))));
}

static struct value *m_astype(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dtype"), 1, &a, err) < 0)
		return NULL;
	bool given;
	enum dtype dt;
	if (args_dtype(c, &a, 0, &given, &dt, err) < 0)
		return args_fail(&a);
	struct tensor *t = ops_to_dtype(SELF(c), dt);
	struct tensor *r = t == SELF(c) ? ops_clone(t) : tensor_ref(t);
	tensor_unref(t);
	return args_done(c, &a, r, err);
}

static struct value *m_to(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("dtype"), 1, &a, err) < 0)
		return NULL;
	bool given;
	enum dtype dt;
	if (args_dtype(c, &a, 0, &given, &dt, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_to_dtype(SELF(c), dt), err);
}

/* x.type(): its type's name ('torch.FloatTensor'); x.type(dtype) or
 * x.type('torch.DoubleTensor'): x as that dtype (x itself when it is). */
static struct value *m_type(struct call *c, struct qkv_error *err)
{
	static const char *const names[] = { [DT_F32] = "torch.FloatTensor", [DT_F64] = "torch.DoubleTensor",
					      [DT_I64] = "torch.LongTensor", [DT_BOOL] = "torch.BoolTensor" };
	struct args a;
	if (args_bind(c, P("dtype"), 0, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	if (!v || v->kind == V_NONE)
		return args_return(&a, value_str(names[SELF(c)->dtype]));
	enum dtype dt = DT_F32;
	bool known = v->kind == V_DTYPE;
	if (known) {
		dt = v->dtype;
	} else if (v->kind == V_STR) {
		for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
			if (names[k] && strcmp(v->str, names[k]) == 0) {
				dt = (enum dtype)k;
				known = true;
			}
		if (!known)
			return args_error(err, c, &a, 0, "ValueError: invalid type: '%s'", v->str), args_fail(&a);
	}
	if (!known)
		return args_error(err, c, &a, 0, "type(): argument 'dtype' must be torch.dtype or str, not %s",
				  value_type_name(v)), args_fail(&a);
	return args_done(c, &a, dt == SELF(c)->dtype ? tensor_ref(SELF(c)) : ops_to_dtype(SELF(c), dt), err);
}

static struct value *m_tolist_rec(struct tensor *t)
{
	if (t->ndim == 0) {
		return t->dtype == DT_BOOL ? value_bool(tensor_get(t, 0) != 0)
		       : t->dtype == DT_I64 ? value_int(tensor_get_i64(t, 0)) : value_float(tensor_get(t, 0));
	}
	struct value *l = value_seq(V_LIST, (int)t->shape[0]);
	for (int64_t i = 0; i < t->shape[0]; i++) {
		struct tensor *s = ops_select(t, 0, i, NULL);
		l->items[i] = m_tolist_rec(s);
		tensor_unref(s);
	}
	return l;
}

static struct value *m_tolist(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	if (tensor_numel(SELF(c)) > 100000)
		return args_error(err, c, &a, -1, "tolist() of %lld elements is too long",
				  (long long)tensor_numel(SELF(c))), args_fail(&a);
	return args_return(&a, m_tolist_rec(SELF(c)));
}

static const struct builtin tensor_methods[] = {
	{ "transpose", m_transpose }, { "t", m_t }, { "view", m_view }, { "reshape", m_reshape },
	{ "permute", m_permute }, { "contiguous", m_contiguous }, { "is_contiguous", m_is_contiguous },
	{ "clone", m_clone }, { "copy", m_clone }, { "detach", m_detach }, { "numpy", m_numpy },
	{ "bool", m_bool }, { "float", m_float }, { "double", m_double }, { "long", m_long },
	{ "astype", m_astype }, { "to", m_to },
	{ "masked_fill", m_masked_fill }, { "masked_fill_", m_masked_fill_ },
	{ "fill_", m_fill_ }, { "zero_", m_zero_ }, { "copy_", m_copy_ },
	{ "sum", m_sum }, { "mean", m_mean }, { "max", m_max }, { "min", m_min }, { "amax", m_amax },
	{ "amin", m_amin }, { "all", m_all }, { "any", m_any }, { "argmax", m_argmax }, { "argmin", m_argmin },
	{ "isinf", m_isinf }, { "isnan", m_isnan }, { "isfinite", m_isfinite },
	{ "exp", m_exp }, { "sqrt", m_sqrt }, { "log", m_log }, { "abs", m_abs }, { "tanh", m_tanh },
	{ "relu", m_relu }, { "sin", m_sin }, { "cos", m_cos }, { "sigmoid", m_sigmoid },
	{ "log_softmax", m_softmax },
	{ "softmax", m_softmax }, { "unsqueeze", m_unsqueeze }, { "squeeze", m_squeeze },
	{ "matmul", m_matmul }, { "dot", m_dot }, { "tril", m_tril }, { "triu", m_triu },
	{ "item", m_item }, { "size", m_size }, { "stride", m_stride }, { "dim", m_dim }, { "numel", m_numel },
	{ "sort", rank_sort }, { "argsort", rank_argsort }, { "topk", rank_topk }, { "std", rank_std },
	{ "var", rank_var }, { "flatten", rank_flatten }, { "mm", rank_mm },
	{ "type", m_type }, { "round", rounding_method }, { "split", pieces_split }, { "chunk", pieces_chunk },
	{ "expand", pieces_expand }, { "repeat", pieces_repeat },
	{ "repeat_interleave", pieces_repeat_interleave }, { "clip", bounds_clip_method },
	{ "clamp", bounds_clamp_method }, { "clamp_", bounds_clamp_ }, { "clamp_min", bounds_clamp_min },
	{ "clamp_max", bounds_clamp_max }, { "normal_", sampling_normal_ },
	{ "uniform_", sampling_uniform_ }, { "cumsum", accumulate_cumsum_method },
	{ "norm", norms_method },
	{ "add", arith_binary }, { "sub", arith_binary }, { "subtract", arith_binary }, { "mul", arith_binary },
	{ "multiply", arith_binary }, { "div", arith_binary }, { "divide", arith_binary },
	{ "true_divide", arith_binary }, { "floor_divide", arith_binary }, { "remainder", arith_binary },
	{ "pow", arith_binary }, { "eq", arith_binary }, { "ne", arith_binary }, { "lt", arith_binary },
	{ "le", arith_binary }, { "gt", arith_binary }, { "ge", arith_binary }, { "add_", arith_binary },
	{ "sub_", arith_binary }, { "mul_", arith_binary }, { "div_", arith_binary }, { "maximum", arith_maximum },
	{ "minimum", arith_minimum }, { "neg", arith_unary }, { "negative", arith_unary }, { "square", arith_unary },
	{ "reciprocal", arith_unary }, { "cpu", aliases_cpu }, { "expand_as", aliases_expand_as },
	{ "type_as", aliases_type_as }, { "logical_not", aliases_logical_not }, { "unbind", aliases_unbind },
	{ "floor", unary_method }, { "ceil", unary_method }, { "trunc", unary_method }, { "sign", unary_method },
	{ "rsqrt", unary_method }, { "log2", unary_method }, { "log10", unary_method }, { "log1p", unary_method },
	{ "expm1", unary_method }, { "exp2", unary_method }, { "erf", unary_method }, { "prod", products_prod_method },
	{ "logsumexp", products_logsumexp }, { "flip", arrange_flip_method }, { "gather", select_gather_method },
	{ "nonzero", select_nonzero_method },
	{ "tolist", m_tolist }, { "__T", m_T_fn }, { "requires_grad_", autograd_requires_grad_ },
};

/* ---- nn objects ----------------------------------------------------------------- */

static struct value *m_train_eval(struct call *c, bool training, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("mode"), 0, &a, err) < 0)
		return NULL;
	bool mode;
	if (args_bool(c, &a, 0, true, &mode, err) < 0)
		return args_fail(&a);
	c->self->obj->training = training ? mode : false;
	return args_return(&a, value_ref(c->self));
}

static struct value *m_train(struct call *c, struct qkv_error *err) { return m_train_eval(c, true, err); }
static struct value *m_eval(struct call *c, struct qkv_error *err) { return m_train_eval(c, false, err); }

static const struct builtin object_methods[] = {
	{ "train", m_train }, { "eval", m_eval },
};

static struct value *call_object(struct call *c, struct value *callee, struct qkv_error *err)
{
	struct object *o = callee->obj;
	struct args a;
	c->name = object_kind_name(o->kind);
	if (o->kind == OBJ_EMBEDDING || o->kind == OBJ_LAYERNORM)
		return nnlayers_call(c, o, err);
	if (args_bind(c, P("input"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	if (o->kind == OBJ_DROPOUT) {
		if (!o->training)
			return args_done(c, &a, tensor_ref(x), err);
		return args_done(c, &a, ops_dropout(OPS(c), x, o->p, &c->I->g.torch_rng, err), err);
	}
	/* Linear: y = x · Wᵀ + b */
	struct tensor *w = o->weight->t;
	if (x->ndim == 0 || x->shape[x->ndim - 1] != w->shape[w->ndim - 1]) {
		char b1[96], b2[96];
		return args_error(err, c, &a, 0, "Linear(in_features=%lld): the input's last dimension must be %lld, "
				  "got shape %s (weight %s)", (long long)o->in_features,
				  (long long)w->shape[w->ndim - 1], tensor_shape_str(b1, sizeof b1, x->ndim, x->shape),
				  tensor_shape_str(b2, sizeof b2, w->ndim, w->shape)), args_fail(&a);
	}
	struct tensor *wt = ops_reverse_dims(w);
	struct tensor *r = ops_matmul(OPS(c), x, wt, err);
	tensor_unref(wt);
	if (r && o->bias && o->bias->kind == V_TENSOR) {
		struct operand o1 = { r, false }, o2 = { o->bias->t, false };
		struct tensor *rb = ops_binary(OPS(c), o1, o2, EW_ADD, err);
		tensor_unref(r);
		r = rb;
	}
	return args_done(c, &a, r, err);
}

/* ---- attributes ---------------------------------------------------------------- */

static const struct builtin *find(const struct builtin *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

/* The tensor attributes and methods numpy's arrays (and scalars) have too;
 * the others qkv knows are torch's alone. */
static const char *const ndarray_names[] = {
	"T", "data", "shape", "ndim", "dtype", "size", "transpose", "view", "reshape", "copy", "astype", "sum",
	"mean", "max", "min", "all", "any", "argmax", "argmin", "dot", "item", "sort", "argsort", "std", "var",
	"flatten", "round", "repeat", "clip", "cumsum", "tolist", "squeeze", "prod", "nonzero",
};

/* Whether name is an attribute or method of torch's tensors that numpy's
 * arrays lack (x.softmax, x.requires_grad, ...): Python's AttributeError
 * then, where qkv could otherwise compute what numpy would refuse. */
bool runtime_torch_alone(const char *name)
{
	static const char *const torch_attrs[] = { "mT", "requires_grad", "is_leaf", "grad_fn", "grad" };
	for (size_t i = 0; i < sizeof ndarray_names / sizeof ndarray_names[0]; i++)
		if (strcmp(name, ndarray_names[i]) == 0)
			return false;
	for (size_t i = 0; i < sizeof torch_attrs / sizeof torch_attrs[0]; i++)
		if (strcmp(name, torch_attrs[i]) == 0)
			return true;
	return name[0] != '_' && find(tensor_methods, sizeof tensor_methods / sizeof tensor_methods[0], name);
}

struct value *runtime_attr(struct interp *I, struct value *self, const char *name, struct qkv_error *err)
{
	bool numpy_value = (value_is_number(self) && self->np) || (self->kind == V_TENSOR && self->t->flavor == FLAVOR_NUMPY);
	if (numpy_value && runtime_torch_alone(name))
		return error_set(err, 0, 0, "AttributeError: '%s' object has no attribute '%s'",
				 self->kind == V_TENSOR ? "numpy.ndarray" : value_type_name(self), name), NULL;
	if (value_is_number(self) && self->np && name[0] != '_') {
		/* a numpy scalar has a 0-d array's attributes (item, dtype, shape,
		 * round, astype, ...), and np.float64 a float's besides */
		struct value *x = value_tensor(value_scalar_array(self));
		struct value *r = runtime_attr(I, x, name, err);
		value_unref(x);
		if (r && r->kind == V_TENSOR && r->t->ndim == 0 && r->t->flavor == FLAVOR_NUMPY) {
			struct value *s = value_from_result(tensor_ref(r->t));	/* (x.T: the scalar) */
			value_unref(r);
			return s;
		}
		if (r)
			return r;
	}
	if (self->kind == V_MODULE) {
		struct value *v = runtime_module_attr(self->str, name);
		if (!v)
			error_set(err, 0, 0, "module '%s' has no attribute '%s' in qkv", self->str, name);
		return v;
	}
	if (self->kind == V_TENSOR) {
		struct tensor *t = self->t;
		struct value *g;
		if (autograd_attr(I, self, name, &g, err))	/* T, mT, data, requires_grad, grad_fn, ... */
			return g;
		if (strcmp(name, "shape") == 0)
			return shape_value(t);
		if (strcmp(name, "ndim") == 0)
			return value_int(t->ndim);
		if (strcmp(name, "dtype") == 0)
			return value_dtype(t->dtype, t->flavor);
		if (strcmp(name, "size") == 0 && t->flavor == FLAVOR_NUMPY)
			return value_int(tensor_numel(t));
		if (find(tensor_methods, sizeof tensor_methods / sizeof tensor_methods[0], name) && name[0] != '_')
			return value_method(self, name);
		return error_set(err, 0, 0, "'%s' object has no attribute '%s' in qkv", value_type_name(self), name),
		       NULL;
	}
	if (self->kind == V_OBJECT) {
		struct object *o = self->obj;
		if (o->kind == OBJ_LINEAR) {
			if (strcmp(name, "weight") == 0)
				return value_ref(o->weight);
			if (strcmp(name, "bias") == 0)
				return value_ref(o->bias);
			if (strcmp(name, "in_features") == 0)
				return value_int(o->in_features);
			if (strcmp(name, "out_features") == 0)
				return value_int(o->out_features);
		} else if (o->kind == OBJ_DROPOUT) {
			if (strcmp(name, "p") == 0)
				return value_float(o->p);
		} else {
			struct value *r = nnlayers_attr(o, name);
			if (r)
				return r;
		}
		if (strcmp(name, "training") == 0)
			return value_bool(o->training);
		if (find(object_methods, sizeof object_methods / sizeof object_methods[0], name) ||
		    class_has_method(self, name))
			return value_method(self, name);
		return error_set(err, 0, 0, "AttributeError: '%s' object has no attribute '%s'", value_type_name(self),
				 name), NULL;
	}
	if (self->kind == V_INSTANCE || self->kind == V_CLASS || self->kind == V_SUPER)
		return class_attr(I, self, name, err);
	if (self->kind == V_DTYPE && strcmp(name, "is_floating_point") == 0)
		return value_bool(dtype_is_float(self->dtype));
	if (self->kind == V_DTYPE && self->np && strcmp(name, "__name__") == 0)	/* np.float32.__name__ */
		return value_str(self->dtype == DT_BOOL ? "bool_" : dtype_name(self->dtype));
	if (strcmp(name, "__name__") == 0 && (self->kind == V_FUNC || self->kind == V_FUNCTION)) {
		const char *dot = self->kind == V_FUNC ? strrchr(self->str, '.') : NULL;
		return value_str(self->kind == V_FUNCTION ? self->fn->name : dot ? dot + 1 : self->str);
	}
	if (self->kind == V_TUPLE && self->str && (strcmp(name, "values") == 0 || strcmp(name, "indices") == 0))
		return value_ref(self->items[name[0] == 'i']);	/* torch.return_types.max & co */
	if (!class_name_allowed(name))
		return error_set(err, 0, 0, "AttributeError: qkv does not give access to '%s'", name), NULL;
	struct value *m = container_attr(self, name);
	if (m)
		return m;
	error_set(err, 0, 0, "AttributeError: '%s' object has no attribute '%s'", value_type_name(self), name);
	return NULL;
}

struct value *runtime_call(struct call *c, struct value *callee, struct qkv_error *err)
{
	if (callee->kind == V_FUNC) {
		const struct builtin *b = callee->builtin ? callee->builtin : runtime_find_function(callee->str);
		if (!b)
			return error_set(err, 0, 0, "'%s' is not callable", callee->str), NULL;
		/* the name as the notebooks spell it: np.sqrt, F.softmax, nn.Linear
		 * (torch.nn.functional. looked for after torch.nn., its start, has
		 * matched: torch.softmax compares one prefix) */
#define PREFIX(full, shown) { full, shown, sizeof full - 1 }
		static const struct { const char *full, *shown; size_t len; } prefixes[] = {
			PREFIX("builtins.", ""), PREFIX("numpy.", "np."), PREFIX("torch.nn.", "nn."),
			PREFIX("scipy.special.", ""),
		};
#undef PREFIX
		const char *qual = callee->str;
		c->name = qual;
		for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
			const char *rest = qual + prefixes[i].len, *shown = prefixes[i].shown;
			if (qual[0] != prefixes[i].full[0] || strncmp(qual, prefixes[i].full, prefixes[i].len) != 0)
				continue;
			if (strcmp(shown, "nn.") == 0 && strncmp(rest, "functional.", 11) == 0)
				rest += 11, shown = "F.";
			snprintf(c->namebuf, sizeof c->namebuf, "%s%s", shown, rest);
			c->name = c->namebuf;
			break;
		}
		return autograd_call(c, qual, b->fn, err);
	}
	if (callee->kind == V_METHOD) {
		c->self = callee->self;
		c->name = callee->str;
		const struct builtin *b = NULL;
		if (c->self->kind == V_TENSOR)
			b = find(tensor_methods, sizeof tensor_methods / sizeof tensor_methods[0], callee->str);
		else if (c->self->kind == V_OBJECT)
			b = find(object_methods, sizeof object_methods / sizeof object_methods[0], callee->str);
		else if (c->self->kind == V_INSTANCE || c->self->kind == V_OBJECT)
			return class_call_method(c, err);
		else
			return container_call(c, err);
		if (!b && c->self->kind == V_OBJECT)
			return class_call_method(c, err);
		if (!b)
			return error_set(err, 0, 0, "no method %s", callee->str), NULL;
		return autograd_call(c, callee->str, b->fn, err);
	}
	if (callee->kind == V_FUNCTION)
		return scope_call(c, callee, NULL, err);
	if (callee->kind == V_BOUND)
		return scope_call(c, callee->items[0], callee->self, err);
	if (callee->kind == V_CLASS) {
		c->name = callee->cls->name;
		return class_new_instance(c, callee, err);
	}
	if (callee->kind == V_INSTANCE)
		return class_call_instance(c, callee, err);
	if (callee->kind == V_OBJECT)
		return autograd_object(c, callee, call_object(c, callee, err));
	if (callee->kind == V_DTYPE && callee->flavor == FLAVOR_NUMPY)
		return rank_np_scalar(c, callee->dtype, err);
	if (callee->kind == V_DTYPE)
		return error_set(err, 0, 0, "dtypes are not callable in qkv; use x.float() or .astype(...)"), NULL;
	error_set(err, 0, 0, "TypeError: '%s' object is not callable", value_type_name(callee));
	return NULL;
}

void runtime_each_method(void (*fn)(void *udata, const char *qualified), void *udata)
{
	static const char *const attrs[] = { "Tensor.T", "Tensor.shape", "Tensor.ndim", "Tensor.dtype", "Tensor.mT" };
	char buf[64];
	for (size_t i = 0; i < sizeof tensor_methods / sizeof tensor_methods[0]; i++) {
		if (tensor_methods[i].name[0] == '_')
			continue;
		snprintf(buf, sizeof buf, "Tensor.%s", tensor_methods[i].name);
		fn(udata, buf);
	}
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
		fn(udata, attrs[i]);
}
