/* einsum.c: torch.einsum(equation, *operands) as torch 1.13 reads the
 * equation, and np.einsum(subscripts, *operands) as numpy 1.24 does:
 * subscripts a-z and A-Z (spaces ignored), an explicit output after "->"
 * or the implicit one (the subscripts seen once, upper case first), a dim
 * of size 1 broadcasting against its subscript's size, every mistake
 * refused in torch's or numpy's words ('...' in qkv's). torch's operands
 * are tensors of one dtype; numpy's anything an array can be made of, the
 * result of their common dtype. The sum runs over the subscripts the output
 * lacks, each product added in double (int64 for integers) and rounded
 * once. The name of the backward node torch's path would attach (for
 * grad_fn) is einsum_grad_fn's. Never prints. */
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

/* The mistakes of an equation, in torch's words and in numpy's. */
enum mistake { M_FEWER, M_MORE, M_LETTER, M_DOT, M_TOO_MANY, M_NEVER, M_TWICE };
static const char *const words[2][M_TWICE + 1] = {
	{
		[M_FEWER] = "einsum(): fewer operands were provided than specified in the equation",
		[M_MORE] = "einsum(): more operands were provided than specified in the equation",
		[M_LETTER] = "einsum(): invalid subscript given at index %zu in the equation string, subscripts must "
			     "be in [a-zA-Z]",
		[M_DOT] = "einsum(): '...' (an ellipsis) is not supported in qkv: name each dim",
		[M_TOO_MANY] = "einsum(): operand %d has more subscripts than a tensor has dims (at most %d)",
		[M_NEVER] = "einsum(): output subscript %c does not appear in the equation for any input operand",
		[M_TWICE] = "einsum(): output subscript %c appears more than once in the output",
	},
	{
		/* (numpy's two say the opposite of torch's, and of what happened) */
		[M_FEWER] = "more operands provided to einstein sum function than specified in the subscripts string",
		[M_MORE] = "fewer operands provided to einstein sum function than specified in the subscripts string",
		[M_LETTER] = "invalid subscript '%c' in einstein sum subscripts string, subscripts must be letters",
		[M_DOT] = "einsum(): '...' (an ellipsis) is not supported in qkv: name each dim",
		[M_TOO_MANY] = "einstein sum subscripts string contains too many subscripts for operand %d",
		[M_NEVER] = "einstein sum subscripts string included output subscript '%c' which never appeared in an "
			    "input",
		[M_TWICE] = "einstein sum subscripts string includes output subscript '%c' multiple times",
	},
};

/* Whether byte i of eq is one of the dots of a "...". */
static bool in_ellipsis(const char *eq, size_t i)
{
	for (size_t k = i >= 2 ? i - 2 : 0; k <= i; k++)
		if (strncmp(eq + k, "...", 3) == 0)
			return true;
	return false;
}

/* A '.': numpy names one that is not part of "..." apart from an ellipsis,
 * which qkv does not take. term: the operand it is in, -1 the output. */
static int dot_error(const char *eq, size_t i, bool numpy, int term, struct qkv_error *err)
{
	static const char stray[] = "einstein sum subscripts string contains a '.' that is not part of an ellipsis "
				    "('...') in ";
	if (numpy && !in_ellipsis(eq, i))
		return term < 0 ? error_set(err, 0, 0, "%sthe output", stray)
				: error_set(err, 0, 0, "%soperand %d", stray, term);
	return error_set(err, 0, 0, "%s", words[numpy][M_DOT]);
}

/* An invalid subscript: torch names its index, numpy the character. */
static int letter_error(const char *eq, size_t i, bool numpy, struct qkv_error *err)
{
	return numpy ? error_set(err, 0, 0, words[1][M_LETTER], eq[i]) : error_set(err, 0, 0, words[0][M_LETTER], i);
}

/* Parses eq for nops operands into e; -1 with torch's message, or numpy's. */
static int parse_equation(const char *eq, int nops, bool numpy, struct equation *e, struct qkv_error *err)
{
	const char *const *w = words[numpy];
	memset(e, 0, sizeof *e);
	const char *arrow = strstr(eq, "->");
	size_t lhs = arrow ? (size_t)(arrow - eq) : strlen(eq);
	int term = 0;
	for (size_t i = 0; i <= lhs; i++) {
		char ch = i < lhs ? eq[i] : ',';
		if (ch == ' ')
			continue;
		if (ch == '.')
			return dot_error(eq, i, numpy, term, err);
		if (ch == ',') {
			if (++term > nops)	/* (an empty term after the last operand's) */
				return error_set(err, 0, 0, "%s", w[M_FEWER]);
			continue;
		}
		int l = label_of(ch);
		if (l < 0)
			return letter_error(eq, i, numpy, err);
		if (term >= nops)
			return error_set(err, 0, 0, "%s", w[M_FEWER]);
		if (e->nlab[term] == TENSOR_MAX_DIMS)
			return error_set(err, 0, 0, w[M_TOO_MANY], term, TENSOR_MAX_DIMS);
		e->lab[term][e->nlab[term]++] = l;
		e->count[l]++;
	}
	e->nterms = term;
	if (e->nterms < nops)
		return error_set(err, 0, 0, "%s", w[M_MORE]);
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
			return dot_error(eq, i, numpy, -1, err);
		int l = label_of(eq[i]);
		if (l < 0)
			return letter_error(eq, i, numpy, err);
		if (!e->count[l])
			return error_set(err, 0, 0, w[M_NEVER], eq[i]);
		if (seen[l])
			return error_set(err, 0, 0, w[M_TWICE], eq[i]);
		seen[l] = true;
		e->out[e->nout++] = l;
	}
	return 0;
}

const char *einsum_grad_fn(const char *eq, int nops)
{
	struct equation e;
	struct qkv_error err;
	if (nops < 1 || nops > MAX_OPERANDS || parse_equation(eq, nops, false, &e, &err) < 0)
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

/* Element of t at the subscripts' current values (a dim of 1: index 0), as
 * a double; an integer's or a bool's also exactly into *as_int. */
static double value_at(const struct tensor *t, const int *lab, const int64_t *idx, int64_t *as_int)
{
	int64_t off = t->offset;
	for (int d = 0; d < t->ndim; d++)
		off += (t->shape[d] == 1 ? 0 : idx[lab[d]]) * t->strides[d];
	const void *p = t->storage->data;
	switch (t->dtype) {
	case DT_F32: return ((const float *)p)[off];
	case DT_F64: return ((const double *)p)[off];
	case DT_I64: *as_int = ((const int64_t *)p)[off]; return (double)*as_int;
	default: *as_int = ((const uint8_t *)p)[off]; return (double)*as_int;
	}
}

static const char *scalar_name(enum dtype dt)
{
	return dt == DT_F32 ? "Float" : dt == DT_F64 ? "Double" : dt == DT_I64 ? "Long" : "Bool";
}

/* numpy's common dtype of two arrays: bool, then int64, then the floats
 * (float32 with int64 or float64 makes float64: it holds neither). */
static enum dtype common_dtype(enum dtype a, enum dtype b)
{
	if (a == b)
		return a;
	if (dtype_is_float(a) || dtype_is_float(b))
		return dtype_is_float(a) && dtype_is_float(b) ? DT_F64 : a == DT_I64 || b == DT_I64 ? DT_F64 :
		       dtype_is_float(a) ? a : b;
	return DT_I64;
}

/* The operands, from ops (n of them), into x: torch's must be tensors of
 * one dtype; numpy's are made arrays (a list, a number, a tensor: owned[i])
 * of their common dtype, into *dt. -1 with the message at the operands. */
static int take_operands(struct call *c, struct args *a, bool numpy, const struct value *ops, int n,
			 struct tensor **x, bool *owned, enum dtype *dt, struct qkv_error *err)
{
	for (int i = 0; i < n; i++) {
		struct value *v = ops->items[i];
		if (v->kind == V_TENSOR && v->t->flavor == (numpy ? FLAVOR_NUMPY : FLAVOR_TORCH)) {
			x[i] = v->t;
		} else if (numpy) {
			if (!(x[i] = args_value_to_tensor(c, a, 1, v, FLAVOR_NUMPY, false, DT_F64, err)))
				return -1;
			owned[i] = true;
		} else {
			return args_error(err, c, a, 1, "einsum(): operand %d must be a Tensor, not %s", i,
					  value_type_name(v));
		}
		if (numpy) {
			*dt = i ? common_dtype(*dt, x[i]->dtype) : x[i]->dtype;
		} else if (x[i]->dtype != x[0]->dtype) {
			return args_error(err, c, a, 1, "expected scalar type %s but found %s", scalar_name(x[0]->dtype),
					  scalar_name(x[i]->dtype));
		} else {
			*dt = x[0]->dtype;
		}
	}
	if (!numpy && *dt == DT_BOOL)
		return args_error(err, c, a, 1, "einsum() of bool tensors is not supported in qkv");
	return 0;
}

/* Each subscript's size into size[] (a dim of 1 broadcasts against it);
 * -1 with torch's or numpy's message when an operand's dims and subscripts
 * disagree. */
static int subscript_sizes(struct call *c, struct args *a, bool numpy, const struct equation *e,
			   struct tensor *const *x, int n, int64_t *size, struct qkv_error *err)
{
	for (int l = 0; l < NLABELS; l++)
		size[l] = -1;
	for (int t = 0; t < n; t++) {
		if (numpy && e->nlab[t] > x[t]->ndim)
			return args_error(err, c, a, 0, "einstein sum subscripts string contains too many subscripts "
					  "for operand %d", t);
		if (numpy && e->nlab[t] < x[t]->ndim)
			return args_error(err, c, a, 0, "operand has more dimensions than subscripts given in einstein sum, "
					  "but no '...' ellipsis provided to broadcast the extra dimensions.");
		if (e->nlab[t] != x[t]->ndim)
			return args_error(err, c, a, 0, "einsum(): the number of subscripts in the equation (%d) does not "
					  "match the number of dimensions (%d) for operand %d and no ellipsis was given",
					  e->nlab[t], x[t]->ndim, t);
		for (int d = 0; d < e->nlab[t]; d++) {
			int l = e->lab[t][d];
			int64_t s = x[t]->shape[d];
			if (size[l] < 0 || size[l] == 1)
				size[l] = s;
			else if (s != 1 && s != size[l] && numpy)
				return args_error(err, c, a, 1, "operands could not be broadcast together: subscript '%c' has "
						  "size %lld in operand %d and %lld before it", letter_of(l), (long long)s, t,
						  (long long)size[l]);
			else if (s != 1 && s != size[l])
				return args_error(err, c, a, 1, "einsum(): subscript %c has size %lld for operand %d which does "
						  "not broadcast with previously seen size %lld", letter_of(l), (long long)s, t,
						  (long long)size[l]);
		}
	}
	return 0;
}

/* The sums into out, whose subscripts are e's output's: each element the
 * sum over the subscripts it lacks (sum[nsum], nsummed terms) of the
 * operands' products, in double (int64 for integers, bools as 0 and 1)
 * and rounded once. -1 with err when Ctrl-C stopped it. */
static int contract(struct interp *I, const struct equation *e, struct tensor *const *x, int n,
		    const int64_t *size, const int *sum, int nsum, int64_t nsummed, struct tensor *out,
		    struct qkv_error *err)
{
	bool ints = !dtype_is_float(out->dtype);
	int64_t total = tensor_numel(out), idx[NLABELS] = { 0 }, steps = 0;
	for (int64_t i = 0; i < total; i++) {
		int64_t rest = i;
		for (int k = e->nout - 1; k >= 0; k--) {
			idx[e->out[k]] = rest % out->shape[k];
			rest /= out->shape[k];
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
			for (int t = 0; t < n; t++) {
				int64_t vi = 0;
				p *= value_at(x[t], e->lab[t], idx, &vi);
				ip = (int64_t)((uint64_t)ip * (uint64_t)vi);
			}
			if (ints)
				iacc = (int64_t)((uint64_t)iacc + (uint64_t)ip);
			else
				acc += p;
			if ((++steps & 0xfffff) == 0 && interp_interrupted(I))
				return interp_interrupt_error(NULL, err), -1;
		}
		if (out->dtype == DT_BOOL)
			((uint8_t *)out->storage->data)[i] = iacc != 0;
		else if (ints)
			((int64_t *)out->storage->data)[i] = iacc;
		else
			tensor_set(out, i, acc);
	}
	return 0;
}

/* numpy's keywords qkv takes: out and dtype only as None (the result is a
 * new array of the operands' common dtype); optimize changes only the order
 * of the sums, which qkv keeps. */
static int numpy_keywords(struct call *c, struct args *a, struct qkv_error *err)
{
	for (int i = 2; i <= 3; i++)
		if (a->v[i] && a->v[i]->kind != V_NONE)
			return args_error(err, c, a, i, "einsum(): %s= is not supported in qkv", i == 2 ? "out" : "dtype");
	return 0;
}

static struct value *einsum(struct call *c, bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, numpy ? P("subscripts", "*", "out", "dtype", "optimize") : P("equation", "*"), !numpy, &a,
		      err) < 0)
		return NULL;
	if (!a.v[0])
		return args_error(err, c, &a, -1, "must specify the einstein sum subscripts string and at least one "
				  "operand, or at least one operand and its corresponding subscripts list"), args_fail(&a);
	if (numpy && numpy_keywords(c, &a, err) < 0)
		return args_fail(&a);
	if (a.v[0]->kind != V_STR)
		return args_error(err, c, &a, 0, numpy ? "einsum(): qkv takes the subscripts as a str ('ij,jk->ik'), "
				  "not numpy's sublist form" : "einsum(): argument 'equation' must be str, not %s",
				  value_type_name(a.v[0])), args_fail(&a);
	/* the operands: after the equation, or (torch) one list or tuple of them */
	struct value *ops = a.v[1];
	if (!numpy && ops && ops->n == 1 && (ops->items[0]->kind == V_LIST || ops->items[0]->kind == V_TUPLE))
		ops = ops->items[0];
	int nops = ops ? ops->n : 0;
	if (nops == 0)
		return args_error(err, c, &a, -1, numpy ? "must specify the einstein sum subscripts string and at least "
				  "one operand" : "einsum(): must provide at least one operand"), args_fail(&a);
	if (nops > MAX_OPERANDS)
		return args_error(err, c, &a, 1, "einsum(): at most %d operands in qkv", MAX_OPERANDS), args_fail(&a);
	struct tensor *x[MAX_OPERANDS] = { NULL }, *out = NULL;
	bool owned[MAX_OPERANDS] = { false };
	enum dtype dt = DT_F32;
	struct equation e;
	int64_t size[NLABELS], oshape[NLABELS], nsummed = 1;
	int sum[NLABELS], nsum = 0;
	bool in_out[NLABELS] = { false };
	if (take_operands(c, &a, numpy, ops, nops, x, owned, &dt, err) < 0)
		goto fail;
	if (parse_equation(a.v[0]->str, nops, numpy, &e, err) < 0) {
		args_error(err, c, &a, 0, "%s", err->msg);
		goto fail;
	}
	if (subscript_sizes(c, &a, numpy, &e, x, nops, size, err) < 0)
		goto fail;
	/* repeated subscripts in one term (a diagonal) take one index for both */
	for (int i = 0; i < e.nout; i++) {
		oshape[i] = size[e.out[i]];
		in_out[e.out[i]] = true;
	}
	if (e.nout > TENSOR_MAX_DIMS) {
		args_error(err, c, &a, 0, "einsum(): the output has %d dims; a tensor has at most %d", e.nout,
			   TENSOR_MAX_DIMS);
		goto fail;
	}
	for (int l = 0; l < NLABELS; l++)
		if (e.count[l] && !in_out[l])
			sum[nsum++] = l;
	for (int k = 0; k < nsum; k++)
		if (__builtin_mul_overflow(nsummed, size[sum[k]], &nsummed)) {
			args_error(err, c, &a, 0, "einsum(): the sum runs over more terms than an int64 counts");
			goto fail;
		}
	if (!(out = ops_full(&c->I->ops, dt, numpy ? FLAVOR_NUMPY : FLAVOR_TORCH, e.nout, oshape, 0, err))) {
		args_error(err, c, &a, -1, "%s", err->msg);
		goto fail;
	}
	if (contract(c->I, &e, x, nops, size, sum, nsum, nsummed, out, err) < 0) {
		args_error(err, c, &a, -1, "%s", err->msg);
		goto fail;
	}
	for (int i = 0; i < nops; i++)
		if (owned[i])
			tensor_unref(x[i]);
	return args_done(c, &a, out, err);
fail:
	for (int i = 0; i < nops; i++)
		if (owned[i])
			tensor_unref(x[i]);
	tensor_unref(out);
	return args_fail(&a);
}

struct value *pieces_einsum(struct call *c, struct qkv_error *err) { return einsum(c, false, err); }
struct value *pieces_np_einsum(struct call *c, struct qkv_error *err) { return einsum(c, true, err); }
