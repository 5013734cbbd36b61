/* scope.c: names and functions. Before a statement runs, scope_resolve
 * decides once where each name lives (Python's rules: a name bound in a
 * function is its local unless declared global or nonlocal; a name an inner
 * function reads from an enclosing one becomes a cell) and writes it into
 * the N_NAME nodes, so a call finds its locals by slot and never hashes.
 * Then: loading and storing names, making functions (def, lambda) and
 * closures, calling them with Python's argument binding, comprehensions in
 * their own scope, and the recursion guard (calls and the C stack). */
#define _GNU_SOURCE 1
#include "lang/runtime.h"
#include "core/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the resolver -------------------------------------------------------------- */

struct fix {
	int *kind;
	int slot;
};

struct resolver {
	struct code_tree *ct;
	struct qkv_error *err;
	int failed;
};

static void code_release(struct code *c)
{
	struct code_tree *ct = (struct code_tree *)c;
	for (int i = 0; i < ct->nscopes; i++) {
		struct scope *s = ct->scopes[i];
		free(s->names);
		free(s->cell);
		free(s->freenames);
		free(s->from_kind);
		free(s->from_idx);
		free(s->globals);
		free(s);
	}
	free(ct->scopes);
	node_free(ct->root);
	free(ct);
}

void code_tree_unref(struct code_tree *ct)
{
	if (ct && --ct->base.refs == 0)
		ct->base.release(&ct->base);
}

static struct scope *scope_new(struct resolver *r, enum scope_kind kind, struct node *owner, struct scope *parent)
{
	struct code_tree *ct = r->ct;
	struct scope *s = xcalloc(1, sizeof *s);
	s->kind = kind;
	s->owner = owner;
	s->parent = parent;
	ct->scopes = xrealloc(ct->scopes, sizeof *ct->scopes * (size_t)(ct->nscopes + 1));
	ct->scopes[ct->nscopes++] = s;
	if (owner)
		owner->rows = ct->nscopes;
	return s;
}

static int find_name(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

static int local_index(const struct scope *s, const char *name)
{
	return find_name(s->names, s->nlocals, name);
}

static bool is_global(const struct scope *s, const char *name)
{
	return find_name(s->globals, s->nglobal, name) >= 0;
}

static int add_local(struct scope *s, const char *name)
{
	int i = local_index(s, name);
	if (i >= 0)
		return i;
	if (s->nlocals == s->caplocals) {
		s->caplocals = s->caplocals ? 2 * s->caplocals : 8;
		s->names = xrealloc(s->names, sizeof *s->names * (size_t)s->caplocals);
		s->cell = xrealloc(s->cell, sizeof *s->cell * (size_t)s->caplocals);
	}
	s->names[s->nlocals] = name;
	s->cell[s->nlocals] = false;
	return s->nlocals++;
}

/* Names declared nonlocal while collecting (a scratch list per scope). */
struct decls {
	const char **nonlocal;
	int n;
};

static void collect(struct scope *s, const struct node *n, struct decls *d);

static void collect_target(struct scope *s, const struct node *t)
{
	if (!t)
		return;
	if (t->kind == N_NAME)
		add_local(s, t->str);
	else if (t->kind == N_TUPLE || t->kind == N_LIST)
		for (int i = 0; i < t->nkids; i++)
			collect_target(s, t->kids[i]);
	else if (t->kind == N_STARRED)
		collect_target(s, t->kids[0]);
}

/* The names a function or class body binds (not inside nested scopes). */
static void collect(struct scope *s, const struct node *n, struct decls *d)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		for (int i = 0; i < n->nkids; i++)
			collect(s, n->kids[i], d);
		break;
	case N_ASSIGN: case N_AUGASSIGN:
		collect_target(s, n->kids[0]);
		break;
	case N_FOR:
		collect_target(s, n->kids[0]);
		collect(s, n->kids[2], d);
		if (n->nkids > 3)
			collect(s, n->kids[3], d);
		break;
	case N_IF: case N_WHILE:
		collect(s, n->kids[1], d);
		if (n->nkids > 2)
			collect(s, n->kids[2], d);
		break;
	case N_WITH:
		collect_target(s, n->kids[1]);
		collect(s, n->kids[2], d);
		break;
	case N_DEL:
		for (int i = 0; i < n->nkids; i++)
			collect_target(s, n->kids[i]);
		break;
	case N_DEF: case N_CLASS:
		add_local(s, n->str);
		break;
	case N_MAGIC:
		collect(s, n->kids[0], d);
		break;
	case N_GLOBAL:
		for (int i = 0; i < n->nkids; i++) {
			s->globals = xrealloc(s->globals, sizeof *s->globals * (size_t)(s->nglobal + 1));
			s->globals[s->nglobal++] = n->kids[i]->str;
		}
		break;
	case N_NONLOCAL:
		for (int i = 0; i < n->nkids; i++) {
			d->nonlocal = xrealloc(d->nonlocal, sizeof *d->nonlocal * (size_t)(d->n + 1));
			d->nonlocal[d->n++] = n->kids[i]->str;
		}
		break;
	default:
		break;
	}
}

/* Drops the declared names from the locals (they were collected as bound). */
static void drop_declared(struct scope *s, const struct decls *d)
{
	int k = s->nparams;
	for (int i = s->nparams; i < s->nlocals; i++) {
		if (is_global(s, s->names[i]) || find_name(d->nonlocal, d->n, s->names[i]) >= 0)
			continue;
		s->names[k] = s->names[i];
		s->cell[k++] = false;
	}
	s->nlocals = k;
}

static int add_free(struct scope *s, const char *name, int kind, int idx)
{
	if (s->nfree == s->capfree) {
		s->capfree = s->capfree ? 2 * s->capfree : 4;
		s->freenames = xrealloc(s->freenames, sizeof *s->freenames * (size_t)s->capfree);
		s->from_kind = xrealloc(s->from_kind, sizeof *s->from_kind * (size_t)s->capfree);
		s->from_idx = xrealloc(s->from_idx, sizeof *s->from_idx * (size_t)s->capfree);
	}
	s->freenames[s->nfree] = name;
	s->from_kind[s->nfree] = kind;
	s->from_idx[s->nfree] = idx;
	return s->nfree++;
}

/* The index of name among s's free variables, found in an enclosing
 * function (whose local becomes a cell), or -1 when it is global. */
static int find_free(struct scope *s, const char *name)
{
	int i = find_name(s->freenames, s->nfree, name);
	if (i >= 0)
		return i;
	struct scope *p = s->parent;
	if (!p || p->kind == SCOPE_MODULE)
		return -1;
	if (p->kind != SCOPE_CLASS) {
		if (is_global(p, name))
			return -1;
		int slot = local_index(p, name);
		if (slot >= 0) {
			p->cell[slot] = true;
			return add_free(s, name, SC_CELL, slot);
		}
	}
	int j = find_free(p, name);
	return j < 0 ? -1 : add_free(s, name, SC_FREE, j);
}

struct fixes {
	struct fix *v;
	int n, cap;
};

static void resolve_name(struct scope *s, const char *name, int *kind, int *slot, struct fixes *fx)
{
	*slot = 0;
	if (s->kind == SCOPE_MODULE) {
		*kind = SC_GLOBAL;
		return;
	}
	if (s->kind == SCOPE_CLASS) {
		*kind = SC_CLASS;
		return;
	}
	if (is_global(s, name)) {
		*kind = SC_GLOBAL;
		return;
	}
	int i = local_index(s, name);
	if (i >= 0) {
		*kind = SC_LOCAL;
		*slot = i;
		if (fx->n == fx->cap) {
			fx->cap = fx->cap ? 2 * fx->cap : 16;
			fx->v = xrealloc(fx->v, sizeof *fx->v * (size_t)fx->cap);
		}
		fx->v[fx->n++] = (struct fix){ kind, i };
		return;
	}
	i = find_free(s, name);
	*kind = i >= 0 ? SC_FREE : SC_GLOBAL;
	*slot = i >= 0 ? i : 0;
}

static void annotate(struct resolver *r, struct scope *s, struct node *n, struct fixes *fx);

static void process_scope(struct resolver *r, struct scope *s, struct node *body, bool is_expr)
{
	struct decls d = { NULL, 0 };
	if (!is_expr)
		collect(s, body, &d);
	drop_declared(s, &d);
	for (int i = 0; i < d.n; i++) {
		if (local_index(s, d.nonlocal[i]) >= 0 || find_free(s, d.nonlocal[i]) < 0) {
			if (!r->failed)
				error_set(r->err, s->owner->line, s->owner->col,
					  "SyntaxError: no binding for nonlocal '%s' found", d.nonlocal[i]);
			r->failed = 1;
		}
	}
	free(d.nonlocal);
	struct fixes fx = { 0 };
	annotate(r, s, body, &fx);
	for (int i = 0; i < fx.n; i++)
		if (*fx.v[i].kind == SC_LOCAL && s->cell[fx.v[i].slot])
			*fx.v[i].kind = SC_CELL;
	free(fx.v);
}

static void add_params(struct scope *s, const struct node *params)
{
	for (int i = 0; i < params->nkids; i++)
		if (params->kids[i]->str)
			add_local(s, params->kids[i]->str);
	s->nparams = s->nlocals;
}

static void annotate_defaults(struct resolver *r, struct scope *s, struct node *params, struct fixes *fx)
{
	for (int i = 0; i < params->nkids; i++)
		if (params->kids[i]->nkids > 0 && params->kids[i]->kids[0])
			annotate(r, s, params->kids[i]->kids[0], fx);
}

static void annotate_comp(struct resolver *r, struct scope *s, struct node *n, struct fixes *fx)
{
	struct node *first = n->kids[2];
	annotate(r, s, first->kids[1], fx);	/* the first iterable runs in the enclosing scope */
	struct scope *c = scope_new(r, SCOPE_COMP, n, s);
	for (int i = 2; i < n->nkids; i++)
		collect_target(c, n->kids[i]->kids[0]);
	struct fixes cf = { 0 };
	for (int i = 2; i < n->nkids; i++) {
		struct node *cl = n->kids[i];
		annotate(r, c, cl->kids[0], &cf);
		if (i > 2)
			annotate(r, c, cl->kids[1], &cf);
		for (int k = 2; k < cl->nkids; k++)
			annotate(r, c, cl->kids[k], &cf);
	}
	annotate(r, c, n->kids[0], &cf);
	annotate(r, c, n->kids[1], &cf);
	for (int i = 0; i < cf.n; i++)
		if (*cf.v[i].kind == SC_LOCAL && c->cell[cf.v[i].slot])
			*cf.v[i].kind = SC_CELL;
	free(cf.v);
}

static void annotate(struct resolver *r, struct scope *s, struct node *n, struct fixes *fx)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_NAME:
		resolve_name(s, n->str, &n->rows, &n->cols, fx);
		return;
	case N_DEF: {
		int slot;
		annotate_defaults(r, s, n->kids[0], fx);
		resolve_name(s, n->str, &n->cols, &slot, fx);
		n->ival = slot;
		/* the fix-up reads the slot from the record, the kind through the pointer */
		struct scope *f = scope_new(r, SCOPE_FUNC, n, s);
		add_params(f, n->kids[0]);
		process_scope(r, f, n->kids[1], false);
		return;
	}
	case N_LAMBDA: {
		annotate_defaults(r, s, n->kids[0], fx);
		struct scope *f = scope_new(r, SCOPE_FUNC, n, s);
		add_params(f, n->kids[0]);
		process_scope(r, f, n->kids[1], true);
		return;
	}
	case N_CLASS: {
		int slot;
		annotate(r, s, n->kids[0], fx);
		resolve_name(s, n->str, &n->cols, &slot, fx);
		n->ival = slot;
		struct scope *c = scope_new(r, SCOPE_CLASS, n, s);
		process_scope(r, c, n->kids[1], false);
		return;
	}
	case N_COMP:
		annotate_comp(r, s, n, fx);
		return;
	case N_GLOBAL: case N_NONLOCAL: case N_IMPORT:
		return;
	default:
		for (int i = 0; i < n->nkids; i++)
			annotate(r, s, n->kids[i], fx);
	}
}

struct code_tree *scope_resolve(struct node *root, struct qkv_error *err)
{
	struct code_tree *ct = xcalloc(1, sizeof *ct);
	ct->base.refs = 1;
	ct->base.release = code_release;
	ct->root = root;
	struct resolver r = { ct, err, 0 };
	struct scope *m = scope_new(&r, SCOPE_MODULE, NULL, NULL);
	struct fixes fx = { 0 };
	annotate(&r, m, root, &fx);
	free(fx.v);
	if (r.failed) {
		ct->root = NULL;	/* the caller frees the statement */
		code_tree_unref(ct);
		return NULL;
	}
	return ct;
}

/* ---- names at run time ------------------------------------------------------------ */

static struct code_tree *current_code(struct interp *I)
{
	return I->frame ? I->frame->code : I->code;
}

static const struct scope *scope_of(struct interp *I, const struct node *owner)
{
	struct code_tree *ct = current_code(I);
	return ct->scopes[owner->rows - 1];
}

static struct value *load_global(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *v = interp_get(I, n->str);
	if (v)
		return value_ref(v);
	const struct node_cache *c = node_cache_get(n);
	if (c)
		return c->attr;	/* the built-in the name means, found before */
	v = runtime_global(n->str);
	if (v && v->refs < 0)
		node_cache_set(n, NULL, v);
	if (v)
		return v;
	error_set(err, n->line, n->col, "name '%s' is not defined", n->str);
	return NULL;
}

struct value *scope_load(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct frame *f = I->frame;
	struct value *v;
	switch (n->rows) {
	case SC_LOCAL:
		v = f->slots[n->cols];
		break;
	case SC_CELL:
		v = f->slots[n->cols]->self;
		break;
	case SC_FREE:
		v = f->cells[n->cols]->self;
		if (!v) {
			error_set(err, n->line, n->col, "NameError: cannot access free variable '%s' where it is not "
				  "associated with a value in enclosing scope", n->str);
			return NULL;
		}
		return value_ref(v);
	case SC_CLASS: {
		int i = value_dict_find_str(f->ns, n->str);
		if (i >= 0)
			return value_ref(f->ns->items[i]);
		return load_global(I, n, err);
	}
	default:
		return load_global(I, n, err);
	}
	if (!v) {
		error_set(err, n->line, n->col, "UnboundLocalError: cannot access local variable '%s' where it is not "
			  "associated with a value", n->str);
		return NULL;
	}
	return value_ref(v);
}

static int store(struct interp *I, int kind, int slot, const char *name, struct value *v)
{
	struct frame *f = I->frame;
	struct value **at;
	switch (kind) {
	case SC_LOCAL:
		at = &f->slots[slot];
		break;
	case SC_CELL:
	case SC_FREE: {
		struct value *cell = kind == SC_CELL ? f->slots[slot] : f->cells[slot];
		interp_will_change(I, cell);
		at = &cell->self;
		break;
	}
	case SC_CLASS:
		interp_will_change(I, f->ns);
		value_dict_set_str(f->ns, name, value_ref(v));
		return 0;
	default:
		interp_set(I, name, value_ref(v));
		return 0;
	}
	struct value *old = *at;
	*at = value_ref(v);
	value_unref(old);
	return 0;
}

int scope_store(struct interp *I, const struct node *n, struct value *v, struct qkv_error *err)
{
	(void)err;
	return store(I, n->rows, n->cols, n->str, v);
}

int scope_store_def(struct interp *I, const struct node *n, struct value *v, struct qkv_error *err)
{
	(void)err;
	return store(I, n->cols, (int)n->ival, n->str, v);
}

int scope_delete(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct frame *f = I->frame;
	struct value **at = NULL;
	switch (n->rows) {
	case SC_LOCAL: at = &f->slots[n->cols]; break;
	case SC_CELL: interp_will_change(I, f->slots[n->cols]); at = &f->slots[n->cols]->self; break;
	case SC_FREE: interp_will_change(I, f->cells[n->cols]); at = &f->cells[n->cols]->self; break;
	case SC_CLASS: {
		int i = value_dict_find_str(f->ns, n->str);
		if (i < 0)
			return error_set(err, n->line, n->col, "name '%s' is not defined", n->str);
		interp_will_change(I, f->ns);
		value_dict_remove(f->ns, i);
		return 0;
	}
	default:
		if (!interp_unset(I, n->str))
			return error_set(err, n->line, n->col, "name '%s' is not defined", n->str);
		return 0;
	}
	if (!*at)
		return error_set(err, n->line, n->col, "UnboundLocalError: cannot access local variable '%s' where it "
				 "is not associated with a value", n->str);
	value_unref(*at);
	*at = NULL;
	return 0;
}

/* The closure of a new function or comprehension: the cells it reads. */
static struct value **make_cells(struct interp *I, const struct scope *s)
{
	if (!s->nfree)
		return NULL;
	struct value **cells = xcalloc((size_t)s->nfree, sizeof *cells);
	struct frame *f = I->frame;
	for (int i = 0; i < s->nfree; i++) {
		struct value *c = s->from_kind[i] == SC_CELL ? f->slots[s->from_idx[i]] : f->cells[s->from_idx[i]];
		cells[i] = value_ref(c);
	}
	return cells;
}

struct value *scope_make_function(struct interp *I, const struct node *def, struct qkv_error *err)
{
	const struct scope *s = scope_of(I, def);
	const struct node *params = def->kids[0];
	struct func *fn = xcalloc(1, sizeof *fn);
	fn->def = def;
	fn->sc = s;
	fn->code = &current_code(I)->base;
	fn->code->refs++;
	fn->name = xstrdup(def->kind == N_DEF ? def->str : "<lambda>");
	fn->nparams = s->nparams;
	fn->defaults = xcalloc((size_t)(s->nparams ? s->nparams : 1), sizeof *fn->defaults);
	struct value *v = value_function(fn);
	for (int i = 0, k = 0; i < params->nkids; i++) {
		const struct node *p = params->kids[i];
		if (!p->str)
			continue;
		if (p->nkids > 0 && p->kids[0]) {
			fn->defaults[k] = eval_expr(I, p->kids[0], err);
			if (!fn->defaults[k]) {
				value_unref(v);
				return NULL;
			}
		}
		k++;
	}
	fn->cells = make_cells(I, s);
	fn->nfree = s->nfree;
	return v;
}

/* ---- calls ---------------------------------------------------------------------------- */

/* The lowest address this thread's stack may grow to, less a margin for
 * the calls a single statement makes below the guard (a kernel, printing). */
static const char *stack_low(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return NULL;
	int rc = pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return NULL;
	size_t margin = size / 4 < 256 * 1024 ? size / 4 : 256 * 1024;
	return (const char *)addr + margin;
}

int scope_check_depth_slow(struct interp *I, const struct node *at, struct qkv_error *err)
{
	char here;
	if (!I->stack_low)
		I->stack_low = stack_low();
	if (I->depth >= INTERP_MAX_DEPTH || (I->stack_low && &here < I->stack_low))
		return error_set(err, at->line, at->col, "RecursionError: maximum recursion depth exceeded");
	return 0;
}

/* Adds "line L, in NAME" to an error leaving a call, outermost first, as
 * Python's traceback reads. */
static void traceback_add(struct qkv_error *err, int line, const char *name)
{
	if (strncmp(err->msg, "interrupted", 11) == 0)
		return;
	char *tb = strstr(err->msg, "\n  line ");
	size_t at = tb ? (size_t)(tb - err->msg) : strlen(err->msg);
	char entry[96];
	int n = snprintf(entry, sizeof entry, "\n  line %d, in %s", line, name);
	if (tb && strncmp(tb, entry, (size_t)n) == 0 && (tb[n] == 0 || tb[n] == '\n'))
		return;	/* a recursion: the same line once */
	size_t len = strlen(err->msg);
	if (n <= 0 || len + (size_t)n >= sizeof err->msg)
		return;
	memmove(err->msg + at + n, err->msg + at, len - at + 1);
	memcpy(err->msg + at, entry, (size_t)n);
}

static int bind_error(struct qkv_error *err, const struct call *c, const char *fmt, const char *fname,
		      const char *what)
{
	return error_set(err, c->node->line, c->node->col, fmt, fname, what);
}

/* Python's argument binding into the new frame's slots. */
static int bind_args(struct call *c, struct func *fn, struct value *self, struct value **slots,
		     struct qkv_error *err)
{
	const struct node *params = fn->def->kids[0];
	int npos = c->nargs + (self ? 1 : 0);
	int pi = 0, k = 0, kwslot = -1;
	bool has_star = false;
	int npositional = 0;
	for (int i = 0; i < params->nkids; i++) {
		const struct node *p = params->kids[i];
		if (p->op == '*') {
			has_star = true;
			if (p->str) {
				int rest = npos > pi ? npos - pi : 0;
				struct value *t = value_seq(V_TUPLE, rest);
				for (int j = 0; j < rest; j++) {
					int a = pi + j - (self ? 1 : 0);
					t->items[j] = value_ref(a < 0 ? self : c->args[a]);
				}
				slots[k++] = t;
				pi = npos;
			}
			continue;
		}
		if (p->op == 'K') {
			kwslot = k;
			slots[k++] = value_dict();
			continue;
		}
		if (!p->is_int) {
			npositional++;
			if (pi < npos) {
				int a = pi - (self ? 1 : 0);
				slots[k] = value_ref(a < 0 ? self : c->args[a]);
				pi++;
			}
		}
		k++;
	}
	if (pi < npos && !has_star) {
		char what[96];
		snprintf(what, sizeof what, "%d positional argument%s but %d %s given", npositional,
			 npositional == 1 ? "" : "s", npos, npos == 1 ? "was" : "were");
		return bind_error(err, c, "TypeError: %s() takes %s", fn->name, what);
	}
	for (int j = 0; j < c->nkw; j++) {
		const char *kw = c->kwnames[j];
		int slot = -1;
		for (int i = 0, kk = 0; i < params->nkids; i++) {
			const struct node *p = params->kids[i];
			if (!p->str)
				continue;
			if (p->op == 0 && strcmp(p->str, kw) == 0)
				slot = kk;
			kk++;
		}
		if (slot >= 0) {
			if (slots[slot])
				return bind_error(err, c, "TypeError: %s() got multiple values for argument '%s'", fn->name, kw);
			slots[slot] = value_ref(c->kwargs[j]);
		} else if (kwslot >= 0) {
			value_dict_set_str(slots[kwslot], kw, value_ref(c->kwargs[j]));
		} else {
			return bind_error(err, c, "TypeError: %s() got an unexpected keyword argument '%s'", fn->name, kw);
		}
	}
	for (int i = 0, kk = 0; i < params->nkids; i++) {
		const struct node *p = params->kids[i];
		if (!p->str)
			continue;
		if (!slots[kk]) {
			if (fn->defaults[kk])
				slots[kk] = value_ref(fn->defaults[kk]);
			else
				return bind_error(err, c, p->is_int ? "TypeError: %s() missing 1 required keyword-only "
						  "argument: '%s'" : "TypeError: %s() missing 1 required positional argument: '%s'",
						  fn->name, p->str);
		}
		kk++;
	}
	return 0;
}

struct value *scope_call(struct call *c, struct value *fnv, struct value *self, struct qkv_error *err)
{
	struct interp *I = c->I;
	struct func *fn = fnv->fn;
	const struct scope *s = fn->sc;
	if (scope_check_depth(I, c->node, err) < 0)
		return NULL;
	I->tb_line = 0;	/* an error an earlier call left (hasattr swallows them) is over */
	struct value **slots = xcalloc((size_t)(s->nlocals ? s->nlocals : 1), sizeof *slots);
	struct value *r = NULL;
	if (bind_args(c, fn, self, slots, err) < 0)
		goto done;
	for (int i = 0; i < s->nlocals; i++)
		if (s->cell[i])
			slots[i] = value_cell(slots[i]);
	struct frame fr = { slots, fn->cells, s, NULL, fnv, (struct code_tree *)fn->code, I->frame, c->node, NULL };
	I->frame = &fr;
	I->depth++;
	int rc;
	if (fn->def->kind == N_LAMBDA) {
		fr.ret = eval_expr(I, fn->def->kids[1], err);
		rc = fr.ret ? EXEC_RETURN : -1;
	} else {
		rc = exec_block(I, fn->def->kids[1], err);
	}
	I->depth--;
	I->frame = fr.back;
	if (rc == EXEC_RETURN || rc == 0) {
		r = rc == 0 ? value_none() : fr.ret;
	} else {
		value_unref(fr.ret);
		if (rc > 0)
			error_set(err, fn->def->line, fn->def->col, "SyntaxError: 'break' or 'continue' outside a loop");
		if (err->line)
			traceback_add(err, I->tb_line ? I->tb_line : err->line, fn->name);
		I->tb_line = c->node->line;
	}
	if (r)
		I->tb_line = 0;
done:
	/* keep this call's locals, for EXPR:NAME (lessons drawing a forward's weights) */
	if (fn->last) {
		for (int i = 0; i < fn->nlast; i++)
			value_unref(fn->last[i]);
		free(fn->last);
	}
	fn->last = slots;
	fn->nlast = s->nlocals;
	return r;
}

struct value *scope_last_local(struct value *fnv, const char *name, bool *elsewhere)
{
	struct func *fn = fnv->fn;
	*elsewhere = false;
	if (!fn->last)
		return NULL;
	const struct node *params = fn->def->kids[0];
	if (fnv->kind == V_BOUND && params->nkids > 0 && params->kids[0]->str) {
		int s = local_index(fn->sc, params->kids[0]->str);	/* self */
		struct value *self = s >= 0 && s < fn->nlast ? fn->last[s] : NULL;
		if (self && fn->sc->cell[s])
			self = self->self;
		if (self != fnv->self) {
			*elsewhere = true;
			return NULL;
		}
	}
	int i = local_index(fn->sc, name);
	if (i < 0 || i >= fn->nlast || !fn->last[i])
		return NULL;
	struct value *v = fn->last[i];
	if (fn->sc->cell[i])
		v = v->self;
	return value_ref(v);
}

/* ---- comprehensions and class bodies ------------------------------------------------------ */

static int comp_push(struct interp *I, const struct node *n, struct value *out, struct qkv_error *err)
{
	if (value_check_items(out->kind, (int64_t)out->n + 1, err) < 0)
		return error_locate(err, n->line, n->col), -1;
	struct value *x = eval_expr(I, n->kids[0], err);
	if (!x)
		return -1;
	if (n->op == 'd') {
		struct value *y = eval_expr(I, n->kids[1], err);
		if (!y || value_check_hashable(x, err) < 0) {
			value_unref(x);
			value_unref(y);
			return error_locate(err, n->kids[0]->line, n->kids[0]->col), -1;
		}
		value_dict_set(out, x, y);
		value_unref(x);
		return 0;
	}
	if (n->op == '{') {
		int rc = runtime_set_add(out, x, err);
		if (rc < 0)
			error_locate(err, n->kids[0]->line, n->kids[0]->col);
		return rc;
	}
	value_list_push(out, x);
	return 0;
}

static int comp_loop(struct interp *I, const struct node *n, int ci, struct value *seq, struct value *out,
		     struct qkv_error *err)
{
	const struct node *cl = n->kids[ci];
	struct value *it = runtime_iter(I, seq, err), *x;
	if (!it)
		return error_locate(err, cl->kids[1]->line, cl->kids[1]->col), -1;
	int rc = 0, more;
	while (rc == 0 && (more = runtime_next(I, it, &x, err)) != 0) {
		if (more < 0 || interp_check_interrupt(I, n, err) < 0) {
			if (more > 0)
				value_unref(x);
			rc = -1;
			break;
		}
		rc = exec_assign(I, cl->kids[0], x, err);
		value_unref(x);
		bool keep = true;
		for (int k = 2; rc == 0 && keep && k < cl->nkids; k++) {
			struct value *c = eval_expr(I, cl->kids[k], err);
			int t = c ? value_truth(c, err) : -1;
			value_unref(c);
			if (t < 0) {
				error_locate(err, cl->kids[k]->line, cl->kids[k]->col);
				rc = -1;
			}
			keep = t > 0;
		}
		if (rc < 0 || !keep)
			continue;
		if (ci + 1 < n->nkids) {
			struct value *next = eval_expr(I, n->kids[ci + 1]->kids[1], err);
			rc = next ? comp_loop(I, n, ci + 1, next, out, err) : -1;
			value_unref(next);
		} else {
			rc = comp_push(I, n, out, err);
		}
	}
	value_unref(it);
	return rc;
}

struct value *scope_comprehension(struct interp *I, const struct node *n, struct qkv_error *err)
{
	const struct scope *s = scope_of(I, n);
	struct value *seq = eval_expr(I, n->kids[2]->kids[1], err);
	if (!seq)
		return NULL;
	if (scope_check_depth(I, n, err) < 0) {
		value_unref(seq);
		return NULL;
	}
	struct value **slots = xcalloc((size_t)(s->nlocals ? s->nlocals : 1), sizeof *slots);
	for (int i = 0; i < s->nlocals; i++)
		if (s->cell[i])
			slots[i] = value_cell(NULL);
	struct value **cells = make_cells(I, s);
	struct frame fr = { slots, cells, s, NULL, NULL, current_code(I), I->frame, n, NULL };
	struct value *out = n->op == 'd' ? value_dict() : n->op == '{' ? value_set() : value_seq(V_LIST, 0);
	I->frame = &fr;
	int rc = comp_loop(I, n, 2, seq, out, err);
	I->frame = fr.back;
	value_unref(seq);
	for (int i = 0; i < s->nlocals; i++)
		value_unref(slots[i]);
	free(slots);
	for (int i = 0; i < s->nfree; i++)
		value_unref(cells[i]);
	free(cells);
	if (rc < 0) {
		value_unref(out);
		return NULL;
	}
	if (n->op == '(') {	/* a generator expression: its items, computed at once */
		struct value *it = runtime_iter(I, out, err);
		value_unref(out);
		return it;
	}
	return out;
}

struct value *scope_class_body(struct interp *I, const struct node *cls, struct qkv_error *err)
{
	const struct scope *s = scope_of(I, cls);
	struct value **cells = make_cells(I, s);
	struct value *ns = value_dict();
	struct frame fr = { NULL, cells, s, ns, NULL, current_code(I), I->frame, cls, NULL };
	I->frame = &fr;
	int rc = exec_block(I, cls->kids[1], err);
	I->frame = fr.back;
	for (int i = 0; i < s->nfree; i++)
		value_unref(cells[i]);
	free(cells);
	if (rc != 0) {
		if (rc > 0)
			error_set(err, cls->line, cls->col, "SyntaxError: 'return', 'break' or 'continue' in a class body");
		value_unref(ns);
		return NULL;
	}
	return ns;
}
