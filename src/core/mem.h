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

#endif
