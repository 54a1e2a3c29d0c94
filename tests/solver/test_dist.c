/* SPDX-License-Identifier: MIT */
/* The tiers engine split across ranks (struct bp_solve_dist, what `solve --mpi`
 * plugs MPI into), without MPI: the ranks are threads of this process sharing one
 * database, and the collectives are done with a barrier. Every split must store the
 * one-process table (verify's content hash), and every rank must report the same
 * start value and counts. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "solver/solve.h"
#include "tests/support.h"

#define MAX_RANKS 4

struct world {
	int nranks;
	pthread_barrier_t bar;
	void *ptr[MAX_RANKS]; /* what each rank published for the collective under way */
	bp_store *db;
};

struct rank {
	struct world *w;
	enum bp_engine engine;
	int wide; /* wide_records */
	struct bp_solve_dist dist;
	struct bp_game *g;
	struct bp_solve_result r;
	struct bp_err err;
	int rc;
	int stop_after; /* > 0: cancel once this many tiers are solved */
	int solved;
};

static void publish(struct rank *me, void *p)
{
	me->w->ptr[me->dist.rank] = p;
	pthread_barrier_wait(&me->w->bar);
}

static int reduce_or(void *ctx, uint64_t *words, uint64_t n)
{
	struct rank *me = ctx;
	uint64_t *tmp = calloc(n ? n : 1, sizeof *tmp);
	publish(me, words);
	for (int r = 0; r < me->w->nranks; r++)
		for (uint64_t i = 0; tmp && i < n; i++)
			tmp[i] |= ((uint64_t *)me->w->ptr[r])[i];
	pthread_barrier_wait(&me->w->bar); /* every rank has read every other's */
	if (tmp)
		memcpy(words, tmp, n * sizeof *tmp);
	free(tmp);
	pthread_barrier_wait(&me->w->bar);
	return tmp ? BP_OK : BP_ENOMEM;
}

static int sum(void *ctx, uint64_t *v, int n)
{
	struct rank *me = ctx;
	uint64_t tmp[16] = { 0 };
	publish(me, v);
	for (int r = 0; r < me->w->nranks; r++)
		for (int i = 0; i < n; i++)
			tmp[i] += ((uint64_t *)me->w->ptr[r])[i];
	pthread_barrier_wait(&me->w->bar);
	memcpy(v, tmp, sizeof *v * (size_t)n);
	pthread_barrier_wait(&me->w->bar);
	return BP_OK;
}

/* What a rank publishes for an exchange. */
struct post {
	const void *send;
	const uint64_t *scount;
};

static int exchange(void *ctx, const void *send, const uint64_t *scount, void *recv,
		    const uint64_t *rcount, size_t elem)
{
	struct rank *me = ctx;
	struct post mine = { send, scount };
	int nr = me->w->nranks, rc = BP_OK;
	publish(me, &mine);
	/* from rank q: its elements for this rank, after those for the ranks before it */
	uint64_t at = 0;
	for (int q = 0; q < nr; q++) {
		const struct post *p = me->w->ptr[q];
		uint64_t from = 0;
		for (int r = 0; r < me->dist.rank; r++)
			from += p->scount[r];
		if (p->scount[me->dist.rank] != rcount[q])
			rc = BP_EIO;
		else
			memcpy((char *)recv + at * elem, (const char *)p->send + from * elem,
			       rcount[q] * elem);
		at += rcount[q];
	}
	pthread_barrier_wait(&me->w->bar); /* every rank has read every other's */
	return rc;
}

/* One mailbox per (from, to): the sender waits until the receiver has copied. */
struct mailbox {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const void *buf;
	uint64_t bytes;
	int full;
};

static struct mailbox box[MAX_RANKS][MAX_RANKS];

static int send_to(void *ctx, int to, const void *buf, uint64_t bytes)
{
	struct rank *me = ctx;
	struct mailbox *m = &box[me->dist.rank][to];
	pthread_mutex_lock(&m->mu);
	while (m->full)
		pthread_cond_wait(&m->cv, &m->mu);
	m->buf = buf;
	m->bytes = bytes;
	m->full = 1;
	pthread_cond_broadcast(&m->cv);
	while (m->full)
		pthread_cond_wait(&m->cv, &m->mu);
	pthread_mutex_unlock(&m->mu);
	return BP_OK;
}

static int recv_from(void *ctx, int from, void *buf, uint64_t bytes)
{
	struct rank *me = ctx;
	struct mailbox *m = &box[from][me->dist.rank];
	int rc = BP_OK;
	pthread_mutex_lock(&m->mu);
	while (!m->full)
		pthread_cond_wait(&m->cv, &m->mu);
	if (m->bytes != bytes)
		rc = BP_EIO;
	else
		memcpy(buf, m->buf, bytes);
	m->full = 0;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	return rc;
}

static void progress(void *ctx, const struct bp_solve_progress *p)
{
	struct rank *me = ctx;
	me->solved += p->phase == 1 && !p->resumed;
}

static int cancel(void *ctx)
{
	const struct rank *me = ctx;
	return me->stop_after > 0 && me->solved >= me->stop_after;
}

static void *run_rank(void *arg)
{
	struct rank *me = arg;
	struct bp_solve_opts o = { .engine = me->engine,
				   .threads = 1,
				   .wide_records = me->wide,
				   .dist = &me->dist,
				   .progress = progress,
				   .cancel = cancel,
				   .ctx = me };
	me->rc = bp_solve(me->g, me->w->db, &o, &me->r, &me->err);
	return NULL;
}

/* Solves spec on nranks ranks (threads) into the database at dir; each rank's outcome
 * in ranks[] (its game destroyed). stop_after: see struct rank. */
static void split_solve(const char *spec, int nranks, enum bp_engine engine, int wide,
			const char *dir, int stop_after, struct rank *ranks)
{
	struct world w = { .nranks = nranks };
	pthread_t th[MAX_RANKS];
	memset(ranks, 0, sizeof *ranks * MAX_RANKS);
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &w.db, NULL), BP_OK);
	pthread_barrier_init(&w.bar, NULL, (unsigned)nranks);
	for (int i = 0; i < MAX_RANKS; i++)
		for (int j = 0; j < MAX_RANKS; j++) {
			pthread_mutex_init(&box[i][j].mu, NULL);
			pthread_cond_init(&box[i][j].cv, NULL);
			box[i][j].full = 0;
		}
	for (int i = 0; i < nranks; i++) {
		ranks[i] = (struct rank){ .w = &w,
					  .engine = engine,
					  .wide = wide,
					  .dist = { .rank = i,
						    .nranks = nranks,
						    .ctx = &ranks[i],
						    .reduce_or = reduce_or,
						    .sum = sum,
						    .exchange = exchange,
						    .send = send_to,
						    .recv = recv_from },
					  .g = open_game(spec),
					  .stop_after = stop_after };
	}
	for (int i = 0; i < nranks; i++)
		pthread_create(&th[i], NULL, run_rank, &ranks[i]);
	for (int i = 0; i < nranks; i++) {
		pthread_join(th[i], NULL);
		bp_game_destroy(ranks[i].g);
		ranks[i].g = NULL;
	}
	pthread_barrier_destroy(&w.bar);
	bp_store_close(w.db);
}

struct split {
	char spec[48];
	int nranks;
	enum bp_engine engine; /* AUTO: walk where the game has one */
	int wide;	       /* the walk's records held in 16 bits (wide_records) */
};

ParameterizedTestParameters(dist, every_split_stores_the_one_process_table)
{
	static struct split splits[] = {
		{ "taifas:3x3", 1, BP_ENGINE_TIERS, 0 },
		{ "taifas:3x3", 2, BP_ENGINE_TIERS, 0 },
		{ "taifas:3x4", 3, BP_ENGINE_TIERS, 0 },
		{ "taifas:3x4", 4, BP_ENGINE_TIERS, 0 },
		{ "taifas:3x3", 1, BP_ENGINE_WALK, 0 },
		{ "taifas:3x4", 2, BP_ENGINE_WALK, 0 },
		{ "taifas:3x4", 3, BP_ENGINE_WALK, 0 },
		{ "taifas:3x4", 4, BP_ENGINE_WALK, 0 },
		{ "taifas:3x4", 3, BP_ENGINE_WALK, 1 },
		{ "landscape:hex2,neutrals=1,layout=a1", 3, BP_ENGINE_WALK, 0 },
		{ "landscape:hex2,neutrals=1,layout=a1", 2, BP_ENGINE_TIERS, 0 },
		{ "chicken:tri4", 2, BP_ENGINE_AUTO, 0 },
		{ "chicken:tri4", 3, BP_ENGINE_WALK, 0 },
		{ "chicken:tri4", 4, BP_ENGINE_WALK, 0 },
		{ "chicken:tri4", 3, BP_ENGINE_WALK, 1 },
		{ "chicken:tri4", 3, BP_ENGINE_TIERS, 0 },
		{ "glorieta:hex2", 3, BP_ENGINE_AUTO, 0 },
		{ "glorieta:hex2,hand=3", 2, BP_ENGINE_WALK, 0 },
		{ "glorieta:tri3,ring=none", 4, BP_ENGINE_WALK, 0 },
		{ "glorieta:hex2,hand=2", 3, BP_ENGINE_TIERS, 0 },
		{ "havannah:hex2", 2, BP_ENGINE_AUTO, 0 },
		{ "mirador:8x8", 4, BP_ENGINE_AUTO, 0 },
	};
	return cr_make_param_array(struct split, splits, sizeof splits / sizeof splits[0]);
}

ParameterizedTest(struct split *t, dist, every_split_stores_the_one_process_table)
{
	struct bp_game *g = open_game(t->spec);
	char *one = temp_db(), *many = temp_db();
	/* the dense index, as every split has (Mirador's default in one process is its
	 * reachable positions: BP_GAME_SPARSE_FIRST) */
	struct bp_solve_opts o = { .engine = BP_ENGINE_TIERS,
				   .threads = 1,
				   .index = BP_INDEX_DENSE };
	struct bp_solve_result r1 = solve_into(one, g, o);
	/* auto across ranks: the walk where the game has one (solve.c) */
	enum bp_engine want_engine = g->ops->tier_walk ? BP_ENGINE_WALK : BP_ENGINE_TIERS;
	uint64_t want = verify_db(one, g).content_hash;

	struct rank ranks[MAX_RANKS];
	split_solve(t->spec, t->nranks, t->engine, t->wide, many, 0, ranks);
	uint64_t sent = 0, received = 0;
	for (int i = 0; i < t->nranks; i++) {
		cr_expect_eq(ranks[i].rc, BP_OK, "%s rank %d of %d: %s", t->spec, i, t->nranks,
			     ranks[i].err.msg);
		cr_expect_eq(ranks[i].r.engine, t->engine ? t->engine : want_engine);
		cr_expect_eq(ranks[i].r.value, r1.value, "%s rank %d", t->spec, i);
		cr_expect_eq(ranks[i].r.remoteness, r1.remoteness, "%s rank %d", t->spec, i);
		cr_expect_eq(ranks[i].r.positions, r1.positions, "%s rank %d", t->spec, i);
		sent += ranks[i].r.sent_bytes;
		received += ranks[i].r.received_bytes;
	}
	/* ranks hold only their slices: with more than one, records and marks travel */
	cr_expect_eq(sent, received, "%s: bytes sent and received", t->spec);
	if (t->nranks > 1)
		cr_expect_gt(sent, 0, "%s on %d ranks", t->spec, t->nranks);
	else
		cr_expect_eq(sent, 0, "%s on one rank", t->spec);
	cr_expect_eq(verify_db(many, g).content_hash, want, "%s on %d ranks", t->spec, t->nranks);
	remove_db(one);
	remove_db(many);
	bp_game_destroy(g);
}

Test(dist, the_cycles_engine_does_not_split)
{
	struct bp_game *g = open_game("taifas:2x3");
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	struct bp_solve_dist d = { .rank = 0, .nranks = 1 };
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	struct bp_solve_opts o = { .engine = BP_ENGINE_CYCLES, .threads = 1, .dist = &d };
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_EUNSUPPORTED);
	cr_expect(strstr(err.msg, "tiers and walk engines") != NULL, "'%s'", err.msg);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

/* A split solve stopped after a few tiers (every rank cancels) resumes on another
 * number of ranks, each reading its chunks of the stored tiers (with Chicken's walk
 * those of both child tiers, after the reach pass again), and stores the one-process
 * table. */
ParameterizedTestParameters(dist, a_stopped_split_resumes_on_other_ranks)
{
	static struct split splits[] = {
		{ "chicken:tri4", 3, BP_ENGINE_WALK, 0 },
		{ "chicken:tri4", 3, BP_ENGINE_WALK, 1 },
		{ "chicken:tri4", 2, BP_ENGINE_TIERS, 0 },
		{ "taifas:3x4", 2, BP_ENGINE_WALK, 0 },
		{ "glorieta:hex2,hand=3", 3, BP_ENGINE_WALK, 0 },
	};
	return cr_make_param_array(struct split, splits, sizeof splits / sizeof splits[0]);
}

ParameterizedTest(struct split *t, dist, a_stopped_split_resumes_on_other_ranks)
{
	struct bp_game *g = open_game(t->spec);
	char *one = temp_db(), *many = temp_db();
	/* the dense index, as every split has (Mirador's default in one process is its
	 * reachable positions: BP_GAME_SPARSE_FIRST) */
	struct bp_solve_opts o = { .engine = BP_ENGINE_TIERS,
				   .threads = 1,
				   .index = BP_INDEX_DENSE };
	struct bp_solve_result r1 = solve_into(one, g, o);
	struct rank ranks[MAX_RANKS];
	split_solve(t->spec, t->nranks, t->engine, t->wide, many, 3, ranks);
	for (int i = 0; i < t->nranks; i++) {
		cr_expect_neq(ranks[i].rc, BP_OK, "%s rank %d: not stopped", t->spec, i);
		cr_expect_eq(ranks[i].r.solved_tiers, 3, "%s rank %d", t->spec, i);
	}
	int again = t->nranks == 3 ? 2 : 3;
	split_solve(t->spec, again, t->engine, t->wide, many, 0, ranks);
	for (int i = 0; i < again; i++) {
		cr_expect_eq(ranks[i].rc, BP_OK, "%s rank %d of %d: %s", t->spec, i, again,
			     ranks[i].err.msg);
		cr_expect_eq(ranks[i].r.resumed_tiers, 3, "%s rank %d", t->spec, i);
		cr_expect_eq(ranks[i].r.value, r1.value, "%s rank %d", t->spec, i);
		cr_expect_eq(ranks[i].r.positions, r1.positions, "%s rank %d", t->spec, i);
	}
	cr_expect_eq(verify_db(many, g).content_hash, verify_db(one, g).content_hash,
		     "%s resumed on %d ranks", t->spec, again);
	remove_db(one);
	remove_db(many);
	bp_game_destroy(g);
}
