/* SPDX-License-Identifier: MIT */
/* boardproof solve GAME: strongly solves an instance into the database, resuming an
 * interrupted solve at its first unfinished tier. */
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "solver/cyclic.h"
#include "solver/games/landscape.h"
#include "solver/retrograde.h"
#include "tools/cli.h"
#include "tools/commands.h"

static void progress(void *ctx, const struct bp_solve_progress *p)
{
	(void)ctx;
	if (p->phase == 0)
		fprintf(stderr, "solve: reachable: tier %u of %u: %llu positions (%.1f s)\n",
			p->tier, p->ntiers, (unsigned long long)p->positions, p->seconds);
	else
		fprintf(stderr, "solve: tier %u of %u %s: %llu positions (%.1f s)\n", p->tier,
			p->ntiers, p->resumed ? "already stored" : "solved",
			(unsigned long long)p->positions, p->seconds);
}

/* Landscape without layout=: RULES.md 5.1 asks for every valid layout up to symmetry,
 * so each class's smallest layout is solved as its own instance (its own table) and
 * the results are reported per class, with the number of layouts in the class. */
struct layouts {
	uint64_t *cells;
	int *copies;
	int n, cap;
};

static int collect_layout(void *ctx, uint64_t layout, int orbit)
{
	struct layouts *l = ctx;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		uint64_t *c = realloc(l->cells, sizeof *c * (size_t)cap);
		int *o = c ? realloc(l->copies, sizeof *o * (size_t)cap) : NULL;
		if (c)
			l->cells = c;
		if (!c || !o)
			return BP_ENOMEM;
		l->copies = o;
		l->cap = cap;
	}
	l->cells[l->n] = layout;
	l->copies[l->n++] = orbit;
	return 0;
}

static int solve_layouts(const char *cmd, const struct bp_game *g, bp_store *db,
			 const struct bp_solve_opts *opts, int json, int replace)
{
	struct layouts l = { 0 };
	mpz_t raw, classes;
	mpz_inits(raw, classes, NULL);
	int k = atoi(bp_game_option(g, "neutrals"));
	int rc = bp_landscape_layouts(g->board, k, collect_layout, &l, raw, classes);
	mpz_clears(raw, classes, NULL);
	if (rc) {
		bp_cli_error(cmd, "%s: listing the layouts: %s", g->spec, bp_strerror(rc));
		free(l.cells);
		free(l.copies);
		return bp_cli_exit_code(rc);
	}
	struct bp_text out = { 0 };
	uint64_t positions = 0, bytes = 0, peak = 0, dist[4] = { 0 };
	double seconds = 0;
	if (json)
		bp_text_printf(&out,
			       "{\"instance\": \"%s\", \"value\": null, \"remoteness\": null, "
			       "\"layouts\": [",
			       g->spec);
	else
		bp_text_printf(&out, "%s: %d layout classes\n  %-24s %6s  %s\n", g->spec, l.n,
			       "layout", "copies", "value (first player to move)");
	for (int i = 0; i < l.n && !rc; i++) {
		char spec[512], name[16];
		int len = snprintf(spec, sizeof spec, "%s,layout=", g->spec);
		for (uint64_t m = l.cells[i]; m; m &= m - 1) {
			bp_board_cell_name(g->board, __builtin_ctzll(m), name, sizeof name);
			len += snprintf(spec + len, sizeof spec - (size_t)len, "%s%s", name,
					(m & (m - 1)) ? ";" : "");
		}
		struct bp_game *lg = NULL;
		struct bp_solve_result r;
		struct bp_err err = { { 0 } };
		if ((rc = bp_cli_open_game(cmd, spec, &lg)))
			break;
		if (opts->progress)
			fprintf(stderr, "solve: layout %d of %d: %s\n", i + 1, l.n, lg->spec);
		if (replace)
			bp_store_drop_table(db, lg->spec, NULL);
		int src = bp_solve(lg, db, opts, &r, &err);
		if (src == BP_ERULES)
			bp_cli_rules_error(cmd, lg->spec, err.msg);
		else if (src)
			bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(src));
		if (src) {
			rc = bp_cli_exit_code(src);
			bp_game_destroy(lg);
			break;
		}
		const char *layout = strstr(lg->spec, "layout=") + 7;
		int llen = (int)strcspn(layout, ",");
		char rbuf[24];
		if (json)
			bp_text_printf(
				&out,
				"%s{\"layout\": \"%.*s\", \"copies\": %d, \"value\": \"%s\", "
				"\"remoteness\": %s, \"positions\": %llu}",
				i ? ", " : "", llen, layout, l.copies[i], bp_value_name(r.value),
				bp_cli_remoteness(r.remoteness, 1, rbuf),
				(unsigned long long)r.positions);
		else
			bp_text_printf(&out, "  %-24.*s %6d  %s %s\n", llen, layout, l.copies[i],
				       bp_value_name(r.value),
				       bp_cli_remoteness(r.remoteness, 0, rbuf));
		positions += r.positions;
		bytes += r.stored_bytes;
		seconds += r.seconds;
		peak = r.peak_memory > peak ? r.peak_memory : peak;
		dist[r.value] += (uint64_t)l.copies[i];
		bp_game_destroy(lg);
	}
	if (!rc) {
		double pps = seconds > 0 ? (double)positions / seconds : 0;
		double bpp = positions ? (double)bytes * 8 / (double)positions : 0;
		if (json)
			bp_text_printf(
				&out,
				"], \"distribution\": {\"win\": %llu, \"loss\": %llu, \"draw\": "
				"%llu}, \"positions\": %llu, \"seconds\": %.3f, "
				"\"positions_per_second\": %.0f, \"peak_memory_bytes\": %llu, "
				"\"stored_bytes\": %llu, \"bits_per_position\": %.4f}\n",
				(unsigned long long)dist[1], (unsigned long long)dist[2],
				(unsigned long long)dist[3], (unsigned long long)positions, seconds,
				pps, (unsigned long long)peak, (unsigned long long)bytes, bpp);
		else
			bp_text_printf(&out,
				       "layouts (with copies): win %llu, loss %llu, draw %llu\n"
				       "positions:  %llu up to symmetry, in %.2f s\n",
				       (unsigned long long)dist[1], (unsigned long long)dist[2],
				       (unsigned long long)dist[3], (unsigned long long)positions,
				       seconds);
		fputs(bp_text_str(&out), stdout);
	}
	bp_text_free(&out);
	free(l.cells);
	free(l.copies);
	return rc;
}

int bp_cmd_solve(int argc, char **argv)
{
	const char *cmd = "solve";
	static const char *const valued[] = { "db",    "threads", "memory", "block-records",
					      "level", "solver",  NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof solve --help)");
		return BP_EXIT_USAGE;
	}
	struct bp_solve_opts opts = { 0 };
	if ((rc = bp_cli_threads(cmd, a.opt[1], &opts.threads)))
		return rc;
	struct sysinfo si;
	if (sysinfo(&si) == 0)
		opts.memory_limit = (uint64_t)si.totalram * si.mem_unit / 10 * 8;
	if (a.opt[2] && bp_cli_parse_bytes(a.opt[2], &opts.memory_limit)) {
		bp_cli_error(cmd, "bad --memory '%s' (bytes, or a number with K, M, G or T)",
			     a.opt[2]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[3]) {
		char *end;
		long v = strtol(a.opt[3], &end, 10);
		if (*end || v < 64 || v > (1 << 24)) {
			bp_cli_error(cmd, "bad --block-records '%s' (64 to 16777216)", a.opt[3]);
			return BP_EXIT_USAGE;
		}
		opts.block_records = (uint32_t)v;
	}
	if (a.opt[4]) {
		char *end;
		long v = strtol(a.opt[4], &end, 10);
		if (*end || v < 1 || v > 22) {
			bp_cli_error(cmd, "bad --level '%s' (zstd level 1 to 22)", a.opt[4]);
			return BP_EXIT_USAGE;
		}
		opts.compression_level = (int)v;
	}
	const char *solver = a.opt[5] ? a.opt[5] : "auto";
	if (strcmp(solver, "auto") && strcmp(solver, "tiers") && strcmp(solver, "walk") &&
	    strcmp(solver, "cycles")) {
		bp_cli_error(cmd, "bad --solver '%s' (auto, walk, tiers or cycles)", solver);
		return BP_EXIT_USAGE;
	}
	if (a.progress || isatty(2))
		opts.progress = progress;
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
		return rc;
	const char *path = bp_cli_db_path(a.opt[0]);
	if ((rc = bp_cli_open_store(cmd, path, BP_STORE_CREATE, &db)))
		goto out;
	if (a.replace) {
		/* the one way a table is removed: asked for by name, before solving anew */
		struct bp_err derr = { { 0 } };
		int drc = bp_store_drop_table(db, g->spec, &derr);
		if (drc && drc != BP_ENOTFOUND) {
			bp_cli_error(cmd, "replacing %s: %s", g->spec, derr.msg);
			rc = bp_cli_exit_code(drc);
			goto out;
		}
	}
	if (g->ops == &bp_landscape_ops && !bp_game_option(g, "layout")) {
		rc = solve_layouts(cmd, g, db, &opts, a.json, a.replace);
		goto out;
	}
	struct bp_solve_result r;
	struct bp_err err = { { 0 } };
	opts.generic = strcmp(solver, "tiers") == 0;
	/* a --solver that cannot run this game is bad input (exit 2), like a bad name */
	int src = strcmp(solver, "cycles") == 0 ? bp_solve_cyclic(g, db, &opts, &r, &err)
		  : strcmp(solver, "tiers") == 0 && (g->ops->flags & BP_GAME_CYCLIC)
			  ? bp_err_set(&err, BP_EINVAL,
				       "%s can repeat positions: use --solver cycles", g->spec)
		  : strcmp(solver, "walk") == 0 && !g->ops->tier_walk
			  ? bp_err_set(&err, BP_EINVAL,
				       "%s has no tier walk: use --solver tiers or cycles", g->spec)
			  : bp_solve(g, db, &opts, &r, &err);
	if (src == BP_ERULES) {
		bp_cli_rules_error(cmd, g->spec, err.msg);
		rc = BP_EXIT_DB;
		goto out;
	}
	if (src) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(src));
		rc = src == BP_EUNSUPPORTED ? BP_EXIT_PROBLEM
		     : src == BP_ERANGE	    ? BP_EXIT_IO
					    : bp_cli_exit_code(src);
		goto out;
	}
	/* which solver ran: bp_solve sends games that repeat to cycles, then games with a
	 * tier walk to it */
	const char *used = strcmp(solver, "cycles") == 0 || (g->ops->flags & BP_GAME_CYCLIC)
				   ? "cycles"
			   : g->ops->tier_walk && strcmp(solver, "tiers") != 0 ? "walk"
									       : "tiers";
	double pps = r.seconds > 0 ? (double)r.positions / r.seconds : 0;
	double bpp = r.positions ? (double)r.stored_bytes * 8 / (double)r.positions : 0;
	if (a.json) {
		char rbuf[24];
		printf("{\"instance\": \"%s\", \"value\": \"%s\", \"remoteness\": %s, "
		       "\"positions\": %llu, "
		       "\"counts\": {\"win\": %llu, \"loss\": %llu, \"draw\": %llu}, \"seconds\": "
		       "%.3f, "
		       "\"positions_per_second\": %.0f, \"peak_memory_bytes\": %llu, "
		       "\"stored_bytes\": %llu, \"bits_per_position\": %.4f, \"resumed_tiers\": "
		       "%u, "
		       "\"threads\": %d, \"solver\": \"%s\", \"db\": ",
		       g->spec, bp_value_name(r.value), bp_cli_remoteness(r.remoteness, 1, rbuf),
		       (unsigned long long)r.positions, (unsigned long long)r.counts[BP_VALUE_WIN],
		       (unsigned long long)r.counts[BP_VALUE_LOSS],
		       (unsigned long long)r.counts[BP_VALUE_DRAW], r.seconds, pps,
		       (unsigned long long)r.peak_memory, (unsigned long long)r.stored_bytes, bpp,
		       r.resumed_tiers,
		       opts.threads > 0 ? opts.threads : (int)sysconf(_SC_NPROCESSORS_ONLN), used);
		struct bp_text t = { 0 };
		bp_text_json_string(&t, path);
		printf("%s}\n", bp_text_str(&t));
		bp_text_free(&t);
	} else {
		char rbuf[24];
		printf("%s: %s %s (start position, player to move)\n", g->spec,
		       bp_value_name(r.value), bp_cli_remoteness(r.remoteness, 0, rbuf));
		printf("positions:  %llu up to symmetry (win %llu, loss %llu, draw %llu)\n",
		       (unsigned long long)r.positions, (unsigned long long)r.counts[BP_VALUE_WIN],
		       (unsigned long long)r.counts[BP_VALUE_LOSS],
		       (unsigned long long)r.counts[BP_VALUE_DRAW]);
		printf("time:       %.2f s, %.0f positions per second%s\n", r.seconds, pps,
		       r.resumed_tiers ? " (resumed: some tiers were already stored)" : "");
		printf("solver:     %s\n", used);
		char mbuf[32];
		printf("memory:     peak %s\n", bp_text_bytes(r.peak_memory, mbuf, sizeof mbuf));
		printf("database:   %s, %llu bytes, %.3f bits per position\n", path,
		       (unsigned long long)r.stored_bytes, bpp);
	}
out:
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
