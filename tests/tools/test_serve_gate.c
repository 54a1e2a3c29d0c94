/* SPDX-License-Identifier: MIT */
/* The gate in front of the HTTP library (tools/serve_gate.c), on a loopback socket of
 * its own: a sound head is handed over with every byte still unread (also when it
 * comes in pieces); a long request line, a long head, a malformed head, a client too
 * slow, one pushed out by newer ones, one the server has no room for and one the
 * server could not take (it closed the socket) each get their status with a JSON
 * error. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/serve_gate.h"

#define MAX_HEAD 256

static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int fd[8], n, refuse; /* refuse: take returns -1 (full) or -2 (out of memory) */
} handed = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };

static bp_gate *gate;
static int port;

static int take(void *ctx, int fd, const struct sockaddr *addr, socklen_t len)
{
	(void)ctx;
	(void)addr;
	(void)len;
	pthread_mutex_lock(&handed.m);
	int refuse = handed.refuse;
	if (!refuse && handed.n < 8)
		handed.fd[handed.n++] = fd;
	if (refuse == 2) /* the library could not take it: it closes the socket */
		close(fd);
	pthread_cond_signal(&handed.c);
	pthread_mutex_unlock(&handed.m);
	return refuse ? -refuse : 0;
}

static void start(unsigned timeout, int max_pending)
{
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	cr_assert_geq(lfd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t len = sizeof a;
	cr_assert_eq(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(lfd, 64), 0);
	cr_assert_eq(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	struct bp_gate_opts o = { .listen_fd = lfd,
				  .timeout = timeout,
				  .max_head = MAX_HEAD,
				  .max_pending = max_pending,
				  .handoff = take };
	cr_assert_eq(bp_gate_start(&o, &gate), 0);
}

static void stop(void)
{
	bp_gate_stop(gate);
	for (int i = 0; i < handed.n; i++)
		close(handed.fd[i]);
	handed.n = 0;
	handed.refuse = 0;
}

static int dial(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(0x7f000001) };
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

static void put(int fd, const char *s, size_t n)
{
	cr_assert_eq(send(fd, s, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* The next socket handed over, waiting 5 s at most; -1 when none came. */
static int next_handed(int k)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&handed.m);
	while (handed.n <= k)
		if (pthread_cond_timedwait(&handed.c, &handed.m, &until) != 0)
			break;
	int fd = handed.n > k ? handed.fd[k] : -1;
	pthread_mutex_unlock(&handed.m);
	return fd;
}

/* Reads the answer on fd until the gate closes it (10 s at most). */
static void answer(int fd, char *buf, size_t cap)
{
	size_t have = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (have + 1 < cap && poll(&p, 1, 10000) == 1) {
		ssize_t r = recv(fd, buf + have, cap - 1 - have, 0);
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	buf[have] = 0;
}

/* fd's answer has status and a JSON error body. */
static void expect_refused(int fd, int status)
{
	char buf[2048], want[32];
	answer(fd, buf, sizeof buf);
	snprintf(want, sizeof want, "HTTP/1.1 %d ", status);
	cr_expect_eq(strncmp(buf, want, strlen(want)), 0, "want %d, got: %s", status, buf);
	cr_expect_not_null(strstr(buf, "Content-Type: application/json"), "%s", buf);
	cr_expect_not_null(strstr(buf, "\r\n\r\n{\"error\": \""), "%s", buf);
	close(fd);
}

Test(serve_gate, sound_head_handed_over_unread)
{
	start(5, 8);
	const char req[] = "GET /api/instances HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n";
	int fd = dial();
	put(fd, req, 20); /* in two pieces */
	usleep(100000);
	pthread_mutex_lock(&handed.m);
	cr_expect_eq(handed.n, 0, "handed over half a head");
	pthread_mutex_unlock(&handed.m);
	put(fd, req + 20, sizeof req - 1 - 20);
	int h = next_handed(0);
	cr_assert_geq(h, 0, "a sound head was not handed over");
	char buf[256] = { 0 };
	ssize_t r = recv(h, buf, sizeof buf - 1, 0);
	cr_expect_eq(r, (ssize_t)(sizeof req - 1));
	cr_expect_str_eq(buf, req, "the bytes the library reads");
	/* HTTP/1.0 needs no Host; blank lines before a request are allowed */
	int fd2 = dial();
	put(fd2, "\r\nGET / HTTP/1.0\r\n\r\n", 20);
	cr_expect_geq(next_handed(1), 0);
	close(fd);
	close(fd2);
	stop();
}

Test(serve_gate, too_long)
{
	start(5, 8);
	char big[MAX_HEAD * 4];
	memset(big, 'x', sizeof big);
	memcpy(big, "GET /", 5);
	int fd = dial();
	put(fd, big, sizeof big);
	expect_refused(fd, 414);
	memcpy(big, "GET / HTTP/1.1\r\nHost: a\r\nX: ", 28);
	fd = dial();
	put(fd, big, sizeof big);
	expect_refused(fd, 431);
	cr_expect_eq(handed.n, 0);
	stop();
}

Test(serve_gate, malformed)
{
	start(5, 8);
	const char *bad[] = {
		"GARBAGE\r\n\r\n",
		"get / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/2.0\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
		"GET / HTTP/1.1\r\nHost a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX: \001\r\n\r\n",
		"GET /\001 HTTP/1.1\r\nHost: a\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int fd = dial();
		put(fd, bad[i], strlen(bad[i]));
		expect_refused(fd, 400);
	}
	/* a client that stops sending before the blank line */
	int fd = dial();
	put(fd, "GET / HTTP/1.1\r\nHost: a\r\n", 25);
	shutdown(fd, SHUT_WR);
	expect_refused(fd, 400);
	cr_expect_eq(handed.n, 0);
	stop();
}

Test(serve_gate, slow_and_crowded)
{
	start(1, 2);
	int slow = dial();
	put(slow, "GET / HTTP/1.1\r\n", 16);
	expect_refused(slow, 408); /* after the 1 s timeout */
	/* three slow clients for two places: the oldest is pushed out */
	int a = dial(), b, c;
	put(a, "GET", 3);
	usleep(50000);
	b = dial();
	put(b, "GET", 3);
	usleep(50000);
	c = dial();
	put(c, "GET", 3);
	expect_refused(a, 408);
	/* the newer ones are still waiting: one completes its head and gets in */
	put(c, " / HTTP/1.1\r\nHost: a\r\n\r\n", 24);
	cr_expect_geq(next_handed(0), 0);
	close(b);
	close(c);
	stop();
}

Test(serve_gate, server_full)
{
	start(5, 8);
	handed.refuse = 1;
	int fd = dial();
	put(fd, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", 27);
	expect_refused(fd, 503);
	stop();
}

/* The library ran out of memory taking the connection and closed the socket: the gate
 * still answers, on the copy it kept (found by tests/tools/faults_serve.sh: the client
 * got no answer at all). */
Test(serve_gate, handoff_failed)
{
	start(5, 8);
	handed.refuse = 2;
	int fd = dial();
	put(fd, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", 27);
	expect_refused(fd, 503);
	stop();
}
