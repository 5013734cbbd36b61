/* eval.c: the expression half of the tree walker: numbers, operators,
 * indexing, calls, displays (lists, dicts, sets, comprehensions), names
 * through their resolved scopes (scope.c). Statements are in exec.c, the
 * workspace and its undo log in workspace.c. Never prints, never exits. */
#include "lang/astprint.h"
#include "lang/autograd.h"
#include "lang/interp.h"
#include "lang/runtime.h"
#include "core/format.h"
#include "core/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int other_binop(int op, struct value *a, struct value *b, struct value **r, struct qkv_error *err);

/* ---- arithmetic -------------------------------------------------------------- */

struct operand eval_operand(const struct value *v, struct ops_number *box)
{
	if (v->kind == V_TENSOR)
		return (struct operand){ .t = v->t, .scalar = false };
	enum dtype dt = v->kind == V_FLOAT ? DT_F64 : v->kind == V_INT ? DT_I64 : DT_BOOL;
	ops_number_init(box, dt, FLAVOR_TORCH);
	if (dt == DT_F64)
		memcpy(box->bytes, &v->f, sizeof v->f);
	else if (dt == DT_I64)
		memcpy(box->bytes, &v->i, sizeof v->i);
	else
		box->bytes[0] = v->b;
	return (struct operand){ .t = &box->t, .scalar = true };
}

static struct value *number_binop(int op, const struct value *a, const struct value *b, struct qkv_error *err)
{
	bool ints = a->kind != V_FLOAT && b->kind != V_FLOAT;
	if (ints) {
		int64_t x = a->kind == V_INT ? a->i : a->b, y = b->kind == V_INT ? b->i : b->b, r;
		switch (op) {
		case OP_ADD: if (__builtin_add_overflow(x, y, &r)) goto overflow; return value_int(r);
		case OP_SUB: if (__builtin_sub_overflow(x, y, &r)) goto overflow; return value_int(r);
		case OP_MUL: if (__builtin_mul_overflow(x, y, &r)) goto overflow; return value_int(r);
		case OP_FLOORDIV:
		case OP_MOD:
			if (y == 0)
				return error_set(err, 0, 0, "ZeroDivisionError: %s", op == OP_MOD ? "integer modulo by zero" :
						 "integer division or modulo by zero"), NULL;
			if (x == INT64_MIN && y == -1)
				goto overflow;
			r = x / y;
			if ((x % y != 0) && ((x < 0) != (y < 0)))
				r--;
			return value_int(op == OP_FLOORDIV ? r : x - r * y);
		case OP_POW:
			if (y >= 0) {
				int64_t acc = 1, base = x;
				for (int64_t e = y; e > 0; e >>= 1) {
					if ((e & 1) && __builtin_mul_overflow(acc, base, &acc))
						goto overflow;
					if (e > 1 && __builtin_mul_overflow(base, base, &base))
						goto overflow;
				}
				return value_int(acc);
			}
			break;	/* negative exponent: float result */
		case OP_EQ: return value_bool(x == y);
		case OP_NE: return value_bool(x != y);
		case OP_LT: return value_bool(x < y);
		case OP_LE: return value_bool(x <= y);
		case OP_GT: return value_bool(x > y);
		case OP_GE: return value_bool(x >= y);
		default: break;
		}
	}
	double x = value_as_double(a), y = value_as_double(b);
	switch (op) {
	case OP_ADD: return value_float(x + y);
	case OP_SUB: return value_float(x - y);
	case OP_MUL: return value_float(x * y);
	case OP_DIV:
		if (y == 0)
			return error_set(err, 0, 0, "ZeroDivisionError: division by zero"), NULL;
		return value_float(x / y);
	case OP_FLOORDIV:
	case OP_MOD: {
		/* Python's float divmod: the remainder takes the divisor's sign */
		if (y == 0)
			return error_set(err, 0, 0, "ZeroDivisionError: %s", op == OP_MOD ? "float modulo" :
					 "float floor division by zero"), NULL;
		double mod = fmod(x, y), div = (x - mod) / y;
		if (mod != 0) {
			if ((y < 0) != (mod < 0)) {
				mod += y;
				div -= 1.0;
			}
		} else {
			mod = copysign(0.0, y);
		}
		double fl = div != 0 ? floor(div) : copysign(0.0, x / y);
		if (div != 0 && div - fl > 0.5)
			fl += 1.0;
		return value_float(op == OP_FLOORDIV ? fl : mod);
	}
	case OP_POW:
		if (x == 0 && y < 0)
			return error_set(err, 0, 0, "0.0 cannot be raised to a negative power"), NULL;
		if (x < 0 && y != floor(y))
			return error_set(err, 0, 0, "a negative number to a fractional power is complex; "
					 "qkv has no complex numbers"), NULL;
		if (isfinite(x) && isfinite(y) && isinf(pow(x, y)))	/* as CPython, which reports ERANGE */
			return error_set(err, 0, 0, "OverflowError: (34, 'Numerical result out of range')"), NULL;
		return value_float(pow(x, y));
	case OP_EQ: return value_bool(x == y);
	case OP_NE: return value_bool(x != y);
	case OP_LT: return value_bool(x < y);
	case OP_LE: return value_bool(x <= y);
	case OP_GT: return value_bool(x > y);
	case OP_GE: return value_bool(x >= y);
	default: break;
	}
	error_set(err, 0, 0, "operator %s is not defined for numbers", op_name(op));
	return NULL;
overflow:
	error_set(err, 0, 0, "integer overflow in %s", op_name(op));
	return NULL;
}

/* &, |, ^, <<, >> of Python ints and bools: a bool for two bools (but not
 * for a shift), else an int; a shift past int64 is qkv's overflow error. */
static struct value *int_bitop(int op, const struct value *a, const struct value *b, struct qkv_error *err)
{
	int64_t x = a->kind == V_INT ? a->i : a->b, y = b->kind == V_INT ? b->i : b->b;
	int64_t r;
	switch (op) {
	case OP_BITAND: r = x & y; break;
	case OP_BITOR: r = x | y; break;
	case OP_BITXOR: r = x ^ y; break;
	default:
		if (y < 0)
			return error_set(err, 0, 0, "ValueError: negative shift count"), NULL;
		if (op == OP_RSHIFT)	/* floor division by 2**y: -1 or 0 once every bit is out */
			return value_int(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
		if (x == 0)
			return value_int(0);
		/* x << y fits when x has y spare bits above its sign */
		if (y >= 64 || x > (INT64_MAX >> y) || x < (INT64_MIN >> y))
			return error_set(err, 0, 0, "integer overflow in <<"), NULL;
		return value_int((int64_t)((uint64_t)x << y));
	}
	if (a->kind == V_BOOL && b->kind == V_BOOL)
		return value_bool(r != 0);
	return value_int(r);
}

/* t as a tensor of flavour fl (the same values), in a value: numpy's 0-d
 * one a numpy scalar, as qkv keeps those. */
static struct value *as_flavor(struct tensor *t, enum flavor fl)
{
	struct tensor *v = tensor_alias(t);
	v->flavor = fl;
	return value_from_result(v);
}

static bool is_compare(int op)
{
	return op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
}

/* A torch tensor and a numpy array (not 0-d) as Python meets them: the
 * tensor's operators compute through numpy (the array's ufunc, the tensor
 * read as an array) and give a tensor back, bools as torch's uint8, which
 * qkv does not have; the array's defer to the tensor's reflected ones,
 * which refuse it, all but /; == and != say the two are not equal; an
 * ordering is refused both ways. */
static struct value *mixed_binop(struct interp *I, int op, struct value *a, struct value *b, struct qkv_error *err)
{
	bool np_left = a->t->flavor == FLAVOR_NUMPY;
	const char *na = np_left ? "numpy.ndarray" : "Tensor", *nb = np_left ? "Tensor" : "numpy.ndarray";
	if (op == OP_EQ || op == OP_NE)
		return value_bool(op == OP_NE);
	if (is_compare(op))
		return error_set(err, 0, 0, "TypeError: '%s' not supported between instances of '%s' and '%s'",
				 op_name(op), na, nb), NULL;
	if (np_left && op == OP_ADD)
		return error_set(err, 0, 0, "TypeError: Concatenation operation is not implemented for NumPy arrays, "
				 "use np.concatenate() instead. Please do not rely on this error; it may not be given "
				 "on all Python implementations."), NULL;
	if (np_left && op != OP_DIV)
		return error_set(err, 0, 0, "TypeError: unsupported operand type(s) for %s: 'numpy.ndarray' and 'Tensor'",
				 op == OP_POW ? "** or pow()" : op_name(op)), NULL;
	const struct tensor *tt = np_left ? b->t : a->t;
	if (tt->grad.requires_grad || tt->grad.fn)	/* numpy reads the tensor */
		return error_set(err, 0, 0, "RuntimeError: Can't call numpy() on Tensor that requires grad. Use "
				 "tensor.detach().numpy() instead."), NULL;
	if (np_left) {	/* Tensor.__rtruediv__: reciprocal(tensor) * array */
		struct value *one = value_int(1);
		struct value *r = eval_binop(I, OP_DIV, one, b, err);
		value_unref(one);
		struct value *q = r ? eval_binop(I, OP_MUL, r, a, err) : NULL;
		value_unref(r);
		return q;
	}
	struct value *x = as_flavor(a->t, FLAVOR_NUMPY);
	struct value *r = eval_binop(I, op, x, b, err);
	value_unref(x);
	if (!r)
		return NULL;
	struct value *t = NULL;
	if (r->kind == V_TENSOR && r->t->dtype != DT_BOOL) {
		t = as_flavor(r->t, FLAVOR_TORCH);
	} else if (r->kind == V_INT) {	/* numpy's 0-d result (t @ a), a scalar: a 0-d tensor again */
		struct tensor *z = tensor_new(DT_I64, FLAVOR_TORCH, 0, NULL);
		*(int64_t *)z->storage->data = r->i;
		t = value_tensor(z);
	} else if (r->kind == V_FLOAT) {
		t = value_tensor(ops_scalar(r->f32 ? DT_F32 : DT_F64, FLAVOR_TORCH, r->f));
	} else {
		error_set(err, 0, 0, "%s of a tensor and a numpy array of bools gives torch's uint8, which qkv does not "
			  "have: convert one of them (torch.from_numpy(a), t.numpy())", op_name(op));
	}
	value_unref(r);
	return t;
}

/* Two numbers, one of them a numpy scalar, as numpy's scalar math meets
 * them: as 0-d arrays (a Python int an int64, a float a float64), so that
 * np.float32 with np.float32 stays float32, with anything else makes
 * float64, and a division by zero gives inf or nan; the result a numpy
 * scalar. */
static struct value *scalar_binop(struct interp *I, int op, struct value *a, struct value *b, struct qkv_error *err)
{
	struct value *x = value_tensor(value_scalar_array(a)), *y = value_tensor(value_scalar_array(b));
	struct value *r = eval_binop(I, op, x, y, err);
	value_unref(x);
	value_unref(y);
	return r;
}

struct value *eval_binop(struct interp *I, int op, struct value *a, struct value *b, struct qkv_error *err)
{
	if (op == OP_MOD && a->kind == V_STR)
		return runtime_percent(I, a->str, b, err);
	if (value_is_number(a) && value_is_number(b) && (a->np || b->np))
		return scalar_binop(I, op, a, b, err);
	bool ta = a->kind == V_TENSOR, tb = b->kind == V_TENSOR;
	if (ta && tb && a->t->flavor != b->t->flavor && (a->t->flavor == FLAVOR_NUMPY ? a : b)->t->ndim > 0)
		return mixed_binop(I, op, a, b, err);
	if (ta || tb) {
		if ((!ta && !value_is_number(a)) || (!tb && !value_is_number(b)))
			goto unsupported;
		if (op == OP_MATMUL) {
			if (!ta || !tb)
				return error_set(err, 0, 0, "@ needs two tensors, got %s and %s",
						 value_type_name(a), value_type_name(b)), NULL;
			return value_from_result(ops_matmul(&I->ops, a->t, b->t, err));
		}
		struct ops_number na, nb;
		struct operand oa = eval_operand(a, &na), ob = eval_operand(b, &nb);
		struct tensor *r = NULL;
		switch (op) {
		case OP_ADD: r = ops_binary(&I->ops, oa, ob, EW_ADD, err); break;
		case OP_SUB: r = ops_binary(&I->ops, oa, ob, EW_SUB, err); break;
		case OP_MUL: r = ops_binary(&I->ops, oa, ob, EW_MUL, err); break;
		case OP_DIV: r = ops_binary(&I->ops, oa, ob, EW_DIV, err); break;
		case OP_FLOORDIV: r = ops_binary(&I->ops, oa, ob, EW_FLOORDIV, err); break;
		case OP_MOD: r = ops_binary(&I->ops, oa, ob, EW_MOD, err); break;
		case OP_POW: r = ops_binary(&I->ops, oa, ob, EW_POW, err); break;
		case OP_EQ: r = ops_compare(&I->ops, oa, ob, CMP_EQ, err); break;
		case OP_NE: r = ops_compare(&I->ops, oa, ob, CMP_NE, err); break;
		case OP_LT: r = ops_compare(&I->ops, oa, ob, CMP_LT, err); break;
		case OP_LE: r = ops_compare(&I->ops, oa, ob, CMP_LE, err); break;
		case OP_GT: r = ops_compare(&I->ops, oa, ob, CMP_GT, err); break;
		case OP_GE: r = ops_compare(&I->ops, oa, ob, CMP_GE, err); break;
		case OP_BITAND: r = ops_logical(&I->ops, oa, ob, '&', err); break;
		case OP_BITOR: r = ops_logical(&I->ops, oa, ob, '|', err); break;
		case OP_BITXOR: r = ops_logical(&I->ops, oa, ob, '^', err); break;
		case OP_LSHIFT: r = ops_logical(&I->ops, oa, ob, '<', err); break;
		case OP_RSHIFT: r = ops_logical(&I->ops, oa, ob, '>', err); break;
		default:
			goto unsupported;
		}
		/* numpy: a 0-d result is a numpy scalar, which prints like a Python number */
		return value_from_result(r);
	}
	if (value_is_number(a) && value_is_number(b)) {
		if (op == OP_MATMUL)
			goto unsupported;
		if (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR || op == OP_LSHIFT || op == OP_RSHIFT) {
			if (a->kind == V_FLOAT || b->kind == V_FLOAT)
				goto unsupported;
			return int_bitop(op, a, b, err);
		}
		return number_binop(op, a, b, err);
	}
	if (op == OP_EQ || op == OP_NE)
		return value_bool(value_equal(a, b) == (op == OP_EQ));
	if (op == OP_ADD && a->kind == V_STR && b->kind == V_STR) {
		if (value_check_str((int64_t)strlen(a->str) + (int64_t)strlen(b->str), err) < 0)
			return NULL;
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_puts(&sb, a->str);
		strbuf_puts(&sb, b->str);
		return value_str_take(strbuf_detach(&sb));
	}
	if (op == OP_ADD && a->kind == b->kind && (a->kind == V_LIST || a->kind == V_TUPLE)) {
		if (value_check_items(a->kind, (int64_t)a->n + b->n, err) < 0)
			return NULL;
		struct value *r = value_seq(a->kind, a->n + b->n);
		for (int i = 0; i < a->n; i++)
			r->items[i] = value_ref(a->items[i]);
		for (int i = 0; i < b->n; i++)
			r->items[a->n + i] = value_ref(b->items[i]);
		return r;
	}
	{
		struct value *r;
		if (other_binop(op, a, b, &r, err))
			return r;
	}
unsupported:
	error_set(err, 0, 0, "TypeError: unsupported operand type(s) for %s: '%s' and '%s'", op_name(op),
		  value_type_name(a), value_type_name(b));
	return NULL;
}

static struct value *unop(struct interp *I, int op, struct value *a, struct qkv_error *err)
{
	if (op == '!') {
		int t = value_truth(a, err);
		return t < 0 ? NULL : value_bool(!t);
	}
	if (a->kind == V_TENSOR) {
		if (op == '+')
			return value_ref(a);
		if (op == '~')
			return value_from_result(ops_logical_not(&I->ops, a->t, err));
		return value_from_result(ops_unary(&I->ops, a->t, EW_NEG, err));	/* (refused for bools) */
	}
	if (value_is_number(a) && a->np) {	/* a numpy scalar: a 0-d array's operator */
		struct value *x = value_tensor(value_scalar_array(a));
		struct value *r = unop(I, op, x, err);
		value_unref(x);
		return r;
	}
	if (op == '~' && (a->kind == V_INT || a->kind == V_BOOL))
		return value_int(~(a->kind == V_INT ? a->i : a->b));
	if (!value_is_number(a) || op == '~')
		return error_set(err, 0, 0, "bad operand type for unary %c: %s", op == '~' ? '~' : op,
				 value_type_name(a)), NULL;
	if (op == '+')
		return a->kind == V_BOOL ? value_int(a->b) : value_ref(a);
	if (a->kind == V_FLOAT)
		return value_float(-a->f);
	int64_t x = a->kind == V_INT ? a->i : a->b;
	if (x == INT64_MIN)
		return error_set(err, 0, 0, "integer overflow in unary -"), NULL;
	return value_int(-x);
}

/* ---- indexing ---------------------------------------------------------------- */

static int slice_bound(struct interp *I, const struct node *n, bool *has, int64_t *out, struct qkv_error *err)
{
	*has = false;
	if (!n)
		return 0;
	struct value *v = eval_expr(I, n, err);
	if (!v)
		return -1;
	int rc = 0;
	if (v->kind != V_NONE) {
		rc = value_to_int(v, out, "a slice index", err);
		if (rc < 0)
			error_locate(err, n->line, n->col);
		*has = rc == 0;
	}
	value_unref(v);
	return rc;
}


/* Index value v at node ix as a list of indices (torch's advanced index:
 * a list of ints, or a 1-D integer tensor or array): 1 with *idx (malloc'd)
 * and *n filled; 0 when v is a single index; -1 with err when it is a
 * mask, a float tensor or a list holding something else. */
static int index_list(const struct node *ix, const struct value *v, int64_t **idx, int64_t *n,
		      struct qkv_error *err)
{
	*idx = NULL;
	*n = 0;
	if (v->kind == V_TENSOR && v->t->ndim == 0)
		return 0;
	if (v->kind == V_TENSOR) {
		const struct tensor *t = v->t;
		if (t->dtype != DT_I64)
			return error_set(err, ix->line, ix->col, "%s", t->dtype == DT_BOOL
				? "indexing with a mask is not supported in qkv; use masked_fill"
				: "tensors used as indices must be integer tensors"), -1;
		if (t->ndim != 1)
			return error_set(err, ix->line, ix->col, "qkv indexes with a 1-D list of indices, not a %d-D "
					 "tensor", t->ndim), -1;
		*n = t->shape[0];
		*idx = xmalloc(sizeof **idx * (size_t)(*n ? *n : 1));
		for (int64_t i = 0; i < *n; i++)
			(*idx)[i] = (int64_t)tensor_get(t, i);
		return 1;
	}
	if (v->kind != V_LIST)
		return 0;
	*n = v->n;
	*idx = xmalloc(sizeof **idx * (size_t)(*n ? *n : 1));
	for (int i = 0; i < v->n; i++) {
		const struct value *e = v->items[i];
		if (e->kind == V_BOOL || (e->kind != V_INT && !(e->kind == V_TENSOR && e->t->ndim == 0 &&
								  e->t->dtype == DT_I64))) {
			free(*idx);
			*idx = NULL;
			return error_set(err, ix->line, ix->col, "%s", e->kind == V_BOOL
				? "indexing with a list of booleans (a mask) is not supported in qkv"
				: "a list of indices must hold integers only"), -1;
		}
		(*idx)[i] = e->kind == V_INT ? e->i : (int64_t)tensor_get(e->t, 0);
	}
	return 1;
}

/* 0 when each of the n indices idx is in range for dimension dim of t,
 * else -1 with err at ix naming the dimension orig of the tensor indexed
 * (earlier integer indices have removed dimensions of t, None added some). */
static int indices_in_range(const struct tensor *t, int dim, int orig, const int64_t *idx, int64_t n,
			    const struct node *ix, struct qkv_error *err)
{
	int64_t size = dim < t->ndim ? t->shape[dim] : 0;
	for (int64_t i = 0; i < n; i++)
		if (idx[i] < -size || idx[i] >= size)
			return error_set(err, ix->line, ix->col, "index %lld is out of range for dimension %d with size %lld",
					 (long long)idx[i], orig, (long long)size);
	return 0;
}

/* Whether index ix adds a dim of 1: None, or numpy's name for it
 * (x[:, np.newaxis]), known by its name, as the index is not yet run. */
static bool none_index(const struct node *ix)
{
	return (ix->kind == N_CONST && ix->op == 'N') || (ix->kind == N_ATTR && strcmp(ix->str, "newaxis") == 0);
}

/* x[...] of a tensor: a view sharing x's storage when every index is an
 * integer, a slice or None; a copy when one is a list of indices (torch's
 * advanced indexing, one list per subscript, *advanced then set), which a
 * write (write true: x[...] = v) refuses, since it would land in the copy. */
struct tensor *eval_index_tensor(struct interp *I, struct tensor *t, const struct node *n, bool write,
				 bool *advanced, struct qkv_error *err)
{
	struct tensor *cur = tensor_ref(t);
	int dim = 0;
	int nidx = n->nkids - 1;
	int used = 0;
	int first = -1, last = -1;	/* the integers and the list, when there is a list */
	*advanced = false;
	for (int i = 0; i < nidx; i++) {
		const struct node *ix = n->kids[i + 1];
		if (!none_index(ix))
			used++;
	}
	if (used > t->ndim) {
		tensor_unref(cur);
		error_set(err, n->line, n->col, "too many indices for a tensor of %d dimension%s: %d given",
			  t->ndim, t->ndim == 1 ? "" : "s", used);
		return NULL;
	}
	for (int i = 0, orig = 0; i < nidx; i++) {
		const struct node *ix = n->kids[i + 1];
		struct tensor *next = NULL;
		if (!none_index(ix))
			orig++;	/* (the dimension of t this index takes is orig - 1) */
		if (ix->kind == N_SLICE) {
			bool hs, he, hst;
			int64_t s = 0, e = 0, st = 1;
			if (slice_bound(I, ix->kids[0], &hs, &s, err) < 0 ||
			    slice_bound(I, ix->kids[1], &he, &e, err) < 0 ||
			    slice_bound(I, ix->kids[2], &hst, &st, err) < 0)
				goto fail;
			next = ops_slice(cur, dim, hs, s, he, e, hst ? st : 1, err);
			dim++;
		} else if (none_index(ix)) {
			next = ops_unsqueeze(cur, dim, err);
			dim++;
		} else {
			struct value *v = eval_expr(I, ix, err);
			if (!v)
				goto fail;
			int64_t k = 0, *idx, nl;
			int kind = index_list(ix, v, &idx, &nl, err);
			if (kind == 0 && value_to_int(v, &k, "an index", err) < 0) {
				error_locate(err, ix->line, ix->col);
				kind = -1;
			}
			value_unref(v);
			if (kind < 0)
				goto fail;
			first = first < 0 ? i : first;
			last = i;
			if (kind == 1) {
				const char *why = write ? "qkv cannot assign through a list of indices; assign to a slice"
					: *advanced ? "qkv takes one list of indices per subscript" : NULL;
				if (why) {
					free(idx);
					error_set(err, ix->line, ix->col, "%s", why);
					goto fail;
				}
				*advanced = true;
				if (indices_in_range(cur, dim, orig - 1, idx, nl, ix, err) == 0)
					next = ops_index_select(cur, dim, idx, nl, err);
				free(idx);
				if (!next)
					goto fail;
				dim++;
			} else {
				if (indices_in_range(cur, dim, orig - 1, &k, 1, ix, err) < 0)
					goto fail;
				next = ops_select(cur, dim, k, err);
			}
		}
		if (!next) {
			error_locate(err, ix->line, ix->col);
			goto fail;
		}
		tensor_unref(cur);
		cur = next;
	}
	/* with a list, torch moves its dimension to the front when a slice or
	 * None stands between it and an integer index: not done here */
	for (int i = first + 1; *advanced && i < last; i++) {
		const struct node *ix = n->kids[i + 1];
		if (ix->kind == N_SLICE || none_index(ix)) {
			error_set(err, ix->line, ix->col, "qkv does not combine a list of indices with an integer index "
				  "across a slice");
			goto fail;
		}
	}
	return cur;
fail:
	tensor_unref(cur);
	return NULL;
}

/* The index key of base[...]: one expression or a tuple of them. */
static struct value *eval_index(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *base = eval_expr(I, n->kids[0], err);
	if (!base)
		return NULL;
	struct value *r = NULL;
	if (base->kind == V_TENSOR) {
		bool advanced;
		struct tensor *t = eval_index_tensor(I, base->t, n, false, &advanced, err);
		if (t)
			r = value_from_result(t);
		autograd_index(I, n, base, advanced, r);
	} else if (n->nkids == 2 && n->kids[1]->kind == N_SLICE) {
		const struct node *ix = n->kids[1];
		bool hs, he, hst;
		int64_t s = 0, e = 0, st = 1;
		if (slice_bound(I, ix->kids[0], &hs, &s, err) == 0 && slice_bound(I, ix->kids[1], &he, &e, err) == 0 &&
		    slice_bound(I, ix->kids[2], &hst, &st, err) == 0) {
			r = container_slice(I, base, hs, s, he, e, hst, st, err);
			if (!r)
				error_locate(err, ix->line, ix->col);
		}
	} else {
		struct value *key = NULL;
		if (n->nkids == 2) {
			key = eval_expr(I, n->kids[1], err);
		} else {
			key = value_seq(V_TUPLE, n->nkids - 1);
			for (int i = 1; i < n->nkids && key; i++) {
				if (n->kids[i]->kind == N_SLICE) {
					error_set(err, n->kids[i]->line, n->kids[i]->col, "%s indices must be integers, not tuple",
						  value_type_name(base));
					value_unref(key);
					key = NULL;
				} else if (!(key->items[i - 1] = eval_expr(I, n->kids[i], err))) {
					value_unref(key);
					key = NULL;
				}
			}
		}
		if (key) {
			r = container_index(I, base, key, err);
			if (!r)
				error_locate(err, n->kids[1]->line, n->kids[1]->col);
			value_unref(key);
		}
	}
	value_unref(base);
	return r;
}

int eval_slice_bounds(struct interp *I, const struct node *ix, bool *hs, int64_t *s, bool *he, int64_t *e,
		      bool *hst, int64_t *st, struct qkv_error *err)
{
	*s = *e = 0;
	*st = 1;
	if (slice_bound(I, ix->kids[0], hs, s, err) < 0 || slice_bound(I, ix->kids[1], he, e, err) < 0 ||
	    slice_bound(I, ix->kids[2], hst, st, err) < 0)
		return -1;
	return 0;
}

/* ---- literals -------------------------------------------------------------- */

static struct value *eval_matrix(struct interp *I, const struct node *n, struct qkv_error *err)
{
	int64_t shape[2];
	int ndim;
	if (n->rows == 0) {
		ndim = 1;
		shape[0] = n->cols;
	} else {
		ndim = 2;
		shape[0] = n->rows;
		shape[1] = n->cols;
	}
	struct tensor *t = ops_new(&I->ops, DT_F32, FLAVOR_TORCH, ndim, shape, err);
	if (!t) {
		error_locate(err, n->line, n->col);
		return NULL;
	}
	int64_t count = tensor_numel(t);
	for (int64_t i = 0; i < count; i++)
		((float *)t->storage->data)[i] = (float)n->values[i];
	return value_tensor(t);
}

static struct value *eval_fstring(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < n->nkids; i++) {
		const struct node *k = n->kids[i];
		if (k->kind == N_STR) {
			strbuf_puts(&sb, k->str);
			continue;
		}
		struct value *v = eval_expr(I, k->kids[0], err);
		if (!v)
			goto fail;
		/* the conversion, then the spec on its text: {x!r:>8} */
		int rc = runtime_format_field(I, k->kids[0], &sb, v, k->op == 'r' || k->op == 's' ? (char)k->op : 0, k->str,
					      err);
		value_unref(v);
		if (rc < 0) {
			error_locate(err, k->line, k->col);
			goto fail;
		}
	}
	return value_str_take(strbuf_detach(&sb));
fail:
	strbuf_free(&sb);
	return NULL;
}

/* ---- calls ------------------------------------------------------------------ */

/* Names the operands of the derivation a call just made after the code that
 * gave them (Q.matmul(K.T): "Q", "K.T"): the receiver, a Linear's weight, the
 * arguments. Labels only (lang/astprint.h); never changes a value. */
static void label_call(const struct node *n, const struct value *callee, const struct call *c, struct tensor *t)
{
	const struct node *fn = n->kids[0];
	struct ast_operand ops_in[8];
	size_t want = (size_t)(c->nargs + c->nkw + 2);
	struct ast_operand *ops = want <= 8 ? ops_in : xcalloc(want, sizeof *ops);
	int k = 0;
	if (callee->kind == V_METHOD && fn->kind == N_ATTR && callee->self && callee->self->kind == V_TENSOR)
		ops[k++] = (struct ast_operand){ fn->kids[0], NULL, callee->self->t };
	for (int i = 0; i < c->nargs; i++)
		ops[k++] = (struct ast_operand){ c->arg_nodes[i], NULL,
						 c->args[i]->kind == V_TENSOR ? c->args[i]->t : NULL };
	for (int i = 0; i < c->nkw; i++)
		ops[k++] = (struct ast_operand){ c->kw_nodes[i], NULL,
						 c->kwargs[i]->kind == V_TENSOR ? c->kwargs[i]->t : NULL };
	if (callee->kind == V_OBJECT && callee->obj->kind == OBJ_LINEAR && callee->obj->weight &&
	    callee->obj->weight->kind == V_TENSOR)
		ops[k++] = (struct ast_operand){ fn, ".weight", callee->obj->weight->t };
	ast_label_operands(t, ops, k);
	if (ops != ops_in)
		free(ops);
}

#define CALL_INLINE 8

/* Adds one evaluated argument to the call (positional, or keyword when
 * kw is set); the arrays grow from the inline ones when needed. */
struct argbuf {
	struct value *args_in[CALL_INLINE], *kwargs_in[CALL_INLINE];
	const struct node *an_in[CALL_INLINE], *kn_in[CALL_INLINE];
	const char *kw_in[CALL_INLINE];
	int capa, capk;
};

static void call_grow(struct call *c, struct argbuf *b, bool kw);

static inline void call_push(struct call *c, struct argbuf *b, const struct node *at, const char *kw,
			     struct value *v)
{
	if (kw) {
		if (c->nkw == b->capk)
			call_grow(c, b, true);
		c->kwnames[c->nkw] = kw;
		c->kw_nodes[c->nkw] = at;
		c->kwargs[c->nkw++] = v;
		return;
	}
	if (c->nargs == b->capa)
		call_grow(c, b, false);
	c->arg_nodes[c->nargs] = at;
	c->args[c->nargs++] = v;
}

/* Doubles the keyword (kw) or positional arrays, from the inline ones
 * when they are still those. */
static __attribute__((noinline)) void call_grow(struct call *c, struct argbuf *b, bool kw)
{
	if (kw) {
		bool inl = c->kwargs == b->kwargs_in;
		b->capk *= 2;
		struct value **nv = xmalloc(sizeof *nv * (size_t)b->capk);
		const char **nn = xmalloc(sizeof *nn * (size_t)b->capk);
		const struct node **nd = xmalloc(sizeof *nd * (size_t)b->capk);
		memcpy(nv, c->kwargs, sizeof *nv * (size_t)c->nkw);
		memcpy(nn, c->kwnames, sizeof *nn * (size_t)c->nkw);
		memcpy(nd, c->kw_nodes, sizeof *nd * (size_t)c->nkw);
		if (!inl) {
			free(c->kwargs);
			free(c->kwnames);
			free(c->kw_nodes);
		}
		c->kwargs = nv;
		c->kwnames = nn;
		c->kw_nodes = nd;
		return;
	}
	bool inl = c->args == b->args_in;
	b->capa *= 2;
	struct value **nv = xmalloc(sizeof *nv * (size_t)b->capa);
	const struct node **nd = xmalloc(sizeof *nd * (size_t)b->capa);
	memcpy(nv, c->args, sizeof *nv * (size_t)c->nargs);
	memcpy(nd, c->arg_nodes, sizeof *nd * (size_t)c->nargs);
	if (!inl) {
		free(c->args);
		free(c->arg_nodes);
	}
	c->args = nv;
	c->arg_nodes = nd;
}

static void call_init(struct call *c, struct argbuf *b, struct interp *I, const struct node *n)
{
	/* field by field: namebuf is written before it is read (runtime_call) */
	c->name = NULL;
	c->namebuf[0] = 0;
	c->self = NULL;
	c->nargs = c->nkw = 0;
	c->I = I;
	c->node = n;
	c->args = b->args_in;
	c->arg_nodes = b->an_in;
	c->kwargs = b->kwargs_in;
	c->kwnames = b->kw_in;
	c->kw_nodes = b->kn_in;
	b->capa = b->capk = CALL_INLINE;
}

static void call_release(struct call *c, struct argbuf *b)
{
	for (int i = 0; i < c->nargs; i++)
		value_unref(c->args[i]);
	for (int i = 0; i < c->nkw; i++)
		value_unref(c->kwargs[i]);
	if (c->args != b->args_in) {
		free(c->args);
		free(c->arg_nodes);
	}
	if (c->kwargs != b->kwargs_in) {
		free(c->kwargs);
		free(c->kwnames);
		free(c->kw_nodes);
	}
}

/* *x in a call: each item a positional argument; **d: each entry a keyword. */
static int push_starred(struct interp *I, struct call *c, struct argbuf *b, const struct node *an, struct value *v,
			struct value **hold, struct qkv_error *err)
{
	if (an->op == 'K') {
		if (v->kind != V_DICT)
			return error_set(err, an->line, an->col, "TypeError: argument after ** must be a mapping, not %s",
					 value_type_name(v));
		for (int i = 0; i < v->n; i++) {
			if (v->keys[i]->kind != V_STR)
				return error_set(err, an->line, an->col, "TypeError: keywords must be strings");
			for (int j = 0; j < c->nkw; j++)
				if (strcmp(c->kwnames[j], v->keys[i]->str) == 0)
					return error_set(err, an->line, an->col, "TypeError: got multiple values for "
							 "keyword argument '%s'", v->keys[i]->str);
			call_push(c, b, an, v->keys[i]->str, value_ref(v->items[i]));
		}
		*hold = value_ref(v);	/* the keyword names are its strings */
		return 0;
	}
	struct value *it = runtime_iter(I, v, err);
	if (!it)
		return error_locate(err, an->line, an->col), -1;
	struct value *x;
	int rc;
	while ((rc = runtime_next(I, it, &x, err)) == 1)
		call_push(c, b, an, NULL, x);
	value_unref(it);
	return rc;
}

static struct value *eval_call(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *callee = eval_expr(I, n->kids[0], err);
	if (!callee)
		return NULL;
	struct call c;
	struct argbuf b;
	call_init(&c, &b, I, n);
	struct value *hold[4] = { NULL };
	int nhold = 0;
	struct value *r = NULL;
	int total = n->nkids - 1;
	for (int i = 0; i < total; i++) {
		const struct node *an = n->kids[i + 1];
		const char *kw = n->kwnames ? n->kwnames[i] : NULL;
		bool star = an->kind == N_STARRED;
		struct value *v = eval_expr(I, star ? an->kids[0] : an, err);
		if (!v)
			goto done;
		if (star) {
			struct value *h = NULL;
			int rc = push_starred(I, &c, &b, an, v, &h, err);
			value_unref(v);
			if (h && nhold < 4)
				hold[nhold++] = h;
			else
				value_unref(h);
			if (rc < 0)
				goto done;
			continue;
		}
		if (kw) {
			for (int j = 0; j < c.nkw; j++) {
				if (strcmp(c.kwnames[j], kw) == 0) {
					value_unref(v);
					error_set(err, an->line, an->col, "keyword argument '%s' given twice", kw);
					goto done;
				}
			}
		}
		call_push(&c, &b, an, kw, v);
	}
	if (interp_check_interrupt(I, n, err) < 0)
		goto done;
	r = runtime_call(&c, callee, err);
	if (!r)
		error_locate(err, n->line, n->col);
	else if (r->kind == V_TENSOR && r->t->from)
		label_call(n, callee, &c, r->t);
done:
	call_release(&c, &b);
	for (int i = 0; i < nhold; i++)
		value_unref(hold[i]);
	value_unref(callee);
	return r;
}

struct value *runtime_call_values(struct interp *I, const struct node *at, struct value *callee, int nargs,
				  struct value **args, struct qkv_error *err)
{
	static const struct node nowhere = { .kind = N_PASS };	/* a call from C with no place */
	if (!at)
		at = &nowhere;
	struct call c;
	struct argbuf b;
	call_init(&c, &b, I, at);
	for (int i = 0; i < nargs; i++)
		call_push(&c, &b, at, NULL, value_ref(args[i]));
	struct value *r = interp_check_interrupt(I, at, err) < 0 ? NULL : runtime_call(&c, callee, err);
	if (!r)
		error_locate(err, at->line, at->col);
	call_release(&c, &b);
	return r;
}

/* ---- comparisons and sequences ------------------------------------------------ */

/* Orders two values as Python's < does: numbers, strings, and lists or tuples
 * item by item. *out is -1, 0 or 1; -1 with err when they do not compare. */
int runtime_compare(const struct value *a, const struct value *b, int *out, struct qkv_error *err)
{
	if (value_is_number(a) && value_is_number(b)) {
		if (a->kind != V_FLOAT && b->kind != V_FLOAT) {
			int64_t x = a->kind == V_INT ? a->i : a->b, y = b->kind == V_INT ? b->i : b->b;
			*out = x < y ? -1 : x > y;
		} else {
			double x = value_as_double(a), y = value_as_double(b);
			*out = x < y ? -1 : x > y;
		}
		return 0;
	}
	if (a->kind == V_STR && b->kind == V_STR) {
		int c = strcmp(a->str, b->str);
		*out = c < 0 ? -1 : c > 0;
		return 0;
	}
	bool sa = a->kind == V_LIST || a->kind == V_TUPLE || a->kind == V_SIZE;
	bool sb = b->kind == V_LIST || b->kind == V_TUPLE || b->kind == V_SIZE;
	if (sa && sb && (a->kind == V_LIST) == (b->kind == V_LIST)) {
		for (int i = 0; i < a->n && i < b->n; i++) {
			if (value_equal(a->items[i], b->items[i]))
				continue;
			return runtime_compare(a->items[i], b->items[i], out, err);
		}
		*out = a->n < b->n ? -1 : a->n > b->n;
		return 0;
	}
	return error_set(err, 0, 0, "TypeError: '<' not supported between instances of '%s' and '%s'",
			 value_type_name(a), value_type_name(b));
}

static struct value *repeat(struct value *s, int64_t k)
{
	if (k < 0 || (s->kind == V_STR ? s->str[0] == 0 : s->n == 0))
		k = 0;	/* an empty sequence repeated any number of times: at once */
	if (s->kind == V_STR) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_puts(&sb, "");
		for (int64_t i = 0; i < k; i++)
			strbuf_puts(&sb, s->str);
		return value_str_take(strbuf_detach(&sb));
	}
	struct value *r = value_seq(s->kind, 0);
	for (int64_t i = 0; i < k; i++)
		for (int j = 0; j < s->n; j++)
			value_list_push(r, value_ref(s->items[j]));
	return r;
}

/* Operators on values that are not tensors or numbers: 1 when one applies
 * (*r the result, or NULL with err), 0 when none does. */
static int other_binop(int op, struct value *a, struct value *b, struct value **r, struct qkv_error *err)
{
	bool seq_a = a->kind == V_STR || a->kind == V_LIST || a->kind == V_TUPLE;
	bool seq_b = b->kind == V_STR || b->kind == V_LIST || b->kind == V_TUPLE;
	*r = NULL;
	if (op == OP_MUL && ((seq_a && (b->kind == V_INT || b->kind == V_BOOL)) ||
			     (seq_b && (a->kind == V_INT || a->kind == V_BOOL)))) {
		struct value *s = seq_a ? a : b, *k = seq_a ? b : a;
		int64_t cnt = k->kind == V_INT ? k->i : k->b;
		int64_t len = s->kind == V_STR ? (int64_t)strlen(s->str) : s->n;
		int64_t max = s->kind == V_STR ? VALUE_MAX_STR : VALUE_MAX_ITEMS;
		if (cnt > 0 && len > 0 && cnt > max / len)
			return error_set(err, 0, 0, "MemoryError: %lld x %lld %s is over qkv's limit of %lld %s",
					 (long long)len, (long long)cnt, s->kind == V_STR ? "bytes" : "items",
					 (long long)max, s->kind == V_STR ? "bytes for a string" : "items"), 1;
		*r = repeat(s, cnt);
		return 1;
	}
	bool order = op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
	if (a->kind == V_SET && b->kind == V_SET) {
		if (order) {
			const struct value *small = op <= OP_LE ? a : b, *big = op <= OP_LE ? b : a;
			bool sub = true;
			for (int i = 0; i < small->n && sub; i++)
				sub = value_set_has(big, small->items[i]);
			bool strict = op == OP_LT || op == OP_GT;
			*r = value_bool(sub && (!strict || small->n < big->n));
			return 1;
		}
		/* built as CPython builds them: their order depends on it (value.c) */
		if (op == OP_BITOR)
			*r = value_set_union(a, b);
		else if (op == OP_BITAND)
			*r = value_set_intersection(a, b);
		else if (op == OP_SUB)
			*r = value_set_difference(a, b);
		else if (op == OP_BITXOR)
			*r = value_set_symmetric_difference(a, b);
		return *r != NULL;
	}
	if (order) {
		int c;
		if (runtime_compare(a, b, &c, err) < 0) {
			static const char *const names[] = { "<", "<=", ">", ">=" };
			error_set(err, 0, 0, "TypeError: '%s' not supported between instances of '%s' and '%s'",
				  names[op - OP_LT], value_type_name(a), value_type_name(b));
			return 1;
		}
		*r = value_bool(op == OP_LT ? c < 0 : op == OP_LE ? c <= 0 : op == OP_GT ? c > 0 : c >= 0);
		return 1;
	}
	if (op == OP_BITOR && a->kind == V_DICT && b->kind == V_DICT) {
		*r = value_dict();
		for (int i = 0; i < a->n; i++)
			value_dict_set(*r, a->keys[i], value_ref(a->items[i]));
		for (int i = 0; i < b->n; i++)
			value_dict_set(*r, b->keys[i], value_ref(b->items[i]));
		return 1;
	}
	return 0;
}

/* ---- displays ------------------------------------------------------------------- */

/* [a, *b, c] and (a, *b): the items, starred ones spread. */
static struct value *eval_seq(struct interp *I, const struct node *n, enum value_kind kind, struct qkv_error *err)
{
	struct value *s = value_seq(kind, 0);
	for (int i = 0; i < n->nkids; i++) {
		const struct node *k = n->kids[i];
		bool star = k->kind == N_STARRED;
		struct value *v = eval_expr(I, star ? k->kids[0] : k, err);
		if (!v)
			goto fail;
		if (!star) {
			value_list_push(s, v);
			continue;
		}
		struct value *it = runtime_iter(I, v, err), *x;
		value_unref(v);
		if (!it) {
			error_locate(err, k->line, k->col);
			goto fail;
		}
		int rc;
		while ((rc = runtime_next(I, it, &x, err)) == 1) {
			if (value_check_items(kind, (int64_t)s->n + 1, err) < 0) {
				value_unref(x);
				rc = -1;
				break;
			}
			value_list_push(s, x);
		}
		value_unref(it);
		if (rc < 0)
			goto fail;
	}
	return s;
fail:
	value_unref(s);
	return NULL;
}

static struct value *eval_dict(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *d = value_dict();
	for (int i = 0; i + 1 < n->nkids; i += 2) {
		struct value *k = eval_expr(I, n->kids[i], err);
		if (!k)
			goto fail;
		if (value_check_hashable(k, err) < 0) {
			value_unref(k);
			error_locate(err, n->kids[i]->line, n->kids[i]->col);
			goto fail;
		}
		struct value *v = eval_expr(I, n->kids[i + 1], err);
		if (!v) {
			value_unref(k);
			goto fail;
		}
		value_dict_set(d, k, v);
		value_unref(k);
	}
	return d;
fail:
	value_unref(d);
	return NULL;
}

/* Adds x to a set unless it is there (takes x). */
int runtime_set_add(struct value *set, struct value *x, struct qkv_error *err)
{
	if (value_check_hashable(x, err) < 0) {
		value_unref(x);
		return -1;
	}
	value_set_add(set, x);
	return 0;
}

/* Whether CPython's compiler folds a display's item to a constant: a number,
 * a string, True, False, None, a sign or operator on constants, a tuple of
 * them. Three or more such items make a frozenset constant that the new set
 * is merged from, which gives another order than adding them one by one
 * (compile.c, starunpack_helper). */
static bool set_item_folds(const struct node *k)
{
	switch (k->kind) {
	case N_NUM: case N_STR: case N_CONST:
		return true;
	case N_UNARY:
		return set_item_folds(k->kids[0]);
	case N_BINARY:
		return (k->op < OP_EQ || (k->op >= OP_BITAND && k->op <= OP_RSHIFT)) && set_item_folds(k->kids[0]) &&
		       set_item_folds(k->kids[1]);
	case N_TUPLE:
		for (int i = 0; i < k->nkids; i++)
			if (!set_item_folds(k->kids[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* {a, *b, c}: items added in order, a starred set or dict merged (CPython's SET_UPDATE). */
static struct value *eval_set(struct interp *I, const struct node *n, struct qkv_error *err)
{
	bool folds = n->nkids > 2;
	for (int i = 0; folds && i < n->nkids; i++)
		folds = set_item_folds(n->kids[i]);
	struct value *s = value_set();
	for (int i = 0; i < n->nkids; i++) {
		const struct node *k = n->kids[i];
		bool star = k->kind == N_STARRED;
		struct value *v = eval_expr(I, star ? k->kids[0] : k, err);
		if (!v)
			goto fail;
		if (!star) {
			if (runtime_set_add(s, v, err) < 0)
				goto fail_here;
			continue;
		}
		if (v->kind == V_SET || v->kind == V_DICT) {
			int rc = runtime_set_update(I, s, v, err);
			value_unref(v);
			if (rc < 0)
				goto fail_here;
			continue;
		}
		struct value *items = runtime_to_list(I, v, err);
		value_unref(v);
		if (!items) {
			error_locate(err, k->line, k->col);
			goto fail;
		}
		int rc = runtime_set_update(I, s, items, err);
		value_unref(items);
		if (rc < 0)
			goto fail_here;
	}
	if (folds) {
		/* the compiler's frozenset, made again from its own order when the
		 * constants are merged (merge_consts_recursive), then merged in */
		struct value *made = s, *constant = value_set();
		value_set_order(made);
		for (int i = 0; i < made->n; i++)
			value_set_add(constant, value_ref(made->items[i]));
		value_unref(made);
		s = value_set();
		value_set_merge(s, constant);
		value_unref(constant);
	}
	return s;
fail_here:
	error_locate(err, n->line, n->col);
fail:
	value_unref(s);
	return NULL;
}

/* ---- the walker ------------------------------------------------------------------ */

static struct value *eval_compare(struct interp *I, const struct node *n, struct value *a, struct value *b,
				  struct qkv_error *err)
{
	if (n->op == OP_IS || n->op == OP_ISNOT) {
		bool same = a == b || (a->kind == V_NONE && b->kind == V_NONE) ||
			    (a->kind == V_BOOL && b->kind == V_BOOL && a->b == b->b) ||
			    ((a->kind == V_MODULE || a->kind == V_FUNC) && a->kind == b->kind && strcmp(a->str, b->str) == 0) ||
			    (a->kind == V_BOUND && b->kind == V_BOUND && a->self == b->self && a->fn == b->fn) ||
			    (a->kind == V_DTYPE && b->kind == V_DTYPE && a->dtype == b->dtype && a->flavor == b->flavor) ||
			    (a->kind == V_TENSOR && b->kind == V_TENSOR && a->t == b->t);
		return value_bool(same == (n->op == OP_IS));
	}
	int in = container_contains(I, b, a, err);
	if (in < 0)
		return NULL;
	return value_bool((in != 0) == (n->op == OP_IN));
}

/* One binary operator whose left operand's value a (taken) is known: evaluates
 * the right operand (unless `and` / `or` decide without it) and applies it. */
static struct value *binary_apply(struct interp *I, const struct node *n, struct value *a, struct qkv_error *err)
{
	struct value *r;
	if (n->op == OP_AND || n->op == OP_OR) {
		int t = value_truth(a, err);
		if (t < 0) {
			value_unref(a);
			error_locate(err, n->kids[0]->line, n->kids[0]->col);
			return NULL;
		}
		if ((n->op == OP_AND && !t) || (n->op == OP_OR && t))
			return a;
		value_unref(a);
		return eval_expr(I, n->kids[1], err);
	}
	struct value *b = eval_expr(I, n->kids[1], err);
	if (!b || interp_check_interrupt(I, n, err) < 0) {
		value_unref(a);
		value_unref(b);
		return NULL;
	}
	if (n->op == OP_IS || n->op == OP_ISNOT || n->op == OP_IN || n->op == OP_NOTIN) {
		r = eval_compare(I, n, a, b, err);
	} else {
		r = eval_binop(I, n->op, a, b, err);
		autograd_binop(I, n->op, a, b, r);
		if (r && r->kind == V_TENSOR && r->t->from) {	/* name the operands: "Q", "K.T" */
			struct ast_operand o[2] = {
				{ n->kids[0], NULL, a->kind == V_TENSOR ? a->t : NULL },
				{ n->kids[1], NULL, b->kind == V_TENSOR ? b->t : NULL },
			};
			ast_label_operands(r->t, o, 2);
		}
	}
	value_unref(a);
	value_unref(b);
	if (!r)
		error_locate(err, n->line, n->col);
	return r;
}

/* A binary operator, and the operators down its left operand's left side:
 * ((a + b) - c) * d is evaluated by a loop from a up, not by recursion, so a
 * chain of thousands of operators takes no more C stack than one. Only the
 * lowest operator can be a fused attention: the others' left operand is an
 * operator, never the softmax call fuse_attention looks for. */
static struct value *eval_binary(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *r;
	if (n->op == OP_MATMUL && fuse_attention(I, n, &r) == 1)
		return r;
	if (n->kids[0]->kind != N_BINARY) {
		struct value *a = eval_expr(I, n->kids[0], err);
		return a ? binary_apply(I, n, a, err) : NULL;
	}
	int len = 0;
	for (const struct node *s = n; s->kind == N_BINARY; s = s->kids[0])
		len++;
	const struct node *spine_in[8];	/* a short chain (A @ B.T / 2): no allocation */
	const struct node **spine = len <= 8 ? spine_in : xmalloc((size_t)len * sizeof *spine);
	int k = 0;
	for (const struct node *s = n; s->kind == N_BINARY; s = s->kids[0])
		spine[k++] = s;
	r = eval_expr(I, spine[len - 1], err);	/* its left operand is no operator: no deeper */
	for (k = len - 2; k >= 0 && r; k--)
		r = binary_apply(I, spine[k], r, err);
	if (spine != spine_in)
		free(spine);
	return r;
}

/* module.NAME (n an N_ATTR): the node's cache when it holds this module,
 * else the lookup by name, cached when both values are immortal (then the
 * same for every interpreter: only the first module a node sees is kept). */
static struct value *module_attr(struct interp *I, const struct node *n, struct value *module,
				 struct qkv_error *err)
{
	const struct node_cache *c = node_cache_get(n);
	if (c && c->module == module)
		return c->attr;
	struct value *r = runtime_attr(I, module, n->str, err);
	if (!c && r && r->refs < 0 && module->refs < 0)
		node_cache_set(n, module, r);
	return r;
}

static struct value *eval_node(struct interp *I, const struct node *n, struct qkv_error *err);

/* The leaves (a name, a number), calls and operators from here, without
 * the frame eval_node's other kinds need: most nodes a line evaluates are
 * these, and eval_node has no case for them. */
struct value *eval_expr(struct interp *I, const struct node *n, struct qkv_error *err)
{
	switch (n->kind) {
	case N_NAME:
		return scope_load(I, n, err);
	case N_NUM:
		return n->is_int ? value_int(n->ival) : value_float(n->num);
	case N_BINARY:
		return eval_binary(I, n, err);
	case N_CALL:	/* guarded against deep recursion as eval_node guards . and [ ] */
		return scope_check_depth(I, n, err) < 0 ? NULL : eval_call(I, n, err);
	default:
		return eval_node(I, n, err);
	}
}

static __attribute__((noinline)) struct value *eval_node(struct interp *I, const struct node *n,
							 struct qkv_error *err)
{
	struct value *r = NULL;
	/* a.b.c..., f()()..., x[0][0]...: recursion as deep as the tree (PARSE_MAX_HEIGHT), guarded
	 * like a call's where the stack is short */
	if ((n->kind == N_ATTR || n->kind == N_INDEX) && scope_check_depth(I, n, err) < 0)
		return NULL;
	switch (n->kind) {
	case N_STR:
		return value_str(n->str);
	case N_FSTR:
		return eval_fstring(I, n, err);
	case N_CONST:
		return n->op == 'T' ? value_bool(true) : n->op == 'F' ? value_bool(false) : value_none();
	case N_LIST:
		return eval_seq(I, n, V_LIST, err);
	case N_TUPLE:
		return eval_seq(I, n, V_TUPLE, err);
	case N_DICT:
		return eval_dict(I, n, err);
	case N_SET:
		return eval_set(I, n, err);
	case N_COMP:
		return scope_comprehension(I, n, err);
	case N_LAMBDA:
		return scope_make_function(I, n, err);
	case N_IFEXP: {
		struct value *c = eval_expr(I, n->kids[1], err);
		if (!c)
			return NULL;
		int t = value_truth(c, err);
		value_unref(c);
		if (t < 0) {
			error_locate(err, n->kids[1]->line, n->kids[1]->col);
			return NULL;
		}
		return eval_expr(I, n->kids[t ? 0 : 2], err);
	}
	case N_MATRIX:
		return eval_matrix(I, n, err);
	case N_UNARY: {
		const struct node *k = n->kids[0];
		if (n->op == '-' && k->kind == N_NUM && (!k->is_int || k->ival != INT64_MIN))
			return k->is_int ? value_int(-k->ival) : value_float(-k->num);	/* -1: unop's number, at once */
		struct value *a = eval_expr(I, k, err);
		if (!a)
			return NULL;
		if (interp_check_interrupt(I, n, err) < 0) {
			value_unref(a);
			return NULL;
		}
		r = unop(I, n->op, a, err);
		autograd_unop(I, n->op, a, r);
		value_unref(a);
		break;
	}
	case N_ATTR: {
		struct value *base = eval_expr(I, n->kids[0], err);
		if (!base)
			return NULL;
		r = base->kind == V_MODULE ? module_attr(I, n, base, err) : runtime_attr(I, base, n->str, err);
		value_unref(base);
		break;
	}
	case N_INDEX:
		return eval_index(I, n, err);
	case N_SLICE:
		error_set(err, n->line, n->col, "a slice (a:b) can only appear inside [ ]");
		return NULL;
	case N_STARRED:
		error_set(err, n->line, n->col, "SyntaxError: can't use starred expression here");
		return NULL;
	default:
		error_set(err, n->line, n->col, "this is a statement, not an expression");
		return NULL;
	}
	if (!r)
		error_locate(err, n->line, n->col);
	return r;
}
