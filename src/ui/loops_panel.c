/* loops_panel.c: one panel of the compare view (loops.c puts them side by
 * side): a variant's status, step count and time, its code scrolled to the
 * line being run, the step explained with its numbers, the unrolled partial
 * sums, the matrix it fills with the cells of the current step marked, and
 * under the cell cursor the story of that cell; each part on the same lines
 * in every panel (loops_panels_layout). Paints view/looptrace's model. */
#include "ui/internal.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "view/timing.h"

#include <stdio.h>
#include <string.h>

const char *loops_put_fitting(int y, int x, int w, const char *const *forms)
{
	int i = 0;
	while (forms[i + 1] && term_width_of(forms[i]) > w)
		i++;
	draw_fit(y, x, forms[i], w);
	return forms[i];
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
 * span stays in it, else the span a third of the way down, and never on
 * the first line while the window has room for one above it (the first
 * line of a window that has more above it is narrower: its end holds ↑). */
static int code_window(int *code_top, int n, int first, int last, int h)
{
	int top = *code_top;
	if (first >= 0 && (first < top || last >= top + h)) {
		int span = last - first + 1, above = (h - span) / 3;
		above = above < 1 && h - span >= 1 ? 1 : above;
		top = span >= h ? first : first - above;
	}
	top = top > n - h ? n - h : top;
	*code_top = top < 0 ? 0 : top;
	return *code_top;
}

/* The scale of the matrix being filled: the result's for a matmul and the
 * weighted sums, diverging while it holds scores (signed) on their way to
 * weights, so it is never labelled weights before it holds them. */
static enum scale_kind trace_scale(const struct looptrace *lt, enum scale_kind result)
{
	const char *ph = looptrace_phase(lt);
	return strcmp(ph, "scores") == 0 || strcmp(ph, "softmax") == 0 ? SCALE_DIVERGING : result;
}

/* Adds attr to the cells of rows r0..r0+nr, cols c0..c0+nc as draw_heatmap
 * drew them (L, from y, x), keeping their colours: the step's cells. */
static void mark_cells(const struct heatmap_layout *L, int y, int x, int r0, int nr, int c0, int nc, attr_t attr)
{
	int gx = x + L->label_w + (L->label_w ? 1 : 0), gy = y + L->header_h;
	int rlo = r0 > L->row0 ? r0 : L->row0, rhi = r0 + nr < L->row0 + L->vis_rows ? r0 + nr : L->row0 + L->vis_rows;
	int clo = c0 > L->col0 ? c0 : L->col0, chi = c0 + nc < L->col0 + L->vis_cols ? c0 + nc : L->col0 + L->vis_cols;
	for (int r = rlo; r < rhi; r++) {
		int yy = L->half_blocks ? gy + (r - L->row0) / 2 : gy + (r - L->row0) * L->cell_h;
		int lines = L->half_blocks ? 1 : L->cell_h;
		for (int c = clo; c < chi; c++) {
			int xx = L->half_blocks ? gx + (c - L->col0) : gx + (c - L->col0) * L->cell_w;
			int cw = L->half_blocks ? 1 : L->numbers ? L->cell_w - 1 : L->cell_w;
			for (int i = 0; i < lines; i++) {
				for (int k = 0; k < cw; k++) {
					chtype ch = mvinch(yy + i, xx + k);
					mvchgat(yy + i, xx + k, 1, (ch & A_ATTRIBUTES & ~A_COLOR) | attr,
						(short)PAIR_NUMBER(ch & A_COLOR), NULL);
				}
			}
		}
	}
}

/* The matrix being filled, labelled, from y to end: scrolled to the cursor
 * (then marked reverse) or to the step's cells (then those reverse; under the
 * cursor they are underlined). Returns the line under it. */
static int draw_matrix(struct app *a, const struct loops_panel *p, bool cursor, const struct loops_view *v, int y,
		       int x, int w, int end)
{
	struct looptrace *lt = p->lt;
	int rows, cols;
	const double *vals;
	const uint8_t *state;
	looptrace_matrix(lt, &rows, &cols, &vals, &state);
	char label[256], clause[256], brief[128];
	looptrace_matrix_label(lt, label, sizeof label);
	/* the label to its first comma after the colon: "c (3×5): sums of products" */
	const char *colon = strchr(label, ':');
	snprintf(clause, sizeof clause, "%.*s", colon ? (int)(colon - label + strcspn(colon, ",")) : 0, label);
	utf8_snprintf(brief, sizeof brief, "%s (%d\u00d7%d), %s", looptrace_matrix_name(lt), rows, cols,
		      looptrace_phase(lt));
	const char *labels[] = { label, clause[0] ? clause : brief, brief, NULL };
	attron(A_BOLD);
	loops_put_fitting(y, x, w, labels);
	attroff(A_BOLD);
	if (end - y < 3)
		return y + 1;
	const struct heatmap *hm = &p->map;
	int rr, rc, rn, cn;
	bool step = looptrace_current_rect(lt, &rr, &rc, &rn, &cn);
	int cr = cursor ? (v->cur_r < rows ? v->cur_r : rows - 1) : step ? rr : 0;
	int cc = cursor ? (v->cur_c < cols ? v->cur_c : cols - 1) : step ? rc : 0;
	draw_heatmap(a, hm, y + 1, x, end - y - 1, w, cr, cc, cursor, a->zoom, false);
	struct heatmap_layout L;
	heatmap_layout(hm, draw_heatmap_ink(a), w, end - y - 1, a->zoom, false, cr, cc, &L);
	if (step && L.vis_rows > 0 && L.vis_cols > 0)
		mark_cells(&L, y + 1, x, rr, rn, rc, cn, cursor ? A_UNDERLINE : A_REVERSE);
	return y + 1 + (L.vis_rows > 0 && L.vis_cols > 0 ? L.height : 1);
}

void loops_panels_build(struct loops_panel *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i].lt) {
			heatmap_build_trace(&p[i].map, p[i].lt, trace_scale(p[i].lt, p[i].result));
			heatmap_set_name(&p[i].map, looptrace_matrix_name(p[i].lt));	/* its legend too */
		}
	double lo[TRACE_VARIANTS], hi[TRACE_VARIANTS];
	for (int i = 0; i < n && i < TRACE_VARIANTS; i++) {
		const struct heatmap *m = &p[i].map;
		lo[i] = m->lo;
		hi[i] = m->hi;
		for (int j = 0; j < n && p[i].lt; j++) {
			const struct heatmap *o = &p[j].map;
			if (j != i && p[j].lt && o->rows == m->rows && o->cols == m->cols && o->scale == m->scale &&
			    strcmp(o->name, m->name) == 0) {
				lo[i] = o->lo < lo[i] ? o->lo : lo[i];
				hi[i] = o->hi > hi[i] ? o->hi : hi[i];
			}
		}
	}
	for (int i = 0; i < n && i < TRACE_VARIANTS; i++) {
		p[i].map.lo = lo[i];
		p[i].map.hi = hi[i];
	}
}

void loops_panels_free(struct loops_panel *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i].lt)
			heatmap_free(&p[i].map);
}

/* The status's lines in a panel of h lines: its title and count, then its
 * steps and its time (on one line below 24, beside each other below 12). */
static int status_lines(int h)
{
	return h >= 30 ? 4 : h >= 24 ? 3 : h >= 12 ? 2 : 1;
}

/* The first lines (lines of them, from status_lines): where the animation is
 * ("for-loops: 75 of 320", the title shortened to its first word, then
 * without it when narrow), what the whole takes in its steps (on steps
 * lines, 1 or 2, from 3 lines on), the measured time. */
static void draw_status(struct looptrace *lt, enum trace_variant variant, const struct loops_view *v, double ms,
			int y, int x, int w, int lines, int steps_lines)
{
	long long pos = looptrace_pos(lt), total = looptrace_total(lt);
	char title[160], word[160], full[256], brief[256], count[64], steps[256], time[256];
	looptrace_variant_title(lt, title, sizeof title);
	snprintf(word, sizeof word, "%.*s", (int)strcspn(title, " "), title);
	snprintf(full, sizeof full, "%s: %lld of %lld", title, pos, total);
	snprintf(brief, sizeof brief, "%s: %lld of %lld", word, pos, total);
	snprintf(count, sizeof count, "%lld/%lld", pos, total);
	const char *forms[] = { full, brief, count, NULL };
	attron(A_BOLD);
	loops_put_fitting(y, x, w, forms);
	attroff(A_BOLD);
	if (lines < 2)
		return;
	looptrace_steps_text(lt, steps, sizeof steps);
	static const enum kernel_variant kernel_of[TRACE_VARIANTS] = { KERNEL_LOOPS, KERNEL_UNROLLED, KERNEL_SIMD };
	timing_variant_text(time, sizeof time, kernel_of[variant], ms, v->loops_ms);
	if (lines < 3) {
		char both[600];
		snprintf(both, sizeof both, "%s; %s", steps, time);
		const char *f[] = { both, steps, NULL };
		loops_put_fitting(y + 1, x, w, f);
		return;
	}
	draw_wrapped(steps, y + 1, x, w, steps_lines, 0, A_NORMAL);
	attron(A_DIM);
	draw_fit(y + 1 + steps_lines, x, time, w);
	attroff(A_DIM);
}

/* A panel with no trace: SIMD's result at once, or why there is none. */
static void draw_untraced(struct app *a, enum trace_variant variant, const struct loops_view *v, int y, int x,
			  int w, int h)
{
	static const char *const none[TRACE_VARIANTS] = {
		"(no loop version to animate for this expression)",
		"(no unrolled version to animate for this expression)",
		NULL,
	};
	if (none[variant]) {
		draw_wrapped(none[variant], y, x, w, h, 0, A_NORMAL);
		return;
	}
	attron(A_BOLD);
	const char *titles[] = { "vectorised (SIMD), all at once", "SIMD, all at once", "SIMD", NULL };
	loops_put_fitting(y, x, w, titles);
	attroff(A_BOLD);
	struct heatmap hv;
	heatmap_build(&hv, v->t, NULL, 0, v->rows, v->nrows, v->cols, v->ncols, v->scale);
	heatmap_set_name(&hv, v->expr);
	draw_heatmap(a, &hv, y + 1, x, h - 1, w, v->cursor ? v->cur_r : 0, v->cursor ? v->cur_c : 0, v->cursor,
		     a->zoom, false);
	heatmap_free(&hv);
}

/* What a panel says in words about its step: the step explained, its
 * indices, the unrolled partial sums, and under the cell cursor (when the
 * panel is inspecting) the story of that cell. */
struct panel_words {
	char expl[1024], idx[160], parts[512], story[1024];
};

static void panel_words(const struct loops_panel *p, const struct loops_view *v, struct panel_words *pw)
{
	struct looptrace *lt = p->lt;
	looptrace_explain(lt, pw->expl, sizeof pw->expl);
	looptrace_indices(lt, pw->idx, sizeof pw->idx);
	pw->parts[0] = pw->story[0] = 0;
	const double *sums;
	int np = looptrace_partials(lt, &sums);
	for (int i = 0; i < np; i++) {
		size_t n = strlen(pw->parts);
		snprintf(pw->parts + n, sizeof pw->parts - n, "%ss%d=%.3g", i ? " " : "", i, sums[i]);
	}
	if (p->inspecting) {
		int rows, cols;
		const double *vals;
		const uint8_t *state;
		looptrace_matrix(lt, &rows, &cols, &vals, &state);
		looptrace_cell_story(lt, v->cur_r < rows ? v->cur_r : rows - 1, v->cur_c < cols ? v->cur_c : cols - 1,
				     pw->story, sizeof pw->story);
	}
}

/* Lines text takes wrapped to w columns (0 for ""). */
static int wrapped_lines(const char *text, int w)
{
	return text[0] ? draw_wrapped(text, 0, 0, w, 0, 0, A_NORMAL) : 0;
}

static int at_most(int n, int most)
{
	return n < most ? n : most;
}

static int at_least(int n, int least)
{
	return n > least ? n : least;
}

void loops_panels_layout(const struct loops_panel *p, int n, const struct loops_view *v, int w, int h,
			 struct loops_rows *rows)
{
	memset(rows, 0, sizeof *rows);
	int lines = status_lines(h), ncode = 0, expl = 0, story_expl = 0, parts = 0, story = 0;
	int map_min = 0, map_want = 0;
	bool idx = false;
	for (int i = 0; i < n; i++) {
		if (!p[i].lt)
			continue;
		struct looptrace *lt = p[i].lt;
		struct panel_words pw;
		panel_words(&p[i], v, &pw);
		if (lines >= 4) {
			char steps[256];
			looptrace_steps_text(lt, steps, sizeof steps);
			rows->steps = at_least(rows->steps, at_most(wrapped_lines(steps, w), 2));
		}
		const char *const *code;
		ncode = at_least(ncode, looptrace_code(lt, &code));
		expl = at_least(expl, wrapped_lines(pw.expl, w));
		story_expl = at_least(story_expl, wrapped_lines(pw.story[0] ? pw.story : pw.expl, w));
		parts = at_least(parts, at_most(wrapped_lines(pw.parts, w), h >= 30 ? 2 : 1));
		story = at_least(story, at_most(wrapped_lines(pw.story, w), 3));
		idx |= pw.idx[0] != 0;
		/* the matrix wants a label, a legend and between them a header and
		 * a line a row (numbers, for up to 12 rows), else at least half
		 * blocks (6 lines at most; numbers up to 6 rows) */
		int mr, mc;
		const double *vals;
		const uint8_t *state;
		looptrace_matrix(lt, &mr, &mc, &vals, &state);
		int half = (mr + 1) / 2, least = mr <= 6 ? mr + 3 : 2 + at_most(half, 6);
		map_min = at_least(map_min, least);
		map_want = at_least(map_want, mr <= 12 ? mr + 3 : least);
	}
	if (lines >= 3)
		rows->steps = at_least(rows->steps, 1);
	rows->status = lines < 3 ? lines : 2 + rows->steps;
	rows->story_below = story && h >= 20;
	if (story && !rows->story_below)
		expl = story_expl;	/* the story takes the explanation's place */
	rows->story = rows->story_below ? story : 0;
	/* what is left under the status (and above the story), given out in
	 * order: the code's first 3 lines (or all of it), the matrix's label,
	 * the whole explanation, the matrix at its least, a fourth line of
	 * code, the partial sums, the indices; then the matrix up to what it
	 * wants, the rest of the code, and what is still left to the matrix */
	int left = at_least(h - rows->status - rows->story, 0);
	rows->code = at_most(at_most(ncode, 3), left);
	left -= rows->code;
	int label = at_most(1, left);
	left -= label;
	rows->expl = at_most(expl, left);
	left -= rows->expl;
	int map_more = label && map_min - 1 <= left ? map_min - 1 : 0;
	left -= map_more;
	int fourth = at_most(at_most(ncode, 4) - rows->code, left);
	rows->code += fourth;
	left -= fourth;
	rows->parts = at_most(parts, left);
	left -= rows->parts;
	rows->idx = idx && left >= 1 && h - rows->status >= 10 ? 1 : 0;
	left -= rows->idx;
	if (map_more)
		left -= at_most(map_want - map_min, left);
	rows->code += at_most(ncode - rows->code, left);
}

void loops_panel_draw(struct app *a, const struct loops_panel *p, const struct loops_view *v,
		      const struct loops_rows *rows, int y, int x, int w, int h)
{
	struct looptrace *lt = p->lt;
	if (!lt) {
		draw_untraced(a, p->variant, v, y, x, w, h);
		return;
	}
	int end = y + h - rows->story;
	struct panel_words pw;
	panel_words(p, v, &pw);
	draw_status(lt, p->variant, v, p->ms, y, x, w, status_lines(h), rows->steps);
	y += rows->status;
	const char *const *lines;
	int n = looptrace_code(lt, &lines), first, last;
	looptrace_current_span(lt, &first, &last);
	draw_code(lines, n, code_window(p->code_top, n, first, last, rows->code), first, last, y, x, w, rows->code);
	y += rows->code;
	if (rows->idx)
		draw_fit(y, x, pw.idx, w);
	y += rows->idx;
	/* the cell's story under the cursor: under the matrix, or in a low
	 * panel in the place of the step's explanation */
	draw_wrapped(pw.story[0] && !rows->story_below ? pw.story : pw.expl, y, x, w, rows->expl, 0, A_NORMAL);
	y += rows->expl;
	if (rows->parts && pw.parts[0])
		draw_wrapped(pw.parts, y, x, w, rows->parts, 0, A_BOLD);
	y += rows->parts;
	if (end - y >= 1)
		y = draw_matrix(a, p, v->cursor && p->inspecting, v, y, x, w, end);
	if (rows->story)
		draw_wrapped(pw.story, y < end ? y : end, x, w, rows->story, 0, A_DIM);
}
