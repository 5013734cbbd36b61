/* test_loops_view.c: the loops-beside-SIMD view of a lesson in a real
 * terminal (tmux), as issue 12 found it clipped: the listing follows the line
 * being run (after s many times and after e), the status and the
 * explanation keep every number whole at 80x24, a negative max is added
 * (exp(x + 0.0801)), r at the end runs it again, cells not yet computed are
 * blank at 200x60, and the matrix being filled is labelled by its name. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];

static void start(int w, int h, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-loops-state");
	session = tmux_start_qkv(w, h, state, NULL, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* n presses of key k, in one go: qkv reads them before its next tick, so
 * an animation cannot move in between */
static void presses(const char *k, int n)
{
	char buf[4000] = "";
	size_t len = 0;
	for (int i = 0; i < n && len + strlen(k) + 2 < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s ", k);
	tmux_keys(session, buf);
}

/* Whether text is on screen in reverse video (the line being run): the
 * screen with its escapes, where the last attribute set before text on its
 * line turns reverse on and nothing after it turned it off. */
static bool highlighted(const char *text)
{
	char *s = tmux_screen(session, true);
	bool yes = false;
	for (const char *p = strstr(s, text); p && !yes; p = strstr(p + 1, text)) {
		const char *line = p;
		while (line > s && line[-1] != '\n')
			line--;
		const char *rev = NULL;
		for (const char *q = line; q < p; q++) {
			if (strncmp(q, "\033[7m", 4) == 0 || strncmp(q, ";7m", 3) == 0)
				rev = q;
			else if (strncmp(q, "\033[0m", 4) == 0 || strncmp(q, "\033[27m", 5) == 0)
				rev = NULL;
		}
		yes = rev != NULL;
	}
	free(s);
	return yes;
}

/* The line of s that holds text ("" when none), in buf. */
static const char *line_of(const char *s, const char *text, char *buf, size_t size)
{
	const char *p = strstr(s, text);
	buf[0] = 0;
	if (!p)
		return buf;
	const char *b = p, *e = strchr(p, '\n');
	while (b > s && b[-1] != '\n')
		b--;
	snprintf(buf, size, "%.*s", (int)((e ? e : p + strlen(p)) - b), b);
	return buf;
}

/* ---- the listing follows the line being run ------------------------------------------- */

static void listing_follows(int w, int h)
{
	start(w, h, "3 --step 12");
	free(tmux_see(session, "for-loops: 0 of 320"));
	/* 64 scores, a max pass of 8, then the exp pass: past "sum = 0", where
	 * the listing used to end at 120x40 */
	presses("s", 75);
	char *s = tmux_see(session, "for-loops: 75 of 320");
	/* (cut with "…" in the 38 columns of the left half at 80x24) */
	cr_assert(strstr(s, "att[row, j] = exp(att[row, j]"), "the line being run is not shown:\n%s", s);
	cr_assert(highlighted("att[row, j] = exp(att[row, j]"), "not highlighted:\n%s", s);
	free(s);
	/* e: the end, the last line of the code */
	tmux_keys(session, "e");
	s = tmux_see(session, "for-loops: 320 of 320");
	cr_assert(strstr(s, "out[row] += a[v_idx] * v"), "the last line is not shown:\n%s", s);
	cr_assert(highlighted("out[row] += a[v_idx] * v"), "not highlighted:\n%s", s);
	cr_assert(strstr(s, "out (8\u00d74)"), "the matrix is not labelled out:\n%s", s);
	free(s);
}

Test(loops_view, the_listing_should_follow_the_line_being_run_at_120x40, .fini = finish, .timeout = 120)
{
	listing_follows(120, 40);
}

Test(loops_view, the_listing_should_follow_the_line_being_run_at_80x24, .fini = finish, .timeout = 120)
{
	listing_follows(80, 24);
}

/* ---- whole numbers and words ----------------------------------------------------------- */

/* Lesson 2 step 10's fourth view at w x h, the loops of a softmax over 3
 * rows (27 iterations): its first screen. */
static char *softmax_loops(int w, int h)
{
	start(w, h, "2 --step 10");
	free(tmux_see(session, "step 10/28"));
	tmux_keys(session, "v v v");
	return tmux_see(session, "for-loops: 0 of 27");
}

/* s pressed n times from 0: the screen once it shows iteration n of total. */
static char *step_to(int n, int total)
{
	char want[64];
	presses("s", n);
	snprintf(want, sizeof want, "for-loops: %d of %d", n, total);
	return tmux_see(session, want);
}

Test(loops_view, the_status_at_80x24_should_drop_words_not_cut_them, .fini = finish, .timeout = 120)
{
	char *s = softmax_loops(80, 24);
	char line[512];
	line_of(s, "for-loops:", line, sizeof line);
	/* the left half: either the whole key list or none of it */
	char *st = strstr(line, "for-loops:"), *right = strstr(st, "vectorised");
	if (right)
		*right = 0;	/* the left half only */
	cr_assert(!strchr(st, '(') || strstr(st, "(s step, r run, e end, < > speed \u00d71)"), "%s", line);
	cr_assert(!strstr(s, "(s step, r run, <\n") && !strstr(line, "r run, < "), "%s", s);
	free(s);
	/* the formula of the first exp of row 2, whose max is negative */
	s = step_to(22, 27);
	cr_assert(strstr(s, "0.0801"), "%s", s);
	cr_assert(!strstr(s, "- -"), "%s", s);
	free(s);
}

Test(loops_view, a_negative_max_should_be_added_not_subtracted, .fini = finish, .timeout = 120)
{
	free(softmax_loops(120, 40));
	char *s = step_to(22, 27);
	cr_assert(strstr(s, "y[2, 0] = exp(-1.1067 + 0.0801) = "), "%s", s);
	cr_assert(!strstr(s, "- -"), "%s", s);
	free(s);
}

Test(loops_view, the_scale_of_a_score_should_stay_whole_at_80x24, .fini = finish, .timeout = 180)
{
	/* lesson 4 step 11 read "× scale = -4.0698 × 0" */
	start(80, 24, "4 --step 11");
	free(tmux_see(session, "for-loops: 0 of"));
	tmux_keys(session, "s");
	char *s = tmux_see(session, "for-loops: 1 of");
	cr_assert(strstr(s, "scale"), "%s", s);
	cr_assert(strstr(s, "0.1250"), "the scale 0.125 is cut:\n%s", s);
	free(s);
}

/* ---- keys: r at the end, e ---------------------------------------------------------------- */

Test(loops_view, r_at_the_end_should_run_it_again_from_the_start, .fini = finish)
{
	start(120, 40, "tests/lessons/format-example.json --step 2");
	free(tmux_see(session, "step 2/2"));
	tmux_keys(session, "v v");
	char *s = tmux_see(session, "for-loops: 0 of ");
	char line[512], total[32];
	line_of(s, "for-loops: 0 of ", line, sizeof line);
	cr_assert_eq(sscanf(strstr(line, "for-loops: 0 of ") + 16, "%31[0-9]", total), 1, "%s", line);
	free(s);
	tmux_keys(session, "e");
	char want[96];
	snprintf(want, sizeof want, "for-loops: %s of %s", total, total);
	s = tmux_see(session, want);
	cr_assert(strstr(s, "r replay"), "the end should offer a replay:\n%s", s);
	free(s);
	/* r runs from the start again; s pauses it one iteration in */
	tmux_keys(session, "r s");
	snprintf(want, sizeof want, "for-loops: 1 of %s", total);
	free(tmux_see(session, want));
	/* and r then runs it to the end */
	tmux_keys(session, "r");
	snprintf(want, sizeof want, "for-loops: %s of %s", total, total);
	free(tmux_see(session, want));
}

/* ---- the matrix being filled ---------------------------------------------------------------- */

Test(loops_view, cells_not_yet_computed_should_be_blank_at_200x60, .fini = finish, .timeout = 120)
{
	start(200, 60, "3 --step 12");
	free(tmux_see(session, "for-loops: 0 of 320"));
	tmux_keys(session, "s s s");
	char *s = tmux_see(session, "for-loops: 3 of 320");
	cr_assert(strstr(s, "att (8\u00d78): the scores"), "%s", s);
	cr_assert(!strstr(s, "nan"), "cells not computed should be blank:\n%s", s);
	/* row 0 of the loops' scores, under the label: the first three computed
	 * (two masked, drawn ·), the rest blank; row 1 blank */
	const char *row0 = strchr(strstr(s, "att (8\u00d78)"), '\n');
	char line[512], row1[512];
	cr_assert(row0, "%s", s);
	line_of(row0 + 1, "", line, sizeof line);
	line_of(strchr(row0 + 1, '\n') + 1, "", row1, sizeof row1);
	char *panel = strstr(line, " 0 ");
	cr_assert(panel && strstr(panel, "\u00b7 \u00b7"), "row 0 should show two masked cells: %s", line);
	panel = strstr(row1, " 1 ");
	cr_assert(panel && strspn(panel + 3, " ") >= 30, "row 1 should be blank: %s", row1);
	free(s);
}

Test(loops_view, the_scores_of_lesson_4_step_4_should_be_labelled_by_their_matrix, .fini = finish,
     .timeout = 120)
{
	start(120, 40, "4 --step 4");
	free(tmux_see(session, "for-loops: 0 of 6400"));
	/* (the label to its first comma in the panels' 38 columns) */
	char *s = tmux_see(session, "c (10\u00d710): sums of products");
	free(s);
	tmux_keys(session, "e");
	s = tmux_see(session, "for-loops: 6400 of 6400");
	cr_assert(strstr(s, "c (10\u00d710): sums of products"), "%s", s);
	/* the matrix's legend names it too */
	cr_assert(strstr(s, "\n c: -"), "%s", s);
	/* the view (under the text) says weights nowhere: both sides are scores */
	const char *view = strstr(s, "loops, unrolled, SIMD");
	cr_assert(view && !strstr(view, "weights"), "%s", s);
	free(s);
}
