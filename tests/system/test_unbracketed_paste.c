/* test_unbracketed_paste.c: a nested block pasted where the terminal does
 * not bracket the paste (tmux send-keys of the text with its newlines, in
 * one go) runs as written, in a real terminal (tmux): the line after a ':'
 * is offered an indentation only when nothing more is waiting, so the
 * pasted lines keep their own and it is not doubled; in the full screen
 * (qkv --repl at 80x24 without colour, at 120x40) and in qkv repl. Typed
 * line by line, the next line still starts indented, and Backspace there
 * goes back a level. */
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
	snprintf(state, sizeof state, "/tmp/qkv-paste-%d", (int)getpid());
	dir_remove(state);
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
	free(tmux_see(session, ">>>"));
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

/* a def with an if in it and a line after the if, then a blank line */
static const char cell[] = "def f(x):\n"
			   "    if x > 0:\n"
			   "        return 1\n"
			   "    return -1\n"
			   "\n";

/* The cell arrives in one burst, then a line that calls it: with the
 * indentation doubled, return -1 was inside the if and f(-3) gave None. */
static void paste_runs_as_written(int w, int h, const char *env, const char *args)
{
	start(w, h, env, args);
	tmux_type(session, cell);
	tmux_line(session, "print(f(-3), f(5))");
	char *s = tmux_see(session, "-1 1");
	cr_assert(!strstr(s, "None"), "%s", s);
	free(s);
	finish();
}

Test(unbracketed_paste, a_nested_block_should_run_as_written_in_the_full_screen_at_80x24, .fini = finish)
{
	paste_runs_as_written(80, 24, "NO_COLOR=1", "--repl");
}

Test(unbracketed_paste, a_nested_block_should_run_as_written_in_the_full_screen_at_120x40, .fini = finish)
{
	paste_runs_as_written(120, 40, NULL, "--repl");
}

Test(unbracketed_paste, a_nested_block_should_run_as_written_in_qkv_repl, .fini = finish)
{
	paste_runs_as_written(100, 30, NULL, "repl");
	/* qkv repl shows the lines as they came: 4 and 8 spaces */
	start(100, 30, NULL, "repl");
	tmux_type(session, cell);
	char *s = tmux_see(session, "...     return -1\n...");
	cr_assert(strstr(s, ">>> def f(x):\n...     if x > 0:\n...         return 1\n...     return -1\n"), "%s", s);
	free(s);
}

/* a person typing the same lines, a line at a time (each once the line
 * before it has been taken), gets the indentation offered after each ':'
 * and types none */
Test(unbracketed_paste, lines_typed_one_by_one_should_still_start_indented, .fini = finish)
{
	start(100, 30, NULL, "repl");
	static const char *const lines[] = { "def f(x):", "if x > 0:", "return 1", NULL };
	static const char *const shown[] = { ">>> def f(x):\n...", "...     if x > 0:\n...", "...         return 1\n..." };
	for (int i = 0; lines[i]; i++) {
		tmux_line(session, lines[i]);
		free(tmux_see(session, shown[i]));
	}
	tmux_line(session, "return -1");	/* after a return, a level less */
	free(tmux_see(session, "...     return -1\n..."));
	tmux_keys(session, "Enter");
	free(tmux_see(session, "\n>>>"));
	tmux_line(session, "print(f(-3), f(5))");
	free(tmux_see(session, "-1 1"));
}

/* Backspace in the indentation offered goes back a level (4 columns), as
 * :help blocks says, in both prompts: readline had bound the terminal's
 * erase key to its one-character rubout over it */
static void backspace_dedents(const char *args)
{
	start(100, 30, NULL, args);
	tmux_line(session, "def f(x):");
	free(tmux_see(session, "def f(x):\n..."));
	tmux_line(session, "if x > 0:");
	free(tmux_see(session, "...     if x > 0:\n..."));
	tmux_keys(session, "BSpace");
	tmux_type(session, "y = x");
	char *s = tmux_see(session, "y = x");
	cr_assert(strstr(s, "...     if x > 0:\n...     y = x"), "%s: Backspace did not go back 4 columns:\n%s", args, s);
	free(s);
	finish();
}

Test(unbracketed_paste, backspace_in_the_offered_indentation_should_go_back_a_level, .fini = finish)
{
	backspace_dedents("repl");
	backspace_dedents("--repl");
}
