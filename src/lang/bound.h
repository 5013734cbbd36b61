/* bound.h: the arguments of a call that binds as a function (input first:
 * torch.topk(x, 2)) or as a method (c->self is the input: x.topk(2)). The
 * method's parameters are the function's without the first, so argument i
 * of the function is at i - off; numpy's functions take a list as input
 * (made an array here). Used by rank.c and pieces.c. */
#ifndef QKV_LANG_BOUND_H
#define QKV_LANG_BOUND_H

#include "lang/args.h"

#include <stdbool.h>

struct bound {
	struct args a;
	int off;	/* 1 for a method */
	struct tensor *x;
	bool owned;	/* x made here from a list (numpy) */
};

/* Binds params (the function's names, input first; nreq of them required).
 * -1 with err when the call does not fit or the input is no tensor. */
int bound_bind(struct call *c, const char *const *params, int nreq, struct bound *b, struct qkv_error *err);

/* Argument i (as the function numbers them), or NULL when not given. */
static inline struct value *arg(struct bound *b, int i)
{
	return b->a.v[i - b->off];
}

static inline bool given(struct bound *b, int i)
{
	return arg(b, i) && arg(b, i)->kind != V_NONE;
}

/* The call fails: NULL, its arguments released. */
struct value *bound_fail(struct bound *b);
/* The call gives r (NULL: it failed, err set), its arguments released. */
struct value *bound_done(struct call *c, struct bound *b, struct tensor *r, struct qkv_error *err);
/* The call gives the value v, its arguments released. */
struct value *bound_return(struct bound *b, struct value *v);

/* An error at argument i (the function's numbering), then the call fails. */
#define FAIL_AT(c, b, i, ...) (args_error(err, c, &(b)->a, (i) - (b)->off, __VA_ARGS__), bound_fail(b))

#endif
