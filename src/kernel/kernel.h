/* kernel.h: the numeric kernels, the bottom layer of qkv.
 * Every kernel works on plain arrays: outputs first, const inputs next, sizes
 * last; row-major and contiguous unless strides are passed. A kernel never
 * allocates, prints, or reads global state (but for the stop flag its caller
 * registered: kernel_ctl_use below), and includes nothing from core/.
 *
 * Matmul, softmax and the attention pipeline come as three variants:
 *   _loops     scalar for-loops written to be read (they mirror the
 *              "unravelled" attention of seed 003) and kept forever as the
 *              reference;
 *   _unrolled  the same loops, the inner one unrolled by KERNEL_UNROLL into
 *              independent accumulators merged at the end: the step every
 *              performance course teaches before vectorising (unrolled.c);
 *   _simd      vectorised (GCC/Clang vector extensions, AVX-512 or AVX2+FMA
 *              chosen at run time on x86-64, a 16-byte baseline everywhere).
 * They agree within 1e-5 relative (float32) and 1e-12 (float64). */
#ifndef QKV_KERNEL_H
#define QKV_KERNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kernel_variant { KERNEL_SIMD, KERNEL_LOOPS, KERNEL_UNROLLED };
#define KERNEL_VARIANTS 3

/* A variant's name on the command line ("simd", "loops", "unrolled"), and
 * back: the variant named by the len bytes at name, -1 for none. */
const char *kernel_variant_name(enum kernel_variant v);
int kernel_variant_named(const char *name, size_t len);

/* The unrolled kernels' accumulators: a sum over p runs as KERNEL_UNROLL
 * partial sums s0..s3 (s_r takes the terms p ≡ r mod KERNEL_UNROLL, the
 * remainder of p < k going to s0, s1, ... in order), merged as
 * (s0 + s1) + (s2 + s3). Every sum of length k: a matmul's c[i,j] over p,
 * an attention's scores over d and weighted sums over the keys, a softmax
 * row's sum of exponentials (and its maximum, four running maxima merged
 * alike, which gives the loops' maximum exactly). The matmul and the
 * weighted sums keep the partial sums of a block of columns side by side
 * (unrolled.c), which changes the order of memory reads, never of sums. */
#define KERNEL_UNROLL 4

/* ---- stopping early (Ctrl-C) and progress ---------------------------------
 * The thread that calls kernels may register a struct kernel_ctl for itself
 * (kernel_ctl_use: a thread-local pointer, so each thread has its own; the
 * interpreter makes its interrupt flag the stop flag while it runs
 * statements, lang/exec.c, and ui/job.c's worker registers one to read the
 * progress). Matmul, softmax and attention (loops, unrolled and
 * simd) then read *stop between tiles or blocks of rows, never per element,
 * and once it is nonzero return early, their output partial: the caller
 * asks kernel_stopped() after the call and throws the output away. The
 * worker threads of the *_simd kernels use their caller's ctl, so one flag
 * stops them all. As they go, the kernels add the work they have finished to
 * done (atomically), which another thread may read (kernel_ctl_progress) to
 * show progress; the units are a matmul's or an attention's multiply-adds
 * (m·k·n; tq·tk·(d+dv) per head, about half of it when fused and causal) and a
 * softmax's elements. Nothing else changes: the kernels still allocate and
 * print nothing and compute the same bits; reading a flag someone else sets
 * (a signal handler, another thread) is all they do besides.
 * The elementwise, reduction and movement kernels (bounded by the element
 * limit to a fraction of a second) do not look at it. */
struct kernel_ctl {
	const volatile sig_atomic_t *stop; /* NULL, or a flag: nonzero stops the kernels */
	int64_t done;                      /* units finished (kernel_progress_begin zeroes it) */
	int64_t total;                     /* units of the operation running, 0 if not known */
};
/* Makes ctl the calling thread's control (NULL: none, the default: nothing
 * stops the kernels); returns the one it replaces. ctl must outlive its use. */
struct kernel_ctl *kernel_ctl_use(struct kernel_ctl *ctl);
/* The calling thread's control, or NULL. */
struct kernel_ctl *kernel_ctl_get(void);
/* Whether the calling thread's stop flag is up: the kernels called since it
 * rose may have stopped early, their outputs partial. */
bool kernel_stopped(void);
/* The caller of the kernels starts an operation of total units: done = 0.
 * Without a ctl, nothing. */
void kernel_progress_begin(int64_t total);
/* done and total of ctl, read atomically (from any thread). */
void kernel_ctl_progress(const struct kernel_ctl *ctl, int64_t *done, int64_t *total);

/* ---- matmul ------------------------------------------------------------
 * c is (m,n), a is (m,k), b is (k,n); c = a·b, c is overwritten.
 * k == 0 gives zeros. c must not alias a or b. */
void matmul_f32_loops(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n);
void matmul_f32_simd(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n);
void matmul_f64_loops(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n);
void matmul_f64_simd(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n);
void matmul_f32_unrolled(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n);
void matmul_f64_unrolled(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n);

/* dot product of two length-n vectors read at strides sa, sb (in elements) */
float dot_f32(const float *a, int64_t sa, const float *b, int64_t sb, int64_t n);
double dot_f64(const double *a, int64_t sa, const double *b, int64_t sb, int64_t n);

/* ---- softmax -----------------------------------------------------------
 * dst and src are (rows, cols); softmax along each row: the row maximum is
 * subtracted before exp. A row whose entries are all -inf gives all NaN
 * (every exp is 0, and 0/0), as torch does. dst may equal src. */
void softmax_rows_f32_loops(float *dst, const float *src, int64_t rows, int64_t cols);
void softmax_rows_f32_simd(float *dst, const float *src, int64_t rows, int64_t cols);
void softmax_rows_f64_loops(double *dst, const double *src, int64_t rows, int64_t cols);
void softmax_rows_f64_simd(double *dst, const double *src, int64_t rows, int64_t cols);
void softmax_rows_f32_unrolled(float *dst, const float *src, int64_t rows, int64_t cols);
void softmax_rows_f64_unrolled(double *dst, const double *src, int64_t rows, int64_t cols);

/* ---- attention pipeline for one head ------------------------------------
 * out is (tq,dv), weights is (tq,tk), q is (tq,d), k is (tk,d), v is (tk,dv).
 * scores[i][j] = (q_i · k_j) * scale; masked when causal and j > i, or when
 * mask (NULL or (tq,tk) bytes) is nonzero at [i][j]: a masked score is -inf.
 * weights = softmax of the scores along j (an all-masked row gives NaN, and
 * so does its output row, as in torch; with tk == 0 the output is zeros);
 * out = weights · v. weights is both scratch and a result the caller reads.
 *
 * The _simd kernels may be given weights == NULL: they then never form the
 * (tq,tk) weights, but go through q and k in tiles with an online softmax
 * (a running maximum and sum per query) and skip tiles wholly in the causal
 * future; memory stays linear in tq and tk. Same special rows; a key hidden
 * from a query never reaches its output (the loops multiply its value by a
 * zero weight, which turns an infinite value into NaN). */
void attention_f32_loops(float *out, float *weights, const float *q, const float *k,
			 const float *v, const uint8_t *mask, bool causal, float scale,
			 int64_t tq, int64_t tk, int64_t d, int64_t dv);
void attention_f32_simd(float *out, float *weights, const float *q, const float *k,
			const float *v, const uint8_t *mask, bool causal, float scale,
			int64_t tq, int64_t tk, int64_t d, int64_t dv);
void attention_f64_loops(double *out, double *weights, const double *q, const double *k,
			 const double *v, const uint8_t *mask, bool causal, double scale,
			 int64_t tq, int64_t tk, int64_t d, int64_t dv);
void attention_f64_simd(double *out, double *weights, const double *q, const double *k,
			const double *v, const uint8_t *mask, bool causal, double scale,
			int64_t tq, int64_t tk, int64_t d, int64_t dv);
/* The loops' pipeline with unrolled dot products, max, sum and weighted sums
 * (weights never NULL). */
void attention_f32_unrolled(float *out, float *weights, const float *q, const float *k,
			    const float *v, const uint8_t *mask, bool causal, float scale,
			    int64_t tq, int64_t tk, int64_t d, int64_t dv);
void attention_f64_unrolled(double *out, double *weights, const double *q, const double *k,
			    const double *v, const uint8_t *mask, bool causal, double scale,
			    int64_t tq, int64_t tk, int64_t d, int64_t dv);

/* nbatch heads one after another: head h reads q + h·tq·d, k + h·tk·d,
 * v + h·tk·dv and mask + h·tq·tk (mask may be NULL), and writes out + h·tq·dv
 * and, unless weights is NULL (fused), weights + h·tq·tk. Large batches are
 * split over kernel_threads() threads; the result is the same bits as one
 * head at a time. */
void attention_heads_f32_simd(float *out, float *weights, const float *q, const float *k,
			      const float *v, const uint8_t *mask, bool causal, float scale,
			      int64_t nbatch, int64_t tq, int64_t tk, int64_t d, int64_t dv);
void attention_heads_f64_simd(double *out, double *weights, const double *q, const double *k,
			      const double *v, const uint8_t *mask, bool causal, double scale,
			      int64_t nbatch, int64_t tq, int64_t tk, int64_t d, int64_t dv);

/* The same fused attention on heads laid out anyhow, as in a (B, T, H, d)
 * projection read as (B, H, T, d) without copying it: element (b, h, i, c)
 * of q, k, v and out is at base + b·batch + h·head + i·row + c, with lay[0]
 * for q, lay[1] k, lay[2] v, lay[3] out (columns contiguous). nb·nh heads,
 * no mask, no weights: always the tiles and the online softmax. */
struct attn_layout {
	int64_t batch, head, row;
};
void attention_strided_f32_simd(float *out, const float *q, const float *k, const float *v, bool causal,
				float scale, int64_t nb, int64_t nh, int64_t tq, int64_t tk, int64_t d, int64_t dv,
				const struct attn_layout lay[4]);
void attention_strided_f64_simd(double *out, const double *q, const double *k, const double *v, bool causal,
				double scale, int64_t nb, int64_t nh, int64_t tq, int64_t tk, int64_t d, int64_t dv,
				const struct attn_layout lay[4]);

/* ---- elementwise with broadcasting -------------------------------------
 * out is contiguous with the given shape (ndim <= 4, ndim == 0 is one element);
 * a and b are read at element strides astr/bstr (0 on a broadcast axis).
 * EW_POW special-cases the exponents 0.5, 2, 3, -0.5, -1, -2 like torch. */
enum ew_op { EW_ADD, EW_SUB, EW_MUL, EW_DIV, EW_POW, EW_FLOORDIV, EW_MOD, EW_MAX, EW_MIN };
enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
void ew_binary_f32(float *out, const float *a, const int64_t *astr, const float *b,
		   const int64_t *bstr, const int64_t *shape, int ndim, enum ew_op op);
void ew_binary_f64(double *out, const double *a, const int64_t *astr, const double *b,
		   const int64_t *bstr, const int64_t *shape, int ndim, enum ew_op op);
/* int64, exact: + - * wrap as two's complement, // and % follow Python
 * (floor), ** by repeated squaring; a zero divisor or a negative exponent
 * gives 0 (the caller refuses them first). */
void ew_binary_i64(int64_t *out, const int64_t *a, const int64_t *astr, const int64_t *b,
		   const int64_t *bstr, const int64_t *shape, int ndim, enum ew_op op);
void ew_compare_i64(uint8_t *out, const int64_t *a, const int64_t *astr, const int64_t *b,
		    const int64_t *bstr, const int64_t *shape, int ndim, enum cmp_op op);
void ew_compare_f32(uint8_t *out, const float *a, const int64_t *astr, const float *b,
		    const int64_t *bstr, const int64_t *shape, int ndim, enum cmp_op op);
void ew_compare_f64(uint8_t *out, const double *a, const int64_t *astr, const double *b,
		    const int64_t *bstr, const int64_t *shape, int ndim, enum cmp_op op);

/* out and a are length n contiguous; out may equal a */
enum ew_unary { EW_NEG, EW_EXP, EW_SQRT, EW_ABS, EW_LOG, EW_TANH, EW_RELU, EW_SIN, EW_COS, EW_SIGMOID, EW_GELU,
		EW_GELU_LIBM, EW_GELU_TANH, EW_FLOOR, EW_CEIL, EW_TRUNC, EW_SIGN, EW_SIGN_NAN, EW_RSQRT, EW_LOG2,
		EW_LOG10, EW_LOG1P, EW_EXPM1, EW_EXP2, EW_ERF };
void ew_unary_f32(float *out, const float *a, int64_t n, enum ew_unary op);
void ew_unary_f64(double *out, const double *a, int64_t n, enum ew_unary op);

/* ---- data movement ------------------------------------------------------
 * out is contiguous with the given shape; in is read at element strides istr.
 * elsize is 1, 4 or 8 bytes. */
void copy_strided(void *out, const void *in, const int64_t *istr, const int64_t *shape,
		  int ndim, size_t elsize);
/* x is contiguous with the given shape; where mask (read at strides mstr) is
 * nonzero, x becomes value. */
void masked_fill_f32(float *x, const uint8_t *mask, const int64_t *mstr, const int64_t *shape,
		     int ndim, float value);
void masked_fill_f64(double *x, const uint8_t *mask, const int64_t *mstr, const int64_t *shape,
		     int ndim, double value);
/* x is (batch, rows, cols) of elsize-byte elements; zeroes the entries with
 * col - row > diagonal (upper == false: tril) or col - row < diagonal (triu). */
void tri_zero(void *x, size_t elsize, int64_t batch, int64_t rows, int64_t cols,
	      int64_t diagonal, bool upper);

/* ---- reductions ---------------------------------------------------------
 * in is (outer, n, inner) contiguous, out is (outer, inner): out = sum over n
 * in the element type, in PyTorch 1.13's cascade order (sum_dim) or in NumPy
 * 1.24's pairwise order (sum_dim_numpy), bit for bit: see sum_tmpl.h. */
void sum_dim_f32(float *out, const float *in, int64_t outer, int64_t n, int64_t inner);
void sum_dim_f64(double *out, const double *in, int64_t outer, int64_t n, int64_t inner);
/* pairwise: the axis summed is the array's innermost in memory (numpy's
 * order depends on it) */
void sum_dim_numpy_f32(float *out, const float *in, int64_t outer, int64_t n, int64_t inner, bool pairwise);
void sum_dim_numpy_f64(double *out, const double *in, int64_t outer, int64_t n, int64_t inner, bool pairwise);
void max_dim_f32(float *out, const float *in, int64_t outer, int64_t n, int64_t inner);
void max_dim_f64(double *out, const double *in, int64_t outer, int64_t n, int64_t inner);

/* ---- dropout --------------------------------------------------------------
 * out[i] = keep[i] ? in[i] * scale : 0, all length n (scale is 1/(1-p)). */
void dropout_f32(float *out, const float *in, const uint8_t *keep, int64_t n, float scale);
void dropout_f64(double *out, const double *in, const uint8_t *keep, int64_t n, double scale);

/* ---- SIMD facts for the UI and bench -------------------------------------
 * Names the SIMD path in use: the best this CPU has ("avx512", "avx2",
 * "sse2" on x86-64; "neon" on aarch64; "generic" elsewhere) or the forced
 * one; "scalar" is the loops kernels, libm's exp and a scalar online softmax
 * (no vector types at all). */
const char *kernel_simd_name(void);

/* Routes every *_simd kernel through the path of that name (as above); NULL
 * restores the run-time choice. Returns 0, -1 for a name no build has, -2
 * for a path this build or CPU lacks (nothing changes then). main.c sets it
 * from QKV_SIMD (and QKV_NO_SIMD=1); the tests use it to run every path. */
int kernel_force_simd(const char *name);

/* How one element type's SIMD matmul (matmul_f32_simd, matmul_f64_simd)
 * walks a product c = a·b, (m,k)·(k,n), from its own parameters:
 *   loops           the path runs kernel/loops.c's matmul (i, j, then p:
 *                   one multiply-add at a time; "scalar"); the rest is 0;
 *   lanes           elements in one vector register;
 *   tile_rows/cols  the micro-kernel's register tile of c (MR, NR): one
 *                   step (one p) broadcasts a[i, p] for tile_rows rows into
 *                   tile_cols / lanes vectors of b[p, j..];
 *   kc, mc, nc      the blocking, in GotoBLAS order: nc columns of b at a
 *                   time, of those kc of the depth (a pass: every cell adds
 *                   the pass's products, in order of p, to what it held),
 *                   then mc rows of a, then panels of tile_cols columns, then
 *                   tiles of tile_rows rows;
 *   tiny, tiny_cols a product with k <= kc and m·n <= tiny / k skips the
 *                   tiles: row by row, tiny_cols columns at a time (a[i, p]
 *                   broadcast against b[p, j..j+tiny_cols-1]; 1: one cell at
 *                   a time), p in order. */
struct kernel_gemm_shape {
	bool loops;
	int lanes;
	int tile_rows, tile_cols;
	int kc, mc, nc;
	int tiny, tiny_cols;
};

/* The shapes the SIMD path in use works in, from its own parameters, so the
 * views that picture it never hold a second copy:
 *   lanes           floats in one vector register (16 on AVX-512, 8 on
 *                   AVX2, 4 on SSE2 and NEON, 1 for "scalar");
 *   tile_rows/cols  the float32 matmul micro-kernel's register tile of c:
 *                   each step (one p) broadcasts a[i, p] for tile_rows rows
 *                   and multiply-adds it into tile_cols / lanes vectors of
 *                   b[p, j..]: tile_rows · tile_cols / lanes FMAs (6×16 on
 *                   AVX2, 6×32 on AVX-512);
 *   att_rows/keys   the fused attention's block of queries and of keys
 *                   (online softmax: a running max and sum per query,
 *                   rescaled per key block);
 *   softmax_lanes   lanes of the float32 row softmax in use (the AVX-512
 *                   path runs AVX2's, 8 lanes, for torch's sums: see
 *                   simd_avx512.c); softmax_lanes_f64 the float64 one's;
 *   gemm[2]         the matmul of float32 [0] and float64 [1], as above;
 *   att_gemm[2]     the two products of the per-head two-pass attention
 *                   (scores = q·kᵀ, tiles wholly in the causal future
 *                   skipped; out = weights·v): AVX-512 runs AVX2's; its row
 *                   softmax is the softmax_lanes one;
 *   att_loops       the two-pass attention is kernel/loops.c's (scalar);
 *   att_small       a head whose tq·tk is at most this runs the two-pass
 *                   kernel even when its weights are not wanted (the rest
 *                   run fused); kernel_set_attention_small moves it;
 *   att_dc, att_dvc the fused kernel's depth and value columns per pass (its
 *                   scores recomputed for each pass of value columns; 0:
 *                   the whole depth at once). */
struct kernel_tile {
	const char *path;
	int lanes;
	int tile_rows, tile_cols;
	int att_rows, att_keys;
	int softmax_lanes, softmax_lanes_f64;
	struct kernel_gemm_shape gemm[2];
	struct kernel_gemm_shape att_gemm[2];
	bool att_loops;
	int64_t att_small;
	int att_dc, att_dvc;
};
void kernel_simd_tile(struct kernel_tile *t);

/* The i-th path this CPU runs, best first ("scalar" last); NULL past them. */
const char *kernel_simd_path(int i);

/* on: kernel_force_simd("scalar"); off: kernel_force_simd(NULL). */
void kernel_force_scalar(bool on);

/* Threads for large matmul products and attention batches (the *_simd
 * ones, split into bands of rows or groups of query rows; the result is bit
 * for bit the one-thread result). n <= 0 means as
 * many as the CPUs online (the default), at most 64. The one place kernel/
 * starts threads; main.c sets it from QKV_THREADS. */
void kernel_set_threads(int n);
int kernel_threads(void);

/* Runs iters rounds of independent vector multiply-add chains on the SIMD
 * path chosen at run time and sets *flops to the operations done; the bench
 * times it to measure this CPU's peak. Returns the chains' sum (use it, so
 * the work is not optimised away). */
float kernel_fma_chains_f32(int64_t iters, float seed, double *flops);

/* ---- additions ------------------------------------------------------------ */

/* The most dimensions the strided kernels above (ew_*, copy_strided,
 * masked_fill) accept; ndim == 0 is a single element. */
#define KERNEL_MAX_DIMS 4

/* out and in are length n; out may equal in. The vectorised exp that the simd
 * softmax and attention use (Cephes-style, about 1 ulp): -inf gives 0, NaN
 * gives NaN, overflow gives +inf, underflow gives subnormals and then 0.
 * Exposed for the tests and the bench. */
void exp_f32_simd(float *out, const float *in, int64_t n);
void exp_f64_simd(double *out, const double *in, int64_t n);

/* out and in are length n; every in[i] <= 0, -inf or NaN. The 2^x of the
 * fused attention's online softmax (within 1 ulp of exp2f for x in [-125, 0];
 * below -125 and at -inf exactly 0; NaN gives NaN). Exposed for the tests. */
void exp2_softmax_f32_simd(float *out, const float *in, int64_t n);

/* Test hook: fused attention (weights NULL) still goes through the two-pass
 * softmax, with the weights on the stack, for a head of tq·tk <= 4096 (so
 * the notebooks' small heads round as before). elems lowers that bound (0:
 * every head fused, as the tests want); a negative value restores it. */
void kernel_set_attention_small(int64_t elems);

#endif
