/* args.h: binding a call's arguments to parameter names, and typed getters
 * that report errors at the argument's own column. Shared by builtins.c and
 * methods.c; not for use outside lang/. */
#ifndef QKV_LANG_ARGS_H
#define QKV_LANG_ARGS_H

#include "lang/runtime.h"

#define ARGS_MAX 12

struct args {
	struct value *v[ARGS_MAX];       /* NULL when not given */
	const struct node *at[ARGS_MAX]; /* where it was given (for messages) */
	int n;                           /* the parameters: v[n..] are never set */
};

/* Binds c's positional and keyword arguments to params (NULL-terminated),
 * the first nreq of which are required. A parameter named "*" collects all
 * remaining positionals into a tuple (for sizes: randn(3, 5)). */
int args_bind(struct call *c, const char *const *params, int nreq, struct args *a, struct qkv_error *err);
/* An error at argument i's column (the call's when it was not given). */
int args_error(struct qkv_error *err, struct call *c, struct args *a, int i, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

int args_not_tensor(struct call *c, struct args *a, int i, struct qkv_error *err);
/* args_bind for a torch function that is a method too (torch.cumsum(input,
 * dim) and x.cumsum(dim)): params and nreq are the method's; the function
 * takes "input" before them. Sets *x to the receiver or the input tensor
 * and returns the index of params[0] in a (0 or 1); -1 with err, a
 * released, when a binding or the input is wrong. */
int args_bind_input(struct call *c, const char *const *params, int nreq, struct args *a, struct tensor **x,
		    struct qkv_error *err);
/* Argument i's tensor into *out, or -1 with err (args_not_tensor) when it
 * is none. Inline: nearly every built-in asks for one. */
static inline int args_tensor(struct call *c, struct args *a, int i, struct tensor **out, struct qkv_error *err)
{
	struct value *v = a->v[i];
	if (v && v->kind == V_TENSOR) {
		*out = v->t;
		return 0;
	}
	args_not_tensor(c, a, i, err);	/* (-1 there too: said here, so the compiler sees *out is set on 0) */
	return -1;
}
int args_int(struct call *c, struct args *a, int i, int64_t def, int64_t *out, struct qkv_error *err);
int args_double(struct call *c, struct args *a, int i, double def, double *out, struct qkv_error *err);
int args_bool(struct call *c, struct args *a, int i, bool def, bool *out, struct qkv_error *err);
/* Into *out the dim d (a Python int, checked before any narrowing, so 2**32
 * is out of range) of a tensor of ndim dims (ndim + 1 where a dim is
 * inserted: unsqueeze, stack), negative counting from the end. The error is
 * torch's ("IndexError: Dimension out of range (expected to be in range of
 * [-3, 2], but got 4)") or numpy's ("AxisError: axis 4 is out of bounds for
 * array of dimension 3"), with no place. */
int args_norm_dim(int64_t d, int ndim, enum flavor fl, int *out, struct qkv_error *err);
/* Argument i as a dim (args_norm_dim), the error at the argument. */
int args_axis(struct call *c, struct args *a, int i, int ndim, enum flavor fl, int *out, struct qkv_error *err);
/* args_axis with torch's message. */
int args_dim(struct call *c, struct args *a, int i, int ndim, int *out, struct qkv_error *err);
/* Argument i as the dims a reduction is over (sum, mean, amax, var, numpy's
 * max...): None or absent (*all), one dim, or (when several may be) a
 * torch tuple or list (empty: *all) or a numpy tuple (empty: none, *n = 0);
 * each normalised, none twice (torch's or numpy's message), into dims[*n]. */
int args_reduce_dims(struct call *c, struct args *a, int i, int ndim, enum flavor fl, bool several, bool *all,
		     int *n, int *dims, struct qkv_error *err);
/* A tuple of dims (permute, numpy's transpose) from the collected "*" tuple:
 * *n of them, each normalised, none twice (torch's or numpy's message). */
int args_dims(struct call *c, struct args *a, int i, int ndim, enum flavor fl, int *n, int *dims,
	      struct qkv_error *err);
/* Fails at argument i unless t holds floats (inline; args_not_float says why). */
int args_not_float(struct call *c, struct args *a, int i, const struct tensor *t, struct qkv_error *err);
static inline int args_need_float(struct call *c, struct args *a, int i, const struct tensor *t,
				  struct qkv_error *err)
{
	return dtype_is_float(t->dtype) ? 0 : args_not_float(c, a, i, t, err);
}
/* A shape from a tuple/list/Size or from the collected "*" tuple of ints. */
int args_shape(struct call *c, struct args *a, int i, int *ndim, int64_t *shape, bool allow_neg1,
	       struct qkv_error *err);
/* An optional dtype argument (torch.float64, np.float32, "float32"). */
int args_dtype(struct call *c, struct args *a, int i, bool *given, enum dtype *out, struct qkv_error *err);

/* Builds a tensor from a nested list/tuple of numbers (or tensors), or a
 * number: torch.tensor / np.array. Floats become default_float, all-int data
 * int64, all-bool data bool, unless dtype is given. */
struct tensor *args_to_tensor(struct call *c, struct args *a, int i, enum flavor fl, bool has_dtype,
			      enum dtype dtype, struct qkv_error *err);
/* Argument i as an operand of an elementwise op (where, maximum, clamp):
 * a tensor, a number, or (numpy) what np.array makes of it, then *made
 * holds the tensor made here (unref it). -1 with err at the argument. */
struct ops_number;
int args_operand(struct call *c, struct args *a, int i, bool numpy, struct operand *o, struct ops_number *box,
		 struct tensor **made, struct qkv_error *err);
/* Argument i as numpy takes an array: a tensor itself (a new reference),
 * or what np.array makes of a list or a number; NULL with err. */
struct tensor *args_array(struct call *c, struct args *a, int i, struct qkv_error *err);
/* The same of v, an item of argument i (an operand of einsum's "*"). */
struct tensor *args_value_to_tensor(struct call *c, struct args *a, int i, struct value *v, enum flavor fl,
				    bool has_dtype, enum dtype dtype, struct qkv_error *err);

/* Ending a built-in: each releases the bound arguments. args_fail returns
 * NULL (err already filled); args_return returns v; args_done turns an op's
 * tensor result into a value (value_from_result), or when it is NULL places
 * the op's error at the call. */
void args_release(struct args *a);
struct value *args_fail(struct args *a);
struct value *args_return(struct args *a, struct value *v);
struct value *args_done(struct call *c, struct args *a, struct tensor *t, struct qkv_error *err);

#endif
