/* runtime.h: what the evaluator (eval.c) and the built-in functions
 * (builtins.c) share inside lang/. Not for use outside lang/. */
#ifndef QKV_LANG_RUNTIME_H
#define QKV_LANG_RUNTIME_H

#include "core/rng.h"
#include "lang/ast.h"
#include "lang/interp.h"

struct undo {
	struct storage *st;     /* a storage written in place, and its bytes before */
	void *bytes;
	struct value **slot;    /* or an object attribute replaced, and its old value */
	struct value *old;
	char *name;             /* or a workspace name bound, and its old value (NULL: unbound) */
};

struct interp {
	struct ops_ctx ops;
	struct torch_gen torch_rng;
	struct np_gen np_rng;
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
	bool log_bindings;      /* atomic run: record name bindings for rollback */
	int stmt_first, stmt_last; /* lines of the statement being run */
	bool quit;
	int no_grad;            /* depth of `with torch.no_grad():` blocks being run: while
	                           nonzero, results carry no grad_fn (lang/autograd.c) */
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
/* Every tensor method, as "Tensor.NAME" (methods.c). */
void runtime_each_method(void (*fn)(void *udata, const char *qualified), void *udata);
/* Every function, constant, submodule and tensor method name, for completion:
 * fn(udata, qualified name) ("torch.randn", "Tensor.view"). */
void runtime_each_name(void (*fn)(void *udata, const char *qualified), void *udata);
/* Whether a module path exists ("torch.nn.functional"). */
bool runtime_module_exists(const char *path);

/* 0, or -1 with err "interrupted (Ctrl-C)" at n when the interrupt flag is
 * set: called before each operation that may take long. */
int interp_check_interrupt(struct interp *I, const struct node *n, struct qkv_error *err);
/* Records a storage's bytes before an in-place write in this statement. */
void interp_will_write(struct interp *I, struct storage *st);
/* Records an object attribute slot before it is replaced. */
void interp_will_replace(struct interp *I, struct value **slot);

/* Python truthiness; -1 with err for a tensor of more than one element. */
int runtime_truth(const struct value *v, struct qkv_error *err);
/* Converts a number or 0-d tensor to double; -1 with err otherwise. */
int runtime_to_double(const struct value *v, double *out, const char *what, struct qkv_error *err);
int runtime_to_int(const struct value *v, int64_t *out, const char *what, struct qkv_error *err);
/* Formats v for an f-string field with format spec (NULL = none). */
int runtime_format_field(struct strbuf *out, const struct value *v, const char *spec, struct qkv_error *err);

#endif
