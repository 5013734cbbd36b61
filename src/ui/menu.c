/* menu.c: the lesson menu qkv opens with: the built-in lessons, in the order
 * of a learning path, and those of $QKV_LESSONS, each with its progress (not
 * started, the furthest step, or done). Enter asks app.c to open the
 * selected lesson (a->open_request). */
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
	term_put(2, 2, "Choose a lesson (\u2191/\u2193 and Enter, or its number), ? for help, q to quit:", a->cols - 4);
	attron(A_DIM);
	term_put(3, 2, "A learning path, simplest first: each lesson builds on the ones above it.", a->cols - 4);
	attroff(A_DIM);
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
		draw_fit(y, 1, line, a->cols - 2);
		if (i == a->menu_sel)
			attroff(A_REVERSE);
	}
	if (a->catalog.n > 0 && a->catalog.entries[a->menu_sel].lesson) {
		attron(A_DIM);
		draw_wrapped(a->catalog.entries[a->menu_sel].lesson->summary, y + 1, 2, a->cols - 4, a->rows - y - 3, 0,
			     A_NORMAL);
		attroff(A_DIM);
	}
	/* what the marks mean */
	attron(A_DIM);
	term_put(a->rows - 2, 2, "\u25d0 7/14 furthest step reached   \u2713 done   \u270e 3/11 exercises solved", a->cols - 4);
	attroff(A_DIM);
	move(a->rows - 1, 0);
	clrtoeol();
	if (a->status[0])
		term_put(a->rows - 1, 0, a->status, a->cols);
}

/* Selects lesson i of the menu, held within the list. */
static void menu_select(struct app *a, int i)
{
	a->menu_sel = i >= a->catalog.n ? a->catalog.n - 1 : i;
	if (a->menu_sel < 0)
		a->menu_sel = 0;
}

void menu_key(struct app *a, int ch)
{
	a->status[0] = 0;
	a->status_error = false;
	switch (ch) {
	case KEY_UP: case 'k': menu_select(a, a->menu_sel - 1); break;
	case KEY_DOWN: case 'j': menu_select(a, a->menu_sel + 1); break;
	case KEY_HOME: case 'g': menu_select(a, 0); break;
	case KEY_END: case 'G': menu_select(a, a->catalog.n - 1); break;
	case KEY_PPAGE: menu_select(a, a->menu_sel - 10); break;
	case KEY_NPAGE: menu_select(a, a->menu_sel + 10); break;
	case '\n': case KEY_ENTER: case KEY_RIGHT: case ' ':
		a->open_request = a->menu_sel + 1;	/* app.c opens it */
		break;
	default:
		/* a lesson's number opens it */
		if (ch >= '1' && ch <= '9' && ch - '1' < a->catalog.n) {
			a->menu_sel = ch - '1';
			a->open_request = a->menu_sel + 1;
		} else if (ch >= '0' && ch <= '9') {
			snprintf(a->status, sizeof a->status, " There is no lesson %c: they are numbered 1 to %d.", ch,
				 a->catalog.n);
			a->status_error = true;
		}
		break;
	}
}
