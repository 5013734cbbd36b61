/* spare.h: freed blocks of one size kept for reuse, per thread. Code that
 * makes and frees many small objects in a loop (tensors, storages,
 * derivations, interpreter values) keeps a _Thread_local spare_list per
 * kind: malloc would be most of such a loop's time. */
#ifndef QKV_CORE_SPARE_H
#define QKV_CORE_SPARE_H

#include <stdbool.h>

struct spare_list {
	void *head;        /* each spare's first bytes point to the next */
	int n;
	bool registered;   /* the thread's end frees the list */
};

/* A block from l (its contents undefined), or NULL when l is empty. */
void *spare_get(struct spare_list *l);
/* Keeps p (a malloc'd block of l's size) in l, or frees it when l holds max
 * already. l must be a _Thread_local object: the thread's end frees it. */
void spare_put(struct spare_list *l, void *p, int max);

#endif
