/* test_prompt_keys.c: key sequences that crashed the full-screen prompt
 * (issue 15), typed again in a real terminal (tmux) against $QKV: Ctrl-R
 * Ctrl-X a (readline's callback mode lost its place: SIGSEGV), and vi mode,
 * history, Ctrl-W, Ctrl-C, searches and Esc ? (a double free in readline's
 * undo list after Ctrl-C). After each, qkv must still run and its prompt
 * still work: a statement typed next shows its value. The key fuzzer
 * (tests/fuzz/keys, make fuzz) looks for more; the key streams it found
 * (tests/fuzz/keys/found/) are typed again by build/keyfuzz in a
 * pseudo-terminal. Skips without tmux or build/keyfuzz. */
#include "system.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char session[64], state[128];

static void sh(const char *fmt, const char *arg)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, fmt, session, arg);
	if (system(cmd) != 0) {
		/* shows up in what the screen lacks */
	}
}

static char *wait_for(const char *want)
{
	char *s = tmux_wait_for(session, want);
	cr_assert(strstr(s, want), "never shown: %s\n%s", want, s);
	return s;
}

/* qkv --repl in a 100x30 terminal with a state directory of its own; the
 * shell says how qkv ended, if it does. */
static void start(void)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
	snprintf(state, sizeof state, "/tmp/qkv-keys-%d", (int)getpid());
	dir_remove(state);
	snprintf(session, sizeof session, "qkvky%d", (int)getpid());
	tmux_private_server();
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "tmux new-session -d -s %%s -x 100 -y 30 'TERM=xterm-256color XDG_STATE_HOME=%s "
		 "%s --repl; echo QKV-EXIT=$?; sleep 30'%%s", state, qkv_binary());
	sh(cmd, "");
	free(wait_for(">>>"));
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

static void type(const char *text)
{
	char buf[2048];
	snprintf(buf, sizeof buf, "tmux send-keys -t %%s -l '%s'%%s", text);
	sh(buf, "");
}

/* tmux key names (C-r, Up, Enter), or -H and the bytes in hex */
static void key(const char *k)
{
	sh("tmux send-keys -t %s %s", k);
}

/* Runs a line and waits for its value. */
static void run(const char *line, const char *value)
{
	type(line);
	key("Enter");
	free(wait_for(value));
}

/* qkv is still there and its prompt works: Ctrl-C drops what the keys
 * left in the line, and a statement shows its value. */
static void prompt_should_still_work(void)
{
	key("C-c");
	free(wait_for("Ctrl-C: "));	/* line or block cleared */
	type("6 * 7");
	key("Enter");
	char *s = wait_for("42");
	cr_assert(!strstr(s, "QKV-EXIT="), "qkv ended:\n%s", s);
	free(s);
}

Test(prompt_keys, ctrl_r_ctrl_x_a_should_end_the_search_and_leave_the_prompt_working, .fini = finish)
{
	start();
	run("a = 41", "41");
	key("C-r");
	type("a =");
	free(wait_for("reverse-i-search"));
	key("C-x");
	key("a");	/* Ctrl-X a: no command; the search ended on Ctrl-X, keeping its line */
	char *s = tmux_wait_without(session, "reverse-i-search");
	cr_assert(strstr(s, ">>> a = 41") && !strstr(s, "QKV-EXIT="), "%s", s);
	free(s);
	prompt_should_still_work();
	/* the same without a match, and Ctrl-X Ctrl-R (another prefix) */
	key("C-r");
	type("zzz");
	free(wait_for("failed reverse-i-search"));
	key("C-x");
	key("C-r");
	free(tmux_wait_without(session, "reverse-i-search"));
	prompt_should_still_work();
}

Test(prompt_keys, ctrl_c_after_vi_mode_history_and_searches_should_leave_the_prompt_working, .fini = finish)
{
	start();
	run("b = 5", "5");
	run("bb = 6", "6");
	key("-H 1b 0a");	/* Alt-Ctrl-J: vi mode */
	key("Up");
	key("C-w");
	key("C-c");
	free(wait_for("Ctrl-C: line cleared"));
	key("C-r");
	type("b");
	key("-H 1b 3f");	/* Esc ?: vi's search of the history */
	type("bb");
	key("C-c");
	free(wait_for("Ctrl-C: line cleared"));
	key("Up");
	key("-H 1b 3f");
	key("C-c");
	free(wait_for("Ctrl-C: line cleared"));
	key("Up");
	key("C-w");
	key("Enter");
	prompt_should_still_work();
	/* the key fuzzer's (seed 32, cut down to 10 keys): a line that fails,
	 * Ctrl-V Esc, Ctrl-P, then Alt-P (a non-incremental search) and Ctrl-D,
	 * Enter in it, Ctrl-N, and a resize; then Ctrl-C */
	type("^");
	key("Enter");
	free(wait_for("^"));
	key("-H 16 1b 10");
	key("-H 1b 70");
	key("C-d");
	key("Enter");
	key("C-n");
	type("^");
	sh("tmux resize-window -t %s -x 28 -y 25%s", "");
	free(tmux_wait_without(session, ">>>"));	/* too small to draw */
	sh("tmux resize-window -t %s -x 100 -y 30%s", "");
	free(wait_for(">>>"));
	prompt_should_still_work();
}

Test(prompt_keys, a_failing_pasted_cell_then_down_and_a_resize_should_leave_the_prompt_working, .fini = finish)
{
	start();
	/* the key fuzzer's (seed 22, cut down to 4 keys): a bracketed paste of
	 * three lines whose first statement fails */
	key("-H 1b 5b 32 30 30 7e 0d 0a 22 6d 7b 20 32 3c 6e 65 3c 37 20 66 20 0a 4f 68 23 0d 0a 4b 5c 52 2a 27 33 "
	    "6b 20 79 47 61 5d 2d 51 1b 5b 32 30 31 7e");
	free(wait_for("K\\R*'3k yGa]-Q"));	/* back in the input */
	key("-H 1b 4f 42");	/* Down */
	sh("tmux resize-window -t %s -x 98 -y 49%s", "");
	free(wait_for(">>>"));
	key("9");
	prompt_should_still_work();
}

/* Each key stream the fuzzer found (the .keys files of tests/fuzz/keys/found, a crash
 * or a sanitizer report each, before the fixes) typed again, key by key as
 * the fuzzer did: qkv ends each (Ctrl-C, Ctrl-D) with exit 0 and no report. */
Test(prompt_keys, the_key_streams_the_fuzzer_found_should_replay_without_a_failure)
{
	if (access("build/keyfuzz", X_OK) != 0)
		cr_skip_test("build/keyfuzz is not built (make build/keyfuzz)");
	char supp[PATH_MAX];
	cr_assert(realpath("tests/fuzz/keys/lsan.supp", supp));
	DIR *d = opendir("tests/fuzz/keys/found");
	cr_assert(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 5, ".keys") != 0)
			continue;
		char cmd[2 * PATH_MAX + 512];
		snprintf(cmd, sizeof cmd, "LSAN_OPTIONS=suppressions=%s build/keyfuzz --replay tests/fuzz/keys/found/%s "
			 "-o /tmp/qkv-keys-%d.keys -- %s --repl >/dev/null 2>&1", supp, e->d_name, (int)getpid(),
			 qkv_binary());
		cr_expect_eq(system(cmd), 0, "%s fails again: its keys and report in /tmp/qkv-keys-%d.keys*", e->d_name,
			     (int)getpid());
		n++;
	}
	closedir(d);
	cr_assert_geq(n, 5, "the key files are missing");
}
