/* test_kernel.c: unit tests of src/kernel/: every simd kernel against its
 * loops twin at sizes 1, 3, 7, 17, 33, 64, 100 on both simd paths (the CPU's
 * best and the forced baseline), the vectorised exp against libm, and the
 * plain kernels (elementwise, copies, reductions) against hand-computed cases.
 *
 * "Agree" means, per element, |simd - loops| <= tol * max(1, |loops|) with
 * tol = 1e-5 (float32) or 1e-12 (float64): relative for large values,
 * absolute below 1 (inputs are uniform in [-1, 1], so sums of many products
 * can cancel to values near 0 whose relative error means nothing); equal
 * infinities and two NaNs agree. Run with --verbose to see measured errors. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "kernel/kernel.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_F32 1e-5
#define TOL_F64 1e-12

static const int64_t sizes[] = {1, 3, 7, 17, 33, 64, 100};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* ---- helpers -------------------------------------------------------------- */

/* xorshift64*: deterministic inputs, the same on every machine */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double rng_uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static float *rand_f32(int64_t n, double lo, double hi)
{
	float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
	for (int64_t i = 0; i < n; i++)
		p[i] = (float)(lo + (hi - lo) * rng_uniform());
	return p;
}

static double *rand_f64(int64_t n, double lo, double hi)
{
	double *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
	for (int64_t i = 0; i < n; i++)
		p[i] = lo + (hi - lo) * rng_uniform();
	return p;
}

/* tq x tk bytes, each set with probability p */
static uint8_t *rand_mask(int64_t n, double p)
{
	uint8_t *m = malloc((size_t)(n > 0 ? n : 1));
	for (int64_t i = 0; i < n; i++)
		m[i] = rng_uniform() < p;
	return m;
}

/* The error of x against the reference r as defined at the top, or 0 when
 * they agree exactly (same infinity, both NaN); INFINITY when one is NaN or
 * infinite and the other is not the same. */
static double err_of(double x, double r)
{
	if (isnan(x) || isnan(r))
		return isnan(x) && isnan(r) ? 0 : INFINITY;
	if (isinf(x) || isinf(r))
		return x == r ? 0 : INFINITY;
	return fabs(x - r) / fmax(1.0, fabs(r));
}

static double max_err_f32(const float *x, const float *r, int64_t n, int64_t *where)
{
	double worst = 0;
	*where = -1;
	for (int64_t i = 0; i < n; i++) {
		double e = err_of(x[i], r[i]);
		if (e > worst || (*where < 0 && e > 0)) {
			worst = e;
			*where = i;
		}
	}
	return worst;
}

static double max_err_f64(const double *x, const double *r, int64_t n, int64_t *where)
{
	double worst = 0;
	*where = -1;
	for (int64_t i = 0; i < n; i++) {
		double e = err_of(x[i], r[i]);
		if (e > worst || (*where < 0 && e > 0)) {
			worst = e;
			*where = i;
		}
	}
	return worst;
}

/* Distance in units in the last place, counting every float between the two
 * (so subnormals count too); 0 for two NaNs, huge for NaN against a number. */
static int64_t ulp_f32(float a, float b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INT32_MAX;
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	int64_t oa = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
	int64_t ob = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
	return oa > ob ? oa - ob : ob - oa;
}

static int64_t ulp_f64(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INT64_MAX;
	int64_t ia, ib;
	memcpy(&ia, &a, 8);
	memcpy(&ib, &b, 8);
	/* map to a monotonic scale; the values here are never negative */
	if (ia < 0 || ib < 0)
		return ia == ib ? 0 : INT64_MAX;
	return ia > ib ? ia - ib : ib - ia;
}

/* The two simd paths: 0 is the CPU's best (avx2+fma here), 1 the baseline. */
static void use_path(int path)
{
	kernel_force_baseline(path == 1);
}

enum mask_kind { MASK_NONE, MASK_CAUSAL, MASK_RANDOM, MASK_BOTH, MASK_KINDS };
static const char *mask_names[] = {"none", "causal", "random", "causal+random"};

/* A random mask of density 0.3 with row tq/2 fully masked, or NULL. */
static uint8_t *make_mask(enum mask_kind kind, int64_t tq, int64_t tk)
{
	if (kind != MASK_RANDOM && kind != MASK_BOTH)
		return NULL;
	uint8_t *m = rand_mask(tq * tk, 0.3);
	memset(m + (tq / 2) * tk, 1, (size_t)tk);
	return m;
}

/* ---- matmul -------------------------------------------------------------------- */

Test(kernel, matmul_simd_should_match_loops_f32)
{
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int im = 0; im < NSIZES; im++)
		for (int ik = 0; ik < NSIZES; ik++)
		for (int in = 0; in < NSIZES; in++) {
			int64_t m = sizes[im], k = sizes[ik], n = sizes[in];
			float *a = rand_f32(m * k, -1, 1), *b = rand_f32(k * n, -1, 1);
			float *ref = rand_f32(m * n, 0, 0), *got = rand_f32(m * n, 5, 5);
			matmul_f32_loops(ref, a, b, m, k, n);
			matmul_f32_simd(got, a, b, m, k, n);
			int64_t at;
			double e = max_err_f32(got, ref, m * n, &at);
			cr_assert(e <= TOL_F32, "%s m=%lld k=%lld n=%lld: c[%lld] simd %.9g loops %.9g (err %.3g)",
				  kernel_simd_name(), (long long)m, (long long)k, (long long)n,
				  (long long)at, got[at], ref[at], e);
			worst = fmax(worst, e);
			free(a), free(b), free(ref), free(got);
		}
	}
	use_path(0);
	cr_log_info("matmul f32: max error simd vs loops %.3g", worst);
}

Test(kernel, matmul_simd_should_match_loops_f64)
{
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int im = 0; im < NSIZES; im++)
		for (int ik = 0; ik < NSIZES; ik++)
		for (int in = 0; in < NSIZES; in++) {
			int64_t m = sizes[im], k = sizes[ik], n = sizes[in];
			double *a = rand_f64(m * k, -1, 1), *b = rand_f64(k * n, -1, 1);
			double *ref = rand_f64(m * n, 0, 0), *got = rand_f64(m * n, 5, 5);
			matmul_f64_loops(ref, a, b, m, k, n);
			matmul_f64_simd(got, a, b, m, k, n);
			int64_t at;
			double e = max_err_f64(got, ref, m * n, &at);
			cr_assert(e <= TOL_F64, "%s m=%lld k=%lld n=%lld: c[%lld] simd %.17g loops %.17g (err %.3g)",
				  kernel_simd_name(), (long long)m, (long long)k, (long long)n,
				  (long long)at, got[at], ref[at], e);
			worst = fmax(worst, e);
			free(a), free(b), free(ref), free(got);
		}
	}
	use_path(0);
	cr_log_info("matmul f64: max error simd vs loops %.3g", worst);
}

Test(kernel, matmul_simd_should_match_loops_across_block_edges)
{
	/* sizes around the register tile (6 x 16 floats, 6 x 8 doubles) and the
	 * depth of one pass (512), where partial sums are added back into c */
	static const int64_t dims[][3] = {{6, 512, 16}, {5, 513, 15}, {13, 600, 33}, {12, 1024, 48},
					  {2, 1100, 9}, {7, 1537, 8}};
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
			int64_t m = dims[t][0], k = dims[t][1], n = dims[t][2];
			double *a = rand_f64(m * k, -1, 1), *b = rand_f64(k * n, -1, 1);
			double *ref = rand_f64(m * n, 0, 0), *got = rand_f64(m * n, 0, 0);
			matmul_f64_loops(ref, a, b, m, k, n);
			matmul_f64_simd(got, a, b, m, k, n);
			int64_t at;
			double e = max_err_f64(got, ref, m * n, &at);
			cr_assert(e <= TOL_F64, "%s %lldx%lldx%lld: err %.3g at %lld", kernel_simd_name(),
				  (long long)m, (long long)k, (long long)n, e, (long long)at);
			free(a), free(b), free(ref), free(got);
		}
	}
	use_path(0);
}

Test(kernel, matmul_simd_should_be_exact_on_small_integers_f32)
{
	/* entries in -2..2: every partial sum is an integer below 2^24, so any
	 * summation order gives the same float and the two must agree exactly,
	 * whatever k (here past one pass of 512, where c is accumulated) */
	static const int64_t dims[][3] = {{6, 512, 16}, {5, 513, 15}, {13, 1100, 33}, {7, 1537, 8}};
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
			int64_t m = dims[t][0], k = dims[t][1], n = dims[t][2];
			float *a = rand_f32(m * k, 0, 1), *b = rand_f32(k * n, 0, 1);
			for (int64_t i = 0; i < m * k; i++)
				a[i] = floorf(a[i] * 5) - 2;
			for (int64_t i = 0; i < k * n; i++)
				b[i] = floorf(b[i] * 5) - 2;
			float *ref = rand_f32(m * n, 0, 0), *got = rand_f32(m * n, 0, 0);
			matmul_f32_loops(ref, a, b, m, k, n);
			matmul_f32_simd(got, a, b, m, k, n);
			for (int64_t i = 0; i < m * n; i++)
				cr_assert(got[i] == ref[i], "%s %lldx%lldx%lld: c[%lld] simd %g loops %g", kernel_simd_name(),
					  (long long)m, (long long)k, (long long)n, (long long)i, got[i], ref[i]);
			free(a), free(b), free(ref), free(got);
		}
	}
	use_path(0);
}

Test(kernel, matmul_with_k_zero_should_give_zeros)
{
	float a[1] = {7}, b[1] = {7}, c[12];
	double ad[1] = {7}, bd[1] = {7}, cd[12];
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		for (int i = 0; i < 12; i++)
			c[i] = NAN, cd[i] = NAN;
		if (path == 0) {
			matmul_f32_loops(c, a, b, 3, 0, 4);
			matmul_f64_loops(cd, ad, bd, 3, 0, 4);
		} else {
			matmul_f32_simd(c, a, b, 3, 0, 4);
			matmul_f64_simd(cd, ad, bd, 3, 0, 4);
		}
		for (int i = 0; i < 12; i++)
			cr_assert(c[i] == 0 && cd[i] == 0, "variant %d: c[%d] = %g, %g", path, i, c[i], cd[i]);
	}
	use_path(0);
}

Test(kernel, matmul_should_compute_a_small_product_exactly)
{
	/* [1 2; 3 4] · [5 6; 7 8] = [19 22; 43 50] */
	const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
	float c[4];
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		if (path == 0)
			matmul_f32_loops(c, a, b, 2, 2, 2);
		else
			matmul_f32_simd(c, a, b, 2, 2, 2);
		cr_assert(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50,
			  "variant %d: %g %g %g %g", path, c[0], c[1], c[2], c[3]);
	}
	use_path(0);
}

/* ---- softmax ------------------------------------------------------------------- */

/* rows x cols of scores in [-10, 10], about 20% -inf, row rows/2 all -inf */
static float *softmax_input_f32(int64_t rows, int64_t cols)
{
	float *x = rand_f32(rows * cols, -10, 10);
	for (int64_t i = 0; i < rows * cols; i++)
		if (rng_uniform() < 0.2)
			x[i] = -INFINITY;
	for (int64_t j = 0; j < cols; j++)
		x[(rows / 2) * cols + j] = -INFINITY;
	return x;
}

static double *softmax_input_f64(int64_t rows, int64_t cols)
{
	double *x = rand_f64(rows * cols, -10, 10);
	for (int64_t i = 0; i < rows * cols; i++)
		if (rng_uniform() < 0.2)
			x[i] = -INFINITY;
	for (int64_t j = 0; j < cols; j++)
		x[(rows / 2) * cols + j] = -INFINITY;
	return x;
}

Test(kernel, softmax_simd_should_match_loops_f32)
{
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int ir = 0; ir < NSIZES; ir++)
		for (int ic = 0; ic < NSIZES; ic++) {
			int64_t rows = sizes[ir], cols = sizes[ic];
			float *x = softmax_input_f32(rows, cols);
			float *ref = rand_f32(rows * cols, 0, 0), *got = rand_f32(rows * cols, 0, 0);
			softmax_rows_f32_loops(ref, x, rows, cols);
			softmax_rows_f32_simd(got, x, rows, cols);
			int64_t at;
			double e = max_err_f32(got, ref, rows * cols, &at);
			cr_assert(e <= TOL_F32, "%s %lldx%lld: [%lld] simd %.9g loops %.9g",
				  kernel_simd_name(), (long long)rows, (long long)cols, (long long)at,
				  got[at], ref[at]);
			for (int64_t i = 0; i < rows * cols; i++)
				cr_assert(x[i] != -INFINITY || got[i] == 0.0f, "masked entry %lld has weight %g",
					  (long long)i, got[i]);
			/* in place gives the same bits */
			softmax_rows_f32_simd(x, x, rows, cols);
			cr_assert(memcmp(x, got, (size_t)(rows * cols) * sizeof *x) == 0, "in place differs");
			worst = fmax(worst, e);
			free(x), free(ref), free(got);
		}
	}
	use_path(0);
	cr_log_info("softmax f32: max error simd vs loops %.3g", worst);
}

Test(kernel, softmax_simd_should_match_loops_f64)
{
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int ir = 0; ir < NSIZES; ir++)
		for (int ic = 0; ic < NSIZES; ic++) {
			int64_t rows = sizes[ir], cols = sizes[ic];
			double *x = softmax_input_f64(rows, cols);
			double *ref = rand_f64(rows * cols, 0, 0), *got = rand_f64(rows * cols, 0, 0);
			softmax_rows_f64_loops(ref, x, rows, cols);
			softmax_rows_f64_simd(got, x, rows, cols);
			int64_t at;
			double e = max_err_f64(got, ref, rows * cols, &at);
			cr_assert(e <= TOL_F64, "%s %lldx%lld: [%lld] simd %.17g loops %.17g",
				  kernel_simd_name(), (long long)rows, (long long)cols, (long long)at,
				  got[at], ref[at]);
			for (int64_t i = 0; i < rows * cols; i++)
				cr_assert(x[i] != -INFINITY || got[i] == 0.0, "masked entry %lld has weight %g",
					  (long long)i, got[i]);
			worst = fmax(worst, e);
			free(x), free(ref), free(got);
		}
	}
	use_path(0);
	cr_log_info("softmax f64: max error simd vs loops %.3g", worst);
}

Test(kernel, softmax_rows_should_sum_to_one)
{
	float *x = rand_f32(5 * 37, -20, 20), y[5 * 37];
	double *xd = rand_f64(5 * 37, -20, 20), yd[5 * 37];
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		if (path == 0) {
			softmax_rows_f32_loops(y, x, 5, 37);
			softmax_rows_f64_loops(yd, xd, 5, 37);
		} else {
			softmax_rows_f32_simd(y, x, 5, 37);
			softmax_rows_f64_simd(yd, xd, 5, 37);
		}
		for (int r = 0; r < 5; r++) {
			double s = 0, sd = 0;
			for (int j = 0; j < 37; j++)
				s += y[r * 37 + j], sd += yd[r * 37 + j];
			cr_assert(fabs(s - 1) < 1e-6 && fabs(sd - 1) < 1e-14, "row %d sums to %.9g / %.17g", r, s, sd);
		}
	}
	use_path(0);
	free(x), free(xd);
}

Test(kernel, softmax_of_an_all_minus_inf_row_should_be_zeros)
{
	for (int64_t cols = 1; cols <= 19; cols += 3) {
		float x[19], y[19];
		double xd[19], yd[19];
		for (int64_t j = 0; j < cols; j++)
			x[j] = -INFINITY, xd[j] = -INFINITY;
		for (int path = 0; path < 3; path++) {
			use_path(path == 2);
			for (int64_t j = 0; j < cols; j++)
				y[j] = NAN, yd[j] = NAN;
			if (path == 0) {
				softmax_rows_f32_loops(y, x, 1, cols);
				softmax_rows_f64_loops(yd, xd, 1, cols);
			} else {
				softmax_rows_f32_simd(y, x, 1, cols);
				softmax_rows_f64_simd(yd, xd, 1, cols);
			}
			for (int64_t j = 0; j < cols; j++)
				cr_assert(y[j] == 0 && !signbit(y[j]) && yd[j] == 0 && !signbit(yd[j]),
					  "variant %d cols %lld: [%lld] = %g / %g", path, (long long)cols,
					  (long long)j, y[j], yd[j]);
		}
	}
	use_path(0);
}

Test(kernel, softmax_with_plus_inf_or_nan_should_give_a_nan_row)
{
	/* documented: inf - inf is NaN, so a +inf makes its row NaN, as in torch */
	float rows[3][9] = {
		{1, 2, INFINITY, 3, 4, 5, 6, 7, 8},
		{1, 2, NAN, 3, 4, 5, 6, 7, 8},
		{-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, NAN},
	};
	float y[3][9];
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		if (path == 0)
			softmax_rows_f32_loops(&y[0][0], &rows[0][0], 3, 9);
		else
			softmax_rows_f32_simd(&y[0][0], &rows[0][0], 3, 9);
		for (int r = 0; r < 3; r++)
			for (int j = 0; j < 9; j++)
				cr_assert(isnan(y[r][j]), "variant %d: [%d][%d] = %g", path, r, j, y[r][j]);
	}
	use_path(0);
}

Test(kernel, softmax_should_not_overflow_on_large_scores)
{
	/* the x100 saturation experiment: subtracting the max keeps exp finite */
	float x[4] = {1000, 999, 0, -1000}, y[4];
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		if (path == 0)
			softmax_rows_f32_loops(y, x, 1, 4);
		else
			softmax_rows_f32_simd(y, x, 1, 4);
		cr_assert(fabsf(y[0] - 0.7310586f) < 1e-6f && fabsf(y[1] - 0.2689414f) < 1e-6f,
			  "variant %d: %g %g", path, y[0], y[1]);
		cr_assert(y[2] == 0 && y[3] == 0, "variant %d: %g %g", path, y[2], y[3]);
	}
	use_path(0);
}

/* ---- attention ------------------------------------------------------------------ */

static void check_attention_f32(int64_t tq, int64_t tk, int64_t d, int64_t dv, enum mask_kind kind,
				double *worst)
{
	float *q = rand_f32(tq * d, -1, 1), *k = rand_f32(tk * d, -1, 1), *v = rand_f32(tk * dv, -1, 1);
	float *out0 = rand_f32(tq * dv, 0, 0), *w0 = rand_f32(tq * tk, 0, 0);
	float *out1 = rand_f32(tq * dv, 9, 9), *w1 = rand_f32(tq * tk, 9, 9);
	uint8_t *mask = make_mask(kind, tq, tk);
	bool causal = kind == MASK_CAUSAL || kind == MASK_BOTH;
	float scale = 1.0f / sqrtf((float)d);

	attention_f32_loops(out0, w0, q, k, v, mask, causal, scale, tq, tk, d, dv);
	attention_f32_simd(out1, w1, q, k, v, mask, causal, scale, tq, tk, d, dv);
	int64_t at;
	double e = max_err_f32(w1, w0, tq * tk, &at);
	cr_assert(e <= TOL_F32, "%s tq=%lld tk=%lld d=%lld mask %s: weights[%lld] simd %.9g loops %.9g",
		  kernel_simd_name(), (long long)tq, (long long)tk, (long long)d, mask_names[kind],
		  (long long)at, w1[at], w0[at]);
	*worst = fmax(*worst, e);
	e = max_err_f32(out1, out0, tq * dv, &at);
	cr_assert(e <= TOL_F32, "%s tq=%lld tk=%lld d=%lld dv=%lld mask %s: out[%lld] simd %.9g loops %.9g",
		  kernel_simd_name(), (long long)tq, (long long)tk, (long long)d, (long long)dv,
		  mask_names[kind], (long long)at, out1[at], out0[at]);
	*worst = fmax(*worst, e);

	/* hidden keys have weight exactly 0 in both */
	for (int64_t i = 0; i < tq; i++)
		for (int64_t j = 0; j < tk; j++)
			if ((causal && j > i) || (mask && mask[i * tk + j]))
				cr_assert(w0[i * tk + j] == 0 && w1[i * tk + j] == 0,
					  "hidden weight [%lld][%lld] = %g / %g", (long long)i, (long long)j,
					  w0[i * tk + j], w1[i * tk + j]);

	/* fused: no weights, tiles and an online softmax (on every size) */
	kernel_set_attention_small(0);
	attention_f32_simd(out1, NULL, q, k, v, mask, causal, scale, tq, tk, d, dv);
	kernel_set_attention_small(-1);
	e = max_err_f32(out1, out0, tq * dv, &at);
	cr_assert(e <= TOL_F32, "fused %s tq=%lld tk=%lld d=%lld dv=%lld mask %s: out[%lld] simd %.9g loops %.9g",
		  kernel_simd_name(), (long long)tq, (long long)tk, (long long)d, (long long)dv,
		  mask_names[kind], (long long)at, out1[at], out0[at]);
	*worst = fmax(*worst, e);
	free(q), free(k), free(v), free(out0), free(w0), free(out1), free(w1), free(mask);
}

static void check_attention_f64(int64_t tq, int64_t tk, int64_t d, int64_t dv, enum mask_kind kind,
				double *worst)
{
	double *q = rand_f64(tq * d, -1, 1), *k = rand_f64(tk * d, -1, 1), *v = rand_f64(tk * dv, -1, 1);
	double *out0 = rand_f64(tq * dv, 0, 0), *w0 = rand_f64(tq * tk, 0, 0);
	double *out1 = rand_f64(tq * dv, 9, 9), *w1 = rand_f64(tq * tk, 9, 9);
	uint8_t *mask = make_mask(kind, tq, tk);
	bool causal = kind == MASK_CAUSAL || kind == MASK_BOTH;
	double scale = 1.0 / sqrt((double)d);

	attention_f64_loops(out0, w0, q, k, v, mask, causal, scale, tq, tk, d, dv);
	attention_f64_simd(out1, w1, q, k, v, mask, causal, scale, tq, tk, d, dv);
	int64_t at;
	double e = max_err_f64(w1, w0, tq * tk, &at);
	cr_assert(e <= TOL_F64, "%s tq=%lld tk=%lld d=%lld mask %s: weights[%lld] simd %.17g loops %.17g",
		  kernel_simd_name(), (long long)tq, (long long)tk, (long long)d, mask_names[kind],
		  (long long)at, w1[at], w0[at]);
	*worst = fmax(*worst, e);
	e = max_err_f64(out1, out0, tq * dv, &at);
	cr_assert(e <= TOL_F64, "%s tq=%lld tk=%lld d=%lld dv=%lld mask %s: out[%lld] simd %.17g loops %.17g",
		  kernel_simd_name(), (long long)tq, (long long)tk, (long long)d, (long long)dv,
		  mask_names[kind], (long long)at, out1[at], out0[at]);
	*worst = fmax(*worst, e);

	for (int64_t i = 0; i < tq; i++)
		for (int64_t j = 0; j < tk; j++)
			if ((causal && j > i) || (mask && mask[i * tk + j]))
				cr_assert(w0[i * tk + j] == 0 && w1[i * tk + j] == 0,
					  "hidden weight [%lld][%lld] = %g / %g", (long long)i, (long long)j,
					  w0[i * tk + j], w1[i * tk + j]);

	/* fused: no weights, tiles and an online softmax (on every size) */
	kernel_set_attention_small(0);
	attention_f64_simd(out1, NULL, q, k, v, mask, causal, scale, tq, tk, d, dv);
	kernel_set_attention_small(-1);
	e = max_err_f64(out1, out0, tq * dv, &at);
	cr_assert(e <= TOL_F64, "fused %s tq=%lld tk=%lld d=%lld dv=%lld mask %s: out[%lld] simd %.17g loops %.17g",
		  kernel_simd_name(), (long long)tq, (long long)tk, (long long)d, (long long)dv,
		  mask_names[kind], (long long)at, out1[at], out0[at]);
	*worst = fmax(*worst, e);
	free(q), free(k), free(v), free(out0), free(w0), free(out1), free(w1), free(mask);
}

Test(kernel, attention_simd_should_match_loops_f32)
{
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (int iq = 0; iq < NSIZES; iq++)
			for (int ik = 0; ik < NSIZES; ik++)
			for (int id = 0; id < NSIZES; id++)
				check_attention_f32(sizes[iq], sizes[ik], sizes[id], sizes[id], kind, &worst);
	}
	use_path(0);
	cr_log_info("attention f32: max error simd vs loops %.3g", worst);
}

Test(kernel, attention_simd_should_match_loops_f64)
{
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (int iq = 0; iq < NSIZES; iq++)
			for (int ik = 0; ik < NSIZES; ik++)
			for (int id = 0; id < NSIZES; id++)
				check_attention_f64(sizes[iq], sizes[ik], sizes[id], sizes[id], kind, &worst);
	}
	use_path(0);
	cr_log_info("attention f64: max error simd vs loops %.3g", worst);
}

Test(kernel, attention_simd_should_match_loops_when_dv_differs_from_d)
{
	double worst = 0;
	static const int64_t small[] = {1, 7, 33};
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (int iq = 0; iq < 3; iq++)
			for (int ik = 0; ik < 3; ik++)
			for (int id = 0; id < 3; id++)
			for (int iv = 0; iv < NSIZES; iv++) {
				check_attention_f32(small[iq], small[ik], small[id], sizes[iv], kind, &worst);
				check_attention_f64(small[iq], small[ik], small[id], sizes[iv], kind, &worst);
			}
	}
	use_path(0);
}

Test(kernel, attention_fused_should_match_loops_past_its_tile_sizes)
{
	/* depth over ATT_DC (128), values over ATT_DVC (64), rows and keys over
	 * several tiles of 48 and 64, query and key counts unequal */
	static const int64_t shapes[][4] = {
		{ 130, 130, 200, 64 }, { 97, 200, 64, 130 }, { 200, 97, 3, 65 }, { 49, 65, 129, 1 },
	};
	double worst = 0;
	for (int path = 0; path < 2; path++) {
		use_path(path);
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
				check_attention_f32(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], kind, &worst);
				check_attention_f64(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], kind, &worst);
			}
	}
	use_path(0);
	cr_log_info("attention past tiles: max error simd vs loops %.3g", worst);
}

Test(kernel, strided_attention_should_give_the_bits_of_gathered_heads)
{
	/* a GPT-2 style projection (B, T, 3, H, d) read in place as q, k, v of
	 * (B, H, T, d), written to (B, T, H, d) */
	enum { B = 2, T = 70, H = 3, D = 16, DM = H * D };
	float *qkv = rand_f32(B * T * 3 * DM, -2, 2), *ctx = rand_f32(B * T * DM, 0, 0);
	float *q = rand_f32(B * H * T * D, 0, 0), *k = rand_f32(B * H * T * D, 0, 0), *v = rand_f32(B * H * T * D, 0, 0);
	float *o = rand_f32(B * H * T * D, 0, 0);
	for (int b = 0; b < B; b++)
		for (int h = 0; h < H; h++)
			for (int t = 0; t < T; t++)
				for (int c = 0; c < D; c++) {
					const float *row = qkv + (b * T + t) * 3 * DM + h * D + c;
					int at = ((b * H + h) * T + t) * D + c;
					q[at] = row[0], k[at] = row[DM], v[at] = row[2 * DM];
				}
	const struct attn_layout in = { T * 3 * DM, D, 3 * DM }, out = { T * DM, D, DM };
	const struct attn_layout lay[4] = { in, in, in, out };
	for (int path = 0; path < 3; path++) {
		use_path(path == 1);
		kernel_force_scalar(path == 2);
		for (int causal = 0; causal < 2; causal++) {
			kernel_set_attention_small(0);
			attention_heads_f32_simd(o, NULL, q, k, v, NULL, causal, 0.25f, B * H, T, T, D, D);
			kernel_set_attention_small(-1);
			attention_strided_f32_simd(ctx, qkv, qkv + DM, qkv + 2 * DM, causal, 0.25f, B, H, T, T, D, D, lay);
			for (int b = 0; b < B; b++)
				for (int h = 0; h < H; h++)
					for (int t = 0; t < T; t++)
						cr_assert(memcmp(ctx + (b * T + t) * DM + h * D, o + ((b * H + h) * T + t) * D,
								 D * sizeof(float)) == 0,
							  "path %d causal %d: head (%d, %d) row %d differs", path, causal, b, h, t);
		}
	}
	kernel_force_scalar(false);
	use_path(0);
	free(qkv), free(ctx), free(q), free(k), free(v), free(o);
}

Test(kernel, the_scalar_path_should_match_loops_fused_or_not)
{
	/* QKV_NO_SIMD=1: loops, libm's exp and a scalar online softmax */
	static const int64_t shapes[][4] = { { 1, 1, 1, 1 }, { 7, 17, 3, 7 }, { 100, 100, 33, 64 }, { 49, 130, 8, 65 } };
	double worst = 0;
	kernel_force_scalar(true);
	cr_assert_str_eq(kernel_simd_name(), "scalar");
	for (int kind = 0; kind < MASK_KINDS; kind++)
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
			check_attention_f32(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], kind, &worst);
			check_attention_f64(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], kind, &worst);
		}
	float x[5] = { -INFINITY, 0, 1, 88, NAN }, y[5];
	exp_f32_simd(y, x, 5);
	cr_assert(y[0] == 0 && y[1] == 1 && y[2] == expf(1) && y[3] == expf(88) && isnan(y[4]));
	kernel_force_scalar(false);
	cr_assert_str_neq(kernel_simd_name(), "scalar");
}

Test(kernel, attention_heads_should_give_the_same_bits_on_any_number_of_threads)
{
	enum { H = 6, T = 150, D = 40 };
	float *q = rand_f32(H * T * D, -2, 2), *k = rand_f32(H * T * D, -2, 2), *v = rand_f32(H * T * D, -2, 2);
	float *one = rand_f32(H * T * D, 0, 0), *many = rand_f32(H * T * D, 0, 0), *head = rand_f32(T * D, 0, 0);
	double *qd = rand_f64(H * T * D, -2, 2), *kd = rand_f64(H * T * D, -2, 2), *vd = rand_f64(H * T * D, -2, 2);
	double *oned = rand_f64(H * T * D, 0, 0), *manyd = rand_f64(H * T * D, 0, 0);
	for (int causal = 0; causal < 2; causal++) {
		kernel_set_threads(1);
		attention_heads_f32_simd(one, NULL, q, k, v, NULL, causal, 0.125f, H, T, T, D, D);
		attention_heads_f64_simd(oned, NULL, qd, kd, vd, NULL, causal, 0.125, H, T, T, D, D);
		kernel_set_threads(3);
		attention_heads_f32_simd(many, NULL, q, k, v, NULL, causal, 0.125f, H, T, T, D, D);
		attention_heads_f64_simd(manyd, NULL, qd, kd, vd, NULL, causal, 0.125, H, T, T, D, D);
		cr_assert(memcmp(one, many, sizeof(float) * H * T * D) == 0, "f32 causal=%d: threads changed bits", causal);
		cr_assert(memcmp(oned, manyd, sizeof(double) * H * T * D) == 0, "f64 causal=%d: threads changed bits",
			  causal);
		/* and each head is what the one-head kernel gives */
		for (int h = 0; h < H; h++) {
			attention_f32_simd(head, NULL, q + h * T * D, k + h * T * D, v + h * T * D, NULL, causal, 0.125f,
					   T, T, D, D);
			cr_assert(memcmp(head, one + h * T * D, sizeof(float) * T * D) == 0, "head %d differs", h);
		}
	}
	kernel_set_threads(0);
	free(q), free(k), free(v), free(one), free(many), free(head);
	free(qd), free(kd), free(vd), free(oned), free(manyd);
}

Test(kernel, attention_of_a_small_head_without_weights_should_round_as_with_them)
{
	/* up to 4096 scores the two-pass softmax runs on the stack: the same bits */
	float *q = rand_f32(7 * 5, -1, 1), *k = rand_f32(7 * 5, -1, 1), *v = rand_f32(7 * 3, -1, 1);
	float w[49], with[21], without[21];
	attention_f32_simd(with, w, q, k, v, NULL, true, 0.4472136f, 7, 7, 5, 3);
	attention_f32_simd(without, NULL, q, k, v, NULL, true, 0.4472136f, 7, 7, 5, 3);
	cr_assert(memcmp(with, without, sizeof with) == 0);
	free(q), free(k), free(v);
}

Test(kernel, attention_fully_masked_row_should_give_zero_weights_and_output)
{
	float q[3 * 4], k[5 * 4], v[5 * 2], out[3 * 2], w[3 * 5];
	uint8_t mask[3 * 5] = {0};
	for (int i = 0; i < 12; i++)
		q[i] = (float)i / 7;
	for (int i = 0; i < 20; i++)
		k[i] = (float)(20 - i) / 9;
	for (int i = 0; i < 10; i++)
		v[i] = (float)i;
	memset(mask + 5, 1, 5);   /* query 1 may see nothing */
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		if (path == 0)
			attention_f32_loops(out, w, q, k, v, mask, false, 0.5f, 3, 5, 4, 2);
		else
			attention_f32_simd(out, w, q, k, v, mask, false, 0.5f, 3, 5, 4, 2);
		for (int j = 0; j < 5; j++)
			cr_assert(w[5 + j] == 0, "variant %d: weight [1][%d] = %g", path, j, w[5 + j]);
		cr_assert(out[2] == 0 && out[3] == 0, "variant %d: out row 1 = %g %g", path, out[2], out[3]);
		double s = 0;
		for (int j = 0; j < 5; j++)
			s += w[j];
		cr_assert(fabs(s - 1) < 1e-6, "variant %d: row 0 sums to %g", path, s);
		if (path > 0) {
			memset(out, 0x7f, sizeof out);
			kernel_set_attention_small(0);
			attention_f32_simd(out, NULL, q, k, v, mask, false, 0.5f, 3, 5, 4, 2);
			kernel_set_attention_small(-1);
			cr_assert(out[2] == 0 && out[3] == 0, "fused %d: out row 1 = %g %g", path, out[2], out[3]);
		}
	}
	use_path(0);
}

Test(kernel, attention_causal_first_query_should_copy_the_first_value)
{
	/* query 0 may only look at key 0, so its output is v[0] exactly */
	double *q = rand_f64(17 * 7, -1, 1), *k = rand_f64(17 * 7, -1, 1), *v = rand_f64(17 * 3, -1, 1);
	double out[17 * 3], w[17 * 17];
	for (int path = 0; path < 3; path++) {
		use_path(path == 2);
		if (path == 0)
			attention_f64_loops(out, w, q, k, v, NULL, true, 0.25, 17, 17, 7, 3);
		else
			attention_f64_simd(out, w, q, k, v, NULL, true, 0.25, 17, 17, 7, 3);
		cr_assert(w[0] == 1.0, "variant %d: w[0][0] = %g", path, w[0]);
		for (int c = 0; c < 3; c++)
			cr_assert(out[c] == v[c], "variant %d: out[0][%d] = %g, v = %g", path, c, out[c], v[c]);
		if (path > 0) {
			kernel_set_attention_small(0);
			attention_f64_simd(out, NULL, q, k, v, NULL, true, 0.25, 17, 17, 7, 3);
			kernel_set_attention_small(-1);
			for (int c = 0; c < 3; c++)
				cr_assert(out[c] == v[c], "fused %d: out[0][%d] = %g, v = %g", path, c, out[c], v[c]);
		}
	}
	use_path(0);
	free(q), free(k), free(v);
}

/* ---- exp ---------------------------------------------------------------------------- */

Test(kernel, exp_f32_simd_should_be_within_one_ulp_of_expf)
{
	/* every 61st float in [-104, 89] (some 36 million), both signs, plus
	 * every float in [-1, 1] near 0 at a finer step */
	enum { BATCH = 4096 };
	static float x[BATCH], y[BATCH];
	for (int path = 0; path < 2; path++) {
		use_path(path);
		int64_t worst = 0;
		float worst_x = 0, worst_y = 0;
		int64_t count = 0;
		for (int sign = 0; sign < 2; sign++) {
			uint32_t top = sign ? 0xC2D00000u : 0x42B20000u;   /* -104, 89 */
			uint32_t bits = sign ? 0x80000000u : 0;
			while (bits < top) {
				int n = 0;
				for (; n < BATCH && bits < top; n++, bits += 61)
					memcpy(&x[n], &bits, 4);
				exp_f32_simd(y, x, n);
				for (int i = 0; i < n; i++) {
					int64_t u = ulp_f32(y[i], expf(x[i]));
					if (u > worst)
						worst = u, worst_x = x[i], worst_y = y[i];
				}
				count += n;
			}
		}
		cr_log_info("exp_f32_simd (%s): max %lld ulp against expf (at x = %.9g) over %lld inputs",
			    kernel_simd_name(), (long long)worst, worst_x, (long long)count);
		cr_assert(worst <= 1, "%s: %lld ulp at x = %.9g (simd %.9g, expf %.9g)", kernel_simd_name(),
			  (long long)worst, worst_x, worst_y, expf(worst_x));
	}
	use_path(0);
}

Test(kernel, exp_f64_simd_should_be_within_one_ulp_of_exp)
{
	enum { BATCH = 4096, ROUNDS = 500 };
	static double x[BATCH], y[BATCH];
	for (int path = 0; path < 2; path++) {
		use_path(path);
		int64_t worst = 0;
		double worst_x = 0;
		for (int r = 0; r < ROUNDS; r++) {
			/* half the rounds over the whole range, half near 0 */
			double lo = r % 2 ? -746 : -2, hi = r % 2 ? 710 : 2;
			for (int i = 0; i < BATCH; i++)
				x[i] = lo + (hi - lo) * rng_uniform();
			exp_f64_simd(y, x, BATCH);
			for (int i = 0; i < BATCH; i++) {
				int64_t u = ulp_f64(y[i], exp(x[i]));
				if (u > worst)
					worst = u, worst_x = x[i];
			}
		}
		cr_log_info("exp_f64_simd (%s): max %lld ulp against exp (at x = %.17g) over %d inputs",
			    kernel_simd_name(), (long long)worst, worst_x, BATCH * ROUNDS);
		cr_assert(worst <= 1, "%s: %lld ulp at x = %.17g", kernel_simd_name(), (long long)worst, worst_x);
	}
	use_path(0);
}

Test(kernel, exp_simd_should_handle_special_values_exactly)
{
	const float xs[] = {-INFINITY, INFINITY, NAN, 0.0f, -0.0f, -FLT_MAX, FLT_MAX, -110.0f,
			    -104.5f, 88.7f, 88.8f, 100.0f, -87.5f, -100.0f, -103.0f, 1.0f};
	const double xd[] = {-INFINITY, INFINITY, NAN, 0.0, -0.0, -DBL_MAX, DBL_MAX, -800.0,
			     -746.5, 709.7, 709.8, 1000.0, -708.5, -740.0, -744.0, 1.0};
	enum { N = sizeof xs / sizeof xs[0] };
	float y[N];
	double yd[N];
	for (int path = 0; path < 2; path++) {
		use_path(path);
		exp_f32_simd(y, xs, N);
		exp_f64_simd(yd, xd, N);
		cr_assert(y[0] == 0 && !signbit(y[0]) && yd[0] == 0 && !signbit(yd[0]), "exp(-inf)");
		cr_assert(y[1] == INFINITY && yd[1] == INFINITY, "exp(inf)");
		cr_assert(isnan(y[2]) && isnan(yd[2]), "exp(nan)");
		cr_assert(y[3] == 1 && y[4] == 1 && yd[3] == 1 && yd[4] == 1, "exp(0)");
		cr_assert(y[5] == 0 && yd[5] == 0, "exp(-max)");
		cr_assert(y[6] == INFINITY && yd[6] == INFINITY, "exp(max)");
		/* underflow, overflow and the subnormal range match libm */
		for (int i = 7; i < N; i++) {
			cr_assert(ulp_f32(y[i], expf(xs[i])) <= 1, "%s: exp(%.9g) = %.9g, expf %.9g",
				  kernel_simd_name(), xs[i], y[i], expf(xs[i]));
			cr_assert(ulp_f64(yd[i], exp(xd[i])) <= 1, "%s: exp(%.17g) = %.17g, exp %.17g",
				  kernel_simd_name(), xd[i], yd[i], exp(xd[i]));
		}
		/* in place, and a length that is not a multiple of the vector width */
		float z[5] = {0, 1, 2, -1, -2};
		exp_f32_simd(z, z, 5);
		for (int i = 0; i < 5; i++)
			cr_assert(ulp_f32(z[i], expf((float)(i < 3 ? i : 2 - i))) <= 1, "in place [%d]", i);
	}
	use_path(0);
}

Test(kernel, kernel_simd_name_should_report_the_baseline_when_forced)
{
	kernel_force_baseline(true);
	const char *base = kernel_simd_name();
#if defined(__x86_64__)
	cr_assert_str_eq(base, "sse2");
#elif defined(__aarch64__)
	cr_assert_str_eq(base, "neon");
#endif
	kernel_force_baseline(false);
	const char *best = kernel_simd_name();
	cr_log_info("simd path: %s (baseline %s)", best, base);
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		cr_assert_str_eq(best, "avx2+fma");
	else
		cr_assert_str_eq(best, "sse2");
#endif
}

/* ---- elementwise ---------------------------------------------------------------------- */

Test(kernel, ew_binary_should_broadcast_a_row_and_a_column)
{
	/* a is (2,1) read as (2,3), b is (3,) read as (2,3): out[i][j] = a[i] - b[j] */
	const float a[] = {10, 20}, b[] = {1, 2, 3};
	const int64_t shape[] = {2, 3}, astr[] = {1, 0}, bstr[] = {0, 1};
	float out[6];
	ew_binary_f32(out, a, astr, b, bstr, shape, 2, EW_SUB);
	const float want[] = {9, 8, 7, 19, 18, 17};
	for (int i = 0; i < 6; i++)
		cr_assert(out[i] == want[i], "out[%d] = %g, want %g", i, out[i], want[i]);

	const double ad[] = {10, 20}, bd[] = {1, 2, 3};
	double outd[6];
	ew_binary_f64(outd, ad, astr, bd, bstr, shape, 2, EW_MUL);
	const double wantd[] = {10, 20, 30, 20, 40, 60};
	for (int i = 0; i < 6; i++)
		cr_assert(outd[i] == wantd[i], "out[%d] = %g, want %g", i, outd[i], wantd[i]);
}

Test(kernel, ew_binary_should_broadcast_a_scalar_and_handle_ndim_zero)
{
	const float a[] = {1, 2, 3, 4}, s[] = {0.5f};
	const int64_t shape[] = {4}, astr[] = {1}, sstr[] = {0};
	float out[4];
	ew_binary_f32(out, a, astr, s, sstr, shape, 1, EW_DIV);
	for (int i = 0; i < 4; i++)
		cr_assert(out[i] == a[i] * 2, "a/0.5 [%d] = %g", i, out[i]);
	ew_binary_f32(out, s, sstr, a, astr, shape, 1, EW_DIV);
	for (int i = 0; i < 4; i++)
		cr_assert(out[i] == 0.5f / a[i], "0.5/a [%d] = %g", i, out[i]);

	float one;
	ew_binary_f32(&one, a + 2, NULL, s, NULL, NULL, 0, EW_ADD);
	cr_assert(one == 3.5f, "0-d add = %g", one);
}

Test(kernel, ew_binary_should_follow_strides_in_four_dims)
{
	/* a is (2,3,4,5) read transposed in its last two axes from a (2,3,5,4)
	 * buffer; b is (1,3,1,1) broadcast; out = a + b */
	double src[2 * 3 * 5 * 4], bias[3] = {100, 200, 300}, out[2 * 3 * 4 * 5];
	for (int i = 0; i < 120; i++)
		src[i] = i;
	const int64_t shape[] = {2, 3, 4, 5}, astr[] = {60, 20, 1, 4}, bstr[] = {0, 1, 0, 0};
	ew_binary_f64(out, src, astr, bias, bstr, shape, 4, EW_ADD);
	for (int i0 = 0; i0 < 2; i0++)
		for (int i1 = 0; i1 < 3; i1++)
			for (int i2 = 0; i2 < 4; i2++)
				for (int i3 = 0; i3 < 5; i3++) {
					double want = src[i0 * 60 + i1 * 20 + i3 * 4 + i2] + bias[i1];
					double got = out[((i0 * 3 + i1) * 4 + i2) * 5 + i3];
					cr_assert(got == want, "[%d,%d,%d,%d] = %g, want %g", i0, i1, i2, i3, got, want);
				}
}

Test(kernel, ew_pow_should_special_case_like_torch)
{
	const float xs[] = {0.3f, 2.0f, 7.5f, 1e-3f, 123.25f};
	const float es[] = {2, 0.5f, 3, -0.5f, -1, -2, 1.7f, 0};
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
		for (size_t j = 0; j < sizeof es / sizeof es[0]; j++) {
			float x = xs[i], e = es[j], got;
			int64_t s1[] = {1};
			int64_t shape[] = {1};
			ew_binary_f32(&got, &x, s1, &e, s1, shape, 1, EW_POW);
			float want = e == 2 ? x * x : e == 0.5f ? sqrtf(x) : e == 3 ? x * x * x :
				     e == -0.5f ? 1 / sqrtf(x) : e == -1 ? 1 / x : e == -2 ? 1 / (x * x) :
				     powf(x, e);
			cr_assert(got == want, "pow(%g, %g) = %.9g, want %.9g", x, e, got, want);

			double xd = x, ed = e, gotd;
			ew_binary_f64(&gotd, &xd, s1, &ed, s1, shape, 1, EW_POW);
			double wantd = ed == 2 ? xd * xd : ed == 0.5 ? sqrt(xd) : ed == 3 ? xd * xd * xd :
				       ed == -0.5 ? 1 / sqrt(xd) : ed == -1 ? 1 / xd : ed == -2 ? 1 / (xd * xd) :
				       pow(xd, ed);
			cr_assert(gotd == wantd, "pow(%g, %g) = %.17g, want %.17g", xd, ed, gotd, wantd);
		}
	float neg = -8, three = 3, got;
	int64_t s1[] = {1}, shape[] = {1};
	ew_binary_f32(&got, &neg, s1, &three, s1, shape, 1, EW_POW);
	cr_assert(got == -512, "(-8)^3 = %g", got);
}

Test(kernel, floordiv_and_mod_should_follow_python_signs)
{
	/* x, y, x // y, x % y as Python computes them */
	const double cases[][4] = {
		{7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1},
		{6, -3, -2, -0.0}, {-6, 3, -2, 0.0}, {7.5, 2, 3, 1.5}, {-7.5, 2, -4, 0.5},
		{0, -1, -0.0, -0.0}, {1, 0.1, 9, 0.09999999999999995}, {5, 1e300, 0, 5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double x = cases[i][0], y = cases[i][1], q, r;
		int64_t s1[] = {1}, shape[] = {1};
		ew_binary_f64(&q, &x, s1, &y, s1, shape, 1, EW_FLOORDIV);
		ew_binary_f64(&r, &x, s1, &y, s1, shape, 1, EW_MOD);
		cr_assert(q == cases[i][2] && !signbit(q) == !signbit(cases[i][2]),
			  "%g // %g = %g, want %g", x, y, q, cases[i][2]);
		cr_assert(r == cases[i][3] && !signbit(r) == !signbit(cases[i][3]),
			  "%g %% %g = %.17g, want %.17g", x, y, r, cases[i][3]);
		if (i >= 9)
			continue;   /* the last cases are not exact in float32 */
		float xf = (float)x, yf = (float)y, qf, rf;
		ew_binary_f32(&qf, &xf, s1, &yf, s1, shape, 1, EW_FLOORDIV);
		ew_binary_f32(&rf, &xf, s1, &yf, s1, shape, 1, EW_MOD);
		cr_assert(qf == (float)cases[i][2] && !signbit(qf) == !signbit(cases[i][2]),
			  "f32 %g // %g = %g", x, y, qf);
		cr_assert(rf == (float)cases[i][3] && !signbit(rf) == !signbit(cases[i][3]),
			  "f32 %g %% %g = %g", x, y, rf);
	}
	/* division by zero: IEEE results, no trap */
	double one = 1, mone = -1, zero = 0, q, r;
	int64_t s1[] = {1}, shape[] = {1};
	ew_binary_f64(&q, &one, s1, &zero, s1, shape, 1, EW_FLOORDIV);
	cr_assert(q == INFINITY, "1 // 0 = %g", q);
	ew_binary_f64(&q, &mone, s1, &zero, s1, shape, 1, EW_FLOORDIV);
	cr_assert(q == -INFINITY, "-1 // 0 = %g", q);
	ew_binary_f64(&r, &one, s1, &zero, s1, shape, 1, EW_MOD);
	cr_assert(isnan(r), "1 %% 0 = %g", r);
}

Test(kernel, ew_max_and_min_should_propagate_nan)
{
	const float a[] = {1, NAN, 3, -0.0f}, b[] = {2, 1, NAN, 5};
	const int64_t s[] = {1}, shape[] = {4};
	float mx[4], mn[4];
	ew_binary_f32(mx, a, s, b, s, shape, 1, EW_MAX);
	ew_binary_f32(mn, a, s, b, s, shape, 1, EW_MIN);
	cr_assert(mx[0] == 2 && isnan(mx[1]) && isnan(mx[2]) && mx[3] == 5, "max");
	cr_assert(mn[0] == 1 && isnan(mn[1]) && isnan(mn[2]) && mn[3] == 0, "min");
}

Test(kernel, ew_compare_should_broadcast_and_treat_nan_as_unordered)
{
	const double a[] = {1, 2, NAN}, b[] = {2};
	const int64_t shape[] = {3}, astr[] = {1}, bstr[] = {0};
	uint8_t out[3];
	const struct { enum cmp_op op; uint8_t want[3]; } cases[] = {
		{CMP_EQ, {0, 1, 0}}, {CMP_NE, {1, 0, 1}}, {CMP_LT, {1, 0, 0}},
		{CMP_LE, {1, 1, 0}}, {CMP_GT, {0, 0, 0}}, {CMP_GE, {0, 1, 0}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ew_compare_f64(out, a, astr, b, bstr, shape, 1, cases[c].op);
		cr_assert(memcmp(out, cases[c].want, 3) == 0, "op %d: %d %d %d", cases[c].op, out[0], out[1], out[2]);
		float af[3] = {1, 2, NAN}, bf[1] = {2};
		ew_compare_f32(out, af, astr, bf, bstr, shape, 1, cases[c].op);
		cr_assert(memcmp(out, cases[c].want, 3) == 0, "f32 op %d", cases[c].op);
	}
}

Test(kernel, ew_unary_should_apply_each_function)
{
	float x[] = {-2, -0.0f, 0.5f, NAN, 4};
	float y[5];
	ew_unary_f32(y, x, 5, EW_RELU);
	cr_assert(y[0] == 0 && y[1] == 0 && !signbit(y[1]) && y[2] == 0.5f && isnan(y[3]) && y[4] == 4, "relu");
	ew_unary_f32(y, x, 5, EW_NEG);
	cr_assert(y[0] == 2 && !signbit(y[1]) && y[4] == -4, "neg");
	ew_unary_f32(y, x, 5, EW_ABS);
	cr_assert(y[0] == 2 && y[4] == 4 && !signbit(y[1]), "abs");
	ew_unary_f32(y, x, 5, EW_SQRT);
	cr_assert(isnan(y[0]) && y[4] == 2, "sqrt");
	ew_unary_f32(y, x, 5, EW_EXP);
	cr_assert(y[2] == expf(0.5f), "exp");
	ew_unary_f32(y, x, 5, EW_LOG);
	cr_assert(y[4] == logf(4) && y[1] == -INFINITY, "log");
	ew_unary_f32(y, x, 5, EW_TANH);
	cr_assert(y[0] == tanhf(-2), "tanh");

	double xd[] = {-2, 0.25, 9};
	double yd[3];
	ew_unary_f64(yd, xd, 3, EW_SQRT);
	cr_assert(isnan(yd[0]) && yd[1] == 0.5 && yd[2] == 3, "sqrt f64");
	ew_unary_f64(xd, xd, 3, EW_RELU);   /* in place */
	cr_assert(xd[0] == 0 && xd[1] == 0.25 && xd[2] == 9, "relu f64 in place");
}

/* ---- data movement ------------------------------------------------------------------------ */

Test(kernel, copy_strided_should_copy_a_transpose)
{
	/* in is (3,4) row-major; its transpose is (4,3) at strides (1,4) */
	float in[12], out[12];
	double ind[12], outd[12];
	uint8_t inb[12], outb[12];
	for (int i = 0; i < 12; i++)
		in[i] = (float)i, ind[i] = i * 1.5, inb[i] = (uint8_t)i;
	const int64_t shape[] = {4, 3}, istr[] = {1, 4};
	copy_strided(out, in, istr, shape, 2, sizeof(float));
	copy_strided(outd, ind, istr, shape, 2, sizeof(double));
	copy_strided(outb, inb, istr, shape, 2, 1);
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 3; c++) {
			cr_assert(out[r * 3 + c] == in[c * 4 + r], "f32 [%d][%d]", r, c);
			cr_assert(outd[r * 3 + c] == ind[c * 4 + r], "f64 [%d][%d]", r, c);
			cr_assert(outb[r * 3 + c] == inb[c * 4 + r], "u8 [%d][%d]", r, c);
		}
}

Test(kernel, copy_strided_should_expand_and_permute_four_dims)
{
	/* in is (2,3,4); out is in.permute(2,0,1) expanded to (5,4,2,3) */
	double in[24], out[5 * 24];
	for (int i = 0; i < 24; i++)
		in[i] = i;
	const int64_t shape[] = {5, 4, 2, 3}, istr[] = {0, 1, 12, 4};
	copy_strided(out, in, istr, shape, 4, sizeof(double));
	for (int e = 0; e < 5; e++)
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 2; b++)
				for (int c = 0; c < 3; c++)
					cr_assert(out[((e * 4 + a) * 2 + b) * 3 + c] == in[b * 12 + c * 4 + a],
						  "[%d,%d,%d,%d]", e, a, b, c);
	/* a 0-d copy moves one element; a zero-size axis moves nothing */
	double one = -1;
	copy_strided(&one, in + 5, NULL, NULL, 0, sizeof(double));
	cr_assert(one == 5, "0-d copy = %g", one);
	const int64_t empty[] = {3, 0};
	one = -1;
	copy_strided(&one, in, istr, empty, 2, sizeof(double));
	cr_assert(one == -1, "empty copy wrote");
}

Test(kernel, masked_fill_should_broadcast_the_mask)
{
	/* x is (3,4); the mask is one row of 4 broadcast down */
	float x[12];
	double xd[12];
	for (int i = 0; i < 12; i++)
		x[i] = (float)i, xd[i] = i;
	const uint8_t mask[4] = {0, 1, 0, 1};
	const int64_t shape[] = {3, 4}, mstr[] = {0, 1};
	masked_fill_f32(x, mask, mstr, shape, 2, -INFINITY);
	masked_fill_f64(xd, mask, mstr, shape, 2, -1e9);
	for (int i = 0; i < 12; i++) {
		cr_assert(mask[i % 4] ? x[i] == -INFINITY : x[i] == (float)i, "f32 [%d] = %g", i, x[i]);
		cr_assert(mask[i % 4] ? xd[i] == -1e9 : xd[i] == i, "f64 [%d] = %g", i, xd[i]);
	}
}

Test(kernel, tri_zero_should_match_tril_and_triu)
{
	const int64_t batch = 2, rows = 3, cols = 5;
	for (int64_t diag = -3; diag <= 5; diag++)
		for (int upper = 0; upper < 2; upper++) {
			float x[2 * 3 * 5];
			double xd[2 * 3 * 5];
			uint8_t xb[2 * 3 * 5];
			for (int i = 0; i < 30; i++)
				x[i] = (float)(i + 1), xd[i] = i + 1, xb[i] = 1;
			tri_zero(x, sizeof(float), batch, rows, cols, diag, upper);
			tri_zero(xd, sizeof(double), batch, rows, cols, diag, upper);
			tri_zero(xb, 1, batch, rows, cols, diag, upper);
			for (int b = 0; b < 2; b++)
				for (int r = 0; r < 3; r++)
					for (int c = 0; c < 5; c++) {
						int i = (b * 3 + r) * 5 + c;
						bool keep = upper ? c - r >= diag : c - r <= diag;
						cr_assert(x[i] == (keep ? (float)(i + 1) : 0), "f32 diag %lld upper %d [%d][%d][%d] = %g",
							  (long long)diag, upper, b, r, c, x[i]);
						cr_assert(xd[i] == (keep ? i + 1 : 0), "f64 [%d]", i);
						cr_assert(xb[i] == keep, "bool [%d]", i);
					}
		}
}

/* ---- reductions and dropout ------------------------------------------------------------------ */

Test(kernel, sum_dim_should_sum_along_each_axis)
{
	/* in is (2,3,4) with in[i][j][k] = 100i + 10j + k */
	float in[24];
	double ind[24];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 4; k++)
				in[(i * 3 + j) * 4 + k] = (float)(100 * i + 10 * j + k), ind[(i * 3 + j) * 4 + k] = 100 * i + 10 * j + k;
	float out[12];
	double outd[12];
	/* middle axis: outer 2, n 3, inner 4 */
	sum_dim_f32(out, in, 2, 3, 4);
	sum_dim_f64(outd, ind, 2, 3, 4);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++) {
			double want = 3 * (100 * i + k) + 30;
			cr_assert(out[i * 4 + k] == want && outd[i * 4 + k] == want, "middle [%d][%d] = %g", i, k, out[i * 4 + k]);
		}
	/* last axis: outer 6, n 4, inner 1 */
	sum_dim_f32(out, in, 6, 4, 1);
	for (int r = 0; r < 6; r++)
		cr_assert(out[r] == 4 * in[r * 4] + 6, "last [%d] = %g", r, out[r]);
	/* first axis: outer 1, n 2, inner 12 */
	sum_dim_f64(outd, ind, 1, 2, 12);
	for (int r = 0; r < 12; r++)
		cr_assert(outd[r] == 2 * ind[r] + 100, "first [%d] = %g", r, outd[r]);
	/* n == 0 gives zeros */
	sum_dim_f32(out, in, 2, 0, 3);
	for (int r = 0; r < 6; r++)
		cr_assert(out[r] == 0, "empty [%d] = %g", r, out[r]);
}

Test(kernel, sum_dim_f32_should_round_in_float_like_torch)
{
	/* torch sums float32 in float: softmax weights of a row add up to
	 * 0.99999994 rather than 1 (torch prints 1.0000, not 1.) */
	const float w[3] = {0.09003057f, 0.24472848f, 0.66524094f};
	float out;
	sum_dim_f32(&out, w, 1, 3, 1);
	cr_assert(out == (0.09003057f + 0.24472848f) + 0.66524094f, "sum = %.9g", out);

	/* short runs add in order: 2^24 + 1 loses the 1 in float, as in torch */
	float in[3] = {16777216.0f, 1, 1};
	sum_dim_f32(&out, in, 1, 3, 1);
	cr_assert(out == 16777216.0f, "sum = %.1f", out);

	/* long ones pairwise: a million 0.1s stay within 1e-6 relative, where
	 * adding them in order drifts by about 1e-2 */
	enum { N = 1 << 20 };
	static float many[N];
	for (int i = 0; i < N; i++)
		many[i] = 0.1f;
	sum_dim_f32(&out, many, 1, N, 1);
	cr_assert(fabs(out - N * (double)0.1f) < 1e-6 * N * 0.1, "sum = %.3f", out);

	/* and wide rows (more columns than the stack block of partial sums) */
	enum { INNER = 150 };
	static float wide[3 * INNER];
	float wout[INNER];
	for (int i = 0; i < 3 * INNER; i++)
		wide[i] = i < INNER ? 2.5f : 1.0f;
	sum_dim_f32(wout, wide, 1, 3, INNER);
	for (int i = 0; i < INNER; i++)
		cr_assert(wout[i] == 4.5f, "[%d] = %.1f", i, wout[i]);
}

Test(kernel, max_dim_should_find_the_maximum_and_propagate_nan)
{
	const float in[] = {1, 5, -INFINITY, 3, 2, NAN, 4, 0};   /* (1, 4, 2) */
	float out[2];
	max_dim_f32(out, in, 1, 4, 2);
	cr_assert(out[0] == 4 && isnan(out[1]), "max %g %g", out[0], out[1]);
	const double ind[] = {-3, -1, -2};
	double outd;
	max_dim_f64(&outd, ind, 1, 3, 1);
	cr_assert(outd == -1, "max f64 %g", outd);
}

Test(kernel, dot_should_follow_strides)
{
	const float a[] = {1, 100, 2, 100, 3}, b[] = {4, 5, 6};
	cr_assert(dot_f32(a, 2, b, 1, 3) == 32, "dot = %g", dot_f32(a, 2, b, 1, 3));
	const double ad[] = {1, 2, 3}, bd[] = {6, 0, 5, 0, 4};
	cr_assert(dot_f64(ad, 1, bd, 2, 3) == 28, "dot f64");
	cr_assert(dot_f64(ad, 1, bd, 2, 0) == 0, "empty dot");
}

Test(kernel, dropout_should_scale_kept_and_zero_dropped)
{
	const float in[] = {1, 2, INFINITY, 4};
	const uint8_t keep[] = {1, 0, 0, 1};
	float out[4];
	dropout_f32(out, in, keep, 4, 2.0f);
	cr_assert(out[0] == 2 && out[1] == 0 && out[2] == 0 && out[3] == 8, "%g %g %g %g",
		  out[0], out[1], out[2], out[3]);
	double ind[] = {1, 2, 3};
	dropout_f64(ind, ind, keep, 3, 1.25);
	cr_assert(ind[0] == 1.25 && ind[1] == 0 && ind[2] == 0, "f64 in place");
}

Test(kernel, matmul_simd_f64_should_equal_loops_bit_for_bit)
{
	/* float64 rounds each product and each sum like the loops (and numpy's
	 * small products): no fused multiply-add */
	static const int64_t dims[] = { 1, 3, 7, 17, 33, 64, 100 };
	for (size_t si = 0; si < 7; si++) {
		int64_t m = dims[si], k = dims[(si + 3) % 7], n = dims[(si + 5) % 7];
		double *a = malloc(sizeof *a * (size_t)(m * k)), *b = malloc(sizeof *b * (size_t)(k * n));
		double *c1 = malloc(sizeof *c1 * (size_t)(m * n)), *c2 = malloc(sizeof *c2 * (size_t)(m * n));
		uint64_t s = 12345 + (uint64_t)si;
		for (int64_t i = 0; i < m * k; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			a[i] = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
		}
		for (int64_t i = 0; i < k * n; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			b[i] = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
		}
		matmul_f64_loops(c1, a, b, m, k, n);
		matmul_f64_simd(c2, a, b, m, k, n);
		cr_assert(memcmp(c1, c2, sizeof *c1 * (size_t)(m * n)) == 0, "m=%lld k=%lld n=%lld", (long long)m,
			  (long long)k, (long long)n);
		free(a);
		free(b);
		free(c1);
		free(c2);
	}
}

/* Threads split a large product into bands of rows; every element must come
 * out exactly as on one thread, for band edges inside a tile too. */
Test(kernel, a_threaded_matmul_should_equal_the_one_thread_result_bit_for_bit)
{
	static const int64_t ms[] = { 301, 240, 13 };
	for (int t = 0; t < 3; t++) {
		int64_t m = ms[t], k = 200, n = 250;
		float *a = rand_f32(m * k, -1, 1), *b = rand_f32(k * n, -1, 1);
		float *one = malloc((size_t)(m * n) * sizeof *one), *many = malloc((size_t)(m * n) * sizeof *many);
		double *a64 = rand_f64(m * k, -1, 1), *b64 = rand_f64(k * n, -1, 1);
		double *one64 = malloc((size_t)(m * n) * sizeof *one64), *many64 = malloc((size_t)(m * n) * sizeof *many64);
		kernel_set_threads(1);
		matmul_f32_simd(one, a, b, m, k, n);
		matmul_f64_simd(one64, a64, b64, m, k, n);
		for (int threads = 2; threads <= 7; threads += 5) {
			kernel_set_threads(threads);
			cr_assert_eq(kernel_threads(), threads);
			matmul_f32_simd(many, a, b, m, k, n);
			matmul_f64_simd(many64, a64, b64, m, k, n);
			cr_assert(memcmp(one, many, (size_t)(m * n) * sizeof *one) == 0, "f32, m=%lld, %d threads",
				  (long long)m, threads);
			cr_assert(memcmp(one64, many64, (size_t)(m * n) * sizeof *one64) == 0, "f64, m=%lld, %d threads",
				  (long long)m, threads);
		}
		kernel_set_threads(0);
		cr_assert_geq(kernel_threads(), 1);
		free(a);
		free(b);
		free(one);
		free(many);
		free(a64);
		free(b64);
		free(one64);
		free(many64);
	}
}
