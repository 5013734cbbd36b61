/* heatmap.c: the heatmap model (see heatmap.h). Called by text/ and ui/;
 * computes everything about cells, scales and labels but never draws. */
#include "view/heatmap.h"
#include "core/mem.h"

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

static int text_width(const char *s)
{
	int w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		w += (*p & 0xC0) != 0x80;
	return w;
}

void heatmap_build(struct heatmap *h, const struct tensor *t, const int64_t *slice, int nslice,
		   char *const *rows, int nrows, char *const *cols, int ncols, enum scale_kind scale)
{
	memset(h, 0, sizeof *h);
	int nd = t->ndim;
	int lead = nd > 2 ? nd - 2 : 0;
	int64_t r = nd >= 2 ? t->shape[nd - 2] : 1, c = nd >= 1 ? t->shape[nd - 1] : 1;
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
		int w = text_width(h->row_labels[i]);
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
