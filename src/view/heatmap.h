/* heatmap.h: what a heatmap shows, computed without a terminal.
 * From a tensor, a slice, labels and a scale it computes each cell's value,
 * its text at a given width, its position on the colour scale and its shade,
 * whether it is masked (-inf), and the legend. Both the full-screen UI and
 * `qkv run --plain` draw from this model. Pure: no I/O. */
#ifndef QKV_VIEW_HEATMAP_H
#define QKV_VIEW_HEATMAP_H

#include "core/tensor.h"
#include "lesson/lesson.h"

#include <stdbool.h>

enum cell_kind { CELL_VALUE, CELL_NEG_INF, CELL_POS_INF, CELL_NAN };

struct heatmap {
	int rows, cols;
	double *values;            /* rows x cols, row-major */
	enum scale_kind scale;     /* SCALE_DIVERGING or SCALE_WEIGHTS (auto resolved) */
	double lo, hi;             /* the ends of the colour scale */
	char **row_labels, **col_labels;   /* owned copies; indices when none given */
	char slice_name[96];       /* "batch 0, head 1" for 3-D/4-D tensors, "" otherwise */
	int label_width;           /* widest row label, in characters */
};

/* Builds the model of the 2-D slice of t picked by slice (nslice leading
 * indices; missing ones are 0). A 1-D tensor is one row, a 0-d one a cell.
 * rows/cols may be NULL (then 0, 1, 2, ...). */
void heatmap_build(struct heatmap *h, const struct tensor *t, const int64_t *slice, int nslice,
		   char *const *rows, int nrows, char *const *cols, int ncols, enum scale_kind scale);
void heatmap_free(struct heatmap *h);

double heatmap_value(const struct heatmap *h, int r, int c);
enum cell_kind heatmap_cell_kind(const struct heatmap *h, int r, int c);
/* Position of a value on the scale, 0..1: diverging maps lo..0..hi to 0..0.5..1,
 * weights map 0..1 (or lo..hi) to 0..1. */
double heatmap_position(const struct heatmap *h, double v);
/* Shade 0..4 for monochrome drawing (░▒▓█ and blank): the magnitude on the
 * scale; diverging uses |v| against the larger end. */
int heatmap_shade(const struct heatmap *h, double v);

/* The printf precision and style that let every cell fit in width
 * characters: fills fmt (at least 16 bytes) with e.g. "%.4f" or "%.1e";
 * false when no number fits (draw colour only). */
bool heatmap_number_format(const struct heatmap *h, int width, char *fmt);
/* A cell's text in fmt, right-aligned in width; masked cells read "-inf". */
void heatmap_cell_text(const struct heatmap *h, int r, int c, const char *fmt, int width, char *out, size_t size);

#endif
