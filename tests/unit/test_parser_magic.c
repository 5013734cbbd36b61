/* test_parser_magic.c: unit tests for IPython's timing magics (src/lang/magic.c)
 * and their parsing: the time formats against IPython's own _format_time and
 * TimeitResult (tests/ref/parser_refs.inc, made by parser_refs.py), and
 * magic_run driven by a fake statement executor on a fake clock, so every
 * number it prints is known exactly. */
#include <criterion/criterion.h>

#include "core/mem.h"
#include "core/strbuf.h"
#include "lang/interp.h"
#include "lang/magic.h"
#include "lang/parser.h"
#include "lang/runtime.h"

#include <string.h>

struct time_ref {
	double t;
	const char *text;
};

struct timeit_ref {
	int64_t loops;
	int nruns;
	double runs[7];
	const char *text;
};

#define PARSER_REFS_MAGIC
#include "../ref/parser_refs.inc"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

Test(magic, durations_should_be_formatted_as_ipython_formats_them)
{
	char buf[64];
	for (size_t i = 0; i < COUNT(parser_refs_times); i++)
		cr_expect_str_eq(magic_format_time(parser_refs_times[i].t, buf, sizeof buf), parser_refs_times[i].text,
				 "%a seconds", parser_refs_times[i].t);
}

Test(magic, timeit_summaries_should_match_ipython_line_for_line)
{
	char buf[256];
	for (size_t i = 0; i < COUNT(parser_refs_timeit); i++) {
		const struct timeit_ref *r = &parser_refs_timeit[i];
		cr_expect_str_eq(magic_format_timeit(r->runs, r->nruns, r->loops, buf, sizeof buf), r->text,
				 "case %zu", i);
	}
}

/* ---- magic_run with a fake executor and clock ----------------------------------------------- */

struct fake {
	double now, user, sys;     /* the fake clocks, in seconds */
	const double *costs;       /* seconds each call takes, cycling */
	int ncosts;
	int calls;
	int fail_at;               /* the call that fails (1-based), 0: none */
};

static struct fake fake;
static struct strbuf out;

static double fake_wall(void *udata)
{
	return ((struct fake *)udata)->now;
}

static void fake_cpu(void *udata, double *user, double *sys)
{
	*user = ((struct fake *)udata)->user;
	*sys = ((struct fake *)udata)->sys;
}

static const struct magic_clock fake_clock = {fake_wall, fake_cpu, &fake};

/* Spends the next cost on the fake clocks (3/4 user, 1/4 system) and shows
 * what a statement would: print(...) a line, a bare number its value. */
static int fake_exec(struct interp *I, const struct node *stmt, struct qkv_error *err)
{
	double cost = fake.costs[fake.calls % fake.ncosts];
	fake.calls++;
	fake.now += cost;
	fake.user += cost * 0.75;
	fake.sys += cost * 0.25;
	if (fake.calls == fake.fail_at)
		return error_set(err, stmt->line, stmt->col, "boom");
	if (stmt->kind == N_EXPR && stmt->kids[0]->kind == N_CALL) {
		I->emit(I->udata, NULL, "printed");
	} else if (stmt->kind == N_EXPR && stmt->kids[0]->kind == N_NUM) {
		struct value *v = value_int(stmt->kids[0]->ival);
		I->emit(I->udata, v, "42");
		value_unref(v);
	}
	return 0;
}

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)udata;
	strbuf_printf(&out, "%s%s\n", v ? "=" : "", text);
}

/* Parses src's first statement (an N_MAGIC) and runs it with each call
 * costing costs[i % n]; returns magic_run's result, output in out. */
static int run_magic(const char *src, const double *costs, int n, int fail_at, struct qkv_error *err)
{
	struct parser *p = parser_new(src, strlen(src), 1);
	struct interp *I = interp_new(KERNEL_SIMD);
	struct node *stmt = NULL;
	int rc;
	memset(&fake, 0, sizeof fake);
	fake.now = 1000.0;
	fake.costs = costs;
	fake.ncosts = n;
	fake.fail_at = fail_at;
	strbuf_reset(&out);
	strbuf_puts(&out, "");
	interp_set_output(I, capture, NULL);
	cr_assert_eq(parser_next(p, &stmt, err), PARSE_OK, "%s: %s", src, err->msg);
	cr_assert_eq(stmt->kind, N_MAGIC);
	rc = magic_run_clocked(I, stmt, fake_exec, &fake_clock, err);
	node_free(stmt);
	parser_free(p);
	interp_free(I);
	return rc;
}

static void setup(void)
{
	strbuf_init(&out);
}

static void teardown(void)
{
	strbuf_free(&out);
}

TestSuite(magic, .init = setup, .fini = teardown);

static const double ms2 = 1.0 / 512;   /* 1.953125 ms: every sum of it is exact */

Test(magic, time_should_print_cpu_and_wall_times_after_the_statement)
{
	struct qkv_error err;
	cr_assert_eq(run_magic("%time x = 1", &ms2, 1, 0, &err), 0);
	cr_expect_str_eq(out.s, "CPU times: user 1.46 ms, sys: 488 \xc2\xb5s, total: 1.95 ms\n"
		         "Wall time: 1.95 ms\n");
	cr_expect_eq(fake.calls, 1);
}

Test(magic, a_timed_cell_should_show_its_last_value_after_the_times)
{
	struct qkv_error err;
	cr_assert_eq(run_magic("%%time\nx = 1\nprint(x)\n7\n", &ms2, 1, 0, &err), 0);
	cr_expect_eq(fake.calls, 3);
	cr_expect_str_eq(out.s, "printed\nCPU times: user 4.39 ms, sys: 1.46 ms, total: 5.86 ms\n"
		         "Wall time: 5.86 ms\n=42\n");
	cr_assert_eq(run_magic("%time print(1)", &ms2, 1, 0, &err), 0);
	cr_expect_str_eq(out.s, "printed\nCPU times: user 1.46 ms, sys: 488 \xc2\xb5s, total: 1.95 ms\n"
		         "Wall time: 1.95 ms\n");
}

Test(magic, a_failing_statement_should_stop_the_magic_without_times)
{
	struct qkv_error err;
	cr_expect_eq(run_magic("%%time\nx = 1\ny = 2\nz = 3\n", &ms2, 1, 2, &err), -1);
	cr_expect_str_eq(err.msg, "boom");
	cr_expect_eq(err.line, 3);
	cr_expect_eq(fake.calls, 2);
	cr_expect_str_eq(out.s, "");
	cr_expect_eq(run_magic("%timeit x", &ms2, 1, 5, &err), -1);
	cr_expect_eq(fake.calls, 5);
	cr_expect_str_eq(out.s, "");
}

Test(magic, timeit_should_run_n_loops_r_times_when_told)
{
	struct qkv_error err;
	cr_assert_eq(run_magic("%timeit -n 3 -r2 x = 1", &ms2, 1, 0, &err), 0);
	cr_expect_eq(fake.calls, 6);
	cr_expect_str_eq(out.s, "1.95 ms \xc2\xb1 0 ns per loop (mean \xc2\xb1 std. dev. of 2 runs, 3 loops each)\n");
}

Test(magic, timeit_should_choose_the_loop_count_as_ipython_does)
{
	static const double us30 = 1.0 / 32768;   /* 30.5 µs: 10,000 loops take 0.305 s >= 0.2 s */
	struct qkv_error err;
	cr_assert_eq(run_magic("%timeit x = 1", &us30, 1, 0, &err), 0);
	cr_expect_eq(fake.calls, 1 + 10 + 100 + 1000 + 10000 + 7 * 10000);
	cr_expect_str_eq(out.s, "30.5 \xc2\xb5s \xc2\xb1 0 ns per loop (mean \xc2\xb1 std. dev. of 7 runs, 10,000 "
			 "loops each)\n");
}

Test(magic, timeit_should_make_fewer_runs_than_take_more_than_its_budget)
{
	static const double slow = 1.5, slower = 5.0;
	struct qkv_error err;
	cr_assert_eq(run_magic("%timeit x = 1", &slow, 1, 0, &err), 0);
	cr_expect_eq(fake.calls, 2, "the calibration and one run fit in 4 s");
	cr_expect_str_eq(out.s, "1.5 s \xc2\xb1 0 ns per loop (mean \xc2\xb1 std. dev. of 1 run, 1 loop each)\n");
	cr_assert_eq(run_magic("%timeit x = 1", &slower, 1, 0, &err), 0);
	cr_expect_eq(fake.calls, 1, "the calibration run stands for the only run");
	cr_expect_str_eq(out.s, "5 s \xc2\xb1 0 ns per loop (mean \xc2\xb1 std. dev. of 1 run, 1 loop each)\n");
}

Test(magic, timeit_should_warn_when_the_slowest_run_is_four_times_the_fastest)
{
	static const double costs[] = {1.0 / 1024, 5.0 / 1024, 1.0 / 1024};
	struct qkv_error err;
	cr_assert_eq(run_magic("%timeit -n 1 -r 3 x", costs, 3, 0, &err), 0);
	cr_expect_str_eq(out.s, "The slowest run took 5.00 times longer than the fastest. This could mean that an "
			 "intermediate result is being cached.\n"
			 "2.28 ms \xc2\xb1 1.84 ms per loop (mean \xc2\xb1 std. dev. of 3 runs, 1 loop each)\n");
}
