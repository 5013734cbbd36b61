/* autograd.h: what torch's autograd would record about each result, so
 * tensors print as torch 1.13 prints them (", grad_fn=<MmBackward0>)",
 * ", requires_grad=True)"), x.requires_grad, x.grad_fn and x.is_leaf answer
 * as in torch, and in-place writes to leaves that require grad fail as they
 * do in torch. No gradient is ever computed. Every built-in function and
 * tensor method has a rule (autograd_has_rule); the evaluator calls the hooks
 * below after each operator, index and attribute. Not for use outside lang/. */
#ifndef QKV_LANG_AUTOGRAD_H
#define QKV_LANG_AUTOGRAD_H

#include "lang/runtime.h"

/* Runs the built-in fn for call c with torch's bookkeeping around it: takes
 * requires_grad= out of the call where torch accepts it, refuses numpy() of
 * a tensor that requires grad and in-place writes to leaves, and gives the
 * result the grad state torch gives it. qualified is the function's name
 * ("torch.matmul") or, for a tensor method (c->self a tensor), the method's
 * ("view"). Returns fn's value (a new reference) or NULL with err. */
struct value *autograd_call(struct call *c, const char *qualified, builtin_fn fn, struct qkv_error *err);
/* After calling the nn object callee (Linear, Dropout): r (may be NULL)
 * gets its grad state; returns r. */
struct value *autograd_object(struct call *c, const struct value *callee, struct value *r);

/* After an operator (a op b, op a, base[...]): r (may be NULL) gets the
 * grad state torch gives it. op is the N_BINARY/N_UNARY node's op. */
void autograd_binop_state(struct interp *I, int op, const struct value *a, const struct value *b, struct value *r);
static inline void autograd_binop(struct interp *I, int op, const struct value *a, const struct value *b,
				  struct value *r)
{
	if (!r || r->kind != V_TENSOR)
		return;
	const struct grad_state *now = &r->t->grad;
	if (!(a->kind == V_TENSOR && a->t->grad.requires_grad) && !(b->kind == V_TENSOR && b->t->grad.requires_grad) &&
	    !now->requires_grad && !now->fn && !now->view && !now->leaf_view)
		return;	/* inline, the common case: no state to give, none to take away */
	autograd_binop_state(I, op, a, b, r);
}
void autograd_unop(struct interp *I, int op, const struct value *a, struct value *r);
void autograd_index(struct interp *I, const struct node *index, const struct value *base, bool advanced,
		    struct value *r);
/* The fused attention's result r over q, k, v (as the last product gets it). */
void autograd_attention(struct interp *I, const struct value *q, const struct value *k, const struct value *v,
			struct value *r);
/* The items a tensor unbinds into (for loops over a tensor, list(x)): item
 * gets UnbindBackward0 when src requires grad. */
void autograd_unbind(struct interp *I, const struct tensor *src, struct tensor *item);

/* Before writing in place into dst: x op= y (op an N_AUGASSIGN op, src its
 * right side) or x[...] = y (op 0: dst is x). Fails (-1, err without a
 * position) for a leaf that requires grad or a view of one, as torch does,
 * unless under torch.no_grad(); else records the write on dst (AddBackward0,
 * CopySlices) and returns 0. */
int autograd_write(struct interp *I, int op, struct tensor *dst, const struct value *src, struct qkv_error *err);

/* The grad attributes of a tensor: requires_grad, grad_fn, is_leaf, grad,
 * data, and the views T and mT. Returns 1 with *out (NULL with err on
 * failure) when name is one of them, else 0. */
int autograd_attr(struct interp *I, struct value *self, const char *name, struct value **out, struct qkv_error *err);

/* x.requires_grad_(requires_grad=True), the tensor method. */
struct value *autograd_requires_grad_(struct call *c, struct qkv_error *err);

/* Whether a function ("torch.cat") or a tensor method or attribute
 * ("Tensor.view") has a rule; the table's names in order, for the tests. */
bool autograd_has_rule(const char *qualified);
const char *autograd_rule_name(int i);

#endif
