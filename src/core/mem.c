/* mem.c: the one place that handles running out of memory.
 * Every allocation in qkv goes through here; callers never check for NULL.
 * On failure the registered hook restores the terminal before exit(2), the
 * status of every failed command (qkv exits 0, 1, 2 or 128+signal only). */
#include "core/mem.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void (*oom_hook)(void);

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
	void *p = malloc(n ? n : 1);
	if (!p)
		mem_die_oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(count, size, &bytes))
		mem_die_oom(SIZE_MAX);
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		mem_die_oom(bytes);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		mem_die_oom(n);
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
		mem_die_oom(n);
	size_t rounded = n ? (n + 63) / 64 * 64 : 64;
	bool huge = rounded >= HUGE_MIN;
	if (huge)
		rounded = (rounded + HUGE_LINE - 1) / HUGE_LINE * HUGE_LINE;
	void *p = aligned_alloc(huge ? HUGE_LINE : 64, rounded);
	if (!p)
		mem_die_oom(n);
#ifdef MADV_HUGEPAGE
	if (huge)
		(void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
	memset(p, 0, rounded);
	return p;
}
