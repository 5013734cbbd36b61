/* sampling.c: random numbers with a distribution's parameters, from the
 * interpreter's generators (core/rng.h), as numpy's legacy RandomState and
 * torch's CPU generator draw them: np.random.normal(loc, scale, size) (loc
 * + scale * gauss), np.random.uniform(low, high, size) (low + (high - low)
 * * random_sample), np.random.random and np.random.random_sample(size) (a
 * tuple, unlike rand's), and torch's in-place x.normal_(mean, std) and
 * x.uniform_(from, to), which draw what torch.randn and torch.rand draw.
 * Without a size numpy gives one number (a Python float). Never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <math.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* numpy's size argument i: None (one number: ndim 0), an int or a tuple. */
static int size_of(struct call *c, struct args *a, int i, int *ndim, int64_t *shape, struct qkv_error *err)
{
	*ndim = 0;
	if (!a->v[i] || a->v[i]->kind == V_NONE)
		return 0;
	if (args_shape(c, a, i, ndim, shape, false, err) < 0)
		return -1;
	for (int d = 0; d < *ndim; d++)
		if (shape[d] < 0)
			return args_error(err, c, a, i, "ValueError: negative dimensions are not allowed");
	return 0;
}

/* Argument i as a finite number (def when absent). */
static int number(struct call *c, struct args *a, int i, double def, double *out, struct qkv_error *err)
{
	if (a->v[i] && a->v[i]->kind == V_TENSOR)
		return args_error(err, c, a, i, "%s(): qkv takes a number here, not an array", c->name);
	return args_double(c, a, i, def, out, err);
}

/* np.random.normal(loc=0.0, scale=1.0, size=None), np.random.uniform(low=0.0,
 * high=1.0, size=None) */
static struct value *np_distribution(struct call *c, bool normal, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, normal ? P("loc", "scale", "size") : P("low", "high", "size"), 0, &a, err) < 0)
		return NULL;
	double p0, p1;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	if (number(c, &a, 0, 0.0, &p0, err) < 0 || number(c, &a, 1, 1.0, &p1, err) < 0 ||
	    size_of(c, &a, 2, &ndim, shape, err) < 0)
		return args_fail(&a);
	if (normal && p1 < 0)
		return args_error(err, c, &a, 1, "ValueError: scale < 0"), args_fail(&a);
	double range = p1 - p0;
	if (!normal && !isfinite(range))
		return args_error(err, c, &a, -1, "OverflowError: Range exceeds valid bounds"), args_fail(&a);
	if (!a.v[2] || a.v[2]->kind == V_NONE) {	/* one number: a Python float */
		double x = 0;
		if (normal)
			np_fill_randn(&c->I->g.np_rng, &x, 1);
		return args_return(&a, value_float(normal ? p0 + p1 * x : p0 + range * np_gen_double(&c->I->g.np_rng)));
	}
	struct tensor *t = ops_new(&c->I->ops, DT_F64, FLAVOR_NUMPY, ndim, shape, err);
	if (!t)
		return args_done(c, &a, NULL, err);
	double *d = t->storage->data;
	int64_t n = tensor_numel(t);
	if (normal) {
		np_fill_randn(&c->I->g.np_rng, d, n);
		for (int64_t i = 0; i < n; i++)
			d[i] = p0 + p1 * d[i];
	} else {
		for (int64_t i = 0; i < n; i++)
			d[i] = p0 + range * np_gen_double(&c->I->g.np_rng);
	}
	return args_done(c, &a, t, err);
}

static struct value *np_normal(struct call *c, struct qkv_error *err) { return np_distribution(c, true, err); }
static struct value *np_uniform(struct call *c, struct qkv_error *err) { return np_distribution(c, false, err); }

/* np.random.random(size=None), np.random.random_sample(size=None) */
static struct value *np_random(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("size"), 0, &a, err) < 0)
		return NULL;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	if (size_of(c, &a, 0, &ndim, shape, err) < 0)
		return args_fail(&a);
	if (!a.v[0] || a.v[0]->kind == V_NONE)	/* one number: a Python float */
		return args_return(&a, value_float(np_gen_double(&c->I->g.np_rng)));
	struct tensor *t = ops_new(&c->I->ops, DT_F64, FLAVOR_NUMPY, ndim, shape, err);
	if (t)
		np_fill_rand(&c->I->g.np_rng, t->storage->data, tensor_numel(t));
	return args_done(c, &a, t, err);
}

/* x.normal_(mean=0, std=1) and x.uniform_(from=0, to=1): x's elements
 * drawn in place, in x's order (a view is filled as a fresh tensor of its
 * shape would be, then written into it). */
static struct value *fill_(struct call *c, bool normal, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, normal ? P("mean", "std") : P("from", "to"), 0, &a, err) < 0)
		return NULL;
	struct tensor *x = c->self->t;
	double p0, p1;
	if (number(c, &a, 0, 0.0, &p0, err) < 0 || number(c, &a, 1, 1.0, &p1, err) < 0)
		return args_fail(&a);
	if (!dtype_is_float(x->dtype))
		return args_error(err, c, &a, -1, "\"%s\" not implemented for '%s'",
				  normal ? "normal_kernel_cpu" : "check_uniform_bounds", x->dtype == DT_BOOL ? "Bool" : "Long"),
		       args_fail(&a);
	if (normal && !(p1 >= 0))
		return args_error(err, c, &a, 1, "normal expects std >= 0.0, but found std %g", p1), args_fail(&a);
	if (!normal && !(p0 <= p1))
		return args_error(err, c, &a, 0, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
				  p0, p1), args_fail(&a);
	struct tensor *t = tensor_new(x->dtype, FLAVOR_TORCH, x->ndim, x->shape);
	int64_t n = tensor_numel(t);
	struct torch_gen *g = &c->I->g.torch_rng;
	if (normal && x->dtype == DT_F32)
		torch_fill_normal_f32(g, t->storage->data, n, p0, p1);
	else if (normal)
		torch_fill_normal_f64(g, t->storage->data, n, p0, p1);
	else if (x->dtype == DT_F32)
		torch_fill_uniform_f32(g, t->storage->data, n, p0, p1);
	else
		torch_fill_uniform_f64(g, t->storage->data, n, p0, p1);
	interp_will_write(c->I, x->storage);
	int rc = ops_assign(x, t, err);
	tensor_unref(t);
	return rc < 0 ? args_fail(&a) : args_return(&a, value_ref(c->self));
}

struct value *sampling_normal_(struct call *c, struct qkv_error *err) { return fill_(c, true, err); }
struct value *sampling_uniform_(struct call *c, struct qkv_error *err) { return fill_(c, false, err); }

const struct builtin sampling_functions[] = {
	{ "numpy.random.normal", np_normal }, { "numpy.random.uniform", np_uniform },
	{ "numpy.random.random", np_random }, { "numpy.random.random_sample", np_random },
	{ NULL, NULL },
};
