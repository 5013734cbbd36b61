/* test_utf8.c: core/utf8.c in process: decoding valid, overlong, truncated
 * and invalid bytes; the columns of the characters the lessons and the
 * screens draw; cutting, fitting with "…", word wrap and snprintf that never
 * split a character. No terminal and no locale involved. */
#include <criterion/criterion.h>

#include "core/strbuf.h"
#include "core/utf8.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

/* ---- decoding ---------------------------------------------------------------------- */

static void expect_decode(const char *s, size_t n, int len, uint32_t cp)
{
	uint32_t got = 0;
	int l = utf8_decode(s, n, &got);
	cr_expect_eq(l, len, "utf8_decode(\"%s\", %zu) took %d bytes, expected %d", s, n, l, len);
	cr_expect_eq(got, cp, "utf8_decode(\"%s\", %zu) gave U+%04X, expected U+%04X", s, n, (unsigned)got,
		     (unsigned)cp);
}

Test(utf8, decode_should_read_one_to_four_byte_characters)
{
	expect_decode("a", 1, 1, 'a');
	expect_decode("\xc3\xa9", 2, 2, 0xE9);               /* é */
	expect_decode("\xe2\x88\x9a", 3, 3, 0x221A);         /* √ */
	expect_decode("\xf0\x9f\x98\x80", 4, 4, 0x1F600);    /* 😀 */
	expect_decode("\xc2\x80", 2, 2, 0x80);               /* the smallest of each length */
	expect_decode("\xe0\xa0\x80", 3, 3, 0x800);
	expect_decode("\xf0\x90\x80\x80", 4, 4, 0x10000);
	expect_decode("\xef\xbf\xbf", 3, 3, 0xFFFF);         /* and the largest */
	expect_decode("\xf4\x8f\xbf\xbf", 4, 4, 0x10FFFF);
	expect_decode("\xe2\x88\x9a rest", 8, 3, 0x221A);   /* reads only its own bytes */
}

Test(utf8, decode_should_reject_overlong_forms_one_byte_at_a_time)
{
	expect_decode("\xc0\x80", 2, 1, 0xFFFD);             /* NUL in two bytes */
	expect_decode("\xc1\xbf", 2, 1, 0xFFFD);
	expect_decode("\xe0\x80\xaf", 3, 1, 0xFFFD);         /* '/' in three */
	expect_decode("\xe0\x9f\xbf", 3, 1, 0xFFFD);
	expect_decode("\xf0\x80\x80\xaf", 4, 1, 0xFFFD);
	expect_decode("\xf0\x8f\xbf\xbf", 4, 1, 0xFFFD);
}

Test(utf8, decode_should_reject_surrogates_and_code_points_beyond_the_last)
{
	expect_decode("\xed\xa0\x80", 3, 1, 0xFFFD);         /* U+D800 */
	expect_decode("\xed\xbf\xbf", 3, 1, 0xFFFD);         /* U+DFFF */
	expect_decode("\xed\x9f\xbf", 3, 3, 0xD7FF);
	expect_decode("\xf4\x90\x80\x80", 4, 1, 0xFFFD);     /* U+110000 */
	expect_decode("\xf5\x80\x80\x80", 4, 1, 0xFFFD);
	expect_decode("\xff", 1, 1, 0xFFFD);
	expect_decode("\xfe", 1, 1, 0xFFFD);
}

Test(utf8, decode_should_take_one_byte_of_a_truncated_sequence)
{
	expect_decode("\xe2\x88\x9a", 2, 1, 0xFFFD);         /* n cuts it short */
	expect_decode("\xe2\x88\x9a", 1, 1, 0xFFFD);
	expect_decode("\xe2\x88", 3, 1, 0xFFFD);             /* the NUL ends it */
	expect_decode("\xf0\x9f\x98" "a", 4, 1, 0xFFFD);     /* an ASCII byte ends it */
	expect_decode("\xc3", 2, 1, 0xFFFD);
}

Test(utf8, decode_should_take_a_stray_continuation_byte_alone)
{
	expect_decode("\x80", 1, 1, 0xFFFD);
	expect_decode("\xbf\xbf", 2, 1, 0xFFFD);
}

/* ---- characters (Python's str positions) ---------------------------------------------- */

Test(utf8, count_and_offset_should_go_by_character_as_python_str_does)
{
	const char *s = "h\xc3\xa9llo\xf0\x9f\x98\x80x";	/* "héllo😀x": 7 characters, 11 bytes */
	cr_expect_eq(utf8_count(s), 7);
	cr_expect_eq(utf8_count(""), 0);
	cr_expect_eq(utf8_count_n(s, 3), 2);		/* "hé" */
	cr_expect_eq(utf8_count_n(s, 100), 7);		/* stops at the NUL */
	cr_expect_eq(utf8_offset(s, 0), 0);
	cr_expect_eq(utf8_offset(s, 2), 3);
	cr_expect_eq(utf8_offset(s, 6), 10);
	cr_expect_eq(utf8_offset(s, 7), 11);
	cr_expect_eq(utf8_offset(s, 99), 11);
	cr_expect_eq(utf8_offset_n(s, 11, 6), 10);
	cr_expect_eq(utf8_offset_n(s, 5, 99), 5);	/* "héll": no further than n */
	cr_expect_eq(utf8_offset_n("ab\ncd", 2, 3), 2);	/* a line of a longer text */
	size_t offs[8];
	utf8_offsets(s, offs, 7);
	const size_t want[8] = { 0, 1, 3, 4, 5, 6, 10, 11 };
	for (int i = 0; i < 8; i++)
		cr_expect_eq(offs[i], want[i], "offset %d: %zu, expected %zu", i, offs[i], want[i]);
	/* an invalid byte is one character, as utf8_decode reads it */
	cr_expect_eq(utf8_count("a\xff\xc3"), 3);
}

/* ---- widths ------------------------------------------------------------------------ */

static void expect_width(const char *s, int w)
{
	cr_expect_eq(utf8_width(s), w, "utf8_width(\"%s\") = %d, expected %d", s, utf8_width(s), w);
}

Test(utf8, width_should_count_ascii_and_latin_accents_as_one_column_each)
{
	expect_width("", 0);
	expect_width("softmax", 7);
	expect_width("caf\u00e9 na\u00efve \u00c5ngstr\u00f6m \u00df", 21);
}

Test(utf8, width_should_count_greek_and_math_symbols_as_one_column)
{
	expect_width("\u03b1\u03b2\u03b3\u03b4\u03c3\u03a3\u03c9", 7);   /* αβγδσΣω */
	expect_width("\u221a \u00b7 \u00d7 \u00f7 \u2248 \u2264 \u2192 \u2211 \u221e", 17);
	expect_width("Q\u00b7K\u1d40/\u221ad_k", 9);                      /* Q·Kᵀ/√d_k */
	expect_width("\u2212\u00b1\u2202\u2208", 4);                      /* −±∂∈ */
}

Test(utf8, width_should_count_box_drawing_and_blocks_as_one_column)
{
	expect_width("\u2500\u2502\u250c\u2510\u2514\u2518", 6);
	expect_width("\u2588\u2580\u2591\u2592\u2593", 5);
	expect_width("\u22ee\u2026", 2);                                  /* ⋮ … */
}

Test(utf8, width_should_count_arrows_check_marks_and_circles_as_one_column)
{
	expect_width("\u2190\u2191\u2192\u2193", 4);
	expect_width("\u2713\u270e\u25d0", 3);                            /* ✓ ✎ ◐ */
}

Test(utf8, width_should_count_combining_marks_as_zero_columns)
{
	expect_width("e\u0301", 1);                                       /* e + combining acute */
	expect_width("a\u0308\u0323", 1);
	expect_width("x\u20d7", 1);                                       /* x⃗ */
	expect_width("a\u200bb", 2);                                      /* zero width space */
	expect_width("\ufeffbom", 3);
	cr_expect_eq(utf8_cp_width(0x0301), 0);
	cr_expect_eq(utf8_cp_width(0xFE0F), 0);                           /* variation selector */
	cr_expect_eq(utf8_cp_width(0x200D), 0);                           /* zero width joiner */
}

Test(utf8, width_should_count_a_wide_cjk_character_as_two_columns)
{
	expect_width("\u4e2d", 2);
	expect_width("\u6ce8\u610f\u529b", 6);                            /* 注意力 */
	expect_width("\u3042\u30a2\ud55c", 6);                            /* あア한 */
	expect_width("\uff21\uff22", 4);                                  /* fullwidth ＡＢ */
	expect_width("\U00020000", 2);                                    /* plane 2 */
	expect_width("a\u4e2db", 4);
}

Test(utf8, width_should_count_emoji_presentation_characters_as_two_columns)
{
	expect_width("\U0001f600", 2);                                    /* 😀 */
	expect_width("\U0001f43b", 2);                                    /* 🐻 (the bear country) */
	expect_width("\u2705", 2);                                        /* ✅, but ✓ is 1 */
	expect_width("\u231b", 2);
}

Test(utf8, width_should_give_controls_zero_columns_and_tab_one)
{
	cr_expect_eq(utf8_cp_width(0x07), 0);
	cr_expect_eq(utf8_cp_width(0x1B), 0);
	cr_expect_eq(utf8_cp_width(0x7F), 0);
	cr_expect_eq(utf8_cp_width(0x85), 0);
	cr_expect_eq(utf8_cp_width(0x9F), 0);
	cr_expect_eq(utf8_cp_width('\t'), 1);
	cr_expect_eq(utf8_cp_width(0xA0), 1);
	cr_expect_eq(utf8_cp_width(0xAD), 1);                             /* soft hyphen: shown */
}

Test(utf8, width_should_count_each_invalid_byte_as_one_column)
{
	expect_width("a\xff" "b", 3);
	expect_width("\xe2\x88", 2);                                      /* a cut √: two bad bytes */
	expect_width("\xc0\xaf", 2);
	cr_expect_eq(utf8_cp_width(0xFFFD), 1);
}

Test(utf8, width_n_should_stop_at_n_bytes_and_at_a_nul)
{
	cr_expect_eq(utf8_width_n("abcdef", 3), 3);
	cr_expect_eq(utf8_width_n("\u4e2d\u4e2d\u4e2d", 6), 4);
	cr_expect_eq(utf8_width_n("ab\0cd", 5), 2);
	cr_expect_eq(utf8_width_n("abc", 0), 0);
}

Test(utf8, width_should_not_depend_on_the_locale)
{
	const char *s = "\u221a\u4e2d\u0301\u2500";
	setlocale(LC_ALL, "C");
	int in_c = utf8_width(s);
	setlocale(LC_ALL, "C.UTF-8");
	int in_utf8 = utf8_width(s);
	setlocale(LC_ALL, "C");
	cr_expect_eq(in_c, 4);
	cr_expect_eq(in_utf8, 4);
}

/* ---- cutting ----------------------------------------------------------------------- */

/* Every cut of s at every width ends on a character boundary and fits. */
static void expect_cuts_whole(const char *s)
{
	for (int maxw = -1; maxw <= utf8_width(s) + 1; maxw++) {
		int w = -1;
		size_t n = utf8_cut(s, maxw, &w);
		cr_expect(n <= strlen(s));
		cr_expect(((unsigned char)s[n] & 0xC0) != 0x80, "cut of \"%s\" at %d splits a character", s, maxw);
		cr_expect_eq(w, utf8_width_n(s, n));
		cr_expect(w <= (maxw > 0 ? maxw : 0), "cut of \"%s\" at %d takes %d columns", s, maxw, w);
	}
}

Test(utf8, cut_should_never_split_a_character)
{
	expect_cuts_whole("softmax");
	expect_cuts_whole("\u221ad\u2096 \u00d7 \u03b1\u03b2\u2192\u2211");
	expect_cuts_whole("\u4e2da\u6587b\U0001f600c");
	expect_cuts_whole("e\u0301e\u0301e\u0301");
	expect_cuts_whole("\u2588\u2588\u2591\u2591\u2592");
}

Test(utf8, cut_should_stop_before_a_wide_character_that_does_not_fit)
{
	int w;
	cr_expect_eq(utf8_cut("a\u4e2db", 2, &w), 1);
	cr_expect_eq(w, 1);
	cr_expect_eq(utf8_cut("a\u4e2db", 3, &w), 4);
	cr_expect_eq(w, 3);
	cr_expect_eq(utf8_cut("\u4e2d", 1, &w), 0);
	cr_expect_eq(w, 0);
}

Test(utf8, cut_should_keep_combining_marks_with_their_character)
{
	int w;
	cr_expect_eq(utf8_cut("e\u0301x", 1, &w), 3);
	cr_expect_eq(w, 1);
}

Test(utf8, cut_should_take_nothing_at_zero_or_negative_width)
{
	int w = 7;
	cr_expect_eq(utf8_cut("abc", 0, &w), 0);
	cr_expect_eq(w, 0);
	cr_expect_eq(utf8_cut("abc", -3, NULL), 0);
	cr_expect_eq(utf8_cut("", 5, &w), 0);
	cr_expect_eq(utf8_cut("abc", 10, NULL), 3);
}

Test(utf8, cut_n_should_stay_inside_the_slice)
{
	int w;
	cr_expect_eq(utf8_cut_n("abcdef", 4, 10, &w), 4);
	cr_expect_eq(w, 4);
	cr_expect_eq(utf8_cut_n("\u221a\u221a", 4, 10, &w), 4);   /* the second √ is cut short: one bad byte */
	cr_expect_eq(w, 2);
}

/* ---- fitting ----------------------------------------------------------------------- */

static void expect_fit(const char *s, int width, int align, const char *want)
{
	struct strbuf b;
	strbuf_init(&b);
	utf8_fit(&b, s, width, align);
	cr_expect_str_eq(b.s, want, "utf8_fit(\"%s\", %d, %d) = \"%s\", expected \"%s\"", s, width, align, b.s, want);
	strbuf_free(&b);
}

Test(utf8, fit_should_pad_on_the_side_asked)
{
	expect_fit("ab", 5, 1, "   ab");
	expect_fit("ab", 5, -1, "ab   ");
	expect_fit("ab", 5, 0, "ab");
	expect_fit("\u221ad", 4, 1, "  \u221ad");
	expect_fit("\u4e2d", 4, -1, "\u4e2d  ");
	expect_fit("abcde", 5, 1, "abcde");
}

Test(utf8, fit_should_cut_with_an_ellipsis_when_wider)
{
	expect_fit("attention", 5, 1, "atte\u2026");
	expect_fit("attention", 5, 0, "atte\u2026");
	expect_fit("\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6", 4, -1, "\u03b1\u03b2\u03b3\u2026");
	expect_fit("attention", 1, 1, "\u2026");
	expect_fit("attention", 0, 1, "");
	expect_fit("attention", -2, -1, "");
}

Test(utf8, fit_should_fill_with_a_space_where_a_wide_character_does_not_fit)
{
	/* 注意力 is 6 columns; in 4, "注" + "…" take 3 */
	expect_fit("\u6ce8\u610f\u529b", 4, 1, " \u6ce8\u2026");
	expect_fit("\u6ce8\u610f\u529b", 4, -1, "\u6ce8\u2026 ");
	expect_fit("\u6ce8\u610f\u529b", 4, 0, "\u6ce8\u2026");
}

/* ---- wrapping ---------------------------------------------------------------------- */

struct lines {
	char text[2048];   /* the lines, each followed by '|' */
	int calls;
};

static void collect(void *udata, const char *start, size_t n)
{
	struct lines *l = udata;
	size_t len = strlen(l->text);
	snprintf(l->text + len, sizeof l->text - len, "%.*s|", (int)n, start);
	l->calls++;
}

static void expect_wrap(const char *text, int width, const char *want)
{
	struct lines l = { "", 0 };
	int n = utf8_wrap(text, width, collect, &l);
	cr_expect_str_eq(l.text, want, "utf8_wrap(\"%s\", %d) gave \"%s\", expected \"%s\"", text, width, l.text, want);
	cr_expect_eq(n, l.calls, "utf8_wrap returned %d for %d lines", n, l.calls);
	cr_expect_eq(utf8_wrap(text, width, NULL, NULL), n, "counting without a callback");
}

Test(utf8, wrap_should_break_at_the_last_space_that_fits)
{
	expect_wrap("the cat sat on the mat", 10, "the cat|sat on the|mat|");
	expect_wrap("the cat sat on the mat", 22, "the cat sat on the mat|");
	expect_wrap("the cat sat on the mat", 80, "the cat sat on the mat|");
	expect_wrap("abc def", 7, "abc def|");
	expect_wrap("abc def", 6, "abc|def|");
}

Test(utf8, wrap_should_cut_a_word_wider_than_the_line_across_lines)
{
	expect_wrap("F.scaled_dot_product_attention(Q, K, V)", 10,
		    "F.scaled_d|ot_product|_attention|(Q, K, V)|");
	expect_wrap("ab abcdefgh cd", 4, "ab|abcd|efgh|cd|");
	expect_wrap("abcdefg hi", 5, "abcde|fg hi|");
	expect_wrap("\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6\u03b7", 3, "\u03b1\u03b2\u03b3|\u03b4\u03b5\u03b6|\u03b7|");
}

Test(utf8, wrap_should_keep_several_spaces_inside_a_line_and_drop_them_at_a_break)
{
	expect_wrap("a  b   c", 20, "a  b   c|");
	expect_wrap("tensor([ 0.3636,  0.6064,  0.4964])", 20, "tensor([ 0.3636,|0.6064,  0.4964])|");
	expect_wrap("abc     def", 5, "abc|def|");
	expect_wrap("abc   ", 10, "abc|");                      /* never ends with a space */
}

Test(utf8, wrap_should_keep_the_leading_spaces_of_a_paragraph_line)
{
	expect_wrap("        [-0.1863,  2.2082]", 40, "        [-0.1863,  2.2082]|");
	expect_wrap("  one two three", 9, "  one two|three|");
	expect_wrap("a\n    b c", 80, "a|    b c|");
	expect_wrap("   ", 10, "|");                         /* only spaces: an empty line */
	expect_wrap("      x", 4, "x|");                      /* no room after the indent: dropped */
	expect_wrap("  abcdef", 5, "  abc|def|");               /* a long word fills the line after it */
}

Test(utf8, wrap_should_keep_existing_newlines)
{
	expect_wrap("", 10, "");
	expect_wrap("a", 10, "a|");
	expect_wrap("a\n", 10, "a|");
	expect_wrap("\n", 10, "|");
	expect_wrap("a\n\nb", 10, "a||b|");
	expect_wrap("one two\nthree four five", 9, "one two|three|four five|");
	expect_wrap("x  \ny", 10, "x|y|");
}

Test(utf8, wrap_should_count_wide_characters_as_two_columns)
{
	expect_wrap("\u6ce8\u610f\u529b \u6ce8\u610f\u529b", 8, "\u6ce8\u610f\u529b|\u6ce8\u610f\u529b|");
	expect_wrap("\u6ce8\u610f\u529b \u6ce8\u610f\u529b", 13, "\u6ce8\u610f\u529b \u6ce8\u610f\u529b|");
	expect_wrap("\u6ce8\u610f\u529b\u6ce8\u610f", 5, "\u6ce8\u610f|\u529b\u6ce8|\u610f|");
	expect_wrap("\u221ad \u00d7 \u2211", 5, "\u221ad \u00d7|\u2211|");
	expect_wrap("e\u0301te\u0301 e\u0301te\u0301", 7, "e\u0301te\u0301 e\u0301te\u0301|");
}

Test(utf8, wrap_should_take_one_character_a_line_at_width_one)
{
	expect_wrap("abc", 1, "a|b|c|");
	expect_wrap("ab cd", 1, "a|b|c|d|");
	expect_wrap("abc", 0, "a|b|c|");                    /* width < 1 counts as 1 */
	expect_wrap("abc", -5, "a|b|c|");
	expect_wrap("\u4e2d\u6587", 1, "\u4e2d|\u6587|");      /* wider than the line: one each */
	expect_wrap("a\u4e2d", 1, "a|\u4e2d|");
}

Test(utf8, wrap_should_never_give_a_line_wider_than_the_width_for_any_text)
{
	const char *texts[] = {
		"Attention weights \u03b1\u1d62\u2c7c = softmax(q\u1d62\u00b7k\u2c7c/\u221ad) sum to 1 \u2713",
		"\u6ce8\u610f\u529b\u673a\u5236 is \u6ce8\u610f\u529b, a\u0301 b\u0301 c\u0301",
		"  indented   text with\n\n  two paragraphs and averyveryverylongwordindeed",
		"\xff\xfe bad \xe2\x88 bytes",
	};
	for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
		for (int width = 1; width <= 30; width++) {
			struct lines l = { "", 0 };
			utf8_wrap(texts[t], width, collect, &l);
			for (char *line = l.text, *bar; (bar = strchr(line, '|')); line = bar + 1) {
				int w = utf8_width_n(line, (size_t)(bar - line));
				cr_expect(w <= width || (width == 1 && w == 2), "\"%.*s\" takes %d columns, more than %d",
					  (int)(bar - line), line, w, width);
				cr_expect(bar == line || bar[-1] != ' ', "a line ends with a space");
			}
		}
}

/* ---- snprintf ---------------------------------------------------------------------- */

Test(utf8, snprintf_should_drop_a_character_it_cuts_short)
{
	char buf[6];
	int n = utf8_snprintf(buf, sizeof buf, "ab%s", "\u221a\u221a");   /* 2 + 3 + 3 bytes */
	cr_expect_eq(n, 8);
	cr_expect_str_eq(buf, "ab\u221a");
	utf8_snprintf(buf, sizeof buf, "abc%s", "\u221a");                  /* 3 + 3 bytes: the √ must go */
	cr_expect_str_eq(buf, "abc");
	utf8_snprintf(buf, sizeof buf, "%s", "abcdefgh");
	cr_expect_str_eq(buf, "abcde");
	utf8_snprintf(buf, sizeof buf, "%s", "\u6ce8\u610f");
	cr_expect_str_eq(buf, "\u6ce8");
	utf8_snprintf(buf, sizeof buf, "a\U0001f600");                      /* 1 + 4 bytes fit exactly */
	cr_expect_str_eq(buf, "a\U0001f600");
	cr_expect_eq(utf8_snprintf(NULL, 0, "%s", "xyz"), 3);
}

/* Where a caret goes under the character an error's column names (columns
 * count characters): its offset in the line, then the columns before it.
 * `x = "日本語" + y`: y is character 13 (column 13), 15 columns in. */
Test(utf8, a_caret_should_go_under_a_column_counted_in_characters_at_its_display_width)
{
	const char *line = "x = \"\u65e5\u672c\u8a9e\" + y\nz";
	size_t first = strchr(line, '\n') - line;
	size_t at = utf8_offset_n(line, first, 13 - 1);
	cr_assert_eq(line[at], 'y');
	cr_assert_eq(utf8_width_n(line, at), 15);
	/* past the end of the line (a statement cut short): right after it */
	at = utf8_offset_n(line, first, 40);
	cr_assert_eq(at, first);
	cr_assert_eq(utf8_width_n(line, at), 16);
}
