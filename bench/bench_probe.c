/* SPDX-License-Identifier: MIT */
/* Probe speed on a solved table: a warm query (a position and all its moves' values,
 * repeated, so its blocks are cached) and cold single-position probes (positions from
 * seeded random playouts, probed once each in random order through a fresh table
 * handle, so most miss the block cache).
 *
 *     bench_probe DB SPEC [PROBES] [SEED]        prints one JSON object */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "solver/probe.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_probe DB SPEC [PROBES] [SEED]\n");
		return 2;
	}
	long probes = argc > 3 ? atol(argv[3]) : 100000;
	uint64_t seed0 = argc > 4 ? strtoull(argv[4], NULL, 10) : 1, seed = seed0;
	struct bp_game *g;
	bp_store *db;
	bp_table *t;
	struct bp_err err = { { 0 } };
	if (bp_game_create(argv[2], &g, &err) ||
	    bp_store_open(argv[1], BP_STORE_READONLY, &db, &err) ||
	    bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, &err)) {
		fprintf(stderr, "bench_probe: %s\n", err.msg);
		return 3;
	}
	bp_probe_set_holes(t, g);
	struct bp_pos *pos = malloc(sizeof *pos * (size_t)probes);
	struct bp_move *mv = bp_game_move_buffer(g);
	struct bp_probe_move *pm = malloc(sizeof *pm * (size_t)g->max_moves);
	for (long i = 0; i < probes; i++) {
		g->ops->start(g, &pos[i]);
		int depth = (int)(next(&seed) % (uint64_t)(g->ntiers ? g->ntiers : 8));
		for (int d = 0; d < depth; d++) {
			int n = g->ops->moves(g, &pos[i], mv);
			if (!n)
				break;
			g->ops->apply(g, &pos[i], mv[next(&seed) % (uint64_t)n]);
		}
	}
	/* warm: the start position and every move, 2000 times */
	struct bp_pos start;
	struct bp_probe pr;
	g->ops->start(g, &start);
	int reps = 2000, nmoves = 0;
	double t0 = now();
	for (int r = 0; r < reps; r++) {
		int rc = bp_probe_position(g, t, &start, &pr);
		nmoves = rc ? rc : bp_probe_moves(g, t, &start, pm);
		if (nmoves < 0) {
			fprintf(stderr, "bench_probe: probing the start position: %s\n",
				bp_strerror(nmoves));
			return 3;
		}
	}
	double warm = (now() - t0) / reps;
	bp_table_close(t);
	if (bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, &err)) {
		fprintf(stderr, "bench_probe: %s\n", err.msg);
		return 3;
	}
	bp_probe_set_holes(t, g);
	long found = 0;
	t0 = now();
	for (long i = 0; i < probes; i++)
		found += bp_probe_position(g, t, &pos[i], &pr) == BP_OK;
	double cold = now() - t0;
	printf("{\"instance\": \"%s\", \"warm_query_us\": %.1f, \"warm_query_moves\": %d, "
	       "\"cold_probes\": %ld, \"cold_probes_found\": %ld, \"cold_probes_per_second\": "
	       "%.0f, "
	       "\"seed\": %llu}\n",
	       g->spec, warm * 1e6, nmoves, probes, found, probes / cold,
	       (unsigned long long)seed0);
	free(pos);
	free(mv);
	free(pm);
	bp_table_close(t);
	bp_store_close(db);
	bp_game_destroy(g);
	return found == probes ? 0 : 1;
}
