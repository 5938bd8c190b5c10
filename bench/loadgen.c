/* loadgen: the load generator of bench/run, for the workloads redis-benchmark cannot express
 * (weighted mixes, two sorted random bounds in one command, per-call latency percentiles).
 *
 *   loadgen -p PORT [-H host] [-c conns] [-P depth] [-d seconds] [-n requests] [-k keys]
 *           [-s seed] [-l label] -t [WEIGHT:]TEMPLATE [-t ...]
 *   loadgen -C            prints the CSV header
 *
 * One thread, plain non-blocking sockets and poll(2): each of the conns connections keeps up to
 * depth requests in flight (pipelining). A template is a command whose words may hold
 * __key__ (a random key of the key space), or __lo__ and __hi__ (two random keys, lo <= hi,
 * drawn once per request); keys are formatted like key:%012d from [0, keys). With several -t
 * the weights pick one template per request (90:GET __key__ and 10:SET __key__ v is a 90/10 mix).
 * The run stops issuing after -d seconds or -n requests, whichever comes first, and waits for the
 * replies in flight. Output: one CSV line (see -C) with throughput and the latency of each call
 * from the moment it was queued to the moment its whole reply arrived, from a log-linear
 * histogram (no averages). An error reply counts in the errors column and ends nothing.
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

struct conn {
	int fd;
	char *out;                 /* requests not yet written: out[out_off, out_len) */
	size_t out_len, out_off, out_cap;
	char *in;                  /* bytes read, whole replies are consumed from the front */
	size_t in_len, in_cap;
	uint64_t *queued_ns;       /* ring of depth send times, oldest at head */
	unsigned head, inflight;
};

struct loadgen {
	const char *host, *port, *label;
	unsigned conns, depth;
	double seconds;
	uint64_t max_requests, keys, seed, rng;
	struct template templates[MAX_TEMPLATES];
	int ntemplates;
	unsigned total_weight;
	uint64_t issued, done, errors;
	int stopping;
	struct hist hist;
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

static void queue_request(struct loadgen *lg, struct conn *c)
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
	c->queued_ns[(c->head + c->inflight) % lg->depth] = now_ns();
	c->inflight++;
	lg->issued++;
}

static void top_up(struct loadgen *lg, struct conn *c)
{
	while (!lg->stopping && c->inflight < lg->depth &&
	       (!lg->max_requests || lg->issued < lg->max_requests))
		queue_request(lg, c);
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
		if (c->in[off] == '-')
			lg->errors++;
		hist_record(&lg->hist, t - c->queued_ns[c->head]);
		c->head = (c->head + 1) % lg->depth;
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
	fputs("usage: loadgen -p PORT [-H host] [-c conns] [-P depth] [-d seconds] [-n requests]\n"
	      "               [-k keys] [-s seed] [-l label] -t [WEIGHT:]TEMPLATE [-t ...]\n"
	      "       loadgen -C   (print the CSV header)\n", stderr);
	exit(2);
}

static void run(struct loadgen *lg)
{
	struct conn *cs = calloc(lg->conns, sizeof *cs);
	struct pollfd *pfds = calloc(lg->conns, sizeof *pfds);
	if (!cs || !pfds)
		die("out of memory");
	for (unsigned i = 0; i < lg->conns; i++) {
		cs[i].fd = pfds[i].fd = connect_to(lg->host, lg->port);
		cs[i].queued_ns = xrealloc(NULL, lg->depth * sizeof *cs[i].queued_ns);
	}
	uint64_t start = now_ns(), deadline = start + (uint64_t)(lg->seconds * 1e9), end = start;
	for (unsigned i = 0; i < lg->conns; i++)
		top_up(lg, &cs[i]);
	for (;;) {
		unsigned busy = 0;
		for (unsigned i = 0; i < lg->conns; i++) {
			conn_write(&cs[i]);
			pfds[i].events = POLLIN | (cs[i].out_len ? POLLOUT : 0);
			busy += cs[i].inflight;
		}
		if (!busy)
			break;
		if (poll(pfds, lg->conns, POLL_MS) < 0 && errno != EINTR)
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
		free(cs[i].queued_ns);
	}
	free(cs);
	free(pfds);
	double secs = (double)(end - start) / 1e9;
	const struct hist *h = &lg->hist;
	printf("%s,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.0f,%.1f,%.1f,%.1f,%.1f,%" PRIu64 "\n",
	       lg->label, lg->conns, lg->depth, lg->keys, lg->done, lg->errors, secs,
	       secs > 0 ? (double)lg->done / secs : 0.0, (double)hist_quantile(h, 0.5) / 1e3,
	       (double)hist_quantile(h, 0.99) / 1e3, (double)hist_quantile(h, 0.999) / 1e3,
	       (double)h->max / 1e3, lg->seed);
}

int main(int argc, char **argv)
{
	static struct loadgen lg = {
		.host = "127.0.0.1", .label = "run", .conns = 32, .depth = 16, .seconds = 5, .keys = 1000000,
	};
	lg.seed = now_ns();
	int opt;
	while ((opt = getopt(argc, argv, "CH:p:c:P:d:n:k:s:l:t:")) != -1) {
		switch (opt) {
		case 'C':
			puts("label,conns,pipeline,keys,requests,errors,seconds,ops_per_sec,"
			     "p50_us,p99_us,p999_us,max_us,seed");
			return 0;
		case 'H': lg.host = optarg; break;
		case 'p': lg.port = optarg; break;
		case 'c': lg.conns = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'P': lg.depth = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'd': lg.seconds = strtod(optarg, NULL); break;
		case 'n': lg.max_requests = strtoull(optarg, NULL, 10); break;
		case 'k': lg.keys = strtoull(optarg, NULL, 10); break;
		case 's': lg.seed = strtoull(optarg, NULL, 10); break;
		case 'l': lg.label = optarg; break;
		case 't': parse_template(&lg, optarg); break;
		default: usage();
		}
	}
	if (!lg.port || !lg.ntemplates || !lg.conns || !lg.depth || !lg.keys ||
	    (lg.seconds <= 0 && !lg.max_requests))
		usage();
	lg.rng = lg.seed;
	run(&lg);
	return 0;
}
