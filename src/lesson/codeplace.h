/* codeplace.h: where a line of a lesson's code is in the lesson file.
 *
 * The lines of all the code a lesson holds are numbered one after another,
 * lesson-wide: the steps' code in order (a step without code takes no
 * lines), then every timing entry's code, then every exercise's solution,
 * in the order of the file. The runner runs each block numbered so (and
 * :load runs the steps' code as one text, numbered alike), so the line of
 * a function reported by an error raised in it steps after its def still
 * names one place in the file. */
#ifndef QKV_LESSON_CODEPLACE_H
#define QKV_LESSON_CODEPLACE_H

#include "core/strbuf.h"
#include "lesson/lesson.h"

#include <stdbool.h>

/* The steps' code as one text, numbered lesson-wide from its first line
 * (what :load runs of a lesson), appended to out. */
void codeplace_steps_code(const struct lesson *l, struct strbuf *out);

/* The lesson-wide number of the first line of the block whose lines are
 * `lines` (a step's, a timing entry's or a solution's); 1 for a block the
 * lesson does not hold. */
int codeplace_first_line(const struct lesson *l, const struct code_line *lines);

/* The place of column col (characters, from 1) of lesson-wide line `line`:
 * *at in the file and *path (malloc'd: "steps[3].code[1]") naming it.
 * False, with nothing set, for a line no block holds. With step not NULL,
 * *step is the index of the step whose code holds it, or -1 when a timing
 * entry's or a solution's does. */
bool codeplace_find(const struct lesson *l, int line, int col, struct loc *at, char **path, int *step);

/* The column (from 1) of the first character of lesson-wide line `line`
 * that is not a blank (1 for a line no block holds). */
int codeplace_indent_col(const struct lesson *l, int line);

/* msg (an error's, its traceback "\n  line L, in NAME" entries at its end,
 * outermost first, L counted lesson-wide) into out, each entry naming its
 * place in the file instead ("\n  FILE:LINE:COL: steps[0].code[2], in f"):
 * the innermost at column col when its line is err_line, the others at
 * their line's first character. An entry no block holds stays as it is. */
void codeplace_traceback(const struct lesson *l, const char *msg, int err_line, int col, struct strbuf *out);

/* An error e raised running lesson code, stmt_line the lesson-wide first
 * line of the statement that was running, into err as "FILE:LINE:COL:
 * PATH: message": at e's place, or (raised inside a function) at the
 * statement, its traceback naming the function's lines. A line no block
 * holds is named by path (without a position). Returns -1. */
int codeplace_error(const struct lesson *l, const struct qkv_error *e, int stmt_line, const char *path,
		    struct qkv_error *err);

/* Whether msg holds a traceback: an error raised inside a function. */
bool codeplace_has_traceback(const char *msg);

#endif
