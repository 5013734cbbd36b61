/* args.c: argument binding and conversion for the built-in functions.
 * Every error names the function and points at the offending argument. Used
 * by builtins.c and methods.c only; never prints. */
#include "lang/args.h"
#include "core/mem.h"
#include "core/ops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

int args_error(struct qkv_error *err, struct call *c, struct args *a, int i, const char *fmt, ...)
{
	const struct node *at = (a && i >= 0 && i < ARGS_MAX && a->at[i]) ? a->at[i] : c->node;
	char msg[sizeof err->msg];	/* fmt's arguments may be err->msg itself */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* an argument: the caret goes where its text starts (a keyword's name) */
	if (at != c->node && at->sline)
		return error_set(err, at->sline, at->scol, "%s", msg);
	return error_set(err, at->line, at->col, "%s", msg);
}

/* a and b are the same name: a parameter's name is a few bytes, where a
 * loop beats strcmp's call */
static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int args_bind(struct call *c, const char *const *params, int nreq, struct args *a, struct qkv_error *err)
{
	/* every slot NULL (mem_zero16: every built-in call binds) */
	_Static_assert(offsetof(struct args, n) % 16 == 0, "the slots are not whole 16-byte blocks");
	mem_zero16(a, offsetof(struct args, n));
	int np = 0, star = -1;
	for (; params[np]; np++)	/* the count and the "*" in one pass */
		if (params[np][0] == '*' && params[np][1] == 0)
			star = np;
	a->n = np < ARGS_MAX ? np : ARGS_MAX;
	int pos = 0;
	for (int i = 0; i < c->nargs; i++) {
		if (star >= 0 && pos == star) {
			/* collect the rest (or a single tuple/list given as is) */
			int rest = c->nargs - i;
			struct value *t = value_seq(V_TUPLE, rest);
			for (int j = 0; j < rest; j++)
				t->items[j] = value_ref(c->args[i + j]);
			a->v[star] = t;
			a->at[star] = c->arg_nodes[i];
			pos = np;
			break;
		}
		if (pos >= np) {
			for (int j = 0; j < ARGS_MAX; j++)
				value_unref(a->v[j]);
			return error_set(err, c->arg_nodes[i]->sline, c->arg_nodes[i]->scol,
					 "%s() takes at most %d argument%s, %d given", c->name, np, np == 1 ? "" : "s",
					 c->nargs);
		}
		a->v[pos] = value_ref(c->args[i]);
		a->at[pos] = c->arg_nodes[i];
		pos++;
	}
	for (int k = 0; k < c->nkw; k++) {
		int slot = -1;
		for (int i = 0; i < np; i++)
			if (i != star && same_name(params[i], c->kwnames[k]))
				slot = i;
		if (star >= 0 && slot < 0 && strcmp(c->kwnames[k], "size") == 0)
			slot = star;
		if (slot < 0 || a->v[slot]) {
			const struct node *at = c->kw_nodes[k];
			for (int j = 0; j < ARGS_MAX; j++)
				value_unref(a->v[j]);
			if (slot < 0)
				return error_set(err, at->sline, at->scol, "%s() got an unexpected keyword argument '%s'",
						 c->name, c->kwnames[k]);
			return error_set(err, at->sline, at->scol, "%s() got argument '%s' twice", c->name,
					 c->kwnames[k]);
		}
		a->v[slot] = value_ref(c->kwargs[k]);
		a->at[slot] = c->kw_nodes[k];
	}
	for (int i = 0; i < nreq; i++) {
		if (!a->v[i] && i != star) {
			for (int j = 0; j < ARGS_MAX; j++)
				value_unref(a->v[j]);
			return error_set(err, c->node->line, c->node->col, "%s() missing required argument '%s'",
					 c->name, params[i]);
		}
	}
	return 0;
}

int args_bind_input(struct call *c, const char *const *params, int nreq, struct args *a, struct tensor **x,
		    struct qkv_error *err)
{
	const char *names[ARGS_MAX + 1];
	bool method = c->self != NULL;
	int k = 0;
	if (!method)
		names[k++] = "input";
	for (int i = 0; params[i] && k < ARGS_MAX; i++)
		names[k++] = params[i];
	names[k] = NULL;
	if (args_bind(c, names, nreq + !method, a, err) < 0)
		return -1;
	if (method) {
		*x = c->self->t;
		return 0;
	}
	if (args_tensor(c, a, 0, x, err) < 0) {
		args_release(a);
		return -1;
	}
	return 1;
}

int args_not_tensor(struct call *c, struct args *a, int i, struct qkv_error *err)
{
	struct value *v = a->v[i];
	return args_error(err, c, a, i, "%s(): argument %d must be a tensor, not %s", c->name, i + 1,
			  v ? value_type_name(v) : "nothing");
}

int args_int(struct call *c, struct args *a, int i, int64_t def, int64_t *out, struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (!v || v->kind == V_NONE) {
		*out = def;
		return 0;
	}
	if (value_to_int(v, out, "this argument", err) < 0)
		return args_error(err, c, a, i, "%s(): argument %d must be an integer, not %s", c->name, i + 1,
				  value_type_name(v));
	return 0;
}

int args_double(struct call *c, struct args *a, int i, double def, double *out, struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (!v || v->kind == V_NONE) {
		*out = def;
		return 0;
	}
	if (value_to_double(v, out, "this argument", err) < 0)
		return args_error(err, c, a, i, "%s(): argument %d must be a number, not %s", c->name, i + 1,
				  value_type_name(v));
	return 0;
}

int args_bool(struct call *c, struct args *a, int i, bool def, bool *out, struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (!v) {
		*out = def;
		return 0;
	}
	if (v->kind == V_BOOL || v->kind == V_INT) {
		*out = v->kind == V_BOOL ? v->b : v->i != 0;
		return 0;
	}
	return args_error(err, c, a, i, "%s(): argument %d must be True or False, not %s", c->name, i + 1,
			  value_type_name(v));
}

int args_norm_dim(int64_t d, int ndim, enum flavor fl, int *out, struct qkv_error *err)
{
	int n = ndim > 0 ? ndim : 1;
	if (fl == FLAVOR_NUMPY && (d < -n || d >= n))
		return error_set(err, 0, 0, "AxisError: axis %lld is out of bounds for array of dimension %d",
				 (long long)d, ndim);
	int dim = ops_norm_dim(d, ndim, err);	/* torch's words */
	if (dim < 0)
		return -1;
	*out = dim;
	return 0;
}

int args_axis(struct call *c, struct args *a, int i, int ndim, enum flavor fl, int *out, struct qkv_error *err)
{
	const struct value *v = a->v[i];
	int n = ndim > 0 ? ndim : 1;
	if (v && v->kind == V_INT && v->i >= -n && v->i < n) {	/* dim=-1: what the steps below give */
		*out = (int)(v->i < 0 ? v->i + n : v->i);
		return 0;
	}
	int64_t d;
	if (args_int(c, a, i, 0, &d, err) < 0)
		return -1;
	if (args_norm_dim(d, ndim, fl, out, err) < 0)
		return args_error(err, c, a, i, "%s", err->msg);
	return 0;
}

int args_reduce_dims(struct call *c, struct args *a, int i, int ndim, enum flavor fl, bool several, bool *all,
		     int *n, int *dims, struct qkv_error *err)
{
	const struct value *v = a->v[i];
	*all = !v || v->kind == V_NONE;
	*n = 0;
	if (*all)
		return 0;
	if (several && v->kind == V_LIST && fl == FLAVOR_NUMPY)	/* numpy takes a tuple of axes, not a list */
		return args_error(err, c, a, i, "TypeError: 'list' object cannot be interpreted as an integer");
	if (!several || !(v->kind == V_TUPLE || v->kind == V_LIST)) {
		*n = 1;
		return args_axis(c, a, i, ndim, fl, dims, err);
	}
	bool seen[TENSOR_MAX_DIMS] = { false };	/* distinct dims in range: *n stays within ndim */
	for (int k = 0; k < v->n; k++) {
		const struct value *d = v->items[k];
		if (d->kind != V_INT && fl == FLAVOR_NUMPY)
			return args_error(err, c, a, i, "TypeError: '%s' object cannot be interpreted as an integer",
					  value_type_name(d));
		if (d->kind != V_INT)
			return args_error(err, c, a, i, "%s(): the dims must be ints, not %s", c->name,
					  value_type_name(d));
		int dim;
		if (args_norm_dim(d->i, ndim, fl, &dim, err) < 0)
			return args_error(err, c, a, i, "%s", err->msg);
		if (seen[dim])
			return args_error(err, c, a, i, fl == FLAVOR_NUMPY ? "ValueError: duplicate value in 'axis'"
					  : "dim %d appears multiple times in the list of dims", dim);
		seen[dim] = true;
		dims[(*n)++] = dim;
	}
	*all = *n == 0 && fl == FLAVOR_TORCH;	/* torch's dim=() is every dim */
	return 0;
}

int args_dim(struct call *c, struct args *a, int i, int ndim, int *out, struct qkv_error *err)
{
	return args_axis(c, a, i, ndim, FLAVOR_TORCH, out, err);
}

int args_not_float(struct call *c, struct args *a, int i, const struct tensor *t, struct qkv_error *err)
{
	return args_error(err, c, a, i, "%s() needs a floating-point tensor, got %s (write the numbers with a "
			  "decimal point, or call .float())", c->name, dtype_name(t->dtype));
}

/* The ints of argument i: one int, or a tuple/list/Size of them (randn((3, 5))
 * arrives as a 1-tuple holding a tuple); what names them in messages. */
static int args_ints(struct call *c, struct args *a, int i, const char *what, int *n, int64_t *out,
		     struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (!v) {
		*n = 0;
		return 0;
	}
	if ((v->kind == V_TUPLE || v->kind == V_LIST) && v->n == 1 &&
	    (v->items[0]->kind == V_TUPLE || v->items[0]->kind == V_LIST || v->items[0]->kind == V_SIZE))
		v = v->items[0];
	if (v->kind == V_INT) {
		*n = 1;
		out[0] = v->i;
		return 0;
	}
	if (v->kind != V_TUPLE && v->kind != V_LIST && v->kind != V_SIZE)
		return args_error(err, c, a, i, "%s(): the %s must be integers or a tuple of them, not %s",
				  c->name, what, value_type_name(v));
	if (v->n > TENSOR_MAX_DIMS)
		return args_error(err, c, a, i, "qkv tensors have at most %d dimensions, %s() was given %d",
				  TENSOR_MAX_DIMS, c->name, v->n);
	*n = v->n;
	for (int k = 0; k < v->n; k++) {
		struct value *e = v->items[k];
		if (e->kind != V_INT)
			return args_error(err, c, a, i, "%s(): %s must be integers, got %s", c->name,
					  strcmp(what, "size") == 0 ? "sizes" : what, value_type_name(e));
		out[k] = e->i;
	}
	return 0;
}

int args_shape(struct call *c, struct args *a, int i, int *ndim, int64_t *shape, bool allow_neg1,
	       struct qkv_error *err)
{
	if (args_ints(c, a, i, "size", ndim, shape, err) < 0)
		return -1;
	for (int k = 0; k < *ndim; k++) {
		if (shape[k] >= 0 || (allow_neg1 && shape[k] == -1))
			continue;
		if (allow_neg1)
			return args_error(err, c, a, i, "%s(): negative size %lld in the shape", c->name,
					  (long long)shape[k]);
		if (strncmp(c->name, "np.", 3) == 0 || strncmp(c->name, "numpy.", 6) == 0)
			return args_error(err, c, a, i, "ValueError: negative dimensions are not allowed");
		char list[TENSOR_MAX_DIMS * 22 + 2] = "";
		size_t len = 0;
		for (int j = 0; j < *ndim; j++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", j ? ", " : "", (long long)shape[j]);
		return args_error(err, c, a, i, "Trying to create tensor with negative dimension %lld: [%s]",
				  (long long)shape[k], list);
	}
	return 0;
}

int args_dims(struct call *c, struct args *a, int i, int ndim, enum flavor fl, int *n, int *dims,
	      struct qkv_error *err)
{
	int64_t raw[TENSOR_MAX_DIMS];
	if (args_ints(c, a, i, "dims", n, raw, err) < 0)
		return -1;
	bool seen[TENSOR_MAX_DIMS] = { false };
	for (int k = 0; k < *n; k++) {
		if (args_norm_dim(raw[k], ndim, fl, &dims[k], err) < 0)
			return args_error(err, c, a, i, "%s", err->msg);
		if (seen[dims[k]])
			return args_error(err, c, a, i, fl == FLAVOR_NUMPY ? "ValueError: repeated axis in %s"
					  : "%s(): duplicate dims are not allowed.", c->name);
		seen[dims[k]] = true;
	}
	return 0;
}

int args_dtype(struct call *c, struct args *a, int i, bool *given, enum dtype *out, struct qkv_error *err)
{
	struct value *v = a->v[i];
	*given = false;
	if (!v || v->kind == V_NONE)
		return 0;
	if (v->kind == V_DTYPE) {
		*out = v->dtype;
		*given = true;
		return 0;
	}
	if (v->kind == V_STR) {
		static const struct { const char *name; enum dtype dt; } names[] = {
			{ "float32", DT_F32 }, { "float", DT_F64 }, { "float64", DT_F64 }, { "double", DT_F64 },
			{ "int64", DT_I64 }, { "int", DT_I64 }, { "bool", DT_BOOL },
		};
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
			if (strcmp(v->str, names[k].name) == 0) {
				*out = names[k].dt;
				*given = true;
				return 0;
			}
		}
	}
	return args_error(err, c, a, i, "%s(): unknown dtype (use torch.float32, torch.float64, torch.int64 "
			  "or torch.bool)", c->name);
}

/* ---- nested lists to tensors ------------------------------------------------ */

struct nest {
	enum flavor fl;	/* torch reads a tensor in a list as one number, numpy as its rows */
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	bool any_float, any_int, any_bool;
	bool any_f64;	/* a float that is not numpy's float32 (a Python float, a float64) */
	int64_t count;
};

static int nest_scan(struct call *c, struct args *a, int i, const struct value *v, int depth, struct nest *n,
		     struct qkv_error *err)
{
	bool seq = v->kind == V_LIST || v->kind == V_TUPLE;
	bool tensor_item = v->kind == V_TENSOR && v->t->ndim > 0 && depth > 0;
	if (tensor_item && n->fl == FLAVOR_TORCH) {	/* its .item(): one element only */
		if (tensor_numel(v->t) != 1)
			return args_error(err, c, a, i, "ValueError: only one element tensors can be converted to Python "
					  "scalars");
		tensor_item = false;
	}
	if (seq || tensor_item) {
		int64_t len = seq ? v->n : v->t->shape[0];
		if (depth >= TENSOR_MAX_DIMS)
			return args_error(err, c, a, i, "%s(): nested more than %d deep (qkv tensors have at most %d "
					  "dimensions)", c->name, TENSOR_MAX_DIMS, TENSOR_MAX_DIMS);
		if (depth == n->ndim) {
			if (n->count > 0)
				goto ragged;
			n->shape[depth] = len;
			n->ndim = depth + 1;
		} else if (depth > n->ndim || n->shape[depth] != len) {
			goto ragged;
		}
		if (!seq) {
			/* a tensor inside a list: take its elements */
			if (v->t->ndim + depth > TENSOR_MAX_DIMS)
				return args_error(err, c, a, i, "%s(): too many dimensions", c->name);
			for (int k = 1; k < v->t->ndim; k++) {
				if (n->ndim == depth + k) {
					n->shape[depth + k] = v->t->shape[k];
					n->ndim++;
				} else if (n->shape[depth + k] != v->t->shape[k]) {
					goto ragged;
				}
			}
			if (dtype_is_float(v->t->dtype))
				n->any_float = true, n->any_f64 = n->any_f64 || v->t->dtype == DT_F64;
			else if (v->t->dtype == DT_I64)
				n->any_int = true;
			else
				n->any_bool = true;
			n->count += tensor_numel(v->t);
			return 0;
		}
		for (int k = 0; k < v->n; k++)
			if (nest_scan(c, a, i, v->items[k], depth + 1, n, err) < 0)
				return -1;
		return 0;
	}
	if (depth != n->ndim && !(n->count == 0 && depth <= n->ndim && depth == n->ndim))
		goto ragged;
	if (v->kind == V_FLOAT)
		n->any_float = true, n->any_f64 = n->any_f64 || !v->f32;
	else if (v->kind == V_INT)
		n->any_int = true;
	else if (v->kind == V_BOOL)
		n->any_bool = true;
	else if (v->kind == V_TENSOR && tensor_numel(v->t) == 1 && v->t->dtype == DT_BOOL)
		n->any_bool = true;
	else if (v->kind == V_TENSOR && tensor_numel(v->t) == 1 && dtype_is_float(v->t->dtype))
		n->any_float = true, n->any_f64 = n->any_f64 || v->t->dtype == DT_F64;
	else if (v->kind == V_TENSOR && tensor_numel(v->t) == 1)
		n->any_int = true;
	else
		return args_error(err, c, a, i, "%s(): expected numbers, found %s", c->name, value_type_name(v));
	n->count++;
	return 0;
ragged:
	return args_error(err, c, a, i, "%s(): the nested lists are ragged: each row must have the same "
			  "length at every depth (depth %d)", c->name, depth);
}

static void nest_fill(const struct value *v, struct tensor *t, int64_t *pos)
{
	if (v->kind == V_LIST || v->kind == V_TUPLE) {
		for (int k = 0; k < v->n; k++)
			nest_fill(v->items[k], t, pos);
	} else if (v->kind == V_TENSOR) {
		int64_t n = tensor_numel(v->t);
		for (int64_t k = 0; k < n; k++) {
			if (t->dtype == DT_I64)
				((int64_t *)t->storage->data)[(*pos)++] = tensor_get_i64(v->t, k);
			else
				tensor_set(t, (*pos)++, tensor_get(v->t, k));
		}
	} else if (t->dtype == DT_I64 && v->kind == V_INT) {
		((int64_t *)t->storage->data)[(*pos)++] = v->i;
	} else {
		tensor_set(t, (*pos)++, value_as_double(v));
	}
}

struct tensor *args_to_tensor(struct call *c, struct args *a, int i, enum flavor fl, bool has_dtype,
			      enum dtype dtype, struct qkv_error *err)
{
	return args_value_to_tensor(c, a, i, a->v[i], fl, has_dtype, dtype, err);
}

struct tensor *args_value_to_tensor(struct call *c, struct args *a, int i, struct value *v, enum flavor fl,
				    bool has_dtype, enum dtype dtype, struct qkv_error *err)
{
	if (value_is_number(v) && v->np) {	/* a numpy scalar: a 0-d array of its own dtype */
		struct tensor *s = value_scalar_array(v);
		struct tensor *t = ops_to_dtype(s, has_dtype ? dtype : s->dtype);
		tensor_unref(s);
		struct tensor *r = ops_clone(t);
		tensor_unref(t);
		r->flavor = fl;
		return r;
	}
	if (v->kind == V_TENSOR) {
		struct tensor *t = ops_to_dtype(v->t, has_dtype ? dtype : v->t->dtype);
		struct tensor *r = ops_clone(t);
		tensor_unref(t);
		r->flavor = fl;
		return r;
	}
	struct nest n = { .fl = fl };
	if (nest_scan(c, a, i, v, 0, &n, err) < 0)
		return NULL;
	/* numpy: float32 when every float is numpy's float32 and no int is
	 * there to make it float64 (np.array([np.float32(1), 2.5]) is float64) */
	bool f32 = fl == FLAVOR_NUMPY ? !n.any_f64 && !n.any_int : true;
	enum dtype dt = n.any_float ? (f32 ? DT_F32 : DT_F64) : n.any_int ? DT_I64 :
			n.any_bool ? DT_BOOL : (fl == FLAVOR_NUMPY ? DT_F64 : DT_F32);
	if (has_dtype)
		dt = dtype;
	if (ops_check_shape(&c->I->ops, n.ndim, n.shape, err) < 0) {
		error_locate(err, a->at[i]->line, a->at[i]->col);
		return NULL;
	}
	struct tensor *t = tensor_new(dt, fl, n.ndim, n.shape);
	int64_t pos = 0;
	nest_fill(v, t, &pos);
	return t;
}

struct tensor *args_array(struct call *c, struct args *a, int i, struct qkv_error *err)
{
	if (a->v[i]->kind == V_TENSOR)
		return tensor_ref(a->v[i]->t);
	return args_to_tensor(c, a, i, FLAVOR_NUMPY, false, DT_F64, err);
}

int args_operand(struct call *c, struct args *a, int i, bool numpy, struct operand *o, struct ops_number *box,
		 struct tensor **made, struct qkv_error *err)
{
	struct value *v = a->v[i];
	*made = NULL;
	if (v->kind == V_TENSOR || value_is_number(v)) {
		*o = eval_operand(v, box);
		return 0;
	}
	if (!numpy) {
		const char *dot = strrchr(c->name, '.');
		return args_error(err, c, a, i, "%s(): argument %d must be a Tensor or a number, not %s",
				  dot ? dot + 1 : c->name, i + 1, value_type_name(v));
	}
	*made = args_to_tensor(c, a, i, FLAVOR_NUMPY, false, DT_F64, err);
	if (!*made)
		return -1;
	*o = (struct operand){ *made, false };
	return 0;
}

void args_release(struct args *a)
{
	for (int i = 0; i < a->n; i++) {
		if (!a->v[i])	/* most slots are empty: no call for them */
			continue;
		value_unref(a->v[i]);
		a->v[i] = NULL;
	}
}

struct value *args_fail(struct args *a)
{
	args_release(a);
	return NULL;
}

struct value *args_return(struct args *a, struct value *v)
{
	args_release(a);
	return v;
}

struct value *args_done(struct call *c, struct args *a, struct tensor *t, struct qkv_error *err)
{
	args_release(a);
	if (!t) {
		error_locate(err, c->node->line, c->node->col);
		return NULL;
	}
	return value_from_result(t);
}
