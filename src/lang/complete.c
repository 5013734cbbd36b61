/* complete.c: completion of names for the prompt: the workspace's names and
 * the global ones, or after "X." the attributes of X (a module's functions, a
 * tensor's methods, an instance's attributes). Called by the front ends
 * through interp_complete; reads the workspace only. */
#include "lang/interp.h"
#include "lang/runtime.h"

#include <stdio.h>
#include <string.h>

/* ---- completion -------------------------------------------------------------- */

struct completion {
	const char *module;      /* "torch.nn." style prefix to match, or NULL */
	const char *prefix;
	void (*fn)(void *, const char *);
	void *udata;
	bool ndarray;            /* a numpy array's: torch's own methods left out */
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
	if (c->ndarray && runtime_torch_alone(rest))
		return;
	if (strncmp(rest, c->prefix, strlen(c->prefix)) == 0)
		c->fn(c->udata, rest);
}

struct prefixed {
	const char *prefix;
	size_t pl;
	void (*fn)(void *, const char *);
	void *udata;
};

static void complete_prefixed(void *udata, const char *name)
{
	struct prefixed *f = udata;
	if (strncmp(name, f->prefix, f->pl) == 0)
		f->fn(f->udata, name);
}

/* An instance's attributes, parameters, submodules and methods (its class's
 * and, for a module, torch's); a class's attributes; a container's methods. */
static void complete_members(const struct value *v, const char *prefix, void (*fn)(void *, const char *),
			     void *udata)
{
	size_t pl = strlen(prefix);
	const struct value *dicts[8];
	int nd = 0;
	const struct value *cls = v->kind == V_INSTANCE ? v->inst->cls : v->kind == V_CLASS ? v : NULL;
	if (v->kind == V_INSTANCE) {
		dicts[nd++] = v->inst->dict;
		if (v->inst->modules) {
			dicts[nd++] = v->inst->params;
			dicts[nd++] = v->inst->buffers;
			dicts[nd++] = v->inst->modules;
		}
	}
	for (const struct value *k = cls; k && nd < 8; k = k->cls->base)
		dicts[nd++] = k->cls->dict;
	for (int d = 0; d < nd; d++)
		for (int i = 0; i < dicts[d]->n; i++) {
			const char *name = dicts[d]->keys[i]->kind == V_STR ? dicts[d]->keys[i]->str : NULL;
			if (name && name[0] != '_' && strncmp(name, prefix, pl) == 0)
				fn(udata, name);
		}
	if (v->kind == V_INSTANCE && v->inst->modules) {
		static const char *const methods[] = { "parameters", "named_parameters", "train", "eval",
						       "register_buffer", "children", "modules", "forward", NULL };
		for (int i = 0; methods[i]; i++)
			if (strncmp(methods[i], prefix, pl) == 0 && class_has_method(v, methods[i]))
				fn(udata, methods[i]);
	}
	if (v->kind != V_INSTANCE && v->kind != V_CLASS) {
		struct prefixed f = { prefix, pl, fn, udata };
		container_each_method(v, complete_prefixed, &f);
	}
}

void interp_complete(const struct interp *I, const char *context, const char *prefix,
		     void (*fn)(void *udata, const char *name), void *udata)
{
	size_t pl = strlen(prefix);
	if (!context) {
		for (int i = 0; i < I->nvars; i++)
			if (strncmp(I->names[i], prefix, pl) == 0)
				fn(udata, I->names[i]);
		/* the modules qkv knows without an import, the constants and the keywords
		 * that start a statement; then every builtin, from the table the
		 * interpreter runs them from (so a new one is offered as it comes) */
		static const char *const globals[] = { "torch", "nn", "F", "np", "math", "softmax", "True",
						       "False", "None", "lambda", "def", "class", "for", "while",
						       "return", NULL };
		for (int i = 0; globals[i]; i++)
			if (strncmp(globals[i], prefix, pl) == 0)
				fn(udata, globals[i]);
		struct completion c = { "builtins.", prefix, fn, udata, false };
		runtime_each_name(complete_qualified, &c);
		return;
	}
	/* what the context names: a module alias, a module path, or a value */
	char module[160];
	struct value *v = interp_get(I, context);
	if (v && (v->kind == V_INSTANCE || v->kind == V_CLASS || v->kind == V_LIST || v->kind == V_DICT ||
		  v->kind == V_SET || v->kind == V_STR)) {
		complete_members(v, prefix, fn, udata);
		return;
	}
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
	bool ndarray = m && m->kind == V_TENSOR && m->t->flavor == FLAVOR_NUMPY;
	value_unref(g);
	if (!module[0])
		return;
	struct completion c = { module, prefix, fn, udata, ndarray };
	runtime_each_name(complete_qualified, &c);
}
