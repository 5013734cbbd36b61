/* tensor.c: creation, reference counting and element access for struct tensor.
 * Pure bookkeeping: no arithmetic (that is ops.c over kernel/), no printing
 * (format.c). Never fails: sizes are checked by the caller before creation
 * (tensor_nbytes guards the byte count all the same). */
#include "core/tensor.h"
#include "core/mem.h"
#include "core/spare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dtype_name(enum dtype dt)
{
	switch (dt) {
	case DT_F32: return "float32";
	case DT_F64: return "float64";
	case DT_I64: return "int64";
	case DT_BOOL: return "bool";
	}
	return "?";
}

bool tensor_nbytes(enum dtype dt, int ndim, const int64_t *shape, size_t *out)
{
	if (tensor_shape_small(ndim, shape)) {
		*out = (size_t)tensor_small_numel(ndim, shape) * dtype_size(dt);
		return true;
	}
	int64_t span = 1, numel = 1;
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			return false;
		int64_t d = shape[i] > 0 ? shape[i] : 1;
		if (__builtin_mul_overflow(span, d, &span) || span > TENSOR_MAX_NUMEL)	/* no division: */
			return false;	/* this runs for every tensor made */
		numel *= shape[i];
	}
	*out = (size_t)numel * dtype_size(dt);	/* at most 2^51: no overflow */
	return true;
}

/* ---- spares ------------------------------------------------------------------
 * Freed tensors, derivations and small storages kept for reuse, per thread:
 * a loop over small tensors makes and frees several of each per line, and
 * malloc (calloc and aligned_alloc skip its fast path) would be most of its
 * time. A small storage is one 64-byte aligned block: the struct, then its
 * data at +64, in one of three sizes. A thread's spares are freed when it
 * ends. */
#define SPARE_MAX 256
#define STORAGE_HEAD 64	/* sizeof (struct storage) rounded up to the data's alignment */
#define SMALL_CLASSES 3
static const size_t small_bytes[SMALL_CLASSES] = { 64, 256, 1024 };

static _Thread_local struct spare_list spare_tensors, spare_derivations, spare_small[SMALL_CLASSES];

/* The size class of a storage of nbytes, held inline, or -1 for one whose
 * data is a block of its own. Every storage is made by storage_new, and its
 * nbytes never changes, so this also says how to free it. */
static int small_class(size_t nbytes)
{
	for (int c = 0; c < SMALL_CLASSES; c++)
		if (nbytes <= small_bytes[c])
			return c;
	return -1;
}

static inline __attribute__((always_inline)) struct storage *storage_new(size_t nbytes)
{
	_Static_assert(sizeof(struct storage) <= STORAGE_HEAD, "struct storage outgrew its head");
	int c = small_class(nbytes);
	struct storage *st;
	if (c >= 0) {
		st = spare_get(&spare_small[c]);
		if (!st)
			st = xalloc_aligned(STORAGE_HEAD + small_bytes[c]);
		if (nbytes <= 64)	/* a 4x4 of float32: a constant size, zeroed in registers */
			mem_zero16(st, STORAGE_HEAD + 64);
		else
			memset(st, 0, STORAGE_HEAD + ((nbytes + 63) & ~(size_t)63));	/* zero-filled as xalloc_aligned */
		st->data = (char *)st + STORAGE_HEAD;
	} else {
		st = xcalloc(1, sizeof *st);
		st->data = xalloc_aligned(nbytes);
	}
	st->refs = 1;
	st->nbytes = nbytes;
	return st;
}

static struct tensor *tensor_blank(void)
{
	struct tensor *t = spare_get(&spare_tensors);
	if (!t)
		t = xmalloc(sizeof *t);
	return t;
}

struct tensor *tensor_new(enum dtype dt, enum flavor fl, int ndim, const int64_t *shape)
{
	size_t nbytes;
	if (tensor_shape_small(ndim, shape))	/* tensor_nbytes' first case, inline */
		nbytes = (size_t)tensor_small_numel(ndim, shape) * dtype_size(dt);
	else if (!tensor_nbytes(dt, ndim, shape, &nbytes))
		mem_die_oom(SIZE_MAX);
	struct tensor *t = tensor_blank();
	_Static_assert(sizeof *t % 16 == 0, "struct tensor is not whole blocks");
	mem_zero16(t, sizeof *t);
	t->refs = 1;
	t->dtype = dt;
	t->flavor = fl;
	t->ndim = ndim;
	int64_t n = 1;
	for (int i = ndim - 1; i >= 0; i--) {
		t->shape[i] = shape[i];
		t->strides[i] = n;
		n *= shape[i] > 0 ? shape[i] : 1;
	}
	t->storage = storage_new(nbytes);
	return t;
}

struct tensor *tensor_alias(const struct tensor *t)
{
	struct tensor *v = tensor_blank();
	*v = *t;
	v->refs = 1;
	v->storage->refs++;
	v->from = NULL;
	return v;
}

/* derivation_operand, inline where a derivation is made (three a time) */
static inline __attribute__((always_inline)) struct tensor *operand_of(struct tensor *t)
{
	if (!t)
		return NULL;
	return t->from ? tensor_alias(t) : tensor_ref(t);	/* tensor_alias drops the derivation */
}

struct tensor *derivation_operand(struct tensor *t)
{
	return operand_of(t);
}

static inline __attribute__((always_inline)) struct derivation *derivation_blank(void)
{
	struct derivation *d = spare_get(&spare_derivations);
	if (!d)
		d = xmalloc(sizeof *d);
	/* every field zero, the labels "": their other bytes are never read */
	memset(d, 0, offsetof(struct derivation, label_a));
	d->label_a[0] = d->label_b[0] = d->label_c[0] = 0;
	return d;
}

struct derivation *derivation_new(enum deriv_kind kind, struct tensor *a, struct tensor *b, struct tensor *c)
{
	struct derivation *d = derivation_blank();
	d->refs = 1;
	d->kind = kind;
	d->a = operand_of(a);
	d->b = operand_of(b);
	d->c = operand_of(c);
	if (a && a->from) {
		if (!a->from->inner) {
			d->inner = a->from;
			d->inner->refs++;
		} else {	/* a copy of a's derivation without its own inner level */
			struct derivation *f = a->from, *in = derivation_blank();
			*in = *f;
			in->refs = 1;
			in->inner = NULL;
			in->a = operand_of(f->a);
			in->b = operand_of(f->b);
			in->c = operand_of(f->c);
			d->inner = in;
		}
	}
	return d;
}

void derivation_release(struct derivation *d)
{
	tensor_unref(d->a);
	tensor_unref(d->b);
	tensor_unref(d->c);
	derivation_unref(d->inner);
	spare_put(&spare_derivations, d, SPARE_MAX);
}

void storage_release(struct storage *st)
{
	int c = small_class(st->nbytes);	/* a size storage_new holds inline */
	if (c >= 0) {
		spare_put(&spare_small[c], st, SPARE_MAX);
		return;
	}
	free(st->data);
	free(st);
}

void tensor_release(struct tensor *t)
{
	storage_unref(t->storage);
	derivation_unref(t->from);
	spare_put(&spare_tensors, t, SPARE_MAX);
}

bool tensor_same_shape(const struct tensor *a, const struct tensor *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i])
			return false;
	return true;
}

int64_t tensor_flat_offset(const struct tensor *t, int64_t flat)
{
	int64_t off = t->offset;
	for (int i = t->ndim - 1; i >= 0; i--) {
		int64_t n = t->shape[i];
		off += (flat % n) * t->strides[i];
		flat /= n;
	}
	return off;
}

double tensor_get(const struct tensor *t, int64_t flat)
{
	int64_t off = tensor_flat_offset(t, flat);
	const void *d = t->storage->data;
	switch (t->dtype) {
	case DT_F32: return ((const float *)d)[off];
	case DT_F64: return ((const double *)d)[off];
	case DT_I64: return (double)((const int64_t *)d)[off];
	case DT_BOOL: return ((const uint8_t *)d)[off];
	}
	return 0;
}

int64_t tensor_get_i64(const struct tensor *t, int64_t flat)
{
	int64_t off = tensor_flat_offset(t, flat);
	if (t->dtype == DT_I64)
		return ((const int64_t *)t->storage->data)[off];
	return (int64_t)tensor_get(t, flat);
}

void tensor_set(struct tensor *t, int64_t flat, double v)
{
	int64_t off = tensor_flat_offset(t, flat);
	void *d = t->storage->data;
	switch (t->dtype) {
	case DT_F32: ((float *)d)[off] = (float)v; break;
	case DT_F64: ((double *)d)[off] = v; break;
	case DT_I64:
		/* converting an out-of-range double to int64 is undefined: clamp */
		((int64_t *)d)[off] = isnan(v) ? 0 : v >= 9.2233720368547758e18 ? INT64_MAX
				    : v <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)v;
		break;
	case DT_BOOL: ((uint8_t *)d)[off] = v != 0; break;
	}
	t->storage->version++;
}

const char *tensor_dims_str(char *buf, size_t size, const struct tensor *t)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < t->ndim && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? "\u00d7" : "", (long long)t->shape[i]);
	if (t->ndim == 0)
		snprintf(buf, size, "a number");
	return buf;
}

const char *tensor_shape_str(char *buf, size_t size, int ndim, const int64_t *shape)
{
	size_t n = 0;
	n += (size_t)snprintf(buf + n, size - n, "[");
	for (int i = 0; i < ndim && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, i ? ", %lld" : "%lld", (long long)shape[i]);
	if (n < size)
		snprintf(buf + n, size - n, "]");
	return buf;
}
