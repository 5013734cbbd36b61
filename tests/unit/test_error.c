/* test_error.c: core/error.c in process: a message naming a long path keeps
 * its end (the reason), one too long for the record ends in "…" cut at a
 * character, error_clear empties a record, error_locate fills only an
 * unplaced one. */
#include <criterion/criterion.h>

#include "core/error.h"

#include <string.h>

/* A path of n bytes: "/tmp/" then directories of 'd's. */
static void long_path(char *buf, size_t n)
{
	memcpy(buf, "/tmp/", 5);
	for (size_t i = 5; i < n; i++)
		buf[i] = i % 100 == 99 ? '/' : 'd';
	buf[n] = 0;
}

Test(error, a_message_naming_a_path_of_thousands_of_bytes_should_keep_its_end)
{
	static char path[4096];
	static struct qkv_error err;
	for (size_t n = 300; n < sizeof path; n = n * 2 < sizeof path ? n * 2 : sizeof path - 1) {
		long_path(path, n);
		error_set(&err, 1, 7, "cannot open %s: No such file or directory", path);
		cr_assert_eq(strlen(err.msg), strlen("cannot open : No such file or directory") + n, "n = %zu", n);
		cr_assert(strncmp(err.msg + 12, path, n) == 0, "n = %zu", n);
		cr_assert_str_eq(err.msg + 12 + n, ": No such file or directory");
		cr_assert(err.line == 1 && err.col == 7);
		if (n == sizeof path - 1)
			break;
	}
}

Test(error, a_message_longer_than_the_record_should_end_in_an_ellipsis_at_a_character)
{
	static char text[2 * ERROR_MSG_MAX];
	static struct qkv_error err;
	/* 'é' (2 bytes) everywhere: no cut may leave half of one */
	for (int shift = 0; shift < 2; shift++) {
		size_t n = 0;
		if (shift)
			text[n++] = 'a';
		while (n + 2 < sizeof text) {
			text[n++] = (char)0xc3;
			text[n++] = (char)0xa9;
		}
		text[n] = 0;
		error_set(&err, 0, 0, "%s", text);
		size_t len = strlen(err.msg);
		cr_assert(len < ERROR_MSG_MAX && len + 4 > ERROR_MSG_MAX - 2, "%zu bytes", len);
		cr_assert_str_eq(err.msg + len - 3, "\u2026", "the cut is not marked");
		size_t body = len - 3;
		cr_assert_eq(memcmp(err.msg, text, body), 0);
		cr_assert((body - (size_t)shift) % 2 == 0, "half a character before the mark (%zu bytes)", body);
	}
}

Test(error, a_message_that_fits_exactly_should_not_be_marked)
{
	static char text[ERROR_MSG_MAX];
	static struct qkv_error err;
	memset(text, 'x', sizeof text - 1);
	text[sizeof text - 1] = 0;
	error_set(&err, 0, 0, "%s", text);
	cr_assert_str_eq(err.msg, text);
}

Test(error, clear_should_leave_no_place_and_no_message_and_locate_only_fill_an_unplaced_one)
{
	struct qkv_error err;
	error_set(&err, 3, 4, "boom");
	error_locate(&err, 9, 9);
	cr_assert(err.line == 3 && err.col == 4);
	error_clear(&err);
	cr_assert(err.line == 0 && err.col == 0 && err.msg[0] == 0);
	error_locate(&err, 9, 2);
	cr_assert(err.line == 9 && err.col == 2);
	error_clear(NULL);
	cr_assert_eq(error_set(NULL, 1, 1, "x"), -1);
}
