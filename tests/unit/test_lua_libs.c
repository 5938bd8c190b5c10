/*
 * test_lua_libs.c - the cmsgpack and struct libraries of scripts
 * (server/core/lua_cmsgpack.c, lua_struct.c) in a bare Lua state.
 *
 * The exact bytes below are what redis-server 7.0.15 answers to
 * EVAL "return cmsgpack.pack(<expr>)" 0 (and struct.pack likewise), one
 * case per type and range boundary; the error texts are its too. Then
 * random values round trip through pack and unpack (compared as packed
 * bytes, since Lua tables do not compare by value), and random bytes go
 * to every unpack function, which must answer or raise, never crash
 * (under ASan: never read past the input). SEED=<n> replays.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "check.h"
#include "lua_cmsgpack.h"
#include "lua_random_value.h"
#include "lua_struct.h"

static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    CHECK(L != NULL);
    luaL_openlibs(L);
    lua_cmsgpack_open(L);
    lua_setglobal(L, "cmsgpack");
    lua_struct_open(L);
    lua_setglobal(L, "struct");
    return L;
}

/* Runs chunk; returns 0 with its results on the stack, or -1 with the
 * error message on top. */
static int run(lua_State *L, const char *chunk)
{
    lua_settop(L, 0);
    if (luaL_loadstring(L, chunk) != 0)
        return -1;
    return lua_pcall(L, 0, LUA_MULTRET, 0) == 0 ? 0 : -1;
}

static void hex(const char *s, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 3 <= cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%02x", (unsigned char)s[i]);
    out[n] = '\0';
}

/* chunk returns one string: its bytes in hex must start with want_hex and
 * it must be want_len bytes long. */
static void expect_bytes(lua_State *L, const char *chunk, const char *want_hex, size_t want_len)
{
    CHECK_MSG(run(L, chunk) == 0, "%s: %s", chunk, lua_tostring(L, -1));
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    CHECK_MSG(s != NULL, "%s returned no string", chunk);
    char got[80];
    hex(s, len < 32 ? len : 32, got, sizeof(got));
    CHECK_MSG(strncmp(got, want_hex, strlen(want_hex)) == 0 && len == want_len,
              "%s: got %s (%zu bytes), want %s (%zu bytes)", chunk, got, len, want_hex, want_len);
}

/* chunk must fail with this message, after the caller's position that
 * luaL_error puts first (as it does in Redis: "user_script:1: ..."). */
static void expect_error(lua_State *L, const char *chunk, const char *want)
{
    CHECK_MSG(run(L, chunk) != 0, "%s did not fail", chunk);
    const char *got = lua_tostring(L, -1);
    const char *pos = "[string \"";
    if (got && !strncmp(got, pos, strlen(pos)) && strstr(got, "]:1: "))
        got = strstr(got, "]:1: ") + 5;
    CHECK_MSG(got && strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", chunk,
              got ? got : "(not a string)", want);
}

/* chunk must return these numbers and strings, printed by Lua's tostring
 * and joined by ' '. */
static void expect_values(lua_State *L, const char *chunk, const char *want)
{
    char wrapped[512];
    snprintf(wrapped, sizeof(wrapped),
             "local t = {(function() %s end)()} local n = select('#', (function() %s end)())"
             " local o = {} for i = 1, n do o[i] = tostring(t[i]) end"
             " return table.concat(o, ' ')",
             chunk, chunk);
    CHECK_MSG(run(L, wrapped) == 0, "%s: %s", chunk, lua_tostring(L, -1));
    const char *got = lua_tostring(L, 1);
    CHECK_MSG(got && strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", chunk, got, want);
}

static void test_pack_bytes(void)
{
    lua_State *L = new_state();
    static const struct {
        const char *expr, *hex;
        size_t len;
    } cases[] = {
        {"0", "00", 1},
        {"127", "7f", 1},
        {"128", "cc80", 2},
        {"255", "ccff", 2},
        {"256", "cd0100", 3},
        {"65535", "cdffff", 3},
        {"65536", "ce00010000", 5},
        {"4294967295", "ceffffffff", 5},
        {"4294967296", "cf0000000100000000", 9},
        {"-1", "ff", 1},
        {"-32", "e0", 1},
        {"-33", "d0df", 2},
        {"-128", "d080", 2},
        {"-129", "d1ff7f", 3},
        {"-32768", "d18000", 3},
        {"-32769", "d2ffff7fff", 5},
        {"-2147483648", "d280000000", 5},
        {"-2147483649", "d3ffffffff7fffffff", 9},
        {"-2^63", "d38000000000000000", 9},
        {"-0.0", "00", 1},
        {"2^63", "ca5f000000", 5},
        {"2^64", "ca5f800000", 5},
        {"0.5", "ca3f000000", 5},
        {"-1.5", "cabfc00000", 5},
        {"0.1", "cb3fb999999999999a", 9},
        {"1e300", "cb7e37e43c8800759c", 9},
        {"3.4028234663852886e38", "ca7f7fffff", 5},
        {"1/0", "ca7f800000", 5},
        {"-1/0", "caff800000", 5},
        {"nil", "c0", 1},
        {"true", "c3", 1},
        {"false", "c2", 1},
        {"print", "c0", 1},
        {"''", "a0", 1},
        {"'x'", "a178", 2},
        {"string.rep('a', 31)", "bf61", 32},
        {"string.rep('a', 32)", "d92061", 34},
        {"string.rep('a', 255)", "d9ff61", 257},
        {"string.rep('a', 256)", "da010061", 259},
        {"string.rep('a', 65535)", "daffff61", 65538},
        {"string.rep('a', 65536)", "db0001000061", 65541},
        {"{}", "90", 1},
        {"{1, 2, 3}", "93010203", 4},
        {"{1, nil, 3}", "8201010303", 5},
        {"{[1] = 1, [3] = 3}", "8201010303", 5},
        {"{a = 1}", "81a16101", 4},
        {"{[1.5] = 1}", "81ca3fc0000001", 7},
        {"{[0] = 1}", "810001", 3},
        {"{[-1] = 1}", "81ff01", 3},
        {"{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15}", "9f01", 16},
        {"{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16}", "dc00100102", 19},
        {"{true, {false, {}}}", "92c392c290", 5},
        {"1, 'a', nil", "01a161c0", 4},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char chunk[128];
        snprintf(chunk, sizeof(chunk), "return cmsgpack.pack(%s)", cases[i].expr);
        expect_bytes(L, chunk, cases[i].hex, cases[i].len);
    }
    /* A map of 16 keys and one of 65536: 16 and 32 bit headers. */
    expect_bytes(L, "local t = {} for i = 1, 16 do t['k' .. i] = i end return cmsgpack.pack(t)",
                 "de0010", 3 + 9 * 3 + 7 * 4 + 16);
    expect_bytes(L,
                 "local t = {} for i = 1, 65536 do t[i] = true end return cmsgpack.pack(t)",
                 "dd00010000c3", 5 + 65536);
    /* Nesting: 16 levels of tables, then nil in place of the 17th; a
     * table holding itself ends the same way. */
    expect_bytes(L,
                 "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end"
                 " return cmsgpack.pack(t)",
                 "91919191919191919191919191919191c0", 17);
    expect_bytes(L, "local t = {} t[1] = t return cmsgpack.pack(t)",
                 "91919191919191919191919191919191c0", 17);
    lua_close(L);
}

static void test_unpack(void)
{
    lua_State *L = new_state();
    expect_values(L, "return cmsgpack.unpack('')", "");
    expect_values(L, "return cmsgpack.unpack('\\1\\255\\192\\195\\194')", "1 -1 nil true false");
    expect_values(L, "return cmsgpack.unpack('\\204\\255\\205\\1\\0\\206\\0\\1\\0\\0')",
                  "255 256 65536");
    expect_values(L, "return cmsgpack.unpack('\\207\\0\\0\\0\\1\\0\\0\\0\\0')", "4294967296");
    expect_values(L, "return cmsgpack.unpack('\\208\\128\\209\\128\\0\\210\\128\\0\\0\\0')",
                  "-128 -32768 -2147483648");
    expect_values(L, "return cmsgpack.unpack('\\211\\255\\255\\255\\255\\255\\255\\255\\254')",
                  "-2");
    /* uint64 from 2^63 up comes out negative, as in Redis. */
    expect_values(L, "return cmsgpack.unpack('\\207\\128\\0\\0\\0\\0\\0\\0\\1')",
                  "-9.2233720368548e+18");
    expect_values(L,
                  "return cmsgpack.unpack('\\202\\63\\192\\0\\0\\203\\63\\224\\0\\0\\0\\0\\0\\0')",
                  "1.5 0.5");
    expect_values(L, "return cmsgpack.unpack('\\161x\\217\\1y\\218\\0\\1z\\219\\0\\0\\0\\1w')",
                  "x y z w");
    expect_values(L, "local t = cmsgpack.unpack('\\147\\1\\2\\3') return #t, t[3]", "3 3");
    expect_values(L, "local t = cmsgpack.unpack('\\220\\0\\1\\7\\221\\0\\0\\0\\0') return t[1]",
                  "7");
    expect_values(L, "local t = cmsgpack.unpack('\\130\\161a\\1\\2\\3') return t.a, t[2]", "1 3");
    expect_values(L, "local t = cmsgpack.unpack('\\222\\0\\1\\1\\2\\223\\0\\0\\0\\0') return t[1]",
                  "2");
    /* Numbers become strings first, as with any Lua string argument. */
    expect_values(L, "return cmsgpack.unpack(1)", "49");

    /* unpack_one and unpack_limit: the next offset first, -1 at the end. */
    expect_values(L, "return cmsgpack.unpack_one('\\1\\2')", "1 1");
    expect_values(L, "return cmsgpack.unpack_one('\\1\\2', 1)", "-1 2");
    expect_values(L, "return cmsgpack.unpack_one('')", "-1");
    expect_values(L, "return cmsgpack.unpack_limit('\\1\\2\\3', 2)", "2 1 2");
    expect_values(L, "return cmsgpack.unpack_limit('\\1\\2\\3', 5, 1)", "-1 2 3");
    expect_values(L, "return cmsgpack.unpack_limit('\\1\\2', 0)", "1 2");
    expect_values(L, "return cmsgpack.unpack_limit('\\1\\2', 0, 1)", "1");

    expect_error(L, "return cmsgpack.unpack('\\146\\1')", "Missing bytes in input.");
    expect_error(L, "return cmsgpack.unpack('\\217\\5ab')", "Missing bytes in input.");
    expect_error(L, "return cmsgpack.unpack('\\205\\1')", "Missing bytes in input.");
    expect_error(L, "return cmsgpack.unpack('\\203\\1\\2')", "Missing bytes in input.");
    expect_error(L, "return cmsgpack.unpack('\\221\\255\\255\\255\\255')",
                 "Missing bytes in input.");
    expect_error(L, "return cmsgpack.unpack('\\193')", "Bad data format in input.");
    expect_error(L, "return cmsgpack.unpack('\\196\\1a')", "Bad data format in input.");
    expect_error(L, "return cmsgpack.unpack('\\212\\1\\1')", "Bad data format in input.");
    expect_error(L, "return cmsgpack.unpack('\\129\\192\\1')", "table index is nil");
    expect_error(L, "return cmsgpack.unpack_limit('\\1\\2', 1, 5)",
                 "Start offset 5 greater than input length 2.");
    expect_error(L, "return cmsgpack.unpack_limit('\\1\\2', -1)",
                 "Invalid request to unpack with offset of 0 and limit of 2.");
    expect_error(L, "return cmsgpack.unpack_one('\\1', -1)",
                 "Invalid request to unpack with offset of -1 and limit of 1.");
    expect_error(L, "return cmsgpack.pack()",
                 "bad argument #0 to 'pack' (MessagePack pack needs input.)");
    expect_error(L, "return cmsgpack.unpack_limit('\\1')",
                 "bad argument #2 to 'unpack_limit' (number expected, got no value)");
    expect_error(L, "return cmsgpack.unpack({})",
                 "bad argument #1 to 'unpack' (string expected, got table)");
    /* More values than a C function may return at once. */
    expect_error(L, "return cmsgpack.unpack(string.rep('\\1', 10000))",
                 "stack overflow (too many return values at once; use unpack_one or "
                 "unpack_limit instead.)");
    lua_close(L);
}

static void test_struct(void)
{
    lua_State *L = new_state();
    static const struct {
        const char *args, *hex;
        size_t len;
    } cases[] = {
        {"'>b', -1", "ff", 1},
        {"'>B', 255", "ff", 1},
        {"'>h', -2", "fffe", 2},
        {"'<H', 258", "0201", 2},
        {"'>l', 1", "0000000000000001", 8},
        {"'<L', 1", "0100000000000000", 8},
        {"'>T', 5", "0000000000000005", 8},
        {"'>i', 1", "00000001", 4},
        {"'>i3', -1", "ffffff", 3},
        {"'>I1', 263", "07", 1},
        {"'>i0', 5", "", 0},
        {"'>i16', -2", "0000000000000000fffffffffffffffe", 16},
        {"'<I9', 2^64", "000000000000000000", 9},
        {"'>L', 1e30", "0000000000000000", 8},
        {"'>l', -1e30", "8000000000000000", 8},
        {"'>L', 0/0", "8000000000000000", 8},
        {"'>f', 1.5", "3fc00000", 4},
        {"'<f', 1.5", "0000c03f", 4},
        {"'>f', 1e300", "7f800000", 4},
        {"'>d', 0.1", "3fb999999999999a", 8},
        {"'c3', 'abcdef'", "616263", 3},
        {"'c0', 'abc'", "616263", 3},
        {"'s', 'a\\0b'", "61006200", 4},
        {"'x'", "00", 1},
        {"' <!2 bh', 1, 2", "01000200", 4},
        {"'!bd', 1, 0", "0100000000000000", 16},
        {"'!4bd', 1, 0", "01000000", 12},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char chunk[128];
        snprintf(chunk, sizeof(chunk), "return struct.pack(%s)", cases[i].args);
        expect_bytes(L, chunk, cases[i].hex, cases[i].len);
    }
    expect_values(L, "return struct.size('T')", "8");
    expect_values(L, "return struct.size('i16')", "16");
    expect_values(L, "return struct.size('bxi')", "6");
    expect_values(L, "return struct.size('!8bd')", "16");
    expect_values(L, "return struct.size('!4bd')", "12");
    expect_values(L, "return struct.size('z')", "0");
    expect_values(L, "return struct.unpack('>i16', string.rep('\\255', 16))", "-1 17");
    expect_values(L, "return struct.unpack('>i12', string.rep('\\128', 12))", "-2139062144 13");
    expect_values(L, "return struct.unpack('<i3', '\\255\\255\\127')", "8388607 4");
    expect_values(L, "return struct.unpack('>f', struct.pack('>f', 1.5))", "1.5 5");
    expect_values(L, "return struct.unpack('<d', struct.pack('<d', 0.1))", "0.1 9");
    expect_values(L, "return struct.unpack('bc0', '\\2ab')", "ab 4");
    expect_values(L, "return struct.unpack('c1c0', '3abc')", "abc 5");
    expect_values(L, "return struct.unpack('s', 'ab\\0c')", "ab 4");
    expect_values(L, "return struct.unpack('!4bi', 'abcdefgh')", "97 1751606885 9");
    expect_values(L, "return struct.unpack('B', 'a', 1.9)", "97 2");
    expect_values(L, "return struct.unpack('', 'abc', 10)", "10");
    expect_values(L, "return struct.unpack('i4i4', struct.pack('i4i4', 1, 2))", "1 2 9");

    expect_error(L, "return struct.size('i33')", "integral size 33 is larger than limit of 32");
    expect_error(L, "return struct.size('s')",
                 "bad argument #1 to 'size' (option 's' has no fixed size)");
    expect_error(L, "return struct.size('c0')",
                 "bad argument #1 to 'size' (option 'c0' has no fixed size)");
    expect_error(L, "return struct.size('!3')", "alignment 3 is not a power of 2");
    expect_error(L, "return struct.size('!0')", "alignment 0 is not a power of 2");
    expect_error(L, "return struct.size('i99999999999')", "integral size overflow");
    expect_error(L, "return struct.size('c2147483648')", "integral size overflow");
    expect_error(L, "return struct.size('=T')",
                 "bad argument #1 to 'size' (invalid format option '=')");
    expect_error(L, "return struct.pack(1)",
                 "bad argument #1 to 'pack' (invalid format option '1')");
    expect_error(L, "return struct.pack('b')",
                 "bad argument #2 to 'pack' (number expected, got nil)");
    expect_error(L, "return struct.pack('bb', 1)",
                 "bad argument #3 to 'pack' (number expected, got nil)");
    expect_error(L, "return struct.pack('b', 'x')",
                 "bad argument #2 to 'pack' (number expected, got string)");
    expect_error(L, "return struct.pack('c5', 'ab')",
                 "bad argument #3 to 'pack' (string too short)");
    expect_error(L, "return struct.unpack('c0', '')", "format 'c0' needs a previous size");
    expect_error(L, "return struct.unpack('c0', '1abc')", "format 'c0' needs a previous size");
    expect_error(L, "return struct.unpack('i', 'abc')",
                 "bad argument #2 to 'unpack' (data string too short)");
    expect_error(L, "return struct.unpack('b', 'abc', 0)",
                 "bad argument #3 to 'unpack' (offset must be 1 or greater)");
    expect_error(L, "return struct.unpack('b', 'abc', -1)",
                 "bad argument #2 to 'unpack' (data string too short)");
    expect_error(L, "return struct.unpack('x', 'abc', 4)",
                 "bad argument #2 to 'unpack' (data string too short)");
    expect_error(L, "return struct.unpack('bc0', '\\9ab')",
                 "bad argument #2 to 'unpack' (data string too short)");
    expect_error(L, "return struct.unpack('s', 'ab')", "unfinished string in data");
    expect_error(L, "return struct.unpack('z', 'ab')",
                 "bad argument #1 to 'unpack' (invalid format option 'z')");
    expect_error(L, "return struct.unpack('b')",
                 "bad argument #2 to 'unpack' (string expected, got no value)");
    lua_close(L);
}

/* Values of every kind and size: maps of many keys too, since a round trip
 * compares values, not bytes. */
static const struct lua_value_shape any_value = {.long_string = 70000, .one_key_maps = 0};

/* Deep equality of two Lua values; a map's bytes depend on its key order,
 * which a rebuilt table need not keep, so values are compared instead. */
static const char deep_equal_src[] =
    "function deq(a, b)\n"
    "  if type(a) ~= 'table' or type(b) ~= 'table' then return a == b end\n"
    "  for k, v in pairs(a) do if not deq(v, b[k]) then return false end end\n"
    "  for k in pairs(b) do if a[k] == nil then return false end end\n"
    "  return true\n"
    "end\n";

/* unpack(pack(v)) equals v for random v, several values at once too, and
 * unpack_one and unpack_limit walk the same values by offset. */
static void test_round_trip(void)
{
    uint64_t rng = check_seed(20261205);
    lua_State *L = new_state();
    CHECK(run(L, deep_equal_src) == 0);
    static char value[16384], chunk[40000];
    for (unsigned long op = 0; op < 2000; op++) {
        lua_random_value(&rng, value, sizeof(value), 0, &any_value);
        snprintf(chunk, sizeof(chunk),
                 "local v = %s local p = cmsgpack.pack(v, v, 7)"
                 " local x, y, z = cmsgpack.unpack(p)"
                 " local off, a = cmsgpack.unpack_one(p)"
                 " local off2, b, c = cmsgpack.unpack_limit(p, 5, off)"
                 " return deq(v, x) and deq(v, y) and z == 7 and deq(v, a) and deq(v, b)"
                 " and c == 7 and off2 == -1",
                 value);
        CHECK_MSG(run(L, chunk) == 0 && lua_toboolean(L, 1), "op %lu: %s: %s", op, value,
                  lua_isstring(L, -1) ? lua_tostring(L, -1) : "false");
    }
    lua_close(L);
}

/* Random bytes, and packed values cut or flipped, into every unpack:
 * each call answers or raises one of the known errors. */
static void test_random_bytes(void)
{
    uint64_t rng = check_seed(20261206);
    lua_State *L = new_state();
    static char value[16384];
    for (unsigned long op = 0; op < 20000; op++) {
        char buf[64];
        size_t len = (size_t)rng_below(&rng, sizeof(buf));
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)rng_next(&rng);
        lua_settop(L, 0);
        lua_getglobal(L, "cmsgpack");
        static const char *const fns[] = {"unpack", "unpack_one", "unpack_limit"};
        int fn = (int)rng_below(&rng, 3);
        lua_getfield(L, 1, fns[fn]);
        lua_pushlstring(L, buf, len);
        int nargs = 1;
        if (fn == 2) {
            lua_pushinteger(L, (lua_Integer)rng_below(&rng, 4));
            nargs++;
        }
        if (fn > 0) {
            lua_pushinteger(L, (lua_Integer)rng_below(&rng, len + 2));
            nargs++;
        }
        if (lua_pcall(L, nargs, LUA_MULTRET, 0) != 0) {
            const char *err = lua_tostring(L, -1);
            CHECK_MSG(err && (!strcmp(err, "Missing bytes in input.") ||
                              !strcmp(err, "Bad data format in input.") ||
                              !strcmp(err, "table index is nil") ||
                              !strcmp(err, "table index is NaN") ||
                              !strncmp(err, "Start offset", 12)),
                      "op %lu: %s", op, err ? err : "(no message)");
        }
    }
    /* Every prefix of a packed value (some 300 of them for a long one) is
     * missing bytes, never more. */
    for (unsigned long op = 0; op < 200; op++) {
        lua_random_value(&rng, value, sizeof(value), 0, &any_value);
        char chunk[17000];
        snprintf(chunk, sizeof(chunk),
                 "local p = cmsgpack.pack(%s)"
                 " for i = 1, #p - 1, math.max(1, math.floor(#p / 300)) do"
                 " local ok, e = pcall(cmsgpack.unpack, p:sub(1, i))"
                 " if ok or e ~= 'Missing bytes in input.' then return i end end return 0",
                 value);
        CHECK_MSG(run(L, chunk) == 0 && lua_tonumber(L, 1) == 0, "op %lu: %s cut at %s", op,
                  value, lua_tostring(L, 1));
    }
    lua_close(L);
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    int all = !strcmp(part, "all");
    if (all || !strcmp(part, "pack"))
        test_pack_bytes();
    if (all || !strcmp(part, "unpack"))
        test_unpack();
    if (all || !strcmp(part, "struct"))
        test_struct();
    if (all || !strcmp(part, "random")) {
        test_round_trip();
        test_random_bytes();
    }
    printf("test_lua_libs %s: ok\n", part);
    return 0;
}
