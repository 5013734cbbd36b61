/* printopts.c: torch.set_printoptions, np.set_printoptions and
 * np.get_printoptions. They set the interpreter's print options (struct
 * print_options in core/format.h, which the printing follows while the
 * interpreter's statements run) as torch 1.13 and numpy 1.24 set theirs: a
 * torch call resets sci_mode to what it is given (None when not), and a
 * profile names a set of defaults the other arguments then change; a numpy
 * call changes only what it is given. A wrong argument is refused in the
 * library's words where it checks, and where it would only fail at the next
 * print (a negative precision), refused at once. Options qkv does not follow
 * (a formatter, nanstr, legacy printing) are refused, never ignored. A
 * failing statement puts the options back with the rest of its state
 * (exec.c). Called through builtins.c's table; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <math.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* numpy's precision is rounded by Dragon4 to at most this many digits after
 * the point (core/format.c holds 64 significant digits) */
#define NP_PRECISION_MAX 50

static bool given(const struct args *a, int i)
{
	return a->v[i] && a->v[i]->kind != V_NONE;
}

/* Argument i, an integer between lo and hi, into *out; the messages name
 * the option as numpy's do ("precision must be an integer", "... >= 0"). */
static int option_int(struct call *c, struct args *a, int i, const char *name, int64_t lo, int64_t hi, int *out,
		      struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (v->kind != V_INT && v->kind != V_BOOL)
		return args_error(err, c, a, i, "TypeError: %s must be an integer", name);
	int64_t n = v->kind == V_INT ? v->i : v->b;
	if (n < lo)
		return args_error(err, c, a, i, "ValueError: %s must be >= %lld", name, (long long)lo);
	if (n > hi)
		return args_error(err, c, a, i, "ValueError: qkv takes %s up to %lld, not %lld", name, (long long)hi,
				  (long long)n);
	*out = (int)n;
	return 0;
}

/* A threshold: any real number (inf: never summarize); NaN refused. */
static int option_threshold(struct call *c, struct args *a, int i, double *out, struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (v->kind != V_INT && v->kind != V_BOOL && v->kind != V_FLOAT)
		return args_error(err, c, a, i, "TypeError: threshold must be numeric");
	double x = v->kind == V_INT ? (double)v->i : v->kind == V_BOOL ? v->b : v->f;
	if (isnan(x))
		return args_error(err, c, a, i,
				  "ValueError: threshold must be non-NAN, try sys.maxsize for untruncated representation");
	*out = x;
	return 0;
}

static struct value *set_torch(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("precision", "threshold", "edgeitems", "linewidth", "profile", "sci_mode"), 0, &a, err) < 0)
		return NULL;
	struct print_options o = c->I->g.print;
	if (given(&a, 4) && a.v[4]->kind == V_STR) {	/* torch ignores any other profile */
		const char *p = a.v[4]->str;
		if (strcmp(p, "default") == 0 || strcmp(p, "short") == 0 || strcmp(p, "full") == 0) {
			bool shrt = strcmp(p, "short") == 0;
			o.torch.precision = shrt ? 2 : format_defaults.torch.precision;
			o.torch.threshold = strcmp(p, "full") == 0 ? INFINITY : format_defaults.torch.threshold;
			o.torch.edgeitems = shrt ? 2 : format_defaults.torch.edgeitems;
			o.torch.linewidth = format_defaults.torch.linewidth;
		}
	}
	if ((given(&a, 0) && option_int(c, &a, 0, "precision", 0, 1000, &o.torch.precision, err) < 0) ||
	    (given(&a, 1) && option_threshold(c, &a, 1, &o.torch.threshold, err) < 0) ||
	    (given(&a, 2) && option_int(c, &a, 2, "edgeitems", 1, 1 << 20, &o.torch.edgeitems, err) < 0) ||
	    (given(&a, 3) && option_int(c, &a, 3, "linewidth", -(1 << 20), 1 << 20, &o.torch.linewidth, err) < 0))
		return args_fail(&a);
	o.torch.sci_mode = -1;
	if (given(&a, 5)) {
		if (a.v[5]->kind != V_BOOL)
			return args_error(err, c, &a, 5, "TypeError: sci_mode must be True, False or None, not %s",
					  value_type_name(a.v[5])),
			       args_fail(&a);
		o.torch.sci_mode = a.v[5]->b;
	}
	c->I->g.print = o;
	return args_return(&a, value_none());
}

static const char *const floatmodes[] = { [NP_MAXPREC] = "maxprec", [NP_MAXPREC_EQUAL] = "maxprec_equal",
					  [NP_UNIQUE] = "unique", [NP_FIXED] = "fixed" };

/* rc (-1) after releasing a's arguments */
static int refuse(struct args *a, int rc)
{
	args_release(a);
	return rc;
}

/* np.set_printoptions's arguments, as they change the options in *out
 * (numpy's in use when called): -1 with err, *out unchanged, on a wrong one. */
static int numpy_options(struct call *c, struct np_print_options *out, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("precision", "threshold", "edgeitems", "linewidth", "suppress", "nanstr", "infstr",
			   "formatter", "sign", "floatmode", "legacy"), 0, &a, err) < 0)
		return -1;
	struct np_print_options o = *out;
	if (given(&a, 9)) {
		const struct value *m = a.v[9];
		int i = 0;
		while (i < 4 && !(m->kind == V_STR && strcmp(m->str, floatmodes[i]) == 0))
			i++;
		if (i == 4)
			return refuse(&a, args_error(err, c, &a, 9, "ValueError: floatmode option must be one of "
								     "\"fixed\", \"unique\", \"maxprec\", \"maxprec_equal\""));
		o.floatmode = (enum np_floatmode)i;
	}
	if (given(&a, 8)) {
		const struct value *s = a.v[8];
		if (s->kind != V_STR || strlen(s->str) != 1 || !strchr("-+ ", s->str[0]))
			return refuse(&a, args_error(err, c, &a, 8,
						     "ValueError: sign option must be one of ' ', '+', or '-'"));
		o.sign = s->str[0];
	}
	if (given(&a, 10) && !(a.v[10]->kind == V_BOOL && !a.v[10]->b))
		return refuse(&a, args_error(err, c, &a, 10,
					     "qkv prints as numpy 1.24 does: legacy printing is not supported"));
	if (given(&a, 7))
		return refuse(&a, args_error(err, c, &a, 7,
					     "qkv does not support a formatter: it prints numbers as numpy does"));
	for (int i = 5; i <= 6; i++)
		if (given(&a, i) && !(a.v[i]->kind == V_STR && strcmp(a.v[i]->str, i == 5 ? "nan" : "inf") == 0))
			return refuse(&a, args_error(err, c, &a, i, "qkv prints nan and inf as they are: %s is not supported",
						     i == 5 ? "nanstr" : "infstr"));
	if ((given(&a, 1) && option_threshold(c, &a, 1, &o.threshold, err) < 0) ||
	    (given(&a, 0) && option_int(c, &a, 0, "precision", 0, NP_PRECISION_MAX, &o.precision, err) < 0) ||
	    (given(&a, 2) && option_int(c, &a, 2, "edgeitems", 0, 1 << 20, &o.edgeitems, err) < 0) ||
	    (given(&a, 3) && option_int(c, &a, 3, "linewidth", -(1 << 20), 1 << 20, &o.linewidth, err) < 0))
		return refuse(&a, -1);
	if (given(&a, 4)) {
		int t = value_truth(a.v[4], err);
		if (t < 0)	/* (at the argument) */
			return refuse(&a, args_error(err, c, &a, 4, "%s", err->msg));
		o.suppress = t != 0;
	}
	*out = o;
	args_release(&a);
	return 0;
}

static struct value *set_numpy(struct call *c, struct qkv_error *err)
{
	return numpy_options(c, &c->I->g.print.np, err) < 0 ? NULL : value_none();
}

/* np.printoptions(...): the options it gives, for the `with` statement it
 * heads (exec.c) to set and put back. */
static struct value *numpy_printoptions(struct call *c, struct qkv_error *err)
{
	struct np_print_options o = c->I->g.print.np;
	if (numpy_options(c, &o, err) < 0)
		return NULL;
	c->I->with_np_print = o;
	return value_named(V_FUNC, "numpy.printoptions");
}

/* A threshold as numpy gives it back: an int when it is one. */
static struct value *threshold_value(double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) < 9.2e18)
		return value_int((int64_t)x);
	return value_float(x);
}

struct value *printopts_numpy_dict(const struct np_print_options *o)
{
	char sign[2] = { o->sign, 0 };
	struct value *d = value_dict();
	value_dict_set_str(d, "edgeitems", value_int(o->edgeitems));
	value_dict_set_str(d, "threshold", threshold_value(o->threshold));
	value_dict_set_str(d, "floatmode", value_str(floatmodes[o->floatmode]));
	value_dict_set_str(d, "precision", value_int(o->precision));
	value_dict_set_str(d, "suppress", value_bool(o->suppress));
	value_dict_set_str(d, "linewidth", value_int(o->linewidth));
	value_dict_set_str(d, "nanstr", value_str("nan"));
	value_dict_set_str(d, "infstr", value_str("inf"));
	value_dict_set_str(d, "sign", value_str(sign));
	value_dict_set_str(d, "formatter", value_none());
	value_dict_set_str(d, "legacy", value_bool(false));
	return d;
}

static struct value *get_numpy(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_return(&a, printopts_numpy_dict(&c->I->g.print.np));
}

const struct builtin printopts_functions[] = {
	{ "torch.set_printoptions", set_torch },
	{ "numpy.set_printoptions", set_numpy },
	{ "numpy.get_printoptions", get_numpy },
	{ "numpy.printoptions", numpy_printoptions },
	{ NULL, NULL },
};
