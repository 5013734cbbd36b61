/* jsonpos.c: source positions for a cJSON tree, and the pre-scans that
 * place what cJSON refuses vaguely (see jsonpos.h). The walk trusts
 * nothing: it stops at the end of the text and at any character it does not
 * expect, so a mismatch can only lose positions, never read out of bounds.
 * Never prints, never fails. */
#include "lesson/jsonpos.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void add(struct jsonpos *m, const cJSON *node, size_t value, size_t key)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->entries = xrealloc(m->entries, sizeof *m->entries * m->cap);
	}
	m->entries[m->n++] = (struct jsonpos_entry){ node, value, key };
}

static size_t skip_ws(const char *t, size_t len, size_t p)
{
	while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r'))
		p++;
	return p;
}

/* p at an opening quote: returns the offset after the closing quote */
static size_t skip_string(const char *t, size_t len, size_t p)
{
	p++;
	while (p < len && t[p] != '"') {
		if (t[p] == '\\')
			p++;
		p++;
	}
	return p < len ? p + 1 : len;
}

static size_t skip_scalar(const char *t, size_t len, size_t p)
{
	while (p < len && !strchr(",]} \t\r\n", t[p]))
		p++;
	return p;
}

/* Walks the value of node starting at p; returns the offset after it. Depth
 * is bounded by cJSON's own nesting limit (CJSON_NESTING_LIMIT). */
static size_t walk(struct jsonpos *m, size_t p, const cJSON *node, size_t key)
{
	const char *t = m->text;
	size_t len = m->len;
	p = skip_ws(t, len, p);
	if (p >= len)
		return len;
	add(m, node, p, key);
	if (cJSON_IsObject(node) || cJSON_IsArray(node)) {
		bool obj = cJSON_IsObject(node);
		char close = obj ? '}' : ']';
		p++;
		for (const cJSON *c = node->child; c; c = c->next) {
			p = skip_ws(t, len, p);
			size_t k = (size_t)-1;
			if (obj) {
				if (p >= len || t[p] != '"')
					return len;
				k = p;
				p = skip_ws(t, len, skip_string(t, len, p));
				if (p >= len || t[p] != ':')
					return len;
				p++;
			}
			p = skip_ws(t, len, walk(m, p, c, k));
			if (p < len && t[p] == ',')
				p++;
		}
		p = skip_ws(t, len, p);
		return p < len && t[p] == close ? p + 1 : len;
	}
	if (t[p] == '"')
		return skip_string(t, len, p);
	return skip_scalar(t, len, p);
}

static int by_node(const void *a, const void *b)
{
	const struct jsonpos_entry *x = a, *y = b;
	return x->node < y->node ? -1 : x->node > y->node;
}

void jsonpos_build(struct jsonpos *m, const char *text, size_t len, const cJSON *root)
{
	memset(m, 0, sizeof *m);
	m->text = text;
	m->len = len;
	size_t p = 0;
	if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
	    (unsigned char)text[2] == 0xBF)
		p = 3;	/* a UTF-8 byte order mark */
	if (root)
		walk(m, p, root, (size_t)-1);
	qsort(m->entries, m->n, sizeof *m->entries, by_node);
	size_t cap = 64;
	m->lines = xmalloc(sizeof *m->lines * cap);
	m->lines[m->nlines++] = 0;
	for (const char *nl = text; text && (nl = memchr(nl, '\n', len - (size_t)(nl - text))) != NULL; nl++) {
		if (m->nlines == cap) {
			cap *= 2;
			m->lines = xrealloc(m->lines, sizeof *m->lines * cap);
		}
		m->lines[m->nlines++] = (size_t)(nl - text) + 1;
	}
}

void jsonpos_free(struct jsonpos *m)
{
	free(m->entries);
	free(m->lines);
	memset(m, 0, sizeof *m);
}

void jsonpos_linecol(const char *text, size_t len, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	for (size_t i = 0; i < off && i < len;) {
		if (text[i] == '\n') {
			l++;
			c = 1;
			i++;
			continue;
		}
		uint32_t cp;	/* count characters, not bytes (an invalid byte is one) */
		i += (size_t)utf8_decode(text + i, len - i, &cp);
		c++;
	}
	*line = l;
	*col = c;
}

static const struct jsonpos_entry *find(const struct jsonpos *m, const cJSON *node)
{
	struct jsonpos_entry key = { node, 0, 0 };
	return m->n ? bsearch(&key, m->entries, m->n, sizeof *m->entries, by_node) : NULL;
}

size_t jsonpos_offset(const struct jsonpos *m, const cJSON *node)
{
	const struct jsonpos_entry *e = find(m, node);
	return e ? e->value : (size_t)-1;
}

void jsonpos_of(const struct jsonpos *m, const cJSON *node, int key, int *line, int *col)
{
	const struct jsonpos_entry *e = find(m, node);
	*line = *col = 0;
	if (!e)
		return;
	size_t off = key && e->key != (size_t)-1 ? e->key : e->value;
	/* the last line beginning at or before off, then the columns from its
	 * start: what jsonpos_linecol counts from the top (no character it
	 * decodes spans a newline), without a scan of the text for each node */
	size_t lo = 0, hi = m->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	size_t start = m->lines[lo];
	jsonpos_linecol(m->text + start, m->len - start, off - start, line, col);
	*line += (int)lo;
}

/* bytes an escape sequence decodes to: \uXXXX may be 1-4 UTF-8 bytes */
static size_t escape_decoded_len(const char *t, size_t len, size_t p)
{
	if (p + 1 >= len || t[p + 1] != 'u' || p + 5 >= len)
		return 1;
	unsigned v = (unsigned)strtoul((char[]){ t[p + 2], t[p + 3], t[p + 4], t[p + 5], 0 }, NULL, 16);
	if (v >= 0xD800 && v <= 0xDBFF)
		return 4;	/* a surrogate pair: 4 bytes for both escapes */
	if (v >= 0xDC00 && v <= 0xDFFF)
		return 0;
	return v < 0x80 ? 1 : v < 0x800 ? 2 : 3;
}

void jsonpos_string_linecol(const char *text, size_t len, size_t str_off, size_t decoded_off, int *line,
			    int *col)
{
	size_t p = str_off + 1, d = 0;
	while (p < len && text[p] != '"' && d < decoded_off) {
		if (text[p] == '\\') {
			d += escape_decoded_len(text, len, p);
			p += (p + 1 < len && text[p + 1] == 'u') ? 6 : 2;
		} else {
			d++;
			p++;
		}
	}
	jsonpos_linecol(text, len, p < len ? p : len, line, col);
}

size_t jsonpos_too_deep(const char *text, size_t len, size_t start, int limit)
{
	int depth = 0;
	for (size_t i = start; i < len; i++) {
		char ch = text[i];
		if (ch == '"') {
			i = skip_string(text, len, i) - 1;
		} else if (ch == '[' || ch == '{') {
			if (++depth > limit)
				return i;
		} else if ((ch == ']' || ch == '}') && depth > 0) {
			depth--;
		}
	}
	return (size_t)-1;
}

/* The UTF-16 unit of the escape \uXXXX at p, or -1 when p holds no such
 * escape (four hex digits). */
static long unit_at(const char *t, size_t len, size_t p)
{
	if (p + 5 >= len || t[p] != '\\' || t[p + 1] != 'u')
		return -1;
	long v = 0;
	for (size_t k = p + 2; k < p + 6; k++) {
		int d = isdigit((unsigned char)t[k]) ? t[k] - '0'
			: isxdigit((unsigned char)t[k]) ? tolower((unsigned char)t[k]) - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

size_t jsonpos_bad_escape(const char *text, size_t len, size_t start, unsigned *unit)
{
	bool in_string = false;
	for (size_t i = start; i < len; i++) {
		if (!in_string) {
			in_string = text[i] == '"';
			continue;
		}
		if (text[i] == '"') {
			in_string = false;
			continue;
		}
		if (text[i] != '\\')
			continue;
		long u = unit_at(text, len, i);
		if (u < 0) {
			i++;	/* \" \\ \n ...: skip the escaped character */
			continue;
		}
		long low = u >= 0xD800 && u <= 0xDBFF ? unit_at(text, len, i + 6) : -1;
		if (u == 0 || (u >= 0xDC00 && u <= 0xDFFF) ||
		    (u >= 0xD800 && u <= 0xDBFF && !(low >= 0xDC00 && low <= 0xDFFF))) {
			*unit = (unsigned)u;
			return i;
		}
		i += low >= 0 ? 11 : 5;	/* past the escape (both of a pair) */
	}
	return (size_t)-1;
}
