/*
 * sample.h - drawing distinct random positions (ZRANDMEMBER, HRANDFIELD,
 * SRANDMEMBER and SPOP with a positive count).
 *
 * Owns nothing between calls. Uses arc4random, the server's one random
 * source.
 */
#ifndef RBKV_SAMPLE_H
#define RBKV_SAMPLE_H

#include <stddef.h>

/* count distinct ranks below size (count <= size, size < 2^32), drawn
 * uniformly, into out in draw order: Floyd's algorithm, O(count) time and
 * memory whatever size is. */
void sample_distinct(size_t size, size_t count, size_t *out);

#endif
