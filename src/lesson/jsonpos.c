/* jsonpos.c: the strict check of a JSON text that names its first fault,
 * for the lesson loader before cJSON parses, and source positions for the
 * cJSON tree of a checked text (see jsonpos.h). The walk trusts nothing: it
 * stops at the end of the text and at any character it does not expect, so
 * a mismatch can only lose positions, never read out of bounds. Never
 * prints, never allocates in the check. */
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

/* a UTF-8 byte order mark at text[0] */
static bool has_bom(const char *text, size_t len)
{
	return len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0;
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
	size_t p = text && has_bom(text, len) ? 3 : 0;
	if (root)
		walk(m, p, root, (size_t)-1);
	qsort(m->entries, m->n, sizeof *m->entries, by_node);
	size_t cap = 64;
	m->lines = xmalloc(sizeof *m->lines * cap);
	m->lines[m->nlines++] = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\n' && (text[i] != '\r' || (i + 1 < len && text[i + 1] == '\n')))
			continue;	/* LF, CRLF (at its LF) and a lone CR end a line */
		if (m->nlines == cap) {
			cap *= 2;
			m->lines = xrealloc(m->lines, sizeof *m->lines * cap);
		}
		m->lines[m->nlines++] = i + 1;
	}
}

void jsonpos_free(struct jsonpos *m)
{
	free(m->entries);
	free(m->lines);
	memset(m, 0, sizeof *m);
}

/* Lines and columns of off from text[0], at line 1 column 1; a byte order
 * mark there takes no column when bom says so. */
static void count(const char *text, size_t len, size_t off, bool bom, int *line, int *col)
{
	int l = 1, c = 1;
	size_t i = bom && has_bom(text, len) ? 3 : 0;
	while (i < off && i < len) {
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
			l++;	/* LF, CRLF (at its LF) or a lone CR */
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

void jsonpos_linecol(const char *text, size_t len, size_t off, int *line, int *col)
{
	count(text, len, off, true, line, col);
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
	 * decodes spans a line break), without a scan of the text for each node */
	size_t lo = 0, hi = m->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	size_t start = m->lines[lo];
	count(m->text + start, m->len - start, off - start, lo == 0, line, col);
	*line += (int)lo;
}

/* The value of four hex digits at p, or -1. */
static long hex4(const char *t, size_t len, size_t p)
{
	if (p > len || len - p < 4)
		return -1;
	long v = 0;
	for (size_t k = p; k < p + 4; k++) {
		int d = isdigit((unsigned char)t[k]) ? t[k] - '0'
			: isxdigit((unsigned char)t[k]) ? tolower((unsigned char)t[k]) - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* bytes an escape sequence decodes to: \uXXXX may be 1-4 UTF-8 bytes */
static size_t escape_decoded_len(const char *t, size_t len, size_t p)
{
	long v = p + 1 < len && t[p + 1] == 'u' ? hex4(t, len, p + 2) : -1;
	if (v < 0)
		return 1;
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

/* ---- jsonpos_check ------------------------------------------------------ */

struct scan {
	const char *t;
	size_t len;
	int limit;
	struct jsonpos_fault *f;
};

#define NONE ((size_t)-1)

/* Records the fault; returns NONE, what every scan_ function returns after one. */
static size_t fault(struct scan *s, enum jsonpos_fault_kind kind, size_t at, size_t open)
{
	s->f->kind = kind;
	s->f->at = at;
	s->f->open = open;
	return NONE;
}

/* The text ended inside the string, array or object at open (NONE: inside nothing). */
static size_t ends(struct scan *s, size_t open)
{
	return fault(s, open == NONE ? JSONPOS_ENDS_EARLY : JSONPOS_ENDS_INSIDE, s->len, open);
}

/* The escape whose backslash is at i, in the string opened at open; returns
 * the offset after it. */
static size_t scan_escape(struct scan *s, size_t i, size_t open)
{
	const char *t = s->t;
	if (i + 1 >= s->len)
		return ends(s, open);
	if (t[i + 1] && strchr("\"\\/bfnrt", t[i + 1]))
		return i + 2;
	if (t[i + 1] != 'u')
		return fault(s, JSONPOS_BAD_ESCAPE, i, open);
	long u = hex4(t, s->len, i + 2);
	if (u < 0)
		return fault(s, JSONPOS_BAD_U_ESCAPE, i, open);
	s->f->unit = (unsigned)u;
	if (u == 0)
		return fault(s, JSONPOS_NUL_ESCAPE, i, open);
	if (u >= 0xDC00 && u <= 0xDFFF)
		return fault(s, JSONPOS_LONE_LOW, i, open);
	if (u < 0xD800 || u > 0xDBFF)
		return i + 6;
	if (i + 7 < s->len && t[i + 6] == '\\' && t[i + 7] == 'u') {
		long low = hex4(t, s->len, i + 8);
		if (low < 0)
			return fault(s, JSONPOS_BAD_U_ESCAPE, i + 6, open);
		if (low >= 0xDC00 && low <= 0xDFFF)
			return i + 12;
	}
	return fault(s, JSONPOS_LONE_HIGH, i, open);
}

/* p at an opening quote: returns the offset after the closing one. */
static size_t scan_string(struct scan *s, size_t p)
{
	for (size_t i = p + 1; i < s->len;) {
		unsigned char c = (unsigned char)s->t[i];
		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return fault(s, JSONPOS_CONTROL, i, p);
		if (c == '\\') {
			i = scan_escape(s, i, p);
			if (i == NONE)
				return NONE;
		} else {
			i++;
		}
	}
	return ends(s, p);
}

static size_t digits(const char *t, size_t len, size_t p)
{
	while (p < len && isdigit((unsigned char)t[p]))
		p++;
	return p;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at p, in the array or
 * object at open. */
static size_t scan_number(struct scan *s, size_t p, size_t open)
{
	const char *t = s->t;
	size_t len = s->len, q = p + (t[p] == '-');
	const char *why = NULL;
	if (q < len && t[q] == '0' && q + 1 < len && isdigit((unsigned char)t[q + 1]))
		why = "a number cannot begin with 0 followed by a digit";
	else if (q < len && !isdigit((unsigned char)t[q]))
		why = "a digit must follow the '-'";
	size_t d = digits(t, len, q);
	bool cut = d == q;	/* the text ends where a digit must come */
	if (!why && d < len && t[d] == '.') {
		q = d + 1;
		d = digits(t, len, q);
		cut = d == q;
		if (cut && d < len)
			why = "a digit must follow the '.'";
	}
	if (!why && d < len && (t[d] == 'e' || t[d] == 'E')) {
		q = d + 1 + (d + 1 < len && (t[d + 1] == '+' || t[d + 1] == '-'));
		d = digits(t, len, q);
		cut = d == q;
		if (cut && d < len)
			why = "the exponent needs a digit";
	}
	if (why) {
		s->f->word = why;
		return fault(s, JSONPOS_BAD_NUMBER, p, open);
	}
	return cut ? ends(s, open) : d;
}

/* Whether a value begins at p: what makes "a ',' is missing" likely. */
static bool starts_value(const char *t, size_t len, size_t p)
{
	static const char *const words[] = { "true", "false", "null" };
	if (strchr("\"{[-0123456789", t[p]))
		return true;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (len - p >= strlen(words[i]) && strncmp(t + p, words[i], strlen(words[i])) == 0)
			return true;
	return false;
}

static size_t scan_value(struct scan *s, size_t p, int depth, size_t open);

/* p at '[' or '{' at the given depth: returns the offset after its end. */
static size_t scan_container(struct scan *s, size_t p, int depth)
{
	const char *t = s->t;
	size_t len = s->len, open = p, comma = NONE;
	bool obj = t[p] == '{';
	char close = obj ? '}' : ']';
	p = skip_ws(t, len, p + 1);
	if (p < len && t[p] == close)
		return p + 1;
	for (;;) {
		if (p >= len)
			return ends(s, open);
		if (t[p] == close && comma != NONE)
			return fault(s, JSONPOS_TRAILING_COMMA, comma, p);
		if (obj) {
			if (t[p] != '"')
				return fault(s, isalpha((unsigned char)t[p]) || t[p] == '\'' ? JSONPOS_NAME_NOT_STRING
				                                                               : JSONPOS_UNEXPECTED, p, open);
			p = scan_string(s, p);
			if (p == NONE)
				return NONE;
			p = skip_ws(t, len, p);
			if (p >= len)
				return ends(s, open);
			if (t[p] != ':')
				return fault(s, starts_value(t, len, p) ? JSONPOS_MISSING_COLON : JSONPOS_UNEXPECTED, p,
					     open);
			p++;
		}
		p = scan_value(s, p, depth, open);
		if (p == NONE)
			return NONE;
		p = skip_ws(t, len, p);
		if (p >= len)
			return ends(s, open);
		if (t[p] == close)
			return p + 1;
		if (t[p] != ',')
			return fault(s, starts_value(t, len, p) ? JSONPOS_MISSING_COMMA : JSONPOS_UNEXPECTED, p, open);
		comma = p;
		p = skip_ws(t, len, p + 1);
	}
}

/* The value at p (after white space), inside the array or object at open
 * (NONE at the top), itself at the given depth: returns the offset after it. */
static size_t scan_value(struct scan *s, size_t p, int depth, size_t open)
{
	static const char *const nonfinite[] = { "NaN", "Infinity", "-Infinity", "nan", "inf", "-inf" };
	static const char *const words[] = { "true", "false", "null" };
	const char *t = s->t;
	size_t len = s->len;
	p = skip_ws(t, len, p);
	if (p >= len)
		return ends(s, open);
	if (t[p] == '[' || t[p] == '{') {
		if (depth + 1 > s->limit)
			return fault(s, JSONPOS_TOO_DEEP, p, open);
		return scan_container(s, p, depth + 1);
	}
	if (t[p] == '"')
		return scan_string(s, p);
	for (size_t i = 0; i < sizeof nonfinite / sizeof *nonfinite; i++) {
		size_t n = strlen(nonfinite[i]);
		if (len - p >= n && strncmp(t + p, nonfinite[i], n) == 0 &&
		    (len - p == n || !isalnum((unsigned char)t[p + n]))) {
			s->f->word = nonfinite[i];
			return fault(s, JSONPOS_NONFINITE, p, open);
		}
	}
	if (t[p] == '-' || isdigit((unsigned char)t[p]))
		return scan_number(s, p, open);
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t n = strlen(words[i]), have = len - p < n ? len - p : n;
		if (strncmp(t + p, words[i], have) != 0)
			continue;
		return have < n ? ends(s, open) : p + n;
	}
	return fault(s, JSONPOS_UNEXPECTED, p, open);
}

int jsonpos_check(const char *text, size_t len, size_t start, int limit, struct jsonpos_fault *f)
{
	*f = (struct jsonpos_fault){ JSONPOS_OK, NONE, NONE, 0, NULL };
	struct scan s = { text, len, limit, f };
	size_t p = skip_ws(text, len, start);
	if (p >= len) {
		fault(&s, JSONPOS_EMPTY, start, NONE);
		return -1;
	}
	p = scan_value(&s, p, 0, NONE);
	if (p == NONE)
		return -1;
	p = skip_ws(text, len, p);
	if (p < len) {
		fault(&s, JSONPOS_AFTER, p, NONE);
		return -1;
	}
	return 0;
}
