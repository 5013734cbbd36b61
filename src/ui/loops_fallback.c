/* loops_fallback.c: TEMPORARY weak stand-ins for view/looptrace's variant API
 * (issue 18), so this branch links before the trace branch lands: every
 * variant follows the loops trace. The trace branch's definitions replace
 * them at link time; delete this file when merging it. */
#include "view/looptrace.h"

#include <stdio.h>

#define WEAK __attribute__((weak))

/* which variant each trace was made for, for the titles */
static const struct looptrace *made[16];
static enum trace_variant kinds[16];
static int nmade;

WEAK struct looptrace *looptrace_for_variant(const struct tensor *t, enum trace_variant v)
{
	struct looptrace *lt = looptrace_for(t);
	made[nmade % 16] = lt;
	kinds[nmade++ % 16] = v;
	return lt;
}

WEAK enum trace_variant looptrace_variant(const struct looptrace *lt)
{
	for (int i = 0; i < 16; i++)
		if (made[i] == lt)
			return kinds[i];
	return TRACE_LOOPS;
}

WEAK void looptrace_variant_title(const struct looptrace *lt, char *buf, size_t size)
{
	static const char *const titles[TRACE_VARIANTS] = { "for-loops", "unrolled \u00d74", "vectorised" };
	snprintf(buf, size, "%s", titles[looptrace_variant(lt)]);
}

WEAK void looptrace_steps_text(const struct looptrace *lt, char *buf, size_t size)
{
	snprintf(buf, size, "%lld steps", (long long)looptrace_total(lt));
}

WEAK bool looptrace_current_rect(const struct looptrace *lt, int *row, int *col, int *rows, int *cols)
{
	*rows = *cols = 1;
	return looptrace_current_cell(lt, row, col) && *col >= 0;
}

WEAK int looptrace_partials(const struct looptrace *lt, const double **sums)
{
	(void)lt;
	*sums = NULL;
	return 0;
}

WEAK void looptrace_cell_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	snprintf(buf, size, "%s[%d, %d]: computed in this variant's steps", looptrace_matrix_name(lt), row, col);
}
