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
	if (scale == SCALE_AUTO)
		scale = lo >= 0 && hi <= 1 ? SCALE_WEIGHTS : SCALE_DIVERGING;
	h->scale = scale;
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
	memset(h, 0, sizeof *h);
}

double heatmap_value(const struct heatmap *h, int r, int c)
{
	return h->values[(size_t)r * (size_t)h->cols + (size_t)c];
}

enum cell_kind heatmap_cell_kind(const struct heatmap *h, int r, int c)
{
	double v = heatmap_value(h, r, c);
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

static int fmt_len(const char *fmt, double v)
{
	char buf[64];
	return snprintf(buf, sizeof buf, fmt, v);
}

/* Whether every finite value prints within width characters in fmt. */
static bool fits_all(const struct heatmap *h, const char *fmt, int width)
{
	for (int i = 0; i < h->rows * h->cols; i++)
		if (isfinite(h->values[i]) && fmt_len(fmt, h->values[i]) > width)
			return false;
	return true;
}

bool heatmap_number_format(const struct heatmap *h, int width, char *fmt)
{
	/* whole numbers (a mask, counts) without decimals */
	bool whole = true;
	for (int i = 0; i < h->rows * h->cols && whole; i++) {
		double v = h->values[i];
		whole = !isfinite(v) || (v == floor(v) && fabs(v) < 1e9);
	}
	if (whole) {
		snprintf(fmt, 16, "%%.0f");
		if (fits_all(h, fmt, width))
			return true;
	}
	/* torch's rule: tiny or widely spread magnitudes print in scientific
	 * notation, so a weight of 6e-06 never reads as a masked 0.0000 */
	double mn = INFINITY, mx = 0;
	for (int i = 0; i < h->rows * h->cols; i++) {
		double v = fabs(h->values[i]);
		if (isfinite(v) && v != 0) {
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
		}
	}
	bool sci = mx > 0 && (mn < 1e-4 || mx / mn > 1000 || mx >= 1e8);
	for (int prec = 2; sci && prec >= 0; prec--) {
		snprintf(fmt, 16, "%%.%de", prec);
		if (fits_all(h, fmt, width))
			return true;
	}
	/* fixed with as many decimals as fit (4 at most), else scientific */
	for (int prec = 4; prec >= 0; prec--) {
		snprintf(fmt, 16, "%%.%df", prec);
		bool fits = fits_all(h, fmt, width);
		/* keep at least one significant digit of the smallest magnitudes */
		if (fits && prec < 4) {
			for (int i = 0; i < h->rows * h->cols && fits; i++) {
				double v = fabs(h->values[i]);
				if (isfinite(v) && v != 0 && v < 0.5 * pow(10, -prec))
					fits = false;
			}
		}
		if (fits)
			return true;
	}
	for (int prec = 2; prec >= 0; prec--) {
		snprintf(fmt, 16, "%%.%de", prec);
		if (fits_all(h, fmt, width))
			return true;
	}
	return false;
}

void heatmap_cell_text(const struct heatmap *h, int r, int c, const char *fmt, int width, char *out, size_t size)
{
	char num[64];
	switch (heatmap_cell_kind(h, r, c)) {
	case CELL_NEG_INF: snprintf(num, sizeof num, "-inf"); break;
	case CELL_POS_INF: snprintf(num, sizeof num, "inf"); break;
	case CELL_NAN: snprintf(num, sizeof num, "nan"); break;
	default: snprintf(num, sizeof num, fmt, heatmap_value(h, r, c)); break;
	}
	snprintf(out, size, "%*s", width, num);
}

/* ---- layout ---------------------------------------------------------- */

/* The few values whose printed widths bound everyone's: in fixed and
 * scientific notation a value's width grows with its magnitude (and its
 * sign), and the exponent's width is largest at the extremes, so the largest
 * and smallest nonzero magnitude of each sign, the zeros and one value that
 * is not whole decide what heatmap_number_format picks for the whole
 * matrix. Gathered in one pass so that a 512x512 layout stays cheap. */
struct layout_values {
	double sample[8];
	int nsample;
	int special_w;        /* widest of "-inf", "inf", "nan" present, or 0 */
	int col_label_w;      /* widest column label, in characters */
};

static void layout_gather(const struct heatmap *h, struct layout_values *s)
{
	double max_pos = 0, min_pos = INFINITY, max_neg = -INFINITY, min_neg = 0, breaker = 0;
	bool pos_zero = false, neg_zero = false, has_breaker = false;
	memset(s, 0, sizeof *s);
	size_t n = (size_t)h->rows * (size_t)h->cols;
	for (size_t i = 0; i < n; i++) {
		double v = h->values[i];
		if (!isfinite(v)) {
			int w = isnan(v) ? 3 : v < 0 ? 4 : 3;
			s->special_w = w > s->special_w ? w : s->special_w;
			continue;
		}
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
		if (!has_breaker && !(v == floor(v) && fabs(v) < 1e9)) {
			has_breaker = true;
			breaker = v;
		}
	}
	if (max_pos > 0) {
		s->sample[s->nsample++] = max_pos;
		s->sample[s->nsample++] = min_pos;
	}
	if (min_neg < 0) {
		s->sample[s->nsample++] = min_neg;
		s->sample[s->nsample++] = max_neg;
	}
	if (pos_zero)
		s->sample[s->nsample++] = 0.0;
	if (neg_zero)
		s->sample[s->nsample++] = -0.0;
	if (has_breaker)
		s->sample[s->nsample++] = breaker;
	for (int c = 0; c < h->cols; c++) {
		int w = utf8_width(h->col_labels[c]);
		s->col_label_w = w > s->col_label_w ? w : s->col_label_w;
	}
}

/* One step of the zoom ladder: half blocks, colour-only cells, then
 * numbers at growing widths and precisions. */
struct layout_level {
	bool half, numbers;
	int text_w;           /* characters of the widest cell text (numbers) */
	char fmt[16];
};

#define LAYOUT_MAX_LEVELS 24

/* Fills lv with the ladder, narrowest first; returns its length. */
static int layout_levels(const struct layout_values *s, struct layout_level *lv)
{
	int n = 0;
	memset(lv, 0, 2 * sizeof *lv);
	lv[n++].half = true;
	n++;	/* lv[1]: colour only, 2-column cells */
	struct heatmap proxy;
	memset(&proxy, 0, sizeof proxy);
	double sample[8];
	memcpy(sample, s->sample, sizeof sample);
	proxy.rows = 1;
	proxy.cols = s->nsample;
	proxy.values = sample;
	for (int w = 1; w <= 16 && n < LAYOUT_MAX_LEVELS - 1; w++) {
		char fmt[16];
		if (!heatmap_number_format(&proxy, w, fmt))
			continue;
		int need = 1;
		for (int i = 0; i < s->nsample; i++) {
			int len = fmt_len(fmt, s->sample[i]);
			need = len > need ? len : need;
		}
		need = s->special_w > need ? s->special_w : need;
		struct layout_level *last = &lv[n - 1];
		if (!last->numbers || need > last->text_w) {
			memset(&lv[n], 0, sizeof lv[n]);
			lv[n].numbers = true;
			lv[n].text_w = need;
			snprintf(lv[n].fmt, sizeof lv[n].fmt, "%s", fmt);
			n++;
		} else if (need == last->text_w) {
			snprintf(last->fmt, sizeof last->fmt, "%s", fmt);
		}
	}
	/* at the top, cells as wide as the column labels (12 at most) */
	int label = s->col_label_w > 12 ? 12 : s->col_label_w;
	if (lv[n - 1].numbers && label > lv[n - 1].text_w) {
		lv[n] = lv[n - 1];
		lv[n].text_w = label;
		n++;
	}
	return n;
}

/* A level's geometry in a width x height pane; label_cols is label_w plus
 * the space between the labels and the cells (0 without labels). */
struct layout_geom {
	int label_w, label_cols, cell_w, cell_h, header_h;
};

static void layout_geometry(const struct heatmap *h, const struct layout_level *lv, bool big, int width,
			    int height, struct layout_geom *g)
{
	if (lv->half)
		g->cell_w = big ? 2 : 1;
	else if (!lv->numbers)
		g->cell_w = big ? 4 : 2;
	else
		g->cell_w = (lv->text_w + 1) * (big ? 2 : 1);
	g->cell_h = big && !lv->half ? 2 : 1;
	/* row labels: 12 characters at most, then a space; never more than
	 * half the pane, nor so much that no cell fits */
	int lw = h->label_width > 12 ? 12 : h->label_width;
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

void heatmap_layout(const struct heatmap *h, int width, int height, int zoom, bool big, int cur_r, int cur_c,
		    struct heatmap_layout *L)
{
	memset(L, 0, sizeof *L);
	width = width < 0 ? 0 : width;
	height = height < 0 ? 0 : height;
	struct layout_values s;
	layout_gather(h, &s);
	struct layout_level lv[LAYOUT_MAX_LEVELS];
	int n = layout_levels(&s, lv);
	/* a pane too small for even the smallest big cell drops big */
	struct layout_geom g;
	layout_geometry(h, &lv[0], big, width, height, &g);
	if (big && !layout_fits_one(&g, width, height)) {
		heatmap_layout(h, width, height, zoom, false, cur_r, cur_c, L);
		return;
	}
	/* zoom 0: the most detailed level that shows the whole matrix, else
	 * the most compact; zoom steps along the ladder from there */
	int def = 0;
	for (int i = n - 1; i > 0 && !def; i--) {
		layout_geometry(h, &lv[i], big, width, height, &g);
		if (layout_fits_all(h, &lv[i], &g, width, height))
			def = i;
	}
	long long want = (long long)def + zoom;
	int level = want < 0 ? 0 : want > n - 1 ? n - 1 : (int)want;
	layout_geometry(h, &lv[level], big, width, height, &g);
	while (level > 0 && !layout_fits_one(&g, width, height)) {
		level--;
		layout_geometry(h, &lv[level], big, width, height, &g);
	}
	const struct layout_level *chosen = &lv[level];
	L->label_w = g.label_w;
	L->cell_w = g.cell_w;
	L->cell_h = g.cell_h;
	L->numbers = chosen->numbers;
	snprintf(L->fmt, sizeof L->fmt, "%s", chosen->fmt);
	L->half_blocks = chosen->half;
	L->header_h = g.header_h;
	if (!layout_fits_one(&g, width, height) || h->rows <= 0 || h->cols <= 0) {
		/* not even one cell: nothing to draw */
		L->label_w = L->header_h = 0;
		return;
	}
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

/* A scale end, short: 4.4, 0.35, 12, 1.5e-05. */
static void legend_number(double v, char *buf, size_t size)
{
	double a = fabs(v);
	if (a == 0)
		snprintf(buf, size, "0");
	else if (a >= 1e6 || a < 0.01)
		snprintf(buf, size, "%.1e", v);
	else if (a >= 10)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.2g", v);
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

void heatmap_legend(const struct heatmap *h, char *out, size_t size, int width)
{
	char lo[32], hi[32], base[96];
	legend_number(h->lo, lo, sizeof lo);
	legend_number(h->hi, hi, sizeof hi);
	const char *hint;
	if (h->scale == SCALE_WEIGHTS) {
		snprintf(base, sizeof base, "weights: %s \u2026 %s", lo, hi);
		hint = " (pale to deep blue)";
	} else {
		snprintf(base, sizeof base, "scores: %s \u2026 0 \u2026 %s", lo, hi);
		hint = " (blue negative, orange positive)";
	}
	bool masked = false;
	for (size_t i = 0, n = (size_t)h->rows * (size_t)h->cols; i < n && !masked; i++)
		masked = isinf(h->values[i]) && h->values[i] < 0;
	/* the longest form that fits: with the colours named, the mask noted */
	const char *mask = masked ? "   \u00b7 = masked (-inf)" : "";
	const char *short_mask = masked ? "  \u00b7 masked" : "";
	char ends[72];
	snprintf(ends, sizeof ends, "%s \u2026 %s", lo, hi);
	const char *forms[5][3] = {
		{ base, hint, mask },
		{ base, "", mask },
		{ base, "", short_mask },
		{ base, "", "" },
		{ ends, "", "" },
	};
	char text[256];
	for (int i = 0; i < 5; i++) {
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
	h->nan_blank = true;
	tensor_unref(m);
}
