/* internal.h: what bench.c (the kernels and the interpreter) and feel.c
 * (what a person waits for on the screen) share: the report and the
 * timing loop. Only for src/bench. */
#ifndef QKV_BENCH_INTERNAL_H
#define QKV_BENCH_INTERNAL_H

#include "kernel/kernel.h"

#include <stdbool.h>
#include <stdio.h>

struct report {
	FILE *out;
	bool json;
	double peak;        /* GFLOP/s; 0 when not measured (no kernel case ran) */
	const char *path;   /* the kernel path in use: kernel_simd_name() */
	unsigned variants;  /* the kernel variants to time: bit 1 << KERNEL_... */
};

double bench_now_ms(void);
/* The best of 10 runs of run(arg, v) within about a second (one when a run
 * takes over a second), or of as many as fit in a quarter of a second (up
 * to 1000) when runs are short: on a shared machine any one run may be
 * slowed, the best is the code's own speed. */
double bench_time_ms(void (*run)(void *, enum kernel_variant), void *arg, enum kernel_variant v);
/* A case timed without a flop count (the interpreter's, the screen's):
 * one line, or one JSON object, with its variant ("interp", "ui"), its
 * time, and failed when it could not run (then no time). */
void bench_report_ms(struct report *r, const char *name, const char *variant, double ms, bool failed);

/* feel.c: `qkv 1` to its first frame, the redraw of a 64x64 heatmap after
 * a key, and a key at the prompt with a 2048x2048 value shown, computed
 * and painted the way the full screen does minus curses. */
void bench_first_frame(struct report *r);
void bench_redraw_64(struct report *r);
void bench_redraw_2048(struct report *r);

#endif
