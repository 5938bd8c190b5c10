/*
 * fuzz_cmsgpack.c - libFuzzer target for the scripts' cmsgpack and struct
 * libraries (server/core/lua_cmsgpack.c, lua_struct.c) in a bare Lua state.
 *
 * Input: byte 0 picks the call, byte 1 its number argument (an offset or a
 * limit), the rest is the string:
 *   0 cmsgpack.unpack(s)            1 cmsgpack.unpack_one(s, n)
 *   2 cmsgpack.unpack_limit(s, n)   3 cmsgpack.unpack_limit(s, 2, n)
 *   4 struct.unpack(fmt, data, n+1) 5 struct.size(fmt)
 * where fmt and data are s cut at its first NUL (struct formats end there).
 * Checked, aborting on a violation: a call returns or raises a string
 * error, never crashes or reads past s (ASan); whatever cmsgpack.unpack
 * returns packs again, and repacking settles (repack_src).
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_cmsgpack.h"
#include "lua_struct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Repacking settles in two rounds: the first turns tables nested past 16
 * into nil, the second drops those nils (Lua tables hold none); after that
 * only a map's key order may change, so the length stays. A table used as a
 * map key past that depth packs as a nil key, which unpack refuses with Lua's
 * "table index is nil", as Redis 7.0's cmsgpack does; no other error may. */
static const char repack_src[] =
    "local s = ...\n"
    "local ok, p = pcall(function() return cmsgpack.pack(cmsgpack.unpack(s)) end)\n"
    "if not ok then return true end\n"
    "local ok2, q = pcall(function() return cmsgpack.pack(cmsgpack.unpack(p)) end)\n"
    "if not ok2 then return string.find(q, 'table index is nil', 1, true) ~= nil end\n"
    "return #cmsgpack.pack(cmsgpack.unpack(q)) == #q\n";

static lua_State *state(void)
{
    static lua_State *L;
    if (!L) {
        L = luaL_newstate();
        if (!L)
            abort();
        luaL_openlibs(L);
        lua_cmsgpack_open(L);
        lua_setglobal(L, "cmsgpack");
        lua_struct_open(L);
        lua_setglobal(L, "struct");
    }
    return L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    lua_State *L = state();
    int call = data[0] % 6;
    lua_Integer n = data[1];
    const char *s = (const char *)data + 2;
    size_t len = size - 2;
    size_t cut = strnlen(s, len);

    lua_settop(L, 0);
    int nargs;
    if (call < 4) {
        static const char *const fns[] = {"unpack", "unpack_one", "unpack_limit", "unpack_limit"};
        lua_getglobal(L, "cmsgpack");
        lua_getfield(L, 1, fns[call]);
        lua_pushlstring(L, s, len);
        nargs = 1;
        if (call == 3) {
            lua_pushinteger(L, 2);
            nargs++;
        }
        if (call > 0) {
            lua_pushinteger(L, n);
            nargs++;
        }
    } else {
        lua_getglobal(L, "struct");
        lua_getfield(L, 1, call == 4 ? "unpack" : "size");
        lua_pushlstring(L, s, cut);
        nargs = 1;
        if (call == 4) {
            lua_pushlstring(L, s + (cut < len ? cut + 1 : len), cut < len ? len - cut - 1 : 0);
            lua_pushinteger(L, n + 1);
            nargs += 2;
        }
    }
    if (lua_pcall(L, nargs, LUA_MULTRET, 0) != 0 && !lua_isstring(L, -1))
        abort();

    if (call == 0) {
        lua_settop(L, 0);
        if (luaL_loadbuffer(L, repack_src, sizeof(repack_src) - 1, "=repack") != 0)
            abort();
        lua_pushlstring(L, s, len);
        if (lua_pcall(L, 1, 1, 0) != 0 || !lua_toboolean(L, -1))
            abort();
    }
    lua_settop(L, 0);
    lua_gc(L, LUA_GCSTEP, 0);
    return 0;
}
