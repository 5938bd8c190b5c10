/*
 * functions.c - the registry of function libraries (functions.h).
 *
 * A load, a restore and a snapshot's install all build the new libraries
 * apart, in a struct fn_set of their own, check them against the live one,
 * and only then link them: a failure at any step leaves the registry as it
 * was (Redis's libraryJoin). The engine's handles (Lua refs) live in one Lua
 * state shared by every set, so a set is freed only through free_library.
 */
#include "functions.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "function_lua.h"
#include "log.h"
#include "mem.h"
#include "snapshot.h"

struct fn_set {
    struct rb_root libs;  /* struct fn_library, by name */
    struct rb_root funcs; /* struct fn_function, by name ignoring case */
    size_t nlibs, nfuncs;
};

static struct fn_set live;

/* The DUMP payload: records of FN_DUMP_LIBRARY | u32 length | code, then a
 * u16 version and a u64 CRC-64/Jones over every byte before it, all
 * little-endian. The trailer has Redis's shape (version, checksum), the
 * records do not: a payload moves between rbkv servers only. */
#define FN_DUMP_LIBRARY 0xF5
#define FN_DUMP_VERSION 1
#define FN_DUMP_TRAILER 10

#define ERR_NAME                                                                               \
    "Library names can only contain letters, numbers, or underscores(_) and must be at least " \
    "one character long"

static int valid_name(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            return 0;
    }
    return 1;
}

/* Names are NUL-terminated and valid_name's alphabet, so strcasecmp and
 * strcmp order them. */
static int cmp_lib(const char *name, size_t len, const struct fn_library *lib)
{
    size_t l = strlen(lib->name);
    int c = memcmp(name, lib->name, len < l ? len : l);
    return c ? c : (len > l) - (len < l);
}

static int cmp_func(const char *name, size_t len, const char *other)
{
    size_t l = strlen(other);
    int c = strncasecmp(name, other, len < l ? len : l);
    return c ? c : (len > l) - (len < l);
}

static struct fn_library *set_lib(const struct fn_set *s, const char *name, size_t len)
{
    struct rb_node *n = s->libs.rb_node;
    while (n) {
        struct fn_library *lib = rb_entry(n, struct fn_library, node);
        int c = cmp_lib(name, len, lib);
        if (c == 0)
            return lib;
        n = c < 0 ? n->rb_left : n->rb_right;
    }
    return NULL;
}

static struct fn_function *set_func(const struct fn_set *s, const char *name, size_t len)
{
    struct rb_node *n = s->funcs.rb_node;
    while (n) {
        struct fn_function *f = rb_entry(n, struct fn_function, node);
        int c = cmp_func(name, len, f->name);
        if (c == 0)
            return f;
        n = c < 0 ? n->rb_left : n->rb_right;
    }
    return NULL;
}

/* Links lib and its functions into s; the caller checked that no name is
 * taken. */
static void link_library(struct fn_set *s, struct fn_library *lib)
{
    struct rb_node **link = &s->libs.rb_node, *parent = NULL;
    while (*link) {
        parent = *link;
        int c = cmp_lib(lib->name, strlen(lib->name), rb_entry(parent, struct fn_library, node));
        link = c < 0 ? &parent->rb_left : &parent->rb_right;
    }
    rb_link_node(&lib->node, parent, link);
    rb_insert_color(&lib->node, &s->libs);
    s->nlibs++;
    for (size_t i = 0; i < lib->nfuncs; i++) {
        struct fn_function *f = lib->funcs[i];
        link = &s->funcs.rb_node;
        parent = NULL;
        while (*link) {
            parent = *link;
            int c = cmp_func(f->name, strlen(f->name),
                             rb_entry(parent, struct fn_function, node)->name);
            link = c < 0 ? &parent->rb_left : &parent->rb_right;
        }
        rb_link_node(&f->node, parent, link);
        rb_insert_color(&f->node, &s->funcs);
        s->nfuncs++;
    }
}

static void unlink_library(struct fn_set *s, struct fn_library *lib)
{
    for (size_t i = 0; i < lib->nfuncs; i++)
        rb_erase(&lib->funcs[i]->node, &s->funcs);
    s->nfuncs -= lib->nfuncs;
    rb_erase(&lib->node, &s->libs);
    s->nlibs--;
}

static void free_library(struct fn_library *lib)
{
    if (!lib)
        return;
    for (size_t i = 0; i < lib->nfuncs; i++) {
        struct fn_function *f = lib->funcs[i];
        fnlua_unref(f->ref);
        xfree(f->name);
        xfree(f->desc);
        xfree(f);
    }
    xfree(lib->funcs);
    xfree(lib->name);
    xfree(lib->code);
    xfree(lib);
}

/* Unlinks and frees every library of s. */
static void clear_set(struct fn_set *s)
{
    struct rb_node *n;
    while ((n = rb_first(&s->libs))) {
        struct fn_library *lib = rb_entry(n, struct fn_library, node);
        unlink_library(s, lib);
        free_library(lib);
    }
}

/* The engine's fnlua_register_fn (function_lua.h), while it compiles lib. */
static int library_add(struct fn_library *lib, char *name, char *desc, size_t desc_len,
                       unsigned flags, int ref, char *err, size_t errlen)
{
    size_t len = strlen(name);
    if (!valid_name(name, len)) {
        snprintf(err, errlen, ERR_NAME);
        return -1;
    }
    size_t at = 0;
    while (at < lib->nfuncs && cmp_func(name, len, lib->funcs[at]->name) > 0)
        at++;
    if (at < lib->nfuncs && cmp_func(name, len, lib->funcs[at]->name) == 0) {
        snprintf(err, errlen, "Function already exists in the library");
        return -1;
    }
    struct fn_function *f = xcalloc(1, sizeof(*f));
    f->lib = lib;
    f->name = name;
    f->desc = desc;
    f->desc_len = desc_len;
    f->flags = flags;
    f->ref = ref;
    lib->funcs = xrealloc(lib->funcs, (lib->nfuncs + 1) * sizeof(*lib->funcs));
    memmove(lib->funcs + at + 1, lib->funcs + at, (lib->nfuncs - at) * sizeof(*lib->funcs));
    lib->funcs[at] = f;
    lib->nfuncs++;
    return 0;
}

/* The shebang's library name: "#!<engine> name=<lib>" up to the first
 * newline, words split on blanks (Redis splits it with sdssplitargs; no
 * quoting is needed for the names it accepts). Sets *name (heap) and
 * *body (the code after the shebang line, which keeps its newline so line
 * numbers match Redis's). Returns 0, or -1 with Redis's text in err. */
static int parse_shebang(const char *code, size_t len, char **name, size_t *body, char *err,
                         size_t errlen)
{
    *name = NULL;
    if (len < 2 || memcmp(code, "#!", 2) != 0) {
        snprintf(err, errlen, "Missing library metadata");
        return -1;
    }
    const char *nl = memchr(code, '\n', len);
    if (!nl) {
        snprintf(err, errlen, "Invalid library metadata");
        return -1;
    }
    const char *p = code + 2, *end = nl;
    const char *engine = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    size_t elen = (size_t)(p - engine);
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == end)
            break;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        size_t wlen = (size_t)(p - w);
        if (wlen >= 5 && strncasecmp(w, "name=", 5) == 0) {
            if (*name) {
                snprintf(err, errlen,
                         "Invalid metadata value, name argument was given multiple times");
                goto fail;
            }
            *name = xmemdup(w + 5, wlen - 5);
            continue;
        }
        snprintf(err, errlen, "Invalid metadata value given: %.*s", (int)wlen, w);
        goto fail;
    }
    if (!*name) {
        snprintf(err, errlen, "Library name was not given");
        return -1;
    }
    if (!valid_name(*name, strlen(*name))) {
        snprintf(err, errlen, ERR_NAME);
        goto fail;
    }
    if (elen != 3 || strncasecmp(engine, "lua", 3) != 0) {
        snprintf(err, errlen, "Engine '%.*s' not found", (int)elen, engine);
        goto fail;
    }
    *body = (size_t)(nl - code);
    return 0;
fail:
    xfree(*name);
    *name = NULL;
    return -1;
}

/* Compiles one library's code into a new unlinked library. Returns it, or
 * NULL with Redis's text in err. */
static struct fn_library *compile(const char *code, size_t len, long timeout_ms, char *err,
                                  size_t errlen)
{
    char *name;
    size_t body;
    if (parse_shebang(code, len, &name, &body, err, errlen) < 0)
        return NULL;
    struct fn_library *lib = xcalloc(1, sizeof(*lib));
    lib->name = name;
    lib->code = xmemdup(code, len);
    lib->code_len = len;
    if (fnlua_compile(lib, library_add, code + body, len - body, timeout_ms, err, errlen) < 0) {
        free_library(lib);
        return NULL;
    }
    if (lib->nfuncs == 0) {
        snprintf(err, errlen, "No functions registered");
        free_library(lib);
        return NULL;
    }
    return lib;
}

/* The first function of lib whose name s already holds, or NULL. */
static const struct fn_function *collision(const struct fn_set *s, const struct fn_library *lib)
{
    for (size_t i = 0; i < lib->nfuncs; i++)
        if (set_func(s, lib->funcs[i]->name, strlen(lib->funcs[i]->name)))
            return lib->funcs[i];
    return NULL;
}

/* snap_function_fn: the i-th library in order. Writers ask for 0, 1, 2...
 * in turn, so a cursor makes the walk O(n) in all. */
static const char *library_code(size_t i, size_t *len)
{
    static const struct fn_library *at;
    static size_t at_i;
    if (i == 0)
        at = fn_first();
    else if (at && i == at_i + 1)
        at = fn_next(at);
    else
        for (size_t k = (at = fn_first(), 0); at && k < i; k++)
            at = fn_next(at);
    at_i = i;
    if (!at)
        return NULL;
    *len = at->code_len;
    return at->code;
}

void fn_init(void)
{
    live.libs = RB_ROOT;
    live.funcs = RB_ROOT;
    snap_on_write_functions(library_code);
}

void fn_close(void)
{
    clear_set(&live);
    fnlua_close();
}

const struct fn_library *fn_load(const char *code, size_t len, int replace, long timeout_ms,
                                 char *err, size_t errlen)
{
    struct fn_library *lib = compile(code, len, timeout_ms, err, errlen);
    if (!lib)
        return NULL;
    struct fn_library *old = set_lib(&live, lib->name, strlen(lib->name));
    if (old && !replace) {
        snprintf(err, errlen, "Library '%s' already exists", lib->name);
        free_library(lib);
        return NULL;
    }
    if (old)
        unlink_library(&live, old);
    const struct fn_function *f = collision(&live, lib);
    if (f) {
        snprintf(err, errlen, "Function %s already exists", f->name);
        free_library(lib);
        if (old)
            link_library(&live, old);
        return NULL;
    }
    link_library(&live, lib);
    free_library(old);
    return lib;
}

int fn_delete(const char *name, size_t len)
{
    struct fn_library *lib = set_lib(&live, name, len);
    if (!lib)
        return -1;
    unlink_library(&live, lib);
    free_library(lib);
    return 0;
}

void fn_flush(void)
{
    clear_set(&live);
    /* Dropping the state also drops whatever globals-free garbage the old
     * libraries left behind, as Redis recreates its engine; the next load
     * makes a new one. */
    fnlua_close();
}

const struct fn_function *fn_find(const char *name, size_t len)
{
    return set_func(&live, name, len);
}

const struct fn_library *fn_first(void)
{
    struct rb_node *n = rb_first(&live.libs);
    return n ? rb_entry(n, struct fn_library, node) : NULL;
}

const struct fn_library *fn_next(const struct fn_library *lib)
{
    struct rb_node *n = rb_next(&lib->node);
    return n ? rb_entry(n, struct fn_library, node) : NULL;
}

size_t fn_library_count(void)
{
    return live.nlibs;
}

size_t fn_function_count(void)
{
    return live.nfuncs;
}

size_t fn_memory(void)
{
    size_t n = 0;
    for (const struct fn_library *lib = fn_first(); lib; lib = fn_next(lib)) {
        n += xsize(lib) + xsize(lib->name) + xsize(lib->code);
        n += xsize(lib->funcs); /* a linked library has functions */
        for (size_t i = 0; i < lib->nfuncs; i++) {
            const struct fn_function *f = lib->funcs[i];
            n += xsize(f) + xsize(f->name) + (f->desc ? xsize(f->desc) : 0);
        }
    }
    return n;
}

size_t fn_engine_memory(void)
{
    return fnlua_memory();
}

static void put_le(char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (char)(v >> (8 * i));
}

static uint64_t get_le(const char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)(unsigned char)p[i] << (8 * i);
    return v;
}

char *fn_dump(size_t *len)
{
    size_t n = FN_DUMP_TRAILER;
    for (const struct fn_library *lib = fn_first(); lib; lib = fn_next(lib))
        n += 5 + lib->code_len;
    char *out = xmalloc(n), *p = out;
    for (const struct fn_library *lib = fn_first(); lib; lib = fn_next(lib)) {
        *p++ = (char)FN_DUMP_LIBRARY;
        put_le(p, lib->code_len, 4);
        memcpy(p + 4, lib->code, lib->code_len);
        p += 4 + lib->code_len;
    }
    put_le(p, FN_DUMP_VERSION, 2);
    p += 2;
    put_le(p, snap_crc64(0, out, (size_t)(p - out)), 8);
    *len = n;
    return out;
}

/* Links every library of src into the live registry (Redis's libraryJoin):
 * on a library name taken, fails unless replace, which unlinks the old one;
 * on a function name taken, fails. src ends empty on success; on failure
 * the live registry is as it was and src keeps its libraries. */
static int join(struct fn_set *src, int replace, char *err, size_t errlen)
{
    struct fn_set old = {RB_ROOT, RB_ROOT, 0, 0};
    int rc = -1;
    for (struct rb_node *n = rb_first(&src->libs); n; n = rb_next(n)) {
        struct fn_library *lib = rb_entry(n, struct fn_library, node);
        struct fn_library *taken = set_lib(&live, lib->name, strlen(lib->name));
        if (!taken)
            continue;
        if (!replace) {
            snprintf(err, errlen, "Library %s already exists", lib->name);
            goto done;
        }
        unlink_library(&live, taken);
        link_library(&old, taken);
    }
    for (struct rb_node *n = rb_first(&src->funcs); n; n = rb_next(n)) {
        const struct fn_function *f = rb_entry(n, struct fn_function, node);
        if (set_func(&live, f->name, strlen(f->name))) {
            snprintf(err, errlen, "Function %s already exists", f->name);
            goto done;
        }
    }
    struct rb_node *n;
    while ((n = rb_first(&src->libs))) {
        struct fn_library *lib = rb_entry(n, struct fn_library, node);
        unlink_library(src, lib);
        link_library(&live, lib);
    }
    clear_set(&old);
    return 0;
done:
    while ((n = rb_first(&old.libs))) {
        struct fn_library *lib = rb_entry(n, struct fn_library, node);
        unlink_library(&old, lib);
        link_library(&live, lib);
    }
    return rc;
}

/* Compiles each code into s; a library or function named twice among them
 * is an error, as Redis's load into a fresh context finds it. */
static int compile_into(struct fn_set *s, const char *code, size_t len, char *err,
                        size_t errlen)
{
    struct fn_library *lib = compile(code, len, 0, err, errlen);
    if (!lib)
        return -1;
    if (set_lib(s, lib->name, strlen(lib->name))) {
        snprintf(err, errlen, "Library %s already exists", lib->name);
        free_library(lib);
        return -1;
    }
    const struct fn_function *f = collision(s, lib);
    if (f) {
        snprintf(err, errlen, "Function %s already exists", f->name);
        free_library(lib);
        return -1;
    }
    link_library(s, lib);
    return 0;
}

/* Moves every library of s into the live registry, which is emptied first. */
static void install(struct fn_set *s)
{
    clear_set(&live);
    struct rb_node *n;
    while ((n = rb_first(&s->libs))) {
        struct fn_library *lib = rb_entry(n, struct fn_library, node);
        unlink_library(s, lib);
        link_library(&live, lib);
    }
}

int fn_restore(const char *payload, size_t len, enum fn_restore_policy policy, char *err,
               size_t errlen)
{
    if (len < FN_DUMP_TRAILER ||
        get_le(payload + len - FN_DUMP_TRAILER, 2) != FN_DUMP_VERSION ||
        get_le(payload + len - 8, 8) != snap_crc64(0, payload, len - 8)) {
        snprintf(err, errlen, "DUMP payload version or checksum are wrong");
        return -1;
    }
    struct fn_set s = {RB_ROOT, RB_ROOT, 0, 0};
    size_t pos = 0, end = len - FN_DUMP_TRAILER;
    int rc = 0;
    while (rc == 0 && pos < end) {
        if ((unsigned char)payload[pos] != FN_DUMP_LIBRARY) {
            snprintf(err, errlen, "given type is not a function");
            rc = -1;
        } else if (end - pos < 5 || get_le(payload + pos + 1, 4) > end - pos - 5) {
            snprintf(err, errlen, "failed loading the given functions payload");
            rc = -1;
        } else {
            size_t clen = (size_t)get_le(payload + pos + 1, 4);
            rc = compile_into(&s, payload + pos + 5, clen, err, errlen);
            pos += 5 + clen;
        }
    }
    if (rc == 0 && policy == FN_RESTORE_FLUSH)
        install(&s);
    else if (rc == 0)
        rc = join(&s, policy == FN_RESTORE_REPLACE, err, errlen);
    clear_set(&s);
    return rc;
}

int fn_install_loaded(void)
{
    size_t n;
    struct snap_code *codes = snap_take_loaded_functions(&n);
    struct fn_set s = {RB_ROOT, RB_ROOT, 0, 0};
    char err[512];
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && compile_into(&s, codes[i].code, codes[i].len, err, sizeof(err)) < 0) {
            log_warning("A function library in the snapshot does not load: %s", err);
            rc = -1;
        }
        xfree(codes[i].code);
    }
    xfree(codes);
    if (rc == 0)
        install(&s);
    clear_set(&s);
    return rc;
}
