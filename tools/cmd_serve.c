/* SPDX-License-Identifier: MIT */
/* boardproof serve: the explorer, a local web page over the database, and its JSON API
 * (tools/explorer.c), on libmicrohttpd.
 *
 * HTTP is libmicrohttpd's: a pool of threads, each polling its share of the
 * connections (epoll where there is one), so a slow or silent client holds no thread;
 * it is dropped after --timeout seconds of silence. Each connection gets a fixed
 * memory pool (64 KiB) for its request line and headers: a longer request is refused
 * by the library itself (414 or 431, with its own short body). Within that, this file
 * refuses with a JSON error: request URIs over BP_SERVE_MAX_URI bytes (414), methods
 * other than GET and HEAD (405), paths with a ".." segment (400), and any path that
 * is neither one of the embedded page's files nor the API (404). Files are never
 * read from disk at run time: the page is compiled in (tools/web_files.h). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/explorer.h"

static const char *const valued[] = { "db", "port", "host", "threads", "timeout", NULL };

#if BP_HAVE_MHD
#include <microhttpd.h>

#include "tools/web_files.h"

#define BP_SERVE_MAX_URI 8192

struct request {
	size_t uri_len;
};

struct args_ctx {
	struct bp_explorer_arg arg[BP_EXPLORER_MAX_ARGS + 1];
	int n;
};

/* Called by the library with the raw request URI (path and query) before parsing:
 * its length is kept for the handler. */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)c;
	struct request *r = calloc(1, sizeof *r);
	if (r)
		r->uri_len = strlen(uri);
	return r;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)c;
	(void)why;
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

static enum MHD_Result send_body(struct MHD_Connection *c, int status, const char *type,
				 const void *data, size_t size, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(size, (void *)data, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, int status, const struct bp_text *t)
{
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
	bp_explorer *ex = cls;
	struct request *r = *con_cls;
	struct bp_text body = { 0 };
	int status;
	if (*upload_size) { /* a body nobody asked for: the answer is already queued */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		status = bp_explorer_error(&body, MHD_HTTP_METHOD_NOT_ALLOWED,
					   "method not allowed (GET or HEAD only)");
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
		status = bp_explorer_answer(
			ex, url, a.arg, a.n > BP_EXPLORER_MAX_ARGS ? BP_EXPLORER_MAX_ARGS + 1 : a.n,
			&body);
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
	unsigned ipv6 = 0;
	if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
		v4.sin_family = AF_INET;
		v4.sin_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&v4;
	} else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
		v6.sin6_family = AF_INET6;
		v6.sin6_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&v6;
		ipv6 = MHD_USE_IPv6;
	} else {
		bp_cli_error(cmd, "bad --host '%s' (a numeric IPv4 or IPv6 address)", host);
		return BP_EXIT_USAGE;
	}
	const char *dir = bp_cli_db_path(a.opt[0]);
	if ((rc = bp_explorer_open(dir, &ex, &err))) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(rc));
		return bp_cli_exit_code(rc);
	}

	/* SIGINT and SIGTERM end the server: blocked here, before the library starts its
	 * threads (which inherit the mask), and waited for below. */
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | ipv6, (uint16_t)port, NULL, NULL,
		answer, ex, MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)65536, MHD_OPTION_CONNECTION_LIMIT, 512u, MHD_OPTION_URI_LOG_CALLBACK,
		uri_seen, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	if (!d) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		bp_cli_error(cmd, "cannot listen on %s port %u (in use, or not an address here)",
			     host, port);
		bp_explorer_close(ex);
		return BP_EXIT_IO;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	unsigned bound = info ? info->port : port;
	char url[96];
	snprintf(url, sizeof url, ipv6 ? "http://[%s]:%u/" : "http://%s:%u/", host, bound);
	if (a.json) {
		printf("{\"url\": \"%s\", \"host\": \"%s\", \"port\": %u, \"db\": ", url, host,
		       bound);
		struct bp_text t = { 0 };
		bp_text_json_string(&t, dir);
		printf("%s}\n", bp_text_str(&t));
		bp_text_free(&t);
	} else {
		printf("serving %s on %s (Ctrl-C stops)\n", dir, url);
	}
	fflush(stdout);
	int sig = 0;
	sigwait(&stop, &sig);
	MHD_stop_daemon(d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	bp_explorer_close(ex);
	return BP_EXIT_OK;
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
