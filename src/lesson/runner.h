/* runner.h: running a lesson's steps in one workspace.
 * The runner executes each step's code in order, evaluates what the step
 * shows (tensors for heatmaps, loops-against-SIMD comparisons, timings) and
 * verifies its expects. `qkv run`, `qkv check` and the full-screen program
 * all drive lessons through it. Errors name FILE:LINE:COL: PATH. */
#ifndef QKV_LESSON_RUNNER_H
#define QKV_LESSON_RUNNER_H

#include "core/strbuf.h"
#include "lang/interp.h"
#include "lesson/lesson.h"

/* One evaluated show. */
struct shown {
	const struct show *show;
	struct tensor *t;          /* heatmap, tokens: the value; compare: the SIMD result */
	struct tensor *loops;      /* compare: the loops result */
	double simd_ms, loops_ms;  /* compare */
	double max_diff;           /* compare: largest |simd - loops| */
	bool agree;                /* compare: by the rule of lesson/compare.h */
	struct tensor *unrolled;   /* compare: the unrolled result (issue 18) */
	double unrolled_ms;        /* compare */
	double unrolled_diff;      /* compare: largest |unrolled - loops| */
	bool unrolled_agree;       /* compare: by the same rule */
	double *timing_ms;         /* timing: one per entry */
	bool cancelled;            /* Ctrl-C stopped it (runner_step returned RUNNER_INTERRUPTED): a
	                              timing keeps the entries it finished, the others are NAN;
	                              another show has no tensors */
};

/* Output printed by the statement that ends on code line `line` (1-based). */
struct out_piece {
	int line;
	char *text;                /* with its newline */
};

struct step_result {
	char *output;              /* what the code printed (bare expressions and print) */
	struct out_piece *pieces;  /* the same, statement by statement */
	int npieces;
	struct shown *shown;
	int nshown;
};

struct runner;

/* A runner at the start of the lesson (no step run yet). */
struct runner *runner_new(const struct lesson *l, enum kernel_variant variant);
/* A runner over the workspace I as steps 0 .. done - 1 left it (I is
 * borrowed: not freed, and its output hook is the runner's until
 * runner_free). For showing a step's views again, or checking its exercises,
 * in a snapshot of its workspace: only runner_show, runner_expect and the
 * exercise checks, which leave the workspace as it was. */
struct runner *runner_on(const struct lesson *l, struct interp *I, int done);
void runner_free(struct runner *r);
struct interp *runner_interp(struct runner *r);
/* Steps run so far. */
int runner_done(const struct runner *r);

/* What a timing show is doing, reported while it runs (runner_set_progress).
 * Borrowed: valid during the call only. */
struct runner_progress {
	const struct step *step;   /* the step whose show it is */
	const struct show *show;   /* the timing show */
	const char *label;         /* the entry running */
	int entry, nentries;       /* which entry (0-based), and how many */
	int statement, nstatements;/* statements of this entry's run done so far, and in all */
	int run, nruns;            /* which run of the entry (0-based), and how many (its repeat) */
	double elapsed_ms;         /* this run's computation so far (the callbacks excluded) */
	const double *done_ms;     /* the times of entries 0 .. entry - 1 */
	bool finished;             /* the entry just ended: elapsed_ms is its time, the best run's */
};
typedef void (*runner_progress_fn)(void *ctx, const struct runner_progress *p);

/* Calls fn while a timing show runs: as each entry starts (statement 0),
 * after each of its statements that produces a value, and as it ends
 * (finished). The time fn takes is not counted in the timing; fn may draw,
 * but must not use the runner. NULL stops it. */
void runner_set_progress(struct runner *r, runner_progress_fn fn, void *ctx);

/* Runs the next step: its code, then its shows (when out is not NULL). On
 * failure returns -1 with err->msg the full "FILE:LINE:COL: PATH: message"
 * line; the workspace is as the statements before the failing one left it.
 *
 * When the interpreter's interrupt flag (interp_set_interrupt on
 * runner_interp) stops it, returns RUNNER_INTERRUPTED with err saying
 * "... interrupted (Ctrl-C)". Stopped in the code, the step has not run: the
 * workspace and the random streams are as before it, runner_done is
 * unchanged, out holds nothing, and the next runner_step runs it again.
 * Stopped in a show, the step has run: out holds its output and the shows up
 * to the stopped one, which is marked cancelled; runner_show evaluates them
 * again. */
#define RUNNER_INTERRUPTED (-2)
int runner_step(struct runner *r, struct step_result *out, struct qkv_error *err);
/* Evaluates the shows of the step last run again, into out (its old shows
 * are freed, its output kept): after one was cancelled. 0, -1 or
 * RUNNER_INTERRUPTED as runner_step. */
int runner_show(struct runner *r, struct step_result *out, struct qkv_error *err);
void step_result_free(struct step_result *s);

/* The result of one expect. */
struct expect_result {
	bool pass;
	double max_diff;           /* values, text: largest difference found */
	char detail[ERROR_MSG_MAX]; /* why it failed (whole, as an error record holds it) */
};

/* Verifies the expects of the step just run (its result holds its output). */
int runner_expect(struct runner *r, const struct step *st, const struct step_result *res, int k,
		  struct expect_result *out, struct qkv_error *err);

/* The expected tensor of exercise k of step st, evaluated in the runner's
 * workspace as the step left it (a new reference), or NULL with err. */
struct tensor *runner_exercise_expected(struct runner *r, const struct step *st, int k, struct qkv_error *err);
/* qkv check for an exercise: its answer evaluates and its solution, run
 * without changing the workspace, produces the expected tensor. 0, or -1
 * with err (an invalid lesson); *solved false when the solution misses. */
int runner_check_exercise(struct runner *r, const struct step *st, int k, bool *solved, char *detail,
			  size_t size, struct qkv_error *err);

#endif
