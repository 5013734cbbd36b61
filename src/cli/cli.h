/* cli.h: the commands of the command line, one per file in cli/, which
 * main.c calls after the options every command shares (--kernel). Each
 * gets the arguments after its name and returns the exit status: 0, 1
 * (qkv check found a wrong value) or 2 (bad input). Commands reach the
 * interpreter only through lesson/, never lang/ or core/ops.h. */
#ifndef QKV_CLI_CLI_H
#define QKV_CLI_CLI_H

#include "kernel/kernel.h"
#include "view/errline.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct session;

int cli_eval(int argc, char **argv, enum kernel_variant kv);   /* eval.c */
int cli_repl(int argc, char **argv, enum kernel_variant kv);   /* repl.c */
int cli_run(int argc, char **argv, enum kernel_variant kv);    /* run.c */
int cli_check(int argc, char **argv, enum kernel_variant kv);  /* check.c */
int cli_list(int argc, char **argv);                           /* list.c */
int cli_bench(int argc, char **argv);                          /* bench.c */
/* export.c; step is --step's (main.c takes it for every mode), 0 when not given */
int cli_export(int argc, char **argv, enum kernel_variant kv, int step);

/* cli.c: what the commands share. */
/* "qkv: MESSAGE" on stderr, its control characters made visible
 * (core/visible.h): a message may quote a lesson or the input. */
void cli_print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "qkv: MESSAGE" and "Try 'qkv --help'." on stderr; returns 2. */
int cli_usage_error(const char *fmt, const char *arg);
/* QKV_MAX_ELEMS, if set, made the limit of every tensor from now on (the
 * full screen's, the commands' and their lessons'): 0, or -1 (the reason
 * printed) when it is not a positive whole number; a value past what one
 * tensor can hold is lowered to that with a warning. */
int cli_read_max_elems(void);
/* The flag Ctrl-C raises, for session_set_interrupt: the first call
 * installs the SIGINT handler that sets it (a statement that runs then
 * stops at its next check, undone). The commands clear it once they have
 * seen it; cli_interrupted says whether it is up. */
const volatile sig_atomic_t *cli_interrupt_flag(void);
bool cli_interrupted(void);
void cli_interrupt_clear(void);
/* A lesson loader's warning, on stderr (a lesson_warn_fn), made visible. */
void cli_print_warning(void *udata, const char *message);

/* caret.c: where an error is, on stderr (which line, and where the caret
 * goes under it, is view/errline's). */
struct qkv_error;
/* Line `line` of src (len bytes, its first line numbered first_line) with a
 * caret under column col (columns count characters, as the lexer's do);
 * with echo false only the caret line (the line is on the terminal right
 * above it, after a 4-column prompt). The caret stands as many terminal
 * columns in as the characters before col take: two for a wide one (日),
 * and a tab where the line has one, so that the terminal moves both lines
 * alike. Nothing for a line src does not hold. */
void cli_show_caret(const char *src, size_t len, int first_line, int line, int col, bool echo);
/* For an error raised inside a function (err->msg ends in its traceback,
 * "\n  line L, in NAME", L being err->line): the function's line L with a
 * caret under err->col, from the one source of the n given (text a command
 * ran) whose line L is in a function NAME (errline_in_function): sources
 * may number their lines alike (a file after -e statements, a :load), and
 * then that tells which. False, printing nothing, when no source, or more
 * than one, can be that. */
bool cli_show_function_line(const struct errline_source *sources, int n, const struct qkv_error *err);

#endif
