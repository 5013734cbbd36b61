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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[128];

/* qkv ARGS in a w x h pane with a state directory of this test's own
 * (kept between two starts of one test: resuming needs it). */
static void start(int w, int h, const char *args)
{
	session = tmux_start_qkv(w, h, state, NULL, args, "echo QKV-EXIT=$?; sleep 600");
}

static void setup(void)
{
	tmux_require();
	tmux_private_server();
	snprintf(state, sizeof state, "/tmp/qkv-class-%d", (int)getpid());
	dir_remove(state);
}

static void teardown(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

TestSuite(classroom, .init = setup, .fini = teardown, .timeout = 180);

static void token_view_opens_on_the_lessons_query(int w, int h)
{
	start(w, h, "3 --step 13");
	free(tmux_see(session, "step 13/13"));
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, "query token: country");
	cr_expect(strstr(s, "head 0") && strstr(s, "head 2"), "heads not numbered from 0 as the view:\n%s", s);
	cr_expect(!strstr(s, "head 3"), "%s", s);
	free(s);
	tmux_keys(session, "v");
	free(tmux_see(session, "query token: bear"));
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
	free(tmux_see(session, "step 20/28"));
	tmux_keys(session, "Tab");
	free(tmux_see(session, "query token: 2 (counting from 0)"));
}

Test(classroom, the_exercise_should_be_on_the_steps_screen_and_stay_in_view_after_a_wrong_answer)
{
	start(120, 40, "2 --step 2");
	char *s = tmux_see(session, "\u270e Exercise: Build a 1\u00d73 weight matrix");
	cr_expect(strstr(s, "Press : to answer"), "%s", s);
	free(s);
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_keys(session, "'B = torch.ones(1, 5)' Enter");
	s = tmux_see(session, "Not yet");
	cr_expect(strstr(s, "Exercise: Build a 1\u00d73"), "the question is gone after a wrong answer:\n%s", s);
	free(s);
}

Test(classroom, a_lesson_should_resume_where_it_was_left_and_the_menu_open_on_it)
{
	start(100, 30, "");
	char *s = tmux_see(session, "Choose a lesson");
	cr_expect(strstr(s, "\u270e 3/11 exercises solved"), "the marks are not explained:\n%s", s);
	free(s);
	tmux_keys(session, "1");	/* a lesson's number opens it */
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, "n n n");
	free(tmux_see(session, "step 4/14"));
	tmux_keys(session, "q");
	free(tmux_see(session, "\u25d0 4/14"));
	tmux_keys(session, "q");
	free(tmux_see(session, "QKV-EXIT=0"));
	/* a new run: the menu's cursor is on lesson 1, Enter resumes it */
	start(100, 30, "");
	free(tmux_see(session, "Choose a lesson"));
	tmux_keys(session, "Enter");
	s = tmux_see(session, "Resumed at step 4 of 14");
	cr_expect(strstr(s, "Attention with animals"), "%s", s);
	free(s);
}

Test(classroom, ctrl_c_should_stop_the_loop_animation_and_then_act_as_q)
{
	start(120, 40, "");
	free(tmux_see(session, "Choose a lesson"));
	tmux_keys(session, "4");
	free(tmux_see(session, "step 1/11"));
	tmux_keys(session, "g 4 Enter");
	free(tmux_see(session, "step 4/11"));
	tmux_keys(session, "Tab r");
	free(tmux_see(session, "pause"));	/* the animation runs: 'r pause' */
	tmux_keys(session, "C-c");
	char *s = tmux_see(session, "Stopped (Ctrl-C)");
	cr_expect(strstr(s, "step 4/11"), "the lesson is gone:\n%s", s);
	free(s);
	/* nothing runs now: Ctrl-C goes back to the menu, as q does */
	tmux_keys(session, "C-c");
	free(tmux_see(session, "Choose a lesson"));
}

Test(classroom, going_to_a_step_out_of_range_should_say_so)
{
	start(80, 24, "1");
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, "g 9 9 Enter");
	char *s = tmux_see(session, "There is no step 99");
	cr_expect(strstr(s, "step 1/14"), "%s", s);
	free(s);
}

Test(classroom, the_code_and_its_output_should_be_in_view_when_there_is_room)
{
	start(120, 40, "1 --step 2");
	char *s = tmux_see(session, "step 2/14");
	cr_expect(strstr(s, ">>> animals\n"), "%s", s);
	cr_expect(strstr(s, "[8.5, 2.7, 2.7]])"), "the output is hidden:\n%s", s);
	cr_expect(!strstr(s, "\u2193 more"), "%s", s);
	free(s);
}

Test(classroom, the_temperature_knob_should_scale_the_scores_of_the_weights_and_reset)
{
	start(120, 40, "3 --step 7");
	free(tmux_see(session, "step 7/13"));
	tmux_keys(session, "v");	/* the weights of the step */
	free(tmux_see(session, "[2/3]"));
	tmux_keys(session, "Tab t t");
	char *s = tmux_see(session, "[scores \u00d74: t T 0]");
	cr_expect(strstr(s, "entropy of row 0"), "the inspector does not give the row's entropy:\n%s", s);
	free(s);
	tmux_keys(session, "T T T");
	free(tmux_see(session, "[scores \u00f72: t T 0]"));
	tmux_keys(session, "0");
	s = tmux_wait_without(session, "[scores");
	cr_expect(!strstr(s, "[scores"), "%s", s);
	free(s);
}
