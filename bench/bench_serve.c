/* SPDX-License-Identifier: MIT */
/* A load client for `boardproof serve` on loopback: C keep-alive connections, each on
 * its own thread, send GET requests for the paths of a file (one a line, taken in
 * turn) until N requests are answered or S seconds pass, and report requests per
 * second and latency percentiles, counting every answer that is not 200.
 *
 *   bench_serve HOST PORT PATHS-FILE [REQUESTS [CONNECTIONS [SECONDS]]]
 *
 * Prints one JSON line. A benchmark, never a pass/fail test. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct shared {
	struct sockaddr_in addr;
	char **paths;
	long npaths, want;
	double deadline;
	atomic_long next, done, not_ok, failed;
	double *lat; /* want entries: seconds per answered request */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int dial(const struct shared *s)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct timeval tv = { 10, 0 };
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (connect(fd, (const struct sockaddr *)&s->addr, sizeof s->addr) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One request and its whole answer on fd. @return the status, or -1 (the connection
 * is then unusable). *keep is cleared when the server will close the connection. */
static int exchange(int fd, const char *path, char *buf, size_t cap, int *keep)
{
	int n = snprintf(buf, cap, "GET %s HTTP/1.1\r\nHost: bench\r\n\r\n", path);
	if (n < 0 || (size_t)n >= cap || send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
		return -1;
	size_t have = 0;
	char *end = NULL;
	while (!end) {
		if (have + 1 >= cap)
			return -1;
		ssize_t r = recv(fd, buf + have, cap - 1 - have, 0);
		if (r <= 0)
			return -1;
		have += (size_t)r;
		buf[have] = 0;
		end = strstr(buf, "\r\n\r\n");
	}
	int status = 0;
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	size_t head = (size_t)(end + 4 - buf), len = 0;
	for (char *h = buf; h < end; h++)
		if ((h == buf || h[-1] == '\n') && strncasecmp(h, "content-length:", 15) == 0)
			len = strtoul(h + 15, NULL, 10);
		else if ((h == buf || h[-1] == '\n') &&
			 strncasecmp(h, "connection: close", 17) == 0)
			*keep = 0;
	size_t body = have - head;
	while (body < len) {
		ssize_t r = recv(fd, buf, cap, 0);
		if (r <= 0)
			return -1;
		body += (size_t)r;
	}
	return status;
}

static void *worker(void *arg)
{
	struct shared *s = arg;
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	int fd = -1;
	if (!buf)
		return NULL;
	for (;;) {
		long i = atomic_fetch_add(&s->next, 1);
		if (i >= s->want || now() > s->deadline)
			break;
		if (fd < 0 && (fd = dial(s)) < 0) {
			atomic_fetch_add(&s->failed, 1);
			continue;
		}
		int keep = 1;
		double t0 = now();
		int st = exchange(fd, s->paths[i % s->npaths], buf, cap, &keep);
		double dt = now() - t0;
		if (st < 0) {
			atomic_fetch_add(&s->failed, 1);
			close(fd);
			fd = -1;
			continue;
		}
		if (st != 200)
			atomic_fetch_add(&s->not_ok, 1);
		s->lat[atomic_fetch_add(&s->done, 1)] = dt;
		if (!keep) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_serve HOST PORT PATHS-FILE [REQUESTS [CONNECTIONS "
				"[SECONDS]]]\n");
		return 2;
	}
	static struct shared s;
	long conns = argc > 5 ? atol(argv[5]) : 4;
	double seconds = argc > 6 ? atof(argv[6]) : 30;
	s.want = argc > 4 ? atol(argv[4]) : 2000;
	if (s.want < 1 || conns < 1 || conns > 256 || seconds <= 0) {
		fprintf(stderr, "bench_serve: bad counts\n");
		return 2;
	}
	s.addr.sin_family = AF_INET;
	s.addr.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &s.addr.sin_addr) != 1) {
		fprintf(stderr, "bench_serve: bad host %s\n", argv[1]);
		return 2;
	}
	FILE *f = fopen(argv[3], "r");
	if (!f) {
		perror(argv[3]);
		return 2;
	}
	char line[16384];
	long cap = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!*line)
			continue;
		if (s.npaths == cap) {
			cap = cap ? 2 * cap : 64;
			s.paths = realloc(s.paths, (size_t)cap * sizeof *s.paths);
			if (!s.paths)
				return 4;
		}
		s.paths[s.npaths++] = strdup(line);
	}
	fclose(f);
	s.lat = calloc((size_t)s.want, sizeof *s.lat);
	if (!s.npaths || !s.lat) {
		fprintf(stderr, "bench_serve: no paths in %s\n", argv[3]);
		return 2;
	}
	pthread_t *tid = calloc((size_t)conns, sizeof *tid);
	if (!tid)
		return 4;
	double t0 = now();
	s.deadline = t0 + seconds;
	for (long i = 0; i < conns; i++)
		pthread_create(&tid[i], NULL, worker, &s);
	for (long i = 0; i < conns; i++)
		pthread_join(tid[i], NULL);
	double wall = now() - t0;
	long n = atomic_load(&s.done);
	qsort(s.lat, (size_t)n, sizeof *s.lat, cmp_double);
#define PCT(p) (n ? s.lat[(long)((double)(n - 1) * (p))] * 1e3 : 0.0)
	printf("{\"requests\": %ld, \"not_200\": %ld, \"failed\": %ld, \"connections\": %ld, "
	       "\"seconds\": %.3f, \"requests_per_second\": %.0f, \"p50_ms\": %.3f, "
	       "\"p90_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"paths\": %ld}\n",
	       n, atomic_load(&s.not_ok), atomic_load(&s.failed), conns, wall, (double)n / wall,
	       PCT(0.50), PCT(0.90), PCT(0.99), PCT(1.0), s.npaths);
	return 0;
}
