/* test_semantics.c: issue 15's findings about the language as a person meets
 * them through ./qkv eval: a file that opens with a byte order mark, a string
 * indexed by character (--json must stay valid UTF-8), a matrix written one row
 * a line, and a 100,000-term sum, which is one error naming the limit. */
#include "system.h"
#include "core/utf8.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes text to a new temporary file; returns its name (caller unlinks and frees). */
static char *temp_file(const char *text)
{
	char *name = strdup("/tmp/qkv-semantics-XXXXXX");
	int fd = mkstemp(name);
	cr_assert(fd >= 0);
	size_t len = strlen(text);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return name;
}

static bool valid_utf8(const char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int n = utf8_decode(s + i, len - i, &cp);
		if (cp == 0xFFFD && n == 1)
			return false;
		i += (size_t)n;
	}
	return true;
}

Test(semantics, eval_of_a_file_opening_with_a_byte_order_mark_should_skip_it)
{
	char *name = temp_file("\xef\xbb\xbfX = [1 2; 3 4]\nX.sum()\n");
	const char *argv[] = { "qkv", "eval", name, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	unlink(name);
	free(name);
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect_str_eq(out, "tensor(10.)\n");
	free(out);
	free(err);
}

Test(semantics, json_of_a_string_indexed_by_character_should_be_valid_utf8)
{
	const char *argv[] = { "qkv", "eval", "--json", "-e", "\"h\xc3\xa9llo\"[1]", "-e", "\"h\xc3\xa9llo\"[::-1]",
			       NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect(valid_utf8(out), "%s", out);
	cr_expect(strstr(out, "'\xc3\xa9'") != NULL, "%s", out);
	cr_expect(strstr(out, "'oll\xc3\xa9h'") != NULL, "%s", out);
	free(out);
	free(err);
}

Test(semantics, a_matrix_written_one_row_a_line_should_be_two_dimensional)
{
	const char *argv[] = { "qkv", "eval", "-", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "X = [1 2\n     3 4]\nX\n", NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect_str_eq(out, "tensor([[1., 2.],\n        [3., 4.]])\n");
	free(out);
	free(err);
}

Test(semantics, a_sum_of_100000_terms_should_be_one_error_naming_the_limit)
{
	size_t n = 100000;
	char *src = malloc(5 + 2 * n + 2), *p = src;
	p += sprintf(p, "x = 1");
	for (size_t i = 1; i < n; i++)
		p += sprintf(p, "+1");
	strcpy(p, "\n");
	char *name = temp_file(src);
	free(src);
	const char *argv[] = { "qkv", "eval", name, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	unlink(name);
	cr_expect_eq(rc, 2);
	char want[256];
	snprintf(want, sizeof want, "qkv: %s: line 1, col 5: expression too long: more than 3000 operations in a "
		 "chain (such as 1 + 1 + ...)\n", name);
	cr_expect_str_eq(err, want);
	free(name);
	free(out);
	free(err);
}
