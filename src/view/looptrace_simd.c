/* looptrace_simd.c: the vectorised variant of a trace, in the shapes of the
 * SIMD path in use (kernel_simd_tile): a matmul one p at a time across the
 * micro-kernel's register tile, a softmax one vector of lanes at a time, an
 * attention as the fused kernel's blocks of queries against blocks of keys
 * with its online softmax. For looptrace.c; pure, no drawing. */
#include "view/looptrace_internal.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int64_t looptrace_simd_tiles(const struct looptrace *lt, int64_t *tiles_r, int64_t *tiles_c)
{
	*tiles_r = (lt->m + lt->tile.tile_rows - 1) / lt->tile.tile_rows;
	*tiles_c = (lt->n + lt->tile.tile_cols - 1) / lt->tile.tile_cols;
	return *tiles_r * *tiles_c;
}

/* ---- the fused attention ----------------------------------------------------- */

/* The keys a query block starting at i0 (bq rows) looks at: all, or with
 * causal up to its last query. */
static int64_t block_keys(const struct looptrace *lt, int64_t i0, int64_t bq)
{
	return lt->causal && i0 + bq < lt->n ? i0 + bq : lt->n;
}

static int64_t block_rows(const struct looptrace *lt, int64_t i0)
{
	return lt_min64(lt->tile.att_rows, lt->m - i0);
}

/* Folds keys j0 .. j0+bk-1 into the running state of the block at i0: each
 * query's maximum m (NaN scores skipped, as the kernel's max does), the
 * factor alpha = exp(m_old - m_new), l = l·alpha + Σ exp(s - m_new) and
 * acc = acc·alpha + Σ exp(s - m_new)·v. */
static void fold(struct looptrace *lt, int64_t i0, int64_t j0, int64_t bk)
{
	int64_t bq = block_rows(lt, i0), dv = lt->dv;
	for (int64_t r = 0; r < bq; r++) {
		int64_t qi = i0 + r;
		const double *srow = &lt->scores[qi * lt->n];
		const uint8_t *hid = &lt->hidden[qi * lt->n];
		double bmax = -INFINITY;
		for (int64_t j = j0; j < j0 + bk; j++)
			if (!hid[j] && srow[j] > bmax)
				bmax = srow[j];
		double mold = lt->blk_m[r], mnew = bmax > mold ? bmax : mold;
		double msub = mnew == -INFINITY ? 0.0 : mnew;   /* nothing seen yet: exp(-inf) = 0 */
		double alpha = exp(mold - msub), lsum = 0.0;
		double *acc = &lt->blk_acc[r * dv];
		for (int64_t c = 0; c < dv; c++)
			acc[c] *= alpha;
		for (int64_t j = j0; j < j0 + bk; j++) {
			if (hid[j])
				continue;
			double e = exp(srow[j] - msub);
			lsum += e;
			for (int64_t c = 0; c < dv; c++)
				acc[c] += e * lt->v[j * dv + c];
		}
		lt->blk_l[r] = lt->blk_l[r] * alpha + lsum;
		lt->blk_m[r] = mnew;
		lt->blk_alpha[r] = alpha;
	}
}

static void block_reset(struct looptrace *lt, int64_t i0)
{
	int64_t ar = lt->tile.att_rows;
	for (int64_t r = 0; r < ar; r++) {
		lt->blk_m[r] = -INFINITY;
		lt->blk_l[r] = 0.0;
		lt->blk_alpha[r] = 1.0;
	}
	for (int64_t i = 0; i < ar * lt->dv; i++)
		lt->blk_acc[i] = 0.0;
	lt->blk_i0 = i0;
	lt->blk_next = 0;
}

/* out = acc / l for the block at i0 (l = 0: every key masked, nan) */
static void block_finish(struct looptrace *lt, int64_t i0, double *out)
{
	int64_t bq = block_rows(lt, i0), dv = lt->dv;
	for (int64_t r = 0; r < bq; r++) {
		double l = lt->blk_l[r], inv = 1 / l;
		for (int64_t c = 0; c < dv; c++)
			out[(i0 + r) * dv + c] = l == 0 ? NAN : lt->blk_acc[r * dv + c] * inv;
	}
}

void looptrace_simd_attention(struct looptrace *lt)
{
	int64_t ar = lt->tile.att_rows, ak = lt->tile.att_keys, blocks = (lt->m + ar - 1) / ar;
	lt->blk_acc = xmalloc((size_t)(ar * lt->dv) * sizeof *lt->blk_acc);
	lt->blk_m = xmalloc((size_t)ar * sizeof *lt->blk_m);
	lt->blk_l = xmalloc((size_t)ar * sizeof *lt->blk_l);
	lt->blk_alpha = xmalloc((size_t)ar * sizeof *lt->blk_alpha);
	lt->blk_start = xmalloc((size_t)(blocks + 1) * sizeof *lt->blk_start);
	lt->blk_start[0] = 0;
	for (int64_t b = 0; b < blocks; b++) {
		int64_t i0 = b * ar, kend = block_keys(lt, i0, block_rows(lt, i0));
		block_reset(lt, i0);
		for (int64_t j0 = 0; j0 < kend; j0 += ak)
			fold(lt, i0, j0, lt_min64(ak, kend - j0));
		block_finish(lt, i0, lt->res);
		lt->blk_start[b + 1] = lt->blk_start[b] + (kend + ak - 1) / ak + 1;
	}
	lt->blk_i0 = lt->blk_next = -1;
	lt->total = lt->blk_start[blocks];
	lt->sm_begin = lt->out_begin = 0;
}

/* ---- steps ---------------------------------------------------------------------- */

struct step looptrace_simd_decode(const struct looptrace *lt, int64_t it)
{
	struct step s = { ST_TILE, 0, 0, 0, 1, false };
	if (lt->kind == TRACE_MATMUL) {
		int64_t tiles_r, tiles_c, tile = it / lt->k;
		looptrace_simd_tiles(lt, &tiles_r, &tiles_c);
		s.p = it % lt->k;
		s.r = tile % tiles_r * lt->tile.tile_rows;
		s.c = tile / tiles_r * lt->tile.tile_cols;
		s.w = (int64_t)lt->tile.tile_rows * (lt->tile.tile_cols / lt->tile.lanes);   /* FMAs */
		s.merge = s.p == lt->k - 1;
		return s;
	}
	int64_t ar = lt->tile.att_rows, ak = lt->tile.att_keys;
	int64_t lo = looptrace_find(lt->blk_start, (lt->m + ar - 1) / ar, it);
	int64_t off = it - lt->blk_start[lo], kend = block_keys(lt, lo * ar, block_rows(lt, lo * ar));
	s.kind = ST_BLOCK;
	s.r = lo * ar;
	if (off == lt->blk_start[lo + 1] - lt->blk_start[lo] - 1) {
		s.w = kend;
		s.merge = true;
	} else {
		s.c = off * ak;
		s.w = lt_min64(ak, kend - s.c);
	}
	return s;
}

void looptrace_simd_load(struct looptrace *lt, struct step s)
{
	if (s.kind != ST_BLOCK)
		return;
	int64_t ak = lt->tile.att_keys, upto = s.merge ? s.w : s.c + s.w;   /* keys to fold in */
	if (lt->blk_i0 != s.r || lt->blk_next > upto)
		block_reset(lt, s.r);
	while (lt->blk_next < upto) {
		fold(lt, s.r, lt->blk_next, lt_min64(ak, upto - lt->blk_next));
		lt->blk_next += ak;
	}
}

/* ---- code -------------------------------------------------------------------------- */

/* "b0, b1" for the vectors of one row of the tile */
static void vec_names(char *buf, size_t size, const char *name, int count)
{
	size_t len = 0;
	buf[0] = 0;
	for (int v = 0; v < count && len < size; v++)
		len += (size_t)utf8_snprintf(buf + len, size - len, "%s%s%d", v ? ", " : "", name, v);
}

static void matmul_code(struct looptrace *lt)
{
	const struct kernel_tile *t = &lt->tile;
	int nv = t->tile_cols / t->lanes;
	char names[64], loads[256];
	size_t len = 0;
	loads[0] = 0;
	for (int v = 0; v < nv && len < sizeof loads; v++)
		len += (size_t)utf8_snprintf(loads + len, sizeof loads - len, v ? ", %s[p, j0 + %d:j0 + %d]" :
					     "%s[p, j0:j0 + %d]", lt->nb, v ? v * t->lanes : t->lanes, (v + 1) * t->lanes);
	vec_names(names, sizeof names, "b", nv);
	looptrace_add_line(lt, "# %s: a %d\u00d7%d register tile of %s, %d vectors of %d lanes", t->path, t->tile_rows,
			   t->tile_cols, lt->nc, t->tile_rows * nv, t->lanes);
	looptrace_add_line(lt, "%s = torch.zeros(%lld, %lld)", lt->nc, (long long)lt->m, (long long)lt->n);
	looptrace_add_line(lt, "for j0 in range(0, %lld, %d):  # panels of %d columns", (long long)lt->n, t->tile_cols,
			   t->tile_cols);
	looptrace_add_line(lt, "    for i0 in range(0, %lld, %d):  # tiles of %d rows", (long long)lt->m, t->tile_rows,
			   t->tile_rows);
	looptrace_add_line(lt, "        acc = zeros(%d, %d)  # %d registers", t->tile_rows, t->tile_cols, t->tile_rows * nv);
	looptrace_add_line(lt, "        for p in range(%lld):", (long long)lt->k);
	lt->ln.fma_first = looptrace_add_line(lt, "            %s = %s", names, loads);
	looptrace_add_line(lt, "            for r in range(%d):  # %d broadcasts, %d FMAs", t->tile_rows, t->tile_rows,
			   t->tile_rows * nv);
	looptrace_add_line(lt, "                x = %s%s", lt->na, lt->a_vec ? "[p]" : "[i0 + r, p]");
	for (int v = 0; v < nv; v++)
		lt->ln.fma_last = looptrace_add_line(lt, "                acc[r, %d:%d] += x * b%d", v * t->lanes,
						     (v + 1) * t->lanes, v);
	lt->ln.store = looptrace_add_line(lt, "        %s[i0:i0 + %d, j0:j0 + %d] = acc  # the cells inside %s", lt->nc,
					  t->tile_rows, t->tile_cols, lt->nc);
}

static void softmax_code(struct looptrace *lt, const char *y, const char *r)
{
	const struct rowsoft *sm = &lt->sm;
	int L = sm->width;
	long long cols = (long long)sm->cols;
	looptrace_add_line(lt, "# %s: vectors of %d lanes", lt->tile.path, L);
	looptrace_add_line(lt, "for %s in range(%lld):", r, (long long)sm->rows);
	looptrace_add_line(lt, "    vmax = [float('-inf')] * %d", L);
	looptrace_add_line(lt, "    for j in range(0, %lld, %d):", cols, L);
	lt->ln.vmax = looptrace_add_line(lt, "        vmax = maximum(vmax, %s[%s, j:j + %d])  # %d at once", y, r, L, L);
	lt->ln.hmax = looptrace_add_line(lt, "    max = vmax.max()  # across the lanes (a short tail one by one)");
	looptrace_zero_row_lines(lt, y, r);
	looptrace_add_line(lt, "    vsum = [0] * %d", L);
	looptrace_add_line(lt, "    for j in range(0, %lld, %d):  # past the end: -inf, exp 0", cols, L);
	lt->ln.vexp = looptrace_add_line(lt, "        e = exp(%s[%s, j:j + %d] - max)  # %d at once", y, r, L, L);
	looptrace_add_line(lt, "        %s[%s, j:j + %d] = e", y, r, L);
	lt->ln.sum = looptrace_add_line(lt, "        vsum += e  # lane by lane");
	lt->ln.hsum = looptrace_add_line(lt, "    sum = vsum[0] + vsum[1] + \u2026 + vsum[%d]", L - 1);
	looptrace_add_line(lt, "    for j in range(0, %lld, %d):", cols, L);
	lt->ln.vdiv = looptrace_add_line(lt, "        %s[%s, j:j + %d] = %s[%s, j:j + %d] / sum", y, r, L, y, r, L);
}

static void attention_code(struct looptrace *lt)
{
	const struct kernel_tile *t = &lt->tile;
	int ar = t->att_rows, ak = t->att_keys;
	looptrace_add_line(lt, "# %s, fused: %d queries against %d keys at a time, an online softmax", t->path, ar, ak);
	looptrace_add_line(lt, "# (a small head runs the two-pass softmax instead, for torch's last digits)");
	looptrace_add_line(lt, "out = torch.zeros(%lld, %lld)", (long long)lt->m, (long long)lt->dv);
	looptrace_scale_line(lt);
	looptrace_add_line(lt, "for i0 in range(0, %lld, %d):  # a block of queries", (long long)lt->m, ar);
	looptrace_add_line(lt, "    m = [-inf] * %d; l = [0] * %d; acc = zeros(%d, %lld)", ar, ar, ar, (long long)lt->dv);
	if (lt->causal)
		looptrace_add_line(lt, "    for j0 in range(0, min(i0 + %d, %lld), %d):  # keys up to the block's last query", ar,
				   (long long)lt->n, ak);
	else
		looptrace_add_line(lt, "    for j0 in range(0, %lld, %d):  # a block of keys", (long long)lt->n, ak);
	lt->ln.blk_first = looptrace_add_line(lt, "        s = %s[i0:i0 + %d] @ %s[j0:j0 + %d].T%s%s", lt->na, ar, lt->nb, ak,
					      lt->scaled ? " * scale" : "",
					      lt->causal || lt->has_mask ? "  # hidden: -inf" : "");
	looptrace_add_line(lt, "        m_new = maximum(m, s.max(dim=1))");
	looptrace_add_line(lt, "        alpha = exp(m - m_new)  # rescales what came before");
	looptrace_add_line(lt, "        p = exp(s - m_new[:, None])");
	looptrace_add_line(lt, "        l = l * alpha + p.sum(dim=1)");
	looptrace_add_line(lt, "        acc = acc * alpha[:, None] + p @ %s[j0:j0 + %d]", lt->nc, ak);
	lt->ln.blk_last = looptrace_add_line(lt, "        m = m_new");
	lt->ln.fin = looptrace_add_line(lt, "    out[i0:i0 + %d] = acc / l[:, None]", ar);
}

void looptrace_simd_code(struct looptrace *lt)
{
	switch (lt->kind) {
	case TRACE_MATMUL:
		matmul_code(lt);
		break;
	case TRACE_SOFTMAX:
		softmax_code(lt, lt->ny, "r");
		break;
	case TRACE_ATTENTION:
		attention_code(lt);
		break;
	}
}

void looptrace_simd_lines(const struct looptrace *lt, int *stmt, int *first, int *last)
{
	struct step s = lt->cur;
	const typeof(lt->ln) *ln = &lt->ln;
	switch (s.kind) {
	case ST_TILE:
		*stmt = *first = ln->fma_first;
		*last = s.merge ? ln->store : ln->fma_last;
		break;
	case ST_BLOCK:
		if (s.merge) {
			*stmt = *first = *last = ln->fin;
		} else {
			*stmt = *first = ln->blk_first;
			*last = ln->blk_last;
		}
		break;
	case ST_MAX:
		*stmt = *first = *last = s.merge ? ln->hmax : ln->vmax;
		break;
	case ST_ZERO:
		*stmt = ln->zero;
		*first = ln->if_zero;
		*last = ln->zskip;
		break;
	case ST_EXP:
		if (s.merge) {
			*stmt = *first = *last = ln->hsum;
		} else {
			*stmt = *first = ln->vexp;
			*last = ln->sum;
		}
		break;
	case ST_DIV:
		*stmt = *first = *last = ln->vdiv;
		break;
	default:
		break;
	}
}

/* ---- words ------------------------------------------------------------------------- */

void looptrace_simd_explain(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	const struct kernel_tile *t = &lt->tile;
	char v1[128], v2[128], v3[128];
	if (s.kind == ST_NONE) {
		utf8_snprintf(buf, size, "out = torch.zeros(%lld, %lld); every query starts with m = -inf, l = 0",
			      (long long)lt->m, (long long)lt->dv);
		return;
	}
	if (s.kind == ST_TILE) {
		int64_t rows = lt_min64(t->tile_rows, lt->m - s.r), cols = lt_min64(t->tile_cols, lt->n - s.c);
		int len = utf8_snprintf(buf, size, "p = %lld: %d broadcasts of %s[%lld:%lld, %lld], each times %d vectors "
					"of %s[%lld, %lld:%lld]: %lld FMAs of %d lanes grow the tile %s[%lld:%lld, %lld:%lld] at once",
					(long long)s.p, t->tile_rows, lt->na, (long long)s.r, (long long)(s.r + rows),
					(long long)s.p, t->tile_cols / t->lanes, lt->nb, (long long)s.p, (long long)s.c,
					(long long)(s.c + cols), (long long)s.w, t->lanes, lt->nc, (long long)s.r,
					(long long)(s.r + rows), (long long)s.c, (long long)(s.c + cols));
		if (len >= 0 && (size_t)len < size && (rows < t->tile_rows || cols < t->tile_cols))
			len += utf8_snprintf(buf + len, size - (size_t)len, " (an edge tile: the rest is padding)");
		if (len >= 0 && (size_t)len < size && s.merge)
			utf8_snprintf(buf + len, size - (size_t)len, "; then stored to %s", lt->nc);
		return;
	}
	if (s.kind == ST_BLOCK) {
		int64_t bq = block_rows(lt, s.r);
		if (s.merge) {
			looptrace_vec_text(v1, sizeof v1, lt->blk_l, bq);
			utf8_snprintf(buf, size, "out[%lld:%lld] = acc / l, one division per query: l = %s", (long long)s.r,
				      (long long)(s.r + bq), v1);
			return;
		}
		looptrace_vec_text(v1, sizeof v1, lt->blk_m, bq);
		looptrace_vec_text(v2, sizeof v2, lt->blk_l, bq);
		looptrace_vec_text(v3, sizeof v3, lt->blk_alpha, bq);
		utf8_snprintf(buf, size, "queries %lld-%lld \u00d7 keys %lld-%lld: scores in tiles, m = %s, acc rescaled by "
			      "alpha = %s, l = %s", (long long)s.r, (long long)(s.r + bq - 1), (long long)s.c,
			      (long long)(s.c + s.w - 1), v1, v3, v2);
		return;
	}
	looptrace_explain_softmax_wide(lt, buf, size);
}

void looptrace_simd_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	const struct kernel_tile *t = &lt->tile;
	char s1[32], s2[32], s3[32];
	if (lt->kind == TRACE_MATMUL) {
		int64_t tiles_r, tiles_c;
		looptrace_simd_tiles(lt, &tiles_r, &tiles_c);
		int64_t r0 = row / t->tile_rows * t->tile_rows, c0 = col / t->tile_cols * t->tile_cols;
		int64_t tile = c0 / t->tile_cols * tiles_r + r0 / t->tile_rows;
		utf8_snprintf(buf, size, "%s[%d, %d]: lane %lld of vector %lld, row %lld of the %d\u00d7%d tile at rows "
			      "%lld-%lld, cols %lld-%lld, grown in steps %s-%s (one FMA per p)", lt->nc, row, col,
			      (long long)((col - c0) % t->lanes), (long long)((col - c0) / t->lanes), (long long)(row - r0),
			      t->tile_rows, t->tile_cols, (long long)r0, (long long)(r0 + t->tile_rows - 1), (long long)c0,
			      (long long)(c0 + t->tile_cols - 1), looptrace_count(s1, sizeof s1, tile * lt->k + 1),
			      looptrace_count(s2, sizeof s2, tile * lt->k + lt->k));
		return;
	}
	if (lt->kind == TRACE_SOFTMAX) {
		const struct rowsoft *sm = &lt->sm;
		int64_t start = sm->start[row], ch = (sm->cols + sm->width - 1) / sm->width, v = col / sm->width;
		if (sm->max[row] == -INFINITY) {
			utf8_snprintf(buf, size, "%s[%d, %d]: its row is all -inf: nan in step %s", lt->ny, row, col,
				      looptrace_count(s1, sizeof s1, start + ch + 2));
			return;
		}
		utf8_snprintf(buf, size, "%s[%d, %d]: lane %d of vector %lld: compared in step %s, exp in step %s (into "
			      "vsum's lane %d), divided in step %s", lt->ny, row, col, col % sm->width, (long long)v,
			      looptrace_count(s1, sizeof s1, start + v + 1), looptrace_count(s2, sizeof s2, start + ch + 1 + v + 1),
			      col % sm->width, looptrace_count(s3, sizeof s3, start + 2 * ch + 2 + v + 1));
		return;
	}
	int64_t ar = t->att_rows, b = row / ar, i0 = b * ar, bq = block_rows(lt, i0);
	int64_t kend = block_keys(lt, i0, bq), first = lt->blk_start[b] + 1, last = lt->blk_start[b + 1];
	char span[80];
	if (last - 1 > first)
		utf8_snprintf(span, sizeof span, "steps %s-%s", looptrace_count(s1, sizeof s1, first),
			      looptrace_count(s2, sizeof s2, last - 1));
	else
		utf8_snprintf(span, sizeof span, "step %s", looptrace_count(s1, sizeof s1, first));
	utf8_snprintf(buf, size, "out[%d, %d]: query %lld of the block at queries %lld-%lld, which met keys 0-%lld in "
		      "blocks of %d (%s, an online softmax) and was divided by its l in step %s", row, col,
		      (long long)(row - i0), (long long)i0, (long long)(i0 + bq - 1), (long long)(kend - 1), t->att_keys,
		      span, looptrace_count(s3, sizeof s3, last));
}
