/* test_export.c: the exported figures (src/export/), in process. A lesson
 * is run by the player, its page's views drawn as PNG, SVG and PDF; the PNG
 * is decoded with cairo and each cell's pixels are checked against the
 * palette colour of the value the heatmap model holds (the numbers of the
 * figure are the model's). Also: formats by extension, masked and NaN
 * cells, the cut of big matrices, bad text in labels, and the file rules
 * (no replacing without force, no half file, free names). */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "core/strbuf.h"
#include "core/tensor.h"
#include "export/export.h"
#include "export/figure.h"
#include "helpers.h"
#include "lesson/lesson.h"
#include "lesson/player.h"
#include "view/heatmap.h"
#include "view/page.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char lesson_text[] =
	"{ \"format\": 1, \"id\": \"fig\", \"title\": \"Figures\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"steps\": [ { \"title\": \"masked scores\", \"text\": [\"t\"],\n"
	"    \"code\": [\"X = [1 0; 0 1; 1 1; 2 -1]\", \"S = X @ X.T\",\n"
	"              \"M = S.masked_fill(torch.triu(torch.ones(4, 4), diagonal=1).bool(), float('-inf'))\",\n"
	"              \"W = torch.softmax(M, dim=-1)\"],\n"
	"    \"show\": [ { \"heatmap\": \"M\", \"title\": \"masked scores\", \"rows\": [\"I\", \"saw\", \"it\", \"go\"],\n"
	"                \"cols\": [\"I\", \"saw\", \"it\", \"go\"], \"scale\": \"diverging\" },\n"
	"              { \"heatmap\": \"W\", \"scale\": \"weights\" },\n"
	"              { \"compare\": \"torch.softmax(S, dim=-1)\" } ] } ] }\n";

/* cairo's and fontconfig's caches freed after each test, as qkv does at exit */
TestSuite(export, .fini = export_cleanup);

struct fixture {
	struct lesson *l;
	struct player *p;
	struct page pg;
};

static void fixture_open(struct fixture *fx)
{
	struct qkv_error err;
	fx->l = lesson_parse("fig.json", lesson_text, strlen(lesson_text), NULL, NULL, &err);
	cr_assert(fx->l, "%s", err.msg);
	fx->p = player_new(fx->l, KERNEL_SIMD);
	int at;
	cr_assert_eq(player_go(fx->p, 0, &at, &err), 0, "%s", err.msg);
	page_build(&fx->pg, fx->p, 0);
	cr_assert_eq(fx->pg.nviews, 3);
}

static void fixture_close(struct fixture *fx)
{
	page_free(&fx->pg);
	player_free(fx->p);
	lesson_free(fx->l);
}

/* PNG bytes decoded by cairo. */
struct png_read {
	const char *data;
	size_t len, at;
};

static cairo_status_t png_read_fn(void *closure, unsigned char *data, unsigned int length)
{
	struct png_read *r = closure;
	if (r->at + length > r->len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->data + r->at, length);
	r->at += length;
	return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *png_decode(const struct strbuf *png)
{
	struct png_read r = { png->s, png->len, 0 };
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(png_read_fn, &r);
	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "the PNG does not decode");
	return s;
}

static struct rgb pixel(cairo_surface_t *s, double x, double y)
{
	cairo_surface_flush(s);
	int ix = (int)(x * 2), iy = (int)(y * 2);	/* the PNG has 2 pixels per point */
	cr_assert(ix >= 0 && iy >= 0 && ix < cairo_image_surface_get_width(s) && iy < cairo_image_surface_get_height(s),
		  "pixel %d,%d outside the PNG", ix, iy);
	const unsigned char *row = cairo_image_surface_get_data(s) + (size_t)iy * (size_t)cairo_image_surface_get_stride(s);
	uint32_t v;
	memcpy(&v, row + 4 * ix, 4);
	return (struct rgb){ (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
}

static bool near(struct rgb a, struct rgb b)
{
	return abs(a.r - b.r) <= 2 && abs(a.g - b.g) <= 2 && abs(a.b - b.b) <= 2;
}

/* Draws view v of the fixture as a PNG in palette k and checks every
 * cell's corner against the model's colour for it; returns how many cells
 * were masked. */
static int check_cells(const struct page_view *v, enum palette_kind k)
{
	struct figure f;
	struct figure_grid g;
	struct qkv_error err;
	figure_begin(&f, k);
	cr_assert_eq(figure_view(&f, v, NULL, &g, &err), 0, "%s", err.msg);
	figure_end(&f);
	struct strbuf png;
	strbuf_init(&png);
	struct export_opts o = { k, NULL };
	cr_assert_eq(export_view(&png, EXPORT_PNG, v, &o, &err), 0, "%s", err.msg);
	cr_assert(png.len > 8 && memcmp(png.s, "\x89PNG\r\n\x1a\n", 8) == 0);
	cairo_surface_t *s = png_decode(&png);
	struct heatmap h;
	const struct show *sh = v->shown->show;
	heatmap_build(&h, v->shown->t, sh->slice, sh->nslice, sh->rows, sh->nrows, sh->cols, sh->ncols, sh->scale);
	cr_assert_eq(g.rows, h.rows);
	cr_assert_eq(g.cols, h.cols);
	int masked = 0;
	for (int r = 0; r < h.rows; r++)
		for (int c = 0; c < h.cols; c++) {
			/* 3 points into the cell: clear of the lines between cells and of the number */
			struct rgb got = pixel(s, g.x + c * g.cw + 3, g.y + r * g.ch + 3);
			if (heatmap_cell_kind(&h, r, c) == CELL_NEG_INF) {
				masked++;
				cr_expect(got.r == got.g && got.g == got.b && got.r > 150,
					  "masked cell %d,%d should be white or hatched grey, is %d,%d,%d", r, c, got.r, got.g,
					  got.b);
				continue;
			}
			struct rgb want = palette_rgb_in(k, h.scale, heatmap_position(&h, heatmap_value(&h, r, c)));
			cr_expect(near(got, want), "cell %d,%d (%g) is %d,%d,%d, the palette says %d,%d,%d", r, c,
				  heatmap_value(&h, r, c), got.r, got.g, got.b, want.r, want.g, want.b);
		}
	heatmap_free(&h);
	cairo_surface_destroy(s);
	strbuf_free(&png);
	return masked;
}

Test(export, formats_should_be_named_by_the_extension_whatever_its_case)
{
	cr_expect_eq(export_format_of("a/b/fig.svg"), EXPORT_SVG);
	cr_expect_eq(export_format_of("FIG.PDF"), EXPORT_PDF);
	cr_expect_eq(export_format_of("x.Png"), EXPORT_PNG);
	cr_expect_eq(export_format_of("lesson.html"), EXPORT_HTML);
	cr_expect_eq(export_format_of("lesson.htm"), EXPORT_HTML);
	cr_expect_eq(export_format_of("v.txt"), EXPORT_TXT);
	cr_expect_eq(export_format_of("v.ansi"), EXPORT_ANSI);
	cr_expect_eq(export_format_of("v.jpeg"), EXPORT_UNKNOWN);
	cr_expect_eq(export_format_of("svg"), EXPORT_UNKNOWN);
	cr_expect_eq(export_format_of("dir.svg/fig"), EXPORT_UNKNOWN);
	cr_expect_eq(export_format_of(""), EXPORT_UNKNOWN);
	cr_expect_str_eq(export_format_ext(EXPORT_PNG), "png");
}

Test(export, png_cells_should_have_the_palette_colour_of_the_model_value)
{
	struct fixture fx;
	fixture_open(&fx);
	cr_expect_eq(check_cells(&fx.pg.views[0], PALETTE_COLOR), 6, "the 6 cells above the diagonal are masked");
	cr_expect_eq(check_cells(&fx.pg.views[1], PALETTE_COLOR), 0);
	fixture_close(&fx);
}

Test(export, the_gray_palette_should_draw_every_cell_grey_in_the_order_of_the_values)
{
	struct fixture fx;
	fixture_open(&fx);
	check_cells(&fx.pg.views[0], PALETTE_GRAY);
	check_cells(&fx.pg.views[1], PALETTE_GRAY);
	struct rgb prev = palette_rgb_in(PALETTE_GRAY, SCALE_WEIGHTS, 0);
	for (int i = 1; i <= 100; i++) {
		struct rgb c = palette_rgb_in(PALETTE_GRAY, SCALE_DIVERGING, i / 100.0);
		cr_assert(c.r == c.g && c.g == c.b);
		cr_assert(c.r <= prev.r, "darker as the value grows");
		prev = c;
	}
	fixture_close(&fx);
}

Test(export, a_comparison_should_draw_the_simd_result_with_its_loops_twin)
{
	struct fixture fx;
	fixture_open(&fx);
	const struct page_view *v = &fx.pg.views[2];
	cr_assert_eq(v->shown->show->kind, SHOW_COMPARE);
	check_cells(v, PALETTE_COLOR);
	struct strbuf svg;
	strbuf_init(&svg);
	struct qkv_error err;
	struct export_opts o = { PALETTE_COLOR, NULL };
	cr_assert_eq(export_view(&svg, EXPORT_SVG, v, &o, &err), 0, "%s", err.msg);
	cr_expect(strncmp(svg.s, "<?xml", 5) == 0);
	cr_expect(strstr(svg.s, "<svg"));
	strbuf_free(&svg);
	fixture_close(&fx);
}

Test(export, svg_and_pdf_should_be_whole_documents)
{
	struct fixture fx;
	fixture_open(&fx);
	struct qkv_error err;
	struct export_opts o = { PALETTE_COLOR, NULL };
	struct strbuf b;
	strbuf_init(&b);
	cr_assert_eq(export_view(&b, EXPORT_SVG, &fx.pg.views[0], &o, &err), 0, "%s", err.msg);
	cr_expect(strstr(b.s, "<svg") && strstr(b.s, "</svg>"), "an SVG document");
	cr_expect(strstr(b.s, "px\""), "its size in pixels, so a page shows it at its size");
	strbuf_reset(&b);
	cr_assert_eq(export_view(&b, EXPORT_PDF, &fx.pg.views[0], &o, &err), 0, "%s", err.msg);
	cr_expect(b.len > 100 && memcmp(b.s, "%PDF-", 5) == 0);
	cr_expect(memmem(b.s, b.len, "%%EOF", 5), "a finished PDF");
	strbuf_reset(&b);
	cr_expect_eq(export_view(&b, EXPORT_TXT, &fx.pg.views[0], &o, &err), -1, "text is text/render's");
	cr_expect(strstr(err.msg, "not a figure format"), "%s", err.msg);
	strbuf_free(&b);
	fixture_close(&fx);
}

static struct tensor *matrix(int rows, int cols)
{
	int64_t shape[2] = { rows, cols };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	for (int64_t i = 0; i < (int64_t)rows * cols; i++)
		tensor_set(t, i, sin((double)i));
	return t;
}

Test(export, a_big_matrix_should_be_cut_to_the_figure_limit_in_colour_only)
{
	struct tensor *t = matrix(300, 150);
	struct heatmap h;
	heatmap_build(&h, t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	struct figure f;
	struct figure_grid g;
	figure_begin(&f, PALETTE_COLOR);
	struct heatmap_numfmt fmt;
	cr_assert(heatmap_number_format(&h, 7, &fmt));
	figure_heatmap(&f, &h, "big", &fmt, &g);
	cr_expect_eq(g.rows, FIGURE_MAX_ROWS);
	cr_expect_eq(g.cols, 150);
	cr_expect(!g.numbers, "no numbers in 150 columns");
	cr_expect(f.w < 2000 && f.h < 2000, "%gx%g", f.w, f.h);
	cr_expect_eq(cairo_status(f.cr), CAIRO_STATUS_SUCCESS);
	figure_end(&f);
	heatmap_free(&h);
	tensor_unref(t);
}

Test(export, nan_cells_and_bad_text_should_draw_without_stopping_cairo)
{
	struct tensor *t = matrix(2, 2);
	tensor_set(t, 1, NAN);
	struct heatmap h;
	char *rows[] = { "ok", "\x1b[31mbad\xff\xfe" }, *cols[] = { "\xc3", "é" };
	heatmap_build(&h, t, NULL, 0, rows, 2, cols, 2, SCALE_AUTO);
	heatmap_set_name(&h, "N");
	struct strbuf png;
	strbuf_init(&png);
	struct qkv_error err;
	struct export_opts o = { PALETTE_COLOR, NULL };
	cr_assert_eq(export_heatmap(&png, EXPORT_PNG, &h, "bad \x07 title \xff", &o, &err), 0, "%s", err.msg);
	struct figure f;
	struct figure_grid g;
	figure_begin(&f, PALETTE_COLOR);
	figure_heatmap(&f, &h, "bad \x07 title \xff", NULL, &g);
	figure_end(&f);
	cairo_surface_t *s = png_decode(&png);
	cr_expect(near(pixel(s, g.x + g.cw + 3, g.y + 3), palette_nan_rgb()), "the NaN cell is magenta");
	cairo_surface_destroy(s);
	strbuf_free(&png);
	heatmap_free(&h);
	tensor_unref(t);
}

/* The figure of a 2x2 matrix with a +inf (0, 1), its largest value 1 at
 * (1, 0), drawn in palette k with numbers or without: the +inf cell's
 * corner, the largest value's and the cell grid. */
static void inf_pixels(enum palette_kind k, bool numbers, struct rgb *inf, struct rgb *top)
{
	struct tensor *t = matrix(2, 2);
	tensor_set(t, 0, 0.5);
	tensor_set(t, 1, INFINITY);
	tensor_set(t, 2, 1.0);
	tensor_set(t, 3, -0.25);
	struct heatmap h;
	heatmap_build(&h, t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	struct heatmap_numfmt fmt = { 2, 0 };
	struct figure f;
	struct figure_grid g;
	figure_begin(&f, k);
	figure_heatmap(&f, &h, "inf", numbers ? &fmt : NULL, &g);
	figure_end(&f);
	struct strbuf png;
	strbuf_init(&png);
	struct qkv_error err;
	struct export_opts o = { k, numbers ? &fmt : NULL };
	cr_assert_eq(export_heatmap(&png, EXPORT_PNG, &h, "inf", &o, &err), 0, "%s", err.msg);
	cairo_surface_t *s = png_decode(&png);
	*inf = pixel(s, g.x + g.cw + 3, g.y + 3);
	*top = pixel(s, g.x + 3, g.y + g.ch + 3);
	cairo_surface_destroy(s);
	strbuf_free(&png);
	heatmap_free(&h);
	tensor_unref(t);
}

Test(export, a_pos_inf_cell_should_be_drawn_off_the_scale_not_as_its_largest_value)
{
	for (int k = 0; k < 2; k++)
		for (int numbers = 0; numbers < 2; numbers++) {
			struct rgb inf, top;
			inf_pixels(k ? PALETTE_GRAY : PALETTE_COLOR, numbers, &inf, &top);
			cr_expect(!near(inf, top), "palette %d: +inf drawn as the largest value (%d,%d,%d)", k, top.r,
				  top.g, top.b);
			cr_expect(inf.r == inf.g && inf.g == inf.b, "palette %d: +inf is white with grey lines, is %d,%d,%d",
				  k, inf.r, inf.g, inf.b);
		}
}

Test(export, save_should_replace_a_file_only_when_forced_and_leave_no_half_file)
{
	char dir[64], path[128];
	dir_make_temp(dir, sizeof dir, "qkv-export");
	snprintf(path, sizeof path, "%s/f.svg", dir);
	struct qkv_error err;
	cr_assert_eq(export_save(path, "one", 3, false, &err), 0, "%s", err.msg);
	cr_expect_eq(export_save(path, "two", 3, false, &err), -1);
	cr_expect(strstr(err.msg, "exists (--force replaces it)"), "%s", err.msg);
	file_assert_holds(path, "one", 3);
	cr_assert_eq(export_save(path, "three", 5, true, &err), 0, "%s", err.msg);
	file_assert_holds(path, "three", 5);
	cr_expect_eq(export_save(dir, "x", 1, true, &err), -1);
	cr_expect(strstr(err.msg, "is a directory"), "%s", err.msg);
	snprintf(path, sizeof path, "%s/no/such/f.svg", dir);
	cr_expect_eq(export_save(path, "x", 1, false, &err), -1);
	cr_expect(strstr(err.msg, "cannot save"), "%s", err.msg);
	char *names = dir_list(dir);
	cr_expect_str_eq(names, "f.svg ", "no temporary file left");
	free(names);
	dir_remove(dir);
}

Test(export, unused_paths_should_count_up_past_taken_names)
{
	char dir[64], buf[256];
	dir_make_temp(dir, sizeof dir, "qkv-export");
	struct qkv_error err;
	cr_assert_eq(export_unused_path(buf, sizeof buf, dir, "l-step-2", "svg", &err), 0, "%s", err.msg);
	char want[256];
	snprintf(want, sizeof want, "%s/l-step-2.svg", dir);
	cr_expect_str_eq(buf, want);
	file_put(buf, "x", 1);
	cr_assert_eq(export_unused_path(buf, sizeof buf, dir, "l-step-2", "svg", &err), 0, "%s", err.msg);
	snprintf(want, sizeof want, "%s/l-step-2-2.svg", dir);
	cr_expect_str_eq(buf, want);
	cr_expect_eq(export_unused_path(buf, 8, dir, "l-step-2", "svg", &err), -1, "too long for the buffer");
	dir_remove(dir);
}

/* Whether the cells of a grid of g's shape at x draw as those of g in s. */
static bool grid_twin_at(cairo_surface_t *s, const struct figure_grid *g, double x)
{
	for (int r = 0; r < g->rows; r++)
		for (int c = 0; c < g->cols; c++) {
			double y = g->y + r * g->ch + 3;
			if (!near(pixel(s, x + c * g->cw + 3, y), pixel(s, g->x + c * g->cw + 3, y)))
				return false;
		}
	return true;
}

/* A comparison drawn as three panels side by side, for-loops, unrolled and
 * SIMD (g, the last): left of the SIMD grid, two more grids whose every cell
 * has the colour of its SIMD twin (the three results agree) */
Test(export, a_comparison_should_draw_the_three_kernel_variants_side_by_side)
{
	struct fixture fx;
	fixture_open(&fx);
	const struct page_view *v = &fx.pg.views[2];
	cr_assert(v->shown->unrolled, "the compare show has its unrolled result");
	struct figure f;
	struct figure_grid g;
	struct qkv_error err;
	figure_begin(&f, PALETTE_COLOR);
	cr_assert_eq(figure_view(&f, v, NULL, &g, &err), 0, "%s", err.msg);
	figure_end(&f);
	struct strbuf png;
	strbuf_init(&png);
	struct export_opts o = { PALETTE_COLOR, NULL };
	cr_assert_eq(export_view(&png, EXPORT_PNG, v, &o, &err), 0, "%s", err.msg);
	cairo_surface_t *s = png_decode(&png);
	int twins = 0;
	double last = -1e9;
	for (double x = 0; x + g.cols * g.cw <= g.x; x += 0.5)
		if (grid_twin_at(s, &g, x) && x - last > g.cw) {
			twins++;
			last = x;
		}
	cr_expect_eq(twins, 2, "%d grids like SIMD's left of it at x %g", twins, g.x);
	cairo_surface_destroy(s);
	strbuf_free(&png);
	fixture_close(&fx);
}
