/* strbuf.c: growable strings for the formatters and error messages.
 * Allocation goes through mem.c, so appending never fails. */
#include "core/strbuf.h"
#include "core/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(struct strbuf *b)
{
	b->cap = 64;
	b->len = 0;
	b->s = xmalloc(b->cap);
	b->s[0] = '\0';
}

void strbuf_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

static void grow(struct strbuf *b, size_t extra)
{
	if (!b->s)
		strbuf_init(b);
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap;
	while (b->len + extra + 1 > cap)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;	/* after: a MemoryError (core/mem.h) leaves b as it was */
}

void strbuf_putn(struct strbuf *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_puts(struct strbuf *b, const char *s)
{
	strbuf_putn(b, s, strlen(s));
}

void strbuf_putc(struct strbuf *b, char c)
{
	strbuf_putn(b, &c, 1);
}

void strbuf_pad(struct strbuf *b, char c, size_t count)
{
	grow(b, count);
	memset(b->s + b->len, c, count);
	b->len += count;
	b->s[b->len] = '\0';
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *strbuf_detach(struct strbuf *b)
{
	if (!b->s)
		strbuf_init(b);
	char *s = b->s;
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}
