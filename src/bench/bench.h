/* bench.h: `qkv bench`, timing the kernels on the shapes of seed 002's
 * GPT-2-sized attention (or small ones with quick). */
#ifndef QKV_BENCH_H
#define QKV_BENCH_H

#include <stdbool.h>
#include <stdio.h>

/* Prints a table (or, with json, one object per line) of each case's time,
 * GFLOP/s and fraction of the measured peak, for simd and, where they finish
 * in a few seconds, loops. Returns 0. */
int bench_run(FILE *out, bool json, bool quick);

#endif
