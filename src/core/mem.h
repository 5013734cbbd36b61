/* mem.h: allocation that never returns NULL.
 * A large block (MEM_TRAP_MIN bytes or more: a tensor's data, a long list's
 * items, a long string) that cannot be had while a trap is set on the thread
 * (mem_trap_push: the interpreter sets one around each statement) jumps back
 * to it, so that the statement ends with a MemoryError and the session goes
 * on. Anything else out of memory is not recoverable: xmalloc and friends
 * call the hook that restores the terminal (set by ui/), print one line
 * ("qkv: out of memory (asked for N bytes)") and exit with status 2, as every
 * failed command does. */
#ifndef QKV_CORE_MEM_H
#define QKV_CORE_MEM_H

#include <setjmp.h>
#include <stddef.h>

/* The smallest allocation whose failure a trap catches: the small fixed
 * ones (a value, a frame, an undo entry) are made where a jump could leave
 * half-built state, and fail only when everything does. */
#define MEM_TRAP_MIN ((size_t)1 << 20)

struct mem_trap {
	jmp_buf env;
	size_t asked;              /* after the jump: the bytes that could not be had */
	struct mem_trap *prev;
};

/* Sets t as the thread's trap (nesting: the innermost one catches). Then
 * `if (setjmp(t->env) == 0) { work; mem_trap_pop(t); } else { t->asked ... }`:
 * the jump comes back with the trap already popped. What the work held on
 * the C stack is not freed (a leak of that statement's temporaries). Only a
 * large block jumps: a small one uses the reserve below. */
void mem_trap_push(struct mem_trap *t);
void mem_trap_pop(struct mem_trap *t);

/* A small block that fails under a trap is had from a reserve of 16 MiB that
 * mem_trap_push keeps; then this is set, and the statement stops at its next
 * check (interp_check_interrupt, as for Ctrl-C) with a MemoryError, freeing
 * what it made on its way out. Cleared when the statement ends. */
extern volatile int mem_pressure;
void mem_pressure_clear(void);

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
