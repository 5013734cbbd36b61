/* looptrace.h: a computation as one of the kernel's variants runs it, one
 * step at a time: the for-loops (one iteration a step), the unrolled loops or
 * the vectorised kernel (see "the three variants" below). For a matmul, a
 * softmax or a whole attention (the kinds a `compare` show animates), it
 * gives the code a student reads (as in seed 003), the line and indices of
 * step t, and the result matrix filled up to t, so the ui can animate the
 * variants side by side. Pure: computes from the operands it is given, in
 * double, and never draws; no allocation after creation. */
#ifndef QKV_VIEW_LOOPTRACE_H
#define QKV_VIEW_LOOPTRACE_H

#include "core/tensor.h"

#include <stdbool.h>
#include <stdint.h>

enum trace_kind { TRACE_MATMUL, TRACE_SOFTMAX, TRACE_ATTENTION };

struct looptrace;

/* Traces whose loops would run more iterations than this are refused (NULL),
 * and so are attentions whose dot products would take more multiply-adds than
 * LOOPTRACE_MAX_WORK to prepare, or whose output has more cells than
 * LOOPTRACE_MAX_ITERATIONS. */
#define LOOPTRACE_MAX_ITERATIONS 50000000LL
#define LOOPTRACE_MAX_WORK 200000000LL

/* The constructors copy their operands (in double) and keep no reference to
 * them. Operands with more than 2 dims are followed through their first
 * matrix (batch 0, head 0: see looptrace_slice); a 1-D a of a matmul is one
 * row and a 1-D b one column. NULL when the shapes do not fit, when a size is
 * 0 (nothing to animate) or over the limits above. */

/* c = a @ b for a (m,k) and b (k,n). */
struct looptrace *looptrace_matmul(const struct tensor *a, const struct tensor *b);
/* softmax of the rows of x (rows, cols), as kernel/loops.c computes it (a
 * row of -inf only becomes zeros). */
struct looptrace *looptrace_softmax(const struct tensor *x);
/* softmax(q·kᵀ·scale, masked when causal or by mask (bool (tq,tk), true =
 * masked, may be NULL; size-1 dims broadcast)) · v, for q (tq,d), k (tk,d),
 * v (tk,dv). */
struct looptrace *looptrace_attention(const struct tensor *q, const struct tensor *k, const struct tensor *v,
				      const struct tensor *mask, bool causal, double scale);
/* From how t was computed (its derivation), when it is one of the three
 * (DERIV_MATMUL; DERIV_SOFTMAX over the last dim; DERIV_ATTENTION, causal or
 * not, with the mask its inner DERIV_MASKED_FILL carries); NULL otherwise. The code names the operands with the derivation's
 * labels ("Q", "K.T") when it has them. */
struct looptrace *looptrace_for(const struct tensor *t);
void looptrace_free(struct looptrace *lt);

/* ---- the three variants (issue 18) -------------------------------------------
 * A trace follows one of the kernel's three variants of the computation, on
 * the same output grid, each ending with the kernel's result:
 *   TRACE_LOOPS     one multiply-add per step (everything above);
 *   TRACE_UNROLLED  one step is one iteration of the unrolled loop
 *                   (kernel/unrolled.c): the KERNEL_UNROLL partial sums of
 *                   the current cell each take one term, side by side
 *                   (looptrace_partials; a shorter last iteration takes the
 *                   remainder), and a last step merges them as
 *                   (s0 + s1) + (s2 + s3). A softmax row: iterations of 4
 *                   entries into partial maxima, a merge, iterations into
 *                   partial sums of exp, a merge, divisions 4 at a time. An
 *                   attention: its scores (a hidden key one step), softmax
 *                   and weighted sums (partial rows o0..o3 over v_idx) so.
 *                   Bit for bit the _unrolled kernels' float64 results;
 *   TRACE_SIMD      one step is what the SIMD kernel on this machine does in
 *                   one pass of its inner loop, in the shapes and order of the
 *                   kernel that runs for the operands' element type
 *                   (kernel_simd_tile). A matmul: one p across a register
 *                   tile (tile_rows broadcasts of a[i, p], each an FMA into
 *                   tile_cols/lanes vectors of b[p, j..]), so the whole tile
 *                   grows at once, the tiles in the kernel's GotoBLAS order
 *                   (blocks of nc columns, passes of kc of the depth, blocks
 *                   of mc rows, panels, tiles: over several passes a cell
 *                   adds each pass's sum to what it held); an edge tile costs
 *                   a whole one (the kernel pads it). A product small enough
 *                   for the tiny path: row by row, tiny_cols columns (or one
 *                   cell) a step. A softmax: one vector of softmax_lanes
 *                   entries (max; exp, summed lane by lane; division) and one
 *                   step to reduce the lanes after the max and after the sum.
 *                   An attention: the kernel dispatch runs for its head (a
 *                   DERIV_ATTENTION never wants weights): with tq·tk <=
 *                   att_small the two-pass one, in three phases: "scores"
 *                   (q·kᵀ in tiles, unscaled; tiles wholly in the causal
 *                   future skipped), "softmax" (per row one step scaling it
 *                   and setting hidden keys to -inf, then the softmax's
 *                   vectors) and "weighted sum" (weights·v in tiles); else
 *                   the fused one: one step is one block of att_keys keys
 *                   against a block of att_rows queries (the last block
 *                   first, as dispatch.c takes them) for one pass of
 *                   att_dvc value columns (scores, the new running maximum
 *                   m, the rescaling alpha of l and of out so far), and a
 *                   last step per block and pass divides out by l; the
 *                   matrix is out (phase "online softmax"), holding acc (not
 *                   yet divided) while its block runs. The scalar path runs
 *                   kernel/loops.c's matmul, softmax and two-pass attention:
 *                   their traces are the loops' (looptrace_variant still
 *                   says TRACE_SIMD). The matmul's float64 result is the
 *                   SIMD kernel's bit for bit; the softmax and attention
 *                   within 1e-13 (its exp is not libm's).
 * Step counts and tile shapes come from KERNEL_UNROLL and kernel_simd_tile,
 * never from a copy of them. Every function of this header works on every
 * variant (looptrace_code gives that variant's code). */
enum trace_variant { TRACE_LOOPS, TRACE_UNROLLED, TRACE_SIMD };
#define TRACE_VARIANTS 3

/* As looptrace_for, following variant v (TRACE_LOOPS: looptrace_for). */
struct looptrace *looptrace_for_variant(const struct tensor *t, enum trace_variant v);
enum trace_variant looptrace_variant(const struct looptrace *lt);
/* "for-loops", "unrolled ×4", "vectorised (avx2, 6×16 tile)", "vectorised (avx2,
 * tiny: 4 columns at a time)", "vectorised (avx2, two-pass, 6×16 tiles)",
 * "vectorised (avx2, fused 48×96 blocks)", "no vectors (the scalar path: for-loops)" */
void looptrace_variant_title(const struct looptrace *lt, char *buf, size_t size);
/* What the whole computation takes in this variant's steps, with numbers:
 * "6,400 multiply-adds", "1,600 iterations of 4 + 400 merges",
 * "48 steps of 12 FMAs of 8 lanes". */
void looptrace_steps_text(const struct looptrace *lt, char *buf, size_t size);
/* The cells of the matrix the current step writes, a rectangle (one cell
 * for loops and unrolled, the register tile clipped to the matrix, the
 * entries of a softmax step (a whole row for a merge or a row of -inf), a
 * whole row for a weighted sum, the rows of a query block); false at pos 0. */
bool looptrace_current_rect(const struct looptrace *lt, int *row, int *col, int *rows, int *cols);
/* TRACE_UNROLLED: the KERNEL_UNROLL partial sums of the current cell (their
 * count; 0 when the step has none, and for the other variants): of a matmul
 * or a score, the partial maxima or exp sums of a softmax row, column 0 of
 * the partial rows o0..o3 of a weighted sum. Valid until the next seek. */
int looptrace_partials(const struct looptrace *lt, const double **sums);
/* For the inspector: which step of this variant computes cell (row, col) of
 * the matrix of the current phase, in one sentence (steps are positions,
 * 1-based): "c[2, 3]: s0..s3 each took every 4th of the 16 terms (s0: p = 0,
 * 4, 8, 12), merged as (s0 + s1) + (s2 + s3) in step 1,203", "c[2, 3]: lane 3
 * of vector 0, row 2 of the 6×16 tile at rows 0-5, cols 0-15, grown in steps
 * 1-16 (one FMA per p)"; "" outside the matrix. */
void looptrace_cell_story(const struct looptrace *lt, int row, int col, char *buf, size_t size);

enum trace_kind looptrace_kind(const struct looptrace *lt);
int64_t looptrace_total(const struct looptrace *lt);       /* steps (loops: iterations) */
void looptrace_seek(struct looptrace *lt, int64_t t);      /* 0..total: after t steps */
int64_t looptrace_pos(const struct looptrace *lt);

/* The current iteration is the last one run: iteration pos - 1. At pos 0
 * nothing has run: there is no current line (-1), cell or indices.
 *
 * What one iteration is, and the matrix (looptrace_matrix) it fills:
 *   TRACE_MATMUL: one `s += a[i, p] * b[p, j]`; the one with p = k - 1 also
 *     stores c[i, j] = s (total m·n·k). Matrix c (m,n): cells before (i, j)
 *     done (2), (i, j) in progress (1) holding the partial sum s (done once
 *     p = k - 1), the rest 0.
 *   TRACE_SOFTMAX: per row three passes over its cols entries: the running
 *     max, exp(y - max) summed, the division by the sum; a row of -inf only
 *     runs the max pass and then one iteration that zeroes it (total about
 *     3·rows·cols). Matrix y (rows,cols), a copy of x turning into weights:
 *     rows before done (2), rows after hold x (0); in the current row, the
 *     max pass marks the entries it has looked at 1 (the rest 0); the exp
 *     pass holds exp(y - max) (1) up to j and x after it (0); the division
 *     pass holds weights (2) up to j and exp values (1) after it.
 *   TRACE_ATTENTION, in three phases (looptrace_phase):
 *     "scores": one per (q_idx, k_idx), the whole dot product (or -inf for a
 *       masked key); matrix att (tq,tk): cells up to (q_idx, k_idx) done (2),
 *       the rest 0 (zeros, as torch.zeros made them).
 *     "softmax": the softmax passes above over att, in place; matrix att,
 *       with the states of TRACE_SOFTMAX (rows after hold their scores, 0).
 *     "weighted sum": one `out[row] += a[v_idx] * v` per (row, v_idx), a
 *       whole row of dv numbers; matrix out (tq,dv): rows before done (2),
 *       the current row the partial sum (1; done once v_idx = tk - 1), the
 *       rest 0.
 *   Total 2·tq·tk plus the softmax's. */

/* The loop code (Python-like lines, the notebook's names, the real sizes)
 * and the line of the statement the current iteration runs (the `s +=`, the
 * assignment of a score or a weight, ...), -1 at pos 0. */
int looptrace_code(const struct looptrace *lt, const char *const **lines);
int looptrace_current_line(const struct looptrace *lt);
/* Every line the current iteration runs, first..last (e.g. the `s +=` and
 * the store on the last p, or `if`, `= -inf` and `continue` for a masked
 * key); -1, -1 at pos 0. */
void looptrace_current_span(const struct looptrace *lt, int *first, int *last);
/* "i = 1, j = 2, p = 3" for the current iteration; "" at pos 0 */
void looptrace_indices(const struct looptrace *lt, char *buf, size_t size);
/* One line on what the current iteration does, with numbers:
 * "s += Q[1, 3] · K.T[3, 2] = 0.2134 × -1.3021 → s = -0.4515" */
void looptrace_explain(const struct looptrace *lt, char *buf, size_t size);

/* The matrix being filled: rows x cols values, and which cells are done (2),
 * being computed (1) or not yet reached (0) (see above for each kind).
 * Borrowed; valid until the next seek. Its size changes between the phases
 * of an attention. */
void looptrace_matrix(const struct looptrace *lt, int *rows, int *cols, const double **values,
		      const uint8_t **state);
/* The cell of that matrix the current iteration reads or writes; col is -1
 * when it writes a whole row (a weighted sum, a row of -inf zeroed). False
 * at pos 0. */
bool looptrace_current_cell(const struct looptrace *lt, int *row, int *col);

/* Which part of the computation the current iteration is in: "matmul",
 * "softmax", or for an attention "scores", "softmax", "weighted sum"; and
 * the name of the matrix it fills then: "c", "y", "att", "out" (the code's
 * names). */
const char *looptrace_phase(const struct looptrace *lt);
const char *looptrace_matrix_name(const struct looptrace *lt);
/* A label for the matrix being filled: its name in the code, its size and
 * what it holds in the current phase, then the slice followed when the
 * operands had more dims: "c (3×5): sums of products, one cell at a time",
 * "att (4×4): the scores, one per query and key", "att (4×4): the scores
 * turning into weights, row by row", "y (3×5): the rows turning into
 * weights, one by one", "out (4×2): each row a weighted sum of the value
 * rows"; "…, batch 0, head 0". */
void looptrace_matrix_label(const struct looptrace *lt, char *buf, size_t size);
/* The positions first..last of the current phase (pos 0 counts to the first
 * phase): seek(last) finishes it, seek(last + 1) starts the next one. */
void looptrace_phase_bounds(const struct looptrace *lt, int64_t *first, int64_t *last);
/* "batch 0" or "batch 0, head 0" when the operands had 3 or 4 dims and the
 * trace follows their first matrix; "" for matrices. */
const char *looptrace_slice(const struct looptrace *lt);

#endif
