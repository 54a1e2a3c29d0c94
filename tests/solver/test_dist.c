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
	struct bp_solve_dist dist;
	struct bp_game *g;
	struct bp_solve_result r;
	struct bp_err err;
	int rc;
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

static int gather(void *ctx, uint16_t *rec, const uint64_t *bounds)
{
	struct rank *me = ctx;
	publish(me, rec);
	/* each rank writes only the others' ranges of its own array, and reads only the
	 * owners' ranges of theirs, which nobody writes */
	for (int r = 0; r < me->w->nranks; r++)
		if (r != me->dist.rank)
			memcpy(rec + bounds[r], (uint16_t *)me->w->ptr[r] + bounds[r],
			       (bounds[r + 1] - bounds[r]) * sizeof *rec);
	pthread_barrier_wait(&me->w->bar);
	return BP_OK;
}

static void *run_rank(void *arg)
{
	struct rank *me = arg;
	struct bp_solve_opts o = { .engine = BP_ENGINE_AUTO, .threads = 1, .dist = &me->dist };
	me->rc = bp_solve(me->g, me->w->db, &o, &me->r, &me->err);
	return NULL;
}

struct split {
	char spec[48];
	int nranks;
};

ParameterizedTestParameters(dist, every_split_stores_the_one_process_table)
{
	static struct split splits[] = {
		{ "taifas:3x3", 1 },	{ "taifas:3x3", 2 },   { "taifas:3x4", 3 },
		{ "taifas:3x4", 4 },	{ "chicken:tri4", 2 }, { "glorieta:hex2", 3 },
		{ "havannah:hex2", 2 }, { "mirador:8x8", 4 },
	};
	return cr_make_param_array(struct split, splits, sizeof splits / sizeof splits[0]);
}

ParameterizedTest(struct split *t, dist, every_split_stores_the_one_process_table)
{
	struct bp_game *g = open_game(t->spec);
	char *one = temp_db(), *many = temp_db();
	struct bp_solve_opts o = { .engine = BP_ENGINE_TIERS, .threads = 1 };
	struct bp_solve_result r1 = solve_into(one, g, o);
	uint64_t want = verify_db(one, g).content_hash;

	struct world w = { .nranks = t->nranks };
	struct rank ranks[MAX_RANKS];
	pthread_t th[MAX_RANKS];
	memset(ranks, 0, sizeof ranks);
	cr_assert_eq(bp_store_open(many, BP_STORE_CREATE, &w.db, NULL), BP_OK);
	pthread_barrier_init(&w.bar, NULL, (unsigned)t->nranks);
	for (int i = 0; i < t->nranks; i++) {
		ranks[i] = (struct rank){ .w = &w,
					  .dist = { .rank = i,
						    .nranks = t->nranks,
						    .ctx = &ranks[i],
						    .reduce_or = reduce_or,
						    .sum = sum,
						    .gather = gather },
					  .g = open_game(t->spec) };
	}
	for (int i = 0; i < t->nranks; i++)
		pthread_create(&th[i], NULL, run_rank, &ranks[i]);
	for (int i = 0; i < t->nranks; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&w.bar);
	bp_store_close(w.db);
	for (int i = 0; i < t->nranks; i++) {
		cr_expect_eq(ranks[i].rc, BP_OK, "%s rank %d of %d: %s", t->spec, i, t->nranks,
			     ranks[i].err.msg);
		cr_expect_eq(ranks[i].r.engine, BP_ENGINE_TIERS);
		cr_expect_eq(ranks[i].r.value, r1.value, "%s rank %d", t->spec, i);
		cr_expect_eq(ranks[i].r.remoteness, r1.remoteness, "%s rank %d", t->spec, i);
		cr_expect_eq(ranks[i].r.positions, r1.positions, "%s rank %d", t->spec, i);
		bp_game_destroy(ranks[i].g);
	}
	cr_expect_eq(verify_db(many, g).content_hash, want, "%s on %d ranks", t->spec, t->nranks);
	remove_db(one);
	remove_db(many);
	bp_game_destroy(g);
}

Test(dist, only_the_tiers_engine_splits)
{
	struct bp_game *g = open_game("taifas:2x3");
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	struct bp_solve_dist d = { .rank = 0, .nranks = 1 };
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	struct bp_solve_opts o = { .engine = BP_ENGINE_WALK, .threads = 1, .dist = &d };
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_EUNSUPPORTED);
	cr_expect(strstr(err.msg, "tiers engine") != NULL, "'%s'", err.msg);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}
