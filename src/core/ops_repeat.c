/* ops_repeat.c: the copies that move a tensor's elements: tiling (torch's
 * x.repeat, np.tile), repeating each element in place (np.repeat,
 * torch.repeat_interleave), reversing dims (torch.flip, np.flip), picking
 * along a dim (torch.gather) and padding (F.pad). Data movement only: the
 * values are copied byte for byte. */
#include "core/ops_private.h"

#include <string.h>

struct tensor *ops_tile(const struct ops_ctx *ctx, struct tensor *x, int nd, const int64_t *reps,
			struct qkv_error *err)
{
	int64_t shape[TENSOR_MAX_DIMS], src[TENSOR_MAX_DIMS];
	if (nd < x->ndim || nd > TENSOR_MAX_DIMS)
		return error_set(err, 0, 0, "Number of dimensions of repeat dims can not be smaller than number of "
				 "dimensions of tensor"),
		       NULL;
	int off = nd - x->ndim;
	for (int i = 0; i < nd; i++) {
		src[i] = i < off ? 1 : x->shape[i - off];
		if (__builtin_mul_overflow(reps[i], src[i], &shape[i]) || (reps[i] >= 0 && !tensor_numel_fits(i + 1, shape)))
			return error_set(err, 0, 0, "repeat: the result would hold more elements than an int64 counts"),
			       NULL;
	}
	for (int i = 0; i < nd; i++) {
		char buf[96];
		if (shape[i] < 0)
			return error_set(err, 0, 0, "Trying to create tensor with negative dimension %lld: %s",
					 (long long)shape[i], tensor_shape_str(buf, sizeof buf, nd, shape)),
			       NULL;
	}
	struct tensor *out = ops_new(ctx, x->dtype, x->flavor, nd, shape, err);
	if (!out)
		return NULL;
	size_t es = dtype_size(x->dtype);
	int64_t n = tensor_numel(out);
	char *to = out->storage->data;
	const char *from = x->storage->data;
	for (int64_t i = 0; i < n; i++) {
		/* out's index, dim by dim from the last, each taken modulo x's size */
		int64_t rest = i, flat = 0, scale = 1;
		for (int d = nd - 1; d >= 0; d--) {
			int64_t k = rest % shape[d];
			rest /= shape[d];
			if (d >= off) {
				flat += (k % src[d]) * scale;
				scale *= src[d];
			}
		}
		memcpy(to + (size_t)i * es, from + (size_t)tensor_flat_offset(x, flat) * es, es);
	}
	return out;
}

struct tensor *ops_repeat_each(const struct ops_ctx *ctx, struct tensor *x, int dim, const int64_t *counts,
			       int64_t ncounts, struct qkv_error *err)
{
	int64_t len = x->shape[dim], total = 0;
	if (ncounts != 1 && ncounts != len)
		return error_set(err, 0, 0, "RuntimeError: repeats must have the same size as input along dim"), NULL;
	for (int64_t i = 0; i < len; i++) {
		int64_t r = counts[ncounts == 1 ? 0 : i];
		if (r < 0)
			return error_set(err, 0, 0, "RuntimeError: repeats can not be negative"), NULL;
		if (__builtin_add_overflow(total, r, &total))
			return error_set(err, 0, 0, "repeat: the result would hold more elements than an int64 counts"),
			       NULL;
	}
	int64_t shape[TENSOR_MAX_DIMS];
	memcpy(shape, x->shape, sizeof shape[0] * (size_t)x->ndim);
	shape[dim] = total;
	if (!tensor_numel_fits(x->ndim, shape))
		return error_set(err, 0, 0, "repeat: the result would hold more elements than an int64 counts"), NULL;
	struct tensor *out = ops_new(ctx, x->dtype, x->flavor, x->ndim, shape, err);
	if (!out)
		return NULL;
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < dim; i++)
		outer *= x->shape[i];
	for (int i = dim + 1; i < x->ndim; i++)
		inner *= x->shape[i];
	size_t es = dtype_size(x->dtype);
	char *to = out->storage->data;
	const char *from = x->storage->data;
	int64_t o_at = 0;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < len; i++)
			for (int64_t r = counts[ncounts == 1 ? 0 : i]; r > 0; r--)
				for (int64_t k = 0; k < inner; k++, o_at++) {
					int64_t flat = (o * len + i) * inner + k;
					memcpy(to + (size_t)o_at * es, from + (size_t)tensor_flat_offset(x, flat) * es, es);
				}
	return out;
}

struct tensor *ops_flip(struct tensor *x, int n, const int *dims)
{
	bool flip[TENSOR_MAX_DIMS] = { false };
	for (int i = 0; i < n; i++)
		flip[dims[i]] = true;
	struct tensor *out = tensor_new(x->dtype, x->flavor, x->ndim, x->shape);
	int64_t total = tensor_numel(out), idx[TENSOR_MAX_DIMS] = { 0 };
	size_t es = dtype_size(x->dtype);
	char *to = out->storage->data;
	const char *from = tensor_data(x);
	for (int64_t k = 0; k < total; k++) {
		int64_t at = 0;	/* x's element for out's index idx */
		for (int d = 0; d < x->ndim; d++)
			at += (flip[d] ? x->shape[d] - 1 - idx[d] : idx[d]) * x->strides[d];
		memcpy(to + (size_t)k * es, from + (size_t)at * es, es);
		tensor_next_index(idx, x->shape, x->ndim);
	}
	return out;
}

struct tensor *ops_gather(struct tensor *x, int dim, struct tensor *index, struct qkv_error *err)
{
	if (index->dtype != DT_I64)
		return error_set(err, 0, 0, "RuntimeError: gather(): Expected dtype int64 for index"), NULL;
	if (index->ndim != x->ndim && !(x->ndim <= 1 && index->ndim <= 1))
		return error_set(err, 0, 0, "RuntimeError: Index tensor must have the same number of dimensions as input "
				 "tensor"), NULL;
	for (int d = 0; d < index->ndim; d++)
		if (d != dim && index->shape[d] > (x->ndim ? x->shape[d] : 1)) {
			char b1[96], b2[96];
			return error_set(err, 0, 0, "RuntimeError: Size does not match at dimension %d expected index %s to "
					 "be smaller than self %s apart from dimension %d", d,
					 tensor_shape_str(b1, sizeof b1, index->ndim, index->shape),
					 tensor_shape_str(b2, sizeof b2, x->ndim, x->shape), dim), NULL;
		}
	struct tensor *out = tensor_new(x->dtype, x->flavor, index->ndim, index->shape);
	int64_t n = tensor_numel(index), idx[TENSOR_MAX_DIMS] = { 0 }, size = x->ndim ? x->shape[dim] : 1;
	size_t es = dtype_size(x->dtype);
	const char *from = tensor_data(x);
	const int64_t *picks = tensor_data(index);
	for (int64_t k = 0; k < n; k++, tensor_next_index(idx, index->shape, index->ndim)) {
		int64_t at = 0, src = 0;
		for (int d = 0; d < index->ndim; d++)
			at += idx[d] * index->strides[d];
		int64_t pick = picks[at];
		if (pick < 0 || pick >= size) {
			tensor_unref(out);
			return error_set(err, 0, 0, "RuntimeError: index %lld is out of bounds for dimension %d with size "
					 "%lld", (long long)pick, dim, (long long)size), NULL;
		}
		for (int d = 0; d < x->ndim; d++)
			src += (d == dim ? pick : idx[d]) * x->strides[d];
		memcpy((char *)out->storage->data + (size_t)k * es, from + (size_t)src * es, es);
	}
	return out;
}

struct tensor *ops_pad(const struct ops_ctx *ctx, struct tensor *x, const int64_t *before, const int64_t *shape,
		       double value, struct qkv_error *err)
{
	struct tensor *out = ops_full(ctx, x->dtype, x->flavor, x->ndim, shape, value, err);
	if (!out)
		return NULL;
	int64_t n = tensor_numel(x), idx[TENSOR_MAX_DIMS] = { 0 };
	size_t es = dtype_size(x->dtype);
	for (int64_t k = 0; k < n; k++, tensor_next_index(idx, x->shape, x->ndim)) {
		int64_t to = 0, from = 0;
		bool inside = true;
		for (int d = 0; d < x->ndim && inside; d++) {
			int64_t o = idx[d] + before[d];	/* (cropped away when outside) */
			inside = o >= 0 && o < shape[d];
			to = to * shape[d] + o;
			from += idx[d] * x->strides[d];
		}
		if (inside)
			memcpy((char *)out->storage->data + (size_t)to * es, (const char *)tensor_data(x) + (size_t)from * es,
			       es);
	}
	return out;
}
