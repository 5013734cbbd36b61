/* move.c: data movement without arithmetic: strided copy (contiguous(),
 * transpose, expand), masked_fill and the triangle zeroing of tril/triu.
 * Called by the ops layer; byte-exact (values are copied, never converted);
 * never allocates. Shapes have at most KERNEL_MAX_DIMS axes. */
#include "kernel/kernel.h"
#include "kernel/nd.h"

#include <string.h>

/* out is (n) contiguous elements of elsize bytes; in is read at element
 * stride s. Elements are moved with fixed-size memcpy, which compiles to one
 * load and one store and has no aliasing or alignment questions. */
static void move_row(char *out, const char *in, int64_t s, int64_t n, size_t elsize)
{
	if (s == 1) {
		memcpy(out, in, (size_t)n * elsize);
		return;
	}
	switch (elsize) {
	case 1:
		for (int64_t i = 0; i < n; i++)
			out[i] = in[i * s];
		break;
	case 4:
		for (int64_t i = 0; i < n; i++)
			memcpy(out + i * 4, in + i * s * 4, 4);
		break;
	case 8:
		for (int64_t i = 0; i < n; i++)
			memcpy(out + i * 8, in + i * s * 8, 8);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(out + (size_t)i * elsize, in + (size_t)(i * s) * elsize, elsize);
		break;
	}
}

/* out is contiguous with the given shape, in is read at element strides istr
 * (0 on an expanded axis); out and in must not overlap. */
void copy_strided(void *out, const void *in, const int64_t *istr, const int64_t *shape,
		  int ndim, size_t elsize)
{
	int64_t sh[4], is[4];
	nd_pad4(sh, shape, ndim, 1);
	nd_pad4(is, istr, ndim, 0);
	char *o = out;
	const char *src = in;
	for (int64_t i0 = 0; i0 < sh[0]; i0++)
		for (int64_t i1 = 0; i1 < sh[1]; i1++)
			for (int64_t i2 = 0; i2 < sh[2]; i2++) {
				int64_t off = i0 * is[0] + i1 * is[1] + i2 * is[2];
				move_row(o, src + (size_t)off * elsize, is[3], sh[3], elsize);
				o += (size_t)sh[3] * elsize;
			}
}

/* x is contiguous with the given shape, mask is read at strides mstr. */
void masked_fill_f32(float *x, const uint8_t *mask, const int64_t *mstr, const int64_t *shape,
		     int ndim, float value)
{
	int64_t sh[4], ms[4];
	nd_pad4(sh, shape, ndim, 1);
	nd_pad4(ms, mstr, ndim, 0);
	for (int64_t i0 = 0; i0 < sh[0]; i0++)
		for (int64_t i1 = 0; i1 < sh[1]; i1++)
			for (int64_t i2 = 0; i2 < sh[2]; i2++) {
				const uint8_t *m = mask + i0 * ms[0] + i1 * ms[1] + i2 * ms[2];
				for (int64_t i = 0; i < sh[3]; i++)
					if (m[i * ms[3]] != 0)
						x[i] = value;
				x += sh[3];
			}
}

/* x is contiguous with the given shape, mask is read at strides mstr. */
void masked_fill_f64(double *x, const uint8_t *mask, const int64_t *mstr, const int64_t *shape,
		     int ndim, double value)
{
	int64_t sh[4], ms[4];
	nd_pad4(sh, shape, ndim, 1);
	nd_pad4(ms, mstr, ndim, 0);
	for (int64_t i0 = 0; i0 < sh[0]; i0++)
		for (int64_t i1 = 0; i1 < sh[1]; i1++)
			for (int64_t i2 = 0; i2 < sh[2]; i2++) {
				const uint8_t *m = mask + i0 * ms[0] + i1 * ms[1] + i2 * ms[2];
				for (int64_t i = 0; i < sh[3]; i++)
					if (m[i * ms[3]] != 0)
						x[i] = value;
				x += sh[3];
			}
}

/* x is (batch, rows, cols) of elsize-byte elements. tril (upper == false)
 * keeps col - row <= diagonal, triu keeps col - row >= diagonal; the rest of
 * each row is one run of columns, cleared with memset (all-bits-zero is 0
 * for every dtype). */
void tri_zero(void *x, size_t elsize, int64_t batch, int64_t rows, int64_t cols,
	      int64_t diagonal, bool upper)
{
	char *p = x;
	for (int64_t b = 0; b < batch; b++) {
		for (int64_t r = 0; r < rows; r++) {
			char *row = p + (size_t)((b * rows + r) * cols) * elsize;
			int64_t from, to;   /* the columns to clear: [from, to) */
			if (upper) {
				from = 0;
				to = r + diagonal;
			} else {
				from = r + diagonal + 1;
				to = cols;
			}
			if (from < 0)
				from = 0;
			if (to > cols)
				to = cols;
			if (from < to)
				memset(row + (size_t)from * elsize, 0, (size_t)(to - from) * elsize);
		}
	}
}
