/* watchdog.h: raises a flag when a span of work runs past a number of
 * seconds, from a thread of its own: the player arms one around each step of
 * `qkv check` and `qkv run`, and the interpreter stops at the flag (see
 * interp_set_interrupt), so a lesson that never ends cannot hang them. */
#ifndef QKV_LESSON_WATCHDOG_H
#define QKV_LESSON_WATCHDOG_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

struct watchdog {
	volatile sig_atomic_t fired;  /* the flag: 1 once the time ran out (read by the interpreter) */
	int seconds;
	bool armed;                   /* a thread is waiting (watchdog_arm .. watchdog_disarm) */
	bool stop;                    /* under mu: the span ended before the time ran out */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;            /* waits on CLOCK_MONOTONIC */
};

/* A disarmed watchdog of the given seconds (1 or more). */
void watchdog_init(struct watchdog *w, int seconds);
/* Disarms it (when armed) and frees what init made. */
void watchdog_destroy(struct watchdog *w);
/* The flag the interpreter reads: 0 until the armed time runs out. */
const volatile sig_atomic_t *watchdog_flag(struct watchdog *w);
/* Lowers the flag and starts counting. Returns 0, or -1 when no thread can
 * be started (the span then runs unwatched). Arming an armed watchdog
 * disarms it first. */
int watchdog_arm(struct watchdog *w);
/* Stops counting and waits for the thread. Returns whether the time ran
 * out; the flag is lowered again, so that nothing run after the span is
 * stopped by it. */
bool watchdog_disarm(struct watchdog *w);
/* Whether the time ran out since the last watchdog_arm. */
bool watchdog_fired(const struct watchdog *w);

#endif
