/* SPDX-License-Identifier: MIT */
/* boardproof serve: the explorer, a local web page over the database, and its JSON API
 * (tools/explorer.c), on libmicrohttpd.
 *
 * Connections. The server accepts them itself: each waits in the gate
 * (tools/serve_gate.c) until its first request head is complete and sound, and is
 * then handed to libmicrohttpd (MHD_add_connection). So a slow client holds no thread
 * and no library connection, and a head the library would refuse with its own HTML
 * page (too long, malformed) is refused by the gate with a JSON error. The library
 * runs a pool of threads, each polling its share of the connections (epoll where
 * there is one); a connection silent for --timeout seconds is dropped; at most
 * BP_SERVE_MAX_CONNECTIONS are open (the gate answers 503 past that).
 *
 * One request per connection, on purpose: libmicrohttpd (0.9.75 here) closes a
 * connection whose answer is queued on the handler's first call, and every answer
 * says Connection: close (a claims answer comes on a later call), so every request's
 * head passes the gate. Keeping connections
 * alive would be faster, but a later request on one would be read by the library
 * alone, and past its memory pool (BP_SERVE_POOL) refused with its own HTML. The
 * checks below on the head's size stay as a second line.
 *
 * Requests. This file refuses with a JSON error: request URIs over BP_SERVE_MAX_URI
 * bytes (414), heads over BP_SERVE_MAX_HEAD (431), methods other than GET and HEAD
 * (405), paths with a ".." segment (400), and any path that is neither one of the
 * embedded page's files nor the API (404). Files are never read from disk at run
 * time: the page is compiled in (tools/web_files.h).
 *
 * Claims take seconds: a request for them that must wait is suspended
 * (MHD_suspend_connection), which frees its thread for the others, and resumed when
 * the explorer's worker calls back. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/explorer.h"

static const char *const valued[] = { "db", "port", "host", "threads", "timeout", NULL };

#if BP_HAVE_MHD
#include <microhttpd.h>

#include "tools/serve_gate.h"
#include "tools/web_files.h"

#define BP_SERVE_MAX_URI 8192
#define BP_SERVE_MAX_HEAD (32 * 1024)
#define BP_SERVE_POOL ((size_t)64 * 1024)
#define BP_SERVE_MAX_CONNECTIONS 512u
#define BP_SERVE_MAX_WAITING 256

struct server {
	bp_explorer *ex;
	struct MHD_Daemon *d;
};

struct request {
	size_t uri_len;
	struct MHD_Connection *c;
	int suspended, ready, waited;
};

/* Guards the suspended and ready flags of every request: a claims answer may be ready
 * (called back from the explorer's worker) before its request is suspended. */
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;

/* Requests that have waited for claims and are not finished: a stopping server lets
 * them send their answer (the worker resumes them with a 503) before it closes. */
static atomic_int parked;

static void claims_ready(void *ctx)
{
	struct request *r = ctx;
	pthread_mutex_lock(&wait_mu);
	if (r->suspended) {
		r->suspended = 0;
		MHD_resume_connection(r->c);
	} else {
		r->ready = 1;
	}
	pthread_mutex_unlock(&wait_mu);
}

struct args_ctx {
	struct bp_explorer_arg arg[BP_EXPLORER_MAX_ARGS + 1];
	int n;
};

/* Called by the library with the raw request URI (path and query) before parsing:
 * its length is kept for the handler. */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	struct request *r = calloc(1, sizeof *r);
	if (r) {
		r->uri_len = strlen(uri);
		r->c = c;
	}
	return r;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
				    const char *value)
{
	(void)kind;
	size_t *n = cls;
	*n += strlen(key) + (value ? strlen(value) : 0) + 4;
	return MHD_YES;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)c;
	(void)why;
	struct request *r = *con_cls;
	if (r && r->waited)
		atomic_fetch_sub(&parked, 1);
	free(*con_cls);
	*con_cls = NULL;
}

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *value)
{
	(void)kind;
	struct args_ctx *a = cls;
	if (a->n < BP_EXPLORER_MAX_ARGS + 1) {
		a->arg[a->n].key = key ? key : "";
		a->arg[a->n].value = value ? value : "";
	}
	a->n++;
	return MHD_YES;
}

/* The 503 answer for when making an answer runs out of memory, made at start-up: the
 * client gets it instead of a connection closed without a word. */
static const char oom_body[] = "{\"error\": \"out of memory\"}\n";
static struct MHD_Response *oom_response;

/* A response of size bytes at data with the server's headers, or NULL. */
static struct MHD_Response *make_response(int status, const char *type, const void *data,
					  size_t size, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(size, (void *)data, mode);
	if (!r)
		return NULL;
	int ok = MHD_add_response_header(r, "Content-Type", type) == MHD_YES &&
		 MHD_add_response_header(r, "X-Content-Type-Options", "nosniff") == MHD_YES &&
		 MHD_add_response_header(r, "Referrer-Policy", "no-referrer") == MHD_YES &&
		 MHD_add_response_header(r, "Content-Security-Policy",
					 "default-src 'self'; img-src 'self' data:; "
					 "frame-ancestors 'none'") == MHD_YES &&
		 MHD_add_response_header(r, "Cache-Control", "no-store") == MHD_YES &&
		 /* one request each: see the top */
		 MHD_add_response_header(r, "Connection", "close") == MHD_YES &&
		 (status != MHD_HTTP_METHOD_NOT_ALLOWED ||
		  MHD_add_response_header(r, "Allow", "GET, HEAD") == MHD_YES);
	if (!ok) {
		MHD_destroy_response(r);
		return NULL;
	}
	return r;
}

static enum MHD_Result send_body(struct MHD_Connection *c, int status, const char *type,
				 const void *data, size_t size, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = make_response(status, type, data, size, mode);
	if (!r) /* out of memory: the answer made at start-up */
		return MHD_queue_response(c, 503, oom_response);
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

/* A JSON answer; a body that ran out of memory while it was built (an error message
 * included) is never sent cut short: the 503 goes instead. */
static enum MHD_Result send_json(struct MHD_Connection *c, int status, const struct bp_text *t)
{
	if (t->failed)
		return MHD_queue_response(c, 503, oom_response);
	return send_body(c, status, "application/json; charset=utf-8", bp_text_str(t), t->len,
			 MHD_RESPMEM_MUST_COPY);
}

/* Whether path has a ".." segment (the library has already decoded %2e). */
static int traverses(const char *path)
{
	for (const char *s = path; (s = strstr(s, "..")) != NULL; s += 2)
		if ((s == path || s[-1] == '/' || s[-1] == '\\') &&
		    (s[2] == 0 || s[2] == '/' || s[2] == '\\'))
			return 1;
	return 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	(void)version;
	(void)upload;
	struct server *sv = cls;
	bp_explorer *ex = sv->ex;
	struct request *r = *con_cls;
	size_t head = strlen(url) + strlen(method) + 16;
	struct bp_text body = { 0 };
	int status;
	if (*upload_size) { /* a body nobody asked for: the answer is already queued */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		status = bp_explorer_error(&body, MHD_HTTP_METHOD_NOT_ALLOWED,
					   "method not allowed (GET or HEAD only)");
	} else if ((MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &head),
		    head > BP_SERVE_MAX_HEAD)) {
		bp_text_clear(&body);
		bp_text_printf(&body,
			       "{\"error\": \"request head too large (%zu bytes, at most %d)\"}\n",
			       head, BP_SERVE_MAX_HEAD);
		status = MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE;
	} else if (r && r->uri_len > BP_SERVE_MAX_URI) {
		bp_text_clear(&body);
		bp_text_printf(&body,
			       "{\"error\": \"request URI too long (%zu bytes, at most %d)\"}\n",
			       r->uri_len, BP_SERVE_MAX_URI);
		status = MHD_HTTP_URI_TOO_LONG;
	} else if (traverses(url)) {
		status = bp_explorer_error(&body, 400, "path traversal refused ('..' in the path)");
	} else if (strncmp(url, "/api/", 5) == 0) {
		struct args_ctx a = { .n = 0 };
		MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, &a);
		struct bp_explorer_wait w = { claims_ready, r, r ? r->waited : 1 };
		int nargs = a.n > BP_EXPLORER_MAX_ARGS ? BP_EXPLORER_MAX_ARGS + 1 : a.n;
		for (;;) {
			status = bp_explorer_answer(ex, url, a.arg, nargs, r ? &w : NULL, &body);
			if (status != BP_EXPLORER_PENDING)
				break;
			/* parked until claims_ready; unless it already came */
			pthread_mutex_lock(&wait_mu);
			if (!r->waited)
				atomic_fetch_add(&parked, 1);
			r->waited = w.again = 1;
			int early = r->ready;
			r->ready = 0;
			if (!early) {
				r->suspended = 1;
				MHD_suspend_connection(c);
			}
			pthread_mutex_unlock(&wait_mu);
			if (!early) {
				bp_text_free(&body);
				return MHD_YES;
			}
		}
	} else {
		const char *want = strcmp(url, "/") == 0 ? "/index.html" : url;
		for (const struct bp_web_file *f = bp_web_files; f->path; f++)
			if (strcmp(f->path, want) == 0)
				return send_body(c, 200, f->type, f->data, f->size,
						 MHD_RESPMEM_PERSISTENT);
		status = bp_explorer_error(&body, 404, "no such page");
	}
	enum MHD_Result ret = send_json(c, status, &body);
	bp_text_free(&body);
	return ret;
}

/* The gate hands over a connection whose first head is complete and sound.
 * @return 0, or -1 when the server is full, or -2 when the library could not take it
 * (out of memory; it has closed fd): the gate answers 503. */
static int handoff(void *ctx, int fd, const struct sockaddr *addr, socklen_t len)
{
	struct server *sv = ctx;
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(sv->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	if (i && i->num_connections >= BP_SERVE_MAX_CONNECTIONS)
		return -1;
	/* the library closes fd when it cannot take it */
	return MHD_add_connection(sv->d, fd, addr, len) == MHD_YES ? 0 : -2;
}

static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* A listening TCP socket bound to sa. @return the socket, or -1. */
static int listen_on(const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, sa, len) != 0 || listen(fd, 128) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Parses a whole number in [lo, hi]. @return 0, or -1. */
static int parse_uint(const char *text, long lo, long hi, unsigned *out)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (end == text || *end || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int bp_cmd_serve(int argc, char **argv)
{
	const char *cmd = "serve";
	struct bp_cli_args a;
	struct bp_err err = { { 0 } };
	bp_explorer *ex = NULL;
	unsigned port = 8417, threads = 4, timeout = 10;
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos) {
		bp_cli_error(cmd, "unexpected argument '%s' (see boardproof serve --help)",
			     a.pos[0]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[1] && parse_uint(a.opt[1], 0, 65535, &port)) {
		bp_cli_error(cmd, "bad --port '%s' (a number from 0 to 65535; 0: any free port)",
			     a.opt[1]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[3] && parse_uint(a.opt[3], 1, 64, &threads)) {
		bp_cli_error(cmd, "bad --threads '%s' (a whole number from 1 to 64)", a.opt[3]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[4] && parse_uint(a.opt[4], 1, 3600, &timeout)) {
		bp_cli_error(cmd, "bad --timeout '%s' (seconds, from 1 to 3600)", a.opt[4]);
		return BP_EXIT_USAGE;
	}
	const char *host = a.opt[2] ? a.opt[2] : "127.0.0.1";
	struct sockaddr_in v4 = { 0 };
	struct sockaddr_in6 v6 = { 0 };
	const struct sockaddr *sa;
	int ipv6 = 0;
	if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
		v4.sin_family = AF_INET;
		v4.sin_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&v4;
	} else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
		v6.sin6_family = AF_INET6;
		v6.sin6_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&v6;
		ipv6 = 1;
	} else {
		bp_cli_error(cmd, "bad --host '%s' (a numeric IPv4 or IPv6 address)", host);
		return BP_EXIT_USAGE;
	}
	const char *dir = bp_cli_db_path(a.opt[0]);
	if ((rc = bp_explorer_open(dir, &ex, &err))) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(rc));
		return bp_cli_exit_code(rc);
	}
	int lfd = listen_on(sa, ipv6 ? sizeof v6 : sizeof v4);
	if (lfd < 0) {
		bp_cli_error(cmd, "cannot listen on %s port %u (in use, or not an address here)",
			     host, port);
		bp_explorer_close(ex);
		return BP_EXIT_IO;
	}
	struct sockaddr_storage bound_sa;
	socklen_t bound_len = sizeof bound_sa;
	unsigned bound = port;
	if (getsockname(lfd, (struct sockaddr *)&bound_sa, &bound_len) == 0)
		bound = ntohs(ipv6 ? ((struct sockaddr_in6 *)&bound_sa)->sin6_port
				   : ((struct sockaddr_in *)&bound_sa)->sin_port);

	/* SIGINT and SIGTERM end the server: blocked here, before the library and the
	 * gate start their threads (which inherit the mask), and waited for below. */
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	struct server sv = { ex, NULL };
	oom_response = make_response(503, "application/json; charset=utf-8", oom_body,
				     sizeof oom_body - 1, MHD_RESPMEM_PERSISTENT);
	/* on loopback (the default) every client has the same address: a limit per
	 * address would be the total limit; elsewhere one address gets a quarter */
	unsigned per_ip = is_loopback(sa) ? 0u : BP_SERVE_MAX_CONNECTIONS / 4;
	sv.d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_NO_LISTEN_SOCKET |
			MHD_ALLOW_SUSPEND_RESUME,
		0, NULL, NULL, answer, &sv, MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		BP_SERVE_POOL, MHD_OPTION_CONNECTION_LIMIT, BP_SERVE_MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip, MHD_OPTION_URI_LOG_CALLBACK, uri_seen,
		NULL, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	struct bp_gate_opts go = { .listen_fd = lfd,
				   .timeout = timeout,
				   .max_head = BP_SERVE_MAX_HEAD,
				   .max_pending = BP_SERVE_MAX_WAITING,
				   .handoff = handoff,
				   .ctx = &sv };
	bp_gate *gate = NULL;
	if (!oom_response || !sv.d || bp_gate_start(&go, &gate) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		bp_cli_error(cmd, "%s",
			     oom_response ? "cannot start the server's threads" : "out of memory");
		if (sv.d)
			MHD_stop_daemon(sv.d);
		if (oom_response)
			MHD_destroy_response(oom_response);
		close(lfd);
		bp_explorer_close(ex);
		return BP_EXIT_IO;
	}

	char url[96];
	snprintf(url, sizeof url, ipv6 ? "http://[%s]:%u/" : "http://%s:%u/", host, bound);
	int ret = BP_EXIT_OK;
	if (a.json) {
		struct bp_text t = { 0 };
		bp_text_printf(&t,
			       "{\"url\": \"%s\", \"host\": \"%s\", \"port\": %u, \"db\": ", url,
			       host, bound);
		bp_text_json_string(&t, dir);
		bp_text_printf(&t, "}\n");
		ret = bp_cli_print_text(cmd, &t); /* out of memory: stop at once */
		bp_text_free(&t);
	} else {
		printf("serving %s on %s (Ctrl-C stops)\n", dir, url);
	}
	fflush(stdout);
	int sig = 0;
	if (!ret)
		sigwait(&stop, &sig);
	bp_gate_stop(gate);   /* no new connections */
	bp_explorer_stop(ex); /* requests waiting for claims are resumed */
	/* ... and given up to 5 s to send their answers */
	for (int i = 0; i < 500 && atomic_load(&parked) > 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	MHD_stop_daemon(sv.d);
	MHD_destroy_response(oom_response);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	bp_explorer_close(ex);
	return ret;
}

#else

int bp_cmd_serve(int argc, char **argv)
{
	struct bp_cli_args a;
	int rc = bp_cli_parse("serve", argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help("serve", &a))
		return rc;
	bp_cli_error("serve", "not available: boardproof was built without libmicrohttpd "
			      "(install libmicrohttpd-dev and build again)");
	return BP_EXIT_PROBLEM;
}

#endif
