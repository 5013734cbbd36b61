/* draw.c: drawing view models with curses: heatmaps (numbers, colours or
 * shades, masked cells, the cursor, half blocks, big cells) and wrapped text
 * (laid out by core/utf8: utf8_wrap and utf8_cut).
 * Called by the screens; computes nothing about layout itself (that is
 * view/heatmap.c's heatmap_layout). */
#include "ui/internal.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Draws one cell's text (already width w) at y, x with its colour. */
static void put_cell(struct app *a, const struct heatmap *h, int r, int c, int y, int x, const char *text,
		     bool cursor)
{
	enum cell_kind k = heatmap_cell_kind(h, r, c);
	double v = heatmap_value(h, r, c);
	attr_t at = A_NORMAL;
	short pair = 0;
	if (k == CELL_VALUE && a->cmode != COLOR_NONE)
		at = term_cell_attr(a, palette_rgb(h->scale, heatmap_position(h, v)), &pair);
	if (k != CELL_VALUE)
		at |= A_DIM;
	if (cursor)
		at |= A_REVERSE | A_BOLD;
	attr_set(at, pair, NULL);
	term_put(y, x, text, term_width_of(text));
	attr_set(A_NORMAL, 0, NULL);
}

/* The text of a cell of width w: the number right-aligned in w - 1 columns,
 * then the gap column, which without colour holds the shade character (so
 * the magnitude never depends on colour alone). Masked cells read "-inf" and
 * a dot, never a colour of the scale; without numbers they are dots. */
static void cell_text(struct app *a, const struct heatmap *h, const struct heatmap_layout *L, int r, int c,
		      char *out, size_t size)
{
	int numw = L->cell_w - 1;
	enum cell_kind k = heatmap_cell_kind(h, r, c);
	bool mono = a->cmode == COLOR_NONE;
	const char *mark = k == CELL_NEG_INF ? "\u00b7" : k == CELL_VALUE ?
			   palette_shade(heatmap_shade(h, heatmap_value(h, r, c))) : "?";
	char body[128] = "";
	if (k == CELL_NAN && h->nan_blank) {
		snprintf(out, size, "%*s", L->cell_w, "");	/* no value yet */
		return;
	}
	if (L->numbers && numw > 0) {
		heatmap_cell_text(h, r, c, L->fmt, numw, body, sizeof body);
	} else if (k == CELL_NEG_INF || k == CELL_VALUE) {
		/* cells without numbers: the shade across the cell, over its colour
		 * when there is colour, so magnitude never rests on colour alone */
		size_t n = 0, ml = strlen(mark);
		for (int i = 0; i < numw && n + ml < sizeof body; i++) {
			memcpy(body + n, mark, ml);
			n += ml;
		}
		body[n] = 0;
	} else {
		snprintf(body, sizeof body, "%*s", numw > 0 ? numw : 0, "");
	}
	bool show_mark = L->numbers && (mono || k != CELL_VALUE);
	snprintf(out, size, "%s%s", body, show_mark ? mark : " ");
}

void draw_heatmap(struct app *a, const struct heatmap *h, int y, int x, int lines, int w, int cur_r, int cur_c,
		  bool cursor, int zoom, bool big)
{
	struct heatmap_layout L;
	heatmap_layout(h, w, lines, zoom, big, cur_r, cur_c, &L);
	if (L.vis_rows <= 0 || L.vis_cols <= 0) {
		term_put(y, x, "(no room to draw this matrix: enlarge the terminal)", w);
		return;
	}
	int gx = x + L.label_w + (L.label_w ? 1 : 0);
	/* column labels */
	if (L.header_h) {
		for (int c = 0; c < L.vis_cols; c++) {
			const char *lab = h->col_labels[L.col0 + c];
			int lw = term_width_of(lab);
			int cw = L.cell_w - 1;
			char buf[96];
			snprintf(buf, sizeof buf, "%*s%s", lw < cw ? cw - lw : 0, "", lab);
			if (L.col0 + c == cur_c && cursor)
				attron(A_BOLD);
			term_put(y, gx + c * L.cell_w, buf, cw);
			attroff(A_BOLD);
		}
	}
	int gy = y + L.header_h;
	if (L.half_blocks) {
		/* two matrix rows per line: the upper half block's foreground is
		 * the upper row, its background the lower row */
		for (int line = 0; line * 2 < L.vis_rows; line++) {
			int r0 = L.row0 + line * 2, r1 = r0 + 1;
			for (int c = 0; c < L.vis_cols; c++) {
				int cc = L.col0 + c;
				bool has1 = r1 < L.row0 + L.vis_rows;
				bool cur = cursor && cc == cur_c && (cur_r == r0 || (has1 && cur_r == r1));
				if (a->cmode == COLOR_NONE) {
					/* monochrome: the stronger shade of the two */
					int s0 = heatmap_shade(h, heatmap_value(h, r0, cc));
					int s1 = has1 ? heatmap_shade(h, heatmap_value(h, r1, cc)) : 0;
					attr_set(cur ? A_REVERSE : A_NORMAL, 0, NULL);
					term_put(gy + line, gx + c, palette_shade(s0 > s1 ? s0 : s1), 1);
					attr_set(A_NORMAL, 0, NULL);
					continue;
				}
				struct rgb up = palette_rgb(h->scale, heatmap_position(h, heatmap_value(h, r0, cc)));
				struct rgb lo = has1 ? palette_rgb(h->scale, heatmap_position(h, heatmap_value(h, r1, cc)))
						     : (struct rgb){ 0, 0, 0 };
				if (heatmap_cell_kind(h, r0, cc) == CELL_NEG_INF)
					up = (struct rgb){ 40, 40, 40 };
				if (has1 && heatmap_cell_kind(h, r1, cc) == CELL_NEG_INF)
					lo = (struct rgb){ 40, 40, 40 };
				/* cells with no value yet: the terminal's background */
				bool blank0 = h->nan_blank && heatmap_cell_kind(h, r0, cc) == CELL_NAN;
				bool blank1 = !has1 || (h->nan_blank && heatmap_cell_kind(h, r1, cc) == CELL_NAN);
				short pair = blank0 && blank1 ? 0 : blank0 ? term_pair(a, lo, NULL) :
					     term_pair(a, up, blank1 ? NULL : &lo);
				attr_set(cur ? A_REVERSE : A_NORMAL, pair, NULL);
				term_put(gy + line, gx + c, blank0 && blank1 ? " " : blank0 ? "\u2584" : "\u2580", 1);
				attr_set(A_NORMAL, 0, NULL);
			}
		}
	} else {
		for (int r = 0; r < L.vis_rows; r++) {
			int rr = L.row0 + r;
			int yy = gy + r * L.cell_h;
			if (L.label_w) {
				char buf[96];
				const char *lab = h->row_labels[rr];
				int lw = term_width_of(lab);
				snprintf(buf, sizeof buf, "%*s%s", lw < L.label_w ? L.label_w - lw : 0, "", lab);
				if (rr == cur_r && cursor)
					attron(A_BOLD);
				term_put(yy, x, buf, L.label_w);
				attroff(A_BOLD);
			}
			for (int c = 0; c < L.vis_cols; c++) {
				int cc = L.col0 + c;
				char text[192];	/* a cell: up to 128 bytes of body and its mark */
				cell_text(a, h, &L, rr, cc, text, sizeof text);
				bool cur = cursor && rr == cur_r && cc == cur_c;
				for (int k = 0; k < L.cell_h; k++)
					put_cell(a, h, rr, cc, yy + k, gx + c * L.cell_w, k == 0 ? text : "", cur);
				if (L.cell_h > 1) {
					/* the second line of a big cell: its colour, blank */
					char blank[64];
					snprintf(blank, sizeof blank, "%*s", L.cell_w - 1, "");
					put_cell(a, h, rr, cc, yy + 1, gx + c * L.cell_w, blank, cur);
				}
			}
		}
	}
	if (L.legend) {
		char leg[256];
		heatmap_legend(h, leg, sizeof leg, w);
		int ly = y + L.height - 1;
		attron(A_DIM);
		term_put(ly, x, leg, w);
		attroff(A_DIM);
	}
}

/* Draws the n bytes at s at y, x, cut to w columns at a character boundary. */
static void put_slice(int y, int x, const char *s, size_t n, int w)
{
	if (w <= 0 || y < 0 || x < 0)
		return;
	mvaddnstr(y, x, s, (int)utf8_cut_n(s, n, w, NULL));
}

/* Where draw_wrapped's lines go: line numbers skip .. skip + max_lines - 1
 * are drawn from y down, the others only counted. */
struct wrapped {
	int y, x, w, max_lines, skip;
	int line;
};

static void put_wrapped_line(void *udata, const char *start, size_t n)
{
	struct wrapped *d = udata;
	if (d->line >= d->skip && d->line - d->skip < d->max_lines)
		put_slice(d->y + d->line - d->skip, d->x, start, n, d->w);
	d->line++;
}

/* Draws text word-wrapped to w columns (core/utf8's utf8_wrap: '\n' kept,
 * indents and the spaces between words kept, a word wider than w cut across
 * lines), its lines from skip on, at most max_lines of them (0: draws
 * nothing, only counts). Returns the number of lines the whole text takes. */
int draw_wrapped(const char *text, int y, int x, int w, int max_lines, int skip, attr_t attr)
{
	struct wrapped d = { y, x, w, max_lines, skip, 0 };
	attron(attr);
	int n = utf8_wrap(text, w, put_wrapped_line, &d);
	attroff(attr);
	return n;
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
			put_slice(y + line - skip, x, p, n, w);
		line++;
		p += n + (nl ? 1 : 0);
	}
	return line;
}
