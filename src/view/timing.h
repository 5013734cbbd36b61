/* timing.h: the words and numbers of a timing show and of a comparison of
 * the kernel variants (loops, unrolled, SIMD), written the same way by the
 * screen and by `qkv run`: the progress line of a timing that is running,
 * each time's ratio to the first, and a comparison's times with how many
 * times faster each variant was than the loops. Pure: formats into a
 * caller's buffer. */
#ifndef QKV_VIEW_TIMING_H
#define QKV_VIEW_TIMING_H

#include "kernel/kernel.h"
#include "lesson/runner.h"

#include <stdbool.h>
#include <stddef.h>

/* "Running 'LABEL': statement 17 of 41, 0.84 s" (the entry's computation
 * time so far): the two halves below, joined by ": ". */
void timing_progress_text(char *buf, size_t size, const struct runner_progress *p);
/* "Running 'LABEL'" */
void timing_progress_what(char *buf, size_t size, const struct runner_progress *p);
/* "statement 17 of 41, 0.84 s", or "run 2 of 3, statement 17 of 41, 0.84 s" */
void timing_progress_where(char *buf, size_t size, const struct runner_progress *p);

/* An entry as a timing shows it: its label, with "(best of 3)" after it
 * when it repeats (cut to fit TIMING_LABEL_MAX bytes, at a character). */
#define TIMING_LABEL_MAX 512
void timing_label_text(char *buf, size_t size, const struct timing_entry *t);

/* Entry i's time against the first: "(1.23× the first)"; "" for i = 0 or
 * when a time is 0. */
void timing_ratio_text(char *buf, size_t size, const double *ms, int i);

/* A comparison's times: "loops 35.2 ms, SIMD 0.81 ms: SIMD is 43×
 * faster", or "both
 * too quick to time" when the loops took under a millisecond (the clock then
 * measures noise, not the kernels). */
void timing_compare_text(char *buf, size_t size, double loops_ms, double simd_ms);

/* Whether a comparison's times are worth showing: false when the loops
 * took under a millisecond (or SIMD no time), where the clock measures
 * noise; timing_compare_text then says "both too quick to time". */
bool timing_compare_timed(double loops_ms, double simd_ms);

/* A comparison's verdict: "loops and SIMD agree (largest difference
 * 1.2e-07)", or "... DIFFER ..." (lesson/compare judges which). */
void timing_verdict_text(char *buf, size_t size, bool agree, double max_diff);
/* The same for variant v against the loops: "loops and unrolled agree
 * (largest difference 2.4e-07)". */
void timing_variant_verdict_text(char *buf, size_t size, enum kernel_variant v, bool agree, double max_diff);

/* One variant's time for its panel: "unrolled ×4: 9.1 ms, 3.9× the loops'
 * speed", "SIMD: 0.81 ms, 43× the loops' speed", "loops: 35.2 ms";
 * "unrolled ×4: too quick to time" when the loops took under a millisecond
 * (timing_compare_timed). */
void timing_variant_text(char *buf, size_t size, enum kernel_variant v, double ms, double loops_ms);

/* A comparison's three times: "loops 35.2 ms, unrolled 9.1 ms (3.9×),
 * SIMD 0.81 ms (43× the loops' speed)", or "all three too quick to time"
 * (when the loops took under a millisecond). */
void timing_compare_all_text(char *buf, size_t size, double loops_ms, double unrolled_ms, double simd_ms);

#endif
