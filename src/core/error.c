/* error.c: fills struct qkv_error records.
 * Used by every layer to report recoverable errors upward; never prints and
 * never exits. */
#include "core/error.h"
#include "core/utf8.h"

#include <stdio.h>
#include <string.h>

/* msg (size bytes, full) was cut: its last characters make way for "…". */
static void mark_cut(char *msg, size_t size)
{
	static const char more[] = "\u2026";
	size_t n = strlen(msg);
	while (n > 0 && n + sizeof more > size)
		while (n > 0 && (msg[--n] & 0xC0) == 0x80)
			;	/* back over a whole character */
	memcpy(msg + n, more, sizeof more);
}

int error_vset(struct qkv_error *err, int line, int col, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->line = line;
	err->col = col;
	if (utf8_vsnprintf(err->msg, sizeof err->msg, fmt, ap) >= (int)sizeof err->msg)
		mark_cut(err->msg, sizeof err->msg);
	return -1;
}

int error_set(struct qkv_error *err, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

void error_locate(struct qkv_error *err, int line, int col)
{
	if (err && err->line == 0 && err->col == 0) {
		err->line = line;
		err->col = col;
	}
}

void error_clear(struct qkv_error *err)
{
	if (err) {
		err->line = err->col = 0;
		err->msg[0] = 0;
	}
}
