/*
 * geohash.c - geohash cells, search areas and distances for the geo
 * commands (geohash.h). Pure arithmetic; no server state.
 *
 * Every formula follows Redis 7.0 step for step, down to the order of the
 * floating-point operations, because the replies print these doubles (17
 * decimals for coordinates, 4 for distances) and a search's unsorted reply
 * lists members in the order its cells were read.
 */
#include "geohash.h"

#include <math.h>
#include <stddef.h>

#define DEG_TO_RAD (M_PI / 180.0)
/* Redis's bound of the step estimate: half the Mercator projection's width. */
#define MERCATOR_MAX 20037726.37

#define EVEN_BITS 0x5555555555555555ULL
#define ODD_BITS 0xaaaaaaaaaaaaaaaaULL

static double deg_rad(double a)
{
    return a * DEG_TO_RAD;
}

static double rad_deg(double a)
{
    return a / DEG_TO_RAD;
}

/* Spreads the 32 bits of v over the even bits of the result. */
static uint64_t spread(uint32_t v)
{
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & EVEN_BITS;
    return x;
}

/* The even bits of v gathered into 32 bits (spread's inverse). */
static uint32_t gather(uint64_t v)
{
    uint64_t x = v & EVEN_BITS;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

int geo_encode(double lon, double lat, double lat_min, double lat_max, int step,
               struct geo_hash *h)
{
    h->bits = 0;
    h->step = (uint8_t)step;
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN)
        return -1;
    if (lat < lat_min || lat > lat_max)
        return -1;
    double lat_off = (lat - lat_min) / (lat_max - lat_min);
    double lon_off = (lon - GEO_LONG_MIN) / (GEO_LONG_MAX - GEO_LONG_MIN);
    lat_off *= (double)(1ULL << step);
    lon_off *= (double)(1ULL << step);
    h->bits = spread((uint32_t)lat_off) | (spread((uint32_t)lon_off) << 1);
    return 0;
}

uint64_t geo_score_of(double lon, double lat)
{
    struct geo_hash h;
    geo_encode(lon, lat, GEO_LAT_MIN, GEO_LAT_MAX, GEO_STEP_MAX, &h);
    return h.bits << (52 - 2 * GEO_STEP_MAX);
}

struct cell {
    double lon_min, lon_max, lat_min, lat_max;
};

static void decode_cell(struct geo_hash h, struct cell *c)
{
    uint32_t ilat = gather(h.bits), ilon = gather(h.bits >> 1);
    double cells = (double)(1ULL << h.step);
    double lat_scale = GEO_LAT_MAX - GEO_LAT_MIN, lon_scale = GEO_LONG_MAX - GEO_LONG_MIN;

    c->lat_min = GEO_LAT_MIN + (ilat * 1.0 / cells) * lat_scale;
    c->lat_max = GEO_LAT_MIN + ((uint32_t)(ilat + 1) * 1.0 / cells) * lat_scale;
    c->lon_min = GEO_LONG_MIN + (ilon * 1.0 / cells) * lon_scale;
    c->lon_max = GEO_LONG_MIN + ((uint32_t)(ilon + 1) * 1.0 / cells) * lon_scale;
}

/* A score's bits as Redis's (uint64_t) cast of the double gives them on
 * x86-64, for any score ZADD may have put in a geo set: a negative score
 * wraps as a two's complement, one past 2^64 (or infinite) gives 0, one
 * below -2^63 the integer unit's "indefinite" 2^63. */
static uint64_t score_bits(double score)
{
    if (score >= 0)
        return score < 18446744073709551616.0 ? (uint64_t)score : 0;
    if (score >= -9223372036854775808.0)
        return (uint64_t)(int64_t)score;
    return 0x8000000000000000ULL;
}

int geo_decode_score(double score, double *lon, double *lat)
{
    struct geo_hash h = {score_bits(score), GEO_STEP_MAX};
    struct cell c;

    decode_cell(h, &c);
    *lon = (c.lon_min + c.lon_max) / 2;
    if (*lon > GEO_LONG_MAX)
        *lon = GEO_LONG_MAX;
    if (*lon < GEO_LONG_MIN)
        *lon = GEO_LONG_MIN;
    *lat = (c.lat_min + c.lat_max) / 2;
    if (*lat > GEO_LAT_MAX)
        *lat = GEO_LAT_MAX;
    if (*lat < GEO_LAT_MIN)
        *lat = GEO_LAT_MIN;
    return 0;
}

void geo_cell_scores(struct geo_hash h, uint64_t *min, uint64_t *max)
{
    *min = h.bits << (52 - 2 * h.step);
    *max = (h.bits + 1) << (52 - 2 * h.step);
}

/* Moves a cell one step up (d > 0) or down along the coordinate whose bits
 * `mask` selects (ODD_BITS: longitude, east; EVEN_BITS: latitude, north),
 * wrapping around the world as Redis's geohash_move_x and _y do: the other
 * coordinate's bits are set so the carry crosses them. */
static void move_cell(struct geo_hash *h, int d, uint64_t mask)
{
    uint64_t x = h->bits & mask, y = h->bits & ~mask;
    uint64_t zz = ~mask >> (64 - 2 * h->step);

    if (d > 0) {
        x = x + (zz + 1);
    } else {
        x = x | zz;
        x = x - (zz + 1);
    }
    x &= mask >> (64 - 2 * h->step);
    h->bits = x | y;
}

enum { C_SELF, C_N, C_S, C_E, C_W, C_NE, C_NW, C_SE, C_SW };

static void neighbours(struct geo_hash h, struct geo_area *a)
{
    static const signed char dlon[9] = {0, 0, 0, 1, -1, 1, -1, 1, -1};
    static const signed char dlat[9] = {0, 1, -1, 0, 0, 1, 1, -1, -1};

    for (int i = 0; i < 9; i++) {
        a->cells[i] = h;
        if (dlon[i])
            move_cell(&a->cells[i], dlon[i], ODD_BITS);
        if (dlat[i])
            move_cell(&a->cells[i], dlat[i], EVEN_BITS);
    }
}

/* Redis's geohashEstimateStepsByRadius: coarser cells for wider searches,
 * and one or two steps coarser near the poles. */
static int estimate_step(double range_m, double lat)
{
    if (range_m == 0)
        return 26;
    int step = 1;
    while (range_m < MERCATOR_MAX) {
        range_m *= 2;
        step++;
    }
    step -= 2;
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80)
            step--;
    }
    if (step < 1)
        step = 1;
    if (step > 26)
        step = 26;
    return step;
}

/* The longitude and latitude bounds of s: [0] min lon, [1] min lat, [2]
 * max lon, [3] max lat (Redis's geohashBoundingBox). */
static void bounding_box(const struct geo_shape *s, double b[4])
{
    double height = s->to_m * (s->box ? s->height / 2 : s->radius);
    double width = s->to_m * (s->box ? s->width / 2 : s->radius);
    double lat_delta = rad_deg(height / GEO_EARTH_RADIUS_M);
    double lon_top = rad_deg(width / GEO_EARTH_RADIUS_M / cos(deg_rad(s->lat + lat_delta)));
    double lon_bottom = rad_deg(width / GEO_EARTH_RADIUS_M / cos(deg_rad(s->lat - lat_delta)));
    int south = s->lat < 0;

    b[0] = south ? s->lon - lon_bottom : s->lon - lon_top;
    b[2] = south ? s->lon + lon_bottom : s->lon + lon_top;
    b[1] = s->lat - lat_delta;
    b[3] = s->lat + lat_delta;
}

static void clear(struct geo_area *a, int i, int j, int k)
{
    a->cells[i] = a->cells[j] = a->cells[k] = (struct geo_hash){0, 0};
}

void geo_area_of(const struct geo_shape *s, struct geo_area *a)
{
    double b[4];
    bounding_box(s, b);
    double radius_m = s->box ? sqrt((s->width / 2) * (s->width / 2) +
                                    (s->height / 2) * (s->height / 2))
                             : s->radius;
    radius_m *= s->to_m;
    int step = estimate_step(radius_m, s->lat);
    struct geo_hash h;
    struct cell centre, n, so, e, w;

    geo_encode(s->lon, s->lat, GEO_LAT_MIN, GEO_LAT_MAX, step, &h);
    neighbours(h, a);
    decode_cell(h, &centre);
    /* A step whose neighbours do not reach the box's edges is one too
     * fine: take the next coarser one. */
    decode_cell(a->cells[C_N], &n);
    decode_cell(a->cells[C_S], &so);
    decode_cell(a->cells[C_E], &e);
    decode_cell(a->cells[C_W], &w);
    int coarser = n.lat_max < b[3] || so.lat_min > b[1] || e.lon_max < b[2] || w.lon_min > b[0];
    if (step > 1 && coarser) {
        step--;
        geo_encode(s->lon, s->lat, GEO_LAT_MIN, GEO_LAT_MAX, step, &h);
        neighbours(h, a);
        decode_cell(h, &centre);
    }
    /* Leave out the neighbours beyond the box. */
    if (step >= 2) {
        if (centre.lat_min < b[1])
            clear(a, C_S, C_SW, C_SE);
        if (centre.lat_max > b[3])
            clear(a, C_N, C_NE, C_NW);
        if (centre.lon_min < b[0])
            clear(a, C_W, C_SW, C_NW);
        if (centre.lon_max > b[2])
            clear(a, C_E, C_SE, C_NE);
    }
}

/* Along a meridian the haversine is R * |lat2 - lat1| (asin(sin(x)) = x on
 * latitudes' range): Redis's geohashGetLatDistance, with no trigonometry. */
static double lat_distance(double lat1, double lat2)
{
    return GEO_EARTH_RADIUS_M * fabs(deg_rad(lat2) - deg_rad(lat1));
}

double geo_distance(double lon1, double lat1, double lon2, double lat2)
{
    double lon1r = deg_rad(lon1), lon2r = deg_rad(lon2);
    double v = sin((lon2r - lon1r) / 2);
    if (v == 0.0) /* one meridian, as Redis 7.0 shortcuts it */
        return lat_distance(lat1, lat2);
    double lat1r = deg_rad(lat1), lat2r = deg_rad(lat2);
    double u = sin((lat2r - lat1r) / 2);
    return 2.0 * GEO_EARTH_RADIUS_M * asin(sqrt(u * u + cos(lat1r) * cos(lat2r) * v * v));
}

int geo_within(const struct geo_shape *s, double lon, double lat, double *dist)
{
    if (!s->box) {
        *dist = geo_distance(s->lon, s->lat, lon, lat);
        return *dist <= s->radius * s->to_m;
    }
    /* Redis 7.0's order, cheapest first: the latitude's distance, the
     * longitude's along the point's parallel, then the distance itself. */
    if (lat_distance(lat, s->lat) > s->height * s->to_m / 2)
        return 0;
    if (geo_distance(lon, lat, s->lon, lat) > s->width * s->to_m / 2)
        return 0;
    *dist = geo_distance(s->lon, s->lat, lon, lat);
    return 1;
}

int geo_hash_string(double score, char buf[11])
{
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    double lon, lat;
    struct geo_hash h;

    geo_decode_score(score, &lon, &lat);
    /* The standard geohash spans latitude -90..90, not Mercator's span. */
    if (geo_encode(lon, lat, -90, 90, 26, &h) < 0)
        return -1;
    for (int i = 0; i < 10; i++)
        buf[i] = alphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
    buf[10] = '0'; /* 52 bits make 10 characters and 2 bits; Redis pads with 0 */
    return 0;
}
