/* products.c: the reductions that are not sums. torch.prod(input, dim,
 * keepdim, dtype) and x.prod, np.prod(a, axis, dtype, keepdims) and
 * a.prod (core's REDUCE_PROD: factors in index order); torch.logsumexp
 * (input, dim, keepdim) and x.logsumexp, in torch's order of operations:
 * the maxima over the dims (an infinite one taken as 0), exp of the
 * differences, their sum, its log, plus the maxima. Called through
 * builtins.c's and methods.c's tables; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <math.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- prod ---------------------------------------------------------------------------- */

/* torch.prod(input, dim, keepdim=False, dtype=None), x.prod(dim, keepdim,
 * dtype), np.prod(a, axis=None, dtype=None, keepdims=False), a.prod(axis,
 * dtype, keepdims): numpy's axis may be a tuple, torch's dim one int. */
static struct value *prod(struct call *c, bool numpy, struct qkv_error *err)
{
	bool method = c->self != NULL;
	const char *const *params = numpy ? (method ? P("axis", "dtype", "out", "keepdims")
						    : P("a", "axis", "dtype", "out", "keepdims"))
					  : (method ? P("dim", "keepdim", "dtype") : P("input", "dim", "keepdim", "dtype"));
	struct args a;
	if (args_bind(c, params, method ? 0 : 1, &a, err) < 0)
		return NULL;
	int at = method ? 0 : 1;	/* the argument after the input */
	int keep_at = numpy ? at + 3 : at + 1, dtype_at = numpy ? at + 1 : at + 2;
	struct tensor *x = NULL;
	if (method)
		x = tensor_ref(c->self->t);
	else if (numpy)	/* (a list or a number too) */
		x = args_to_tensor(c, &a, 0, FLAVOR_NUMPY, false, DT_F64, err);
	else if (args_tensor(c, &a, 0, &x, err) == 0)
		tensor_ref(x);
	if (!x)
		return args_fail(&a);
	bool all, keepdim, has_dt;
	int n, dims[TENSOR_MAX_DIMS];
	enum dtype dt;
	struct tensor *r = NULL;
	if (numpy && a.v[at + 2] && a.v[at + 2]->kind != V_NONE) {
		args_error(err, c, &a, at + 2, "%s(): qkv has no out= arrays; assign the result instead", c->name);
		goto out;
	}
	if (args_reduce_dims(c, &a, at, x->ndim, x->flavor, numpy, &all, &n, dims, err) < 0 ||
	    args_bool(c, &a, keep_at, false, &keepdim, err) < 0 || args_dtype(c, &a, dtype_at, &has_dt, &dt, err) < 0)
		goto out;
	if (has_dt) {
		struct tensor *y = ops_to_dtype(x, dt);
		tensor_unref(x);
		x = y;
	}
	r = all ? ops_reduce(&c->I->ops, x, true, 0, keepdim, REDUCE_PROD, err)
		: ops_reduce_dims(&c->I->ops, x, n, dims, keepdim, REDUCE_PROD, err);
	if (!r)
		args_error(err, c, &a, at, "%s", err->msg);
out:
	tensor_unref(x);
	return r ? args_done(c, &a, r, err) : args_fail(&a);
}

/* ---- logsumexp --------------------------------------------------------------------------- */

/* Sets the infinite elements of the contiguous float tensor m to 0 (torch
 * subtracts no infinite maximum: exp(inf - inf) would be NaN). */
static void zero_infinities(struct tensor *m)
{
	int64_t n = tensor_numel(m);
	for (int64_t i = 0; i < n; i++) {
		if (m->dtype == DT_F32 && isinf(((float *)m->storage->data)[i]))
			((float *)m->storage->data)[i] = 0;
		else if (m->dtype == DT_F64 && isinf(((double *)m->storage->data)[i]))
			((double *)m->storage->data)[i] = 0;
	}
}

/* log(sum(exp(x - m))) + m over the dims, m the maxima (as keepdim), for a
 * float x with elements; NULL with err. */
static struct tensor *logsumexp_of(const struct ops_ctx *ctx, struct tensor *x, int n, const int *dims,
				   bool keepdim, struct qkv_error *err)
{
	struct tensor *m = ops_reduce_dims(ctx, x, n, dims, true, REDUCE_MAX, err), *d = NULL, *e = NULL, *s = NULL,
		      *l = NULL, *mr = NULL, *r = NULL;
	if (!m)
		return NULL;
	zero_infinities(m);
	if ((d = ops_binary(ctx, (struct operand){ x, false }, (struct operand){ m, false }, EW_SUB, err)) &&
	    (e = ops_unary(ctx, d, EW_EXP, err)) && (s = ops_reduce_dims(ctx, e, n, dims, keepdim, REDUCE_SUM, err)) &&
	    (l = ops_unary(ctx, s, EW_LOG, err)) && (mr = ops_reshape(ctx, m, l->ndim, l->shape, err)))
		r = ops_binary(ctx, (struct operand){ l, false }, (struct operand){ mr, false }, EW_ADD, err);
	tensor_unref(m);
	tensor_unref(d);
	tensor_unref(e);
	tensor_unref(s);
	tensor_unref(l);
	tensor_unref(mr);
	return r;
}

/* torch.logsumexp(input, dim, keepdim=False), x.logsumexp(dim, keepdim) */
static struct value *logsumexp(struct call *c, struct qkv_error *err)
{
	struct args a;
	struct tensor *x;
	int at = args_bind_input(c, P("dim", "keepdim"), 1, &a, &x, err);
	if (at < 0)
		return NULL;
	bool all, keepdim;
	int n, dims[TENSOR_MAX_DIMS];
	if (a.v[at]->kind == V_NONE)
		return args_error(err, c, &a, at, "logsumexp(): dim must be an int or a tuple of ints, not None"),
		       args_fail(&a);
	if (args_reduce_dims(c, &a, at, x->ndim, FLAVOR_TORCH, true, &all, &n, dims, err) < 0 ||
	    args_bool(c, &a, at + 1, false, &keepdim, err) < 0)
		return args_fail(&a);
	if (all && n == 0 && x->ndim > 0)	/* dim=(): torch 1.13 fails on it */
		return args_error(err, c, &a, at, "logsumexp() over dim=() fails in torch 1.13 (a broadcast error); "
				  "name the dims"), args_fail(&a);
	if (all) {	/* a 0-d input: its one dim */
		n = 0;
		for (int i = 0; i < x->ndim; i++)
			dims[n++] = i;
	}
	struct tensor *xf = dtype_is_float(x->dtype) ? tensor_ref(x) : ops_to_dtype(x, DT_F32);
	struct tensor *r;
	if (tensor_numel(xf) == 0) {	/* log(0) over an empty dim: -inf */
		struct tensor *e = ops_unary(&c->I->ops, xf, EW_EXP, err);
		struct tensor *s = e ? ops_reduce_dims(&c->I->ops, e, n, dims, keepdim, REDUCE_SUM, err) : NULL;
		r = s ? ops_unary(&c->I->ops, s, EW_LOG, err) : NULL;
		tensor_unref(e);
		tensor_unref(s);
	} else {
		r = logsumexp_of(&c->I->ops, xf, n, dims, keepdim, err);
	}
	tensor_unref(xf);
	if (!r)
		return args_error(err, c, &a, at, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

static struct value *torch_prod(struct call *c, struct qkv_error *err) { return prod(c, false, err); }
static struct value *np_prod(struct call *c, struct qkv_error *err) { return prod(c, true, err); }

struct value *products_prod_method(struct call *c, struct qkv_error *err)
{
	return prod(c, c->self->t->flavor == FLAVOR_NUMPY, err);
}

struct value *products_logsumexp(struct call *c, struct qkv_error *err) { return logsumexp(c, err); }

const struct builtin products_functions[] = {
	{ "torch.prod", torch_prod }, { "numpy.prod", np_prod }, { "torch.logsumexp", logsumexp },
	{ NULL, NULL },
};
