/* ui.h: the full-screen program (curses). The only part of qkv that touches
 * the terminal; it draws what src/view computes. */
#ifndef QKV_UI_UI_H
#define QKV_UI_UI_H

#include "kernel/kernel.h"

#include <stdbool.h>

struct ui_options {
	const char *lesson;       /* a LESSON argument, or NULL for the menu */
	int step;                 /* 1-based step to open at, 0 for the first */
	bool no_color;            /* --no-color */
	bool big;                 /* --big: presenter cells */
	bool repl;                /* --repl: a workspace view and the prompt only */
	enum kernel_variant variant;
};

/* Runs the program until the user quits. Returns the exit status: 0,
 * 128 + the signal when SIGTERM or SIGHUP ended it (143, 129: the terminal
 * restored and progress saved first), or 2
 * when the lesson given cannot be opened or curses cannot drive the
 * terminal (TERM=dumb, no terminfo entry, no TERM: refused before anything
 * is written to it); the message is printed on stderr, never on the screen. */
int ui_run(const struct ui_options *o);

#endif
