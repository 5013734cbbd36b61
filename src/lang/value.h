/* value.h: the values of the notebook language.
 * Python numbers, strings, None, lists/tuples, dicts, sets, ranges,
 * torch.Size, tensors and numpy arrays, namespaces (torch, np, ...), built-in
 * functions and bound methods, the nn objects (Linear, Dropout), and the
 * program's own functions, classes and instances. Values are reference
 * counted; lists, dicts, sets, tensors (in place), cells and instances can
 * change, and every change goes through the undo log (runtime.h). Values
 * that can hold others are tracked so interp_free can free reference cycles
 * (value_gc_collect). */
#ifndef QKV_LANG_VALUE_H
#define QKV_LANG_VALUE_H

#include "core/error.h"
#include "core/strbuf.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stdint.h>

enum value_kind {
	V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR,
	V_TENSOR,   /* torch tensor or numpy array (t->flavor) */
	V_LIST, V_TUPLE,
	V_SIZE,     /* torch.Size: a tuple of ints that prints as torch.Size([2, 3]) */
	V_MODULE,   /* namespace, str = dotted path ("torch.nn") */
	V_FUNC,     /* built-in function, str = qualified name */
	V_METHOD,   /* bound method: self + str = method name */
	V_OBJECT,   /* nn.Linear, nn.Dropout */
	V_DTYPE,    /* torch.float32, np.float64, ... */
	V_DICT,     /* keys[i] -> items[i], insertion order; n entries, cap slots */
	V_SET,      /* items, n of cap */
	V_RANGE,    /* range(i, stop, step), lazy */
	V_ITER,     /* an iterator (enumerate, zip, map, ...): it */
	V_CELL,     /* a closure's variable: self is its value or NULL (unbound) */
	V_FUNCTION, /* a def or lambda: fn */
	V_CLASS,    /* a class statement's class, or nn.Module & co.: cls */
	V_INSTANCE, /* an instance of a V_CLASS: inst */
	V_BOUND,    /* a V_FUNCTION bound to self (a method) */
	V_SUPER,    /* super(): self, cls = the class whose base is searched */
	V_GRADFN,   /* x.grad_fn: str = torch's node name ("MmBackward0"), prints <MmBackward0 object> */
};

enum object_kind { OBJ_LINEAR, OBJ_DROPOUT, OBJ_EMBEDDING, OBJ_LAYERNORM };
/* "Linear", "Dropout", "Embedding", "LayerNorm": the class's name in torch.nn */
const char *object_kind_name(enum object_kind k);

struct object {
	enum object_kind kind;
	struct value *weight;   /* Linear: (out, in); Embedding: (num, dim); LayerNorm: the shape or None */
	struct value *bias;     /* Linear: (out,) tensor or None; LayerNorm: the shape or None */
	int64_t in_features, out_features; /* Linear; Embedding: num_embeddings, embedding_dim */
	double p;               /* Dropout; LayerNorm: eps */
	int64_t padding_idx;    /* Embedding: the row kept at 0, or -1 */
	int norm_ndim;          /* LayerNorm: normalized_shape */
	int64_t norm_shape[TENSOR_MAX_DIMS];
	bool training;
};

struct builtin;
struct func;
struct klass;
struct inst;
struct iter;
struct pyset;

struct value {
	int refs;
	enum value_kind kind;
	unsigned txn;           /* containers: the transaction that last saved it in the undo log */
	int gc_refs;            /* the cycle collector's scratch count */
	struct value *gc_prev, *gc_next; /* tracked containers: the interpreter's list */
	bool b;
	int64_t i;
	double f;
	bool f32;               /* V_FLOAT: a numpy float32 scalar (prints in float32 digits) */
	bool np;                /* V_FLOAT, V_INT, V_BOOL: a numpy scalar (np.float64, with f32
	                           np.float32, np.int64, np.bool_), whose operators and attributes
	                           are a 0-d array's; V_DTYPE: numpy's scalar type (np.float64),
	                           not a dtype (a.dtype), though the two compare equal */
	char *str;              /* V_STR text, V_MODULE/V_FUNC/V_METHOD name (owned) */
	const struct builtin *builtin; /* V_FUNC: its function when known (the immortal ones), or NULL */
	struct tensor *t;       /* V_TENSOR */
	bool parameter;         /* V_TENSOR: an nn.Parameter (prints as one) */
	int n;                  /* V_LIST/V_TUPLE/V_SIZE */
	struct value **items;
	struct value *self;     /* V_METHOD */
	struct object *obj;     /* V_OBJECT */
	enum dtype dtype;       /* V_DTYPE */
	enum flavor flavor;     /* V_DTYPE */
	int cap;                /* V_LIST/V_DICT/V_SET: slots allocated */
	int hcap;               /* hidx's slots */
	struct value **keys;    /* V_DICT */
	int64_t stop, step;     /* V_RANGE: start is i */
	struct iter *it;        /* V_ITER */
	struct func *fn;        /* V_FUNCTION, V_BOUND */
	struct klass *cls;      /* V_CLASS, V_SUPER */
	struct inst *inst;      /* V_INSTANCE */
	int *hidx;              /* V_DICT/V_SET of 16 or more: a hash index of the entries, or NULL */
	struct pyset *pyset;    /* V_SET: CPython's hash table of it, items[] in its slot order, or NULL
	                           (an item whose hash CPython does not fix: insertion order) */
};

/* The tree a function's code lives in: shared by every function made from
 * one statement, released (release) when the last one goes. */
struct code {
	int refs;
	void (*release)(struct code *c);
};

struct scope;

/* What a V_ITER walks. Dict views (keys(), values(), items()) are iterators
 * marked view: iterating one starts over, as Python's views do. */
enum iter_kind {
	IT_SEQ, IT_STR, IT_RANGE, IT_TENSOR, IT_DICT_KEYS, IT_DICT_VALUES, IT_DICT_ITEMS,
	IT_ENUMERATE, IT_ZIP, IT_MAP, IT_FILTER,
};

struct iter {
	enum iter_kind kind;
	bool view;
	struct value *src;        /* the iterated value; MAP/FILTER: the function */
	int64_t i, n, step;       /* position, end, step (SEQ backwards: -1) */
	int nsub;
	struct value **sub;       /* V_ITER values (ENUMERATE 1, ZIP/MAP n, FILTER 1) */
};

/* A def or lambda made at run time. */
struct func {
	const struct node *def;   /* N_DEF or N_LAMBDA, inside code */
	const struct scope *sc;   /* its resolved names (runtime.h) */
	struct code *code;
	char *name;               /* "forward", "<lambda>" */
	int nparams;
	struct value **defaults;  /* per parameter: its default or NULL */
	int nfree;
	struct value **cells;     /* the closure: V_CELL values */
	struct value *owner;      /* the class whose body made it (super()), or NULL */
	struct value **last;      /* the locals of its most recent call (nlocals), or NULL */
	int nlast;
};

enum class_builtin { CLS_USER, CLS_MODULE, CLS_MODULELIST, CLS_SEQUENTIAL };

struct klass {
	char *name;
	struct value *base;       /* V_CLASS or NULL */
	struct value *dict;       /* V_DICT: str -> value */
	enum class_builtin builtin;
};

struct inst {
	struct value *cls;        /* V_CLASS */
	struct value *dict;       /* V_DICT of plain attributes */
	/* nn.Module subclasses: torch's _parameters, _buffers, _modules (V_DICT each, else NULL) */
	struct value *params, *buffers, *modules;
	bool training;
};

struct value *value_none(void);
struct value *value_bool(bool b);
struct value *value_int(int64_t i);
struct value *value_float(double f);
struct value *value_str(const char *s);
struct value *value_str_take(char *s);
/* takes ownership of the tensor reference */
struct value *value_tensor(struct tensor *t);
/* The value of an op's result; NULL stays NULL. numpy 0-d results become
 * Python numbers, as numpy returns scalars. Takes the tensor reference. */
struct value *value_from_result(struct tensor *t);
/* the tensor marked as an nn.Parameter: a leaf that requires grad (it sets
 * t->grad, so pass a tensor no other value holds) */
struct value *value_parameter(struct tensor *t);
/* an empty sequence of n slots to fill (items[i] owned) */
struct value *value_seq(enum value_kind kind, int n);
struct value *value_named(enum value_kind kind, const char *name);
/* A V_MODULE or V_FUNC value that lives as long as the program, shared by
 * every interpreter and thread: value_ref and value_unref never write its
 * count (-1), so nothing ever changes it. For the built-in names (builtins.c),
 * which a loop would otherwise make and free on every line. */
struct value *value_immortal(enum value_kind kind, const char *name);
struct value *value_method(struct value *self, const char *name);
struct value *value_object(struct object *obj);
struct value *value_dtype(enum dtype dt, enum flavor fl);
struct value *value_dict(void);
struct value *value_set(void);
struct value *value_range(int64_t start, int64_t stop, int64_t step);
struct value *value_cell(struct value *v);   /* takes v (may be NULL) */
struct value *value_function(struct func *fn);
struct value *value_class(struct klass *cls);
struct value *value_instance(struct inst *in);
struct value *value_bound(struct value *self, struct value *func);   /* refs both */
struct value *value_super(struct value *self, struct value *cls);    /* refs both */
/* What one list, tuple, dict or set may hold, and one string's bytes: an
 * operation that would pass them fails with a MemoryError naming the limit
 * before it allocates, instead of running the machine out of memory. */
#ifndef VALUE_MAX_ITEMS   /* the fuzz builds set smaller ones (Makefile, FUZZ_LIMITS) */
#define VALUE_MAX_ITEMS 10000000
#endif
#ifndef VALUE_MAX_STR
#define VALUE_MAX_STR (64 << 20)
#endif
/* 0 when a value of this kind may hold n items; else -1 with "MemoryError:
 * a list of 20000000 items is over qkv's limit of 10000000" (no place). */
int value_check_items(enum value_kind kind, int64_t n, struct qkv_error *err);
/* 0 when a string may have n bytes; else -1 with the MemoryError. */
int value_check_str(int64_t n, struct qkv_error *err);
/* Appends to a list or set (takes v; no undo: the caller logs first). */
void value_list_push(struct value *list, struct value *v);
/* The dict's entry for key, or -1. */
int value_dict_find(const struct value *d, const struct value *key);
int value_dict_find_str(const struct value *d, const char *key);
/* Sets d[key] = v (takes v, refs key). */
void value_dict_set(struct value *d, struct value *key, struct value *v);
void value_dict_set_str(struct value *d, const char *key, struct value *v);
/* Forgets a dict's or set's hash index after its entries were moved (it is
 * rebuilt when next needed). */
void value_index_drop(struct value *v);
/* Whether the set has an item equal to x (items[] may stay out of order). */
bool value_set_has(const struct value *set, const struct value *x);
/* Sets iterate in CPython 3.11's order (the slots of its hash table) while
 * every item has a hash CPython fixes: ints, bools, floats but nan, tuples of
 * these. A str (CPython salts its hash per process), None or any other item
 * makes the set keep the order its items came in. No undo: callers log first. */
/* Adds x unless an equal item is there (takes x): whether it went in. */
bool value_set_add(struct value *set, struct value *x);
/* An add puts its item at the end of items[] (with no move of the others):
 * whatever reads a set's items in order calls this first, which puts them in
 * CPython's order once after any number of adds (iteration, repr, the set
 * operations do). value_set_has, _discard and len need no order. */
void value_set_order(const struct value *set);
/* Removes the item equal to x (released), leaving a dummy in its slot as
 * CPython does: whether there was one. */
bool value_set_discard(struct value *set, const struct value *x);
/* Removes and returns the item set.pop() gives; the set is not empty. */
struct value *value_set_pop(struct value *set);
/* Empties the set (set.clear()). */
void value_set_clear(struct value *set);
/* Adds other's items as CPython's set_merge does (set.update(a_set), |=). */
void value_set_merge(struct value *set, const struct value *other);
/* Adds a dict's keys as set.update(a_dict) does. */
void value_set_merge_keys(struct value *set, const struct value *dict);
/* A new set: a copy, a | b, a & b, a - b, a ^ b, as CPython builds each. */
struct value *value_set_copy(const struct value *set);
struct value *value_set_union(const struct value *a, const struct value *b);
struct value *value_set_intersection(const struct value *a, const struct value *b);
struct value *value_set_difference(const struct value *a, const struct value *b);
struct value *value_set_symmetric_difference(const struct value *a, const struct value *b);
/* In place: a -= b, a ^= b. */
void value_set_difference_update(struct value *a, const struct value *b);
void value_set_symmetric_difference_update(struct value *a, const struct value *b);
/* a and r swap their items and tables (a &= b: a takes the body of a & b). */
void value_set_take_body(struct value *a, struct value *r);
/* The table of a set, saved for an undo and put back after its items were
 * (the same items, in the same order); NULL for a set without one. */
struct pyset *value_set_layout_save(const struct value *set);
void value_set_layout_restore(struct value *set, struct pyset *saved);
void value_set_layout_free(struct pyset *saved);
/* dst, a copy of src item for item (equal items, same order), gets src's table. */
void value_set_layout_copy(struct value *dst, const struct value *src);
/* Removes entry i (its key and value released). */
void value_dict_remove(struct value *d, int i);
/* Whether a value can be a dict key or set item (hashable): -1 with err if not. */
int value_check_hashable(const struct value *v, struct qkv_error *err);
/* Python's ==, for containers item by item (tensors by identity). */
bool value_equal(const struct value *a, const struct value *b);
/* The number of items of a range. */
int64_t value_range_len(const struct value *r);

/* Python truthiness; -1 with err for a tensor of more than one element. */
int value_truth(const struct value *v, struct qkv_error *err);
/* Converts a number or one-element tensor to double; -1 with err otherwise. */
int value_to_double(const struct value *v, double *out, const char *what, struct qkv_error *err);
/* Converts an int, bool or 0-d integer tensor; -1 with err otherwise. */
int value_to_int(const struct value *v, int64_t *out, const char *what, struct qkv_error *err);
/* Formats v for an f-string field or format() with spec (NULL = none). */
int value_format_field(struct strbuf *out, const struct value *v, const char *spec, struct qkv_error *err);

/* value_unref's work once the last reference went (value.c). */
void value_release(struct value *v);

/* Inline: a line makes and drops several references per operation, most
 * of them not the last. An immortal value's count (-1) is never written. */
static inline struct value *value_ref(struct value *v)
{
	if (v && v->refs >= 0)
		v->refs++;
	return v;
}

static inline void value_unref(struct value *v)
{
	if (!v || v->refs < 0 || --v->refs > 0)
		return;
	value_release(v);
}

/* "int", "float", "Tensor", "ndarray", "list", ... as Python would name it */
const char *value_type_name(const struct value *v);
static inline bool value_is_number(const struct value *v)   /* bool, int or float */
{
	return v->kind == V_BOOL || v->kind == V_INT || v->kind == V_FLOAT;
}
double value_as_double(const struct value *v); /* precondition: value_is_number */
/* A number as numpy's scalar math takes it: a 0-d array of its dtype (a
 * Python int an int64 one, a float a float64 one, a numpy scalar its own). */
struct tensor *value_scalar_array(const struct value *v);

/* The list tracking the containers made on this thread from now on (an
 * interpreter's, while it runs), or NULL. Returns the previous one. */
struct value *value_gc_use(struct value *list);
/* A new empty tracking list (a sentinel). */
struct value *value_gc_list(void);
/* Frees every value of list that only values of list reach (reference
 * cycles), then, with final, detaches the rest and frees the list. */
void value_gc_collect(struct value *list, bool final);
/* Calls fn on each value v holds a reference to. */
void value_each_child(struct value *v, void (*fn)(struct value *child, void *udata), void *udata);

/* repr(v) as the notebooks display a bare expression's value */
void value_repr(struct strbuf *out, const struct value *v);
/* str(v) as print(v) shows it */
void value_str_of(struct strbuf *out, const struct value *v);
/* How the text of a value reaches the __repr__ and __str__ of user classes
 * (lang/class.c), which value.c cannot call: fn writes the text of instance v
 * and returns 1, returns 0 for value.c's own, or -1 on an error it keeps. */
struct value_text_hook {
	int (*fn)(void *ctx, struct strbuf *out, const struct value *v);
	void *ctx;
};
/* repr(v) (repr) or str(v), hook asked for v when it is an instance and for
 * each instance inside it (a list's items are their repr); -1 when the hook
 * failed (out then holds part of the text, to be thrown away). */
int value_text(struct strbuf *out, const struct value *v, bool repr, const struct value_text_hook *hook);

#endif
