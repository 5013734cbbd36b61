/* test_panels.c: the compare view's panels (issue 18) in a real terminal
 * (tmux): three (for-loops, unrolled, vectorised) at 120x40 and 200x60, two
 * at 80x24 with the x key choosing the pair; each panel's status counts its
 * own steps, s steps every panel, e ends them all on the same numbers, in
 * colour, with NO_COLOR and with 8 colours (TERM=xterm); under the cell
 * cursor each panel tells the cell's story. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *session;
static char state[64];

static void start(int w, int h, const char *env, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-panels-state");
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* How many times text is on screen s. */
static int count_of(const char *s, const char *text)
{
	int n = 0;
	for (const char *p = strstr(s, text); p; p = strstr(p + 1, text))
		n++;
	return n;
}

/* s with the shades ░▒▓█ drawn beside numbers on 8 colours made spaces,
 * and every run of spaces one space: the numbers of a row as they read
 * with shades or without (" 0 5 14"). */
static void blank_shades(char *s)
{
	static const char *const shades[] = { "\u2591", "\u2592", "\u2593", "\u2588" };
	for (int i = 0; i < 4; i++)
		for (char *p = strstr(s, shades[i]); p; p = strstr(p, shades[i]))
			memcpy(p, " \x01\x01", 3);
	char *w = s;
	for (const char *r = s; *r; r++)
		if (*r != 1 && !(*r == ' ' && w > s && w[-1] == ' '))
			*w++ = *r;
	*w = 0;
}

/* Whether a panel's status, "WORD…: POS of TOTAL", is on s: word (the title's
 * first word) then, on the same line and before the next panel's title,
 * ": POS of ". */
static bool status_at(const char *s, const char *word, long pos)
{
	char want[64];
	snprintf(want, sizeof want, ": %ld of ", pos);
	for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
		const char *colon = strstr(p, want), *nl = strchr(p, '\n');
		if (colon && (!nl || colon < nl) && colon - p < 36)
			return true;
	}
	return false;
}

/* The screen once it shows word's panel at pos (it waits for each frame
 * to hold still, a bounded number of times). */
static char *see_status(const char *word, long pos)
{
	char *s = tmux_see(session, word);
	for (int i = 0; i < 100 && !status_at(s, word, pos); i++) {
		free(s);
		s = tmux_see(session, word);
	}
	cr_assert(status_at(s, word, pos), "%s is not at %ld:\n%s", word, pos, s);
	return s;
}

/* ---- the panels and their steps ------------------------------------------------------------- */

/* Lesson 4 step 4 (a 10×10 matmul of 64 terms a cell) at w x h: each panel
 * named and counting from 0; s moves every one of them one step. */
static void panels_step(int w, int h, int panels)
{
	start(w, h, NULL, "4 --step 4");
	char *s = tmux_see(session, "for-loops: 0 of 6400");
	cr_assert(status_at(s, "vectorised", 0), "%s", s);
	cr_assert_eq(status_at(s, "unrolled", 0), panels == 3, "%s", s);
	if (panels == 3) {
		/* the steps of the whole product, in each variant's words */
		cr_assert(strstr(s, "6,400 multiply-adds") || strstr(s, "6400"), "%s", s);
		cr_assert(strstr(s, "iterations of 4"), "the unrolled steps are not said:\n%s", s);
		cr_assert(strstr(s, "FMA"), "the vectorised steps are not said:\n%s", s);
	}
	free(s);
	tmux_keys(session, "s");
	s = tmux_see(session, "for-loops: 1 of 6400");
	cr_assert(status_at(s, "vectorised", 1), "%s", s);
	cr_assert_eq(status_at(s, "unrolled", 1), panels == 3, "%s", s);
	free(s);
	tmux_keys(session, "s s");
	s = tmux_see(session, "for-loops: 3 of 6400");
	cr_assert(status_at(s, "vectorised", 3), "%s", s);
	free(s);
}

Test(panels, three_panels_should_step_together_at_120x40, .fini = finish, .timeout = 120)
{
	panels_step(120, 40, 3);
}

Test(panels, three_panels_should_step_together_at_200x60, .fini = finish, .timeout = 120)
{
	panels_step(200, 60, 3);
}

Test(panels, two_panels_should_step_together_at_80x24, .fini = finish, .timeout = 120)
{
	panels_step(80, 24, 2);
}

Test(panels, x_should_choose_the_pair_at_80x24, .fini = finish, .timeout = 120)
{
	start(80, 24, NULL, "4 --step 4");
	char *s = tmux_see(session, "for-loops: 0 of 6400");
	/* the keys line says which key, and what it shows next */
	cr_assert(strstr(s, "x: loops + unrolled"), "%s", s);
	free(s);
	tmux_keys(session, "x");
	s = tmux_see(session, "x: unrolled + vectorised");
	cr_assert(status_at(s, "for-loops", 0) && status_at(s, "unrolled", 0), "%s", s);
	cr_assert(!status_at(s, "vectorised", 0), "%s", s);
	free(s);
	tmux_keys(session, "x");
	s = tmux_see(session, "x: loops + vectorised");
	cr_assert(!strstr(s, "for-loops:"), "%s", s);
	free(s);
	tmux_keys(session, "s");
	s = see_status("unrolled", 1);
	cr_assert(status_at(s, "vectorised", 1), "%s", s);
	free(s);
	tmux_keys(session, "x");
	free(tmux_see(session, "x: loops + unrolled"));
}

/* ---- e: the same numbers in every panel -------------------------------------------------------- */

/* At the prompt, :show y loops of y = x @ x.T, whole numbers, once it ran
 * (at once, to the end). */
static void show_product(int w, int h, const char *env)
{
	start(w, h, env, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "x = torch.arange(6.).reshape(2, 3); y = x @ x.T");
	tmux_line(session, ":show y loops");
	free(tmux_see(session, "r replay"));
}

/* That product run again and ended with e: every panel shows the same
 * matrix, [[5, 14], [14, 50]]. */
static void same_end(int w, int h, const char *env, int panels)
{
	show_product(w, h, env);
	tmux_keys(session, "Tab");
	free(tmux_see(session, "(Tab: back to the line)"));
	tmux_keys(session, "r s");
	free(tmux_see(session, "for-loops: 1 of 12"));
	tmux_keys(session, "e");
	char *s = tmux_see(session, "r replay");
	cr_assert(strstr(s, "for-loops: 12 of 12"), "%s", s);
	cr_assert_eq(count_of(s, "c (2\u00d72)"), panels, "%s", s);
	blank_shades(s);
	cr_assert_eq(count_of(s, " 0 5 14"), panels, "a panel ends on other numbers:\n%s", s);
	cr_assert_eq(count_of(s, " 1 14 50"), panels, "a panel ends on other numbers:\n%s", s);
	free(s);
}

Test(panels, e_should_end_three_panels_on_the_same_numbers_at_120x40, .fini = finish, .timeout = 120)
{
	same_end(120, 40, NULL, 3);
}

Test(panels, e_should_end_on_the_same_numbers_with_no_color, .fini = finish, .timeout = 120)
{
	same_end(120, 40, "NO_COLOR=1", 3);
}

Test(panels, e_should_end_on_the_same_numbers_in_8_colours_at_80x24, .fini = finish, .timeout = 120)
{
	same_end(80, 24, "TERM=xterm", 2);
	/* and the third panel, the other pair away */
	tmux_keys(session, "x");
	char *s = tmux_see(session, "x: unrolled + vectorised");
	blank_shades(s);
	cr_assert_eq(count_of(s, " 0 5 14"), 2, "%s", s);
	cr_assert_eq(count_of(s, " 1 14 50"), 2, "%s", s);
	free(s);
}

Test(panels, e_should_end_three_panels_on_the_same_numbers_at_200x60, .fini = finish, .timeout = 120)
{
	same_end(200, 60, NULL, 3);
}

/* ---- the cell cursor: each panel's story of the cell ------------------------------------------- */

Test(panels, the_cursor_should_tell_each_panel_s_story_of_its_cell, .fini = finish, .timeout = 120)
{
	show_product(120, 40, NULL);
	tmux_keys(session, "Tab Right Down");
	char *s = tmux_see(session, "c[1, 1]:");
	cr_assert_eq(count_of(s, "c[1, 1]:"), 3, "a panel has no story:\n%s", s);
	free(s);
	tmux_keys(session, "Up");
	s = tmux_see_gone(session, "c[1, 1]:");
	cr_assert_eq(count_of(s, "c[0, 1]:"), 3, "a panel has no story:\n%s", s);
	free(s);
}

/* ---- r: the same step rate, so the vectorised panel ends first ----------------------------------- */

/* The total of word's panel on s ("WORD…: POS of TOTAL"), 0 when not shown. */
static long total_of(const char *s, const char *word)
{
	for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
		const char *of = strstr(p, " of "), *nl = strchr(p, '\n');
		if (of && (!nl || of < nl) && of - p < 36)
			return strtol(of + 4, NULL, 10);
	}
	return 0;
}

Test(panels, r_should_run_every_panel_at_the_same_step_rate, .fini = finish, .timeout = 120)
{
	start(120, 40, NULL, "4 --step 4");
	char *s = tmux_see(session, "for-loops: 0 of 6400");
	long simd = total_of(s, "vectorised"), unrolled = total_of(s, "unrolled");
	free(s);
	cr_assert(simd > 0 && simd < unrolled && unrolled < 6400, "vectorised %ld, unrolled %ld", simd, unrolled);
	/* ×8: the vectorised panel ends while the others run on, each as many
	 * steps in (the first frame that shows its end) */
	tmux_keys(session, ". . . r");	/* . is > */
	char want[64];
	snprintf(want, sizeof want, ": %ld of %ld", simd, simd);
	const char *moving[] = { want, NULL };
	s = tmux_wait_moving(session, moving);
	cr_assert(strstr(s, want), "%s", s);
	char line[64];
	snprintf(line, sizeof line, "for-loops: 6400 of 6400");
	cr_assert(!strstr(s, line), "the loops ended with the vectorised panel:\n%s", s);
	free(s);
	/* and the others end in their own time */
	snprintf(want, sizeof want, "unrolled \u00d74: %ld of %ld", unrolled, unrolled);
	free(tmux_see(session, want));
	tmux_keys(session, "e");
	free(tmux_see(session, "for-loops: 6400 of 6400"));
}

/* ---- the tile of the SIMD path in use ------------------------------------------------------------ */

Test(panels, the_vectorised_panel_should_name_the_avx2_tile_under_qkv_simd_avx2, .fini = finish, .timeout = 120)
{
	start(200, 60, "QKV_SIMD=avx2", "4 --step 4");
	char *s = tmux_see(session, "for-loops: 0 of 6400");
	free(s);
	/* the title whole, where it fits: 38 columns at 200x60 */
	s = tmux_see(session, "vectorised (avx2, 6\u00d716 tile)");
	cr_assert(strstr(s, "of 8 lanes"), "the steps should be FMAs of 8 lanes:\n%s", s);
	free(s);
}

/* ---- a causal attention: the three ends agree ------------------------------------------------------ */

Test(panels, e_should_end_an_attention_on_the_same_output_in_every_panel, .fini = finish, .timeout = 120)
{
	start(120, 40, NULL, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "import torch.nn.functional as F; torch.manual_seed(0); Q = torch.randn(5, 4); "
		  "K = torch.randn(5, 4); V = torch.randn(5, 3)");
	tmux_line(session, ":show F.scaled_dot_product_attention(Q, K, V, is_causal=True) loops");
	free(tmux_see(session, "r replay"));
	tmux_keys(session, "Tab e");
	char *s = tmux_see(session, "for-loops: 125 of 125");
	cr_assert_eq(count_of(s, "out (5\u00d73)"), 3, "%s", s);
	/* each row of the loops' out (the first panel, from column 1: its 38
	 * columns are ASCII there) is in the other two panels as well */
	for (int r = 0; r < 5; r++) {
		char label[16], row[40];
		snprintf(label, sizeof label, "\n %d ", r);
		const char *p = strstr(s, label);
		cr_assert(p, "no row %d:\n%s", r, s);
		snprintf(row, sizeof row, "%.30s", p + 1);
		cr_assert(strchr(row, '.') && !strchr(row, '\n'), "row %d: '%s'\n%s", r, row, s);
		for (int i = (int)strlen(row); i > 0 && row[i - 1] == ' '; i--)
			row[i - 1] = 0;
		cr_assert_eq(count_of(s, row), 3, "row %d, '%s', is not in every panel:\n%s", r, row, s);
	}
	free(s);
}

/* The legend line of the panels ("c: -1.3 … 0 … 1.3" once per panel): one
 * colour scale for all, the union of theirs, even while the loops have
 * filled one cell and the vectorised kernel a whole tile. */
Test(panels, the_panels_should_share_one_colour_scale_while_they_fill, .fini = finish, .timeout = 120)
{
	start(120, 40, NULL, "4 --step 4");
	free(tmux_see(session, "for-loops: 0 of 6400"));
	tmux_keys(session, "s s s s s");
	char *s = see_status("for-loops", 5);
	const char *line = strstr(s, "\n c: ");
	cr_assert(line, "no legend line:\n%s", s);
	line++;
	const char *end = strchr(line, '\n');
	int n = 0;
	/* the first legend, "c: -1.3 … 0 … 1.3", up to its double space */
	const char *gap = strstr(line, "   ");
	cr_assert(gap && gap < end, "%.*s", (int)(end - line), line);
	char first[64];
	snprintf(first, sizeof first, "%.*s", (int)(gap - line), line);
	for (const char *p = strstr(line, first); p && p < end; p = strstr(p + 1, first))
		n++;
	cr_assert_eq(n, 3, "the three legends differ: %.*s", (int)(end - line), line);
	free(s);
}
