/* accumulate.c: running sums and counts. np.cumsum(a, axis=None) and
 * a.cumsum(axis) (no axis: over the flattened array) add in the array's
 * own type, one element after another, as numpy's add.accumulate does;
 * torch.cumsum(input, dim) and x.cumsum(dim) add float32 in double and
 * round each sum, as torch's CPU kernel does; bools and integers sum as
 * int64. np.count_nonzero(a, axis=None) counts what is not zero. Never
 * prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The running sums of x along dim into a new tensor of dtype rd (x's type,
 * int64 for bools); wide: float32 accumulates in double. */
static struct tensor *running_sums(struct tensor *x, int dim, enum dtype rd, bool wide)
{
	struct tensor *out = tensor_new(rd, x->flavor, x->ndim, x->shape);
	int64_t n = x->shape[dim], inner = 1, outer = 1;
	for (int d = dim + 1; d < x->ndim; d++)
		inner *= x->shape[d];
	for (int d = 0; d < dim; d++)
		outer *= x->shape[d];
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t i = 0; i < inner; i++) {
			int64_t base = o * n * inner + i, iacc = 0;
			double dacc = 0;
			float facc = 0;
			for (int64_t k = 0; k < n; k++) {
				int64_t at = base + k * inner;
				if (rd == DT_I64) {
					iacc = (int64_t)((uint64_t)iacc + (uint64_t)tensor_get_i64(x, at));
					((int64_t *)out->storage->data)[at] = iacc;
				} else if (rd == DT_F32 && !wide) {
					facc += (float)tensor_get(x, at);
					((float *)out->storage->data)[at] = facc;
				} else {
					dacc += tensor_get(x, at);
					tensor_set(out, at, dacc);
				}
			}
		}
	}
	return out;
}

/* np.cumsum(a, axis=None) and a.cumsum(axis=None) */
static struct value *np_cumsum(struct call *c, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	if (args_bind(c, method ? P("axis") : P("a", "axis"), method ? 0 : 1, &a, err) < 0)
		return NULL;
	int ax = method ? 0 : 1;
	struct tensor *x = method ? tensor_ref(c->self->t) : args_array(c, &a, 0, err);
	if (!x)
		return args_fail(&a);
	int dim = 0;
	struct tensor *in = NULL;
	if (!a.v[ax] || a.v[ax]->kind == V_NONE) {
		int64_t n = tensor_numel(x);
		in = ops_reshape(&c->I->ops, x, 1, &n, err);
	} else if (args_axis(c, &a, ax, x->ndim, FLAVOR_NUMPY, &dim, err) == 0) {
		in = tensor_ref(x);
	}
	tensor_unref(x);
	if (!in)
		return args_fail(&a);
	struct tensor *r = running_sums(in, dim, in->dtype == DT_BOOL ? DT_I64 : in->dtype, false);
	r->flavor = FLAVOR_NUMPY;
	tensor_unref(in);
	return args_done(c, &a, r, err);
}

/* torch.cumsum(input, dim) and x.cumsum(dim) */
static struct value *torch_cumsum(struct call *c, struct qkv_error *err)
{
	struct args a;
	struct tensor *x;
	int at = args_bind_input(c, P("dim"), 1, &a, &x, err);
	if (at < 0)
		return NULL;
	int dim = 0;
	if (x->ndim > 0 && args_dim(c, &a, at, x->ndim, &dim, err) < 0)
		return args_fail(&a);
	struct tensor *in = x->ndim ? tensor_ref(x) : ops_reshape(&c->I->ops, x, 1, (int64_t[]){ 1 }, err);
	if (!in)
		return args_fail(&a);
	struct tensor *r = running_sums(in, dim, x->dtype == DT_BOOL ? DT_I64 : x->dtype, true);
	tensor_unref(in);
	if (x->ndim == 0) {
		struct tensor *s = ops_reshape(&c->I->ops, r, 0, NULL, err);
		tensor_unref(r);
		r = s;
	}
	return args_done(c, &a, r, err);
}

/* x.cumsum(...): numpy's or torch's by x's flavour */
struct value *accumulate_cumsum_method(struct call *c, struct qkv_error *err)
{
	return c->self->t->flavor == FLAVOR_NUMPY ? np_cumsum(c, err) : torch_cumsum(c, err);
}

/* np.count_nonzero(a, axis=None): an int, or an int64 array along axis */
static struct value *np_count_nonzero(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("a", "axis"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x = args_array(c, &a, 0, err);
	if (!x)
		return args_fail(&a);
	int64_t n = tensor_numel(x);
	if (!a.v[1] || a.v[1]->kind == V_NONE) {
		int64_t count = 0;
		for (int64_t i = 0; i < n; i++)
			count += tensor_get(x, i) != 0;
		tensor_unref(x);
		return args_return(&a, value_int(count));
	}
	int dim;
	if (args_axis(c, &a, 1, x->ndim, FLAVOR_NUMPY, &dim, err) < 0) {
		tensor_unref(x);
		return args_fail(&a);
	}
	int64_t shape[TENSOR_MAX_DIMS];
	int ndim = 0;
	for (int d = 0; d < x->ndim; d++)
		if (d != dim)
			shape[ndim++] = x->shape[d];
	struct tensor *r = ops_full(&c->I->ops, DT_I64, FLAVOR_NUMPY, ndim, shape, 0, err);
	if (r) {
		int64_t len = x->shape[dim], inner = 1;
		for (int d = dim + 1; d < x->ndim; d++)
			inner *= x->shape[d];
		for (int64_t i = 0; i < n; i++) {
			int64_t o = i / (len * inner), k = i % inner;
			if (tensor_get(x, i) != 0)
				((int64_t *)r->storage->data)[o * inner + k]++;
		}
	}
	tensor_unref(x);
	return args_done(c, &a, r, err);
}

const struct builtin accumulate_functions[] = {
	{ "numpy.cumsum", np_cumsum }, { "torch.cumsum", torch_cumsum }, { "numpy.count_nonzero", np_count_nonzero },
	{ NULL, NULL },
};
