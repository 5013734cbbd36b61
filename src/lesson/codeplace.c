/* codeplace.c: the lesson-wide numbering of a lesson's code (codeplace.h)
 * and the places in the file its lines and tracebacks name. The blocks are
 * walked in one order everywhere: steps, then timing entries, then
 * solutions. */
#include "lesson/codeplace.h"
#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct block {
	const struct code_line *lines;
	int nlines;          /* 0 for a step without code */
	int step;            /* the step whose code it is, or -1 */
	char path[160];      /* "steps[3].code" */
};

/* Calls visit on each block with its first line, lesson-wide, until it
 * returns true; whether one did. */
typedef bool (*visit_fn)(const struct block *b, int first, void *ctx);

static bool visit_one(struct block *b, int *first, visit_fn visit, void *ctx)
{
	if (visit(b, *first, ctx))
		return true;
	*first += b->nlines;
	return false;
}

static bool walk(const struct lesson *l, visit_fn visit, void *ctx)
{
	int first = 1;
	struct block b;
	for (int i = 0; i < l->nsteps; i++) {
		const struct step *st = &l->steps[i];
		b = (struct block){ st->lines, *st->code ? st->nlines : 0, i, "" };
		snprintf(b.path, sizeof b.path, "%s.code", st->path);
		if (visit_one(&b, &first, visit, ctx))
			return true;
	}
	for (int i = 0; i < l->nsteps; i++)
		for (int j = 0; j < l->steps[i].nshows; j++) {
			const struct show *s = &l->steps[i].shows[j];
			for (int k = 0; k < s->ntimings; k++) {
				b = (struct block){ s->timings[k].lines, s->timings[k].nlines, -1, "" };
				snprintf(b.path, sizeof b.path, "%s.timing[%d].code", s->path, k);
				if (visit_one(&b, &first, visit, ctx))
					return true;
			}
		}
	for (int i = 0; i < l->nsteps; i++)
		for (int j = 0; j < l->steps[i].nexercises; j++) {
			const struct exercise *x = &l->steps[i].exercises[j];
			b = (struct block){ x->solution_lines, x->nsolution, -1, "" };
			snprintf(b.path, sizeof b.path, "%s.solution", x->path);
			if (visit_one(&b, &first, visit, ctx))
				return true;
		}
	return false;
}

void codeplace_steps_code(const struct lesson *l, struct strbuf *out)
{
	bool first = true;
	for (int i = 0; i < l->nsteps; i++) {
		if (!*l->steps[i].code)
			continue;	/* no lines (walk) */
		if (!first)
			strbuf_putc(out, '\n');
		strbuf_puts(out, l->steps[i].code);
		first = false;
	}
}

/* ---- a block's first line ---------------------------------------------------------------- */

struct first_of {
	const struct code_line *lines;
	int first;
};

static bool is_block(const struct block *b, int first, void *ctx)
{
	struct first_of *f = ctx;
	if (b->lines != f->lines || !b->nlines)
		return false;
	f->first = first;
	return true;
}

int codeplace_first_line(const struct lesson *l, const struct code_line *lines)
{
	struct first_of f = { lines, 1 };
	walk(l, is_block, &f);
	return f.first;
}

/* ---- the block of a line ----------------------------------------------------------------- */

struct line_of {
	int line;
	struct block b;
	int k;
	bool found;
};

static bool holds_line(const struct block *b, int first, void *ctx)
{
	struct line_of *f = ctx;
	if (f->line < first || f->line >= first + b->nlines)
		return false;
	f->b = *b;
	f->k = f->line - first;
	f->found = true;
	return true;
}

static bool block_of(const struct lesson *l, int line, struct line_of *f)
{
	*f = (struct line_of){ .line = line };
	return walk(l, holds_line, f) && f->found;
}

/* The path of line k of b: code given as an array names its element (and
 * the line in it when the element has several); one string with several
 * lines names the line. */
static char *line_path(const struct block *b, int k)
{
	struct strbuf p;
	strbuf_init(&p);
	strbuf_puts(&p, b->path);
	const struct code_line *ln = b->lines;
	if (b->nlines > 1 && ln[0].str_off != ln[b->nlines - 1].str_off) {
		int elem = 0, start = 0;
		for (int i = 1; i <= k; i++)
			if (ln[i].str_off != ln[i - 1].str_off) {
				elem++;
				start = i;
			}
		strbuf_printf(&p, "[%d]", elem);
		if (k > start || (k + 1 < b->nlines && ln[k + 1].str_off == ln[k].str_off))
			strbuf_printf(&p, " (line %d)", k - start + 1);
	} else if (b->nlines > 1) {
		strbuf_printf(&p, " (line %d)", k + 1);
	}
	return strbuf_detach(&p);
}

bool codeplace_find(const struct lesson *l, int line, int col, struct loc *at, char **path, int *step)
{
	struct line_of f;
	if (!block_of(l, line, &f))
		return false;
	*at = lesson_code_loc(l, f.b.lines, f.b.nlines, f.k, col);
	*path = line_path(&f.b, f.k);
	if (step)
		*step = f.b.step;
	return true;
}

int codeplace_indent_col(const struct lesson *l, int line)
{
	struct line_of f;
	if (!block_of(l, line, &f))
		return 1;
	const char *s = f.b.lines[f.k].text;
	return (int)strspn(s, " \t") + 1;
}

/* ---- tracebacks -------------------------------------------------------------------------- */

static const char entry_start[] = "\n  line ";

bool codeplace_has_traceback(const char *msg)
{
	return strstr(msg, entry_start) != NULL;
}

void codeplace_traceback(const struct lesson *l, const char *msg, int err_line, int col, struct strbuf *out)
{
	const char *tb = strstr(msg, entry_start);
	if (!tb) {
		strbuf_puts(out, msg);
		return;
	}
	strbuf_putn(out, msg, (size_t)(tb - msg));
	while (tb) {
		const char *next = strstr(tb + 1, entry_start);
		size_t len = next ? (size_t)(next - tb) : strlen(tb);
		int line, n = 0;
		struct loc at;
		char *path;
		bool innermost = !next;
		if (sscanf(tb, "\n  line %d, in %n", &line, &n) == 1 && n > 0 &&
		    codeplace_find(l, line, innermost && line == err_line && col > 0 ? col : codeplace_indent_col(l, line),
				   &at, &path, NULL)) {
			strbuf_printf(out, "\n  %s:%d:%d: %s, in ", l->name, at.line, at.col, path);
			strbuf_putn(out, tb + n, len - (size_t)n);
			free(path);
		} else {
			strbuf_putn(out, tb, len);
		}
		tb = next;
	}
}

int codeplace_error(const struct lesson *l, const struct qkv_error *e, int stmt_line, const char *path,
		    struct qkv_error *err)
{
	int line = e->line, col = e->col;
	if (codeplace_has_traceback(e->msg)) {
		line = stmt_line;
		col = codeplace_indent_col(l, line);
	}
	struct loc at = { 0, 0 };
	char *p = NULL;
	if (!codeplace_find(l, line, col, &at, &p, NULL))
		p = path ? xstrdup(path) : NULL;
	struct strbuf msg;
	strbuf_init(&msg);
	codeplace_traceback(l, e->msg, e->line, e->col, &msg);
	lesson_error(l, at, p, err, "%s", msg.s ? msg.s : "");
	strbuf_free(&msg);
	free(p);
	return -1;
}
