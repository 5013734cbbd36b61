/* dispatch.c: the public *_simd kernels; each picks the best table this CPU
 * runs (AVX-512, else AVX2+FMA, else the baseline; checked once), or the one
 * QKV_SIMD / kernel_force_simd forced. Called by everything that wants the
 * fast path; the CPU check and the forced path are the only global state in
 * kernel/, and nothing else here computes anything. */
#include "kernel/ctl.h"
#include "kernel/kernel.h"
#include "kernel/simd.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* Every table this build has, best first, each named by kernel_simd_name(). */
static const struct simd_ops *const dispatch_tables[] = {
#if defined(__x86_64__)
	&simd_ops_avx512,
	&simd_ops_avx2,
#endif
	&simd_ops_base,
	&simd_ops_scalar,
};
#define DISPATCH_NTABLES (int)(sizeof dispatch_tables / sizeof dispatch_tables[0])

/* Whether this CPU runs ops's instructions. */
static bool dispatch_cpu_has(const struct simd_ops *ops)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (ops == &simd_ops_avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("fma");
	if (ops == &simd_ops_avx2)
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
	(void)ops;
	return true;
}

/* The table chosen for this CPU (NULL until the first call) and the forced
 * one (NULL: none). Written with atomics: racing first calls agree anyway. */
static const struct simd_ops *dispatch_best;
static const struct simd_ops *dispatch_forced;

static const struct simd_ops *dispatch_ops(void)
{
	const struct simd_ops *ops = __atomic_load_n(&dispatch_forced, __ATOMIC_ACQUIRE);
	if (ops != NULL)
		return ops;
	ops = __atomic_load_n(&dispatch_best, __ATOMIC_ACQUIRE);
	if (ops == NULL) {
		for (int i = 0; i < DISPATCH_NTABLES && ops == NULL; i++)
			if (dispatch_cpu_has(dispatch_tables[i]))
				ops = dispatch_tables[i];
		__atomic_store_n(&dispatch_best, ops, __ATOMIC_RELEASE);
	}
	return ops;
}

int kernel_force_simd(const char *name)
{
	static const char *const known[] = { "avx512", "avx2", "sse2", "neon", "generic", "scalar" };
	if (name == NULL) {
		__atomic_store_n(&dispatch_forced, NULL, __ATOMIC_RELEASE);
		return 0;
	}
	for (int i = 0; i < DISPATCH_NTABLES; i++)
		if (strcmp(dispatch_tables[i]->name, name) == 0) {
			if (!dispatch_cpu_has(dispatch_tables[i]))
				return -2;
			__atomic_store_n(&dispatch_forced, dispatch_tables[i], __ATOMIC_RELEASE);
			return 0;
		}
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i], name) == 0)
			return -2;	/* another architecture's */
	return -1;
}

void kernel_force_scalar(bool on)
{
	kernel_force_simd(on ? "scalar" : NULL);
}

const char *kernel_simd_path(int i)
{
	for (int t = 0; t < DISPATCH_NTABLES; t++)
		if (dispatch_cpu_has(dispatch_tables[t]) && i-- == 0)
			return dispatch_tables[t]->name;
	return NULL;
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

/* Runs job(arg, t, nt) for t = 0 .. nt-1, part 0 on the calling thread and
 * the others on threads of their own; a thread that cannot be started has
 * its part done by the caller. Returns when every part is done. Each part
 * runs under the caller's kernel_ctl: one Ctrl-C stops them all. */
struct part {
	void (*job)(void *arg, int t, int nt);
	void *arg;
	int t, nt;
	struct kernel_ctl *ctl;
};

static void *part_run(void *p)
{
	struct part *j = p;
	struct kernel_ctl *was = kernel_ctl_use(j->ctl);
	j->job(j->arg, j->t, j->nt);
	kernel_ctl_use(was);
	return NULL;
}

static void run_parts(int nt, void (*job)(void *arg, int t, int nt), void *arg)
{
	struct part parts[THREADS_MAX];
	pthread_t tid[THREADS_MAX];
	bool started[THREADS_MAX] = { false };
	for (int t = 0; t < nt; t++)
		parts[t] = (struct part){ job, arg, t, nt, kernel_ctl_now };
	for (int t = 1; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, part_run, &parts[t]) == 0;
	part_run(&parts[0]);
	for (int t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			part_run(&parts[t]);
	}
}

/* Threads worth starting for work of this many flops: below 2e7 (a fraction
 * of a millisecond) starting a thread costs more than it saves. */
static int threads_for(double flops)
{
	int nt = kernel_threads();
	return flops < 2e7 ? 1 : nt;
}

/* ---- matmul: bands of rows of c ------------------------------------------- */

struct matmul_job {
	const struct simd_ops *ops;
	bool f64;
	void *c;
	const void *a, *b;
	int64_t m, k, n, per;
};

static void matmul_part(void *arg, int t, int nt)
{
	(void)nt;
	struct matmul_job *j = arg;
	int64_t r0 = t * j->per, rows = j->m - r0 < j->per ? j->m - r0 : j->per;
	if (rows <= 0)
		return;
	if (j->f64)
		j->ops->matmul_f64((double *)j->c + r0 * j->n, (const double *)j->a + r0 * j->k, j->b, rows, j->k,
				   j->n);
	else
		j->ops->matmul_f32((float *)j->c + r0 * j->n, (const float *)j->a + r0 * j->k, j->b, rows, j->k,
				   j->n);
}

/* Each element of c is computed by the same instructions in the same order
 * whichever band holds its row, so threads change the time, never a bit of
 * the result. Small products stay on the calling thread. */
static void matmul_banded(bool f64, void *c, const void *a, const void *b, int64_t m, int64_t k, int64_t n)
{
	struct matmul_job j = { dispatch_ops(), f64, c, a, b, m, k, n, m };
	int nt = threads_for(2.0 * (double)m * (double)k * (double)n);
	if (nt > 1 && m >= 12) {
		j.per = (m + nt - 1) / nt;
		j.per = (j.per + 5) / 6 * 6;	/* whole tiles of the micro-kernel's 6 rows */
		nt = (int)((m + j.per - 1) / j.per);
	} else {
		nt = 1;
	}
	run_parts(nt, matmul_part, &j);
}

void matmul_f32_simd(float *c, const float *a, const float *b, int64_t m, int64_t k, int64_t n)
{
	matmul_banded(false, c, a, b, m, k, n);
}

void matmul_f64_simd(double *c, const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
	matmul_banded(true, c, a, b, m, k, n);
}

/* ---- attention: heads, or groups of a head's query rows --------------------
 * Fused (weights NULL), the work is cut into items of att_rows query rows of
 * one head; thread t takes items t, t+nt, t+2nt, ..., which spreads the
 * causal triangle's short and long rows evenly. With weights, each item is a
 * whole head through the per-head kernel; so it is for a small head
 * (tq·tk <= ATT_SMALL) even without weights, with the weights on the stack:
 * the notebooks' heads then round exactly as the two-pass softmax does. */
#define ATT_SMALL 4096
static int64_t att_small = ATT_SMALL;	/* the test hook may lower it */

void kernel_set_attention_small(int64_t elems)
{
	__atomic_store_n(&att_small, elems < 0 || elems > ATT_SMALL ? ATT_SMALL : elems, __ATOMIC_RELAXED);
}

struct attention_job {
	const struct simd_ops *ops;
	bool f64, causal, contiguous;	/* contiguous: heads one after another */
	void *out, *weights;
	const void *q, *k, *v;
	const uint8_t *mask;
	double scale;
	int64_t nb, nh, tq, tk, d, dv, per_head;	/* per_head: items in one head */
	struct attn_layout lay[4];	/* q, k, v, out */
};

/* Where head (b, h) of layout l starts, in elements. */
static int64_t head_at(const struct attn_layout *l, int64_t b, int64_t h)
{
	return b * l->batch + h * l->head;
}

static void attention_part(void *arg, int t, int nt)
{
	struct attention_job *j = arg;
	size_t es = j->f64 ? sizeof(double) : sizeof(float);
	int64_t rows = j->ops->att_rows;
	const struct att_ld ld = { j->lay[0].row, j->lay[1].row, j->lay[2].row, j->lay[3].row };
	for (int64_t it = t; it < j->nb * j->nh * j->per_head; it += nt) {
		if (ctl_stop())
			return;
		int64_t hh = it / j->per_head, b = hh / j->nh, h = hh % j->nh, i0 = (it % j->per_head) * rows;
		const char *q = (const char *)j->q + (size_t)head_at(&j->lay[0], b, h) * es;
		const char *k = (const char *)j->k + (size_t)head_at(&j->lay[1], b, h) * es;
		const char *v = (const char *)j->v + (size_t)head_at(&j->lay[2], b, h) * es;
		char *out = (char *)j->out + (size_t)head_at(&j->lay[3], b, h) * es;
		const uint8_t *mask = j->mask ? j->mask + hh * j->tq * j->tk : NULL;
		if (j->per_head == 1 && j->contiguous &&
		    (j->weights || j->tq * j->tk <= __atomic_load_n(&att_small, __ATOMIC_RELAXED))) {
			double small[ATT_SMALL];	/* room for f32 or f64 weights */
			char *w = j->weights ? (char *)j->weights + (size_t)(hh * j->tq * j->tk) * es : (char *)small;
			if (j->f64)
				j->ops->attention_f64((double *)out, (double *)w, (const double *)q, (const double *)k,
						      (const double *)v, mask, j->causal, j->scale, j->tq, j->tk,
						      j->d, j->dv);
			else
				j->ops->attention_f32((float *)out, (float *)w, (const float *)q, (const float *)k,
						      (const float *)v, mask, j->causal, (float)j->scale, j->tq,
						      j->tk, j->d, j->dv);
			continue;
		}
		int64_t bq = j->tq - i0 < rows ? j->tq - i0 : rows;
		if (j->f64)
			j->ops->attention_rows_f64((double *)out, (const double *)q, (const double *)k,
						   (const double *)v, mask, j->causal, j->scale, i0, bq, j->tk, j->d,
						   j->dv, &ld);
		else
			j->ops->attention_rows_f32((float *)out, (const float *)q, (const float *)k,
						   (const float *)v, mask, j->causal, (float)j->scale, i0, bq, j->tk,
						   j->d, j->dv, &ld);
	}
}

static void attention_run(struct attention_job *j)
{
	if (j->nb <= 0 || j->nh <= 0 || j->tq <= 0 || (j->weights == NULL && j->dv <= 0))
		return;
	j->ops = dispatch_ops();
	bool whole_heads = j->contiguous &&
			   (j->weights || j->tq * j->tk <= __atomic_load_n(&att_small, __ATOMIC_RELAXED));
	j->per_head = whole_heads ? 1 : (j->tq + j->ops->att_rows - 1) / j->ops->att_rows;
	int64_t items = j->nb * j->nh * j->per_head;
	double flops = 2.0 * (double)(j->nb * j->nh) * (double)j->tq * (double)j->tk * (double)(j->d + j->dv);
	int nt = threads_for(flops);
	if (nt > items)
		nt = (int)items;
	run_parts(nt, attention_part, j);
}

/* Heads laid out as lay says (contiguous false: fused always). */
static void strided_job(struct attention_job *j, int64_t nb, int64_t nh, int64_t tq, int64_t tk, int64_t d,
			int64_t dv, const struct attn_layout lay[4])
{
	j->nb = nb;
	j->nh = nh;
	j->tq = tq;
	j->tk = tk;
	j->d = d;
	j->dv = dv;
	for (int i = 0; i < 4; i++)
		j->lay[i] = lay[i];
}

/* nbatch heads one after another, as attention_heads_*_simd takes them. */
static void heads_job(struct attention_job *j, int64_t nbatch, int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	const struct attn_layout lay[4] = {
		{ tq * d, 0, d }, { tk * d, 0, d }, { tk * dv, 0, dv }, { tq * dv, 0, dv },
	};
	strided_job(j, nbatch, 1, tq, tk, d, dv, lay);
	j->contiguous = true;
}

void attention_heads_f32_simd(float *out, float *weights, const float *q, const float *k,
			      const float *v, const uint8_t *mask, bool causal, float scale,
			      int64_t nbatch, int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	struct attention_job j = { .f64 = false, .causal = causal, .out = out, .weights = weights, .q = q, .k = k,
				   .v = v, .mask = mask, .scale = scale };
	heads_job(&j, nbatch, tq, tk, d, dv);
	attention_run(&j);
}

void attention_heads_f64_simd(double *out, double *weights, const double *q, const double *k,
			      const double *v, const uint8_t *mask, bool causal, double scale,
			      int64_t nbatch, int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	struct attention_job j = { .f64 = true, .causal = causal, .out = out, .weights = weights, .q = q, .k = k,
				   .v = v, .mask = mask, .scale = scale };
	heads_job(&j, nbatch, tq, tk, d, dv);
	attention_run(&j);
}

void attention_strided_f32_simd(float *out, const float *q, const float *k, const float *v, bool causal,
				float scale, int64_t nb, int64_t nh, int64_t tq, int64_t tk, int64_t d, int64_t dv,
				const struct attn_layout lay[4])
{
	struct attention_job j = { .f64 = false, .causal = causal, .out = out, .q = q, .k = k, .v = v,
				   .scale = scale };
	strided_job(&j, nb, nh, tq, tk, d, dv, lay);
	attention_run(&j);
}

void attention_strided_f64_simd(double *out, const double *q, const double *k, const double *v, bool causal,
				double scale, int64_t nb, int64_t nh, int64_t tq, int64_t tk, int64_t d, int64_t dv,
				const struct attn_layout lay[4])
{
	struct attention_job j = { .f64 = true, .causal = causal, .out = out, .q = q, .k = k, .v = v,
				   .scale = scale };
	strided_job(&j, nb, nh, tq, tk, d, dv, lay);
	attention_run(&j);
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
	attention_heads_f32_simd(out, weights, q, k, v, mask, causal, scale, 1, tq, tk, d, dv);
}

void attention_f64_simd(double *out, double *weights, const double *q, const double *k,
			const double *v, const uint8_t *mask, bool causal, double scale,
			int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	attention_heads_f64_simd(out, weights, q, k, v, mask, causal, scale, 1, tq, tk, d, dv);
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
