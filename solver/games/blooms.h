/* SPDX-License-Identifier: MIT */
/* Blooms (RULES.md section 8): a Go-like territory game on hex cells in which each
 * player owns two colours (player 1 red and yellow, player 2 grey and black). Fenced
 * enemy blooms are captured, passes are turns, and two passes in a row end the game;
 * stones plus territory decide it. Boards of at most 64 cells. Positions can repeat
 * (BP_GAME_CYCLIC); its tiers (stones on the board) give a dense index for the
 * cycle-aware solver, but moves do not raise them.
 *
 * Position layout (struct bp_pos words; every other word is zero):
 *
 *     w[0] r stones   w[1] y stones   (player 1)
 *     w[2] g stones   w[3] k stones   (player 2)     bit c = cell c in drawing order
 *     w[4] player to move: 0 player 1, 1 player 2
 *     w[5] firstpass: 0 '-', 1 player 1, 2 player 2
 *     w[6] passed: 1 when the previous turn was a pass
 *     w[7] over: 1 once two passes in a row have ended the game (never in text) */
#ifndef BP_SOLVER_GAMES_BLOOMS_H
#define BP_SOLVER_GAMES_BLOOMS_H

#include <stdint.h>

#include "solver/games/game.h"

extern const struct bp_game_ops bp_blooms_ops;

/* What decides a finished game, computed for any position of a blooms instance:
 * score[i] = stones of player i+1 plus territory[i]'s cells; territory[i] is the set of
 * empty cells in regions whose adjacent stones are all player i+1's (and there is at
 * least one); neutral is every other empty cell; fenced is every stone of a bloom
 * without an empty neighbour (empty in any position that parses). */
struct bp_blooms_eval {
	int score[2];
	int stones[2];
	uint64_t territory[2];
	uint64_t neutral;
	uint64_t fenced;
};

void bp_blooms_evaluate(const struct bp_game *g, const struct bp_pos *p,
			struct bp_blooms_eval *out);

#endif
