/* simd_avx512.c: the vectorised kernels of simd_impl.h for x86-64 with
 * AVX-512 (F, VL, DQ, BW) and FMA: 16 floats per vector, 32 registers;
 * built with those -m flags and -ffp-contract=fast. Only dispatch.c reaches
 * it, after checking the CPU; never call it directly. Its matmul sums in the
 * AVX2 one's order (same SIMD_KC, one FMA per product): the same bits.
 * On other architectures this file compiles to nothing. */
#if defined(__x86_64__)

#if !defined(__AVX512F__) || !defined(__AVX512VL__) || !defined(__AVX512DQ__) || !defined(__AVX512BW__) || \
	!defined(__FMA__)
#error "simd_avx512.c must be compiled with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mfma (see the Makefile)"
#endif

#define SIMD_BYTES 64
#define SIMD_NAME "avx512"
#define SIMD_OPS simd_ops_avx512
#include "kernel/simd_impl.h"

#else

typedef int simd_avx512_unused;   /* ISO C wants at least one declaration */

#endif
