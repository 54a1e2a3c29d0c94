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
	uint64_t extra; /* bytes held by the caller's arrays, counted against max_bytes */
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

static uint64_t bytes_for(const struct set *s, uint64_t keycap, int width, uint64_t tablesize)
{
	return keycap * (uint64_t)width * 8 + tablesize * 4 + s->extra;
}

static int widen(struct set *s, int width)
{
	if (bytes_for(s, s->keycap, width, s->mask + 1) > s->max_bytes)
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
	if (bytes_for(s, s->keycap, s->width, size) > s->max_bytes)
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
	if (bytes_for(s, cap, s->width, s->mask + 1) > s->max_bytes)
		return BP_ERANGE;
	uint64_t *k = realloc(s->keys, cap * (uint64_t)s->width * 8);
	if (!k)
		return BP_ENOMEM;
	s->keys = k;
	s->keycap = cap;
	return BP_OK;
}

/* The index of p, or -1. */
static int64_t find(const struct set *s, const struct bp_pos *p)
{
	if (used_words(p) > s->width)
		return -1;
	uint64_t h = hash_words(p->w, s->width) & s->mask;
	for (; s->table[h]; h = (h + 1) & s->mask)
		if (memcmp(s->keys + (uint64_t)(s->table[h] - 1) * (uint64_t)s->width, p->w,
			   (size_t)s->width * 8) == 0)
			return (int64_t)s->table[h] - 1;
	return -1;
}

/* Adds p unless present, storing its index in *index when not NULL.
 * @return 1 added, 0 present, or a negative error. */
static int insert(struct set *s, const struct bp_pos *p, uint64_t *index)
{
	int rc, w = used_words(p);
	if (w > s->width && (rc = widen(s, w)))
		return rc;
	uint64_t h = hash_words(p->w, s->width) & s->mask;
	for (; s->table[h]; h = (h + 1) & s->mask)
		if (memcmp(s->keys + (uint64_t)(s->table[h] - 1) * (uint64_t)s->width, p->w,
			   (size_t)s->width * 8) == 0) {
			if (index)
				*index = s->table[h] - 1;
			return 0;
		}
	if (s->count + 1 >= UINT32_MAX)
		return BP_ERANGE;
	if (s->count == s->keycap && (rc = grow_keys(s)))
		return rc;
	memcpy(s->keys + s->count * (uint64_t)s->width, p->w, (size_t)s->width * 8);
	s->table[h] = (uint32_t)(s->count + 1);
	if (index)
		*index = s->count;
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
	if (bytes_for(&s, s.keycap, s.width, s.mask + 1) > max_bytes) {
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
	if ((rc = insert(&s, &p, NULL)) < 0)
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
				if ((rc = insert(&s, &c, NULL)) < 0)
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

/* ---- solving in memory -------------------------------------------------------------
 *
 * 1. Breadth-first enumeration as above, recording each position's children as
 *    indices (a compressed row per position, rows in index order because positions are
 *    expanded in the order they were added).
 * 2. The reverse graph, by counting in-degrees.
 * 3. Retrograde propagation from the terminal positions, first in first out. Every
 *    position is queued with remoteness one more than the position that decided it,
 *    so the queue's remoteness never decreases: a position becomes a win at the first
 *    lost child dequeued (the nearest), and a loss when its last won child is dequeued
 *    (the farthest), exactly RULES.md section 10's perfect play.
 * 4. What is left undecided is a draw: neither side can force an end it prefers. A
 *    backward search from the drawn terminal positions through draws gives the fewest
 *    turns of a drawing line that ends; a draw it does not reach repeats forever. */

struct bp_reach_table {
	struct set s;
	uint8_t *value;
	uint32_t *rem;
	struct bp_reach_summary sum;
};

void bp_reach_table_destroy(bp_reach_table *t)
{
	if (!t)
		return;
	free(t->s.keys);
	free(t->s.table);
	free(t->value);
	free(t->rem);
	free(t);
}

void bp_reach_table_summary(const bp_reach_table *t, struct bp_reach_summary *out)
{
	*out = t->sum;
}

int bp_reach_table_lookup(const bp_reach_table *t, const struct bp_pos *p, enum bp_value *value,
			  unsigned *remoteness)
{
	int64_t i = find(&t->s, p);
	if (i < 0)
		return BP_ENOTFOUND;
	*value = (enum bp_value)t->value[i];
	*remoteness = t->rem[i];
	return BP_OK;
}

/* Grows a uint32 array to hold at least need entries, within the set's budget. */
static int grow_u32(struct set *s, uint32_t **a, uint64_t *cap, uint64_t need)
{
	if (need <= *cap)
		return BP_OK;
	uint64_t ncap = *cap ? *cap : 1024;
	while (ncap < need)
		ncap *= 2;
	s->extra += (ncap - *cap) * 4;
	if (bytes_for(s, s->keycap, s->width, s->mask + 1) > s->max_bytes)
		return BP_ERANGE;
	uint32_t *n = realloc(*a, ncap * 4);
	if (!n)
		return BP_ENOMEM;
	*a = n;
	*cap = ncap;
	return BP_OK;
}

static void key_pos(const struct set *s, uint64_t i, struct bp_pos *p)
{
	memset(p, 0, sizeof *p);
	memcpy(p->w, s->keys + i * (uint64_t)s->width, (size_t)s->width * 8);
}

int bp_reach_solve(const struct bp_game *g, uint64_t max_bytes, bp_reach_table **out)
{
	const struct bp_game_ops *ops = g->ops;
	struct bp_reach_table *t = calloc(1, sizeof *t);
	struct bp_move *mv = bp_game_move_buffer(g);
	uint32_t *child = NULL, *off = NULL, *rev = NULL, *roff = NULL, *left = NULL, *queue = NULL;
	uint64_t childcap = 0, offcap = 0;
	struct bp_pos p, c;
	int rc = BP_OK;
	*out = NULL;
	if (!t || !mv) {
		rc = BP_ENOMEM;
		goto out;
	}
	struct set *s = &t->s;
	s->width = 1;
	s->max_bytes = max_bytes;
	s->keycap = 1024;
	s->mask = 2047;
	if (bytes_for(s, s->keycap, s->width, s->mask + 1) > max_bytes) {
		rc = BP_ERANGE;
		goto out;
	}
	s->keys = malloc(s->keycap * 8);
	s->table = calloc(s->mask + 1, sizeof *s->table);
	if (!s->keys || !s->table) {
		rc = BP_ENOMEM;
		goto out;
	}
	ops->start(g, &p);
	if ((rc = insert(s, &p, NULL)) < 0)
		goto out;
	/* 1. the graph: off[i] .. off[i + 1] - 1 index child[] */
	uint64_t m = 0;
	for (uint64_t i = 0; i < s->count; i++) {
		if ((rc = grow_u32(s, &off, &offcap, i + 2)))
			goto out;
		off[i] = (uint32_t)m;
		key_pos(s, i, &p);
		if (ops->outcome(g, &p) != BP_VALUE_NONE)
			continue;
		int n = ops->moves(g, &p, mv);
		if (m + (uint64_t)n >= UINT32_MAX) {
			rc = BP_ERANGE;
			goto out;
		}
		if ((rc = grow_u32(s, &child, &childcap, m + (uint64_t)n)))
			goto out;
		for (int k = 0; k < n; k++) {
			uint64_t idx;
			c = p;
			ops->apply(g, &c, mv[k]);
			if ((rc = insert(s, &c, &idx)) < 0)
				goto out;
			child[m++] = (uint32_t)idx;
		}
	}
	rc = BP_OK;
	uint64_t npos = s->count;
	off[npos] = (uint32_t)m;
	/* 2. the reverse graph and the per-position arrays */
	s->extra += m * 4 + (npos + 1) * 4 + npos * (4 + 4 + 4 + 1);
	if (bytes_for(s, s->keycap, s->width, s->mask + 1) > max_bytes) {
		rc = BP_ERANGE;
		goto out;
	}
	rev = malloc((m ? m : 1) * 4);
	roff = calloc(npos + 1, 4);
	left = malloc(npos * 4);
	queue = malloc(npos * 4);
	t->rem = malloc(npos * 4);
	t->value = calloc(npos, 1);
	if (!rev || !roff || !left || !queue || !t->rem || !t->value) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (uint64_t e = 0; e < m; e++)
		roff[child[e] + 1]++;
	for (uint64_t i = 0; i < npos; i++)
		roff[i + 1] += roff[i];
	/* fill rev with a cursor per position (left[] reused as the cursor) */
	for (uint64_t i = 0; i < npos; i++)
		left[i] = roff[i];
	for (uint64_t i = 0; i < npos; i++)
		for (uint32_t e = off[i]; e < off[i + 1]; e++)
			rev[left[child[e]]++] = (uint32_t)i;
	/* 3. retrograde propagation */
	uint64_t head = 0, tail = 0;
	for (uint64_t i = 0; i < npos; i++) {
		t->rem[i] = BP_REACH_NO_REMOTENESS;
		left[i] = off[i + 1] - off[i];
		if (left[i] == 0) {
			key_pos(s, i, &p);
			enum bp_value v = ops->outcome(g, &p);
			if (v == BP_VALUE_NONE) { /* no move, yet not over: the game is broken */
				rc = BP_EINVAL;
				goto out;
			}
			t->value[i] = (uint8_t)v;
			t->rem[i] = 0;
			queue[tail++] = (uint32_t)i;
		}
	}
	while (head < tail) {
		uint32_t j = queue[head++];
		enum bp_value v = (enum bp_value)t->value[j];
		if (v == BP_VALUE_DRAW)
			continue;
		for (uint32_t e = roff[j]; e < roff[j + 1]; e++) {
			uint32_t i = rev[e];
			if (t->value[i] != BP_VALUE_NONE)
				continue;
			if (v == BP_VALUE_LOSS || --left[i] == 0) {
				t->value[i] = v == BP_VALUE_LOSS ? BP_VALUE_WIN : BP_VALUE_LOSS;
				t->rem[i] = t->rem[j] + 1;
				queue[tail++] = i;
			}
		}
	}
	/* 4. draws: the rest; remoteness from drawn ends through draws */
	head = tail = 0;
	for (uint64_t i = 0; i < npos; i++) {
		if (t->value[i] == BP_VALUE_NONE)
			t->value[i] = BP_VALUE_DRAW;
		else if (t->value[i] == BP_VALUE_DRAW) /* a drawn end */
			queue[tail++] = (uint32_t)i;
	}
	while (head < tail) {
		uint32_t j = queue[head++];
		for (uint32_t e = roff[j]; e < roff[j + 1]; e++) {
			uint32_t i = rev[e];
			if (t->value[i] == BP_VALUE_DRAW && t->rem[i] == BP_REACH_NO_REMOTENESS) {
				t->rem[i] = t->rem[j] + 1;
				queue[tail++] = i;
			}
		}
	}
	struct bp_reach_summary *sum = &t->sum;
	sum->positions = npos;
	sum->edges = m;
	for (uint64_t i = 0; i < npos; i++) {
		sum->counts[t->value[i]]++;
		if (t->rem[i] == BP_REACH_NO_REMOTENESS)
			sum->repetition_draws++;
		else if (t->value[i] != BP_VALUE_DRAW && t->rem[i] > sum->max_remoteness)
			sum->max_remoteness = t->rem[i];
	}
	sum->start_value = (enum bp_value)t->value[0];
	sum->start_remoteness = t->rem[0];
out:
	free(mv);
	free(child);
	free(off);
	free(rev);
	free(roff);
	free(left);
	free(queue);
	if (rc) {
		bp_reach_table_destroy(t);
		return rc;
	}
	*out = t;
	return BP_OK;
}
