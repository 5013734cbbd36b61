/* norms.c: vector norms and what is built on them. torch.norm(x, p, dim,
 * keepdim) and x.norm (p 'fro' or 2, 1, 0, inf, -inf), torch.linalg.norm and
 * torch.linalg.vector_norm, as torch's kernels compute them
 * (core/ops_norm.c); F.normalize (x over its clamped norm) and
 * F.cosine_similarity (each side over its clamped norm, their products
 * summed), in torch 1.13's order of operations; np.linalg.norm(x, ord,
 * axis, keepdims) as numpy computes it (the square root of the dot product
 * of the flattened array, or of the pairwise sum of squares along an axis;
 * integers as float64). Matrix norms (nuc, ord=2 of a matrix) are refused
 * with a message. Called through builtins.c's and methods.c's tables; never
 * prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <math.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

static bool given(const struct args *a, int i)
{
	return a->v[i] && a->v[i]->kind != V_NONE;
}

/* A norm's order from argument i (absent: 2): a number, inf, or 'fro'
 * (2: the Frobenius norm of the dims reduced). */
static int order_arg(struct call *c, struct args *a, int i, double *p, struct qkv_error *err)
{
	*p = 2;
	if (!given(a, i))
		return 0;
	const struct value *v = a->v[i];
	if (v->kind == V_STR) {
		if (strcmp(v->str, "fro") == 0)
			return 0;
		return args_error(err, c, a, i, "qkv computes vector norms: the '%s' norm is not supported", v->str);
	}
	return args_double(c, a, i, 2, p, err);
}

/* torch's norm of x (argument 0 or the method's self) over argument idim
 * (None: every dim), keepdim from argument ikeep. */
static struct value *torch_norm(struct call *c, struct args *a, struct tensor *x, double p, int idim, int ikeep,
				struct qkv_error *err)
{
	bool all, keepdim;
	int n, dims[TENSOR_MAX_DIMS];
	if (args_reduce_dims(c, a, idim, x->ndim, FLAVOR_TORCH, true, &all, &n, dims, err) < 0 ||
	    args_bool(c, a, ikeep, false, &keepdim, err) < 0)
		return args_fail(a);
	struct tensor *r = ops_vector_norm(&c->I->ops, x, p, all ? 0 : n, dims, keepdim, err);
	if (!r)
		return args_error(err, c, a, 0, "%s", err->msg), args_fail(a);
	return args_done(c, a, r, err);
}

static struct value *f_norm(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "p", "dim", "keepdim"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	double p;
	if (args_tensor(c, &a, 0, &x, err) < 0 || order_arg(c, &a, 1, &p, err) < 0)
		return args_fail(&a);
	return torch_norm(c, &a, x, p, 2, 3, err);
}

struct value *norms_method(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("p", "dim", "keepdim"), 0, &a, err) < 0)
		return NULL;
	double p;
	if (order_arg(c, &a, 0, &p, err) < 0)
		return args_fail(&a);
	return torch_norm(c, &a, c->self->t, p, 1, 2, err);
}

/* torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False) and
 * torch.linalg.norm(x, ord=None, ...) (vector false), which for ord None is
 * the 2-norm of the dims reduced (a matrix's Frobenius norm). */
static struct value *linalg(struct call *c, bool vector, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "ord", "dim", "keepdim"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	double p = 2;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	if (given(&a, 1)) {
		if (a.v[1]->kind == V_STR || !vector)
			return args_error(err, c, &a, 1, "qkv computes torch.linalg.norm with ord=None only (a vector's or "
					  "a matrix's 2-norm): use torch.linalg.vector_norm for another order"),
			       args_fail(&a);
		if (args_double(c, &a, 1, 2, &p, err) < 0)
			return args_fail(&a);
	}
	return torch_norm(c, &a, x, p, 2, 3, err);
}

static struct value *linalg_norm(struct call *c, struct qkv_error *err)
{
	return linalg(c, false, err);
}

static struct value *linalg_vector_norm(struct call *c, struct qkv_error *err)
{
	return linalg(c, true, err);
}

/* x over max(norm, eps), the norm's dims kept (broadcast back over x). */
static struct tensor *over_norm(struct call *c, struct tensor *x, double p, int dim, double eps, struct qkv_error *err)
{
	struct tensor *nrm = ops_vector_norm(&c->I->ops, x, p, 1, &dim, true, err);
	if (!nrm)
		return NULL;
	struct tensor *e = ops_scalar(x->dtype, FLAVOR_TORCH, eps);
	struct tensor *den = ops_binary(&c->I->ops, (struct operand){ nrm, false }, (struct operand){ e, true }, EW_MAX,
					err);
	struct tensor *r = den ? ops_binary(&c->I->ops, (struct operand){ x, false }, (struct operand){ den, false },
					    EW_DIV, err)
			       : NULL;
	tensor_unref(nrm);
	tensor_unref(e);
	tensor_unref(den);
	return r;
}

/* F.normalize(input, p=2.0, dim=1, eps=1e-12) */
static struct value *f_normalize(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "p", "dim", "eps"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	double p, eps;
	int64_t d;
	int dim;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_double(c, &a, 1, 2, &p, err) < 0 ||
	    args_int(c, &a, 2, 1, &d, err) < 0 || args_double(c, &a, 3, 1e-12, &eps, err) < 0)
		return args_fail(&a);
	if (args_norm_dim(d, x->ndim, FLAVOR_TORCH, &dim, err) < 0)
		return args_error(err, c, &a, 2, "%s", err->msg), args_fail(&a);
	struct tensor *r = over_norm(c, x, p, dim, eps, err);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

/* x over sqrt(max(sum(x², dim), eps²)), the sum's dim kept: how torch 1.13's
 * cosine_similarity normalises each side. */
static struct tensor *over_root_sum(struct call *c, struct tensor *x, int dim, double eps, struct qkv_error *err)
{
	struct tensor *sq = ops_binary(&c->I->ops, (struct operand){ x, false }, (struct operand){ x, false }, EW_MUL, err);
	struct tensor *s = sq ? ops_reduce(&c->I->ops, sq, false, dim, true, REDUCE_SUM, err) : NULL;
	struct tensor *e = ops_scalar(x->dtype, FLAVOR_TORCH, eps * eps);
	struct tensor *m = s ? ops_binary(&c->I->ops, (struct operand){ s, false }, (struct operand){ e, true }, EW_MAX,
					  err)
			     : NULL;
	struct tensor *root = m ? ops_unary(&c->I->ops, m, EW_SQRT, err) : NULL;
	struct tensor *r = root ? ops_binary(&c->I->ops, (struct operand){ x, false }, (struct operand){ root, false },
					     EW_DIV, err)
				: NULL;
	tensor_unref(sq);
	tensor_unref(s);
	tensor_unref(e);
	tensor_unref(m);
	tensor_unref(root);
	return r;
}

/* F.cosine_similarity(x1, x2, dim=1, eps=1e-8): torch 1.13 divides each
 * side by the root of its clamped sum of squares first, then sums the
 * products. */
static struct value *f_cosine_similarity(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x1", "x2", "dim", "eps"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x1, *x2;
	int64_t d;
	double eps;
	if (args_tensor(c, &a, 0, &x1, err) < 0 || args_tensor(c, &a, 1, &x2, err) < 0 ||
	    args_int(c, &a, 2, 1, &d, err) < 0 || args_double(c, &a, 3, 1e-8, &eps, err) < 0)
		return args_fail(&a);
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	if (ops_broadcast_shape(&c->I->ops, x1, x2, &ndim, shape, "cosine_similarity", err) < 0)
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	int dim;
	if (args_norm_dim(d, ndim, FLAVOR_TORCH, &dim, err) < 0)
		return args_error(err, c, &a, 2, "%s", err->msg), args_fail(&a);
	struct tensor *b1 = ops_expand(x1, ndim, shape, err), *b2 = b1 ? ops_expand(x2, ndim, shape, err) : NULL;
	struct tensor *n1 = b2 ? over_root_sum(c, b1, dim, eps, err) : NULL;
	struct tensor *n2 = n1 ? over_root_sum(c, b2, dim, eps, err) : NULL;
	struct tensor *prod = n2 ? ops_binary(&c->I->ops, (struct operand){ n1, false }, (struct operand){ n2, false },
					      EW_MUL, err)
				 : NULL;
	struct tensor *r = prod ? ops_reduce(&c->I->ops, prod, false, dim, false, REDUCE_SUM, err) : NULL;
	tensor_unref(b1);
	tensor_unref(b2);
	tensor_unref(n1);
	tensor_unref(n2);
	tensor_unref(prod);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

/* np.linalg.norm(x, ord=None, axis=None, keepdims=False): vector norms
 * (ord None, 2, 1, inf, -inf, 0 along an axis; None or 'fro' over every
 * element). */
static struct value *np_norm(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x", "ord", "axis", "keepdims"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x = args_array(c, &a, 0, err);
	if (!x)
		return args_fail(&a);
	bool all, keepdims;
	int n, dims[TENSOR_MAX_DIMS];
	double p = 2;
	bool fro = given(&a, 1) && a.v[1]->kind == V_STR && strcmp(a.v[1]->str, "fro") == 0;
	struct tensor *r = NULL;
	if (args_reduce_dims(c, &a, 2, x->ndim, FLAVOR_NUMPY, true, &all, &n, dims, err) < 0 ||
	    args_bool(c, &a, 3, false, &keepdims, err) < 0 || (!fro && order_arg(c, &a, 1, &p, err) < 0))
		goto fail;
	if (given(&a, 1) && !(all && fro) && (n > 1 || (all && x->ndim > 1)))
		return tensor_unref(x), args_error(err, c, &a, 1, "qkv computes vector norms: a matrix norm "
						   "(ord of a 2-D array or of two axes) is not supported"),
		       args_fail(&a);
	if (!(p == 0 || p == 1 || p == 2 || isinf(p))) {
		args_error(err, c, &a, 1, "qkv computes the norms of order 0, 1, 2, inf and -inf: ord=%g is not "
			   "supported", p);
		goto fail;
	}
	struct tensor *f = dtype_is_float(x->dtype) ? tensor_ref(x) : ops_to_dtype(x, DT_F64);
	if (all && p == 2 && (!given(&a, 1) || fro || x->ndim == 1)) {
		/* sqrt(dot(x.ravel(), x.ravel())), reshaped to ones with keepdims */
		int64_t len = tensor_numel(f), ones[TENSOR_MAX_DIMS] = { 1, 1, 1, 1 };
		struct tensor *flat = ops_reshape(&c->I->ops, f, 1, &len, err);
		struct tensor *dot = flat ? ops_dot(&c->I->ops, flat, flat, err) : NULL;
		struct tensor *root = dot ? ops_unary(&c->I->ops, dot, EW_SQRT, err) : NULL;
		r = root && keepdims ? ops_reshape(&c->I->ops, root, x->ndim, ones, err) : root ? tensor_ref(root) : NULL;
		tensor_unref(flat);
		tensor_unref(dot);
		tensor_unref(root);
	} else {
		/* sqrt(add.reduce(x * x)), add.reduce(abs(x)), abs(x).max() ... along the axes */
		enum reduce_op op = isinf(p) ? (p > 0 ? REDUCE_MAX : REDUCE_MIN) : REDUCE_SUM;
		struct tensor *t = NULL;
		if (p == 2)
			t = ops_binary(&c->I->ops, (struct operand){ f, false }, (struct operand){ f, false }, EW_MUL, err);
		else if (p == 0)
			t = ops_to_dtype(f, DT_BOOL);
		else
			t = ops_unary(&c->I->ops, f, EW_ABS, err);
		if (t && p == 0) {
			struct tensor *tf = ops_to_dtype(t, f->dtype);
			tensor_unref(t);
			t = tf;
		}
		struct tensor *s = !t ? NULL : all ? ops_reduce(&c->I->ops, t, true, 0, keepdims, op, err)
						   : ops_reduce_dims(&c->I->ops, t, n, dims, keepdims, op, err);
		r = s && p == 2 ? ops_unary(&c->I->ops, s, EW_SQRT, err) : s ? tensor_ref(s) : NULL;
		tensor_unref(t);
		tensor_unref(s);
	}
	tensor_unref(f);
	tensor_unref(x);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
fail:
	tensor_unref(x);
	return args_fail(&a);
}

const struct builtin norms_functions[] = {
	{ "torch.norm", f_norm },
	{ "torch.linalg.norm", linalg_norm },
	{ "torch.linalg.vector_norm", linalg_vector_norm },
	{ "torch.nn.functional.normalize", f_normalize },
	{ "torch.nn.functional.cosine_similarity", f_cosine_similarity },
	{ "numpy.linalg.norm", np_norm },
	{ NULL, NULL },
};
