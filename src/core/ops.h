/* ops.h: operations on whole tensors, with PyTorch's (and numpy's) rules for
 * shapes, broadcasting, dims and dtype promotion. Each op checks its inputs,
 * allocates its result and calls a kernel (kernel/kernel.h) of the variant the
 * context selects. Recoverable errors return NULL (or -1) and fill err with a
 * message that names the shapes involved; err's line/col stay 0 for the
 * caller (the evaluator) to fill in. Results are new references. A matmul,
 * softmax or attention whose kernels Ctrl-C stopped (kernel.h's kernel_ctl)
 * fails with "interrupted (Ctrl-C)". */
#ifndef QKV_CORE_OPS_H
#define QKV_CORE_OPS_H

#include "core/error.h"
#include "core/mem.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "kernel/kernel.h"

#include <stddef.h>

#define OPS_DEFAULT_MAX_ELEMS (64LL * 1024 * 1024)  /* 256 MB of float32: 002's GPT-2 scores fit */

struct ops_ctx {
	enum kernel_variant variant;
	int64_t max_elems;          /* elements allowed in one tensor */
};

/* ctx on variant, its limit the process's (OPS_DEFAULT_MAX_ELEMS unless set). */
void ops_ctx_init(struct ops_ctx *ctx, enum kernel_variant variant);
/* The limit every ops_ctx made from now on starts with (QKV_MAX_ELEMS, read
 * once by main.c before anything runs): n > 0, at most TENSOR_MAX_NUMEL. */
void ops_set_max_elems(int64_t n);

/* An operand of a binary op: a tensor, or a Python number wrapped as a 0-d
 * tensor (scalar = true), which takes part in dtype promotion the way torch's
 * wrapped numbers do (x_f32 * 0.5 stays float32). */
struct operand {
	struct tensor *t;
	bool scalar;
};

/* A number as a 0-d tensor on the stack, its storage and bytes inside: an
 * operator's Python number, or one converted to the compute dtype, made per
 * operation without an allocation. Its references never reach 0. */
struct ops_number {
	struct tensor t;
	struct storage st;
	_Alignas(16) unsigned char bytes[8];	/* (t and st: whole 16-byte blocks, for mem_zero16) */
};

/* n as a 0-d tensor of dtype dt and flavor fl whose bytes the caller then
 * writes; returns &n->t. */
static inline struct tensor *ops_number_init(struct ops_number *n, enum dtype dt, enum flavor fl)
{
	_Static_assert(offsetof(struct ops_number, bytes) % 16 == 0, "a number's tensor is not whole blocks");
	mem_zero16(n, offsetof(struct ops_number, bytes));	/* (a number per operator: no memset) */
	n->st.refs = 1;
	n->st.nbytes = dtype_size(dt);
	n->st.data = n->bytes;
	n->t.refs = 1;
	n->t.dtype = dt;
	n->t.flavor = fl;
	n->t.storage = &n->st;
	return &n->t;
}

/* Returns 0 when a tensor of this shape is allowed, else -1 with a message. */
int ops_check_shape(const struct ops_ctx *ctx, int ndim, const int64_t *shape, struct qkv_error *err);
struct tensor *ops_new(const struct ops_ctx *ctx, enum dtype dt, enum flavor fl, int ndim,
		       const int64_t *shape, struct qkv_error *err);
struct tensor *ops_full(const struct ops_ctx *ctx, enum dtype dt, enum flavor fl, int ndim,
			const int64_t *shape, double value, struct qkv_error *err);
struct tensor *ops_scalar(enum dtype dt, enum flavor fl, double value);

/* A contiguous tensor with t's values: t itself (a new reference) when it is
 * already contiguous, else a copy. */
struct tensor *ops_contiguous(struct tensor *t);
struct tensor *ops_clone(const struct tensor *t);
/* A copy converted to dtype (a new reference to t when it already has it). */
struct tensor *ops_to_dtype(struct tensor *t, enum dtype dt);
/* Normalises a possibly negative dim for a tensor of ndim dims; -1 on error. */
int ops_norm_dim(int64_t dim, int ndim, struct qkv_error *err);

/* ---- views: share storage, never copy -------------------------------------- */
/* shape may contain one -1. Fails, as torch does, when the strides make the
 * view impossible without a copy. */
struct tensor *ops_view(const struct ops_ctx *ctx, struct tensor *t, int ndim, const int64_t *shape,
		       struct qkv_error *err);
/* view when possible, else a contiguous copy reshaped */
struct tensor *ops_reshape(const struct ops_ctx *ctx, struct tensor *t, int ndim, const int64_t *shape,
			  struct qkv_error *err);
struct tensor *ops_transpose(struct tensor *t, int d0, int d1, struct qkv_error *err);
struct tensor *ops_permute(struct tensor *t, const int *perm, int n, struct qkv_error *err);
/* .T: reverses all dims (the identity on 0-d and 1-d) */
struct tensor *ops_reverse_dims(struct tensor *t);
/* x.select(dim, i): removes dim; i may be negative. */
struct tensor *ops_select(struct tensor *t, int dim, int64_t index, struct qkv_error *err);
/* t[..., idx, ...] with a list of n indices along dim (negative ones count
 * from the end), as torch's index_select: a new tensor whose dim has n
 * entries, copied. An index out of range is an error. */
struct tensor *ops_index_select(struct tensor *t, int dim, const int64_t *idx, int64_t n, struct qkv_error *err);
/* Python slice start:stop:step on dim; has_* false means omitted. step > 0. */
struct tensor *ops_slice(struct tensor *t, int dim, bool has_start, int64_t start, bool has_stop,
			 int64_t stop, int64_t step, struct qkv_error *err);
struct tensor *ops_unsqueeze(struct tensor *t, int dim, struct qkv_error *err);
/* Broadcast view of t to shape (stride 0 on expanded dims). */
struct tensor *ops_expand(struct tensor *t, int ndim, const int64_t *shape, struct qkv_error *err);

/* ---- elementwise ------------------------------------------------------------ */
/* Broadcast shape of a and b into shape (ndim dims); -1 with a message
 * naming both shapes when they do not broadcast, or as ops_check_shape when
 * the result would be too large. */
int ops_broadcast_shape(const struct ops_ctx *ctx, const struct tensor *a, const struct tensor *b, int *ndim,
			int64_t *shape, const char *what, struct qkv_error *err);
struct tensor *ops_binary(const struct ops_ctx *ctx, struct operand a, struct operand b,
			  enum ew_op op, struct qkv_error *err);
struct tensor *ops_compare(const struct ops_ctx *ctx, struct operand a, struct operand b,
			   enum cmp_op op, struct qkv_error *err);
/* Elementwise &, | or ^ (op) of bool or integer tensors, as torch.bitwise_and,
 * _or, _xor and numpy's ufuncs, or the shifts << ('<') and >> ('>') of
 * integers (bools promoted): float operands are refused in their words. */
struct tensor *ops_logical(const struct ops_ctx *ctx, struct operand a, struct operand b, char op,
			   struct qkv_error *err);
struct tensor *ops_unary(const struct ops_ctx *ctx, struct tensor *a, enum ew_unary op,
			 struct qkv_error *err);
/* torch.round(a, decimals=d) and np.round(a, d): each element times 10**d
 * (divided by 10**-d for d < 0), rounded half to even and divided back, in
 * a's own float type as both compute it; integers are a copy for d >= 0
 * (torch refuses them with decimals), numpy's rounded in double for d < 0;
 * bools refused, in torch's words or numpy's. */
struct tensor *ops_round(struct tensor *a, int64_t decimals, bool has_decimals, struct qkv_error *err);
/* torch.where / np.where(cond, a, b): each element of a where cond holds
 * (numpy: is not zero), else of b, the three broadcast, a and b promoted
 * as an operator promotes them; the result of flavour fl. */
struct tensor *ops_where(const struct ops_ctx *ctx, struct tensor *cond, struct operand a, struct operand b,
			 enum flavor fl, struct qkv_error *err);
/* ~: not of a bool tensor, the bits inverted of an integer one; floats are
 * refused in the library's words. */
struct tensor *ops_logical_not(const struct ops_ctx *ctx, struct tensor *a, struct qkv_error *err);

/* ---- the attention building blocks ------------------------------------------- */
/* torch.matmul / numpy @: 1-D and batched cases, batch dims broadcast. */
struct tensor *ops_matmul(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
			  struct qkv_error *err);
/* torch.bmm: both 3-D with equal batch */
struct tensor *ops_bmm(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
		       struct qkv_error *err);
/* torch.dot: two 1-D tensors of equal length, result 0-d */
struct tensor *ops_dot(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
		       struct qkv_error *err);
/* softmax along dim (negative allowed); float tensors only. */
struct tensor *ops_softmax(const struct ops_ctx *ctx, struct tensor *t, int dim,
			   struct qkv_error *err);
/* softmax over all elements (scipy's axis=None) */
struct tensor *ops_softmax_all(const struct ops_ctx *ctx, struct tensor *t, struct qkv_error *err);
/* log_softmax along dim: x - (max + log(sum(exp(x - max)))) of each row,
 * as torch computes it in the tensor's type (the sum in double); a row of
 * -inf or with a NaN is NaN, as torch's. */
struct tensor *ops_log_softmax(struct tensor *t, int dim, struct qkv_error *err);
/* torch's layer_norm of x over its last ndims dims, which must be shape
 * (torch's message otherwise), with w and b (of shape; NULL: none) and eps,
 * in torch's order of operations (ops_norm.c). */
struct tensor *ops_layer_norm(struct tensor *x, int ndims, const int64_t *shape, const struct tensor *w,
			      const struct tensor *b, double eps, struct qkv_error *err);
/* x tiled reps[i] times along each of nd dims (nd >= x's; new dims in
 * front): torch's x.repeat, np.tile. (ops_repeat.c) */
struct tensor *ops_tile(const struct ops_ctx *ctx, struct tensor *x, int nd, const int64_t *reps,
			struct qkv_error *err);
/* x with the order of the n distinct dims given (from 0) reversed, a copy:
 * torch.flip, np.flip. (ops_repeat.c) */
struct tensor *ops_flip(struct tensor *x, int n, const int *dims);
/* out[i][j]... = x[..., index[i][j]..., ...] along dim, out of index's
 * shape (an int64 tensor of x's dims, no longer than x's but along dim):
 * torch.gather, with its errors. (ops_repeat.c) */
struct tensor *ops_gather(struct tensor *x, int dim, struct tensor *index, struct qkv_error *err);
/* x placed at offset before[d] (negative: cropped) in a tensor of shape
 * filled with value: F.pad's constant mode, the widths checked by the
 * caller. (ops_repeat.c) */
struct tensor *ops_pad(const struct ops_ctx *ctx, struct tensor *x, const int64_t *before, const int64_t *shape,
		       double value, struct qkv_error *err);
/* Each index i of x's dim repeated counts[i] times in place (counts[0] for
 * all when ncounts is 1): np.repeat, torch.repeat_interleave. */
struct tensor *ops_repeat_each(const struct ops_ctx *ctx, struct tensor *x, int dim, const int64_t *counts,
			       int64_t ncounts, struct qkv_error *err);
/* torch's p-norm (p 0, 1, 2, inf or -inf) over the ndims dims given (from 0;
 * none: every dim), keepdim as in torch: the 2-norm of the innermost dims of
 * a contiguous tensor in its vectorised order, the rest one by one, each in
 * the tensor's type as torch's kernels compute them (ops_norm.c). */
struct tensor *ops_vector_norm(const struct ops_ctx *ctx, struct tensor *t, double p, int ndims, const int *dims,
			       bool keepdim, struct qkv_error *err);
/* where mask (bool, broadcastable to t) is true, value. In place writes into
 * t's storage (t keeps its shape; mask must broadcast to t's shape). */
struct tensor *ops_masked_fill(const struct ops_ctx *ctx, struct tensor *t, struct tensor *mask,
			       double value, struct qkv_error *err);
int ops_masked_fill_(const struct ops_ctx *ctx, struct tensor *t, struct tensor *mask,
		     double value, struct qkv_error *err);
/* torch.tril / torch.triu on the last two dims */
struct tensor *ops_tri(const struct ops_ctx *ctx, struct tensor *t, int64_t diagonal, bool upper,
		       struct qkv_error *err);
/* Fused scores -> scale -> mask -> softmax -> weighted sum over the last two
 * dims of q (...,tq,d), k (...,tk,d), v (...,tk,dv); leading dims must match.
 * mask: NULL or bool broadcastable to (tq,tk), true = masked. When weights_out
 * is not NULL it receives the (...,tq,tk) weights. */
struct tensor *ops_attention(const struct ops_ctx *ctx, struct tensor *q, struct tensor *k,
			     struct tensor *v, struct tensor *mask, bool causal, double scale,
			     struct tensor **weights_out, struct qkv_error *err);
/* nn.Dropout(p) in training mode: keeps each element with probability 1-p
 * (drawn from g like torch's bernoulli_) and scales kept ones by 1/(1-p). */
struct tensor *ops_dropout(const struct ops_ctx *ctx, struct tensor *t, double p,
			   struct torch_gen *g, struct qkv_error *err);

/* ---- reductions and joins ---------------------------------------------------- */
/* ARGMAX / ARGMIN: int64 indices of the first largest (smallest) element, a
 * NaN counting as both, as in torch and NumPy; an empty reduction is an
 * error, as for MAX and MIN. PROD multiplies in index order, floats in
 * their own type, integers and bools as int64 (wrapping, as both do); an
 * empty product is 1. */
enum reduce_op { REDUCE_SUM, REDUCE_MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_ARGMAX, REDUCE_ARGMIN, REDUCE_PROD };
/* Over dim (all dims when all is true); keepdim as in torch. */
struct tensor *ops_reduce(const struct ops_ctx *ctx, struct tensor *t, bool all, int dim,
			  bool keepdim, enum reduce_op op, struct qkv_error *err);
/* Over the n distinct dims given (from 0), at once: sum(dim=(0, 2)),
 * numpy's axis=(0, 2); none (numpy's axis=()) reduces each element alone.
 * SUM, MEAN, MAX and MIN. */
struct tensor *ops_reduce_dims(const struct ops_ctx *ctx, struct tensor *t, int n, const int *dims, bool keepdim,
			       enum reduce_op op, struct qkv_error *err);
/* torch.max / torch.min over dim: the values and the int64 indices of the
 * first largest (smallest) element of each line, the first NaN winning, as
 * torch's kernel picks them; keepdim as in torch. -1 with err for a bad dim
 * or an empty dim that has lines. */
int ops_max_dim(const struct ops_ctx *ctx, struct tensor *t, int dim, bool keepdim, bool min,
		struct tensor **values, struct tensor **indices, struct qkv_error *err);
/* var (std when take_sqrt) over dim or everything, divided by n - correction
 * (numpy's ddof), in each library's order of operations: torch's two passes
 * in double when one number results, else its Welford updates in double;
 * numpy's mean, deviations and pairwise sums in the array's dtype (float64
 * for integers). torch refuses integers. */
struct tensor *ops_var(const struct ops_ctx *ctx, struct tensor *t, bool all, int dim, bool keepdim,
		       double correction, bool take_sqrt, struct qkv_error *err);
/* ops_var over the n distinct dims given (from 0), at once, as ops_reduce_dims. */
struct tensor *ops_var_dims(const struct ops_ctx *ctx, struct tensor *t, int n, const int *dims, bool keepdim,
			    double correction, bool take_sqrt, struct qkv_error *err);
/* isinf / isnan / isfinite elementwise: a bool tensor of t's shape. */
enum ops_class { OPS_ISINF, OPS_ISNAN, OPS_ISFINITE };
struct tensor *ops_classify(struct tensor *t, enum ops_class what);
/* .all() / .any(): 0-d bool */
struct tensor *ops_all_any(struct tensor *t, bool any);
/* torch.allclose / np.isclose: |a-b| <= atol + rtol*|b| elementwise (NaN never
 * close unless equal_nan); isclose gives the bool tensor, allclose one bool. */
struct tensor *ops_isclose(const struct ops_ctx *ctx, struct tensor *a, struct tensor *b,
			   double rtol, double atol, bool equal_nan, struct qkv_error *err);
struct tensor *ops_cat(const struct ops_ctx *ctx, struct tensor **ts, int n, int dim,
		       struct qkv_error *err);
struct tensor *ops_stack(const struct ops_ctx *ctx, struct tensor **ts, int n, int dim,
			 struct qkv_error *err);

/* ---- sorting (ops_sort.c) ---------------------------------------------------- */
/* Which order equal elements come in: torch's sort (libstdc++'s std::sort),
 * a stable sort (torch stable=True, numpy kind='stable'/'mergesort'), numpy's
 * quicksort (its default introsort) or heapsort. */
enum sort_kind { SORT_TORCH, SORT_STABLE, SORT_NUMPY_QUICK, SORT_NUMPY_HEAP };
/* Sorts every line along dim: values (t's dtype) and int64 indices, t's
 * shape. NaN is the largest. -1 with err for a bad dim. */
int ops_sort(const struct ops_ctx *ctx, struct tensor *t, int dim, bool descending, enum sort_kind kind,
	     struct tensor **values, struct tensor **indices, struct qkv_error *err);
/* torch.topk: the k largest (smallest) of each line along dim as torch's
 * CPU kernel orders them; "selected index k out of range" unless 0 <= k <= n. */
int ops_topk(const struct ops_ctx *ctx, struct tensor *t, int64_t k, int dim, bool largest, bool sorted,
	     struct tensor **values, struct tensor **indices, struct qkv_error *err);

/* ---- ranges and shapes --------------------------------------------------------- */
/* torch.linspace (torch: its CPU kernel's arithmetic, bit for bit) or
 * np.linspace (numpy: i * step + start, the last one end when endpoint) of
 * dtype dt. */
struct tensor *ops_linspace(const struct ops_ctx *ctx, enum flavor fl, double start, double end, int64_t steps,
			    bool endpoint, enum dtype dt, struct qkv_error *err);
/* x.flatten(start_dim, end_dim): dims start..end made one (a view when
 * possible, as reshape); a 0-d t becomes 1-d. */
struct tensor *ops_flatten(const struct ops_ctx *ctx, struct tensor *t, int64_t start, int64_t end,
			   struct qkv_error *err);

/* Copies src (broadcast to dst's shape) into dst's elements, converting dtype. */
int ops_assign(struct tensor *dst, struct tensor *src, struct qkv_error *err);

#endif
