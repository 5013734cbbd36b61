/* statements.h: where the statements of a step's code, a typed block or a
 * pasted cell begin and end, as the parser sees them, for the front ends
 * that must not include lang/: view/page.c shows a line that continues the
 * statement begun on a line before it (an open bracket, an operator at the
 * end of a line, a class's body) after "... ", as Python's REPL shows it;
 * the prompts (ui/prompt.c, cli/repl.c) learn when a block typed line by
 * line is finished, how deep the next line is indented, and where each
 * statement of a pasted cell ends, to run it one statement at a time;
 * the full screen's prompt, the name the value a line made goes by. */
#ifndef QKV_LESSON_STATEMENTS_H
#define QKV_LESSON_STATEMENTS_H

#include <stdbool.h>
#include <stddef.h>

/* Sets cont[i] for each of the nlines lines of code (joined with '\n', as
 * struct step holds them): true when line i belongs to a statement that
 * began on an earlier line. From a syntax error on (the step fails and
 * says so), lines count as beginning their own. */
void statements_mark_continued(const char *code, int nlines, bool *cont);

/* True when the lines of src (typed at a prompt) hold a compound statement
 * (a line ending in ':' outside brackets, strings and comments, or a
 * %%time cell): as in Python's REPL it ends only at an empty line. */
bool statements_opens_block(const char *src, size_t len);

/* True when src ends with an empty line (or one of only spaces and tabs)
 * after some text: the line that ends a block typed at a prompt. */
bool statements_ends_with_empty_line(const char *src, size_t len);

/* The indentation, in columns, a prompt offers on the line after src's
 * last one while src is unfinished: that line's own, 4 more after a line
 * ending in ':', 4 fewer after return, pass, break, continue or raise
 * (never below 0). Blank lines are skipped; a tab counts to the next
 * multiple of 8 columns, as Python counts it. */
int statements_indent(const char *src, size_t len);

enum statements_split {
	STATEMENTS_NONE,        /* src holds no statement (blank lines, comments) */
	STATEMENTS_ONE,         /* *end: where the first statement's last line ends */
	STATEMENTS_INCOMPLETE,  /* src ends inside the first statement */
	STATEMENTS_ERROR,       /* the first statement is a syntax error (*end = len) */
};
/* The first statement of src as a file or a notebook cell holds it (the end
 * of the input ends a block): *end is just past the '\n' of the line it ends
 * on (or len), together with the statements that share its lines (`a = 1;
 * b = 2`) and the blank lines and comments before it. For running a pasted
 * cell, or lines read from a pipe, one statement at a time. */
enum statements_split statements_first(const char *src, size_t len, size_t *end);

enum statements_name {
	STATEMENTS_NAME_NONE,        /* no name: a statement, a target not a name, a syntax error */
	STATEMENTS_NAME_ASSIGNED,    /* buf: the name its last statement assigns (X = ..., X += ...) */
	STATEMENTS_NAME_EXPRESSION,  /* buf: the text of its last statement, an expression (Q @ K.T) */
};
/* What the value a line made (typed at a prompt, as one line) goes by,
 * parsed as the runner parses it: its last statement, passing over the
 * print(...) calls that end the line (they make no value: "X = ...;
 * print(X)" names X). buf gets the name or the text (cut to size). */
enum statements_name statements_value_name(const char *line, char *buf, size_t size);

#endif
