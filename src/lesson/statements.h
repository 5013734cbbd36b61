/* statements.h: where the statements of a step's code begin and end, as the
 * parser sees them, for the front ends that show the code and must not
 * include lang/ (view/page.c): a line that continues the statement begun on
 * a line before it (an open bracket, an operator at the end of a line, a
 * class's body) is shown after "... ", as Python's REPL shows it. */
#ifndef QKV_LESSON_STATEMENTS_H
#define QKV_LESSON_STATEMENTS_H

#include <stdbool.h>

/* Sets cont[i] for each of the nlines lines of code (joined with '\n', as
 * struct step holds them): true when line i belongs to a statement that
 * began on an earlier line. From a syntax error on (the step fails and
 * says so), lines count as beginning their own. */
void statements_mark_continued(const char *code, int nlines, bool *cont);

#endif
