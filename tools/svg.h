/* SPDX-License-Identifier: MIT */
/* Pictures of positions as SVG: hex-cell and square boards with cell names on the
 * margins, stones in the colours the game names (bp_game_ops.picture), a ring,
 * pieces and links, and marks over cells (a move's value and remoteness). Only
 * tools/ draws; the game says what is there. */
#ifndef BP_TOOLS_SVG_H
#define BP_TOOLS_SVG_H

#include <stdint.h>

#include "solver/games/game.h"

/* Something written over one cell: a tint and a short label. */
struct bp_svg_mark {
	int cell;
	uint32_t tint; /* 0xRRGGBB */
	char label[12];
};

/* The tint for a value for the mover: green win, grey draw, red loss. */
uint32_t bp_svg_value_tint(enum bp_value v);

/* Draws p as a whole SVG document into out: the board, its cell names, the stones,
 * the game's ring, pieces and links, the marks, then a caption of up to two lines
 * (NULL: none) and a legend of the stones' colours. */
void bp_svg_position(const struct bp_game *g, const struct bp_pos *p,
		     const struct bp_svg_mark *marks, int nmarks, const char *caption1,
		     const char *caption2, struct bp_text *out);

/* The cells move m changes: those whose character differs between p and the position
 * after m (a placed stone, a flip, a capture), at most max of them, into cells.
 * Tools place a move's mark there without knowing the game. @return how many. */
int bp_svg_move_cells(const struct bp_game *g, const struct bp_pos *p, struct bp_move m, int *cells,
		      int max);

#endif
