/* pubsub_sub: the subscribers of bench/pubsub_vs_redis.sh. Opens S subscriber connections in one
 * process, counts and checks every message each one receives, and says whether all of them got
 * all the messages, so a publish benchmark cannot pass by dropping or not delivering messages.
 *
 *   pubsub_sub -p PORT [-H host] [-c conns] -n messages [-C channel] [-P pattern] [-x extra]
 *              [-m payload] [-3] [-t idle-seconds]
 *
 * Each connection sends SUBSCRIBE channel (-C) and/or PSUBSCRIBE pattern (-P); -x X adds X
 * patterns p:<i>:* (i in [0, X)) that the benchmark's channel must not match, dealt round-robin
 * over the connections, so the server holds X + 1 distinct patterns (or X with no -P). -3 sends
 * HELLO 3 first (messages then come as RESP3 pushes). When every connection has had all its
 * confirmations, it prints "ready" on stdout; the caller starts publishing then.
 *
 * Every message must be ["message", channel, payload] or ["pmessage", pattern, channel, payload]
 * with the -C channel (or the channel matched by -P) and the -m payload; anything else counts as
 * bad. It stops when every connection has -n messages (then listens 200 ms longer for extras) or
 * when none arrived for -t seconds (default 30), and prints one line of key=value:
 *   subscribers received min max bad closed seconds delivered_per_s ok
 * seconds runs from the first message to the last, over all connections. Exit status 0 when every
 * connection received exactly -n good messages and none was closed, 1 otherwise, 2 on a usage or
 * connection error.
 *
 * Owns: its connections and their buffers. Speaks only RESP on plain sockets, so the same run
 * measures rbkv-server and redis-server.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define BUF_SIZE (256 * 1024)
#define MAX_CONNS 10000
#define MAX_ELEMS 4
#define MAX_DEPTH 8

struct conn {
	int fd;
	char *buf;
	size_t len;
	long want_confirms; /* subscribe/psubscribe confirmations still to come */
	long messages;      /* good messages received */
	long bad;
	int closed;
};

/* One parsed reply: its type and, for a flat aggregate, its first MAX_ELEMS elements when they are
 * bulk strings (pointer + length into the connection's buffer, valid until the buffer moves). */
struct reply {
	char type;
	long nelems;
	const char *elem[MAX_ELEMS];
	long elem_len[MAX_ELEMS];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses a line starting at p (after the type byte): returns the position after its CRLF, or
 * NULL when the line is not complete yet. Sets *num to its integer value. */
static const char *parse_line(const char *p, const char *end, long *num)
{
	const char *cr = memchr(p, '\r', (size_t)(end - p));
	if (!cr || cr + 1 >= end)
		return NULL;
	*num = strtol(p, NULL, 10);
	return cr + 2;
}

/* Skips or parses one value at p. Returns the position after it, NULL when incomplete, or
 * (const char *)-1 on malformed input. At depth 0 fills r. */
static const char *parse_value(const char *p, const char *end, int depth, struct reply *r)
{
	long n;
	if (p >= end)
		return NULL;
	if (depth > MAX_DEPTH)
		return (const char *)-1;
	char type = *p++;
	const char *q;
	switch (type) {
	case '+': case '-': case ':': case '_': case ',': case '#': case '(':
		q = parse_line(p, end, &n);
		if (q && depth == 0) {
			r->type = type;
			r->nelems = 0;
			r->elem[0] = p;
			r->elem_len[0] = q - 2 - p;
		}
		return q;
	case '$': case '=': case '!':
		if (!(q = parse_line(p, end, &n)))
			return NULL;
		if (n < 0)
			return q;
		if (end - q < n + 2)
			return NULL;
		return q + n + 2;
	case '*': case '~': case '>': case '%': case '|': {
		if (!(q = parse_line(p, end, &n)))
			return NULL;
		long count = n < 0 ? 0 : n;
		if (type == '%' || type == '|')
			count *= 2;
		if (depth == 0) {
			r->type = type;
			r->nelems = count;
		}
		for (long i = 0; i < count; i++) {
			const char *start = q;
			q = parse_value(q, end, depth + 1, r);
			if (!q || q == (const char *)-1)
				return q;
			if (depth == 0 && i < MAX_ELEMS) {
				if (*start == '$') {
					long blen = -1;
					const char *body = parse_line(start + 1, end, &blen);
					r->elem[i] = body;
					r->elem_len[i] = blen;
				} else {
					r->elem[i] = NULL;
					r->elem_len[i] = -1;
				}
			}
		}
		if (type == '|') /* an attribute precedes the value it describes */
			return parse_value(q, end, depth, r);
		return q;
	}
	default:
		return (const char *)-1;
	}
}

static int elem_is(const struct reply *r, int i, const char *s)
{
	size_t n = strlen(s);
	return r->elem[i] && r->elem_len[i] == (long)n && memcmp(r->elem[i], s, n) == 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Appends one RESP bulk string to a growing command buffer. */
static void add_bulk(char **cmd, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	size_t need = *len + n + 32;
	if (need > *cap) {
		*cap = need * 2;
		*cmd = realloc(*cmd, *cap);
		if (!*cmd) {
			perror("realloc");
			exit(2);
		}
	}
	*len += (size_t)sprintf(*cmd + *len, "$%zu\r\n", n);
	memcpy(*cmd + *len, s, n);
	*len += n;
	memcpy(*cmd + *len, "\r\n", 2);
	*len += 2;
}

static void add_header(char **cmd, size_t *len, size_t *cap, long nargs)
{
	if (*len + 32 > *cap) {
		*cap = (*len + 32) * 2;
		*cmd = realloc(*cmd, *cap);
		if (!*cmd) {
			perror("realloc");
			exit(2);
		}
	}
	*len += (size_t)sprintf(*cmd + *len, "*%ld\r\n", nargs);
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "getaddrinfo: %s\n", gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: pubsub_sub -p PORT [-H host] [-c conns] -n messages [-C channel] "
	                "[-P pattern] [-x extra-patterns] [-m payload] [-3] [-t idle-seconds]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1", *port = NULL, *channel = NULL, *pattern = NULL;
	const char *payload = NULL;
	long nconns = 1, expect = -1, extra = 0;
	int resp3 = 0;
	double idle = 30;
	int opt;
	while ((opt = getopt(argc, argv, "p:H:c:n:C:P:x:m:3t:")) != -1) {
		switch (opt) {
		case 'p': port = optarg; break;
		case 'H': host = optarg; break;
		case 'c': nconns = atol(optarg); break;
		case 'n': expect = atol(optarg); break;
		case 'C': channel = optarg; break;
		case 'P': pattern = optarg; break;
		case 'x': extra = atol(optarg); break;
		case 'm': payload = optarg; break;
		case '3': resp3 = 1; break;
		case 't': idle = atof(optarg); break;
		default: usage();
		}
	}
	if (!port || expect < 0 || nconns < 1 || nconns > MAX_CONNS || extra < 0 || (!channel && !pattern))
		usage();
	if (channel && pattern) {
		fprintf(stderr, "pubsub_sub: -C and -P together would deliver each message twice\n");
		return 2;
	}

	struct conn *conns = calloc((size_t)nconns, sizeof *conns);
	struct pollfd *pfds = calloc((size_t)nconns, sizeof *pfds);
	if (!conns || !pfds) {
		perror("calloc");
		return 2;
	}
	for (long i = 0; i < nconns; i++) {
		struct conn *c = &conns[i];
		c->fd = connect_to(host, port);
		if (c->fd < 0) {
			fprintf(stderr, "pubsub_sub: cannot connect to %s:%s: %s\n", host, port, strerror(errno));
			return 2;
		}
		c->buf = malloc(BUF_SIZE);
		if (!c->buf) {
			perror("malloc");
			return 2;
		}
		char *cmd = NULL;
		size_t len = 0, cap = 0;
		if (resp3) {
			add_header(&cmd, &len, &cap, 2);
			add_bulk(&cmd, &len, &cap, "HELLO");
			add_bulk(&cmd, &len, &cap, "3");
			c->want_confirms++; /* HELLO's map */
		}
		if (channel) {
			add_header(&cmd, &len, &cap, 2);
			add_bulk(&cmd, &len, &cap, "SUBSCRIBE");
			add_bulk(&cmd, &len, &cap, channel);
			c->want_confirms++;
		}
		long mine = 0; /* extra patterns dealt to this connection */
		for (long j = i; j < extra; j += nconns)
			mine++;
		if (pattern || mine > 0) {
			add_header(&cmd, &len, &cap, 1 + (pattern ? 1 : 0) + mine);
			add_bulk(&cmd, &len, &cap, "PSUBSCRIBE");
			if (pattern)
				add_bulk(&cmd, &len, &cap, pattern);
			for (long j = i; j < extra; j += nconns) {
				char p[64];
				snprintf(p, sizeof p, "p:%ld:*", j);
				add_bulk(&cmd, &len, &cap, p);
			}
			c->want_confirms += (pattern ? 1 : 0) + mine;
		}
		if (write_all(c->fd, cmd, len) < 0) {
			perror("write");
			return 2;
		}
		free(cmd);
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
		pfds[i].fd = c->fd;
		pfds[i].events = POLLIN;
	}

	long confirming = nconns, complete = 0, open = nconns;
	double t_first = 0, t_last = 0, t_done = 0, t_activity = now_s();
	long total = 0, bad = 0;
	int ready = 0;
	for (;;) {
		if (!ready && confirming == 0) {
			printf("ready\n");
			fflush(stdout);
			ready = 1;
		}
		double t = now_s();
		if (complete == nconns && t_done == 0)
			t_done = t;
		if (t_done > 0 && t - t_done > 0.2)
			break;
		if (open == 0 || t - t_activity > idle)
			break;
		int n = poll(pfds, (nfds_t)nconns, 50);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			return 2;
		}
		if (n == 0)
			continue;
		for (long i = 0; i < nconns; i++) {
			struct conn *c = &conns[i];
			if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			/* Drain the socket: a fast publisher fills it again before the next poll. */
			for (;;) {
				ssize_t r = read(c->fd, c->buf + c->len, BUF_SIZE - c->len);
				if (r < 0) {
					if (errno == EINTR)
						continue;
					if (errno != EAGAIN && errno != EWOULDBLOCK) {
						c->closed = 1;
						pfds[i].fd = -1;
						open--;
					}
					break;
				}
				if (r == 0) {
					c->closed = 1;
					pfds[i].fd = -1;
					open--;
					break;
				}
				c->len += (size_t)r;
				t_activity = now_s();
				const char *p = c->buf, *end = c->buf + c->len;
				for (;;) {
					struct reply rep = {0};
					const char *q = parse_value(p, end, 0, &rep);
					if (!q)
						break;
					if (q == (const char *)-1) {
						fprintf(stderr, "pubsub_sub: malformed reply on connection %ld\n", i);
						return 2;
					}
					p = q;
					int is_agg = rep.type == '*' || rep.type == '>';
					if (c->want_confirms > 0 && (rep.type == '%' ||
					    (is_agg && rep.nelems == 3 &&
					     (elem_is(&rep, 0, "subscribe") || elem_is(&rep, 0, "psubscribe"))))) {
						if (--c->want_confirms == 0)
							confirming--;
						continue;
					}
					int good = 0;
					if (is_agg && rep.nelems == 3 && elem_is(&rep, 0, "message"))
						good = (!channel || elem_is(&rep, 1, channel)) &&
						       (!payload || elem_is(&rep, 2, payload));
					else if (is_agg && rep.nelems == 4 && elem_is(&rep, 0, "pmessage"))
						good = pattern && elem_is(&rep, 1, pattern) &&
						       (!payload || elem_is(&rep, 3, payload));
					if (good) {
						c->messages++;
						total++;
						if (c->messages == expect)
							complete++;
						double tm = t_activity;
						if (t_first == 0)
							t_first = tm;
						t_last = tm;
					} else {
						if (c->bad++ < 3)
							fprintf(stderr, "pubsub_sub: unexpected reply type %c with %ld elements on connection %ld\n",
							        rep.type, rep.nelems, i);
						bad++;
					}
				}
				c->len = (size_t)(end - p);
				memmove(c->buf, p, c->len);
			}
		}
	}

	long mn = -1, mx = 0, closed = 0;
	for (long i = 0; i < nconns; i++) {
		if (mn < 0 || conns[i].messages < mn)
			mn = conns[i].messages;
		if (conns[i].messages > mx)
			mx = conns[i].messages;
		closed += conns[i].closed;
	}
	double secs = t_last > t_first ? t_last - t_first : 0;
	int ok = ready && mn == expect && mx == expect && bad == 0 && closed == 0;
	printf("subscribers=%ld received=%ld min=%ld max=%ld bad=%ld closed=%ld seconds=%.3f "
	       "delivered_per_s=%.0f ok=%d\n",
	       nconns, total, mn, mx, bad, closed, secs, secs > 0 ? (double)total / secs : 0, ok);
	for (long i = 0; i < nconns; i++) {
		close(conns[i].fd);
		free(conns[i].buf);
	}
	free(conns);
	free(pfds);
	return ok ? 0 : 1;
}
