/* nd.h: kernel-internal helper for the strided kernels (ew.c, move.c): pads
 * a shape or strides of ndim <= KERNEL_MAX_DIMS to exactly four dims, so that
 * every strided kernel is four plain nested loops. Included only in kernel/. */
#ifndef QKV_KERNEL_ND_H
#define QKV_KERNEL_ND_H

#include "kernel/kernel.h"

/* out[0..4) = fill... fill, in[0..ndim): leading axes of size 1 (or stride
 * fill) are added in front, as broadcasting does. in may be NULL if ndim == 0. */
static inline void nd_pad4(int64_t out[4], const int64_t *in, int ndim, int64_t fill)
{
	int lead = KERNEL_MAX_DIMS - ndim;
	for (int i = 0; i < KERNEL_MAX_DIMS; i++)
		out[i] = i < lead ? fill : in[i - lead];
}

#endif
