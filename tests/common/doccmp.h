/* doccmp.h: comparing a notebook's printed output with qkv's, beyond
 * text_matches (helpers.h): the times IPython's magics print differ from run
 * to run and are masked; the grad_fn=<...> and requires_grad=True marks
 * torch prints, which text_matches ignores, must be the same. Used by
 * tests/system/test_docs.c; tested in tests/unit/test_docs.c. */
#ifndef QKV_TEST_DOCCMP_H
#define QKV_TEST_DOCCMP_H

#include <stdbool.h>
#include <stddef.h>

/* A copy of text (malloc'd) where each time line of %time / %%time
 * ("CPU times: user 911 ms, sys: 998 ms, total: 1.91 s", "Wall time: 2.28 s")
 * and of %timeit ("1.2 ms ± 3.4 µs per loop (mean ± std. dev. of 7 runs,
 * 1,000 loops each)") has its times replaced by T. A line that only looks
 * like one (a time without its unit, a field missing) is left as it is, so
 * that it fails the comparison. */
char *doccmp_mask_times(const char *text);

/* The autograd marks of text in order, one a line (malloc'd): each
 * "grad_fn=<NAME>" and "requires_grad=True". */
char *doccmp_grad_marks(const char *text);

/* text_matches of the masked texts, and the same autograd marks (when
 * prefix is true, want's marks begin got's). On a mismatch, fills why. */
bool doccmp_match(const char *got, const char *want, double f32_rel, bool prefix, char *why, size_t whylen);

#endif
