/* test_kernel_pool.c: the kernels' worker threads (dispatch.c's pool, started
 * once and woken per job). Many jobs in a row, two callers at once and a
 * forked child each get the bits one thread computes; a lost wake-up or a
 * pool copied without its workers would hang, which the timeout reports. */
#include <criterion/criterion.h>

#include "kernel/kernel.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* a matmul and a fused attention big enough to be split over threads */
enum { M = 240, K = 256, N = 256, H = 4, T = 300, D = 64 };

struct work {
	float *a, *b, *c, *q, *k, *v, *out;
};

static float *randoms(int64_t n, unsigned seed)
{
	float *x = malloc((size_t)n * sizeof *x);
	cr_assert_not_null(x);
	for (int64_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
	}
	return x;
}

static struct work work_new(void)
{
	struct work w = { randoms(M * K, 1), randoms(K * N, 2), randoms(M * N, 3), randoms(H * T * D, 4),
			  randoms(H * T * D, 5), randoms(H * T * D, 6), randoms(H * T * D, 7) };
	return w;
}

static void work_free(struct work *w)
{
	free(w->a), free(w->b), free(w->c), free(w->q), free(w->k), free(w->v), free(w->out);
}

static void work_run(struct work *w)
{
	matmul_f32_simd(w->c, w->a, w->b, M, K, N);
	attention_heads_f32_simd(w->out, NULL, w->q, w->k, w->v, NULL, true, 0.125f, H, T, T, D, D);
}

static bool work_same(const struct work *x, const struct work *y)
{
	return memcmp(x->c, y->c, sizeof(float) * M * N) == 0 &&
	       memcmp(x->out, y->out, sizeof(float) * H * T * D) == 0;
}

/* the bits of one thread */
static struct work reference(void)
{
	struct work w = work_new();
	kernel_set_threads(1);
	work_run(&w);
	kernel_set_threads(0);
	return w;
}

static void reset_threads(void)
{
	kernel_set_threads(0);
}

Test(kernel_pool, many_jobs_in_a_row_should_each_give_the_bits_of_one_thread, .fini = reset_threads,
     .timeout = 120)
{
	struct work ref = reference(), w = work_new();
	kernel_set_threads(3);
	for (int i = 0; i < 200; i++) {
		memset(w.c, 0, sizeof(float) * M * N);
		memset(w.out, 0, sizeof(float) * H * T * D);
		work_run(&w);
		cr_assert(work_same(&w, &ref), "job %d on 3 threads differs from one thread", i);
	}
	work_free(&ref);
	work_free(&w);
}

static void *caller(void *arg)
{
	struct work *w = arg;
	for (int i = 0; i < 50; i++)
		work_run(w);
	return NULL;
}

Test(kernel_pool, two_callers_at_once_should_each_get_the_bits_of_one_thread, .fini = reset_threads,
     .timeout = 120)
{
	struct work ref = reference(), w1 = work_new(), w2 = work_new();
	pthread_t t;
	kernel_set_threads(2);
	cr_assert_eq(pthread_create(&t, NULL, caller, &w1), 0);
	caller(&w2);
	pthread_join(t, NULL);
	cr_assert(work_same(&w1, &ref), "the first caller's result differs from one thread");
	cr_assert(work_same(&w2, &ref), "the second caller's result differs from one thread");
	work_free(&ref);
	work_free(&w1);
	work_free(&w2);
}

Test(kernel_pool, a_forked_child_should_run_threaded_kernels_to_the_end, .fini = reset_threads, .timeout = 120)
{
	struct work ref = reference(), w = work_new();
	kernel_set_threads(2);
	work_run(&w);	/* the parent's workers are running now */
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		alarm(60);	/* a child waiting for workers it does not have dies here */
		memset(w.c, 0, sizeof(float) * M * N);
		memset(w.out, 0, sizeof(float) * H * T * D);
		work_run(&w);
		_exit(work_same(&w, &ref) ? 0 : 1);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "the child did not finish (signal %d)", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	cr_assert_eq(WEXITSTATUS(status), 0, "the child's result differs from one thread");
	work_free(&ref);
	work_free(&w);
}
