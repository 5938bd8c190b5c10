/*
 * tls.c - OpenSSL under a connection, without touching its socket.
 *
 * Each connection's SSL object reads and writes through one BIO of ours
 * (bio_read, bio_write) instead of a socket: reads take the ciphertext libuv
 * put in the connection's in[] buffer, writes append ciphertext to its
 * cipher output, a resp_out, whose pending bytes never move, so a uv_write
 * in flight stays valid while the handshake or a later reply adds more. The
 * socket, the loop and the write path stay conn.c's; this file only turns
 * ciphertext into plaintext and back, and never blocks: "no bytes yet" is
 * OpenSSL's WANT_READ, and writes into memory always complete.
 *
 * The context follows Redis's tls.c (createSSLContext): the same options,
 * defaults and error texts. It is rebuilt whole on every change of a tls-
 * setting and swapped only when complete, so a bad certificate leaves the
 * previous one serving; each SSL object holds a reference to the context it
 * was made from. Outgoing links get a context of their own when a client
 * certificate is set (tls-client-cert-file), as in Redis.
 *
 * Must not know: clients, the parser, the dispatcher, libuv.
 */
#include <limits.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"
#include "tls.h"

/* One read of ciphertext: a whole TLS record and its header fit. */
#define TLS_READ_ROOM (16 * 1024 + 512)
/* Plaintext per SSL_write: one full record. */
#define TLS_RECORD 16384
/* Ciphertext encrypted ahead of the socket: beyond it, replies stay
 * plaintext in the client's output, where the output limits see them. */
#define TLS_ENCRYPT_AHEAD (64 * 1024)

#define PROTO_TLSV1 (1 << 0)
#define PROTO_TLSV1_1 (1 << 1)
#define PROTO_TLSV1_2 (1 << 2)
#define PROTO_TLSV1_3 (1 << 3)
#define PROTO_DEFAULT (PROTO_TLSV1_2 | PROTO_TLSV1_3)

struct tls_conn {
    SSL *ssl;
    struct resp_out cipher; /* ciphertext to send */
    size_t in_start, in_end; /* ciphertext read, not yet taken by OpenSSL */
    int fatal; /* OpenSSL failed: the connection may not be shut down cleanly */
    char err[160];
    char in[TLS_READ_ROOM];
};

static SSL_CTX *current_ctx;
/* Our outgoing links' context when a client certificate is set, else NULL
 * (they use current_ctx). */
static SSL_CTX *current_client_ctx;
static BIO_METHOD *bio_method;

/* ---- the BIO: ciphertext from in[], to cipher ---- */

static int bio_read(BIO *b, char *out, int len)
{
    struct tls_conn *t = BIO_get_data(b);
    size_t avail = t->in_end - t->in_start;
    BIO_clear_retry_flags(b);
    if (avail == 0) {
        BIO_set_retry_read(b); /* WANT_READ: wait for libuv's next read */
        return -1;
    }
    size_t n = avail < (size_t)len ? avail : (size_t)len;
    memcpy(out, t->in + t->in_start, n);
    t->in_start += n;
    return (int)n;
}

static int bio_write(BIO *b, const char *p, int len)
{
    struct tls_conn *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    resp_add_raw(&t->cipher, p, (size_t)len);
    return t->cipher.failed ? -1 : len;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b;
    (void)num;
    (void)ptr;
    return cmd == BIO_CTRL_FLUSH; /* writes are in memory: nothing to flush */
}

static int bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static BIO_METHOD *our_bio_method(void)
{
    if (!bio_method) {
        bio_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rbkv-conn");
        if (!bio_method)
            return NULL;
        BIO_meth_set_read(bio_method, bio_read);
        BIO_meth_set_write(bio_method, bio_write);
        BIO_meth_set_ctrl(bio_method, bio_ctrl);
        BIO_meth_set_create(bio_method, bio_create);
    }
    return bio_method;
}

/* ---- the context ---- */

/* OpenSSL's queued errors as one line (and the queue emptied). */
static void openssl_errors(char *out, size_t len)
{
    unsigned long e;
    size_t used = 0;
    out[0] = '\0';
    while ((e = ERR_get_error()) && used + 2 < len) {
        if (used)
            out[used++] = ' ';
        ERR_error_string_n(e, out + used, len - used);
        used += strlen(out + used);
    }
    if (!out[0])
        snprintf(out, len, "unknown error");
}

/* tls-protocols: Redis's words, any case; "" is TLSv1.2 and TLSv1.3.
 * Returns the PROTO_ bits, or -1. */
static int parse_protocols(const char *s)
{
    int protos = 0;
    if (!s)
        return PROTO_DEFAULT;
    while (*s) {
        size_t n = strcspn(s, " ");
        if (n == 5 && !strncasecmp(s, "tlsv1", n))
            protos |= PROTO_TLSV1;
        else if (n == 7 && !strncasecmp(s, "tlsv1.1", n))
            protos |= PROTO_TLSV1_1;
        else if (n == 7 && !strncasecmp(s, "tlsv1.2", n))
            protos |= PROTO_TLSV1_2;
        else if (n == 7 && !strncasecmp(s, "tlsv1.3", n))
            protos |= PROTO_TLSV1_3;
        else if (n)
            return -1;
        s += n;
        s += strspn(s, " ");
    }
    return protos ? protos : PROTO_DEFAULT;
}

static int key_password_cb(char *buf, int size, int rwflag, void *u)
{
    const char *pass = u;
    (void)rwflag;
    if (!pass || size <= 0)
        return 0;
    int n = snprintf(buf, (size_t)size, "%s", pass);
    return n < size ? n : size - 1;
}

static int load_dh_params(SSL_CTX *ctx, const char *path, char *err, size_t errlen)
{
    char why[256];
    BIO *bio = BIO_new_file(path, "r");
    EVP_PKEY *dh = bio ? PEM_read_bio_Parameters(bio, NULL) : NULL;
    BIO_free(bio);
    if (!dh || SSL_CTX_set0_tmp_dh_pkey(ctx, dh) <= 0) {
        openssl_errors(why, sizeof(why));
        snprintf(err, errlen, "Failed to load %s: %s", path, why);
        EVP_PKEY_free(dh);
        return -1;
    }
    return 0;
}

/* Redis's createSSLContext: what a context for either direction holds, with
 * cert_file, key_file and its passphrase (the server's or the client's). */
static SSL_CTX *build_base(int protos, const char *cert_file, const char *key_file,
                           const char *key_pass, char *err, size_t errlen)
{
    const struct config *cfg = &server.cfg;
    char why[256];

    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_method());
    if (!ctx) {
        openssl_errors(why, sizeof(why));
        snprintf(err, errlen, "Failed to create TLS context: %s", why);
        return NULL;
    }
    /* OpenSSL 3 refuses a client's renegotiation unless allowed, and always
     * uses fresh (EC)DH keys: Redis's options for those are no-ops here. */
    SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION);
    if (!(protos & PROTO_TLSV1))
        SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1);
    if (!(protos & PROTO_TLSV1_1))
        SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_1);
    if (!(protos & PROTO_TLSV1_2))
        SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_2);
    if (!(protos & PROTO_TLSV1_3))
        SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_3);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_default_passwd_cb(ctx, key_password_cb);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)key_pass);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) <= 0) {
        openssl_errors(why, sizeof(why));
        snprintf(err, errlen, "Failed to load certificate: %s: %s", cert_file, why);
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) <= 0) {
        openssl_errors(why, sizeof(why));
        snprintf(err, errlen, "Failed to load private key: %s: %s", key_file, why);
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) <= 0) {
        openssl_errors(why, sizeof(why));
        snprintf(err, errlen, "The private key %s does not match the certificate %s: %s", key_file,
                 cert_file, why);
        goto fail;
    }
    if ((cfg->tls_ca_cert_file || cfg->tls_ca_cert_dir) &&
        SSL_CTX_load_verify_locations(ctx, cfg->tls_ca_cert_file, cfg->tls_ca_cert_dir) <= 0) {
        openssl_errors(why, sizeof(why));
        snprintf(err, errlen, "Failed to configure CA certificate(s) file/directory: %s", why);
        goto fail;
    }
    if (cfg->tls_ciphers && !SSL_CTX_set_cipher_list(ctx, cfg->tls_ciphers)) {
        snprintf(err, errlen, "Failed to configure ciphers: %s", cfg->tls_ciphers);
        goto fail;
    }
    if (cfg->tls_ciphersuites && !SSL_CTX_set_ciphersuites(ctx, cfg->tls_ciphersuites)) {
        snprintf(err, errlen, "Failed to configure ciphersuites: %s", cfg->tls_ciphersuites);
        goto fail;
    }
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

/* Redis's tlsConfigure: the server's context (which also makes our outgoing
 * links unless a client certificate is set) and, when tls-client-cert-file
 * and tls-client-key-file are both set, the outgoing links' own context in
 * *client (NULL otherwise). Returns the server's context, or NULL with the
 * reason in err and nothing built. */
static SSL_CTX *build_contexts(SSL_CTX **client, char *err, size_t errlen)
{
    const struct config *cfg = &server.cfg;
    int protos = parse_protocols(cfg->tls_protocols);

    *client = NULL;
    if (protos < 0) {
        snprintf(err, errlen, "Invalid tls-protocols specified. Use a combination of 'TLSv1', "
                              "'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
        return NULL;
    }
    if (!cfg->tls_cert_file) {
        snprintf(err, errlen, "No tls-cert-file configured!");
        return NULL;
    }
    if (!cfg->tls_key_file) {
        snprintf(err, errlen, "No tls-key-file configured!");
        return NULL;
    }
    if ((cfg->tls_auth_clients != TLS_AUTH_NO || cfg->tls_replication || cfg->tls_cluster) &&
        !cfg->tls_ca_cert_file && !cfg->tls_ca_cert_dir) {
        snprintf(err, errlen, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when "
                              "tls-cluster, tls-replication or tls-auth-clients are enabled!");
        return NULL;
    }
    SSL_CTX *ctx = build_base(protos, cfg->tls_cert_file, cfg->tls_key_file,
                              cfg->tls_key_file_pass, err, errlen);
    if (!ctx)
        return NULL;
    if (cfg->tls_prefer_server_ciphers)
        SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (cfg->tls_session_caching) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_sess_set_cache_size(ctx, cfg->tls_session_cache_size);
        SSL_CTX_set_timeout(ctx, cfg->tls_session_cache_timeout);
        SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"rbkv", 4);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    if (cfg->tls_dh_params_file) {
        if (load_dh_params(ctx, cfg->tls_dh_params_file, err, errlen) < 0)
            goto fail;
    } else {
        SSL_CTX_set_dh_auto(ctx, 1);
    }
    if (cfg->tls_client_cert_file && cfg->tls_client_key_file &&
        !(*client = build_base(protos, cfg->tls_client_cert_file, cfg->tls_client_key_file,
                               cfg->tls_client_key_file_pass, err, errlen)))
        goto fail;
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

int tls_configure(char *err, size_t errlen)
{
    SSL_CTX *client;
    SSL_CTX *ctx = build_contexts(&client, err, errlen);
    if (!ctx)
        return -1;
    /* Connections made from the old ones keep their reference. */
    SSL_CTX_free(current_ctx);
    SSL_CTX_free(current_client_ctx);
    current_ctx = ctx;
    current_client_ctx = client;
    return 0;
}

int tls_configured(void)
{
    return current_ctx != NULL;
}

void tls_cleanup(void)
{
    SSL_CTX_free(current_ctx);
    current_ctx = NULL;
    SSL_CTX_free(current_client_ctx);
    current_client_ctx = NULL;
    BIO_meth_free(bio_method);
    bio_method = NULL;
}

/* ---- a connection ---- */

struct tls_conn *tls_conn_new(int accepting)
{
    BIO_METHOD *meth = our_bio_method();
    if (!current_ctx || !meth)
        return NULL;
    /* Not zeroed: its two 16 KB buffers are written before they are read,
     * and zeroing them touched every page of a connection that may only
     * ever use the first (a measurable share of a handshake's cost). */
    struct tls_conn *t = xmalloc(sizeof(*t));
    resp_out_init(&t->cipher);
    t->in_start = t->in_end = 0;
    t->fatal = 0;
    t->err[0] = '\0';
    t->ssl = SSL_new(!accepting && current_client_ctx ? current_client_ctx : current_ctx);
    BIO *bio = t->ssl ? BIO_new(meth) : NULL;
    if (!bio) {
        tls_conn_free(t);
        return NULL;
    }
    BIO_set_data(bio, t);
    SSL_set_bio(t->ssl, bio, bio); /* the SSL owns the BIO from here */
    if (accepting) {
        /* Redis's tls-auth-clients, read at accept as Redis does. */
        int mode = server.cfg.tls_auth_clients == TLS_AUTH_NO ? SSL_VERIFY_NONE
                   : server.cfg.tls_auth_clients == TLS_AUTH_OPTIONAL
                       ? SSL_VERIFY_PEER
                       : SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
        SSL_set_verify(t->ssl, mode, NULL);
        SSL_set_accept_state(t->ssl);
    } else {
        SSL_set_verify(t->ssl, SSL_VERIFY_PEER, NULL);
        SSL_set_connect_state(t->ssl);
        /* The ClientHello, into cipher for the first send. */
        ERR_clear_error();
        SSL_do_handshake(t->ssl);
    }
    return t;
}

void tls_conn_free(struct tls_conn *t)
{
    if (!t)
        return;
    SSL_free(t->ssl);
    resp_out_destroy(&t->cipher);
    xfree(t);
}

void tls_read_space(struct tls_conn *t, char **p, size_t *cap)
{
    if (t->in_start == t->in_end) {
        t->in_start = t->in_end = 0;
    } else if (t->in_start) {
        memmove(t->in, t->in + t->in_start, t->in_end - t->in_start);
        t->in_end -= t->in_start;
        t->in_start = 0;
    }
    *p = t->in + t->in_end;
    *cap = sizeof(t->in) - t->in_end;
}

void tls_read_commit(struct tls_conn *t, size_t n)
{
    t->in_end += n;
}

/* SSL_get_error reads the thread's error queue, so a stale error would turn
 * a WANT_READ into a failure: the queue must be empty before each call.
 * ERR_clear_error wipes all sixteen slots every time (about 1,100
 * instructions, twice per request); looking first costs less than half
 * that, and the queue is almost always empty. */
static void clear_stale_errors(void)
{
    if (ERR_peek_error())
        ERR_clear_error();
}

/* Records why the last call on t->ssl failed (ret its return value). */
static void note_error(struct tls_conn *t, int ret)
{
    char why[128];
    int e = SSL_get_error(t->ssl, ret);
    if (e == SSL_ERROR_ZERO_RETURN) {
        snprintf(t->err, sizeof(t->err), "closed by the peer");
        return;
    }
    t->fatal = 1;
    openssl_errors(why, sizeof(why));
    long verify = SSL_get_verify_result(t->ssl);
    if (verify != X509_V_OK)
        snprintf(t->err, sizeof(t->err), "%s (%s)", why, X509_verify_cert_error_string(verify));
    else
        snprintf(t->err, sizeof(t->err), "%s", why);
}

long tls_read(struct tls_conn *t, char *buf, size_t cap)
{
    /* OpenSSL takes from the BIO only the record it is reading (no read
     * ahead), so with every byte handed over and no plaintext left over it
     * has nothing to decrypt: spare the call that would only say WANT_READ,
     * the last of every read's loop. */
    if (t->in_start == t->in_end && SSL_is_init_finished(t->ssl) && !SSL_pending(t->ssl))
        return t->cipher.failed ? -1 : 0;
    clear_stale_errors();
    int r = SSL_read(t->ssl, buf, cap > INT_MAX ? INT_MAX : (int)cap);
    if (r > 0)
        return r;
    if (SSL_get_error(t->ssl, r) == SSL_ERROR_WANT_READ)
        return t->cipher.failed ? -1 : 0;
    note_error(t, r);
    return -1;
}

int tls_read_all(struct tls_conn *t, size_t nread, tls_room_fn *room, void *ctx)
{
    tls_read_commit(t, nread);
    long n = 0;
    for (;;) {
        char *p;
        size_t cap;
        if (room(ctx, (size_t)n, &p, &cap))
            return 1;
        n = tls_read(t, p, cap);
        if (n <= 0)
            return n < 0 ? -1 : 0;
    }
}

int tls_fixed_room(void *ctx, size_t n, char **p, size_t *cap)
{
    struct tls_fixed_room *r = ctx;
    r->len += n;
    if (r->len == r->cap)
        return 1;
    *p = r->buf + r->len;
    *cap = r->cap - r->len;
    return 0;
}

/* tls_room_fn over a struct tls_input (ctx): it grows to twice its size,
 * or more when that leaves less than chunk bytes free. */
static int input_room(void *ctx, size_t n, char **p, size_t *cap)
{
    struct tls_input *in = ctx;
    in->len += n;
    if (in->cap - in->len < in->chunk) {
        in->cap = in->len + in->chunk > 2 * in->cap ? in->len + in->chunk : 2 * in->cap;
        in->buf = xrealloc(in->buf, in->cap);
    }
    *p = in->buf + in->len;
    *cap = in->cap - in->len;
    return 0;
}

void tls_input_space(struct tls_conn *t, struct tls_input *in, char **p, size_t *cap)
{
    if (t)
        tls_read_space(t, p, cap);
    else
        input_room(in, 0, p, cap);
}

int tls_input_take(struct tls_conn *t, struct tls_input *in, size_t nread)
{
    if (!t) {
        in->len += nread;
        return 0;
    }
    return tls_read_all(t, nread, input_room, in) < 0 ? -1 : 0;
}

int tls_encrypt(struct tls_conn *t, struct resp_out *plain)
{
    if (!SSL_is_init_finished(t->ssl))
        return 0;
    while (resp_out_pending(plain) && resp_out_pending(&t->cipher) < TLS_ENCRYPT_AHEAD) {
        struct resp_iov iov;
        if (resp_out_peek(plain, &iov, 1) < 1)
            break;
        size_t len = iov.len < TLS_RECORD ? iov.len : TLS_RECORD;
        clear_stale_errors();
        int w = SSL_write(t->ssl, iov.base, (int)len);
        if (w <= 0) {
            note_error(t, w);
            return -1;
        }
        resp_out_consume(plain, (size_t)w);
    }
    return t->cipher.failed ? -1 : 0;
}

int tls_close_notify(struct tls_conn *t)
{
    /* OpenSSL forbids SSL_shutdown after a fatal error, and before the
     * handshake's end there is no session to close. */
    if (t->fatal || !SSL_is_init_finished(t->ssl))
        return -1;
    ERR_clear_error();
    /* 0: sent, the peer's close_notify not seen (we do not wait for it); 1:
     * the peer had closed first. Either way the alert is in cipher. */
    if (SSL_shutdown(t->ssl) < 0) {
        ERR_clear_error();
        return -1;
    }
    return t->cipher.failed ? -1 : 0;
}

struct resp_out *tls_wire(struct tls_conn *t)
{
    return &t->cipher;
}

int tls_handshake_done(const struct tls_conn *t)
{
    return SSL_is_init_finished(t->ssl);
}

const char *tls_error(const struct tls_conn *t)
{
    return t->err;
}

size_t tls_conn_memory(const struct tls_conn *t)
{
    return xsize((void *)t) + t->cipher.chunk_bytes;
}
