/* workspace.c: the interpreter's state: the workspace of named values, the
 * undo log that makes each statement a transaction (in-place tensor writes,
 * names bound, container and attribute changes, each saved once per
 * statement), clones and freeing (with the cycle collector). Used by the
 * tree walker (exec.c, eval.c); never evaluates anything itself. */
#include "lang/interp.h"
#include "lang/runtime.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

struct interp *interp_new(enum kernel_variant variant)
{
	struct interp *I = xcalloc(1, sizeof *I);
	ops_ctx_init(&I->ops, variant);
	torch_gen_seed(&I->g.torch_rng, TORCH_DEFAULT_SEED);
	np_gen_seed(&I->g.np_rng, NP_DEFAULT_SEED);
	I->g.print = format_defaults;
	I->gc = value_gc_list();
	I->txn = I->txn_counter = 1;
	return I;
}

static void undo_unwind_all(struct interp *I);

void interp_free(struct interp *I)
{
	if (!I)
		return;
	undo_unwind_all(I);
	free(I->undo);
	free(I->print_pending);
	for (int i = 0; i < I->nvars; i++) {
		free(I->names[i]);
		value_unref(I->vals[i]);
	}
	free(I->names);
	free(I->vals);
	free(I->var_txn);
	/* what is left of the values made here are reference cycles */
	struct value *old = value_gc_use(NULL);
	value_gc_collect(I->gc, true);
	value_gc_use(old == I->gc ? NULL : old);
	free(I);
}

/* What a deep copy has copied so far (old -> new), so a container that holds
 * itself, or one held twice, is copied once, as copy.deepcopy does. */
struct memo {
	struct value **from, **to;
	int n, cap;
	bool python;   /* copy.deepcopy's: classes and functions are shared, as Python shares them */
	bool nonleaf;  /* (python) it met a tensor torch refuses to deep-copy */
};

static struct value *memo_find(const struct memo *m, const struct value *v)
{
	for (int i = 0; i < m->n; i++)
		if (m->from[i] == v)
			return m->to[i];
	return NULL;
}

static struct value *memo_add(struct memo *m, struct value *from, struct value *to)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->from = xrealloc(m->from, sizeof *m->from * (size_t)m->cap);
		m->to = xrealloc(m->to, sizeof *m->to * (size_t)m->cap);
	}
	m->from[m->n] = from;
	m->to[m->n++] = to;
	return to;
}

/* A copy of v that shares no tensor storage, container, function, class or
 * instance with it (a clone's values form their own reference cycles, which
 * its interp_free frees). Containers nested deeper than COPY_MAX_DEPTH are
 * shared rather than copied (the C stack stays small). */
#define COPY_MAX_DEPTH 500

static struct value *deep_copy(struct value *v, struct memo *m, int depth)
{
	struct value *seen = memo_find(m, v);
	if (seen)
		return value_ref(seen);
	if (depth > COPY_MAX_DEPTH || (m->python && (v->kind == V_CLASS || v->kind == V_FUNCTION)))
		return value_ref(v);
	switch (v->kind) {
	case V_TENSOR: {
		if (m->python && v->t->grad.fn)
			m->nonleaf = true;
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
	case V_TUPLE:
	case V_SET: {
		struct value *n = memo_add(m, v, v->kind == V_SET ? value_set() : value_seq(v->kind, 0));
		for (int i = 0; i < v->n; i++)
			value_list_push(n, deep_copy(v->items[i], m, depth + 1));
		if (v->kind == V_SET)
			value_set_layout_copy(n, v);	/* CPython's table too, dummies and all */
		return n;
	}
	case V_DICT: {
		struct value *n = memo_add(m, v, value_dict());
		for (int i = 0; i < v->n; i++)
			value_dict_set(n, v->keys[i], deep_copy(v->items[i], m, depth + 1));
		return n;
	}
	case V_OBJECT: {
		struct object *o = xcalloc(1, sizeof *o);
		*o = *v->obj;
		o->weight = v->obj->weight ? deep_copy(v->obj->weight, m, depth + 1) : NULL;
		o->bias = v->obj->bias ? deep_copy(v->obj->bias, m, depth + 1) : NULL;
		return memo_add(m, v, value_object(o));
	}
	case V_INSTANCE: {
		struct inst *in = xcalloc(1, sizeof *in);
		struct value *n = memo_add(m, v, value_instance(in));
		in->cls = deep_copy(v->inst->cls, m, depth + 1);
		in->dict = deep_copy(v->inst->dict, m, depth + 1);
		in->params = v->inst->params ? deep_copy(v->inst->params, m, depth + 1) : NULL;
		in->buffers = v->inst->buffers ? deep_copy(v->inst->buffers, m, depth + 1) : NULL;
		in->modules = v->inst->modules ? deep_copy(v->inst->modules, m, depth + 1) : NULL;
		return n;
	}
	case V_CELL: {
		struct value *n = memo_add(m, v, value_cell(NULL));
		n->self = v->self ? deep_copy(v->self, m, depth + 1) : NULL;
		return n;
	}
	case V_FUNCTION: {
		const struct func *f = v->fn;
		struct func *g = xcalloc(1, sizeof *g);
		*g = *f;
		g->code->refs++;
		g->name = xstrdup(f->name);
		g->defaults = xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *g->defaults);
		g->cells = f->nfree ? xcalloc((size_t)f->nfree, sizeof *g->cells) : NULL;
		g->owner = NULL;
		g->last = NULL;
		g->nlast = 0;
		struct value *n = memo_add(m, v, value_function(g));
		for (int i = 0; i < f->nparams; i++)
			g->defaults[i] = f->defaults[i] ? deep_copy(f->defaults[i], m, depth + 1) : NULL;
		for (int i = 0; i < f->nfree; i++)
			g->cells[i] = deep_copy(f->cells[i], m, depth + 1);
		g->owner = f->owner ? deep_copy(f->owner, m, depth + 1) : NULL;
		if (f->last) {
			g->last = xcalloc((size_t)(f->nlast ? f->nlast : 1), sizeof *g->last);
			g->nlast = f->nlast;
			for (int i = 0; i < f->nlast; i++)
				g->last[i] = f->last[i] ? deep_copy(f->last[i], m, depth + 1) : NULL;
		}
		return n;
	}
	case V_CLASS: {
		struct klass *k = xcalloc(1, sizeof *k);
		k->name = xstrdup(v->cls->name);
		k->builtin = v->cls->builtin;
		struct value *n = memo_add(m, v, value_class(k));
		k->base = v->cls->base ? deep_copy(v->cls->base, m, depth + 1) : NULL;
		k->dict = deep_copy(v->cls->dict, m, depth + 1);
		return n;
	}
	case V_BOUND: {
		struct value *self = deep_copy(v->self, m, depth + 1), *fn = deep_copy(v->items[0], m, depth + 1);
		struct value *n = memo_add(m, v, value_bound(self, fn));
		value_unref(self);
		value_unref(fn);
		return n;
	}
	case V_METHOD: {
		struct value *self = deep_copy(v->self, m, depth + 1);
		struct value *n = memo_add(m, v, value_method(self, v->str));
		value_unref(self);
		return n;
	}
	default:
		return value_ref(v);
	}
}

struct value *runtime_deepcopy(struct value *v, struct qkv_error *err)
{
	struct memo m = { .python = true };
	struct value *c = deep_copy(v, &m, 0);
	free(m.from);
	free(m.to);
	if (!m.nonleaf)
		return c;
	value_unref(c);
	return error_set(err, 0, 0, "RuntimeError: Only Tensors created explicitly by the user (graph leaves) support "
			 "the deepcopy protocol at the moment"), NULL;
}

struct value *runtime_copy(struct value *v, struct qkv_error *err)
{
	struct value *n;
	switch (v->kind) {
	case V_LIST:
	case V_SET:
		n = v->kind == V_SET ? value_set() : value_seq(V_LIST, 0);
		for (int i = 0; i < v->n; i++)
			value_list_push(n, value_ref(v->items[i]));
		if (v->kind == V_SET)
			value_set_layout_copy(n, v);
		return n;
	case V_DICT:
		n = value_dict();
		for (int i = 0; i < v->n; i++)
			value_dict_set(n, v->keys[i], value_ref(v->items[i]));
		return n;
	case V_TENSOR:	/* a new tensor on the same storage, as torch's copy.copy gives */
		n = value_tensor(tensor_alias(v->t));
		n->parameter = v->parameter;
		return n;
	case V_INSTANCE:
	case V_OBJECT:
		return error_set(err, 0, 0, "copy.copy of a '%s' object is not supported in qkv: copy.deepcopy copies it "
				 "whole", value_type_name(v)), NULL;
	default:	/* numbers, strings, tuples, functions, classes, modules: themselves */
		return value_ref(v);
	}
}

struct interp *interp_clone(const struct interp *I)
{
	struct interp *c = interp_new(I->ops.variant);
	c->ops = I->ops;
	c->interrupt = I->interrupt;
	c->g = I->g;
	struct value *old = value_gc_use(c->gc);
	struct memo m = { 0 };
	for (int i = 0; i < I->nvars; i++)
		interp_set(c, I->names[i], deep_copy(I->vals[i], &m, 0));
	free(m.from);
	free(m.to);
	value_gc_use(old);
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

int interp_interrupt_error(const struct node *n, struct qkv_error *err)
{
	if (mem_pressure)
		return error_set(err, n ? n->line : 0, n ? n->col : 0, "MemoryError: out of memory; the statement "
				 "was undone");
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

const struct print_options *interp_print_options(const struct interp *I)
{
	return &I->g.print;
}

int interp_quit_status(const struct interp *I)
{
	return I->quit_status;
}

int interp_var_count(const struct interp *I)
{
	return I->nvars;
}

const char *interp_var_name(const struct interp *I, int i)
{
	return i >= 0 && i < I->nvars ? I->names[i] : NULL;
}

/* a and b are the same name: most names are a few bytes, where a loop
 * beats strcmp's call (several lookups a line in a loop over small tensors) */
static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static int var_find(const struct interp *I, const char *name)
{
	for (int i = 0; i < I->nvars; i++)
		if (same_name(I->names[i], name))
			return i;
	return -1;
}

struct value *interp_get(const struct interp *I, const char *name)
{
	int i = var_find(I, name);
	return i >= 0 ? I->vals[i] : NULL;
}

static struct undo *undo_push(struct interp *I);

/* Removes a name; returns whether it was bound. */
static bool unbind(struct interp *I, const char *name)
{
	int i = var_find(I, name);
	if (i < 0)
		return false;
	free(I->names[i]);
	value_unref(I->vals[i]);
	size_t rest = (size_t)(I->nvars - i - 1);
	memmove(I->names + i, I->names + i + 1, sizeof *I->names * rest);
	memmove(I->vals + i, I->vals + i + 1, sizeof *I->vals * rest);
	memmove(I->var_txn + i, I->var_txn + i + 1, sizeof *I->var_txn * rest);
	I->nvars--;
	return true;
}

/* Saves a name's binding before it changes, once per statement. */
static void log_binding(struct interp *I, const char *name, int i)
{
	if (!I->running || (i >= 0 && I->var_txn[i] == I->txn))
		return;
	struct undo *u = undo_push(I);
	u->name = xstrdup(name);
	u->old = i >= 0 ? value_ref(I->vals[i]) : NULL;
	if (i >= 0)
		I->var_txn[i] = I->txn;
}

void interp_set(struct interp *I, const char *name, struct value *v)
{
	int i = var_find(I, name);
	log_binding(I, name, i);
	if (i >= 0) {
		value_unref(I->vals[i]);
		I->vals[i] = v;
		return;
	}
	if (I->nvars == I->capvars) {
		int cap = I->capvars ? 2 * I->capvars : 16;
		I->names = xrealloc(I->names, sizeof *I->names * (size_t)cap);
		I->vals = xrealloc(I->vals, sizeof *I->vals * (size_t)cap);
		I->var_txn = xrealloc(I->var_txn, sizeof *I->var_txn * (size_t)cap);
		I->capvars = cap;
	}
	I->names[I->nvars] = xstrdup(name);
	I->vals[I->nvars] = v;
	I->var_txn[I->nvars] = I->running ? I->txn : 0;
	I->nvars++;
}

/* del name at top level: false when it was not bound. */
bool interp_unset(struct interp *I, const char *name)
{
	int i = var_find(I, name);
	if (i < 0)
		return false;
	log_binding(I, name, i);
	return unbind(I, name);
}

/* ---- the undo log ------------------------------------------------------------ */

static struct undo *undo_push(struct interp *I)
{
	if (I->nundo == I->capundo) {	/* the count after the block: a MemoryError leaves it right */
		int cap = I->capundo ? 2 * I->capundo : 8;
		I->undo = xrealloc(I->undo, sizeof *I->undo * (size_t)cap);
		I->capundo = cap;
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
	void *bytes = xmalloc(st->nbytes ? st->nbytes : 1);	/* before the entry: a MemoryError leaves none */
	memcpy(bytes, st->data, st->nbytes);
	struct undo *u = undo_push(I);
	u->st = st;
	st->refs++;
	u->bytes = bytes;
}

void interp_will_replace(struct interp *I, struct value **slot)
{
	struct undo *u = undo_push(I);
	u->slot = slot;
	u->old = value_ref(*slot);
}

void interp_will_change(struct interp *I, struct value *cont)
{
	if (!I->running || cont->txn == I->txn)
		return;
	if (cont->kind == V_CELL) {
		struct undo *u = undo_push(I);
		cont->txn = I->txn;
		u->cont = value_ref(cont);
		u->saved = xmalloc(sizeof *u->saved);
		u->saved[0] = value_ref(cont->self);
		u->nsaved = 1;
		return;
	}
	/* the copy first: a MemoryError (core/mem.h) leaves no half-made entry */
	int n = cont->n, total = cont->kind == V_DICT ? 2 * n : n;
	struct value **saved = xmalloc(sizeof *saved * (size_t)(total ? total : 1));
	struct pyset *layout = cont->kind == V_SET ? value_set_layout_save(cont) : NULL;
	struct undo *u = undo_push(I);
	cont->txn = I->txn;
	u->cont = value_ref(cont);
	u->saved = saved;
	for (int i = 0; i < n; i++)
		u->saved[i] = value_ref(cont->items[i]);
	for (int i = 0; cont->kind == V_DICT && i < n; i++)
		u->saved[n + i] = value_ref(cont->keys[i]);
	u->nsaved = n;
	u->layout = layout;
}

/* Puts a container's saved contents back (takes the saved references). */
static void restore_container(struct undo *u)
{
	struct value *c = u->cont;
	if (c->kind == V_CELL) {
		value_unref(c->self);
		c->self = u->saved[0];
		return;
	}
	int n = c->n;
	struct value **items = c->items, **keys = c->keys;
	value_index_drop(c);
	int cap = u->nsaved > 4 ? u->nsaved : 4;
	c->items = xcalloc((size_t)cap, sizeof *c->items);
	c->keys = c->kind == V_DICT ? xcalloc((size_t)cap, sizeof *c->keys) : NULL;
	c->cap = cap;
	c->n = u->nsaved;
	for (int i = 0; i < u->nsaved; i++) {
		c->items[i] = u->saved[i];
		if (c->keys)
			c->keys[i] = u->saved[u->nsaved + i];
	}
	if (c->kind == V_SET) {
		value_set_layout_restore(c, u->layout);	/* its table as it was: CPython's order goes on */
		u->layout = NULL;
	}
	for (int i = 0; i < n; i++) {
		value_unref(items[i]);
		if (keys)
			value_unref(keys[i]);
	}
	free(items);
	free(keys);
}

void interp_undo_unwind(struct interp *I, int from, bool restore)
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
				int running = I->running;
				I->running = 0;
				if (u->old)
					interp_set(I, u->name, u->old);
				else
					unbind(I, u->name);
				I->running = running;
			} else {
				value_unref(u->old);
			}
			free(u->name);
		} else if (u->cont) {
			if (restore) {
				restore_container(u);
			} else {
				int total = u->cont->kind == V_DICT ? 2 * u->nsaved : u->nsaved;
				for (int k = 0; k < total; k++)
					value_unref(u->saved[k]);
			}
			u->cont->txn = 0;
			value_set_layout_free(u->layout);
			free(u->saved);
			value_unref(u->cont);
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

static void undo_unwind_all(struct interp *I)
{
	interp_undo_unwind(I, 0, false);
}

/* Starts a new transaction for the log's deduplication. */
void interp_begin_txn(struct interp *I)
{
	I->txn = ++I->txn_counter;
	if (I->txn == 0)
		I->txn = I->txn_counter = 1;
}
