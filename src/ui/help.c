/* help.c: the help overlay: the lesson screen's keys in a box over
 * whatever screen is open. Esc, ? or q closes it; app.c shows it on '?'. */
#include "ui/internal.h"

/* The keys and what they do; the second column starts where the widest
 * first one ends, measured as drawn (in ASCII an arrow takes two columns). */
static const char *const keys[][2] = {
	{ "\u2192 n space \u2190 p", "next step, previous step" },
	{ "g  Home  End", "go to a step (its number, Enter), the first, the last" },
	{ "Tab", "move between the text and the view" },
	{ "\u2191  \u2193  (text)", "scroll the narration; PgUp PgDn a page" },
	{ "arrows  hjkl", "move the cell cursor (view); a mouse click selects a cell" },
	{ "+  -", "zoom the heatmap in and out" },
	{ "[  ]", "the previous / next 2-D slice of a 3-D or 4-D tensor" },
	{ "v", "the step's next view (when it shows several)" },
	{ "s r e  < >", "loops, unrolled, SIMD: a step each, run/pause, end, speed" },
	{ "x", "the next pair of them, where only two fit (80 columns)" },
	{ "t  T  0", "temperature: scores \u00d72, \u00f72, as the lesson has them" },
	{ "b", "big cells for a projector" },
	{ "e  E", "export the view to a new SVG file (E in the loops view)" },
	{ ":", "the prompt: your statements (:help there; Esc closes it)" },
	{ "Ctrl-C", "stop what runs (steps, a timing, the loop animation," },
	{ "", "a prompt line); Enter runs it again; else as q" },
	{ "?", "this help; Esc closes it" },
	{ "q", "back to the menu, q there quits (qkv LESSON: quits at once)" },
};

void help_draw(struct app *a)
{
	int n = (int)(sizeof keys / sizeof keys[0]) + 2;	/* with the title and a blank line */
	int w = 78 < a->cols - 2 ? 78 : a->cols - 2, h = n + 2 < a->rows - 2 ? n + 2 : a->rows - 2;
	int y = (a->rows - h) / 2, x = (a->cols - w) / 2;
	for (int i = 0; i < h; i++) {
		mvhline(y + i, x, ' ', w);
	}
	attron(A_BOLD);
	term_box(y, x, h, w);
	if (h > 2)
		term_put(y + 1, x + 2, "Keys", w - 4);
	attroff(A_BOLD);
	int kw = 0;
	for (int i = 0; i < n - 2; i++) {
		int k = term_width_of(keys[i][0]);
		kw = k > kw ? k : kw;
	}
	for (int i = 2; i < n && i < h - 2; i++) {
		term_put(y + 1 + i, x + 2, keys[i - 2][0], w - 4);
		term_put(y + 1 + i, x + 2 + kw + 2, keys[i - 2][1], w - 4 - kw - 2);
	}
}

void help_key(struct app *a, int ch)
{
	if (ch == 27 || ch == '?' || ch == 'q')
		a->overlay = OVERLAY_NONE;
}
