/* temper.h: the temperature knob, a what-if on a copy: softmax weights
 * computed again from their scores multiplied by a factor (×2, ÷2, ...), or
 * the scores themselves multiplied, so a view can show how the factor
 * sharpens or flattens attention (seed 001's ×100 experiment, live). The
 * lesson's own tensors are never changed. Pure: builds new tensors in
 * double, draws nothing. */
#ifndef QKV_VIEW_TEMPER_H
#define QKV_VIEW_TEMPER_H

#include "core/tensor.h"

#include <stdbool.h>

enum temper_kind {
	TEMPER_NONE,      /* neither weights from a softmax nor scores: the knob does nothing */
	TEMPER_WEIGHTS,   /* softmax(a, dim=-1): computed again as softmax(factor · a) */
	TEMPER_SCORES,    /* a product, a scaling or a masking (what feeds a softmax): factor · t */
};

/* What the knob does to t: from how t was computed (its derivation). */
enum temper_kind temper_kind_of(const struct tensor *t);

/* A new float64 tensor of t's shape: t's weights computed again from
 * factor × their scores, or t's scores times factor (masked -inf stay -inf;
 * a row of only -inf gives NaN, as torch does). NULL when the knob does
 * nothing to t (TEMPER_NONE) or factor is not a positive finite number. */
struct tensor *temper_apply(const struct tensor *t, double factor);

/* The entropy (natural log, nats) of the n weights w[0], w[stride], ...:
 * -Σ p log p over the positive ones; NaN when they are not weights (a
 * negative or NaN entry). ln(n) is the most a row of n can have. */
double temper_entropy(const struct tensor *w, int64_t first, int64_t n);

/* The inspector's lines for element flat of tempered (temper_apply of orig
 * with the factor 2^exp), called name: its value then and in orig, and the
 * entropy of its row then, at ×1, and at most. */
struct strbuf;
void temper_inspect(struct strbuf *out, const struct tensor *orig, const struct tensor *tempered, const char *name,
		    int64_t flat, int exp);

/* "×4", "÷2" or "×1" for the factor 2^exp. */
void temper_label(char *buf, size_t size, int exp);

#endif
