/* parser.h: statements of the notebook language, one at a time (a compound
 * statement, such as a whole for loop or def, is one).
 * The parser reads a whole source text (a file, a -e argument, or the lines a
 * REPL collected) and hands back one statement tree per call, so a caller can
 * run each statement before the next is parsed: an error on line 9 leaves the
 * first 8 statements run. */
#ifndef QKV_LANG_PARSER_H
#define QKV_LANG_PARSER_H

#include "core/error.h"
#include "lang/ast.h"

#include <stdbool.h>
#include <stddef.h>

#define PARSE_MAX_DEPTH 64        /* nesting of brackets and sub-expressions */
#define PARSE_MAX_HEIGHT 3000     /* nodes on any root-to-leaf path of a returned tree, so
                                     tree walkers may recurse freely: a chain such as
                                     1 + 1 + ... of about 3000 terms, as CPython 3.11 */

struct parser;

/* src must stay alive while the parser is used; line/col start at first_line, 1.
 * src may hold any bytes (NUL included): len is authoritative. Columns count
 * characters (a UTF-8 sequence or a tab is one column). Never returns NULL;
 * free with parser_free (which accepts NULL). */
struct parser *parser_new(const char *src, size_t len, int first_line);
void parser_free(struct parser *p);

/* Interactive mode (a REPL, interp_check_complete): as in Python's REPL, a
 * compound statement (if/for/while/def/class/with, and a %%time cell) is
 * complete only once an empty line follows it, so input ending inside one,
 * or right after its last indented line, is PARSE_INCOMPLETE (an empty line:
 * one of nothing but spaces and tabs, ended by '\n'). Off (files,
 * -e, lesson steps, a pasted cell): the end of the input ends every block.
 * Set before the first parser_next. */
void parser_set_interactive(struct parser *p, bool on);

enum parse_status {
	PARSE_OK = 1,          /* *out is a statement (caller frees with node_free) */
	PARSE_END = 0,         /* no more statements */
	PARSE_ERROR = -1,      /* err filled (line, col, message); the parser is done */
	PARSE_INCOMPLETE = -2, /* input ended inside brackets, a string, a block or
	                          after a backslash: a REPL should read more */
};
/* out must not be NULL; err may be. On PARSE_INCOMPLETE err is filled too
 * (e.g. "'(' opened at 1:6 is never closed", at the bracket), so a file
 * runner can report it as an error. After PARSE_ERROR or PARSE_INCOMPLETE
 * every further call returns the same status and error; after PARSE_END,
 * PARSE_END. Blank lines, comments and stray ';' produce no statement;
 * `pass` produces N_PASS. As in Python, only brackets and a backslash join
 * lines: a line that ends right after an operator or '=' ("x = 1 +\n2") is
 * PARSE_ERROR at the operator, "the line ends after '+'" ("the input ends
 * after '+'" when nothing follows), never PARSE_INCOMPLETE. */
enum parse_status parser_next(struct parser *p, struct node **out, struct qkv_error *err);

/* The 1-based line the last returned statement started on and the byte range
 * of its source text (for echoing, saving sessions and carets): from its first
 * token to the end of its last token (leading indentation and a trailing
 * comment or ';' excluded). After PARSE_INCOMPLETE the range runs from the
 * unfinished statement's first token to the end of the input (a REPL keeps
 * src[start..] and appends the next line); after PARSE_ERROR it ends with the
 * offending token. Any pointer may be NULL. */
void parser_last_span(const struct parser *p, int *line, size_t *start, size_t *end);

#endif
