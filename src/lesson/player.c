/* player.c: the one driver of a lesson (see player.h), used by the full
 * screen, `qkv run` and `qkv check`. Runs steps forward once in a live
 * runner; before each step it keeps a snapshot (a deep copy) of the
 * workspace the previous one left, so any step's workspace is at hand
 * without replaying. Never prints, never draws. */
#include "lesson/player.h"
#include "core/mem.h"
#include "core/ops.h"
#include "lesson/watchdog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct player {
	const struct lesson *l;
	struct runner *live;          /* its workspace: as step ran - 1 left it */
	struct interp **snap;         /* snap[k]: as step k left it, for k < ran - 1 (else NULL) */
	struct step_result *res;      /* res[k] for k < ran */
	enum step_state *state;
	/* ran and running may be read by another thread while one runs a step
	 * (a front end drawing): a step's state and result are complete before
	 * ran counts it, and it is not read while it is the one running */
	_Atomic int ran;
	int failed;                   /* the failed step, or -1 */
	_Atomic int running;          /* the step running or shown again now, or -1 */
	char failure[sizeof ((struct qkv_error *)0)->msg];
	const volatile sig_atomic_t *interrupt;
	runner_progress_fn progress;
	void *progress_ctx;
	struct watchdog *watch;       /* player_set_timeout's, or NULL */
};

struct player *player_new(const struct lesson *l, enum kernel_variant variant)
{
	struct player *p = xcalloc(1, sizeof *p);
	size_t n = (size_t)l->nsteps + 1;
	p->l = l;
	p->live = runner_new(l, variant);
	p->snap = xcalloc(n, sizeof *p->snap);
	p->res = xcalloc(n, sizeof *p->res);
	p->state = xcalloc(n, sizeof *p->state);
	p->failed = -1;
	p->running = -1;
	return p;
}

void player_free(struct player *p)
{
	if (!p)
		return;
	for (int k = 0; k < p->l->nsteps; k++) {
		interp_free(p->snap[k]);
		step_result_free(&p->res[k]);
	}
	runner_free(p->live);
	if (p->watch)
		watchdog_destroy(p->watch);
	free(p->watch);
	free(p->snap);
	free(p->res);
	free(p->state);
	free(p);
}

const struct lesson *player_lesson(const struct player *p)
{
	return p->l;
}

void player_set_interrupt(struct player *p, const volatile sig_atomic_t *flag)
{
	p->interrupt = flag;
	interp_set_interrupt(runner_interp(p->live), flag);
}

void player_set_timeout(struct player *p, int seconds)
{
	if (p->watch) {
		watchdog_destroy(p->watch);
		free(p->watch);
		p->watch = NULL;
	}
	if (seconds <= 0)
		return;
	p->watch = xcalloc(1, sizeof *p->watch);
	watchdog_init(p->watch, seconds);
	player_set_interrupt(p, watchdog_flag(p->watch));
}

/* Starts the time limit of a piece of step k's work (when there is one):
 * the watchdog's flag is the interpreter's interrupt flag, which stops it
 * between operations and the kernels between their blocks (lang/exec.c), so
 * one long matmul cannot outrun it either. */
static void limit_start(struct player *p)
{
	if (p->watch)
		watchdog_arm(p->watch);
}

/* Ends it: a piece that failed after the time ran out (stopped by the
 * watchdog's flag) fails as "FILE: step N: ran past S s" instead. */
static int limit_end(struct player *p, int k, int rc, struct qkv_error *err)
{
	if (!p->watch)
		return rc;
	if (!watchdog_disarm(p->watch) || rc == 0)
		return rc;
	error_set(err, 0, 0, "%s: step %d: ran past %d s", p->l->name, k + 1, p->watch->seconds);
	return -1;
}

void player_set_max_elems(struct player *p, int64_t n)
{
	interp_ops(runner_interp(p->live))->max_elems = n;
}

void player_set_default_max_elems(int64_t n)
{
	ops_set_max_elems(n);
}

void player_set_progress(struct player *p, runner_progress_fn fn, void *ctx)
{
	p->progress = fn;
	p->progress_ctx = ctx;
	runner_set_progress(p->live, fn, ctx);
}

/* A copy of t that later in-place statements cannot change, keeping how it
 * was computed (for the inspector). */
static struct tensor *keep(struct tensor *t)
{
	if (!t)
		return NULL;
	struct tensor *c = ops_clone(t);
	c->from = t->from;
	if (c->from)
		c->from->refs++;
	tensor_unref(t);
	return c;
}

static void keep_shown(struct step_result *res)
{
	for (int i = 0; i < res->nshown; i++) {
		res->shown[i].t = keep(res->shown[i].t);
		res->shown[i].loops = keep(res->shown[i].loops);
		res->shown[i].unrolled = keep(res->shown[i].unrolled);
	}
}

/* Runs step p->ran. 0, -1 (failed: recorded) or PLAYER_INTERRUPTED. */
static int run_next(struct player *p, struct qkv_error *err)
{
	int k = p->ran;
	/* the workspace of step k - 1 is kept before step k changes it */
	if (k > 0 && !p->snap[k - 1])
		p->snap[k - 1] = interp_clone(runner_interp(p->live));
	struct step_result *res = &p->res[k];
	p->running = k;
	limit_start(p);
	int rc = limit_end(p, k, runner_step(p->live, res, err), err);
	if (rc == PLAYER_INTERRUPTED && res->nshown == 0) {
		step_result_free(res);	/* stopped in its code: it has not run */
		p->running = -1;
		return rc;
	}
	keep_shown(res);
	p->state[k] = STEP_RAN;
	if (rc == -1) {
		p->state[k] = STEP_FAILED;
		p->failed = k;
		snprintf(p->failure, sizeof p->failure, "%s", err->msg);
		for (int j = k + 1; j < p->l->nsteps; j++)
			p->state[j] = STEP_BLOCKED;
	}
	p->ran++;	/* the step is complete: it may be read now */
	p->running = -1;
	return rc;
}

int player_go(struct player *p, int k, int *at, struct qkv_error *err)
{
	if (k >= p->l->nsteps)
		k = p->l->nsteps - 1;
	if (k < 0)
		k = 0;
	*at = k;
	error_clear(err);
	while (p->ran <= k && p->failed < 0) {
		int next = p->ran;
		int rc = run_next(p, err);
		if (rc == PLAYER_INTERRUPTED) {
			*at = next;	/* not run (stopped in its code) or ran (in a show) */
			return rc;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

int player_ran(const struct player *p)
{
	return p->ran;
}

enum step_state player_state(const struct player *p, int k)
{
	return k >= 0 && k < p->l->nsteps ? p->state[k] : STEP_NOT_RUN;
}

const struct step_result *player_result(const struct player *p, int k)
{
	return k >= 0 && k < p->ran ? &p->res[k] : NULL;
}

int player_running(const struct player *p)
{
	return p->running;
}

int player_failed_step(const struct player *p)
{
	return p->failed;
}

const char *player_failure(const struct player *p)
{
	return p->failed >= 0 ? p->failure : "";
}

bool player_shows_cancelled(const struct player *p, int k)
{
	const struct step_result *r = player_result(p, k);
	for (int i = 0; r && i < r->nshown; i++)
		if (r->shown[i].cancelled)
			return true;
	return false;
}

struct interp *player_workspace(struct player *p, int k)
{
	if (k < 0 || k >= p->ran)
		return NULL;
	return k == p->ran - 1 ? runner_interp(p->live) : p->snap[k];
}

/* A runner over step k's workspace (which ran): the live one for the last
 * step, else one borrowing its snapshot. *tmp is what to free after. */
static struct runner *runner_at(struct player *p, int k, struct runner **tmp)
{
	*tmp = NULL;
	if (k == p->ran - 1)
		return p->live;
	struct interp *I = p->snap[k];
	interp_set_interrupt(I, p->interrupt);
	*tmp = runner_on(p->l, I, k + 1);
	runner_set_progress(*tmp, p->progress, p->progress_ctx);
	return *tmp;
}

static int not_run(const struct player *p, int k, struct qkv_error *err)
{
	return error_set(err, 0, 0, "%s: step %d has not run", p->l->name, k + 1);
}

int player_show_again(struct player *p, int k, struct qkv_error *err)
{
	if (player_state(p, k) != STEP_RAN)
		return not_run(p, k, err);
	struct runner *tmp, *r = runner_at(p, k, &tmp);
	p->running = k;
	limit_start(p);
	int rc = limit_end(p, k, runner_show(r, &p->res[k], err), err);
	keep_shown(&p->res[k]);
	p->running = -1;
	runner_free(tmp);
	return rc;
}

int player_expect(struct player *p, int k, int e, struct expect_result *out, struct qkv_error *err)
{
	if (k < 0 || k >= p->ran)
		return not_run(p, k, err);
	struct runner *tmp, *r = runner_at(p, k, &tmp);
	limit_start(p);
	int rc = limit_end(p, k, runner_expect(r, &p->l->steps[k], &p->res[k], e, out, err), err);
	runner_free(tmp);
	return rc;
}

int player_check_exercise(struct player *p, int k, int e, bool *solved, char *detail, size_t size,
			  struct qkv_error *err)
{
	if (k < 0 || k >= p->ran)
		return not_run(p, k, err);
	struct runner *tmp, *r = runner_at(p, k, &tmp);
	limit_start(p);
	int rc = limit_end(p, k, runner_check_exercise(r, &p->l->steps[k], e, solved, detail, size, err), err);
	runner_free(tmp);
	return rc;
}
