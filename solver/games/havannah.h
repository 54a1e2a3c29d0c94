/* SPDX-License-Identifier: MIT */
/* Havannah (Christian Freeling, 1979) on hexN, N = 2..5, as a calibration game: the one
 * game of the Glorieta family's ancestry with published solutions and open-source
 * solvers. One stone a turn, white first; a ring, a bridge (two corners) or a fork
 * (three sides) wins; a full board without one is a draw. `swap=yes` lets the second
 * player take over the first stone. The exact rules are in havannah.c. */
#ifndef BP_SOLVER_GAMES_HAVANNAH_H
#define BP_SOLVER_GAMES_HAVANNAH_H

#include "solver/games/game.h"

extern const struct bp_game_ops bp_havannah_ops;

#endif
