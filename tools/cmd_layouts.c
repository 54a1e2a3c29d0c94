/* SPDX-License-Identifier: MIT */
/* boardproof layouts GAME [--limit N]: the instances a family spec stands for (the
 * Landscape layouts of K pairwise non-adjacent neutral cells), counted exactly and
 * listed up to the board's symmetry, through the game interface's family ops. */
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/commands.h"

struct listing {
	const char *key;
	int json, n;
	struct bp_text *out;
};

static int print_member(void *ctx, const char *spec, const char *value, uint64_t multiplicity)
{
	struct listing *l = ctx;
	(void)spec;
	if (l->json) {
		bp_text_printf(l->out, "%s{\"%s\": ", l->n ? ", " : "", l->key);
		bp_text_json_string(l->out, value);
		bp_text_printf(l->out, ", \"count\": %llu}", (unsigned long long)multiplicity);
	} else {
		/* quoted: ';' would end a shell command, so layout='a1;c3' pastes as is */
		char quoted[1040];
		snprintf(quoted, sizeof quoted, "'%s'", value);
		bp_text_printf(l->out, "  %-40s %6llu\n", value[0] ? quoted : "(none)",
			       (unsigned long long)multiplicity);
	}
	l->n++;
	return 0;
}

int bp_cmd_layouts(int argc, char **argv)
{
	const char *cmd = "layouts";
	static const char *const valued[] = { "limit", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_text out = { 0 }, list = { 0 };
	mpz_t raw, classes;
	int inited = 0, rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof layouts --help)");
		return BP_EXIT_USAGE;
	}
	long limit = 1000;
	if (a.opt[0]) {
		char *end;
		limit = strtol(a.opt[0], &end, 10);
		if (*end || end == a.opt[0] || limit < 0) {
			bp_cli_error(cmd, "bad --limit '%s' (a whole number)", a.opt[0]);
			return BP_EXIT_USAGE;
		}
	}
	/* the spec is parsed, not created, so that boards too big to play can still be
	 * counted */
	struct bp_err e = { { 0 } };
	if ((rc = bp_game_parse_spec(a.pos[0], &g, &e))) {
		bp_cli_error(cmd, "%s", e.msg[0] ? e.msg : bp_strerror(rc));
		return bp_cli_exit_code(rc);
	}
	const char *key = g->ops->family_key;
	if (!bp_game_is_family(g)) {
		if (key)
			bp_cli_error(cmd,
				     "'%s' names one instance (its %s= key picks it): leave "
				     "the key out to count the family",
				     a.pos[0], key);
		else
			bp_cli_error(cmd,
				     "'%s': %s has no specs that stand for a family of instances",
				     a.pos[0], g->ops->name);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	mpz_inits(raw, classes, NULL);
	inited = 1;
	int err = g->ops->family_count(g, raw, classes, &e);
	if (err) {
		bp_cli_error(cmd, "counting the %ss of %s: %s", key, g->spec,
			     e.msg[0] ? e.msg : bp_strerror(err));
		rc = bp_cli_exit_code(err);
		goto out;
	}
	int listed = mpz_cmp_ui(classes, (unsigned long)limit) <= 0;
	const char *why = "more classes than --limit";
	struct listing l = { key, a.json, 0, &list };
	if (listed) {
		err = g->ops->family_list(g, print_member, &l, &e);
		if (err == BP_ERANGE) {
			listed = 0; /* too big to list; the count stands */
			why = e.msg;
		} else if (err) {
			bp_cli_error(cmd, "listing the %ss of %s: %s", key, g->spec,
				     e.msg[0] ? e.msg : bp_strerror(err));
			rc = bp_cli_exit_code(err);
			goto out;
		} else if (mpz_cmp_ui(classes, (unsigned long)l.n)) {
			bp_cli_error(cmd,
				     "internal check failed: the listing and the count disagree");
			rc = BP_EXIT_PROBLEM;
			goto out;
		}
	}
	char key_header[64];
	snprintf(key_header, sizeof key_header, "%s (up to symmetry)", key);
	char *rs = mpz_get_str(NULL, 10, raw), *cs = mpz_get_str(NULL, 10, classes);
	if (a.json) {
		bp_text_printf(&out, "{\"instance\": ");
		bp_text_json_string(&out, g->spec);
		bp_text_printf(&out,
			       ", \"symmetries\": %d, \"%ss\": %s, \"classes\": %s, "
			       "\"listed\": %s",
			       g->board->nsym, key, rs, cs, listed ? "true" : "false");
		if (listed)
			bp_text_printf(&out, ", \"list\": [%s]", bp_text_str(&list));
		bp_text_printf(&out, "}\n");
	} else {
		bp_text_printf(&out, "%s: %s %ss, %s up to the board's %d symmetries\n", g->spec,
			       rs, key, cs, g->board->nsym);
		if (listed)
			bp_text_printf(&out, "\n  %-40s %6s\n%s", key_header, "count",
				       bp_text_str(&list));
		else
			bp_text_printf(&out, "(not listed: %s)\n", why);
	}
	free(rs);
	free(cs);
	if (list.failed)
		out.failed = 1;
	rc = bp_cli_print_text(cmd, &out);
out:
	if (inited)
		mpz_clears(raw, classes, NULL);
	bp_text_free(&out);
	bp_text_free(&list);
	bp_game_destroy(g);
	return rc;
}
