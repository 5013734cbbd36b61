/* test_blocks_prompt.c: blocks where a person types code, as issue 13 asks:
 * in the full screen (tmux, at 80x24 and 120x40, with colour and with
 * NO_COLOR) a line ending in ':' or an open bracket goes on after "... ",
 * indented, until an empty line runs it; Tab indents at the start of a
 * line; a pasted cell runs statement by statement and the statement that
 * fails goes back in the input with a caret on its line; Up brings a block
 * back whole, across a restart; Ctrl-C drops a block being typed. qkv repl
 * from a pipe runs a cell's blocks and loops, and puts a caret on the
 * failing line of a block. Skips the tmux tests without tmux. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[128];

/* qkv ARGS full screen in a w x h terminal, with env (e.g. NO_COLOR=1)
 * and a state directory of its own (kept by a restart). */
static void start_at(int w, int h, const char *env, const char *args)
{
	tmux_require();
	if (!state[0]) {
		snprintf(state, sizeof state, "/tmp/qkv-blocks-%d", (int)getpid());
		dir_remove(state);
	}
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	if (state[0])
		dir_remove(state);
	state[0] = 0;
}

/* Types text and Enter; the next line then starts at column x (the
 * prompt's 4 columns and the indentation offered). */
static void line_to(const char *text, int x)
{
	tmux_type(session, text);
	free(tmux_see(session, text));	/* the cursor after it, not yet at x */
	tmux_keys(session, "Enter");
	cr_assert_eq(tmux_cursor_x_at(session, x), x, "after '%s' the line starts at column %d:\n%s", text,
		     tmux_cursor_x(session),
		     tmux_screen(session, false));
}

/* ---- the full screen -------------------------------------------------------------- */

/* Brackets over two lines, Tab at the start of a line, the block shown as
 * typed above its output; then a syntax error on a block's second line:
 * the caret under its column on that line, and Ctrl-C drops a block. */
static void blocks_at(int w, int h, const char *env)
{
	start_at(w, h, env, "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_line(session, "x = [1,");
	char *s = tmux_see(session, "\n...");
	cr_assert(strstr(s, "\n>>> x = [1,\n..."), "the bracket goes on after ...:\n%s", s);
	free(s);
	tmux_keys(session, "Tab");	/* at the start of the line: 4 spaces */
	cr_assert_eq(tmux_cursor_x_at(session, 8), 8, "Tab did not indent");
	tmux_line(session, "2]");
	s = tmux_see(session, "...     2]");
	cr_assert(strstr(s, " >>> x = [1,\n ...     2]\n"), "the block as typed above its output:\n%s", s);
	free(s);
	tmux_line(session, "x");
	free(tmux_see(session, "[1, 2]"));

	/* a loop: 4 spaces after the ':', the level kept, an empty line runs it;
	 * the block is shown as typed above what it printed */
	line_to("for i in range(3):", 8);
	line_to("print(i * i)", 8);
	tmux_keys(session, "Enter");
	s = tmux_see(session, " 4\n");
	cr_assert(strstr(s, " >>> for i in range(3):\n ...     print(i * i)\n 0\n 1\n 4\n"), "%s", s);
	free(s);
	/* after return the next line goes back a level */
	line_to("def half(v):", 8);
	line_to("return v / 2", 4);
	tmux_keys(session, "Enter");
	tmux_line(session, "half(x[1])");
	free(tmux_see(session, " 1.0\n"));

	/* a block whose second line fails to parse: the caret under that line's
	 * column */
	line_to("if x:", 8);
	line_to("y = (1 2)", 8);
	tmux_keys(session, "Enter");	/* the line of only indentation ends the block */
	s = tmux_see(session, "^");
	cr_assert(strstr(s, "\n>>> if x:\n...     y = (1 2)\n               ^ expected"), "caret not under the 2:\n%s", s);
	cr_assert(!strstr(s, " >>> if x:"), "the failing block is echoed above:\n%s", s);
	free(s);
	tmux_keys(session, "C-c");
	free(tmux_see_gone(session, "y = (1 2)"));

	/* Ctrl-C drops a block being typed */
	tmux_line(session, "for i in range(3):");
	free(tmux_see(session, ">>> for i in range(3):"));
	tmux_keys(session, "C-c");
	s = tmux_see(session, "Ctrl-C: block cleared.");
	cr_assert(!strstr(s, ">>> for i"), "the block stayed:\n%s", s);
	free(s);
	tmux_line(session, ":quit");
}

Test(blocks_prompt, brackets_and_blocks_should_go_on_after_dots_at_80x24, .fini = finish)
{
	blocks_at(80, 24, "");
}

Test(blocks_prompt, brackets_and_blocks_should_go_on_after_dots_at_120x40_without_colour, .fini = finish)
{
	blocks_at(120, 40, "NO_COLOR=1");
}

/* A line that ends after an operator is a syntax error, as in CPython's
 * REPL: reported at once with its caret, never continued after "... ";
 * inside brackets the line still goes on. */
Test(blocks_prompt, a_line_ending_after_an_operator_should_fail_at_once, .fini = finish)
{
	start_at(80, 24, "", "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_line(session, "x = 1 -");
	char *s = tmux_see(session, "the input ends after '-'");
	cr_assert(strstr(s, "\n          ^ the input ends after '-'\n"), "no caret under the '-':\n%s", s);
	cr_assert(strstr(s, "\n>>> x = 1 -\n"), "the line is not back in the input:\n%s", s);
	cr_assert(!strstr(s, "\n..."), "the line went on after ...:\n%s", s);
	free(s);
	tmux_keys(session, "C-c");
	free(tmux_see_gone(session, "x = 1 -"));
	tmux_line(session, "x = (1 -");
	free(tmux_see(session, "\n..."));
	tmux_line(session, "5)");
	tmux_line(session, "x");
	free(tmux_see(session, " -4\n"));
	tmux_line(session, ":quit");
}

/* A pasted cell runs statement by statement, each echoed; the one that
 * fails goes back in the input with the lines after it, and what ran
 * before it stays done. */
/* The cursor stands after the characters typed, not after their bytes:
 * "héllo→" is 7 characters in 10 bytes. */
Test(blocks_prompt, the_cursor_should_count_characters_not_bytes, .fini = finish)
{
	start_at(80, 24, "", "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_type(session, "s = \"h\xc3\xa9llo\xe2\x86\x92\"");
	free(tmux_see(session, "llo"));
	cr_assert_eq(tmux_cursor_x_at(session, 16), 16, "after '>>> s = \"héllo→\"' the cursor is at column %d:\n%s",
		     tmux_cursor_x(session),
		     tmux_screen(session, false));
	tmux_keys(session, "Left");
	tmux_keys(session, "Left");
	cr_assert_eq(tmux_cursor_x_at(session, 14), 14, "two Lefts back the cursor is at column %d",
		     tmux_cursor_x(session));
	tmux_keys(session, "C-c");
	tmux_line(session, ":quit");
}

Test(blocks_prompt, a_pasted_cell_should_run_statement_by_statement, .fini = finish)
{
	start_at(80, 24, "", "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_paste(session, "a = 3\nb = [a,\n 4]\nb\nzz\nc = 1");
	char *s = tmux_see(session, "not defined");
	cr_assert(strstr(s, " >>> a = 3\n >>> b = [a,\n ...  4]\n >>> b\n [3, 4]\n"), "%s", s);
	cr_assert(strstr(s, ">>> zz\n    ^ name 'zz' is not defined\n... c = 1"), "%s", s);
	free(s);
	tmux_keys(session, "C-c");
	free(tmux_see_gone(session, "... c = 1"));
	tmux_line(session, ":ls");
	s = tmux_see(session, "b                list");
	cr_assert(strstr(s, "a                int"), "%s", s);
	cr_assert(!strstr(s, "\nc "), "the statement after the failing one ran:\n%s", s);
	free(s);
	tmux_line(session, ":quit");
}

/* Up brings a block back whole, as several lines in the input, and so it
 * does after a restart (from the history file); Enter runs it again. */
Test(blocks_prompt, up_should_bring_a_block_back_whole_after_a_restart, .fini = finish)
{
	start_at(80, 24, "", "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_line(session, "v = [10,");
	tmux_line(session, "20]");
	tmux_line(session, "v");
	free(tmux_see(session, "[10, 20]"));
	tmux_line(session, ":quit");
	tmux_private_server_end();

	start_at(80, 24, "", "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_keys(session, "Up");	/* :quit */
	tmux_keys(session, "Up");	/* v */
	tmux_keys(session, "Up");
	char *s = tmux_see(session, "... 20]");
	cr_assert(strstr(s, "\n>>> v = [10,\n... 20]"), "%s", s);
	free(s);
	tmux_keys(session, "Enter");
	tmux_line(session, "v");
	free(tmux_see(session, "[10, 20]"));
	tmux_line(session, ":quit");
}

/* A pasted class cell with blank lines in its body runs whole; an error
 * inside a method shows its traceback and the method's line, and the
 * statements after it wait in the input. */
Test(blocks_prompt, a_pasted_class_cell_should_run_and_an_error_in_a_method_name_its_line, .fini = finish)
{
	start_at(80, 24, "", "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_paste(session, "class A:\n    def __init__(self):\n        self.v = 4\n\n    def f(self):\n"
			   "        return self.v / 0\n\na = A()\na.v\na.f()\na.v = 5");
	char *s = tmux_see(session, "division by zero");
	cr_assert(strstr(s, " >>> a = A()\n >>> a.v\n 4\n"), "%s", s);
	/* under the traceback, the method's line with a caret under the '/' */
	cr_assert(strstr(s, "ZeroDivisionError: division by zero\n   line 6, in f\n     return self.v / 0\n"
			    "                   ^\n>>> a.f()\n... a.v = 5"), "%s", s);
	free(s);
	tmux_keys(session, "C-c");
	free(tmux_see_gone(session, "... a.v = 5"));
	tmux_line(session, "print(a.v + 1)");
	free(tmux_see(session, "\n 5\n"));
	tmux_line(session, ":quit");
}

/* ---- qkv repl from a pipe ------------------------------------------------------------ */

/* The example, and a cell as a notebook holds it: a class with
 * blank lines in its body, an if with its else after a comment, loops. */
Test(blocks_prompt, piped_lines_should_run_as_a_cell)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "if 1:\n  print(1)\n", NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_str_eq(out, "1\n");
	free(out);
	free(err);
	rc = run_qkv(argv,
		     "class Acc:\n"
		     "    def __init__(self):\n"
		     "        self.total = 0\n"
		     "\n"
		     "    def add(self, v):\n"
		     "        self.total += v\n"
		     "        return self\n"
		     "\n"
		     "acc = Acc()\n"
		     "for i in range(4):\n"
		     "    if i % 2:\n"
		     "        acc.add(i)\n"
		     "    # the even ones\n"
		     "    else:\n"
		     "        acc.add(10 * i)\n"
		     "acc.total\n"
		     "n = 0\n"
		     "while n < 3:\n"
		     "    n += 1\n"
		     "n\n",
		     NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_str_eq(out, "24\n3\n");
	free(out);
	free(err);
}

/* The error of a block's second line: that line echoed, a caret under its
 * column; the lines after the block run. */
Test(blocks_prompt, a_syntax_error_in_a_piped_block_should_name_its_line)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "a = 1\nif a:\n    b = (1 2)\nc = 3\nc\n", NULL, &out, &err);
	cr_assert_eq(rc, 2);
	cr_assert_str_eq(out, "3\n");
	cr_assert(strstr(err, "        b = (1 2)\n               ^\nerror: "), "%s", err);
	free(out);
	free(err);
}
