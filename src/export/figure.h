/* figure.h: the drawing code of exported figures, inside export/ (export.c
 * turns a drawing into SVG, PDF or PNG bytes; html.c inlines SVG). Draws
 * the view/ models on a cairo context in points (1 pt = 1 px of the SVG,
 * 2 px of the PNG) and says how big the drawing is. The
 * geometry of a heatmap's cells is public so that tests can find a cell's
 * pixels. */
#ifndef QKV_EXPORT_FIGURE_H
#define QKV_EXPORT_FIGURE_H

#include "export/export.h"
#include "view/heatmap.h"
#include "view/page.h"

#include <cairo.h>

/* Rows and columns beyond these are left out of a figure (it says which
 * it shows); a 200x200 grid is already 40,000 rectangles. */
#define FIGURE_MAX_ROWS 200
#define FIGURE_MAX_COLS 200

/* Where a heatmap's cells went: cell (r, c) covers x + c*cw .. x + (c+1)*cw,
 * y + r*ch .. y + (r+1)*ch, for r < rows and c < cols (the cells shown). */
struct figure_grid {
	double x, y, cw, ch;
	int rows, cols;
	bool numbers;            /* numbers drawn in the cells */
};

/* A drawing: where it is drawn (export.c's target surface, or a recording
 * surface of figure_begin to measure it on) and the size of what was drawn. */
struct figure {
	cairo_surface_t *rec;    /* figure_begin's, else NULL */
	cairo_t *cr;
	enum palette_kind palette;
	double w, h;             /* extent drawn, margins included */
};

/* A figure on a recording surface of its own, to measure a drawing on
 * (nothing is replayed from it); figure_end frees it. */
void figure_begin(struct figure *f, enum palette_kind palette);
void figure_end(struct figure *f);

/* Each draws one model at the figure's top-left (margins included) and
 * grows f->w, f->h. figure_heatmap fills g (may be NULL) with the grid's
 * place; the others draw what their view needs. title may be NULL. */
void figure_heatmap(struct figure *f, const struct heatmap *h, const char *title, const struct heatmap_numfmt *fmt,
		    struct figure_grid *g);
/* The figure of a page's view, as export_view draws it; g (may be NULL)
 * gets the grid of a heatmap (the SIMD panel of a comparison). -1 with err
 * when the view has nothing to draw. */
int figure_view(struct figure *f, const struct page_view *v, const struct heatmap_numfmt *fmt,
		struct figure_grid *g, struct qkv_error *err);

#endif
