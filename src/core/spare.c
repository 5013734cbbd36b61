/* spare.c: the per-thread lists of spare blocks of spare.h. A thread's
 * lists are noted as they are first used, and one pthread key's destructor
 * frees them all when the thread ends. Used by core/tensor.c and
 * lang/value.c. */
#include "core/spare.h"

#include <pthread.h>
#include <stdlib.h>

#define LISTS_MAX 8	/* lists one thread uses: tensor.c's five, value.c's one */

static _Thread_local struct spare_list *lists[LISTS_MAX];
static _Thread_local int nlists;
static pthread_key_t lists_key;
static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

static void lists_free(void *arg)
{
	(void)arg;
	for (int i = 0; i < nlists; i++) {
		struct spare_list *l = lists[i];
		while (l->head) {
			void *p = l->head;
			l->head = *(void **)p;
			free(p);
		}
		l->n = 0;
		l->registered = false;
	}
	nlists = 0;
}

static void lists_init(void)
{
	pthread_key_create(&lists_key, lists_free);
}

bool spare_register(struct spare_list *l)
{
	if (nlists == LISTS_MAX)
		return false;
	pthread_once(&lists_once, lists_init);
	lists[nlists++] = l;
	pthread_setspecific(lists_key, lists);	/* non-NULL: the destructor runs */
	l->registered = true;
	return true;
}
