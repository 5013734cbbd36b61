/* feel.c: the bench's cases for what a person waits for: `qkv 1` to its
 * first frame (first_frame), a key on a 64x64 heatmap to its frame
 * (redraw_64), computed as the full screen computes them and painted by the
 * text renderer into a buffer instead of by curses. No terminal, no files. */
#include "bench/internal.h"
#include "core/strbuf.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "text/render.h"
#include "view/heatmap.h"
#include "view/inspect.h"
#include "view/page.h"

#include <stdlib.h>
#include <string.h>

/* One frame of the lesson screen on a terminal of cols x rows, as
 * screen_draw lays it out (page.h's split: from PAGE_WIDE_COLS columns the
 * text on the left and the view on the right; else the text above it): the
 * page of step k laid out at the text's width, and its first view: a
 * heatmap's model built from its tensor, laid out with the cursor at (cur_r,
 * cur_c) and painted in colour, its legend, and the inspector's lines on the
 * cursor's cell. The curses calls are what it leaves out. */
static void feel_frame(struct strbuf *out, struct player *p, int k, int cols, int rows, int cur_r, int cur_c)
{
	bool wide = cols >= PAGE_WIDE_COLS;
	int split = page_wide_text_cols(cols);
	int tw = wide ? split - 2 : cols - 2, vw = wide ? cols - split - 3 : cols - 2;
	int vh = wide ? rows - 3 : (rows - 3) * 3 / 5;
	struct page pg;
	page_build_exercises(&pg, p, k, NULL, "Press : to answer at the prompt (:hint and :solution help there).");
	struct page_lines pl = { 0 };
	page_layout(&pg, 0, -1, tw, &pl);
	for (int i = 0; i < pl.n && i < rows; i++) {
		strbuf_puts(out, pl.lines[i].text);
		strbuf_putc(out, '\n');
	}
	page_lines_free(&pl);
	struct render_opts ro = { vw < 40 ? 40 : vw, true };
	const struct shown *sh = pg.nviews > 0 ? pg.views[0].shown : NULL;
	if (sh && sh->show->kind == SHOW_HEATMAP && sh->t) {
		const struct show *s = sh->show;
		struct heatmap h;
		heatmap_build(&h, sh->t, s->slice, s->nslice, s->rows, s->nrows, s->cols, s->ncols, s->scale);
		heatmap_set_show_name(&h, s);
		struct heatmap_layout L;
		cur_r = cur_r < h.rows ? cur_r : h.rows - 1;
		cur_c = cur_c < h.cols ? cur_c : h.cols - 1;
		heatmap_layout(&h, vw, vh - 5, 0, false, cur_r, cur_c, &L);
		render_heatmap(out, &h, 0, &ro);
		char legend[512];
		heatmap_legend(&h, &L.fmt, COLOR_256, false, legend, sizeof legend, vw);
		strbuf_puts(out, legend);
		strbuf_putc(out, '\n');
		int64_t flat = sh->t->ndim <= 2 ? (int64_t)cur_r * h.cols + cur_c : 0;
		inspect_cell(out, sh->t, s->expr ? s->expr : "x", flat, vw);
		heatmap_free(&h);
	} else if (sh) {
		render_view(out, &pg.views[0], &ro);
	}
	page_free(&pg);
}

/* ---- first_frame: `qkv 1` ---------------------------------------------------- */

struct first_frame {
	struct strbuf out;
	bool failed;
};

/* What `qkv 1` does before its first frame (ui_run, screen_open): every
 * built-in lesson parsed for the catalog, lesson 1 resolved (twice: once to
 * check that it opens, once to open it), its first step run, and the frame
 * drawn on an 80x24 terminal. */
static void run_first_frame(void *arg, enum kernel_variant v)
{
	struct first_frame *f = arg;
	struct catalog c;
	struct qkv_error err;
	catalog_load(&c, NULL, NULL);
	struct lesson *l = catalog_resolve(&c, "1", NULL, NULL, &err);
	lesson_free(l);
	l = catalog_resolve(&c, "1", NULL, NULL, &err);
	if (!l) {
		f->failed = true;
		catalog_free(&c);
		return;
	}
	struct player *p = player_new(l, v);
	int at;
	if (player_go(p, 0, &at, &err) != 0)
		f->failed = true;
	strbuf_reset(&f->out);
	feel_frame(&f->out, p, 0, 80, 24, 0, 0);
	player_free(p);
	lesson_free(l);
	catalog_free(&c);
}

void bench_first_frame(struct report *r)
{
	struct first_frame f = { .failed = false };
	strbuf_init(&f.out);
	double ms = bench_time_ms(run_first_frame, &f, KERNEL_SIMD);
	bench_report_ms(r, "first_frame", "ui", ms, f.failed || f.out.len == 0);
	strbuf_free(&f.out);
}

/* ---- redraw_64: a key on a 64x64 heatmap ---------------------------------------- */

static const char redraw_lesson[] =
	"{\"id\": \"bench-redraw\", \"title\": \"A 64x64 heatmap\", \"source\": \"qkv bench\","
	" \"summary\": \"One step that shows a 64x64 matrix.\", \"steps\": [{\"title\": \"Scores of 64 tokens\","
	" \"text\": \"The scores of 64 tokens against 64, as a heatmap: the arrows move the cursor.\","
	" \"code\": [\"torch.manual_seed(0)\", \"S = torch.randn(64, 64)\"],"
	" \"show\": {\"heatmap\": \"S\", \"scale\": \"diverging\"}}]}";

struct redraw {
	struct player *p;
	struct strbuf out;
	int key;   /* keys pressed so far: each moves the cursor one cell */
};

/* The frame after an arrow key on a 160x50 terminal (the heatmap on the
 * right): what the screen computes again for every frame. */
static void run_redraw(void *arg, enum kernel_variant v)
{
	(void)v;
	struct redraw *d = arg;
	d->key++;
	strbuf_reset(&d->out);
	feel_frame(&d->out, d->p, 0, 160, 50, d->key % 64, (d->key / 64) % 64);
}

void bench_redraw_64(struct report *r)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("bench:redraw_64", redraw_lesson, sizeof redraw_lesson - 1, NULL, NULL, &err);
	struct redraw d = { .p = l ? player_new(l, KERNEL_SIMD) : NULL };
	strbuf_init(&d.out);
	int at;
	bool failed = !d.p || player_go(d.p, 0, &at, &err) != 0 || !player_result(d.p, 0) ||
		      player_result(d.p, 0)->nshown != 1 || !player_result(d.p, 0)->shown[0].t;
	double ms = failed ? 0 : bench_time_ms(run_redraw, &d, KERNEL_SIMD);
	bench_report_ms(r, "redraw_64", "ui", ms, failed || d.out.len == 0);
	strbuf_free(&d.out);
	player_free(d.p);
	lesson_free(l);
}
