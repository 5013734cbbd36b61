/* textcmp.h: comparing printed output where numbers may round differently.
 * Used by `qkv check` (a lesson's expected text) and by the tests: all text
 * must be equal except numbers written with digits after the point, which may
 * differ by one unit in their last printed digit (float rounding). */
#ifndef QKV_CORE_TEXTCMP_H
#define QKV_CORE_TEXTCMP_H

#include <stdbool.h>
#include <stddef.h>

/* True when got matches want: everything but numbers equal (", grad_fn=<...>"
 * included: qkv prints it as torch does); each number printed as expected,
 * or, when neither is an integer (digits alone: 41, a shape, an index; those
 * are exact), differing from the expected one
 * - by one unit in its last digit when both have as many digits after the
 *   point (at least one: a whole float printed 2. is exact), both an exponent
 *   or neither, and the same sign unless both are zero (0.1234 and 0.1235,
 *   1.2346e-03 and 1.2345e-03, -0.0000 and 0.0000; not -0.0001 and 0.0001),
 * - or by f32_rel relative (for float32 values printed with Python's 17
 *   digits; 0 to disallow), or by abs_tol (a lesson expect's "tol"; 0 for
 *   none).
 * When prefix is true, got may go on after want ends. On a mismatch, why (may
 * be NULL) gets the line and both texts. */
bool textcmp_match(const char *got, const char *want, double f32_rel, double abs_tol, bool prefix, char *why,
		   size_t whylen);

#endif
