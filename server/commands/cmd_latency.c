/*
 * cmd_latency.c - LATENCY LATEST | HISTORY | RESET | GRAPH | DOCTOR |
 * HISTOGRAM | HELP, in Redis 7.0's replies.
 *
 * The events are the latency monitor's (latency.h), the histograms the
 * dispatcher's (command_stats). GRAPH draws Redis's sparkline (its
 * sparkline.c: four rows of "_o#" and '|' fill, one column a sample, the
 * age of each sample written downwards under it); DOCTOR writes Redis's
 * report with its statistics per event and shorter advice of rbkv's own.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "args.h"
#include "client.h"
#include "cmd_latency.h"
#include "histogram.h"
#include "latency.h"
#include "mem.h"
#include "resp_writer.h"
#include "server.h"

#define GRAPH_COLUMNS 80
#define GRAPH_ROWS 4

static void latency_latest(struct client *c)
{
    size_t n = 0;
    while (latency_event_at(n))
        n++;
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++) {
        const struct latency_event *e = latency_event_at(i);
        const struct latency_sample *last = latency_last(e);
        resp_add_array_len(&c->out, 4);
        resp_add_bulk_cstr(&c->out, e->name);
        resp_add_int(&c->out, last->time);
        resp_add_int(&c->out, last->ms);
        resp_add_int(&c->out, e->max);
    }
}

/* The samples of e oldest first into out (LATENCY_HISTORY of them at
 * most); returns how many. */
static size_t samples_in_order(const struct latency_event *e, struct latency_sample *out)
{
    size_t n = 0;
    for (unsigned j = 0; j < LATENCY_HISTORY; j++) {
        const struct latency_sample *s = &e->samples[(e->idx + j) % LATENCY_HISTORY];
        if (s->time)
            out[n++] = *s;
    }
    return n;
}

static void latency_history(struct client *c)
{
    const struct latency_event *e = latency_find(c->argv[2].ptr, c->argv[2].len);
    struct latency_sample s[LATENCY_HISTORY];
    size_t n = e ? samples_in_order(e, s) : 0;
    resp_add_array_len(&c->out, n);
    for (size_t i = 0; i < n; i++) {
        resp_add_array_len(&c->out, 2);
        resp_add_int(&c->out, s[i].time);
        resp_add_int(&c->out, s[i].ms);
    }
}

static void latency_reset_command(struct client *c)
{
    long long n = 0;
    if (c->argc == 2)
        n = (long long)latency_reset_all();
    for (int i = 2; i < c->argc; i++)
        n += latency_reset(c->argv[i].ptr, c->argv[i].len);
    resp_add_int(&c->out, n);
}

/* How long ago t was, as Redis labels a graph's column: 5s, 3m, 2h, 1d. */
static void age_label(char *out, size_t len, int64_t now, int64_t t)
{
    long long ago = now - t;
    if (ago < 60)
        snprintf(out, len, "%llds", ago);
    else if (ago < 3600)
        snprintf(out, len, "%lldm", ago / 60);
    else if (ago < 86400)
        snprintf(out, len, "%lldh", ago / 3600);
    else
        snprintf(out, len, "%lldd", ago / 86400);
}

/* Redis's sparklineRenderRange with SPARKLINE_FILL, for samples
 * [from, from + len): GRAPH_ROWS rows of the chart, a blank row, then the
 * labels downwards. */
static void render_range(struct text *t, const struct latency_sample *s, char labels[][24],
                         size_t from, size_t len, uint32_t min, uint32_t max)
{
    static const char fill[] = "_o#";
    const int charset_len = 3, steps = charset_len * GRAPH_ROWS;
    double relmax = max - min ? (double)(max - min) : 1;
    char line[GRAPH_COLUMNS + 2];

    for (int row = 0;; row++) {
        int more = 0;
        memset(line, ' ', len);
        for (size_t j = 0; j < len; j++) {
            const struct latency_sample *x = &s[from + j];
            if (row < GRAPH_ROWS) {
                int step = (int)((double)(int)((double)(x->ms - min) * steps) / relmax);
                if (step >= steps)
                    step = steps - 1;
                int idx = step - (GRAPH_ROWS - row - 1) * charset_len;
                more = 1;
                if (idx >= 0 && idx < charset_len)
                    line[j] = fill[idx];
                else if (idx >= charset_len)
                    line[j] = '|';
            } else if (row == GRAPH_ROWS) {
                more = 1; /* the blank row between chart and labels */
                break;
            } else if (strlen(labels[from + j]) > (size_t)(row - GRAPH_ROWS - 1)) {
                more = 1;
                line[j] = labels[from + j][row - GRAPH_ROWS - 1];
            }
        }
        if (!more)
            break;
        line[len] = '\n';
        line[len + 1] = '\0';
        text_printf(t, "%s", line);
    }
}

static void latency_graph(struct client *c)
{
    const struct latency_event *e = latency_find(c->argv[2].ptr, c->argv[2].len);
    if (!e) {
        resp_add_errorf(&c->out, "ERR No samples available for event '%.*s'",
                        (int)c->argv[2].len, c->argv[2].ptr);
        return;
    }
    struct latency_sample s[LATENCY_HISTORY];
    char labels[LATENCY_HISTORY][24];
    size_t n = samples_in_order(e, s);
    int64_t now = (int64_t)time(NULL);
    uint32_t min = UINT32_MAX, max = 0;
    for (size_t i = 0; i < n; i++) {
        min = s[i].ms < min ? s[i].ms : min;
        max = s[i].ms > max ? s[i].ms : max;
        age_label(labels[i], sizeof(labels[i]), now, s[i].time);
    }
    struct text t = {xmalloc(1024), 0, 1024};
    text_printf(&t, "%s - high %lu ms, low %lu ms (all time high %lu ms)\n", e->name,
                (unsigned long)max, (unsigned long)min, (unsigned long)e->max);
    text_printf(&t, "%s\n",
                "----------------------------------------"
                "----------------------------------------");
    for (size_t from = 0; from < n; from += GRAPH_COLUMNS) {
        if (from)
            text_printf(&t, "\n");
        render_range(&t, s, labels, from, n - from < GRAPH_COLUMNS ? n - from : GRAPH_COLUMNS,
                     min, max);
    }
    resp_add_verbatim(&c->out, "txt", t.buf, t.len);
    xfree(t.buf);
}

/* What DOCTOR suggests for an event, rbkv's wording; NULL for none. */
static const char *advice_for(const char *event)
{
    static const struct {
        const char *event, *advice;
    } advice[] = {
        {"command", "- Check your Slow Log to understand what are the commands you are running "
                    "which are too slow to execute. Please check "
                    "https://redis.io/commands/slowlog for more information.\n"
                    "- Deleting, expiring or evicting (because of maxmemory policy) large "
                    "objects is a blocking operation. If you have very large objects that are "
                    "often deleted, expired, or evicted, try to fragment those objects into "
                    "multiple smaller objects.\n"},
        {"fast-command", "- The system is slow to execute code paths not containing system "
                         "calls: the server is not given the CPU for long periods. Lower the "
                         "system load, or check for a noisy neighbour.\n"},
        {"expire-cycle", "- Many keys expire at the same time: spread their deadlines, or "
                         "lower hz.\n"},
        {"fork", "- Forking is slow: a smaller dataset, or Transparent Huge Pages off, make "
                 "BGSAVE and BGREWRITEAOF fork faster.\n"},
        {"aof-write", "- Writes to the append-only log are slow: the disk is contended or "
                      "slow; appendfsync everysec or no lowers the cost.\n"},
        {"allocator-trim", "- The allocator gave freed memory back to the system after a large "
                           "deletion or flush (INFO stats allocator_trim_usec_*): fewer, "
                           "smaller deletions, or a FLUSHALL ASYNC at a quiet time.\n"},
        {"aof-fsync-always", "- fsync under appendfsync always is slow: use everysec, or a "
                             "faster disk.\n"},
    };
    for (size_t i = 0; i < sizeof(advice) / sizeof(advice[0]); i++)
        if (!strcmp(advice[i].event, event))
            return advice[i].advice;
    return NULL;
}

/* Redis's analyzeLatencyForEvent: the samples' count, average, mean
 * deviation and the mean period between them, written as its report line. */
static void doctor_event(struct text *t, int nth, const struct latency_event *e, int64_t now)
{
    struct latency_sample s[LATENCY_HISTORY];
    size_t n = samples_in_order(e, s);
    unsigned long long sum = 0, dev = 0;
    int64_t oldest = now;
    for (size_t i = 0; i < n; i++) {
        sum += s[i].ms;
        oldest = s[i].time < oldest ? s[i].time : oldest;
    }
    unsigned long avg = n ? (unsigned long)(sum / n) : 0;
    for (size_t i = 0; i < n; i++)
        dev += (unsigned long long)labs((long)s[i].ms - (long)avg);
    text_printf(t,
                "%d. %s: %zu latency spikes (average %lums, mean deviation %lums, period %.2f "
                "sec). Worst all time event %lums.\n",
                nth, e->name, n, avg, n ? (unsigned long)(dev / n) : 0,
                n ? (double)(now - oldest) / (double)n : 0.0, (unsigned long)e->max);
}

static void latency_doctor(struct client *c)
{
    struct text t = {xmalloc(1024), 0, 1024};
    int64_t now = (int64_t)time(NULL);

    t.buf[0] = '\0';
    if (!latency_event_at(0) && !server.cfg.latency_monitor_threshold) {
        text_printf(&t, "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in "
                        "this Redis instance. You may use \"CONFIG SET latency-monitor-threshold "
                        "<milliseconds>.\" in order to enable it. If we weren't in a deep space "
                        "mission I'd suggest to take a look at "
                        "https://redis.io/topics/latency-monitor.\n");
    } else if (!latency_event_at(0)) {
        text_printf(&t, "Dave, no latency spike was observed during the lifetime of this Redis "
                        "instance, not in the slightest bit. I honestly think you ought to sit "
                        "down calmly, take a stress pill, and think things over.\n");
    } else {
        text_printf(&t, "Dave, I have observed latency spikes in this Redis instance. You don't "
                        "mind talking about it, do you Dave?\n\n");
        const struct latency_event *e;
        for (size_t i = 0; (e = latency_event_at(i)); i++)
            doctor_event(&t, (int)i + 1, e, now);
        text_printf(&t, "\nI have a few advices for you:\n\n");
        for (size_t i = 0; (e = latency_event_at(i)); i++) {
            const char *a = advice_for(e->name);
            if (a)
                text_printf(&t, "%s", a);
        }
    }
    resp_add_verbatim(&c->out, "txt", t.buf, t.len);
    xfree(t.buf);
}

/* Redis iterates its HdrHistogram (1 ns to 1 s, 2 significant figures)
 * from 1024 ns doubling, and names each step by the top of its HDR bucket
 * in microseconds: 1, 2, 4, 8, 16, 33, 66, 132, ... The same keys here, each
 * counting the calls that took at most that many microseconds (exactly up
 * to 16 us, within 1/16 of the key above). */
static uint64_t histogram_key(unsigned k)
{
    uint64_t ns = UINT64_C(1024) << k;
    return (ns + ns / 128 - 1) / 1000;
}

static void reply_command_histogram(struct client *c, const struct command *cmd,
                                    const struct histogram *h)
{
    struct resp_deferred d;
    size_t buckets = 0;
    uint64_t prev = 0;

    resp_add_bulk_cstr(&c->out, cmd->name);
    resp_add_map_len(&c->out, 2);
    resp_add_bulk_cstr(&c->out, "calls");
    resp_add_int(&c->out, (long long)h->total);
    resp_add_bulk_cstr(&c->out, "histogram_usec");
    resp_add_deferred(&c->out, &d);
    /* By k = 50 the key is past HIST_MAX, so every call has been counted. */
    for (unsigned k = 0; prev < h->total && k <= 50; k++) {
        uint64_t key = histogram_key(k), count = histogram_count_upto(h, key);
        if (count > prev) {
            resp_add_int(&c->out, (long long)key);
            resp_add_int(&c->out, (long long)count);
            buckets++;
        }
        prev = count;
    }
    resp_set_deferred_map(&c->out, &d, buckets);
}

static int named(const struct client *c, const struct command *cmd)
{
    /* A subcommand is named by its full name or, as in Redis, by its
     * container's ("config" names config|get and config|set). */
    const char *bar = strchr(cmd->name, '|');
    size_t container = bar ? (size_t)(bar - cmd->name) : 0;
    if (c->argc == 2)
        return 1;
    for (int i = 2; i < c->argc; i++) {
        const struct resp_slice *a = &c->argv[i];
        if (arg_is(a, cmd->name) ||
            (bar && a->len == container && strncasecmp(a->ptr, cmd->name, container) == 0))
            return 1;
    }
    return 0;
}

static void latency_histogram(struct client *c)
{
    struct resp_deferred d;
    size_t n = 0;

    resp_add_deferred(&c->out, &d);
    for (size_t i = 0; i < command_row_count(); i++) {
        const struct command *cmd = command_row_at(i);
        const struct histogram *h = command_stats(cmd)->latency;
        if (h && h->total && named(c, cmd)) {
            reply_command_histogram(c, cmd, h);
            n++;
        }
    }
    resp_set_deferred_map(&c->out, &d, n);
}

/* One line of Redis's text, longer than the others. */
static const char help_histogram[] = "    Return a cumulative distribution of latencies in the "
                                     "format of a histogram for the specified command names.";

static void latency_help(struct client *c)
{
    static const char *const help[] = {
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        help_histogram,
        "    If no commands are specified then all histograms are replied.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command latency_subcommands[] = {
    {.name = "latency|latest", .proc = latency_latest, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "latency|history", .proc = latency_history, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "latency|reset", .proc = latency_reset_command, .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "latency|graph", .proc = latency_graph, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "latency|doctor", .proc = latency_doctor, .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "latency|histogram", .proc = latency_histogram, .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "latency|help", .proc = latency_help, .arity = 2,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    {0},
};

const struct command latency_commands[] = {
    {.name = "latency", .arity = -2,
     .group = "server", .subcommands = latency_subcommands},
    {0},
};
