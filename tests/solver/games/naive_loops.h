/* SPDX-License-Identifier: MIT */
/* A deliberately naive reading of RULES.md section 3 for the Glorieta tests: one
 * character a cell, breadth-first search over axial coordinates with a virtual
 * outside, the ring walked step by step from its description. No bitboards, no
 * tables shared with solver/games/loops.c. Also the helpers every Glorieta test uses:
 * opening games, parsing, formatting, and a lockstep walk that compares a game's
 * fast implementation with a naive one node by node. */
#ifndef BP_TESTS_NAIVE_LOOPS_H
#define BP_TESTS_NAIVE_LOOPS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/board.h"
#include "solver/enumerate.h"
#include "solver/games/game.h"
#include "tests/support.h"

#define NAIVE_MAX_RING (6 * 8)

struct naive_geo {
	const struct bp_board *b;
	int nring;
	int rq[NAIVE_MAX_RING], rr[NAIVE_MAX_RING];
	char rowner[NAIVE_MAX_RING]; /* the ring space's colour letter */
};

static inline int naive_dist(int q, int r)
{
	int s = -q - r;
	int a = q < 0 ? -q : q, b = r < 0 ? -r : r, c = s < 0 ? -s : s;
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* ring: NULL or 6N letters. "Walk the ring clockwise from the corner above-left of
 * a1": that corner is (0, -N); walking clockwise on the drawn board goes east along
 * the top, then south-east, south-west, west, north-west, north-east, N steps each. */
static inline void naive_geo_init(struct naive_geo *ng, const struct bp_board *b, const char *ring)
{
	static const int walk[6][2] = { { 1, 0 },  { 0, 1 },  { -1, 1 },
					{ -1, 0 }, { 0, -1 }, { 1, -1 } };
	memset(ng, 0, sizeof *ng);
	ng->b = b;
	if (!ring)
		return;
	int n = b->a, q = 0, r = -n;
	for (int side = 0; side < 6; side++)
		for (int step = 0; step < n; step++) {
			ng->rq[ng->nring] = q;
			ng->rr[ng->nring] = r;
			ng->rowner[ng->nring] = ring[ng->nring];
			ng->nring++;
			q += walk[side][0];
			r += walk[side][1];
		}
	cr_assert(q == 0 && r == -n, "ring walk does not close");
}

static inline int naive_ring_at(const struct naive_geo *ng, int q, int r)
{
	for (int i = 0; i < ng->nring; i++)
		if (ng->rq[i] == q && ng->rr[i] == r)
			return i;
	return -1;
}

/* Does player pc (a stone letter) have a loop among cells (one letter a cell, 'n'
 * neutral)? RULES.md section 3 (version 2), read literally: nodes are the board cells
 * and the ring spaces; the outside touches every edge cell (no ring) or every ring
 * space. For each board cell c in turn, search from c through nodes outside the
 * player's groups (c itself may be in them); a loop exists when some c never reaches
 * a node that touches the outside. */
static inline int naive_has_loop(const struct naive_geo *ng, const char *cells, char pc)
{
	static const int d6[6][2] = {
		{ 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 }, { 1, -1 }, { -1, 1 }
	};
	const struct bp_board *b = ng->b;
	int total = b->ncells + ng->nring;
	int member[64 + NAIVE_MAX_RING], touches_outside[64 + NAIVE_MAX_RING];
	for (int c = 0; c < b->ncells; c++)
		member[c] = cells[c] == pc || cells[c] == 'n';
	for (int i = 0; i < ng->nring; i++)
		member[b->ncells + i] = ng->rowner[i] == pc;
	for (int v = 0; v < total; v++) {
		touches_outside[v] = v >= b->ncells;
		if (v < b->ncells && !ng->nring)
			for (int d = 0; d < 6; d++)
				if (bp_board_find(b, b->cells[v].q + d6[d][0],
						  b->cells[v].r + d6[d][1]) < 0)
					touches_outside[v] = 1;
	}
	for (int start = 0; start < b->ncells; start++) {
		int seen[64 + NAIVE_MAX_RING] = { 0 }, queue[64 + NAIVE_MAX_RING];
		int head = 0, tail = 0, escapes = 0;
		seen[start] = 1;
		queue[tail++] = start;
		while (head < tail && !escapes) {
			int v = queue[head++];
			if (touches_outside[v]) {
				escapes = 1;
				break;
			}
			int q = v < b->ncells ? b->cells[v].q : ng->rq[v - b->ncells];
			int r = v < b->ncells ? b->cells[v].r : ng->rr[v - b->ncells];
			for (int d = 0; d < 6; d++) {
				int nq = q + d6[d][0], nr = r + d6[d][1];
				int u = bp_board_find(b, nq, nr);
				if (u < 0 && ng->nring && naive_dist(nq, nr) == b->a) {
					int i = naive_ring_at(ng, nq, nr);
					cr_assert(i >= 0);
					u = b->ncells + i;
				}
				if (u < 0 || seen[u] || member[u])
					continue;
				seen[u] = 1;
				queue[tail++] = u;
			}
		}
		if (!escapes)
			return 1;
	}
	return 0;
}

/* "ROWS" of RULES.md section 2 from one letter a cell. */
static inline void naive_rows(const struct bp_board *b, const char *cells, char *out)
{
	int k = 0;
	for (int row = 0; row < b->nrows; row++) {
		int run = 0;
		if (row)
			out[k++] = '/';
		for (int c = b->row_start[row]; c < b->row_start[row + 1]; c++) {
			if (cells[c] == '.') {
				run++;
				continue;
			}
			if (run)
				k += sprintf(out + k, "%d", run);
			run = 0;
			out[k++] = cells[c];
		}
		if (run)
			k += sprintf(out + k, "%d", run);
	}
	out[k] = '\0';
}

static inline char *naive_cell_name(const struct bp_board *b, int c, char *buf)
{
	bp_board_cell_name(b, c, buf, 16);
	return buf;
}

/* ---- helpers on the fast side -------------------------------------------------- */

static inline int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The fast moves of p as sorted strings in one buffer; returns the count. */
static inline int fast_move_strings(const struct bp_game *g, const struct bp_pos *p,
				    char (*names)[40], char **sorted)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = g->ops->moves(g, p, mv);
	for (int i = 0; i < n; i++) {
		struct bp_text t = { 0 };
		g->ops->move_format(g, p, mv[i], &t);
		snprintf(names[i], 40, "%s", bp_text_str(&t));
		bp_text_free(&t);
		sorted[i] = names[i];
	}
	free(mv);
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
	return n;
}

/* Checks that hold for every valid position: text round trip, canonical form under
 * every symmetry, rank/unrank. */
static inline void check_position_invariants(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_pos q, c0, c1, img;
	char text[2048];
	snprintf(text, sizeof text, "%s", fmt_pos(g, p));
	q = parse_pos(g, text);
	cr_assert(bp_pos_equal(&q, p), "%s: round trip of '%s'", g->spec, text);
	bp_game_canonical(g, p, &c0);
	for (int s = 0; s < g->nsym; s++) {
		g->ops->transform(g, p, s, &img);
		cr_assert_eq(g->ops->outcome(g, &img), g->ops->outcome(g, p),
			     "%s: outcome changes under symmetry %d of '%s'", g->spec, s, text);
		struct bp_pos tmp;
		/* images that are valid positions have the same canonical form */
		struct bp_text t = { 0 };
		g->ops->pos_format(g, &img, &t);
		int valid = g->ops->pos_parse(g, bp_text_str(&t), &tmp, NULL) == BP_OK;
		bp_text_free(&t);
		if (!valid)
			continue;
		bp_game_canonical(g, &img, &c1);
		cr_assert(bp_pos_equal(&c0, &c1),
			  "%s: canonical form differs under symmetry %d of '%s'", g->spec, s, text);
	}
	uint64_t idx, size;
	uint32_t t = g->ops->tier(g, p);
	if (g->ops->rank(g, p, &idx) == BP_OK) {
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		cr_assert_lt(idx, size, "%s: rank of '%s' beyond its tier", g->spec, text);
		cr_assert_eq(g->ops->unrank(g, t, idx, &q), BP_OK, "%s: unrank '%s'", g->spec,
			     text);
		cr_assert(bp_pos_equal(&q, p), "%s: rank/unrank of '%s' gives '%s'", g->spec, text,
			  fmt_pos(g, &q));
	}
}

/* The positions a search over the naive rules reached (seen) are exactly those that
 * count's enumeration finds, and their distinct canonical forms are its classes: the
 * canonical form of a reachable position is reachable, colour exchanges included. */
static inline void expect_enumeration_matches(const struct bp_game *g, const struct pos_set *seen)
{
	struct pos_set canon;
	pos_set_init(&canon, seen->cap);
	for (size_t i = 0; i < seen->cap; i++)
		if (seen->used[i]) {
			struct bp_pos c;
			bp_game_canonical(g, &seen->tab[i], &c);
			set_insert(&canon, &c);
		}
	struct bp_enum_counts ec;
	cr_assert_eq(bp_enumerate(g, 1ull << 30, NULL, NULL, &ec), BP_OK);
	uint64_t raw = 0, classes = 0;
	for (uint32_t t = 0; t < ec.ntiers; t++) {
		raw += ec.raw[t];
		classes += ec.classes[t];
	}
	bp_enum_counts_free(&ec);
	printf("%s: %ld reachable positions, %ld classes\n", g->spec, seen->n, canon.n);
	cr_expect_eq(raw, (uint64_t)seen->n, "%s: enumeration %llu, search %ld", g->spec,
		     (unsigned long long)raw, seen->n);
	cr_expect_eq(classes, (uint64_t)canon.n, "%s: enumerated classes %llu, canonical forms %ld",
		     g->spec, (unsigned long long)classes, canon.n);
	pos_set_free(&canon);
}

#endif
