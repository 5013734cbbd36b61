/* select.c: picking elements by index, finding them, and padding around
 * them. torch.gather(input, dim, index) and x.gather(dim, index);
 * torch.nonzero(input, as_tuple=False), x.nonzero(), np.nonzero(a) and
 * a.nonzero() (the indices of the elements that are not 0, in row-major
 * order); F.pad(input, pad, mode='constant', value=0) (pairs of widths from
 * the last dim backwards; a negative one crops). With torch's and numpy's
 * errors; called through builtins.c's and methods.c's tables; never
 * prints. The copying itself is core's (ops_gather, ops_pad). */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- gather ----------------------------------------------------------------------------- */

static struct value *torch_gather(struct call *c, struct qkv_error *err)
{
	struct args a;
	struct tensor *x, *index;
	int at = args_bind_input(c, P("dim", "index", "sparse_grad"), 2, &a, &x, err), dim;
	if (at < 0)
		return NULL;
	if (args_dim(c, &a, at, x->ndim, &dim, err) < 0 || args_tensor(c, &a, at + 1, &index, err) < 0)
		return args_fail(&a);
	struct tensor *r = ops_gather(x, dim, index, err);
	return r ? args_done(c, &a, r, err) : (args_error(err, c, &a, at + 1, "%s", err->msg), args_fail(&a));
}

struct value *select_gather_method(struct call *c, struct qkv_error *err) { return torch_gather(c, err); }

/* ---- nonzero ------------------------------------------------------------------------------ */

/* The indices of x's elements that are not 0 (NaN is not 0, -0.0 is):
 * (count, ndim) int64 in row-major order, or, with as_tuple, a tuple of
 * ndim (count) tensors (a 0-d x counting as 1-d). */
static struct value *nonzero_of(struct tensor *x, bool as_tuple)
{
	int64_t n = tensor_numel(x), count = 0;
	for (int64_t i = 0; i < n; i++)
		count += tensor_get(x, i) != 0;
	int nd = x->ndim, cols = as_tuple && nd == 0 ? 1 : nd;
	int64_t shape[2] = { count, cols }, idx[TENSOR_MAX_DIMS] = { 0 }, one[1] = { 1 };
	struct tensor *pos = tensor_new(DT_I64, x->flavor, 2, shape);
	int64_t *p = pos->storage->data;
	for (int64_t i = 0, row = 0; i < n; i++, tensor_next_index(idx, nd ? x->shape : one, nd ? nd : 1))
		if (tensor_get(x, i) != 0) {
			for (int d = 0; d < cols; d++)
				p[row * cols + d] = idx[d];
			row++;
		}
	if (!as_tuple)
		return value_tensor(pos);
	struct value *t = value_seq(V_TUPLE, cols);
	for (int d = 0; d < cols; d++) {
		struct tensor *col = tensor_new(DT_I64, x->flavor, 1, shape);
		for (int64_t r = 0; r < count; r++)
			((int64_t *)col->storage->data)[r] = p[r * cols + d];
		t->items[d] = value_tensor(col);
	}
	tensor_unref(pos);
	return t;
}

/* torch.nonzero(input, as_tuple=False) and x.nonzero(as_tuple=False);
 * np.nonzero(a) and a.nonzero(): numpy's are always a tuple */
static struct value *nonzero(struct call *c, bool numpy, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	struct tensor *x = NULL;
	if (method) {
		if (args_bind(c, numpy ? P(NULL) : P("as_tuple"), 0, &a, err) < 0)
			return NULL;
		x = tensor_ref(c->self->t);
	} else {
		if (args_bind(c, numpy ? P("a") : P("input", "as_tuple"), 1, &a, err) < 0)
			return NULL;
		if (numpy)
			x = args_to_tensor(c, &a, 0, FLAVOR_NUMPY, false, DT_F64, err);
		else if (args_tensor(c, &a, 0, &x, err) == 0)
			tensor_ref(x);
		if (!x)
			return args_fail(&a);
	}
	bool as_tuple = numpy;
	if (!numpy && args_bool(c, &a, method ? 0 : 1, false, &as_tuple, err) < 0) {
		tensor_unref(x);
		return args_fail(&a);
	}
	struct value *r = nonzero_of(x, as_tuple);
	tensor_unref(x);
	return args_return(&a, r);
}

static struct value *torch_nonzero(struct call *c, struct qkv_error *err) { return nonzero(c, false, err); }
static struct value *np_nonzero(struct call *c, struct qkv_error *err) { return nonzero(c, true, err); }

struct value *select_nonzero_method(struct call *c, struct qkv_error *err)
{
	return nonzero(c, c->self->t->flavor == FLAVOR_NUMPY, err);
}

/* ---- pad ------------------------------------------------------------------------------------ */

/* F.pad(input, pad, mode='constant', value=None) */
static struct value *pad(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "pad", "mode", "value"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x;
	double value;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_double(c, &a, 3, 0, &value, err) < 0)
		return args_fail(&a);
	const struct value *mode = a.v[2], *pv = a.v[1];
	if (mode && (mode->kind != V_STR || strcmp(mode->str, "constant") != 0))
		return args_error(err, c, &a, 2, "F.pad(): qkv pads with a constant only (mode='constant')"),
		       args_fail(&a);
	if (pv->kind != V_TUPLE && pv->kind != V_LIST)
		return args_error(err, c, &a, 1, "F.pad(): pad must be a tuple of ints, not %s", value_type_name(pv)),
		       args_fail(&a);
	if (pv->n % 2 != 0)
		return args_error(err, c, &a, 1, "RuntimeError: Padding length must be divisible by 2"), args_fail(&a);
	if (pv->n / 2 > x->ndim)
		return args_error(err, c, &a, 1, "RuntimeError: Padding length too large"), args_fail(&a);
	int64_t before[TENSOR_MAX_DIMS] = { 0 }, after[TENSOR_MAX_DIMS] = { 0 }, shape[TENSOR_MAX_DIMS];
	for (int k = 0; k < pv->n; k++) {
		if (pv->items[k]->kind != V_INT)
			return args_error(err, c, &a, 1, "F.pad(): pad must be a tuple of ints, not of %s",
					  value_type_name(pv->items[k])), args_fail(&a);
		int64_t w = pv->items[k]->i;
		if (w < -((int64_t)1 << 40) || w > ((int64_t)1 << 40))
			return args_error(err, c, &a, 1, "F.pad(): a width of %lld is past what qkv pads", (long long)w),
			       args_fail(&a);
		int64_t *side = k % 2 == 0 ? before : after;
		side[x->ndim - 1 - k / 2] = w;	/* pairs from the last dim backwards */
	}
	/* torch first crops (narrows) by the negative widths, dim by dim, with
	 * narrow's checks; then, unless nothing grows, each new size must be > 0 */
	bool grows = false;
	for (int d = 0; d < x->ndim; d++) {
		int64_t cur = x->shape[d];
		for (int side = 0; side < 2; side++) {
			int64_t w = side ? after[d] : before[d], start = side ? 0 : -w, length = cur + w;
			grows = grows || w > 0;
			if (w >= 0)
				continue;
			if (start != cur && start >= cur)
				return args_error(err, c, &a, 1, "IndexError: Dimension out of range (expected to be in range "
						  "of [%lld, %lld], but got %lld)", (long long)-cur, (long long)cur - 1,
						  (long long)start), args_fail(&a);
			if (length < 0 || start > cur - length)
				return args_error(err, c, &a, 1, "RuntimeError: start (%lld) + length (%lld) exceeds dimension "
						  "size (%lld).", (long long)start, (long long)length, (long long)cur),
				       args_fail(&a);
			cur = length;
		}
		shape[d] = x->shape[d] + before[d] + after[d];
	}
	for (int d = 0; d < x->ndim && grows; d++)
		if (d >= x->ndim - pv->n / 2 && shape[d] <= 0)
			return args_error(err, c, &a, 1, "RuntimeError: The input size %lld, plus negative padding %lld "
					  "and %lld resulted in a negative output size, which is invalid. Check dimension "
					  "%d of your input.", (long long)x->shape[d], (long long)before[d],
					  (long long)after[d], d), args_fail(&a);
	struct tensor *out = ops_pad(&c->I->ops, x, before, shape, value, err);
	if (!out)
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, out, err);
}

const struct builtin select_functions[] = {
	{ "torch.gather", torch_gather }, { "torch.nonzero", torch_nonzero }, { "numpy.nonzero", np_nonzero },
	{ "torch.nn.functional.pad", pad },
	{ NULL, NULL },
};
