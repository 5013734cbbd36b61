/* reduce.c: reductions (sum and max along one axis, dot products) and the
 * dropout mask multiply, float32 and float64. Called by the ops layer; one
 * plain-C implementation each, summing in a fixed order so results are
 * reproducible; never allocates (partial sums live on the stack). */
#include "kernel/kernel.h"

#include <math.h>

/* Columns summed side by side, their partial sums kept on the stack. */
#define REDUCE_BLOCK 64

/* The sums of torch tensors follow PyTorch 1.13's cascade sum on the CPU
 * (aten/src/ATen/native/cpu/SumKernel.cpp) addition for addition, so that a
 * sum prints what torch prints: a row of ten softmax weights may add up to
 * exactly 1 in one order and to 1 + 2^-23 in another. Two orders build it:
 *
 * cascade: the values in order, added into a running sum; every `step`
 *   values (16, or more for n > 2^20) that sum moves up into the next of
 *   four levels, and each level moves up when its own count fills, so only
 *   sums of similar size meet; at the end the levels are added, lowest
 *   first.
 * row_sum: four cascades side by side over every fourth value (values
 *   4i+k go to partial k), the last n % 4 values added into partial 0, then
 *   p0 + p1, + p2, + p3.
 *
 * Which order a sum takes depends on its shape, as in torch (see
 * sum_dim_f32). A single sum of more than 32768 values, which torch splits
 * between threads, may round differently from torch's. */

/* ceil(log2(n)), and 1 for n <= 2 (torch's CeilLog2). */
static int64_t ceil_log2(int64_t n)
{
	if (n <= 2)
		return 1;
	return 64 - __builtin_clzll((unsigned long long)(n - 1));
}

#define SFN(name) name##_f32
#define T float
#define LANES 8
#include "kernel/sum_tmpl.h"
#undef SFN
#undef T
#undef LANES

#define SFN(name) name##_f64
#define T double
#define LANES 4
#include "kernel/sum_tmpl.h"
#undef SFN
#undef T
#undef LANES

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
