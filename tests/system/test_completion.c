/* test_completion.c: Tab lists the choices when a word has several, as
 * readline and Python's REPL do, in a real terminal (tmux): the first Tab
 * completes what the matches share, the second lists them (the first
 * already, when it can add nothing); in the full screen (qkv --repl, and the
 * prompt of a lesson) under the input line, sorted down columns that fit the
 * width, the rows past a third of the screen counted in a last one, gone
 * with the next key; in qkv repl, readline's own listing. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[128];

static void start(int w, int h, const char *env, const char *args)
{
	snprintf(state, sizeof state, "/tmp/qkv-complete-%d", (int)getpid());
	dir_remove(state);
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

/* The line of screen s that holds text, copied into buf ("" when none). */
static const char *line_with(const char *s, const char *text, char *buf, size_t size)
{
	const char *at = strstr(s, text);
	buf[0] = 0;
	if (!at)
		return buf;
	const char *start = at;
	while (start > s && start[-1] != '\n')
		start--;
	size_t n = strcspn(start, "\n");
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), start);
	return buf;
}

/* Two names that share "attn_": Tab completes that, a second Tab lists
 * both on the line under the input, a letter typed clears the list and Tab
 * then completes the one name left. */
static void shared_prefix_then_list(int w, int h, const char *env)
{
	start(w, h, env, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "attn_scores = 1");
	free(tmux_see(session, "\n 1"));
	tmux_line(session, "attn_weights = 2");
	free(tmux_see(session, "\n 2"));
	tmux_type(session, "at");
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, ">>> attn_\n");
	cr_assert(!strstr(s, "attn_scores"), "the first Tab listed what it could complete:\n%s", s);
	free(s);
	tmux_keys(session, "Tab");
	s = tmux_see(session, ">>> attn_\n attn_scores ");	/* (the view above names attn_weights) */
	char line[512];
	cr_assert(strstr(s, ">>> attn_\n attn_scores   attn_weights"), "the list is not under the line:\n%s", s);
	cr_assert_eq(screen_column(strstr(s, ">>> attn_\n") + 10, "attn_weights"), 15, "%s", s);	/* a column as wide as the widest and 2 */
	free(s);
	tmux_type(session, "w");
	s = tmux_see_gone(session, "attn_scores");
	cr_assert(strstr(s, ">>> attn_w\n"), "%s", s);
	free(s);
	tmux_keys(session, "Tab");
	s = tmux_see(session, ">>> attn_weights");
	cr_assert(!strstr(line_with(s, "attn_scores", line, sizeof line), "attn"), "%s", s);
	free(s);
	finish();
}

Test(completion, tab_should_complete_what_is_shared_then_list_the_names_at_80x24, .fini = finish)
{
	shared_prefix_then_list(80, 24, "NO_COLOR=1");
}

Test(completion, tab_should_complete_what_is_shared_then_list_the_names_at_120x40, .fini = finish)
{
	shared_prefix_then_list(120, 40, "TERM=xterm");
}

/* The rows of names under ">>> torch." on screen s (a last row counting
 * the rest not included); the test fails on a row wider than w. */
static int name_rows(const char *s, int w)
{
	int rows = 0;
	for (const char *l = strstr(s, ">>> torch.\n") + 11; strncmp(l, " torch.", 7) == 0; rows++) {
		size_t n = strcspn(l, "\n");
		while (n > 0 && l[n - 1] == ' ')
			n--;
		cr_assert(n <= (size_t)w - 1, "a row wider than the screen:\n%s", s);
		l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0);
	}
	return rows;
}

/* torch.: the first Tab lists at once (it can add nothing), sorted down
 * columns that fit the width; where they take more than a third of the
 * screen, the last row counts the rest. */
static void many_matches(int w, int h, bool all)
{
	start(w, h, NULL, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "torch.");
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, "torch.argmax");
	cr_assert(strstr(s, ">>> torch.\n torch.Tensor "), "%s", s);
	cr_assert(strstr(s, "\n torch.abs "), "not sorted down the columns:\n%s", s);
	int rows = name_rows(s, w);
	if (all) {
		cr_assert(strstr(s, "torch.zeros_like") && !strstr(s, "more: type more"), "%s", s);
		cr_assert(rows <= h / 3, "%d rows:\n%s", rows, s);
	} else {
		cr_assert(strstr(s, "more: type more of the name"), "%s", s);
		cr_assert_eq(rows, h / 3 - 1, "%d rows of names:\n%s", rows, s);
	}
	free(s);
	/* the next key clears it; the line is as it was (torch.so is also torch.sort's) */
	tmux_type(session, "sof");
	s = tmux_see_gone(session, "torch.argmax");
	cr_assert(strstr(s, ">>> torch.sof"), "%s", s);
	free(s);
	tmux_keys(session, "Tab");
	free(tmux_see(session, ">>> torch.softmax"));
	finish();
}

Test(completion, many_matches_should_fit_the_width_and_count_the_rest_at_80x24, .fini = finish)
{
	many_matches(80, 24, false);
}

Test(completion, many_matches_should_fit_the_width_at_220x60, .fini = finish)
{
	many_matches(220, 60, true);	/* (torch's 120 or so names take 15 rows of 8 at 200 columns) */
}

/* the prompt of a lesson lists too, above the status line */
Test(completion, the_prompt_of_a_lesson_should_list_the_choices, .fini = finish)
{
	start(100, 30, NULL, "1");
	free(tmux_see(session, "step 1/"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "torch.s");
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, "torch.softmax");
	/* the list starts on the line under the input (its first name is
	 * whichever torch.s... sorts first) */
	cr_assert(strstr(s, ">>> torch.s\n torch.s"), "%s", s);
	cr_assert(strstr(s, "torch.sin") && strstr(s, "torch.sqrt") && strstr(s, "torch.sum"), "%s", s);
	free(s);
}

/* qkv repl: readline lists them itself, under the line, on the second Tab */
Test(completion, tab_twice_in_qkv_repl_should_list_the_names, .fini = finish)
{
	start(100, 30, NULL, "repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "attn_scores = 1");
	free(tmux_see(session, ">>> attn_scores = 1\n>>>"));
	tmux_line(session, "attn_weights = 2");
	free(tmux_see(session, ">>> attn_weights = 2\n>>>"));
	tmux_type(session, "at");
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, ">>> attn_\n");
	free(s);
	tmux_keys(session, "Tab");
	s = tmux_see(session, "attn_scores   attn_weights\n>>> attn_");
	free(s);
	/* torch.s: nothing shared to add, listed at once */
	tmux_keys(session, "C-u");
	tmux_type(session, "torch.s");
	tmux_keys(session, "Tab");
	s = tmux_see(session, "torch.softmax");
	/* readline lists in columns, so torch.sum (the last name) ends the
	 * list whatever the width; the prompt comes back under it */
	const char *sum = strstr(s, "torch.sum");
	cr_assert(strstr(s, "torch.sin") && strstr(s, "torch.split") && sum && strstr(sum, "\n>>> torch.s"), "%s", s);
	free(s);
}

/* the file names after :load, slashes and all (readline's word breaks left
 * only what was after the last '/'): completed, then listed without their
 * directory, as readline lists them; in both prompts */
static void load_file_names(const char *args, const char *dir)
{
	char line[128], shared[128];
	start(120, 30, NULL, args);
	free(tmux_see(session, ">>>"));
	snprintf(line, sizeof line, ":load %s/al", dir);
	tmux_type(session, line);
	tmux_keys(session, "Tab");
	snprintf(shared, sizeof shared, ">>> :load %s/alp\n", dir);
	free(tmux_see(session, shared));
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, "alpha.qkv");
	cr_assert(strstr(s, "alpha.qkv  alps.qkv") && !strstr(s, "beta.qkv"), "%s:\n%s", args, s);
	free(s);
	finish();
}

Test(completion, file_names_after_load_should_complete_and_list, .fini = finish)
{
	char dir[64], path[128];
	dir_make_temp(dir, sizeof dir, "qkv-files");
	static const char *const names[] = { "alpha.qkv", "alps.qkv", "beta.qkv" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		file_put(path, "x = 1\n", 6);
	}
	load_file_names("--repl", dir);
	load_file_names("repl", dir);
	dir_remove(dir);
}

/* a name of 170 characters before the dot: its attributes complete (the
 * name was cut at 160 bytes, and then nothing completed) */
Test(completion, tab_should_complete_after_a_long_name_and_a_dot, .fini = finish)
{
	char name[171], line[200];
	memset(name, 'v', 170);
	name[170] = 0;
	start(200, 30, NULL, "repl");
	free(tmux_see(session, ">>>"));
	snprintf(line, sizeof line, "%s = torch.ones(2)", name);
	tmux_line(session, line);
	/* the next prompt first: keys typed while the line runs are echoed by
	 * the terminal, before readline has it back in raw mode */
	free(tmux_see(session, "torch.ones(2)\n>>>"));
	snprintf(line, sizeof line, "%s.softm", name);
	tmux_type(session, line);
	free(tmux_see(session, ".softm"));
	tmux_keys(session, "Tab");
	snprintf(line, sizeof line, ">>> %s.softmax", name);
	free(tmux_see(session, line));
}

/* a numpy array's names are numpy's: "a.so" completes to a.sort (a
 * tensor's would list softmax too), and a.softmax is numpy's AttributeError */
Test(completion, a_numpy_arrays_names_should_be_numpys, .fini = finish)
{
	start(100, 30, NULL, "repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "import numpy as np; a = np.ones(2)");
	free(tmux_see(session, "np.ones(2)\n>>>"));
	tmux_type(session, "a.so");
	tmux_keys(session, "Tab");
	free(tmux_see(session, ">>> a.sort"));
	tmux_keys(session, "C-u");
	tmux_line(session, "a.softmax(0)");
	free(tmux_see(session, "AttributeError: 'numpy.ndarray' object has no attribute 'softmax'"));
}
