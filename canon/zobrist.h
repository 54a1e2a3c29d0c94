/* SPDX-License-Identifier: MIT */
/* Zobrist hashes of a position's images under a board's symmetries, so that a key of
 * its symmetry class costs no canonical form (proof-number search keys its table so).
 * A position here is nplanes cell sets of a board of at most 64 cells (one word per
 * plane) and one word `extra` that the game makes of its other fields, which the
 * symmetries must leave alone. With fixed random words Z[i][c], the hash of the image
 * of p under board symmetry s is
 *
 *     h[s] = mix(extra)  ^  XOR over planes i, cells c of plane i:  Z[i][sym_s(c)]
 *
 * which is H(image) for one function H, so the smallest h[s] is the same for every
 * member of p's class. A stone placed or taken changes each h[s] by one XOR. */
#ifndef BP_CANON_ZOBRIST_H
#define BP_CANON_ZOBRIST_H

#include <stdint.h>

#include "canon/board.h"

typedef struct bp_zobrist bp_zobrist;

/* The most symmetries a bp_zobrist handles. */
#define BP_ZOBRIST_MAX_SYM 16

/* Builds the tables for every symmetry of b (b->nsym of them) and nplanes planes.
 * @return BP_OK; BP_ERANGE (more than 64 cells, more than BP_ZOBRIST_MAX_SYM
 * symmetries or more than 4 planes); BP_ENOMEM. The caller owns *out
 * (bp_zobrist_destroy). */
int bp_zobrist_create(const struct bp_board *b, int nplanes, bp_zobrist **out);

void bp_zobrist_destroy(bp_zobrist *z);

/* Writes the b->nsym hashes h[s] of the position (planes, extra) and returns the
 * smallest, the key of its class. */
uint64_t bp_zobrist_hash(const bp_zobrist *z, const uint64_t *planes, uint64_t extra, uint64_t *h);

/* The hashes of position (to, extra_to) from those of (from, extra_from), h, by the
 * cells that differ: out[s] for every symmetry (out may alias h; NULL: not
 * written). Returns the smallest. */
uint64_t bp_zobrist_update(const bp_zobrist *z, const uint64_t *from, const uint64_t *to,
			   uint64_t extra_from, uint64_t extra_to, const uint64_t *h,
			   uint64_t *out);

/* The same for changed cells that the caller names, for games that know them from the
 * move: cells[k] = cell * nplanes + plane, 0 <= ncells <= 4, each cell of a plane at
 * most once (a stone placed or taken there). */
uint64_t bp_zobrist_update_cells(const bp_zobrist *z, const int *cells, int ncells,
				 uint64_t extra_from, uint64_t extra_to, const uint64_t *h,
				 uint64_t *out);

/* bp_zobrist_update_cells without out for one changed cell, c0 (c1 < 0), or two, c0
 * and c1 (cell * nplanes + plane, as there): a child's key in a proof-number search,
 * with no cell array to fill and read. Returns the smallest of the hashes. */
uint64_t bp_zobrist_child_key(const bp_zobrist *z, int c0, int c1, uint64_t extra_from,
			      uint64_t extra_to, const uint64_t *h);

/* The parts of bp_zobrist_child_key, for a caller that makes many children of one
 * position and finds once what they share (proof-number search, through a game's
 * kids ops). With r(c) = t + c * BP_ZOBRIST_MAX_SYM for c = cell * nplanes + plane,
 *
 *     bp_zobrist_child_key(z, c0, c1, from, to, h)
 *         = key[c1 >= 0](nsym, h, e, r(c0), c1 >= 0 ? r(c1) : r(c0))
 *
 * where e = 0 when from == to, else ex[from] ^ ex[to] (both below
 * BP_ZOBRIST_EXTRA_KEPT; other extra words need bp_zobrist_child_key). key[] follows
 * bp_zobrist_set_vector at the time of the call. */
#define BP_ZOBRIST_EXTRA_KEPT 1024
struct bp_zobrist_keys {
	int nsym;
	const uint64_t *t, *ex;
	uint64_t (*key[2])(int nsym, const uint64_t *h, uint64_t e, const uint64_t *r0,
			   const uint64_t *r1);
};

void bp_zobrist_keys(const bp_zobrist *z, struct bp_zobrist_keys *out);

/* Whether a child's key (bp_zobrist_update_cells without out) may use the processor's
 * vector instructions (AVX-512 where it has them: the default). Off, the portable code
 * runs, so that a test can check both on one machine. Returns whether they are used. */
int bp_zobrist_set_vector(bp_zobrist *z, int on);

#endif
