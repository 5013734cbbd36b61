/* eval.c: the evaluator of the notebook language.
 * Walks the statement trees the parser builds, keeps the workspace, and makes
 * each statement a transaction (undo log of in-place writes and a snapshot of
 * the random streams). Called by main.c (eval, repl) and later by lessons and
 * the UI; never prints (output goes through the emit callback), never exits. */
#include "lang/astprint.h"
#include "lang/autograd.h"
#include "lang/interp.h"
#include "lang/parser.h"
#include "lang/runtime.h"
#include "core/format.h"
#include "core/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct value *eval(struct interp *I, const struct node *n, struct qkv_error *err);

/* ---- interpreter and workspace --------------------------------------------- */

struct interp *interp_new(enum kernel_variant variant)
{
	struct interp *I = xcalloc(1, sizeof *I);
	ops_ctx_init(&I->ops, variant);
	torch_gen_seed(&I->torch_rng, TORCH_DEFAULT_SEED);
	np_gen_seed(&I->np_rng, NP_DEFAULT_SEED);
	return I;
}

static void undo_unwind(struct interp *I, int from, bool restore);
static void undo_clear(struct interp *I, bool restore);

void interp_free(struct interp *I)
{
	if (!I)
		return;
	undo_clear(I, false);
	free(I->undo);
	for (int i = 0; i < I->nvars; i++) {
		free(I->names[i]);
		value_unref(I->vals[i]);
	}
	free(I->names);
	free(I->vals);
	free(I);
}

/* A copy of v that shares no tensor storage with it. */
static struct value *value_deep_copy(struct value *v)
{
	switch (v->kind) {
	case V_TENSOR: {
		struct tensor *c = ops_clone(v->t);
		c->grad = v->t->grad;
		c->from = v->t->from;
		if (c->from)
			c->from->refs++;
		struct value *n = value_tensor(c);
		n->parameter = v->parameter;
		return n;
	}
	case V_LIST:
	case V_TUPLE: {
		struct value *n = value_seq(v->kind, v->n);
		for (int i = 0; i < v->n; i++)
			n->items[i] = value_deep_copy(v->items[i]);
		return n;
	}
	case V_OBJECT: {
		struct object *o = xcalloc(1, sizeof *o);
		*o = *v->obj;
		o->weight = v->obj->weight ? value_deep_copy(v->obj->weight) : NULL;
		o->bias = v->obj->bias ? value_deep_copy(v->obj->bias) : NULL;
		return value_object(o);
	}
	default:
		return value_ref(v);
	}
}

struct interp *interp_clone(const struct interp *I)
{
	struct interp *c = interp_new(I->ops.variant);
	c->ops = I->ops;
	c->interrupt = I->interrupt;
	c->torch_rng = I->torch_rng;
	c->np_rng = I->np_rng;
	for (int i = 0; i < I->nvars; i++)
		interp_set(c, I->names[i], value_deep_copy(I->vals[i]));
	return c;
}

void interp_set_observer(struct interp *I, interp_observe_fn observe, void *udata)
{
	I->observe = observe;
	I->observe_udata = udata;
}

void interp_set_output(struct interp *I, interp_emit_fn emit, void *udata)
{
	I->emit = emit;
	I->udata = udata;
}

struct ops_ctx *interp_ops(struct interp *I)
{
	return &I->ops;
}

void interp_set_interrupt(struct interp *I, const volatile sig_atomic_t *flag)
{
	I->interrupt = flag;
}

bool interp_interrupted(const struct interp *I)
{
	return I->interrupt && *I->interrupt;
}

int interp_check_interrupt(struct interp *I, const struct node *n, struct qkv_error *err)
{
	if (!interp_interrupted(I))
		return 0;
	return error_set(err, n ? n->line : 0, n ? n->col : 0, "interrupted (Ctrl-C)");
}

void interp_statement_lines(const struct interp *I, int *first, int *last)
{
	*first = I->stmt_first;
	*last = I->stmt_last;
}

bool interp_quit_requested(const struct interp *I)
{
	return I->quit;
}

int interp_var_count(const struct interp *I)
{
	return I->nvars;
}

const char *interp_var_name(const struct interp *I, int i)
{
	return i >= 0 && i < I->nvars ? I->names[i] : NULL;
}

struct value *interp_get(const struct interp *I, const char *name)
{
	for (int i = 0; i < I->nvars; i++)
		if (strcmp(I->names[i], name) == 0)
			return I->vals[i];
	return NULL;
}

static struct undo *undo_push(struct interp *I);

static void unbind(struct interp *I, const char *name)
{
	for (int i = 0; i < I->nvars; i++) {
		if (strcmp(I->names[i], name) == 0) {
			free(I->names[i]);
			value_unref(I->vals[i]);
			memmove(I->names + i, I->names + i + 1, sizeof *I->names * (size_t)(I->nvars - i - 1));
			memmove(I->vals + i, I->vals + i + 1, sizeof *I->vals * (size_t)(I->nvars - i - 1));
			I->nvars--;
			return;
		}
	}
}

void interp_set(struct interp *I, const char *name, struct value *v)
{
	if (I->log_bindings) {
		struct undo *u = undo_push(I);
		u->name = xstrdup(name);
		u->old = value_ref(interp_get(I, name));
	}
	for (int i = 0; i < I->nvars; i++) {
		if (strcmp(I->names[i], name) == 0) {
			value_unref(I->vals[i]);
			I->vals[i] = v;
			return;
		}
	}
	if (I->nvars == I->capvars) {
		I->capvars = I->capvars ? 2 * I->capvars : 16;
		I->names = xrealloc(I->names, sizeof *I->names * (size_t)I->capvars);
		I->vals = xrealloc(I->vals, sizeof *I->vals * (size_t)I->capvars);
	}
	I->names[I->nvars] = xstrdup(name);
	I->vals[I->nvars] = v;
	I->nvars++;
}

/* ---- the undo log ------------------------------------------------------------ */

static struct undo *undo_push(struct interp *I)
{
	if (I->nundo == I->capundo) {
		I->capundo = I->capundo ? 2 * I->capundo : 8;
		I->undo = xrealloc(I->undo, sizeof *I->undo * (size_t)I->capundo);
	}
	struct undo *u = &I->undo[I->nundo++];
	memset(u, 0, sizeof *u);
	return u;
}

void interp_will_write(struct interp *I, struct storage *st)
{
	/* once per statement: its own rollback must find the bytes it started from */
	for (int i = I->undo_mark; i < I->nundo; i++)
		if (I->undo[i].st == st)
			return;
	struct undo *u = undo_push(I);
	u->st = st;
	st->refs++;
	u->bytes = xmalloc(st->nbytes ? st->nbytes : 1);
	memcpy(u->bytes, st->data, st->nbytes);
}

void interp_will_replace(struct interp *I, struct value **slot)
{
	struct undo *u = undo_push(I);
	u->slot = slot;
	u->old = value_ref(*slot);
}

/* Ends the transaction of the entries from `from` on: rolls them back
 * (restore) or commits them. Entries are undone newest first so the oldest
 * saved state wins. */
static void undo_unwind(struct interp *I, int from, bool restore)
{
	for (int i = I->nundo - 1; i >= from; i--) {
		struct undo *u = &I->undo[i];
		if (u->st) {
			if (restore) {
				memcpy(u->st->data, u->bytes, u->st->nbytes);
				u->st->version++;
			}
			free(u->bytes);
			storage_unref(u->st);
		} else if (u->name) {
			if (restore) {
				bool log = I->log_bindings;
				I->log_bindings = false;
				if (u->old)
					interp_set(I, u->name, u->old);
				else
					unbind(I, u->name);
				I->log_bindings = log;
			} else {
				value_unref(u->old);
			}
			free(u->name);
		} else if (restore) {
			value_unref(*u->slot);
			*u->slot = u->old;
		} else {
			value_unref(u->old);
		}
	}
	I->nundo = from;
	if (I->undo_mark > from)
		I->undo_mark = from;
}

/* Ends the whole transaction. */
static void undo_clear(struct interp *I, bool restore)
{
	undo_unwind(I, 0, restore);
}

/* ---- helpers ----------------------------------------------------------------- */

int runtime_truth(const struct value *v, struct qkv_error *err)
{
	switch (v->kind) {
	case V_NONE: return 0;
	case V_BOOL: return v->b;
	case V_INT: return v->i != 0;
	case V_FLOAT: return v->f != 0;
	case V_STR: return v->str[0] != 0;
	case V_LIST: case V_TUPLE: case V_SIZE: return v->n != 0;
	case V_TENSOR:
		if (tensor_numel(v->t) != 1)
			return error_set(err, 0, 0, "the truth value of a tensor with %lld elements is ambiguous "
					 "(use .all() or .any())", (long long)tensor_numel(v->t));
		return tensor_get(v->t, 0) != 0;
	default: return 1;
	}
}

int runtime_to_double(const struct value *v, double *out, const char *what, struct qkv_error *err)
{
	if (value_is_number(v)) {
		*out = value_as_double(v);
		return 0;
	}
	if (v->kind == V_TENSOR && tensor_numel(v->t) == 1) {
		*out = tensor_get(v->t, 0);
		return 0;
	}
	return error_set(err, 0, 0, "%s must be a number, got %s", what, value_type_name(v));
}

int runtime_to_int(const struct value *v, int64_t *out, const char *what, struct qkv_error *err)
{
	if (v->kind == V_INT || v->kind == V_BOOL) {
		*out = v->kind == V_INT ? v->i : v->b;
		return 0;
	}
	if (v->kind == V_TENSOR && v->t->ndim == 0 && !dtype_is_float(v->t->dtype)) {
		*out = tensor_get_i64(v->t, 0);
		return 0;
	}
	if (v->kind == V_FLOAT)
		return error_set(err, 0, 0, "%s must be an integer, got the float %g", what, v->f);
	return error_set(err, 0, 0, "%s must be an integer, got %s", what, value_type_name(v));
}

int runtime_format_field(struct strbuf *out, const struct value *v, const char *spec, struct qkv_error *err)
{
	if (!spec || !*spec) {
		if (v->kind == V_TENSOR && v->t->ndim == 0 && v->t->flavor == FLAVOR_TORCH) {
			/* Tensor.__format__ on a 0-d tensor formats .item() */
			if (dtype_is_float(v->t->dtype))
				format_py_float(out, tensor_get(v->t, 0));
			else if (v->t->dtype == DT_BOOL)
				strbuf_puts(out, tensor_get(v->t, 0) ? "True" : "False");
			else
				strbuf_printf(out, "%lld", (long long)tensor_get_i64(v->t, 0));
			return 0;
		}
		value_str_of(out, v);
		return 0;
	}
	int rc = -1;
	if (v->kind == V_INT || v->kind == V_BOOL)
		rc = format_py_int_spec(out, v->kind == V_INT ? v->i : v->b, spec);
	if (rc < 0 && (value_is_number(v) || (v->kind == V_TENSOR && v->t->ndim == 0)))
		rc = format_py_float_spec(out, v->kind == V_TENSOR ? tensor_get(v->t, 0) : value_as_double(v), spec);
	if (rc < 0)
		return error_set(err, 0, 0, "format spec '%s' is not supported for %s", spec, value_type_name(v));
	return 0;
}

/* A Python number as a 0-d tensor operand for a binary op with a tensor. */
static struct operand operand_of(const struct value *v)
{
	struct operand o;
	if (v->kind == V_TENSOR) {
		o.t = tensor_ref(v->t);
		o.scalar = false;
		return o;
	}
	o.scalar = true;
	if (v->kind == V_FLOAT)
		o.t = ops_scalar(DT_F64, FLAVOR_TORCH, v->f);
	else if (v->kind == V_INT)
		o.t = ops_scalar(DT_I64, FLAVOR_TORCH, (double)v->i);
	else
		o.t = ops_scalar(DT_BOOL, FLAVOR_TORCH, v->b);
	if (v->kind == V_INT)
		((int64_t *)o.t->storage->data)[0] = v->i;
	return o;
}

/* ---- arithmetic -------------------------------------------------------------- */

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
				return error_set(err, 0, 0, "integer division or modulo by zero"), NULL;
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
			return error_set(err, 0, 0, "division by zero"), NULL;
		return value_float(x / y);
	case OP_FLOORDIV:
	case OP_MOD: {
		/* Python's float divmod: the remainder takes the divisor's sign */
		if (y == 0)
			return error_set(err, 0, 0, "float division or modulo by zero"), NULL;
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

static bool values_equal(const struct value *a, const struct value *b)
{
	if (value_is_number(a) && value_is_number(b))
		return value_as_double(a) == value_as_double(b);
	bool seq_a = a->kind == V_LIST || a->kind == V_TUPLE || a->kind == V_SIZE;
	bool seq_b = b->kind == V_LIST || b->kind == V_TUPLE || b->kind == V_SIZE;
	if (seq_a && seq_b) {
		if ((a->kind == V_LIST) != (b->kind == V_LIST) || a->n != b->n)
			return false;
		for (int i = 0; i < a->n; i++)
			if (!values_equal(a->items[i], b->items[i]))
				return false;
		return true;
	}
	if (a->kind == V_STR && b->kind == V_STR)
		return strcmp(a->str, b->str) == 0;
	if (a->kind == V_NONE || b->kind == V_NONE)
		return a->kind == b->kind;
	if (a->kind == V_DTYPE && b->kind == V_DTYPE)
		return a->dtype == b->dtype;
	return a == b;
}

static struct value *binop(struct interp *I, int op, struct value *a, struct value *b, struct qkv_error *err)
{
	bool ta = a->kind == V_TENSOR, tb = b->kind == V_TENSOR;
	if (ta || tb) {
		if ((!ta && !value_is_number(a)) || (!tb && !value_is_number(b)))
			goto unsupported;
		if (op == OP_MATMUL) {
			if (!ta || !tb)
				return error_set(err, 0, 0, "@ needs two tensors, got %s and %s",
						 value_type_name(a), value_type_name(b)), NULL;
			return value_from_result(ops_matmul(&I->ops, a->t, b->t, err));
		}
		struct operand oa = operand_of(a), ob = operand_of(b);
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
		case OP_BITAND: r = ops_logical(&I->ops, oa, ob, false, err); break;
		case OP_BITOR: r = ops_logical(&I->ops, oa, ob, true, err); break;
		default:
			tensor_unref(oa.t);
			tensor_unref(ob.t);
			goto unsupported;
		}
		tensor_unref(oa.t);
		tensor_unref(ob.t);
		/* numpy: a 0-d result is a numpy scalar, which prints like a Python number */
		return value_from_result(r);
	}
	if (value_is_number(a) && value_is_number(b)) {
		if (op == OP_MATMUL)
			goto unsupported;
		if (op == OP_BITAND || op == OP_BITOR) {
			if (a->kind == V_FLOAT || b->kind == V_FLOAT)
				goto unsupported;
			int64_t x = a->kind == V_INT ? a->i : a->b, y = b->kind == V_INT ? b->i : b->b;
			int64_t r = op == OP_BITAND ? (x & y) : (x | y);
			if (a->kind == V_BOOL && b->kind == V_BOOL)
				return value_bool(r != 0);
			return value_int(r);
		}
		return number_binop(op, a, b, err);
	}
	if (op == OP_EQ || op == OP_NE)
		return value_bool(values_equal(a, b) == (op == OP_EQ));
	if (op == OP_ADD && a->kind == V_STR && b->kind == V_STR) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_puts(&sb, a->str);
		strbuf_puts(&sb, b->str);
		return value_str_take(strbuf_detach(&sb));
	}
	if (op == OP_ADD && a->kind == b->kind && (a->kind == V_LIST || a->kind == V_TUPLE)) {
		struct value *r = value_seq(a->kind, a->n + b->n);
		for (int i = 0; i < a->n; i++)
			r->items[i] = value_ref(a->items[i]);
		for (int i = 0; i < b->n; i++)
			r->items[a->n + i] = value_ref(b->items[i]);
		return r;
	}
unsupported:
	error_set(err, 0, 0, "unsupported operand types for %s: %s and %s", op_name(op),
		  value_type_name(a), value_type_name(b));
	return NULL;
}

static struct value *unop(struct interp *I, int op, struct value *a, struct qkv_error *err)
{
	if (op == '!') {
		int t = runtime_truth(a, err);
		return t < 0 ? NULL : value_bool(!t);
	}
	if (a->kind == V_TENSOR) {
		if (op == '+')
			return value_ref(a);
		if (op == '~')
			return value_from_result(ops_logical_not(&I->ops, a->t, err));
		if (a->t->dtype == DT_BOOL)
			return error_set(err, 0, 0, "negation of a bool tensor is not supported (use ~ to invert it)"),
			       NULL;
		return value_from_result(ops_unary(&I->ops, a->t, EW_NEG, err));
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
	struct value *v = eval(I, n, err);
	if (!v)
		return -1;
	int rc = 0;
	if (v->kind != V_NONE) {
		rc = runtime_to_int(v, out, "a slice index", err);
		if (rc < 0)
			error_locate(err, n->line, n->col);
		*has = rc == 0;
	}
	value_unref(v);
	return rc;
}


/* The view x[...] of a tensor (shares storage). */
static struct tensor *index_tensor(struct interp *I, struct tensor *t, const struct node *n, struct qkv_error *err)
{
	struct tensor *cur = tensor_ref(t);
	int dim = 0;
	int nidx = n->nkids - 1;
	int used = 0;
	for (int i = 0; i < nidx; i++) {
		const struct node *ix = n->kids[i + 1];
		if (ix->kind != N_CONST || ix->op != 'N')
			used++;
	}
	if (used > t->ndim) {
		tensor_unref(cur);
		error_set(err, n->line, n->col, "too many indices for a tensor of %d dimension%s: %d given",
			  t->ndim, t->ndim == 1 ? "" : "s", used);
		return NULL;
	}
	for (int i = 0; i < nidx; i++) {
		const struct node *ix = n->kids[i + 1];
		struct tensor *next = NULL;
		if (ix->kind == N_SLICE) {
			bool hs, he, hst;
			int64_t s = 0, e = 0, st = 1;
			if (slice_bound(I, ix->kids[0], &hs, &s, err) < 0 ||
			    slice_bound(I, ix->kids[1], &he, &e, err) < 0 ||
			    slice_bound(I, ix->kids[2], &hst, &st, err) < 0)
				goto fail;
			next = ops_slice(cur, dim, hs, s, he, e, hst ? st : 1, err);
			dim++;
		} else if (ix->kind == N_CONST && ix->op == 'N') {
			next = ops_unsqueeze(cur, dim, err);
			dim++;
		} else {
			struct value *v = eval(I, ix, err);
			if (!v)
				goto fail;
			int64_t k;
			if (v->kind == V_TENSOR && tensor_numel(v->t) != 1) {
				value_unref(v);
				error_set(err, ix->line, ix->col, "indexing with a tensor of indices or a mask is not "
					  "supported; use integers and slices");
				goto fail;
			}
			int rc = runtime_to_int(v, &k, "an index", err);
			value_unref(v);
			if (rc < 0) {
				error_locate(err, ix->line, ix->col);
				goto fail;
			}
			next = ops_select(cur, dim, k, err);
		}
		if (!next) {
			error_locate(err, ix->line, ix->col);
			goto fail;
		}
		tensor_unref(cur);
		cur = next;
	}
	return cur;
fail:
	tensor_unref(cur);
	return NULL;
}

static struct value *index_seq(struct interp *I, struct value *seq, const struct node *n, struct qkv_error *err)
{
	if (n->nkids != 2)
		return error_set(err, n->line, n->col, "%s indices must be integers or slices, not tuple",
				 value_type_name(seq)), NULL;
	const struct node *ix = n->kids[1];
	int len = seq->kind == V_STR ? (int)strlen(seq->str) : seq->n;
	if (ix->kind == N_SLICE) {
		bool hs, he, hst;
		int64_t s = 0, e = 0, st = 1;
		if (slice_bound(I, ix->kids[0], &hs, &s, err) < 0 || slice_bound(I, ix->kids[1], &he, &e, err) < 0 ||
		    slice_bound(I, ix->kids[2], &hst, &st, err) < 0)
			return NULL;
		if (hst && st != 1)
			return error_set(err, ix->line, ix->col, "only step 1 is supported in sequence slices"), NULL;
		if (!hs) s = 0;
		if (!he) e = len;
		if (s < 0) s += len;
		if (e < 0) e += len;
		s = s < 0 ? 0 : s > len ? len : s;
		e = e < s ? s : e > len ? len : e;
		if (seq->kind == V_STR)
			return value_str_take(xstrndup(seq->str + s, (size_t)(e - s)));
		struct value *r = value_seq(seq->kind, (int)(e - s));
		for (int64_t i = s; i < e; i++)
			r->items[i - s] = value_ref(seq->items[i]);
		return r;
	}
	struct value *v = eval(I, ix, err);
	if (!v)
		return NULL;
	int64_t k;
	int rc = runtime_to_int(v, &k, "an index", err);
	value_unref(v);
	if (rc < 0) {
		error_locate(err, ix->line, ix->col);
		return NULL;
	}
	if (k < -len || k >= len)
		return error_set(err, ix->line, ix->col, "index %lld is out of range for a %s of length %d",
				 (long long)k, value_type_name(seq), len), NULL;
	if (k < 0)
		k += len;
	if (seq->kind == V_STR)
		return value_str_take(xstrndup(seq->str + k, 1));
	return value_ref(seq->items[k]);
}

static struct value *eval_index(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *base = eval(I, n->kids[0], err);
	if (!base)
		return NULL;
	struct value *r = NULL;
	if (base->kind == V_TENSOR) {
		struct tensor *t = index_tensor(I, base->t, n, err);
		if (t)
			r = value_from_result(t);
		autograd_index(I, n, base, r);
	} else if (base->kind == V_LIST || base->kind == V_TUPLE || base->kind == V_SIZE || base->kind == V_STR) {
		r = index_seq(I, base, n, err);
	} else {
		error_set(err, n->line, n->col, "'%s' object is not subscriptable", value_type_name(base));
	}
	value_unref(base);
	return r;
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
		struct value *v = eval(I, k->kids[0], err);
		if (!v)
			goto fail;
		int rc = 0;
		if (k->op == 'r')
			value_repr(&sb, v);
		else if (k->op == 's')
			value_str_of(&sb, v);
		else
			rc = runtime_format_field(&sb, v, k->str, err);
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
	struct ast_operand *ops = xcalloc((size_t)(c->nargs + c->nkw + 2), sizeof *ops);
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
	free(ops);
}

static struct value *eval_call(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *callee = eval(I, n->kids[0], err);
	if (!callee)
		return NULL;
	int total = n->nkids - 1, np = 0, nk = 0;
	for (int i = 0; i < total; i++)
		(n->kwnames && n->kwnames[i]) ? nk++ : np++;
	struct call c = { 0 };
	c.I = I;
	c.node = n;
	c.args = xcalloc((size_t)np + 1, sizeof *c.args);
	c.arg_nodes = xcalloc((size_t)np + 1, sizeof *c.arg_nodes);
	c.kwargs = xcalloc((size_t)nk + 1, sizeof *c.kwargs);
	c.kwnames = xcalloc((size_t)nk + 1, sizeof *c.kwnames);
	c.kw_nodes = xcalloc((size_t)nk + 1, sizeof *c.kw_nodes);
	struct value *r = NULL;
	for (int i = 0; i < total; i++) {
		const struct node *an = n->kids[i + 1];
		struct value *v = eval(I, an, err);
		if (!v)
			goto done;
		if (n->kwnames && n->kwnames[i]) {
			for (int j = 0; j < c.nkw; j++) {
				if (strcmp(c.kwnames[j], n->kwnames[i]) == 0) {
					value_unref(v);
					error_set(err, an->line, an->col, "keyword argument '%s' given twice", n->kwnames[i]);
					goto done;
				}
			}
			c.kwnames[c.nkw] = n->kwnames[i];
			c.kw_nodes[c.nkw] = an;
			c.kwargs[c.nkw++] = v;
		} else {
			c.arg_nodes[c.nargs] = an;
			c.args[c.nargs++] = v;
		}
	}
	if (interp_check_interrupt(I, n, err) < 0)
		goto done;
	r = runtime_call(&c, callee, err);
	if (!r)
		error_locate(err, n->line, n->col);
	else if (r->kind == V_TENSOR && r->t->from)
		label_call(n, callee, &c, r->t);
done:
	for (int i = 0; i < c.nargs; i++)
		value_unref(c.args[i]);
	for (int i = 0; i < c.nkw; i++)
		value_unref(c.kwargs[i]);
	free(c.args);
	free(c.arg_nodes);
	free(c.kwargs);
	free(c.kwnames);
	free(c.kw_nodes);
	value_unref(callee);
	return r;
}

/* ---- fused attention ----------------------------------------------------------
 * One expression that computes softmax(Q @ Kᵀ [/ s | * s] [.masked_fill(M,
 * -inf)], dim=-1) @ V goes to the fused kernel (ops_attention), which never
 * forms the (…, T, S) weights, when they would be large: more than
 * FUSE_MIN_SCORES scores per head. Smaller ones are evaluated as written, so
 * the notebooks' numbers round exactly as torch's step-by-step ones. Kᵀ is
 * K.mT, K.transpose(-2, -1) (any spelling of the last two axes) or, for 2-D
 * K, K.T; softmax is torch.softmax, F.softmax or the method. Only pure leaves
 * are accepted (names, numbers, attributes, indexing, arithmetic,
 * float('-inf'), math.sqrt): when the pattern does not fit after all (shapes,
 * dtypes, a fill that is not -inf) the expression is evaluated as usual, and
 * evaluating those leaves twice changes nothing. */
#define FUSE_MIN_SCORES 4096

/* Whether a call passes any argument by keyword. */
static bool has_kwargs(const struct node *call)
{
	for (int i = 1; call->kwnames && i < call->nkids; i++)
		if (call->kwnames[i - 1])
			return true;
	return false;
}

static bool pure(const struct node *n)
{
	if (n == NULL)
		return true;
	switch (n->kind) {
	case N_NUM: case N_STR: case N_CONST: case N_NAME:
		return true;
	case N_ATTR: case N_UNARY:
		return pure(n->kids[0]);
	case N_BINARY:
		return n->op != OP_MATMUL && pure(n->kids[0]) && pure(n->kids[1]);
	case N_INDEX: case N_SLICE: case N_TUPLE:
		for (int i = 0; i < n->nkids; i++)
			if (!pure(n->kids[i]))
				return false;
		return true;
	case N_CALL: {
		const struct node *f = n->kids[0];
		bool known = (f->kind == N_NAME && strcmp(f->str, "float") == 0) ||
			     (f->kind == N_ATTR && strcmp(f->str, "sqrt") == 0 && f->kids[0]->kind == N_NAME &&
			      strcmp(f->kids[0]->str, "math") == 0);
		if (!known || has_kwargs(n))
			return false;
		for (int i = 1; i < n->nkids; i++)
			if (!pure(n->kids[i]))
				return false;
		return true;
	}
	default:
		return false;
	}
}

/* The call's argument named kw, else its positional argument pos (0 = first
 * after the callee), else NULL. */
static const struct node *call_arg(const struct node *call, int pos, const char *kw)
{
	int seen = 0;
	for (int i = 1; i < call->nkids; i++) {
		const char *name = call->kwnames ? call->kwnames[i - 1] : NULL;
		if (name ? strcmp(name, kw) == 0 : seen++ == pos)
			return call->kids[i];
	}
	return NULL;
}

struct attn_pattern {
	const struct node *q, *k, *v, *dim, *scale, *mask, *fill;
	const struct node *softmax;	/* the callee, to check it is torch's */
	const struct node *ax[2];	/* transpose's axes, or NULL for .mT / .T */
	bool divide, dot_t;		/* / s rather than * s; K.T */
};

/* Matches the shape of the pattern in the tree at n (an @); no evaluation. */
static bool attn_match(const struct node *n, struct attn_pattern *p)
{
	memset(p, 0, sizeof *p);
	const struct node *sm = n->kids[0], *x;
	p->v = n->kids[1];
	if (sm->kind != N_CALL || sm->kids[0]->kind != N_ATTR || strcmp(sm->kids[0]->str, "softmax") != 0)
		return false;
	p->softmax = sm->kids[0];
	int nargs = sm->nkids - 1;
	if (p->softmax->kids[0]->kind == N_NAME && (strcmp(p->softmax->kids[0]->str, "torch") == 0 ||
						    strcmp(p->softmax->kids[0]->str, "F") == 0)) {
		x = call_arg(sm, 0, "input");
		p->dim = call_arg(sm, 1, "dim");
	} else {	/* X.softmax(dim): the callee's base is X */
		x = p->softmax->kids[0];
		p->softmax = NULL;
		p->dim = call_arg(sm, 0, "dim");
		nargs++;
	}
	if (x == NULL || p->dim == NULL || nargs != 2)
		return false;
	if (x->kind == N_CALL && x->kids[0]->kind == N_ATTR && strcmp(x->kids[0]->str, "masked_fill") == 0) {
		p->mask = call_arg(x, 0, "mask");
		p->fill = call_arg(x, 1, "value");
		if (p->mask == NULL || p->fill == NULL || x->nkids != 3)
			return false;
		x = x->kids[0]->kids[0];
	}
	if (x->kind == N_BINARY && (x->op == OP_DIV || x->op == OP_MUL)) {
		p->divide = x->op == OP_DIV;
		bool left = x->kids[0]->kind == N_BINARY && x->kids[0]->op == OP_MATMUL;
		if (!left && (p->divide || !(x->kids[1]->kind == N_BINARY && x->kids[1]->op == OP_MATMUL)))
			return false;
		p->scale = x->kids[left ? 1 : 0];
		x = x->kids[left ? 0 : 1];
	}
	if (x->kind != N_BINARY || x->op != OP_MATMUL)
		return false;
	p->q = x->kids[0];
	const struct node *kt = x->kids[1];
	if (kt->kind == N_ATTR && (strcmp(kt->str, "mT") == 0 || strcmp(kt->str, "T") == 0)) {
		p->dot_t = kt->str[0] == 'T';
		p->k = kt->kids[0];
	} else if (kt->kind == N_CALL && kt->nkids == 3 && !has_kwargs(kt) && kt->kids[0]->kind == N_ATTR &&
		   strcmp(kt->kids[0]->str, "transpose") == 0) {
		p->k = kt->kids[0]->kids[0];
		p->ax[0] = kt->kids[1];
		p->ax[1] = kt->kids[2];
	} else {
		return false;
	}
	return pure(p->q) && pure(p->k) && pure(p->v) && pure(p->dim) && pure(p->scale) && pure(p->mask) &&
	       pure(p->fill) && pure(p->ax[0]) && pure(p->ax[1]);
}

/* An int value that names the axis `want` of an nd-dim tensor (-1 or nd-1). */
static bool is_axis(const struct value *v, int nd, int want)
{
	return v && v->kind == V_INT && (v->i == want || v->i == want - nd);
}

/* 1: *out is the fused result; 0: not this pattern here (evaluate as usual). */
static int try_fused_attention(struct interp *I, const struct node *n, struct value **out)
{
	struct attn_pattern p;
	if (I->ops.variant != KERNEL_SIMD || !attn_match(n, &p))
		return 0;
	struct qkv_error e;
	struct value *vals[9] = { NULL };
	const struct node *nodes[9] = { p.q, p.k, p.v, p.dim, p.scale, p.mask, p.fill, p.ax[0], p.ax[1] };
	int rc = 0;
	for (int i = 0; i < 9; i++)
		if (nodes[i] && !(vals[i] = eval(I, nodes[i], &e)))
			goto done;
	if (p.softmax) {
		struct value *f = eval(I, p.softmax, &e);
		bool torch = f && f->kind == V_FUNC && (strcmp(f->str, "torch.softmax") == 0 ||
						      strcmp(f->str, "torch.nn.functional.softmax") == 0);
		value_unref(f);
		if (!torch)
			goto done;
	}
	struct value *q = vals[0], *k = vals[1], *v = vals[2];
	if (q->kind != V_TENSOR || k->kind != V_TENSOR || v->kind != V_TENSOR || q->t->flavor != FLAVOR_TORCH)
		goto done;
	int nd = k->t->ndim;
	if (nd < 2 || q->t->ndim != nd || v->t->ndim != nd || (p.dot_t && nd != 2))
		goto done;
	if (p.ax[0] && !((is_axis(vals[7], nd, nd - 2) && is_axis(vals[8], nd, nd - 1)) ||
			 (is_axis(vals[7], nd, nd - 1) && is_axis(vals[8], nd, nd - 2))))
		goto done;
	if (!is_axis(vals[3], nd, nd - 1))
		goto done;
	if (q->t->shape[nd - 2] * k->t->shape[nd - 2] <= FUSE_MIN_SCORES)
		goto done;
	double scale = 1;
	if (p.scale) {
		if (!value_is_number(vals[4]) || vals[4]->kind == V_BOOL)
			goto done;
		scale = p.divide ? 1 / value_as_double(vals[4]) : value_as_double(vals[4]);
	}
	struct tensor *mask = NULL;
	if (p.mask) {
		if (vals[5]->kind != V_TENSOR || !value_is_number(vals[6]) || value_as_double(vals[6]) != -INFINITY)
			goto done;
		mask = vals[5]->t;
	}
	if (interp_interrupted(I))
		goto done;	/* evaluated as written, which reports it */
	struct tensor *r = ops_attention(&I->ops, q->t, k->t, v->t, mask, false, scale, NULL, &e);
	if (r) {
		*out = value_from_result(r);
		autograd_attention(I, q, k, v, *out);
		rc = 1;
	}
done:
	for (int i = 0; i < 9; i++)
		value_unref(vals[i]);
	return rc;
}

/* ---- expressions ------------------------------------------------------------ */

static struct value *eval_seq(struct interp *I, const struct node *n, enum value_kind kind, struct qkv_error *err)
{
	struct value *s = value_seq(kind, n->nkids);
	for (int i = 0; i < n->nkids; i++) {
		s->items[i] = eval(I, n->kids[i], err);
		if (!s->items[i]) {
			value_unref(s);
			return NULL;
		}
	}
	return s;
}

static struct value *eval(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *r = NULL;
	switch (n->kind) {
	case N_NUM:
		return n->is_int ? value_int(n->ival) : value_float(n->num);
	case N_STR:
		return value_str(n->str);
	case N_FSTR:
		return eval_fstring(I, n, err);
	case N_CONST:
		return n->op == 'T' ? value_bool(true) : n->op == 'F' ? value_bool(false) : value_none();
	case N_NAME: {
		struct value *v = interp_get(I, n->str);
		if (v)
			return value_ref(v);
		v = runtime_global(n->str);
		if (v)
			return v;
		error_set(err, n->line, n->col, "name '%s' is not defined", n->str);
		return NULL;
	}
	case N_LIST:
		return eval_seq(I, n, V_LIST, err);
	case N_TUPLE:
		return eval_seq(I, n, V_TUPLE, err);
	case N_MATRIX:
		return eval_matrix(I, n, err);
	case N_UNARY: {
		struct value *a = eval(I, n->kids[0], err);
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
	case N_BINARY: {
		if (n->op == OP_MATMUL && try_fused_attention(I, n, &r) == 1)
			return r;
		struct value *a = eval(I, n->kids[0], err);
		if (!a)
			return NULL;
		if (n->op == OP_AND || n->op == OP_OR) {
			int t = runtime_truth(a, err);
			if (t < 0) {
				value_unref(a);
				error_locate(err, n->kids[0]->line, n->kids[0]->col);
				return NULL;
			}
			if ((n->op == OP_AND && !t) || (n->op == OP_OR && t))
				return a;
			value_unref(a);
			return eval(I, n->kids[1], err);
		}
		struct value *b = eval(I, n->kids[1], err);
		if (!b || interp_check_interrupt(I, n, err) < 0) {
			value_unref(a);
			value_unref(b);
			return NULL;
		}
		if (n->op == OP_IS || n->op == OP_ISNOT) {
			bool same = (a->kind == V_NONE && b->kind == V_NONE) || a == b ||
				    (a->kind == V_BOOL && b->kind == V_BOOL && a->b == b->b);
			r = value_bool(same == (n->op == OP_IS));
		} else if (n->op == OP_IN || n->op == OP_NOTIN) {
			bool found = false;
			if (b->kind == V_LIST || b->kind == V_TUPLE || b->kind == V_SIZE) {
				for (int i = 0; i < b->n && !found; i++)
					found = values_equal(a, b->items[i]);
				r = value_bool(found == (n->op == OP_IN));
			} else if (b->kind == V_STR && a->kind == V_STR) {
				r = value_bool((strstr(b->str, a->str) != NULL) == (n->op == OP_IN));
			} else {
				error_set(err, n->line, n->col, "'in' needs a list, tuple or string on the right, got %s",
					  value_type_name(b));
			}
		} else {
			r = binop(I, n->op, a, b, err);
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
		break;
	}
	case N_ATTR: {
		struct value *base = eval(I, n->kids[0], err);
		if (!base)
			return NULL;
		r = runtime_attr(I, base, n->str, err);
		value_unref(base);
		break;
	}
	case N_CALL:
		return eval_call(I, n, err);
	case N_INDEX:
		return eval_index(I, n, err);
	case N_SLICE:
		error_set(err, n->line, n->col, "a slice (a:b) can only appear inside [ ]");
		return NULL;
	default:
		error_set(err, n->line, n->col, "this is a statement, not an expression");
		return NULL;
	}
	if (!r)
		error_locate(err, n->line, n->col);
	return r;
}

/* ---- statements --------------------------------------------------------------- */

static int assign_to(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err);

/* x[...] = v writes into the tensor x in place (undoable) */
static int assign_index(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	struct value *base = eval(I, target->kids[0], err);
	if (!base)
		return -1;
	if (base->kind != V_TENSOR) {
		error_set(err, target->line, target->col, "'%s' object does not support item assignment "
			  "(only tensors do)", value_type_name(base));
		value_unref(base);
		return -1;
	}
	struct tensor *view = index_tensor(I, base->t, target, err);
	int rc = -1;
	if (view) {
		struct operand o = operand_of(v);
		if (v->kind != V_TENSOR && !value_is_number(v)) {
			error_set(err, target->line, target->col, "cannot assign %s into a tensor", value_type_name(v));
		} else if (autograd_write(I, 0, base->t, v, err) < 0) {
			error_locate(err, target->line, target->col);
		} else {
			interp_will_write(I, view->storage);
			rc = ops_assign(view, o.t, err);
			if (rc < 0)
				error_locate(err, target->line, target->col);
		}
		tensor_unref(o.t);
		tensor_unref(view);
	}
	value_unref(base);
	return rc;
}

static int assign_attr(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	struct value *base = eval(I, target->kids[0], err);
	if (!base)
		return -1;
	int rc = -1;
	const char *name = target->str;
	if (base->kind == V_OBJECT && base->obj->kind == OBJ_LINEAR &&
	    (strcmp(name, "weight") == 0 || strcmp(name, "bias") == 0)) {
		struct value **slot = name[0] == 'w' ? &base->obj->weight : &base->obj->bias;
		bool ok = v->kind == V_TENSOR || (name[0] == 'b' && v->kind == V_NONE);
		if (!ok) {
			error_set(err, target->line, target->col, "%s must be a tensor, got %s", name, value_type_name(v));
		} else {
			interp_will_replace(I, slot);
			value_unref(*slot);
			*slot = value_ref(v);
			rc = 0;
		}
	} else if (base->kind == V_OBJECT && base->obj->kind == OBJ_DROPOUT && strcmp(name, "p") == 0) {
		error_set(err, target->line, target->col, "create a new nn.Dropout(p) instead of changing p");
	} else {
		error_set(err, target->line, target->col, "cannot set attribute '%s' of %s", name, value_type_name(base));
	}
	value_unref(base);
	return rc;
}

/* Binds a value to a name, unpacks a tuple, or writes into a tensor. Names
 * are bound by the caller only after everything else succeeded, so a failing
 * statement binds nothing: here the pairs are collected first. */
struct binding {
	const char *name;
	struct value *v;
};

static int collect_bindings(struct interp *I, const struct node *target, struct value *v, struct binding *out,
			    int *count, int cap, struct qkv_error *err)
{
	if (target->kind == N_NAME) {
		if (*count >= cap)
			return error_set(err, target->line, target->col, "too many names to assign");
		out[*count].name = target->str;
		out[*count].v = value_ref(v);
		(*count)++;
		return 0;
	}
	if (target->kind == N_TUPLE || target->kind == N_LIST) {
		int n = -1;
		if (v->kind == V_TUPLE || v->kind == V_LIST || v->kind == V_SIZE)
			n = v->n;
		else if (v->kind == V_TENSOR && v->t->ndim > 0)
			n = (int)v->t->shape[0];
		if (n < 0)
			return error_set(err, target->line, target->col, "cannot unpack %s into %d names",
					 value_type_name(v), target->nkids);
		if (n != target->nkids)
			return error_set(err, target->line, target->col, "%d values to unpack into %d names",
					 n, target->nkids);
		for (int i = 0; i < n; i++) {
			struct value *item;
			if (v->kind == V_TENSOR) {
				struct tensor *t = ops_select(v->t, 0, i, err);
				item = value_from_result(t);
			} else {
				item = value_ref(v->items[i]);
			}
			int rc = collect_bindings(I, target->kids[i], item, out, count, cap, err);
			value_unref(item);
			if (rc < 0)
				return -1;
		}
		return 0;
	}
	if (target->kind == N_INDEX)
		return assign_index(I, target, v, err);
	if (target->kind == N_ATTR)
		return assign_attr(I, target, v, err);
	return error_set(err, target->line, target->col, "cannot assign to this expression");
}

static int assign_to(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	struct binding b[64];
	int count = 0;
	int rc = collect_bindings(I, target, v, b, &count, 64, err);
	if (rc == 0)
		for (int i = 0; i < count; i++)
			interp_set(I, b[i].name, value_ref(b[i].v));
	for (int i = 0; i < count; i++)
		value_unref(b[i].v);
	return rc;
}

static int exec_import(struct interp *I, const struct node *n, struct qkv_error *err)
{
	for (int i = 0; i < n->nkids; i++) {
		const struct node *nm = n->kids[i];
		const char *as = n->kwnames ? n->kwnames[i] : NULL;
		struct value *v = NULL;
		const char *bind;
		char root[64];
		if (strcmp(n->str, nm->str) == 0) {	/* import a.b [as c] */
			if (!runtime_module_exists(nm->str))
				goto unknown;
			size_t len = strcspn(nm->str, ".");
			if (len >= sizeof root)
				goto unknown;
			memcpy(root, nm->str, len);
			root[len] = 0;
			v = value_named(V_MODULE, as ? nm->str : root);
			bind = as ? as : root;
		} else {	/* from a.b import c [as d] */
			char path[256];
			snprintf(path, sizeof path, "%s.%s", n->str, nm->str);
			if (runtime_module_exists(path)) {
				v = value_named(V_MODULE, path);
			} else if (runtime_module_exists(n->str)) {
				v = runtime_module_attr(n->str, nm->str);
				if (!v) {
					error_set(err, nm->line, nm->col, "cannot import name '%s' from '%s': qkv does "
						  "not provide it", nm->str, n->str);
					return -1;
				}
			} else {
				goto unknown;
			}
			bind = as ? as : nm->str;
		}
		/* numpy is known as np, torch.nn as nn, ...: skip rebinding the same thing */
		struct value *g = runtime_global(bind);
		bool same = g && g->kind == v->kind && g->str && v->str && strcmp(g->str, v->str) == 0;
		value_unref(g);
		if (same)
			value_unref(v);
		else
			interp_set(I, bind, v);
		continue;
unknown:
		value_unref(v);
		error_set(err, n->line, n->col, "no module named '%s' in qkv (it provides torch, torch.nn, "
			  "torch.nn.functional, numpy, scipy.special and math)", n->str);
		return -1;
	}
	return 0;
}

static int exec_stmt(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *v = NULL;
	int rc = 0;
	switch (n->kind) {
	case N_PASS:
		return 0;
	case N_IMPORT:
		return exec_import(I, n, err);
	case N_EXPR:
		v = eval(I, n->kids[0], err);
		if (!v)
			return -1;
		if (v->kind != V_NONE && I->emit) {
			struct strbuf sb;
			strbuf_init(&sb);
			value_repr(&sb, v);
			I->emit(I->udata, v, sb.s);
			strbuf_free(&sb);
		}
		if (v->kind != V_NONE && I->observe)
			I->observe(I->observe_udata, v);
		value_unref(v);
		return 0;
	case N_ASSIGN:
		v = eval(I, n->kids[1], err);
		if (!v)
			return -1;
		rc = assign_to(I, n->kids[0], v, err);
		if (rc == 0 && I->observe)
			I->observe(I->observe_udata, v);
		value_unref(v);
		return rc;
	case N_AUGASSIGN: {
		const struct node *target = n->kids[0];
		struct value *old = eval(I, target, err);
		if (!old)
			return -1;
		struct value *rhs = eval(I, n->kids[1], err);
		if (!rhs) {
			value_unref(old);
			return -1;
		}
		v = interp_check_interrupt(I, n, err) < 0 ? NULL : binop(I, n->op, old, rhs, err);
		if (!v) {
			error_locate(err, n->line, n->col);
		} else if (old->kind == V_TENSOR && v->kind == V_TENSOR) {
			/* x += y on a tensor writes into x (and every view of it) */
			if (v->t->dtype != old->t->dtype && dtype_is_float(v->t->dtype) && !dtype_is_float(old->t->dtype)) {
				error_set(err, n->line, n->col, "the result of type %s cannot be stored in place in an "
					  "%s tensor", dtype_name(v->t->dtype), dtype_name(old->t->dtype));
				rc = -1;
			} else if ((rc = autograd_write(I, n->op, old->t, rhs, err)) < 0) {
				error_locate(err, n->line, n->col);
			} else {
				interp_will_write(I, old->t->storage);
				rc = ops_assign(old->t, v->t, err);
				if (rc < 0)
					error_locate(err, n->line, n->col);
			}
		} else {
			rc = assign_to(I, target, v, err);
		}
		value_unref(old);
		value_unref(rhs);
		if (!v)
			return -1;
		value_unref(v);
		return rc;
	}
	default:
		return error_set(err, n->line, n->col, "not a statement");
	}
}

enum interp_status interp_run(struct interp *I, const char *src, size_t len, int first_line,
			      int flags, struct qkv_error *err)
{
	struct parser *p = parser_new(src, len, first_line);
	enum interp_status status = INTERP_OK;
	bool dry = flags & INTERP_DRY_RUN;
	bool atomic = (flags & INTERP_ATOMIC) || dry;
	/* keep the log of every statement, for an interrupt to undo them all */
	bool whole = atomic || (flags & INTERP_UNDO_ALL_ON_INTERRUPT);
	struct torch_gen torch_start = I->torch_rng;
	struct np_gen np_start = I->np_rng;
	int start = I->nundo;
	I->log_bindings = whole;
	for (;;) {
		struct node *stmt = NULL;
		error_clear(err);
		enum parse_status ps = parser_next(p, &stmt, err);
		if (ps == PARSE_END)
			break;
		if (ps == PARSE_INCOMPLETE || ps == PARSE_ERROR) {
			status = ps == PARSE_INCOMPLETE ? INTERP_INCOMPLETE : INTERP_ERROR;
			break;
		}
		struct torch_gen torch_saved = I->torch_rng;
		struct np_gen np_saved = I->np_rng;
		size_t span_start, span_end;
		parser_last_span(p, &I->stmt_first, &span_start, &span_end);
		I->stmt_last = I->stmt_first;
		for (size_t b = span_start; b < span_end && b < len; b++)
			I->stmt_last += src[b] == '\n';
		I->undo_mark = atomic ? start : I->nundo;	/* atomic: never undone alone */
		int rc = interp_check_interrupt(I, stmt, err);
		if (rc == 0)
			rc = exec_stmt(I, stmt, err);
		/* a Ctrl-C during the statement's last operation undoes it too:
		 * whatever the interrupt arrived during is cancelled */
		if (rc == 0)
			rc = interp_check_interrupt(I, stmt, err);
		if (rc < 0 && err->line == 0) {
			err->line = stmt->line;
			err->col = stmt->col;
		}
		node_free(stmt);
		if (rc < 0) {
			status = interp_interrupted(I) ? INTERP_INTERRUPTED : INTERP_ERROR;
			if (!atomic && !(whole && status == INTERP_INTERRUPTED)) {
				undo_unwind(I, I->undo_mark, true);
				I->torch_rng = torch_saved;
				I->np_rng = np_saved;
			}
			break;
		}
		if (!whole)
			undo_clear(I, false);
		if (I->quit)
			break;
	}
	I->undo_mark = start;
	if (whole) {
		/* atomic: a failure or a dry run undoes everything; per statement
		 * (the failing statement is undone above): an interrupt does */
		bool undo = atomic ? status != INTERP_OK || dry : status == INTERP_INTERRUPTED;
		undo_unwind(I, start, undo);
		if (undo) {
			I->torch_rng = torch_start;
			I->np_rng = np_start;
		}
	}
	I->log_bindings = false;
	parser_free(p);
	return status;
}

enum interp_status interp_check_complete(const char *src, size_t len)
{
	struct parser *p = parser_new(src, len, 1);
	struct qkv_error err;
	enum interp_status st = INTERP_OK;
	parser_set_interactive(p, true);
	for (;;) {
		struct node *stmt = NULL;
		enum parse_status ps = parser_next(p, &stmt, &err);
		node_free(stmt);
		if (ps == PARSE_INCOMPLETE)
			st = INTERP_INCOMPLETE;
		if (ps != PARSE_OK)
			break;
	}
	parser_free(p);
	return st;
}

struct value *interp_eval(struct interp *I, const char *src, size_t len, struct qkv_error *err)
{
	struct parser *p = parser_new(src, len, 1);
	struct node *stmt = NULL;
	struct value *v = NULL;
	error_clear(err);
	enum parse_status ps = parser_next(p, &stmt, err);
	if (ps == PARSE_OK && stmt->kind != N_EXPR) {
		error_set(err, stmt->line, stmt->col, "expected an expression, not a statement");
	} else if (ps == PARSE_OK) {
		struct node *extra = NULL;
		struct qkv_error e2;
		if (parser_next(p, &extra, &e2) != PARSE_END) {
			error_set(err, extra ? extra->line : e2.line, extra ? extra->col : e2.col,
				  "expected one expression");
		} else {
			struct torch_gen torch_saved = I->torch_rng;
			struct np_gen np_saved = I->np_rng;
			bool log = I->log_bindings;
			int mark = I->nundo, saved_mark = I->undo_mark;
			I->log_bindings = true;
			I->undo_mark = mark;
			v = eval(I, stmt->kids[0], err);
			if (v && interp_check_interrupt(I, stmt, err) < 0) {
				value_unref(v);
				v = NULL;
			}
			undo_unwind(I, mark, true);	/* an expression leaves no trace */
			I->undo_mark = saved_mark;
			I->log_bindings = log;
			I->torch_rng = torch_saved;
			I->np_rng = np_saved;
		}
		node_free(extra);
	} else if (ps == PARSE_END) {
		error_set(err, 1, 1, "the expression is empty");
	}
	node_free(stmt);
	parser_free(p);
	return v;
}

/* ---- completion -------------------------------------------------------------- */

struct completion {
	const char *module;      /* "torch.nn." style prefix to match, or NULL */
	const char *prefix;
	void (*fn)(void *, const char *);
	void *udata;
};

static void complete_qualified(void *udata, const char *q)
{
	struct completion *c = udata;
	size_t ml = strlen(c->module);
	if (strncmp(q, c->module, ml) != 0)
		return;
	const char *rest = q + ml;
	if (strchr(rest, '.'))
		return;	/* a deeper name: torch.nn.Linear is not torch.<...> */
	if (strncmp(rest, c->prefix, strlen(c->prefix)) == 0)
		c->fn(c->udata, rest);
}

void interp_complete(const struct interp *I, const char *context, const char *prefix,
		     void (*fn)(void *udata, const char *name), void *udata)
{
	size_t pl = strlen(prefix);
	if (!context) {
		for (int i = 0; i < I->nvars; i++)
			if (strncmp(I->names[i], prefix, pl) == 0)
				fn(udata, I->names[i]);
		static const char *const globals[] = { "torch", "nn", "F", "np", "math", "softmax", "print", "len",
						       "float", "int", "abs", "round", "min", "max", "sum", "range",
						       "list", "tuple", "str", "True", "False", "None", NULL };
		for (int i = 0; globals[i]; i++)
			if (strncmp(globals[i], prefix, pl) == 0)
				fn(udata, globals[i]);
		return;
	}
	/* what the context names: a module alias, a module path, or a value */
	char module[160];
	struct value *v = interp_get(I, context);
	struct value *g = v ? NULL : runtime_global(context);
	const struct value *m = v ? v : g;
	if (m && m->kind == V_MODULE)
		snprintf(module, sizeof module, "%s.", m->str);
	else if ((m && m->kind == V_TENSOR) || (!m && strcmp(context, "Tensor") == 0))
		snprintf(module, sizeof module, "Tensor.");	/* a tensor's methods (:help Tensor) */
	else if (!m && runtime_module_exists(context))
		snprintf(module, sizeof module, "%s.", context);
	else
		module[0] = 0;
	value_unref(g);
	if (!module[0])
		return;
	struct completion c = { module, prefix, fn, udata };
	runtime_each_name(complete_qualified, &c);
}
