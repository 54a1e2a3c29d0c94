/* SPDX-License-Identifier: MIT */
/* boardproof plan GAME: what a tiered solve split across ranks would need, per tier,
 * from the exact tier sizes, before running it (see solver/plan.h for the model). */
#include <stdlib.h>
#include <string.h>

#include "solver/plan.h"
#include "solver/solve.h"
#include "tools/cli.h"
#include "tools/commands.h"

/* Measured defaults (README, Results): taifas:4x5 stored 0.913 bits per position, and
 * its walk solved 1,743,189,611 positions in 101 s on 2 cores: 17.3 M/s, 8.65 M/s per
 * core. The tiered engine canonicalizes every child and is slower: the estimate is a
 * lower bound for it. */
#define DEFAULT_BITS 0.913
#define DEFAULT_RATE 8.65e6

static int parse_positive(const char *text, double max, double *out)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || *end || !(v > 0) || v > max)
		return -1;
	*out = v;
	return 0;
}

static const char *duration(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 2 * 3600)
		snprintf(buf, len, "%.1f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.1f d", s / 86400);
	return buf;
}

/* The plan of the counter or cycles engine (what solve runs for a game that repeats):
 * one process, a range where the peak is not known before running. */
static int plan_graph(const char *cmd, const struct bp_game *g, int counter, int count,
		      const struct bp_plan_opts *o, int json)
{
	struct bp_plan_graph p;
	struct bp_err err = { { 0 } };
	int prc = bp_plan_graph(g, counter, count, o->threads, o->memory_per_rank, &p, &err);
	if (prc) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(prc));
		return prc == BP_EUNSUPPORTED ? BP_EXIT_USAGE : bp_cli_exit_code(prc);
	}
	const char *name = counter ? "counter" : "cycles";
	uint64_t lim = o->memory_per_rank;
	/* 1 fits, 0 does not, -1 cannot tell before running */
	int fits = !lim || p.high <= lim ? 1 : p.low > lim ? 0 : -1;
	/* the engine refuses up front what its own up-front figure passes */
	if (lim && p.enforced > lim)
		fits = 0;
	int exact = p.low == p.high;
	char b1[32], b2[32], b3[32];
	if (json) {
		printf("{\"instance\": \"%s\", \"solver\": \"%s\", \"ranks\": 1, "
		       "\"threads\": %d, \"memory_per_rank\": %llu, \"indices\": %llu, "
		       "\"positions_up_to_symmetry\": %llu, \"exact_positions\": %s, "
		       "\"counted\": %s, ",
		       g->spec, name, o->threads, (unsigned long long)lim,
		       (unsigned long long)p.indices, (unsigned long long)p.classes,
		       p.exact_classes ? "true" : "false", p.counted ? "true" : "false");
		if (p.counted)
			printf("\"reachable_positions\": %llu, \"edges\": %llu, "
			       "\"count_seconds\": %.3f, ",
			       (unsigned long long)p.positions, (unsigned long long)p.edges,
			       p.count_seconds);
		else
			printf("\"reachable_positions\": null, ");
		if (exact)
			printf("\"peak_memory_per_rank\": %llu, ", (unsigned long long)p.low);
		else
			printf("\"peak_memory_per_rank\": null, ");
		printf("\"peak_memory_low\": %llu, \"peak_memory_high\": %llu, "
		       "\"memory_checked_up_front\": %llu, \"fits\": %s}\n",
		       (unsigned long long)p.low, (unsigned long long)p.high,
		       (unsigned long long)p.enforced,
		       fits < 0 ? "null"
		       : fits	? "true"
				: "false");
	} else {
		printf("%s, %s engine, in one process x %d thread%s, %s\n", g->spec, name,
		       o->threads, o->threads == 1 ? "" : "s",
		       lim ? bp_text_bytes(lim, b1, sizeof b1) : "no memory limit");
		printf("index space: %llu indices, %llu positions %s\n",
		       (unsigned long long)p.indices, (unsigned long long)p.classes,
		       p.exact_classes ? "up to symmetry"
				       : "(indices: the game has no exact count)");
		if (p.counted)
			printf("reachable: %llu positions, %llu moves between them (counted by the "
			       "counter engine's marking step in %.1f s)\n",
			       (unsigned long long)p.positions, (unsigned long long)p.edges,
			       p.count_seconds);
		else
			printf("reachable: not known before running (--count runs the counter "
			       "engine's marking step to count them)\n");
		if (exact)
			printf("peak memory: %s (%s)\n", bp_text_bytes(p.low, b1, sizeof b1),
			       counter ? "the engine's own plan from the counts"
				       : "the pages of records and bits that reachable positions "
					 "touch");
		else if (counter)
			printf("peak memory: between %s (the bitmap over the index space) and %s "
			       "(every position reachable, each with the most moves); not narrowed "
			       "without --count\n",
			       bp_text_bytes(p.low, b1, sizeof b1),
			       bp_text_bytes(p.high, b2, sizeof b2));
		else
			printf("peak memory: between %s (two bitmaps over the index space) and %s "
			       "(records for every index, what the engine checks up front); where "
			       "depends on which pages of records reachable positions touch\n",
			       bp_text_bytes(p.low, b1, sizeof b1),
			       bp_text_bytes(p.high, b2, sizeof b2));
		printf("memory checked up front: %s%s\n", bp_text_bytes(p.enforced, b3, sizeof b3),
		       counter ? "; then while marking, and with the exact counts after it" : "");
		if (lim)
			printf("fits: %s\n", fits < 0 ? "cannot tell before running"
					     : fits   ? "yes"
						      : "no");
	}
	if (!fits) {
		if (p.enforced > lim) /* refused before any work */
			bp_cli_error(cmd, "%s: the %s engine checks %s up front, more than %s",
				     g->spec, name, bp_text_bytes(p.enforced, b1, sizeof b1),
				     bp_text_bytes(lim, b2, sizeof b2));
		else
			bp_cli_error(cmd, "%s: the %s engine needs %s%s, more than %s", g->spec,
				     name, exact ? "" : "at least ",
				     bp_text_bytes(p.low, b1, sizeof b1),
				     bp_text_bytes(lim, b2, sizeof b2));
		return BP_EXIT_USAGE;
	}
	return 0;
}

int bp_cmd_plan(int argc, char **argv)
{
	const char *cmd = "plan";
	static const char *const valued[] = {
		"ranks", "memory-per-rank", "threads", "bits-per-position", "rate", "solver", NULL
	};
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	int count = bp_cli_take_flag(&argc, argv, "--count");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof plan --help)");
		return BP_EXIT_USAGE;
	}
	struct bp_plan_opts o = { .ranks = 1,
				  .threads = 1,
				  .bits_per_position = DEFAULT_BITS,
				  .rate_per_core = DEFAULT_RATE };
	double v;
	if (a.opt[0]) {
		if (parse_positive(a.opt[0], 1 << 20, &v) || v != (double)(int)v) {
			bp_cli_error(cmd, "bad --ranks '%s' (1 to 1048576)", a.opt[0]);
			return BP_EXIT_USAGE;
		}
		o.ranks = (int)v;
	}
	if (a.opt[1] && (bp_cli_parse_bytes(a.opt[1], &o.memory_per_rank) || !o.memory_per_rank)) {
		bp_cli_error(cmd,
			     "bad --memory-per-rank '%s' (bytes, or a number with K, M, G or T)",
			     a.opt[1]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[2] && (rc = bp_cli_threads(cmd, a.opt[2], &o.threads)))
		return rc;
	if (a.opt[3] && parse_positive(a.opt[3], 64, &o.bits_per_position)) {
		bp_cli_error(cmd, "bad --bits-per-position '%s' (above 0, at most 64)", a.opt[3]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[4] && parse_positive(a.opt[4], 1e12, &o.rate_per_core)) {
		bp_cli_error(cmd, "bad --rate '%s' (positions per second per thread, above 0)",
			     a.opt[4]);
		return BP_EXIT_USAGE;
	}
	const char *solver = a.opt[5] ? a.opt[5] : "auto";
	if (strcmp(solver, "auto") && strcmp(solver, "walk") && strcmp(solver, "tiers") &&
	    strcmp(solver, "counter") && strcmp(solver, "cycles")) {
		bp_cli_error(cmd, "bad --solver '%s' (auto, walk, tiers, counter or cycles)",
			     solver);
		return BP_EXIT_USAGE;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
		return rc;
	int cyclic = (g->ops->flags & BP_GAME_CYCLIC) != 0;
	int graph = !strcmp(solver, "counter") || !strcmp(solver, "cycles") ||
		    (cyclic && !strcmp(solver, "auto"));
	if (cyclic && !graph) {
		bp_cli_error(cmd,
			     "%s can repeat positions: the %s engine cannot solve it (plan "
			     "the counter or cycles engine)",
			     g->spec, solver);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (graph && o.ranks > 1) {
		bp_cli_error(cmd, "only the tiers and walk engines solve across ranks%s",
			     cyclic ? " (and they cannot solve a game that repeats)" : "");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (count && !graph) {
		bp_cli_error(cmd, "--count counts the reachable graph of the counter or cycles "
				  "engine only");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (graph) {
		/* auto for a game that repeats: what solve runs, the counter engine */
		rc = plan_graph(cmd, g, strcmp(solver, "cycles") != 0, count, &o, a.json);
		goto out;
	}
	/* auto: what solve --mpi runs, the walk where the game has one */
	o.walk = !strcmp(solver, "walk") || (!strcmp(solver, "auto") && g->ops->tier_walk);
	struct bp_plan p;
	struct bp_err err = { { 0 } };
	int prc = bp_plan_tiers(g, &o, &p, &err);
	if (prc) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(prc));
		rc = prc == BP_EUNSUPPORTED ? BP_EXIT_USAGE : bp_cli_exit_code(prc);
		goto out;
	}
	int fits = !p.too_large && (!o.memory_per_rank || p.mem <= o.memory_per_rank);
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	if (a.json) {
		printf("{\"instance\": \"%s\", \"solver\": \"%s\", \"ranks\": %d, \"threads\": %d, "
		       "\"memory_per_rank\": %llu, \"bits_per_position\": %.4f, "
		       "\"rate_per_thread\": %.0f, \"exact_positions\": %s, \"tiers\": [",
		       g->spec, o.walk ? "walk" : "tiers", o.ranks, o.threads,
		       (unsigned long long)o.memory_per_rank, o.bits_per_position, o.rate_per_core,
		       p.exact_classes ? "true" : "false");
		for (uint32_t t = 0; t < p.ntiers; t++) {
			const struct bp_plan_tier *pt = &p.tier[t];
			if (pt->too_large) {
				printf("%s{\"tier\": %u, \"too_large\": true}", t ? ", " : "", t);
				continue;
			}
			printf("%s{\"tier\": %u, \"records\": %llu, \"positions\": %llu, "
			       "\"children_per_position\": %.2f, \"memory_per_rank\": %llu, "
			       "\"memory_one_process\": %llu, \"sent\": %llu, \"received\": %llu, "
			       "\"writer_received\": %llu, \"disk\": %llu, "
			       "\"estimated_seconds\": %.3f}",
			       t ? ", " : "", t, (unsigned long long)pt->records,
			       (unsigned long long)pt->classes, pt->children,
			       (unsigned long long)pt->mem, (unsigned long long)pt->mem_one,
			       (unsigned long long)pt->sent, (unsigned long long)pt->received,
			       (unsigned long long)pt->writer_received,
			       (unsigned long long)pt->disk, pt->seconds);
		}
		printf("], \"records\": %llu, \"positions\": %llu, \"children_sampled\": %s, "
		       "\"peak_memory_per_rank\": %llu, \"peak_tier\": %u, "
		       "\"peak_memory_one_process\": %llu, \"sent\": %llu, "
		       "\"received\": %llu, \"writer_received\": %llu, \"disk\": %llu, "
		       "\"estimated_seconds\": %.3f, \"fits\": %s}\n",
		       (unsigned long long)p.records, (unsigned long long)p.classes,
		       p.sampled ? "true" : "false", (unsigned long long)p.mem, p.peak_tier,
		       (unsigned long long)p.mem_one, (unsigned long long)p.sent,
		       (unsigned long long)p.received, (unsigned long long)p.writer_received,
		       (unsigned long long)p.disk, p.seconds, fits ? "true" : "false");
	} else {
		printf("%s, %s engine, on %d rank%s x %d thread%s, %s per rank\n", g->spec,
		       o.walk ? "walk" : "tiers", o.ranks, o.ranks == 1 ? "" : "s", o.threads,
		       o.threads == 1 ? "" : "s",
		       o.memory_per_rank ? bp_text_bytes(o.memory_per_rank, b1, sizeof b1)
					 : "no memory limit");
		printf("positions %s: %s\n",
		       p.exact_classes ? "up to symmetry"
				       : "(indices: an upper bound; the game has no exact count)",
		       "per tier below");
		printf("%-4s %18s %18s %8s %11s %11s %11s %11s %10s\n", "tier", "records",
		       "positions", "children", "mem/rank", "sent", "received", "disk", "time");
		for (uint32_t t = 0; t < p.ntiers; t++) {
			const struct bp_plan_tier *pt = &p.tier[t];
			if (pt->too_large) {
				printf("%-4u %20s  (index space over 2^60: cannot be stored)\n", t,
				       "too large");
				continue;
			}
			printf("%-4u %18llu %18llu %8.2f %11s %11s %11s %11s %10s\n", t,
			       (unsigned long long)pt->records, (unsigned long long)pt->classes,
			       pt->children, bp_text_bytes(pt->mem, b1, sizeof b1),
			       bp_text_bytes(pt->sent, b2, sizeof b2),
			       bp_text_bytes(pt->received, b3, sizeof b3),
			       bp_text_bytes(pt->disk, b4, sizeof b4),
			       duration(pt->seconds, b5, sizeof b5));
		}
		printf("total: %llu records, %llu positions\n", (unsigned long long)p.records,
		       (unsigned long long)p.classes);
		printf("children: %s\n",
		       p.sampled ? "per position, averaged over canonical positions sampled "
				   "from each tier"
				 : "the game's most moves (it cannot unrank: an upper bound)");
		printf("memory per rank: %s at tier %u (each rank holds its slice of every "
		       "tier); %s in one process\n",
		       bp_text_bytes(p.mem, b1, sizeof b1), p.peak_tier,
		       bp_text_bytes(p.mem_one, b2, sizeof b2));
		printf("exchange per rank: %s sent and %s received over the solve; rank 0, the "
		       "writer, receives %s\n",
		       bp_text_bytes(p.sent, b1, sizeof b1),
		       bp_text_bytes(p.received, b2, sizeof b2),
		       bp_text_bytes(p.writer_received, b3, sizeof b3));
		printf("disk: %s at %.3f bits per position\n", bp_text_bytes(p.disk, b1, sizeof b1),
		       o.bits_per_position);
		printf("time: %s at %.3g positions per second per thread, %d thread%s in all\n",
		       duration(p.seconds, b1, sizeof b1), o.rate_per_core, o.ranks * o.threads,
		       o.ranks * o.threads == 1 ? "" : "s");
		if (o.memory_per_rank)
			printf("fits: %s\n", fits ? "yes" : "no");
	}
	if (p.too_large && bp_solve_sparse_wanted(g)) {
		bp_cli_error(
			cmd,
			"%s: %u tiers have more than 2^60 dense indices: solve indexes it by "
			"its reachable positions only (solve --index sparse: enumerated "
			"first, in one process, never split across ranks), whose number only "
			"that enumeration tells: count %s counts them tier by tier (by keys, "
			"the tiers on disk), solve --progress prints it; where the keys do not "
			"fit in memory, solve --spill DIR keeps the tiers on disk; this plan "
			"cannot size it",
			g->spec, p.too_large, g->spec);
		rc = BP_EXIT_USAGE;
	} else if (p.too_large) {
		bp_cli_error(cmd,
			     "%s: %u tiers have more than 2^60 indices: the dense tables cannot "
			     "hold them (the totals above leave them out)",
			     g->spec, p.too_large);
		rc = BP_EXIT_USAGE;
	} else if (!fits) {
		bp_cli_error(cmd, "%s: a rank's share needs %s at tier %u, more than %s per rank",
			     g->spec, bp_text_bytes(p.mem, b1, sizeof b1), p.peak_tier,
			     bp_text_bytes(o.memory_per_rank, b2, sizeof b2));
		rc = BP_EXIT_USAGE;
	}
	bp_plan_free(&p);
out:
	bp_game_destroy(g);
	return rc;
}
