/* SPDX-License-Identifier: MIT */
#include "tools/draw.h"

#include <stdlib.h>
#include <string.h>

void bp_draw_board(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out)
{
	const struct bp_board *b = g->board;
	int square = b->shape == BP_SHAPE_SQUARE;
	int step = square && b->a >= 10 ? 3 : 2; /* columns per cell on a square grid */
	int width = 0;
	for (int c = 0; c < b->ncells; c++) {
		int x = square ? b->cells[c].q * step : bp_board_draw_x(b, c);
		if (x + 1 > width)
			width = x + 1;
	}
	char *line = malloc((size_t)width + 1);
	if (!line)
		return;
	if (square) {
		bp_text_printf(out, "    ");
		for (int col = 0; col < b->a; col++)
			bp_text_printf(out, "%*d", col ? step : 1, col + 1);
		bp_text_printf(out, "\n");
	}
	for (int row = 0; row < b->nrows; row++) {
		char name[8];
		bp_board_row_name(row, name, sizeof name);
		memset(line, ' ', (size_t)width);
		int end = 0;
		for (int c = b->row_start[row]; c < b->row_start[row + 1]; c++) {
			int x = square ? b->cells[c].q * step : bp_board_draw_x(b, c);
			line[x] = g->ops->cell_char(g, p, c);
			end = x + 1;
		}
		line[end] = '\0';
		bp_text_printf(out, "%3s %s\n", name, line);
	}
	free(line);
}
