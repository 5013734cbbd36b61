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

static const char *session;
static char state[128];

/* qkv --repl in a 100x30 terminal with a state directory of its own; the
 * shell says how qkv ended, if it does. */
static void start(void)
{
	snprintf(state, sizeof state, "/tmp/qkv-keys-%d", (int)getpid());
	dir_remove(state);
	session = tmux_start_qkv(100, 30, state, NULL, "--repl", "echo QKV-EXIT=$?; sleep 30");
	free(tmux_see(session, ">>>"));
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

/* Runs a line and waits for its value. */
static void run(const char *line, const char *value)
{
	tmux_type(session, line);
	tmux_keys(session, "Enter");
	free(tmux_see(session, value));
}

/* qkv is still there and its prompt works: Ctrl-C drops what the keys
 * left in the line, and a statement shows its value. */
static void prompt_should_still_work(void)
{
	tmux_keys(session, "C-c");
	free(tmux_see(session, "Ctrl-C: "));	/* line or block cleared */
	tmux_type(session, "6 * 7");
	tmux_keys(session, "Enter");
	char *s = tmux_see(session, "42");
	cr_assert(!strstr(s, "QKV-EXIT="), "qkv ended:\n%s", s);
	free(s);
}

Test(prompt_keys, ctrl_r_ctrl_x_a_should_end_the_search_and_leave_the_prompt_working, .fini = finish)
{
	start();
	run("a = 41", "41");
	tmux_keys(session, "C-r");
	tmux_type(session, "a =");
	free(tmux_see(session, "reverse-i-search"));
	tmux_keys(session, "C-x");
	tmux_keys(session, "a");	/* Ctrl-X a: no command; the search ended on Ctrl-X, keeping its line */
	char *s = tmux_wait_without(session, "reverse-i-search");
	cr_assert(strstr(s, ">>> a = 41") && !strstr(s, "QKV-EXIT="), "%s", s);
	free(s);
	prompt_should_still_work();
	/* the same without a match, and Ctrl-X Ctrl-R (another prefix) */
	tmux_keys(session, "C-r");
	tmux_type(session, "zzz");
	free(tmux_see(session, "failed reverse-i-search"));
	tmux_keys(session, "C-x");
	tmux_keys(session, "C-r");
	free(tmux_wait_without(session, "reverse-i-search"));
	prompt_should_still_work();
}

Test(prompt_keys, ctrl_c_after_vi_mode_history_and_searches_should_leave_the_prompt_working, .fini = finish)
{
	start();
	run("b = 5", "5");
	run("bb = 6", "6");
	tmux_keys(session, "-H 1b 0a");	/* Alt-Ctrl-J: vi mode */
	tmux_keys(session, "Up");
	tmux_keys(session, "C-w");
	tmux_keys(session, "C-c");
	free(tmux_see(session, "Ctrl-C: line cleared"));
	tmux_keys(session, "C-r");
	tmux_type(session, "b");
	tmux_keys(session, "-H 1b 3f");	/* Esc ?: vi's search of the history */
	tmux_type(session, "bb");
	tmux_keys(session, "C-c");
	free(tmux_see(session, "Ctrl-C: line cleared"));
	tmux_keys(session, "Up");
	tmux_keys(session, "-H 1b 3f");
	tmux_keys(session, "C-c");
	free(tmux_see(session, "Ctrl-C: line cleared"));
	tmux_keys(session, "Up");
	tmux_keys(session, "C-w");
	tmux_keys(session, "Enter");
	prompt_should_still_work();
	/* the key fuzzer's (seed 32, cut down to 10 keys): a line that fails,
	 * Ctrl-V Esc, Ctrl-P, then Alt-P (a non-incremental search) and Ctrl-D,
	 * Enter in it, Ctrl-N, and a resize; then Ctrl-C */
	tmux_type(session, "^");
	tmux_keys(session, "Enter");
	free(tmux_see(session, "^"));
	tmux_keys(session, "-H 16 1b 10");
	tmux_keys(session, "-H 1b 70");
	tmux_keys(session, "C-d");
	tmux_keys(session, "Enter");
	tmux_keys(session, "C-n");
	tmux_type(session, "^");
	tmux_resize(session, 28, 25);
	free(tmux_wait_without(session, ">>>"));	/* too small to draw */
	tmux_resize(session, 100, 30);
	free(tmux_see(session, ">>>"));
	prompt_should_still_work();
}

Test(prompt_keys, a_failing_pasted_cell_then_down_and_a_resize_should_leave_the_prompt_working, .fini = finish)
{
	start();
	/* the key fuzzer's (seed 22, cut down to 4 keys): a bracketed paste of
	 * three lines whose first statement fails */
	tmux_keys(session, "-H 1b 5b 32 30 30 7e 0d 0a 22 6d 7b 20 32 3c 6e 65 3c 37 20 66 20 0a 4f 68 23 0d 0a 4b 5c "
		  "52 2a 27 33 6b 20 79 47 61 5d 2d 51 1b 5b 32 30 31 7e");
	free(tmux_see(session, "K\\R*'3k yGa]-Q"));	/* back in the input */
	tmux_keys(session, "-H 1b 4f 42");	/* Down */
	tmux_resize(session, 98, 49);
	free(tmux_see(session, ">>>"));
	tmux_keys(session, "9");
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
