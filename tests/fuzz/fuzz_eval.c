/* fuzz_eval.c: fuzzes the statement parser and evaluator (lang/interp.h).
 * Byte 0 picks the kernel variant (bit 0: loops or simd; bit 1: the simd
 * kernels' scalar path) and the mode (bit 2: INTERP_ATOMIC, else
 * INTERP_PER_STATEMENT; bit 3: INTERP_DRY_RUN); the rest is source text, run
 * twice in one workspace, then a clone of it evaluates the text as one
 * expression, and what the screen would draw of the tensors made is computed
 * (draw.c). Tensors are limited to FUZZ_MAX_ELEMS elements. Checks that an
 * atomic run that fails leaves the workspace as it was. A watchdog thread
 * raises the interrupt flag after FUZZ_SECONDS, so endless loops (`while
 * True: pass`) end as a student's Ctrl-C would end them. Built by make
 * fuzz; with replay.c it replays saved inputs without libFuzzer. */
#include "fuzz.h"
#include "kernel/kernel.h"
#include "lang/interp.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#define FUZZ_SECONDS 2

static volatile sig_atomic_t stop_flag;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static bool watch_done;

/* Raises stop_flag unless the input finishes within FUZZ_SECONDS. */
static void *watchdog(void *arg)
{
	(void)arg;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += FUZZ_SECONDS;
	pthread_mutex_lock(&watch_lock);
	int rc = 0;
	while (!watch_done && rc == 0)
		rc = pthread_cond_timedwait(&watch_cond, &watch_lock, &until);
	if (!watch_done)
		stop_flag = 1;
	pthread_mutex_unlock(&watch_lock);
	return NULL;
}

static void discard(void *udata, const struct value *v, const char *text)
{
	(void)udata;
	(void)v;
	/* read the whole text so a bad string is noticed */
	volatile size_t n = text ? strlen(text) : 0;
	(void)n;
}

static void observe(void *udata, const struct value *v)
{
	(void)udata;
	(void)v;
}

static void complete(void *udata, const char *name)
{
	(void)udata;
	volatile size_t n = strlen(name);
	(void)n;
}

static struct interp *fuzz_interp(enum kernel_variant kv)
{
	struct interp *I = interp_new(kv);
	interp_ops(I)->max_elems = FUZZ_MAX_ELEMS;
	interp_set_output(I, discard, NULL);
	interp_set_observer(I, observe, NULL);
	interp_set_interrupt(I, &stop_flag);
	return I;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	enum kernel_variant kv = (data[0] & 1) ? KERNEL_LOOPS : KERNEL_SIMD;
	int flags = (data[0] & 4) ? INTERP_ATOMIC : INTERP_PER_STATEMENT;
	if (data[0] & 8)
		flags |= INTERP_DRY_RUN;
	kernel_force_scalar((data[0] & 2) != 0);
	kernel_set_threads(1);
	const char *src = (const char *)data + 1;
	size_t len = size - 1;

	interp_check_complete(src, len);
	stop_flag = 0;
	watch_done = false;
	pthread_t watch;
	bool watching = pthread_create(&watch, NULL, watchdog, NULL) == 0;

	struct interp *I = fuzz_interp(kv);
	struct qkv_error err;
	memset(&err, 0, sizeof err);
	enum interp_status st = interp_run(I, src, len, 1, flags, &err);
	/* an atomic run that fails (or a dry run) leaves nothing behind */
	if ((flags & INTERP_DRY_RUN) || ((flags & INTERP_ATOMIC) && st != INTERP_OK))
		FUZZ_CHECK(interp_var_count(I) == 0);
	/* again, in the workspace the first run left */
	memset(&err, 0, sizeof err);
	int before = interp_var_count(I);
	st = interp_run(I, src, len, 1, flags, &err);
	if ((flags & INTERP_DRY_RUN) || ((flags & INTERP_ATOMIC) && st != INTERP_OK))
		FUZZ_CHECK(interp_var_count(I) == before);
	/* what the screen would draw of the tensors made (a few of them) */
	for (int i = 0, drawn = 0; i < interp_var_count(I); i++) {
		const char *name = interp_var_name(I, i);
		struct value *v = interp_get(I, name);
		FUZZ_CHECK(v != NULL);
		if (v->kind == V_TENSOR && drawn++ < 4)
			fuzz_draw_tensor(v->t, name, NULL);
	}

	/* a clone evaluates the text as one expression, and offers completions */
	struct interp *C = interp_clone(I);
	interp_free(I);
	memset(&err, 0, sizeof err);
	struct value *v = interp_eval(C, src, len, &err);
	if (v)
		value_unref(v);
	interp_complete(C, NULL, "", complete, NULL);
	interp_free(C);
	if (watching) {
		pthread_mutex_lock(&watch_lock);
		watch_done = true;
		pthread_cond_signal(&watch_cond);
		pthread_mutex_unlock(&watch_lock);
		pthread_join(watch, NULL);
	}
	kernel_force_scalar(false);
	return 0;
}
