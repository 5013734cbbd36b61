/* ctl.c: the one thread-local pointer of kernel/: the stop flag and the
 * progress counter of the kernels running on this thread (kernel.h's
 * kernel_ctl_use). The kernels read it through ctl.h; dispatch.c hands it
 * to its worker threads. */
#include "kernel/ctl.h"

__thread struct kernel_ctl *kernel_ctl_now;

struct kernel_ctl *kernel_ctl_use(struct kernel_ctl *ctl)
{
	struct kernel_ctl *was = kernel_ctl_now;
	kernel_ctl_now = ctl;
	return was;
}

struct kernel_ctl *kernel_ctl_get(void)
{
	return kernel_ctl_now;
}

bool kernel_stopped(void)
{
	return ctl_stop();
}

void kernel_progress_begin(int64_t total)
{
	struct kernel_ctl *c = kernel_ctl_now;
	if (!c)
		return;
	__atomic_store_n(&c->done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->total, total, __ATOMIC_RELAXED);
}

void kernel_ctl_progress(const struct kernel_ctl *ctl, int64_t *done, int64_t *total)
{
	*done = __atomic_load_n(&ctl->done, __ATOMIC_RELAXED);
	*total = __atomic_load_n(&ctl->total, __ATOMIC_RELAXED);
}
