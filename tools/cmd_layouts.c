/* SPDX-License-Identifier: MIT */
/* boardproof layouts GAME [--limit N]: the Landscape layouts (K pairwise non-adjacent
 * neutral cells) of a board, counted exactly and listed up to the board's symmetry. */
#include <stdlib.h>
#include <string.h>

#include "solver/games/landscape.h"
#include "tools/cli.h"
#include "tools/commands.h"

struct listing {
	const struct bp_board *b;
	int json, n;
	struct bp_text *out;
};

static int print_layout(void *ctx, uint64_t layout, int orbit)
{
	struct listing *l = ctx;
	char cells[1024];
	size_t used = 0;
	cells[0] = '\0';
	for (uint64_t s = layout; s; s &= s - 1) {
		char name[16];
		bp_board_cell_name(l->b, __builtin_ctzll(s), name, sizeof name);
		used += (size_t)snprintf(cells + used, sizeof cells - used, "%s%s", used ? ";" : "",
					 name);
	}
	if (l->json) {
		bp_text_printf(l->out, "%s{\"layout\": ", l->n ? ", " : "");
		bp_text_json_string(l->out, cells);
		bp_text_printf(l->out, ", \"count\": %d}", orbit);
	} else {
		/* quoted: ';' would end a shell command, so layout='a1;c3' pastes as is */
		char quoted[1040];
		snprintf(quoted, sizeof quoted, "'%s'", cells);
		bp_text_printf(l->out, "  %-40s %6d\n", cells[0] ? quoted : "(none)", orbit);
	}
	l->n++;
	return 0;
}

/* Reads "landscape:BOARD,neutrals=K[,both=...][,layout=...]" without creating the
 * game, so that boards too big to play can still be counted. */
static int parse_spec(const char *cmd, const char *spec, struct bp_board **b, int *k)
{
	struct bp_err err = { { 0 } };
	char board[64];
	const char *colon = strchr(spec, ':');
	if (!colon || (size_t)(colon - spec) != strlen("landscape") ||
	    strncmp(spec, "landscape", 9) != 0) {
		bp_cli_error(cmd,
			     "'%s': layouts exist for landscape games only "
			     "(landscape:BOARD,neutrals=K)",
			     spec);
		return BP_EXIT_USAGE;
	}
	const char *p = colon + 1, *comma = strchr(p, ',');
	size_t len = comma ? (size_t)(comma - p) : strlen(p);
	if (len == 0 || len >= sizeof board) {
		bp_cli_error(cmd, "'%s': missing board", spec);
		return BP_EXIT_USAGE;
	}
	memcpy(board, p, len);
	board[len] = '\0';
	if (bp_board_create(board, b, &err)) {
		bp_cli_error(cmd, "%s", err.msg);
		return BP_EXIT_USAGE;
	}
	if ((*b)->shape == BP_SHAPE_SQUARE) {
		bp_cli_error(cmd,
			     "landscape is not played on board '%s' (it takes hexN, rhAxB or "
			     "triN boards)",
			     board);
		return BP_EXIT_USAGE;
	}
	*k = -1;
	for (p = comma; p && *p; p = strchr(p + 1, ',')) {
		const char *item = p + 1, *end = strchr(item, ',');
		size_t ilen = end ? (size_t)(end - item) : strlen(item);
		if (strncmp(item, "neutrals=", 9) == 0) {
			char *e;
			long v = strtol(item + 9, &e, 10);
			if (e != item + ilen || e == item + 9 || v < 0 || v > (*b)->ncells) {
				bp_cli_error(cmd,
					     "landscape: neutrals=%.*s: expected a whole number "
					     "from 0 to %d",
					     (int)(ilen - 9), item + 9, (*b)->ncells);
				return BP_EXIT_USAGE;
			}
			*k = (int)v;
		} else if (strncmp(item, "both=", 5) != 0 && strncmp(item, "layout=", 7) != 0) {
			bp_cli_error(cmd,
				     "landscape: unknown key '%.*s' (known keys: both, layout, "
				     "neutrals)",
				     (int)ilen, item);
			return BP_EXIT_USAGE;
		}
	}
	if (*k < 0) {
		bp_cli_error(cmd, "landscape: key 'neutrals' is required");
		return BP_EXIT_USAGE;
	}
	return 0;
}

int bp_cmd_layouts(int argc, char **argv)
{
	const char *cmd = "layouts";
	static const char *const valued[] = { "limit", NULL };
	struct bp_cli_args a;
	struct bp_board *b = NULL;
	struct bp_text out = { 0 }, list = { 0 };
	mpz_t raw, classes, eraw, eclasses;
	int k, rc = bp_cli_parse(cmd, argc, argv, valued, &a);
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
	if ((rc = parse_spec(cmd, a.pos[0], &b, &k))) {
		bp_board_destroy(b);
		return rc;
	}
	mpz_inits(raw, classes, eraw, eclasses, NULL);
	int err = bp_landscape_count_layouts(b, k, raw, classes);
	if (err) {
		bp_cli_error(cmd, "counting the layouts of %s: %s", b->name, bp_strerror(err));
		rc = bp_cli_exit_code(err);
		goto out;
	}
	int listed = b->ncells <= 64 && mpz_cmp_ui(classes, (unsigned long)limit) <= 0;
	struct listing l = { b, a.json, 0, &list };
	if (listed) {
		err = bp_landscape_layouts(b, k, print_layout, &l, eraw, eclasses);
		if (err) {
			bp_cli_error(cmd, "listing the layouts of %s: %s", b->name,
				     bp_strerror(err));
			rc = bp_cli_exit_code(err);
			goto out;
		}
		if (mpz_cmp(eraw, raw) || mpz_cmp(eclasses, classes)) {
			bp_cli_error(cmd,
				     "internal check failed: the listing and the count disagree");
			rc = BP_EXIT_PROBLEM;
			goto out;
		}
	}
	char *rs = mpz_get_str(NULL, 10, raw), *cs = mpz_get_str(NULL, 10, classes);
	if (a.json) {
		bp_text_printf(&out,
			       "{\"board\": \"%s\", \"neutrals\": %d, \"symmetries\": %d, "
			       "\"layouts\": %s, \"classes\": %s, \"listed\": %s",
			       b->name, k, b->nsym, rs, cs, listed ? "true" : "false");
		if (listed)
			bp_text_printf(&out, ", \"list\": [%s]", bp_text_str(&list));
		bp_text_printf(&out, "}\n");
	} else {
		bp_text_printf(&out,
			       "landscape layouts of %d neutral stones on %s: %s, %s up to the "
			       "board's %d symmetries\n",
			       k, b->name, rs, cs, b->nsym);
		if (listed)
			bp_text_printf(&out, "\n  %-40s %6s\n%s", "layout= (up to symmetry)",
				       "count", bp_text_str(&list));
		else
			bp_text_printf(&out, "(not listed: %s)\n",
				       b->ncells > 64 ? "listing needs a board of at most 64 cells"
						      : "more classes than --limit");
	}
	free(rs);
	free(cs);
	fputs(bp_text_str(&out), stdout);
out:
	mpz_clears(raw, classes, eraw, eclasses, NULL);
	bp_text_free(&out);
	bp_text_free(&list);
	bp_board_destroy(b);
	return rc;
}
