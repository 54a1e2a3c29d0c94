/* SPDX-License-Identifier: MIT */
/* Glorieta "Landscape" (RULES.md section 5): K neutral stones on pairwise non-adjacent
 * cells (a layout), then one friendly stone a turn, black first; the first loop wins
 * and a full board without one is a draw. The pie rule is not part of the position.
 * Hex-cell boards of at most 64 cells. Also the enumeration of layouts behind the
 * family ops (a spec without layout= stands for every layout; tools reach them
 * through the game interface, never through this header). */
#ifndef BP_SOLVER_GAMES_LANDSCAPE_H
#define BP_SOLVER_GAMES_LANDSCAPE_H

#include <gmp.h>
#include <stdint.h>

#include "solver/games/game.h"

extern const struct bp_game_ops bp_landscape_ops;

/* Called once per class of layouts up to the board's symmetry: the class's smallest
 * member as a cell set (by colex rank) and the number of layouts in the class. */
typedef int bp_layout_visit(void *ctx, uint64_t layout, int orbit);

/* Enumerates the layouts of k pairwise non-adjacent cells of board b (at most 64
 * cells) up to b's symmetry, in increasing colex order of the representatives,
 * calling visit for each class (a nonzero return stops the walk and is returned).
 * Counts the layouts (raw) and the classes into the mpz_t.
 * @return BP_OK; BP_ERANGE for boards over 64 cells; BP_ENOMEM; or visit's value. */
int bp_landscape_layouts(const struct bp_board *b, int k, bp_layout_visit *visit, void *ctx,
			 mpz_t raw, mpz_t classes);

/* The number of layouts of k pairwise non-adjacent cells on any hex-cell board (no
 * size limit), raw and up to the board's symmetry, exactly: a frontier dynamic program
 * over the cells (or the orbits of a symmetry, for Burnside's lemma).
 * @return BP_OK; BP_ENOMEM; BP_ERANGE when a frontier is too wide. */
int bp_landscape_count_layouts(const struct bp_board *b, int k, mpz_t raw, mpz_t classes);

#endif
