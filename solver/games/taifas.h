/* SPDX-License-Identifier: MIT */
/* Taifas (RULES.md section 7): either colour may be placed by either player; on a
 * full board the player with more zones wins. Square boards of at most 64 cells. */
#ifndef BP_SOLVER_GAMES_TAIFAS_H
#define BP_SOLVER_GAMES_TAIFAS_H

#include <stdint.h>

#include "solver/games/game.h"

extern const struct bp_game_ops bp_taifas_ops;

/* The number of zones of the player owning colour `colour` (0 = x, 1 = o) with x and o
 * stones as given (RULES.md 7.2). Exposed for tests and other tools. */
int bp_taifas_zones(const struct bp_game *g, uint64_t x, uint64_t o, int colour);

#endif
