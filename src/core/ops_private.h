/* ops_private.h: the helpers ops.c, ops_view.c, ops_reduce.c and ops_norm.c
 * share (a shape in messages, dtype choices and conversions, the reduced
 * dims of a reduction moved last). Included by src/core/ops*.c only; everyone else goes
 * through core/ops.h. */
#ifndef QKV_CORE_OPS_PRIVATE_H
#define QKV_CORE_OPS_PRIVATE_H

#include "core/ops.h"

/* t's shape as text for a message, in buf (96 bytes) */
static inline const char *shp(char *buf, const struct tensor *t)
{
	return tensor_shape_str(buf, 96, t->ndim, t->shape);
}

/* contiguous and of dtype dt: t itself when it already is */
static inline struct tensor *contig_as(struct tensor *t, enum dtype dt)
{
	if (t->dtype == dt)
		return ops_contiguous(t);
	return ops_to_dtype(t, dt);
}

/* the float dtype a Python number becomes: numpy's float64, torch's float32 */
static inline enum dtype default_float(enum flavor fl)
{
	return fl == FLAVOR_NUMPY ? DT_F64 : DT_F32;
}

/* The dtype a kernel computes in: floats as themselves, int64 exactly; bool
 * (and anything else) as float64. */
static inline enum dtype compute_dtype(enum dtype d)
{
	return d == DT_F32 ? DT_F32 : d == DT_I64 ? DT_I64 : DT_F64;
}

/* out converted to dtype rd (out itself when it already has it); consumes out */
static inline struct tensor *retype(struct tensor *out, enum dtype rd)
{
	if (out->dtype == rd)
		return out;
	struct tensor *r = ops_to_dtype(out, rd);
	tensor_unref(out);
	return r;
}

/* t with the dims marked in red moved last, in order, and merged into one
 * (the kept dims before it, in order): a reduction over its last dim is one
 * over all of them. With none marked, a last dim of 1. (ops_reduce.c) */
struct tensor *ops_merge_reduced(const struct ops_ctx *ctx, struct tensor *t, const bool *red,
				 struct qkv_error *err);

#endif
