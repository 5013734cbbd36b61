/* simd_base.c: the vectorised kernels of simd_impl.h at 16 bytes per vector:
 * SSE2 on x86-64, NEON on aarch64, generic vector code elsewhere.
 * Only dispatch.c reaches it, as the fallback and the forced baseline; built
 * with -ffp-contract=fast and no -march, so it runs on any CPU of the target. */
#if defined(__x86_64__) || defined(__SSE2__)
#define SIMD_NAME "sse2"
#elif defined(__aarch64__) || defined(__ARM_NEON)
#define SIMD_NAME "neon"
#else
#define SIMD_NAME "generic"	/* compiler vectors on another architecture */
#endif

#define SIMD_BYTES 16
#define SIMD_OPS simd_ops_base
#include "kernel/simd_impl.h"
