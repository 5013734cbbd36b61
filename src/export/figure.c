/* figure.c: exported figures drawn with cairo (see figure.h): a heatmap
 * with its title, labels, numbers, masked cells and legend; loops beside
 * SIMD as two heatmaps with their times; a token view as bars; a timing as
 * bars. Every number and word comes from the view/ models the screen and
 * `qkv run` paint. Draws on the cairo context it is given: never writes a
 * file. */
#include "export/figure.h"
#include "core/utf8.h"
#include "view/timing.h"
#include "view/tokens.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 16.0
#define SANS "DejaVu Sans"
#define MONO "DejaVu Sans Mono"
#define TITLE_SIZE 18.0
#define TEXT_SIZE 13.0
#define CELL_SIZE 12.0     /* numbers in cells and labels */
#define LABEL_MAX 160.0    /* widest row label, in points; longer ones are cut */
#define TITLE_MAX 1000.0   /* widest title */

/* ---- the drawing surface ---------------------------------------------------- */

void figure_begin(struct figure *f, enum palette_kind palette)
{
	f->rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
	f->cr = cairo_create(f->rec);
	f->palette = palette;
	f->w = f->h = 0;
}

void figure_end(struct figure *f)
{
	cairo_destroy(f->cr);
	cairo_surface_destroy(f->rec);
	f->cr = NULL;
	f->rec = NULL;
}

static void grow(struct figure *f, double x, double y)
{
	f->w = x + MARGIN > f->w ? x + MARGIN : f->w;
	f->h = y + MARGIN > f->h ? y + MARGIN : f->h;
}

/* s made safe for cairo's text calls, which refuse invalid UTF-8 (and
 * would then stop drawing): control characters and bad bytes become '?'.
 * Cut to size bytes at a character. */
static void clean_text(char *out, size_t size, const char *s)
{
	size_t n = 0, len = strlen(s);
	for (size_t i = 0; i < len && n + 5 < size;) {
		uint32_t cp;
		int k = utf8_decode(s + i, len - i, &cp);
		if (k <= 0 || (cp == 0xFFFD && k == 1) || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			out[n++] = '?';
			i += k > 0 ? (size_t)k : 1;
			continue;
		}
		memcpy(out + n, s + i, (size_t)k);
		n += (size_t)k;
		i += (size_t)k;
	}
	out[n] = 0;
}

static void set_font(cairo_t *cr, const char *face, double size, bool bold)
{
	cairo_select_font_face(cr, face, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

static double text_width(cairo_t *cr, const char *s)
{
	char t[1024];
	clean_text(t, sizeof t, s);
	cairo_text_extents_t e;
	cairo_text_extents(cr, t, &e);
	return e.x_advance;
}

static void set_rgb(cairo_t *cr, struct rgb c)
{
	cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

static void set_grey(cairo_t *cr, double v)
{
	cairo_set_source_rgb(cr, v, v, v);
}

/* Text with its baseline at y: align -1 from x, 0 centred on x, 1 ending at x. */
static void put_text(struct figure *f, double x, double y, int align, const char *s)
{
	char t[1024];
	clean_text(t, sizeof t, s);
	cairo_text_extents_t e;
	cairo_text_extents(f->cr, t, &e);
	double x0 = align < 0 ? x : align == 0 ? x - e.x_advance / 2 : x - e.x_advance;
	cairo_move_to(f->cr, x0, y);
	cairo_show_text(f->cr, t);
	grow(f, x0 + e.x_advance, y + 4);
}

/* s cut with "…" to at most w points (in the current font). */
static void fit_text(cairo_t *cr, const char *s, double w, char *out, size_t size)
{
	clean_text(out, size, s);
	if (text_width(cr, out) <= w)
		return;
	size_t n = strlen(out);
	while (n > 0) {
		do
			n--;
		while (n > 0 && (out[n] & 0xC0) == 0x80);
		char t[1024];
		snprintf(t, sizeof t, "%.*s\u2026", (int)n, out);
		if (text_width(cr, t) <= w || n == 0) {
			snprintf(out, size, "%s", t);
			return;
		}
	}
}

/* A title line in bold at y (the baseline); returns the y under it. */
static double put_title(struct figure *f, double x, double y, const char *title)
{
	set_font(f->cr, SANS, TITLE_SIZE, true);
	set_grey(f->cr, 0.1);
	char t[1024];
	fit_text(f->cr, title, TITLE_MAX, t, sizeof t);
	put_text(f, x, y + TITLE_SIZE, -1, t);
	return y + TITLE_SIZE + 10;
}

/* ---- heatmaps ------------------------------------------------------------------- */

static struct rgb cell_rgb(const struct figure *f, const struct heatmap *h, int r, int c)
{
	enum cell_kind k = heatmap_cell_kind(h, r, c);
	if (k == CELL_NAN)
		return palette_nan_rgb_in(f->palette);
	if (k == CELL_NEG_INF || k == CELL_POS_INF || k == CELL_BLANK)
		return (struct rgb){ 255, 255, 255 };
	return palette_rgb_in(f->palette, h->scale, heatmap_position(h, heatmap_value(h, r, c)));
}

/* The cells off the scale that are not NaN (whose colour is its own), on
 * white: a masked cell (-inf) with grey diagonal hatching, as a mask is
 * usually drawn on paper; a +inf cell crossed both ways, in a darker grey,
 * so that neither passes for a value in colour or in gray. */
static void hatch(cairo_t *cr, enum cell_kind k, double x, double y, double w, double hgt)
{
	cairo_save(cr);
	cairo_rectangle(cr, x, y, w, hgt);
	cairo_clip(cr);
	set_grey(cr, k == CELL_POS_INF ? 0.6 : 0.78);
	cairo_set_line_width(cr, 0.8);
	for (double d = -hgt; d < w; d += 5) {
		cairo_move_to(cr, x + d, y + hgt);
		cairo_line_to(cr, x + d + hgt, y);
		if (k == CELL_POS_INF) {
			cairo_move_to(cr, x + d, y);
			cairo_line_to(cr, x + d + hgt, y + hgt);
		}
	}
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* A key to a kind of cell off the scale at (x, y): its swatch (side bh)
 * and what it is; returns the x after it. */
static double put_special_key(struct figure *f, enum cell_kind k, double x, double y, double bh, const char *what)
{
	cairo_t *cr = f->cr;
	if (k == CELL_NAN) {
		set_rgb(cr, palette_nan_rgb_in(f->palette));
		cairo_rectangle(cr, x, y, bh, bh);
		cairo_fill(cr);
	} else {
		set_grey(cr, 1);
		cairo_rectangle(cr, x, y, bh, bh);
		cairo_fill(cr);
		hatch(cr, k, x, y, bh, bh);
		set_grey(cr, 0.35);
		cairo_rectangle(cr, x, y, bh, bh);
		cairo_stroke(cr);
	}
	set_grey(cr, 0.15);
	put_text(f, x + bh + 4, y + bh - 1, -1, what);
	return x + bh + 8 + text_width(cr, what) + 10;
}

/* What the cells of h show: their size and whether numbers fit. */
static void cell_geometry(cairo_t *cr, const struct heatmap *h, const struct heatmap_numfmt *fmt, int rows, int cols,
			  double *cw, double *ch, bool *numbers)
{
	*numbers = fmt && cols <= 24 && rows <= 64;
	if (*numbers) {
		set_font(cr, MONO, CELL_SIZE, false);
		double widest = text_width(cr, "-inf");
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < cols; c++) {
				char t[64];
				heatmap_cell_text(h, r, c, fmt, 1, t, sizeof t);
				double w = text_width(cr, t);
				widest = w > widest ? w : widest;
			}
		*cw = ceil(widest + 12 > 40 ? widest + 12 : 40);
		*ch = 26;
		return;
	}
	int n = rows > cols ? rows : cols;
	double s = floor(480.0 / (n > 0 ? n : 1));
	*cw = *ch = s < 3 ? 3 : s > 24 ? 24 : s;
}

/* The colour bar under a heatmap, its ends and (diverging) 0 marked, then
 * the legend's words (heatmap_legend, as the screen writes them, without
 * colour names: the bar shows them). Returns the y under it. */
static double put_legend(struct figure *f, const struct heatmap *h, const struct heatmap_numfmt *fmt, double x,
			 double y)
{
	cairo_t *cr = f->cr;
	const double bw = 200, bh = 12;
	for (int i = 0; i < 100; i++) {
		set_rgb(cr, palette_rgb_in(f->palette, h->scale, (i + 0.5) / 100));
		cairo_rectangle(cr, x + i * bw / 100, y, bw / 100 + 0.3, bh);
		cairo_fill(cr);
	}
	set_grey(cr, 0.35);
	cairo_set_line_width(cr, 0.6);
	cairo_rectangle(cr, x, y, bw, bh);
	cairo_stroke(cr);
	double unit = fmt && fmt->exp ? pow(10, fmt->exp) : 1;
	char lo[32], hi[32];
	heatmap_legend_number(h->lo / unit, lo, sizeof lo);
	heatmap_legend_number(h->hi / unit, hi, sizeof hi);
	set_font(cr, SANS, CELL_SIZE, false);
	set_grey(cr, 0.15);
	double ty = y + bh + CELL_SIZE + 3;
	put_text(f, x, ty, -1, lo);
	put_text(f, x + bw, ty, 1, hi);
	if (h->scale == SCALE_DIVERGING && h->lo < 0 && h->hi > 0) {
		double px = x + bw * heatmap_position(h, 0);
		cairo_move_to(cr, px, y);
		cairo_line_to(cr, px, y + bh + 2);
		cairo_stroke(cr);
		put_text(f, px, ty, 0, "0");
	}
	/* the scale in the legend's words; the cells off it keyed by swatches
	 * (the screen's and the text's marks stand for them there) */
	char text[512];
	heatmap_legend(h, fmt, COLOR_NONE, LEGEND_SCALE, text, sizeof text, 200);
	double lx = x + bw + 14;
	put_text(f, lx, y + bh - 1, -1, text);
	lx += text_width(cr, text) + 14;
	if (h->any_masked)
		lx = put_special_key(f, CELL_NEG_INF, lx, y, bh, "masked (-inf)");
	if (h->any_posinf)
		lx = put_special_key(f, CELL_POS_INF, lx, y, bh, "+inf");
	if (h->any_nan)
		put_special_key(f, CELL_NAN, lx, y, bh, "nan (not a number)");
	grow(f, x + bw, ty);
	return ty + 6;
}

/* Draws h with its top-left corner at (x, y); returns the y under it and
 * fills g. */
static double draw_heatmap_at(struct figure *f, const struct heatmap *h, const struct heatmap_numfmt *fmt, double x,
			      double y, struct figure_grid *g)
{
	cairo_t *cr = f->cr;
	int rows = h->rows < FIGURE_MAX_ROWS ? h->rows : FIGURE_MAX_ROWS;
	int cols = h->cols < FIGURE_MAX_COLS ? h->cols : FIGURE_MAX_COLS;
	double cw, ch;
	bool numbers;
	cell_geometry(cr, h, fmt, rows, cols, &cw, &ch, &numbers);
	/* the subtitle: name, shape, slice, and what is left out */
	char sub[512];
	int n = snprintf(sub, sizeof sub, "%s: %d\u00d7%d", h->name, h->rows, h->cols);
	if (h->slice_name[0])
		n += snprintf(sub + n, sizeof sub - (size_t)n, ", %s", h->slice_name);
	if (rows < h->rows && cols < h->cols)
		snprintf(sub + n, sizeof sub - (size_t)n, " (rows 0\u2013%d, columns 0\u2013%d shown)", rows - 1, cols - 1);
	else if (rows < h->rows)
		snprintf(sub + n, sizeof sub - (size_t)n, " (rows 0\u2013%d shown)", rows - 1);
	else if (cols < h->cols)
		snprintf(sub + n, sizeof sub - (size_t)n, " (columns 0\u2013%d shown)", cols - 1);
	set_font(cr, SANS, TEXT_SIZE, false);
	set_grey(cr, 0.2);
	put_text(f, x, y + TEXT_SIZE, -1, sub);
	y += TEXT_SIZE + 8;
	/* labels: rows to the left (every one when they have room), columns
	 * above, turned upright when wider than a cell */
	bool labels = ch >= 8;
	set_font(cr, MONO, CELL_SIZE, false);
	double lw = 0, colw = 0;
	for (int r = 0; labels && r < rows; r++) {
		double w = text_width(cr, h->row_labels[r]);
		lw = w > lw ? w : lw;
	}
	for (int c = 0; labels && c < cols; c++) {
		double w = text_width(cr, h->col_labels[c]);
		colw = w > colw ? w : colw;
	}
	lw = lw > LABEL_MAX ? LABEL_MAX : lw;
	colw = colw > LABEL_MAX ? LABEL_MAX : colw;
	bool upright = colw > cw - 4;
	double head = !labels ? 0 : upright ? colw + 6 : CELL_SIZE + 6;
	double gx = x + (labels ? lw + 8 : 0), gy = y + head;
	char t[1024];
	set_grey(cr, 0.25);
	for (int c = 0; labels && c < cols; c++) {
		fit_text(cr, h->col_labels[c], LABEL_MAX, t, sizeof t);
		double cx = gx + c * cw + cw / 2;
		if (upright) {
			cairo_save(cr);
			cairo_move_to(cr, cx + CELL_SIZE / 2 - 1, gy - 4);
			cairo_rotate(cr, -M_PI / 2);
			cairo_show_text(cr, t);
			cairo_restore(cr);
		} else {
			put_text(f, cx, gy - 5, 0, t);
		}
	}
	for (int r = 0; labels && r < rows; r++) {
		fit_text(cr, h->row_labels[r], LABEL_MAX, t, sizeof t);
		put_text(f, gx - 6, gy + r * ch + ch / 2 + CELL_SIZE / 2 - 1.5, 1, t);
	}
	/* the cells, then their numbers */
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			double cx = gx + c * cw, cy = gy + r * ch;
			set_rgb(cr, cell_rgb(f, h, r, c));
			cairo_rectangle(cr, cx, cy, cw, ch);
			cairo_fill(cr);
			enum cell_kind k = heatmap_cell_kind(h, r, c);
			if (k == CELL_NEG_INF || k == CELL_POS_INF)
				hatch(cr, k, cx, cy, cw, ch);
		}
	if (cw >= 8) {	/* thin white lines between the cells */
		cairo_set_line_width(cr, 1);
		set_grey(cr, 1);
		for (int c = 1; c < cols; c++) {
			cairo_move_to(cr, gx + c * cw, gy);
			cairo_line_to(cr, gx + c * cw, gy + rows * ch);
		}
		for (int r = 1; r < rows; r++) {
			cairo_move_to(cr, gx, gy + r * ch);
			cairo_line_to(cr, gx + cols * cw, gy + r * ch);
		}
		cairo_stroke(cr);
	}
	if (numbers) {
		set_font(cr, MONO, CELL_SIZE, false);
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < cols; c++) {
				heatmap_cell_text(h, r, c, fmt, 1, t, sizeof t);
				enum cell_kind k = heatmap_cell_kind(h, r, c);
				if (k == CELL_NEG_INF || k == CELL_POS_INF)
					set_grey(cr, k == CELL_POS_INF ? 0.1 : 0.35);
				else
					set_rgb(cr, palette_text_on(cell_rgb(f, h, r, c)));
				put_text(f, gx + c * cw + cw / 2, gy + r * ch + ch / 2 + CELL_SIZE / 2 - 1.5, 0, t);
			}
	}
	grow(f, gx + cols * cw, gy + rows * ch);
	if (g)
		*g = (struct figure_grid){ gx, gy, cw, ch, rows, cols, numbers };
	return put_legend(f, h, numbers ? fmt : NULL, gx, gy + rows * ch + 10);
}

/* The format of h's numbers: the caller's, else the one `qkv run` picks
 * for cells of 7 characters; NULL when none fits (colour only). */
static const struct heatmap_numfmt *pick_format(const struct heatmap *h, const struct heatmap_numfmt *given,
						struct heatmap_numfmt *mine)
{
	if (given)
		return given;
	return heatmap_number_format(h, 7, mine) ? mine : NULL;
}

void figure_heatmap(struct figure *f, const struct heatmap *h, const char *title, const struct heatmap_numfmt *fmt,
		    struct figure_grid *g)
{
	double y = MARGIN;
	if (title && *title)
		y = put_title(f, MARGIN, y, title);
	struct heatmap_numfmt mine;
	draw_heatmap_at(f, h, pick_format(h, fmt, &mine), MARGIN, y, g);
}

/* ---- the views of a page ---------------------------------------------------------- */

/* The heatmap of a show's tensor t, named and labelled as the lesson says. */
static void build_show_heatmap(struct heatmap *h, const struct show *s, const struct tensor *t)
{
	heatmap_build(h, t, s->slice, s->nslice, s->rows, s->nrows, s->cols, s->ncols, s->scale);
	heatmap_set_show_name(h, s);
}

/* A line of text under y at the left margin; returns the y under it. */
static double put_text_line(struct figure *f, double y, const char *line)
{
	put_text(f, MARGIN, y + TEXT_SIZE, -1, line);
	return y + TEXT_SIZE + 6;
}

/* One panel of a comparison at (x, y): its head ("SIMD: 0.81 ms", the time
 * left out when ms is NaN) over the heatmap h; returns the y under it. */
static double draw_panel(struct figure *f, const char *what, double ms, const struct heatmap *h,
			 const struct heatmap_numfmt *nf, double x, double y, struct figure_grid *g)
{
	char head[128];
	if (isnan(ms))
		snprintf(head, sizeof head, "%s", what);
	else
		snprintf(head, sizeof head, "%s: %.3g ms", what, ms);
	set_font(f->cr, SANS, TEXT_SIZE, true);
	set_grey(f->cr, 0.1);
	put_text(f, x, y + TEXT_SIZE, -1, head);
	return draw_heatmap_at(f, h, nf, x, y + TEXT_SIZE + 8, g);
}

/* The three variants side by side: the loops', the unrolled and the SIMD
 * results as heatmaps, each with its time, then the two verdicts (against
 * the loops) and the speeds. A show without an unrolled result has two. */
static void draw_compare(struct figure *f, const struct page_view *v, const struct heatmap_numfmt *fmt,
			 struct figure_grid *g)
{
	const struct shown *sh = v->shown;
	bool three = sh->unrolled != NULL;
	char title[512];
	snprintf(title, sizeof title, "%s: for-loops against %sSIMD", v->what, three ? "unrolled and " : "");
	double y = put_title(f, MARGIN, MARGIN, title);
	struct heatmap hl, hu, hs;
	build_show_heatmap(&hl, sh->show, sh->loops);
	if (three)
		build_show_heatmap(&hu, sh->show, sh->unrolled);
	build_show_heatmap(&hs, sh->show, sh->t);
	struct heatmap_numfmt mine;
	const struct heatmap_numfmt *nf = pick_format(&hs, fmt, &mine);
	/* the times in the panels' heads only where the clock can tell them
	 * (the line under the panels says so otherwise) */
	bool timed = timing_compare_timed(sh->loops_ms, sh->simd_ms) &&
		     (!three || timing_compare_timed(sh->loops_ms, sh->unrolled_ms));
	/* each panel right of the one before, however wide the title is */
	double title_w = f->w;
	f->w = 0;
	double bottom = draw_panel(f, "for-loops", timed ? sh->loops_ms : NAN, &hl, nf, MARGIN, y, NULL);
	if (three) {
		double yu = draw_panel(f, "unrolled \u00d74", timed ? sh->unrolled_ms : NAN, &hu, nf, f->w + 8, y, NULL);
		bottom = yu > bottom ? yu : bottom;
	}
	double ys = draw_panel(f, "SIMD", timed ? sh->simd_ms : NAN, &hs, nf, f->w + 8, y, g);
	f->w = title_w > f->w ? title_w : f->w;
	y = (ys > bottom ? ys : bottom) + 6;
	char line[256];
	set_font(f->cr, SANS, TEXT_SIZE, false);
	set_grey(f->cr, 0.15);
	timing_verdict_text(line, sizeof line, sh->agree, sh->max_diff);
	y = put_text_line(f, y, line);
	if (three) {
		timing_variant_verdict_text(line, sizeof line, KERNEL_UNROLLED, sh->unrolled_agree, sh->unrolled_diff);
		y = put_text_line(f, y, line);
		timing_compare_all_text(line, sizeof line, sh->loops_ms, sh->unrolled_ms, sh->simd_ms);
	} else {
		timing_compare_text(line, sizeof line, sh->loops_ms, sh->simd_ms);
	}
	put_text_line(f, y, line);
	heatmap_free(&hl);
	if (three)
		heatmap_free(&hu);
	heatmap_free(&hs);
}

/* Horizontal bars: label, bar (len of full points for a fraction 0..1),
 * then text. Returns the y under the row. */
static void put_bar(struct figure *f, double x, double y, double len, double frac, struct rgb colour)
{
	frac = isfinite(frac) ? (frac < 0 ? 0 : frac > 1 ? 1 : frac) : 0;
	set_grey(f->cr, 0.93);
	cairo_rectangle(f->cr, x, y, len, 14);
	cairo_fill(f->cr);
	set_rgb(f->cr, colour);
	cairo_rectangle(f->cr, x, y, len * frac, 14);
	cairo_fill(f->cr);
	grow(f, x + len, y + 14);
}

/* The token view: the query's weight over each key, a bar per head. */
static void draw_tokens(struct figure *f, const struct page_view *v)
{
	struct tokens_view tv;
	tokens_build(&tv, v->shown->show, v->shown->t, -1);
	double y = put_title(f, MARGIN, MARGIN, v->what);
	char line[256];
	if (tv.query_named)
		snprintf(line, sizeof line, "weights of the query token '%s' over the keys%s", tv.query_label,
			 tv.nheads > 1 ? ", by head" : "");
	else
		snprintf(line, sizeof line, "weights of query token %s (counting from 0) over the keys%s", tv.query_label,
			 tv.nheads > 1 ? ", by head" : "");
	set_font(f->cr, SANS, TEXT_SIZE, false);
	set_grey(f->cr, 0.2);
	put_text(f, MARGIN, y + TEXT_SIZE, -1, line);
	y += TEXT_SIZE + 14;
	int heads = (int)(tv.nheads < 12 ? tv.nheads : 12);
	set_font(f->cr, MONO, CELL_SIZE, false);
	double kw = 0;
	for (int64_t k = 0; k < tv.ntok && k < FIGURE_MAX_ROWS; k++) {
		double w = text_width(f->cr, tv.keys[k]);
		kw = w > kw ? w : kw;
	}
	kw = kw > LABEL_MAX ? LABEL_MAX : kw;
	const double bar = 90, col = bar + 50;
	double x0 = MARGIN + kw + 10;
	char t[256];
	set_grey(f->cr, 0.2);
	for (int hd = 0; hd < heads; hd++) {
		fit_text(f->cr, tv.heads[hd], col - 8, t, sizeof t);
		put_text(f, x0 + hd * col, y + CELL_SIZE, -1, t);
	}
	y += CELL_SIZE + 8;
	for (int64_t k = 0; k < tv.ntok && k < FIGURE_MAX_ROWS; k++) {
		set_grey(f->cr, 0.2);
		fit_text(f->cr, tv.keys[k], LABEL_MAX, t, sizeof t);
		put_text(f, x0 - 10, y + 11, 1, t);
		for (int hd = 0; hd < heads; hd++) {
			double w = tv.w[k * tv.nheads + hd];
			put_bar(f, x0 + hd * col, y, bar, w, palette_rgb_in(f->palette, SCALE_WEIGHTS, isfinite(w) ? w : 0));
			set_grey(f->cr, 0.15);
			snprintf(t, sizeof t, "%5.3f", w);
			put_text(f, x0 + hd * col + bar + 4, y + 11, -1, t);
		}
		y += 18;
	}
	if (tv.nheads > heads || tv.ntok > FIGURE_MAX_ROWS) {
		snprintf(line, sizeof line, "(heads 0\u2013%d of %lld, keys 0\u2013%lld of %lld)", heads - 1,
			 (long long)tv.nheads, (long long)(tv.ntok < FIGURE_MAX_ROWS ? tv.ntok : FIGURE_MAX_ROWS) - 1,
			 (long long)tv.ntok);
		set_font(f->cr, SANS, TEXT_SIZE, false);
		put_text(f, MARGIN, y + TEXT_SIZE, -1, line);
	}
	tokens_free(&tv);
}

/* A timing: each entry's label, a bar for its time (the slowest fills it),
 * the time and its ratio to the first. */
static void draw_timing(struct figure *f, const struct page_view *v)
{
	const struct show *s = v->shown->show;
	const double *ms = v->shown->timing_ms;
	double y = put_title(f, MARGIN, MARGIN, v->what);
	double most = 0, lw = 0;
	set_font(f->cr, SANS, TEXT_SIZE, false);
	for (int i = 0; i < s->ntimings; i++) {
		most = isfinite(ms[i]) && ms[i] > most ? ms[i] : most;
		char label[TIMING_LABEL_MAX];
		timing_label_text(label, sizeof label, &s->timings[i]);
		double w = text_width(f->cr, label);
		lw = w > lw ? w : lw;
	}
	lw = lw > 2 * LABEL_MAX ? 2 * LABEL_MAX : lw;
	const double bar = 260;
	double x0 = MARGIN + lw + 10;
	for (int i = 0; i < s->ntimings; i++) {
		char label[TIMING_LABEL_MAX], t[TIMING_LABEL_MAX + 8], ratio[64], time[160];
		timing_label_text(label, sizeof label, &s->timings[i]);
		set_grey(f->cr, 0.15);
		fit_text(f->cr, label, lw, t, sizeof t);
		put_text(f, x0 - 10, y + 12, 1, t);
		put_bar(f, x0, y, bar, most > 0 ? ms[i] / most : 0, palette_rgb_in(f->palette, SCALE_WEIGHTS, 0.75));
		timing_ratio_text(ratio, sizeof ratio, ms, i);
		if (isfinite(ms[i]))
			snprintf(time, sizeof time, "%.1f ms  %s", ms[i], ratio);
		else
			snprintf(time, sizeof time, "not run (cancelled)");
		set_grey(f->cr, 0.15);
		put_text(f, x0 + bar + 6, y + 12, -1, time);
		y += 22;
	}
}

int figure_view(struct figure *f, const struct page_view *v, const struct heatmap_numfmt *fmt,
		struct figure_grid *g, struct qkv_error *err)
{
	if (!v->shown || !page_shown_ready(v->shown))
		return error_set(err, 0, 0, "the view '%s' has nothing to draw: it did not run", v->what);
	const struct shown *sh = v->shown;
	switch (sh->show->kind) {
	case SHOW_HEATMAP: {
		struct heatmap h;
		build_show_heatmap(&h, sh->show, sh->t);
		figure_heatmap(f, &h, v->what, fmt, g);
		heatmap_free(&h);
		break;
	}
	case SHOW_COMPARE:
		draw_compare(f, v, fmt, g);
		break;
	case SHOW_TOKENS:
		draw_tokens(f, v);
		break;
	case SHOW_TIMING:
		draw_timing(f, v);
		break;
	}
	return 0;
}
