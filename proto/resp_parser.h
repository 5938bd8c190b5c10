/*
 * resp_parser.h - incremental RESP request parser.
 *
 * Owns: the query buffer of one connection and the argument vector of the
 * request it last returned. Knows nothing of sockets, libuv or the server.
 *
 * The parser owns the bytes: the caller asks for space (resp_parser_reserve),
 * reads into it, then says how many bytes arrived (resp_parser_commit).
 * resp_parser_next() then returns one complete request at a time. Arguments are
 * slices that point into the parser's memory (no copy when the bytes are
 * contiguous); a bulk of RESP_BIG_ARG bytes or more is read into a buffer of
 * exactly its size, so a huge value is never copied again.
 *
 * Lifetime of slices: a request's argv and the bytes it points to stay valid
 * until the next call to resp_parser_next(), resp_parser_reserve(),
 * resp_parser_feed() or resp_parser_destroy() on the same parser. Compaction
 * happens only inside those calls.
 *
 * Errors are sticky: after RESP_ERR every call to resp_parser_next() returns
 * RESP_ERR again with the same message.
 */
#ifndef RBKV_RESP_PARSER_H
#define RBKV_RESP_PARSER_H

#include <stddef.h>

/* Bulks at least this long get a buffer of their own (as Redis's PROTO_MBULK_BIG_ARG). */
#define RESP_BIG_ARG (32 * 1024)

#define RESP_DEFAULT_MAX_BULK_LEN ((size_t)512 * 1024 * 1024)
#define RESP_DEFAULT_MAX_MULTIBULK_LEN ((size_t)1024 * 1024)
#define RESP_DEFAULT_MAX_INLINE_LEN ((size_t)64 * 1024)

/* Results of resp_parser_next(). */
#define RESP_REQUEST 1 /* a complete request is in *req */
#define RESP_AGAIN 0   /* need more bytes; not an error */
#define RESP_ERR (-1)  /* protocol error; resp_parser_error() has Redis's text */

/* A borrowed byte range; not NUL-terminated. */
struct resp_slice {
    const char *ptr;
    size_t len;
};

/* Redis's limits before AUTH, for the unauth_* fields below. */
#define RESP_UNAUTH_MAX_BULK_LEN ((size_t)16384)
#define RESP_UNAUTH_MAX_MULTIBULK_LEN ((size_t)10)

struct resp_limits {
    size_t max_bulk_len;      /* longest bulk argument accepted */
    size_t max_multibulk_len; /* most elements in one request */
    size_t max_inline_len;    /* longest inline line (and longest header line) */
    /* Smaller limits while the client has not authenticated; 0 means none.
     * Checked after the ones above, as Redis does, and going over them gives
     * Redis's "Protocol error: unauthenticated bulk length" / "...multibulk
     * length" instead of "invalid ...". */
    size_t unauth_max_bulk_len;
    size_t unauth_max_multibulk_len;
};

/* A parsed request. argv is owned by the parser (see lifetime above). */
struct resp_request {
    int argc;
    struct resp_slice *argv;
    int inline_form; /* 1 if it came as an inline command line */
};

struct resp_parser {
    /* Private: read only through the functions below. */

    /* Query buffer: bytes [pos, len) are unparsed input, cap bytes allocated. */
    char *buf;
    size_t pos, len, cap;
    /* Bytes after pos already searched for the end of a line without finding
     * it, so a line that arrives a byte at a time is not scanned again. */
    size_t scanned;

    /* Multibulk state between calls: elements still expected (0 between
     * requests), bulk length of the element being read (-1 when the next thing
     * is a '$' header), and where the request's first element starts in buf. */
    long long multibulk_left;
    long long bulk_len;
    size_t req_start;

    /* A big bulk being read straight into its own buffer of big_len bytes.
     * big_copied: bytes of the request's big bulks that had already arrived in
     * buf and were copied out (still inside [req_start, pos), counted once). */
    char *big;
    size_t big_len, big_filled, big_copied;

    /* Arguments of the request being assembled / last returned. While a
     * multibulk is assembled only big bulks have argv[i].ptr set; the others
     * live at buf + req_start + argoff[i], an offset that survives compaction. */
    struct resp_slice *argv;
    size_t *argoff;
    int argc, argv_cap;
    /* Big bulk buffers among argv (freed with the request) and their bytes. */
    int owned_count;
    size_t owned_bytes;
    int returned; /* argv was handed out; released by the next call */

    struct resp_limits limits;
    const char *error; /* NULL until a protocol error: a static string or errbuf */
    char errbuf[48];
};

/* Sets up an empty parser. limits NULL means the defaults above. Nothing is
 * allocated until bytes arrive. Returns 0, or -1 when memory runs out. */
int resp_parser_init(struct resp_parser *p, const struct resp_limits *limits);

/* Frees everything the parser owns. The struct itself is the caller's. */
void resp_parser_destroy(struct resp_parser *p);

/* Frees the query buffer when it holds nothing: no unparsed byte, no
 * request in progress and none handed out whose slices may still be read
 * (an idle client's, as Redis trims an idle query buffer). Otherwise does
 * nothing. The next read allocates again. */
void resp_parser_shrink(struct resp_parser *p);

/* Changes the limits for what is parsed from now on (e.g. smaller before AUTH).
 * limits NULL means the defaults. */
void resp_parser_set_limits(struct resp_parser *p, const struct resp_limits *limits);

/* Gives a place to read at least one byte into: *buf, *cap bytes long. When a
 * big bulk is pending the space is the rest of that bulk's own buffer.
 * suggested is how much the caller would like (e.g. 16 KB).
 * Returns 0, or -1 when memory runs out. */
int resp_parser_reserve(struct resp_parser *p, size_t suggested, char **buf, size_t *cap);

/* Records that n bytes were written into the space from resp_parser_reserve(). */
void resp_parser_commit(struct resp_parser *p, size_t n);

/* Copies len bytes in (reserve + memcpy + commit). For tests, AOF replay and
 * fuzzing. Returns 0, or -1 when memory runs out. */
int resp_parser_feed(struct resp_parser *p, const char *data, size_t len);

/* Parses the next request. Returns RESP_REQUEST, RESP_AGAIN or RESP_ERR.
 * Inline lines that are empty (just "\r\n") are skipped, as Redis does, and
 * so are multibulk counts <= 0 ("*0", "*-1"). RESP_ERR is also returned, with
 * the text "out of memory", when the argument vector or a big bulk's buffer
 * cannot be allocated. */
int resp_parser_next(struct resp_parser *p, struct resp_request *req);

/* Bytes the parser holds for the request in progress and the ones after it:
 * what counts against client-query-buffer-limit. */
size_t resp_parser_buffered(const struct resp_parser *p);

/* Bytes of memory the parser holds (buffers, argv), for CLIENT LIST / INFO. */
size_t resp_parser_memory(const struct resp_parser *p);

/* Redis's error text for the last protocol error, without the "-ERR " prefix,
 * e.g. "Protocol error: invalid bulk length"; NULL when there was none. */
const char *resp_parser_error(const struct resp_parser *p);

/* Bytes of the query buffer allocated but not yet filled (CLIENT LIST qbuf-free). */
size_t resp_parser_free_space(const struct resp_parser *p);

/* The bytes argv[0..argc) point to, in total: what resp_slices_copy needs
 * at bytes. */
size_t resp_slices_bytes(int argc, const struct resp_slice *argv);
/* Copies argv[0..argc)'s bytes one after another into bytes and points
 * dst[0..argc) at the copies, so a request outlives the parser's buffer. */
void resp_slices_copy(struct resp_slice *dst, char *bytes, int argc, const struct resp_slice *argv);

#endif
