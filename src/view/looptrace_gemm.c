/* looptrace_gemm.c: the walk of a SIMD matrix product as the kernel takes it
 * (kernel_gemm_shape: simd_tmpl.h's gemm in GotoBLAS order, or its tiny
 * product): its units (a register tile for one pass of the depth, or a tiny
 * product's group of columns) in the kernel's order, the steps each takes
 * (one p), and every cell's value after any step, summed as the kernel sums
 * it (in order of p within a pass, each pass added to what the cell held).
 * For the vectorised matmul and the two-pass attention's two products
 * (looptrace_simd.c); pure, allocates only in looptrace_gemm_plan. */
#include "view/looptrace_internal.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

static double gemm_a(const struct gemm_walk *g, int64_t i, int64_t p)
{
	return g->a[i * g->lda + p];
}

static double gemm_b(const struct gemm_walk *g, int64_t p, int64_t j)
{
	return g->b[p * g->brs + j * g->bcs];
}

/* The products of cell (i, j) for p = p0 .. p0+count-1, added in order from 0
 * (the micro-kernel's accumulator). */
static double pass_sum(const struct gemm_walk *g, int64_t i, int64_t j, int64_t p0, int64_t count)
{
	double acc = 0.0;
	for (int64_t p = p0; p < p0 + count; p++)
		acc += gemm_a(g, i, p) * gemm_b(g, p, j);
	return acc;
}

/* Adds the unit (r, c, rows, cols, p0, kc) to the table when table is set;
 * counts it either way. */
static void add_unit(struct gemm_walk *g, struct gemm_unit u)
{
	if (g->unit) {
		g->unit[g->nunits] = u;
		g->start[g->nunits + 1] = g->start[g->nunits] + u.kc;
	}
	g->nunits++;
}

/* The kernel's loop nest (simd_tmpl.h's gemm, with its causal skips), or the
 * tiny product's rows and groups of columns, in its order. */
static void walk_units(struct gemm_walk *g)
{
	const struct kernel_gemm_shape *sh = &g->sh;
	int64_t m = g->m, k = g->k, n = g->n;
	g->nunits = 0;
	if (g->tiny) {
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j += g->uc)
				add_unit(g, (struct gemm_unit){ i, j, 1, lt_min64(g->uc, n - j), 0, k, 0 });
		return;
	}
	int64_t mr = sh->tile_rows, nr = sh->tile_cols;
	for (int64_t jc = 0; jc < n; jc += g->nc) {
		int64_t nb = lt_min64(g->nc, n - jc);
		for (int64_t p0 = 0; p0 < k; p0 += g->kc) {
			int64_t kc = lt_min64(g->kc, k - p0);
			for (int64_t i0 = 0; i0 < m; i0 += g->mc) {
				int64_t mb = lt_min64(g->mc, m - i0);
				if (g->skip_upper && jc > i0 + mb - 1)
					continue;
				for (int64_t j0 = jc; j0 < jc + nb; j0 += nr) {
					if (g->skip_upper && j0 > i0 + mb - 1)
						break;
					for (int64_t r0 = 0; r0 < mb; r0 += mr) {
						int64_t mc = lt_min64(mr, mb - r0);
						if (g->skip_upper && j0 > i0 + r0 + mc - 1)
							continue;
						add_unit(g, (struct gemm_unit){ i0 + r0, j0, mc, lt_min64(nr, jc + nb - j0), p0,
										kc, p0 / g->kc });
					}
				}
			}
		}
	}
}

int64_t looptrace_gemm_plan(struct gemm_walk *g, bool tiny_path)
{
	const struct kernel_gemm_shape *sh = &g->sh;
	int64_t m = g->m, k = g->k, n = g->n;
	/* the kernel's own test (simd_tmpl.h's matmul): k <= kc, m·n <= tiny / k */
	g->tiny = tiny_path && sh->tiny > 0 && k <= sh->kc && m * n <= sh->tiny / k;
	g->kc = sh->kc > 0 && !g->tiny ? sh->kc : k;
	g->mc = sh->mc > 0 ? sh->mc : m;
	g->nc = sh->nc > 0 ? sh->nc : n;
	if (g->tiny) {
		g->ur = 1;
		g->uc = sh->tiny_cols > 1 && n % sh->tiny_cols == 0 ? sh->tiny_cols : 1;
	} else {
		g->ur = sh->tile_rows > 0 ? sh->tile_rows : 1;
		g->uc = sh->tile_cols > 0 ? sh->tile_cols : 1;
	}
	g->passes = (k + g->kc - 1) / g->kc;
	g->units_r = (m + g->ur - 1) / g->ur;
	g->units_c = (n + g->uc - 1) / g->uc;
	g->unit = NULL;
	walk_units(g);
	if (g->nunits == 0)
		return 0;
	g->unit = xmalloc((size_t)g->nunits * sizeof *g->unit);
	g->start = xmalloc((size_t)(g->nunits + 1) * sizeof *g->start);
	g->start[0] = 0;
	walk_units(g);
	int64_t slots = g->units_r * g->units_c * g->passes;
	g->unit_of = xmalloc((size_t)slots * sizeof *g->unit_of);
	for (int64_t i = 0; i < slots; i++)
		g->unit_of[i] = -1;
	for (int64_t u = 0; u < g->nunits; u++) {
		const struct gemm_unit *x = &g->unit[u];
		g->unit_of[((x->r / g->ur) * g->units_c + x->c / g->uc) * g->passes + x->pass] = u;
	}
	/* the result: each unit, in order, stores its pass (or adds it) */
	g->c = xcalloc((size_t)(m * n), sizeof *g->c);
	g->written = xcalloc((size_t)(m * n), 1);
	for (int64_t u = 0; u < g->nunits; u++) {
		const struct gemm_unit *x = &g->unit[u];
		for (int64_t i = x->r; i < x->r + x->rows; i++)
			for (int64_t j = x->c; j < x->c + x->cols; j++) {
				double s = pass_sum(g, i, j, x->p0, x->kc);
				g->c[i * n + j] = x->pass ? g->c[i * n + j] + s : s;
				g->written[i * n + j] = 1;
			}
	}
	return g->start[g->nunits];
}

void looptrace_gemm_free(struct gemm_walk *g)
{
	free(g->unit);
	free(g->start);
	free(g->unit_of);
	free(g->c);
	free(g->written);
	memset(g, 0, sizeof *g);
}

int64_t looptrace_gemm_unit_at(const struct gemm_walk *g, int64_t it)
{
	return looptrace_find(g->start, g->nunits, it);
}

int64_t looptrace_gemm_units_of(const struct gemm_walk *g, int64_t i, int64_t j, int64_t *first, int64_t *last)
{
	int64_t slot = ((i / g->ur) * g->units_c + j / g->uc) * g->passes, runs = 0;
	*first = *last = -1;
	for (int64_t q = 0; q < g->passes; q++) {
		int64_t u = g->unit_of[slot + q];
		if (u < 0)
			continue;
		if (*first < 0)
			*first = u;
		*last = u;
		runs++;
	}
	return runs;
}

void looptrace_gemm_cell(const struct gemm_walk *g, int64_t u, int64_t done, int64_t i, int64_t j, double *v,
			 uint8_t *st)
{
	int64_t slot = ((i / g->ur) * g->units_c + j / g->uc) * g->passes, last = -1;
	double c = 0.0;
	bool any = false;
	*v = 0.0;
	*st = 0;
	for (int64_t q = 0; q < g->passes; q++)
		last = g->unit_of[slot + q] > last ? g->unit_of[slot + q] : last;
	if (last >= 0 && (last < u || (last == u && done == g->unit[u].kc))) {
		*v = g->c[i * g->n + j];   /* every pass stored: the result, without summing again */
		*st = 2;
		return;
	}
	for (int64_t q = 0; q < g->passes; q++) {
		int64_t x = g->unit_of[slot + q];
		if (x < 0)
			continue;
		const struct gemm_unit *un = &g->unit[x];
		if (x > u || (x == u && done < un->kc)) {
			if (x == u) {   /* the accumulator so far, on top of what the cell holds */
				double part = pass_sum(g, i, j, un->p0, done);
				*v = any ? c + part : part;
				*st = 1;
				return;
			}
			*v = c;
			*st = any ? 1 : 0;
			return;
		}
		double s = pass_sum(g, i, j, un->p0, un->kc);
		c = any ? c + s : s;
		any = true;
	}
	*v = c;
	*st = any ? 2 : 0;
}
