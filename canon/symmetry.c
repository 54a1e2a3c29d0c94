/* SPDX-License-Identifier: MIT */
#include "canon/symmetry.h"

#include <stdlib.h>
#include <string.h>

struct bp_perm64 {
	int nsym;
	int nbytes;		 /* bytes a plane of this board uses: ceil(ncells / 8) */
	uint64_t (*tab)[8][256]; /* tab[i][byte][value]: image of value << (8 * byte) */
};

/* Only the bytes that hold cells are looked up: 2 for a 16-cell board, not 8. */
static inline uint64_t apply(const bp_perm64 *t, int i, uint64_t m)
{
	uint64_t(*tb)[256] = t->tab[i];
	uint64_t out = tb[0][m & 255];
	for (int b = 1; b < t->nbytes; b++)
		out |= tb[b][m >> (8 * b) & 255];
	return out;
}

int bp_perm64_create(const struct bp_board *b, const int *syms, int nsyms, bp_perm64 **out)
{
	*out = NULL;
	if (b->ncells > 64)
		return BP_ERANGE;
	if (nsyms < 1)
		return BP_EINVAL;
	bp_perm64 *t = calloc(1, sizeof *t);
	if (!t)
		return BP_ENOMEM;
	t->nsym = nsyms;
	t->nbytes = (b->ncells + 7) / 8;
	t->tab = calloc((size_t)nsyms, sizeof *t->tab);
	if (!t->tab) {
		free(t);
		return BP_ENOMEM;
	}
	for (int i = 0; i < nsyms; i++) {
		if (syms[i] < 0 || syms[i] >= b->nsym) {
			bp_perm64_destroy(t);
			return BP_EINVAL;
		}
		for (int byte = 0; byte < 8; byte++)
			for (int v = 0; v < 256; v++) {
				uint64_t img = 0;
				for (int bit = 0; bit < 8; bit++) {
					int c = byte * 8 + bit;
					if ((v >> bit & 1) && c < b->ncells)
						img |= 1ull << bp_board_sym(b, syms[i], c);
				}
				t->tab[i][byte][v] = img;
			}
	}
	*out = t;
	return BP_OK;
}

void bp_perm64_destroy(bp_perm64 *t)
{
	if (!t)
		return;
	free(t->tab);
	free(t);
}

int bp_perm64_count(const bp_perm64 *t)
{
	return t->nsym;
}

uint64_t bp_perm64_apply(const bp_perm64 *t, int i, uint64_t m)
{
	return apply(t, i, m);
}

int bp_perm64_canonical(const bp_perm64 *t, const uint64_t *planes, int nplanes, uint64_t *out)
{
	uint64_t best[8], cur[8];
	int besti = 0;
	if (nplanes > 8)
		nplanes = 8; /* callers pass at most a handful of colours */
	memcpy(best, planes, sizeof(uint64_t) * (size_t)nplanes);
	for (int i = 1; i < t->nsym; i++) {
		int cmp = 0;
		for (int p = 0; p < nplanes; p++) {
			cur[p] = apply(t, i, planes[p]);
			if (cmp == 0 && cur[p] != best[p])
				cmp = cur[p] < best[p] ? -1 : 1;
			if (cmp > 0)
				break;
		}
		if (cmp < 0) {
			memcpy(best, cur, sizeof(uint64_t) * (size_t)nplanes);
			besti = i;
		}
	}
	memcpy(out, best, sizeof(uint64_t) * (size_t)nplanes);
	return besti;
}

/* The set's bits one by one, not the board's cells: the sets a game maps are mostly
 * empty (Mirador's proof search canonicalizes each child of a node this way: on
 * mirador:18x18, scanning all 324 cells of both planes under each symmetry was 42% of
 * the search's time). Bits past the last cell are not cells and are left out. */
void bp_sym_apply_bits(const struct bp_board *b, int s, const uint64_t *in, uint64_t *out)
{
	int words = (b->ncells + 63) / 64;
	const int tail = b->ncells % 64;
	memset(out, 0, sizeof(uint64_t) * (size_t)words);
	for (int w = 0; w < words; w++) {
		uint64_t v = in[w];
		if (w == words - 1 && tail)
			v &= (1ull << tail) - 1;
		for (; v; v &= v - 1) {
			int to = bp_board_sym(b, s, w * 64 + __builtin_ctzll(v));
			out[to / 64] |= 1ull << (to % 64);
		}
	}
}

int bp_sym_compose(const struct bp_board *b, int s1, int s2)
{
	for (int s = 0; s < b->nsym; s++) {
		int same = 1;
		for (int c = 0; c < b->ncells && same; c++)
			same = bp_board_sym(b, s, c) == bp_board_sym(b, s2, bp_board_sym(b, s1, c));
		if (same)
			return s;
	}
	return -1;
}

int bp_sym_inverse(const struct bp_board *b, int s)
{
	for (int t = 0; t < b->nsym; t++)
		if (bp_sym_compose(b, s, t) == 0)
			return t;
	return -1;
}
