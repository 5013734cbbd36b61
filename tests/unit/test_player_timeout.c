/* test_player_timeout.c: the per-step time limit of `qkv check` and `qkv
 * run`, in-process: the lesson's "timeout" field (default 30 s), the
 * watchdog that raises the interpreter's interrupt flag, and the player
 * failing a step that runs past its time with "FILE: step N: ran past S s"
 * while a step that ends in time runs as it would without a limit. */
#include "fixture.h"
#include "lang/interp.h"
#include "lesson/player.h"
#include "lesson/watchdog.h"

#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

static const char quick[] =
	"{ \"format\": 1, \"id\": \"quick\", \"title\": \"Quick\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"timeout\": 3600, \"steps\": [\n"
	"    { \"title\": \"one\", \"text\": [\"t\"], \"code\": [\"X = [1 2; 3 4]\"],\n"
	"      \"expect\": [ { \"tensor\": \"X\", \"values\": [[1, 2], [3, 4]] } ] },\n"
	"    { \"title\": \"two\", \"text\": [\"t\"], \"code\": [\"Y = X @ X\"] }\n"
	"  ] }\n";

static const char untimed[] =
	"{ \"format\": 1, \"id\": \"untimed\", \"title\": \"U\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"steps\": [ { \"title\": \"one\", \"text\": [\"t\"], \"code\": [\"X = 1\"] } ] }\n";

static struct lesson *parse(const char *text)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("test.json", text, strlen(text), NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

Test(player_timeout, a_lesson_without_a_timeout_should_get_thirty_seconds)
{
	struct lesson *l = parse(untimed);
	cr_expect_eq(l->timeout, 30);
	lesson_free(l);
	l = parse(quick);
	cr_expect_eq(l->timeout, 3600);
	lesson_free(l);
}

Test(player_timeout, a_step_past_its_timeout_should_fail_naming_the_step_and_the_limit)
{
	struct lesson *l = fixture_load("tests/lessons/timeout/long-step.json");
	cr_assert_eq(l->timeout, 1);
	struct player *p = player_new(l, KERNEL_LOOPS);
	player_set_timeout(p, l->timeout);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 2, &at, &err), -1);
	cr_expect_str_eq(err.msg, "tests/lessons/timeout/long-step.json: step 2: ran past 1 s");
	cr_expect_eq(player_state(p, 0), STEP_RAN);
	cr_expect_eq(player_state(p, 1), STEP_FAILED);
	cr_expect_eq(player_state(p, 2), STEP_BLOCKED);
	cr_expect_eq(player_failed_step(p), 1);
	/* the stopped statement changed nothing: its list was never assigned */
	cr_expect_null(interp_get(player_workspace(p, 1), "sums"));
	cr_expect_not_null(interp_get(player_workspace(p, 1), "X"));
	player_free(p);
	lesson_free(l);
}

/* One statement, one matmul: a 4096 x 4096 product on the loops kernel takes
 * minutes, so only a kernel that stops at the watchdog's flag between rows
 * ends it within the test's timeout. */
static const char one_long_matmul[] =
	"{ \"format\": 1, \"id\": \"long-matmul\", \"title\": \"L\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"timeout\": 1, \"steps\": [\n"
	"    { \"title\": \"one\", \"text\": [\"t\"], \"code\": [\"X = torch.ones(4096, 4096)\", \"Y = X @ X\"] }\n"
	"  ] }\n";

Test(player_timeout, a_single_long_matmul_should_stop_at_the_time_limit, .timeout = 60)
{
	struct lesson *l = parse(one_long_matmul);
	struct player *p = player_new(l, KERNEL_LOOPS);
	player_set_timeout(p, l->timeout);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 0, &at, &err), -1);
	cr_expect_str_eq(err.msg, "test.json: step 1: ran past 1 s");
	cr_expect_eq(player_state(p, 0), STEP_FAILED);
	player_free(p);
	lesson_free(l);
}

Test(player_timeout, a_step_that_ends_in_time_should_run_and_check_as_without_a_limit)
{
	struct lesson *l = parse(quick);
	struct player *p = player_new(l, KERNEL_SIMD);
	player_set_timeout(p, l->timeout);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 1, &at, &err), 0, "%s", err.msg);
	cr_expect_eq(player_state(p, 0), STEP_RAN);
	cr_expect_eq(player_state(p, 1), STEP_RAN);
	struct expect_result er;
	cr_assert_eq(player_expect(p, 0, 0, &er, &err), 0, "%s", err.msg);
	cr_expect(er.pass, "%s", er.detail);
	cr_expect_eq(tensor_get(interp_get(player_workspace(p, 1), "Y")->t, 0), 7.0);
	player_free(p);
	lesson_free(l);
}

Test(player_timeout, a_watchdog_should_raise_its_flag_once_its_time_runs_out)
{
	struct watchdog w;
	watchdog_init(&w, 1);
	const volatile sig_atomic_t *flag = watchdog_flag(&w);
	cr_assert_eq(watchdog_arm(&w), 0);
	/* waits for the condition (bounded far beyond the second it needs) */
	time_t give_up = time(NULL) + 120;
	while (!*flag && time(NULL) < give_up)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	cr_expect(watchdog_fired(&w));
	cr_expect_eq(*flag, 1);
	/* disarming says so and lowers the flag for what runs next */
	cr_expect(watchdog_disarm(&w));
	cr_expect_eq(*flag, 0);
	watchdog_destroy(&w);
}

Test(player_timeout, a_watchdog_disarmed_in_time_should_keep_its_flag_down)
{
	struct watchdog w;
	watchdog_init(&w, 3600);
	cr_assert_eq(watchdog_arm(&w), 0);
	cr_expect(!watchdog_disarm(&w));
	cr_expect(!watchdog_fired(&w));
	cr_expect_eq(*watchdog_flag(&w), 0);
	watchdog_destroy(&w);
}
