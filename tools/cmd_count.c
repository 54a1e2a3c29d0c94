/* SPDX-License-Identifier: MIT */
/* boardproof count GAME [--enumerate] [--memory BYTES]: reachable positions per tier,
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

/* Games without tiers, or whose moves do not raise the tier (cyclic ones): breadth-first
 * over a hash set, per depth (the fewest turns that reach a position), with the
 * terminal positions counted apart. */
static int count_reach(const char *cmd, const struct bp_game *g, const struct bp_cli_args *a,
		       uint64_t max_bytes)
{
	struct bp_reach_counts rc = { 0 };
	struct count_progress cp = { a->progress || isatty(2), bp_cli_now() };
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
	uint64_t tr = 0, tc = 0, tt = 0;
	if (a->json)
		printf("{\"instance\": \"%s\", \"method\": \"reach\", \"depths\": [", g->spec);
	else
		printf("%s: reachable positions (breadth-first, by fewest turns)\n%-6s %24s %24s "
		       "%16s\n",
		       g->spec, "depth", "positions", "up to symmetry", "terminal");
	for (uint32_t d = 0; d < rc.ndepths; d++) {
		if (a->json)
			printf("%s{\"depth\": %u, \"positions\": %llu, \"classes\": %llu, "
			       "\"terminal\": %llu}",
			       d ? ", " : "", d, (unsigned long long)rc.raw[d],
			       (unsigned long long)rc.classes[d],
			       (unsigned long long)rc.terminal[d]);
		else
			printf("%-6u %24llu %24llu %16llu\n", d, (unsigned long long)rc.raw[d],
			       (unsigned long long)rc.classes[d],
			       (unsigned long long)rc.terminal[d]);
		tr += rc.raw[d];
		tc += rc.classes[d];
		tt += rc.terminal[d];
	}
	if (a->json)
		printf("], \"positions\": %llu, \"classes\": %llu, \"terminal\": %llu}\n",
		       (unsigned long long)tr, (unsigned long long)tc, (unsigned long long)tt);
	else
		printf("%-6s %24llu %24llu %16llu\n", "total", (unsigned long long)tr,
		       (unsigned long long)tc, (unsigned long long)tt);
	bp_reach_counts_free(&rc);
	return 0;
}

int bp_cmd_count(int argc, char **argv)
{
	const char *cmd = "count";
	static const char *const valued[] = { "method", "memory", NULL };
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
	if (strcmp(method, "auto") && strcmp(method, "formula") && strcmp(method, "enumerate")) {
		bp_cli_error(cmd, "bad --method '%s' (auto, formula or enumerate)", method);
		return BP_EXIT_USAGE;
	}
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
		struct count_progress cp = { a.progress || isatty(2), bp_cli_now() };
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
