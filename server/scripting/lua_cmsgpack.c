/*
 * lua_cmsgpack.c - MessagePack for scripts (lua_cmsgpack.h), written from
 * the MessagePack spec and the behaviour of Redis 7.0.15's cmsgpack.
 *
 * Owns: nothing past a call. pack's output grows in a Lua userdata kept in
 * a fixed stack slot, so a Lua error in the middle (a full stack, out of
 * memory) leaves garbage for the collector rather than a leak.
 *
 * The decoder reads through struct reader, which checks every length
 * against the bytes left before it reads, so no input over-reads; nesting
 * while decoding is bounded by the Lua stack (luaL_checkstack raises once
 * a few thousand levels deep).
 */
#include "lua_cmsgpack.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

/* Redis's LUACMSGPACK_MAX_NESTING: a table this deep packs as nil. */
#define MAX_NESTING 16

/* The output being packed: data is the userdata in stack slot slot. */
struct writer {
    lua_State *L;
    int slot;
    unsigned char *data;
    size_t len;
    size_t cap;
};

static void writer_init(struct writer *w, lua_State *L)
{
    w->L = L;
    w->cap = 64;
    w->len = 0;
    w->data = lua_newuserdata(L, w->cap);
    w->slot = lua_gettop(L);
}

static void writer_put(struct writer *w, const void *p, size_t n)
{
    if (w->cap - w->len < n) {
        size_t cap = w->cap;
        while (cap - w->len < n)
            cap *= 2;
        unsigned char *grown = lua_newuserdata(w->L, cap);
        memcpy(grown, w->data, w->len);
        lua_replace(w->L, w->slot);
        w->data = grown;
        w->cap = cap;
    }
    memcpy(w->data + w->len, p, n);
    w->len += n;
}

/* A type byte followed by the low `size` bytes of v, big-endian. */
static void put_tagged(struct writer *w, unsigned char tag, uint64_t v, int size)
{
    unsigned char b[9];
    b[0] = tag;
    for (int i = 0; i < size; i++)
        b[1 + i] = (unsigned char)(v >> (8 * (size - 1 - i)));
    writer_put(w, b, 1 + (size_t)size);
}

static void put_int(struct writer *w, int64_t n)
{
    if (n >= 0) {
        if (n <= 127)
            put_tagged(w, (unsigned char)n, 0, 0);
        else if (n <= 0xff)
            put_tagged(w, 0xcc, (uint64_t)n, 1);
        else if (n <= 0xffff)
            put_tagged(w, 0xcd, (uint64_t)n, 2);
        else if (n <= 0xffffffffLL)
            put_tagged(w, 0xce, (uint64_t)n, 4);
        else
            put_tagged(w, 0xcf, (uint64_t)n, 8);
    } else {
        if (n >= -32)
            put_tagged(w, (unsigned char)(0xe0 | (n & 0x1f)), 0, 0);
        else if (n >= -128)
            put_tagged(w, 0xd0, (uint64_t)n, 1);
        else if (n >= -32768)
            put_tagged(w, 0xd1, (uint64_t)n, 2);
        else if (n >= -2147483648LL)
            put_tagged(w, 0xd2, (uint64_t)n, 4);
        else
            put_tagged(w, 0xd3, (uint64_t)n, 8);
    }
}

/* Whether x is exactly an int64. The range test comes first: converting a
 * double outside int64's range is undefined in C. */
static int is_int64(double x)
{
    return x >= -9223372036854775808.0 && x < 9223372036854775808.0 && x == (double)(int64_t)x;
}

static void put_number(struct writer *w, double d)
{
    if (is_int64(d)) {
        put_int(w, (int64_t)d);
        return;
    }
    /* float32 when it holds d exactly (infinities included); NaN never
     * compares equal, so it goes as float64 with its bits as they are. */
    if (isinf(d) || (fabs(d) <= FLT_MAX && d == (double)(float)d)) {
        float f = (float)d;
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        put_tagged(w, 0xca, bits, 4);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, sizeof(bits));
        put_tagged(w, 0xcb, bits, 8);
    }
}

static void put_string(struct writer *w, const char *s, size_t len)
{
    if (len < 32)
        put_tagged(w, (unsigned char)(0xa0 | len), 0, 0);
    else if (len <= 0xff)
        put_tagged(w, 0xd9, len, 1);
    else if (len <= 0xffff)
        put_tagged(w, 0xda, len, 2);
    else
        put_tagged(w, 0xdb, len, 4);
    writer_put(w, s, len);
}

/* An array or map header: fix form up to 15, then 16 and 32 bits. */
static void put_header(struct writer *w, unsigned char fix, unsigned char tag16, size_t n)
{
    if (n <= 15)
        put_tagged(w, (unsigned char)(fix | n), 0, 0);
    else if (n <= 0xffff)
        put_tagged(w, tag16, n, 2);
    else
        put_tagged(w, (unsigned char)(tag16 + 1), n, 4);
}

/* The table on top's length when its keys are exactly the integers 1..n
 * (Redis's test: every key a number that is a positive C int, and the
 * largest equal to the count), else -1. */
static long table_array_len(lua_State *L)
{
    long count = 0;
    double max = 0;
    luaL_checkstack(L, 2, "in function table_is_an_array");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        double n;
        if (lua_type(L, -1) != LUA_TNUMBER || (n = lua_tonumber(L, -1)) <= 0 || n > INT_MAX ||
            n != (double)(int)n) {
            lua_pop(L, 1);
            return -1;
        }
        if (n > max)
            max = n;
        count++;
    }
    return max == (double)count ? count : -1;
}

static void put_value(struct writer *w, int level);

static void put_table(struct writer *w, int level)
{
    lua_State *L = w->L;
    long len = table_array_len(L);
    if (len >= 0) {
        put_header(w, 0x90, 0xdc, (size_t)len);
        luaL_checkstack(L, 1, "in function mp_encode_lua_table_as_array");
        for (long i = 1; i <= len; i++) {
            lua_rawgeti(L, -1, (int)i);
            put_value(w, level + 1);
        }
        return;
    }
    /* A map's count comes first, so count the keys in a pass of their own. */
    size_t n = 0;
    luaL_checkstack(L, 3, "in function mp_encode_lua_table_as_map");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        n++;
    }
    put_header(w, 0x80, 0xde, n);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        put_value(w, level + 1); /* the key's copy */
        put_value(w, level + 1); /* the value */
    }
}

/* Packs the value on top of the stack and pops it. */
static void put_value(struct writer *w, int level)
{
    lua_State *L = w->L;
    int type = lua_type(L, -1);
    if (type == LUA_TTABLE && level == MAX_NESTING)
        type = LUA_TNIL;
    switch (type) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        put_string(w, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        put_tagged(w, lua_toboolean(L, -1) ? 0xc3 : 0xc2, 0, 0);
        break;
    case LUA_TNUMBER:
        put_number(w, lua_tonumber(L, -1));
        break;
    case LUA_TTABLE:
        put_table(w, level);
        break;
    default:
        put_tagged(w, 0xc0, 0, 0);
        break;
    }
    lua_pop(L, 1);
}

static int cmsgpack_pack(lua_State *L)
{
    int nargs = lua_gettop(L);
    if (nargs == 0)
        return luaL_argerror(L, 0, "MessagePack pack needs input.");
    struct writer w;
    writer_init(&w, L);
    for (int i = 1; i <= nargs; i++) {
        luaL_checkstack(L, 1, "in function mp_check");
        lua_pushvalue(L, i);
        put_value(&w, 0);
    }
    lua_pushlstring(L, (const char *)w.data, w.len);
    return 1;
}

/* The input being unpacked: p and left move together; err is sticky. */
enum { READ_OK, READ_EOF, READ_BADFMT };

struct reader {
    const unsigned char *p;
    size_t left;
    int err;
};

/* Takes n bytes, or sets READ_EOF and returns NULL. */
static const unsigned char *take(struct reader *r, size_t n)
{
    if (r->left < n) {
        r->err = READ_EOF;
        return NULL;
    }
    const unsigned char *at = r->p;
    r->p += n;
    r->left -= n;
    return at;
}

/* The next n bytes as a big-endian number (n <= 8), or 0 on EOF. */
static uint64_t take_be(struct reader *r, int n)
{
    const unsigned char *b = take(r, (size_t)n);
    uint64_t v = 0;
    for (int i = 0; b && i < n; i++)
        v = v << 8 | b[i];
    return v;
}

static void get_value(lua_State *L, struct reader *r);

/* Lua values as Redis pushes them: every integer a lua_Number. */
static void get_string(lua_State *L, struct reader *r, size_t len)
{
    const unsigned char *s = take(r, len);
    if (s)
        lua_pushlstring(L, (const char *)s, len);
}

static void get_array(lua_State *L, struct reader *r, size_t len)
{
    lua_newtable(L);
    luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
    for (size_t i = 1; i <= len; i++) {
        lua_pushnumber(L, (lua_Number)i);
        get_value(L, r);
        if (r->err)
            return;
        lua_settable(L, -3);
    }
}

/* lua_settable raises on a nil or NaN key, as Redis's decoder does. */
static void get_map(lua_State *L, struct reader *r, size_t len)
{
    lua_newtable(L);
    for (size_t i = 0; i < len; i++) {
        get_value(L, r);
        if (r->err)
            return;
        get_value(L, r);
        if (r->err)
            return;
        lua_settable(L, -3);
    }
}

/* Pushes the next value, or sets r->err (what it pushed is then left for
 * the caller's error to unwind). */
static void get_value(lua_State *L, struct reader *r)
{
    if (r->left == 0) {
        r->err = READ_EOF;
        return;
    }
    /* One more slot per value: the values unpack returns all sit on the
     * stack, and so does every level of nesting. */
    luaL_checkstack(L, 1,
                    "too many return values at once; use unpack_one or unpack_limit instead.");
    unsigned char tag = *take(r, 1);
    uint64_t v;
    switch (tag) {
    case 0xc0:
        lua_pushnil(L);
        return;
    case 0xc2:
    case 0xc3:
        lua_pushboolean(L, tag == 0xc3);
        return;
    case 0xcc:
    case 0xcd:
    case 0xce:
        v = take_be(r, 1 << (tag - 0xcc));
        if (!r->err)
            lua_pushnumber(L, (lua_Number)v);
        return;
    case 0xcf:
        /* Redis reads uint64 through a signed lua_Integer: from 2^63 up
         * it comes out negative. Kept, as scripts see it there. */
        v = take_be(r, 8);
        if (!r->err)
            lua_pushnumber(L, (lua_Number)(int64_t)v);
        return;
    case 0xd0:
        v = take_be(r, 1);
        if (!r->err)
            lua_pushnumber(L, (int8_t)v);
        return;
    case 0xd1:
        v = take_be(r, 2);
        if (!r->err)
            lua_pushnumber(L, (int16_t)v);
        return;
    case 0xd2:
        v = take_be(r, 4);
        if (!r->err)
            lua_pushnumber(L, (int32_t)v);
        return;
    case 0xd3:
        v = take_be(r, 8);
        if (!r->err)
            lua_pushnumber(L, (lua_Number)(int64_t)v);
        return;
    case 0xca: {
        uint32_t bits = (uint32_t)take_be(r, 4);
        float f;
        memcpy(&f, &bits, sizeof(f));
        if (!r->err)
            lua_pushnumber(L, f);
        return;
    }
    case 0xcb: {
        uint64_t bits = take_be(r, 8);
        double d;
        memcpy(&d, &bits, sizeof(d));
        if (!r->err)
            lua_pushnumber(L, d);
        return;
    }
    case 0xd9:
    case 0xda:
    case 0xdb:
        v = take_be(r, 1 << (tag - 0xd9));
        if (!r->err)
            get_string(L, r, (size_t)v);
        return;
    case 0xdc:
    case 0xdd:
        v = take_be(r, tag == 0xdc ? 2 : 4);
        if (!r->err)
            get_array(L, r, (size_t)v);
        return;
    case 0xde:
    case 0xdf:
        v = take_be(r, tag == 0xde ? 2 : 4);
        if (!r->err)
            get_map(L, r, (size_t)v);
        return;
    default:
        break;
    }
    if (tag < 0x80)
        lua_pushnumber(L, tag);
    else if (tag >= 0xe0)
        lua_pushnumber(L, (int8_t)tag);
    else if ((tag & 0xe0) == 0xa0)
        get_string(L, r, tag & 0x1f);
    else if ((tag & 0xf0) == 0x90)
        get_array(L, r, tag & 0x0f);
    else if ((tag & 0xf0) == 0x80)
        get_map(L, r, tag & 0x0f);
    else
        r->err = READ_BADFMT; /* 0xc1, bin and ext */
}

/* The body of every unpack: limit 0 and offset 0 together mean "all, and
 * no offset returned", as in Redis (so unpack_limit(s, 0) is unpack(s)).
 * Otherwise the offset after the last value (-1 at the end) comes first. */
static int unpack_full(lua_State *L, int limit, int offset)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int all = limit == 0 && offset == 0;
    /* Redis prints the input's length as the limit here; so do we. */
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                          offset, (int)len);
    if ((size_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", offset, (int)len);
    if (all)
        limit = INT_MAX;

    struct reader r = {(const unsigned char *)s + offset, len - (size_t)offset, READ_OK};
    int count = 0;
    for (; r.left > 0 && count < limit; count++) {
        get_value(L, &r);
        if (r.err == READ_EOF)
            return luaL_error(L, "Missing bytes in input.");
        if (r.err == READ_BADFMT)
            return luaL_error(L, "Bad data format in input.");
    }
    if (all)
        return count;
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushinteger(L, r.left == 0 ? -1 : (lua_Integer)(len - r.left));
    lua_insert(L, 2);
    return count + 1;
}

static int cmsgpack_unpack(lua_State *L)
{
    return unpack_full(L, 0, 0);
}

/* Offsets and limits are C ints, as in Redis: larger numbers wrap. */
static int cmsgpack_unpack_one(lua_State *L)
{
    int offset = (int)luaL_optinteger(L, 2, 0);
    lua_settop(L, 1);
    return unpack_full(L, 1, offset);
}

static int cmsgpack_unpack_limit(lua_State *L)
{
    int limit = (int)luaL_checkinteger(L, 2);
    int offset = (int)luaL_optinteger(L, 3, 0);
    lua_settop(L, 1);
    return unpack_full(L, limit, offset);
}

int lua_cmsgpack_open(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        {"pack", cmsgpack_pack},
        {"unpack", cmsgpack_unpack},
        {"unpack_one", cmsgpack_unpack_one},
        {"unpack_limit", cmsgpack_unpack_limit},
        {NULL, NULL},
    };
    lua_newtable(L);
    for (const luaL_Reg *f = funcs; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    /* The version scripts may check for: the API is lua-cmsgpack 0.4.0's. */
    lua_pushliteral(L, "cmsgpack");
    lua_setfield(L, -2, "_NAME");
    lua_pushliteral(L, "lua-cmsgpack 0.4.0");
    lua_setfield(L, -2, "_VERSION");
    lua_pushliteral(L, "MessagePack C implementation for Lua");
    lua_setfield(L, -2, "_DESCRIPTION");
    return 1;
}
