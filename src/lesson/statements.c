/* statements.c: where statements begin and end (see statements.h): which
 * lines of a step's code continue a statement, from the parser's span of
 * each statement (the same parse the runner runs, so the "... " lines are
 * the ones Python would prompt for); when a block typed at a prompt is
 * finished and how deep its next line goes; the first statement of a
 * pasted cell; the name of the value a line made. Parses and scans only;
 * runs nothing. */
#include "lesson/statements.h"
#include "lang/ast.h"
#include "lang/parser.h"

#include <stdio.h>
#include <string.h>

void statements_mark_continued(const char *code, int nlines, bool *cont)
{
	for (int i = 0; i < nlines; i++)
		cont[i] = false;
	size_t len = strlen(code);
	struct parser *p = parser_new(code, len, 1);
	for (;;) {
		struct node *stmt = NULL;
		struct qkv_error err;
		enum parse_status ps = parser_next(p, &stmt, &err);
		node_free(stmt);
		if (ps != PARSE_OK)
			break;
		int first;
		size_t start, end;
		parser_last_span(p, &first, &start, &end);
		int line = first;	/* 1-based */
		for (size_t b = start; b < end && b < len; b++) {
			if (code[b] != '\n')
				continue;
			if (line < nlines)
				cont[line] = true;	/* 0-based: the line after line `line` */
			line++;
		}
	}
	parser_free(p);
}

/* ---- typed blocks ---------------------------------------------------------------- */

/* What a prompt needs of src, scanned as the lexer would (strings skipped,
 * triple-quoted ones across lines, comments and trailing blanks left out):
 * whether a line ends in ':' outside brackets, and src's last line with
 * text. */
struct scan {
	bool opens_block;    /* a line ended in ':' at depth 0 */
	const char *last;    /* the start of the last line that has text */
	size_t last_len;     /* its length up to its comment */
	bool last_colon;     /* it ends in ':' at depth 0 */
};

static void scan(const char *src, size_t len, struct scan *sc)
{
	memset(sc, 0, sizeof *sc);
	int depth = 0;
	char quote = 0;
	bool triple = false;
	size_t line = 0;          /* start of the current line */
	size_t sig = 0;           /* just past the last significant char of the line */
	bool any = false;         /* the line has a significant char */
	char lastc = 0;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? src[i] : '\n';
		if (quote) {
			if (c == '\\' && i + 1 < len) {
				i++;
				sig = i + 1;
				continue;
			}
			if (c == '\n' && !triple) {
				quote = 0;	/* an unclosed string: the parser says so */
			} else if (c == quote && (!triple || (i + 2 < len && src[i + 1] == quote && src[i + 2] == quote))) {
				if (triple)
					i += 2;
				quote = 0;
				sig = i + 1;
				lastc = c;
				continue;
			}
			if (c != '\n') {
				sig = i + 1;
				lastc = c;
				continue;
			}
		}
		if (c == '\n') {
			if (any && !quote) {
				sc->last = src + line;
				sc->last_len = sig - line;
				sc->last_colon = lastc == ':' && depth == 0;
				if (sc->last_colon)
					sc->opens_block = true;
			}
			line = i + 1;
			any = false;
			continue;
		}
		if (c == '#') {
			while (i + 1 < len && src[i + 1] != '\n')
				i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (!any && c == '%' && i + 1 < len && src[i + 1] == '%' && depth == 0)
			sc->opens_block = true;	/* %%time: a cell magic runs the lines below it */
		any = true;
		sig = i + 1;
		lastc = c;
		if (c == '\'' || c == '"') {
			quote = c;
			triple = i + 2 < len && src[i + 1] == c && src[i + 2] == c;
			if (triple)
				i += 2;
			sig = i + 1;
		} else if (strchr("([{", c)) {
			depth++;
		} else if (strchr(")]}", c) && depth > 0) {
			depth--;
		}
	}
}

bool statements_opens_block(const char *src, size_t len)
{
	struct scan sc;
	scan(src, len, &sc);
	return sc.opens_block;
}

bool statements_ends_with_empty_line(const char *src, size_t len)
{
	size_t n = len;
	if (n == 0 || src[n - 1] != '\n')
		return false;
	n--;
	while (n > 0 && (src[n - 1] == ' ' || src[n - 1] == '\t' || src[n - 1] == '\r'))
		n--;
	if (n == 0 || src[n - 1] != '\n')
		return false;	/* the last line has text, or there is only one line */
	for (size_t i = 0; i < n; i++)
		if (src[i] != ' ' && src[i] != '\t' && src[i] != '\r' && src[i] != '\n')
			return true;
	return false;
}

static bool starts_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	if (n < w || memcmp(s, word, w) != 0)
		return false;
	return n == w || !(s[w] == '_' || (s[w] >= 'a' && s[w] <= 'z') || (s[w] >= 'A' && s[w] <= 'Z') ||
			   (s[w] >= '0' && s[w] <= '9'));
}

int statements_indent(const char *src, size_t len)
{
	struct scan sc;
	scan(src, len, &sc);
	if (!sc.last)
		return 0;
	int col = 0;
	size_t i = 0;
	for (; i < sc.last_len && (sc.last[i] == ' ' || sc.last[i] == '\t'); i++)
		col = sc.last[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
	if (sc.last_colon)
		return col + 4;
	const char *w = sc.last + i;
	size_t n = sc.last_len - i;
	static const char *const leave[] = { "return", "pass", "break", "continue", "raise" };
	for (size_t k = 0; k < sizeof leave / sizeof *leave; k++)
		if (starts_word(w, n, leave[k]))
			return col >= 4 ? col - 4 : 0;
	return col;
}

/* ---- pasted cells ------------------------------------------------------------------ */

/* Just past the '\n' that ends the line holding byte i of src (or len). */
static size_t line_end(const char *src, size_t len, size_t i)
{
	const char *nl = i < len ? memchr(src + i, '\n', len - i) : NULL;
	return nl ? (size_t)(nl - src) + 1 : len;
}

enum statements_split statements_first(const char *src, size_t len, size_t *end)
{
	*end = len;
	struct parser *p = parser_new(src, len, 1);
	enum statements_split r = STATEMENTS_NONE;
	size_t until = 0;
	for (;;) {
		struct node *stmt = NULL;
		struct qkv_error err;
		enum parse_status ps = parser_next(p, &stmt, &err);
		node_free(stmt);
		if (ps == PARSE_END)
			break;
		size_t start, stop;
		parser_last_span(p, NULL, &start, &stop);
		if (r == STATEMENTS_ONE && start >= until)
			break;	/* the next statement begins on a later line */
		if (ps == PARSE_INCOMPLETE || ps == PARSE_ERROR) {
			r = ps == PARSE_INCOMPLETE ? STATEMENTS_INCOMPLETE : STATEMENTS_ERROR;
			until = len;
			break;
		}
		r = STATEMENTS_ONE;
		until = line_end(src, len, stop > start ? stop - 1 : start);
	}
	parser_free(p);
	if (r == STATEMENTS_ONE)
		*end = until;
	return r;
}

/* ---- the name of a line's value --------------------------------------------------- */

/* Whether s is the statement print(...), which makes no value. */
static bool is_print_call(const struct node *s)
{
	const struct node *e = s->kind == N_EXPR ? s->kids[0] : NULL;
	return e && e->kind == N_CALL && e->kids[0]->kind == N_NAME && strcmp(e->kids[0]->str, "print") == 0;
}

enum statements_name statements_value_name(const char *line, char *buf, size_t size)
{
	buf[0] = 0;
	size_t len = strlen(line);
	struct parser *p = parser_new(line, len, 1);
	struct node *last = NULL;
	size_t start = 0, end = 0;
	enum parse_status ps;
	for (;;) {
		struct node *stmt = NULL;
		struct qkv_error err;
		if ((ps = parser_next(p, &stmt, &err)) != PARSE_OK)
			break;
		if (is_print_call(stmt)) {
			node_free(stmt);
			continue;
		}
		node_free(last);
		last = stmt;
		parser_last_span(p, NULL, &start, &end);
	}
	parser_free(p);
	enum statements_name r = STATEMENTS_NAME_NONE;
	const struct node *target = last && (last->kind == N_ASSIGN || last->kind == N_AUGASSIGN) ? last->kids[0] : NULL;
	if (ps != PARSE_END || !last || size == 0) {
		r = STATEMENTS_NAME_NONE;
	} else if (target && target->kind == N_NAME) {
		snprintf(buf, size, "%s", target->str);
		r = STATEMENTS_NAME_ASSIGNED;
	} else if (last->kind == N_EXPR) {
		snprintf(buf, size, "%.*s", (int)(end - start), line + start);
		r = STATEMENTS_NAME_EXPRESSION;
	}
	node_free(last);
	return r;
}
