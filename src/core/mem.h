/* mem.h: allocation that never returns NULL.
 * Out of memory is not recoverable: xmalloc and friends call the hook that
 * restores the terminal (set by ui/), print one line ("qkv: out of memory
 * (asked for N bytes)") and exit with status 2, as every failed command does. */
#ifndef QKV_CORE_MEM_H
#define QKV_CORE_MEM_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* 64-byte aligned, zero-filled; free with free(). */
void *xalloc_aligned(size_t n);

/* What the allocators do when n bytes cannot be had (SIZE_MAX: a byte count
 * that overflowed): the hook, the line on stderr, exit(2). */
_Noreturn void mem_die_oom(size_t n);

/* Called once before exiting on out-of-memory (e.g. endwin). */
void mem_set_oom_hook(void (*hook)(void));

/* The n bytes at p (n a multiple of 16, p 8-byte aligned) set to zero by
 * 16-byte stores: for the struct sizes that are made per operation (a
 * value, a tensor, a call's arguments; n a constant there) memset's string
 * instruction or call costs more to start than the stores take. */
static inline void mem_zero16(void *p, size_t n)
{
	typedef unsigned long long block __attribute__((vector_size(16), may_alias, aligned(8)));
	block *z = p;
#pragma GCC unroll 16
	for (size_t i = 0; i < n / sizeof *z; i++)
		z[i] = (block){ 0, 0 };
}

#endif
