/* statements.c: which lines of a step's code continue a statement (see
 * statements.h), from the parser's span of each statement: the same parse
 * the runner runs, so the "... " lines are the ones Python would prompt for.
 * Parses only; runs nothing. */
#include "lesson/statements.h"
#include "lang/ast.h"
#include "lang/parser.h"

#include <string.h>

void statements_mark_continued(const char *code, int nlines, bool *cont)
{
	for (int i = 0; i < nlines; i++)
		cont[i] = false;
	size_t len = strlen(code);
	struct parser *p = parser_new(code, len, 1);
	for (;;) {
		struct node *stmt = NULL;
		struct qkv_error err;
		enum parse_status ps = parser_next(p, &stmt, &err);
		node_free(stmt);
		if (ps != PARSE_OK)
			break;
		int first;
		size_t start, end;
		parser_last_span(p, &first, &start, &end);
		int line = first;	/* 1-based */
		for (size_t b = start; b < end && b < len; b++) {
			if (code[b] != '\n')
				continue;
			if (line < nlines)
				cont[line] = true;	/* 0-based: the line after line `line` */
			line++;
		}
	}
	parser_free(p);
}
