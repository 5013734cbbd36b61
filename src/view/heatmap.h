/* heatmap.h: what a heatmap shows, computed without a terminal.
 * From a tensor, a slice, labels and a scale it computes each cell's value,
 * its text at a given width, its position on the colour scale, its shade and
 * mark, whether it is masked (-inf), +inf or not a number (NaN: a fully
 * masked row's softmax, 0/0), the layout for what a painter can draw, and
 * the legend. The full-screen UI, `qkv run --plain` and the exported
 * figures draw from this model. Pure: no I/O. */
#ifndef QKV_VIEW_HEATMAP_H
#define QKV_VIEW_HEATMAP_H

#include "core/tensor.h"
#include "lesson/lesson.h"
#include "view/palette.h"

#include <stdbool.h>

/* CELL_NEG_INF is a masked cell ("-inf", "·"), CELL_POS_INF +inf ("inf",
 * "▲"), CELL_NAN a computed NaN ("nan", "?", palette_nan_rgb): each its own
 * word and mark (heatmap_cell_text, heatmap_cell_mark), off the colour
 * scale; CELL_BLANK a loop trace's cell with no value yet, drawn blank. */
enum cell_kind { CELL_VALUE, CELL_NEG_INF, CELL_POS_INF, CELL_NAN, CELL_BLANK };

struct heatmap {
	int rows, cols;
	uint8_t *blank;            /* rows x cols, or NULL: 1 where a loop trace's cell has no
	                              value yet (CELL_BLANK) */
	double *values;            /* rows x cols, row-major */
	enum scale_kind scale;     /* SCALE_DIVERGING (signed data) or SCALE_WEIGHTS
	                              (sequential: non-negative data); auto resolved */
	double lo, hi;             /* the ends of the colour scale */
	char **row_labels, **col_labels;   /* owned copies; indices when none given */
	char slice_name[96];       /* "batch 0, head 1" for 3-D/4-D tensors, "" otherwise */
	int label_width;           /* widest row label, in columns */
	char name[64];             /* what the tensor is, for the legend ("S", "X");
	                              "values" until heatmap_set_name */
	/* What heatmap_layout and heatmap_legend need to know of every cell,
	 * found once when the model is built: a frame that lays out and draws
	 * a window of a large matrix then reads only the cells it shows. */
	double bound[8];           /* the few values whose printed widths bound every cell's */
	int nbound;
	int special_w;             /* widest of "-inf", "inf", "nan" among the cells, or 0 */
	bool any_masked, any_posinf, any_nan;  /* a cell is CELL_NEG_INF, CELL_POS_INF, CELL_NAN */
	bool any_negative;         /* a finite value is below 0 */
	int col_label_width;       /* widest column label, in columns */
};

/* Builds the model of the 2-D slice of t picked by slice (nslice leading
 * indices; missing ones are 0). A 1-D tensor is one row, a 0-d one a cell.
 * rows/cols may be NULL (then 0, 1, 2, ...). SCALE_AUTO picks the
 * sequential scale when no finite value is negative, else the diverging one. */
void heatmap_build(struct heatmap *h, const struct tensor *t, const int64_t *slice, int nslice,
		   char *const *rows, int nrows, char *const *cols, int ncols, enum scale_kind scale);
void heatmap_free(struct heatmap *h);
/* The 2-D slices of t heatmap_build can pick: the product of its leading
 * dimensions (1 with 2 or fewer, 0 when one is empty). [ ] moves through
 * them, offered only when there is more than one (a batch of one has none
 * to move to). */
int64_t heatmap_slice_count(const struct tensor *t);
/* Names what the heatmap shows, for its legend ("X", "S", "W"): copied, cut
 * to fit name[] at a character boundary; NULL or "" gives "values". */
void heatmap_set_name(struct heatmap *h, const char *name);
/* Names it after a lesson's show: its expression when that is short ("S",
 * "X @ W_q"), else its title, else its expression cut with "…". */
void heatmap_set_show_name(struct heatmap *h, const struct show *s);
/* The matrix a loop trace (view/looptrace.h) is filling, as it is now, on
 * the given scale: cells not yet reached are CELL_BLANK (blank is set). */
struct looptrace;
void heatmap_build_trace(struct heatmap *h, const struct looptrace *lt, enum scale_kind scale);

double heatmap_value(const struct heatmap *h, int r, int c);
enum cell_kind heatmap_cell_kind(const struct heatmap *h, int r, int c);
/* Position of a value on the scale, 0..1: diverging maps lo..0..hi to 0..0.5..1,
 * weights map 0..1 (or lo..hi) to 0..1. */
double heatmap_position(const struct heatmap *h, double v);
/* Shade 0..4 for monochrome drawing (░▒▓█ and blank): the magnitude on the
 * scale; diverging uses |v| against the larger end. */
int heatmap_shade(const struct heatmap *h, double v);
/* A cell's mark, one column of UTF-8 (static): the shade of a value
 * (palette_shade), "·" masked (-inf), "▲" +inf, "?" nan, " " blank. Every
 * painter that marks cells draws these, and heatmap_legend names them. */
const char *heatmap_cell_mark(const struct heatmap *h, int r, int c);
/* Whether cells drawn as marks without numbers need a sign beside them
 * ("-" before the mark of a value below 0, heatmap_cell_sign): without
 * colour, when a value is negative; colours tell the sign otherwise, and
 * numbers carry their own. */
bool heatmap_signs(const struct heatmap *h, enum color_mode mode, bool numbers);
/* A cell's sign, one column: "-" for a finite value below 0, else " ". */
const char *heatmap_cell_sign(const struct heatmap *h, int r, int c);

/* How cells print: fixed point, decimals digits after the point, of the
 * value divided by 10^exp. exp is 0 for every matrix whose integer parts fit
 * the cells; only values too large for them (exp 3, 6, ...) or a matrix so
 * small that every cell would read 0.0000 (exp -3, -6, ...) are scaled, and
 * the legend then says so ("×1e6"). */
struct heatmap_numfmt {
	int decimals;          /* 0..4 */
	int exp;
};
/* The format with as many decimals (up to 4) as let every finite value fit
 * in width characters, the same for the whole matrix; whole numbers (a
 * mask, counts) get none, other data at least one while its integer parts
 * are single digits. False when no fixed-point format fits (draw colour
 * only). */
bool heatmap_number_format(const struct heatmap *h, int width, struct heatmap_numfmt *f);
/* v in f ("0.996", "-2.10"), without padding; the exact value is the
 * inspector's (view/inspect.h). */
void heatmap_format_value(const struct heatmap_numfmt *f, double v, char *out, size_t size);
/* A cell's text in f, right-aligned in width; masked cells read "-inf", NaN
 * "nan", blank ones nothing. */
void heatmap_cell_text(const struct heatmap *h, int r, int c, const struct heatmap_numfmt *f, int width, char *out,
		       size_t size);

/* What a painter can draw, which decides the cells a layout gives it:
 * mode its colours, utf8 whether it draws UTF-8 (not the ASCII twins of a
 * locale that is not UTF-8). Half blocks (two rows a line, ▀ in two
 * colours) need 16 colours or more and UTF-8: with fewer colours or none
 * they could only be shades, one for two rows, and a row would vanish. */
struct heatmap_ink {
	enum color_mode mode;
	bool utf8;
};

/* Where a heatmap goes in a pane of width x height characters. */
struct heatmap_layout {
	int label_w;           /* columns for the row labels (0 when none fit) */
	int cell_w;            /* columns per cell */
	int cell_h;            /* lines per cell row (2 in big mode, 1 otherwise;
	                          in half-block mode one line holds 2 rows) */
	bool numbers;          /* numbers drawn in the cells */
	struct heatmap_numfmt fmt;  /* their format */
	bool marks;            /* a mark (heatmap_cell_mark) beside each number,
	                          with a space on each side: on 8 colours, whose
	                          few colours lose the magnitude */
	bool signs;            /* a sign column before each mark of cells
	                          without numbers (heatmap_signs) */
	bool half_blocks;      /* compact: colour only, two rows per line (▀);
	                          only for an ink that draws them */
	int header_h;          /* lines of column labels above the cells: 1, or
	                          2 when labels cut in one line fit whole in two
	                          (even columns on the first, odd on the second,
	                          each right-aligned to its cell and free to use
	                          its left neighbour's columns) */
	int row0, col0;        /* first visible row and column (scrolled so the
	                          cursor is visible) */
	int vis_rows, vis_cols;
	int width, height;     /* what the grid uses, labels and header included */
	bool legend;           /* a legend line fits under the grid */
};
/* The geometry, from the pane's top-left corner: row labels in columns
 * 0..label_w-1, a space, then the cells from column label_w + 1 (from 0
 * when label_w is 0), cell_w columns each with the last one a gap (numbers
 * are heatmap_cell_text(..., &L->fmt, cell_w - 1, ...), which always fits;
 * with marks, the number takes cell_w - 3 columns, then a space, the mark
 * and the gap, so that a mark never touches a digit; colour-only cells are
 * the mark, after the sign when signs, then the gap; big cells are solid,
 * twice as wide, the number and its mark centred with a space between and
 * a column or more to spare). Row labels take up to 12
 * columns, more when the cells leave room (never so much that a cell
 * would not fit); a label cut is cut with "…". header_h lines of column
 * labels come first, then the rows (cell_h lines each; in half-block mode
 * line k holds rows row0 + 2k and row0 + 2k + 1, row0 even), then the
 * legend line when legend is set. width and height are what all of this
 * takes, the legend line included, never more than the pane; row0 +
 * vis_rows <= rows and col0 + vis_cols <= cols; vis_rows and vis_cols are 0
 * only when not even one cell fits the pane (or the matrix is empty).
 * Zoom steps along one ladder: half blocks (when the ink draws them),
 * colour cells, then numbers with more and more decimals (then as wide as
 * the column labels); zoom 0 is the highest step that shows the whole
 * matrix, or the lowest when none does. Every row is a line of its own but
 * in half blocks. The cursor is centred when the grid must scroll. */

/* Lays h out in width x height for a painter of the given ink: numbers when
 * they fit (at the widest precision the zoom allows: zoom 0 is the default,
 * positive adds decimals, negative narrows toward colour-only cells and then
 * half blocks), scrolled so that (cur_r, cur_c) is visible; big doubles the
 * cells for a projector. */
void heatmap_layout(const struct heatmap *h, struct heatmap_ink ink, int width, int height, int zoom, bool big,
		    int cur_r, int cur_c, struct heatmap_layout *L);
/* A number of the legend, two significant digits ("-2.1", "0.034", "1.2e+06"):
 * the ends of the scale, as the legend text and an exported colour bar
 * write them. */
void heatmap_legend_number(double v, char *buf, size_t size);
/* What a painter draws besides colours and numbers, for the legend to name:
 * LEGEND_WORDS: the cells' own words (-inf, inf, nan) and colours only;
 * LEGEND_SHADES: the marks of heatmap_cell_mark (░▒▓█ · ▲ ?), beside the
 * numbers or instead of them; LEGEND_BLOCKS: colours only, the cells off
 * the scale in their own (half blocks: palette_masked_rgb,
 * palette_posinf_rgb, palette_nan_rgb); LEGEND_SCALE: the legend names the
 * scale only (an exported figure draws its own key for the cells off it). */
enum legend_marks { LEGEND_WORDS, LEGEND_SHADES, LEGEND_BLOCKS, LEGEND_SCALE };
/* What a grid laid out by L draws: blocks in half blocks, shades without
 * numbers and beside them with marks, else the words. */
enum legend_marks heatmap_legend_marks(const struct heatmap_layout *L);
/* The legend text, named by h->name: "X: -2.1 … 0 … 3.6 (blue negative,
 * orange positive)" for a diverging scale, "W: 0 … 1 (pale to deep blue)"
 * for a sequential one, "S ×1e6: ..." when the cells are scaled (f, which
 * may be NULL, is their format, NULL when no numbers are drawn); then each
 * kind of cell off the scale there is, by what marks draws for it: its
 * mark ("· = masked (-inf)", "▲ = +inf", "? = nan"), its colour ("dark
 * grey = masked (-inf)", "white = +inf") or its word ("-inf = masked"),
 * NaN's colour named where mode has colour ("? magenta = nan"); fitted to
 * width.
 * Colours are named only as mode draws them (none for COLOR_NONE); with
 * shades their meaning is named, and the minus sign of negative marks
 * where heatmap_signs draws it ("-░ = negative"). */
void heatmap_legend(const struct heatmap *h, const struct heatmap_numfmt *f, enum color_mode mode,
		    enum legend_marks marks, char *out, size_t size, int width);

#endif
