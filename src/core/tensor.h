/* tensor.h: the n-d array every layer passes around.
 * A tensor is a view (dtype, shape, strides, offset) onto a reference-counted
 * storage, so view/transpose/slice share memory as in PyTorch. Elements are
 * float32, float64, int64 or bool (one byte, 0 or 1). The flavor says whether
 * the value came from torch or numpy, which decides how it prints. */
#ifndef QKV_CORE_TENSOR_H
#define QKV_CORE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TENSOR_MAX_DIMS 4

enum dtype { DT_F32, DT_F64, DT_I64, DT_BOOL };
enum flavor { FLAVOR_TORCH, FLAVOR_NUMPY };

struct storage {
	int refs;
	size_t nbytes;
	void *data;        /* 64-byte aligned */
	uint64_t version;  /* bumped by every in-place write */
};

/* How a tensor was computed, for the cell inspector and the loop animation:
 * set by the ops that teach (matmul, softmax, scaling by a number,
 * masked_fill, the fused attention) on results of at most
 * DERIVATION_MAX_ELEMS elements; NULL otherwise and on views. Its operands
 * are tensors without derivations of their own (derivation_operand: the
 * operand itself, or a view of it without its derivation; an in-place
 * masked_fill_ may give one later, which no reader follows); `inner` keeps one level more
 * (how operand a was computed: the product under a scaling or a mask), and
 * an inner derivation never has an inner one, so nothing chains further. */
#define DERIVATION_MAX_ELEMS 65536

enum deriv_kind {
	DERIV_MATMUL,       /* a @ b */
	DERIV_SOFTMAX,      /* softmax(a, dim) */
	DERIV_SCALE,        /* a * scalar, or a / scalar when divide */
	DERIV_MASKED_FILL,  /* a.masked_fill(b, scalar) */
	DERIV_ATTENTION,    /* softmax(a·bᵀ·scalar [masked]) · c, fused */
};

struct derivation {
	int refs;
	enum deriv_kind kind;
	struct tensor *a, *b, *c;   /* operands (b, c may be NULL) */
	struct derivation *inner;   /* how a was computed, or NULL */
	double scalar;
	bool divide;
	bool causal;
	int dim;
	char label_a[48], label_b[48], label_c[48];  /* how the code named them ("Q", "K.T"), or "" */
};

/* What torch's autograd would record about a tensor, so it prints as torch
 * prints it (", grad_fn=<MmBackward0>)", ", requires_grad=True)"). Set by
 * lang/autograd.c; no gradient is ever computed. tensor_new starts with all
 * false/NULL; tensor_alias copies it. */
struct grad_state {
	bool requires_grad;
	const char *fn;     /* torch's backward node ("MmBackward0", a static string), NULL on leaves */
	bool view;          /* made by a view op (view, transpose, select, ...) */
	bool leaf_view;     /* a view of a leaf that requires grad: in-place writes are refused */
};

struct tensor {
	int refs;
	enum dtype dtype;
	enum flavor flavor;
	int ndim;                         /* 0..TENSOR_MAX_DIMS */
	int64_t shape[TENSOR_MAX_DIMS];
	int64_t strides[TENSOR_MAX_DIMS]; /* in elements, may be 0 (expanded) */
	int64_t offset;                   /* in elements from storage->data */
	struct storage *storage;
	struct derivation *from;          /* how it was computed, or NULL */
	struct grad_state grad;           /* what torch's autograd would record */
};

/* The most elements one tensor may hold, whatever QKV_MAX_ELEMS asks for:
 * 2^48 (2 PiB of float64, more than any address space), so that a byte
 * count (numel x 8, rounded up to 64) or an offset in bytes never comes near
 * overflowing int64_t or size_t. */
#define TENSOR_MAX_NUMEL (INT64_C(1) << 48)

/* "float32", "float64", "int64", "bool" */
const char *dtype_name(enum dtype dt);

/* Into *out the bytes of a contiguous tensor of this shape and dtype; false
 * when a size is negative or the product of the sizes (a 0 counted as 1, as
 * the strides count it) is over TENSOR_MAX_NUMEL. */
bool tensor_nbytes(enum dtype dt, int ndim, const int64_t *shape, size_t *out);
/* A new contiguous, zero-filled tensor. shape may be NULL when ndim == 0.
 * Preconditions: 0 <= ndim <= TENSOR_MAX_DIMS, shape[i] >= 0, and the element
 * count already checked against the limit (see ops_check_shape); a shape
 * tensor_nbytes refuses is treated as running out of memory (mem_die_oom). */
struct tensor *tensor_new(enum dtype dt, enum flavor fl, int ndim, const int64_t *shape);
/* A new derivation of the given kind over views of a, b, c (any may be NULL),
 * with inner set from a->from (flattened to one level); the caller sets the
 * other fields. Attach with t->from = d when t is small enough. */
struct derivation *derivation_new(enum deriv_kind kind, struct tensor *a, struct tensor *b, struct tensor *c);
/* A new reference to t for a derivation to hold (NULL for NULL): t itself
 * when it has no derivation (a tensor's geometry never changes once made,
 * and a view would share its numbers anyway), else a view of it without one. */
struct tensor *derivation_operand(struct tensor *t);

/* A new view sharing t's storage (refcount bumped), with the same geometry
 * (a view has no derivation of its own). */
struct tensor *tensor_alias(const struct tensor *t);

/* tensor_unref, storage_unref, derivation_unref (inline below) once the
 * last reference went: free it and what it holds. */
void tensor_release(struct tensor *t);
void storage_release(struct storage *st);
void derivation_release(struct derivation *d);

bool tensor_same_shape(const struct tensor *a, const struct tensor *b);

/* Offset in elements (from storage->data) of the element with the given
 * row-major logical index 0 <= flat < numel. */
int64_t tensor_flat_offset(const struct tensor *t, int64_t flat);
/* Element at row-major logical index `flat`, converted to double / int64. */
double tensor_get(const struct tensor *t, int64_t flat);
int64_t tensor_get_i64(const struct tensor *t, int64_t flat);
/* Stores v (converted to t's dtype) at row-major logical index `flat`. */
void tensor_set(struct tensor *t, int64_t flat, double v);

/* Writes "[2, 3]" style text of the shape into buf (at least 96 bytes). */
const char *tensor_shape_str(char *buf, size_t size, int ndim, const int64_t *shape);
/* Writes t's shape as the views title it into buf: "2×3", "3×4×4", or "a
 * number" for a 0-d tensor. */
const char *tensor_dims_str(char *buf, size_t size, const struct tensor *t);

/* ---- the small ones, inline: every op calls them, most several times -------- */

/* Whether shape is a small matrix or vector (a notebook's 4x4): at most 2
 * dimensions of at most 2^20, none negative, so that the product of its
 * sizes (at most 2^40, under TENSOR_MAX_NUMEL) needs no overflow checks. */
static inline bool tensor_shape_small(int ndim, const int64_t *shape)
{
	return ndim <= 2 && (ndim < 1 || (uint64_t)shape[0] <= 1u << 20) &&
	       (ndim < 2 || (uint64_t)shape[1] <= 1u << 20);
}

/* The elements of a shape tensor_shape_small accepts. */
static inline int64_t tensor_small_numel(int ndim, const int64_t *shape)
{
	return ndim ? shape[0] * (ndim == 2 ? shape[1] : 1) : 1;
}

static inline size_t dtype_size(enum dtype dt)
{
	return dt == DT_F32 ? 4 : dt == DT_BOOL ? 1 : 8;
}

static inline bool dtype_is_float(enum dtype dt)
{
	return dt == DT_F32 || dt == DT_F64;
}

static inline struct tensor *tensor_ref(struct tensor *t)
{
	if (t)
		t->refs++;
	return t;
}

/* Whether the ndim sizes (none negative) multiply into an int64. */
static inline bool tensor_numel_fits(int ndim, const int64_t *shape)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		if (__builtin_mul_overflow(n, shape[i], &n))
			return false;
	return true;
}

/* Steps idx, a row-major index into shape, to the next element; whether
 * there is one (at the end idx is all 0 again). */
static inline bool tensor_next_index(int64_t *idx, const int64_t *shape, int ndim)
{
	for (int d = ndim - 1; d >= 0; d--) {
		if (++idx[d] < shape[d])
			return true;
		idx[d] = 0;
	}
	return false;
}

static inline int64_t tensor_numel(const struct tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++)
		n *= t->shape[i];
	return n;
}

static inline bool tensor_is_contiguous(const struct tensor *t)
{
	int64_t expect = 1;
	for (int i = t->ndim - 1; i >= 0; i--) {
		if (t->shape[i] != 1 && t->strides[i] != expect)
			return false;
		expect *= t->shape[i];
	}
	return true;
}

/* Address of element 0 of the view (storage data + offset). */
static inline void *tensor_data(const struct tensor *t)
{
	return (char *)t->storage->data + t->offset * (int64_t)dtype_size(t->dtype);
}

/* NULL is fine for each */
static inline void tensor_unref(struct tensor *t)
{
	if (t && --t->refs <= 0)
		tensor_release(t);
}

static inline void storage_unref(struct storage *st)
{
	if (st && --st->refs <= 0)
		storage_release(st);
}

static inline void derivation_unref(struct derivation *d)
{
	if (d && --d->refs <= 0)
		derivation_release(d);
}

#endif
