/* mem.c: the one place that handles running out of memory.
 * Every allocation in qkv goes through here; callers never check for NULL.
 * A large block that cannot be had goes back to the thread's trap (a
 * statement's MemoryError); otherwise the registered hook restores the
 * terminal before exit(2), the status of every failed command (qkv exits 0,
 * 1, 2 or 128+signal only). */
#include "core/mem.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void (*oom_hook)(void);
static _Thread_local struct mem_trap *trap;

/* Kept while traps are set, for the small blocks a statement still needs
 * after memory ran out: spent at the first small one that fails (then
 * mem_pressure is set), made again at the next trap. */
#define RESERVE_BYTES ((size_t)16 << 20)
static void *reserve;
static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;
volatile int mem_pressure;

void mem_trap_push(struct mem_trap *t)
{
	t->asked = 0;
	t->prev = trap;
	trap = t;
	if (!reserve) {
		pthread_mutex_lock(&reserve_lock);
		if (!reserve && !mem_pressure)
			reserve = malloc(RESERVE_BYTES);	/* none when even this fails: small failures end qkv */
		pthread_mutex_unlock(&reserve_lock);
	}
}

void mem_pressure_clear(void)
{
	mem_pressure = 0;
}

void mem_trap_pop(struct mem_trap *t)
{
	trap = t->prev;
}

/* A failed allocation of n bytes: back to the thread's trap when the block
 * was a large one; a small one under a trap spends the reserve (returns: the
 * caller asks again) and sets mem_pressure; else the end (mem_die_oom). */
static void mem_fail(size_t n)
{
	struct mem_trap *t = trap;
	if (t && n >= MEM_TRAP_MIN) {
		trap = t->prev;
		t->asked = n;
		longjmp(t->env, 1);
	}
	if (t) {
		pthread_mutex_lock(&reserve_lock);
		void *r = reserve;
		reserve = NULL;
		if (r)
			mem_pressure = 1;
		pthread_mutex_unlock(&reserve_lock);
		if (r) {
			free(r);
			return;
		}
	}
	mem_die_oom(n);
}

void mem_set_oom_hook(void (*hook)(void))
{
	oom_hook = hook;
}

void mem_die_oom(size_t n)
{
	if (oom_hook)
		oom_hook();
	if (n == SIZE_MAX)
		fprintf(stderr, "qkv: out of memory (asked for more bytes than a 64-bit count holds)\n");
	else
		fprintf(stderr, "qkv: out of memory (asked for %zu bytes)\n", n);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p;
	while (!(p = malloc(n ? n : 1)))
		mem_fail(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(count, size, &bytes))
		mem_fail(SIZE_MAX);	/* a large block: does not return */
	void *p;
	while (!(p = calloc(count ? count : 1, size ? size : 1)))
		mem_fail(bytes);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q;
	while (!(q = realloc(p, n ? n : 1)))	/* p stays as it was */
		mem_fail(n);
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	if (n == SIZE_MAX)
		mem_die_oom(n);
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* Blocks of HUGE_MIN bytes and more (a large tensor) start on a 2 MB line and
 * ask the system for huge pages before they are first touched: the cache's
 * prefetchers stop at each page's end, which with 4 KB pages comes every 16
 * rows of 64 floats (the fused attention over 120 heads of 512 tokens, 47 MB
 * of q, k and v, measured 1-6% faster). A hint: where it is refused, or
 * unknown, the block is the same with small pages. */
#define HUGE_LINE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)

void *xalloc_aligned(size_t n)
{
	if (n > SIZE_MAX - HUGE_LINE)
		mem_fail(SIZE_MAX);	/* a large block: does not return */
	size_t rounded = n ? (n + 63) / 64 * 64 : 64;
	bool huge = rounded >= HUGE_MIN;
	if (huge)
		rounded = (rounded + HUGE_LINE - 1) / HUGE_LINE * HUGE_LINE;
	void *p;
	while (!(p = aligned_alloc(huge ? HUGE_LINE : 64, rounded)))
		mem_fail(n);
#ifdef MADV_HUGEPAGE
	if (huge)
		(void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
	memset(p, 0, rounded);
	return p;
}
