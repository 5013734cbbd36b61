/* test_timing.c: timing shows as a student meets them through ./qkv: the
 * full-screen progress line, then both times and their ratio (tmux); `qkv
 * run`'s progress line on a terminal, none on a pipe; lesson 04's loops
 * against unrolled and SIMD. Asserts words and formats, never how long
 * anything took. */
#include "system.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- in a terminal ---------------------------------------------------------------- */

static const char *session;
static char lesson_path[128];
static char state[64];      /* XDG_STATE_HOME of the test, its own */

/* A lesson whose timing runs long enough to watch on any machine: 10
 * products of 512×512 matrices on the loop kernel (the test runs
 * --kernel=loops, whose speed does not change when SIMD gets faster), against
 * 2 of them. */
static const char slow_lesson[] =
	"{\"id\": \"slow-timing\", \"title\": \"A slow timing\", \"source\": \"a test\", \"summary\": \"s\",\n"
	" \"steps\": [{\"title\": \"Two ways\", \"text\": \"Time them.\",\n"
	"  \"code\": [\"torch.manual_seed(0)\", \"A = torch.randn(512, 512)\"],\n"
	"  \"show\": {\"timing\": [\n"
	"   {\"label\": \"ten products\", \"code\": [\"P1 = A @ A\", \"P2 = A @ A\", \"P3 = A @ A\", \"P4 = A @ A\",\n"
	"     \"P5 = A @ A\", \"P6 = A @ A\", \"P7 = A @ A\", \"P8 = A @ A\", \"P9 = A @ A\", \"P10 = A @ A\"]},\n"
	"   {\"label\": \"two products\", \"code\": [\"P1 = A @ A\", \"P2 = A @ A\"]}]}}]}\n";

static void write_slow_lesson(void)
{
	snprintf(lesson_path, sizeof lesson_path, "/tmp/qkv-slow-timing-%d.json", (int)getpid());
	FILE *f = fopen(lesson_path, "w");
	cr_assert(f);
	fputs(slow_lesson, f);
	fclose(f);
}

/* qkv ARGS (the rest of a shell line) in a w x h pane, with a state
 * directory of its own. */
static void start(int w, int h, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-timing-state");
	session = tmux_start_qkv(w, h, state, NULL, args, "sleep 30");
}

static void stop(void)
{
	tmux_private_server_end();
	dir_remove(state);
	if (lesson_path[0])
		unlink(lesson_path);
}

/* Waits (up to system_wait_ms(): the sanitizer build is slow) until the
 * screen shows every one of want (NULL-terminated) while the timing runs:
 * the screen keeps changing, so only what was waited for is asserted. */
static char *wait_running(const char *const *want)
{
	return tmux_wait_moving(session, want);
}

/* The same once it is done: the screen shows all of want and holds still
 * (drawn whole). */
static char *wait_done(const char *const *want)
{
	return tmux_wait_for_all(session, want);
}

/* The number after `key` on the screen, or -1. */
static double number_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	double v;
	return p && sscanf(p + strlen(key), "%lf", &v) == 1 ? v : -1;
}

Test(timing, the_full_screen_should_show_progress_then_both_times_and_their_ratio, .fini = stop, .timeout = 120)
{
	write_slow_lesson();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "--kernel=loops %s", lesson_path);
	start(100, 30, cmd);
	/* while it runs: the header of the step, the progress line, the bar,
	 * and the second entry waiting (drawn last) */
	const char *running[] = { "step 1/1", "Running 'ten products': statement ", " of 10, ", "\u2591", "two products",
				  "waiting", NULL };
	char *s = wait_running(running);
	for (int k = 0; running[k]; k++)
		cr_assert(strstr(s, running[k]), "no '%s' while the timing runs:\n%s", running[k], s);
	free(s);
	/* once done: both times, and the second's ratio to the first (the last
	 * thing the timing view draws is the second entry's bar) */
	const char *done[] = { "ten products", "two products", "\u00d7 the first)", NULL };
	s = wait_done(done);
	cr_assert(strstr(s, "\u00d7 the first)"), "no ratio once done:\n%s", s);
	cr_assert_null(strstr(s, "Running '"), "the progress line stayed:\n%s", s);
	cr_assert_null(strstr(s, "waiting"), "%s", s);
	cr_assert_gt(number_after(s, "ten products"), 0, "no time for the first:\n%s", s);
	const char *second = strstr(s, "two products");
	cr_assert(second && strstr(second, " ms  ("), "no time and ratio for the second:\n%s", s);
	cr_assert_gt(number_after(second, "two products"), 0, "%s", s);
	cr_assert_gt(number_after(second, " ms  ("), 0, "%s", s);
	free(s);
}

Test(timing, run_plain_should_show_progress_on_a_terminal_and_clear_it, .fini = stop, .timeout = 120)
{
	write_slow_lesson();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "--kernel=loops run --plain %s > /dev/null; echo RUN-DONE", lesson_path);
	start(100, 10, cmd);
	const char *running[] = { "Running 'ten products': statement ", " of 10, ", NULL };
	char *s = wait_running(running);
	cr_assert(strstr(s, "Running 'ten products': statement ") && strstr(s, " of 10, "), "no progress on stderr:\n%s",
		  s);
	free(s);
	const char *done[] = { "RUN-DONE", NULL };
	s = wait_done(done);
	cr_assert(strstr(s, "RUN-DONE"), "%s", s);
	cr_assert_null(strstr(s, "Running '"), "the progress line was not cleared:\n%s", s);
	free(s);
}

Test(timing, run_plain_should_print_nothing_on_stderr_when_it_is_not_a_terminal, .fini = stop)
{
	write_slow_lesson();
	const char *argv[] = { "qkv", "run", "--plain", lesson_path, NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	cr_expect_str_eq(err, "");
	/* the labels padded to one width, the ratio after the second */
	const char *first = strstr(out, "    ten products  ");
	const char *second = strstr(out, "    two products  ");
	cr_assert(first && second, "%s", out);
	cr_expect(strstr(second, " ms  (") && strstr(second, "\u00d7 the first)"), "%s", out);
	free(out);
	free(err);
}

/* ---- lesson 04: loops against unrolled and SIMD where it shows ------------------- */

/* A comparison's times line (the full screen and `qkv run`), with the three times and each one's speed against
 * the loops: "loops 35.2 ms, unrolled 9.1 ms (3.9×), SIMD 0.81 ms (43× the
 * loops' speed)". */
static void expect_three_times(const char *line, const char *where)
{
	double loops, un, unx, simd, simdx;
	char word[16];
	int n = sscanf(line, " loops %lf ms, unrolled %lf ms (%lf\u00d7), SIMD %lf ms (%lf\u00d7 the loops' %15s", &loops,
		       &un, &unx, &simd, &simdx, word);
	cr_expect_eq(n, 6, "%s: not a speed line: %.160s", where, line);
	cr_expect(n < 6 || strcmp(word, "speed)") == 0, "%s: %.160s", where, line);
	cr_expect(n < 6 || (fabs(unx - loops / un) < 0.1 * unx + 0.05 && fabs(simdx - loops / simd) < 0.1 * simdx + 0.5),
		  "%s: the ratios are not the times': %.160s", where, line);
}

Test(timing, lesson_04_should_show_the_three_kernels_times_at_512_tokens, .timeout = 120)
{
	const char *argv[] = { "qkv", "run", "--plain", "loops-and-matrices", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	const char *titles[] = { "512 tokens, the explicit causal attention: for-loops against unrolled and SIMD\n",
				 "512 tokens, F.scaled_dot_product_attention: for-loops against unrolled and SIMD\n" };
	for (int i = 0; i < 2; i++) {
		const char *p = strstr(out, titles[i]);
		cr_assert(p, "no comparison '%s' in lesson 04", titles[i]);
		/* the title, whether each agrees with the loops, then the times */
		p = strchr(p, '\n') + 1;
		cr_expect(strncmp(p, "    loops and SIMD agree (largest difference ", 45) == 0, "%.200s", p);
		p = strchr(p, '\n') + 1;
		cr_expect(strncmp(p, "    loops and unrolled agree (largest difference ", 49) == 0, "%.200s", p);
		p = strchr(p, '\n') + 1;
		expect_three_times(p, titles[i]);
	}
	free(out);
	free(err);
}

Test(timing, the_full_screen_should_show_the_speed_ratio_of_a_comparison, .fini = stop, .timeout = 60)
{
	start(120, 40, "loops-and-matrices --step 11");
	/* the times line is drawn after the heatmaps, the agreement line last */
	const char *want[] = { "step 11/11", "the loops' speed", "loops and SIMD agree", NULL };
	char *s = wait_done(want);
	const char *line = strstr(s, "\n loops ");
	cr_assert(line, "no times line:\n%s", s);
	expect_three_times(line + 1, "the full screen");
	free(s);
}
