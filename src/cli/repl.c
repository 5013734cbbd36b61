/* repl.c: `qkv repl`, statements typed line by line: GNU readline on a
 * terminal, plain lines from a pipe. A statement left open (a bracket)
 * continues on the next line; then its lines run as one, atomically, in a
 * session (lesson/session.h). A line that starts with ':' is a command,
 * parsed and explained by lesson/commands as the full screen's prompt does,
 * its results printed as text. Called by main.c; errors show a caret on
 * stderr and never end the loop; a pipe with errors exits 2. */
#include "cli/cli.h"
#include "core/format.h"
#include "core/strbuf.h"
#include "lesson/commands.h"
#include "lesson/compare.h"
#include "lesson/session.h"
#include "view/timing.h"

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

/* :show EXPR: its value as a bare expression prints it; :show EXPR loops:
 * the loops beside the SIMD kernels, timed and judged (lesson/compare). 0,
 * or -1 with err (col within the line). */
static int show(struct session *s, const struct command *c, struct qkv_error *err)
{
	char expr[sizeof c->arg];
	snprintf(expr, sizeof expr, "%s", c->arg);
	size_t n = strlen(expr);
	bool loops = n > 6 && strcmp(expr + n - 6, " loops") == 0;
	if (loops)
		for (n -= 6, expr[n] = 0; n > 0 && expr[n - 1] == ' ';)
			expr[--n] = 0;
	if (!expr[0])
		return error_set(err, 1, c->argcol, ":show needs a name or an expression: :show W");
	int rc;
	if (loops) {
		struct compare cmp;
		rc = session_compare(s, expr, &cmp, err);
		if (rc == 0) {
			char times[160], verdict[160];
			timing_compare_text(times, sizeof times, cmp.loops_ms, cmp.simd_ms);
			timing_verdict_text(verdict, sizeof verdict, cmp.agree, cmp.max_diff);
			printf("%s: %s; %s\n", expr, times, verdict);
			compare_free(&cmp);
		}
	} else {
		struct session_value v;
		rc = session_show(s, expr, &v, err);
		if (rc == 0) {
			struct strbuf sb;
			strbuf_init(&sb);
			if (v.t)
				format_repr(&sb, v.t);
			else
				strbuf_puts(&sb, v.text);
			printf("%s\n", sb.s);
			strbuf_free(&sb);
			session_value_free(&v);
		}
	}
	if (rc < 0)
		err->col = c->argcol + (err->col > 0 ? err->col - 1 : 0);
	return rc;
}

/* A ':' line c: runs it, printing what it gives. 0; 1 when it asks to
 * leave; -1 with err (err->col in the line) when it fails. */
static int run_command(struct session *s, const struct command *c, struct qkv_error *err)
{
	if (!command_check(c, COMMAND_LINE, err))
		return -1;
	struct strbuf sb;
	strbuf_init(&sb);
	int rc = 0;
	switch (c->id) {
	case CMD_QUIT:
		rc = 1;
		break;
	case CMD_LS:
		session_list(s, &sb);
		break;
	case CMD_HELP:
		if (command_help(&sb, COMMAND_LINE, s, c->arg, 78, err) < 0) {
			err->col = c->argcol;
			rc = -1;
		}
		break;
	case CMD_RESET:
		session_reset(s);
		strbuf_puts(&sb, "The workspace is empty again.");
		break;
	case CMD_SHOW:
		rc = show(s, c, err);
		break;
	case CMD_SAVE:
	case CMD_SAVE_FORCE:
		if (!c->arg[0])
			rc = error_set(err, 1, c->argcol, ":save needs a file name: :save my-session.json");
		else if (session_save(s, c->arg, c->id == CMD_SAVE_FORCE, "A qkv session", NULL, 0, err) < 0)
			rc = -1;
		else
			strbuf_printf(&sb, "Saved %s (qkv check %s reproduces it).", c->arg, c->arg);
		break;
	case CMD_LOAD:
		if (!c->arg[0])
			rc = error_set(err, 1, c->argcol, ":load needs a file: :load notes.qkv");
		else if (session_load(s, c->arg, err) < 0)
			rc = -1;
		else
			strbuf_printf(&sb, "Loaded %s.", c->arg);
		break;
	default:
		break;	/* command_check refused the others */
	}
	if (rc < 0 && c->id != CMD_SHOW && c->id != CMD_HELP)
		err->col = c->argcol;	/* a file that cannot be saved or loaded: its name */
	if (sb.len)
		printf("%s%s", sb.s, sb.s[sb.len - 1] == '\n' ? "" : "\n");
	strbuf_free(&sb);
	return rc;
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
		printf("qkv %s. Type notebook lines or matrices: X = [1 2; 3 4]. quit() leaves.\n"
		       ":help lists the commands (:ls, :show, :save, :load, ...).\n", QKV_VERSION);
	struct strbuf pending;
	strbuf_init(&pending);
	int line_no = 1, start_line = 1, errors = 0;
	for (;;) {
		char *l = next_line(tty, pending.len ? "... " : ">>> ");
		if (!l)
			break;
		struct command cmd;
		if (pending.len == 0 && command_parse(l, &cmd)) {
			struct qkv_error err;
			int rc = run_command(s, &cmd, &err);
			if (rc < 0) {
				show_caret(l, strlen(l), line_no, line_no, err.col, !tty);
				fprintf(stderr, "error: %s\n", err.msg);
				errors++;
			}
			free(l);
			line_no++;
			fflush(stdout);
			if (rc > 0)
				break;
			continue;
		}
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
