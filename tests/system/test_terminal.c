/* test_terminal.c: the full screen on terminals that are not the usual one,
 * as a person sees it in tmux: no TERM or an unknown one (with absurd
 * COLUMNS and LINES too) refused in one line, exit 2; absurd COLUMNS and
 * LINES with a good TERM ignored; a locale that is not UTF-8 (LANG=C) drawn
 * in ASCII; Ctrl-S a key, not XOFF; SIGTERM and SIGHUP ending the program
 * with 143 and 129, the terminal restored and the progress saved. Each run
 * is a shell in a tmux pane that records qkv's exit status and stderr in
 * files, and stty -g before and after it. Skips itself without tmux. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char dir[64];	/* the run's files, and its XDG_STATE_HOME (dir/state) */

/* Runs `env ENV qkv ARGS` in a 100x30 tmux pane, from a shell that writes
 * stty -g to dir/before and dir/after around it, its stderr to dir/err and
 * its exit status to dir/rc (rc last, renamed whole: once it exists, the
 * rest is written), then shows QKV-ENDED. */
static void run(const char *env, const char *args)
{
	tmux_require();
	dir_make_temp(dir, sizeof dir, "qkv-terminal");
	char script[2048], path[128], cmd[512];
	int n = snprintf(script, sizeof script,
			 "stty -g > %s/before\n"
			 "env %s XDG_STATE_HOME=%s/state %s %s 2> %s/err\n"
			 "echo $? > %s/rc.tmp\n"
			 "stty -g > %s/after\n"
			 "mv %s/rc.tmp %s/rc\n"
			 "echo QKV-ENDED\n"
			 "sleep 30\n",
			 dir, env, dir, qkv_binary(), args, dir, dir, dir, dir, dir);
	cr_assert(n > 0 && (size_t)n < sizeof script);
	snprintf(path, sizeof path, "%s/run.sh", dir);
	file_put(path, script, (size_t)n);
	snprintf(cmd, sizeof cmd, "sh %s", path);
	session = tmux_start(100, 30, cmd);
}

static void finish(void)
{
	tmux_private_server_end();
	if (dir[0])
		dir_remove(dir);
	dir[0] = 0;
}

/* The text of dir/NAME (malloc'd), "" when there is none. */
static char *file_of(const char *name)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char *s = read_text(path);
	return s ? s : strdup("");
}

/* Waits for qkv to end; returns its exit status. */
static int exit_status(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/rc", dir);
	cr_assert(file_wait(path), "qkv did not end:\n%s", tmux_screen(session, false));
	char *rc = file_of("rc");
	int v = atoi(rc);
	free(rc);
	return v;
}

/* ---- TERM ------------------------------------------------------------------------ */

struct refusal {
	const char *env, *args;
	const char *why;
};

static const struct refusal refusals[] = {
	{ "-u TERM", "1", "TERM is not set" },
	{ "TERM=nonesuch", "1", "TERM=nonesuch has no terminfo entry" },
	{ "-u TERM COLUMNS=99999 LINES=99999", "1", "TERM is not set" },
	{ "TERM=nonesuch COLUMNS=99999 LINES=99999", "", "TERM=nonesuch has no terminfo entry" },
};

/* One line, exit 2, nothing of curses' own ("Error opening terminal"). */
static void check_refusal(const struct refusal *r)
{
	run(r->env, r->args);
	int rc = exit_status();
	char *err = file_of("err");
	cr_expect_eq(rc, 2, "%s qkv %s: exit %d: %s", r->env, r->args, rc, err);
	cr_expect(strncmp(err, "qkv: ", 5) == 0 && strstr(err, r->why) &&
		  strstr(err, "set TERM to a terminal qkv can drive (e.g. TERM=xterm-256color)") &&
		  strstr(err, "qkv run --plain"), "%s qkv %s: %s", r->env, r->args, err);
	char *nl = strchr(err, '\n');
	cr_expect(nl && nl[1] == 0, "%s qkv %s: not one line: %s", r->env, r->args, err);
	free(err);
	char *b = file_of("before"), *a = file_of("after");
	cr_expect_str_eq(a, b, "%s qkv %s: the terminal's modes changed", r->env, r->args);
	free(a);
	free(b);
	finish();
}

Test(terminal, no_term_or_an_unknown_one_should_say_what_to_set_and_exit_2, .fini = finish, .timeout = 120)
{
	for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
		check_refusal(&refusals[i]);
}

/* COLUMNS=99999 LINES=99999 with a terminal qkv can drive: its own size is
 * used (the status line says why the variables are not), and q quits with 0. */
Test(terminal, absurd_columns_and_lines_should_be_ignored_with_a_message, .fini = finish)
{
	run("TERM=xterm-256color COLUMNS=99999 LINES=99999", "1");
	char *s = tmux_see(session, "step 1/14");
	/* the status line, the screen's last: laid out for 30 lines, not 99999 */
	cr_expect(strstr(s, "COLUMNS=99999 is more than any terminal: the terminal's own size is used."), "%s", s);
	/* the step counter at the right of 100 columns */
	cr_expect(strstr(s, "step 1/14  "), "%s", s);
	free(s);
	tmux_keys(session, "q");
	cr_expect_eq(exit_status(), 0);
	char *err = file_of("err");
	cr_expect_str_empty(err, "%s", err);
	free(err);
}

/* ---- LANG=C ------------------------------------------------------------------------ */

/* The first byte of s that is not ASCII, or NULL. */
static const char *non_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return s;
	return NULL;
}

static void expect_ascii(const char *s, const char *what)
{
	const char *bad = non_ascii(s);
	cr_expect_null(bad, "%s: a byte that is not ASCII at \"%.20s\":\n%s", what, bad ? bad : "", s);
}

/* A locale that is not UTF-8: every glyph is drawn as its ASCII twin (the
 * menu's marks, the lesson's ×, √ and ✎, the rule, the legend's …, the help
 * box), and the screens are whole: the heatmap with its numbers. */
Test(terminal, a_locale_that_is_not_utf8_should_be_drawn_in_ascii, .fini = finish)
{
	run("TERM=xterm-256color LC_ALL=C LANG=C", "");
	char *s = tmux_see(session, "exercises solved");	/* the menu's last line */
	expect_ascii(s, "the menu");
	cr_expect(strstr(s, "qkv -- attention, step by step"), "%s", s);
	cr_expect(strstr(s, "o 7/14 furthest step reached   + done   * 3/11 exercises solved"), "%s", s);
	cr_expect(strstr(s, "(^/v and Enter, or its number)"), "%s", s);
	free(s);
	tmux_keys(session, "1");
	s = tmux_see(session, "step 1/14");
	free(s);
	tmux_keys(session, "Right Right");
	s = tmux_see(session, "(blue negative, orange positive)");
	expect_ascii(s, "lesson 1 step 3");
	cr_expect(strstr(s, "step 3/14"), "%s", s);
	cr_expect(strstr(s, "mammal 90.9800 42.5000 62.5300 90.2000 93.6600"), "no heatmap:\n%s", s);
	cr_expect(strstr(s, "mammal@animals.T: -94 ~ 0 ~ 94"), "%s", s);
	cr_expect(strstr(s, "is 3x5, one key per column"), "%s", s);
	cr_expect(strstr(s, "Divided by sqrt3"), "%s", s);
	cr_expect(strstr(s, "* Predict:"), "%s", s);
	cr_expect(strstr(s, "\n----------"), "no rule above the view:\n%s", s);
	cr_expect(strstr(s, "<-/-> step"), "%s", s);
	free(s);
	tmux_keys(session, "?");
	s = tmux_see(session, "back to the menu");
	expect_ascii(s, "the help");
	cr_expect(strstr(s, "| -> n space <- p  next step, previous step"), "%s", s);
	cr_expect(strstr(s, "+-----"), "no box corner:\n%s", s);
	free(s);
	tmux_keys(session, "Escape q q");
	cr_expect_eq(exit_status(), 0);
}

/* The prompt's views in ASCII: a matrix too large for numbers (colour
 * cells with their shades, one row a line: no half blocks here), the loops
 * beside SIMD (→, ·, ×), a 3-D tensor's dims (2×4×3). */
Test(terminal, the_prompt_views_in_a_locale_that_is_not_utf8_should_be_ascii, .fini = finish)
{
	run("TERM=xterm-256color LC_ALL=C LANG=C", "--repl");
	free(tmux_see(session, ":quit or Ctrl-D leaves"));
	tmux_keys(session, "':show torch.arange(3600.).reshape(40, 90)' Enter");
	char *s = tmux_see(session, "(row 0, column 0)");
	expect_ascii(s, "a 40x90 matrix");
	cr_expect(strstr(s, "(40x90, float32)"), "%s", s);
	cr_expect(strstr(s, "\n  5 : : : :") && strstr(s, "\n 15 = = = ="), "not the shades, a row a line:\n%s", s);
	cr_expect(strstr(s, ": low ~ # high"), "the legend's shades:\n%s", s);
	free(s);
	tmux_keys(session, "'x = torch.arange(6.).reshape(2, 3); y = x @ x.T' Enter ':show y loops' Enter");
	s = tmux_see(session, "for-loops: 12 of 12");	/* the animation at its end */
	expect_ascii(s, "the loops view");
	cr_expect(strstr(s, "c (2x2): sums of products"), "%s", s);
	cr_expect(strstr(s, "s += x[1, 2] . x.T[2, 1] = 5.0000 x 5.0000 -> s"), "%s", s);
	cr_expect(strstr(s, "loops and SIMD agree (largest difference 0)  --  y"), "%s", s);
	free(s);
	tmux_keys(session, "':quit' Enter");
	cr_expect_eq(exit_status(), 0);
}

/* ---- Ctrl-S ------------------------------------------------------------------------ */

/* With IXON on, Ctrl-S stops the terminal's output until Ctrl-Q: the step
 * counter would never move. It is off while qkv runs, and back after. */
Test(terminal, ctrl_s_should_not_freeze_the_screen, .fini = finish)
{
	run("TERM=xterm-256color", "1");
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, "C-s Right");
	char *s = tmux_see(session, "step 2/14");
	free(s);
	tmux_keys(session, "C-s Right");
	free(tmux_see(session, "step 3/14"));
	tmux_keys(session, "q");
	cr_expect_eq(exit_status(), 0);
	char *b = file_of("before"), *a = file_of("after");
	cr_expect_str_eq(a, b, "the terminal's modes were not restored (ixon)");
	free(a);
	free(b);
}

/* ---- SIGTERM and SIGHUP ------------------------------------------------------------ */

/* The modes tmux records for the pane: the alternate screen, the cursor,
 * keypad and mouse reporting. */
static char *pane_modes(void)
{
	char cmd[512], path[128];
	snprintf(path, sizeof path, "%s/modes", dir);
	snprintf(cmd, sizeof cmd, "tmux display-message -p -t %s 'alt=#{alternate_on} cursor=#{cursor_flag} "
		 "keypad=#{keypad_cursor_flag}/#{keypad_flag} mouse=#{mouse_any_flag}#{mouse_standard_flag}"
		 "#{mouse_button_flag}#{mouse_sgr_flag}' > %s", session, path);
	char *m = system(cmd) == 0 ? read_text(path) : NULL;
	return m ? m : strdup("");
}

/* Lesson 1 stepped to 3, then sig from outside: exit 128 + sig, the
 * terminal as it was (stty, curses' modes off, the shell's screen back),
 * nothing on stderr, and step 3 saved as the furthest. */
static void check_signal(const char *name, int status)
{
	run("TERM=xterm-256color", "1");
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, "Right Right");
	free(tmux_see(session, "step 3/14"));
	char cmd[256];
	/* qkv is the child of the pane's shell: another test's qkv is not */
	snprintf(cmd, sizeof cmd, "pkill -%s -P \"$(tmux display-message -p -t %s '#{pane_pid}')\"", name, session);
	cr_assert_eq(system(cmd), 0, "%s: no qkv to signal", name);
	cr_expect_eq(exit_status(), status, "SIG%s", name);
	char *s = tmux_see(session, "QKV-ENDED");
	cr_expect_null(strstr(s, "step 3/14"), "SIG%s: the lesson's screen is still there:\n%s", name, s);
	free(s);
	char *b = file_of("before"), *a = file_of("after");
	cr_expect_str_eq(a, b, "SIG%s: the terminal's modes were not restored", name);
	free(a);
	free(b);
	char *modes = pane_modes();
	cr_expect_str_eq(modes, "alt=0 cursor=1 keypad=0/0 mouse=0000\n", "SIG%s: curses' modes are still on", name);
	free(modes);
	char *err = file_of("err");
	cr_expect_str_empty(err, "SIG%s: %s", name, err);
	free(err);
	char *prog = file_of("state/qkv/progress.json");
	const char *entry = strstr(prog, "\"animal-attention\"");
	cr_expect(entry && strstr(entry, "\"furthest\":\t3"), "SIG%s: the progress was not saved: %s", name, prog);
	free(prog);
	finish();
}

Test(terminal, sigterm_and_sighup_should_restore_the_terminal_and_exit_143_and_129, .fini = finish,
     .timeout = 120)
{
	check_signal("TERM", 143);
	check_signal("HUP", 129);
}
