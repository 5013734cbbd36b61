/* repl.c: `qkv repl`, statements typed line by line: GNU readline on a
 * terminal (set up by lesson/lineedit, as the full screen's prompt), plain
 * lines from a pipe. As in Python's REPL, a line that leaves a bracket or a
 * block open continues after "... " (indented to the block's level on a
 * terminal) until the statement is whole, a block until an empty line; then
 * its lines run as one, atomically, in a session (lesson/session.h). Lines
 * from a pipe, or several at once (a paste, a block from the history), run
 * as a notebook cell: one statement, with the lines that belong to it, at
 * a time. A line that starts with ':' is a command, parsed and explained by
 * lesson/commands as the full screen's prompt does, its results printed as
 * text (:export writes a figure, through export/command.h). Ctrl-C stops a
 * statement that runs, or drops the line or block being typed; it never
 * ends the loop. Called by main.c; errors show a caret on stderr (cli/caret:
 * under the statement, or under the function's line an error inside a
 * function was raised on, among the lines typed and :load's) and never end
 * the loop; a pipe with errors exits 2. */
#include "cli/cli.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "export/command.h"
#include "export/export.h"
#include "lesson/commands.h"
#include "lesson/compare.h"
#include "lesson/lineedit.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/statements.h"
#include "view/timing.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <errno.h>
#include <signal.h>
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
	if (tty)
		return readline(prompt);
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
			char times[200], verdict[160], unrolled[160];
			timing_compare_all_text(times, sizeof times, cmp.loops_ms, cmp.unrolled_ms, cmp.simd_ms);
			timing_verdict_text(verdict, sizeof verdict, cmp.agree, cmp.max_diff);
			timing_variant_verdict_text(unrolled, sizeof unrolled, KERNEL_UNROLLED, cmp.unrolled_agree,
						    cmp.unrolled_diff);
			printf("%s: %s; %s; %s\n", expr, times, verdict, unrolled);
			compare_free(&cmp);
		}
	} else {
		struct session_value v;
		rc = session_show(s, expr, &v, err);
		if (rc == 0) {
			struct strbuf sb;
			strbuf_init(&sb);
			if (v.t) {
				const struct print_options *was = format_use_options(session_print_options(s));
				format_repr(&sb, v.t);
				format_use_options(was);
			} else
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
	case CMD_EXPORT:
	case CMD_EXPORT_FORCE: {
		char done[sizeof c->arg + 256];	/* "Exported EXPR (SHAPE) to FILE." whole */
		rc = export_command(s, c, NULL, done, sizeof done, err);	/* err->col: the name's or the file's */
		if (rc == 0)
			strbuf_puts(&sb, done);
		break;
	}
	default:
		break;	/* command_check refused the others */
	}
	if (rc < 0 && (c->id == CMD_SAVE || c->id == CMD_SAVE_FORCE || c->id == CMD_LOAD))
		err->col = c->argcol;	/* a file that cannot be saved or loaded: its name */
	if (sb.len)
		printf("%s%s", sb.s, sb.s[sb.len - 1] == '\n' ? "" : "\n");
	strbuf_free(&sb);
	return rc;
}

/* The loop's state: the session, the lines of the statement being
 * collected, where they began, and the errors seen. */
struct repl {
	struct session *s;
	bool tty;
	struct strbuf pending;
	struct strbuf typed;  /* every line numbered so far, in order: line k is the
	                         k-th (for the line of a function an error is in) */
	struct errline_source *sources;	/* typed's, then each :load's code (its lines
	                           numbered from 1 too: cli_show_function_line
	                           tells which defines a function), nsources */
	char **loaded;
	int nsources;
	int line_no;        /* the number of the next line read */
	int start_line;     /* the number of pending's first line */
	int errors;
};

static int count_newlines(const char *s, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* Runs src (n bytes, its first line numbered first), all or nothing; an
 * error shows the failing line and a caret (on a terminal the line is on
 * the screen already when it is the last one typed). False when it failed. */
static bool run_statement(struct repl *r, const char *src, size_t n, int first, bool echo)
{
	struct qkv_error err;
	enum session_status st = session_run(r->s, src, n, first, SESSION_ATOMIC, &err);
	if (st != SESSION_OK) {
		int last = first + count_newlines(src, n) - (n && src[n - 1] == '\n');
		/* an error inside a function the statement called names its place in
		 * a traceback: the caret goes under that line of the function, which
		 * an earlier statement typed (a caret under this one would point
		 * nowhere) */
		bool here = err.line >= first && err.line <= last && !strchr(err.msg, '\n');
		if (here)
			cli_show_caret(src, n, first, err.line, err.col, echo || err.line != last);
		fprintf(stderr, "error: %s\n", err.msg);
		if (!here) {	/* under its traceback, the function's line that raised it */
			r->sources[0] = (struct errline_source){ r->typed.s ? r->typed.s : "", r->typed.len, 1 };
			cli_show_function_line(r->sources, r->nsources, &err);
		}
		r->errors++;
	}
	fflush(stdout);
	cli_interrupt_clear();	/* a Ctrl-C stopped this one, and no other */
	return st == SESSION_OK;
}

/* Numbers the line (or lines) l read, the next ones, and keeps them. */
static void number_lines(struct repl *r, const char *l)
{
	strbuf_puts(&r->typed, l);
	strbuf_putc(&r->typed, '\n');
	r->line_no += count_newlines(l, strlen(l)) + 1;
}

/* Keeps the code :load ran from path (read again as session_load read it),
 * for the lines of the functions it defined. */
static void keep_loaded(struct repl *r, const char *path)
{
	struct strbuf code;
	struct qkv_error err;
	strbuf_init(&code);
	if (save_load_code(path, &code, NULL, &err) == 0) {
		r->loaded = xrealloc(r->loaded, sizeof *r->loaded * (size_t)r->nsources);
		r->sources = xrealloc(r->sources, sizeof *r->sources * (size_t)(r->nsources + 1));
		r->loaded[r->nsources - 1] = strbuf_detach(&code);
		r->sources[r->nsources] = (struct errline_source){ r->loaded[r->nsources - 1],
							      strlen(r->loaded[r->nsources - 1]), 1 };
		r->nsources++;
	}
	strbuf_free(&code);
}

/* After a :load that failed inside a function: under its traceback, the
 * function's line with a caret, from the code :load ran (or a source
 * before it), as for a statement typed. */
static void show_load_function_line(struct repl *r)
{
	size_t len;
	struct qkv_error ran;
	const char *code = session_load_failure(r->s, &len, &ran);
	if (!code || !strchr(ran.msg, '\n'))
		return;
	struct errline_source *sources = xcalloc((size_t)r->nsources + 1, sizeof *sources);
	memcpy(sources, r->sources, sizeof *sources * (size_t)r->nsources);
	sources[0] = (struct errline_source){ r->typed.s ? r->typed.s : "", r->typed.len, 1 };
	sources[r->nsources] = (struct errline_source){ code, len, 1 };
	cli_show_function_line(sources, r->nsources + 1, &ran);
	free(sources);
}

/* Drops the first n bytes of pending (the lines that ran). */
static void pending_drop(struct repl *r, size_t n)
{
	r->start_line += count_newlines(r->pending.s, n);
	memmove(r->pending.s, r->pending.s + n, r->pending.len - n + 1);
	r->pending.len -= n;
}

/* Runs pending as a cell, one statement at a time; stop_at_error: the
 * first that fails drops the rest (a paste on a terminal, as a notebook
 * cell); else each runs (a pipe, as lines typed one after another). */
static void run_cell(struct repl *r, bool stop_at_error)
{
	while (r->pending.len && !session_quit_requested(r->s)) {
		size_t end;
		if (statements_first(r->pending.s, r->pending.len, &end) == STATEMENTS_NONE)
			break;
		bool ok = run_statement(r, r->pending.s, end, r->start_line, true);	/* not the line above */
		pending_drop(r, end);
		if (!ok && stop_at_error)
			break;
	}
	strbuf_reset(&r->pending);
}

/* Whether line l of a pipe begins a statement of its own after a block:
 * it starts in column 0 with neither a comment nor a word that goes on with
 * the block before it (else, elif, except, finally). */
static bool starts_statement(const char *l)
{
	static const char *const go_on[] = { "else", "elif", "except", "finally" };
	if (!*l || *l == ' ' || *l == '\t' || *l == '#' || *l == '\r')
		return false;
	for (size_t k = 0; k < sizeof go_on / sizeof *go_on; k++) {
		size_t n = strlen(go_on[k]);
		if (strncmp(l, go_on[k], n) == 0 && !(l[n] == '_' || (l[n] >= 'a' && l[n] <= 'z') ||
						       (l[n] >= 'A' && l[n] <= 'Z') || (l[n] >= '0' && l[n] <= '9')))
			return false;
	}
	return true;
}

/* readline's reads on a terminal: Ctrl-C while it waits for a key ends the
 * line (readline then hands it over), and the loop drops it and the block
 * (Python's KeyboardInterrupt at the prompt). The SIGINT handler is
 * cli.c's, without SA_RESTART, so the read returns. */
static int tty_getc(FILE *f)
{
	for (;;) {
		if (cli_interrupted())
			return '\n';
		unsigned char c;
		ssize_t n = read(fileno(f), &c, 1);
		if (n == 1)
			return c;
		if (n == 0 || errno != EINTR)
			return EOF;
	}
}

/* One line l typed on a terminal (taken): runs the statement or block once
 * it is whole. */
static void tty_line(struct repl *r, char *l)
{
	bool several = strchr(l, '\n') != NULL;	/* a paste, or a block from the history */
	const char *t = l + strspn(l, " \t");
	if (!r->pending.len && !*t && !several) {
		free(l);
		return;
	}
	if (!r->pending.len)
		r->start_line = r->line_no;
	strbuf_puts(&r->pending, *t ? l : "");	/* a line of only indentation is empty */
	strbuf_putc(&r->pending, '\n');
	number_lines(r, l);
	free(l);
	if (several) {
		lineedit_history_add(r->pending.s);
		run_cell(r, true);
		return;
	}
	if (!session_is_complete(r->pending.s, r->pending.len)) {
		lineedit_offer_indent(r->pending.s, r->pending.len);
		return;
	}
	lineedit_history_add(r->pending.s);	/* a block is one entry: Up brings it back whole */
	run_statement(r, r->pending.s, r->pending.len, r->start_line, false);
	strbuf_reset(&r->pending);
}

/* One line l from a pipe (taken). A block pending runs once a line that
 * begins a statement of its own comes (or the input ends): the lines
 * between, indented, blank or comments, belong to it, as in a file. */
static void pipe_line(struct repl *r, char *l)
{
	int no = r->line_no;
	number_lines(r, l);
	size_t end;
	if (r->pending.len && starts_statement(l) &&
	    statements_first(r->pending.s, r->pending.len, &end) != STATEMENTS_INCOMPLETE)
		run_cell(r, false);
	if (!r->pending.len) {
		const char *t = l + strspn(l, " \t");
		if (!*t) {
			free(l);
			return;
		}
		r->start_line = no;
	}
	strbuf_puts(&r->pending, l);
	strbuf_putc(&r->pending, '\n');
	free(l);
	/* a simple statement runs at once; a block waits for the line after it */
	if (!statements_opens_block(r->pending.s, r->pending.len) &&
	    session_is_complete(r->pending.s, r->pending.len)) {
		run_statement(r, r->pending.s, r->pending.len, r->start_line, true);
		strbuf_reset(&r->pending);
	}
}

int cli_repl(int argc, char **argv, enum kernel_variant kv)
{
	if (argc > 0)
		return cli_usage_error("repl takes no arguments, got %s", argv[0]);
	struct repl r = { .tty = isatty(STDIN_FILENO), .line_no = 1, .start_line = 1 };
	r.s = session_new(kv, 0);
	session_set_output(r.s, print_value, NULL);
	session_set_interrupt(r.s, cli_interrupt_flag());
	/* each line out as it is printed, piped too: an error (on stderr)
	 * then comes after what its statement printed before it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (r.tty) {
		printf("qkv %s. Type notebook lines or matrices: X = [1 2; 3 4]. quit() leaves.\n"
		       ":help lists the commands (:ls, :show, :save, :load, ...). A line ending in ':'\n"
		       "opens a block; an empty line ends it.\n", QKV_VERSION);
		lineedit_setup(COMMAND_LINE, r.s);
		rl_catch_signals = 0;	/* cli.c's handler: a statement that runs stops */
		rl_getc_function = tty_getc;
	}
	strbuf_init(&r.pending);
	strbuf_init(&r.typed);
	r.sources = xcalloc(1, sizeof *r.sources);
	r.nsources = 1;
	for (;;) {
		if (r.tty)
			cli_interrupt_clear();
		char *l = next_line(r.tty, r.pending.len ? "... " : ">>> ");
		if (r.tty && cli_interrupted()) {
			/* Ctrl-C at the prompt: the line and the block are dropped */
			cli_interrupt_clear();
			free(l);
			strbuf_reset(&r.pending);
			lineedit_set_next(NULL);
			printf("KeyboardInterrupt\n");
			fflush(stdout);
			continue;
		}
		if (!l)
			break;
		struct command cmd;
		size_t end;
		if (!r.tty && r.pending.len && l[0] == ':' && command_parse(l, &cmd) &&
		    statements_first(r.pending.s, r.pending.len, &end) != STATEMENTS_INCOMPLETE)
			run_cell(&r, false);	/* a command in column 0 ends a block, as a statement does */
		if (r.pending.len == 0 && !strchr(l, '\n') && command_parse(l, &cmd)) {
			if (r.tty)
				lineedit_history_add(l);
			struct qkv_error err;
			int rc = run_command(r.s, &cmd, &err);
			if (rc < 0) {
				cli_show_caret(l, strlen(l), r.line_no, r.line_no, err.col, !r.tty);
				fprintf(stderr, "error: %s\n", err.msg);
				if (cmd.id == CMD_LOAD)
					show_load_function_line(&r);
				r.errors++;
			}
			if (rc == 0 && cmd.id == CMD_LOAD)
				keep_loaded(&r, cmd.arg);
			number_lines(&r, l);
			free(l);
			fflush(stdout);
			if (rc > 0)
				break;
			continue;
		}
		if (r.tty)
			tty_line(&r, l);
		else
			pipe_line(&r, l);
		if (session_quit_requested(r.s))
			break;
	}
	/* the input ended: what is left runs (a block the end of the input
	 * ends), or the parser says where it is unfinished */
	if (r.pending.len && !session_quit_requested(r.s))
		run_cell(&r, false);
	if (r.tty)
		putchar('\n');
	strbuf_free(&r.pending);
	strbuf_free(&r.typed);
	for (int i = 0; i + 1 < r.nsources; i++)
		free(r.loaded[i]);
	free(r.loaded);
	free(r.sources);
	int status = (!r.tty && r.errors) ? 2 : 0;
	if (session_quit_requested(r.s) && session_quit_status(r.s))
		status = session_quit_status(r.s);	/* exit(3) exits 3, as Python */
	session_free(r.s);
	export_cleanup();	/* the font caches of the figures :export drew */
	return status;
}
