/* lexer.c: turns notebook source into tokens (names, numbers, strings,
 * f-strings, operators), one per lexer_next call from parser.c.
 * It never reads outside [pos, end) and never stops on bad input: every
 * problem becomes a T_ERROR or T_INCOMPLETE token with its line and column. */
#include "lang/lexer.h"
#include "lang/ast.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lexer_init(struct lexer *lx, const char *src, size_t len, int first_line)
{
	memset(lx, 0, sizeof *lx);
	lx->src = src;
	lx->end = src ? len : 0;
	lx->line = first_line;
	lx->col = 1;
	lx->atbol = true;
	if (lx->end >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
		lx->pos = 3;	/* a byte order mark opens the text: skipped, as Python does */
}

void lexer_init_sub(struct lexer *lx, const char *src, size_t start, size_t end, int line, int col)
{
	memset(lx, 0, sizeof *lx);
	lx->src = src;
	lx->pos = start;
	lx->end = end;
	lx->line = line;
	lx->col = col;
	lx->sub = true;
}

void token_free(struct token *t)
{
	free(t->str);
	for (int i = 0; i < t->nparts; i++) {
		free(t->parts[i].text);
		free(t->parts[i].spec);
	}
	free(t->parts);
	t->str = NULL;
	t->parts = NULL;
	t->nparts = 0;
	t->kind = T_EOF;
	t->len = 0;
}

/* ---- characters ----------------------------------------------------------- */

/* The byte k places ahead, or -1 past the end. */
static int lex_peek(const struct lexer *lx, size_t k)
{
	if (lx->pos + k >= lx->end)
		return -1;
	return (unsigned char)lx->src[lx->pos + k];
}

/* Moves past one byte; columns count characters, so UTF-8 continuation bytes
 * do not advance the column, and a tab is one column like any character. */
static void lex_advance(struct lexer *lx)
{
	unsigned char c = (unsigned char)lx->src[lx->pos++];
	if (c == '\n') {
		lx->line++;
		lx->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		lx->col++;
	}
}

static bool lex_is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool lex_is_ident_char(int c)
{
	return lex_is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool lex_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int lex_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void lex_fail(struct lexer *lx, struct token *t, enum tok_kind kind, int line, int col,
		     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Turns t into an error (or, outside f-string fields, an incomplete) token.
 * Whatever t already owned is released. */
static void lex_fail(struct lexer *lx, struct token *t, enum tok_kind kind, int line, int col,
		     const char *fmt, ...)
{
	size_t start = t->start, len = lx->pos > t->start ? lx->pos - t->start : 0;
	bool space = t->space_before;
	va_list ap;
	token_free(t);
	t->kind = (kind == T_INCOMPLETE && lx->sub) ? T_ERROR : kind;
	t->start = start;
	t->len = len;
	t->line = line;
	t->col = col;
	t->space_before = space;
	va_start(ap, fmt);
	error_vset(&t->err, line, col, fmt, ap);
	va_end(ap);
}

/* Appends the code point cp to b as UTF-8. */
static void lex_put_utf8(struct strbuf *b, uint32_t cp)
{
	char buf[4];
	strbuf_putn(b, buf, (size_t)utf8_encode(buf, cp));
}

/* Decodes the UTF-8 sequence at pos; returns its length (0 when invalid). */
static int lex_utf8_decode(const struct lexer *lx, uint32_t *cp)
{
	int c = lex_peek(lx, 0), n, i;
	uint32_t v;
	if (c < 0xC2 || c > 0xF4)
		return 0;
	n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	v = (uint32_t)c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
	for (i = 1; i < n; i++) {
		int d = lex_peek(lx, (size_t)i);
		if (d < 0 || (d & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | ((uint32_t)d & 0x3F);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

/* ---- whitespace and comments ---------------------------------------------- */

enum skip_result { SKIP_OK, SKIP_BAD_BACKSLASH, SKIP_CONTINUED_EOF };

/* Skips spaces, tabs, comments, line continuations and (inside brackets or a
 * field) newlines. Stops at a newline that ends a statement. When the input
 * ends after a continuation, *bs_line:*bs_col is its backslash. */
static enum skip_result lex_skip_space(struct lexer *lx, bool *space, int *bs_line, int *bs_col)
{
	bool continued = false;
	for (;;) {
		int c = lex_peek(lx, 0);
		if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\v') {
			lex_advance(lx);
		} else if (c == '#') {
			while (lex_peek(lx, 0) >= 0 && lex_peek(lx, 0) != '\n')
				lex_advance(lx);
		} else if (c == '\n' && (lx->depth > 0 || lx->sub)) {
			lex_advance(lx);
		} else if (c == '\\' && !lx->sub) {
			int d = lex_peek(lx, 1);
			*bs_line = lx->line;
			*bs_col = lx->col;
			if (d == '\n') {
				lex_advance(lx);
				lex_advance(lx);
			} else if (d == '\r' && lex_peek(lx, 2) == '\n') {
				lex_advance(lx);
				lex_advance(lx);
				lex_advance(lx);
			} else if (d < 0) {
				return SKIP_CONTINUED_EOF;
			} else {
				return SKIP_BAD_BACKSLASH;
			}
			continued = true;
		} else {
			if (c < 0 && continued && !lx->sub)
				return SKIP_CONTINUED_EOF;
			return SKIP_OK;
		}
		*space = true;
	}
}

/* ---- numbers ----------------------------------------------------------------- */

/* Consumes digits with single '_' separators between them. Returns the number
 * of digits, or -1 when an underscore is misplaced. Digits go into b (if given). */
static int lex_digit_run(struct lexer *lx, struct strbuf *b)
{
	int n = 0;
	for (;;) {
		int c = lex_peek(lx, 0);
		if (lex_is_digit(c)) {
			if (b)
				strbuf_putc(b, (char)c);
			lex_advance(lx);
			n++;
		} else if (c == '_') {
			if (n == 0 || !lex_is_digit(lex_peek(lx, 1)))
				return -1;
			lex_advance(lx);
		} else {
			return n;
		}
	}
}

/* 0x.., 0o.., 0b.. integers; pos is at the '0'. */
static void lex_radix_int(struct lexer *lx, struct token *t, int radix)
{
	uint64_t v = 0;
	bool overflow = false;
	int digits = 0;
	lex_advance(lx);
	lex_advance(lx);
	for (;;) {
		int c = lex_peek(lx, 0);
		int d = lex_hex_value(c);
		if (c == '_' && lex_hex_value(lex_peek(lx, 1)) >= 0 && lex_hex_value(lex_peek(lx, 1)) < radix) {
			lex_advance(lx);
			continue;
		}
		if (d < 0 || d >= radix)
			break;
		if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)radix)
			overflow = true;
		else
			v = v * (uint64_t)radix + (uint64_t)d;
		digits++;
		lex_advance(lx);
	}
	if (digits == 0 || lex_is_ident_char(lex_peek(lx, 0))) {
		while (lex_is_ident_char(lex_peek(lx, 0)))
			lex_advance(lx);
		lex_fail(lx, t, T_ERROR, t->line, t->col, "invalid number '%.*s'",
			 (int)(lx->pos - t->start > 40 ? 40 : lx->pos - t->start), lx->src + t->start);
		return;
	}
	if (overflow) {
		lex_fail(lx, t, T_ERROR, t->line, t->col, "number out of range");
		return;
	}
	t->kind = T_NUMBER;
	t->is_int = true;
	t->ival = (int64_t)v;
}

/* Converts the digits of a float literal with strtod, whatever the locale's
 * decimal point is (the UI may have called setlocale). */
static double lex_strtod(const char *text)
{
	const char *point = localeconv()->decimal_point;
	struct strbuf b;
	double v;
	if (!point || strcmp(point, ".") == 0 || !point[0])
		return strtod(text, NULL);
	strbuf_init(&b);
	for (const char *s = text; *s; s++) {
		if (*s == '.')
			strbuf_puts(&b, point);
		else
			strbuf_putc(&b, *s);
	}
	v = strtod(b.s, NULL);
	strbuf_free(&b);
	return v;
}

static void lex_number(struct lexer *lx, struct token *t)
{
	struct strbuf b;
	bool is_float = false, bad = false;
	int c = lex_peek(lx, 0), d = lex_peek(lx, 1);
	int intdigits = 0;
	if (c == '0' && (d == 'x' || d == 'X' || d == 'o' || d == 'O' || d == 'b' || d == 'B')) {
		lex_radix_int(lx, t, d == 'x' || d == 'X' ? 16 : d == 'o' || d == 'O' ? 8 : 2);
		return;
	}
	strbuf_init(&b);
	if (c != '.') {
		intdigits = lex_digit_run(lx, &b);
		if (intdigits < 0)
			bad = true;
	}
	if (!bad && lex_peek(lx, 0) == '.' && (intdigits > 0 || lex_is_digit(lex_peek(lx, 1)))) {
		is_float = true;
		strbuf_putc(&b, '.');
		lex_advance(lx);
		if (lex_peek(lx, 0) == '_' || lex_digit_run(lx, &b) < 0)
			bad = true;
	}
	if (!bad && (lex_peek(lx, 0) == 'e' || lex_peek(lx, 0) == 'E')) {
		int k = 1;
		if (lex_peek(lx, 1) == '+' || lex_peek(lx, 1) == '-')
			k = 2;
		if (lex_is_digit(lex_peek(lx, (size_t)k))) {
			is_float = true;
			strbuf_putc(&b, 'e');
			if (k == 2)
				strbuf_putc(&b, (char)lex_peek(lx, 1));
			while (k-- > 0)
				lex_advance(lx);
			if (lex_digit_run(lx, &b) < 0)
				bad = true;
		}
	}
	if (!bad && (lex_peek(lx, 0) == 'j' || lex_peek(lx, 0) == 'J')) {
		lex_advance(lx);
		strbuf_free(&b);
		lex_fail(lx, t, T_ERROR, t->line, t->col, "complex numbers are not supported");
		return;
	}
	if (bad || lex_is_ident_char(lex_peek(lx, 0)) || lex_peek(lx, 0) == '.') {
		while (lex_is_ident_char(lex_peek(lx, 0)) || lex_peek(lx, 0) == '.')
			lex_advance(lx);
		strbuf_free(&b);
		lex_fail(lx, t, T_ERROR, t->line, t->col, "invalid number '%.*s'",
			 (int)(lx->pos - t->start > 40 ? 40 : lx->pos - t->start), lx->src + t->start);
		return;
	}
	strbuf_putc(&b, '\0');
	t->kind = T_NUMBER;
	if (is_float) {
		t->num = lex_strtod(b.s);
		if (isinf(t->num))
			lex_fail(lx, t, T_ERROR, t->line, t->col, "number out of range");
	} else {
		uint64_t v = 0;
		bool nonzero = false;
		for (const char *s = b.s; *s; s++) {
			int digit = *s - '0';
			if (v > ((uint64_t)INT64_MAX - (uint64_t)digit) / 10) {
				strbuf_free(&b);
				lex_fail(lx, t, T_ERROR, t->line, t->col, "number out of range");
				return;
			}
			v = v * 10 + (uint64_t)digit;
			nonzero |= digit != 0;
		}
		if (b.s[0] == '0' && b.s[1] && nonzero) {
			strbuf_free(&b);
			lex_fail(lx, t, T_ERROR, t->line, t->col,
				 "leading zeros are not allowed in integers (write 7, not 07)");
			return;
		}
		t->is_int = true;
		t->ival = (int64_t)v;
	}
	strbuf_free(&b);
}

/* ---- strings ------------------------------------------------------------------ */

/* Decodes the escape sequence at pos (a backslash) into b. Returns 0, or -1
 * after turning t into an error. *continued tells a backslash-newline. */
static int lex_escape(struct lexer *lx, struct token *t, struct strbuf *b, bool *continued)
{
	int line = lx->line, col = lx->col;
	int c = lex_peek(lx, 1), n = 0;
	uint32_t cp = 0;
	*continued = false;
	if (c < 0) {
		lex_advance(lx);
		lex_fail(lx, t, T_INCOMPLETE, line, col, "the input ends after '\\' inside a string");
		return -1;
	}
	lex_advance(lx);
	switch (c) {
	case '\n': lex_advance(lx); *continued = true; return 0;
	case '\\': strbuf_putc(b, '\\'); break;
	case '\'': strbuf_putc(b, '\''); break;
	case '"': strbuf_putc(b, '"'); break;
	case 'n': strbuf_putc(b, '\n'); break;
	case 't': strbuf_putc(b, '\t'); break;
	case 'r': strbuf_putc(b, '\r'); break;
	case 'a': strbuf_putc(b, '\a'); break;
	case 'b': strbuf_putc(b, '\b'); break;
	case 'f': strbuf_putc(b, '\f'); break;
	case 'v': strbuf_putc(b, '\v'); break;
	case 'x': n = 2; break;
	case 'u': n = 4; break;
	case 'U': n = 8; break;
	case 'N':
		lex_fail(lx, t, T_ERROR, line, col, "\\N{...} escapes are not supported; type the character itself");
		return -1;
	default:
		if (c >= '0' && c <= '7') {
			for (int i = 0; i < 3 && lex_peek(lx, 0) >= '0' && lex_peek(lx, 0) <= '7'; i++) {
				cp = cp * 8 + (uint32_t)(lex_peek(lx, 0) - '0');
				lex_advance(lx);
			}
			goto code_point;
		}
		if (c == '\r' && lex_peek(lx, 1) == '\n') {
			lex_advance(lx);
			lex_advance(lx);
			*continued = true;
			return 0;
		}
		/* unknown escapes keep their backslash, as in Python */
		strbuf_putc(b, '\\');
		return 0;
	}
	lex_advance(lx);
	if (n == 0)
		return 0;
	for (int i = 0; i < n; i++) {
		int v = lex_hex_value(lex_peek(lx, 0));
		if (v < 0) {
			lex_fail(lx, t, T_ERROR, line, col, "invalid \\%c escape: it needs %d hex digits", c, n);
			return -1;
		}
		cp = cp * 16 + (uint32_t)v;
		lex_advance(lx);
	}
code_point:
	if (cp == 0) {
		lex_fail(lx, t, T_ERROR, line, col, "strings cannot contain NUL characters");
		return -1;
	}
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
		lex_fail(lx, t, T_ERROR, line, col, "invalid escape: U+%X is not a character", cp);
		return -1;
	}
	lex_put_utf8(b, cp);
	return 0;
}

/* True when pos is at the closing quote(s). */
static bool lex_at_close(const struct lexer *lx, int q, bool triple)
{
	if (lex_peek(lx, 0) != q)
		return false;
	return !triple || (lex_peek(lx, 1) == q && lex_peek(lx, 2) == q);
}

static void lex_skip_close(struct lexer *lx, bool triple)
{
	int n = triple ? 3 : 1;
	while (n-- > 0)
		lex_advance(lx);
}

/* Reports the end of input or of the line inside a string literal. */
static void lex_unterminated(struct lexer *lx, struct token *t, bool triple, bool continued)
{
	if (triple)
		lex_fail(lx, t, T_INCOMPLETE, t->line, t->col, "unterminated triple-quoted string");
	else if (continued && lex_peek(lx, 0) < 0)
		lex_fail(lx, t, T_INCOMPLETE, t->line, t->col, "unterminated string");
	else
		lex_fail(lx, t, T_ERROR, t->line, t->col, "unterminated string");
}

/* One character of a string's literal text into b, handling escapes and raw
 * backslashes. Returns 0, or -1 after turning t into an error. */
static int lex_string_char(struct lexer *lx, struct token *t, struct strbuf *b, bool raw, bool *continued)
{
	int c = lex_peek(lx, 0);
	*continued = false;
	if (c == 0) {
		lex_fail(lx, t, T_ERROR, lx->line, lx->col, "strings cannot contain NUL characters");
		return -1;
	}
	if (c >= 0x80) {	/* a whole UTF-8 character: strings hold valid UTF-8 only */
		uint32_t cp;
		int n = lex_utf8_decode(lx, &cp);
		if (n == 0) {
			lex_fail(lx, t, T_ERROR, lx->line, lx->col,
				 "invalid UTF-8 (byte 0x%02X) in a string: qkv reads source text as UTF-8", (unsigned)c);
			return -1;
		}
		strbuf_putn(b, lx->src + lx->pos, (size_t)n);
		while (n-- > 0)
			lex_advance(lx);
		return 0;
	}
	if (c != '\\') {
		strbuf_putc(b, (char)c);
		lex_advance(lx);
		return 0;
	}
	if (!raw)
		return lex_escape(lx, t, b, continued);
	/* raw: the backslash stays, and protects the next character from ending the string */
	strbuf_putc(b, '\\');
	lex_advance(lx);
	c = lex_peek(lx, 0);
	if (c < 0) {
		*continued = true;
		return 0;
	}
	if (c >= 0x80)	/* not a quote: the next call takes the whole character */
		return 0;
	if (c == 0) {
		lex_fail(lx, t, T_ERROR, lx->line, lx->col, "strings cannot contain NUL characters");
		return -1;
	}
	strbuf_putc(b, (char)c);
	lex_advance(lx);
	*continued = c == '\n';
	return 0;
}

static void lex_string(struct lexer *lx, struct token *t, bool raw, int q, bool triple)
{
	struct strbuf b;
	bool continued = false;
	strbuf_init(&b);
	lex_skip_close(lx, triple);
	for (;;) {
		int c = lex_peek(lx, 0);
		if (c < 0 || (c == '\n' && !triple)) {
			strbuf_free(&b);
			lex_unterminated(lx, t, triple, continued);
			return;
		}
		if (lex_at_close(lx, q, triple)) {
			lex_skip_close(lx, triple);
			break;
		}
		if (lex_string_char(lx, t, &b, raw, &continued) < 0) {
			strbuf_free(&b);
			return;
		}
	}
	strbuf_putc(&b, '\0');
	t->kind = T_STRING;
	t->str = strbuf_detach(&b);
}

static void lex_add_part(struct token *t, const struct fstr_part *part)
{
	if ((t->nparts & (t->nparts - 1)) == 0)
		t->parts = xrealloc(t->parts, (size_t)(t->nparts ? t->nparts * 2 : 1) * sizeof *t->parts);
	t->parts[t->nparts++] = *part;
}

/* Adds the literal collected in b (if any) as a part. */
static void lex_flush_literal(struct token *t, struct strbuf *b, int line, int col)
{
	struct fstr_part part = {0};
	if (b->len == 0)
		return;
	part.text = strbuf_detach(b);
	part.line = line;
	part.col = col;
	lex_add_part(t, &part);
}

/* Skips a string literal nested in an f-string field. Returns false at the
 * end of the line or input. */
static bool lex_skip_nested_string(struct lexer *lx, int outer_q, bool outer_triple)
{
	int q = lex_peek(lx, 0);
	bool triple = lex_peek(lx, 1) == q && lex_peek(lx, 2) == q;
	lex_skip_close(lx, triple);
	for (;;) {
		int c = lex_peek(lx, 0);
		if (c < 0 || (c == '\n' && !(triple && outer_triple)))
			return false;
		if (c == outer_q && !outer_triple && q != outer_q)
			return false;
		if (lex_at_close(lx, q, triple)) {
			lex_skip_close(lx, triple);
			return true;
		}
		lex_advance(lx);
	}
}

/* Scans one {field} of an f-string; pos is at the '{'. Adds the parts (a
 * "name=" literal for a self-documenting field, then the field). Returns 0,
 * or -1 after turning t into an error. */
static int lex_fstring_field(struct lexer *lx, struct token *t, int q, bool triple)
{
	struct fstr_part part = {0};
	int brace_line = lx->line, brace_col = lx->col;
	char opens[64];         /* the field's open brackets (the parser checks deeper ones) */
	int depth = 0;
	size_t debug_end = 0;
	bool blank = true;
	part.is_field = true;
	part.line = brace_line;
	part.col = brace_col;
	lex_advance(lx);
	part.start = lx->pos;
	for (;;) {
		int c = lex_peek(lx, 0);
		if (c < 0 || (c == '\n' && !triple)) {
			lex_unterminated(lx, t, triple, false);
			return -1;
		}
		if (lex_at_close(lx, q, triple)) {
			lex_fail(lx, t, T_ERROR, lx->line, lx->col, "f-string: expected '}' to close '{' opened at %d:%d",
				 brace_line, brace_col);
			return -1;
		}
		if (c == '\\') {
			lex_fail(lx, t, T_ERROR, lx->line, lx->col, "f-string expressions cannot contain '\\'");
			return -1;
		}
		if (c == '#') {
			lex_fail(lx, t, T_ERROR, lx->line, lx->col, "f-string expressions cannot contain '#'");
			return -1;
		}
		if (c == 0) {
			lex_fail(lx, t, T_ERROR, lx->line, lx->col, "strings cannot contain NUL characters");
			return -1;
		}
		if (c == '\'' || c == '"') {
			int line = lx->line, col = lx->col;
			if (!lex_skip_nested_string(lx, q, triple)) {
				if (lex_peek(lx, 0) < 0 && triple)
					lex_fail(lx, t, T_INCOMPLETE, t->line, t->col, "unterminated triple-quoted string");
				else
					lex_fail(lx, t, T_ERROR, line, col, "unterminated string");
				return -1;
			}
			blank = false;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			if (depth < (int)sizeof opens)
				opens[depth] = (char)c;
			depth++;
		} else if ((c == ')' || c == ']') && depth > 0) {
			depth--;
		} else if (c == '}') {
			/* a '}' that closes no '{' ends the field; the parser then
			 * names the bracket left open */
			if (depth == 0 || (depth <= (int)sizeof opens && opens[depth - 1] != '{'))
				break;
			depth--;
		} else if (depth == 0 && c == '!' && lex_peek(lx, 1) != '=') {
			break;
		} else if (depth == 0 && c == ':') {
			break;
		} else if (depth == 0 && c == '=' && lex_peek(lx, 1) != '=' && lx->pos > part.start &&
			   !strchr("=!<>", lx->src[lx->pos - 1])) {
			/* {expr=} repeats the expression's text before its value */
			size_t k = 1;
			while (lex_peek(lx, k) == ' ' || lex_peek(lx, k) == '\t')
				k++;
			if (lex_peek(lx, k) == '}' || lex_peek(lx, k) == '!' || lex_peek(lx, k) == ':') {
				debug_end = lx->pos + k;
				break;
			}
		}
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			blank = false;
		lex_advance(lx);
	}
	part.end = lx->pos;
	if (blank) {
		lex_fail(lx, t, T_ERROR, brace_line, brace_col, "f-string: empty expression in '{}'");
		return -1;
	}
	if (debug_end) {
		struct fstr_part lit = {0};
		lit.text = xstrndup(lx->src + part.start, debug_end - part.start);
		lit.line = brace_line;
		lit.col = brace_col + 1;
		lex_add_part(t, &lit);
		while (lx->pos < debug_end)
			lex_advance(lx);
	}
	if (lex_peek(lx, 0) == '!') {
		int line = lx->line, col = lx->col;
		int conv = lex_peek(lx, 1);
		lex_advance(lx);
		if (conv == 'a') {
			lex_fail(lx, t, T_ERROR, line, col, "f-string: '!a' is not supported; use '!r'");
			return -1;
		}
		if (conv != 'r' && conv != 's') {
			lex_fail(lx, t, T_ERROR, line, col, "f-string: the conversion after '!' must be r or s");
			return -1;
		}
		lex_advance(lx);
		part.conv = (char)conv;
		if (lex_peek(lx, 0) != ':' && lex_peek(lx, 0) != '}') {
			lex_fail(lx, t, T_ERROR, lx->line, lx->col, "f-string: expected '}' after '!%c'", conv);
			return -1;
		}
	}
	if (lex_peek(lx, 0) == ':') {
		size_t spec_start;
		lex_advance(lx);
		spec_start = lx->pos;
		for (;;) {
			int c = lex_peek(lx, 0);
			if (c < 0 || (c == '\n' && !triple)) {
				lex_unterminated(lx, t, triple, false);
				return -1;
			}
			if (lex_at_close(lx, q, triple)) {
				lex_fail(lx, t, T_ERROR, lx->line, lx->col,
					 "f-string: expected '}' to close '{' opened at %d:%d", brace_line, brace_col);
				return -1;
			}
			if (c == '{') {
				lex_fail(lx, t, T_ERROR, lx->line, lx->col,
					 "f-string: nested '{...}' in a format spec is not supported");
				return -1;
			}
			if (c == 0) {
				lex_fail(lx, t, T_ERROR, lx->line, lx->col, "strings cannot contain NUL characters");
				return -1;
			}
			if (c == '}')
				break;
			lex_advance(lx);
		}
		if (lx->pos > spec_start)
			part.spec = xstrndup(lx->src + spec_start, lx->pos - spec_start);
	}
	if (debug_end && !part.conv && !part.spec)
		part.conv = 'r';
	lex_advance(lx);	/* the '}' */
	lex_add_part(t, &part);
	return 0;
}

static void lex_fstring(struct lexer *lx, struct token *t, bool raw, int q, bool triple)
{
	struct strbuf b;
	int lit_line = 0, lit_col = 0;
	bool continued = false;
	strbuf_init(&b);
	t->kind = T_FSTRING;
	lex_skip_close(lx, triple);
	for (;;) {
		int c = lex_peek(lx, 0);
		if (c < 0 || (c == '\n' && !triple)) {
			strbuf_free(&b);
			lex_unterminated(lx, t, triple, continued);
			return;
		}
		if (lex_at_close(lx, q, triple)) {
			lex_skip_close(lx, triple);
			break;
		}
		if (b.len == 0) {
			lit_line = lx->line;
			lit_col = lx->col;
		}
		if (c == '{' && lex_peek(lx, 1) == '{') {
			strbuf_putc(&b, '{');
			lex_advance(lx);
			lex_advance(lx);
			continued = false;
		} else if (c == '}' && lex_peek(lx, 1) == '}') {
			strbuf_putc(&b, '}');
			lex_advance(lx);
			lex_advance(lx);
			continued = false;
		} else if (c == '}') {
			strbuf_free(&b);
			lex_fail(lx, t, T_ERROR, lx->line, lx->col, "f-string: single '}' is not allowed; write '}}'");
			return;
		} else if (c == '{') {
			lex_flush_literal(t, &b, lit_line, lit_col);
			if (lex_fstring_field(lx, t, q, triple) < 0) {
				strbuf_free(&b);
				return;
			}
			continued = false;
		} else if (lex_string_char(lx, t, &b, raw, &continued) < 0) {
			strbuf_free(&b);
			return;
		}
	}
	lex_flush_literal(t, &b, lit_line, lit_col);
	strbuf_free(&b);
}

/* A name directly followed by a quote may be a string prefix (f, r, rf, ...).
 * Returns true when it was one and the string has been lexed. */
static bool lex_prefixed_string(struct lexer *lx, struct token *t, size_t name_len)
{
	bool raw = false, fmt = false, bytes = false;
	int q = lex_peek(lx, 0);
	bool triple;
	if ((q != '\'' && q != '"') || name_len > 2)
		return false;
	for (size_t i = 0; i < name_len; i++) {
		char c = lx->src[t->start + i];
		if (c == 'r' || c == 'R')
			raw = true;
		else if (c == 'f' || c == 'F')
			fmt = true;
		else if (c == 'b' || c == 'B')
			bytes = true;
		else if (!(c == 'u' || c == 'U') || name_len != 1)
			return false;
	}
	if (bytes) {
		lex_fail(lx, t, T_ERROR, t->line, t->col, "bytes literals (b'...') are not supported");
		return true;
	}
	if (name_len == 2 && !(raw && fmt))
		return false;
	triple = lex_peek(lx, 1) == q && lex_peek(lx, 2) == q;
	if (fmt)
		lex_fstring(lx, t, raw, q, triple);
	else
		lex_string(lx, t, raw, q, triple);
	return true;
}

/* ---- names and keywords ------------------------------------------------------- */

static const struct {
	const char *word;
	enum tok_kind kind;
} lex_keywords[] = {
	{"True", T_TRUE}, {"False", T_FALSE}, {"None", T_NONE},
	{"and", T_AND}, {"or", T_OR}, {"not", T_NOT}, {"in", T_IN}, {"is", T_IS},
	{"import", T_IMPORT}, {"from", T_FROM}, {"as", T_AS}, {"pass", T_PASS},
	{"for", T_KEYWORD}, {"while", T_KEYWORD}, {"if", T_KEYWORD}, {"elif", T_KEYWORD},
	{"else", T_KEYWORD}, {"def", T_KEYWORD}, {"class", T_KEYWORD}, {"lambda", T_LAMBDA},
	{"return", T_KEYWORD}, {"with", T_KEYWORD}, {"try", T_KEYWORD}, {"except", T_KEYWORD},
	{"finally", T_KEYWORD}, {"raise", T_KEYWORD}, {"del", T_KEYWORD}, {"global", T_KEYWORD},
	{"nonlocal", T_KEYWORD}, {"assert", T_KEYWORD}, {"yield", T_KEYWORD}, {"break", T_KEYWORD},
	{"continue", T_KEYWORD}, {"async", T_KEYWORD}, {"await", T_KEYWORD},
};

static void lex_name(struct lexer *lx, struct token *t)
{
	size_t len;
	while (lex_is_ident_char(lex_peek(lx, 0)))
		lex_advance(lx);
	len = lx->pos - t->start;
	if (lex_prefixed_string(lx, t, len))
		return;
	t->kind = T_NAME;
	if (len > 8)
		return;
	for (size_t i = 0; i < sizeof lex_keywords / sizeof lex_keywords[0]; i++) {
		if (lex_keywords[i].word[0] == lx->src[t->start] && strlen(lex_keywords[i].word) == len &&
		    memcmp(lex_keywords[i].word, lx->src + t->start, len) == 0) {
			t->kind = lex_keywords[i].kind;
			break;
		}
	}
}

/* ---- operators ------------------------------------------------------------------ */

static const struct {
	const char *text;
	enum tok_kind kind;
	int op;
} lex_ops[] = {
	/* longest first */
	{"**=", T_AUGASSIGN, OP_POW}, {"//=", T_AUGASSIGN, OP_FLOORDIV},
	{">>=", T_AUGASSIGN, OP_RSHIFT}, {"<<=", T_AUGASSIGN, OP_LSHIFT}, {"...", T_UNSUPPORTED, 0},
	{"**", T_DSTAR, OP_POW}, {"//", T_DSLASH, OP_FLOORDIV}, {"==", T_EQ, OP_EQ}, {"!=", T_NE, OP_NE},
	{"<=", T_LE, OP_LE}, {">=", T_GE, OP_GE}, {"+=", T_AUGASSIGN, OP_ADD}, {"-=", T_AUGASSIGN, OP_SUB},
	{"*=", T_AUGASSIGN, OP_MUL}, {"/=", T_AUGASSIGN, OP_DIV}, {"@=", T_AUGASSIGN, OP_MATMUL},
	{"%=", T_AUGASSIGN, OP_MOD}, {"&=", T_AUGASSIGN, OP_BITAND}, {"|=", T_AUGASSIGN, OP_BITOR},
	{"^=", T_AUGASSIGN, OP_BITXOR}, {"->", T_UNSUPPORTED, 0}, {":=", T_UNSUPPORTED, 0},
	{"<<", T_LSHIFT, OP_LSHIFT}, {">>", T_RSHIFT, OP_RSHIFT},
	{"(", T_LPAR, 0}, {")", T_RPAR, 0}, {"[", T_LBRACK, 0}, {"]", T_RBRACK, 0},
	{"{", T_LBRACE, 0}, {"}", T_RBRACE, 0}, {",", T_COMMA, 0}, {":", T_COLON, 0},
	{";", T_SEMI, 0}, {".", T_DOT, 0}, {"=", T_ASSIGN, 0},
	{"+", T_PLUS, OP_ADD}, {"-", T_MINUS, OP_SUB}, {"*", T_STAR, OP_MUL}, {"/", T_SLASH, OP_DIV},
	{"%", T_PERCENT, OP_MOD}, {"@", T_AT, OP_MATMUL}, {"&", T_AMP, OP_BITAND}, {"|", T_PIPE, OP_BITOR},
	{"<", T_LT, OP_LT}, {">", T_GT, OP_GT}, {"~", T_TILDE, 0},
	{"^", T_CARET, OP_BITXOR}, {"!", T_UNSUPPORTED, 0},
};

/* Keeps track of open brackets so newlines inside them are spaces. */
static void lex_track_bracket(struct lexer *lx, const struct token *t)
{
	if (t->kind == T_LPAR || t->kind == T_LBRACK || t->kind == T_LBRACE) {
		if (lx->depth < LEX_MAX_OPEN) {
			lx->open[lx->depth].ch = lx->src[t->start];
			lx->open[lx->depth].line = t->line;
			lx->open[lx->depth].col = t->col;
		}
		lx->depth++;
	} else if ((t->kind == T_RPAR || t->kind == T_RBRACK || t->kind == T_RBRACE) && lx->depth > 0) {
		lx->depth--;
	}
}

static bool lex_operator(struct lexer *lx, struct token *t)
{
	int c = lex_peek(lx, 0);
	for (size_t i = 0; i < sizeof lex_ops / sizeof lex_ops[0]; i++) {
		size_t n, k;
		if ((unsigned char)lex_ops[i].text[0] != c)
			continue;
		n = strlen(lex_ops[i].text);
		for (k = 1; k < n; k++)
			if (lex_peek(lx, k) != (unsigned char)lex_ops[i].text[k])
				break;
		if (k < n)
			continue;
		while (n-- > 0)
			lex_advance(lx);
		t->kind = lex_ops[i].kind;
		t->op = lex_ops[i].op;
		lex_track_bracket(lx, t);
		return true;
	}
	return false;
}

/* A character that starts no token: say which, with a hint for the usual
 * suspects of pasted code (curly quotes, non-breaking spaces, math signs). */
static void lex_bad_char(struct lexer *lx, struct token *t)
{
	static const struct {
		uint32_t cp;
		const char *hint;
	} hints[] = {
		{0x00A0, "a non-breaking space; retype it as a plain space"},
		{0x2018, "a curly quote; use a plain ' or \""}, {0x2019, "a curly quote; use a plain ' or \""},
		{0x201C, "a curly quote; use a plain ' or \""}, {0x201D, "a curly quote; use a plain ' or \""},
		{0x2212, "a minus sign; use '-'"}, {0x2013, "a dash; use '-'"},
		{0x00D7, "a multiplication sign; use '*' (or '@' for matrix products)"},
		{0x00F7, "a division sign; use '/'"},
	};
	int line = lx->line, col = lx->col;
	int c = lex_peek(lx, 0);
	uint32_t cp;
	int n = lex_utf8_decode(lx, &cp);
	if (n > 0) {
		for (int i = 0; i < n; i++)
			lex_advance(lx);
		for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
			if (hints[i].cp == cp) {
				lex_fail(lx, t, T_ERROR, line, col, "unexpected character U+%04X: it is %s",
					 cp, hints[i].hint);
				return;
			}
		}
		lex_fail(lx, t, T_ERROR, line, col, "unexpected character '%.*s' (U+%04X): names must be ASCII",
			 n, lx->src + lx->pos - n, cp);
		return;
	}
	lex_advance(lx);
	if (c > 0x20 && c < 0x7F)
		lex_fail(lx, t, T_ERROR, line, col, "unexpected character '%c'", c);
	else
		lex_fail(lx, t, T_ERROR, line, col, "unexpected character (byte 0x%02X)", (unsigned)c);
}

/* ---- indentation ------------------------------------------------------------- */

/* A token of no length at the current position (NEWLINE, INDENT, DEDENT). */
static void lex_empty_token(struct lexer *lx, struct token *t, enum tok_kind kind, int col)
{
	t->kind = kind;
	t->start = lx->pos;
	t->len = 0;
	t->line = lx->line;
	t->col = col;
}

/* Characters from the current position to the end of its line, plus one:
 * where CPython puts the caret of an indentation mismatch. */
static int lex_line_end_col(const struct lexer *lx)
{
	int col = lx->col;
	for (size_t i = lx->pos; i < lx->end && lx->src[i] != '\n' && lx->src[i] != '\r'; i++)
		if (((unsigned char)lx->src[i] & 0xC0) != 0x80)
			col++;
	return col;
}

/* At the beginning of a line outside brackets: skips blank and comment-only
 * lines, measures the indentation of the next line as CPython's tokenizer
 * does (tabs to the next multiple of 8, and again with tabs as 1 column so
 * that mixing them ambiguously is a TabError) and fills t with an INDENT,
 * a DEDENT or an error. Returns false when the level does not change. */
static bool lex_indentation(struct lexer *lx, struct token *t)
{
	int width, alt, chars, c;
	for (;;) {
		width = alt = chars = 0;
		for (;;) {
			c = lex_peek(lx, 0);
			if (c == ' ') {
				width++;
				alt++;
			} else if (c == '\t') {
				width = (width / 8 + 1) * 8;
				alt++;
			} else if (c == '\f') {
				width = alt = 0;
			} else {
				break;
			}
			chars++;
			lex_advance(lx);
		}
		if (c == '#') {
			while (lex_peek(lx, 0) >= 0 && lex_peek(lx, 0) != '\n')
				lex_advance(lx);
			c = lex_peek(lx, 0);
		}
		if (c == '\r' && lex_peek(lx, 1) == '\n') {
			lex_advance(lx);
			c = '\n';
		}
		if (c != '\n')
			break;
		lex_advance(lx);	/* a blank line: no token, no indentation */
	}
	if (c < 0)
		return false;	/* the end of the input closes every level */
	if (width == lx->indstack[lx->nindent]) {
		if (alt != lx->altstack[lx->nindent])
			goto tab_error;
		return false;
	}
	if (width > lx->indstack[lx->nindent]) {
		if (lx->nindent + 1 >= LEX_MAX_INDENT) {
			lex_empty_token(lx, t, T_ERROR, 1);
			error_set(&t->err, lx->line, 1, "too many levels of indentation");
			return true;
		}
		if (alt <= lx->altstack[lx->nindent])
			goto tab_error;
		lx->nindent++;
		lx->indstack[lx->nindent] = width;
		lx->altstack[lx->nindent] = alt;
		lex_empty_token(lx, t, T_INDENT, chars);
		return true;
	}
	while (lx->nindent > 0 && width < lx->indstack[lx->nindent]) {
		lx->nindent--;
		lx->pending++;
	}
	if (width != lx->indstack[lx->nindent]) {
		lex_empty_token(lx, t, T_ERROR, lex_line_end_col(lx));
		error_set(&t->err, lx->line, t->col, "unindent does not match any outer indentation level");
		return true;
	}
	if (alt != lx->altstack[lx->nindent])
		goto tab_error;
	lx->pending--;
	lex_empty_token(lx, t, T_DEDENT, lx->col);
	return true;
tab_error:
	lex_empty_token(lx, t, T_ERROR, 1);
	error_set(&t->err, lx->line, 1, "inconsistent use of tabs and spaces in indentation");
	return true;
}

void lexer_next(struct lexer *lx, struct token *t)
{
	bool space = false;
	enum skip_result skip;
	int c, bs_line = 0, bs_col = 0;
	bool indent = !lx->sub;
	memset(t, 0, offsetof(struct token, err));	/* its error record, last, is cleared, */
	error_clear(&t->err);	/* not wiped: its 5 KB for every token took 60% of a parse */
	if (indent && lx->pending > 0) {
		lx->pending--;
		lex_empty_token(lx, t, T_DEDENT, lx->col);
		return;
	}
	if (indent && lx->atbol && lx->depth == 0) {
		lx->atbol = false;
		if (lex_indentation(lx, t))
			return;
	}
	skip = lex_skip_space(lx, &space, &bs_line, &bs_col);
	t->start = lx->pos;
	t->line = lx->line;
	t->col = lx->col;
	t->space_before = space;
	if (skip == SKIP_CONTINUED_EOF) {
		while (lx->pos < lx->end)
			lex_advance(lx);
		lex_fail(lx, t, T_INCOMPLETE, bs_line, bs_col, "the input ends after a line continuation '\\'");
		return;
	}
	if (skip == SKIP_BAD_BACKSLASH) {
		lex_advance(lx);
		lex_fail(lx, t, T_ERROR, bs_line, bs_col, "'\\' continues a line only at the end of the line");
		return;
	}
	c = lex_peek(lx, 0);
	if (c < 0) {
		t->kind = T_EOF;
		if (indent && lx->depth == 0 && lx->line_has_tokens) {
			lx->line_has_tokens = false;
			t->kind = T_NEWLINE;
		} else if (indent && lx->depth == 0 && lx->nindent > 0) {
			lx->nindent--;
			t->kind = T_DEDENT;
		}
		return;
	}
	if (indent && lx->depth == 0)
		lx->line_has_tokens = c != '\n';
	if (c == '\n') {
		lex_advance(lx);
		t->kind = T_NEWLINE;
		lx->atbol = indent && lx->depth == 0;
	} else if (lex_is_ident_start(c)) {
		lex_name(lx, t);
	} else if (lex_is_digit(c) || (c == '.' && lex_is_digit(lex_peek(lx, 1)))) {
		lex_number(lx, t);
	} else if (c == '\'' || c == '"') {
		lex_string(lx, t, false, c, lex_peek(lx, 1) == c && lex_peek(lx, 2) == c);
	} else if (!lex_operator(lx, t)) {
		lex_bad_char(lx, t);
	}
	t->len = lx->pos - t->start;
}
