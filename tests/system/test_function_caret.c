/* test_function_caret.c: an error raised inside a function shows, under its
 * traceback, the function's line that raised it with a caret under the
 * column, in qkv repl (from a pipe and on a terminal, tmux) and in qkv eval
 * (a file, standard input, -e statements), by the code that puts the caret
 * under a statement's own mistake (cli/caret.c). A line is shown only from
 * the one source that defines the function there: a file's lines and the
 * -e statements' (or a :load's and the typed ones) are numbered alike.
 * The full screen's prompt shows the same line under the error, cut to the
 * screen around the caret (view/errline.c), at 80x24 and 120x40. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the error of f, raised on its line 2, column 16 */
static const char f_def[] = "def f(x):\n"
			    "    return x + undefined_name\n";
static const char f_caret[] = "error: name 'undefined_name' is not defined\n"
			      "  line 2, in f\n"
			      "    return x + undefined_name\n"
			      "               ^\n";

static char *repl_err(const char *input)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	run_qkv(argv, input, NULL, &out, &err);
	free(out);
	return err;
}

Test(function_caret, repl_should_show_the_functions_line_and_a_caret)
{
	char input[256];
	snprintf(input, sizeof input, "%s\nf(1)\n", f_def);
	char *err = repl_err(input);
	cr_expect_str_eq(err, f_caret);
	free(err);
}

/* a method, in an if, two calls deep, and a lambda; wide characters before
 * the column take two columns each */
Test(function_caret, repl_should_show_the_line_of_the_innermost_call)
{
	char *err = repl_err("class A:\n"
			     "    def __init__(self):\n"
			     "        self.v = 4\n"
			     "    def g(self):\n"
			     "        if self.v:\n"
			     "            return self.v / 0\n"
			     "\n"
			     "def outer():\n"
			     "    return A().g()\n"
			     "\n"
			     "outer()\n"
			     "h = lambda t: '\u65e5\u672c' + t + nope\n"
			     "h('x')\n");
	cr_expect(strstr(err, "error: ZeroDivisionError: division by zero\n"
			      "  line 9, in outer\n"
			      "  line 6, in g\n"
			      "    return self.v / 0\n"
			      "                  ^\n"), "%s", err);
	cr_expect(strstr(err, "error: name 'nope' is not defined\n"
			      "  line 12, in <lambda>\n"
			      "    h = lambda t: '\u65e5\u672c' + t + nope\n"
			      "                               ^\n"), "%s", err);	/* 日本 take 4 */
	free(err);
}

/* a function :load defined and one typed, on lines numbered alike: the
 * line shown is the one of the source that defines the function there */
Test(function_caret, repl_should_take_the_line_from_the_source_that_defines_the_function)
{
	char path[] = "/tmp/qkv-fcaret-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	const char code[] = "def g(x):\n    return x - nope\n";
	cr_assert_eq(write(fd, code, sizeof code - 1), (ssize_t)(sizeof code - 1));
	close(fd);
	char input[512];
	/* lines 1-2 typed define f, lines 1-2 of the file g */
	snprintf(input, sizeof input, "%s\n:load %s\ng(1)\nf(1)\n", f_def, path);
	char *err = repl_err(input);
	cr_expect(strstr(err, "error: name 'nope' is not defined\n  line 2, in g\n    return x - nope\n"
			      "               ^\n"), "%s", err);
	cr_expect(strstr(err, f_caret), "%s", err);
	free(err);
	/* both define g at line 2: which one raised it, nothing tells: no line */
	snprintf(input, sizeof input, "def g(x):\n    return x * 2 + nope\n\n:load %s\ng(1)\n", path);
	err = repl_err(input);
	cr_expect(strstr(err, "error: name 'nope' is not defined\n  line 2, in g\n") &&
		  !strstr(err, "    return x"), "%s", err);
	free(err);
	unlink(path);
}

Test(function_caret, eval_should_show_the_functions_line_under_its_traceback)
{
	char path[] = "/tmp/qkv-fcaret-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, f_def, sizeof f_def - 1), (ssize_t)(sizeof f_def - 1));
	cr_assert_eq(write(fd, "\nf(1)\n", 6), 6);
	close(fd);
	const char *argv[] = { "qkv", "eval", path, NULL };
	char *out, *err, want[512];
	cr_expect_eq(run_qkv(argv, NULL, NULL, &out, &err), 2);
	snprintf(want, sizeof want, "qkv: %s: line 2, col 16: %s", path, f_caret + strlen("error: "));
	cr_expect_str_eq(err, want);
	free(out);
	free(err);
	/* g of -e (its line 1) called from the file, whose line 1 is f's def:
	 * the line is -e's */
	const char *argv2[] = { "qkv", "eval", "-e", "def g(x): return x / 0", "-e", "y = 1", path, NULL };
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("y = 2\ng(y)\n", f);
	fclose(f);
	cr_expect_eq(run_qkv(argv2, NULL, NULL, &out, &err), 2);
	cr_expect(strstr(err, "  line 1, in g\n    def g(x): return x / 0\n                       ^\n"), "%s", err);
	free(out);
	free(err);
	unlink(path);
	/* standard input after -e statements */
	const char *argv3[] = { "qkv", "eval", "-e", "a = 1", "-", NULL };
	cr_expect_eq(run_qkv(argv3, "def k(x):\n    return x[5]\nk([1])\n", NULL, &out, &err), 2);
	cr_expect(strstr(err, "  line 3, in k\n    return x[5]\n             ^\n"), "%s", err);
	free(out);
	free(err);
}

/* on a terminal: the same lines under the call */
Test(function_caret, repl_on_a_terminal_should_show_the_functions_line)
{
	char state[64];
	snprintf(state, sizeof state, "/tmp/qkv-fcaret-state-%d", (int)getpid());
	const char *session = tmux_start_qkv(100, 30, state, NULL, "repl", "sleep 30");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "def f(x):");
	free(tmux_see(session, ">>> def f(x):\n..."));
	tmux_line(session, "return x + undefined_name");
	free(tmux_see(session, "undefined_name\n..."));
	tmux_keys(session, "Enter");
	free(tmux_see(session, "...\n>>>"));
	tmux_line(session, "f(1)");
	char *s = tmux_see(session, "               ^");
	cr_expect(strstr(s, ">>> f(1)\n" "error: name 'undefined_name' is not defined\n  line 2, in f\n"
			    "    return x + undefined_name\n               ^\n>>>"), "%s", s);
	free(s);
	tmux_private_server_end();
	dir_remove(state);
}

/* from a pipe, a ':' command in column 0 after a block ends the block, as
 * a statement there does (it was read as a line of the block: "unexpected
 * ':'") */
Test(function_caret, a_command_after_a_block_in_a_pipe_should_end_the_block)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	cr_expect_eq(run_qkv(argv, "def f(x):\n    return x + 1\n\n:ls\nf(2)\n", NULL, &out, &err), 0, "%s", err);
	cr_expect(strstr(out, "f                function") && strstr(out, "\n3\n"), "%s", out);
	cr_expect_str_empty(err);
	free(out);
	free(err);
}

/* ---- the full screen's prompt ---------------------------------------------------------- */

/* In a lesson's prompt (':'), 80x24: f typed as a block, g calling it on
 * a line, then g(1): under the traceback, f's line and the caret under
 * the name, as qkv repl shows them (the statements there are numbered
 * from 1 each, as Python's REPL numbers them). */
Test(function_caret, the_lessons_prompt_should_show_the_functions_line_of_a_nested_call)
{
	char state[64];
	snprintf(state, sizeof state, "/tmp/qkv-fcaret-state-%d", (int)getpid());
	dir_remove(state);
	const char *session = tmux_start_qkv(80, 24, state, NULL, "1", "sleep 30");
	free(tmux_see(session, "step 1/"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "def f(x):");
	free(tmux_see(session, ">>> def f(x):"));
	tmux_line(session, "return x + undefined_name");
	free(tmux_see(session, "...     return x + undefined_name"));
	tmux_keys(session, "Enter");
	free(tmux_see(session, "\n ...     return x + undefined_name\n"));
	tmux_line(session, "def g(y): return 2 * f(y)");
	free(tmux_see(session, ">>> def g(y): return 2 * f(y)"));
	tmux_line(session, "g(1)");
	char *s = tmux_see(session, "    return x + undefined_name\n");
	cr_expect(strstr(s, "\n name 'undefined_name' is not defined\n"
			    "   line 1, in g\n"
			    "   line 2, in f\n"
			    "     return x + undefined_name\n"
			    "                ^\n"
			    ">>> g(1)"), "%s", s);
	free(s);
	/* :show of a call: the same */
	tmux_keys(session, "C-u");
	tmux_line(session, ":show g(2)");
	s = tmux_see(session, "   line 2, in f\n     return x + undefined_name\n                ^\n>>> :show g(2)");
	free(s);
	/* an error with no function of the prompt's: no line, as before */
	tmux_keys(session, "C-u");
	tmux_line(session, "1 / 0");
	s = tmux_see(session, "division by zero");
	cr_expect(!strstr(s, "return x"), "%s", s);
	free(s);
	tmux_private_server_end();
	dir_remove(state);
}

/* A function of the lesson's own (lesson 3, step 7, the document's
 * scaled_dot_product_attention) called at its prompt on the 2-D Q, K, V, as
 * a student might: under the error, its place named as a notebook names a
 * cell's (the step, the line in its code), the function's line and the
 * caret (the steps' lines are numbered lesson-wide, so the line is the
 * lesson's; it was not shown); called from a function typed at the prompt,
 * that one's line as before. */
Test(function_caret, the_lessons_prompt_should_show_the_line_of_a_function_of_the_lesson)
{
	char state[64];
	snprintf(state, sizeof state, "/tmp/qkv-fcaret-state-%d", (int)getpid());
	dir_remove(state);
	const char *session = tmux_start_qkv(100, 30, state, NULL, "3 --step 7", "sleep 30");
	free(tmux_see(session, "step 7/"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "scaled_dot_product_attention(Q, K, V)");
	char *s = tmux_see(session, "sqrt(dim_k)\n");
	cr_expect(strstr(s, "\n IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)\n"
			    "   step 7, line 3, in scaled_dot_product_attention\n"
			    "     scores = torch.bmm(query, key.transpose(1, 2)) / sqrt(dim_k)\n"
			    "                                                ^\n"
			    ">>> scaled_dot_product_attention(Q, K, V)"),
		  "%s", s);
	free(s);
	tmux_keys(session, "C-u");
	tmux_line(session, "def g(x): return scaled_dot_product_attention(x, x, x)");
	free(tmux_see(session, ">>> def g(x): return scaled_dot_product_attention(x, x, x)\n"));
	tmux_line(session, "g(Q)");
	s = tmux_see(session, "   line 1, in g\n");
	cr_expect(strstr(s, "   line 1, in g\n   step 7, line 3, in scaled_dot_product_attention\n"
			    "     scores = torch.bmm"), "%s", s);
	free(s);
	tmux_private_server_end();
	dir_remove(state);
}

/* qkv --repl, 120x40 and 80x24: a line wider than the screen is cut around
 * the caret, "…" where it goes on; a def typed later replaces an earlier
 * one of the same name (its line is the one shown) */
Test(function_caret, the_full_screen_should_cut_a_long_line_around_the_caret)
{
	char state[64];
	snprintf(state, sizeof state, "/tmp/qkv-fcaret-state-%d", (int)getpid());
	dir_remove(state);
	static const int size[][2] = { { 120, 40 }, { 80, 24 } };
	for (int k = 0; k < 2; k++) {
		const char *session = tmux_start_qkv(size[k][0], size[k][1], state, NULL, "--repl", "sleep 30");
		free(tmux_see(session, ">>>"));
		tmux_paste(session, "def h(x):\n    y = x * 2\n    return y + "
				    "10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + "
				    "25 + 26 + 27 + 28 + 29 + 30 + 31 + 32 + 33 + 34 + 35 + 36 + 37 + 38 + 39 + "
				    "nope + 40 + 41 + 42 + 43 + 44 + 45 + 46 + 47 + 48 + 49 + 50 + 51 + 52 + 53 + "
				    "54 + 55 + 56 + 57 + 58 + 59 + 60 + 61 + 62 + 63 + 64 + 65 + 66 + 67 + 68 + 69\n\n");
		free(tmux_see(session, "...     return y + 10"));
		tmux_line(session, "h(1)");
		char *s = tmux_see(session, "\n   line 3, in h\n");
		/* the caret under "nope", the end of the line cut off, its start too */
		const char *row = strstr(s, "   line 3, in h\n     \u2026");
		cr_assert(row, "%s", s);
		row = strchr(row, '\n') + 1;
		const char *caret = strchr(row, '\n') + 1;
		int at = screen_column(row, "nope + 40");
		cr_expect(at > 5 && screen_column(caret, "^") == at, "%s", s);
		cr_expect(strstr(row, "\u2026\n") && !strstr(row, "69\n"), "%s", s);
		free(s);
		/* a def of h typed after it: its line 2 is shown, not the first's */
		tmux_keys(session, "C-u");
		tmux_paste(session, "def h(x):\n    return x - never\n\n");
		free(tmux_see(session, "...     return x - never"));
		tmux_line(session, "h(1)");
		s = tmux_see(session, "\n   line 2, in h\n");
		cr_expect(strstr(s, "\n   line 2, in h\n     return x - never\n                ^\n"), "%s", s);
		free(s);
		tmux_private_server_end();
	}
	dir_remove(state);
}
