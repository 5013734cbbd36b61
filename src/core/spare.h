/* spare.h: freed blocks of one size kept for reuse, per thread. Code that
 * makes and frees many small objects in a loop (tensors, storages,
 * derivations, interpreter values) keeps a _Thread_local spare_list per
 * kind: malloc would be most of such a loop's time. */
#ifndef QKV_CORE_SPARE_H
#define QKV_CORE_SPARE_H

#include <stdbool.h>
#include <stdlib.h>

struct spare_list {
	void *head;        /* each spare's first bytes point to the next */
	int n;
	bool registered;   /* the thread's end frees the list */
};

/* Notes l as the calling thread's, to be freed when it ends; false when it
 * cannot (then l keeps nothing). For spare_put. */
bool spare_register(struct spare_list *l);

/* A block from l (its contents undefined), or NULL when l is empty. Inline:
 * a loop over small tensors takes and gives back dozens a line. */
static inline void *spare_get(struct spare_list *l)
{
	void *p = l->head;
	if (p) {
		l->head = *(void **)p;
		l->n--;
	}
	return p;
}

/* Keeps p (a malloc'd block of l's size) in l, or frees it when l holds max
 * already. l must be a _Thread_local object: the thread's end frees it. */
static inline void spare_put(struct spare_list *l, void *p, int max)
{
	if (l->n >= max || (!l->registered && !spare_register(l))) {
		free(p);
		return;
	}
	*(void **)p = l->head;
	l->head = p;
	l->n++;
}

#endif
