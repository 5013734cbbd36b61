/* interp.h: runs notebook statements against a workspace of named values.
 * One interpreter is one workspace plus the torch and numpy random streams.
 * Each statement (a whole block, a def, a class) is a transaction: if it
 * fails, the workspace, every tensor it wrote in place, every list, dict,
 * set and attribute it changed and the random streams are exactly as before
 * it. Not thread-safe: one thread runs an interpreter at a time. */
#ifndef QKV_LANG_INTERP_H
#define QKV_LANG_INTERP_H

#include "core/error.h"
#include "core/ops.h"
#include "lang/value.h"

#include <signal.h>
#include <stddef.h>

struct interp;

/* Called for every value the program shows: a bare expression's value (v set,
 * text is its repr) and print() output (v is the single printed value or
 * NULL, text is the line without its newline). */
typedef void (*interp_emit_fn)(void *udata, const struct value *v, const char *text);

/* Called with the value of every statement that produces one: a bare
 * expression's value, or the value just assigned (the last one of a tuple
 * assignment). For checking exercises and showing results at the prompt. */
typedef void (*interp_observe_fn)(void *udata, const struct value *v);

struct interp *interp_new(enum kernel_variant variant);
void interp_set_observer(struct interp *I, interp_observe_fn observe, void *udata);
void interp_free(struct interp *I);
/* A new interpreter holding a deep copy of I's workspace (tensors copied, so
 * nothing done in one changes the other) and of its random streams. */
struct interp *interp_clone(const struct interp *I);
void interp_set_output(struct interp *I, interp_emit_fn emit, void *udata);
struct ops_ctx *interp_ops(struct interp *I);

/* Lets a statement be interrupted (Ctrl-C): while statements run, the
 * evaluator reads *flag before each operation (a call, an operator, an
 * index) and before and after each statement; once it is nonzero the
 * statement fails with "interrupted (Ctrl-C)" and is undone like any failing
 * one (interp_run then returns INTERP_INTERRUPTED). A single operation (one
 * kernel call) is never cut short. The flag belongs to the caller, who sets
 * it (from a signal handler) and clears it; NULL (the default) never
 * interrupts. interp_clone copies it. */
void interp_set_interrupt(struct interp *I, const volatile sig_atomic_t *flag);
/* Whether the interrupt flag is set now. */
bool interp_interrupted(const struct interp *I);

enum interp_status {
	INTERP_OK = 0,
	INTERP_ERROR = -1,      /* err has line, col, message; earlier statements ran */
	INTERP_INCOMPLETE = -2, /* src ends inside a statement (REPL: read more) */
	INTERP_INTERRUPTED = -3,/* the interrupt flag stopped it: err says "interrupted (Ctrl-C)"
	                           at the operation it stopped before; undone as an error is */
};
enum interp_flags {
	INTERP_PER_STATEMENT = 0, /* a failing statement is undone; the ones before it stay */
	INTERP_ATOMIC = 1,        /* a failure undoes every statement of src (a REPL line) */
	INTERP_DRY_RUN = 2,       /* undo everything at the end, even on success (timing a
	                             computation without changing the workspace) */
	INTERP_UNDO_ALL_ON_INTERRUPT = 4, /* with PER_STATEMENT: an error undoes the failing
	                             statement only, an interrupt every statement of src
	                             (a lesson step cancelled with Ctrl-C runs again whole) */
};
/* Parses and runs the statements of src one by one, stopping at the first
 * error. first_line numbers src's first line in messages. Output of the
 * statements that ran has been emitted either way. */
enum interp_status interp_run(struct interp *I, const char *src, size_t len, int first_line,
			      int flags, struct qkv_error *err);

/* Evaluates the single expression in src and returns its value (a new
 * reference), leaving the workspace and the random streams untouched; NULL
 * with err (line/col within src) when src is not one expression or fails.
 * `EXPR:NAME` (a ':' outside brackets before a trailing name) is the local
 * NAME of the most recent call of the function or method EXPR evaluates to
 * (`sa_v1.forward:attention_weights`, `attention:scores`; a module instance
 * means its forward): every call keeps its locals until the next call of the
 * same function, so lessons and the prompt can draw what forward computed.
 * A method's last call on another object (two heads of one class) is an
 * error naming that, never the other object's values. */
struct value *interp_eval(struct interp *I, const char *src, size_t len, struct qkv_error *err);
/* EXPR:NAME: where the ':' before a trailing name is outside every bracket
 * (and src is no lambda), the length of EXPR; else 0 (a plain expression). */
size_t interp_local_split(const char *src, size_t len);

/* Parses src without running it: INTERP_INCOMPLETE when it ends inside a
 * statement (a REPL then reads another line), else INTERP_OK (syntax errors
 * are left for interp_run to report). */
enum interp_status interp_check_complete(const char *src, size_t len);

/* The workspace, in order of first assignment. */
int interp_var_count(const struct interp *I);
const char *interp_var_name(const struct interp *I, int i);
struct value *interp_get(const struct interp *I, const char *name);  /* borrowed or NULL */
void interp_set(struct interp *I, const char *name, struct value *v); /* takes a reference */

/* While a statement runs (e.g. inside the emit callback): the first and last
 * lines of its source, numbered as interp_run's first_line numbers them. */
void interp_statement_lines(const struct interp *I, int *first, int *last);

/* Names a student can type that begin with prefix, for completion: after
 * "X." (context = the text before the dot) the attributes and methods of X
 * (a module's functions, a tensor's methods); with context NULL the
 * workspace's names and the global ones (torch, np, print, ...). Calls fn
 * for each; the names are borrowed. */
void interp_complete(const struct interp *I, const char *context, const char *prefix,
		     void (*fn)(void *udata, const char *name), void *udata);

/* The print options its statements set (torch.set_printoptions,
 * np.set_printoptions; core/format.h), which the printing follows while its
 * statements run: for showing its values afterwards as they would print. */
struct print_options;
const struct print_options *interp_print_options(const struct interp *I);
/* True once the program called quit() or exit(). */
bool interp_quit_requested(const struct interp *I);
/* The status it asked for, as Python's exit(n) gives it: 0 to 255. */
int interp_quit_status(const struct interp *I);

#endif
