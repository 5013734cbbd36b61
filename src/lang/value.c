/* value.c: construction, reference counting and printing of language values.
 * Printing delegates tensors to core/format.c so that everything a student
 * sees matches what Python, torch and numpy print. Never fails. */
#include "lang/value.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/spare.h"

#include <math.h>
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
		/* a value of its own: the shared bools and small ints are Python's */
		struct value *s = make(t->dtype == DT_BOOL ? V_BOOL : t->dtype == DT_I64 ? V_INT : V_FLOAT);
		if (t->dtype == DT_BOOL)
			s->b = tensor_get(t, 0) != 0;
		else if (t->dtype == DT_I64)
			s->i = tensor_get_i64(t, 0);
		else
			s->f = tensor_get(t, 0);
		s->f32 = t->dtype == DT_F32;
		s->np = true;
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

static struct pyset *table_new(size_t size, int cap);

struct value *value_set(void)
{
	struct value *v = make(V_SET);
	v->cap = 4;
	v->items = xcalloc(4, sizeof *v->items);
	v->pyset = table_new(8, v->cap);	/* SET_MINSIZE */
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
	if (list->kind == V_SET) {
		value_set_add(list, v);
		return;
	}
	if (list->n == list->cap) {	/* cap after the block: a MemoryError (mem.h) leaves it right */
		int cap = list->cap ? 2 * list->cap : 4;
		list->items = xrealloc(list->items, sizeof *list->items * (size_t)cap);
		list->cap = cap;
	}
	list->items[list->n++] = v;
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
		int cap = 2 * d->cap;
		d->items = xrealloc(d->items, sizeof *d->items * (size_t)cap);
		d->keys = xrealloc(d->keys, sizeof *d->keys * (size_t)cap);
		d->cap = cap;
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

/* ---- sets in CPython's order ----------------------------------------------------
 * CPython 3.11 keeps a set in an open-addressing table (Objects/setobject.c)
 * and iterates it slot by slot. A set here keeps the same table, probe for
 * probe (LINEAR_PROBES, the perturbation, fill and used, the resizes, the
 * dummies left by removals, pop's finger), and its items[] in slot order, so
 * print, for, list() and every operation see CPython's order. That holds
 * while every item's hash is one CPython fixes (set_hash); the first other
 * item drops the table and the set keeps its items in the order they came
 * (a str's hash is salted per process: CPython's own order is not
 * reproducible then). slot_of[k] is the slot of items[k], so the rank a
 * slot takes is a binary search. An add puts its item at the end of items[]
 * (an insertion at its rank moved half the set each time: 100,000 adds took
 * a second); items[] is put in slot order again when something reads it in
 * order (value_set_order), once after any number of adds. */
#define SET_MINSIZE 8
#define SET_LINEAR_PROBES 9
#define SET_PERTURB_SHIFT 5
#define HASH_BITS 61
#define HASH_MODULUS (((uint64_t)1 << HASH_BITS) - 1)

struct set_slot {
	int64_t hash;
	struct value *key;      /* NULL: never used; SET_DUMMY: removed (hash -1) */
};

struct pyset {
	size_t mask, fill, finger;      /* fill: slots used or dummy; finger: where pop looks first */
	struct set_slot *table;
	uint32_t *slot_of;              /* room for the set's cap items */
	bool unsorted;                  /* items[] (and slot_of[] with it) out of slot order after adds */
};

static struct value set_dummy;
#define SET_DUMMY (&set_dummy)

/* CPython's hash of an int: its value modulo 2**61 - 1, with its sign; -1 is -2. */
static int64_t hash_int(int64_t i)
{
	uint64_t a = i < 0 ? -(uint64_t)i : (uint64_t)i;
	a %= HASH_MODULUS;
	int64_t h = i < 0 ? -(int64_t)a : (int64_t)a;
	return h == -1 ? -2 : h;
}

/* CPython's _Py_HashDouble: a float equal to an int hashes as that int;
 * false for nan (hashed by address since 3.10). */
static bool hash_double(double v, int64_t *out)
{
	if (isnan(v))
		return false;
	if (isinf(v)) {
		*out = v > 0 ? 314159 : -314159;
		return true;
	}
	int e;
	double m = frexp(v, &e);
	uint64_t sign = 1;
	if (m < 0) {
		sign = (uint64_t)-1;
		m = -m;
	}
	uint64_t x = 0;
	while (m != 0) {
		x = ((x << 28) & HASH_MODULUS) | x >> (HASH_BITS - 28);
		m *= 268435456.0;	/* 2**28 */
		e -= 28;
		uint64_t y = (uint64_t)m;
		m -= (double)y;
		x += y;
		if (x >= HASH_MODULUS)
			x -= HASH_MODULUS;
	}
	e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
	x = ((x << e) & HASH_MODULUS) | x >> (HASH_BITS - e);
	x *= sign;
	if (x == (uint64_t)-1)
		x = (uint64_t)-2;
	*out = (int64_t)x;
	return true;
}

/* CPython's hash of v when it fixes one (not per process, not by address):
 * false for anything else. Tuples as 3.11's xxHash-based tuplehash. */
static bool set_hash(const struct value *v, int64_t *out)
{
	switch (v->kind) {
	case V_BOOL: *out = v->b; return true;
	case V_INT: *out = hash_int(v->i); return true;
	case V_FLOAT: return hash_double(v->f, out);
	case V_TUPLE: case V_SIZE: {
		const uint64_t p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL,
			       p5 = 2870177450012600261ULL;
		uint64_t acc = p5;
		for (int i = 0; i < v->n; i++) {
			int64_t lane;
			if (!set_hash(v->items[i], &lane))
				return false;
			acc += (uint64_t)lane * p2;
			acc = acc << 31 | acc >> 33;
			acc *= p1;
		}
		acc += (uint64_t)v->n ^ (p5 ^ 3527539UL);
		*out = acc == (uint64_t)-1 ? 1546275796 : (int64_t)acc;
		return true;
	}
	default: return false;
	}
}

static struct pyset *table_new(size_t size, int cap)
{
	struct pyset *t = xcalloc(1, sizeof *t);
	t->mask = size - 1;
	t->table = xcalloc(size, sizeof *t->table);
	t->slot_of = xmalloc(sizeof *t->slot_of * (size_t)(cap > 0 ? cap : 1));
	return t;
}

static void table_free(struct pyset *t)
{
	if (!t)
		return;
	free(t->table);
	free(t->slot_of);
	free(t);
}

/* The set goes on in insertion order (an item CPython hashes by address or per process). */
static void table_drop(struct value *s)
{
	table_free(s->pyset);
	s->pyset = NULL;
	value_index_drop(s);
}

static void set_reserve(struct value *s, int need)
{
	if (need <= s->cap)
		return;
	int cap = s->cap > 0 ? s->cap : 4;
	while (cap < need)
		cap *= 2;
	s->items = xrealloc(s->items, sizeof *s->items * (size_t)cap);
	if (s->pyset)
		s->pyset->slot_of = xrealloc(s->pyset->slot_of, sizeof *s->pyset->slot_of * (size_t)cap);
	s->cap = cap;
}

/* The rank of slot among the items: how many sit in slots before it. */
static int rank_of(const struct value *s, size_t slot)
{
	const uint32_t *so = s->pyset->slot_of;
	int lo = 0, hi = s->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (so[mid] < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* items[] and slot_of[] again from the table, in slot order. */
static void table_relist(struct value *s)
{
	struct pyset *t = s->pyset;
	int k = 0;
	for (size_t i = 0; i <= t->mask; i++)
		if (t->table[i].key && t->table[i].key != SET_DUMMY) {
			s->items[k] = t->table[i].key;
			t->slot_of[k++] = (uint32_t)i;
		}
	s->n = k;
	t->unsorted = false;
}

void value_set_order(const struct value *set)
{
	if (set->kind == V_SET && set->pyset && set->pyset->unsorted)
		table_relist((struct value *)set);	/* the same items: only their order changes */
}

/* Where items[] holds the item in slot: a binary search when items[] is in
 * slot order, else a walk. */
static int index_of_slot(const struct value *s, size_t slot)
{
	if (!s->pyset->unsorted)
		return rank_of(s, slot);
	const uint32_t *so = s->pyset->slot_of;
	int i = 0;
	while (so[i] != slot)
		i++;
	return i;
}

/* key into slot (unused or dummy), and at the end of items[] (put in slot
 * order when read: value_set_order). */
static void table_place(struct value *s, size_t slot, struct value *key, int64_t hash)
{
	set_reserve(s, s->n + 1);
	struct pyset *t = s->pyset;
	t->table[slot] = (struct set_slot){ hash, key };
	if (s->n > 0 && t->slot_of[s->n - 1] > slot)
		t->unsorted = true;
	s->items[s->n] = key;
	t->slot_of[s->n] = (uint32_t)slot;
	s->n++;
}

/* set_insert_clean's slot: the first never-used one on hash's probe sequence. */
static size_t table_probe_clean(const struct pyset *t, int64_t hash)
{
	size_t mask = t->mask, perturb = (size_t)hash, i = (size_t)hash & mask;
	for (;;) {
		if (!t->table[i].key)
			return i;
		if (i + SET_LINEAR_PROBES <= mask)
			for (size_t j = i + 1; j <= i + SET_LINEAR_PROBES; j++)
				if (!t->table[j].key)
					return j;
		perturb >>= SET_PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & mask;
	}
}

/* set_table_resize: the smallest power of two above minused, at least 8;
 * the items go in again in slot order and the dummies go. */
static void table_resize(struct value *s, size_t minused)
{
	struct pyset *t = s->pyset;
	size_t size = SET_MINSIZE;
	while (size <= minused)
		size <<= 1;
	if (size == SET_MINSIZE && t->mask + 1 == SET_MINSIZE && t->fill == (size_t)s->n)
		return;	/* the small table without dummies: nothing to do */
	struct set_slot *old = t->table;
	size_t oldmask = t->mask;
	t->table = xcalloc(size, sizeof *t->table);
	t->mask = size - 1;
	for (size_t i = 0; i <= oldmask; i++)
		if (old[i].key && old[i].key != SET_DUMMY)
			t->table[table_probe_clean(t, old[i].hash)] = old[i];
	free(old);
	t->fill = (size_t)s->n;
	table_relist(s);
}

/* set_lookkey: the slot of the item equal to key, or -1. */
static int64_t table_find(const struct pyset *t, const struct value *key, int64_t hash)
{
	size_t mask = t->mask, perturb = (size_t)hash, i = (size_t)hash & mask;
	for (;;) {
		size_t last = i + SET_LINEAR_PROBES <= mask ? i + SET_LINEAR_PROBES : i;
		for (size_t j = i; j <= last; j++) {
			const struct set_slot *e = &t->table[j];
			if (!e->key)
				return -1;
			if (e->hash == hash && key_equal(e->key, key))
				return (int64_t)j;
		}
		perturb >>= SET_PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & mask;
	}
}

/* set_add_entry: key into the first dummy on its probe sequence, else the
 * never-used slot that ends it, then a resize when fill reaches 3/5 of the
 * table. False (key not taken) when an equal item is there. */
static bool table_add(struct value *s, struct value *key, int64_t hash)
{
	struct pyset *t = s->pyset;
	size_t mask = t->mask, perturb = (size_t)hash, i = (size_t)hash & mask, at;
	int64_t freeslot = -1;
	for (;;) {
		size_t last = i + SET_LINEAR_PROBES <= mask ? i + SET_LINEAR_PROBES : i;
		for (size_t j = i; j <= last; j++) {
			const struct set_slot *e = &t->table[j];
			if (!e->key) {
				at = j;
				goto unused;
			}
			if (e->hash == hash && key_equal(e->key, key))
				return false;
			if (e->key == SET_DUMMY)
				freeslot = (int64_t)j;
		}
		perturb >>= SET_PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & mask;
	}
unused:
	if (freeslot >= 0) {
		table_place(s, (size_t)freeslot, key, hash);
		return true;
	}
	t->fill++;
	table_place(s, at, key, hash);
	if (t->fill * 5 >= mask * 3)
		table_resize(s, (size_t)s->n * (s->n > 50000 ? 2 : 4));
	return true;
}

bool value_set_add(struct value *s, struct value *x)
{
	int64_t hash;
	if (s->pyset && !set_hash(x, &hash)) {
		value_set_order(s);	/* the order so far is kept from here on */
		table_drop(s);
	}
	if (s->pyset) {
		if (table_add(s, x, hash))
			return true;
		value_unref(x);
		return false;
	}
	if (index_find(s, x) >= 0) {
		value_unref(x);
		return false;
	}
	set_reserve(s, s->n + 1);
	s->items[s->n++] = x;
	index_appended(s);
	return true;
}

/* The slot of the item equal to x in a set with a table, or -1. */
static int64_t set_slot_of(const struct value *set, const struct value *x)
{
	int64_t hash;
	if (!set_hash(x, &hash))	/* never equal to an item CPython hashes by value */
		return -1;
	return table_find(set->pyset, x, hash);
}

/* The index in items[] (as they are now) of the item equal to x, or -1. */
static int set_find(const struct value *set, const struct value *x)
{
	if (!set->pyset)
		return index_find(set, x);
	int64_t slot = set_slot_of(set, x);
	return slot < 0 ? -1 : index_of_slot(set, (size_t)slot);
}

bool value_set_has(const struct value *set, const struct value *x)
{
	return set->pyset ? set_slot_of(set, x) >= 0 : index_find(set, x) >= 0;
}

/* Takes item i out of items[] (not released); its slot becomes a dummy. */
static struct value *set_take(struct value *s, int i)
{
	struct value *x = s->items[i];
	if (s->pyset) {
		struct pyset *t = s->pyset;
		t->table[t->slot_of[i]] = (struct set_slot){ -1, SET_DUMMY };
		memmove(t->slot_of + i, t->slot_of + i + 1, sizeof *t->slot_of * (size_t)(s->n - i - 1));
	}
	memmove(s->items + i, s->items + i + 1, sizeof *s->items * (size_t)(s->n - i - 1));
	s->n--;
	if (!s->pyset)
		value_index_drop(s);
	return x;
}

bool value_set_discard(struct value *s, const struct value *x)
{
	int i = set_find(s, x);
	if (i >= 0)
		value_unref(set_take(s, i));
	return i >= 0;
}

/* set_pop: the first item at or after the finger, wrapping around. */
struct value *value_set_pop(struct value *s)
{
	if (!s->pyset)
		return set_take(s, 0);
	struct pyset *t = s->pyset;
	size_t i = t->finger & t->mask;
	while (!t->table[i].key || t->table[i].key == SET_DUMMY)
		i = i == t->mask ? 0 : i + 1;
	t->finger = i + 1;
	return set_take(s, index_of_slot(s, i));
}

void value_set_clear(struct value *s)
{
	struct value **items = s->items;
	int n = s->n;
	size_t finger = s->pyset ? s->pyset->finger : 0;
	table_free(s->pyset);
	value_index_drop(s);
	s->items = xcalloc(4, sizeof *s->items);
	s->cap = 4;
	s->n = 0;
	s->pyset = table_new(SET_MINSIZE, s->cap);	/* empty: CPython's order again */
	s->pyset->finger = finger;
	for (int i = 0; i < n; i++)
		value_unref(items[i]);
	free(items);
}

void value_set_merge(struct value *s, const struct value *other)
{
	if (other == s || other->n == 0)
		return;
	if (!s->pyset || !other->pyset) {
		for (int i = 0; i < other->n; i++)
			value_set_add(s, value_ref(other->items[i]));
		return;
	}
	struct pyset *t = s->pyset;
	const struct pyset *o = other->pyset;
	/* one resize first, for the items to come */
	if ((t->fill + (size_t)other->n) * 5 >= t->mask * 3)
		table_resize(s, (size_t)(s->n + other->n) * 2);
	t = s->pyset;
	if (t->fill == 0) {
		set_reserve(s, other->n);
		t = s->pyset;
		bool same = t->mask == o->mask && o->fill == (size_t)other->n;	/* then copy slot for slot */
		for (size_t i = 0; i <= o->mask; i++)
			if (o->table[i].key && o->table[i].key != SET_DUMMY)
				t->table[same ? i : table_probe_clean(t, o->table[i].hash)] =
					(struct set_slot){ o->table[i].hash, value_ref(o->table[i].key) };
		t->fill = (size_t)other->n;
		table_relist(s);
		return;
	}
	for (size_t i = 0; i <= o->mask; i++)
		if (o->table[i].key && o->table[i].key != SET_DUMMY && !table_add(s, value_ref(o->table[i].key),
										   o->table[i].hash))
			value_unref(o->table[i].key);
}

void value_set_merge_keys(struct value *s, const struct value *d)
{
	if (s->pyset && (s->pyset->fill + (size_t)d->n) * 5 >= s->pyset->mask * 3)
		table_resize(s, (size_t)(s->n + d->n) * 2);
	for (int i = 0; i < d->n; i++)
		value_set_add(s, value_ref(d->keys[i]));
}

struct value *value_set_copy(const struct value *set)
{
	struct value *r = value_set();
	value_set_merge(r, set);
	return r;
}

struct value *value_set_union(const struct value *a, const struct value *b)
{
	struct value *r = value_set_copy(a);
	if (b != a)	/* a | a is the copy: no merge, no resize */
		value_set_merge(r, b);
	return r;
}

/* set_intersection: the smaller set's items (b's when the sizes are equal) that the other has. */
struct value *value_set_intersection(const struct value *a, const struct value *b)
{
	if (a == b)
		return value_set_copy(a);
	if (b->n > a->n) {
		const struct value *tmp = a;
		a = b;
		b = tmp;
	}
	value_set_order(b);
	struct value *r = value_set();
	for (int i = 0; i < b->n; i++)
		if (value_set_has(a, b->items[i]))
			value_set_add(r, value_ref(b->items[i]));
	return r;
}

void value_set_difference_update(struct value *a, const struct value *b)
{
	if (a == b) {
		value_set_clear(a);
		return;
	}
	struct value *small = NULL;
	if ((b->n >> 3) > a->n)	/* b much larger: a & b instead */
		b = small = value_set_intersection(a, b);
	value_set_order(a);	/* a binary search for each removal (b's order does not matter) */
	for (int i = 0; i < b->n; i++) {
		value_set_discard(a, b->items[i]);
	}
	value_unref(small);
	/* more than a quarter of the table dummies: resize them away */
	struct pyset *t = a->pyset;
	if (t && t->fill - (size_t)a->n > t->mask / 4)
		table_resize(a, (size_t)a->n * (a->n > 50000 ? 2 : 4));
}

/* set_difference: a copy of a less b's items when a is over four times b's
 * size, else a's items that b lacks, added in a's order to a new set. */
struct value *value_set_difference(const struct value *a, const struct value *b)
{
	if ((a->n >> 2) > b->n) {
		struct value *r = value_set_copy(a);
		value_set_difference_update(r, b);
		return r;
	}
	value_set_order(a);
	struct value *r = value_set();
	for (int i = 0; i < a->n; i++)
		if (!value_set_has(b, a->items[i]))
			value_set_add(r, value_ref(a->items[i]));
	return r;
}

void value_set_symmetric_difference_update(struct value *a, const struct value *b)
{
	if (a == b) {
		value_set_clear(a);
		return;
	}
	value_set_order(a);	/* a binary search for each removal */
	value_set_order(b);
	for (int i = 0; i < b->n; i++) {
		if (!value_set_discard(a, b->items[i]))
			value_set_add(a, value_ref(b->items[i]));
	}
}

/* set_symmetric_difference: a copy of b, then a's items removed or added. */
struct value *value_set_symmetric_difference(const struct value *a, const struct value *b)
{
	struct value *r = value_set_copy(b);
	value_set_symmetric_difference_update(r, a);
	return r;
}

void value_set_take_body(struct value *a, struct value *r)
{
	struct value **items = a->items;
	int n = a->n, cap = a->cap;
	struct pyset *t = a->pyset;
	value_index_drop(a);
	value_index_drop(r);
	a->items = r->items;
	a->n = r->n;
	a->cap = r->cap;
	a->pyset = r->pyset;
	r->items = items;
	r->n = n;
	r->cap = cap;
	r->pyset = t;
}

static struct pyset *table_clone(const struct pyset *t, int cap)
{
	struct pyset *c = table_new(t->mask + 1, cap);
	c->fill = t->fill;
	c->finger = t->finger;
	memcpy(c->table, t->table, sizeof *t->table * (t->mask + 1));
	return c;
}

struct pyset *value_set_layout_save(const struct value *set)
{
	value_set_order(set);
	return set->pyset ? table_clone(set->pyset, set->n) : NULL;
}

void value_set_layout_restore(struct value *set, struct pyset *saved)
{
	table_free(set->pyset);
	set->pyset = NULL;
	value_index_drop(set);
	if (!saved)
		return;
	saved->slot_of = xrealloc(saved->slot_of, sizeof *saved->slot_of * (size_t)(set->cap > 0 ? set->cap : 1));
	set->pyset = saved;
	table_relist(set);	/* the same items, so the same order */
}

void value_set_layout_free(struct pyset *saved)
{
	table_free(saved);
}

void value_set_layout_copy(struct value *dst, const struct value *src)
{
	if (!src->pyset || !dst->pyset || dst->n != src->n)
		return;
	struct pyset *c = table_clone(src->pyset, dst->cap);
	/* each copy where src has the item it equals (dst's own adds may have
	 * put its items[] in another order than src's) */
	for (int k = 0; k < dst->n; k++) {
		int64_t slot = set_slot_of(src, dst->items[k]);
		if (slot < 0) {	/* not a copy after all: dst keeps its own table */
			table_free(c);
			return;
		}
		c->table[slot].key = dst->items[k];
	}
	table_free(dst->pyset);
	value_index_drop(dst);
	dst->pyset = c;
	table_relist(dst);
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
			if (!value_set_has(b, a->items[i]))
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
	value_set_layout_free(v->pyset);
	v->pyset = NULL;
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
		size_t cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, sizeof *s->v * cap);
		s->cap = cap;
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
	case V_BOOL: return v->np ? "numpy.bool_" : "bool";
	case V_INT: return v->np ? "numpy.int64" : "int";
	case V_FLOAT: return v->np ? (v->f32 ? "numpy.float32" : "numpy.float64") : "float";
	case V_STR: return "str";
	case V_TENSOR: return v->t->flavor == FLAVOR_NUMPY ? "ndarray" : "Tensor";
	case V_LIST: return "list";
	case V_TUPLE: return "tuple";
	case V_SIZE: return "torch.Size";
	case V_MODULE: return "module";
	case V_FUNC: return "builtin_function";
	case V_METHOD: return "method";
	case V_OBJECT: return object_kind_name(v->obj->kind);
	case V_DTYPE: return v->np ? "type" : "dtype";
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
	value_set_order(v);
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

const char *object_kind_name(enum object_kind k)
{
	static const char *const names[] = { [OBJ_LINEAR] = "Linear", [OBJ_DROPOUT] = "Dropout",
					     [OBJ_EMBEDDING] = "Embedding", [OBJ_LAYERNORM] = "LayerNorm" };
	return names[k];
}

/* torch's extra_repr of each module kind */
static void object_repr(struct strbuf *out, const struct object *o)
{
	switch (o->kind) {
	case OBJ_LINEAR:
		strbuf_printf(out, "Linear(in_features=%lld, out_features=%lld, bias=%s)", (long long)o->in_features,
			      (long long)o->out_features, o->bias && o->bias->kind != V_NONE ? "True" : "False");
		break;
	case OBJ_DROPOUT:
		strbuf_puts(out, "Dropout(p=");
		format_py_float(out, o->p);
		strbuf_puts(out, ", inplace=False)");
		break;
	case OBJ_EMBEDDING:
		strbuf_printf(out, "Embedding(%lld, %lld", (long long)o->in_features, (long long)o->out_features);
		if (o->padding_idx >= 0)
			strbuf_printf(out, ", padding_idx=%lld", (long long)o->padding_idx);
		strbuf_putc(out, ')');
		break;
	case OBJ_LAYERNORM:
		strbuf_puts(out, "LayerNorm((");
		for (int i = 0; i < o->norm_ndim; i++)
			strbuf_printf(out, i ? ", %lld" : "%lld", (long long)o->norm_shape[i]);
		strbuf_puts(out, o->norm_ndim == 1 ? ",), eps=" : "), eps=");
		format_py_float(out, o->p);
		strbuf_printf(out, ", elementwise_affine=%s)", o->weight->kind == V_TENSOR ? "True" : "False");
		break;
	}
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
		/* torch.nn's module classes, by the module torch defines them in */
		static const char *const nn_classes[][2] = { { "torch.nn.Linear", "linear" },
							     { "torch.nn.Dropout", "dropout" },
							     { "torch.nn.Embedding", "sparse" },
							     { "torch.nn.LayerNorm", "normalization" } };
		for (size_t i = 0; i < sizeof nn_classes / sizeof nn_classes[0]; i++) {
			if (strcmp(nn_classes[i][0], v->str) == 0) {
				strbuf_printf(out, "<class 'torch.nn.modules.%s.%s'>", nn_classes[i][1], v->str + 9);
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
		object_repr(out, v->obj);
		break;
	case V_DTYPE:
		if (v->np)
			strbuf_printf(out, "<class 'numpy.%s'>", v->dtype == DT_BOOL ? "bool_" : dtype_name(v->dtype));
		else
			dtype_repr(out, v->dtype, v->flavor);
		break;
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
	else if (v->kind == V_DTYPE && v->flavor == FLAVOR_NUMPY && !v->np)
		strbuf_puts(out, dtype_name(v->dtype));
	else
		value_repr(out, v);
}

/* ---- conversions ---------------------------------------------------------------- */

struct tensor *value_scalar_array(const struct value *v)
{
	if (v->kind == V_INT) {
		struct tensor *t = tensor_new(DT_I64, FLAVOR_NUMPY, 0, NULL);
		*(int64_t *)t->storage->data = v->i;
		return t;
	}
	struct tensor *t = tensor_new(v->kind == V_BOOL ? DT_BOOL : v->f32 ? DT_F32 : DT_F64, FLAVOR_NUMPY, 0, NULL);
	tensor_set(t, 0, value_as_double(v));
	return t;
}

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
		if (v->kind == V_FLOAT && v->f32) {	/* np.float32.__format__ formats float(self) */
			format_py_float(out, v->f);
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
