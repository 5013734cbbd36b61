/* progress.c: the progress line of a running timing on a terminal (see
 * progress.h), for cli/run.c and cli/check.c. Writes only to the stream it
 * was given, and only when that stream is a terminal; the only escape code
 * it uses is "erase to the end of the line". */
#include "text/progress.h"
#include "core/clock.h"
#include "core/utf8.h"
#include "core/visible.h"
#include "view/timing.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

bool text_progress_start(struct text_progress *tp, FILE *f)
{
	memset(tp, 0, sizeof *tp);
	tp->f = f;
	return isatty(fileno(f));
}

void text_progress_draw(void *ctx, const struct runner_progress *p)
{
	struct text_progress *tp = ctx;
	if (p->statement > 0 && !p->finished && clock_now_ms() - tp->drawn_ms < 50)
		return;
	struct winsize ws;
	int cols = ioctl(fileno(tp->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
	char line[600];
	timing_progress_text(line, sizeof line, p);
	visible_in_place(line, sizeof line);	/* it quotes the lesson's labels */
	/* one line, never wrapped (\r returns only to the start of the last):
	 * cut to cols - 1 columns, whole characters */
	size_t n = utf8_cut(line, cols - 1, NULL);
	fprintf(tp->f, "\r%.*s\033[K", (int)n, line);
	fflush(tp->f);
	tp->shown = true;
	tp->drawn_ms = clock_now_ms();
}

void text_progress_clear(struct text_progress *tp)
{
	if (tp->shown) {
		fputs("\r\033[K", tp->f);
		fflush(tp->f);
		tp->shown = false;
	}
}
