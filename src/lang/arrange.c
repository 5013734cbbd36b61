/* arrange.c: copies that put elements elsewhere. torch.flip(input, dims)
 * and x.flip(*dims), np.flip(m, axis=None), np.fliplr and np.flipud (a
 * copy: numpy's is a view, which qkv's strides cannot be), and
 * F.one_hot(tensor, num_classes=-1). Each with torch's and numpy's errors.
 * Called through builtins.c's and methods.c's tables; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The dims of v (an int, or a tuple or list of them) for a flip of an
 * ndim-dim tensor, none twice, into dims[*n]; the error at argument i. */
static int flip_dims(struct call *c, struct args *a, int i, const struct value *v, int ndim, enum flavor fl, int *n,
		     int *dims, struct qkv_error *err)
{
	bool seq = v->kind == V_TUPLE || v->kind == V_LIST;
	int count = seq ? v->n : 1;
	bool seen[TENSOR_MAX_DIMS] = { false };
	*n = 0;
	for (int k = 0; k < count; k++) {
		const struct value *d = seq ? v->items[k] : v;
		if (d->kind != V_INT)
			return args_error(err, c, a, i, fl == FLAVOR_NUMPY ? "TypeError: '%s' object cannot be interpreted "
					  "as an integer" : "flip(): the dims must be ints, not %s", value_type_name(d));
		int dim;
		if (args_norm_dim(d->i, ndim, fl, &dim, err) < 0)
			return args_error(err, c, a, i, "%s", err->msg);
		if (seen[dim])
			return args_error(err, c, a, i, fl == FLAVOR_NUMPY ? "ValueError: repeated axis"
					  : "RuntimeError: dim %d appears multiple times in the list of dims", dim);
		seen[dim] = true;
		dims[(*n)++] = dim;
	}
	return 0;
}

/* torch.flip(input, dims): dims a tuple or list (an int is torch's TypeError) */
static struct value *torch_flip(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "dims"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x;
	int n, dims[TENSOR_MAX_DIMS];
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	if (a.v[1]->kind != V_TUPLE && a.v[1]->kind != V_LIST)
		return args_error(err, c, &a, 1, "TypeError: flip(): argument 'dims' (position 2) must be tuple of ints, "
				  "not %s", value_type_name(a.v[1])), args_fail(&a);
	if (flip_dims(c, &a, 1, a.v[1], x->ndim, FLAVOR_TORCH, &n, dims, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_flip(x, n, dims), err);
}

/* x.flip(*dims): the dims one by one, or one tuple or list of them */
struct value *arrange_flip_method(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("*"), 0, &a, err) < 0)
		return NULL;
	struct tensor *x = c->self->t;
	const struct value *v = a.v[0];
	if (!v)
		return args_error(err, c, &a, -1, "flip() missing required argument 'dims'"), args_fail(&a);
	if (v->n == 1 && (v->items[0]->kind == V_TUPLE || v->items[0]->kind == V_LIST))
		v = v->items[0];
	int n, dims[TENSOR_MAX_DIMS];
	if (flip_dims(c, &a, 0, v, x->ndim, FLAVOR_TORCH, &n, dims, err) < 0)
		return args_fail(&a);
	return args_done(c, &a, ops_flip(x, n, dims), err);
}

/* np.flip(m, axis=None) (every axis when None), np.fliplr(m) (axis 1, at
 * least 2-d), np.flipud(m) (axis 0, at least 1-d) */
static struct value *np_flip_common(struct call *c, int fixed, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, fixed < 0 ? P("m", "axis") : P("m"), 1, &a, err) < 0)
		return NULL;
	struct tensor *m = args_to_tensor(c, &a, 0, FLAVOR_NUMPY, false, DT_F64, err);
	if (!m)
		return args_fail(&a);
	int n = 0, dims[TENSOR_MAX_DIMS], rc = 0;
	if (fixed >= 0 && m->ndim <= fixed) {
		rc = args_error(err, c, &a, 0, "ValueError: Input must be >= %d-d.", fixed + 1);
	} else if (fixed >= 0) {
		dims[n++] = fixed;
	} else if (!a.v[1] || a.v[1]->kind == V_NONE) {
		for (; n < m->ndim; n++)
			dims[n] = n;
	} else {
		rc = flip_dims(c, &a, 1, a.v[1], m->ndim, FLAVOR_NUMPY, &n, dims, err);
	}
	struct tensor *r = rc < 0 ? NULL : ops_flip(m, n, dims);
	tensor_unref(m);
	return r ? args_done(c, &a, r, err) : args_fail(&a);
}

static struct value *np_flip(struct call *c, struct qkv_error *err) { return np_flip_common(c, -1, err); }
static struct value *np_fliplr(struct call *c, struct qkv_error *err) { return np_flip_common(c, 1, err); }
static struct value *np_flipud(struct call *c, struct qkv_error *err) { return np_flip_common(c, 0, err); }

/* F.one_hot(tensor, num_classes=-1): int64 indices to rows of 0s with a 1
 * at the index, in a new last dim of num_classes (the largest index + 1
 * when -1) */
static struct value *one_hot(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("tensor", "num_classes"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	int64_t classes;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_int(c, &a, 1, -1, &classes, err) < 0)
		return args_fail(&a);
	if (x->dtype != DT_I64)
		return args_error(err, c, &a, 0, "RuntimeError: one_hot is only applicable to index tensor."), args_fail(&a);
	struct tensor *idx = ops_contiguous(x);
	const int64_t *v = tensor_data(idx);
	int64_t n = tensor_numel(idx), top = -1;
	const char *bad = NULL;
	for (int64_t i = 0; i < n && !bad; i++) {
		if (v[i] < 0)
			bad = "RuntimeError: Class values must be non-negative.";
		else if (v[i] > top)
			top = v[i];
	}
	if (!bad && classes < 0 && n == 0)
		bad = "RuntimeError: Can not infer total number of classes from empty tensor.";
	else if (!bad && classes >= 0 && top >= classes)
		bad = "RuntimeError: Class values must be smaller than num_classes.";
	else if (!bad && classes < -1)
		bad = "num_classes should be positive";
	if (!bad && x->ndim == TENSOR_MAX_DIMS)
		bad = "one_hot(): the result would have too many dims";
	struct tensor *r = NULL;
	if (!bad) {
		int64_t shape[TENSOR_MAX_DIMS];
		memcpy(shape, x->shape, sizeof shape[0] * (size_t)x->ndim);
		shape[x->ndim] = classes < 0 ? top + 1 : classes;
		if (!tensor_numel_fits(x->ndim + 1, shape))
			bad = "one_hot(): the result would hold more elements than an int64 counts";
		else if ((r = ops_new(&c->I->ops, DT_I64, FLAVOR_TORCH, x->ndim + 1, shape, err)) != NULL)
			for (int64_t i = 0; i < n; i++)
				((int64_t *)r->storage->data)[i * shape[x->ndim] + v[i]] = 1;
	}
	tensor_unref(idx);
	if (bad)
		return args_error(err, c, &a, 0, "%s", bad), args_fail(&a);
	return r ? args_done(c, &a, r, err) : (args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a));
}

const struct builtin arrange_functions[] = {
	{ "torch.flip", torch_flip }, { "numpy.flip", np_flip }, { "numpy.fliplr", np_fliplr },
	{ "numpy.flipud", np_flipud }, { "torch.nn.functional.one_hot", one_hot },
	{ NULL, NULL },
};
