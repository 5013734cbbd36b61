/* pieces.c: the functions and tensor methods that cut a tensor into pieces
 * or repeat it, and that choose between two: split and chunk (views along a
 * dim, as a tuple), expand (a view), repeat (a copy), torch.where and
 * np.where (an elementwise choice, or the indices of the true elements).
 * Each binds its arguments as torch or numpy names them (lang/bound.h),
 * refuses what they refuse in their words, and calls core/ops; called
 * through builtins.c's and methods.c's tables; never prints. */
#include "lang/bound.h"
#include "lang/runtime.h"
#include "core/mem.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

static struct ops_ctx *OPS(struct call *c)
{
	return &c->I->ops;
}

/* ---- split and chunk ------------------------------------------------------------------- */

/* The views of x along dim of the sizes given, as a tuple; NULL with err
 * when they would be more items than a tuple may hold. */
static struct value *views_along(struct tensor *x, int dim, const int64_t *sizes, int64_t n, struct qkv_error *err)
{
	if (value_check_items(V_TUPLE, n, err) < 0)
		return NULL;
	struct value *r = value_seq(V_TUPLE, (int)n);
	int64_t start = 0;
	for (int64_t i = 0; i < n; i++) {
		r->items[i] = value_tensor(ops_slice(x, dim, true, start, true, start + sizes[i], 1, err));
		start += sizes[i];
	}
	return r;
}

/* Pieces of size `size` (the last smaller) of a dim of n: their count into
 * *count and their sizes, malloc'd. torch gives one piece of a dim of 0. */
static int64_t *even_pieces(int64_t n, int64_t size, int64_t *count)
{
	*count = n == 0 || size == 0 ? 1 : n / size + (n % size != 0);
	int64_t *sizes = xcalloc((size_t)*count, sizeof *sizes);
	for (int64_t i = 0; i < *count; i++)
		sizes[i] = n - i * size < size ? n - i * size : size;
	return sizes;
}

static int split_dim(struct call *c, struct bound *b, int i, int *dim, struct qkv_error *err)
{
	*dim = 0;
	if (b->x->ndim == 0)
		return args_error(err, c, &b->a, -1, "split expects at least a 1-dimensional tensor");
	return given(b, i) ? args_dim(c, &b->a, i - b->off, b->x->ndim, dim, err) : 0;
}

/* The sizes a list or tuple of sections gives (argument 1), which must add
 * up to n, the size of dim; NULL with torch's error. */
static int64_t *section_sizes(struct call *c, struct bound *b, int64_t n, int dim, int64_t *count,
			      struct qkv_error *err)
{
	const struct value *s = arg(b, 1);
	struct strbuf list;
	strbuf_init(&list);
	strbuf_puts(&list, "");
	int64_t sum = 0;
	bool negative = false, over = false;
	int64_t *sizes = xcalloc((size_t)s->n + 1, sizeof *sizes);
	for (int k = 0; k < s->n; k++) {
		if (s->items[k]->kind != V_INT) {
			args_error(err, c, &b->a, 1 - b->off, "%s(): split_size_or_sections must be an int or a list of "
				   "ints, not a list holding %s", c->name, value_type_name(s->items[k]));
			goto fail;
		}
		sizes[k] = s->items[k]->i;
		negative = negative || sizes[k] < 0;
		over = over || __builtin_add_overflow(sum, sizes[k], &sum);
		strbuf_printf(&list, "%s%lld", k ? ", " : "", (long long)sizes[k]);
	}
	if (negative) {
		args_error(err, c, &b->a, 1 - b->off, "split_with_sizes expects split_sizes have only non-negative "
			   "entries, but got split_sizes=[%s]", list.s);
		goto fail;
	}
	if (over || sum != n) {
		args_error(err, c, &b->a, 1 - b->off, "split_with_sizes expects split_sizes to sum exactly to %lld "
			   "(input tensor's size at dimension %d), but got split_sizes=[%s]", (long long)n, dim, list.s);
		goto fail;
	}
	strbuf_free(&list);
	*count = s->n;
	return sizes;
fail:
	strbuf_free(&list);
	free(sizes);
	return NULL;
}

/* torch.split(tensor, split_size_or_sections, dim=0), x.split(...) */
struct value *pieces_split(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("tensor", "split_size_or_sections", "dim"), 2, &b, err) < 0)
		return NULL;
	int dim;
	if (split_dim(c, &b, 2, &dim, err) < 0)
		return bound_fail(&b);
	int64_t n = b.x->shape[dim], count = 0, *sizes;
	if (arg(&b, 1)->kind == V_LIST || arg(&b, 1)->kind == V_TUPLE) {
		if (!(sizes = section_sizes(c, &b, n, dim, &count, err)))
			return bound_fail(&b);
	} else {
		int64_t size;
		if (args_int(c, &b.a, 1 - b.off, 0, &size, err) < 0)
			return bound_fail(&b);
		if (size < 0)
			return FAIL_AT(c, &b, 1, "split expects split_size be non-negative, but got split_size=%lld",
				       (long long)size);
		if (size == 0 && n != 0)
			return FAIL_AT(c, &b, 1, "split_size can only be 0 if dimension size is 0, but got dimension "
				       "size of %lld", (long long)n);
		sizes = even_pieces(n, size, &count);
	}
	struct value *r = views_along(b.x, dim, sizes, count, err);
	free(sizes);
	return r ? bound_return(&b, r) : bound_fail(&b);
}

/* torch.chunk(input, chunks, dim=0), x.chunk(...): pieces of
 * ceil(n / chunks), so there may be fewer than chunks */
struct value *pieces_chunk(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("input", "chunks", "dim"), 2, &b, err) < 0)
		return NULL;
	int dim;
	int64_t chunks;
	if (split_dim(c, &b, 2, &dim, err) < 0 || args_int(c, &b.a, 1 - b.off, 0, &chunks, err) < 0)
		return bound_fail(&b);
	if (chunks <= 0)
		return FAIL_AT(c, &b, 1, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
	int64_t n = b.x->shape[dim], count, *sizes;
	if (n == 0) {	/* as many empty pieces as asked for */
		count = chunks;
		if (value_check_items(V_TUPLE, count, err) < 0)
			return bound_fail(&b);
		sizes = xcalloc((size_t)count, sizeof *sizes);
	} else {
		sizes = even_pieces(n, n / chunks + (n % chunks != 0), &count);
	}
	struct value *r = views_along(b.x, dim, sizes, count, err);
	free(sizes);
	return r ? bound_return(&b, r) : bound_fail(&b);
}

/* ---- expand and repeat ----------------------------------------------------------------- */

static const char *shape_text(char *buf, size_t size, int ndim, const int64_t *shape)
{
	return tensor_shape_str(buf, size, ndim, shape);
}

struct tensor *pieces_expand_to(struct tensor *x, int nd, const int64_t *sizes, struct qkv_error *err)
{
	int64_t shape[TENSOR_MAX_DIMS];
	char want[96], have[96];
	memcpy(shape, sizes, sizeof shape[0] * (size_t)nd);
	if (nd < x->ndim)
		return error_set(err, 0, 0, "expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) "
				 "must be greater or equal to the number of dimensions in the tensor (%d)",
				 x->dtype == DT_F32 ? "Float" : x->dtype == DT_F64 ? "Double" : x->dtype == DT_I64 ? "Long"
				 : "Bool", shape_text(have, sizeof have, x->ndim, x->shape), shape_text(want, sizeof want, nd,
				 shape), nd, x->ndim), NULL;
	/* as torch checks them: from the last dim */
	int off = nd - x->ndim;
	for (int i = nd - 1; i >= 0; i--) {
		int64_t size = i >= off ? x->shape[i - off] : 1;
		if (shape[i] == -1 && i < off)
			return error_set(err, 0, 0, "The expanded size of the tensor (-1) isn't allowed in a leading, "
					 "non-existing dimension %d", i), NULL;
		if (shape[i] == -1)
			shape[i] = size;
		if (size != 1 && size != shape[i])
			return error_set(err, 0, 0, "The expanded size of the tensor (%lld) must match the existing "
					 "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
					 (long long)shape[i], (long long)size, i, shape_text(want, sizeof want, nd, sizes),
					 shape_text(have, sizeof have, x->ndim, x->shape)), NULL;
	}
	if (!tensor_numel_fits(nd, shape))
		return error_set(err, 0, 0, "expand: a tensor of shape %s would hold more elements than an int64 "
				 "counts", shape_text(want, sizeof want, nd, shape)), NULL;
	return ops_expand(x, nd, shape, err);
}

/* x.expand(*sizes): a view, -1 keeping a dim, new dims in front */
struct value *pieces_expand(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("*"), 1, &a, err) < 0)
		return NULL;
	int nd;
	int64_t shape[TENSOR_MAX_DIMS];
	if (args_shape(c, &a, 0, &nd, shape, true, err) < 0)
		return args_fail(&a);
	struct tensor *r = pieces_expand_to(c->self->t, nd, shape, err);
	return r ? args_done(c, &a, r, err) : (args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a));
}

/* x.repeat(*sizes): a copy, x tiled sizes[i] times along each dim (new
 * dims in front) */
struct value *pieces_repeat(struct call *c, struct qkv_error *err)
{
	if (c->self->t->flavor == FLAVOR_NUMPY)	/* a.repeat(repeats, axis): np.repeat */
		return pieces_np_repeat(c, err);
	struct args a;
	if (args_bind(c, P("*"), 1, &a, err) < 0)
		return NULL;
	int nd;
	int64_t reps[TENSOR_MAX_DIMS];
	if (args_shape(c, &a, 0, &nd, reps, true, err) < 0)
		return args_fail(&a);
	struct tensor *r = ops_tile(OPS(c), c->self->t, nd, reps, err);
	return r ? args_done(c, &a, r, err) : (args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a));
}

/* np.tile(A, reps): reps (an int or a tuple) padded with 1s in front to A's
 * dims, or A with 1s in front to theirs */
static struct value *np_tile(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("A", "reps"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x = args_array(c, &a, 0, err);
	int nd;
	int64_t reps[TENSOR_MAX_DIMS], full[TENSOR_MAX_DIMS];
	if (!x || args_shape(c, &a, 1, &nd, reps, true, err) < 0) {
		tensor_unref(x);
		return args_fail(&a);
	}
	int n = nd > x->ndim ? nd : x->ndim;
	for (int i = 0; i < n; i++)
		full[i] = i < n - nd ? 1 : reps[i - (n - nd)];
	for (int i = 0; i < n; i++)
		if (full[i] < 0) {
			tensor_unref(x);
			return args_error(err, c, &a, 1, "ValueError: negative dimensions are not allowed"), args_fail(&a);
		}
	struct tensor *r = ops_tile(OPS(c), x, n, full, err);
	tensor_unref(x);
	return r ? args_done(c, &a, r, err) : (args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a));
}

/* Argument i as repeat counts, into *counts (*n of them, the caller frees):
 * an int, or a list, tuple or 1-D integer tensor of them. */
static int repeat_counts(struct call *c, struct args *a, int i, int64_t **counts, int64_t *n, struct qkv_error *err)
{
	const struct value *v = a->v[i];
	*counts = NULL;
	if (v->kind == V_INT || v->kind == V_BOOL) {
		*n = 1;
		*counts = xmalloc(sizeof **counts);
		**counts = v->kind == V_INT ? v->i : v->b;
		return 0;
	}
	struct tensor *t = v->kind == V_TENSOR ? tensor_ref(v->t) : args_array(c, a, i, err);
	if (!t)
		return -1;
	if (t->dtype != DT_I64 || t->ndim > 1) {
		tensor_unref(t);
		return args_error(err, c, a, i, "repeats must be an integer or a 1-D sequence of integers, not %s",
				  value_type_name(v));
	}
	*n = tensor_numel(t);
	*counts = xmalloc((size_t)(*n > 0 ? *n : 1) * sizeof **counts);
	for (int64_t k = 0; k < *n; k++)
		(*counts)[k] = tensor_get_i64(t, k);
	tensor_unref(t);
	return 0;
}

/* np.repeat(a, repeats, axis=None) and a.repeat(repeats, axis=None), or
 * torch.repeat_interleave(input, repeats, dim=None) and its method: each
 * element repeated in place along the axis, the array flattened first
 * without one. */
static struct value *repeat_each(struct call *c, bool numpy, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	if (args_bind(c, method ? (numpy ? P("repeats", "axis") : P("repeats", "dim"))
			       : (numpy ? P("a", "repeats", "axis") : P("input", "repeats", "dim")),
		      method ? 1 : 2, &a, err) < 0)
		return NULL;
	int ir = method ? 0 : 1;
	struct tensor *x = method ? tensor_ref(c->self->t) : numpy ? args_array(c, &a, 0, err) : NULL;
	if (!method && !numpy) {
		struct tensor *t;
		if (args_tensor(c, &a, 0, &t, err) < 0)
			return args_fail(&a);
		x = tensor_ref(t);
	}
	if (!x)
		return args_fail(&a);
	int64_t *counts = NULL, n = 0;
	struct tensor *r = NULL, *src = NULL;
	int dim = 0;
	if (!numpy && a.v[ir]->kind != V_INT && a.v[ir]->kind != V_TENSOR) {
		args_error(err, c, &a, ir, "TypeError: repeat_interleave() received an invalid combination of arguments - "
			   "got (%s), but expected one of: (Tensor repeats, int dim) or (int repeats, int dim)",
			   value_type_name(a.v[ir]));
		goto done;
	}
	if (repeat_counts(c, &a, ir, &counts, &n, err) < 0)
		goto done;
	if (a.v[ir + 1] && a.v[ir + 1]->kind != V_NONE) {
		if (args_axis(c, &a, ir + 1, x->ndim, numpy ? FLAVOR_NUMPY : FLAVOR_TORCH, &dim, err) < 0)
			goto done;
		src = tensor_ref(x);
	} else {	/* flattened */
		int64_t len = tensor_numel(x);
		if (!(src = ops_reshape(OPS(c), x, 1, &len, err)))
			goto done;
	}
	if (numpy) {	/* numpy's words for a count it refuses */
		for (int64_t k = 0; k < n; k++)
			if (counts[k] < 0) {
				args_error(err, c, &a, ir, "ValueError: negative dimensions are not allowed");
				goto done;
			}
		if (n != 1 && n != src->shape[dim]) {
			args_error(err, c, &a, ir, "ValueError: operands could not be broadcast together with shape (%lld,) "
				   "(%lld,)", (long long)src->shape[dim], (long long)n);
			goto done;
		}
	}
	if (!(r = ops_repeat_each(OPS(c), src, dim, counts, n, err)))
		args_error(err, c, &a, ir, "%s", err->msg);
done:
	free(counts);
	tensor_unref(src);
	tensor_unref(x);
	return r ? args_done(c, &a, r, err) : args_fail(&a);
}

struct value *pieces_np_repeat(struct call *c, struct qkv_error *err) { return repeat_each(c, true, err); }
struct value *pieces_repeat_interleave(struct call *c, struct qkv_error *err)
{
	return repeat_each(c, false, err);
}

/* ---- where ----------------------------------------------------------------------------- */

/* The indices of cond's true (numpy: non-zero) elements, one tensor of
 * them per dim, in row-major order: torch.nonzero(as_tuple=True). */
static struct value *true_indices(struct tensor *cond, struct qkv_error *err)
{
	int nd = cond->ndim > 0 ? cond->ndim : 1;
	int64_t n = tensor_numel(cond), count = 0;
	for (int64_t i = 0; i < n; i++)
		count += tensor_get(cond, i) != 0;
	if (value_check_items(V_TUPLE, nd, err) < 0)
		return NULL;
	struct value *r = value_seq(V_TUPLE, nd);
	for (int d = 0; d < nd; d++)
		r->items[d] = value_tensor(tensor_new(DT_I64, cond->flavor, 1, &count));
	int64_t k = 0;
	for (int64_t i = 0; i < n; i++) {
		if (tensor_get(cond, i) == 0)
			continue;
		int64_t rest = i;
		for (int d = cond->ndim - 1; d >= 0; d--) {
			((int64_t *)r->items[d]->t->storage->data)[k] = rest % cond->shape[d];
			rest /= cond->shape[d];
		}
		if (cond->ndim == 0)
			((int64_t *)r->items[0]->t->storage->data)[k] = 0;
		k++;
	}
	return r;
}

/* ---- numpy's split and array_split ----------------------------------------------------- */

/* Python's int % int (the sign of the divisor), and float % float. */
static int64_t py_mod(int64_t n, int64_t d)
{
	int64_t r = d == -1 ? 0 : n % d;
	return r != 0 && (r < 0) != (d < 0) ? r + d : r;
}

static double py_fmod(double n, double d)
{
	double r = fmod(n, d);
	return r != 0 && (r < 0) != (d < 0) ? r + d : r;
}

/* The pieces' count from a number of sections v, for a dim of n (numpy's
 * int(v), after split's check that n % v is 0); -1 with numpy's error. */
static int64_t section_count(struct call *c, struct args *a, bool equal, int64_t n, int64_t *count,
			     struct qkv_error *err)
{
	const struct value *v = a->v[1];
	double f = v->kind == V_FLOAT ? v->f : 0;
	int64_t k = v->kind == V_INT ? v->i : v->kind == V_BOOL ? v->b : 0;
	if (equal && v->kind == V_FLOAT && (f == 0 || py_fmod((double)n, f) != 0))
		return args_error(err, c, a, 1, "%s", f == 0 ? "ZeroDivisionError: float modulo"
							     : "ValueError: array split does not result in an equal division");
	if (equal && v->kind != V_FLOAT && (k == 0 || py_mod(n, k) != 0))
		return args_error(err, c, a, 1, "%s", k == 0 ? "ZeroDivisionError: integer modulo by zero"
							     : "ValueError: array split does not result in an equal division");
	if (v->kind == V_FLOAT && !isfinite(f))
		return args_error(err, c, a, 1, "%s", isnan(f) ? "ValueError: cannot convert float NaN to integer"
								: "OverflowError: cannot convert float infinity to integer");
	if (v->kind == V_FLOAT)
		k = f >= 9.2e18 ? INT64_MAX : f <= -9.2e18 ? INT64_MIN : (int64_t)f;
	if (k <= 0)
		return args_error(err, c, a, 1, "ValueError: number sections must be larger than 0.");
	*count = k;
	return 0;
}

/* The points where the pieces begin and end, from a list, tuple or 1-D
 * array of indices (each a slice's bound: negative from the end, clamped;
 * None none): *count + 1 of them, the first and the last left none (0 and
 * the end; has[] false). -1 with numpy's error for one that is not an int. */
static int index_points(struct call *c, struct args *a, int64_t *count, int64_t **at, bool **has,
			struct qkv_error *err)
{
	const struct value *v = a->v[1];
	bool tensor = v->kind == V_TENSOR;
	int64_t n = tensor ? (v->t->ndim ? v->t->shape[0] : 0) : v->kind == V_STR ? 0 : v->n;	/* ("" holds no index) */
	if (tensor && (v->t->ndim != 1 || dtype_is_float(v->t->dtype)))
		return args_error(err, c, a, 1, "TypeError: %s", v->t->ndim > 1 ? "only integer scalar arrays can be "
				  "converted to a scalar index" : "slice indices must be integers or None or have an "
				  "__index__ method");
	if (value_check_items(V_LIST, n + 1, err) < 0)
		return args_error(err, c, a, 1, "%s", err->msg);
	*at = xcalloc((size_t)n + 2, sizeof **at);
	*has = xcalloc((size_t)n + 2, sizeof **has);
	for (int64_t k = 0; k < n; k++) {
		const struct value *it = tensor ? NULL : v->items[k];
		if (it && it->kind != V_INT && it->kind != V_BOOL && it->kind != V_NONE)
			return args_error(err, c, a, 1, "TypeError: slice indices must be integers or None or have an "
					  "__index__ method");
		(*has)[k + 1] = !it || it->kind != V_NONE;
		(*at)[k + 1] = !it ? tensor_get_i64(v->t, k) : it->kind == V_BOOL ? it->b : it->kind == V_INT ? it->i : 0;
	}
	*count = n + 1;
	return 0;
}

/* np.split(ary, indices_or_sections, axis=0), np.array_split(...): a list
 * of views of ary along axis; split's sections must divide it equally,
 * array_split's first pieces are one longer. ary must be an array for
 * split (numpy asks for its shape), anything an array is made of for
 * array_split. */
static struct value *np_split(struct call *c, bool equal, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("ary", "indices_or_sections", "axis"), 2, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0], *r = NULL;
	struct tensor *x = NULL;
	int64_t count = 0, *at = NULL;
	bool *has = NULL;
	if (v->kind == V_TENSOR && v->t->flavor == FLAVOR_NUMPY)
		x = tensor_ref(v->t);
	else if (equal && v->kind != V_TENSOR)
		return args_error(err, c, &a, 0, "AttributeError: '%s' object has no attribute 'shape'",
				  value_type_name(v)), args_fail(&a);
	else if (!(x = args_to_tensor(c, &a, 0, FLAVOR_NUMPY, false, DT_F64, err)))
		return args_fail(&a);
	/* axis indexes ary's shape, a tuple */
	int64_t axis = 0;
	if (a.v[2] && a.v[2]->kind != V_INT && a.v[2]->kind != V_BOOL) {
		args_error(err, c, &a, 2, "TypeError: tuple indices must be integers or slices, not %s",
			   value_type_name(a.v[2]));
		goto done;
	}
	if (a.v[2])
		axis = a.v[2]->kind == V_BOOL ? a.v[2]->b : a.v[2]->i;
	if (axis < -x->ndim || axis >= x->ndim) {
		args_error(err, c, &a, a.v[2] ? 2 : 0, "IndexError: tuple index out of range");
		goto done;
	}
	int dim = (int)(axis < 0 ? axis + x->ndim : axis);
	int64_t n = x->shape[dim];
	if (a.v[1]->kind == V_TENSOR && a.v[1]->t->ndim == 0) {	/* a 0-d array: int() of it */
		struct tensor *t = a.v[1]->t;
		struct value *num = dtype_is_float(t->dtype) ? value_float(tensor_get(t, 0)) : value_int(tensor_get_i64(t, 0));
		value_unref(a.v[1]);
		a.v[1] = num;
	}
	enum value_kind k1 = a.v[1]->kind;
	if (k1 == V_INT || k1 == V_BOOL || k1 == V_FLOAT) {
		if (section_count(c, &a, equal, n, &count, err) < 0)
			goto done;
		if (value_check_items(V_LIST, count, err) < 0) {
			args_error(err, c, &a, 1, "%s", err->msg);
			goto done;
		}
		/* the first n % count pieces one longer */
		at = xcalloc((size_t)count + 1, sizeof *at);
		has = xcalloc((size_t)count + 1, sizeof *has);
		for (int64_t i = 0; i < count; i++) {
			at[i + 1] = at[i] + n / count + (i < n % count);
			has[i + 1] = true;
		}
	} else if (k1 == V_LIST || k1 == V_TUPLE || k1 == V_TENSOR || (k1 == V_STR && !a.v[1]->str[0])) {
		if (index_points(c, &a, &count, &at, &has, err) < 0)
			goto done;
	} else {
		args_error(err, c, &a, 1, k1 == V_STR ? "TypeError: slice indices must be integers or None or have an "
			   "__index__ method" : "TypeError: '%s' object cannot be interpreted as an integer",
			   value_type_name(a.v[1]));
		goto done;
	}
	r = value_seq(V_LIST, (int)count);
	for (int64_t i = 0; i < count; i++)
		r->items[i] = value_tensor(ops_slice(x, dim, i > 0 && has[i], at[i], i < count - 1 && has[i + 1],
						     at[i + 1], 1, err));
done:
	free(at);
	free(has);
	tensor_unref(x);
	return r ? args_return(&a, r) : args_fail(&a);
}

static struct value *pieces_np_split(struct call *c, struct qkv_error *err) { return np_split(c, true, err); }
static struct value *pieces_np_array_split(struct call *c, struct qkv_error *err) { return np_split(c, false, err); }

/* torch.where(condition, input, other) and np.where(condition, x, y): each
 * element from input where the condition holds, else from other; with the
 * condition alone, the indices where it holds. */
static struct value *where(struct call *c, bool numpy, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, numpy ? P("condition", "x", "y") : P("condition", "input", "other"), 1, &a, err) < 0)
		return NULL;
	struct tensor *cond;
	bool own_cond = false;
	if (a.v[0]->kind == V_TENSOR && (a.v[0]->t->flavor == FLAVOR_NUMPY) == numpy) {
		cond = a.v[0]->t;
	} else if (numpy) {
		if (!(cond = args_to_tensor(c, &a, 0, FLAVOR_NUMPY, false, DT_F64, err)))
			return args_fail(&a);
		own_cond = true;
	} else {
		return args_error(err, c, &a, 0, "where(): argument 'condition' (position 1) must be Tensor, not %s",
				  a.v[0]->kind == V_TENSOR ? "numpy.ndarray" : value_type_name(a.v[0])), args_fail(&a);
	}
	struct value *r = NULL;
	if (!numpy && cond->dtype != DT_BOOL) {
		args_error(err, c, &a, 0, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
			   cond->dtype == DT_F32 ? "Float" : cond->dtype == DT_F64 ? "Double" : "Long");
	} else if (!a.v[1] && !a.v[2]) {
		r = true_indices(cond, err);
	} else if (!a.v[1] || !a.v[2]) {
		args_error(err, c, &a, -1, numpy ? "ValueError: either both or neither of x and y should be given"
						  : "where(): give both input and other, or neither");
	} else {
		struct operand x, y;
		struct ops_number bx, by;
		struct tensor *mx = NULL, *my = NULL;
		if (args_operand(c, &a, 1, numpy, &x, &bx, &mx, err) == 0 &&
		    args_operand(c, &a, 2, numpy, &y, &by, &my, err) == 0) {
			struct tensor *t = ops_where(OPS(c), cond, x, y, numpy ? FLAVOR_NUMPY : FLAVOR_TORCH, err);
			if (t)
				r = value_from_result(t);
			else
				args_error(err, c, &a, -1, "%s", err->msg);
		}
		tensor_unref(mx);
		tensor_unref(my);
	}
	if (own_cond)
		tensor_unref(cond);
	return r ? args_return(&a, r) : args_fail(&a);
}

struct value *pieces_where(struct call *c, struct qkv_error *err) { return where(c, false, err); }
static struct value *pieces_np_where(struct call *c, struct qkv_error *err) { return where(c, true, err); }

const struct builtin pieces_functions[] = {
	{ "numpy.tile", np_tile }, { "numpy.repeat", pieces_np_repeat },
	{ "torch.repeat_interleave", pieces_repeat_interleave },
	{ "torch.split", pieces_split }, { "torch.chunk", pieces_chunk }, { "torch.where", pieces_where },
	{ "numpy.where", pieces_np_where }, { "torch.einsum", pieces_einsum },
	{ "numpy.einsum", pieces_np_einsum }, { "numpy.split", pieces_np_split },
	{ "numpy.array_split", pieces_np_array_split },
	{ NULL, NULL },
};
