/* builtins.c: the functions and constants of torch, torch.nn,
 * torch.nn.functional, numpy, numpy.random, scipy.special, math and Python's
 * own builtins (print, len, float, ...). These are the only names the
 * language knows: there are no imports of real modules and no file or system
 * access. Called through runtime_call/runtime_module_attr; never prints except
 * through the interpreter's emit callback (print). */
#include "lang/args.h"
#include "lang/runtime.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

extern const struct builtin py_functions[];	/* pyfuncs.c */

static struct ops_ctx *OPS(struct call *c)
{
	return &c->I->ops;
}

/* ---- creation ------------------------------------------------------------------ */

enum fill { FILL_ZEROS, FILL_ONES, FILL_RAND, FILL_RANDN, FILL_VALUE };

static struct value *create(struct call *c, enum fill fill, enum flavor fl, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("*", "dtype"), 0, &a, err) < 0)
		return NULL;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	bool has_dt;
	enum dtype dt = fl == FLAVOR_NUMPY ? DT_F64 : DT_F32;
	if (args_shape(c, &a, 0, &ndim, shape, false, err) < 0 || args_dtype(c, &a, 1, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if ((fill == FILL_RAND || fill == FILL_RANDN) && !dtype_is_float(dt))
		return args_error(err, c, &a, 1, "%s() makes floating-point numbers; dtype %s is not allowed",
				  c->name, dtype_name(dt)), args_fail(&a);
	struct tensor *t = ops_new(OPS(c), dt, fl, ndim, shape, err);
	if (!t)
		return args_done(c, &a, NULL, err);
	int64_t n = tensor_numel(t);
	void *d = t->storage->data;
	switch (fill) {
	case FILL_ZEROS: break;
	case FILL_ONES:
		for (int64_t i = 0; i < n; i++)
			tensor_set(t, i, 1);
		break;
	case FILL_RAND:
		if (fl == FLAVOR_NUMPY)
			np_fill_rand(&c->I->g.np_rng, d, n);
		else if (dt == DT_F32)
			torch_fill_uniform_f32(&c->I->g.torch_rng, d, n, 0, 1);
		else
			torch_fill_uniform_f64(&c->I->g.torch_rng, d, n, 0, 1);
		break;
	case FILL_RANDN:
		if (fl == FLAVOR_NUMPY)
			np_fill_randn(&c->I->g.np_rng, d, n);
		else if (dt == DT_F32)
			torch_fill_normal_f32(&c->I->g.torch_rng, d, n, 0, 1);
		else
			torch_fill_normal_f64(&c->I->g.torch_rng, d, n, 0, 1);
		break;
	case FILL_VALUE: break;	/* like() only */
	}
	return args_done(c, &a, t, err);
}

static struct value *f_zeros(struct call *c, struct qkv_error *err) { return create(c, FILL_ZEROS, FLAVOR_TORCH, err); }
static struct value *f_ones(struct call *c, struct qkv_error *err) { return create(c, FILL_ONES, FLAVOR_TORCH, err); }
static struct value *f_rand(struct call *c, struct qkv_error *err) { return create(c, FILL_RAND, FLAVOR_TORCH, err); }
static struct value *f_randn(struct call *c, struct qkv_error *err) { return create(c, FILL_RANDN, FLAVOR_TORCH, err); }
static struct value *np_zeros(struct call *c, struct qkv_error *err) { return create(c, FILL_ZEROS, FLAVOR_NUMPY, err); }
static struct value *np_ones(struct call *c, struct qkv_error *err) { return create(c, FILL_ONES, FLAVOR_NUMPY, err); }
static struct value *np_rand(struct call *c, struct qkv_error *err) { return create(c, FILL_RAND, FLAVOR_NUMPY, err); }
static struct value *np_randn(struct call *c, struct qkv_error *err) { return create(c, FILL_RANDN, FLAVOR_NUMPY, err); }

static struct value *like(struct call *c, enum fill fill, struct qkv_error *err)
{
	bool full = fill == FILL_VALUE;	/* full_like(input, fill_value, dtype) */
	struct args a;
	if (args_bind(c, full ? P("input", "fill_value", "dtype") : P("input", "dtype"), full ? 2 : 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	bool has_dt;
	enum dtype dt;
	double v = fill == FILL_ONES;
	if (args_tensor(c, &a, 0, &x, err) < 0 || (full && args_double(c, &a, 1, 0, &v, err) < 0) ||
	    args_dtype(c, &a, full ? 2 : 1, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if (!has_dt)
		dt = x->dtype;
	struct tensor *t = ops_full(OPS(c), dt, x->flavor, x->ndim, x->shape, v, err);
	if (t) {
		int64_t n = tensor_numel(t);
		if (fill == FILL_RAND && dt == DT_F32)
			torch_fill_uniform_f32(&c->I->g.torch_rng, t->storage->data, n, 0, 1);
		else if (fill == FILL_RAND && dt == DT_F64)
			torch_fill_uniform_f64(&c->I->g.torch_rng, t->storage->data, n, 0, 1);
		else if (fill == FILL_RANDN && dt == DT_F32)
			torch_fill_normal_f32(&c->I->g.torch_rng, t->storage->data, n, 0, 1);
		else if (fill == FILL_RANDN && dt == DT_F64)
			torch_fill_normal_f64(&c->I->g.torch_rng, t->storage->data, n, 0, 1);
	}
	return args_done(c, &a, t, err);
}

static struct value *f_zeros_like(struct call *c, struct qkv_error *err) { return like(c, FILL_ZEROS, err); }
static struct value *f_ones_like(struct call *c, struct qkv_error *err) { return like(c, FILL_ONES, err); }
static struct value *f_rand_like(struct call *c, struct qkv_error *err) { return like(c, FILL_RAND, err); }
static struct value *f_randn_like(struct call *c, struct qkv_error *err) { return like(c, FILL_RANDN, err); }
static struct value *f_full_like(struct call *c, struct qkv_error *err) { return like(c, FILL_VALUE, err); }

static struct value *f_full(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("size", "fill_value", "dtype"), 2, &a, err) < 0)
		return NULL;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	double v;
	bool has_dt;
	enum dtype dt;
	if (args_shape(c, &a, 0, &ndim, shape, false, err) < 0 || args_double(c, &a, 1, 0, &v, err) < 0 ||
	    args_dtype(c, &a, 2, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if (!has_dt)
		dt = a.v[1]->kind == V_INT ? DT_I64 : a.v[1]->kind == V_BOOL ? DT_BOOL : DT_F32;
	return args_done(c, &a, ops_full(OPS(c), dt, FLAVOR_TORCH, ndim, shape, v, err), err);
}

static struct value *f_randint(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("low", "high", "size"), 0, &a, err) < 0)
		return NULL;
	int64_t lo = 0, hi;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	int size_at = 2, hi_at = 1;
	if (!a.v[2]) {	/* randint(high, size): the second is the size */
		size_at = 1;
		hi_at = 0;
	} else if (!a.v[1]) {	/* randint(high, size=...) */
		hi_at = 0;
	} else if (a.v[0] && args_int(c, &a, 0, 0, &lo, err) < 0) {	/* (randint(high=5, size=...): low 0) */
		return args_fail(&a);
	}
	if (!a.v[hi_at])
		return args_error(err, c, &a, -1, "torch.randint() missing required argument 'high'"), args_fail(&a);
	if (args_int(c, &a, hi_at, 0, &hi, err) < 0)
		return args_fail(&a);
	if (!a.v[size_at])
		return args_error(err, c, &a, -1, "torch.randint() missing required argument 'size'"), args_fail(&a);
	if (a.v[size_at] && (a.v[size_at]->kind == V_INT || a.v[size_at]->kind == V_FLOAT))	/* randint(0, 5): no size */
		return args_error(err, c, &a, size_at, "TypeError: randint(): argument 'size' (position %d) must be tuple "
				  "of ints, not %s", size_at + 1, value_type_name(a.v[size_at])), args_fail(&a);
	if (args_shape(c, &a, size_at, &ndim, shape, false, err) < 0)
		return args_fail(&a);
	if (hi <= lo)
		return args_error(err, c, &a, 1, "randint(): high (%lld) must be greater than low (%lld)",
				  (long long)hi, (long long)lo), args_fail(&a);
	struct tensor *t = ops_new(OPS(c), DT_I64, FLAVOR_TORCH, ndim, shape, err);
	if (t)
		torch_fill_randint(&c->I->g.torch_rng, t->storage->data, tensor_numel(t), lo, hi);
	return args_done(c, &a, t, err);
}

static struct value *arange(struct call *c, enum flavor fl, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("start", "end", "step", "dtype"), 1, &a, err) < 0)
		return NULL;
	double s = 0, e, st = 1;
	bool any_float = false;
	for (int i = 0; i < 3; i++)
		any_float |= a.v[i] && a.v[i]->kind == V_FLOAT;
	if (a.v[1]) {
		if (args_double(c, &a, 0, 0, &s, err) < 0 || args_double(c, &a, 1, 0, &e, err) < 0)
			return args_fail(&a);
	} else if (args_double(c, &a, 0, 0, &e, err) < 0) {
		return args_fail(&a);
	}
	bool has_dt;
	enum dtype dt;
	if (args_double(c, &a, 2, 1, &st, err) < 0 || args_dtype(c, &a, 3, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if (st == 0 || !isfinite(s) || !isfinite(e) || !isfinite(st))
		return args_error(err, c, &a, 2, "arange(): the step must be a nonzero finite number"), args_fail(&a);
	double count = ceil((e - s) / st);
	if (count < 0)
		count = 0;
	if (count >= 0x1p63)	/* torch's words for a count no int64 holds */
		return args_error(err, c, &a, a.v[1] ? 1 : 0, "arange(): invalid size, possible overflow? "
				  "(%g elements)", count), args_fail(&a);
	int64_t shape[1] = { (int64_t)count };	/* ops_new names it when over the limit */
	if (!has_dt)
		dt = any_float ? (fl == FLAVOR_NUMPY ? DT_F64 : DT_F32) : DT_I64;
	struct tensor *t = ops_new(OPS(c), dt, fl, 1, shape, err);
	if (t)
		for (int64_t i = 0; i < shape[0]; i++)
			tensor_set(t, i, s + (double)i * st);
	return args_done(c, &a, t, err);
}

static struct value *f_arange(struct call *c, struct qkv_error *err) { return arange(c, FLAVOR_TORCH, err); }
static struct value *np_arange(struct call *c, struct qkv_error *err) { return arange(c, FLAVOR_NUMPY, err); }

static struct value *eye(struct call *c, enum flavor fl, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("n", "m", "dtype"), 1, &a, err) < 0)
		return NULL;
	int64_t n, m;
	if (args_int(c, &a, 0, 0, &n, err) < 0 || args_int(c, &a, 1, -1, &m, err) < 0)
		return args_fail(&a);
	if (m < 0)
		m = n;
	if (n < 0)
		return args_error(err, c, &a, 0, "eye(): n must be non-negative, got %lld", (long long)n), args_fail(&a);
	int64_t shape[2] = { n, m };
	struct tensor *t = ops_new(OPS(c), fl == FLAVOR_NUMPY ? DT_F64 : DT_F32, fl, 2, shape, err);
	if (t)
		for (int64_t i = 0; i < n && i < m; i++)
			tensor_set(t, i * m + i, 1);
	return args_done(c, &a, t, err);
}

static struct value *f_eye(struct call *c, struct qkv_error *err) { return eye(c, FLAVOR_TORCH, err); }
static struct value *np_eye(struct call *c, struct qkv_error *err) { return eye(c, FLAVOR_NUMPY, err); }

static struct value *make_tensor(struct call *c, enum flavor fl, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("data", "dtype", "requires_grad"), 1, &a, err) < 0)
		return NULL;
	bool has_dt;
	enum dtype dt;
	if (args_dtype(c, &a, 1, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, args_to_tensor(c, &a, 0, fl, has_dt, dt, err), err);
}

static struct value *f_tensor(struct call *c, struct qkv_error *err) { return make_tensor(c, FLAVOR_TORCH, err); }
static struct value *np_array(struct call *c, struct qkv_error *err) { return make_tensor(c, FLAVOR_NUMPY, err); }

static struct value *f_from_numpy(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("ndarray"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	struct tensor *t = tensor_alias(x);
	t->flavor = FLAVOR_TORCH;
	return args_done(c, &a, t, err);
}

/* ---- random state ------------------------------------------------------------- */

static struct value *f_manual_seed(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("seed"), 1, &a, err) < 0)
		return NULL;
	int64_t s;
	if (args_int(c, &a, 0, 0, &s, err) < 0)
		return args_fail(&a);
	torch_gen_seed(&c->I->g.torch_rng, (uint64_t)s);
	return args_return(&a, value_none());
}

static struct value *f_initial_seed(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_return(&a, value_int((int64_t)c->I->g.torch_rng.seed));
}

static struct value *np_seed(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("seed"), 1, &a, err) < 0)
		return NULL;
	int64_t s;
	if (args_int(c, &a, 0, 0, &s, err) < 0)
		return args_fail(&a);
	if (s < 0 || s > 4294967295LL)
		return args_error(err, c, &a, 0, "seed must be between 0 and 2**32 - 1, got %lld", (long long)s),
		       args_fail(&a);
	np_gen_seed(&c->I->g.np_rng, (uint32_t)s);
	return args_return(&a, value_none());
}

/* ---- arithmetic functions ----------------------------------------------------- */

/* numpy functions take lists and numbers too */
static int np_operand(struct call *c, struct args *a, int i, struct tensor **out, bool *owned, struct qkv_error *err)
{
	struct value *v = a->v[i];
	*owned = false;
	if (v && v->kind == V_TENSOR) {
		*out = v->t;
		return 0;
	}
	if (!v)
		return args_error(err, c, a, i, "%s(): missing argument", c->name);
	*out = args_to_tensor(c, a, i, FLAVOR_NUMPY, false, DT_F64, err);
	*owned = *out != NULL;
	return *out ? 0 : -1;
}

static bool math_has(const char *name);

static struct value *unary(struct call *c, enum ew_unary op, bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	bool owned = false;
	if (a.v[0]->kind != V_TENSOR && value_is_number(a.v[0]) && !numpy) {
		const char *name = strrchr(c->name, '.') + 1;
		return args_error(err, c, &a, 0, "%s(): argument 1 must be a tensor, not %s%s%s%s", c->name,
				  value_type_name(a.v[0]), math_has(name) ? " (math." : "", math_has(name) ? name : "",
				  math_has(name) ? " works on numbers)" : ""), args_fail(&a);
	}
	if ((numpy ? np_operand(c, &a, 0, &x, &owned, err) : args_tensor(c, &a, 0, &x, err)) < 0)
		return args_fail(&a);
	struct tensor *r = ops_unary(OPS(c), x, op, err);
	if (owned)
		tensor_unref(x);
	return args_done(c, &a, r, err);
}

struct value *builtins_unary(struct call *c, enum ew_unary op, bool numpy, struct qkv_error *err)
{
	return unary(c, op, numpy, err);
}

static struct value *f_exp(struct call *c, struct qkv_error *err) { return unary(c, EW_EXP, false, err); }
static struct value *f_sqrt(struct call *c, struct qkv_error *err) { return unary(c, EW_SQRT, false, err); }
static struct value *f_log(struct call *c, struct qkv_error *err) { return unary(c, EW_LOG, false, err); }
static struct value *f_abs(struct call *c, struct qkv_error *err) { return unary(c, EW_ABS, false, err); }
static struct value *f_tanh(struct call *c, struct qkv_error *err) { return unary(c, EW_TANH, false, err); }
static struct value *f_relu(struct call *c, struct qkv_error *err) { return unary(c, EW_RELU, false, err); }
static struct value *f_sin(struct call *c, struct qkv_error *err) { return unary(c, EW_SIN, false, err); }
static struct value *f_cos(struct call *c, struct qkv_error *err) { return unary(c, EW_COS, false, err); }
static struct value *f_sigmoid(struct call *c, struct qkv_error *err) { return unary(c, EW_SIGMOID, false, err); }

/* F.gelu(input, approximate='none'): erf's, or 'tanh''s approximation */
static struct value *F_gelu(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "approximate"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	if (!dtype_is_float(x->dtype))
		return args_error(err, c, &a, 0, "\"GeluKernelImpl\" not implemented for '%s'",
				  x->dtype == DT_BOOL ? "Bool" : "Long"), args_fail(&a);
	const struct value *ap = a.v[1];
	if (ap && (ap->kind != V_STR || (strcmp(ap->str, "none") != 0 && strcmp(ap->str, "tanh") != 0)))
		return args_error(err, c, &a, 1, "approximate argument must be either none or tanh."), args_fail(&a);
	bool tanh_form = ap && strcmp(ap->str, "tanh") == 0;
	/* torch's vectorised erf for a contiguous tensor of two or more, libm's else */
	bool vec = tensor_numel(x) >= 2 && tensor_is_contiguous(x);
	return args_done(c, &a, ops_unary(OPS(c), x, tanh_form ? EW_GELU_TANH : vec ? EW_GELU : EW_GELU_LIBM, err),
			 err);
}
static struct value *np_exp(struct call *c, struct qkv_error *err) { return unary(c, EW_EXP, true, err); }
static struct value *np_sqrt(struct call *c, struct qkv_error *err) { return unary(c, EW_SQRT, true, err); }
static struct value *np_log(struct call *c, struct qkv_error *err) { return unary(c, EW_LOG, true, err); }
static struct value *np_abs(struct call *c, struct qkv_error *err) { return unary(c, EW_ABS, true, err); }
static struct value *np_tanh(struct call *c, struct qkv_error *err) { return unary(c, EW_TANH, true, err); }
static struct value *np_sin(struct call *c, struct qkv_error *err) { return unary(c, EW_SIN, true, err); }
static struct value *np_cos(struct call *c, struct qkv_error *err) { return unary(c, EW_COS, true, err); }

static struct value *two_tensors(struct call *c, const char *const *params,
				 struct tensor *(*fn)(const struct ops_ctx *, struct tensor *, struct tensor *,
						      struct qkv_error *),
				 bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, params, 2, &a, err) < 0)
		return NULL;
	struct tensor *x, *y;
	bool ox = false, oy = false;
	if (numpy) {
		if (np_operand(c, &a, 0, &x, &ox, err) < 0)
			return args_fail(&a);
		if (np_operand(c, &a, 1, &y, &oy, err) < 0) {
			if (ox)
				tensor_unref(x);
			return args_fail(&a);
		}
	} else if (args_tensor(c, &a, 0, &x, err) < 0 || args_tensor(c, &a, 1, &y, err) < 0) {
		return args_fail(&a);
	}
	struct tensor *r = fn(OPS(c), x, y, err);
	if (ox)
		tensor_unref(x);
	if (oy)
		tensor_unref(y);
	return args_done(c, &a, r, err);
}

static struct value *f_matmul(struct call *c, struct qkv_error *err) { return two_tensors(c, P("input", "other"), ops_matmul, false, err); }
static struct value *f_bmm(struct call *c, struct qkv_error *err) { return two_tensors(c, P("input", "mat2"), ops_bmm, false, err); }
static struct value *f_dot(struct call *c, struct qkv_error *err) { return two_tensors(c, P("input", "other"), ops_dot, false, err); }
static struct value *np_matmul(struct call *c, struct qkv_error *err) { return two_tensors(c, P("a", "b"), ops_matmul, true, err); }

static struct value *np_dot(struct call *c, struct qkv_error *err)
{
	/* np.dot: 1-D·1-D is the inner product, 2-D·2-D the matrix product */
	return two_tensors(c, P("a", "b"), ops_matmul, true, err);
}

/* softmax: torch.softmax(input, dim), F.softmax(input, dim=None); and
 * log_softmax (torch.log_softmax, F.log_softmax), told apart by name */
static struct value *softmax_common(struct call *c, bool implicit_dim, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "dim", "dtype"), implicit_dim ? 1 : 2, &a, err) < 0)
		return NULL;
	struct tensor *x;
	int dim;
	bool has_dt;
	enum dtype dt;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_dtype(c, &a, 2, &has_dt, &dt, err) < 0)
		return args_fail(&a);
	if (!has_dt && args_need_float(c, &a, 0, x, err) < 0)
		return args_fail(&a);
	if (!a.v[1] || a.v[1]->kind == V_NONE) {
		/* torch's _get_softmax_dim for the deprecated implicit dim */
		dim = (x->ndim == 0 || x->ndim == 1 || x->ndim == 3) ? 0 : 1;
	} else if (args_dim(c, &a, 1, x->ndim, &dim, err) < 0) {
		return args_fail(&a);
	}
	struct tensor *in = has_dt ? ops_to_dtype(x, dt) : tensor_ref(x);
	bool log = strstr(c->name, "log_softmax") != NULL;
	struct tensor *r = log ? ops_log_softmax(in, dim, err) : ops_softmax(OPS(c), in, dim, err);
	tensor_unref(in);
	return args_done(c, &a, r, err);
}

static struct value *f_softmax(struct call *c, struct qkv_error *err) { return softmax_common(c, false, err); }
static struct value *f_log_softmax(struct call *c, struct qkv_error *err) { return softmax_common(c, false, err); }
static struct value *F_log_softmax(struct call *c, struct qkv_error *err) { return softmax_common(c, true, err); }
static struct value *F_softmax(struct call *c, struct qkv_error *err) { return softmax_common(c, true, err); }

static struct value *scipy_softmax(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x", "axis"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	bool owned;
	if (np_operand(c, &a, 0, &x, &owned, err) < 0)
		return args_fail(&a);
	struct tensor *in = dtype_is_float(x->dtype) ? tensor_ref(x) : ops_to_dtype(x, DT_F64);
	struct tensor *r;
	if (!a.v[1] || a.v[1]->kind == V_NONE) {
		r = ops_softmax_all(OPS(c), in, err);
	} else {
		int axis;
		if (args_axis(c, &a, 1, in->ndim, FLAVOR_NUMPY, &axis, err) < 0) {
			tensor_unref(in);
			if (owned)
				tensor_unref(x);
			return args_fail(&a);
		}
		r = ops_softmax(OPS(c), in, axis, err);
		if (!r)
			args_error(err, c, &a, 1, "%s", err->msg);
	}
	tensor_unref(in);
	if (owned)
		tensor_unref(x);
	return args_done(c, &a, r, err);
}

static struct value *tri(struct call *c, bool upper, const char *diag_name, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, (const char *const[]){ "input", diag_name, NULL }, 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	int64_t d;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_int(c, &a, 1, 0, &d, err) < 0)
		return args_fail(&a);
	int64_t edge = INT32_MAX;	/* any diagonal past every row and column acts alike */
	d = d > edge ? edge : d < -edge ? -edge : d;
	return args_done(c, &a, ops_tri(OPS(c), x, d, upper, err), err);
}

static struct value *f_tril(struct call *c, struct qkv_error *err) { return tri(c, false, "diagonal", err); }
static struct value *f_triu(struct call *c, struct qkv_error *err) { return tri(c, true, "diagonal", err); }
static struct value *np_tril(struct call *c, struct qkv_error *err) { return tri(c, false, "k", err); }
static struct value *np_triu(struct call *c, struct qkv_error *err) { return tri(c, true, "k", err); }

static struct value *reduce(struct call *c, enum reduce_op op, bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, numpy ? P("a", "axis", "keepdims") : P("input", "dim", "keepdim"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	bool owned = false, keep, all;
	int dims[TENSOR_MAX_DIMS], n;
	if ((numpy ? np_operand(c, &a, 0, &x, &owned, err) : args_tensor(c, &a, 0, &x, err)) < 0)
		return args_fail(&a);
	struct tensor *r = NULL;
	enum flavor fl = numpy ? FLAVOR_NUMPY : FLAVOR_TORCH;
	/* argmax and argmin take one dim, the others several */
	if (args_reduce_dims(c, &a, 1, x->ndim, fl, op < REDUCE_ARGMAX, &all, &n, dims, err) == 0 &&
	    args_bool(c, &a, 2, false, &keep, err) == 0) {
		r = all ? ops_reduce(OPS(c), x, true, 0, keep, op, err) : ops_reduce_dims(OPS(c), x, n, dims, keep, op, err);
		if (!r)
			args_error(err, c, &a, 1, "%s", err->msg);
	}
	if (owned)
		tensor_unref(x);
	return r ? args_done(c, &a, r, err) : args_fail(&a);
}

static struct value *f_sum(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_SUM, false, err); }
static struct value *f_mean(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_MEAN, false, err); }
static struct value *f_amax(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_MAX, false, err); }
static struct value *f_amin(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_MIN, false, err); }
static struct value *np_sum(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_SUM, true, err); }
static struct value *np_mean(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_MEAN, true, err); }
static struct value *np_max(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_MAX, true, err); }
static struct value *np_min(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_MIN, true, err); }
static struct value *f_argmax(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_ARGMAX, false, err); }
static struct value *f_argmin(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_ARGMIN, false, err); }
static struct value *np_argmax(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_ARGMAX, true, err); }
static struct value *np_argmin(struct call *c, struct qkv_error *err) { return reduce(c, REDUCE_ARGMIN, true, err); }

/* torch.isinf / isnan / isfinite and numpy's */
static struct value *classify(struct call *c, enum ops_class what, bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, numpy ? P("x") : P("input"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	bool owned = false;
	if ((numpy ? np_operand(c, &a, 0, &x, &owned, err) : args_tensor(c, &a, 0, &x, err)) < 0)
		return args_fail(&a);
	struct tensor *r = ops_classify(x, what);
	if (owned)
		tensor_unref(x);
	return args_done(c, &a, r, err);
}

static struct value *f_isinf(struct call *c, struct qkv_error *err) { return classify(c, OPS_ISINF, false, err); }
static struct value *f_isnan(struct call *c, struct qkv_error *err) { return classify(c, OPS_ISNAN, false, err); }
static struct value *f_isfinite(struct call *c, struct qkv_error *err) { return classify(c, OPS_ISFINITE, false, err); }
static struct value *np_isinf(struct call *c, struct qkv_error *err) { return classify(c, OPS_ISINF, true, err); }
static struct value *np_isnan(struct call *c, struct qkv_error *err) { return classify(c, OPS_ISNAN, true, err); }
static struct value *np_isfinite(struct call *c, struct qkv_error *err) { return classify(c, OPS_ISFINITE, true, err); }

/* How join joins: along a dim (cat, concatenate), along a new dim (stack),
 * or as rows (vstack: 1-d ones become rows) or side by side (hstack:
 * along dim 1, or 0 for 1-d ones) */
enum join_kind { JOIN_CAT, JOIN_STACK, JOIN_VSTACK, JOIN_HSTACK };

/* ts[i] as vstack (at least 2-d, a 1-d one a row) or hstack (at least 1-d) takes it */
static struct tensor *at_least(const struct ops_ctx *ctx, struct tensor *t, enum join_kind kind, struct qkv_error *err)
{
	int want = kind == JOIN_VSTACK ? 2 : 1;
	if (t->ndim >= want)
		return t;
	int64_t shape[2] = { 1, t->ndim == 1 ? t->shape[0] : 1 };
	struct tensor *r = ops_reshape(ctx, t, want, want == 2 ? shape : shape + 1, err);
	tensor_unref(t);
	return r;
}

/* torch.cat / torch.stack / torch.vstack / torch.hstack and numpy's
 * stack / concatenate / vstack / hstack */
static struct value *join(struct call *c, enum join_kind kind, bool numpy, struct qkv_error *err)
{
	struct args a;
	bool stack = kind == JOIN_STACK, sides = kind >= JOIN_VSTACK;
	const char *const *params = sides ? (numpy ? P("tup") : P("tensors")) : numpy ? P("arrays", "axis") : P("tensors", "dim");
	if (args_bind(c, params, 1, &a, err) < 0)
		return NULL;
	struct value *list = a.v[0];
	if (list->kind != V_LIST && list->kind != V_TUPLE)
		return args_error(err, c, &a, 0, "%s() takes a list of tensors, not %s", c->name,
				  value_type_name(list)), args_fail(&a);
	if (sides && list->n == 0)
		return args_error(err, c, &a, 0, numpy ? "ValueError: need at least one array to concatenate"
				  : "RuntimeError: %s expects a non-empty TensorList", kind == JOIN_VSTACK ? "vstack" : "hstack"),
		       args_fail(&a);
	int64_t d;
	if (args_int(c, &a, 1, 0, &d, err) < 0)
		return args_fail(&a);
	struct tensor **ts = xcalloc((size_t)list->n + 1, sizeof *ts);
	struct tensor *r = NULL;
	int made = 0;
	for (; made < list->n; made++) {
		struct value *e = list->items[made];
		if (e->kind == V_TENSOR) {
			ts[made] = tensor_ref(e->t);
		} else if (numpy) {
			struct args one = { { e }, { a.at[0] }, 1 };	/* borrowed: never released */
			ts[made] = args_to_tensor(c, &one, 0, FLAVOR_NUMPY, false, DT_F64, err);
			if (!ts[made])
				goto out;
		} else {
			args_error(err, c, &a, 0, "%s(): item %d of the list is %s, not a tensor", c->name, made,
				   value_type_name(e));
			goto out;
		}
		if (sides && !(ts[made] = at_least(OPS(c), ts[made], kind, err))) {
			args_error(err, c, &a, 0, "%s", err->msg);
			goto out;
		}
	}
	/* the dim is the first tensor's (one more for the new one stack makes) */
	int dim = 0;
	if (sides)
		dim = kind == JOIN_HSTACK && ts[0]->ndim > 1;
	else if (made > 0 && args_axis(c, &a, 1, ts[0]->ndim + stack, numpy ? FLAVOR_NUMPY : FLAVOR_TORCH, &dim, err) < 0)
		goto out;
	r = stack ? ops_stack(OPS(c), ts, list->n, dim, err) : ops_cat(OPS(c), ts, list->n, dim, err);
	if (!r)
		args_error(err, c, &a, 0, "%s", err->msg);
out:
	for (int i = 0; i < made; i++)
		tensor_unref(ts[i]);
	free(ts);
	return r ? args_done(c, &a, r, err) : args_fail(&a);
}

static struct value *f_cat(struct call *c, struct qkv_error *err) { return join(c, JOIN_CAT, false, err); }
static struct value *f_stack(struct call *c, struct qkv_error *err) { return join(c, JOIN_STACK, false, err); }
static struct value *f_vstack(struct call *c, struct qkv_error *err) { return join(c, JOIN_VSTACK, false, err); }
static struct value *f_hstack(struct call *c, struct qkv_error *err) { return join(c, JOIN_HSTACK, false, err); }
static struct value *np_stack(struct call *c, struct qkv_error *err) { return join(c, JOIN_STACK, true, err); }
static struct value *np_concatenate(struct call *c, struct qkv_error *err) { return join(c, JOIN_CAT, true, err); }
static struct value *np_vstack(struct call *c, struct qkv_error *err) { return join(c, JOIN_VSTACK, true, err); }
static struct value *np_hstack(struct call *c, struct qkv_error *err) { return join(c, JOIN_HSTACK, true, err); }

static struct value *closeness(struct call *c, bool all, bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, numpy ? P("a", "b", "rtol", "atol", "equal_nan") : P("input", "other", "rtol", "atol", "equal_nan"),
		      2, &a, err) < 0)
		return NULL;
	struct tensor *x, *y;
	bool ox = false, oy = false, eq_nan;
	double rtol, atol;
	struct value *r = NULL;
	if ((numpy ? np_operand(c, &a, 0, &x, &ox, err) : args_tensor(c, &a, 0, &x, err)) < 0)
		return args_fail(&a);
	if ((numpy ? np_operand(c, &a, 1, &y, &oy, err) : args_tensor(c, &a, 1, &y, err)) < 0)
		goto out;
	if (args_double(c, &a, 2, 1e-05, &rtol, err) < 0 || args_double(c, &a, 3, 1e-08, &atol, err) < 0 ||
	    args_bool(c, &a, 4, false, &eq_nan, err) < 0)
		goto out;
	if (!numpy && x->dtype != y->dtype && all) {
		args_error(err, c, &a, 1, "allclose(): both tensors need the same dtype, got %s and %s",
			   dtype_name(x->dtype), dtype_name(y->dtype));
		goto out;
	}
	struct tensor *t = ops_isclose(OPS(c), x, y, rtol, atol, eq_nan, err);
	if (!t) {
		error_locate(err, c->node->line, c->node->col);
		goto out;
	}
	if (all) {
		struct tensor *b = ops_all_any(t, false);
		r = value_bool(tensor_get(b, 0) != 0);
		tensor_unref(b);
		tensor_unref(t);
	} else {
		r = value_from_result(t);
	}
out:
	if (ox)
		tensor_unref(x);
	if (oy && y)
		tensor_unref(y);
	for (int i = 0; i < ARGS_MAX; i++)
		value_unref(a.v[i]);
	return r;
}

static struct value *f_allclose(struct call *c, struct qkv_error *err) { return closeness(c, true, false, err); }
static struct value *f_isclose(struct call *c, struct qkv_error *err) { return closeness(c, false, false, err); }
static struct value *np_allclose(struct call *c, struct qkv_error *err) { return closeness(c, true, true, err); }
static struct value *np_isclose(struct call *c, struct qkv_error *err) { return closeness(c, false, true, err); }

static struct value *f_equal(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "other"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x, *y;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_tensor(c, &a, 1, &y, err) < 0)
		return args_fail(&a);
	bool eq = tensor_same_shape(x, y);
	for (int64_t i = 0; eq && i < tensor_numel(x); i++)
		eq = tensor_get(x, i) == tensor_get(y, i);
	return args_return(&a, value_bool(eq));
}

static struct value *f_transpose(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "dim0", "dim1"), 3, &a, err) < 0)
		return NULL;
	struct tensor *x;
	int d0, d1;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_dim(c, &a, 1, x->ndim, &d0, err) < 0 ||
	    args_dim(c, &a, 2, x->ndim, &d1, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_transpose(x, d0, d1, err), err);
}

static struct value *np_transpose(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("a", "axes"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	int n = 0, perm[TENSOR_MAX_DIMS];
	if (args_tensor(c, &a, 0, &x, err) < 0 ||
	    (a.v[1] && a.v[1]->kind != V_NONE && args_dims(c, &a, 1, x->ndim, FLAVOR_NUMPY, &n, perm, err) < 0))
		return args_fail(&a);
	if (n == 0)
		return args_done(c, &a, ops_reverse_dims(x), err);
	return args_done(c, &a, ops_permute(x, perm, n, err), err);
}

static struct value *f_masked_fill(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "mask", "value"), 3, &a, err) < 0)
		return NULL;
	struct tensor *x, *m;
	double v;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_tensor(c, &a, 1, &m, err) < 0 ||
	    args_double(c, &a, 2, 0, &v, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_masked_fill(OPS(c), x, m, v, err), err);
}

static struct value *f_numel(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	return args_return(&a, value_int(tensor_numel(x)));
}

/* ---- attention and nn ------------------------------------------------------------ */

static struct value *F_dropout(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "p", "training", "inplace"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	double p;
	bool training;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_double(c, &a, 1, 0.5, &p, err) < 0 ||
	    args_bool(c, &a, 2, true, &training, err) < 0)
		return args_fail(&a);
	if (!training)
		return args_done(c, &a, tensor_ref(x), err);
	return args_done(c, &a, ops_dropout(OPS(c), x, p, &c->I->g.torch_rng, err), err);
}

static struct value *F_linear(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "weight", "bias"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x, *w, *b = NULL;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_tensor(c, &a, 1, &w, err) < 0)
		return args_fail(&a);
	if (a.v[2] && a.v[2]->kind != V_NONE && args_tensor(c, &a, 2, &b, err) < 0)
		return args_fail(&a);
	struct tensor *wt = ops_reverse_dims(w);
	struct tensor *r = ops_matmul(OPS(c), x, wt, err);
	tensor_unref(wt);
	if (r && b) {
		struct operand o1 = { r, false }, o2 = { b, false };
		struct tensor *rb = ops_binary(OPS(c), o1, o2, EW_ADD, err);
		tensor_unref(r);
		r = rb;
	}
	return args_done(c, &a, r, err);
}

static struct value *F_sdpa(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale"), 3, &a, err) < 0)
		return NULL;
	struct tensor *q, *k, *v, *mask = NULL;
	double p, scale;
	bool causal;
	if (args_tensor(c, &a, 0, &q, err) < 0 || args_tensor(c, &a, 1, &k, err) < 0 ||
	    args_tensor(c, &a, 2, &v, err) < 0 || args_double(c, &a, 4, 0, &p, err) < 0 ||
	    args_bool(c, &a, 5, false, &causal, err) < 0)
		return args_fail(&a);
	if (a.v[3] && a.v[3]->kind != V_NONE) {
		if (causal)	/* torch's check (1.13's private function, 2.x's public one) */
			return args_error(err, c, &a, 3, "_scaled_dot_product_attention: Explicit attn_mask should "
					  "not be set when is_causal=True"), args_fail(&a);
		if (args_tensor(c, &a, 3, &mask, err) < 0)
			return args_fail(&a);
		if (mask->dtype != DT_BOOL)
			return args_error(err, c, &a, 3, "attn_mask must be a bool tensor in qkv (True = take part, "
					  "as in torch); got %s", dtype_name(mask->dtype)), args_fail(&a);
	}
	if (p != 0)
		return args_error(err, c, &a, 4, "dropout_p is not supported here; apply nn.Dropout to the weights"),
		       args_fail(&a);
	int64_t d = q->ndim > 0 ? q->shape[q->ndim - 1] : 1;
	if (args_double(c, &a, 6, 1.0 / sqrt((double)d), &scale, err) < 0)
		return args_fail(&a);
	/* torch's attn_mask marks the positions that take part; the kernel's mask
	 * marks the ones masked out */
	struct tensor *masked = NULL;
	if (mask) {
		masked = ops_logical_not(OPS(c), mask, err);
		if (!masked)
			return args_done(c, &a, NULL, err);
	}
	struct tensor *r = ops_attention(OPS(c), q, k, v, masked, causal, scale, NULL, err);
	tensor_unref(masked);
	return args_done(c, &a, r, err);
}

static struct value *nn_linear(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("in_features", "out_features", "bias"), 2, &a, err) < 0)
		return NULL;
	int64_t in, out;
	bool bias;
	if (args_int(c, &a, 0, 0, &in, err) < 0 || args_int(c, &a, 1, 0, &out, err) < 0 ||
	    args_bool(c, &a, 2, true, &bias, err) < 0)
		return args_fail(&a);
	if (in < 0 || out < 0)
		return args_error(err, c, &a, in < 0 ? 0 : 1, "Linear(): sizes must be non-negative"), args_fail(&a);
	int64_t wshape[2] = { out, in };
	/* both shapes are checked before anything is made or drawn */
	if (ops_check_shape(OPS(c), 2, wshape, err) < 0 || (bias && ops_check_shape(OPS(c), 1, &out, err) < 0))
		return args_done(c, &a, NULL, err);
	struct tensor *w = tensor_new(DT_F32, FLAVOR_TORCH, 2, wshape);
	/* reset_parameters: kaiming_uniform_(a=sqrt(5)) for the weight, then the bias */
	double wb = torch_linear_weight_bound(in);
	torch_fill_uniform_f32(&c->I->g.torch_rng, w->storage->data, tensor_numel(w), -wb, wb);
	struct object *o = xcalloc(1, sizeof *o);
	o->kind = OBJ_LINEAR;
	o->in_features = in;
	o->out_features = out;
	o->weight = value_parameter(w);
	if (bias) {
		struct tensor *b = tensor_new(DT_F32, FLAVOR_TORCH, 1, &out);
		double bb = torch_linear_bias_bound(in);
		torch_fill_uniform_f32(&c->I->g.torch_rng, b->storage->data, out, -bb, bb);
		o->bias = value_parameter(b);
	} else {
		o->bias = value_none();
	}
	o->training = true;
	return args_return(&a, value_object(o));
}

static struct value *nn_dropout(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("p", "inplace"), 0, &a, err) < 0)
		return NULL;
	double p;
	if (args_double(c, &a, 0, 0.5, &p, err) < 0)
		return args_fail(&a);
	if (!(p >= 0 && p <= 1))
		return args_error(err, c, &a, 0, "dropout probability has to be between 0 and 1, got %g", p),
		       args_fail(&a);
	struct object *o = xcalloc(1, sizeof *o);
	o->kind = OBJ_DROPOUT;
	o->p = p;
	o->training = true;
	return args_return(&a, value_object(o));
}

static struct value *nn_parameter(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("data", "requires_grad"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	return args_return(&a, value_parameter(tensor_alias(x)));
}

/* ---- Python builtins ---------------------------------------------------------- */

static struct value *py_print(struct call *c, struct qkv_error *err)
{
	const char *sep = " ", *end = "\n";
	for (int k = 0; k < c->nkw; k++) {
		struct value *v = c->kwargs[k];
		bool is_sep = strcmp(c->kwnames[k], "sep") == 0, is_end = strcmp(c->kwnames[k], "end") == 0;
		if ((!is_sep && !is_end) || (v->kind != V_STR && v->kind != V_NONE))
			return error_set(err, c->kw_nodes[k]->line, c->kw_nodes[k]->col,
					 "print() takes only sep= and end= strings as keywords"), NULL;
		if (v->kind == V_STR)
			*(is_sep ? &sep : &end) = v->str;
	}
	struct interp *I = c->I;
	struct strbuf sb;
	strbuf_init(&sb);
	bool continued = I->print_pending != NULL;	/* the line an earlier end= left open */
	if (continued) {
		strbuf_puts(&sb, I->print_pending);
		free(I->print_pending);
		I->print_pending = NULL;
	}
	for (int i = 0; i < c->nargs; i++) {
		if (i)
			strbuf_puts(&sb, sep);
		if (runtime_text(c->I, c->arg_nodes[i], c->args[i], false, &sb, err) < 0) {
			strbuf_free(&sb);
			return NULL;
		}
	}
	strbuf_puts(&sb, end);
	/* the lines up to the last newline are shown now (without it); what
	   follows it waits for the next print, echo or the end of the run */
	char *nl = strrchr(sb.s, '\n');
	if (!nl || nl[1])
		I->print_pending = xstrdup(nl ? nl + 1 : sb.s);
	if (nl && I->emit) {
		bool whole = !continued && nl == sb.s + sb.len - 1;
		*nl = 0;
		I->emit(I->udata, whole && c->nargs == 1 ? c->args[0] : NULL, sb.s);
	}
	strbuf_free(&sb);
	return value_none();
}

static struct value *py_len(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("obj"), 1, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	int64_t n;
	if (v->kind == V_LIST || v->kind == V_TUPLE || v->kind == V_SIZE || v->kind == V_DICT || v->kind == V_SET)
		n = v->n;
	else if (v->kind == V_RANGE)
		n = value_range_len(v);
	else if (v->kind == V_ITER && v->it->view)
		n = v->it->src->n;
	else if (v->kind == V_INSTANCE && v->inst->modules && v->inst->cls->cls->builtin != CLS_USER)
		n = v->inst->modules->n;
	else if (v->kind == V_STR) {
		n = 0;	/* characters, not UTF-8 bytes */
		for (const unsigned char *p = (const unsigned char *)v->str; *p; p++)
			n += (*p & 0xC0) != 0x80;
	}
	else if (v->kind == V_TENSOR && v->t->ndim > 0)
		n = v->t->shape[0];
	else if (v->kind == V_TENSOR)
		return args_error(err, c, &a, 0, "len() of a 0-d tensor (a single number)"), args_fail(&a);
	else if (v->kind == V_INSTANCE) {
		struct value *r;
		int rc = class_call_dunder(c->I, c->node, v, "__len__", 0, NULL, &r, err);
		if (rc < 0)
			return args_fail(&a);
		if (rc > 0)
			return args_return(&a, r);
		return args_error(err, c, &a, 0, "TypeError: object of type '%s' has no len()", value_type_name(v)),
		       args_fail(&a);
	}
	else
		return args_error(err, c, &a, 0, "object of type '%s' has no len()", value_type_name(v)), args_fail(&a);
	return args_return(&a, value_int(n));
}

static int parse_float_str(const char *s, double *out)
{
	while (isspace((unsigned char)*s))
		s++;
	const char *p = s;
	int sign = 1;
	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	char word[16];
	size_t n = 0;
	while (p[n] && !isspace((unsigned char)p[n]) && n < sizeof word - 1) {
		word[n] = p[n];
		n++;
	}
	word[n] = 0;
	const char *rest = p + n;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest == 0 && (strcasecmp(word, "inf") == 0 || strcasecmp(word, "infinity") == 0)) {
		*out = sign * INFINITY;
		return 0;
	}
	if (*rest == 0 && strcasecmp(word, "nan") == 0) {
		*out = NAN;
		return 0;
	}
	if (!isdigit((unsigned char)*p) && *p != '.')
		return -1;
	char *endp;
	errno = 0;
	double v = strtod(s, &endp);
	if (endp == s)
		return -1;
	while (isspace((unsigned char)*endp))
		endp++;
	if (*endp)
		return -1;
	*out = v;
	return 0;
}

static struct value *py_float(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 0, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	double d = 0;
	if (!v)
		return args_return(&a, value_float(0));
	if (v->kind == V_STR) {
		if (parse_float_str(v->str, &d) < 0)
			return args_error(err, c, &a, 0, "could not convert string to float: '%s'", v->str), args_fail(&a);
		return args_return(&a, value_float(d));
	}
	if (value_to_double(v, &d, "float()'s argument", err) < 0)
		return args_error(err, c, &a, 0, "float() needs a number, a string or a one-element tensor, not %s",
				  value_type_name(v)), args_fail(&a);
	return args_return(&a, value_float(d));
}

static struct value *py_int(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 0, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	if (!v)
		return args_return(&a, value_int(0));
	if (v->kind == V_INT || v->kind == V_BOOL)
		return args_return(&a, value_int(v->kind == V_INT ? v->i : v->b));
	if (v->kind == V_TENSOR && tensor_numel(v->t) == 1 && !dtype_is_float(v->t->dtype))
		return args_return(&a, value_int(tensor_get_i64(v->t, 0)));
	if (v->kind == V_STR) {
		char *endp;
		errno = 0;
		long long x = strtoll(v->str, &endp, 10);
		while (isspace((unsigned char)*endp))
			endp++;
		if (endp == v->str || *endp || errno)
			return args_error(err, c, &a, 0, "invalid literal for int(): '%s'", v->str), args_fail(&a);
		return args_return(&a, value_int(x));
	}
	double d;
	if (value_to_double(v, &d, "int()'s argument", err) < 0)
		return args_error(err, c, &a, 0, "int() needs a number or a string, not %s", value_type_name(v)),
		       args_fail(&a);
	if (!isfinite(d) || fabs(d) >= 9.2e18)
		return args_error(err, c, &a, 0, "cannot convert %g to an integer", d), args_fail(&a);
	return args_return(&a, value_int((int64_t)d));
}

static struct value *py_bool(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 0, &a, err) < 0)
		return NULL;
	if (!a.v[0])
		return args_return(&a, value_bool(false));
	int t = value_truth(a.v[0], err);
	if (t < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_bool(t));
}

/* str()'s and repr()'s result: the text, or the MemoryError of one too long
 * (value_repr stops soon after the limit). */
static struct value *text_result(struct call *c, struct args *a, struct strbuf *sb, struct qkv_error *err)
{
	if (sb->len > VALUE_MAX_STR) {
		strbuf_free(sb);
		return args_error(err, c, a, -1, "MemoryError: %s() would be over qkv's limit of %d bytes (64 MiB) "
				  "for a string", c->name, VALUE_MAX_STR), args_fail(a);
	}
	return args_return(a, value_str_take(strbuf_detach(sb)));
}

static struct value *py_str(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 0, &a, err) < 0)
		return NULL;
	struct strbuf sb;
	strbuf_init(&sb);
	if (a.v[0] && runtime_text(c->I, c->node, a.v[0], false, &sb, err) < 0) {
		strbuf_free(&sb);
		return args_fail(&a);
	}
	return text_result(c, &a, &sb, err);
}

static struct value *py_repr(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 1, &a, err) < 0)
		return NULL;
	struct strbuf sb;
	strbuf_init(&sb);
	if (runtime_text(c->I, c->node, a.v[0], true, &sb, err) < 0) {
		strbuf_free(&sb);
		return args_fail(&a);
	}
	return text_result(c, &a, &sb, err);
}

/* chr() and ord() take one positional argument, as CPython's do. */
static int one_positional(struct call *c, struct qkv_error *err)
{
	if (c->nkw > 0)
		return args_error(err, c, NULL, -1, "TypeError: %s() takes no keyword arguments", c->name);
	if (c->nargs != 1)
		return args_error(err, c, NULL, -1, "TypeError: %s() takes exactly one argument (%d given)", c->name,
				  c->nargs);
	return 0;
}

/* chr(i): the one-character string of code point i, with CPython's errors.
 * qkv's strings are UTF-8 without NUL and hold no lone surrogate, so chr(0)
 * and chr(0xD800..0xDFFF) are refused by name (CPython makes them). */
static struct value *py_chr(struct call *c, struct qkv_error *err)
{
	if (one_positional(c, err) < 0)
		return NULL;
	struct value *v = c->args[0];
	struct args a = { 0 };
	a.at[0] = c->arg_nodes[0];
	int64_t cp;
	if (v->kind == V_INT || v->kind == V_BOOL)
		cp = v->kind == V_INT ? v->i : v->b;
	else if (v->kind == V_TENSOR && !dtype_is_float(v->t->dtype) && tensor_numel(v->t) == 1)
		cp = tensor_get_i64(v->t, 0);
	else if (v->kind == V_TENSOR)
		return args_error(err, c, &a, 0, "TypeError: only integer tensors of a single element can be "
				  "converted to an index"), NULL;
	else
		return args_error(err, c, &a, 0, "TypeError: '%s' object cannot be interpreted as an integer",
				  value_type_name(v)), NULL;
	if (cp < INT32_MIN || cp > INT32_MAX)
		return args_error(err, c, &a, 0, "OverflowError: Python int too large to convert to C int"), NULL;
	if (cp < 0 || cp >= 0x110000)
		return args_error(err, c, &a, 0, "ValueError: chr() arg not in range(0x110000)"), NULL;
	if (cp == 0)
		return args_error(err, c, &a, 0, "ValueError: chr(0): qkv's strings cannot contain NUL "
				  "characters"), NULL;
	if (cp >= 0xD800 && cp <= 0xDFFF)
		return args_error(err, c, &a, 0, "ValueError: chr(0x%llx): U+%llX is a lone surrogate, which "
				  "qkv's UTF-8 strings cannot hold", (long long)cp, (long long)cp), NULL;
	char buf[5];
	buf[utf8_encode(buf, (uint32_t)cp)] = '\0';
	return value_str(buf);
}

/* ord(c): the code point of a one-character string. */
static struct value *py_ord(struct call *c, struct qkv_error *err)
{
	if (one_positional(c, err) < 0)
		return NULL;
	struct value *v = c->args[0];
	struct args a = { 0 };
	a.at[0] = c->arg_nodes[0];
	if (v->kind != V_STR)
		return args_error(err, c, &a, 0, "TypeError: ord() expected string of length 1, but %s found",
				  value_type_name(v)), NULL;
	size_t len = strlen(v->str), n = utf8_count(v->str);
	if (n != 1)
		return args_error(err, c, &a, 0, "TypeError: ord() expected a character, but string of length %zu "
				  "found", n), NULL;
	uint32_t cp;
	utf8_decode(v->str, len, &cp);
	return value_int(cp);
}

static struct value *py_abs(struct call *c, struct qkv_error *err)
{
	if (c->nargs == 1 && c->args[0]->kind == V_TENSOR)
		return f_abs(c, err);
	struct args a;
	if (args_bind(c, P("x"), 1, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	if (v->np) {	/* a numpy scalar: a 0-d array's abs, a numpy scalar of its dtype */
		struct tensor *t = value_scalar_array(v);
		struct tensor *r = ops_unary(&c->I->ops, t, EW_ABS, err);
		tensor_unref(t);
		return args_done(c, &a, r, err);
	}
	if (v->kind == V_FLOAT)
		return args_return(&a, value_float(fabs(v->f)));
	if (v->kind == V_INT || v->kind == V_BOOL) {
		int64_t x = v->kind == V_INT ? v->i : v->b;
		if (x == INT64_MIN)
			return args_error(err, c, &a, 0, "integer overflow in abs()"), args_fail(&a);
		return args_return(&a, value_int(x < 0 ? -x : x));
	}
	return args_error(err, c, &a, 0, "bad operand type for abs(): %s", value_type_name(v)), args_fail(&a);
}

/* quit() and exit(): the program ends after this statement with Python's
 * status: exit() and exit(None) 0, exit(n) n & 255 (what the C exit makes of
 * it), exit(message) 1 after showing the message. */
static struct value *py_quit(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("code"), 0, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	int status = 0;
	if (v && (v->kind == V_INT || v->kind == V_BOOL)) {
		status = (int)((v->kind == V_INT ? v->i : v->b) & 255);
	} else if (v && v->kind != V_NONE) {
		struct strbuf sb;
		strbuf_init(&sb);
		value_str_of(&sb, v);
		if (c->I->emit)
			c->I->emit(c->I->udata, NULL, sb.s);
		strbuf_free(&sb);
		status = 1;
	}
	c->I->quit = true;
	c->I->quit_status = status;
	return args_return(&a, value_none());
}

/* ---- the table ------------------------------------------------------------------- */

static const struct builtin functions[] = {
	{ "torch.manual_seed", f_manual_seed }, { "torch.initial_seed", f_initial_seed },
	{ "torch.randn", f_randn }, { "torch.rand", f_rand }, { "torch.randint", f_randint },
	{ "torch.zeros", f_zeros }, { "torch.ones", f_ones }, { "torch.empty", f_zeros }, { "torch.full", f_full },
	{ "torch.zeros_like", f_zeros_like }, { "torch.ones_like", f_ones_like },
	{ "torch.rand_like", f_rand_like }, { "torch.randn_like", f_randn_like }, { "torch.full_like", f_full_like },
	{ "torch.arange", f_arange }, { "torch.eye", f_eye },
	{ "torch.tensor", f_tensor }, { "torch.from_numpy", f_from_numpy },
	{ "torch.tril", f_tril }, { "torch.triu", f_triu },
	{ "torch.matmul", f_matmul }, { "torch.bmm", f_bmm }, { "torch.dot", f_dot },
	{ "torch.softmax", f_softmax }, { "torch.exp", f_exp }, { "torch.sqrt", f_sqrt }, { "torch.log", f_log },
	{ "torch.abs", f_abs }, { "torch.tanh", f_tanh }, { "torch.relu", f_relu },
	{ "torch.sin", f_sin }, { "torch.cos", f_cos },
	{ "torch.sum", f_sum }, { "torch.mean", f_mean }, { "torch.amax", f_amax }, { "torch.amin", f_amin },
	{ "torch.argmax", f_argmax }, { "torch.argmin", f_argmin },
	{ "torch.isinf", f_isinf }, { "torch.isnan", f_isnan }, { "torch.isfinite", f_isfinite },
	{ "torch.cat", f_cat }, { "torch.concat", f_cat }, { "torch.stack", f_stack }, { "torch.vstack", f_vstack },
	{ "torch.hstack", f_hstack }, { "numpy.vstack", np_vstack }, { "numpy.hstack", np_hstack },
	{ "torch.allclose", f_allclose }, { "torch.isclose", f_isclose }, { "torch.equal", f_equal },
	{ "torch.transpose", f_transpose }, { "torch.masked_fill", f_masked_fill }, { "torch.numel", f_numel },
	{ "torch.nn.Linear", nn_linear }, { "torch.nn.Dropout", nn_dropout }, { "torch.nn.Parameter", nn_parameter },
	{ "torch.nn.functional.softmax", F_softmax }, { "torch.log_softmax", f_log_softmax },
	{ "torch.nn.functional.log_softmax", F_log_softmax }, { "torch.sigmoid", f_sigmoid },
	{ "torch.nn.functional.sigmoid", f_sigmoid }, { "torch.nn.functional.gelu", F_gelu }, { "torch.nn.functional.dropout", F_dropout },
	{ "torch.nn.functional.linear", F_linear }, { "torch.nn.functional.relu", f_relu },
	{ "torch.nn.functional.scaled_dot_product_attention", F_sdpa },
	{ "numpy.array", np_array }, { "numpy.stack", np_stack }, { "numpy.concatenate", np_concatenate },
	{ "numpy.sqrt", np_sqrt }, { "numpy.exp", np_exp }, { "numpy.log", np_log }, { "numpy.abs", np_abs },
	{ "numpy.tanh", np_tanh }, { "numpy.sin", np_sin }, { "numpy.cos", np_cos },
	{ "numpy.dot", np_dot }, { "numpy.matmul", np_matmul }, { "numpy.isclose", np_isclose },
	{ "numpy.allclose", np_allclose }, { "numpy.zeros", np_zeros }, { "numpy.ones", np_ones },
	{ "numpy.sum", np_sum }, { "numpy.mean", np_mean }, { "numpy.max", np_max }, { "numpy.min", np_min },
	{ "numpy.amax", np_max }, { "numpy.amin", np_min },
	{ "numpy.argmax", np_argmax }, { "numpy.argmin", np_argmin },
	{ "numpy.isinf", np_isinf }, { "numpy.isnan", np_isnan }, { "numpy.isfinite", np_isfinite },
	{ "numpy.transpose", np_transpose }, { "numpy.tril", np_tril }, { "numpy.triu", np_triu },
	{ "numpy.arange", np_arange }, { "numpy.eye", np_eye },
	{ "numpy.random.seed", np_seed }, { "numpy.random.rand", np_rand }, { "numpy.random.randn", np_randn },
	{ "scipy.special.softmax", scipy_softmax },
	{ "builtins.print", py_print }, { "builtins.len", py_len }, { "builtins.float", py_float },
	{ "builtins.int", py_int }, { "builtins.bool", py_bool }, { "builtins.str", py_str },
	{ "builtins.repr", py_repr }, { "builtins.abs", py_abs }, { "builtins.round", rounding_python },
	{ "builtins.quit", py_quit }, { "builtins.exit", py_quit },
	{ "builtins.chr", py_chr }, { "builtins.ord", py_ord },
};

static const char *const modules[] = {
	"torch", "torch.nn", "torch.nn.functional", "torch.linalg", "numpy", "numpy.random", "numpy.linalg",
	"scipy", "scipy.special", "math", "copy",
};

static const struct {
	const char *name;
	double value;
} constants[] = {
	{ "torch.inf", INFINITY }, { "torch.nan", NAN }, { "torch.pi", M_PI }, { "torch.e", M_E },
	{ "numpy.inf", INFINITY }, { "numpy.nan", NAN }, { "numpy.pi", M_PI }, { "numpy.e", M_E },
	{ "math.inf", INFINITY }, { "math.nan", NAN }, { "math.pi", M_PI }, { "math.e", M_E },
};

static const struct {
	const char *name;
	enum dtype dt;
	enum flavor fl;
} dtypes[] = {
	{ "torch.float32", DT_F32, FLAVOR_TORCH }, { "torch.float", DT_F32, FLAVOR_TORCH },
	{ "torch.float64", DT_F64, FLAVOR_TORCH }, { "torch.double", DT_F64, FLAVOR_TORCH },
	{ "torch.int64", DT_I64, FLAVOR_TORCH }, { "torch.long", DT_I64, FLAVOR_TORCH },
	{ "torch.bool", DT_BOOL, FLAVOR_TORCH },
	{ "numpy.float32", DT_F32, FLAVOR_NUMPY }, { "numpy.float64", DT_F64, FLAVOR_NUMPY },
	{ "numpy.int64", DT_I64, FLAVOR_NUMPY }, { "numpy.bool_", DT_BOOL, FLAVOR_NUMPY },
};

/* Every built-in module and function by its qualified name, in a hash table
 * built once, each with its value (immortal: value_immortal): a loop looks
 * the same names up on every line. A name in two tables is the first one's
 * (modules, then functions[], then tables[]), as a search of them in
 * that order finds. */
#define NAME_INDEX_SIZE 1024	/* a power of two, over twice the names */

/* The other files' tables of functions, after functions[], in this order. */
static const struct builtin *const tables[] = { py_functions, rank_functions, pieces_functions, rounding_functions,
						bounds_functions, arrays_functions, sampling_functions,
						accumulate_functions, printopts_functions, nnlayers_functions,
						norms_functions, arith_functions, aliases_functions, unary_functions,
						products_functions, arrange_functions, losses_functions,
						select_functions };

struct named {
	const char *name;
	struct value *v;              /* V_MODULE or V_FUNC */
	const struct builtin *fn;     /* V_FUNC: the function */
};

static struct named name_index[NAME_INDEX_SIZE];
static pthread_once_t name_index_once = PTHREAD_ONCE_INIT;

static size_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h & (NAME_INDEX_SIZE - 1);
}

static void name_index_add(const char *name, const struct builtin *fn)
{
	size_t h = name_hash(name);
	for (; name_index[h].name; h = (h + 1) & (NAME_INDEX_SIZE - 1))
		if (strcmp(name_index[h].name, name) == 0)
			return;
	name_index[h] = (struct named){ name, value_immortal(fn ? V_FUNC : V_MODULE, name), fn };
	name_index[h].v->builtin = fn;	/* runtime_call need not find it by name */
}

static void name_index_build(void)
{
	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		name_index_add(modules[i], NULL);
	for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
		name_index_add(functions[i].name, &functions[i]);
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
		for (const struct builtin *b = tables[t]; b->name; b++)
			name_index_add(b->name, b);
}

static const struct named *name_find(const char *qualified)
{
	pthread_once(&name_index_once, name_index_build);
	for (size_t h = name_hash(qualified); name_index[h].name; h = (h + 1) & (NAME_INDEX_SIZE - 1))
		if (strcmp(name_index[h].name, qualified) == 0)
			return &name_index[h];
	return NULL;
}

/* Whether the math module has a function of this name (math.floor). */
static bool math_has(const char *name)
{
	char q[64];
	snprintf(q, sizeof q, "math.%s", name);
	return name_find(q) != NULL;
}

bool runtime_module_exists(const char *path)
{
	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		if (strcmp(modules[i], path) == 0)
			return true;
	return false;
}

/* module + "." + name into q (size bytes), cut as snprintf would cut it */
static void qualify(char *q, size_t size, const char *module, const char *name)
{
	size_t n = 0;
	for (const char *s = module; *s && n + 1 < size; s++)
		q[n++] = *s;
	if (n + 1 < size)
		q[n++] = '.';
	for (const char *s = name; *s && n + 1 < size; s++)
		q[n++] = *s;
	q[n] = 0;
}

struct value *runtime_module_attr(const char *module, const char *name)
{
	char q[160];
	qualify(q, sizeof q, module, name);
	const struct named *e = name_find(q);
	if (e && !e->fn)
		return e->v;	/* a module */
	if (strcmp(module, "torch.nn") == 0) {
		struct value *cls = class_builtin(name);
		if (cls)
			return cls;
	}
	if (e)
		return e->v;
	for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
		if (strcmp(constants[i].name, q) == 0)
			return value_float(constants[i].value);
	if (strcmp(q, "numpy.newaxis") == 0)	/* x[:, np.newaxis]: None */
		return value_none();
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
		if (strcmp(dtypes[i].name, q) == 0) {
			struct value *d = value_dtype(dtypes[i].dt, dtypes[i].fl);
			d->np = dtypes[i].fl == FLAVOR_NUMPY;	/* np.float64 is a type */
			return d;
		}
	}
	return NULL;
}

struct value *runtime_global(const char *name)
{
	static const struct { const char *name, *target; } aliases[] = {
		{ "torch", "torch" }, { "nn", "torch.nn" }, { "F", "torch.nn.functional" }, { "np", "numpy" },
		{ "numpy", "numpy" }, { "math", "math" }, { "scipy", "scipy" },
	};
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(aliases[i].name, name) == 0)
			return name_find(aliases[i].target)->v;
	if (strcmp(name, "softmax") == 0)
		return name_find("scipy.special.softmax")->v;
	return runtime_module_attr("builtins", name);
}

const struct builtin *runtime_find_function(const char *qualified)
{
	const struct named *e = name_find(qualified);
	return e ? e->fn : NULL;
}

void runtime_each_name(void (*fn)(void *udata, const char *qualified), void *udata)
{
	for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
		fn(udata, functions[i].name);
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
		for (const struct builtin *b = tables[t]; b->name; b++)
			fn(udata, b->name);
	static const char *const classes[] = { "torch.nn.Module", "torch.nn.ModuleList", "torch.nn.Sequential" };
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		fn(udata, classes[i]);
	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		fn(udata, modules[i]);
	for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
		fn(udata, constants[i].name);
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		fn(udata, dtypes[i].name);
	runtime_each_method(fn, udata);
}
