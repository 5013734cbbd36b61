/* looptrace_variant.c: what the panels of the three variants say about a
 * trace (view/looptrace.h's variant section): the title, the steps of the
 * whole computation, the rectangle the current step writes, the unrolled
 * partial sums and the inspector's sentence. Pure: reads the trace only. */
#include "view/looptrace_internal.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum trace_variant looptrace_variant(const struct looptrace *lt)
{
	return lt->asked;
}

void looptrace_variant_title(const struct looptrace *lt, char *buf, size_t size)
{
	const struct kernel_tile *t = &lt->tile;
	const struct gemm_walk *w = &lt->gw[0];
	if (lt->asked == TRACE_SIMD && lt->variant == TRACE_LOOPS) {   /* the scalar path: the loops kernels */
		utf8_snprintf(buf, size, "no vectors (the %s path: for-loops)", t->path);
		return;
	}
	switch (lt->variant) {
	case TRACE_LOOPS:
		utf8_snprintf(buf, size, "for-loops");
		return;
	case TRACE_UNROLLED:
		utf8_snprintf(buf, size, "unrolled \u00d7%d", KERNEL_UNROLL);
		return;
	case TRACE_SIMD:
		if (lt->kind == TRACE_MATMUL && w->tiny)
			utf8_snprintf(buf, size, w->uc > 1 ? "vectorised (%s, tiny: %d columns at a time)" :
				      "vectorised (%s, tiny: one cell at a time)", t->path, w->uc);
		else if (t->lanes == 1 && lt->kind == TRACE_ATTENTION && !lt->two_pass)
			utf8_snprintf(buf, size, "no vectors (the %s path, fused %d\u00d7%d blocks)", t->path, t->att_rows,
				      t->att_keys);
		else if (t->lanes == 1)
			utf8_snprintf(buf, size, "no vectors (the %s path)", t->path);
		else if (lt->kind == TRACE_MATMUL)
			utf8_snprintf(buf, size, "vectorised (%s, %d\u00d7%d tile)", t->path, t->tile_rows, t->tile_cols);
		else if (lt->kind == TRACE_SOFTMAX)
			utf8_snprintf(buf, size, "vectorised (%s, %d lanes)", t->path, lt->sm.width);
		else if (lt->two_pass)
			utf8_snprintf(buf, size, "vectorised (%s, two-pass, %d\u00d7%d tiles)", t->path, t->tile_rows,
				      t->tile_cols);
		else
			utf8_snprintf(buf, size, "vectorised (%s, fused %d\u00d7%d blocks)", t->path, t->att_rows, t->att_keys);
		return;
	}
}

/* "1,600 iterations of 4 + 400 of 2 + 400 merges" for count sums of terms */
static void unrolled_sums_text(char *buf, size_t size, int64_t count, int64_t terms, const char *merges)
{
	char n1[32], n2[32], n3[32];
	int64_t whole = terms / KERNEL_UNROLL, rem = terms % KERNEL_UNROLL;
	looptrace_count(n1, sizeof n1, count * whole);
	looptrace_count(n2, sizeof n2, count);
	looptrace_count(n3, sizeof n3, count);
	if (whole && rem)
		utf8_snprintf(buf, size, "%s iterations of %d + %s of %lld + %s %s", n1, KERNEL_UNROLL, n2, (long long)rem,
			      n3, merges);
	else if (whole)
		utf8_snprintf(buf, size, "%s iterations of %d + %s %s", n1, KERNEL_UNROLL, n3, merges);
	else
		utf8_snprintf(buf, size, "%s iterations of %lld + %s %s", n2, (long long)rem, n3, merges);
}

/* "2,000 steps, one at a time: 400 for the scores, 1,200 for the softmax,
 * 400 for the weighted sums" */
static void attention_steps_text(const struct looptrace *lt, char *buf, size_t size, const char *how)
{
	char n1[32], n2[32], n3[32], n4[32];
	utf8_snprintf(buf, size, "%s steps, %s: %s for the scores, %s for the softmax, %s for the weighted sums",
		      looptrace_count(n1, sizeof n1, lt->total), how, looptrace_count(n2, sizeof n2, lt->sm_begin),
		      looptrace_count(n3, sizeof n3, lt->out_begin - lt->sm_begin),
		      looptrace_count(n4, sizeof n4, lt->total - lt->out_begin));
}

void looptrace_steps_text(const struct looptrace *lt, char *buf, size_t size)
{
	const struct kernel_tile *t = &lt->tile;
	const struct gemm_walk *w = &lt->gw[0];
	char n1[32], n2[32], n3[32];
	looptrace_count(n1, sizeof n1, lt->total);
	switch (lt->variant) {
	case TRACE_LOOPS:
		if (lt->kind == TRACE_MATMUL)
			utf8_snprintf(buf, size, "%s multiply-adds", n1);
		else if (lt->kind == TRACE_SOFTMAX)
			utf8_snprintf(buf, size, "%s steps of one entry (max, exp and sum, divide)", n1);
		else
			attention_steps_text(lt, buf, size, "one at a time");
		return;
	case TRACE_UNROLLED:
		if (lt->kind == TRACE_MATMUL)
			unrolled_sums_text(buf, size, lt->m * lt->n, lt->k, "merges");
		else if (lt->kind == TRACE_SOFTMAX)
			utf8_snprintf(buf, size, "%s steps: iterations of %d entries, 2 merges a row (max, sum)", n1,
				      KERNEL_UNROLL);
		else {
			char how[48];
			utf8_snprintf(how, sizeof how, "iterations of %d and merges", KERNEL_UNROLL);
			attention_steps_text(lt, buf, size, how);
		}
		return;
	case TRACE_SIMD:
		if (lt->kind == TRACE_MATMUL && w->tiny) {
			if (w->uc > 1)
				utf8_snprintf(buf, size, "%s steps of one multiply-add of %d lanes", n1, w->uc);
			else
				utf8_snprintf(buf, size, "%s multiply-adds, one at a time", n1);
		} else if (lt->kind == TRACE_MATMUL) {
			int len = utf8_snprintf(buf, size, "%s steps of %d FMAs of %d lanes", n1,
						t->tile_rows * (t->tile_cols / t->lanes), t->lanes);
			if (w->passes > 1 && len >= 0 && (size_t)len < size)
				utf8_snprintf(buf + len, size - (size_t)len, ", the depth in %lld passes of %lld",
					      (long long)w->passes, (long long)w->kc);
		} else if (lt->kind == TRACE_SOFTMAX) {
			utf8_snprintf(buf, size, "%s steps of %d lanes (max, exp and sum, divide) and reductions across them",
				      n1, lt->sm.width);
		} else if (lt->two_pass) {
			char n4[32];
			utf8_snprintf(buf, size, "%s steps: %s of %d FMAs for the score tiles, %s for the softmax in vectors "
				      "of %d, %s for the output tiles", n1, looptrace_count(n2, sizeof n2, lt->sm_begin),
				      t->tile_rows * (t->tile_cols / t->lanes), looptrace_count(n3, sizeof n3,
				      lt->out_begin - lt->sm_begin), lt->sm.width,
				      looptrace_count(n4, sizeof n4, lt->total - lt->out_begin));
		} else {
			int64_t blocks = (lt->m + t->att_rows - 1) / t->att_rows * lt->chunks;
			int len = utf8_snprintf(buf, size, "%s steps: %s key block%s against query blocks of %d + %s division%s",
						n1, looptrace_count(n2, sizeof n2, lt->total - blocks),
						lt->total - blocks == 1 ? "" : "s", t->att_rows,
						looptrace_count(n3, sizeof n3, blocks), blocks == 1 ? "" : "s");
			if (lt->chunks > 1 && len >= 0 && (size_t)len < size)
				utf8_snprintf(buf + len, size - (size_t)len, " (%lld passes of %lld value columns)",
					      (long long)lt->chunks, (long long)lt->dvc);
		}
		return;
	}
}

bool looptrace_current_rect(const struct looptrace *lt, int *row, int *col, int *rows, int *cols)
{
	struct step s = lt->cur;
	*row = *col = *rows = *cols = 0;
	if (s.kind == ST_NONE)
		return false;
	*row = (int)s.r;
	*col = (int)s.c;
	*rows = *cols = 1;
	switch (s.kind) {
	case ST_TILE:
		*rows = (int)lt->gw[s.gw].unit[s.u].rows;
		*cols = (int)lt->gw[s.gw].unit[s.u].cols;
		break;
	case ST_BLOCK:
		*rows = (int)(lt->m - s.r < lt->tile.att_rows ? lt->m - s.r : lt->tile.att_rows);
		*col = (int)s.p;
		*cols = (int)lt_min64(lt->dvc, lt->dv - s.p);
		break;
	case ST_OUT:
		*col = 0;
		*cols = (int)lt->dv;
		break;
	case ST_SCALE:
	case ST_MAX:
	case ST_ZERO:
	case ST_EXP:
	case ST_DIV:
		*cols = (int)s.w;
		break;
	default:
		break;
	}
	return true;
}

int looptrace_partials(const struct looptrace *lt, const double **sums)
{
	*sums = lt->part;
	return lt->variant == TRACE_UNROLLED ? lt->npart : 0;
}

/* The loops' story of a cell. */
static void loops_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	char s1[32], s2[32], s3[32];
	const char *ph = looptrace_phase(lt);
	if (!strcmp(ph, "matmul")) {
		int64_t first = ((int64_t)row * lt->n + col) * lt->k + 1;
		utf8_snprintf(buf, size, "%s[%d, %d]: s took its %s terms one at a time (p = 0..%lld) in steps %s-%s, and "
			      "was stored in the last", lt->nc, row, col, looptrace_count(s1, sizeof s1, lt->k),
			      (long long)(lt->k - 1), looptrace_count(s2, sizeof s2, first),
			      looptrace_count(s3, sizeof s3, first + lt->k - 1));
	} else if (!strcmp(ph, "scores")) {
		utf8_snprintf(buf, size, "att[%d, %d]: %s in step %s", row, col,
			      lt->hidden[(int64_t)row * lt->n + col] ? "hidden: -inf" : "a whole dot product",
			      looptrace_count(s1, sizeof s1, (int64_t)row * lt->n + col + 1));
	} else if (!strcmp(ph, "softmax")) {
		const struct rowsoft *sm = &lt->sm;
		int64_t start = sm->start[row] + (lt->kind == TRACE_ATTENTION ? lt->sm_begin : 0);
		const char *y = lt->kind == TRACE_SOFTMAX ? lt->ny : "att";
		if (sm->max[row] == -INFINITY)
			utf8_snprintf(buf, size, "%s[%d, %d]: its row is all -inf: nan in step %s", y, row, col,
				      looptrace_count(s1, sizeof s1, start + sm->cols + 1));
		else
			utf8_snprintf(buf, size, "%s[%d, %d]: compared with the max in step %s, exp in step %s, divided in "
				      "step %s", y, row, col, looptrace_count(s1, sizeof s1, start + col + 1),
				      looptrace_count(s2, sizeof s2, start + sm->cols + col + 1),
				      looptrace_count(s3, sizeof s3, start + 2 * sm->cols + col + 1));
	} else {
		int64_t first = lt->out_begin + (int64_t)row * lt->n + 1;
		utf8_snprintf(buf, size, "out[%d, %d]: the %s value rows added one at a time in steps %s-%s", row, col,
			      looptrace_count(s1, sizeof s1, lt->n), looptrace_count(s2, sizeof s2, first),
			      looptrace_count(s3, sizeof s3, first + lt->n - 1));
	}
}

void looptrace_cell_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	if (size == 0)
		return;
	if (row < 0 || col < 0 || row >= lt->rows || col >= lt->cols) {
		buf[0] = 0;
		return;
	}
	switch (lt->variant) {
	case TRACE_LOOPS:
		loops_story(lt, row, col, buf, size);
		return;
	case TRACE_UNROLLED:
		looptrace_unrolled_story(lt, row, col, buf, size);
		return;
	case TRACE_SIMD:
		looptrace_simd_story(lt, row, col, buf, size);
		return;
	}
}
