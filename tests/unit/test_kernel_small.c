/* test_kernel_small.c: the simd kernels' paths for tiny shapes (a 4x4 times
 * 4x4 computed in place, rows shorter than a vector sharing one exp) give
 * the bits of the general paths, on every simd path of this machine: a
 * tiny product equals the corner of a large one, a short row equals its
 * definition through exp_f32_simd, special rows stay NaN. */
#include <criterion/criterion.h>

#include "kernel/kernel.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static float uniform_f32(unsigned *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (float)(*seed >> 8) / 8388608.0f - 1.0f;
}

static bool same_bits_f32(float x, float y)
{
	uint32_t a, b;
	memcpy(&a, &x, sizeof a);
	memcpy(&b, &y, sizeof b);
	return a == b;
}

static bool same_bits_f64(double x, double y)
{
	uint64_t a, b;
	memcpy(&a, &x, sizeof a);
	memcpy(&b, &y, sizeof b);
	return a == b;
}

/* the tiny shapes, and a large product holding each in its corner */
static const int64_t tiny[][3] = { { 1, 1, 1 }, { 4, 4, 4 }, { 3, 5, 2 }, { 8, 8, 8 }, { 2, 7, 9 }, { 1, 64, 1 },
				   { 6, 3, 16 } };
enum { BIG = 40 };

Test(kernel_small, tiny_matmul_should_give_the_bits_of_a_large_products_corner)
{
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		for (size_t s = 0; s < sizeof tiny / sizeof tiny[0]; s++) {
			int64_t m = tiny[s][0], k = tiny[s][1], n = tiny[s][2];
			static float a[BIG * 64], b[64 * BIG], c[BIG * BIG], ta[BIG * 64], tb[64 * BIG], tc[BIG * BIG];
			static double a2[BIG * 64], b2[64 * BIG], c2[BIG * BIG], ta2[BIG * 64], tb2[64 * BIG],
				tc2[BIG * BIG];
			unsigned seed = 17u + (unsigned)s;
			for (int64_t i = 0; i < BIG * k; i++)
				a2[i] = a[i] = uniform_f32(&seed);
			for (int64_t i = 0; i < k * BIG; i++)
				b2[i] = b[i] = uniform_f32(&seed);
			/* the corner: a's first m rows, b's first n columns */
			for (int64_t i = 0; i < m; i++)
				for (int64_t p = 0; p < k; p++)
					ta2[i * k + p] = ta[i * k + p] = a[i * k + p];
			for (int64_t p = 0; p < k; p++)
				for (int64_t j = 0; j < n; j++)
					tb2[p * n + j] = tb[p * n + j] = b[p * BIG + j];
			matmul_f32_simd(c, a, b, BIG, k, BIG);
			matmul_f32_simd(tc, ta, tb, m, k, n);
			matmul_f64_simd(c2, a2, b2, BIG, k, BIG);
			matmul_f64_simd(tc2, ta2, tb2, m, k, n);
			for (int64_t i = 0; i < m; i++)
				for (int64_t j = 0; j < n; j++) {
					cr_expect(same_bits_f32(tc[i * n + j], c[i * BIG + j]),
						  "%s %lldx%lldx%lld float c[%lld][%lld]: tiny %.9g, large %.9g",
						  kernel_simd_path(path), (long long)m, (long long)k, (long long)n,
						  (long long)i, (long long)j, tc[i * n + j], c[i * BIG + j]);
					cr_expect(same_bits_f64(tc2[i * n + j], c2[i * BIG + j]),
						  "%s %lldx%lldx%lld double c[%lld][%lld]: tiny %.17g, large %.17g",
						  kernel_simd_path(path), (long long)m, (long long)k, (long long)n,
						  (long long)i, (long long)j, tc2[i * n + j], c2[i * BIG + j]);
				}
		}
	}
	kernel_force_simd(NULL);
}

/* y = softmax of each row of x as its definition: the maximum, exp of each
 * x - max by exp_f32_simd, the sum in order, the division. */
static void softmax_by_definition(float *y, const float *x, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols, max = -INFINITY, d[8], sum = 0;
		for (int64_t j = 0; j < cols; j++)
			if (xr[j] > max || xr[j] != xr[j])
				max = xr[j];
		for (int64_t j = 0; j < cols; j++)
			d[j] = xr[j] - max;
		exp_f32_simd(yr, d, cols);
		for (int64_t j = 0; j < cols; j++)
			sum += yr[j];
		for (int64_t j = 0; j < cols; j++)
			yr[j] = max == -INFINITY ? NAN : yr[j] / sum;
	}
}

Test(kernel_small, short_softmax_rows_should_give_the_bits_of_their_definition)
{
	for (int path = 0; kernel_simd_path(path); path++) {
		const char *name = kernel_simd_path(path);
		if (strcmp(name, "scalar") == 0)
			continue;	/* libm's exp there, as the loops */
		cr_assert_eq(kernel_force_simd(name), 0);
		for (int64_t cols = 1; cols <= 3; cols++)
			for (int64_t rows = 1; rows <= 9; rows++) {
				float x[27], y[27], want[27];
				unsigned seed = (unsigned)(rows * 10 + cols);
				for (int64_t i = 0; i < rows * cols; i++)
					x[i] = 4 * uniform_f32(&seed);
				softmax_by_definition(want, x, rows, cols);
				softmax_rows_f32_simd(y, x, rows, cols);
				for (int64_t i = 0; i < rows * cols; i++)
					cr_expect(same_bits_f32(y[i], want[i]), "%s %lldx%lld: y[%lld] %.9g, want %.9g",
						  name, (long long)rows, (long long)cols, (long long)i, y[i], want[i]);
				softmax_rows_f32_simd(x, x, rows, cols);	/* in place */
				cr_expect(memcmp(x, y, sizeof(float) * (size_t)(rows * cols)) == 0,
					  "%s %lldx%lld: in place differs", name, (long long)rows, (long long)cols);
			}
	}
	kernel_force_simd(NULL);
}

Test(kernel_small, short_softmax_rows_should_keep_special_rows_apart)
{
	/* 4 rows of 3, sharing vectors: -inf only, a NaN, a +inf, a plain one */
	const float x[] = { -INFINITY, -INFINITY, -INFINITY, 1, NAN, 2, 0, INFINITY, 1, 0, 0, -INFINITY };
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		float y[12];
		softmax_rows_f32_simd(y, x, 4, 3);
		for (int i = 0; i < 9; i++)
			cr_expect(isnan(y[i]), "%s: y[%d] = %g, want NaN", kernel_simd_path(path), i, y[i]);
		cr_expect(y[9] == 0.5f && y[10] == 0.5f && y[11] == 0.0f, "%s: last row %g %g %g, want 0.5 0.5 0",
			  kernel_simd_path(path), y[9], y[10], y[11]);
	}
	kernel_force_simd(NULL);
}
