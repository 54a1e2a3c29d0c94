/* SPDX-License-Identifier: MIT */
/* boardproof list: the solved instances in the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/dfpn_db.h"
#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"

struct lister {
	bp_store *db;
	int json, n;
	struct bp_text *out;
	int rc;	       /* the first error: the listing stops there */
	char why[300]; /* what it was, naming the table */
};

/* Notes the first error met while listing. */
static void list_failed(struct lister *l, int rc, const char *spec, const char *what)
{
	if (l->rc)
		return;
	l->rc = rc;
	snprintf(l->why, sizeof l->why, "table %s: %s", spec, what);
}

/* One table's line. A table that cannot be opened or read is an error, never a line
 * left out or a value made up: the listing stops with it. */
static void one(void *ctx, const char *spec)
{
	struct lister *l = ctx;
	bp_table *tab = NULL;
	struct bp_table_meta m;
	struct bp_err err = { { 0 } };
	int rc;
	if (l->rc)
		return;
	if ((rc = bp_table_open(l->db, spec, NULL, BP_STORE_READONLY, &tab, &err)) ||
	    (rc = bp_table_meta_get(tab, &m))) {
		list_failed(l, rc, spec, err.msg[0] ? err.msg : bp_strerror(rc));
		bp_table_close(tab);
		return;
	}
	uint64_t positions = 0;
	uint32_t done = 0;
	for (uint32_t t = 0; t < m.ntiers; t++) {
		done += m.tier_done[t];
		for (int v = 1; v < 4; v++)
			positions += m.tier_count[(size_t)t * 4 + v];
	}
	/* the start position's value, when the game is known and the table complete and
	 * solved under these rules (a table of another rules version is never answered
	 * from: "outdated") */
	const char *value = m.rules_version != BP_RULES_VERSION ? "outdated" : "unfinished";
	unsigned rem = 0;
	struct bp_game *g = NULL;
	struct bp_probe pr;
	struct bp_pos p;
	if (m.rules_version == BP_RULES_VERSION && done == m.ntiers &&
	    (rc = bp_game_create(spec, &g, NULL)) == BP_OK) {
		/* read as every reader does (bp_probe_open): through the table's stored
		 * index of reachable positions where it has one */
		bp_table *pt = NULL;
		g->ops->start(g, &p);
		if ((rc = bp_probe_open(l->db, g, &pt, &err)) == BP_OK)
			rc = bp_probe_position(g, pt, &p, &pr);
		if (rc == BP_OK) {
			value = bp_value_name(pr.value);
			rem = pr.remoteness;
		} else if (err.msg[0]) {
			list_failed(l, rc, spec, err.msg);
		} else {
			const char *why = bp_table_why(tab);
			char what[200];
			snprintf(what, sizeof what, "reading the start position's value: %s%s%s%s",
				 bp_strerror(rc), *why ? " (" : "", why, *why ? ")" : "");
			list_failed(l, rc, spec, what);
		}
		bp_table_close(pt);
	} else if (rc == BP_ENOMEM) {
		list_failed(l, rc, spec, bp_strerror(rc));
	}
	double bpp = positions ? (double)m.stored_bytes * 8 / (double)positions : 0;
	char rbuf[24];
	if (l->json)
		bp_text_printf(
			l->out,
			"%s{\"instance\": \"%s\", \"value\": \"%s\", \"remoteness\": %s, "
			"\"positions\": %llu, \"tiers\": %u, \"tiers_done\": %u, \"stored_bytes\": "
			"%llu, "
			"\"bits_per_position\": %.4f, \"seconds\": %.3f, \"rules_version\": %u}",
			l->n ? ", " : "", spec, value, bp_cli_remoteness(rem, 1, rbuf),
			(unsigned long long)positions, m.ntiers, done,
			(unsigned long long)m.stored_bytes, bpp, m.seconds, m.rules_version);
	else
		bp_text_printf(
			l->out, "%-44s %-10s %5s %14llu %12llu %8.3f %3u/%-3u %5u\n", spec, value,
			rem == BP_RECORD_NO_REMOTENESS ? "rep" : bp_cli_remoteness(rem, 1, rbuf),
			(unsigned long long)positions, (unsigned long long)m.stored_bytes, bpp,
			done, m.ntiers, m.rules_version);
	l->n++;
	bp_game_destroy(g);
	bp_table_close(tab);
}

/* Proof-number search's part of the database (bp_dfpn_db_saved): saved proofs and
 * proven values, each kind in its own text (a section each, printed when it has lines)
 * and JSON array. A damaged one is an error, as a damaged table is: the listing stops. */
struct saved_lister {
	struct lister *l;
	struct bp_text proofs, proven;
	int nproofs, nproven;
};

static int one_saved(void *ctx, const struct bp_dfpn_saved *it)
{
	struct saved_lister *sl = ctx;
	struct lister *l = sl->l;
	if (it->rc) {
		snprintf(l->why, sizeof l->why, "%s of %.100s: %s%s%.120s",
			 it->kind == BP_DFPN_SAVED_PROOF ? "a saved proof" : "the proven values",
			 it->spec, bp_strerror(it->rc), it->why && *it->why ? ": " : "",
			 it->why ? it->why : "");
		l->rc = it->rc;
		return it->rc;
	}
	int current = it->rules_version == BP_RULES_VERSION;
	if (it->kind == BP_DFPN_SAVED_PROVEN) {
		if (it->count == 0)
			return 0; /* a search that proved no subtree large enough to keep */
		if (l->json)
			bp_text_printf(&sl->proven,
				       "%s{\"instance\": \"%s\", \"positions\": %llu, "
				       "\"rules_version\": %d}",
				       sl->nproven ? ", " : "", it->spec,
				       (unsigned long long)it->count, it->rules_version);
		else
			bp_text_printf(&sl->proven, "%-44s %14llu %5d\n", it->spec,
				       (unsigned long long)it->count, it->rules_version);
		sl->nproven++;
		return 0;
	}
	/* the root as text, through the game (checked first: words from the database) */
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	struct bp_text pos = { 0 };
	int rc = bp_game_create(it->spec, &g, &err);
	if (rc == BP_OK && (rc = bp_game_pos_check(g, &it->proof.root, &err)) == BP_OK)
		g->ops->pos_format(g, &it->proof.root, &pos);
	bp_game_destroy(g);
	if (rc) {
		l->rc = rc == BP_ENOMEM ? rc : BP_ECORRUPT;
		snprintf(l->why, sizeof l->why, "a saved proof of %.100s: its root: %.150s",
			 it->spec, err.msg);
		bp_text_free(&pos);
		return l->rc;
	}
	const char *value = current ? bp_value_name(it->proof.value) : "outdated";
	if (l->json) {
		bp_text_printf(&sl->proofs,
			       "%s{\"instance\": \"%s\", \"position\": ", sl->nproofs ? ", " : "",
			       it->spec);
		bp_text_json_string(&sl->proofs, bp_text_str(&pos));
		bp_text_printf(&sl->proofs,
			       ", \"value\": \"%s\", \"decisions\": %llu, \"stored_bytes\": "
			       "%llu, \"rules_version\": %d}",
			       value, (unsigned long long)it->proof.decisions,
			       (unsigned long long)it->bytes, it->rules_version);
	} else {
		bp_text_printf(&sl->proofs, "%-44s %-10s %14llu %12llu %5d  %s\n", it->spec, value,
			       (unsigned long long)it->proof.decisions,
			       (unsigned long long)it->bytes, it->rules_version, bp_text_str(&pos));
	}
	bp_text_free(&pos);
	sl->nproofs++;
	return 0;
}

int bp_cmd_list(int argc, char **argv)
{
	const char *cmd = "list";
	static const char *const valued[] = { "db", NULL };
	struct bp_cli_args a;
	bp_store *db = NULL;
	struct bp_text out = { 0 };
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos) {
		bp_cli_error(cmd, "unexpected argument '%s' (see boardproof list --help)",
			     a.pos[0]);
		return BP_EXIT_USAGE;
	}
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[0]), BP_STORE_READONLY, &db)))
		return rc;
	struct lister l = { .db = db, .json = a.json, .out = &out };
	if (!a.json)
		bp_text_printf(&out, "%-44s %-10s %5s %14s %12s %8s %7s %5s\n", "instance", "value",
			       "rem", "positions", "bytes", "bits/pos", "tiers", "rules");
	else
		bp_text_printf(&out, "{\"tables\": [");
	int lrc = bp_store_tables(db, one, &l);
	struct saved_lister sl = { .l = &l };
	if (!lrc && !l.rc) {
		lrc = bp_dfpn_db_saved(db, one_saved, &sl);
		if (lrc && l.rc)
			lrc = 0; /* told by one_saved, naming it */
	}
	if (a.json) {
		bp_text_printf(&out, "], \"saved_proofs\": [%s], \"proven_values\": [%s]}\n",
			       bp_text_str(&sl.proofs), bp_text_str(&sl.proven));
	} else {
		if (sl.nproofs)
			bp_text_printf(&out,
				       "\nproofs saved by prove --save-proof (verify GAME --proofs "
				       "checks them):\n%-44s %-10s %14s %12s %5s  %s\n%s",
				       "instance", "value", "decisions", "bytes", "rules",
				       "position", bp_text_str(&sl.proofs));
		if (sl.nproven)
			bp_text_printf(&out,
				       "\npositions proven by prove (query answers them):\n%-44s "
				       "%14s %5s\n%s",
				       "instance", "positions", "rules", bp_text_str(&sl.proven));
	}
	if (sl.proofs.failed || sl.proven.failed)
		out.failed = 1;
	bp_text_free(&sl.proofs);
	bp_text_free(&sl.proven);
	/* a listing with a table missing or cut short is no listing */
	if (lrc) {
		bp_cli_error(cmd, "listing tables: %s", bp_strerror(lrc));
		rc = bp_cli_exit_code(lrc);
	} else if (l.rc) {
		bp_cli_error(cmd, "%s", l.why);
		rc = bp_cli_exit_code(l.rc);
	} else if (out.failed) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
	} else {
		fputs(bp_text_str(&out), stdout);
	}
	bp_text_free(&out);
	bp_store_close(db);
	return rc;
}
