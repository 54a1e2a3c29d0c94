/* SPDX-License-Identifier: MIT */
/* The set is an array of keys in insertion order plus an open-addressing table of
 * 32-bit indices into it. Breadth-first insertion order makes the key array its own
 * queue: the keys of depth d are a contiguous run, expanded in turn, whose children
 * are appended as the run of depth d + 1.
 *
 * A key is a position's first `width` words. The width is not known in advance (a
 * game uses as many state words as it needs), so it starts at the start position's
 * and widens when a position uses a later word; the key array is then re-laid out.
 * Hashes ignore trailing zero words, so widening never moves a table entry. */
#include "solver/reach.h"

#include <stdlib.h>
#include <string.h>

struct set {
	uint64_t *keys; /* count * width words */
	uint64_t count, keycap;
	int width;
	uint32_t *table; /* index + 1; 0 = empty */
	uint64_t mask;	 /* table size - 1 */
	uint64_t max_bytes;
};

static int used_words(const struct bp_pos *p)
{
	int w = BP_POS_WORDS;
	while (w > 1 && p->w[w - 1] == 0)
		w--;
	return w;
}

static uint64_t hash_words(const uint64_t *w, int n)
{
	while (n > 0 && w[n - 1] == 0)
		n--;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	h *= 0x94d049bb133111ebull;
	return h ^ h >> 29;
}

static uint64_t bytes_for(uint64_t keycap, int width, uint64_t tablesize)
{
	return keycap * (uint64_t)width * 8 + tablesize * 4;
}

static int widen(struct set *s, int width)
{
	if (bytes_for(s->keycap, width, s->mask + 1) > s->max_bytes)
		return BP_ERANGE;
	uint64_t *k = calloc(s->keycap ? s->keycap : 1, (size_t)width * 8);
	if (!k)
		return BP_ENOMEM;
	for (uint64_t i = 0; i < s->count; i++)
		memcpy(k + i * (uint64_t)width, s->keys + i * (uint64_t)s->width,
		       (size_t)s->width * 8);
	free(s->keys);
	s->keys = k;
	s->width = width;
	return BP_OK;
}

static int grow_table(struct set *s)
{
	uint64_t size = (s->mask + 1) * 2;
	if (bytes_for(s->keycap, s->width, size) > s->max_bytes)
		return BP_ERANGE;
	uint32_t *t = calloc(size, sizeof *t);
	if (!t)
		return BP_ENOMEM;
	for (uint64_t i = 0; i < s->count; i++) {
		uint64_t h = hash_words(s->keys + i * (uint64_t)s->width, s->width) & (size - 1);
		while (t[h])
			h = (h + 1) & (size - 1);
		t[h] = (uint32_t)(i + 1);
	}
	free(s->table);
	s->table = t;
	s->mask = size - 1;
	return BP_OK;
}

static int grow_keys(struct set *s)
{
	uint64_t cap = s->keycap * 2;
	if (bytes_for(cap, s->width, s->mask + 1) > s->max_bytes)
		return BP_ERANGE;
	uint64_t *k = realloc(s->keys, cap * (uint64_t)s->width * 8);
	if (!k)
		return BP_ENOMEM;
	s->keys = k;
	s->keycap = cap;
	return BP_OK;
}

/* Adds p unless present. @return 1 added, 0 present, or a negative error. */
static int insert(struct set *s, const struct bp_pos *p)
{
	int rc, w = used_words(p);
	if (w > s->width && (rc = widen(s, w)))
		return rc;
	uint64_t h = hash_words(p->w, s->width) & s->mask;
	for (; s->table[h]; h = (h + 1) & s->mask)
		if (memcmp(s->keys + (uint64_t)(s->table[h] - 1) * (uint64_t)s->width, p->w,
			   (size_t)s->width * 8) == 0)
			return 0;
	if (s->count + 1 >= UINT32_MAX)
		return BP_ERANGE;
	if (s->count == s->keycap && (rc = grow_keys(s)))
		return rc;
	memcpy(s->keys + s->count * (uint64_t)s->width, p->w, (size_t)s->width * 8);
	s->table[h] = (uint32_t)(s->count + 1);
	s->count++;
	if (s->count * 2 > s->mask + 1 && (rc = grow_table(s)))
		return rc;
	return 1;
}

void bp_reach_counts_free(struct bp_reach_counts *c)
{
	free(c->raw);
	free(c->classes);
	free(c->terminal);
	c->raw = c->classes = c->terminal = NULL;
	c->ndepths = 0;
}

/* Appends a zeroed depth row. */
static int add_depth(struct bp_reach_counts *out)
{
	uint32_t n = out->ndepths + 1;
	uint64_t *r = realloc(out->raw, n * sizeof *r);
	if (r)
		out->raw = r;
	uint64_t *c = realloc(out->classes, n * sizeof *c);
	if (c)
		out->classes = c;
	uint64_t *t = realloc(out->terminal, n * sizeof *t);
	if (t)
		out->terminal = t;
	if (!r || !c || !t)
		return BP_ENOMEM;
	out->raw[n - 1] = out->classes[n - 1] = out->terminal[n - 1] = 0;
	out->ndepths = n;
	return BP_OK;
}

int bp_reach(const struct bp_game *g, uint64_t max_bytes, bp_reach_progress *progress, void *ctx,
	     struct bp_reach_counts *out)
{
	const struct bp_game_ops *ops = g->ops;
	struct set s = { .width = 1, .max_bytes = max_bytes, .keycap = 1024, .mask = 2047 };
	struct bp_pos p, c, canon;
	int rc = BP_OK;
	memset(out, 0, sizeof *out);
	struct bp_move *mv = bp_game_move_buffer(g);
	if (bytes_for(s.keycap, s.width, s.mask + 1) > max_bytes) {
		rc = BP_ERANGE;
		goto out;
	}
	s.keys = malloc(s.keycap * 8);
	s.table = calloc(s.mask + 1, sizeof *s.table);
	if (!mv || !s.keys || !s.table) {
		rc = BP_ENOMEM;
		goto out;
	}
	ops->start(g, &p);
	if ((rc = insert(&s, &p)) < 0)
		goto out;
	rc = BP_OK;
	uint64_t lo = 0;
	while (lo < s.count) {
		uint64_t hi = s.count;
		if ((rc = add_depth(out)))
			goto out;
		uint32_t d = out->ndepths - 1;
		for (uint64_t i = lo; i < hi; i++) {
			memset(&p, 0, sizeof p);
			memcpy(p.w, s.keys + i * (uint64_t)s.width, (size_t)s.width * 8);
			out->raw[d]++;
			bp_game_canonical(g, &p, &canon);
			out->classes[d] += bp_pos_equal(&canon, &p);
			if (ops->outcome(g, &p) != BP_VALUE_NONE) {
				out->terminal[d]++;
				continue;
			}
			int n = ops->moves(g, &p, mv);
			for (int k = 0; k < n; k++) {
				c = p;
				ops->apply(g, &c, mv[k]);
				if ((rc = insert(&s, &c)) < 0)
					goto out;
			}
		}
		rc = BP_OK;
		if (progress)
			progress(ctx, d, out->raw[d], out->classes[d]);
		lo = hi;
	}
out:
	free(s.keys);
	free(s.table);
	free(mv);
	if (rc)
		bp_reach_counts_free(out);
	return rc;
}
