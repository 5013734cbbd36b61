/* einsum.c: torch.einsum(equation, *operands) as torch 1.13 reads the
 * equation: subscripts a-z and A-Z (spaces ignored), an explicit output
 * after "->" or the implicit one (the subscripts seen once, upper case
 * first), a dim of size 1 broadcasting against its subscript's size, every
 * mistake refused in torch's words ('...' in qkv's). The sum runs over the
 * subscripts the output lacks, each product added in double (int64 for
 * integers) and rounded once. The name of the backward node torch's path
 * would attach (for grad_fn) is einsum_grad_fn's. Never prints. */
#include "lang/args.h"
#include "lang/runtime.h"
#include "core/mem.h"

#include <stdio.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NLABELS 52
#define MAX_OPERANDS 8

/* A subscript's label: 'A'-'Z' are 0-25, 'a'-'z' 26-51 (torch's order for
 * the implicit output); -1 for anything else. */
static int label_of(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	return -1;
}

static char letter_of(int label)
{
	return (char)(label < 26 ? 'A' + label : 'a' + label - 26);
}

struct equation {
	int nterms;
	int nlab[MAX_OPERANDS];                 /* subscripts of each input term */
	int lab[MAX_OPERANDS][TENSOR_MAX_DIMS];
	int nout, out[NLABELS];                 /* the output's subscripts */
	int count[NLABELS];                     /* how often each appears in the inputs */
	bool explicit_out;
};

/* Parses eq for nops operands into e; -1 with torch's message. */
static int parse_equation(const char *eq, int nops, struct equation *e, struct qkv_error *err)
{
	memset(e, 0, sizeof *e);
	const char *arrow = strstr(eq, "->");
	size_t lhs = arrow ? (size_t)(arrow - eq) : strlen(eq);
	int term = 0;
	for (size_t i = 0; i <= lhs; i++) {
		char ch = i < lhs ? eq[i] : ',';
		if (ch == ' ')
			continue;
		if (ch == '.')
			return error_set(err, 0, 0, "einsum(): '...' (an ellipsis) is not supported in qkv: name each dim");
		if (ch == ',') {
			if (++term > nops)
				return error_set(err, 0, 0, "einsum(): more operands were provided than specified in the "
						 "equation");
			continue;
		}
		int l = label_of(ch);
		if (l < 0)
			return error_set(err, 0, 0, "einsum(): invalid subscript given at index %zu in the equation string, "
					 "subscripts must be in [a-zA-Z]", i);
		if (term >= nops)
			return error_set(err, 0, 0, "einsum(): fewer operands were provided than specified in the equation");
		if (e->nlab[term] == TENSOR_MAX_DIMS)
			return error_set(err, 0, 0, "einsum(): operand %d has more subscripts than a tensor has dims "
					 "(at most %d)", term, TENSOR_MAX_DIMS);
		e->lab[term][e->nlab[term]++] = l;
		e->count[l]++;
	}
	e->nterms = term;
	if (e->nterms < nops)
		return error_set(err, 0, 0, "einsum(): more operands were provided than specified in the equation");
	if (!arrow) {	/* the implicit output: the subscripts seen once, in label order */
		for (int l = 0; l < NLABELS; l++)
			if (e->count[l] == 1)
				e->out[e->nout++] = l;
		return 0;
	}
	e->explicit_out = true;
	bool seen[NLABELS] = { false };
	for (size_t i = lhs + 2; eq[i]; i++) {
		if (eq[i] == ' ')
			continue;
		if (eq[i] == '.')
			return error_set(err, 0, 0, "einsum(): '...' (an ellipsis) is not supported in qkv: name each dim");
		int l = label_of(eq[i]);
		if (l < 0)
			return error_set(err, 0, 0, "einsum(): invalid subscript given at index %zu in the equation string, "
					 "subscripts must be in [a-zA-Z]", i);
		if (!e->count[l])
			return error_set(err, 0, 0, "einsum(): output subscript %c does not appear in the equation for any "
					 "input operand", eq[i]);
		if (seen[l])
			return error_set(err, 0, 0, "einsum(): output subscript %c appears more than once in the output",
					 eq[i]);
		seen[l] = true;
		e->out[e->nout++] = l;
	}
	return 0;
}

const char *einsum_grad_fn(const char *eq, int nops)
{
	struct equation e;
	struct qkv_error err;
	if (nops < 1 || nops > MAX_OPERANDS || parse_equation(eq, nops, &e, &err) < 0)
		return "ViewBackward0";
	bool in_out[NLABELS] = { false };
	for (int i = 0; i < e.nout; i++)
		in_out[e.out[i]] = true;
	bool sums = false, contracts = false;
	for (int l = 0; l < NLABELS; l++) {
		if (!e.count[l] || in_out[l])
			continue;
		int terms = 0;
		for (int t = 0; t < e.nterms; t++)
			for (int k = 0; k < e.nlab[t]; k++)
				if (e.lab[t][k] == l) {
					terms++;
					break;
				}
		sums = true;
		contracts = contracts || terms > 1;
	}
	if (nops == 1)
		return sums ? "SumBackward1" : "PermuteBackward0";
	return contracts ? "ViewBackward0" : sums ? "SumBackward1" : "MulBackward0";
}

/* Element of t at the subscripts' current values (a dim of 1: index 0). */
static double value_at(const struct tensor *t, const int *lab, const int64_t *idx, int64_t *as_int)
{
	int64_t off = t->offset;
	for (int d = 0; d < t->ndim; d++)
		off += (t->shape[d] == 1 ? 0 : idx[lab[d]]) * t->strides[d];
	const void *p = t->storage->data;
	switch (t->dtype) {
	case DT_F32: return ((const float *)p)[off];
	case DT_F64: return ((const double *)p)[off];
	case DT_I64: *as_int = ((const int64_t *)p)[off]; return 0;
	default: *as_int = ((const uint8_t *)p)[off]; return 0;
	}
}

static const char *scalar_name(enum dtype dt)
{
	return dt == DT_F32 ? "Float" : dt == DT_F64 ? "Double" : dt == DT_I64 ? "Long" : "Bool";
}

struct value *pieces_einsum(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("equation", "*"), 1, &a, err) < 0)
		return NULL;
	if (a.v[0]->kind != V_STR)
		return args_error(err, c, &a, 0, "einsum(): argument 'equation' must be str, not %s",
				  value_type_name(a.v[0])), args_fail(&a);
	/* the operands: after the equation, or one list or tuple of them */
	struct value *ops = a.v[1];
	if (ops && ops->n == 1 && (ops->items[0]->kind == V_LIST || ops->items[0]->kind == V_TUPLE))
		ops = ops->items[0];
	int nops = ops ? ops->n : 0;
	if (nops == 0)
		return args_error(err, c, &a, -1, "einsum(): must provide at least one operand"), args_fail(&a);
	if (nops > MAX_OPERANDS)
		return args_error(err, c, &a, 1, "einsum(): at most %d operands in qkv", MAX_OPERANDS), args_fail(&a);
	const struct tensor *x[MAX_OPERANDS] = { NULL };
	for (int i = 0; i < nops; i++) {
		if (ops->items[i]->kind != V_TENSOR || ops->items[i]->t->flavor != FLAVOR_TORCH)
			return args_error(err, c, &a, 1, "einsum(): operand %d must be a Tensor, not %s", i,
					  value_type_name(ops->items[i])), args_fail(&a);
		x[i] = ops->items[i]->t;
		if (x[i]->dtype != x[0]->dtype)
			return args_error(err, c, &a, 1, "expected scalar type %s but found %s", scalar_name(x[0]->dtype),
					  scalar_name(x[i]->dtype)), args_fail(&a);
	}
	if (x[0]->dtype == DT_BOOL)
		return args_error(err, c, &a, 1, "einsum() of bool tensors is not supported in qkv"), args_fail(&a);
	struct equation e;
	if (parse_equation(a.v[0]->str, nops, &e, err) < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	/* each subscript's size: a dim of 1 broadcasts against it */
	int64_t size[NLABELS];
	for (int l = 0; l < NLABELS; l++)
		size[l] = -1;
	for (int t = 0; t < nops; t++) {
		if (e.nlab[t] != x[t]->ndim)
			return args_error(err, c, &a, 0, "einsum(): the number of subscripts in the equation (%d) does not "
					  "match the number of dimensions (%d) for operand %d and no ellipsis was given",
					  e.nlab[t], x[t]->ndim, t), args_fail(&a);
		for (int d = 0; d < e.nlab[t]; d++) {
			int l = e.lab[t][d];
			int64_t s = x[t]->shape[d];
			if (size[l] < 0 || size[l] == 1)
				size[l] = s;
			else if (s != 1 && s != size[l])
				return args_error(err, c, &a, 1, "einsum(): subscript %c has size %lld for operand %d which does "
						  "not broadcast with previously seen size %lld", letter_of(l), (long long)s, t,
						  (long long)size[l]), args_fail(&a);
		}
	}
	/* repeated subscripts in one term (a diagonal) take one index for both */
	int64_t oshape[NLABELS];
	bool in_out[NLABELS] = { false };
	for (int i = 0; i < e.nout; i++) {
		oshape[i] = size[e.out[i]];
		in_out[e.out[i]] = true;
	}
	if (e.nout > TENSOR_MAX_DIMS)
		return args_error(err, c, &a, 0, "einsum(): the output has %d dims; a tensor has at most %d", e.nout,
				  TENSOR_MAX_DIMS), args_fail(&a);
	int sum[NLABELS], nsum = 0;
	for (int l = 0; l < NLABELS; l++)
		if (e.count[l] && !in_out[l])
			sum[nsum++] = l;
	struct tensor *out = ops_full(&c->I->ops, x[0]->dtype, FLAVOR_TORCH, e.nout, oshape, 0, err);
	if (!out)
		return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
	int64_t nsummed = 1;
	for (int k = 0; k < nsum; k++)
		if (__builtin_mul_overflow(nsummed, size[sum[k]], &nsummed)) {
			tensor_unref(out);
			return args_error(err, c, &a, 0, "einsum(): the sum runs over more terms than an int64 counts"),
			       args_fail(&a);
		}
	bool ints = x[0]->dtype == DT_I64;
	int64_t n = tensor_numel(out), idx[NLABELS] = { 0 }, steps = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t rest = i;
		for (int k = e.nout - 1; k >= 0; k--) {
			idx[e.out[k]] = rest % oshape[k];
			rest /= oshape[k];
		}
		double acc = 0;
		int64_t iacc = 0;
		for (int64_t j = 0; j < nsummed; j++) {
			int64_t r = j;
			for (int k = nsum - 1; k >= 0; k--) {
				idx[sum[k]] = r % size[sum[k]];
				r /= size[sum[k]];
			}
			double p = 1;
			int64_t ip = 1;
			for (int t = 0; t < nops; t++) {
				int64_t vi = 0;
				double v = value_at(x[t], e.lab[t], idx, &vi);
				p *= v;
				ip = (int64_t)((uint64_t)ip * (uint64_t)vi);
			}
			if (ints)
				iacc = (int64_t)((uint64_t)iacc + (uint64_t)ip);
			else
				acc += p;
			if ((++steps & 0xfffff) == 0 && interp_interrupted(c->I)) {
				tensor_unref(out);
				interp_interrupt_error(NULL, err);
				return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
			}
		}
		if (ints)
			((int64_t *)out->storage->data)[i] = iacc;
		else
			tensor_set(out, i, acc);
	}
	return args_done(c, &a, out, err);
}
