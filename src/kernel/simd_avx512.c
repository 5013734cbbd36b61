/* simd_avx512.c: the vectorised kernels of simd_impl.h for x86-64 with
 * AVX-512 (F, VL, DQ, BW) and FMA: 16 floats per vector, 32 registers;
 * built with those -m flags and -ffp-contract=fast. Only dispatch.c reaches
 * it, after checking the CPU; never call it directly. Its matmul sums in the
 * AVX2 one's order (same SIMD_KC, one FMA per product): the same bits.
 * On other architectures this file compiles to nothing.
 *
 * Its table takes the softmax and the two-pass attention from the AVX2 set
 * (SIMD_LANE_SUMS): a softmax row's sum runs across the vector's lanes, and
 * 8 lanes round as torch 1.13's AVX2 kernels do (which torch picks on this
 * machine; lesson 04 prints the difference), 16 would not. Every other
 * entry is its own: on this machine (an AMD EPYC with full-width AVX-512;
 * thread CPU time, best of 4-8, interleaved with QKV_SIMD=avx2, one thread)
 * each kernel measured faster than AVX2's:
 *   multiply-add peak      105 -> 200-207 GFLOP/s
 *   matmul 5120x768x2304   100 -> 176-190 GFLOP/s (same bits)
 *   matmul 5120x768x768    101 -> 182-197 GFLOP/s (same bits)
 *   attention causal, 30 heads of 512x64, fused   17.1 -> 12.6 ms (same bits)
 *   attention full, same                          32.8 -> 21.6 ms (same bits)
 *   attention one head of 4096x64, fused          57 -> 33 ms
 *   2000 heads of 60x60 (two-pass softmax)        32.2 -> 29.2 ms (not used)
 *   softmax_rows 8192x512                         4.0 -> 3.3 ms (not used)
 *   exp of 4 Mi floats                            2.29 -> 1.59 ms
 * A 12-row micro-kernel (24 of the 32 registers) measured no faster than
 * the 6-row one (176-182 against 180-196 GFLOP/s), so SIMD_MR stays 6. */
#if defined(__x86_64__)

/* QKV_AVX512_ON_AVX2 (make test-cross's build/wide, never ./qkv): the same
 * code built with -mavx2 -mfma, so that the kernel checks run this path's
 * 16-lane blocking and tails, and compare its bits with AVX2's, on a CPU
 * without AVX-512. GCC splits each 16-lane operation into two of 8 lanes,
 * still one FMA per product: the same sums in the same order, other
 * instructions (dispatch.c then asks the CPU for AVX2 and FMA). */
#if defined(QKV_AVX512_ON_AVX2)
#if !defined(__AVX2__) || !defined(__FMA__) || defined(__AVX512F__)
#error "QKV_AVX512_ON_AVX2 builds simd_avx512.c with -mavx2 -mfma and no AVX-512 flag (see the Makefile)"
#endif
#elif !defined(__AVX512F__) || !defined(__AVX512VL__) || !defined(__AVX512DQ__) || !defined(__AVX512BW__) || \
	!defined(__FMA__)
#error "simd_avx512.c must be compiled with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mfma (see the Makefile)"
#endif

#define SIMD_BYTES 64
#define SIMD_NAME "avx512"
#define SIMD_OPS simd_ops_avx512
#define SIMD_LANE_SUMS(name) simd_avx2_##name	/* 8 lanes' sums, as torch's */
#include "kernel/simd_impl.h"

#else

typedef int simd_avx512_unused;   /* ISO C wants at least one declaration */

#endif
