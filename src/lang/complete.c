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
