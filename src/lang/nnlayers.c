/* nnlayers.c: torch.nn's Embedding and LayerNorm, as modules and as the
 * functions F.embedding and F.layer_norm. nn.Embedding(num, dim,
 * padding_idx=) draws its weight as torch.randn(num, dim) does (the padding
 * row then zeroed); nn.LayerNorm(shape, eps=, elementwise_affine=) starts
 * with a weight of ones and a bias of zeros. A call looks rows up (indices
 * must be integers in range, as torch says) or normalises the last dims
 * (core/ops_norm.c, in torch's order of operations). Their attributes are
 * torch's. Called through builtins.c's table and methods.c's module call;
 * never prints. */
#include "lang/args.h"
#include "lang/runtime.h"
#include "core/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

static bool given(const struct args *a, int i)
{
	return a->v[i] && a->v[i]->kind != V_NONE;
}

/* ---- Embedding ----------------------------------------------------------------- */

static struct value *nn_embedding(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("num_embeddings", "embedding_dim", "padding_idx", "max_norm"), 2, &a, err) < 0)
		return NULL;
	int64_t num, dim, pad = -1;
	if (args_int(c, &a, 0, 0, &num, err) < 0 || args_int(c, &a, 1, 0, &dim, err) < 0 ||
	    (given(&a, 2) && args_int(c, &a, 2, 0, &pad, err) < 0))
		return args_fail(&a);
	if (given(&a, 3))
		return args_error(err, c, &a, 3, "qkv's Embedding does not renormalise rows: max_norm is not supported"),
		       args_fail(&a);
	if (num < 0 || dim < 0)
		return args_error(err, c, &a, num < 0 ? 0 : 1, "RuntimeError: Trying to create tensor with negative "
				  "dimension %lld: [%lld, %lld]", (long long)(num < 0 ? num : dim), (long long)num,
				  (long long)dim),
		       args_fail(&a);
	if (given(&a, 2)) {
		if (pad >= num || pad < -num)
			return args_error(err, c, &a, 2, "AssertionError: Padding_idx must be within num_embeddings"),
			       args_fail(&a);
		if (pad < 0)
			pad += num;
	}
	int64_t shape[2] = { num, dim };
	if (ops_check_shape(&c->I->ops, 2, shape, err) < 0)
		return args_done(c, &a, NULL, err);
	struct tensor *w = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	torch_fill_normal_f32(&c->I->g.torch_rng, w->storage->data, num * dim, 0, 1);
	if (pad >= 0)
		memset((float *)w->storage->data + pad * dim, 0, (size_t)dim * sizeof(float));
	struct object *o = xcalloc(1, sizeof *o);
	o->kind = OBJ_EMBEDDING;
	o->in_features = num;
	o->out_features = dim;
	o->padding_idx = pad;
	o->weight = value_parameter(w);
	o->bias = value_none();
	o->training = true;
	return args_return(&a, value_object(o));
}

/* The rows of weight (num, dim) that the integer tensor idx names:
 * idx.shape + (dim,). */
static struct tensor *look_up(struct call *c, const struct tensor *idx, struct tensor *w, struct qkv_error *err)
{
	if (idx->dtype != DT_I64)
		return error_set(err, 0, 0, "RuntimeError: Expected tensor for argument #1 'indices' to have one of the "
				 "following scalar types: Long, Int; but got torch.%sTensor instead (while checking "
				 "arguments for embedding)", idx->dtype == DT_BOOL ? "Bool" : idx->dtype == DT_F64 ?
				 "Double" : "Float"),
		       NULL;
	if (w->ndim != 2)
		return error_set(err, 0, 0, "RuntimeError: 'weight' must be 2-D"), NULL;
	int64_t n = tensor_numel(idx), rows = w->shape[0];
	int64_t *flat = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *flat);
	for (int64_t i = 0; i < n; i++) {
		flat[i] = tensor_get_i64(idx, i);
		if (flat[i] < 0 || flat[i] >= rows) {
			free(flat);
			return error_set(err, 0, 0, "IndexError: index out of range in self"), NULL;
		}
	}
	int64_t shape[TENSOR_MAX_DIMS + 1];
	memcpy(shape, idx->shape, (size_t)idx->ndim * sizeof *shape);
	shape[idx->ndim] = w->shape[1];
	struct tensor *r = NULL;
	if (idx->ndim + 1 > TENSOR_MAX_DIMS)
		error_set(err, 0, 0, "qkv's tensors have at most %d dimensions: the indices' %d and one more are too "
			  "many", TENSOR_MAX_DIMS, idx->ndim);
	else if (ops_check_shape(&c->I->ops, idx->ndim + 1, shape, err) == 0)
		r = ops_index_select(w, 0, flat, n, err);
	free(flat);
	if (r) {
		struct tensor *v = ops_reshape(&c->I->ops, r, idx->ndim + 1, shape, err);
		tensor_unref(r);
		r = v;
	}
	return r;
}

static struct value *f_embedding(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "weight", "padding_idx", "max_norm"), 2, &a, err) < 0)
		return NULL;
	struct tensor *idx, *w;
	if (args_tensor(c, &a, 0, &idx, err) < 0 || args_tensor(c, &a, 1, &w, err) < 0)
		return args_fail(&a);
	if (given(&a, 3))
		return args_error(err, c, &a, 3, "qkv's embedding does not renormalise rows: max_norm is not supported"),
		       args_fail(&a);
	struct tensor *r = look_up(c, idx, w, err);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

/* ---- LayerNorm ----------------------------------------------------------------- */

/* normalized_shape: an int or a tuple, list or Size of them, into
 * shape[*ndim]. */
static int norm_shape(struct call *c, struct args *a, int i, int *ndim, int64_t *shape, struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (v->kind == V_INT) {
		*ndim = 1;
		shape[0] = v->i;
	} else if (args_shape(c, a, i, ndim, shape, false, err) < 0) {
		return -1;
	}
	for (int k = 0; k < *ndim; k++)
		if (shape[k] < 0)
			return args_error(err, c, a, i, "RuntimeError: Trying to create tensor with negative dimension "
					  "%lld", (long long)shape[k]);
	return 0;
}

static struct value *nn_layer_norm(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("normalized_shape", "eps", "elementwise_affine"), 1, &a, err) < 0)
		return NULL;
	struct object *o = xcalloc(1, sizeof *o);
	bool affine;
	if (norm_shape(c, &a, 0, &o->norm_ndim, o->norm_shape, err) < 0 ||
	    args_double(c, &a, 1, 1e-5, &o->p, err) < 0 || args_bool(c, &a, 2, true, &affine, err) < 0 ||
	    ops_check_shape(&c->I->ops, o->norm_ndim, o->norm_shape, err) < 0) {
		free(o);
		return args_fail(&a);
	}
	o->kind = OBJ_LAYERNORM;
	if (affine) {
		o->weight = value_parameter(ops_full(&c->I->ops, DT_F32, FLAVOR_TORCH, o->norm_ndim, o->norm_shape, 1, err));
		o->bias = value_parameter(ops_full(&c->I->ops, DT_F32, FLAVOR_TORCH, o->norm_ndim, o->norm_shape, 0, err));
	} else {
		o->weight = value_none();
		o->bias = value_none();
	}
	o->training = true;
	return args_return(&a, value_object(o));
}

/* An affine tensor (weight or bias) of layer_norm, or NULL for None (its
 * shape is checked by ops_layer_norm). */
static int affine_arg(struct call *c, struct args *a, int i, const struct tensor **out, struct qkv_error *err)
{
	struct tensor *t = NULL;
	if (given(a, i) && args_tensor(c, a, i, &t, err) < 0)
		return -1;
	*out = t;
	return 0;
}

static struct value *f_layer_norm(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "normalized_shape", "weight", "bias", "eps"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x;
	const struct tensor *w, *b;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	double eps;
	if (args_tensor(c, &a, 0, &x, err) < 0 || norm_shape(c, &a, 1, &ndim, shape, err) < 0 ||
	    affine_arg(c, &a, 2, &w, err) < 0 || affine_arg(c, &a, 3, &b, err) < 0 ||
	    args_double(c, &a, 4, 1e-5, &eps, err) < 0)
		return args_fail(&a);
	struct tensor *r = ops_layer_norm(x, ndim, shape, w, b, eps, err);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

/* ---- the modules called, and their attributes -------------------------------------- */

struct value *nnlayers_call(struct call *c, struct object *o, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input"), 1, &a, err) < 0)
		return NULL;
	struct tensor *x;
	if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	struct tensor *r;
	if (o->kind == OBJ_EMBEDDING) {
		r = look_up(c, x, o->weight->t, err);
	} else {
		const struct tensor *w = o->weight->kind == V_TENSOR ? o->weight->t : NULL;
		const struct tensor *b = o->bias->kind == V_TENSOR ? o->bias->t : NULL;
		r = ops_layer_norm(x, o->norm_ndim, o->norm_shape, w, b, o->p, err);
	}
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

struct value *nnlayers_attr(const struct object *o, const char *name)
{
	if (strcmp(name, "weight") == 0)
		return value_ref(o->weight);
	if (o->kind == OBJ_EMBEDDING) {
		if (strcmp(name, "num_embeddings") == 0)
			return value_int(o->in_features);
		if (strcmp(name, "embedding_dim") == 0)
			return value_int(o->out_features);
		if (strcmp(name, "padding_idx") == 0)
			return o->padding_idx >= 0 ? value_int(o->padding_idx) : value_none();
		return NULL;
	}
	if (strcmp(name, "bias") == 0)
		return value_ref(o->bias);
	if (strcmp(name, "eps") == 0)
		return value_float(o->p);
	if (strcmp(name, "elementwise_affine") == 0)
		return value_bool(o->weight->kind == V_TENSOR);
	if (strcmp(name, "normalized_shape") == 0) {
		struct value *t = value_seq(V_TUPLE, o->norm_ndim);
		for (int i = 0; i < o->norm_ndim; i++)
			t->items[i] = value_int(o->norm_shape[i]);
		return t;
	}
	return NULL;
}

const struct builtin nnlayers_functions[] = {
	{ "torch.nn.Embedding", nn_embedding },
	{ "torch.nn.LayerNorm", nn_layer_norm },
	{ "torch.nn.functional.embedding", f_embedding },
	{ "torch.nn.functional.layer_norm", f_layer_norm },
	{ NULL, NULL },
};
