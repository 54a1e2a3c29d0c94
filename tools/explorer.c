/* SPDX-License-Identifier: MIT */
/* The explorer's JSON API (see explorer.h).
 *
 * Threads and the store. The store's rules (store/store.c, "Threads"): one bp_store
 * per directory and process, shared; bp_table_open and bp_table_close must not run
 * while anything else runs on the store; a bp_table is used by one thread at a time.
 * So the explorer keeps
 *
 *   store_lock  a readers-writer lock: a request holds it shared while it probes
 *               through its table handle, and opening or closing a handle (or
 *               listing the tables, which opens each) holds it exclusively. Writers
 *               are preferred, so a steady stream of probes cannot starve a reopen;
 *   mu          a mutex over the list of instances and their pools of idle handles.
 *
 * A request takes an idle handle of its instance from the pool (or opens one), uses
 * it alone, and gives it back. Handles are few (at most one per concurrent request
 * and instance) and each holds one LMDB reader slot and its block cache. A handle sees
 * the table as it was when opened (store.h, "Caching and freshness"), so one older
 * than BP_EXPLORER_REFRESH seconds is closed and opened again: a running solve's new
 * tiers (and a table solved or replaced since) show up within that time. LMDB's
 * snapshots mean the solve never waits for the server nor the server for the solve.
 *
 * Instances are kept by canonical spec, and only when their table exists, so hostile
 * specs cannot grow memory: a request names its instance in any spelling, which is
 * parsed into a game each time unless it is already a canonical spec in the list.
 *
 * Claims. One worker thread, started on the first /api/claims, computes the claims of
 * one instance at a time through bp_cmd_claims_report (the code `claims --json` runs)
 * and keeps the answer with a stamp of the table's metadata (tiers done, records per
 * value): a later request whose table still has that stamp is answered from memory,
 * one whose table changed (a solve went on, or replaced it) is computed again, and
 * so is one whose computation failed on the server's side (5xx), which is told only
 * to the requests that waited for it. The
 * walk reads the table through its own handle, holding store_lock shared only while
 * it is inside the store (each probe; each tier read of the table scan), never while
 * it thinks, so requests that open handles wait for one probe at most, not a walk:
 *
 *   cmu     a mutex over the list of claims entries, their waiters and the worker's
 *           state; waiters are called back after it is released. */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np: writer-preferring lock */
#include "tools/explorer.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solver/claims.h"
#include "solver/probe.h"
#include "store/store.h"
#include "tools/commands.h"

#define MAX_INSTANCES 256
#define MAX_LINE 1024 /* most moves in one moves= argument */

struct handle {
	bp_table *t;
	double opened;
	struct handle *next;
};

struct inst {
	struct bp_game *g;
	struct handle *idle;
};

struct waiter {
	struct bp_explorer_wait w;
	struct waiter *next;
};

enum { CLAIMS_QUEUED, CLAIMS_RUNNING, CLAIMS_DONE };

struct claims_entry {
	char *spec; /* canonical */
	int state, status;
	uint64_t stamp; /* of the table the answer was computed from */
	double used;
	struct bp_text body;
	struct waiter *waiters;
};

struct bp_explorer {
	bp_store *db;
	pthread_rwlock_t store_lock;
	pthread_mutex_t mu;
	struct inst *inst[MAX_INSTANCES];
	int ninst;

	pthread_mutex_t cmu;
	pthread_cond_t cwake;
	struct claims_entry *claims[BP_EXPLORER_CLAIMS_KEEP];
	int nclaims, worker_started, worker_joined;
	atomic_int stopping;
	pthread_t worker;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bp_explorer_open(const char *dir, bp_explorer **out, struct bp_err *err)
{
	*out = NULL;
	bp_explorer *ex = calloc(1, sizeof *ex);
	if (!ex)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	pthread_rwlockattr_t attr;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	int ok = pthread_rwlock_init(&ex->store_lock, &attr) == 0;
	pthread_rwlockattr_destroy(&attr);
	if (!ok) {
		free(ex);
		return bp_err_set(err, BP_ENOMEM, "cannot create a lock");
	}
	if (pthread_mutex_init(&ex->mu, NULL) != 0) {
		pthread_rwlock_destroy(&ex->store_lock);
		free(ex);
		return bp_err_set(err, BP_ENOMEM, "cannot create a lock");
	}
	if (pthread_mutex_init(&ex->cmu, NULL) != 0) {
		pthread_mutex_destroy(&ex->mu);
		pthread_rwlock_destroy(&ex->store_lock);
		free(ex);
		return bp_err_set(err, BP_ENOMEM, "cannot create a lock");
	}
	if (pthread_cond_init(&ex->cwake, NULL) != 0) {
		pthread_mutex_destroy(&ex->cmu);
		pthread_mutex_destroy(&ex->mu);
		pthread_rwlock_destroy(&ex->store_lock);
		free(ex);
		return bp_err_set(err, BP_ENOMEM, "cannot create a lock");
	}
	atomic_init(&ex->stopping, 0);
	int rc = bp_store_open(dir, BP_STORE_READONLY, &ex->db, err);
	if (rc) {
		pthread_cond_destroy(&ex->cwake);
		pthread_mutex_destroy(&ex->cmu);
		pthread_mutex_destroy(&ex->mu);
		pthread_rwlock_destroy(&ex->store_lock);
		free(ex);
		return rc;
	}
	*out = ex;
	return BP_OK;
}

void bp_explorer_close(bp_explorer *ex)
{
	if (!ex)
		return;
	bp_explorer_stop(ex);
	for (int i = 0; i < ex->nclaims; i++) {
		bp_text_free(&ex->claims[i]->body);
		free(ex->claims[i]->spec);
		free(ex->claims[i]);
	}
	for (int i = 0; i < ex->ninst; i++) {
		struct inst *in = ex->inst[i];
		while (in->idle) {
			struct handle *h = in->idle;
			in->idle = h->next;
			bp_table_close(h->t);
			free(h);
		}
		bp_game_destroy(in->g);
		free(in);
	}
	bp_store_close(ex->db);
	pthread_cond_destroy(&ex->cwake);
	pthread_mutex_destroy(&ex->cmu);
	pthread_mutex_destroy(&ex->mu);
	pthread_rwlock_destroy(&ex->store_lock);
	free(ex);
}

int bp_explorer_error(struct bp_text *body, int status, const char *msg)
{
	bp_text_clear(body);
	bp_text_printf(body, "{\"error\": ");
	bp_text_json_string(body, msg);
	bp_text_printf(body, "}\n");
	return status;
}

/* Like bp_explorer_error with a printf format. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(struct bp_text *body, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return bp_explorer_error(body, status, msg);
}

/* Input quoted in a message, cut to a readable length. */
static const char *quote(const char *s, char buf[72])
{
	size_t n = strlen(s);
	if (n < 72)
		return s;
	memcpy(buf, s, 64);
	memcpy(buf + 64, "...", 4);
	return buf;
}

static struct inst *find(bp_explorer *ex, const char *spec)
{
	for (int i = 0; i < ex->ninst; i++)
		if (strcmp(ex->inst[i]->g->spec, spec) == 0)
			return ex->inst[i];
	return NULL;
}

/* Opens a handle on g's table, checking its rules version. Takes the store lock
 * exclusively. @return 0, or an HTTP status with body set. */
static int handle_open(bp_explorer *ex, const struct bp_game *g, struct handle **out,
		       struct bp_text *body)
{
	struct bp_err err = { { 0 } };
	bp_table *t = NULL;
	struct handle *h = malloc(sizeof *h);
	if (!h)
		return fail(body, 503, "out of memory");
	pthread_rwlock_wrlock(&ex->store_lock);
	int rc = bp_probe_open(ex->db, g, &t, &err);
	pthread_rwlock_unlock(&ex->store_lock);
	if (rc) {
		free(h);
		if (rc == BP_ENOTFOUND)
			return fail(body, 404, "%s is not solved in this database", g->spec);
		if (rc == BP_ERULES)
			return fail(body, 409, "%s: %s (solve it again with --replace)", g->spec,
				    err.msg);
		return fail(body, rc == BP_ENOMEM ? 503 : 500, "table %s: %s", g->spec,
			    err.msg[0] ? err.msg : bp_strerror(rc));
	}
	h->t = t;
	h->opened = now();
	h->next = NULL;
	*out = h;
	return 0;
}

static void handle_close(bp_explorer *ex, struct handle *h)
{
	if (!h)
		return;
	pthread_rwlock_wrlock(&ex->store_lock);
	bp_table_close(h->t);
	pthread_rwlock_unlock(&ex->store_lock);
	free(h);
}

/* Finds or makes the instance named by spec (any spelling) and takes a fresh handle
 * of its table. @return 0, or an HTTP status with body set. */
static int take(bp_explorer *ex, const char *spec, struct inst **ip, struct handle **hp,
		struct bp_text *body)
{
	char qb[72];
	struct bp_err err = { { 0 } };
	struct bp_game *g = NULL;
	struct handle *h = NULL, *stale = NULL;
	if (!spec || !*spec)
		return fail(body, 400, "missing instance (a game spec such as taifas:3x3)");
	pthread_mutex_lock(&ex->mu);
	struct inst *in = find(ex, spec);
	if (in && in->idle) {
		h = in->idle;
		in->idle = h->next;
	}
	pthread_mutex_unlock(&ex->mu);
	if (!in) {
		int rc = bp_game_create(spec, &g, &err);
		if (rc == BP_ENOMEM) /* the server's trouble, not the request's */
			return fail(body, 503, "out of memory");
		if (rc)
			return fail(body, 400, "unknown instance '%s': %s", quote(spec, qb),
				    err.msg[0] ? err.msg : bp_strerror(rc));
		pthread_mutex_lock(&ex->mu);
		in = find(ex, g->spec);
		if (in && in->idle) {
			h = in->idle;
			in->idle = h->next;
		}
		pthread_mutex_unlock(&ex->mu);
		if (in) { /* another spelling of a known instance */
			bp_game_destroy(g);
			g = NULL;
		}
	}
	if (h && now() - h->opened > BP_EXPLORER_REFRESH) {
		stale = h;
		h = NULL;
	}
	handle_close(ex, stale);
	if (!h) {
		int st = handle_open(ex, in ? in->g : g, &h, body);
		if (st) {
			bp_game_destroy(g);
			return st;
		}
	}
	if (!in) {
		/* the table exists: keep the instance (unless another request just did) */
		pthread_mutex_lock(&ex->mu);
		in = find(ex, g->spec);
		int full = !in && ex->ninst >= MAX_INSTANCES;
		if (!in && !full && (in = calloc(1, sizeof *in)) != NULL) {
			in->g = g;
			g = NULL;
			ex->inst[ex->ninst++] = in;
		}
		pthread_mutex_unlock(&ex->mu);
		if (!in) {
			bp_game_destroy(g);
			handle_close(ex, h);
			return fail(body, 503, full ? "too many instances open" : "out of memory");
		}
		bp_game_destroy(g);
	}
	*ip = in;
	*hp = h;
	return 0;
}

/* Gives a handle back to its instance's pool; a handle that failed is closed. */
static void give(bp_explorer *ex, struct inst *in, struct handle *h, int broken)
{
	if (broken) {
		handle_close(ex, h);
		return;
	}
	pthread_mutex_lock(&ex->mu);
	h->next = in->idle;
	in->idle = h;
	pthread_mutex_unlock(&ex->mu);
}

static void json_value(struct bp_text *t, enum bp_value v, unsigned rem)
{
	bp_text_printf(t, "\"value\": \"%s\", \"remoteness\": ", bp_value_name(v));
	if (rem == BP_RECORD_NO_REMOTENESS)
		bp_text_printf(t, "null");
	else
		bp_text_printf(t, "%u", rem);
}

static const char *shape_name(enum bp_shape s)
{
	switch (s) {
	case BP_SHAPE_HEX: return "hex";
	case BP_SHAPE_RHOMBUS: return "rhombus";
	case BP_SHAPE_TRIANGLE: return "triangle";
	case BP_SHAPE_SQUARE: return "square";
	}
	return "unknown";
}

/* "board": the geometry to draw and each cell's character in p. x is the horizontal
 * place in half-cells (hex rows are offset by half a cell), row the row from the top,
 * col the place in the row; q and r are canon/board.h's coordinates (axial on hex
 * cells, x and y on squares). */
static void json_board(struct bp_text *t, const struct bp_game *g, const struct bp_pos *p)
{
	const struct bp_board *b = g->board;
	bp_text_printf(t, "\"board\": {\"name\": ");
	bp_text_json_string(t, b->name);
	bp_text_printf(t, ", \"shape\": \"%s\", \"rows\": %d, \"cells\": [", shape_name(b->shape),
		       b->nrows);
	for (int c = 0; c < b->ncells; c++) {
		char name[16], ch[2] = { g->ops->cell_char(g, p, c), 0 };
		bp_board_cell_name(b, c, name, sizeof name);
		bp_text_printf(
			t,
			"%s{\"name\": \"%s\", \"row\": %u, \"col\": %u, \"x\": %d, \"q\": %d, "
			"\"r\": %d, \"char\": ",
			c ? ", " : "", name, b->cells[c].row, b->cells[c].col,
			bp_board_draw_x(b, c), b->cells[c].q, b->cells[c].r);
		bp_text_json_string(t, ch);
		bp_text_printf(t, "}");
	}
	bp_text_printf(t, "]}");
}

/* The player to move: the word after the rows in the position text. */
static void json_to_move(struct bp_text *t, const char *ptext)
{
	char to_move[16] = "";
	const char *sp = strchr(ptext, ' ');
	if (sp) {
		size_t n = strcspn(sp + 1, " ");
		if (n >= sizeof to_move)
			n = sizeof to_move - 1;
		memcpy(to_move, sp + 1, n);
		to_move[n] = 0;
	}
	bp_text_printf(t, "\"to_move\": ");
	bp_text_json_string(t, to_move);
}

static const char *group_name(enum bp_value v)
{
	return v == BP_VALUE_WIN ? "winning" : v == BP_VALUE_DRAW ? "drawing" : "losing";
}

/* s as a JSON string into t; a scratch text that ran out of memory fails t too (never
 * a name or position left empty in an answer). */
static void json_text(struct bp_text *t, const struct bp_text *s)
{
	if (s->failed)
		t->failed = 1;
	bp_text_json_string(t, bp_text_str(s));
}

/* "groups": {"winning": [{"remoteness", "moves": [...]}, ...], "drawing", "losing"}:
 * the moves (best first already) cut into runs of equal value and remoteness. */
static void json_groups(struct bp_text *t, const struct bp_game *g, const struct bp_pos *p,
			const struct bp_probe_move *pm, int n)
{
	static const enum bp_value order[3] = { BP_VALUE_WIN, BP_VALUE_DRAW, BP_VALUE_LOSS };
	bp_text_printf(t, "\"groups\": {");
	for (int k = 0; k < 3; k++) {
		bp_text_printf(t, "%s\"%s\": [", k ? ", " : "", group_name(order[k]));
		int runs = 0;
		for (int i = 0; i < n; i++) {
			if (pm[i].value != order[k])
				continue;
			int first = i == 0 || pm[i - 1].value != pm[i].value ||
				    pm[i - 1].remoteness != pm[i].remoteness;
			if (first) {
				bp_text_printf(t, "%s{\"remoteness\": ", runs++ ? "]}, " : "");
				if (pm[i].remoteness == BP_RECORD_NO_REMOTENESS)
					bp_text_printf(t, "null");
				else
					bp_text_printf(t, "%u", pm[i].remoteness);
				bp_text_printf(t, ", \"moves\": [");
			} else {
				bp_text_printf(t, ", ");
			}
			struct bp_text m = { 0 };
			g->ops->move_format(g, p, pm[i].move, &m);
			json_text(t, &m);
			bp_text_free(&m);
		}
		bp_text_printf(t, "%s]", runs ? "]}" : "");
	}
	bp_text_printf(t, "}");
}

/* One move: its text, value, remoteness and group (as `query --json`), the position
 * it leads to, and the cells whose character it changes (for drawing it on the
 * board); with pie, what the opening is worth to the first player once the second
 * has chosen (as `openings --json`). */
static void json_move(struct bp_text *t, const struct bp_game *g, const struct bp_pos *p,
		      const struct bp_probe_move *m, int pie)
{
	struct bp_text s = { 0 };
	struct bp_pos q = *p;
	g->ops->apply(g, &q, m->move);
	g->ops->move_format(g, p, m->move, &s);
	bp_text_printf(t, "{\"move\": ");
	json_text(t, &s);
	bp_text_printf(t, ", ");
	json_value(t, m->value, m->remoteness);
	bp_text_printf(t, ", \"group\": \"%s\"", group_name(m->value));
	if (pie)
		bp_text_printf(t, ", \"after_choice\": \"%s\"",
			       bp_value_name(bp_claim_after_choice(m->value)));
	bp_text_clear(&s);
	g->ops->pos_format(g, &q, &s);
	bp_text_printf(t, ", \"position\": ");
	json_text(t, &s);
	bp_text_printf(t, ", \"cells\": [");
	int k = 0;
	for (int c = 0; c < g->board->ncells; c++)
		if (g->ops->cell_char(g, p, c) != g->ops->cell_char(g, &q, c))
			bp_text_printf(t, "%s%d", k++ ? ", " : "", c);
	bp_text_printf(t, "]}");
	bp_text_free(&s);
}

static const char *arg(const struct bp_explorer_arg *args, int nargs, const char *key)
{
	for (int i = 0; i < nargs; i++)
		if (strcmp(args[i].key, key) == 0)
			return args[i].value;
	return NULL;
}

/* What play_line's callback appends to: the "line" entries. */
struct line_out {
	struct bp_text *t, s;
	int n;
};

/* Appends one {"move", "position"} entry: the move as the game spells it and the
 * position it leads to. */
static int line_entry(void *ctx, const struct bp_game *g, const struct bp_pos *p, struct bp_move m)
{
	struct line_out *o = ctx;
	struct bp_pos next = *p;
	g->ops->apply(g, &next, m);
	bp_text_clear(&o->s);
	g->ops->move_format(g, p, m, &o->s);
	bp_text_printf(o->t, "%s{\"move\": ", o->n++ ? ", " : "");
	json_text(o->t, &o->s);
	bp_text_clear(&o->s);
	g->ops->pos_format(g, &next, &o->s);
	bp_text_printf(o->t, ", \"position\": ");
	json_text(o->t, &o->s);
	bp_text_printf(o->t, "}");
	return o->s.failed || o->t->failed ? BP_ENOMEM : BP_OK;
}

/* Plays the moves of line (separated by spaces or commas; a '+' in a URL decodes to
 * a space) from p (bp_game_play_line), appending {"move", "position"} entries to t.
 * @return 0, or an HTTP status with body set naming the bad move, the position it
 * was played at and why. */
static int play_line(const struct bp_game *g, struct bp_pos *p, const char *line, struct bp_text *t,
		     struct bp_text *body)
{
	struct line_out o = { .t = t };
	struct bp_err err = { { 0 } };
	int rc = bp_game_play_line(g, p, line, " ,", MAX_LINE, line_entry, &o, NULL, &err), st = 0;
	if (rc == BP_ENOMEM) {
		st = fail(body, 503, "out of memory");
	} else if (rc) {
		bp_text_clear(&o.s);
		g->ops->pos_format(g, p, &o.s);
		st = o.s.failed ? fail(body, 503, "out of memory")
				: fail(body, 400, "%s (in '%s')", err.msg, bp_text_str(&o.s));
	}
	bp_text_free(&o.s);
	return st;
}

/* /api/query and /api/openings (openings: the start position, no position or moves
 * arguments). */
static int api_query(bp_explorer *ex, const struct bp_explorer_arg *args, int nargs, int openings,
		     struct bp_text *body)
{
	const char *spec = arg(args, nargs, "instance");
	const char *ptext = openings ? NULL : arg(args, nargs, "position");
	const char *line = openings ? NULL : arg(args, nargs, "moves");
	struct inst *in = NULL;
	struct handle *h = NULL;
	struct bp_text path = { 0 }, pos = { 0 };
	struct bp_probe_move *pm = NULL;
	struct bp_err err = { { 0 } };
	struct bp_pos p;
	char qb[72];
	int st = take(ex, spec, &in, &h, body), broken = 0;
	if (st)
		return st;
	const struct bp_game *g = in->g;
	int rc = bp_game_parse_position(g, ptext, &p, &err);
	if (rc == BP_ENOMEM) {
		st = fail(body, 503, "out of memory");
		goto out;
	}
	if (rc) {
		st = fail(body, 400, "malformed position '%s': %s", quote(ptext, qb),
			  err.msg[0] ? err.msg : bp_strerror(rc));
		goto out;
	}
	if (line && (st = play_line(g, &p, line, &path, body)))
		goto out;
	g->ops->pos_format(g, &p, &pos);
	pm = malloc(sizeof *pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	if (!pm) {
		st = fail(body, 503, "out of memory");
		goto out;
	}
	struct bp_probe pr;
	pthread_rwlock_rdlock(&ex->store_lock);
	int n = rc = bp_probe_position(g, h->t, &p, &pr);
	if (rc == BP_OK)
		n = bp_probe_moves(g, h->t, &p, pm);
	pthread_rwlock_unlock(&ex->store_lock);

	if (pos.failed) {
		st = fail(body, 503, "out of memory");
		goto out;
	}
	bp_text_clear(body);
	bp_text_printf(body, "{\"instance\": ");
	bp_text_json_string(body, g->spec);
	bp_text_printf(body, ", \"position\": ");
	json_text(body, &pos);
	bp_text_printf(body, ", ");
	if (rc == BP_ENOTFOUND || (rc == BP_OK && n == BP_ENOTFOUND)) {
		/* the board still comes along, so that the page can draw what it cannot
		 * value */
		bp_text_printf(body,
			       "\"error\": \"position not in the database: %s (not reachable "
			       "from the start, or its tier is not solved yet)\", ",
			       rc ? "it is not in the solved table" : "a move leads outside it");
		json_to_move(body, bp_text_str(&pos));
		bp_text_printf(body, ", ");
		json_board(body, g, &p);
		bp_text_printf(body, "}\n");
		st = 404;
		goto out;
	}
	if (rc || n < 0) {
		broken = 1;
		rc = rc ? rc : n;
		st = fail(body, rc == BP_ENOMEM ? 503 : 500, "reading %s: %s", g->spec,
			  bp_strerror(rc));
		goto out;
	}
	json_value(body, pr.value, pr.remoteness);
	/* the opening map, like `openings --json`: with a pie rule or colour choice, each
	 * opening's worth once the second player has chosen, and the first player's best */
	int pie = openings && (g->ops->flags & BP_GAME_PIE);
	enum bp_value with_choice = BP_VALUE_NONE;
	bp_text_printf(body, ", \"moves\": [");
	for (int i = 0; i < n; i++) {
		bp_text_printf(body, "%s", i ? ", " : "");
		json_move(body, g, &p, &pm[i], pie);
		enum bp_value a = bp_claim_after_choice(pm[i].value);
		if (with_choice == BP_VALUE_NONE || a == BP_VALUE_DRAW)
			with_choice = a; /* a draw if some opening keeps one, else a loss */
	}
	bp_text_printf(body, "], ");
	if (openings) {
		bp_text_printf(body, "\"pie\": %s, ", pie ? "true" : "false");
		if (pie && n)
			bp_text_printf(body, "\"value_with_choice\": \"%s\", ",
				       bp_value_name(with_choice));
	}
	json_to_move(body, bp_text_str(&pos));
	enum bp_value over = g->ops->outcome(g, &p);
	bp_text_printf(body, ", \"terminal\": %s, \"outcome\": ", over ? "true" : "false");
	if (over)
		bp_text_json_string(body, bp_value_name(over));
	else
		bp_text_printf(body, "null");
	bp_text_printf(body, ", ");
	json_groups(body, g, &p, pm, n);
	if (!openings)
		bp_text_printf(body, ", \"line\": [%s]", bp_text_str(&path));
	bp_text_printf(body, ", ");
	json_board(body, g, &p);
	bp_text_printf(body, "}\n");
	st = body->failed || pos.failed || path.failed ? fail(body, 503, "out of memory") : 200;
out:
	free(pm);
	bp_text_free(&path);
	bp_text_free(&pos);
	give(ex, in, h, broken);
	return st;
}

struct lister {
	bp_explorer *ex;
	struct bp_text *out;
	int n;
	int rc;	       /* the first table that could not be read, or BP_OK */
	char why[300]; /* and what failed */
};

static void list_failed(struct lister *l, int rc, const char *spec, const char *what)
{
	if (l->rc)
		return;
	l->rc = rc;
	snprintf(l->why, sizeof l->why, "table %s: %s", spec, what);
}

/* One table for /api/instances: what `list --json` says of it, and the game's title.
 * A table that cannot be opened or read fails the listing (as in `list`): never an
 * instance left out, a title left null or a value called unfinished because a read
 * or an allocation failed. */
static void list_one(void *ctx, const char *spec)
{
	struct lister *l = ctx;
	bp_table *tab = NULL;
	struct bp_table_meta m;
	struct bp_err err = { { 0 } };
	int rc;
	if (l->rc)
		return;
	if ((rc = bp_table_open(l->ex->db, spec, NULL, BP_STORE_READONLY, &tab, &err)) ||
	    (rc = bp_table_meta_get(tab, &m))) {
		list_failed(l, rc, spec, err.msg[0] ? err.msg : bp_strerror(rc));
		bp_table_close(tab);
		return;
	}
	uint64_t positions = 0;
	uint32_t done = 0;
	for (uint32_t t = 0; t < m.ntiers; t++) {
		done += m.tier_done[t];
		for (int v = 1; v < 4; v++)
			positions += m.tier_count[(size_t)t * 4 + v];
	}
	int current = m.rules_version == BP_RULES_VERSION;
	struct bp_game *g = NULL;
	struct bp_probe pr;
	struct bp_pos p;
	int grc = bp_game_create(spec, &g, NULL), known = grc == BP_OK, valued = 0;
	if (grc == BP_ENOMEM)
		list_failed(l, grc, spec, bp_strerror(grc));
	if (known && current) { /* as every reader: through a stored index, if any */
		bp_table *pt = NULL;
		g->ops->start(g, &p);
		rc = bp_probe_open(l->ex->db, g, &pt, NULL);
		/* not found: a tier not stored yet (an unfinished table) */
		if (rc == BP_OK)
			rc = bp_probe_position(g, pt, &p, &pr);
		else if (rc != BP_ENOMEM && rc != BP_EIO)
			rc = BP_ENOTFOUND; /* refused as a whole (another layout): no value */
		bp_table_close(pt);
		valued = rc == BP_OK;
		if (rc && rc != BP_ENOTFOUND)
			list_failed(l, rc, spec, bp_strerror(rc));
	}
	bp_text_printf(l->out, "%s{\"instance\": ", l->n++ ? ", " : "");
	bp_text_json_string(l->out, spec);
	bp_text_printf(l->out, ", \"game\": ");
	if (known)
		bp_text_json_string(l->out, g->ops->title);
	else
		bp_text_printf(l->out, "null");
	bp_text_printf(l->out, ", ");
	if (valued) {
		json_value(l->out, pr.value, pr.remoteness);
	} else {
		bp_text_printf(l->out, "\"value\": ");
		bp_text_json_string(l->out, !current ? "outdated" : "unfinished");
		bp_text_printf(l->out, ", \"remoteness\": null");
	}
	bp_text_printf(l->out,
		       ", \"rules_version\": %u, \"current\": %s, \"complete\": %s, \"tiers\": %u, "
		       "\"tiers_done\": %u, \"positions\": %llu}",
		       m.rules_version, current ? "true" : "false",
		       done == m.ntiers ? "true" : "false", m.ntiers, done,
		       (unsigned long long)positions);
	bp_game_destroy(g);
	bp_table_close(tab);
}

static int api_instances(bp_explorer *ex, struct bp_text *body)
{
	struct lister l = { ex, body, 0, BP_OK, "" };
	bp_text_clear(body);
	bp_text_printf(body, "{\"rules_version\": %u, \"instances\": [", BP_RULES_VERSION);
	pthread_rwlock_wrlock(&ex->store_lock);
	int rc = bp_store_tables(ex->db, list_one, &l);
	pthread_rwlock_unlock(&ex->store_lock);
	if (rc)
		return fail(body, rc == BP_ENOMEM ? 503 : 500, "listing tables: %s",
			    bp_strerror(rc));
	if (l.rc)
		return fail(body, l.rc == BP_ENOMEM ? 503 : 500, "listing tables: %s", l.why);
	bp_text_printf(body, "]}\n");
	return body->failed ? fail(body, 503, "out of memory") : 200;
}

/* ---- claims ---- */

/* A stamp of the table as h sees it: its tiers, which are done and how many records
 * of each value they hold (FNV-1a over the numbers). */
static uint64_t table_stamp(bp_explorer *ex, struct handle *h)
{
	struct bp_table_meta m;
	uint64_t x = 1469598103934665603ull;
	pthread_rwlock_rdlock(&ex->store_lock);
	if (bp_table_meta_get(h->t, &m) == BP_OK) {
		uint64_t v[3] = { m.ntiers, m.rules_version, m.format_version };
		for (int i = 0; i < 3; i++)
			x = (x ^ v[i]) * 1099511628211ull;
		for (uint32_t t = 0; t < m.ntiers; t++) {
			x = (x ^ m.tier_size[t]) * 1099511628211ull;
			x = (x ^ m.tier_done[t]) * 1099511628211ull;
			for (int k = 0; k < 4; k++)
				x = (x ^ m.tier_count[(size_t)t * 4 + (size_t)k]) *
				    1099511628211ull;
		}
	}
	pthread_rwlock_unlock(&ex->store_lock);
	return x;
}

/* The table oracle of tools/cmd_claims.c with store_lock held shared only while it is
 * inside the store: around each probe, and around the table scan's own work but not
 * around the checks' visits. Both give up when the explorer stops. */
struct locked_oracle {
	bp_explorer *ex;
	struct bp_oracle inner;
	int (*visit)(void *vctx, const struct bp_pos *p, enum bp_value v, unsigned rem);
	void *vctx;
};

static int locked_value(void *ctx, const struct bp_pos *p, enum bp_value *v, unsigned *rem)
{
	struct locked_oracle *l = ctx;
	if (atomic_load(&l->ex->stopping))
		return BP_ECANCELED;
	pthread_rwlock_rdlock(&l->ex->store_lock);
	int rc = l->inner.value(l->inner.ctx, p, v, rem);
	pthread_rwlock_unlock(&l->ex->store_lock);
	return rc;
}

static int unlocked_visit(void *vctx, const struct bp_pos *p, enum bp_value v, unsigned rem)
{
	struct locked_oracle *l = vctx;
	pthread_rwlock_unlock(&l->ex->store_lock);
	int rc = atomic_load(&l->ex->stopping) ? BP_ECANCELED : l->visit(l->vctx, p, v, rem);
	pthread_rwlock_rdlock(&l->ex->store_lock);
	return rc;
}

static int locked_each(void *ctx,
		       int (*visit)(void *vctx, const struct bp_pos *p, enum bp_value v,
				    unsigned rem),
		       void *vctx)
{
	struct locked_oracle *l = ctx;
	l->visit = visit;
	l->vctx = vctx;
	pthread_rwlock_rdlock(&l->ex->store_lock);
	int rc = l->inner.each(l->inner.ctx, unlocked_visit, l);
	pthread_rwlock_unlock(&l->ex->store_lock);
	return rc;
}

/* Computes spec's claims as `claims SPEC --json` (the worker). @return the HTTP
 * status, body set; *stamp the table's stamp. */
static int claims_compute(bp_explorer *ex, const char *spec, struct bp_text *body, uint64_t *stamp)
{
	struct inst *in = NULL;
	struct handle *h = NULL;
	int st = take(ex, spec, &in, &h, body);
	if (st)
		return st;
	*stamp = table_stamp(ex, h);
	struct bp_cmd_table_oracle to;
	struct locked_oracle lo = { .ex = ex };
	bp_cmd_table_oracle(in->g, h->t, &to, &lo.inner);
	struct bp_oracle o = { .value = locked_value, .ctx = &lo, .each = locked_each };
	struct bp_claims_opts copts = { 0 };
	int failed = 0;
	const char *bad = NULL;
	bp_text_clear(body);
	int rc = bp_cmd_claims_report(in->g, &o, &copts, NULL, 0, 1, body, &failed, &bad);
	/* the report is not sent: the error goes into a fresh text (a text that ran out of
	 * memory stays failed when cleared, and an answer copied from it would be empty) */
	int cut = body->failed;
	if (rc || cut)
		bp_text_free(body);
	if (rc == BP_ECANCELED)
		st = fail(body, 503, "the server is stopping");
	else if (rc == BP_ENOMEM || (!rc && cut))
		st = fail(body, 503, "out of memory");
	else if (rc)
		st = fail(body, 500, "checking %s of %s: %s", bad ? bad : "claims", spec,
			  bp_strerror(rc));
	else
		st = 200;
	give(ex, in, h, rc && rc != BP_ECANCELED && rc != BP_ENOMEM);
	return st;
}

/* Calls back and frees a list of waiters (cmu not held). */
static void wake(struct waiter *w)
{
	while (w) {
		struct waiter *next = w->next;
		w->w.ready(w->w.ctx);
		free(w);
		w = next;
	}
}

static void *claims_worker(void *arg)
{
	bp_explorer *ex = arg;
	pthread_mutex_lock(&ex->cmu);
	for (;;) {
		struct claims_entry *e = NULL;
		while (!atomic_load(&ex->stopping)) {
			for (int i = 0; i < ex->nclaims && !e; i++)
				if (ex->claims[i]->state == CLAIMS_QUEUED)
					e = ex->claims[i];
			if (e)
				break;
			pthread_cond_wait(&ex->cwake, &ex->cmu);
		}
		if (!e)
			break;
		e->state = CLAIMS_RUNNING;
		pthread_mutex_unlock(&ex->cmu);
		struct bp_text body = { 0 };
		uint64_t stamp = 0;
		int st = claims_compute(ex, e->spec, &body, &stamp);
		pthread_mutex_lock(&ex->cmu);
		bp_text_free(&e->body);
		e->body = body;
		e->status = st;
		e->stamp = stamp;
		e->state = CLAIMS_DONE;
		e->used = now();
		struct waiter *w = e->waiters;
		e->waiters = NULL;
		pthread_mutex_unlock(&ex->cmu);
		wake(w);
		pthread_mutex_lock(&ex->cmu);
	}
	/* stopping: whoever still waits is called back, and will be told so */
	for (int i = 0; i < ex->nclaims; i++) {
		struct claims_entry *e = ex->claims[i];
		struct waiter *w = e->waiters;
		e->waiters = NULL;
		if (e->state != CLAIMS_DONE) {
			e->state = CLAIMS_DONE;
			e->status = bp_explorer_error(&e->body, 503, "the server is stopping");
		}
		pthread_mutex_unlock(&ex->cmu);
		wake(w);
		pthread_mutex_lock(&ex->cmu);
	}
	pthread_mutex_unlock(&ex->cmu);
	return NULL;
}

void bp_explorer_stop(bp_explorer *ex)
{
	pthread_mutex_lock(&ex->cmu);
	atomic_store(&ex->stopping, 1);
	pthread_cond_broadcast(&ex->cwake);
	int join = ex->worker_started && !ex->worker_joined;
	ex->worker_joined = 1;
	pthread_mutex_unlock(&ex->cmu);
	if (join)
		pthread_join(ex->worker, NULL);
}

struct sync_wait {
	pthread_mutex_t m;
	pthread_cond_t c;
	int done;
};

static void sync_ready(void *ctx)
{
	struct sync_wait *s = ctx;
	pthread_mutex_lock(&s->m);
	s->done = 1;
	pthread_cond_signal(&s->c);
	pthread_mutex_unlock(&s->m);
}

static struct claims_entry *claims_find(bp_explorer *ex, const char *spec)
{
	for (int i = 0; i < ex->nclaims; i++)
		if (strcmp(ex->claims[i]->spec, spec) == 0)
			return ex->claims[i];
	return NULL;
}

/* A new queued entry for spec, in place of the least recently used finished one when
 * the list is full. @return NULL when every entry is in use (*busy set) or out of
 * memory (*busy 0). */
static struct claims_entry *claims_add(bp_explorer *ex, const char *spec, int *busy)
{
	int slot = ex->nclaims;
	*busy = 0;
	if (slot == BP_EXPLORER_CLAIMS_KEEP) {
		slot = -1;
		for (int i = 0; i < ex->nclaims; i++)
			if (ex->claims[i]->state == CLAIMS_DONE &&
			    (slot < 0 || ex->claims[i]->used < ex->claims[slot]->used))
				slot = i;
		if (slot < 0) {
			*busy = 1;
			return NULL;
		}
	}
	struct claims_entry *e = calloc(1, sizeof *e);
	char *copy = strdup(spec);
	if (!e || !copy) {
		free(e);
		free(copy);
		return NULL;
	}
	e->spec = copy;
	e->state = CLAIMS_QUEUED;
	if (slot < ex->nclaims) {
		bp_text_free(&ex->claims[slot]->body);
		free(ex->claims[slot]->spec);
		free(ex->claims[slot]);
	} else {
		ex->nclaims++;
	}
	ex->claims[slot] = e;
	return e;
}

static int api_claims(bp_explorer *ex, const struct bp_explorer_arg *args, int nargs,
		      const struct bp_explorer_wait *wait, struct bp_text *body)
{
	struct inst *in = NULL;
	struct handle *h = NULL;
	int st = take(ex, arg(args, nargs, "instance"), &in, &h, body);
	if (st)
		return st;
	uint64_t stamp = table_stamp(ex, h);
	give(ex, in, h, 0);
	const char *spec = in->g->spec; /* instances live as long as the explorer */
	struct sync_wait sw = { .done = 0 };
	struct bp_explorer_wait mine = { sync_ready, &sw, 0 };
	int again = wait && wait->again;
	if (!wait && (pthread_mutex_init(&sw.m, NULL) || pthread_cond_init(&sw.c, NULL)))
		return fail(body, 503, "cannot create a lock");
	pthread_mutex_lock(&ex->cmu);
	for (;;) {
		struct claims_entry *e = claims_find(ex, spec);
		/* a failure of the server's own (5xx: out of memory, a read that failed) is
		 * told to the requests that waited for that computation, never kept for the
		 * next ones, which compute again: a passing fault must not make every later
		 * claims request of the instance fail (tests/tools/faults_serve.sh) */
		if (e && e->state == CLAIMS_DONE &&
		    (again || (e->stamp == stamp && e->status < 500))) {
			e->used = now();
			bp_text_clear(body);
			bp_text_printf(body, "%s", bp_text_str(&e->body));
			st = body->failed || e->body.failed ? fail(body, 503, "out of memory")
							    : e->status;
			break;
		}
		if (atomic_load(&ex->stopping)) {
			st = fail(body, 503, "the server is stopping");
			break;
		}
		if (e && e->state == CLAIMS_DONE) /* the table changed since, or it failed */
			e->state = CLAIMS_QUEUED;
		int busy;
		if (!e && !(e = claims_add(ex, spec, &busy))) {
			st = busy ? fail(body, 503, "busy: %d instances' claims are being computed",
					 BP_EXPLORER_CLAIMS_KEEP)
				  : fail(body, 503, "out of memory");
			break;
		}
		struct waiter *w = malloc(sizeof *w);
		if (!w) {
			st = fail(body, 503, "out of memory");
			break;
		}
		if (!ex->worker_started) {
			if (pthread_create(&ex->worker, NULL, claims_worker, ex) != 0) {
				free(w);
				st = fail(body, 503, "cannot start a thread");
				break;
			}
			ex->worker_started = 1;
		}
		w->w = wait ? *wait : mine;
		w->next = e->waiters;
		e->waiters = w;
		pthread_cond_broadcast(&ex->cwake);
		if (wait) {
			st = BP_EXPLORER_PENDING;
			break;
		}
		/* no way to park the request: wait here */
		pthread_mutex_unlock(&ex->cmu);
		pthread_mutex_lock(&sw.m);
		while (!sw.done)
			pthread_cond_wait(&sw.c, &sw.m);
		pthread_mutex_unlock(&sw.m);
		pthread_mutex_lock(&ex->cmu);
		sw.done = 0;
		again = 1;
	}
	pthread_mutex_unlock(&ex->cmu);
	if (!wait) {
		pthread_cond_destroy(&sw.c);
		pthread_mutex_destroy(&sw.m);
	}
	return st;
}

/* Refuses arguments an endpoint does not know, naming the first. */
static int check_args(const struct bp_explorer_arg *args, int nargs, const char *const *known,
		      const char *path, struct bp_text *body)
{
	char qb[72];
	for (int i = 0; i < nargs; i++) {
		int ok = 0;
		for (const char *const *k = known; *k && !ok; k++)
			ok = strcmp(args[i].key, *k) == 0;
		if (!ok)
			return fail(body, 400, "unknown parameter '%s' for %s",
				    quote(args[i].key, qb), path);
		for (int j = 0; j < i; j++)
			if (strcmp(args[i].key, args[j].key) == 0)
				return fail(body, 400, "parameter '%s' given twice", args[i].key);
	}
	return 0;
}

int bp_explorer_answer(bp_explorer *ex, const char *path, const struct bp_explorer_arg *args,
		       int nargs, const struct bp_explorer_wait *wait, struct bp_text *body)
{
	static const char *const none[] = { NULL };
	static const char *const query[] = { "instance", "position", "moves", NULL };
	static const char *const opening[] = { "instance", NULL };
	char qb[72];
	int st;
	if (nargs > BP_EXPLORER_MAX_ARGS)
		return fail(body, 400, "too many parameters (at most %d)", BP_EXPLORER_MAX_ARGS);
	for (int i = 0; i < nargs; i++) {
		size_t n = strlen(args[i].value);
		if (n > BP_EXPLORER_MAX_ARG)
			return fail(body, 414, "parameter '%s' is too long (%zu bytes, at most %d)",
				    quote(args[i].key, qb), n, BP_EXPLORER_MAX_ARG);
		/* specs, positions and moves are printable ASCII: anything else (control
		 * characters, bytes that are not ASCII) is refused before parsing */
		for (const unsigned char *c = (const unsigned char *)args[i].value; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				return fail(
					body, 400,
					"parameter '%s' holds a byte that is not printable ASCII "
					"(0x%02x)",
					quote(args[i].key, qb), *c);
	}
	if (strcmp(path, "/api/instances") == 0)
		return (st = check_args(args, nargs, none, path, body)) ? st
									: api_instances(ex, body);
	if (strcmp(path, "/api/query") == 0)
		return (st = check_args(args, nargs, query, path, body))
			       ? st
			       : api_query(ex, args, nargs, 0, body);
	if (strcmp(path, "/api/openings") == 0)
		return (st = check_args(args, nargs, opening, path, body))
			       ? st
			       : api_query(ex, args, nargs, 1, body);
	if (strcmp(path, "/api/claims") == 0)
		return (st = check_args(args, nargs, opening, path, body))
			       ? st
			       : api_claims(ex, args, nargs, wait, body);
	return fail(body, 404,
		    "unknown path '%s' (the API: /api/instances, /api/query, "
		    "/api/openings, /api/claims)",
		    quote(path, qb));
}
