/* SPDX-License-Identifier: MIT */
/* Drawing a position as text rows: square boards as a grid with column numbers, hex
 * boards as offset rows, each row labelled with its letters. */
#ifndef BP_TOOLS_DRAW_H
#define BP_TOOLS_DRAW_H

#include "solver/games/game.h"

/* Appends the drawing of p (one line a row, ending in a newline) to out; out of
 * memory sets out->failed. */
void bp_draw_board(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out);

#endif
