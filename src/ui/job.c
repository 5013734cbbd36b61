/* job.c: runs the lesson's computations (going to a step, computing a
 * step's views again) and the prompt's statements (JOB_CALL, a while loop
 * included) on a worker thread with a stack the interpreter's recursion
 * fits in, while the main thread goes on
 * drawing frames: the progress the player reports is stored here and drawn
 * by the next frame, the normal way (a->frame), at most every 50 ms. Keys
 * wait in the terminal until the job ends; Ctrl-C reaches it through the
 * interrupt flag (term.c), which the interpreter reads between operations
 * and the kernels between blocks (it makes the flag the stop flag of the
 * worker's kernel control, lang/exec.c), so that it stops within a
 * fraction of a second. Only the
 * worker touches the player meanwhile, and the frames read only what
 * player_running allows; they also read the kernels' progress
 * (job_progress_note). */
#include "ui/internal.h"
#include "core/clock.h"
#include "core/mem.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The last progress report, shared between the worker (which writes it)
 * and the main thread (which copies it for a frame). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static struct runner_progress shared;
static char shared_label[256];
static double *shared_done;
static int shared_cap;
static bool shared_set, shared_new, done;

void job_progress(void *ctx, const struct runner_progress *p)
{
	(void)ctx;
	pthread_mutex_lock(&lock);
	shared = *p;
	snprintf(shared_label, sizeof shared_label, "%s", p->label ? p->label : "");
	if (p->nentries > shared_cap) {
		shared_cap = p->nentries;
		shared_done = xrealloc(shared_done, sizeof *shared_done * (size_t)shared_cap);
	}
	for (int i = 0; i < p->entry && i < shared_cap; i++)
		shared_done[i] = p->done_ms[i];
	shared_set = true;
	/* the first report of an entry and its end are drawn at once */
	if (p->statement == 0 || p->finished)
		shared_new = true;
	pthread_cond_signal(&changed);
	pthread_mutex_unlock(&lock);
}

/* Copies the last report into a->timing_now for a frame (its label and
 * times into the app's own buffers). */
static void take_progress(struct app *a)
{
	pthread_mutex_lock(&lock);
	if (shared_set) {
		a->timing_now = shared;
		snprintf(a->timing_label, sizeof a->timing_label, "%s", shared_label);
		a->timing_now.label = a->timing_label;
		if (shared.nentries > a->timing_cap) {
			a->timing_cap = shared.nentries;
			a->timing_done = xrealloc(a->timing_done, sizeof *a->timing_done * (size_t)a->timing_cap);
		}
		for (int i = 0; i < shared.entry && i < a->timing_cap; i++)
			a->timing_done[i] = shared_done[i];
		a->timing_now.done_ms = a->timing_done;
		a->timing = &a->timing_now;
	}
	shared_new = false;
	pthread_mutex_unlock(&lock);
}

/* The kernels of the running job: the work they report (the interpreter
 * gives it the Ctrl-C flag they stop at); when the job began (0: none
 * runs; the main thread's). */
static struct kernel_ctl kernels;
static double began;

void job_progress_note(char *buf, size_t size)
{
	buf[0] = 0;
	if (began == 0 || clock_now_ms() - began < 500)
		return;	/* nothing runs, or not for long: no note */
	int64_t units, total;
	kernel_ctl_progress(&kernels, &units, &total);
	double s = (clock_now_ms() - began) / 1000;
	if (total > 0 && units > 0) {
		int pct = units >= total ? 99 : (int)(100.0 * (double)units / (double)total);
		snprintf(buf, size, "%d%% of the operation done, %.1f s", pct, s);
	} else {
		snprintf(buf, size, "%.1f s", s);
	}
}

static void *work(void *arg)
{
	struct job *j = arg;
	term_thread_start();
	kernel_ctl_use(&kernels);
	kernel_progress_begin(0);
	if (j->kind == JOB_GO)
		j->rc = player_go(j->player, j->k, &j->at, &j->err);
	else if (j->kind == JOB_SHOW_AGAIN)
		j->rc = player_show_again(j->player, j->k, &j->err);
	else
		j->fn(j->ctx);
	kernel_ctl_use(NULL);
	pthread_mutex_lock(&lock);
	done = true;
	pthread_cond_signal(&changed);
	pthread_mutex_unlock(&lock);
	return NULL;
}

void job_run(struct app *a, struct job *j)
{
	pthread_mutex_lock(&lock);
	shared_set = shared_new = done = false;
	pthread_mutex_unlock(&lock);
	j->at = j->k;
	term_busy_begin();
	began = clock_now_ms();
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16u << 20);	/* the interpreter recurses */
	pthread_t t;
	bool threaded = pthread_create(&t, &attr, work, j) == 0;
	pthread_attr_destroy(&attr);
	if (!threaded) {
		work(j);	/* no thread to be had: run it here, drawn when it ends */
	} else {
		double drawn = clock_now_ms();
		pthread_mutex_lock(&lock);
		while (!done) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 50 * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			int rc = pthread_cond_timedwait(&changed, &lock, &until);
			(void)rc;	/* woken by a report, the end, or the time */
			bool due = shared_new || clock_now_ms() - drawn >= 50;
			if (done || !due)
				continue;
			pthread_mutex_unlock(&lock);
			take_progress(a);
			term_follow_size(a);
			a->frame(a);
			drawn = clock_now_ms();
			pthread_mutex_lock(&lock);
		}
		pthread_mutex_unlock(&lock);
		pthread_join(t, NULL);
	}
	a->timing = NULL;	/* the job's progress is over */
	began = 0;
	term_busy_end();
}
