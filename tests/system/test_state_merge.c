/* test_state_merge.c: progress is never lost (issue 15, item 4) in a real
 * terminal (tmux): two sessions of qkv on one state directory, each
 * stepping through its own lesson and quitting, leave both lessons'
 * progress in progress.json; a session killed with SIGKILL after a step
 * has it on disk already (saved as it goes). The merge itself, without a
 * terminal: tests/unit/test_state_merge.c. */
#include "system.h"
#include "lesson/progress.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];       /* XDG_STATE_HOME of the test */
static char pfile[160];    /* dir/qkv/progress.json */

static void make_dir(void)
{
	dir_make_temp(dir, sizeof dir, "qkv-merge");
	snprintf(pfile, sizeof pfile, "%s/qkv/progress.json", dir);
	setenv("XDG_STATE_HOME", dir, 1);
}

static void stop(void)
{
	tmux_private_server_end();
	dir_remove(dir);
}

TestSuite(state_merge_screen, .init = make_dir, .fini = stop);

/* Starts `qkv ARGS` in tmux session name (100x30) on the test's state
 * directory; the shell says QKV-EXIT=STATUS after it. */
static void start(const char *name, const char *args)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	tmux_private_server();
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "tmux new-session -d -s %s -x 100 -y 30 \"TERM=xterm-256color XDG_STATE_HOME=%s "
		 "%s %s; echo QKV-EXIT=\\$?; sleep 30\"", name, dir, qkv_binary(), args);
	cr_assert_eq(system(cmd), 0, "tmux failed");
}

static void keys(const char *name, const char *k)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tmux send-keys -t %s %s", name, k);
	if (system(cmd) != 0) {
		/* a failed tmux command shows up in what the screen lacks */
	}
}

static void wait_for(const char *name, const char *want)
{
	char *s = tmux_wait_for(name, want);
	cr_assert(strstr(s, want), "never shown in %s: %s\n%s", name, want, s);
	free(s);
}

/* The furthest step of lesson id in progress.json, or 0. */
static int furthest(const char *id)
{
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "", "progress.json does not load cleanly");
	const struct progress_entry *e = progress_get(&p, id);
	int f = e ? e->furthest : 0;
	progress_free(&p);
	return f;
}

Test(state_merge_screen, two_sessions_on_one_state_directory_should_both_keep_their_progress, .timeout = 90)
{
	char a[32], b[32];
	snprintf(a, sizeof a, "qkvma%d", (int)getpid());
	snprintf(b, sizeof b, "qkvmb%d", (int)getpid());
	start(a, "1");
	start(b, "2");
	wait_for(a, "step 1/14");
	wait_for(b, "step 1/28");
	keys(a, "Right");
	wait_for(a, "step 2/14");
	keys(b, "Right");
	wait_for(b, "step 2/28");
	keys(a, "Right");
	wait_for(a, "step 3/14");
	/* the first to quit writes its lesson, the last its own and the other's */
	keys(a, "q");
	wait_for(a, "QKV-EXIT=0");
	keys(b, "q");
	wait_for(b, "QKV-EXIT=0");
	cr_assert_eq(furthest("animal-attention"), 3, "lesson 1's progress was lost:\n%s", read_text(pfile));
	cr_assert_eq(furthest("attention-step-by-step"), 2, "lesson 2's progress was lost:\n%s", read_text(pfile));
}

Test(state_merge_screen, a_session_killed_after_a_step_should_have_saved_it_already, .timeout = 90)
{
	char a[32];
	snprintf(a, sizeof a, "qkvmk%d", (int)getpid());
	start(a, "1");
	wait_for(a, "step 1/14");
	pid_t pid = tmux_pane_qkv(a);
	cr_assert_gt(pid, 0, "qkv did not start");
	keys(a, "Right");
	wait_for(a, "step 2/14");
	keys(a, "Right");
	wait_for(a, "step 3/14");
	/* saved within a second of the step, with no key pressed after it */
	char *text = file_wait_text(pfile, "\"furthest\":\t3");
	cr_assert_not_null(text, "step 3 never reached progress.json:\n%s", read_text(pfile));
	free(text);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert(proc_wait_gone(pid), "qkv outlived SIGKILL");
	cr_assert_eq(furthest("animal-attention"), 3);
}
