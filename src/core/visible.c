/* visible.c: control characters shown, not obeyed (see visible.h). Called
 * by the commands of cli/ for what they print, by text/render.c for a
 * lesson's text and by export/html.c for its page; the full screen gets the
 * same from curses. Pure but for visible_fputs. */
#include "core/visible.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <stdlib.h>
#include <string.h>

void visible_put(struct strbuf *out, const char *s, size_t n, int flags)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\t' || (c == '\n' && (flags & VISIBLE_NEWLINES))) {
			strbuf_putc(out, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7F) {
			strbuf_putc(out, '^');
			strbuf_putc(out, c == 0x7F ? '?' : (char)(c + '@'));
			i++;
		} else if (c < 0x80) {
			strbuf_putc(out, (char)c);
			i++;
		} else {
			uint32_t cp;
			int k = utf8_decode(s + i, n - i, &cp);
			if (k == 1)	/* a byte that is not UTF-8 */
				strbuf_printf(out, "\\x%02x", c);
			else if (cp >= 0x80 && cp < 0xA0)	/* a C1 control, as curses shows it */
				strbuf_printf(out, "~%c", (char)(cp - 0x80 + '@'));
			else
				strbuf_putn(out, s + i, (size_t)k);
			i += (size_t)k;
		}
	}
}

char *visible_copy(const char *s, int flags)
{
	if (!s)
		return NULL;
	struct strbuf sb;
	strbuf_init(&sb);
	visible_put(&sb, s, strlen(s), flags);
	return strbuf_detach(&sb);
}

void visible_in_place(char *buf, size_t size)
{
	if (size == 0)
		return;
	char *v = visible_copy(buf, 0);
	utf8_snprintf(buf, size, "%s", v);
	free(v);
}

void visible_fputs(const char *s, FILE *f)
{
	struct strbuf sb;
	strbuf_init(&sb);
	visible_put(&sb, s, strlen(s), VISIBLE_NEWLINES);
	fputs(sb.s, f);
	strbuf_free(&sb);
}
