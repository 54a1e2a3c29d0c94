/* SPDX-License-Identifier: MIT */
#include "solver/plan.h"

#include <stdlib.h>
#include <string.h>

#include "solver/solve_common.h"

#define OVERHEAD BP_SOLVE_BASE_MEMORY /* as bp_solve_tiers_estimate */

static uint64_t share(uint64_t n, int ranks)
{
	return (n + (uint64_t)ranks - 1) / (uint64_t)ranks;
}

int bp_plan_tiers(const struct bp_game *g, const struct bp_plan_opts *o, struct bp_plan *out,
		  struct bp_err *err)
{
	const struct bp_game_ops *ops = g->ops;
	memset(out, 0, sizeof *out);
	if (!ops->tier || !ops->tier_size || g->ntiers == 0)
		return bp_err_set(err, BP_EUNSUPPORTED, "%s has no tiers to plan a solve over",
				  g->spec);
	if (o->ranks < 1 || o->threads < 1 || !(o->bits_per_position > 0) ||
	    !(o->rate_per_core > 0))
		return bp_err_set(err, BP_EINVAL, "bad plan options");
	uint32_t nt = g->ntiers;
	if (!(out->tier = calloc(nt, sizeof *out->tier)))
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	out->ntiers = nt;
	out->exact_classes = ops->count_tier != NULL;
	mpz_t raw, cls;
	mpz_init(raw);
	mpz_init(cls);
	int rc = BP_OK;
	uint64_t bitmaps = 0;
	for (uint32_t t = 0; t < nt && !rc; t++) {
		struct bp_plan_tier *pt = &out->tier[t];
		rc = ops->tier_size(g, t, &pt->records);
		if (rc == BP_ERANGE || (!rc && pt->records > (1ull << 60))) {
			/* a dense index too large for 64 bits: no table can hold the tier */
			pt->too_large = 1;
			out->too_large++;
			pt->records = 0;
			rc = BP_OK;
			continue;
		}
		if (rc) {
			bp_err_set(err, rc, "%s: the size of tier %u: %s", g->spec, t,
				   bp_strerror(rc));
			break;
		}
		pt->classes = pt->records;
		if (ops->count_tier) {
			if ((rc = ops->count_tier(g, t, raw, cls))) {
				bp_err_set(err, rc, "%s: counting tier %u: %s", g->spec, t,
					   bp_strerror(rc));
				break;
			}
			if (mpz_sizeinbase(cls, 2) > 63) {
				rc = bp_err_set(err, BP_ERANGE, "%s: tier %u is too large", g->spec,
						t);
				break;
			}
			pt->classes = (uint64_t)mpz_get_ui(cls);
		}
		bitmaps += pt->records / 8 + 8;
	}
	mpz_clear(raw);
	mpz_clear(cls);
	if (rc) {
		bp_plan_free(out);
		return rc;
	}
	int r = o->ranks;
	double rate = o->rate_per_core * (double)o->threads * (double)r;
	for (uint32_t t = 0; t < nt; t++) {
		struct bp_plan_tier *pt = &out->tier[t];
		if (pt->too_large)
			continue;
		uint64_t c1 = t + 1 < nt ? out->tier[t + 1].records : 0;
		/* the second tier up only where moves skip a tier */
		uint64_t c2 = t + 2 < nt && (ops->flags & BP_GAME_TIER_SKIP)
				      ? out->tier[t + 2].records
				      : 0;
		pt->mem_sliced = share(bitmaps, r) +
				 2 * (share(pt->records, r) + share(c1, r) + share(c2, r)) +
				 OVERHEAD;
		pt->mem_replicated = bitmaps + 2 * (pt->records + c1 + c2) + OVERHEAD;
		pt->exchanged = 2 * (pt->records - pt->records / (uint64_t)r);
		if (r == 1)
			pt->exchanged = 0;
		pt->disk = (uint64_t)((double)pt->classes * o->bits_per_position / 8.0 + 0.5);
		pt->seconds = (double)pt->classes / rate;
		out->records += pt->records;
		out->classes += pt->classes;
		out->disk += pt->disk;
		out->exchanged += pt->exchanged;
		out->seconds += pt->seconds;
		if (pt->mem_sliced > out->mem_sliced) {
			out->mem_sliced = pt->mem_sliced;
			out->peak_tier = t;
		}
		if (pt->mem_replicated > out->mem_replicated)
			out->mem_replicated = pt->mem_replicated;
	}
	return BP_OK;
}

void bp_plan_free(struct bp_plan *p)
{
	free(p->tier);
	p->tier = NULL;
}
