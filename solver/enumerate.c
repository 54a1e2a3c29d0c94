/* SPDX-License-Identifier: MIT */
/* Breadth-first over tiers: a tier's bitmap is complete once every lower tier has
 * been expanded, because moves only raise the tier. Each tier's bitmap is freed as
 * soon as it has been expanded, so memory holds the current tier and the tiers its
 * moves reach. Because the start position and the rules are symmetric, the reachable
 * set is closed under the game's symmetries, and counting the positions that are their
 * own canonical form counts the classes. */
#include "solver/enumerate.h"

#include <stdlib.h>

void bp_enum_counts_free(struct bp_enum_counts *c)
{
	free(c->raw);
	free(c->classes);
	c->raw = c->classes = NULL;
}

int bp_enumerate(const struct bp_game *g, uint64_t max_bytes, bp_enum_progress *progress, void *ctx,
		 struct bp_enum_counts *out)
{
	const struct bp_game_ops *ops = g->ops;
	int rc = BP_OK;
	uint32_t nt = g->ntiers;
	out->ntiers = nt;
	out->raw = out->classes = NULL;
	if (!ops->tier || !ops->tier_size || !ops->rank || !ops->unrank || nt == 0)
		return BP_EUNSUPPORTED;
	uint64_t *size = calloc(nt, sizeof *size);
	uint64_t **bits = calloc(nt, sizeof *bits);
	struct bp_move *mv = bp_game_move_buffer(g);
	out->raw = calloc(nt, sizeof *out->raw);
	out->classes = calloc(nt, sizeof *out->classes);
	if (!size || !bits || !mv || !out->raw || !out->classes) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < nt; t++) {
		if ((rc = ops->tier_size(g, t, &size[t])))
			goto out;
		uint64_t pair = size[t] / 8;
		if (t + 1 < nt) {
			uint64_t next;
			if ((rc = ops->tier_size(g, t + 1, &next)))
				goto out;
			pair += next / 8;
		}
		if (pair > max_bytes) {
			rc = BP_ERANGE;
			goto out;
		}
	}
	struct bp_pos p, c, canon;
	ops->start(g, &p);
	uint64_t idx;
	uint32_t t0 = ops->tier(g, &p);
	if ((rc = ops->rank(g, &p, &idx)))
		goto out;
	bits[t0] = calloc(size[t0] / 64 + 1, sizeof(uint64_t));
	if (!bits[t0]) {
		rc = BP_ENOMEM;
		goto out;
	}
	bits[t0][idx / 64] |= 1ull << (idx % 64);
	for (uint32_t t = t0; t < nt; t++) {
		if (!bits[t])
			continue;
		for (uint64_t wi = 0; wi <= size[t] / 64; wi++) {
			for (uint64_t w = bits[t][wi]; w; w &= w - 1) {
				idx = wi * 64 + (uint64_t)__builtin_ctzll(w);
				if ((rc = ops->unrank(g, t, idx, &p)))
					goto out;
				out->raw[t]++;
				bp_game_canonical(g, &p, &canon);
				out->classes[t] += bp_pos_equal(&canon, &p);
				if (ops->outcome(g, &p) != BP_VALUE_NONE)
					continue;
				int n = ops->moves(g, &p, mv);
				for (int i = 0; i < n; i++) {
					c = p;
					ops->apply(g, &c, mv[i]);
					uint32_t ct = ops->tier(g, &c);
					if (ct <= t || ct >= nt) {
						rc = BP_EINVAL; /* the game broke its tier promise */
						goto out;
					}
					if (!bits[ct] && !(bits[ct] = calloc(size[ct] / 64 + 1,
									     sizeof(uint64_t)))) {
						rc = BP_ENOMEM;
						goto out;
					}
					if ((rc = ops->rank(g, &c, &idx)))
						goto out;
					bits[ct][idx / 64] |= 1ull << (idx % 64);
				}
			}
		}
		free(bits[t]);
		bits[t] = NULL;
		if (progress)
			progress(ctx, t, out->raw[t], out->classes[t]);
	}
	rc = bp_game_status(g); /* a rule failed: the counts mean nothing */
out:
	if (bits)
		for (uint32_t t = 0; t < nt; t++)
			free(bits[t]);
	free(bits);
	free(size);
	free(mv);
	if (rc)
		bp_enum_counts_free(out);
	return rc;
}
