/* ctl.h: kernel-internal. What a kernel calls between its tiles or row blocks:
 * whether the calling thread's stop flag is up (kernel_ctl_use, kernel.h), and
 * how much work it has just finished. Included only in src/kernel/. */
#ifndef QKV_KERNEL_CTL_H
#define QKV_KERNEL_CTL_H

#include "kernel/kernel.h"

/* This thread's control, or NULL (ctl.c). */
extern __thread struct kernel_ctl *kernel_ctl_now;

/* Whether to stop now: one load of a thread-local pointer and one of the flag. */
static inline bool ctl_stop(void)
{
	struct kernel_ctl *c = kernel_ctl_now;
	return c && c->stop && *c->stop;
}

/* units more of the work are done */
static inline void ctl_done(int64_t units)
{
	struct kernel_ctl *c = kernel_ctl_now;
	if (c)
		__atomic_fetch_add(&c->done, units, __ATOMIC_RELAXED);
}

#endif
