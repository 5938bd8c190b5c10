/*
 * snapshot.c - the snapshot format's writer and reader, and the atomic save
 * (see snapshot.h for the format).
 *
 * The writer buffers into a fixed block and checksums each block as it goes
 * out; a failed write is sticky, so the encoders do not check every call and
 * the first errno is what is reported. The reader is the mirror: a fixed block
 * refilled with read(), the absolute offset of each field kept for error
 * messages, every length checked against the bytes the file still holds
 * before anything is allocated for it, so a corrupt length can neither crash
 * nor allocate more than the file's size.
 *
 * Knows the keyspace, the sorted set and the ordered map only through their public APIs; knows
 * nothing of clients, the loop or the server struct.
 */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "keyspace.h"
#include "fileio.h"
#include "log.h"
#include "mem.h"
#include "olist.h"
#include "omap.h"
#include "xgroup.h"
#include "xstream.h"
#include "zset.h"

#define SNAP_MAGIC "RBKV"
#define SNAP_MAGIC_LEN 4
#define SNAP_HEADER_LEN (SNAP_MAGIC_LEN + 2 + 2 + 8)
#define OP_STRING 0x00
#define OP_ZSET 0x01
#define OP_HASH 0x02
#define OP_SET 0x03
#define OP_LIST 0x04
#define OP_STREAM 0x05
#define OP_STREAM_GROUPS 0x06
#define OP_FUNCTION 0xF5
#define OP_REPL 0xFD
#define OP_SELECT 0xFE
#define OP_END 0xFF
#define FLAG_DEADLINE 0x01
#define VARINT_MAX 10
#define IO_BLOCK (256 * 1024) /* big enough that a syscall's cost is lost in the copy */
#define PROGRESS_KEYS 1000000 /* keys between two progress lines while loading */

/* ---- CRC-64/Jones, reflected, as Redis's crc64.c ----
 * Slicing-by-8: eight tables let one step fold eight bytes, several times
 * faster than a byte at a time, which matters as every byte of a load is
 * checksummed. */

#define CRC64_POLY_REFLECTED 0x95ac9329ac4bc9b5ULL

static uint64_t crc_table[8][256];

static void crc_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint64_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC64_POLY_REFLECTED : c >> 1;
        crc_table[0][i] = c;
    }
    for (unsigned i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = crc_table[0][crc_table[t - 1][i] & 0xff] ^ (crc_table[t - 1][i] >> 8);
}

uint64_t snap_crc64(uint64_t crc, const void *p, size_t n)
{
    /* Once, whichever thread comes first (a replica loads on a helper thread). */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const unsigned char *b = p;
    pthread_once(&once, crc_init);
    for (; n >= 8; n -= 8, b += 8) {
        uint64_t w = crc;
        for (int i = 0; i < 8; i++)
            w ^= (uint64_t)b[i] << (8 * i); /* little-endian load, any host */
        crc = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff] ^
              crc_table[5][(w >> 16) & 0xff] ^ crc_table[4][(w >> 24) & 0xff] ^
              crc_table[3][(w >> 32) & 0xff] ^ crc_table[2][(w >> 40) & 0xff] ^
              crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
    }
    for (; n; n--, b++)
        crc = crc_table[0][(crc ^ *b) & 0xff] ^ (crc >> 8);
    return crc;
}

/* ---- writer ---- */

struct writer {
    int fd;
    int err;          /* first errno, sticky */
    uint64_t crc;     /* of every byte handed to write() so far */
    size_t len;
    unsigned char buf[IO_BLOCK];
};

static void w_raw(struct writer *w, const unsigned char *p, size_t n)
{
    if (w->err)
        return;
    w->crc = snap_crc64(w->crc, p, n);
    if (write_full(w->fd, p, n) < 0)
        w->err = errno;
}

static void w_flush(struct writer *w)
{
    w_raw(w, w->buf, w->len);
    w->len = 0;
}

static void w_bytes(struct writer *w, const void *p, size_t n)
{
    if (w->len + n > sizeof(w->buf)) {
        w_flush(w);
        if (n > sizeof(w->buf)) { /* a big value goes out without a copy */
            w_raw(w, p, n);
            return;
        }
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void w_u8(struct writer *w, unsigned v)
{
    unsigned char b = (unsigned char)v;
    w_bytes(w, &b, 1);
}

static void w_u64(struct writer *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    w_bytes(w, b, 8);
}

static void w_varint(struct writer *w, uint64_t v)
{
    unsigned char b[VARINT_MAX];
    size_t n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    w_bytes(w, b, n);
}

static void w_blob(struct writer *w, const char *p, size_t n)
{
    w_varint(w, n);
    w_bytes(w, p, n);
}

static void w_zset(struct writer *w, const struct zset *z)
{
    w_varint(w, zs_len(z));
    for (const struct zs_node *n = zs_first(z); n; n = zs_next(n)) {
        uint64_t bits;
        memcpy(&bits, &n->score, sizeof(bits));
        w_blob(w, n->member, n->len);
        w_u64(w, bits);
    }
}

/* A hash's fields with their values, or a set's members, in order. */
static void w_omap(struct writer *w, const struct omap *m)
{
    struct om_it it;
    struct om_elem el;
    w_varint(w, om_len(m));
    for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it)) {
        om_it_get(m, &it, &el);
        w_blob(w, el.f, el.flen);
        if (el.v)
            w_blob(w, el.v, el.vlen);
    }
}

/* A list's elements, head to tail. */
static void w_olist(struct writer *w, const struct olist *l)
{
    struct ol_it it;
    const char *v;
    size_t vlen;
    w_varint(w, ol_len(l));
    for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it)) {
        ol_it_get(&it, &v, &vlen);
        w_blob(w, v, vlen);
    }
}

/* A stream: its counters (last, first and max deleted IDs, entries added,
 * the tail node's number, entries and bytes), then each entry's ID, node,
 * field count and field-value pairs, in ID order. */
static void w_stream(struct writer *w, const struct xstream *s)
{
    const struct xs_id *ids[] = {&s->last_id, &s->first_id, &s->max_deleted};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        w_u64(w, ids[i]->ms);
        w_u64(w, ids[i]->seq);
    }
    w_varint(w, s->entries_added);
    w_varint(w, s->node);
    w_varint(w, s->node_entries);
    w_varint(w, s->node_bytes);
    w_varint(w, xs_len(s));
    struct xs_it it;
    struct xs_entry e;
    struct xs_str str;
    for (xs_seek(s, 0, &it); xs_it_valid(&it); xs_next(s, &it)) {
        xs_entry_of(s, &it, &e);
        w_u64(w, e.id.ms);
        w_u64(w, e.id.seq);
        w_varint(w, e.node);
        w_varint(w, e.nfields);
        for (struct xs_strs ws = xs_strs_of(&e); xs_next_str(&ws, &str) == 0;)
            w_blob(w, str.ptr, str.len);
    }
}

/* A stream's consumer groups (OP_STREAM_GROUPS, after w_stream). */
static void w_groups(struct writer *w, const struct xstream *s)
{
    const struct xs_id zero = {0, 0};
    w_varint(w, s->ngroups);
    for (const struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        w_blob(w, g->name, g->nlen);
        w_u64(w, g->last_id.ms);
        w_u64(w, g->last_id.seq);
        w_varint(w, (uint64_t)(g->entries_read + 1));
        w_varint(w, g->pel_count);
        for (const struct xg_pending *p = xg_pending_first(g); p; p = xg_pending_next(p, NULL)) {
            w_u64(w, p->id.ms);
            w_u64(w, p->id.seq);
            w_u64(w, (uint64_t)p->delivery_time);
            w_varint(w, p->delivery_count);
        }
        w_varint(w, g->nconsumers);
        for (const struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k)) {
            w_blob(w, k->name, k->nlen);
            w_u64(w, (uint64_t)k->seen_time);
            w_varint(w, k->pel_count);
            for (const struct xg_pending *p = xg_pending_seek(g, k, &zero); p;
                 p = xg_pending_next(p, k)) {
                w_u64(w, p->id.ms);
                w_u64(w, p->id.seq);
            }
        }
    }
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >>= 7)
        n++;
    return n;
}

static size_t blob_len(size_t n)
{
    return varint_len(n) + n;
}

/* What w_groups writes for s, counted. */
static size_t groups_len(const struct xstream *s)
{
    size_t len = varint_len(s->ngroups);
    for (const struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        len += blob_len(g->nlen) + 2 * sizeof(uint64_t) +
               varint_len((uint64_t)(g->entries_read + 1)) + varint_len(g->pel_count) +
               varint_len(g->nconsumers);
        for (const struct xg_pending *p = xg_pending_first(g); p; p = xg_pending_next(p, NULL))
            len += 3 * sizeof(uint64_t) + varint_len(p->delivery_count);
        for (const struct xg_consumer *k = xg_consumer_first(g); k; k = xg_consumer_next(k))
            len += blob_len(k->nlen) + sizeof(uint64_t) + varint_len(k->pel_count) +
                   k->pel_count * 2 * sizeof(uint64_t);
    }
    return len;
}

/* What w_blob, w_zset, w_omap and w_olist write for e's value, counted. */
size_t snap_value_len(const struct ks_entry *e)
{
    size_t len = 0;
    if (e->type == KS_STRING)
        return blob_len(ks_slen(e));
    if (e->type == KS_ZSET) {
        const struct zset *z = ks_ptr(e);
        len = varint_len(zs_len(z));
        for (const struct zs_node *n = zs_first(z); n; n = zs_next(n))
            len += blob_len(n->len) + sizeof(uint64_t);
        return len;
    }
    if (e->type == KS_LIST) {
        const struct olist *l = ks_ptr(e);
        struct ol_it it;
        const char *v;
        size_t vlen;
        len = varint_len(ol_len(l));
        for (ol_seek(l, 0, &it); ol_it_valid(&it); ol_next(&it)) {
            ol_it_get(&it, &v, &vlen);
            len += blob_len(vlen);
        }
        return len;
    }
    if (e->type == KS_STREAM) {
        const struct xstream *s = ks_ptr(e);
        struct xs_it it;
        struct xs_entry x;
        struct xs_str str;
        len = 6 * sizeof(uint64_t) + varint_len(s->entries_added) + varint_len(s->node) +
              varint_len(s->node_entries) + varint_len(s->node_bytes) + varint_len(xs_len(s));
        for (xs_seek(s, 0, &it); xs_it_valid(&it); xs_next(s, &it)) {
            xs_entry_of(s, &it, &x);
            len += 2 * sizeof(uint64_t) + varint_len(x.node) + varint_len(x.nfields);
            for (struct xs_strs w = xs_strs_of(&x); xs_next_str(&w, &str) == 0;)
                len += blob_len(str.len);
        }
        return len + (s->ngroups ? groups_len(s) : 0);
    }
    const struct omap *m = ks_ptr(e);
    struct om_it it;
    struct om_elem el;
    len = varint_len(om_len(m));
    for (om_seek(m, 0, &it); om_it_valid(&it); om_next(m, &it)) {
        om_it_get(m, &it, &el);
        len += blob_len(el.flen) + (el.v ? blob_len(el.vlen) : 0);
    }
    return len;
}

static unsigned record_op(const struct ks_entry *e)
{
    switch (e->type) {
    case KS_ZSET:
        return OP_ZSET;
    case KS_HASH:
        return OP_HASH;
    case KS_SET:
        return OP_SET;
    case KS_LIST:
        return OP_LIST;
    case KS_STREAM:
        return ((const struct xstream *)ks_ptr(e))->ngroups ? OP_STREAM_GROUPS : OP_STREAM;
    default:
        return OP_STRING;
    }
}

static snap_function_fn *function_code;
/* The libraries the last load read, until snap_take_loaded_functions. */
static struct snap_code *loaded_codes;
static size_t loaded_ncodes;

void snap_on_write_functions(snap_function_fn *fn)
{
    function_code = fn;
}

const char *snap_function_code(size_t i, size_t *len)
{
    return function_code ? function_code(i, len) : NULL;
}

void snap_drop_loaded_functions(void)
{
    for (size_t i = 0; i < loaded_ncodes; i++)
        xfree(loaded_codes[i].code);
    xfree(loaded_codes);
    loaded_codes = NULL;
    loaded_ncodes = 0;
}

void snap_keep_loaded_function(char *code, size_t len)
{
    loaded_codes = xrealloc(loaded_codes, (loaded_ncodes + 1) * sizeof(*loaded_codes));
    loaded_codes[loaded_ncodes].code = code;
    loaded_codes[loaded_ncodes].len = len;
    loaded_ncodes++;
}

struct snap_code *snap_take_loaded_functions(size_t *n)
{
    struct snap_code *codes = loaded_codes;
    *n = loaded_ncodes;
    loaded_codes = NULL;
    loaded_ncodes = 0;
    return codes;
}

static snap_repl_fn *repl_position;
static struct snap_repl loaded_repl;
static int loaded_has_repl;

void snap_on_write_repl(snap_repl_fn *fn)
{
    repl_position = fn;
}

int snap_loaded_repl(struct snap_repl *pos)
{
    if (loaded_has_repl)
        *pos = loaded_repl;
    return loaded_has_repl;
}

static const long long *save_key_delay;

void snap_on_save_key_delay(const long long *us)
{
    save_key_delay = us;
}

void snap_key_delay(long long us)
{
    if (!us)
        return;
    long long ns = us > 0 ? us * 1000 : -us;
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static snap_progress_cb *progress_hook;

void snap_on_progress(snap_progress_cb *cb)
{
    progress_hook = cb;
}

void snap_progress(int writing, long long keys, unsigned long long done,
                   unsigned long long total)
{
    if (progress_hook)
        progress_hook(writing, keys, done, total);
}

int snap_write_fd(int fd, const struct keyspace *ks, int64_t now_ms, char *err, size_t errlen)
{
    struct writer *w = xmalloc(sizeof(*w));
    w->fd = fd;
    w->err = 0;
    w->crc = 0;
    w->len = 0;

    struct snap_repl pos;
    int with_repl = repl_position && repl_position(&pos);
    unsigned version = with_repl ? SNAP_VERSION_REPL : SNAP_VERSION;
    w_bytes(w, SNAP_MAGIC, SNAP_MAGIC_LEN);
    w_u8(w, version & 0xff);
    w_u8(w, version >> 8);
    w_u8(w, 0);
    w_u8(w, 0);
    w_u64(w, (uint64_t)now_ms);
    if (with_repl) {
        w_u8(w, OP_REPL);
        w_bytes(w, pos.replid, 40);
        w_varint(w, (uint64_t)pos.offset);
        w_varint(w, (uint64_t)pos.db);
    }
    const char *code;
    size_t clen;
    for (size_t i = 0; (code = snap_function_code(i, &clen)); i++) {
        w_u8(w, OP_FUNCTION);
        w_blob(w, code, clen);
    }
    long long written = 0, total = 0;
    for (int i = 0; i < ks->count; i++)
        total += (long long)ks_count(&ks->dbs[i]);
    for (int i = 0; i < ks->count && !w->err; i++) {
        const struct db *db = &ks->dbs[i];
        int selected = 0;
        for (struct ks_entry *e = ks_first(db); e && !w->err; e = ks_next(e)) {
            int64_t when = ks_get_expire(e);
            if (when >= 0 && when <= now_ms)
                continue;
            if (!selected) {
                w_u8(w, OP_SELECT);
                w_varint(w, (uint64_t)i);
                selected = 1;
            }
            w_u8(w, record_op(e));
            w_u8(w, when >= 0 ? FLAG_DEADLINE : 0);
            if (when >= 0)
                w_u64(w, (uint64_t)when);
            if (++written % SNAP_PROGRESS_EVERY == 0)
                snap_progress(1, written, (unsigned long long)written, (unsigned long long)total);
            w_blob(w, ks_key(e), ks_klen(e));
            if (e->type == KS_STRING)
                w_blob(w, ks_str(e), ks_slen(e));
            else if (e->type == KS_ZSET)
                w_zset(w, ks_ptr(e));
            else if (e->type == KS_LIST)
                w_olist(w, ks_ptr(e));
            else if (e->type == KS_STREAM) {
                w_stream(w, ks_ptr(e));
                if (((const struct xstream *)ks_ptr(e))->ngroups)
                    w_groups(w, ks_ptr(e));
            }
            else
                w_omap(w, ks_ptr(e));
            if (save_key_delay)
                snap_key_delay(*save_key_delay);
        }
    }
    w_u8(w, OP_END);
    w_flush(w);
    /* The checksum covers everything before it, so it goes out by itself. */
    unsigned char sum[8];
    for (int i = 0; i < 8; i++)
        sum[i] = (unsigned char)(w->crc >> (8 * i));
    w_raw(w, sum, sizeof(sum));
    if (!w->err && fsync(fd) < 0 && errno != EINVAL)
        w->err = errno;
    int e = w->err;
    xfree(w);
    if (e) {
        snprintf(err, errlen, "%s", strerror(e));
        return -1;
    }
    snap_progress(1, written, (unsigned long long)total, (unsigned long long)total);
    return 0;
}

void snap_temp_name(char *buf, size_t cap, const char *path, long pid)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(buf, cap, "%.*stemp-%ld.rbkv", dirlen, path, pid);
}

int snap_save(const struct keyspace *ks, const char *path, int64_t now_ms, char *err,
              size_t errlen)
{
    char tmp[4096], why[256];
    snap_temp_name(tmp, sizeof(tmp), path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "Failed opening the temp snapshot file %s for saving: %s", tmp,
                 strerror(errno));
        return -1;
    }
    int rc = snap_write_fd(fd, ks, now_ms, why, sizeof(why));
    if (close(fd) < 0 && rc == 0) {
        snprintf(why, sizeof(why), "%s", strerror(errno));
        rc = -1;
    }
    if (rc < 0) {
        /* Redis 7.0's words, which operators watch for. */
        snprintf(err, errlen, "Write error saving DB on disk: %s", why);
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) < 0) {
        snprintf(err, errlen, "Error moving temp DB file %s on the final destination %s: %s", tmp,
                 path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (fsync_dir_of(path) < 0) {
        snprintf(err, errlen, "Failed to fsync the directory of %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- reader ---- */

struct reader {
    int fd;
    const char *name;
    uint64_t size;      /* of the file */
    uint64_t base;      /* file offset of buf[0] */
    size_t pos, len;    /* next byte, bytes held */
    size_t crc_from;    /* bytes of buf before this are in crc */
    uint64_t crc;
    char *err;
    size_t errlen;
    int failed;
    unsigned version;   /* the header's */
    unsigned char buf[IO_BLOCK];
};

static uint64_t r_offset(const struct reader *r)
{
    return r->base + r->pos;
}

__attribute__((format(printf, 3, 4))) static int r_fail(struct reader *r, uint64_t at,
                                                         const char *fmt, ...)
{
    if (r->failed)
        return -1;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "Bad snapshot file %s at offset %llu: %s", r->name,
             (unsigned long long)at, why);
    r->failed = 1;
    return -1;
}

/* Brings at least one unread byte into buf. Returns 0, or -1 at the end of
 * the file or on a read error (reported). */
static int r_fill(struct reader *r)
{
    r->crc = snap_crc64(r->crc, r->buf + r->crc_from, r->pos - r->crc_from);
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->base += r->pos;
    r->len -= r->pos;
    r->pos = r->crc_from = 0;
    while (r->len < sizeof(r->buf)) {
        ssize_t k = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return r_fail(r, r_offset(r), "read error: %s", strerror(errno));
        if (k == 0)
            break;
        r->len += (size_t)k;
    }
    if (r->len == 0)
        return r_fail(r, r_offset(r), "unexpected end of file");
    return 0;
}

/* n bytes into out. */
static int r_bytes(struct reader *r, void *out, size_t n)
{
    unsigned char *o = out;
    while (n) {
        if (r->pos == r->len && r_fill(r) < 0)
            return -1;
        size_t k = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(o, r->buf + r->pos, k);
        r->pos += k;
        o += k;
        n -= k;
    }
    return 0;
}

static int r_u8(struct reader *r, unsigned *v)
{
    unsigned char b;
    if (r_bytes(r, &b, 1) < 0)
        return -1;
    *v = b;
    return 0;
}

static int r_u64(struct reader *r, uint64_t *v)
{
    unsigned char b[8];
    if (r_bytes(r, b, 8) < 0)
        return -1;
    *v = 0;
    for (int i = 0; i < 8; i++)
        *v |= (uint64_t)b[i] << (8 * i);
    return 0;
}

static int r_varint(struct reader *r, uint64_t *v)
{
    uint64_t at = r_offset(r);
    *v = 0;
    for (int i = 0; i < VARINT_MAX; i++) {
        unsigned b;
        if (r_u8(r, &b) < 0)
            return -1;
        if (i == VARINT_MAX - 1 && b > 1)
            return r_fail(r, at, "varint overflows 64 bits");
        *v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            return 0;
    }
    return r_fail(r, at, "varint longer than %d bytes", VARINT_MAX);
}

/* A length-prefixed blob into *buf (grown as needed, owned by the caller):
 * the length is checked against what the file still holds and against the
 * keyspace's 32-bit lengths before anything is allocated. */
static int r_blob(struct reader *r, char **buf, size_t *cap, size_t *len)
{
    uint64_t at = r_offset(r), n;
    if (r_varint(r, &n) < 0)
        return -1;
    if (n > r->size - r_offset(r))
        return r_fail(r, at, "length %llu runs past the end of the file",
                      (unsigned long long)n);
    if (n > UINT32_MAX)
        return r_fail(r, at, "length %llu is over 4 GB", (unsigned long long)n);
    if (n > *cap || !*buf) {
        *cap = n > 64 ? n : 64;
        *buf = xrealloc(*buf, *cap);
    }
    *len = n;
    return r_bytes(r, *buf, n);
}

struct load {
    struct reader *r;
    struct keyspace *ks;
    struct db *db;         /* NULL before the first SELECT */
    struct ks_bulk bulk;   /* db's entries, linked into its tree at the next SELECT or the end */
    struct ks_entry *last; /* in db, for the order check */
    int64_t now_ms;
    const struct snap_limits *lim;
    char *key, *val;
    size_t key_cap, val_cap;
    char *elem, *prev;     /* a map's element being read, the one before it */
    size_t elem_cap, prev_cap;
    long long keys;
};

static int load_zset(struct load *l, struct zset **out)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), n;
    size_t mlen = 0;
    if (r_varint(r, &n) < 0)
        return -1;
    /* Each member takes at least a length byte and a score. */
    if (n == 0 || n > (r->size - r_offset(r)) / 9)
        return r_fail(r, at, "bad sorted set size %llu", (unsigned long long)n);
    struct zset *z = zs_new();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t bits;
        double score;
        if (r_blob(r, &l->val, &l->val_cap, &mlen) < 0 || r_u64(r, &bits) < 0)
            break;
        memcpy(&score, &bits, sizeof(score));
        if (isnan(score)) {
            r_fail(r, r_offset(r) - 8, "sorted set score is NaN");
            break;
        }
        if (zs_find(z, l->val, mlen)) {
            r_fail(r, r_offset(r) - 8 - mlen, "duplicate sorted set member");
            break;
        }
        zs_insert(z, l->val, mlen, score);
    }
    if (r->failed) {
        zs_free(z);
        return -1;
    }
    *out = z;
    return 0;
}

/* A hash (op OP_HASH) or a set, rebuilt with om_append in the file's order,
 * which must be strictly increasing: an element out of order or repeated is
 * corruption, as a key is. */
static int load_omap(struct load *l, unsigned op, struct omap **out)
{
    struct reader *r = l->r;
    int values = op == OP_HASH;
    const char *what = values ? "hash field" : "set member";
    const struct om_limits *lim = values ? &l->lim->hash : &l->lim->set;
    uint64_t at = r_offset(r), n;
    size_t flen = 0, plen = 0, vlen = 0;
    if (r_varint(r, &n) < 0)
        return -1;
    /* Each element takes at least a length byte, a field and its value two;
     * a chunk counts its elements in 32 bits. */
    if (n == 0 || n > UINT32_MAX || n > (r->size - r_offset(r)) / (values ? 2 : 1))
        return r_fail(r, at, "bad %s size %llu", values ? "hash" : "set", (unsigned long long)n);
    struct omap *m = om_new(values);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t elem_at = r_offset(r);
        if (r_blob(r, &l->elem, &l->elem_cap, &flen) < 0)
            break;
        if (i > 0) {
            int cmp = ks_keycmp(l->prev, plen, l->elem, flen);
            if (cmp >= 0) {
                r_fail(r, elem_at, cmp ? "%ss out of order" : "duplicate %s", what);
                break;
            }
        }
        if (values && r_blob(r, &l->val, &l->val_cap, &vlen) < 0)
            break;
        /* A chunk's byte count is 32 bits, and a long element has one to itself. */
        if (flen + vlen > UINT32_MAX - 2 * VARINT_MAX) {
            r_fail(r, elem_at, "%s of %zu bytes is over 4 GB", what, flen + vlen);
            break;
        }
        om_append(&m, l->elem, flen, l->val, vlen, lim);
        char *t = l->prev;
        size_t tc = l->prev_cap;
        l->prev = l->elem;
        l->prev_cap = l->elem_cap;
        l->elem = t;
        l->elem_cap = tc;
        plen = flen;
    }
    if (r->failed) {
        om_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

/* A list, its elements appended head to tail. */
static int load_olist(struct load *l, struct olist **out)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), n;
    size_t vlen = 0;
    if (r_varint(r, &n) < 0)
        return -1;
    /* Each element takes at least its length byte. */
    if (n == 0 || n > (r->size - r_offset(r)))
        return r_fail(r, at, "bad list size %llu", (unsigned long long)n);
    struct olist *list = ol_new();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t elem_at = r_offset(r);
        if (r_blob(r, &l->val, &l->val_cap, &vlen) < 0)
            break;
        if (vlen > OL_MAX_ELEM) {
            r_fail(r, elem_at, "list element of %zu bytes is too large", vlen);
            break;
        }
        ol_push(&list, 1, l->val, vlen, &l->lim->list);
    }
    if (r->failed) {
        ol_free(list);
        return -1;
    }
    *out = list;
    return 0;
}

/* An entry's pairs, read one blob at a time into l->elem and gathered in
 * l->val, then handed to xs_load_entry. */
static int load_stream_entry(struct load *l, struct xstream *s, struct xs_str **pairs,
                             size_t *pairs_cap)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), node, nf;
    struct xs_id id;
    if (r_u64(r, &id.ms) < 0 || r_u64(r, &id.seq) < 0 || r_varint(r, &node) < 0 ||
        r_varint(r, &nf) < 0)
        return -1;
    /* Each pair takes at least two length bytes. */
    if (nf == 0 || nf > (r->size - r_offset(r)) / 2)
        return r_fail(r, at, "bad stream entry size %llu", (unsigned long long)nf);
    if (2 * nf > *pairs_cap) {
        *pairs_cap = 2 * nf;
        *pairs = xrealloc(*pairs, sizeof(**pairs) * *pairs_cap);
    }
    size_t used = 0, len;
    for (uint64_t j = 0; j < 2 * nf; j++) {
        if (r_blob(r, &l->elem, &l->elem_cap, &len) < 0)
            return -1;
        if (used + len > l->val_cap || !l->val) {
            l->val_cap = 2 * (used + len) + 64;
            l->val = xrealloc(l->val, l->val_cap);
        }
        if (len)
            memcpy(l->val + used, l->elem, len);
        (*pairs)[j].len = len;
        used += len;
    }
    /* l->val no longer moves: point the pairs into it. */
    used = 0;
    for (uint64_t j = 0; j < 2 * nf; j++) {
        (*pairs)[j].ptr = l->val + used;
        used += (*pairs)[j].len;
    }
    if (xs_load_entry(s, &id, node, *pairs, (size_t)nf) < 0)
        return r_fail(r, at, "stream entries out of order");
    return 0;
}

/* Two IDs: 0 with *id set, or -1. */
static int r_id(struct reader *r, struct xs_id *id)
{
    return r_u64(r, &id->ms) < 0 || r_u64(r, &id->seq) < 0 ? -1 : 0;
}

/* A count of records that take at least min bytes each, checked against
 * what the file still holds. */
static int r_count(struct reader *r, uint64_t *n, size_t min, const char *what)
{
    uint64_t at = r_offset(r);
    if (r_varint(r, n) < 0)
        return -1;
    if (*n > UINT32_MAX || *n > (r->size - r_offset(r)) / min)
        return r_fail(r, at, "bad %s count %llu", what, (unsigned long long)*n);
    return 0;
}

/* A consumer's owned IDs: each pending in g, not yet owned (p->consumer
 * NULL while the group loads), and increasing. */
static int load_consumer(struct load *l, struct xg_group *g)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), n, seen;
    size_t nlen;
    if (r_blob(r, &l->elem, &l->elem_cap, &nlen) < 0 || r_u64(r, &seen) < 0 ||
        r_count(r, &n, 2 * sizeof(uint64_t), "owned entry") < 0)
        return -1;
    struct xg_consumer *k = xg_consumer_create(g, l->elem, nlen, (int64_t)seen);
    if (!k)
        return r_fail(r, at, "duplicate consumer");
    for (uint64_t i = 0; i < n; i++) {
        struct xs_id id;
        uint64_t id_at = r_offset(r);
        if (r_id(r, &id) < 0)
            return -1;
        struct xg_pending *p = xg_pending_find(g, &id);
        if (!p || p->consumer)
            return r_fail(r, id_at, "owned entry not pending or owned twice");
        xg_pending_attach(p, k);
    }
    return 0;
}

/* One consumer group of s (OP_STREAM_GROUPS). */
static int load_group(struct load *l, struct xstream *s)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), read, n;
    size_t nlen;
    struct xs_id last;
    if (r_blob(r, &l->elem, &l->elem_cap, &nlen) < 0 || r_id(r, &last) < 0 ||
        r_varint(r, &read) < 0 || r_count(r, &n, 3 * sizeof(uint64_t) + 1, "pending entry") < 0)
        return -1;
    if (read > (uint64_t)INT64_MAX)
        return r_fail(r, at, "bad entries read");
    struct xg_group *g = xg_create(s, l->elem, nlen, &last, (int64_t)read - 1);
    if (!g)
        return r_fail(r, at, "duplicate consumer group");
    for (uint64_t i = 0; i < n; i++) {
        struct xs_id id;
        uint64_t id_at = r_offset(r), when, count;
        if (r_id(r, &id) < 0 || r_u64(r, &when) < 0 || r_varint(r, &count) < 0)
            return -1;
        struct xg_pending *last_p = xg_pending_last(g);
        if (last_p && xs_id_cmp(&last_p->id, &id) >= 0)
            return r_fail(r, id_at, "pending entries out of order");
        struct xg_pending *p = xg_pending_add(g, NULL, &id, (int64_t)when);
        p->delivery_count = count;
    }
    if (r_count(r, &n, 1 + sizeof(uint64_t) + 1, "consumer") < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        if (load_consumer(l, g) < 0)
            return -1;
    return 0;
}

/* A stream (op OP_STREAM, or OP_STREAM_GROUPS with its groups), checked
 * whole (xs_check, which checks the groups too) once read. */
static int load_stream(struct load *l, unsigned op, struct xstream **out)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), n;
    struct xstream *s = xs_new();
    struct xs_id *ids[] = {&s->last_id, &s->first_id, &s->max_deleted};
    struct xs_str *pairs = NULL;
    size_t pairs_cap = 0;
    const char *why;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (r_u64(r, &ids[i]->ms) < 0 || r_u64(r, &ids[i]->seq) < 0)
            goto fail;
    if (r_varint(r, &s->entries_added) < 0 || r_varint(r, &s->node) < 0 ||
        r_varint(r, &s->node_entries) < 0 || r_varint(r, &s->node_bytes) < 0 ||
        r_varint(r, &n) < 0)
        goto fail;
    /* Each entry takes at least an ID, a node, a count and a pair. */
    if (n > UINT32_MAX || n > (r->size - r_offset(r)) / 20) {
        r_fail(r, at, "bad stream size %llu", (unsigned long long)n);
        goto fail;
    }
    for (uint64_t i = 0; i < n; i++)
        if (load_stream_entry(l, s, &pairs, &pairs_cap) < 0)
            goto fail;
    if (op == OP_STREAM_GROUPS) {
        if (r_count(r, &n, 1 + 2 * sizeof(uint64_t) + 3, "consumer group") < 0)
            goto fail;
        for (uint64_t i = 0; i < n; i++)
            if (load_group(l, s) < 0)
                goto fail;
    }
    if (xs_check(s, &why) < 0) {
        r_fail(r, at, "corrupt stream: %s", why);
        goto fail;
    }
    xfree(pairs);
    *out = s;
    return 0;
fail:
    xfree(pairs);
    xs_free(s);
    return -1;
}

static int load_entry(struct load *l, unsigned op)
{
    struct reader *r = l->r;
    uint64_t at = r_offset(r), when = 0;
    unsigned flags;
    size_t klen, vlen = 0;
    struct zset *z = NULL;
    struct omap *m = NULL;
    struct olist *list = NULL;
    struct xstream *s = NULL;

    if (!l->db)
        return r_fail(r, at - 1, "key before any database");
    if (r_u8(r, &flags) < 0)
        return -1;
    if (flags & ~(unsigned)FLAG_DEADLINE)
        return r_fail(r, at, "unknown entry flags 0x%02x", flags);
    if ((flags & FLAG_DEADLINE) && r_u64(r, &when) < 0)
        return -1;
    if ((flags & FLAG_DEADLINE) && (int64_t)when < 0)
        return r_fail(r, at + 1, "negative deadline");
    uint64_t key_at = r_offset(r);
    if (r_blob(r, &l->key, &l->key_cap, &klen) < 0)
        return -1;
    if (l->last && ks_keycmp(ks_key(l->last), ks_klen(l->last), l->key, klen) >= 0)
        return r_fail(r, key_at, "key out of order");
    int rc = op == OP_STRING ? r_blob(r, &l->val, &l->val_cap, &vlen)
             : op == OP_ZSET   ? load_zset(l, &z)
             : op == OP_LIST   ? load_olist(l, &list)
             : op == OP_STREAM || op == OP_STREAM_GROUPS ? load_stream(l, op, &s)
                               : load_omap(l, op, &m);
    if (rc < 0)
        return -1;
    if ((flags & FLAG_DEADLINE) && (int64_t)when <= l->now_ms) {
        zs_free(z); /* expired while the server was down */
        om_free(m);
        ol_free(list);
        xs_free(s);
        return 0;
    }
    int64_t deadline = (flags & FLAG_DEADLINE) ? (int64_t)when : -1;
    if (z)
        l->last = ks_bulk_add(&l->bulk, l->key, klen, KS_ZSET, z, 0, deadline);
    else if (list)
        l->last = ks_bulk_add(&l->bulk, l->key, klen, KS_LIST, list, 0, deadline);
    else if (s)
        l->last = ks_bulk_add(&l->bulk, l->key, klen, KS_STREAM, s, 0, deadline);
    else if (m)
        l->last = ks_bulk_add(&l->bulk, l->key, klen, op == OP_HASH ? KS_HASH : KS_SET, m, 0,
                              deadline);
    else
        l->last = ks_bulk_add(&l->bulk, l->key, klen, KS_STRING, l->val, vlen, deadline);
    snap_key_delay(l->lim->key_delay);
    if (++l->keys % PROGRESS_KEYS == 0)
        log_notice("Loading %s: %lld keys, %llu of %llu bytes", r->name, l->keys,
                   (unsigned long long)r_offset(r), (unsigned long long)r->size);
    if (l->keys % SNAP_PROGRESS_EVERY == 0)
        snap_progress(0, l->keys, (unsigned long long)r_offset(r), (unsigned long long)r->size);
    return 0;
}

static int load_header(struct reader *r)
{
    unsigned char h[SNAP_HEADER_LEN];
    if (r_bytes(r, h, sizeof(h)) < 0)
        return -1;
    if (memcmp(h, SNAP_MAGIC, SNAP_MAGIC_LEN))
        return r_fail(r, 0, "not an rbkv snapshot (no RBKV magic)");
    unsigned version = h[4] | (unsigned)h[5] << 8;
    if (version != SNAP_VERSION && version != SNAP_VERSION_REPL_NO_DB &&
        version != SNAP_VERSION_REPL)
        return r_fail(r, 4, "unsupported version %u (this build reads %d to %d)", version,
                      SNAP_VERSION, SNAP_VERSION_REPL);
    r->version = version;
    if (h[6] || h[7])
        return r_fail(r, 6, "unknown header flags");
    return 0;
}

/* One library's code, kept for the caller (snap_take_loaded_functions),
 * which compiles it: this file knows nothing of functions. */
static int load_function(struct reader *r)
{
    char *code = NULL;
    size_t cap = 0, len = 0;
    if (r_blob(r, &code, &cap, &len) < 0) {
        xfree(code);
        return -1;
    }
    snap_keep_loaded_function(code, len);
    return 0;
}

static int load_records(struct load *l)
{
    struct reader *r = l->r;
    int last_db = -1;
    for (int first = 1;; first = 0) {
        uint64_t at = r_offset(r), n;
        unsigned op;
        if (r_u8(r, &op) < 0)
            return -1;
        switch (op) {
        case OP_REPL:
            if (r->version == SNAP_VERSION || !first)
                return r_fail(r, at, "unexpected replication record");
            if (r_bytes(r, loaded_repl.replid, 40) < 0 || r_varint(r, &n) < 0)
                return -1;
            if (n > (uint64_t)LLONG_MAX)
                return r_fail(r, at, "replication offset out of range");
            loaded_repl.replid[40] = '\0';
            loaded_repl.offset = (long long)n;
            loaded_repl.db = 0;
            if (r->version == SNAP_VERSION_REPL) {
                if (r_varint(r, &n) < 0)
                    return -1;
                if (n > INT_MAX)
                    return r_fail(r, at, "replication stream database out of range");
                loaded_repl.db = (int)n;
            }
            loaded_has_repl = 1;
            break;
        case OP_FUNCTION:
            if (l->db)
                return r_fail(r, at, "function library after the keys");
            if (load_function(r) < 0)
                return -1;
            break;
        case OP_SELECT:
            if (r_varint(r, &n) < 0)
                return -1;
            if (n >= (uint64_t)l->ks->count)
                return r_fail(r, at, "database %llu out of range (databases is %d)",
                              (unsigned long long)n, l->ks->count);
            if ((int)n <= last_db)
                return r_fail(r, at, "database %llu out of order", (unsigned long long)n);
            last_db = (int)n;
            if (l->db)
                ks_bulk_finish(&l->bulk);
            l->db = &l->ks->dbs[n];
            ks_bulk_begin(&l->bulk, l->db);
            l->last = NULL;
            break;
        case OP_STRING:
        case OP_ZSET:
        case OP_HASH:
        case OP_SET:
        case OP_LIST:
        case OP_STREAM:
        case OP_STREAM_GROUPS:
            if (load_entry(l, op) < 0)
                return -1;
            break;
        case OP_END:
            return 0;
        default:
            return r_fail(r, at, "unknown record type 0x%02x", op);
        }
    }
}

static int load_checksum(struct reader *r)
{
    uint64_t at = r_offset(r), stored;
    uint64_t crc = snap_crc64(r->crc, r->buf + r->crc_from, r->pos - r->crc_from);
    if (r_u64(r, &stored) < 0)
        return -1;
    if (stored != crc)
        return r_fail(r, at, "checksum mismatch (stored %016llx, computed %016llx)",
                      (unsigned long long)stored, (unsigned long long)crc);
    if (r_offset(r) != r->size)
        return r_fail(r, r_offset(r), "%llu bytes after the checksum",
                      (unsigned long long)(r->size - r_offset(r)));
    return 0;
}

long long snap_load(struct keyspace *ks, const char *path, const struct snap_limits *lim,
                    int *absent, char *err, size_t errlen)
{
    struct stat st;
    *absent = 0;
    loaded_has_repl = 0;
    snap_drop_loaded_functions();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        *absent = 1;
        return 0;
    }
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "Can't open the snapshot file %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct reader *r = xmalloc(sizeof(*r));
    memset(r, 0, offsetof(struct reader, buf));
    r->fd = fd;
    r->name = path;
    r->size = (uint64_t)st.st_size;
    r->err = err;
    r->errlen = errlen;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct load l = {.r = r,
                     .ks = ks,
                     .lim = lim,
                     .now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000};

    int rc = load_header(r);
    if (rc == 0)
        rc = load_records(&l);
    if (l.db) /* after an error too: the caller frees a keyspace of whole trees */
        ks_bulk_finish(&l.bulk);
    if (rc == 0)
        rc = load_checksum(r);
    if (rc == 0)
        snap_progress(0, l.keys, r->size, r->size);
    xfree(l.key);
    xfree(l.val);
    xfree(l.elem);
    xfree(l.prev);
    xfree(r);
    close(fd);
    return rc < 0 ? -1 : l.keys;
}
