/*
 * test_script_libs.c - the libraries scripts get besides redis: cmsgpack
 * and struct (ours, server/core/lua_cmsgpack.c, lua_struct.c), cjson and
 * bit (Debian's), through EVAL on the real server.
 *
 * Every request goes to rbkv and to a redis-server 7 started beside it
 * (h_start_comparison) and the replies must be the same (compared in
 * h_repr's text form, which shows every byte): fixed cases for each
 * library, their errors, then seeded random values packed by cmsgpack and
 * random bytes unpacked by it (a canonical dump of what comes out, since
 * a map's key order is the hash table's), and the same libraries in a
 * FUNCTION library. SEED=<n> replays. Without a
 * redis-server the same requests run against rbkv alone: every one gets a
 * reply and the server stays up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lua_random_value.h"

static struct h_server srv, ref;
static int have_ref;
static redisContext *ours, *theirs;

/* Big enough for h_repr of a 64 KiB string with every byte escaped. */
#define REPR_CAP (4 * 65536 + 1024)

static int same_at(const char *file, int line, int argc, const char *const *argv,
                   const size_t *lens)
{
    static char a[REPR_CAP], b[REPR_CAP];
    redisReply *mine = h_command(ours, argc, argv, lens);
    if (!mine)
        return h_check(file, line, 0, "%s %.200s: no reply", argv[0], argv[1]);
    h_repr(mine, a, sizeof(a));
    freeReplyObject(mine);
    if (!have_ref)
        return 1;
    redisReply *ref_reply = h_command(theirs, argc, argv, lens);
    h_repr(ref_reply, b, sizeof(b));
    freeReplyObject(ref_reply);
    return h_check(file, line, strcmp(a, b) == 0, "%s %.300s: rbkv %.300s, redis %.300s",
                   argv[0], argv[1], a, b);
}

/* EVAL body 0 [arg], the same on both. */
static int same_eval(const char *file, int line, const char *body, const char *arg, size_t arglen)
{
    const char *argv[] = {"EVAL", body, "0", arg};
    size_t lens[] = {4, strlen(body), 1, arglen};
    return same_at(file, line, arg ? 4 : 3, argv, lens);
}
#define SAME(body) same_eval(__FILE__, __LINE__, (body), NULL, 0)

static void same_bodies(const char *const *bodies, size_t n)
{
    for (size_t i = 0; i < n; i++)
        SAME(bodies[i]);
}

static void test_cmsgpack(void)
{
    static const char *const bodies[] = {
        /* Encodings at each boundary (bulk strings of the bytes). */
        "return cmsgpack.pack(0, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296)",
        "return cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648)",
        "return cmsgpack.pack(-2147483649, -2^63, 2^63, 2^64, 2^53 + 1, -0.0)",
        "return cmsgpack.pack(0.5, 0.1, -1.5, 1e300, 1e-300, 1/0, -1/0, 3.4028234663852886e38)",
        "return cmsgpack.pack(nil, true, false, print, '', 'x')",
        "return cmsgpack.pack(string.rep('a', 31), string.rep('b', 32))",
        "return cmsgpack.pack(string.rep('a', 255), string.rep('b', 256))",
        "return cmsgpack.pack(string.rep('a', 65535), string.rep('b', 65536))",
        "return cmsgpack.pack({}, {1, 2, 3}, {1, nil, 3}, {[1] = 1, [3] = 3}, {a = 1})",
        "return cmsgpack.pack({[1.5] = 1}, {[0] = 1}, {[-1] = 1}, {true, {false, {}}})",
        "return cmsgpack.pack({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15})",
        "return cmsgpack.pack({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16})",
        "local t = {} for i = 1, 65536 do t[i] = i % 3 end return cmsgpack.pack(t)",
        "local t = {} for i = 1, 16 do t[i .. ''] = i end local p = cmsgpack.pack(t)"
        " return {#p, p:sub(1, 3)}",
        "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end"
        " return cmsgpack.pack(t)",
        "local t = {} t[1] = t return cmsgpack.pack(t)",
        /* Decoding, returned through the reply conversion. */
        "return {cmsgpack.unpack('\\1\\255\\192\\195\\194\\204\\255\\205\\1\\0')}",
        "return {cmsgpack.unpack('\\206\\0\\1\\0\\0\\207\\0\\0\\0\\1\\0\\0\\0\\0')}",
        "return {cmsgpack.unpack('\\206\\255\\255\\255\\255\\207\\128\\0\\0\\0\\0\\0\\0\\0')}",
        "return {cmsgpack.unpack('\\208\\128\\209\\128\\0\\210\\128\\0\\0\\0')}",
        "return {cmsgpack.unpack('\\211\\255\\255\\255\\255\\255\\255\\255\\254')}",
        "return {cmsgpack.unpack('\\202\\63\\192\\0\\0\\203\\63\\224\\0\\0\\0\\0\\0\\0')}",
        "return {cmsgpack.unpack('\\161x\\217\\1y\\218\\0\\1z\\219\\0\\0\\0\\1w')}",
        "return cmsgpack.unpack('\\147\\1\\2\\147\\3\\4\\5')",
        "return cmsgpack.unpack('\\220\\0\\1\\7')",
        "local t = cmsgpack.unpack('\\130\\161a\\1\\161b\\2') return {t.a, t.b}",
        "return cmsgpack.unpack('')",
        "return cmsgpack.unpack(1)",
        "return {cmsgpack.unpack_one('\\1\\2')}",
        "return {cmsgpack.unpack_one('\\1\\2', 1)}",
        "return {cmsgpack.unpack_one('')}",
        "return {cmsgpack.unpack_limit('\\1\\2\\3', 2)}",
        "return {cmsgpack.unpack_limit('\\1\\2\\3', 5, 1)}",
        "return {cmsgpack.unpack_limit('\\1\\2', 0)}",
        "return {cmsgpack.unpack_limit('\\1\\2', 0, 1)}",
        "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._DESCRIPTION}",
        /* Errors. */
        "return cmsgpack.unpack('\\146\\1')",
        "return cmsgpack.unpack('\\217\\5ab')",
        "return cmsgpack.unpack('\\221\\255\\255\\255\\255')",
        "return cmsgpack.unpack('\\193')",
        "return cmsgpack.unpack('\\196\\1a')",
        "return cmsgpack.unpack('\\212\\1\\1')",
        "return cmsgpack.unpack('\\129\\192\\1')",
        "return cmsgpack.unpack_limit('\\1\\2', 1, 5)",
        "return cmsgpack.unpack_limit('\\1\\2', -1)",
        "return cmsgpack.unpack_one('\\1', -1)",
        "return cmsgpack.unpack_one('\\1', 'x')",
        "return cmsgpack.unpack_limit('\\1')",
        "return cmsgpack.unpack({})",
        "return cmsgpack.pack()",
        "return cmsgpack.unpack(string.rep('\\1', 10000))",
        "return {pcall(cmsgpack.unpack, '\\146')}",
        "cmsgpack.pack = nil",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));
}

static void test_struct(void)
{
    static const char *const bodies[] = {
        "return struct.pack('>b>B>h<H', -1, 255, -2, 258)",
        "return struct.pack('>l<L>T', 1, 1, 5)",
        "return struct.pack('>i>i3>I1>i0', 1, -1, 263, 5)",
        "return struct.pack('>i16<I9', -2, 2^64)",
        "return struct.pack('>L>l>L', 1e30, -1e30, 0/0)",
        "return struct.pack('>f<f>f>d', 1.5, 1.5, 1e300, 0.1)",
        "return struct.pack('c3c0sx', 'abcdef', 'abc', 'a\\0b')",
        "return struct.pack(' <!2 bh', 1, 2)",
        "return struct.pack('!bd', 1, 0)",
        "return struct.pack('!4bd', 1, 0)",
        "return {struct.size('T'), struct.size('i16'), struct.size('bxi'), struct.size('z')}",
        "return {struct.size('!8bd'), struct.size('!4bd'), struct.size('!')}",
        "return {struct.unpack('>i16', string.rep('\\255', 16))}",
        "return {struct.unpack('>i12', string.rep('\\128', 12))}",
        "return {struct.unpack('<i3', '\\255\\255\\127')}",
        "return {struct.unpack('>I9', '\\2\\1\\1\\1\\1\\1\\1\\1\\4')}",
        "return {struct.unpack('>f', struct.pack('>f', 1.5))}",
        "return {struct.unpack('bc0', '\\2ab')}",
        "return {struct.unpack('c1c0', '3abc')}",
        "return {struct.unpack('s', 'ab\\0c')}",
        "return {struct.unpack('!4bi', 'abcdefgh')}",
        "return {struct.unpack('B', 'a', 1.9)}",
        "return {struct.unpack('', 'abc', 10)}",
        "return {struct.unpack('', 'abc', -5)}",
        "return {struct.unpack('i4i4', struct.pack('i4i4', 1, 2))}",
        "return struct.size('i33')",
        "return struct.size('s')",
        "return struct.size('c0')",
        "return struct.size('!3')",
        "return struct.size('i99999999999')",
        "return struct.size('=T')",
        "return struct.pack(1)",
        "return struct.pack('b')",
        "return struct.pack('bb', 1)",
        "return struct.pack('b', 'x')",
        "return struct.pack('c5', 'ab')",
        "return struct.unpack('c0', '')",
        "return struct.unpack('c0', '1abc')",
        "return struct.unpack('i', 'abc')",
        "return struct.unpack('b', 'abc', 0)",
        "return struct.unpack('b', 'abc', -1)",
        "return struct.unpack('x', 'abc', 4)",
        "return struct.unpack('s', 'ab')",
        "return struct.unpack('z', 'ab')",
        "return struct.unpack('b')",
        "struct.pack = nil",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));
}

static void test_cjson_and_bit(void)
{
    static const char *const bodies[] = {
        "return cjson.encode({1, 2, 3})",
        "return cjson.encode({a = {b = true}})",
        "return cjson.encode('a\\nb\"')",
        "return cjson.encode({})",
        "return cjson.decode('{\"a\":[1,2,{\"b\":null}]}').a[2]",
        "return cjson.decode('[1, \"x\", false]')",
        "return cjson.decode('{')",
        "return cjson.encode(print)",
        "return cjson.decode(cjson.encode({1.5, -2, 'z'}))",
        "return cmsgpack.pack(cjson.decode('[1, 2.5, \"s\", true]'))",
        "return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(3, 1), bit.bnot(0)}",
        "return {bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-16, 2), bit.tobit(2^32 + 1)}",
        "return {bit.tohex(255), bit.tohex(-1, 4), bit.rol(1, 33), bit.bswap(1)}",
        "return bit.band('x')",
    };
    same_bodies(bodies, sizeof(bodies) / sizeof(bodies[0]));
}

/* FUNCTION's state has the same libraries. */
static void test_in_functions(void)
{
    static const char lib[] =
        "#!lua name=libs\n"
        "redis.register_function('libs', function(keys, args)\n"
        "  return {cmsgpack.pack(args[1], {1, 2}), struct.pack('>h', 258), cjson.encode({1}),\n"
        "          bit.band(7, 3), cmsgpack.unpack(cmsgpack.pack(args[1]))}\n"
        "end)\n";
    const char *load[] = {"FUNCTION", "LOAD", "REPLACE", lib};
    same_at(__FILE__, __LINE__, 4, load, NULL);
    const char *call[] = {"FCALL", "libs", "0", "abc"};
    same_at(__FILE__, __LINE__, 4, call, NULL);
    const char *flush[] = {"FUNCTION", "FLUSH"};
    same_at(__FILE__, __LINE__, 2, flush, NULL);
}

/* The seed: $SEED when set, else fallback (printed either way). */
static uint64_t seed_from_env(uint64_t fallback)
{
    const char *env = getenv("SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : fallback;
    printf("SEED=%llu\n", (unsigned long long)seed);
    return seed;
}

/* Values whose packed bytes are the same on both servers: maps of one key,
 * and strings short enough that 300 replies stay small. */
static const struct lua_value_shape comparable_value = {.long_string = 300, .one_key_maps = 1};

/* Everything unpack gives, as text independent of the order pairs()
 * walks a table in. */
static const char dump_src[] =
    "local function d(v)\n"
    "  if type(v) ~= 'table' then return type(v) .. ':' .. tostring(v) end\n"
    "  local o = {}\n"
    "  for k, x in pairs(v) do o[#o + 1] = d(k) .. '=' .. d(x) end\n"
    "  table.sort(o)\n"
    "  return '{' .. table.concat(o, ',') .. '}'\n"
    "end\n"
    "local r = {pcall(function() return {cmsgpack.unpack(ARGV[1])} end)}\n"
    "if not r[1] then return {'error', r[2]} end\n"
    "local o = {}\n"
    "for i = 1, table.maxn(r[2]) do o[i] = d(r[2][i]) end\n"
    "return o\n";

static void test_random(void)
{
    uint64_t rng = seed_from_env(20261205);
    for (int i = 0; i < 300; i++) {
        static char value[16384], body[17000];
        lua_random_value(&rng, value, sizeof(value), 0, &comparable_value);
        snprintf(body, sizeof(body), "return cmsgpack.pack(%s)", value);
        SAME(body);
    }
    /* Bytes drawn mostly from the type bytes, so that headers, lengths and
     * nesting come often; the rest anything. */
    static const unsigned char common[] = {
        0x00, 0x01, 0x05, 0x7f, 0x80, 0x81, 0x82, 0x90, 0x91, 0x92, 0xa0, 0xa1, 0xa2, 0xc0,
        0xc1, 0xc2, 0xc3, 0xc4, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3,
        0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff, 'a',
    };
    for (int i = 0; i < 500; i++) {
        unsigned char buf[32];
        size_t len = rng_below(&rng, sizeof(buf));
        for (size_t k = 0; k < len; k++)
            buf[k] = rng_below(&rng, 4) ? common[rng_below(&rng, sizeof(common))]
                                        : (unsigned char)rng_next(&rng);
        same_eval(__FILE__, __LINE__, dump_src, (const char *)buf, len);
    }
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (h_start(&srv, NULL) < 0)
        return h_finish();
    have_ref = h_start_comparison(&ref);
    ours = h_connect(&srv);
    theirs = have_ref ? h_connect(&ref) : NULL;
    if (ours && (!have_ref || theirs)) {
        H_RUN(test_cmsgpack);
        H_RUN(test_struct);
        H_RUN(test_cjson_and_bit);
        H_RUN(test_in_functions);
        H_RUN(test_random);
        EXPECT_STATUS(ours, "PONG", "PING");
    }
    if (ours)
        redisFree(ours);
    if (theirs)
        redisFree(theirs);
    h_stop(&srv);
    if (have_ref)
        h_stop(&ref);
    return h_finish();
}
