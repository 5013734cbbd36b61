/* test_tty.c: qkv repl in a real terminal (tmux), as a person sees it: the
 * prompt, a caret under the typed column, line editing with the arrow keys.
 * Skips itself when tmux is missing (make test installs it). */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char session[64];

static int sh(const char *fmt, const char *arg)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, fmt, session, arg);
	return system(cmd);
}

/* Waits until the screen shows want, drawn whole; the test fails if it
 * never does. */
static char *wait_for(const char *want)
{
	char *s = tmux_wait_for(session, want);
	cr_assert(strstr(s, want), "never shown: %s\n%s", want, s);
	return s;
}

static void start(void)
{
	snprintf(session, sizeof session, "qkvtest%d", (int)getpid());
	char cmd[512];
	tmux_private_server();
	snprintf(cmd, sizeof cmd, "tmux new-session -d -s %s -x 100 -y 30 'TERM=xterm %s repl'", session,
		 qkv_binary());
	cr_assert_eq(system(cmd), 0, "tmux failed to start");
}

static void stop(void)
{
	tmux_private_server_end();
}

Test(tty, repl_should_prompt_and_put_the_caret_under_the_column, .init = start, .fini = stop)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	char *s = wait_for(">>>");	/* tmux trims the space after it */
	cr_assert(strstr(s, "\n>>>"), "no prompt: %s", s);
	free(s);
	sh("tmux send-keys -t %s 'X = [1 2; 3 4]' Enter%s", "");
	sh("tmux send-keys -t %s 'torch.softmax(X, dim=-1)' Enter%s", "");
	s = wait_for("0.7311");
	cr_assert(strstr(s, "tensor([[0.2689, 0.7311],"), "%s", s);
	free(s);
	sh("tmux send-keys -t %s 'X @ torch.ones(3)' Enter%s", "");
	s = wait_for("error:");
	/* the caret sits under the @ of the typed line, after the 4-column prompt */
	cr_assert(strstr(s, ">>> X @ torch.ones(3)\n      ^\nerror: matmul: shapes [2, 2] and [3]"), "%s", s);
	free(s);
	/* up arrow brings back the last line; edit it to multiply by a 2-vector */
	sh("tmux send-keys -t %s Up BSpace BSpace '2)' Enter%s", "");
	s = wait_for("tensor([3., 7.])");
	cr_assert(strstr(s, ">>> X @ torch.ones(2)\ntensor([3., 7.])"), "%s", s);
	free(s);
	sh("tmux send-keys -t %s 'quit()' Enter%s", "");
}
