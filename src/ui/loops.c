/* loops.c: the compare view, one drawing for the lesson screen's compare
 * shows (screen.c) and the prompt's `:show EXPR loops` (prompt.c): the
 * kernel's three variants (for-loops, unrolled, vectorised) side by side on
 * the same output grid, each animated in its own steps (loops_panel.c draws
 * one), the keys and the verdicts under them; the keys and the tick that run
 * them together. Paints view/looptrace's model; computes no numbers. */
#include "ui/internal.h"
#include "view/timing.h"

#include <stdio.h>
#include <string.h>

#define MAX_SPEED (1 << 20)
/* Three panels from this width (each as wide as the loops side was at 80
 * columns), else two. */
#define THREE_PANELS_MIN (3 * 36 + 2)

/* The pairs LOOPS_PAIR_KEY goes through where two panels fit. */
static const enum trace_variant pairs[LOOPS_PAIRS][2] = {
	{ TRACE_LOOPS, TRACE_SIMD },
	{ TRACE_LOOPS, TRACE_UNROLLED },
	{ TRACE_UNROLLED, TRACE_SIMD },
};
static const char *const short_names[TRACE_VARIANTS] = { "loops", "unrolled", "vectorised" };

void loops_stop(struct loops_anim *an)
{
	for (int v = 0; v < TRACE_VARIANTS; v++)
		looptrace_free(an->trace[v]);
	int pair = an->pair;	/* the reader's choice outlives the tensor */
	memset(an, 0, sizeof *an);
	an->pair = pair;
	an->seen_r = -1;	/* the cursor the first drawing finds is not a move */
}

/* The traces of t, built when an animates another tensor (or none). */
static void follow(struct loops_anim *an, const struct tensor *t)
{
	if (an->of == t)
		return;
	loops_stop(an);
	for (int v = 0; v < TRACE_VARIANTS && t; v++)
		an->trace[v] = looptrace_for_variant(t, (enum trace_variant)v);
	an->of = t;
}

static bool any_trace(const struct loops_anim *an)
{
	for (int v = 0; v < TRACE_VARIANTS; v++)
		if (an->trace[v])
			return true;
	return false;
}

/* Whether every trace is at its end. */
static bool all_ended(const struct loops_anim *an)
{
	for (int v = 0; v < TRACE_VARIANTS; v++)
		if (an->trace[v] && looptrace_pos(an->trace[v]) < looptrace_total(an->trace[v]))
			return false;
	return true;
}

/* Moves every trace by delta of its own steps (to its end at most), or to
 * pos when delta is 0. */
static void seek_all(struct loops_anim *an, int64_t delta, int64_t pos)
{
	for (int v = 0; v < TRACE_VARIANTS; v++) {
		struct looptrace *lt = an->trace[v];
		if (!lt)
			continue;
		int64_t total = looptrace_total(lt), p = delta ? looptrace_pos(lt) + delta : pos;
		looptrace_seek(lt, p > total ? total : p < 0 ? 0 : p);
	}
}

void loops_play(struct loops_anim *an, const struct tensor *t)
{
	follow(an, t);
	an->running = any_trace(an);
}

static int speed_of(const struct app *a)
{
	return a->speed > 0 ? a->speed : 1;
}

/* ---- drawing ---------------------------------------------------------------------- */

/* The keys line: where they fit, what the pair key shows next. */
static void draw_keys(const struct app *a, const struct loops_anim *an, bool two, int y, int x, int w)
{
	const char *r = an->running ? "pause" : all_ended(an) ? "replay" : "run";
	char full[320], mid[240], brief[160], pair[96] = "", key[16] = "", letter[8] = "";
	if (two) {
		const enum trace_variant *next = pairs[(an->pair + 1) % LOOPS_PAIRS];
		snprintf(pair, sizeof pair, ", %c: %s + %s", LOOPS_PAIR_KEY, short_names[next[0]],
			 short_names[next[1]]);
		snprintf(key, sizeof key, ", %c pair", LOOPS_PAIR_KEY);
		snprintf(letter, sizeof letter, " %c", LOOPS_PAIR_KEY);
	}
	snprintf(full, sizeof full, "s step, r %s, e end, < > speed \u00d7%d%s", r, speed_of(a), pair);
	snprintf(mid, sizeof mid, "s step, r %s, e end, < > \u00d7%d%s", r, speed_of(a), key);
	snprintf(brief, sizeof brief, "s r e < > \u00d7%d%s", speed_of(a), letter);
	const char *forms[] = { full, mid, brief, NULL };
	attron(A_DIM);
	loops_put_fitting(y, x, w, forms);
	attroff(A_DIM);
}

/* The verdicts, in the panels' order: the unrolled's against the loops
 * (short: the line is a tight fit), then SIMD's, with the times (when not
 * NULL) or else the expression when they fit (the view's title names it
 * too). */
static void draw_verdicts(const struct loops_view *v, const char *times, int y, int x, int w)
{
	char simd[160], both[400], line[800];
	timing_verdict_text(simd, sizeof simd, v->agree, v->max_diff);
	snprintf(both, sizeof both, "loops and unrolled %s (%.2g); %s", v->unrolled_agree ? "agree" : "DIFFER",
		 v->unrolled_diff, simd);
	snprintf(line, sizeof line, "%s  \u2014  %s", both, times ? times : v->expr ? v->expr : "");
	const char *forms[] = { line, both, simd, NULL };
	loops_put_fitting(y, x, w, forms);
}

void loops_draw(struct app *a, struct loops_anim *an, const struct loops_view *v, int y, int x, int w, int h)
{
	follow(an, v->t);
	bool three = w >= THREE_PANELS_MIN;
	/* the keys, the times (on their own line where the view is high) and
	 * the verdicts under the panels */
	char times[256];
	timing_compare_all_text(times, sizeof times, v->loops_ms, v->unrolled_ms, v->simd_ms);
	int under = h >= 20 ? 3 : 2;
	draw_keys(a, an, !three, y + h - under, x, w);
	if (under == 3)
		draw_fit(y + h - 2, x, times, w);
	draw_verdicts(v, under == 3 ? NULL : times, y + h - 1, x, w);
	struct heatmap hv;	/* the scale of the result, for the matrices that hold it */
	heatmap_build(&hv, v->t, NULL, 0, NULL, 0, NULL, 0, v->scale);
	enum scale_kind result = v->scale == SCALE_AUTO ? hv.scale : v->scale;
	heatmap_free(&hv);
	const double ms[TRACE_VARIANTS] = { v->loops_ms, v->unrolled_ms, v->simd_ms };
	int n = three ? 3 : 2, pw = (w - (n - 1)) / n;
	/* the cursor moved: the panels tell its cell's story until the next step */
	if (v->cursor && an->seen_r >= 0 && (v->cur_r != an->seen_r || v->cur_c != an->seen_c))
		an->inspecting = true;
	an->inspecting = an->inspecting && v->cursor;
	an->seen_r = v->cur_r;
	an->seen_c = v->cur_c;
	struct loops_panel p[TRACE_VARIANTS];
	for (int i = 0; i < n; i++) {
		enum trace_variant tv = three ? (enum trace_variant)i : pairs[an->pair % LOOPS_PAIRS][i];
		p[i] = (struct loops_panel){ .lt = an->trace[tv], .variant = tv, .code_top = &an->code_top[tv],
					     .ms = ms[tv], .result = result, .inspecting = an->inspecting };
	}
	loops_panels_build(p, n);	/* a colour is the same number in every panel */
	struct loops_rows rows;	/* each part on the same line in every panel */
	loops_panels_layout(p, n, v, pw, h - under, &rows);
	for (int i = 0; i < n; i++)
		loops_panel_draw(a, &p[i], v, &rows, y, x + i * (pw + 1), pw, h - under);
	loops_panels_free(p, n);
}

/* ---- keys and time ---------------------------------------------------------------- */

bool loops_key(struct app *a, struct loops_anim *an, int ch)
{
	switch (ch) {
	case 's':
	case 'r':
	case 'e':
		break;
	case '<': case ',':
		if (a->speed > 1)
			a->speed /= 2;
		return true;
	case '>': case '.':
		if (speed_of(a) < MAX_SPEED)
			a->speed = speed_of(a) * 2;
		return true;
	case LOOPS_PAIR_KEY:
		an->pair = (an->pair + 1) % LOOPS_PAIRS;
		return true;
	default:
		return false;
	}
	if (!any_trace(an))
		return true;
	an->inspecting = false;
	if (ch == 's') {
		an->running = false;
		seek_all(an, 1, 0);
	} else if (ch == 'e') {
		an->running = false;
		seek_all(an, 0, INT64_MAX);
	} else if (all_ended(an)) {
		/* r at the end: from the start again */
		seek_all(an, 0, 0);
		an->running = true;
	} else {
		an->running = !an->running;
	}
	return true;
}

/* Every panel moves speed of its own steps: the one with fewer, bigger steps
 * finishes first. */
static void tick(const struct app *a, struct loops_anim *an)
{
	if (!an->running)
		return;
	seek_all(an, speed_of(a), 0);
	an->running = !all_ended(an);
}

void loops_tick(struct app *a)
{
	tick(a, &a->loops);
	tick(a, &a->prompt.anim);
}
