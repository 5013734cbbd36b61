/* exec.c: the statement half of the tree walker: assignment and unpacking,
 * if/for/while/with/del/assert/return, def and class, imports, magics, and
 * interp_run / interp_eval, which make each statement a transaction (the
 * undo log of workspace.c and the random streams). Never prints (output goes
 * through the emit callback), never exits. */
#include "lang/autograd.h"
#include "lang/interp.h"
#include "lang/magic.h"
#include "lang/parser.h"
#include "lang/runtime.h"
#include "core/mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- assignment ------------------------------------------------------------------ */

/* x[...] = v: writes into a tensor in place, or sets a list item or dict entry */
static int assign_index(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	struct value *base = eval_expr(I, target->kids[0], err);
	if (!base)
		return -1;
	int rc = -1;
	if (base->kind == V_TENSOR) {
		bool advanced;
		struct tensor *view = eval_index_tensor(I, base->t, target, true, &advanced, err);
		if (view) {
			if (v->kind != V_TENSOR && !value_is_number(v)) {
				error_set(err, target->line, target->col, "cannot assign %s into a tensor", value_type_name(v));
			} else if (autograd_write(I, 0, base->t, v, err) < 0) {
				error_locate(err, target->line, target->col);
			} else {
				struct ops_number box;
				struct operand o = eval_operand(v, &box);
				interp_will_write(I, view->storage);
				rc = ops_assign(view, o.t, err);
				if (rc < 0)
					error_locate(err, target->line, target->col);
			}
			tensor_unref(view);
		}
	} else if (target->nkids == 2 && target->kids[1]->kind == N_SLICE) {
		bool hs, he, hst;
		int64_t s, e, st;
		if (eval_slice_bounds(I, target->kids[1], &hs, &s, &he, &e, &hst, &st, err) == 0) {
			if (hst && st != 1)
				error_set(err, target->line, target->col, "qkv assigns to slices of step 1 only");
			else
				rc = container_set_slice(I, base, hs, s, he, e, v, err);
		}
	} else if (target->nkids == 2) {
		struct value *key = eval_expr(I, target->kids[1], err);
		if (key) {
			rc = container_set_item(I, base, key, v, err);
			value_unref(key);
		}
	} else {
		error_set(err, target->line, target->col, "'%s' object does not support item assignment with "
			  "several indices", value_type_name(base));
	}
	if (rc < 0)
		error_locate(err, target->line, target->col);
	value_unref(base);
	return rc;
}

static int assign_attr(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	struct value *base = eval_expr(I, target->kids[0], err);
	if (!base)
		return -1;
	int rc = -1;
	const char *name = target->str;
	enum object_kind ok_kind = base->kind == V_OBJECT ? base->obj->kind : OBJ_DROPOUT;
	if (ok_kind != OBJ_DROPOUT &&
	    (strcmp(name, "weight") == 0 || (strcmp(name, "bias") == 0 && ok_kind != OBJ_EMBEDDING))) {
		/* a module's parameters: Linear's bias and LayerNorm's may be None */
		struct value **slot = name[0] == 'w' ? &base->obj->weight : &base->obj->bias;
		bool ok = v->kind == V_TENSOR || (v->kind == V_NONE && (name[0] == 'b' || ok_kind == OBJ_LAYERNORM));
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
	} else if (base->kind == V_INSTANCE || base->kind == V_CLASS) {
		rc = class_set_attr(I, base, name, v, err);
	} else {
		error_set(err, target->line, target->col, "AttributeError: cannot set attribute '%s' of %s", name,
			  value_type_name(base));
	}
	if (rc < 0)
		error_locate(err, target->line, target->col);
	value_unref(base);
	return rc;
}

/* a, *b, (c, d) = v */
static int assign_unpack(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	struct value *items;
	if (v->kind == V_LIST || v->kind == V_TUPLE || v->kind == V_SIZE) {
		items = value_ref(v);
	} else {
		items = runtime_to_list(I, v, err);
		if (!items) {
			error_set(err, target->line, target->col, "TypeError: cannot unpack non-iterable %s object",
				  value_type_name(v));
			return -1;
		}
	}
	int star = -1, nt = target->nkids;
	for (int i = 0; i < nt; i++)
		if (target->kids[i]->kind == N_STARRED)
			star = i;
	int n = items->n, rc = 0;
	if (star < 0 && n != nt) {
		if (n > nt)
			rc = error_set(err, target->line, target->col, "ValueError: too many values to unpack (expected %d)", nt);
		else
			rc = error_set(err, target->line, target->col, "ValueError: not enough values to unpack "
				       "(expected %d, got %d)", nt, n);
	} else if (star >= 0 && n < nt - 1) {
		rc = error_set(err, target->line, target->col, "ValueError: not enough values to unpack "
			       "(expected at least %d, got %d)", nt - 1, n);
	}
	for (int i = 0, k = 0; rc == 0 && i < nt; i++) {
		if (i == star) {
			int take = n - (nt - 1);
			struct value *rest = value_seq(V_LIST, 0);
			for (int j = 0; j < take; j++)
				value_list_push(rest, value_ref(items->items[k++]));
			rc = exec_assign(I, target->kids[i]->kids[0], rest, err);
			value_unref(rest);
		} else {
			rc = exec_assign(I, target->kids[i], items->items[k++], err);
		}
	}
	value_unref(items);
	return rc;
}

int exec_assign(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err)
{
	switch (target->kind) {
	case N_NAME: return scope_store(I, target, v, err);
	case N_TUPLE: case N_LIST: return assign_unpack(I, target, v, err);
	case N_INDEX: return assign_index(I, target, v, err);
	case N_ATTR: return assign_attr(I, target, v, err);
	default: return error_set(err, target->line, target->col, "SyntaxError: cannot assign to this expression");
	}
}

static int exec_import(struct interp *I, const struct node *n, struct qkv_error *err)
{
	for (int i = 0; i < n->nkids; i++) {
		const struct node *nm = n->kids[i];
		const char *as = n->kwnames ? n->kwnames[i] : NULL;
		struct value *v = NULL;
		const char *bind;
		char root[64];
		if (n->op == 'i') {	/* import a.b [as c] */
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
			  "torch.nn.functional, numpy, scipy.special, math and copy)", n->str);
		return -1;
	}
	return 0;
}


/* ---- compound statements ------------------------------------------------------ */

static int exec_body(struct interp *I, const struct node *n, struct qkv_error *err)
{
	I->block_depth++;
	int rc = exec_block(I, n, err);
	I->block_depth--;
	return rc;
}

/* A block whose bare expressions show nothing. */
static int exec_quiet(struct interp *I, const struct node *n, struct qkv_error *err)
{
	I->block_depth++;
	int rc = exec_block(I, n, err);
	I->block_depth--;
	return rc;
}

int exec_block(struct interp *I, const struct node *n, struct qkv_error *err)
{
	if (n->kind != N_BLOCK)
		return exec_stmt(I, n, err);
	for (int i = 0; i < n->nkids; i++) {
		int rc = exec_stmt(I, n->kids[i], err);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int test_truth(struct interp *I, const struct node *test, struct qkv_error *err)
{
	struct value *c = eval_expr(I, test, err);
	if (!c)
		return -1;
	int t = value_truth(c, err);
	value_unref(c);
	if (t < 0)
		error_locate(err, test->line, test->col);
	return t;
}

/* One pass of a loop's body: 0 go on, 1 leave the loop (break), else the
 * statement's result to pass up (error, return). */
static int loop_step(struct interp *I, const struct node *loop, const struct node *body, struct qkv_error *err)
{
	if (interp_check_interrupt(I, loop, err) < 0)
		return -1;
	int rc = exec_body(I, body, err);
	if (rc == EXEC_BREAK)
		return 1;
	if (rc == EXEC_CONTINUE || rc == 0)
		return 0;
	return rc == -1 ? -1 : 2 + rc;
}

static int loop_result(int step)
{
	return step == -1 ? -1 : step - 2;
}

static int exec_for(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *seq = eval_expr(I, n->kids[1], err);
	if (!seq)
		return -1;
	const struct node *target = n->kids[0], *body = n->kids[2];
	int step = 0;
	if (seq->kind == V_RANGE) {
		int64_t len = value_range_len(seq);
		for (int64_t k = 0; k < len && step == 0; k++) {
			struct value *x = value_int(seq->i + k * seq->step);
			int rc = exec_assign(I, target, x, err);
			value_unref(x);
			step = rc < 0 ? -1 : loop_step(I, n, body, err);
		}
	} else if (seq->kind == V_LIST || seq->kind == V_TUPLE || seq->kind == V_SIZE) {
		for (int k = 0; k < seq->n && step == 0; k++) {	/* a list may grow while it is walked */
			struct value *x = value_ref(seq->items[k]);
			int rc = exec_assign(I, target, x, err);
			value_unref(x);
			step = rc < 0 ? -1 : loop_step(I, n, body, err);
		}
	} else {
		struct value *it = runtime_iter(I, seq, err), *x;
		if (!it) {
			error_locate(err, n->kids[1]->line, n->kids[1]->col);
			value_unref(seq);
			return -1;
		}
		while (step == 0) {
			int more = runtime_next(I, it, &x, err);
			if (more <= 0) {
				step = more < 0 ? -1 : 0;
				break;
			}
			int rc = exec_assign(I, target, x, err);
			value_unref(x);
			step = rc < 0 ? -1 : loop_step(I, n, body, err);
		}
		value_unref(it);
	}
	value_unref(seq);
	if (step == 0 && n->nkids > 3 && n->kids[3])
		return exec_body(I, n->kids[3], err);
	return step == 1 ? 0 : step == 0 ? 0 : loop_result(step);
}

static int exec_while(struct interp *I, const struct node *n, struct qkv_error *err)
{
	int step = 0;
	for (;;) {
		if (interp_check_interrupt(I, n, err) < 0)
			return -1;
		int t = test_truth(I, n->kids[0], err);
		if (t < 0)
			return -1;
		if (!t)
			break;
		step = loop_step(I, n, n->kids[1], err);
		if (step != 0)
			break;
	}
	if (step == 0 && n->nkids > 2 && n->kids[2])
		return exec_body(I, n->kids[2], err);
	return step == 1 ? 0 : step == 0 ? 0 : loop_result(step);
}

static int exec_with(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *m = eval_expr(I, n->kids[0], err);
	if (!m)
		return -1;
	bool no_grad = m->kind == V_FUNC && (strcmp(m->str, "torch.no_grad") == 0 ||
					      strcmp(m->str, "torch.inference_mode") == 0);
	bool np_print = m->kind == V_FUNC && strcmp(m->str, "numpy.printoptions") == 0;
	if (!no_grad && !np_print) {
		value_unref(m);
		return error_set(err, n->kids[0]->line, n->kids[0]->col,
				 "qkv's `with` knows torch.no_grad() and np.printoptions() only");
	}
	/* np.printoptions: its options while the body runs, numpy's before put
	 * back after it however it ends; `as` names them as a dict */
	struct np_print_options np_before = I->g.print.np;
	if (np_print) {
		value_unref(m);
		I->g.print.np = I->with_np_print;
		m = printopts_numpy_dict(&I->g.print.np);
	}
	int rc = 0;
	if (n->kids[1])
		rc = exec_assign(I, n->kids[1], m, err);
	value_unref(m);
	if (rc == 0) {
		I->no_grad += no_grad;
		rc = exec_body(I, n->kids[2], err);
		I->no_grad -= no_grad;
	}
	if (np_print)
		I->g.print.np = np_before;
	return rc;
}

static int exec_del(struct interp *I, const struct node *n, struct qkv_error *err)
{
	for (int i = 0; i < n->nkids; i++) {
		const struct node *t = n->kids[i];
		int rc = -1;
		if (t->kind == N_NAME) {
			rc = scope_delete(I, t, err);
		} else if (t->kind == N_TUPLE || t->kind == N_LIST) {
			struct node fake = *n;
			fake.kids = t->kids;
			fake.nkids = t->nkids;
			rc = exec_del(I, &fake, err);
		} else if (t->kind == N_ATTR) {
			struct value *base = eval_expr(I, t->kids[0], err);
			if (base) {
				if (base->kind == V_INSTANCE || base->kind == V_CLASS)
					rc = class_del_attr(I, base, t->str, err);
				else
					error_set(err, t->line, t->col, "AttributeError: cannot delete attribute '%s' of %s",
						  t->str, value_type_name(base));
				value_unref(base);
			}
		} else if (t->kind == N_INDEX && t->nkids == 2) {
			struct value *base = eval_expr(I, t->kids[0], err);
			struct value *key = NULL;
			if (base && t->kids[1]->kind == N_SLICE) {
				bool hs, he, hst;
				int64_t s, e, st;
				if (eval_slice_bounds(I, t->kids[1], &hs, &s, &he, &e, &hst, &st, err) == 0) {
					struct value *empty = value_seq(V_LIST, 0);
					rc = hst && st != 1 ? error_set(err, t->line, t->col, "qkv deletes slices of step 1 only")
							   : container_set_slice(I, base, hs, s, he, e, empty, err);
					value_unref(empty);
				}
			} else if (base && (key = eval_expr(I, t->kids[1], err))) {
				rc = container_del_item(I, base, key, err);
			}
			value_unref(key);
			value_unref(base);
		} else {
			error_set(err, t->line, t->col, "SyntaxError: cannot delete this expression");
		}
		if (rc < 0) {
			error_locate(err, t->line, t->col);
			return -1;
		}
	}
	return 0;
}

static int exec_assert(struct interp *I, const struct node *n, struct qkv_error *err)
{
	int t = test_truth(I, n->kids[0], err);
	if (t != 0)
		return t < 0 ? -1 : 0;
	if (n->nkids < 2 || !n->kids[1])
		return error_set(err, n->line, n->col, "AssertionError");
	struct value *m = eval_expr(I, n->kids[1], err);
	if (!m)
		return -1;
	struct strbuf sb;
	strbuf_init(&sb);
	int rc = runtime_text(I, n->kids[1], m, false, &sb, err);
	value_unref(m);
	if (rc == 0)
		error_set(err, n->line, n->col, "AssertionError: %s", sb.s);
	strbuf_free(&sb);
	return -1;
}

/* Shows a top-level expression's value (as a notebook cell does): 0, or -1
 * with err when a __repr__ fails. */
static int echo(struct interp *I, const struct node *at, struct value *v, struct qkv_error *err)
{
	if (v->kind == V_NONE)
		return 0;
	interp_flush_print(I);
	if (I->emit) {
		struct strbuf sb;
		strbuf_init(&sb);
		if (runtime_text(I, at, v, true, &sb, err) < 0) {
			strbuf_free(&sb);
			error_locate(err, at->line, at->col);
			return -1;
		}
		I->emit(I->udata, v, sb.s);
		strbuf_free(&sb);
	}
	if (I->observe)	/* torch.return_types.max & co: their values are the tensor made */
		I->observe(I->observe_udata, v->kind == V_TUPLE && v->str ? v->items[0] : v);
	return 0;
}

static int exec_augassign(struct interp *I, const struct node *n, struct qkv_error *err)
{
	const struct node *target = n->kids[0];
	struct value *old = eval_expr(I, target, err);
	if (!old)
		return -1;
	struct value *rhs = eval_expr(I, n->kids[1], err);
	if (!rhs) {
		value_unref(old);
		return -1;
	}
	int rc = 0;
	struct value *v = NULL;
	if (old->kind == V_LIST && n->op == OP_ADD) {
		/* list += iterable extends the list itself */
		struct value *items = runtime_to_list(I, rhs, err);
		if (items && value_check_items(V_LIST, (int64_t)old->n + items->n, err) < 0) {
			value_unref(items);
			items = NULL;
		}
		if (!items) {
			rc = -1;
		} else {
			interp_will_change(I, old);
			for (int i = 0; i < items->n; i++)
				value_list_push(old, value_ref(items->items[i]));
			value_unref(items);
			v = value_ref(old);
		}
	} else if (old->kind == V_SET && rhs->kind == V_SET && (n->op == OP_BITOR || n->op == OP_BITAND ||
								 n->op == OP_SUB || n->op == OP_BITXOR)) {
		/* s |= t, s &= t, s -= t, s ^= t change the set itself, as CPython's (its order depends on it) */
		interp_will_change(I, old);
		if (n->op == OP_BITOR) {
			value_set_merge(old, rhs);
		} else if (n->op == OP_BITXOR) {
			value_set_symmetric_difference_update(old, rhs);
		} else if (n->op == OP_SUB) {
			value_set_difference_update(old, rhs);
		} else {
			struct value *both = value_set_intersection(old, rhs);
			value_set_take_body(old, both);
			value_unref(both);
		}
		v = value_ref(old);
	} else {
		v = interp_check_interrupt(I, n, err) < 0 ? NULL : eval_binop(I, n->op, old, rhs, err);
		rc = v ? 0 : -1;
	}
	if (!v) {
		error_locate(err, n->line, n->col);
	} else if (old->kind == V_TENSOR && v->kind == V_TENSOR &&
		   !(rhs->kind == V_TENSOR && rhs->t->flavor != old->t->flavor && rhs->t->ndim > 0)) {
		/* x += y on a tensor writes into x (and every view of it); with a
		 * numpy array, a tensor's += is refused and Python's x = x + y
		 * makes a new one */
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
	} else if (v != old) {
		rc = exec_assign(I, target, v, err);
	}
	value_unref(old);
	value_unref(rhs);
	value_unref(v);
	return rc;
}

int exec_stmt(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *v = NULL;
	int rc = 0;
	bool top = I->block_depth == 0 && !I->frame;
	switch (n->kind) {
	case N_PASS:
	case N_GLOBAL:
	case N_NONLOCAL:
		return 0;
	case N_IMPORT:
		return exec_import(I, n, err);
	case N_EXPR:
		v = eval_expr(I, n->kids[0], err);
		if (!v)
			return -1;
		rc = top ? echo(I, n->kids[0], v, err) : 0;
		value_unref(v);
		return rc;
	case N_ASSIGN:
		v = eval_expr(I, n->kids[1], err);
		if (!v)
			return -1;
		rc = exec_assign(I, n->kids[0], v, err);
		if (rc == 0 && top && I->observe)
			I->observe(I->observe_udata, v->kind == V_TUPLE && v->str ? v->items[0] : v);
		value_unref(v);
		return rc;
	case N_AUGASSIGN:
		return exec_augassign(I, n, err);
	case N_BLOCK:
		return exec_block(I, n, err);
	case N_IF: {
		int t = test_truth(I, n->kids[0], err);
		if (t < 0)
			return -1;
		if (t)
			return exec_body(I, n->kids[1], err);
		if (n->nkids > 2 && n->kids[2])
			return n->kids[2]->kind == N_IF ? exec_stmt(I, n->kids[2], err) : exec_body(I, n->kids[2], err);
		return 0;
	}
	case N_FOR:
		return exec_for(I, n, err);
	case N_WHILE:
		return exec_while(I, n, err);
	case N_BREAK:
		return EXEC_BREAK;
	case N_CONTINUE:
		return EXEC_CONTINUE;
	case N_RETURN:
		if (!I->frame || I->frame->ns)
			return error_set(err, n->line, n->col, "SyntaxError: 'return' outside function");
		v = n->nkids && n->kids[0] ? eval_expr(I, n->kids[0], err) : value_none();
		if (!v)
			return -1;
		value_unref(I->frame->ret);
		I->frame->ret = v;
		return EXEC_RETURN;
	case N_ASSERT:
		return exec_assert(I, n, err);
	case N_WITH:
		return exec_with(I, n, err);
	case N_DEL:
		return exec_del(I, n, err);
	case N_DEF:
		v = scope_make_function(I, n, err);
		if (!v)
			return -1;
		rc = scope_store_def(I, n, v, err);
		value_unref(v);
		return rc;
	case N_CLASS:
		return class_exec(I, n, err);
	case N_MAGIC:
		/* %timeit runs its statement many times and shows no value, as IPython */
		return magic_run(I, n, strcmp(n->str, "timeit") == 0 ? exec_quiet : exec_block, err);
	default:
		return error_set(err, n->line, n->col, "not a statement");
	}
}

/* ---- running source ---------------------------------------------------------------- */

/* exec_stmt, where a large block that cannot be had (a tensor, a long list
 * or string past the memory left: core/mem.h's trap) ends the statement with
 * a MemoryError instead of the session: the interpreter's own state is put
 * back as it was, and interp_run undoes the statement as any failed one.
 * What its calls held on the C stack is not freed (a leak of the statement's
 * temporaries, each at most what the memory held). */
static int exec_trapped(struct interp *I, const struct node *stmt, struct qkv_error *err)
{
	const struct {
		struct frame *frame;
		int depth, block_depth, no_grad, tb_line, running;
		const char *stack_base;
		interp_emit_fn emit;
		void *udata;
		struct value *gc;
	} saved = { I->frame, I->depth, I->block_depth, I->no_grad, I->tb_line, I->running, I->stack_base,
		    I->emit, I->udata, value_gc_use(NULL) };
	value_gc_use(saved.gc);
	struct mem_trap trap;
	mem_trap_push(&trap);
	if (setjmp(trap.env) == 0) {
		int rc = exec_stmt(I, stmt, err);
		mem_trap_pop(&trap);
		mem_pressure_clear();	/* the statement is over (its MemoryError, if any, given) */
		return rc;
	}
	mem_pressure_clear();
	value_gc_use(saved.gc);
	I->frame = saved.frame;
	I->depth = saved.depth;
	I->block_depth = saved.block_depth;
	I->no_grad = saved.no_grad;
	I->tb_line = saved.tb_line;
	I->running = saved.running;
	I->stack_base = saved.stack_base;
	I->emit = saved.emit;
	I->udata = saved.udata;
	/* at the statement's start: which of its operations asked is not known */
	if (trap.asked == SIZE_MAX)
		return error_set(err, I->stmt_first, 1, "MemoryError: out of memory (asked for more bytes than a "
				 "64-bit count holds); the statement was undone");
	return error_set(err, I->stmt_first, 1, "MemoryError: out of memory (asked for %zu bytes); the "
			 "statement was undone", trap.asked);
}

/* Runs one top-level statement with its names resolved. */
static int exec_top(struct interp *I, struct node *stmt, struct qkv_error *err)
{
	struct code_tree *ct = scope_resolve(stmt, err);
	if (!ct) {
		node_free(stmt);
		return -1;
	}
	struct code_tree *saved = I->code;
	I->code = ct;
	int rc = exec_trapped(I, stmt, err);
	I->code = saved;
	code_tree_unref(ct);
	if (rc > 0) {
		const char *what = rc == EXEC_RETURN ? "'return' outside function" : rc == EXEC_BREAK ?
				   "'break' outside loop" : "'continue' not properly in loop";
		return error_set(err, stmt->line, stmt->col, "SyntaxError: %s", what);
	}
	return rc;
}

/* What a run inside a running statement (an emit callback running more
 * code) must put back: the top level is its own. */
struct run_saved {
	struct value *gc;
	struct frame *frame;
	struct code_tree *code;
	int block_depth, tb_line;
	const struct print_options *print;	/* the ones in use before */
};

/* While statements run, the kernels stop at the interrupt flag too, between
 * their blocks, so that one long matmul ends at Ctrl-C (or a lesson step's
 * time limit) like a loop does: the flag becomes the stop flag of the
 * thread's kernel control (one a caller registered to read the progress,
 * ui/job.c), or of the interpreter's own. Without a flag the caller's stays. */
static void kernels_follow(struct interp *I)
{
	I->kernels_outer = kernel_ctl_get();
	if (!I->kernels_outer) {
		I->kernels = (struct kernel_ctl){ .stop = I->interrupt };
		kernel_ctl_use(&I->kernels);
	} else if (I->interrupt) {
		I->kernels_outer_stop = I->kernels_outer->stop;
		I->kernels_outer->stop = I->interrupt;
	}
}

static void kernels_unfollow(struct interp *I)
{
	if (!I->kernels_outer)
		kernel_ctl_use(NULL);
	else if (I->interrupt)
		I->kernels_outer->stop = I->kernels_outer_stop;
}

/* Enters or leaves running statements: bindings logged, containers tracked,
 * the C stack's base noted for the depth guard, the kernels following the
 * interrupt flag. */
static struct run_saved run_enter(struct interp *I)
{
	char here;
	if (I->running++ == 0) {
		I->stack_base = &here;
		kernels_follow(I);
	}
	struct run_saved r = { value_gc_use(I->gc), I->frame, I->code, I->block_depth, I->tb_line,
			       format_use_options(&I->g.print) };
	I->frame = NULL;
	I->block_depth = 0;
	I->tb_line = 0;
	return r;
}

static void run_leave(struct interp *I, struct run_saved r)
{
	if (--I->running == 0) {
		I->stack_base = NULL;
		kernels_unfollow(I);
	}
	value_gc_use(r.gc);
	I->frame = r.frame;
	I->code = r.code;
	I->block_depth = r.block_depth;
	I->tb_line = r.tb_line;
	format_use_options(r.print);
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
	struct interp_state start_state = I->g;
	int start = I->nundo, mark_before = I->undo_mark;
	struct run_saved gc = run_enter(I);
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
		struct interp_state saved_state = I->g;
		size_t span_start, span_end;
		parser_last_span(p, &I->stmt_first, &span_start, &span_end);
		I->stmt_last = I->stmt_first;
		for (size_t b = span_start; b < span_end && b < len; b++)
			I->stmt_last += src[b] == '\n';
		interp_begin_txn(I);
		I->undo_mark = atomic ? start : I->nundo;	/* atomic: never undone alone */
		int line = stmt->line, col = stmt->col;
		int rc = interp_check_interrupt(I, stmt, err);
		if (rc == 0)
			rc = exec_top(I, stmt, err);	/* frees stmt */
		else
			node_free(stmt);
		/* a Ctrl-C during the statement's last operation undoes it too:
		 * whatever the interrupt arrived during is cancelled */
		if (rc == 0 && interp_interrupted(I))
			rc = error_set(err, line, col, "interrupted (Ctrl-C)");
		if (rc < 0 && err->line == 0) {
			err->line = line;
			err->col = col;
		}
		if (rc < 0) {
			status = interp_interrupted(I) ? INTERP_INTERRUPTED : INTERP_ERROR;
			if (!atomic && !(whole && status == INTERP_INTERRUPTED)) {
				interp_undo_unwind(I, I->undo_mark, true);
				I->g = saved_state;
			}
			break;
		}
		if (!whole)
			interp_undo_unwind(I, start, false);
		if (I->quit)
			break;
	}
	I->undo_mark = start;
	if (whole) {
		/* atomic: a failure or a dry run undoes everything; per statement
		 * (the failing statement is undone above): an interrupt does */
		bool undo = atomic ? status != INTERP_OK || dry : status == INTERP_INTERRUPTED;
		interp_undo_unwind(I, start, undo);
		if (undo) {
			I->g = start_state;
		}
	}
	I->undo_mark = mark_before < start ? mark_before : start;
	interp_begin_txn(I);
	interp_flush_print(I);
	run_leave(I, gc);
	parser_free(p);
	return status;
}

void interp_flush_print(struct interp *I)
{
	char *text = I->print_pending;
	if (!text)
		return;
	I->print_pending = NULL;
	if (I->emit)
		I->emit(I->udata, NULL, text);
	free(text);
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

size_t interp_local_split(const char *src, size_t len)
{
	size_t end = len;
	while (end > 0 && isspace((unsigned char)src[end - 1]))
		end--;
	size_t k = end;
	while (k > 0 && (isalnum((unsigned char)src[k - 1]) || src[k - 1] == '_'))
		k--;
	if (k == end || k == 0 || isdigit((unsigned char)src[k]) || src[k - 1] != ':')
		return 0;
	int depth = 0;
	char quote = 0;
	for (size_t i = 0; i + 1 < k; i++) {
		char ch = src[i];
		if (quote) {
			if (ch == '\\')
				i++;
			else if (ch == quote)
				quote = 0;
		} else if (ch == '\'' || ch == '"') {
			quote = ch;
		} else if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (ch == ')' || ch == ']' || ch == '}') {
			depth--;
		}
	}
	if (depth != 0 || quote)
		return 0;
	/* "lambda x: y" is an expression, not EXPR:NAME */
	for (size_t i = 0; i + 6 <= k; i++)
		if (strncmp(src + i, "lambda", 6) == 0)
			return 0;
	return k - 1;
}

/* The local `name` of the most recent call of what fnv is (a function, a
 * method, or a module instance: its forward). */
static struct value *last_local(struct value *fnv, const char *name, const char *src, size_t len,
				struct qkv_error *err)
{
	struct value *f = fnv;
	struct value *forward = NULL;
	if (fnv->kind == V_INSTANCE) {
		struct qkv_error e;
		forward = class_attr(NULL, fnv, "forward", &e);
		f = forward;
	}
	struct value *r = NULL;
	if (f && (f->kind == V_FUNCTION || f->kind == V_BOUND)) {
		bool elsewhere;
		r = scope_last_local(f, name, &elsewhere);
		if (!r && elsewhere)
			error_set(err, 1, 1, "the last call of '%.*s' was on another object: call it on this one "
				  "first to see its '%s'", (int)len, src, name);
		else if (!r)
			error_set(err, 1, (int)len + 2, "'%.*s' made no local named '%s' in its last call (or was "
				  "never called)", (int)len, src, name);
	} else {
		error_set(err, 1, 1, "EXPR:NAME needs a function or method before the ':', not %s",
			  value_type_name(fnv));
	}
	value_unref(forward);
	return r;
}

struct value *interp_eval(struct interp *I, const char *src, size_t len, struct qkv_error *err)
{
	size_t split = interp_local_split(src, len);
	char *local = NULL;
	if (split) {
		size_t k = split + 1, end = len;
		while (end > k && isspace((unsigned char)src[end - 1]))
			end--;
		local = xstrndup(src + k, end - k);
		len = split;
	}
	struct parser *p = parser_new(src, len, 1);
	struct node *stmt = NULL;
	struct value *v = NULL;
	error_clear(err);
	enum parse_status ps = parser_next(p, &stmt, err);
	if (ps == PARSE_OK && stmt->kind != N_EXPR) {
		error_set(err, stmt->line, stmt->col, "expected an expression, not a statement");
		node_free(stmt);
	} else if (ps == PARSE_OK) {
		struct node *extra = NULL;
		struct qkv_error e2;
		if (parser_next(p, &extra, &e2) != PARSE_END) {
			error_set(err, extra ? extra->line : e2.line, extra ? extra->col : e2.col,
				  "expected one expression");
			node_free(stmt);
		} else {
			struct interp_state saved_state = I->g;
			int mark = I->nundo, saved_mark = I->undo_mark;
			unsigned saved_txn = I->txn;
			struct run_saved gc = run_enter(I);
			interp_begin_txn(I);
			I->undo_mark = mark;
			struct code_tree *ct = scope_resolve(stmt, err);
			if (ct) {
				struct code_tree *saved = I->code;
				I->code = ct;
				v = eval_expr(I, stmt->kids[0], err);
				I->code = saved;
				code_tree_unref(ct);	/* frees stmt unless a lambda keeps it */
			} else {
				node_free(stmt);
			}
			if (v && interp_check_interrupt(I, NULL, err) < 0) {
				value_unref(v);
				v = NULL;
			}
			interp_undo_unwind(I, mark, true);	/* an expression leaves no trace */
			I->undo_mark = saved_mark;
			run_leave(I, gc);
			I->txn = saved_txn;
			I->g = saved_state;
		}
		node_free(extra);
	} else if (ps == PARSE_END) {
		error_set(err, 1, 1, "the expression is empty");
	}
	parser_free(p);
	if (v && local) {
		struct value *r = last_local(v, local, src, len, err);
		value_unref(v);
		v = r;
	}
	free(local);
	return v;
}
