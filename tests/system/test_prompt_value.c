/* test_prompt_value.c: what the full screen's prompt shows for a line, in a
 * real terminal (tmux). A line whose value is neither a tensor nor a number
 * (`X.shape`, a list, a string, type(X)) shows that value as text under its
 * name, never an older tensor's heatmap titled after it; a line that makes
 * no value (print, def) leaves the view and its title as they were. And
 * :load of a file whose function raises shows, under the traceback, the
 * function's line with the caret under its column (as qkv eval does), for
 * a file of statements and for a lesson, and so does qkv repl's :load. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];
static char file[64];

static void start(int w, int h, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-pvalue-state");
	session = tmux_start_qkv(w, h, state, NULL, args, "sleep 30");
}

/* The lesson's prompt: lesson 1 at its first step, ':' */
static void start_lesson(int w, int h)
{
	start(w, h, "1");
	free(tmux_see(session, "step 1/"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
	if (file[0])
		unlink(file);
	file[0] = 0;
}

/* A file of text (name ends in suffix) for :load, its path in file. */
static void write_file(const char *suffix, const char *text)
{
	snprintf(file, sizeof file, "/tmp/qkv-pvalue-XXXXXX%s", suffix);
	int fd = mkstemps(file, (int)strlen(suffix));
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* On screen s, the function's line `row` (as drawn, after its margin and
 * indentation) and under it the caret, in the column of word. */
static void assert_caret_under(const char *s, const char *row, const char *word)
{
	const char *at = strstr(s, row);
	cr_assert(at && strchr(at, '\n'), "%s", s);
	cr_assert_eq(screen_column(strchr(at, '\n') + 1, "^"), screen_column(at, word), "%s", s);
}

/* ---- a value that is not a tensor ------------------------------------------------------ */

static void shape_as_text(int w, int h)
{
	start_lesson(w, h);
	tmux_line(session, "X = torch.ones(2, 3)");
	free(tmux_see(session, "X  (2\u00d73, float32)"));
	tmux_line(session, "X.shape");
	/* the printed value, then the view: its name over its text */
	char *s = tmux_see(session, "\n torch.Size([2, 3])\n\n X.shape\n torch.Size([2, 3])\n");
	cr_assert(!strstr(s, "X.shape  ("), "no heatmap titled X.shape: %s", s);
	cr_assert(!strstr(s, "X.shape[0, 0]") && !strstr(s, "X[0, 0]"), "no inspector of X: %s", s);
	cr_assert(!strstr(s, "\n 0 1 1 1\n"), "no cells of X: %s", s);
	free(s);
	/* a list, a string, a type: each its text under its name */
	tmux_line(session, "L = [len(X), \"a\"]");	/* (tmux_type quotes with '') */
	free(tmux_see(session, "\n L\n [2, 'a']\n"));
	tmux_line(session, "type(X)");
	free(tmux_see(session, "\n type(X)\n <class 'torch.Tensor'>\n"));
	/* a line that makes no value leaves the view as it was, under its name */
	tmux_line(session, "Y = X * 2");
	free(tmux_see(session, "Y  (2\u00d73, float32)"));
	tmux_line(session, "print(Y.sum())");
	s = tmux_see(session, "\n tensor(12.)\n");
	cr_assert(strstr(s, "Y  (2\u00d73, float32)") && strstr(s, "\n 0 2 2 2\n"), "%s", s);
	cr_assert(!strstr(s, "print(Y.sum())  ("), "not titled by a line that made nothing: %s", s);
	free(s);
}

Test(prompt_value, a_shape_should_show_as_text_not_under_the_last_heatmap_at_80x24, .fini = finish)
{
	shape_as_text(80, 24);
}

Test(prompt_value, a_shape_should_show_as_text_not_under_the_last_heatmap_at_120x40, .fini = finish)
{
	shape_as_text(120, 40);
}

/* A pasted cell: the value its last statement that made one made, by that
 * statement's name (its printing line after it names nothing). */
Test(prompt_value, a_cell_should_show_the_value_of_its_last_statement_that_made_one, .fini = finish)
{
	start(120, 40, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_paste(session, "A = torch.zeros(2, 2)\nB = A + 1\nprint(\"done\")\n");
	char *s = tmux_see(session, "B  (2\u00d72, float32)");
	cr_assert(strstr(s, "\n done\n"), "%s", s);
	cr_assert(!strstr(s, "print(\"done\")  ("), "%s", s);
	free(s);
}

/* ---- :load and an error inside a function ------------------------------------------------ */

static void load_function_error(int w, int h)
{
	write_file(".qkv", "import torch\n"
			   "def f(a):\n"
			   "    b = a + 1\n"
			   "    return b.nope()\n"
			   "\n"
			   "y = f(torch.ones(2))\n");
	start_lesson(w, h);
	char cmd[128], place[128];
	snprintf(cmd, sizeof cmd, ":load %s", file);
	snprintf(place, sizeof place, "%s:4:14: ", file);
	tmux_line(session, cmd);
	/* the place, the traceback, the function's line and the caret under "nope" */
	const char *want[] = { place, "\n   line 4, in f\n     return b.nope()\n", NULL };
	char *s = tmux_see_all(session, want);
	assert_caret_under(s, "     return b.nope()\n", "nope");
	free(s);
	/* it changed nothing: f is not defined */
	tmux_keys(session, "C-u");
	tmux_line(session, "f");
	free(tmux_see(session, "name 'f' is not defined"));
}

Test(prompt_value, load_should_show_the_line_of_a_function_that_raised_at_80x24, .fini = finish)
{
	load_function_error(80, 24);
}

Test(prompt_value, load_should_show_the_line_of_a_function_that_raised_at_120x40, .fini = finish)
{
	load_function_error(120, 40);
}

/* A lesson loaded: the statement that called the function and the
 * function's line, each at its place in the JSON file, named as qkv check
 * names them, and under them the function's line from its code with the
 * caret in that code's column (not the JSON's). */
Test(prompt_value, load_of_a_lesson_should_show_the_line_of_its_function_that_raised, .fini = finish)
{
	write_file(".json", "{\"format\": 1, \"id\": \"l\", \"title\": \"t\", \"source\": \"s\", \"summary\": \"s\", \"steps\": [\n"
			    "  {\"title\": \"a\", \"text\": \"x\", \"code\": [\"def g(a):\", \"    return a.nope\"]},\n"
			    "  {\"title\": \"b\", \"text\": \"x\", \"code\": [\"y = g(torch.ones(2))\"]}]}\n");
	start(120, 40, "--repl");
	free(tmux_see(session, ">>>"));
	char cmd[128], call[128], fn[128];
	snprintf(cmd, sizeof cmd, ":load %s", file);
	snprintf(call, sizeof call, "%s:3:41: steps[1].code: ", file);
	snprintf(fn, sizeof fn, "%s:2:67: steps[0].code[1], in g\n     return a.nope\n", file);
	tmux_line(session, cmd);
	const char *want[] = { call, fn, NULL };
	char *s = tmux_see_all(session, want);
	assert_caret_under(s, "     return a.nope\n", "nope");
	free(s);
}

/* A function of the file called from a line typed after it was loaded:
 * its line, from the code :load ran, as for a function typed. */
Test(prompt_value, a_function_loaded_should_show_its_line_when_a_typed_call_raises, .fini = finish)
{
	write_file(".qkv", "def h(a):\n    return a / nope\n");
	start(100, 30, "--repl");
	free(tmux_see(session, ">>>"));
	char cmd[128];
	snprintf(cmd, sizeof cmd, ":load %s", file);
	tmux_line(session, cmd);
	free(tmux_see(session, "Loaded "));
	tmux_line(session, "h(1)");
	char *s = tmux_see(session, "\n   line 2, in h\n     return a / nope\n");
	assert_caret_under(s, "     return a / nope\n", "nope");
	free(s);
}

/* qkv repl's :load too: under the traceback, the function's line and the
 * caret, as for a statement typed (cli/caret.c). */
Test(prompt_value, the_plain_repls_load_should_show_the_line_of_a_function_that_raised, .fini = finish)
{
	write_file(".qkv", "def f(a):\n    b = a + 1\n    return b.nope()\n\ny = f(torch.ones(2))\n");
	char input[128], want[512];
	snprintf(input, sizeof input, ":load %s\n", file);
	snprintf(want, sizeof want, "error: %s:3:14: 'Tensor' object has no attribute 'nope' in qkv\n"
		 "  line 3, in f\n"
		 "    return b.nope()\n"
		 "             ^\n", file);
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	run_qkv(argv, input, NULL, &out, &err);
	cr_expect(strstr(err, want), "%s", err);
	free(out);
	free(err);
}
