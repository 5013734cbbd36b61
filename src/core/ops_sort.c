/* ops_sort.c: sorting along a dim (torch.sort, argsort, topk; np.sort,
 * np.argsort), each library's way: which of equal elements comes first is
 * what its own algorithm leaves, so torch's unstable sort and topk replay
 * libstdc++'s std::sort, nth_element and partial_sort, and numpy's default
 * sort its introsort. NaN sorts as the largest number. Never prints. */
#include "core/ops_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One element of a line being sorted: its value (ints exactly) and index. */
struct key {
	double v;
	int64_t iv;
	int64_t idx;
};

struct order {
	bool ints;	/* compare iv, else v */
	bool desc;	/* largest first */
};

/* The comparators torch (KeyValueCompAsc/Desc, topk's) and numpy use: a
 * strict order in which NaN is above every number. */
static bool key_less(const struct key *a, const struct key *b, const struct order *o)
{
	if (o->ints)
		return o->desc ? a->iv > b->iv : a->iv < b->iv;
	if (o->desc)
		return (isnan(a->v) && !isnan(b->v)) || a->v > b->v;
	return (!isnan(a->v) && isnan(b->v)) || a->v < b->v;
}

static void key_swap(struct key *a, struct key *b)
{
	struct key t = *a;
	*a = *b;
	*b = t;
}

static int64_t floor_log2(int64_t n)
{
	int64_t r = 0;
	while (n > 1) {
		n >>= 1;
		r++;
	}
	return r;
}

/* ---- libstdc++'s algorithms, step for step -------------------------------------- */

static void stl_push_heap(struct key *first, int64_t hole, int64_t top, struct key value, const struct order *o)
{
	int64_t parent = (hole - 1) / 2;
	while (hole > top && key_less(&first[parent], &value, o)) {
		first[hole] = first[parent];
		hole = parent;
		parent = (hole - 1) / 2;
	}
	first[hole] = value;
}

static void stl_adjust_heap(struct key *first, int64_t hole, int64_t len, struct key value, const struct order *o)
{
	int64_t top = hole, child = hole;
	while (child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (key_less(&first[child], &first[child - 1], o))
			child--;
		first[hole] = first[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		first[hole] = first[child - 1];
		hole = child - 1;
	}
	stl_push_heap(first, hole, top, value, o);
}

static void stl_make_heap(struct key *first, int64_t len, const struct order *o)
{
	if (len < 2)
		return;
	for (int64_t parent = (len - 2) / 2;; parent--) {
		stl_adjust_heap(first, parent, len, first[parent], o);
		if (parent == 0)
			return;
	}
}

static void stl_pop_heap(struct key *first, int64_t len, struct key *result, const struct order *o)
{
	struct key value = *result;
	*result = first[0];
	stl_adjust_heap(first, 0, len, value, o);
}

/* std::partial_sort(first, first + mid, first + n) */
static void stl_partial_sort(struct key *first, int64_t mid, int64_t n, const struct order *o)
{
	stl_make_heap(first, mid, o);
	for (int64_t i = mid; i < n; i++)
		if (key_less(&first[i], &first[0], o))
			stl_pop_heap(first, mid, &first[i], o);
	for (int64_t len = mid; len > 1; len--)
		stl_pop_heap(first, len - 1, &first[len - 1], o);
}

static void stl_linear_insert(struct key *last, const struct order *o)
{
	struct key val = *last;
	struct key *next = last - 1;
	while (key_less(&val, next, o)) {
		*last = *next;
		last = next--;
	}
	*last = val;
}

static void stl_insertion_sort(struct key *first, int64_t n, const struct order *o)
{
	for (int64_t i = 1; i < n; i++) {
		if (key_less(&first[i], &first[0], o)) {
			struct key val = first[i];
			memmove(first + 1, first, (size_t)i * sizeof *first);
			first[0] = val;
		} else {
			stl_linear_insert(&first[i], o);
		}
	}
}

static void stl_median_to_first(struct key *result, struct key *a, struct key *b, struct key *c, const struct order *o)
{
	if (key_less(a, b, o)) {
		if (key_less(b, c, o))
			key_swap(result, b);
		else if (key_less(a, c, o))
			key_swap(result, c);
		else
			key_swap(result, a);
	} else if (key_less(a, c, o)) {
		key_swap(result, a);
	} else if (key_less(b, c, o)) {
		key_swap(result, c);
	} else {
		key_swap(result, b);
	}
}

static struct key *stl_partition_pivot(struct key *first, struct key *last, const struct order *o)
{
	struct key *mid = first + (last - first) / 2;
	stl_median_to_first(first, first + 1, mid, last - 1, o);
	struct key *lo = first + 1, *hi = last;
	for (;;) {
		while (key_less(lo, first, o))
			lo++;
		hi--;
		while (key_less(first, hi, o))
			hi--;
		if (!(lo < hi))
			return lo;
		key_swap(lo, hi);
		lo++;
	}
}

/* std::sort: introsort down to runs of 16, then one insertion sort */
static void stl_sort(struct key *first, int64_t n, const struct order *o)
{
	if (n < 2)
		return;
	struct key *stack[128][2];
	int64_t depth_at[128];
	int sp = 0;
	struct key *lo = first, *hi = first + n;
	int64_t depth = floor_log2(n) * 2;
	for (;;) {
		while (hi - lo > 16) {
			if (depth == 0) {
				stl_partial_sort(lo, hi - lo, hi - lo, o);
				break;
			}
			depth--;
			struct key *cut = stl_partition_pivot(lo, hi, o);
			/* libstdc++ recurses into [cut, hi) first, then loops on [lo, cut) */
			stack[sp][0] = lo;
			stack[sp][1] = cut;
			depth_at[sp++] = depth;
			lo = cut;
		}
		if (sp == 0)
			break;
		sp--;
		lo = stack[sp][0];
		hi = stack[sp][1];
		depth = depth_at[sp];
	}
	if (n > 16) {
		stl_insertion_sort(first, 16, o);
		for (int64_t i = 16; i < n; i++)
			stl_linear_insert(&first[i], o);
	} else {
		stl_insertion_sort(first, n, o);
	}
}

/* std::nth_element(first, first + nth, first + n) */
static void stl_nth_element(struct key *first, int64_t nth, int64_t n, const struct order *o)
{
	struct key *lo = first, *hi = first + n, *at = first + nth;
	int64_t depth = floor_log2(n) * 2;
	while (hi - lo > 3) {
		if (depth == 0) {
			/* __heap_select(lo, at + 1, hi), then the nth to its place */
			int64_t mid = at + 1 - lo;
			stl_make_heap(lo, mid, o);
			for (struct key *i = at + 1; i < hi; i++)
				if (key_less(i, lo, o))
					stl_pop_heap(lo, mid, i, o);
			key_swap(lo, at);
			return;
		}
		depth--;
		struct key *cut = stl_partition_pivot(lo, hi, o);
		if (cut <= at)
			lo = cut;
		else
			hi = cut;
	}
	stl_insertion_sort(lo, hi - lo, o);
}

/* A stable merge sort (any stable sort gives std::stable_sort's order). */
static void merge_sort(struct key *a, struct key *tmp, int64_t n, const struct order *o)
{
	if (n < 2)
		return;
	int64_t h = n / 2;
	merge_sort(a, tmp, h, o);
	merge_sort(a + h, tmp, n - h, o);
	int64_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = key_less(&a[j], &a[i], o) ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

/* ---- numpy's argsort kinds ---------------------------------------------------------- */

/* numpy's heap sift: tmp down from a[i] in the heap a[1..n] */
static void np_sift(struct key *a, struct key tmp, int64_t i, int64_t n, const struct order *o)
{
	for (int64_t j = i << 1; j <= n;) {
		if (j < n && key_less(&a[j], &a[j + 1], o))
			j += 1;
		if (!key_less(&tmp, &a[j], o))
			break;
		a[i] = a[j];
		i = j;
		j += j;
	}
	a[i] = tmp;
}

/* numpy's aheapsort_ (1-based inside, as numpy writes it) */
static void np_heapsort(struct key *a0, int64_t n, const struct order *o)
{
	struct key *a = a0 - 1;
	for (int64_t l = n >> 1; l > 0; --l)
		np_sift(a, a[l], l, n, o);
	for (; n > 1;) {
		struct key tmp = a[n];
		a[n] = a[1];
		n -= 1;
		np_sift(a, tmp, 1, n, o);
	}
}

/* numpy's aquicksort_: median of three, runs of up to 16 by insertion,
 * heapsort when too deep (npysort/quicksort.cpp) */
static void np_quicksort(struct key *v, int64_t num, const struct order *o)
{
	struct key *pl = v, *pr = v + num - 1, *stack[128], **sptr = stack, *pm, *pi, *pj, *pk, vp;
	int depth[128], *psdepth = depth;
	int cdepth = (int)floor_log2(num) * 2;
	if (num < 2)
		return;
	for (;;) {
		if (cdepth < 0) {
			np_heapsort(pl, pr - pl + 1, o);
			goto stack_pop;
		}
		while (pr - pl > 15) {
			pm = pl + ((pr - pl) >> 1);
			if (key_less(pm, pl, o))
				key_swap(pm, pl);
			if (key_less(pr, pm, o))
				key_swap(pr, pm);
			if (key_less(pm, pl, o))
				key_swap(pm, pl);
			vp = *pm;
			pi = pl;
			pj = pr - 1;
			key_swap(pm, pj);
			for (;;) {
				do
					++pi;
				while (key_less(pi, &vp, o));
				do
					--pj;
				while (key_less(&vp, pj, o));
				if (pi >= pj)
					break;
				key_swap(pi, pj);
			}
			pk = pr - 1;
			key_swap(pi, pk);
			if (pi - pl < pr - pi) {
				*sptr++ = pi + 1;
				*sptr++ = pr;
				pr = pi - 1;
			} else {
				*sptr++ = pl;
				*sptr++ = pi - 1;
				pl = pi + 1;
			}
			*psdepth++ = --cdepth;
		}
		for (pi = pl + 1; pi <= pr; ++pi) {
			struct key vi = *pi;
			pj = pi;
			pk = pi - 1;
			while (pj > pl && key_less(&vi, pk, o))
				*pj-- = *pk--;
			*pj = vi;
		}
stack_pop:
		if (sptr == stack)
			break;
		pr = *(--sptr);
		pl = *(--sptr);
		cdepth = *(--psdepth);
	}
}

/* ---- the ops -------------------------------------------------------------------------- */

/* The lines of t along dim: for each, its keys in keys[0..n), then done()
 * writes the first k of them (values as t's own elements, indices int64). */
struct lines {
	struct tensor *c;	/* t contiguous */
	int64_t outer, n, inner;
	size_t esz;
	struct order o;
};

static void line_load(const struct lines *L, int64_t o, int64_t in, struct key *keys)
{
	for (int64_t k = 0; k < L->n; k++) {
		int64_t at = (o * L->n + k) * L->inner + in;
		keys[k].idx = k;
		if (L->o.ints)
			keys[k].iv = tensor_get_i64(L->c, at);
		else
			keys[k].v = tensor_get(L->c, at);
	}
}

static void line_store(const struct lines *L, int64_t o, int64_t in, const struct key *keys, int64_t k,
		       struct tensor *vals, struct tensor *idx)
{
	const unsigned char *src = tensor_data(L->c);
	unsigned char *dv = vals->storage->data;
	int64_t *di = idx->storage->data;
	for (int64_t j = 0; j < k; j++) {
		int64_t from = (o * L->n + keys[j].idx) * L->inner + in, to = (o * k + j) * L->inner + in;
		memcpy(dv + (size_t)to * L->esz, src + (size_t)from * L->esz, L->esz);
		di[to] = keys[j].idx;
	}
}

static int lines_of(struct tensor *t, int *dim, struct lines *L, struct qkv_error *err)
{
	if (t->ndim == 0) {
		*dim = 0;
	} else if ((*dim = ops_norm_dim(*dim, t->ndim, err)) < 0) {
		return -1;
	}
	L->outer = L->inner = 1;
	L->n = t->ndim ? t->shape[*dim] : 1;
	for (int i = 0; i < *dim; i++)
		L->outer *= t->shape[i];
	for (int i = *dim + 1; i < t->ndim; i++)
		L->inner *= t->shape[i];
	L->c = ops_contiguous(t);
	L->esz = dtype_size(t->dtype);
	L->o.ints = t->dtype == DT_I64;
	return 0;
}

int ops_sort(const struct ops_ctx *ctx, struct tensor *t, int dim, bool descending, enum sort_kind kind,
	     struct tensor **values, struct tensor **indices, struct qkv_error *err)
{
	(void)ctx;
	struct lines L;
	if (lines_of(t, &dim, &L, err) < 0)
		return -1;
	L.o.desc = descending;
	struct tensor *vals = tensor_new(t->dtype, t->flavor, t->ndim, t->shape);
	struct tensor *idx = tensor_new(DT_I64, t->flavor, t->ndim, t->shape);
	struct key *keys = xcalloc((size_t)L.n + 1, sizeof *keys), *tmp = NULL;
	if (kind == SORT_STABLE)
		tmp = xcalloc((size_t)L.n + 1, sizeof *tmp);
	for (int64_t o = 0; o < L.outer; o++) {
		for (int64_t in = 0; in < L.inner; in++) {
			line_load(&L, o, in, keys);
			if (kind == SORT_STABLE)
				merge_sort(keys, tmp, L.n, &L.o);
			else if (kind == SORT_TORCH)
				stl_sort(keys, L.n, &L.o);
			else if (kind == SORT_NUMPY_HEAP)
				np_heapsort(keys, L.n, &L.o);
			else
				np_quicksort(keys, L.n, &L.o);
			line_store(&L, o, in, keys, L.n, vals, idx);
		}
	}
	free(keys);
	free(tmp);
	tensor_unref(L.c);
	*values = vals;
	*indices = idx;
	return 0;
}

int ops_topk(const struct ops_ctx *ctx, struct tensor *t, int64_t k, int dim, bool largest, bool sorted,
	     struct tensor **values, struct tensor **indices, struct qkv_error *err)
{
	(void)ctx;
	struct lines L;
	if (lines_of(t, &dim, &L, err) < 0)
		return -1;
	if (k < 0 || k > L.n) {
		tensor_unref(L.c);
		error_set(err, 0, 0, "selected index k out of range");
		return -1;
	}
	L.o.desc = largest;
	int64_t shape[TENSOR_MAX_DIMS];
	memcpy(shape, t->shape, sizeof shape);
	if (t->ndim)
		shape[dim] = k;
	struct tensor *vals = tensor_new(t->dtype, t->flavor, t->ndim, shape);
	struct tensor *idx = tensor_new(DT_I64, t->flavor, t->ndim, shape);
	struct key *keys = xcalloc((size_t)L.n + 1, sizeof *keys);
	for (int64_t o = 0; o < L.outer && k > 0; o++) {
		for (int64_t in = 0; in < L.inner; in++) {
			line_load(&L, o, in, keys);
			/* torch's topk_impl_loop */
			if (k * 64 <= L.n) {
				stl_partial_sort(keys, k, L.n, &L.o);
			} else {
				stl_nth_element(keys, k - 1, L.n, &L.o);
				if (sorted)
					stl_sort(keys, k - 1, &L.o);
			}
			line_store(&L, o, in, keys, k, vals, idx);
		}
	}
	free(keys);
	tensor_unref(L.c);
	*values = vals;
	*indices = idx;
	return 0;
}
