/* simd_impl.h: the vectorised kernels, written once with GCC/Clang vector
 * extensions and compiled once per instruction set by simd_avx512.c,
 * simd_avx2.c and simd_base.c, each of which defines SIMD_BYTES, SIMD_NAME
 * and SIMD_OPS first.
 * Included nowhere else; no intrinsics, no -ffast-math assumptions. */
#ifndef SIMD_BYTES
#error "define SIMD_BYTES, SIMD_NAME and SIMD_OPS before including simd_impl.h"
#endif

#include "kernel/ctl.h"
#include "kernel/kernel.h"
#include "kernel/simd.h"

#include <math.h>
#include <string.h>

/* One register's worth of lanes: SIMD_BYTES is 64 for AVX-512, 32 for AVX2,
 * 16 otherwise. */
#if SIMD_BYTES != 64 && SIMD_BYTES != 32 && SIMD_BYTES != 16
#error "SIMD_BYTES must be 16, 32 or 64"
#endif
typedef float vf __attribute__((vector_size(SIMD_BYTES)));
typedef int32_t vi32 __attribute__((vector_size(SIMD_BYTES)));
typedef uint32_t vu32 __attribute__((vector_size(SIMD_BYTES)));	/* bits that wrap */
typedef double vd __attribute__((vector_size(SIMD_BYTES)));
typedef int64_t vi64 __attribute__((vector_size(SIMD_BYTES)));

#define VF_LANES (SIMD_BYTES / 4)
#define VD_LANES (SIMD_BYTES / 8)

/* ---- lane helpers -----------------------------------------------------------
 * Loads and stores go through memcpy: any alignment, no aliasing questions,
 * and the compiler turns them into single unaligned vector moves. A vector
 * comparison gives an integer vector of 0 / -1 per lane; C has no ?: for
 * vectors, so select is spelled with bit operations. */
static inline vf vf_load(const float *p)
{
	vf v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline void vf_store(float *p, vf v)
{
	memcpy(p, &v, sizeof v);
}

/* Every lane x; spelled as an initializer, which compilers turn into one
 * broadcast (a loop over the lanes became a chain of shuffles on SSE2). */
static inline vf vf_set1(float x)
{
#if SIMD_BYTES == 64
	return (vf){x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
#elif SIMD_BYTES == 32
	return (vf){x, x, x, x, x, x, x, x};
#else
	return (vf){x, x, x, x};
#endif
}

static inline vf vf_select(vi32 mask, vf yes, vf no)
{
	return (vf)((mask & (vi32)yes) | (~mask & (vi32)no));
}

static inline vd vd_load(const double *p)
{
	vd v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline void vd_store(double *p, vd v)
{
	memcpy(p, &v, sizeof v);
}

static inline vd vd_set1(double x)
{
#if SIMD_BYTES == 64
	return (vd){x, x, x, x, x, x, x, x};
#elif SIMD_BYTES == 32
	return (vd){x, x, x, x};
#else
	return (vd){x, x};
#endif
}

static inline vd vd_select(vi64 mask, vd yes, vd no)
{
	return (vd)((mask & (vi64)yes) | (~mask & (vi64)no));
}

/* x > y ? x : y lane by lane, so y where x is NaN (and y where they are
 * equal, -0 and +0 too): the x86 max instruction's own rule (its second
 * operand when either is NaN or both are zero), one instruction where the
 * compare and select are three in a chain (the fused attention's running
 * maxima). Elsewhere, the compare and select. */
#if defined(__SSE2__)
#include <immintrin.h>
#endif
static inline vf vf_max_skip_nan(vf x, vf y)
{
#if SIMD_BYTES == 64 && defined(__AVX512F__)
	return (vf)_mm512_max_ps((__m512)x, (__m512)y);
#elif SIMD_BYTES == 32 && defined(__AVX__)
	return (vf)_mm256_max_ps((__m256)x, (__m256)y);
#elif SIMD_BYTES == 16 && defined(__SSE2__)
	return (vf)_mm_max_ps((__m128)x, (__m128)y);
#else
	return vf_select((vi32)(x > y), x, y);
#endif
}

static inline vd vd_max_skip_nan(vd x, vd y)
{
#if SIMD_BYTES == 64 && defined(__AVX512F__)
	return (vd)_mm512_max_pd((__m512d)x, (__m512d)y);
#elif SIMD_BYTES == 32 && defined(__AVX__)
	return (vd)_mm256_max_pd((__m256d)x, (__m256d)y);
#elif SIMD_BYTES == 16 && defined(__SSE2__)
	return (vd)_mm_max_pd((__m128d)x, (__m128d)y);
#else
	return vd_select((vi64)(x > y), x, y);
#endif
}

/* ---- exp ------------------------------------------------------------------
 * Cephes-style: exp(x) = 2^n * exp(r) with n = round(x / ln2) and
 * r = x - n*ln2 in [-ln2/2, ln2/2]; ln2 is split in two constants so that
 * n*C1 is exact. exp(r) is Cephes' degree-6 polynomial (float) or a
 * degree-13 Taylor polynomial (double).
 * n is rounded by adding 1.5*2^23 (2^52): the sum's low mantissa bits are
 * then n itself, so no float-to-int conversion is needed. 2^n is built in
 * the exponent bits as 2^(n/2) * 2^(n - n/2), so that results just below
 * the overflow threshold and in the subnormal range are rounded once, like
 * libm. Above hi, x is clamped to hi (the result rounds to +inf); below lo
 * the result is set to 0 by a select rather than by underflowing, because an
 * underflowing multiply costs a microcode assist on x86 (2-3x slower, and
 * masked scores are all -inf). So -inf gives exactly 0, +inf gives +inf,
 * NaN gives NaN; only truly subnormal results take the slow multiply. */
static inline vf vf_exp(vf x)
{
	const vf lo = vf_set1(-104.0f);   /* exp(x < -104) < 2^-150: rounds to 0 */
	const vf hi = vf_set1(89.0f);     /* exp(89) > FLT_MAX: rounds to inf */
	const vf magic = vf_set1(12582912.0f);   /* 1.5 * 2^23 */
	vi32 nan = (vi32)(x != x);
	vi32 zero = (vi32)(x < lo);                   /* -inf too */
	vf xc = (vf)(~(nan | zero) & (vi32)x);        /* those lanes compute exp(0) */
	xc = vf_select((vi32)(xc < hi), xc, hi);      /* +inf -> hi */

	vf t = xc * 1.44269504088896341f + magic;
	vf n = t - magic;
	vi32 ni = (vi32)t - (vi32)magic;
	vf r = xc - n * 0.693359375f;
	r = r - n * -2.12194440e-4f;

	vf p = vf_set1(1.9875691500e-4f);
	p = p * r + 1.3981999507e-3f;
	p = p * r + 8.3334519073e-3f;
	p = p * r + 4.1665795894e-2f;
	p = p * r + 1.6666665459e-1f;
	p = p * r + 5.0000001201e-1f;
	vf y = p * (r * r) + r + 1.0f;

	vi32 n1 = ni >> 1;
	vi32 n2 = ni - n1;
	y = y * (vf)((n1 + 127) << 23) * (vf)((n2 + 127) << 23);
	y = (vf)(~zero & (vi32)y);
	return vf_select(nan, x, y);
}

static inline vd vd_exp(vd x)
{
	const vd lo = vd_set1(-746.0);    /* exp(x < -746) < 2^-1075: rounds to 0 */
	const vd hi = vd_set1(710.0);     /* exp(710) > DBL_MAX: rounds to inf */
	const vd magic = vd_set1(6755399441055744.0);   /* 1.5 * 2^52 */
	vi64 nan = (vi64)(x != x);
	vi64 zero = (vi64)(x < lo);
	vd xc = (vd)(~(nan | zero) & (vi64)x);
	xc = vd_select((vi64)(xc < hi), xc, hi);

	vd t = xc * 1.4426950408889634073599 + magic;
	vd n = t - magic;
	vi64 ni = (vi64)t - (vi64)magic;
	vd r = xc - n * 6.93145751953125e-1;
	r = r - n * 1.42860682030941723212e-6;

	/* exp(r) = 1 + (r + r^2 P(r)), P the Taylor series 1/2! + r/3! + ... +
	 * r^11/13! (truncation error below 0.05 ulp for |r| <= ln2/2). Adding 1
	 * last keeps the error near 1/2 ulp; Cephes' Pade form 1 + 2rP/(Q - rP)
	 * measured up to 2 ulp against libm. */
	vd p = vd_set1(1.0 / 6227020800.0);
	p = p * r + 1.0 / 479001600.0;
	p = p * r + 1.0 / 39916800.0;
	p = p * r + 1.0 / 3628800.0;
	p = p * r + 1.0 / 362880.0;
	p = p * r + 1.0 / 40320.0;
	p = p * r + 1.0 / 5040.0;
	p = p * r + 1.0 / 720.0;
	p = p * r + 1.0 / 120.0;
	p = p * r + 1.0 / 24.0;
	p = p * r + 1.0 / 6.0;
	p = p * r + 0.5;
	vd y = 1.0 + (p * (r * r) + r);

	vi64 n1 = ni >> 1;
	vi64 n2 = ni - n1;
	y = y * (vd)((n1 + 1023) << 52) * (vd)((n2 + 1023) << 52);
	y = (vd)(~zero & (vi64)y);
	return vd_select(nan, x, y);
}

#if SIMD_BYTES >= 32
/* dst[p*ldd + r] = c·src[r*lds + p] for r, p < 8: an 8x8 block of floats
 * transposed in registers (unpack, then shuffles of pairs and of halves) for
 * the fused attention's packing of qᵀ, where 64 single loads and stores a
 * block measured some 6% of its time on AVX2 (8% on AVX-512). 8 floats a
 * vector on AVX-512 too: its 16-wide shuffles would need 16 rows of q. */
typedef float vf8 __attribute__((vector_size(32)));

static inline void vf_transpose8_scaled(float *dst, int64_t ldd, const float *src, int64_t lds, float c)
{
	vf8 vc = { c, c, c, c, c, c, c, c }, r[8], t[8], u[8];
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++) {
		memcpy(&r[i], src + i * lds, sizeof r[i]);
		r[i] *= vc;
	}
#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 2) {
		t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
		t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 4) {
		u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
		u[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
		u[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
		u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 4; i++) {
		vf8 lo = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
		vf8 hi = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
		memcpy(dst + i * ldd, &lo, sizeof lo);
		memcpy(dst + (i + 4) * ldd, &hi, sizeof hi);
	}
}
#endif

/* ---- 2^x for the online softmax -----------------------------------------------
 * The fused attention works in base 2 (q is packed times scale·log2(e), so
 * a score s' is s·log2(e) and exp(s - max) is 2^(s' - max')). Its argument
 * is <= 0, -inf for a masked score, or NaN, so there is no overflow path:
 * n = round(x) by the 1.5·2^23 addition (its low bits are then n), f = x - n
 * exactly, in [-1/2, 1/2], and 2^f a degree-6 polynomial (fitted for
 * relative error, 1 exactly at 0: 0.93 ulp in float arithmetic), times 2^n
 * by adding n to its exponent bits (an integer add, not a multiply: the
 * multiply-add units are the attention's busiest). Below -125 the result
 * (under 2^-125, where the add would leave the normal range and libm rounds
 * towards the subnormals) is flushed to 0 by one and-not, which also sends
 * -inf to exactly 0; a NaN goes through the polynomial as NaN. Against
 * libm's exp2f over [-125, 0]: within 1 ulp (tests/kernel/checks.c). About
 * half the instructions of vf_exp, which must handle every x. vd_exp2_neg is
 * vd_exp(x·ln 2): float64 attention is not the fast case. */
static inline vf vf_exp2_neg(vf x)
{
	const vf magic = vf_set1(12582912.0f);   /* 1.5 * 2^23 */
	vi32 zero = (vi32)(x < -125.0f);              /* -inf too */
	vf t = x + magic;
	vf f = x - (t - magic);
	vf p = vf_set1(1.5353361959569156e-4f);
	p = p * f + 1.3398875016719103e-3f;
	p = p * f + 9.6184369176626205e-3f;
	p = p * f + 5.5503323674201965e-2f;
	p = p * f + 2.4022647738456726e-1f;
	p = p * f + 6.9314718246459961e-1f;
	vf y = p * f + 1.0f;
	/* times 2^n: t's low bits are n (magic's are 0), added to y's exponent
	 * (unsigned: a negative n wraps, as the sum must) */
	return (vf)(~zero & (vi32)((vu32)y + ((vu32)t << 23)));
}

static inline vd vd_exp2_neg(vd x)
{
	return vd_exp(x * 0.6931471805599453094);
}

/* ---- matmul blocking ----------------------------------------------------------
 * The micro-kernel computes SIMD_MR rows by 2 vectors of columns of c, held
 * in 12 named vector accumulators (12 of the 16 AVX2 or SSE2 registers; an
 * array of accumulators could end up on the stack), with one broadcast of a
 * and two vectors of b per step. SIMD_MR is fixed by its code (rows a0..a5).
 * SIMD_KC is the depth of one pass, SIMD_MC the rows of a run against one
 * packed block of b and SIMD_BPACK that block's bytes (SIMD_NC columns,
 * simd_tmpl.h): the (KC, NC) block of b is packed once and stays in L2, the
 * (MC, KC) block of a is read in place (144 KB of floats: it stays in L2
 * too) and each panel of NR columns of b, (KC, NR) (24 KB), is read from L1
 * by the micro-kernel running down the block of a. b's block is on the stack.
 * Measured on 5120x768 times 768x2304, one Zen 4 core (thread CPU time, best
 * of 5, interleaved): KC 384 with MC 96 gave 91-93 GFLOP/s when b's panels
 * were packed again for every block of rows; packed once per (KC, NC) block
 * and a packed too, 97-104 (BPACK 1-4 MB; 256 KB: 81-86, a packed too often);
 * a read in place, 106-109 with BPACK 256 KB to 2 MB (5120x768x768: 103-106,
 * against 92-93 before). MC 48 or 192: no better. */
#define SIMD_MR 6
#ifndef SIMD_KC
#define SIMD_KC 384
#endif
#ifndef SIMD_MC
#define SIMD_MC 96
#endif
#ifndef SIMD_BPACK
#define SIMD_BPACK (512 * 1024)
#endif


/* ---- the kernels, once per element type -------------------------------------
 * simd_tmpl.h is written against T (element), V (vector), VI (comparison
 * result), LANES and SUF (name suffix); the V-prefixed helpers above are
 * reached through VFN(name). */
#define SIMD_CAT_(a, b) a##b
#define SIMD_CAT(a, b) SIMD_CAT_(a, b)
#define TFN(name) SIMD_CAT(simd_##name##_, SUF)
#define VFN(name) SIMD_CAT(V, _##name)

/* The matmul's multiply-accumulate. float32 lets the compiler fuse it into
 * one FMA (fast, and how BLAS sgemm rounds, as torch's outputs show).
 * float64 rounds the product and the sum separately, so the SIMD matmul
 * equals the loops one bit for bit and, on the notebooks' small products,
 * numpy's: an empty asm statement keeps the product p (a vector or one
 * double) from being fused. */
#if defined(QKV_AVX512_ON_AVX2)	/* (simd_avx512.c's checks build: no register holds 64 bytes) */
#define KEEP_PRODUCT(T, p) do { volatile T keep_ = (p); (p) = keep_; } while (0)
#elif defined(__x86_64__) || defined(__i386__)
#define KEEP_PRODUCT(T, p) __asm__("" : "+x"(p))
#elif defined(__aarch64__)
#define KEEP_PRODUCT(T, p) __asm__("" : "+w"(p))
#else
#define KEEP_PRODUCT(T, p) do { volatile T keep_ = (p); (p) = keep_; } while (0)
#endif

static inline vd vd_mul_add_exact(vd acc, vd x, vd b)
{
	vd p = x * b;
	KEEP_PRODUCT(vd, p);
	return acc + p;
}

/* The same multiply-add on one element (the tiny products), rounding as
 * the vector one does: the float one is written as MAC is, so the compiler
 * fuses both or neither (-ffp-contract=fast fuses them where the set has
 * FMA and the optimiser runs its contraction: -O2, not the sanitizers'
 * -O1), the double one never. */
static inline double sd_mul_add_exact(double acc, double x, double b)
{
	double p = x * b;
	KEEP_PRODUCT(double, p);
	return acc + p;
}

#ifdef SIMD_LANE_SUMS	/* this set's softmax and two-pass attention: compiled, not used */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#define T float
#define V vf
#define VI vi32
#define LANES VF_LANES
#define SUF f32
#define MAC(acc, x, b) ((acc) += (x) * (b))
#define SMAC(acc, x, b) ((acc) += (x) * (b))
typedef float vf4_tiny __attribute__((vector_size(16)));
#define TINY_V4 vf4_tiny	/* tiny products 4 columns at a time: SMAC's bits, x broadcast */
#include "kernel/simd_tmpl.h"
#undef TINY_V4
#undef MAC
#undef SMAC
#undef T
#undef V
#undef VI
#undef LANES
#undef SUF

#define T double
#define V vd
#define VI vi64
#define LANES VD_LANES
#define SUF f64
#define MAC(acc, x, b) ((acc) = vd_mul_add_exact((acc), (x), (b)))
#define SMAC(acc, x, b) ((acc) = sd_mul_add_exact((acc), (x), (b)))
#include "kernel/simd_tmpl.h"
#undef MAC
#undef SMAC
#undef T
#undef V
#undef VI
#undef LANES
#undef SUF

/* iters rounds of 12 independent chains of vector multiply-adds (fused
 * where the instruction set has FMA): what the bench calls peak. The
 * chains decay towards 1e-7/(1-0.999999), so they never overflow. */
static float simd_fma_chains_f32(int64_t iters, float seed)
{
	vf m = vf_set1(0.999999f), c = vf_set1(1e-7f);
	vf a[12];
	for (int j = 0; j < 12; j++)
		a[j] = vf_set1(seed + (float)j);
	for (int64_t i = 0; i < iters; i++) {
		a[0] = a[0] * m + c;
		a[1] = a[1] * m + c;
		a[2] = a[2] * m + c;
		a[3] = a[3] * m + c;
		a[4] = a[4] * m + c;
		a[5] = a[5] * m + c;
		a[6] = a[6] * m + c;
		a[7] = a[7] * m + c;
		a[8] = a[8] * m + c;
		a[9] = a[9] * m + c;
		a[10] = a[10] * m + c;
		a[11] = a[11] * m + c;
	}
	float sum = 0;
	for (int j = 0; j < 12; j++)
		for (size_t l = 0; l < sizeof(vf) / sizeof(float); l++)
			sum += a[j][l];
	return sum;
}

/* out and in are (n); every in[i] <= 0, -inf or NaN: the fused attention's
 * 2^x over an array, for the tests. */
static void simd_exp2_softmax_f32(float *out, const float *in, int64_t n)
{
	int64_t j = 0;
	for (; j + VF_LANES <= n; j += VF_LANES)
		vf_store(out + j, vf_exp2_neg(vf_load(in + j)));
	if (j < n) {
		vf xv = {0};
		memcpy(&xv, in + j, (size_t)(n - j) * sizeof(float));
		vf e = vf_exp2_neg(xv);
		memcpy(out + j, &e, (size_t)(n - j) * sizeof(float));
	}
}

/* The kernels whose sums run across the vector lanes (a softmax row's sum;
 * the two-pass attention's, through it) round by the lane count. torch's
 * AVX2 kernels sum 8 lanes, so the AVX2 set exports its own for the
 * AVX-512 table (simd_avx512.c sets SIMD_LANE_SUMS to take them). */
#ifdef SIMD_LANE_SUMS_EXPORT
void SIMD_LANE_SUMS_EXPORT(softmax_rows_f32)(float *dst, const float *src, int64_t rows, int64_t cols)
{
	simd_softmax_rows_f32(dst, src, rows, cols);
}

void SIMD_LANE_SUMS_EXPORT(softmax_rows_f64)(double *dst, const double *src, int64_t rows, int64_t cols)
{
	simd_softmax_rows_f64(dst, src, rows, cols);
}

void SIMD_LANE_SUMS_EXPORT(attention_f32)(float *out, float *weights, const float *q, const float *k,
					   const float *v, const uint8_t *mask, bool causal, float scale, int64_t tq,
					   int64_t tk, int64_t d, int64_t dv)
{
	simd_attention_f32(out, weights, q, k, v, mask, causal, scale, tq, tk, d, dv);
}

void SIMD_LANE_SUMS_EXPORT(attention_f64)(double *out, double *weights, const double *q, const double *k,
					   const double *v, const uint8_t *mask, bool causal, double scale, int64_t tq,
					   int64_t tk, int64_t d, int64_t dv)
{
	simd_attention_f64(out, weights, q, k, v, mask, causal, scale, tq, tk, d, dv);
}
#endif
#ifndef SIMD_LANE_SUMS
#define SIMD_LANE_SUMS(name) simd_##name
#endif

const struct simd_ops SIMD_OPS = {
	.name = SIMD_NAME,
	.matmul_f32 = simd_matmul_f32,
	.matmul_f64 = simd_matmul_f64,
	.softmax_rows_f32 = SIMD_LANE_SUMS(softmax_rows_f32),
	.softmax_rows_f64 = SIMD_LANE_SUMS(softmax_rows_f64),
	.attention_f32 = SIMD_LANE_SUMS(attention_f32),
	.attention_f64 = SIMD_LANE_SUMS(attention_f64),
	.attention_rows_f32 = simd_attention_rows_f32,
	.attention_rows_f64 = simd_attention_rows_f64,
	.att_rows = ATT_BQ,
	.att_keys = simd_att_keys_f32,
	.att_dc = simd_att_dc_f32,
	.att_dvc = simd_att_dvc_f32,
	.gemm_f32 = { false, VF_LANES, SIMD_MR, simd_tile_cols_f32, SIMD_KC, SIMD_MC, simd_nc_f32, SIMD_TINY,
		      simd_tiny_cols_f32 },
	.gemm_f64 = { false, VD_LANES, SIMD_MR, simd_tile_cols_f64, SIMD_KC, SIMD_MC, simd_nc_f64, SIMD_TINY,
		      simd_tiny_cols_f64 },
	.exp_f32 = simd_exp_f32,
	.exp_f64 = simd_exp_f64,
	.fma_chains_f32 = simd_fma_chains_f32,
	.fma_lanes = SIMD_BYTES / 4,
	.exp2_softmax_f32 = simd_exp2_softmax_f32,
};
