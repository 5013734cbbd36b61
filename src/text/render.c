/* render.c: lesson steps as plain text (see render.h).
 * Called by main.c for `qkv run`; draws from the view/ models and never
 * touches a terminal itself (the caller decides whether colours are on). */
#include "text/render.h"
#include "text/json.h"
#include "core/visible.h"
#include "core/format.h"
#include "core/utf8.h"
#include "view/palette.h"
#include "view/timing.h"
#include "view/tokens.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ANSI escape that colours a cell bg (a colour of view/palette, as the
 * screen draws it) in the 256-colour cube, with the text colour that reads
 * best on it. */
static void put_cell_colour(struct strbuf *out, struct rgb bg)
{
	struct rgb fg = palette_text_on(bg);
	strbuf_printf(out, "\x1b[48;5;%dm\x1b[38;5;%dm", palette_index256(bg), palette_index256(fg));
}

/* One line of column labels for cells of cw characters every per columns
 * from column x0: all of them (lines 1), or every other one (lines 2, this
 * line's parity), each right-aligned over its numbers and free to take its
 * left neighbour's cell; cut with "…" when longer. */
static void put_col_labels(struct strbuf *out, const struct heatmap *h, int x0, int shown_cols, int cw, int per,
			   int lines, int line)
{
	int col = 0;
	struct strbuf lab;
	strbuf_init(&lab);
	for (int c = line; c < shown_cols; c += lines) {
		int end = x0 + c * per + cw;
		int room = lines > 1 ? cw + per - 1 : cw;
		room = room > end - col ? end - col : room;
		strbuf_reset(&lab);
		utf8_fit(&lab, h->col_labels[c], room, 0);
		int start = end - utf8_width(lab.s);
		strbuf_pad(out, ' ', (size_t)(start - col));
		strbuf_puts(out, lab.s);
		col = end;
	}
	strbuf_free(&lab);
	strbuf_putc(out, '\n');
}

void render_heatmap(struct strbuf *out, const struct heatmap *h, int indent, const struct render_opts *o)
{
	int lw = h->label_width > 12 ? 12 : h->label_width;
	/* each cell: a number right-aligned in cw (the formats of the screen,
	 * view/heatmap), a space, its mark (heatmap_cell_mark), a space: a mark
	 * never touches a digit */
	struct heatmap_numfmt fmt;
	int cw = 7;
	for (int c = 0; c < h->cols; c++) {
		int w = utf8_width(h->col_labels[c]);
		cw = w > cw ? (w > 10 ? 10 : w) : cw;
	}
	int avail = o->width - indent - lw - 1;
	int ncols = h->cols;
	while (cw > 4 && (cw + 3) * ncols > avail)
		cw--;
	bool numbers = heatmap_number_format(h, cw, &fmt);
	/* marks alone: after their sign without colour (heatmap_signs) */
	bool signs = heatmap_signs(h, o->color ? COLOR_256 : COLOR_NONE, numbers);
	if (!numbers) {
		cw = 0;	/* marks only */
	} else {
		/* no wider than the widest number or column label needs */
		int need = 1;
		for (int r = 0; r < h->rows; r++) {
			for (int c = 0; c < h->cols; c++) {
				char cell[400];
				heatmap_cell_text(h, r, c, &fmt, 1, cell, sizeof cell);
				int w = (int)strlen(cell);
				need = w > need ? w : need;
			}
		}
		for (int c = 0; c < h->cols; c++) {
			int w = utf8_width(h->col_labels[c]);
			need = w > need ? w : need;
		}
		cw = need < cw ? need : cw;
	}
	int per = numbers ? cw + 3 : signs ? 3 : 1;
	int shown_cols = avail / per < ncols ? (avail / per > 0 ? avail / per : 1) : ncols;
	/* row labels longer than 12 take what the cells leave */
	int spare = o->width - indent - 1 - shown_cols * per;
	if (h->label_width > lw && spare > lw)
		lw = spare < h->label_width ? (spare < 32 ? spare : 32) : (h->label_width < 32 ? h->label_width : 32);
	strbuf_pad(out, ' ', (size_t)indent);
	strbuf_printf(out, "%d\u00d7%d", h->rows, h->cols);
	if (h->slice_name[0])
		strbuf_printf(out, ", %s", h->slice_name);
	if (shown_cols < ncols)
		strbuf_printf(out, " (columns 0\u2013%d of %d)", shown_cols - 1, ncols);
	strbuf_putc(out, '\n');
	if (numbers) {
		/* column labels cut in one line take two, as on the screen */
		int widest = 0;
		for (int c = 0; c < shown_cols; c++) {
			int w = utf8_width(h->col_labels[c]);
			widest = w > widest ? w : widest;
		}
		int lines = widest > cw && shown_cols > 1 ? 2 : 1;
		for (int line = 0; line < lines; line++)
			put_col_labels(out, h, indent + lw + 1, shown_cols, cw, per, lines, line);
	}
	int max_rows = 48;
	for (int r = 0; r < h->rows; r++) {
		if (h->rows > max_rows && r == max_rows / 2) {
			strbuf_pad(out, ' ', (size_t)indent);
			strbuf_printf(out, "%*s \u22ee (%d rows)\n", lw, "", h->rows - max_rows);
			r = h->rows - max_rows / 2;
		}
		strbuf_pad(out, ' ', (size_t)indent);
		utf8_fit(out, h->row_labels[r], lw, 1);
		strbuf_putc(out, ' ');
		for (int c = 0; c < shown_cols; c++) {
			double v = heatmap_value(h, r, c);
			enum cell_kind k = heatmap_cell_kind(h, r, c);
			if (o->color && k == CELL_VALUE)
				put_cell_colour(out, palette_rgb(h->scale, heatmap_position(h, v)));
			else if (o->color && k == CELL_NAN)	/* NaN: magenta, off both scales */
				put_cell_colour(out, palette_nan_rgb());
			if (numbers) {
				char cell[400];
				heatmap_cell_text(h, r, c, &fmt, cw, cell, sizeof cell);
				strbuf_printf(out, "%s ", cell);
			} else if (signs) {
				strbuf_puts(out, heatmap_cell_sign(h, r, c));
			}
			/* the shade of a value; masked (-inf), +inf and nan cells their own marks */
			strbuf_puts(out, heatmap_cell_mark(h, r, c));
			if (o->color && (k == CELL_VALUE || k == CELL_NAN))
				strbuf_puts(out, "\x1b[0m");
			if ((numbers || signs) && c + 1 < shown_cols)
				strbuf_putc(out, ' ');
		}
		strbuf_putc(out, '\n');
	}
	/* the legend the screen draws, the shades named: they are always drawn */
	char legend[512];
	heatmap_legend(h, numbers ? &fmt : NULL, o->color ? COLOR_256 : COLOR_NONE, LEGEND_SHADES, legend,
		       sizeof legend, o->width - indent);
	strbuf_pad(out, ' ', (size_t)indent);
	strbuf_printf(out, "%s\n", legend);
}

/* A label of h made visible in place (a lesson names rows and columns). */
static void visible_label(char **label)
{
	char *v = visible_copy(*label, 0);
	free(*label);
	*label = v;
}

/* Builds the heatmap of a show with every name in it visible. */
static void build_visible_heatmap(struct heatmap *h, const struct shown *sh)
{
	const struct show *s = sh->show;
	heatmap_build(h, sh->t, s->slice, s->nslice, s->rows, s->nrows, s->cols, s->ncols, s->scale);
	heatmap_set_show_name(h, s);
	h->label_width = 0;
	for (int r = 0; r < h->rows; r++) {
		visible_label(&h->row_labels[r]);
		int w = utf8_width(h->row_labels[r]);
		h->label_width = w > h->label_width ? w : h->label_width;
	}
	for (int c = 0; c < h->cols; c++)
		visible_label(&h->col_labels[c]);
	visible_in_place(h->slice_name, sizeof h->slice_name);
	visible_in_place(h->name, sizeof h->name);
}

/* A show's title, else its expression, visible, on a line 2 columns in,
 * with what follows it (a suffix of qkv's own). */
static void put_show_title(struct strbuf *out, const struct show *s, const char *fallback, const char *suffix)
{
	const char *t = s->title ? s->title : fallback;
	strbuf_puts(out, "  ");
	visible_put(out, t, strlen(t), 0);
	strbuf_printf(out, "%s\n", suffix);
}

static void render_tokens(struct strbuf *out, const struct shown *sh, const struct render_opts *o)
{
	struct tokens_view tv;
	tokens_build(&tv, sh->show, sh->t, -1);
	visible_in_place(tv.query_label, sizeof tv.query_label);
	for (int64_t h = 0; h < tv.nheads; h++)
		visible_in_place(tv.heads[h], sizeof tv.heads[h]);
	for (int64_t k = 0; k < tv.ntok; k++)
		visible_in_place(tv.keys[k], sizeof tv.keys[k]);
	if (sh->show->title)
		put_show_title(out, sh->show, NULL, "");
	if (tv.query_named)
		strbuf_printf(out, "  weights of the query token '%s' over the keys%s\n", tv.query_label,
			      tv.nheads > 1 ? ", by head" : "");
	else
		strbuf_printf(out, "  weights of query token %s (counting from 0) over the keys%s\n", tv.query_label,
			      tv.nheads > 1 ? ", by head" : "");
	int shown_heads = (int)(tv.nheads < 4 ? tv.nheads : 4);
	int bar = (o->width - 16) / shown_heads - 8;
	bar = bar > 14 ? 14 : bar < 4 ? 4 : bar;
	/* header: each column is a number, then its bar */
	strbuf_pad(out, ' ', 14);
	for (int h = 0; h < shown_heads; h++) {
		strbuf_putc(out, ' ');
		utf8_fit(out, tv.heads[h], bar + 6, -1);
	}
	strbuf_putc(out, '\n');
	for (int64_t k = 0; k < tv.ntok; k++) {
		strbuf_puts(out, "    ");
		utf8_fit(out, tv.keys[k], 10, 1);
		for (int64_t h = 0; h < shown_heads; h++) {
			double w = tv.w[k * tv.nheads + h];
			int n = isfinite(w) ? (int)floor(w * bar + 0.5) : 0;
			n = n < 0 ? 0 : n > bar ? bar : n;
			strbuf_printf(out, " %5.3f ", w);
			for (int i = 0; i < n; i++)
				strbuf_puts(out, "\u2588");
			if (h + 1 < shown_heads)
				strbuf_pad(out, ' ', (size_t)(bar - n));
		}
		strbuf_putc(out, '\n');
	}
	if (tv.nheads > 4)
		strbuf_printf(out, "    (heads 0\u20133 of %lld)\n", (long long)tv.nheads);
	tokens_free(&tv);
}

/* A timing show: each entry's label and time, the labels padded to one
 * width, and from the second on its ratio to the first (on a line of its own
 * when the line would pass the width). */
static void render_timing(struct strbuf *out, const struct shown *sh, const struct render_opts *o)
{
	const struct show *s = sh->show;
	put_show_title(out, s, "timing", "");
	int lw = 0;
	for (int i = 0; i < s->ntimings; i++) {
		char label[TIMING_LABEL_MAX];
		timing_label_text(label, sizeof label, &s->timings[i]);
		visible_in_place(label, sizeof label);
		int w = utf8_width(label);
		lw = w > lw ? w : lw;
	}
	if (lw > o->width - 20)
		lw = o->width - 20;
	for (int i = 0; i < s->ntimings; i++) {
		char label[TIMING_LABEL_MAX];
		timing_label_text(label, sizeof label, &s->timings[i]);
		visible_in_place(label, sizeof label);
		int w = utf8_width(label);
		strbuf_puts(out, "    ");
		strbuf_puts(out, label);
		if (w > lw) {	/* a long label: the time goes under it */
			strbuf_putc(out, '\n');
			strbuf_pad(out, ' ', (size_t)lw + 4);
		} else {
			strbuf_pad(out, ' ', (size_t)(lw - w));
		}
		char ms[32], ratio[64];
		int mw = snprintf(ms, sizeof ms, "  %9.1f ms", sh->timing_ms[i]);
		strbuf_puts(out, ms);
		timing_ratio_text(ratio, sizeof ratio, sh->timing_ms, i);
		if (ratio[0] && 4 + lw + mw + 2 + utf8_width(ratio) > o->width)
			strbuf_printf(out, "\n      %s", ratio);
		else if (ratio[0])
			strbuf_printf(out, "  %s", ratio);
		strbuf_putc(out, '\n');
	}
}

static void render_shown(struct strbuf *out, const struct shown *sh, const struct render_opts *o)
{
	const struct show *s = sh->show;
	strbuf_putc(out, '\n');
	switch (s->kind) {
	case SHOW_HEATMAP: {
		put_show_title(out, s, s->expr, "");
		struct heatmap h;
		build_visible_heatmap(&h, sh);
		render_heatmap(out, &h, 2, o);
		heatmap_free(&h);
		break;
	}
	case SHOW_COMPARE: {
		put_show_title(out, s, s->expr, ": for-loops against unrolled and SIMD");
		char verdict[160];
		timing_verdict_text(verdict, sizeof verdict, sh->agree, sh->max_diff);
		strbuf_printf(out, "    %s\n", verdict);
		timing_variant_verdict_text(verdict, sizeof verdict, KERNEL_UNROLLED, sh->unrolled_agree,
					    sh->unrolled_diff);
		strbuf_printf(out, "    %s", verdict);
		/* the times on a line of their own: their width varies from run to
		 * run; below a millisecond the clock measures noise, not the kernels */
		char times[200];
		timing_compare_all_text(times, sizeof times, sh->loops_ms, sh->unrolled_ms, sh->simd_ms);
		strbuf_printf(out, "\n    %s\n", times);
		struct heatmap h;
		build_visible_heatmap(&h, sh);
		render_heatmap(out, &h, 4, o);
		heatmap_free(&h);
		break;
	}
	case SHOW_TOKENS:
		render_tokens(out, sh, o);
		break;
	case SHOW_TIMING:
		render_timing(out, sh, o);
		break;
	}
}

void render_view(struct strbuf *out, const struct page_view *v, const struct render_opts *o)
{
	render_shown(out, v->shown, o);
}

/* Lines laid out by view/page, one after another: a lesson's text and
 * what its code printed, so visible. */
static void put_lines(struct strbuf *out, const struct page_lines *pl)
{
	for (int i = 0; i < pl->n; i++) {
		visible_put(out, pl->lines[i].text, strlen(pl->lines[i].text), 0);
		strbuf_putc(out, '\n');
	}
}

static void put_text(struct strbuf *out, const char *text, int width)
{
	struct page_lines pl = { 0 };
	page_layout_text(&pl, text, 0, width);
	put_lines(out, &pl);
	page_lines_free(&pl);
}

void render_lesson_header(struct strbuf *out, const struct lesson *l, const struct render_opts *o)
{
	visible_put(out, l->title, strlen(l->title), 0);
	strbuf_putc(out, '\n');
	struct strbuf src;
	strbuf_init(&src);
	/* a lesson beyond the documents retells none ("beyond the documents: ...") */
	const char *doc = l->source_title ? l->source_title : l->source;
	strbuf_printf(&src, "(%s%s; %d steps)", strncmp(doc, "beyond ", 7) == 0 ? "" : "retells ", doc, l->nsteps);
	put_text(out, src.s, o->width);
	strbuf_free(&src);
	strbuf_putc(out, '\n');
	put_text(out, l->summary, o->width);
}

void render_step(struct strbuf *out, const struct page *pg, const struct render_opts *o)
{
	char head[256];
	char *title = visible_copy(pg->title, 0);
	utf8_snprintf(head, sizeof head, "\u2500\u2500 Step %d/%d: %s ", pg->step + 1, pg->nsteps, title);
	free(title);
	strbuf_putc(out, '\n');
	strbuf_puts(out, head);
	for (int i = utf8_width(head); i < o->width; i++)
		strbuf_puts(out, "\u2500");
	strbuf_puts(out, "\n\n");
	/* the text, code and output; the views; then the notes */
	int notes = page_notes_start(pg);
	struct page_lines pl = { 0 };
	page_layout(pg, 0, notes, o->width, &pl);
	put_lines(out, &pl);
	page_lines_free(&pl);
	for (int i = 0; i < pg->nviews; i++)
		render_shown(out, pg->views[i].shown, o);
	page_layout(pg, notes, -1, o->width, &pl);
	put_lines(out, &pl);
	page_lines_free(&pl);
}

void render_step_json(struct strbuf *out, const struct lesson *l, int k, const struct step_result *res)
{
	const struct step *st = &l->steps[k];
	strbuf_printf(out, "{\"lesson\":");
	json_put_string(out, l->id);
	strbuf_printf(out, ",\"step\":%d,\"title\":", k + 1);
	json_put_string(out, st->title);
	strbuf_puts(out, ",\"output\":");
	json_put_string(out, res->output ? res->output : "");
	strbuf_puts(out, ",\"shows\":[");
	for (int i = 0; i < res->nshown; i++) {
		const struct shown *sh = &res->shown[i];
		const struct show *s = sh->show;
		static const char *kinds[] = { "heatmap", "compare", "tokens", "timing" };
		if (i)
			strbuf_putc(out, ',');
		strbuf_printf(out, "{\"kind\":\"%s\"", kinds[s->kind]);
		if (s->expr) {
			strbuf_puts(out, ",\"expr\":");
			json_put_string(out, s->expr);
		}
		if (sh->t) {
			strbuf_puts(out, ",\"tensor\":");
			json_put_tensor(out, sh->t);
		}
		if (s->kind == SHOW_COMPARE)
			strbuf_printf(out, ",\"agree\":%s,\"max_diff\":%.17g,\"loops_ms\":%.3f,\"simd_ms\":%.3f,"
				      "\"unrolled_ms\":%.3f,\"unrolled_agree\":%s,\"unrolled_diff\":%.17g",
				      sh->agree ? "true" : "false", sh->max_diff, sh->loops_ms, sh->simd_ms,
				      sh->unrolled_ms, sh->unrolled_agree ? "true" : "false", sh->unrolled_diff);
		if (s->kind == SHOW_TIMING) {
			strbuf_puts(out, ",\"entries\":[");
			for (int t = 0; t < s->ntimings; t++) {
				strbuf_puts(out, t ? ",{\"label\":" : "{\"label\":");
				json_put_string(out, s->timings[t].label);
				strbuf_printf(out, ",\"repeat\":%d,\"ms\":%.3f}", s->timings[t].repeat, sh->timing_ms[t]);
			}
			strbuf_putc(out, ']');
		}
		strbuf_putc(out, '}');
	}
	strbuf_puts(out, "]}");
}
