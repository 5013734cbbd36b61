/* session.c: a workspace where statements are typed (see session.h), the
 * one way ui/prompt.c and cli/ reach the interpreter. Keeps the statements
 * run, the last value made, and the exercises judged against every value a
 * line makes (exercise.c's exercise_judge); :show, :ls, :reset, :save, :load
 * and completion. Never prints, never touches a terminal, never exits. */
#include "lesson/session.h"
#include "lesson/codeplace.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/ops.h"
#include "lang/interp.h"
#include "lesson/compare.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/runner.h"
#include "lesson/save.h"
#include "lesson/statements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERDICT_MAX 400

struct session {
	struct interp *I;             /* the workspace (owned) */
	struct interp *base;          /* the copy :reset goes back to (owned), or NULL: empty */
	enum kernel_variant variant;  /* for an empty :reset */
	int64_t max_elems;
	const volatile sig_atomic_t *interrupt;
	bool has_interrupt;           /* session_set_interrupt was called */

	session_output_fn output;
	void *output_udata;

	char **typed;                 /* statements run whole (owned), for :save */
	int ntyped;

	/* what the run going on made, kept when it succeeds whole */
	struct value *made;           /* the last tensor or number (a reference) */
	struct value *made_other;     /* the last value of another kind (`x.shape`, a list,
	                                 a string): what the run made when it made no
	                                 tensor or number, for the view to show as text */
	char verdict_now[VERDICT_MAX];
	enum verdict best_now;        /* what verdict_now is */
	/* what the last run made */
	struct value *last;
	char verdict[VERDICT_MAX];

	/* the last session_load that failed in a statement: its code and that
	 * run's error (its place in the code, not in the file), or NULL */
	char *load_code;
	size_t load_len;
	struct qkv_error load_err;

	const struct exercise *ex;    /* borrowed */
	int nex;
	bool *solved;
	bool *solved_now;             /* by the run going on, then by the last run */
};

/* ---- the interpreter's callbacks ----------------------------------------------------- */

static void emit(void *udata, const struct value *v, const char *text)
{
	struct session *s = udata;
	if (!s->output)
		return;
	struct session_output o = { .text = text, .kind = SESSION_TEXT };
	if (v && v->kind == V_TENSOR) {
		o.kind = SESSION_TENSOR;
		o.t = v->t;
	} else if (v && value_is_number(v)) {
		o.kind = SESSION_NUMBER;
		o.dtype = v->kind == V_FLOAT ? (v->f32 ? DT_F32 : DT_F64) : v->kind == V_INT ? DT_I64 : DT_BOOL;
		o.number = value_as_double(v);
		o.integer = v->kind == V_INT ? v->i : v->kind == V_BOOL ? (int64_t)o.number : 0;
	}
	s->output(s->output_udata, &o);
}

/* Every value a statement makes: the last tensor or number is kept, and
 * the last value of any other kind but None (shown as text when the run
 * made neither: a view that went on drawing an older tensor under `x.shape`
 * would pass it off as the value just typed); a tensor is judged against each exercise not solved yet, and a number or a
 * list of numbers against each prediction (typing `d_k = 4` on the way to a
 * tensor is not a wrong answer). */
static void observe(void *udata, const struct value *v)
{
	struct session *s = udata;
	bool tensor = v->kind == V_TENSOR;
	if (tensor || value_is_number(v)) {
		value_unref(s->made);
		s->made = value_ref((struct value *)v);
	} else if (v->kind != V_NONE) {
		value_unref(s->made_other);
		s->made_other = value_ref((struct value *)v);
	}
	if (!s->base || (!tensor && !value_is_number(v) && v->kind != V_LIST && v->kind != V_TUPLE))
		return;
	for (int k = 0; k < s->nex; k++) {
		if (s->solved[k] || s->solved_now[k] || (!tensor && !s->ex[k].predict))
			continue;
		char msg[VERDICT_MAX];
		enum verdict verdict = exercise_judge(s->base, &s->ex[k], v, msg, sizeof msg);
		if (verdict == VERDICT_NONE)
			continue;
		/* the most telling verdict is shown, the first open exercise's of
		 * equals: "Not yet" never hides a solved one, a wrong shape never
		 * hides a near miss */
		if (verdict > s->best_now) {
			memcpy(s->verdict_now, msg, sizeof msg);
			s->best_now = verdict;
		}
		if (verdict == VERDICT_RIGHT)
			s->solved_now[k] = true;	/* kept if the whole run succeeds */
	}
}

/* I's callbacks and interrupt flag, after making it */
static void attach(struct session *s)
{
	interp_set_output(s->I, emit, s);
	interp_set_observer(s->I, observe, s);
	if (s->has_interrupt)
		interp_set_interrupt(s->I, s->interrupt);
}

/* ---- making one ---------------------------------------------------------------------- */

static struct interp *new_empty(enum kernel_variant variant, int64_t max_elems)
{
	struct interp *I = interp_new(variant);
	if (max_elems > 0)
		interp_ops(I)->max_elems = max_elems;
	return I;
}

static struct session *session_alloc(void)
{
	struct session *s = xcalloc(1, sizeof *s);
	s->solved = xcalloc(1, sizeof *s->solved);
	s->solved_now = xcalloc(1, sizeof *s->solved_now);
	return s;
}

struct session *session_new(enum kernel_variant variant, int64_t max_elems)
{
	struct session *s = session_alloc();
	s->variant = variant;
	s->max_elems = max_elems;
	s->I = new_empty(variant, max_elems);
	attach(s);
	return s;
}

struct session *session_new_copy(const struct interp *from)
{
	struct session *s = session_alloc();
	s->base = interp_clone(from);
	s->I = interp_clone(from);
	s->variant = interp_ops(s->I)->variant;
	s->max_elems = interp_ops(s->I)->max_elems;
	attach(s);
	return s;
}

static void forget_typed(struct session *s)
{
	for (int i = 0; i < s->ntyped; i++)
		free(s->typed[i]);
	free(s->typed);
	s->typed = NULL;
	s->ntyped = 0;
}

/* Forgets what the last run made. */
static void forget_last(struct session *s)
{
	value_unref(s->last);
	s->last = NULL;
	s->verdict[0] = 0;
	memset(s->solved_now, 0, (size_t)s->nex + 1);
}

void session_free(struct session *s)
{
	if (!s)
		return;
	interp_free(s->I);
	interp_free(s->base);
	forget_typed(s);
	value_unref(s->made);
	value_unref(s->made_other);
	value_unref(s->last);
	free(s->load_code);
	free(s->solved);
	free(s->solved_now);
	free(s);
}

void session_set_interrupt(struct session *s, const volatile sig_atomic_t *flag)
{
	s->interrupt = flag;
	s->has_interrupt = true;
	interp_set_interrupt(s->I, flag);
	if (s->base)
		interp_set_interrupt(s->base, flag);
}

/* ---- running statements ----------------------------------------------------------------- */

void session_set_output(struct session *s, session_output_fn fn, void *udata)
{
	s->output = fn;
	s->output_udata = udata;
}

static enum session_status status_of(enum interp_status st)
{
	switch (st) {
	case INTERP_OK: return SESSION_OK;
	case INTERP_INCOMPLETE: return SESSION_INCOMPLETE;
	case INTERP_INTERRUPTED: return SESSION_INTERRUPTED;
	case INTERP_ERROR: break;
	}
	return SESSION_ERROR;
}

/* Where src ends, for an unfinished statement the parser gave no place. */
static void locate_end(const char *src, size_t len, int first_line, struct qkv_error *err)
{
	int line = first_line, col = 1;
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	error_set(err, line, col, "the statement is not finished");
}

enum session_status session_run(struct session *s, const char *src, size_t len, int first_line,
				 enum session_mode mode, struct qkv_error *err)
{
	value_unref(s->made);
	value_unref(s->made_other);
	s->made = s->made_other = NULL;
	s->verdict_now[0] = 0;
	s->best_now = VERDICT_NONE;
	forget_last(s);
	error_clear(err);
	enum interp_status st = interp_run(s->I, src, len, first_line,
					   mode == SESSION_ATOMIC ? INTERP_ATOMIC : INTERP_PER_STATEMENT, err);
	if (st == INTERP_INCOMPLETE && !err->msg[0])
		locate_end(src, len, first_line, err);
	if (st != INTERP_OK) {
		/* nothing of a failing run counts: not even an exercise it answered */
		value_unref(s->made);
		value_unref(s->made_other);
		s->made = s->made_other = NULL;
		memset(s->solved_now, 0, (size_t)s->nex + 1);
		return status_of(st);
	}
	if (s->made) {
		s->last = s->made;
		value_unref(s->made_other);
	} else {
		s->last = s->made_other;
	}
	s->made = s->made_other = NULL;
	memcpy(s->verdict, s->verdict_now, sizeof s->verdict);
	for (int k = 0; k < s->nex; k++)
		s->solved[k] = s->solved[k] || s->solved_now[k];
	s->typed = xrealloc(s->typed, sizeof *s->typed * (size_t)(s->ntyped + 1));
	while (len > 0 && (src[len - 1] == ' ' || src[len - 1] == '\t' || src[len - 1] == '\r' || src[len - 1] == '\n'))
		len--;	/* the empty line that ended a block */
	s->typed[s->ntyped++] = xstrndup(src, len);
	return SESSION_OK;
}

bool session_is_complete(const char *src, size_t len)
{
	if (interp_check_complete(src, len) == INTERP_INCOMPLETE)
		return false;
	/* a block goes on until an empty line, whether or not the parser's
	 * interactive mode says so itself */
	return !statements_opens_block(src, len) || statements_ends_with_empty_line(src, len);
}

bool session_quit_requested(const struct session *s)
{
	return interp_quit_requested(s->I);
}

int session_quit_status(const struct session *s)
{
	return interp_quit_status(s->I);
}

/* ---- values ------------------------------------------------------------------------- */

/* v for a view: a tensor as it is, anything else as its repr under the
 * print options s's statements set. */
static void value_out(const struct session *s, const struct value *v, struct session_value *out)
{
	memset(out, 0, sizeof *out);
	if (v->kind == V_TENSOR) {
		out->t = tensor_ref(v->t);
		return;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	const struct print_options *was = format_use_options(interp_print_options(s->I));
	value_repr(&sb, v);
	format_use_options(was);
	out->text = strbuf_detach(&sb);
}

const struct print_options *session_print_options(const struct session *s)
{
	return interp_print_options(s->I);
}

void session_value_free(struct session_value *v)
{
	tensor_unref(v->t);
	free(v->text);
	memset(v, 0, sizeof *v);
}

bool session_last_value(const struct session *s, struct session_value *out)
{
	if (!s->last) {
		memset(out, 0, sizeof *out);
		return false;
	}
	value_out(s, s->last, out);
	return true;
}

int session_show(struct session *s, const char *expr, struct session_value *out, struct qkv_error *err)
{
	memset(out, 0, sizeof *out);
	struct value *v = interp_eval(s->I, expr, strlen(expr), err);
	if (!v)
		return -1;
	value_out(s, v, out);
	value_unref(v);
	return 0;
}

struct compared {
	struct session *s;
	const char *expr;
};

static struct tensor *eval_compared(void *ctx, struct qkv_error *err)
{
	struct compared *c = ctx;
	struct value *v = interp_eval(c->s->I, c->expr, strlen(c->expr), err);
	if (!v)
		return NULL;
	struct tensor *t = v->kind == V_TENSOR ? tensor_ref(v->t) : NULL;
	value_unref(v);
	if (!t)
		error_set(err, 1, 1, ":show ... loops needs a tensor expression");
	return t;
}

int session_compare(struct session *s, const char *expr, struct compare *out, struct qkv_error *err)
{
	struct compared c = { s, expr };
	return compare_run(s->I, eval_compared, &c, out, err);
}

/* ---- the workspace -------------------------------------------------------------------- */

void session_list(const struct session *s, struct strbuf *out)
{
	int n = interp_var_count(s->I);
	if (n == 0)
		strbuf_puts(out, "(the workspace is empty)");
	for (int i = 0; i < n; i++) {
		const char *name = interp_var_name(s->I, i);
		struct value *v = interp_get(s->I, name);
		char dims[80], shape[112] = "";
		if (v->kind == V_TENSOR)
			snprintf(shape, sizeof shape, "%-16s %s",
				 tensor_shape_str(dims, sizeof dims, v->t->ndim, v->t->shape), dtype_name(v->t->dtype));
		strbuf_printf(out, "%-16s %-10s %s\n", name, value_type_name(v), shape);
	}
}

void session_complete(const struct session *s, const char *context, const char *prefix,
		      void (*fn)(void *udata, const char *name), void *udata)
{
	interp_complete(s->I, context, prefix, fn, udata);
}

bool session_reset(struct session *s)
{
	interp_free(s->I);
	s->I = s->base ? interp_clone(s->base) : new_empty(s->variant, s->max_elems);
	attach(s);
	forget_typed(s);	/* a :save after this holds only what follows */
	forget_last(s);
	return s->base != NULL;
}

/* ---- statements and files ---------------------------------------------------------------- */

const char *const *session_statements(const struct session *s, int *n)
{
	*n = s->ntyped;
	return (const char *const *)s->typed;
}

int session_save(struct session *s, const char *path, bool overwrite, const char *title,
		 const char *const *before, int nbefore, struct qkv_error *err)
{
	int n = nbefore + s->ntyped;
	const char **lines = xcalloc((size_t)n + 1, sizeof *lines);
	for (int i = 0; i < nbefore; i++)
		lines[i] = before[i];
	for (int i = 0; i < s->ntyped; i++)
		lines[nbefore + i] = s->typed[i];
	int rc = save_write_lesson(path, overwrite, title, lines, n, s->I, err);
	free(lines);
	return rc;
}

int session_load(struct session *s, const char *path, struct qkv_error *err)
{
	struct strbuf code;
	struct lesson *l;
	free(s->load_code);
	s->load_code = NULL;
	strbuf_init(&code);
	if (save_load_code(path, &code, &l, err) < 0) {
		strbuf_free(&code);
		return -1;
	}
	struct qkv_error e;
	enum session_status st = session_run(s, code.s ? code.s : "", code.len, 1, SESSION_ATOMIC, &e);
	if (st != SESSION_OK) {
		/* kept for session_load_failure: the line of a function it raised in */
		s->load_len = code.len;
		s->load_code = code.s ? strbuf_detach(&code) : xstrdup("");
		s->load_err = e;
	}
	strbuf_free(&code);
	int rc = 0;
	if (st != SESSION_OK && l) {
		/* a lesson's statement: its place in the JSON file, named as qkv check does */
		int line, last;
		interp_statement_lines(s->I, &line, &last);
		rc = codeplace_error(l, &e, line, NULL, err);
	} else if (st != SESSION_OK) {
		rc = error_set(err, e.line, e.col, "%s:%d:%d: %s", path, e.line, e.col, e.msg);
	}
	if (l)
		lesson_free(l);
	return rc;
}

const char *session_load_failure(const struct session *s, size_t *len, struct qkv_error *err)
{
	if (!s->load_code)
		return NULL;
	*len = s->load_len;
	*err = s->load_err;
	return s->load_code;
}

/* ---- exercises -------------------------------------------------------------------------- */

void session_set_exercises(struct session *s, const struct exercise *x, int n)
{
	s->ex = x;
	s->nex = n > 0 ? n : 0;
	free(s->solved);
	free(s->solved_now);
	s->solved = xcalloc((size_t)s->nex + 1, sizeof *s->solved);
	s->solved_now = xcalloc((size_t)s->nex + 1, sizeof *s->solved_now);
}

bool session_exercise_solved(const struct session *s, int k)
{
	return k >= 0 && k < s->nex && s->solved[k];
}

bool session_exercise_solved_now(const struct session *s, int k)
{
	return k >= 0 && k < s->nex && s->solved_now[k];
}

const char *session_exercise_verdict(const struct session *s)
{
	return s->verdict;
}
