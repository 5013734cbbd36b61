/* test_verdict_text.c: an exercise's verdict quotes the lesson (the
 * question when solved, the answer when a solution misses it), and a
 * lesson's text can be longer than the verdict's room: it is cut at a
 * character, never inside one, so the prompt and qkv check never show
 * half a character. */
#include "core/utf8.h"
#include "lesson/lesson.h"
#include "lesson/runner.h"
#include "lesson/session.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether s is whole characters (no U+FFFD from a cut sequence). */
static bool whole_characters(const char *s)
{
	for (size_t n = strlen(s), i = 0; i < n;) {
		uint32_t cp;
		i += (size_t)utf8_decode(s + i, n - i, &cp);
		if (cp == 0xFFFD)
			return false;
	}
	return true;
}

/* A lesson of one step whose exercise asks a question of 'a' and 400 'é'
 * (801 bytes) and whose answer quotes a string of 300 'é'. */
static struct lesson *long_lesson(void)
{
	char ask[1024] = "a", quote[1024] = "";	/* "a": the 'é' pairs straddle the end */
	for (int i = 0; i < 400; i++)
		strcat(ask, "\u00e9");
	for (int i = 0; i < 300; i++)
		strcat(quote, "\u00e9");
	char json[4096];
	snprintf(json, sizeof json,
		 "{\"id\": \"v\", \"title\": \"V\", \"source\": \"tests\", \"summary\": \"s\", \"steps\": ["
		 "{\"title\": \"T\", \"text\": \"x\", \"code\": [\"X = torch.ones(2)\"], \"exercise\": ["
		 "{\"ask\": \"%s\", \"answer\": \"X * 2\", \"solution\": \"Y = X * 2\"},"
		 "{\"ask\": \"q\", \"answer\": \"X * len('%s')\", \"solution\": \"Y = X\"}]}]}",
		 ask, quote);
	struct qkv_error err;
	struct lesson *l = lesson_parse("v.json", json, strlen(json), NULL, NULL, &err);
	cr_assert_not_null(l, "%s", err.msg);
	return l;
}

Test(verdict_text, a_solved_exercises_long_question_should_be_cut_at_a_character)
{
	struct lesson *l = long_lesson();
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct qkv_error err;
	cr_assert_eq(runner_step(r, NULL, &err), 0, "%s", err.msg);
	struct session *s = session_new_copy(runner_interp(r));
	session_set_exercises(s, l->steps[0].exercises, l->steps[0].nexercises);
	const char *line = "Y = X * 2";
	cr_assert_eq(session_run(s, line, strlen(line), 1, SESSION_ATOMIC, &err), SESSION_OK, "%s", err.msg);
	cr_assert(session_exercise_solved(s, 0));
	const char *v = session_exercise_verdict(s);
	cr_assert(strncmp(v, "\u2713 Exercise solved: a\u00e9\u00e9", 25) == 0, "%s", v);
	cr_assert(strlen(v) > 300 && whole_characters(v), "%s", v);
	session_free(s);
	runner_free(r);
	lesson_free(l);
}

Test(verdict_text, a_missed_answers_long_quote_should_be_cut_at_a_character)
{
	struct lesson *l = long_lesson();
	struct runner *r = runner_new(l, KERNEL_SIMD);
	struct qkv_error err;
	cr_assert_eq(runner_step(r, NULL, &err), 0, "%s", err.msg);
	bool solved = true;
	char detail[255];	/* odd: the 'é' pairs straddle the end */
	cr_assert_eq(runner_check_exercise(r, &l->steps[0], 1, &solved, detail, sizeof detail, &err), 0, "%s",
		     err.msg);
	cr_assert_not(solved);
	cr_assert(strncmp(detail, "its solution does not produce the answer 'X * len('\u00e9", 52) == 0, "%s", detail);
	cr_assert(strlen(detail) > 200 && whole_characters(detail), "%s", detail);
	runner_free(r);
	lesson_free(l);
}
