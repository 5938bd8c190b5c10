/* loadgen: the load generator of bench/run, for the workloads redis-benchmark cannot express
 * (weighted mixes, two sorted random bounds in one command, per-call latency percentiles).
 *
 *   loadgen -p PORT [-H host] [-c conns] [-P depth] [-r rate] [-d seconds] [-n requests]
 *           [-k keys] [-s seed] [-l label] [-S] [-T timeline.csv] -t [WEIGHT:]TEMPLATE [-t ...]
 *   loadgen -C            prints the CSV header
 *
 * One thread, plain non-blocking sockets and poll(2). Closed loop (the default): each of the conns
 * connections keeps up to depth requests in flight (pipelining), and a request is timed from the
 * moment it was queued. Open loop (-r RATE): requests are due at fixed intervals, rate per second
 * in all, dealt to the connections in turn whatever is still in flight (no depth limit), and each
 * is timed from the moment it was due, not the moment it went out: a server that stalls for
 * 500 ms is charged 500 ms on every request due during the stall (no coordinated omission). A template is a command whose words may hold
 * __key__ (a random key of the key space), or __lo__ and __hi__ (two random keys, lo <= hi,
 * drawn once per request); keys are formatted like key:%012d from [0, keys). With several -t
 * the weights pick one template per request (90:GET __key__ and 10:SET __key__ v is a 90/10 mix).
 * The run stops issuing after -d seconds or -n requests, whichever comes first, and waits for the
 * replies in flight. Output: one CSV line (see -C) with throughput and the latency of each call
 * until its whole reply arrived, from a log-linear histogram (no averages); with -S, one more line
 * per template, labelled LABEL/WORD (its first word), from its own histogram. -T appends the run's
 * timeline to a file: per 100 ms of due time, "label,second,requests,max_us". An error reply
 * counts in the errors column and ends nothing.
 *
 * Owns: its connections, their buffers and the histogram. Knows nothing of rbkv's code: it only
 * speaks RESP, so the same run measures rbkv-server and redis-server.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEY_FMT "key:%012" PRIu64
#define MAX_TEMPLATES 16
#define MAX_WORDS 64
#define WORD_MAX 256        /* one expanded word: a key is 16 bytes, so this is generous */
#define READ_CHUNK 65536
#define POLL_MS 50          /* how late the -d deadline may be noticed */
#define WINDOW_NS 100000000u /* -T's resolution */

/* Histogram: values below 2^HIST_SUB_BITS nanoseconds have a bucket each; above, every power of
 * two is split into 2^(HIST_SUB_BITS-1) equal buckets, so a bucket is at most 1/128 of its value
 * wide and a percentile read from it is within 0.8% of the exact one, from 1 ns to 2^64 ns. */
#define HIST_SUB_BITS 8
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_HALF (HIST_SUB / 2)
#define HIST_BUCKETS (HIST_SUB + (64 - HIST_SUB_BITS) * HIST_HALF)

struct hist {
	uint64_t counts[HIST_BUCKETS];
	uint64_t total;
	uint64_t max;
};

struct template {
	unsigned weight;
	int nwords;
	char *words[MAX_WORDS];
};

/* A request in flight: when it was queued (closed loop) or due (open loop), and its template. */
struct pending {
	uint64_t since_ns;
	unsigned tmpl;
};

/* -T: the requests due in one window and the slowest of them. */
struct window {
	uint64_t requests, max_ns;
};

struct conn {
	int fd;
	char *out;                 /* requests not yet written: out[out_off, out_len) */
	size_t out_len, out_off, out_cap;
	char *in;                  /* bytes read, whole replies are consumed from the front */
	size_t in_len, in_cap;
	struct pending *ring;      /* requests in flight, oldest at head; ring_cap entries */
	unsigned head, inflight, ring_cap;
};

struct loadgen {
	const char *host, *port, *label;
	unsigned conns, depth;
	double seconds, rate;      /* rate > 0: open loop */
	int per_template;
	const char *timeline_path;
	uint64_t start_ns;
	struct window *windows;
	size_t nwindows;
	uint64_t max_requests, keys, seed, rng;
	struct template templates[MAX_TEMPLATES];
	int ntemplates;
	unsigned total_weight;
	uint64_t issued, done, errors;
	int stopping;
	struct hist hist;
	struct hist template_hist[MAX_TEMPLATES];
	uint64_t template_errors[MAX_TEMPLATES];
};

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("loadgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: fast, and a seed replays the same key sequence for a given template set. */
static uint64_t rng_next(struct loadgen *lg)
{
	uint64_t z = (lg->rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static unsigned hist_index(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - (HIST_SUB_BITS - 1);
	return HIST_SUB + (shift - 1) * HIST_HALF + (unsigned)((v >> shift) - HIST_HALF);
}

/* The highest value that falls in bucket i, so percentiles err on the slow side. */
static uint64_t hist_bucket_high(unsigned i)
{
	if (i < HIST_SUB)
		return i;
	unsigned j = i - HIST_SUB, shift = j / HIST_HALF + 1;
	uint64_t low = (uint64_t)(j % HIST_HALF + HIST_HALF) << shift;
	return low + ((uint64_t)1 << shift) - 1;
}

static void hist_record(struct hist *h, uint64_t v)
{
	h->counts[hist_index(v)]++;
	h->total++;
	if (v > h->max)
		h->max = v;
}

/* The value at quantile q in (0, 1]: the smallest bucket bound with at least ceil(q * total)
 * values at or below it, capped by the exact maximum. 0 when nothing was recorded. */
static uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank = (uint64_t)(q * (double)h->total + 0.999999), seen = 0;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS && h->total; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			uint64_t v = hist_bucket_high(i);
			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}

/* Length of the one whole RESP reply at the front of p[0, len): > 0 its bytes, 0 when more bytes
 * are needed, -1 when it is not RESP. Iterative, so nesting depth costs no stack. */
static long resp_reply_len(const char *p, size_t len)
{
	size_t off = 0;
	uint64_t pending = 1;
	while (pending > 0) {
		if (off >= len)
			return 0;
		const char *cr = memchr(p + off, '\r', len - off);
		if (!cr || (size_t)(cr - p) + 1 >= len)
			return 0;
		size_t next = (size_t)(cr - p) + 2;
		char type = p[off];
		pending--;
		if (type == '$' || type == '*') {
			long long n = strtoll(p + off + 1, NULL, 10);
			if (type == '$' && n >= 0) {
				if (next + (size_t)n + 2 > len)
					return 0;
				next += (size_t)n + 2;
			} else if (type == '*' && n > 0) {
				pending += (uint64_t)n;
			}
		} else if (type != '+' && type != '-' && type != ':') {
			return -1;
		}
		off = next;
	}
	return (long)off;
}

static void out_append(struct conn *c, const char *s, size_t n)
{
	if (c->out_len + n > c->out_cap) {
		c->out_cap = (c->out_len + n) * 2;
		c->out = xrealloc(c->out, c->out_cap);
	}
	memcpy(c->out + c->out_len, s, n);
	c->out_len += n;
}

static void out_bulk(struct conn *c, const char *s, size_t n)
{
	char hdr[32];
	int h = snprintf(hdr, sizeof hdr, "$%zu\r\n", n);
	out_append(c, hdr, (size_t)h);
	out_append(c, s, n);
	out_append(c, "\r\n", 2);
}

/* Copies word into buf with each placeholder replaced; returns the length. */
static size_t expand_word(const char *word, char *buf, uint64_t key, uint64_t lo, uint64_t hi)
{
	static const struct { const char *name; size_t len; } ph[] = {
		{ "__key__", 7 }, { "__lo__", 6 }, { "__hi__", 6 },
	};
	size_t n = 0;
	while (*word) {
		unsigned i = 0;
		while (i < sizeof ph / sizeof ph[0] && strncmp(word, ph[i].name, ph[i].len) != 0)
			i++;
		if (i < sizeof ph / sizeof ph[0]) {
			uint64_t v = i == 0 ? key : i == 1 ? lo : hi;
			n += (size_t)snprintf(buf + n, WORD_MAX - n, KEY_FMT, v);
			word += ph[i].len;
		} else {
			buf[n++] = *word++;
		}
		if (n >= WORD_MAX)
			die("a word expands to more than %d bytes", WORD_MAX - 1);
	}
	return n;
}

/* Room for one more request in c's ring: the open loop has no depth limit, so it grows. */
static void ring_reserve(struct conn *c)
{
	if (c->inflight < c->ring_cap)
		return;
	unsigned cap = c->ring_cap * 2;
	struct pending *r = xrealloc(NULL, cap * sizeof *r);
	for (unsigned i = 0; i < c->inflight; i++)
		r[i] = c->ring[(c->head + i) % c->ring_cap];
	free(c->ring);
	c->ring = r;
	c->ring_cap = cap;
	c->head = 0;
}

/* Queues one request on c, timed from since_ns. */
static void queue_request(struct loadgen *lg, struct conn *c, uint64_t since_ns)
{
	const struct template *t = &lg->templates[0];
	if (lg->ntemplates > 1) {
		unsigned r = (unsigned)(rng_next(lg) % lg->total_weight);
		for (t = lg->templates; r >= t->weight; t++)
			r -= t->weight;
	}
	/* __key__ is drawn per word, so MSET __key__ v __key__ v writes distinct random keys. */
	uint64_t lo = rng_next(lg) % lg->keys, hi = rng_next(lg) % lg->keys;
	if (lo > hi) {
		uint64_t s = lo;
		lo = hi;
		hi = s;
	}
	char hdr[32], buf[WORD_MAX];
	out_append(c, hdr, (size_t)snprintf(hdr, sizeof hdr, "*%d\r\n", t->nwords));
	for (int i = 0; i < t->nwords; i++)
		out_bulk(c, buf, expand_word(t->words[i], buf, rng_next(lg) % lg->keys, lo, hi));
	ring_reserve(c);
	c->ring[(c->head + c->inflight) % c->ring_cap] =
		(struct pending){ .since_ns = since_ns, .tmpl = (unsigned)(t - lg->templates) };
	c->inflight++;
	lg->issued++;
}

static int may_issue(const struct loadgen *lg)
{
	return !lg->stopping && (!lg->max_requests || lg->issued < lg->max_requests);
}

/* Closed loop: refills c to depth requests in flight. */
static void top_up(struct loadgen *lg, struct conn *c)
{
	while (lg->rate <= 0 && c->inflight < lg->depth && may_issue(lg))
		queue_request(lg, c, now_ns());
}

/* Open loop: the due time of the request numbered n. */
static uint64_t due_ns(const struct loadgen *lg, uint64_t n)
{
	return lg->start_ns + (uint64_t)((double)n * 1e9 / lg->rate);
}

/* Open loop: queues every request due by now, the connections in turn. */
static void issue_due(struct loadgen *lg, struct conn *cs, uint64_t now)
{
	uint64_t due;
	while (may_issue(lg) && (due = due_ns(lg, lg->issued)) <= now)
		queue_request(lg, &cs[lg->issued % lg->conns], due);
}

static void record(struct loadgen *lg, const struct pending *p, uint64_t now, int error)
{
	uint64_t ns = now - p->since_ns;
	hist_record(&lg->hist, ns);
	hist_record(&lg->template_hist[p->tmpl], ns);
	lg->template_errors[p->tmpl] += (uint64_t)error;
	lg->errors += (uint64_t)error;
	size_t w = (size_t)((p->since_ns - lg->start_ns) / WINDOW_NS);
	if (lg->windows && w < lg->nwindows) {
		lg->windows[w].requests++;
		if (ns > lg->windows[w].max_ns)
			lg->windows[w].max_ns = ns;
	}
}

static void conn_write(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
		if (w < 0 && errno == EAGAIN)
			return;
		if (w < 0)
			die("write: %s", strerror(errno));
		c->out_off += (size_t)w;
	}
	c->out_len = c->out_off = 0;
}

/* Reads what is there, retires each whole reply against the oldest send time, refills. */
static void conn_read(struct loadgen *lg, struct conn *c)
{
	if (c->in_cap - c->in_len < READ_CHUNK) {
		c->in_cap = c->in_len + READ_CHUNK * 2;
		c->in = xrealloc(c->in, c->in_cap);
	}
	ssize_t r = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (r < 0 && errno == EAGAIN)
		return;
	if (r <= 0)
		die("read: %s", r == 0 ? "server closed the connection" : strerror(errno));
	c->in_len += (size_t)r;
	size_t off = 0;
	uint64_t t = now_ns();
	for (;;) {
		long n = resp_reply_len(c->in + off, c->in_len - off);
		if (n < 0)
			die("the server's reply is not RESP");
		if (n == 0)
			break;
		if (c->inflight == 0)
			die("a reply arrived that nobody asked for");
		record(lg, &c->ring[c->head], t, c->in[off] == '-');
		c->head = (c->head + 1) % c->ring_cap;
		c->inflight--;
		lg->done++;
		off += (size_t)n;
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	top_up(lg, c);
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	int rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0)
		die("%s:%s: %s", host, port, gai_strerror(rc));
	int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		die("connect %s:%s: %s", host, port, strerror(errno));
	freeaddrinfo(ai);
	int one = 1;
	/* Small pipelined requests must not wait for Nagle's timer. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static void parse_template(struct loadgen *lg, char *arg)
{
	if (lg->ntemplates == MAX_TEMPLATES)
		die("at most %d templates", MAX_TEMPLATES);
	struct template *t = &lg->templates[lg->ntemplates++];
	char *colon = strchr(arg, ':'), *end;
	t->weight = 1;
	if (colon) {
		unsigned long w = strtoul(arg, &end, 10);
		if (end == colon && end != arg) {
			t->weight = (unsigned)w;
			arg = colon + 1;
		}
	}
	for (char *save, *w = strtok_r(arg, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (t->nwords == MAX_WORDS)
			die("at most %d words in a template", MAX_WORDS);
		t->words[t->nwords++] = w;
	}
	if (t->nwords == 0 || t->weight == 0)
		die("an empty template or a zero weight");
	lg->total_weight += t->weight;
}

static void usage(void)
{
	fputs("usage: loadgen -p PORT [-H host] [-c conns] [-P depth] [-r rate] [-d seconds]\n"
	      "               [-n requests] [-k keys] [-s seed] [-l label] [-S] [-T timeline.csv]\n"
	      "               -t [WEIGHT:]TEMPLATE [-t ...]\n"
	      "       loadgen -C   (print the CSV header)\n", stderr);
	exit(2);
}

static void print_line(const struct loadgen *lg, const char *label, const char *sub,
		       const struct hist *h, uint64_t errors, double secs)
{
	printf("%s%s%s,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.0f,%.1f,%.1f,%.1f,%.1f,%" PRIu64 "\n",
	       label, sub ? "/" : "", sub ? sub : "", lg->conns, lg->rate > 0 ? 0 : lg->depth, lg->keys,
	       h->total, errors, secs, secs > 0 ? (double)h->total / secs : 0.0,
	       (double)hist_quantile(h, 0.5) / 1e3, (double)hist_quantile(h, 0.99) / 1e3,
	       (double)hist_quantile(h, 0.999) / 1e3, (double)h->max / 1e3, lg->seed);
}

static void write_timeline(const struct loadgen *lg)
{
	FILE *f = fopen(lg->timeline_path, "a");
	if (!f)
		die("%s: %s", lg->timeline_path, strerror(errno));
	for (size_t w = 0; w < lg->nwindows; w++)
		if (lg->windows[w].requests)
			fprintf(f, "%s,%.1f,%" PRIu64 ",%.1f\n", lg->label, (double)w * WINDOW_NS / 1e9,
				lg->windows[w].requests, (double)lg->windows[w].max_ns / 1e3);
	if (fclose(f) != 0)
		die("%s: %s", lg->timeline_path, strerror(errno));
}

/* How long poll may sleep: until the next request is due (open loop), else POLL_MS. */
static void poll_wait(const struct loadgen *lg, uint64_t now, struct timespec *ts)
{
	uint64_t ns = (uint64_t)POLL_MS * 1000000u;
	if (lg->rate > 0 && may_issue(lg)) {
		uint64_t due = due_ns(lg, lg->issued);
		ns = due > now ? due - now : 0;
	}
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

static void run(struct loadgen *lg)
{
	struct conn *cs = calloc(lg->conns, sizeof *cs);
	struct pollfd *pfds = calloc(lg->conns, sizeof *pfds);
	if (!cs || !pfds)
		die("out of memory");
	for (unsigned i = 0; i < lg->conns; i++) {
		cs[i].fd = pfds[i].fd = connect_to(lg->host, lg->port);
		cs[i].ring_cap = lg->depth;
		cs[i].ring = xrealloc(NULL, cs[i].ring_cap * sizeof *cs[i].ring);
	}
	if (lg->timeline_path) {
		/* Requests due up to the deadline; -n alone (no -d) records no timeline. */
		lg->nwindows = (size_t)(lg->seconds * 1e9 / WINDOW_NS) + 1;
		lg->windows = calloc(lg->nwindows, sizeof *lg->windows);
		if (!lg->windows)
			die("out of memory");
	}
	uint64_t start = lg->start_ns = now_ns(), end = start;
	uint64_t deadline = start + (uint64_t)(lg->seconds * 1e9);
	for (unsigned i = 0; i < lg->conns; i++)
		top_up(lg, &cs[i]);
	for (;;) {
		if (lg->rate > 0)
			issue_due(lg, cs, now_ns());
		unsigned busy = 0;
		for (unsigned i = 0; i < lg->conns; i++) {
			conn_write(&cs[i]);
			pfds[i].events = POLLIN | (cs[i].out_len ? POLLOUT : 0);
			busy += cs[i].inflight;
		}
		if (!busy && !(lg->rate > 0 && may_issue(lg)))
			break;
		struct timespec ts;
		poll_wait(lg, now_ns(), &ts);
		if (ppoll(pfds, lg->conns, &ts, NULL) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (unsigned i = 0; i < lg->conns; i++)
			if (pfds[i].revents & (POLLIN | POLLERR | POLLHUP))
				conn_read(lg, &cs[i]);
		end = now_ns();
		if (lg->seconds > 0 && end >= deadline)
			lg->stopping = 1;
	}
	for (unsigned i = 0; i < lg->conns; i++) {
		close(cs[i].fd);
		free(cs[i].out);
		free(cs[i].in);
		free(cs[i].ring);
	}
	free(cs);
	free(pfds);
	double secs = (double)(end - start) / 1e9;
	print_line(lg, lg->label, NULL, &lg->hist, lg->errors, secs);
	for (int i = 0; lg->per_template && i < lg->ntemplates; i++)
		print_line(lg, lg->label, lg->templates[i].words[0], &lg->template_hist[i],
			   lg->template_errors[i], secs);
	if (lg->timeline_path)
		write_timeline(lg);
	free(lg->windows);
}

int main(int argc, char **argv)
{
	static struct loadgen lg = {
		.host = "127.0.0.1", .label = "run", .conns = 32, .depth = 16, .seconds = 5, .keys = 1000000,
	};
	lg.seed = now_ns();
	int opt;
	while ((opt = getopt(argc, argv, "CH:p:c:P:r:d:n:k:s:l:St:T:")) != -1) {
		switch (opt) {
		case 'C':
			puts("label,conns,pipeline,keys,requests,errors,seconds,ops_per_sec,"
			     "p50_us,p99_us,p999_us,max_us,seed");
			return 0;
		case 'H': lg.host = optarg; break;
		case 'p': lg.port = optarg; break;
		case 'c': lg.conns = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'P': lg.depth = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'r': lg.rate = strtod(optarg, NULL); break;
		case 'd': lg.seconds = strtod(optarg, NULL); break;
		case 'n': lg.max_requests = strtoull(optarg, NULL, 10); break;
		case 'k': lg.keys = strtoull(optarg, NULL, 10); break;
		case 's': lg.seed = strtoull(optarg, NULL, 10); break;
		case 'l': lg.label = optarg; break;
		case 'S': lg.per_template = 1; break;
		case 'T': lg.timeline_path = optarg; break;
		case 't': parse_template(&lg, optarg); break;
		default: usage();
		}
	}
	if (!lg.port || !lg.ntemplates || !lg.conns || !lg.depth || !lg.keys ||
	    (lg.seconds <= 0 && !lg.max_requests) || lg.rate < 0)
		usage();
	lg.rng = lg.seed;
	run(&lg);
	return 0;
}
