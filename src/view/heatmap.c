/* heatmap.c: the heatmap model (see heatmap.h). Called by text/ and ui/;
 * computes everything about cells, scales and labels (their widths in terminal
 * columns, from core/utf8) but never draws. */
#include "view/heatmap.h"
#include "view/looptrace.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *index_label(int64_t i)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)i);
	return xstrdup(buf);
}

static void summarize(struct heatmap *h);

void heatmap_build(struct heatmap *h, const struct tensor *t, const int64_t *slice, int nslice,
		   char *const *rows, int nrows, char *const *cols, int ncols, enum scale_kind scale)
{
	memset(h, 0, sizeof *h);
	int nd = t->ndim;
	int lead = nd > 2 ? nd - 2 : 0;
	int64_t r = nd >= 2 ? t->shape[nd - 2] : 1, c = nd >= 1 ? t->shape[nd - 1] : 1;
	/* an empty leading dimension (shape [0, 2, 6]) leaves no matrix to
	 * pick: show an empty one, as for shape [0, 6] */
	for (int i = 0; i < lead; i++)
		if (t->shape[i] == 0)
			r = 0;
	/* the flat offset of the chosen matrix: its leading indices in row-major order */
	int64_t idx[TENSOR_MAX_DIMS] = { 0 };
	for (int i = 0; i < lead && i < nslice; i++)
		idx[i] = slice[i];
	int64_t base = 0;
	for (int i = 0; i < lead; i++)
		base = base * t->shape[i] + idx[i];
	base *= r * c;
	if (lead) {
		static const char *names1[] = { "batch" }, *names2[] = { "batch", "head" };
		const char **names = lead == 1 ? names1 : names2;
		int n = 0;
		for (int i = 0; i < lead; i++)
			n += snprintf(h->slice_name + n, sizeof h->slice_name - (size_t)n, "%s%s %lld", i ? ", " : "",
				      names[i], (long long)idx[i]);
	}
	h->rows = (int)r;
	h->cols = (int)c;
	h->values = xcalloc((size_t)(r * c) + 1, sizeof *h->values);
	for (int64_t i = 0; i < r * c; i++)
		h->values[i] = tensor_get(t, base + i);
	h->row_labels = xcalloc((size_t)r + 1, sizeof *h->row_labels);
	h->col_labels = xcalloc((size_t)c + 1, sizeof *h->col_labels);
	for (int64_t i = 0; i < r; i++) {
		h->row_labels[i] = i < nrows ? xstrdup(rows[i]) : index_label(i);
		int w = utf8_width(h->row_labels[i]);
		if (w > h->label_width)
			h->label_width = w;
	}
	for (int64_t i = 0; i < c; i++)
		h->col_labels[i] = i < ncols ? xstrdup(cols[i]) : index_label(i);
	/* the scale: finite values only */
	double lo = INFINITY, hi = -INFINITY;
	for (int64_t i = 0; i < r * c; i++) {
		double v = h->values[i];
		if (isfinite(v)) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	if (lo > hi)
		lo = hi = 0;
	/* signed data on a diverging scale, non-negative data (weights,
	 * probabilities, a dropout output, a mask) on a sequential one */
	if (scale == SCALE_AUTO)
		scale = lo >= 0 ? SCALE_WEIGHTS : SCALE_DIVERGING;
	h->scale = scale;
	heatmap_set_name(h, NULL);
	summarize(h);
	if (scale == SCALE_WEIGHTS) {
		h->lo = lo < 0 ? lo : 0;
		h->hi = hi > 1 ? hi : 1;
	} else {
		double m = fmax(fabs(lo), fabs(hi));
		h->lo = -m;
		h->hi = m;
	}
}

void heatmap_free(struct heatmap *h)
{
	for (int i = 0; i < h->rows; i++)
		free(h->row_labels[i]);
	for (int i = 0; i < h->cols; i++)
		free(h->col_labels[i]);
	free(h->row_labels);
	free(h->col_labels);
	free(h->values);
	free(h->blank);
	memset(h, 0, sizeof *h);
}

void heatmap_set_name(struct heatmap *h, const char *name)
{
	utf8_snprintf(h->name, sizeof h->name, "%s", name && *name ? name : "values");
}

/* Names longer than this many columns are cut with "…" (a legend has the
 * numbers to show too). */
#define NAME_MAX_W 32

void heatmap_set_show_name(struct heatmap *h, const struct show *s)
{
	/* EXPR:NAME draws the local NAME: the legend names it so; a long
	 * expression gives way to the title */
	const char *name = s->local ? s->local : s->expr;
	if (!s->local && (!name || utf8_width(name) > 16) && s->title && *s->title)
		name = s->title;
	struct strbuf b;
	strbuf_init(&b);
	if (name)
		utf8_fit(&b, name, NAME_MAX_W, 0);
	heatmap_set_name(h, b.s);
	strbuf_free(&b);
}

double heatmap_value(const struct heatmap *h, int r, int c)
{
	return h->values[(size_t)r * (size_t)h->cols + (size_t)c];
}

enum cell_kind heatmap_cell_kind(const struct heatmap *h, int r, int c)
{
	double v = heatmap_value(h, r, c);
	if (h->blank && h->blank[(size_t)r * (size_t)h->cols + (size_t)c])
		return CELL_BLANK;
	if (isnan(v))
		return CELL_NAN;
	if (isinf(v))
		return v < 0 ? CELL_NEG_INF : CELL_POS_INF;
	return CELL_VALUE;
}

double heatmap_position(const struct heatmap *h, double v)
{
	if (!isfinite(v))
		return v > 0 ? 1 : 0;
	double p;
	if (h->scale == SCALE_DIVERGING)
		p = h->hi > 0 ? 0.5 + 0.5 * v / h->hi : 0.5;
	else
		p = h->hi > h->lo ? (v - h->lo) / (h->hi - h->lo) : 0;
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

int heatmap_shade(const struct heatmap *h, double v)
{
	if (!isfinite(v))
		return 0;
	double m = h->scale == SCALE_DIVERGING ? (h->hi > 0 ? fabs(v) / h->hi : 0) : heatmap_position(h, v);
	int s = (int)floor(m * 4 + 0.5);
	return s < 0 ? 0 : s > 4 ? 4 : s;
}

/* The marks of the cells that are off the scale: one column each, none a
 * shade nor a sign, and their ASCII twins (ui/ascii.c) apart too. */
#define MARK_MASKED "\u00b7"
#define MARK_POSINF "\u25b2"
#define MARK_NAN "?"

const char *heatmap_cell_mark(const struct heatmap *h, int r, int c)
{
	switch (heatmap_cell_kind(h, r, c)) {
	case CELL_NEG_INF: return MARK_MASKED;
	case CELL_POS_INF: return MARK_POSINF;
	case CELL_NAN: return MARK_NAN;
	case CELL_BLANK: return " ";
	default: return palette_shade(heatmap_shade(h, heatmap_value(h, r, c)));
	}
}

bool heatmap_signs(const struct heatmap *h, enum color_mode mode, bool numbers)
{
	return mode == COLOR_NONE && !numbers && h->any_negative;
}

const char *heatmap_cell_sign(const struct heatmap *h, int r, int c)
{
	double v = heatmap_value(h, r, c);
	return heatmap_cell_kind(h, r, c) == CELL_VALUE && v < 0 ? "-" : " ";
}

/* A value that prints without decimals: a mask's 0 and 1, a count. */
static bool is_whole(double v)
{
	return v == floor(v) && fabs(v) < 1e9;
}

/* The characters v takes in f. */
static int value_len(const struct heatmap_numfmt *f, double v)
{
	char buf[8];
	double x = f->exp ? v / pow(10, f->exp) : v;
	return snprintf(buf, sizeof buf, "%.*f", f->decimals, x);
}

void heatmap_format_value(const struct heatmap_numfmt *f, double v, char *out, size_t size)
{
	double x = f->exp ? v / pow(10, f->exp) : v;
	snprintf(out, size, "%.*f", f->decimals, x);
}

/* Whether every finite value prints within width characters in f. */
static bool fits_all(const struct heatmap *h, const struct heatmap_numfmt *f, int width)
{
	for (size_t i = 0, n = (size_t)h->rows * (size_t)h->cols; i < n; i++)
		if (isfinite(h->values[i]) && value_len(f, h->values[i]) > width)
			return false;
	return true;
}

/* The most decimals (max_dec down to min_dec) with which every value fits
 * at f->exp: true and f->decimals set, or false. */
static bool most_decimals(const struct heatmap *h, int width, int min_dec, int max_dec, struct heatmap_numfmt *f)
{
	for (f->decimals = max_dec; f->decimals >= min_dec; f->decimals--)
		if (fits_all(h, f, width))
			return true;
	return false;
}

/* The fewest decimals a matrix of non-whole values whose largest magnitude
 * is mx (after scaling) may show: one while the integer parts are single
 * digits (0.19 as "0", 3.58 as "4" would say little), else none. */
static int least_decimals(double mx)
{
	return mx < 9.5 ? 1 : 0;
}

bool heatmap_number_format(const struct heatmap *h, int width, struct heatmap_numfmt *f)
{
	bool whole = true;
	double mx = 0;
	for (size_t i = 0, n = (size_t)h->rows * (size_t)h->cols; i < n; i++) {
		double v = h->values[i];
		if (!isfinite(v))
			continue;
		whole = whole && is_whole(v);
		mx = fabs(v) > mx ? fabs(v) : mx;
	}
	f->exp = 0;
	f->decimals = 0;
	if (whole && fits_all(h, f, width))
		return true;
	/* a matrix so small that every cell would read 0.0000: in units of
	 * 1e-3, 1e-6, ... so that the largest shows 1 to 999 */
	if (!whole && mx > 0 && mx < 5e-5) {
		f->exp = 3 * (int)floor(log10(mx) / 3);
		return most_decimals(h, width, least_decimals(mx / pow(10, f->exp)), 4, f);
	}
	if (!whole && most_decimals(h, width, least_decimals(mx), 4, f))
		return true;
	/* scaled only when the integer parts themselves do not fit */
	f->decimals = 0;
	if (fits_all(h, f, width))
		return false;
	for (f->exp = 3; f->exp <= 306 && mx / pow(10, f->exp) >= 1; f->exp += 3) {
		double m = mx / pow(10, f->exp);
		if (most_decimals(h, width, whole ? 0 : least_decimals(m), whole ? 0 : 4, f))
			return true;
	}
	f->exp = 0;
	f->decimals = 0;
	return false;
}

void heatmap_cell_text(const struct heatmap *h, int r, int c, const struct heatmap_numfmt *f, int width, char *out,
		       size_t size)
{
	char num[400];	/* %.0f of the largest double takes 309 */
	switch (heatmap_cell_kind(h, r, c)) {
	case CELL_NEG_INF: snprintf(num, sizeof num, "-inf"); break;
	case CELL_POS_INF: snprintf(num, sizeof num, "inf"); break;
	case CELL_NAN: snprintf(num, sizeof num, "nan"); break;
	case CELL_BLANK: num[0] = 0; break;
	default: heatmap_format_value(f, heatmap_value(h, r, c), num, sizeof num); break;
	}
	snprintf(out, size, "%*s", width, num);
}

/* ---- layout ---------------------------------------------------------- */

/* The few values whose printed widths bound everyone's: in fixed and
 * scientific notation a value's width grows with its magnitude (and its
 * sign), and the exponent's width is largest at the extremes, so the largest
 * and smallest nonzero magnitude of each sign, the zeros and one value that
 * is not whole decide what heatmap_number_format picks for the whole
 * matrix. Found with the rest of what heatmap_layout and heatmap_legend
 * need of every cell (struct heatmap's bound ... col_label_width) in one
 * pass when the model is built, so that laying out a window of a 2048x2048
 * matrix for every frame reads none of its cells. */
static void summarize(struct heatmap *h)
{
	double max_pos = 0, min_pos = INFINITY, max_neg = -INFINITY, min_neg = 0, breaker = 0;
	bool pos_zero = false, neg_zero = false, has_breaker = false;
	h->nbound = 0;
	h->special_w = 0;
	h->any_masked = h->any_posinf = h->any_nan = h->any_negative = false;
	size_t n = (size_t)h->rows * (size_t)h->cols;
	for (size_t i = 0; i < n; i++) {
		double v = h->values[i];
		if (!isfinite(v)) {
			int w = isnan(v) ? 3 : v < 0 ? 4 : 3;
			h->special_w = w > h->special_w ? w : h->special_w;
			if (!h->blank || !h->blank[i]) {	/* (as heatmap_cell_kind) */
				h->any_nan |= isnan(v);
				h->any_masked |= v < 0;
				h->any_posinf |= v > 0;
			}
			continue;
		}
		h->any_negative |= v < 0 && (!h->blank || !h->blank[i]);
		if (v > 0) {
			max_pos = v > max_pos ? v : max_pos;
			min_pos = v < min_pos ? v : min_pos;
		} else if (v < 0) {
			max_neg = v > max_neg ? v : max_neg;
			min_neg = v < min_neg ? v : min_neg;
		} else if (signbit(v)) {
			neg_zero = true;
		} else {
			pos_zero = true;
		}
		if (!has_breaker && !is_whole(v)) {
			has_breaker = true;
			breaker = v;
		}
	}
	if (max_pos > 0) {
		h->bound[h->nbound++] = max_pos;
		h->bound[h->nbound++] = min_pos;
	}
	if (min_neg < 0) {
		h->bound[h->nbound++] = min_neg;
		h->bound[h->nbound++] = max_neg;
	}
	if (pos_zero)
		h->bound[h->nbound++] = 0.0;
	if (neg_zero)
		h->bound[h->nbound++] = -0.0;
	if (has_breaker)
		h->bound[h->nbound++] = breaker;
	h->col_label_width = 0;
	for (int c = 0; c < h->cols; c++) {
		int w = utf8_width(h->col_labels[c]);
		h->col_label_width = w > h->col_label_width ? w : h->col_label_width;
	}
}

/* One step of the zoom ladder: half blocks, colour-only cells, then
 * numbers at growing widths and precisions. */
struct layout_level {
	bool half, numbers;
	int text_w;           /* characters of the widest cell text (numbers) */
	struct heatmap_numfmt fmt;
};

#define LAYOUT_MAX_LEVELS 24

/* Whether ink draws half blocks (see struct heatmap_ink). */
static bool ink_half_blocks(struct heatmap_ink ink)
{
	return ink.utf8 && ink.mode >= COLOR_16;
}

/* Fills lv with the ladder for h's cells (what summarize found of them),
 * narrowest first: half blocks when half, then colour cells, then numbers;
 * returns its length. */
static int layout_levels(const struct heatmap *h, bool half, struct layout_level *lv)
{
	int n = 0;
	memset(lv, 0, 2 * sizeof *lv);
	if (half)
		lv[n++].half = true;
	n++;	/* colour only, 2-column cells */
	struct heatmap proxy;
	memset(&proxy, 0, sizeof proxy);
	double sample[8];
	memcpy(sample, h->bound, sizeof sample);
	proxy.rows = 1;
	proxy.cols = h->nbound;
	proxy.values = sample;
	for (int w = 1; w <= 16 && n < LAYOUT_MAX_LEVELS - 1; w++) {
		struct heatmap_numfmt f;
		if (!heatmap_number_format(&proxy, w, &f))
			continue;
		int need = 1;
		for (int i = 0; i < h->nbound; i++) {
			int len = value_len(&f, h->bound[i]);
			need = len > need ? len : need;
		}
		need = h->special_w > need ? h->special_w : need;
		struct layout_level *last = &lv[n - 1];
		if (!last->numbers || need > last->text_w) {
			memset(&lv[n], 0, sizeof lv[n]);
			lv[n].numbers = true;
			lv[n].text_w = need;
			lv[n].fmt = f;
			n++;
		} else if (need == last->text_w) {
			last->fmt = f;
		}
	}
	/* at the top, cells as wide as the column labels (12 at most) */
	int label = h->col_label_width > 12 ? 12 : h->col_label_width;
	if (lv[n - 1].numbers && label > lv[n - 1].text_w) {
		lv[n] = lv[n - 1];
		lv[n].text_w = label;
		n++;
	}
	return n;
}

/* A level's geometry in a width x height pane; label_cols is label_w plus
 * the space between the labels and the cells (0 without labels); marks and
 * signs as struct heatmap_layout's. */
struct layout_geom {
	int label_w, label_cols, cell_w, cell_h, header_h;
	bool marks, signs;
};

static void layout_geometry(const struct heatmap *h, struct heatmap_ink ink, const struct layout_level *lv,
			    bool big, int width, int height, struct layout_geom *g)
{
	g->marks = lv->numbers && ink.mode == COLOR_8;
	g->signs = !lv->half && heatmap_signs(h, ink.mode, lv->numbers);
	if (lv->half)
		g->cell_w = big ? 2 : 1;
	else if (!lv->numbers)
		g->cell_w = big ? 4 : g->signs ? 3 : 2;
	else if (big)
		g->cell_w = (lv->text_w + 1) * 2;	/* room for " ▓" and a column to spare */
	else
		g->cell_w = lv->text_w + (g->marks ? 3 : 1);
	g->cell_h = big && !lv->half ? 2 : 1;
	/* row labels: 12 columns, more (up to 32) when all the cells leave
	 * room for them, then a space; never more than half the pane, nor so
	 * much that no cell fits */
	int lw = h->label_width > 12 ? 12 : h->label_width;
	long long spare = width - 1 - (long long)h->cols * g->cell_w;
	if (h->label_width > lw && spare > lw)
		lw = (int)(spare < h->label_width ? spare : h->label_width);
	lw = lw > 32 ? 32 : lw;
	int limit = (width - g->cell_w < width / 2 ? width - g->cell_w : width / 2) - 1;
	lw = lw > limit ? limit : lw;
	g->label_w = lw < 1 ? 0 : lw;
	g->label_cols = g->label_w ? g->label_w + 1 : 0;
	/* column labels need a cell of 3 columns (2 characters and a space), or
	 * of 2 when each is one character (the indices of up to 10 columns) */
	bool narrow = g->cell_w == 2 && lv->numbers;
	for (int c = 0; narrow && c < h->cols; c++)
		narrow = utf8_width(h->col_labels[c]) <= 1;
	g->header_h = !lv->half && (g->cell_w >= 3 || narrow) && height >= 1 + g->cell_h ? 1 : 0;
}

/* Lines the body of n rows takes. */
static long long layout_body_lines(const struct layout_level *lv, const struct layout_geom *g, long long n)
{
	return lv->half ? (n + 1) / 2 : n * g->cell_h;
}

static bool layout_fits_all(const struct heatmap *h, const struct layout_level *lv, const struct layout_geom *g,
			    int width, int height)
{
	return g->label_cols + (long long)h->cols * g->cell_w <= width &&
	       g->header_h + layout_body_lines(lv, g, h->rows) <= height;
}

static bool layout_fits_one(const struct layout_geom *g, int width, int height)
{
	return g->label_cols + g->cell_w <= width && g->header_h + g->cell_h <= height;
}

/* The first of n visible items (of total) that centres item cur, clamped. */
static int layout_scroll(int cur, int n, int total)
{
	int first = cur - (n - 1) / 2;
	first = first > total - n ? total - n : first;
	return first < 0 ? 0 : first;
}

/* The most detailed of the n levels lv that shows the whole matrix in a
 * width x height pane for ink, else 0 (the most compact). */
static int layout_default(const struct heatmap *h, struct heatmap_ink ink, const struct layout_level *lv, int n,
			  bool big, int width, int height)
{
	struct layout_geom g;
	for (int i = n - 1; i > 0; i--) {
		layout_geometry(h, ink, &lv[i], big, width, height, &g);
		if (layout_fits_all(h, &lv[i], &g, width, height))
			return i;
	}
	return 0;
}

void heatmap_layout(const struct heatmap *h, struct heatmap_ink ink, int width, int height, int zoom, bool big,
		    int cur_r, int cur_c, struct heatmap_layout *L)
{
	memset(L, 0, sizeof *L);
	width = width < 0 ? 0 : width;
	height = height < 0 ? 0 : height;
	struct layout_level lv[LAYOUT_MAX_LEVELS];
	int n = layout_levels(h, ink_half_blocks(ink), lv);
	/* a pane too small for even the smallest big cell drops big */
	struct layout_geom g;
	layout_geometry(h, ink, &lv[0], big, width, height, &g);
	if (big && !layout_fits_one(&g, width, height)) {
		heatmap_layout(h, ink, width, height, zoom, false, cur_r, cur_c, L);
		return;
	}
	/* zoom 0: the most detailed level that shows the whole matrix, else
	 * the most compact; zoom steps along the ladder from there. Big cells
	 * never hide the numbers that cells of the normal size show: where
	 * none with numbers fits the whole matrix, they show those numbers and
	 * scroll */
	int def = layout_default(h, ink, lv, n, big, width, height);
	if (big && !lv[def].numbers) {
		int normal = layout_default(h, ink, lv, n, false, width, height);
		def = lv[normal].numbers ? normal : def;
	}
	long long want = (long long)def + zoom;
	int level = want < 0 ? 0 : want > n - 1 ? n - 1 : (int)want;
	layout_geometry(h, ink, &lv[level], big, width, height, &g);
	while (level > 0 && !layout_fits_one(&g, width, height)) {
		level--;
		layout_geometry(h, ink, &lv[level], big, width, height, &g);
	}
	const struct layout_level *chosen = &lv[level];
	L->label_w = g.label_w;
	L->cell_w = g.cell_w;
	L->cell_h = g.cell_h;
	L->numbers = chosen->numbers;
	L->fmt = chosen->fmt;
	L->marks = g.marks;
	L->signs = g.signs;
	L->half_blocks = chosen->half;
	L->header_h = g.header_h;
	if (!layout_fits_one(&g, width, height) || h->rows <= 0 || h->cols <= 0) {
		/* not even one cell: nothing to draw */
		L->label_w = L->header_h = 0;
		return;
	}
	/* column labels cut in one line get two when the whole grid, both
	 * header lines and the legend fit: each label then has its cell and
	 * its left neighbour's, whose label is on the other line */
	int label_room = g.cell_w - (g.marks && !big ? 3 : 1);	/* a number's columns */
	if (g.header_h == 1 && h->cols > 1 && h->col_label_width > label_room &&
	    layout_fits_all(h, chosen, &g, width, height) && g.header_h + 1 + layout_body_lines(chosen, &g, h->rows) + 1 <= height)
		g.header_h = 2;
	L->header_h = g.header_h;
	/* the legend goes under the grid when a line is left; a grid that must
	 * scroll gives one up for it in a pane of 8 lines or more */
	int lines = height - g.header_h;
	bool legend_ok = width >= 12;
	if (layout_body_lines(chosen, &g, h->rows) <= lines) {
		L->legend = legend_ok && g.header_h + layout_body_lines(chosen, &g, h->rows) + 1 <= height;
	} else if (legend_ok && height >= 8) {
		lines--;
		L->legend = true;
	}
	int cap_c = (width - g.label_cols) / g.cell_w;
	L->vis_cols = h->cols < cap_c ? h->cols : cap_c;
	cur_c = cur_c > h->cols - 1 ? h->cols - 1 : cur_c;
	cur_c = cur_c < 0 ? 0 : cur_c;
	L->col0 = layout_scroll(cur_c, L->vis_cols, h->cols);
	cur_r = cur_r > h->rows - 1 ? h->rows - 1 : cur_r;
	cur_r = cur_r < 0 ? 0 : cur_r;
	if (chosen->half) {
		/* whole pairs of rows, so a line always holds rows 2k and 2k+1 */
		int pairs = (h->rows + 1) / 2;
		int vis_pairs = pairs < lines ? pairs : lines;
		int p0 = layout_scroll(cur_r / 2, vis_pairs, pairs);
		L->row0 = 2 * p0;
		L->vis_rows = 2 * vis_pairs < h->rows - L->row0 ? 2 * vis_pairs : h->rows - L->row0;
	} else {
		int cap_r = lines / g.cell_h;
		L->vis_rows = h->rows < cap_r ? h->rows : cap_r;
		L->row0 = layout_scroll(cur_r, L->vis_rows, h->rows);
	}
	L->width = g.label_cols + L->vis_cols * g.cell_w;
	L->height = g.header_h + (int)layout_body_lines(chosen, &g, L->vis_rows) + (L->legend ? 1 : 0);
}

/* ---- legend ---------------------------------------------------------- */

/* A scale end, short and in fixed point: 4.4, 0.35, 12, 0.0034; in
 * scientific notation only beyond 1e6 or under 1e-6 (a legend without
 * scaled cells). */
void heatmap_legend_number(double v, char *buf, size_t size)
{
	double a = fabs(v);
	if (a == 0)
		snprintf(buf, size, "0");
	else if (a >= 1e6 || a < 1e-6)
		snprintf(buf, size, "%.1e", v);
	else if (a >= 10)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 0.01)
		snprintf(buf, size, "%.2g", v);
	else
		snprintf(buf, size, "%.*f", 1 - (int)floor(log10(a)), v);	/* two significant digits */
}

/* Copies s into out (size bytes), fitted to width columns: cut with a final
 * "…" when wider (utf8_fit), and narrower still when size bytes cannot hold
 * that, so that it never ends inside a character. */
static void legend_copy_fitted(char *out, size_t size, const char *s, int width)
{
	if (size == 0)
		return;
	out[0] = 0;
	struct strbuf b;
	strbuf_init(&b);
	for (int w = width; w > 0; w--) {
		strbuf_reset(&b);
		utf8_fit(&b, s, w, 0);
		if (b.len < size) {
			memcpy(out, b.s, b.len + 1);
			break;
		}
	}
	strbuf_free(&b);
}

/* What the colours and shades mean, in parentheses (or ""): the colours
 * as mode draws them (8 colours turn the blues cyan and the oranges
 * yellow), the shades when they are drawn, and the sign drawn before them
 * when signs. */
static void legend_hint(const struct heatmap *h, enum color_mode mode, bool shades, bool signs, char *out,
			size_t size)
{
	bool div = h->scale == SCALE_DIVERGING;
	const char *colours = "";
	if (mode == COLOR_8)
		colours = div ? "cyan negative, yellow positive" : "";
	else if (mode != COLOR_NONE)
		colours = div ? "blue negative, orange positive" : "pale to deep blue";
	char shade[64] = "";
	if (shades)
		snprintf(shade, sizeof shade, "%s%s", div ? "\u2591\u2592\u2593\u2588 = size" : "\u2591 low \u2026 \u2588 high",
			 signs ? ", -\u2591 = negative" : "");
	if (*colours && *shade)
		snprintf(out, size, " (%s; %s)", colours, shade);
	else if (*colours || *shade)
		snprintf(out, size, " (%s%s)", colours, shade);
	else
		snprintf(out, size, "%s", "");
}

/* What stands for a cell of kind k (CELL_NEG_INF, CELL_POS_INF, CELL_NAN)
 * as marks draws it: its mark, its colour, the word "-inf" (whose meaning
 * needs saying, where "inf" and "nan" say what they are), or "" for
 * nothing to key; NaN's colour named where mode has colour (after its mark
 * only when full). */
static void legend_special_sign(enum cell_kind k, enum color_mode mode, enum legend_marks marks, bool full,
				char *out, size_t size)
{
	static const char *const mark[] = { [CELL_NEG_INF] = MARK_MASKED, [CELL_POS_INF] = MARK_POSINF,
					    [CELL_NAN] = MARK_NAN };
	static const char *const colour[] = { [CELL_NEG_INF] = "dark grey", [CELL_POS_INF] = "white",
					      [CELL_NAN] = "magenta" };
	const char *what = "";
	if (marks == LEGEND_SHADES)
		what = mark[k];
	else if (marks == LEGEND_BLOCKS)
		what = colour[k];
	else if (marks == LEGEND_WORDS && k == CELL_NEG_INF)
		what = "-inf";
	bool magenta = k == CELL_NAN && mode != COLOR_NONE && marks != LEGEND_BLOCKS && marks != LEGEND_SCALE &&
		       (full || !*what);
	snprintf(out, size, "%s%s%s", what, magenta && *what ? " " : "", magenta ? "magenta" : "");
}

/* The key to the cells off the scale that h has (-inf, +inf, nan), each by
 * what stands for it as the painter draws it: full ("   · = masked (-inf)")
 * or short ("  · masked"). */
static void legend_specials(const struct heatmap *h, enum color_mode mode, enum legend_marks marks, bool full,
			    char *out, size_t size)
{
	static const enum cell_kind kinds[] = { CELL_NEG_INF, CELL_POS_INF, CELL_NAN };
	bool present[] = { h->any_masked, h->any_posinf, h->any_nan };
	static const char *const meaning[] = { "masked (-inf)", "+inf", "nan" };
	static const char *const short_meaning[] = { "masked", "+inf", "nan" };
	struct strbuf b;
	strbuf_init(&b);
	for (int i = 0; i < 3; i++) {
		char what[32];
		legend_special_sign(kinds[i], mode, marks, full, what, sizeof what);
		if (!present[i] || !*what)
			continue;
		/* the word -inf is keyed by what it means alone */
		const char *m = full && strcmp(what, "-inf") ? meaning[i] : short_meaning[i];
		strbuf_printf(&b, "%s%s%s%s", full ? "   " : "  ", what, full ? " = " : " ", m);
	}
	snprintf(out, size, "%s", b.len ? b.s : "");
	strbuf_free(&b);
}

enum legend_marks heatmap_legend_marks(const struct heatmap_layout *L)
{
	if (L->half_blocks)
		return LEGEND_BLOCKS;
	return !L->numbers || L->marks ? LEGEND_SHADES : LEGEND_WORDS;
}

void heatmap_legend(const struct heatmap *h, const struct heatmap_numfmt *f, enum color_mode mode,
		    enum legend_marks marks, char *out, size_t size, int width)
{
	/* the ends in the cells' unit */
	int exp = f ? f->exp : 0;
	double unit = exp ? pow(10, exp) : 1;
	char lo[32], hi[32], name[96], base[192];
	heatmap_legend_number(h->lo / unit, lo, sizeof lo);
	heatmap_legend_number(h->hi / unit, hi, sizeof hi);
	if (exp)
		snprintf(name, sizeof name, "%s \u00d71e%d", h->name, exp);
	else
		snprintf(name, sizeof name, "%s", h->name);
	if (h->scale == SCALE_WEIGHTS)
		snprintf(base, sizeof base, "%s: %s \u2026 %s", name, lo, hi);
	else
		snprintf(base, sizeof base, "%s: %s \u2026 0 \u2026 %s", name, lo, hi);
	bool shades = marks == LEGEND_SHADES, signs = shades && heatmap_signs(h, mode, f != NULL);
	char hint[160], shade_hint[160];
	legend_hint(h, mode, shades, signs, hint, sizeof hint);
	legend_hint(h, COLOR_NONE, shades, signs, shade_hint, sizeof shade_hint);
	/* the longest form that fits: with the colours and shades named, then
	 * the shades only, the special cells keyed; at the narrowest the ends
	 * alone (with the unit when the cells are scaled) */
	char special[160], short_special[96];
	legend_specials(h, mode, marks, true, special, sizeof special);
	legend_specials(h, mode, marks, false, short_special, sizeof short_special);
	char ends[96];
	if (exp)
		snprintf(ends, sizeof ends, "\u00d71e%d: %s \u2026 %s", exp, lo, hi);
	else
		snprintf(ends, sizeof ends, "%s \u2026 %s", lo, hi);
	const char *forms[6][3] = {
		{ base, hint, special },
		{ base, shade_hint, special },
		{ base, "", special },
		{ base, "", short_special },
		{ base, "", "" },
		{ ends, "", "" },
	};
	char text[640];
	for (int i = 0; i < 6; i++) {
		snprintf(text, sizeof text, "%s%s%s", forms[i][0], forms[i][1], forms[i][2]);
		if (utf8_width(text) <= width)
			break;
	}
	legend_copy_fitted(out, size, text, width);
}

void heatmap_build_trace(struct heatmap *h, const struct looptrace *lt, enum scale_kind scale)
{
	int rows, cols;
	const double *vals;
	const uint8_t *state;
	looptrace_matrix(lt, &rows, &cols, &vals, &state);
	int64_t shape[2] = { rows, cols };
	struct tensor *m = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	for (int64_t i = 0; i < (int64_t)rows * cols; i++)
		((double *)m->storage->data)[i] = state[i] ? vals[i] : NAN;
	heatmap_build(h, m, NULL, 0, NULL, 0, NULL, 0, scale);
	h->blank = xcalloc((size_t)rows * (size_t)cols + 1, 1);
	for (int64_t i = 0; i < (int64_t)rows * cols; i++)
		h->blank[i] = !state[i];
	summarize(h);	/* a blank cell is no NaN for the legend */
	tensor_unref(m);
}

int64_t heatmap_slice_count(const struct tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i + 2 < t->ndim; i++)
		n *= t->shape[i];
	return n;
}
