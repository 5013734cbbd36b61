/* bench.h: `qkv bench`, timing the kernels on the shapes of seed 002's
 * GPT-2-sized attention (or small ones with quick), the interpreter on
 * small loops, and what a person waits for on the screen. */
#ifndef QKV_BENCH_H
#define QKV_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernel/kernel.h"

struct bench_options {
	bool json;                  /* one JSON object per line */
	bool quick;                 /* the small shapes */
	const char *const *cases;   /* the cases to run, by name (each bench_case_known), */
	int ncases;                 /* or all of them when ncases is 0 */
	unsigned variants;          /* the kernel variants to time, bit 1 << KERNEL_SIMD and so on; 0: all */
};

#define BENCH_ALL_VARIANTS ((1u << KERNEL_SIMD) | (1u << KERNEL_LOOPS) | (1u << KERNEL_UNROLLED))

/* Prints a table (or, with json, one object per line, each naming the
 * kernel path in use) of each case's time, GFLOP/s, fraction of the
 * measured peak and speed against the loops, for each variant asked for
 * (simd, unrolled, loops: the scalar two where they finish in a few
 * seconds). Returns 0. */
int bench_run(FILE *out, const struct bench_options *o);
/* Whether name is a case bench_run runs (with quick as given: the
 * one-head attn_T<T> cases differ). */
bool bench_case_known(const char *name, bool quick);
/* The names of the cases, in the order they run, separated by ", ". */
void bench_case_names(char *buf, size_t size, bool quick);

#endif
