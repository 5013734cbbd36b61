/* tokens.h: the token view of attention weights, computed without a
 * terminal: for one query token, its weight over every key token, head by
 * head, with the lesson's names for tokens and heads. The full screen and
 * `qkv run` draw their bars from this one model. Pure. */
#ifndef QKV_VIEW_TOKENS_H
#define QKV_VIEW_TOKENS_H

#include "lesson/runner.h"

#include <stdbool.h>
#include <stdint.h>

struct tokens_view {
	int64_t ntok;              /* tokens (keys = queries) */
	int64_t nheads;            /* heads (1 for (T, T) weights) */
	int64_t query;             /* the query token shown */
	char query_label[64];      /* its name, or its index */
	bool query_named;          /* the lesson names the tokens */
	char (*heads)[32];         /* nheads names: the lesson's, else "head 0", ... */
	char (*keys)[64];          /* ntok names: the lesson's labels, else indices */
	double *w;                 /* w[key * nheads + head]: the weights of the query */
};

/* The view of t, the weights of token show s (checked by the runner: (T,
 * T), (H, T, T) or (B, H, T, T) with T > 0), for query token query (the
 * show's own when negative; clamped to the tokens), in the batch the show's
 * slice names. */
void tokens_build(struct tokens_view *tv, const struct show *s, const struct tensor *t, int64_t query);
void tokens_free(struct tokens_view *tv);

#endif
