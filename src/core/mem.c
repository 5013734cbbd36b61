/* mem.c: the one place that handles running out of memory.
 * Every allocation in qkv goes through here; callers never check for NULL.
 * On failure the registered hook restores the terminal before exit(3). */
#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*oom_hook)(void);

void mem_set_oom_hook(void (*hook)(void))
{
	oom_hook = hook;
}

static void die_oom(size_t n)
{
	if (oom_hook)
		oom_hook();
	fprintf(stderr, "qkv: out of memory (asked for %zu bytes)\n", n);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		die_oom(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void *xalloc_aligned(size_t n)
{
	size_t rounded = (n + 63) / 64 * 64;
	void *p = aligned_alloc(64, rounded ? rounded : 64);
	if (!p)
		die_oom(n);
	memset(p, 0, rounded ? rounded : 64);
	return p;
}
