/* exercise.c: an exercise's verdict on a student's value (see exercise.h).
 * Called by session.c for each value a typed line makes and by runner.c's
 * check of a solution; evaluates the answer in a workspace it leaves as it
 * was, and never prints. */
#include "lesson/exercise.h"
#include "core/ops.h"
#include "core/utf8.h"
#include "lang/interp.h"
#include "lesson/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* a typed list is a small thing: more elements than this is not an answer */
#define ANSWER_MAX_ELEMS (1 << 20)

void answer_compare(const struct tensor *got, const struct tensor *want, double tol, struct answer_check *out)
{
	memset(out, 0, sizeof *out);
	int64_t n = tensor_numel(want);
	out->shape_ok = tensor_same_shape(got, want) || (n == 1 && tensor_numel(got) == 1);
	if (!out->shape_ok)
		return;
	for (int64_t i = 0; i < n; i++) {
		double d = compare_diff(tensor_get(got, i), tensor_get(want, i));
		if (d == 0)
			continue;
		if (d > out->max_diff)
			out->max_diff = d;
		if (!(d <= tol)) {
			if (out->nlisted < 8)
				out->bad[out->nlisted++] = i;
			out->nbad++;
		}
	}
	out->pass = out->nbad == 0;
}

static bool is_sequence(const struct value *v)
{
	return v->kind == V_LIST || v->kind == V_TUPLE;
}

/* Copies the numbers of the nested sequence v, whose level d must hold
 * shape[d] items, into t from element *at on. False when v is ragged or
 * holds something other than numbers. */
static bool fill(struct tensor *t, const struct value *v, int d, int ndim, const int64_t *shape, int64_t *at)
{
	if (d == ndim) {
		if (!value_is_number(v))
			return false;
		tensor_set(t, (*at)++, value_as_double(v));
		return true;
	}
	if (!is_sequence(v) || v->n != shape[d])
		return false;
	for (int i = 0; i < v->n; i++)
		if (!fill(t, v->items[i], d + 1, ndim, shape, at))
			return false;
	return true;
}

struct tensor *answer_tensor(const struct value *v)
{
	if (v->kind == V_TENSOR)
		return tensor_ref(v->t);
	if (value_is_number(v))
		return ops_scalar(DT_F64, FLAVOR_TORCH, value_as_double(v));
	if (!is_sequence(v))
		return NULL;
	/* the shape is read down the first items; fill checks the rest */
	int64_t shape[TENSOR_MAX_DIMS], numel = 1;
	int ndim = 0;
	for (const struct value *u = v; is_sequence(u); u = u->n ? u->items[0] : NULL) {
		if (ndim == TENSOR_MAX_DIMS)
			return NULL;
		shape[ndim++] = u->n;
		numel *= u->n;
		if (numel > ANSWER_MAX_ELEMS)
			return NULL;
		if (u->n == 0)
			break;
	}
	struct tensor *t = tensor_new(DT_F64, FLAVOR_TORCH, ndim, shape);
	int64_t at = 0;
	if (!t || !fill(t, v, 0, ndim, shape, &at)) {
		tensor_unref(t);
		return NULL;
	}
	return t;
}

const char *exercise_kind(const struct exercise *x)
{
	return x->predict ? "Predict" : "Exercise";
}

/* The index of flat element i of a tensor of the given shape, as "[r, c]". */
static size_t put_index(char *buf, size_t size, int64_t i, int ndim, const int64_t *shape)
{
	int64_t idx[TENSOR_MAX_DIMS];
	for (int d = ndim - 1; d >= 0; d--) {
		idx[d] = i % shape[d];
		i /= shape[d];
	}
	size_t n = (size_t)snprintf(buf, size, "[");
	for (int d = 0; d < ndim && n < size; d++)
		n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? ", " : "", (long long)idx[d]);
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "]");
	return n;
}

enum verdict exercise_judge(struct interp *ws, const struct exercise *x, const struct value *got, char *msg,
			    size_t size)
{
	struct qkv_error err;
	struct value *wantv = interp_eval(ws, x->answer, strlen(x->answer), &err);
	struct tensor *want = wantv ? answer_tensor(wantv) : NULL;
	struct tensor *g = answer_tensor(got);
	value_unref(wantv);
	if (!want || !g) {
		tensor_unref(want);
		tensor_unref(g);
		return VERDICT_NONE;
	}
	struct answer_check ac;
	answer_compare(g, want, x->tol, &ac);
	if (ac.pass) {
		utf8_snprintf(msg, size, "\u2713 %s: %s", x->predict ? "Predicted right" : "Exercise solved", x->ask);
	} else if (ac.shape_ok && tensor_numel(want) == 1) {
		if (ac.max_diff == floor(ac.max_diff) && ac.max_diff < 1e15)
			snprintf(msg, size, "Not yet: off by %.0f", ac.max_diff);	/* a count or an index */
		else
			snprintf(msg, size, "Not yet: off by %.3g", ac.max_diff);
	} else if (ac.shape_ok) {
		char cells[200] = "";
		size_t n = 0;
		for (int i = 0; i < ac.nlisted && n + 40 < sizeof cells; i++) {
			n += (size_t)snprintf(cells + n, sizeof cells - n, "%s", i ? " " : "");
			n += put_index(cells + n, sizeof cells - n, ac.bad[i], want->ndim, want->shape);
		}
		snprintf(msg, size, "Not yet: %lld cell%s differ (largest by %.3g): %s%s", (long long)ac.nbad,
			 ac.nbad == 1 ? "" : "s", ac.max_diff, cells, ac.nbad > ac.nlisted ? " \u2026" : "");
	} else {
		char gs[96], ws_[96];
		snprintf(msg, size, "Not yet: the answer has shape %s, yours %s",
			 tensor_shape_str(ws_, sizeof ws_, want->ndim, want->shape),
			 tensor_shape_str(gs, sizeof gs, g->ndim, g->shape));
	}
	tensor_unref(want);
	tensor_unref(g);
	return ac.pass ? VERDICT_RIGHT : ac.shape_ok ? VERDICT_NOT_YET : VERDICT_SHAPE;
}
