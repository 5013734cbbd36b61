/* feel.c: the bench's cases for what a person waits for: `qkv 1` to its
 * first frame (first_frame), a key on a 64x64 heatmap to its frame
 * (redraw_64), a key at the prompt with a 2048x2048 value shown
 * (redraw_2048), computed as the full screen computes them and painted into
 * a buffer instead of by curses. No terminal, no files. */
#include "bench/internal.h"
#include "core/strbuf.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "lesson/session.h"
#include "text/render.h"
#include "view/heatmap.h"
#include "view/inspect.h"
#include "view/page.h"
#include "view/palette.h"

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
		heatmap_layout(&h, (struct heatmap_ink){ COLOR_256, true }, vw, vh - 5, 0, false, cur_r, cur_c, &L);
		render_heatmap(out, &h, 0, &ro);
		char legend[512];
		heatmap_legend(&h, L.numbers ? &L.fmt : NULL, COLOR_256, heatmap_legend_marks(&L), legend, sizeof legend, vw);
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

/* ---- redraw_2048: a key at the prompt with a 2048x2048 value shown ------------------ */

struct redraw_big {
	struct tensor *t;
	struct heatmap h;          /* its model, built once as the prompt keeps it */
	struct strbuf out;
	int key;
};

/* The frame after a key at `qkv --repl` on a 120x40 terminal with the value
 * `a = torch.randn(2048, 2048)` shown, as ui/prompt_view.c's draw_tensor
 * computes it: the model kept from the frame before (prompt.heat), laid
 * out with the cursor where the key left it, the cells of the window shown
 * (their text and colour), the legend and the inspector. Nothing in it may
 * read every cell: the time is that of a small matrix's. */
static void run_redraw_big(void *arg, enum kernel_variant v)
{
	(void)v;
	struct redraw_big *d = arg;
	const struct heatmap *h = &d->h;
	d->key++;
	int cur_r = (d->key * 37) % h->rows, cur_c = (d->key * 101) % h->cols;
	strbuf_reset(&d->out);
	struct heatmap_layout L;
	heatmap_layout(h, (struct heatmap_ink){ COLOR_256, true }, 118, 30, 0, false, cur_r, cur_c, &L);
	for (int r = L.row0; r < L.row0 + L.vis_rows; r++) {
		for (int c = L.col0; c < L.col0 + L.vis_cols; c++) {
			char cell[64];
			if (L.numbers)
				heatmap_cell_text(h, r, c, &L.fmt, L.cell_w - 1, cell, sizeof cell);
			else
				cell[0] = 0;
			struct rgb rgb = palette_rgb(h->scale, heatmap_position(h, heatmap_value(h, r, c)));
			strbuf_printf(&d->out, "%d%s", palette_index256(rgb), cell);
		}
		strbuf_putc(&d->out, '\n');
	}
	char legend[512];
	heatmap_legend(h, L.numbers ? &L.fmt : NULL, COLOR_256, heatmap_legend_marks(&L), legend, sizeof legend, 118);
	strbuf_puts(&d->out, legend);
	strbuf_putc(&d->out, '\n');
	inspect_cell(&d->out, d->t, "a", (int64_t)cur_r * h->cols + cur_c, 118);
}

void bench_redraw_2048(struct report *r)
{
	static const char src[] = "torch.manual_seed(0)\na = torch.randn(2048, 2048)\n";
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err;
	struct session_value v = { 0 };
	bool failed = session_run(s, src, sizeof src - 1, 1, SESSION_ATOMIC, &err) != SESSION_OK ||
		      session_show(s, "a", &v, &err) != 0 || !v.t;
	struct redraw_big d = { .t = v.t };
	strbuf_init(&d.out);
	double ms = 0;
	if (!failed) {
		heatmap_build(&d.h, d.t, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
		heatmap_set_name(&d.h, "a");
		ms = bench_time_ms(run_redraw_big, &d, KERNEL_SIMD);
		heatmap_free(&d.h);
	}
	bench_report_ms(r, "redraw_2048", "ui", ms, failed || d.out.len == 0);
	strbuf_free(&d.out);
	session_value_free(&v);
	session_free(s);
}
