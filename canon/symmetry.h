/* SPDX-License-Identifier: MIT */
/* Applying board symmetries to sets of cells, and the canonical form of a position
 * made of cell sets ("planes", one per colour) under a chosen subgroup.
 *
 * Boards of at most 64 cells keep a plane in one 64-bit word; a bp_perm64 maps such a
 * word through a symmetry with eight byte-table lookups (8 x 256 precomputed images
 * per symmetry), so canonicalization costs 8 loads per plane per symmetry whatever
 * the shape. Larger boards map multi-word planes cell by cell. */
#ifndef BP_CANON_SYMMETRY_H
#define BP_CANON_SYMMETRY_H

#include <stdint.h>

#include "canon/board.h"

typedef struct bp_perm64 bp_perm64;

/* Builds byte tables for the symmetries syms[0..nsyms-1] (indices into b->sym) of a
 * board with at most 64 cells. Table i maps through symmetry syms[i].
 * @return BP_OK; BP_ERANGE when the board has more than 64 cells; BP_EINVAL for a
 * bad index; BP_ENOMEM. The caller owns *out (bp_perm64_destroy). */
int bp_perm64_create(const struct bp_board *b, const int *syms, int nsyms, bp_perm64 **out);

void bp_perm64_destroy(bp_perm64 *t);

/* Number of symmetries in the table. */
int bp_perm64_count(const bp_perm64 *t);

/* The image of cell set m under the table's i-th symmetry. */
uint64_t bp_perm64_apply(const bp_perm64 *t, int i, uint64_t m);

/* Canonical form of nplanes 64-bit planes: the lexicographically smallest
 * (plane 0 first) image among the table's symmetries. Writes it to out (which may
 * alias planes) and returns the index of a symmetry that produces it. */
int bp_perm64_canonical(const bp_perm64 *t, const uint64_t *planes, int nplanes, uint64_t *out);

/* Maps a multi-word cell set through board symmetry s, cell by cell: bit c of in
 * becomes bit sym(c) of out. in and out hold (ncells + 63) / 64 words and must not
 * alias. */
void bp_sym_apply_bits(const struct bp_board *b, int s, const uint64_t *in, uint64_t *out);

/* Index of the composition "first s1, then s2" in b's group, or -1 if absent. */
int bp_sym_compose(const struct bp_board *b, int s1, int s2);

/* Index of the inverse of s in b's group. */
int bp_sym_inverse(const struct bp_board *b, int s);

#endif
