/* SPDX-License-Identifier: MIT */
/* Board geometry: the four shapes of RULES.md section 1 (hexN, rhAxB, triN, WxH),
 * their cells in drawing order, adjacency, cell names ("c3", "aa27"), and the
 * symmetry group of each board as cell permutations.
 *
 * Cells are numbered 0..ncells-1 in drawing order: rows top to bottom, cells left to
 * right. Hex cells carry axial coordinates (q, r); square cells carry (x, y) with y
 * growing downwards, stored in the same fields. Boards are not capped at 64 cells.
 *
 *     hex3 (drawn)          rh3x2         tri3          3x2
 *       . . .              . . .         . . .         . . .
 *      . . . .              . . .         . .          . . .
 *     . . . . .                            .
 *      . . . .
 *       . . .
 */
#ifndef BP_CANON_BOARD_H
#define BP_CANON_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "canon/error.h"

enum bp_shape {
	BP_SHAPE_HEX = 1,      /* hexN: hex-hex board, N cells a side */
	BP_SHAPE_RHOMBUS = 2,  /* rhAxB: parallelogram of hex cells, A a row, B rows */
	BP_SHAPE_TRIANGLE = 4, /* triN: triangle of hex cells, longest row on top */
	BP_SHAPE_SQUARE = 8    /* WxH: square grid, orthogonal adjacency */
};

/* The shapes made of hex cells, for a game's list of accepted boards. */
#define BP_SHAPES_HEXCELL (BP_SHAPE_HEX | BP_SHAPE_RHOMBUS | BP_SHAPE_TRIANGLE)

/* Largest board a spec may name: keeps names, text and tables small. */
#define BP_BOARD_MAX_CELLS 4096
#define BP_BOARD_MAX_DEGREE 6

struct bp_cell {
	int16_t q, r;	   /* axial (hex) or x, y (square, y down) */
	uint16_t row, col; /* 0-based row from the top, 0-based place in the row */
	uint8_t degree;	   /* number of neighbours */
	uint8_t edge;	   /* 1 when on the outer boundary (degree below the lattice's) */
	int16_t nb[BP_BOARD_MAX_DEGREE]; /* neighbour cells, degree of them */
};

struct bp_board {
	enum bp_shape shape;
	int a, b; /* hexN/triN: a = N; rhAxB and WxH: a = A or W, b = B or H */
	int ncells, nrows;
	int lattice_degree; /* 6 for hex cells, 4 for squares */
	char name[24];	    /* canonical spelling: "hex3", "rh3x4", "tri4", "5x5" */
	struct bp_cell *cells;
	int *row_start; /* first cell of each row; row_start[nrows] == ncells */
	int nsym;	/* size of the symmetry group; element 0 is the identity */
	int *sym;	/* nsym * ncells: sym[s * ncells + c] is the image of cell c */
	int qmin, rmin, qspan, rspan; /* bounding box of coordinates, for lookups */
	int *grid;		      /* qspan * rspan: cell at (q, r) or -1 */
};

/* Parses a board name ("hex3", "rh3x4", "tri4", "5x5") and builds the board with its
 * symmetry group. On error, err names the bad part.
 * @return BP_OK; BP_ESPEC for a malformed or out-of-range name; BP_ENOMEM.
 * The caller owns *out and frees it with bp_board_destroy(). */
int bp_board_create(const char *name, struct bp_board **out, struct bp_err *err);

void bp_board_destroy(struct bp_board *b);

/* The cell at coordinates (q, r), or -1 when off the board. */
int bp_board_find(const struct bp_board *b, int q, int r);

/* Writes the cell's name ("c3", "aa27") into buf (at least 12 bytes are always
 * enough). @return the name's length. */
int bp_board_cell_name(const struct bp_board *b, int cell, char *buf, size_t len);

/* Parses a cell name at the start of text: row letters then a 1-based number. On
 * success stores the cell and the number of characters read.
 * @return BP_OK; BP_EPARSE when no cell of this board is named there. */
int bp_board_cell_parse(const struct bp_board *b, const char *text, int *cell, int *used,
			struct bp_err *err);

/* Writes the row letters of row (0 = "a", 26 = "aa") into buf. @return the length. */
int bp_board_row_name(int row, char *buf, size_t len);

/* The number of cells in a row. */
static inline int bp_board_row_len(const struct bp_board *b, int row)
{
	return b->row_start[row + 1] - b->row_start[row];
}

/* The image of cell c under symmetry s. */
static inline int bp_board_sym(const struct bp_board *b, int s, int c)
{
	return b->sym[(size_t)s * (size_t)b->ncells + (size_t)c];
}

/* The horizontal drawing position of a cell in half-cell units (hex rows are offset
 * by half a cell), so that tools can draw any shape as text. */
int bp_board_draw_x(const struct bp_board *b, int cell);

#endif
