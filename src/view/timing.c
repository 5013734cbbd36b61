/* timing.c: the text of timings and comparisons (see timing.h).
 * Called by ui/screen.c, text/render.c and main.c so that the screen, `qkv
 * run` and its progress line word a time alike. Never measures anything, and
 * never leaves half a character in a buffer too short (core/utf8). */
#include "view/timing.h"
#include "core/utf8.h"

#include <stdio.h>

void timing_progress_what(char *buf, size_t size, const struct runner_progress *p)
{
	utf8_snprintf(buf, size, "Running '%s'", p->label);
}

void timing_progress_where(char *buf, size_t size, const struct runner_progress *p)
{
	if (p->nruns > 1)
		utf8_snprintf(buf, size, "run %d of %d, statement %d of %d, %.2f s", p->run + 1, p->nruns, p->statement,
			      p->nstatements, p->elapsed_ms / 1e3);
	else
		utf8_snprintf(buf, size, "statement %d of %d, %.2f s", p->statement, p->nstatements,
			      p->elapsed_ms / 1e3);
}

void timing_label_text(char *buf, size_t size, const struct timing_entry *t)
{
	if (t->repeat > 1)
		utf8_snprintf(buf, size, "%s (best of %d)", t->label, t->repeat);
	else
		utf8_snprintf(buf, size, "%s", t->label);
}

void timing_progress_text(char *buf, size_t size, const struct runner_progress *p)
{
	char what[300], where[64];
	timing_progress_what(what, sizeof what, p);
	timing_progress_where(where, sizeof where, p);
	utf8_snprintf(buf, size, "%s: %s", what, where);
}

void timing_ratio_text(char *buf, size_t size, const double *ms, int i)
{
	if (i > 0 && ms[0] > 0 && ms[i] > 0)
		utf8_snprintf(buf, size, "(%.2f\u00d7 the first)", ms[i] / ms[0]);
	else if (size)
		buf[0] = 0;
}

bool timing_compare_timed(double loops_ms, double simd_ms)
{
	return loops_ms >= 1.0 && simd_ms > 0;
}

void timing_compare_text(char *buf, size_t size, double loops_ms, double simd_ms)
{
	if (!timing_compare_timed(loops_ms, simd_ms)) {
		utf8_snprintf(buf, size, "both too quick to time");
		return;
	}
	double x = loops_ms / simd_ms;
	if (x >= 1)
		utf8_snprintf(buf, size, "loops %.1f ms, SIMD %.2f ms: SIMD is %.*f\u00d7 faster", loops_ms, simd_ms,
			 x < 10 ? 1 : 0, x);
	else
		utf8_snprintf(buf, size, "loops %.1f ms, SIMD %.2f ms: SIMD is %.1f\u00d7 slower", loops_ms, simd_ms, 1 / x);
}

/* a variant's name in a sentence */
static const char *variant_name(enum kernel_variant v)
{
	return v == KERNEL_LOOPS ? "loops" : v == KERNEL_UNROLLED ? "unrolled" : "SIMD";
}

void timing_variant_verdict_text(char *buf, size_t size, enum kernel_variant v, bool agree, double max_diff)
{
	snprintf(buf, size, "loops and %s %s (largest difference %.2g)", variant_name(v), agree ? "agree" : "DIFFER",
		 max_diff);
}

void timing_verdict_text(char *buf, size_t size, bool agree, double max_diff)
{
	timing_variant_verdict_text(buf, size, KERNEL_SIMD, agree, max_diff);
}

/* "35.2 ms", "0.81 ms": two decimals under a millisecond */
static void ms_text(char *buf, size_t size, double ms)
{
	utf8_snprintf(buf, size, "%.*f ms", ms < 1 ? 2 : 1, ms);
}

/* "43×", "3.9×": whole above 10, one decimal below */
static void times_text(char *buf, size_t size, double x)
{
	utf8_snprintf(buf, size, "%.*f\u00d7", x < 10 ? 1 : 0, x);
}

void timing_variant_text(char *buf, size_t size, enum kernel_variant v, double ms, double loops_ms)
{
	char name[32], speed[32], t[32];
	if (v == KERNEL_UNROLLED)
		utf8_snprintf(name, sizeof name, "unrolled \u00d7%d", KERNEL_UNROLL);
	else
		utf8_snprintf(name, sizeof name, "%s", variant_name(v));
	if (!timing_compare_timed(loops_ms, ms))
		utf8_snprintf(buf, size, "%s: too quick to time", name);
	else if (v == KERNEL_LOOPS) {
		ms_text(t, sizeof t, ms);
		utf8_snprintf(buf, size, "%s: %s", name, t);
	} else {
		ms_text(t, sizeof t, ms);
		times_text(speed, sizeof speed, loops_ms / ms);
		utf8_snprintf(buf, size, "%s: %s, %s the loops' speed", name, t, speed);
	}
}

void timing_compare_all_text(char *buf, size_t size, double loops_ms, double unrolled_ms, double simd_ms)
{
	if (!timing_compare_timed(loops_ms, simd_ms) || !timing_compare_timed(loops_ms, unrolled_ms)) {
		utf8_snprintf(buf, size, "all three too quick to time");
		return;
	}
	char lt[32], ut[32], st[32], un[32], simd[32];
	ms_text(lt, sizeof lt, loops_ms);
	ms_text(ut, sizeof ut, unrolled_ms);
	ms_text(st, sizeof st, simd_ms);
	times_text(un, sizeof un, loops_ms / unrolled_ms);
	times_text(simd, sizeof simd, loops_ms / simd_ms);
	utf8_snprintf(buf, size, "loops %s, unrolled %s (%s), SIMD %s (%s the loops' speed)", lt, ut, un, st, simd);
}
