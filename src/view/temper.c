/* temper.c: the temperature knob's what-if tensors (see temper.h), for the
 * lesson screen's heatmaps, token views and inspector. Reads a tensor's
 * derivation; never changes the tensors it is given. */
#include "view/temper.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>

enum temper_kind temper_kind_of(const struct tensor *t)
{
	const struct derivation *d = t ? t->from : NULL;
	if (!d || t->ndim < 1)
		return TEMPER_NONE;
	if (d->kind == DERIV_SOFTMAX && d->a && tensor_same_shape(d->a, t) &&
	    (d->dim == -1 || d->dim == t->ndim - 1))
		return TEMPER_WEIGHTS;
	if (d->kind == DERIV_MATMUL || d->kind == DERIV_SCALE || d->kind == DERIV_MASKED_FILL)
		return dtype_is_float(t->dtype) ? TEMPER_SCORES : TEMPER_NONE;
	return TEMPER_NONE;
}

struct tensor *temper_apply(const struct tensor *t, double factor)
{
	enum temper_kind kind = temper_kind_of(t);
	if (kind == TEMPER_NONE || !(factor > 0) || !isfinite(factor))
		return NULL;
	struct tensor *out = tensor_new(DT_F64, FLAVOR_TORCH, t->ndim, t->shape);
	double *o = out->storage->data;
	int64_t n = tensor_numel(t);
	if (kind == TEMPER_SCORES) {
		for (int64_t i = 0; i < n; i++)
			o[i] = factor * tensor_get(t, i);
		return out;
	}
	/* softmax along the last dimension of factor · scores, row by row */
	const struct tensor *s = t->from->a;
	int64_t cols = t->shape[t->ndim - 1];
	for (int64_t r = 0; cols > 0 && r < n / cols; r++) {
		double max = -INFINITY, sum = 0;
		for (int64_t j = 0; j < cols; j++) {
			double v = factor * tensor_get(s, r * cols + j);
			o[r * cols + j] = v;
			max = v > max || isnan(v) ? v : max;
		}
		for (int64_t j = 0; j < cols; j++) {
			double e = exp(o[r * cols + j] - max);	/* an all -inf row: NaN, as torch gives */
			o[r * cols + j] = e;
			sum += e;
		}
		for (int64_t j = 0; j < cols; j++)
			o[r * cols + j] /= sum;
	}
	return out;
}

double temper_entropy(const struct tensor *w, int64_t first, int64_t n)
{
	double h = 0;
	for (int64_t j = 0; j < n; j++) {
		double p = tensor_get(w, first + j);
		if (!(p >= 0))
			return NAN;
		if (p > 0)
			h -= p * log(p);
	}
	return h;
}

void temper_label(char *buf, size_t size, int exp)
{
	if (exp >= 0)
		snprintf(buf, size, "\u00d7%lld", 1LL << (exp > 40 ? 40 : exp));
	else
		snprintf(buf, size, "\u00f7%lld", 1LL << (-exp > 40 ? 40 : -exp));
}

void temper_inspect(struct strbuf *out, const struct tensor *orig, const struct tensor *tempered, const char *name,
		    int64_t flat, int exp)
{
	char f[16];
	temper_label(f, sizeof f, exp);
	int64_t cols = tempered->shape[tempered->ndim - 1];
	int64_t rows = tempered->ndim >= 2 ? tempered->shape[tempered->ndim - 2] : 1;
	int64_t first = flat - flat % cols, r = (flat / cols) % rows, c = flat % cols;
	strbuf_printf(out, "%s[%lld, %lld] = %.6g with the scores %s (the lesson's own: %.6g)", name, (long long)r,
		      (long long)c, tensor_get(tempered, flat), f, tensor_get(orig, flat));
	double h = temper_entropy(tempered, first, cols), h1 = temper_entropy(orig, first, cols);
	if (!isnan(h))
		strbuf_printf(out, "\nentropy of row %lld: %.3f nats %s, %.3f at \u00d71 (at most ln %lld = %.3f)",
			      (long long)r, h, f, h1, (long long)cols, log((double)cols));
}
