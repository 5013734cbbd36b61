/* draw.c: drawing view models with curses: heatmaps (numbers, colours or
 * shades, masked cells, the cursor, half blocks, big cells as a solid grid,
 * labels cut with "…") and wrapped text
 * (laid out by core/utf8: utf8_wrap and utf8_cut).
 * Called by the screens; computes nothing about layout itself (that is
 * view/heatmap.c's heatmap_layout). */
#include "ui/internal.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct heatmap_ink draw_heatmap_ink(const struct app *a)
{
	return (struct heatmap_ink){ a->cmode, term_utf8() };
}

/* The attributes and colour pair of cell (r, c): its colour on the scale,
 * magenta for NaN (palette_nan_rgb), none for masked and +inf cells, which
 * are dim; reversed under the cursor. */
static attr_t cell_attr(struct app *a, const struct heatmap *h, int r, int c, bool cursor, short *pair)
{
	enum cell_kind k = heatmap_cell_kind(h, r, c);
	attr_t at = A_NORMAL;
	*pair = 0;
	if (k == CELL_VALUE && a->cmode != COLOR_NONE)
		at = term_cell_attr(a, palette_rgb(h->scale, heatmap_position(h, heatmap_value(h, r, c))), pair);
	else if (k == CELL_NAN && a->cmode != COLOR_NONE)
		at = term_cell_attr(a, palette_nan_rgb(), pair);
	if (k != CELL_VALUE && k != CELL_NAN)
		at |= A_DIM;
	if (cursor)
		at |= A_REVERSE | A_BOLD;
	return at;
}

static void put_attr(int y, int x, const char *s, int w, attr_t at, short pair)
{
	attr_set(at, pair, NULL);
	term_put(y, x, s, w);
	attr_set(A_NORMAL, 0, NULL);
}

/* Fills out (size bytes) with n copies of the UTF-8 character s. */
static void repeat_char(char *out, size_t size, const char *s, int n)
{
	size_t len = strlen(s), used = 0;
	for (int i = 0; i < n && used + len < size; i++, used += len)
		memcpy(out + used, s, len);
	out[used] = 0;
}

/* Draws cell (r, c) of a grid laid out by L at y, x: L->cell_h lines of
 * L->cell_w columns. A number is right-aligned before the gap column, which
 * takes the cell's colour; with L->marks (8 colours) a space, its mark
 * (heatmap_cell_mark) in the terminal's own colours and the gap follow it.
 * Without numbers the mark fills the cell (over its colour when there is
 * colour), after its sign with L->signs, so magnitude never rests on colour
 * alone; masked cells are dots. Big cells are solid blocks with the number
 * centred on their first line. */
static void draw_cell(struct app *a, const struct heatmap *h, const struct heatmap_layout *L, int r, int c, int y,
		      int x, bool cursor)
{
	short pair;
	attr_t at = cell_attr(a, h, r, c, cursor, &pair);
	enum cell_kind k = heatmap_cell_kind(h, r, c);
	const char *mark = heatmap_cell_mark(h, r, c);
	bool big = L->cell_h > 1, beside = L->marks;
	int w = L->cell_w;
	char line[512], body[160];
	if (k == CELL_BLANK) {
		/* no value yet (a loop trace's cell not computed): blank */
		snprintf(line, sizeof line, "%*s", w, "");
		for (int i = 0; i < L->cell_h; i++)
			put_attr(y + i, x, line, w, cursor ? A_REVERSE : A_NORMAL, 0);
		return;
	}
	if (!L->numbers) {
		int n = big ? w : w - 1;
		const char *sign = L->signs ? heatmap_cell_sign(h, r, c) : "";
		int sw = L->signs ? 1 : 0;
		repeat_char(body, sizeof body, mark, n - sw);
		snprintf(line, sizeof line, "%s%s%*s", sign, body, w - n, "");
		for (int i = 0; i < L->cell_h; i++)
			put_attr(y + i, x, line, w, at, pair);
		return;
	}
	char num[128];
	heatmap_cell_text(h, r, c, &L->fmt, 0, num, sizeof num);
	if (big) {
		snprintf(body, sizeof body, "%s%s%s", num, beside ? " " : "", beside ? mark : "");
		int bw = term_width_of(body), left = (w - bw) / 2;
		left = left < 0 ? 0 : left;
		snprintf(line, sizeof line, "%*s%s%*s", left, "", body, w - left - bw > 0 ? w - left - bw : 0, "");
		put_attr(y, x, line, w, at, pair);
		snprintf(line, sizeof line, "%*s", w, "");
		for (int i = 1; i < L->cell_h; i++)
			put_attr(y + i, x, line, w, at, pair);
		return;
	}
	if (beside) {
		/* the number, a space, its mark in the terminal's colours, the gap */
		snprintf(line, sizeof line, "%*s ", w - 3, num);
		put_attr(y, x, line, w - 2, at, pair);
		put_attr(y, x + w - 2, mark, 1, cursor ? A_REVERSE : A_NORMAL, 0);
		put_attr(y, x + w - 1, " ", 1, A_NORMAL, 0);
		return;
	}
	snprintf(line, sizeof line, "%*s", w - 1, num);
	put_attr(y, x, line, w - 1, at, pair);
	put_attr(y, x + w - 1, " ", 1, at, pair);
}

/* The column labels of a grid laid out by L, from line y; cells from gx.
 * Each is cut with "…" to its room: its cell's text columns, or with two
 * header lines (alternate columns on each) also its left neighbour's cell;
 * right-aligned to its numbers (not their marks), centred over big cells. */
static void draw_col_labels(const struct heatmap *h, const struct heatmap_layout *L, int y, int x, int gx,
			    int cur_c, bool cursor)
{
	struct strbuf b;
	strbuf_init(&b);
	bool big = L->cell_h > 1;
	for (int c = 0; c < L->vis_cols; c++) {
		int cx = gx + c * L->cell_w;
		int line = L->header_h > 1 ? c % 2 : 0;
		/* the column after the label: after the number, before its mark */
		int end = big ? cx + L->cell_w : cx + L->cell_w - (L->marks ? 3 : 1);
		int room = L->header_h > 1 ? L->cell_w + (end - cx) : end - cx;
		room = room > end - x ? end - x : room;
		strbuf_reset(&b);
		term_fit(&b, h->col_labels[L->col0 + c], room, 0);
		int lw = term_width_of(b.s);
		int start = big && L->header_h == 1 ? cx + (L->cell_w - lw) / 2 : end - lw;
		attr_t at = L->col0 + c == cur_c && cursor ? A_BOLD : A_NORMAL;
		put_attr(y + line, start, b.s, lw, at, 0);
	}
	strbuf_free(&b);
}

/* The colour of cell (r, c) in a half block: on the scale, or its own off
 * it (palette_masked_rgb, palette_posinf_rgb, palette_nan_rgb). */
static struct rgb half_rgb(const struct heatmap *h, int r, int c)
{
	switch (heatmap_cell_kind(h, r, c)) {
	case CELL_NEG_INF: return palette_masked_rgb();
	case CELL_POS_INF: return palette_posinf_rgb();
	case CELL_NAN: return palette_nan_rgb();
	default: return palette_rgb(h->scale, heatmap_position(h, heatmap_value(h, r, c)));
	}
}

/* The half-block grid: two matrix rows per line, the upper half block's
 * foreground the upper row, its background the lower row (the layout
 * gives half blocks only to terminals that draw them in colour). */
static void draw_half_blocks(struct app *a, const struct heatmap *h, const struct heatmap_layout *L, int gy, int gx,
			     int cur_r, int cur_c, bool cursor)
{
	for (int line = 0; line * 2 < L->vis_rows; line++) {
		int r0 = L->row0 + line * 2, r1 = r0 + 1;
		bool has1 = r1 < L->row0 + L->vis_rows;
		for (int c = 0; c < L->vis_cols; c++) {
			int cc = L->col0 + c;
			bool cur = cursor && cc == cur_c && (cur_r == r0 || (has1 && cur_r == r1));
			struct rgb up = half_rgb(h, r0, cc);
			struct rgb lo = has1 ? half_rgb(h, r1, cc) : (struct rgb){ 0, 0, 0 };
			/* cells with no value yet (a loop trace's): the terminal's background */
			bool blank0 = heatmap_cell_kind(h, r0, cc) == CELL_BLANK;
			bool blank1 = !has1 || heatmap_cell_kind(h, r1, cc) == CELL_BLANK;
			short pair = blank0 && blank1 ? 0 : blank0 ? term_pair(a, lo, NULL) :
				     term_pair(a, up, blank1 ? NULL : &lo);
			put_attr(gy + line, gx + c, blank0 && blank1 ? " " : blank0 ? "\u2584" : "\u2580", 1,
				 cur ? A_REVERSE : A_NORMAL, pair);
		}
	}
}

void draw_heatmap(struct app *a, const struct heatmap *h, int y, int x, int lines, int w, int cur_r, int cur_c,
		  bool cursor, int zoom, bool big)
{
	struct heatmap_layout L;
	heatmap_layout(h, draw_heatmap_ink(a), w, lines, zoom, big, cur_r, cur_c, &L);
	if (L.vis_rows <= 0 || L.vis_cols <= 0) {
		term_put(y, x, "(no room to draw this matrix: enlarge the terminal)", w);
		return;
	}
	int gx = x + L.label_w + (L.label_w ? 1 : 0);
	if (L.header_h)
		draw_col_labels(h, &L, y, x, gx, cur_c, cursor);
	int gy = y + L.header_h;
	if (L.half_blocks) {
		draw_half_blocks(a, h, &L, gy, gx, cur_r, cur_c, cursor);
	} else {
		struct strbuf lab;
		strbuf_init(&lab);
		for (int r = 0; r < L.vis_rows; r++) {
			int rr = L.row0 + r;
			int yy = gy + r * L.cell_h;
			if (L.label_w) {
				strbuf_reset(&lab);
				term_fit(&lab, h->row_labels[rr], L.label_w, 1);
				put_attr(yy, x, lab.s, L.label_w, rr == cur_r && cursor ? A_BOLD : A_NORMAL, 0);
			}
			for (int c = 0; c < L.vis_cols; c++) {
				int cc = L.col0 + c;
				draw_cell(a, h, &L, rr, cc, yy, gx + c * L.cell_w, cursor && rr == cur_r && cc == cur_c);
			}
		}
		strbuf_free(&lab);
	}
	if (L.legend) {
		char leg[512];
		heatmap_legend(h, L.numbers ? &L.fmt : NULL, a->cmode, heatmap_legend_marks(&L), leg, sizeof leg, w);
		put_attr(y + L.height - 1, x, leg, w, A_DIM, 0);
	}
}

/* Where draw_wrapped's lines go: line numbers skip .. skip + max_lines - 1
 * are drawn from y down, the others only counted; the last of them is held
 * (last, last_n) until it is known whether a line follows it. */
struct wrapped {
	int y, x, w, max_lines, skip;
	int line;
	const char *last;
	size_t last_n;
};

static void put_wrapped_line(void *udata, const char *start, size_t n)
{
	struct wrapped *d = udata;
	int row = d->line - d->skip;
	if (row == d->max_lines - 1) {
		d->last = start;
		d->last_n = n;
	} else if (row >= 0 && row < d->max_lines) {
		term_put_n(d->y + row, d->x, start, n, d->w);
	}
	d->line++;
}

/* Draws text word-wrapped to w columns (core/utf8's utf8_wrap: '\n' kept,
 * indents and the spaces between words kept, a word wider than w cut across
 * lines), its lines from skip on, at most max_lines of them (0: draws
 * nothing, only counts); the last one drawn ends in "…" when lines follow
 * it that are not drawn. Returns the number of lines the whole text takes. */
int draw_wrapped(const char *text, int y, int x, int w, int max_lines, int skip, attr_t attr)
{
	struct wrapped d = { y, x, w, max_lines, skip, 0, NULL, 0 };
	char *drawn = term_text(text);	/* wrapped as drawn: ASCII twins may be wider */
	attron(attr);
	int n = utf8_wrap(drawn ? drawn : text, w, put_wrapped_line, &d);
	if (d.last && n > skip + max_lines) {
		/* cut here: the line's words that fit before "…" */
		struct strbuf cut;
		strbuf_init(&cut);
		strbuf_putn(&cut, d.last, utf8_cut_n(d.last, d.last_n, w - 1, NULL));
		strbuf_puts(&cut, "\u2026");
		term_put(y + max_lines - 1, x, cut.s, w);
		strbuf_free(&cut);
	} else if (d.last) {
		term_put_n(y + max_lines - 1, x, d.last, d.last_n, w);
	}
	attroff(attr);
	free(drawn);
	return n;
}

void draw_fit(int y, int x, const char *s, int w)
{
	struct strbuf b;
	strbuf_init(&b);
	term_fit(&b, s, w, 0);
	if (b.s)
		term_put(y, x, b.s, w);
	strbuf_free(&b);
}

void draw_fit_parts(int y, int x, int w, const char *head, const char *mid, const char *tail)
{
	struct strbuf b;
	strbuf_init(&b);
	strbuf_printf(&b, "%s%s%s", head, mid, tail);
	int room = w - term_width_of(head) - term_width_of(tail);
	if (term_width_of(b.s) <= w || room < 8) {
		draw_fit(y, x, b.s, w);
	} else {
		strbuf_reset(&b);
		term_fit(&b, mid, room, 0);
		term_put(y, x, head, w);
		term_put(y, x + term_width_of(head), b.s, room);
		term_put(y, x + term_width_of(head) + term_width_of(b.s), tail, w - term_width_of(head) - room);
	}
	strbuf_free(&b);
}

/* Draws text laid out by its writer (printed tensors, tables): its lines as
 * they are, from skip on, at most max_lines, each cut at w columns. Returns
 * the number of lines in all (a final '\n' does not start one). */
int draw_lines(const char *text, int y, int x, int w, int max_lines, int skip)
{
	int line = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (line >= skip && line - skip < max_lines)
			term_put_n(y + line - skip, x, p, n, w);
		line++;
		p += n + (nl ? 1 : 0);
	}
	return line;
}
