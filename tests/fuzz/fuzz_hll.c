/*
 * fuzz_hll.c - libFuzzer target for HyperLogLog values: arbitrary bytes set
 * as a string and put through every HLL command (PFCOUNT of one and of
 * several keys, PFADD, PFMERGE, PFDEBUG's four subcommands), in-process
 * against the real server state (harness.h), under a sparse limit the input
 * picks.
 *
 * Input: [limit][n][n elements of 2 bytes][value]. limit picks
 * hll-sparse-max-bytes among a few (0 turns every sparse write dense; the
 * largest keeps values sparse far past the default); the elements are what
 * PFADD adds (two bytes reach every register with most run lengths); the
 * value is set as keys "a" and "b". The seed corpus holds real sparse and
 * dense values that redis-server 7.0.15 made, with bytes changed, so the
 * fuzzer starts from the shapes that matter.
 *
 * Checked, aborting on a violation: what the sanitizers see (no read or
 * write outside a value, whatever its opcodes say), the keyspace's
 * invariants after every command, no failed reply buffer, and that the
 * merge's destination "c", made only from values PFMERGE accepted, is a
 * valid HLL whose opcodes cover exactly its registers. After the input the
 * databases are flushed, so LeakSanitizer sees every leak.
 *
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "harness.h"
#include "hll.h"
#include "keyspace.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

#define MAX_ELEMENTS 16
#define ELEMENT_BYTES 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(struct client *c, int argc, struct resp_slice *argv)
{
    c->argc = argc;
    c->argv = argv;
    harness_execute(c);
    c->argc = 0;
    c->argv = NULL;
    if (c->out.failed)
        abort();
    resp_out_reset(&c->out);
    harness_check_keyspace(server.ks);
}

#define S(lit) ((struct resp_slice){(lit), sizeof(lit) - 1})
#define RUN(c, ...)                                                                             \
    run((c), (int)(sizeof((struct resp_slice[]){__VA_ARGS__}) / sizeof(struct resp_slice)),    \
        (struct resp_slice[]){__VA_ARGS__})

/* "c" exists only when a PFMERGE succeeded: it must be a sound HLL. */
static void check_merged(void)
{
    struct db *db = &server.ks->dbs[0];
    struct ks_entry *e = ks_find(db, "c", 1);
    uint64_t card;
    if (!e)
        return;
    const unsigned char *s = (const unsigned char *)ks_str(e);
    if (e->type != KS_STRING || !hll_is_valid(s, ks_slen(e)) || hll_count(s, ks_slen(e), &card) < 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned long long limits[] = {0, 16, 40, 300, 3000, 20000};
    if (size < 2)
        return 0;
    harness_init();
    unsigned long long saved = server.cfg.hll_sparse_max_bytes;
    server.cfg.hll_sparse_max_bytes = limits[data[0] % (sizeof(limits) / sizeof(limits[0]))];
    size_t n = data[1] % (MAX_ELEMENTS + 1);
    if (size < 2 + n * ELEMENT_BYTES)
        n = (size - 2) / ELEMENT_BYTES;
    const char *elements = (const char *)data + 2;
    struct resp_slice value = {elements + n * ELEMENT_BYTES, size - 2 - n * ELEMENT_BYTES};

    struct resp_slice add[2 + MAX_ELEMENTS] = {S("PFADD"), S("a")};
    for (size_t i = 0; i < n; i++)
        add[2 + i] = (struct resp_slice){elements + i * ELEMENT_BYTES, ELEMENT_BYTES};

    struct client *c = harness_client_new();
    RUN(c, S("SET"), S("a"), value);
    RUN(c, S("SET"), S("b"), value);
    RUN(c, S("PFDEBUG"), S("DECODE"), S("a"));
    RUN(c, S("PFDEBUG"), S("ENCODING"), S("a"));
    RUN(c, S("PFCOUNT"), S("a"), S("b"));
    RUN(c, S("PFCOUNT"), S("a"));
    run(c, 2 + (int)n, add);
    RUN(c, S("PFCOUNT"), S("a"));
    RUN(c, S("PFDEBUG"), S("DECODE"), S("a"));
    RUN(c, S("PFMERGE"), S("c"), S("a"), S("b"));
    check_merged();
    RUN(c, S("PFDEBUG"), S("GETREG"), S("b"));
    RUN(c, S("PFDEBUG"), S("TODENSE"), S("b"));
    add[1] = S("b");
    run(c, 2 + (int)n, add);
    RUN(c, S("PFMERGE"), S("c"), S("b"));
    check_merged();
    add[1] = S("c");
    run(c, 2 + (int)n, add);
    check_merged();
    RUN(c, S("PFCOUNT"), S("c"), S("a"), S("b"));
    harness_client_free(c);
    harness_reset();
    server.cfg.hll_sparse_max_bytes = saved;
    return 0;
}
