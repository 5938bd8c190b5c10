/*
 * rdb_file.c - Redis's RDB file read into a keyspace and written from one
 * (rdb_file.h).
 *
 * Reading walks the whole input held in memory (the file is mapped) with
 * rdb_io.h's checked primitives: every length is checked against the bytes
 * left, so a truncated or corrupt file fails at the first bad byte instead
 * of reading past the end. The checksum runs over the input as it is read;
 * a mapped file's pages behind the record being read are then dropped from
 * the process (release_behind), so the file never adds its whole size to the
 * load's peak memory. A key and its value are built completely before
 * they enter the keyspace, so a fault never leaves half a value behind; the
 * caller discards the keys loaded before it.
 *
 * Writing streams through a buffer flushed every RDB_FLUSH_AT bytes, the
 * checksum running over each flush.
 */
#include "rdb_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keyaccess.h"
#include "keyspace.h"
#include "log.h"
#include "mem.h"
#include "rdb_dump.h"
#include "repr.h"
#include "snapshot.h"

/* The opcodes of Redis 7.0's rdb.h. */
enum rdb_opcode {
    RDB_OPCODE_FUNCTION2 = 245,
    RDB_OPCODE_FUNCTION_PRE_GA = 246,
    RDB_OPCODE_MODULE_AUX = 247,
    RDB_OPCODE_IDLE = 248,
    RDB_OPCODE_FREQ = 249,
    RDB_OPCODE_AUX = 250,
    RDB_OPCODE_RESIZEDB = 251,
    RDB_OPCODE_EXPIRETIME_MS = 252,
    RDB_OPCODE_EXPIRETIME = 253,
    RDB_OPCODE_SELECTDB = 254,
    RDB_OPCODE_EOF = 255,
};

/* The version whose files end in a CRC-64 (Redis 2.6 onward). */
#define RDB_VERSION_CHECKSUM 5
/* "REDIS" and four digits. */
#define RDB_HEADER_LEN 9
/* The most key bytes an error message quotes. */
#define KEY_SHOWN 64
/* Keys between two progress lines of a verbose load. */
#define PROGRESS_KEYS 1000000
/* A mapped file's read pages are checksummed and dropped every this many bytes. */
#define RDB_RELEASE_EVERY (8u << 20)
/* The writer's buffer is flushed past this many bytes. */
#define RDB_FLUSH_AT (1u << 20)

/* A key read whole and not yet added (read_key). */
struct pending {
    int full;
    struct rdb_str key;
    struct rdb_value v;
    size_t at; /* where its record starts, for errors */
    uint64_t h; /* its index hash (ks_bulk_prefetch) */
    int64_t expire;
    long long idle, freq;
};

struct loader {
    struct rdb_in in;
    const char *name;
    const struct rdb_file_opts *o;
    struct keyspace *ks;
    struct db *db;
    /* One per database: the keys go in unordered (the file is in hash
     * order), sorted in runs as they come and merged as the tree is linked
     * at the end (ks_bulk_begin_any_order). */
    struct ks_bulk *bulks;
    struct pending pending;
    long long keys;
    int mapped;       /* in.buf is a private read-only mapping of the file */
    size_t crc_at;    /* the checksum covers in.buf[0, crc_at) ... */
    uint64_t crc;     /* ... and is this */
    size_t dropped;   /* mapped: the pages of in.buf[0, dropped) were given back */
    char *err;
    size_t errlen;
};

/* Sets the error: at the offset, in the key when key is not NULL. Returns -1. */
__attribute__((format(printf, 5, 6))) static int fail(struct loader *l, size_t at,
                                                      const char *key, size_t klen,
                                                      const char *fmt, ...)
{
    char why[256], shown[REPR_MAX(KEY_SHOWN) + 4] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (key) {
        size_t n = repr_write(shown, key, klen > KEY_SHOWN ? KEY_SHOWN : klen);
        memcpy(shown + n, klen > KEY_SHOWN ? "..." : "", klen > KEY_SHOWN ? 4 : 1);
        snprintf(l->err, l->errlen, "Bad RDB file %s at offset %zu: key %s in db %d: %s", l->name,
                 at, shown, l->db->id, why);
    } else {
        snprintf(l->err, l->errlen, "Bad RDB file %s at offset %zu: %s", l->name, at, why);
    }
    return -1;
}

static int read_header(struct loader *l, int *version)
{
    const unsigned char *h = l->in.buf;
    if (rdb_left(&l->in) < RDB_HEADER_LEN || memcmp(h, RDB_FILE_MAGIC, RDB_FILE_MAGIC_LEN))
        return fail(l, 0, NULL, 0, "Wrong signature trying to load DB from file");
    int v = 0;
    for (int i = RDB_FILE_MAGIC_LEN; i < RDB_HEADER_LEN; i++) {
        if (h[i] < '0' || h[i] > '9')
            return fail(l, (size_t)i, NULL, 0, "Wrong signature trying to load DB from file");
        v = v * 10 + (h[i] - '0');
    }
    if (v < 1 || v > RDB_VERSION)
        return fail(l, RDB_FILE_MAGIC_LEN, NULL, 0, "Can't handle RDB format version %d", v);
    l->in.pos = RDB_HEADER_LEN;
    *version = v;
    return 0;
}

/* One AUX field: what Redis logs is logged, the rest skipped. */
static int read_aux(struct loader *l, size_t at)
{
    struct rdb_str k, v;
    if (rdb_read_string(&l->in, &k) < 0)
        return fail(l, at, NULL, 0, "truncated AUX field");
    if (rdb_read_string(&l->in, &v) < 0) {
        rdb_str_release(&k);
        return fail(l, at, NULL, 0, "truncated AUX field");
    }
    if (l->o->verbose && k.len == 9 && !memcmp(k.p, "redis-ver", 9))
        log_notice("Loading RDB produced by version %.*s", (int)(v.len > 32 ? 32 : v.len), v.p);
    rdb_str_release(&k);
    rdb_str_release(&v);
    return 0;
}

/* A function library's code, kept for the registry, which compiles it once
 * the load is over (snapshot.h): this file knows nothing of functions. */
static int read_function(struct loader *l, size_t at)
{
    struct rdb_str code;
    if (rdb_read_string(&l->in, &code) < 0)
        return fail(l, at, NULL, 0, "truncated function library");
    char *copy = code.owned;
    if (!copy)
        copy = xmemdup(code.p, code.len);
    snap_keep_loaded_function(copy, code.len);
    return 0;
}

/* Whether Redis 7.0 knows t as a value type (rdbIsObjectType), or it is
 * 7.2's third stream type, which rdb_stream.h reads too. */
static int is_value_type(unsigned t)
{
    return t <= RDB_TYPE_MODULE_2 ||
           (t >= RDB_TYPE_HASH_ZIPMAP && t <= RDB_TYPE_STREAM_LISTPACKS_2) ||
           t == RDB_TYPE_STREAM_LISTPACKS_3;
}

/* s moved to *dst: a short integer's text lives inside the struct. */
static void str_move(struct rdb_str *dst, const struct rdb_str *s)
{
    *dst = *s;
    if (s->p == s->num)
        dst->p = dst->num;
}

/* Frees what a pending key holds and empties it. */
static void pending_drop(struct pending *k)
{
    if (!k->full)
        return;
    rdb_str_release(&k->key);
    if (k->v.type == KS_STRING || k->v.ptr) /* else the entry took it */
        rdb_value_release(&k->v);
    k->full = 0;
}

/* Adds the pending key to its database (its index slot was prefetched one
 * record ago, so the probe finds it in the cache): refused when the key is
 * there already, dropped when it is past its deadline. Empties it. */
static int pending_commit(struct loader *l)
{
    struct pending *k = &l->pending;
    if (!k->full)
        return 0;
    struct db *db = l->db; /* committed before a SELECTDB: the key's */
    int rc = 0;
    /* A key already past its deadline is dropped, as a Redis primary does. */
    if (k->expire >= 0 && l->o->now_ms >= 0 && k->expire <= l->o->now_ms) {
        if (ks_find(db, k->key.p, k->key.len))
            rc = fail(l, k->at, k->key.p, k->key.len, "duplicated key");
        pending_drop(k);
        return rc;
    }
    struct ks_bulk *b = &l->bulks[db->id];
    if (!b->db)
        ks_bulk_begin_any_order(b, db);
    struct ks_entry *e;
    if (k->v.type == KS_STRING)
        e = ks_bulk_add_new(b, k->key.p, k->key.len, k->h, KS_STRING, k->v.str.p, k->v.str.len,
                            k->expire);
    else
        e = ks_bulk_add_new(b, k->key.p, k->key.len, k->h, (enum ks_type)k->v.type, k->v.ptr, 0,
                            k->expire);
    if (!e) {
        rc = fail(l, k->at, k->key.p, k->key.len, "duplicated key");
        pending_drop(k);
        return rc;
    }
    if (k->v.type != KS_STRING)
        k->v.ptr = NULL; /* the entry owns it */
    if (l->o->clock)
        ka_restore(e, l->o->clock, k->freq, k->idle);
    if (++l->keys % PROGRESS_KEYS == 0 && l->o->verbose)
        log_notice("Loading %s: %lld keys, %zu of %zu bytes", l->name, l->keys, l->in.pos,
                   l->in.len);
    if (l->keys % SNAP_PROGRESS_EVERY == 0)
        snap_progress(0, l->keys, l->in.pos, l->in.len);
    pending_drop(k);
    return 0;
}

/* The key of type rdbtype at at, with its pending expiry and access state:
 * read whole, then kept pending while the next record is read, so the
 * index slot it goes to, prefetched now, is in the cache when it is added. */
static int read_key(struct loader *l, size_t at, unsigned rdbtype, int64_t expire,
                    long long idle, long long freq)
{
    struct rdb_str key;
    if (rdb_read_string(&l->in, &key) < 0)
        return fail(l, at, NULL, 0, "truncated key");
    if (rdbtype == RDB_TYPE_MODULE || rdbtype == RDB_TYPE_MODULE_2) {
        fail(l, at, key.p, key.len, "a module's value (type %u): rbkv loads no modules",
             rdbtype);
        rdb_str_release(&key);
        return -1;
    }
    uint64_t h = ks_bulk_prefetch(l->db, key.p, key.len);
    struct rdb_value v;
    const char *why;
    if (rdb_value_read_body(&l->in, rdbtype, &l->o->lim, 1, &v, &why) < 0) {
        fail(l, at, key.p, key.len, "bad value of type %u (%s)", rdbtype, why);
        rdb_str_release(&key);
        return -1;
    }
    if (pending_commit(l) < 0) {
        rdb_value_release(&v);
        rdb_str_release(&key);
        return -1;
    }
    struct pending *k = &l->pending;
    str_move(&k->key, &key);
    k->v = v;
    if (v.type == KS_STRING)
        str_move(&k->v.str, &v.str);
    k->at = at;
    k->h = h;
    k->expire = expire;
    k->idle = idle;
    k->freq = freq;
    k->full = 1;
    return 0;
}

static int read_u64(struct loader *l, size_t at, int n, uint64_t *v, const char *what)
{
    if (rdb_left(&l->in) < (size_t)n)
        return fail(l, at, NULL, 0, "truncated %s", what);
    *v = rdb_le(l->in.buf + l->in.pos, n);
    l->in.pos += (size_t)n;
    return 0;
}

/* Runs the checksum up to upto, the start of the first record still in use
 * (a pending key borrows its record's bytes), and, for a mapped file, gives
 * back the whole pages before it: they are the page cache's, read again
 * only if touched again, and never are. Redis reads the file through a small
 * buffer; without this the mapping holds the whole file until the end. */
static void release_behind(struct loader *l, size_t upto)
{
    if (upto - l->crc_at < RDB_RELEASE_EVERY)
        return;
    l->crc = snap_crc64(l->crc, l->in.buf + l->crc_at, upto - l->crc_at);
    l->crc_at = upto;
    if (!l->mapped)
        return;
    /* The mapping is PROT_READ: no byte of it was written, none lost. */
    char *from = (char *)(uintptr_t)(l->in.buf + l->dropped);
    l->dropped += (size_t)(mem_release_pages(from, upto - l->dropped) - from);
}

static int read_records(struct loader *l)
{
    int64_t expire = -1;
    long long idle = -1, freq = -1;
    for (;;) {
        size_t at = l->in.pos;
        unsigned op;
        uint64_t a = 0, b = 0;
        release_behind(l, l->pending.full ? l->pending.at : at);
        if (rdb_read_byte(&l->in, &op) < 0)
            return fail(l, at, NULL, 0, "unexpected end of file (no EOF opcode)");
        switch (op) {
        case RDB_OPCODE_EXPIRETIME_MS:
            if (read_u64(l, at, 8, &a, "expiry") < 0)
                return -1;
            expire = (int64_t)a < 0 ? 0 : (int64_t)a;
            continue;
        case RDB_OPCODE_EXPIRETIME:
            if (read_u64(l, at, 4, &a, "expiry") < 0)
                return -1;
            expire = (int64_t)(int32_t)(uint32_t)a * 1000;
            if (expire < 0)
                expire = 0;
            continue;
        case RDB_OPCODE_FREQ:
            if (read_u64(l, at, 1, &a, "FREQ") < 0)
                return -1;
            freq = (long long)a;
            continue;
        case RDB_OPCODE_IDLE:
            if (rdb_read_len(&l->in, &a, NULL) < 0)
                return fail(l, at, NULL, 0, "truncated IDLE");
            idle = a > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)a;
            continue;
        case RDB_OPCODE_EOF:
            return pending_commit(l);
        case RDB_OPCODE_SELECTDB:
            if (pending_commit(l) < 0)
                return -1;
            if (rdb_read_len(&l->in, &a, NULL) < 0)
                return fail(l, at, NULL, 0, "truncated SELECTDB");
            if (a >= (uint64_t)l->ks->count)
                return fail(l, at, NULL, 0,
                            "database %llu out of range (databases is %d): the file was "
                            "created with more databases than configured",
                            (unsigned long long)a, l->ks->count);
            l->db = &l->ks->dbs[a];
            break;
        case RDB_OPCODE_RESIZEDB:
            if (rdb_read_len(&l->in, &a, NULL) < 0 || rdb_read_len(&l->in, &b, NULL) < 0)
                return fail(l, at, NULL, 0, "truncated RESIZEDB");
            /* The index sized once, as Redis sizes its dict; a key takes
             * at least 3 bytes, which bounds a lying count. */
            ks_reserve(l->db, a < rdb_left(&l->in) / 3 ? (size_t)a : rdb_left(&l->in) / 3);
            break;
        case RDB_OPCODE_AUX:
            if (read_aux(l, at) < 0)
                return -1;
            break;
        case RDB_OPCODE_MODULE_AUX:
            return fail(l, at, NULL, 0,
                        "the file holds a module's auxiliary data: rbkv loads no modules");
        case RDB_OPCODE_FUNCTION_PRE_GA:
            return fail(l, at, NULL, 0, "Pre-release function format not supported");
        case RDB_OPCODE_FUNCTION2:
            if (read_function(l, at) < 0)
                return -1;
            break;
        default:
            if (!is_value_type(op))
                return fail(l, at, NULL, 0, "unknown value type %u", op);
            if (read_key(l, at, op, expire, idle, freq) < 0)
                return -1;
            break;
        }
        expire = -1;
        idle = freq = -1;
    }
}

static int read_checksum(struct loader *l, int version)
{
    if (version < RDB_VERSION_CHECKSUM)
        return 0;
    size_t at = l->in.pos;
    uint64_t stored = 0;
    if (read_u64(l, at, 8, &stored, "checksum") < 0)
        return -1;
    /* 0: written with rdbchecksum no, so unchecked, as Redis. */
    if (!stored) {
        if (l->o->verbose)
            log_notice("RDB file was saved with checksum disabled: no check performed.");
        return 0;
    }
    uint64_t crc = snap_crc64(l->crc, l->in.buf + l->crc_at, at - l->crc_at);
    if (stored != crc) /* Redis's words: expected is the one computed */
        return fail(l, at, NULL, 0, "Wrong RDB checksum expected: (%llx) got (%llx)",
                    (unsigned long long)crc, (unsigned long long)stored);
    return 0;
}

/* rdb_file_read; mapped: buf is a private read-only mapping of the file,
 * whose pages may be given back as they are passed. */
static long long read_file(struct keyspace *ks, const unsigned char *buf, size_t len,
                           const char *name, const struct rdb_file_opts *o, int mapped,
                           char *err, size_t errlen)
{
    struct loader l = {.in = {buf, len, 0}, .name = name, .o = o, .ks = ks, .db = &ks->dbs[0]};
    l.mapped = mapped;
    l.err = err;
    l.errlen = errlen;
    int version = 0, rc = 0;
    snap_drop_loaded_functions();
    l.bulks = xcalloc((size_t)ks->count, sizeof(*l.bulks));
    if (read_header(&l, &version) < 0 || read_records(&l) < 0 || read_checksum(&l, version) < 0)
        rc = -1;
    /* After a fault, a key still pending came first: its own fault (a
     * duplicate) is the one to report. */
    if (rc < 0)
        pending_commit(&l);
    pending_drop(&l.pending);
    for (int i = 0; i < ks->count; i++) {
        if (l.bulks[i].db)
            ks_bulk_finish(&l.bulks[i]);
    }
    xfree(l.bulks);
    if (rc == 0)
        snap_progress(0, l.keys, len, len);
    return rc < 0 ? -1 : l.keys;
}

long long rdb_file_read(struct keyspace *ks, const unsigned char *buf, size_t len,
                        const char *name, const struct rdb_file_opts *o, char *err,
                        size_t errlen)
{
    return read_file(ks, buf, len, name, o, 0, err, errlen);
}

int rdb_file_sniff(const char *path)
{
    char magic[RDB_FILE_MAGIC_LEN];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, magic, sizeof(magic));
    close(fd);
    return n == (ssize_t)sizeof(magic) && !memcmp(magic, RDB_FILE_MAGIC, sizeof(magic));
}

long long rdb_file_load(struct keyspace *ks, const char *path, const struct rdb_file_opts *o,
                        char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "Can't open the RDB file %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    /* An empty file maps nothing: read_header refuses it from an empty buffer. */
    void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, errlen, "Can't map the RDB file %s: %s", path, strerror(errno));
        return -1;
    }
    if (size)
        madvise(map, size, MADV_SEQUENTIAL);
    long long n = read_file(ks, map ? map : (const void *)"", size, path, o, map != NULL, err,
                            errlen);
    if (map)
        munmap(map, size);
    return n;
}

/* ---- writing ---- */

struct writer {
    int fd;
    long long keys, total; /* written, and to write (for progress) */
    struct rdb_out o;
    uint64_t crc;
    char *err;
    size_t errlen;
    int failed;
};

static int flush(struct writer *w)
{
    w->crc = snap_crc64(w->crc, w->o.buf, w->o.len);
    for (size_t done = 0; done < w->o.len && !w->failed;) {
        ssize_t n = write(w->fd, w->o.buf + done, w->o.len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(w->err, w->errlen, "%s", n < 0 ? strerror(errno) : "short write");
            w->failed = 1;
            break;
        }
        done += (size_t)n;
    }
    w->o.len = 0;
    return w->failed ? -1 : 0;
}

static void write_aux(struct rdb_out *o, const char *k, const char *v)
{
    rdb_out_byte(o, RDB_OPCODE_AUX);
    rdb_out_string(o, k, strlen(k));
    rdb_out_string(o, v, strlen(v));
}

/* One key: its expiry, its type byte, the key, the value's body. */
static int write_key(struct writer *w, struct rdb_out *scratch, struct ks_entry *e)
{
    int64_t when = ks_get_expire(e);
    if (e->type != KS_STRING) {
        scratch->len = 0;
        rdb_value_write(scratch, e->type, ks_ptr(e));
    }
    if (when >= 0) {
        unsigned char ms[8];
        for (int i = 0; i < 8; i++)
            ms[i] = (unsigned char)((uint64_t)when >> (8 * i));
        rdb_out_byte(&w->o, RDB_OPCODE_EXPIRETIME_MS);
        rdb_out_bytes(&w->o, ms, 8);
    }
    if (e->type == KS_STRING) {
        rdb_out_byte(&w->o, RDB_TYPE_STRING);
        rdb_out_string(&w->o, ks_key(e), ks_klen(e));
        rdb_out_string(&w->o, ks_str(e), ks_slen(e));
    } else {
        rdb_out_byte(&w->o, (unsigned char)scratch->buf[0]);
        rdb_out_string(&w->o, ks_key(e), ks_klen(e));
        rdb_out_bytes(&w->o, scratch->buf + 1, scratch->len - 1);
    }
    return w->o.len >= RDB_FLUSH_AT ? flush(w) : 0;
}

static int write_db(struct writer *w, struct rdb_out *scratch, const struct db *db,
                    int64_t now_ms)
{
    if (!ks_count(db))
        return 0;
    rdb_out_byte(&w->o, RDB_OPCODE_SELECTDB);
    rdb_out_len(&w->o, (uint64_t)db->id);
    rdb_out_byte(&w->o, RDB_OPCODE_RESIZEDB);
    rdb_out_len(&w->o, ks_count(db));
    rdb_out_len(&w->o, db->expires_count);
    for (struct ks_entry *e = ks_first(db); e; e = ks_next(e)) {
        int64_t when = ks_get_expire(e);
        if (when >= 0 && when <= now_ms)
            continue;
        if (write_key(w, scratch, e) < 0)
            return -1;
        if (++w->keys % SNAP_PROGRESS_EVERY == 0)
            snap_progress(1, w->keys, (unsigned long long)w->keys, (unsigned long long)w->total);
    }
    return 0;
}

int rdb_file_write_fd(int fd, const struct keyspace *ks, int64_t now_ms, char *err,
                      size_t errlen)
{
    struct writer w = {.fd = fd, .err = err, .errlen = errlen};
    struct rdb_out scratch = {0};
    char num[32];
    rdb_out_bytes(&w.o, RDB_FILE_MAGIC "0010", RDB_HEADER_LEN);
    /* The version of Redis whose format this is, as tools read it. No
     * used-mem: it is only logged, and without it the same keyspace writes
     * the same bytes (the fuzz target checks that). */
    write_aux(&w.o, "redis-ver", "7.0.15");
    snprintf(num, sizeof(num), "%zu", sizeof(void *) * 8);
    write_aux(&w.o, "redis-bits", num);
    snprintf(num, sizeof(num), "%lld", (long long)(now_ms / 1000));
    write_aux(&w.o, "ctime", num);
    write_aux(&w.o, "aof-base", "0");
    const char *code;
    size_t clen;
    for (size_t i = 0; (code = snap_function_code(i, &clen)); i++) {
        rdb_out_byte(&w.o, RDB_OPCODE_FUNCTION2);
        rdb_out_string(&w.o, code, clen);
    }
    int rc = 0;
    for (int i = 0; i < ks->count; i++)
        w.total += (long long)ks_count(&ks->dbs[i]);
    for (int i = 0; i < ks->count && rc == 0; i++)
        rc = write_db(&w, &scratch, &ks->dbs[i], now_ms);
    if (rc == 0)
        snap_progress(1, w.keys, (unsigned long long)w.total, (unsigned long long)w.total);
    if (rc == 0) {
        rdb_out_byte(&w.o, RDB_OPCODE_EOF);
        rc = flush(&w);
    }
    if (rc == 0) {
        unsigned char crc[8];
        for (int i = 0; i < 8; i++)
            crc[i] = (unsigned char)(w.crc >> (8 * i));
        rdb_out_bytes(&w.o, crc, 8);
        rc = flush(&w);
    }
    if (rc == 0 && fsync(fd) < 0 && errno != EINVAL) {
        snprintf(err, errlen, "fsync: %s", strerror(errno));
        rc = -1;
    }
    rdb_out_free(&w.o);
    rdb_out_free(&scratch);
    return rc;
}
