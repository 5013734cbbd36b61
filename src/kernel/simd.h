/* simd.h: kernel-internal. One table of the vectorised kernels per instruction
 * set; simd_impl.h fills it once per set (simd_avx512.c, simd_avx2.c,
 * simd_base.c) and dispatch.c picks one at run time. Nothing outside src/kernel/ includes this. */
#ifndef QKV_KERNEL_SIMD_H
#define QKV_KERNEL_SIMD_H

#include "kernel/kernel.h"

#include <stdbool.h>
#include <stdint.h>

/* Row strides (elements) of one attention head's q, k, v and out. */
struct att_ld {
	int64_t q, k, v, out;
};

/* The item a thread of the fused attention computes next, for the present
 * one to fetch into the cache a few rows per tile behind its own work: q_rows
 * rows of q (from q), and keys k0 .. k1-1 of k and v (the rows the present
 * item does not read already), at ld's strides. The pointers are to the
 * element type's first element of each (float or double). */
struct att_next {
	const void *q, *k, *v;
	int64_t q_rows, k0, k1;
};

/* Same signatures and contracts as the *_simd functions of kernel.h. */
struct simd_ops {
	const char *name;
	void (*matmul_f32)(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n);
	void (*matmul_f64)(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n);
	void (*softmax_rows_f32)(float *dst, const float *src, int64_t rows, int64_t cols);
	void (*softmax_rows_f64)(double *dst, const double *src, int64_t rows, int64_t cols);
	void (*attention_f32)(float *out, float *weights, const float *q, const float *k,
			      const float *v, const uint8_t *mask, bool causal, float scale,
			      int64_t tq, int64_t tk, int64_t d, int64_t dv);
	void (*attention_f64)(double *out, double *weights, const double *q, const double *k,
			      const double *v, const uint8_t *mask, bool causal, double scale,
			      int64_t tq, int64_t tk, int64_t d, int64_t dv);
	/* fused attention, rows i0 .. i0+bq-1 (bq <= simd_ops.att_rows) of one
	 * head whose rows of q, k, v and out are ld's strides apart; next (may
	 * be NULL) what to fetch for the item after */
	void (*attention_rows_f32)(float *out, const float *q, const float *k, const float *v,
				   const uint8_t *mask, bool causal, float scale, int64_t i0, int64_t bq,
				   int64_t tk, int64_t d, int64_t dv, const struct att_ld *ld,
				   const struct att_next *next);
	void (*attention_rows_f64)(double *out, const double *q, const double *k, const double *v,
				   const uint8_t *mask, bool causal, double scale, int64_t i0, int64_t bq,
				   int64_t tk, int64_t d, int64_t dv, const struct att_ld *ld,
				   const struct att_next *next);
	int att_rows, att_keys;            /* the fused attention's blocks (float) */
	int att_dc, att_dvc;               /* its depth and value columns a pass (0: all the depth) */
	struct kernel_gemm_shape gemm_f32, gemm_f64;   /* how matmul_f32/f64 walk a product */
	void (*exp_f32)(float *out, const float *in, int64_t n);
	void (*exp_f64)(double *out, const double *in, int64_t n);
	float (*fma_chains_f32)(int64_t iters, float seed);
	int fma_lanes;
	/* the fused attention's 2^x (x <= 0), for the tests */
	void (*exp2_softmax_f32)(float *out, const float *in, int64_t n);
};

/* Scalar: the loops and libm (scalar.c), for QKV_SIMD=scalar (QKV_NO_SIMD=1). */
extern const struct simd_ops simd_ops_scalar;
/* Baseline: SSE2 on x86-64, NEON on aarch64, generic vectors elsewhere. */
extern const struct simd_ops simd_ops_base;
#if defined(__x86_64__)
/* AVX2 + FMA, and AVX-512: only valid after dispatch.c has checked the CPU. */
extern const struct simd_ops simd_ops_avx2;
extern const struct simd_ops simd_ops_avx512;
/* The AVX2 set's kernels whose sums run across 8 lanes, as torch's AVX2
 * kernels do: the AVX-512 table uses them (simd_impl.h, SIMD_LANE_SUMS). */
void simd_avx2_softmax_rows_f32(float *dst, const float *src, int64_t rows, int64_t cols);
void simd_avx2_softmax_rows_f64(double *dst, const double *src, int64_t rows, int64_t cols);
void simd_avx2_attention_f32(float *out, float *weights, const float *q, const float *k, const float *v,
			     const uint8_t *mask, bool causal, float scale, int64_t tq, int64_t tk, int64_t d,
			     int64_t dv);
void simd_avx2_attention_f64(double *out, double *weights, const double *q, const double *k, const double *v,
			     const uint8_t *mask, bool causal, double scale, int64_t tq, int64_t tk, int64_t d,
			     int64_t dv);
#endif

#endif
