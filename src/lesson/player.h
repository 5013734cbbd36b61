/* player.h: the one driver of a lesson, for every front end (the full
 * screen, `qkv run`, `qkv check`). It runs steps forward once through a
 * runner and keeps each step's result and a snapshot of the workspace it
 * left, so that going back, showing a view again, checking an exercise or
 * opening the prompt on any step never replays the lesson. Progress of a
 * running timing is reported through a callback the caller passes in; the
 * player never draws and never calls up into a front end. */
#ifndef QKV_LESSON_PLAYER_H
#define QKV_LESSON_PLAYER_H

#include "lesson/runner.h"

#include <signal.h>

/* Where a step is. */
enum step_state {
	STEP_NOT_RUN,      /* not reached yet, or Ctrl-C stopped its code (it runs again when gone to) */
	STEP_RAN,          /* its code ran; a show may have been cancelled (player_shows_cancelled) */
	STEP_FAILED,       /* its code or a show failed: player_failure says why */
	STEP_BLOCKED,      /* after a failed step: never runs */
};

#define PLAYER_INTERRUPTED RUNNER_INTERRUPTED

struct player;

/* A player at the start of lesson l (borrowed: it must outlive the player). */
struct player *player_new(const struct lesson *l, enum kernel_variant variant);
void player_free(struct player *p);
const struct lesson *player_lesson(const struct player *p);

/* The flag Ctrl-C raises (see interp_set_interrupt); NULL never stops. */
void player_set_interrupt(struct player *p, const volatile sig_atomic_t *flag);
/* Stops a step that runs past the given seconds (0: no limit, the default),
 * for front ends without Ctrl-C (`qkv check`, `qkv run`): a watchdog thread
 * raises the player's own interrupt flag, which replaces the one
 * player_set_interrupt gave. The step's code or show (or an expect or
 * exercise check of it) then fails with err "FILE: step N: ran past S s":
 * player_go returns -1 and the step is STEP_FAILED. Call before any step runs. */
void player_set_timeout(struct player *p, int seconds);
/* At most n elements in one tensor, before any step runs. */
void player_set_max_elems(struct player *p, int64_t n);
/* The limit of one tensor in every workspace made from now on, lessons'
 * players and prompts' sessions alike (QKV_MAX_ELEMS, read once by cli/
 * before anything runs): n > 0, at most TENSOR_MAX_NUMEL. */
void player_set_default_max_elems(int64_t n);
/* Told while a timing show runs (see runner_set_progress); NULL stops it. */
void player_set_progress(struct player *p, runner_progress_fn fn, void *ctx);

/* Runs the steps up to k (0-based, clamped to the lesson) that have not run
 * yet, stopping at a failure. *at gets the step to look at: k, or the step
 * Ctrl-C stopped. Returns 0 when step k is reached (it may be STEP_FAILED
 * or STEP_BLOCKED: see player_state), -1 when a step failed in this call
 * (err says where, "FILE:LINE:COL: PATH: message"), PLAYER_INTERRUPTED when
 * Ctrl-C stopped a step (err says which): stopped in its code the step has
 * not run (STEP_NOT_RUN, its workspace as before it); stopped in a show it
 * ran and that show is cancelled. */
int player_go(struct player *p, int k, int *at, struct qkv_error *err);

/* Steps run (or failed) so far: the states of steps 0 .. player_ran - 1 are
 * STEP_RAN or STEP_FAILED. */
int player_ran(const struct player *p);
enum step_state player_state(const struct player *p, int k);
/* The result of step k (its output, pieces, shows), or NULL when it has not
 * run. A failed step has the output of the statements before the failure. */
const struct step_result *player_result(const struct player *p, int k);
/* The step running (or whose views are computed again) now, or -1. While
 * one thread runs the player, another may read player_running, player_ran,
 * and the state and result of any step below player_ran that is not the
 * running one; nothing else, and it must run nothing. */
int player_running(const struct player *p);
/* The failed step (-1 when none) and why it failed. */
int player_failed_step(const struct player *p);
const char *player_failure(const struct player *p);
/* Whether step k ran but Ctrl-C stopped one of its shows. */
bool player_shows_cancelled(const struct player *p, int k);

/* Computes the shows of step k (which ran) again in its snapshot: after a
 * show was cancelled. 0, -1 or PLAYER_INTERRUPTED (the show cancelled
 * again) with err. */
int player_show_again(struct player *p, int k, struct qkv_error *err);

/* Verifies expect e of step k (which ran) in its workspace. */
int player_expect(struct player *p, int k, int e, struct expect_result *out, struct qkv_error *err);
/* qkv check of exercise e of step k (which ran): see runner_check_exercise. */
int player_check_exercise(struct player *p, int k, int e, bool *solved, char *detail, size_t size,
			  struct qkv_error *err);

/* The workspace as step k (which ran) left it: borrowed, valid until the
 * player runs another step or is freed, and not to be changed (clone it to
 * work in it: the prompt does). NULL when step k has not run. */
struct interp *player_workspace(struct player *p, int k);

#endif
