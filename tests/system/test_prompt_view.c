/* test_prompt_view.c: the prompt's own tensors in a real terminal (tmux), as
 * issue 12 asks: at qkv --repl, at 80x24 and 120x40, a matrix typed is drawn
 * with its name, shape and dtype, numbered rows and columns and the cell
 * inspector; Tab on an empty line gives the view the keys (the cursor, the
 * slices of a 3-D tensor), and `:show EXPR loops` runs the loop animation
 * with the lesson's keys. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];

static void start(int w, int h)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-pview-state");
	session = tmux_start_qkv(w, h, state, NULL, "--repl", "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* ---- a matrix typed ------------------------------------------------------------------ */

static void matrix_titled(int w, int h)
{
	start(w, h);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "X = [1 2; 3 4]");
	/* the title, the column header over the cells, the row labels, the inspector */
	const char *want[] = { "X  (2\u00d72, float32)", "\n   0 1\n", "\n 0 1 2\n", "\n 1 3 4\n",
			       "X[0, 0] = 1.0000", NULL };
	free(tmux_see_all(session, want));
	/* :show X draws the same */
	tmux_line(session, ":clear");
	free(tmux_wait_without(session, "X  (2\u00d72"));
	tmux_line(session, ":show X");
	free(tmux_see_all(session, want));
	/* Tab on the empty line: the arrows move the cursor and the inspector follows */
	tmux_keys(session, "Tab");
	free(tmux_see(session, "(Tab: back to the line)"));
	tmux_keys(session, "Right Down");
	char *s = tmux_see(session, "X[1, 1] = 4.0000");
	cr_assert(strstr(s, "(row 1, column 1)"), "%s", s);
	free(s);
	/* a key that is not the view's gives the line its keys back, and types */
	tmux_line(session, "Y = X * 2");
	s = tmux_see(session, "Y  (2\u00d72, float32)");
	cr_assert(strstr(s, "Y[0, 0] = X[0, 0] \u00d7 2 = 1.0000 \u00d7 2 = 2.0000"), "%s", s);
	free(s);
}

Test(prompt_view, a_matrix_should_be_titled_numbered_and_inspected_at_80x24, .fini = finish)
{
	matrix_titled(80, 24);
}

Test(prompt_view, a_matrix_should_be_titled_numbered_and_inspected_at_120x40, .fini = finish)
{
	matrix_titled(120, 40);
}

Test(prompt_view, an_expression_should_be_titled_by_itself, .fini = finish)
{
	start(120, 40);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "X = [1 2; 3 4]");
	free(tmux_see(session, "X  (2\u00d72, float32)"));
	tmux_line(session, "X @ X.T");
	char *s = tmux_see(session, "X @ X.T  (2\u00d72, float32)");
	cr_assert(strstr(s, "(X @ X.T)[0, 0] = "), "%s", s);
	free(s);
}

/* print() makes no value: the tensor a line ending in one shows is named
 * after the statement that made it ("print(X)" was its title, and
 * "print(X)[0, 0]" its cell's name) */
Test(prompt_view, a_line_ending_in_print_should_title_the_value_by_what_made_it, .fini = finish)
{
	start(80, 24);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "X = torch.ones(2, 3); print(X)");
	char *s = tmux_see(session, "X  (2\u00d73, float32)");
	cr_assert(strstr(s, "X[0, 0] = 1.0000") && !strstr(s, "print(X)["), "%s", s);
	free(s);
	tmux_line(session, "Y = X @ X.T; print(X); print(\"a;b\", end=\"\")");
	s = tmux_see(session, "Y  (2\u00d72, float32)");
	cr_assert(strstr(s, "Y[0, 0] = ") && !strstr(s, "print("), "%s", s);
	free(s);
}

Test(prompt_view, a_3d_tensor_should_show_a_slice_that_brackets_change, .fini = finish)
{
	start(120, 40);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "T = torch.arange(24.).reshape(2, 3, 4)");
	const char *want[] = { "T  (2\u00d73\u00d74, float32)", "batch 0", "\n    0  1  2  3\n",
			       "T[0, 0, 0] = 0 (batch 0, row 0, column 0)",
			       NULL };
	char *s = tmux_see_all(session, want);
	cr_assert(!strstr(s, "\u2580\u2580\u2580"), "not a mini-map: %s", s);
	free(s);
	tmux_keys(session, "Tab ] Right Down");
	s = tmux_see(session, "(batch 1, row 1, column 1)");
	cr_assert(strstr(s, "T[1, 1, 1] = 17"), "%s", s);
	cr_assert(strstr(s, "\n batch 1 "), "%s", s);
	/* the cells are the new slice's (the model kept between frames is
	 * built again for it) */
	cr_assert(strstr(s, "\n 0 12 13 14 15\n"), "%s", s);
	free(s);
	tmux_keys(session, "]");	/* round to the first */
	s = tmux_see(session, "(batch 0, row 1, column 1)");
	cr_assert(strstr(s, "T[0, 1, 1] = 5"), "%s", s);
	cr_assert(strstr(s, "\n 0  0  1  2  3\n"), "%s", s);
	free(s);
}

/* The view keeps the model of the value it shows from one frame to the next
 * (a key costs the same whatever the value's size); a line that changes
 * that value in place, making no value of its own, is drawn changed all the
 * same, and so is a new value of the same shape. */
Test(prompt_view, a_value_changed_in_place_should_be_drawn_changed, .fini = finish)
{
	start(80, 24);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "A = torch.zeros(2, 3)");
	const char *zeros[] = { "A  (2\u00d73, float32)", "\n 0 0 0 0\n", "\n 1 0 0 0\n", NULL };
	free(tmux_see_all(session, zeros));
	tmux_keys(session, "Tab Right");	/* a frame or two drawn from the kept model */
	free(tmux_see(session, "A[0, 1] = 0"));
	tmux_keys(session, "Tab");
	tmux_line(session, "if True: A[1, 2] = 7");
	tmux_keys(session, "Enter");	/* ends the block */
	char *s = tmux_see(session, "\n 1 0 0 7\n");
	cr_assert(strstr(s, "A  (2\u00d73, float32)") && strstr(s, "\n 0 0 0 0\n"), "%s", s);
	free(s);
	tmux_line(session, "A = torch.ones(2, 3)");
	s = tmux_see(session, "\n 1 1 1 1\n");
	cr_assert(strstr(s, "\n 0 1 1 1\n"), "%s", s);
	free(s);
}

/* ---- :show EXPR loops ------------------------------------------------------------------ */

static void loops_animate(int w, int h)
{
	start(w, h);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "torch.manual_seed(0); Q = torch.randn(4, 3); K = torch.randn(4, 3)");
	tmux_line(session, ":show Q @ K.T loops");
	/* it runs at once: the count moves by itself to the end, the lesson's
	 * loop code and the matrix being filled beside the SIMD result */
	const char *moving[] = { "for-loops: ", "s += Q[i, p] * K.T[p, j]", "vectorised", NULL };
	free(tmux_wait_moving(session, moving));
	const char *end[] = { "for-loops: 48 of 48", "c (4\u00d74)", "loops and SIMD agree", NULL };
	char *s = tmux_see_all(session, end);
	cr_assert(strstr(s, "Q @ K.T  (4\u00d74, float32)"), "%s", s);
	free(s);
	/* with the keys: r from the start again, s one iteration, e the end */
	tmux_keys(session, "Tab");
	free(tmux_see(session, "(Tab: back to the line)"));
	tmux_keys(session, "r s");
	s = tmux_see(session, "for-loops: 1 of 48");
	cr_assert(strstr(s, "s += Q[0, 0]"), "%s", s);
	free(s);
	tmux_keys(session, "s s");
	free(tmux_see(session, "for-loops: 3 of 48"));
	tmux_keys(session, "e");
	free(tmux_see(session, "for-loops: 48 of 48"));
}

Test(prompt_view, show_loops_should_animate_at_80x24, .fini = finish, .timeout = 60)
{
	loops_animate(80, 24);
}

Test(prompt_view, show_loops_should_animate_at_120x40, .fini = finish, .timeout = 60)
{
	loops_animate(120, 40);
}

Test(prompt_view, ctrl_c_should_stop_the_animation_and_keep_the_line, .fini = finish, .timeout = 60)
{
	start(120, 40);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "torch.manual_seed(1); Q = torch.randn(16, 8); K = torch.randn(16, 8)");
	tmux_line(session, ":show Q @ K.T loops");
	const char *moving[] = { "for-loops: ", " of 2048", NULL };
	free(tmux_wait_moving(session, moving));
	tmux_type(session, "Q.sum");
	/* read before the Ctrl-C: the terminal drops input not yet read on one */
	const char *typed[] = { ">>> Q.sum", NULL };
	free(tmux_wait_moving(session, typed));
	tmux_keys(session, "C-c");
	/* a frame that holds still: the count stopped */
	char *s = tmux_see(session, "Ctrl-C: the animation stopped.");
	cr_assert(strstr(s, ">>> Q.sum"), "the line should stay: %s", s);
	cr_assert(!strstr(s, "for-loops: 2048 of 2048"), "%s", s);
	free(s);
}
