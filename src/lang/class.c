/* class.c: classes, instances and torch.nn's module system. A class
 * statement runs its body in a namespace (scope.c) and makes a class with one
 * base; instances keep their attributes in a dict. Subclasses of nn.Module
 * behave as torch's: calling one runs forward, nn.Parameter and submodules
 * assigned to attributes are registered (torch's _parameters, _buffers,
 * _modules, in order), parameters()/named_parameters() walk them in torch's
 * order, .train()/.eval() reach every submodule. The sandbox: attribute
 * names with double underscores are refused except a short allow-list. */
#include "lang/args.h"
#include "lang/runtime.h"
#include "core/mem.h"

#include <stdio.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

bool class_name_allowed(const char *name)
{
	static const char *const allowed[] = { "__init__", "__call__", "__name__", "__class__", "__doc__",
					       "__qualname__", "__module__", NULL };
	if (strncmp(name, "__", 2) != 0)
		return true;
	for (int i = 0; allowed[i]; i++)
		if (strcmp(allowed[i], name) == 0)
			return true;
	return false;
}

static int refuse(const char *name, struct qkv_error *err)
{
	return error_set(err, 0, 0, "AttributeError: qkv does not give access to '%s' (its sandbox has no way "
			 "into the interpreter's internals)", name);
}

struct value *class_builtin(const char *name)
{
	static const struct { const char *name; enum class_builtin kind; } table[] = {
		{ "Module", CLS_MODULE }, { "ModuleList", CLS_MODULELIST }, { "Sequential", CLS_SEQUENTIAL },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcmp(table[i].name, name) == 0) {
			struct klass *k = xcalloc(1, sizeof *k);
			k->name = xstrdup(name);
			k->builtin = table[i].kind;
			k->dict = value_dict();
			if (table[i].kind != CLS_MODULE)
				k->base = class_builtin("Module");
			return value_class(k);
		}
	}
	return NULL;
}

static bool same_class(const struct value *a, const struct value *b)
{
	return a->cls == b->cls || (a->cls->builtin != CLS_USER && a->cls->builtin == b->cls->builtin);
}

static bool is_module_class(const struct value *cls)
{
	for (const struct value *k = cls; k; k = k->cls->base)
		if (k->cls->builtin != CLS_USER)
			return true;
	return false;
}

bool class_isinstance(const struct value *v, const struct value *cls)
{
	if (v->kind == V_OBJECT)
		return cls->cls->builtin == CLS_MODULE;
	if (v->kind != V_INSTANCE)
		return false;
	for (const struct value *k = v->inst->cls; k; k = k->cls->base)
		if (same_class(k, cls))
			return true;
	return false;
}

/* name in the class or its bases, borrowed, or NULL */
static struct value *class_lookup(const struct value *cls, const char *name)
{
	for (const struct value *k = cls; k; k = k->cls->base) {
		int i = value_dict_find_str(k->cls->dict, name);
		if (i >= 0)
			return k->cls->dict->items[i];
	}
	return NULL;
}

int class_exec(struct interp *I, const struct node *n, struct qkv_error *err)
{
	struct value *bases = eval_expr(I, n->kids[0], err);
	if (!bases)
		return -1;
	struct value *base = NULL;
	for (int i = 0; i < bases->n; i++) {
		struct value *b = bases->items[i];
		if (b->kind == V_FUNC && strcmp(b->str, "builtins.object") == 0)
			continue;
		if (b->kind != V_CLASS || base) {
			const struct node *at = n->kids[0]->kids[i];
			error_set(err, at->line, at->col, b->kind != V_CLASS ? "TypeError: a class's base must be a class, "
				  "not %s" : "qkv's classes have one base class (%s is a second one)", value_type_name(b));
			value_unref(bases);
			return -1;
		}
		base = b;
	}
	struct value *ns = scope_class_body(I, n, err);
	if (!ns) {
		value_unref(bases);
		return -1;
	}
	struct klass *k = xcalloc(1, sizeof *k);
	k->name = xstrdup(n->str);
	k->base = value_ref(base);
	k->dict = ns;
	value_unref(bases);
	struct value *cls = value_class(k);
	for (int i = 0; i < ns->n; i++) {	/* super() in a method finds its class */
		struct value *f = ns->items[i];
		if (f->kind == V_FUNCTION && !f->fn->owner)
			f->fn->owner = value_ref(cls);
	}
	int rc = scope_store_def(I, n, cls, err);
	value_unref(cls);
	return rc;
}

/* ---- instances ------------------------------------------------------------------ */

static bool is_module(const struct value *v)
{
	return v->kind == V_OBJECT || (v->kind == V_INSTANCE && v->inst->modules);
}

static void set_training(struct interp *I, struct value *m, bool mode)
{
	if (m->kind == V_OBJECT) {
		m->obj->training = mode;
		return;
	}
	interp_will_change(I, m->inst->dict);
	value_dict_set_str(m->inst->dict, "training", value_bool(mode));
	for (int i = 0; i < m->inst->modules->n; i++)
		if (m->inst->modules->items[i]->kind != V_NONE)
			set_training(I, m->inst->modules->items[i], mode);
}

static struct value *new_instance(struct value *cls)
{
	struct inst *in = xcalloc(1, sizeof *in);
	in->cls = value_ref(cls);
	in->dict = value_dict();
	if (is_module_class(cls)) {
		in->params = value_dict();
		in->buffers = value_dict();
		in->modules = value_dict();
		value_dict_set_str(in->dict, "training", value_bool(true));
	}
	return value_instance(in);
}

static void module_add(struct value *self, struct value *m)
{
	char key[24];
	snprintf(key, sizeof key, "%d", self->inst->modules->n);
	value_dict_set_str(self->inst->modules, key, value_ref(m));
}

/* ModuleList(iterable) and Sequential(*modules) */
static int init_container(struct call *c, struct value *self, struct qkv_error *err)
{
	enum class_builtin kind = self->inst->cls->cls->builtin;
	struct value *items;
	if (kind == CLS_MODULELIST) {
		if (c->nargs > 1 || c->nkw)
			return error_set(err, c->node->line, c->node->col, "TypeError: ModuleList() takes one iterable");
		items = c->nargs ? runtime_to_list(c->I, c->args[0], err) : value_seq(V_LIST, 0);
		if (!items)
			return error_locate(err, c->node->line, c->node->col), -1;
	} else {
		items = value_seq(V_LIST, 0);
		for (int i = 0; i < c->nargs; i++)
			value_list_push(items, value_ref(c->args[i]));
	}
	int rc = 0;
	for (int i = 0; i < items->n && rc == 0; i++) {
		if (!is_module(items->items[i]))
			rc = error_set(err, c->node->line, c->node->col, "TypeError: %s is not a Module subclass",
				       value_type_name(items->items[i]));
		else
			module_add(self, items->items[i]);
	}
	value_unref(items);
	return rc;
}

struct value *class_new_instance(struct call *c, struct value *cls, struct qkv_error *err)
{
	struct value *self = new_instance(cls);
	struct value *init = class_lookup(cls, "__init__");
	if (init && init->kind == V_FUNCTION) {
		struct value *r = scope_call(c, init, self, err);
		if (!r) {
			value_unref(self);
			return NULL;
		}
		bool none = r->kind == V_NONE;
		value_unref(r);
		if (!none) {
			value_unref(self);
			return error_set(err, c->node->line, c->node->col, "TypeError: __init__() should return None"), NULL;
		}
		return self;
	}
	enum class_builtin b = CLS_USER;
	for (const struct value *k = cls; k && b == CLS_USER; k = k->cls->base)
		b = k->cls->builtin;
	if (b == CLS_MODULELIST || b == CLS_SEQUENTIAL) {
		if (init_container(c, self, err) < 0) {
			value_unref(self);
			return NULL;
		}
		return self;
	}
	if (c->nargs || c->nkw) {
		value_unref(self);
		return error_set(err, c->node->line, c->node->col, "TypeError: %s() takes no arguments", cls->cls->name),
		       NULL;
	}
	return self;
}

struct value *class_call_instance(struct call *c, struct value *self, struct qkv_error *err)
{
	struct inst *in = self->inst;
	struct value *fn = class_lookup(in->cls, in->modules ? "forward" : "__call__");
	if (fn && fn->kind == V_FUNCTION)
		return scope_call(c, fn, self, err);
	if (in->modules && in->cls->cls->builtin == CLS_SEQUENTIAL) {
		if (c->nargs != 1 || c->nkw)
			return error_set(err, c->node->line, c->node->col, "TypeError: Sequential takes one input"), NULL;
		struct value *x = value_ref(c->args[0]);
		for (int i = 0; i < in->modules->n && x; i++) {
			struct value *y = runtime_call_values(c->I, c->node, in->modules->items[i], 1, &x, err);
			value_unref(x);
			x = y;
		}
		return x;
	}
	if (in->modules)
		return error_set(err, c->node->line, c->node->col, "NotImplementedError: Module [%s] is missing the "
				 "required \"forward\" function", in->cls->cls->name), NULL;
	return error_set(err, 0, 0, "TypeError: '%s' object is not callable", in->cls->cls->name), NULL;
}

/* ---- the module methods ------------------------------------------------------------ */

struct walk {
	struct value *out;     /* list of values or (name, value) tuples */
	bool named;
	int what;              /* 0 parameters, 1 buffers, 2 modules, 3 children */
};

static bool seen(const struct value *list, const struct value *v, bool named)
{
	for (int i = 0; i < list->n; i++) {
		const struct value *x = named ? list->items[i]->items[1] : list->items[i];
		if (x == v || (x->kind == V_TENSOR && v->kind == V_TENSOR && x->t == v->t))
			return true;
	}
	return false;
}

static void walk_add(struct walk *w, const char *prefix, const char *name, struct value *v)
{
	if (v->kind == V_NONE || seen(w->out, v, w->named))
		return;
	if (!w->named) {
		value_list_push(w->out, value_ref(v));
		return;
	}
	char full[256];
	snprintf(full, sizeof full, "%s%s%s", prefix, prefix[0] && name[0] ? "." : "", name);
	struct value *t = value_seq(V_TUPLE, 2);
	t->items[0] = value_str(full);
	t->items[1] = value_ref(v);
	value_list_push(w->out, t);
}

/* torch's order: a module's own entries, then each submodule's, depth first */
static void walk_module(struct walk *w, struct value *m, const char *prefix)
{
	if (w->what == 2)
		walk_add(w, prefix, "", m);
	if (m->kind == V_OBJECT) {
		/* Linear, Embedding, LayerNorm: a weight and a bias (None: none) */
		if (w->what == 0 && m->obj->kind != OBJ_DROPOUT) {
			if (m->obj->weight->kind != V_NONE)
				walk_add(w, prefix, "weight", m->obj->weight);
			if (m->obj->bias && m->obj->bias->kind != V_NONE)
				walk_add(w, prefix, "bias", m->obj->bias);
		}
		return;
	}
	struct inst *in = m->inst;
	struct value *own = w->what == 0 ? in->params : w->what == 1 ? in->buffers : NULL;
	for (int i = 0; own && i < own->n; i++)
		walk_add(w, prefix, own->keys[i]->str, own->items[i]);
	for (int i = 0; i < in->modules->n; i++) {
		struct value *sub = in->modules->items[i];
		if (sub->kind == V_NONE)
			continue;
		if (w->what == 3) {
			walk_add(w, "", in->modules->keys[i]->str, sub);
			continue;
		}
		char p[256];
		snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "", in->modules->keys[i]->str);
		walk_module(w, sub, p);
	}
}

static struct value *module_walk(struct call *c, int what, bool named, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("recurse"), 0, &a, err) < 0)
		return NULL;
	struct walk w = { value_seq(V_LIST, 0), named, what };
	walk_module(&w, c->self, "");
	struct value *it = runtime_iter(c->I, w.out, err);
	value_unref(w.out);
	return args_return(&a, it);
}

static struct value *train_eval(struct call *c, bool train, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("mode"), 0, &a, err) < 0)
		return NULL;
	bool mode;
	if (args_bool(c, &a, 0, true, &mode, err) < 0)
		return args_fail(&a);
	set_training(c->I, c->self, train ? mode : false);
	return args_return(&a, value_ref(c->self));
}

static int check_attr_name(struct call *c, struct args *a, struct qkv_error *err)
{
	if (a->v[0]->kind != V_STR)
		return args_error(err, c, a, 0, "TypeError: the name must be a string, not %s", value_type_name(a->v[0]));
	if (!a->v[0]->str[0] || strchr(a->v[0]->str, '.'))
		return args_error(err, c, a, 0, "KeyError: the name can't be empty or contain \".\"");
	if (!class_name_allowed(a->v[0]->str))
		return refuse(a->v[0]->str, err);
	return 0;
}

static void drop_from(struct interp *I, struct value *d, const char *name)
{
	int i = value_dict_find_str(d, name);
	if (i >= 0) {
		interp_will_change(I, d);
		value_dict_remove(d, i);
	}
}

static struct value *register_buffer(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("name", "tensor", "persistent"), 2, &a, err) < 0)
		return NULL;
	if (check_attr_name(c, &a, err) < 0)
		return args_fail(&a);
	if (a.v[1]->kind != V_TENSOR && a.v[1]->kind != V_NONE)
		return args_error(err, c, &a, 1, "TypeError: cannot assign '%s' object to buffer '%s' (torch Tensor or "
				  "None required)", value_type_name(a.v[1]), a.v[0]->str), args_fail(&a);
	struct inst *in = c->self->inst;
	drop_from(c->I, in->dict, a.v[0]->str);
	interp_will_change(c->I, in->buffers);
	value_dict_set_str(in->buffers, a.v[0]->str, value_ref(a.v[1]));
	return args_return(&a, value_none());
}

static struct value *register_parameter(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("name", "param"), 2, &a, err) < 0)
		return NULL;
	if (check_attr_name(c, &a, err) < 0)
		return args_fail(&a);
	if (!(a.v[1]->kind == V_TENSOR && a.v[1]->parameter) && a.v[1]->kind != V_NONE)
		return args_error(err, c, &a, 1, "TypeError: cannot assign '%s' object to parameter '%s' "
				  "(torch.nn.Parameter or None required)", value_type_name(a.v[1]), a.v[0]->str),
		       args_fail(&a);
	struct inst *in = c->self->inst;
	drop_from(c->I, in->dict, a.v[0]->str);
	interp_will_change(c->I, in->params);
	value_dict_set_str(in->params, a.v[0]->str, value_ref(a.v[1]));
	return args_return(&a, value_none());
}

static struct value *add_module(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("name", "module"), 2, &a, err) < 0)
		return NULL;
	if (check_attr_name(c, &a, err) < 0)
		return args_fail(&a);
	if (!is_module(a.v[1]) && a.v[1]->kind != V_NONE)
		return args_error(err, c, &a, 1, "TypeError: %s is not a Module subclass", value_type_name(a.v[1])),
		       args_fail(&a);
	interp_will_change(c->I, c->self->inst->modules);
	value_dict_set_str(c->self->inst->modules, a.v[0]->str, value_ref(a.v[1]));
	return args_return(&a, value_none());
}

static struct value *list_append(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("module"), 1, &a, err) < 0)
		return NULL;
	if (!is_module(a.v[0]))
		return args_error(err, c, &a, 0, "TypeError: %s is not a Module subclass", value_type_name(a.v[0])),
		       args_fail(&a);
	interp_will_change(c->I, c->self->inst->modules);
	module_add(c->self, a.v[0]);
	return args_return(&a, value_ref(c->self));
}

static struct value *module_self(struct call *c, struct qkv_error *err)
{
	(void)err;
	return value_ref(c->self);
}

static struct value *module_none(struct call *c, struct qkv_error *err)
{
	(void)err;
	(void)c;
	return value_none();
}

static struct value *m_parameters(struct call *c, struct qkv_error *err) { return module_walk(c, 0, false, err); }
static struct value *m_named_parameters(struct call *c, struct qkv_error *err) { return module_walk(c, 0, true, err); }
static struct value *m_buffers(struct call *c, struct qkv_error *err) { return module_walk(c, 1, false, err); }
static struct value *m_named_buffers(struct call *c, struct qkv_error *err) { return module_walk(c, 1, true, err); }
static struct value *m_modules(struct call *c, struct qkv_error *err) { return module_walk(c, 2, false, err); }
static struct value *m_named_modules(struct call *c, struct qkv_error *err) { return module_walk(c, 2, true, err); }
static struct value *m_children(struct call *c, struct qkv_error *err) { return module_walk(c, 3, false, err); }
static struct value *m_named_children(struct call *c, struct qkv_error *err) { return module_walk(c, 3, true, err); }
static struct value *m_train(struct call *c, struct qkv_error *err) { return train_eval(c, true, err); }
static struct value *m_eval(struct call *c, struct qkv_error *err) { return train_eval(c, false, err); }

static const struct builtin module_methods[] = {
	{ "parameters", m_parameters }, { "named_parameters", m_named_parameters },
	{ "buffers", m_buffers }, { "named_buffers", m_named_buffers }, { "modules", m_modules },
	{ "named_modules", m_named_modules }, { "children", m_children }, { "named_children", m_named_children },
	{ "train", m_train }, { "eval", m_eval }, { "register_buffer", register_buffer },
	{ "register_parameter", register_parameter }, { "add_module", add_module },
	{ "zero_grad", module_none }, { "to", module_self }, { "cpu", module_self }, { "requires_grad_", module_self },
	{ "__init__", module_none }, { "append", list_append }, { NULL, NULL },
};

static const struct builtin *module_method(const struct value *self, const char *name)
{
	for (const struct builtin *b = module_methods; b->name; b++) {
		if (strcmp(b->name, name) != 0)
			continue;
		if (strcmp(name, "append") == 0 && (self->kind != V_INSTANCE || self->inst->cls->cls->builtin != CLS_MODULELIST))
			return NULL;
		if (self->kind == V_OBJECT && strncmp(name, "register", 8) == 0)
			return NULL;
		return b;
	}
	return NULL;
}

/* Calls a module method (V_METHOD on an instance or nn object); NULL
 * without err when it is not one. */
struct value *class_call_method(struct call *c, struct qkv_error *err)
{
	const struct builtin *b = module_method(c->self, c->name);
	if (!b)
		return NULL;
	return b->fn(c, err);
}

bool class_has_method(const struct value *self, const char *name)
{
	return is_module(self) && module_method(self, name) != NULL;
}

/* ---- attributes --------------------------------------------------------------------- */

static struct value *bind(struct value *self, struct value *x)
{
	if (x->kind == V_FUNCTION)
		return value_bound(self, x);
	return value_ref(x);
}

struct value *class_attr(struct interp *I, struct value *self, const char *name, struct qkv_error *err)
{
	(void)I;
	if (!class_name_allowed(name))
		return refuse(name, err), NULL;
	if (self->kind == V_CLASS) {
		if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0)
			return value_str(self->cls->name);
		struct value *x = class_lookup(self, name);
		if (x)
			return value_ref(x);
		return error_set(err, 0, 0, "AttributeError: type object '%s' has no attribute '%s'", self->cls->name,
				 name), NULL;
	}
	if (self->kind == V_SUPER) {
		struct value *from = self->items[0]->cls->base;
		struct value *x = from ? class_lookup(from, name) : NULL;
		if (x)
			return bind(self->self, x);
		if (is_module(self->self) && module_method(self->self, name))
			return value_method(self->self, name);
		if (strcmp(name, "__init__") == 0)
			return value_method(self->self, "__init__");
		return error_set(err, 0, 0, "AttributeError: 'super' object has no attribute '%s'", name), NULL;
	}
	struct inst *in = self->inst;
	if (strcmp(name, "__class__") == 0)
		return value_ref(in->cls);
	struct value *dicts[4] = { in->dict, in->params, in->buffers, in->modules };
	for (int k = 0; k < 4; k++) {
		int i = dicts[k] ? value_dict_find_str(dicts[k], name) : -1;
		if (i >= 0)
			return value_ref(dicts[k]->items[i]);
	}
	struct value *x = class_lookup(in->cls, name);
	if (x)
		return bind(self, x);
	if (in->modules && module_method(self, name))
		return value_method(self, name);
	if (strcmp(name, "__init__") == 0)
		return value_method(self, "__init__");
	return error_set(err, 0, 0, "AttributeError: '%s' object has no attribute '%s'", in->cls->cls->name, name),
	       NULL;
}

int class_set_attr(struct interp *I, struct value *self, const char *name, struct value *v, struct qkv_error *err)
{
	if (!class_name_allowed(name) || strcmp(name, "__class__") == 0)
		return refuse(name, err);
	if (self->kind == V_CLASS) {
		interp_will_change(I, self->cls->dict);
		value_dict_set_str(self->cls->dict, name, value_ref(v));
		return 0;
	}
	struct inst *in = self->inst;
	if (!in->modules) {
		interp_will_change(I, in->dict);
		value_dict_set_str(in->dict, name, value_ref(v));
		return 0;
	}
	bool param = v->kind == V_TENSOR && v->parameter;
	struct value *target = in->dict;
	if (param) {
		target = in->params;
	} else if (is_module(v)) {
		target = in->modules;
	} else if (value_dict_find_str(in->params, name) >= 0) {
		if (v->kind != V_NONE)
			return error_set(err, 0, 0, "TypeError: cannot assign '%s' as parameter '%s' (torch.nn.Parameter "
					 "or None expected)", v->kind == V_TENSOR ? "torch.FloatTensor" : value_type_name(v),
					 name);
		target = in->params;
	} else if (value_dict_find_str(in->buffers, name) >= 0) {
		if (v->kind != V_NONE && v->kind != V_TENSOR)
			return error_set(err, 0, 0, "TypeError: cannot assign '%s' as buffer '%s' (torch.Tensor or None "
					 "expected)", value_type_name(v), name);
		target = in->buffers;
	} else if (value_dict_find_str(in->modules, name) >= 0) {
		if (v->kind != V_NONE)
			return error_set(err, 0, 0, "TypeError: cannot assign '%s' as child module '%s' "
					 "(torch.nn.Module or None expected)", value_type_name(v), name);
		target = in->modules;
	}
	struct value *all[4] = { in->dict, in->params, in->buffers, in->modules };
	for (int k = 0; k < 4; k++)
		if (all[k] != target)
			drop_from(I, all[k], name);
	interp_will_change(I, target);
	value_dict_set_str(target, name, value_ref(v));
	return 0;
}

int class_del_attr(struct interp *I, struct value *self, const char *name, struct qkv_error *err)
{
	if (!class_name_allowed(name))
		return refuse(name, err);
	struct value *all[4] = { NULL };
	if (self->kind == V_CLASS) {
		all[0] = self->cls->dict;
	} else {
		all[0] = self->inst->dict;
		all[1] = self->inst->params;
		all[2] = self->inst->buffers;
		all[3] = self->inst->modules;
	}
	for (int k = 0; k < 4; k++) {
		if (all[k] && value_dict_find_str(all[k], name) >= 0) {
			drop_from(I, all[k], name);
			return 0;
		}
	}
	return error_set(err, 0, 0, "AttributeError: %s", name);
}

/* super() and super(Class, self) */
struct value *class_super(struct call *c, struct qkv_error *err)
{
	struct interp *I = c->I;
	if (c->nargs == 2) {
		struct value *cls = c->args[0], *self = c->args[1];
		if (cls->kind != V_CLASS)
			return error_set(err, c->node->line, c->node->col, "TypeError: super() argument 1 must be a type, "
					 "not %s", value_type_name(cls)), NULL;
		if (!class_isinstance(self, cls))
			return error_set(err, c->node->line, c->node->col, "TypeError: super(type, obj): obj must be an "
					 "instance or subtype of type"), NULL;
		return value_super(self, cls);
	}
	if (c->nargs != 0 || c->nkw)
		return error_set(err, c->node->line, c->node->col, "TypeError: super() takes 0 or 2 arguments"), NULL;
	struct frame *f = I->frame;
	while (f && !f->fnv)
		f = f->back;	/* a comprehension inside a method */
	if (!f || !f->fnv->fn->owner || f->sc->nparams == 0 || !f->slots[0])
		return error_set(err, c->node->line, c->node->col, "RuntimeError: super(): no arguments"), NULL;
	struct value *self = f->slots[0];
	if (f->sc->cell[0])
		self = self->self;
	if (!self)
		return error_set(err, c->node->line, c->node->col, "RuntimeError: super(): arg[0] deleted"), NULL;
	return value_super(self, f->fnv->fn->owner);
}

/* ---- the dunder methods a class may define ---------------------------------------------- */

/* Calls the method `name` the instance's class defines with args: 1 and *out,
 * 0 when the class does not define it, -1 with err. */
int class_call_dunder(struct interp *I, const struct node *at, struct value *self, const char *name, int nargs,
		      struct value **args, struct value **out, struct qkv_error *err)
{
	if (self->kind != V_INSTANCE)
		return 0;
	struct value *fn = class_lookup(self->inst->cls, name);
	if (!fn || fn->kind != V_FUNCTION)
		return 0;
	struct value *bound = value_bound(self, fn);
	*out = runtime_call_values(I, at, bound, nargs, args, err);
	value_unref(bound);
	return *out ? 1 : -1;
}

/* str(v) or repr(v) through the class's __str__/__repr__ when it defines
 * them (__str__ falls back to __repr__, as Python): 1 written, 0 not an
 * instance with them, -1 with err. */
int class_text(struct interp *I, const struct node *at, struct value *v, bool repr, struct strbuf *out,
	       struct qkv_error *err)
{
	struct value *r = NULL;
	int rc = repr ? 0 : class_call_dunder(I, at, v, "__str__", 0, NULL, &r, err);
	if (rc == 0)
		rc = class_call_dunder(I, at, v, "__repr__", 0, NULL, &r, err);
	if (rc <= 0)
		return rc;
	if (r->kind != V_STR) {
		error_set(err, at ? at->line : 0, at ? at->col : 0, "TypeError: %s returned non-string (type %s)",
			  repr ? "__repr__" : "__str__", value_type_name(r));
		value_unref(r);
		return -1;
	}
	strbuf_puts(out, r->str);
	value_unref(r);
	return 1;
}
