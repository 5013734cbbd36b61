/* goto.c: the go-to state of the lesson screen: after 'g', digits typed in
 * the status line, Enter goes to that step (screen_go_to), Esc gives up.
 * Draws only the status line; the lesson screen draws the rest. */
#include "ui/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void goto_draw(struct app *a)
{
	int y = a->rows - 1;
	char buf[64];
	move(y, 0);
	clrtoeol();
	snprintf(buf, sizeof buf, " go to step (1-%d): %s", a->lesson->nsteps, a->goto_buf);
	term_put(y, 0, buf, a->cols);
}

void goto_key(struct app *a, int ch)
{
	size_t n = strlen(a->goto_buf);
	if (ch >= '0' && ch <= '9' && n < sizeof a->goto_buf - 1) {
		a->goto_buf[n] = (char)ch;
		a->goto_buf[n + 1] = 0;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0) {
		a->goto_buf[n - 1] = 0;
	} else if (ch == '\n' || ch == KEY_ENTER) {
		a->overlay = OVERLAY_NONE;
		int k = n ? atoi(a->goto_buf) : 0;
		if (n && (k < 1 || k > a->lesson->nsteps)) {
			snprintf(a->status, sizeof a->status, " There is no step %s: this lesson has steps 1 to %d.",
				 a->goto_buf, a->lesson->nsteps);
			a->status_error = true;
		} else if (n) {
			screen_go_to(a, k - 1);
		}
	} else if (ch == 27) {
		a->overlay = OVERLAY_NONE;
	}
}
