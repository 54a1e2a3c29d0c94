/* SPDX-License-Identifier: MIT */
/* Mirador (RULES.md section 9): players place P x P watchtowers on a W x H grid of
 * micro squares; pieces link by corner contact, by touching a side, and by line of
 * sight along empty rows and columns; a turn after which the mover's north-south or
 * east-west chains cannot be broken by any set of opponent placements wins. Grids of
 * at most 64 columns, 64 rows and 768 micro squares (the seed's 27x27 fits). */
#ifndef BP_SOLVER_GAMES_MIRADOR_H
#define BP_SOLVER_GAMES_MIRADOR_H

#include <stdint.h>

#include "solver/games/game.h"

extern const struct bp_game_ops bp_mirador_ops;

/* Colours: red moves first. */
enum { BP_MIRADOR_RED = 0, BP_MIRADOR_BLUE = 1 };

/* Chain directions, as bits of a mask. */
enum { BP_MIRADOR_NS = 1, BP_MIRADOR_EW = 2 };

/* The move code of a pass; a placement's code is the cell of its top-left square. */
#define BP_MIRADOR_PASS 0xffffu

/* What the unbreakable test found for one colour. */
struct bp_mirador_verdict {
	int chains;	 /* BP_MIRADOR_* mask: directions with a chain on the board now */
	int unbreakable; /* 1: some chain survives every set of opponent placements */
	/* When chains != 0 and !unbreakable: a set of opponent placements (top-left
	 * cells), each legal on the board now and compatible with the others, after
	 * which colour has no chain. */
	int nwitness;
	int witness[384];
	uint64_t nodes; /* search nodes visited (for benchmarks) */
};

/* Runs the exact unbreakable test (RULES.md 9.3) for `colour`'s pieces on p's board,
 * whoever is to move (the search itself is solver/games/mirador_chain.c).
 * @return BP_OK; BP_ENOMEM (out zeroed). */
int bp_mirador_test(const struct bp_game *g, const struct bp_pos *p, int colour,
		    struct bp_mirador_verdict *out);

/* The same test for the chains of the directions in dirs (a BP_MIRADOR_* mask)
 * only: unbreakable when some chain in one of them survives every set; the witness
 * then breaks every chain in those directions. @return as bp_mirador_test. */
int bp_mirador_test_dirs(const struct bp_game *g, const struct bp_pos *p, int colour, int dirs,
			 struct bp_mirador_verdict *out);

/* The unbreakable test's first step alone, on grids of at most 128 micro squares: 1
 * when colour has a chain (either direction) of links that no legal placement of the
 * opponent can cut (corner contact, a side touched, or line of sight over a lane no
 * placement covers), so that its chains are unbreakable; 0 when it has none, and the
 * full test must decide. p must be a valid position (whole pieces, placed by the
 * rules). @return 1; 0; BP_EUNSUPPORTED (a larger grid). */
int bp_mirador_safe_chain(const struct bp_game *g, const struct bp_pos *p, int colour);

/* The unbreakable test as outcome() runs it (bp_mirador_safe_chain first, then the
 * chain-breaking search, on small grids on sets of places): 1 when colour's chains on
 * p's board cannot be broken, else 0, as bp_mirador_test's verdict. p must be a valid
 * position. @return 1; 0; BP_ENOMEM. */
int bp_mirador_unbreakable(const struct bp_game *g, const struct bp_pos *p, int colour);

/* bp_mirador_greedy_breaks (solver/games/mirador_chain.h) on p's board, both
 * directions: 1 when the opponent's placements packed greedily in order `order` (0 to
 * 7, as there) leave colour no chain at all, a proof that its chains can be broken; 0
 * proves nothing. The unbreakable test runs it on grids of more than 128 micro
 * squares before the search. */
int bp_mirador_greedy(const struct bp_game *g, const struct bp_pos *p, int colour, int order);

/* For the tests of the kids ops (proof-number search's children of one node): for
 * every legal placement of p's player to move, whether the child's board and greedy
 * preparation that bp_mirador_kids_child derives from the node's equal those made from
 * the child position itself (unpacked, bp_mirador_greedy_prepare): the squares, the
 * opponent's legal places, the candidates and the set of pieces. @return the number of
 * placements that differ (0: all agree); -1 on a small grid (there the ops' own path
 * runs) or when p is over. */
int bp_mirador_kids_agree(const struct bp_game *g, const struct bp_pos *p);

/* Whether colour may place a piece with its top-left square at (x, y) on p's board
 * (RULES.md 9.1), whoever is to move. */
int bp_mirador_can_place(const struct bp_game *g, const struct bp_pos *p, int colour, int x, int y);

/* One link of a colour (RULES.md 9.2). */
struct bp_mirador_link {
	int from, to; /* top-left cells of the pieces; to < 0 is a side: -1 N, -2 S, -3 W, -4 E */
	char kind;    /* 'c' corner contact, 't' touching the side, 's' line of sight */
	int lanes;    /* line of sight: how many rows or columns are clear between the two */
};

/* Writes colour's links on p's board (at most cap of them); a pair of pieces linked
 * along a row is listed once, from the left (top) piece.
 * @return the number of links, which may exceed cap; BP_ENOMEM. */
int bp_mirador_links(const struct bp_game *g, const struct bp_pos *p, int colour,
		     struct bp_mirador_link *out, int cap);

/* The mask of directions in which colour has a chain on p's board now (>= 0), or
 * BP_ENOMEM. */
int bp_mirador_chains(const struct bp_game *g, const struct bp_pos *p, int colour);

#endif
