/* test_visible.c: core/visible, which shows the control characters of a
 * lesson or of input instead of letting the terminal obey them, in the
 * forms curses draws on the full screen. */
#include "core/visible.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void check(const char *in, int flags, const char *want)
{
	char *got = visible_copy(in, flags);
	cr_assert_str_eq(got, want, "visible(\"%s\")", in);
	free(got);
}

Test(visible, control_characters_should_show_in_caret_notation)
{
	check("\x1b]0;pwned\x07\x1b[2J", 0, "^[]0;pwned^G^[[2J");
	check("a\rb\x7f", 0, "a^Mb^?");
	check("\x01\x1f", 0, "^A^_");
}

Test(visible, c1_controls_should_show_as_curses_shows_them)
{
	check("x\xc2\x9b" "2J", 0, "x~[2J");
	check("\xc2\x80\xc2\x9f", 0, "~@~_");
}

Test(visible, text_should_pass_unchanged)
{
	check("héllo ✓ 日本 \xc2\xa0", 0, "héllo ✓ 日本 \xc2\xa0");
	check("a\tb", 0, "a\tb");
	check("", 0, "");
}

Test(visible, newlines_should_stay_only_when_asked)
{
	check("a\nb", 0, "a^Jb");
	check("a\nb", VISIBLE_NEWLINES, "a\nb");
}

Test(visible, bytes_that_are_not_utf8_should_show_in_hex)
{
	check("a\x9b" "b\xff", 0, "a\\x9bb\\xff");
	check("\xe2\x82", 0, "\\xe2\\x82");
}

Test(visible, in_place_should_cut_the_longer_form_at_a_character_boundary)
{
	char buf[8] = "\x1b\x1b\x1b\x1b\x1b";
	visible_in_place(buf, sizeof buf);
	cr_assert_str_eq(buf, "^[^[^[^");
	char buf2[6] = "\x1bé";
	visible_in_place(buf2, 4);
	cr_assert_str_eq(buf2, "^[");
}
