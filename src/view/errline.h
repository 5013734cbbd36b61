/* errline.h: the line of source an error is about and the caret under its
 * column, computed without a terminal, for every front end that shows one:
 * qkv repl and qkv eval print it (cli/caret.c), the full screen's prompt
 * draws it in its error area (ui/prompt.c). */
#ifndef QKV_VIEW_ERRLINE_H
#define QKV_VIEW_ERRLINE_H

#include <stdbool.h>
#include <stddef.h>

struct qkv_error;
struct strbuf;

/* Text that ran, its first line numbered first_line. */
struct errline_source {
	const char *text;
	size_t len;
	int first_line;
};

/* A line an error is about: borrowed from its source, without its '\n'. */
struct errline {
	const char *text;
	size_t len;
	int col;          /* 1-based column of the caret (characters, as the lexer counts) */
};

/* Line `line` of src (len bytes, its first line numbered first_line), the
 * caret at column col; false for a line src does not hold. */
bool errline_at(struct errline *e, const char *src, size_t len, int first_line, int line, int col);

/* Which source a function's line comes from when several can be it. */
enum errline_pick {
	ERRLINE_ONLY,   /* none: their lines are numbered alike, nothing tells which ran */
	ERRLINE_LAST,   /* the last one: each was typed after the others and numbered from 1,
	                   a later def of the name replacing an earlier one */
};

/* For an error raised inside a function (err->msg ends in its traceback,
 * "\n  line L, in NAME", L being err->line, err->col known): line L of the
 * source among the n given whose line L is in a function NAME (a def of it
 * above, or a lambda on it), without its indentation as Python's traceback
 * shows it, the caret at err->col. False when no source is, or (pick
 * ERRLINE_ONLY) more than one can be. */
bool errline_in_function(struct errline *e, const struct errline_source *sources, int n,
			 enum errline_pick pick, const struct qkv_error *err);

/* Whether line `line` of s lies in a function called name (a def of it
 * above, or a lambda on it). */
bool errline_defines(const struct errline_source *s, int line, const char *name);

/* The blanks before the caret: as many terminal columns as the characters
 * before its column take (two for a wide one such as 日, blanks past the
 * end of the line), each tab a tab (a terminal then moves the line and the
 * caret alike). Appended to pad. */
void errline_caret_pad(struct strbuf *pad, const struct errline *e);

/* The line and the caret under it as two rows of at most width columns,
 * each after an indentation of 4 (as qkv repl prints them): tabs become
 * blanks to the next multiple of 8 columns; a line wider than the rows is
 * cut at a character, "…" where it goes on, the part shown being the one
 * around the caret (which always shows). Appended to row and caret_row. */
void errline_fit(const struct errline *e, int width, struct strbuf *row, struct strbuf *caret_row);

#endif
