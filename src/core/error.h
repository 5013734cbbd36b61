/* error.h: the error record every recoverable failure fills in.
 * A function that fails returns -1 or NULL and fills a struct qkv_error; only
 * main.c and ui/ decide what to do with it (print, exit 2, show in a status line). */
#ifndef QKV_CORE_ERROR_H
#define QKV_CORE_ERROR_H

#include <stdarg.h>

/* The longest message a record holds, its NUL included: room for a path as
 * long as the system takes (PATH_MAX, 4096 bytes) with the words around
 * it, so that a message naming a file keeps its end (the reason). */
#define ERROR_MSG_MAX (4096 + 1024)

struct qkv_error {
	int line;       /* 1-based; 0 when the error has no place */
	int col;        /* 1-based column of the offending character; 0 when unknown */
	char msg[ERROR_MSG_MAX];
};

/* Fills err (which may be NULL) with a printf-style message at line:col; a
 * message longer than ERROR_MSG_MAX is cut at a character and ends in "…",
 * never silently. Returns -1 so callers can write `return error_set(err, ...);`. */
int error_set(struct qkv_error *err, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int error_vset(struct qkv_error *err, int line, int col, const char *fmt, va_list ap);

/* Sets line:col only where the record has no place yet (inner code that knew
 * no position leaves it 0, the caller that does know fills it in). */
void error_locate(struct qkv_error *err, int line, int col);

/* No error: no place, an empty message (the bytes after its NUL are left
 * as they are: a record is cleared for every statement run). */
void error_clear(struct qkv_error *err);

#endif
