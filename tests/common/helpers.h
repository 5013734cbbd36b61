/* helpers.h: shared by the Criterion files of tests/unit (in-process) and
 * tests/system (the binary, tmux): reading and writing whole files, temporary
 * directories, and comparing printed numbers with a tolerance. Nothing here
 * starts a process: that is tests/system/system.h. */
#ifndef QKV_TEST_HELPERS_H
#define QKV_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

/* Reads a whole file (malloc'd, NUL appended), or NULL. */
char *read_text(const char *path);

/* The bytes of a file (malloc'd, NUL appended, *len set), or NULL. */
char *file_read(const char *path, size_t *len);

/* Writes data[0..len) to path, making its directory (0700) when missing;
 * the test fails when it cannot. */
void file_put(const char *path, const void *data, size_t len);

/* The test fails unless path holds exactly data[0..len). */
void file_assert_holds(const char *path, const void *data, size_t len);

/* The names in dir but . and .., sorted, each followed by a space ("" when
 * none or no dir); malloc'd. */
char *dir_list(const char *dir);

/* Makes a fresh directory /tmp/PREFIX-XXXXXX into buf (size at least
 * strlen(prefix) + 13); the test fails when it cannot. */
void dir_make_temp(char *buf, size_t size, const char *prefix);

/* Removes dir and everything under it, read-only parts too (nothing when
 * dir is ""). */
void dir_remove(const char *dir);

/* Compares printed output (textcmp_match, core/textcmp.h, with no "tol"):
 * everything but numbers must be equal (", grad_fn=<...>" included: qkv
 * prints it as torch does); a number with digits after the point may differ
 * from the expected one by one unit in its last printed digit, or by f32_rel
 * relative (for float32 values printed with Python's 17 digits); integers
 * and whole floats (2.) are exact. On a mismatch, fills
 * why with the line and both texts. When prefix is true, got may go on after
 * want ends. */
bool text_matches(const char *got, const char *want, double f32_rel, bool prefix, char *why, size_t whylen);

#endif
