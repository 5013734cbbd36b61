/* test_ascii.c: ui/ascii.c in process: the ASCII twins the full screen draws
 * in a locale that is not UTF-8. Every character in a string literal of
 * src/ui, src/view, src/lesson, src/core and src/lang, and in the built-in
 * lessons, has a twin of its own (never "?"), one column wide where layouts
 * count columns; runs of superscripts and subscripts join as ^ and _;
 * anything else is "?" a column. No terminal involved. */
#include <criterion/criterion.h>

#include "core/strbuf.h"
#include "core/utf8.h"
#include "helpers.h"
#include "ui/internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *ascii(const char *s)
{
	struct strbuf b;
	strbuf_init(&b);
	ascii_append(&b, s, strlen(s));
	return strbuf_detach(&b);
}

static void expect_ascii(const char *s, const char *want)
{
	char *got = ascii(s);
	cr_expect_str_eq(got, want, "ascii(\"%s\")", s);
	free(got);
}

Test(ascii, the_glyphs_the_screens_draw_should_have_their_twins)
{
	expect_ascii("\u2500\u2502\u250c\u2510\u2514\u2518", "-|++++");
	expect_ascii(" \u2591\u2592\u2593\u2588", " :=*#");
	expect_ascii("\u2190/\u2192 step  \u2191/\u2193 scroll", "<-/-> step  ^/v scroll");
	expect_ascii("\u25d0 7/14   \u2713 done   \u270e 3/11", "o 7/14   + done   * 3/11");
	expect_ascii("-94 \u2026 0 \u2026 94", "-94 ~ 0 ~ 94");
	expect_ascii("3\u00d75, \u00f72, q\u00b7k, qkv \u2014 workspace", "3x5, /2, q.k, qkv -- workspace");
	expect_ascii("x \u2264 max, \u221a3, \u2248, \u221e, \u03b1\u03b8", "x <= max, sqrt3, ~=, inf, alphatheta");
}

Test(ascii, the_marks_of_heatmap_cells_should_stay_apart_in_ascii)
{
	/* the shades, the marks of a masked, a +inf and a nan cell, and the
	 * sign before a negative mark: each its own ASCII character */
	static const char *const marks[] = { "\u2591", "\u2592", "\u2593", "\u2588", "\u00b7", "\u25b2", "?", "-", " " };
	char *got[9];
	for (int i = 0; i < 9; i++) {
		got[i] = ascii(marks[i]);
		cr_expect_eq(strlen(got[i]), 1, "\"%s\" is \"%s\"", marks[i], got[i]);
		for (int j = 0; j < i; j++)
			cr_expect_str_neq(got[i], got[j], "\"%s\" and \"%s\" both read \"%s\"", marks[i], marks[j], got[i]);
	}
	for (int i = 0; i < 9; i++)
		free(got[i]);
}

Test(ascii, superscripts_and_subscripts_should_join_as_caret_and_underscore)
{
	expect_ascii("K\u1d40", "K^T");
	expect_ascii("10\u207b\u2076", "10^-6");
	expect_ascii("x\u00b2 + y\u00b3", "x^2 + y^3");
	expect_ascii("s\u2081\u2082 w\u2c7c", "s_12 w_j");
	expect_ascii("\u03a3\u2c7c exp(s\u2c7c \u2212 max)", "sum_j exp(s_j - max)");
}

Test(ascii, other_characters_should_be_a_question_mark_a_column)
{
	expect_ascii("caf\u00e9", "caf?");
	expect_ascii("\u4e2d\u6587", "????");	/* two columns each */
	expect_ascii("y\u0302", "y");		/* a combining mark takes none */
	expect_ascii("a\xff" "b", "a?b");	/* an invalid byte */
	expect_ascii("\xe2\x94", "??");	/* a character cut short: its bytes */
	expect_ascii("\t\x1b[0m", "\t\x1b[0m");	/* ASCII as it is */
}

/* Adds to cps (at most cap) the code points of the non-ASCII characters of
 * the string literals of a C file: \uXXXX escapes and raw UTF-8, outside
 * comments and character literals. */
static int c_literal_points(const char *text, uint32_t *cps, int n, int cap)
{
	enum { CODE, STRING, CHAR, LINE_COMMENT, BLOCK_COMMENT } st = CODE;
	for (const char *p = text; *p; p++) {
		switch (st) {
		case CODE:
			if (p[0] == '/' && p[1] == '/')
				st = LINE_COMMENT;
			else if (p[0] == '/' && p[1] == '*')
				st = BLOCK_COMMENT, p++;
			else if (*p == '"')
				st = STRING;
			else if (*p == '\'')
				st = CHAR;
			break;
		case STRING:
			if (p[0] == '\\' && p[1] == 'u') {
				char hex[5] = { 0 };
				memcpy(hex, p + 2, 4);
				if (n < cap)
					cps[n++] = (uint32_t)strtoul(hex, NULL, 16);
				p += 5;
			} else if (*p == '\\' && p[1]) {
				p++;
			} else if (*p == '"') {
				st = CODE;
			} else if ((unsigned char)*p >= 0x80) {
				uint32_t cp;
				int len = utf8_decode(p, strlen(p), &cp);
				if (n < cap)
					cps[n++] = cp;
				p += len - 1;
			}
			break;
		case CHAR:
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '\'')
				st = CODE;
			break;
		case LINE_COMMENT:
			if (*p == '\n')
				st = CODE;
			break;
		case BLOCK_COMMENT:
			if (p[0] == '*' && p[1] == '/')
				st = CODE, p++;
			break;
		}
	}
	return n;
}

/* The same for every non-ASCII character of a text (a lesson). */
static int text_points(const char *text, uint32_t *cps, int n, int cap)
{
	for (const char *p = text; *p;) {
		if ((unsigned char)*p < 0x80) {
			p++;
			continue;
		}
		uint32_t cp;
		p += utf8_decode(p, strlen(p), &cp);
		if (n < cap)
			cps[n++] = cp;
	}
	return n;
}

/* Whether cp's twin is its own: ASCII, no "?" (U+FFFD, the invalid byte,
 * is "?" by design; a combining mark is nothing). */
static bool has_twin(uint32_t cp, char *twin, size_t size)
{
	char s[5] = { 0 };
	if (cp < 0x80)
		return true;
	if (cp < 0x800) {
		s[0] = (char)(0xC0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		s[0] = (char)(0xE0 | cp >> 12), s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		s[2] = (char)(0x80 | (cp & 0x3F));
	} else {
		s[0] = (char)(0xF0 | cp >> 18), s[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		s[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), s[3] = (char)(0x80 | (cp & 0x3F));
	}
	char *a = ascii(s);
	snprintf(twin, size, "%s", a);
	bool ok = utf8_cp_width(cp) == 0 ? a[0] == 0 : a[0] && !strchr(a, '?');
	for (const char *p = a; *p; p++)
		ok = ok && (unsigned char)*p < 0x80;
	free(a);
	return ok;
}

/* Every file of dir whose name ends in ext. */
static int scan_dir(const char *dir, const char *ext, bool c_source, uint32_t *cps, int n, int cap)
{
	DIR *d = opendir(dir);
	cr_assert(d, "cannot list %s (the tests run from the repository's root)", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), el = strlen(ext);
		if (l < el || strcmp(e->d_name + l - el, ext) != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		char *text = read_text(path);
		cr_assert(text, "cannot read %s", path);
		n = c_source ? c_literal_points(text, cps, n, cap) : text_points(text, cps, n, cap);
		free(text);
	}
	closedir(d);
	return n;
}

Test(ascii, every_character_of_the_sources_and_lessons_should_have_a_twin)
{
	enum { CAP = 200000 };
	uint32_t *cps = malloc(CAP * sizeof *cps);
	int n = 0;
	static const char *const dirs[] = { "src/ui", "src/view", "src/lesson", "src/core", "src/lang" };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		n = scan_dir(dirs[i], ".c", true, cps, n, CAP);
	int in_sources = n;
	n = scan_dir("lessons", ".json", false, cps, n, CAP);
	cr_assert(in_sources > 20 && n > in_sources, "too few characters found (%d, %d): the scan is wrong",
		  in_sources, n);
	cr_assert(n < CAP);
	for (int i = 0; i < n; i++) {
		char twin[32];
		cr_expect(has_twin(cps[i], twin, sizeof twin), "U+%04X has no ASCII twin (gives \"%s\")",
			  (unsigned)cps[i], twin);
	}
	free(cps);
}

/* Where text is laid out by columns (box lines, shades, the cut "…", the
 * heatmap legend's × and ·, the scroll arrows), the twin takes the
 * character's one column. */
Test(ascii, glyphs_in_column_layouts_should_keep_one_column)
{
	static const char *const one[] = { "\u2500", "\u2502", "\u250c", "\u2591", "\u2592", "\u2593", "\u2588",
					   "\u2026", "\u00d7", "\u00b7", "\u2191", "\u2193", "\u2713", "\u270e",
					   "\u25d0" };
	for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
		char *a = ascii(one[i]);
		cr_expect_eq(strlen(a), 1, "\"%s\" became \"%s\"", one[i], a);
		free(a);
	}
}
