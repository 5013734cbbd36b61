/* test_heatmap.c: heatmap_layout, heatmap_number_format and heatmap_legend
 * (view/heatmap.c) at the pane sizes a terminal gives (10x3 up to 200x60)
 * for matrices from 1x1 to 512x512: numbers in fixed point when they fit,
 * colour cells or half blocks when not, the cursor always visible, nothing
 * outside the pane, legends named by the tensor and its scale. No terminal
 * involved. */
#include <criterion/criterion.h>

#include "core/tensor.h"
#include "lesson/lesson.h"
#include "view/heatmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum fill { FILL_SCORES, FILL_WEIGHTS, FILL_CAUSAL, FILL_TINY, FILL_WHOLE, FILL_LARGE, FILL_ZEROS };

static uint32_t lcg_state;

/* uniform in [-1, 1), reproducible */
static double lcg(void)
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return (lcg_state >> 8) / 8388608.0 - 1.0;
}

static double fill_value(enum fill f, int64_t r, int64_t c)
{
	switch (f) {
	case FILL_SCORES: {
		/* magnitudes 0.05 .. 4.4, within torch's fixed-point range */
		double u = lcg();
		return (u < 0 ? -1 : 1) * (0.05 + 4.35 * fabs(u));
	}
	case FILL_WEIGHTS: return 0.51 + 0.49 * lcg();
	case FILL_CAUSAL: return c > r ? -INFINITY : 3 * lcg();
	case FILL_TINY: return (r + c) % 3 == 0 ? 6e-6 * (1 + lcg()) : 0.3 + 0.2 * lcg();
	case FILL_WHOLE: return (double)((r + c) % 2);
	case FILL_LARGE: return 12345.678 * lcg();
	case FILL_ZEROS: return (r + c) % 2 ? 0.0 : -0.0;
	}
	return 0;
}

/* A rows x cols heatmap of the given kind; labels are indices unless given. */
static void make_heatmap(struct heatmap *h, int64_t rows, int64_t cols, enum fill f, char *const *labels,
			 int nlabels)
{
	int64_t shape[2] = { rows, cols };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	lcg_state = (uint32_t)(rows * 7919 + cols * 31 + f);
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			tensor_set(t, r * cols + c, fill_value(f, r, c));
	heatmap_build(h, t, NULL, 0, labels, nlabels, labels, nlabels, SCALE_AUTO);
	tensor_unref(t);
}

static int utf8_chars(const char *s)
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xC0) != 0x80;
	return n;
}

/* A painter with every colour, in UTF-8: half blocks and all. */
static const struct heatmap_ink colour_ink = { COLOR_256, true };

/* Every promise of heatmap_layout for one call with ink: sizes, scrolling,
 * cursor, marks and signs. */
static void check_layout_in(const struct heatmap *h, struct heatmap_ink ink, int w, int ht, int zoom, bool big,
			    int cur_r, int cur_c, struct heatmap_layout *L)
{
	heatmap_layout(h, ink, w, ht, zoom, big, cur_r, cur_c, L);
	char what[160];
	snprintf(what, sizeof what, "%dx%d matrix in %dx%d, zoom %d%s, cursor %d,%d, colours %d%s", h->rows, h->cols, w,
		 ht, zoom, big ? " big" : "", cur_r, cur_c, (int)ink.mode, ink.utf8 ? "" : " ascii");
	int fields[] = { L->label_w, L->cell_w, L->cell_h, L->header_h, L->row0, L->col0,
			 L->vis_rows, L->vis_cols, L->width, L->height };
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		cr_assert(fields[i] >= 0, "%s: field %zu is negative", what, i);
	cr_assert(L->width <= w && L->height <= ht, "%s: uses %dx%d", what, L->width, L->height);
	cr_assert(L->vis_rows <= h->rows && L->vis_cols <= h->cols, "%s: shows more than the matrix", what);
	cr_assert(L->row0 + L->vis_rows <= h->rows && L->col0 + L->vis_cols <= h->cols, "%s: scrolled past", what);
	cr_assert(L->label_w <= 32, "%s: row labels %d wide", what, L->label_w);
	cr_assert(L->cell_w >= 1 && L->cell_h >= 1 && L->header_h <= 2, "%s", what);
	cr_assert(!(L->numbers && L->half_blocks), "%s", what);
	cr_assert(L->fmt.decimals >= 0 && L->fmt.decimals <= 4, "%s: %d decimals", what, L->fmt.decimals);
	if (L->header_h == 2)
		cr_assert(L->row0 == 0 && L->col0 == 0 && L->vis_rows == h->rows && L->vis_cols == h->cols && L->legend,
			  "%s: two header lines only when the whole grid and its legend fit", what);
	if (L->vis_rows == 0 || L->vis_cols == 0) {
		cr_assert(L->vis_rows == 0 && L->vis_cols == 0 && L->width == 0 && L->height == 0, "%s", what);
		return;
	}
	/* the geometry adds up */
	int lines = L->half_blocks ? (L->vis_rows + 1) / 2 : L->vis_rows * L->cell_h;
	cr_assert_eq(L->height, L->header_h + lines + (L->legend ? 1 : 0), "%s", what);
	cr_assert_eq(L->width, (L->label_w ? L->label_w + 1 : 0) + L->vis_cols * L->cell_w, "%s", what);
	if (L->half_blocks)
		cr_assert(L->row0 % 2 == 0, "%s: half blocks from an odd row", what);
	/* the cursor (clamped to the matrix) is on screen */
	int cr = cur_r < 0 ? 0 : cur_r >= h->rows ? h->rows - 1 : cur_r;
	int cc = cur_c < 0 ? 0 : cur_c >= h->cols ? h->cols - 1 : cur_c;
	cr_assert(cr >= L->row0 && cr < L->row0 + L->vis_rows, "%s: cursor row off screen (rows %d+%d)", what,
		  L->row0, L->vis_rows);
	cr_assert(cc >= L->col0 && cc < L->col0 + L->vis_cols, "%s: cursor column off screen (cols %d+%d)", what,
		  L->col0, L->vis_cols);
	/* half blocks only where the ink draws them: elsewhere every row is a
	 * line of its own; marks beside numbers on 8 colours only; signs
	 * without colour, for cells without numbers */
	if (ink.mode < COLOR_16 || !ink.utf8)
		cr_assert(!L->half_blocks, "%s: half blocks, two rows a line", what);
	cr_assert_eq(L->marks, L->numbers && ink.mode == COLOR_8, "%s", what);
	cr_assert_eq(L->signs, !L->numbers && !L->half_blocks && heatmap_signs(h, ink.mode, false), "%s", what);
	/* every visible number fits its cell, the last column left as a gap,
	 * and with marks a space before the mark too */
	int room = L->marks && L->cell_h == 1 ? L->cell_w - 3 : L->cell_w - 1;
	if (L->numbers) {
		for (int r = L->row0; r < L->row0 + L->vis_rows; r++) {
			for (int c = L->col0; c < L->col0 + L->vis_cols; c++) {
				char text[64];
				heatmap_cell_text(h, r, c, &L->fmt, room, text, sizeof text);
				cr_assert((int)strlen(text) <= room, "%s: \"%s\" in %d columns", what, text, room);
				heatmap_cell_text(h, r, c, &L->fmt, 0, text, sizeof text);
				if (L->marks && L->cell_h > 1)	/* big: the number, a space, its mark, a column to spare */
					cr_assert((int)strlen(text) + 3 <= L->cell_w, "%s: \"%s\" in %d", what, text,
						  L->cell_w);
			}
		}
	}
	/* without numbers: the sign, the mark and a gap; or a solid big cell */
	if (!L->numbers && !L->half_blocks)
		cr_assert_eq(L->cell_w, L->cell_h > 1 ? 4 : L->signs ? 3 : 2, "%s", what);
}

static void check_layout(const struct heatmap *h, int w, int ht, int zoom, bool big, int cur_r, int cur_c,
			 struct heatmap_layout *L)
{
	check_layout_in(h, colour_ink, w, ht, zoom, big, cur_r, cur_c, L);
}

Test(heatmap, layout_should_stay_inside_every_pane_for_every_matrix_zoom_and_cursor)
{
	static const int panes[][2] = { { 10, 3 }, { 20, 5 }, { 40, 8 }, { 76, 12 }, { 80, 24 }, { 120, 40 },
					{ 200, 60 }, { 1, 1 }, { 3, 1 }, { 2, 2 } };
	static const int sizes[][2] = { { 1, 1 }, { 3, 3 }, { 8, 8 }, { 64, 64 }, { 512, 512 }, { 3, 100 },
					{ 100, 3 }, { 1, 7 }, { 7, 1 }, { 5, 6 } };
	static const enum fill fills[] = { FILL_SCORES, FILL_WEIGHTS, FILL_CAUSAL };
	/* no colour, 8 colours, 256 in ASCII and in UTF-8, in turn */
	static const struct heatmap_ink inks[] = { { COLOR_NONE, true }, { COLOR_8, true }, { COLOR_256, false },
						   { COLOR_256, true } };
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
			if (sizes[s][0] == 512 && f > 0)
				continue;	/* one 512x512 fill is enough */
			struct heatmap h;
			make_heatmap(&h, sizes[s][0], sizes[s][1], fills[f], NULL, 0);
			int curs[][2] = { { 0, 0 }, { h.rows / 2, h.cols / 3 }, { h.rows - 1, h.cols - 1 },
					  { h.rows - 2, 1 }, { -4, 9999 } };
			for (size_t p = 0; p < sizeof panes / sizeof panes[0]; p++) {
				for (int zoom = -3; zoom <= 3; zoom++) {
					for (int big = 0; big < 2; big++) {
						for (size_t k = 0; k < sizeof curs / sizeof curs[0]; k++) {
							struct heatmap_layout L;
							struct heatmap_ink ink = inks[(p + k + (size_t)zoom + 3) % 4];
							check_layout_in(&h, ink, panes[p][0], panes[p][1], zoom, big,
									curs[k][0], curs[k][1], &L);
							/* any pane of a line and a column shows a cell (a half
							 * block); of 3 columns without half blocks (a sign, a
							 * mark, the gap) */
							if (panes[p][0] >= 3 || (ink.mode >= COLOR_16 && ink.utf8))
								cr_assert(L.vis_rows > 0 && L.vis_cols > 0,
									  "%dx%d in %dx%d zoom %d", h.rows, h.cols,
									  panes[p][0], panes[p][1], zoom);
						}
					}
				}
			}
			heatmap_free(&h);
		}
	}
}

Test(heatmap, layout_should_show_numbers_when_a_small_matrix_fits)
{
	static const int panes[][2] = { { 76, 12 }, { 80, 24 }, { 120, 40 }, { 200, 60 } };
	for (size_t p = 0; p < 4; p++) {
		struct heatmap h;
		make_heatmap(&h, 3, 3, FILL_WEIGHTS, NULL, 0);
		struct heatmap_layout L;
		check_layout(&h, panes[p][0], panes[p][1], 0, false, 0, 0, &L);
		cr_assert(L.numbers && !L.half_blocks);
		cr_assert(L.fmt.decimals == 4 && L.fmt.exp == 0, "torch's four decimals when there is room");
		cr_assert_eq(L.vis_rows, 3);
		cr_assert_eq(L.vis_cols, 3);
		cr_assert_eq(L.header_h, 1, "column labels above number cells");
		cr_assert(L.legend, "a legend under a small grid");
		heatmap_free(&h);
		make_heatmap(&h, 8, 8, FILL_SCORES, NULL, 0);
		check_layout(&h, panes[p][0], panes[p][1], 0, false, 7, 7, &L);
		cr_assert(L.numbers, "8x8 numbers in %dx%d", panes[p][0], panes[p][1]);
		cr_assert(L.vis_rows == 8 && L.vis_cols == 8 && L.row0 == 0 && L.col0 == 0);
		heatmap_free(&h);
	}
}

Test(heatmap, layout_should_fall_back_to_colour_cells_then_half_blocks)
{
	struct heatmap h;
	struct heatmap_layout L;
	/* 16x16 in 76x24: no room for numbers, room for 2-column colour cells */
	make_heatmap(&h, 16, 16, FILL_SCORES, NULL, 0);
	check_layout(&h, 76, 24, 0, false, 0, 0, &L);
	cr_assert(!L.numbers && !L.half_blocks && L.cell_w == 2 && L.cell_h == 1);
	cr_assert(L.vis_rows == 16 && L.vis_cols == 16);
	cr_assert_eq(L.header_h, 0, "no column labels over 2-column cells");
	heatmap_free(&h);
	/* 64x64 in 76x12 and 200x60, 512x512 anywhere: half blocks */
	make_heatmap(&h, 64, 64, FILL_WEIGHTS, NULL, 0);
	check_layout(&h, 76, 12, 0, false, 0, 0, &L);
	cr_assert(L.half_blocks && !L.numbers && L.cell_w == 1 && L.header_h == 0);
	check_layout(&h, 200, 60, 0, false, 0, 0, &L);
	cr_assert(L.half_blocks, "64 rows need 64 lines as cells, 32 as half blocks");
	cr_assert(L.vis_rows == 64 && L.vis_cols == 64, "the whole 64x64 in 200x60");
	check_layout(&h, 120, 40, 0, false, 0, 0, &L);
	cr_assert(L.half_blocks && L.vis_rows == 64 && L.vis_cols == 64);
	heatmap_free(&h);
	make_heatmap(&h, 512, 512, FILL_SCORES, NULL, 0);
	check_layout(&h, 200, 60, 0, false, 0, 0, &L);
	cr_assert(L.half_blocks && L.row0 == 0 && L.col0 == 0);
	cr_assert(L.legend, "a scrolling grid keeps a line for the legend");
	cr_assert_eq(L.height, 60);
	cr_assert_eq(L.vis_rows, 2 * 59, "59 lines of half blocks, then the legend");
	heatmap_free(&h);
}

Test(heatmap, layout_should_scroll_so_the_cursor_is_visible)
{
	struct heatmap h;
	struct heatmap_layout L;
	make_heatmap(&h, 512, 512, FILL_SCORES, NULL, 0);
	check_layout(&h, 76, 12, 0, false, 300, 400, &L);
	cr_assert(L.row0 > 0 && L.col0 > 0);
	check_layout(&h, 76, 12, 0, false, 511, 511, &L);
	cr_assert_eq(L.row0 + L.vis_rows, 512);
	cr_assert_eq(L.col0 + L.vis_cols, 512);
	check_layout(&h, 76, 12, 3, false, 257, 3, &L);
	cr_assert(L.numbers, "zoomed in, numbers even for 512x512");
	check_layout(&h, 200, 60, 2, true, 100, 500, &L);
	heatmap_free(&h);
	/* odd row counts in half blocks: the last row is reachable */
	make_heatmap(&h, 101, 3, FILL_WEIGHTS, NULL, 0);
	for (int r = 0; r < 101; r++)
		check_layout(&h, 20, 5, -5, false, r, 2, &L);
	heatmap_free(&h);
}

Test(heatmap, zoom_should_add_decimals_in_and_narrow_cells_out)
{
	struct heatmap h;
	struct heatmap_layout L0, L;
	make_heatmap(&h, 8, 8, FILL_SCORES, NULL, 0);
	check_layout(&h, 76, 12, 0, false, 0, 0, &L0);
	cr_assert(L0.numbers);
	check_layout(&h, 76, 12, -1, false, 0, 0, &L);
	cr_assert(L.numbers && L.cell_w < L0.cell_w, "zoom -1: narrower numbers (%d vs %d decimals)", L.fmt.decimals,
		  L0.fmt.decimals);
	int prev = L0.cell_w;
	bool colour = false, half = false;
	for (int z = -1; z >= -8; z--) {
		check_layout(&h, 76, 12, z, false, 0, 0, &L);
		cr_assert(L.cell_w <= prev, "zoom %d widened the cells", z);
		prev = L.cell_w;
		colour |= !L.numbers && !L.half_blocks;
		half |= L.half_blocks;
	}
	cr_assert(colour && half, "zooming out reaches colour cells and half blocks");
	check_layout(&h, 76, 12, -100, false, 0, 0, &L);
	cr_assert(L.half_blocks);
	heatmap_free(&h);
	/* zooming in from the default of a big matrix: colour cells, then numbers
	 * with more and more decimals */
	make_heatmap(&h, 64, 64, FILL_SCORES, NULL, 0);
	prev = 0;
	int decimals = -1;
	for (int z = 0; z <= 8; z++) {
		check_layout(&h, 120, 40, z, false, 10, 10, &L);
		cr_assert(L.cell_w >= prev, "zoom %d narrowed the cells", z);
		prev = L.cell_w;
		if (L.numbers) {
			cr_assert(L.fmt.decimals >= decimals, "zoom %d lost decimals: %d", z, L.fmt.decimals);
			cr_assert_eq(L.fmt.exp, 0, "zoom %d: scores in fixed point", z);
			decimals = L.fmt.decimals;
		}
	}
	cr_assert_eq(decimals, 4, "zoomed all the way in: four decimals");
	check_layout(&h, 120, 40, 100, false, 10, 10, &L);
	cr_assert(L.numbers);
	heatmap_free(&h);
}

Test(heatmap, layout_format_should_be_heatmap_number_format_at_the_cell_width)
{
	static const enum fill fills[] = { FILL_SCORES, FILL_WEIGHTS, FILL_CAUSAL, FILL_TINY,
					   FILL_WHOLE, FILL_LARGE, FILL_ZEROS };
	for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
		struct heatmap h;
		make_heatmap(&h, 6, 5, fills[f], NULL, 0);
		for (int z = -6; z <= 6; z++) {
			struct heatmap_layout L;
			check_layout(&h, 200, 60, z, false, 0, 0, &L);
			if (!L.numbers)
				continue;
			struct heatmap_numfmt fmt;
			cr_assert(heatmap_number_format(&h, L.cell_w - 1, &fmt));
			cr_assert(L.fmt.decimals == fmt.decimals && L.fmt.exp == fmt.exp,
				  "fill %zu zoom %d: cells of %d", f, z, L.cell_w);
		}
		heatmap_free(&h);
	}
}

Test(heatmap, layout_should_keep_tiny_and_masked_values_readable)
{
	struct heatmap h;
	struct heatmap_layout L;
	/* a weight of 6e-06 beside weights of 0.3 reads 0.0000 (its exact
	 * value is the inspector's), never in scientific notation */
	make_heatmap(&h, 4, 4, FILL_TINY, NULL, 0);
	check_layout(&h, 120, 40, 0, false, 0, 0, &L);
	cr_assert(L.numbers && L.fmt.decimals == 4 && L.fmt.exp == 0, "fixed point for tiny weights");
	char text[64];
	heatmap_cell_text(&h, 0, 0, &L.fmt, 0, text, sizeof text);
	cr_assert_str_eq(text, "0.0000");
	heatmap_free(&h);
	/* -inf cells need room for "-inf" */
	make_heatmap(&h, 4, 4, FILL_CAUSAL, NULL, 0);
	for (int z = -3; z <= 3; z++) {
		check_layout(&h, 76, 12, z, false, 0, 0, &L);
		if (L.numbers)
			cr_assert(L.cell_w - 1 >= 4);
	}
	heatmap_free(&h);
	/* a 0/1 mask prints without decimals */
	make_heatmap(&h, 5, 5, FILL_WHOLE, NULL, 0);
	check_layout(&h, 76, 12, 0, false, 0, 0, &L);
	cr_assert(L.numbers);
	cr_assert(L.fmt.decimals == 0 && L.fmt.exp == 0);
	heatmap_free(&h);
}

Test(heatmap, big_mode_should_double_the_cells)
{
	struct heatmap h;
	struct heatmap_layout L, B;
	make_heatmap(&h, 3, 3, FILL_WEIGHTS, NULL, 0);
	check_layout(&h, 200, 60, 0, false, 0, 0, &L);
	check_layout(&h, 200, 60, 0, true, 0, 0, &B);
	cr_assert(B.numbers);
	cr_assert(B.fmt.decimals == L.fmt.decimals && B.fmt.exp == L.fmt.exp);
	cr_assert_eq(B.cell_w, 2 * L.cell_w);
	cr_assert_eq(B.cell_h, 2);
	cr_assert_eq(L.cell_h, 1);
	cr_assert_eq(B.vis_rows, 3);
	heatmap_free(&h);
	/* big colour cells in a pane where only those fit */
	make_heatmap(&h, 16, 16, FILL_SCORES, NULL, 0);
	check_layout(&h, 80, 40, 0, true, 0, 0, &B);
	cr_assert(!B.numbers && !B.half_blocks && B.cell_w == 4 && B.cell_h == 2, "cell %dx%d", B.cell_w, B.cell_h);
	heatmap_free(&h);
}

Test(heatmap, labels_should_be_truncated_to_fit)
{
	char *names[] = { "a_rather_long_token_name", "the", "cat", "sat_on_the_mat_today", "x" };
	struct heatmap h;
	struct heatmap_layout L;
	make_heatmap(&h, 5, 5, FILL_SCORES, names, 5);
	check_layout(&h, 200, 60, 0, false, 0, 0, &L);
	cr_assert_eq(L.label_w, 24, "long row labels whole when the cells leave room");
	cr_assert(L.numbers && L.header_h >= 1);
	/* where the cells need the room, what they leave (12 at least) */
	for (int w = 50; w <= 70; w++) {
		check_layout(&h, w, 20, 0, false, 0, 0, &L);
		cr_assert(L.label_w >= 12 && L.label_w <= 24, "%d wide: labels of %d", w, L.label_w);
		if (w < 60)
			cr_assert(L.label_w < 24, "%d wide: labels of %d", w, L.label_w);
		cr_assert_eq(L.vis_cols, 5, "%d wide: the labels never push a column out", w);
	}
	/* in a narrow pane, labels give way to the cells */
	check_layout(&h, 10, 3, 0, false, 0, 0, &L);
	cr_assert(L.label_w <= 4);
	cr_assert(L.vis_cols >= 1);
	heatmap_free(&h);
	/* short labels keep their width */
	char *short_names[] = { "The", "cat", "sat" };
	make_heatmap(&h, 3, 3, FILL_WEIGHTS, short_names, 3);
	check_layout(&h, 76, 12, 0, false, 0, 0, &L);
	cr_assert_eq(L.label_w, 3);
	heatmap_free(&h);
}

Test(heatmap, layout_of_a_512x512_matrix_should_be_cheap_enough_for_every_keypress)
{
	struct heatmap h;
	make_heatmap(&h, 512, 512, FILL_TINY, NULL, 0);
	clock_t start = clock();
	for (int i = 0; i < 100; i++) {
		struct heatmap_layout L;
		heatmap_layout(&h, colour_ink, 200, 60, i % 5, i % 2, i, 511 - i, &L);
	}
	double secs = (double)(clock() - start) / CLOCKS_PER_SEC;
	cr_assert(secs < 5, "100 layouts took %.2f s", secs);
	heatmap_free(&h);
}

Test(heatmap, layout_should_handle_empty_panes)
{
	struct heatmap h;
	struct heatmap_layout L;
	make_heatmap(&h, 8, 8, FILL_SCORES, NULL, 0);
	int sizes[][2] = { { 0, 0 }, { 0, 10 }, { 10, 0 }, { -5, -5 } };
	for (int i = 0; i < 4; i++) {
		heatmap_layout(&h, colour_ink, sizes[i][0], sizes[i][1], 0, false, 3, 3, &L);
		cr_assert(L.vis_rows == 0 && L.vis_cols == 0 && L.width == 0 && L.height == 0);
		cr_assert(!L.legend);
	}
	heatmap_free(&h);
}

/* A 1 x n heatmap of the given values, on the given scale. */
static void make_row(struct heatmap *h, const double *v, int n, enum scale_kind scale)
{
	int64_t shape[2] = { 1, n };
	struct tensor *t = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	for (int i = 0; i < n; i++)
		tensor_set(t, i, v[i]);
	heatmap_build(h, t, NULL, 0, NULL, 0, NULL, 0, scale);
	tensor_unref(t);
}

/* The text of cell (0, c) in the format that fits width, unpadded. */
static const char *cell_at(const struct heatmap *h, int c, int width)
{
	static char text[64];
	struct heatmap_numfmt f;
	cr_assert(heatmap_number_format(h, width, &f), "no format at width %d", width);
	heatmap_cell_text(h, 0, c, &f, 0, text, sizeof text);
	return text;
}

Test(heatmap, number_format_should_print_fixed_point_with_as_many_decimals_as_fit)
{
	struct heatmap h;
	/* lesson 3 step 4, the row of "trail": 3.5843 in 5 columns */
	double trail[] = { 1.0512, -1.7588, 0.5771, -2.1987, 3.5843 };
	make_row(&h, trail, 5, SCALE_AUTO);
	cr_assert_str_eq(cell_at(&h, 4, 5), "3.58");
	cr_assert_str_eq(cell_at(&h, 3, 5), "-2.20");
	cr_assert_str_eq(cell_at(&h, 4, 4), "3.6", "one decimal in 4 columns (-2.2 takes them)");
	cr_assert_str_eq(cell_at(&h, 4, 7), "3.5843", "four decimals at most");
	struct heatmap_numfmt f;
	cr_assert(!heatmap_number_format(&h, 2, &f), "no number rather than 4 for 3.58");
	heatmap_free(&h);
	/* weights 3.28e-03 and 9.96e-01 */
	double w[] = { 0.00328, 0.996 };
	make_row(&h, w, 2, SCALE_AUTO);
	cr_assert_str_eq(cell_at(&h, 0, 5), "0.003");
	cr_assert_str_eq(cell_at(&h, 1, 5), "0.996");
	cr_assert_str_eq(cell_at(&h, 1, 4), "1.00");
	heatmap_free(&h);
	/* lesson 1 step 9: 8.03e-01 and 1.44e-18 */
	double animals[] = { 0.803, 1.44e-18 };
	make_row(&h, animals, 2, SCALE_AUTO);
	cr_assert_str_eq(cell_at(&h, 0, 5), "0.803");
	cr_assert_str_eq(cell_at(&h, 1, 5), "0.000");
	cr_assert_str_eq(cell_at(&h, 1, 3), "0.0");
	heatmap_free(&h);
	/* 0.19 in a matrix of weights */
	double small[] = { 0.19, 0.81 };
	make_row(&h, small, 2, SCALE_AUTO);
	cr_assert_str_eq(cell_at(&h, 0, 4), "0.19");
	heatmap_free(&h);
}

Test(heatmap, number_format_should_never_use_an_exponent_for_ordinary_values)
{
	static const enum fill fills[] = { FILL_SCORES, FILL_WEIGHTS, FILL_CAUSAL, FILL_TINY, FILL_WHOLE, FILL_ZEROS };
	for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
		struct heatmap h;
		make_heatmap(&h, 6, 5, fills[f], NULL, 0);
		for (int w = 1; w <= 16; w++) {
			struct heatmap_numfmt fmt;
			if (!heatmap_number_format(&h, w, &fmt))
				continue;
			cr_assert_eq(fmt.exp, 0, "fill %zu width %d: scaled", f, w);
			for (int r = 0; r < h.rows; r++) {
				for (int c = 0; c < h.cols; c++) {
					char text[64];
					heatmap_cell_text(&h, r, c, &fmt, w, text, sizeof text);
					cr_assert(!strchr(text, 'e'), "fill %zu width %d: \"%s\"", f, w, text);
					cr_assert_eq((int)strlen(text), w, "fill %zu: \"%s\" not %d wide", f, text, w);
				}
			}
		}
		heatmap_free(&h);
	}
}

Test(heatmap, number_format_should_scale_only_what_cannot_fit_and_the_legend_should_say_so)
{
	struct heatmap h;
	struct heatmap_numfmt f;
	double big[] = { 1234567.0, -2100000.5, 3.25 };
	make_row(&h, big, 3, SCALE_AUTO);
	heatmap_set_name(&h, "Y");
	/* room for the integer parts: fixed point, unscaled */
	cr_assert(heatmap_number_format(&h, 12, &f));
	cr_assert(f.exp == 0 && f.decimals == 3, "exp %d decimals %d", f.exp, f.decimals);
	cr_assert_str_eq(cell_at(&h, 1, 12), "-2100000.500");
	cr_assert(heatmap_number_format(&h, 8, &f));
	cr_assert(f.exp == 0 && f.decimals == 0);
	/* no room: in thousands, and the legend names the unit */
	cr_assert(heatmap_number_format(&h, 5, &f));
	cr_assert_eq(f.exp, 3);
	cr_assert_str_eq(cell_at(&h, 0, 5), "1235");
	cr_assert_str_eq(cell_at(&h, 1, 5), "-2100");
	cr_assert_str_eq(cell_at(&h, 2, 5), "0");
	char out[256];
	heatmap_legend(&h, &f, COLOR_256, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert(strncmp(out, "Y \u00d71e3: -2100 \u2026 0 \u2026 2100", strlen("Y \u00d71e3: -2100 \u2026 0 \u2026 2100")) == 0,
		  "got \"%s\"", out);
	heatmap_legend(&h, &f, COLOR_256, LEGEND_WORDS, out, sizeof out, 16);
	cr_assert(strstr(out, "\u00d71e3"), "the unit stays at 16 columns: \"%s\"", out);
	heatmap_free(&h);
	/* a matrix too small for 0.0000: in millionths */
	double tiny[] = { 2.5e-6, -1.25e-6 };
	make_row(&h, tiny, 2, SCALE_AUTO);
	cr_assert(heatmap_number_format(&h, 5, &f));
	cr_assert_eq(f.exp, -6);
	cr_assert_str_eq(cell_at(&h, 0, 5), "2.50");
	cr_assert_str_eq(cell_at(&h, 1, 5), "-1.25");
	heatmap_legend(&h, &f, COLOR_NONE, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert(strncmp(out, "values \u00d71e-6: -2.5 \u2026 0 \u2026 2.5", strlen("values \u00d71e-6: -2.5 \u2026 0 \u2026 2.5")) == 0,
		  "got \"%s\"", out);
	heatmap_free(&h);
}

/* Lesson 3 step 4's scores at 80 columns: 8 columns of "k:through"-long
 * labels in a 78-column pane. */
Test(heatmap, layout_at_80_columns_should_give_scores_one_fixed_width_and_labels_two_lines)
{
	char *labels[] = { "k:The", "k:hiking", "k:trail", "k:led", "k:us", "k:through", "k:bear", "k:country" };
	struct heatmap h;
	make_heatmap(&h, 8, 8, FILL_SCORES, labels, 8);
	struct heatmap_layout L;
	check_layout(&h, 78, 12, 0, false, 0, 0, &L);
	cr_assert(L.numbers && L.vis_cols == 8 && L.fmt.exp == 0);
	cr_assert_eq(L.header_h, 2, "9-column labels over 7-column numbers: two lines");
	for (int r = 0; r < 8; r++) {
		for (int c = 0; c < 8; c++) {
			char text[64];
			heatmap_cell_text(&h, r, c, &L.fmt, L.cell_w - 1, text, sizeof text);
			cr_assert_eq((int)strlen(text), L.cell_w - 1, "every cell as wide: \"%s\"", text);
			cr_assert(!strchr(text, 'e'), "\"%s\"", text);
		}
	}
	/* without the line for the second: one, and the labels are cut */
	check_layout(&h, 78, 10, 0, false, 0, 0, &L);
	cr_assert_eq(L.header_h, 1);
	heatmap_free(&h);
}

Test(heatmap, auto_scale_should_be_diverging_for_signed_and_sequential_for_non_negative_data)
{
	struct heatmap h;
	double x[] = { -2.1, 0.5, 3.6 };
	make_row(&h, x, 3, SCALE_AUTO);
	cr_assert_eq(h.scale, SCALE_DIVERGING);
	cr_assert(h.lo == -3.6 && h.hi == 3.6);
	heatmap_free(&h);
	/* a dropout output of weights: 0 or scaled by 1/(1-p), up to 2 */
	double drop[] = { 0, 1.2, 2.0, 0 };
	make_row(&h, drop, 4, SCALE_AUTO);
	cr_assert_eq(h.scale, SCALE_WEIGHTS);
	cr_assert(h.lo == 0 && h.hi == 2.0);
	heatmap_free(&h);
	double w[] = { 0.2, 0.8, -INFINITY };
	make_row(&h, w, 3, SCALE_AUTO);
	cr_assert_eq(h.scale, SCALE_WEIGHTS, "probabilities (a masked cell aside)");
	cr_assert(h.lo == 0 && h.hi == 1);
	heatmap_free(&h);
}

Test(heatmap, name_should_default_to_values_and_follow_the_show)
{
	struct heatmap h;
	double x[] = { 1, 2 };
	make_row(&h, x, 2, SCALE_AUTO);
	cr_assert_str_eq(h.name, "values");
	heatmap_set_name(&h, "X");
	cr_assert_str_eq(h.name, "X");
	heatmap_set_name(&h, "");
	cr_assert_str_eq(h.name, "values");
	/* longer than name[]: cut at a character boundary */
	char longname[200];
	memset(longname, 0, sizeof longname);
	for (int i = 0; i < 60; i++)
		strcat(longname, "\u00b7");
	heatmap_set_name(&h, longname);
	cr_assert(strlen(h.name) < sizeof h.name && strlen(h.name) % 2 == 0, "\"%s\"", h.name);
	struct show s = { 0 };
	s.expr = "S";
	s.title = "S = Q K\u1d40 (rows: queries, columns: keys)";
	heatmap_set_show_name(&h, &s);
	cr_assert_str_eq(h.name, "S", "a short expression names the tensor");
	s.expr = "torch.softmax(scores / math.sqrt(d_k), dim=-1)";
	s.title = "the weights";
	heatmap_set_show_name(&h, &s);
	cr_assert_str_eq(h.name, "the weights", "a long one gives way to the title");
	s.title = NULL;
	heatmap_set_show_name(&h, &s);
	cr_assert_eq(utf8_chars(h.name), 32, "\"%s\"", h.name);
	cr_assert(strstr(h.name, "\u2026"), "cut with a mark: \"%s\"", h.name);
	heatmap_free(&h);
}

/* EXPR:NAME draws a local of a call: the legend names the local, never a
 * title cut to fit ("self-attention weights (row: qu…: 0 … 1") */
Test(heatmap, a_local_of_a_call_should_name_the_legend_by_its_name)
{
	static const struct { const char *expr, *local; } cases[] = {
		{ "attention:weights", "weights" },
		{ "sa_v1.forward:attention_weights", "attention_weights" },
		{ "S[:, 1]", NULL },
		{ "{'a': W}['a']", NULL },
		{ "(lambda x: x)(W)", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[600];
		snprintf(text, sizeof text,
			 "{\"id\": \"l\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": ["
			 "{\"title\": \"t\", \"text\": \"x\", \"show\": {\"heatmap\": \"%s\", \"title\": "
			 "\"self-attention weights (row: query, column: key)\"}}]}", cases[i].expr);
		struct qkv_error err;
		struct lesson *l = lesson_parse("l.json", text, strlen(text), NULL, NULL, &err);
		cr_assert(l, "%s: %s", cases[i].expr, err.msg);
		const struct show *sh = &l->steps[0].shows[0];
		if (cases[i].local)
			cr_expect(sh->local && strcmp(sh->local, cases[i].local) == 0, "%s: local %s", cases[i].expr,
				  sh->local ? sh->local : "none");
		else
			cr_expect_null(sh->local, "%s: local %s", cases[i].expr, sh->local);
		struct heatmap h = { 0 };
		heatmap_set_show_name(&h, sh);
		if (cases[i].local)
			cr_expect_str_eq(h.name, cases[i].local);
		lesson_free(l);
	}
}

Test(heatmap, legend_should_name_the_tensor_its_scale_and_its_ends)
{
	struct heatmap h;
	char out[256];
	double x[] = { -2.1, 0.5, 3.6 };
	make_row(&h, x, 3, SCALE_AUTO);
	heatmap_set_name(&h, "X");
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert_str_eq(out, "X: -3.6 \u2026 0 \u2026 3.6 (blue negative, orange positive)");
	heatmap_free(&h);
	double w[] = { 0.2, 0.8 };
	make_row(&h, w, 2, SCALE_AUTO);
	heatmap_set_name(&h, "W");
	heatmap_legend(&h, NULL, COLOR_TRUE, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert_str_eq(out, "W: 0 \u2026 1 (pale to deep blue)");
	heatmap_free(&h);
	/* the scores of lesson 2 at 4.37 */
	make_heatmap(&h, 4, 4, FILL_SCORES, NULL, 0);
	h.lo = -4.37;
	h.hi = 4.37;
	heatmap_legend(&h, NULL, COLOR_16, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert(strncmp(out, "values: -4.4 \u2026 0 \u2026 4.4", strlen("values: -4.4 \u2026 0 \u2026 4.4")) == 0,
		  "got \"%s\"", out);
	cr_assert(!strstr(out, "masked"));
	heatmap_free(&h);
	/* small ends in fixed point */
	double s[] = { 0.0034, -0.001 };
	make_row(&h, s, 2, SCALE_AUTO);
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert(strncmp(out, "values: -0.0034 \u2026 0 \u2026 0.0034", strlen("values: -0.0034 \u2026 0 \u2026 0.0034")) == 0,
		  "got \"%s\"", out);
	heatmap_free(&h);
}

Test(heatmap, legend_without_colour_should_name_no_colours)
{
	struct heatmap h;
	char out[256];
	static const char *const colour_words[] = { "blue", "orange", "pale", "cyan", "yellow", "red", NULL };
	enum fill fills[] = { FILL_SCORES, FILL_WEIGHTS, FILL_CAUSAL };
	for (int f = 0; f < 3; f++) {
		make_heatmap(&h, 4, 4, fills[f], NULL, 0);
		for (int shades = 0; shades < 2; shades++) {
			heatmap_legend(&h, NULL, COLOR_NONE, shades ? LEGEND_SHADES : LEGEND_WORDS, out, sizeof out, 200);
			for (int i = 0; colour_words[i]; i++)
				cr_assert(!strstr(out, colour_words[i]), "\"%s\" in \"%s\"", colour_words[i], out);
			/* the shades, when drawn, say what they mean */
			cr_assert(!shades == !strstr(out, "\u2588"), "shades %d: \"%s\"", shades, out);
		}
		heatmap_free(&h);
	}
	/* with 8 colours: the colours it shows, and the shades beside them */
	make_heatmap(&h, 4, 4, FILL_SCORES, NULL, 0);
	heatmap_legend(&h, NULL, COLOR_8, LEGEND_SHADES, out, sizeof out, 200);
	cr_assert(strstr(out, "cyan negative") && strstr(out, "\u2591\u2592\u2593\u2588 = size"), "\"%s\"", out);
	/* narrower, the shades outlast the colour words */
	heatmap_legend(&h, NULL, COLOR_8, LEGEND_SHADES, out, sizeof out, 48);
	cr_assert(!strstr(out, "cyan") && strstr(out, "= size"), "\"%s\"", out);
	heatmap_free(&h);
}

Test(heatmap, legend_should_note_masked_cells)
{
	struct heatmap h;
	char out[256];
	make_heatmap(&h, 5, 5, FILL_CAUSAL, NULL, 0);
	heatmap_set_name(&h, "masked_S");
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_SHADES, out, sizeof out, 200);
	cr_assert(strstr(out, "\u00b7 = masked (-inf)"), "got \"%s\"", out);
	cr_assert(strncmp(out, "masked_S:", 9) == 0);
	/* narrower: the colour words go first, the mask note stays */
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_SHADES, out, sizeof out, 50);
	cr_assert(strstr(out, "masked") && !strstr(out, "orange"), "got \"%s\"", out);
	/* numbers without marks: the cells read -inf, the legend says what it is */
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, out, sizeof out, 200);
	cr_assert(strstr(out, "   -inf = masked") && !strstr(out, "\u00b7"), "got \"%s\"", out);
	heatmap_free(&h);
}

Test(heatmap, legend_should_fit_any_width_and_buffer)
{
	struct heatmap h;
	make_heatmap(&h, 5, 5, FILL_CAUSAL, NULL, 0);
	heatmap_set_name(&h, "scores");
	for (int w = -1; w <= 90; w++) {
		char out[256];
		heatmap_legend(&h, NULL, COLOR_8, LEGEND_SHADES, out, sizeof out, w);
		cr_assert(utf8_chars(out) <= (w > 0 ? w : 0), "width %d: \"%s\"", w, out);
		if (w >= 30)
			cr_assert(strncmp(out, "scores", 6) == 0, "width %d: \"%s\"", w, out);
	}
	/* narrow: the two ends without the name rather than a cut name */
	char narrow[64];
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, narrow, sizeof narrow, 12);
	cr_assert(strstr(narrow, "\u2026") && !strstr(narrow, "scores"), "got \"%s\"", narrow);
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, (char[1]){ 'x' }, 1, 80);
	for (size_t size = 1; size < 40; size++) {
		char out[64];
		memset(out, 'x', sizeof out);
		heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, out, size, 80);
		cr_assert(strlen(out) < size, "size %zu", size);
		cr_assert_eq(out[size], 'x', "size %zu: wrote past the buffer", size);
		/* never a cut UTF-8 sequence */
		size_t n = strlen(out);
		if (n) {
			size_t i = n - 1;
			while (i > 0 && (((unsigned char)out[i]) & 0xC0) == 0x80)
				i--;
			unsigned char lead = (unsigned char)out[i];
			size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
			cr_assert_eq(n - i, len, "size %zu: \"%s\" ends mid-character", size, out);
		}
	}
	heatmap_free(&h);
}

/* A fuzzer's find: torch.rand(0, 2, 6) at the prompt divided by zero. */
Test(heatmap, a_tensor_with_an_empty_leading_dimension_should_give_an_empty_matrix)
{
	int64_t shapes[][4] = { { 0, 2, 6 }, { 2, 0, 3, 3 }, { 1, 0, 2, 2 } };
	int ndims[] = { 3, 4, 4 };
	for (int i = 0; i < 3; i++) {
		struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, ndims[i], shapes[i]);
		struct heatmap h;
		heatmap_build(&h, t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
		cr_assert_eq(h.rows, 0, "shape %d: %d rows", i, h.rows);
		cr_assert_eq(h.cols, shapes[i][ndims[i] - 1]);
		struct heatmap_layout L;
		heatmap_layout(&h, colour_ink, 80, 24, 0, false, 0, 0, &L);
		cr_assert(L.vis_rows == 0 && L.width <= 80 && L.height <= 24);
		heatmap_free(&h);
		tensor_unref(t);
	}
}

/* heatmap_build finds once what the layout and the legend need of every
 * cell, so that a frame of a large matrix reads only the cells it shows:
 * the few bounding values pick the same number format as all the cells do,
 * and the mask and NaN flags say what a scan of the cells says. */
Test(heatmap, what_build_finds_of_all_cells_should_agree_with_the_cells)
{
	static const enum fill fills[] = { FILL_SCORES, FILL_WEIGHTS, FILL_CAUSAL, FILL_TINY,
					   FILL_WHOLE, FILL_LARGE, FILL_ZEROS };
	for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) {
		struct heatmap h;
		make_heatmap(&h, 9, 13, fills[f], NULL, 0);
		bool masked = false, nan = false;
		for (int r = 0; r < h.rows; r++)
			for (int c = 0; c < h.cols; c++) {
				masked |= heatmap_cell_kind(&h, r, c) == CELL_NEG_INF;
				nan |= heatmap_cell_kind(&h, r, c) == CELL_NAN;
			}
		cr_assert_eq(h.any_masked, masked, "fill %zu", f);
		cr_assert_eq(h.any_nan, nan, "fill %zu", f);
		cr_assert(h.nbound >= 1 && h.nbound <= 7, "fill %zu: %d", f, h.nbound);
		cr_assert_eq(h.col_label_width, 2, "fill %zu", f);	/* "12" */
		struct heatmap bound = { .rows = 1, .cols = h.nbound, .values = h.bound };
		for (int w = 1; w <= 12; w++) {
			struct heatmap_numfmt all, few;
			bool a = heatmap_number_format(&h, w, &all), b = heatmap_number_format(&bound, w, &few);
			cr_assert(a == b && (!a || (all.decimals == few.decimals && all.exp == few.exp)),
				  "fill %zu, width %d: %d %d.%d against %d %d.%d", f, w, a, all.decimals, all.exp, b,
				  few.decimals, few.exp);
		}
		heatmap_free(&h);
	}
	/* a NaN and a mask are found wherever they are */
	int64_t shape[2] = { 40, 50 };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	tensor_set(t, 39 * 50 + 49, NAN);
	tensor_set(t, 20 * 50 + 7, -INFINITY);
	struct heatmap h;
	heatmap_build(&h, t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	cr_assert(h.any_nan && h.any_masked && h.special_w == 4);
	char legend[512];
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, legend, sizeof legend, 200);
	cr_assert(strstr(legend, "masked") && strstr(legend, "nan"), "%s", legend);
	heatmap_free(&h);
	tensor_unref(t);
}
