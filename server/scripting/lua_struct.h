/*
 * lua_struct.h - the struct library of scripts: binary packing as Redis
 * 7.0's embedded struct library (Roberto Ierusalimschy's struct 0.2 with
 * Redis's fixes) does it (lua_struct.c, prefix lua_struct_).
 *
 * Our own code: Debian packages no lua-struct. Knows only Lua's C API.
 *
 * In a script:
 *   struct.pack(fmt, v1, ...)        the values as bytes
 *   struct.unpack(fmt, s[, pos])     the values, then the position after them
 *   struct.size(fmt)                 the bytes fmt packs to
 * Format: > big-endian, < little-endian (native, little, by default),
 * ![n] alignment n (a power of 2; 8 without n), ' ' ignored, b/B char,
 * h/H short, l/L long, T size_t, i/I[n] integer of n bytes (4 by default,
 * at most 32), f float, d double, c[n] n chars (c0: the whole string when
 * packing, the previous number's length when unpacking), s zero-ended
 * string, x a zero byte. Lowercase integers are signed. Numbers in a
 * format above INT_MAX raise "integral size overflow"; '=' is not an
 * option in Redis 7.0 and is refused like any other unknown letter.
 */
#ifndef RBKV_LUA_STRUCT_H
#define RBKV_LUA_STRUCT_H

#include <lua.h>

/* Pushes the struct table (pack, unpack, size) onto L; returns 1. */
int lua_struct_open(lua_State *L);

#endif
