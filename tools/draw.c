/* SPDX-License-Identifier: MIT */
#include "tools/draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cell numbers over the cells of one row of a hex-cell board (the top row above the
 * board, the bottom row below it): rows start at different columns, so numbers
 * cannot head straight columns as on a square grid. Numbers from 10 on take two
 * characters and are written from the cell's place. */
static void hex_numbers(const struct bp_board *b, int row, int width, struct bp_text *out)
{
	char *line = malloc((size_t)width + 4);
	if (!line) {
		out->failed = 1; /* the drawing is incomplete */
		return;
	}
	memset(line, ' ', (size_t)width + 3);
	int end = 0;
	for (int c = b->row_start[row]; c < b->row_start[row + 1]; c++) {
		int x = bp_board_draw_x(b, c), k = c - b->row_start[row] + 1;
		char num[8];
		int len = snprintf(num, sizeof num, "%d", k);
		if (x + len > width + 3)
			break;
		memcpy(line + x, num, (size_t)len);
		end = x + len;
	}
	line[end] = '\0';
	bp_text_printf(out, "    %s\n", line);
	free(line);
}

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
	if (!line) {
		out->failed = 1; /* no drawing: the text is incomplete */
		return;
	}
	if (square) {
		bp_text_printf(out, "    ");
		for (int col = 0; col < b->a; col++)
			bp_text_printf(out, "%*d", col ? step : 1, col + 1);
		bp_text_printf(out, "\n");
	}
	if (!square)
		hex_numbers(b, 0, width, out);
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
	if (!square)
		hex_numbers(b, b->nrows - 1, width, out);
	free(line);
}
