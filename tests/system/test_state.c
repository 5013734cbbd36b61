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

static const char *session;

static void stop(void)
{
	tmux_private_server_end();
	remove_dir();
}

TestSuite(state_screen, .init = make_dir, .fini = stop);

/* Runs the shell line in a 100x30 tmux window; it should end with
 * "echo QKV-EXIT=$?" after qkv. */
static void start(const char *line)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "%s; sleep 30", line);
	session = tmux_start(100, 30, cmd);
}

Test(state_screen, a_damaged_progress_file_should_be_reported_on_screen_and_replaced, .timeout = 60)
{
	static const char text[] = "{\"lessons\": {\"attention-step-by-step\": {\"furthest\": 5, \"steps\": 28},\n"
				   "  oops}}\n";
	put_text(pfile, text);
	char line[600];
	snprintf(line, sizeof line, "TERM=xterm-256color XDG_STATE_HOME=%s %s; echo QKV-EXIT=$?", dir, qkv_binary());
	start(line);
	/* the menu's status line, what matters first */
	free(tmux_see(session, "progress.json was unreadable, kept as progress.json.bad; starting afresh (line 2"));
	tmux_keys(session, "Enter");
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, "Right");
	free(tmux_see(session, "step 2/14"));
	tmux_keys(session, "q");	/* back to the menu: progress saved */
	char *s = tmux_see(session, "\u25d0 2/14");
	cr_assert_null(strstr(s, "unreadable"), "reported twice:\n%s", s);
	free(s);
	tmux_keys(session, "q");
	s = tmux_see(session, "QKV-EXIT=");
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
	snprintf(line, sizeof line, "TERM=xterm-256color XDG_STATE_HOME=%s %s --repl; echo QKV-EXIT=$?", dir,
		 qkv_binary());
	start(line);
	free(tmux_see(session, "history was unreadable, kept as history.bad; starting afresh "
				"(line 2, column 2: a NUL byte)"));
	tmux_type(session, "torch.ones(2) * 3");
	tmux_keys(session, "Enter");
	free(tmux_see(session, "tensor([3., 3.])"));
	tmux_keys(session, "Up");
	free(tmux_see(session, ">>> torch.ones(2) * 3"));
	tmux_keys(session, "C-u");
	tmux_type(session, ":quit");
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "QKV-EXIT=");
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
		 "echo QKV-EXIT=$?; stty -g > %s.tmp; mv %s.tmp %s", stty_before, stty_before, stty_before, dir,
		 qkv_binary(), stty_after, stty_after, stty_after);
	start(line);
	free(tmux_see(session, "Choose a lesson"));
	tmux_keys(session, "Enter");
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, "Right");
	free(tmux_see(session, "step 2/14"));
	/* the prompt: its history cannot be saved when it closes */
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "Q = 1");
	tmux_keys(session, "Enter");
	tmux_keys(session, "Escape");
	char want[300];
	snprintf(want, sizeof want, "history not saved: cannot make the directory %s (Not a directory)", qdir);
	free(tmux_see(session, want));
	/* back to the menu: the progress cannot be saved */
	tmux_keys(session, "q");
	snprintf(want, sizeof want, "progress.json not saved: cannot make the directory %s (Not a directory)", qdir);
	free(tmux_see(session, want));
	/* and qkv goes on: the lesson opens again where it was left, remembered
	 * in memory though not on disk */
	tmux_keys(session, "Enter");
	free(tmux_see(session, "Resumed at step 2 of 14"));
	tmux_keys(session, "q");
	free(tmux_see(session, "\u25d0 2/14"));
	tmux_keys(session, "q");
	/* after the terminal is restored, the last save's failure stays on it */
	char *s = tmux_see(session, "QKV-EXIT=");
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
		 "TERM=xterm-256color XDG_STATE_HOME=%s %s --repl; echo QKV-EXIT=$?; "
		 "cmp %s/orig/progress.json %s && cmp %s/orig/history %s && echo BOTH-INTACT'; "
		 "stty -g > %s.tmp; mv %s.tmp %s",
		 stty_before, stty_before, stty_before, dir, pfile, hfile, dir, qdir, dir, qdir, qdir, dir, qkv_binary(), dir,
		 pfile, dir, hfile, stty_after, stty_after, stty_after);
	start(line);
	free(tmux_see(session, ">>>"));
	tmux_type(session, "torch.eye(2) * 5");
	tmux_keys(session, "Enter");
	free(tmux_see(session, "tensor([[5., 0.],"));
	tmux_type(session, ":quit");
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "QKV-EXIT=");
	cr_assert(strstr(s, "QKV-EXIT=0"), "%s", s);
	cr_assert(strstr(s, "qkv: progress.json not saved: the disk is full"), "%s", s);
	cr_assert(strstr(s, "qkv: history not saved: the disk is full"), "%s", s);
	free(s);
	free(tmux_see(session, "BOTH-INTACT"));
	assert_terminal_restored();
}

/* ---- two sessions on one state directory (issue 15, item 4) ------------------------ */

/* Starts `qkv ARGS` in a tmux session (100x30) on the test's state
 * directory, whose name goes to name (32 bytes); the shell says
 * QKV-EXIT=STATUS after it. */
static void start_in(char *name, const char *args)
{
	snprintf(name, 32, "%s", tmux_start_qkv(100, 30, dir, NULL, args, "echo QKV-EXIT=$?; sleep 30"));
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
	start_in(a, "1");
	start_in(b, "2");
	free(tmux_see(a, "step 1/14"));
	free(tmux_see(b, "step 1/28"));
	tmux_keys(a, "Right");
	free(tmux_see(a, "step 2/14"));
	tmux_keys(b, "Right");
	free(tmux_see(b, "step 2/28"));
	tmux_keys(a, "Right");
	free(tmux_see(a, "step 3/14"));
	/* the first to quit writes its lesson, the last its own and the other's */
	tmux_keys(a, "q");
	free(tmux_see(a, "QKV-EXIT=0"));
	tmux_keys(b, "q");
	free(tmux_see(b, "QKV-EXIT=0"));
	cr_assert_eq(furthest("animal-attention"), 3, "lesson 1's progress was lost:\n%s", read_text(pfile));
	cr_assert_eq(furthest("attention-step-by-step"), 2, "lesson 2's progress was lost:\n%s", read_text(pfile));
}

Test(state_screen, a_session_killed_after_a_step_should_have_saved_it_already, .timeout = 90)
{
	char a[32];
	start_in(a, "1");
	free(tmux_see(a, "step 1/14"));
	pid_t pid = tmux_pane_qkv(a);
	cr_assert_gt(pid, 0, "qkv did not start");
	tmux_keys(a, "Right");
	free(tmux_see(a, "step 2/14"));
	tmux_keys(a, "Right");
	free(tmux_see(a, "step 3/14"));
	/* saved within a second of the step, with no key pressed after it */
	char *text = file_wait_text(pfile, "\"furthest\":\t3");
	cr_assert_not_null(text, "step 3 never reached progress.json:\n%s", read_text(pfile));
	free(text);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert(proc_wait_gone(pid), "qkv outlived SIGKILL");
	cr_assert_eq(furthest("animal-attention"), 3);
}
