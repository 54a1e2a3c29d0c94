/* SPDX-License-Identifier: MIT */
/* Benchmark of the Glorieta games (not a test): perft from the start position with
 * the last level counted in bulk (as `boardproof perft`) and with every leaf move
 * applied, on chicken:hex4 and glorieta:hex4, and loop checks per second. Prints one
 * line per figure. Run through bench/bench_glorieta.sh or `meson test --benchmark`. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "solver/games/game.h"
#include "solver/games/loops.h"
#include "solver/games/perft.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Perft that applies every move, leaves included, and asks each child its outcome. */
static uint64_t full_perft(const struct bp_game *g, const struct bp_pos *p, int depth,
			   struct bp_move *buf)
{
	if (depth == 0 || g->ops->outcome(g, p))
		return 0;
	int n = g->ops->moves(g, p, buf);
	uint64_t total = (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, buf[i]);
		total += full_perft(g, &c, depth - 1, buf + g->max_moves);
	}
	return total;
}

static void bench_game(const char *spec, int depth)
{
	struct bp_game *g;
	struct bp_err err;
	if (bp_game_create(spec, &g, &err)) {
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		exit(1);
	}
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t counts[16];
	double t0 = now();
	bp_perft(g, &p, depth, counts);
	double t1 = now();
	uint64_t moves = 0;
	for (int d = 1; d <= depth; d++)
		moves += counts[d];
	printf("%-16s perft %d = %llu: %llu moves in %.3f s, %.0f moves/s (last level in "
	       "bulk)\n",
	       spec, depth, (unsigned long long)counts[depth], (unsigned long long)moves, t1 - t0,
	       (double)moves / (t1 - t0));
	struct bp_move *buf = malloc(sizeof *buf * (size_t)g->max_moves * (size_t)(depth + 1));
	t0 = now();
	uint64_t applied = full_perft(g, &p, depth, buf);
	t1 = now();
	printf("%-16s perft %d: %llu moves applied in %.3f s, %.0f moves/s (every move "
	       "applied)\n",
	       spec, depth, (unsigned long long)applied, t1 - t0, (double)applied / (t1 - t0));
	free(buf);
	bp_game_destroy(g);
}

static void bench_loops(const char *board, const uint8_t *ring)
{
	struct bp_board *b;
	bp_board_create(board, &b, NULL);
	struct bp_loops *L = malloc(sizeof *L);
	bp_loops_init(L, b, ring);
	enum { N = 1 << 16 };
	uint64_t *sets = malloc(sizeof *sets * N);
	unsigned seed = 12345;
	srand(seed);
	for (int i = 0; i < N; i++) {
		uint64_t g = 0;
		for (int c = 0; c < b->ncells; c++)
			g |= (uint64_t)(rand() % 100 < 45) << c;
		sets[i] = g;
	}
	long checks = 0, found = 0;
	double t0 = now();
	for (int rep = 0; rep < 40; rep++)
		for (int i = 0; i < N; i++, checks++)
			found += bp_loops_enclosed(L, i & 1, sets[i]) != 0;
	double t1 = now();
	printf("%-16s %ld full loop checks in %.3f s: %.0f checks/s (%ld loops, %s ring, "
	       "seed %u)\n",
	       board, checks, t1 - t0, (double)checks / (t1 - t0), found, ring ? "with" : "no",
	       seed);
	/* a move's check: filter first, full check only when the filter cannot decide */
	long moves = 0;
	t0 = now();
	for (int rep = 0; rep < 4; rep++)
		for (int i = 0; i < N; i++) {
			uint64_t g = sets[i];
			if (bp_loops_enclosed(L, 0, g))
				continue;
			for (uint64_t e = L->full & ~g; e; e &= e - 1, moves++)
				found += bp_loops_closes(L, 0, g, __builtin_ctzll(e));
		}
	t1 = now();
	printf("%-16s %ld per-move loop checks in %.3f s: %.0f checks/s\n", board, moves, t1 - t0,
	       (double)moves / (t1 - t0));
	free(sets);
	free(L);
	bp_board_destroy(b);
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 3;
	bench_game("chicken:hex4", depth);
	bench_game("glorieta:hex4", depth);
	bench_game("landscape:hex4,neutrals=6", depth + 1);
	uint8_t ring[24];
	for (int i = 0; i < 24; i++)
		ring[i] = (uint8_t)((i / 4) % 2 == 0);
	bench_loops("hex4", NULL);
	bench_loops("hex4", ring);
	bench_loops("hex5", NULL);
	return 0;
}
