/* looptrace_simd.c: the vectorised variant of a trace, in the shapes and the
 * order of the SIMD kernel that runs it (kernel_simd_tile): a matmul as its
 * walk of register tiles in GotoBLAS order, or its tiny path, one p a step
 * (looptrace_gemm.c); a softmax one vector of lanes at a time; an attention
 * as the kernel dispatch.c picks for its head: the per-head two-pass kernel
 * for a small one (the scores in tiles, each row scaled, hidden and
 * softmaxed in vectors, the output in tiles), else the fused one (blocks of
 * queries against blocks of keys, an online softmax, a pass per block of
 * value columns). For the other looptrace files; pure, no drawing. */
#include "view/looptrace_internal.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the products --------------------------------------------------------------- */

int64_t looptrace_simd_matmul(struct looptrace *lt)
{
	struct gemm_walk *g = &lt->gw[0];
	g->sh = lt->tile.gemm[lt->f64];
	g->a = lt->a;
	g->lda = lt->k;
	g->b = lt->b;
	g->brs = lt->n;
	g->bcs = 1;
	g->m = lt->m;
	g->k = lt->k;
	g->n = lt->n;
	int64_t steps = looptrace_gemm_plan(g, true);
	if (g->tiny) {   /* one row's uc columns a step: a vector of uc, or one cell */
		lt->tile.tile_rows = 1;
		lt->tile.tile_cols = g->uc;
		lt->tile.lanes = g->uc;
	}
	if (steps > 0)
		memcpy(lt->res, g->c, (size_t)(lt->m * lt->n) * sizeof *lt->res);
	return steps;
}

int64_t looptrace_simd_scores(struct looptrace *lt)
{
	struct gemm_walk *g = &lt->gw[0];
	g->sh = lt->tile.att_gemm[lt->f64];
	g->a = lt->a;
	g->lda = lt->k;
	g->b = lt->b;   /* kᵀ read in place: b(p, j) = keys[j, p] */
	g->brs = 1;
	g->bcs = lt->k;
	g->m = lt->m;
	g->k = lt->k;
	g->n = lt->n;
	g->skip_upper = lt->causal;
	int64_t steps = looptrace_gemm_plan(g, false);
	for (int64_t at = 0; at < lt->m * lt->n; at++)
		lt->scores[at] = lt->hidden[at] ? -INFINITY : g->c[at] * lt->scale;
	return steps;
}

int64_t looptrace_simd_out(struct looptrace *lt)
{
	int64_t m = lt->m, n = lt->n;
	struct gemm_walk *g = &lt->gw[1];
	lt->wts = xmalloc((size_t)(m * n) * sizeof *lt->wts);
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++)
			lt->wts[i * n + j] = looptrace_weight(&lt->sm, i, j);
	g->sh = lt->tile.att_gemm[lt->f64];
	g->a = lt->wts;
	g->lda = n;
	g->b = lt->v;
	g->brs = lt->dv;
	g->bcs = 1;
	g->m = m;
	g->k = n;
	g->n = lt->dv;
	int64_t steps = looptrace_gemm_plan(g, false);
	memcpy(lt->res, g->c, (size_t)(m * lt->dv) * sizeof *lt->res);
	return steps;
}

const struct gemm_walk *looptrace_simd_walk(const struct looptrace *lt, struct step s)
{
	return &lt->gw[s.kind == ST_TILE ? s.gw : 0];
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

static int64_t query_blocks(const struct looptrace *lt)
{
	return (lt->m + lt->tile.att_rows - 1) / lt->tile.att_rows;
}

/* Folds keys j0 .. j0+bk-1 into the running state of the block at i0: each
 * query's maximum m (NaN scores skipped, as the kernel's max does), the
 * factor alpha = exp(m_old - m_new), l = l·alpha + Σ exp(s - m_new) and
 * acc = acc·alpha + Σ exp(s - m_new)·v, for every value column (a pass of
 * the kernel over some of them computes the same numbers for those). */
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
	int64_t ar = lt->tile.att_rows, ak = lt->tile.att_keys, blocks = query_blocks(lt);
	int dvc = lt->tile.att_dvc;
	lt->dvc = dvc > 0 && dvc < lt->dv ? dvc : lt->dv;
	lt->chunks = (lt->dv + lt->dvc - 1) / lt->dvc;
	lt->blk_acc = xmalloc((size_t)(ar * lt->dv) * sizeof *lt->blk_acc);
	lt->blk_m = xmalloc((size_t)ar * sizeof *lt->blk_m);
	lt->blk_l = xmalloc((size_t)ar * sizeof *lt->blk_l);
	lt->blk_alpha = xmalloc((size_t)ar * sizeof *lt->blk_alpha);
	lt->blk_start = xmalloc((size_t)(blocks * lt->chunks + 1) * sizeof *lt->blk_start);
	lt->blk_start[0] = 0;
	for (int64_t o = 0; o < blocks; o++) {   /* dispatch.c takes a head's blocks last first */
		int64_t b = blocks - 1 - o, i0 = b * ar, kend = block_keys(lt, i0, block_rows(lt, i0));
		block_reset(lt, i0);
		for (int64_t j0 = 0; j0 < kend; j0 += ak)
			fold(lt, i0, j0, lt_min64(ak, kend - j0));
		block_finish(lt, i0, lt->res);
		/* a pass per block of value columns, each against every key block
		 * (the scores recomputed), then its division */
		for (int64_t ch = 0; ch < lt->chunks; ch++) {
			int64_t at = o * lt->chunks + ch;
			lt->blk_start[at + 1] = lt->blk_start[at] + (kend + ak - 1) / ak + 1;
		}
	}
	lt->blk_i0 = lt->blk_next = -1;
	lt->total = lt->blk_start[blocks * lt->chunks];
	lt->sm_begin = lt->out_begin = 0;
}

/* ---- steps ---------------------------------------------------------------------- */

/* Step it (0-based) of walk w: one p across its unit. */
static struct step tile_step(const struct looptrace *lt, int w, int64_t it)
{
	const struct gemm_walk *g = &lt->gw[w];
	int64_t u = looptrace_gemm_unit_at(g, it), done = it - g->start[u];
	const struct gemm_unit *x = &g->unit[u];
	int lanes = g->sh.lanes > 0 ? g->sh.lanes : 1;
	struct step s = { ST_TILE, x->r, x->c, x->p0 + done, 1, done == x->kc - 1, u, w };
	if (!g->tiny)   /* FMAs: a broadcast per row, times the tile's vectors */
		s.w = (int64_t)g->ur * (g->uc / lanes > 0 ? g->uc / lanes : 1);
	return s;
}

struct step looptrace_simd_decode(const struct looptrace *lt, int64_t it)
{
	if (lt->kind == TRACE_MATMUL)
		return tile_step(lt, 0, it);
	if (lt->two_pass) {
		if (it < lt->sm_begin)
			return tile_step(lt, 0, it);
		if (it < lt->out_begin)
			return looptrace_rowsoft_decode(&lt->sm, it - lt->sm_begin);
		return tile_step(lt, 1, it - lt->out_begin);
	}
	int64_t ar = lt->tile.att_rows, ak = lt->tile.att_keys;
	int64_t lo = looptrace_find(lt->blk_start, query_blocks(lt) * lt->chunks, it);
	int64_t b = query_blocks(lt) - 1 - lo / lt->chunks, off = it - lt->blk_start[lo];
	int64_t kend = block_keys(lt, b * ar, block_rows(lt, b * ar));
	struct step s = { ST_BLOCK, b * ar, 0, lo % lt->chunks * lt->dvc, 1, false, 0, 0 };
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

/* The blocking loops of walk g that run more than once (columns of b packed
 * nc at a time, passes of kc of the depth, blocks of mc rows), then its
 * panels and tiles, at indent 0; the indent of a tile's body. */
static int nest_code(struct looptrace *lt, const struct gemm_walk *g, const char *b, const char *rows,
		     const char *cols)
{
	int in = 0, mr = g->ur, nr = g->uc;
	long long m = (long long)g->m, n = (long long)g->n, k = (long long)g->k;
	bool jc = g->n > g->nc, pc = g->k > g->kc, ic = g->m > g->mc;
	if (jc) {
		looptrace_add_line(lt, "for jc in range(0, %lld, %lld):  # %lld %s of %s at a time, packed", n,
				   (long long)g->nc, (long long)g->nc, cols, b);
		in += 4;
	}
	if (pc) {
		looptrace_add_line(lt, "%*sfor p0 in range(0, %lld, %lld):  # the depth in passes of %lld", in, "", k,
				   (long long)g->kc, (long long)g->kc);
		in += 4;
	}
	if (ic) {
		looptrace_add_line(lt, "%*sfor ic in range(0, %lld, %lld):  # blocks of %lld %s", in, "", m,
				   (long long)g->mc, (long long)g->mc, rows);
		in += 4;
	}
	if (jc)
		looptrace_add_line(lt, "%*sfor j0 in range(jc, min(jc + %lld, %lld), %d):  # panels of %d %s", in, "",
				   (long long)g->nc, n, nr, nr, cols);
	else
		looptrace_add_line(lt, "%*sfor j0 in range(0, %lld, %d):  # panels of %d %s", in, "", n, nr, nr, cols);
	in += 4;
	if (ic)
		looptrace_add_line(lt, "%*sfor i0 in range(ic, min(ic + %lld, %lld), %d):  # tiles of %d %s%s", in, "",
				   (long long)g->mc, m, mr, mr, rows, g->skip_upper ? " (wholly future: skipped)" : "");
	else
		looptrace_add_line(lt, "%*sfor i0 in range(0, %lld, %d):  # tiles of %d %s%s", in, "", m, mr, mr, rows,
				   g->skip_upper ? " (wholly future: skipped)" : "");
	in += 4;
	looptrace_add_line(lt, "%*sacc = zeros(%d, %d)  # %d registers", in, "", mr, nr,
			   mr * (nr / g->sh.lanes > 0 ? nr / g->sh.lanes : 1));
	if (pc)
		looptrace_add_line(lt, "%*sfor p in range(p0, min(p0 + %lld, %lld)):", in, "", (long long)g->kc, k);
	else
		looptrace_add_line(lt, "%*sfor p in range(%lld):", in, "", k);
	return in + 4;
}

/* The tiny product: row by row, uc columns at a time, p in order. */
static void tiny_code(struct looptrace *lt, const struct gemm_walk *g)
{
	long long m = (long long)lt->m, n = (long long)lt->n, k = (long long)lt->k;
	const char *ai = lt->a_vec ? "[p]" : "[i, p]";
	looptrace_add_line(lt, "# %s: a tiny product (%lld multiply-adds, at most %d / k a cell): no tiles, %s",
			   lt->tile.path, m * n * k, g->sh.tiny, g->uc > 1 ? "a vector of columns at a time" :
			   "one cell at a time");
	looptrace_add_line(lt, "%s = torch.zeros(%lld, %lld)", lt->nc, m, n);
	looptrace_add_line(lt, "for i in range(%lld):", m);
	if (g->uc > 1) {
		looptrace_add_line(lt, "    for j in range(0, %lld, %d):", n, g->uc);
		looptrace_add_line(lt, "        acc = [0] * %d  # one vector", g->uc);
		looptrace_add_line(lt, "        for p in range(%lld):", k);
		lt->ln.fma_first = lt->ln.fma_last = looptrace_add_line(
			lt, "            acc += %s%s * %s[p, j:j + %d]  # %s%s broadcast", lt->na, ai, lt->nb, g->uc, lt->na, ai);
		lt->ln.store = looptrace_add_line(lt, "        %s[i, j:j + %d] = acc", lt->nc, g->uc);
		return;
	}
	looptrace_add_line(lt, "    for j in range(%lld):", n);
	looptrace_add_line(lt, "        acc = 0");
	looptrace_add_line(lt, "        for p in range(%lld):", k);
	lt->ln.fma_first = lt->ln.fma_last = looptrace_add_line(lt, "            acc += %s%s * %s%s", lt->na, ai, lt->nb,
								 lt->b_vec ? "[p]" : "[p, j]");
	lt->ln.store = looptrace_add_line(lt, "        %s[i, j] = acc", lt->nc);
}

static void matmul_code(struct looptrace *lt)
{
	const struct gemm_walk *g = &lt->gw[0];
	if (g->tiny) {
		tiny_code(lt, g);
		return;
	}
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
	int in = nest_code(lt, g, lt->nb, "rows", "columns");
	lt->ln.fma_first = looptrace_add_line(lt, "%*s%s = %s", in, "", names, loads);
	looptrace_add_line(lt, "%*sfor r in range(%d):  # %d broadcasts, %d FMAs", in, "", t->tile_rows, t->tile_rows,
			   t->tile_rows * nv);
	looptrace_add_line(lt, "%*s    x = %s%s", in, "", lt->na, lt->a_vec ? "[p]" : "[i0 + r, p]");
	for (int v = 0; v < nv; v++)
		lt->ln.fma_last = looptrace_add_line(lt, "%*s    acc[r, %d:%d] += x * b%d", in, "", v * t->lanes,
						     (v + 1) * t->lanes, v);
	if (g->passes > 1)
		lt->ln.store = looptrace_add_line(lt, "%*s%s[i0:i0 + %d, j0:j0 + %d] += acc  # the first pass stores it",
						  in - 4, "", lt->nc, t->tile_rows, t->tile_cols);
	else
		lt->ln.store = looptrace_add_line(lt, "%*s%s[i0:i0 + %d, j0:j0 + %d] = acc  # the cells inside %s",
						  in - 4, "", lt->nc, t->tile_rows, t->tile_cols, lt->nc);
}

static void softmax_code(struct looptrace *lt, const char *y, const char *r, const char *in)
{
	const struct rowsoft *sm = &lt->sm;
	int L = sm->width;
	long long cols = (long long)sm->cols;
	looptrace_add_line(lt, "%s    vmax = [float('-inf')] * %d", in, L);
	looptrace_add_line(lt, "%s    for j in range(0, %lld, %d):", in, cols, L);
	lt->ln.vmax = looptrace_add_line(lt, "%s        vmax = maximum(vmax, %s[%s, j:j + %d])  # %d at once", in, y, r, L, L);
	lt->ln.hmax = looptrace_add_line(lt, "%s    max = vmax.max()  # across the lanes (a short tail one by one)", in);
	looptrace_zero_row_lines(lt, y, r);
	looptrace_add_line(lt, "%s    vsum = [0] * %d", in, L);
	looptrace_add_line(lt, "%s    for j in range(0, %lld, %d):  # past the end: -inf, exp 0", in, cols, L);
	lt->ln.vexp = looptrace_add_line(lt, "%s        e = exp(%s[%s, j:j + %d] - max)  # %d at once", in, y, r, L, L);
	looptrace_add_line(lt, "%s        %s[%s, j:j + %d] = e", in, y, r, L);
	lt->ln.sum = looptrace_add_line(lt, "%s        vsum += e  # lane by lane", in);
	lt->ln.hsum = looptrace_add_line(lt, "%s    sum = vsum[0] + vsum[1] + \u2026 + vsum[%d]", in, L - 1);
	looptrace_add_line(lt, "%s    for j in range(0, %lld, %d):", in, cols, L);
	lt->ln.vdiv = looptrace_add_line(lt, "%s        %s[%s, j:j + %d] = %s[%s, j:j + %d] / sum", in, y, r, L, y, r, L);
}

/* The two-pass kernel (simd_tmpl.h's attention): att = q·kᵀ in tiles, each
 * row scaled, hidden and softmaxed in vectors, out = att·v in tiles. */
static void two_pass_code(struct looptrace *lt)
{
	const struct kernel_tile *t = &lt->tile;
	const struct gemm_walk *g0 = &lt->gw[0], *g1 = &lt->gw[1];
	long long m = (long long)lt->m, n = (long long)lt->n;
	int nv = t->tile_cols / t->lanes;
	looptrace_add_line(lt, "# %s, two passes (a head of %lld scores, at most %lld): %d\u00d7%d tiles, vectors of %d",
			   t->path, m * n, (long long)t->att_small, t->tile_rows, t->tile_cols, lt->sm.width);
	looptrace_add_line(lt, "# 1. att = %s @ %s.T in register tiles (%d FMAs of %d lanes a p)", lt->na, lt->nb,
			   t->tile_rows * nv, t->lanes);
	looptrace_add_line(lt, "att = torch.empty(%lld, %lld)", m, n);
	int in = nest_code(lt, g0, lt->nb, "queries", "keys");
	lt->ln.fma_first = lt->ln.fma_last = looptrace_add_line(lt, "%*sacc += %s[i0:i0 + %d, p, None] * %s[j0:j0 + %d, p]",
								 in, "", lt->na, t->tile_rows, lt->nb, t->tile_cols);
	lt->ln.store = looptrace_add_line(lt, "%*satt[i0:i0 + %d, j0:j0 + %d] %s= acc", in - 4, "", t->tile_rows, t->tile_cols,
					  g0->passes > 1 ? "+" : "");
	looptrace_add_line(lt, "# 2. each row: scaled, its hidden keys -inf, a softmax in vectors");
	looptrace_scale_line(lt);
	looptrace_add_line(lt, "for row in range(%lld):", m);
	lt->ln.sc_first = looptrace_add_line(lt, "    att[row, :%s] *= %s  # vectors of %d", lt->causal ? "row + 1" : "",
					     lt->scaled ? "scale" : "1", lt->sm.width);
	lt->ln.sc_last = lt->ln.sc_first;
	if (lt->causal)
		lt->ln.sc_last = looptrace_add_line(lt, "    att[row, row + 1:] = float('-inf')  # later keys");
	if (lt->has_mask)
		lt->ln.sc_last = looptrace_add_line(lt, "    att[row][mask[row]] = float('-inf')");
	softmax_code(lt, "att", "row", "");
	looptrace_add_line(lt, "# 3. out = att @ %s in register tiles", lt->nc);
	looptrace_add_line(lt, "out = torch.empty(%lld, %lld)", m, (long long)lt->dv);
	in = nest_code(lt, g1, lt->nc, "queries", "value columns");
	lt->ln.t2_first = lt->ln.t2_last = looptrace_add_line(lt, "%*sacc += att[i0:i0 + %d, p, None] * %s[p, j0:j0 + %d]",
							       in, "", t->tile_rows, lt->nc, t->tile_cols);
	lt->ln.t2_store = looptrace_add_line(lt, "%*sout[i0:i0 + %d, j0:j0 + %d] %s= acc", in - 4, "", t->tile_rows,
					     t->tile_cols, g1->passes > 1 ? "+" : "");
}

static void fused_code(struct looptrace *lt)
{
	const struct kernel_tile *t = &lt->tile;
	int ar = t->att_rows, ak = t->att_keys;
	bool dc = t->att_dc > 0 && lt->k > t->att_dc, chunks = lt->chunks > 1;
	const char *in = chunks ? "    " : "";
	looptrace_add_line(lt, "# %s, fused: %d queries against %d keys at a time, an online softmax", t->path, ar, ak);
	looptrace_add_line(lt, "# (a head of at most %lld scores runs the two-pass kernel instead)", (long long)t->att_small);
	looptrace_add_line(lt, "out = torch.zeros(%lld, %lld)", (long long)lt->m, (long long)lt->dv);
	looptrace_scale_line(lt);
	looptrace_add_line(lt, "for i0 in reversed(range(0, %lld, %d)):  # a block of queries, the last first", (long long)lt->m,
			   ar);
	if (chunks)
		looptrace_add_line(lt, "    for c0 in range(0, %lld, %lld):  # value columns, a pass each (scores again)",
				   (long long)lt->dv, (long long)lt->dvc);
	looptrace_add_line(lt, "%s    m = [-inf] * %d; l = [0] * %d; acc = zeros(%d, %lld)", in, ar, ar, ar,
			   (long long)lt->dvc);
	if (lt->causal)
		looptrace_add_line(lt, "%s    for j0 in range(0, min(i0 + %d, %lld), %d):  # keys up to the block's last query",
				   in, ar, (long long)lt->n, ak);
	else
		looptrace_add_line(lt, "%s    for j0 in range(0, %lld, %d):  # a block of keys", in, (long long)lt->n, ak);
	lt->ln.blk_first = looptrace_add_line(lt, "%s        s = %s[i0:i0 + %d] @ %s[j0:j0 + %d].T%s%s", in, lt->na, ar,
					      lt->nb, ak, lt->scaled ? " * scale" : "",
					      lt->causal || lt->has_mask ? "  # hidden: -inf" : "");
	if (dc)
		looptrace_add_line(lt, "%s        # (the depth %lld in passes of %d)", in, (long long)lt->k, t->att_dc);
	looptrace_add_line(lt, "%s        m_new = maximum(m, s.max(dim=1))", in);
	looptrace_add_line(lt, "%s        alpha = exp(m - m_new)  # rescales what came before", in);
	looptrace_add_line(lt, "%s        p = exp(s - m_new[:, None])", in);
	looptrace_add_line(lt, "%s        l = l * alpha + p.sum(dim=1)", in);
	if (chunks)
		looptrace_add_line(lt, "%s        acc = acc * alpha[:, None] + p @ %s[j0:j0 + %d, c0:c0 + %lld]", in, lt->nc,
				   ak, (long long)lt->dvc);
	else
		looptrace_add_line(lt, "        acc = acc * alpha[:, None] + p @ %s[j0:j0 + %d]", lt->nc, ak);
	lt->ln.blk_last = looptrace_add_line(lt, "%s        m = m_new", in);
	if (chunks)
		lt->ln.fin = looptrace_add_line(lt, "        out[i0:i0 + %d, c0:c0 + %lld] = acc / l[:, None]", ar,
						(long long)lt->dvc);
	else
		lt->ln.fin = looptrace_add_line(lt, "    out[i0:i0 + %d] = acc / l[:, None]", ar);
}

void looptrace_simd_code(struct looptrace *lt)
{
	switch (lt->kind) {
	case TRACE_MATMUL:
		matmul_code(lt);
		break;
	case TRACE_SOFTMAX:
		looptrace_add_line(lt, "# %s: vectors of %d lanes", lt->tile.path, lt->sm.width);
		looptrace_add_line(lt, "for r in range(%lld):", (long long)lt->sm.rows);
		softmax_code(lt, lt->ny, "r", "");
		break;
	case TRACE_ATTENTION:
		if (lt->two_pass)
			two_pass_code(lt);
		else
			fused_code(lt);
		break;
	}
}

void looptrace_simd_lines(const struct looptrace *lt, int *stmt, int *first, int *last)
{
	struct step s = lt->cur;
	const typeof(lt->ln) *ln = &lt->ln;
	switch (s.kind) {
	case ST_TILE:
		*stmt = *first = s.gw ? ln->t2_first : ln->fma_first;
		*last = s.merge ? (s.gw ? ln->t2_store : ln->store) : (s.gw ? ln->t2_last : ln->fma_last);
		break;
	case ST_SCALE:
		*stmt = *first = ln->sc_first;
		*last = ln->sc_last;
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

/* One p of a unit: "p = 3: 6 broadcasts of Q[0:6, 3], each times 2 vectors
 * of K.T[3, 0:16]: 12 FMAs of 8 lanes grow the tile att[0:6, 0:10] at once" */
static void explain_tile(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	const struct gemm_walk *g = looptrace_simd_walk(lt, s);
	const struct gemm_unit *x = &g->unit[s.u];
	const struct kernel_tile *t = &lt->tile;
	const char *a = lt->na, *b = lt->nb, *c = lt->nc;
	char bt[72];
	if (lt->kind == TRACE_ATTENTION) {
		a = s.gw ? "att" : lt->na;
		c = s.gw ? "out" : "att";
		if (s.gw) {
			b = lt->nc;
		} else {
			utf8_snprintf(bt, sizeof bt, "%s.T", lt->nb);
			b = bt;
		}
	}
	long long p = (long long)s.p, r0 = (long long)x->r, r1 = (long long)(x->r + x->rows);
	long long c0 = (long long)x->c, c1 = (long long)(x->c + x->cols);
	int len;
	if (g->tiny && g->uc > 1)
		len = utf8_snprintf(buf, size, "p = %lld: %s[%lld, %lld] broadcast times the vector %s[%lld, %lld:%lld]: one "
				    "multiply-add of %d lanes grows %s[%lld, %lld:%lld]", p, a, r0, p, b, p, c0, c1, g->uc, c, r0,
				    c0, c1);
	else if (g->tiny || g->sh.loops)
		len = utf8_snprintf(buf, size, "p = %lld: acc += %s[%lld, %lld] \u00b7 %s[%lld, %lld] (a tiny product: one cell "
				    "at a time)", p, a, r0, p, b, p, c0);
	else
		len = utf8_snprintf(buf, size, "p = %lld: %d broadcasts of %s[%lld:%lld, %lld], each times %d vectors of "
				    "%s[%lld, %lld:%lld]: %lld FMAs of %d lanes grow the tile %s[%lld:%lld, %lld:%lld] at once",
				    p, t->tile_rows, a, r0, r1, p, t->tile_cols / t->lanes, b, p, c0, c1, (long long)s.w,
				    t->lanes, c, r0, r1, c0, c1);
	if (len >= 0 && (size_t)len < size && !g->tiny && (x->rows < t->tile_rows || x->cols < t->tile_cols))
		len += utf8_snprintf(buf + len, size - (size_t)len, " (an edge tile: the rest is padding)");
	if (len >= 0 && (size_t)len < size && g->passes > 1)
		len += utf8_snprintf(buf + len, size - (size_t)len, "; pass %lld of %lld of the depth", (long long)x->pass + 1,
				     (long long)g->passes);
	if (len >= 0 && (size_t)len < size && s.merge)
		utf8_snprintf(buf + len, size - (size_t)len, x->pass ? "; then added to %s" : "; then stored to %s", c);
}

static void explain_scale(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	int64_t seen = lt->causal && s.r + 1 < lt->n ? s.r + 1 : lt->n;
	char n1[32], rg[160];
	looptrace_vec_text(rg, sizeof rg, &lt->scores[s.r * lt->n], lt->n);
	utf8_snprintf(buf, size, "att[%lld, :%lld] *= %s in vectors of %d%s%s \u2192 att[%lld] = %s", (long long)s.r,
		      (long long)seen, looptrace_num(n1, sizeof n1, lt->scale), lt->sm.width,
		      seen < lt->n ? ", later keys -inf" : "", lt->has_mask ? ", masked keys -inf" : "", (long long)s.r, rg);
}

void looptrace_simd_explain(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	char v1[128], v2[128], v3[128];
	if (s.kind == ST_NONE) {
		if (lt->two_pass)
			utf8_snprintf(buf, size, "att = torch.empty(%lld, %lld): no score computed yet", (long long)lt->m,
				      (long long)lt->n);
		else if (lt->kind == TRACE_MATMUL)
			utf8_snprintf(buf, size, "%s = torch.zeros(%lld, %lld): no product computed yet", lt->nc,
				      (long long)lt->m, (long long)lt->n);
		else
			utf8_snprintf(buf, size, "out = torch.zeros(%lld, %lld); every query starts with m = -inf, l = 0",
				      (long long)lt->m, (long long)lt->dv);
		return;
	}
	if (s.kind == ST_TILE) {
		explain_tile(lt, s, buf, size);
		return;
	}
	if (s.kind == ST_SCALE) {
		explain_scale(lt, s, buf, size);
		return;
	}
	if (s.kind == ST_BLOCK) {
		int64_t bq = block_rows(lt, s.r);
		char cols[64] = "";
		if (lt->chunks > 1)
			utf8_snprintf(cols, sizeof cols, " (value columns %lld-%lld)", (long long)s.p,
				      (long long)(lt_min64(s.p + lt->dvc, lt->dv) - 1));
		if (s.merge) {
			looptrace_vec_text(v1, sizeof v1, lt->blk_l, bq);
			utf8_snprintf(buf, size, "out[%lld:%lld] = acc / l%s, one division per query: l = %s", (long long)s.r,
				      (long long)(s.r + bq), cols, v1);
			return;
		}
		looptrace_vec_text(v1, sizeof v1, lt->blk_m, bq);
		looptrace_vec_text(v2, sizeof v2, lt->blk_l, bq);
		looptrace_vec_text(v3, sizeof v3, lt->blk_alpha, bq);
		utf8_snprintf(buf, size, "queries %lld-%lld \u00d7 keys %lld-%lld%s: scores in tiles, m = %s, acc rescaled by "
			      "alpha = %s, l = %s", (long long)s.r, (long long)(s.r + bq - 1), (long long)s.c,
			      (long long)(s.c + s.w - 1), cols, v1, v3, v2);
		return;
	}
	looptrace_explain_softmax_wide(lt, buf, size);
}

/* "steps 65-80" or, over several passes, "steps 1-384, 2,001-2,016" */
static void unit_steps_text(const struct gemm_walk *g, int64_t base, int64_t i, int64_t j, char *buf, size_t size)
{
	int64_t slot = ((i / g->ur) * g->units_c + j / g->uc) * g->passes, runs = 0;
	size_t len = 0;
	char s1[32], s2[32];
	buf[0] = 0;
	for (int64_t q = 0; q < g->passes && len < size; q++) {
		int64_t u = g->unit_of[slot + q];
		if (u < 0)
			continue;
		len += (size_t)utf8_snprintf(buf + len, size - len, "%s%s-%s", runs++ ? ", " : "steps ",
					     looptrace_count(s1, sizeof s1, base + g->start[u] + 1),
					     looptrace_count(s2, sizeof s2, base + g->start[u + 1]));
	}
}

/* The story of cell (row, col) of walk g's product, named c. */
static void tile_story(const struct gemm_walk *g, int64_t base, const char *c, int row, int col, char *buf,
		       size_t size)
{
	int64_t first, last;
	char steps[160];
	if (looptrace_gemm_units_of(g, row, col, &first, &last) == 0) {
		utf8_snprintf(buf, size, "%s[%d, %d]: its tile lies wholly in the future: never computed, -inf once "
			      "scaled", c, row, col);
		return;
	}
	unit_steps_text(g, base, row, col, steps, sizeof steps);
	const struct gemm_unit *x = &g->unit[first];
	if (g->tiny && g->uc > 1) {
		utf8_snprintf(buf, size, "%s[%d, %d]: lane %lld of the vector of %d at row %d, cols %lld-%lld, grown in %s "
			      "(one multiply-add of %d lanes per p)", c, row, col, (long long)(col - x->c), g->uc, row,
			      (long long)x->c, (long long)(x->c + x->cols - 1), steps, g->uc);
		return;
	}
	if (g->tiny) {
		utf8_snprintf(buf, size, "%s[%d, %d]: a tiny product, one cell at a time: its %lld products in %s", c, row,
			      col, (long long)g->k, steps);
		return;
	}
	int64_t r0 = row / g->ur * g->ur, c0 = col / g->uc * g->uc, lanes = g->sh.lanes > 0 ? g->sh.lanes : 1;
	int len = utf8_snprintf(buf, size, "%s[%d, %d]: lane %lld of vector %lld, row %lld of the %d\u00d7%d tile at rows "
				"%lld-%lld, cols %lld-%lld, grown in %s (one FMA per p)", c, row, col,
				(long long)((col - c0) % lanes), (long long)((col - c0) / lanes), (long long)(row - r0),
				g->ur, g->uc, (long long)r0, (long long)(r0 + g->ur - 1), (long long)c0,
				(long long)(c0 + g->uc - 1), steps);
	if (len >= 0 && (size_t)len < size && g->passes > 1)
		utf8_snprintf(buf + len, size - (size_t)len, ", a pass of %lld of the depth each, added up", (long long)g->kc);
}

/* The two-pass softmax's story of att[row, col]. */
static void softmax_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	const struct rowsoft *sm = &lt->sm;
	const char *y = lt->kind == TRACE_SOFTMAX ? lt->ny : "att";
	int64_t start = sm->start[row] + sm->pre + (lt->kind == TRACE_ATTENTION ? lt->sm_begin : 0);
	int64_t ch = (sm->cols + sm->width - 1) / sm->width, v = col / sm->width;
	char s0[48] = "", s1[32], s2[32], s3[32];
	if (sm->pre)
		utf8_snprintf(s0, sizeof s0, "scaled%s in step %s, ",
			      lt->hidden[(int64_t)row * lt->n + col] ? " (hidden: -inf)" : "", looptrace_count(s1, sizeof s1, start));
	if (sm->max[row] == -INFINITY) {
		utf8_snprintf(buf, size, "%s[%d, %d]: %sits row is all -inf: nan in step %s", y, row, col, s0,
			      looptrace_count(s1, sizeof s1, start + ch + 2));
		return;
	}
	utf8_snprintf(buf, size, "%s[%d, %d]: %slane %d of vector %lld: compared in step %s, exp in step %s (into vsum's "
		      "lane %d), divided in step %s", y, row, col, s0, col % sm->width, (long long)v,
		      looptrace_count(s1, sizeof s1, start + v + 1), looptrace_count(s2, sizeof s2, start + ch + 1 + v + 1),
		      col % sm->width, looptrace_count(s3, sizeof s3, start + 2 * ch + 2 + v + 1));
}

void looptrace_simd_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	const struct kernel_tile *t = &lt->tile;
	char s1[32], s2[32], s3[32];
	if (lt->kind == TRACE_MATMUL) {
		tile_story(&lt->gw[0], 0, lt->nc, row, col, buf, size);
		return;
	}
	if (lt->kind == TRACE_SOFTMAX || lt->shown == G_SOFTMAX) {
		softmax_story(lt, row, col, buf, size);
		return;
	}
	if (lt->shown == G_SCORES) {
		tile_story(&lt->gw[0], 0, "att", row, col, buf, size);
		return;
	}
	if (lt->shown == G_OUT) {
		tile_story(&lt->gw[1], lt->out_begin, "out", row, col, buf, size);
		return;
	}
	int64_t ar = t->att_rows, b = row / ar, i0 = b * ar, bq = block_rows(lt, i0), ch = col / lt->dvc;
	int64_t at = (query_blocks(lt) - 1 - b) * lt->chunks + ch;
	int64_t kend = block_keys(lt, i0, bq), first = lt->blk_start[at] + 1, last = lt->blk_start[at + 1];
	char span[80], pass[64] = "";
	if (last - 1 > first)
		utf8_snprintf(span, sizeof span, "steps %s-%s", looptrace_count(s1, sizeof s1, first),
			      looptrace_count(s2, sizeof s2, last - 1));
	else
		utf8_snprintf(span, sizeof span, "step %s", looptrace_count(s1, sizeof s1, first));
	if (lt->chunks > 1)
		utf8_snprintf(pass, sizeof pass, " in its pass over value columns %lld-%lld", (long long)(ch * lt->dvc),
			      (long long)(lt_min64((ch + 1) * lt->dvc, lt->dv) - 1));
	utf8_snprintf(buf, size, "out[%d, %d]: query %lld of the block at queries %lld-%lld, which met keys 0-%lld in "
		      "blocks of %d%s (%s, an online softmax) and was divided by its l in step %s", row, col,
		      (long long)(row - i0), (long long)i0, (long long)(i0 + bq - 1), (long long)(kend - 1), t->att_keys,
		      pass, span, looptrace_count(s3, sizeof s3, last));
}
