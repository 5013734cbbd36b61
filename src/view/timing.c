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

void timing_verdict_text(char *buf, size_t size, bool agree, double max_diff)
{
	snprintf(buf, size, "loops and SIMD %s (largest difference %.2g)", agree ? "agree" : "DIFFER", max_diff);
}
