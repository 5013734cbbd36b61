/* session.h: a workspace where a person types statements, for everything
 * above lesson/ that runs them: the full-screen prompt (ui/prompt.c) and the
 * eval and repl commands (cli/). A session owns an interpreter, which its
 * callers never see (they include nothing from lang/): what they need comes
 * out as tensors, numbers and text. Nothing here prints or touches a
 * terminal; errors are a struct qkv_error with the line and column. */
#ifndef QKV_LESSON_SESSION_H
#define QKV_LESSON_SESSION_H

#include "core/error.h"
#include "core/strbuf.h"
#include "core/tensor.h"
#include "kernel/kernel.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct compare;     /* lesson/compare.h */
struct exercise;    /* lesson/lesson.h */
struct interp;      /* lang/interp.h, never seen above lesson/ */
struct session;

/* ---- making one --------------------------------------------------------------- */

/* An empty workspace computing on the given kernels, with at most max_elems
 * elements in one tensor (0 or less: the default, 67108864). :reset empties
 * it again. Free with session_free. */
struct session *session_new(enum kernel_variant variant, int64_t max_elems);
/* A workspace holding a deep copy of from's (a lesson step's): its values,
 * random streams, kernels, limit and interrupt flag. from is only read, now
 * and never after; :reset goes back to the copy. */
struct session *session_new_copy(const struct interp *from);
void session_free(struct session *s);   /* NULL is fine */

/* Lets a running statement be stopped: once *flag is nonzero, session_run
 * fails with SESSION_INTERRUPTED and undoes what it did. The flag belongs to
 * the caller (a signal handler sets it); it stays through :reset. */
void session_set_interrupt(struct session *s, const volatile sig_atomic_t *flag);

/* ---- running statements -------------------------------------------------------- */

/* What a value printed is, for `qkv eval --json`. */
enum session_kind {
	SESSION_TEXT,     /* print() of text, or a value neither a tensor nor a number */
	SESSION_TENSOR,
	SESSION_NUMBER,   /* an int, a float or a bool */
};

/* One thing the statements printed: a bare expression's value or the line
 * of a print(). Everything in it is borrowed for the call only. */
struct session_output {
	const char *text;         /* as it prints, without the newline */
	enum session_kind kind;
	const struct tensor *t;   /* SESSION_TENSOR: the value */
	enum dtype dtype;         /* SESSION_NUMBER: DT_I64, DT_F64 or DT_BOOL */
	double number;            /* SESSION_NUMBER: the value */
	int64_t integer;          /* SESSION_NUMBER with DT_I64: the value, exactly */
};
typedef void (*session_output_fn)(void *udata, const struct session_output *o);

/* Where printed things go (NULL: nowhere, the default). Output of a
 * statement that is later undone has been given all the same. */
void session_set_output(struct session *s, session_output_fn fn, void *udata);

enum session_status {
	SESSION_OK = 0,
	SESSION_ERROR = -1,        /* err: line, col and message */
	SESSION_INCOMPLETE = -2,   /* src ends inside a statement; err says where */
	SESSION_INTERRUPTED = -3,  /* the interrupt flag stopped it: "interrupted (Ctrl-C)" */
};
enum session_mode {
	SESSION_PER_STATEMENT,     /* a failing statement is undone, those before it stay (a file) */
	SESSION_ATOMIC,            /* any failure undoes all of src (a line typed at a prompt) */
};

/* Runs the statements of src; first_line numbers its first line in err
 * (which must not be NULL). A run that succeeds whole is kept as a
 * statement typed (session_statements), and the value it made last and its
 * exercise verdicts become what session_last_value and the
 * session_exercise_* functions report; a run that fails counts for none of
 * these. */
enum session_status session_run(struct session *s, const char *src, size_t len, int first_line,
				 enum session_mode mode, struct qkv_error *err);
/* Whether the lines src typed at a prompt are finished, as Python's REPL
 * decides: false when src ends inside a statement (an open bracket, a
 * string, a backslash continuation, after a ':') or inside a compound
 * statement (if, for, while, def, class, with, %%time) that no empty line
 * has ended yet; a REPL then reads another line. Syntax errors count as
 * finished, for session_run to report; so does a line that ends after an
 * operator ("x = 1 -"), which is one, as in Python. */
bool session_is_complete(const char *src, size_t len);
/* True once a statement called quit() or exit(). */
bool session_quit_requested(const struct session *s);
/* The status exit(n) asked for (0 to 255, as Python's). */
int session_quit_status(const struct session *s);

/* ---- values, for a view ----------------------------------------------------------- */

/* A value handed out: a tensor, or else the text it prints as. */
struct session_value {
	struct tensor *t;          /* a reference the holder owns, or NULL */
	char *text;                /* when t is NULL: its repr ("2.5", "(2, 3)"), owned */
};
void session_value_free(struct session_value *v);   /* and zeroes it */

/* The last tensor or number the last session_run made (a bare expression's
 * value or the value just assigned), into out; when it made neither, the
 * last value of another kind it made (`x.shape`, a list, a string: out->t
 * NULL, out->text its repr), so that a view never goes on showing an older
 * tensor as what a line just made. False, with out zeroed, when that run
 * made no value (print(), def, import, a value None) or failed. */
bool session_last_value(const struct session *s, struct session_value *out);
/* The print options s's statements set (torch.set_printoptions,
 * np.set_printoptions), for printing its tensors as they would print. */
struct print_options;
const struct print_options *session_print_options(const struct session *s);
/* Evaluates the expression expr (`:show EXPR`) without changing the
 * workspace or the random streams: 0 with out filled, or -1 with err (col
 * within expr). */
int session_show(struct session *s, const char *expr, struct session_value *out, struct qkv_error *err);
/* `:show EXPR loops`: expr on the loops kernels, the unrolled and the SIMD ones, timed
 * and judged by lesson/compare.h; the workspace unchanged. 0 with out filled
 * (compare_free it), or -1 with err (col within expr), also when expr is
 * not a tensor. */
int session_compare(struct session *s, const char *expr, struct compare *out, struct qkv_error *err);

/* ---- the workspace ---------------------------------------------------------------- */

/* Appends the listing of `:ls` to out: one line per name in order of first
 * assignment (name, type, and a tensor's shape and dtype), or
 * "(the workspace is empty)". */
void session_list(const struct session *s, struct strbuf *out);
/* Names that begin with prefix, for Tab: with context NULL the workspace's
 * names and the global ones (torch, np, print, ...); with a context (the
 * text before a dot) its attributes: a module's functions, a tensor's
 * methods; prefix "" gives them all (`:help torch`). fn gets each, borrowed. */
void session_complete(const struct session *s, const char *context, const char *prefix,
		      void (*fn)(void *udata, const char *name), void *udata);
/* `:reset`: the workspace as it was made (the copy, or empty), the statements
 * typed forgotten; exercises solved stay solved. True when it went back to a
 * copy, false when it is empty. */
bool session_reset(struct session *s);

/* ---- statements and files ------------------------------------------------------------- */

/* The statements typed since the start or the last :reset (each the whole
 * source of a session_run that succeeded, a block's lines together, its
 * trailing blank lines left out), in order; borrowed, valid until
 * the next run or reset. */
const char *const *session_statements(const struct session *s, int *n);
/* `:save FILE.json` (lesson/save.h): writes the nbefore statements `before`
 * (the lesson's code up to the step, or none) then the statements typed, as
 * a lesson of one step titled title that reproduces the workspace. 0, or -1
 * with err->msg. */
int session_save(struct session *s, const char *path, bool overwrite, const char *title,
		 const char *const *before, int nbefore, struct qkv_error *err);
/* `:load FILE`: runs a lesson's or a statement file's code (lesson/save.h)
 * as one atomic session_run. 0, or -1 with err->msg: why the file cannot be
 * loaded, or "FILE:LINE:COL: message" for the statement that failed (err's
 * line and col are then that place in the file). */
int session_load(struct session *s, const char *path, struct qkv_error *err);
/* After a session_load that failed in a statement: the code it ran (*len
 * bytes, its lines numbered from 1, as the traceback in err->msg numbers
 * them; borrowed until the next session_load) and the error as that run
 * gave it, err->line and err->col its place in that code (for a lesson, not
 * in its JSON file), for the line of a function it was raised in
 * (view/errline). NULL when the last session_load did not fail in a
 * statement. */
const char *session_load_failure(const struct session *s, size_t *len, struct qkv_error *err);

/* ---- exercises -------------------------------------------------------------------------- */

/* The exercises of the step the session copies (borrowed: they must outlive
 * the session). Every tensor a statement makes is judged against each
 * unsolved one, whose answer is evaluated in the copied workspace as it was
 * made (a session from session_new has none to judge against). */
void session_set_exercises(struct session *s, const struct exercise *x, int n);
bool session_exercise_solved(const struct session *s, int k);
/* Solved by the last session_run (and not before it). */
bool session_exercise_solved_now(const struct session *s, int k);
/* The verdict of the last session_run: "\u2713 Exercise solved: ..." when it
 * solved one, else its last "Not yet: ..."; "" when it judged nothing or
 * failed. */
const char *session_exercise_verdict(const struct session *s);

#endif
