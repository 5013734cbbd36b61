/* test_heatmap_marks.c: what view/heatmap.c gives a painter that has few
 * colours or none: every row of a small matrix a line of its own (no half
 * blocks, which could only be one shade for two rows), a sign before the
 * mark of a negative value and a legend that says so, a space on both sides
 * of a mark beside a number, and a mark, a word and a legend entry of its
 * own for each kind of cell off the scale (-inf, +inf, nan), in the layout,
 * the legend and `run --plain` (text/render.c). No terminal involved. */
#include <criterion/criterion.h>

#include "core/strbuf.h"
#include "core/tensor.h"
#include "core/utf8.h"
#include "text/render.h"
#include "view/heatmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* no colour, 8 colours, 256 colours in ASCII: none draws half blocks */
static const struct heatmap_ink plain_inks[] = { { COLOR_NONE, true }, { COLOR_8, true }, { COLOR_256, false },
						 { COLOR_NONE, false } };
static const struct heatmap_ink colour_ink = { COLOR_256, true };

/* A rows x cols heatmap of vals (row-major), on its automatic scale. */
static void make(struct heatmap *h, int rows, int cols, const double *vals)
{
	int64_t shape[2] = { rows, cols };
	struct tensor *t = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	for (int i = 0; i < rows * cols; i++)
		tensor_set(t, i, vals[i]);
	heatmap_build(h, t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	tensor_unref(t);
}

/* A signed rows x cols score matrix, some values negative. */
static void make_scores(struct heatmap *h, int rows, int cols)
{
	double v[64];
	for (int i = 0; i < rows * cols; i++)
		v[i] = ((i * 7) % 11 - 5) * 0.731;
	make(h, rows, cols, v);
}

Test(heatmap_marks, without_half_blocks_every_row_of_a_small_matrix_should_have_a_line_of_its_own)
{
	/* 3x3, 4x4 and 5x3 score matrices in panes too small for their numbers
	 * (the panels of a loops view) */
	static const int sizes[][2] = { { 3, 3 }, { 4, 4 }, { 5, 3 } };
	static const int panes[][2] = { { 10, 2 }, { 12, 3 }, { 16, 2 }, { 8, 4 }, { 20, 3 }, { 40, 2 } };
	bool colour_halves = false;
	for (size_t s = 0; s < 3; s++) {
		struct heatmap h;
		make_scores(&h, sizes[s][0], sizes[s][1]);
		for (size_t p = 0; p < sizeof panes / sizeof panes[0]; p++) {
			for (int zoom = -2; zoom <= 0; zoom++) {
				struct heatmap_layout L;
				for (size_t k = 0; k < sizeof plain_inks / sizeof plain_inks[0]; k++) {
					heatmap_layout(&h, plain_inks[k], panes[p][0], panes[p][1], zoom, false,
						       h.rows - 1, 0, &L);
					cr_assert(!L.half_blocks, "%dx%d in %dx%d, colours %d: two rows a line", h.rows,
						  h.cols, panes[p][0], panes[p][1], (int)plain_inks[k].mode);
					/* a line a row: as many lines as rows shown */
					cr_assert_eq(L.height - L.header_h - (L.legend ? 1 : 0), L.vis_rows * L.cell_h);
					cr_assert(L.vis_rows > 0, "%dx%d in %dx%d: no row", h.rows, h.cols, panes[p][0],
						  panes[p][1]);
				}
				heatmap_layout(&h, colour_ink, panes[p][0], panes[p][1], zoom, false, 0, 0, &L);
				colour_halves |= L.half_blocks;
			}
		}
		heatmap_free(&h);
	}
	cr_assert(colour_halves, "the same panes give half blocks to a terminal that draws them in colour");
}

Test(heatmap_marks, without_colour_a_negative_value_should_carry_a_sign_the_legend_names)
{
	struct heatmap h;
	make_scores(&h, 4, 4);
	cr_assert(h.any_negative);
	struct heatmap_layout L;
	heatmap_layout(&h, plain_inks[0], 12, 6, 0, false, 0, 0, &L);
	cr_assert(!L.numbers && L.signs, "colour cells with signs");
	cr_assert_eq(L.cell_w, 3, "a sign, a mark, a gap");
	int neg = 0, pos = 0;
	for (int r = 0; r < h.rows; r++)
		for (int c = 0; c < h.cols; c++) {
			double v = heatmap_value(&h, r, c);
			cr_assert_str_eq(heatmap_cell_sign(&h, r, c), v < 0 ? "-" : " ", "%g", v);
			neg += v < 0;
			pos += v > 0;
		}
	cr_assert(neg > 0 && pos > 0);
	char legend[256];
	heatmap_legend(&h, NULL, COLOR_NONE, LEGEND_SHADES, legend, sizeof legend, 200);
	cr_assert(strstr(legend, "-\u2591 = negative"), "the legend says how a negative value is drawn: %s", legend);
	/* with colour the hue tells the sign, with numbers their minus */
	heatmap_layout(&h, (struct heatmap_ink){ COLOR_8, true }, 12, 6, 0, false, 0, 0, &L);
	cr_assert(!L.signs && L.cell_w == 2);
	heatmap_legend(&h, NULL, COLOR_8, LEGEND_SHADES, legend, sizeof legend, 200);
	cr_assert(!strstr(legend, "negative ") && !strstr(legend, "= negative"), "%s", legend);
	heatmap_layout(&h, plain_inks[0], 80, 24, 0, false, 0, 0, &L);
	cr_assert(L.numbers && !L.signs);
	heatmap_legend(&h, &L.fmt, COLOR_NONE, LEGEND_WORDS, legend, sizeof legend, 200);
	cr_assert(!strstr(legend, "negative"), "%s", legend);
	heatmap_free(&h);
	/* -inf, -0.0 and nan have no sign; weights need none */
	double v[] = { -INFINITY, -0.0, NAN, 0.5 };
	make(&h, 2, 2, v);
	for (int i = 0; i < 4; i++)
		cr_assert_str_eq(heatmap_cell_sign(&h, i / 2, i % 2), " ", "cell %d", i);
	cr_assert(!heatmap_signs(&h, COLOR_NONE, false));
	heatmap_free(&h);
}

Test(heatmap_marks, a_mark_beside_a_number_should_keep_a_space_on_both_sides_at_every_size)
{
	static const int panes[][2] = { { 20, 5 }, { 40, 8 }, { 76, 12 }, { 80, 24 }, { 120, 40 }, { 200, 60 } };
	static const int sizes[][2] = { { 3, 3 }, { 5, 5 }, { 8, 8 }, { 1, 7 } };
	struct heatmap_ink ink = { COLOR_8, true };
	for (size_t s = 0; s < 4; s++) {
		struct heatmap h;
		make_scores(&h, sizes[s][0], sizes[s][1]);
		for (size_t p = 0; p < sizeof panes / sizeof panes[0]; p++)
			for (int zoom = -2; zoom <= 2; zoom++)
				for (int big = 0; big < 2; big++) {
					struct heatmap_layout L;
					heatmap_layout(&h, ink, panes[p][0], panes[p][1], zoom, big, 0, 0, &L);
					if (!L.numbers)
						continue;
					cr_assert(L.marks, "8 colours: a mark beside each number");
					for (int r = L.row0; r < L.row0 + L.vis_rows; r++)
						for (int c = L.col0; c < L.col0 + L.vis_cols; c++) {
							char text[64];
							heatmap_cell_text(&h, r, c, &L.fmt, 0, text, sizeof text);
							/* the number, a space, the mark, a space before the next */
							cr_assert((int)strlen(text) + 3 <= L.cell_w,
								  "\"%s\" in a cell of %d in %dx%d zoom %d%s", text,
								  L.cell_w, panes[p][0], panes[p][1], zoom,
								  big ? " big" : "");
						}
				}
		heatmap_free(&h);
	}
}

Test(heatmap_marks, every_kind_of_cell_should_have_a_mark_and_word_of_its_own)
{
	double v[] = { -INFINITY, INFINITY, NAN, 1.0, -1.0, 0.0 };
	struct heatmap h;
	make(&h, 2, 3, v);
	cr_assert_eq(heatmap_cell_kind(&h, 0, 1), CELL_POS_INF);
	cr_assert(h.any_masked && h.any_posinf && h.any_nan);
	cr_assert_str_eq(heatmap_cell_mark(&h, 0, 0), "\u00b7");
	cr_assert_str_eq(heatmap_cell_mark(&h, 0, 1), "\u25b2");
	cr_assert_str_eq(heatmap_cell_mark(&h, 0, 2), "?");
	/* none of them a shade, a sign or another's */
	const char *marks[] = { heatmap_cell_mark(&h, 0, 0), heatmap_cell_mark(&h, 0, 1), heatmap_cell_mark(&h, 0, 2),
				" ", "\u2591", "\u2592", "\u2593", "\u2588", "-" };
	for (size_t i = 0; i < 9; i++) {
		cr_assert_eq(utf8_width(marks[i]), 1, "\"%s\" is one column", marks[i]);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(marks[i], marks[j]);
	}
	char text[16];
	static const char *const words[] = { "-inf", "inf", "nan" };
	for (int c = 0; c < 3; c++) {
		heatmap_cell_text(&h, 0, c, &(struct heatmap_numfmt){ 2, 0 }, 0, text, sizeof text);
		cr_assert_str_eq(text, words[c]);
	}
	heatmap_free(&h);
}

Test(heatmap_marks, the_legend_should_key_what_the_layout_draws)
{
	struct heatmap h;
	make_scores(&h, 8, 8);
	struct heatmap_layout L;
	heatmap_layout(&h, colour_ink, 80, 24, 0, false, 0, 0, &L);
	cr_assert(L.numbers && heatmap_legend_marks(&L) == LEGEND_WORDS, "numbers in colour: the words");
	heatmap_layout(&h, (struct heatmap_ink){ COLOR_8, true }, 80, 24, 0, false, 0, 0, &L);
	cr_assert(L.numbers && heatmap_legend_marks(&L) == LEGEND_SHADES, "numbers and marks on 8 colours");
	heatmap_layout(&h, plain_inks[0], 12, 12, 0, false, 0, 0, &L);
	cr_assert(!L.numbers && heatmap_legend_marks(&L) == LEGEND_SHADES, "marks alone");
	heatmap_layout(&h, colour_ink, 8, 4, 0, false, 0, 0, &L);
	cr_assert(L.half_blocks && heatmap_legend_marks(&L) == LEGEND_BLOCKS, "half blocks: their colours");
	heatmap_free(&h);
}

/* heatmap_legend of h with marks and mode, 200 columns wide. */
static const char *legend_of(const struct heatmap *h, enum color_mode mode, enum legend_marks marks)
{
	static char out[512];
	heatmap_legend(h, NULL, mode, marks, out, sizeof out, 200);
	return out;
}

Test(heatmap_marks, the_legend_should_key_each_kind_of_cell_off_the_scale_as_it_is_drawn)
{
	/* +inf alone (no nan): never keyed as nan */
	double v[] = { 1.5, INFINITY, -0.5, 0.25 };
	struct heatmap h;
	make(&h, 2, 2, v);
	const char *l = legend_of(&h, COLOR_NONE, LEGEND_SHADES);
	cr_assert(strstr(l, "   \u25b2 = +inf") && !strstr(l, "nan") && !strstr(l, "?"), "%s", l);
	l = legend_of(&h, COLOR_256, LEGEND_BLOCKS);
	cr_assert(strstr(l, "   white = +inf") && !strstr(l, "nan"), "%s", l);
	l = legend_of(&h, COLOR_256, LEGEND_WORDS);	/* the cells read "inf" */
	cr_assert(!strstr(l, "inf") && !strstr(l, "nan"), "%s", l);
	heatmap_free(&h);
	/* all three, in each kind of legend */
	double w[] = { -INFINITY, INFINITY, NAN, -1.0 };
	make(&h, 2, 2, w);
	l = legend_of(&h, COLOR_NONE, LEGEND_SHADES);
	cr_assert(strstr(l, "   \u00b7 = masked (-inf)   \u25b2 = +inf   ? = nan"), "%s", l);
	l = legend_of(&h, COLOR_8, LEGEND_SHADES);
	cr_assert(strstr(l, "   \u00b7 = masked (-inf)   \u25b2 = +inf   ? magenta = nan"), "%s", l);
	l = legend_of(&h, COLOR_256, LEGEND_BLOCKS);
	cr_assert(strstr(l, "   dark grey = masked (-inf)   white = +inf   magenta = nan"), "%s", l);
	l = legend_of(&h, COLOR_NONE, LEGEND_WORDS);
	cr_assert(strstr(l, "   -inf = masked") && !strstr(l, "\u25b2") && !strstr(l, "?"), "%s", l);
	l = legend_of(&h, COLOR_256, LEGEND_SCALE);
	cr_assert(!strstr(l, "masked") && !strstr(l, "inf") && !strstr(l, "nan"), "%s", l);
	/* narrow: the short keys */
	char narrow[128];
	heatmap_legend(&h, NULL, COLOR_NONE, LEGEND_SHADES, narrow, sizeof narrow, 50);
	cr_assert(strstr(narrow, "\u00b7 masked  \u25b2 +inf  ? nan"), "%s", narrow);
	heatmap_free(&h);
	/* the colours the legend names are the painters' */
	cr_assert(palette_masked_rgb().r < 80 && palette_posinf_rgb().r == 255);
}

/* Whether a digit of s stands right before or after a mark of h's cells
 * (a shade or a mark off the scale). */
static bool mark_touches_digit(const char *s)
{
	static const char *const marks[] = { "\u2591", "\u2592", "\u2593", "\u2588", "\u00b7", "\u25b2", "?", NULL };
	for (int i = 0; marks[i]; i++) {
		size_t n = strlen(marks[i]);
		for (const char *p = strstr(s, marks[i]); p; p = strstr(p + n, marks[i])) {
			if ((p > s && p[-1] >= '0' && p[-1] <= '9') || (p[n] >= '0' && p[n] <= '9'))
				return true;
		}
	}
	return false;
}

Test(heatmap_marks, run_plain_should_print_infinities_and_nan_with_their_own_marks_apart_from_the_digits)
{
	double v[] = { 1.5, INFINITY, -0.5, -INFINITY, 0.25, NAN, -2.0, 0.0, 1.0 };
	struct heatmap h;
	make(&h, 3, 3, v);
	heatmap_set_name(&h, "S");
	struct strbuf out;
	strbuf_init(&out);
	struct render_opts plain = { 80, false };
	render_heatmap(&out, &h, 2, &plain);
	cr_assert(strstr(out.s, " inf \u25b2"), "+inf: its word and its mark:\n%s", out.s);
	cr_assert(strstr(out.s, "-inf \u00b7"), "-inf:\n%s", out.s);
	cr_assert(strstr(out.s, "nan ?"), "nan:\n%s", out.s);
	cr_assert(strstr(out.s, "1.5000 \u2593"), "a value and its shade:\n%s", out.s);
	cr_assert(strstr(out.s, "\u00b7 = masked (-inf)   \u25b2 = +inf   ? = nan"), "the legend:\n%s", out.s);
	cr_assert(!mark_touches_digit(out.s), "a mark touches a digit:\n%s", out.s);
	/* no +inf read as nan */
	strbuf_reset(&out);
	heatmap_free(&h);
	double w[] = { 1.5, INFINITY, -0.5, 0.25 };
	make(&h, 2, 2, w);
	render_heatmap(&out, &h, 2, &plain);
	cr_assert(!strstr(out.s, "?") && !strstr(out.s, "nan"), "+inf is no nan:\n%s", out.s);
	strbuf_free(&out);
	heatmap_free(&h);
}
