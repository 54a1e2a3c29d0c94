/* SPDX-License-Identifier: MIT */
/* boardproof solve GAME: strongly solves an instance into the database, resuming an
 * interrupted solve at its first unfinished tier. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "solver/enumerate.h"
#include "solver/solve.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/mpi_solve.h"

/* The progress display: whole-tier lines, and inside a tier a line that a terminal
 * overwrites in place (on other outputs, with --progress, each tick is a line). */
struct meter {
	int tty, open; /* stderr is a terminal; a tick line is showing */
	int phase;     /* of the last tick, and where its rate is measured from: */
	uint64_t done0;
	double sec0;
};

static void end_tick_line(struct meter *m)
{
	bp_cli_end_tick_line(m->tty, &m->open);
}

static void tick(void *ctx, const struct bp_solve_tick *t)
{
	struct meter *m = ctx;
	if (t->phase != m->phase || t->phase_done < m->done0) {
		m->phase = t->phase;
		m->done0 = t->phase_done;
		m->sec0 = t->seconds;
		return; /* a rate needs two points */
	}
	double dt = t->seconds - m->sec0;
	double rate = dt > 0 ? (double)(t->phase_done - m->done0) / dt : 0;
	double pct = t->tier_total ? 100.0 * (double)t->tier_done / (double)t->tier_total : 0;
	const char *what = t->phase == 0   ? "reachable: tier"
			   : t->phase == 1 ? "tier"
			   : t->phase == 3 ? "storing tier"
					   : "pass";
	char line[200];
	int n = snprintf(line, sizeof line, "solve: %s %u", what, t->tier);
	if (t->ntiers)
		n += snprintf(line + n, sizeof line - (size_t)n, " of %u", t->ntiers);
	n += snprintf(line + n, sizeof line - (size_t)n, ": %5.1f%%, %.2f M indices/s", pct,
		      rate / 1e6);
	if (t->phase == 3 && rate > 0) {
		snprintf(line + n, sizeof line - (size_t)n, ", about %.0f s left",
			 (double)(t->phase_total - t->phase_done) / rate);
	} else if (t->phase_total && rate > 0) {
		double left = (double)(t->phase_total - t->phase_done) / rate;
		snprintf(line + n, sizeof line - (size_t)n, ", %.0f%% of the %s, about %.0f s left",
			 100.0 * (double)t->phase_done / (double)t->phase_total,
			 t->phase == 0 ? "marking" : "solve", left);
	}
	bp_cli_tick_line(m->tty, &m->open, line);
}

static void progress(void *ctx, const struct bp_solve_progress *p)
{
	end_tick_line(ctx);
	if (p->phase == 0)
		fprintf(stderr, "solve: reachable: tier %u of %u: %llu positions%s (%.1f s)\n",
			p->tier, p->ntiers, (unsigned long long)p->positions,
			p->resumed ? ", from its scratch file" : "", p->seconds);
	else
		fprintf(stderr, "solve: tier %u of %u %s: %llu positions (%.1f s)\n", p->tier,
			p->ntiers, p->resumed ? "already stored" : "solved",
			(unsigned long long)p->positions, p->seconds);
}

/* What an interrupted solve prints: what it kept and how to go on. */
static int interrupted_exit(const char *cmd, const struct bp_game *g,
			    const struct bp_solve_result *r)
{
	if (r->engine == BP_ENGINE_CYCLES || r->engine == BP_ENGINE_COUNTER)
		bp_cli_error(cmd,
			     "%s: interrupted; nothing was stored (the %s engine stores "
			     "its table at the end): run the same command again to solve it",
			     g->spec, bp_engine_name(r->engine));
	else if (r->resumed_tiers + r->solved_tiers == 0 &&
		 (r->engine != BP_ENGINE_WALK || r->index_bytes))
		/* the tiers engine keeps nothing but whole tiers, nor does the walk engine
		 * over an index of reachable positions (which is stored only once complete,
		 * and made anew while no tier is) */
		bp_cli_error(cmd,
			     "%s: interrupted before any tier was stored; nothing was kept: run "
			     "the same command again to solve it",
			     g->spec);
	else
		bp_cli_error(cmd,
			     "%s: interrupted; %u of %u tiers are stored (%u in this run)%s: run "
			     "the same command again to resume",
			     g->spec, r->resumed_tiers + r->solved_tiers, g->ntiers,
			     r->solved_tiers,
			     r->engine == BP_ENGINE_WALK && !r->index_bytes
				     ? ", the work on the others in scratch files"
				     : "");
	return BP_EXIT_INTERRUPTED;
}

/* A spec that stands for a family of instances (Landscape without layout=, RULES.md
 * 5.1): each class's representative instance is solved into its own table and the
 * results are reported per class, with the number of instances in the class. The
 * output names the family key ("layout") that tells the members apart. */
struct family {
	const char *cmd;
	const struct bp_game *g;
	bp_store *db;
	const struct bp_solve_opts *opts;
	int json, replace, n, nmembers, rc;
	struct bp_text *out;
	uint64_t positions, bytes, peak, dist[4];
	double seconds;
};

static int count_member(void *ctx, const char *spec, const char *value, uint64_t multiplicity)
{
	(void)spec;
	(void)value;
	(void)multiplicity;
	((struct family *)ctx)->nmembers++;
	return 0;
}

static int solve_member(void *ctx, const char *spec, const char *value, uint64_t multiplicity)
{
	struct family *f = ctx;
	struct bp_game *mg = NULL;
	struct bp_solve_result r;
	struct bp_err err = { { 0 } };
	if ((f->rc = bp_cli_open_game(f->cmd, spec, &mg)))
		return 1;
	if (f->opts->progress)
		fprintf(stderr, "solve: %s %d of %d: %s\n", f->g->ops->family_key, f->n + 1,
			f->nmembers, mg->spec);
	if (f->replace) {
		struct bp_err derr = { { 0 } };
		int drc = bp_store_drop_table(f->db, mg->spec, &derr);
		if (drc && drc != BP_ENOTFOUND) { /* never solve on into the old table */
			bp_cli_error(f->cmd, "replacing %s: %s", mg->spec, derr.msg);
			f->rc = bp_cli_exit_code(drc);
			bp_game_destroy(mg);
			return 1;
		}
		/* nor from an interrupted solve's scratch files */
		if ((drc = bp_solve_remove_scratch(mg, f->db)) < 0) {
			bp_cli_error(f->cmd, "replacing %s: removing its scratch files: %s",
				     mg->spec, bp_strerror(drc));
			f->rc = bp_cli_exit_code(drc);
			bp_game_destroy(mg);
			return 1;
		}
	}
	int src = bp_solve(mg, f->db, f->opts, &r, &err);
	if (f->opts->ctx)
		end_tick_line(f->opts->ctx);
	if (src == BP_ECANCELED) {
		f->rc = interrupted_exit(f->cmd, mg, &r);
		bp_game_destroy(mg);
		return 1;
	}
	if (src == BP_ERULES)
		bp_cli_rules_error(f->cmd, mg->spec, err.msg);
	else if (src)
		bp_cli_error(f->cmd, "%s", err.msg[0] ? err.msg : bp_strerror(src));
	bp_game_destroy(mg);
	if (src) {
		f->rc = bp_cli_exit_code(src);
		return 1;
	}
	char rbuf[24];
	const char *shown = value[0] ? value : "(none)";
	if (f->json) {
		bp_text_printf(f->out, "%s{\"%s\": ", f->n ? ", " : "", f->g->ops->family_key);
		bp_text_json_string(f->out, value);
		bp_text_printf(f->out,
			       ", \"copies\": %llu, \"value\": \"%s\", \"remoteness\": %s, "
			       "\"positions\": %llu}",
			       (unsigned long long)multiplicity, bp_value_name(r.value),
			       bp_cli_remoteness(r.remoteness, 1, rbuf),
			       (unsigned long long)r.positions);
	} else {
		bp_text_printf(f->out, "  %-24s %6llu  %s %s\n", shown,
			       (unsigned long long)multiplicity, bp_value_name(r.value),
			       bp_cli_remoteness(r.remoteness, 0, rbuf));
	}
	f->n++;
	f->positions += r.positions;
	f->bytes += r.stored_bytes;
	f->seconds += r.seconds;
	f->peak = r.peak_memory > f->peak ? r.peak_memory : f->peak;
	f->dist[r.value] += multiplicity;
	return 0;
}

static int solve_family(const char *cmd, const struct bp_game *g, bp_store *db,
			const struct bp_solve_opts *opts, int json, int replace)
{
	struct bp_text out = { 0 };
	struct bp_err err = { { 0 } };
	struct family f = { .cmd = cmd,
			    .g = g,
			    .db = db,
			    .opts = opts,
			    .json = json,
			    .replace = replace,
			    .out = &out };
	const char *key = g->ops->family_key;
	int rc = g->ops->family_list(g, count_member, &f, &err);
	if (!rc) {
		if (json)
			bp_text_printf(&out,
				       "{\"instance\": \"%s\", \"value\": null, \"remoteness\": "
				       "null, \"%ss\": [",
				       g->spec, key);
		else
			bp_text_printf(&out, "%s: %d %s classes\n  %-24s %6s  %s\n", g->spec,
				       f.nmembers, key, key, "copies",
				       "value (first player to move)");
		rc = g->ops->family_list(g, solve_member, &f, &err);
	}
	if (rc && !f.rc) {
		bp_cli_error(cmd, "%s: listing the %ss: %s", g->spec, key,
			     err.msg[0] ? err.msg : bp_strerror(rc));
		f.rc = bp_cli_exit_code(rc);
	}
	if (!f.rc) {
		double pps = f.seconds > 0 ? (double)f.positions / f.seconds : 0;
		double bpp = f.positions ? (double)f.bytes * 8 / (double)f.positions : 0;
		if (json)
			bp_text_printf(
				&out,
				"], \"distribution\": {\"win\": %llu, \"loss\": %llu, \"draw\": "
				"%llu}, \"positions\": %llu, \"seconds\": %.3f, "
				"\"positions_per_second\": %.0f, \"peak_memory_bytes\": %llu, "
				"\"stored_bytes\": %llu, \"bits_per_position\": %.4f}\n",
				(unsigned long long)f.dist[1], (unsigned long long)f.dist[2],
				(unsigned long long)f.dist[3], (unsigned long long)f.positions,
				f.seconds, pps, (unsigned long long)f.peak,
				(unsigned long long)f.bytes, bpp);
		else
			bp_text_printf(&out,
				       "%ss (with copies): win %llu, loss %llu, draw %llu\n"
				       "positions:  %llu up to symmetry, in %.2f s\n",
				       key, (unsigned long long)f.dist[1],
				       (unsigned long long)f.dist[2], (unsigned long long)f.dist[3],
				       (unsigned long long)f.positions, f.seconds);
		f.rc = bp_cli_print_text(cmd, &out);
	}
	bp_text_free(&out);
	return f.rc;
}

int bp_cmd_solve(int argc, char **argv)
{
	const char *cmd = "solve";
	static const char *const valued[] = { "db",    "threads", "memory", "block-records",
					      "level", "solver",  "index",  "spill",
					      NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	/* --mpi: one rank of an MPI job (mpirun -np N boardproof solve GAME --mpi) */
	int use_mpi = bp_cli_take_flag(&argc, argv, "--mpi");
	int replace = bp_cli_take_flag(&argc, argv, "--replace");
	int foretell = bp_cli_take_flag(&argc, argv, "--foretell-wins");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	/* One malloc arena for every thread: the enumeration of reachable positions
	 * (solver/sparse.c) allocates its workers' key arrays on their threads and frees
	 * them on the main one, and with an arena per thread the memory freed stayed
	 * where no later array fitted: a two-thread mirador:10x10 peaked at 252 MB against
	 * 186 MB on one thread and an estimate of 204 MB, and at 219 MB with one arena, in
	 * the same time (its threads allocate seldom: large arrays, no contention). */
	mallopt(M_ARENA_MAX, 1);
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
	if (foretell && opts.compression_level < BP_SOLVE_ARCHIVAL_LEVEL) {
		bp_cli_error(cmd, "--foretell-wins needs an archival --level (%d to 22)",
			     BP_SOLVE_ARCHIVAL_LEVEL);
		return BP_EXIT_USAGE;
	}
	opts.foretell_wins = foretell;
	const char *solver = a.opt[5] ? a.opt[5] : "auto";
	if (bp_engine_parse(solver, &opts.engine)) {
		bp_cli_error(cmd, "bad --solver '%s' (auto, walk, tiers, cycles or counter)",
			     solver);
		return BP_EXIT_USAGE;
	}
	const char *index = a.opt[6] ? a.opt[6] : "auto";
	if (strcmp(index, "auto") == 0)
		opts.index = BP_INDEX_AUTO;
	else if (strcmp(index, "dense") == 0)
		opts.index = BP_INDEX_DENSE;
	else if (strcmp(index, "sparse") == 0)
		opts.index = BP_INDEX_SPARSE;
	else {
		bp_cli_error(cmd, "bad --index '%s' (auto, dense or sparse)", index);
		return BP_EXIT_USAGE;
	}
	opts.spill_dir = a.opt[7];
	if (opts.spill_dir && opts.index == BP_INDEX_DENSE) {
		bp_cli_error(cmd,
			     "--spill is for the index of reachable positions (--index sparse)");
		return BP_EXIT_USAGE;
	}
	struct bp_solve_dist dist = { 0 };
	int mpi_on = 0;
	if (use_mpi) {
		if (bp_mpi_init(&dist)) {
			bp_cli_error(cmd, "--mpi is not available: this boardproof was built "
					  "without MPI (install libopenmpi-dev and reconfigure)");
			return BP_EXIT_PROBLEM;
		}
		mpi_on = 1;
		opts.dist = &dist;
		if (dist.nranks > 1)
			bp_cli_error_rank(dist.rank);
	}
	struct meter m = { .tty = isatty(2), .phase = -1 };
	if ((a.progress || m.tty) && dist.rank == 0) {
		opts.progress = progress;
		opts.tick = tick;
		opts.ctx = &m;
	}
	/* Ctrl-C: the solve returns BP_ECANCELED with its finished tiers stored, and
	 * interrupted_exit says how to resume */
	opts.cancel = bp_cli_cancel;
	struct bp_cli_sigint sigint = { .caught = 0 };
	rc = bp_cli_open_game(cmd, a.pos[0], &g);
	if (!rc && mpi_on && bp_game_is_family(g)) {
		if (dist.rank == 0)
			bp_cli_error(cmd, "--mpi solves one instance: name a member of %s",
				     g->spec);
		rc = BP_EXIT_USAGE;
	}
	/* every rank reads the same spec, but one may run out of memory doing it: the
	 * others must not go on to wait for it */
	if (mpi_on && bp_mpi_max(rc != 0) && !rc) {
		bp_cli_error(cmd, "another rank failed before the solve");
		rc = BP_EXIT_IO;
	}
	if (!rc && opts.spill_dir && !bp_enumerate_keys_supported(g)) {
		bp_cli_error(cmd,
			     "--spill is for an index of reachable positions, which %s has not "
			     "(its positions have no 128-bit key)",
			     g->spec);
		rc = BP_EXIT_USAGE;
	}
	if (rc)
		goto out;
	const char *path = bp_cli_db_path(a.opt[0]);
	/* rank 0 creates the database (and drops a table to replace) before the other
	 * ranks open it; then rank 0 alone writes */
	if (dist.rank == 0)
		rc = bp_cli_open_store(cmd, path, BP_STORE_CREATE, &db);
	if (!rc && dist.rank == 0 && replace) {
		/* the one way a table is removed: asked for by name, before solving anew */
		struct bp_err derr = { { 0 } };
		int drc = bp_store_drop_table(db, g->spec, &derr);
		if (drc && drc != BP_ENOTFOUND) {
			bp_cli_error(cmd, "replacing %s: %s", g->spec, derr.msg);
			rc = bp_cli_exit_code(drc);
		} else if ((drc = bp_solve_remove_scratch(g, db)) < 0) {
			/* an interrupted solve's scratch files: never taken into the new one */
			bp_cli_error(cmd, "replacing %s: removing its scratch files: %s", g->spec,
				     bp_strerror(drc));
			rc = bp_cli_exit_code(drc);
		}
	}
	if (mpi_on) {
		bp_mpi_bcast_int(&rc);
		if (!rc && dist.rank != 0)
			rc = bp_cli_open_store(cmd, path, BP_STORE_CREATE, &db);
		/* ranks that failed to open it leave; bp_solve's first step would wait */
		int failed = (int)bp_mpi_max(rc != 0);
		if (failed && !rc) {
			bp_cli_error(cmd, "another rank failed to open %s", path);
			rc = BP_EXIT_IO;
		}
	}
	if (rc)
		goto out;
	bp_cli_catch_sigint(&sigint, 0);
	if (bp_game_is_family(g)) {
		rc = solve_family(cmd, g, db, &opts, a.json, replace);
		goto out;
	}
	struct bp_solve_result r;
	struct bp_err err = { { 0 } };
	int src = bp_solve(g, db, &opts, &r, &err);
	end_tick_line(&m);
	if (mpi_on) {
		/* the figures of the job: the slowest rank's time, the largest peak */
		r.peak_memory = bp_mpi_max(r.peak_memory);
		r.sent_bytes = bp_mpi_max(r.sent_bytes);
		r.received_bytes = bp_mpi_max(r.received_bytes);
		if (dist.rank != 0) {
			/* this rank's own failure, or what it learned of another's */
			if (src && src != BP_ECANCELED)
				bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(src));
			rc = src ? bp_cli_exit_code(src) : 0;
			goto out;
		}
	}
	if (src == BP_ECANCELED) {
		rc = interrupted_exit(cmd, g, &r);
		goto out;
	}
	if (src == BP_ERULES) {
		bp_cli_rules_error(cmd, g->spec, err.msg);
		rc = BP_EXIT_DB;
		goto out;
	}
	/* a --solver that cannot run this game is bad input (exit 2), like a bad name */
	if (src == BP_EUNSUPPORTED && opts.engine != BP_ENGINE_AUTO) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(src));
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (src) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(src));
		rc = src == BP_EUNSUPPORTED ? BP_EXIT_PROBLEM
		     : src == BP_ERANGE	    ? BP_EXIT_IO
					    : bp_cli_exit_code(src);
		goto out;
	}
	const char *used = bp_engine_name(r.engine);
	/* auto fell back from the counter engine (solver/solve.h) */
	const char *note =
		opts.engine == BP_ENGINE_AUTO && (g->ops->flags & BP_GAME_CYCLIC) &&
				r.engine == BP_ENGINE_CYCLES
			? "the counter engine would not fit --memory; the cycles engine does"
			: NULL;
	/* nothing solved in this run: a rate would be the speed of reading the table */
	int already = r.solved_tiers == 0 && r.resumed_tiers > 0;
	double pps = r.seconds > 0 ? (double)r.positions / r.seconds : 0;
	double bpp = r.positions ? (double)r.stored_bytes * 8 / (double)r.positions : 0;
	if (a.json) {
		char rbuf[24];
		struct bp_text t = { 0 };
		bp_text_json_string(&t, path);
		if (t.failed) { /* before any of the report: never half a document */
			bp_text_free(&t);
			bp_cli_error(cmd, "out of memory");
			rc = BP_EXIT_IO;
			goto out;
		}
		printf("{\"instance\": \"%s\", \"value\": \"%s\", \"remoteness\": %s, "
		       "\"positions\": %llu, "
		       "\"counts\": {\"win\": %llu, \"loss\": %llu, \"draw\": %llu}, \"seconds\": "
		       "%.3f, "
		       "\"positions_per_second\": %.0f, \"peak_memory_bytes\": %llu, "
		       "\"memory_estimate_bytes\": %llu, "
		       "\"stored_bytes\": %llu, \"bits_per_position\": %.4f, \"resumed_tiers\": "
		       "%u, \"already_solved\": %s, "
		       "\"threads\": %d, \"ranks\": %d, \"solver\": \"%s\", ",
		       g->spec, bp_value_name(r.value), bp_cli_remoteness(r.remoteness, 1, rbuf),
		       (unsigned long long)r.positions, (unsigned long long)r.counts[BP_VALUE_WIN],
		       (unsigned long long)r.counts[BP_VALUE_LOSS],
		       (unsigned long long)r.counts[BP_VALUE_DRAW], r.seconds, pps,
		       (unsigned long long)r.peak_memory, (unsigned long long)r.memory_estimate,
		       (unsigned long long)r.stored_bytes, bpp, r.resumed_tiers,
		       already ? "true" : "false",
		       opts.threads > 0 ? opts.threads : (int)sysconf(_SC_NPROCESSORS_ONLN),
		       mpi_on ? dist.nranks : 1, used);
		if (mpi_on) /* the busiest rank's traffic over the whole solve */
			printf("\"rank_sent_bytes\": %llu, \"rank_received_bytes\": %llu, ",
			       (unsigned long long)r.sent_bytes,
			       (unsigned long long)r.received_bytes);
		if (note)
			printf("\"solver_note\": \"%s\", ", note);
		if (r.index_bytes) /* indexed by its reachable positions */
			printf("\"index\": \"sparse\", \"index_bytes\": %llu, "
			       "\"index_stored_bytes\": %llu, \"index_bits_per_position\": %.4f, "
			       "\"index_seconds\": %.3f, ",
			       (unsigned long long)r.index_bytes,
			       (unsigned long long)r.index_stored_bytes,
			       r.positions ? (double)r.index_stored_bytes * 8 / (double)r.positions
					   : 0,
			       r.index_seconds);
		printf("\"db\": %s}\n", bp_text_str(&t));
		bp_text_free(&t);
	} else {
		char rbuf[24];
		printf("%s: %s %s (start position, player to move)\n", g->spec,
		       bp_value_name(r.value), bp_cli_remoteness(r.remoteness, 0, rbuf));
		printf("positions:  %llu up to symmetry (win %llu, loss %llu, draw %llu)\n",
		       (unsigned long long)r.positions, (unsigned long long)r.counts[BP_VALUE_WIN],
		       (unsigned long long)r.counts[BP_VALUE_LOSS],
		       (unsigned long long)r.counts[BP_VALUE_DRAW]);
		if (already)
			printf("time:       already solved: nothing to do (solve %s --replace "
			       "solves it again)\n",
			       g->spec);
		else
			printf("time:       %.2f s, %.0f positions per second%s\n", r.seconds, pps,
			       r.resumed_tiers ? " (resumed: some tiers were already stored)" : "");
		if (mpi_on)
			printf("solver:     %s, %d MPI ranks\n", used, dist.nranks);
		else
			printf("solver:     %s%s%s%s\n", used, note ? " (auto: " : "",
			       note ? note : "", note ? ")" : "");
		char mbuf[32];
		printf("memory:     peak %s%s\n", mpi_on ? "per rank " : "",
		       bp_text_bytes(r.peak_memory, mbuf, sizeof mbuf));
		printf("database:   %s, %llu bytes, %.3f bits per position\n", path,
		       (unsigned long long)r.stored_bytes, bpp);
		if (r.index_bytes)
			printf("index:      reachable positions only: %llu bytes stored (%.3f bits "
			       "per position), %s in memory%s\n",
			       (unsigned long long)r.index_stored_bytes,
			       r.positions ? (double)r.index_stored_bytes * 8 / (double)r.positions
					   : 0,
			       bp_text_bytes(r.index_bytes, mbuf, sizeof mbuf),
			       r.index_seconds > 0 ? "" : " (read back)");
	}
out:
	bp_cli_release_sigint(&sigint);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	if (mpi_on)
		bp_mpi_finish();
	return rc;
}
