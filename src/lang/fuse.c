/* fuse.c: the fused attention of the tree walker: one expression that
 * computes softmax(Q @ K^T ...) @ V goes to ops_attention when the weights
 * would be large. Called by eval.c for every @; changes no value. */
#include "lang/autograd.h"
#include "lang/runtime.h"

#include <math.h>
#include <string.h>

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
	const struct node *sm = n->kids[0], *x;
	if (sm->kind != N_CALL || sm->kids[0]->kind != N_ATTR || strcmp(sm->kids[0]->str, "softmax") != 0)
		return false;	/* most products: nothing to clear */
	memset(p, 0, sizeof *p);
	p->v = n->kids[1];
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
int fuse_attention(struct interp *I, const struct node *n, struct value **out)
{
	struct attn_pattern p;
	if (I->ops.variant != KERNEL_SIMD || !attn_match(n, &p))
		return 0;
	struct qkv_error e;
	struct value *vals[9] = { NULL };
	const struct node *nodes[9] = { p.q, p.k, p.v, p.dim, p.scale, p.mask, p.fill, p.ax[0], p.ax[1] };
	int rc = 0;
	for (int i = 0; i < 9; i++)
		if (nodes[i] && !(vals[i] = eval_expr(I, nodes[i], &e)))
			goto done;
	if (p.softmax) {
		struct value *f = eval_expr(I, p.softmax, &e);
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

