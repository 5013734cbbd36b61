/* test_help.c: lesson/commands.c in process: the ':' command lines both
 * prompts parse (the word, the argument and their columns, for a caret),
 * which prompt runs which command, and the help texts: every line of every
 * text, for both prompts, fits in 78 columns (measured by core/utf8, as the
 * screens measure), and a module's names wrap to the width asked for. */
#include <criterion/criterion.h>

#include "core/strbuf.h"
#include "core/utf8.h"
#include "lesson/commands.h"
#include "lesson/session.h"

#include <stdio.h>
#include <string.h>

/* The widest line of text, in columns; *at gets its number (1-based). */
static int widest_line(const char *text, int *at)
{
	int widest = 0, line = 1;
	*at = 0;
	for (const char *p = text;; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int w = utf8_width_n(p, n);
		if (w > widest) {
			widest = w;
			*at = line;
		}
		if (!nl)
			return widest;
		p = nl + 1;
	}
}

Test(help, every_help_text_of_both_prompts_should_fit_in_78_columns)
{
	const enum command_front fronts[] = { COMMAND_SCREEN, COMMAND_LINE };
	for (int f = 0; f < 2; f++) {
		int k = 0;
		const char *topic, *text;
		for (; (text = command_help_text(fronts[f], k, &topic)) != NULL; k++) {
			int at, w = widest_line(text, &at);
			cr_expect(w <= 78, "prompt %d, :help %s: line %d is %d columns wide", f, topic, at, w);
			cr_expect(text[strlen(text) - 1] != '\n', ":help %s ends in an empty line", topic);
		}
		cr_expect_geq(k, 7, "prompt %d has %d help texts", f, k);
	}
}

Test(help, every_topic_the_overview_names_should_have_a_text)
{
	const enum command_front fronts[] = { COMMAND_SCREEN, COMMAND_LINE };
	struct session *s = session_new(KERNEL_SIMD, 0);
	for (int f = 0; f < 2; f++) {
		const char *topic;
		const char *overview = command_help_text(fronts[f], 0, &topic);
		cr_assert_str_empty(topic);
		const char *more = strstr(overview, "More: :help ");
		cr_assert(more, "the overview names no topics: %s", overview);
		char list[200];
		snprintf(list, sizeof list, "%s", more + strlen("More: :help "));
		for (char *t = strtok(list, ", \n"); t; t = strtok(NULL, ", \n")) {
			struct strbuf out;
			strbuf_init(&out);
			struct qkv_error err;
			cr_expect_eq(command_help(&out, fronts[f], s, t, 80, &err), 0, "prompt %d: no help on %s", f, t);
			cr_expect(out.len > 0, "prompt %d: :help %s is empty", f, t);
			strbuf_free(&out);
		}
	}
	session_free(s);
}

Test(help, the_keys_should_differ_between_the_prompts)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct strbuf screen, line;
	strbuf_init(&screen);
	strbuf_init(&line);
	struct qkv_error err;
	cr_assert_eq(command_help(&screen, COMMAND_SCREEN, s, "keys", 80, &err), 0);
	cr_assert_eq(command_help(&line, COMMAND_LINE, s, "keys", 80, &err), 0);
	cr_expect(strstr(screen.s, "Esc closes the prompt"), "%s", screen.s);
	cr_expect(!strstr(line.s, "Esc"), "the line mode has no Esc: %s", line.s);
	cr_expect(strstr(line.s, "Ctrl-D on an empty line"), "%s", line.s);
	strbuf_free(&screen);
	strbuf_free(&line);
	session_free(s);
}

Test(help, a_module_should_list_its_names_wrapped_to_the_width)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	const int widths[] = { 40, 80, 200 };
	for (int i = 0; i < 3; i++) {
		struct strbuf out;
		strbuf_init(&out);
		struct qkv_error err;
		cr_assert_eq(command_help(&out, COMMAND_LINE, s, "torch", widths[i], &err), 0);
		cr_expect(strstr(out.s, "softmax") && strstr(out.s, "matmul"), "%s", out.s);
		int at, w = widest_line(out.s, &at);
		int limit = widths[i] < 78 ? widths[i] : 78;
		cr_expect(w <= limit, "width %d: line %d is %d columns", widths[i], at, w);
		strbuf_free(&out);
	}
	session_free(s);
}

Test(help, an_unknown_topic_should_say_so_and_name_what_to_try)
{
	struct session *s = session_new(KERNEL_SIMD, 0);
	struct strbuf out;
	strbuf_init(&out);
	struct qkv_error err;
	cr_expect_eq(command_help(&out, COMMAND_SCREEN, s, "nope", 80, &err), -1);
	cr_expect_str_eq(err.msg, "no help on 'nope' (try :help, :help keys or :help torch)");
	cr_expect_eq(out.len, 0);
	strbuf_free(&out);
	session_free(s);
}

Test(help, a_command_line_should_give_its_word_argument_and_columns)
{
	struct command c;
	cr_expect(!command_parse("X = [1 2]", &c));
	cr_expect(!command_parse("", &c));
	cr_assert(command_parse(":ls", &c));
	cr_expect_eq(c.id, CMD_LS);
	cr_expect_eq(c.col, 1);
	cr_expect_str_empty(c.arg);
	cr_assert(command_parse("  :show   X @ X.T  ", &c));
	cr_expect_eq(c.id, CMD_SHOW);
	cr_expect_str_eq(c.word, "show");
	cr_expect_eq(c.col, 3);
	cr_expect_str_eq(c.arg, "X @ X.T");
	cr_expect_eq(c.argcol, 11);
	cr_assert(command_parse(":save! out.json", &c));
	cr_expect_eq(c.id, CMD_SAVE_FORCE);
	cr_expect_str_eq(c.arg, "out.json");
	cr_assert(command_parse(":q", &c));
	cr_expect_eq(c.id, CMD_QUIT);
	cr_assert(command_parse(":frobnicate now", &c));
	cr_expect_eq(c.id, CMD_UNKNOWN);
	cr_expect_str_eq(c.word, "frobnicate");
}

Test(help, each_prompt_should_refuse_what_it_cannot_run_with_the_colon_column)
{
	struct command c;
	struct qkv_error err;
	command_parse("   :frob x", &c);
	cr_expect(!command_check(&c, COMMAND_SCREEN, &err));
	cr_expect_str_eq(err.msg, "unknown command ':frob' (:help lists them)");
	cr_expect_eq(err.col, 4);
	cr_expect(!command_check(&c, COMMAND_LINE, &err));
	command_parse(":clear", &c);
	cr_expect(command_check(&c, COMMAND_SCREEN, &err));
	cr_expect(!command_check(&c, COMMAND_LINE, &err));
	cr_expect(strstr(err.msg, "only in the full screen's prompt"), "%s", err.msg);
	const char *both[] = { ":ls", ":help keys", ":reset", ":show X", ":save a.json", ":save! a.json", ":load a",
			       ":quit", ":export X x.svg", ":export! X x.png", NULL };
	for (int i = 0; both[i]; i++) {
		command_parse(both[i], &c);
		cr_expect(command_check(&c, COMMAND_SCREEN, &err) && command_check(&c, COMMAND_LINE, &err), "%s",
			  both[i]);
	}
}

Test(help, export_should_take_its_last_word_as_the_file_and_the_rest_as_the_name)
{
	struct command c;
	struct qkv_error err;
	char expr[400], file[400];
	int ecol, fcol;
	cr_assert(command_parse("  :export!  Q @ K.T   out/s.svg ", &c));
	cr_expect_eq(c.id, CMD_EXPORT_FORCE);
	cr_assert(command_export_args(&c, expr, sizeof expr, &ecol, file, sizeof file, &fcol, &err));
	cr_expect_str_eq(expr, "Q @ K.T");
	cr_expect_eq(ecol, 13);
	cr_expect_str_eq(file, "out/s.svg");
	cr_expect_eq(fcol, 23);
	command_parse(":export W", &c);
	cr_expect_eq(c.id, CMD_EXPORT);
	cr_expect(!command_export_args(&c, expr, sizeof expr, &ecol, file, sizeof file, &fcol, &err));
	cr_expect(strstr(err.msg, ":export needs a name and a file"), "%s", err.msg);
	cr_expect_eq(err.col, 11, "after the name, where the file goes");
	command_parse(":export", &c);
	cr_expect(!command_export_args(&c, expr, sizeof expr, &ecol, file, sizeof file, &fcol, &err));
	cr_expect_eq(err.col, 8);
}

Test(help, export_should_have_a_help_topic_on_both_prompts)
{
	const enum command_front fronts[] = { COMMAND_SCREEN, COMMAND_LINE };
	struct session *s = session_new(KERNEL_SIMD, 0);
	for (int f = 0; f < 2; f++) {
		struct strbuf out;
		strbuf_init(&out);
		struct qkv_error err;
		cr_assert_eq(command_help(&out, fronts[f], s, "export", 78, &err), 0);
		cr_expect(strstr(out.s, ":export! NAME FILE"), "%s", out.s);
		strbuf_reset(&out);
		command_help(&out, fronts[f], s, "", 78, &err);
		cr_expect(strstr(out.s, ":export NAME F.svg"), "the overview: %s", out.s);
		strbuf_free(&out);
	}
	session_free(s);
}
