/* SPDX-License-Identifier: MIT */
/* Glorieta "Chicken" (RULES.md section 4): after black's first stone, each turn drops
 * one friendly and one neutral stone that must not join one group of the mover, or
 * declines and drops the friendly stone alone; from the first decline on no neutral
 * stones are played, and on a full board without a loop the first decliner loses.
 * Hex-cell boards of at most 64 cells. */
#ifndef BP_SOLVER_GAMES_CHICKEN_H
#define BP_SOLVER_GAMES_CHICKEN_H

#include "solver/games/game.h"

extern const struct bp_game_ops bp_chicken_ops;

/* The picture op of Glorieta's first versions, Chicken and Landscape (seed 000): black,
 * orange and neutral stones. */
void bp_chicken_picture(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *out);

#endif
