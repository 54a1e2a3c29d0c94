/* SPDX-License-Identifier: MIT */
/* The explorer's JSON API without HTTP (tools/explorer.c): answers on a table solved
 * here agree with the probe functions, bad input gets the right status and a message
 * naming it, and threads asking at once get exactly the answers one thread gets. */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "solver/claims.h"
#include "solver/probe.h"
#include "tests/support.h"
#include "tools/commands.h"
#include "tools/explorer.h"

static char *dir;
static bp_explorer *ex;

static void setup(void)
{
	struct bp_game *g = open_game("taifas:3x3");
	dir = temp_db();
	/* small blocks: the table stored without its holes fits a page or two with the
	 * default, and claims_failure_not_kept needs a page of blocks alone */
	solve_into(dir, g, (struct bp_solve_opts){ .block_records = 256 });
	bp_game_destroy(g);
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_explorer_open(dir, &ex, &err), BP_OK, "%s", err.msg);
}

static void teardown(void)
{
	bp_explorer_close(ex);
	remove_db(dir);
}

/* Answers path with args "k=v" pairs (NULL-terminated); returns the status and copies
 * the body into *body (caller frees). */
static int ask(const char *path, const char *const *kv, char **body)
{
	struct bp_explorer_arg args[16];
	char keys[16][64];
	int n = 0;
	for (; kv && kv[n]; n++) {
		const char *eq = strchr(kv[n], '=');
		cr_assert_not_null(eq);
		snprintf(keys[n], sizeof keys[n], "%.*s", (int)(eq - kv[n]), kv[n]);
		args[n].key = keys[n];
		args[n].value = eq + 1;
	}
	struct bp_text t = { 0 };
	int st = bp_explorer_answer(ex, path, args, n, NULL, &t);
	*body = strdup(bp_text_str(&t));
	bp_text_free(&t);
	return st;
}

TestSuite(explorer, .init = setup, .fini = teardown);

Test(explorer, start_matches_probe)
{
	char *body;
	const char *kv[] = { "instance=taifas:3x3", NULL };
	cr_assert_eq(ask("/api/query", kv, &body), 200, "%s", body);
	/* the probe's own answer for the start and its best move */
	struct bp_game *g = open_game("taifas:3x3");
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	struct bp_pos p;
	g->ops->start(g, &p);
	struct bp_probe pr;
	struct bp_probe_move pm[32];
	cr_assert_eq(bp_probe_position(g, t, &p, &pr), BP_OK);
	int n = bp_probe_moves(g, t, &p, pm);
	cr_assert_eq(n, 18);
	char want[256];
	snprintf(want, sizeof want, "\"value\": \"%s\", \"remoteness\": %u, \"moves\": [",
		 bp_value_name(pr.value), pr.remoteness);
	cr_expect_not_null(strstr(body, want), "%s not in %s", want, body);
	struct bp_text m = { 0 };
	g->ops->move_format(g, &p, pm[0].move, &m);
	snprintf(want, sizeof want,
		 "\"moves\": [{\"move\": \"%s\", \"value\": \"%s\", \"remoteness\": %u",
		 bp_text_str(&m), bp_value_name(pm[0].value), pm[0].remoteness);
	cr_expect_not_null(strstr(body, want), "%s not in %s", want, body);
	cr_expect_not_null(strstr(body, "\"to_move\": \"x\", \"terminal\": false"));
	bp_text_free(&m);
	bp_table_close(t);
	bp_store_close(db);
	bp_game_destroy(g);
	free(body);
}

struct bad {
	const char *path;
	const char *kv[6];
	int status;
	const char *needle;
};

Test(explorer, bad_requests)
{
	static char longarg[BP_EXPLORER_MAX_ARG + 16];
	memset(longarg, 'x', sizeof longarg - 1);
	memcpy(longarg, "position=", 9);
	const struct bad cases[] = {
		{ "/api/query", { NULL }, 400, "missing instance" },
		{ "/api/query", { "instance=chess:8x8" }, 400, "unknown instance 'chess:8x8'" },
		{ "/api/query", { "instance=taifas:3x4" }, 404, "not solved" },
		{ "/api/query",
		  { "instance=taifas:3x3", "position=x" },
		  400,
		  "malformed position 'x'" },
		{ "/api/query", { "instance=taifas:3x3", "moves=xa1 oa1" }, 400, "move 2 'oa1'" },
		{ "/api/query", { "instance=taifas:3x3", "moves=qq" }, 400, "move 1 'qq'" },
		{ "/api/query",
		  { "instance=taifas:3x3", "depth=2" },
		  400,
		  "unknown parameter 'depth'" },
		{ "/api/query", { "instance=taifas:3x3", "instance=taifas:3x3" }, 400, "twice" },
		{ "/api/query", { "instance=taifas:3x3\x01" }, 400, "printable" },
		{ "/api/query", { "instance=taifas:3x3", longarg }, 414, "too long" },
		{ "/api/openings", { "instance=taifas:3x3", "position=start" }, 400, "unknown" },
		{ "/api/instances", { "a=b" }, 400, "unknown parameter 'a'" },
		{ "/api/../secret", { NULL }, 404, "unknown path" },
		{ "/api/", { NULL }, 404, "unknown path" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *body;
		int st = ask(cases[i].path, cases[i].kv, &body);
		cr_expect_eq(st, cases[i].status, "case %zu: %d %s", i, st, body);
		cr_expect_not_null(strstr(body, "{\"error\": \""), "case %zu: %s", i, body);
		cr_expect_not_null(strstr(body, cases[i].needle), "case %zu: '%s' not in %s", i,
				   cases[i].needle, body);
		free(body);
	}
}

Test(explorer, too_many_arguments)
{
	struct bp_explorer_arg args[BP_EXPLORER_MAX_ARGS + 1];
	for (int i = 0; i <= BP_EXPLORER_MAX_ARGS; i++)
		args[i] = (struct bp_explorer_arg){ "instance", "taifas:3x3" };
	struct bp_text t = { 0 };
	cr_expect_eq(bp_explorer_answer(ex, "/api/query", args, BP_EXPLORER_MAX_ARGS + 1, NULL, &t),
		     400);
	cr_expect_not_null(strstr(bp_text_str(&t), "too many"));
	bp_text_free(&t);
}

/* Requests asked from several threads at once, each many times; every answer must be
 * the one a single thread got. */
static const char *const mix[][3] = {
	{ "instance=taifas:3x3", NULL },
	{ "instance=taifas:3x3", "moves=xb2+oa1", NULL },
	{ "instance=taifas:3x3,tie=last-zone", "position=o2/1x1/3 x last=o", NULL },
	{ "instance=taifas:3x3", "moves=xb2 xz9", NULL },
	{ "instance=taifas:3x4", NULL },
};
#define NMIX (sizeof mix / sizeof mix[0])
static char *expected[NMIX];
static int expected_status[NMIX];

static void *hammer(void *arg)
{
	long bad = 0, id = (long)(intptr_t)arg;
	for (int k = 0; k < 200; k++) {
		size_t i = (size_t)(k + id) % NMIX;
		char *body;
		int st = ask(i == NMIX - 1 && k % 2 ? "/api/instances" : "/api/query",
			     i == NMIX - 1 && k % 2 ? NULL : mix[i], &body);
		if (!(i == NMIX - 1 && k % 2) &&
		    (st != expected_status[i] || strcmp(body, expected[i]) != 0))
			bad++;
		if (i == NMIX - 1 && k % 2 && st != 200)
			bad++;
		free(body);
	}
	return (void *)(intptr_t)bad;
}

Test(explorer, threads_agree)
{
	for (size_t i = 0; i < NMIX; i++)
		expected_status[i] = ask("/api/query", mix[i], &expected[i]);
	cr_assert_eq(expected_status[0], 200);
	cr_assert_eq(expected_status[3], 400);
	cr_assert_eq(expected_status[4], 404);
	pthread_t tid[4];
	for (long i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, hammer, (void *)(intptr_t)i), 0);
	long bad = 0;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(tid[i], &r);
		bad += (long)(intptr_t)r;
	}
	cr_expect_eq(bad, 0, "%ld answers differ from one thread's", bad);
	for (size_t i = 0; i < NMIX; i++)
		free(expected[i]);
}

/* A handle older than BP_EXPLORER_REFRESH is reopened: the answer stays the same. */
Test(explorer, reopens_after_refresh)
{
	char *a, *b;
	const char *kv[] = { "instance=taifas:3x3", "moves=xa1", NULL };
	cr_assert_eq(ask("/api/query", kv, &a), 200);
	usleep((useconds_t)(BP_EXPLORER_REFRESH * 1e6) + 200000);
	cr_assert_eq(ask("/api/query", kv, &b), 200);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
}

/* /api/claims is the report `claims --json` prints, computed once (a second ask gives
 * the same text) and waited for when the caller cannot be called back. */
Test(explorer, claims_as_the_command)
{
	struct bp_game *g = open_game("taifas:3x3");
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	struct bp_cmd_table_oracle to;
	struct bp_oracle o;
	bp_cmd_table_oracle(g, t, &to, &o);
	struct bp_claims_opts copts = { 0 };
	struct bp_text want = { 0 };
	int failed;
	const char *bad;
	cr_assert_eq(bp_cmd_claims_report(g, &o, &copts, NULL, 0, 1, &want, &failed, &bad), BP_OK);
	bp_table_close(t);
	bp_store_close(db);
	char *a, *b;
	const char *kv[] = { "instance=taifas:3x3", NULL };
	cr_assert_eq(ask("/api/claims", kv, &a), 200, "%s", a);
	cr_expect_str_eq(a, bp_text_str(&want));
	cr_assert_eq(ask("/api/claims", kv, &b), 200);
	cr_expect_str_eq(a, b);
	const char *none[] = { "instance=taifas:3x4", NULL };
	free(b);
	cr_expect_eq(ask("/api/claims", none, &b), 404, "%s", b);
	free(b);
	free(a);
	bp_text_free(&want);
	bp_game_destroy(g);
}

struct called {
	pthread_mutex_t m;
	pthread_cond_t c;
	int n;
};

static void called_back(void *ctx)
{
	struct called *k = ctx;
	pthread_mutex_lock(&k->m);
	k->n++;
	pthread_cond_signal(&k->c);
	pthread_mutex_unlock(&k->m);
}

/* With a call back, a claims request is parked (BP_EXPLORER_PENDING), called back once,
 * and then answered; after bp_explorer_stop claims get 503 and queries go on. */
Test(explorer, claims_parked_then_stopped)
{
	struct called k = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct bp_explorer_wait w = { called_back, &k, 0 };
	struct bp_explorer_arg arg = { "instance", "taifas:3x3" };
	struct bp_text t = { 0 };
	int st = bp_explorer_answer(ex, "/api/claims", &arg, 1, &w, &t);
	cr_assert_eq(st, BP_EXPLORER_PENDING, "%d %s", st, bp_text_str(&t));
	pthread_mutex_lock(&k.m);
	while (k.n == 0)
		pthread_cond_wait(&k.c, &k.m);
	pthread_mutex_unlock(&k.m);
	w.again = 1;
	cr_expect_eq(bp_explorer_answer(ex, "/api/claims", &arg, 1, &w, &t), 200);
	cr_expect_not_null(strstr(bp_text_str(&t), "\"claims\": [{\"name\": \"no-draw\""));
	cr_expect_eq(k.n, 1);
	bp_explorer_stop(ex);
	struct bp_explorer_arg other = { "instance", "taifas:3x3,tie=last-zone" };
	w.again = 0;
	cr_expect_eq(bp_explorer_answer(ex, "/api/claims", &arg, 1, &w, &t), 200,
		     "kept answers stay");
	cr_expect_eq(bp_explorer_answer(ex, "/api/query", &other, 1, &w, &t), 200);
	bp_text_free(&t);
}

/* A claims computation that failed on the server's side is not kept: with one page of
 * data.mdb damaged the claims walk fails (500, "checking ..."); with the page put back
 * the next request computes again and gets the report, although the table's metadata
 * (the stamp the answers are kept by) never changed. Each page is tried in turn, on a
 * fresh explorer, until one fails the walk itself. */
Test(explorer, claims_failure_not_kept)
{
	enum { PAGE = 4096, TAIL = 1024 };
	char path[4096];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	int fd = open(path, O_RDWR);
	cr_assert(fd >= 0, "%s", path);
	off_t size = lseek(fd, 0, SEEK_END);
	const char *kv[] = { "instance=taifas:3x3", NULL };
	char *want;
	cr_assert_eq(ask("/api/claims", kv, &want), 200, "%s", want);
	int found = 0;
	for (off_t page = 2 * PAGE; page + PAGE <= size && !found; page += PAGE) {
		unsigned char save[PAGE], junk[TAIL];
		struct bp_err err = { { 0 } };
		memset(junk, 0x5a, sizeof junk);
		cr_assert_eq(pread(fd, save, PAGE, page), PAGE);
		bp_explorer_close(ex);
		ex = NULL;
		/* the tail of a page: a leaf's values, or an overflow page's bytes */
		cr_assert_eq(pwrite(fd, junk, TAIL, page + PAGE - TAIL), TAIL);
		char *a = NULL;
		int st = bp_explorer_open(dir, &ex, &err) == BP_OK ? ask("/api/claims", kv, &a) : 0;
		cr_assert_eq(pwrite(fd, save, PAGE, page), PAGE);
		if (st == 500 && strncmp(a, "{\"error\": \"checking ", 20) == 0) {
			char *b;
			found = 1;
			cr_expect_eq(ask("/api/claims", kv, &b), 200, "page %lld: %s",
				     (long long)(page / PAGE), b);
			cr_expect_str_eq(b, want);
			free(b);
		}
		free(a);
		if (!ex)
			cr_assert_eq(bp_explorer_open(dir, &ex, &err), BP_OK, "%s", err.msg);
	}
	close(fd);
	free(want);
	cr_assert(found, "no page of %lld bytes whose damage fails the claims walk",
		  (long long)size);
}
