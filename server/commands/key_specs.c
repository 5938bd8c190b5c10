/*
 * key_specs.c - the key specs of the commands whose keys one spec drawn from
 * their row's first_key/last_key/key_step does not describe (keyspec.h),
 * and of the containers' subcommands that name keys.
 *
 * The rows are Redis 7.0.15's, as its COMMAND INFO gives them, down to the
 * notes: the ACL check reads the flags (ACCESS needs read permission;
 * INSERT, DELETE and UPDATE need write), so a row that differs from Redis's
 * would allow or refuse what Redis does not. test_keyspec compares every
 * command's specs and keys with redis-server's. rbkv's own commands close
 * the table. Owns nothing at run time: the table is const and registered
 * once (commands_register).
 */
#include "key_specs.h"

#include "args.h"

/* A range: index, lastkey (relative to index, or negative from the end)
 * and keystep. */
#define RANGE(index_, last_, step_) .index = (index_), .lastkey = (last_), .keystep = (step_)
/* numkeys at index, then that many keys. */
#define COUNTED(index_) .index = (index_), .keynum = 1, .firstkey = 1, .keystep = 1

#define NOTE_BITFIELD "This command allows both access and modification of the key"
#define NOTE_SCRIPT_RW                                                                    \
    "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE"
#define NOTE_SCRIPT_RO                                                                    \
    "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"
#define NOTE_TTL "RW and UPDATE because it changes the TTL"
#define NOTE_SET_GET "RW and ACCESS due to the optional `GET` argument"
#define NOTE_PFCOUNT                                                                      \
    "RW because it may change the internal representation of the key, and propagate to replicas"
#define NOTE_SORT_PATTERNS                                                                \
    "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive "   \
    "from the content of the key we sort"
#define NOTE_SORT_STORE                                                                   \
    "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear " \
    "anywhere in the argument array"
#define NOTE_XADD_TRIM "UPDATE instead of INSERT because of the optional trimming feature"

/* SET reads its key only with GET (Redis's setGetKeys: any argument from
 * the fourth on). */
static unsigned set_key_flags(int argc, const struct resp_slice *argv)
{
    for (int i = 3; i < argc; i++) {
        if (arg_is(&argv[i], "GET"))
            return KEY_RW | KEY_ACCESS | KEY_UPDATE;
    }
    return KEY_OW | KEY_UPDATE;
}

/* BITFIELD only reads when each operation is a whole GET or OVERFLOW; SET,
 * INCRBY or anything unparsed may write (Redis's bitfieldGetKeys). */
static unsigned bitfield_key_flags(int argc, const struct resp_slice *argv)
{
    for (int i = 2; i < argc; i++) {
        int rest = argc - i - 1;
        if (arg_is(&argv[i], "GET") && rest >= 2)
            i += 2;
        else if (arg_is(&argv[i], "OVERFLOW") && rest >= 1)
            i += 1;
        else
            return KEY_RW | KEY_ACCESS | KEY_UPDATE;
    }
    return KEY_RO | KEY_ACCESS;
}

/* Redis's migrateGetKeys: the key at 3, or with KEYS every argument after
 * the first KEYS from the seventh on, as the flags of the specs say; KEYS
 * after a non-empty key names no key (the command refuses it). */
static int migrate_keys(int argc, const struct resp_slice *argv, key_visit_fn *visit, void *ctx)
{
    const unsigned flags = KEY_RW | KEY_ACCESS | KEY_DELETE;
    int first = 3, last = 3;
    for (int i = 6; i < argc; i++) {
        if (arg_is(&argv[i], "KEYS")) {
            if (argv[3].len)
                return 0;
            first = i + 1;
            last = argc - 1;
            break;
        }
    }
    int seen = 0;
    for (int i = first; i <= last; i++) {
        seen++;
        if (visit(ctx, i, flags))
            break;
    }
    return seen;
}

/* Redis's sortGetKeys: the key sorted, then the last STORE's destination.
 * Options are skipped by what they take (LIMIT two, GET and BY one, any
 * other word none), so a STORE read as a GET's pattern is no keyword. */
static int sort_keys(int argc, const struct resp_slice *argv, key_visit_fn *visit, void *ctx)
{
    int store = 0;
    for (int i = 2; i < argc; i++) {
        if (arg_is(&argv[i], "LIMIT"))
            i += 2;
        else if (arg_is(&argv[i], "GET") || arg_is(&argv[i], "BY"))
            i += 1;
        else if (arg_is(&argv[i], "STORE") && i + 1 < argc)
            store = i + 1;
    }
    if (visit(ctx, 1, KEY_RO | KEY_ACCESS) || !store)
        return 1;
    visit(ctx, store, KEY_OW | KEY_UPDATE);
    return 2;
}

/* Redis's sortROGetKeys: the key sorted alone. */
static int sort_ro_keys(int argc, const struct resp_slice *argv, key_visit_fn *visit, void *ctx)
{
    (void)argc;
    (void)argv;
    visit(ctx, 1, KEY_RO | KEY_ACCESS);
    return 1;
}

const struct command_key_specs command_key_specs[] = {
    {.name = "append", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "bitfield", .count = 1, .flags_for = bitfield_key_flags,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_UPDATE | KEY_VARIABLE_FLAGS, RANGE(1, 0, 1),
                .notes = NOTE_BITFIELD}}},
    {.name = "bitop", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(2, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(3, -1, 1)}}},
    {.name = "blmove", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "blmpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, COUNTED(2)}}},
    {.name = "blpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, -2, 1)}}},
    {.name = "brpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, -2, 1)}}},
    {.name = "brpoplpush", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "bzmpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, COUNTED(2)}}},
    {.name = "bzpopmax", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, -2, 1)}}},
    {.name = "bzpopmin", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, -2, 1)}}},
    {.name = "copy", .count = 2,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)},
               {.flags = KEY_OW | KEY_UPDATE, RANGE(2, 0, 1)}}},
    {.name = "del", .count = 1,
     .specs = {{.flags = KEY_RM | KEY_DELETE, RANGE(1, -1, 1)}}},
    {.name = "dump", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)}}},
    {.name = "eval", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_UPDATE, .notes = NOTE_SCRIPT_RW, COUNTED(2)}}},
    {.name = "eval_ro", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, .notes = NOTE_SCRIPT_RO, COUNTED(2)}}},
    {.name = "evalsha", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_UPDATE, COUNTED(2)}}},
    {.name = "evalsha_ro", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, COUNTED(2)}}},
    {.name = "exists", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, -1, 1)}}},
    {.name = "expire", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "expireat", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "fcall", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_UPDATE, .notes = NOTE_SCRIPT_RW, COUNTED(2)}}},
    {.name = "fcall_ro", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, .notes = NOTE_SCRIPT_RO, COUNTED(2)}}},
    {.name = "geoadd", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "georadius", .count = 3,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)},
               {.flags = KEY_OW | KEY_UPDATE,
                .keyword = "STORE", .index = 6, .lastkey = 0, .keystep = 1},
               {.flags = KEY_OW | KEY_UPDATE,
                .keyword = "STOREDIST", .index = 6, .lastkey = 0, .keystep = 1}}},
    {.name = "georadiusbymember", .count = 3,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)},
               {.flags = KEY_OW | KEY_UPDATE,
                .keyword = "STORE", .index = 5, .lastkey = 0, .keystep = 1},
               {.flags = KEY_OW | KEY_UPDATE,
                .keyword = "STOREDIST", .index = 5, .lastkey = 0, .keystep = 1}}},
    {.name = "geosearchstore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(2, 0, 1)}}},
    {.name = "getdel", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "getex", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_UPDATE, .notes = NOTE_TTL, RANGE(1, 0, 1)}}},
    {.name = "hdel", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "hexists", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "hlen", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "hmset", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "hset", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "hsetnx", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "hstrlen", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "linsert", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "llen", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "lmove", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "lmpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, COUNTED(1)}}},
    {.name = "lpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "lpush", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "lpushx", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "lrem", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "lset", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "ltrim", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "memory|usage", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(2, 0, 1)}}},
    {.name = "migrate", .count = 2, .keys_for = migrate_keys,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(3, 0, 1)},
               {.flags = KEY_RW | KEY_ACCESS | KEY_DELETE | KEY_INCOMPLETE, .keyword = "KEYS",
                .index = -2, .lastkey = -1, .keystep = 1}}},
    {.name = "mset", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, -1, 2)}}},
    {.name = "msetnx", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_INSERT, RANGE(1, -1, 2)}}},
    {.name = "object|encoding", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(2, 0, 1)}}},
    {.name = "object|freq", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(2, 0, 1)}}},
    {.name = "object|idletime", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(2, 0, 1)}}},
    {.name = "object|refcount", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(2, 0, 1)}}},
    {.name = "persist", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "pexpire", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "pexpireat", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "pfadd", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "pfcount", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS, RANGE(1, -1, 1), .notes = NOTE_PFCOUNT}}},
    {.name = "pfdebug", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS, RANGE(2, 0, 1)}}},
    {.name = "pfmerge", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_INSERT, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(2, -1, 1)}}},
    {.name = "psetex", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "rename", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_OW | KEY_UPDATE, RANGE(2, 0, 1)}}},
    {.name = "renamenx", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_OW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "restore", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "restore-asking", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "rpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "rpoplpush", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "rpush", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "rpushx", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "sadd", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "scard", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "sdiffstore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(2, -1, 1)}}},
    {.name = "set", .count = 1, .flags_for = set_key_flags,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_UPDATE | KEY_VARIABLE_FLAGS, RANGE(1, 0, 1),
                .notes = NOTE_SET_GET}}},
    {.name = "setex", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "setnx", .count = 1,
     .specs = {{.flags = KEY_OW | KEY_INSERT, RANGE(1, 0, 1)}}},
    {.name = "setrange", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "sintercard", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, COUNTED(1)}}},
    {.name = "sinterstore", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(2, -1, 1)}}},
    {.name = "sismember", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "smove", .count = 2,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)},
               {.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "sort", .count = 3, .keys_for = sort_keys,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, .unknown = 1, .notes = NOTE_SORT_PATTERNS},
               {.flags = KEY_OW | KEY_UPDATE, .unknown = 1, .notes = NOTE_SORT_STORE}}},
    {.name = "sort_ro", .count = 2, .keys_for = sort_ro_keys,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, .unknown = 1, .notes = NOTE_SORT_PATTERNS}}},
    {.name = "spop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "spublish", .count = 1,
     .specs = {{.flags = KEY_NOT_KEY, RANGE(1, 0, 1)}}},
    {.name = "srem", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "ssubscribe", .count = 1,
     .specs = {{.flags = KEY_NOT_KEY, RANGE(1, -1, 1)}}},
    {.name = "strlen", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "sunionstore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(2, -1, 1)}}},
    {.name = "sunsubscribe", .count = 1,
     .specs = {{.flags = KEY_NOT_KEY, RANGE(1, -1, 1)}}},
    {.name = "touch", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, -1, 1)}}},
    {.name = "type", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "unlink", .count = 1,
     .specs = {{.flags = KEY_RM | KEY_DELETE, RANGE(1, -1, 1)}}},
    {.name = "watch", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, -1, 1)}}},
    {.name = "xack", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "xadd", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, .notes = NOTE_XADD_TRIM, RANGE(1, 0, 1)}}},
    {.name = "xautoclaim", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "xclaim", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "xdel", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "xgroup|create", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "xgroup|createconsumer", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_INSERT, RANGE(2, 0, 1)}}},
    {.name = "xgroup|delconsumer", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(2, 0, 1)}}},
    {.name = "xgroup|destroy", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(2, 0, 1)}}},
    {.name = "xgroup|setid", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(2, 0, 1)}}},
    {.name = "xinfo|consumers", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(2, 0, 1)}}},
    {.name = "xinfo|groups", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(2, 0, 1)}}},
    {.name = "xinfo|stream", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(2, 0, 1)}}},
    {.name = "xlen", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "xpending", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, RANGE(1, 0, 1)}}},
    {.name = "xread", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS,
                .keyword = "STREAMS", .index = 1, .lastkey = -1, .keystep = 1, .limit = 2}}},
    {.name = "xreadgroup", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS,
                .keyword = "STREAMS", .index = 4, .lastkey = -1, .keystep = 1, .limit = 2}}},
    {.name = "xsetid", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "xtrim", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zadd", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_UPDATE, RANGE(1, 0, 1)}}},
    {.name = "zcard", .count = 1,
     .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "zdiff", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, COUNTED(1)}}},
    {.name = "zdiffstore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, COUNTED(2)}}},
    {.name = "zinter", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, COUNTED(1)}}},
    {.name = "zintercard", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, COUNTED(1)}}},
    {.name = "zinterstore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, COUNTED(2)}}},
    {.name = "zmpop", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, COUNTED(1)}}},
    {.name = "zpopmax", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zpopmin", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_ACCESS | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zrangestore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, RANGE(2, 0, 1)}}},
    {.name = "zrem", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zremrangebylex", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zremrangebyrank", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zremrangebyscore", .count = 1,
     .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "zunion", .count = 1,
     .specs = {{.flags = KEY_RO | KEY_ACCESS, COUNTED(1)}}},
    {.name = "zunionstore", .count = 2,
     .specs = {{.flags = KEY_OW | KEY_UPDATE, RANGE(1, 0, 1)},
               {.flags = KEY_RO | KEY_ACCESS, COUNTED(2)}}},
    /* rbkv's own: KRANK's key is a position in key order, its value unread
     * (as EXISTS); HDELRANGE removes fields without returning them. */
    {.name = "hdelrange", .count = 1, .specs = {{.flags = KEY_RW | KEY_DELETE, RANGE(1, 0, 1)}}},
    {.name = "krank", .count = 1, .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {.name = "krevrank", .count = 1, .specs = {{.flags = KEY_RO, RANGE(1, 0, 1)}}},
    {0},
};
