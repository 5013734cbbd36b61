/* runtime.h: what the evaluator (eval.c) and the built-in functions
 * (builtins.c) share inside lang/. Not for use outside lang/. */
#ifndef QKV_LANG_RUNTIME_H
#define QKV_LANG_RUNTIME_H

#include "core/mem.h"
#include "core/format.h"
#include "core/rng.h"
#include "kernel/kernel.h"
#include "lang/ast.h"
#include "lang/interp.h"

struct undo {
	struct storage *st;     /* a storage written in place, and its bytes before */
	void *bytes;
	struct value **slot;    /* or an object attribute replaced, and its old value */
	struct value *old;
	char *name;             /* or a workspace name bound, and its old value (NULL: unbound) */
	struct value *cont;     /* or a list, dict, set or cell changed, and what it held: */
	struct value **saved;   /* its items (a dict: n keys after them), or a cell's value */
	int nsaved;
	struct pyset *layout;   /* a set's hash table (value_set_layout_save), or NULL */
};

/* Where a name lives, resolved once per tree before it runs (scope.c) and
 * kept in the N_NAME node: rows = the kind, cols = the slot or cell. */
enum name_scope {
	SC_GLOBAL = 0,  /* the workspace, then the built-in names */
	SC_LOCAL,       /* frame->slots[cols] */
	SC_CELL,        /* frame->slots[cols] holds a V_CELL (a local an inner function uses) */
	SC_FREE,        /* frame->cells[cols] (the enclosing function's variable) */
	SC_CLASS,       /* a class body: its namespace, then global */
};

enum scope_kind { SCOPE_MODULE, SCOPE_FUNC, SCOPE_COMP, SCOPE_CLASS };

/* The names of one def, lambda, comprehension or class body. */
struct scope {
	enum scope_kind kind;
	const struct node *owner;
	struct scope *parent;
	int nlocals, caplocals;
	const char **names;     /* the locals: parameters first, in order */
	bool *cell;             /* per local: an inner function uses it */
	int nparams;
	int nfree, capfree;
	const char **freenames;
	int *from_kind;         /* per free name: SC_CELL (the parent's local slot) or SC_FREE */
	int *from_idx;
	int nglobal;
	const char **globals;   /* declared global */
};

/* One statement's tree and its scopes: kept alive by the functions it made. */
struct code_tree {
	struct code base;
	struct node *root;
	int nscopes;
	struct scope **scopes;  /* a def/lambda/comp/class node's rows is its index + 1 */
};

/* The running function's variables. */
struct frame {
	struct value **slots;   /* locals (sc->nlocals) */
	struct value **cells;   /* the closure */
	const struct scope *sc;
	struct value *ns;       /* a class body: its namespace (V_DICT) */
	struct value *fnv;      /* the function running (V_FUNCTION), or NULL */
	struct code_tree *code;
	struct frame *back;
	const struct node *call;/* the call that made it */
	struct value *ret;      /* what return gave */
};

/* Statement results besides 0 and -1 (error). */
enum { EXEC_BREAK = 1, EXEC_CONTINUE = 2, EXEC_RETURN = 3 };

#define INTERP_MAX_DEPTH 1000   /* calls, as Python's recursion limit */

/* What a statement can change besides the workspace and its values, saved
 * before it runs and put back when it is undone: the random streams, and the
 * print options (torch.set_printoptions, np.set_printoptions), which are the
 * ones in use while the interpreter runs statements. */
struct interp_state {
	struct torch_gen torch_rng;
	struct np_gen np_rng;
	struct print_options print;
};

struct interp {
	struct ops_ctx ops;
	struct interp_state g;
	struct np_print_options with_np_print; /* what the last np.printoptions(...) gives */
	int nvars, capvars;
	char **names;
	struct value **vals;
	interp_emit_fn emit;
	void *udata;
	interp_observe_fn observe;
	void *observe_udata;
	int nundo, capundo;
	struct undo *undo;
	int undo_mark;          /* the running statement's first entry in the log */
	const volatile sig_atomic_t *interrupt; /* nonzero: stop (interp_set_interrupt) */
	struct kernel_ctl kernels; /* while statements run: the kernels' own control, when */
	struct kernel_ctl *kernels_outer; /* the thread has none (else this one, its */
	const volatile sig_atomic_t *kernels_outer_stop; /* stop flag as it was) */
	bool log_bindings;      /* atomic run: record name bindings for rollback */
	int stmt_first, stmt_last; /* lines of the statement being run */
	bool quit;
	int quit_status;        /* the status exit(n) asked for (0..255) */
	char *print_pending;    /* what print(..., end=...) wrote after its last newline, shown
	                           when a newline, an echo or the end of interp_run comes */
	int no_grad;            /* depth of `with torch.no_grad():` blocks being run: while
	                           nonzero, results carry no grad_fn (lang/autograd.c) */
	unsigned txn, txn_counter; /* the running transaction (a statement), for logging once */
	unsigned *var_txn;      /* per workspace name: the transaction that logged it */
	int running;            /* statements are running: bindings are logged */
	struct frame *frame;    /* the running function's frame, NULL at top level */
	struct code_tree *code; /* the running top-level statement's tree */
	int depth;              /* calls in progress */
	const char *stack_base; /* the C stack where the outermost run started */
	struct value *gc;       /* the containers made here (value_gc_list) */
	const char *stack_low;  /* the lowest usable address of the running thread's stack */
	int block_depth;        /* compound statements entered (0: a top-level statement) */
	int tb_line;            /* an error leaving calls: the line of the call it left */
};

/* One call of a built-in function or method, arguments evaluated. */
struct call {
	struct interp *I;
	const struct node *node;     /* the N_CALL node */
	const char *name;            /* for messages: "torch.randn", "view" */
	char namebuf[64];            /* storage for a shortened name (np.sqrt) */
	struct value *self;          /* methods: the receiver, else NULL */
	int nargs;
	struct value **args;
	const struct node **arg_nodes;
	int nkw;
	const char **kwnames;
	struct value **kwargs;
	const struct node **kw_nodes;
};

typedef struct value *(*builtin_fn)(struct call *c, struct qkv_error *err);

struct builtin {
	const char *name;   /* qualified: "torch.randn", "numpy.random.seed", "builtins.print" */
	builtin_fn fn;
};

/* rank.c: ordering, picking and spreading (sort, topk, max/min with a dim,
 * std, var), flatten, mm, linspace: functions and tensor methods alike (a
 * method call has c->self). rank_functions ends with a NULL name. */
extern const struct builtin rank_functions[];
struct value *rank_max(struct call *c, struct qkv_error *err);
struct value *rank_min(struct call *c, struct qkv_error *err);
struct value *rank_sort(struct call *c, struct qkv_error *err);
struct value *rank_argsort(struct call *c, struct qkv_error *err);
struct value *rank_topk(struct call *c, struct qkv_error *err);
struct value *rank_std(struct call *c, struct qkv_error *err);
struct value *rank_var(struct call *c, struct qkv_error *err);
struct value *rank_flatten(struct call *c, struct qkv_error *err);
struct value *rank_mm(struct call *c, struct qkv_error *err);
/* np.float32(x) & co (a call of numpy's dtype dt) */
struct value *rank_np_scalar(struct call *c, enum dtype dt, struct qkv_error *err);

/* copy.deepcopy(v) as Python's (containers, tensors, modules copied, each
 * once; classes and functions shared; a tensor with a grad_fn refused as
 * torch refuses it) and copy.copy(v) (a new container of the same items, a
 * tensor on the same storage); NULL with err. (workspace.c) */
struct value *runtime_deepcopy(struct value *v, struct qkv_error *err);
struct value *runtime_copy(struct value *v, struct qkv_error *err);

/* rounding.c: Python's round() (numpy's for its scalars and arrays),
 * torch.round and np.round (np.around) as functions and methods.
 * rounding_functions ends with a NULL name. */
extern const struct builtin rounding_functions[];
struct value *rounding_python(struct call *c, struct qkv_error *err);
struct value *rounding_torch(struct call *c, struct qkv_error *err);
struct value *rounding_numpy(struct call *c, struct qkv_error *err);
struct value *rounding_method(struct call *c, struct qkv_error *err);

/* printopts.c: torch.set_printoptions, np.set_printoptions,
 * np.get_printoptions and np.printoptions (for `with`: it leaves the
 * options it gives in I->with_np_print). printopts_functions ends with a
 * NULL name. printopts_numpy_dict: numpy's options as get_printoptions
 * gives them. */
extern const struct builtin printopts_functions[];
struct value *printopts_numpy_dict(const struct np_print_options *o);

/* nnlayers.c: nn.Embedding and nn.LayerNorm (and F.embedding,
 * F.layer_norm); nnlayers_functions ends with a NULL name. nnlayers_call
 * calls such a module on its input; nnlayers_attr gives one of its
 * attributes, or NULL when it has no such one. */
extern const struct builtin nnlayers_functions[];
struct value *nnlayers_call(struct call *c, struct object *o, struct qkv_error *err);
struct value *nnlayers_attr(const struct object *o, const char *name);

/* arith.c: the function and method forms of the operators (torch.add,
 * x.mul, x.add_, ...), torch.maximum and minimum, neg, square and
 * reciprocal. arith_functions ends with a NULL name; the methods are
 * arith_binary (the operators, in place when the name ends in _),
 * arith_maximum, arith_minimum and arith_unary. */
extern const struct builtin arith_functions[];
struct value *arith_binary(struct call *c, struct qkv_error *err);
struct value *arith_maximum(struct call *c, struct qkv_error *err);
struct value *arith_minimum(struct call *c, struct qkv_error *err);
struct value *arith_unary(struct call *c, struct qkv_error *err);

/* aliases.c: torch.is_tensor, full_like, logical_not, unbind, outer
 * (aliases_functions, ending with a NULL name), and the methods x.cpu,
 * expand_as, type_as, logical_not and unbind. */
extern const struct builtin aliases_functions[];
struct value *aliases_cpu(struct call *c, struct qkv_error *err);
struct value *aliases_expand_as(struct call *c, struct qkv_error *err);
struct value *aliases_type_as(struct call *c, struct qkv_error *err);
struct value *aliases_logical_not(struct call *c, struct qkv_error *err);
struct value *aliases_unbind(struct call *c, struct qkv_error *err);

/* unary.c: torch.floor, ceil, trunc, sign, rsqrt, log2, log10, log1p,
 * expm1, exp2, erf, numpy's and scipy.special's, and the math module's
 * functions (unary_functions, ending with a NULL name); the methods
 * x.floor() and the rest are unary_method. */
extern const struct builtin unary_functions[];
struct value *unary_method(struct call *c, struct qkv_error *err);

/* products.c: torch.prod, np.prod, torch.logsumexp (products_functions,
 * ending with a NULL name), and the methods x.prod (a.prod) and
 * x.logsumexp. */
extern const struct builtin products_functions[];
struct value *products_prod_method(struct call *c, struct qkv_error *err);
struct value *products_logsumexp(struct call *c, struct qkv_error *err);

/* arrange.c: torch.flip, np.flip, np.fliplr, np.flipud, F.one_hot
 * (arrange_functions, ending with a NULL name), and the method x.flip. */
extern const struct builtin arrange_functions[];
struct value *arrange_flip_method(struct call *c, struct qkv_error *err);

/* losses.c: F.cross_entropy and F.nll_loss (losses_functions, ending
 * with a NULL name). */
extern const struct builtin losses_functions[];

/* select.c: torch.gather, torch.nonzero, np.nonzero, F.pad
 * (select_functions, ending with a NULL name), and the methods x.gather
 * and x.nonzero (a.nonzero). */
extern const struct builtin select_functions[];
struct value *select_gather_method(struct call *c, struct qkv_error *err);
struct value *select_nonzero_method(struct call *c, struct qkv_error *err);

/* builtins.c's torch.exp and np.exp, for op: the input's checks, its
 * conversion (numpy's take lists and numbers), ops_unary. */
struct value *builtins_unary(struct call *c, enum ew_unary op, bool numpy, struct qkv_error *err);

/* norms.c: torch.norm, torch.linalg.norm and vector_norm, F.normalize,
 * F.cosine_similarity, np.linalg.norm, and the method x.norm.
 * norms_functions ends with a NULL name. */
extern const struct builtin norms_functions[];
struct value *norms_method(struct call *c, struct qkv_error *err);

/* accumulate.c: np.cumsum, torch.cumsum (and x.cumsum), np.count_nonzero.
 * accumulate_functions ends with a NULL name. */
extern const struct builtin accumulate_functions[];
struct value *accumulate_cumsum_method(struct call *c, struct qkv_error *err);

/* sampling.c: np.random.normal, uniform, random and random_sample; the
 * tensor methods normal_ and uniform_. sampling_functions ends with a NULL
 * name. */
extern const struct builtin sampling_functions[];
struct value *sampling_normal_(struct call *c, struct qkv_error *err);
struct value *sampling_uniform_(struct call *c, struct qkv_error *err);

/* arrays.c: np.full, the _like makers, np.empty, np.identity, np.asarray,
 * np.expand_dims and np.squeeze (a.squeeze of an array too).
 * arrays_functions ends with a NULL name. */
extern const struct builtin arrays_functions[];
struct value *arrays_squeeze(struct call *c, struct qkv_error *err);

/* bounds.c: np.maximum, np.minimum, np.clip, torch.clamp and torch.clip,
 * and the methods clip, clamp and clamp_. bounds_functions ends with a NULL
 * name. */
extern const struct builtin bounds_functions[];
struct value *bounds_clip_method(struct call *c, struct qkv_error *err);
struct value *bounds_clamp_method(struct call *c, struct qkv_error *err);
struct value *bounds_clamp_(struct call *c, struct qkv_error *err);
struct value *bounds_clamp_min(struct call *c, struct qkv_error *err);
struct value *bounds_clamp_max(struct call *c, struct qkv_error *err);

/* pieces.c: split, chunk, expand, repeat, where: functions and tensor
 * methods alike. pieces_functions ends with a NULL name. */
extern const struct builtin pieces_functions[];
struct value *pieces_split(struct call *c, struct qkv_error *err);
struct value *pieces_chunk(struct call *c, struct qkv_error *err);
struct value *pieces_expand(struct call *c, struct qkv_error *err);
/* x expanded to the nd sizes (-1 keeps a dim), as x.expand checks them; NULL
 * with torch's message. */
struct tensor *pieces_expand_to(struct tensor *x, int nd, const int64_t *sizes, struct qkv_error *err);
struct value *pieces_repeat(struct call *c, struct qkv_error *err);
struct value *pieces_np_repeat(struct call *c, struct qkv_error *err);
struct value *pieces_repeat_interleave(struct call *c, struct qkv_error *err);
struct value *pieces_where(struct call *c, struct qkv_error *err);
/* einsum.c: torch.einsum, and the backward node torch attaches to its result
 * for eq over nops operands (grad_fn) */
struct value *pieces_einsum(struct call *c, struct qkv_error *err);
struct value *pieces_np_einsum(struct call *c, struct qkv_error *err);
const char *einsum_grad_fn(const char *eq, int nops);

/* A function or constant of a module ("torch", "randn"), a submodule, or NULL. */
struct value *runtime_module_attr(const char *module, const char *name);
/* What a bare name means when the workspace does not define it, or NULL. */
struct value *runtime_global(const char *name);
/* Attribute of a tensor/object/sequence value (a bound method for methods);
 * NULL with err when there is none. */
struct value *runtime_attr(struct interp *I, struct value *self, const char *name, struct qkv_error *err);
/* Calls a V_FUNC, V_METHOD or V_OBJECT value. */
struct value *runtime_call(struct call *c, struct value *callee, struct qkv_error *err);
/* The built-in function with this qualified name, or NULL. */
const struct builtin *runtime_find_function(const char *qualified);
/* Whether a tensor attribute or method is torch's alone (x.softmax,
 * x.requires_grad): numpy's arrays lack it (methods.c). */
bool runtime_torch_alone(const char *name);
/* Every tensor method, as "Tensor.NAME" (methods.c). */
void runtime_each_method(void (*fn)(void *udata, const char *qualified), void *udata);
/* Every function, constant, submodule and tensor method name, for completion:
 * fn(udata, qualified name) ("torch.randn", "Tensor.view"). */
void runtime_each_name(void (*fn)(void *udata, const char *qualified), void *udata);
/* Whether a module path exists ("torch.nn.functional"). */
bool runtime_module_exists(const char *path);

/* 0, or -1 with err "interrupted (Ctrl-C)" at n when the interrupt flag is
 * set, or a MemoryError when memory ran out (core/mem.h's mem_pressure):
 * called before each operation that may take long. */
int interp_interrupt_error(const struct node *n, struct qkv_error *err);
static inline int interp_check_interrupt(struct interp *I, const struct node *n, struct qkv_error *err)
{
	if ((!I->interrupt || !*I->interrupt) && !mem_pressure)	/* inline: checked several times a line */
		return 0;
	return interp_interrupt_error(n, err);
}
/* Shows the text print() left without a newline (print_pending), if any. */
void interp_flush_print(struct interp *I);
/* Records a storage's bytes before an in-place write in this statement. */
void interp_will_write(struct interp *I, struct storage *st);
/* Records an object attribute slot before it is replaced. */
void interp_will_replace(struct interp *I, struct value **slot);

/* workspace.c: ends the log's entries from `from` on, restoring (restore)
 * or keeping what they saved; starts a new transaction; del of a name. */
void interp_undo_unwind(struct interp *I, int from, bool restore);
void interp_begin_txn(struct interp *I);
bool interp_unset(struct interp *I, const char *name);
/* Records a container's contents before it changes in this statement. */
void interp_will_change(struct interp *I, struct value *cont);

/* ---- the tree walker (eval.c, exec.c) ---- */
struct value *eval_expr(struct interp *I, const struct node *n, struct qkv_error *err);
/* 0, -1 (error) or EXEC_BREAK/CONTINUE/RETURN. */
int exec_stmt(struct interp *I, const struct node *n, struct qkv_error *err);
int exec_block(struct interp *I, const struct node *n, struct qkv_error *err);
/* Binds v to a target (name, tuple, index, attribute). */
int exec_assign(struct interp *I, const struct node *target, struct value *v, struct qkv_error *err);
struct value *eval_binop(struct interp *I, int op, struct value *a, struct value *b, struct qkv_error *err);
/* The view x[...] of a tensor for the N_INDEX node n (shares storage). */
struct tensor *eval_index_tensor(struct interp *I, struct tensor *t, const struct node *n, bool write,
				 bool *advanced, struct qkv_error *err);
int eval_slice_bounds(struct interp *I, const struct node *ix, bool *hs, int64_t *s, bool *he, int64_t *e,
		      bool *hst, int64_t *st, struct qkv_error *err);
/* A Python number as the 0-d tensor operand of one operation, held in a
 * box on the caller's stack, or v's tensor itself: borrowed either way (the
 * ops never keep a reference to an operand past the call). */
struct operand eval_operand(const struct value *v, struct ops_number *box);
/* Orders a and b as Python's < does (numbers, strings, sequences): *out -1, 0, 1. */
int runtime_compare(const struct value *a, const struct value *b, int *out, struct qkv_error *err);
/* Adds x to a set unless there (takes x); -1 with err when x is unhashable. */
int runtime_set_add(struct value *set, struct value *x, struct qkv_error *err);
/* set.update(from): CPython's set_update_internal (a set or dict merged, else item by item). */
int runtime_set_update(struct interp *I, struct value *set, struct value *from, struct qkv_error *err);
/* The fused attention (fuse.c): 1 with *out, or 0 to evaluate as written. */
int fuse_attention(struct interp *I, const struct node *n, struct value **out);

/* ---- names and functions (scope.c) ---- */
/* Resolves every name of a statement's tree; NULL with err (nonlocal with no binding). */
struct code_tree *scope_resolve(struct node *root, struct qkv_error *err);
void code_tree_unref(struct code_tree *ct);
struct value *scope_load(struct interp *I, const struct node *name, struct qkv_error *err);
int scope_store(struct interp *I, const struct node *name, struct value *v, struct qkv_error *err);
int scope_delete(struct interp *I, const struct node *name, struct qkv_error *err);
/* Binds the name of a def or class statement n (resolved in n->cols, n->ival). */
int scope_store_def(struct interp *I, const struct node *n, struct value *v, struct qkv_error *err);
/* def and lambda: a new function value; class bodies run through class.c. */
struct value *scope_make_function(struct interp *I, const struct node *def, struct qkv_error *err);
/* A comprehension's value (a generator expression is evaluated at once). */
struct value *scope_comprehension(struct interp *I, const struct node *n, struct qkv_error *err);
/* Calls a V_FUNCTION with c's arguments (self first when not NULL). */
struct value *scope_call(struct call *c, struct value *fnv, struct value *self, struct qkv_error *err);
/* Runs a class body in its own namespace (a new frame); the namespace or NULL. */
struct value *scope_class_body(struct interp *I, const struct node *cls, struct qkv_error *err);
/* The local NAME of the most recent call of a function value (EXPR:NAME);
 * NULL when there is none, or, for a bound method, when that call was on
 * another object (*elsewhere set: a method's locals are kept per function,
 * and another instance's would be silently wrong). */
struct value *scope_last_local(struct value *fnv, const char *name, bool *elsewhere);
/* Whether another call may start: -1 with err (RecursionError) when too deep. */
int scope_check_depth_slow(struct interp *I, const struct node *at, struct qkv_error *err);
static inline int scope_check_depth(struct interp *I, const struct node *at, struct qkv_error *err)
{
	char here;	/* inline: every attribute, call and index checks it */
	if (I->stack_low && I->depth < INTERP_MAX_DEPTH && &here >= I->stack_low)
		return 0;
	return scope_check_depth_slow(I, at, err);
}

/* ---- classes and nn.Module (class.c) ---- */
int class_exec(struct interp *I, const struct node *n, struct qkv_error *err);
struct value *class_new_instance(struct call *c, struct value *cls, struct qkv_error *err);
struct value *class_call_instance(struct call *c, struct value *self, struct qkv_error *err);
struct value *class_attr(struct interp *I, struct value *self, const char *name, struct qkv_error *err);
int class_set_attr(struct interp *I, struct value *self, const char *name, struct value *v, struct qkv_error *err);
int class_del_attr(struct interp *I, struct value *self, const char *name, struct qkv_error *err);
/* A builtin class of torch.nn by name ("Module"), or NULL. */
struct value *class_builtin(const char *name);
/* A module method (parameters, train, register_buffer, ...) of an instance or nn object. */
struct value *class_call_method(struct call *c, struct qkv_error *err);
bool class_has_method(const struct value *self, const char *name);
/* A method the instance's class defines (__len__, __getitem__, ...): 1 and
 * *out, 0 when it does not, -1 with err. */
int class_call_dunder(struct interp *I, const struct node *at, struct value *self, const char *name, int nargs,
		      struct value **args, struct value **out, struct qkv_error *err);
/* str()/repr() through __str__/__repr__: 1 written to out, 0 not defined, -1 with err. */
int class_text(struct interp *I, const struct node *at, struct value *v, bool repr, struct strbuf *out,
	       struct qkv_error *err);
/* str(v) (repr false) or repr(v) written to out, through the __str__ and
 * __repr__ of user classes, v's own and those of the instances inside it
 * (a list's items show their __repr__): 0, or -1 with err and out as it was. */
int runtime_text(struct interp *I, const struct node *at, struct value *v, bool repr, struct strbuf *out,
		 struct qkv_error *err);
/* One field of an f-string or str.format: conversion conv ('r', 's' or 0)
 * then format spec (NULL or "" for none) applied to v, written to out: 0, or
 * -1 with err. An empty spec gives str(v), through user classes' __str__. */
int runtime_format_field(struct interp *I, const struct node *at, struct strbuf *out, struct value *v, char conv,
			 const char *spec, struct qkv_error *err);
/* fmt % args, printf-style, as CPython 3.11 (%s %r %a %d %i %u %o %x %X %e
 * %E %f %F %g %G %c %%, flags, * widths, %(key)s from a mapping): a new str,
 * or NULL with err (no place). */
struct value *runtime_percent(struct interp *I, const char *fmt, struct value *args, struct qkv_error *err);
/* isinstance(v, cls) for classes (user and nn) */
bool class_isinstance(const struct value *v, const struct value *cls);
/* Whether an attribute name may be read or set at all (the sandbox). */
bool class_name_allowed(const char *name);

/* ---- containers (containers.c) ---- */
/* An iterator over v (a new V_ITER), or NULL with err "not iterable". */
struct value *runtime_iter(struct interp *I, struct value *v, struct qkv_error *err);
/* 1 and *out (a new reference), 0 at the end, -1 with err. */
int runtime_next(struct interp *I, struct value *it, struct value **out, struct qkv_error *err);
/* Every item of an iterable as a new list. */
struct value *runtime_to_list(struct interp *I, struct value *v, struct qkv_error *err);
/* Calls callee with positional arguments (for key=, map, filter); errors at `at`. */
struct value *runtime_call_values(struct interp *I, const struct node *at, struct value *callee, int nargs,
				  struct value **args, struct qkv_error *err);
/* enumerate/zip/map/filter over srcs; sorted's stable sort of items by key. */
struct value *runtime_iter_of(struct interp *I, enum iter_kind kind, struct value *fn, int n, struct value **srcs,
			      int64_t start, struct qkv_error *err);
int runtime_sort(struct interp *I, const struct node *at, struct value **items, int n, struct value *key,
		 bool reverse, struct qkv_error *err);
struct value *class_super(struct call *c, struct qkv_error *err);
void container_each_method(const struct value *v, void (*fn)(void *udata, const char *name), void *udata);
/* Methods of lists, dicts, sets and strings: a bound V_METHOD or NULL. */
struct value *container_attr(struct value *self, const char *name);
struct value *container_call(struct call *c, struct qkv_error *err);
/* x in seq: 1, 0 or -1 with err. */
int container_contains(struct interp *I, struct value *seq, struct value *x, struct qkv_error *err);
/* seq[i], seq[a:b:c] for lists, tuples, strings, ranges, dicts. */
struct value *container_index(struct interp *I, struct value *base, struct value *key, struct qkv_error *err);
struct value *container_slice(struct interp *I, struct value *base, bool hs, int64_t s, bool he, int64_t e,
			      bool hst, int64_t st, struct qkv_error *err);
int container_set_item(struct interp *I, struct value *base, struct value *key, struct value *v, struct qkv_error *err);
int container_set_slice(struct interp *I, struct value *base, bool hs, int64_t s, bool he, int64_t e,
			struct value *v, struct qkv_error *err);
int container_del_item(struct interp *I, struct value *base, struct value *key, struct qkv_error *err);

#endif
