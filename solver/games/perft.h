/* SPDX-License-Identifier: MIT */
/* Perft: the number of distinct move sequences of each length from a position, the
 * standard check that a move generator is right. A sequence that ends the game is
 * counted at its length and not extended. */
#ifndef BP_SOLVER_GAMES_PERFT_H
#define BP_SOLVER_GAMES_PERFT_H

#include <stdint.h>

#include "solver/games/game.h"

/* counts[d] for d = 0..depth: sequences of exactly d moves from p (counts[0] = 1).
 * @return BP_OK; BP_ENOMEM (also when an op of g failed, bp_game_status); BP_ERANGE
 * when a count passes 2^64 - 1. */
int bp_perft(const struct bp_game *g, const struct bp_pos *p, int depth, uint64_t *counts);

#endif
