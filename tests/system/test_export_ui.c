/* test_export_ui.c: exporting from the full screen and the prompts, as issue
 * 16 asks: in a lesson (tmux, 80x24, 120x40 and with NO_COLOR) the e key
 * writes the view on the screen to a new SVG named after the lesson and
 * step, in the current directory or $QKV_EXPORT_DIR, never over a file, and
 * says where (or why not) on the status line; :export NAME FILE at the full
 * screen's prompt and in `qkv repl` (pipes) writes a tensor's heatmap, and
 * its mistakes get a caret under the name or the file. Every SVG written
 * is checked with xmllint. */
#include "system.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *session;
static char state[64], dir[64];

/* A lesson of five steps: a heatmap; a heatmap and the loops beside SIMD;
 * a step that shows nothing; a token view and a timing; a 3-D tensor of
 * softmax weights (slices, the temperature knob). */
static const char lesson[] =
	"{ \"format\": 1, \"id\": \"tiny-export\", \"title\": \"Export me\", \"source\": \"a test\",\n"
	"  \"summary\": \"Figures from the screen.\",\n"
	"  \"steps\": [\n"
	"    { \"title\": \"One matrix\", \"text\": \"X.\", \"code\": \"X = [0.5 -1.25; 2 0.125]\",\n"
	"      \"show\": { \"heatmap\": \"X\", \"rows\": [\"a\", \"b\"] } },\n"
	"    { \"title\": \"Two views\", \"text\": \"S.\", \"code\": \"S = X @ X.T\",\n"
	"      \"show\": [ { \"heatmap\": \"S\" }, { \"compare\": \"X @ X.T\" } ] },\n"
	"    { \"title\": \"Nothing to see\", \"text\": \"A number.\", \"code\": \"n = 3\" },\n"
	"    { \"title\": \"Tokens and time\", \"text\": \"W.\", \"code\": \"W = torch.softmax(X @ X.T, dim=-1)\",\n"
	"      \"show\": [ { \"tokens\": \"W\", \"labels\": [\"a\", \"b\"] },\n"
	"                { \"timing\": [ { \"label\": \"square\", \"code\": [\"Y = X @ X\"] } ] } ] },\n"
	"    { \"title\": \"Three dimensions\", \"text\": \"A.\",\n"
	"      \"code\": \"A = torch.softmax(torch.arange(12.).reshape(2, 2, 3) / 4, dim=-1)\",\n"
	"      \"show\": { \"heatmap\": \"A\" } }\n"
	"  ] }\n";

static void setup(void)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-exui-state");
	dir_make_temp(dir, sizeof dir, "qkv-exui");
	char path[128];
	snprintf(path, sizeof path, "%s/tiny.json", dir);
	file_put(path, lesson, sizeof lesson - 1);
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	dir_remove(dir);
}

/* qkv ARGS in a w x h pane, its current directory dir, with env (may be
 * NULL) before it. */
static void start_in_dir(int w, int h, const char *env, const char *args)
{
	char bin[PATH_MAX], cmd[PATH_MAX + 1024];
	cr_assert(realpath(qkv_binary(), bin), "no qkv binary at %s", qkv_binary());
	snprintf(cmd, sizeof cmd, "cd %s && TERM=xterm-256color XDG_STATE_HOME=%s %s %s %s; sleep 30", dir, state,
		 env ? env : "", bin, args);
	session = tmux_start(w, h, cmd);
}

/* The test fails unless path is a well-formed XML file with an <svg> root. */
static void assert_svg(const char *path)
{
	struct stat st;
	cr_assert(stat(path, &st) == 0 && S_ISREG(st.st_mode), "%s was not written", path);
	char *text = read_text(path);
	cr_assert(text && strstr(text, "<svg"), "%s is not SVG: %.200s", path, text ? text : "(unreadable)");
	free(text);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path);
	cr_assert_eq(system(cmd), 0, "xmllint rejects %s", path);
}

/* Waits until the screen shows want, then checks that DIR/file is SVG. */
static void see_svg(const char *want, const char *file)
{
	free(tmux_see(session, want));
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	assert_svg(path);
}

/* ---- the e key in a lesson ------------------------------------------------------------ */

/* Opens the lesson in a w x h pane (args after the file, env before qkv,
 * either may be NULL), waits for title, presses key and waits for want:
 * that screen (malloc'd). */
static char *open_and_press(int w, int h, const char *env, const char *args, const char *title, const char *key,
			    const char *want)
{
	char line[256];
	snprintf(line, sizeof line, "tiny.json %s", args ? args : "");
	start_in_dir(w, h, env, line);
	free(tmux_see(session, title));
	tmux_keys(session, key);
	return tmux_see(session, want);
}

static void e_exports(int w, int h, const char *env)
{
	setup();
	free(open_and_press(w, h, env, NULL, "One matrix", "e", "Exported to ./tiny-export-step-1.svg"));
	char first[128];
	snprintf(first, sizeof first, "%s/tiny-export-step-1.svg", dir);
	assert_svg(first);
	size_t n;
	char *before = file_read(first, &n);
	/* again: a new name, the first file as it was */
	tmux_keys(session, "e");
	see_svg("Exported to ./tiny-export-step-1-2.svg", "tiny-export-step-1-2.svg");
	file_assert_holds(first, before, n);
	free(before);
}

Test(export_ui, e_should_export_the_view_at_80x24, .fini = finish, .timeout = 120)
{
	e_exports(80, 24, NULL);
}

Test(export_ui, e_should_export_the_view_at_120x40, .fini = finish, .timeout = 120)
{
	e_exports(120, 40, NULL);
}

Test(export_ui, e_should_export_the_view_without_colour, .fini = finish, .timeout = 120)
{
	e_exports(80, 24, "NO_COLOR=1");
}

Test(export_ui, e_should_name_the_view_of_a_step_that_has_several_and_write_to_qkv_export_dir, .fini = finish,
     .timeout = 120)
{
	setup();
	char out[128], env[192];
	snprintf(out, sizeof out, "%s/figures", dir);
	cr_assert_eq(mkdir(out, 0700), 0);
	snprintf(env, sizeof env, "QKV_EXPORT_DIR=%s", out);
	char want[256], path[256];
	snprintf(want, sizeof want, "Exported to %s/tiny-export-step-2.svg", out);
	free(open_and_press(120, 40, env, "--step 2", "[1/2] heatmap: S", "e", want));
	snprintf(path, sizeof path, "%s/tiny-export-step-2.svg", out);
	assert_svg(path);
	/* the loops beside SIMD: e runs the loops to the end there, E exports */
	tmux_keys(session, "v");
	free(tmux_see(session, "[2/2] loops, unrolled, SIMD"));
	tmux_keys(session, "E");
	snprintf(want, sizeof want, "Exported to %s/tiny-export-step-2-view2.svg", out);
	free(tmux_see(session, want));
	snprintf(path, sizeof path, "%s/tiny-export-step-2-view2.svg", out);
	assert_svg(path);
	char *names = dir_list(dir);
	cr_assert_str_eq(names, "figures tiny.json ", "nothing is written to the current directory");
	free(names);
}

Test(export_ui, e_should_shorten_a_long_directory_to_fit_the_status_line, .fini = finish, .timeout = 120)
{
	setup();
	char out[192], env[256];
	snprintf(out, sizeof out, "%s/a-directory-with-a-name-much-too-long-for-the-line", dir);
	cr_assert_eq(mkdir(out, 0700), 0);
	snprintf(out + strlen(out), sizeof out - strlen(out), "/figures");
	cr_assert_eq(mkdir(out, 0700), 0);
	snprintf(env, sizeof env, "QKV_EXPORT_DIR=%s", out);
	free(open_and_press(80, 24, env, NULL, "One matrix", "e", "Exported to \u2026/figures/tiny-export-step-1.svg"));
	char path[256];
	snprintf(path, sizeof path, "%s/tiny-export-step-1.svg", out);
	assert_svg(path);
}

Test(export_ui, e_should_say_why_when_the_directory_is_missing_and_lose_nothing, .fini = finish, .timeout = 120)
{
	setup();
	char env[192];
	snprintf(env, sizeof env, "QKV_EXPORT_DIR=%s/no-such-dir", dir);
	char *s = open_and_press(80, 24, env, NULL, "One matrix", "e", "Not exported: ");
	cr_assert(strstr(s, "no-such-dir"), "the message should name the directory: %s", s);
	cr_assert(strstr(s, "heatmap: X"), "the view should stay: %s", s);
	free(s);
	/* the program goes on: the next step, and an export there once the
	 * directory exists */
	char made[128];
	snprintf(made, sizeof made, "%s/no-such-dir", dir);
	cr_assert_eq(mkdir(made, 0700), 0);
	tmux_keys(session, "n");
	free(tmux_see(session, "Two views"));
	tmux_keys(session, "e");
	free(tmux_see(session, "tiny-export-step-2.svg"));
	char path[192];
	snprintf(path, sizeof path, "%s/tiny-export-step-2.svg", made);
	assert_svg(path);
}

Test(export_ui, e_should_say_so_when_the_step_shows_nothing, .fini = finish, .timeout = 120)
{
	setup();
	free(open_and_press(80, 24, NULL, "--step 3", "Nothing to see", "e", "Nothing to export: this step shows no view."));
	char *names = dir_list(dir);
	cr_assert_str_eq(names, "tiny.json ", "no file is written");
	free(names);
}

Test(export_ui, e_should_export_a_token_view_and_a_timing, .fini = finish, .timeout = 120)
{
	setup();
	/* the token view on the second query token, as the screen shows it */
	free(open_and_press(120, 40, NULL, "--step 4", "Tokens and time", "Tab Down", "query token: b"));
	tmux_keys(session, "e");
	see_svg("Exported to ./tiny-export-step-4.svg", "tiny-export-step-4.svg");
	tmux_keys(session, "v");
	free(tmux_see(session, "[2/2] timing"));
	tmux_keys(session, "e");
	see_svg("Exported to ./tiny-export-step-4-view2.svg", "tiny-export-step-4-view2.svg");
}

/* Presses keys then e, waits for the k-th figure of step 5 (k from 1) and
 * returns its text with cairo's surface numbers (which count the figures
 * drawn) taken out: the figure alone (malloc'd). */
static char *keys_then_e(const char *keys, int k)
{
	char name[64], want[128], path[192];
	snprintf(name, sizeof name, k > 1 ? "tiny-export-step-5-%d.svg" : "tiny-export-step-5.svg", k);
	tmux_keys(session, keys);
	snprintf(want, sizeof want, "Exported to ./%s", name);
	see_svg(want, name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char *text = read_text(path);
	for (char *p = text; (p = strstr(p, "surface")) != NULL;) {
		p += 7;
		size_t n = strspn(p, "0123456789");
		memmove(p, p + n, strlen(p + n) + 1);
	}
	return text;
}

Test(export_ui, e_should_export_the_slice_the_temperature_and_the_numbers_the_screen_shows, .fini = finish,
     .timeout = 120)
{
	setup();
	free(open_and_press(120, 40, NULL, "--step 5", "Three dimensions", "Tab", "batch 0"));
	char *first = keys_then_e("e", 1);
	char *other = keys_then_e("] e", 2);
	cr_expect_str_neq(other, first, "batch 1 is not batch 0");
	free(other);
	char *again = keys_then_e("[ e", 3);
	cr_expect_str_eq(again, first, "batch 0 again, the same figure");
	free(again);
	char *hot = keys_then_e("t e", 4);
	cr_expect_str_neq(hot, first, "the scores x2 change the weights");
	free(hot);
	char *narrow = keys_then_e("0 - e", 5);
	cr_expect_str_neq(narrow, first, "fewer decimals on the screen, fewer in the figure");
	free(narrow);
	free(first);
}

Test(export_ui, the_keys_should_name_e_in_the_help_and_the_status_line, .fini = finish, .timeout = 120)
{
	setup();
	free(open_and_press(120, 40, NULL, NULL, "e export", "?", "export the view to a new SVG file"));
}

/* in the loops beside SIMD, e runs the panels to the end: the status line
 * names E for the export there */
Test(export_ui, the_status_line_should_name_E_in_a_compare_view, .fini = finish, .timeout = 120)
{
	setup();
	free(open_and_press(160, 40, NULL, "--step 2", "[1/2] heatmap: S", "v", "[2/2] loops, unrolled, SIMD"));
	tmux_keys(session, "Tab");
	char *s = tmux_see(session, "E export");
	cr_expect(!strstr(s, " e export"), "%s", s);
	free(s);
}

/* ---- the full screen's prompt: :export and e ------------------------------------------------- */

/* At the prompt: types line, which fails with msg and a caret under its
 * column col (1-based), then clears the line (it stays in the input). */
static void prompt_error(const char *line, const char *msg, int col)
{
	tmux_line(session, line);
	char *s = tmux_see(session, msg);
	cr_assert_eq(screen_caret_column(s, msg), 4 + col - 1, "the caret of %s:\n%s", line, s);
	free(s);
	tmux_keys(session, "C-u");
}

/* At the prompt: types line, waits for its value titled title, gives the
 * view the keys (Tab) and presses e: the figure goes to file in dir. */
static void view_e(const char *line, const char *title, const char *file)
{
	tmux_line(session, line);
	free(tmux_see(session, title));
	tmux_keys(session, "Tab");
	free(tmux_see(session, "(Tab: back to the line)"));
	tmux_keys(session, "e");
	char want[192];
	snprintf(want, sizeof want, "Exported to ./%s", file);
	see_svg(want, file);
}

static void prompt_export(int w, int h, const char *env)
{
	setup();
	start_in_dir(w, h, env, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "X = [1 2; 3 4]");
	free(tmux_see(session, "X  (2\u00d72, float32)"));
	tmux_line(session, ":export X x.svg");
	see_svg("Exported X (2\u00d72) to x.svg.", "x.svg");
	/* again: refused, the caret under the file; :export! replaces it */
	prompt_error(":export X x.svg", "x.svg exists (:export! replaces it)", 11);
	tmux_line(session, ":export! X @ X x.pdf");
	free(tmux_see(session, "Exported X @ X (2\u00d72) to x.pdf."));
	prompt_error(":export Y y.svg", "name 'Y' is not defined", 9);
	prompt_error(":export X x.gif", "unknown extension '.gif'", 11);
	/* the e key, with the view's keys (Tab on the empty line) */
	view_e("X", "X  (2\u00d72, float32)", "qkv-X.svg");
	/* the loops beside SIMD: e runs them to the end, E exports */
	tmux_line(session, ":show X @ X loops");
	free(tmux_see(session, "loops and SIMD agree"));
	tmux_keys(session, "Tab E");
	see_svg("Exported to ./qkv-X-X.svg", "qkv-X-X.svg");
	char *names = dir_list(dir);
	cr_assert_str_eq(names, "qkv-X-X.svg qkv-X.svg tiny.json x.pdf x.svg ", "%s", names);
	free(names);
}

Test(export_ui, export_at_the_full_screen_prompt_should_write_files_and_place_carets_at_80x24, .fini = finish,
     .timeout = 120)
{
	prompt_export(80, 24, NULL);
}

Test(export_ui, export_at_the_full_screen_prompt_should_write_files_and_place_carets_at_120x40, .fini = finish,
     .timeout = 120)
{
	prompt_export(120, 40, "NO_COLOR=1");
}

Test(export_ui, e_in_a_lessons_prompt_should_name_the_file_after_the_step, .fini = finish, .timeout = 120)
{
	setup();
	free(open_and_press(120, 40, NULL, "--step 2", "Two views", ":", ">>>"));
	view_e("S * 2", "S * 2  (2\u00d72, float32)", "tiny-export-step-2-S-2.svg");
}

/* ---- qkv repl, from a pipe ------------------------------------------------------------------------ */

Test(export_ui, export_in_qkv_repl_should_write_files_and_place_carets_on_stderr)
{
	char d[64];
	dir_make_temp(d, sizeof d, "qkv-exui-repl");
	char in[1024];
	snprintf(in, sizeof in,
		 "W = torch.softmax(torch.tensor([[1., 2.], [3., 1.]]), dim=-1)\n"
		 ":export W %s/w.svg\n"
		 ":export W %s/w.svg\n"
		 ":export! W %s/w.svg\n"
		 ":export W[0] %s/row.png\n"
		 ":export V %s/v.svg\n"
		 ":export W %s/w.txt\n"
		 ":export W\n"
		 ":export 2 + 1 %s/n.svg\n"
		 ":export W %s/missing/w.svg\n",
		 d, d, d, d, d, d, d, d);
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, in, NULL, &out, &err);
	cr_assert_eq(rc, 2, "errors from a pipe exit 2: %d\n%s%s", rc, out, err);
	char want[256];
	snprintf(want, sizeof want, "Exported W (2\u00d72) to %s/w.svg.\n", d);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert(strstr(strstr(out, want) + 1, want), "export! replaced it: %s", out);
	snprintf(want, sizeof want, "Exported W[0] (2) to %s/row.png.\n", d);
	cr_assert(strstr(out, want), "%s", out);
	/* each error: the line, the caret under its column, the message */
	struct {
		const char *line_start, *msg;
		int col;   /* 1-based in the line */
	} errs[] = {
		{ ":export W ", "exists (:export! replaces it)", 11 },
		{ ":export V ", "name 'V' is not defined", 9 },
		{ ":export W ", "unknown extension '.txt'", 11 },
		{ ":export W\n", ":export needs a name and a file", 11 },
		{ ":export 2 + 1 ", "2 + 1 is not a tensor", 9 },
		{ ":export W ", "missing/w.svg", 11 },
	};
	/* errors come one after another as "    LINE\n    ^\nerror: MSG\n" (the
	 * caret 4 columns in, under the line) */
	const char *at = err;
	for (size_t i = 0; i < sizeof errs / sizeof *errs; i++) {
		const char *e = strstr(at, "\nerror: ");
		cr_assert(e, "no error for '%s' in:\n%s", errs[i].msg, err);
		const char *end = strchr(e + 1, '\n');
		char msg[512];
		snprintf(msg, sizeof msg, "%.*s", end ? (int)(end - e) : 0, e);
		cr_assert(strstr(msg, errs[i].msg), "not '%s' in:\n%s", errs[i].msg, err);
		const char *caret = e;
		while (caret > err && caret[-1] != '\n')
			caret--;
		const char *line = caret - 1;
		while (line > err && line[-1] != '\n')
			line--;
		cr_assert_eq((int)(strchr(caret, '^') - caret), 4 + errs[i].col - 1, "caret of '%s':\n%s", errs[i].msg,
			     err);
		cr_assert(strncmp(line, "    ", 4) == 0 && strncmp(line + 4, errs[i].line_start,
							       strlen(errs[i].line_start)) == 0,
			  "line of '%s':\n%s", errs[i].msg, err);
		at = end;
	}
	cr_assert(!strstr(at, "\nerror: "), "more errors than expected:\n%s", err);
	/* the files: w.svg and row.png, nothing else */
	char *names = dir_list(d);
	cr_assert_str_eq(names, "row.png w.svg ", "%s", names);
	free(names);
	char path[128];
	snprintf(path, sizeof path, "%s/w.svg", d);
	assert_svg(path);
	free(out);
	free(err);
	dir_remove(d);
}
