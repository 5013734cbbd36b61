/* test_ui.c: the full-screen program in a real terminal (tmux), as a person
 * sees it: at 80x24, 120x40 and 200x60, the step counter, the heatmap's
 * numbers, the help overlay, the inspector, the loop animation, NO_COLOR, a
 * resize, and the terminal restored on q, on signals and on crashes (stty -g,
 * and tmux's record of the screen, cursor, keypad and mouse modes). */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];      /* XDG_STATE_HOME of the test, its own */

static char *screen(bool escapes)
{
	return tmux_screen(session, escapes);
}

/* A state directory of the test's own: tests run in parallel, and none
 * reads or writes the progress of the person running them. */
static void make_state(void)
{
	if (!state[0])
		dir_make_temp(state, sizeof state, "qkv-ui-state");
}

static void start(int w, int h, const char *env, const char *args)
{
	tmux_require();
	make_state();
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

/* Ends the tmux server, once qkv and its shell are gone. */
static void stop(void)
{
	tmux_private_server_end();
}

static void finish(void)
{
	stop();
	dir_remove(state);
	state[0] = 0;
}

static void opens_at(int w, int h)
{
	start(w, h, NULL, "2");
	/* the whole first frame: the heatmap's legend is drawn after its
	 * cells, which come after the header */
	char *s = tmux_see(session, "-2.2 \u2026 0 \u2026 2.2");
	cr_assert(strstr(s, "step 1/28"), "%dx%d: %s", w, h, s);
	cr_assert(strstr(s, "Attention, step by step"), "%dx%d: %s", w, h, s);
	/* the heatmap of X shows its numbers: X[0, 0] is 0.3367; and its legend */
	cr_assert(strstr(s, "0.3367"), "%dx%d: no heatmap numbers: %s", w, h, s);
	cr_assert(strstr(s, "-2.2 \u2026 0 \u2026 2.2"), "%dx%d: no legend: %s", w, h, s);
	free(s);
	tmux_keys(session, "Right");
	s = tmux_see(session, "step 2/28");
	cr_assert(strstr(s, "step 2/28"), "%dx%d: the step counter did not move: %s", w, h, s);
	free(s);
	tmux_keys(session, "q");
}

Test(ui, opens_a_lesson_and_steps_at_80x24, .fini = finish) { opens_at(80, 24); }
Test(ui, opens_a_lesson_and_steps_at_120x40, .fini = finish) { opens_at(120, 40); }
Test(ui, opens_a_lesson_and_steps_at_200x60, .fini = finish) { opens_at(200, 60); }

Test(ui, the_menu_should_list_the_lessons_and_open_one, .fini = finish)
{
	start(100, 30, NULL, "");
	char *s = tmux_see(session, "Choose a lesson");
	/* a learning path: the numpy animals first, then the documents' order */
	cr_assert(strstr(s, "A learning path, simplest first"), "%s", s);
	const char *animals = strstr(s, " 1  "), *steps = strstr(s, " 2  ");
	cr_assert(animals && steps && animals < steps, "%s", s);
	const char *title = strstr(animals, "Attention with animals");
	cr_assert(title && title < steps, "lesson 1 is not the animals:\n%s", s);
	cr_assert(strstr(steps, "Attention, step by step"), "%s", s);
	free(s);
	tmux_keys(session, "Down Down Down Down Enter");
	s = tmux_see(session, "step 1/17");
	cr_assert(strstr(s, "Self-attention as PyTorch classes"), "the fifth lesson is not open:\n%s", s);
	free(s);
}

/* End and Home jump to the last and first lesson; a number past the last
 * one is answered, not ignored */
Test(ui, the_menu_should_take_home_end_and_refuse_a_missing_number, .fini = finish)
{
	start(100, 30, NULL, "");
	free(tmux_see(session, "Choose a lesson"));
	tmux_keys(session, "9");
	free(tmux_see(session, "There is no lesson 9: they are numbered 1 to 8."));
	tmux_keys(session, "End Home End Enter");
	char *s = tmux_see(session, "step 1/");
	cr_assert(strstr(s, "KV cache"), "the last lesson is not open:\n%s", s);
	free(s);
}

Test(ui, help_should_list_every_key_and_close_with_escape, .fini = finish)
{
	start(100, 30, NULL, "2");
	free(tmux_see(session, "step 1/28"));
	tmux_keys(session, "?");
	char *s = tmux_see(session, "Keys");
	cr_assert(strstr(s, "go to a step") && strstr(s, "zoom") && strstr(s, "big cells"), "%s", s);
	free(s);
	tmux_keys(session, "Escape");
	s = tmux_wait_without(session, "go to a step");
	cr_assert_null(strstr(s, "go to a step"), "the help stayed open:\n%s", s);
	cr_assert(strstr(s, "step 1/28"), "the lesson is not back:\n%s", s);
	free(s);
}

Test(ui, the_inspector_should_show_a_scores_arithmetic, .fini = finish)
{
	/* lesson 2 step 4: S = X·Xᵀ; the cursor on S[0, 1] */
	start(120, 40, NULL, "2 --step 4");
	free(tmux_see(session, "step 4/28"));
	tmux_keys(session, "Tab Right");
	char *s = tmux_see(session, "\u00b7");
	cr_assert(strstr(s, "-0.1217"), "no S[0, 1] on screen: %s", s);
	cr_assert(strstr(s, "0.3367\u00d7"), "no term of the dot product: %s", s);
	free(s);
}

/* Whether the captured screen sets a colour: SGR 30-37, 40-47, 90-97,
 * 100-107, or 38;/48; (256 and 24-bit); 39 and 49 only reset to defaults. */
static bool has_colour(const char *s)
{
	for (const char *p = strstr(s, "\x1b["); p; p = strstr(p + 1, "\x1b[")) {
		const char *q = p + 2;
		while (*q && *q != 'm') {
			char *end;
			long v = strtol(q, &end, 10);
			if (end == q)
				break;
			if ((v >= 30 && v <= 37) || (v >= 40 && v <= 47) || (v >= 90 && v <= 97) ||
			    (v >= 100 && v <= 107) || v == 38 || v == 48)
				return true;
			q = *end == ';' ? end + 1 : end;
		}
	}
	return false;
}

Test(ui, no_color_should_draw_without_colour_codes, .fini = finish)
{
	start(100, 30, "NO_COLOR=1", "2");
	free(tmux_see(session, "0.3367"));
	char *s = screen(true);
	cr_assert(!has_colour(s), "colour codes: %s", s);
	/* magnitude in shade characters instead */
	cr_assert(strstr(s, "\u2591") || strstr(s, "\u2592") || strstr(s, "\u2593") || strstr(s, "\u2588"), "%s", s);
	free(s);
	stop();
	start(100, 30, NULL, "2");
	free(tmux_see(session, "0.3367"));
	s = screen(true);
	cr_assert(has_colour(s), "no colours without NO_COLOR: %s", s);
	free(s);
}

Test(ui, a_resize_should_relayout_and_a_small_terminal_should_say_so, .fini = finish)
{
	start(120, 40, NULL, "2");
	free(tmux_see(session, "step 1/28"));
	tmux_resize(session, 60, 20);
	char *s = tmux_see(session, "enlarge the terminal to 80");
	cr_assert(strstr(s, "enlarge the terminal to 80\u00d724"), "%s", s);
	free(s);
	tmux_resize(session, 90, 30);
	s = tmux_see(session, "0.3367");
	cr_assert(strstr(s, "0.3367"), "%s", s);
	free(s);
}

Test(ui, the_loops_animation_should_advance, .fini = finish)
{
	start(120, 40, NULL, "tests/lessons/format-example.json --step 2");
	free(tmux_see(session, "step 2/2"));
	tmux_keys(session, "v v");
	char *s = tmux_see(session, "for-loops:");
	cr_assert(strstr(s, "for-loops: 0 of"), "%s", s);
	free(s);
	tmux_keys(session, "s s s");
	s = tmux_see(session, "for-loops: 3 of");
	cr_assert(strstr(s, "for-loops: 3 of"), "the animation did not step: %s", s);
	free(s);
}

/* The modes tmux records for the pane: the alternate screen, the cursor,
 * keypad and mouse reporting, as "alt=0 cursor=1 keypad=0/0 mouse=0000". */
static char *pane_modes(void)
{
	char cmd[512], path[96];
	snprintf(path, sizeof path, "/tmp/qkv-modes-%d", (int)getpid());
	snprintf(cmd, sizeof cmd, "tmux display-message -p -t %s 'alt=#{alternate_on} cursor=#{cursor_flag} "
		 "keypad=#{keypad_cursor_flag}/#{keypad_flag} mouse=#{mouse_any_flag}#{mouse_standard_flag}"
		 "#{mouse_button_flag}#{mouse_sgr_flag}' > %s", session, path);
	char *m = system(cmd) == 0 ? read_text(path) : NULL;
	unlink(path);
	return m ? m : strdup("");
}

/* Runs lesson 1 in a shell inside tmux that saves stty -g before and after
 * it, ends it one way, and checks that the terminal is as it was: stty -g,
 * and the modes curses sets (alternate screen, cursor, keypad, mouse) off
 * again. how: "q"; a signal's name, sent from outside (kill); or "crash:HOW",
 * the QKV_TEST_CRASH hook's crash (F12). A crash must say so in one line on
 * stderr; the rest print nothing there (AddressSanitizer's report in
 * qkv-san comes after that line). */
static void check_restored(const char *how)
{
	char before[128], after[128], errs[128];
	snprintf(before, sizeof before, "/tmp/qkv-stty-before-%d", (int)getpid());
	snprintf(after, sizeof after, "/tmp/qkv-stty-after-%d", (int)getpid());
	snprintf(errs, sizeof errs, "/tmp/qkv-stty-err-%d", (int)getpid());
	unlink(before);	/* left by a run that failed: not this one's */
	unlink(after);
	bool crash = strncmp(how, "crash:", 6) == 0;
	char env[64] = "";
	if (crash)
		snprintf(env, sizeof env, "QKV_TEST_CRASH=%s", how + 6);
	char cmd[1400];
	make_state();
	/* no core files: a crash is what is tested. stty writes NAME.tmp,
	 * renamed NAME when whole; QKV-ENDED on the screen says that tmux has
	 * read everything qkv wrote before it (its modes are final). */
	snprintf(cmd, sizeof cmd, "ulimit -c 0; stty -g > %s.tmp; mv %s.tmp %s; TERM=xterm-256color XDG_STATE_HOME=%s "
		 "%s %s 1 2> %s; stty -g > %s.tmp; mv %s.tmp %s; echo QKV-ENDED; sleep 30", before, before, before,
		 state, env, qkv_binary(), errs, after, after, after);
	session = tmux_start(100, 30, cmd);
	free(tmux_see(session, "q quit"));	/* the status line, drawn last */
	if (strcmp(how, "q") == 0) {
		tmux_keys(session, "q");
	} else if (crash) {
		tmux_keys(session, "F12");
	} else {
		/* qkv is the child of the pane's shell: another test's qkv is not */
		snprintf(cmd, sizeof cmd, "pkill -%s -P \"$(tmux display-message -p -t %s '#{pane_pid}')\"", how,
			 session);
		if (system(cmd) != 0) {
			/* pkill found nothing: the test below fails */
		}
	}
	char *s = tmux_wait_for(session, "QKV-ENDED");
	cr_assert(strstr(s, "QKV-ENDED") && file_wait(after), "%s: the program did not end:\n%s", how, s);
	free(s);
	char *a = read_text(after), *b = read_text(before);
	cr_assert(a && b, "%s: stty was not recorded", how);
	cr_assert_str_eq(a, b, "%s: the terminal was not restored", how);
	char *modes = pane_modes();
	cr_assert_str_eq(modes, "alt=0 cursor=1 keypad=0/0 mouse=0000\n", "%s: curses' modes are still on", how);
	char *e = read_text(errs);
	cr_assert(e, "%s: no stderr file", how);
	bool is_crash = crash || strcmp(how, "SEGV") == 0 || strcmp(how, "ABRT") == 0 || strcmp(how, "BUS") == 0 ||
			strcmp(how, "FPE") == 0 || strcmp(how, "ILL") == 0;
	if (is_crash)
		cr_assert(strncmp(e, "qkv: crashed (", 14) == 0 && strstr(e, "); the terminal has been restored\n"),
			  "%s: stderr: %s", how, e);
	else
		cr_assert_str_empty(e, "%s: stderr: %s", how, e);
	free(e);
	free(modes);
	free(a);
	free(b);
	unlink(before);
	unlink(after);
	unlink(errs);
	stop();
}

Test(ui, q_and_signals_should_restore_the_terminal, .fini = finish, .timeout = 120)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	check_restored("q");
	check_restored("TERM");
	check_restored("INT");
	check_restored("HUP");
}

Test(ui, a_crash_should_restore_the_terminal_and_say_so, .fini = finish, .timeout = 120)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	check_restored("crash:segv");	/* a write through a null pointer */
	check_restored("crash:stack");	/* a stack overflow: the handler runs on its own stack */
	check_restored("crash:abort");
}

Test(ui, crash_signals_sent_from_outside_should_restore_the_terminal, .fini = finish, .timeout = 120)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	static const char *const sigs[] = { "SEGV", "ABRT", "BUS", "FPE", "ILL" };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		check_restored(sigs[i]);
}

Test(ui, a_mouse_click_should_select_the_cell_under_it, .fini = finish)
{
	/* lesson 2 step 4 shows S = X·Xᵀ; click on row "sequence", column
	 * "example" (an xterm SGR mouse report), and the inspector explains it */
	start(120, 40, NULL, "2 --step 4");
	char *s = tmux_see(session, "-0.0653");	/* the whole frame: the heatmap comes after the header */
	int y = 0, x = -1;
	for (char *line = s; line && *line; y++) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *hit = strstr(line, "-0.0653");
		if (strstr(line, "sequence") && hit && hit > strstr(line, "sequence")) {
			x = (int)(hit - line) + 2;
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(s);
	cr_assert_geq(x, 0, "no S on screen");
	char seq[64];
	snprintf(seq, sizeof seq, "-l '\x1b[<0;%d;%dM'", x + 1, y + 1);
	tmux_keys(session, seq);
	snprintf(seq, sizeof seq, "-l '\x1b[<0;%d;%dm'", x + 1, y + 1);
	tmux_keys(session, seq);
	s = tmux_see(session, "S[2, 1]");
	cr_assert(strstr(s, "S[2, 1] = X[2, :]"), "the click did not select S[2, 1]: %s", s);
	free(s);
}

Test(ui, a_closed_terminal_should_end_the_program, .fini = finish)
{
	make_state();
	session = tmux_start_qkv(100, 30, state, NULL, "tests/lessons/format-example.json", NULL);
	free(tmux_see(session, "step 1/2"));
	pid_t pid = tmux_pane_qkv(session);
	cr_assert_gt(pid, 0, "qkv is not running");
	/* closes the terminal, and waits (up to system_wait_ms()) until qkv
	 * and everything else the pane ran have ended */
	bool ended = tmux_private_server_end();
	cr_assert(ended, "qkv (pid %d) went on running after its terminal closed", (int)pid);
}
