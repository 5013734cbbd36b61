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
#include <time.h>
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
#if defined(QKV_AVX512_ON_AVX2)	/* the checks' build of the AVX-512 path in AVX2 instructions */
	if (ops == &simd_ops_avx512)
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
	if (ops == &simd_ops_avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("fma");
#endif
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

/* The first call's choice of dispatch_best. */
static __attribute__((noinline)) const struct simd_ops *dispatch_choose(void)
{
	const struct simd_ops *ops = NULL;
	for (int i = 0; i < DISPATCH_NTABLES && ops == NULL; i++)
		if (dispatch_cpu_has(dispatch_tables[i]))
			ops = dispatch_tables[i];
	__atomic_store_n(&dispatch_best, ops, __ATOMIC_RELEASE);
	return ops;
}

/* Inline: every kernel call asks, a 4x4 softmax as much as a large one. */
static inline const struct simd_ops *dispatch_ops(void)
{
	const struct simd_ops *ops = __atomic_load_n(&dispatch_forced, __ATOMIC_ACQUIRE);
	if (ops != NULL)
		return ops;
	ops = __atomic_load_n(&dispatch_best, __ATOMIC_ACQUIRE);
	return ops != NULL ? ops : dispatch_choose();
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

static const char *const variant_names[KERNEL_VARIANTS] = {
	[KERNEL_SIMD] = "simd", [KERNEL_LOOPS] = "loops", [KERNEL_UNROLLED] = "unrolled"
};

const char *kernel_variant_name(enum kernel_variant v)
{
	return variant_names[v];
}

int kernel_variant_named(const char *name, size_t len)
{
	for (int v = 0; v < KERNEL_VARIANTS; v++)
		if (strlen(variant_names[v]) == len && strncmp(name, variant_names[v], len) == 0)
			return v;
	return -1;
}

static int64_t attention_small(void);

void kernel_simd_tile(struct kernel_tile *t)
{
	const struct simd_ops *ops = dispatch_ops(), *two = ops;	/* two: the table of the two-pass attention */
#if defined(__x86_64__)
	if (ops->softmax_rows_f32 == simd_avx2_softmax_rows_f32)	/* AVX-512 borrows AVX2's */
		two = &simd_ops_avx2;
#endif
	t->path = ops->name;
	t->lanes = ops->fma_lanes;
	t->tile_rows = ops->gemm_f32.tile_rows;
	t->tile_cols = ops->gemm_f32.tile_cols;
	t->att_rows = ops->att_rows;
	t->att_keys = ops->att_keys;
	t->att_dc = ops->att_dc;
	t->att_dvc = ops->att_dvc;
	t->softmax_lanes = two->fma_lanes;
	t->softmax_lanes_f64 = two->gemm_f64.lanes;
	t->gemm[0] = ops->gemm_f32;
	t->gemm[1] = ops->gemm_f64;
	t->att_gemm[0] = two->gemm_f32;
	t->att_gemm[1] = two->gemm_f64;
	t->att_loops = two->attention_f64 == attention_f64_loops;
	t->att_small = attention_small();
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
 * the others on the pool's workers, returning when every part is done. Each
 * part runs under the caller's kernel_ctl: one Ctrl-C stops them all.
 * The workers are started once, at the first job that wants them, and then
 * wait for the next one (a new thread per call cost tens of microseconds,
 * much of a one-head attention). The pool serves one caller at a time: a
 * second caller meanwhile (another thread, or a part calling back) starts
 * threads of its own for that call, as does any part whose worker could not
 * be started. */
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

/* One call's parts on threads of their own (the pool's fallback). */
static void parts_on_new_threads(struct part *parts, int from, int nt)
{
	pthread_t tid[THREADS_MAX];
	bool started[THREADS_MAX] = { false };
	for (int t = from; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, part_run, &parts[t]) == 0;
	part_run(&parts[0]);
	for (int t = from; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			part_run(&parts[t]);
	}
}

static struct pool {
	pthread_mutex_t busy;	/* held by the caller the pool serves */
	pthread_mutex_t lock;	/* guards the fields below */
	pthread_cond_t wake, done;
	int workers;		/* started so far: they run parts 1 .. workers */
	unsigned gen;		/* bumped per job */
	int nt;			/* parts of this job */
	unsigned pending;	/* and those not finished */
	struct part parts[THREADS_MAX];
	bool taken[THREADS_MAX];	/* part t begun, by its worker or by the caller */
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
	   PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, { { 0 } }, { false } };

/* In a child of fork() the workers are gone (only the forking thread is
 * copied): the pool starts empty again, its locks fresh. */
static void pool_after_fork(void)
{
	pthread_mutex_init(&pool.busy, NULL);
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.workers = 0;
	pool.nt = 0;
	memset(pool.taken, 0, sizeof pool.taken);
	pool.pending = 0;
}

static void pool_register_fork(void)
{
	pthread_atfork(NULL, NULL, pool_after_fork);
}

/* A thread that has finished its part watches for the next event (a new
 * job, the last part done) for up to POOL_SPIN_NS before it sleeps: waking
 * a sleeping thread took tens of microseconds, much of a one-head attention
 * (0.3 ms), and kernels come back to back. pool.gen and pool.pending change
 * under the lock but atomically, so that the watching needs no lock. */
#define POOL_SPIN_NS 100000

static int64_t pool_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void pool_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Whether, within POOL_SPIN_NS, *word became value (until_equal) or other
 * than value (!until_equal). */
static bool pool_watch(const unsigned *word, unsigned value, bool until_equal)
{
	int64_t end = pool_now_ns() + POOL_SPIN_NS;
	for (unsigned i = 1;; i++) {
		if ((__atomic_load_n(word, __ATOMIC_ACQUIRE) == value) == until_equal)
			return true;
		pool_relax();
		if (i % 64 == 0 && pool_now_ns() > end)
			return false;
	}
}

/* Worker t: waits for a job with a part t, runs it, reports it done. */
static void *pool_worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	unsigned seen = 0;
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (pool.gen == seen || t >= pool.nt) {
			seen = pool.gen;
			pthread_mutex_unlock(&pool.lock);
			bool moved = pool_watch(&pool.gen, seen, false);
			pthread_mutex_lock(&pool.lock);
			if (!moved && pool.gen == seen)
				pthread_cond_wait(&pool.wake, &pool.lock);
		}
		seen = pool.gen;
		if (pool.taken[t])	/* the caller ran it: this worker woke late */
			continue;
		pool.taken[t] = true;
		struct part p = pool.parts[t];
		pthread_mutex_unlock(&pool.lock);
		part_run(&p);
		pthread_mutex_lock(&pool.lock);
		if (__atomic_sub_fetch(&pool.pending, 1, __ATOMIC_RELEASE) == 0)
			pthread_cond_signal(&pool.done);
	}
	return NULL;
}

static void run_parts(int nt, void (*job)(void *arg, int t, int nt), void *arg)
{
	struct part parts[THREADS_MAX];
	for (int t = 0; t < nt; t++)
		parts[t] = (struct part){ job, arg, t, nt, kernel_ctl_now };
	if (nt <= 1) {
		part_run(&parts[0]);
		return;
	}
	if (pthread_mutex_trylock(&pool.busy) != 0) {
		parts_on_new_threads(parts, 1, nt);
		return;
	}
	static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
	pthread_once(&fork_once, pool_register_fork);
	pthread_mutex_lock(&pool.lock);
	while (pool.workers < nt - 1) {
		pthread_t tid;
		pthread_attr_t attr;
		if (pthread_attr_init(&attr) != 0)
			break;
		bool ok = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
			  pthread_create(&tid, &attr, pool_worker, (void *)(intptr_t)(pool.workers + 1)) == 0;
		pthread_attr_destroy(&attr);
		if (!ok)
			break;
		pool.workers++;
	}
	int in_pool = nt - 1 < pool.workers ? nt : pool.workers + 1;	/* parts 0 .. in_pool-1 */
	for (int t = 0; t < in_pool; t++) {
		pool.parts[t] = parts[t];
		pool.taken[t] = false;
	}
	pool.nt = in_pool;
	__atomic_store_n(&pool.pending, in_pool - 1, __ATOMIC_RELEASE);
	__atomic_store_n(&pool.gen, pool.gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);

	if (in_pool < nt)	/* workers that could not be started */
		parts_on_new_threads(parts, in_pool, nt);
	else
		part_run(&parts[0]);

	/* parts whose worker has not woken yet (its CPU busy elsewhere): the
	 * caller runs them rather than wait for the worker */
	pthread_mutex_lock(&pool.lock);
	for (int t = 1; t < in_pool; t++)
		if (!pool.taken[t]) {
			pool.taken[t] = true;
			__atomic_sub_fetch(&pool.pending, 1, __ATOMIC_RELEASE);
			pthread_mutex_unlock(&pool.lock);
			part_run(&parts[t]);
			pthread_mutex_lock(&pool.lock);
		}
	if (pool.pending > 0) {	/* the workers' parts: watched, then slept on */
		pthread_mutex_unlock(&pool.lock);
		pool_watch(&pool.pending, 0, true);
		pthread_mutex_lock(&pool.lock);
	}
	while (pool.pending > 0)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	pthread_mutex_unlock(&pool.busy);
}

/* Threads worth waking for work of this many flops: below 2e6 (some tens of
 * microseconds) waking a worker costs more than it saves (a one-head causal
 * attention of 128 tokens, 2.1e6, measured 34 us alone, 30 us on two). */
static int threads_for(double flops)
{
	return flops < 2e6 ? 1 : kernel_threads();	/* small work asks no sysconf */
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
	if (m * k * n <= 4096) {	/* a notebook's 4x4 product: this thread, no job to describe */
		const struct simd_ops *ops = dispatch_ops();
		if (f64)
			ops->matmul_f64(c, a, b, m, k, n);
		else
			ops->matmul_f32(c, a, b, m, k, n);
		return;
	}
	struct matmul_job j = { dispatch_ops(), f64, c, a, b, m, k, n, m };
	int nt = threads_for(2.0 * (double)m * (double)k * (double)n);
	if (nt > 1 && m >= 12) {
		j.per = (m + nt - 1) / nt;
		j.per = (j.per + 5) / 6 * 6;	/* whole tiles of the micro-kernel's 6 rows */
		nt = (int)((m + j.per - 1) / j.per);
		run_parts(nt, matmul_part, &j);
	} else {
		matmul_part(&j, 0, 1);	/* this thread, its own ctl: no part to hand over */
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

/* ---- attention: heads, or groups of a head's query rows --------------------
 * Fused (weights NULL), the work is cut into items of att_rows query rows of
 * one head; the threads take the next item from a shared counter until none
 * is left. A head's items go from its first rows to its last: with causal,
 * each item reads the keys and values of the one before and one block
 * more, which the cache's prefetcher has begun to stream in behind it (120
 * causal heads of 512 measured 3-4% faster than the other way round). The
 * last head's go from its last rows to its first: with causal they are the
 * longest, so the short ones come last and fill in the gaps, and the threads
 * finish together (all of a single head's, as the panels show them). Which
 * thread computes an item never changes its bits. With weights, each item is a
 * whole head through the per-head kernel; so it is for a small head
 * (tq·tk <= ATT_SMALL) even without weights, with the weights on the stack:
 * the notebooks' heads then round exactly as the two-pass softmax does. */
#define ATT_SMALL 4096
static int64_t att_small = ATT_SMALL;	/* the test hook may lower it */

void kernel_set_attention_small(int64_t elems)
{
	__atomic_store_n(&att_small, elems < 0 || elems > ATT_SMALL ? ATT_SMALL : elems, __ATOMIC_RELAXED);
}

/* The largest tq·tk that runs the two-pass kernel without weights (for kernel_simd_tile). */
static int64_t attention_small(void)
{
	return __atomic_load_n(&att_small, __ATOMIC_RELAXED);
}

struct attention_job {
	const struct simd_ops *ops;
	bool f64, causal, contiguous;	/* contiguous: heads one after another */
	void *out, *weights;
	const void *q, *k, *v;
	const uint8_t *mask;
	double scale;
	int64_t nb, nh, tq, tk, d, dv, per_head;	/* per_head: items in one head */
	int64_t next;	/* the next item to take (atomic) */
	struct attn_layout lay[4];	/* q, k, v, out */
};

/* Where head (b, h) of layout l starts, in elements. */
static int64_t head_at(const struct attn_layout *l, int64_t b, int64_t h)
{
	return b * l->batch + h * l->head;
}

/* Where item it starts: its head (b, h) and its first row i0 (see above). */
static void attention_item(const struct attention_job *j, int64_t it, int64_t *b, int64_t *h, int64_t *i0)
{
	int64_t hh = it / j->per_head, slot = it % j->per_head;
	*b = hh / j->nh;
	*h = hh % j->nh;
	*i0 = (hh + 1 < j->nb * j->nh ? slot : j->per_head - 1 - slot) * j->ops->att_rows;
}

/* The keys item (b, h, i0) reads: 0 .. the end it returns. */
static int64_t attention_keys(const struct attention_job *j, int64_t i0)
{
	int64_t last = i0 + j->ops->att_rows;	/* past its last query */
	return j->causal && last < j->tk ? last : j->tk;
}

static void attention_part(void *arg, int t, int nt)
{
	struct attention_job *j = arg;
	size_t es = j->f64 ? sizeof(double) : sizeof(float);
	int64_t rows = j->ops->att_rows, items = j->nb * j->nh * j->per_head;
	const struct att_ld ld = { j->lay[0].row, j->lay[1].row, j->lay[2].row, j->lay[3].row };
	(void)t, (void)nt;
	/* each thread takes its next item before it computes the present one,
	 * so that the present one can fetch the next one's rows behind its work */
	int64_t it = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
	while (it < items && !ctl_stop()) {
		int64_t following = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		int64_t b, h, i0, hh = it / j->per_head;
		attention_item(j, it, &b, &h, &i0);
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
			it = following;
			continue;
		}
		/* the next item's rows of q, and the keys it reads that this one does not */
		struct att_next next, *pn = NULL;
		if (following < items) {
			int64_t nb, nh, ni0;
			attention_item(j, following, &nb, &nh, &ni0);
			bool same = following / j->per_head == hh;
			next = (struct att_next){
				(const char *)j->q + (size_t)(head_at(&j->lay[0], nb, nh) + ni0 * ld.q) * es,
				(const char *)j->k + (size_t)head_at(&j->lay[1], nb, nh) * es,
				(const char *)j->v + (size_t)head_at(&j->lay[2], nb, nh) * es,
				j->tq - ni0 < rows ? j->tq - ni0 : rows, same ? attention_keys(j, i0) : 0,
				attention_keys(j, ni0),
			};
			pn = &next;
		}
		int64_t bq = j->tq - i0 < rows ? j->tq - i0 : rows;
		if (j->f64)
			j->ops->attention_rows_f64((double *)out, (const double *)q, (const double *)k,
						   (const double *)v, mask, j->causal, j->scale, i0, bq, j->tk, j->d,
						   j->dv, &ld, pn);
		else
			j->ops->attention_rows_f32((float *)out, (const float *)q, (const float *)k,
						   (const float *)v, mask, j->causal, (float)j->scale, i0, bq, j->tk,
						   j->d, j->dv, &ld, pn);
		it = following;
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
	j->next = 0;
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

void exp2_softmax_f32_simd(float *out, const float *in, int64_t n)
{
	dispatch_ops()->exp2_softmax_f32(out, in, n);
}

float kernel_fma_chains_f32(int64_t iters, float seed, double *flops)
{
	const struct simd_ops *ops = dispatch_ops();
	*flops = 2.0 * 12 * ops->fma_lanes * (double)iters;
	return ops->fma_chains_f32(iters, seed);
}
