/* SPDX-License-Identifier: MIT */
/* Mirador's rule machinery below the game interface (RULES.md 9.1 to 9.3), used by
 * solver/games/mirador.c only: the grid's geometry, the board unpacked into one word
 * per row and per column, legal placements, the links of one colour with their lanes
 * (the network), and the chain-breaking search behind the unbreakable test. Every
 * function that allocates returns BP_ENOMEM instead of stopping the process. */
#ifndef BP_SOLVER_GAMES_MIRADOR_CHAIN_H
#define BP_SOLVER_GAMES_MIRADOR_CHAIN_H

#include <stdint.h>

#include "solver/games/mirador.h"

#define BP_MIRADOR_MAX_SIDE 64
#define BP_MIRADOR_MAX_CELLS 768
#define BP_MIRADOR_PLANE_WORDS 12 /* one colour's micro squares, a bit each */

/* The four sides, as nodes n .. n+3 of a network of n pieces. */
enum { BP_MIRADOR_SIDE_N, BP_MIRADOR_SIDE_S, BP_MIRADOR_SIDE_W, BP_MIRADOR_SIDE_E };

/* A W x H grid of micro squares with P x P pieces; top-left corners x < nx, y < ny
 * (0 when the piece never fits); xmask has bits 0 .. nx-1. */
struct bp_mirador_grid {
	int w, h, p, ncells;
	int nx, ny;
	uint64_t xmask;
};

/* The board as words: bit x of row[c][y] (bit y of col[c][x]) is colour c's square
 * (x, y); orow and ocol are either colour's. */
struct bp_mirador_board {
	uint64_t row[2][BP_MIRADOR_MAX_SIDE], col[2][BP_MIRADOR_MAX_SIDE];
	uint64_t orow[BP_MIRADOR_MAX_SIDE], ocol[BP_MIRADOR_MAX_SIDE];
};

/* The empty squares strictly between two linked pieces along one row or column. */
struct bp_mirador_lane {
	uint8_t vert; /* 0: along row `at`, columns lo..hi; 1: along column `at` */
	uint8_t at, lo, hi;
};

/* One link of the network. */
struct bp_mirador_edge {
	int16_t a, b; /* piece indices; b >= n is side b - n */
	int l0, nl;   /* lanes l0 .. l0+nl-1; nl == 0: cannot be broken */
	uint8_t kind; /* 'c' corner, 't' touching a side, 's' line of sight */
};

/* One colour's pieces (by top-left square), links and lanes. */
struct bp_mirador_net {
	int n; /* pieces */
	uint8_t px[BP_MIRADOR_MAX_CELLS], py[BP_MIRADOR_MAX_CELLS];
	int16_t pid[BP_MIRADOR_MAX_CELLS]; /* piece of that colour covering the cell, or -1 */
	int nlinks, nlanes, caplinks, caplanes;
	struct bp_mirador_edge *links;
	struct bp_mirador_lane *lanes;
};

/* Unpacks two planes (red, blue; BP_MIRADOR_PLANE_WORDS words each, square y * w + x)
 * into b. */
void bp_mirador_board_unpack(const struct bp_mirador_grid *m, const uint64_t *red,
			     const uint64_t *blue, struct bp_mirador_board *b);

/* The colour on square (x, y): 0 red, 1 blue, -1 empty. */
int bp_mirador_board_colour(const struct bp_mirador_board *b, int x, int y);

/* The legal top-left columns for colour c (RULES.md 9.1), one word per top-left row
 * y < m->ny. */
void bp_mirador_board_legal(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			    int c, uint64_t *out);

/* Whether colour c has any legal placement. */
int bp_mirador_board_has_legal(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			       int c);

/* Whether two placements of one player whose top-left squares differ by (dx, dy)
 * overlap or touch along a side (RULES.md 9.1): never both on the board. */
int bp_mirador_incompatible(int P, int dx, int dy);

/* Finds colour c's pieces, their links and the links' lanes (RULES.md 9.2) into t.
 * @return BP_OK; BP_ENOMEM. Free t with bp_mirador_net_free either way. */
int bp_mirador_net_build(const struct bp_mirador_grid *m, const struct bp_mirador_board *b, int c,
			 struct bp_mirador_net *t);

void bp_mirador_net_free(struct bp_mirador_net *t);

/* The exact unbreakable test (RULES.md 9.3) of net t of `colour` on board b, for the
 * chains of the directions in dirs (BP_MIRADOR_NS, BP_MIRADOR_EW).
 * @return BP_OK (out filled); BP_ENOMEM (out meaningless). */
int bp_mirador_chain_test(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			  const struct bp_mirador_net *t, int colour, int dirs,
			  struct bp_mirador_verdict *out);

/* A quick proof that colour's chains can be broken (RULES.md 9.3), with no search: one
 * set of the opponent's placements packed greedily, each taken when legal now and
 * compatible with those taken (so the set can be played one placement after another),
 * in one of eight orders: 0 row by row from the top-left, 1 from the bottom-right, 2
 * column by column from the top-left, 3 from the bottom-right; 4 to 7 the same with
 * only the places whose piece covers a square of one of colour's lanes (the empty
 * squares of its lines of sight: no other placement cuts a link); with the set's
 * squares filled, colour has no chain in the directions dirs at all.
 * @return 1 when that set breaks every such chain (the exact test's answer would be
 * "breakable"); 0 when it does not, which proves nothing. */
int bp_mirador_greedy_breaks(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			     int colour, int dirs, int order);

/* bp_mirador_greedy_breaks in steps, for a caller that packs in several orders: what
 * the orders share (the opponent's legal places, those covering a lane square,
 * colour's pieces) found once by prepare, then each order's set tried on b. */
struct bp_mirador_greedy {
	uint64_t legal[BP_MIRADOR_MAX_SIDE]; /* bp_mirador_board_legal of the opponent */
	uint64_t cand[BP_MIRADOR_MAX_SIDE];  /* those whose piece covers a lane square */
	int colour, n;			     /* colour and its n pieces' top-left squares */
	uint8_t px[BP_MIRADOR_MAX_CELLS], py[BP_MIRADOR_MAX_CELLS];
};

void bp_mirador_greedy_prepare(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			       int colour, struct bp_mirador_greedy *gr);
int bp_mirador_greedy_try(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			  const struct bp_mirador_greedy *gr, int dirs, int order);

/* The unbreakable test of the mover's chains in each child of one node (proof-number
 * search evaluates every child of the nodes it expands): what the children share
 * found once by kids_node from the node's board b (may be &k->b, unpacked there) and
 * the mover (colour): the
 * opponent's legal places, colour's pieces and lanes. kids_child then gives the board
 * of the child with colour's piece at top-left (x, y), a legal placement, and the
 * bp_mirador_greedy that bp_mirador_greedy_prepare would make of it (the same legal
 * places, candidates and pieces, the pieces in another order), from the node's by
 * what the piece changes. */
struct bp_mirador_kids {
	struct bp_mirador_board b;
	uint64_t legal[BP_MIRADOR_MAX_SIDE]; /* the opponent's, at the node */
	uint64_t lane[BP_MIRADOR_MAX_SIDE];  /* by row: the squares of colour's lanes */
	int colour, n;
	uint8_t px[BP_MIRADOR_MAX_CELLS], py[BP_MIRADOR_MAX_CELLS];
};

void bp_mirador_kids_node(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			  int colour, struct bp_mirador_kids *k);
void bp_mirador_kids_child(const struct bp_mirador_grid *m, const struct bp_mirador_kids *k, int x,
			   int y, struct bp_mirador_board *cb, struct bp_mirador_greedy *gr);

/* The mask of directions (BP_MIRADOR_NS, BP_MIRADOR_EW) in which net t has a chain.
 * @return BP_OK; BP_ENOMEM. */
int bp_mirador_chain_mask(const struct bp_mirador_net *t, int *mask);

/* A chain of fewest links from side `from` to side `to` (BP_MIRADOR_SIDE_*): via
 * (t->n + 4 entries) gets, for each node on it, the link that reaches it (-1 at the
 * start); *len the number of links, or -1 when there is no chain.
 * @return BP_OK; BP_ENOMEM. */
int bp_mirador_chain_shortest(const struct bp_mirador_net *t, int from, int to, int *via, int *len);

#endif
