/* kernel_cross.c: the kernel tests without Criterion, so they also run on
 * aarch64 (NEON) under qemu-aarch64; `make test-cross` builds it statically
 * for aarch64 and natively for x86-64, where every check runs twice (the
 * AVX2+FMA path, then the forced SSE2 baseline). Links src/kernel/ only.
 *
 * Every *_simd kernel is checked against its _loops twin at sizes 1, 3, 7,
 * 17, 33, 64, 100 (and larger matmuls across the blocking edges), mirroring
 * tests/unit/test_kernel.c. "Agree" means, per element,
 * |simd - loops| <= tol * max(1, |loops|) with tol = 1e-5 (float32) or 1e-12
 * (float64); equal infinities and two NaNs agree. The vectorised exp must be
 * within 2 ulp of libm. Prints one line per group, each failure with its case
 * (kernel, sizes, index, both values), and exits 1 if any check failed. */
#include "kernel/kernel.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXP_MAX_ULP 2
#define FAILS_SHOWN 6		/* failures printed per group; the rest are counted */

static const int64_t sizes[] = { 1, 3, 7, 17, 33, 64, 100 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* ---- bookkeeping: checks, failures, groups ------------------------------------ */

static long checks, failures;
static const char *path;	/* kernel_simd_name() of the current pass */

static struct {
	const char *name;
	long checks, failures;
	double worst;
	bool ulp;		/* worst is in ulp, not relative error */
	double start;		/* seconds */
} group;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Counts one check; a failed one is printed as "FAIL <path> <message>". */
static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (ok)
		return;
	failures++;
	if (failures - group.failures > FAILS_SHOWN) {
		if (failures - group.failures == FAILS_SHOWN + 1)
			printf("FAIL %s (further failures in %s are counted, not shown)\n", path, group.name);
		return;
	}
	printf("FAIL %s ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void group_begin(const char *name, bool ulp)
{
	group.name = name;
	group.checks = checks;
	group.failures = failures;
	group.worst = 0;
	group.ulp = ulp;
	group.start = now();
}

static void group_note(double err)
{
	if (err > group.worst || err != err)
		group.worst = err;
}

static void group_end(void)
{
	char worst[40];

	if (group.ulp)
		snprintf(worst, sizeof worst, "max %.0f ulp", group.worst);
	else
		snprintf(worst, sizeof worst, "max err %.2g", group.worst);
	printf("%-8s %-34s %6ld checks  %-16s %5.1f s  %s\n", path, group.name, checks - group.checks,
	       worst, now() - group.start, failures > group.failures ? "FAILED" : "ok");
	fflush(stdout);
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
		fprintf(stderr, "kernel_cross: out of memory\n");
		exit(2);
	}
	return p;
}

/* xorshift64*: deterministic inputs, the same on every machine */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

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

/* One check: got (simd) agrees with ref (loops) over n elements; a failure
 * names the case (what), the array (name), the worst index and both values. */
static void expect_close(const struct dtype *t, const char *what, const char *name,
			 const void *got, const void *ref, int64_t n)
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
	group_note(worst);
	check(worst <= t->tol, "%s %s: %s[%lld] simd %.*g loops %.*g (err %.3g > %g)", t->name, what, name,
	      (long long)at, t->digits, at < 0 ? 0 : get(t, got, at), t->digits, at < 0 ? 0 : get(t, ref, at),
	      worst, t->tol);
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

/* ---- matmul --------------------------------------------------------------------------- */

/* c = a·b with a (m,k), b (k,n) uniform in [-1, 1]: simd against loops, and
 * with same_bits, bit for bit (float64 rounds each product and sum like the
 * loops while the whole depth fits one pass of the blocking: asked at the
 * sizes up to 100, as the unit tests do). */
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
static void check_matmul_small_cases(const struct dtype *t)
{
	double a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, want[4] = { 19, 22, 43, 50 };
	void *ta = buf_fill(t, 4, 0), *tb = buf_fill(t, 4, 0), *c = buf_fill(t, 12, NAN);

	for (int simd = 0; simd < 2; simd++) {
		const char *variant = simd ? "simd" : "loops";
		int64_t bad = -1;

		for (int i = 0; i < 12; i++)
			put(t, c, i, NAN);
		run_matmul(t, simd, c, ta, tb, 3, 0, 4);
		for (int i = 0; i < 12 && bad < 0; i++)
			if (get(t, c, i) != 0)
				bad = i;
		check(bad < 0, "%s matmul %s m=3 k=0 n=4: c[%lld] = %g, want 0", t->name, variant,
		      (long long)bad, bad < 0 ? 0 : get(t, c, bad));

		for (int i = 0; i < 4; i++)
			put(t, ta, i, a[i]), put(t, tb, i, b[i]);
		run_matmul(t, simd, c, ta, tb, 2, 2, 2);
		bad = -1;
		for (int i = 0; i < 4 && bad < 0; i++)
			if (get(t, c, i) != want[i])
				bad = i;
		check(bad < 0, "%s matmul %s [1 2; 3 4]·[5 6; 7 8]: c[%lld] = %g, want %g", t->name, variant,
		      (long long)bad, bad < 0 ? 0 : get(t, c, bad), bad < 0 ? 0 : want[bad]);
	}
	free(ta), free(tb), free(c);
}

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

static void test_matmul(const struct dtype *t)
{
	/* sizes around the register tile (6 x 2 vectors), the depth of one pass
	 * (a few hundred, where partial sums are added back into c), the blocks
	 * of rows of a, and larger products that the threads split. Past k = 512 float32 sums of random products
	 * drift apart by more than 1e-5 in any two summation orders, so there
	 * (as in the unit tests) float32 is checked on small integers, exactly. */
	static const int64_t edges[][3] = {
		{ 6, 384, 16 }, { 5, 385, 15 }, { 6, 512, 16 }, { 5, 513, 15 }, { 13, 600, 33 },
		{ 12, 1024, 48 }, { 2, 1100, 9 }, { 7, 1537, 8 }, { 96, 64, 17 }, { 97, 770, 20 },
		{ 193, 100, 33 }, { 300, 300, 300 }, { 300, 17, 301 }, { 1, 300, 300 }, { 299, 64, 1 },
		{ 301, 513, 31 },
	};
	char name[40];

	snprintf(name, sizeof name, "matmul %s", t->name);
	group_begin(name, false);
	for (int im = 0; im < NSIZES; im++)
		for (int ik = 0; ik < NSIZES; ik++)
			for (int in = 0; in < NSIZES; in++)
				check_matmul(t, sizes[im], sizes[ik], sizes[in], t->f64);
	for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
		int64_t m = edges[e][0], k = edges[e][1], n = edges[e][2];
		if (t->f64 || k <= 512)
			check_matmul(t, m, k, n, false);
		if (!t->f64)
			check_matmul_integers(t, m, k, n);
	}
	check_matmul_small_cases(t);
	group_end();

	snprintf(name, sizeof name, "matmul %s threads", t->name);
	group_begin(name, false);
	check_matmul_threads(t, 301, 200, 250);
	check_matmul_threads(t, 240, 200, 250);
	check_matmul_threads(t, 13, 200, 250);
	group_end();
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

/* softmax of one rows x cols input: simd against loops, then what the loops
 * define row by row: a row with a NaN or a +inf is all NaN, an all -inf row
 * is all +0, any other row has exact zeros where the input is -inf and sums
 * to 1. In place gives the same bits. */
static void check_softmax(const struct dtype *t, int64_t rows, int64_t cols)
{
	char what[80];
	void *x = softmax_input(t, rows, cols);
	void *ref = buf_fill(t, rows * cols, 0), *got = buf_fill(t, rows * cols, 7);
	void *inplace = buf_fill(t, rows * cols, 0);
	double sum_tol = t->f64 ? 1e-13 : 1e-5;
	int64_t bad = -1;
	char why[160] = "";

	snprintf(what, sizeof what, "softmax_rows rows=%lld cols=%lld", (long long)rows, (long long)cols);
	run_softmax(t, false, ref, x, rows, cols);
	run_softmax(t, true, got, x, rows, cols);
	expect_close(t, what, "y", got, ref, rows * cols);

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
					   !special && all_ninf && (yi != 0 || signbit(yi)) ?
					   "an all -inf row should be all +0" :
					   !special && xi == -INFINITY && yi != 0 ? "a -inf score should have weight 0" :
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

	memcpy(inplace, x, (size_t)(rows * cols) * t->size);
	run_softmax(t, true, inplace, inplace, rows, cols);
	expect_same_bits(t, what, "y", inplace, "in place", got, "out of place", rows * cols);
	free(x), free(ref), free(got), free(inplace);
}

/* The special rows spelled out, for both variants: all -inf rows of every
 * width up to 19 give +0; a +inf or a NaN makes the row NaN; the x100
 * saturation experiment (1000, 999, 0, -1000) does not overflow. */
static void check_softmax_special_rows(const struct dtype *t)
{
	static const double special[3][9] = {
		{ 1, 2, INFINITY, 3, 4, 5, 6, 7, 8 },
		{ 1, 2, NAN, 3, 4, 5, 6, 7, 8 },
		{ -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, NAN },
	};
	void *x = buf_fill(t, 27, 0), *y = buf_fill(t, 27, 0);

	for (int simd = 0; simd < 2; simd++) {
		const char *variant = simd ? "simd" : "loops";
		int64_t bad = -1, bad_cols = 0;

		for (int64_t cols = 1; cols <= 19; cols++) {
			for (int64_t j = 0; j < cols; j++)
				put(t, x, j, -INFINITY), put(t, y, j, NAN);
			run_softmax(t, simd, y, x, 1, cols);
			for (int64_t j = 0; j < cols && bad < 0; j++)
				if (get(t, y, j) != 0 || signbit(get(t, y, j)))
					bad = j, bad_cols = cols;
			if (bad >= 0)
				break;
		}
		check(bad < 0, "%s softmax_rows %s of an all -inf row, cols=%lld: y[%lld] = %g, want +0", t->name,
		      variant, (long long)bad_cols, (long long)bad, bad < 0 ? 0 : get(t, y, bad));

		for (int i = 0; i < 27; i++)
			put(t, x, i, special[i / 9][i % 9]);
		run_softmax(t, simd, y, x, 3, 9);
		bad = -1;
		for (int i = 0; i < 27 && bad < 0; i++)
			if (!isnan(get(t, y, i)))
				bad = i;
		check(bad < 0, "%s softmax_rows %s with +inf or NaN: y[%lld][%lld] = %g, want NaN", t->name,
		      variant, (long long)(bad / 9), (long long)(bad % 9), bad < 0 ? 0 : get(t, y, bad));

		put(t, x, 0, 1000), put(t, x, 1, 999), put(t, x, 2, 0), put(t, x, 3, -1000);
		run_softmax(t, simd, y, x, 1, 4);
		check(fabs(get(t, y, 0) - 0.7310585786) < 1e-6 && fabs(get(t, y, 1) - 0.2689414214) < 1e-6 &&
		      get(t, y, 2) == 0 && get(t, y, 3) == 0,
		      "%s softmax_rows %s of (1000, 999, 0, -1000) = (%g, %g, %g, %g), want (0.731, 0.269, 0, 0)",
		      t->name, variant, get(t, y, 0), get(t, y, 1), get(t, y, 2), get(t, y, 3));
	}
	free(x), free(y);
}

static void test_softmax(const struct dtype *t)
{
	char name[40];

	snprintf(name, sizeof name, "softmax_rows %s", t->name);
	group_begin(name, false);
	for (int ir = 0; ir < NSIZES; ir++)
		for (int ic = 0; ic < NSIZES; ic++)
			check_softmax(t, sizes[ir], sizes[ic]);
	check_softmax(t, 5, 300);
	check_softmax(t, 3, 1029);
	check_softmax_special_rows(t);
	group_end();
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
 * no key at all has an out row of zeros. */
static void expect_hidden_ignored(const struct dtype *t, const char *what, const char *variant,
				  const void *out, const void *w, const uint8_t *mask, bool causal,
				  int64_t tq, int64_t tk, int64_t dv)
{
	char why[128] = "";
	bool ok = true;

	for (int64_t i = 0; i < tq && ok; i++) {
		bool blind = true;
		for (int64_t j = 0; j < tk && ok; j++) {
			if (!is_hidden(mask, causal, i, j, tk)) {
				blind = false;
				continue;
			}
			if (w != NULL && get(t, w, i * tk + j) != 0) {
				ok = false;
				snprintf(why, sizeof why, "hidden key: weights[%lld][%lld] = %g", (long long)i,
					 (long long)j, get(t, w, i * tk + j));
			}
		}
		for (int64_t c = 0; c < dv && ok && blind; c++)
			if (get(t, out, i * dv + c) != 0) {
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

/* One attention head, q (tq,d), k (tk,d), v (tk,dv) uniform in [-1, 1],
 * scale 1/sqrt(d), the simd kernel called three ways:
 *   with weights: weights and out agree with the loops;
 *   fused (weights NULL after kernel_set_attention_small(0), so tiles and an
 *     online softmax at every size): out agrees with the loops;
 *   weights NULL as the program calls it: the same bits as with weights for
 *     a head of at most 4096 scores, as the fused call above that.
 * Hidden keys weigh exactly 0 and blind queries give zero rows in all. */
static void check_attention(const struct dtype *t, int64_t tq, int64_t tk, int64_t d, int64_t dv,
			    enum mask_kind kind)
{
	char what[128];
	void *q = buf_rand(t, tq * d, -1, 1), *k = buf_rand(t, tk * d, -1, 1), *v = buf_rand(t, tk * dv, -1, 1);
	void *out0 = buf_fill(t, tq * dv, 0), *w0 = buf_fill(t, tq * tk, 0);
	void *out1 = buf_fill(t, tq * dv, 9), *w1 = buf_fill(t, tq * tk, 9);
	void *fused = buf_fill(t, tq * dv, 9), *plain = buf_fill(t, tq * dv, 9);
	uint8_t *mask = make_mask(kind, tq, tk);
	bool causal = kind == MASK_CAUSAL || kind == MASK_BOTH;
	double scale = 1 / sqrt((double)d);

	snprintf(what, sizeof what, "attention tq=%lld tk=%lld d=%lld dv=%lld mask %s", (long long)tq,
		 (long long)tk, (long long)d, (long long)dv, mask_names[kind]);
	run_attention(t, false, out0, w0, q, k, v, mask, causal, scale, tq, tk, d, dv);
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
	free(q), free(k), free(v), free(out0), free(w0), free(out1), free(w1), free(fused), free(plain);
	free(mask);
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

static void test_attention(const struct dtype *t)
{
	static const int64_t small[] = { 1, 7, 33 };
	/* the fused kernel's tiles: 48 query rows, 64 keys, depth 128 at a time,
	 * values 64 columns at a time; shapes past each, tq != tk */
	static const int64_t past_tiles[][4] = {
		{ 130, 130, 200, 64 }, { 97, 200, 64, 130 }, { 200, 97, 3, 65 }, { 49, 65, 129, 1 },
		{ 130, 300, 17, 24 }, { 300, 130, 64, 64 },
	};
	char name[48];

	snprintf(name, sizeof name, "attention %s", t->name);
	group_begin(name, false);
	for (int kind = 0; kind < MASK_KINDS; kind++) {
		/* tq and tk over every pair of sizes (tq != tk included), d = dv
		 * over two sizes per pair, chosen so that every (tq, d) and
		 * every (tk, d) pair of sizes occurs too */
		for (int iq = 0; iq < NSIZES; iq++)
			for (int ik = 0; ik < NSIZES; ik++) {
				int64_t d1 = sizes[(iq + ik) % NSIZES], d2 = sizes[(iq + 2 * ik + 3) % NSIZES];
				check_attention(t, sizes[iq], sizes[ik], d1, d1, kind);
				check_attention(t, sizes[iq], sizes[ik], d2, d2, kind);
			}
		/* dv != d */
		for (int iq = 0; iq < 3; iq++)
			for (int ik = 0; ik < 3; ik++)
				for (int iv = 0; iv < NSIZES; iv++)
					check_attention(t, small[iq], small[ik], small[(iq + ik) % 3], sizes[iv], kind);
	}
	for (size_t s = 0; s < sizeof past_tiles / sizeof past_tiles[0]; s++) {
		check_attention(t, past_tiles[s][0], past_tiles[s][1], past_tiles[s][2], past_tiles[s][3],
				MASK_NONE);
		check_attention(t, past_tiles[s][0], past_tiles[s][1], past_tiles[s][2], past_tiles[s][3],
				MASK_BOTH);
	}
	check_attention_first_query(t);
	group_end();
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

static void test_attention_heads(const struct dtype *t)
{
	char name[48];

	snprintf(name, sizeof name, "attention_heads %s", t->name);
	group_begin(name, false);
	/* whole heads over threads (more than 2e7 flops), tiles of query rows
	 * over threads, small heads; every mask kind on one of each */
	check_attention_heads(t, 6, 150, 150, 40, 40, MASK_NONE, false);
	check_attention_heads(t, 6, 150, 150, 40, 40, MASK_BOTH, false);
	check_attention_heads(t, 3, 100, 130, 33, 17, MASK_CAUSAL, true);
	check_attention_heads(t, 3, 100, 130, 33, 17, MASK_RANDOM, true);
	check_attention_heads(t, 1, 300, 300, 64, 64, MASK_CAUSAL, true);
	for (int kind = 0; kind < MASK_KINDS; kind++)
		check_attention_heads(t, 5, 7, 7, 5, 3, kind, false);
	group_end();
}

/* ---- exp ------------------------------------------------------------------------------ */

/* The inputs whose results are special: exact ones first, then cases of
 * overflow, underflow and subnormal results checked in ulp like the rest. */
static void check_exp_specials(void)
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
		group_note((double)(u > ud ? u : ud));
		check(u <= EXP_MAX_ULP, "exp_f32_simd(%.9g) = %.9g, expf %.9g (%lld ulp)", xs[i], y[i],
		      expf(xs[i]), (long long)u);
		check(ud <= EXP_MAX_ULP, "exp_f64_simd(%.17g) = %.17g, exp %.17g (%lld ulp)", xd[i], yd[i],
		      exp(xd[i]), (long long)ud);
	}
	/* in place, and a length that is not a multiple of the vector width */
	exp_f32_simd(z, z, 5);
	for (int i = 0; i < 5; i++) {
		float x = (float)(i < 3 ? i : 2 - i);
		check(ulp_f32(z[i], expf(x)) <= EXP_MAX_ULP, "exp_f32_simd in place: exp(%g) = %.9g, expf %.9g",
		      x, z[i], expf(x));
	}
}

/* exp_f32_simd over the floats with bits lo, lo + step, ... below hi (both of
 * one sign), in batches; one check per sweep naming the worst input. */
static void check_exp_f32_sweep(const char *what, uint32_t lo, uint32_t hi, uint32_t step)
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
		exp_f32_simd(y, x, n);
		for (int i = 0; i < n; i++) {
			int64_t u = ulp_f32(y[i], expf(x[i]));
			if (u > worst)
				worst = u, worst_x = x[i], worst_y = y[i];
		}
		count += n;
	}
	group_note((double)worst);
	check(worst <= EXP_MAX_ULP, "exp_f32_simd over %s (%lld inputs): %lld ulp at x = %.9g (simd %.9g, expf %.9g)",
	      what, (long long)count, (long long)worst, worst_x, worst_y, expf(worst_x));
}

/* exp_f64_simd at rounds * 4096 random inputs in [lo, hi) */
static void check_exp_f64_random(const char *what, double lo, double hi, int rounds)
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
	group_note((double)worst);
	check(worst <= EXP_MAX_ULP, "exp_f64_simd over %s (%d inputs): %lld ulp at x = %.17g (simd %.17g, exp %.17g)",
	      what, rounds * BATCH, (long long)worst, worst_x, worst_y, exp(worst_x));
}

static void test_exp(void)
{
	group_begin("exp f32/f64 against libm", true);
	check_exp_specials();
	/* every 251st float of [0, 89) and of (-104, -0] (some 9 million), then
	 * at finer steps the subnormal results (-104, -87.34) and |x| in [0.5, 2) */
	check_exp_f32_sweep("[0, 89)", 0x00000000u, 0x42B20000u, 251);
	check_exp_f32_sweep("(-104, -0]", 0x80000000u, 0xC2D00000u, 251);
	check_exp_f32_sweep("(-104, -87.34) (subnormal results)", 0xC2AEAC50u, 0xC2D00000u, 3);
	check_exp_f32_sweep("[0.5, 2)", 0x3F000000u, 0x40000000u, 37);
	check_exp_f32_sweep("(-2, -0.5]", 0xBF000000u, 0xC0000000u, 37);
	check_exp_f64_random("[-746, 710)", -746, 710, 150);
	check_exp_f64_random("[-2, 2)", -2, 2, 150);
	check_exp_f64_random("[-745.2, -708.4) (subnormal results)", -745.2, -708.4, 50);
	group_end();
}

/* ---- one pass over every group ---------------------------------------------------------- */

static void test_dispatch(bool baseline)
{
	group_begin("dispatch", false);
#if defined(__x86_64__)
	if (baseline) {
		check(strcmp(path, "sse2") == 0, "kernel_simd_name() = %s with the baseline forced, want sse2",
		      path);
	} else {
		__builtin_cpu_init();
		const char *want = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ?
				   "avx2+fma" : "sse2";
		check(strcmp(path, want) == 0, "kernel_simd_name() = %s, want %s", path, want);
	}
#elif defined(__aarch64__)
	check(strcmp(path, "neon") == 0, "kernel_simd_name() = %s, want neon (baseline %d)", path, baseline);
#else
	check(path != NULL && path[0] != '\0', "kernel_simd_name() is empty (baseline %d)", baseline);
#endif
	group_end();
}

static void test_all(bool baseline)
{
	kernel_force_baseline(baseline);
	path = kernel_simd_name();
	test_dispatch(baseline);
	for (int i = 0; i < 2; i++) {
		test_matmul(dtypes[i]);
		test_softmax(dtypes[i]);
		test_attention(dtypes[i]);
		test_attention_heads(dtypes[i]);
	}
	test_exp();
	kernel_force_baseline(false);
}

int main(void)
{
	test_all(false);
#if defined(__x86_64__)
	/* the same checks on the SSE2 baseline that a CPU without AVX2 runs */
	test_all(true);
#endif
	if (failures > 0) {
		printf("kernel_cross: %ld of %ld checks FAILED\n", failures, checks);
		return 1;
	}
	printf("%ld checks passed\n", checks);
	return 0;
}
