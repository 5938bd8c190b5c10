/*
 * test_geohash.c - server/base/geohash.c against what redis-server 7.0.15
 * answers for the same points (its documentation's Palermo and Catania):
 * the 52-bit scores, the decoded cell centres to 17 decimals, the haversine
 * distance, the standard geohash strings; then the cell arithmetic every
 * search relies on: a point's score lies in its own cell's score range at
 * every step, and neighbours wrap around the antimeridian.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "geohash.h"

static void test_known_points(void)
{
    double lon, lat;
    char buf[64], hash[11];

    CHECK(geo_score_of(13.361389, 38.115556) == 3479099956230698ULL);
    CHECK(geo_score_of(15.087269, 37.502669) == 3479447370796909ULL);
    CHECK(geo_decode_score(3479099956230698.0, &lon, &lat) == 0);
    snprintf(buf, sizeof(buf), "%.17f %.17f", lon, lat);
    CHECK_MSG(strcmp(buf, "13.36138933897018433 38.11555639549629859") == 0, "%s", buf);
    double lon2, lat2;
    geo_decode_score(3479447370796909.0, &lon2, &lat2);
    snprintf(buf, sizeof(buf), "%.4f", geo_distance(lon, lat, lon2, lat2));
    CHECK_MSG(strcmp(buf, "166274.1516") == 0, "%s", buf);
    CHECK(geo_hash_string(3479099956230698.0, hash) == 0 && memcmp(hash, "sqc8b49rny0", 11) == 0);
    CHECK(geo_hash_string(3479447370796909.0, hash) == 0 && memcmp(hash, "sqdtr74hyu0", 11) == 0);
    /* The corners of the span decode inside it. */
    geo_decode_score((double)geo_score_of(180, 85.05112878), &lon, &lat);
    CHECK(lon <= GEO_LONG_MAX && lat <= GEO_LAT_MAX);
    geo_decode_score(0, &lon, &lat);
    CHECK(lon > -180 && lon < -179.99999 && lat > -85.0512 && lat < -85.0511);
}

static void test_cells(void)
{
    uint64_t rng = 88172645463325252ULL;
    for (int i = 0; i < 10000; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        double lon = -180 + 360.0 * (double)(rng >> 11) / 9007199254740992.0;
        double lat =
            GEO_LAT_MIN + (GEO_LAT_MAX - GEO_LAT_MIN) * (double)(rng % 1000003) / 1000003.0;
        uint64_t score = geo_score_of(lon, lat);
        for (int step = 1; step <= GEO_STEP_MAX; step++) {
            struct geo_hash h;
            uint64_t min, max;
            CHECK(geo_encode(lon, lat, GEO_LAT_MIN, GEO_LAT_MAX, step, &h) == 0);
            geo_cell_scores(h, &min, &max);
            CHECK_MSG(score >= min && score < max, "step %d: %.9f,%.9f", step, lon, lat);
        }
    }
    /* A search around the antimeridian reads the cells on its other side. */
    struct geo_shape s = {.lon = 179.9999, .lat = 10, .radius = 50, .to_m = 1000};
    struct geo_area a;
    geo_area_of(&s, &a);
    struct geo_hash west_side;
    geo_encode(-179.9999, 10, GEO_LAT_MIN, GEO_LAT_MAX, a.cells[0].step, &west_side);
    int found = 0;
    for (int i = 0; i < 9; i++)
        found |= a.cells[i].step && a.cells[i].bits == west_side.bits;
    CHECK(found);
    double d;
    CHECK(geo_within(&s, -179.9999, 10, &d) && fabs(d - 21.9) < 1);
}

int main(void)
{
    test_known_points();
    test_cells();
    printf("geohash: ok\n");
    return 0;
}
