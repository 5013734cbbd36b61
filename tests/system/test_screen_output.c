/* test_screen_output.c: the full screen prints every step's code output as
 * `qkv run` does. For every step of every built-in lesson, in tmux at
 * 120x40, the text pane is read page by page (PgDn) and every line the step
 * printed (from `qkv run --json`, verbatim) must be a line on the screen,
 * spacing and all. Waits for each frame (the header's step number, the
 * status line, a changed pane, the same screen twice), never a fixed time. */
#include "helpers.h"
#include "system.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *session;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The screen once it shows want and its last line (the status line) is
 * drawn, and differs from not (when given); NULL after deadline seconds. */
static char *wait_frame(const char *want, const char *not, double deadline)
{
	double end = now_s() + deadline;
	while (now_s() < end) {
		char *s = tmux_screen(session, false);
		const char *last = strrchr(s, '\n');
		bool status = last && last > s && strstr(s, "\u2190/\u2192 step");
		if (strstr(s, want) && status && (!not || strcmp(s, not) != 0)) {
			/* a whole frame: the same screen read twice, 30 ms apart
			 * (curses may still be writing the first) */
			usleep(30000);
			char *again = tmux_screen(session, false);
			bool same = strcmp(s, again) == 0;
			free(again);
			if (same)
				return s;
		}
		free(s);
		usleep(20000);
	}
	return NULL;
}

/* The text pane: the rows from 1 to the rule under it (its height follows
 * the content), each without its first column and trailing spaces,
 * appended to acc. Whether "↓ more" shows. */
static bool take_text_pane(const char *screen, char **acc, size_t *len)
{
	bool more = false;
	const char *p = screen;
	for (int row = 0; *p; row++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (row >= 1 && strncmp(p, "\u2500\u2500\u2500\u2500", 12) == 0)
			break;	/* the rule under the text pane */
		if (row >= 1) {
			char line[1024];
			snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
			char *m = strstr(line, "\u2193 more");
			if (m) {
				more = true;
				*m = 0;
			}
			size_t l = strlen(line);
			while (l > 0 && line[l - 1] == ' ')
				line[--l] = 0;
			const char *body = line[0] == ' ' ? line + 1 : line;
			*acc = realloc(*acc, *len + strlen(body) + 2);
			memcpy(*acc + *len, body, strlen(body));
			*len += strlen(body);
			(*acc)[(*len)++] = '\n';
			(*acc)[*len] = 0;
		}
		p = nl ? nl + 1 : p + n;
	}
	return more;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
			return true;
	return false;
}

/* XDG_STATE_HOME of the test, its own and empty (a progress file left by
 * another run would resume the lesson where that one stopped); removed once
 * the tmux server and qkv, which saves its progress as it ends, are gone */
static char state[64];

static void check_lesson(int num)
{
	char arg[8];
	snprintf(arg, sizeof arg, "%d", num);
	const char *argv[] = { "qkv", "run", "--json", arg, NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	dir_make_temp(state, sizeof state, "qkv-pages");
	session = tmux_start_qkv(120, 40, state, NULL, arg, "sleep 600");
	int steps = 0;
	for (const char *line = out; *line; steps++) {
		const char *nl = strchr(line, '\n');
		char *js = strndup(line, nl ? (size_t)(nl - line) : strlen(line));
		cJSON *step = cJSON_Parse(js);
		cr_assert(step, "run --json printed a line that is not JSON");
		int k = cJSON_GetObjectItem(step, "step")->valueint;
		const char *output = cJSON_GetObjectItem(step, "output")->valuestring;
		char want[64];
		snprintf(want, sizeof want, " step %d/", k);
		char *screen = wait_frame(want, NULL, 600);
		cr_assert(screen, "lesson %d: step %d was never drawn", num, k);
		char *acc = calloc(1, 1);
		size_t len = 0;
		for (int page = 0; take_text_pane(screen, &acc, &len) && page < 400; page++) {
			tmux_keys(session, "NPage");
			char *next = wait_frame(want, screen, 60);
			cr_assert(next, "lesson %d step %d: Page Down changed nothing", num, k);
			free(screen);
			screen = next;
		}
		for (const char *o = output; *o;) {
			const char *e = strchr(o, '\n');
			char ol[1024];
			snprintf(ol, sizeof ol, "%.*s", (int)(e ? e - o : (long)strlen(o)), o);
			size_t l = strlen(ol);
			while (l > 0 && ol[l - 1] == ' ')
				ol[--l] = 0;
			/* %%time's times differ from run to run (lesson 5's GPT-2 cells) */
			bool times = strncmp(ol, "CPU times: ", 11) == 0 || strncmp(ol, "Wall time: ", 11) == 0;
			if (l > 0 && l <= 116 && !strchr(ol, '\t') && !times)
				cr_expect(has_line(acc, ol), "lesson %d step %d: the screen does not print '%s' as run does",
					  num, k, ol);
			o = e ? e + 1 : o + strlen(o);
		}
		free(acc);
		free(screen);
		cJSON_Delete(step);
		free(js);
		tmux_keys(session, "n");
		line = nl ? nl + 1 : line + strlen(line);
	}
	cr_expect_gt(steps, 0);	/* teardown ends qkv, and waits for it */
	free(out);
	free(err);
}

static void setup(void)
{
	tmux_require();
	tmux_private_server();
}

static void teardown(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

TestSuite(screen_output, .init = setup, .fini = teardown, .timeout = 1500);

Test(screen_output, lesson_1_should_print_each_steps_output_as_run_does) { check_lesson(1); }
Test(screen_output, lesson_2_should_print_each_steps_output_as_run_does) { check_lesson(2); }
Test(screen_output, lesson_3_should_print_each_steps_output_as_run_does) { check_lesson(3); }
Test(screen_output, lesson_4_should_print_each_steps_output_as_run_does) { check_lesson(4); }
Test(screen_output, lesson_5_should_print_each_steps_output_as_run_does) { check_lesson(5); }
