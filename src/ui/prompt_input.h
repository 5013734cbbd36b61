/* prompt_input.h: the state of the full screen's prompt that its two files
 * share: prompt.c (readline, running lines, the commands) keeps it, and
 * prompt_draw.c lays out and draws the input, its error and the matches
 * Tab listed from it. Only for those two. */
#ifndef QKV_UI_PROMPT_INPUT_H
#define QKV_UI_PROMPT_INPUT_H

#include "ui/internal.h"
#include "core/strbuf.h"
#include "view/errline.h"

struct prompt_input {
	struct strbuf block;       /* the lines of a block typed so far ("" at ">>> ") */
	int error_row;             /* 0, or the line of a multi-line input the error is on */
	char *error_input;         /* the input the error is about, as it went back into the line */
	size_t error_at;           /* the byte of it the caret is under */
	bool error_fresh;          /* it has just gone back (prompt_cursor_to_error) */
	struct errline error_fn;   /* for an error raised inside a function: its line
	                              (text owned, error_fn_text) with the caret, or none */
	char *error_fn_text;
	char **listed;             /* the matches Tab listed (readline's), until the next key */
	int nlisted;
	bool running;              /* a statement runs (frames say so) */
	bool showing;              /* :show EXPR computes (frames say so) */
};
extern struct prompt_input in;	/* prompt.c's */

/* prompt_draw.c: just after the input that failed came back into the line,
 * the cursor at its end: when the caret would be out of view there, the
 * cursor goes to the mistake instead. */
void prompt_cursor_to_error(struct app *a);

#endif
