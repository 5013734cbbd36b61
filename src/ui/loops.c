/* loops.c: the loops-beside-SIMD view, one drawing for the lesson screen's
 * compare shows (screen.c) and the prompt's `:show EXPR loops` (prompt.c):
 * the loop code scrolled to the line being run, the iteration explained with
 * its numbers, the matrix it fills, the SIMD result beside it; its keys and
 * the tick that runs it. Paints view/looptrace's model; computes no numbers. */
#include "ui/internal.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "view/timing.h"

#include <stdio.h>
#include <string.h>

#define MAX_SPEED (1 << 20)

void loops_stop(struct loops_anim *an)
{
	looptrace_free(an->trace);
	memset(an, 0, sizeof *an);
}

/* The trace of t, built when an animates another tensor (or none). */
static void follow(struct loops_anim *an, const struct tensor *t)
{
	if (an->of == t)
		return;
	loops_stop(an);
	an->trace = t ? looptrace_for(t) : NULL;
	an->of = t;
}

void loops_play(struct loops_anim *an, const struct tensor *t)
{
	follow(an, t);
	an->running = an->trace != NULL;
}

static int speed_of(const struct app *a)
{
	return a->speed > 0 ? a->speed : 1;
}

/* ---- drawing ---------------------------------------------------------------------- */

/* Puts the first of forms (NULL-terminated) that fits w columns whole; the
 * last one cut when none does. Returns the form put. */
static const char *put_fitting(int y, int x, int w, const char *const *forms)
{
	int i = 0;
	while (forms[i + 1] && term_width_of(forms[i]) > w)
		i++;
	term_put(y, x, forms[i], w);
	return forms[i];
}

/* The status line(s) of the left side: where the animation is, and its keys
 * when they fit; on two lines when one is too narrow and room allows.
 * Returns the lines used. */
static int draw_status(const struct app *a, const struct loops_anim *an, int y, int x, int w, bool two)
{
	int64_t pos = looptrace_pos(an->trace), total = looptrace_total(an->trace);
	const char *r = an->running ? "pause" : pos >= total ? "replay" : "run";
	char where[96], full[320], keys[160], brief[160];
	snprintf(where, sizeof where, "for-loops: %lld of %lld", (long long)pos, (long long)total);
	snprintf(keys, sizeof keys, "s step, r %s, e end, < > speed \u00d7%d", r, speed_of(a));
	snprintf(full, sizeof full, "%s  (%s)", where, keys);
	attron(A_BOLD);
	if (term_width_of(full) <= w || !two) {
		snprintf(brief, sizeof brief, "%s  s r e < > \u00d7%d", where, speed_of(a));
		char count[64];
		snprintf(count, sizeof count, "%lld/%lld", (long long)pos, (long long)total);
		const char *forms[] = { full, brief, where, count, NULL };
		put_fitting(y, x, w, forms);
		attroff(A_BOLD);
		return 1;
	}
	snprintf(brief, sizeof brief, "%s, speed \u00d7%d", where, speed_of(a));
	const char *first[] = { brief, where, NULL };
	put_fitting(y, x, w, first);
	attroff(A_BOLD);
	snprintf(keys, sizeof keys, "s step  r %s  e end  < > speed", r);
	const char *second[] = { keys, "s r e < >", NULL };
	attron(A_DIM);
	put_fitting(y + 1, x, w, second);
	attroff(A_DIM);
	return 2;
}

/* The lines lines[0..n) from top, h of them, the current span first..last
 * in reverse video; cut lines end in "…", and ↑ ↓ mark lines out of view. */
static void draw_code(const char *const *lines, int n, int top, int first, int last, int y, int x, int w, int h)
{
	for (int i = 0; i < h && top + i < n; i++) {
		int li = top + i;
		bool more = (i == 0 && top > 0) || (i == h - 1 && top + h < n);
		struct strbuf sb;
		strbuf_init(&sb);
		term_fit(&sb, lines[li], more ? w - 2 : w, 0);
		bool cur = li >= first && li <= last && first >= 0;
		if (cur)
			attron(A_REVERSE);
		term_put(y + i, x, sb.s, w);
		if (cur)
			attroff(A_REVERSE);
		strbuf_free(&sb);
		if (more) {
			attron(A_DIM);
			term_put(y + i, x + w - 1, i == 0 && top > 0 ? "\u2191" : "\u2193", 1);
			attroff(A_DIM);
		}
	}
}

/* The first line of the code window of h lines: unchanged while the current
 * span stays in it, else the span a third of the way down. */
static int code_window(struct loops_anim *an, int n, int first, int last, int h)
{
	int top = an->code_top;
	if (first >= 0 && (first < top || last >= top + h)) {
		int span = last - first + 1;
		top = span >= h ? first : first - (h - span) / 3;
	}
	top = top > n - h ? n - h : top;
	an->code_top = top < 0 ? 0 : top;
	return an->code_top;
}

/* The scale of the matrix being filled: the result's for a matmul and the
 * weighted sums, diverging while it holds scores (signed) on their way to
 * weights, so it is never labelled weights before it holds them. */
static enum scale_kind trace_scale(const struct looptrace *lt, enum scale_kind result)
{
	const char *ph = looptrace_phase(lt);
	return strcmp(ph, "scores") == 0 || strcmp(ph, "softmax") == 0 ? SCALE_DIVERGING : result;
}

/* The left side: status, code, indices, explanation, the matrix filling. */
static void draw_loops_side(struct app *a, struct loops_anim *an, enum scale_kind result, int y, int x, int w,
			    int h)
{
	struct looptrace *lt = an->trace;
	int end = y + h;
	y += draw_status(a, an, y, x, w, h >= 12);
	char expl[1024], idx[160];
	looptrace_explain(lt, expl, sizeof expl);
	looptrace_indices(lt, idx, sizeof idx);
	int ex = draw_wrapped(expl, 0, 0, w, 0, 0, A_NORMAL);	/* counts only */
	ex = ex > 3 ? 3 : ex;
	int ix = idx[0] && end - y >= 10 ? 1 : 0;
	int rest = end - y - ex - ix;
	const char *const *lines;
	int n = looptrace_code(lt, &lines), first, last;
	looptrace_current_span(lt, &first, &last);
	/* the matrix wants a label, its half blocks (6 lines at most) and a
	 * legend; the code keeps at least 4 lines (or all of it) before it, and
	 * before the label alone when the matrix does not fit */
	int rows, cols;
	const double *vals;
	const uint8_t *state;
	looptrace_matrix(lt, &rows, &cols, &vals, &state);
	int half = (rows + 1) / 2, map_min = 1 + (half < 6 ? half : 6) + 1;
	int code_min = n < 4 ? n : 4;
	int room = rest - map_min >= code_min ? rest - map_min : rest - 1 >= code_min ? rest - 1 : rest;
	int code_h = n < room ? n : room;
	code_h = code_h < 0 ? 0 : code_h;
	draw_code(lines, n, code_window(an, n, first, last, code_h), first, last, y, x, w, code_h);
	y += code_h;
	if (ix)
		term_put(y++, x, idx, w);
	draw_wrapped(expl, y, x, w, ex, 0, A_NORMAL);
	y += ex;
	if (end - y >= 1) {
		/* the label, else the matrix's name, size and phase */
		char label[256], brief[128];
		looptrace_matrix_label(lt, label, sizeof label);
		utf8_snprintf(brief, sizeof brief, "%s (%d\u00d7%d), %s", looptrace_matrix_name(lt), rows, cols,
			      looptrace_phase(lt));
		const char *labels[] = { label, brief, NULL };
		attron(A_BOLD);
		put_fitting(y, x, w, labels);
		attroff(A_BOLD);
		if (end - y < 3)
			return;
		struct heatmap hm;
		heatmap_build_trace(&hm, lt, trace_scale(lt, result));
		heatmap_set_name(&hm, looptrace_matrix_name(lt));	/* its legend too */
		/* scrolled to the cell being computed, which is highlighted */
		int cr, cc;
		bool cell = looptrace_current_cell(lt, &cr, &cc);
		draw_heatmap(a, &hm, y + 1, x, end - y - 1, w, cell ? cr : 0, cell && cc >= 0 ? cc : 0, cell && cc >= 0,
			     a->zoom, false);
		heatmap_free(&hm);
	}
}

void loops_draw(struct app *a, struct loops_anim *an, const struct loops_view *v, int y, int x, int w, int h)
{
	follow(an, v->t);
	/* the last two lines: the times, then the verdict (with the expression
	 * when it fits: the view's title names it too) */
	char times[256], verdict[160], line[600];
	timing_compare_text(times, sizeof times, v->loops_ms, v->simd_ms);
	timing_verdict_text(verdict, sizeof verdict, v->agree, v->max_diff);
	snprintf(line, sizeof line, "%s  \u2014  %s", verdict, v->expr ? v->expr : "");
	const char *verdicts[] = { line, verdict, NULL };
	put_fitting(y + h - 1, x, w, verdicts);
	term_put(y + h - 2, x, times, w);
	int half = w / 2;
	/* right: the vectorised result at once */
	struct heatmap hv;
	heatmap_build(&hv, v->t, NULL, 0, v->rows, v->nrows, v->cols, v->ncols, v->scale);
	heatmap_set_name(&hv, v->expr);
	attron(A_BOLD);
	const char *titles[] = { "vectorised (SIMD), all at once", "SIMD, all at once", "SIMD", NULL };
	put_fitting(y, x + half + 1, half - 1, titles);
	attroff(A_BOLD);
	/* scrolled to the row (and, for a matrix of its size, the cell) the
	 * loops are at, when it does not fit whole */
	int fr = 0, fc = 0, cr, cc;
	if (an->trace && looptrace_current_cell(an->trace, &cr, &cc)) {
		int rows, cols;
		const double *vals;
		const uint8_t *state;
		looptrace_matrix(an->trace, &rows, &cols, &vals, &state);
		fr = cr < hv.rows ? cr : 0;
		fc = rows == hv.rows && cols == hv.cols && cc >= 0 ? cc : 0;
	}
	draw_heatmap(a, &hv, y + 1, x + half + 1, h - 3, half - 1, fr, fc, false, a->zoom, false);
	enum scale_kind result = v->scale == SCALE_AUTO ? hv.scale : v->scale;
	heatmap_free(&hv);
	if (!an->trace) {
		draw_wrapped("(no loop version to animate for this expression)", y + 1, x, half - 1, h - 3, 0, A_NORMAL);
		return;
	}
	draw_loops_side(a, an, result, y, x, half - 1, h - 2);
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
	default:
		return false;
	}
	if (!an->trace)
		return true;
	int64_t pos = looptrace_pos(an->trace), total = looptrace_total(an->trace);
	if (ch == 's') {
		an->running = false;
		looptrace_seek(an->trace, pos + 1);
	} else if (ch == 'e') {
		an->running = false;
		looptrace_seek(an->trace, total);
	} else if (pos >= total) {
		/* r at the end: from the start again */
		looptrace_seek(an->trace, 0);
		an->running = true;
	} else {
		an->running = !an->running;
	}
	return true;
}

static void tick(const struct app *a, struct loops_anim *an)
{
	if (!an->trace || !an->running)
		return;
	int64_t pos = looptrace_pos(an->trace) + speed_of(a), total = looptrace_total(an->trace);
	if (pos >= total) {
		pos = total;
		an->running = false;
	}
	looptrace_seek(an->trace, pos);
}

void loops_tick(struct app *a)
{
	tick(a, &a->loops);
	tick(a, &a->prompt.anim);
}
