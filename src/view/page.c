/* page.c: the page of a lesson step (see page.h): its blocks built from the
 * lesson and the player's result, and their layout at a width. The full
 * screen (ui/screen.c) and `qkv run --plain` (text/render.c) both paint
 * page_layout's lines, so they print the same code output. Never draws. */
#include "view/page.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "lesson/exercise.h"
#include "lesson/statements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_block(struct page *pg, enum page_style style, const char *text, size_t n)
{
	pg->blocks = xrealloc(pg->blocks, sizeof *pg->blocks * (size_t)(pg->nblocks + 1));
	char *t = xmalloc(n + 1);
	memcpy(t, text, n);
	t[n] = 0;
	pg->blocks[pg->nblocks++] = (struct page_block){ style, t, false };
}

/* Each line of a statement's output as a block of its own. */
static void add_output(struct page *pg, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		add_block(pg, PAGE_OUTPUT, text, n);
		text += n + (nl != NULL);
	}
}

static void add_text(struct page *pg, enum page_style style, const char *text)
{
	add_block(pg, style, text, strlen(text));
}

static const char *const kind_names[] = { "heatmap", "loops beside SIMD", "token view", "timing" };

bool page_shown_ready(const struct shown *sh)
{
	switch (sh->show->kind) {
	case SHOW_HEATMAP:
	case SHOW_TOKENS:
		return sh->t != NULL;
	case SHOW_COMPARE:
		return sh->t != NULL && sh->loops != NULL;
	case SHOW_TIMING:
		return sh->timing_ms != NULL;
	}
	return false;
}

void page_build(struct page *pg, struct player *p, int k)
{
	page_build_exercises(pg, p, k, NULL, NULL);
}

void page_build_exercises(struct page *pg, struct player *p, int k, const bool *solved, const char *how)
{
	const struct lesson *l = player_lesson(p);
	const struct step *st = &l->steps[k];
	bool running = player_running(p) == k;	/* its result is being made: not read */
	const struct step_result *r = running ? NULL : player_result(p, k);
	memset(pg, 0, sizeof *pg);
	pg->lesson = l;
	pg->step = k;
	pg->nsteps = l->nsteps;
	pg->title = st->title;
	pg->state = running ? STEP_NOT_RUN : player_state(p, k);
	for (int i = 0; i < st->ntext; i++)
		add_text(pg, PAGE_TEXT, st->text[i]);
	/* each statement's output under the line it ends on; what is left after
	 * the last line (none should be) under it */
	int piece = 0;
	bool *cont = xcalloc((size_t)st->nlines + 1, sizeof *cont);
	statements_mark_continued(st->code, st->nlines, cont);
	for (int i = 0; i < st->nlines; i++) {
		add_text(pg, PAGE_CODE, st->lines[i].text);
		pg->blocks[pg->nblocks - 1].continued = cont[i];
		while (r && piece < r->npieces && (r->pieces[piece].line <= i + 1 || i == st->nlines - 1))
			add_output(pg, r->pieces[piece++].text);
	}
	free(cont);
	char status[sizeof ((struct qkv_error *)0)->msg + 64];
	status[0] = 0;
	if (pg->state == STEP_FAILED)
		snprintf(status, sizeof status, "This step's code failed: %s", player_failure(p));
	else if (pg->state == STEP_BLOCKED)
		snprintf(status, sizeof status, "(Not run: step %d failed.)", player_failed_step(p) + 1);
	else if (running)
		snprintf(status, sizeof status, "(Running\u2026 Ctrl-C cancels it.)");
	else if (pg->state == STEP_NOT_RUN && player_ran(p) == k)
		snprintf(status, sizeof status, "(Cancelled with Ctrl-C before it finished: this step has not run. "
			 "Enter runs it.)");
	else if (pg->state == STEP_NOT_RUN)
		snprintf(status, sizeof status, "(Not run yet.)");
	if (status[0])
		add_text(pg, PAGE_STATUS, status);
	for (int e = 0; e < st->nexercises; e++) {
		struct strbuf ex;
		strbuf_init(&ex);
		strbuf_printf(&ex, "%s %s%s: %s", solved && solved[e] ? "\u2713" : "\u270e",
			      exercise_kind(&st->exercises[e]), solved && solved[e] ? " (solved)" : "",
			      st->exercises[e].ask);
		add_text(pg, PAGE_EXERCISE, ex.s);
		strbuf_free(&ex);
	}
	if (how && st->nexercises)
		add_text(pg, PAGE_EXERCISE, how);
	for (int i = 0; i < st->nnote; i++) {
		struct strbuf note;
		strbuf_init(&note);
		strbuf_printf(&note, "%s%s", i == 0 ? "Note: " : "", st->note[i]);
		add_text(pg, PAGE_NOTE, note.s);
		strbuf_free(&note);
	}
	int nviews = r ? r->nshown : 0;
	pg->views = xcalloc((size_t)nviews + 1, sizeof *pg->views);
	for (int i = 0; i < nviews; i++) {
		const struct shown *sh = &r->shown[i];
		if (!page_shown_ready(sh))
			continue;
		struct page_view *v = &pg->views[pg->nviews++];
		const struct show *s = sh->show;
		v->show = s;
		v->shown = sh;
		v->cancelled = sh->cancelled;
		snprintf(v->kind, sizeof v->kind, "%s", kind_names[s->kind]);
		snprintf(v->what, sizeof v->what, "%s", s->title ? s->title : s->expr ? s->expr :
			 s->kind == SHOW_TIMING ? "how long each takes" : "");
	}
}

void page_free(struct page *pg)
{
	for (int i = 0; i < pg->nblocks; i++)
		free(pg->blocks[i].text);
	free(pg->blocks);
	free(pg->views);
	memset(pg, 0, sizeof *pg);
}

int page_notes_start(const struct page *pg)
{
	int i = pg->nblocks;
	while (i > 0 && pg->blocks[i - 1].style == PAGE_NOTE)
		i--;
	return i;
}

/* ---- layout -------------------------------------------------------------------- */

static void put_line(struct page_lines *out, enum page_style style, int block, const char *s, size_t n)
{
	out->lines = xrealloc(out->lines, sizeof *out->lines * (size_t)(out->n + 1));
	char *t = xmalloc(n + 1);
	memcpy(t, s, n);
	t[n] = 0;
	out->lines[out->n++] = (struct page_line){ style, block, t };
}

/* Whether the space at p lies inside a short `inline code` span of the line
 * [start, end): backquotes pair up in order; a span of up to 40 characters
 * stays on one line, a longer one may break at its spaces. */
static bool in_short_code(const char *start, const char *end, const char *p)
{
	const char *open = NULL;
	for (const char *q = start; q < end; q++) {
		if (*q != '`')
			continue;
		if (!open) {
			open = q;
		} else {
			if (p > open && p < q)
				return q - open <= 40;
			open = NULL;
		}
	}
	return false;
}

/* Narration and notes: each line of text wrapped at spaces (never inside a
 * short code span) to width, every line indent columns in; a word wider
 * than the line stays whole on a line of its own. */
static void lay_prose(struct page_lines *out, enum page_style style, int block, const char *text, int indent,
		      int width)
{
	if (!*text)
		return;
	struct strbuf line;
	strbuf_init(&line);
	int avail = width - indent;
	const char *p = text;
	do {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *start = p;
		int col = 0;
		strbuf_reset(&line);
		strbuf_pad(&line, ' ', (size_t)indent);
		while (p < end) {
			while (p < end && *p == ' ')
				p++;
			const char *w = p;
			while (p < end && (*p != ' ' || in_short_code(start, end, p)))
				p++;
			int ww = utf8_width_n(w, (size_t)(p - w));
			if (p == w)
				break;
			if (col > 0 && col + 1 + ww > avail) {
				put_line(out, style, block, line.s, line.len);
				strbuf_reset(&line);
				strbuf_pad(&line, ' ', (size_t)indent);
				col = 0;
			} else if (col > 0) {
				strbuf_putc(&line, ' ');
				col++;
			}
			strbuf_putn(&line, w, (size_t)(p - w));
			col += ww;
		}
		put_line(out, style, block, line.s ? line.s : "", line.len);
		p = nl ? nl + 1 : end;
	} while (*p);
	strbuf_free(&line);
}

/* ">>> code" (or "... code" for a line that continues a statement), broken
 * at a space (or anywhere) so no line passes width; the rest continues
 * after "... ", as a REPL shows continued lines. */
static void lay_code(struct page_lines *out, int block, const char *code, bool continued, int width)
{
	struct strbuf line;
	strbuf_init(&line);
	const char *p = code, *prompt = continued ? "... " : ">>> ";
	int avail = width - 4 > 8 ? width - 4 : 8;
	do {
		size_t n = strlen(p), take = n, skip = 0;
		if (utf8_width(p) > avail) {
			take = utf8_cut(p, avail, NULL);
			if (take == 0)	/* a character wider than the line */
				take = (size_t)utf8_decode(p, n, &(uint32_t){ 0 });
			/* break at the last space in the second half, which neither line keeps */
			for (size_t i = take; i-- > 0 && utf8_width_n(p, i) > avail / 2;) {
				if (p[i] == ' ') {
					take = i;
					skip = 1;
					break;
				}
			}
		}
		strbuf_reset(&line);
		strbuf_puts(&line, prompt);
		strbuf_putn(&line, p, take);
		put_line(out, PAGE_CODE, block, line.s, line.len);
		p += take + skip;
		prompt = "... ";
	} while (*p);
	strbuf_free(&line);
}

/* A printed line with tabs expanded to 8-column stops; one over width + 2
 * columns is wrapped at spaces, continuing 4 columns in (torch's own lines,
 * which may end a bracket or two past 80, stay whole). */
static void lay_output(struct page_lines *out, int block, const char *text, int width)
{
	struct strbuf ex;
	strbuf_init(&ex);
	int col = 0;
	for (const char *p = text; *p;) {
		if (*p == '\t') {
			int to = (col / 8 + 1) * 8;
			strbuf_pad(&ex, ' ', (size_t)(to - col));
			col = to;
			p++;
			continue;
		}
		uint32_t cp;
		int n = utf8_decode(p, strlen(p), &cp);
		strbuf_putn(&ex, p, (size_t)n);
		col += utf8_cp_width(cp);
		p += n;
	}
	if (col <= width + 2) {
		put_line(out, PAGE_OUTPUT, block, ex.s ? ex.s : "", ex.len);
		strbuf_free(&ex);
		return;
	}
	/* hanging wrap: words to width, later lines 4 columns in */
	struct strbuf line;
	strbuf_init(&line);
	const char *p = ex.s;
	int lc = 0;
	size_t pending = 0;	/* spaces before the next word, written only if it fits */
	while (*p) {
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		int ww = utf8_width_n(w, (size_t)(p - w));
		if (lc > 4 && lc + (int)pending + ww > width) {
			put_line(out, PAGE_OUTPUT, block, line.s, line.len);
			strbuf_reset(&line);
			strbuf_pad(&line, ' ', 4);
			lc = 4;
		} else {
			strbuf_pad(&line, ' ', pending);
			lc += (int)pending;
		}
		strbuf_putn(&line, w, (size_t)(p - w));
		lc += ww;
		pending = 0;
		while (*p == ' ') {
			p++;
			pending++;
		}
	}
	put_line(out, PAGE_OUTPUT, block, line.s ? line.s : "", line.len);
	strbuf_free(&line);
	strbuf_free(&ex);
}

void page_layout_text(struct page_lines *out, const char *text, int indent, int width)
{
	lay_prose(out, PAGE_TEXT, -1, text, indent, width);
}

void page_layout(const struct page *pg, int from, int to, int width, struct page_lines *out)
{
	if (to < 0 || to > pg->nblocks)
		to = pg->nblocks;
	if (width < 10)
		width = 10;
	for (int b = from; b < to; b++) {
		const struct page_block *bl = &pg->blocks[b];
		enum page_style prev = b > 0 ? pg->blocks[b - 1].style : PAGE_BLANK;
		bool code = bl->style == PAGE_CODE || bl->style == PAGE_OUTPUT;
		bool first_code = code && prev != PAGE_CODE && prev != PAGE_OUTPUT;
		bool first_exercise = bl->style == PAGE_EXERCISE && prev != PAGE_EXERCISE;
		if ((bl->style == PAGE_TEXT && b > 0) || first_code || first_exercise || bl->style == PAGE_STATUS ||
		    bl->style == PAGE_NOTE)
			put_line(out, PAGE_BLANK, -1, "", 0);
		switch (bl->style) {
		case PAGE_TEXT:
		case PAGE_STATUS:
		case PAGE_EXERCISE:
			lay_prose(out, bl->style, b, bl->text, 0, width);
			break;
		case PAGE_NOTE:
			lay_prose(out, bl->style, b, bl->text, 2, width);
			break;
		case PAGE_CODE:
			lay_code(out, b, bl->text, bl->continued, width);
			break;
		case PAGE_OUTPUT:
			lay_output(out, b, bl->text, width);
			break;
		case PAGE_BLANK:
			put_line(out, PAGE_BLANK, b, "", 0);
			break;
		}
	}
}

void page_lines_free(struct page_lines *out)
{
	for (int i = 0; i < out->n; i++)
		free(out->lines[i].text);
	free(out->lines);
	out->lines = NULL;
	out->n = 0;
}
