/* magic.h: IPython's timing magics (%time, %%time, %timeit) for the
 * evaluator's N_MAGIC nodes. magic_run times the statements through the
 * evaluator's own statement executor and prints, through the interpreter's
 * output, exactly the lines IPython 8 prints. */
#ifndef QKV_LANG_MAGIC_H
#define QKV_LANG_MAGIC_H

#include "core/error.h"
#include "lang/ast.h"

#include <stddef.h>
#include <stdint.h>

struct interp;

/* Runs one statement; 0, or -1 with err (the evaluator's executor). */
typedef int (*magic_exec_fn)(struct interp *I, const struct node *stmt, struct qkv_error *err);

#define MAGIC_TIMEIT_REPEAT 7      /* %timeit's runs without -r (IPython's default) */
#define MAGIC_TIMEIT_BUDGET 4.0    /* seconds: %timeit makes fewer runs rather than
                                      take longer than this (IPython has no limit) */

/* Runs the N_MAGIC node n: its statement (%time STMT, %timeit STMT) or the
 * statements of its block (%%time), each through exec, and emits what IPython
 * prints:
 *   %time, %%time: "CPU times: user 1.2 ms, sys: 0 ns, total: 1.2 ms" and
 *     "Wall time: 1.5 ms" after the statements' own output; when the last
 *     statement is a bare expression its shown value comes after them, as
 *     IPython's Out[] does.
 *   %timeit: "1.23 ms ± 4.5 µs per loop (mean ± std. dev. of 7 runs, 1,000
 *     loops each)", with IPython's automatic loop count (the first of 1, 10,
 *     100, ... loops that takes 0.2 s) unless -n gave one, and -r runs (7),
 *     fewer when they would take the whole past MAGIC_TIMEIT_BUDGET; before
 *     it IPython's "The slowest run took ..." warning when it applies.
 * A failing statement stops the magic: -1 with err and no timing lines. */
int magic_run(struct interp *I, const struct node *n, magic_exec_fn exec, struct qkv_error *err);

/* The clocks magic_run reads, for tests: wall in seconds (monotonic), cpu
 * the process's user and system seconds so far. */
struct magic_clock {
	double (*wall)(void *udata);
	void (*cpu)(void *udata, double *user, double *sys);
	void *udata;
};

/* magic_run with other clocks (NULL: the real ones). */
int magic_run_clocked(struct interp *I, const struct node *n, magic_exec_fn exec, const struct magic_clock *clock,
		      struct qkv_error *err);

/* IPython's _format_time: "1.23 ms", "500 ms", "0 ns", "1min 1s" (3
 * significant digits; units s, ms, µs, ns). Returns buf. */
char *magic_format_time(double seconds, char *buf, size_t size);

/* IPython's TimeitResult line for nruns (> 0) runs of loops loops each, runs[i]
 * the seconds run i took. Returns buf. */
char *magic_format_timeit(const double *runs, int nruns, int64_t loops, char *buf, size_t size);

#endif
