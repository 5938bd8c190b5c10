/*
 * lazyfree.h - values too big to free at once, freed in slices, one per
 * loop turn, so deleting a set of ten million members never holds the loop
 * (Redis frees such values on a thread; here the loop thread frees them a
 * slice at a time, so used_memory stays its own count and no allocator
 * arena is shared).
 *
 * Owns: the queue of values waiting and the idle handle that drains it.
 * Knows nothing of value types: each value comes with the function that
 * frees a slice of it.
 */
#ifndef RBKV_LAZYFREE_H
#define RBKV_LAZYFREE_H

#include <stddef.h>

/* Frees up to budget units of value; returns 1 once all of it is gone. */
typedef int lazyfree_fn(void *value, size_t budget);

void lazyfree_init(void);
/* Queues value to be freed by fn, when called on the loop thread after
 * lazyfree_init; elsewhere (a worker thread dropping what it loaded, or
 * before start) frees it all at once. */
void lazyfree_push(lazyfree_fn *fn, void *value);
/* Values queued and not yet fully freed (INFO's lazyfree_pending_objects). */
size_t lazyfree_pending(void);
/* Values freed in slices so far (INFO's lazyfreed_objects), and its reset
 * (CONFIG RESETSTAT). */
unsigned long long lazyfree_freed(void);
void lazyfree_reset_stats(void);
/* At shutdown: frees everything queued and closes the handle. */
void lazyfree_close(void);

#endif
