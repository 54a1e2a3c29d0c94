/* SPDX-License-Identifier: MIT */
/* Mirador benchmark: perft turns per second and unbreakable tests per second on
 * mirador:10x10 (positions from seeded random games), and the time `moves` takes on
 * 27x27 positions along seeded random games (the slowest ply is reported with its
 * position text, so it can be replayed with `boardproof moves`).
 *
 *     bench_mirador [--seed N] [--games N] [--perft-depth D] [--spec S] [POSITION]
 *
 * With POSITION (on --spec, default mirador:27x27) it times moves() and perft 1 on
 * that position only; with --board ROWS it times the unbreakable test on any
 * arrangement of pieces, whether or not play can reach it (stress cases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solver/games/game.h"
#include "solver/games/mirador.h"
#include "solver/games/perft.h"
#include "solver/games/postext.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: steady on a busy machine */
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static struct bp_game *open_game(const char *spec)
{
	struct bp_game *g;
	struct bp_err err;
	if (bp_game_create(spec, &g, &err)) {
		fprintf(stderr, "bench_mirador: %s\n", err.msg);
		exit(2);
	}
	return g;
}

static void print_pos(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_text t = { 0 };
	g->ops->pos_format(g, p, &t);
	printf("%s", bp_text_str(&t));
	bp_text_free(&t);
}

static void time_position(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	double t0 = now();
	int n = g->ops->moves(g, p, mv);
	double t1 = now();
	uint64_t counts[2];
	bp_perft(g, p, 1, counts);
	double t2 = now();
	printf("moves: %d in %.3f ms; perft 1 = %llu in %.3f ms\n", n, (t1 - t0) * 1e3,
	       (unsigned long long)counts[1], (t2 - t1) * 1e3);
	for (int c = 0; c < 2; c++) {
		struct bp_mirador_verdict v;
		double t3 = now();
		bp_mirador_test(g, p, c, &v);
		printf("  %s: chains %d, unbreakable %d, %llu search nodes, %.3f ms\n",
		       c ? "blue" : "red", v.chains, v.unbreakable, (unsigned long long)v.nodes,
		       (now() - t3) * 1e3);
	}
	free(mv);
}

/* Crowded boards that play rarely reaches: up to `pieces` pieces of random colours,
 * each where rule 1 allows; the worst unbreakable test over `boards` of them. */
static void stress(const char *spec, int boards, int pieces, uint64_t seed)
{
	struct bp_game *g = open_game(spec);
	int w = g->board->a, h = g->board->b;
	double worst = 0, sum = 0;
	uint64_t worst_nodes = 0;
	struct bp_pos worst_pos;
	int worst_colour = 0;
	g->ops->start(g, &worst_pos);
	for (int b = 0; b < boards; b++) {
		struct bp_pos p;
		g->ops->start(g, &p);
		int want = (int)(rng_next(&seed) % (uint64_t)(pieces + 1));
		struct bp_move *mv = bp_game_move_buffer(g);
		for (int i = 0; i < want; i++) {
			int c = (int)(rng_next(&seed) & 1);
			p.w[24] = (uint64_t)c;
			p.w[25] = 0;
			/* legal placements of c, whoever has won */
			int k = 0;
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					if (bp_mirador_can_place(g, &p, c, x, y))
						mv[k++].v = (uint32_t)(y * w + x);
			if (!k)
				continue;
			g->ops->apply(g, &p, mv[rng_next(&seed) % (uint64_t)k]);
		}
		free(mv);
		p.w[24] = p.w[25] = 0;
		for (int c = 0; c < 2; c++) {
			struct bp_mirador_verdict v;
			double t1 = now();
			bp_mirador_test(g, &p, c, &v);
			double t = now() - t1;
			sum += t;
			if (t > worst) {
				worst = t;
				worst_nodes = v.nodes;
				worst_pos = p;
				worst_colour = c;
			}
		}
	}
	printf("%s crowded boards: %d tests, mean %.3f ms, slowest %.3f ms (%llu nodes, %s) at\n  ",
	       spec, 2 * boards, sum / (2 * boards) * 1e3, worst * 1e3,
	       (unsigned long long)worst_nodes, worst_colour ? "blue" : "red");
	print_pos(g, &worst_pos);
	printf("\n");
	bp_game_destroy(g);
}

/* Pieces from ROWS ('r', 'b', '.'), top-left squares first, ignoring turn order. */
static int board_from_rows(const struct bp_game *g, const char *rows, struct bp_pos *p)
{
	struct bp_postext pt;
	struct bp_err err;
	char text[4096];
	snprintf(text, sizeof text, "%s r", rows);
	if (bp_postext_parse(g->board, text, "rb", &pt, &err)) {
		fprintf(stderr, "bench_mirador: %s\n", err.msg);
		return -1;
	}
	int w = g->board->a;
	g->ops->start(g, p);
	for (int c = 0; c < g->board->ncells; c++) {
		char ch = pt.cells[c];
		if (ch == '.' || (c % w > 0 && pt.cells[c - 1] == ch) ||
		    (c >= w && pt.cells[c - w] == ch))
			continue;
		if (!bp_mirador_can_place(g, p, ch == 'b', c % w, c / w)) {
			fprintf(stderr, "bench_mirador: no %c piece fits at cell %d\n", ch, c);
			return -1;
		}
		p->w[24] = ch == 'b';
		g->ops->apply(g, p, (struct bp_move){ (uint32_t)c });
	}
	p->w[24] = p->w[25] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	int games = 200, depth = 4, crowded = 0;
	const char *spec = "mirador:27x27", *position = NULL, *rows = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--games") && i + 1 < argc)
			games = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--perft-depth") && i + 1 < argc)
			depth = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--board") && i + 1 < argc)
			rows = argv[++i];
		else if (!strcmp(argv[i], "--crowded") && i + 1 < argc)
			crowded = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--spec") && i + 1 < argc)
			spec = argv[++i];
		else
			position = argv[i];
	}
	if (rows) {
		struct bp_game *g = open_game(spec);
		struct bp_pos p;
		if (board_from_rows(g, rows, &p))
			return 2;
		for (int c = 0; c < 2; c++) {
			struct bp_mirador_verdict v;
			double t0 = now();
			bp_mirador_test(g, &p, c, &v);
			printf("%s: chains %d, unbreakable %d, breaking set of %d, %llu search "
			       "nodes, "
			       "%.3f ms\n",
			       c ? "blue" : "red", v.chains, v.unbreakable, v.nwitness,
			       (unsigned long long)v.nodes, (now() - t0) * 1e3);
		}
		bp_game_destroy(g);
		return 0;
	}
	if (position) {
		struct bp_game *g = open_game(spec);
		struct bp_pos p;
		struct bp_err err;
		if (bp_game_parse_position(g, position, &p, &err)) {
			fprintf(stderr, "bench_mirador: %s\n", err.msg);
			return 2;
		}
		time_position(g, &p);
		bp_game_destroy(g);
		return 0;
	}
	printf("seed %llu\n", (unsigned long long)seed);
	if (crowded) {
		stress("mirador:10x10", crowded, 30, seed);
		stress("mirador:12x12", crowded, 40, seed);
		stress("mirador:27x27", crowded / 10 + 1, 120, seed);
		return 0;
	}

	/* perft on 10x10 */
	struct bp_game *g = open_game("mirador:10x10");
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t counts[16];
	double t0 = now();
	bp_perft(g, &p, depth, counts);
	double dt = now() - t0;
	uint64_t total = 0;
	for (int d = 1; d <= depth; d++)
		total += counts[d];
	printf("mirador:10x10 perft %d = %llu; %llu turns in %.3f s: %.0f turns/s\n", depth,
	       (unsigned long long)counts[depth], (unsigned long long)total, dt,
	       (double)total / dt);

	/* unbreakable tests on positions of random 10x10 games */
	struct bp_move *mv = bp_game_move_buffer(g);
	int cap = 20000, np = 0;
	struct bp_pos *pos = malloc(sizeof *pos * (size_t)cap);
	uint64_t s = seed;
	for (int i = 0; i < games * 5 && np < cap; i++) {
		g->ops->start(g, &p);
		for (;;) {
			if (np < cap)
				pos[np++] = p;
			int k = g->ops->moves(g, &p, mv);
			if (!k)
				break;
			g->ops->apply(g, &p, mv[rng_next(&s) % (uint64_t)k]);
		}
	}
	double worst = 0;
	uint64_t nodes = 0;
	int unb = 0, withchain = 0;
	t0 = now();
	for (int i = 0; i < np; i++)
		for (int c = 0; c < 2; c++) {
			struct bp_mirador_verdict v;
			double t1 = now();
			bp_mirador_test(g, &pos[i], c, &v);
			double t2 = now() - t1;
			if (t2 > worst)
				worst = t2;
			nodes += v.nodes;
			unb += v.unbreakable;
			withchain += v.chains != 0;
		}
	dt = now() - t0;
	printf("mirador:10x10 unbreakable tests: %d in %.3f s: %.0f tests/s (%d with chains, %d "
	       "unbreakable, %llu search nodes, slowest %.3f ms)\n",
	       2 * np, dt, 2 * np / dt, withchain, unb, (unsigned long long)nodes, worst * 1e3);
	free(pos);
	free(mv);
	bp_game_destroy(g);

	/* moves() along random games on the big grid */
	g = open_game(spec);
	mv = bp_game_move_buffer(g);
	double slowest = 0, sum = 0;
	int calls = 0, plies = 0;
	struct bp_pos slow_pos;
	s = seed;
	g->ops->start(g, &slow_pos);
	for (int i = 0; i < games; i++) {
		g->ops->start(g, &p);
		for (;;) {
			double t1 = now();
			int k = g->ops->moves(g, &p, mv);
			double t2 = now() - t1;
			sum += t2;
			calls++;
			if (t2 > slowest) {
				slowest = t2;
				slow_pos = p;
			}
			if (!k)
				break;
			plies++;
			g->ops->apply(g, &p, mv[rng_next(&s) % (uint64_t)k]);
		}
	}
	printf("%s: %d random games, %d plies: moves() mean %.3f ms, slowest %.3f ms at\n  ", spec,
	       games, plies, sum / calls * 1e3, slowest * 1e3);
	print_pos(g, &slow_pos);
	printf("\n");
	time_position(g, &slow_pos);
	free(mv);
	bp_game_destroy(g);
	return 0;
}
