/* SPDX-License-Identifier: MIT */
#include "solver/solve_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "solver/parallel.h"
#include "solver/probe.h"
#include "store/codec.h" /* BP_CODEC_MODEL_LEVEL */

double bp_solve_clock(void)
{
	return bp_parallel_clock();
}

uint64_t bp_solve_peak_memory(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_maxrss * 1024;
}

int bp_solve_plan(const struct bp_game *g, int (*estimate)(const struct bp_game *, uint64_t *),
		  const struct bp_solve_opts *o, uint64_t *need, struct bp_err *err)
{
	return bp_solve_plan_check(g, estimate(g, need), o, need, err);
}

int bp_solve_plan_check(const struct bp_game *g, int rc, const struct bp_solve_opts *o,
			uint64_t *need, struct bp_err *err)
{
	if (rc == BP_EUNSUPPORTED)
		return bp_err_set(err, rc, "%s cannot be solved: the game has no dense ranking",
				  g->spec);
	if (rc)
		return bp_err_set(err, rc, "%s: its index space is too large to solve", g->spec);
	/* split across ranks, a rank holds 1/nranks of what the estimate counts beyond its
	 * fixed base (both splitting engines' estimates add it) */
	uint64_t fixed = bp_solve_base_memory(g);
	if (o->dist && o->dist->nranks > 1 && *need > fixed)
		*need = fixed +
			(*need - fixed + (uint64_t)o->dist->nranks - 1) / (uint64_t)o->dist->nranks;
	if (!o->memory_limit || *need <= o->memory_limit)
		return BP_OK;
	char nbuf[32], lbuf[32];
	return bp_err_set(err, BP_ERANGE, "%s needs about %s, more than the memory limit of %s",
			  g->spec, bp_text_bytes(*need, nbuf, sizeof nbuf),
			  bp_text_bytes(o->memory_limit, lbuf, sizeof lbuf));
}

struct bp_move **bp_solve_move_buffers(const struct bp_game *g, int threads)
{
	struct bp_move **mv = calloc((size_t)threads, sizeof *mv);
	for (int i = 0; mv && i < threads; i++)
		if (!(mv[i] = bp_game_move_buffer(g))) {
			bp_solve_free_move_buffers(mv, threads);
			return NULL;
		}
	return mv;
}

void bp_solve_free_move_buffers(struct bp_move **mv, int threads)
{
	if (mv)
		for (int i = 0; i < threads; i++)
			free(mv[i]);
	free(mv);
}

/* The indices a block holds at an archival level for a game whose dense index has
 * structural holes. Such blocks store no bit for a hole, but each block still costs
 * its header and its coder's start: blocks of 16384 indices of which 1% are
 * positions (blooms:tri4) cost 5.9 bits a position where blocks of 1 << 20 cost 0.7.
 * The coder's start is its learning, about 10,000 bits a block on the table below
 * (its match model begins with no history, its contexts even; value contexts that
 * start from a coarser one's counts took only 1% off, so it is mostly the matches
 * that a longer block finds): with 16384 positions a block landscape:hex3,neutrals=5,layout=a2;b1;c3;c5;d1
 * stored 1.22 bits a position, with four times as many 0.94 (glorieta:rh3x4 hand 2
 * 0.46 -> 0.38, taifas:4x4 0.55 -> 0.52, havannah:hex3 1.72 -> 1.67), for cold probes
 * 2 to 4 times slower (bench_codec's probe_decode_us). So a block gets about
 * ARCHIVAL_POSITIONS valid positions: their density is the
 * mask's, sampled on up to ARCHIVAL_SAMPLES blocks of 16384 spread evenly over each
 * tier; the size is a power of two from 16384 to ARCHIVAL_MOST. The price is on cold
 * reads, which decode a whole block and compute its mask, and in the store's cache of
 * decoded blocks (32 a table: 64 MB at ARCHIVAL_MOST). @return the records a
 * block, or 0 (the store's default): no mask, or sizes that are not the game's dense
 * index (NULL sizes: the game's). */
_Static_assert(BP_SOLVE_ARCHIVAL_LEVEL == BP_CODEC_MODEL_LEVEL, "the solver's archival level");
#define STORE_BLOCK 16384u /* the store's default block (store/store.c) */
#define ARCHIVAL_POSITIONS 65536u
#define ARCHIVAL_SAMPLES 16u
#define ARCHIVAL_MOST (1u << 20)
static uint32_t archival_block_records(const struct bp_game *g, const uint64_t *sizes)
{
	uint64_t bits[STORE_BLOCK / 64];
	double indices = 0, valid = 0;
	if (!g->ops->canonical_mask || !g->ops->tier_size)
		return 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t size, seen = 0, set = 0;
		if (g->ops->tier_size(g, t, &size) != BP_OK || (sizes && size != sizes[t]))
			return 0; /* not the dense index */
		if (size == 0)
			continue;
		const uint32_t n = size < STORE_BLOCK ? (uint32_t)size : STORE_BLOCK;
		uint64_t k = (size + STORE_BLOCK - 1) / STORE_BLOCK;
		k = k < ARCHIVAL_SAMPLES ? k : ARCHIVAL_SAMPLES;
		for (uint64_t j = 0; j < k; j++) {
			const uint64_t first = k > 1 ? (size - n) / (k - 1) * j : 0;
			if (g->ops->canonical_mask(g, t, first, n, bits) != BP_OK)
				return 0;
			for (uint32_t w = 0; w < (n + 63) / 64; w++)
				set += (uint64_t)__builtin_popcountll(bits[w]);
			seen += n;
		}
		indices += (double)size;
		valid += (double)size * (double)set / (double)seen;
	}
	uint32_t b = STORE_BLOCK;
	while (b < ARCHIVAL_MOST && valid * b < indices * ARCHIVAL_POSITIONS)
		b *= 2;
	return b;
}

/* What a worker's coders take for each record of a block beyond the default's (zstd's
 * match tables and the model coding's grow with the block): measured on blooms:rh2x4
 * at --level 10, 20 MB a worker with blocks of 1 << 20, 13 MB with 1 << 19. */
#define CODER_BYTES_PER_RECORD 20u

uint64_t bp_solve_coder_bytes(const struct bp_game *g, const struct bp_solve_opts *o)
{
	uint64_t b = o->block_records;
	if (!b && o->compression_level >= BP_CODEC_MODEL_LEVEL)
		b = archival_block_records(g, NULL);
	if (b <= STORE_BLOCK)
		return 0;
	int threads = o->threads > 0 ? o->threads : bp_parallel_cores();
	return (uint64_t)threads * CODER_BYTES_PER_RECORD * (b - STORE_BLOCK);
}

/* The table's write progress (bp_table_set_put_progress), ctx the solve's options: a
 * tick of phase 3 every tick_seconds at most. The writes come from one thread. */
static void put_tick(void *ctx, uint32_t tier, uint64_t done, uint64_t total)
{
	static _Thread_local double next;
	const struct bp_solve_opts *o = ctx;
	double now = bp_solve_clock();
	if (now < next)
		return;
	next = now + (o->tick_seconds > 0 ? o->tick_seconds : 0.25);
	struct bp_solve_tick t = { .phase = 3,
				   .tier = tier,
				   .tier_done = done,
				   .tier_total = total,
				   .phase_done = done,
				   .phase_total = total,
				   .seconds = now };
	o->tick(o->ctx, &t);
}

int bp_solve_open_table(const struct bp_game *g, bp_store *db, const uint64_t *sizes,
			const struct bp_solve_opts *o, int writer, bp_table **out,
			struct bp_err *err)
{
	struct bp_table_info info = { .rules_version = BP_RULES_VERSION,
				      .ntiers = g->ntiers,
				      .tier_size = sizes,
				      .block_records = o->block_records,
				      .compression_level = o->compression_level };
	if (!o->block_records && o->compression_level >= BP_CODEC_MODEL_LEVEL && writer) {
		/* a table begun before keeps its blocks (a resumed solve) */
		bp_table *old;
		struct bp_table_meta m;
		if (bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &old, NULL) == BP_OK) {
			if (bp_table_meta_get(old, &m) == BP_OK)
				info.block_records = m.block_records;
			bp_table_close(old);
		} else {
			info.block_records = archival_block_records(g, sizes);
		}
	}
	snprintf(info.spec, sizeof info.spec, "%s", g->spec);
	int rc = bp_table_open(db, g->spec, &info, writer ? BP_STORE_CREATE : 0, out, err);
	if (rc)
		return rc;
	/* the solver's threads also encode each finished tier's blocks */
	bp_table_set_threads(*out, o->threads > 0 ? o->threads : bp_parallel_cores());
	/* the dense index's holes cost no stored bits (a table of reachable positions, whose
	 * sizes are not the dense ones, gets none) */
	if (writer && o->tick)
		bp_table_set_put_progress(*out, put_tick, (void *)o);
	if (o->foretell_wins && writer)
		bp_probe_foretell_wins(*out, g);
	else
		bp_probe_set_holes(*out, g);
	return BP_OK;
}

int bp_solve_finish(bp_table *tab, uint16_t start_record, struct bp_solve_result *out)
{
	struct bp_table_meta meta;
	out->value = bp_record_value(start_record);
	out->remoteness = bp_record_remoteness(start_record);
	out->positions = out->counts[1] + out->counts[2] + out->counts[3];
	int rc = bp_table_meta_get(tab, &meta);
	if (rc == BP_OK)
		out->stored_bytes = meta.stored_bytes;
	return rc;
}

int bp_solve_if_stored(bp_table *tab, uint32_t ntiers, uint32_t st, uint64_t sidx,
		       struct bp_solve_result *out, int *done)
{
	struct bp_table_meta meta;
	int rc = bp_table_meta_get(tab, &meta);
	*done = 0;
	if (rc)
		return rc;
	for (uint32_t t = 0; t < ntiers; t++)
		if (!meta.tier_done[t])
			return BP_OK;
	for (uint32_t t = 0; t < ntiers; t++)
		for (int v = 1; v < 4; v++)
			out->counts[v] += meta.tier_count[(size_t)t * 4 + v];
	out->resumed_tiers = ntiers;
	uint16_t r = 0;
	if ((rc = bp_table_get(tab, st, sidx, &r)) || (rc = bp_solve_finish(tab, r, out)))
		return rc;
	*done = 1;
	return BP_OK;
}

int bp_solve_start(const struct bp_game *g, uint32_t *tier, uint64_t *index)
{
	struct bp_pos start, canon;
	g->ops->start(g, &start);
	bp_game_canonical(g, &start, &canon);
	*tier = g->ops->tier(g, &canon);
	return g->ops->rank(g, &canon, index);
}

void bp_solve_add_counts(const uint64_t count[4], struct bp_solve_result *out,
			 struct bp_solve_progress *pr)
{
	for (int v = 1; v < 4; v++) {
		out->counts[v] += count[v];
		pr->positions += count[v];
	}
}

/* put_tier with the records from rec or, when fill is not NULL, from fill. */
static int put_tier(const struct bp_game *g, bp_table *tab, uint32_t t, const uint16_t *rec,
		    int (*fill)(void *ctx, uint64_t first, uint64_t n, uint16_t *dst),
		    void *fill_ctx, int threads, double seconds, const struct bp_solve_result *out,
		    char *errmsg, size_t errlen)
{
	char extra[128];
	int failed = bp_game_status(g);
	if (failed) {
		snprintf(errmsg, errlen, "solving tier %u: a rule failed: %s", t,
			 bp_strerror(failed));
		return failed;
	}
	snprintf(extra, sizeof extra, "threads=%d\nmemory_estimate=%llu\n", threads,
		 (unsigned long long)out->memory_estimate);
	int rc = !fill ? bp_table_put_tier(tab, t, rec, seconds, bp_solve_peak_memory(), extra)
		       : bp_table_put_tier_fill(tab, t, fill, fill_ctx, seconds,
						bp_solve_peak_memory(), extra);
	if (rc)
		bp_solve_write_error(tab, t, rc, errmsg, errlen);
	return rc;
}

void bp_solve_write_error(bp_table *tab, uint32_t t, int rc, char *errmsg, size_t errlen)
{
	const char *why = bp_table_why(tab);
	snprintf(errmsg, errlen, "writing tier %u: %s", t, *why ? why : bp_strerror(rc));
}

int bp_solve_put_tier(const struct bp_game *g, bp_table *tab, uint32_t t, const uint16_t *rec,
		      int threads, double seconds, const struct bp_solve_result *out, char *errmsg,
		      size_t errlen)
{
	return put_tier(g, tab, t, rec, NULL, NULL, threads, seconds, out, errmsg, errlen);
}

int bp_solve_put_tier_fill(const struct bp_game *g, bp_table *tab, uint32_t t,
			   int (*fill)(void *ctx, uint64_t first, uint64_t n, uint16_t *dst),
			   void *ctx, int threads, double seconds,
			   const struct bp_solve_result *out, char *errmsg, size_t errlen)
{
	return put_tier(g, tab, t, NULL, fill, ctx, threads, seconds, out, errmsg, errlen);
}

static uint64_t ns_of(double seconds)
{
	return (uint64_t)(seconds * 1e9);
}

static int metered_item(void *ctx, int worker, uint64_t item)
{
	struct bp_solve_meter *m = ctx;
	const struct bp_solve_opts *o = m->o;
	if (o->cancel && o->cancel(o->ctx))
		return BP_ECANCELED;
	int rc = m->fn(m->ctx, worker, item);
	uint64_t n = m->item_indices, total = m->tick.tier_total;
	if ((item + 1) * n > total)
		n = total > item * n ? total - item * n : 0;
	__atomic_fetch_add(&m->tier_done, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&m->phase_done, n, __ATOMIC_RELAXED);
	if (rc || !o->tick)
		return rc;
	double now = bp_solve_clock();
	if (ns_of(now) < __atomic_load_n(&m->next_ns, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&m->busy, 1, __ATOMIC_ACQUIRE))
		return rc;
	/* another worker may have ticked in between */
	if (ns_of(now) >= __atomic_load_n(&m->next_ns, __ATOMIC_RELAXED)) {
		struct bp_solve_tick t = m->tick;
		t.tier_done = __atomic_load_n(&m->tier_done, __ATOMIC_RELAXED);
		t.phase_done = __atomic_load_n(&m->phase_done, __ATOMIC_RELAXED);
		t.phase_total = m->phase_total;
		t.seconds = now - m->t0;
		o->tick(o->ctx, &t);
		double every = o->tick_seconds > 0 ? o->tick_seconds : 0.25;
		__atomic_store_n(&m->next_ns, ns_of(now + every), __ATOMIC_RELAXED);
	}
	__atomic_store_n(&m->busy, 0, __ATOMIC_RELEASE);
	return rc;
}

int bp_solve_metered(struct bp_solve_meter *m, int phase, uint32_t tier, uint32_t ntiers,
		     int threads, uint64_t nitems, uint64_t item_indices, uint64_t tier_total,
		     int (*fn)(void *ctx, int worker, uint64_t item), void *ctx)
{
	if (!m->o->tick && !m->o->cancel) {
		m->phase_done += tier_total;
		return bp_parallel_for(threads, nitems, fn, ctx);
	}
	/* a tier worked in rounds (split across ranks) goes on counting */
	if (!m->keep)
		m->tier_done = 0;
	m->keep = 0;
	m->tick = (struct bp_solve_tick){
		.phase = phase, .tier = tier, .ntiers = ntiers, .tier_total = tier_total
	};
	m->item_indices = item_indices;
	m->fn = fn;
	m->ctx = ctx;
	if (m->next_ns == 0)
		m->next_ns = ns_of(bp_solve_clock() +
				   (m->o->tick_seconds > 0 ? m->o->tick_seconds : 0.25));
	return bp_parallel_for(threads, nitems, metered_item, m);
}
