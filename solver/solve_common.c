/* SPDX-License-Identifier: MIT */
#include "solver/solve_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "solver/parallel.h"

double bp_solve_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
	int rc = estimate(g, need);
	if (rc == BP_EUNSUPPORTED)
		return bp_err_set(err, rc, "%s cannot be solved: the game has no dense ranking",
				  g->spec);
	if (rc)
		return bp_err_set(err, rc, "%s: its index space is too large to solve", g->spec);
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

int bp_solve_open_table(const struct bp_game *g, bp_store *db, const uint64_t *sizes,
			const struct bp_solve_opts *o, bp_table **out, struct bp_err *err)
{
	struct bp_table_info info = { .rules_version = BP_RULES_VERSION,
				      .ntiers = g->ntiers,
				      .tier_size = sizes,
				      .block_records = o->block_records,
				      .compression_level = o->compression_level };
	snprintf(info.spec, sizeof info.spec, "%s", g->spec);
	int rc = bp_table_open(db, g->spec, &info, BP_STORE_CREATE, out, err);
	if (rc)
		return rc;
	/* the solver's threads also encode each finished tier's blocks */
	bp_table_set_threads(*out, o->threads > 0 ? o->threads : bp_parallel_cores());
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

int bp_solve_put_tier(const struct bp_game *g, bp_table *tab, uint32_t t, const uint16_t *rec,
		      int threads, double seconds, const struct bp_solve_result *out, char *errmsg,
		      size_t errlen)
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
	int rc = bp_table_put_tier(tab, t, rec, seconds, bp_solve_peak_memory(), extra);
	if (rc)
		snprintf(errmsg, errlen, "writing tier %u: %s", t, bp_strerror(rc));
	return rc;
}
