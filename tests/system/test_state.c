/* test_state.c: nothing lost (issue 7, point 5) in a real terminal (tmux):
 * damaged state files reported on screen and replaced, save failures shown
 * while qkv goes on and after it ends, the terminal restored (stty -g), the
 * files as they should be; two sessions on one state directory keeping
 * both lessons' progress, and a session killed with SIGKILL after a step
 * having saved it already (issue 15, item 4). Without a terminal:
 * tests/unit/test_state.c. */

/* A full disk is a small tmpfs in a mount namespace (skipped where mounting
 * is not allowed). */
#include "system.h"
#include "lesson/progress.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];       /* XDG_STATE_HOME of the test */
static char qdir[128];     /* dir/qkv */
static char pfile[160];    /* dir/qkv/progress.json */
static char hfile[160];    /* dir/qkv/history */

static void make_dir(void)
{
	dir_make_temp(dir, sizeof dir, "qkv-state");
	snprintf(qdir, sizeof qdir, "%s/qkv", dir);
	snprintf(pfile, sizeof pfile, "%s/progress.json", qdir);
	snprintf(hfile, sizeof hfile, "%s/history", qdir);
	setenv("XDG_STATE_HOME", dir, 1);
}

static void remove_dir(void)
{
	dir_remove(dir);
}

static void put_text(const char *path, const char *text)
{
	file_put(path, text, strlen(text));
}

static void assert_names(const char *want)
{
	char *got = dir_list(qdir);
	cr_assert_str_eq(got, want, "the state directory holds %s", got);
	free(got);
}

static const char good_progress[] =
	"{\n\t\"lessons\":\t{\n\t\t\"one\":\t{\n\t\t\t\"furthest\":\t3,\n\t\t\t\"steps\":\t9\n\t\t}\n\t}\n}\n";

/* ---- in a terminal (tmux) ------------------------------------------------------------ */

static char session[64];

static void stop(void)
{
	tmux_private_server_end();
	remove_dir();
}

TestSuite(state_screen, .init = make_dir, .fini = stop);

static void tmux(const char *fmt, const char *arg)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, fmt, session, arg);
	if (system(cmd) != 0) {
		/* a failed tmux command shows up in what the screen lacks */
	}
}

static void keys(const char *k)
{
	tmux("tmux send-keys -t %s %s", k);
}

static void type(const char *text)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "tmux send-keys -t %%s -l '%s'%%s", text);
	tmux(buf, "");
}

/* Runs the shell command line in a 100x30 tmux window; it should end with
 * "echo QKV-EXIT=\$?" after qkv (the line is in double quotes). */
static void start(const char *line)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	snprintf(session, sizeof session, "qkvst%d", (int)getpid());
	tmux_private_server();
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "tmux new-session -d -s %s -x 100 -y 30 \"%s; sleep 30\"", session, line);
	cr_assert_eq(system(cmd), 0, "tmux failed");
}

static char *wait_for(const char *want)
{
	char *s = tmux_wait_for(session, want);
	cr_assert(strstr(s, want), "never shown: %s\n%s", want, s);
	return s;
}

Test(state_screen, a_damaged_progress_file_should_be_reported_on_screen_and_replaced, .timeout = 60)
{
	static const char text[] = "{\"lessons\": {\"attention-step-by-step\": {\"furthest\": 5, \"steps\": 28},\n"
				   "  oops}}\n";
	put_text(pfile, text);
	char line[600];
	snprintf(line, sizeof line, "TERM=xterm-256color XDG_STATE_HOME=%s %s; echo QKV-EXIT=\\$?", dir, qkv_binary());
	start(line);
	/* the menu's status line, what matters first */
	free(wait_for("progress.json was unreadable, kept as progress.json.bad; starting afresh (line 2"));
	keys("Enter");
	free(wait_for("step 1/14"));
	keys("Right");
	free(wait_for("step 2/14"));
	keys("q");	/* back to the menu: progress saved */
	char *s = wait_for("\u25d0 2/14");
	cr_assert_null(strstr(s, "unreadable"), "reported twice:\n%s", s);
	free(s);
	keys("q");
	s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	cr_assert_null(strstr(s, "qkv:"), "a message on stderr:\n%s", s);
	free(s);
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", pfile);
	file_assert_holds(bad, text, sizeof text - 1);
	struct progress p;
	progress_load(&p);
	cr_assert_str_eq(p.problem, "", "the new file is damaged too");
	const struct progress_entry *e = progress_get(&p, "animal-attention");
	cr_assert(e && e->furthest == 2 && e->steps == 14, "the new file lacks the step reached");
	progress_free(&p);
	assert_names("progress.json progress.json.bad ");
}

Test(state_screen, a_damaged_history_should_be_reported_at_the_prompt_and_replaced, .timeout = 60)
{
	static const char text[] = "A = 1\nB\0= 2\n";
	file_put(hfile, text, sizeof text - 1);
	char line[600];
	snprintf(line, sizeof line, "TERM=xterm-256color XDG_STATE_HOME=%s %s --repl; echo QKV-EXIT=\\$?", dir,
		 qkv_binary());
	start(line);
	free(wait_for("history was unreadable, kept as history.bad; starting afresh (line 2, column 2: a NUL byte)"));
	type("torch.ones(2) * 3");
	keys("Enter");
	free(wait_for("tensor([3., 3.])"));
	keys("Up");
	free(wait_for(">>> torch.ones(2) * 3"));
	keys("C-u");
	type(":quit");
	keys("Enter");
	char *s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	free(s);
	char bad[200];
	snprintf(bad, sizeof bad, "%s.bad", hfile);
	file_assert_holds(bad, text, sizeof text - 1);
	file_assert_holds(hfile, "torch.ones(2) * 3\n:quit\n", 24);
}

/* stty -g before and after qkv, in the shell inside tmux: each written to
 * NAME.tmp and renamed NAME, so that a file that exists is whole */
static char stty_before[128], stty_after[128];

static void assert_terminal_restored(void)
{
	cr_assert(file_wait(stty_after), "stty was not run after qkv");
	char *a = read_text(stty_after), *b = read_text(stty_before);
	cr_assert(a && b, "stty was not recorded");
	cr_assert_str_eq(a, b, "the terminal was not restored");
	free(a);
	free(b);
	unlink(stty_before);
	unlink(stty_after);
}

Test(state_screen, an_unwritable_state_directory_should_give_messages_and_qkv_should_go_on, .timeout = 60)
{
	put_text(qdir, "a file where the state directory goes");
	snprintf(stty_before, sizeof stty_before, "/tmp/qkv-stty-before-%d", (int)getpid());
	snprintf(stty_after, sizeof stty_after, "/tmp/qkv-stty-after-%d", (int)getpid());
	unlink(stty_after);	/* left by a run that failed: not this one's */
	char line[2048];
	snprintf(line, sizeof line, "stty -g > %s.tmp; mv %s.tmp %s; TERM=xterm-256color XDG_STATE_HOME=%s %s; "
		 "echo QKV-EXIT=\\$?; stty -g > %s.tmp; mv %s.tmp %s", stty_before, stty_before, stty_before, dir,
		 qkv_binary(), stty_after, stty_after, stty_after);
	start(line);
	free(wait_for("Choose a lesson"));
	keys("Enter");
	free(wait_for("step 1/14"));
	keys("Right");
	free(wait_for("step 2/14"));
	/* the prompt: its history cannot be saved when it closes */
	keys(":");
	free(wait_for(">>>"));
	type("Q = 1");
	keys("Enter");
	keys("Escape");
	char want[300];
	snprintf(want, sizeof want, "history not saved: cannot make the directory %s (Not a directory)", qdir);
	free(wait_for(want));
	/* back to the menu: the progress cannot be saved */
	keys("q");
	snprintf(want, sizeof want, "progress.json not saved: cannot make the directory %s (Not a directory)", qdir);
	free(wait_for(want));
	/* and qkv goes on: the lesson opens again where it was left, remembered
	 * in memory though not on disk */
	keys("Enter");
	free(wait_for("Resumed at step 2 of 14"));
	keys("q");
	free(wait_for("\u25d0 2/14"));
	keys("q");
	/* after the terminal is restored, the last save's failure stays on it */
	char *s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	snprintf(want, sizeof want, "qkv: progress.json not saved: cannot make the directory %s (Not a directory)",
		 qdir);
	cr_assert(strstr(s, want), "no message after the end:\n%s", s);
	snprintf(want, sizeof want, "qkv: history not saved: cannot make the directory %s (Not a directory)", qdir);
	cr_assert(strstr(s, want), "no history message after the end:\n%s", s);
	free(s);
	assert_terminal_restored();
	file_assert_holds(qdir, "a file where the state directory goes", 37);
}

Test(state_screen, a_full_disk_should_be_reported_when_qkv_ends_and_the_old_files_kept, .timeout = 60)
{
	if (system("unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs tmpfs /mnt' 2>/dev/null") != 0)
		cr_skip_test("no mount namespace here: a full disk cannot be made");
	put_text(pfile, good_progress);
	put_text(hfile, "X = 1\n");
	snprintf(stty_before, sizeof stty_before, "/tmp/qkv-stty-before-%d", (int)getpid());
	snprintf(stty_after, sizeof stty_after, "/tmp/qkv-stty-after-%d", (int)getpid());
	unlink(stty_after);	/* left by a run that failed: not this one's */
	/* the old files are copied onto a 64 KiB tmpfs over the state
	 * directory, which is then filled; after qkv they are compared with
	 * the originals beside it */
	char line[4096];
	snprintf(line, sizeof line,
		 "stty -g > %s.tmp; mv %s.tmp %s; unshare -m sh -c '"
		 "mkdir -p %s/orig && cp %s %s %s/orig/ && mount --make-rprivate / && "
		 "mount -t tmpfs -o size=64k tmpfs %s && cp %s/orig/* %s/ && "
		 "(cat /dev/zero > %s/filler) 2>/dev/null; "
		 "TERM=xterm-256color XDG_STATE_HOME=%s %s --repl; echo QKV-EXIT=\\$?; "
		 "cmp %s/orig/progress.json %s && cmp %s/orig/history %s && echo BOTH-INTACT'; "
		 "stty -g > %s.tmp; mv %s.tmp %s",
		 stty_before, stty_before, stty_before, dir, pfile, hfile, dir, qdir, dir, qdir, qdir, dir, qkv_binary(), dir,
		 pfile, dir, hfile, stty_after, stty_after, stty_after);
	start(line);
	free(wait_for(">>>"));
	type("torch.eye(2) * 5");
	keys("Enter");
	free(wait_for("tensor([[5., 0.],"));
	type(":quit");
	keys("Enter");
	char *s = wait_for("QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	cr_assert(strstr(s, "qkv: progress.json not saved: the disk is full"), "%s", s);
	cr_assert(strstr(s, "qkv: history not saved: the disk is full"), "%s", s);
	free(s);
	free(wait_for("BOTH-INTACT"));
	assert_terminal_restored();
}

/* ---- two sessions on one state directory (issue 15, item 4) ------------------------ */

/* Starts `qkv ARGS` in tmux session name (100x30) on the test's state
 * directory; the shell says QKV-EXIT=STATUS after it. */
static void start_in(const char *name, const char *args)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	tmux_private_server();
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "tmux new-session -d -s %s -x 100 -y 30 \"TERM=xterm-256color XDG_STATE_HOME=%s "
		 "%s %s; echo QKV-EXIT=\\$?; sleep 30\"", name, dir, qkv_binary(), args);
	cr_assert_eq(system(cmd), 0, "tmux failed");
}

static void keys_to(const char *name, const char *k)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tmux send-keys -t %s %s", name, k);
	if (system(cmd) != 0) {
		/* a failed tmux command shows up in what the screen lacks */
	}
}

static void wait_in(const char *name, const char *want)
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

Test(state_screen, two_sessions_on_one_state_directory_should_both_keep_their_progress, .timeout = 90)
{
	char a[32], b[32];
	snprintf(a, sizeof a, "qkvma%d", (int)getpid());
	snprintf(b, sizeof b, "qkvmb%d", (int)getpid());
	start_in(a, "1");
	start_in(b, "2");
	wait_in(a, "step 1/14");
	wait_in(b, "step 1/28");
	keys_to(a, "Right");
	wait_in(a, "step 2/14");
	keys_to(b, "Right");
	wait_in(b, "step 2/28");
	keys_to(a, "Right");
	wait_in(a, "step 3/14");
	/* the first to quit writes its lesson, the last its own and the other's */
	keys_to(a, "q");
	wait_in(a, "QKV-EXIT=0");
	keys_to(b, "q");
	wait_in(b, "QKV-EXIT=0");
	cr_assert_eq(furthest("animal-attention"), 3, "lesson 1's progress was lost:\n%s", read_text(pfile));
	cr_assert_eq(furthest("attention-step-by-step"), 2, "lesson 2's progress was lost:\n%s", read_text(pfile));
}

Test(state_screen, a_session_killed_after_a_step_should_have_saved_it_already, .timeout = 90)
{
	char a[32];
	snprintf(a, sizeof a, "qkvmk%d", (int)getpid());
	start_in(a, "1");
	wait_in(a, "step 1/14");
	pid_t pid = tmux_pane_qkv(a);
	cr_assert_gt(pid, 0, "qkv did not start");
	keys_to(a, "Right");
	wait_in(a, "step 2/14");
	keys_to(a, "Right");
	wait_in(a, "step 3/14");
	/* saved within a second of the step, with no key pressed after it */
	char *text = file_wait_text(pfile, "\"furthest\":\t3");
	cr_assert_not_null(text, "step 3 never reached progress.json:\n%s", read_text(pfile));
	free(text);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert(proc_wait_gone(pid), "qkv outlived SIGKILL");
	cr_assert_eq(furthest("animal-attention"), 3);
}
