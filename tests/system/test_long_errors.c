/* test_long_errors.c: an error naming a path of hundreds of characters
 * keeps its end, the reason, wherever it is told: qkv repl's :load (a file
 * missing, a file with a syntax error), qkv check and qkv run of a missing
 * lesson, and the full screen's prompt (tmux). A :load argument too long to
 * hold whole is refused, never cut to a shorter file name. The lesson
 * loader's messages and warnings (a lesson under a long path, a long key,
 * a long message of its code) and the note about a long QKV_LESSONS keep
 * theirs too. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

/* dir/ddd.../ddd.../NAME, each directory 100 'd's, about len bytes in all;
 * the directories are made. */
static void deep_path(char *buf, size_t size, size_t len, const char *name)
{
	dir_make_temp(dir, sizeof dir, "qkv-long");
	size_t n = (size_t)snprintf(buf, size, "%s", dir);
	while (n + 101 + strlen(name) + 1 < len && n + 102 < size) {
		buf[n++] = '/';
		memset(buf + n, 'd', 100);
		n += 100;
		buf[n] = 0;
		mkdir(buf, 0700);
	}
	snprintf(buf + n, size - n, "/%s", name);
}

static void finish(void)
{
	if (dir[0])
		dir_remove(dir);
	dir[0] = 0;
}

/* qkv ARGS (argv, NULL-terminated) with input on stdin: its stderr must
 * hold path, whole, followed by reason. */
static void expect_whole(const char *const *argv, const char *input, const char *path, const char *reason)
{
	char *out, *err, want[2048];
	run_qkv(argv, input, NULL, &out, &err);
	snprintf(want, sizeof want, "%s%s", path, reason);
	cr_expect(strstr(err, want) != NULL, "%s: the message lost its end:\n%s", argv[1], err);
	free(out);
	free(err);
}

Test(long_errors, load_of_a_missing_file_with_a_long_path_should_say_why, .fini = finish)
{
	char path[1024], input[1100];
	deep_path(path, sizeof path, 700, "nowhere.py");
	snprintf(input, sizeof input, ":load %s\n", path);
	const char *argv[] = { "qkv", "repl", NULL };
	expect_whole(argv, input, path, ": No such file or directory");
}

Test(long_errors, load_of_a_long_path_with_a_syntax_error_should_name_its_line, .fini = finish)
{
	char path[1024], input[1100];
	deep_path(path, sizeof path, 700, "cell.py");
	const char cell[] = "x = 1\ny = x +* 2\n";
	file_put(path, cell, sizeof cell - 1);
	snprintf(input, sizeof input, ":load %s\nx\n", path);
	const char *argv[] = { "qkv", "repl", NULL };
	expect_whole(argv, input, path, ":2:8: unexpected '*'");
	/* and nothing of it ran */
	char *out, *err;
	run_qkv(argv, input, NULL, &out, &err);
	cr_expect(strstr(err, "name 'x' is not defined"), "%s", err);
	free(out);
	free(err);
}

Test(long_errors, check_and_run_of_a_missing_lesson_with_a_long_path_should_say_why, .fini = finish)
{
	char path[1024];
	deep_path(path, sizeof path, 600, "lesson.json");
	const char *check[] = { "qkv", "check", path, NULL };
	expect_whole(check, NULL, path, ": No such file or directory");
	const char *run[] = { "qkv", "run", path, NULL };
	expect_whole(run, NULL, path, ": No such file or directory");
}

/* past what a command holds: refused, never a shorter name loaded */
Test(long_errors, a_load_argument_too_long_to_hold_should_be_refused)
{
	size_t n = 5000;
	char *input = malloc(n + 16);
	memcpy(input, ":load /tmp/", 11);
	memset(input + 11, 'x', n);
	strcpy(input + 11 + n, "\n");
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	cr_expect_eq(run_qkv(argv, input, NULL, &out, &err), 2);
	cr_expect(strstr(err, "error: what follows :load is longer than the 4351 bytes a command takes"), "%s",
		  err + (strlen(err) > 200 ? strlen(err) - 200 : 0));
	free(out);
	free(err);
	free(input);
}

/* the full screen's prompt at w x h (NO_COLOR at 80x24): the reason is on
 * the screen, after the path */
static void load_on_screen(int w, int h, const char *env)
{
	char path[1024], line[1100];
	deep_path(path, sizeof path, 420, "nowhere.py");
	char state[128];
	snprintf(state, sizeof state, "/tmp/qkv-long-state-%d", (int)getpid());
	const char *session = tmux_start_qkv(w, h, state, env, "--repl", "sleep 30");
	free(tmux_see(session, ">>>"));
	snprintf(line, sizeof line, ":load %s", path);
	tmux_line(session, line);
	char *s = tmux_see(session, "directory");
	/* the message wrapped on the screen: its words in order */
	cr_expect(strstr(s, "nowhere.py: No such file or") || strstr(s, "nowhere.py: No such file\n"), "%s", s);
	free(s);
	tmux_private_server_end();
	dir_remove(state);
	finish();
}

Test(long_errors, load_in_the_full_screen_should_show_the_reason, .fini = finish)
{
	load_on_screen(80, 24, "NO_COLOR=1");
	load_on_screen(120, 40, NULL);
}

/* :export to a long path: what it says it wrote, and that it will not
 * write over it, name the whole path */
Test(long_errors, export_to_a_long_path_should_name_it_whole, .fini = finish)
{
	char path[1024], input[2300];
	deep_path(path, sizeof path, 650, "x.svg");
	snprintf(input, sizeof input, "X = [1 2; 3 4]\n:export X %s\n:export X %s\n", path, path);
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err, want[1200];
	run_qkv(argv, input, NULL, &out, &err);
	snprintf(want, sizeof want, "to %s.\n", path);
	cr_expect(strstr(out, want), "%s", out);
	snprintf(want, sizeof want, "error: %s exists (:export! replaces it)\n", path);
	cr_expect(strstr(err, want), "%s", err);
	free(out);
	free(err);
}

/* ---- a lesson file's messages ----------------------------------------------------------- */

/* A lesson under a path of about 440 characters: its step 0 has code
 * (one line) and an unknown field called key given twice (or once), at
 * columns col[0] and col[1] of line 4. */
static void long_lesson(char *path, size_t size, const char *name, const char *code, const char *key, bool twice,
			int col[2])
{
	deep_path(path, size, 440, name);
	cr_assert(strlen(path) >= 400, "%s", path);
	char text[4096];
	snprintf(text, sizeof text,
		 "{\n  \"format\": 1, \"id\": \"t\", \"title\": \"T\", \"source\": \"s\", \"summary\": \"s\",\n"
		 "  \"steps\": [\n    { \"title\": \"a\", \"text\": [\"x\"], \"code\": [\"X = 1\", \"%s\"], \"%s\": 1%s%s%s }\n"
		 "  ]\n}\n",
		 code, key, twice ? ", \"" : "", twice ? key : "", twice ? "\": 2" : "");
	file_put(path, text, strlen(text));
	const char *line4 = strstr(text, "    { ");
	char quoted[320];
	snprintf(quoted, sizeof quoted, "\"%s\"", key);
	const char *first = strstr(line4, quoted), *second = strstr(first + 1, quoted);
	col[0] = (int)(first - line4) + 1;
	col[1] = second ? (int)(second - line4) + 1 : 0;
}

/* Runs qkv argv: exit status 2, and stderr holds each of want whole. */
static void expect_refused(const char *const *argv, const char *const *want)
{
	char *out, *err;
	cr_expect_eq(run_qkv(argv, NULL, NULL, &out, &err), 2, "%s %s: %s", argv[1], argv[2], err);
	for (int i = 0; want[i]; i++)
		cr_expect(strstr(err, want[i]), "%s: the message lost its end:\n%s\nwant:\n%s", argv[1], err, want[i]);
	free(out);
	free(err);
}

/* a key path of 300 characters given twice, and warned about: the lesson
 * file's place, the key path and the message whole (they were cut at 256
 * bytes: the key, and all after it) */
Test(long_errors, check_of_a_lesson_with_a_long_path_and_key_should_keep_the_messages_end, .fini = finish)
{
	char path[1024], key[301], want[3][2048];
	memset(key, 'k', 300);
	key[300] = 0;
	int col[2];
	long_lesson(path, sizeof path, "dup.json", "Y = X + 1", key, true, col);
	snprintf(want[0], sizeof want[0], "qkv: %s:4:%d: steps[0].%s: '%s' is given twice\n", path, col[1], key, key);
	snprintf(want[1], sizeof want[1], "%s:4:%d: steps[0].%s: warning: unknown field '%s' (ignored)\n", path,
		 col[0], key, key);
	const char *const wants[] = { want[0], want[1], NULL };
	const char *check[] = { "qkv", "check", path, NULL };
	expect_refused(check, wants);
	const char *run[] = { "qkv", "run", "--plain", path, NULL };
	expect_refused(run, wants);
}

/* the code's error names a name of 300 characters: FILE:LINE:COL: the
 * statement's path, the interpreter's message whole */
Test(long_errors, check_and_run_of_a_lesson_whose_code_fails_should_keep_the_messages_end, .fini = finish)
{
	char path[1024], name[301], code[400], want[2048];
	memset(name, 'n', 300);
	name[300] = 0;
	snprintf(code, sizeof code, "Y = X + %s", name);
	int col[2];
	long_lesson(path, sizeof path, "name.json", code, "k", false, col);
	/* the name, 8 characters into the second line of code, at column 55 */
	snprintf(want, sizeof want, "qkv: %s:4:%d: steps[0].code[1]: name '%s' is not defined\n", path, 55 + 8, name);
	const char *const wants[] = { want, NULL };
	const char *check[] = { "qkv", "check", path, NULL };
	expect_refused(check, wants);
	const char *run[] = { "qkv", "run", "--plain", path, NULL };
	expect_refused(run, wants);
}

/* QKV_LESSONS naming a directory of 1100 characters that is not there:
 * the note names it whole, and why (it was cut at 1024 bytes) */
Test(long_errors, a_long_lessons_directory_that_cannot_be_read_should_be_named_whole, .fini = finish)
{
	char path[1400], env[1500], want[1500];
	deep_path(path, sizeof path, 1100, "missing");
	snprintf(env, sizeof env, "QKV_LESSONS=%s", path);
	const char *argv[] = { "qkv", "list", NULL };
	char *out, *err;
	run_qkv(argv, NULL, env, &out, &err);
	snprintf(want, sizeof want, "QKV_LESSONS=%s: cannot read the directory: No such file or directory", path);
	cr_expect(strstr(err, want), "%s", err);
	free(out);
	free(err);
}
