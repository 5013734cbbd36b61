/* value.h: the values of the notebook language.
 * Python numbers, strings, None, lists/tuples, torch.Size, tensors and numpy
 * arrays, namespaces (torch, np, ...), built-in functions and bound methods,
 * and the nn objects (Linear, Dropout). Values are reference counted and
 * immutable except tensors (in-place ops) and objects (attribute assignment). */
#ifndef QKV_LANG_VALUE_H
#define QKV_LANG_VALUE_H

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
	V_GRADFN,   /* x.grad_fn: str = torch's node name ("MmBackward0"), prints <MmBackward0 object> */
};

enum object_kind { OBJ_LINEAR, OBJ_DROPOUT };

struct object {
	enum object_kind kind;
	struct value *weight;   /* Linear: (out, in) tensor */
	struct value *bias;     /* Linear: (out,) tensor or None */
	int64_t in_features, out_features;
	double p;               /* Dropout */
	bool training;
};

struct value {
	int refs;
	enum value_kind kind;
	bool b;
	int64_t i;
	double f;
	bool f32;               /* V_FLOAT: a numpy float32 scalar (prints in float32 digits) */
	char *str;              /* V_STR text, V_MODULE/V_FUNC/V_METHOD name (owned) */
	struct tensor *t;       /* V_TENSOR */
	bool parameter;         /* V_TENSOR: an nn.Parameter (prints as one) */
	int n;                  /* V_LIST/V_TUPLE/V_SIZE */
	struct value **items;
	struct value *self;     /* V_METHOD */
	struct object *obj;     /* V_OBJECT */
	enum dtype dtype;       /* V_DTYPE */
	enum flavor flavor;     /* V_DTYPE */
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
struct value *value_method(struct value *self, const char *name);
struct value *value_object(struct object *obj);
struct value *value_dtype(enum dtype dt, enum flavor fl);

struct value *value_ref(struct value *v);
void value_unref(struct value *v);

/* "int", "float", "Tensor", "ndarray", "list", ... as Python would name it */
const char *value_type_name(const struct value *v);
bool value_is_number(const struct value *v);   /* bool, int or float */
double value_as_double(const struct value *v); /* precondition: value_is_number */

/* repr(v) as the notebooks display a bare expression's value */
void value_repr(struct strbuf *out, const struct value *v);
/* str(v) as print(v) shows it */
void value_str_of(struct strbuf *out, const struct value *v);

#endif
