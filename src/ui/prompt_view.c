/* prompt_view.c: the prompt's view beside its input (ui/prompt.c): the
 * value a line made or :show shows, as a heatmap with its title, cell cursor,
 * slices and inspector (a value not a tensor: its text under its name), the loops of :show EXPR loops, a listing (:ls,
 * :help), and what a running statement prints so far; the view's keys once
 * Tab gives it the focus (e exports what it shows: export_key.c). Reads
 * the prompt's state; runs no statement. */
#include "ui/internal.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "lesson/compare.h"
#include "lesson/session.h"
#include "view/inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the view: the value shown, its cursor, its keys ------------------------------ */

/* The tensor the view draws, or NULL. */
static const struct tensor *shown_tensor(const struct prompt *p)
{
	return !p->listing && p->shown ? p->shown->t : NULL;
}

/* Rows and columns of the matrices of t (a 1-D tensor is one row). */
static void matrix_size(const struct tensor *t, int64_t *rows, int64_t *cols)
{
	*rows = t->ndim >= 2 ? t->shape[t->ndim - 2] : 1;
	*cols = t->ndim >= 1 ? t->shape[t->ndim - 1] : 1;
}

/* The flat index in t of the cursor's cell, in the matrix the slice picks. */
static int64_t cursor_flat(const struct prompt *p, const struct tensor *t)
{
	int64_t rows, cols, base = 0;
	matrix_size(t, &rows, &cols);
	for (int i = 0; i + 2 < t->ndim; i++)
		base = base * t->shape[i] + p->slice[i];
	return (base * rows + p->cur_r) * cols + p->cur_c;
}

/* [ ]: the next (delta 1) or previous matrix of a 3-D or 4-D tensor, the
 * innermost leading index (the head) moving first, round at the ends. */
static void step_slice(struct prompt *p, const struct tensor *t, int delta)
{
	for (int i = 0; i + 2 < t->ndim; i++)
		if (t->shape[i] == 0)
			return;
	for (int i = t->ndim - 3; i >= 0; i--) {
		p->slice[i] += delta;
		if (p->slice[i] >= 0 && p->slice[i] < t->shape[i])
			return;
		p->slice[i] = delta > 0 ? 0 : t->shape[i] - 1;	/* and carry */
	}
}

static void move_cursor(struct prompt *p, const struct tensor *t, int dr, int dc)
{
	int64_t rows, cols;
	matrix_size(t, &rows, &cols);
	int64_t r = p->cur_r + dr, c = p->cur_c + dc;
	p->cur_r = (int)(r < 0 ? 0 : r >= rows ? (rows > 0 ? rows - 1 : 0) : r);
	p->cur_c = (int)(c < 0 ? 0 : c >= cols ? (cols > 0 ? cols - 1 : 0) : c);
}

/* The keys of the view while it has the focus: Tab gives it back to the
 * line; false for a key that is not the view's (it goes to the line). */
bool prompt_view_key(struct app *a, int ch)
{
	struct prompt *p = &a->prompt;
	const struct tensor *t = shown_tensor(p);
	if (ch == '\t' && (t || p->view_focus)) {
		p->view_focus = !p->view_focus && t;
		return true;
	}
	if (!t)
		return false;
	if (ch == 'E' || (ch == 'e' && !p->loops)) {	/* the loops' e runs them to the end */
		exportkey_value(a);
		return true;
	}
	if (p->loops && loops_key(a, &p->anim, ch))
		return true;
	switch (ch) {
	case KEY_UP: case 'k': move_cursor(p, t, -1, 0); return true;
	case KEY_DOWN: case 'j': move_cursor(p, t, 1, 0); return true;
	case KEY_LEFT: case 'h': move_cursor(p, t, 0, -1); return true;
	case KEY_RIGHT: case 'l': move_cursor(p, t, 0, 1); return true;
	case '+': case '=': if (a->zoom < 2) a->zoom++; return true;
	case '-': if (a->zoom > -2) a->zoom--; return true;
	case ']': step_slice(p, t, 1); return true;
	case '[': step_slice(p, t, -1); return true;
	case 'b': a->big = !a->big; return true;
	}
	return false;
}

/* "X  (2×3, float32)": the name (or "value"), the shape, the dtype. */
static void value_title(const struct prompt *p, const struct tensor *t, char *buf, size_t size)
{
	char dims[96];
	utf8_snprintf(buf, size, "%s  (%s, %s)", p->shown_name[0] ? p->shown_name : "value",
		      tensor_dims_str(dims, sizeof dims, t), dtype_name(t->dtype));
}

/* The title line of the view: the value's title, and what Tab does. */
static void draw_title(struct app *a, const struct tensor *t, const char *what, int y, int x, int w)
{
	struct prompt *p = &a->prompt;
	char title[600], hint[160];
	value_title(p, t, title, sizeof title);
	size_t n = strlen(title);
	utf8_snprintf(title + n, sizeof title - n, "%s", what);
	const char *back = "   (Tab: back to the line)";
	if (p->view_focus)
		snprintf(hint, sizeof hint, "%s  %s: export", back, p->loops ? "E" : "e");
	else
		snprintf(hint, sizeof hint, "   (Tab on an empty line: %s)", p->loops ? "its keys" : "the cursor");
	attron(p->view_focus ? A_BOLD | A_UNDERLINE : A_BOLD);
	term_put(y, x, title, w);
	attroff(A_BOLD | A_UNDERLINE);
	int tw = term_width_of(title);
	if (p->view_focus && tw + term_width_of(hint) > w)
		snprintf(hint, sizeof hint, "%s", back);	/* without the export key */
	if (tw + term_width_of(hint) <= w) {
		attron(A_DIM);
		term_put(y, x + tw, hint, w - tw);
		attroff(A_DIM);
	}
}

void prompt_view_forget(struct prompt *p)
{
	if (p->heat_built)
		heatmap_free(&p->heat);
	p->heat_built = false;
	p->heat_of = NULL;
}

/* The model of the slice of t shown: the one kept from the frame before
 * while it is of the same tensor and slice (reading and copying every cell
 * of a 2048x2048 value took 100 ms and more for each key), else built. */
static const struct heatmap *shown_heatmap(struct prompt *p, const struct tensor *t)
{
	if (p->heat_built && (p->heat_of != t || p->heat_slice[0] != p->slice[0] || p->heat_slice[1] != p->slice[1]))
		prompt_view_forget(p);
	if (!p->heat_built) {
		heatmap_build(&p->heat, t, p->slice, 2, NULL, 0, NULL, 0, SCALE_AUTO);
		p->heat_built = true;
		p->heat_of = t;
		memcpy(p->heat_slice, p->slice, sizeof p->heat_slice);
	}
	heatmap_set_name(&p->heat, p->shown_name);	/* (the name may come after the value) */
	return &p->heat;
}

/* The shown tensor as a heatmap in w x h from y: its slice when it has
 * more than 2 dims, the cursor's cell and the inspector under it. */
static void draw_tensor(struct app *a, const struct tensor *t, int y, int x, int w, int h)
{
	struct prompt *p = &a->prompt;
	int end = y + h;
	draw_title(a, t, "", y++, x, w);
	const struct heatmap *hm = shown_heatmap(p, t);
	move_cursor(p, t, 0, 0);	/* within the matrix */
	if (hm->slice_name[0] && y < end) {
		char sl[160];
		if (heatmap_slice_count(t) > 1)
			snprintf(sl, sizeof sl, "%s   ([ ] to change%s)", hm->slice_name, p->view_focus ? "" : ", with Tab");
		else
			snprintf(sl, sizeof sl, "%s", hm->slice_name);	/* the only one */
		term_put(y++, x, sl, w);
	}
	int insp = end - y >= 12 ? 4 : end - y >= 7 ? 2 : 0;
	struct heatmap_layout L;
	heatmap_layout(hm, draw_heatmap_ink(a), w, end - y - insp, a->zoom, a->big, p->cur_r, p->cur_c, &L);
	draw_heatmap(a, hm, y, x, end - y - insp, w, p->cur_r, p->cur_c, true, a->zoom, a->big);
	p->heat_drawn = true;	/* the e key exports its numbers as drawn */
	p->heat_layout = L;
	if (insp) {
		/* the inspector right under the grid */
		char name[sizeof p->shown_name + 2];
		bool bare = p->shown_name[0] && !strpbrk(p->shown_name, " +-*/@%<>=!&|~^");
		snprintf(name, sizeof name, bare ? "%s" : "(%s)", p->shown_name[0] ? p->shown_name : "value");
		struct strbuf sb;
		strbuf_init(&sb);
		inspect_cell(&sb, t, name, cursor_flat(p, t), w);
		int iy = y + (L.height > 0 ? L.height : 1);
		draw_wrapped(sb.s, iy, x, w, end - iy < insp ? end - iy : insp, 0, A_BOLD);
		strbuf_free(&sb);
	}
}

void prompt_draw_view(struct app *a, int y, int x, int w, int h)
{
	struct prompt *p = &a->prompt;
	p->heat_drawn = false;
	if (p->listing) {
		draw_lines(p->listing, y, x, w, h, 0);
		return;
	}
	int used = 0;
	char *now = prompt_running_output();
	if (now) {
		/* what the statement that runs has printed so far: its last lines */
		int total = 0;
		for (const char *c = now; *c; c++)
			total += *c == '\n';
		draw_lines(now, y, x, w, h, total > h ? total - h : 0);
		free(now);
		return;
	}
	if (p->out && *p->out) {
		/* the printed text, at most half the pane: its last lines */
		int total = 0;
		for (const char *c = p->out; *c; c++)
			total += *c == '\n' || !c[1];
		int room = p->shown ? h / 2 : h;
		int skip = total > room ? total - room : 0;
		draw_lines(p->out, y, x, w, room, skip);
		used = total - skip;
	}
	if (!p->shown) {
		if (!used)
			term_put(y, x, "Type a statement; :help lists the commands.", w);
		return;
	}
	int top = y + used + (used ? 1 : 0);
	int left = h - (top - y);
	const struct tensor *t = p->shown->t;
	if (!t) {
		/* a value that is not a tensor (`X.shape`, a list, a number): its
		 * text under its name, as a tensor's heatmap is, so that no older
		 * heatmap stays as if it were the value just typed */
		attron(A_BOLD);
		term_put(top, x, p->shown_name[0] ? p->shown_name : "value", w);
		attroff(A_BOLD);
		if (left > 1) {
			/* at most what the lines can hold (4 bytes a column at most),
			 * cut at a character: the text of a list of a million is not
			 * wrapped whole at each key, and its cut still ends in "…" */
			const char *text = p->shown->text;
			size_t room = (size_t)left * (size_t)(w > 0 ? w : 1) * 4 + 4, n = strnlen(text, room + 1);
			struct strbuf cut;
			strbuf_init(&cut);
			if (n > room) {
				while (room > 0 && ((unsigned char)text[room] & 0xC0) == 0x80)
					room--;
				strbuf_putn(&cut, text, room);
				text = cut.s;
			}
			draw_wrapped(text, top + 1, x, w, left - 1, 0, 0);
			strbuf_free(&cut);
		}
	} else if (p->loops) {
		/* :show EXPR loops: the lesson's loops view, with the comparison's
		 * numbers and verdict (lesson/compare's) */
		const struct compare *c = p->loops;
		draw_title(a, t, ": loops, unrolled, vectorised", top, x, w);
		struct loops_view lv = { .t = c->simd, .expr = p->shown_name, .loops_ms = c->loops_ms,
					 .simd_ms = c->simd_ms, .max_diff = c->max_diff, .agree = c->agree,
					 .unrolled_ms = c->unrolled_ms, .unrolled_diff = c->unrolled_diff,
					 .unrolled_agree = c->unrolled_agree, .scale = SCALE_AUTO,
					 .cursor = p->view_focus, .cur_r = p->cur_r, .cur_c = p->cur_c };
		loops_draw(a, &p->anim, &lv, top + 1, x, w, left - 1);
	} else {
		draw_tensor(a, t, top, x, w, left);
	}
}
