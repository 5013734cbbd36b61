/* test_timing.c: timing shows in process: the runner's progress hook
 * (labels, statements in order, the callback's time left out, the workspace
 * untouched, a failing entry) and Ctrl-C's interrupt flag. What a student
 * sees of them through ./qkv is tests/system/test_timing.c. */
#include "helpers.h"
#include "lang/interp.h"
#include "lesson/lesson.h"
#include "lesson/runner.h"
#include "view/timing.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the runner's progress hook -------------------------------------------------- */

static const char timed_lesson[] =
	"{\"id\": \"timed\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
	" {\"title\": \"setup\", \"text\": \"x\", \"code\": [\"torch.manual_seed(1)\", \"X = torch.ones(4, 4)\"]},\n"
	" {\"title\": \"timed\", \"text\": \"x\", \"show\": {\"timing\": [\n"
	"   {\"label\": \"first\", \"code\": [\"# a comment is no statement\", \"Y = X @ X\", \"X += 1\",\n"
	"     \"Z = torch.randn(3)\", \"W = Y + Z.sum()\", \"a = 1; b = 2\"]},\n"
	"   {\"label\": \"second\", \"code\": [\"V = X * 2\", \"V\"]}]}},\n"
	" {\"title\": \"after\", \"text\": \"x\", \"code\": [\"R = torch.randn(4)\"]}]}\n";

struct call {
	char label[32];
	int entry, nentries, statement, nstatements;
	double elapsed_ms, done0;
	bool finished;
	const struct step *step;
	const struct show *show;
};

struct recorder {
	struct call calls[64];
	int n;
	int sleep_ms;    /* each call takes this long, as a slow redraw would */
};

static void record(void *ctx, const struct runner_progress *p)
{
	struct recorder *rec = ctx;
	cr_assert_lt(rec->n, 64);
	struct call *c = &rec->calls[rec->n++];
	snprintf(c->label, sizeof c->label, "%s", p->label);
	c->entry = p->entry;
	c->nentries = p->nentries;
	c->statement = p->statement;
	c->nstatements = p->nstatements;
	c->elapsed_ms = p->elapsed_ms;
	c->done0 = p->entry > 0 ? p->done_ms[0] : -1;
	c->finished = p->finished;
	c->step = p->step;
	c->show = p->show;
	if (rec->sleep_ms) {
		struct timespec ts = { 0, rec->sleep_ms * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static struct lesson *parse(const char *text)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("timed.json", text, strlen(text), NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

Test(timing, progress_should_count_each_entrys_statements_in_order_with_its_label)
{
	struct lesson *l = parse(timed_lesson);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct recorder rec = { .n = 0 };
	runner_set_progress(r, record, &rec);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	step_result_free(&res);
	cr_assert_eq(rec.n, 0, "a step without a timing reports nothing");
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);

	/* "X += 1" gives no value, so it is counted with the next statement;
	 * "a = 1; b = 2" is two statements on one line */
	static const int first_counts[] = { 0, 1, 3, 4, 5, 6, 6 };
	static const int second_counts[] = { 0, 1, 2, 2 };
	int nf = (int)(sizeof first_counts / sizeof *first_counts);
	int ns = (int)(sizeof second_counts / sizeof *second_counts);
	cr_assert_eq(rec.n, nf + ns, "%d calls", rec.n);
	for (int i = 0; i < rec.n; i++) {
		const struct call *c = &rec.calls[i];
		bool first = i < nf;
		int k = first ? i : i - nf;
		cr_expect_str_eq(c->label, first ? "first" : "second", "call %d", i);
		cr_expect_eq(c->entry, first ? 0 : 1, "call %d", i);
		cr_expect_eq(c->nentries, 2);
		cr_expect_eq(c->nstatements, first ? 6 : 2, "call %d", i);
		cr_expect_eq(c->statement, first ? first_counts[k] : second_counts[k], "call %d: statement %d", i,
			     c->statement);
		cr_expect_eq(c->finished, k == (first ? nf : ns) - 1, "call %d", i);
		cr_expect_eq(c->step, &l->steps[1]);
		cr_expect_eq(c->show, &l->steps[1].shows[0]);
		if (k > 0)
			cr_expect_geq(c->elapsed_ms, rec.calls[i - 1].elapsed_ms, "call %d: time went back", i);
		if (!first)
			cr_expect_eq(c->done0, res.shown[0].timing_ms[0], "the second entry sees the first's time");
	}
	cr_expect_eq(rec.calls[nf - 1].elapsed_ms, res.shown[0].timing_ms[0]);
	cr_expect_eq(rec.calls[nf + ns - 1].elapsed_ms, res.shown[0].timing_ms[1]);
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}

static const char repeated_lesson[] =
	"{\"id\": \"rep\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
	" {\"title\": \"timed\", \"text\": \"x\", \"code\": \"X = torch.ones(64, 64)\", \"show\": {\"timing\": [\n"
	"   {\"label\": \"thrice\", \"repeat\": 3, \"code\": [\"Y = X @ X\", \"Y.sum()\"]},\n"
	"   {\"label\": \"once\", \"code\": \"Y = X @ X\"}]}}]}\n";

struct runs {
	int calls, runs_seen[4], nruns[2];
	double run_ms[3];   /* each run of the first entry at its last statement */
	double finished_ms;
};

static void count_runs(void *ctx, const struct runner_progress *p)
{
	struct runs *rr = ctx;
	rr->calls++;
	cr_assert(p->run >= 0 && p->run < 3);
	rr->nruns[p->entry] = p->nruns;
	if (p->entry == 0 && !p->finished) {
		rr->runs_seen[p->run]++;
		if (p->statement == p->nstatements)
			rr->run_ms[p->run] = p->elapsed_ms;
	}
	if (p->entry == 0 && p->finished)
		rr->finished_ms = p->elapsed_ms;
}

Test(timing, a_repeated_entry_should_run_each_time_and_show_its_best)
{
	struct lesson *l = parse(repeated_lesson);
	const struct show *sh = &l->steps[0].shows[0];
	cr_assert_eq(sh->timings[0].repeat, 3);
	cr_assert_eq(sh->timings[1].repeat, 1, "once by default");
	char label[TIMING_LABEL_MAX];
	timing_label_text(label, sizeof label, &sh->timings[0]);
	cr_expect_str_eq(label, "thrice (best of 3)");
	timing_label_text(label, sizeof label, &sh->timings[1]);
	cr_expect_str_eq(label, "once");

	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct runs rr = { 0 };
	runner_set_progress(r, count_runs, &rr);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	/* each run starts at statement 0 and counts its two statements */
	for (int k = 0; k < 3; k++)
		cr_expect_eq(rr.runs_seen[k], 3, "run %d reported %d times", k, rr.runs_seen[k]);
	cr_expect(rr.nruns[0] == 3 && rr.nruns[1] == 1);
	/* each run is timed from its own start */
	for (int k = 0; k < 3; k++)
		cr_expect(rr.run_ms[k] > 0 && rr.run_ms[k] < 60e3, "run %d: %g ms", k, rr.run_ms[k]);
	cr_expect_eq(rr.finished_ms, res.shown[0].timing_ms[0], "the time reported is the one shown");
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}

Test(timing, a_repeat_out_of_range_should_be_refused_at_its_place)
{
	static const char *const bad[] = { "0", "21", "2.5", "\"3\"" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[512];
		snprintf(text, sizeof text,
			 "{\"id\": \"rep\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
			 "{\"title\": \"t\", \"text\": \"x\", \"show\": {\"timing\": [\n"
			 "{\"label\": \"l\", \"repeat\": %s, \"code\": \"1\"}]}}]}", bad[i]);
		struct qkv_error err;
		struct lesson *l = lesson_parse("rep.json", text, strlen(text), NULL, NULL, &err);
		cr_expect_null(l, "repeat %s was taken", bad[i]);
		cr_expect(strncmp(err.msg, "rep.json:3:", 11) == 0 &&
			  strstr(err.msg, ": steps[0].show.timing[0].repeat: must be a whole number of runs from 1 to 20"),
			  "repeat %s: %s", bad[i], err.msg);
		lesson_free(l);
	}
}

Test(timing, the_workspace_and_the_random_stream_should_be_unchanged_after_a_timing)
{
	struct lesson *l = parse(timed_lesson);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct recorder rec = { .n = 0 };
	runner_set_progress(r, record, &rec);
	struct qkv_error err;
	for (int k = 0; k < 3; k++) {
		struct step_result res;
		cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
		step_result_free(&res);
	}
	struct interp *I = runner_interp(r);
	static const char *const gone[] = { "Y", "Z", "W", "a", "b", "V" };
	for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
		cr_expect_null(interp_get(I, gone[i]), "'%s' made by the timing is still there", gone[i]);
	/* X += 1 wrote in place; the dry run undid it */
	struct value *x = interp_get(I, "X");
	cr_assert(x && x->kind == V_TENSOR);
	for (int64_t i = 0; i < tensor_numel(x->t); i++)
		cr_expect_eq(tensor_get(x->t, i), 1.0, "X[%lld] changed", (long long)i);
	/* the timing drew random numbers; the step after it draws the same as
	 * if it had not */
	struct interp *fresh = interp_new(KERNEL_SIMD);
	const char *src = "torch.manual_seed(1)\nR = torch.randn(4)\n";
	cr_assert_eq(interp_run(fresh, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	struct value *got = interp_get(I, "R"), *want = interp_get(fresh, "R");
	cr_assert(got && want && got->kind == V_TENSOR && want->kind == V_TENSOR);
	for (int64_t i = 0; i < 4; i++)
		cr_expect_eq(tensor_get(got->t, i), tensor_get(want->t, i), "R[%lld]", (long long)i);
	interp_free(fresh);
	runner_free(r);
	lesson_free(l);
}

Test(timing, the_time_spent_in_the_progress_callback_should_not_be_counted)
{
	struct lesson *l = parse(timed_lesson);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	/* 7 calls of 100 ms during the first entry, whose own statements take
	 * microseconds: counted, the callbacks alone would make 700 ms */
	struct recorder rec = { .n = 0, .sleep_ms = 100 };
	runner_set_progress(r, record, &rec);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	step_result_free(&res);
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	cr_expect_lt(res.shown[0].timing_ms[0], 100.0, "%.1f ms", res.shown[0].timing_ms[0]);
	cr_expect_lt(res.shown[0].timing_ms[1], 100.0, "%.1f ms", res.shown[0].timing_ms[1]);
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}

Test(timing, a_failing_entry_should_be_reported_at_its_line_and_stop_the_progress)
{
	const char *text =
		"{\"id\": \"bad\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
		" {\"title\": \"timed\", \"text\": \"x\", \"code\": \"X = torch.ones(2)\", \"show\": {\"timing\": [\n"
		"   {\"label\": \"broken\", \"code\": [\"Y = X * 2\", \"Z = nope + 1\", \"W = Y\"]}]}}]}\n";
	struct lesson *l = parse(text);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct recorder rec = { .n = 0 };
	runner_set_progress(r, record, &rec);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), -1);
	cr_expect(strstr(err.msg, "steps[0].show.timing[0].code[1]: ") && strstr(err.msg, "nope"), "%s", err.msg);
	cr_expect_eq(rec.n, 2, "the start and the first statement, no end: %d calls", rec.n);
	cr_expect_null(interp_get(runner_interp(r), "Y"));
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}

/* ---- Ctrl-C: the interrupt flag ------------------------------------------------------ */

static volatile sig_atomic_t stop_flag;

/* the progress callback raises the flag as the second entry starts, as the
 * UI's SIGINT handler would while the first one runs */
static void stop_at_second(void *ctx, const struct runner_progress *p)
{
	(void)ctx;
	if (p->entry == 1)
		stop_flag = 1;
}

Test(timing, ctrl_c_during_a_timing_should_cancel_it_and_keep_the_step)
{
	struct lesson *l = parse(timed_lesson);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	stop_flag = 0;
	interp_set_interrupt(runner_interp(r), &stop_flag);
	runner_set_progress(r, stop_at_second, NULL);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	step_result_free(&res);
	cr_assert_eq(runner_step(r, &res, &err), RUNNER_INTERRUPTED, "%s", err.msg);
	cr_expect(strstr(err.msg, "interrupted (Ctrl-C)"), "%s", err.msg);
	/* the step ran; its timing keeps the first time and cancels the second */
	cr_expect_eq(runner_done(r), 2);
	cr_assert_eq(res.nshown, 1);
	cr_expect(res.shown[0].cancelled);
	cr_expect(isfinite(res.shown[0].timing_ms[0]));
	cr_expect(isnan(res.shown[0].timing_ms[1]));
	cr_expect_null(interp_get(runner_interp(r), "V"));
	/* evaluated again, it has both */
	stop_flag = 0;
	runner_set_progress(r, NULL, NULL);
	cr_assert_eq(runner_show(r, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.nshown, 1);
	cr_expect(!res.shown[0].cancelled);
	cr_expect(isfinite(res.shown[0].timing_ms[1]));
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}

/* the observer raises the flag when a statement's value is 7 */
static void stop_at_seven(void *udata, const struct value *v)
{
	(void)udata;
	if (v->kind == V_INT && v->i == 7)
		stop_flag = 1;
}

Test(timing, ctrl_c_in_a_steps_code_should_undo_the_whole_step_to_run_again)
{
	const char *text =
		"{\"id\": \"cut\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
		" {\"title\": \"setup\", \"text\": \"x\", \"code\": [\"torch.manual_seed(1)\", \"X = torch.ones(2)\"]},\n"
		" {\"title\": \"cut\", \"text\": \"x\", \"code\": [\"X += 1\", \"R = torch.randn(2)\", \"print(R)\", \"s = 7\",\n"
		"   \"T = 1\"]}]}\n";
	struct lesson *l = parse(text);
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct interp *I = runner_interp(r);
	stop_flag = 0;
	interp_set_interrupt(I, &stop_flag);
	struct qkv_error err;
	struct step_result res;
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	step_result_free(&res);
	interp_set_observer(I, stop_at_seven, NULL);
	cr_assert_eq(runner_step(r, &res, &err), RUNNER_INTERRUPTED, "%s", err.msg);
	cr_expect(strstr(err.msg, "steps[1].code[3]: interrupted (Ctrl-C)"), "%s", err.msg);
	/* nothing of the step is left: not X += 1, not R, not its output */
	cr_expect_eq(runner_done(r), 1);
	cr_expect_null(res.output);
	cr_expect_eq(res.nshown, 0);
	cr_expect_null(interp_get(I, "R"));
	cr_expect_null(interp_get(I, "s"));
	struct value *x = interp_get(I, "X");
	cr_assert(x && x->kind == V_TENSOR);
	cr_expect_eq(tensor_get(x->t, 0), 1.0);
	step_result_free(&res);
	/* run again, it gives what it would have given the first time */
	stop_flag = 0;
	interp_set_observer(I, NULL, NULL);
	cr_assert_eq(runner_step(r, &res, &err), 0, "%s", err.msg);
	cr_expect_eq(runner_done(r), 2);
	cr_expect_eq(tensor_get(interp_get(I, "X")->t, 0), 2.0);
	struct interp *fresh = interp_new(KERNEL_SIMD);
	const char *src = "torch.manual_seed(1)\nR = torch.randn(2)\n";
	cr_assert_eq(interp_run(fresh, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	for (int64_t i = 0; i < 2; i++)
		cr_expect_eq(tensor_get(interp_get(I, "R")->t, i), tensor_get(interp_get(fresh, "R")->t, i));
	cr_expect(res.output && strstr(res.output, "tensor(["), "%s", res.output);
	interp_free(fresh);
	step_result_free(&res);
	runner_free(r);
	lesson_free(l);
}
