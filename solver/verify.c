/* SPDX-License-Identifier: MIT */
/* Tiers are checked from the last to the first. A tier's stored records are read
 * whole; children's tiers are read on demand into a cache of the most recently used
 * tiers, bounded by bytes: 4 GiB, or three times the largest tier when that is more,
 * so that the tier being checked and two tiers its moves reach always fit. Small games
 * whose moves reach many tiers (Blooms: captures lower the stone count) keep them
 * all; games whose moves reach the next tier or two never read one twice.
 * Corrupt blocks are counted by the store's own scan first; a tier that fails to
 * decode is then skipped, and its positions are not counted as checked.
 *
 * The rule that turns children's values into a value (RULES.md section 10) is written
 * out here again on purpose rather than shared with the solvers: a check that reused
 * the solver's code would repeat its mistakes. */
#include "solver/verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE 64		 /* tiers held at most */
#define CACHE_BYTES (4ull << 30) /* the cache's byte budget, at least */

struct cached {
	uint32_t tier;
	uint16_t *rec; /* NULL: empty slot or unreadable tier */
	int bad;       /* the tier could not be read */
	uint64_t used;
};

struct verifier {
	const struct bp_game *g;
	bp_table *t;
	struct bp_table_meta meta;
	struct cached cache[CACHE];
	uint64_t bytes;	 /* records held in the cache */
	uint64_t budget; /* bytes the cache may hold */
	uint64_t clock;
	bp_verify_problem *problem;
	void *ctx;
	struct bp_verify_report *out;
};

static void problem(struct verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct verifier *v, const char *fmt, ...)
{
	char buf[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (v->problem)
		v->problem(v->ctx, buf);
}

/* The records of tier, or NULL when the tier is not stored or unreadable. */
static uint64_t tier_bytes(const struct verifier *v, uint32_t tier)
{
	return sizeof(uint16_t) * (v->meta.tier_size[tier] ? v->meta.tier_size[tier] : 1);
}

static const uint16_t *tier_records(struct verifier *v, uint32_t tier, int *rc)
{
	*rc = BP_OK;
	for (int i = 0; i < CACHE; i++)
		if (v->cache[i].used && v->cache[i].tier == tier) {
			v->cache[i].used = ++v->clock;
			return v->cache[i].rec;
		}
	/* evict the least recently used tiers until this one fits the budget (the most
	 * recent, the tier being checked, stays), then take a free slot */
	struct cached *slot = NULL;
	for (;;) {
		struct cached *lru = NULL;
		int used = 0;
		for (int i = 0; i < CACHE; i++)
			if (v->cache[i].used) {
				used++;
				if (!lru || v->cache[i].used < lru->used)
					lru = &v->cache[i];
			}
		if (used < CACHE && (used <= 1 || v->bytes + tier_bytes(v, tier) <= v->budget))
			break;
		if (lru->rec)
			v->bytes -= tier_bytes(v, lru->tier);
		free(lru->rec);
		*lru = (struct cached){ 0 };
	}
	for (int i = 0; i < CACHE && !slot; i++)
		if (!v->cache[i].used)
			slot = &v->cache[i];
	*slot = (struct cached){ .tier = tier, .used = ++v->clock };
	if (!v->meta.tier_done[tier])
		return NULL;
	slot->rec = malloc(tier_bytes(v, tier));
	if (!slot->rec) {
		*rc = BP_ENOMEM;
		return NULL;
	}
	int grc = bp_table_get_tier(v->t, tier, slot->rec);
	if (grc) {
		free(slot->rec);
		slot->rec = NULL;
		slot->bad = 1;
		if (grc != BP_ECORRUPT && grc != BP_ENOTFOUND)
			*rc = grc;
		return NULL;
	}
	v->bytes += tier_bytes(v, tier);
	return slot->rec;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static void count_bad_block(void *ctx, uint32_t tier, uint64_t block, const char *why)
{
	struct verifier *v = ctx;
	problem(v, "tier %u block %llu: %s", tier, (unsigned long long)block, why);
}

int bp_verify(const struct bp_game *g, bp_table *t, bp_verify_problem *problem_fn,
	      bp_verify_progress *progress, void *ctx, struct bp_verify_report *out)
{
	struct verifier v = { .g = g, .t = t, .problem = problem_fn, .ctx = ctx, .out = out };
	int rc = BP_OK;
	struct bp_move *mv = NULL;
	memset(out, 0, sizeof *out);
	if (!g->ops->tier || !g->ops->rank || !g->ops->unrank)
		return BP_EUNSUPPORTED;
	if ((rc = bp_table_meta_get(t, &v.meta)))
		return rc;
	if (strcmp(v.meta.spec, g->spec) != 0 || v.meta.ntiers != g->ntiers)
		return BP_EFORMAT;
	v.budget = CACHE_BYTES;
	for (uint32_t tr = 0; tr < g->ntiers; tr++)
		if (3 * tier_bytes(&v, tr) > v.budget)
			v.budget = 3 * tier_bytes(&v, tr);
	int bad = bp_table_check_blocks(t, count_bad_block, &v);
	if (bad < 0)
		return bad;
	out->corrupt_blocks = (uint64_t)bad;
	mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	uint64_t hash = 0x736f6d6570736575ull;
	for (uint32_t tier = g->ntiers; tier-- > 0;) {
		if (!v.meta.tier_done[tier]) {
			out->missing_tiers++;
			problem(&v, "tier %u is not stored (unfinished solve)", tier);
			continue;
		}
		const uint16_t *rec = tier_records(&v, tier, &rc);
		if (rc)
			goto out;
		if (!rec) {
			problem(&v, "tier %u cannot be read; its positions are not checked", tier);
			continue;
		}
		uint64_t size = v.meta.tier_size[tier];
		for (uint64_t idx = 0; idx < size; idx++) {
			/* the cache may move the tier's array when children load: re-fetch */
			rec = tier_records(&v, tier, &rc);
			if (rc || !rec)
				goto out;
			uint16_t r = rec[idx];
			if (!r)
				continue;
			hash = mix(mix(mix(hash, tier), idx), r);
			out->positions_checked++;
			struct bp_pos p, canon, c;
			if (g->ops->unrank(g, tier, idx, &p) != BP_OK) {
				out->inconsistencies++;
				problem(&v, "tier %u index %llu: a record where no position is",
					tier, (unsigned long long)idx);
				continue;
			}
			bp_game_canonical(g, &p, &canon);
			if (!bp_pos_equal(&p, &canon)) {
				out->inconsistencies++;
				problem(&v,
					"tier %u index %llu: a record at a non-canonical position",
					tier, (unsigned long long)idx);
				continue;
			}
			enum bp_value want = g->ops->outcome(g, &p);
			unsigned wrem = 0;
			int missing = 0;
			if (want == BP_VALUE_NONE) {
				int n = g->ops->moves(g, &p, mv);
				int any_loss = 0, any_draw = 0;
				unsigned lmin = ~0u, dmin = ~0u, wmax = 0;
				for (int i = 0; i < n && !missing; i++) {
					uint64_t cidx;
					c = p;
					g->ops->apply(g, &c, mv[i]);
					bp_game_canonical(g, &c, &canon);
					uint32_t ct = g->ops->tier(g, &canon);
					const uint16_t *crec = NULL;
					if (ct < g->ntiers &&
					    g->ops->rank(g, &canon, &cidx) == BP_OK &&
					    cidx < v.meta.tier_size[ct])
						crec = tier_records(&v, ct, &rc);
					if (rc)
						goto out;
					uint16_t cr = crec ? crec[cidx] : 0;
					unsigned cv = bp_record_value(cr),
						 crem = bp_record_remoteness(cr);
					if (cv == BP_VALUE_NONE) {
						missing = 1;
						break;
					}
					if (cv == BP_VALUE_LOSS) {
						any_loss = 1;
						lmin = crem < lmin ? crem : lmin;
					} else if (cv == BP_VALUE_DRAW) {
						any_draw = 1;
						if (crem != BP_RECORD_NO_REMOTENESS && crem < dmin)
							dmin = crem;
					} else {
						wmax = crem > wmax ? crem : wmax;
					}
				}
				want = any_loss	  ? BP_VALUE_WIN
				       : any_draw ? BP_VALUE_DRAW
						  : BP_VALUE_LOSS;
				wrem = 1 + (any_loss ? lmin : any_draw ? dmin : wmax);
				/* a draw that reaches no terminal draw: a draw by repetition */
				if (!any_loss && any_draw && dmin == ~0u)
					wrem = BP_RECORD_NO_REMOTENESS;
			}
			if (missing) {
				out->inconsistencies++;
				problem(&v, "tier %u index %llu: a child has no stored value", tier,
					(unsigned long long)idx);
			} else if (bp_record_value(r) != want || bp_record_remoteness(r) != wrem) {
				out->inconsistencies++;
				struct bp_text pt = { 0 };
				g->ops->pos_format(g, &p, &pt);
				problem(&v,
					"'%s' (tier %u index %llu): stored %s in %u, children give "
					"%s in %u",
					bp_text_str(&pt), tier, (unsigned long long)idx,
					bp_value_name(bp_record_value(r)), bp_record_remoteness(r),
					bp_value_name(want), wrem);
				bp_text_free(&pt);
			}
		}
		if (progress)
			progress(ctx, tier, g->ntiers, out->positions_checked);
	}
	/* the start position must be stored: with every stored position's children
	 * stored, that makes every reachable position stored */
	struct bp_pos start, canon;
	uint64_t sidx;
	uint16_t r = 0;
	g->ops->start(g, &start);
	bp_game_canonical(g, &start, &canon);
	uint32_t st = g->ops->tier(g, &canon);
	if (g->ops->rank(g, &canon, &sidx) == BP_OK && v.meta.tier_done[st]) {
		const uint16_t *srec = tier_records(&v, st, &rc);
		if (rc)
			goto out;
		r = srec ? srec[sidx] : 0;
	}
	if (!r && !out->missing_tiers) {
		out->inconsistencies++;
		problem(&v, "the start position has no stored value");
	}
	out->content_hash = hash;
out:
	for (int i = 0; i < CACHE; i++)
		free(v.cache[i].rec);
	free(mv);
	return rc;
}
