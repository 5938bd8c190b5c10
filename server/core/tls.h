/*
 * tls.h - TLS under a connection (tls.c): OpenSSL over a BIO of our own, so
 * libuv keeps owning the socket and conn.c keeps one request and reply path.
 *
 * Ciphertext read by libuv goes into tls_read_space(); tls_read() decrypts
 * it (driving the handshake on the way) into the caller's plaintext buffer.
 * Replies are encrypted by tls_encrypt() from the connection's plaintext
 * output into the ciphertext output it returns, which the connection writes
 * exactly as it writes a plaintext client's output.
 *
 * Ownership: the server's one context (built from server.cfg's tls- settings
 * by tls_configure) is owned here; each connection owns its struct tls_conn,
 * which holds a reference to the context it was made from, so a reload never
 * changes a connection's certificate under it.
 */
#ifndef RBKV_TLS_H
#define RBKV_TLS_H

#include <stddef.h>

struct resp_out;
struct tls_conn;

/* Builds a context from server.cfg (certificate, key, CAs, protocols,
 * ciphers...) and, when it is complete, makes it the one new connections get;
 * the old one lives on in the connections made from it. Returns 0, or -1 with
 * the reason in err (the current context is kept). */
int tls_configure(char *err, size_t errlen);
/* Whether a context is configured (tls-port or tls-replication needs one). */
int tls_configured(void);
/* Frees the current context (at exit). */
void tls_cleanup(void);

/* A connection's TLS state from the current context: accepting (a client's
 * connection to our tls-port) or connecting (our link to a primary, which
 * shows tls-client-cert-file instead when that is configured). NULL
 * when out of memory or when no context is configured. Free with
 * tls_conn_free; tls_conn_free(NULL) does nothing. */
struct tls_conn *tls_conn_new(int accepting);
void tls_conn_free(struct tls_conn *t);

/* Where libuv may put the next ciphertext it reads. */
void tls_read_space(struct tls_conn *t, char **p, size_t *cap);
/* Records n bytes of ciphertext read into tls_read_space's room. */
void tls_read_commit(struct tls_conn *t, size_t n);
/* Decrypts what was read into buf[0, cap): returns the plaintext bytes (> 0),
 * 0 when more ciphertext is needed, -1 when the connection must close (a
 * failed handshake, a bad record, the peer's close: tls_error says which). */
long tls_read(struct tls_conn *t, char *buf, size_t cap);

/* Where tls_read_all puts plaintext: the caller's buffer. Told the n bytes
 * the last room it gave received (0 on the first call), sets *p and *cap
 * to the next room (cap > 0). Returns 0, or nonzero to stop (the buffer is
 * full, or cannot grow). */
typedef int tls_room_fn(void *ctx, size_t n, char **p, size_t *cap);
/* The read loop every TLS link runs after a read: records nread bytes of
 * ciphertext read into tls_read_space's room (0: nothing new), then
 * decrypts all the plaintext they complete into the rooms room(ctx, ...)
 * gives, until more ciphertext is needed. Returns 0 then, 1 when room()
 * stopped it first, -1 when the connection must close (tls_error says why);
 * what was decrypted before the stop or the failure was handed to room(). */
int tls_read_all(struct tls_conn *t, size_t nread, tls_room_fn *room, void *ctx);
/* A fixed buffer as tls_read_all's room: buf[0, len) is filled, the room is
 * buf[len, cap); full, it stops the reading. */
struct tls_fixed_room {
    char *buf;
    size_t cap, len;
};
/* tls_room_fn over a struct tls_fixed_room (ctx). */
int tls_fixed_room(void *ctx, size_t n, char **p, size_t *cap);

/* The input of a link that may speak TLS (the cluster bus's links, the
 * cluster's query links): plaintext bytes buf[0, len) not yet consumed, in
 * cap bytes that grow as they fill, so each read has at least chunk bytes
 * of room. The link owns buf (xfree) and sets chunk; the rest starts 0. */
struct tls_input {
    char *buf;
    size_t len, cap, chunk;
};
/* Where the link's next read goes: t's ciphertext room (t not NULL), else
 * the room after in's bytes. */
void tls_input_space(struct tls_conn *t, struct tls_input *in, char **p, size_t *cap);
/* Takes the nread bytes a read put at tls_input_space's room: appended to
 * in as they are, or with TLS decrypted into in (tls_read_all), which may
 * leave handshake messages to send in tls_wire. Returns 0, or -1 when the
 * connection must close (tls_error says why). */
int tls_input_take(struct tls_conn *t, struct tls_input *in, size_t nread);

/* Moves plaintext from plain into t's ciphertext output, a bounded amount
 * at a time so plain's pending bytes still measure the client's backlog for
 * the output limits; nothing before the handshake has ended. Returns 0, or
 * -1 when encrypting failed (tls_error says why). */
int tls_encrypt(struct tls_conn *t, struct resp_out *plain);
/* Appends TLS's close_notify alert to t's ciphertext output, to be written
 * before the socket closes, as Redis's connTLSClose does. Returns 0, or -1
 * when there is nothing to close cleanly (the handshake did not end, or
 * OpenSSL failed on this connection). */
int tls_close_notify(struct tls_conn *t);
/* t's ciphertext output (handshake messages and encrypted replies), owned by
 * t: the connection writes and consumes it as a plaintext client's output. */
struct resp_out *tls_wire(struct tls_conn *t);
/* Whether the handshake has ended. */
int tls_handshake_done(const struct tls_conn *t);
/* Why the last call failed, for the log ("" when nothing failed). */
const char *tls_error(const struct tls_conn *t);
/* Bytes t holds (its ciphertext buffers), for the client's memory. */
size_t tls_conn_memory(const struct tls_conn *t);

#endif
