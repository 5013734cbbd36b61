/* bound.c: binding a call as a function or as a method (bound.h). */
#include "lang/bound.h"
#include "lang/runtime.h"

#include <string.h>

int bound_bind(struct call *c, const char *const *params, int nreq, struct bound *b, struct qkv_error *err)
{
	b->off = c->self ? 1 : 0;
	b->owned = false;
	if (args_bind(c, params + b->off, nreq - b->off, &b->a, err) < 0)
		return -1;
	if (c->self) {
		b->x = c->self->t;
		return 0;
	}
	struct value *v = b->a.v[0];
	if (v->kind == V_TENSOR) {
		b->x = v->t;
		return 0;
	}
	if (strncmp(c->name, "np.", 3) != 0) {
		args_tensor(c, &b->a, 0, &b->x, err);
		args_release(&b->a);
		return -1;
	}
	b->x = args_to_tensor(c, &b->a, 0, FLAVOR_NUMPY, false, DT_F64, err);
	if (!b->x) {
		args_release(&b->a);
		return -1;
	}
	b->owned = true;
	return 0;
}

struct value *bound_fail(struct bound *b)
{
	if (b->owned)
		tensor_unref(b->x);
	return args_fail(&b->a);
}

struct value *bound_done(struct call *c, struct bound *b, struct tensor *r, struct qkv_error *err)
{
	if (b->owned)
		tensor_unref(b->x);
	return args_done(c, &b->a, r, err);
}

struct value *bound_return(struct bound *b, struct value *v)
{
	if (b->owned)
		tensor_unref(b->x);
	return args_return(&b->a, v);
}
