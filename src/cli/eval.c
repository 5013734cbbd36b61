/* eval.c: `qkv eval [--json] [-e STMT]... [FILE|-]`: runs statements from
 * -e, a FILE or standard input in one session (lesson/session.h) and prints
 * each value shown, as text or (--json) one JSON object per line written by
 * text/json.c. Called by main.c; reaches the interpreter only through the
 * session. The first failing statement ends it with status 2, its place
 * named on one line (an error inside a function: its traceback, then the
 * function's line with a caret, cli/caret.c); Ctrl-C stops the statement
 * that runs (undone) and ends it with status 130. */
#include "cli/cli.h"
#include "core/file.h"
#include "core/strbuf.h"
#include "lesson/lesson.h"
#include "lesson/session.h"
#include "text/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void emit(void *udata, const struct session_output *o)
{
	const bool *json = udata;
	if (!*json) {
		fputs(o->text, stdout);
		fputc('\n', stdout);
		return;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	if (o->kind == SESSION_TENSOR) {
		json_put_tensor(&sb, o->t);
	} else if (o->kind == SESSION_NUMBER) {
		json_put_scalar(&sb, o->dtype, o->number, o->integer);
	} else {
		strbuf_puts(&sb, "{\"text\":");
		json_put_string(&sb, o->text);
		strbuf_putc(&sb, '}');
	}
	puts(sb.s);
	strbuf_free(&sb);
}

/* The statement of -e at argv[*i] (moving past "-e STMT"), or NULL. */
static const char *inline_statement(char **argv, int *i)
{
	if (strcmp(argv[*i], "-e") == 0)
		return argv[++*i];
	if (strncmp(argv[*i], "-e", 2) == 0 && argv[*i][2])
		return argv[*i] + 2;
	return NULL;
}

/* The text of the file named (standard input for NULL or "-"): a file, a
 * pipe or a device, at most LESSON_MAX_BYTES (a file of statements may be
 * as long as a lesson). NULL with the reason printed and *status set (2, or
 * 130 when Ctrl-C interrupted the read). */
static char *read_statements(const char *file, bool named, size_t *len, int *status)
{
	struct qkv_error err;
	const char *name = named ? file : "standard input";
	int fd = named ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	int e = errno;
	char *src = NULL;
	if (fd >= 0) {
		src = file_read_fd(fd, LESSON_MAX_BYTES, len, &err);
		e = errno;
	}
	if (named && fd >= 0)
		close(fd);
	if (src)
		return src;
	*status = e == EINTR && cli_interrupted() ? 130 : 2;
	if (fd < 0)
		cli_print_error("%s: %s", name, strerror(e));
	else if (e == EFBIG)
		cli_print_error("%s: it is more than %u bytes (8 MiB), the most a file of statements may hold",
			name, LESSON_MAX_BYTES);
	else
		cli_print_error("%s: %s", name, err.msg);
	return NULL;
}

/* An error raised inside a function: under its traceback, the function's
 * line with a caret, from the -e statements ran (typed, numbered from 1)
 * or the file (src, len, numbered from first), whichever defines it. */
static void show_function_line(const struct strbuf *typed, const char *src, size_t len, int first,
			       const struct qkv_error *err)
{
	struct errline_source sources[2] = { { typed->s ? typed->s : "", typed->len, 1 }, { src, len, first } };
	cli_show_function_line(sources, src ? 2 : 1, err);
}

/* Runs the file named (standard input for NULL or "-") after the -e
 * statements (typed, their lines): a named file's lines numbered from 1
 * (its errors name it), standard input's from line, after the -e lines. 0,
 * or 2 with the error printed. */
static int eval_file(struct session *s, const char *file, int line, const struct strbuf *typed)
{
	bool named = file && strcmp(file, "-") != 0;
	size_t len;
	int status = 0;
	char *src = read_statements(file, named, &len, &status);
	if (!src)
		return status;
	struct qkv_error err;
	enum session_status st = session_run(s, src, len, named ? 1 : line, SESSION_PER_STATEMENT, &err);
	if (st != SESSION_OK) {
		if (named)
			cli_print_error("%s: line %d, col %d: %s", file, err.line, err.col, err.msg);
		else
			cli_print_error("line %d, col %d: %s", err.line, err.col, err.msg);
		show_function_line(typed, src, len, named ? 1 : line, &err);
		status = st == SESSION_INTERRUPTED ? 130 : 2;
	}
	free(src);
	return status;
}

int cli_eval(int argc, char **argv, enum kernel_variant kv)
{
	bool json = false;
	const char *file = NULL;
	int nexpr = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "-e") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("%s needs a statement", "-e");
			i++;
			nexpr++;
		} else if (strncmp(argv[i], "-e", 2) == 0 && argv[i][2]) {
			nexpr++;
		} else if (strcmp(argv[i], "-") == 0 || argv[i][0] != '-') {
			if (file)
				return cli_usage_error("eval takes one FILE, got a second: %s", argv[i]);
			file = argv[i];
		} else {
			return cli_usage_error("eval: unknown option %s", argv[i]);
		}
	}
	struct session *s = session_new(kv, 0);
	session_set_output(s, emit, &json);
	session_set_interrupt(s, cli_interrupt_flag());
	int status = 0, line = 1;
	struct strbuf typed;	/* the -e statements, line k the k-th */
	strbuf_init(&typed);
	/* -e statements first, in order, then the file (or stdin when nothing given) */
	for (int i = 0; i < argc && status == 0; i++) {
		const char *src = inline_statement(argv, &i);
		if (!src)
			continue;
		strbuf_puts(&typed, src);
		strbuf_putc(&typed, '\n');
		struct qkv_error err;
		enum session_status st = session_run(s, src, strlen(src), line, SESSION_PER_STATEMENT, &err);
		if (st != SESSION_OK) {
			cli_print_error("line %d, col %d: %s", err.line, err.col, err.msg);
			show_function_line(&typed, NULL, 0, 0, &err);
			status = st == SESSION_INTERRUPTED ? 130 : 2;
		}
		for (const char *p = src; *p; p++)
			line += *p == '\n';
		line++;
		if (session_quit_requested(s))
			goto out;
	}
	if (status == 0 && (file || nexpr == 0))
		status = eval_file(s, file, line, &typed);
out:
	strbuf_free(&typed);
	if (status == 0 && session_quit_requested(s))
		status = session_quit_status(s);	/* exit(3) exits 3, as Python */
	fflush(stdout);
	session_free(s);
	return status;
}
