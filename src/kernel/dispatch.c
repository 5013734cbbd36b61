/* dispatch.c: the public *_simd kernels; each picks the AVX2+FMA table when
 * the CPU has it (checked once) and the baseline table otherwise.
 * Called by everything that wants the fast path; the CPU check is the only
 * global state in kernel/, and nothing else here computes anything. */
#include "kernel/kernel.h"
#include "kernel/simd.h"

#include <pthread.h>
#include <unistd.h>

/* The table chosen for this CPU (NULL until the first call) and the test
 * hook's override. Written with atomics: racing first calls agree anyway. */
static const struct simd_ops *dispatch_best;
static bool dispatch_baseline_forced;

static const struct simd_ops *dispatch_detect(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return &simd_ops_avx2;
#endif
	return &simd_ops_base;
}

static const struct simd_ops *dispatch_ops(void)
{
	if (__atomic_load_n(&dispatch_baseline_forced, __ATOMIC_RELAXED))
		return &simd_ops_base;
	const struct simd_ops *ops = __atomic_load_n(&dispatch_best, __ATOMIC_ACQUIRE);
	if (ops == NULL) {
		ops = dispatch_detect();
		__atomic_store_n(&dispatch_best, ops, __ATOMIC_RELEASE);
	}
	return ops;
}

void kernel_force_baseline(bool on)
{
	__atomic_store_n(&dispatch_baseline_forced, on, __ATOMIC_RELAXED);
}

const char *kernel_simd_name(void)
{
	return dispatch_ops()->name;
}

/* ---- threads: a large product is split into bands of rows of c ---------------- */

#define THREADS_MAX 64

static int dispatch_threads;	/* 0: as many as the CPUs online */

void kernel_set_threads(int n)
{
	__atomic_store_n(&dispatch_threads, n < 0 ? 0 : n > THREADS_MAX ? THREADS_MAX : n, __ATOMIC_RELAXED);
}

int kernel_threads(void)
{
	int n = __atomic_load_n(&dispatch_threads, __ATOMIC_RELAXED);
	if (n > 0)
		return n;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > THREADS_MAX ? THREADS_MAX : (int)cpus;
}

struct band {
	const struct simd_ops *ops;
	bool f64;
	void *c;
	const void *a, *b;
	int64_t m, k, n;
};

static void *band_run(void *arg)
{
	struct band *j = arg;
	if (j->f64)
		j->ops->matmul_f64(j->c, j->a, j->b, j->m, j->k, j->n);
	else
		j->ops->matmul_f32(j->c, j->a, j->b, j->m, j->k, j->n);
	return NULL;
}

/* Each element of c is computed by the same instructions in the same order
 * whichever band holds its row, so threads change the time, never a bit of
 * the result. Small products stay on the calling thread; a thread that
 * cannot be started has its band done by the caller. */
static void matmul_banded(bool f64, void *c, const void *a, const void *b, int64_t m, int64_t k, int64_t n)
{
	struct band bands[THREADS_MAX];
	pthread_t tid[THREADS_MAX];
	bool started[THREADS_MAX] = { false };
	const struct simd_ops *ops = dispatch_ops();
	int nt = kernel_threads();
	size_t es = f64 ? sizeof(double) : sizeof(float);
	if (nt < 2 || 2.0 * (double)m * (double)k * (double)n < 2e7 || m < 12) {
		struct band one = { ops, f64, c, a, b, m, k, n };
		band_run(&one);
		return;
	}
	int64_t per = (m + nt - 1) / nt;
	per = (per + 5) / 6 * 6;	/* whole tiles of the micro-kernel's 6 rows */
	int used = 0;
	for (int64_t r0 = 0; r0 < m && used < nt; r0 += per, used++)
		bands[used] = (struct band){ ops, f64, (char *)c + (size_t)(r0 * n) * es,
					     (const char *)a + (size_t)(r0 * k) * es, b,
					     m - r0 < per ? m - r0 : per, k, n };
	for (int i = 1; i < used; i++)
		started[i] = pthread_create(&tid[i], NULL, band_run, &bands[i]) == 0;
	band_run(&bands[0]);
	for (int i = 1; i < used; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			band_run(&bands[i]);
	}
}

void matmul_f32_simd(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n)
{
	matmul_banded(false, c, a, b, m, k, n);
}

void matmul_f64_simd(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
	matmul_banded(true, c, a, b, m, k, n);
}

void softmax_rows_f32_simd(float *dst, const float *src, int64_t rows, int64_t cols)
{
	dispatch_ops()->softmax_rows_f32(dst, src, rows, cols);
}

void softmax_rows_f64_simd(double *dst, const double *src, int64_t rows, int64_t cols)
{
	dispatch_ops()->softmax_rows_f64(dst, src, rows, cols);
}

void attention_f32_simd(float *out, float *weights, const float *q, const float *k,
			const float *v, const uint8_t *mask, bool causal, float scale,
			int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	dispatch_ops()->attention_f32(out, weights, q, k, v, mask, causal, scale, tq, tk, d, dv);
}

void attention_f64_simd(double *out, double *weights, const double *q, const double *k,
			const double *v, const uint8_t *mask, bool causal, double scale,
			int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	dispatch_ops()->attention_f64(out, weights, q, k, v, mask, causal, scale, tq, tk, d, dv);
}

void exp_f32_simd(float *out, const float *in, int64_t n)
{
	dispatch_ops()->exp_f32(out, in, n);
}

void exp_f64_simd(double *out, const double *in, int64_t n)
{
	dispatch_ops()->exp_f64(out, in, n);
}

float kernel_fma_chains_f32(int64_t iters, float seed, double *flops)
{
	const struct simd_ops *ops = dispatch_ops();
	*flops = 2.0 * 12 * ops->fma_lanes * (double)iters;
	return ops->fma_chains_f32(iters, seed);
}
