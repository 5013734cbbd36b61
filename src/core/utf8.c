/* utf8.c: UTF-8 decoding, terminal widths, cutting, fitting and word wrap
 * (see utf8.h), for every place that lays text out in columns: ui/, text/,
 * view/ and the lesson loader's messages. Pure: never allocates (but through
 * the caller's strbuf), never reads the locale, never rejects a byte. */
#include "core/utf8.h"
#include "core/strbuf.h"

#include <stdio.h>
#include <string.h>

#define REPLACEMENT 0xFFFDu

int utf8_encode(char buf[4], uint32_t cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xC0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xE0 | cp >> 12);
		buf[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		buf[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	buf[0] = (char)(0xF0 | cp >> 18);
	buf[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	buf[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	buf[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

int utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	/* the sequence's length, and the range of its second byte that rules
	 * out overlong forms, surrogates and code points beyond U+10FFFF */
	int len;
	unsigned lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*cp = REPLACEMENT;	/* a continuation byte, C0, C1 or F5..FF */
		return 1;
	}
	if (n < (size_t)len || u[1] < lo || u[1] > hi) {
		*cp = REPLACEMENT;
		return 1;
	}
	uint32_t v = c & (0x7Fu >> len);
	for (int k = 1; k < len; k++) {
		if ((u[k] & 0xC0) != 0x80) {	/* a NUL stops here too */
			*cp = REPLACEMENT;
			return 1;
		}
		v = (v << 6) | (u[k] & 0x3Fu);
	}
	*cp = v;
	return len;
}

size_t utf8_count_n(const char *s, size_t n)
{
	size_t count = 0, len = strnlen(s, n);
	uint32_t cp;
	for (size_t i = 0; i < len; count++)
		i += (size_t)utf8_decode(s + i, len - i, &cp);
	return count;
}

size_t utf8_count(const char *s)
{
	return utf8_count_n(s, strlen(s));
}

size_t utf8_offset_n(const char *s, size_t n, size_t k)
{
	size_t i = 0, len = strnlen(s, n);
	uint32_t cp;
	for (; k > 0 && i < len; k--)
		i += (size_t)utf8_decode(s + i, len - i, &cp);
	return i;
}

size_t utf8_offset(const char *s, size_t k)
{
	return utf8_offset_n(s, strlen(s), k);
}

void utf8_offsets(const char *s, size_t *offs, size_t count)
{
	size_t i = 0, len = strlen(s);
	uint32_t cp;
	for (size_t k = 0; k < count && i < len; k++) {
		offs[k] = i;
		i += (size_t)utf8_decode(s + i, len - i, &cp);
	}
	offs[count] = i;
}

/* ---- widths ------------------------------------------------------------------ */

struct cp_range {
	uint32_t first, last;
};

#include "core/utf8_table.inc"

/* Whether cp lies in one of the n sorted, disjoint ranges of table. */
static int in_table(uint32_t cp, const struct cp_range *table, size_t n)
{
	if (cp < table[0].first || cp > table[n - 1].last)
		return 0;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp > table[mid].last)
			lo = mid + 1;
		else if (cp < table[mid].first)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

int utf8_cp_width(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
		return cp == '\t' ? 1 : 0;
	if (cp < 0x300)
		return 1;	/* ASCII and Latin letters: the common case */
	if (in_table(cp, zero_width, sizeof zero_width / sizeof *zero_width))
		return 0;
	if (in_table(cp, double_width, sizeof double_width / sizeof *double_width))
		return 2;
	return 1;
}

int utf8_width_n(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n && s[i];) {
		uint32_t cp;
		i += (size_t)utf8_decode(s + i, n - i, &cp);
		w += utf8_cp_width(cp);
	}
	return w;
}

int utf8_width(const char *s)
{
	return utf8_width_n(s, SIZE_MAX);
}

/* ---- cutting and fitting ------------------------------------------------------- */

size_t utf8_cut_n(const char *s, size_t n, int maxw, int *width)
{
	size_t i = 0;
	int w = 0;
	while (maxw > 0 && i < n && s[i]) {
		uint32_t cp;
		int len = utf8_decode(s + i, n - i, &cp);
		int cw = utf8_cp_width(cp);
		if (w + cw > maxw)
			break;
		w += cw;
		i += (size_t)len;
	}
	if (width)
		*width = w;
	return i;
}

size_t utf8_cut(const char *s, int maxw, int *width)
{
	return utf8_cut_n(s, SIZE_MAX, maxw, width);
}

void utf8_fit(struct strbuf *out, const char *s, int width, int align)
{
	if (width <= 0)
		return;
	int w = utf8_width(s);
	size_t n = strlen(s);
	const char *ell = "";
	if (w > width) {
		n = utf8_cut(s, width - 1, &w);
		ell = "\u2026";
		w++;
	}
	size_t pad = (size_t)(width - w);
	if (align > 0)
		strbuf_pad(out, ' ', pad);
	strbuf_putn(out, s, n);
	strbuf_puts(out, ell);
	if (align < 0)
		strbuf_pad(out, ' ', pad);
}

/* ---- word wrap -------------------------------------------------------------------- */

/* The line being built: text[start, end) takes col columns; words says
 * whether it holds a word yet (else at most the paragraph's indent). */
struct wrap_state {
	utf8_line_fn fn;
	void *udata;
	int lines;
	const char *start, *end;
	int col;
	int words;
};

static void wrap_emit(struct wrap_state *st)
{
	if (st->fn)
		st->fn(st->udata, st->start, (size_t)(st->end - st->start));
	st->lines++;
}

/* Starts an empty line at p. */
static void wrap_restart(struct wrap_state *st, const char *p)
{
	st->start = st->end = p;
	st->col = 0;
	st->words = 0;
}

/* Places the word [w, we), ww columns wide, after the line so far. */
static void wrap_word(struct wrap_state *st, const char *w, const char *we, int ww, int width)
{
	int gap = st->words ? (int)(w - st->end) : 0;	/* the spaces before it, one column each */
	if (st->col + gap + ww <= width) {
		st->end = we;
		st->col += gap + ww;
		st->words = 1;
		return;
	}
	if (st->words) {
		wrap_emit(st);
		wrap_restart(st, w);
		if (ww <= width) {
			st->end = we;
			st->col = ww;
			st->words = 1;
			return;
		}
	}
	/* wider than the room on a line without a word: cut it into pieces,
	 * the last of which stays on the line for the words that follow */
	for (const char *p = w;;) {
		int cw;
		size_t take = utf8_cut_n(p, (size_t)(we - p), width - st->col, &cw);
		if (take == 0 && st->col > 0) {
			wrap_restart(st, p);	/* not one character fits after the indent */
			continue;
		}
		if (take == 0) {	/* a character wider than the whole line */
			uint32_t cp;
			take = (size_t)utf8_decode(p, (size_t)(we - p), &cp);
			cw = utf8_cp_width(cp);
		}
		p += take;
		st->end = p;
		st->col += cw;
		st->words = 1;
		if (p == we)
			return;
		wrap_emit(st);
		wrap_restart(st, p);
	}
}

int utf8_wrap(const char *text, int width, utf8_line_fn line, void *udata)
{
	struct wrap_state st = { line, udata, 0, NULL, NULL, 0, 0 };
	if (width < 1)
		width = 1;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		/* the paragraph's indent stays when a character fits after it */
		const char *q = p;
		while (q < end && *q == ' ')
			q++;
		wrap_restart(&st, p);
		if ((int)(q - p) < width)
			st.col = (int)(q - p);
		else
			st.start = st.end = q;
		while (q < end) {
			const char *w = q;
			while (q < end && *q != ' ')
				q++;
			wrap_word(&st, w, q, utf8_width_n(w, (size_t)(q - w)), width);
			while (q < end && *q == ' ')
				q++;
		}
		if (!st.words)
			st.end = st.start;	/* a paragraph of spaces: an empty line */
		wrap_emit(&st);
		p = nl ? nl + 1 : end;
	}
	return st.lines;
}

/* ---- formatting ------------------------------------------------------------------ */

/* Removes from the end of s[0, len) a multi-byte character cut short. */
static void trim_partial(char *s, size_t len)
{
	size_t i = len, back = 0;
	while (i > 0 && back < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
		i--;
		back++;
	}
	if (i == 0)
		return;
	unsigned c = (unsigned char)s[i - 1];
	size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	if (c >= 0xC0 && need > back + 1)
		s[i - 1] = 0;
}

int utf8_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);
	if (n >= 0 && size > 0 && (size_t)n >= size)
		trim_partial(buf, size - 1);
	return n;
}

int utf8_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = utf8_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
