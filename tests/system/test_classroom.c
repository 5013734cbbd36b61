/* test_classroom.c: the lesson screen as a class sees it (issue 12), in tmux
 * at 80x24 and 120x40: token views open on the lesson's query and name it,
 * heads numbered as the narration does; exercises on the step's screen and
 * kept in view after a wrong answer; lessons resume where they were left and
 * the menu opens on the last one; Ctrl-C stops the loop animation and stays,
 * and with nothing running goes back as q does; 'g 99' is out of range;
 * code visible when there is room; the temperature knob. Each waits for the
 * frame it needs (tmux_wait_for), never a fixed time. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char session[64], state[128];

static void tmux(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* qkv ARGS in a w x h pane with a state directory of this test's own
 * (kept between two starts of one test: resuming needs it). */
static void start(int w, int h, const char *args)
{
	static int n;
	snprintf(session, sizeof session, "qkvclass%d_%d", (int)getpid(), n++);
	tmux("tmux new-session -d -s %s -x %d -y %d 'TERM=xterm-256color XDG_STATE_HOME=%s %s %s; "
	     "echo QKV-EXIT=$?; sleep 600'", session, w, h, state, qkv_binary(), args);
}

static void keys(const char *k)
{
	tmux("tmux send-keys -t %s %s", session, k);
}

/* The screen once it shows want; fails the test when it never does. */
static char *see(const char *want)
{
	char *s = tmux_wait_for(session, want);
	cr_assert(strstr(s, want), "never showed '%s':\n%s", want, s);
	return s;
}

static void setup(void)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	tmux_private_server();
	snprintf(state, sizeof state, "/tmp/qkv-class-%d", (int)getpid());
	tmux("rm -rf %s", state);
}

static void teardown(void)
{
	tmux_private_server_end();
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf %s", state);
	if (system(cmd) != 0) {
		/* nothing to remove */
	}
}

TestSuite(classroom, .init = setup, .fini = teardown, .timeout = 180);

static void token_view_opens_on_the_lessons_query(int w, int h)
{
	start(w, h, "3 --step 13");
	free(see("step 13/13"));
	keys("Tab");
	char *s = see("query token: country");
	cr_expect(strstr(s, "head 0") && strstr(s, "head 2"), "heads not numbered from 0 as the view:\n%s", s);
	cr_expect(!strstr(s, "head 3"), "%s", s);
	free(s);
	keys("v");
	free(see("query token: bear"));
}

Test(classroom, a_token_view_should_open_on_the_lessons_query_at_80x24)
{
	token_view_opens_on_the_lessons_query(80, 24);
}

Test(classroom, a_token_view_should_open_on_the_lessons_query_at_120x40)
{
	token_view_opens_on_the_lessons_query(120, 40);
}

Test(classroom, a_token_view_of_unnamed_tokens_should_say_the_querys_index)
{
	start(120, 40, "2 --step 20");
	free(see("step 20/28"));
	keys("Tab");
	free(see("query token: 2 (counting from 0)"));
}

Test(classroom, the_exercise_should_be_on_the_steps_screen_and_stay_in_view_after_a_wrong_answer)
{
	start(120, 40, "2 --step 2");
	char *s = see("\u270e Exercise: Build a 1\u00d73 weight matrix");
	cr_expect(strstr(s, "Press : to answer"), "%s", s);
	free(s);
	keys(":");
	free(see(">>>"));
	keys("'B = torch.ones(1, 5)' Enter");
	s = see("Not yet");
	cr_expect(strstr(s, "Exercise: Build a 1\u00d73"), "the question is gone after a wrong answer:\n%s", s);
	free(s);
}

Test(classroom, a_lesson_should_resume_where_it_was_left_and_the_menu_open_on_it)
{
	start(100, 30, "");
	char *s = see("Choose a lesson");
	cr_expect(strstr(s, "\u270e 3/11 exercises solved"), "the marks are not explained:\n%s", s);
	free(s);
	keys("1");	/* a lesson's number opens it */
	free(see("step 1/14"));
	keys("n n n");
	free(see("step 4/14"));
	keys("q");
	free(see("\u25d0 4/14"));
	keys("q");
	free(see("QKV-EXIT=0"));
	/* a new run: the menu's cursor is on lesson 1, Enter resumes it */
	start(100, 30, "");
	free(see("Choose a lesson"));
	keys("Enter");
	s = see("Resumed at step 4 of 14");
	cr_expect(strstr(s, "Attention with animals"), "%s", s);
	free(s);
}

Test(classroom, ctrl_c_should_stop_the_loop_animation_and_then_act_as_q)
{
	start(120, 40, "");
	free(see("Choose a lesson"));
	keys("4");
	free(see("step 1/11"));
	keys("g 4 Enter");
	free(see("step 4/11"));
	keys("Tab r");
	free(see("pause"));	/* the animation runs: 'r pause' */
	keys("C-c");
	char *s = see("Stopped (Ctrl-C)");
	cr_expect(strstr(s, "step 4/11"), "the lesson is gone:\n%s", s);
	free(s);
	/* nothing runs now: Ctrl-C goes back to the menu, as q does */
	keys("C-c");
	free(see("Choose a lesson"));
}

Test(classroom, going_to_a_step_out_of_range_should_say_so)
{
	start(80, 24, "1");
	free(see("step 1/14"));
	keys("g 9 9 Enter");
	char *s = see("There is no step 99");
	cr_expect(strstr(s, "step 1/14"), "%s", s);
	free(s);
}

Test(classroom, the_code_and_its_output_should_be_in_view_when_there_is_room)
{
	start(120, 40, "1 --step 2");
	char *s = see("step 2/14");
	cr_expect(strstr(s, ">>> animals\n"), "%s", s);
	cr_expect(strstr(s, "[8.5, 2.7, 2.7]])"), "the output is hidden:\n%s", s);
	cr_expect(!strstr(s, "\u2193 more"), "%s", s);
	free(s);
}

Test(classroom, the_temperature_knob_should_scale_the_scores_of_the_weights_and_reset)
{
	start(120, 40, "3 --step 7");
	free(see("step 7/13"));
	keys("v");	/* the weights of the step */
	free(see("[2/3]"));
	keys("Tab t t");
	char *s = see("[scores \u00d74: t T 0]");
	cr_expect(strstr(s, "entropy of row 0"), "the inspector does not give the row's entropy:\n%s", s);
	free(s);
	keys("T T T");
	free(see("[scores \u00f72: t T 0]"));
	keys("0");
	s = tmux_wait_without(session, "[scores");
	cr_expect(!strstr(s, "[scores"), "%s", s);
	free(s);
}
