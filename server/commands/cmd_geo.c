/*
 * cmd_geo.c - the geo commands: GEOADD, GEODIST, GEOHASH, GEOPOS, GEOSEARCH,
 * GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and their _RO forms.
 *
 * Owns: geo_commands[]. A geo set is a plain sorted set (zset.h) whose
 * scores are 52-bit geohashes (geohash.h), as in Redis, so ZRANGE and the
 * rest read it, and a set moves between rbkv and Redis unchanged. Knows
 * nothing of sockets: handlers read argument slices and write replies.
 *
 * Rules kept from Redis 7.0 (geo.c): GEOADD is ZADD with the points turned
 * into scores, run by ZADD's own handler and propagated as that ZADD; a
 * search reads the nine cells geo_area_of names, in its order, each a score
 * range of the set (O(log n + m) per cell), so an unsorted reply lists the
 * members in Redis's order; COUNT without ASC/DESC sorts ascending unless
 * ANY, which stops reading once COUNT members matched. Every option is
 * parsed, and every error replied, before the search; the texts are Redis's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "client.h"
#include "cmd_geo.h"
#include "geohash.h"
#include "keyspace.h"
#include "mem.h"
#include "notify.h"
#include "numparse.h"
#include "propagate.h"
#include "psort.h"
#include "resp_writer.h"
#include "server.h"
#include "zset.h"

#define ERR_BAD_MEMBER "ERR could not decode requested zset member"

/* The geo set at key for a read: 0 with *z (NULL when absent), or -1 after
 * WRONGTYPE. */
static int geo_lookup_or_reply(struct client *c, const struct resp_slice *key, struct zset **z)
{
    struct ks_entry *e = lookup_read(c, key);
    *z = NULL;
    if (!e)
        return 0;
    if (e->type != KS_ZSET) {
        resp_add_error(&c->out, ERR_WRONGTYPE);
        return -1;
    }
    *z = ks_ptr(e);
    return 0;
}

/* A double argument, or Redis's getDoubleFromObjectOrReply error: msg, or
 * the generic one when msg is NULL. */
static int double_or_reply(struct client *c, const struct resp_slice *a, const char *msg,
                           double *out)
{
    if (parse_double(a->ptr, a->len, out) == 0)
        return 0;
    resp_add_error(&c->out, msg ? msg : ERR_NOT_FLOAT);
    return -1;
}

/* "longitude latitude" at a[0], a[1], inside the span Redis accepts. */
static int lonlat_or_reply(struct client *c, const struct resp_slice *a, double *lon, double *lat)
{
    if (double_or_reply(c, &a[0], NULL, lon) < 0 || double_or_reply(c, &a[1], NULL, lat) < 0)
        return -1;
    if (*lon < GEO_LONG_MIN || *lon > GEO_LONG_MAX || *lat < GEO_LAT_MIN || *lat > GEO_LAT_MAX) {
        resp_add_errorf(&c->out, "ERR invalid longitude,latitude pair %f,%f", *lon, *lat);
        return -1;
    }
    return 0;
}

/* A unit's metres, or -1 after Redis's error. */
static double unit_or_reply(struct client *c, const struct resp_slice *a)
{
    static const struct {
        const char *name;
        double metres;
    } units[] = {{"m", 1}, {"km", 1000}, {"ft", 0.3048}, {"mi", 1609.34}};

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (arg_is(a, units[i].name))
            return units[i].metres;
    }
    resp_add_error(&c->out, "ERR unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* "radius unit" at a[0], a[1] into s. */
static int radius_or_reply(struct client *c, const struct resp_slice *a, struct geo_shape *s)
{
    double r;
    if (double_or_reply(c, &a[0], "ERR need numeric radius", &r) < 0)
        return -1;
    if (r < 0) {
        resp_add_error(&c->out, "ERR radius cannot be negative");
        return -1;
    }
    double to_m = unit_or_reply(c, &a[1]);
    if (to_m < 0)
        return -1;
    s->box = 0;
    s->radius = r;
    s->to_m = to_m;
    return 0;
}

/* "width height unit" at a[0..2] into s. */
static int box_or_reply(struct client *c, const struct resp_slice *a, struct geo_shape *s)
{
    double w, h;
    if (double_or_reply(c, &a[0], "ERR need numeric width", &w) < 0 ||
        double_or_reply(c, &a[1], "ERR need numeric height", &h) < 0)
        return -1;
    if (h < 0 || w < 0) {
        resp_add_error(&c->out, "ERR height or width cannot be negative");
        return -1;
    }
    double to_m = unit_or_reply(c, &a[2]);
    if (to_m < 0)
        return -1;
    s->box = 1;
    s->width = w;
    s->height = h;
    s->to_m = to_m;
    return 0;
}

/* The point a member of z stands for: 0, or -1 when z lacks it. */
static int member_point(const struct zset *z, const struct resp_slice *m, double *lon,
                        double *lat)
{
    const struct zs_node *n = zs_find(z, m->ptr, m->len);
    if (!n)
        return -1;
    return geo_decode_score(n->score, lon, lat);
}

/* A coordinate as Redis's addReplyHumanLongDouble: a bulk string in RESP2,
 * a double in RESP3, both "%.17Lf" trimmed. */
static void add_coord(struct client *c, double v)
{
    char buf[NUMPARSE_LONG_DOUBLE_CHARS];
    size_t len = format_long_double(buf, v);
    if (c->out.proto == 2) {
        resp_add_bulk(&c->out, buf, len);
    } else {
        resp_add_raw(&c->out, ",", 1);
        resp_add_raw(&c->out, buf, len);
        resp_add_raw(&c->out, "\r\n", 2);
    }
}

/* A distance as Redis's addReplyDoubleDistance: 4 decimals, a bulk string. */
static void add_distance(struct client *c, double d)
{
    /* Redis 7.0's fixedpoint_d2string(d, 4): d times 10^4 rounded by llrint
     * (to nearest, ties to even), then laid out with four decimals. Not
     * "%.4f", which rounds the exact value and so differs in the last digit
     * when the product lands on a tie (12101035.976749999 is "...9768"). */
    long long v = llrint(d * 10000.0);
    unsigned long long a = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char buf[32];
    int len = snprintf(buf, sizeof(buf), "%s%llu.%04llu", v < 0 ? "-" : "", a / 10000, a % 10000);
    resp_add_bulk(&c->out, buf, (size_t)len);
}

/* ---- GEOADD, GEODIST, GEOHASH, GEOPOS ------------------------------------ */

/* GEOADD key [NX|XX] [CH] lon lat member ...: the ZADD it amounts to, run by
 * ZADD's handler on a rewritten argument vector (Redis's
 * replaceClientCommandVector), and propagated as that ZADD when it changed
 * the set. */
static void cmd_geoadd(struct client *c)
{
    int nx = 0, xx = 0, idx = 2;

    for (; idx < c->argc; idx++) {
        if (arg_is(&c->argv[idx], "nx"))
            nx = 1;
        else if (arg_is(&c->argv[idx], "xx"))
            xx = 1;
        else if (!arg_is(&c->argv[idx], "ch"))
            break;
    }
    if ((c->argc - idx) % 3 || (nx && xx)) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    int elements = (c->argc - idx) / 3;
    int zargc = idx + 2 * elements;
    struct resp_slice *zargv = xmalloc(sizeof(*zargv) * (size_t)zargc);
    char(*scores)[24] = xmalloc(sizeof(*scores) * (size_t)(elements ? elements : 1));

    zargv[0] = (struct resp_slice){"zadd", 4};
    for (int i = 1; i < idx; i++)
        zargv[i] = c->argv[i];
    for (int i = 0; i < elements; i++) {
        double lon, lat;
        if (lonlat_or_reply(c, &c->argv[idx + 3 * i], &lon, &lat) < 0)
            goto out;
        int len = snprintf(scores[i], sizeof(scores[i]), "%llu",
                           (unsigned long long)geo_score_of(lon, lat));
        zargv[idx + 2 * i] = (struct resp_slice){scores[i], (size_t)len};
        zargv[idx + 2 * i + 1] = c->argv[idx + 3 * i + 2];
    }

    const struct command *zadd = command_lookup_builtin("zadd", 4);
    int argc = c->argc;
    struct resp_slice *argv = c->argv;
    unsigned long long dirty = server.dirty;
    c->argc = zargc;
    c->argv = zargv;
    zadd->proc(c);
    c->argc = argc;
    c->argv = argv;
    if (server.dirty != dirty)
        propagate_effects(c->db_index, zargc, zargv);
out:
    xfree(scores);
    xfree(zargv);
}

static void cmd_geodist(struct client *c)
{
    double to_m = 1;
    struct zset *z;

    if (c->argc == 5) {
        to_m = unit_or_reply(c, &c->argv[4]);
        if (to_m < 0)
            return;
    } else if (c->argc > 5) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }
    if (geo_lookup_or_reply(c, &c->argv[1], &z) < 0)
        return;
    double xy[4];
    if (!z || member_point(z, &c->argv[2], &xy[0], &xy[1]) < 0 ||
        member_point(z, &c->argv[3], &xy[2], &xy[3]) < 0) {
        resp_add_null(&c->out);
        return;
    }
    add_distance(c, geo_distance(xy[0], xy[1], xy[2], xy[3]) / to_m);
}

static void cmd_geohash(struct client *c)
{
    struct zset *z;

    if (geo_lookup_or_reply(c, &c->argv[1], &z) < 0)
        return;
    resp_add_array_len(&c->out, (size_t)c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        const struct zs_node *n = z ? zs_find(z, c->argv[j].ptr, c->argv[j].len) : NULL;
        char buf[11];
        if (n && geo_hash_string(n->score, buf) == 0)
            resp_add_bulk(&c->out, buf, sizeof(buf));
        else
            resp_add_null(&c->out);
    }
}

static void cmd_geopos(struct client *c)
{
    struct zset *z;

    if (geo_lookup_or_reply(c, &c->argv[1], &z) < 0)
        return;
    resp_add_array_len(&c->out, (size_t)c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double lon, lat;
        if (!z || member_point(z, &c->argv[j], &lon, &lat) < 0) {
            resp_add_null_array(&c->out);
            continue;
        }
        resp_add_array_len(&c->out, 2);
        add_coord(c, lon);
        add_coord(c, lat);
    }
}

/* ---- the searches -------------------------------------------------------- */

#define SEARCH_COORDS (1u << 0)  /* GEORADIUS: centre from lon lat */
#define SEARCH_MEMBER (1u << 1)  /* GEORADIUSBYMEMBER: centre from a member */
#define SEARCH_NOSTORE (1u << 2) /* the _RO forms: no STORE/STOREDIST */
#define SEARCH_GEO (1u << 3)     /* GEOSEARCH's grammar */
#define SEARCH_STORE (1u << 4)   /* GEOSEARCHSTORE */

enum { SORT_NONE, SORT_ASC, SORT_DESC };

struct geo_hit {
    const struct zs_node *n;
    double lon, lat, dist;
};

struct geo_hits {
    struct geo_hit *v;
    size_t len, cap;
};

/* Appends the members of z in the score range [min, max) that lie in s,
 * stopping once hits holds limit (0: no limit), as Redis's
 * geoGetPointsInRange. */
static void hits_in_range(const struct zset *z, uint64_t min, uint64_t max,
                          const struct geo_shape *s, struct geo_hits *hits, size_t limit)
{
    struct zs_range r = {(double)min, (double)max, 0, 1};

    for (const struct zs_node *n = zs_score_first(z, &r); n && zs_lte_max(n->score, &r);
         n = zs_next(n)) {
        struct geo_hit h = {.n = n};
        geo_decode_score(n->score, &h.lon, &h.lat);
        if (geo_within(s, h.lon, h.lat, &h.dist)) {
            if (hits->len == hits->cap) {
                hits->cap = hits->cap ? 2 * hits->cap : 8;
                hits->v = xrealloc(hits->v, sizeof(*hits->v) * hits->cap);
            }
            hits->v[hits->len++] = h;
        }
        if (hits->len && limit && hits->len >= limit)
            break;
    }
}

/* Reads the cells of s's area in order (Redis's membersOfAllNeighbors):
 * skips those left out and a cell equal to the one read just before, which
 * the wide searches' wrapped neighbours produce. */
static void hits_in_area(const struct zset *z, const struct geo_shape *s, struct geo_hits *hits,
                         size_t limit)
{
    struct geo_area a;
    int last = 0;

    geo_area_of(s, &a);
    for (int i = 0; i < 9; i++) {
        struct geo_hash h = a.cells[i];
        if (h.bits == 0 && h.step == 0)
            continue;
        if (last && h.bits == a.cells[last].bits && h.step == a.cells[last].step)
            continue;
        if (hits->len && limit && hits->len >= limit)
            break;
        uint64_t min, max;
        geo_cell_scores(h, &min, &max);
        hits_in_range(z, min, max, s, hits, limit);
        last = i;
    }
}

static int hit_asc(const void *a, const void *b)
{
    const struct geo_hit *x = a, *y = b;
    return x->dist > y->dist ? 1 : x->dist == y->dist ? 0 : -1;
}

static int hit_desc(const void *a, const void *b)
{
    return -hit_asc(a, b);
}

struct search_opts {
    int withdist, withhash, withcoord, any, sort, storedist;
    int frommember, fromloc, byradius, bybox;
    long long count;
    const struct resp_slice *store;
};

/* The options from argv[base] on, in Redis's georadiusGeneric order:
 * FROMMEMBER reads the centre from z (absent: read later as an empty
 * search). 0, or -1 after the error. */
static int search_opts_or_reply(struct client *c, int base, unsigned flags, const struct zset *z,
                                struct geo_shape *s, struct search_opts *o)
{
    const struct resp_slice name = c->argv[0]; /* as sent, for two errors */
    int geo = (flags & SEARCH_GEO) != 0;
    int can_store = !(flags & SEARCH_NOSTORE) && !geo;

    for (int i = base; i < c->argc; i++) {
        const struct resp_slice *a = &c->argv[i];
        int rest = c->argc - i - 1;
        if (arg_is(a, "withdist")) {
            o->withdist = 1;
        } else if (arg_is(a, "withhash")) {
            o->withhash = 1;
        } else if (arg_is(a, "withcoord")) {
            o->withcoord = 1;
        } else if (arg_is(a, "any")) {
            o->any = 1;
        } else if (arg_is(a, "asc")) {
            o->sort = SORT_ASC;
        } else if (arg_is(a, "desc")) {
            o->sort = SORT_DESC;
        } else if (arg_is(a, "count") && rest >= 1) {
            if (arg_ll_or_reply(c, &c->argv[i + 1], &o->count) < 0)
                return -1;
            if (o->count <= 0) {
                resp_add_error(&c->out, "ERR COUNT must be > 0");
                return -1;
            }
            i++;
        } else if ((arg_is(a, "store") || arg_is(a, "storedist")) && rest >= 1 && can_store) {
            o->store = &c->argv[i + 1];
            o->storedist = arg_is(a, "storedist");
            i++;
        } else if (arg_is(a, "storedist") && geo && (flags & SEARCH_STORE)) {
            o->storedist = 1;
        } else if (arg_is(a, "frommember") && rest >= 1 && geo && !o->fromloc) {
            if (z && member_point(z, &c->argv[i + 1], &s->lon, &s->lat) < 0) {
                resp_add_error(&c->out, ERR_BAD_MEMBER);
                return -1;
            }
            o->frommember = 1;
            i++;
        } else if (arg_is(a, "fromlonlat") && rest >= 2 && geo && !o->frommember) {
            if (lonlat_or_reply(c, &c->argv[i + 1], &s->lon, &s->lat) < 0)
                return -1;
            o->fromloc = 1;
            i += 2;
        } else if (arg_is(a, "byradius") && rest >= 2 && geo && !o->bybox) {
            if (radius_or_reply(c, &c->argv[i + 1], s) < 0)
                return -1;
            o->byradius = 1;
            i += 2;
        } else if (arg_is(a, "bybox") && rest >= 3 && geo && !o->byradius) {
            if (box_or_reply(c, &c->argv[i + 1], s) < 0)
                return -1;
            o->bybox = 1;
            i += 3;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    if (o->store && (o->withdist || o->withhash || o->withcoord)) {
        resp_add_errorf(&c->out,
                        "ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                        (flags & SEARCH_STORE) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
        return -1;
    }
    if (geo && !(o->frommember || o->fromloc)) {
        resp_add_errorf(&c->out,
                        "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %.*s",
                        (int)name.len, name.ptr);
        return -1;
    }
    if (geo && !(o->byradius || o->bybox)) {
        resp_add_errorf(&c->out, "ERR exactly one of BYRADIUS and BYBOX can be specified for %.*s",
                        (int)name.len, name.ptr);
        return -1;
    }
    if (o->any && !o->count) {
        resp_add_error(&c->out, "ERR the ANY argument requires COUNT argument");
        return -1;
    }
    return 0;
}

static void reply_hits(struct client *c, struct geo_hit *v, size_t n, const struct geo_shape *s,
                       const struct search_opts *o)
{
    size_t extra = (size_t)o->withdist + (size_t)o->withhash + (size_t)o->withcoord;

    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++) {
        if (extra)
            resp_add_array_len(&c->out, extra + 1);
        resp_add_bulk(&c->out, v[i].n->member, v[i].n->len);
        if (o->withdist)
            add_distance(c, v[i].dist / s->to_m);
        if (o->withhash)
            resp_add_int(&c->out, (long long)v[i].n->score);
        if (o->withcoord) {
            resp_add_array_len(&c->out, 2);
            add_coord(c, v[i].lon);
            add_coord(c, v[i].lat);
        }
    }
}

/* The n hits as a new set at o->store: scores the hashes, or the distances
 * in the search's unit under STOREDIST. */
static void store_hits(struct client *c, const struct geo_hit *v, size_t n,
                       const struct geo_shape *s, const struct search_opts *o, unsigned flags)
{
    struct zset *out = n ? zs_new() : NULL;
    for (size_t i = 0; i < n; i++) {
        double score = o->storedist ? v[i].dist / s->to_m : v[i].n->score;
        if (!zs_find(out, v[i].n->member, v[i].n->len))
            zs_insert(out, v[i].n->member, v[i].n->len, score);
    }
    store_and_reply(c, o->store, KS_ZSET, out, n, NOTIFY_ZSET,
                    (flags & SEARCH_GEO) ? "geosearchstore" : "georadiusstore");
}

/* Redis's georadiusGeneric: the source set at argv[src], the centre and
 * shape from the fixed arguments or GEOSEARCH's options. */
static void search_generic(struct client *c, int src, unsigned flags)
{
    struct geo_shape s = {0};
    struct search_opts o = {0};
    struct zset *z;
    int base;

    if (geo_lookup_or_reply(c, &c->argv[src], &z) < 0)
        return;
    if (flags & SEARCH_COORDS) {
        base = 6;
        if (lonlat_or_reply(c, &c->argv[2], &s.lon, &s.lat) < 0 ||
            radius_or_reply(c, &c->argv[4], &s) < 0)
            return;
    } else if (flags & SEARCH_MEMBER) {
        base = 5;
        if (z) {
            if (member_point(z, &c->argv[2], &s.lon, &s.lat) < 0) {
                resp_add_error(&c->out, ERR_BAD_MEMBER);
                return;
            }
            if (radius_or_reply(c, &c->argv[3], &s) < 0)
                return;
        }
    } else {
        base = (flags & SEARCH_STORE) ? 3 : 2;
        if (flags & SEARCH_STORE)
            o.store = &c->argv[1];
    }
    if (search_opts_or_reply(c, base, flags, z, &s, &o) < 0)
        return;
    if (!z) {
        if (o.store)
            store_and_reply(c, o.store, KS_ZSET, NULL, 0, NOTIFY_ZSET, "");
        else
            resp_add_array_len(&c->out, 0);
        return;
    }
    if (o.count && o.sort == SORT_NONE && !o.any)
        o.sort = SORT_ASC;

    struct geo_hits hits = {0};
    hits_in_area(z, &s, &hits, o.any ? (size_t)o.count : 0);
    size_t n = o.count && hits.len > (size_t)o.count ? (size_t)o.count : hits.len;
    /* Only the n replied need order, as Redis's pqsort. */
    if (o.sort != SORT_NONE && hits.len)
        psort(hits.v, hits.len, sizeof(*hits.v), o.sort == SORT_ASC ? hit_asc : hit_desc, n);
    if (o.store)
        store_hits(c, hits.v, n, &s, &o, flags);
    else
        reply_hits(c, hits.v, n, &s, &o);
    xfree(hits.v);
}

static void cmd_georadius(struct client *c)
{
    search_generic(c, 1, SEARCH_COORDS);
}

static void cmd_georadiusbymember(struct client *c)
{
    search_generic(c, 1, SEARCH_MEMBER);
}

static void cmd_georadius_ro(struct client *c)
{
    search_generic(c, 1, SEARCH_COORDS | SEARCH_NOSTORE);
}

static void cmd_georadiusbymember_ro(struct client *c)
{
    search_generic(c, 1, SEARCH_MEMBER | SEARCH_NOSTORE);
}

static void cmd_geosearch(struct client *c)
{
    search_generic(c, 1, SEARCH_GEO);
}

static void cmd_geosearchstore(struct client *c)
{
    search_generic(c, 2, SEARCH_GEO | SEARCH_STORE);
}

/* ---- the table ----------------------------------------------------------- */

#define GEO_COMMAND(name_, proc_, arity_, flags_, last)                                          \
    {.name = (name_), .proc = (proc_), .arity = (arity_), .flags = (flags_), .first_key = 1,     \
     .last_key = (last), .key_step = 1, .group = "geo"}

const struct command geo_commands[] = {
    GEO_COMMAND("geoadd", cmd_geoadd, -5, CMD_WRITE | CMD_DENYOOM, 1),
    GEO_COMMAND("geodist", cmd_geodist, -4, CMD_READONLY, 1),
    GEO_COMMAND("geohash", cmd_geohash, -2, CMD_READONLY, 1),
    GEO_COMMAND("geopos", cmd_geopos, -2, CMD_READONLY, 1),
    GEO_COMMAND("georadius", cmd_georadius, -6,
                CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS | CMD_TOUCHES_OWN_KEYS, 1),
    GEO_COMMAND("georadius_ro", cmd_georadius_ro, -6, CMD_READONLY, 1),
    GEO_COMMAND("georadiusbymember", cmd_georadiusbymember, -5,
                CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS | CMD_TOUCHES_OWN_KEYS, 1),
    GEO_COMMAND("georadiusbymember_ro", cmd_georadiusbymember_ro, -5, CMD_READONLY, 1),
    GEO_COMMAND("geosearch", cmd_geosearch, -7, CMD_READONLY, 1),
    GEO_COMMAND("geosearchstore", cmd_geosearchstore, -8,
                CMD_WRITE | CMD_DENYOOM | CMD_TOUCHES_OWN_KEYS, 2),
    {0},
};
