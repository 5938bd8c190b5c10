/*
 * fuzz_tls_handshake.c - libFuzzer target for core/tls.c's accepting side:
 * what a hostile peer can send to the tls-port before and during the
 * handshake.
 *
 * Input: byte 0 picks the mode, byte 1 seeds how the bytes are cut into reads.
 *  mode even: the rest is the peer's byte stream itself (seeds: a real
 *    ClientHello, TLSv1.2 and TLSv1.3, and plaintext RESP), fed to a server
 *    connection in reads as the connection's read path does, decrypting after
 *    each; then a reply is encrypted.
 *  mode odd: a real handshake between one of our connecting connections and
 *    an accepting one, in memory, with the rest XORed onto the client's
 *    flights, so the fuzzer reaches the states after the ClientHello.
 * Checked, aborting on a violation: tls_read never returns more than asked
 * for, a connection that failed says why and stays failed, an unmutated
 * in-memory handshake completes on both sides, and every connection frees
 * cleanly (ASan's leak check in `make fuzz`).
 *
 * The context's certificate and key are made once, in memory, by OpenSSL
 * (a self-signed P-256 certificate that is also the CA) and written to a
 * temp dir, since tls_configure reads files as the server does.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resp_writer.h"
#include "server.h"
#include "tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok)
        abort();
}

static char dir[] = "/tmp/rbkv-fuzz-tls-XXXXXX";
static char cert_path[64], key_path[64];

static void remove_files(void)
{
    unlink(cert_path);
    unlink(key_path);
    rmdir(dir);
}

static void write_pem(const char *path, EVP_PKEY *pkey, X509 *x)
{
    FILE *f = fopen(path, "w");
    check(f != NULL);
    check(x ? PEM_write_X509(f, x) : PEM_write_PrivateKey(f, pkey, NULL, NULL, 0, NULL, NULL));
    fclose(f);
}

/* A self-signed CA certificate and its key, as the server's files. */
static void make_context(void)
{
    EVP_PKEY *pkey = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    check(pkey && x && mkdtemp(dir));
    snprintf(cert_path, sizeof(cert_path), "%s/cert.pem", dir);
    snprintf(key_path, sizeof(key_path), "%s/key.pem", dir);
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, pkey);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"fuzz", -1, -1, 0);
    X509_set_issuer_name(x, name);
    X509_EXTENSION *ca = X509V3_EXT_conf_nid(NULL, NULL, NID_basic_constraints, "critical,CA:TRUE");
    check(ca != NULL);
    X509_add_ext(x, ca, -1);
    X509_EXTENSION_free(ca);
    check(X509_sign(x, pkey, EVP_sha256()) > 0);
    write_pem(cert_path, NULL, x);
    write_pem(key_path, pkey, NULL);
    X509_free(x);
    EVP_PKEY_free(pkey);

    server.cfg.tls_cert_file = cert_path;
    server.cfg.tls_key_file = key_path;
    server.cfg.tls_ca_cert_file = cert_path;
    server.cfg.tls_auth_clients = TLS_AUTH_OPTIONAL;
    server.cfg.tls_session_caching = 1;
    server.cfg.tls_session_cache_size = 64;
    server.cfg.tls_session_cache_timeout = 300;
    char err[512];
    if (tls_configure(err, sizeof(err)) < 0) {
        fprintf(stderr, "fuzz_tls_handshake: %s\n", err);
        abort();
    }
    atexit(remove_files);
}

/* Decrypts what t holds; returns -1 once t failed, else 0. */
static int drain(struct tls_conn *t)
{
    char plain[4096];
    long n;
    while ((n = tls_read(t, plain, sizeof(plain))) > 0)
        check((size_t)n <= sizeof(plain));
    return n < 0 ? -1 : 0;
}

/* Feeds bytes [p, p + n) to t in reads whose sizes come from *seed, as the
 * connection's read path does. Returns -1 once t failed. */
static int feed(struct tls_conn *t, const uint8_t *p, size_t n, unsigned *seed)
{
    while (n) {
        char *room;
        size_t cap;
        tls_read_space(t, &room, &cap);
        if (cap == 0)
            return drain(t) < 0 ? -1 : 0; /* as libuv's UV_ENOBUFS: the read path closes */
        *seed = *seed * 1103515245u + 12345u;
        size_t take = 1 + (*seed >> 16) % 2048;
        if (take > n)
            take = n;
        if (take > cap)
            take = cap;
        memcpy(room, p, take);
        tls_read_commit(t, take);
        p += take;
        n -= take;
        if (drain(t) < 0) {
            char after[64];
            check(tls_error(t)[0] != '\0');
            check(tls_read(t, after, sizeof(after)) < 0);
            return -1;
        }
    }
    return 0;
}

/* Moves from's ciphertext output into to, XORing mutation bytes onto it
 * while they last. Returns -1 once to failed. */
static int pump(struct tls_conn *from, struct tls_conn *to, const uint8_t **mut, size_t *mut_len,
                unsigned *seed)
{
    struct resp_out *wire = tls_wire(from);
    struct resp_iov iov;
    uint8_t buf[4096];
    while (resp_out_peek(wire, &iov, 1) == 1) {
        size_t n = iov.len < sizeof(buf) ? iov.len : sizeof(buf);
        memcpy(buf, iov.base, n);
        for (size_t i = 0; i < n && *mut_len; i++, (*mut_len)--)
            buf[i] ^= *(*mut)++;
        resp_out_consume(wire, n);
        if (feed(to, buf, n, seed) < 0)
            return -1;
    }
    return 0;
}

/* Encrypts a small reply on t, as conn_send does. */
static void reply(struct tls_conn *t)
{
    struct resp_out plain;
    resp_out_init(&plain);
    resp_add_simple(&plain, "PONG");
    tls_encrypt(t, &plain);
    resp_out_destroy(&plain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        make_context();
        ready = 1;
    }
    if (size < 2)
        return 0;
    unsigned seed = data[1];
    const uint8_t *rest = data + 2;
    size_t rest_len = size - 2;
    struct tls_conn *srv = tls_conn_new(1);
    check(srv != NULL);
    if (data[0] % 2 == 0) {
        if (feed(srv, rest, rest_len, &seed) == 0)
            reply(srv);
    } else {
        struct tls_conn *cli = tls_conn_new(0);
        int clean = rest_len == 0;
        check(cli != NULL);
        for (int round = 0; round < 6; round++) {
            if (pump(cli, srv, &rest, &rest_len, &seed) < 0)
                break;
            reply(srv);
            const uint8_t *none = NULL;
            size_t none_len = 0;
            if (pump(srv, cli, &none, &none_len, &seed) < 0)
                break;
            reply(cli);
        }
        /* Unmutated, our two sides must agree, so the fuzzer's deeper states
         * are real ones. */
        if (clean)
            check(tls_handshake_done(srv) && tls_handshake_done(cli));
        tls_conn_free(cli);
    }
    tls_conn_free(srv);
    return 0;
}
