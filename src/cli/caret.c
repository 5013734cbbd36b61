/* caret.c: the line of source an error is about, with a caret under its
 * column, on stderr, for qkv repl and qkv eval (cli.h): the statement's own
 * line, or, for an error raised inside a function, the function's line the
 * traceback ends on, found among the sources the command ran. Prints only
 * to stderr; reads nothing but the text it is given. */
#include "cli/cli.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/utf8.h"

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

void cli_show_caret(const char *src, size_t len, int first_line, int line, int col, bool echo)
{
	size_t n;
	const char *p = nth_line(src, len, line - first_line, &n);
	if (!p)
		return;
	if (echo)
		fprintf(stderr, "    %.*s\n", (int)n, p);
	size_t k = col > 1 ? (size_t)col - 1 : 0;
	size_t at = utf8_offset_n(p, n, k);
	struct strbuf pad;
	strbuf_init(&pad);
	strbuf_puts(&pad, "    ");
	for (size_t i = 0; i < at;) {
		uint32_t cp;
		int m = utf8_decode(p + i, at - i, &cp);
		if (cp == '\t')
			strbuf_putc(&pad, '\t');
		else
			for (int w = utf8_cp_width(cp); w > 0; w--)
				strbuf_putc(&pad, ' ');
		i += (size_t)m;
	}
	for (size_t rest = k - utf8_count_n(p, at); rest > 0; rest--)
		strbuf_putc(&pad, ' ');	/* past the end of the line */
	fprintf(stderr, "%s^\n", pad.s);
	strbuf_free(&pad);
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
static bool in_function(const struct cli_source *s, int line, const char *name)
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

bool cli_show_function_line(const struct cli_source *sources, int nsources, const struct qkv_error *err)
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
	/* the one source that defines it there (lines of several may be numbered alike) */
	const struct cli_source *found = NULL;
	for (int i = 0; i < nsources; i++) {
		if (!in_function(&sources[i], line, name))
			continue;
		if (found)
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
	cli_show_caret(p + ind, n - (size_t)ind, line, line, err->col - ind, true);
	return true;
}
