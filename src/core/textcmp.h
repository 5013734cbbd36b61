/* textcmp.h: comparing printed output where numbers may round differently.
 * Used by `qkv check` (a lesson's expected text) and by the tests: all text
 * must be equal except numbers, which may differ by one unit in their last
 * printed digit. */
#ifndef QKV_CORE_TEXTCMP_H
#define QKV_CORE_TEXTCMP_H

#include <stdbool.h>
#include <stddef.h>

/* True when got matches want: everything but numbers equal (", grad_fn=<...>"
 * included: qkv prints it as torch does); each number equal, or differing from
 * the expected one by one unit in its last printed digit (same length of
 * text), or by f32_rel relative (for float32 values printed with Python's 17
 * digits; 0 to disallow), or by abs_tol (a lesson expect's "tol"; 0 for
 * none). When prefix is true, got may go on after want ends. On a mismatch,
 * why (may be NULL) gets the line and both texts. */
bool textcmp_match(const char *got, const char *want, double f32_rel, double abs_tol, bool prefix, char *why,
		   size_t whylen);

#endif
