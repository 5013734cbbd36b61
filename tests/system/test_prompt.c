/* test_prompt.c: the prompt in a real terminal (tmux), as the issue asks: in
 * qkv --repl type a matrix and a softmax and see the numbers; a bad line
 * shows a caret and leaves the workspace; history survives a restart;
 * :save writes a lesson that check and run reproduce; a killed save leaves
 * the old file whole; an exercise answered wrong, then right, is marked;
 * print options typed there change what prints after them. */
#include "system.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *session;
static char state[128];

static void start(const char *args)
{
	session = tmux_start_qkv(100, 30, state, NULL, args, "echo QKV-EXIT=$?; sleep 30");
}

/* Ends the tmux server and waits until qkv is gone: whatever it writes as
 * it ends is written before the next start reads it. */
static void stop(void)
{
	tmux_private_server_end();
}

static void finish(void)
{
	stop();
	dir_remove(state);
}

static void fresh_state(void)
{
	snprintf(state, sizeof state, "/tmp/qkv-state-%d", (int)getpid());
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", state);
	if (system(cmd) != 0) {
		/* nothing to remove */
	}
}

Test(prompt, softmax_of_a_typed_matrix_should_show_its_numbers, .fini = finish)
{
	fresh_state();
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "X = [1 2; 3 4]");
	tmux_keys(session, "Enter");
	tmux_type(session, "torch.softmax(X, dim=-1)");
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "0.7311");
	cr_assert(strstr(s, "0.2689") && strstr(s, "0.7311"), "%s", s);
	free(s);
}

/* print options set at the prompt change what the lines after print; a
 * line that fails leaves them as they were */
Test(prompt, print_options_typed_at_the_prompt_should_change_what_prints, .fini = finish)
{
	fresh_state();
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "torch.set_printoptions(precision=2)");
	tmux_keys(session, "Enter");
	tmux_type(session, "print(torch.tensor([1 / 3, 2 / 3]))");
	tmux_keys(session, "Enter");
	free(tmux_see(session, "tensor([0.33, 0.67])"));
	tmux_type(session, "torch.set_printoptions(precision=5); nothing");
	tmux_keys(session, "Enter");
	free(tmux_see(session, "is not defined"));
	tmux_keys(session, "C-u");	/* (the failed line stays in the input for fixing) */
	tmux_type(session, "print(torch.tensor([1 / 7]))");
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "tensor([0.14])");
	cr_assert(!strstr(s, "0.14286"), "the failed line's options were kept:\n%s", s);
	free(s);
}

Test(prompt, a_bad_line_should_show_a_caret_and_keep_the_workspace, .fini = finish)
{
	fresh_state();
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "X = [1 2; 3 4]");
	tmux_keys(session, "Enter");
	tmux_type(session, "X = X @ torch.ones(3)");
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "cannot be multiplied");
	/* the caret under the @ (column 7 after the 4-column prompt); the
	 * message is too long to fit beside it, so it is on the line below */
	cr_assert(strstr(s, "\n          ^\n matmul: shapes [2, 2] and [3] cannot be multiplied"), "%s", s);
	/* the line stays in the input for fixing */
	cr_assert(strstr(s, ">>> X = X @ torch.ones(3)"), "%s", s);
	free(s);
	tmux_keys(session, "C-u");
	tmux_type(session, "X");
	tmux_keys(session, "Enter");
	s = tmux_see(session, "tensor([[1., 2.],");
	cr_assert(strstr(s, "tensor([[1., 2.],\n         [3., 4.]])"), "X changed: %s", s);
	free(s);
	/* a short message goes beside the caret */
	tmux_type(session, "Z = nope + 1");
	tmux_keys(session, "Enter");
	s = tmux_see(session, "is not defined");
	cr_assert(strstr(s, "\n        ^ name 'nope' is not defined"), "%s", s);
	free(s);
}

/* A line wider than the screen scrolls sideways to keep the cursor in
 * view; after Enter the caret stands under the mistake as the line is
 * shown. Where the mistake would be scrolled out of view with the cursor
 * at the end, the cursor goes to the mistake. Once the line no longer
 * holds the input that failed (Ctrl-U), the error stays until the next
 * statement, as the last one's, with no caret. */
Test(prompt, a_long_line_should_put_the_caret_under_its_mistake_as_shown, .fini = finish)
{
	fresh_state();
	session = tmux_start_qkv(80, 24, state, NULL, "--repl", "sleep 30");
	free(tmux_see(session, ">>>"));
	/* the tester's line: 201 characters, qq at column 124 */
	char line[512] = "w = 1";
	for (int i = 1; i <= 25; i++)
		snprintf(line + strlen(line), sizeof line - strlen(line), " + %d", i);
	strcat(line, " + qq");
	for (int i = 26; i <= 40; i++)
		snprintf(line + strlen(line), sizeof line - strlen(line), " + %d", i);
	tmux_line(session, line);
	const char *msg = "name 'qq' is not defined";
	char *s = tmux_see(session, msg);
	int qq = screen_column(s, "qq + 26 + 27");
	cr_assert(qq >= 0 && qq < 80 && !strstr(s, ">>> w = 1 + 1"), "scrolled to the end: %s", s);
	cr_assert_eq(screen_caret_column(s, msg), qq, "the caret not under qq (column %d):\n%s", qq, s);
	free(s);
	/* Ctrl-U: no caret under the empty line; the message as the last one's */
	tmux_keys(session, "C-u");
	s = tmux_see(session, "Last error: name 'qq' is not defined");
	cr_assert(!strchr(s, '^'), "%s", s);
	free(s);
	/* the mistake near the start: the cursor goes to it, the caret under it */
	tmux_type(session, "w = 1 + qq");
	for (int i = 2; i <= 40; i++) {
		char part[16];
		snprintf(part, sizeof part, " + %d", i);
		tmux_type(session, part);
	}
	tmux_keys(session, "Enter");
	s = tmux_see(session, msg);
	cr_assert(!strstr(s, "Last error"), "%s", s);
	cr_assert_eq(screen_column(s, ">>> w = 1 + qq + 2"), 0, "%s", s);
	cr_assert_eq(screen_caret_column(s, msg), 12, "%s", s);
	free(s);
	tmux_type(session, "x");	/* typed at the cursor: before the mistake */
	s = tmux_see(session, ">>> w = 1 + xqq");
	cr_assert(strstr(s, "Last error: name 'qq'") && !strchr(s, '^'), "%s", s);
	free(s);
	tmux_keys(session, "BSpace");	/* the input as it failed again: its caret */
	s = tmux_see_gone(session, "Last error");
	cr_assert_eq(screen_caret_column(s, msg), 12, "%s", s);
	free(s);
	/* Ctrl-E (end of line) scrolls the mistake out of view: no caret where it is not */
	tmux_keys(session, "C-e");
	s = tmux_see(session, "+ 39 + 40");
	cr_assert(strstr(s, msg) && !strchr(s, '^'), "%s", s);
	free(s);
	tmux_keys(session, "C-a");
	s = tmux_see(session, ">>> w = 1 + qq");
	cr_assert_eq(screen_caret_column(s, msg), 12, "%s", s);
	free(s);
	/* the next statement ends the error */
	tmux_keys(session, "C-e C-u");
	tmux_line(session, "z = 1 + 1");
	s = tmux_see_gone(session, msg);
	cr_assert(!strchr(s, '^'), "%s", s);
	free(s);
}

/* The caret counts the columns a character takes: 日本語 takes six. */
Test(prompt, the_caret_should_stand_under_a_mistake_after_wide_characters, .fini = finish)
{
	fresh_state();
	session = tmux_start_qkv(80, 24, state, NULL, "--repl", "sleep 30");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "x = \"\u65e5\u672c\u8a9e\" + qq");
	char *s = tmux_see(session, "name 'qq' is not defined");
	int qq = screen_column(s, "qq\n");
	cr_assert_eq(qq, 19, "%s", s);
	cr_assert_eq(screen_caret_column(s, "name 'qq' is not defined"), qq, "%s", s);
	free(s);
}

Test(prompt, tab_should_complete_names_and_ctrl_r_should_find_a_line, .fini = finish)
{
	fresh_state();
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "Query = torch.ones(2) * 3");
	tmux_keys(session, "Enter");
	free(tmux_see(session, ": 0 \u2026 3"));	/* its heatmap's legend */
	/* "torch.sof" + Tab is torch.softmax, "(Que" + Tab is (Query */
	tmux_type(session, "torch.sof");
	tmux_keys(session, "Tab");
	tmux_type(session, "(Que");
	tmux_keys(session, "Tab");
	tmux_type(session, ", dim=0)");
	char *s = tmux_see(session, "torch.softmax(Query, dim=0)");
	cr_assert(strstr(s, ">>> torch.softmax(Query, dim=0)"), "%s", s);
	free(s);
	tmux_keys(session, "Enter");
	s = tmux_see(session, "tensor([0.5000, 0.5000])");
	cr_assert(strstr(s, "tensor([0.5000, 0.5000])"), "%s", s);
	free(s);
	/* Ctrl-R searches the history */
	tmux_keys(session, "C-r");
	tmux_type(session, "ones");
	s = tmux_see(session, "`ones': Query");
	cr_assert(strstr(s, "(reverse-i-search)`ones': Query = torch.ones(2) * 3"), "%s", s);
	free(s);
	tmux_keys(session, "Enter");
	tmux_keys(session, "C-a");
	tmux_keys(session, "M-f");
	tmux_type(session, "2");
	s = tmux_see(session, "Query2 =");
	cr_assert(strstr(s, ">>> Query2 = torch.ones(2) * 3"), "%s", s);
	free(s);
}

Test(prompt, history_should_survive_a_restart, .fini = finish)
{
	fresh_state();
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "Y = torch.eye(3) * 7");
	tmux_keys(session, "Enter");
	free(tmux_see(session, ": 0 \u2026 7"));	/* its heatmap's legend */
	tmux_type(session, ":quit");
	tmux_keys(session, "Enter");
	free(tmux_see(session, "QKV-EXIT=0"));	/* qkv has ended: the history is written */
	stop();
	char path[256];
	snprintf(path, sizeof path, "%s/qkv/history", state);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "no history file");
	cr_assert_eq(st.st_mode & 0777, 0600, "history mode %o", st.st_mode & 0777);
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_keys(session, "Up");
	char *s = tmux_see(session, ">>> :quit");
	free(s);
	tmux_keys(session, "Up");
	s = tmux_see(session, ">>> Y = torch.eye(3) * 7");
	cr_assert(strstr(s, ">>> Y = torch.eye(3) * 7"), "%s", s);
	free(s);
}

Test(prompt, save_should_write_a_lesson_that_check_and_run_reproduce, .fini = finish)
{
	fresh_state();
	char file[128];
	snprintf(file, sizeof file, "/tmp/qkv-saved-%d.json", (int)getpid());
	unlink(file);
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "torch.manual_seed(5); R = torch.randn(3, 4); S = torch.softmax(R, dim=-1)");
	tmux_keys(session, "Enter");
	char cmd[1024];
	snprintf(cmd, sizeof cmd, ":save %s", file);
	tmux_type(session, cmd);
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "Saved");
	cr_assert(strstr(s, "Saved"), "%s", s);
	free(s);
	const char *argv[] = { "qkv", "check", file, NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s%s", out, err);
	cr_assert(strstr(out, " passed, 0 failed"), "%s", out);
	free(out);
	free(err);
	/* the same numbers as a fresh evaluation of the same statements */
	const char *run[] = { "qkv", "run", "--plain", file, NULL };
	cr_assert_eq(run_qkv(run, NULL, "NO_COLOR=1", &out, &err), 0, "%s", err);
	const char *ev[] = { "qkv", "eval", "-e", "torch.manual_seed(5); R = torch.randn(3, 4); "
			     "S = torch.softmax(R, dim=-1); S", NULL };
	char *out2, *err2;
	cr_assert_eq(run_qkv(ev, NULL, NULL, &out2, &err2), 0);
	char first[16];
	snprintf(first, sizeof first, "%.6s", strstr(out2, "[[") + 2);
	cr_assert(strstr(out, first), "the run does not show %s: %s", first, out);
	free(out);
	free(err);
	free(out2);
	free(err2);
	/* saving again needs :save! */
	tmux_type(session, cmd);
	tmux_keys(session, "Enter");
	s = tmux_see(session, "exists");
	cr_assert(strstr(s, ":save!"), "%s", s);
	free(s);
	unlink(file);
}

/* Starts qkv --repl under strace, which kills it (SIGKILL, nothing to
 * catch) on entering the first of the given system calls; strace's log
 * ends with "killed by SIGKILL" once that happened. */
static void start_killed_at(const char *calls, const char *log)
{
	cr_assert_eq(system("command -v strace >/dev/null"), 0, "strace is needed (make test installs it)");
	unlink(log);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "TERM=xterm-256color XDG_STATE_HOME=%s strace -o %s -e trace=%s "
		 "-e inject=%s:signal=KILL:when=1 %s --repl; echo QKV-EXIT=$?; sleep 30", state, log, calls, calls,
		 qkv_binary());
	session = tmux_start(100, 30, cmd);
}

static bool killed(const char *log)
{
	char *s = file_wait_text(log, "killed by SIGKILL");
	free(s);
	return s != NULL;
}

/* Waits until the strace log at path has kept its size for 500 ms (polled
 * every 50 ms), up to system_wait_ms(); *st is its last stat. */
static bool log_quiet(const char *path, struct stat *st)
{
	int still = 0;
	off_t size = -1;
	for (int waited = 0; waited < system_wait_ms(); waited += 50) {
		cr_assert_eq(stat(path, st), 0, "no strace log %s", path);
		still = st->st_size == size ? still + 1 : 0;
		size = st->st_size;
		if (still >= 10)
			return true;
		usleep(50000);
	}
	return false;
}

Test(prompt, an_idle_screen_should_send_nothing_to_the_terminal, .fini = finish)
{
	/* over SSH a redraw that changes nothing must cost nothing: count the
	 * writes to the terminal during a second of idling at the prompt */
	fresh_state();
	cr_assert_eq(system("command -v strace >/dev/null"), 0, "strace is needed (make test installs it)");
	char log[128], cmd[1024];
	snprintf(log, sizeof log, "/tmp/qkv-idle-%d.strace", (int)getpid());
	snprintf(cmd, sizeof cmd, "TERM=xterm-256color XDG_STATE_HOME=%s strace -ttt -o %s -e trace=write %s --repl; "
		 "sleep 30", state, log, qkv_binary());
	session = tmux_start(100, 30, cmd);
	free(tmux_see(session, ">>>"));
	tmux_type(session, "X = torch.ones(4, 4)");
	tmux_keys(session, "Enter");
	free(tmux_see(session, ": 0 \u2026 1"));	/* its heatmap's legend, drawn last */
	/* strace logs a write after tmux may have shown it: wait until the log
	 * has stopped growing */
	struct stat before;
	cr_assert(log_quiet(log, &before), "qkv never stopped writing:\n%s", read_text(log));
	/* on purpose a fixed second: the idle time in which nothing may be
	 * written (what is tested is that nothing happens) */
	usleep(1000000);
	struct stat after;
	cr_assert_eq(stat(log, &after), 0);
	char *text = read_text(log);
	cr_assert_eq(after.st_size, before.st_size, "writes while idle:\n%s", text + before.st_size);
	free(text);
	unlink(log);
}

Test(prompt, a_save_killed_midway_should_leave_the_old_file_whole, .fini = finish)
{
	fresh_state();
	char kdir[64], file[128], log[128], cmd[1024];
	dir_make_temp(kdir, sizeof kdir, "qkv-killed");	/* removed whole: a killed save's temporary file too */
	snprintf(file, sizeof file, "%s/killed.json", kdir);
	snprintf(log, sizeof log, "/tmp/qkv-killed-%d.strace", (int)getpid());
	/* the old file: a workspace saved whole */
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "X = torch.arange(6.).reshape(2, 3)");
	tmux_keys(session, "Enter");
	snprintf(cmd, sizeof cmd, ":save %s", file);
	tmux_type(session, cmd);
	tmux_keys(session, "Enter");
	free(tmux_see(session, "Saved"));
	stop();
	char *old = read_text(file);
	cr_assert(old && strstr(old, "torch.arange(6.)"), "%s", old ? old : "(no file)");
	/* killed after the new text is written but before it is flushed, and
	 * on the point of renaming it over the old file */
	static const char *const points[] = { "fsync", "rename,renameat,renameat2" };
	for (int i = 0; i < 2; i++) {
		start_killed_at(points[i], log);
		free(tmux_see(session, ">>>"));
		tmux_type(session, "Y = torch.ones(4) * 3");
		tmux_keys(session, "Enter");
		free(tmux_see(session, ": 0 \u2026 3"));	/* its heatmap's legend */
		snprintf(cmd, sizeof cmd, ":save! %s", file);
		tmux_type(session, cmd);
		tmux_keys(session, "Enter");
		cr_assert(killed(log), "qkv was not killed at %s", points[i]);
		stop();
		char *now = read_text(file);
		cr_assert(now && strcmp(now, old) == 0, "killed at %s, the file changed:\n%s", points[i],
			  now ? now : "(gone)");
		free(now);
		const char *argv[] = { "qkv", "check", file, NULL };
		char *out, *err;
		cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s%s", out, err);
		free(out);
		free(err);
	}
	/* the temporary file a killed save leaves does not stop the next one */
	start("--repl");
	free(tmux_see(session, ">>>"));
	tmux_type(session, "Y = torch.ones(4) * 3");
	tmux_keys(session, "Enter");
	tmux_type(session, cmd);
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "Saved");
	cr_assert(strstr(s, "Saved"), "%s", s);
	free(s);
	free(old);
	unlink(log);
	dir_remove(kdir);
}

Test(prompt, an_exercise_answered_wrong_then_right_should_be_marked_in_the_menu, .fini = finish)
{
	fresh_state();
	char file[128], cmd[1024];
	snprintf(file, sizeof file, "/tmp/qkv-ex-%d.json", (int)getpid());
	FILE *f = fopen(file, "w");
	fputs("{\"id\": \"ex-test\", \"title\": \"Exercise test\", \"source\": \"tests\", \"summary\": \"s\", "
	      "\"steps\": [{\"title\": \"Scores\", \"text\": \"x\", \"code\": [\"X = [1 0; 0 1; 1 1]\"], "
	      "\"exercise\": {\"ask\": \"Compute X times its transpose.\", \"answer\": \"X @ X.T\", "
	      "\"hints\": [\"Use @.\"], \"solution\": \"S = X @ X.T\"}}]}\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s", file);
	start(cmd);
	free(tmux_see(session, "step 1/1"));
	tmux_keys(session, ":");
	char *s = tmux_see(session, "Exercise: Compute X times its transpose.");
	free(s);
	tmux_type(session, "X.T @ X");
	tmux_keys(session, "Enter");
	s = tmux_see(session, "Not yet");
	cr_assert(strstr(s, "Not yet: the answer has shape [3, 3], yours [2, 2]"), "%s", s);
	free(s);
	tmux_type(session, "X @ X.T");
	tmux_keys(session, "Enter");
	s = tmux_see(session, "Exercise solved");
	cr_assert(strstr(s, "\u2713 Exercise solved"), "%s", s);
	free(s);
	stop();
	/* after a restart, the menu (with the lesson in QKV_LESSONS) marks it */
	char dir[128];
	snprintf(dir, sizeof dir, "/tmp/qkv-exdir-%d", (int)getpid());
	snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && cp %s %s/", dir, dir, file, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "QKV_LESSONS=%s", dir);
	session = tmux_start_qkv(100, 30, state, cmd, "", "echo QKV-EXIT=$?; sleep 30");
	s = tmux_see(session, "Exercise test");
	char *line = strstr(s, "Exercise test");
	while (line > s && line[-1] != '\n')
		line--;
	cr_assert(strstr(line, "\u270e 1/1") && strstr(line, "\u270e 1/1") < strstr(line, "Exercise test"),
		  "no exercise mark: %s", s);
	free(s);
	unlink(file);
	stop();
	dir_remove(dir);
}
