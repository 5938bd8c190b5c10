/*
 * keyspec.c - Redis 7's key specs: the keys of a request and their flags.
 *
 * Owns the index from each command (by command_index) to its specs: the
 * registered table's entry (a subcommand's under its row's "container|sub"
 * name), or one spec drawn from the row, made on first use and kept. Knows no
 * command by name: movable-key rules are data in the registered table, and
 * the only code that walks them is keyspec_visit.
 *
 * Invariant: keyspec_visit never reads past argv[argc - 1], whatever counts
 * the request holds; a bad count is the command's to refuse, not ours.
 */
#include "keyspec.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "resp_num.h"
#include "resp_parser.h"

struct command_slot {
    const struct command_key_specs *own; /* the table's entry, or NULL */
    struct command_key_specs drawn;      /* from the row; name NULL until made */
};

/* Well over the ~240 commands; static like the dispatcher's own indexes,
 * so a server (or a unit test) that starts again allocates nothing. */
#define MAX_COMMANDS 512

static const struct command_key_specs *table;
static struct command_slot slots[MAX_COMMANDS]; /* by command_index */

void keyspec_register(const struct command_key_specs *t)
{
    table = t;
}

static struct command_slot *slot_of_name(const char *name, size_t len)
{
    const struct command *cmd = command_lookup_builtin(name, len);
    return cmd ? &slots[command_index(cmd)] : NULL;
}

const char *keyspec_unknown(const struct command_key_specs *t)
{
    for (const struct command_key_specs *e = t; e && e->name; e++) {
        if (!command_lookup_builtin(e->name, strlen(e->name)))
            return e->name;
    }
    return NULL;
}

void keyspec_table_init(void)
{
    if (command_builtin_count() > MAX_COMMANDS) {
        fprintf(stderr, "rbkv: more than %d commands for the key specs\n", MAX_COMMANDS);
        abort();
    }
    /* A row for no command would leave that command's real keys to specs
     * drawn from its row, unnoticed: the ACL would check the wrong keys. */
    const char *bad = keyspec_unknown(table);
    if (bad) {
        fprintf(stderr, "rbkv: the key specs table has a row for '%s', which is no command\n",
                bad);
        abort();
    }
    memset(slots, 0, sizeof(slots));
    for (const struct command_key_specs *e = table; e && e->name; e++)
        slot_of_name(e->name, strlen(e->name))->own = e;
}

/* One spec from first_key/last_key/key_step, the way most rows read. */
static void draw_specs(const struct command *cmd, struct command_key_specs *d)
{
    d->name = cmd->name;
    if (cmd->first_key <= 0)
        return;
    d->count = 1;
    d->specs[0] = (struct key_spec){
        .flags = cmd->flags & CMD_WRITE ? KEY_RW | KEY_ACCESS | KEY_UPDATE : KEY_RO | KEY_ACCESS,
        .index = cmd->first_key,
        .lastkey = cmd->last_key >= 0 ? cmd->last_key - cmd->first_key : cmd->last_key,
        .keystep = cmd->key_step,
    };
}

const struct command_key_specs *keyspec_of(const struct command *cmd)
{
    struct command_slot *s = &slots[command_index(cmd)];
    if (s->own)
        return s->own;
    if (!s->drawn.name)
        draw_specs(cmd, &s->drawn);
    return s->drawn.count ? &s->drawn : NULL;
}

int keyspec_has_keys(const struct command_key_specs *specs)
{
    for (int j = 0; specs && j < specs->count; j++) {
        if (!(specs->specs[j].flags & KEY_NOT_KEY))
            return 1;
    }
    return 0;
}

/* The keys one spec names in a request: first..last every step; first 0
 * for none. */
struct span {
    int first, last, step;
};

/* Redis's search: from index towards the far end, which it never reaches
 * (the last argument going forwards, the first one backwards). */
static int keyword_first(const struct key_spec *k, int argc, const struct resp_slice *argv)
{
    size_t klen = strlen(k->keyword);
    int start = k->index > 0 ? k->index : argc + k->index;
    int end = k->index > 0 ? argc - 1 : 1;
    for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1)
            break;
        if (argv[i].len == klen && strncasecmp(argv[i].ptr, k->keyword, klen) == 0)
            return i + 1;
    }
    return 0;
}

/* Fills sp for spec k (first 0 when its keyword is missing); -1 when the
 * spec is invalid for this request, as Redis's getKeysUsingKeySpecs finds
 * it: a count that is no number, or keys outside the request. */
static int spec_span(const struct key_spec *k, int argc, const struct resp_slice *argv,
                     struct span *sp)
{
    int first = k->keyword ? keyword_first(k, argc, argv) : k->index;
    long long last;
    sp->first = 0;
    if (!first)
        return 0;
    if (!k->keynum) {
        sp->step = k->keystep;
        if (k->lastkey >= 0)
            last = (long long)first + k->lastkey;
        else if (!k->limit)
            last = (long long)argc + k->lastkey;
        else
            last = first + ((argc - first) / k->limit + k->lastkey);
    } else {
        long long n;
        int at = first + k->keynumidx;
        sp->step = k->keystep;
        if (at >= argc || resp_parse_ll(argv[at].ptr, argv[at].len, &n) < 0 || n < 0)
            return -1;
        first += k->firstkey;
        /* Redis adds the count as an int: 2^32 + 1 counts one key. */
        last = (long long)first + (int32_t)(uint32_t)n - 1;
    }
    if (last >= argc || last < first || first >= argc || sp->step <= 0)
        return -1;
    sp->first = first;
    sp->last = (int)last;
    return 0;
}

/* C's atoi, which Redis's older key finders use on a count: leading space,
 * a sign, digits; strtol's saturation, then the int conversion (low 32
 * bits), as glibc does. */
static int atoi_slice(const struct resp_slice *a)
{
    size_t i = 0;
    int neg = 0;
    unsigned long long v = 0;
    while (i < a->len && isspace((unsigned char)a->ptr[i]))
        i++;
    if (i < a->len && (a->ptr[i] == '-' || a->ptr[i] == '+'))
        neg = a->ptr[i++] == '-';
    for (; i < a->len && a->ptr[i] >= '0' && a->ptr[i] <= '9'; i++) {
        v = v * 10 + (unsigned)(a->ptr[i] - '0');
        if (v > (unsigned long long)LONG_MAX + 1)
            v = (unsigned long long)LONG_MAX + 1;
    }
    long l = neg ? (v > (unsigned long long)LONG_MAX ? LONG_MIN : -(long)v)
                 : (v > (unsigned long long)LONG_MAX ? LONG_MAX : (long)v);
    return (int32_t)(uint32_t)l;
}

/* Redis's fallback when a spec is invalid (its commands' getkeys_proc):
 * the counted keys, from an atoi count between 1 and what the request
 * holds, then the keys at fixed positions (a destination), without flags;
 * a range's fallback finds none. */
static int visit_fallback(const struct command_key_specs *specs, int argc,
                          const struct resp_slice *argv, key_visit_fn *visit, void *ctx)
{
    const struct key_spec *counted = NULL;
    for (int j = 0; j < specs->count; j++) {
        if (specs->specs[j].keynum && !specs->specs[j].keyword)
            counted = &specs->specs[j];
    }
    if (!counted || counted->index + counted->keynumidx >= argc)
        return 0;
    int first = counted->index + counted->firstkey, step = counted->keystep;
    int n = atoi_slice(&argv[counted->index + counted->keynumidx]);
    if (n < 1 || step <= 0 || n > (argc - first) / step)
        return 0;
    int seen = 0;
    for (int i = 0; i < n; i++) {
        seen++;
        if (visit(ctx, first + i * step, 0))
            return seen;
    }
    for (int j = 0; j < specs->count; j++) {
        const struct key_spec *k = &specs->specs[j];
        if (k == counted || k->keynum || k->keyword || (k->flags & KEY_NOT_KEY))
            continue;
        for (int i = k->index; i <= k->index + k->lastkey && i < argc; i += k->keystep) {
            seen++;
            if (visit(ctx, i, 0))
                return seen;
        }
    }
    return seen;
}

/* spec_span's answer for this shape: first = last = index, step > 0, all
 * inside the request. */
int keyspec_single_key(const struct command_key_specs *specs, int argc)
{
    const struct key_spec *k = &specs->specs[0];
    if (specs->count == 1 && !specs->keys_for && !k->keyword && !k->keynum && k->lastkey == 0 &&
        k->keystep > 0 && k->index > 0 && k->index < argc && !(k->flags & KEY_NOT_KEY))
        return k->index;
    return 0;
}

int keyspec_visit(const struct command_key_specs *specs, int argc, const struct resp_slice *argv,
                  key_visit_fn *visit, void *ctx)
{
    struct span spans[KEY_SPECS_MAX];
    if (!specs)
        return 0;
    /* An unknown spec makes Redis's walk invalid, and it asks the
     * command's own key finder instead. */
    if (specs->keys_for)
        return specs->keys_for(argc, argv, visit, ctx);
    /* The commonest shape, which cluster mode walks for every request:
     * what the spans below would find, without them. */
    int at = keyspec_single_key(specs, argc);
    if (at) {
        visit(ctx, at, specs->flags_for ? specs->flags_for(argc, argv) : specs->specs[0].flags);
        return 1;
    }
    for (int j = 0; j < specs->count; j++) {
        spans[j].first = 0;
        if (specs->specs[j].flags & KEY_NOT_KEY)
            continue;
        if (spec_span(&specs->specs[j], argc, argv, &spans[j]) < 0)
            return visit_fallback(specs, argc, argv, visit, ctx);
    }
    unsigned narrowed = specs->flags_for ? specs->flags_for(argc, argv) : 0;
    int seen = 0;
    for (int j = 0; j < specs->count; j++) {
        const struct span *sp = &spans[j];
        unsigned flags = specs->flags_for ? narrowed : specs->specs[j].flags;
        for (int i = sp->first; sp->first && i <= sp->last; i += sp->step) {
            seen++;
            if (visit(ctx, i, flags))
                return seen;
        }
    }
    return seen;
}
