/* repl.c: `qkv repl`, statements typed line by line: GNU readline on a
 * terminal, plain lines from a pipe. A statement left open (a bracket)
 * continues on the next line; then its lines run as one, atomically, in a
 * session (lesson/session.h). Called by main.c; errors show a caret on
 * stderr and never end the loop; a pipe with errors exits 2. */
#include "cli/cli.h"
#include "core/strbuf.h"
#include "lesson/session.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_value(void *udata, const struct session_output *o)
{
	(void)udata;
	fputs(o->text, stdout);
	fputc('\n', stdout);
}

static char *next_line(bool tty, const char *prompt)
{
	if (tty) {
		char *l = readline(prompt);
		if (l && *l)
			add_history(l);
		return l;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	int ch;
	bool any = false;
	while ((ch = getchar()) != EOF) {
		any = true;
		if (ch == '\n')
			break;
		strbuf_putc(&sb, (char)ch);
	}
	if (!any) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* Prints the line `line` of src (1-based, relative to first_line) with a caret
 * under column col; with echo false only the caret line (the line is on the
 * terminal right above it, after a 4-column prompt). */
static void show_caret(const char *src, size_t len, int first_line, int line, int col, bool echo)
{
	int want = line - first_line;
	const char *p = src, *end = src + len;
	for (int l = 0; l < want && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		p = nl + 1;
	}
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	if (echo)
		fprintf(stderr, "    %.*s\n", (int)(e - p), p);
	fprintf(stderr, "    %*s^\n", col > 1 ? col - 1 : 0, "");
}

int cli_repl(int argc, char **argv, enum kernel_variant kv)
{
	if (argc > 0)
		return cli_usage_error("repl takes no arguments, got %s", argv[0]);
	bool tty = isatty(STDIN_FILENO);
	struct session *s = cli_session_new(kv);
	if (!s)
		return 2;
	session_set_output(s, print_value, NULL);
	if (tty)
		printf("qkv %s. Type notebook lines or matrices: X = [1 2; 3 4]. quit() leaves.\n", QKV_VERSION);
	struct strbuf pending;
	strbuf_init(&pending);
	int line_no = 1, start_line = 1, errors = 0;
	for (;;) {
		char *l = next_line(tty, pending.len ? "... " : ">>> ");
		if (!l)
			break;
		if (pending.len == 0)
			start_line = line_no;
		strbuf_puts(&pending, l);
		strbuf_putc(&pending, '\n');
		free(l);
		line_no++;
		struct qkv_error err;
		/* Nothing runs until the statement is complete (an open bracket
		 * continues on the next line); then the lines run as one. */
		if (!session_is_complete(pending.s, pending.len))
			continue;
		enum session_status st = session_run(s, pending.s, pending.len, start_line, SESSION_ATOMIC, &err);
		if (st == SESSION_ERROR) {
			bool last_line = err.line == line_no - 1;
			show_caret(pending.s, pending.len, start_line, err.line, err.col, !(tty && last_line));
			fprintf(stderr, "error: %s\n", err.msg);
			errors++;
		}
		fflush(stdout);
		strbuf_reset(&pending);
		if (session_quit_requested(s))
			break;
	}
	if (pending.len) {
		/* the input ended inside a statement: the parser says where */
		struct qkv_error err;
		session_run(s, pending.s, pending.len, start_line, SESSION_ATOMIC, &err);
		show_caret(pending.s, pending.len, start_line, err.line, err.col, true);
		fprintf(stderr, "error: %s\n", err.msg);
		errors++;
	}
	if (tty)
		putchar('\n');
	strbuf_free(&pending);
	session_free(s);
	return (!tty && errors) ? 2 : 0;
}
