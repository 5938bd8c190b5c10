/*
 * geohash.h - the geometry of Redis's geo sets (geohash.c): 52-bit
 * interleaved geohashes, their cells and neighbours, the search area of a
 * radius or box query, and great-circle distances.
 *
 * Owns nothing and reads no server state: pure functions of their
 * arguments. The facts are Redis 7.0's (geohash.c, geohash_helper.c), so a
 * score written here is the score Redis writes for the same point, and a
 * search visits the same cells in the same order: latitude spans
 * -85.05112878..85.05112878 (Web Mercator's), longitude -180..180; a point's
 * hash interleaves 26 bits of each, longitude in the odd bits; distances are
 * haversine on a sphere of radius GEO_EARTH_RADIUS_M.
 */
#ifndef RBKV_GEOHASH_H
#define RBKV_GEOHASH_H

#include <stdint.h>

#define GEO_LAT_MIN (-85.05112878)
#define GEO_LAT_MAX 85.05112878
#define GEO_LONG_MIN (-180.0)
#define GEO_LONG_MAX 180.0
#define GEO_STEP_MAX 26 /* bits per coordinate in a stored score */
#define GEO_EARTH_RADIUS_M 6372797.560856

/* A cell: the top 2 * step bits of a hash. step 0 with bits 0 is "none"
 * (a neighbour a search leaves out). */
struct geo_hash {
    uint64_t bits;
    uint8_t step;
};

/* A search's shape around its centre (lon, lat): a circle of radius, or a
 * box of width by height, in the unit to_m converts to metres. */
struct geo_shape {
    double lon, lat;
    int box;
    double radius, width, height;
    double to_m;
};

/* The cells a search reads, in Redis's order: the centre's cell, then north,
 * south, east, west, north-east, north-west, south-east, south-west, those
 * that cannot hold a match set to "none". */
struct geo_area {
    struct geo_hash cells[9];
};

/* The hash of (lon, lat) at step bits per coordinate, in the given
 * latitude span (Redis's own, or -90..90 for GEOHASH's strings). Returns 0,
 * or -1 (hash zeroed) for a point outside the valid span. */
int geo_encode(double lon, double lat, double lat_min, double lat_max, int step,
               struct geo_hash *h);
/* A stored score's 52-bit hash as a sorted-set score (exact in a double). */
uint64_t geo_score_of(double lon, double lat);
/* The centre of the cell a score names, clamped to the valid span, as
 * GEOPOS answers it. Returns 0, or -1 when the score is no hash. */
int geo_decode_score(double score, double *lon, double *lat);
/* The score range [*min, *max) of the members inside cell h. */
void geo_cell_scores(struct geo_hash h, uint64_t *min, uint64_t *max);
/* The cells covering shape s (Redis's geohashCalculateAreasByShapeWGS84). */
void geo_area_of(const struct geo_shape *s, struct geo_area *a);
/* Great-circle distance in metres. */
double geo_distance(double lon1, double lat1, double lon2, double lat2);
/* Whether (lon, lat) lies in s; *dist its distance in metres from the
 * centre when it does. */
int geo_within(const struct geo_shape *s, double lon, double lat, double *dist);
/* GEOHASH's 11-character standard geohash of a score into buf[11] (not
 * NUL-terminated). Returns 0, or -1 when the score is no hash. */
int geo_hash_string(double score, char buf[11]);

#endif
