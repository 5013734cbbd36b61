/* value.c: construction, reference counting and printing of language values.
 * Printing delegates tensors to core/format.c so that everything a student
 * sees matches what Python, torch and numpy print. Never fails. */
#include "lang/value.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/spare.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Freed values kept for reuse, per thread: a loop of integer arithmetic
 * makes and frees a value per operation, and malloc would be most of its
 * time. */
#define SPARE_MAX 4096

static _Thread_local struct spare_list spare_values;

static void recycle(struct value *v)
{
	spare_put(&spare_values, v, SPARE_MAX);
}

static inline __attribute__((always_inline)) struct value *make(enum value_kind kind)
{
	struct value *v = spare_get(&spare_values);
	if (v) {
		_Static_assert(sizeof *v % 16 == 0, "struct value is not whole 16-byte blocks");
		mem_zero16(v, sizeof *v);
	} else {
		v = xcalloc(1, sizeof *v);
	}
	v->refs = 1;
	v->kind = kind;
	return v;
}

/* ---- tracking for the cycle collector ------------------------------------ */

static _Thread_local struct value *gc_current;

struct value *value_gc_use(struct value *list)
{
	struct value *old = gc_current;
	gc_current = list;
	return old;
}

struct value *value_gc_list(void)
{
	struct value *s = make(V_NONE);
	s->gc_prev = s->gc_next = s;
	return s;
}

static void track(struct value *v)
{
	struct value *s = gc_current;
	if (!s)
		return;
	v->gc_next = s->gc_next;
	v->gc_prev = s;
	s->gc_next->gc_prev = v;
	s->gc_next = v;
}

static void untrack(struct value *v)
{
	if (!v->gc_next)
		return;
	v->gc_prev->gc_next = v->gc_next;
	v->gc_next->gc_prev = v->gc_prev;
	v->gc_prev = v->gc_next = NULL;
}

/* None, True, False and the ints CPython keeps one object of (-5 ..
 * 256) are immortal values (value_immortal) shared by every thread: a loop
 * would otherwise make and free one for each i and each literal. Nothing
 * changes a number's value after it is made. */
#define SMALL_INT_MIN (-5)
#define SMALL_INT_MAX 256

static struct value shared_none, shared_bools[2], shared_ints[SMALL_INT_MAX - SMALL_INT_MIN + 1];
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static bool shared_done;	/* set (release) once shared_init has run: then no pthread_once call */

static void shared_init(void)
{
	shared_none = (struct value){ .refs = -1, .kind = V_NONE };
	for (int b = 0; b < 2; b++)
		shared_bools[b] = (struct value){ .refs = -1, .kind = V_BOOL, .b = b };
	for (int i = SMALL_INT_MIN; i <= SMALL_INT_MAX; i++)
		shared_ints[i - SMALL_INT_MIN] = (struct value){ .refs = -1, .kind = V_INT, .i = i };
	__atomic_store_n(&shared_done, true, __ATOMIC_RELEASE);
}

static void shared_ready(void)
{
	if (!__atomic_load_n(&shared_done, __ATOMIC_ACQUIRE))
		pthread_once(&shared_once, shared_init);
}

struct value *value_none(void)
{
	shared_ready();
	return &shared_none;
}

struct value *value_bool(bool b)
{
	shared_ready();
	return &shared_bools[b];
}

struct value *value_int(int64_t i)
{
	if (i >= SMALL_INT_MIN && i <= SMALL_INT_MAX) {
		shared_ready();
		return &shared_ints[i - SMALL_INT_MIN];
	}
	struct value *v = make(V_INT);
	v->i = i;
	return v;
}

struct value *value_float(double f)
{
	struct value *v = make(V_FLOAT);
	v->f = f;
	return v;
}

struct value *value_str_take(char *s)
{
	struct value *v = make(V_STR);
	v->str = s;
	return v;
}

struct value *value_str(const char *s)
{
	return value_str_take(xstrdup(s));
}

struct value *value_tensor(struct tensor *t)
{
	struct value *v = make(V_TENSOR);
	v->t = t;
	return v;
}

struct value *value_from_result(struct tensor *t)
{
	if (!t)
		return NULL;
	if (t->ndim == 0 && t->flavor == FLAVOR_NUMPY) {
		struct value *s = t->dtype == DT_BOOL ? value_bool(tensor_get(t, 0) != 0)
				: t->dtype == DT_I64 ? value_int(tensor_get_i64(t, 0))
				: value_float(tensor_get(t, 0));
		s->f32 = t->dtype == DT_F32;
		tensor_unref(t);
		return s;
	}
	return value_tensor(t);
}

struct value *value_parameter(struct tensor *t)
{
	struct value *v = value_tensor(t);
	v->parameter = true;
	t->grad = (struct grad_state){ .requires_grad = true };
	return v;
}

struct value *value_seq(enum value_kind kind, int n)
{
	struct value *v = make(kind);
	v->n = n;
	v->cap = n ? n : 1;
	v->items = xcalloc((size_t)v->cap, sizeof *v->items);
	if (kind != V_SIZE)
		track(v);
	return v;
}

struct value *value_named(enum value_kind kind, const char *name)
{
	struct value *v = make(kind);
	v->str = xstrdup(name);
	return v;
}

struct value *value_immortal(enum value_kind kind, const char *name)
{
	struct value *v = xcalloc(1, sizeof *v);
	v->refs = -1;
	v->kind = kind;
	v->str = xstrdup(name);
	return v;
}

struct value *value_method(struct value *self, const char *name)
{
	struct value *v = value_named(V_METHOD, name);
	v->self = value_ref(self);
	if (self->gc_next)
		track(v);
	return v;
}

struct value *value_dict(void)
{
	struct value *v = make(V_DICT);
	v->cap = 4;
	v->items = xcalloc(4, sizeof *v->items);
	v->keys = xcalloc(4, sizeof *v->keys);
	track(v);
	return v;
}

struct value *value_set(void)
{
	struct value *v = make(V_SET);
	v->cap = 4;
	v->items = xcalloc(4, sizeof *v->items);
	track(v);
	return v;
}

struct value *value_range(int64_t start, int64_t stop, int64_t step)
{
	struct value *v = make(V_RANGE);
	v->i = start;
	v->stop = stop;
	v->step = step;
	return v;
}

int64_t value_range_len(const struct value *r)
{
	__int128 span = r->step > 0 ? (__int128)r->stop - r->i : (__int128)r->i - r->stop;
	__int128 step = r->step > 0 ? r->step : -(__int128)r->step;
	__int128 n = span > 0 ? (span + step - 1) / step : 0;
	return n > INT64_MAX ? INT64_MAX : (int64_t)n;
}

struct value *value_cell(struct value *content)
{
	struct value *v = make(V_CELL);
	v->self = content;
	track(v);
	return v;
}

struct value *value_function(struct func *fn)
{
	struct value *v = make(V_FUNCTION);
	v->fn = fn;
	track(v);
	return v;
}

struct value *value_class(struct klass *cls)
{
	struct value *v = make(V_CLASS);
	v->cls = cls;
	track(v);
	return v;
}

struct value *value_instance(struct inst *in)
{
	struct value *v = make(V_INSTANCE);
	v->inst = in;
	track(v);
	return v;
}

struct value *value_bound(struct value *self, struct value *func)
{
	struct value *v = value_seq(V_BOUND, 1);
	v->self = value_ref(self);
	v->items[0] = value_ref(func);
	v->fn = func->fn;
	return v;
}

struct value *value_super(struct value *self, struct value *cls)
{
	struct value *v = value_seq(V_SUPER, 1);
	v->self = value_ref(self);
	v->items[0] = value_ref(cls);
	v->cls = cls->cls;
	return v;
}

static void index_appended(struct value *v);

int value_check_items(enum value_kind kind, int64_t n, struct qkv_error *err)
{
	if (n <= VALUE_MAX_ITEMS)
		return 0;
	static const char *const names[] = { [V_LIST] = "list", [V_TUPLE] = "tuple", [V_DICT] = "dict",
					     [V_SET] = "set" };
	const char *name = kind < (int)(sizeof names / sizeof names[0]) && names[kind] ? names[kind] : "list";
	return error_set(err, 0, 0, "MemoryError: a %s of %lld items is over qkv's limit of %d items", name,
			 (long long)n, VALUE_MAX_ITEMS);
}

int value_check_str(int64_t n, struct qkv_error *err)
{
	if (n <= VALUE_MAX_STR)
		return 0;
	return error_set(err, 0, 0, "MemoryError: a string of %lld bytes is over qkv's limit of %d bytes (64 MiB)",
			 (long long)n, VALUE_MAX_STR);
}

void value_list_push(struct value *list, struct value *v)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? 2 * list->cap : 4;
		list->items = xrealloc(list->items, sizeof *list->items * (size_t)list->cap);
	}
	list->items[list->n++] = v;
	if (list->kind == V_SET)
		index_appended(list);
}

static bool key_equal(const struct value *a, const struct value *b)
{
	if (a == b)
		return true;
	if (a->kind == V_STR && b->kind == V_STR)
		return strcmp(a->str, b->str) == 0;
	return value_equal(a, b);
}

/* ---- hash index of dicts and sets ---------------------------------------------------
 * Small ones are searched in order; from INDEX_MIN entries on, an open-
 * addressing table of entry numbers, built when first needed, kept up to
 * date by appends and dropped by removals (rebuilt on the next search). */
#define INDEX_MIN 16

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* Equal values hash alike (1, 1.0 and True; a tuple and a Size). */
static uint64_t value_hash(const struct value *v)
{
	switch (v->kind) {
	case V_NONE: return 0x9e3779b9;
	case V_BOOL: return mix((uint64_t)v->b);
	case V_INT: return mix((uint64_t)v->i);
	case V_FLOAT:
		if (v->f == v->f && v->f >= -9.2e18 && v->f <= 9.2e18 && v->f == (double)(int64_t)v->f)
			return mix((uint64_t)(int64_t)v->f);
		{
			uint64_t bits;
			memcpy(&bits, &v->f, sizeof bits);
			return mix(bits);
		}
	case V_STR: case V_MODULE: case V_FUNC: {
		uint64_t h = 1469598103934665603ULL;
		for (const unsigned char *p = (const unsigned char *)v->str; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		return h;
	}
	case V_TUPLE: case V_SIZE: case V_LIST: {
		uint64_t h = 0x345678;
		for (int i = 0; i < v->n; i++)
			h = mix(h ^ value_hash(v->items[i]));
		return h;
	}
	case V_DTYPE: return mix((uint64_t)v->dtype * 2 + (uint64_t)v->flavor);
	case V_RANGE: case V_DICT: case V_SET: case V_BOUND: return 7;
	default: return mix((uint64_t)(uintptr_t)v);
	}
}

static struct value **index_entries(const struct value *v)
{
	return v->kind == V_DICT ? v->keys : v->items;
}

void value_index_drop(struct value *v)
{
	free(v->hidx);
	v->hidx = NULL;
	v->hcap = 0;
}

static void index_put(struct value *v, int i)
{
	int mask = v->hcap - 1;
	int slot = (int)(value_hash(index_entries(v)[i]) & (uint64_t)mask);
	while (v->hidx[slot] >= 0)
		slot = (slot + 1) & mask;
	v->hidx[slot] = i;
}

static void index_build(struct value *v)
{
	int cap = 32;
	while (cap < 4 * v->n)
		cap *= 2;
	free(v->hidx);
	v->hidx = xmalloc(sizeof *v->hidx * (size_t)cap);
	v->hcap = cap;
	for (int i = 0; i < cap; i++)
		v->hidx[i] = -1;
	for (int i = 0; i < v->n; i++)
		index_put(v, i);
}

/* After an append of entry n-1. */
static void index_appended(struct value *v)
{
	if (!v->hidx)
		return;
	if (2 * v->n > v->hcap)
		value_index_drop(v);
	else
		index_put(v, v->n - 1);
}

static int index_find(const struct value *cv, const struct value *key)
{
	struct value *v = (struct value *)cv;	/* the index is a cache */
	struct value **e = index_entries(v);
	if (v->n < INDEX_MIN) {
		for (int i = 0; i < v->n; i++)
			if (key_equal(e[i], key))
				return i;
		return -1;
	}
	if (!v->hidx)
		index_build(v);
	int mask = v->hcap - 1;
	for (int slot = (int)(value_hash(key) & (uint64_t)mask); v->hidx[slot] >= 0; slot = (slot + 1) & mask)
		if (key_equal(e[v->hidx[slot]], key))
			return v->hidx[slot];
	return -1;
}

int value_dict_find(const struct value *d, const struct value *key)
{
	return index_find(d, key);
}

int value_set_find(const struct value *set, const struct value *x)
{
	return index_find(set, x);
}

int value_dict_find_str(const struct value *d, const char *key)
{
	if (d->n >= INDEX_MIN) {
		struct value k = { .refs = 1, .kind = V_STR, .str = (char *)key };
		return index_find(d, &k);
	}
	for (int i = 0; i < d->n; i++)
		if (d->keys[i]->kind == V_STR && strcmp(d->keys[i]->str, key) == 0)
			return i;
	return -1;
}

void value_dict_set(struct value *d, struct value *key, struct value *v)
{
	int i = value_dict_find(d, key);
	if (i >= 0) {
		value_unref(d->items[i]);
		d->items[i] = v;
		return;
	}
	if (d->n == d->cap) {
		d->cap = 2 * d->cap;
		d->items = xrealloc(d->items, sizeof *d->items * (size_t)d->cap);
		d->keys = xrealloc(d->keys, sizeof *d->keys * (size_t)d->cap);
	}
	d->keys[d->n] = value_ref(key);
	d->items[d->n++] = v;
	index_appended(d);
}

void value_dict_set_str(struct value *d, const char *key, struct value *v)
{
	int i = value_dict_find_str(d, key);
	if (i >= 0) {
		value_unref(d->items[i]);
		d->items[i] = v;
		return;
	}
	struct value *k = value_str(key);
	value_dict_set(d, k, v);
	value_unref(k);
}

void value_dict_remove(struct value *d, int i)
{
	value_index_drop(d);
	value_unref(d->keys[i]);
	value_unref(d->items[i]);
	memmove(d->keys + i, d->keys + i + 1, sizeof *d->keys * (size_t)(d->n - i - 1));
	memmove(d->items + i, d->items + i + 1, sizeof *d->items * (size_t)(d->n - i - 1));
	d->n--;
}

int value_check_hashable(const struct value *v, struct qkv_error *err)
{
	if (v->kind == V_LIST || v->kind == V_DICT || v->kind == V_SET)
		return error_set(err, 0, 0, "TypeError: unhashable type: '%s'", value_type_name(v));
	if (v->kind == V_TUPLE)
		for (int i = 0; i < v->n; i++)
			if (value_check_hashable(v->items[i], err) < 0)
				return -1;
	return 0;
}

bool value_equal(const struct value *a, const struct value *b)
{
	if (a == b)
		return true;
	if (value_is_number(a) && value_is_number(b)) {
		if (a->kind != V_FLOAT && b->kind != V_FLOAT)
			return (a->kind == V_INT ? a->i : a->b) == (b->kind == V_INT ? b->i : b->b);
		return value_as_double(a) == value_as_double(b);
	}
	bool seq_a = a->kind == V_LIST || a->kind == V_TUPLE || a->kind == V_SIZE;
	bool seq_b = b->kind == V_LIST || b->kind == V_TUPLE || b->kind == V_SIZE;
	if (seq_a && seq_b) {
		if ((a->kind == V_LIST) != (b->kind == V_LIST) || a->n != b->n)
			return false;
		for (int i = 0; i < a->n; i++)
			if (!value_equal(a->items[i], b->items[i]))
				return false;
		return true;
	}
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case V_NONE: return true;
	case V_STR: return strcmp(a->str, b->str) == 0;
	case V_MODULE: case V_FUNC: return strcmp(a->str, b->str) == 0;
	case V_DTYPE: return a->dtype == b->dtype && a->flavor == b->flavor;
	case V_RANGE:
		return value_range_len(a) == value_range_len(b) &&
		       (value_range_len(a) == 0 || (a->i == b->i && (value_range_len(a) == 1 || a->step == b->step)));
	case V_DICT:
		if (a->n != b->n)
			return false;
		for (int i = 0; i < a->n; i++) {
			int j = value_dict_find(b, a->keys[i]);
			if (j < 0 || !value_equal(a->items[i], b->items[j]))
				return false;
		}
		return true;
	case V_SET:
		if (a->n != b->n)
			return false;
		for (int i = 0; i < a->n; i++)
			if (value_set_find(b, a->items[i]) < 0)
				return false;
		return true;
	case V_BOUND: return a->self == b->self && a->fn == b->fn;
	default: return false;
	}
}

struct value *value_object(struct object *obj)
{
	struct value *v = make(V_OBJECT);
	v->obj = obj;
	return v;
}

struct value *value_dtype(enum dtype dt, enum flavor fl)
{
	struct value *v = make(V_DTYPE);
	v->dtype = dt;
	v->flavor = fl;
	return v;
}

/* Calls fn on each value v holds a reference to. */
void value_each_child(struct value *v, void (*fn)(struct value *child, void *udata), void *udata)
{
#define CHILD(x) do { if (x) fn((x), udata); } while (0)
	for (int i = 0; i < v->n && v->items; i++)
		CHILD(v->items[i]);
	if (v->keys)
		for (int i = 0; i < v->n; i++)
			CHILD(v->keys[i]);
	CHILD(v->self);
	if (v->it) {
		CHILD(v->it->src);
		for (int i = 0; i < v->it->nsub; i++)
			CHILD(v->it->sub[i]);
	}
	if (v->kind == V_FUNCTION) {
		struct func *f = v->fn;
		for (int i = 0; i < f->nparams; i++)
			CHILD(f->defaults[i]);
		for (int i = 0; i < f->nfree; i++)
			CHILD(f->cells[i]);
		CHILD(f->owner);
		for (int i = 0; i < f->nlast; i++)
			CHILD(f->last[i]);
	}
	if (v->kind == V_CLASS) {
		CHILD(v->cls->base);
		CHILD(v->cls->dict);
	}
	if (v->kind == V_INSTANCE) {
		struct inst *in = v->inst;
		CHILD(in->cls);
		CHILD(in->dict);
		CHILD(in->params);
		CHILD(in->buffers);
		CHILD(in->modules);
	}
#undef CHILD
}

/* Releases everything v holds (v itself stays, empty). */
static void value_clear(struct value *v)
{
	if (v->kind == V_TENSOR) {	/* the common case: its tensor is all a tensor value holds */
		tensor_unref(v->t);
		v->t = NULL;
		return;
	}
	free(v->str);
	v->str = NULL;
	tensor_unref(v->t);
	v->t = NULL;
	struct value **items = v->items, **keys = v->keys;
	int n = v->n;
	v->items = v->keys = NULL;
	v->n = 0;
	for (int i = 0; i < n && items; i++)
		value_unref(items[i]);
	for (int i = 0; i < n && keys; i++)
		value_unref(keys[i]);
	free(items);
	free(keys);
	value_index_drop(v);
	struct value *self = v->self;
	v->self = NULL;
	value_unref(self);
	if (v->obj) {
		value_unref(v->obj->weight);
		value_unref(v->obj->bias);
		free(v->obj);
		v->obj = NULL;
	}
	if (v->it) {
		struct iter *it = v->it;
		v->it = NULL;
		value_unref(it->src);
		for (int i = 0; i < it->nsub; i++)
			value_unref(it->sub[i]);
		free(it->sub);
		free(it);
	}
	if (v->kind == V_FUNCTION && v->fn) {
		struct func *f = v->fn;
		v->fn = NULL;
		for (int i = 0; i < f->nparams; i++)
			value_unref(f->defaults[i]);
		free(f->defaults);
		for (int i = 0; i < f->nfree; i++)
			value_unref(f->cells[i]);
		free(f->cells);
		value_unref(f->owner);
		for (int i = 0; i < f->nlast; i++)
			value_unref(f->last[i]);
		free(f->last);
		free(f->name);
		if (f->code && --f->code->refs == 0)
			f->code->release(f->code);
		free(f);
	}
	if (v->kind == V_CLASS && v->cls) {
		struct klass *c = v->cls;
		v->cls = NULL;
		value_unref(c->base);
		value_unref(c->dict);
		free(c->name);
		free(c);
	}
	if (v->kind == V_INSTANCE && v->inst) {
		struct inst *in = v->inst;
		v->inst = NULL;
		value_unref(in->cls);
		value_unref(in->dict);
		value_unref(in->params);
		value_unref(in->buffers);
		value_unref(in->modules);
		free(in);
	}
}

/* Values whose count reached zero wait here, so freeing a long chain of
 * nested lists is a loop, not a recursion as deep as the chain. */
static _Thread_local struct value *free_pending;
static _Thread_local bool freeing;

void value_release(struct value *v)
{
	if (v->kind == V_TENSOR && !v->gc_next) {	/* an untracked tensor value holds its tensor only: */
		tensor_unref(v->t);			/* no value to release after it */
		v->t = NULL;
		recycle(v);
		return;
	}
	if (v->kind <= V_FLOAT) {	/* None, bools, numbers: never tracked, holding nothing */
		recycle(v);
		return;
	}
	untrack(v);
	v->gc_next = free_pending;
	free_pending = v;
	if (freeing)
		return;
	freeing = true;
	while (free_pending) {
		struct value *x = free_pending;
		free_pending = x->gc_next;
		x->gc_next = NULL;
		if (x->kind > V_FLOAT)	/* numbers and None hold nothing */
			value_clear(x);
		recycle(x);
	}
	freeing = false;
}

/* ---- the cycle collector ----------------------------------------------------
 * Trial deletion, as CPython's: a tracked value whose count is not all
 * explained by references from other tracked values is reached from outside;
 * whatever those reach lives, the rest are cycles nothing else can reach. */
#define GC_REACHED (1 << 29)

static void gc_decrement(struct value *child, void *udata)
{
	(void)udata;
	if (child->gc_next)
		child->gc_refs--;
}

struct gc_stack {
	struct value **v;
	size_t n, cap;
};

static void gc_push(struct gc_stack *s, struct value *v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, sizeof *s->v * s->cap);
	}
	s->v[s->n++] = v;
}

static void gc_reach(struct value *child, void *udata)
{
	if (child->gc_next && child->gc_refs < GC_REACHED) {
		child->gc_refs = GC_REACHED;
		gc_push(udata, child);
	}
}

void value_gc_collect(struct value *list, bool final)
{
	for (struct value *v = list->gc_next; v != list; v = v->gc_next)
		v->gc_refs = v->refs;
	for (struct value *v = list->gc_next; v != list; v = v->gc_next)
		value_each_child(v, gc_decrement, NULL);
	struct gc_stack st = { 0 };
	for (struct value *v = list->gc_next; v != list; v = v->gc_next) {
		if (v->gc_refs > 0 && v->gc_refs < GC_REACHED) {
			v->gc_refs = GC_REACHED;
			gc_push(&st, v);
			while (st.n) {
				struct value *x = st.v[--st.n];
				value_each_child(x, gc_reach, &st);
			}
		}
	}
	size_t ndead = 0;
	for (struct value *v = list->gc_next; v != list; v = v->gc_next)
		if (v->gc_refs < GC_REACHED)
			gc_push(&st, v), ndead++;
	for (size_t i = 0; i < ndead; i++)
		value_ref(st.v[i]);
	for (size_t i = 0; i < ndead; i++)
		value_clear(st.v[i]);
	for (size_t i = 0; i < ndead; i++)
		value_unref(st.v[i]);
	free(st.v);
	if (final) {
		while (list->gc_next != list)
			untrack(list->gc_next);
		free(list);
	}
}

const char *value_type_name(const struct value *v)
{
	switch (v->kind) {
	case V_NONE: return "NoneType";
	case V_BOOL: return "bool";
	case V_INT: return "int";
	case V_FLOAT: return "float";
	case V_STR: return "str";
	case V_TENSOR: return v->t->flavor == FLAVOR_NUMPY ? "ndarray" : "Tensor";
	case V_LIST: return "list";
	case V_TUPLE: return "tuple";
	case V_SIZE: return "torch.Size";
	case V_MODULE: return "module";
	case V_FUNC: return "builtin_function";
	case V_METHOD: return "method";
	case V_OBJECT: return v->obj->kind == OBJ_LINEAR ? "Linear" : "Dropout";
	case V_DTYPE: return "dtype";
	case V_DICT: return "dict";
	case V_SET: return "set";
	case V_RANGE: return "range";
	case V_ITER: {
		static const char *const names[] = { "list_iterator", "str_iterator", "range_iterator", "iterator",
						     "dict_keys", "dict_values", "dict_items", "enumerate", "zip",
						     "map", "filter" };
		return names[v->it->kind];
	}
	case V_CELL: return "cell";
	case V_FUNCTION: return "function";
	case V_CLASS: return "type";
	case V_INSTANCE: return v->inst->cls->cls->name;
	case V_BOUND: return "method";
	case V_SUPER: return "super";
	case V_GRADFN: return v->str;
	}
	return "?";
}

double value_as_double(const struct value *v)
{
	return v->kind == V_FLOAT ? v->f : v->kind == V_INT ? (double)v->i : (double)v->b;
}

static void repr_str(struct strbuf *out, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	strbuf_putc(out, q);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == (unsigned char)q)
			strbuf_printf(out, "\\%c", *p);
		else if (*p == '\n')
			strbuf_puts(out, "\\n");
		else if (*p == '\t')
			strbuf_puts(out, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_printf(out, "\\x%02x", *p);
		else
			strbuf_putc(out, (char)*p);
	}
	strbuf_putc(out, q);
}

static void dtype_repr(struct strbuf *out, enum dtype dt, enum flavor fl)
{
	if (fl == FLAVOR_NUMPY)
		strbuf_printf(out, "dtype('%s')", dtype_name(dt));
	else
		strbuf_printf(out, "torch.%s", dtype_name(dt));
}

/* The containers being printed, so one that holds itself prints [...]. */
static _Thread_local const struct value *printing[200];
static _Thread_local int nprinting;

static void repr_nested(struct strbuf *out, const struct value *v);
static void repr_plain(struct strbuf *out, const struct value *v);

static void seq_repr(struct strbuf *out, const struct value *v)
{
	if (v->kind == V_TUPLE && v->str) {	/* torch.return_types.max & co (rank.c) */
		strbuf_printf(out, "%s(\nvalues=", v->str);
		repr_nested(out, v->items[0]);
		strbuf_puts(out, ",\nindices=");
		repr_nested(out, v->items[1]);
		strbuf_putc(out, ')');
		return;
	}
	const char *open = v->kind == V_LIST ? "[" : v->kind == V_SIZE ? "torch.Size([" : "(";
	const char *close = v->kind == V_LIST ? "]" : v->kind == V_SIZE ? "])" : ")";
	strbuf_puts(out, open);
	for (int i = 0; i < v->n && out->len <= VALUE_MAX_STR; i++) {
		if (i)
			strbuf_puts(out, ", ");
		repr_nested(out, v->items[i]);	/* str() of a container shows its items' repr */
	}
	if (v->kind == V_TUPLE && v->n == 1)
		strbuf_putc(out, ',');
	strbuf_puts(out, close);
}

static void dict_repr(struct strbuf *out, const struct value *v)
{
	strbuf_putc(out, '{');
	for (int i = 0; i < v->n && out->len <= VALUE_MAX_STR; i++) {
		if (i)
			strbuf_puts(out, ", ");
		repr_nested(out, v->keys[i]);
		strbuf_puts(out, ": ");
		repr_nested(out, v->items[i]);
	}
	strbuf_putc(out, '}');
}

static void set_repr(struct strbuf *out, const struct value *v)
{
	if (v->n == 0) {
		strbuf_puts(out, "set()");
		return;
	}
	strbuf_putc(out, '{');
	for (int i = 0; i < v->n && out->len <= VALUE_MAX_STR; i++) {
		if (i)
			strbuf_puts(out, ", ");
		repr_nested(out, v->items[i]);
	}
	strbuf_putc(out, '}');
}

static void iter_repr(struct strbuf *out, const struct value *v)
{
	const struct iter *it = v->it;
	const struct value *d = it->src;
	if (!it->view || !d || d->kind != V_DICT) {
		strbuf_printf(out, "<%s object>", value_type_name(v));
		return;
	}
	strbuf_printf(out, "%s([", value_type_name(v));
	for (int i = 0; i < d->n; i++) {
		if (i)
			strbuf_puts(out, ", ");
		if (it->kind == IT_DICT_ITEMS) {
			strbuf_putc(out, '(');
			repr_nested(out, d->keys[i]);
			strbuf_puts(out, ", ");
			repr_nested(out, d->items[i]);
			strbuf_putc(out, ')');
		} else {
			repr_nested(out, it->kind == IT_DICT_KEYS ? d->keys[i] : d->items[i]);
		}
	}
	strbuf_puts(out, "])");
}

static bool is_module_value(const struct value *v)
{
	return v->kind == V_OBJECT || (v->kind == V_INSTANCE && v->inst->modules);
}

/* torch's Module.__repr__: the children one per line, each indented by two
 * more spaces than its parent ((name): repr). */
static void module_repr(struct strbuf *out, const struct value *v)
{
	const struct inst *in = v->inst;
	strbuf_printf(out, "%s(", in->cls->cls->name);
	const struct value *m = in->modules;
	if (m->n == 0) {
		strbuf_putc(out, ')');
		return;
	}
	strbuf_putc(out, '\n');
	for (int i = 0; i < m->n; i++) {
		struct strbuf child;
		strbuf_init(&child);
		repr_nested(&child, m->items[i]);
		strbuf_printf(out, "  (%s): ", m->keys[i]->str);
		for (const char *p = child.s; *p; p++) {
			strbuf_putc(out, *p);
			if (*p == '\n')
				strbuf_puts(out, "  ");
		}
		strbuf_free(&child);
		strbuf_putc(out, '\n');
	}
	strbuf_putc(out, ')');
}

/* The hook of the value_text call under way (NULL: none), and whether it
 * has failed: from then on the text is thrown away, so it is not asked again. */
static _Thread_local const struct value_text_hook *text_hook;
static _Thread_local bool text_hook_failed;

static void repr_nested(struct strbuf *out, const struct value *v)
{
	if (v->kind == V_INSTANCE && text_hook && !text_hook_failed) {
		int rc = text_hook->fn(text_hook->ctx, out, v);
		if (rc != 0) {
			text_hook_failed = rc < 0;
			return;
		}
	}
	bool container = v->kind == V_LIST || v->kind == V_DICT || v->kind == V_SET || v->kind == V_TUPLE ||
			 v->kind == V_INSTANCE;
	if (container) {
		for (int i = 0; i < nprinting; i++) {
			if (printing[i] == v) {
				strbuf_puts(out, v->kind == V_LIST ? "[...]" : v->kind == V_DICT ? "{...}" : "...");
				return;
			}
		}
		if (nprinting == (int)(sizeof printing / sizeof printing[0])) {
			strbuf_puts(out, "...");
			return;
		}
		printing[nprinting++] = v;
	}
	repr_plain(out, v);
	if (container)
		nprinting--;
}

void value_repr(struct strbuf *out, const struct value *v)
{
	size_t start = out->len;
	repr_nested(out, v);
	if (out->len - start > VALUE_MAX_STR)
		strbuf_puts(out, " ... (cut: over qkv's limit of 64 MiB for one text)");
}

static void repr_plain(struct strbuf *out, const struct value *v)
{
	switch (v->kind) {
	case V_NONE: strbuf_puts(out, "None"); break;
	case V_BOOL: strbuf_puts(out, v->b ? "True" : "False"); break;
	case V_INT: strbuf_printf(out, "%lld", (long long)v->i); break;
	case V_FLOAT:
		if (v->f32)
			format_shortest(out, v->f, DT_F32);	/* numpy's float32 scalar */
		else
			format_py_float(out, v->f);
		break;
	case V_STR: repr_str(out, v->str); break;
	case V_TENSOR:
		if (v->parameter && v->t->flavor == FLAVOR_TORCH)
			format_repr_parameter(out, v->t);
		else
			format_repr(out, v->t);
		break;
	case V_LIST: case V_TUPLE: case V_SIZE: seq_repr(out, v); break;
	case V_MODULE: strbuf_printf(out, "<module '%s'>", v->str); break;
	case V_FUNC: {
		static const char *const types[] = { "builtins.int", "builtins.float", "builtins.str", "builtins.bool",
						     "builtins.list", "builtins.tuple", "builtins.dict", "builtins.set",
						     "builtins.range", "builtins.type", "torch.Tensor", "numpy.ndarray",
						     NULL };
		for (int i = 0; types[i]; i++) {
			if (strcmp(types[i], v->str) == 0) {
				const char *s = strncmp(v->str, "builtins.", 9) == 0 ? v->str + 9 : v->str;
				strbuf_printf(out, "<class '%s'>", s);
				return;
			}
		}
		strbuf_printf(out, "<built-in function %s>", v->str);
		break;
	}
	case V_METHOD:
		strbuf_printf(out, "<built-in method %s of %s object>", v->str, value_type_name(v->self));
		break;
	case V_OBJECT:
		if (v->obj->kind == OBJ_LINEAR)
			strbuf_printf(out, "Linear(in_features=%lld, out_features=%lld, bias=%s)",
				      (long long)v->obj->in_features, (long long)v->obj->out_features,
				      v->obj->bias && v->obj->bias->kind != V_NONE ? "True" : "False");
		else {
			strbuf_puts(out, "Dropout(p=");
			format_py_float(out, v->obj->p);
			strbuf_puts(out, ", inplace=False)");
		}
		break;
	case V_DTYPE: dtype_repr(out, v->dtype, v->flavor); break;
	case V_DICT: dict_repr(out, v); break;
	case V_SET: set_repr(out, v); break;
	case V_RANGE:
		if (v->step == 1)
			strbuf_printf(out, "range(%lld, %lld)", (long long)v->i, (long long)v->stop);
		else
			strbuf_printf(out, "range(%lld, %lld, %lld)", (long long)v->i, (long long)v->stop,
				      (long long)v->step);
		break;
	case V_ITER: iter_repr(out, v); break;
	case V_CELL: strbuf_puts(out, "<cell>"); break;
	case V_FUNCTION: strbuf_printf(out, "<function %s>", v->fn->name); break;
	case V_CLASS:
		if (v->cls->builtin == CLS_USER)
			strbuf_printf(out, "<class '__main__.%s'>", v->cls->name);
		else
			strbuf_printf(out, "<class 'torch.nn.%s'>", v->cls->name);
		break;
	case V_INSTANCE:
		if (is_module_value(v))
			module_repr(out, v);
		else
			strbuf_printf(out, "<__main__.%s object>", v->inst->cls->cls->name);
		break;
	case V_BOUND:
		strbuf_printf(out, "<bound method %s of ", v->fn->name);
		repr_nested(out, v->self);
		strbuf_putc(out, '>');
		break;
	case V_SUPER: strbuf_printf(out, "<super: <class '%s'>>", v->cls->name); break;
	case V_GRADFN: strbuf_printf(out, "<%s object>", v->str); break;	/* torch adds " at 0x..." */
	}
}

int value_text(struct strbuf *out, const struct value *v, bool repr, const struct value_text_hook *hook)
{
	const struct value_text_hook *saved = text_hook;
	bool saved_failed = text_hook_failed;
	text_hook = hook;
	text_hook_failed = false;
	if (repr)
		value_repr(out, v);
	else
		value_str_of(out, v);
	bool failed = text_hook_failed;
	text_hook = saved;
	text_hook_failed = saved_failed;
	return failed ? -1 : 0;
}

void value_str_of(struct strbuf *out, const struct value *v)
{
	if (v->kind == V_STR)
		strbuf_puts(out, v->str);
	else if (v->kind == V_TENSOR && !v->parameter)
		format_str(out, v->t);
	else if (v->kind == V_DTYPE && v->flavor == FLAVOR_NUMPY)
		strbuf_puts(out, dtype_name(v->dtype));
	else
		value_repr(out, v);
}

/* ---- conversions ---------------------------------------------------------------- */

int value_truth(const struct value *v, struct qkv_error *err)
{
	switch (v->kind) {
	case V_NONE: return 0;
	case V_BOOL: return v->b;
	case V_INT: return v->i != 0;
	case V_FLOAT: return v->f != 0;
	case V_STR: return v->str[0] != 0;
	case V_LIST: case V_TUPLE: case V_SIZE: case V_DICT: case V_SET: return v->n != 0;
	case V_RANGE: return value_range_len(v) != 0;
	case V_INSTANCE:
		if (v->inst->modules && v->inst->cls->cls->builtin == CLS_MODULELIST)
			return v->inst->modules->n != 0;
		return 1;
	case V_TENSOR:
		if (tensor_numel(v->t) != 1)
			return error_set(err, 0, 0, "the truth value of a tensor with %lld elements is ambiguous "
					 "(use .all() or .any())", (long long)tensor_numel(v->t));
		return tensor_get(v->t, 0) != 0;
	default: return 1;
	}
}

int value_to_double(const struct value *v, double *out, const char *what, struct qkv_error *err)
{
	if (value_is_number(v)) {
		*out = value_as_double(v);
		return 0;
	}
	if (v->kind == V_TENSOR && tensor_numel(v->t) == 1) {
		*out = tensor_get(v->t, 0);
		return 0;
	}
	return error_set(err, 0, 0, "%s must be a number, got %s", what, value_type_name(v));
}

int value_to_int(const struct value *v, int64_t *out, const char *what, struct qkv_error *err)
{
	if (v->kind == V_INT || v->kind == V_BOOL) {
		*out = v->kind == V_INT ? v->i : v->b;
		return 0;
	}
	if (v->kind == V_TENSOR && v->t->ndim == 0 && !dtype_is_float(v->t->dtype)) {
		*out = tensor_get_i64(v->t, 0);
		return 0;
	}
	if (v->kind == V_FLOAT)
		return error_set(err, 0, 0, "%s must be an integer, got the float %g", what, v->f);
	return error_set(err, 0, 0, "%s must be an integer, got %s", what, value_type_name(v));
}

int value_format_field(struct strbuf *out, const struct value *v, const char *spec, struct qkv_error *err)
{
	if (!spec || !*spec) {
		if (v->kind == V_TENSOR && v->t->ndim == 0 && v->t->flavor == FLAVOR_TORCH) {
			/* Tensor.__format__ on a 0-d tensor formats .item() */
			if (dtype_is_float(v->t->dtype))
				format_py_float(out, tensor_get(v->t, 0));
			else if (v->t->dtype == DT_BOOL)
				strbuf_puts(out, tensor_get(v->t, 0) ? "True" : "False");
			else
				strbuf_printf(out, "%lld", (long long)tensor_get_i64(v->t, 0));
			return 0;
		}
		value_str_of(out, v);
		return 0;
	}
	int rc = -1;
	if (v->kind == V_INT || v->kind == V_BOOL)
		rc = format_py_int_spec(out, v->kind == V_INT ? v->i : v->b, spec);
	else if (v->kind == V_TENSOR && v->t->ndim == 0 && !dtype_is_float(v->t->dtype))
		rc = format_py_int_spec(out, tensor_get_i64(v->t, 0), spec);	/* its .item(): an int (or bool) */
	if (rc < 0 && (value_is_number(v) || (v->kind == V_TENSOR && v->t->ndim == 0)))
		rc = format_py_float_spec(out, v->kind == V_TENSOR ? tensor_get(v->t, 0) : value_as_double(v), spec);
	if (rc < 0 && v->kind == V_STR) {
		/* a string: width and alignment ("<10", ">5", "^8") */
		const char *p = spec;
		char align = '<', fill = ' ';
		if (p[0] && p[1] && strchr("<>^", p[1])) {
			fill = p[0];
			align = p[1];
			p += 2;
		} else if (p[0] && strchr("<>^", p[0])) {
			align = *p++;
		}
		char *end;
		long width = strtol(p, &end, 10);
		if ((*end == 0 || (*end == 's' && end[1] == 0)) && value_check_str(width, err) < 0)
			return -1;
		if (*end == 0 || (*end == 's' && end[1] == 0)) {
			long len = 0;
			for (const unsigned char *q = (const unsigned char *)v->str; *q; q++)
				len += (*q & 0xC0) != 0x80;
			long pad = width > len ? width - len : 0;
			long left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
			strbuf_pad(out, fill, (size_t)left);
			strbuf_puts(out, v->str);
			strbuf_pad(out, fill, (size_t)(pad - left));
			rc = 0;
		}
	}
	if (rc < 0 && (value_is_number(v) || v->kind == V_STR || (v->kind == V_TENSOR && v->t->ndim == 0)))
		return error_set(err, 0, 0, "format spec '%s' is not supported for %s", spec, value_type_name(v));
	if (rc < 0)	/* object.__format__ takes no spec */
		return error_set(err, 0, 0, "TypeError: unsupported format string passed to %s.__format__",
				 v->kind == V_TENSOR && v->t->flavor == FLAVOR_NUMPY ? "numpy.ndarray" : value_type_name(v));
	return 0;
}
