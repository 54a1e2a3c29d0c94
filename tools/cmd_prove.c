/* SPDX-License-Identifier: MIT */
/* boardproof prove GAME [--position P]: the value of one position by proof-number search
 * (solver/dfpn.h), with solved tables and earlier proofs of the database as an
 * endgame oracle (solver/dfpn_db.h) and, with --save-proof, a checkable proof tree
 * (solver/proof.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "solver/dfpn.h"
#include "solver/dfpn_db.h"
#include "solver/proof.h"
#include "tools/cli.h"
#include "tools/commands.h"

static const char *stopped_by(int stopped)
{
	return stopped == 1 ? "time limit" : stopped == 2 ? "node limit" : "interrupt";
}

/* The position a search proves, so that the progress line can name a move of it: set
 * before each search, read by the progress callback while that search runs. */
static struct {
	const struct bp_game *g;
	struct bp_pos root;
} shown;

static const char *number_text(char *buf, size_t len, uint32_t v)
{
	if (v == BP_DFPN_INF)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%u", v);
	return buf;
}

static void progress(void *ctx, const struct bp_dfpn_progress *p)
{
	(void)ctx;
	char below[200] = "", a[16], b[16];
	if (p->child_set && shown.g) {
		/* the root's numbers move only when a call on a child returns: say which
		 * child is being searched, and how its numbers move */
		struct bp_text m = { 0 };
		shown.g->ops->move_format(shown.g, &shown.root, p->child_move, &m);
		snprintf(below, sizeof below, "; under %s pn %s dn %s, at ply %d",
			 m.failed ? "?" : bp_text_str(&m), number_text(a, sizeof a, p->child_pn),
			 number_text(b, sizeof b, p->child_dn), p->depth);
		bp_text_free(&m);
	}
	fprintf(stderr,
		"prove: %s search: root pn %s dn %s%s, %llu nodes, %.1f s, table %.1f%% full\n",
		p->search ? "not-lose" : "win", number_text(a, sizeof a, p->pn),
		number_text(b, sizeof b, p->dn), below, (unsigned long long)p->nodes, p->seconds,
		p->tt_entries ? 100.0 * (double)p->tt_used / (double)p->tt_entries : 0);
}

/* The proof's build, every 65536 decisions. */
static void build_progress(void *ctx, uint64_t decisions, uint64_t bytes)
{
	(void)ctx;
	fprintf(stderr, "prove: building the proof: %llu decisions, %.1f MB compressed\n",
		(unsigned long long)decisions, (double)bytes / 1e6);
}

static uint64_t peak_rss(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;
}

static void number_or_null(struct bp_text *t, uint32_t v)
{
	if (v == BP_DFPN_INF)
		bp_text_printf(t, "\"inf\"");
	else
		bp_text_printf(t, "%u", v);
}

/* Removes a flag from argv (bp_cli_parse knows only the common flags). @return 1 if
 * it was there. */
static int take_flag(int *argc, char **argv, const char *flag)
{
	int found = 0, j = 0;
	for (int i = 0; i < *argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			while (i < *argc)
				argv[j++] = argv[i++];
			break;
		}
		if (i > 0 && strcmp(argv[i], flag) == 0)
			found = 1;
		else
			argv[j++] = argv[i];
	}
	*argc = j;
	return found;
}

/* Prints the report, unless building it ran out of memory. @return the exit code. */
static int print_out(const char *cmd, const struct bp_text *out, const struct bp_text *pos)
{
	if (out->failed || pos->failed) {
		bp_cli_error(cmd, "out of memory");
		return BP_EXIT_IO;
	}
	fputs(bp_text_str(out), stdout);
	return 0;
}

/* --keep-table: writes the table to the file kept, saying so. @return as bp_dfpn_keep. */
static int write_kept(const bp_dfpn *d, const char *kept, struct bp_err *err)
{
	fprintf(stderr, "prove: writing the table to %s\n", kept);
	return bp_dfpn_keep(d, kept, err);
}

/* --keep-table: an undecided search's table is written for a later run; once every
 * search is decided, a table kept before is removed (its disk space is the table's
 * memory). @return 0 or the exit code. */
static int keep_or_drop(const char *cmd, const bp_dfpn *d, const char *kept, int unknown)
{
	struct bp_err err = { { 0 } };
	if (!unknown) {
		if (unlink(kept) && errno != ENOENT) {
			bp_cli_error(cmd, "removing the kept table %s: %s", kept, strerror(errno));
			return BP_EXIT_IO;
		}
		return 0;
	}
	if (write_kept(d, kept, &err)) {
		bp_cli_error(cmd, "keeping the table: %s", err.msg);
		return BP_EXIT_IO;
	}
	return 0;
}

/* --keep-table: the table written while searching (bp_dfpn_opts.keep), every
 * --keep-every seconds; a failure leaves the file kept before and the search goes on. */
static void keep_now(void *ctx, const bp_dfpn *d)
{
	struct bp_err err = { { 0 } };
	if (write_kept(d, ctx, &err))
		fprintf(stderr, "prove: warning: keeping the table: %s (the search goes on)\n",
			err.msg);
}

struct prove_state {
	struct bp_game *g;
	bp_dfpn *d;
	struct bp_dfpn_db *db;
	int save_proof;
	int progress;
	uint64_t lemmas; /* saved proofs the builds took whole */
};

/* Proves p; fills r and, when asked or for proof_size, builds the proof. */
static int prove_one(const char *cmd, struct prove_state *st, const struct bp_pos *p,
		     struct bp_dfpn_result *r, uint64_t *proof_size, int save)
{
	struct bp_err err = { { 0 } };
	shown.g = st->g;
	shown.root = *p;
	int rc = bp_dfpn_prove(st->d, p, r, &err);
	*proof_size = 0;
	if (rc) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(rc));
		return rc == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_PROBLEM;
	}
	if (st->db && (rc = bp_dfpn_db_checkpoint(st->db))) {
		const char *why = bp_dfpn_db_proven_why(st->db);
		if (rc == BP_EIO && *why) /* the cause of a failed write, named by the store */
			bp_cli_error(cmd, "writing the proven values: %s", why);
		else
			bp_cli_error(cmd, "writing the proven values: %s%s%s%s", bp_strerror(rc),
				     *why ? " (" : "", why, *why ? ")" : "");
		return bp_cli_exit_code(rc);
	}
	if (r->value == BP_VALUE_NONE)
		return 0;
	struct bp_proof *pf = NULL;
	const struct bp_proof_progress bp = { build_progress, NULL };
	/* proofs saved before are taken whole where the build reaches their roots */
	struct bp_proof_lemmas lem, *lemmas = NULL;
	if (st->db) {
		bp_dfpn_db_lemmas(st->db, &lem);
		lemmas = &lem;
	}
	rc = bp_proof_build(st->d, st->g, st->db ? bp_dfpn_db_table(st->db) : NULL, lemmas, p,
			    r->value, st->progress ? &bp : NULL, &pf, &err);
	if (rc) {
		bp_cli_error(cmd, "building the proof: %s", err.msg[0] ? err.msg : bp_strerror(rc));
		return BP_EXIT_PROBLEM;
	}
	*proof_size = bp_proof_size(pf);
	st->lemmas += bp_proof_lemmas_taken(pf);
	if (save && st->db) {
		rc = bp_dfpn_db_save_proof(st->db, pf, &err); /* frees pf */
		if (rc) {
			bp_cli_error(cmd, "saving the proof: %s",
				     err.msg[0] ? err.msg : bp_strerror(rc));
			return bp_cli_exit_code(rc);
		}
	} else
		bp_proof_free(pf);
	return 0;
}

int bp_cmd_prove(int argc, char **argv)
{
	const char *cmd = "prove";
	static const char *const valued[] = { "position", "memory", "time-limit", "max-nodes",
					      "threads",  "db",	    "checkpoint", "moves",
					      "pn-rule",  "init",   "keep-every", NULL };
	struct bp_cli_args a;
	struct prove_state st = { 0 };
	struct bp_text out = { 0 }, pos = { 0 };
	/* Ctrl-C (bp_cli_catch_sigint, once: a second ends the process at once): the
	 * search stops as at a limit, its proven values are written out as at any end,
	 * and the command reports the root's numbers and exits 130 */
	struct bp_cli_sigint sigint = { .caught = 0 };
	int cut = 0; /* cut: the interrupt stopped a search */
	int openings = take_flag(&argc, argv, "--openings");
	st.save_proof = take_flag(&argc, argv, "--save-proof");
	int keep = take_flag(&argc, argv, "--keep-table");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos < 1) {
		bp_cli_error(cmd, "missing GAME (see boardproof prove --help)");
		return BP_EXIT_USAGE;
	}
	if (a.npos > 1) {
		bp_cli_error(cmd, "unexpected '%s' (the position goes after --position)", a.pos[1]);
		return BP_EXIT_USAGE;
	}
	struct bp_dfpn_opts o = { 0 };
	o.memory = (uint64_t)256 << 20;
	if (a.opt[1] && bp_cli_parse_bytes(a.opt[1], &o.memory)) {
		bp_cli_error(cmd, "bad --memory '%s' (bytes, or a number with K, M, G or T)",
			     a.opt[1]);
		return BP_EXIT_USAGE;
	}
	struct sysinfo si;
	if (sysinfo(&si) == 0 && o.memory > (uint64_t)si.totalram * si.mem_unit) {
		bp_cli_error(cmd, "--memory %s is more than this machine's memory", a.opt[1]);
		return BP_EXIT_USAGE;
	}
	if (o.memory < BP_DFPN_MIN_MEMORY) {
		bp_cli_error(cmd, "--memory %s is too small: the table needs at least %llu bytes",
			     a.opt[1], (unsigned long long)BP_DFPN_MIN_MEMORY);
		return BP_EXIT_USAGE;
	}
	if (a.opt[2]) {
		char *end;
		o.time_limit = strtod(a.opt[2], &end);
		if (*end || !(o.time_limit > 0)) {
			bp_cli_error(cmd, "bad --time-limit '%s' (seconds, more than 0)", a.opt[2]);
			return BP_EXIT_USAGE;
		}
	}
	if (a.opt[3] && (bp_cli_parse_u64(a.opt[3], &o.max_nodes) || o.max_nodes == 0)) {
		bp_cli_error(cmd, "bad --max-nodes '%s' (a whole number, at least 1)", a.opt[3]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[8] && strcmp(a.opt[8], "sum") && strcmp(a.opt[8], "weak") &&
	    strcmp(a.opt[8], "game")) {
		bp_cli_error(cmd, "bad --pn-rule '%s' (sum, weak or game)", a.opt[8]);
		return BP_EXIT_USAGE;
	}
	if (a.opt[9] && strcmp(a.opt[9], "1") && strcmp(a.opt[9], "moves") &&
	    strcmp(a.opt[9], "game")) {
		bp_cli_error(cmd, "bad --init '%s' (1, moves or game)", a.opt[9]);
		return BP_EXIT_USAGE;
	}
	const char *bounds = getenv("BOARDPROOF_PROVE_BOUNDS");
	if (bounds && strcmp(bounds, "on") && strcmp(bounds, "off")) {
		bp_cli_error(cmd, "bad BOARDPROOF_PROVE_BOUNDS '%s' (on or off)", bounds);
		return BP_EXIT_USAGE;
	}
	o.no_bounds = bounds && !strcmp(bounds, "off");
	o.threads = 1;
	if (a.opt[4] && (rc = bp_cli_threads(cmd, a.opt[4], &o.threads)))
		return rc;
	if (a.progress || isatty(2)) {
		o.progress = progress;
		st.progress = 1;
	}
	o.cancel = bp_cli_cancel;
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &st.g)))
		return rc;
	/* the guidance: the game's advice, then what the command line says */
	bp_dfpn_advised(st.g, &o);
	if (a.opt[8] && strcmp(a.opt[8], "game"))
		o.pn_rule = strcmp(a.opt[8], "weak") ? BP_DFPN_PN_SUM : BP_DFPN_PN_WEAK;
	if (a.opt[9] && strcmp(a.opt[9], "game"))
		o.init = strcmp(a.opt[9], "moves") ? BP_DFPN_INIT_ONE : BP_DFPN_INIT_MOVES;
	struct bp_pos p;
	if ((rc = bp_cli_open_position_moves(cmd, st.g, a.opt[0], a.opt[7], &p)))
		goto out;
	if (st.g->ops->outcome(st.g, &p) != BP_VALUE_NONE && !openings) {
		bp_cli_error(cmd,
			     "the position is over (%s for the player to move): nothing to prove",
			     bp_value_name(st.g->ops->outcome(st.g, &p)));
		rc = BP_EXIT_USAGE;
		goto out;
	}
	const char *path = bp_cli_db_path(a.opt[5]);
	char kept[4200];
	int resumed = 0, unknown = 0; /* unknown: some search ended undecided */
	struct bp_err err = { { 0 } };
	int drc = bp_dfpn_db_open(path, st.g, BP_STORE_CREATE, &st.db, &err);
	if (drc == BP_ERULES)
		bp_cli_rules_error(cmd, st.g->spec, err.msg);
	else if (drc)
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(drc));
	if (drc) {
		rc = bp_cli_exit_code(drc);
		goto out;
	}
	bp_dfpn_db_attach(st.db, &o);
	if (a.opt[6]) {
		char *end;
		double iv = strtod(a.opt[6], &end);
		if (*end || !(iv >= 0)) {
			bp_cli_error(cmd, "bad --checkpoint '%s' (seconds, 0 or more)", a.opt[6]);
			rc = BP_EXIT_USAGE;
			goto out;
		}
		bp_dfpn_db_set_interval(st.db, iv);
	}
	if (a.opt[10] && !keep) {
		bp_cli_error(cmd, "--keep-every needs --keep-table");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (keep) {
		o.keep_interval = 1800;
		char *end;
		if (a.opt[10] &&
		    (o.keep_interval = strtod(a.opt[10], &end), *end || !(o.keep_interval > 0))) {
			bp_cli_error(cmd, "bad --keep-every '%s' (seconds, more than 0)",
				     a.opt[10]);
			rc = BP_EXIT_USAGE;
			goto out;
		}
		if (bp_dfpn_kept_path(st.g, path, kept, sizeof kept)) {
			bp_cli_error(cmd, "the database path %s is too long", path);
			rc = BP_EXIT_USAGE;
			goto out;
		}
		o.keep = keep_now;
		o.keep_ctx = kept;
	}
	if ((drc = bp_dfpn_create(st.g, &o, &st.d, &err))) {
		bp_cli_error(cmd, "%s", err.msg);
		rc = drc == BP_ERANGE ? BP_EXIT_USAGE : BP_EXIT_IO;
		goto out;
	}
	bp_cli_position_text(st.g, &p, &pos);
	if (keep) {
		drc = bp_dfpn_resume(st.d, kept, &err);
		if (drc && drc != BP_ENOTFOUND) {
			bp_cli_error(cmd, "the kept table: %s", err.msg);
			rc = drc == BP_ERANGE ? BP_EXIT_USAGE
			     : drc == BP_EIO  ? BP_EXIT_IO
					      : BP_EXIT_DB;
			goto out;
		}
		resumed = drc == BP_OK;
		if (resumed)
			fprintf(stderr, "prove: going on from the table kept in %s\n", kept);
	}
	bp_cli_catch_sigint(&sigint, 1);
	struct bp_dfpn_result r;
	uint64_t proof_size = 0;
	if (openings) {
		struct bp_move *mv = bp_game_move_buffer(st.g);
		if (!mv) {
			bp_cli_error(cmd, "out of memory");
			rc = BP_EXIT_IO;
			goto out;
		}
		int n = st.g->ops->moves(st.g, &p, mv);
		struct bp_dfpn_result tot = { 0 };
		if (a.json) {
			bp_text_printf(&out, "{\"instance\": ");
			bp_text_json_string(&out, st.g->spec);
			bp_text_printf(&out, ", \"position\": ");
			bp_text_json_string(&out, bp_text_str(&pos));
			bp_text_printf(&out, ", \"pn_rule\": \"%s\", \"init\": \"%s\"",
				       bp_dfpn_pn_rule_name(o.pn_rule), bp_dfpn_init_name(o.init));
			bp_text_printf(&out, ", \"openings\": [");
		} else
			bp_text_printf(&out, "%s: %s\nopenings (values for the mover):\n",
				       st.g->spec, bp_text_str(&pos));
		int i;
		for (i = 0; i < n && !rc && !bp_cli_interrupted(); i++) {
			struct bp_pos c = p;
			struct bp_text m = { 0 };
			st.g->ops->move_format(st.g, &p, mv[i], &m);
			if (m.failed) { /* a report without the move's name is no report */
				bp_text_free(&m);
				bp_cli_error(cmd, "out of memory");
				rc = BP_EXIT_IO;
				break;
			}
			st.g->ops->apply(st.g, &c, mv[i]);
			enum bp_value v = st.g->ops->outcome(st.g, &c);
			memset(&r, 0, sizeof r);
			proof_size = 1;
			if (v == BP_VALUE_NONE) {
				rc = prove_one(cmd, &st, &c, &r, &proof_size, st.save_proof);
				v = r.value;
			}
			cut |= r.stopped == 3;
			unknown |= v == BP_VALUE_NONE;
			tot.nodes += r.nodes;
			tot.seconds += r.seconds;
			enum bp_value mover = bp_value_flip(v);
			if (a.json) {
				bp_text_printf(&out, "%s{\"move\": ", i ? ", " : "");
				bp_text_json_string(&out, bp_text_str(&m));
				bp_text_printf(&out, ", \"value\": \"%s\", \"proof_size\": ",
					       v == BP_VALUE_NONE ? "unknown"
								  : bp_value_name(mover));
				if (v == BP_VALUE_NONE)
					bp_text_printf(&out, "null");
				else
					bp_text_printf(&out, "%llu",
						       (unsigned long long)proof_size);
				bp_text_printf(&out, ", \"nodes\": %llu}",
					       (unsigned long long)r.nodes);
			} else
				bp_text_printf(
					&out, "  %-10s %-8s proof %llu nodes, %llu searched\n",
					bp_text_str(&m),
					v == BP_VALUE_NONE ? "unknown" : bp_value_name(mover),
					(unsigned long long)proof_size,
					(unsigned long long)r.nodes);
			bp_text_free(&m);
		}
		free(mv);
		if (rc)
			goto out;
		cut |= bp_cli_interrupted() && i < n; /* the interrupt came between two openings */
		unknown |= i < n;
		if (keep && (rc = keep_or_drop(cmd, st.d, kept, unknown)))
			goto out;
		if (a.json)
			bp_text_printf(&out,
				       "], \"stopped\": %s, \"nodes\": %llu, \"seconds\": %.3f, "
				       "\"nodes_per_second\": %.0f, \"peak_memory_bytes\": %llu, "
				       "\"table_resumed\": %s, \"table_kept\": %s}\n",
				       cut ? "\"interrupt\"" : "null",
				       (unsigned long long)tot.nodes, tot.seconds,
				       tot.seconds > 0 ? (double)tot.nodes / tot.seconds : 0,
				       (unsigned long long)peak_rss(), resumed ? "true" : "false",
				       keep && unknown ? "true" : "false");
		else
			bp_text_printf(&out, "nodes: %llu in %.2f s%s\n",
				       (unsigned long long)tot.nodes, tot.seconds,
				       cut ? " (stopped by the interrupt)" : "");
		rc = print_out(cmd, &out, &pos);
		goto out;
	}
	if ((rc = prove_one(cmd, &st, &p, &r, &proof_size, st.save_proof)))
		goto out;
	cut = r.stopped == 3;
	unknown = r.value == BP_VALUE_NONE;
	if (keep && (rc = keep_or_drop(cmd, st.d, kept, unknown)))
		goto out;
	double nps = r.seconds > 0 ? (double)r.nodes / r.seconds : 0;
	double hit = r.tt_probes ? (double)r.tt_hits / (double)r.tt_probes : 0;
	int known = r.value != BP_VALUE_NONE;
	if (a.json) {
		bp_text_printf(&out, "{\"instance\": ");
		bp_text_json_string(&out, st.g->spec);
		bp_text_printf(&out, ", \"position\": ");
		bp_text_json_string(&out, bp_text_str(&pos));
		bp_text_printf(&out, ", \"value\": \"%s\", \"remoteness\": null, \"proof_size\": ",
			       known ? bp_value_name(r.value) : "unknown");
		if (known)
			bp_text_printf(&out, "%llu", (unsigned long long)proof_size);
		else
			bp_text_printf(&out, "null");
		bp_text_printf(&out, ", \"root_pn\": ");
		number_or_null(&out, r.pn);
		bp_text_printf(&out, ", \"root_dn\": ");
		number_or_null(&out, r.dn);
		bp_text_printf(
			&out,
			", \"search\": \"%s\", \"searches\": %d, \"stopped\": %s, "
			"\"nodes\": %llu, \"evaluated\": %llu, \"seconds\": %.3f, "
			"\"nodes_per_second\": %.0f, \"tt_hit_rate\": %.4f, "
			"\"outcome_cache_hits\": %llu, "
			"\"tt_entries\": %llu, \"tt_used\": %llu, \"threads\": %d, "
			"\"pn_rule\": \"%s\", \"init\": \"%s\", "
			"\"peak_memory_bytes\": %llu, \"proof_saved\": %s, "
			"\"proof_lemmas\": %llu, \"table_resumed\": %s, \"table_kept\": %s}\n",
			r.search ? "not-lose" : "win", r.searches,
			r.stopped == 1	 ? "\"time-limit\""
			: r.stopped == 2 ? "\"max-nodes\""
			: r.stopped == 3 ? "\"interrupt\""
					 : "null",
			(unsigned long long)r.nodes, (unsigned long long)r.evaluated, r.seconds,
			nps, hit, (unsigned long long)r.outcome_hits,
			(unsigned long long)r.tt_entries, (unsigned long long)r.tt_used, o.threads,
			bp_dfpn_pn_rule_name(o.pn_rule), bp_dfpn_init_name(o.init),
			(unsigned long long)peak_rss(),
			st.save_proof && known && st.db ? "true" : "false",
			(unsigned long long)st.lemmas, resumed ? "true" : "false",
			keep && unknown ? "true" : "false");
	} else {
		bp_text_printf(&out, "%s: %s\n", st.g->spec, bp_text_str(&pos));
		if (known)
			bp_text_printf(
				&out,
				"value:   %s for the player to move (proof: %llu decisions)\n",
				bp_value_name(r.value), (unsigned long long)proof_size);
		else
			bp_text_printf(
				&out,
				"value:   unknown (stopped by the %s; %s search: root pn %u, "
				"dn %u)\n",
				stopped_by(r.stopped), r.search ? "not-lose" : "win", r.pn, r.dn);
		bp_text_printf(&out,
			       "search:  %llu nodes in %.2f s, %.0f nodes per second, %d "
			       "search%s, %d thread%s\n",
			       (unsigned long long)r.nodes, r.seconds, nps, r.searches,
			       r.searches > 1 ? "es" : "", o.threads, o.threads > 1 ? "s" : "");
		bp_text_printf(&out, "table:   %.1f%% hits, %llu of %llu entries used\n", 100 * hit,
			       (unsigned long long)r.tt_used, (unsigned long long)r.tt_entries);
		bp_text_printf(&out, "memory:  peak %.1f MiB\n", (double)peak_rss() / (1 << 20));
		if (st.save_proof && known)
			bp_text_printf(&out, "proof:   saved in %s\n", path);
	}
	rc = print_out(cmd, &out, &pos);
out:
	if (cut && !rc) {
		bp_cli_error(cmd,
			     "interrupted; the values proven so far are stored in %s: run the same "
			     "command again to go on from them",
			     bp_cli_db_path(a.opt[5]));
		rc = BP_EXIT_INTERRUPTED;
	}
	bp_cli_release_sigint(&sigint);
	bp_dfpn_destroy(st.d);
	bp_dfpn_db_close(st.db);
	bp_text_free(&out);
	bp_text_free(&pos);
	bp_game_destroy(st.g);
	return rc;
}

struct vp {
	const struct bp_game *g;
	bp_table *t;
	uint64_t checked, failed;
	int oom; /* out of memory while decoding or checking: no verdict */
	int json;
	struct bp_text out;
};

static int verify_one(void *ctx, const struct bp_proof *pf, int decode_rc, const char *why)
{
	struct vp *v = ctx;
	struct bp_text pos = { 0 };
	struct bp_proof_report rep = { 0 };
	int ok = 0;
	const char *problem = why;
	if (decode_rc == BP_OK) {
		bp_cli_position_text(v->g, bp_proof_root(pf), &pos);
		if (pos.failed)
			v->out.failed = 1; /* the report would name no position: out of memory */
		int rc = bp_proof_check(v->g, pf, v->t, &rep);
		ok = rc == BP_OK && rep.ok;
		problem = rc ? bp_strerror(rc) : rep.problem;
		if (rc == BP_ENOMEM)
			v->oom = 1;
	} else if (decode_rc == BP_ENOMEM)
		v->oom = 1; /* a proof that could not be read is no failing proof */
	v->checked++;
	v->failed += !ok;
	if (v->json) {
		bp_text_printf(&v->out, "%s{\"position\": ", v->checked > 1 ? ", " : "");
		bp_text_json_string(&v->out, decode_rc ? "" : bp_text_str(&pos));
		bp_text_printf(&v->out, ", \"value\": \"%s\", \"ok\": %s, \"nodes\": %llu, ",
			       decode_rc ? "none" : bp_value_name(bp_proof_value(pf)),
			       ok ? "true" : "false", (unsigned long long)rep.nodes);
		bp_text_printf(&v->out,
			       "\"terminal_leaves\": %llu, \"table_leaves\": %llu, "
			       "\"bound_leaves\": %llu, \"problem\": ",
			       (unsigned long long)rep.terminal_leaves,
			       (unsigned long long)rep.table_leaves,
			       (unsigned long long)rep.bound_leaves);
		if (ok)
			bp_text_printf(&v->out, "null}");
		else
			bp_text_json_string(&v->out, problem);
	} else if (ok)
		bp_text_printf(
			&v->out,
			"proof of %s: %s holds (%llu decisions; leaves: %llu game over, "
			"%llu in the solved table, %llu by the bounds)\n",
			bp_text_str(&pos), bp_value_name(bp_proof_value(pf)),
			(unsigned long long)rep.nodes, (unsigned long long)rep.terminal_leaves,
			(unsigned long long)rep.table_leaves, (unsigned long long)rep.bound_leaves);
	else
		bp_text_printf(&v->out, "proof of %s: FAILS: %s\n",
			       decode_rc ? "?" : bp_text_str(&pos), problem);
	bp_text_free(&pos);
	return 0;
}

/* The saved proofs and proven values of instance g in the database at path, checked
 * (see bp_cmd_verify_proofs), the report appended to report (JSON: one object).
 * @return 0 all sound; BP_EXIT_PROBLEM (a proof fails); another exit code (the error
 * printed). */
static int proofs_of(const char *cmd, const struct bp_game *g, const char *path, int json,
		     struct bp_text *report)
{
	struct bp_dfpn_db *db = NULL;
	struct bp_err err = { { 0 } };
	int rc = 0, drc = bp_dfpn_db_open(path, g, BP_STORE_READONLY, &db, &err);
	if (drc == BP_ERULES)
		bp_cli_rules_error(cmd, g->spec, err.msg);
	else if (drc)
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(drc));
	if (drc)
		return BP_EXIT_DB;
	struct vp v = { g, bp_dfpn_db_table(db), 0, 0, 0, json, { 0 } };
	if (json) {
		bp_text_printf(&v.out, "{\"instance\": ");
		bp_text_json_string(&v.out, g->spec);
		bp_text_printf(&v.out, ", \"proofs\": [");
	}
	drc = bp_dfpn_db_each_proof(db, verify_one, &v);
	if (drc) {
		bp_cli_error(cmd, "%s: reading the proofs: %s%s%s", g->spec, bp_strerror(drc),
			     drc == BP_ECORRUPT ? ": " : "",
			     drc == BP_ECORRUPT ? bp_dfpn_db_why(db) : "");
		rc = BP_EXIT_DB;
		goto out;
	}
	uint64_t nproven;
	if ((drc = bp_dfpn_db_check_proven(db, &nproven))) {
		bp_cli_error(cmd, "%s: reading the proven values: %s%s%s", g->spec,
			     bp_strerror(drc), drc == BP_ECORRUPT ? ": " : "",
			     drc == BP_ECORRUPT ? bp_dfpn_db_why(db) : "");
		rc = BP_EXIT_DB;
		goto out;
	}
	if (json)
		bp_text_printf(&v.out,
			       "], \"checked\": %llu, \"failed\": %llu, \"proven_values\": %llu, "
			       "\"ok\": %s}",
			       (unsigned long long)v.checked, (unsigned long long)v.failed,
			       (unsigned long long)nproven, v.failed ? "false" : "true");
	else
		bp_text_printf(&v.out,
			       "%s: %llu saved proof%s checked, %llu failed; %llu proven value%s "
			       "read, every one sound\n",
			       g->spec, (unsigned long long)v.checked, v.checked == 1 ? "" : "s",
			       (unsigned long long)v.failed, (unsigned long long)nproven,
			       nproven == 1 ? "" : "s");
	if (v.out.failed || v.oom) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	bp_text_printf(report, "%s", bp_text_str(&v.out));
	rc = v.failed ? BP_EXIT_PROBLEM : 0;
out:
	bp_text_free(&v.out);
	bp_dfpn_db_close(db);
	return rc;
}

/* The instances with saved proofs under this tool's rules version, for verify --proofs
 * without GAME. */
struct proof_specs {
	char **spec;
	int n, cap, oom;
};

static int proof_spec(void *ctx, const struct bp_dfpn_saved *it)
{
	struct proof_specs *ps = ctx;
	if (it->kind != BP_DFPN_SAVED_PROOF || it->rules_version != BP_RULES_VERSION)
		return 0;
	if (ps->n && strcmp(ps->spec[ps->n - 1], it->spec) == 0)
		return 0; /* a key space's proofs come together */
	if (ps->n == ps->cap) {
		int cap = ps->cap ? 2 * ps->cap : 8;
		char **grown = realloc(ps->spec, sizeof *grown * (size_t)cap);
		if (!grown)
			return ps->oom = BP_ENOMEM;
		ps->spec = grown;
		ps->cap = cap;
	}
	if (!(ps->spec[ps->n] = strdup(it->spec)))
		return ps->oom = BP_ENOMEM;
	ps->n++;
	return 0; /* a damaged one is found again, and reported, by its own check */
}

int bp_cmd_verify_proofs(int argc, char **argv)
{
	const char *cmd = "verify";
	static const char *const valued[] = { "db", "threads", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_text report = { 0 };
	struct proof_specs ps = { 0 };
	take_flag(&argc, argv, "--proofs");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos > 1) {
		bp_cli_error(cmd, "expected at most one GAME (see boardproof verify --help)");
		return BP_EXIT_USAGE;
	}
	const char *path = bp_cli_db_path(a.opt[0]);
	if (a.npos == 1) {
		if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
			return rc;
		rc = proofs_of(cmd, g, path, a.json, &report);
		if (a.json && (rc == 0 || rc == BP_EXIT_PROBLEM))
			bp_text_printf(&report, "\n");
		goto out;
	}
	/* every instance with saved proofs */
	bp_store *db = NULL;
	if ((rc = bp_cli_open_store(cmd, path, BP_STORE_READONLY, &db)))
		return rc;
	int lrc = bp_dfpn_db_saved(db, proof_spec, &ps);
	bp_store_close(db);
	if (lrc || ps.oom) {
		bp_cli_error(cmd, "listing the saved proofs: %s", bp_strerror(lrc ? lrc : ps.oom));
		rc = bp_cli_exit_code(lrc ? lrc : ps.oom);
		goto out;
	}
	int failed = 0;
	if (a.json)
		bp_text_printf(&report, "{\"instances\": [");
	else if (!ps.n)
		bp_text_printf(&report, "no saved proofs in %s\n", path);
	for (int i = 0; i < ps.n && !rc; i++) {
		if ((rc = bp_cli_open_game(cmd, ps.spec[i], &g)))
			break;
		if (a.json && i)
			bp_text_printf(&report, ", ");
		rc = proofs_of(cmd, g, path, a.json, &report);
		bp_game_destroy(g);
		g = NULL;
		if (rc == BP_EXIT_PROBLEM)
			failed = 1, rc = 0;
	}
	if (a.json)
		bp_text_printf(&report, "], \"ok\": %s}\n", failed ? "false" : "true");
	if (!rc && failed)
		rc = BP_EXIT_PROBLEM;
out:
	if (rc == 0 || rc == BP_EXIT_PROBLEM) {
		if (report.failed) {
			bp_cli_error(cmd, "out of memory");
			rc = BP_EXIT_IO;
		} else
			fputs(bp_text_str(&report), stdout);
	}
	bp_text_free(&report);
	for (int i = 0; i < ps.n; i++)
		free(ps.spec[i]);
	free(ps.spec);
	bp_game_destroy(g);
	return rc;
}
