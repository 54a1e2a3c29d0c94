/* SPDX-License-Identifier: MIT */
/* A tier's stored records held compactly for the checkers (verify, claims): a bitmap
 * of the indices with a non-zero record, with a rank directory, and the non-zero
 * records alone, in index order: one byte each through a palette while a tier holds at
 * most 256 distinct records (values and remoteness: the usual case), two otherwise. A
 * table whose index space is mostly holes (chicken:hex3: 58.9 G indices, 4.3 G
 * positions) then takes about 0.14 bytes an index plus 1 byte a position instead of 2
 * bytes an index. It is a container and nothing else: it knows no game and no rule.
 *
 * Layout: one 64-byte line per 448 indices, word 0 the number of set bits in every
 * line before it, words 1..7 the bits (index i is bit i % 64 of word 1 + (i % 448) / 64).
 * A look-up reads one line (the rank and the bit together: one cache miss) and then
 * the record (a second one); a dense array costs one miss. */
#ifndef BP_SOLVER_PACKEDTIER_H
#define BP_SOLVER_PACKEDTIER_H

#include <stdint.h>

#include "store/store.h"

#define BP_PACKEDTIER_LINE 448u /* indices a line covers */

struct bp_packedtier {
	uint64_t size;	 /* indices */
	uint64_t stored; /* non-zero records */
	uint64_t nlines;
	uint64_t *line;	       /* nlines * 8 words, 64-byte aligned */
	uint8_t *code;	       /* the stored records' palette codes, in index order; or */
	uint16_t *rec;	       /* the stored records themselves (exactly one is not NULL) */
	uint16_t palette[256]; /* code -> record */
};

/* Reads the done tier `tier` of t (size records) a range of `range` records at a time
 * (0: 16 M) on the calling thread, into out. expect, the number of non-zero records
 * the tier should hold (the metadata's count), only sizes the first allocation: more
 * or fewer are handled. Memory besides out: one range of records.
 * @return BP_OK; BP_ENOMEM; the store's codes (BP_ENOTFOUND, BP_ECORRUPT): out is then
 * empty. Free out with bp_packedtier_free. */
int bp_packedtier_load(bp_table *t, uint32_t tier, uint64_t size, uint64_t expect, uint64_t range,
		       struct bp_packedtier *out);

/* bp_packedtier_load going on past the blocks that fail their checks: calls bad() for
 * each (as bp_table_get_range_each; bad may be NULL). @return BP_OK; the number of
 * such blocks (> 0; *out then holds nothing); another error as bp_packedtier_load's. */
int bp_packedtier_load_each(bp_table *t, uint32_t tier, uint64_t size, uint64_t expect,
			    uint64_t range,
			    void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			    void *ctx, struct bp_packedtier *out);

/* Builds out from the records rec[0..size-1] held in memory (for tests and small
 * tiers). @return BP_OK; BP_ENOMEM. */
int bp_packedtier_from_array(const uint16_t *rec, uint64_t size, struct bp_packedtier *out);

/* Frees what out holds and empties it; an empty or zeroed out is fine. */
void bp_packedtier_free(struct bp_packedtier *p);

/* Bytes out holds. */
uint64_t bp_packedtier_bytes(const struct bp_packedtier *p);

/* Bytes a tier of size indices with stored non-zero records takes packed, with
 * records of one byte (a tier with more than 256 distinct records takes one byte more
 * a record). */
uint64_t bp_packedtier_bytes_for(uint64_t size, uint64_t stored);

/* The number of non-zero records before index idx (idx <= size). */
static inline uint64_t bp_packedtier_rank(const struct bp_packedtier *p, uint64_t idx)
{
	uint64_t l = idx / BP_PACKEDTIER_LINE, off = idx % BP_PACKEDTIER_LINE;
	if (l == p->nlines)
		return p->stored;
	const uint64_t *w = p->line + 8 * l;
	unsigned k = (unsigned)(off >> 6);
	uint64_t r = w[0];
	for (unsigned j = 0; j < k; j++)
		r += (uint64_t)__builtin_popcountll(w[1 + j]);
	return r + (uint64_t)__builtin_popcountll(w[1 + k] & ((1ull << (off & 63)) - 1));
}

/* The k-th stored record (k < stored), in index order. */
static inline uint16_t bp_packedtier_at(const struct bp_packedtier *p, uint64_t k)
{
	return p->code ? p->palette[p->code[k]] : p->rec[k];
}

/* The record at index idx (< size): 0 where none is stored. */
static inline uint16_t bp_packedtier_get(const struct bp_packedtier *p, uint64_t idx)
{
	uint64_t l = idx / BP_PACKEDTIER_LINE, off = idx % BP_PACKEDTIER_LINE;
	const uint64_t *w = p->line + 8 * l;
	unsigned k = (unsigned)(off >> 6);
	uint64_t bit = 1ull << (off & 63);
	if (!(w[1 + k] & bit))
		return 0;
	uint64_t r = w[0];
	for (unsigned j = 0; j < k; j++)
		r += (uint64_t)__builtin_popcountll(w[1 + j]);
	return bp_packedtier_at(p, r + (uint64_t)__builtin_popcountll(w[1 + k] & (bit - 1)));
}

/* The first index >= idx with a non-zero record, or size when there is none. */
uint64_t bp_packedtier_next(const struct bp_packedtier *p, uint64_t idx);

#endif
