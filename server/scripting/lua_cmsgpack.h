/*
 * lua_cmsgpack.h - the cmsgpack library of scripts: MessagePack to and from
 * Lua values as Redis 7.0's embedded lua-cmsgpack 0.4.0 does it
 * (lua_cmsgpack.c, prefix lua_cmsgpack_).
 *
 * Our own code: Debian packages no lua-cmsgpack, and scripts in the wild
 * (BullMQ's, for one) call cmsgpack.pack and cmsgpack.unpack. Knows only
 * Lua's C API; no server state.
 *
 * In a script:
 *   cmsgpack.pack(v1, v2, ...)       the encodings of each value, concatenated
 *   cmsgpack.unpack(s)               every value in s
 *   cmsgpack.unpack_one(s[, off])    next offset (-1 at the end), one value
 *   cmsgpack.unpack_limit(s, n[, off])  next offset, at most n values
 * Encoding, as Redis: a table whose keys are exactly 1..n is an array, any
 * other table a map; tables nested 16 deep become nil (so cycles end); a
 * number that is an int64 is the smallest integer encoding, else float32
 * when that is exact, else float64; a string is always str (never bin);
 * functions and other types are nil. Decoding refuses bin and ext
 * (0xc4-0xc9, 0xd4-0xd8) and 0xc1 ("Bad data format in input.") and never
 * reads past the input ("Missing bytes in input.").
 */
#ifndef RBKV_LUA_CMSGPACK_H
#define RBKV_LUA_CMSGPACK_H

#include <lua.h>

/* Pushes the cmsgpack table (pack, unpack, unpack_one, unpack_limit and
 * the _NAME, _VERSION, _DESCRIPTION strings) onto L; returns 1. A
 * lua_CFunction, so the caller may lua_call it as a library opener. */
int lua_cmsgpack_open(lua_State *L);

#endif
