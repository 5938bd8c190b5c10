/*
 * listing.c - lists of consecutive keys as replies, streamed when long (see
 * listing.h).
 */
#include "listing.h"

#include <stdint.h>

#include "mem.h"
#include "resp_writer.h"
#include "stream.h"

/* The rest of a listing whose start went out: the next entry to list and
 * how many are left. Holding next between loop turns is safe because every
 * change to the db finishes the stream first (stream.h): until then no
 * entry moves or goes. */
struct listing_stream {
    struct reply_stream base; /* first: stream.c frees the whole */
    struct ks_entry *next;
    size_t left;
    int rev, withvalues;
    struct live_view live;
};

void listing_add_slow(struct client *c, struct resp_bulks *run, struct ks_entry *e,
                      int withvalues)
{
    resp_bulks_end(&c->out, run);
    if (withvalues && c->out.proto == 3)
        resp_add_array_len(&c->out, 2);
    resp_add_bulk(&c->out, ks_key(e), ks_klen(e));
    if (withvalues) {
        if (e->type == KS_STRING)
            resp_add_bulk(&c->out, ks_str(e), ks_slen(e));
        else
            resp_add_null(&c->out);
    }
    resp_bulks_begin(&c->out, run);
}

/* Lists from *e on until n are listed or c's pending output reaches until;
 * leaves *e at the next one and returns how many are left. Once the reply
 * failed (over the client's hard output limit, or out of memory) the client
 * will be dropped: walking on would only hold the loop. */
static size_t list_until(struct client *c, struct ks_entry **e, size_t n, int rev, int withvalues,
                         size_t until, const struct live_view *v)
{
    struct ks_entry *at = *e;
    size_t warm_left = 0;
    struct resp_bulks run;
    resp_bulks_begin(&c->out, &run);
    /* Due keys are skipped on the way to each listed key, never after the
     * last one: beyond it may lie any number of them. */
    for (; n > 0 && !c->out.failed && resp_bulks_pending(&c->out, &run) < until; n--) {
        at = live_nearest(v, at, rev);
        /* The next keys' loads in flight together (ks_warm), a batch at a
         * time: n is exact, so none past the listing's end. */
        if (warm_left == 0) {
            warm_left = n < KS_WARM_MAX ? n : KS_WARM_MAX;
            ks_warm(at, warm_left, rev);
        }
        warm_left--;
        listing_add(c, &run, at, withvalues);
        at = rev ? ks_prev(at) : ks_next(at);
    }
    resp_bulks_end(&c->out, &run);
    *e = at;
    return n;
}

static int listing_fill(struct client *c, struct reply_stream *s, size_t until)
{
    struct listing_stream *ls = (struct listing_stream *)s;
    ls->left = list_until(c, &ls->next, ls->left, ls->rev, ls->withvalues, until, &ls->live);
    return ls->left == 0 || c->out.failed;
}

size_t listing_stop(const struct client *c)
{
    return stream_allowed(c) ? resp_out_pending(&c->out) + STREAM_CHUNK : SIZE_MAX;
}

void listing_span(struct client *c, struct ks_entry *e, size_t n, int rev, int withvalues,
                  const struct live_view *v)
{
    n = list_until(c, &e, n, rev, withvalues, listing_stop(c), v);
    if (n == 0 || c->out.failed)
        return;
    struct listing_stream *ls = xmalloc(sizeof(*ls));
    ls->base.fill = listing_fill;
    ls->base.db = c->db;
    ls->next = e;
    ls->left = n;
    ls->rev = rev;
    ls->withvalues = withvalues;
    ls->live = *v;
    stream_start(c, &ls->base);
}
