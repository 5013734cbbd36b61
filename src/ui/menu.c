/* menu.c: the lesson menu qkv opens with: the built-in lessons and those of
 * $QKV_LESSONS, each with its progress (not started, the furthest step, or
 * done). Enter opens the selected lesson. */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

void menu_draw(struct app *a)
{
	erase();
	attron(A_REVERSE);
	mvhline(0, 0, ' ', a->cols);
	term_put(0, 1, "qkv \u2014 attention, step by step", a->cols - 2);
	attroff(A_REVERSE);
	term_put(2, 2, "Choose a lesson (\u2191/\u2193, Enter), ? for help, q to quit:", a->cols - 4);
	int y = 4;
	for (int i = 0; i < a->catalog.n && y < a->rows - 3; i++, y++) {
		const struct catalog_entry *e = &a->catalog.entries[i];
		char line[512], mark[64] = "";
		if (e->lesson) {
			const struct progress_entry *p = progress_get(&a->progress, e->lesson->id);
			if (p && p->furthest >= e->lesson->nsteps)
				snprintf(mark, sizeof mark, "\u2713 done");
			else if (p && p->furthest > 0)
				snprintf(mark, sizeof mark, "\u25d0 %d/%d", p->furthest, e->lesson->nsteps);
			/* exercises: solved ones are stored as "id#step.k" */
			int total = 0, done = 0;
			for (int s = 0; s < e->lesson->nsteps; s++) {
				for (int k = 0; k < e->lesson->steps[s].nexercises; k++) {
					char key[160];
					snprintf(key, sizeof key, "%s#%d.%d", e->lesson->id, s, k);
					total++;
					done += progress_get(&a->progress, key) != NULL;
				}
			}
			if (total) {
				size_t ml = strlen(mark);
				snprintf(mark + ml, sizeof mark - ml, "%s\u270e %d/%d", ml ? " " : "", done, total);
			}
			/* pad the mark by columns: "◐" is one column but three bytes */
			int pad = 18 - term_width_of(mark);
			snprintf(line, sizeof line, " %2d  %s%*s %s (%d steps)", i + 1, mark, pad > 0 ? pad : 0, "",
				 e->lesson->title, e->lesson->nsteps);
		} else {
			snprintf(line, sizeof line, " %2d  %-18s (cannot be loaded: %s)", i + 1, "", e->error);
		}
		if (i == a->menu_sel)
			attron(A_REVERSE);
		mvhline(y, 1, ' ', a->cols - 2);
		term_put(y, 1, line, a->cols - 2);
		if (i == a->menu_sel)
			attroff(A_REVERSE);
	}
	if (a->catalog.n > 0 && a->catalog.entries[a->menu_sel].lesson) {
		attron(A_DIM);
		draw_wrapped(a->catalog.entries[a->menu_sel].lesson->summary, y + 1, 2, a->cols - 4, a->rows - y - 3, 0,
			     A_NORMAL);
		attroff(A_DIM);
	}
	move(a->rows - 1, 0);
	clrtoeol();
	if (a->status[0])
		term_put(a->rows - 1, 0, a->status, a->cols);
}

void menu_key(struct app *a, int ch)
{
	switch (ch) {
	case KEY_UP: case 'k':
		if (a->menu_sel > 0)
			a->menu_sel--;
		break;
	case KEY_DOWN: case 'j':
		if (a->menu_sel + 1 < a->catalog.n)
			a->menu_sel++;
		break;
	case '\n': case KEY_ENTER: case KEY_RIGHT: case ' ': {
		char num[16];
		snprintf(num, sizeof num, "%d", a->menu_sel + 1);
		screen_open(a, num, 0);
		break;
	}
	default:
		if (ch >= '1' && ch <= '9' && ch - '1' < a->catalog.n)
			a->menu_sel = ch - '1';
		break;
	}
}

void help_draw(struct app *a)
{
	static const char *const lines[] = {
		"Keys",
		"",
		"\u2192  n  space    next step",
		"\u2190  p           previous step",
		"g              go to a step (type its number, Enter)",
		"Home  End      first, last step",
		"Tab            move between the text and the view",
		"\u2191  \u2193  (text)   scroll the narration",
		"arrows  hjkl   move the cell cursor (view)",
		"mouse click    select a cell",
		"+  -           zoom the heatmap in and out",
		"[  ]           the previous / next 2-D slice of a 3-D or 4-D tensor",
		"v              the step's next view (when it shows several)",
		"s  r  <  >     loops: one iteration, run or pause, slower, faster",
		"b              big cells for a projector",
		":              the prompt: your own statements (:help there)",
		"Ctrl-C         stop what runs (steps, a timing, a prompt line);",
		"               Enter then runs it again; with nothing running, quits",
		"?              this help; Esc closes it",
		"q              back to the menu; q again quits",
	};
	int n = (int)(sizeof lines / sizeof lines[0]);
	int w = 74 < a->cols - 4 ? 74 : a->cols - 4, h = n + 2 < a->rows - 2 ? n + 2 : a->rows - 2;
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
