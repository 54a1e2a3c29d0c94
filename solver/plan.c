/* SPDX-License-Identifier: MIT */
#include "solver/plan.h"

#include <stdlib.h>
#include <string.h>

#include "solver/counter.h"
#include "solver/cyclic.h"
#include "solver/expanded.h"
#include "solver/solve_common.h"

#define OVERHEAD bp_solve_base_memory(g) /* as bp_solve_tiers_estimate */
#define ITEM 65536			 /* indices a work item covers (retrograde.c) */
#define ROUND_BYTES 28			 /* buffer bytes a child of a round's positions costs */
#define SAMPLES 256 /* canonical positions a tier's children are averaged over */
#define TRIES 4096  /* indices drawn to find them */

static uint64_t share(uint64_t n, int ranks)
{
	return (n + (uint64_t)ranks - 1) / (uint64_t)ranks;
}

static uint64_t next_random(uint64_t *x)
{
	/* xorshift64*: a fixed seed gives the same plan every run */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

/* The average children of a canonical position of tier t (0 for a terminal one): every
 * index of a small tier, else up to SAMPLES canonical positions among TRIES indices
 * drawn. @return BP_OK; BP_ENOMEM; an op's error. */
static int sample_children(const struct bp_game *g, uint32_t t, uint64_t records, double *out)
{
	const struct bp_game_ops *ops = g->ops;
	struct bp_move *mv = malloc(sizeof *mv * (size_t)(g->max_moves ? g->max_moves : 1));
	uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)t + 1) * 0xbf58476d1ce4e5b9ull;
	uint64_t found = 0, children = 0;
	int rc = mv ? BP_OK : BP_ENOMEM, every = records <= TRIES;
	struct bp_pos p, canon;
	for (uint64_t i = 0; !rc && records && i < (every ? records : TRIES) && found < SAMPLES;
	     i++) {
		uint64_t idx = every ? i : next_random(&x) % records;
		int urc = ops->unrank(g, t, idx, &p);
		if (urc == BP_ENOTFOUND)
			continue;
		if ((rc = urc))
			break;
		bp_game_canonical(g, &p, &canon);
		if (!bp_pos_equal(&p, &canon))
			continue;
		found++;
		if (ops->outcome(g, &p) == BP_VALUE_NONE)
			children += (uint64_t)ops->moves(g, &p, mv);
	}
	free(mv);
	*out = found ? (double)children / (double)found : 0;
	return rc ? rc : bp_game_status(g);
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
	if (o->walk && !ops->tier_walk)
		return bp_err_set(err, BP_EUNSUPPORTED, "%s has no tier walk to plan", g->spec);
	uint32_t nt = g->ntiers;
	if (!(out->tier = calloc(nt, sizeof *out->tier)))
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	out->ntiers = nt;
	out->exact_classes = ops->count_tier != NULL;
	out->sampled = ops->unrank && ops->moves && ops->outcome;
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
		pt->children = g->max_moves; /* an upper bound when the game cannot unrank */
		if (out->sampled &&
		    (rc = sample_children(g, t, pt->records, &pt->children)) != BP_OK) {
			bp_err_set(err, rc, "%s: sampling tier %u: %s", g->spec, t,
				   bp_strerror(rc));
			break;
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
	double remote = (double)(r - 1) / (double)r;
	uint64_t round_items = (uint64_t)(4 * o->threads > 8 ? 4 * o->threads : 8), most = 0;
	for (uint32_t t = 0; t < nt; t++)
		most = out->tier[t].records > most ? out->tier[t].records : most;
	/* one process, a game that cuts its tiers into segments: the segment order's peak */
	uint64_t *seg_peak = NULL, seg_most = 0;
	if (o->walk && ops->walk_segments && !out->too_large) {
		if (!(seg_peak = calloc(nt, sizeof *seg_peak)))
			rc = BP_ENOMEM;
		else if ((rc = bp_solve_walk_segment_plan(g, seg_peak, &seg_most)))
			bp_err_set(err, rc, "%s: planning its segments: %s", g->spec,
				   bp_strerror(rc));
		if (rc) {
			free(seg_peak);
			bp_plan_free(out);
			return rc == BP_ENOMEM ? bp_err_set(err, rc, "out of memory") : rc;
		}
	}
	for (uint32_t t = 0; t < nt; t++) {
		struct bp_plan_tier *pt = &out->tier[t];
		if (pt->too_large)
			continue;
		uint64_t c1 = t + 1 < nt ? out->tier[t + 1].records : 0;
		/* the second tier up only where moves skip a tier */
		uint64_t c2 = t + 2 < nt && (ops->flags & BP_GAME_TIER_SKIP)
				      ? out->tier[t + 2].records
				      : 0;
		double density = pt->records ? (double)pt->classes / (double)pt->records : 0;
		/* children of one rank's positions, and of one round's */
		double edges = (double)share(pt->classes, r) * pt->children;
		uint64_t round_indices = round_items * ITEM;
		if (round_indices > share(pt->records, r))
			round_indices = share(pt->records, r);
		uint64_t round = r == 1 ? 0
					: (uint64_t)((double)round_indices * density *
						     pt->children * ROUND_BYTES);
		pt->mem = share(bitmaps, r) +
			  2 * (share(pt->records, r) + share(c1, r) + share(c2, r)) + round +
			  OVERHEAD;
		pt->mem_one = bitmaps + 2 * (pt->records + c1 + c2) + OVERHEAD;
		/* marks (8), keys (8) and answers (2) each way */
		uint64_t lookups = (uint64_t)(edges * remote * (8 + 8 + 2));
		uint64_t slice = 2; /* bytes a record sent to the writer */
		if (o->walk) {
			/* two buffers of the largest tier's share (three where moves skip a
			 * tier), and with BP_GAME_WALK_UNREACHED the reach bits of every tier;
			 * keys (8) and answers (2), and (index, record) pairs (8) for images
			 * held elsewhere. The reach pass (expanded.c) adds at most a key and
			 * an answer per image held elsewhere and a mark (8) per child. */
			uint64_t images = share(pt->records, r) - share(pt->classes, r);
			uint64_t round_images =
				r == 1 ? 0 : (uint64_t)((double)round_indices * (1 - density) * 24);
			uint64_t nbuf = ops->flags & BP_GAME_TIER_SKIP ? 3 : 2;
			uint64_t width = (uint64_t)bp_solve_walk_record_bytes(g);
			slice = width;
			int reach = (ops->flags & BP_GAME_WALK_UNREACHED) != 0;
			pt->mem = width * nbuf * share(most, r) + (reach ? share(bitmaps, r) : 0) +
				  round + round_images + OVERHEAD;
			uint64_t feed = width == 1 ? bp_solve_walk_feed_bytes(most, o->threads) : 0;
			pt->mem += feed;
			pt->mem_one = width * nbuf * most + (reach ? bitmaps : 0) + OVERHEAD + feed;
			if (seg_peak) { /* held by segments in one process (ranks hold tiers) */
				pt->mem_one = seg_peak[t];
				if (r == 1)
					pt->mem = seg_peak[t];
			}
			lookups = (uint64_t)(edges * remote * (8 + 2 + (reach ? 8 : 0)) +
					     (double)images * remote * (8 + (reach ? 10 : 0)));
		}
		pt->sent = r == 1 ? 0 : lookups + slice * share(pt->records, r);
		pt->received = r == 1 ? 0 : lookups;
		pt->writer_received =
			r == 1 ? 0 : lookups + slice * (pt->records - share(pt->records, r));
		pt->disk = (uint64_t)((double)pt->classes * o->bits_per_position / 8.0 + 0.5);
		pt->seconds = (double)pt->classes / rate;
		out->records += pt->records;
		out->classes += pt->classes;
		out->disk += pt->disk;
		out->sent += pt->sent;
		out->received += pt->received;
		out->writer_received += pt->writer_received;
		out->seconds += pt->seconds;
		if (pt->mem > out->mem) {
			out->mem = pt->mem;
			out->peak_tier = t;
		}
		if (pt->mem_one > out->mem_one)
			out->mem_one = pt->mem_one;
	}
	free(seg_peak);
	return BP_OK;
}

void bp_plan_free(struct bp_plan *p)
{
	free(p->tier);
	p->tier = NULL;
}

#define PAGE 4096ull
#define HEAP_HEADER 16 /* calloc's header before a large (mapped) block */

/* Pages of the cycles engine's arrays (solver/cyclic.c: per tier, the reach and
 * expanded bits and 2-byte records, each calloc'd, so only pages written are
 * resident) that hold a reachable position's bit or record: the positions the
 * counter engine's marking found, in reach (global index space). */
static uint64_t cycles_pages(const struct bp_game *g, const uint64_t *reach)
{
	uint64_t off = 0, pages = 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t sz = 0, rec_last = UINT64_MAX, bit_last = UINT64_MAX;
		g->ops->tier_size(g, t, &sz);
		for (uint64_t i = 0; i < sz; i++) {
			uint64_t k = off + i, w = reach[k / 64] >> (k % 64);
			if (!w) { /* the rest of this word is unreached */
				i += 63 - k % 64;
				continue;
			}
			if (!(w & 1))
				continue;
			uint64_t rp = (HEAP_HEADER + 2 * i) / PAGE,
				 bp = (HEAP_HEADER + i / 8) / PAGE;
			pages += (rp != rec_last) + 2 * (bp != bit_last);
			rec_last = rp;
			bit_last = bp;
		}
		off += sz;
	}
	return pages;
}

int bp_plan_graph(const struct bp_game *g, int counter, int count, int threads,
		  uint64_t memory_limit, struct bp_plan_graph *out, struct bp_err *err)
{
	const struct bp_game_ops *ops = g->ops;
	memset(out, 0, sizeof *out);
	out->counter = counter;
	if (!ops->tier || !ops->tier_size || !ops->rank || !ops->unrank || !g->ntiers)
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s cannot be solved: the game has no dense "
				  "ranking",
				  g->spec);
	uint64_t cyc;
	int rc = counter ? bp_solve_counter_estimate(g, &out->enforced)
			 : bp_solve_cycles_estimate(g, &cyc);
	if (rc)
		return bp_err_set(err, rc, "%s: its index space is too large to solve", g->spec);
	mpz_t raw, cls;
	mpz_init(raw);
	mpz_init(cls);
	out->exact_classes = ops->count_tier != NULL;
	uint64_t bits = 0;
	for (uint32_t t = 0; t < g->ntiers && !rc; t++) {
		uint64_t sz, c;
		if ((rc = ops->tier_size(g, t, &sz)))
			break;
		c = sz;
		if (ops->count_tier && !(rc = ops->count_tier(g, t, raw, cls)) &&
		    mpz_sizeinbase(cls, 2) <= 63 && mpz_cmp_ui(cls, sz) < 0)
			c = (uint64_t)mpz_get_ui(cls);
		out->indices += sz;
		out->classes += c;
		bits += 2 * bp_solve_pages(8 * (sz / 64 + 1));
	}
	mpz_clear(raw);
	mpz_clear(cls);
	if (rc)
		return bp_err_set(err, rc, "%s: counting its positions: %s", g->spec,
				  bp_strerror(rc));
	int t = threads > 0 ? threads : 1;
	if (!counter) {
		out->enforced = out->high = cyc;
		out->low = bits + bp_solve_base_memory(g);
	} else {
		out->low = out->enforced;
		uint64_t n = out->classes, most = g->max_moves > 0 ? (uint64_t)g->max_moves : 1;
		out->high = n > UINT64_MAX / 16 / most
				    ? UINT64_MAX
				    : bp_solve_counter_need(out->indices, n, n * most, n, t);
	}
	if (!count)
		return BP_OK;
	struct bp_solve_opts o = { .threads = t, .memory_limit = memory_limit };
	struct bp_counter_count c;
	uint64_t *reach = NULL;
	if ((rc = bp_solve_counter_count(g, &o, &c, counter ? NULL : &reach, err)))
		return rc;
	out->counted = 1;
	out->positions = c.positions;
	out->edges = c.edges;
	out->count_seconds = c.seconds;
	if (counter) {
		out->low = out->high = c.need;
		return BP_OK;
	}
	uint64_t touched = cycles_pages(g, reach);
	free(reach);
	out->low = out->high = touched * PAGE + bp_solve_base_memory(g);
	return BP_OK;
}
