/* SPDX-License-Identifier: MIT */
/* The cost of a game's bounds op (bp_game_ops.bounds), the knowledge df-pn asks of
 * every child it generates: CPU nanoseconds per call on the children of positions
 * from seeded random play, with a checksum of the answers so that two builds can be
 * compared side by side on the same calls.
 *
 *     bench_bounds [SPEC [POSITION [MOVES [PLIES [ROUNDS [SEED]]]]]]
 *
 * Defaults: taifas:5x5, bench/bench_pnrule.sh's t55-6 (the position then `xe5 oa5
 * xd1 oe1 xb5 oe3`), 0 to 10 random plies, 20 rounds, seed 20261125. The positions:
 * 20,000 games from POSITION, each MOVES then a random number of random plies (0 to
 * PLIES), and every child of the last position that is not over, which is what an
 * expansion asks the op of. They are fixed by the seed; the timing is not.
 *
 * Where the game has bounds_node and bounds_child (the children of a node, their work
 * shared), the same children are timed through them too, a node at a time, in turn
 * with the op round by round: "ns_per_child" (and its checksum, which must equal the
 * op's) against "ns_per_call". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "canon/random.h"
#include "solver/games/game.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: steady on a busy machine */
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "taifas:5x5";
	const char *start = argc > 2 ? argv[2] : "x1o2/1x3/2o2/5/5 x last=o";
	const char *line = argc > 3 ? argv[3] : "xe5 oa5 xd1 oe1 xb5 oe3";
	int plies = argc > 4 ? atoi(argv[4]) : 10, rounds = argc > 5 ? atoi(argv[5]) : 20;
	uint64_t seed = argc > 6 ? strtoull(argv[6], NULL, 10) : 20261125, rs = seed;
	struct bp_game *g;
	struct bp_err err;
	struct bp_pos root;
	if (bp_game_create(spec, &g, &err) != BP_OK) {
		fprintf(stderr, "bench_bounds: %s: %s\n", spec, err.msg);
		return 2;
	}
	if (!g->ops->bounds) {
		fprintf(stderr, "bench_bounds: %s has no bounds op\n", spec);
		return 2;
	}
	if (bp_game_parse_position(g, start, &root, &err) != BP_OK ||
	    bp_game_play_line(g, &root, line, " ", 0, NULL, NULL, NULL, &err) != BP_OK) {
		fprintf(stderr, "bench_bounds: %s\n", err.msg);
		return 2;
	}
	struct bp_move *mv = bp_game_move_buffer(g);
	int cap = 1 << 20, n = 0;
	struct bp_pos *kids = malloc(sizeof *kids * (size_t)cap);
	struct bp_move *kmove = malloc(sizeof *kmove * (size_t)cap);
	/* the nodes: node j's children are kids[first[j] .. first[j + 1] - 1] */
	struct bp_pos *node = malloc(sizeof *node * 20001);
	int *first = malloc(sizeof *first * 20002), nnodes = 0;
	if (!mv || !kids || !kmove || !node || !first)
		return 4;
	for (int game = 0; game < 20000; game++) {
		struct bp_pos p = root;
		int k = (int)(bp_splitmix64(&rs) % (uint64_t)(plies + 1));
		for (int i = 0; i < k && g->ops->outcome(g, &p) == BP_VALUE_NONE; i++) {
			int m = g->ops->moves(g, &p, mv);
			g->ops->apply(g, &p, mv[bp_splitmix64(&rs) % (uint64_t)m]);
		}
		if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
			continue;
		node[nnodes] = p;
		first[nnodes++] = n;
		for (int i = 0, m = g->ops->moves(g, &p, mv); i < m && n < cap; i++) {
			kids[n] = p;
			kmove[n] = mv[i];
			g->ops->apply(g, &kids[n], mv[i]);
			n += g->ops->outcome(g, &kids[n]) == BP_VALUE_NONE;
		}
	}
	first[nnodes] = n;
	int shared = g->ops->bounds_node && g->ops->bounds_child;
	void *ctx = shared ? malloc(g->ops->bounds_ctx_size) : NULL;
	if (shared && !ctx)
		return 4;
	long bounded = 0, decided = 0, sum = 0, ksum = 0;
	double s = 0, ks = 0;
	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		for (int i = 0; i < n; i++) {
			int lo = 0, hi = 0, rc = g->ops->bounds(g, &kids[i], &lo, &hi);
			bounded += rc;
			decided += rc && (lo >= 0 || hi <= 0);
			sum += rc * (3 * lo + hi + 4);
		}
		s += now() - t0;
		if (!shared)
			continue;
		t0 = now();
		for (int j = 0; j < nnodes; j++) {
			g->ops->bounds_node(g, &node[j], ctx);
			for (int i = first[j]; i < first[j + 1]; i++) {
				int lo = 0, hi = 0;
				int rc = g->ops->bounds_child(g, ctx, &kids[i], kmove[i], &lo, &hi);
				ksum += rc * (3 * lo + hi + 4);
			}
		}
		ks += now() - t0;
	}
	printf("{\"spec\": \"%s\", \"seed\": %llu, \"positions\": %d, \"calls\": %ld, "
	       "\"ns_per_call\": %.1f, \"bounded\": %ld, \"decided\": %ld, \"checksum\": %ld",
	       g->spec, (unsigned long long)seed, n, (long)n * rounds, s * 1e9 / n / rounds,
	       bounded / rounds, decided / rounds, sum / rounds);
	if (shared)
		printf(", \"nodes\": %d, \"ns_per_child\": %.1f, \"checksum_children\": %ld",
		       nnodes, ks * 1e9 / n / rounds, ksum / rounds);
	printf("}\n");
	free(ctx);
	free(first);
	free(node);
	free(kmove);
	free(kids);
	free(mv);
	bp_game_destroy(g);
	return 0;
}
