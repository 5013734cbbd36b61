/* test_kernel_stop.c: Ctrl-C in the kernels (kernel.h's kernel_ctl). A
 * kernel whose thread's stop flag is up returns before its work, its output
 * left as it was; one stopped by another thread midway leaves the rest of
 * its output untouched, worker threads included; ops turns that into
 * "interrupted (Ctrl-C)" and the interpreter undoes the statement. The work
 * counted (done) is what the progress line shows. */
#include <criterion/criterion.h>

#include "core/ops.h"
#include "kernel/kernel.h"
#include "lang/interp.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MARK 12345.0f	/* what an output holds before the kernel writes it */

static volatile sig_atomic_t stop_flag;
static struct kernel_ctl ctl;

static void use_ctl(void)
{
	stop_flag = 0;
	memset(&ctl, 0, sizeof ctl);
	ctl.stop = &stop_flag;
	kernel_ctl_use(&ctl);
}

static void drop_ctl(void)
{
	kernel_ctl_use(NULL);
	kernel_set_threads(0);
}

static float *filled(int64_t n, float x)
{
	float *p = malloc(sizeof *p * (size_t)n);
	cr_assert(p);
	for (int64_t i = 0; i < n; i++)
		p[i] = x;
	return p;
}

static float *random_floats(int64_t n)
{
	float *p = filled(n, 0);
	for (int64_t i = 0; i < n; i++)
		p[i] = (float)(rand() % 1024) / 1024.0f - 0.5f;
	return p;
}

/* How many of out's n values still hold MARK. */
static int64_t untouched(const float *out, int64_t n)
{
	int64_t k = 0;
	for (int64_t i = 0; i < n; i++)
		k += out[i] == MARK;
	return k;
}

Test(kernel_stop, every_long_kernel_should_return_before_its_work_when_the_flag_is_up, .init = use_ctl,
     .fini = drop_ctl)
{
	enum { N = 96 };
	float *a = random_floats(N * N), *b = random_floats(N * N), *c = filled(N * N, MARK);
	stop_flag = 1;
	cr_assert(kernel_stopped());
	matmul_f32_loops(c, a, b, N, N, N);
	cr_assert_eq(untouched(c, N * N), N * N, "matmul loops wrote");
	matmul_f32_simd(c, a, b, N, N, N);
	cr_assert_eq(untouched(c, N * N), N * N, "matmul simd wrote");
	matmul_f32_unrolled(c, a, b, N, N, N);
	cr_assert_eq(untouched(c, N * N), N * N, "matmul unrolled wrote");
	softmax_rows_f32_loops(c, c, N, N);
	cr_assert_eq(untouched(c, N * N), N * N, "softmax loops wrote");
	softmax_rows_f32_simd(c, c, N, N);
	cr_assert_eq(untouched(c, N * N), N * N, "softmax simd wrote");
	softmax_rows_f32_unrolled(c, c, N, N);
	cr_assert_eq(untouched(c, N * N), N * N, "softmax unrolled wrote");
	float *w = filled(N * N, MARK), *o = filled(N * N, MARK);
	attention_f32_loops(o, w, a, b, a, NULL, false, 0.125f, N, N, N, N);
	cr_assert_eq(untouched(o, N * N) + untouched(w, N * N), 2 * N * N, "attention loops wrote");
	attention_f32_simd(o, w, a, b, a, NULL, true, 0.125f, N, N, N, N);
	cr_assert_eq(untouched(o, N * N) + untouched(w, N * N), 2 * N * N, "attention simd wrote");
	attention_f32_unrolled(o, w, a, b, a, NULL, true, 0.125f, N, N, N, N);
	cr_assert_eq(untouched(o, N * N) + untouched(w, N * N), 2 * N * N, "attention unrolled wrote");
	attention_heads_f32_simd(o, NULL, a, b, a, NULL, false, 0.125f, 1, N, N, N, N);
	cr_assert_eq(untouched(o, N * N), N * N, "fused attention wrote");
	cr_assert_eq(ctl.done, 0, "work was counted: %lld", (long long)ctl.done);

	/* the flag down again, the same kernels compute and count their work */
	stop_flag = 0;
	cr_assert(!kernel_stopped());
	kernel_progress_begin(N * N * N);
	matmul_f32_simd(c, a, b, N, N, N);
	cr_assert_eq(untouched(c, N * N), 0);
	cr_assert_eq(ctl.done, N * N * N, "counted %lld of %d", (long long)ctl.done, N * N * N);
	cr_assert_eq(ctl.total, N * N * N);
	kernel_progress_begin(N * N * N);
	matmul_f32_unrolled(c, a, b, N, N, N);
	cr_assert_eq(ctl.done, N * N * N, "unrolled counted %lld of %d", (long long)ctl.done, N * N * N);
	free(a);
	free(b);
	free(c);
	free(w);
	free(o);
}

Test(kernel_stop, a_thread_without_a_ctl_should_never_stop, .fini = drop_ctl)
{
	kernel_ctl_use(NULL);
	kernel_progress_begin(10);	/* nothing to count into: no effect */
	cr_assert(!kernel_stopped());
	float a[4] = { 1, 2, 3, 4 }, c[4] = { MARK, MARK, MARK, MARK };
	matmul_f32_simd(c, a, a, 2, 2, 2);
	cr_assert_float_eq(c[0], 7.0f, 0);
	cr_assert_float_eq(c[3], 22.0f, 0);
}

/* Raises the flag once the kernels have done some work: Ctrl-C in the
 * middle of the computation, however the machine schedules it. */
static void *stopper(void *arg)
{
	(void)arg;
	int64_t done, total;
	do {
		usleep(1000);
		kernel_ctl_progress(&ctl, &done, &total);
	} while (done == 0);
	stop_flag = 1;
	return NULL;
}

/* 2048x2048 through the loops takes tens of seconds (the example);
 * stopped from another thread once begun, it leaves most rows unwritten. */
Test(kernel_stop, a_long_loops_matmul_should_stop_midway_when_another_thread_raises_the_flag, .init = use_ctl,
     .fini = drop_ctl, .timeout = 120)
{
	enum { N = 2048 };
	float *a = random_floats(N * N), *c = filled(N * N, MARK);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, stopper, NULL), 0);
	kernel_progress_begin((int64_t)N * N * N);
	matmul_f32_loops(c, a, a, N, N, N);
	pthread_join(t, NULL);
	cr_assert(kernel_stopped());
	int64_t left = untouched(c, (int64_t)N * N);
	cr_assert_gt(left, 0, "every row was computed: the kernel never stopped");
	cr_assert_lt(left, (int64_t)N * N, "nothing was computed before the flag");
	cr_assert_lt(ctl.done, (int64_t)N * N * N);
	free(a);
	free(c);
}

/* Fused attention on worker threads: the caller's flag stops them all. 8
 * heads of 8192 queries take some seconds on two cores unstopped. */
Test(kernel_stop, fused_attention_on_worker_threads_should_stop_when_the_flag_rises, .init = use_ctl,
     .fini = drop_ctl, .timeout = 120)
{
	enum { H = 8, T = 8192, D = 64 };
	kernel_set_threads(4);
	float *q = random_floats((int64_t)H * T * D), *o = filled((int64_t)H * T * D, MARK);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, stopper, NULL), 0);
	kernel_progress_begin((int64_t)H * T * T * 2 * D);
	attention_heads_f32_simd(o, NULL, q, q, q, NULL, false, 0.125f, H, T, T, D, D);
	pthread_join(t, NULL);
	cr_assert(kernel_stopped());
	int64_t left = untouched(o, (int64_t)H * T * D);
	cr_assert_gt(left, 0, "every row was computed: the workers never stopped");
	free(q);
	free(o);
}

Test(kernel_stop, ops_should_fail_with_interrupted_when_the_kernels_stopped, .init = use_ctl, .fini = drop_ctl)
{
	struct ops_ctx ctx;
	ops_ctx_init(&ctx, KERNEL_SIMD);
	int64_t shape[2] = { 64, 64 };
	struct qkv_error err = { 0 };
	struct tensor *x = ops_full(&ctx, DT_F32, FLAVOR_TORCH, 2, shape, 0.5, &err);
	cr_assert(x);
	stop_flag = 1;
	static const enum kernel_variant variants[] = { KERNEL_SIMD, KERNEL_LOOPS, KERNEL_UNROLLED };
	for (int v = 0; v < 3; v++) {
		ctx.variant = variants[v];
		memset(&err, 0, sizeof err);
		cr_assert_null(ops_matmul(&ctx, x, x, &err));
		cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
		memset(&err, 0, sizeof err);
		cr_assert_null(ops_softmax(&ctx, x, -1, &err));
		cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
		memset(&err, 0, sizeof err);
		cr_assert_null(ops_attention(&ctx, x, x, x, NULL, true, 0.125, NULL, &err));
		cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
	}
	stop_flag = 0;
	struct tensor *y = ops_matmul(&ctx, x, x, &err);
	cr_assert(y, "%s", err.msg);
	tensor_unref(y);
	tensor_unref(x);
}

/* The interpreter: a statement whose matmul Ctrl-C stops midway (the loops
 * take tens of seconds on 2048x2048) fails with "interrupted (Ctrl-C)" as
 * INTERP_INTERRUPTED and is undone like any failing one. */
Test(kernel_stop, a_statement_whose_kernel_stopped_should_be_interrupted_and_undone, .init = use_ctl,
     .fini = drop_ctl, .timeout = 120)
{
	struct interp *I = interp_new(KERNEL_LOOPS);
	interp_set_interrupt(I, &stop_flag);
	struct qkv_error err;
	const char *setup = "x = torch.randn(2048, 2048)";
	cr_assert_eq(interp_run(I, setup, strlen(setup), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, stopper, NULL), 0);
	const char *src = "y = x @ x";
	enum interp_status st = interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err);
	pthread_join(t, NULL);
	cr_assert_eq(st, INTERP_INTERRUPTED, "status %d: %s", st, err.msg);
	cr_assert(strstr(err.msg, "interrupted (Ctrl-C)"), "%s", err.msg);
	cr_assert_eq(err.line, 1);
	cr_assert_null(interp_get(I, "y"));
	cr_assert(interp_get(I, "x"));
	interp_free(I);
}
