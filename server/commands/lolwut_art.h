/*
 * lolwut_art.h - LOLWUT VERSION 5's and 6's pictures (lolwut_art.c).
 */
#ifndef RBKV_LOLWUT_ART_H
#define RBKV_LOLWUT_ART_H

#include <stddef.h>

/* The most pixels a picture may have: Redis's own limits allow 2000 x
 * 399204 (800 MB of canvas, for 1000 columns of one square in 200 rows);
 * rbkv draws up to 64 M pixels and refuses more. */
#define LOLWUT_MAX_PIXELS (64LL * 1024 * 1024)

/* Schotter for a terminal of cols columns, per_row squares a row and
 * per_col rows (each clamped as Redis clamps it), then Redis's line
 * "Georg Nees - schotter, plotter on paper, 1968. Redis ver. <version>".
 * Returns the UTF-8 text (*len bytes, heap, the caller frees it), or NULL
 * when the canvas would pass LOLWUT_MAX_PIXELS. */
char *lolwut_schotter(long long cols, long long per_row, long long per_col, const char *version,
                      size_t *len);

/* The skyline for cols columns and rows rows (each clamped to 1..1000, as
 * Redis), then Redis's two lines "Dedicated to the 8 bit game developers
 * of past and present." and "Original 8 bit image from Plaguemon by
 * hikikomori. Redis ver. <version>". Returns the text (*len bytes, heap,
 * the caller frees it). */
char *lolwut_skyline(long long cols, long long rows, const char *version, size_t *len);

#endif
