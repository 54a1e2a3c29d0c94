/* SPDX-License-Identifier: MIT */
/* The gate (see serve_gate.h).
 *
 * One thread polls the listening socket, a wake-up pipe and every connection that
 * has not yet sent a complete head. A waiting connection is read with MSG_PEEK: the
 * bytes stay in the kernel for the HTTP library to read after the handover. So that
 * a head that arrives in pieces does not make poll() report the same bytes again and
 * again, SO_RCVLOWAT is raised past what has been seen (Linux's poll honours it), and
 * put back to 1 before the handover.
 *
 *   accept -> waiting --(head complete, sound)--> handoff (library owns the socket)
 *                |  \--(too long, malformed)--> JSON error, draining --> close
 *                \--(timeout, or pushed out by a newer one)--> JSON 408 --> close
 *
 * Draining: after an error the gate stops writing (shutdown) but reads and discards
 * what the client still sends for a while, so that a client still uploading a huge
 * request line reads the answer instead of a reset. */
#define _GNU_SOURCE /* accept4 */
#include "tools/serve_gate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MAX_HEAD_LIMIT (60 * 1024)
#define DRAIN_BYTES (64u << 20) /* discarded at most, after an error */
#define DRAIN_SECONDS 5.0

struct conn {
	int fd, draining;
	double since;
	struct sockaddr_storage sa;
	socklen_t salen;
	size_t drained;
};

struct bp_gate {
	struct bp_gate_opts o;
	int wake[2];
	pthread_t thread;
	struct conn *c;
	int n;
	char buf[MAX_HEAD_LIMIT + 1];
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	default: return "Service Unavailable";
	}
}

/* Sends an error answer with a JSON body, best effort (it is short: it fits the
 * empty send buffer of a connection that has had no answer yet). */
static void reply(int fd, int status, const char *msg)
{
	char body[512], head[512];
	int nb = snprintf(body, sizeof body, "{\"error\": \"%s\"}\n", msg);
	int nh = snprintf(head, sizeof head,
			  "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\n"
			  "Content-Length: %d\r\nConnection: close\r\nCache-Control: no-store\r\n"
			  "X-Content-Type-Options: nosniff\r\n\r\n",
			  status, reason(status), nb);
	char all[1024];
	memcpy(all, head, (size_t)nh);
	memcpy(all + nh, body, (size_t)nb);
	ssize_t r = send(fd, all, (size_t)(nh + nb), MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)r;
}

/* Closes a connection, first reading what it has sent and nobody read: closing with
 * unread bytes would reset the connection, and the client could lose the answer. */
static void discard_close(bp_gate *g, int fd)
{
	for (int k = 0; k < 16 && recv(fd, g->buf, sizeof g->buf, MSG_DONTWAIT) > 0; k++)
		;
	close(fd);
}

static void drop(bp_gate *g, int i, int close_fd)
{
	if (close_fd)
		discard_close(g, g->c[i].fd);
	g->c[i] = g->c[--g->n];
}

/* Answers connection i with an error and lets it drain. */
static void refuse(bp_gate *g, int i, int status, const char *msg)
{
	struct conn *c = &g->c[i];
	int one = 1;
	setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one);
	reply(c->fd, status, msg);
	shutdown(c->fd, SHUT_WR);
	c->draining = 1;
	c->since = now();
}

static int tchar(unsigned char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* Checks a complete head h[0..len) (up to and with its blank line) as the library
 * would take it: @return NULL when sound, or what is wrong. */
static const char *check_head(const char *h, size_t len)
{
	const char *p = h, *end = h + len;
	while (p < end && (*p == '\r' || *p == '\n')) /* blank lines before are allowed */
		p++;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		return "malformed request line";
	const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	const char *m = p;
	while (p < le && *p >= 'A' && *p <= 'Z')
		p++;
	if (p == m || p - m > 16 || p == le || *p != ' ')
		return "malformed request line (expected METHOD TARGET HTTP/1.1)";
	const char *t = ++p;
	while (p<le && * p> 0x20 && *p < 0x7f)
		p++;
	if (p == t || p == le || *p != ' ')
		return "malformed request line (expected METHOD TARGET HTTP/1.1)";
	p++;
	int v11;
	if (le - p == 8 && memcmp(p, "HTTP/1.1", 8) == 0)
		v11 = 1;
	else if (le - p == 8 && memcmp(p, "HTTP/1.0", 8) == 0)
		v11 = 0;
	else
		return "unsupported or malformed HTTP version (HTTP/1.0 or HTTP/1.1)";
	int host = 0;
	for (p = eol + 1; p < end;) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			return "malformed header line";
		le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (le == p)
			break; /* the blank line */
		if (*p == ' ' || *p == '\t')
			return "folded header line";
		const char *n = p;
		while (p < le && tchar((unsigned char)*p))
			p++;
		if (p == n || p == le || *p != ':')
			return "malformed header line (expected Name: value)";
		host |= p - n == 4 && strncasecmp(n, "host", 4) == 0;
		for (p++; p < le; p++)
			if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
				return "control byte in a header value";
		p = eol + 1;
	}
	if (v11 && !host)
		return "an HTTP/1.1 request without a Host header";
	return NULL;
}

/* Where the head in b[0..n) ends (after its blank line), or 0. */
static size_t head_end(const char *b, size_t n)
{
	size_t i = 0;
	while (i < n && (b[i] == '\r' || b[i] == '\n')) /* blank lines before the request */
		i++;
	for (; i < n; i++) {
		if (b[i] != '\n')
			continue;
		if (i + 1 < n && b[i + 1] == '\n')
			return i + 2;
		if (i + 2 < n && b[i + 1] == '\r' && b[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static void on_data(bp_gate *g, int i, short revents)
{
	struct conn *c = &g->c[i];
	if (c->draining) {
		for (;;) {
			ssize_t r = recv(c->fd, g->buf, sizeof g->buf, MSG_DONTWAIT);
			if (r > 0 && (c->drained += (size_t)r) < DRAIN_BYTES)
				continue;
			if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) &&
			    c->drained < DRAIN_BYTES)
				return;
			drop(g, i, 1);
			return;
		}
	}
	size_t want = g->o.max_head + 1;
	ssize_t r = recv(c->fd, g->buf, want, MSG_PEEK | MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (r <= 0) {
		drop(g, i, 1);
		return;
	}
	size_t n = (size_t)r, e = head_end(g->buf, n);
	if (e && e <= g->o.max_head) {
		const char *bad = check_head(g->buf, e);
		if (bad) {
			refuse(g, i, 400, bad);
			return;
		}
		int one = 1;
		setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one);
		struct conn h = *c;
		drop(g, i, 0);
		/* a copy to answer on when the handoff fails after closing the socket */
		int spare = dup(h.fd);
		int rc = g->o.handoff(g->o.ctx, h.fd, (const struct sockaddr *)&h.sa, h.salen);
		if (rc == -1) {
			reply(h.fd, 503, "too many connections: try again shortly");
			discard_close(g, h.fd);
		} else if (rc == -2 && spare >= 0) {
			reply(spare, 503,
			      "out of memory: the server could not take the connection");
			discard_close(g, spare);
			spare = -1;
		}
		if (spare >= 0)
			close(spare);
		return;
	}
	if (n > g->o.max_head) {
		char msg[128];
		if (!memchr(g->buf, '\n', g->o.max_head)) {
			snprintf(msg, sizeof msg, "request line too long (more than %zu bytes)",
				 g->o.max_head);
			refuse(g, i, 414, msg);
		} else {
			snprintf(msg, sizeof msg,
				 "request head too large (more than %zu bytes of headers)",
				 g->o.max_head);
			refuse(g, i, 431, msg);
		}
		return;
	}
	if (revents & (POLLRDHUP | POLLHUP | POLLERR)) {
		/* the client stopped sending before the head's end: nothing more comes */
		refuse(g, i, 400, "the request head ended before its blank line");
		return;
	}
	/* incomplete: wake up again only when more than this has arrived */
	int low = (int)n + 1;
	setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &low, sizeof low);
}

static void on_accept(bp_gate *g)
{
	for (int k = 0; k < 64; k++) {
		struct sockaddr_storage sa;
		socklen_t len = sizeof sa;
		int fd = accept4(g->o.listen_fd, (struct sockaddr *)&sa, &len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* out of descriptors: the listening socket stays readable, so wait a
			 * little instead of polling it again at once */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				poll(NULL, 0, 20);
			return;
		}
		if (g->n == g->o.max_pending) {
			/* full: the connection waiting longest makes room */
			int old = 0;
			for (int i = 1; i < g->n; i++)
				if (g->c[i].since < g->c[old].since)
					old = i;
			if (!g->c[old].draining)
				reply(g->c[old].fd, 408,
				      "request head too slow (the server had more waiting)");
			drop(g, old, 1);
		}
		struct conn *c = &g->c[g->n++];
		memset(c, 0, sizeof *c);
		c->fd = fd;
		c->since = now();
		c->sa = sa;
		c->salen = len;
	}
}

static void *run(void *arg)
{
	bp_gate *g = arg;
	struct pollfd *pf = malloc(sizeof *pf * (size_t)(g->o.max_pending + 2));
	if (!pf)
		return NULL;
	for (;;) {
		double t = now(), next = -1;
		pf[0] = (struct pollfd){ .fd = g->wake[0], .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = g->o.listen_fd, .events = POLLIN };
		for (int i = 0; i < g->n;) {
			double limit = g->c[i].draining ? DRAIN_SECONDS : (double)g->o.timeout;
			double left = g->c[i].since + limit - t;
			if (left <= 0) {
				if (!g->c[i].draining)
					reply(g->c[i].fd, 408,
					      "no complete request head in time (a slow client)");
				drop(g, i, 1);
				continue;
			}
			if (next < 0 || left < next)
				next = left;
			pf[i + 2] =
				(struct pollfd){ .fd = g->c[i].fd, .events = POLLIN | POLLRDHUP };
			i++;
		}
		int nfds = g->n + 2;
		int r = poll(pf, (nfds_t)nfds, next < 0 ? -1 : (int)(next * 1000) + 1);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (pf[0].revents)
			break;
		/* connections first, from the end so that drop() moves only ones seen */
		for (int i = nfds - 3; i >= 0; i--)
			if (i < g->n && g->c[i].fd == pf[i + 2].fd && pf[i + 2].revents)
				on_data(g, i, pf[i + 2].revents);
		if (pf[1].revents)
			on_accept(g);
	}
	free(pf);
	return NULL;
}

int bp_gate_start(const struct bp_gate_opts *o, bp_gate **out)
{
	*out = NULL;
	if (o->max_head > MAX_HEAD_LIMIT || o->max_head < 64 || o->max_pending < 1) {
		errno = EINVAL;
		return -1;
	}
	bp_gate *g = calloc(1, sizeof *g);
	if (!g)
		return -1;
	g->o = *o;
	g->c = calloc((size_t)o->max_pending, sizeof *g->c);
	if (!g->c || pipe2(g->wake, O_CLOEXEC) != 0) {
		free(g->c);
		free(g);
		return -1;
	}
	if (pthread_create(&g->thread, NULL, run, g) != 0) {
		close(g->wake[0]);
		close(g->wake[1]);
		free(g->c);
		free(g);
		errno = EAGAIN;
		return -1;
	}
	*out = g;
	return 0;
}

void bp_gate_stop(bp_gate *g)
{
	if (!g)
		return;
	ssize_t r = write(g->wake[1], "x", 1);
	(void)r;
	pthread_join(g->thread, NULL);
	/* every connection the gate still holds, and every one the kernel has queued,
	 * gets an answer rather than a reset */
	for (int i = 0; i < g->n; i++) {
		if (!g->c[i].draining)
			reply(g->c[i].fd, 503, "the server is stopping");
		discard_close(g, g->c[i].fd);
	}
	for (int k = 0, fd; k < 4096 && (fd = accept4(g->o.listen_fd, NULL, NULL,
						      SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;
	     k++) {
		reply(fd, 503, "the server is stopping");
		discard_close(g, fd);
	}
	close(g->o.listen_fd);
	close(g->wake[0]);
	close(g->wake[1]);
	free(g->c);
	free(g);
}
