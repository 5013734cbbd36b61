/* autograd.c: which backward node torch 1.13 attaches to each result, from
 * the operation, its arguments' grad state and torch.no_grad(), so results
 * print as torch prints them. One rule per built-in function and tensor
 * method (checked against tests/ref/grad_refs.py); called by methods.c's
 * dispatcher and eval.c's operators. Computes no gradient, never prints. */
#include "lang/autograd.h"
#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char LEAF_MSG[] = "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.";
static const char LEAF_VIEW_MSG[] =
	"RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.";
static const char NUMPY_MSG[] =
	"RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.";
static const char FLOAT_MSG[] = "RuntimeError: Only Tensors of floating point and complex dtype can require gradients";

enum rule_kind {
	R_NONE,      /* the result never requires grad (creation, comparisons, numbers) */
	R_CREATE,    /* R_NONE, and takes requires_grad= (torch.randn(2, requires_grad=True)) */
	R_FN,        /* fn when an input requires grad */
	R_VIEW,      /* R_FN, and the result is a view of the first input */
	R_BOUND,     /* fn when clamp's bounds are numbers, fn2 when one is a tensor */
	R_AS,        /* x.expand_as(y), x.type_as(y): fn (a view of x when it shares x's storage), unless
	                r is x; only x counts, y lends its shape or dtype */
	R_DIM,       /* fn, or fn2 when a dim is given (sum: SumBackward0 / SumBackward1), or
	                round's decimals (RoundBackward0 / RoundBackward1) */
	R_SAME,      /* the input itself when nothing changes (contiguous, float), else fn */
	R_RESHAPE,   /* a view (ReshapeAliasBackward0) or a copy (UnsafeViewBackward0) */
	R_MATMUL,    /* by the operands' dimensions (MmBackward0, UnsafeViewBackward0, ...) */
	R_LINEAR,    /* F.linear(input, weight, bias) */
	R_DROPOUT,   /* MulBackward0 when it drops, else the input itself */
	R_DETACH,    /* a new tensor that does not require grad */
	R_PARAM,     /* nn.Parameter(data, requires_grad=True): a leaf */
	R_INPLACE,   /* writes into self: refused on leaves that require grad */
	R_NUMPY,     /* numpy sees the data: refused when a tensor requires grad */
	R_UNBIND,    /* a list of the first dimension's items (list(x)) */
	R_ATTENTION, /* F.scaled_dot_product_attention: as its last product */
	R_EINSUM,    /* torch.einsum: the node of the path torch takes for the equation (einsum.c) */
	R_SELF,      /* the function sets its receiver's state itself (requires_grad_), or makes
	                no tensor of its own (enumerate, zip, getattr, torch.no_grad): as it is */
};

struct rule {
	const char *name;
	enum rule_kind kind;
	const char *fn, *fn2;
};

/* Sorted by name (strcmp order; a test checks it). Tensor methods and
 * attributes are "Tensor.NAME". torch 1.13 has no
 * F.scaled_dot_product_attention: qkv gives it what its math form's last
 * product (weights @ value) gets. */
static const struct rule rules[] = {
	{ "Tensor.T", R_VIEW, "PermuteBackward0", NULL },
	{ "Tensor.__T", R_VIEW, "PermuteBackward0", NULL },
	{ "Tensor.abs", R_FN, "AbsBackward0", NULL },
	{ "Tensor.add", R_SELF, NULL, NULL },
	{ "Tensor.add_", R_INPLACE, "AddBackward0", NULL },
	{ "Tensor.all", R_NONE, NULL, NULL },
	{ "Tensor.amax", R_FN, "AmaxBackward0", NULL },
	{ "Tensor.amin", R_FN, "AminBackward0", NULL },
	{ "Tensor.any", R_NONE, NULL, NULL },
	{ "Tensor.argmax", R_NONE, NULL, NULL },
	{ "Tensor.argmin", R_NONE, NULL, NULL },
	{ "Tensor.argsort", R_NONE, NULL, NULL },
	{ "Tensor.astype", R_NUMPY, NULL, NULL },
	{ "Tensor.bool", R_SAME, "ToCopyBackward0", NULL },
	{ "Tensor.ceil", R_FN, "CeilBackward0", NULL },
	{ "Tensor.chunk", R_UNBIND, "SplitBackward0", NULL },
	{ "Tensor.clamp", R_BOUND, "ClampBackward1", "ClampBackward0" },
	{ "Tensor.clamp_", R_INPLACE, "ClampBackward1", NULL },
	{ "Tensor.clamp_max", R_BOUND, "ClampMaxBackward0", "ClampMaxBackward1" },
	{ "Tensor.clamp_min", R_BOUND, "ClampMinBackward0", "ClampMinBackward1" },
	{ "Tensor.clip", R_BOUND, "ClampBackward1", "ClampBackward0" },
	{ "Tensor.clone", R_FN, "CloneBackward0", NULL },
	{ "Tensor.contiguous", R_SAME, "CloneBackward0", NULL },
	{ "Tensor.copy", R_FN, "CloneBackward0", NULL },
	{ "Tensor.copy_", R_INPLACE, "CopyBackwards", NULL },
	{ "Tensor.cos", R_FN, "CosBackward0", NULL },
	{ "Tensor.cpu", R_SELF, NULL, NULL },
	{ "Tensor.cumsum", R_FN, "CumsumBackward0", NULL },
	{ "Tensor.data", R_DETACH, NULL, NULL },
	{ "Tensor.detach", R_DETACH, NULL, NULL },
	{ "Tensor.dim", R_NONE, NULL, NULL },
	{ "Tensor.div", R_SELF, NULL, NULL },
	{ "Tensor.div_", R_INPLACE, "DivBackward0", NULL },
	{ "Tensor.divide", R_SELF, NULL, NULL },
	{ "Tensor.dot", R_FN, "DotBackward0", NULL },
	{ "Tensor.double", R_SAME, "ToCopyBackward0", NULL },
	{ "Tensor.dtype", R_NONE, NULL, NULL },
	{ "Tensor.eq", R_SELF, NULL, NULL },
	{ "Tensor.erf", R_FN, "ErfBackward0", NULL },
	{ "Tensor.exp", R_FN, "ExpBackward0", NULL },
	{ "Tensor.exp2", R_FN, "Exp2Backward0", NULL },
	{ "Tensor.expand", R_VIEW, "ExpandBackward0", NULL },
	{ "Tensor.expand_as", R_AS, "ExpandBackward0", NULL },
	{ "Tensor.expm1", R_FN, "Expm1Backward0", NULL },
	{ "Tensor.fill_", R_INPLACE, "FillBackward2", NULL },
	{ "Tensor.flatten", R_RESHAPE, NULL, NULL },
	{ "Tensor.flip", R_FN, "FlipBackward0", NULL },
	{ "Tensor.float", R_SAME, "ToCopyBackward0", NULL },
	{ "Tensor.floor", R_FN, "FloorBackward0", NULL },
	{ "Tensor.floor_divide", R_SELF, NULL, NULL },
	{ "Tensor.gather", R_FN, "GatherBackward0", NULL },
	{ "Tensor.ge", R_SELF, NULL, NULL },
	{ "Tensor.grad", R_NONE, NULL, NULL },
	{ "Tensor.grad_fn", R_NONE, NULL, NULL },
	{ "Tensor.gt", R_SELF, NULL, NULL },
	{ "Tensor.is_contiguous", R_NONE, NULL, NULL },
	{ "Tensor.is_leaf", R_NONE, NULL, NULL },
	{ "Tensor.isfinite", R_NONE, NULL, NULL },
	{ "Tensor.isinf", R_NONE, NULL, NULL },
	{ "Tensor.isnan", R_NONE, NULL, NULL },
	{ "Tensor.item", R_NONE, NULL, NULL },
	{ "Tensor.le", R_SELF, NULL, NULL },
	{ "Tensor.log", R_FN, "LogBackward0", NULL },
	{ "Tensor.log10", R_FN, "Log10Backward0", NULL },
	{ "Tensor.log1p", R_FN, "Log1PBackward0", NULL },
	{ "Tensor.log2", R_FN, "Log2Backward0", NULL },
	{ "Tensor.log_softmax", R_FN, "LogSoftmaxBackward0", NULL },
	{ "Tensor.logical_not", R_NONE, NULL, NULL },
	{ "Tensor.logsumexp", R_FN, "LogsumexpBackward0", NULL },
	{ "Tensor.long", R_SAME, "ToCopyBackward0", NULL },
	{ "Tensor.lt", R_SELF, NULL, NULL },
	{ "Tensor.mT", R_VIEW, "TransposeBackward0", NULL },
	{ "Tensor.masked_fill", R_FN, "MaskedFillBackward0", NULL },
	{ "Tensor.masked_fill_", R_INPLACE, "MaskedFillBackward0", NULL },
	{ "Tensor.matmul", R_MATMUL, NULL, NULL },
	{ "Tensor.max", R_DIM, "MaxBackward1", "MaxBackward0" },
	{ "Tensor.maximum", R_FN, "MaximumBackward0", NULL },
	{ "Tensor.mean", R_DIM, "MeanBackward0", "MeanBackward1" },
	{ "Tensor.min", R_DIM, "MinBackward1", "MinBackward0" },
	{ "Tensor.minimum", R_FN, "MinimumBackward0", NULL },
	{ "Tensor.mm", R_MATMUL, NULL, NULL },
	{ "Tensor.mul", R_SELF, NULL, NULL },
	{ "Tensor.mul_", R_INPLACE, "MulBackward0", NULL },
	{ "Tensor.multiply", R_SELF, NULL, NULL },
	{ "Tensor.ndim", R_NONE, NULL, NULL },
	{ "Tensor.ne", R_SELF, NULL, NULL },
	{ "Tensor.neg", R_FN, "NegBackward0", NULL },
	{ "Tensor.negative", R_FN, "NegBackward0", NULL },
	{ "Tensor.nonzero", R_NONE, NULL, NULL },
	{ "Tensor.norm", R_FN, "NormBackward1", NULL },
	{ "Tensor.normal_", R_INPLACE, "NormalBackward0", NULL },
	{ "Tensor.numel", R_NONE, NULL, NULL },
	{ "Tensor.numpy", R_NUMPY, NULL, NULL },
	{ "Tensor.permute", R_VIEW, "PermuteBackward0", NULL },
	{ "Tensor.pow", R_SELF, NULL, NULL },
	{ "Tensor.prod", R_DIM, "ProdBackward0", "ProdBackward1" },
	{ "Tensor.reciprocal", R_FN, "ReciprocalBackward0", NULL },
	{ "Tensor.relu", R_FN, "ReluBackward0", NULL },
	{ "Tensor.remainder", R_SELF, NULL, NULL },
	{ "Tensor.repeat", R_FN, "RepeatBackward0", NULL },
	{ "Tensor.repeat_interleave", R_FN, "IndexSelectBackward0", NULL },
	{ "Tensor.requires_grad", R_NONE, NULL, NULL },
	{ "Tensor.requires_grad_", R_SELF, NULL, NULL },
	{ "Tensor.reshape", R_RESHAPE, NULL, NULL },
	{ "Tensor.round", R_DIM, "RoundBackward0", "RoundBackward1" },
	{ "Tensor.rsqrt", R_FN, "RsqrtBackward0", NULL },
	{ "Tensor.shape", R_NONE, NULL, NULL },
	{ "Tensor.sigmoid", R_FN, "SigmoidBackward0", NULL },
	{ "Tensor.sign", R_FN, "SignBackward0", NULL },
	{ "Tensor.sin", R_FN, "SinBackward0", NULL },
	{ "Tensor.size", R_NONE, NULL, NULL },
	{ "Tensor.softmax", R_FN, "SoftmaxBackward0", NULL },
	{ "Tensor.sort", R_FN, "SortBackward0", NULL },
	{ "Tensor.split", R_UNBIND, "SplitBackward0", NULL },
	{ "Tensor.sqrt", R_FN, "SqrtBackward0", NULL },
	{ "Tensor.square", R_FN, "PowBackward0", NULL },
	{ "Tensor.squeeze", R_DIM, "SqueezeBackward0", "SqueezeBackward1" },
	{ "Tensor.std", R_FN, "StdBackward0", NULL },
	{ "Tensor.stride", R_NONE, NULL, NULL },
	{ "Tensor.sub", R_SELF, NULL, NULL },
	{ "Tensor.sub_", R_INPLACE, "SubBackward0", NULL },
	{ "Tensor.subtract", R_SELF, NULL, NULL },
	{ "Tensor.sum", R_DIM, "SumBackward0", "SumBackward1" },
	{ "Tensor.t", R_VIEW, "TBackward0", NULL },
	{ "Tensor.tanh", R_FN, "TanhBackward0", NULL },
	{ "Tensor.to", R_SAME, "ToCopyBackward0", NULL },
	{ "Tensor.tolist", R_NONE, NULL, NULL },
	{ "Tensor.topk", R_FN, "TopkBackward0", NULL },
	{ "Tensor.transpose", R_VIEW, "TransposeBackward0", NULL },
	{ "Tensor.tril", R_FN, "TrilBackward0", NULL },
	{ "Tensor.triu", R_FN, "TriuBackward0", NULL },
	{ "Tensor.true_divide", R_SELF, NULL, NULL },
	{ "Tensor.trunc", R_FN, "TruncBackward0", NULL },
	{ "Tensor.type", R_SAME, "ToCopyBackward0", NULL },
	{ "Tensor.type_as", R_AS, "ToCopyBackward0", NULL },
	{ "Tensor.unbind", R_UNBIND, "UnbindBackward0", NULL },
	{ "Tensor.uniform_", R_INPLACE, "UniformBackward0", NULL },
	{ "Tensor.unsqueeze", R_VIEW, "UnsqueezeBackward0", NULL },
	{ "Tensor.var", R_FN, "VarBackward0", NULL },
	{ "Tensor.view", R_VIEW, "ViewBackward0", NULL },
	{ "Tensor.zero_", R_INPLACE, "ZeroBackward0", NULL },
	{ "builtins.abs", R_FN, "AbsBackward0", NULL },
	{ "builtins.all", R_SELF, NULL, NULL },
	{ "builtins.any", R_SELF, NULL, NULL },
	{ "builtins.bool", R_NONE, NULL, NULL },
	{ "builtins.callable", R_SELF, NULL, NULL },
	{ "builtins.chr", R_NONE, NULL, NULL },
	{ "builtins.dict", R_SELF, NULL, NULL },
	{ "builtins.divmod", R_SELF, NULL, NULL },
	{ "builtins.enumerate", R_SELF, NULL, NULL },
	{ "builtins.exit", R_NONE, NULL, NULL },
	{ "builtins.filter", R_SELF, NULL, NULL },
	{ "builtins.float", R_NONE, NULL, NULL },
	{ "builtins.format", R_SELF, NULL, NULL },
	{ "builtins.getattr", R_SELF, NULL, NULL },
	{ "builtins.hasattr", R_SELF, NULL, NULL },
	{ "builtins.int", R_NONE, NULL, NULL },
	{ "builtins.isinstance", R_SELF, NULL, NULL },
	{ "builtins.iter", R_SELF, NULL, NULL },
	{ "builtins.len", R_NONE, NULL, NULL },
	{ "builtins.list", R_UNBIND, "UnbindBackward0", NULL },
	{ "builtins.map", R_SELF, NULL, NULL },
	{ "builtins.max", R_FN, "UnbindBackward0", NULL },
	{ "builtins.min", R_FN, "UnbindBackward0", NULL },
	{ "builtins.next", R_SELF, NULL, NULL },
	{ "builtins.object", R_SELF, NULL, NULL },
	{ "builtins.ord", R_NONE, NULL, NULL },
	{ "builtins.print", R_NONE, NULL, NULL },
	{ "builtins.quit", R_NONE, NULL, NULL },
	{ "builtins.range", R_NONE, NULL, NULL },
	{ "builtins.repr", R_NONE, NULL, NULL },
	{ "builtins.reversed", R_SELF, NULL, NULL },
	{ "builtins.round", R_NONE, NULL, NULL },
	{ "builtins.set", R_SELF, NULL, NULL },
	{ "builtins.setattr", R_SELF, NULL, NULL },
	{ "builtins.sorted", R_SELF, NULL, NULL },
	{ "builtins.str", R_NONE, NULL, NULL },
	{ "builtins.sum", R_FN, "AddBackward0", NULL },
	{ "builtins.super", R_SELF, NULL, NULL },
	{ "builtins.tuple", R_UNBIND, "UnbindBackward0", NULL },
	{ "builtins.type", R_SELF, NULL, NULL },
	{ "builtins.zip", R_SELF, NULL, NULL },
	{ "copy.copy", R_SELF, NULL, NULL },
	{ "copy.deepcopy", R_SELF, NULL, NULL },
	{ "math.ceil", R_NONE, NULL, NULL },
	{ "math.cos", R_NONE, NULL, NULL },
	{ "math.erf", R_NONE, NULL, NULL },
	{ "math.exp", R_NONE, NULL, NULL },
	{ "math.exp2", R_NONE, NULL, NULL },
	{ "math.expm1", R_NONE, NULL, NULL },
	{ "math.floor", R_NONE, NULL, NULL },
	{ "math.log", R_NONE, NULL, NULL },
	{ "math.log10", R_NONE, NULL, NULL },
	{ "math.log1p", R_NONE, NULL, NULL },
	{ "math.log2", R_NONE, NULL, NULL },
	{ "math.sin", R_NONE, NULL, NULL },
	{ "math.sqrt", R_NONE, NULL, NULL },
	{ "math.tanh", R_NONE, NULL, NULL },
	{ "math.trunc", R_NONE, NULL, NULL },
	{ "numpy.abs", R_NUMPY, NULL, NULL },
	{ "numpy.allclose", R_NUMPY, NULL, NULL },
	{ "numpy.amax", R_NUMPY, NULL, NULL },
	{ "numpy.amin", R_NUMPY, NULL, NULL },
	{ "numpy.arange", R_NUMPY, NULL, NULL },
	{ "numpy.argmax", R_NUMPY, NULL, NULL },
	{ "numpy.argmin", R_NUMPY, NULL, NULL },
	{ "numpy.argsort", R_NUMPY, NULL, NULL },
	{ "numpy.around", R_NUMPY, NULL, NULL },
	{ "numpy.array", R_NUMPY, NULL, NULL },
	{ "numpy.array_split", R_NUMPY, NULL, NULL },
	{ "numpy.asarray", R_NUMPY, NULL, NULL },
	{ "numpy.ceil", R_NUMPY, NULL, NULL },
	{ "numpy.clip", R_NUMPY, NULL, NULL },
	{ "numpy.concatenate", R_NUMPY, NULL, NULL },
	{ "numpy.cos", R_NUMPY, NULL, NULL },
	{ "numpy.count_nonzero", R_NUMPY, NULL, NULL },
	{ "numpy.cumsum", R_NUMPY, NULL, NULL },
	{ "numpy.diag", R_NUMPY, NULL, NULL },
	{ "numpy.dot", R_NUMPY, NULL, NULL },
	{ "numpy.einsum", R_NUMPY, NULL, NULL },
	{ "numpy.empty", R_NUMPY, NULL, NULL },
	{ "numpy.empty_like", R_NUMPY, NULL, NULL },
	{ "numpy.exp", R_NUMPY, NULL, NULL },
	{ "numpy.exp2", R_NUMPY, NULL, NULL },
	{ "numpy.expand_dims", R_NUMPY, NULL, NULL },
	{ "numpy.expm1", R_NUMPY, NULL, NULL },
	{ "numpy.eye", R_NUMPY, NULL, NULL },
	{ "numpy.flip", R_NUMPY, NULL, NULL },
	{ "numpy.fliplr", R_NUMPY, NULL, NULL },
	{ "numpy.flipud", R_NUMPY, NULL, NULL },
	{ "numpy.floor", R_NUMPY, NULL, NULL },
	{ "numpy.full", R_NUMPY, NULL, NULL },
	{ "numpy.full_like", R_NUMPY, NULL, NULL },
	{ "numpy.get_printoptions", R_NUMPY, NULL, NULL },
	{ "numpy.hstack", R_NUMPY, NULL, NULL },
	{ "numpy.identity", R_NUMPY, NULL, NULL },
	{ "numpy.isclose", R_NUMPY, NULL, NULL },
	{ "numpy.isfinite", R_NUMPY, NULL, NULL },
	{ "numpy.isinf", R_NUMPY, NULL, NULL },
	{ "numpy.isnan", R_NUMPY, NULL, NULL },
	{ "numpy.linalg.norm", R_NUMPY, NULL, NULL },
	{ "numpy.linspace", R_NUMPY, NULL, NULL },
	{ "numpy.log", R_NUMPY, NULL, NULL },
	{ "numpy.log10", R_NUMPY, NULL, NULL },
	{ "numpy.log1p", R_NUMPY, NULL, NULL },
	{ "numpy.log2", R_NUMPY, NULL, NULL },
	{ "numpy.matmul", R_NUMPY, NULL, NULL },
	{ "numpy.max", R_NUMPY, NULL, NULL },
	{ "numpy.maximum", R_NUMPY, NULL, NULL },
	{ "numpy.mean", R_NUMPY, NULL, NULL },
	{ "numpy.min", R_NUMPY, NULL, NULL },
	{ "numpy.minimum", R_NUMPY, NULL, NULL },
	{ "numpy.nonzero", R_NUMPY, NULL, NULL },
	{ "numpy.ones", R_NUMPY, NULL, NULL },
	{ "numpy.ones_like", R_NUMPY, NULL, NULL },
	{ "numpy.outer", R_NUMPY, NULL, NULL },
	{ "numpy.printoptions", R_NUMPY, NULL, NULL },
	{ "numpy.prod", R_NUMPY, NULL, NULL },
	{ "numpy.random.normal", R_NUMPY, NULL, NULL },
	{ "numpy.random.rand", R_NUMPY, NULL, NULL },
	{ "numpy.random.randn", R_NUMPY, NULL, NULL },
	{ "numpy.random.random", R_NUMPY, NULL, NULL },
	{ "numpy.random.random_sample", R_NUMPY, NULL, NULL },
	{ "numpy.random.seed", R_NUMPY, NULL, NULL },
	{ "numpy.random.uniform", R_NUMPY, NULL, NULL },
	{ "numpy.repeat", R_NUMPY, NULL, NULL },
	{ "numpy.round", R_NUMPY, NULL, NULL },
	{ "numpy.set_printoptions", R_NUMPY, NULL, NULL },
	{ "numpy.sign", R_NUMPY, NULL, NULL },
	{ "numpy.sin", R_NUMPY, NULL, NULL },
	{ "numpy.sort", R_NUMPY, NULL, NULL },
	{ "numpy.split", R_NUMPY, NULL, NULL },
	{ "numpy.sqrt", R_NUMPY, NULL, NULL },
	{ "numpy.squeeze", R_NUMPY, NULL, NULL },
	{ "numpy.stack", R_NUMPY, NULL, NULL },
	{ "numpy.std", R_NUMPY, NULL, NULL },
	{ "numpy.sum", R_NUMPY, NULL, NULL },
	{ "numpy.tanh", R_NUMPY, NULL, NULL },
	{ "numpy.tile", R_NUMPY, NULL, NULL },
	{ "numpy.transpose", R_NUMPY, NULL, NULL },
	{ "numpy.tril", R_NUMPY, NULL, NULL },
	{ "numpy.triu", R_NUMPY, NULL, NULL },
	{ "numpy.trunc", R_NUMPY, NULL, NULL },
	{ "numpy.var", R_NUMPY, NULL, NULL },
	{ "numpy.vstack", R_NUMPY, NULL, NULL },
	{ "numpy.where", R_NUMPY, NULL, NULL },
	{ "numpy.zeros", R_NUMPY, NULL, NULL },
	{ "numpy.zeros_like", R_NUMPY, NULL, NULL },
	{ "scipy.special.erf", R_NUMPY, NULL, NULL },
	{ "scipy.special.softmax", R_NUMPY, NULL, NULL },
	{ "torch.Tensor", R_SELF, NULL, NULL },
	{ "torch.abs", R_FN, "AbsBackward0", NULL },
	{ "torch.add", R_SELF, NULL, NULL },
	{ "torch.allclose", R_NONE, NULL, NULL },
	{ "torch.amax", R_FN, "AmaxBackward0", NULL },
	{ "torch.amin", R_FN, "AminBackward0", NULL },
	{ "torch.arange", R_CREATE, NULL, NULL },
	{ "torch.argmax", R_NONE, NULL, NULL },
	{ "torch.argmin", R_NONE, NULL, NULL },
	{ "torch.argsort", R_NONE, NULL, NULL },
	{ "torch.as_tensor", R_SELF, NULL, NULL },
	{ "torch.bmm", R_FN, "BmmBackward0", NULL },
	{ "torch.cat", R_FN, "CatBackward0", NULL },
	{ "torch.ceil", R_FN, "CeilBackward0", NULL },
	{ "torch.chunk", R_UNBIND, "SplitBackward0", NULL },
	{ "torch.clamp", R_BOUND, "ClampBackward1", "ClampBackward0" },
	{ "torch.clamp_max", R_BOUND, "ClampMaxBackward0", "ClampMaxBackward1" },
	{ "torch.clamp_min", R_BOUND, "ClampMinBackward0", "ClampMinBackward1" },
	{ "torch.clip", R_BOUND, "ClampBackward1", "ClampBackward0" },
	{ "torch.concat", R_FN, "CatBackward0", NULL },
	{ "torch.cos", R_FN, "CosBackward0", NULL },
	{ "torch.cumsum", R_FN, "CumsumBackward0", NULL },
	{ "torch.div", R_SELF, NULL, NULL },
	{ "torch.divide", R_SELF, NULL, NULL },
	{ "torch.dot", R_FN, "DotBackward0", NULL },
	{ "torch.einsum", R_EINSUM, NULL, NULL },
	{ "torch.empty", R_CREATE, NULL, NULL },
	{ "torch.eq", R_SELF, NULL, NULL },
	{ "torch.equal", R_NONE, NULL, NULL },
	{ "torch.erf", R_FN, "ErfBackward0", NULL },
	{ "torch.exp", R_FN, "ExpBackward0", NULL },
	{ "torch.exp2", R_FN, "Exp2Backward0", NULL },
	{ "torch.expm1", R_FN, "Expm1Backward0", NULL },
	{ "torch.eye", R_CREATE, NULL, NULL },
	{ "torch.flatten", R_RESHAPE, NULL, NULL },
	{ "torch.flip", R_FN, "FlipBackward0", NULL },
	{ "torch.floor", R_FN, "FloorBackward0", NULL },
	{ "torch.floor_divide", R_SELF, NULL, NULL },
	{ "torch.from_numpy", R_NONE, NULL, NULL },
	{ "torch.full", R_CREATE, NULL, NULL },
	{ "torch.full_like", R_CREATE, NULL, NULL },
	{ "torch.gather", R_FN, "GatherBackward0", NULL },
	{ "torch.ge", R_SELF, NULL, NULL },
	{ "torch.gt", R_SELF, NULL, NULL },
	{ "torch.hstack", R_FN, "CatBackward0", NULL },
	{ "torch.inference_mode", R_SELF, NULL, NULL },
	{ "torch.initial_seed", R_NONE, NULL, NULL },
	{ "torch.is_tensor", R_NONE, NULL, NULL },
	{ "torch.isclose", R_NONE, NULL, NULL },
	{ "torch.isfinite", R_NONE, NULL, NULL },
	{ "torch.isinf", R_NONE, NULL, NULL },
	{ "torch.isnan", R_NONE, NULL, NULL },
	{ "torch.le", R_SELF, NULL, NULL },
	{ "torch.linalg.norm", R_FN, "LinalgVectorNormBackward0", NULL },
	{ "torch.linalg.vector_norm", R_FN, "LinalgVectorNormBackward0", NULL },
	{ "torch.linspace", R_CREATE, NULL, NULL },
	{ "torch.log", R_FN, "LogBackward0", NULL },
	{ "torch.log10", R_FN, "Log10Backward0", NULL },
	{ "torch.log1p", R_FN, "Log1PBackward0", NULL },
	{ "torch.log2", R_FN, "Log2Backward0", NULL },
	{ "torch.log_softmax", R_FN, "LogSoftmaxBackward0", NULL },
	{ "torch.logical_not", R_NONE, NULL, NULL },
	{ "torch.logsumexp", R_FN, "LogsumexpBackward0", NULL },
	{ "torch.lt", R_SELF, NULL, NULL },
	{ "torch.manual_seed", R_NONE, NULL, NULL },
	{ "torch.masked_fill", R_FN, "MaskedFillBackward0", NULL },
	{ "torch.matmul", R_MATMUL, NULL, NULL },
	{ "torch.max", R_DIM, "MaxBackward1", "MaxBackward0" },
	{ "torch.maximum", R_FN, "MaximumBackward0", NULL },
	{ "torch.mean", R_DIM, "MeanBackward0", "MeanBackward1" },
	{ "torch.min", R_DIM, "MinBackward1", "MinBackward0" },
	{ "torch.minimum", R_FN, "MinimumBackward0", NULL },
	{ "torch.mm", R_FN, "MmBackward0", NULL },
	{ "torch.mul", R_SELF, NULL, NULL },
	{ "torch.multiply", R_SELF, NULL, NULL },
	{ "torch.ne", R_SELF, NULL, NULL },
	{ "torch.neg", R_FN, "NegBackward0", NULL },
	{ "torch.negative", R_FN, "NegBackward0", NULL },
	{ "torch.nn.Dropout", R_NONE, NULL, NULL },
	{ "torch.nn.Embedding", R_NONE, NULL, NULL },
	{ "torch.nn.LayerNorm", R_NONE, NULL, NULL },
	{ "torch.nn.Linear", R_NONE, NULL, NULL },
	{ "torch.nn.Parameter", R_PARAM, NULL, NULL },
	{ "torch.nn.functional.cosine_similarity", R_FN, "SumBackward1", NULL },
	{ "torch.nn.functional.cross_entropy", R_FN, "NllLossBackward0", NULL },
	{ "torch.nn.functional.dropout", R_DROPOUT, "MulBackward0", NULL },
	{ "torch.nn.functional.embedding", R_FN, "EmbeddingBackward0", NULL },
	{ "torch.nn.functional.gelu", R_FN, "GeluBackward0", NULL },
	{ "torch.nn.functional.layer_norm", R_FN, "NativeLayerNormBackward0", NULL },
	{ "torch.nn.functional.linear", R_LINEAR, NULL, NULL },
	{ "torch.nn.functional.log_softmax", R_FN, "LogSoftmaxBackward0", NULL },
	{ "torch.nn.functional.nll_loss", R_FN, "NllLossBackward0", NULL },
	{ "torch.nn.functional.normalize", R_FN, "DivBackward0", NULL },
	{ "torch.nn.functional.one_hot", R_NONE, NULL, NULL },
	{ "torch.nn.functional.pad", R_FN, "ConstantPadNdBackward0", NULL },
	{ "torch.nn.functional.relu", R_FN, "ReluBackward0", NULL },
	{ "torch.nn.functional.scaled_dot_product_attention", R_ATTENTION, NULL, NULL },
	{ "torch.nn.functional.sigmoid", R_FN, "SigmoidBackward0", NULL },
	{ "torch.nn.functional.softmax", R_FN, "SoftmaxBackward0", NULL },
	{ "torch.no_grad", R_SELF, NULL, NULL },
	{ "torch.nonzero", R_NONE, NULL, NULL },
	{ "torch.norm", R_FN, "NormBackward1", NULL },
	{ "torch.numel", R_NONE, NULL, NULL },
	{ "torch.ones", R_CREATE, NULL, NULL },
	{ "torch.ones_like", R_CREATE, NULL, NULL },
	{ "torch.outer", R_FN, "MulBackward0", NULL },
	{ "torch.pow", R_SELF, NULL, NULL },
	{ "torch.prod", R_DIM, "ProdBackward0", "ProdBackward1" },
	{ "torch.rand", R_CREATE, NULL, NULL },
	{ "torch.rand_like", R_CREATE, NULL, NULL },
	{ "torch.randint", R_CREATE, NULL, NULL },
	{ "torch.randn", R_CREATE, NULL, NULL },
	{ "torch.randn_like", R_CREATE, NULL, NULL },
	{ "torch.reciprocal", R_FN, "ReciprocalBackward0", NULL },
	{ "torch.relu", R_FN, "ReluBackward0", NULL },
	{ "torch.remainder", R_SELF, NULL, NULL },
	{ "torch.repeat_interleave", R_FN, "IndexSelectBackward0", NULL },
	{ "torch.round", R_DIM, "RoundBackward0", "RoundBackward1" },
	{ "torch.rsqrt", R_FN, "RsqrtBackward0", NULL },
	{ "torch.set_printoptions", R_NONE, NULL, NULL },
	{ "torch.sigmoid", R_FN, "SigmoidBackward0", NULL },
	{ "torch.sign", R_FN, "SignBackward0", NULL },
	{ "torch.sin", R_FN, "SinBackward0", NULL },
	{ "torch.softmax", R_FN, "SoftmaxBackward0", NULL },
	{ "torch.sort", R_FN, "SortBackward0", NULL },
	{ "torch.split", R_UNBIND, "SplitBackward0", NULL },
	{ "torch.sqrt", R_FN, "SqrtBackward0", NULL },
	{ "torch.square", R_FN, "PowBackward0", NULL },
	{ "torch.stack", R_FN, "StackBackward0", NULL },
	{ "torch.std", R_FN, "StdBackward0", NULL },
	{ "torch.sub", R_SELF, NULL, NULL },
	{ "torch.subtract", R_SELF, NULL, NULL },
	{ "torch.sum", R_DIM, "SumBackward0", "SumBackward1" },
	{ "torch.tanh", R_FN, "TanhBackward0", NULL },
	{ "torch.tensor", R_CREATE, NULL, NULL },
	{ "torch.topk", R_FN, "TopkBackward0", NULL },
	{ "torch.transpose", R_VIEW, "TransposeBackward0", NULL },
	{ "torch.tril", R_FN, "TrilBackward0", NULL },
	{ "torch.triu", R_FN, "TriuBackward0", NULL },
	{ "torch.true_divide", R_SELF, NULL, NULL },
	{ "torch.trunc", R_FN, "TruncBackward0", NULL },
	{ "torch.unbind", R_UNBIND, "UnbindBackward0", NULL },
	{ "torch.var", R_FN, "VarBackward0", NULL },
	{ "torch.vstack", R_FN, "CatBackward0", NULL },
	{ "torch.where", R_FN, "WhereBackward0", NULL },
	{ "torch.zeros", R_CREATE, NULL, NULL },
	{ "torch.zeros_like", R_CREATE, NULL, NULL },
};

static int rule_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct rule *)elem)->name);
}

/* The rule of a function; the last one found is tried first, as a loop
 * calls the same function on every line. */
static const struct rule *rule_find(const char *qualified)
{
	static _Thread_local const struct rule *last;
	if (last && strcmp(last->name, qualified) == 0)
		return last;
	const struct rule *r = bsearch(qualified, rules, sizeof rules / sizeof rules[0], sizeof rules[0], rule_cmp);
	if (r)
		last = r;
	return r;
}

bool autograd_has_rule(const char *qualified)
{
	return rule_find(qualified) != NULL;
}

const char *autograd_rule_name(int i)
{
	return i >= 0 && (size_t)i < sizeof rules / sizeof rules[0] ? rules[i].name : NULL;
}

/* ---- the inputs of a call -------------------------------------------------------- */

#define MAX_INPUTS 32

struct inputs {
	const struct tensor *t[MAX_INPUTS];
	int n;
	bool grad;      /* some input requires grad (and grad mode is on) */
	bool any_grad;  /* some input requires grad, grad mode or not */
};

static void add_input(struct inputs *in, const struct value *v, bool lists)
{
	if (!v)
		return;
	if (v->kind == V_TENSOR) {
		if (in->n < MAX_INPUTS)
			in->t[in->n++] = v->t;
		in->any_grad |= v->t->grad.requires_grad;
	} else if (lists && (v->kind == V_LIST || v->kind == V_TUPLE)) {
		for (int i = 0; i < v->n; i++)
			add_input(in, v->items[i], false);
	}
}

/* Empties in (the array's slots past n are never read). */
static void inputs_clear(struct inputs *in)
{
	in->n = 0;
	in->grad = in->any_grad = false;
}

static void collect(const struct call *c, struct inputs *in)
{
	inputs_clear(in);
	add_input(in, c->self, false);
	for (int i = 0; i < c->nargs; i++)
		add_input(in, c->args[i], true);
	for (int i = 0; i < c->nkw; i++)
		add_input(in, c->kwargs[i], true);
	in->grad = in->any_grad && c->I->no_grad == 0;
}

static bool is_input(const struct inputs *in, const struct tensor *t)
{
	for (int i = 0; i < in->n; i++)
		if (in->t[i] == t)
			return true;
	return false;
}

/* ---- giving a result its state ------------------------------------------------- */

/* r's tensor, made its own when it is an input's or shared, so that setting
 * its state changes nothing else; NULL when r is not a torch tensor. */
static struct tensor *own(struct value *r, const struct inputs *in)
{
	if (!r || r->kind != V_TENSOR || r->t->flavor != FLAVOR_TORCH)
		return NULL;
	if (r->t->refs > 1 || (in && is_input(in, r->t))) {
		struct tensor *a = tensor_alias(r->t);
		a->from = r->t->from;
		if (a->from)
			a->from->refs++;
		tensor_unref(r->t);
		r->t = a;
	}
	return r->t;
}

/* Gives r the state of an op named fn over inputs whose grad is `grad`;
 * base: for a view, the tensor it views. */
static void give(struct value *r, const struct inputs *in, bool grad, const char *fn, const struct tensor *base)
{
	if (r && r->kind == V_TUPLE && r->str && r->n == 2) {	/* torch.return_types.max & co: the values */
		give(r->items[0], in, grad, fn, base);
		return;
	}
	if (!r || r->kind != V_TENSOR || r->t->flavor != FLAVOR_TORCH)
		return;
	struct grad_state g = { 0 };
	/* a view made under torch.no_grad() of a tensor that requires grad
	 * requires grad too, with no grad_fn */
	bool no_grad_view = base && base->grad.requires_grad && !grad;
	if ((grad || no_grad_view) && dtype_is_float(r->t->dtype)) {
		g.requires_grad = true;
		g.fn = no_grad_view ? NULL : fn;
		g.view = base != NULL;
		g.leaf_view = base && ((base->grad.requires_grad && !base->grad.fn) || base->grad.leaf_view);
	}
	const struct grad_state *now = &r->t->grad;
	if (now->requires_grad == g.requires_grad && now->fn == g.fn && now->view == g.view &&
	    now->leaf_view == g.leaf_view)
		return;
	struct tensor *t = own(r, in);
	t->grad = g;
}

/* torch.matmul's node for operands of na and nb dimensions. */
static const char *matmul_fn(int na, int nb)
{
	if (na == 1 && nb == 1)
		return "DotBackward0";
	if (na == 2 && nb == 1)
		return "MvBackward0";
	if (na == 1 && nb == 2)
		return "SqueezeBackward3";
	if (na == 2 && nb == 2)
		return "MmBackward0";
	return "UnsafeViewBackward0";
}

/* The tensor of positional argument i (or self when i < 0), or NULL. */
static const struct tensor *arg_tensor(const struct call *c, int i, const char *kw)
{
	const struct value *v = i < 0 ? c->self : i < c->nargs ? c->args[i] : NULL;
	for (int k = 0; !v && kw && k < c->nkw; k++)
		if (strcmp(c->kwnames[k], kw) == 0)
			v = c->kwargs[k];
	return v && v->kind == V_TENSOR ? v->t : NULL;
}

/* Whether a dim is given: positional argument `pos` or dim=/axis= not None. */
static bool dim_given(const struct call *c, int pos)
{
	if (pos < c->nargs)
		return c->args[pos]->kind != V_NONE;
	for (int k = 0; k < c->nkw; k++)
		if ((strcmp(c->kwnames[k], "dim") == 0 || strcmp(c->kwnames[k], "axis") == 0 ||
		     strcmp(c->kwnames[k], "decimals") == 0) &&
		    c->kwargs[k]->kind != V_NONE)
			return true;
	return false;
}

/* Whether a bound of clamp (an argument after the input) is a tensor. */
static bool tensor_bound(const struct call *c)
{
	for (int i = c->self ? 0 : 1; i < c->nargs; i++)
		if (c->args[i]->kind == V_TENSOR)
			return true;
	for (int k = 0; k < c->nkw; k++)
		if (strcmp(c->kwnames[k], "input") != 0 && c->kwargs[k]->kind == V_TENSOR)
			return true;
	return false;
}

/* Whether F.dropout(x, p, training) drops anything. */
static bool drops(const struct call *c)
{
	double p = 0.5;
	bool training = true;
	for (int i = 1; i < c->nargs; i++) {
		if (i == 1 && value_is_number(c->args[i]))
			p = value_as_double(c->args[i]);
		if (i == 2 && value_is_number(c->args[i]))
			training = value_as_double(c->args[i]) != 0;
	}
	for (int k = 0; k < c->nkw; k++) {
		if (strcmp(c->kwnames[k], "p") == 0 && value_is_number(c->kwargs[k]))
			p = value_as_double(c->kwargs[k]);
		if (strcmp(c->kwnames[k], "training") == 0 && value_is_number(c->kwargs[k]))
			training = value_as_double(c->kwargs[k]) != 0;
	}
	return training && p > 0;
}

/* nn.Linear's and F.linear's node: torch 1.13's at::linear takes addmm for
 * 2-D input with a bias, addmm and a view for contiguous 3-D input, else
 * matmul then add. */
static const char *linear_fn(const struct tensor *x, bool bias)
{
	if (!bias)
		return matmul_fn(x->ndim, 2);
	if (x->ndim == 2)
		return "AddmmBackward0";
	if (x->ndim == 3 && tensor_is_contiguous(x))
		return "ViewBackward0";
	return "AddBackward0";
}

static void give_items(struct value *r, const struct inputs *in, const char *fn)
{
	if (!r || (r->kind != V_LIST && r->kind != V_TUPLE))
		return;
	for (int i = 0; i < r->n; i++)
		give(r->items[i], in, in->grad, fn, in->n ? in->t[0] : NULL);
}

/* Takes keyword kw out of c (moved past c->nkw, where eval.c still frees
 * it); returns its value (borrowed) or NULL. */
static struct value *take_kw(struct call *c, const char *kw)
{
	for (int k = 0; k < c->nkw; k++) {
		if (strcmp(c->kwnames[k], kw) != 0)
			continue;
		int last = c->nkw - 1;
		const char *name = c->kwnames[k];
		struct value *v = c->kwargs[k];
		const struct node *n = c->kw_nodes[k];
		c->kwnames[k] = c->kwnames[last];
		c->kwargs[k] = c->kwargs[last];
		c->kw_nodes[k] = c->kw_nodes[last];
		c->kwnames[last] = name;
		c->kwargs[last] = v;
		c->kw_nodes[last] = n;
		c->nkw--;
		return v;
	}
	return NULL;
}

static struct value *fail_at(struct qkv_error *err, const struct call *c, const struct node *at, const char *msg,
			     struct value *r)
{
	value_unref(r);
	at = at ? at : c->node;
	error_set(err, at->line, at->col, "%s", msg);
	return NULL;
}

/* In-place writes: torch refuses leaves that require grad, and views of them. */
static int check_write(const struct interp *I, const struct tensor *t, struct qkv_error *err)
{
	if (I->no_grad > 0)
		return 0;
	if (t->grad.leaf_view)
		return error_set(err, 0, 0, "%s", LEAF_VIEW_MSG);
	if (t->grad.requires_grad && !t->grad.fn)
		return error_set(err, 0, 0, "%s", LEAF_MSG);
	return 0;
}

/* Records an in-place write named fn on t (written by an op whose inputs
 * required grad when grad). */
static void record_write(const struct interp *I, struct tensor *t, const char *fn, bool grad)
{
	if (I->no_grad > 0 || !(grad || t->grad.requires_grad) || !dtype_is_float(t->dtype))
		return;
	t->grad.requires_grad = true;
	t->grad.fn = t->grad.view ? "AsStridedBackward0" : fn;
}

/* Whether a rule does no more than give the result a state (below): with
 * no input that requires grad, that state is none (a view's base is its
 * first input, which requires none either). */
static bool gives_only(enum rule_kind k)
{
	switch (k) {
	case R_NONE: case R_NUMPY: case R_FN: case R_VIEW: case R_DIM: case R_BOUND: case R_AS: case R_SAME: case R_RESHAPE:
	case R_MATMUL: case R_LINEAR: case R_DROPOUT: case R_ATTENTION: case R_EINSUM:
		return true;
	default:
		return false;
	}
}

struct value *autograd_call(struct call *c, const char *qualified, builtin_fn fn, struct qkv_error *err)
{
	char name[96];
	if (c->self && c->self->kind != V_TENSOR)
		return fn(c, err);	/* nn objects' methods: train(), eval() */
	if (c->self) {
		snprintf(name, sizeof name, "Tensor.%s", qualified);
		qualified = name;
	}
	const struct rule *rule = rule_find(qualified);
	if (!rule)	/* every function has a rule (tests/unit/test_grad.c) */
		return fn(c, err);
	struct inputs in;
	collect(c, &in);
	if (rule->kind == R_AS) {
		inputs_clear(&in);
		add_input(&in, c->self, false);
		in.grad = in.any_grad && c->I->no_grad == 0;
	}
	struct value *want = NULL;
	const struct node *want_at = NULL;
	int nkw = c->nkw;
	if (rule->kind == R_CREATE || rule->kind == R_PARAM) {
		for (int k = 0; k < c->nkw; k++)
			if (strcmp(c->kwnames[k], "requires_grad") == 0)
				want_at = c->kw_nodes[k];
		want = take_kw(c, "requires_grad");
	}
	if (rule->kind == R_NUMPY && in.any_grad)
		return fail_at(err, c, NULL, NUMPY_MSG, NULL);
	if (rule->kind == R_INPLACE && check_write(c->I, c->self->t, err) < 0)
		return error_locate(err, c->node->line, c->node->col), NULL;
	struct value *r = fn(c, err);
	c->nkw = nkw;
	if (!r)
		return NULL;
	if (!in.any_grad && gives_only(rule->kind) && r->kind == V_TENSOR && !r->t->grad.requires_grad &&
	    !r->t->grad.fn && !r->t->grad.view && !r->t->grad.leaf_view)
		return r;	/* the common case: no input requires grad, so give leaves r as it is */
	const struct tensor *x = in.n ? in.t[0] : NULL;
	switch (rule->kind) {
	case R_SELF:
		break;
	case R_NONE:
	case R_NUMPY:
		if (r->kind == V_TENSOR && !is_input(&in, r->t))
			give(r, &in, false, NULL, NULL);
		break;
	case R_CREATE:
	case R_PARAM: {
		bool on = rule->kind == R_PARAM;
		if (want && want->kind != V_BOOL)
			return fail_at(err, c, want_at, "requires_grad must be True or False", r);
		if (want)
			on = want->b;
		if (on && r->kind == V_TENSOR && !dtype_is_float(r->t->dtype))
			return fail_at(err, c, want_at, FLOAT_MSG, r);
		if (r->kind == V_TENSOR && (r->t->grad.requires_grad != on || r->t->grad.fn)) {
			struct tensor *t = own(r, &in);
			t->grad = (struct grad_state){ .requires_grad = on };
		}
		break;
	}
	case R_FN:
		give(r, &in, in.grad, rule->fn, NULL);
		break;
	case R_VIEW:
		give(r, &in, in.grad, rule->fn, x);
		break;
	case R_BOUND:
		give(r, &in, in.grad, tensor_bound(c) ? rule->fn2 : rule->fn, NULL);
		break;
	case R_DIM:
		give(r, &in, in.grad, dim_given(c, c->self ? 0 : 1) ? rule->fn2 : rule->fn,
		     strncmp(rule->fn, "Squeeze", 7) == 0 ? x : NULL);
		break;
	case R_AS:
		if (r->kind == V_TENSOR && !is_input(&in, r->t))
			give(r, &in, in.grad, rule->fn, x && r->t->storage == x->storage ? x : NULL);
		break;
	case R_SAME:
		if (r->kind == V_TENSOR && !is_input(&in, r->t))
			give(r, &in, in.grad, rule->fn, NULL);
		break;
	case R_RESHAPE:
		if (r->kind == V_TENSOR && x && r->t != x)	/* (flatten gives a 1-d tensor itself) */
			give(r, &in, in.grad, r->t->storage == x->storage ? "ReshapeAliasBackward0" : "UnsafeViewBackward0",
			     r->t->storage == x->storage ? x : NULL);
		break;
	case R_MATMUL: {
		const struct tensor *a = arg_tensor(c, c->self ? -1 : 0, "input");
		const struct tensor *b = arg_tensor(c, c->self ? 0 : 1, "other");
		if (a && b)
			give(r, &in, in.grad, matmul_fn(a->ndim, b->ndim), NULL);
		break;
	}
	case R_LINEAR: {
		const struct tensor *in0 = arg_tensor(c, 0, "input");
		if (in0)
			give(r, &in, in.grad, linear_fn(in0, arg_tensor(c, 2, "bias") != NULL), NULL);
		break;
	}
	case R_DROPOUT:
		if (r->kind == V_TENSOR && !is_input(&in, r->t))
			give(r, &in, in.grad && drops(c), rule->fn, NULL);
		break;
	case R_DETACH:
		if (r->kind == V_TENSOR && (r->t->grad.requires_grad || r->t->grad.fn || is_input(&in, r->t)))
			own(r, &in)->grad = (struct grad_state){ 0 };
		break;
	case R_INPLACE:
		record_write(c->I, c->self->t, rule->fn, in.grad);
		break;
	case R_UNBIND:
		give_items(r, &in, rule->fn);
		break;
	case R_ATTENTION: {
		const struct tensor *q = arg_tensor(c, 0, "query"), *v = arg_tensor(c, 2, "value");
		if (q && v)
			give(r, &in, in.grad, matmul_fn(q->ndim, v->ndim), NULL);
		break;
	}
	case R_EINSUM:
		if (c->nargs >= 2 && c->args[0]->kind == V_STR) {
			bool list = c->nargs == 2 && (c->args[1]->kind == V_LIST || c->args[1]->kind == V_TUPLE);
			give(r, &in, in.grad, einsum_grad_fn(c->args[0]->str, list ? c->args[1]->n : c->nargs - 1), NULL);
		}
		break;
	}
	return r;
}

struct value *autograd_object(struct call *c, const struct value *callee, struct value *r)
{
	if (!r || r->kind != V_TENSOR || callee->kind != V_OBJECT)
		return r;
	struct inputs in;
	collect(c, &in);
	const struct object *o = callee->obj;
	if (o->kind == OBJ_LINEAR) {
		bool bias = o->bias && o->bias->kind == V_TENSOR;
		add_input(&in, o->weight, false);
		if (bias)
			add_input(&in, o->bias, false);
		in.grad = in.any_grad && c->I->no_grad == 0;
		const struct tensor *x = arg_tensor(c, 0, "input");
		if (x)
			give(r, &in, in.grad, linear_fn(x, bias), NULL);
	} else if (o->kind == OBJ_DROPOUT && !is_input(&in, r->t)) {
		give(r, &in, in.grad && o->training && o->p > 0, "MulBackward0", NULL);
	} else if (o->kind == OBJ_EMBEDDING || o->kind == OBJ_LAYERNORM) {
		add_input(&in, o->weight, false);
		add_input(&in, o->bias, false);
		in.grad = in.any_grad && c->I->no_grad == 0;
		give(r, &in, in.grad, o->kind == OBJ_EMBEDDING ? "EmbeddingBackward0" : "NativeLayerNormBackward0", NULL);
	}
	return r;
}

/* ---- operators ------------------------------------------------------------------- */

static void operands(struct interp *I, struct inputs *in, const struct value *a, const struct value *b)
{
	inputs_clear(in);
	add_input(in, a, false);
	add_input(in, b, false);
	in->grad = in->any_grad && I->no_grad == 0;
}

/* The node of a op b (a_tensor: whether a is the tensor, for 2 - x). */
static const char *binop_fn(int op, const struct value *a, const struct value *b)
{
	bool ta = a->kind == V_TENSOR, tb = b->kind == V_TENSOR;
	switch (op) {
	case OP_ADD: return "AddBackward0";
	case OP_SUB: return ta ? "SubBackward0" : "RsubBackward1";
	case OP_MUL: return "MulBackward0";
	case OP_DIV: return ta ? "DivBackward0" : "MulBackward0";	/* 2 / x is x.reciprocal() * 2 */
	case OP_POW: return ta && !tb ? "PowBackward0" : "PowBackward1";
	case OP_MOD: return ta && tb ? "RemainderBackward1" : ta ? "RemainderBackward0" : "NotImplemented";
	case OP_FLOORDIV: return "NotImplemented";	/* torch 1.13's floor_divide has no derivative */
	case OP_MATMUL: return ta && tb ? matmul_fn(a->t->ndim, b->t->ndim) : NULL;
	default: return NULL;	/* comparisons, &, | and ^: bool or integer results */
	}
}

/* autograd_binop (autograd.h) once some operand or r has a state: give
 * would agree with r's when none has. */
void autograd_binop_state(struct interp *I, int op, const struct value *a, const struct value *b, struct value *r)
{
	struct inputs in;
	operands(I, &in, a, b);
	const char *fn = binop_fn(op, a, b);
	give(r, &in, in.grad && fn, fn, NULL);
}

void autograd_unop(struct interp *I, int op, const struct value *a, struct value *r)
{
	if (!r || r->kind != V_TENSOR || op == '+')
		return;	/* +x is x itself */
	struct inputs in;
	operands(I, &in, a, NULL);
	give(r, &in, in.grad && op == '-', "NegBackward0", NULL);
}

void autograd_index(struct interp *I, const struct node *index, const struct value *base, bool advanced,
		    struct value *r)
{
	if (!r || r->kind != V_TENSOR || base->kind != V_TENSOR || index->nkids < 2)
		return;
	/* torch applies the basic indices in order, the last one naming the
	 * node, and a list of indices after them all (IndexBackward0) */
	const struct node *last = index->kids[index->nkids - 1];
	const char *fn = advanced ? "IndexBackward0"
			 : last->kind == N_SLICE ? "SliceBackward0"
			 : last->kind == N_CONST && last->op == 'N' ? "UnsqueezeBackward0" : "SelectBackward0";
	struct inputs in;
	operands(I, &in, base, NULL);
	give(r, &in, in.grad, fn, base->t);
}

void autograd_attention(struct interp *I, const struct value *q, const struct value *k, const struct value *v,
			struct value *r)
{
	if (!r || r->kind != V_TENSOR || q->kind != V_TENSOR || v->kind != V_TENSOR)
		return;
	struct inputs in;
	operands(I, &in, q, k);
	add_input(&in, v, false);
	in.grad = in.any_grad && I->no_grad == 0;
	give(r, &in, in.grad, matmul_fn(q->t->ndim, v->t->ndim), NULL);
}

void autograd_unbind(struct interp *I, const struct tensor *src, struct tensor *item)
{
	item->grad = (struct grad_state){ 0 };
	if (src->grad.requires_grad && dtype_is_float(item->dtype))	/* under no_grad: no grad_fn */
		item->grad = (struct grad_state){ .requires_grad = true, .view = true,
						  .fn = I->no_grad ? NULL : "UnbindBackward0",
						  .leaf_view = !src->grad.fn || src->grad.leaf_view };
}

int autograd_write(struct interp *I, int op, struct tensor *dst, const struct value *src, struct qkv_error *err)
{
	if (dst->flavor != FLAVOR_TORCH)
		return 0;
	if (op == 0 && I->no_grad == 0 && dst->grad.requires_grad && !dst->grad.fn)
		return error_set(err, 0, 0, "%s", LEAF_VIEW_MSG);	/* x[i] = ... writes through a view */
	if (check_write(I, dst, err) < 0)
		return -1;
	bool grad = src && src->kind == V_TENSOR && src->t->grad.requires_grad;
	if (op == 0) {
		if (I->no_grad == 0 && (grad || dst->grad.requires_grad) && dtype_is_float(dst->dtype))
			dst->grad = (struct grad_state){ .requires_grad = true, .fn = "CopySlices",
							 .view = dst->grad.view, .leaf_view = dst->grad.leaf_view };
		return 0;
	}
	struct value self = { .kind = V_TENSOR, .t = dst };
	const char *fn = binop_fn(op, &self, src);
	if (fn)
		record_write(I, dst, fn, grad);
	return 0;
}

/* ---- attributes ------------------------------------------------------------------ */

int autograd_attr(struct interp *I, struct value *self, const char *name, struct value **out, struct qkv_error *err)
{
	if (self->kind != V_TENSOR)
		return 0;
	struct tensor *t = self->t;
	if (strcmp(name, "T") == 0 || strcmp(name, "mT") == 0) {	/* first: K.T is the common one */
		bool m = name[0] == 'm';
		if (m && t->ndim < 2)
			return error_set(err, 0, 0, ".mT needs at least 2 dimensions"), *out = NULL, 1;
		struct tensor *v = m ? ops_transpose(t, -2, -1, err) : ops_reverse_dims(t);
		*out = v ? value_tensor(v) : NULL;
		const struct grad_state *now = v ? &v->grad : NULL;
		if (*out && (t->grad.requires_grad || now->requires_grad || now->fn || now->view || now->leaf_view)) {
			/* (else give would leave it as it is: K.T of a K that requires none) */
			struct inputs in;
			operands(I, &in, self, NULL);
			give(*out, &in, in.grad, m ? "TransposeBackward0" : "PermuteBackward0", t);
		}
	} else if (strcmp(name, "requires_grad") == 0) {
		*out = value_bool(t->grad.requires_grad);
	} else if (strcmp(name, "is_leaf") == 0) {
		*out = value_bool(t->grad.fn == NULL);
	} else if (strcmp(name, "grad_fn") == 0) {
		*out = t->grad.fn ? value_named(V_GRADFN, t->grad.fn) : value_none();
	} else if (strcmp(name, "grad") == 0) {
		*out = value_none();	/* qkv never runs backward() */
	} else if (strcmp(name, "data") == 0) {
		struct tensor *d = tensor_alias(t);
		d->grad = (struct grad_state){ 0 };
		*out = value_tensor(d);
	} else {
		return 0;
	}
	return 1;
}

struct value *autograd_requires_grad_(struct call *c, struct qkv_error *err)
{
	bool on = true;
	const struct value *v = c->nargs ? c->args[0] : NULL;
	for (int k = 0; k < c->nkw; k++)
		if (strcmp(c->kwnames[k], "requires_grad") == 0)
			v = c->kwargs[k];
	if (c->nargs + c->nkw > 1 || (c->nkw == 1 && !v))
		return fail_at(err, c, NULL, "requires_grad_() takes one argument, requires_grad", NULL);
	if (v && v->kind != V_BOOL)
		return fail_at(err, c, NULL, "requires_grad_(): requires_grad must be True or False", NULL);
	if (v)
		on = v->b;
	struct tensor *t = c->self->t;
	if (t->grad.fn && !on)
		return fail_at(err, c, NULL, "you can only change requires_grad flags of leaf variables. If you want to "
			       "use a computed variable in a subgraph that doesn't require differentiation use "
			       "var_no_grad = var.detach().", NULL);
	if (on && !dtype_is_float(t->dtype))
		return fail_at(err, c, NULL, "only Tensors of floating point dtype can require gradients", NULL);
	if (!t->grad.fn)
		t->grad.requires_grad = on;
	return value_ref(c->self);
}
