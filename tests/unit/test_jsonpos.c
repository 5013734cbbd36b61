/* test_jsonpos.c: the pre-scans of lesson/jsonpos that name what cJSON
 * only reports as "unexpected" (or takes in silently): nesting past its
 * limit, \u0000 and lone surrogates in strings. */
#include "lesson/jsonpos.h"

#include <criterion/criterion.h>
#include <string.h>

static size_t bad_escape(const char *text, unsigned *unit)
{
	return jsonpos_bad_escape(text, strlen(text), 0, unit);
}

Test(jsonpos, bad_escape_should_find_a_nul_escape)
{
	unsigned u = 99;
	cr_assert_eq(bad_escape("{\"a\": \"x\\u0000y\"}", &u), 8);
	cr_assert_eq(u, 0);
}

Test(jsonpos, bad_escape_should_find_lone_surrogates_but_not_pairs)
{
	unsigned u = 0;
	cr_assert_eq(bad_escape("[\"\\ud83d\\ude00\", \"\\ud800x\"]", &u), 18);
	cr_assert_eq(u, 0xD800);
	cr_assert_eq(bad_escape("[\"\\uDC00\"]", &u), 2);
	cr_assert_eq(u, 0xDC00);
	cr_assert_eq(bad_escape("[\"\\ud800\\u0041\"]", &u), 2);
	cr_assert_eq(u, 0xD800);
	cr_assert_eq(bad_escape("[\"\\ud800", &u), 2, "a high surrogate at the end of the text");
}

Test(jsonpos, bad_escape_should_skip_escaped_backslashes_and_text_outside_strings)
{
	unsigned u = 0;
	cr_assert_eq(bad_escape("[\"\\\\u0000\", \"\\\"\\u0041\"]", &u), (size_t)-1);
	cr_assert_eq(bad_escape("[1, 2, \"\\u00e9\\n\"]", &u), (size_t)-1);
}

Test(jsonpos, too_deep_should_find_the_first_bracket_past_the_limit)
{
	char text[64];
	memset(text, '[', 10);
	memset(text + 10, ']', 10);
	text[20] = 0;
	cr_assert_eq(jsonpos_too_deep(text, 20, 0, 10), (size_t)-1);
	cr_assert_eq(jsonpos_too_deep(text, 20, 0, 9), 9);
	cr_assert_eq(jsonpos_too_deep("{\"[[[\": [[1]]}", 14, 0, 3), (size_t)-1, "brackets in a string");
	cr_assert_eq(jsonpos_too_deep("{\"a\": [[[1]]]}", 14, 0, 3), 8);
}

/* Every value of t: jsonpos_of (from its index of lines) must say what
 * jsonpos_linecol says counting from the top of the text. */
static void check_every_node(const struct jsonpos *m, const cJSON *node, int *checked)
{
	for (; node; node = node->next) {
		int line, col, want_line, want_col;
		jsonpos_of(m, node, 0, &line, &col);
		size_t off = jsonpos_offset(m, node);
		cr_assert_neq(off, (size_t)-1);
		jsonpos_linecol(m->text, m->len, off, &want_line, &want_col);
		cr_assert(line == want_line && col == want_col, "offset %zu: %d:%d, counted from the top %d:%d", off,
			  line, col, want_line, want_col);
		(*checked)++;
		check_every_node(m, node->child, checked);
	}
}

Test(jsonpos, of_should_give_the_line_and_column_counted_from_the_top)
{
	/* several lines, characters of 2, 3 and 4 bytes before values, a value
	 * first on its line, blank lines and a CR before a newline */
	const char *text = "{\n  \"t\u00e9\": \"\u00e9\u2192\", \"x\": [1,\r\n\n   2, {\"\U0001F600\": \"a\"}],\n"
			   "\"y\":\n\"last\u2192\"}\n";
	cJSON *root = cJSON_ParseWithLength(text, strlen(text));
	cr_assert(root);
	struct jsonpos m;
	jsonpos_build(&m, text, strlen(text), root);
	int checked = 0;
	check_every_node(&m, root, &checked);
	cr_assert_eq(checked, 8);
	int line, col;
	const cJSON *y = cJSON_GetObjectItem(root, "y");
	jsonpos_of(&m, y, 0, &line, &col);
	cr_assert(line == 6 && col == 1, "%d:%d", line, col);
	jsonpos_of(&m, y, 1, &line, &col);	/* its name */
	cr_assert(line == 5 && col == 1, "%d:%d", line, col);
	jsonpos_free(&m);
	cJSON_Delete(root);
}
