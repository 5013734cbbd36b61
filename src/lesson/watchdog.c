/* watchdog.c: a flag raised after a number of seconds (see watchdog.h), for
 * the player's per-step time limit. One thread per armed span, waiting on a
 * condition variable with a CLOCK_MONOTONIC deadline; disarming wakes and
 * joins it, so no thread outlives the span and nothing is process-wide. */
#include "lesson/watchdog.h"

#include <errno.h>
#include <time.h>

void watchdog_init(struct watchdog *w, int seconds)
{
	w->fired = 0;
	w->seconds = seconds > 0 ? seconds : 1;
	w->armed = false;
	w->stop = false;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
}

void watchdog_destroy(struct watchdog *w)
{
	watchdog_disarm(w);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
}

const volatile sig_atomic_t *watchdog_flag(struct watchdog *w)
{
	return &w->fired;
}

static void *watch(void *arg)
{
	struct watchdog *w = arg;
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += w->seconds;
	pthread_mutex_lock(&w->mu);
	int rc = 0;
	while (!w->stop && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
	/* an atomic store: the interpreter polls the flag from its own thread */
	if (!w->stop)
		__atomic_store_n(&w->fired, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int watchdog_arm(struct watchdog *w)
{
	watchdog_disarm(w);
	__atomic_store_n(&w->fired, 0, __ATOMIC_SEQ_CST);
	w->stop = false;
	if (pthread_create(&w->thread, NULL, watch, w) != 0)
		return -1;
	w->armed = true;
	return 0;
}

bool watchdog_disarm(struct watchdog *w)
{
	if (w->armed) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
		w->armed = false;
	}
	return __atomic_exchange_n(&w->fired, 0, __ATOMIC_SEQ_CST) != 0;
}

bool watchdog_fired(const struct watchdog *w)
{
	return __atomic_load_n(&w->fired, __ATOMIC_SEQ_CST) != 0;
}
