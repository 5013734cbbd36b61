/* runner.c: runs lessons step by step (see runner.h).
 * Drives the interpreter with each step's code, evaluates shows and expects
 * without changing the workspace, and turns positions inside code and
 * expressions into positions in the lesson file. Never prints. */
#include "lesson/runner.h"
#include "lesson/codeplace.h"
#include "lesson/compare.h"
#include "lesson/exercise.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/ops.h"
#include "core/textcmp.h"
#include "core/utf8.h"
#include "lang/parser.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct runner {
	const struct lesson *l;
	struct interp *I;
	bool own;                  /* I is the runner's (runner_new), else borrowed (runner_on) */
	int done;
	int first;                 /* the lesson-wide number of the first line of the code running */
	struct strbuf out;         /* output of the code being run */
	struct out_piece *pieces;  /* and by statement */
	int npieces;
	runner_progress_fn progress;  /* told while a timing runs */
	void *progress_ctx;
};

/* A path into the lesson file made of fmt (a step's, a show's...): whole,
 * however long; malloc'd, freed by the caller. */
static char *subpath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *subpath(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	p[0] = 0;
	va_start(ap, fmt);
	if (n > 0)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* lesson_error at path p (taken: freed here); -1. */
static int fail_at(const struct lesson *l, struct loc at, char *p, struct qkv_error *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int fail_at(const struct lesson *l, struct loc at, char *p, struct qkv_error *err, const char *fmt, ...)
{
	char msg[ERROR_MSG_MAX];	/* as much as the record holds */
	va_list ap;
	va_start(ap, fmt);
	utf8_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	lesson_error(l, at, p, err, "%s", msg);
	free(p);
	return -1;
}

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)v;
	struct runner *r = udata;
	strbuf_puts(&r->out, text);
	strbuf_putc(&r->out, '\n');
	int first, last;
	interp_statement_lines(r->I, &first, &last);
	r->pieces = xrealloc(r->pieces, sizeof *r->pieces * (size_t)(r->npieces + 1));
	struct strbuf t;
	strbuf_init(&t);
	strbuf_puts(&t, text);
	strbuf_putc(&t, '\n');
	r->pieces[r->npieces++] = (struct out_piece){ last - r->first + 1, strbuf_detach(&t) };
}

static void drop_pieces(struct runner *r)
{
	for (int i = 0; i < r->npieces; i++)
		free(r->pieces[i].text);
	free(r->pieces);
	r->pieces = NULL;
	r->npieces = 0;
}

struct runner *runner_new(const struct lesson *l, enum kernel_variant variant)
{
	struct runner *r = runner_on(l, interp_new(variant), 0);
	r->own = true;
	return r;
}

struct runner *runner_on(const struct lesson *l, struct interp *I, int done)
{
	struct runner *r = xcalloc(1, sizeof *r);
	r->l = l;
	r->I = I;
	r->done = done;
	strbuf_init(&r->out);
	interp_set_output(r->I, capture, r);
	return r;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	if (r->own)
		interp_free(r->I);
	else
		interp_set_output(r->I, NULL, NULL);	/* the hook pointed at r */
	strbuf_free(&r->out);
	drop_pieces(r);
	free(r);
}

struct interp *runner_interp(struct runner *r)
{
	return r->I;
}

int runner_done(const struct runner *r)
{
	return r->done;
}

void runner_set_progress(struct runner *r, runner_progress_fn fn, void *ctx)
{
	r->progress = fn;
	r->progress_ctx = ctx;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Runs code (lines of a step or a timing entry); a failure is reported at
 * the failing statement's place in the file. */
static int run_code(struct runner *r, const char *code, const struct code_line *lines, const char *path,
		    int flags, struct qkv_error *err)
{
	struct qkv_error e;
	/* numbered lesson-wide: a function's line stays its own in any step */
	r->first = codeplace_first_line(r->l, lines);
	enum interp_status st = interp_run(r->I, code, strlen(code), r->first, flags, &e);
	if (st == INTERP_OK)
		return 0;
	int line, last;
	interp_statement_lines(r->I, &line, &last);
	codeplace_error(r->l, &e, line, path, err);
	return st == INTERP_INTERRUPTED ? RUNNER_INTERRUPTED : -1;
}

/* An error evaluating the expression whose string is at `at`: at its
 * column of the expression when it has one line, else (raised inside a
 * function, its traceback naming the function's lines) at its start. */
static void *expr_error(struct runner *r, struct loc at, const char *path, const struct qkv_error *e,
			struct qkv_error *err)
{
	struct strbuf msg;
	strbuf_init(&msg);
	codeplace_traceback(r->l, e->msg, e->line, e->col, &msg);
	struct loc inner = at;
	inner.col += !codeplace_has_traceback(e->msg) && e->line == 1 ? e->col : 1;
	lesson_error(r->l, inner, path, err, "%s", msg.s);
	strbuf_free(&msg);
	return NULL;
}

/* Evaluates a show's or an expect's expression: its value as a tensor (a
 * number becomes a 0-d tensor). Errors point into the expression. */
static struct tensor *eval_tensor(struct runner *r, const char *expr, struct loc at, const char *path,
				  const char *what, struct qkv_error *err)
{
	struct qkv_error e;
	struct value *v = interp_eval(r->I, expr, strlen(expr), &e);
	if (!v) {
		bool bare_name = strspn(expr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
				 strlen(expr);
		if (bare_name && strstr(e.msg, "is not defined"))
			return lesson_error(r->l, at, path, err, "no tensor named '%s' exists after this step's code",
					    expr), NULL;
		return expr_error(r, at, path, &e, err);
	}
	struct tensor *t = NULL;
	if (v->kind == V_TENSOR)
		t = tensor_ref(v->t);
	else if (value_is_number(v))
		t = ops_scalar(v->kind == V_FLOAT ? DT_F64 : v->kind == V_INT ? DT_I64 : DT_BOOL, FLAVOR_TORCH,
			       value_as_double(v));
	else
		lesson_error(r->l, at, path, err, "%s must be a tensor or a number; '%s' is %s", what, expr,
			     value_type_name(v));
	value_unref(v);
	return t;
}

static int check_labels(struct runner *r, const struct show *s, const struct tensor *t, struct qkv_error *err)
{
	int nd = t->ndim;
	int64_t rows = nd >= 2 ? t->shape[nd - 2] : 1, cols = nd >= 1 ? t->shape[nd - 1] : 1;
	char dims[160];
	if (s->nslice > (nd > 2 ? nd - 2 : 0))
		return fail_at(r->l, s->slice_at, subpath("%s.slice", s->path), err,
			       "'%s' has %d dimension%s: a slice of %d index%s is too many", s->expr, nd,
			       nd == 1 ? "" : "s", s->nslice, s->nslice == 1 ? "" : "es");
	for (int i = 0; i < s->nslice; i++)
		if (s->slice[i] >= t->shape[i])
			return fail_at(r->l, s->slice_at, subpath("%s.slice[%d]", s->path, i), err,
				       "index %lld is out of range: dimension %d of '%s' has size %lld",
				       (long long)s->slice[i], i, s->expr, (long long)t->shape[i]);
	if (s->kind == SHOW_HEATMAP || s->kind == SHOW_COMPARE) {
		if (s->nrows && s->nrows != rows)
			return fail_at(r->l, s->rows_at, subpath("%s.rows", s->path), err,
				       "%d labels for %lld rows of '%s'", s->nrows, (long long)rows, s->expr);
		if (s->ncols && s->ncols != cols)
			return fail_at(r->l, s->cols_at, subpath("%s.cols", s->path), err,
				       "%d labels for %lld columns of '%s'", s->ncols, (long long)cols, s->expr);
		return 0;
	}
	/* tokens: weights (T, T), (H, T, T) or (B, H, T, T) */
	if (nd < 2 || nd > 4 || t->shape[nd - 1] != t->shape[nd - 2] || !dtype_is_float(t->dtype))
		return lesson_error(r->l, s->at, s->path, err, "a token view needs square weights of shape (T, T), "
				    "(heads, T, T) or (batch, heads, T, T); '%s' has shape %s", s->expr,
				    tensor_shape_str(dims, sizeof dims, nd, t->shape));
	/* no heads or no batch (shape [0, 3, 3]): the views would divide by 0 */
	if (tensor_numel(t) == 0)
		return lesson_error(r->l, s->at, s->path, err, "a token view needs weights to show; '%s' has shape %s, "
				    "with no elements", s->expr, tensor_shape_str(dims, sizeof dims, nd, t->shape));
	if (s->ncols && s->ncols != cols)
		return fail_at(r->l, s->cols_at, subpath("%s.labels", s->path), err, "%d labels for %lld tokens",
			       s->ncols, (long long)cols);
	if (s->query >= cols)
		return fail_at(r->l, s->query_at, subpath("%s.query", s->path), err,
			       "query %lld is out of range: there are %lld tokens", (long long)s->query, (long long)cols);
	return 0;
}

/* The compared expression of a show, for compare_run: errors point into the
 * lesson file. */
struct compare_show {
	struct runner *r;
	const struct show *s;
};

static struct tensor *eval_compared(void *ctx, struct qkv_error *err)
{
	struct compare_show *c = ctx;
	return eval_tensor(c->r, c->s->expr, c->s->at, c->s->path, "a comparison", err);
}

static int eval_compare(struct runner *r, const struct show *s, struct shown *sh, struct qkv_error *err)
{
	struct compare_show c = { r, s };
	struct compare cmp;
	if (compare_run(r->I, eval_compared, &c, &cmp, err) < 0)
		return -1;
	sh->t = cmp.simd;	/* sh takes the references */
	sh->loops = cmp.loops;
	sh->simd_ms = cmp.simd_ms;
	sh->loops_ms = cmp.loops_ms;
	sh->agree = cmp.agree;
	sh->max_diff = cmp.max_diff;
	sh->unrolled = cmp.unrolled;
	sh->unrolled_ms = cmp.unrolled_ms;
	sh->unrolled_agree = cmp.unrolled_agree;
	sh->unrolled_diff = cmp.unrolled_diff;
	return check_labels(r, s, sh->t, err);
}

/* ---- timing ------------------------------------------------------------------ */

/* A timing entry being run, for the progress callback. */
struct timing_watch {
	struct runner *r;
	struct runner_progress p;
	int *first_line;           /* the line each statement starts on */
	double t0;                 /* when the entry started */
	double excluded;           /* ms spent in the callback since */
};

/* The first line of every statement of code (its first line numbered
 * first), counted by the parser; returns how many. A syntax error ends the
 * count (running reports it). */
static int statement_lines(const char *code, int first, int **lines)
{
	struct parser *p = parser_new(code, strlen(code), first);
	int n = 0, cap = 0;
	*lines = NULL;
	for (;;) {
		struct node *stmt = NULL;
		if (parser_next(p, &stmt, NULL) != PARSE_OK)
			break;
		node_free(stmt);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*lines = xrealloc(*lines, sizeof **lines * (size_t)cap);
		}
		parser_last_span(p, &(*lines)[n++], NULL, NULL);
	}
	parser_free(p);
	return n;
}

/* Tells the callback where the entry is; its own time is set aside. */
static void timing_report(struct timing_watch *w, double elapsed_ms)
{
	double t = now_ms();
	w->p.elapsed_ms = elapsed_ms;
	w->r->progress(w->r->progress_ctx, &w->p);
	w->excluded += now_ms() - t;
}

/* The observer while an entry runs: one more statement done. Statements
 * that produce no value are counted with the next one that does. */
static void timing_statement(void *udata, const struct value *v)
{
	(void)v;
	struct timing_watch *w = udata;
	int first, last, k = w->p.statement;
	interp_statement_lines(w->r->I, &first, &last);
	while (k < w->p.nstatements && w->first_line[k] < first)
		k++;
	if (k < w->p.nstatements && w->first_line[k] == first)
		k++;
	w->p.statement = k;
	timing_report(w, now_ms() - w->t0 - w->excluded);
}

/* Runs each entry of a timing show in a dry run (the workspace and the random
 * streams as they were afterwards), `repeat` times, and records its best
 * time: the computation alone, without the progress callback's. */
static int eval_timing(struct runner *r, const struct show *s, struct shown *sh, struct qkv_error *err)
{
	sh->timing_ms = xcalloc((size_t)s->ntimings, sizeof *sh->timing_ms);
	const struct step *st = r->done > 0 ? &r->l->steps[r->done - 1] : NULL;
	for (int i = 0; i < s->ntimings; i++) {
		const struct timing_entry *t = &s->timings[i];
		char *p = subpath("%s.timing[%d].code", s->path, i);
		struct timing_watch w = { .r = r };
		if (r->progress) {
			w.p = (struct runner_progress){ st, s, t->label, i, s->ntimings, 0, 0, 0, t->repeat, 0, sh->timing_ms,
							false };
			w.p.nstatements = statement_lines(t->code, codeplace_first_line(r->l, t->lines), &w.first_line);
			interp_set_observer(r->I, timing_statement, &w);
		}
		int rc = 0;
		double best = INFINITY;
		for (int run = 0; run < t->repeat && rc == 0; run++) {
			w.p.run = run;
			w.p.statement = 0;
			if (r->progress)
				timing_report(&w, 0);
			w.t0 = now_ms();
			w.excluded = 0;
			rc = run_code(r, t->code, t->lines, p, INTERP_DRY_RUN, err);
			double ms = now_ms() - w.t0 - w.excluded;
			best = ms < best ? ms : best;
		}
		sh->timing_ms[i] = best;
		if (rc == RUNNER_INTERRUPTED)
			for (int j = i; j < s->ntimings; j++)
				sh->timing_ms[j] = NAN;	/* not timed: cancelled */
		if (r->progress) {
			interp_set_observer(r->I, NULL, NULL);
			if (rc == 0) {
				w.p.statement = w.p.nstatements;
				w.p.finished = true;
				timing_report(&w, sh->timing_ms[i]);
			}
			free(w.first_line);
		}
		free(p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int eval_show_kind(struct runner *r, const struct show *s, struct shown *sh, struct qkv_error *err)
{
	switch (s->kind) {
	case SHOW_HEATMAP:
	case SHOW_TOKENS:
		sh->t = eval_tensor(r, s->expr, s->at, s->path, s->kind == SHOW_HEATMAP ? "a heatmap" : "a token view",
				    err);
		if (!sh->t)
			return -1;
		return check_labels(r, s, sh->t, err);
	case SHOW_COMPARE:
		return eval_compare(r, s, sh, err);
	case SHOW_TIMING:
		return eval_timing(r, s, sh, err);
	}
	return 0;
}

static void drop_tensors(struct shown *sh)
{
	tensor_unref(sh->t);
	tensor_unref(sh->loops);
	tensor_unref(sh->unrolled);
	sh->t = sh->loops = sh->unrolled = NULL;
}

/* One show; stopped by the interrupt flag, it is marked cancelled and keeps
 * no half-made tensors; failed, it keeps none either. */
static int eval_show(struct runner *r, const struct show *s, struct shown *sh, struct qkv_error *err)
{
	sh->show = s;
	int rc = eval_show_kind(r, s, sh, err);
	if (rc < 0 && interp_interrupted(r->I)) {
		sh->cancelled = true;
		if (s->kind != SHOW_TIMING)
			drop_tensors(sh);
		return RUNNER_INTERRUPTED;
	}
	if (rc < 0 && s->kind != SHOW_TIMING)
		drop_tensors(sh);	/* a show that failed (its labels, its shape) keeps no tensors to draw */
	return rc;
}

static void free_shown(struct step_result *s)
{
	for (int i = 0; i < s->nshown; i++) {
		drop_tensors(&s->shown[i]);
		free(s->shown[i].timing_ms);
	}
	free(s->shown);
	s->shown = NULL;
	s->nshown = 0;
}

/* The shows of step st into out, stopping at the first that fails. */
static int eval_shows(struct runner *r, const struct step *st, struct step_result *out, struct qkv_error *err)
{
	out->shown = xcalloc((size_t)st->nshows + 1, sizeof *out->shown);
	for (int i = 0; i < st->nshows; i++) {
		out->nshown++;
		int rc = eval_show(r, &st->shows[i], &out->shown[i], err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int runner_show(struct runner *r, struct step_result *out, struct qkv_error *err)
{
	if (r->done == 0)
		return error_set(err, 0, 0, "%s: no step has run", r->l->name);
	free_shown(out);
	return eval_shows(r, &r->l->steps[r->done - 1], out, err);
}

void step_result_free(struct step_result *s)
{
	free(s->output);
	for (int i = 0; i < s->npieces; i++)
		free(s->pieces[i].text);
	free(s->pieces);
	free_shown(s);
	memset(s, 0, sizeof *s);
}

int runner_step(struct runner *r, struct step_result *out, struct qkv_error *err)
{
	if (r->done >= r->l->nsteps)
		return error_set(err, 0, 0, "%s: no more steps", r->l->name);
	const struct step *st = &r->l->steps[r->done];
	strbuf_reset(&r->out);
	drop_pieces(r);	/* printed by an exercise check since the last step */
	char *p = subpath("%s.code", st->path);
	/* cancelled (Ctrl-C) part way, the step is undone whole, to run again */
	int rc = run_code(r, st->code, st->lines, p, INTERP_PER_STATEMENT | INTERP_UNDO_ALL_ON_INTERRUPT,
			  err);
	free(p);
	if (rc == RUNNER_INTERRUPTED) {
		strbuf_reset(&r->out);
		drop_pieces(r);
		if (out)
			memset(out, 0, sizeof *out);
		return rc;
	}
	r->done++;
	if (!out)
		drop_pieces(r);
	if (out) {
		memset(out, 0, sizeof *out);
		out->output = xstrdup(r->out.s ? r->out.s : "");
		out->pieces = r->pieces;
		out->npieces = r->npieces;
		r->pieces = NULL;
		r->npieces = 0;
		if (rc < 0)
			return -1;
		return eval_shows(r, st, out, err);
	}
	return rc;
}

static void describe_tensor(char *buf, size_t size, const struct tensor *t)
{
	char s[96];
	snprintf(buf, size, "shape %s", tensor_shape_str(s, sizeof s, t->ndim, t->shape));
}

int runner_expect(struct runner *r, const struct step *st, const struct step_result *res, int k,
		  struct expect_result *out, struct qkv_error *err)
{
	const struct expect *e = &st->expects[k];
	memset(out, 0, sizeof *out);
	char why[sizeof out->detail / 2];	/* (the detail quotes it after the expression) */
	if (e->kind == EXPECT_OUTPUT) {
		/* the output ends with a newline the expected text need not have */
		struct strbuf want;
		strbuf_init(&want);
		strbuf_puts(&want, e->text);
		if (want.len && want.s[want.len - 1] != '\n')
			strbuf_putc(&want, '\n');
		out->pass = textcmp_match(res->output, want.s, 0, e->text_tol, false, why, sizeof why);
		if (!out->pass)
			utf8_snprintf(out->detail, sizeof out->detail, "the printed output differs, %s", why);
		strbuf_free(&want);
		return 0;
	}
	if (e->kind == EXPECT_TEXT) {
		struct qkv_error e2;
		struct value *v = interp_eval(r->I, e->expr, strlen(e->expr), &e2);
		if (!v)
			return expr_error(r, e->at, e->path, &e2, err), -1;
		struct strbuf sb;
		strbuf_init(&sb);
		const struct print_options *was = format_use_options(interp_print_options(r->I));
		value_repr(&sb, v);	/* as the lesson's statements print it */
		format_use_options(was);
		value_unref(v);
		out->pass = textcmp_match(sb.s, e->text, 0, e->text_tol, false, why, sizeof why);
		if (!out->pass)
			utf8_snprintf(out->detail, sizeof out->detail, "'%s' prints differently, %s", e->expr, why);
		strbuf_free(&sb);
		return 0;
	}
	struct tensor *t = eval_tensor(r, e->expr, e->at, e->path, "an expected value", err);
	if (!t)
		return -1;
	bool shape_ok = t->ndim == e->ndim;
	for (int i = 0; shape_ok && i < e->ndim; i++)
		shape_ok = t->shape[i] == e->shape[i];
	if (!shape_ok) {
		char have[128], want[96];
		describe_tensor(have, sizeof have, t);
		utf8_snprintf(out->detail, sizeof out->detail, "'%s' has %s, the expected values have shape %s",
			      e->expr, have, tensor_shape_str(want, sizeof want, e->ndim, e->shape));
		tensor_unref(t);
		return 0;
	}
	out->pass = true;
	int64_t n = tensor_numel(t), worst = -1;
	for (int64_t i = 0; i < n; i++) {
		double d = compare_diff(tensor_get(t, i), e->values[i]);
		if (d == 0)
			continue;
		if (d > out->max_diff || worst < 0) {
			out->max_diff = d;
			worst = i;
		}
		if (!(d <= e->tol))
			out->pass = false;
	}
	if (!out->pass)
		utf8_snprintf(out->detail, sizeof out->detail,
			      "'%s': largest difference %.3g at element %lld (got %.6g, want %.6g, tolerance %g)", e->expr,
			      out->max_diff, (long long)worst, tensor_get(t, worst), e->values[worst], e->tol);
	tensor_unref(t);
	return 0;
}

/* ---- exercises ------------------------------------------------------------------ */

struct tensor *runner_exercise_expected(struct runner *r, const struct step *st, int k, struct qkv_error *err)
{
	const struct exercise *x = &st->exercises[k];
	char *p = subpath("%s.answer", x->path);
	struct tensor *t = eval_tensor(r, x->answer, x->answer_at, p, "an exercise's answer", err);
	free(p);
	return t;
}

struct solution_watch {
	const struct tensor *want;
	double tol;
	bool solved;
};

static void watch_solution(void *udata, const struct value *v)
{
	struct solution_watch *w = udata;
	struct tensor *t = w->solved ? NULL : answer_tensor(v);
	if (!t)
		return;
	struct answer_check ac;
	answer_compare(t, w->want, w->tol, &ac);
	w->solved = ac.pass;
	tensor_unref(t);
}

int runner_check_exercise(struct runner *r, const struct step *st, int k, bool *solved, char *detail,
			  size_t size, struct qkv_error *err)
{
	const struct exercise *x = &st->exercises[k];
	*solved = false;
	detail[0] = 0;
	struct tensor *want = runner_exercise_expected(r, st, k, err);
	if (!want)
		return -1;
	struct solution_watch w = { want, x->tol, false };
	interp_set_observer(r->I, watch_solution, &w);
	char *p = subpath("%s.solution", x->path);
	int rc = run_code(r, x->solution, x->solution_lines, p, INTERP_DRY_RUN, err);
	free(p);
	interp_set_observer(r->I, NULL, NULL);
	tensor_unref(want);
	if (rc < 0)
		return -1;
	*solved = w.solved;
	if (!w.solved)
		utf8_snprintf(detail, size, "its solution does not produce the answer '%s'", x->answer);
	return 0;
}
