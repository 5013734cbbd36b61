/* progress.h: the progress line of a timing that runs, on a terminal, for
 * `qkv run` and `qkv check` (cli/): one line, rewritten in place with \r at
 * most every 50 ms and cleared once the step is done; the words are
 * view/timing's. Nothing is drawn when the stream is not a terminal. */
#ifndef QKV_TEXT_PROGRESS_H
#define QKV_TEXT_PROGRESS_H

#include "lesson/runner.h"

#include <stdbool.h>
#include <stdio.h>

struct text_progress {
	FILE *f;                /* where it is drawn (stderr) */
	double drawn_ms;        /* when it was last drawn */
	bool shown;             /* a line is on the terminal now */
};

/* Prepares tp to draw on f. True when f is a terminal: only then should the
 * caller hand text_progress_draw to the runner (runner_set_progress). */
bool text_progress_start(struct text_progress *tp, FILE *f);
/* A runner_progress_fn, ctx a struct text_progress: draws p, cut to the
 * terminal's width (never wrapped, so \r can rewrite it). */
void text_progress_draw(void *ctx, const struct runner_progress *p);
/* Clears the line, if one was drawn. */
void text_progress_clear(struct text_progress *tp);

#endif
