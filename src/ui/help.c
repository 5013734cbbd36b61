/* help.c: the help overlay: the lesson screen's keys in a box over
 * whatever screen is open. Esc, ? or q closes it; app.c shows it on '?'. */
#include "ui/internal.h"

void help_draw(struct app *a)
{
	static const char *const lines[] = {
		"Keys",
		"",
		"\u2192 n space  \u2190 p   next step, previous step",
		"g  Home  End   go to a step (its number, Enter), the first, the last",
		"Tab            move between the text and the view",
		"\u2191  \u2193  (text)   scroll the narration; PgUp PgDn a page",
		"arrows  hjkl   move the cell cursor (view); a mouse click selects a cell",
		"+  -           zoom the heatmap in and out",
		"[  ]           the previous / next 2-D slice of a 3-D or 4-D tensor",
		"v              the step's next view (when it shows several)",
		"s r e  < >     loops: one step, run/pause, to the end (r again), speed",
		"t  T  0        temperature: scores \u00d72, \u00f72, as the lesson has them",
		"b              big cells for a projector",
		":              the prompt: your own statements (:help there)",
		"Ctrl-C         stop what runs (steps, a timing, the loop animation,",
		"               a prompt line); Enter runs it again; else as q",
		"?              this help; Esc closes it",
		"q              back to the menu; q again quits",
	};
	int n = (int)(sizeof lines / sizeof lines[0]);
	int w = 78 < a->cols - 2 ? 78 : a->cols - 2, h = n + 2 < a->rows - 2 ? n + 2 : a->rows - 2;
	int y = (a->rows - h) / 2, x = (a->cols - w) / 2;
	for (int i = 0; i < h; i++) {
		mvhline(y + i, x, ' ', w);
	}
	attron(A_BOLD);
	term_box(y, x, h, w);
	attroff(A_BOLD);
	for (int i = 0; i < n && i < h - 2; i++) {
		if (i == 0)
			attron(A_BOLD);
		term_put(y + 1 + i, x + 2, lines[i], w - 4);
		if (i == 0)
			attroff(A_BOLD);
	}
}

void help_key(struct app *a, int ch)
{
	if (ch == 27 || ch == '?' || ch == 'q')
		a->overlay = OVERLAY_NONE;
}
