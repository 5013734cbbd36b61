/* inspect.h: the arithmetic behind one cell, as text.
 * A tensor that came out of a matmul, a softmax, a scaling or a masked_fill
 * remembers it (struct derivation in core/tensor.h); the inspector writes
 * the cell's computation with its numbers: for a product, q_i·k_j term by
 * term (the middle elided when long), for a scaled one ÷ √d_k, for a masked
 * cell why it is -inf, for a softmax weight exp(s_ij − max_i)/Σ_j exp(...).
 * Pure: appends lines to a strbuf. */
#ifndef QKV_VIEW_INSPECT_H
#define QKV_VIEW_INSPECT_H

#include "core/strbuf.h"
#include "core/tensor.h"

/* Explains element `flat` (row-major index) of t in lines of at most width
 * columns; name is how to call t ("S", "W[0]"). Returns the number of lines
 * written. A tensor without a derivation gets its value and position. */
int inspect_cell(struct strbuf *out, const struct tensor *t, const char *name, int64_t flat, int width);

#endif
