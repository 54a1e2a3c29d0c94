/* SPDX-License-Identifier: MIT */
/* Revised Glorieta (RULES.md section 6): a coloured ring around hexN, hands of H
 * stones, turns that drop one or two stones or flip one of the mover's stones to
 * neutral, at least one flip per hand, and the first loop wins. Hex-cell boards of at
 * most 64 cells; a ring only on hexN. */
#ifndef BP_SOLVER_GAMES_GLORIETA_H
#define BP_SOLVER_GAMES_GLORIETA_H

#include "solver/games/game.h"

extern const struct bp_game_ops bp_glorieta_ops;

#endif
