/* test_errline.c: view/errline.c in process, the line an error is about and
 * its caret, shared by qkv repl / eval (printed) and the full screen's prompt
 * (fitted to its width): the function's line a traceback ends on, from the
 * only source that can hold it or the last one, and a line wider than the
 * screen cut around the caret with "…" where it goes on. */
#include "core/error.h"
#include "core/strbuf.h"
#include "view/errline.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* The two rows errline_fit makes of line (caret at col) in width: want_row,
 * and the caret after `blanks` blanks. */
static void fit(const char *line, int col, int width, const char *want_row, int blanks)
{
	char want_caret[64];
	snprintf(want_caret, sizeof want_caret, "%*s^", blanks, "");
	struct errline e = { line, strlen(line), col };
	struct strbuf row, caret;
	strbuf_init(&row);
	strbuf_init(&caret);
	errline_fit(&e, width, &row, &caret);
	cr_expect_str_eq(row.s, want_row, "line \"%s\" col %d width %d", line, col, width);
	cr_expect_str_eq(caret.s, want_caret, "line \"%s\" col %d width %d", line, col, width);
	strbuf_free(&row);
	strbuf_free(&caret);
}

Test(errline, a_line_that_fits_should_be_shown_whole_with_the_caret_under_its_column)
{
	fit("return x + nope", 12, 40, "    return x + nope", 15);
	fit("return x", 9, 40, "    return x", 12);	/* just past the end */
	/* wide characters take two columns, a tab goes to the next multiple of 8 */
	fit("s = '\u65e5\u672c' + q", 12, 40, "    s = '\u65e5\u672c' + q", 17);
	fit("\tx = y", 6, 40, "        x = y", 12);
}

Test(errline, a_long_line_should_be_cut_around_the_caret_which_always_shows)
{
	const char *line = "abcdefghijklmnopqrstuvwxyz0123456789";	/* 36 columns */
	/* 20 columns: 4 of indentation, 16 of line */
	fit(line, 3, 20, "    abcdefghijklmno\u2026", 6);	/* the start: cut on the right */
	fit(line, 36, 20, "    \u2026vwxyz0123456789", 19);	/* the end: on the left */
	fit(line, 37, 20, "    \u2026wxyz0123456789", 19);	/* past the end */
	fit(line, 18, 20, "    \u2026klmnopqrstuvwx\u2026", 12);	/* both */
	/* every row within the width: a wide character the cut would split
	 * becomes a blank */
	fit("\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5  + nope", 17, 20,
	    "    \u2026 \u65e5\u65e5\u65e5  + nope", 18);
	fit("nope +\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5", 1, 20,
	    "    nope +\u65e5\u65e5\u65e5\u65e5 \u2026", 4);
}

/* the sources of a full screen's prompt: each statement numbered from 1 */
static const char *const typed[] = {
	"def f(x):\n    return x + nope\n",
	"def g(y): return 2 * f(y)\n",
	"def f(x):\n    y = x * 2\n    return y - never\n",
};

static bool function_line(int n, enum errline_pick pick, const char *msg, int line, int col, struct errline *e)
{
	struct errline_source s[3];
	for (int i = 0; i < n; i++)
		s[i] = (struct errline_source){ typed[i], strlen(typed[i]), 1 };
	struct qkv_error err;
	error_set(&err, line, col, "%s", msg);
	return errline_in_function(e, s, n, pick, &err);
}

Test(errline, the_functions_line_should_come_from_the_source_that_defines_it_there)
{
	struct errline e;
	/* g's line 1 calls f, whose line 2 raised it: the line is f's, without
	 * its indentation, the caret as far into it as the column was */
	cr_assert(function_line(2, ERRLINE_ONLY, "name 'nope' is not defined\n  line 1, in g\n  line 2, in f", 2,
				16, &e));
	cr_expect(e.len == strlen("return x + nope") && strncmp(e.text, "return x + nope", e.len) == 0);
	cr_expect_eq(e.col, 12);
	/* the traceback must end on the error's own line */
	cr_expect_not(function_line(2, ERRLINE_ONLY, "oops\n  line 2, in f", 3, 16, &e));
	cr_expect_not(function_line(2, ERRLINE_ONLY, "no traceback", 2, 16, &e));
}

Test(errline, a_later_def_of_the_name_should_be_taken_when_the_last_is_picked)
{
	struct errline e;
	const char *msg = "name 'never' is not defined\n  line 3, in f";
	/* line 3 of f: only the second def has one */
	cr_assert(function_line(3, ERRLINE_ONLY, msg, 3, 16, &e));
	cr_expect(strncmp(e.text, "return y - never", e.len) == 0);
	/* line 2 of f: both have one; nothing tells which unless the last wins */
	msg = "name 'nope' is not defined\n  line 2, in f";
	cr_expect_not(function_line(3, ERRLINE_ONLY, msg, 2, 5, &e));
	cr_assert(function_line(3, ERRLINE_LAST, msg, 2, 5, &e));
	cr_expect(e.len == strlen("y = x * 2") && strncmp(e.text, "y = x * 2", e.len) == 0);
	cr_expect_eq(e.col, 1);
}
