/* SPDX-License-Identifier: MIT */
/* Loops of the Glorieta games (RULES.md section 3) on hex-cell boards of at most 64
 * cells, one 64-bit word a cell set. A player's group set G is their stones plus the
 * neutral stones (and, in revised Glorieta, the ring spaces of their colour); G holds
 * a loop exactly when some board cell, whatever it holds, cannot reach the outside of
 * the board by a path avoiding every cell of G but itself (rules version 2). That is a
 * free cell cut off from the outside (a hole) or a cell of G whose six neighbours are
 * all in G or in holes; one bitboard flood fill from the cells next to the outside
 * finds both, so a loop check costs a few dozen table lookups.
 *
 * The optional ring (revised Glorieta on hexN) is the 6N cells at distance N from the
 * centre. Ring spaces are never played, so they enter only through `open[player]`:
 * the board cells adjacent to the outside for that player (an edge cell next to a
 * ring space of the other colour, or next to the lattice outside the board when there
 * is no ring). Players are 0 and 1; the games map their colours onto them. */
#ifndef BP_SOLVER_GAMES_LOOPS_H
#define BP_SOLVER_GAMES_LOOPS_H

#include <stdint.h>

#include "canon/board.h"
#include "canon/text.h"

/* Where one of the six neighbours of a cell lies: a board cell (0..63), a ring space
 * (BP_LOOPS_RING + index) or the outside with no ring (BP_LOOPS_OUT). */
#define BP_LOOPS_RING 64
#define BP_LOOPS_OUT 255

struct bp_loops {
	int ncells;
	int nring;	      /* 6N with a ring, else 0 */
	uint64_t full;	      /* every board cell */
	uint64_t edge;	      /* board cells with fewer than six board neighbours */
	uint64_t nb[64];      /* neighbour masks */
	uint64_t open[2];     /* per player: cells adjacent to the outside (see above) */
	uint8_t ring[6 * 64]; /* owner (0 or 1) of each ring space */
	int16_t ring_q[6 * 64], ring_r[6 * 64]; /* axial coordinates of ring spaces */
	/* The six neighbours of each cell in cyclic order around it. */
	uint8_t around[64][6];
	uint64_t grow_tab[8][256]; /* union of the neighbour masks of a byte's cells */
	/* For the local test: per player and cell, the directions whose neighbour is a
	 * ring space of that player (fixed members); per 6-bit membership mask, whether
	 * the non-members around a cell form two or more arcs. */
	uint8_t fixed_in[2][64];
	uint8_t multi_arc[64];
	/* The same gather from three rotations (see bp_loops_may_close): per cell, the
	 * cell before NE (or NW) and before SE (or SW) in index order, 0 where there is
	 * none, and the directions that hold a board cell. */
	uint8_t up_base[64], down_base[64];
	uint8_t on_board[64];
	uint8_t dir_of[64]; /* W | E << 1 | NW << 2 | NE << 3 | SW << 4 | SE << 5 in directions */
};

/* Fills L for board b (at most 64 hex cells). ring: NULL for no ring, else 6N owners
 * (0 or 1) in the order of RULES.md section 6 (clockwise from the corner above-left of
 * a1); only for hexN boards. @return BP_OK; BP_ERANGE (more than 64 cells);
 * BP_EINVAL (a ring on a board that is not hexN). */
int bp_loops_init(struct bp_loops *L, const struct bp_board *b, const uint8_t *ring);

/* The axial coordinates of ring space i (0 <= i < 6N) of hexN, in RULES.md order. */
void bp_loops_ring_coord(int n, int i, int *q, int *r);

/* m together with every cell adjacent to it. */
static inline uint64_t bp_loops_grow(const struct bp_loops *L, uint64_t m)
{
	const uint64_t(*t)[256] = L->grow_tab;
	return m | t[0][m & 255] | t[1][m >> 8 & 255] | t[2][m >> 16 & 255] | t[3][m >> 24 & 255] |
	       t[4][m >> 32 & 255] | t[5][m >> 40 & 255] | t[6][m >> 48 & 255] | t[7][m >> 56];
}

/* The cells of region connected to seed within region. */
uint64_t bp_loops_flood(const struct bp_loops *L, uint64_t region, uint64_t seed);

/* The board cells that cannot reach the outside by a path avoiding every cell of g but
 * themselves, for player `player` whose group set on the board is g: the holes (cells
 * outside g cut off by it) and the cells of g surrounded by g and holes. Nonzero
 * exactly when g holds a loop. */
uint64_t bp_loops_enclosed(const struct bp_loops *L, int player, uint64_t g);

/* Whether adding cell c to a group set g that holds no loop can make one. 0 means
 * certainly not (the cells around c outside g form at most one arc, so nothing is cut
 * off, and neither c nor a neighbour of it is left with all six neighbours in the
 * group); 1 means a full check (bp_loops_enclosed) is needed.
 *
 * Adding c to g makes a loop in one of two ways: a free cell is cut off, which needs
 * the cells around c outside g to form two or more arcs; or a cell of g becomes
 * surrounded by the group, which can only be c itself or one of its neighbours, since
 * nothing else gained a group neighbour. Inline: it runs up to three times for each
 * child of a proof-number search in Chicken. */
static inline int bp_loops_may_close(const struct bp_loops *L, int player, uint64_t g, int c)
{
	/* the directions around c whose cell is in the group, with the player's ring
	 * spaces. Rows are runs of cells in index order, q increasing, so c's board
	 * neighbours are three pairs of neighbouring indices: W and E around c, NW and NE
	 * in the row above, SW and SE below. Three rotations bring each pair to the low
	 * bits (the amounts taken mod 64, so c - 1 = -1 is no special case), a table puts
	 * the six bits in direction order, and on_board clears what is not a neighbour.
	 * A loop over the six directions with a branch on each one's kind cost twice as
	 * much. */
	unsigned w = (unsigned)(c - 1) & 63, u = L->up_base[c], v = L->down_base[c];
	uint64_t own = g >> w | g << ((64 - w) & 63), up = g >> u | g << ((64 - u) & 63),
		 down = g >> v | g << ((64 - v) & 63);
	unsigned in = L->dir_of[(own & 1) | (own >> 1 & 2) | (up & 3) << 2 | (down & 3) << 4];
	in = (in & L->on_board[c]) | L->fixed_in[player][c];
	if (L->multi_arc[in] || in == 63)
		return 1;
	uint64_t after = g | 1ull << c;
	for (uint64_t x = g & L->nb[c] & ~L->open[player]; x; x &= x - 1)
		if (!(L->nb[__builtin_ctzll(x)] & ~after))
			return 1;
	return 0;
}

/* Does g hold a loop after adding cell c to it, given that g held none before? */
static inline int bp_loops_closes(const struct bp_loops *L, int player, uint64_t g, int c)
{
	g |= 1ull << c;
	return bp_loops_may_close(L, player, g & ~(1ull << c), c) &&
	       bp_loops_enclosed(L, player, g) != 0;
}

/* Adding one cell to a group set g that holds no loop, on a board without a ring,
 * for many cells c of one g (the children of a node in a search): bp_loops_groups_init
 * once, then bp_loops_closes_in(L, G, c) == (bp_loops_enclosed(L, player, g | c) != 0)
 * for each empty c, in any order, with no flood of the free cells. The argument, on a
 * board whose cells form a simply connected region of the hex lattice (hexN, rhAxB,
 * triN: the outside is one region), with the directions around c whose neighbour is
 * in g (`in`, as bp_loops_may_close finds it) cut into member arcs:
 *
 *   - c itself is never enclosed: with six neighbours in g (in == 63), which form a
 *     ring around c, c would have been a hole of g;
 *   - a cell y of g, not on the edge, whose only neighbour outside g is c: y is
 *     enclosed (before, it had that one free neighbour, so g held no loop);
 *   - two member arcs of c whose cells lie in one group of g: a path in that group
 *     and c make a closed curve through cell centres. The directions between the two
 *     arcs on either side of c hold a non-member each and lie on both sides of the
 *     curve; the outside is not on the curve and is one region, so the inner side's
 *     non-member is a board cell, free, and every path of cells from it to the edge
 *     meets the curve in a cell (cell paths cannot cross but at a cell): a hole.
 *
 * Conversely, a cell cut off by adding c, when there is a hole, is in a region of free
 * cells whose boundary ring runs through c and cells of g from one neighbour a of c to
 * another, b; the ring leaves the hole on one side of c, and the other side holds a
 * non-member too (were it all members, a and b with those cells would enclose the hole
 * and c without c, and g would have held a loop), so a and b lie in two member arcs of
 * one group. Without a hole, a cell of g with all six neighbours in g + c is c itself
 * (not possible, above) or had c as its only free neighbour. So exactly the last two.
 * The groups are flooded when a cell first needs its own (a node whose children ask
 * none floods none). */
struct bp_loops_groups {
	uint64_t g;
	uint64_t found;	    /* the cells of g whose group is in comp[] */
	uint64_t last_free; /* cells that are the only free neighbour of a non-edge cell of g */
	int n;
	uint64_t comp[64];
};

/* Readies G for g, a set of `player` that holds no loop, on L without a ring. */
void bp_loops_groups_init(const struct bp_loops *L, int player, uint64_t g,
			  struct bp_loops_groups *G);

/* Whether two of the member arcs `in` around c hold cells of one group of G->g (out of
 * line: the rare case, which may flood a group). */
int bp_loops_arcs_share_group(const struct bp_loops *L, struct bp_loops_groups *G, int c,
			      unsigned in);

/* Whether G's set g plus the empty cell c holds a loop (see above). */
static inline int bp_loops_closes_in(const struct bp_loops *L, struct bp_loops_groups *G, int c)
{
	const uint64_t g = G->g;
	if (G->last_free >> c & 1)
		return 1;
	/* the member directions as bp_loops_may_close gathers them (no ring: no fixed
	 * members) */
	unsigned w = (unsigned)(c - 1) & 63, u = L->up_base[c], v = L->down_base[c];
	uint64_t own = g >> w | g << ((64 - w) & 63), up = g >> u | g << ((64 - u) & 63),
		 down = g >> v | g << ((64 - v) & 63);
	unsigned in = L->dir_of[(own & 1) | (own >> 1 & 2) | (up & 3) << 2 | (down & 3) << 4];
	in &= L->on_board[c];
	return L->multi_arc[in] && bp_loops_arcs_share_group(L, G, c, in);
}

/* The groups of player's set g that are loops on their own: writes the board cells of
 * those groups to *loop_cells and returns how many groups they are. Groups connect
 * through the player's ring spaces too. Not fast; for reports. */
int bp_loops_loop_groups(const struct bp_loops *L, int player, uint64_t g, uint64_t *loop_cells);

/* Appends each player's loop groups and enclosed cells, players named by names[0]
 * and names[1] and with group sets sets[]: JSON members
 *     "loops": {"b": {"loops": 1, "cells": ["a1", ...], "enclosed": ["b2"]}, "o": ...}
 * and one text line a player. */
void bp_loops_describe(const struct bp_loops *L, const struct bp_board *b, const uint64_t sets[2],
		       const char *names, struct bp_text *json, struct bp_text *text);

#endif
