/* losses.c: F.cross_entropy(input, target, ...) and F.nll_loss(input,
 * target, ...) for class indices: input (N, C) or (C,), target (N,) or a
 * 0-d index, reduction 'mean', 'sum' or 'none', ignore_index. The loss of
 * sample b is -logp[b][target[b]] (cross_entropy takes logp =
 * log_softmax(input, dim 1) first), summed as torch 1.13's CPU kernel sums
 * them: in the input's type, into eight cascaded partial sums, then those
 * in order; the mean divides by the samples not ignored. Class
 * probabilities as the target, weight= and label_smoothing= are refused
 * with a message. Called through builtins.c's table; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

enum reduction { RED_NONE, RED_MEAN, RED_SUM };

/* torch's utils::CeilLog2: the smallest k with 2^k >= x (0 for x <= 1) */
static int ceil_log2(int64_t x)
{
	int k = 0;
	while (k < 63 && ((int64_t)1 << k) < x)
		k++;
	return k;
}

/* v rounded to the tensor's type: a float32 sum or quotient computed in
 * double and rounded once is the float32 operation's own result (double
 * holds over twice float's digits) */
static double in_type(double v, bool f32)
{
	return f32 ? (double)(float)v : v;
}

/* The losses of logp (batch rows of classes, contiguous floats or
 * doubles) at target, reduced into out (one element, or batch for
 * RED_NONE, an ignored sample's 0). -1 with *bad the first target out of
 * range. */
static int nll(struct tensor *out, const struct tensor *logp, const int64_t *target, int64_t batch, int64_t classes,
	       int64_t ignore, enum reduction red, int64_t *bad)
{
	enum { LEVELS = 8 };
	bool f32 = logp->dtype == DT_F32;
	int power = ceil_log2(batch) / LEVELS > 4 ? ceil_log2(batch) / LEVELS : 4;
	int64_t mask = ((int64_t)1 << power) - 1, ignored = 0;
	double part[LEVELS] = { 0 };
	for (int64_t b = 0; b < batch; b++) {
		int64_t k = target[b];
		if (k == ignore) {
			ignored++;
			if (red == RED_NONE)
				tensor_set(out, b, 0);
			continue;
		}
		if (k < 0 || k >= classes) {
			*bad = k;
			return -1;
		}
		double v = tensor_get(logp, b * classes + k);
		if (red == RED_NONE) {
			tensor_set(out, b, -v);
			continue;
		}
		part[0] = in_type(part[0] - v, f32);
		for (int j = 0; j + 1 < LEVELS && (b & (mask << (j * power))) == 0; j++) {	/* the cascade */
			part[j + 1] = in_type(part[j + 1] + part[j], f32);
			part[j] = 0;
		}
	}
	if (red != RED_NONE) {
		double sum = 0;
		for (int j = 0; j < LEVELS; j++)
			sum = in_type(sum + part[j], f32);
		tensor_set(out, 0, red == RED_MEAN ? in_type(sum / (double)(batch - ignored), f32) : sum);
	}
	return 0;
}

/* F.cross_entropy (log_softmax first) and F.nll_loss (input already log-probabilities) */
static struct value *loss(struct call *c, bool softmax, struct qkv_error *err)
{
	struct args a;
	const char *const *params = softmax ? P("input", "target", "weight", "size_average", "ignore_index", "reduce",
						"reduction", "label_smoothing")
					    : P("input", "target", "weight", "size_average", "ignore_index", "reduce",
						"reduction");
	if (args_bind(c, params, 2, &a, err) < 0)
		return NULL;
	struct tensor *x, *t;
	int64_t ignore;
	double smoothing;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_tensor(c, &a, 1, &t, err) < 0 ||
	    args_int(c, &a, 4, -100, &ignore, err) < 0 || (softmax && args_double(c, &a, 7, 0, &smoothing, err) < 0))
		return args_fail(&a);
	for (int i = 2; i <= 5; i++)
		if (i != 4 && a.v[i] && a.v[i]->kind != V_NONE)
			return args_error(err, c, &a, i, "%s(): qkv takes no %s= (reduction= says how to reduce)", c->name,
					  params[i]), args_fail(&a);
	if (softmax && smoothing != 0)
		return args_error(err, c, &a, 7, "%s(): qkv has no label_smoothing", c->name), args_fail(&a);
	enum reduction red = RED_MEAN;
	const struct value *rv = a.v[6];
	if (rv && rv->kind != V_STR)
		return args_error(err, c, &a, 6, "%s(): reduction must be 'mean', 'sum' or 'none', not %s", c->name,
				  value_type_name(rv)), args_fail(&a);
	if (rv && strcmp(rv->str, "none") == 0)
		red = RED_NONE;
	else if (rv && strcmp(rv->str, "sum") == 0)
		red = RED_SUM;
	else if (rv && strcmp(rv->str, "mean") != 0)
		return args_error(err, c, &a, 6, "ValueError: %s is not a valid value for reduction", rv->str),
		       args_fail(&a);
	if (!dtype_is_float(x->dtype))
		return args_error(err, c, &a, 0, "%s(): the input must hold floats (scores, or log-probabilities), "
				  "not %s", c->name, dtype_name(x->dtype)), args_fail(&a);
	if (x->ndim != 1 && x->ndim != 2)
		return args_error(err, c, &a, 0, "%s(): qkv takes an input of (N, C) or (C,) scores, not %d dims",
				  c->name, x->ndim), args_fail(&a);
	if (softmax && dtype_is_float(t->dtype) && t->ndim == x->ndim)
		return args_error(err, c, &a, 1, "%s(): qkv takes class indices as the target, not probabilities",
				  c->name), args_fail(&a);
	if (t->dtype != DT_I64)
		return args_error(err, c, &a, 1, "RuntimeError: expected scalar type Long but found %s",
				  t->dtype == DT_F32 ? "Float" : t->dtype == DT_F64 ? "Double" : "Bool"), args_fail(&a);
	int64_t batch = x->ndim == 2 ? x->shape[0] : 1, classes = x->shape[x->ndim - 1];
	if (x->ndim == 2 && (t->ndim != 1 || t->shape[0] != batch))
		return args_error(err, c, &a, 1, "ValueError: Expected input batch_size (%lld) to match target "
				  "batch_size (%lld).", (long long)batch, (long long)(t->ndim ? t->shape[0] : 1)),
		       args_fail(&a);
	if (x->ndim == 1 && t->ndim != 0)
		return args_error(err, c, &a, 1, "%s(): a (C,) input takes a 0-d target, not %d dims", c->name,
				  t->ndim), args_fail(&a);
	struct tensor *logp = softmax ? ops_log_softmax(x, x->ndim - 1, err) : ops_contiguous(x);
	if (!logp)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	struct tensor *tc = ops_contiguous(t);
	int64_t shape[1] = { batch };
	struct tensor *out = tensor_new(x->dtype, x->flavor, red == RED_NONE && x->ndim == 2, shape);
	int64_t bad = 0;
	int rc = nll(out, logp, tensor_data(tc), batch, classes, ignore, red == RED_NONE && x->ndim == 1 ? RED_SUM : red,
		     &bad);
	tensor_unref(logp);
	tensor_unref(tc);
	if (rc < 0) {
		tensor_unref(out);
		return args_error(err, c, &a, 1, "IndexError: Target %lld is out of bounds.", (long long)bad),
		       args_fail(&a);
	}
	return args_done(c, &a, out, err);
}

static struct value *cross_entropy(struct call *c, struct qkv_error *err) { return loss(c, true, err); }
static struct value *nll_loss(struct call *c, struct qkv_error *err) { return loss(c, false, err); }

const struct builtin losses_functions[] = {
	{ "torch.nn.functional.cross_entropy", cross_entropy }, { "torch.nn.functional.nll_loss", nll_loss },
	{ NULL, NULL },
};
