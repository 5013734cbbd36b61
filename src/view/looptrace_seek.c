/* looptrace_seek.c: moving a trace to step t: which step of which variant
 * that is, and the cells of the matrix it shows after it, rewriting only the
 * cells that change. For looptrace.h's seek, phase and matrix functions;
 * never allocates, draws or prints. */
#include "view/looptrace_internal.h"

#include <math.h>
#include <string.h>

/* The i with start[i] <= t < start[i + 1], for start[0..n-1] ascending. */
int64_t looptrace_find(const int64_t *start, int64_t n, int64_t t)
{
	int64_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		if (start[mid] <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* ---- positions --------------------------------------------------------- */

/* The step of the iteration that brought the trace to position t. */
static struct step decode(const struct looptrace *lt, int64_t t)
{
	struct step s = { ST_NONE, 0, 0, 0, 1, false, 0, 0 };
	if (t <= 0)
		return s;
	int64_t it = t - 1;
	if (lt->variant == TRACE_SIMD && lt->kind != TRACE_SOFTMAX)
		return looptrace_simd_decode(lt, it);
	if (lt->variant == TRACE_UNROLLED && lt->kind != TRACE_SOFTMAX &&
	    (lt->kind == TRACE_MATMUL || it < lt->sm_begin || it >= lt->out_begin))
		return looptrace_unrolled_decode(lt, it);
	switch (lt->kind) {
	case TRACE_MATMUL:
		s.kind = ST_MATMUL;
		s.p = it % lt->k;
		s.c = it / lt->k % lt->n;
		s.r = it / lt->k / lt->n;
		break;
	case TRACE_SOFTMAX:
		s = looptrace_rowsoft_decode(&lt->sm, it);
		break;
	case TRACE_ATTENTION:
		if (it < lt->sm_begin) {
			s.kind = ST_SCORE;
			s.r = it / lt->n;
			s.c = it % lt->n;
			s.w = lt->k;
		} else if (it < lt->out_begin) {
			s = looptrace_rowsoft_decode(&lt->sm, it - lt->sm_begin);
		} else {
			s.kind = ST_OUT;
			s.r = (it - lt->out_begin) / lt->n;
			s.c = (it - lt->out_begin) % lt->n;
		}
		break;
	}
	return s;
}

static enum group group_of(const struct looptrace *lt, struct step s)
{
	switch (s.kind) {
	case ST_NONE:
		if (lt->kind == TRACE_ATTENTION && lt->variant == TRACE_SIMD && !lt->two_pass)
			return G_FUSED;
		return lt->kind == TRACE_MATMUL ? G_MATMUL : lt->kind == TRACE_SOFTMAX ? G_SOFTMAX : G_SCORES;
	case ST_MATMUL:
		return G_MATMUL;
	case ST_TILE:
		return lt->kind == TRACE_MATMUL ? G_MATMUL : s.gw ? G_OUT : G_SCORES;
	case ST_BLOCK:
		return G_FUSED;
	case ST_SCORE:
		return G_SCORES;
	case ST_OUT:
		return G_OUT;
	case ST_SCALE:
	case ST_MAX:
	case ST_ZERO:
	case ST_EXP:
	case ST_DIV:
		break;
	}
	return G_SOFTMAX;
}

/* Makes prefix hold the running sums of the cell or output row of s, in the
 * order the loops add them (so the last one equals res bit for bit). */
static void load_prefix(struct looptrace *lt, struct step s)
{
	lt->npart = 0;
	if (lt->variant == TRACE_UNROLLED) {
		looptrace_unrolled_load(lt, s);
		return;
	}
	if (lt->variant == TRACE_SIMD) {
		looptrace_simd_load(lt, s);
		return;
	}
	if (s.kind == ST_MATMUL) {
		int64_t unit = s.r * lt->n + s.c;
		if (unit == lt->prefix_unit)
			return;
		double sum = 0.0;
		for (int64_t p = 0; p < lt->k; p++) {
			sum += lt->a[s.r * lt->k + p] * lt->b[p * lt->n + s.c];
			lt->prefix[p] = sum;
		}
		lt->prefix_unit = unit;
	} else if (s.kind == ST_OUT) {
		if (s.r == lt->prefix_unit)
			return;
		for (int64_t vi = 0; vi < lt->n; vi++) {
			double w = looptrace_weight(&lt->sm, s.r, vi);
			const double *prev = vi ? &lt->prefix[(vi - 1) * lt->dv] : NULL;
			for (int64_t c = 0; c < lt->dv; c++)
				lt->prefix[vi * lt->dv + c] = (prev ? prev[c] : 0.0) + w * lt->v[vi * lt->dv + c];
		}
		lt->prefix_unit = s.r;
	}
}

/* Cell idx of group g's matrix after step s. */
/* The unrolled partial sums of the current cell or output entry, merged. */
static double part_merged(const struct looptrace *lt, int64_t col)
{
	double s[KERNEL_UNROLL];
	for (int u = 0; u < KERNEL_UNROLL; u++)
		s[u] = col < 0 ? lt->part[u] : lt->part_rows[u * lt->dv + col];
	return looptrace_unrolled_merge(s);
}

/* Cell idx of the matrix after step s, for the variants other than loops. */
static void cell_variant(const struct looptrace *lt, enum group g, struct step s, int64_t idx, double *v,
			 uint8_t *st)
{
	int64_t cur = s.kind == ST_NONE ? -1 : s.r * lt->n + s.c;
	*v = 0.0;
	*st = 0;
	if (lt->variant == TRACE_SIMD && (g == G_MATMUL || g == G_SCORES || g == G_OUT)) {
		/* the kernel's walk: its accumulator on top of the passes before */
		const struct gemm_walk *w = &lt->gw[g == G_OUT];
		int64_t u = s.kind == ST_TILE ? s.u : -1, done = s.kind == ST_TILE ? s.p - w->unit[s.u].p0 + 1 : 0;
		looptrace_gemm_cell(w, u, done, idx / w->n, idx % w->n, v, st);
		return;
	}
	if (lt->two_pass && g == G_SOFTMAX && (s.kind == ST_NONE || idx / lt->n > s.r)) {
		*v = lt->gw[0].c[idx];   /* not reached: q·kᵀ as the tiles left it */
		return;
	}
	switch (g) {
	case G_MATMUL:
		if (idx < cur || (idx == cur && s.merge)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (idx == cur) {
			*v = part_merged(lt, -1);
			*st = 1;
		}
		return;
	case G_SCORES:
		if (idx < cur || (idx == cur && (s.merge || lt->hidden[idx]))) {
			*v = lt->scores[idx];
			*st = 2;
		} else if (idx == cur) {
			*v = part_merged(lt, -1);
			*st = 1;
		}
		return;
	case G_SOFTMAX:
		looptrace_rowsoft_cell(&lt->sm, s, idx, v, st);
		return;
	case G_OUT: {
		int64_t r = idx / lt->dv;
		if (s.kind != ST_NONE && (r < s.r || (r == s.r && s.merge))) {
			*v = lt->res[idx];
			*st = 2;
		} else if (s.kind != ST_NONE && r == s.r) {
			*v = part_merged(lt, idx % lt->dv);
			*st = 1;
		}
		return;
	}
	case G_FUSED: {
		int64_t r = idx / lt->dv, col = idx % lt->dv;
		if (s.kind == ST_NONE || r < s.r)   /* the blocks before run last */
			return;
		if (r >= s.r + lt->tile.att_rows || col < s.p || (s.merge && col < s.p + lt->dvc)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (col < s.p + lt->dvc) {   /* this pass's value columns */
			*v = lt->blk_acc[(r - s.r) * lt->dv + col];
			*st = 1;
		}
		return;
	}
	}
}

/* Cell idx of group g's matrix after step s. */
static void cell_at(const struct looptrace *lt, enum group g, struct step s, int64_t idx, double *v, uint8_t *st)
{
	int64_t cur = s.kind == ST_NONE ? -1 : s.r * lt->n + s.c;
	if (lt->variant != TRACE_LOOPS) {
		cell_variant(lt, g, s, idx, v, st);
		return;
	}
	switch (g) {
	case G_MATMUL:
		if (idx < cur || (idx == cur && s.p == lt->k - 1)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (idx == cur) {
			*v = lt->prefix[s.p];
			*st = 1;
		} else {
			*v = 0.0;
			*st = 0;
		}
		return;
	case G_SCORES:
		*v = idx <= cur ? lt->scores[idx] : 0.0;
		*st = idx <= cur ? 2 : 0;
		return;
	case G_SOFTMAX:
		looptrace_rowsoft_cell(&lt->sm, s, idx, v, st);
		return;
	case G_OUT: {
		int64_t r = idx / lt->dv, c = idx % lt->dv;
		if (r < s.r || (r == s.r && s.c == lt->n - 1)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (r == s.r) {
			*v = lt->prefix[s.c * lt->dv + c];
			*st = 1;
		} else {
			*v = 0.0;
			*st = 0;
		}
		return;
	}
	case G_FUSED:
		return;
	}
}

/* The cells [lo, hi) of group g's matrix that may differ between steps a
 * and b: those between the two frontiers. */
static void changed_cells(const struct looptrace *lt, enum group g, struct step a, struct step b, int64_t *lo,
			  int64_t *hi)
{
	int64_t ra = a.kind == ST_NONE ? 0 : a.r, rb = b.kind == ST_NONE ? 0 : b.r;
	int64_t ca = a.kind == ST_NONE ? 0 : a.c, cb = b.kind == ST_NONE ? 0 : b.c;
	switch (g) {
	case G_MATMUL:
	case G_SCORES:
		*lo = lt_min64(ra * lt->n + ca, rb * lt->n + cb);
		*hi = lt_max64(ra * lt->n + ca, rb * lt->n + cb) + 1;
		return;
	case G_SOFTMAX: {
		int64_t cols = lt->sm.cols;
		if (a.kind == b.kind && a.kind != ST_NONE && ra == rb) {
			*lo = ra * cols + lt_min64(ca, cb);
			*hi = ra * cols + lt_max64(ca + a.w, cb + b.w);
		} else {
			*lo = lt_min64(ra, rb) * cols;
			*hi = (lt_max64(ra, rb) + 1) * cols;
		}
		return;
	}
	case G_OUT:
		*lo = lt_min64(ra, rb) * lt->dv;
		*hi = (lt_max64(ra, rb) + 1) * lt->dv;
		return;
	case G_FUSED:   /* the blocks run last first: before any, the frontier is past the last row */
		ra = a.kind == ST_NONE ? lt->m : a.r;
		rb = b.kind == ST_NONE ? lt->m : b.r;
		*lo = lt_min64(ra, rb) * lt->dv;
		*hi = lt_min64(lt_max64(ra, rb) + lt->tile.att_rows, lt->m) * lt->dv;
		return;
	}
}

/* A simd product's cells of the units between steps a and b (all of them
 * after a long jump). */
static void seek_units(struct looptrace *lt, enum group g, struct step a, struct step b)
{
	const struct gemm_walk *w = &lt->gw[g == G_OUT];
	int64_t ua = a.kind == ST_TILE ? a.u : 0, ub = b.kind == ST_TILE ? b.u : 0;
	int64_t lo = lt_min64(ua, ub), hi = lt_max64(ua, ub);
	if (hi - lo > 64) {
		for (int64_t i = 0; i < w->m * w->n; i++)
			cell_at(lt, g, b, i, &lt->values[i], &lt->state[i]);
		return;
	}
	for (int64_t u = lo; u <= hi && u < w->nunits; u++) {
		const struct gemm_unit *x = &w->unit[u];
		for (int64_t i = x->r; i < x->r + x->rows; i++)
			for (int64_t j = x->c; j < x->c + x->cols; j++)
				cell_at(lt, g, b, i * w->n + j, &lt->values[i * w->n + j], &lt->state[i * w->n + j]);
	}
}

void looptrace_seek(struct looptrace *lt, int64_t t)
{
	if (t < 0)
		t = 0;
	if (t > lt->total)
		t = lt->total;
	struct step s = decode(lt, t);
	enum group g = group_of(lt, s);
	load_prefix(lt, s);
	int64_t lo, hi;
	if (lt->shown_valid && g == lt->shown && lt->variant == TRACE_SIMD &&
	    (g == G_MATMUL || g == G_SCORES || g == G_OUT)) {
		seek_units(lt, g, lt->cur, s);
		lo = hi = 0;
	} else if (lt->shown_valid && g == lt->shown) {
		changed_cells(lt, g, lt->cur, s, &lo, &hi);
	} else {
		/* a new phase: its matrix from scratch */
		int64_t rows = lt->m, cols = g == G_OUT || g == G_FUSED ? lt->dv : lt->n;
		if (lt->kind == TRACE_SOFTMAX) {
			rows = lt->sm.rows;
			cols = lt->sm.cols;
		}
		lt->rows = (int)rows;
		lt->cols = (int)cols;
		lt->shown = g;
		lt->shown_valid = true;
		lo = 0;
		hi = rows * cols;
	}
	for (int64_t i = lo; i < hi; i++)
		cell_at(lt, g, s, i, &lt->values[i], &lt->state[i]);
	lt->cur = s;
	lt->pos = t;
}

enum trace_kind looptrace_kind(const struct looptrace *lt)
{
	return lt->kind;
}

int64_t looptrace_total(const struct looptrace *lt)
{
	return lt->total;
}

int64_t looptrace_pos(const struct looptrace *lt)
{
	return lt->pos;
}

void looptrace_phase_bounds(const struct looptrace *lt, int64_t *first, int64_t *last)
{
	*first = 0;
	*last = lt->total;
	if (lt->kind != TRACE_ATTENTION)
		return;
	switch (lt->shown) {
	case G_SCORES:
		*last = lt->sm_begin;
		break;
	case G_SOFTMAX:
		*first = lt->sm_begin + 1;
		*last = lt->out_begin;
		break;
	case G_OUT:
		*first = lt->out_begin + 1;
		break;
	case G_MATMUL:
	case G_FUSED:
		break;
	}
}

void looptrace_matrix(const struct looptrace *lt, int *rows, int *cols, const double **values,
		      const uint8_t **state)
{
	*rows = lt->rows;
	*cols = lt->cols;
	*values = lt->values;
	*state = lt->state;
}
