/* SPDX-License-Identifier: MIT */
/* What the tier walks of the Glorieta games (Chicken, Landscape) ask of a cell set,
 * as one table over every set of a board of at most BP_CELLSETS_CELLS cells: per set
 * S, the canonical test of a position whose first compared plane is S, and whether S
 * holds a loop as either player's group set. The walks otherwise find these per index
 * by symmetry images and flood fills.
 *
 * The canonical test. bp_perm64_canonical compares the images' planes in order, so the
 * first plane alone settles most of it: a position whose first plane is S is not
 * canonical when some symmetry maps S to a smaller set (BP_CELLSETS_SMALLER), and is
 * canonical when no symmetry s > 0 maps S to itself; BP_CELLSETS_FIXING masks the
 * symmetries s > 0 that fix S (bit s), the only ones whose other planes' images the
 * walk still compares. The symmetries are a bp_perm64 table's, so a game passes its
 * own (all of the board's, or a layout's stabilizer).
 *
 * The table takes 2^n entries of 16 bits (2 MiB at 20 cells), built by the first walk
 * that asks; boards over BP_CELLSETS_CELLS cells go without it. */
#ifndef BP_SOLVER_GAMES_CELLSETS_H
#define BP_SOLVER_GAMES_CELLSETS_H

#include <stdint.h>

#include "canon/symmetry.h"
#include "solver/games/loops.h"

#define BP_CELLSETS_CELLS 20
#define BP_CELLSETS_FIXING 0x0ffeu /* symmetries 1..11 fixing the set */
#define BP_CELLSETS_LOOP0 0x1000u  /* bp_loops_enclosed(L, 0, S) != 0 */
#define BP_CELLSETS_LOOP1 0x2000u  /* bp_loops_enclosed(L, 1, S) != 0 */
#define BP_CELLSETS_SMALLER 0x8000u

/* The table of L's board under the nsym symmetries of perm, stored in *slot (NULL
 * until then) on first use: one entry a cell set, bits as above. Threads that race
 * each build one, and the first stored is kept; the caller frees *slot with free()
 * when the game goes. @return the table, or NULL for a board of more than
 * BP_CELLSETS_CELLS cells, more than 12 symmetries, or out of memory (the walk then
 * works per position). */
const uint16_t *bp_cellsets_get(uint16_t **slot, const struct bp_loops *L, const bp_perm64 *perm,
				int nsym);

#endif
