/* SPDX-License-Identifier: MIT */
/* boardproof count GAME [--method M] [--memory BYTES]: reachable positions per tier,
 * raw and up to symmetry, exactly. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/enumerate.h"
#include "solver/reach.h"
#include "tools/cli.h"
#include "tools/commands.h"

struct count_progress {
	int on;
	double t0;
	int tty, open; /* by keys: stderr is a terminal; a tick line is showing */
};

static void report_tier(void *ctx, uint32_t tier, uint64_t raw, uint64_t classes)
{
	struct count_progress *cp = ctx;
	if (cp->on)
		fprintf(stderr, "count: tier %u done: %llu positions, %llu classes (%.1f s)\n",
			tier, (unsigned long long)raw, (unsigned long long)classes,
			bp_cli_now() - cp->t0);
}

static void print_row(int json, int first, uint32_t tier, const mpz_t raw, const mpz_t classes)
{
	char *r = mpz_get_str(NULL, 10, raw), *c = mpz_get_str(NULL, 10, classes);
	if (json)
		printf("%s{\"tier\": %u, \"positions\": %s, \"classes\": %s}", first ? "" : ", ",
		       tier, r, c);
	else
		printf("%-6u %30s %30s\n", tier, r, c);
	free(r);
	free(c);
}

static void report_depth(void *ctx, uint32_t depth, uint64_t raw, uint64_t classes)
{
	struct count_progress *cp = ctx;
	if (cp->on)
		fprintf(stderr, "count: depth %u done: %llu positions, %llu classes (%.1f s)\n",
			depth, (unsigned long long)raw, (unsigned long long)classes,
			bp_cli_now() - cp->t0);
}

/* The per-depth or per-tier table of count_reach and count_keys: a header, one row per
 * level (JSON: {"UNIT": i, "positions", "classes", "LAST"}) and the totals (JSON: the
 * members after the list, left open for more). */
struct three {
	const char *spec, *method, *how; /* the instance; JSON's method; the text's heading */
	const char *unit, *last;	 /* "depth"/"tier"; "terminal"/"over" */
	uint32_t n;
	const uint64_t *positions, *classes, *lastv;
};

static void print_three(int json, const struct three *x)
{
	uint64_t tp = 0, tc = 0, tl = 0;
	if (json)
		printf("{\"instance\": \"%s\", \"method\": \"%s\", \"%ss\": [", x->spec, x->method,
		       x->unit);
	else
		printf("%s: reachable positions (%s)\n%-6s %24s %24s %16s\n", x->spec, x->how,
		       x->unit, "positions", "up to symmetry", x->last);
	for (uint32_t i = 0; i < x->n; i++) {
		if (json)
			printf("%s{\"%s\": %u, \"positions\": %llu, \"classes\": %llu, \"%s\": "
			       "%llu}",
			       i ? ", " : "", x->unit, i, (unsigned long long)x->positions[i],
			       (unsigned long long)x->classes[i], x->last,
			       (unsigned long long)x->lastv[i]);
		else
			printf("%-6u %24llu %24llu %16llu\n", i,
			       (unsigned long long)x->positions[i],
			       (unsigned long long)x->classes[i], (unsigned long long)x->lastv[i]);
		tp += x->positions[i];
		tc += x->classes[i];
		tl += x->lastv[i];
	}
	if (json)
		printf("], \"positions\": %llu, \"classes\": %llu, \"%s\": %llu",
		       (unsigned long long)tp, (unsigned long long)tc, x->last,
		       (unsigned long long)tl);
	else
		printf("%-6s %24llu %24llu %16llu\n", "total", (unsigned long long)tp,
		       (unsigned long long)tc, (unsigned long long)tl);
}

/* Games without tiers, or whose moves do not raise the tier (cyclic ones): breadth-first
 * over a hash set, per depth (the fewest turns that reach a position), with the
 * terminal positions counted apart. */
static int count_reach(const char *cmd, const struct bp_game *g, const struct bp_cli_args *a,
		       uint64_t max_bytes)
{
	struct bp_reach_counts rc = { 0 };
	struct count_progress cp = { a->progress || isatty(2), bp_cli_now(), 0, 0 };
	int err = bp_reach(g, max_bytes, report_depth, &cp, &rc);
	if (err) {
		if (err == BP_ERANGE)
			bp_cli_error(cmd,
				     "%s: gave up: the reachable set passed --memory %llu bytes "
				     "(or 2^32 positions) before it was complete",
				     g->spec, (unsigned long long)max_bytes);
		else
			bp_cli_error(cmd, "%s", bp_strerror(err));
		return err == BP_ERANGE ? BP_EXIT_PROBLEM : bp_cli_exit_code(err);
	}
	struct three x = { g->spec, "reach",	"breadth-first, by fewest turns",
			   "depth", "terminal", rc.ndepths,
			   rc.raw,  rc.classes, rc.terminal };
	print_three(a->json, &x);
	if (a->json)
		printf("}\n");
	bp_reach_counts_free(&rc);
	return 0;
}

/* Inside a tier: how far its positions' expansion has got, and the rate. */
static void keys_tick(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done, uint64_t total,
		      double seconds)
{
	struct count_progress *cp = ctx;
	if (!cp->on)
		return;
	char line[160];
	snprintf(line, sizeof line,
		 "count: tier %u of %u: %5.1f%% of its %llu positions expanded (%.1f s)", tier,
		 ntiers, total ? 100.0 * (double)done / (double)total : 0,
		 (unsigned long long)total, seconds);
	bp_cli_tick_line(cp->tty, &cp->open, line);
}

static void report_keys_tier(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t classes,
			     uint64_t positions, uint64_t over, uint64_t disk, double seconds)
{
	struct count_progress *cp = ctx;
	char db[32];
	bp_cli_end_tick_line(cp->tty, &cp->open);
	if (cp->on && (classes || tier == 0))
		fprintf(stderr,
			"count: tier %u of %u done: %llu positions, %llu classes (%llu over); "
			"%s on disk at most (%.1f s)\n",
			tier, ntiers, (unsigned long long)positions, (unsigned long long)classes,
			(unsigned long long)over, bp_text_bytes(disk, db, sizeof db), seconds);
}

/* Games with a 128-bit key (Mirador): the canonical positions tier by tier, each tier's
 * keys in a file, the children's keys sorted and merged on disk (solver/enumerate.h),
 * so that memory holds fixed buffers only. */
static int count_keys(const char *cmd, const struct bp_game *g, const struct bp_cli_args *a,
		      uint64_t memory, int threads, const char *dir)
{
	struct count_progress cp = { a->progress || isatty(2), bp_cli_now(), isatty(2), 0 };
	struct bp_enum_keys_opts o = { .threads = threads,
				       .tick = keys_tick,
				       .memory = memory,
				       .dir = dir,
				       .progress = report_keys_tier,
				       .cancel = bp_cli_cancel, /* files removed */
				       .ctx = &cp };
	struct bp_enum_keys_counts c;
	struct bp_err err = { { 0 } };
	struct bp_cli_sigint si;
	bp_cli_catch_sigint(&si, 0);
	int rc = bp_enumerate_keys(g, &o, &c, &err);
	bp_cli_end_tick_line(cp.tty, &cp.open);
	bp_cli_release_sigint(&si);
	if (rc == BP_ECANCELED)
		bp_cli_error(cmd,
			     "%s: interrupted; its files are removed (a count keeps nothing to "
			     "resume from: run it again)",
			     g->spec);
	else if (rc)
		bp_cli_error(cmd, "%s", err.msg);
	if (rc) {
		bp_enum_keys_counts_free(&c);
		return rc == BP_ECANCELED ? BP_EXIT_INTERRUPTED : bp_cli_exit_code(rc);
	}
	char db[32];
	struct three x = { g->spec,	"keys",	   "enumeration by keys, on disk",
			   "tier",	"over",	   c.ntiers,
			   c.positions, c.classes, c.over };
	print_three(a->json, &x);
	if (a->json)
		printf(", \"disk_peak_bytes\": %llu, \"seconds\": %.3f}\n",
		       (unsigned long long)c.disk_peak, bp_cli_now() - cp.t0);
	else
		printf("(%s on disk at most, %.1f s)\n", bp_text_bytes(c.disk_peak, db, sizeof db),
		       bp_cli_now() - cp.t0);
	bp_enum_keys_counts_free(&c);
	return 0;
}

int bp_cmd_count(int argc, char **argv)
{
	const char *cmd = "count";
	static const char *const valued[] = { "method", "memory", "threads", "dir", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_enum_counts ec = { 0 };
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof count --help)");
		return BP_EXIT_USAGE;
	}
	const char *method = a.opt[0] ? a.opt[0] : "auto";
	if (strcmp(method, "auto") && strcmp(method, "formula") && strcmp(method, "enumerate") &&
	    strcmp(method, "keys")) {
		bp_cli_error(cmd, "bad --method '%s' (auto, formula, enumerate or keys)", method);
		return BP_EXIT_USAGE;
	}
	int threads = 0;
	if ((rc = bp_cli_threads(cmd, a.opt[2], &threads)))
		return rc;
	uint64_t max_bytes = 4ull << 30;
	if (a.opt[1]) {
		if (bp_cli_parse_bytes(a.opt[1], &max_bytes)) {
			bp_cli_error(cmd, "bad --memory '%s' (bytes, or a number with K, M or G)",
				     a.opt[1]);
			return BP_EXIT_USAGE;
		}
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
		goto out;
	if (!strcmp(method, "keys") ||
	    (!strcmp(method, "auto") && !g->ops->count_tier && bp_enumerate_keys_wanted(g))) {
		if (!bp_enumerate_keys_supported(g)) {
			bp_cli_error(cmd,
				     "%s has no 128-bit key to count by; use --method enumerate",
				     g->spec);
			rc = BP_EXIT_PROBLEM;
			goto out;
		}
		rc = count_keys(cmd, g, &a, a.opt[1] ? max_bytes : 0, threads, a.opt[3]);
		goto out;
	}
	if ((!g->ops->tier || (g->ops->flags & BP_GAME_CYCLIC)) && !g->ops->count_tier &&
	    strcmp(method, "formula") != 0) {
		rc = count_reach(cmd, g, &a, max_bytes);
		goto out;
	}
	int use_formula = g->ops->count_tier && strcmp(method, "enumerate") != 0;
	if (!g->ops->count_tier && strcmp(method, "formula") == 0) {
		bp_cli_error(cmd, "%s has no counting formula; use --method enumerate",
			     g->ops->name);
		rc = BP_EXIT_PROBLEM;
		goto out;
	}
	if (!use_formula) {
		struct count_progress cp = { a.progress || isatty(2), bp_cli_now(), 0, 0 };
		int err = bp_enumerate(g, max_bytes, report_tier, &cp, &ec);
		if (err) {
			if (err == BP_ERANGE)
				bp_cli_error(
					cmd,
					"%s is too big to enumerate within --memory %llu bytes",
					g->spec, (unsigned long long)max_bytes);
			else if (err == BP_EUNSUPPORTED)
				bp_cli_error(cmd, "%s cannot be enumerated by tiers", g->spec);
			else
				bp_cli_error(cmd, "%s", bp_strerror(err));
			rc = err == BP_ERANGE ? BP_EXIT_PROBLEM : bp_cli_exit_code(err);
			goto out;
		}
	}
	mpz_t raw, classes, traw, tclasses;
	mpz_inits(raw, classes, traw, tclasses, NULL);
	if (a.json)
		printf("{\"instance\": \"%s\", \"method\": \"%s\", \"tiers\": [", g->spec,
		       use_formula ? "formula" : "enumeration");
	else
		printf("%s: reachable positions (%s)\n%-6s %30s %30s\n", g->spec,
		       use_formula ? "formula" : "enumeration", "tier", "positions",
		       "up to symmetry");
	for (uint32_t t = 0; t < g->ntiers; t++) {
		if (use_formula) {
			int err = g->ops->count_tier(g, t, raw, classes);
			if (err) {
				if (a.json)
					printf("]}\n");
				bp_cli_error(cmd, "tier %u: %s", t, bp_strerror(err));
				rc = bp_cli_exit_code(err);
				break;
			}
		} else {
			mpz_set_ui(raw, ec.raw[t]);
			mpz_set_ui(classes, ec.classes[t]);
		}
		mpz_add(traw, traw, raw);
		mpz_add(tclasses, tclasses, classes);
		print_row(a.json, t == 0, t, raw, classes);
	}
	if (!rc) {
		char *r = mpz_get_str(NULL, 10, traw), *c = mpz_get_str(NULL, 10, tclasses);
		if (a.json)
			printf("], \"positions\": %s, \"classes\": %s}\n", r, c);
		else
			printf("%-6s %30s %30s\n", "total", r, c);
		free(r);
		free(c);
	}
	mpz_clears(raw, classes, traw, tclasses, NULL);
out:
	bp_enum_counts_free(&ec);
	bp_game_destroy(g);
	return rc;
}
