/* simd_avx2.c: the vectorised kernels of simd_impl.h for x86-64 with AVX2+FMA
 * (8 floats per vector), built with -mavx2 -mfma -ffp-contract=fast.
 * Only dispatch.c reaches it, after checking the CPU; never call it directly.
 * On other architectures this file compiles to nothing. */
#if defined(__x86_64__)

#if !defined(__AVX2__) || !defined(__FMA__)
#error "simd_avx2.c must be compiled with -mavx2 -mfma (see the Makefile)"
#endif

#define SIMD_BYTES 32
#define SIMD_NAME "avx2"
#define SIMD_OPS simd_ops_avx2
#define SIMD_LANE_SUMS_EXPORT(name) simd_avx2_##name	/* for the AVX-512 table */
#include "kernel/simd_impl.h"

#else

typedef int simd_avx2_unused;   /* ISO C wants at least one declaration */

#endif
