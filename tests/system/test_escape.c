/* test_escape.c: Esc in qkv --repl, where the prompt is all there is, in a
 * real terminal (tmux): it clears the line, or the block being typed (a
 * note says which, until the next key), and on an empty line says how to
 * leave; it never ends qkv. :help says what Esc does in each prompt. In a
 * lesson it still closes the prompt. At 80x24 without colour, at 120x40.
 * In vi editing mode ($INPUTRC) Esc is readline's, to vi's command mode, in
 * the full screen (qkv --repl, a lesson's prompt) and in qkv repl. */
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
	snprintf(state, sizeof state, "/tmp/qkv-esc-%d", (int)getpid());
	dir_remove(state);
	session = tmux_start_qkv(w, h, state, env, args, "echo QKV-EXIT=$?; sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

static void escape_in_repl(int w, int h, const char *env)
{
	start(w, h, env, "--repl");
	free(tmux_see(session, ">>>"));
	/* a line: cleared */
	tmux_type(session, "x = 1 +");
	free(tmux_see(session, ">>> x = 1 +"));
	tmux_keys(session, "Escape");
	char *s = tmux_see(session, "Esc: line cleared. (:quit or Ctrl-D on an empty line leaves qkv.)");
	cr_assert(!strstr(s, "x = 1 +") && strstr(s, "\n>>>"), "%s", s);
	free(s);
	/* the next key takes the note away */
	tmux_type(session, "y");
	free(tmux_see_gone(session, "Esc: line cleared"));
	tmux_keys(session, "BSpace");
	/* an empty line: how to leave, and qkv stays */
	tmux_keys(session, "Escape");
	s = tmux_see(session, "Nothing to clear: :quit or Ctrl-D leaves qkv.");
	cr_assert(!strstr(s, "QKV-EXIT"), "%s", s);
	free(s);
	/* a block: dropped whole, nothing of it kept */
	tmux_line(session, "if True:");
	free(tmux_see(session, ">>> if True:\n..."));
	tmux_type(session, "z = 5");
	free(tmux_see(session, "z = 5"));
	tmux_keys(session, "Escape");
	free(tmux_see(session, "Esc: block cleared."));
	tmux_line(session, "z");
	s = tmux_see(session, "name 'z' is not defined");
	cr_assert(!strstr(s, "QKV-EXIT"), "%s", s);
	free(s);
	/* the failing line came back into the input: Esc clears it too, and the
	 * error with it; :help says what Esc does */
	tmux_keys(session, "Escape");
	s = tmux_see(session, "Esc: line cleared.");
	cr_assert(!strstr(s, "not defined"), "%s", s);
	free(s);
	tmux_line(session, ":help");
	s = tmux_see(session, "Esc: in a lesson, close the prompt; in qkv --repl, clear what is typed");
	free(s);
	tmux_line(session, ":quit");
	free(tmux_see(session, "QKV-EXIT=0"));
}

Test(escape, esc_should_clear_what_is_typed_in_the_repl_at_80x24, .fini = finish)
{
	escape_in_repl(80, 24, "NO_COLOR=1");
}

Test(escape, esc_should_clear_what_is_typed_in_the_repl_at_120x40, .fini = finish)
{
	escape_in_repl(120, 40, NULL);
}

/* the lesson's prompt: Esc closes it, what was typed with it */
Test(escape, esc_should_still_close_the_prompt_of_a_lesson, .fini = finish)
{
	start(100, 30, NULL, "1");
	free(tmux_see(session, "step 1/"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "x = 1 +");
	free(tmux_see(session, ">>> x = 1 +"));
	tmux_keys(session, "Escape");
	char *s = tmux_see_gone(session, ">>>");
	cr_assert(strstr(s, "step 1/") && !strstr(s, "QKV-EXIT"), "%s", s);
	free(s);
}

/* ---- vi editing mode ($INPUTRC says `set editing-mode vi`) --------------------------- */

/* qkv ARGS in vi mode at w x h (open: the keys that open the prompt, or
 * NULL): "12)" typed, Esc goes to vi's command mode (the cursor steps back
 * onto the ')', nothing is cleared), 0 to the line's start, i inserts
 * "print(" there, Enter runs "print(12)"; printed is what shows it ran. */
static void vi_escape(int w, int h, const char *args, const char *open, const char *printed)
{
	char inputrc[128], env[160];
	snprintf(inputrc, sizeof inputrc, "/tmp/qkv-esc-inputrc-%d", (int)getpid());
	file_put(inputrc, "set editing-mode vi\n", 20);
	snprintf(env, sizeof env, "INPUTRC=%s", inputrc);
	start(w, h, env, args);
	if (open) {
		free(tmux_see(session, "step 1/"));
		tmux_keys(session, open);
	}
	free(tmux_see(session, ">>>"));
	tmux_type(session, "12)");
	free(tmux_see(session, ">>> 12)"));
	cr_assert_eq(tmux_cursor_x_at(session, 7), 7, "the cursor is at %d, not after 12)", tmux_cursor_x(session));
	tmux_keys(session, "Escape");
	cr_assert_eq(tmux_cursor_x_at(session, 6), 6, "Esc did not go to vi's command mode: the cursor is at %d",
		     tmux_cursor_x(session));
	char *s = tmux_screen(session, false);
	cr_expect(strstr(s, ">>> 12)") && !strstr(s, "Esc:") && !strstr(s, "QKV-EXIT"), "%s", s);
	free(s);
	tmux_type(session, "0");
	cr_assert_eq(tmux_cursor_x_at(session, 4), 4, "0 did not go to the line's start: the cursor is at %d",
		     tmux_cursor_x(session));
	tmux_type(session, "i");
	tmux_type(session, "print(");
	free(tmux_see(session, ">>> print(12)"));
	tmux_keys(session, "Enter");
	free(tmux_see(session, printed));
	finish();
	unlink(inputrc);
}

Test(escape, esc_in_vi_mode_should_be_readlines_in_the_full_screen_at_80x24, .fini = finish)
{
	vi_escape(80, 24, "--repl", NULL, "\n 12\n");
}

Test(escape, esc_in_vi_mode_should_be_readlines_in_a_lessons_prompt_at_120x40, .fini = finish)
{
	vi_escape(120, 40, "1", ":", "\n 12\n");
}

/* qkv repl: readline's own Esc (qkv never took it there) */
Test(escape, esc_in_vi_mode_should_be_readlines_in_qkv_repl, .fini = finish)
{
	vi_escape(80, 24, "repl", NULL, ">>> print(12)\n12\n>>>");
}
