/* SPDX-License-Identifier: MIT */
#include "solver/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/sparse.h"

/* Whether the table's tiers have the game's sizes: a table written with another index
 * layout (Glorieta's before its hands were ranked by the counts) names other positions
 * by the same indices. */
static int check_layout(bp_table *t, const struct bp_game *g, struct bp_err *err)
{
	struct bp_table_meta m;
	int rc = bp_table_meta_get(t, &m);
	if (rc)
		return rc;
	if (m.ntiers != g->ntiers)
		return bp_err_set(err, BP_EFORMAT,
				  "%u tiers stored, %u expected: the table was written with "
				  "another index layout; re-solve it (solve --replace)",
				  m.ntiers, g->ntiers);
	for (uint32_t i = 0; i < m.ntiers; i++) {
		uint64_t size;
		if (g->ops->tier_size(g, i, &size) == BP_OK && size != m.tier_size[i])
			return bp_err_set(
				err, BP_EFORMAT,
				"tier %u has %llu records stored, %llu expected: the "
				"tier sizes differ, so the table was written with another "
				"index layout; re-solve it (solve --replace)",
				i, (unsigned long long)m.tier_size[i], (unsigned long long)size);
	}
	return BP_OK;
}

static void free_index(void *ix)
{
	bp_sparse_free(ix);
}

/* Whether the index's tiers are the table's. */
static int index_fits(const bp_sparse *ix, bp_table *t)
{
	struct bp_table_meta m;
	if (bp_table_meta_get(t, &m) || m.ntiers != bp_sparse_tiers(ix))
		return 0;
	for (uint32_t i = 0; i < m.ntiers; i++)
		if (m.tier_size[i] != bp_sparse_count(ix, i))
			return 0;
	return 1;
}

/* The table's index: its stored index of reachable positions (attached to the table,
 * read by bp_probe_position), else the game's dense one, checked against the table's
 * tier sizes. An index stored for an earlier table that a dense one replaced
 * (solve --replace) is left aside when the dense index fits the table. */
static int open_index(bp_store *db, bp_table *t, const struct bp_game *g, struct bp_err *err)
{
	bp_sparse *ix = NULL;
	if (!bp_sparse_supported(g))
		return g->ops->tier_size ? check_layout(t, g, err) : BP_OK;
	int rc = bp_sparse_open(db, g, &ix, err); /* tiers are read on first use */
	if (rc == BP_OK && index_fits(ix, t)) {
		bp_table_attach(t, ix, free_index);
		return BP_OK;
	}
	bp_sparse_free(ix);
	if (rc && rc != BP_ENOTFOUND)
		return rc; /* damaged, or of another format: refused by name */
	if (bp_sparse_wanted(g))
		return bp_err_set(
			err, BP_EFORMAT,
			rc == BP_ENOTFOUND
				? "the table has no stored index of its reachable "
				  "positions (the game's dense index does not fit): the "
				  "index is missing; re-solve it (solve --replace)"
				: "the stored index of reachable positions does not "
				  "match the table's tiers; re-solve it (solve --replace)");
	if (err)
		memset(err, 0, sizeof *err);
	rc = check_layout(t, g, err);
	if (rc == BP_EFORMAT && err)
		snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
			 " (or its stored index of reachable positions is missing)");
	return rc;
}

/* The store's mask function (bp_table_mask_fn), ctx the game. */
static int holes_of(void *ctx, uint32_t tier, uint64_t first, uint32_t n, uint64_t *bits)
{
	const struct bp_game *g = ctx;
	return g->ops->canonical_mask(g, tier, first, n, bits);
}

/* The store's hints function (bp_table_set_hints), ctx the game: at each set bit of
 * the block's mask (a valid canonical index), whether its mover wins in 1
 * (bp_game_wins_in_one). */
static int wins_of(void *ctx, uint32_t tier, uint64_t first, uint32_t n, const uint64_t *mask,
		   uint64_t *hints)
{
	const struct bp_game *g = ctx;
	struct bp_move *moves = malloc((size_t)g->max_moves * sizeof *moves);
	int rc = moves ? BP_OK : BP_ENOMEM;
	for (uint32_t w = 0; rc == BP_OK && w < (n + 63) / 64; w++) {
		uint64_t keep = 0, b = mask[w];
		if (w == n / 64)
			b &= (1ull << n % 64) - 1; /* n % 64 != 0 here: bits past n */
		for (; b && rc == BP_OK; b &= b - 1) {
			uint32_t i = 64 * w + (uint32_t)__builtin_ctzll(b);
			struct bp_pos p;
			if ((rc = g->ops->unrank(g, tier, first + i, &p)) == BP_OK &&
			    bp_game_wins_in_one(g, &p, moves))
				keep |= 1ull << (i % 64);
		}
		hints[w] = keep;
	}
	free(moves);
	return rc;
}

int bp_probe_set_holes(bp_table *t, const struct bp_game *g)
{
	struct bp_table_meta m;
	if (!g->ops->canonical_mask || !g->ops->tier_size || bp_table_attached(t) ||
	    bp_table_meta_get(t, &m) != BP_OK || m.ntiers != g->ntiers)
		return 0;
	for (uint32_t i = 0; i < m.ntiers; i++) {
		uint64_t size;
		if (g->ops->tier_size(g, i, &size) != BP_OK || size != m.tier_size[i])
			return 0; /* not the dense index: its indices are not the game's ranks */
	}
	bp_table_set_mask(t, holes_of, (void *)g);
	bp_table_set_hints(t, wins_of, (void *)g, 0);
	return 1;
}

int bp_probe_foretell_wins(bp_table *t, const struct bp_game *g)
{
	if (!bp_probe_set_holes(t, g))
		return 0;
	bp_table_set_hints(t, wins_of, (void *)g, 1);
	return 1;
}

int bp_probe_open(bp_store *db, const struct bp_game *g, bp_table **out, struct bp_err *err)
{
	int rc = bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, out, err);
	if (rc == BP_OK && ((rc = bp_table_check_rules(*out, BP_RULES_VERSION, err)) ||
			    (rc = open_index(db, *out, g, err)))) {
		bp_table_close(*out);
		*out = NULL;
	}
	if (rc == BP_OK)
		bp_probe_set_holes(*out, g);
	return rc;
}

int bp_probe_position(const struct bp_game *g, bp_table *t, const struct bp_pos *p,
		      struct bp_probe *out)
{
	if (!g->ops->tier || (!g->ops->rank && !bp_table_attached(t)))
		return BP_EUNSUPPORTED;
	struct bp_pos canon;
	uint64_t idx;
	uint16_t r;
	bp_game_canonical(g, p, &canon);
	const bp_sparse *ix = bp_table_attached(t);
	int rc;
	if (ix) {
		rc = bp_sparse_rank_position(ix, g, &canon, &idx);
	} else {
		rc = g->ops->rank(g, &canon, &idx);
		/* a table indexed by its reachable positions, opened without its index
		 * (bp_table_open, not bp_probe_open): its tier sizes are not the dense
		 * ones (every tier is compared: a small tier may have the same size), and
		 * its records must not be read with dense indices */
		if (rc == BP_OK && bp_sparse_supported(g))
			rc = check_layout(t, g, NULL);
	}
	if (rc)
		return rc == BP_ERANGE ? BP_ENOTFOUND : rc;
	rc = bp_table_get(t, g->ops->tier(g, &canon), idx, &r);
	if (rc)
		return rc;
	if (bp_record_value(r) == BP_VALUE_NONE)
		return BP_ENOTFOUND;
	out->value = bp_record_value(r);
	out->remoteness = bp_record_remoteness(r);
	return BP_OK;
}

const char *bp_probe_why(const bp_table *t)
{
	const bp_sparse *ix = bp_table_attached(t);
	return ix && bp_sparse_why(ix)[0] ? bp_sparse_why(ix) : bp_table_why(t);
}

void bp_probe_release_tier(bp_table *t, uint32_t tier)
{
	bp_sparse *ix = bp_table_attached(t);
	if (ix)
		bp_sparse_release(ix, tier);
}

int bp_probe_unrank(const struct bp_game *g, bp_table *t, uint32_t tier, uint64_t i,
		    struct bp_pos *out)
{
	const bp_sparse *ix = bp_table_attached(t);
	if (ix)
		return bp_sparse_unrank_position(ix, g, tier, i, out);
	return g->ops->unrank ? g->ops->unrank(g, tier, i, out) : BP_EUNSUPPORTED;
}

/* Orders moves best first for the mover. */
static int better(const struct bp_probe_move *a, const struct bp_probe_move *b)
{
	static const int rank[4] = { 3, 0, 2, 1 }; /* win, draw, loss; none last */
	if (a->value != b->value)
		return rank[a->value] < rank[b->value];
	if (a->value == BP_VALUE_LOSS)
		return a->remoteness > b->remoteness;
	return a->remoteness < b->remoteness;
}

int bp_probe_moves(const struct bp_game *g, bp_table *t, const struct bp_pos *p,
		   struct bp_probe_move *out)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	int n = g->ops->moves(g, p, mv), rc = BP_OK;
	for (int i = 0; i < n; i++) {
		struct bp_pos c = *p;
		struct bp_probe pr;
		g->ops->apply(g, &c, mv[i]);
		if ((rc = bp_probe_position(g, t, &c, &pr)))
			break;
		out[i].move = mv[i];
		out[i].value = bp_value_flip(pr.value);
		out[i].remoteness = pr.remoteness == BP_RECORD_NO_REMOTENESS ? pr.remoteness
									     : pr.remoteness + 1;
	}
	free(mv);
	if (rc)
		return rc;
	/* insertion sort, stable: equal moves keep generation order */
	for (int i = 1; i < n; i++) {
		struct bp_probe_move m = out[i];
		int j = i;
		while (j > 0 && better(&m, &out[j - 1])) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = m;
	}
	return n;
}
