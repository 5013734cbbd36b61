/* visible.h: text bound for a terminal or a page that a lesson or the
 * user's input may have filled, with every control character shown instead
 * of obeyed,
 * as curses shows it on the full screen: ^[ for ESC, ^G for BEL, ^? for
 * DEL, ~[ for the C1 control U+009B (CSI), and \xNN for a byte that is not
 * UTF-8. So a lesson's title cannot set the window title or clear the
 * screen of whoever lists, runs or checks it. Tabs stay; newlines stay
 * only where asked. */
#ifndef QKV_CORE_VISIBLE_H
#define QKV_CORE_VISIBLE_H

#include "core/strbuf.h"

#include <stddef.h>
#include <stdio.h>

enum {
	VISIBLE_NEWLINES = 1,   /* keep '\n' (a message of several lines); else it shows as ^J */
};

/* Appends s[0..n) to out, its control characters made visible. */
void visible_put(struct strbuf *out, const char *s, size_t n, int flags);
/* A visible copy of s (malloc'd; NULL for NULL). */
char *visible_copy(const char *s, int flags);
/* Makes the NUL-terminated text in buf[0..size) visible in place, cut at a
 * character boundary when the longer form does not fit. */
void visible_in_place(char *buf, size_t size);
/* Writes s to f, its control characters made visible (newlines kept). */
void visible_fputs(const char *s, FILE *f);

#endif
