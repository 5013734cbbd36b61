/* strbuf.h: a growable string, the output type of every formatter.
 * s is always NUL-terminated once anything was appended (or after strbuf_init). */
#ifndef QKV_CORE_STRBUF_H
#define QKV_CORE_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s;
	size_t len;
	size_t cap;
};

void strbuf_init(struct strbuf *b);
void strbuf_free(struct strbuf *b);
void strbuf_reset(struct strbuf *b);                 /* len = 0, keeps memory */
void strbuf_putc(struct strbuf *b, char c);
void strbuf_puts(struct strbuf *b, const char *s);
void strbuf_putn(struct strbuf *b, const char *s, size_t n);
void strbuf_pad(struct strbuf *b, char c, size_t count);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller (free() it) and resets b. */
char *strbuf_detach(struct strbuf *b);

#endif
