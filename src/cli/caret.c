/* caret.c: the line of source an error is about, with a caret under its
 * column, on stderr, for qkv repl and qkv eval (cli.h): the statement's own
 * line, or, for an error raised inside a function, the function's line the
 * traceback ends on, found among the sources the command ran (which line,
 * and where the caret goes, is view/errline's, as the full screen's).
 * Prints only to stderr; reads nothing but the text it is given. */
#include "cli/cli.h"
#include "core/strbuf.h"

#include <stdio.h>

/* The line (when echo) and the caret under it, each after 4 blanks. */
static void print_errline(const struct errline *e, bool echo)
{
	if (echo)
		fprintf(stderr, "    %.*s\n", (int)e->len, e->text);
	struct strbuf pad;
	strbuf_init(&pad);
	errline_caret_pad(&pad, e);
	fprintf(stderr, "    %s^\n", pad.s);
	strbuf_free(&pad);
}

void cli_show_caret(const char *src, size_t len, int first_line, int line, int col, bool echo)
{
	struct errline e;
	if (errline_at(&e, src, len, first_line, line, col))
		print_errline(&e, echo);
}

bool cli_show_function_line(const struct errline_source *sources, int nsources, const struct qkv_error *err)
{
	struct errline e;
	if (!errline_in_function(&e, sources, nsources, ERRLINE_ONLY, err))
		return false;
	print_errline(&e, true);
	return true;
}
