/*
 * lua_struct.c - binary packing for scripts (lua_struct.h), written to give
 * the results Redis 7.0.15's struct library gives on x86-64, byte for byte
 * and error for error.
 *
 * Owns: nothing past a call; pack builds its result in a luaL_Buffer.
 *
 * Where Redis's C leaves the result to the machine (a double out of an
 * integer's range, shifts of 64 bits or more for integers wider than 8
 * bytes) we compute what x86-64 gives without undefined behaviour, so a
 * script sees the same bytes here as there. Integers are 64 bits wide:
 * wider formats pack zeros above the low 8 bytes and unpack only the low 8.
 */
#include "lua_struct.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

/* The widest integer format, and the alignment '!' sets without a number
 * (a double's, as the C compiler lays out a struct). */
#define MAX_INT_SIZE 32
#define DEFAULT_ALIGN 8

enum endian { BIG, LITTLE };

struct layout {
    enum endian endian;
    int align;
};

static void layout_init(struct layout *h)
{
    h->endian = LITTLE; /* the native order on the machines we build for */
    h->align = 1;
}

static int is_pow2(long x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

/* The number at *fmt (advanced past it), or dflt when there is none. */
static int read_count(lua_State *L, const char **fmt, int dflt)
{
    if (!isdigit((unsigned char)**fmt))
        return dflt;
    int a = 0;
    do {
        int digit = **fmt - '0';
        if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit)
            luaL_error(L, "integral size overflow");
        a = a * 10 + digit;
        (*fmt)++;
    } while (isdigit((unsigned char)**fmt));
    return a;
}

/* Whether opt is one of the integer options, which pack and unpack treat
 * alike but for their size and sign. */
static int is_integer_option(int opt)
{
    return opt != '\0' && strchr("bBhHlLTiI", opt) != NULL;
}

/* The bytes option opt takes (reading its count); 0 for options that
 * take none. */
static size_t option_size(lua_State *L, int opt, const char **fmt)
{
    switch (opt) {
    case 'b':
    case 'B':
        return 1;
    case 'h':
    case 'H':
        return 2;
    case 'l':
    case 'L':
    case 'T':
    case 'd':
        return 8;
    case 'f':
        return 4;
    case 'x':
        return 1;
    case 'c':
        return (size_t)read_count(L, fmt, 1);
    case 'i':
    case 'I': {
        int size = read_count(L, fmt, 4);
        if (size > MAX_INT_SIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", size, MAX_INT_SIZE);
        return (size_t)size;
    }
    default:
        return 0;
    }
}

/* Padding before an item of this size at offset len: its size capped by
 * the alignment, as a mask (Redis's formula, for sizes not a power of 2
 * too). */
static size_t padding(size_t len, const struct layout *h, int opt, size_t size)
{
    if (size == 0 || opt == 'c')
        return 0;
    if (size > (size_t)h->align)
        size = (size_t)h->align;
    return (size - (len & (size - 1))) & (size - 1);
}

/* The options that change the layout; anything else is an error. */
static void layout_option(lua_State *L, int opt, const char **fmt, struct layout *h)
{
    switch (opt) {
    case ' ':
        return;
    case '>':
        h->endian = BIG;
        return;
    case '<':
        h->endian = LITTLE;
        return;
    case '!': {
        int a = read_count(L, fmt, DEFAULT_ALIGN);
        if (!is_pow2(a))
            luaL_error(L, "alignment %d is not a power of 2", a);
        h->align = a;
        return;
    }
    default:
        luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

/* The 64 bits x86-64 gives for Redis's conversion: a negative number
 * through long, anything else straight to unsigned long. Out of range,
 * the processor's "integer indefinite" (bit 63 alone) shows through: NaN
 * and numbers below -2^63 give it, numbers from 2^64 give 0. */
static uint64_t integer_bits(double n)
{
    const double two63 = 9223372036854775808.0;
    if (isnan(n))
        return UINT64_C(1) << 63;
    if (n < 0)
        return n >= -two63 ? (uint64_t)(int64_t)n : UINT64_C(1) << 63;
    if (n < two63)
        return (uint64_t)(int64_t)n;
    if (n < 2 * two63)
        return (uint64_t)n;
    return 0;
}

static void put_integer(lua_State *L, luaL_Buffer *b, int arg, enum endian endian, size_t size)
{
    uint64_t value = integer_bits(luaL_checknumber(L, arg));
    char buf[MAX_INT_SIZE];
    for (size_t i = 0; i < size; i++) {
        char byte = (char)(i < 8 ? (value >> (8 * i)) & 0xff : 0);
        buf[endian == LITTLE ? i : size - 1 - i] = byte;
    }
    luaL_addlstring(b, buf, size);
}

/* Bytes of a float or double in memory (native, little-endian) put in
 * the wanted order. */
static void order_bytes(char *p, size_t size, enum endian endian)
{
    if (endian == LITTLE)
        return;
    for (size_t i = 0, j = size - 1; i < j; i++, j--) {
        char t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* A double as float the way the processor rounds it; outside float's
 * range C leaves the conversion undefined, so say it: infinity. */
static float to_float(double d)
{
    if (isfinite(d) && fabs(d) > FLT_MAX)
        return d > 0 ? INFINITY : -INFINITY;
    return (float)d;
}

static int struct_pack(lua_State *L)
{
    const char *fmt = luaL_checkstring(L, 1);
    struct layout h;
    layout_init(&h);
    int arg = 2;
    size_t total = 0;
    /* A nil above the arguments, so a missing one reads "got nil", as
     * Redis's does (its buffer starts above the same mark). */
    lua_pushnil(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = option_size(L, opt, &fmt);
        size_t pad = padding(total, &h, opt, size);
        total += pad;
        while (pad-- > 0)
            luaL_addchar(&b, '\0');
        switch (is_integer_option(opt) ? 'i' : opt) {
        case 'i':
            put_integer(L, &b, arg++, h.endian, size);
            break;
        case 'x':
            luaL_addchar(&b, '\0');
            break;
        case 'f': {
            float f = to_float(luaL_checknumber(L, arg++));
            order_bytes((char *)&f, sizeof(f), h.endian);
            luaL_addlstring(&b, (const char *)&f, sizeof(f));
            break;
        }
        case 'd': {
            double d = luaL_checknumber(L, arg++);
            order_bytes((char *)&d, sizeof(d), h.endian);
            luaL_addlstring(&b, (const char *)&d, sizeof(d));
            break;
        }
        case 'c':
        case 's': {
            size_t len;
            const char *s = luaL_checklstring(L, arg++, &len);
            if (size == 0)
                size = len;
            /* arg is already the next one here: Redis names that one. */
            luaL_argcheck(L, len >= size, arg, "string too short");
            luaL_addlstring(&b, s, size);
            if (opt == 's') {
                luaL_addchar(&b, '\0');
                size++;
            }
            break;
        }
        default:
            layout_option(L, opt, &fmt, &h);
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

/* size bytes (1..32) as an integer: the low 8 make the value; a signed
 * one is extended from bit size*8-1 taken modulo 64 (x86-64's shift). */
static lua_Number get_integer(const unsigned char *p, enum endian endian, int is_signed,
                              size_t size)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        v = v << 8 | p[endian == BIG ? i : size - 1 - i];
    if (!is_signed)
        return (lua_Number)v;
    uint64_t mask = ~UINT64_C(0) << ((size * 8 - 1) & 63);
    if (v & mask)
        v |= mask;
    return (lua_Number)(int64_t)v;
}

static int struct_unpack(lua_State *L)
{
    const char *fmt = luaL_checkstring(L, 1);
    size_t ld;
    const char *data = luaL_checklstring(L, 2, &ld);
    /* Unsigned, as Redis's: a negative position wraps, then fails the
     * length check below. */
    size_t pos = (size_t)luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
    pos--;
    struct layout h;
    layout_init(&h);
    int n = 0;
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = option_size(L, opt, &fmt);
        pos += padding(pos, &h, opt, size);
        luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        const unsigned char *at = (const unsigned char *)data + pos;
        switch (is_integer_option(opt) ? 'i' : opt) {
        case 'i':
            lua_pushnumber(L, get_integer(at, h.endian, islower(opt), size));
            n++;
            break;
        case 'x':
            break;
        case 'f': {
            float f;
            memcpy(&f, at, sizeof(f));
            order_bytes((char *)&f, sizeof(f), h.endian);
            lua_pushnumber(L, f);
            n++;
            break;
        }
        case 'd': {
            double d;
            memcpy(&d, at, sizeof(d));
            order_bytes((char *)&d, sizeof(d), h.endian);
            lua_pushnumber(L, d);
            n++;
            break;
        }
        case 'c':
            if (size == 0) {
                /* The length is the value unpacked just before. */
                if (n == 0 || !lua_isnumber(L, -1))
                    luaL_error(L, "format 'c0' needs a previous size");
                lua_Number want = lua_tonumber(L, -1);
                lua_pop(L, 1);
                n--;
                /* Negative or NaN lengths wrap to huge, then fail. */
                size = want >= 0 && want < 18446744073709551616.0 ? (size_t)want : SIZE_MAX;
                luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
            }
            lua_pushlstring(L, (const char *)at, size);
            n++;
            break;
        case 's': {
            const char *end = memchr(at, '\0', ld - pos);
            if (!end)
                luaL_error(L, "unfinished string in data");
            size = (size_t)(end - (const char *)at) + 1;
            lua_pushlstring(L, (const char *)at, size - 1);
            n++;
            break;
        }
        default:
            layout_option(L, opt, &fmt, &h);
        }
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)(pos + 1));
    return n + 1;
}

static int struct_size(lua_State *L)
{
    const char *fmt = luaL_checkstring(L, 1);
    struct layout h;
    layout_init(&h);
    size_t pos = 0;
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = option_size(L, opt, &fmt);
        pos += padding(pos, &h, opt, size);
        if (opt == 's')
            luaL_argerror(L, 1, "option 's' has no fixed size");
        else if (opt == 'c' && size == 0)
            luaL_argerror(L, 1, "option 'c0' has no fixed size");
        /* Letters Redis does not know count as nothing here. */
        if (!isalnum(opt))
            layout_option(L, opt, &fmt, &h);
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos);
    return 1;
}

int lua_struct_open(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        {"pack", struct_pack},
        {"unpack", struct_unpack},
        {"size", struct_size},
        {NULL, NULL},
    };
    lua_newtable(L);
    for (const luaL_Reg *f = funcs; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}
