/* errline.c: the line of source an error is about, with the caret under its
 * column: a statement's own line, or, for an error raised inside a function,
 * the function's line its traceback ends on, found among the sources that
 * ran (view/errline.h). Used by cli/caret.c (printed) and ui/prompt.c
 * (drawn, fitted to the screen); reads only the text it is given. */
#include "view/errline.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line k (0-based) of src (len bytes): its start, *n its bytes without the
 * '\n' (an empty line after a last '\n'); NULL for k < 0 or past that. */
static const char *nth_line(const char *src, size_t len, int k, size_t *n)
{
	const char *p = src, *end = src + len;
	if (k < 0)
		return NULL;
	for (; k > 0; k--) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	const char *e = memchr(p, '\n', (size_t)(end - p));
	*n = (size_t)((e ? e : end) - p);
	return p;
}

bool errline_at(struct errline *e, const char *src, size_t len, int first_line, int line, int col)
{
	size_t n;
	const char *p = nth_line(src, len, line - first_line, &n);
	if (!p)
		return false;
	*e = (struct errline){ p, n, col };
	return true;
}

/* The columns of indentation of line p (n bytes), or -1 for a line that
 * is blank or only a comment. */
static int indentation(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i == n || p[i] == '#' ? -1 : (int)i;
}

/* Whether line p (n bytes, indentation ind) is "def NAME(...". */
static bool defines(const char *p, size_t n, int ind, const char *name)
{
	size_t nl = strlen(name);
	p += ind;
	n -= (size_t)ind;
	if (n < 4 + nl || strncmp(p, "def", 3) != 0 || (p[3] != ' ' && p[3] != '\t'))
		return false;
	size_t i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (n - i < nl || strncmp(p + i, name, nl) != 0)
		return false;
	for (i += nl; i < n && (p[i] == ' ' || p[i] == '\t'); i++)
		;
	return i < n && p[i] == '(';
}

/* Whether line `line` of s lies in a function called name: a lambda on
 * that line, or a "def name(" on it or on the first line above it that is
 * indented less than everything between them. */
static bool in_function(const struct errline_source *s, int line, const char *name)
{
	size_t n;
	const char *p = nth_line(s->text, s->len, line - s->first_line, &n);
	if (!p)
		return false;
	if (strcmp(name, "<lambda>") == 0) {
		for (size_t i = 0; i + 6 <= n; i++)
			if (strncmp(p + i, "lambda", 6) == 0)
				return true;
		return false;
	}
	int least = indentation(p, n);
	if (least < 0)
		return false;
	if (defines(p, n, least, name))
		return true;	/* def f(x): return ... */
	for (int l = line - s->first_line - 1; l >= 0 && least > 0; l--) {
		p = nth_line(s->text, s->len, l, &n);
		int ind = indentation(p, n);
		if (ind < 0 || ind >= least)
			continue;
		if (defines(p, n, ind, name))
			return true;
		least = ind;	/* a block the line is in: its function is further up */
	}
	return false;
}

bool errline_defines(const struct errline_source *s, int line, const char *name)
{
	return in_function(s, line, name);
}

bool errline_in_function(struct errline *e, const struct errline_source *sources, int nsources,
			 enum errline_pick pick, const struct qkv_error *err)
{
	/* the traceback's last entry, "\n  line L, in NAME": where it was raised */
	const char *last = NULL;
	for (const char *t = strstr(err->msg, "\n  line "); t; t = strstr(t + 1, "\n  line "))
		last = t;
	int line;
	char name[128];
	if (!last || sscanf(last, "\n  line %d, in %127[^\n]", &line, name) != 2 || line != err->line ||
	    err->col < 1)
		return false;
	/* the source that defines it there (lines of several may be numbered alike) */
	const struct errline_source *found = NULL;
	for (int i = 0; i < nsources; i++) {
		if (!in_function(&sources[i], line, name))
			continue;
		if (found && pick == ERRLINE_ONLY)
			return false;	/* which one, no one can tell */
		found = &sources[i];
	}
	if (!found)
		return false;
	/* the line without its indentation, as Python's traceback shows it */
	size_t n;
	const char *p = nth_line(found->text, found->len, line - found->first_line, &n);
	int ind = indentation(p, n);
	ind = ind > 0 && ind < err->col ? ind : 0;
	*e = (struct errline){ p + ind, n - (size_t)ind, err->col - ind };
	return true;
}

void errline_caret_pad(struct strbuf *pad, const struct errline *e)
{
	size_t k = e->col > 1 ? (size_t)e->col - 1 : 0;
	size_t at = utf8_offset_n(e->text, e->len, k);
	for (size_t i = 0; i < at;) {
		uint32_t cp;
		int m = utf8_decode(e->text + i, at - i, &cp);
		if (cp == '\t')
			strbuf_putc(pad, '\t');
		else
			strbuf_pad(pad, ' ', (size_t)utf8_cp_width(cp));
		i += (size_t)m;
	}
	strbuf_pad(pad, ' ', k - utf8_count_n(e->text, at));	/* past the end of the line */
}

/* A character of the line as fitted: its bytes in the expanded line, and
 * its columns. */
struct cell {
	size_t at, n;
	int x, w;
};

#define FIT_INDENT 4

void errline_fit(const struct errline *e, int width, struct strbuf *row, struct strbuf *caret_row)
{
	static const char more[] = "\u2026";
	int indent = width >= 3 * FIT_INDENT ? FIT_INDENT : 0;
	int avail = width - indent;
	if (avail < 1)
		return;
	/* the line with its tabs as blanks, a cell a character; the caret's column */
	struct strbuf ex;
	strbuf_init(&ex);
	struct cell *cells = NULL;
	int ncells = 0, cap = 0, x = 0, cc = -1;
	size_t k = e->col > 1 ? (size_t)e->col - 1 : 0, nchars = 0;
	for (size_t i = 0; i < e->len; nchars++) {
		uint32_t cp;
		int m = utf8_decode(e->text + i, e->len - i, &cp);
		if (nchars == k)
			cc = x;
		int w = cp == '\t' ? 8 - (FIT_INDENT + x) % 8 : utf8_cp_width(cp);
		for (int part = 0; part < (cp == '\t' ? w : 1); part++) {
			if (ncells == cap) {
				cap = cap ? 2 * cap : 64;
				cells = xrealloc(cells, sizeof *cells * (size_t)cap);
			}
			cells[ncells++] = (struct cell){ ex.len, cp == '\t' ? 1 : (size_t)m, x, cp == '\t' ? 1 : w };
			if (cp == '\t')
				strbuf_putc(&ex, ' ');
			else
				strbuf_putn(&ex, e->text + i, (size_t)m);
			x += cp == '\t' ? 1 : w;
		}
		i += (size_t)m;
	}
	int L = x;
	if (cc < 0)
		cc = L + (int)(k - nchars);	/* past the end of the line */
	/* the columns [a, b) of it shown, "…" before a > 0 and after b < L */
	int E = cc + 1 > L ? cc + 1 : L, a = 0, b = L;
	if (E > avail && avail >= 3) {
		if (cc + 1 <= avail - 1) {
			b = avail - 1;
		} else if (E - (avail - 1) <= cc) {
			a = E - (avail - 1);
		} else {
			a = cc - (avail - 2) / 2;
			b = a + avail - 2;
		}
	} else if (E > avail) {
		a = cc;	/* room for the caret's character only */
		b = cc + 1;
	}
	bool left = a > 0, right = b < L && avail >= 3;
	strbuf_pad(row, ' ', (size_t)indent);
	if (left)
		strbuf_puts(row, more);
	int drawn = a;
	for (int i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		if (c->x < a || c->x + c->w > b)
			continue;
		strbuf_pad(row, ' ', (size_t)(c->x - drawn));	/* a wide one cut at the left */
		strbuf_putn(row, ex.s + c->at, c->n);
		drawn = c->x + c->w;
	}
	if (right) {
		strbuf_pad(row, ' ', (size_t)(b - drawn));	/* a wide one cut at the right */
		strbuf_puts(row, more);
	}
	strbuf_pad(caret_row, ' ', (size_t)(indent + left + cc - a));
	strbuf_putc(caret_row, '^');
	free(cells);
	strbuf_free(&ex);
}
