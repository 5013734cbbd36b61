/* test_jsonpos.c: lesson/jsonpos: the strict check that names the first
 * fault of a JSON text (what cJSON refuses one character late, or takes in
 * silently: bad escapes, 01, raw control characters, nesting past its
 * limit), the messages the lesson loader makes of it, and line and column
 * counting (a byte order mark, CRLF and lone CR line ends). */
#include "lesson/jsonpos.h"
#include "lesson/lesson.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* The fault jsonpos_check finds in text, which must have one. */
static struct jsonpos_fault fault_of(const char *text)
{
	struct jsonpos_fault f;
	cr_assert_eq(jsonpos_check(text, strlen(text), 0, 1000, &f), -1, "no fault found in %s", text);
	return f;
}

static void expect_fault(const char *text, enum jsonpos_fault_kind kind, size_t at)
{
	struct jsonpos_fault f = fault_of(text);
	cr_expect(f.kind == kind && f.at == at, "%s: kind %d at %zu, want kind %d at %zu", text, (int)f.kind, f.at,
		  (int)kind, at);
}

static void expect_clean(const char *text)
{
	struct jsonpos_fault f;
	cr_expect_eq(jsonpos_check(text, strlen(text), 0, 1000, &f), 0, "%s: kind %d at %zu", text, (int)f.kind,
		     f.at);
}

/* The message lesson_parse gives for text, which must be refused. */
static const char *refusal(const char *text)
{
	static struct qkv_error err;
	struct lesson *l = lesson_parse("l.json", text, strlen(text), NULL, NULL, &err);
	cr_assert_null(l, "accepted: %s", text);
	return err.msg;
}

/* FORMAT.md's example cut to one step, with a title and a line of code
 * given by the test. */
static const char *lesson_with(const char *title, const char *code)
{
	static char buf[1024];
	snprintf(buf, sizeof buf,
		 "{\n"
		 "  \"format\": 1,\n"
		 "  \"id\": \"tiny\", \"source\": \"s\", \"summary\": \"s\",\n"
		 "  \"title\": \"%s\",\n"
		 "  \"steps\": [\n"
		 "    { \"title\": \"One\", \"text\": \"t\", \"code\": [\"%s\"] }\n"
		 "  ]\n"
		 "}\n",
		 title, code);
	return buf;
}

Test(jsonpos, check_should_accept_strict_json)
{
	expect_clean("{\"a\": [1, -0, 0.5, 1e3, 2E-2, -1.5e+7, true, false, null, \"\\u00e9\\n\\/\"], \"b\": {}}");
	expect_clean("[\"\\ud83d\\ude00\", \"\\\\u0000\", \"\\\"\\u0041\"]");
	expect_clean(" \r\n\t[]\n");
	expect_clean("0");
	expect_clean("\"a string\"");
}

Test(jsonpos, check_should_refuse_bad_u_escapes_at_their_backslash)
{
	expect_fault("[\"ab \\uZZZZ; x\"]", JSONPOS_BAD_U_ESCAPE, 5);
	expect_fault("[\"\\u12G4\"]", JSONPOS_BAD_U_ESCAPE, 2);
	expect_fault("[\"\\u00\"]", JSONPOS_BAD_U_ESCAPE, 2);
	expect_fault("[\"\\u12\"]", JSONPOS_BAD_U_ESCAPE, 2);
	expect_fault("[\"\\ud800\\uzzzz\"]", JSONPOS_BAD_U_ESCAPE, 8);
	expect_fault("[\"\\x41\"]", JSONPOS_BAD_ESCAPE, 2);
	expect_fault("[\"\\'\"]", JSONPOS_BAD_ESCAPE, 2);
}

Test(jsonpos, check_should_find_a_nul_escape)
{
	struct jsonpos_fault f = fault_of("{\"a\": \"x\\u0000y\"}");
	cr_assert_eq(f.kind, JSONPOS_NUL_ESCAPE);
	cr_assert_eq(f.at, 8);
}

Test(jsonpos, check_should_find_lone_surrogates_but_not_pairs)
{
	struct jsonpos_fault f = fault_of("[\"\\ud83d\\ude00\", \"\\ud800x\"]");
	cr_assert(f.kind == JSONPOS_LONE_HIGH && f.at == 18 && f.unit == 0xD800);
	f = fault_of("[\"\\uDC00\"]");
	cr_assert(f.kind == JSONPOS_LONE_LOW && f.at == 2 && f.unit == 0xDC00);
	f = fault_of("[\"\\ud800\\u0041\"]");
	cr_assert(f.kind == JSONPOS_LONE_HIGH && f.at == 2 && f.unit == 0xD800);
	f = fault_of("[\"\\ud800\"]");
	cr_assert(f.kind == JSONPOS_LONE_HIGH && f.at == 2, "a high surrogate at the end of the string");
}

Test(jsonpos, check_should_refuse_raw_control_characters_in_strings)
{
	expect_fault("[\"a\tb\"]", JSONPOS_CONTROL, 3);
	expect_fault("{\"a\": \"one\ntwo\"}", JSONPOS_CONTROL, 10);
	expect_fault("[\"a\rb\"]", JSONPOS_CONTROL, 3);
	expect_fault("[\"a\x01\"]", JSONPOS_CONTROL, 3);
	expect_clean("[\"a\x7f\"]");
}

Test(jsonpos, check_should_refuse_numbers_json_does_not_allow)
{
	expect_fault("{\"format\": 01}", JSONPOS_BAD_NUMBER, 11);
	expect_fault("{\"format\": -01}", JSONPOS_BAD_NUMBER, 11);
	expect_fault("{\"format\": 1.}", JSONPOS_BAD_NUMBER, 11);
	expect_fault("[1.e5]", JSONPOS_BAD_NUMBER, 1);
	expect_fault("[1e]", JSONPOS_BAD_NUMBER, 1);
	expect_fault("[1e+]", JSONPOS_BAD_NUMBER, 1);
	expect_fault("[-]", JSONPOS_BAD_NUMBER, 1);
	expect_fault("[.5]", JSONPOS_UNEXPECTED, 1);
	expect_fault("[+1]", JSONPOS_UNEXPECTED, 1);
	expect_fault("[0x10]", JSONPOS_UNEXPECTED, 2);
	expect_fault("[1, NaN]", JSONPOS_NONFINITE, 4);
	expect_fault("[-Infinity]", JSONPOS_NONFINITE, 1);
}

Test(jsonpos, check_should_name_a_stray_comma_not_the_character_after_it)
{
	expect_fault("{\"a\": 1,,\"b\":2}", JSONPOS_UNEXPECTED, 8);
	expect_fault("{,}", JSONPOS_UNEXPECTED, 1);
	expect_fault("{\"a\": 1,,\n\"b\": 2}", JSONPOS_UNEXPECTED, 8);
	expect_fault("[1,,2]", JSONPOS_UNEXPECTED, 3);
	expect_fault("[,1]", JSONPOS_UNEXPECTED, 1);
	struct jsonpos_fault f = fault_of("{\"a\": [1, 2,], \"b\": 1}");
	cr_assert(f.kind == JSONPOS_TRAILING_COMMA && f.at == 11 && f.open == 12);
	f = fault_of("{\"a\": 1,\n}");
	cr_assert(f.kind == JSONPOS_TRAILING_COMMA && f.at == 7 && f.open == 9);
}

Test(jsonpos, check_should_name_missing_commas_colons_and_quotes)
{
	expect_fault("{\"a\": 1 \"b\": 2}", JSONPOS_MISSING_COMMA, 8);
	expect_fault("[1 2]", JSONPOS_MISSING_COMMA, 3);
	expect_fault("[true {}]", JSONPOS_MISSING_COMMA, 6);
	expect_fault("{\"id\" 5}", JSONPOS_MISSING_COLON, 6);
	expect_fault("{'a': 1}", JSONPOS_NAME_NOT_STRING, 1);
	expect_fault("{a: 1}", JSONPOS_NAME_NOT_STRING, 1);
	expect_fault("[True]", JSONPOS_UNEXPECTED, 1);
	expect_fault("[1]x", JSONPOS_AFTER, 3);
	expect_fault("  \n", JSONPOS_EMPTY, 0);
	expect_fault("", JSONPOS_EMPTY, 0);
}

Test(jsonpos, check_should_say_where_a_cut_text_ends_and_what_is_open)
{
	struct jsonpos_fault f = fault_of("{\"a\": [1, ");
	cr_assert(f.kind == JSONPOS_ENDS_INSIDE && f.at == 10 && f.open == 6);
	f = fault_of("{\"a\": \"abc");
	cr_assert(f.kind == JSONPOS_ENDS_INSIDE && f.at == 10 && f.open == 6);
	f = fault_of("{\"a\": tr");
	cr_assert(f.kind == JSONPOS_ENDS_INSIDE && f.open == 0);
	f = fault_of("{\"a\": 1.");
	cr_assert(f.kind == JSONPOS_ENDS_INSIDE && f.open == 0, "a number cut by the end of the text");
	f = fault_of("-");
	cr_assert(f.kind == JSONPOS_ENDS_EARLY && f.at == 1);
}

Test(jsonpos, check_should_find_the_first_bracket_past_the_limit)
{
	char text[64];
	struct jsonpos_fault f;
	memset(text, '[', 10);
	memset(text + 10, ']', 10);
	text[20] = 0;
	cr_assert_eq(jsonpos_check(text, 20, 0, 10, &f), 0);
	cr_assert_eq(jsonpos_check(text, 20, 0, 9, &f), -1);
	cr_assert(f.kind == JSONPOS_TOO_DEEP && f.at == 9);
	cr_assert_eq(jsonpos_check("{\"[[[\": [[1]]}", 14, 0, 3, &f), 0, "brackets in a string");
	cr_assert_eq(jsonpos_check("{\"a\": [[[1]]]}", 14, 0, 3, &f), -1);
	cr_assert(f.kind == JSONPOS_TOO_DEEP && f.at == 8);
}

Test(jsonpos, check_should_start_after_a_byte_order_mark)
{
	struct jsonpos_fault f;
	cr_assert_eq(jsonpos_check("\xEF\xBB\xBF{}", 5, 3, 1000, &f), 0);
	cr_assert_eq(jsonpos_check("\xEF\xBB\xBF{}", 5, 0, 1000, &f), -1);
}

Test(jsonpos, linecol_should_not_count_a_byte_order_mark_as_a_column)
{
	const char *text = "\xEF\xBB\xBF{\"id\" 5}";
	int line, col;
	jsonpos_linecol(text, strlen(text), 9, &line, &col);
	cr_assert(line == 1 && col == 7, "%d:%d", line, col);
	jsonpos_linecol(text, strlen(text), 3, &line, &col);
	cr_assert(line == 1 && col == 1, "%d:%d", line, col);
}

Test(jsonpos, linecol_should_end_lines_at_lf_crlf_and_a_lone_cr)
{
	const char *text = "a\rb\r\nc\nd\r";
	int line, col;
	size_t want[][3] = { { 2, 2, 1 }, { 3, 2, 2 }, { 5, 3, 1 }, { 7, 4, 1 }, { 8, 4, 2 }, { 9, 5, 1 } };
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		jsonpos_linecol(text, strlen(text), want[i][0], &line, &col);
		cr_expect(line == (int)want[i][1] && col == (int)want[i][2], "offset %zu: %d:%d, want %zu:%zu",
			  want[i][0], line, col, want[i][1], want[i][2]);
	}
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

Test(jsonpos, of_should_count_lone_cr_lines_and_skip_a_byte_order_mark)
{
	const char *text = "\xEF\xBB\xBF{\"a\": 1,\r\"b\":\r\n  [true,\r\r\"c\"]}";
	cJSON *root = cJSON_ParseWithLength(text + 3, strlen(text) - 3);
	cr_assert(root);
	struct jsonpos m;
	jsonpos_build(&m, text, strlen(text), root);
	int checked = 0, line, col;
	check_every_node(&m, root, &checked);
	cr_assert_eq(checked, 5);
	jsonpos_of(&m, root, 0, &line, &col);
	cr_assert(line == 1 && col == 1, "%d:%d", line, col);
	jsonpos_of(&m, cJSON_GetObjectItem(root, "a"), 0, &line, &col);
	cr_assert(line == 1 && col == 7, "%d:%d", line, col);
	const cJSON *b = cJSON_GetObjectItem(root, "b");
	jsonpos_of(&m, b, 1, &line, &col);
	cr_assert(line == 2 && col == 1, "%d:%d", line, col);
	jsonpos_of(&m, b, 0, &line, &col);
	cr_assert(line == 3 && col == 3, "%d:%d", line, col);
	jsonpos_of(&m, cJSON_GetArrayItem(b, 1), 0, &line, &col);
	cr_assert(line == 5 && col == 1, "%d:%d", line, col);
	jsonpos_free(&m);
	cJSON_Delete(root);
}

/* ---- what the lesson loader says --------------------------------------- */

Test(jsonpos, a_lesson_with_a_bad_u_escape_in_code_should_be_refused_at_the_backslash)
{
	/* cJSON alone read \uZZZZ as a NUL and cut the line of code there */
	cr_assert_str_eq(refusal(lesson_with("T", "X = [1 0; 0 1; 1 1] \\uZZZZ; X = X * 100")),
			 "l.json:6:66: malformed JSON: invalid \\u escape \\uZZZZ: \\u takes four hex digits");
	cr_assert_str_eq(refusal(lesson_with("a \\u12G4 b", "x = 1")),
			 "l.json:4:15: malformed JSON: invalid \\u escape \\u12G4: \\u takes four hex digits");
	cr_assert_str_eq(refusal(lesson_with("a \\u00", "x = 1")),
			 "l.json:4:15: malformed JSON: invalid \\u escape \\u00: \\u takes four hex digits");
	cr_assert_str_eq(refusal(lesson_with("a \\u\\n", "x = 1")),
			 "l.json:4:15: malformed JSON: invalid \\u escape \\u: \\u takes four hex digits");
	cr_assert_str_eq(refusal(lesson_with("a \\u12", "x = 1")),
			 "l.json:4:15: malformed JSON: invalid \\u escape \\u12: \\u takes four hex digits");
	cr_assert_str_eq(refusal(lesson_with("a \\q", "x = 1")),
			 "l.json:4:15: malformed JSON: invalid escape \\q in a string; the escapes are \\\" \\\\ \\/ "
			 "\\b \\f \\n \\r \\t and \\uXXXX");
}

Test(jsonpos, a_lesson_with_a_nul_or_a_lone_surrogate_escape_should_be_refused)
{
	cr_assert_str_eq(refusal(lesson_with("a \\u0000 b", "x = 1")),
			 "l.json:4:15: a string holds \\u0000 (NUL), which lessons cannot hold");
	cr_assert_str_eq(refusal(lesson_with("a \\ud800 b", "x = 1")),
			 "l.json:4:15: malformed JSON: lone surrogate \\ud800: a high surrogate \\ud800-\\udbff must "
			 "be followed by a low one \\udc00-\\udfff");
	cr_assert_str_eq(refusal(lesson_with("a \\udc00", "x = 1")),
			 "l.json:4:15: malformed JSON: lone surrogate \\udc00: a low surrogate \\udc00-\\udfff must "
			 "follow a high one \\ud800-\\udbff");
	struct qkv_error err;
	const char *ok = lesson_with("a \\ud83d\\ude00 b", "x = 1");
	struct lesson *l = lesson_parse("l.json", ok, strlen(ok), NULL, NULL, &err);
	cr_assert_not_null(l, "a surrogate pair: %s", err.msg);
	cr_assert_str_eq(l->title, "a \xF0\x9F\x98\x80 b");
	lesson_free(l);
}

Test(jsonpos, a_lesson_with_a_byte_order_mark_should_count_columns_after_it)
{
	cr_assert_str_eq(refusal("\xEF\xBB\xBF{\"id\" 5}"), "l.json:1:7: malformed JSON: a ':' is missing before this");
	cr_assert_str_eq(refusal("\xEF\xBB\xBF{\"id\": 5}"), "l.json:1:8: id: must be a string, not a number");
}

Test(jsonpos, a_lesson_with_a_stray_comma_should_be_refused_at_the_comma)
{
	cr_assert_str_eq(refusal("{\"a\": 1,,\"b\":2}"), "l.json:1:9: malformed JSON: unexpected ','");
	cr_assert_str_eq(refusal("{,}"), "l.json:1:2: malformed JSON: unexpected ','");
	cr_assert_str_eq(refusal("{\"a\": 1,,\n\"b\": 2}"), "l.json:1:9: malformed JSON: unexpected ','");
	cr_assert_str_eq(refusal("[1,,2]"), "l.json:1:4: malformed JSON: unexpected ','");
	cr_assert_str_eq(refusal("{\"a\": [1,], \"b\": 1}"),
			 "l.json:1:9: malformed JSON: a ',' after the last element of an array; JSON allows none there");
	cr_assert_str_eq(refusal("{\"a\": 1,\n}"),
			 "l.json:1:8: malformed JSON: a ',' after the last member of an object; JSON allows none there");
	cr_assert_str_eq(refusal("{'a': 1}"), "l.json:1:2: malformed JSON: a member name must be a string in double "
			 "quotes");
}

Test(jsonpos, a_lesson_with_a_number_json_does_not_allow_should_be_refused)
{
	cr_assert_str_eq(refusal("{\"format\": 01}"), "l.json:1:12: malformed JSON: 01 is not a number in JSON: a number "
			 "cannot begin with 0 followed by a digit");
	cr_assert_str_eq(refusal("{\"format\": 1.}"), "l.json:1:12: malformed JSON: 1. is not a number in JSON: a digit "
			 "must follow the '.'");
	cr_assert_str_eq(refusal("{\"format\": 1e+}"), "l.json:1:12: malformed JSON: 1e+ is not a number in JSON: the "
			 "exponent needs a digit");
	cr_assert_str_eq(refusal("{\"format\": -x}"), "l.json:1:12: malformed JSON: -x is not a number in JSON: a digit "
			 "must follow the '-'");
	cr_assert_str_eq(refusal("{\"format\": -}"), "l.json:1:12: malformed JSON: - is not a number in JSON: a digit "
			 "must follow the '-'");
	cr_assert_str_eq(refusal("{\"format\": 1.5e-,"), "l.json:1:12: malformed JSON: 1.5e- is not a number in JSON: "
			 "the exponent needs a digit");
}

Test(jsonpos, a_lesson_with_a_raw_control_character_in_a_string_should_be_refused)
{
	cr_assert_str_eq(refusal(lesson_with("a\tb", "x = 1")),
			 "l.json:4:14: malformed JSON: a tab inside a string; write it as \\t");
	cr_assert_str_eq(refusal(lesson_with("a\nb", "x = 1")),
			 "l.json:4:14: malformed JSON: the string opened at 4:12 runs past the end of its line; close "
			 "it with '\"', or write a line break in it as \\n");
	cr_assert_str_eq(refusal(lesson_with("a\x1b", "x = 1")),
			 "l.json:4:14: malformed JSON: control character 0x1b inside a string; write it as \\u001b");
}

Test(jsonpos, a_lesson_with_lone_cr_line_ends_should_be_refused_on_the_right_line)
{
	char text[1100];
	const char *lf = lesson_with("T", "x = 1");
	size_t n = strlen(lf);
	for (size_t i = 0; i <= n; i++)
		text[i] = lf[i] == '\n' ? '\r' : lf[i];
	char *one = strstr(text, "\"format\": 1");
	cr_assert(one);
	one[10] = 'x';
	cr_assert_str_eq(refusal(text), "l.json:2:13: malformed JSON: unexpected 'x'");
}
