/* checks.c: the checks of src/kernel/ (see checks.h), one function per group;
 * run by the Criterion tests (tests/unit/test_kernel.c) and by the program
 * tests/cross/kernel_cross.c, natively and on aarch64. Links src/kernel/ only,
 * never Criterion; prints nothing: a failure is a line in the run's result. */

/* Every *_simd kernel is checked against its _loops twin at sizes 1, 3, 7,
 * 17, 33, 64, 100 (and larger matmuls and attention heads across the blocking
 * and tile edges), the vectorised exp against libm, and the plain kernels
 * (elementwise, copies, reductions) against hand-computed cases. "Agree"
 * means, per element, |simd - loops| <= tol * max(1, |loops|) with tol =
 * 1e-5 (float32) or 1e-12 (float64): relative for large values, absolute
 * below 1 (inputs are uniform in [-1, 1], so sums of many products can
 * cancel to values near 0 whose relative error means nothing); equal
 * infinities and two NaNs agree. Only running out of memory prints (and
 * exits 2). */
#include "checks.h"
#include "kernel/kernel.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXP_MAX_ULP 2		/* the finer sweeps; the others ask for 1 ulp */
#define FAILS_SHOWN 6		/* failures kept per run; the rest are counted */

static const int64_t sizes[] = { 1, 3, 7, 17, 33, 64, 100 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* ---- the run under way: checks, failures, the worst error ------------------------- */

static struct kcheck_result *res;

/* Counts one check; a failed one adds its message to the result's text. */
static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	res->checks++;
	if (ok)
		return;
	res->failures++;
	size_t used = strlen(res->text), room = sizeof res->text - used;
	if (res->failures > FAILS_SHOWN) {
		if (res->failures == FAILS_SHOWN + 1)
			snprintf(res->text + used, room, "(further failures are counted, not shown)\n");
		return;
	}
	va_start(ap, fmt);
	int n = vsnprintf(res->text + used, room, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n + 1 < room)
		strcat(res->text + used, "\n");
}

/* the largest relative error seen */
static void note(double err)
{
	if (err > res->worst || err != err)
		res->worst = err;
}

/* the largest distance in ulp seen */
static void note_ulp(int64_t ulp)
{
	res->ulp = true;
	note((double)ulp);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- element types ---------------------------------------------------------------
 * The checks are written once over void buffers; get/put convert through
 * double, which holds every float exactly. */

struct dtype {
	const char *name;
	bool f64;
	size_t size;
	double tol;
	int digits;		/* %.*g digits that print a value exactly */
};

static const struct dtype dt_f32 = { "f32", false, sizeof(float), 1e-5, 9 };
static const struct dtype dt_f64 = { "f64", true, sizeof(double), 1e-12, 17 };
static const struct dtype *const dtypes[] = { &dt_f32, &dt_f64 };

static double get(const struct dtype *t, const void *p, int64_t i)
{
	return t->f64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void put(const struct dtype *t, void *p, int64_t i, double x)
{
	if (t->f64)
		((double *)p)[i] = x;
	else
		((float *)p)[i] = (float)x;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n > 0 ? n : 1);
	if (p == NULL) {
		fprintf(stderr, "kernel checks: out of memory\n");
		exit(2);
	}
	return p;
}

/* xorshift64*: deterministic inputs, the same on every machine */
#define RNG_SEED 0x9E3779B97F4A7C15ull
static uint64_t rng_state = RNG_SEED;

static double rng_uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static void *buf_fill(const struct dtype *t, int64_t n, double x)
{
	void *p = xmalloc((size_t)n * t->size);
	for (int64_t i = 0; i < n; i++)
		put(t, p, i, x);
	return p;
}

/* n values uniform in [lo, hi) */
static void *buf_rand(const struct dtype *t, int64_t n, double lo, double hi)
{
	void *p = xmalloc((size_t)n * t->size);
	for (int64_t i = 0; i < n; i++)
		put(t, p, i, lo + (hi - lo) * rng_uniform());
	return p;
}

/* ---- comparisons -------------------------------------------------------------------- */

/* The error of x against the reference r as defined at the top: 0 when they
 * agree exactly (same infinity, both NaN), INFINITY when one is NaN or
 * infinite and the other is not the same. */
static double err_of(double x, double r)
{
	if (isnan(x) || isnan(r))
		return isnan(x) && isnan(r) ? 0 : INFINITY;
	if (isinf(x) || isinf(r))
		return x == r ? 0 : INFINITY;
	return fabs(x - r) / fmax(1.0, fabs(r));
}

/* One check: got (the variant gotname: simd, unrolled) agrees with ref
 * (loops) over n elements; a failure names the case (what), the array
 * (name), the worst index and both values. */
static void expect_close_to(const struct dtype *t, const char *what, const char *name, const void *got,
			    const char *gotname, const void *ref, int64_t n)
{
	double worst = 0;
	int64_t at = -1;

	for (int64_t i = 0; i < n; i++) {
		double e = err_of(get(t, got, i), get(t, ref, i));
		if (e > worst || (at < 0 && e > 0)) {
			worst = e;
			at = i;
		}
	}
	note(worst);
	check(worst <= t->tol, "%s %s: %s[%lld] %s %.*g loops %.*g (err %.3g > %g)", t->name, what, name,
	      (long long)at, gotname, t->digits, at < 0 ? 0 : get(t, got, at), t->digits,
	      at < 0 ? 0 : get(t, ref, at), worst, t->tol);
}

static void expect_close(const struct dtype *t, const char *what, const char *name,
			 const void *got, const void *ref, int64_t n)
{
	expect_close_to(t, what, name, got, "simd", ref, n);
}

/* One check: a and b are the same bits over n elements. */
static void expect_same_bits(const struct dtype *t, const char *what, const char *name,
			     const void *a, const char *aname, const void *b, const char *bname, int64_t n)
{
	int64_t at = -1;

	for (int64_t i = 0; i < n && at < 0; i++)
		if (memcmp((const char *)a + (size_t)i * t->size, (const char *)b + (size_t)i * t->size, t->size))
			at = i;
	check(at < 0, "%s %s: %s[%lld] %s %.*g, %s %.*g (not bit for bit)", t->name, what, name, (long long)at,
	      aname, t->digits, at < 0 ? 0 : get(t, a, at), bname, t->digits, at < 0 ? 0 : get(t, b, at));
}

/* Distance in units in the last place, counting every float between the two
 * (subnormals too); 0 for two NaNs, huge for NaN against a number. */
static int64_t ulp_f32(float a, float b)
{
	int32_t ia, ib;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INT32_MAX;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	int64_t oa = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
	int64_t ob = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
	return oa > ob ? oa - ob : ob - oa;
}

/* the same for doubles that are never negative (exp's outputs) */
static int64_t ulp_f64(double a, double b)
{
	int64_t ia, ib;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INT64_MAX;
	memcpy(&ia, &a, 8);
	memcpy(&ib, &b, 8);
	if (ia < 0 || ib < 0)
		return ia == ib ? 0 : INT64_MAX;
	return ia > ib ? ia - ib : ib - ia;
}

/* ---- the kernels by element type -------------------------------------------------- */

static void run_matmul(const struct dtype *t, bool simd, void *c, const void *a, const void *b,
		       int64_t m, int64_t k, int64_t n)
{
	if (t->f64)
		(simd ? matmul_f64_simd : matmul_f64_loops)(c, a, b, m, k, n);
	else
		(simd ? matmul_f32_simd : matmul_f32_loops)(c, a, b, m, k, n);
}

static void run_softmax(const struct dtype *t, bool simd, void *dst, const void *src, int64_t rows, int64_t cols)
{
	if (t->f64)
		(simd ? softmax_rows_f64_simd : softmax_rows_f64_loops)(dst, src, rows, cols);
	else
		(simd ? softmax_rows_f32_simd : softmax_rows_f32_loops)(dst, src, rows, cols);
}

static void run_attention(const struct dtype *t, bool simd, void *out, void *weights, const void *q,
			  const void *k, const void *v, const uint8_t *mask, bool causal, double scale,
			  int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	if (t->f64)
		(simd ? attention_f64_simd : attention_f64_loops)(out, weights, q, k, v, mask, causal, scale,
								  tq, tk, d, dv);
	else
		(simd ? attention_f32_simd : attention_f32_loops)(out, weights, q, k, v, mask, causal,
								  (float)scale, tq, tk, d, dv);
}

static void run_matmul_unrolled(const struct dtype *t, void *c, const void *a, const void *b, int64_t m, int64_t k,
				int64_t n)
{
	if (t->f64)
		matmul_f64_unrolled(c, a, b, m, k, n);
	else
		matmul_f32_unrolled(c, a, b, m, k, n);
}

static void run_softmax_unrolled(const struct dtype *t, void *dst, const void *src, int64_t rows, int64_t cols)
{
	if (t->f64)
		softmax_rows_f64_unrolled(dst, src, rows, cols);
	else
		softmax_rows_f32_unrolled(dst, src, rows, cols);
}

static void run_attention_unrolled(const struct dtype *t, void *out, void *weights, const void *q, const void *k,
				   const void *v, const uint8_t *mask, bool causal, double scale, int64_t tq,
				   int64_t tk, int64_t d, int64_t dv)
{
	if (t->f64)
		attention_f64_unrolled(out, weights, q, k, v, mask, causal, scale, tq, tk, d, dv);
	else
		attention_f32_unrolled(out, weights, q, k, v, mask, causal, (float)scale, tq, tk, d, dv);
}

/* ---- matmul --------------------------------------------------------------------------- */

/* c = a·b with a (m,k), b (k,n) uniform in [-1, 1]: simd against loops, and
 * with same_bits, bit for bit (float64 rounds each product and sum like the
 * loops while the whole depth fits one pass of the blocking: asked at the
 * sizes up to 100). */
static void check_matmul(const struct dtype *t, int64_t m, int64_t k, int64_t n, bool same_bits)
{
	char what[80];
	void *a = buf_rand(t, m * k, -1, 1), *b = buf_rand(t, k * n, -1, 1);
	void *ref = buf_fill(t, m * n, 0), *got = buf_fill(t, m * n, 5);

	snprintf(what, sizeof what, "matmul m=%lld k=%lld n=%lld", (long long)m, (long long)k, (long long)n);
	run_matmul(t, false, ref, a, b, m, k, n);
	run_matmul(t, true, got, a, b, m, k, n);
	expect_close(t, what, "c", got, ref, m * n);
	if (same_bits)
		expect_same_bits(t, what, "c", got, "simd", ref, "loops", m * n);
	free(a), free(b), free(ref), free(got);
}

/* entries in -2..2: every partial sum is an integer below 2^24, so any
 * summation order gives the same float and the two must agree exactly */
static void check_matmul_integers(const struct dtype *t, int64_t m, int64_t k, int64_t n)
{
	char what[80];
	void *a = buf_rand(t, m * k, 0, 1), *b = buf_rand(t, k * n, 0, 1);
	void *ref = buf_fill(t, m * n, 0), *got = buf_fill(t, m * n, 5);

	for (int64_t i = 0; i < m * k; i++)
		put(t, a, i, floor(get(t, a, i) * 5) - 2);
	for (int64_t i = 0; i < k * n; i++)
		put(t, b, i, floor(get(t, b, i) * 5) - 2);
	snprintf(what, sizeof what, "matmul of integers m=%lld k=%lld n=%lld", (long long)m, (long long)k,
		 (long long)n);
	run_matmul(t, false, ref, a, b, m, k, n);
	run_matmul(t, true, got, a, b, m, k, n);
	expect_same_bits(t, what, "c", got, "simd", ref, "loops", m * n);
	free(a), free(b), free(ref), free(got);
}

/* k == 0 gives zeros; [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50] exactly */

/* Threads split a large product into bands of rows: every element must come
 * out exactly as with kernel_set_threads(1). */
static void check_matmul_threads(const struct dtype *t, int64_t m, int64_t k, int64_t n)
{
	static const int counts[] = { 2, 3, 7 };
	char what[80];
	void *a = buf_rand(t, m * k, -1, 1), *b = buf_rand(t, k * n, -1, 1);
	void *one = buf_fill(t, m * n, 0), *many = buf_fill(t, m * n, 0);

	kernel_set_threads(1);
	run_matmul(t, true, one, a, b, m, k, n);
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		kernel_set_threads(counts[i]);
		check(kernel_threads() == counts[i], "kernel_threads() = %d after kernel_set_threads(%d)",
		      kernel_threads(), counts[i]);
		snprintf(what, sizeof what, "matmul m=%lld k=%lld n=%lld on %d threads", (long long)m,
			 (long long)k, (long long)n, counts[i]);
		for (int64_t j = 0; j < m * n; j++)
			put(t, many, j, 7);
		run_matmul(t, true, many, a, b, m, k, n);
		expect_same_bits(t, what, "c", many, "threaded", one, "one thread", m * n);
	}
	kernel_set_threads(0);
	check(kernel_threads() >= 1, "kernel_threads() = %d with the default", kernel_threads());
	free(a), free(b), free(one), free(many);
}

/* the sizes of every matmul check, m, k and n each over the sizes above */
static void matmul_sizes(const struct dtype *t, bool same_bits)
{
	for (int im = 0; im < NSIZES; im++)
		for (int ik = 0; ik < NSIZES; ik++)
			for (int in = 0; in < NSIZES; in++)
				check_matmul(t, sizes[im], sizes[ik], sizes[in], same_bits);
}

static void kcheck_matmul_simd_should_match_loops_f32(void)
{
	matmul_sizes(&dt_f32, false);
}

static void kcheck_matmul_simd_should_match_loops_f64(void)
{
	matmul_sizes(&dt_f64, true);
}

/* sizes around the register tile (6 x 2 vectors), the depth of one pass (a
 * few hundred, where partial sums are added back into c), the blocks of
 * rows of a, and larger products that the threads split. */
static const int64_t matmul_edges[][3] = {
	{ 6, 384, 16 }, { 5, 385, 15 }, { 6, 512, 16 }, { 5, 513, 15 }, { 13, 600, 33 },
	{ 12, 1024, 48 }, { 2, 1100, 9 }, { 7, 1537, 8 }, { 96, 64, 17 }, { 97, 770, 20 },
	{ 193, 100, 33 }, { 300, 300, 300 }, { 300, 17, 301 }, { 1, 300, 300 }, { 299, 64, 1 },
	{ 301, 513, 31 }, { 13, 1100, 33 },
};
#define NEDGES ((int)(sizeof matmul_edges / sizeof matmul_edges[0]))

/* Past k = 512 float32 sums of random products drift apart by more than
 * 1e-5 in any two summation orders: there float32 is checked on small
 * integers, exactly (the next group). */
static void kcheck_matmul_simd_should_match_loops_across_block_edges(void)
{
	for (int e = 0; e < NEDGES; e++) {
		int64_t m = matmul_edges[e][0], k = matmul_edges[e][1], n = matmul_edges[e][2];
		check_matmul(&dt_f64, m, k, n, false);
		if (k <= 512)
			check_matmul(&dt_f32, m, k, n, false);
	}
}

static void kcheck_matmul_simd_should_be_exact_on_small_integers_f32(void)
{
	for (int e = 0; e < NEDGES; e++)
		check_matmul_integers(&dt_f32, matmul_edges[e][0], matmul_edges[e][1], matmul_edges[e][2]);
}

/* k == 0 gives zeros, both variants, whatever c held */
static void kcheck_matmul_with_k_zero_should_give_zeros(void)
{
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *a = buf_fill(t, 1, 7), *b = buf_fill(t, 1, 7), *c = buf_fill(t, 12, NAN);
		for (int simd = 0; simd < 2; simd++) {
			int64_t bad = -1;
			for (int j = 0; j < 12; j++)
				put(t, c, j, NAN);
			run_matmul(t, simd, c, a, b, 3, 0, 4);
			for (int j = 0; j < 12 && bad < 0; j++)
				if (get(t, c, j) != 0)
					bad = j;
			check(bad < 0, "%s matmul %s m=3 k=0 n=4: c[%lld] = %g, want 0", t->name, simd ? "simd" : "loops",
			      (long long)bad, bad < 0 ? 0 : get(t, c, bad));
		}
		free(a), free(b), free(c);
	}
}

/* [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50] exactly, both variants */
static void kcheck_matmul_should_compute_a_small_product_exactly(void)
{
	static const double a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, want[4] = { 19, 22, 43, 50 };

	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *ta = buf_fill(t, 4, 0), *tb = buf_fill(t, 4, 0), *c = buf_fill(t, 4, NAN);
		for (int j = 0; j < 4; j++)
			put(t, ta, j, a[j]), put(t, tb, j, b[j]);
		for (int simd = 0; simd < 2; simd++) {
			int64_t bad = -1;
			run_matmul(t, simd, c, ta, tb, 2, 2, 2);
			for (int j = 0; j < 4 && bad < 0; j++)
				if (get(t, c, j) != want[j])
					bad = j;
			check(bad < 0, "%s matmul %s [1 2; 3 4]·[5 6; 7 8]: c[%lld] = %g, want %g", t->name,
			      simd ? "simd" : "loops", (long long)bad, bad < 0 ? 0 : get(t, c, bad),
			      bad < 0 ? 0 : want[bad]);
		}
		free(ta), free(tb), free(c);
	}
}

/* float64 rounds each product and each sum like the loops (and numpy's
 * small products): no fused multiply-add; inputs from a generator of its
 * own (an LCG), one shape per size */
static void kcheck_matmul_simd_f64_should_equal_loops_bit_for_bit(void)
{
	for (int si = 0; si < NSIZES; si++) {
		int64_t m = sizes[si], k = sizes[(si + 3) % NSIZES], n = sizes[(si + 5) % NSIZES];
		double *a = xmalloc(sizeof *a * (size_t)(m * k)), *b = xmalloc(sizeof *b * (size_t)(k * n));
		double *c1 = xmalloc(sizeof *c1 * (size_t)(m * n)), *c2 = xmalloc(sizeof *c2 * (size_t)(m * n));
		uint64_t s = 12345 + (uint64_t)si;
		char what[80];
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
		snprintf(what, sizeof what, "matmul m=%lld k=%lld n=%lld", (long long)m, (long long)k, (long long)n);
		expect_same_bits(&dt_f64, what, "c", c2, "simd", c1, "loops", m * n);
		free(a), free(b), free(c1), free(c2);
	}
}

/* bands of rows split at 301, 240 and 13 rows: edges inside a tile too */
static void kcheck_a_threaded_matmul_should_equal_the_one_thread_result_bit_for_bit(void)
{
	for (int i = 0; i < 2; i++) {
		check_matmul_threads(dtypes[i], 301, 200, 250);
		check_matmul_threads(dtypes[i], 240, 200, 250);
		check_matmul_threads(dtypes[i], 13, 200, 250);
	}
}
/* ---- softmax ---------------------------------------------------------------------- */

/* rows x cols of scores in [-10, 10], about 20% -inf, row rows/2 all -inf;
 * with three rows or more, row 0 holds a NaN and the last row a +inf (in the
 * tail shorter than a vector, when there is one). */
static void *softmax_input(const struct dtype *t, int64_t rows, int64_t cols)
{
	void *x = buf_rand(t, rows * cols, -10, 10);

	for (int64_t i = 0; i < rows * cols; i++)
		if (rng_uniform() < 0.2)
			put(t, x, i, -INFINITY);
	for (int64_t j = 0; j < cols; j++)
		put(t, x, (rows / 2) * cols + j, -INFINITY);
	if (rows >= 3) {
		put(t, x, cols / 3, NAN);
		put(t, x, (rows - 1) * cols + cols - 1, INFINITY);
	}
	return x;
}

/* One check: the softmax got of x follows the loops' rules row by row: a row
 * with a NaN or a +inf is all NaN, an all -inf row too (0/0, as in torch),
 * any other has exact zeros where x is -inf and sums to 1. */
static void expect_softmax_rules(const struct dtype *t, const char *what, const void *x, const void *got,
				 int64_t rows, int64_t cols)
{
	double sum_tol = t->f64 ? 1e-13 : 1e-5;
	int64_t bad = -1;
	char why[160] = "";

	for (int64_t r = 0; r < rows && bad < 0; r++) {
		bool special = false, all_ninf = true;
		double sum = 0;
		for (int64_t j = 0; j < cols; j++) {
			double xi = get(t, x, r * cols + j);
			special |= isnan(xi) || xi == INFINITY;
			all_ninf &= xi == -INFINITY;
		}
		for (int64_t j = 0; j < cols && bad < 0; j++) {
			int64_t i = r * cols + j;
			double xi = get(t, x, i), yi = get(t, got, i);
			const char *rule = special && !isnan(yi) ? "a row with NaN or +inf should be all NaN" :
					   !special && all_ninf && !isnan(yi) ? "an all -inf row should be all NaN" :
					   !special && !all_ninf && xi == -INFINITY && yi != 0 ?
					   "a -inf score should have weight 0" :
					   NULL;
			sum += yi;
			if (rule != NULL) {
				bad = i;
				snprintf(why, sizeof why, "y[%lld] = %.*g for input %.*g: %s", (long long)i,
					 t->digits, yi, t->digits, xi, rule);
			}
		}
		if (bad < 0 && !special && !all_ninf && fabs(sum - 1) > sum_tol) {
			bad = r * cols;
			snprintf(why, sizeof why, "row %lld sums to %.*g, not 1 within %g", (long long)r, t->digits,
				 sum, sum_tol);
		}
	}
	check(bad < 0, "%s %s: %s", t->name, what, why);
}

/* softmax of one rows x cols input: simd against loops, then what the loops
 * define row by row: a row with a NaN or a +inf is all NaN, an all -inf row
 * is all NaN too (0/0, as torch gives), any other row has exact zeros where the input is -inf and sums
 * to 1. In place gives the same bits. */
static void check_softmax(const struct dtype *t, int64_t rows, int64_t cols)
{
	char what[80];
	void *x = softmax_input(t, rows, cols);
	void *ref = buf_fill(t, rows * cols, 0), *got = buf_fill(t, rows * cols, 7);
	void *inplace = buf_fill(t, rows * cols, 0);

	snprintf(what, sizeof what, "softmax_rows rows=%lld cols=%lld", (long long)rows, (long long)cols);
	run_softmax(t, false, ref, x, rows, cols);
	run_softmax(t, true, got, x, rows, cols);
	expect_close(t, what, "y", got, ref, rows * cols);
	expect_softmax_rules(t, what, x, got, rows, cols);

	memcpy(inplace, x, (size_t)(rows * cols) * t->size);
	run_softmax(t, true, inplace, inplace, rows, cols);
	expect_same_bits(t, what, "y", inplace, "in place", got, "out of place", rows * cols);
	free(x), free(ref), free(got), free(inplace);
}

/* every pair of sizes, and rows longer than a few vectors */
static void softmax_sizes(const struct dtype *t)
{
	for (int ir = 0; ir < NSIZES; ir++)
		for (int ic = 0; ic < NSIZES; ic++)
			check_softmax(t, sizes[ir], sizes[ic]);
	check_softmax(t, 5, 300);
	check_softmax(t, 3, 1029);
}

static void kcheck_softmax_simd_should_match_loops_f32(void)
{
	softmax_sizes(&dt_f32);
}

static void kcheck_softmax_simd_should_match_loops_f64(void)
{
	softmax_sizes(&dt_f64);
}

/* 5 rows of 37 scores in [-20, 20], no special values: each row sums to 1
 * within 1e-6 (float32) or 1e-14 (float64), both variants */
static void kcheck_softmax_rows_should_sum_to_one(void)
{
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		double tol = t->f64 ? 1e-14 : 1e-6;
		void *x = buf_rand(t, 5 * 37, -20, 20), *y = buf_fill(t, 5 * 37, NAN);
		for (int simd = 0; simd < 2; simd++) {
			run_softmax(t, simd, y, x, 5, 37);
			for (int r = 0; r < 5; r++) {
				double s = 0;
				for (int j = 0; j < 37; j++)
					s += get(t, y, r * 37 + j);
				check(fabs(s - 1) < tol, "%s softmax_rows %s: row %d sums to %.*g, not 1 within %g", t->name,
				      simd ? "simd" : "loops", r, t->digits, s, tol);
			}
		}
		free(x), free(y);
	}
}

/* all -inf rows of every width up to 19 give NaN (every exp is 0: 0/0), as
 * torch does, both variants */
static void kcheck_softmax_of_an_all_minus_inf_row_should_be_nan(void)
{
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *x = buf_fill(t, 19, -INFINITY), *y = buf_fill(t, 19, 0);
		for (int simd = 0; simd < 2; simd++) {
			int64_t bad = -1, bad_cols = 0;
			for (int64_t cols = 1; cols <= 19 && bad < 0; cols++) {
				for (int64_t j = 0; j < cols; j++)
					put(t, y, j, 0);
				run_softmax(t, simd, y, x, 1, cols);
				for (int64_t j = 0; j < cols && bad < 0; j++)
					if (!isnan(get(t, y, j)))
						bad = j, bad_cols = cols;
			}
			check(bad < 0, "%s softmax_rows %s of an all -inf row, cols=%lld: y[%lld] = %g, want NaN", t->name,
			      simd ? "simd" : "loops", (long long)bad_cols, (long long)bad, bad < 0 ? 0 : get(t, y, bad));
		}
		free(x), free(y);
	}
}

/* documented: inf - inf is NaN, so a +inf makes its row NaN, as in torch;
 * a NaN does too, and a NaN among -infs */
static void kcheck_softmax_with_plus_inf_or_nan_should_give_a_nan_row(void)
{
	static const double special[3][9] = {
		{ 1, 2, INFINITY, 3, 4, 5, 6, 7, 8 },
		{ 1, 2, NAN, 3, 4, 5, 6, 7, 8 },
		{ -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, NAN },
	};

	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *x = buf_fill(t, 27, 0), *y = buf_fill(t, 27, 0);
		for (int j = 0; j < 27; j++)
			put(t, x, j, special[j / 9][j % 9]);
		for (int simd = 0; simd < 2; simd++) {
			int64_t bad = -1;
			run_softmax(t, simd, y, x, 3, 9);
			for (int j = 0; j < 27 && bad < 0; j++)
				if (!isnan(get(t, y, j)))
					bad = j;
			check(bad < 0, "%s softmax_rows %s with +inf or NaN: y[%lld][%lld] = %g, want NaN", t->name,
			      simd ? "simd" : "loops", (long long)(bad / 9), (long long)(bad % 9),
			      bad < 0 ? 0 : get(t, y, bad));
		}
		free(x), free(y);
	}
}

/* the x100 saturation experiment: subtracting the maximum keeps exp finite */
static void kcheck_softmax_should_not_overflow_on_large_scores(void)
{
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *x = buf_fill(t, 4, 0), *y = buf_fill(t, 4, NAN);
		put(t, x, 0, 1000), put(t, x, 1, 999), put(t, x, 2, 0), put(t, x, 3, -1000);
		for (int simd = 0; simd < 2; simd++) {
			run_softmax(t, simd, y, x, 1, 4);
			check(fabs(get(t, y, 0) - 0.7310585786) < 1e-6 && fabs(get(t, y, 1) - 0.2689414214) < 1e-6 &&
			      get(t, y, 2) == 0 && get(t, y, 3) == 0,
			      "%s softmax_rows %s of (1000, 999, 0, -1000) = (%g, %g, %g, %g), want (0.731, 0.269, 0, 0)",
			      t->name, simd ? "simd" : "loops", get(t, y, 0), get(t, y, 1), get(t, y, 2), get(t, y, 3));
		}
		free(x), free(y);
	}
}
/* ---- attention ------------------------------------------------------------------------ */

enum mask_kind { MASK_NONE, MASK_CAUSAL, MASK_RANDOM, MASK_BOTH, MASK_KINDS };
static const char *const mask_names[] = { "none", "causal", "random", "causal+random" };

/* rows x tk bytes, each set with probability 0.3, row rows/2 fully masked;
 * or NULL when the kind has no byte mask. */
static uint8_t *make_mask(enum mask_kind kind, int64_t rows, int64_t tk)
{
	uint8_t *m;

	if (kind != MASK_RANDOM && kind != MASK_BOTH)
		return NULL;
	m = xmalloc((size_t)(rows * tk));
	for (int64_t i = 0; i < rows * tk; i++)
		m[i] = rng_uniform() < 0.3;
	memset(m + (rows / 2) * tk, 1, (size_t)tk);
	return m;
}

static bool is_hidden(const uint8_t *mask, bool causal, int64_t i, int64_t j, int64_t tk)
{
	return (causal && j > i) || (mask != NULL && mask[i * tk + j] != 0);
}

/* One check: every key hidden from a query (in the future when causal, or
 * masked) has weight exactly 0 in w (when not NULL), and a query that sees
 * no key at all has weights and an out row of NaN (0/0, as torch gives). */
static void expect_hidden_ignored(const struct dtype *t, const char *what, const char *variant,
				  const void *out, const void *w, const uint8_t *mask, bool causal,
				  int64_t tq, int64_t tk, int64_t dv)
{
	char why[128] = "";
	bool ok = true;

	for (int64_t i = 0; i < tq && ok; i++) {
		bool blind = true;	/* every key hidden from query i */
		for (int64_t j = 0; j < tk && blind; j++)
			blind = is_hidden(mask, causal, i, j, tk);
		for (int64_t j = 0; j < tk && ok && w != NULL; j++) {
			double wij = get(t, w, i * tk + j);
			if (blind ? !isnan(wij) : is_hidden(mask, causal, i, j, tk) && wij != 0) {
				ok = false;
				snprintf(why, sizeof why, "%s: weights[%lld][%lld] = %g",
					 blind ? "query sees no key, want NaN" : "hidden key", (long long)i, (long long)j,
					 wij);
			}
		}
		for (int64_t c = 0; c < dv && ok && blind && tk > 0; c++)
			if (!isnan(get(t, out, i * dv + c))) {
				ok = false;
				snprintf(why, sizeof why, "query %lld sees no key, out[%lld][%lld] = %g", (long long)i,
					 (long long)i, (long long)c, get(t, out, i * dv + c));
			}
	}
	check(ok, "%s %s (%s): %s", t->name, what, variant, why);
}

/* The weights the simd kernels compute themselves when given NULL: the
 * two-pass softmax on the stack up to this many scores (kernel.h), the fused
 * tiles above it. */
#define ATTENTION_SMALL 4096

/* One attention head's inputs, q (tq,d), k (tk,d), v (tk,dv) uniform in
 * [-1, 1], the mask of its kind, scale 1/sqrt(d), and the loops' weights
 * (w0) and out (out0), computed; what names it. */
struct head {
	char what[128];
	void *q, *k, *v, *out0, *w0;
	uint8_t *mask;
	bool causal;
	double scale;
};

static void head_begin(struct head *h, const struct dtype *t, int64_t tq, int64_t tk, int64_t d, int64_t dv,
		       enum mask_kind kind)
{
	h->q = buf_rand(t, tq * d, -1, 1), h->k = buf_rand(t, tk * d, -1, 1), h->v = buf_rand(t, tk * dv, -1, 1);
	h->out0 = buf_fill(t, tq * dv, 0), h->w0 = buf_fill(t, tq * tk, 0);
	h->mask = make_mask(kind, tq, tk);
	h->causal = kind == MASK_CAUSAL || kind == MASK_BOTH;
	h->scale = 1 / sqrt((double)d);
	snprintf(h->what, sizeof h->what, "attention tq=%lld tk=%lld d=%lld dv=%lld mask %s", (long long)tq,
		 (long long)tk, (long long)d, (long long)dv, mask_names[kind]);
	run_attention(t, false, h->out0, h->w0, h->q, h->k, h->v, h->mask, h->causal, h->scale, tq, tk, d, dv);
}

static void head_end(struct head *h)
{
	free(h->q), free(h->k), free(h->v), free(h->out0), free(h->w0), free(h->mask);
}

/* One attention head (head_begin), the simd kernel called three ways:
 *   with weights: weights and out agree with the loops;
 *   fused (weights NULL after kernel_set_attention_small(0), so tiles and an
 *     online softmax at every size): out agrees with the loops;
 *   weights NULL as the program calls it: the same bits as with weights for
 *     a head of at most 4096 scores, as the fused call above that.
 * Hidden keys weigh exactly 0 and blind queries give NaN rows in all. */
static void check_attention(const struct dtype *t, int64_t tq, int64_t tk, int64_t d, int64_t dv,
			    enum mask_kind kind)
{
	struct head h;
	head_begin(&h, t, tq, tk, d, dv, kind);
	char *what = h.what;
	void *q = h.q, *k = h.k, *v = h.v, *out0 = h.out0, *w0 = h.w0;
	uint8_t *mask = h.mask;
	bool causal = h.causal;
	double scale = h.scale;
	void *out1 = buf_fill(t, tq * dv, 9), *w1 = buf_fill(t, tq * tk, 9);
	void *fused = buf_fill(t, tq * dv, 9), *plain = buf_fill(t, tq * dv, 9);

	run_attention(t, true, out1, w1, q, k, v, mask, causal, scale, tq, tk, d, dv);
	kernel_set_attention_small(0);
	run_attention(t, true, fused, NULL, q, k, v, mask, causal, scale, tq, tk, d, dv);
	kernel_set_attention_small(-1);
	run_attention(t, true, plain, NULL, q, k, v, mask, causal, scale, tq, tk, d, dv);

	expect_close(t, what, "weights", w1, w0, tq * tk);
	expect_close(t, what, "out", out1, out0, tq * dv);
	expect_hidden_ignored(t, what, "loops", out0, w0, mask, causal, tq, tk, dv);
	expect_hidden_ignored(t, what, "simd", out1, w1, mask, causal, tq, tk, dv);

	strcat(what, " weights=NULL");
	expect_close(t, what, "fused out", fused, out0, tq * dv);
	expect_hidden_ignored(t, what, "fused", fused, NULL, mask, causal, tq, tk, dv);
	if (tq * tk <= ATTENTION_SMALL)
		expect_same_bits(t, what, "out", plain, "small head without weights", out1, "with weights",
				 tq * dv);
	else
		expect_same_bits(t, what, "out", plain, "default", fused, "fused", tq * dv);
	free(out1), free(w1), free(fused), free(plain);
	head_end(&h);
}

/* Query 0 of a causal head sees key 0 alone: weight 1, out row 0 = v row 0,
 * exactly, in the loops, the simd kernel and the fused one. */
static void check_attention_first_query(const struct dtype *t)
{
	enum { T = 17, D = 7, DV = 3 };
	static const char *const variants[] = { "loops", "simd", "fused weights=NULL" };
	void *q = buf_rand(t, T * D, -1, 1), *k = buf_rand(t, T * D, -1, 1), *v = buf_rand(t, T * DV, -1, 1);
	void *out = buf_fill(t, T * DV, 9), *w = buf_fill(t, T * T, 9);

	for (int var = 0; var < 3; var++) {
		void *wp = var == 2 ? NULL : w;
		put(t, w, 0, 9);
		kernel_set_attention_small(var == 2 ? 0 : -1);
		run_attention(t, var > 0, out, wp, q, k, v, NULL, true, 0.25, T, T, D, DV);
		kernel_set_attention_small(-1);
		check((wp == NULL || get(t, w, 0) == 1) && get(t, out, 0) == get(t, v, 0) &&
		      get(t, out, 1) == get(t, v, 1) && get(t, out, 2) == get(t, v, 2),
		      "%s attention %s causal: query 0 has weight %g, out (%.*g %.*g %.*g), want 1 and v[0] "
		      "(%.*g %.*g %.*g)", t->name, variants[var], wp == NULL ? 1 : get(t, w, 0),
		      t->digits, get(t, out, 0), t->digits, get(t, out, 1), t->digits, get(t, out, 2),
		      t->digits, get(t, v, 0), t->digits, get(t, v, 1), t->digits, get(t, v, 2));
	}
	free(q), free(k), free(v), free(out), free(w);
}


static void run_attention_heads(const struct dtype *t, void *out, void *weights, const void *q,
				const void *k, const void *v, const uint8_t *mask, bool causal, double scale,
				int64_t nbatch, int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	if (t->f64)
		attention_heads_f64_simd(out, weights, q, k, v, mask, causal, scale, nbatch, tq, tk, d, dv);
	else
		attention_heads_f32_simd(out, weights, q, k, v, mask, causal, (float)scale, nbatch, tq, tk, d, dv);
}

/* ---- special rows against torch 1.13 (tests/ref/softmax_refs.py) ---------------------- */

#include "../ref/softmax_refs.inc"

/* One check: got agrees with torch's ref over n elements: NaN exactly where
 * torch has NaN, equal infinities, numbers within the type's tolerance. */
static void expect_torch(const struct dtype *t, const char *what, const void *got, const void *ref, int64_t n)
{
	int64_t at = -1;
	double worst = 0;
	for (int64_t i = 0; i < n; i++) {
		double e = err_of(get(t, got, i), get(t, ref, i));
		if (e > worst || (at < 0 && e > 0)) {
			worst = e;
			at = i;
		}
	}
	check(worst <= t->tol, "%s %s: [%lld] = %.*g, torch %.*g (err %.3g > %g)", t->name, what, (long long)at,
	      t->digits, at < 0 ? 0 : get(t, got, at), t->digits, at < 0 ? 0 : get(t, ref, at), worst, t->tol);
}

/* The reference rows (-inf entries, all -inf, +inf, NaN, huge values) give
 * torch's softmax in both variants: an all -inf row is NaN, as torch has it */
static void kcheck_softmax_should_match_torch_on_special_rows(void)
{
	enum { N = REF_SOFTMAX_ROWS * REF_SOFTMAX_COLS };
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *x = buf_fill(t, N, 0), *y = buf_fill(t, N, 0);
		for (int j = 0; j < N; j++)
			put(t, x, j, ref_softmax_in[j]);
		for (int simd = 0; simd < 2; simd++) {
			run_softmax(t, simd, y, x, REF_SOFTMAX_ROWS, REF_SOFTMAX_COLS);
			expect_torch(t, simd ? "softmax_rows simd" : "softmax_rows loops", y,
				     t->f64 ? (const void *)ref_softmax_f64 : (const void *)ref_softmax_f32, N);
		}
		free(x), free(y);
	}
}

/* A masked head whose query 1 sees no key (weights and out row NaN, as
 * torch), and two heads of 70 tokens (fused tiles) whose query 7 sees none:
 * torch's numbers in the loops, the simd kernel with weights, without, and
 * through attention_heads */
static void kcheck_masked_attention_should_match_torch(void)
{
	enum { H = REF_ATT_HEADS, T = REF_ATT_T, D = REF_ATT_D };
	uint8_t small_mask[15] = { 0 }, *mask = xmalloc(T * T);
	memset(small_mask + 5, 1, 5);
	small_mask[3] = 1;
	for (int i = 0; i < T; i++)
		for (int j = 0; j < T; j++)
			mask[i * T + j] = i == 7 || (3 * i + 5 * j) % 7 == 0;
	for (int ti = 0; ti < 2; ti++) {
		const struct dtype *t = dtypes[ti];
		void *q = buf_fill(t, 12, 0), *k = buf_fill(t, 20, 0), *v = buf_fill(t, 10, 0);
		void *w = buf_fill(t, 15, 0), *out = buf_fill(t, 6, 0);
		for (int j = 0; j < 12; j++)
			put(t, q, j, j / 7.0);
		for (int j = 0; j < 20; j++)
			put(t, k, j, (20 - j) / 9.0);
		for (int j = 0; j < 10; j++)
			put(t, v, j, j);
		for (int var = 0; var < 4; var++) {
			static const char *const names[] = { "attention loops", "attention simd", "attention simd fused",
							     "attention unrolled" };
			kernel_set_attention_small(var == 2 ? 0 : -1);
			if (var == 3)
				run_attention_unrolled(t, out, w, q, k, v, small_mask, false, 0.5, 3, 5, 4, 2);
			else
				run_attention(t, var > 0, out, var == 2 ? NULL : w, q, k, v, small_mask, false, 0.5, 3,
					      5, 4, 2);
			kernel_set_attention_small(-1);
			if (var != 2)
				expect_torch(t, names[var], w, t->f64 ? (const void *)ref_att_small_w_f64 :
								 (const void *)ref_att_small_w_f32, 15);
			expect_torch(t, names[var], out, t->f64 ? (const void *)ref_att_small_out_f64 :
								   (const void *)ref_att_small_out_f32, 6);
		}
		free(q), free(k), free(v), free(w), free(out);

		int64_t n = H * T * D;
		void *qb = buf_fill(t, n, 0), *kb = buf_fill(t, n, 0), *vb = buf_fill(t, n, 0);
		void *ob = buf_fill(t, n, 0), *wb = buf_fill(t, T * T, 0), *wbh = buf_fill(t, H * T * T, 0);
		uint8_t *masks = xmalloc(H * T * T);
		for (int64_t j = 0; j < n; j++) {
			put(t, qb, j, sin(0.37 * (double)j));
			put(t, kb, j, cos(0.21 * (double)j));
			put(t, vb, j, sin(0.13 * (double)j + 1));
		}
		for (int h = 0; h < H; h++)
			memcpy(masks + h * T * T, mask, T * T);
		const void *ref = t->f64 ? (const void *)ref_att_heads_out_f64 : (const void *)ref_att_heads_out_f32;
		for (int h = 0; h < H; h++) {
			size_t off = (size_t)(h * T * D) * t->size;
			run_attention(t, false, (char *)ob + off, wb, (char *)qb + off, (char *)kb + off, (char *)vb + off,
				      mask, false, 0.5, T, T, D, D);
		}
		expect_torch(t, "two heads of 70, loops", ob, ref, n);
		run_attention_heads(t, ob, NULL, qb, kb, vb, masks, false, 0.5, H, T, T, D, D);
		expect_torch(t, "two heads of 70, attention_heads fused", ob, ref, n);
		run_attention_heads(t, ob, wbh, qb, kb, vb, masks, false, 0.5, H, T, T, D, D);
		expect_torch(t, "two heads of 70, attention_heads with weights", ob, ref, n);
		free(qb), free(kb), free(vb), free(ob), free(wb), free(wbh), free(masks);
	}
	free(mask);
}


/* nbatch heads through attention_heads_*_simd, each with its own mask rows:
 * with and without weights every head agrees with the loops; on 2 and 7
 * threads the bits are those of one thread; each head's bits are those of
 * attention_*_simd on that head alone. fused_all lowers the small-head bound
 * to 0, so that threads split the heads into tiles of query rows. */
static void check_attention_heads(const struct dtype *t, int64_t nb, int64_t tq, int64_t tk, int64_t d,
				  int64_t dv, enum mask_kind kind, bool fused_all)
{
	static const int counts[] = { 2, 7 };
	char what[160];
	void *q = buf_rand(t, nb * tq * d, -2, 2), *k = buf_rand(t, nb * tk * d, -2, 2);
	void *v = buf_rand(t, nb * tk * dv, -2, 2);
	void *out0 = buf_fill(t, nb * tq * dv, 0), *w0 = buf_fill(t, nb * tq * tk, 0);
	void *out1 = buf_fill(t, nb * tq * dv, 9), *w1 = buf_fill(t, nb * tq * tk, 9);
	void *outn = buf_fill(t, nb * tq * dv, 9), *many = buf_fill(t, nb * tq * dv, 9);
	void *wmany = buf_fill(t, nb * tq * tk, 9), *head = buf_fill(t, tq * dv, 9);
	uint8_t *mask = make_mask(kind, nb * tq, tk);
	bool causal = kind == MASK_CAUSAL || kind == MASK_BOTH;
	size_t es = t->size;

	snprintf(what, sizeof what, "attention_heads nbatch=%lld tq=%lld tk=%lld d=%lld dv=%lld mask %s%s",
		 (long long)nb, (long long)tq, (long long)tk, (long long)d, (long long)dv, mask_names[kind],
		 fused_all ? " all fused" : "");
	for (int64_t h = 0; h < nb; h++)
		run_attention(t, false, (char *)out0 + (size_t)(h * tq * dv) * es,
			      (char *)w0 + (size_t)(h * tq * tk) * es, (const char *)q + (size_t)(h * tq * d) * es,
			      (const char *)k + (size_t)(h * tk * d) * es, (const char *)v + (size_t)(h * tk * dv) * es,
			      mask ? mask + h * tq * tk : NULL, causal, 0.125, tq, tk, d, dv);

	kernel_set_attention_small(fused_all ? 0 : -1);
	kernel_set_threads(1);
	run_attention_heads(t, out1, w1, q, k, v, mask, causal, 0.125, nb, tq, tk, d, dv);
	run_attention_heads(t, outn, NULL, q, k, v, mask, causal, 0.125, nb, tq, tk, d, dv);
	expect_close(t, what, "weights", w1, w0, nb * tq * tk);
	expect_close(t, what, "out", out1, out0, nb * tq * dv);
	expect_close(t, what, "out (weights=NULL)", outn, out0, nb * tq * dv);

	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		char on[200];
		snprintf(on, sizeof on, "%s on %d threads", what, counts[c]);
		kernel_set_threads(counts[c]);
		run_attention_heads(t, many, wmany, q, k, v, mask, causal, 0.125, nb, tq, tk, d, dv);
		expect_same_bits(t, on, "out", many, "threaded", out1, "one thread", nb * tq * dv);
		expect_same_bits(t, on, "weights", wmany, "threaded", w1, "one thread", nb * tq * tk);
		run_attention_heads(t, many, NULL, q, k, v, mask, causal, 0.125, nb, tq, tk, d, dv);
		expect_same_bits(t, on, "out (weights=NULL)", many, "threaded", outn, "one thread", nb * tq * dv);
	}
	kernel_set_threads(0);

	for (int64_t h = 0; h < nb; h++) {
		char one[200];
		snprintf(one, sizeof one, "%s, head %lld alone", what, (long long)h);
		run_attention(t, true, head, NULL, (const char *)q + (size_t)(h * tq * d) * es,
			      (const char *)k + (size_t)(h * tk * d) * es, (const char *)v + (size_t)(h * tk * dv) * es,
			      mask ? mask + h * tq * tk : NULL, causal, 0.125, tq, tk, d, dv);
		expect_same_bits(t, one, "out (weights=NULL)", head, "one head",
				 (const char *)outn + (size_t)(h * tq * dv) * es, "heads", tq * dv);
	}
	kernel_set_attention_small(-1);
	free(q), free(k), free(v), free(out0), free(w0), free(out1), free(w1), free(outn), free(many);
	free(wmany), free(head), free(mask);
}


/* q, k, v of every mask kind over every triple of sizes (tq, tk, d = dv) */
static void attention_sizes(const struct dtype *t)
{
	for (int kind = 0; kind < MASK_KINDS; kind++)
		for (int iq = 0; iq < NSIZES; iq++)
			for (int ik = 0; ik < NSIZES; ik++)
				for (int id = 0; id < NSIZES; id++)
					check_attention(t, sizes[iq], sizes[ik], sizes[id], sizes[id], kind);
}

static void kcheck_attention_simd_should_match_loops_f32(void)
{
	attention_sizes(&dt_f32);
}

static void kcheck_attention_simd_should_match_loops_f64(void)
{
	attention_sizes(&dt_f64);
}

static void kcheck_attention_simd_should_match_loops_when_dv_differs_from_d(void)
{
	static const int64_t small[] = { 1, 7, 33 };

	for (int i = 0; i < 2; i++)
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (int iq = 0; iq < 3; iq++)
				for (int ik = 0; ik < 3; ik++)
					for (int id = 0; id < 3; id++)
						for (int iv = 0; iv < NSIZES; iv++)
							check_attention(dtypes[i], small[iq], small[ik], small[id], sizes[iv],
									kind);
}

/* the fused kernel's tiles: 48 query rows and 96 keys (AVX2), 96 and 96
 * (AVX-512), depth 128 at a time, values 64 columns at a time; shapes past
 * each, tq != tk */
static void kcheck_attention_fused_should_match_loops_past_its_tile_sizes(void)
{
	static const int64_t shapes[][4] = {
		{ 130, 130, 200, 64 }, { 97, 200, 64, 130 }, { 200, 97, 3, 65 }, { 49, 65, 129, 1 },
		{ 130, 300, 17, 24 }, { 300, 130, 64, 64 },
	};

	for (int i = 0; i < 2; i++)
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
				check_attention(dtypes[i], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], kind);
}

/* Each key's score is 300 above the one before (q all ones, key j (j+1)·100
 * wide), so a causal query i gives key i weight 1 and every other 0 (exp(-300)
 * rounds away): out row i is v row i exactly. Any later key let into the
 * maximum would drive the visible ones to 0 (a NaN row in float32), and any
 * score left over from an earlier block would show too; 300 tokens cross the
 * fused kernel's blocks and the diagonal at every offset of its tiles. */
static void kcheck_attention_fused_should_hide_every_later_key_across_its_blocks(void)
{
	enum { T = 300, D = 3, DV = 5 };
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *q = buf_fill(t, T * D, 1), *k = buf_fill(t, T * D, 0), *v = buf_rand(t, T * DV, -1, 1);
		void *out = buf_fill(t, T * DV, 7);
		int64_t bad = -1;
		for (int64_t j = 0; j < T * D; j++)
			put(t, k, j, (double)(j / D + 1) * 100);
		kernel_set_attention_small(0);
		run_attention(t, true, out, NULL, q, k, v, NULL, true, 1.0, T, T, D, DV);
		kernel_set_attention_small(-1);
		for (int64_t j = 0; j < T * DV && bad < 0; j++)
			if (get(t, out, j) != get(t, v, j))
				bad = j;
		check(bad < 0, "%s fused causal attention, scores 300 apart: out[%lld][%lld] = %.*g, want v's %.*g", t->name,
		      (long long)(bad / DV), (long long)(bad % DV), t->digits, bad < 0 ? 0 : get(t, out, bad), t->digits,
		      bad < 0 ? 0 : get(t, v, bad));
		free(q), free(k), free(v), free(out);
	}
}

/* up to 4096 scores the two-pass softmax runs on the stack: weights NULL
 * gives the same bits as with weights */
static void kcheck_attention_of_a_small_head_without_weights_should_round_as_with_them(void)
{
	float *q = buf_rand(&dt_f32, 7 * 5, -1, 1), *k = buf_rand(&dt_f32, 7 * 5, -1, 1);
	float *v = buf_rand(&dt_f32, 7 * 3, -1, 1);
	float w[49], with[21], without[21];

	attention_f32_simd(with, w, q, k, v, NULL, true, 0.4472136f, 7, 7, 5, 3);
	attention_f32_simd(without, NULL, q, k, v, NULL, true, 0.4472136f, 7, 7, 5, 3);
	expect_same_bits(&dt_f32, "attention tq=7 tk=7 d=5 dv=3 causal", "out", without, "weights NULL", with,
			 "with weights", 21);
	free(q), free(k), free(v);
}

/* query 1 may see no key: its weights and its out row are NaN (0/0, as in
 * torch), in the loops, the simd kernel and the fused one, f32 and f64;
 * rows 0 and 2 are numbers, row 0 sums to 1 */
static void kcheck_attention_fully_masked_row_should_give_nan_weights_and_output(void)
{
	static const char *const variants[] = { "loops", "simd", "fused" };
	uint8_t mask[3 * 5] = { 0 };

	memset(mask + 5, 1, 5);
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		void *q = buf_fill(t, 3 * 4, 0), *k = buf_fill(t, 5 * 4, 0), *v = buf_fill(t, 5 * 2, 0);
		void *out = buf_fill(t, 3 * 2, 0), *w = buf_fill(t, 3 * 5, 0);
		for (int j = 0; j < 12; j++)
			put(t, q, j, (double)j / 7);
		for (int j = 0; j < 20; j++)
			put(t, k, j, (double)(20 - j) / 9);
		for (int j = 0; j < 10; j++)
			put(t, v, j, j);
		for (int var = 0; var < 3; var++) {
			for (int j = 0; j < 15; j++)
				put(t, w, j, 7);
			for (int j = 0; j < 6; j++)
				put(t, out, j, 7);
			kernel_set_attention_small(var == 2 ? 0 : -1);
			run_attention(t, var > 0, out, var == 2 ? NULL : w, q, k, v, mask, false, 0.5, 3, 5, 4, 2);
			kernel_set_attention_small(-1);
			if (var < 2) {
				double s = 0;
				int bad = -1;
				for (int j = 0; j < 5; j++) {
					s += get(t, w, j);
					if (bad < 0 && !isnan(get(t, w, 5 + j)))
						bad = j;
				}
				check(bad < 0, "%s attention %s, query 1 fully masked: weights[1][%d] = %g, want NaN",
				      t->name, variants[var], bad, bad < 0 ? 0 : get(t, w, 5 + bad));
				check(fabs(s - 1) < 1e-6, "%s attention %s, fully masked query 1: row 0 sums to %.9g",
				      t->name, variants[var], s);
			}
			check(isnan(get(t, out, 2)) && isnan(get(t, out, 3)) && !isnan(get(t, out, 0)) &&
			      !isnan(get(t, out, 5)),
			      "%s attention %s, query 1 fully masked: out = %g %g / %g %g / %g %g, want NaN in row 1 only",
			      t->name, variants[var], get(t, out, 0), get(t, out, 1), get(t, out, 2), get(t, out, 3),
			      get(t, out, 4), get(t, out, 5));
		}
		free(q), free(k), free(v), free(out), free(w);
	}
}

static void kcheck_attention_causal_first_query_should_copy_the_first_value(void)
{
	check_attention_first_query(&dt_f32);
	check_attention_first_query(&dt_f64);
}

/* 6 heads of 150 tokens, no weights, on 1 and 3 threads: the same bits, and
 * each head the bits of the one-head kernel */
static void kcheck_attention_heads_should_give_the_same_bits_on_any_number_of_threads(void)
{
	enum { H = 6, T = 150, D = 40 };

	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		size_t es = t->size;
		void *q = buf_rand(t, H * T * D, -2, 2), *k = buf_rand(t, H * T * D, -2, 2);
		void *v = buf_rand(t, H * T * D, -2, 2);
		void *one = buf_fill(t, H * T * D, 0), *many = buf_fill(t, H * T * D, 0), *head = buf_fill(t, T * D, 0);
		for (int causal = 0; causal < 2; causal++) {
			char what[96];
			snprintf(what, sizeof what, "attention_heads nbatch=%d tq=tk=%d d=dv=%d causal=%d", H, T, D, causal);
			kernel_set_threads(1);
			run_attention_heads(t, one, NULL, q, k, v, NULL, causal, 0.125, H, T, T, D, D);
			kernel_set_threads(3);
			run_attention_heads(t, many, NULL, q, k, v, NULL, causal, 0.125, H, T, T, D, D);
			kernel_set_threads(0);
			expect_same_bits(t, what, "out", many, "3 threads", one, "one thread", H * T * D);
			for (int h = 0; h < H; h++) {
				char alone[128];
				snprintf(alone, sizeof alone, "%s, head %d alone", what, h);
				run_attention(t, true, head, NULL, (char *)q + (size_t)(h * T * D) * es,
					      (char *)k + (size_t)(h * T * D) * es, (char *)v + (size_t)(h * T * D) * es, NULL,
					      causal, 0.125, T, T, D, D);
				expect_same_bits(t, alone, "out", head, "one head", (char *)one + (size_t)(h * T * D) * es,
						 "heads", T * D);
			}
		}
		free(q), free(k), free(v), free(one), free(many), free(head);
	}
}

/* whole heads over threads (more than 2e7 flops), tiles of query rows over
 * threads, small heads; every mask kind on one of each */
static void kcheck_attention_heads_should_match_loops_with_masks_and_threads(void)
{
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		check_attention_heads(t, 6, 150, 150, 40, 40, MASK_NONE, false);
		check_attention_heads(t, 6, 150, 150, 40, 40, MASK_BOTH, false);
		check_attention_heads(t, 3, 100, 130, 33, 17, MASK_CAUSAL, true);
		check_attention_heads(t, 3, 100, 130, 33, 17, MASK_RANDOM, true);
		check_attention_heads(t, 1, 300, 300, 64, 64, MASK_CAUSAL, true);
		for (int kind = 0; kind < MASK_KINDS; kind++)
			check_attention_heads(t, 5, 7, 7, 5, 3, kind, false);
	}
}

/* a GPT-2 style projection (B, T, 3, H, d) read in place as q, k, v of
 * (B, H, T, d), written to (B, T, H, d): the bits of the heads gathered
 * first, on every path this machine has, the scalar one too */
static void kcheck_strided_attention_should_give_the_bits_of_gathered_heads(void)
{
	enum { B = 2, T = 70, H = 3, D = 16, DM = H * D };
	float *qkv = buf_rand(&dt_f32, B * T * 3 * DM, -2, 2), *ctx = buf_fill(&dt_f32, B * T * DM, 0);
	float *q = buf_fill(&dt_f32, B * H * T * D, 0), *k = buf_fill(&dt_f32, B * H * T * D, 0);
	float *v = buf_fill(&dt_f32, B * H * T * D, 0), *o = buf_fill(&dt_f32, B * H * T * D, 0);
	const struct attn_layout in = { T * 3 * DM, D, 3 * DM }, out = { T * DM, D, DM };
	const struct attn_layout lay[4] = { in, in, in, out };

	for (int b = 0; b < B; b++)
		for (int h = 0; h < H; h++)
			for (int t = 0; t < T; t++)
				for (int c = 0; c < D; c++) {
					const float *row = qkv + (b * T + t) * 3 * DM + h * D + c;
					int at = ((b * H + h) * T + t) * D + c;
					q[at] = row[0], k[at] = row[DM], v[at] = row[2 * DM];
				}
	for (int path = 0; kernel_simd_path(path) != NULL; path++) {
		kernel_force_simd(kernel_simd_path(path));
		for (int causal = 0; causal < 2; causal++) {
			int bad = -1;
			kernel_set_attention_small(0);
			attention_heads_f32_simd(o, NULL, q, k, v, NULL, causal, 0.25f, B * H, T, T, D, D);
			kernel_set_attention_small(-1);
			attention_strided_f32_simd(ctx, qkv, qkv + DM, qkv + 2 * DM, causal, 0.25f, B, H, T, T, D, D, lay);
			for (int r = 0; r < B * H * T && bad < 0; r++) {
				int b = r / (H * T), h = r / T % H, t = r % T;
				if (memcmp(ctx + (b * T + t) * DM + h * D, o + ((b * H + h) * T + t) * D, D * sizeof(float)))
					bad = r;
			}
			check(bad < 0, "f32 attention_strided on %s, causal %d: head (%d, %d) row %d differs from the "
			      "gathered heads", kernel_simd_name(), causal, bad / (H * T), bad / T % H, bad % T);
		}
	}
	kernel_force_simd(NULL);
	free(qkv), free(ctx), free(q), free(k), free(v), free(o);
}

/* QKV_NO_SIMD=1: the loops, libm's exp and a scalar online softmax */
static void kcheck_the_scalar_path_should_match_loops_fused_or_not(void)
{
	static const int64_t shapes[][4] = { { 1, 1, 1, 1 }, { 7, 17, 3, 7 }, { 100, 100, 33, 64 }, { 49, 130, 8, 65 } };
	float x[5] = { -INFINITY, 0, 1, 88, NAN }, y[5];

	kernel_force_scalar(true);
	check(strcmp(kernel_simd_name(), "scalar") == 0, "kernel_simd_name() = %s with the scalar path forced",
	      kernel_simd_name());
	for (int i = 0; i < 2; i++)
		for (int kind = 0; kind < MASK_KINDS; kind++)
			for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
				check_attention(dtypes[i], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], kind);
	exp_f32_simd(y, x, 5);
	check(y[0] == 0 && y[1] == 1 && y[2] == expf(1) && y[3] == expf(88) && isnan(y[4]),
	      "scalar exp_f32_simd of (-inf, 0, 1, 88, NaN) = (%g, %g, %.9g, %.9g, %g), want libm's", y[0], y[1], y[2],
	      y[3], y[4]);
	kernel_force_scalar(false);
	check(strcmp(kernel_simd_name(), "scalar") != 0, "kernel_simd_name() = scalar after the scalar path is let go");
}
/* ---- unrolled against loops --------------------------------------------------------
 * The unrolled kernels sum in four partial sums (kernel.h: KERNEL_UNROLL), so
 * they agree with the loops within the tolerance above (1e-5 relative
 * float32, 1e-12 float64), not bit for bit; maxima, special rows and hidden
 * keys come out exactly as in the loops. They have no simd path: each group
 * runs once. */

/* c = a·b, a and b uniform in [-1, 1] (or, with integers, in -2..2, where
 * every order of the sum gives the same float: then bit for bit) */
static void check_matmul_unrolled(const struct dtype *t, int64_t m, int64_t k, int64_t n, bool integers)
{
	char what[96];
	void *a = buf_rand(t, m * k, -1, 1), *b = buf_rand(t, k * n, -1, 1);
	void *ref = buf_fill(t, m * n, 0), *got = buf_fill(t, m * n, 5);

	for (int64_t i = 0; integers && i < m * k; i++)
		put(t, a, i, floor((get(t, a, i) + 1) * 2.5) - 2);
	for (int64_t i = 0; integers && i < k * n; i++)
		put(t, b, i, floor((get(t, b, i) + 1) * 2.5) - 2);
	snprintf(what, sizeof what, "matmul%s m=%lld k=%lld n=%lld", integers ? " of integers" : "", (long long)m,
		 (long long)k, (long long)n);
	run_matmul(t, false, ref, a, b, m, k, n);
	run_matmul_unrolled(t, got, a, b, m, k, n);
	expect_close_to(t, what, "c", got, "unrolled", ref, m * n);
	if (integers)
		expect_same_bits(t, what, "c", got, "unrolled", ref, "loops", m * n);
	free(a), free(b), free(ref), free(got);
}

/* every triple of sizes (k from 1 to 100 covers every remainder mod 4), f32
 * and f64, random and integer entries; k == 0 gives zeros */
static void kcheck_matmul_unrolled_should_match_loops(void)
{
	for (int i = 0; i < 2; i++) {
		for (int im = 0; im < NSIZES; im++)
			for (int ik = 0; ik < NSIZES; ik++)
				for (int in = 0; in < NSIZES; in++)
					check_matmul_unrolled(dtypes[i], sizes[im], sizes[ik], sizes[in], false);
		for (int64_t k = 1; k <= 9; k++)
			check_matmul_unrolled(dtypes[i], 5, k, 6, true);
		void *c = buf_fill(dtypes[i], 6, 7);
		run_matmul_unrolled(dtypes[i], c, c, c, 2, 0, 3);
		bool zeros = true;
		for (int j = 0; j < 6; j++)
			zeros &= get(dtypes[i], c, j) == 0;
		check(zeros, "%s matmul unrolled with k = 0: c is not all zeros", dtypes[i]->name);
		free(c);
	}
}

/* the sum's order, pinned: with k = 6 the partials are s0 = t0 + t4,
 * s1 = t1 + t5, s2 = t2, s3 = t3, merged (s0 + s1) + (s2 + s3). Terms 1e8, 1,
 * -1e8, 1, 1, 1 in float32 (where 1e8 + 1 and 1e8 + 2 round to 1e8): the
 * loops lose the first 1 alone and give 3; unrolled, s0 = 1e8, s1 = 2,
 * s0 + s1 = 1e8, s2 + s3 = -1e8: 0. */
static void kcheck_matmul_unrolled_should_sum_in_four_partial_sums(void)
{
	const float a[6] = { 1e8f, 1, -1e8f, 1, 1, 1 }, b[6] = { 1, 1, 1, 1, 1, 1 };
	float loops, unrolled;

	matmul_f32_loops(&loops, a, b, 1, 6, 1);
	matmul_f32_unrolled(&unrolled, a, b, 1, 6, 1);
	check(KERNEL_UNROLL == 4, "KERNEL_UNROLL = %d, the checks know 4", KERNEL_UNROLL);
	check(loops == 3 && unrolled == 0, "f32 matmul of (1e8, 1, -1e8, 1, 1, 1)·ones: loops %g, unrolled %g, "
	      "want 3 and 0 (((1e8 + 1) + (1 + 1)) + (-1e8 + 1))", loops, unrolled);
}

/* softmax_input's rows (-inf, all -inf, NaN, +inf), every pair of sizes and
 * long rows: close to the loops, the loops' rules, in place the same bits;
 * torch's special rows */
static void kcheck_softmax_unrolled_should_match_loops(void)
{
	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		for (int ir = 0; ir <= NSIZES; ir++)
			for (int ic = 0; ic <= NSIZES; ic++) {
				int64_t rows = ir < NSIZES ? sizes[ir] : 3, cols = ic < NSIZES ? sizes[ic] : 1029;
				char what[96];
				void *x = softmax_input(t, rows, cols);
				void *ref = buf_fill(t, rows * cols, 0), *got = buf_fill(t, rows * cols, 7);
				snprintf(what, sizeof what, "softmax_rows rows=%lld cols=%lld", (long long)rows,
					 (long long)cols);
				run_softmax(t, false, ref, x, rows, cols);
				run_softmax_unrolled(t, got, x, rows, cols);
				expect_close_to(t, what, "y", got, "unrolled", ref, rows * cols);
				expect_softmax_rules(t, what, x, got, rows, cols);
				run_softmax_unrolled(t, x, x, rows, cols);
				expect_same_bits(t, what, "y", x, "in place", got, "out of place", rows * cols);
				free(x), free(ref), free(got);
			}

		enum { N = REF_SOFTMAX_ROWS * REF_SOFTMAX_COLS };
		void *x = buf_fill(t, N, 0), *y = buf_fill(t, N, 0);
		for (int j = 0; j < N; j++)
			put(t, x, j, ref_softmax_in[j]);
		run_softmax_unrolled(t, y, x, REF_SOFTMAX_ROWS, REF_SOFTMAX_COLS);
		expect_torch(t, "softmax_rows unrolled", y,
			     t->f64 ? (const void *)ref_softmax_f64 : (const void *)ref_softmax_f32, N);
		free(x), free(y);
	}
}

/* One head of every mask kind: weights and out close to the loops, hidden
 * keys weigh exactly 0, blind queries give NaN rows. */
static void check_attention_unrolled(const struct dtype *t, int64_t tq, int64_t tk, int64_t d, int64_t dv,
				     enum mask_kind kind)
{
	struct head h;
	head_begin(&h, t, tq, tk, d, dv, kind);
	void *out1 = buf_fill(t, tq * dv, 9), *w1 = buf_fill(t, tq * tk, 9);
	run_attention_unrolled(t, out1, w1, h.q, h.k, h.v, h.mask, h.causal, h.scale, tq, tk, d, dv);
	expect_close_to(t, h.what, "weights", w1, "unrolled", h.w0, tq * tk);
	expect_close_to(t, h.what, "out", out1, "unrolled", h.out0, tq * dv);
	expect_hidden_ignored(t, h.what, "unrolled", out1, w1, h.mask, h.causal, tq, tk, dv);
	free(out1), free(w1);
	head_end(&h);
}

/* every mask kind over the sizes (d = dv, and dv apart from d), f32 and f64;
 * a causal query 0 copies v[0] exactly (torch's masked head:
 * masked_attention_should_match_torch) */
static void kcheck_attention_unrolled_should_match_loops(void)
{
	static const int64_t small[] = { 1, 7, 33 };

	for (int i = 0; i < 2; i++) {
		const struct dtype *t = dtypes[i];
		for (int kind = 0; kind < MASK_KINDS; kind++) {
			for (int iq = 0; iq < NSIZES; iq++)
				for (int ik = 0; ik < NSIZES; ik++)
					for (int id = 0; id < NSIZES; id++)
						check_attention_unrolled(t, sizes[iq], sizes[ik], sizes[id], sizes[id], kind);
			for (int id = 0; id < 3; id++)
				for (int iv = 0; iv < NSIZES; iv++)
					check_attention_unrolled(t, 7, 33, small[id], sizes[iv], kind);
		}

		enum { T = 17, D = 7, DV = 3 };
		void *q = buf_rand(t, T * D, -1, 1), *k = buf_rand(t, T * D, -1, 1), *v = buf_rand(t, T * DV, -1, 1);
		void *out = buf_fill(t, T * DV, 9), *w = buf_fill(t, T * T, 9);
		run_attention_unrolled(t, out, w, q, k, v, NULL, true, 0.25, T, T, D, DV);
		check(get(t, w, 0) == 1 && get(t, out, 0) == get(t, v, 0) && get(t, out, 1) == get(t, v, 1) &&
		      get(t, out, 2) == get(t, v, 2),
		      "%s attention unrolled causal: query 0 has weight %g, out (%.*g %.*g %.*g), want 1 and v[0]",
		      t->name, get(t, w, 0), t->digits, get(t, out, 0), t->digits, get(t, out, 1), t->digits,
		      get(t, out, 2));
		free(q), free(k), free(v), free(w), free(out);
	}
}

/* ---- exp ------------------------------------------------------------------------------ */

/* The inputs whose results are special: exact ones first, then cases of
 * overflow, underflow and subnormal results within maxulp of libm. */
static void check_exp_specials(int64_t maxulp)
{
	static const float xs[] = { -INFINITY, INFINITY, NAN, 0.0f, -0.0f, -FLT_MAX, FLT_MAX, -110.0f,
				    -104.5f, 88.7f, 88.8f, 100.0f, -87.5f, -100.0f, -103.0f, 1.0f };
	static const double xd[] = { -INFINITY, INFINITY, NAN, 0.0, -0.0, -DBL_MAX, DBL_MAX, -800.0,
				     -746.5, 709.7, 709.8, 1000.0, -708.5, -740.0, -744.0, 1.0 };
	enum { N = sizeof xs / sizeof xs[0] };
	float y[N], z[5] = { 0, 1, 2, -1, -2 };
	double yd[N];

	exp_f32_simd(y, xs, N);
	exp_f64_simd(yd, xd, N);
	check(y[0] == 0 && !signbit(y[0]) && yd[0] == 0 && !signbit(yd[0]), "exp(-inf) = %g / %g, want +0",
	      y[0], yd[0]);
	check(y[1] == INFINITY && yd[1] == INFINITY, "exp(+inf) = %g / %g, want inf", y[1], yd[1]);
	check(isnan(y[2]) && isnan(yd[2]), "exp(NaN) = %g / %g, want NaN", y[2], yd[2]);
	check(y[3] == 1 && y[4] == 1 && yd[3] == 1 && yd[4] == 1, "exp(+-0) = %g %g / %g %g, want 1",
	      y[3], y[4], yd[3], yd[4]);
	check(y[5] == 0 && yd[5] == 0, "exp(-max) = %g / %g, want 0", y[5], yd[5]);
	check(y[6] == INFINITY && yd[6] == INFINITY, "exp(max) = %g / %g, want inf", y[6], yd[6]);
	for (int i = 7; i < N; i++) {
		int64_t u = ulp_f32(y[i], expf(xs[i])), ud = ulp_f64(yd[i], exp(xd[i]));
		note_ulp(u > ud ? u : ud);
		check(u <= maxulp, "exp_f32_simd(%.9g) = %.9g, expf %.9g (%lld ulp)", xs[i], y[i],
		      expf(xs[i]), (long long)u);
		check(ud <= maxulp, "exp_f64_simd(%.17g) = %.17g, exp %.17g (%lld ulp)", xd[i], yd[i],
		      exp(xd[i]), (long long)ud);
	}
	/* in place, and a length that is not a multiple of the vector width */
	exp_f32_simd(z, z, 5);
	for (int i = 0; i < 5; i++) {
		float x = (float)(i < 3 ? i : 2 - i);
		check(ulp_f32(z[i], expf(x)) <= maxulp, "exp_f32_simd in place: exp(%g) = %.9g, expf %.9g",
		      x, z[i], expf(x));
	}
}

/* exp_f32_simd over the floats with bits lo, lo + step, ... below hi (both of
 * one sign), in batches; one check per sweep naming the worst input. */
/* fn against ref (named name, libm's) at every step-th float from bits lo up
 * to hi (as bit patterns), within maxulp */
static void check_f32_sweep(const char *name, void (*fn)(float *, const float *, int64_t), float (*ref)(float),
			    const char *what, uint32_t lo, uint32_t hi, uint32_t step, int64_t maxulp)
{
	enum { BATCH = 4096 };
	static float x[BATCH], y[BATCH];
	int64_t worst = 0, count = 0;
	float worst_x = 0, worst_y = 0;
	uint32_t bits = lo;

	while (bits < hi) {
		int n = 0;
		for (; n < BATCH && bits < hi; n++, bits += step)
			memcpy(&x[n], &bits, 4);
		fn(y, x, n);
		for (int i = 0; i < n; i++) {
			int64_t u = ulp_f32(y[i], ref(x[i]));
			if (u > worst)
				worst = u, worst_x = x[i], worst_y = y[i];
		}
		count += n;
	}
	note_ulp(worst);
	check(worst <= maxulp, "%s over %s (%lld inputs): %lld ulp at x = %.9g (simd %.9g, libm %.9g)", name, what,
	      (long long)count, (long long)worst, worst_x, worst_y, ref(worst_x));
}

static void check_exp_f32_sweep(const char *what, uint32_t lo, uint32_t hi, uint32_t step, int64_t maxulp)
{
	check_f32_sweep("exp_f32_simd", exp_f32_simd, expf, what, lo, hi, step, maxulp);
}

/* exp_f64_simd at rounds * 4096 random inputs in [lo, hi) */
static void check_exp_f64_random(const char *what, double lo, double hi, int rounds, int64_t maxulp)
{
	enum { BATCH = 4096 };
	static double x[BATCH], y[BATCH];
	int64_t worst = 0;
	double worst_x = 0, worst_y = 0;

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH; i++)
			x[i] = lo + (hi - lo) * rng_uniform();
		exp_f64_simd(y, x, BATCH);
		for (int i = 0; i < BATCH; i++) {
			int64_t u = ulp_f64(y[i], exp(x[i]));
			if (u > worst)
				worst = u, worst_x = x[i], worst_y = y[i];
		}
	}
	note_ulp(worst);
	check(worst <= maxulp, "exp_f64_simd over %s (%d inputs): %lld ulp at x = %.17g (simd %.17g, exp %.17g)",
	      what, rounds * BATCH, (long long)worst, worst_x, worst_y, exp(worst_x));
}


/* every 61st float of [0, 89) and of (-104, -0] (some 36 million) */
static void kcheck_exp_f32_simd_should_be_within_one_ulp_of_expf(void)
{
	check_exp_f32_sweep("[0, 89)", 0x00000000u, 0x42B20000u, 61, 1);
	check_exp_f32_sweep("(-104, -0]", 0x80000000u, 0xC2D00000u, 61, 1);
}

/* 250 rounds of 4096 random inputs over the whole range, 250 near 0 */
static void kcheck_exp_f64_simd_should_be_within_one_ulp_of_exp(void)
{
	check_exp_f64_random("[-746, 710)", -746, 710, 250, 1);
	check_exp_f64_random("[-2, 2)", -2, 2, 250, 1);
}

static void kcheck_exp_simd_should_handle_special_values_exactly(void)
{
	check_exp_specials(1);
}

/* every 251st float of [0, 89) and of (-104, -0] (some 9 million), then at
 * finer steps the subnormal results (-104, -87.34) and |x| in [0.5, 2); in
 * float64 random inputs, the subnormal results among them */
static void kcheck_exp_simd_should_be_within_two_ulp_of_libm_over_finer_sweeps(void)
{
	check_exp_f32_sweep("[0, 89)", 0x00000000u, 0x42B20000u, 251, EXP_MAX_ULP);
	check_exp_f32_sweep("(-104, -0]", 0x80000000u, 0xC2D00000u, 251, EXP_MAX_ULP);
	check_exp_f32_sweep("(-104, -87.34) (subnormal results)", 0xC2AEAC50u, 0xC2D00000u, 3, EXP_MAX_ULP);
	check_exp_f32_sweep("[0.5, 2)", 0x3F000000u, 0x40000000u, 37, EXP_MAX_ULP);
	check_exp_f32_sweep("(-2, -0.5]", 0xBF000000u, 0xC0000000u, 37, EXP_MAX_ULP);
	check_exp_f64_random("[-746, 710)", -746, 710, 150, EXP_MAX_ULP);
	check_exp_f64_random("[-2, 2)", -2, 2, 150, EXP_MAX_ULP);
	check_exp_f64_random("[-745.2, -708.4) (subnormal results)", -745.2, -708.4, 50, EXP_MAX_ULP);
}

/* exp2_softmax_f32_simd, the fused attention's 2^x: every 61st float of
 * [-125, -0] (some 18 million) within 1 ulp of exp2f; below -125 and -inf
 * exactly 0, NaN stays NaN, 0 and -0 exactly 1 */
static void kcheck_the_online_softmax_exp2_should_be_within_one_ulp_of_exp2f(void)
{
	check_f32_sweep("exp2_softmax_f32_simd", exp2_softmax_f32_simd, exp2f, "[-125, -0]", 0x80000000u, 0xC2FA0001u,
			61, 1);

	const float xs[] = { 0.0f, -0.0f, -125.0f, -125.0001f, -126.0f, -127.5f, -200.0f, -1e30f, -INFINITY, NAN, -NAN };
	const int n = (int)(sizeof xs / sizeof *xs);
	float ys[sizeof xs / sizeof *xs];
	exp2_softmax_f32_simd(ys, xs, n);
	for (int i = 0; i < n; i++) {
		bool ok = isnan(xs[i]) ? isnan(ys[i]) : xs[i] == 0 ? ys[i] == 1 : xs[i] < -125 ? ys[i] == 0 :
			  ulp_f32(ys[i], exp2f(xs[i])) <= 1;
		check(ok, "exp2_softmax_f32_simd(%g) = %.9g, want %s", xs[i], ys[i],
		      isnan(xs[i]) ? "NaN" : xs[i] == 0 ? "exactly 1" : xs[i] < -125 ? "exactly 0" : "exp2f's within 1 ulp");
	}
}

/* ---- the simd path in use -------------------------------------------------------- */

/* forced, each path reports its name; otherwise the CPU's best: avx512 where
 * the CPU has AVX-512 F, VL, DQ and BW, else avx2 where it has AVX2 and FMA,
 * else sse2 on x86-64; neon on aarch64. An unknown name or another
 * architecture's is refused and changes nothing. */
static void kcheck_kernel_simd_name_should_report_the_forced_path(void)
{
	for (int i = 0; kernel_simd_path(i) != NULL; i++) {
		const char *want = kernel_simd_path(i);
		check(kernel_force_simd(want) == 0, "kernel_force_simd(%s) refused a path of kernel_simd_path", want);
		check(strcmp(kernel_simd_name(), want) == 0, "kernel_simd_name() = %s with %s forced", kernel_simd_name(),
		      want);
	}
	check(kernel_force_simd("avx3") == -1, "kernel_force_simd(avx3) did not say -1 (no such path)");
	check(strcmp(kernel_simd_name(), "scalar") == 0, "kernel_simd_name() = %s after a refused name, want scalar",
	      kernel_simd_name());
	kernel_force_simd(NULL);
	const char *best = kernel_simd_name();
	check(strcmp(best, kernel_simd_path(0)) == 0, "kernel_simd_name() = %s, kernel_simd_path(0) = %s", best,
	      kernel_simd_path(0));
#if defined(__x86_64__)
	__builtin_cpu_init();
	const char *want = "sse2";
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		want = "avx2";
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("fma"))
		want = "avx512";
#if defined(QKV_AVX512_ON_AVX2)	/* the AVX-512 path built for AVX2 (simd_avx512.c) */
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		want = "avx512";
#endif
	check(strcmp(best, want) == 0, "kernel_simd_name() = %s, want %s", best, want);
	check(kernel_force_simd("neon") == -2, "kernel_force_simd(neon) on x86-64 did not say -2 (not here)");
#elif defined(__aarch64__)
	check(strcmp(best, "neon") == 0, "kernel_simd_name() = %s, want neon", best);
	check(kernel_force_simd("avx2") == -2, "kernel_force_simd(avx2) on aarch64 did not say -2 (not here)");
#else
	check(best != NULL && best[0] != '\0', "kernel_simd_name() is empty");
#endif
	check(strcmp(kernel_simd_name(), best) == 0, "kernel_simd_name() = %s after a refused path, want %s",
	      kernel_simd_name(), best);
	int n = 0;
	while (kernel_simd_path(n) != NULL)
		n++;
	check(n >= 2 && strcmp(kernel_simd_path(n - 1), "scalar") == 0, "the last of %d paths is %s, want scalar", n,
	      n ? kernel_simd_path(n - 1) : "none");
}

/* AVX-512 against AVX2, bit for bit: the matmul sums in the same order (one
 * FMA per product, SIMD_KC at a time), at sizes across the tile and block
 * edges and k past one depth pass; the softmax and the two-pass attention
 * (weights kept) are AVX2's own on both, because their sums run across the
 * lanes and torch's AVX2 kernels round with 8; exp works lane by lane.
 * (Fused attention need only agree within the tolerances: its blocks of
 * queries and keys may differ with the vectors' width.) */
static void kcheck_avx512_should_give_the_bits_of_avx2(void)
{
	static const int64_t shapes[][3] = { { 1, 1, 1 }, { 7, 3, 33 }, { 13, 400, 70 }, { 100, 800, 65 },
					     { 97, 385, 130 }, { 200, 768, 300 } };
	if (kernel_force_simd("avx512") != 0 || kernel_force_simd("avx2") != 0) {
		check(true, "no AVX-512 or no AVX2 here: nothing to compare");
		kernel_force_simd(NULL);
		return;
	}
	for (int t = 0; t < 2; t++)
		for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
			const struct dtype *dt = dtypes[t];
			int64_t m = shapes[si][0], k = shapes[si][1], n = shapes[si][2];
			void *a = buf_rand(dt, m * k, -2, 2), *b = buf_rand(dt, k * n, -2, 2);
			void *v = buf_rand(dt, k * n, -2, 2);
			void *c[2], *w[2], *o[2], *e[2];
			char what[96];
			for (int p = 0; p < 2; p++) {
				c[p] = buf_fill(dt, m * n, 7), w[p] = buf_fill(dt, m * n, 7), o[p] = buf_fill(dt, m * k, 7);
				e[p] = buf_fill(dt, m * k, 7);
				kernel_force_simd(p ? "avx512" : "avx2");
				if (t) {
					matmul_f64_simd(c[p], a, b, m, k, n);
					softmax_rows_f64_simd(c[p], c[p], m, n);
					attention_f64_simd(o[p], w[p], a, b, v, NULL, si % 2, 0.5, m, n, k, k);
					exp_f64_simd(e[p], a, m * k);
				} else {
					matmul_f32_simd(c[p], a, b, m, k, n);
					softmax_rows_f32_simd(c[p], c[p], m, n);
					attention_f32_simd(o[p], w[p], a, b, v, NULL, si % 2, 0.5f, m, n, k, k);
					exp_f32_simd(e[p], a, m * k);
				}
			}
			snprintf(what, sizeof what, "matmul then softmax m=%lld k=%lld n=%lld", (long long)m, (long long)k,
				 (long long)n);
			expect_same_bits(dt, what, "c", c[1], "avx512", c[0], "avx2", m * n);
			snprintf(what, sizeof what, "attention tq=%lld tk=%lld d=%lld", (long long)m, (long long)n,
				 (long long)k);
			expect_same_bits(dt, what, "weights", w[1], "avx512", w[0], "avx2", m * n);
			expect_same_bits(dt, what, "out", o[1], "avx512", o[0], "avx2", m * k);
			expect_same_bits(dt, "exp of a", "e", e[1], "avx512", e[0], "avx2", m * k);
			free(a), free(b), free(v);
			for (int p = 0; p < 2; p++)
				free(c[p]), free(w[p]), free(o[p]), free(e[p]);
		}
	kernel_force_simd(NULL);
}

/* ---- elementwise ------------------------------------------------------------------------ */

/* a is (2,1) read as (2,3), b is (3,) read as (2,3): out[i][j] = a[i] - b[j] */
static void kcheck_ew_binary_should_broadcast_a_row_and_a_column(void)
{
	static const float a[] = { 10, 20 }, b[] = { 1, 2, 3 }, want[] = { 9, 8, 7, 19, 18, 17 };
	static const double ad[] = { 10, 20 }, bd[] = { 1, 2, 3 }, wantd[] = { 10, 20, 30, 20, 40, 60 };
	static const int64_t shape[] = { 2, 3 }, astr[] = { 1, 0 }, bstr[] = { 0, 1 };
	float out[6];
	double outd[6];

	ew_binary_f32(out, a, astr, b, bstr, shape, 2, EW_SUB);
	for (int i = 0; i < 6; i++)
		check(out[i] == want[i], "ew_binary_f32 sub: out[%d] = %g, want %g", i, out[i], want[i]);
	ew_binary_f64(outd, ad, astr, bd, bstr, shape, 2, EW_MUL);
	for (int i = 0; i < 6; i++)
		check(outd[i] == wantd[i], "ew_binary_f64 mul: out[%d] = %g, want %g", i, outd[i], wantd[i]);
}

static void kcheck_ew_binary_should_broadcast_a_scalar_and_handle_ndim_zero(void)
{
	static const float a[] = { 1, 2, 3, 4 }, s[] = { 0.5f };
	static const int64_t shape[] = { 4 }, astr[] = { 1 }, sstr[] = { 0 };
	float out[4], one;

	ew_binary_f32(out, a, astr, s, sstr, shape, 1, EW_DIV);
	for (int i = 0; i < 4; i++)
		check(out[i] == a[i] * 2, "a/0.5 [%d] = %g", i, out[i]);
	ew_binary_f32(out, s, sstr, a, astr, shape, 1, EW_DIV);
	for (int i = 0; i < 4; i++)
		check(out[i] == 0.5f / a[i], "0.5/a [%d] = %g", i, out[i]);
	ew_binary_f32(&one, a + 2, NULL, s, NULL, NULL, 0, EW_ADD);
	check(one == 3.5f, "0-d add = %g, want 3.5", one);
}

/* a is (2,3,4,5) read transposed in its last two axes from a (2,3,5,4)
 * buffer; b is (1,3,1,1) broadcast; out = a + b */
static void kcheck_ew_binary_should_follow_strides_in_four_dims(void)
{
	static const int64_t shape[] = { 2, 3, 4, 5 }, astr[] = { 60, 20, 1, 4 }, bstr[] = { 0, 1, 0, 0 };
	double src[2 * 3 * 5 * 4], bias[3] = { 100, 200, 300 }, out[2 * 3 * 4 * 5];

	for (int i = 0; i < 120; i++)
		src[i] = i;
	ew_binary_f64(out, src, astr, bias, bstr, shape, 4, EW_ADD);
	for (int i0 = 0; i0 < 2; i0++)
		for (int i1 = 0; i1 < 3; i1++)
			for (int i2 = 0; i2 < 4; i2++)
				for (int i3 = 0; i3 < 5; i3++) {
					double want = src[i0 * 60 + i1 * 20 + i3 * 4 + i2] + bias[i1];
					double got = out[((i0 * 3 + i1) * 4 + i2) * 5 + i3];
					check(got == want, "[%d,%d,%d,%d] = %g, want %g", i0, i1, i2, i3, got, want);
				}
}

/* the exponents 2, 0.5, 3, -0.5, -1, -2 as torch computes them; others powf */
static void kcheck_ew_pow_should_special_case_like_torch(void)
{
	static const float xs[] = { 0.3f, 2.0f, 7.5f, 1e-3f, 123.25f };
	static const float es[] = { 2, 0.5f, 3, -0.5f, -1, -2, 1.7f, 0 };
	int64_t s1[] = { 1 }, shape[] = { 1 };

	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
		for (size_t j = 0; j < sizeof es / sizeof es[0]; j++) {
			float x = xs[i], e = es[j], got;
			ew_binary_f32(&got, &x, s1, &e, s1, shape, 1, EW_POW);
			float want = e == 2 ? x * x : e == 0.5f ? sqrtf(x) : e == 3 ? x * x * x :
				     e == -0.5f ? 1 / sqrtf(x) : e == -1 ? 1 / x : e == -2 ? 1 / (x * x) :
				     powf(x, e);
			check(got == want, "f32 pow(%g, %g) = %.9g, want %.9g", x, e, got, want);

			double xd = x, ed = e, gotd;
			ew_binary_f64(&gotd, &xd, s1, &ed, s1, shape, 1, EW_POW);
			double wantd = ed == 2 ? xd * xd : ed == 0.5 ? sqrt(xd) : ed == 3 ? xd * xd * xd :
				       ed == -0.5 ? 1 / sqrt(xd) : ed == -1 ? 1 / xd : ed == -2 ? 1 / (xd * xd) :
				       pow(xd, ed);
			check(gotd == wantd, "f64 pow(%g, %g) = %.17g, want %.17g", xd, ed, gotd, wantd);
		}
	float neg = -8, three = 3, got;
	ew_binary_f32(&got, &neg, s1, &three, s1, shape, 1, EW_POW);
	check(got == -512, "(-8)^3 = %g, want -512", got);
}

static void kcheck_floordiv_and_mod_should_follow_python_signs(void)
{
	/* x, y, x // y, x % y as Python computes them */
	static const double cases[][4] = {
		{ 7, 2, 3, 1 }, { -7, 2, -4, 1 }, { 7, -2, -4, -1 }, { -7, -2, 3, -1 },
		{ 6, -3, -2, -0.0 }, { -6, 3, -2, 0.0 }, { 7.5, 2, 3, 1.5 }, { -7.5, 2, -4, 0.5 },
		{ 0, -1, -0.0, -0.0 }, { 1, 0.1, 9, 0.09999999999999995 }, { 5, 1e300, 0, 5 },
	};
	int64_t s1[] = { 1 }, shape[] = { 1 };

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double x = cases[i][0], y = cases[i][1], q, r;
		ew_binary_f64(&q, &x, s1, &y, s1, shape, 1, EW_FLOORDIV);
		ew_binary_f64(&r, &x, s1, &y, s1, shape, 1, EW_MOD);
		check(q == cases[i][2] && !signbit(q) == !signbit(cases[i][2]), "%g // %g = %g, want %g", x, y, q,
		      cases[i][2]);
		check(r == cases[i][3] && !signbit(r) == !signbit(cases[i][3]), "%g %% %g = %.17g, want %.17g", x, y, r,
		      cases[i][3]);
		if (i >= 9)
			continue;	/* the last cases are not exact in float32 */
		float xf = (float)x, yf = (float)y, qf, rf;
		ew_binary_f32(&qf, &xf, s1, &yf, s1, shape, 1, EW_FLOORDIV);
		ew_binary_f32(&rf, &xf, s1, &yf, s1, shape, 1, EW_MOD);
		check(qf == (float)cases[i][2] && !signbit(qf) == !signbit(cases[i][2]), "f32 %g // %g = %g", x, y, qf);
		check(rf == (float)cases[i][3] && !signbit(rf) == !signbit(cases[i][3]), "f32 %g %% %g = %g", x, y, rf);
	}
	/* division by zero: IEEE results, no trap */
	double one = 1, mone = -1, zero = 0, q, r;
	ew_binary_f64(&q, &one, s1, &zero, s1, shape, 1, EW_FLOORDIV);
	check(q == INFINITY, "1 // 0 = %g, want inf", q);
	ew_binary_f64(&q, &mone, s1, &zero, s1, shape, 1, EW_FLOORDIV);
	check(q == -INFINITY, "-1 // 0 = %g, want -inf", q);
	ew_binary_f64(&r, &one, s1, &zero, s1, shape, 1, EW_MOD);
	check(isnan(r), "1 %% 0 = %g, want NaN", r);
}

static void kcheck_ew_max_and_min_should_propagate_nan(void)
{
	static const float a[] = { 1, NAN, 3, -0.0f }, b[] = { 2, 1, NAN, 5 };
	static const int64_t s[] = { 1 }, shape[] = { 4 };
	float mx[4], mn[4];

	ew_binary_f32(mx, a, s, b, s, shape, 1, EW_MAX);
	ew_binary_f32(mn, a, s, b, s, shape, 1, EW_MIN);
	check(mx[0] == 2 && isnan(mx[1]) && isnan(mx[2]) && mx[3] == 5, "max = %g %g %g %g, want 2 nan nan 5", mx[0],
	      mx[1], mx[2], mx[3]);
	check(mn[0] == 1 && isnan(mn[1]) && isnan(mn[2]) && mn[3] == 0, "min = %g %g %g %g, want 1 nan nan 0", mn[0],
	      mn[1], mn[2], mn[3]);
}

static void kcheck_ew_compare_should_broadcast_and_treat_nan_as_unordered(void)
{
	static const double a[] = { 1, 2, NAN }, b[] = { 2 };
	static const float af[] = { 1, 2, NAN }, bf[] = { 2 };
	static const int64_t shape[] = { 3 }, astr[] = { 1 }, bstr[] = { 0 };
	static const struct {
		enum cmp_op op;
		uint8_t want[3];
	} cases[] = {
		{ CMP_EQ, { 0, 1, 0 } }, { CMP_NE, { 1, 0, 1 } }, { CMP_LT, { 1, 0, 0 } },
		{ CMP_LE, { 1, 1, 0 } }, { CMP_GT, { 0, 0, 0 } }, { CMP_GE, { 0, 1, 0 } },
	};
	uint8_t out[3];

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ew_compare_f64(out, a, astr, b, bstr, shape, 1, cases[c].op);
		check(memcmp(out, cases[c].want, 3) == 0, "f64 compare op %d: %d %d %d", cases[c].op, out[0], out[1],
		      out[2]);
		ew_compare_f32(out, af, astr, bf, bstr, shape, 1, cases[c].op);
		check(memcmp(out, cases[c].want, 3) == 0, "f32 compare op %d: %d %d %d", cases[c].op, out[0], out[1],
		      out[2]);
	}
}

static void kcheck_ew_unary_should_apply_each_function(void)
{
	float x[] = { -2, -0.0f, 0.5f, NAN, 4 }, y[5];
	double xd[] = { -2, 0.25, 9 }, yd[3];

	ew_unary_f32(y, x, 5, EW_RELU);
	check(y[0] == 0 && y[1] == 0 && !signbit(y[1]) && y[2] == 0.5f && isnan(y[3]) && y[4] == 4, "relu");
	ew_unary_f32(y, x, 5, EW_NEG);
	check(y[0] == 2 && !signbit(y[1]) && y[4] == -4, "neg");
	ew_unary_f32(y, x, 5, EW_ABS);
	check(y[0] == 2 && y[4] == 4 && !signbit(y[1]), "abs");
	ew_unary_f32(y, x, 5, EW_SQRT);
	check(isnan(y[0]) && y[4] == 2, "sqrt");
	ew_unary_f32(y, x, 5, EW_EXP);
	check(y[2] == expf(0.5f), "exp(0.5) = %.9g, expf %.9g", y[2], expf(0.5f));
	ew_unary_f32(y, x, 5, EW_LOG);
	check(y[4] == logf(4) && y[1] == -INFINITY, "log");
	ew_unary_f32(y, x, 5, EW_TANH);
	check(y[0] == tanhf(-2), "tanh");
	ew_unary_f64(yd, xd, 3, EW_SQRT);
	check(isnan(yd[0]) && yd[1] == 0.5 && yd[2] == 3, "sqrt f64");
	ew_unary_f64(xd, xd, 3, EW_RELU);	/* in place */
	check(xd[0] == 0 && xd[1] == 0.25 && xd[2] == 9, "relu f64 in place");
}

/* ---- data movement ------------------------------------------------------------------------ */

/* in is (3,4) row-major; its transpose is (4,3) at strides (1,4) */
static void kcheck_copy_strided_should_copy_a_transpose(void)
{
	static const int64_t shape[] = { 4, 3 }, istr[] = { 1, 4 };
	float in[12], out[12];
	double ind[12], outd[12];
	uint8_t inb[12], outb[12];

	for (int i = 0; i < 12; i++)
		in[i] = (float)i, ind[i] = i * 1.5, inb[i] = (uint8_t)i;
	copy_strided(out, in, istr, shape, 2, sizeof(float));
	copy_strided(outd, ind, istr, shape, 2, sizeof(double));
	copy_strided(outb, inb, istr, shape, 2, 1);
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 3; c++) {
			check(out[r * 3 + c] == in[c * 4 + r], "f32 [%d][%d]", r, c);
			check(outd[r * 3 + c] == ind[c * 4 + r], "f64 [%d][%d]", r, c);
			check(outb[r * 3 + c] == inb[c * 4 + r], "u8 [%d][%d]", r, c);
		}
}

/* in is (2,3,4); out is in.permute(2,0,1) expanded to (5,4,2,3) */
static void kcheck_copy_strided_should_expand_and_permute_four_dims(void)
{
	static const int64_t shape[] = { 5, 4, 2, 3 }, istr[] = { 0, 1, 12, 4 }, empty[] = { 3, 0 };
	double in[24], out[5 * 24], one = -1;

	for (int i = 0; i < 24; i++)
		in[i] = i;
	copy_strided(out, in, istr, shape, 4, sizeof(double));
	for (int e = 0; e < 5; e++)
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 2; b++)
				for (int c = 0; c < 3; c++)
					check(out[((e * 4 + a) * 2 + b) * 3 + c] == in[b * 12 + c * 4 + a], "[%d,%d,%d,%d]", e,
					      a, b, c);
	/* a 0-d copy moves one element; a zero-size axis moves nothing */
	copy_strided(&one, in + 5, NULL, NULL, 0, sizeof(double));
	check(one == 5, "0-d copy = %g, want 5", one);
	one = -1;
	copy_strided(&one, in, istr, empty, 2, sizeof(double));
	check(one == -1, "an empty copy wrote %g", one);
}

/* x is (3,4); the mask is one row of 4 broadcast down */
static void kcheck_masked_fill_should_broadcast_the_mask(void)
{
	static const uint8_t mask[4] = { 0, 1, 0, 1 };
	static const int64_t shape[] = { 3, 4 }, mstr[] = { 0, 1 };
	float x[12];
	double xd[12];

	for (int i = 0; i < 12; i++)
		x[i] = (float)i, xd[i] = i;
	masked_fill_f32(x, mask, mstr, shape, 2, -INFINITY);
	masked_fill_f64(xd, mask, mstr, shape, 2, -1e9);
	for (int i = 0; i < 12; i++) {
		check(mask[i % 4] ? x[i] == -INFINITY : x[i] == (float)i, "f32 [%d] = %g", i, x[i]);
		check(mask[i % 4] ? xd[i] == -1e9 : xd[i] == i, "f64 [%d] = %g", i, xd[i]);
	}
}

static void kcheck_tri_zero_should_match_tril_and_triu(void)
{
	const int64_t batch = 2, rows = 3, cols = 5;

	for (int64_t diag = -3; diag <= 5; diag++)
		for (int upper = 0; upper < 2; upper++) {
			float x[2 * 3 * 5];
			double xd[2 * 3 * 5];
			uint8_t xb[2 * 3 * 5];
			int bad = -1;
			for (int i = 0; i < 30; i++)
				x[i] = (float)(i + 1), xd[i] = i + 1, xb[i] = 1;
			tri_zero(x, sizeof(float), batch, rows, cols, diag, upper);
			tri_zero(xd, sizeof(double), batch, rows, cols, diag, upper);
			tri_zero(xb, 1, batch, rows, cols, diag, upper);
			for (int i = 0; i < 30 && bad < 0; i++) {
				int r = i / 5 % 3, c = i % 5;
				bool keep = upper ? c - r >= diag : c - r <= diag;
				if (x[i] != (keep ? (float)(i + 1) : 0) || xd[i] != (keep ? i + 1 : 0) || xb[i] != keep)
					bad = i;
			}
			check(bad < 0, "tri_zero diagonal %lld upper %d: [%d][%d][%d] = %g / %g / %d", (long long)diag, upper,
			      bad / 15, bad / 5 % 3, bad % 5, bad < 0 ? 0 : x[bad], bad < 0 ? 0 : xd[bad],
			      bad < 0 ? 0 : xb[bad]);
		}
}

/* ---- reductions and dropout ------------------------------------------------------------------ */

/* in is (2,3,4) with in[i][j][k] = 100i + 10j + k */
static void kcheck_sum_dim_should_sum_along_each_axis(void)
{
	float in[24], out[12];
	double ind[24], outd[12];

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 4; k++)
				in[(i * 3 + j) * 4 + k] = (float)(100 * i + 10 * j + k), ind[(i * 3 + j) * 4 + k] = 100 * i + 10 * j + k;
	/* middle axis: outer 2, n 3, inner 4 */
	sum_dim_f32(out, in, 2, 3, 4);
	sum_dim_f64(outd, ind, 2, 3, 4);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++) {
			double want = 3 * (100 * i + k) + 30;
			check(out[i * 4 + k] == want && outd[i * 4 + k] == want, "middle [%d][%d] = %g / %g, want %g", i, k,
			      out[i * 4 + k], outd[i * 4 + k], want);
		}
	/* last axis: outer 6, n 4, inner 1 */
	sum_dim_f32(out, in, 6, 4, 1);
	for (int r = 0; r < 6; r++)
		check(out[r] == 4 * in[r * 4] + 6, "last [%d] = %g", r, out[r]);
	/* first axis: outer 1, n 2, inner 12 */
	sum_dim_f64(outd, ind, 1, 2, 12);
	for (int r = 0; r < 12; r++)
		check(outd[r] == 2 * ind[r] + 100, "first [%d] = %g", r, outd[r]);
	/* n == 0 gives zeros */
	sum_dim_f32(out, in, 2, 0, 3);
	for (int r = 0; r < 6; r++)
		check(out[r] == 0, "empty [%d] = %g", r, out[r]);
	/* numpy's order, pairwise down a strided axis or in order: the same whole sums */
	for (int pairwise = 0; pairwise < 2; pairwise++) {
		sum_dim_numpy_f32(out, in, 2, 3, 4, pairwise);
		sum_dim_numpy_f64(outd, ind, 2, 3, 4, pairwise);
		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 4; k++) {
				double want = 3 * (100 * i + k) + 30;
				check(out[i * 4 + k] == want && outd[i * 4 + k] == want, "numpy middle [%d][%d] = %g / %g, want %g",
				      i, k, out[i * 4 + k], outd[i * 4 + k], want);
			}
	}
	sum_dim_numpy_f32(out, in, 6, 4, 1, true);
	for (int r = 0; r < 6; r++)
		check(out[r] == 4 * in[r * 4] + 6, "numpy last [%d] = %g", r, out[r]);
	sum_dim_numpy_f64(outd, ind, 1, 24, 1, true);
	check(outd[0] == 3 * 4 * 100 + 2 * 4 * 30 + 2 * 3 * 6, "numpy all = %g", outd[0]);
}

/* numpy's pairwise order is not the order of the values: after 2^24 in
 * float32 a 1 added alone is lost, ones added to each other first are not */
static void kcheck_sum_dim_numpy_should_add_as_numpys_pairwise_sum(void)
{
	float x[16], out[1];
	x[0] = 16777216.0f;	/* 2^24: adding 1 to it alone is lost */
	for (int i = 1; i < 16; i++)
		x[i] = 1.0f;
	/* eight running sums: r0 = 2^24 (its 1 lost), r1..r7 = 2; ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) */
	sum_dim_numpy_f32(out, x, 1, 16, 1, true);
	check(out[0] == 16777230.0f, "pairwise 16 = %.1f, want 16777230", out[0]);
	sum_dim_numpy_f32(out, x, 1, 16, 1, false);
	check(out[0] == 16777216.0f, "in order 16 = %.1f, want 16777216", out[0]);
}

static void kcheck_sum_dim_f32_should_round_in_float_like_torch(void)
{
	/* torch sums float32 in float: softmax weights of a row add up to
	 * 0.99999994 rather than 1 (torch prints 1.0000, not 1.) */
	static const float w[3] = { 0.09003057f, 0.24472848f, 0.66524094f };
	float out;

	sum_dim_f32(&out, w, 1, 3, 1);
	check(out == (0.09003057f + 0.24472848f) + 0.66524094f, "sum = %.9g", out);

	/* short runs add in order: 2^24 + 1 loses the 1 in float, as in torch */
	static const float in[3] = { 16777216.0f, 1, 1 };
	sum_dim_f32(&out, in, 1, 3, 1);
	check(out == 16777216.0f, "sum = %.1f, want 16777216", out);

	/* long ones pairwise: a million 0.1s stay within 1e-6 relative, where
	 * adding them in order drifts by about 1e-2 */
	enum { N = 1 << 20 };
	float *many = xmalloc(N * sizeof *many);
	for (int i = 0; i < N; i++)
		many[i] = 0.1f;
	sum_dim_f32(&out, many, 1, N, 1);
	check(fabs(out - N * (double)0.1f) < 1e-6 * N * 0.1, "sum of 2^20 times 0.1 = %.3f", out);
	free(many);

	/* and wide rows (more columns than the stack block of partial sums) */
	enum { INNER = 150 };
	static float wide[3 * INNER];
	float wout[INNER];
	for (int i = 0; i < 3 * INNER; i++)
		wide[i] = i < INNER ? 2.5f : 1.0f;
	sum_dim_f32(wout, wide, 1, 3, INNER);
	for (int i = 0; i < INNER; i++)
		check(wout[i] == 4.5f, "wide [%d] = %.1f, want 4.5", i, wout[i]);
}

static void kcheck_max_dim_should_find_the_maximum_and_propagate_nan(void)
{
	static const float in[] = { 1, 5, -INFINITY, 3, 2, NAN, 4, 0 };	/* (1, 4, 2) */
	static const double ind[] = { -3, -1, -2 };
	float out[2];
	double outd;

	max_dim_f32(out, in, 1, 4, 2);
	check(out[0] == 4 && isnan(out[1]), "max = %g %g, want 4 nan", out[0], out[1]);
	max_dim_f64(&outd, ind, 1, 3, 1);
	check(outd == -1, "max f64 = %g, want -1", outd);
}

static void kcheck_dot_should_follow_strides(void)
{
	static const float a[] = { 1, 100, 2, 100, 3 }, b[] = { 4, 5, 6 };
	static const double ad[] = { 1, 2, 3 }, bd[] = { 6, 0, 5, 0, 4 };

	check(dot_f32(a, 2, b, 1, 3) == 32, "dot = %g, want 32", dot_f32(a, 2, b, 1, 3));
	check(dot_f64(ad, 1, bd, 2, 3) == 28, "dot f64 = %g, want 28", dot_f64(ad, 1, bd, 2, 3));
	check(dot_f64(ad, 1, bd, 2, 0) == 0, "empty dot = %g", dot_f64(ad, 1, bd, 2, 0));
}

static void kcheck_dropout_should_scale_kept_and_zero_dropped(void)
{
	static const float in[] = { 1, 2, INFINITY, 4 };
	static const uint8_t keep[] = { 1, 0, 0, 1 };
	float out[4];
	double ind[] = { 1, 2, 3 };

	dropout_f32(out, in, keep, 4, 2.0f);
	check(out[0] == 2 && out[1] == 0 && out[2] == 0 && out[3] == 8, "dropout = %g %g %g %g, want 2 0 0 8", out[0],
	      out[1], out[2], out[3]);
	dropout_f64(ind, ind, keep, 3, 1.25);
	check(ind[0] == 1.25 && ind[1] == 0 && ind[2] == 0, "dropout f64 in place = %g %g %g", ind[0], ind[1], ind[2]);
}

/* ---- the drivers' side --------------------------------------------------------------------- */

#define KCHECK_ENTRY(name, each_path) { #name, kcheck_##name, each_path },
static const struct {
	const char *name;
	void (*run)(void);
	bool each_path;
} groups[KCHECK_COUNT] = { KCHECK_GROUPS(KCHECK_ENTRY) };
#undef KCHECK_ENTRY

const char *kcheck_name(enum kcheck_id id)
{
	return groups[id].name;
}

bool kcheck_each_path(enum kcheck_id id)
{
	return groups[id].each_path;
}

int kcheck_npaths(void)
{
	int n = 0;
	while (kernel_simd_path(n) != NULL)
		n++;
	return n;
}

void kcheck_run(enum kcheck_id id, int path, struct kcheck_result *r)
{
	memset(r, 0, sizeof *r);
	res = r;
	rng_state = RNG_SEED;
	kernel_force_simd(groups[id].each_path ? kernel_simd_path(path) : NULL);
	r->path = kernel_simd_name();
	double start = now();
	groups[id].run();
	r->seconds = now() - start;
	res = NULL;
	kernel_force_simd(NULL);
	kernel_set_threads(0);
	kernel_set_attention_small(-1);
}
