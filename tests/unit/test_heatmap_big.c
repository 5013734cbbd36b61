/* test_heatmap_big.c: heatmap_layout's big cells (the b key, --big) where
 * the pane is small: they never hide the numbers that cells of the normal
 * size show (at 80x24 lesson 4's 10x10 scores turned into half blocks),
 * but show them and scroll to the cursor; where the normal cells have no
 * numbers either, big ones still show the whole matrix as they can. */
#include <criterion/criterion.h>

#include "core/tensor.h"
#include "view/heatmap.h"

#include <math.h>

/* A rows x cols matrix of scores between -8.2 and 8.2, as lesson 4's
 * queries · keysᵀ, reproducible. */
static void make_scores(struct heatmap *h, int64_t rows, int64_t cols)
{
	int64_t shape[2] = { rows, cols };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	for (int64_t i = 0; i < rows * cols; i++)
		tensor_set(t, i, 8.2 * sin((double)(i * 7 + 3)));
	heatmap_build(h, t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	tensor_unref(t);
}

/* A terminal of 256 colours in UTF-8, which draws half blocks. */
static const struct heatmap_ink ink = { COLOR_256, true };

Test(heatmap_big, big_cells_should_keep_the_numbers_the_normal_cells_show)
{
	/* the view's room for a heatmap at 80x24, 100x30 and a little less */
	static const int panes[][2] = { { 78, 12 }, { 78, 14 }, { 98, 16 }, { 60, 12 } };
	static const int curs[][2] = { { 0, 0 }, { 9, 9 }, { 5, 2 } };
	struct heatmap h;
	make_scores(&h, 10, 10);
	for (size_t p = 0; p < sizeof panes / sizeof panes[0]; p++) {
		for (size_t k = 0; k < sizeof curs / sizeof curs[0]; k++) {
			int w = panes[p][0], ht = panes[p][1], r = curs[k][0], c = curs[k][1];
			struct heatmap_layout N, B;
			heatmap_layout(&h, ink, w, ht, 0, false, r, c, &N);
			heatmap_layout(&h, ink, w, ht, 0, true, r, c, &B);
			cr_assert(N.numbers, "%dx%d: the normal cells should have numbers here", w, ht);
			cr_assert(B.numbers && !B.half_blocks, "%dx%d: b hid the numbers", w, ht);
			cr_assert_eq(B.cell_h, 2, "%dx%d", w, ht);
			cr_assert_eq(B.cell_w, 2 * N.cell_w, "%dx%d: the same numbers, twice as wide", w, ht);
			cr_assert(B.fmt.decimals == N.fmt.decimals && B.fmt.exp == N.fmt.exp, "%dx%d", w, ht);
			/* scrolled, the cursor in view, inside the pane */
			cr_assert(B.vis_rows < 10 && B.vis_rows > 0 && B.vis_cols > 0, "%dx%d", w, ht);
			cr_assert(r >= B.row0 && r < B.row0 + B.vis_rows, "%dx%d: cursor row %d off screen", w, ht, r);
			cr_assert(c >= B.col0 && c < B.col0 + B.vis_cols, "%dx%d: cursor column %d off screen", w, ht, c);
			cr_assert(B.width <= w && B.height <= ht, "%dx%d: uses %dx%d", w, ht, B.width, B.height);
			/* zooming out from there still reaches half blocks */
			struct heatmap_layout Z;
			heatmap_layout(&h, ink, w, ht, -20, true, r, c, &Z);
			cr_assert(Z.half_blocks, "%dx%d: big, zoomed all the way out", w, ht);
		}
	}
	heatmap_free(&h);
}

Test(heatmap_big, big_cells_should_show_the_whole_matrix_where_numbers_never_fit)
{
	/* 64x64: no numbers in normal cells at 80x24 either; big ones stay a
	 * compact picture of the whole */
	struct heatmap h;
	make_scores(&h, 64, 64);
	struct heatmap_layout N, B;
	heatmap_layout(&h, ink, 78, 40, 0, false, 0, 0, &N);
	heatmap_layout(&h, ink, 78, 40, 0, true, 0, 0, &B);
	cr_assert(!N.numbers && !B.numbers);
	heatmap_free(&h);
	/* and a matrix whose big numbers fit whole keeps them unscrolled */
	make_scores(&h, 3, 3);
	heatmap_layout(&h, ink, 78, 12, 0, true, 2, 2, &B);
	cr_assert(B.numbers && B.cell_h == 2 && B.vis_rows == 3 && B.vis_cols == 3 && B.row0 == 0);
	heatmap_free(&h);
}
