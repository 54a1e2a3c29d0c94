/* SPDX-License-Identifier: MIT */
/* boardproof verify [GAME]: re-derives every stored value from its children. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/verify.h"
#include "tools/cli.h"
#include "tools/commands.h"

struct specs {
	char **v;
	int n;
	int oom; /* a spec could not be kept: the list is short */
};

static void collect(void *ctx, const char *spec)
{
	struct specs *s = ctx;
	char **v = realloc(s->v, sizeof *v * (size_t)(s->n + 1));
	if (!v) {
		s->oom = 1;
		return;
	}
	s->v = v;
	s->v[s->n] = strdup(spec);
	if (s->v[s->n])
		s->n++;
	else
		s->oom = 1;
}

static int collect_member(void *ctx, const char *spec, const char *value, uint64_t multiplicity)
{
	(void)value;
	(void)multiplicity;
	collect(ctx, spec);
	return 0;
}

struct vctx {
	int quiet;
	int shown;
	int hash_only;
	int tty, open; /* stderr is a terminal; a tick line is showing there */
};

/* Inside a tier: its share checked, the rate and the time left (a line that a
 * terminal overwrites in place; with --progress elsewhere, a line a tick). */
static void on_tick(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done, uint64_t total,
		    double seconds)
{
	struct vctx *v = ctx;
	if (v->quiet || !total)
		return;
	double rate = seconds > 0 ? (double)done / seconds : 0;
	char line[160];
	int n = snprintf(line, sizeof line, "verify: tier %u of %u: %5.1f%%, %.2f M indices/s",
			 tier, ntiers, 100.0 * (double)done / (double)total, rate / 1e6);
	if (rate > 0)
		snprintf(line + n, sizeof line - (size_t)n, ", about %.0f s left in the tier",
			 (double)(total - done) / rate);
	bp_cli_tick_line(v->tty, &v->open, line);
}

static void on_problem(void *ctx, const char *what)
{
	struct vctx *v = ctx;
	bp_cli_end_tick_line(v->tty, &v->open);
	if (v->shown++ < 50)
		fprintf(stderr, "verify: %s\n", what);
	else if (v->shown == 51)
		fprintf(stderr, "verify: (further problems not shown)\n");
}

static void on_progress(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t checked)
{
	struct vctx *v = ctx;
	bp_cli_end_tick_line(v->tty, &v->open);
	if (!v->quiet)
		fprintf(stderr, "verify: tier %u of %u %s (%llu positions so far)\n", tier, ntiers,
			v->hash_only ? "hashed" : "checked", (unsigned long long)checked);
}

static void on_enumerated(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t positions,
			  double seconds)
{
	struct vctx *v = ctx;
	bp_cli_end_tick_line(v->tty, &v->open);
	if (!v->quiet)
		fprintf(stderr,
			"verify: reachable positions enumerated afresh: tier %u of %u: %llu (%.1f "
			"s)\n",
			tier, ntiers, (unsigned long long)positions, seconds);
}

int bp_cmd_verify(int argc, char **argv)
{
	const char *cmd = "verify";
	static const char *const valued[] = { "db", "threads", "sample", "seed", "spill", NULL };
	struct bp_cli_args a;
	bp_store *db = NULL;
	struct specs specs = { 0 };
	struct bp_text out = { 0 };
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (strcmp(argv[i], "--proofs") == 0)
			return bp_cmd_verify_proofs(argc, argv);
	int hash_only = bp_cli_take_flag(&argc, argv, "--hash-only");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos > 1) {
		bp_cli_error(cmd, "expected at most one GAME (see boardproof verify --help)");
		return BP_EXIT_USAGE;
	}
	int threads;
	if ((rc = bp_cli_threads(cmd, a.opt[1], &threads)))
		return rc;
	uint64_t sample = 0, seed = 1;
	if (a.opt[2] && (bp_cli_parse_u64(a.opt[2], &sample) || sample == 0)) {
		bp_cli_error(cmd, "bad --sample '%s' (a whole number, at least 1)", a.opt[2]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[3] && bp_cli_parse_u64(a.opt[3], &seed)) {
		bp_cli_error(cmd, "bad --seed '%s' (a whole number)", a.opt[3]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[3] && !sample) {
		bp_cli_error(cmd, "--seed goes with --sample");
		return BP_EXIT_USAGE;
	}
	if (sample && hash_only) {
		bp_cli_error(cmd, "--sample and --hash-only exclude each other");
		return BP_EXIT_USAGE;
	}
	if (a.npos == 1) {
		struct bp_game *g;
		struct bp_err err = { { 0 } };
		if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
			return rc;
		/* a family spec: every member's table */
		int frc = bp_game_is_family(g)
				  ? g->ops->family_list(g, collect_member, &specs, &err)
				  : (collect(&specs, g->spec), BP_OK);
		if (frc) {
			bp_cli_error(cmd, "%s: listing its instances: %s", g->spec,
				     err.msg[0] ? err.msg : bp_strerror(frc));
			rc = bp_cli_exit_code(frc);
		}
		bp_game_destroy(g);
		if (rc)
			goto out;
	}
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[0]), BP_STORE_READONLY, &db)))
		goto out;
	if (a.npos == 0) {
		int lrc = bp_store_tables(db, collect, &specs);
		if (lrc) {
			bp_cli_error(cmd, "listing tables: %s", bp_strerror(lrc));
			rc = BP_EXIT_DB;
			goto out;
		}
	}
	if (specs.oom) { /* never verify fewer tables than asked and call it done */
		bp_cli_error(cmd, "listing tables: %s", bp_strerror(BP_ENOMEM));
		rc = BP_EXIT_IO;
		goto out;
	}
	struct bp_verify_report total = { 0 };
	int any_corrupt = 0, any_problem = 0;
	if (a.json)
		bp_text_printf(&out, "{\"tables\": [");
	/* how the full check holds tiers, and its cache's bytes: for tests, and for tables
	 * at the machine's limit (see --help, "Environment") */
	int packed = 0;
	uint64_t cache_bytes = 0;
	const char *pk = getenv("BOARDPROOF_VERIFY_PACKED");
	const char *cb = getenv("BOARDPROOF_VERIFY_CACHE_BYTES");
	if (pk && strcmp(pk, "always") && strcmp(pk, "never") && strcmp(pk, "auto")) {
		bp_cli_error(cmd, "bad BOARDPROOF_VERIFY_PACKED '%s' (always, never or auto)", pk);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	packed = !pk ? 0 : strcmp(pk, "always") == 0 ? 1 : strcmp(pk, "never") == 0 ? -1 : 0;
	if (cb && (bp_cli_parse_bytes(cb, &cache_bytes) || cache_bytes == 0)) {
		bp_cli_error(
			cmd,
			"bad BOARDPROOF_VERIFY_CACHE_BYTES '%s' (bytes, or a number with K, M, "
			"G or T)",
			cb);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < specs.n; i++) {
		struct bp_game *g = NULL;
		bp_table *tab = NULL;
		struct bp_verify_report r = { 0 };
		struct vctx vc = { .quiet = !(a.progress || isatty(2)),
				   .hash_only = hash_only,
				   .tty = isatty(2) };
		if ((rc = bp_cli_open_game(cmd, specs.v[i], &g)))
			goto out;
		if ((rc = bp_cli_open_table(cmd, db, g, &tab))) {
			bp_game_destroy(g);
			goto out;
		}
		struct bp_verify_opts vo = { .threads = threads,
					     .problem = on_problem,
					     .progress = on_progress,
					     .enumerated = on_enumerated,
					     .tick = on_tick,
					     .ctx = &vc,
					     .hash_only = hash_only,
					     .sample = sample,
					     .seed = seed };
		vo.packed = packed;
		vo.cache_bytes = cache_bytes;
		vo.spill_dir = a.opt[4];
		int vrc = bp_verify(g, tab, &vo, &r);
		bp_table_close(tab);
		bp_game_destroy(g);
		if (vrc) {
			bp_cli_error(cmd, "%s: %s", specs.v[i], bp_strerror(vrc));
			rc = vrc == BP_EUNSUPPORTED ? BP_EXIT_PROBLEM : BP_EXIT_DB;
			goto out;
		}
		int ok = !r.inconsistencies && !r.corrupt_blocks && !r.missing_tiers;
		any_corrupt |= r.corrupt_blocks > 0;
		any_problem |= !ok;
		total.positions_checked += r.positions_checked;
		total.positions_hashed += r.positions_hashed;
		total.inconsistencies += r.inconsistencies;
		total.corrupt_blocks += r.corrupt_blocks;
		total.missing_tiers += r.missing_tiers;
		total.content_hash ^= r.content_hash;
		char hash[24] = "null"; /* a sample has no content hash */
		if (!sample)
			snprintf(hash, sizeof hash, "\"%016llx\"",
				 (unsigned long long)r.content_hash);
		/* an index of reachable positions, and how many a fresh enumeration reached */
		char idx[96] = "";
		if (r.index_enumerated)
			snprintf(idx, sizeof idx,
				 ", \"index\": \"sparse\", \"index_enumerated\": %llu",
				 (unsigned long long)r.index_enumerated);
		if (a.json)
			bp_text_printf(
				&out,
				"%s{\"instance\": \"%s\", \"ok\": %s, \"positions_checked\": %llu, "
				"\"positions_hashed\": %llu, "
				"\"inconsistencies\": %llu, \"corrupt_blocks\": %llu, "
				"\"missing_tiers\": %llu, \"content_hash\": %s%s}",
				i ? ", " : "", specs.v[i], ok ? "true" : "false",
				(unsigned long long)r.positions_checked,
				(unsigned long long)r.positions_hashed,
				(unsigned long long)r.inconsistencies,
				(unsigned long long)r.corrupt_blocks,
				(unsigned long long)r.missing_tiers, hash, idx);
		else {
			bp_text_printf(&out, "%s: %s: ", specs.v[i], ok ? "ok" : "PROBLEMS");
			if (hash_only)
				bp_text_printf(&out,
					       "%llu positions hashed (values not re-derived), ",
					       (unsigned long long)r.positions_hashed);
			else if (sample)
				bp_text_printf(
					&out,
					"%llu positions drawn at random (seed %llu) checked, "
					"%llu inconsistencies, ",
					(unsigned long long)r.positions_checked,
					(unsigned long long)seed,
					(unsigned long long)r.inconsistencies);
			else
				bp_text_printf(&out,
					       "%llu positions checked, %llu inconsistencies, ",
					       (unsigned long long)r.positions_checked,
					       (unsigned long long)r.inconsistencies);
			bp_text_printf(&out, "%llu corrupt blocks, %llu tiers missing",
				       (unsigned long long)r.corrupt_blocks,
				       (unsigned long long)r.missing_tiers);
			if (sample)
				bp_text_printf(
					&out, " (blocks read only where the sample needed them)\n");
			else
				bp_text_printf(&out, "; content hash %016llx\n",
					       (unsigned long long)r.content_hash);
			if (r.index_enumerated)
				bp_text_printf(
					&out,
					"  index: %llu reachable positions enumerated afresh "
					"by the rules and compared with the stored index\n",
					(unsigned long long)r.index_enumerated);
		}
	}
	if (a.json) {
		bp_text_printf(
			&out,
			"], \"ok\": %s, \"positions_checked\": %llu, \"positions_hashed\": %llu, "
			"\"inconsistencies\": %llu, \"corrupt_blocks\": %llu, \"missing_tiers\": "
			"%llu, \"hash_only\": %s, ",
			any_problem ? "false" : "true", (unsigned long long)total.positions_checked,
			(unsigned long long)total.positions_hashed,
			(unsigned long long)total.inconsistencies,
			(unsigned long long)total.corrupt_blocks,
			(unsigned long long)total.missing_tiers, hash_only ? "true" : "false");
		if (sample)
			bp_text_printf(&out, "\"sample\": %llu, \"seed\": %llu, ",
				       (unsigned long long)sample, (unsigned long long)seed);
		bp_text_printf(&out, "\"content_hash\": ");
		if (specs.n == 1 && !sample)
			bp_text_printf(&out, "\"%016llx\"}\n",
				       (unsigned long long)total.content_hash);
		else
			bp_text_printf(&out, "null}\n");
	} else if (specs.n == 0) {
		bp_text_printf(&out, "no tables in the database\n");
	}
	if (out.failed) { /* a report cut short is no report */
		bp_cli_error(cmd, "writing the report: %s", bp_strerror(BP_ENOMEM));
		rc = BP_EXIT_IO;
		goto out;
	}
	fputs(bp_text_str(&out), stdout);
	rc = any_corrupt ? BP_EXIT_DB : any_problem ? BP_EXIT_PROBLEM : BP_EXIT_OK;
out:
	for (int i = 0; i < specs.n; i++)
		free(specs.v[i]);
	free(specs.v);
	bp_text_free(&out);
	if (db)
		bp_store_close(db);
	return rc;
}
