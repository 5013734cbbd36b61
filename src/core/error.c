/* error.c: fills struct qkv_error records.
 * Used by every layer to report recoverable errors upward; never prints and
 * never exits. */
#include "core/error.h"

#include <stdio.h>
#include <string.h>

int error_vset(struct qkv_error *err, int line, int col, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->line = line;
	err->col = col;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
	if (err)
		memset(err, 0, sizeof *err);
}
