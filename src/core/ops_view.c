/* ops_view.c: views with PyTorch's rules: reshape and view, transpose,
 * permute, select, index_select, unsqueeze, expand; each shares its
 * source's storage (strides and an offset, no copy) where torch's does.
 * Like ops.c, never prints: a bad shape, dim or index comes back as NULL with
 * a message in the error record, naming the shapes involved. */
#include "core/ops_private.h"

#include <string.h>

static struct tensor *view_with(struct tensor *t, int ndim, const int64_t *shape, const int64_t *strides)
{
	struct tensor *v = tensor_alias(t);
	v->ndim = ndim;
	for (int i = 0; i < ndim; i++) {
		v->shape[i] = shape[i];
		v->strides[i] = strides[i];
	}
	return v;
}

/* Resolves one -1 in shape against numel; checks the count matches. */
static int infer_shape(const struct ops_ctx *ctx, const struct tensor *t, int ndim, const int64_t *in, int64_t *out,
		       struct qkv_error *err)
{
	char b1[96], b2[96];
	if (ndim > TENSOR_MAX_DIMS)
		return error_set(err, 0, 0, "qkv tensors have at most %d dimensions, the new shape has %d",
				 TENSOR_MAX_DIMS, ndim);
	int infer = -1;
	int64_t known = 1, numel = tensor_numel(t);
	for (int i = 0; i < ndim; i++) {
		out[i] = in[i];
		if (in[i] == -1) {
			if (infer >= 0)
				return error_set(err, 0, 0, "only one dimension can be -1 (inferred)");
			infer = i;
		} else if (in[i] < 0) {
			return error_set(err, 0, 0, "invalid shape dimension %lld", (long long)in[i]);
		} else if (__builtin_mul_overflow(known, in[i], &known)) {
			return error_set(err, 0, 0, "shape %s is far too large", tensor_shape_str(b1, sizeof b1, ndim, in));
		}
	}
	if (infer >= 0) {
		if (known == 0 || numel % known != 0)
			return error_set(err, 0, 0, "shape %s is invalid for a tensor of %lld elements",
					 tensor_shape_str(b1, sizeof b1, ndim, in), (long long)numel);
		out[infer] = numel / known;
		known *= out[infer];
	}
	if (known != numel)
		return error_set(err, 0, 0, "shape %s is invalid for a tensor of shape %s (%lld elements)",
				 tensor_shape_str(b1, sizeof b1, ndim, in), shp(b2, t), (long long)numel);
	/* an empty tensor may take any shape with a 0 in it: keep its other
	 * sizes within the limit like any new tensor's */
	return ops_check_shape(ctx, ndim, out, err);
}

/* torch's computeStride: strides for viewing t as newshape without a copy,
 * or false when the memory layout does not allow it. */
static bool compute_view_strides(const struct tensor *t, int ndim, const int64_t *newshape, int64_t *newstrides)
{
	if (tensor_numel(t) == 0 || t->ndim == 0) {
		int64_t s = 1;
		for (int i = ndim - 1; i >= 0; i--) {
			newstrides[i] = s;
			s *= newshape[i] > 0 ? newshape[i] : 1;
		}
		return true;
	}
	int view_d = ndim - 1;
	int64_t chunk_base_stride = t->strides[t->ndim - 1];
	int64_t tensor_numel = 1, view_numel = 1;
	for (int tensor_d = t->ndim - 1; tensor_d >= 0; tensor_d--) {
		tensor_numel *= t->shape[tensor_d];
		if (tensor_d == 0 ||
		    (t->shape[tensor_d - 1] != 1 && t->strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
			while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
				newstrides[view_d] = view_numel * chunk_base_stride;
				view_numel *= newshape[view_d];
				view_d--;
			}
			if (view_numel != tensor_numel)
				return false;
			if (tensor_d > 0) {
				chunk_base_stride = t->strides[tensor_d - 1];
				tensor_numel = 1;
				view_numel = 1;
			}
		}
	}
	return view_d == -1;
}

struct tensor *ops_view(const struct ops_ctx *ctx, struct tensor *t, int ndim, const int64_t *shape,
		       struct qkv_error *err)
{
	int64_t s[TENSOR_MAX_DIMS], st[TENSOR_MAX_DIMS];
	if (infer_shape(ctx, t, ndim, shape, s, err) < 0)
		return NULL;
	if (!compute_view_strides(t, ndim, s, st)) {
		char b[96];
		error_set(err, 0, 0, "view of a non-contiguous tensor of shape %s: its elements are not laid out "
			  "in order (after a transpose); call .contiguous() first, or use .reshape()", shp(b, t));
		return NULL;
	}
	return view_with(t, ndim, s, st);
}

struct tensor *ops_reshape(const struct ops_ctx *ctx, struct tensor *t, int ndim, const int64_t *shape,
			  struct qkv_error *err)
{
	int64_t s[TENSOR_MAX_DIMS], st[TENSOR_MAX_DIMS];
	if (infer_shape(ctx, t, ndim, shape, s, err) < 0)
		return NULL;
	if (compute_view_strides(t, ndim, s, st))
		return view_with(t, ndim, s, st);
	struct tensor *c = ops_contiguous(t);
	struct tensor *v = ops_view(ctx, c, ndim, s, err);
	tensor_unref(c);
	return v;
}

struct tensor *ops_transpose(struct tensor *t, int d0, int d1, struct qkv_error *err)
{
	if (t->ndim == 0) {
		if ((d0 == 0 || d0 == -1) && (d1 == 0 || d1 == -1))
			return tensor_alias(t);
	}
	if ((d0 = ops_norm_dim(d0, t->ndim, err)) < 0 || (d1 = ops_norm_dim(d1, t->ndim, err)) < 0)
		return NULL;
	struct tensor *v = tensor_alias(t);
	if (t->ndim == 0)
		return v;
	int64_t s = v->shape[d0], st = v->strides[d0];
	v->shape[d0] = v->shape[d1];
	v->strides[d0] = v->strides[d1];
	v->shape[d1] = s;
	v->strides[d1] = st;
	return v;
}

struct tensor *ops_permute(struct tensor *t, const int *perm, int n, struct qkv_error *err)
{
	if (n != t->ndim) {
		error_set(err, 0, 0, "permute needs %d dims for a %d-D tensor, got %d", t->ndim, t->ndim, n);
		return NULL;
	}
	bool seen[TENSOR_MAX_DIMS] = { false };
	struct tensor *v = tensor_alias(t);
	for (int i = 0; i < n; i++) {
		int d = ops_norm_dim(perm[i], t->ndim, err);
		if (d < 0 || seen[d]) {
			if (d >= 0)
				error_set(err, 0, 0, "permute: dim %d appears twice", perm[i]);
			tensor_unref(v);
			return NULL;
		}
		seen[d] = true;
		v->shape[i] = t->shape[d];
		v->strides[i] = t->strides[d];
	}
	return v;
}

struct tensor *ops_reverse_dims(struct tensor *t)
{
	struct tensor *v = tensor_alias(t);
	for (int i = 0; i < t->ndim; i++) {
		v->shape[i] = t->shape[t->ndim - 1 - i];
		v->strides[i] = t->strides[t->ndim - 1 - i];
	}
	return v;
}

/* The dimension dim of t that an index picks along (negative counts from
 * the end), or -1 with err: a 0-d tensor has none. */
static int index_dim(const struct tensor *t, int dim, struct qkv_error *err)
{
	if (t->ndim == 0) {
		error_set(err, 0, 0, "a 0-d tensor (a single number) cannot be indexed");
		return -1;
	}
	return ops_norm_dim(dim, t->ndim, err);
}

/* 0 when index is in range for dimension dim of t, else -1 with err. */
static int index_in_range(const struct tensor *t, int dim, int64_t index, struct qkv_error *err)
{
	int64_t n = t->shape[dim];
	if (index >= -n && index < n)
		return 0;
	error_set(err, 0, 0, "index %lld is out of range for dimension %d with size %lld", (long long)index, dim,
		  (long long)n);
	return -1;
}

struct tensor *ops_index_select(struct tensor *t, int dim, const int64_t *idx, int64_t n, struct qkv_error *err)
{
	if ((dim = index_dim(t, dim, err)) < 0)
		return NULL;
	int64_t len = t->shape[dim];
	for (int64_t k = 0; k < n; k++)
		if (index_in_range(t, dim, idx[k], err) < 0)
			return NULL;
	int64_t shape[TENSOR_MAX_DIMS], outer = 1, inner = 1;
	for (int i = 0; i < t->ndim; i++) {
		shape[i] = i == dim ? n : t->shape[i];
		if (i < dim)
			outer *= t->shape[i];
		else if (i > dim)
			inner *= t->shape[i];
	}
	struct tensor *c = contig_as(t, t->dtype);
	struct tensor *out = tensor_new(t->dtype, t->flavor, t->ndim, shape);
	size_t row = (size_t)inner * dtype_size(t->dtype);
	const char *src = tensor_data(c);
	char *dst = out->storage->data;
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t k = 0; k < n; k++) {
			int64_t j = idx[k] < 0 ? idx[k] + len : idx[k];
			memcpy(dst + (size_t)(o * n + k) * row, src + (size_t)(o * len + j) * row, row);
		}
	}
	tensor_unref(c);
	return out;
}

struct tensor *ops_select(struct tensor *t, int dim, int64_t index, struct qkv_error *err)
{
	if ((dim = index_dim(t, dim, err)) < 0 || index_in_range(t, dim, index, err) < 0)
		return NULL;
	if (index < 0)
		index += t->shape[dim];
	struct tensor *v = tensor_alias(t);
	v->offset += index * t->strides[dim];
	for (int i = dim; i < t->ndim - 1; i++) {
		v->shape[i] = t->shape[i + 1];
		v->strides[i] = t->strides[i + 1];
	}
	v->ndim--;
	return v;
}

struct tensor *ops_slice(struct tensor *t, int dim, bool has_start, int64_t start, bool has_stop,
			 int64_t stop, int64_t step, struct qkv_error *err)
{
	if (t->ndim == 0) {
		error_set(err, 0, 0, "a 0-d tensor (a single number) cannot be sliced");
		return NULL;
	}
	if ((dim = ops_norm_dim(dim, t->ndim, err)) < 0)
		return NULL;
	if (step <= 0) {
		error_set(err, 0, 0, "slice step must be positive, got %lld", (long long)step);
		return NULL;
	}
	int64_t n = t->shape[dim];
	if (!has_start)
		start = 0;
	if (!has_stop)
		stop = n;
	if (start < 0)
		start += n;
	if (stop < 0)
		stop += n;
	start = start < 0 ? 0 : start > n ? n : start;
	stop = stop < start ? start : stop > n ? n : stop;
	/* a step past the end takes one element at most: its stride then does
	 * not matter, and clamping it keeps stride * step from overflowing */
	if (step > n)
		step = n > 0 ? n : 1;
	struct tensor *v = tensor_alias(t);
	v->offset += start * t->strides[dim];
	v->shape[dim] = (stop - start) / step + ((stop - start) % step != 0);
	v->strides[dim] = t->strides[dim] * step;
	return v;
}

struct tensor *ops_unsqueeze(struct tensor *t, int dim, struct qkv_error *err)
{
	if (t->ndim >= TENSOR_MAX_DIMS) {
		error_set(err, 0, 0, "qkv tensors have at most %d dimensions", TENSOR_MAX_DIMS);
		return NULL;
	}
	if (dim < -(t->ndim + 1) || dim > t->ndim) {
		error_set(err, 0, 0, "dim %d is out of range for unsqueeze of a %d-D tensor", dim, t->ndim);
		return NULL;
	}
	if (dim < 0)
		dim += t->ndim + 1;
	struct tensor *v = tensor_alias(t);
	for (int i = t->ndim; i > dim; i--) {
		v->shape[i] = t->shape[i - 1];
		v->strides[i] = t->strides[i - 1];
	}
	v->shape[dim] = 1;
	v->strides[dim] = dim < t->ndim ? t->strides[dim] * t->shape[dim] : 1;
	v->ndim++;
	return v;
}

struct tensor *ops_expand(struct tensor *t, int ndim, const int64_t *shape, struct qkv_error *err)
{
	char b1[96], b2[96];
	if (ndim < t->ndim)
		goto bad;
	int64_t st[TENSOR_MAX_DIMS];
	int off = ndim - t->ndim;
	for (int i = ndim - 1; i >= 0; i--) {
		if (i < off) {	/* a new dim: of 1, the stride torch gives it (over the dims after it) */
			st[i] = shape[i] != 1 ? 0 : i + 1 < ndim ? shape[i + 1] * st[i + 1] : 1;
			continue;
		}
		int64_t s = t->shape[i - off];
		if (s == shape[i])
			st[i] = t->strides[i - off];
		else if (s == 1)
			st[i] = 0;
		else
			goto bad;
	}
	return view_with(t, ndim, shape, st);
bad:
	error_set(err, 0, 0, "shape %s cannot be broadcast to %s", shp(b1, t),
		  tensor_shape_str(b2, sizeof b2, ndim, shape));
	return NULL;
}

struct tensor *ops_flatten(const struct ops_ctx *ctx, struct tensor *t, int64_t start, int64_t end,
			   struct qkv_error *err)
{
	int s = ops_norm_dim(start, t->ndim, err), e = s < 0 ? -1 : ops_norm_dim(end, t->ndim, err);
	if (s < 0 || e < 0)
		return NULL;
	if (s > e) {
		error_set(err, 0, 0, "flatten() has invalid args: start_dim cannot come after end_dim");
		return NULL;
	}
	if (t->ndim == 0) {
		int64_t one = 1;
		return ops_reshape(ctx, t, 1, &one, err);
	}
	if (s == e)
		return tensor_ref(t);	/* torch gives the tensor itself */
	int64_t shape[TENSOR_MAX_DIMS];
	int n = 0;
	for (int i = 0; i < t->ndim; i++) {
		if (i <= s || i > e)
			shape[n++] = t->shape[i];
		else
			shape[n - 1] *= t->shape[i];
	}
	return ops_reshape(ctx, t, n, shape, err);
}
