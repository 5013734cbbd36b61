/* reduce.c: reductions (sum and max along one axis, dot products) and the
 * dropout mask multiply, float32 and float64. Called by the ops layer; one
 * plain-C implementation each, summing in a fixed order so results are
 * reproducible; never allocates (partial sums live on the stack). */
#include "kernel/kernel.h"

#include <math.h>

/* Columns of partial sums kept on the stack while walking down the n axis,
 * so that the inner loop runs along contiguous memory. */
#define REDUCE_BLOCK 64

/* Pairwise sum in float of rows p..q-1 of a block of w columns: runs of up to
 * 16 rows are added in order, longer ranges split in half. This is how
 * PyTorch's cascade sum rounds (a float32 row of softmax weights sums to
 * 0.99999994 there, and here, not to 1.0), with error growing like log n.
 * Recursion depth is at most log2(n / 16) < 40; each level keeps one block
 * of partial sums on the stack. */
static void pairwise_f32(float *acc, const float *src, int64_t inner, int64_t p, int64_t q, int64_t w)
{
	if (q - p <= 16) {
		for (int64_t i = 0; i < w; i++)
			acc[i] = 0.0f;
		for (int64_t r = p; r < q; r++) {
			const float *row = src + r * inner;
			for (int64_t i = 0; i < w; i++)
				acc[i] += row[i];
		}
		return;
	}
	float right[REDUCE_BLOCK];
	int64_t mid = p + (q - p) / 2;
	pairwise_f32(acc, src, inner, p, mid, w);
	pairwise_f32(right, src, inner, mid, q, w);
	for (int64_t i = 0; i < w; i++)
		acc[i] += right[i];
}

/* out is (outer, inner), in is (outer, n, inner): out = sum over n in float,
 * pairwise (see pairwise_f32). n == 0 gives 0. */
void sum_dim_f32(float *out, const float *in, int64_t outer, int64_t n, int64_t inner)
{
	float acc[REDUCE_BLOCK];
	for (int64_t o = 0; o < outer; o++) {
		const float *src = in + o * n * inner;
		for (int64_t i0 = 0; i0 < inner; i0 += REDUCE_BLOCK) {
			int64_t w = inner - i0 < REDUCE_BLOCK ? inner - i0 : REDUCE_BLOCK;
			pairwise_f32(acc, src + i0, inner, 0, n, w);
			for (int64_t i = 0; i < w; i++)
				out[o * inner + i0 + i] = acc[i];
		}
	}
}

/* out is (outer, inner), in is (outer, n, inner): out = sum over n. */
void sum_dim_f64(double *out, const double *in, int64_t outer, int64_t n, int64_t inner)
{
	double acc[REDUCE_BLOCK];
	for (int64_t o = 0; o < outer; o++) {
		const double *src = in + o * n * inner;
		for (int64_t i0 = 0; i0 < inner; i0 += REDUCE_BLOCK) {
			int64_t w = inner - i0 < REDUCE_BLOCK ? inner - i0 : REDUCE_BLOCK;
			for (int64_t i = 0; i < w; i++)
				acc[i] = 0.0;
			for (int64_t p = 0; p < n; p++) {
				const double *row = src + p * inner + i0;
				for (int64_t i = 0; i < w; i++)
					acc[i] += row[i];
			}
			for (int64_t i = 0; i < w; i++)
				out[o * inner + i0 + i] = acc[i];
		}
	}
}

/* out is (outer, inner), in is (outer, n, inner): out = max over n. A NaN
 * anywhere in a column makes its max NaN (torch.max does the same);
 * n == 0 gives -inf (the caller reports the empty reduction). */
void max_dim_f32(float *out, const float *in, int64_t outer, int64_t n, int64_t inner)
{
	for (int64_t o = 0; o < outer; o++) {
		const float *src = in + o * n * inner;
		float *dst = out + o * inner;
		for (int64_t i = 0; i < inner; i++)
			dst[i] = -INFINITY;
		for (int64_t p = 0; p < n; p++) {
			const float *row = src + p * inner;
			for (int64_t i = 0; i < inner; i++)
				if (row[i] > dst[i] || row[i] != row[i])
					dst[i] = row[i];
		}
	}
}

/* out is (outer, inner), in is (outer, n, inner): out = max over n. */
void max_dim_f64(double *out, const double *in, int64_t outer, int64_t n, int64_t inner)
{
	for (int64_t o = 0; o < outer; o++) {
		const double *src = in + o * n * inner;
		double *dst = out + o * inner;
		for (int64_t i = 0; i < inner; i++)
			dst[i] = -INFINITY;
		for (int64_t p = 0; p < n; p++) {
			const double *row = src + p * inner;
			for (int64_t i = 0; i < inner; i++)
				if (row[i] > dst[i] || row[i] != row[i])
					dst[i] = row[i];
		}
	}
}

/* a and b are (n) read at element strides sa and sb; the products are added
 * in order, in the element type (float32 sums in float, as torch.dot does). */
float dot_f32(const float *a, int64_t sa, const float *b, int64_t sb, int64_t n)
{
	float sum = 0.0f;
	for (int64_t i = 0; i < n; i++)
		sum += a[i * sa] * b[i * sb];
	return sum;
}

double dot_f64(const double *a, int64_t sa, const double *b, int64_t sb, int64_t n)
{
	double sum = 0.0;
	for (int64_t i = 0; i < n; i++)
		sum += a[i * sa] * b[i * sb];
	return sum;
}

/* out, in and keep are (n); out may equal in. A dropped element is 0 even
 * when in is inf or NaN, as a multiply by a 0/1 mask would not be. */
void dropout_f32(float *out, const float *in, const uint8_t *keep, int64_t n, float scale)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = keep[i] ? in[i] * scale : 0.0f;
}

void dropout_f64(double *out, const double *in, const uint8_t *keep, int64_t n, double scale)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = keep[i] ? in[i] * scale : 0.0;
}
