/* ops.c: tensor operations with PyTorch's rules for shapes, broadcasting and
 * dtypes, on top of the kernels in kernel/. Called by the evaluator (lang/)
 * and by lessons; never prints, never exits: bad shapes and dims come back as
 * NULL with a message in the error record, naming the shapes involved.
 * Views are in ops_view.c, reductions in ops_reduce.c. */
#include "core/ops_private.h"
#include "core/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t max_elems = OPS_DEFAULT_MAX_ELEMS;	/* ops_set_max_elems */

void ops_set_max_elems(int64_t n)
{
	max_elems = n > 0 && n <= TENSOR_MAX_NUMEL ? n : OPS_DEFAULT_MAX_ELEMS;
}

void ops_ctx_init(struct ops_ctx *ctx, enum kernel_variant variant)
{
	ctx->variant = variant;
	ctx->max_elems = max_elems;
}

int ops_check_shape(const struct ops_ctx *ctx, int ndim, const int64_t *shape, struct qkv_error *err)
{
	if (ndim > TENSOR_MAX_DIMS)
		return error_set(err, 0, 0, "qkv tensors have at most %d dimensions, this one would have %d",
				 TENSOR_MAX_DIMS, ndim);
	/* The product of the sizes, counting a 0 as 1, is what strides reach:
	 * keeping it under the limit keeps every stride and offset far from
	 * overflowing, even for empty tensors. */
	int64_t n = 1, max = ctx->max_elems < TENSOR_MAX_NUMEL ? ctx->max_elems : TENSOR_MAX_NUMEL;
	if (tensor_shape_small(ndim, shape)) {
		/* no overflow, no negative size; the limit as below (a 0 counted as 1) */
		int64_t d0 = ndim >= 1 && shape[0] > 0 ? shape[0] : 1, d1 = ndim == 2 && shape[1] > 0 ? shape[1] : 1;
		if (d0 * d1 <= max)
			return 0;
	}
	bool over = false;
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			return error_set(err, 0, 0, "negative dimension %lld in a shape", (long long)shape[i]);
		int64_t d = shape[i] > 0 ? shape[i] : 1, nd;
		if (d > max || __builtin_mul_overflow(n, d, &nd) || nd > max)	/* n·d > max, without a division */
			over = true;
		else
			n = nd;
	}
	if (over) {
		char buf[96];
		return error_set(err, 0, 0, "a tensor of shape %s is over the limit of %lld elements%s",
				 tensor_shape_str(buf, sizeof buf, ndim, shape), (long long)max,
				 max < TENSOR_MAX_NUMEL ? " (set QKV_MAX_ELEMS to raise it)" : "");
	}
	return 0;
}

struct tensor *ops_new(const struct ops_ctx *ctx, enum dtype dt, enum flavor fl, int ndim,
		       const int64_t *shape, struct qkv_error *err)
{
	if (ops_check_shape(ctx, ndim, shape, err) < 0)
		return NULL;
	return tensor_new(dt, fl, ndim, shape);
}

struct tensor *ops_full(const struct ops_ctx *ctx, enum dtype dt, enum flavor fl, int ndim,
			const int64_t *shape, double value, struct qkv_error *err)
{
	struct tensor *t = ops_new(ctx, dt, fl, ndim, shape, err);
	if (!t || value == 0)
		return t;
	int64_t n = tensor_numel(t);
	for (int64_t i = 0; i < n; i++)
		tensor_set(t, i, value);
	return t;
}

struct tensor *ops_scalar(enum dtype dt, enum flavor fl, double value)
{
	struct tensor *t = tensor_new(dt, fl, 0, NULL);
	tensor_set(t, 0, value);
	return t;
}

int ops_norm_dim(int64_t dim, int ndim, struct qkv_error *err)
{
	int n = ndim > 0 ? ndim : 1;
	if (dim < -n || dim >= n)	/* torch's words */
		return error_set(err, 0, 0, "IndexError: Dimension out of range (expected to be in range of "
				 "[%d, %d], but got %lld)", -n, n - 1, (long long)dim);
	return (int)(dim < 0 ? dim + n : dim);
}

/* ---- conversion and copies --------------------------------------------------- */

static double clamp_i64(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9.2233720368547758e18)
		return 9.2233720368547748e18;
	if (v <= -9.2233720368547758e18)
		return -9.2233720368547758e18;
	return v;
}

/* Element-by-element copy of src into dst (same shape), any dtypes, any
 * strides. The slow general path: cat, assignment, write-back. */
static void copy_into(struct tensor *dst, const struct tensor *src)
{
	int64_t shape[4] = { 1, 1, 1, 1 }, ds[4] = { 0 }, ss[4] = { 0 };
	int off = 4 - dst->ndim;
	for (int i = 0; i < dst->ndim; i++) {
		shape[off + i] = dst->shape[i];
		ds[off + i] = dst->strides[i];
		ss[off + i] = src->strides[i];
	}
	char *dd = dst->storage->data;
	const char *sd = src->storage->data;
	size_t dz = dtype_size(dst->dtype), sz = dtype_size(src->dtype);
	for (int64_t i0 = 0; i0 < shape[0]; i0++)
	for (int64_t i1 = 0; i1 < shape[1]; i1++)
	for (int64_t i2 = 0; i2 < shape[2]; i2++)
	for (int64_t i3 = 0; i3 < shape[3]; i3++) {
		int64_t d = dst->offset + i0 * ds[0] + i1 * ds[1] + i2 * ds[2] + i3 * ds[3];
		int64_t s = src->offset + i0 * ss[0] + i1 * ss[1] + i2 * ss[2] + i3 * ss[3];
		const void *sp = sd + s * (int64_t)sz;
		void *dp = dd + d * (int64_t)dz;
		if (dst->dtype == src->dtype) {
			memcpy(dp, sp, dz);
			continue;
		}
		if (src->dtype == DT_I64 && dst->dtype == DT_I64)
			continue;
		double v;
		switch (src->dtype) {
		case DT_F32: v = *(const float *)sp; break;
		case DT_F64: v = *(const double *)sp; break;
		case DT_I64: v = (double)*(const int64_t *)sp; break;
		default: v = *(const uint8_t *)sp; break;
		}
		switch (dst->dtype) {
		case DT_F32: *(float *)dp = (float)v; break;
		case DT_F64: *(double *)dp = v; break;
		case DT_I64: *(int64_t *)dp = (int64_t)clamp_i64(v); break;
		case DT_BOOL: *(uint8_t *)dp = v != 0; break;
		}
	}
	dst->storage->version++;
}

struct tensor *ops_contiguous(struct tensor *t)
{
	if (tensor_is_contiguous(t))
		return tensor_ref(t);
	struct tensor *c = tensor_new(t->dtype, t->flavor, t->ndim, t->shape);
	copy_strided(c->storage->data, tensor_data(t), t->strides, t->shape, t->ndim, dtype_size(t->dtype));
	return c;
}

struct tensor *ops_clone(const struct tensor *t)
{
	struct tensor *c = tensor_new(t->dtype, t->flavor, t->ndim, t->shape);
	if (tensor_is_contiguous(t))	/* the same bytes in the same order: one copy */
		memcpy(c->storage->data, tensor_data(t), c->storage->nbytes);
	else
		copy_strided(c->storage->data, tensor_data(t), t->strides, t->shape, t->ndim, dtype_size(t->dtype));
	return c;
}

struct tensor *ops_to_dtype(struct tensor *t, enum dtype dt)
{
	if (t->dtype == dt)
		return tensor_ref(t);
	struct tensor *c = tensor_new(dt, t->flavor, t->ndim, t->shape);
	copy_into(c, t);
	/* float to float keeps the values, so it keeps how they were computed */
	if (t->from && dtype_is_float(t->dtype) && dtype_is_float(dt)) {
		c->from = t->from;
		c->from->refs++;
	}
	return c;
}

/* The lowest and highest element t reaches in its storage (strides >= 0). */
static void reach(const struct tensor *t, int64_t *lo, int64_t *hi)
{
	*lo = *hi = t->offset;
	for (int i = 0; i < t->ndim; i++)
		*hi += t->strides[i] * (t->shape[i] - 1);
}

/* Whether t's elements fill a block of its storage, each once, in some
 * order of its dimensions (torch's "non-overlapping and dense"). */
static bool dense(const struct tensor *t)
{
	int64_t size[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
	int n = 0;
	for (int i = 0; i < t->ndim; i++)
		if (t->shape[i] != 1) {
			int j = n++;	/* insert by stride */
			for (; j > 0 && stride[j - 1] > t->strides[i]; j--) {
				size[j] = size[j - 1];
				stride[j] = stride[j - 1];
			}
			size[j] = t->shape[i];
			stride[j] = t->strides[i];
		}
	int64_t want = 1;
	for (int i = 0; i < n; want *= size[i], i++)
		if (stride[i] != want)
			return false;
	return true;
}

int ops_assign(struct tensor *dst, struct tensor *src, struct qkv_error *err)
{
	struct tensor *e = ops_expand(src, dst->ndim, dst->shape, err);
	if (!e)
		return -1;
	int64_t dlo, dhi, slo, shi;
	reach(dst, &dlo, &dhi);
	reach(e, &slo, &shi);
	bool same_place = e->offset == dst->offset &&
			  memcmp(e->strides, dst->strides, sizeof(int64_t) * (size_t)dst->ndim) == 0;
	if (e->storage == dst->storage && tensor_numel(dst) > 0 && !same_place && slo <= dhi && dlo <= shi) {
		/* src is read where dst is written: numpy reads all of src first;
		 * torch refuses when it can tell (both dense), else copies in order */
		if (dst->flavor == FLAVOR_NUMPY) {
			struct tensor *c = ops_clone(e);
			tensor_unref(e);
			e = c;
		} else if (dense(dst) && dense(e)) {
			tensor_unref(e);
			return error_set(err, 0, 0, "unsupported operation: some elements of the input tensor and the "
				  "written-to tensor refer to a single memory location. Please clone() the tensor before "
				  "performing the operation.");
		}
	}
	copy_into(dst, e);
	tensor_unref(e);
	return 0;
}

/* ---- dtype promotion --------------------------------------------------------- */

static int category(enum dtype d)
{
	return d == DT_BOOL ? 0 : d == DT_I64 ? 1 : 2;
}

/* promotion of two dtypes at the same tier */
static enum dtype promote_dtypes(enum dtype a, enum dtype b)
{
	if (a == b)
		return a;
	int ca = category(a), cb = category(b);
	if (ca != cb)
		return ca > cb ? a : b;
	return DT_F64;
}

static int tier(struct operand o)
{
	return o.scalar ? 0 : o.t->ndim == 0 ? 1 : 2;
}

static enum flavor result_flavor(struct operand a, struct operand b)
{
	if ((!a.scalar && a.t->flavor == FLAVOR_TORCH) || (!b.scalar && b.t->flavor == FLAVOR_TORCH))
		return FLAVOR_TORCH;
	if ((!a.scalar && a.t->flavor == FLAVOR_NUMPY) || (!b.scalar && b.t->flavor == FLAVOR_NUMPY))
		return FLAVOR_NUMPY;
	return FLAVOR_TORCH;
}

/* torch.result_type for two operands (numpy's value-based casting agrees on
 * every case qkv can express). */
static enum dtype promote(struct operand a, struct operand b, enum flavor fl)
{
	int ca = category(a.t->dtype), cb = category(b.t->dtype);
	int c = ca > cb ? ca : cb;
	int ta = ca == c ? tier(a) : -1, tb = cb == c ? tier(b) : -1;
	int top = ta > tb ? ta : tb;
	if (top == 0)	/* only Python numbers have the top category */
		return c == 2 ? default_float(fl) : c == 1 ? DT_I64 : DT_BOOL;
	enum dtype da = ta == top ? a.t->dtype : b.t->dtype;
	enum dtype db = tb == top ? b.t->dtype : a.t->dtype;
	/* numpy: an int64 array with a float32 one makes float64 (float32 cannot
	 * hold every int64); torch keeps float32 */
	if (fl == FLAVOR_NUMPY && !a.scalar && !b.scalar && tier(a) == tier(b) &&
	    ((a.t->dtype == DT_I64 && b.t->dtype == DT_F32) || (a.t->dtype == DT_F32 && b.t->dtype == DT_I64)))
		return DT_F64;
	return promote_dtypes(da, db);
}

/* ---- derivations ------------------------------------------------------------- */

/* Records how out was computed (a new derivation of kind over views of a, b,
 * c) when out is a fresh result small enough to explain cell by cell; returns
 * it for the caller to fill in, or NULL. Never touches out's numbers. */
static struct derivation *derive(struct tensor *out, enum deriv_kind kind, struct tensor *a, struct tensor *b,
				 struct tensor *c)
{
	if (!out || out->refs != 1 || tensor_numel(out) > DERIVATION_MAX_ELEMS || out == a || out == b || out == c)
		return NULL;	/* (an operand that is out would hold itself) */
	derivation_unref(out->from);
	out->from = derivation_new(kind, a, b, c);
	return out->from;
}

/* ---- elementwise ------------------------------------------------------------ */

int ops_broadcast_shape(const struct ops_ctx *ctx, const struct tensor *a, const struct tensor *b, int *ndim,
			int64_t *shape, const char *what, struct qkv_error *err)
{
	int n = a->ndim > b->ndim ? a->ndim : b->ndim;
	for (int i = 0; i < n; i++) {
		int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
		int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
		if (sa != sb && sa != 1 && sb != 1) {
			char b1[96], b2[96];
			return error_set(err, 0, 0,
					 "%s: shapes %s and %s do not broadcast (dimension %d: %lld against %lld)",
					 what, shp(b1, a), shp(b2, b), i - n, (long long)sa, (long long)sb);
		}
		shape[i] = sa == 1 ? sb : sa;
	}
	*ndim = n;
	return ops_check_shape(ctx, n, shape, err);
}

/* strides to read t as if it had the broadcast shape (ndim dims) */
static void bcast_strides(const struct tensor *t, int ndim, const int64_t *shape, int64_t *st)
{
	int off = ndim - t->ndim;
	for (int i = 0; i < ndim; i++) {
		if (i < off || (t->shape[i - off] == 1 && shape[i] != 1))
			st[i] = 0;
		else
			st[i] = t->strides[i - off];
	}
}

static const char *ew_name(enum ew_op op)
{
	static const char *names[] = { "+", "-", "*", "/", "**", "//", "%", "maximum", "minimum" };
	return names[op];
}

/* Two operands broadcast against each other and converted to one compute
 * dtype, ready for an ew_* kernel. */
struct bcast {
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS], sa[TENSOR_MAX_DIMS], sb[TENSOR_MAX_DIMS];
	/* how the kernel walks them: the axes above with neighbours that both
	 * operands step through as one merged (bcast_coalesce) */
	int kn;
	int64_t kshape[TENSOR_MAX_DIMS], ksa[TENSOR_MAX_DIMS], ksb[TENSOR_MAX_DIMS];
	struct tensor *ta, *tb;
	enum flavor fl;
	struct ops_number num[2];	/* a Python number converted to the compute dtype, in place */
};

static int bcast_shape(const struct ops_ctx *ctx, struct operand a, struct operand b, const char *what,
		       struct bcast *bc, struct qkv_error *err)
{
	if (ops_broadcast_shape(ctx, a.t, b.t, &bc->ndim, bc->shape, what, err) < 0)
		return -1;
	bc->fl = result_flavor(a, b);
	return 0;
}

/* o's tensor as dtype dt: a Python number (x / 2) is converted into *num,
 * which lives in the struct bcast and is never freed, instead of a new
 * tensor; the rest as ops_to_dtype does. */
static struct tensor *convert_operand(struct operand o, enum dtype dt, struct ops_number *num)
{
	if (!o.scalar || o.t->ndim != 0 || o.t->dtype == dt)
		return ops_to_dtype(o.t, dt);
	ops_number_init(num, dt, o.t->flavor);
	const void *x = tensor_data(o.t);
	if (dt == DT_F32 && o.t->dtype == DT_I64)	/* x / 2: as copy_into converts it */
		*(float *)num->bytes = (float)(double)*(const int64_t *)x;
	else if (dt == DT_F32 && o.t->dtype == DT_F64)	/* x * 0.5 */
		*(float *)num->bytes = (float)*(const double *)x;
	else
		copy_into(&num->t, o.t);
	return &num->t;
}

/* Merges neighbouring axes that both operands step through as one (a 4x4
 * contiguous tensor and a number: one row of 16) into bc's kernel walk, so
 * that the kernel's loops run once over a long row instead of once per short
 * one. The result is contiguous in the shape either way: only how the kernel
 * walks it changes, never an element's value or place. */
static void bcast_coalesce(struct bcast *bc)
{
	int n = 0;
	for (int i = 0; i < bc->ndim; i++) {
		if (n > 0 && bc->ksa[n - 1] == bc->sa[i] * bc->shape[i] && bc->ksb[n - 1] == bc->sb[i] * bc->shape[i]) {
			bc->kshape[n - 1] *= bc->shape[i];	/* axis i continues the last one */
			bc->ksa[n - 1] = bc->sa[i];
			bc->ksb[n - 1] = bc->sb[i];
			continue;
		}
		bc->kshape[n] = bc->shape[i];
		bc->ksa[n] = bc->sa[i];
		bc->ksb[n] = bc->sb[i];
		n++;
	}
	bc->kn = n;
}

static void bcast_convert(struct bcast *bc, struct operand a, struct operand b, enum dtype cd)
{
	bc->ta = convert_operand(a, cd, &bc->num[0]);
	bc->tb = convert_operand(b, cd, &bc->num[1]);
	bcast_strides(bc->ta, bc->ndim, bc->shape, bc->sa);
	bcast_strides(bc->tb, bc->ndim, bc->shape, bc->sb);
	bcast_coalesce(bc);
}

static void bcast_release(struct bcast *bc)
{
	if (bc->ta != &bc->num[0].t)
		tensor_unref(bc->ta);
	if (bc->tb != &bc->num[1].t)
		tensor_unref(bc->tb);
}

/* torch and numpy refuse arithmetic on bools that has no logical meaning:
 * -1 with their message, else 0. */
static int bool_refused(struct operand a, struct operand b, enum ew_op op, enum flavor fl,
			struct qkv_error *err)
{
	bool ba = a.t->dtype == DT_BOOL, bb = b.t->dtype == DT_BOOL;
	if (fl == FLAVOR_NUMPY) {
		if (op == EW_SUB && ba && bb)
			return error_set(err, 0, 0, "numpy boolean subtract, the `-` operator, is not "
					 "supported, use the bitwise_xor, the `^` operator, or the logical_xor function "
					 "instead.");
		return 0;
	}
	if (op == EW_SUB && ba && bb)
		return error_set(err, 0, 0, "Subtraction, the `-` operator, with two bool tensors is "
				 "not supported. Use the `^` or `logical_xor()` operator instead.");
	if (op == EW_SUB && (ba || bb))
		return error_set(err, 0, 0, "Subtraction, the `-` operator, with a bool tensor is not "
				 "supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator "
				 "instead.");
	if ((op == EW_FLOORDIV || op == EW_MOD || op == EW_POW) && ba && bb)
		return error_set(err, 0, 0, "\"%s\" not implemented for 'Bool'",
				 op == EW_FLOORDIV ? "div_floor_cpu" : op == EW_MOD ? "remainder_cpu" : "pow");
	return 0;
}

/* x * 2, 0.5 * x, S / 2: records out as a tensor scaled by a Python number. */
static void scale_derive(struct tensor *out, struct operand a, struct operand b, enum ew_op op)
{
	if (!((op == EW_MUL || op == EW_DIV) && a.scalar != b.scalar && !(op == EW_DIV && a.scalar)))
		return;
	struct operand x = a.scalar ? b : a, k = a.scalar ? a : b;
	struct derivation *d = derive(out, DERIV_SCALE, x.t, NULL, NULL);
	if (d) {
		d->scalar = tensor_get(k.t, 0);
		d->divide = op == EW_DIV;
		/* a scaled product keeps its factors (b @ c), so that they
		 * survive when this derivation is flattened into the inner
		 * level of a mask or a softmax */
		struct derivation *p = x.t->from;
		if (p && p->kind == DERIV_MATMUL) {
			d->b = derivation_operand(p->a);
			d->c = derivation_operand(p->b);
			memcpy(d->label_b, p->label_a, sizeof d->label_b);
			memcpy(d->label_c, p->label_b, sizeof d->label_c);
		}
	}
}

/* S / 2, x * 0.5, 1 - x: a contiguous float32 tensor and a Python int or
 * float under + - * /, the whole of a loop over small tensors' arithmetic.
 * The general path's result without its steps: the number converted to
 * float32 as convert_operand does, the result float32 (promote: the
 * tensor's dtype wins over a number's) with the tensor's flavor, one row
 * for the kernel. NULL when the operands are anything else (bools too:
 * bool_refused may refuse them), the general path's to do. */
static struct tensor *binary_f32_number(const struct ops_ctx *ctx, struct operand a, struct operand b, enum ew_op op,
					struct qkv_error *err, bool *done)
{
	*done = false;
	struct operand x = a.scalar ? b : a, k = a.scalar ? a : b;
	if (op > EW_DIV || a.scalar == b.scalar || x.t->dtype != DT_F32 || k.t->ndim != 0 ||
	    (k.t->dtype != DT_I64 && k.t->dtype != DT_F64) || !tensor_is_contiguous(x.t))
		return NULL;
	*done = true;
	if (ops_check_shape(ctx, x.t->ndim, x.t->shape, err) < 0)
		return NULL;
	struct ops_number num;
	float y = *(const float *)tensor_data(convert_operand(k, DT_F32, &num));
	int64_t n = tensor_numel(x.t), one = 1, zero = 0;
	struct tensor *out = tensor_new(DT_F32, x.t->flavor, x.t->ndim, x.t->shape);
	if (a.scalar)
		ew_binary_f32(out->storage->data, &y, &zero, tensor_data(x.t), &one, &n, 1, op);
	else
		ew_binary_f32(out->storage->data, tensor_data(x.t), &one, &y, &zero, &n, 1, op);
	scale_derive(out, a, b, op);
	return out;
}

struct tensor *ops_binary(const struct ops_ctx *ctx, struct operand a, struct operand b,
			  enum ew_op op, struct qkv_error *err)
{
	bool done;
	struct tensor *fast = binary_f32_number(ctx, a, b, op, err, &done);
	if (done)
		return fast;
	struct bcast bc;
	if (bcast_shape(ctx, a, b, ew_name(op), &bc, err) < 0)
		return NULL;
	enum dtype rd = promote(a, b, bc.fl);
	if (op == EW_DIV && !dtype_is_float(rd))
		rd = default_float(bc.fl);
	if (bool_refused(a, b, op, bc.fl, err) < 0)
		return NULL;
	/* bool with bool stays bool, as in torch and numpy: + is or, * is and */
	if (rd == DT_BOOL && op != EW_MAX && op != EW_MIN && op != EW_ADD && op != EW_MUL)
		rd = DT_I64;
	enum dtype cd = compute_dtype(rd);
	bcast_convert(&bc, a, b, cd);
	if (cd == DT_I64 && (op == EW_FLOORDIV || op == EW_MOD || op == EW_POW)) {
		/* integers: refuse a zero divisor (torch raises; numpy gives 0) and a
		 * negative power (torch: "Integers to negative integer powers are
		 * not allowed") */
		struct tensor *e = ops_expand(bc.tb, bc.ndim, bc.shape, err);
		int64_t n = tensor_numel(e), bad = -1;
		for (int64_t i = 0; e && i < n && bad < 0; i++) {
			int64_t y = tensor_get_i64(e, i);
			if (op == EW_POW ? y < 0 : y == 0)
				bad = i;
		}
		tensor_unref(e);
		if (bad >= 0 && (op == EW_POW || bc.fl == FLAVOR_TORCH)) {
			bcast_release(&bc);
			error_set(err, 0, 0, op == EW_POW ? "integers to negative integer powers are not allowed "
				  "(make the base a float: 2.0 ** -1)" : "integer division or modulo by zero");
			return NULL;
		}
	}
	struct tensor *out = tensor_new(cd, bc.fl, bc.ndim, bc.shape);
	if (cd == DT_F32)
		ew_binary_f32(out->storage->data, tensor_data(bc.ta), bc.ksa, tensor_data(bc.tb), bc.ksb, bc.kshape,
			      bc.kn, op);
	else if (cd == DT_I64)
		ew_binary_i64(out->storage->data, tensor_data(bc.ta), bc.ksa, tensor_data(bc.tb), bc.ksb, bc.kshape,
			      bc.kn, op);
	else
		ew_binary_f64(out->storage->data, tensor_data(bc.ta), bc.ksa, tensor_data(bc.tb), bc.ksb, bc.kshape,
			      bc.kn, op);
	bcast_release(&bc);
	out = retype(out, rd);
	scale_derive(out, a, b, op);
	return out;
}

struct tensor *ops_compare(const struct ops_ctx *ctx, struct operand a, struct operand b,
			   enum cmp_op op, struct qkv_error *err)
{
	static const char *names[] = { "==", "!=", "<", "<=", ">", ">=" };
	struct bcast bc;
	if (bcast_shape(ctx, a, b, names[op], &bc, err) < 0)
		return NULL;
	enum dtype cd = compute_dtype(promote(a, b, bc.fl));
	bcast_convert(&bc, a, b, cd);
	struct tensor *out = tensor_new(DT_BOOL, bc.fl, bc.ndim, bc.shape);
	if (cd == DT_F32)
		ew_compare_f32(out->storage->data, tensor_data(bc.ta), bc.ksa, tensor_data(bc.tb), bc.ksb, bc.kshape,
			       bc.kn, op);
	else if (cd == DT_I64)
		ew_compare_i64(out->storage->data, tensor_data(bc.ta), bc.ksa, tensor_data(bc.tb), bc.ksb, bc.kshape,
			       bc.kn, op);
	else
		ew_compare_f64(out->storage->data, tensor_data(bc.ta), bc.ksa, tensor_data(bc.tb), bc.ksb, bc.kshape,
			       bc.kn, op);
	bcast_release(&bc);
	return out;
}

/* x shifted by y (op '<' left, '>' right) as each library shifts int64:
 * torch as the machine's shift instructions do (the count taken modulo 64),
 * numpy as counts past the width (or negative) fill the value in: 0, or
 * -1 to the right of a negative. */
static int64_t shift(int64_t x, int64_t y, char op, enum flavor fl)
{
	if (fl == FLAVOR_NUMPY && (uint64_t)y >= 64)
		return op == '<' || x >= 0 ? 0 : -1;
	unsigned k = (unsigned)((uint64_t)y & 63);
	return op == '<' ? (int64_t)((uint64_t)x << k) : x >> k;	/* >> of a negative: arithmetic (gcc, clang) */
}

struct tensor *ops_logical(const struct ops_ctx *ctx, struct operand a, struct operand b, char op,
			   struct qkv_error *err)
{
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	bool shifts = op == '<' || op == '>';
	enum flavor fl = result_flavor(a, b);
	const char *name = op == '|' ? "bitwise_or" : op == '^' ? "bitwise_xor" : op == '&' ? "bitwise_and"
			   : fl == FLAVOR_NUMPY ? (op == '<' ? "left_shift" : "right_shift") : (op == '<' ? "lshift" : "rshift");
	const char *sym = op == '<' ? "<<" : op == '>' ? ">>" : op == '|' ? "|" : op == '^' ? "^" : "&";
	enum dtype rd = promote(a, b, fl);
	if (dtype_is_float(rd) || (shifts && rd == DT_BOOL)) {	/* each library's own words */
		if (fl == FLAVOR_NUMPY && rd == DT_BOOL)
			error_set(err, 0, 0, "np.%s of two bool arrays gives int8, which qkv does not have: "
				  "shift ints (.astype(int))", name);
		else if (fl == FLAVOR_NUMPY)
			error_set(err, 0, 0, "ufunc '%s' not supported for the input types, and the inputs could not be "
				  "safely coerced to any supported types according to the casting rule ''safe''", name);
		else
			error_set(err, 0, 0, "\"%s_cpu\" not implemented for '%s'", name,
				  rd == DT_F32 ? "Float" : rd == DT_F64 ? "Double" : "Bool");
		return NULL;
	}
	if (ops_broadcast_shape(ctx, a.t, b.t, &ndim, shape, sym, err) < 0)
		return NULL;
	struct tensor *ea = ops_expand(a.t, ndim, shape, err), *eb = ops_expand(b.t, ndim, shape, err);
	struct tensor *out = tensor_new(rd, fl, ndim, shape);
	int64_t n = tensor_numel(out);
	for (int64_t i = 0; i < n; i++) {
		int64_t x = tensor_get_i64(ea, i), y = tensor_get_i64(eb, i);
		int64_t r = shifts ? shift(x, y, op, fl) : op == '|' ? (x | y) : op == '^' ? (x ^ y) : (x & y);
		if (rd == DT_I64)
			((int64_t *)out->storage->data)[i] = r;
		else
			((uint8_t *)out->storage->data)[i] = r != 0;
	}
	tensor_unref(ea);
	tensor_unref(eb);
	return out;
}

struct tensor *ops_where(const struct ops_ctx *ctx, struct tensor *cond, struct operand a, struct operand b,
			 enum flavor fl, struct qkv_error *err)
{
	int nd, ndim;
	int64_t ab[TENSOR_MAX_DIMS], shape[TENSOR_MAX_DIMS];
	enum dtype rd = promote(a, b, fl);
	if (ops_broadcast_shape(ctx, a.t, b.t, &nd, ab, "where", err) < 0)
		return NULL;
	struct tensor *both = ops_expand(a.t, nd, ab, err);	/* (only its shape counts) */
	int rc = ops_broadcast_shape(ctx, both, cond, &ndim, shape, "where", err);
	tensor_unref(both);
	if (rc < 0)
		return NULL;
	struct tensor *out = ops_full(ctx, rd, fl, ndim, shape, 0, err);
	if (!out)
		return NULL;
	struct tensor *ca = ops_to_dtype(a.t, rd), *cb = ops_to_dtype(b.t, rd);
	struct tensor *ea = ops_expand(ca, ndim, shape, err), *eb = ops_expand(cb, ndim, shape, err);
	struct tensor *ec = ops_expand(cond, ndim, shape, err);
	size_t es = dtype_size(rd);
	int64_t n = tensor_numel(out);
	for (int64_t i = 0; i < n; i++) {
		const struct tensor *from = tensor_get(ec, i) != 0 ? ea : eb;	/* numpy: any non-zero holds */
		memcpy((char *)out->storage->data + (size_t)i * es,
		       (const char *)from->storage->data + (size_t)tensor_flat_offset(from, i) * es, es);
	}
	tensor_unref(ea);
	tensor_unref(eb);
	tensor_unref(ec);
	tensor_unref(ca);
	tensor_unref(cb);
	return out;
}

struct tensor *ops_logical_not(const struct ops_ctx *ctx, struct tensor *a, struct qkv_error *err)
{
	(void)ctx;
	if (dtype_is_float(a->dtype)) {	/* each library's own words */
		if (a->flavor == FLAVOR_NUMPY)
			error_set(err, 0, 0, "TypeError: ufunc 'invert' not supported for the input types, and the inputs "
				  "could not be safely coerced to any supported types according to the casting rule ''safe''");
		else
			error_set(err, 0, 0, "TypeError: ~ (operator.invert) is only implemented on integer and "
				  "Boolean-type tensors");
		return NULL;
	}
	struct tensor *out = tensor_new(a->dtype, a->flavor, a->ndim, a->shape);
	int64_t n = tensor_numel(a);
	for (int64_t i = 0; i < n; i++) {
		if (a->dtype == DT_I64)
			((int64_t *)out->storage->data)[i] = ~tensor_get_i64(a, i);
		else
			((uint8_t *)out->storage->data)[i] = tensor_get(a, i) == 0;
	}
	return out;
}

/* Whether op keeps an integer tensor's dtype: -x, abs, relu and sign do;
 * torch's floor, ceil and trunc too (numpy's give floats). */
static bool keeps_integers(enum ew_unary op, enum flavor fl)
{
	return op == EW_NEG || op == EW_ABS || op == EW_RELU || op == EW_SIGN || op == EW_SIGN_NAN ||
	       (fl == FLAVOR_TORCH && (op == EW_FLOOR || op == EW_CEIL || op == EW_TRUNC));
}

/* The refusal torch or numpy gives op on bools, or NULL when it computes
 * it (into bools for abs and sign, or floats). */
static const char *bool_refusal(enum ew_unary op, enum flavor fl)
{
	if (fl == FLAVOR_NUMPY) {
		if (op == EW_NEG)
			return "TypeError: The numpy boolean negative, the `-` operator, is not supported, use the `~` "
			       "operator or the logical_not function instead.";
		if (op == EW_SIGN_NAN)
			return "UFuncTypeError: ufunc 'sign' did not contain a loop with signature matching types "
			       "<class 'numpy.dtype[bool_]'> -> None";
		if (op != EW_ABS)	/* numpy computes these in float16 */
			return "numpy computes this function of bools in float16, which qkv does not have: convert "
			       "first (a.astype(np.float32))";
		return NULL;
	}
	switch (op) {
	case EW_NEG:
		return "RuntimeError: Negation, the `-` operator, on a bool tensor is not supported. If you are "
		       "trying to invert a mask, use the `~` or `logical_not()` operator instead.";
	case EW_ABS: return "RuntimeError: \"abs_cpu\" not implemented for 'Bool'";
	case EW_RELU: return "RuntimeError: Boolean inputs not supported for relu";
	case EW_FLOOR: return "RuntimeError: \"floor_vml_cpu\" not implemented for 'Bool'";
	case EW_CEIL: return "RuntimeError: \"ceil_vml_cpu\" not implemented for 'Bool'";
	case EW_TRUNC: return "RuntimeError: \"trunc_vml_cpu\" not implemented for 'Bool'";
	default: return NULL;
	}
}

struct tensor *ops_unary(const struct ops_ctx *ctx, struct tensor *a, enum ew_unary op,
			 struct qkv_error *err)
{
	(void)ctx;
	enum dtype rd = a->dtype;
	if (rd == DT_BOOL) {
		const char *refused = bool_refusal(op, a->flavor);
		if (refused)
			return error_set(err, 0, 0, "%s", refused), NULL;
		if (op == EW_ABS || op == EW_SIGN)	/* a bool is its own abs and sign */
			return ops_clone(a);
	}
	if (!dtype_is_float(rd) && !keeps_integers(op, a->flavor))
		rd = default_float(a->flavor);
	enum dtype cd = compute_dtype(rd);
	struct tensor *c = contig_as(a, cd);
	struct tensor *out = tensor_new(cd, a->flavor, a->ndim, a->shape);
	int64_t n = tensor_numel(c);
	if (cd == DT_F32) {
		ew_unary_f32(out->storage->data, tensor_data(c), n, op);
	} else if (cd == DT_I64) {
		/* exact: negation wraps like torch's, abs of INT64_MIN stays itself */
		const int64_t *x = tensor_data(c);
		int64_t *y = out->storage->data;
		for (int64_t i = 0; i < n; i++) {
			uint64_t neg = 0 - (uint64_t)x[i];
			switch (op) {
			case EW_NEG: y[i] = (int64_t)neg; break;
			case EW_ABS: y[i] = x[i] < 0 ? (int64_t)neg : x[i]; break;
			case EW_RELU: y[i] = x[i] > 0 ? x[i] : 0; break;
			case EW_SIGN:
			case EW_SIGN_NAN: y[i] = (x[i] > 0) - (x[i] < 0); break;
			default: y[i] = x[i]; break;	/* floor, ceil, trunc */
			}
		}
	} else {
		ew_unary_f64(out->storage->data, tensor_data(c), n, op);
	}
	tensor_unref(c);
	return retype(out, rd);
}

/* 10**n as C's pow gives it, as torch and numpy take it (n >= 0). */
static double power_of_ten(int64_t n)
{
	return pow(10.0, (double)(n < 400 ? n : 400));
}

struct tensor *ops_round(struct tensor *a, int64_t decimals, bool has_decimals, struct qkv_error *err)
{
	bool numpy = a->flavor == FLAVOR_NUMPY;
	if (a->dtype == DT_BOOL && numpy && decimals == 0)
		return error_set(err, 0, 0, "np.round of bools gives float16, which qkv does not have: round "
				 "a.astype(np.float32)"), NULL;
	if (a->dtype == DT_BOOL)
		return error_set(err, 0, 0, numpy ? "Cannot cast ufunc '%s' output from dtype('float64') to dtype('bool') "
				 "with casting rule 'same_kind'" : "\"round_vml_cpu\" not implemented for 'Bool'",
				 decimals > 0 ? "multiply" : "divide"), NULL;
	if (a->dtype == DT_I64 && !numpy && has_decimals)
		return error_set(err, 0, 0, "\"round_cpu\" not implemented for 'Long'"), NULL;
	struct tensor *c = contig_as(a, a->dtype);
	struct tensor *out = tensor_new(a->dtype, a->flavor, a->ndim, a->shape);
	int64_t n = tensor_numel(c);
	bool down = decimals < 0;	/* divide first, multiply back */
	double p = power_of_ten(down ? -decimals : decimals);
	if (a->dtype == DT_F32) {
		const float *x = tensor_data(c);
		float *y = out->storage->data, pf = (float)p;
		for (int64_t i = 0; i < n; i++) {
			float s = down ? x[i] / pf : x[i] * pf;	/* (a float, rounded: no excess precision) */
			float r = nearbyintf(s);
			y[i] = down ? r * pf : r / pf;
		}
	} else if (a->dtype == DT_F64) {
		const double *x = tensor_data(c);
		double *y = out->storage->data;
		for (int64_t i = 0; i < n; i++) {
			double r = nearbyint(down ? x[i] / p : x[i] * p);
			y[i] = down ? r * p : r / p;
		}
	} else {
		const int64_t *x = tensor_data(c);
		int64_t *y = out->storage->data;
		for (int64_t i = 0; i < n; i++) {
			double r = down ? nearbyint((double)x[i] / p) * p : (double)x[i];
			y[i] = !down ? x[i] : r >= 9.2233720368547758e18 || r < -9.2233720368547758e18 || isnan(r) ? INT64_MIN
			       : (int64_t)r;
		}
	}
	tensor_unref(c);
	return out;
}

/* ---- Ctrl-C and progress around the long kernels ----------------------------
 * A matmul, softmax or attention may run for seconds. Each op below starts
 * the count of its work (kernel_progress_begin, in the kernels' units, for
 * a progress line) and, after its kernels, asks whether Ctrl-C stopped them
 * (kernel.h: they look at the calling thread's stop flag between blocks):
 * their output is then partial, and the op fails with the interpreter's
 * "interrupted (Ctrl-C)", which undoes the statement like any error. */
static int kernels_stopped(struct qkv_error *err)
{
	if (!kernel_stopped())
		return 0;
	return error_set(err, 0, 0, "interrupted (Ctrl-C)");
}

/* ---- matmul ------------------------------------------------------------------ */

static void mm_kernel(const struct ops_ctx *ctx, enum dtype dt, void *c, const void *a, const void *b,
		      int64_t m, int64_t k, int64_t n)
{
	if (dt == DT_F32) {
		if (ctx->variant == KERNEL_LOOPS)
			matmul_f32_loops(c, a, b, m, k, n);
		else if (ctx->variant == KERNEL_UNROLLED)
			matmul_f32_unrolled(c, a, b, m, k, n);
		else
			matmul_f32_simd(c, a, b, m, k, n);
	} else {
		if (ctx->variant == KERNEL_LOOPS)
			matmul_f64_loops(c, a, b, m, k, n);
		else if (ctx->variant == KERNEL_UNROLLED)
			matmul_f64_unrolled(c, a, b, m, k, n);
		else
			matmul_f64_simd(c, a, b, m, k, n);
	}
}

/* The dtype both operands of a matrix product are computed in; torch refuses
 * mixed float dtypes, numpy promotes. */
static int matmul_dtype(struct tensor *a, struct tensor *b, const char *what, enum dtype *cd,
			enum dtype *rd, struct qkv_error *err)
{
	bool numpy = a->flavor == FLAVOR_NUMPY && b->flavor == FLAVOR_NUMPY;
	struct operand oa = { a, false }, ob = { b, false };
	*rd = promote(oa, ob, numpy ? FLAVOR_NUMPY : FLAVOR_TORCH);
	/* torch multiplies matrices of one dtype only (int64 @ float32 is an error there too) */
	if (!numpy && a->dtype != b->dtype)
		return error_set(err, 0, 0, "%s: both tensors need the same dtype, got %s and %s "
				 "(convert one with %s)", what, dtype_name(a->dtype), dtype_name(b->dtype),
				 *rd == DT_F64 ? ".double()" : *rd == DT_F32 ? ".float()" : ".long()");
	if (!numpy && a->dtype == DT_BOOL)
		return error_set(err, 0, 0, "%s of bool tensors is not implemented in torch "
				 "(convert them with .float())", what);
	if (*rd == DT_BOOL)
		*rd = DT_I64;
	*cd = *rd == DT_F32 ? DT_F32 : DT_F64;	/* the matmul kernels are float only */
	return 0;
}

#define MATMUL_SMALL_BYTES 1024

/* dst is (rows, cols) contiguous; src's element (i, j) is at i*s0 + j*s1. */
static inline __attribute__((always_inline)) void copy_rows_f32(float *dst, const float *src, int64_t s0, int64_t s1,
								int64_t rows, int64_t cols)
{
#pragma GCC unroll 4
	for (int64_t i = 0; i < rows; i++)
#pragma GCC unroll 4
		for (int64_t j = 0; j < cols; j++)
			dst[i * cols + j] = src[i * s0 + j * s1];
}

/* Copies t, a view that is not contiguous but has dtype dt and at most
 * MATMUL_SMALL_BYTES of elements, into buf in row-major order: true when it
 * did, false when t needs contig_as. */
static bool small_copy(const struct tensor *t, enum dtype dt, char *buf)
{
	if (t->dtype != dt)
		return false;
	if (t->ndim == 2 && dt == DT_F32) {	/* K.T: a plain loop beats the n-d copy at this size */
		int64_t rows = t->shape[0], cols = t->shape[1], s0 = t->strides[0], s1 = t->strides[1];
		if (rows * cols > MATMUL_SMALL_BYTES / 4 || s1 == 1 || cols <= 1 || rows <= 1)
			return false;	/* big, or rows contiguous: contig_as's job */
		const float *src = (const float *)t->storage->data + t->offset;
		copy_rows_f32((float *)buf, src, s0, s1, rows, cols);
		return true;
	}
	if (tensor_numel(t) * (int64_t)dtype_size(dt) > MATMUL_SMALL_BYTES || tensor_is_contiguous(t))
		return false;
	copy_strided(buf, tensor_data(t), t->strides, t->shape, t->ndim, dtype_size(dt));
	return true;
}

/* After a product's kernels: drops the operands' contiguous copies (ac, bc,
 * either may be NULL) and returns out, written, or NULL (out freed) with
 * err when Ctrl-C stopped them. */
static struct tensor *matmul_done(struct tensor *out, struct tensor *ac, struct tensor *bc, struct qkv_error *err)
{
	tensor_unref(ac);
	tensor_unref(bc);
	if (kernels_stopped(err) < 0) {
		tensor_unref(out);
		return NULL;
	}
	out->storage->version++;
	return out;
}

/* The row-major numbers of t in dtype dt: t's own when it is contiguous in
 * dt (Q), else a copy on the stack in buf (a small strided view: K.T) or in
 * a tensor *hold owns (the caller drops it; NULL otherwise). */
static const void *mm_operand(struct tensor *t, enum dtype dt, char *buf, struct tensor **hold)
{
	*hold = NULL;
	if (t->dtype == dt && tensor_is_contiguous(t))
		return tensor_data(t);
	if (small_copy(t, dt, buf))
		return buf;
	*hold = contig_as(t, dt);
	return tensor_data(*hold);
}

/* Q @ K.T: two float32 matrices whose sizes agree, the general path's steps
 * for that case alone (no batch, no promotion: the result is float32). NULL
 * with *done false for anything else, the general path's to do. */
static struct tensor *matmul_2d_f32(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
				    struct qkv_error *err, bool *done)
{
	*done = false;
	if (a->ndim != 2 || b->ndim != 2 || a->dtype != DT_F32 || b->dtype != DT_F32 || a->shape[1] != b->shape[0])
		return NULL;
	*done = true;
	int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1], oshape[2] = { m, n };
	enum flavor fl = (a->flavor == FLAVOR_NUMPY && b->flavor == FLAVOR_NUMPY) ? FLAVOR_NUMPY : FLAVOR_TORCH;
	struct tensor *out = ops_new(ctx, DT_F32, fl, 2, oshape, err);
	if (!out)
		return NULL;
	_Alignas(64) char small_a[MATMUL_SMALL_BYTES], small_b[MATMUL_SMALL_BYTES];
	struct tensor *ac, *bc;
	const void *pa = mm_operand(a, DT_F32, small_a, &ac), *pb = mm_operand(b, DT_F32, small_b, &bc);
	kernel_progress_begin(m * k * n);
	mm_kernel(ctx, DT_F32, out->storage->data, pa, pb, m, k, n);
	out = matmul_done(out, ac, bc, err);
	if (out)
		derive(out, DERIV_MATMUL, a, b, NULL);
	return out;
}

struct tensor *ops_matmul(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
			  struct qkv_error *err)
{
	bool done;
	struct tensor *fast = matmul_2d_f32(ctx, a, b, err, &done);
	if (done)
		return fast;
	char b1[96], b2[96];
	if (a->ndim == 0 || b->ndim == 0) {
		error_set(err, 0, 0, "matmul needs tensors of at least 1 dimension, got shapes %s and %s",
			  shp(b1, a), shp(b2, b));
		return NULL;
	}
	enum dtype cd, rd;
	if (matmul_dtype(a, b, "matmul", &cd, &rd, err) < 0)
		return NULL;
	int64_t m = a->ndim == 1 ? 1 : a->shape[a->ndim - 2];
	int64_t k = a->shape[a->ndim - 1];
	int64_t k2 = b->ndim == 1 ? b->shape[0] : b->shape[b->ndim - 2];
	int64_t n = b->ndim == 1 ? 1 : b->shape[b->ndim - 1];
	if (k != k2) {
		error_set(err, 0, 0, "matmul: shapes %s and %s cannot be multiplied "
			  "(%lld columns on the left, %lld rows on the right)",
			  shp(b1, a), shp(b2, b), (long long)k, (long long)k2);
		return NULL;
	}
	/* batch dims */
	int na = a->ndim > 2 ? a->ndim - 2 : 0, nb = b->ndim > 2 ? b->ndim - 2 : 0;
	int nbat = na > nb ? na : nb;
	int64_t bshape[TENSOR_MAX_DIMS];
	for (int i = 0; i < nbat; i++) {
		int ia = i - (nbat - na), ib = i - (nbat - nb);
		int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
		if (sa != sb && sa != 1 && sb != 1) {
			error_set(err, 0, 0, "matmul: the batch dimensions of %s and %s do not broadcast "
				  "(%lld against %lld)", shp(b1, a), shp(b2, b), (long long)sa, (long long)sb);
			return NULL;
		}
		bshape[i] = sa == 1 ? sb : sa;
	}
	int64_t oshape[TENSOR_MAX_DIMS];
	int ond = 0;
	for (int i = 0; i < nbat; i++)
		oshape[ond++] = bshape[i];
	if (a->ndim > 1)
		oshape[ond++] = m;
	if (b->ndim > 1)
		oshape[ond++] = n;
	enum flavor fl = (a->flavor == FLAVOR_NUMPY && b->flavor == FLAVOR_NUMPY) ? FLAVOR_NUMPY : FLAVOR_TORCH;
	struct tensor *out = ops_new(ctx, cd, fl, ond, oshape, err);
	if (!out)
		return NULL;
	/* a small operand that is a strided view of the right dtype (K.T) is
	 * copied to the stack, not to a tensor of its own */
	_Alignas(64) char small_a[MATMUL_SMALL_BYTES], small_b[MATMUL_SMALL_BYTES];
	struct tensor *ac, *bc;
	const char *pa = mm_operand(a, cd, small_a, &ac), *pb = mm_operand(b, cd, small_b, &bc);
	int64_t batch = 1;
	for (int i = 0; i < nbat; i++)
		batch *= bshape[i];
	size_t es = dtype_size(cd);
	char *po = out->storage->data;
	kernel_progress_begin(batch * m * k * n);
	if (nb == 0) {
		/* b is one matrix: fold a's batch into its rows */
		if (na == nbat)
			mm_kernel(ctx, cd, po, pa, pb, batch * m, k, n);
		else
			for (int64_t i = 0; i < batch; i++)
				mm_kernel(ctx, cd, po + i * m * n * es, pa, pb, m, k, n);
	} else {
		for (int64_t i = 0; i < batch; i++) {
			/* offsets of batch element i in a and b, broadcasting size-1 dims */
			int64_t rem = i, oa = 0, ob = 0, sa = 1, sb = 1;
			for (int d = nbat - 1; d >= 0; d--) {
				int64_t idx = rem % bshape[d];
				rem /= bshape[d];
				int ia = d - (nbat - na), ib = d - (nbat - nb);
				if (ia >= 0) {
					if (a->shape[ia] != 1)
						oa += idx * sa;
					sa *= a->shape[ia];
				}
				if (ib >= 0) {
					if (b->shape[ib] != 1)
						ob += idx * sb;
					sb *= b->shape[ib];
				}
			}
			mm_kernel(ctx, cd, po + i * m * n * es, pa + oa * m * k * es, pb + ob * k * n * es, m, k, n);
		}
	}
	out = matmul_done(out, ac, bc, err);
	if (!out)
		return NULL;
	out = retype(out, rd);
	derive(out, DERIV_MATMUL, a, b, NULL);
	return out;
}

struct tensor *ops_bmm(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
		       struct qkv_error *err)
{
	char b1[96], b2[96];
	if (a->ndim != 3 || b->ndim != 3) {
		error_set(err, 0, 0, "bmm needs two 3-D tensors, got shapes %s and %s (torch.matmul takes any)",
			  shp(b1, a), shp(b2, b));
		return NULL;
	}
	if (a->shape[0] != b->shape[0]) {
		error_set(err, 0, 0, "bmm: batch sizes differ: shapes %s and %s", shp(b1, a), shp(b2, b));
		return NULL;
	}
	return ops_matmul(ctx, a, b, err);
}

struct tensor *ops_dot(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
		       struct qkv_error *err)
{
	char b1[96], b2[96];
	if (a->ndim != 1 || b->ndim != 1) {
		error_set(err, 0, 0, "dot needs two 1-D tensors, got shapes %s and %s", shp(b1, a), shp(b2, b));
		return NULL;
	}
	if (a->shape[0] != b->shape[0]) {
		error_set(err, 0, 0, "dot: the tensors have different lengths: shapes %s and %s",
			  shp(b1, a), shp(b2, b));
		return NULL;
	}
	enum dtype cd, rd;
	if (matmul_dtype(a, b, "dot", &cd, &rd, err) < 0)
		return NULL;
	(void)ctx;
	struct tensor *ta = ops_to_dtype(a, cd), *tb = ops_to_dtype(b, cd);
	struct tensor *out = tensor_new(cd, a->flavor, 0, NULL);
	if (cd == DT_F32)
		*(float *)out->storage->data = dot_f32(tensor_data(ta), ta->strides[0], tensor_data(tb),
						       tb->strides[0], a->shape[0]);
	else
		*(double *)out->storage->data = dot_f64(tensor_data(ta), ta->strides[0], tensor_data(tb),
							tb->strides[0], a->shape[0]);
	tensor_unref(ta);
	tensor_unref(tb);
	return retype(out, rd);
}

/* ---- softmax ------------------------------------------------------------------ */

static void softmax_kernel(const struct ops_ctx *ctx, enum dtype dt, void *dst, const void *src,
			   int64_t rows, int64_t cols)
{
	if (dt == DT_F32) {
		if (ctx->variant == KERNEL_LOOPS)
			softmax_rows_f32_loops(dst, src, rows, cols);
		else if (ctx->variant == KERNEL_UNROLLED)
			softmax_rows_f32_unrolled(dst, src, rows, cols);
		else
			softmax_rows_f32_simd(dst, src, rows, cols);
	} else {
		if (ctx->variant == KERNEL_LOOPS)
			softmax_rows_f64_loops(dst, src, rows, cols);
		else if (ctx->variant == KERNEL_UNROLLED)
			softmax_rows_f64_unrolled(dst, src, rows, cols);
		else
			softmax_rows_f64_simd(dst, src, rows, cols);
	}
}

static int need_float(const struct tensor *t, const char *what, struct qkv_error *err)
{
	if (dtype_is_float(t->dtype))
		return 0;
	return error_set(err, 0, 0, "%s needs a floating-point tensor, got %s "
			 "(write the numbers with a decimal point, or call .float())", what, dtype_name(t->dtype));
}

struct tensor *ops_log_softmax(struct tensor *t, int dim, struct qkv_error *err)
{
	if (need_float(t, "log_softmax", err) < 0 || (dim = ops_norm_dim(dim, t->ndim, err)) < 0)
		return NULL;
	if (t->ndim == 0)
		return ops_scalar(t->dtype, t->flavor, 0.0);
	int last = t->ndim - 1;
	struct tensor *moved = dim == last ? tensor_ref(t) : ops_transpose(t, dim, last, err);
	struct tensor *c = ops_clone(moved);	/* rows in order, computed in place */
	tensor_unref(moved);
	int64_t cols = c->shape[last], rows = cols ? tensor_numel(c) / cols : 0;
	bool f32 = c->dtype == DT_F32;
	for (int64_t r = 0; r < rows; r++) {
		double m = -INFINITY, s = 0;
		for (int64_t k = 0; k < cols; k++) {
			double x = tensor_get(c, r * cols + k);
			m = x > m || x != x ? x : m;
		}
		for (int64_t k = 0; k < cols; k++) {
			double d = tensor_get(c, r * cols + k) - m;
			s += f32 ? (double)expf((float)d) : exp(d);
		}
		/* as torch: x - (max + log(sum)), in the tensor's type */
		double shift = f32 ? (double)((float)m + logf((float)s)) : m + log(s);
		for (int64_t k = 0; k < cols; k++)
			tensor_set(c, r * cols + k, f32 ? (double)((float)tensor_get(c, r * cols + k) - (float)shift)
							: tensor_get(c, r * cols + k) - shift);
	}
	if (dim == last)
		return c;
	struct tensor *back = ops_transpose(c, dim, last, err);
	struct tensor *out = ops_contiguous(back);
	tensor_unref(back);
	tensor_unref(c);
	return out;
}

struct tensor *ops_softmax(const struct ops_ctx *ctx, struct tensor *t, int dim, struct qkv_error *err)
{
	if (need_float(t, "softmax", err) < 0)
		return NULL;
	if ((dim = ops_norm_dim(dim, t->ndim, err)) < 0)
		return NULL;
	if (t->ndim == 0)
		return ops_scalar(t->dtype, t->flavor, 1.0);
	int last = t->ndim - 1;
	struct tensor *moved = dim == last ? tensor_ref(t) : ops_transpose(t, dim, last, err);
	struct tensor *c;
	const void *src;
	if (tensor_is_contiguous(moved)) {	/* the kernel reads it where it is */
		c = tensor_new(moved->dtype, moved->flavor, moved->ndim, moved->shape);
		src = tensor_data(moved);
	} else {	/* a copy in row order, computed in place */
		c = ops_clone(moved);
		src = c->storage->data;
	}
	int64_t cols = c->shape[last];
	int64_t rows = cols ? tensor_numel(c) / cols : 0;
	kernel_progress_begin(rows * cols);
	if (rows > 0)
		softmax_kernel(ctx, c->dtype, c->storage->data, src, rows, cols);
	tensor_unref(moved);
	if (kernels_stopped(err) < 0) {
		tensor_unref(c);
		return NULL;
	}
	struct tensor *out = c;
	if (dim != last) {
		struct tensor *back = ops_transpose(c, dim, last, err);
		out = ops_contiguous(back);
		tensor_unref(back);
		tensor_unref(c);
	}
	struct derivation *d = derive(out, DERIV_SOFTMAX, t, NULL, NULL);
	if (d)
		d->dim = dim;
	return out;
}

struct tensor *ops_softmax_all(const struct ops_ctx *ctx, struct tensor *t, struct qkv_error *err)
{
	if (need_float(t, "softmax", err) < 0)
		return NULL;
	struct tensor *c = ops_clone(t);
	int64_t n = tensor_numel(c);
	kernel_progress_begin(n);
	if (n > 0)
		softmax_kernel(ctx, c->dtype, c->storage->data, c->storage->data, 1, n);
	if (kernels_stopped(err) < 0) {
		tensor_unref(c);
		return NULL;
	}
	return c;
}

/* ---- masks ------------------------------------------------------------------ */

static int check_mask(const struct tensor *mask, const char *what, struct qkv_error *err)
{
	if (mask->dtype == DT_BOOL)
		return 0;
	return error_set(err, 0, 0, "%s needs a bool mask, got %s (compare it, e.g. mask == 0, or call .bool())",
			 what, dtype_name(mask->dtype));
}

/* fills the contiguous tensor x where the (broadcast) mask is true */
static void fill_contig(struct tensor *x, const struct tensor *mask_b, double value)
{
	int64_t n = tensor_numel(x);
	if (x->dtype == DT_F32) {
		masked_fill_f32(tensor_data(x), tensor_data(mask_b), mask_b->strides, x->shape, x->ndim, (float)value);
	} else if (x->dtype == DT_F64) {
		masked_fill_f64(tensor_data(x), tensor_data(mask_b), mask_b->strides, x->shape, x->ndim, value);
	} else {
		for (int64_t i = 0; i < n; i++)
			if (tensor_get(mask_b, i) != 0)
				tensor_set(x, i, value);
	}
	x->storage->version++;
}

static int check_fill_value(const struct tensor *t, double value, struct qkv_error *err)
{
	if (!dtype_is_float(t->dtype) && !isfinite(value))
		return error_set(err, 0, 0, "cannot put %g into an %s tensor (only float tensors hold inf and nan)",
				 value, dtype_name(t->dtype));
	if (t->dtype == DT_I64 && !(value > -9.2233720368547758e18 && value < 9.2233720368547758e18))
		return error_set(err, 0, 0, "%g does not fit in an int64 tensor", value);
	return 0;
}

struct tensor *ops_masked_fill(const struct ops_ctx *ctx, struct tensor *t, struct tensor *mask,
			       double value, struct qkv_error *err)
{
	if (check_mask(mask, "masked_fill", err) < 0 || check_fill_value(t, value, err) < 0)
		return NULL;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	if (ops_broadcast_shape(ctx, t, mask, &ndim, shape, "masked_fill", err) < 0)
		return NULL;
	struct tensor *te = ops_expand(t, ndim, shape, err);
	struct tensor *me = ops_expand(mask, ndim, shape, err);
	struct tensor *out = ops_clone(te);
	fill_contig(out, me, value);
	tensor_unref(te);
	tensor_unref(me);
	struct derivation *d = derive(out, DERIV_MASKED_FILL, t, mask, NULL);
	if (d)
		d->scalar = value;
	return out;
}

int ops_masked_fill_(const struct ops_ctx *ctx, struct tensor *t, struct tensor *mask,
		     double value, struct qkv_error *err)
{
	(void)ctx;
	if (check_mask(mask, "masked_fill_", err) < 0 || check_fill_value(t, value, err) < 0)
		return -1;
	struct tensor *me = ops_expand(mask, t->ndim, t->shape, err);
	if (!me) {
		char b1[96], b2[96];
		return error_set(err, 0, 0, "masked_fill_: the mask of shape %s does not broadcast to the "
				 "tensor's shape %s", shp(b1, mask), shp(b2, t));
	}
	/* scores.masked_fill_(mask, -inf) on a whole tensor (not a view into
	 * another): it now holds a fill over a copy of what it held */
	struct derivation *fill = NULL;
	if (tensor_is_contiguous(t) && t->offset == 0 && tensor_numel(t) <= DERIVATION_MAX_ELEMS &&
	    (size_t)tensor_numel(t) * dtype_size(t->dtype) == t->storage->nbytes) {
		struct tensor *before = ops_clone(t);
		before->from = t->from;	/* so that the fill's inner is how t was computed */
		if (before->from)
			before->from->refs++;
		fill = derivation_new(DERIV_MASKED_FILL, before, mask, NULL);
		fill->scalar = value;
		tensor_unref(before);
	}
	if (tensor_is_contiguous(t)) {
		fill_contig(t, me, value);
	} else {
		struct tensor *c = ops_clone(t);
		fill_contig(c, me, value);
		copy_into(t, c);
		tensor_unref(c);
	}
	tensor_unref(me);
	if (fill) {
		derivation_unref(t->from);
		t->from = fill;
	}
	return 0;
}

struct tensor *ops_tri(const struct ops_ctx *ctx, struct tensor *t, int64_t diagonal, bool upper,
		       struct qkv_error *err)
{
	(void)ctx;
	if (t->ndim < 2) {
		char b[96];
		error_set(err, 0, 0, "%s needs a tensor of at least 2 dimensions, got shape %s",
			  upper ? "triu" : "tril", shp(b, t));
		return NULL;
	}
	struct tensor *out = ops_clone(t);
	int64_t rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
	int64_t batch = rows > 0 && cols > 0 ? tensor_numel(t) / (rows * cols) : 0;
	tri_zero(out->storage->data, dtype_size(out->dtype), batch, rows, cols, diagonal, upper);
	return out;
}

/* ---- attention pipeline -------------------------------------------------------- */

struct tensor *ops_attention(const struct ops_ctx *ctx, struct tensor *q, struct tensor *k,
			     struct tensor *v, struct tensor *mask, bool causal, double scale,
			     struct tensor **weights_out, struct qkv_error *err)
{
	char b1[96], b2[96], b3[96];
	if (weights_out)
		*weights_out = NULL;
	if (need_float(q, "attention", err) < 0)
		return NULL;
	if (q->ndim < 2 || k->ndim != q->ndim || v->ndim != q->ndim || k->dtype != q->dtype ||
	    v->dtype != q->dtype) {
		error_set(err, 0, 0, "attention needs q, k, v of the same dtype and number of dims (at least 2), "
			  "got %s, %s, %s", shp(b1, q), shp(b2, k), shp(b3, v));
		return NULL;
	}
	int nd = q->ndim;
	int64_t tq = q->shape[nd - 2], d = q->shape[nd - 1], tk = k->shape[nd - 2], dv = v->shape[nd - 1];
	bool lead_ok = true;
	for (int i = 0; i < nd - 2; i++)
		lead_ok &= k->shape[i] == q->shape[i] && v->shape[i] == q->shape[i];
	if (!lead_ok || k->shape[nd - 1] != d || v->shape[nd - 2] != tk) {
		error_set(err, 0, 0, "attention: shapes q %s, k %s, v %s do not fit "
			  "(need q (...,T,d), k (...,S,d), v (...,S,dv))", shp(b1, q), shp(b2, k), shp(b3, v));
		return NULL;
	}
	int64_t wshape[TENSOR_MAX_DIMS], oshape[TENSOR_MAX_DIMS];
	for (int i = 0; i < nd - 2; i++)
		wshape[i] = oshape[i] = q->shape[i];
	wshape[nd - 2] = tq;
	wshape[nd - 1] = tk;
	oshape[nd - 2] = tq;
	oshape[nd - 1] = dv;
	/* the (…, T, S) weights exist only when asked for or for the loops and
	 * unrolled kernels, which always form them */
	bool form_weights = weights_out || ctx->variant != KERNEL_SIMD;
	if ((form_weights && ops_check_shape(ctx, nd, wshape, err) < 0) || ops_check_shape(ctx, nd, oshape, err) < 0)
		return NULL;
	struct tensor *me = NULL;
	if (mask) {
		if (check_mask(mask, "attention", err) < 0)
			return NULL;
		struct tensor *e = ops_expand(mask, nd, wshape, err);
		if (!e)
			return NULL;
		me = ops_contiguous(e);
		tensor_unref(e);
	}
	struct tensor *qc = ops_contiguous(q), *kc = ops_contiguous(k), *vc = ops_contiguous(v);
	struct tensor *out = tensor_new(q->dtype, q->flavor, nd, oshape);
	/* the weights are formed only when asked for or for loops and unrolled; the simd
	 * kernel alone goes fused, through tiles, in memory linear in T */
	struct tensor *w = form_weights ? tensor_new(q->dtype, q->flavor, nd, wshape) : NULL;
	int64_t batch = tensor_numel(out) / (tq * dv > 0 ? tq * dv : 1);
	if (tq * dv == 0)
		batch = 0;
	const uint8_t *pm = me ? (const uint8_t *)tensor_data(me) : NULL;
	void *pw = w ? w->storage->data : NULL;
	/* the work: every query against every key, or (fused and causal) the
	 * keys up to the query's own */
	int64_t seen = tq * tk;
	if (causal && !form_weights)
		seen = tq <= tk ? tq * (tq + 1) / 2 : tk * (tk + 1) / 2 + (tq - tk) * tk;
	kernel_progress_begin(batch * seen * (d + dv));
	if (ctx->variant == KERNEL_SIMD && q->dtype == DT_F32)
		attention_heads_f32_simd(out->storage->data, pw, tensor_data(qc), tensor_data(kc), tensor_data(vc), pm,
					 causal, (float)scale, batch, tq, tk, d, dv);
	else if (ctx->variant == KERNEL_SIMD)
		attention_heads_f64_simd(out->storage->data, pw, tensor_data(qc), tensor_data(kc), tensor_data(vc), pm,
					 causal, scale, batch, tq, tk, d, dv);
	size_t es = dtype_size(q->dtype);
	for (int64_t i = 0; ctx->variant != KERNEL_SIMD && i < batch; i++) {
		char *po = (char *)out->storage->data + i * tq * dv * es;
		char *pwi = (char *)pw + i * tq * tk * es;
		const char *pq = (const char *)tensor_data(qc) + i * tq * d * es;
		const char *pk = (const char *)tensor_data(kc) + i * tk * d * es;
		const char *pv = (const char *)tensor_data(vc) + i * tk * dv * es;
		const uint8_t *pmi = pm ? pm + i * tq * tk : NULL;
		bool un = ctx->variant == KERNEL_UNROLLED;
		if (q->dtype == DT_F32)
			(un ? attention_f32_unrolled : attention_f32_loops)(
				(float *)po, (float *)pwi, (const float *)pq, (const float *)pk, (const float *)pv, pmi,
				causal, (float)scale, tq, tk, d, dv);
		else
			(un ? attention_f64_unrolled : attention_f64_loops)(
				(double *)po, (double *)pwi, (const double *)pq, (const double *)pk, (const double *)pv,
				pmi, causal, scale, tq, tk, d, dv);
	}
	tensor_unref(qc);
	tensor_unref(kc);
	tensor_unref(vc);
	tensor_unref(me);
	if (kernels_stopped(err) < 0) {
		tensor_unref(out);
		tensor_unref(w);
		return NULL;
	}
	/* the mask (true = masked, broadcastable to the weights) has no slot of
	 * its own: it rides in inner, as a DERIV_MASKED_FILL with b = mask and no
	 * a; an attention's inner is that or NULL, never how q was computed */
	struct derivation *how = derive(out, DERIV_ATTENTION, q, k, v);
	if (how) {
		how->scalar = scale;
		how->causal = causal;
		derivation_unref(how->inner);
		how->inner = NULL;
		if (mask) {
			how->inner = derivation_new(DERIV_MASKED_FILL, NULL, mask, NULL);
			how->inner->scalar = -INFINITY;
		}
	}
	if (weights_out)
		*weights_out = w;
	else
		tensor_unref(w);
	return out;
}

struct tensor *ops_dropout(const struct ops_ctx *ctx, struct tensor *t, double p,
			   struct torch_gen *g, struct qkv_error *err)
{
	(void)ctx;
	if (!(p >= 0 && p <= 1)) {
		error_set(err, 0, 0, "dropout probability has to be between 0 and 1, got %g", p);
		return NULL;
	}
	if (need_float(t, "dropout", err) < 0)
		return NULL;
	if (p == 0 || tensor_numel(t) == 0)
		return tensor_ref(t);
	struct tensor *c = ops_contiguous(t);
	struct tensor *out = tensor_new(t->dtype, t->flavor, t->ndim, t->shape);
	int64_t n = tensor_numel(t);
	if (p == 1) {
		tensor_unref(c);
		return out;
	}
	uint8_t *keep = xmalloc((size_t)n);
	torch_fill_bernoulli(g, keep, n, 1 - p);
	if (t->dtype == DT_F32)
		dropout_f32(out->storage->data, tensor_data(c), keep, n, 1.0f / (float)(1 - p));
	else
		dropout_f64(out->storage->data, tensor_data(c), keep, n, 1.0 / (1 - p));
	free(keep);
	tensor_unref(c);
	return out;
}

struct tensor *ops_cat(const struct ops_ctx *ctx, struct tensor **ts, int n, int dim,
		       struct qkv_error *err)
{
	char b1[96], b2[96];
	if (n == 0) {
		error_set(err, 0, 0, "cat needs at least one tensor");
		return NULL;
	}
	struct tensor *first = ts[0];
	if (first->ndim == 0) {
		error_set(err, 0, 0, "cat: zero-dimensional tensors cannot be concatenated (use stack)");
		return NULL;
	}
	if ((dim = ops_norm_dim(dim, first->ndim, err)) < 0)
		return NULL;
	int64_t shape[TENSOR_MAX_DIMS];
	memcpy(shape, first->shape, sizeof shape);
	shape[dim] = 0;
	enum dtype rd = first->dtype;
	enum flavor fl = first->flavor;
	for (int i = 0; i < n; i++) {
		struct tensor *t = ts[i];
		bool ok = t->ndim == first->ndim;
		for (int d = 0; ok && d < t->ndim; d++)
			ok = d == dim || t->shape[d] == first->shape[d];
		if (!ok) {
			error_set(err, 0, 0, "cat along dim %d: tensor %d has shape %s, tensor 0 has shape %s "
				  "(all dims but %d must match)", dim, i, shp(b1, t), shp(b2, first), dim);
			return NULL;
		}
		rd = promote_dtypes(rd, t->dtype);
		if (__builtin_add_overflow(shape[dim], t->shape[dim], &shape[dim])) {
			error_set(err, 0, 0, "cat: the joined dimension would be far too large");
			return NULL;
		}
	}
	struct tensor *out = ops_new(ctx, rd, fl, first->ndim, shape, err);
	if (!out)
		return NULL;
	int64_t at = 0;
	for (int i = 0; i < n; i++) {
		struct tensor *dst = ops_slice(out, dim, true, at, true, at + ts[i]->shape[dim], 1, err);
		copy_into(dst, ts[i]);
		tensor_unref(dst);
		at += ts[i]->shape[dim];
	}
	return out;
}

struct tensor *ops_stack(const struct ops_ctx *ctx, struct tensor **ts, int n, int dim,
			 struct qkv_error *err)
{
	char b1[96], b2[96];
	if (n == 0) {
		error_set(err, 0, 0, "stack needs at least one tensor");
		return NULL;
	}
	for (int i = 1; i < n; i++) {
		if (!tensor_same_shape(ts[i], ts[0])) {
			error_set(err, 0, 0, "stack needs tensors of equal shape, got %s at entry 0 and %s at entry %d",
				  shp(b1, ts[0]), shp(b2, ts[i]), i);
			return NULL;
		}
	}
	if (dim < -(ts[0]->ndim + 1) || dim > ts[0]->ndim) {
		error_set(err, 0, 0, "dim %d is out of range for stacking %d-D tensors", dim, ts[0]->ndim);
		return NULL;
	}
	struct tensor **us = xmalloc(sizeof *us * (size_t)n);
	int made = 0;
	struct tensor *out = NULL;
	for (; made < n; made++) {
		us[made] = ops_unsqueeze(ts[made], dim, err);
		if (!us[made])
			goto done;
	}
	out = ops_cat(ctx, us, n, dim < 0 ? dim + ts[0]->ndim + 1 : dim, err);
done:
	for (int i = 0; i < made; i++)
		tensor_unref(us[i]);
	free(us);
	return out;
}

/* torch's linspace_kernel on a contiguous result: runs of 2 * V elements
 * (V the AVX2 vector's lanes) each start at a base computed with a fused
 * multiply-add and step by base + j * step; the rest one at a time (fused),
 * from start below the halfway point, back from end after it. */
#define LINSPACE_TORCH(NAME, T, FMA, V)                                                          \
	static void NAME(T *y, T start, T end, int64_t steps)                                       \
	{                                                                                           \
		const int64_t half = steps / 2;                                                     \
		T step = (end - start) / (T)(steps - 1);                                            \
		int64_t i = 0;                                                                      \
		for (; i <= steps - 2 * V; i += 2 * V) {                                            \
			for (int64_t b = i; b < i + 2 * V; b += V) {                                \
				T base = b < half ? FMA(step, (T)b, start) : FMA(-step, (T)(steps - b - 1), end); \
				for (int64_t j = 0; j < V; j++)                                     \
					y[b + j] = j ? base + (T)j * step : base;                   \
			}                                                                           \
		}                                                                                   \
		for (; i < steps; i++)                                                              \
			y[i] = i < half ? FMA(step, (T)i, start) : FMA(-step, (T)(steps - i - 1), end);  \
	}
LINSPACE_TORCH(linspace_torch_f32, float, fmaf, 8)
LINSPACE_TORCH(linspace_torch_f64, double, fma, 4)
#undef LINSPACE_TORCH

/* int64: the step in double, each value cut toward zero */
static void linspace_torch_i64(int64_t *y, int64_t start, int64_t end, int64_t steps)
{
	const int64_t V = 4, half = steps / 2;
	double step = ((double)end - (double)start) / (double)(steps - 1);
	int64_t i = 0;
	for (; i <= steps - 2 * V; i += 2 * V) {
		for (int64_t b = i; b < i + 2 * V; b += V) {
			int64_t base = (int64_t)(b < half ? fma(step, (double)b, (double)start)
						 : fma(-step, (double)(steps - b - 1), (double)end));
			for (int64_t j = 0; j < V; j++)
				y[b + j] = j ? (int64_t)((double)base + (double)j * step) : base;
		}
	}
	for (; i < steps; i++)
		y[i] = (int64_t)(i < half ? fma(step, (double)i, (double)start)
				 : fma(-step, (double)(steps - i - 1), (double)end));
}

struct tensor *ops_linspace(const struct ops_ctx *ctx, enum flavor fl, double start, double end, int64_t steps,
			    bool endpoint, enum dtype dt, struct qkv_error *err)
{
	if (steps < 0) {
		if (fl == FLAVOR_NUMPY)
			error_set(err, 0, 0, "ValueError: Number of samples, %lld, must be non-negative.", (long long)steps);
		else
			error_set(err, 0, 0, "number of steps must be non-negative");
		return NULL;
	}
	if (dt == DT_BOOL) {
		error_set(err, 0, 0, "linspace() makes numbers; dtype bool is not supported in qkv");
		return NULL;
	}
	struct tensor *t = ops_new(ctx, dt, fl, 1, &steps, err);
	if (!t || steps == 0)
		return t;
	void *y = t->storage->data;
	if (fl == FLAVOR_TORCH) {
		if (steps == 1)
			tensor_set(t, 0, dt == DT_I64 ? (double)(int64_t)start : dt == DT_F32 ? (float)start : start);
		else if (dt == DT_F32)
			linspace_torch_f32(y, (float)start, (float)end, steps);
		else if (dt == DT_F64)
			linspace_torch_f64(y, start, end, steps);
		else
			linspace_torch_i64(y, (int64_t)start, (int64_t)end, steps);
		return t;
	}
	/* numpy's function_base.linspace, in float64, then converted to dt */
	int64_t div = endpoint ? steps - 1 : steps;
	double delta = end - start, step = div > 0 ? delta / (double)div : NAN;
	for (int64_t i = 0; i < steps; i++) {
		double v = (double)i;
		if (div > 0 && step == 0)
			v = v / (double)div * delta;
		else if (div > 0)
			v = v * step;
		else
			v = v * delta;
		v += start;
		if (endpoint && steps > 1 && i == steps - 1)
			v = end;
		tensor_set(t, i, dt == DT_I64 ? floor(v) : v);
	}
	return t;
}
