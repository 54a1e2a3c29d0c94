/* SPDX-License-Identifier: MIT */
/* boardproof claims GAME [--solve] [--claim NAME] [--all] [--check]: verdicts on the
 * designers' claims about GAME from its solved table (solver/claims.h), each with a
 * witness to replay. */
#include <stdlib.h>
#include <string.h>

#include "solver/claims.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "tools/cli.h"
#include "tools/commands.h"

static int table_value(void *ctx, const struct bp_pos *p, enum bp_value *v, unsigned *rem)
{
	const struct bp_cmd_table_oracle *t = ctx;
	struct bp_probe pr;
	int rc = bp_probe_position(t->g, t->tab, p, &pr);
	if (rc)
		return rc;
	*v = pr.value;
	*rem = pr.remoteness == BP_RECORD_NO_REMOTENESS ? BP_CLAIM_NO_REMOTENESS : pr.remoteness;
	return BP_OK;
}

/* Every stored position, tier by tier: the table holds exactly the reachable
 * canonical positions (a zero record elsewhere), so no walk from the start is needed. */
static int table_each(void *ctx,
		      int (*visit)(void *vctx, const struct bp_pos *p, enum bp_value v,
				   unsigned rem),
		      void *vctx)
{
	const struct bp_cmd_table_oracle *t = ctx;
	const struct bp_game *g = t->g;
	struct bp_table_meta m;
	int rc = bp_table_meta_get(t->tab, &m);
	if (rc)
		return rc;
	if (!g->ops->unrank)
		return BP_EUNSUPPORTED;
	for (uint32_t tier = 0; tier < m.ntiers && !rc; tier++) {
		uint16_t *rec =
			malloc(sizeof *rec * (size_t)(m.tier_size[tier] ? m.tier_size[tier] : 1));
		if (!rec)
			return BP_ENOMEM;
		rc = bp_table_get_tier(t->tab, tier, rec);
		for (uint64_t i = 0; !rc && i < m.tier_size[tier]; i++) {
			unsigned v = bp_record_value(rec[i]);
			if (v == BP_VALUE_NONE)
				continue;
			struct bp_pos p;
			if (g->ops->unrank(g, tier, i, &p))
				continue;
			unsigned r = bp_record_remoteness(rec[i]);
			rc = visit(vctx, &p, (enum bp_value)v,
				   r == BP_RECORD_NO_REMOTENESS ? BP_CLAIM_NO_REMOTENESS : r);
		}
		free(rec);
	}
	return rc;
}

void bp_cmd_table_oracle(const struct bp_game *g, bp_table *tab, struct bp_cmd_table_oracle *t,
			 struct bp_oracle *o)
{
	t->g = g;
	t->tab = tab;
	o->value = table_value;
	o->ctx = t;
	o->each = table_each;
}

/* Opens g's table; with solve, solves it first when it is missing. */
static int open_or_solve(const char *cmd, const char *path, const struct bp_game *g, int solve,
			 bp_store **db, bp_table **tab)
{
	int rc = bp_cli_open_store(cmd, path, solve ? BP_STORE_CREATE : BP_STORE_READONLY, db);
	if (rc)
		return rc;
	struct bp_err err = { { 0 } };
	rc = bp_probe_open(*db, g, tab, &err);
	if (rc == BP_ENOTFOUND && solve) {
		struct bp_solve_opts opts = { 0 };
		struct bp_solve_result r;
		int src = bp_solve(g, *db, &opts, &r, &err);
		if (src) {
			bp_cli_error(cmd, "solving %s: %s", g->spec,
				     err.msg[0] ? err.msg : bp_strerror(src));
			return src == BP_ERANGE ? BP_EXIT_IO : bp_cli_exit_code(src);
		}
	}
	if (*tab == NULL)
		return bp_cli_open_table(cmd, *db, g, tab);
	return 0;
}

static void wrap(struct bp_text *out, const char *text, int indent, int width)
{
	int col = indent;
	bp_text_printf(out, "%*s", indent, "");
	while (*text) {
		size_t len = strcspn(text, " ");
		if (col > indent && col + (int)len + 1 > width) {
			bp_text_printf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			bp_text_printf(out, " ");
			col++;
		}
		bp_text_printf(out, "%.*s", (int)len, text);
		col += (int)len;
		text += len;
		while (*text == ' ')
			text++;
	}
	bp_text_printf(out, "\n");
}

int bp_cmd_claims_report(const struct bp_game *g, const struct bp_oracle *o,
			 const struct bp_claims_opts *copts, const char *only, int all, int json,
			 struct bp_text *out, int *failed, const char **bad)
{
	int listed = 0;
	*failed = 0;
	*bad = NULL;
	if (json) {
		bp_text_printf(out, "{\"instance\": ");
		bp_text_json_string(out, g->spec);
		bp_text_printf(out, ", \"claims\": [");
	} else {
		bp_text_printf(out, "claims about %s:\n", g->spec);
	}
	for (int i = 0; bp_claim_names[i]; i++) {
		const char *name = bp_claim_names[i];
		if (only ? strcmp(only, name) != 0 : !all && !bp_claim_applies(g, name))
			continue;
		struct bp_claim c;
		int crc = bp_claim_check(g, name, o, copts, &c);
		if (crc) {
			bp_claim_free(&c);
			*bad = name;
			return crc;
		}
		*failed |= c.verdict == BP_VERDICT_FAILS;
		if (json) {
			bp_text_printf(out,
				       "%s{\"name\": \"%s\", \"verdict\": \"%s\", \"detail\": ",
				       listed ? ", " : "", name, bp_verdict_name(c.verdict));
			bp_text_json_string(out, bp_text_str(&c.detail));
			bp_text_printf(out, ", \"witness\": ");
			if (c.has_witness) {
				bp_text_printf(out, "{\"position\": ");
				bp_text_json_string(out, bp_text_str(&c.witness_position));
				bp_text_printf(out, ", \"moves\": ");
				bp_text_json_string(out, bp_text_str(&c.witness_moves));
				bp_text_printf(out, ", \"shows\": ");
				bp_text_json_string(out, bp_text_str(&c.witness_shows));
				bp_text_printf(out, "}");
			} else {
				bp_text_printf(out, "null");
			}
			if (c.json.len)
				bp_text_printf(out, ", %s", bp_text_str(&c.json));
			bp_text_printf(out, "}");
		} else {
			bp_text_printf(out, "\n%-16s %s\n", name, bp_verdict_name(c.verdict));
			wrap(out, bp_text_str(&c.detail), 2, 88);
			if (c.has_witness) {
				bp_text_printf(out, "  witness: %s:\n",
					       bp_text_str(&c.witness_shows));
				bp_text_printf(out,
					       "    boardproof query '%s' '%s' --moves '%s'\n",
					       g->spec, bp_text_str(&c.witness_position),
					       bp_text_str(&c.witness_moves));
			}
		}
		listed++;
		bp_claim_free(&c);
	}
	if (json)
		bp_text_printf(out, "]}\n");
	return BP_OK;
}

int bp_cmd_claims(int argc, char **argv)
{
	const char *cmd = "claims";
	static const char *const valued[] = { "db", "claim", "max-positions", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct bp_text out = { 0 };
	int solve = 0, all = 0, check = 0, kept = 0;
	char **args = malloc(sizeof *args * (size_t)(argc + 1));
	if (!args)
		return BP_EXIT_IO;
	for (int i = 0, options = 1; i < argc; i++) {
		options &= strcmp(argv[i], "--") != 0;
		if (i > 0 && options && strcmp(argv[i], "--solve") == 0)
			solve = 1;
		else if (i > 0 && options && strcmp(argv[i], "--all") == 0)
			all = 1;
		else if (i > 0 && options && strcmp(argv[i], "--check") == 0)
			check = 1;
		else
			args[kept++] = argv[i];
	}
	args[kept] = NULL;
	int rc = bp_cli_parse(cmd, kept, args, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		goto out;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof claims --help)");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (a.opt[1]) {
		int known = 0;
		for (int i = 0; bp_claim_names[i]; i++)
			known |= strcmp(a.opt[1], bp_claim_names[i]) == 0;
		if (!known) {
			bp_cli_error(cmd,
				     "unknown claim '%s' (no-draw, soft-finite, first-player, pie, "
				     "fewer-groups, board-fills, corner-openings)",
				     a.opt[1]);
			rc = BP_EXIT_USAGE;
			goto out;
		}
	}
	struct bp_claims_opts copts = { 0 };
	if (a.opt[2] && bp_cli_parse_bytes(a.opt[2], &copts.max_positions)) {
		bp_cli_error(cmd, "bad --max-positions '%s' (a count, with K, M or G)", a.opt[2]);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = open_or_solve(cmd, bp_cli_db_path(a.opt[0]), g, solve, &db, &tab)))
		goto out;
	struct bp_cmd_table_oracle to;
	struct bp_oracle o;
	bp_cmd_table_oracle(g, tab, &to, &o);
	int failed = 0;
	const char *bad = NULL;
	int crc = bp_cmd_claims_report(g, &o, &copts, a.opt[1], all, a.json, &out, &failed, &bad);
	if (crc) {
		bp_cli_error(cmd, "checking %s: %s", bad, bp_strerror(crc));
		rc = crc == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
		goto out;
	}
	fputs(bp_text_str(&out), stdout);
	if (check && failed)
		rc = BP_EXIT_PROBLEM;
out:
	free(args);
	bp_text_free(&out);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
