/*
 * test_geo.c - the geo commands side by side with redis-server 7.0.15: a
 * table of fixed cases (every error text, absent keys, wrong types, odd
 * scores), then random points (near the poles, the antimeridian, the
 * latitude limits, and invalid pairs) and random searches by radius and box
 * in every unit with the options combined, every reply compared to the byte
 * (order too: a search's unsorted order is Redis's cell order), the geo
 * sets' ZRANGE WITHSCORES too, and STORE/STOREDIST results. SEED=<n>
 * replays a random run. Without a reference the fixed cases still run on rbkv alone.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness.h"
#include "rng.h"

static struct h_server srv, ref;
static int have_ref;

#define POINTS 500
#define SEARCHES 4000

static uint64_t rng_state;

/* Uniform in [lo, hi]. */
static double rnd_real(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next(&rng_state) >> 11) / 9007199254740992.0);
}

static void test_fixed_cases(void)
{
    redisContext *r, *c = h_connect_pair(&srv, have_ref ? &ref : NULL, &r);
    static const char *const lines[] = {
        "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
        "GEOADD Sicily CH XX 13.361389 38.115557 Palermo",
        "GEOADD Sicily CH NX 13.361389 38.115558 Palermo 1 1 new",
        "GEOADD Sicily NX XX 1 2 a",
        "GEOADD Sicily 200 100 bad",
        "GEOADD Sicily 1 86 bad",
        "GEOADD Sicily 180.0001 0 bad",
        "GEOADD Sicily 1 2",
        "GEOADD Sicily x 1 a",
        "GEOADD Sicily 1 y a",
        "GEOADD Sicily ch nx ch",
        "GEOADD Sicily 180 85.05112878 corner -180 -85.05112878 corner2",
        "GEOADD nokey XX 1 1 a",
        "EXISTS nokey",
        "SET str x",
        "GEOADD str 1 1 a",
        "ZRANGE Sicily 0 -1 WITHSCORES",
        "GEODIST Sicily Palermo Catania",
        "GEODIST Sicily Palermo Catania km",
        "GEODIST Sicily Palermo Catania MI",
        "GEODIST Sicily Palermo Catania ft",
        "GEODIST Sicily Palermo Catania parsec",
        "GEODIST Sicily Palermo Catania km x",
        "GEODIST Sicily Palermo nope",
        "GEODIST nokey a b",
        "GEODIST str a b",
        "GEOHASH Sicily Palermo Catania nope corner corner2",
        "GEOHASH nokey a",
        "GEOHASH Sicily",
        "GEOPOS Sicily Palermo Catania nope corner corner2",
        "GEOPOS nokey a b",
        "GEOPOS str a",
        "GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH",
        "GEORADIUS Sicily 15 37 200 km ASC COUNT 1",
        "GEORADIUS Sicily 15 37 200 km DESC",
        "GEORADIUS Sicily 15 37 200 km COUNT 1 ANY",
        "GEORADIUS Sicily 15 37 200 km ANY",
        "GEORADIUS Sicily 15 37 200 km COUNT 0",
        "GEORADIUS Sicily 15 37 200 km COUNT x",
        "GEORADIUS Sicily 15 37 200 km COUNT",
        "GEORADIUS Sicily 15 37 200 km STORE dst",
        "ZRANGE dst 0 -1 WITHSCORES",
        "GEORADIUS Sicily 15 37 200 km STOREDIST dst",
        "ZRANGE dst 0 -1",
        "GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST",
        "GEORADIUS Sicily 15 37 1 m STORE dst",
        "EXISTS dst",
        "GEORADIUS_RO Sicily 15 37 200 km STORE dst",
        "GEORADIUS Sicily 15 37 -1 km",
        "GEORADIUS Sicily 15 37 x km",
        "GEORADIUS Sicily 15 37 1 lightyear",
        "GEORADIUS Sicily 15 91 1 km",
        "GEORADIUS nokey 15 37 1 km",
        "GEORADIUS str 15 37 1 km",
        "GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST",
        "GEORADIUSBYMEMBER Sicily nope 200 km WITHDIST",
        "GEORADIUSBYMEMBER nokey nope 200 km WITHDIST",
        "SET dst2 x",
        "GEORADIUSBYMEMBER nokey nope 200 km STORE dst2",
        "EXISTS dst2",
        "GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STOREDIST dst2",
        "GEORADIUSBYMEMBER_RO Sicily Palermo 200 km WITHHASH",
        "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 100 km",
        "GEOSEARCH Sicily BYRADIUS 100 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo",
        "GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 1 1 BYRADIUS 1 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km BYBOX 1 1 km",
        "GEOSEARCH Sicily FROMMEMBER nope BYRADIUS 1 km",
        "GEOSEARCH nokey FROMMEMBER nope BYRADIUS 1 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 100 km ANY",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 100 km STORE x",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 100 km STOREDIST",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS -1 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX -1 2 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX x 2 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 2 x km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 2 2 yd",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS x km",
        "GEOSEARCH Sicily FROMLONLAT 181 0 BYRADIUS 1 km",
        "GEOSEARCH Sicily FROMLONLAT 0 0 BYRADIUS 20000 km",
        "GEOSEARCHSTORE d2 Sicily FROMLONLAT 15 37 BYBOX 400 400 km STOREDIST",
        "ZRANGE d2 0 -1",
        "GEOSEARCHSTORE d2 Sicily FROMLONLAT 15 37 BYBOX 400 400 km",
        "ZRANGE d2 0 -1 WITHSCORES",
        "GEOSEARCHSTORE d2 Sicily FROMLONLAT 15 37 BYBOX 400 400 km WITHDIST",
        "GEOSEARCHSTORE d2 Sicily FROMLONLAT 15 37 BYBOX 400 400 km STORE x",
        "GEOSEARCHSTORE d2 nokey FROMLONLAT 15 37 BYBOX 400 400 km",
        "EXISTS d2",
        "GEORADIUS Sicily 0 0 50000 km",
        "ZADD weird -5 neg 1e300 big inf pinf -1e30 vneg 1e19 b19 -inf ninf 0 zero",
        "GEOPOS weird neg big pinf vneg b19 ninf zero",
        "GEOHASH weird neg big pinf vneg b19 ninf zero",
        "GEODIST weird neg big",
        "GEORADIUS weird 0 0 50000 km WITHCOORD",
        "COMMAND GETKEYS GEORADIUS a 1 2 3 km STORE b STOREDIST c",
        "COMMAND GETKEYS GEOSEARCHSTORE a b FROMLONLAT 1 2 BYRADIUS 3 km",
        "COMMAND INFO GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH GEOSEARCHSTORE",
        "COMMAND INFO GEORADIUS GEORADIUS_RO GEORADIUSBYMEMBER GEORADIUSBYMEMBER_RO",
    };
    H_SAME_LINES(c, r, lines);
    h_close_pair(c, r);
}

/* A random point: anywhere, or near a pole, the antimeridian or a latitude
 * limit; now and then out of the span (an error to compare). */
static void add_point(struct h_line *m)
{
    double lon = rnd_real(-180, 180), lat = rnd_real(-85.05112878, 85.05112878);
    switch (rng_next(&rng_state) % 8) {
    case 0:
        lat = (rng_next(&rng_state) % 2 ? 1 : -1) * rnd_real(80, 85.05112878);
        break;
    case 1:
        lon = (rng_next(&rng_state) % 2 ? 1 : -1) * rnd_real(179, 180);
        break;
    case 2:
        lat = rng_next(&rng_state) % 2 ? 85.05112878 : -85.05112878;
        break;
    case 3:
        if (rng_next(&rng_state) % 4 == 0)
            lat = (rng_next(&rng_state) % 2 ? 1 : -1) * rnd_real(85.06, 90);
        break;
    case 4: /* clustered around one place, so small searches find several */
        lon = rnd_real(2.2, 2.5);
        lat = rnd_real(48.7, 49);
        break;
    default:
        break;
    }
    h_line_add(m, "%.9f", lon);
    h_line_add(m, "%.9f", lat);
}

static const char *const units[] = {"m", "km", "ft", "mi", "KM", "Mi"};

static double unit_m(const char *u)
{
    return strcasecmp(u, "km") == 0 ? 1000 : strcasecmp(u, "ft") == 0 ? 0.3048
                                         : strcasecmp(u, "mi") == 0 ? 1609.34
                                                                    : 1;
}

/* A distance in unit u, from metres to thousands of kilometres. */
static void add_distance(struct h_line *m, const char *u)
{
    double metres = rnd_real(1, 10);
    for (int k = (int)(rng_next(&rng_state) % 7); k > 0; k--)
        metres *= 10;
    if (rng_next(&rng_state) % 20 == 0)
        metres = 0;
    h_line_add(m, "%.3f", metres / unit_m(u));
}

static void add_shape(struct h_line *m, int box)
{
    const char *u = units[rng_next(&rng_state) % 6];
    if (box) {
        h_line_add(m, "BYBOX");
        add_distance(m, u);
        add_distance(m, u);
    } else {
        h_line_add(m, "BYRADIUS");
        add_distance(m, u);
    }
    h_line_add(m, "%s", u);
}

static void add_options(struct h_line *m, int with)
{
    if (rng_next(&rng_state) % 3 == 0)
        h_line_add(m, rng_next(&rng_state) % 2 ? "ASC" : "DESC");
    if (rng_next(&rng_state) % 3 == 0) {
        h_line_add(m, "COUNT");
        h_line_add(m, "%d", (int)(rng_next(&rng_state) % 12) + 1);
        if (rng_next(&rng_state) % 3 == 0)
            h_line_add(m, "ANY");
    }
    if (with) {
        if (rng_next(&rng_state) % 2)
            h_line_add(m, "WITHCOORD");
        if (rng_next(&rng_state) % 2)
            h_line_add(m, "WITHDIST");
        if (rng_next(&rng_state) % 2)
            h_line_add(m, "WITHHASH");
    }
}

/* A random search; *store set to the key it stores into (or NULL), *dist
 * whether it stores distances. */
static void random_search(struct h_line *m, const char **store, int *dist)
{
    static const char *const members[] = {"p0", "p1", "p2", "p3", "p7", "nope"};
    int kind = (int)(rng_next(&rng_state) % 6), st = rng_next(&rng_state) % 3 == 0;
    *store = NULL;
    *dist = 0;
    m->argc = 0;
    switch (kind) {
    case 0:
    case 1:
        h_line_add(m, kind ? "GEOSEARCHSTORE" : "GEOSEARCH");
        if (kind)
            h_line_add(m, "dst");
        h_line_add(m, "g");
        if (rng_next(&rng_state) % 2) {
            h_line_add(m, "FROMMEMBER");
            h_line_add(m, "%s", members[rng_next(&rng_state) % 6]);
        } else {
            h_line_add(m, "FROMLONLAT");
            add_point(m);
        }
        add_shape(m, (int)(rng_next(&rng_state) % 2));
        add_options(m, !kind);
        if (kind) {
            *store = "dst";
            if (rng_next(&rng_state) % 2) {
                h_line_add(m, "STOREDIST");
                *dist = 1;
            }
        }
        break;
    default: {
        int bymember = kind >= 4, ro = kind % 2;
        const char *u = units[rng_next(&rng_state) % 6];
        h_line_add(m, "GEORADIUS%s%s", bymember ? "BYMEMBER" : "", ro ? "_RO" : "");
        h_line_add(m, "g");
        if (bymember)
            h_line_add(m, "%s", members[rng_next(&rng_state) % 6]);
        else
            add_point(m);
        add_distance(m, u);
        h_line_add(m, "%s", u);
        add_options(m, !st || ro);
        if (st && !ro) {
            *dist = (int)(rng_next(&rng_state) % 2);
            h_line_add(m, *dist ? "STOREDIST" : "STORE");
            h_line_add(m, "dst");
            *store = "dst";
        }
        break;
    }
    }
}

/* A stored set's members in order, and its scores as numbers: STOREDIST's
 * distances are compared by value, since rbkv writes a double's shortest
 * digits (Redis 7.2's way) where Redis 7.0 writes 17 digits. */
static int same_stored(redisContext *c, redisContext *r, const char *key)
{
    int ok = H_SAME(c, r, "ZRANGE", key, "0", "-1");
    redisReply *a = H_CALL(c, "ZRANGE", key, "0", "-1", "WITHSCORES");
    redisReply *b = H_CALL(r, "ZRANGE", key, "0", "-1", "WITHSCORES");
    if (a && b && a->type == REDIS_REPLY_ARRAY && b->type == REDIS_REPLY_ARRAY &&
        a->elements == b->elements) {
        for (size_t i = 1; i < a->elements; i += 2) {
            double x = strtod(a->element[i]->str, NULL), y = strtod(b->element[i]->str, NULL);
            if (x != y) {
                CHECK(0, "%s: score %zu differs: %s vs %s", key, i / 2, a->element[i]->str,
                      b->element[i]->str);
                ok = 0;
                break;
            }
        }
    } else {
        ok = 0;
    }
    freeReplyObject(a);
    freeReplyObject(b);
    return ok;
}

static void test_random_against_redis(void)
{
    if (!have_ref) {
        printf("  skipped: no reference server to compare with\n");
        return;
    }
    uint64_t seed = h_seed();
    rng_state = seed;
    redisContext *r, *c = h_connect_pair(&srv, &ref, &r);
    int failures = 0;
    struct h_line m;

    for (int i = 0; i < POINTS / H_SLOW;) {
        m.argc = 0;
        h_line_add(&m, "GEOADD");
        h_line_add(&m, "g");
        for (int k = 0; k < 5; k++, i++) {
            add_point(&m);
            h_line_add(&m, "p%d", i);
        }
        if (!h_same(__FILE__, __LINE__, c, r, m.argc, m.argv, NULL))
            failures++;
    }
    if (!H_SAME(c, r, "ZRANGE", "g", "0", "-1", "WITHSCORES"))
        failures++;
    if (!H_SAME(c, r, "GEOHASH", "g", "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"))
        failures++;
    if (!H_SAME(c, r, "GEOPOS", "g", "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"))
        failures++;
    for (int i = 0; i < SEARCHES / H_SLOW && failures < 5; i++) {
        const char *store;
        int dist;
        random_search(&m, &store, &dist);
        if (!h_same(__FILE__, __LINE__, c, r, m.argc, m.argv, NULL))
            failures++;
        else if (store && !same_stored(c, r, store))
            failures++;
        if (i % 50 == 0) {
            char a[16], b[16];
            snprintf(a, sizeof(a), "p%d", (int)(rng_next(&rng_state) % 40));
            snprintf(b, sizeof(b), "p%d", (int)(rng_next(&rng_state) % 40));
            if (!H_SAME(c, r, "GEODIST", "g", a, b, units[rng_next(&rng_state) % 6]))
                failures++;
        }
    }
    CHECK(failures == 0, "random comparison failed, SEED=%" PRIu64, seed);
    h_close_pair(c, r);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    H_RUN(test_fixed_cases);
    H_RUN(test_random_against_redis);
    if (have_ref)
        h_stop(&ref);
    h_stop(&srv);
    return h_finish();
}
