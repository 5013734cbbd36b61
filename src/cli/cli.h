/* cli.h: the commands of the command line, one per file in cli/, which
 * main.c calls after the options every command shares (--kernel). Each
 * gets the arguments after its name and returns the exit status: 0, 1
 * (qkv check found a wrong value) or 2 (bad input). Commands reach the
 * interpreter only through lesson/, never lang/ or core/ops.h. */
#ifndef QKV_CLI_CLI_H
#define QKV_CLI_CLI_H

#include "kernel/kernel.h"

#include <signal.h>
#include <stdbool.h>

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
/* An empty session on kernels kv, with QKV_MAX_ELEMS's limit; NULL (the
 * reason printed) when QKV_MAX_ELEMS is not a positive whole number. */
struct session *cli_session_new(enum kernel_variant kv);
/* The flag Ctrl-C raises, for session_set_interrupt: the first call
 * installs the SIGINT handler that sets it (a statement that runs then
 * stops at its next check, undone). The commands clear it once they have
 * seen it; cli_interrupted says whether it is up. */
const volatile sig_atomic_t *cli_interrupt_flag(void);
bool cli_interrupted(void);
void cli_interrupt_clear(void);
/* A lesson loader's warning, on stderr (a lesson_warn_fn), made visible. */
void cli_print_warning(void *udata, const char *message);

#endif
