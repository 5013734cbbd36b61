/* test_tty.c: qkv repl in a real terminal (tmux), as a person sees it: the
 * prompt, a caret under the typed column, line editing with the arrow keys,
 * the ':' commands; the full screen's :help keys at 80 columns, a
 * statement's continuation lines after "... " on the lesson screen; and the
 * full screen refusing a terminal curses cannot drive (TERM=dumb, a TERM
 * without terminfo, none) without touching it. Skips itself when tmux is
 * missing (make test installs it). */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];	/* XDG_STATE_HOME of the test, its own */

/* qkv ARGS in a w x h terminal. */
static void start_at(int w, int h, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-tty-state");
	session = tmux_start_qkv(w, h, state, "TERM=xterm", args, NULL);
}

static void start(void)
{
	start_at(100, 30, "repl");
}

static void stop(void)
{
	tmux_private_server_end();
	if (state[0])
		dir_remove(state);
	state[0] = 0;
}

Test(tty, repl_should_prompt_and_put_the_caret_under_the_column, .init = start, .fini = stop)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	char *s = tmux_see(session, ">>>");	/* tmux trims the space after it */
	cr_assert(strstr(s, "\n>>>"), "no prompt: %s", s);
	free(s);
	tmux_keys(session, "'X = [1 2; 3 4]' Enter");
	tmux_keys(session, "'torch.softmax(X, dim=-1)' Enter");
	s = tmux_see(session, "0.7311");
	cr_assert(strstr(s, "tensor([[0.2689, 0.7311],"), "%s", s);
	free(s);
	tmux_keys(session, "'X @ torch.ones(3)' Enter");
	s = tmux_see(session, "error:");
	/* the caret sits under the @ of the typed line, after the 4-column prompt */
	cr_assert(strstr(s, ">>> X @ torch.ones(3)\n      ^\nerror: matmul: shapes [2, 2] and [3]"), "%s", s);
	free(s);
	/* up arrow brings back the last line; edit it to multiply by a 2-vector */
	tmux_keys(session, "Up BSpace BSpace '2)' Enter");
	s = tmux_see(session, "tensor([3., 7.])");
	cr_assert(strstr(s, ">>> X @ torch.ones(2)\ntensor([3., 7.])"), "%s", s);
	free(s);
	tmux_keys(session, "'quit()' Enter");
}

/* qkv repl's ':' commands as typed at 80x24: :ls, :help, and an unknown
 * command's caret under the ':' of the line on the screen. */
Test(tty, repl_line_mode_should_run_the_colon_commands, .fini = stop)
{
	start_at(80, 24, "repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_keys(session, "'X = [1 2; 3 4]' Enter ':ls' Enter");
	char *s = tmux_see(session, "[2, 2]");
	cr_assert(strstr(s, ">>> :ls\nX                Tensor     [2, 2]           float32"), "%s", s);
	free(s);
	tmux_keys(session, "':help' Enter");
	s = tmux_see(session, "More: :help");
	cr_assert(strstr(s, ":ls                 the workspace     :reset             empty the workspace"), "%s", s);
	free(s);
	tmux_keys(session, "C-l '  :frobnicate X' Enter");
	s = tmux_see(session, "error:");
	cr_assert(strstr(s, ">>>   :frobnicate X\n      ^\nerror: unknown command ':frobnicate' (:help lists them)"),
		  "%s", s);
	free(s);
	tmux_keys(session, "':help keys' Enter");
	s = tmux_see(session, "drops the line or block typed.");
	cr_assert(strstr(s, "Up/Down walk the lines typed since qkv repl started; Ctrl-R searches them."), "%s", s);
	free(s);
	tmux_keys(session, "':quit' Enter");
}

/* The full screen's :help keys at 80 columns: every line whole (the listing
 * has 78 columns beside its margins). */
Test(tty, the_full_screen_help_keys_should_fit_80_columns, .fini = stop)
{
	start_at(80, 24, "--repl");
	free(tmux_see(session, ":help lists the commands"));
	tmux_keys(session, "':help keys' Enter");
	char *s = tmux_see(session, "typed.");
	const char *lines[] = {
		"Ctrl-K cuts to the end, Ctrl-U to the start, Ctrl-W the word before;\n",
		"Up/Down walk the history (kept in $XDG_STATE_HOME/qkv/history);\n",
		"Esc closes the prompt in a lesson, and clears the line or block typed in\n",
		"qkv --repl; Ctrl-D on an empty line or :quit leaves.\n",
		"Ctrl-C stops a line that runs (nothing of it is kept), else clears the line\n",
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		cr_expect(strstr(s, lines[i]), "cut or missing: %s\n%s", lines[i], s);
	free(s);
	tmux_keys(session, "':quit' Enter");
}

/* Lesson 1 step 5's `values = np.array([[...],` spans five code lines: on
 * the lesson screen the four after the first follow "... ", as Python
 * prompts for them, never ">>> ". The text is scrolled a line at a time
 * until the second line shows (at 80x24 the code may start below the pane). */
static void continuation_at(int w, int h)
{
	start_at(w, h, "1 --step 5");
	char *s = tmux_see(session, "step 5/14");
	for (int i = 0; i < 40 && !strstr(s, "# scaly"); i++) {
		free(s);
		tmux_keys(session, "Down");
		s = tmux_wait_for(session, "step 5/14");
	}
	cr_assert(strstr(s, "...                   [7.5,3.9,4.1,0.2], # scaly"), "%dx%d:\n%s", w, h, s);
	cr_expect(!strstr(s, ">>>                   ["), "%dx%d: a continuation line after >>>:\n%s", w, h, s);
	free(s);
	tmux_keys(session, "q");
}

Test(tty, continuation_lines_should_follow_dots_at_80x24, .fini = stop) { continuation_at(80, 24); }
Test(tty, continuation_lines_should_follow_dots_at_120x40, .fini = stop) { continuation_at(120, 40); }

/* ---- terminals curses cannot drive --------------------------------------------- */

struct refusal {
	const char *env;      /* how TERM is set for the run */
	const char *args;
	const char *why;      /* must appear in the one line on stderr */
	const char *instead;  /* what it says to do */
};

static const struct refusal refusals[] = {
	{ "TERM=dumb", "2", "TERM=dumb cannot move the cursor", "'qkv run --plain 2' for plain text" },
	{ "TERM=qkv-no-such-terminal", "", "TERM=qkv-no-such-terminal has no terminfo entry",
	  "'qkv run --plain LESSON'" },
	{ "-u TERM", "--repl", "TERM is not set", "'qkv repl' to type statements line by line" },
	{ "TERM=", "3 --step 3", "TERM is not set", "'qkv run --plain 3'" },
	{ "TERM=xterm-16color", "5", "TERM=xterm-16color has no terminfo entry", "'qkv run --plain 5'" },
};

/* Runs each refusal in one shell inside tmux, whose output tmux copies to a
 * log (pipe-pane) from before the first run: between a run's BEGIN and END
 * markers the log must hold nothing (no escape sequence, no text: stdout is
 * the terminal), stty -g must be the same after all of them, and each run
 * exits 2 with one line on stderr that says why and what to do. */
Test(tty, a_terminal_curses_cannot_drive_should_be_refused_untouched, .fini = stop)
{
	tmux_require();
	char dir[64], path[160], cmd[4096];
	dir_make_temp(dir, sizeof dir, "qkv-refuse");
	/* xterm-16color only where its terminfo entry is missing (ncurses-term) */
	int n = (int)(sizeof refusals / sizeof *refusals);
	if (system("infocmp xterm-16color >/dev/null 2>&1") == 0)
		n--;
	char sc[4096];
	size_t len = 0;
	len += (size_t)snprintf(sc + len, sizeof sc - len, "stty -g > %s/before\nread go\n", dir);
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(sc + len, sizeof sc - len, "printf 'BEGIN%d\\n'\n"
					"env %s XDG_STATE_HOME=%s/state %s %s 2> %s/err%d\n"
					"echo $? > %s/rc%d\nprintf 'END%d\\n'\n", i, refusals[i].env, dir, qkv_binary(),
					refusals[i].args, dir, i, dir, i, i);
	len += (size_t)snprintf(sc + len, sizeof sc - len, "stty -g > %s/after\nprintf 'ALL-DONE\\n'\nsleep 30\n", dir);
	cr_assert(len < sizeof sc);
	snprintf(path, sizeof path, "%s/script.sh", dir);
	file_put(path, sc, len);
	snprintf(cmd, sizeof cmd, "sh %s", path);
	session = tmux_start(100, 30, cmd);
	snprintf(cmd, sizeof cmd, "tmux pipe-pane -o -t %s 'cat >> %s/log'", session, dir);
	cr_assert_eq(system(cmd), 0, "tmux pipe-pane failed");
	tmux_keys(session, "Enter");
	snprintf(path, sizeof path, "%s/log", dir);
	char *log = file_wait_text(path, "ALL-DONE");
	cr_assert(log, "the runs did not end");
	for (int i = 0; i < n; i++) {
		const struct refusal *r = &refusals[i];
		char quiet[64];
		snprintf(quiet, sizeof quiet, "BEGIN%d\r\nEND%d", i, i);
		cr_expect(strstr(log, quiet), "%s qkv %s wrote to the terminal: %s", r->env, r->args, log);
		snprintf(path, sizeof path, "%s/rc%d", dir, i);
		char *rc = read_text(path);
		cr_expect(rc && strcmp(rc, "2\n") == 0, "%s qkv %s: exit %s", r->env, r->args, rc);
		free(rc);
		snprintf(path, sizeof path, "%s/err%d", dir, i);
		char *err = read_text(path);
		cr_assert(err);
		cr_expect(strncmp(err, "qkv: ", 5) == 0 && strstr(err, r->why) && strstr(err, r->instead) &&
			  strstr(err, "set TERM to a terminal qkv can drive (e.g. TERM=xterm-256color)"),
			  "%s qkv %s: %s", r->env, r->args, err);
		char *nl = strchr(err, '\n');
		cr_expect(nl && nl[1] == 0, "%s qkv %s: not one line: %s", r->env, r->args, err);
		free(err);
	}
	char before[160], after[160];
	snprintf(before, sizeof before, "%s/before", dir);
	snprintf(after, sizeof after, "%s/after", dir);
	char *b = read_text(before), *a = read_text(after);
	cr_assert(a && b);
	cr_expect_str_eq(a, b, "the terminal's modes changed");
	free(a);
	free(b);
	free(log);
	dir_remove(dir);
}

/* qkv repl on a terminal takes a bracket over two lines after "... ", and
 * Ctrl-C drops the statement being typed (KeyboardInterrupt) or stops one
 * that runs (its caret and "interrupted (Ctrl-C)"), never leaving. */
Test(tty, repl_should_continue_after_dots_and_ctrl_c_should_drop_or_stop_without_leaving, .fini = stop)
{
	start_at(80, 24, "repl");
	free(tmux_see(session, "an empty line ends it."));
	tmux_keys(session, "'x = [1,' Enter");
	free(tmux_see(session, "\n..."));	/* tmux trims the space after it */
	tmux_keys(session, "'2]' Enter 'x' Enter");
	char *s = tmux_see(session, "[1, 2]");
	cr_assert(strstr(s, ">>> x = [1,\n... 2]\n>>> x\n[1, 2]\n"), "%s", s);
	free(s);
	/* a block: 4 spaces offered after the ':' (to a line typed once that one
	 * was taken: keys that come with it are the rest of a paste, which
	 * brings its own), an empty line runs it */
	tmux_keys(session, "'for i in range(2):' Enter");
	free(tmux_see(session, "range(2):\n..."));
	tmux_keys(session, "'print(i + 10)' Enter");
	free(tmux_see(session, "...     print(i + 10)\n..."));
	tmux_keys(session, "Enter");
	s = tmux_see(session, "11");
	cr_assert(strstr(s, ">>> for i in range(2):\n...     print(i + 10)\n...\n10\n11\n>>>"), "%s", s);
	free(s);
	/* a pasted cell (readline's bracketed paste) runs on Enter, statement by
	 * statement, until one fails */
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tmux set-buffer -b qkvp -- 'pa = 3\nzz\nprint(pa)\n' && "
		 "tmux paste-buffer -p -d -b qkvp -t %s", session);
	if (system(cmd) != 0) {
		/* shows up in what the screen lacks */
	}
	free(tmux_see(session, "print(pa)"));
	tmux_keys(session, "Enter");
	s = tmux_see(session, "error: name 'zz'");
	cr_assert(strstr(s, "\n    zz\n    ^\nerror: name 'zz' is not defined\n>>>"), "%s", s);
	free(s);
	tmux_keys(session, "'y = (3,' Enter C-c");
	free(tmux_see(session, "KeyboardInterrupt"));
	tmux_keys(session, "'y' Enter");
	s = tmux_see(session, "not defined");
	cr_assert(strstr(s, "KeyboardInterrupt\n>>> y\n    ^\nerror: name 'y' is not defined"), "%s", s);
	free(s);
	tmux_keys(session, "'z = torch.randn(3000, 3000); w = z @ z @ z @ z @ z @ z @ z @ z @ z @ z @ z' Enter");
	pid_t pid = tmux_pane_qkv(session);
	cr_assert(pid > 0 && proc_wait_cpu(pid, proc_cpu_ms(pid) + 300), "qkv did not compute");
	tmux_keys(session, "C-c");
	s = tmux_see(session, "error: interrupted (Ctrl-C)");
	free(s);
	tmux_keys(session, "':ls' Enter");
	s = tmux_see(session, "list");
	cr_assert(strstr(s, "x                list") && !strstr(s, "\nz "), "%s", s);
	free(s);
	tmux_keys(session, "':quit' Enter");
}
