/* tokens.c: the token view model (see tokens.h), for ui/screen.c and
 * text/render.c. Reads the shown weights; never draws. */
#include "view/tokens.h"
#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tokens_build(struct tokens_view *tv, const struct show *s, const struct tensor *t, int64_t query)
{
	int nd = t->ndim;
	memset(tv, 0, sizeof *tv);
	tv->ntok = t->shape[nd - 1];
	tv->nheads = nd >= 3 ? t->shape[nd - 3] : 1;
	int64_t T = tv->ntok, H = tv->nheads;
	int64_t boff = nd == 4 ? (s->nslice ? s->slice[0] : 0) * H * T * T : 0;
	tv->query = query < 0 ? s->query : query;
	if (tv->query >= T)
		tv->query = T - 1;
	tv->query_named = tv->query < s->ncols;
	if (tv->query_named)
		snprintf(tv->query_label, sizeof tv->query_label, "%s", s->cols[tv->query]);
	else
		snprintf(tv->query_label, sizeof tv->query_label, "%lld", (long long)tv->query);
	tv->heads = xcalloc((size_t)H, sizeof *tv->heads);
	for (int64_t h = 0; h < H; h++) {
		if (h < s->nheads)
			snprintf(tv->heads[h], sizeof tv->heads[h], "%s", s->heads[h]);
		else
			snprintf(tv->heads[h], sizeof tv->heads[h], "head %lld", (long long)h);
	}
	tv->keys = xcalloc((size_t)T, sizeof *tv->keys);
	tv->w = xcalloc((size_t)(T * H), sizeof *tv->w);
	for (int64_t k = 0; k < T; k++) {
		if (k < s->ncols)
			snprintf(tv->keys[k], sizeof tv->keys[k], "%s", s->cols[k]);
		else
			snprintf(tv->keys[k], sizeof tv->keys[k], "%lld", (long long)k);
		for (int64_t h = 0; h < H; h++)
			tv->w[k * H + h] = tensor_get(t, boff + h * T * T + tv->query * T + k);
	}
}

void tokens_free(struct tokens_view *tv)
{
	free(tv->heads);
	free(tv->keys);
	free(tv->w);
	memset(tv, 0, sizeof *tv);
}
