/* reduce.c: reductions (sum and max along one axis, dot products) and the
 * dropout mask multiply, float32 and float64. Called by the ops layer; one
 * plain-C implementation each, summing in a fixed order so results are
 * reproducible; never allocates (partial sums live on the stack). */
#include "kernel/kernel.h"

#include <math.h>

/* Columns summed side by side, their partial sums kept on the stack. */
#define REDUCE_BLOCK 64

/* The float32 sums follow PyTorch 1.13's cascade sum on the CPU
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

/* res[c] = the cascade sum of x[i * rs + c * cs], i = 0 .. n-1, for the w
 * (<= REDUCE_BLOCK) columns c. */
static void cascade_f32(float *res, const float *x, int64_t rs, int64_t cs, int64_t n, int64_t w)
{
	enum { LEVELS = 4 };
	int64_t power = ceil_log2(n) / LEVELS > 4 ? ceil_log2(n) / LEVELS : 4;
	int64_t step = (int64_t)1 << power, mask = step - 1;
	float acc[LEVELS][REDUCE_BLOCK];
	for (int l = 0; l < LEVELS; l++)
		for (int64_t c = 0; c < w; c++)
			acc[l][c] = 0.0f;
	int64_t i = 0;
	while (i + step <= n) {
		for (int64_t j = 0; j < step; j++, i++)
			for (int64_t c = 0; c < w; c++)
				acc[0][c] += x[i * rs + c * cs];
		for (int l = 1; l < LEVELS; l++) {
			for (int64_t c = 0; c < w; c++) {
				acc[l][c] += acc[l - 1][c];
				acc[l - 1][c] = 0.0f;
			}
			if (i & (mask << (l * power)))
				break;
		}
	}
	for (; i < n; i++)
		for (int64_t c = 0; c < w; c++)
			acc[0][c] += x[i * rs + c * cs];
	for (int l = 1; l < LEVELS; l++)
		for (int64_t c = 0; c < w; c++)
			acc[0][c] += acc[l][c];
	for (int64_t c = 0; c < w; c++)
		res[c] = acc[0][c];
}

/* res[c] = the row_sum of x[i * rs + c * cs], i = 0 .. n-1, for the w
 * (<= REDUCE_BLOCK) columns c. */
static void row_sum_f32(float *res, const float *x, int64_t rs, int64_t cs, int64_t n, int64_t w)
{
	float part[4][REDUCE_BLOCK];
	int64_t m = n / 4;
	for (int k = 0; k < 4; k++)
		cascade_f32(part[k], x + k * rs, 4 * rs, cs, m, w);
	for (int64_t i = 4 * m; i < n; i++)
		for (int64_t c = 0; c < w; c++)
			part[0][c] += x[i * rs + c * cs];
	for (int k = 1; k < 4; k++)
		for (int64_t c = 0; c < w; c++)
			part[0][c] += part[k][c];
	for (int64_t c = 0; c < w; c++)
		res[c] = part[0][c];
}

/* out is (outer, inner), in is (outer, n, inner): out = sum over n in float,
 * in torch's order (above). n == 0 gives 0.
 *   inner == 1, n >= 8 (a contiguous row, as x.sum() or x.sum(-1)): the row
 *     as vectors of 8; the 8 lanes are row_sums over the n / 8 vectors; then
 *     0 + the last n % 8 values in order, + lane 0, + lane 1, ... + lane 7.
 *   inner == 1, n < 8: row_sum.
 *   inner >= 8 (a column sum, as x.sum(0)): columns in blocks of 32 are
 *     cascades, the rest row_sums.
 *   1 < inner < 8: columns in groups of 4 are cascades, the rest row_sums. */
void sum_dim_f32(float *out, const float *in, int64_t outer, int64_t n, int64_t inner)
{
	for (int64_t o = 0; o < outer; o++) {
		const float *src = in + o * n * inner;
		float *dst = out + o * inner;
		if (inner == 1 && n >= 8) {
			float lanes[8], s = 0.0f;
			row_sum_f32(lanes, src, 8, 1, n / 8, 8);
			for (int64_t k = n / 8 * 8; k < n; k++)
				s += src[k];
			for (int l = 0; l < 8; l++)
				s += lanes[l];
			dst[0] = s;
			continue;
		}
		if (inner == 1) {
			row_sum_f32(dst, src, 1, 1, n, 1);
			continue;
		}
		int64_t group = inner >= 8 ? 32 : 4, j = 0;
		for (; j + group <= inner; j += group)
			cascade_f32(dst + j, src + j, inner, 1, n, group);
		for (; j < inner; j += REDUCE_BLOCK) {
			int64_t w = inner - j < REDUCE_BLOCK ? inner - j : REDUCE_BLOCK;
			row_sum_f32(dst + j, src + j, inner, 1, n, w);
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
