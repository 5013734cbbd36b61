/* format.h: printing values exactly as the notebooks show them.
 * torch tensors print as torch 1.13's repr (by default precision 4, sci_mode
 * switching, threshold 1000 with edgeitems 3, linewidth 80); numpy arrays as
 * numpy 1.24's repr (array(...), by default precision 8, dragon4 shortest
 * digits, linewidth 75) and str (print(arr)); Python floats as Python's repr.
 * Appends to a strbuf; the only state is which print options are in use. */
#ifndef QKV_CORE_FORMAT_H
#define QKV_CORE_FORMAT_H

#include "core/strbuf.h"
#include "core/tensor.h"

/* How tensors and arrays print: torch's PRINT_OPTS (torch.set_printoptions)
 * and numpy's print options (np.set_printoptions). format_defaults holds
 * the libraries' defaults. */
enum np_floatmode { NP_MAXPREC, NP_MAXPREC_EQUAL, NP_UNIQUE, NP_FIXED };
struct print_options {
	struct torch_print_options {
		int precision, edgeitems, linewidth;
		double threshold;	/* summarized past this many elements (may be inf) */
		int sci_mode;		/* -1: chosen per tensor (None); 0 or 1: forced */
	} torch;
	struct np_print_options {
		int precision, edgeitems, linewidth;
		double threshold;
		bool suppress;
		enum np_floatmode floatmode;
		char sign;		/* '-', '+' or ' ' */
	} np;
};
extern const struct print_options format_defaults;
/* Makes the functions below follow o (never NULL) until the next call, and
 * returns the options they followed until now. An interpreter installs its
 * own while its statements run. Not thread-safe: values are shown from one
 * thread. */
const struct print_options *format_use_options(const struct print_options *o);

/* What a notebook shows for a bare expression: torch `tensor(...)` (with
 * `dtype=torch.float64` etc. when not a default dtype) or numpy `array(...)`. */
void format_repr(struct strbuf *out, const struct tensor *t);
/* An nn.Parameter (a Linear's weight or bias) as torch shows it:
 * "Parameter containing:\ntensor(..., requires_grad=True)". Torch tensors
 * end with ", grad_fn=<NAME>" or ", requires_grad=True" from t->grad, on a
 * new line when the last one is long, as torch's _add_suffixes does. */
void format_repr_parameter(struct strbuf *out, const struct tensor *t);
/* What print(x) shows: numpy's str ("[1. 2.]") for numpy arrays; for torch
 * tensors the same text as format_repr. */
void format_str(struct strbuf *out, const struct tensor *t);
/* Python's repr(float): shortest digits that round-trip, e.g. 1.7320508075688772,
 * 2.0, 1e-05, 1e+16, inf, -inf, nan. */
void format_py_float(struct strbuf *out, double v);
/* Shortest decimal text that reads back to the same value in the dtype
 * (float32 or float64), for JSON; "inf"/"-inf"/"nan" for non-finite. */
void format_shortest(struct strbuf *out, double v, enum dtype dt);
/* Python's format(value, spec) for a float, for f-strings: supports
 * [fill/align][sign][width][,][.precision][type] with types f F e E g G % and
 * none; returns -1 for a spec it does not understand. */
int format_py_float_spec(struct strbuf *out, double v, const char *spec);
int format_py_int_spec(struct strbuf *out, int64_t v, const char *spec);

#endif
