/* SPDX-License-Identifier: MIT */
/* What `boardproof claims` and `serve`'s /api/claims share: the oracle over a solved
 * table, and the report of the verdicts (text, or the --json document). Apart from
 * tools/cmd_claims.c so that the explorer links it without the command table. */
#include <stdlib.h>
#include <string.h>

#include "solver/claims.h"
#include "solver/probe.h"
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

/* Records each() reads at a time by default: a tier is never whole in memory, so that
 * a table whose largest tier alone is over the machine's memory (chicken:hex3: 12
 * billion indices, 24 GB of records) is read in 32 MiB. */
#define EACH_RANGE ((uint64_t)1 << 24)

/* Every stored position, tier by tier, each tier a range at a time: the table holds
 * exactly the reachable canonical positions (a zero record elsewhere), so no walk from
 * the start is needed. */
static int table_each(void *ctx,
		      int (*visit)(void *vctx, const struct bp_pos *p, enum bp_value v,
				   unsigned rem),
		      void *vctx)
{
	struct bp_cmd_table_oracle *t = ctx;
	const struct bp_game *g = t->g;
	struct bp_table_meta m;
	int rc = bp_table_meta_get(t->tab, &m);
	if (rc)
		return rc;
	if (!g->ops->unrank && !bp_table_attached(t->tab))
		return BP_EUNSUPPORTED;
	uint64_t range = t->range ? t->range : EACH_RANGE, total = 0, walked = 0;
	uint16_t *rec = malloc(sizeof *rec * (size_t)range);
	if (!rec)
		return BP_ENOMEM;
	for (uint32_t tier = 0; tier < m.ntiers; tier++)
		total += m.tier_size[tier];
	for (uint32_t tier = 0; tier < m.ntiers && !rc; tier++) {
		for (uint64_t first = 0; first < m.tier_size[tier] && !rc; first += range) {
			if (t->tick)
				t->tick(t, tier, m.ntiers, walked, total, 0);
			uint64_t n = m.tier_size[tier] - first;
			n = n < range ? n : range;
			if ((rc = bp_table_get_range(t->tab, tier, first, n, rec)))
				break;
			walked += n;
			for (uint64_t i = 0; !rc && i < n; i++) {
				unsigned v = bp_record_value(rec[i]);
				if (v == BP_VALUE_NONE)
					continue;
				struct bp_pos p;
				if (bp_probe_unrank(g, t->tab, tier, first + i, &p))
					continue;
				unsigned r = bp_record_remoteness(rec[i]);
				rc = visit(vctx, &p, (enum bp_value)v,
					   r == BP_RECORD_NO_REMOTENESS ? BP_CLAIM_NO_REMOTENESS
									: r);
			}
		}
		if (t->release)
			bp_probe_release_tier(t->tab, tier);
	}
	if (t->tick)
		t->tick(t, m.ntiers, m.ntiers, walked, total, 1);
	free(rec);
	return rc;
}

void bp_cmd_table_oracle(const struct bp_game *g, bp_table *tab, struct bp_cmd_table_oracle *t,
			 struct bp_oracle *o)
{
	t->g = g;
	t->tab = tab;
	t->range = 0;
	t->release = 0;
	t->tick = NULL;
	t->tty = t->open = 0;
	t->t0 = 0;
	t->cmd = NULL;
	o->value = table_value;
	o->ctx = t;
	o->each = table_each;
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
				bp_text_printf(out, "    boardproof query '%s' '%s' --moves '%s'\n",
					       g->spec, bp_text_str(&c.witness_position),
					       bp_text_str(&c.witness_moves));
			}
		}
		/* a verdict without its detail or witness is no report */
		if (c.detail.failed || c.json.failed || c.witness_position.failed ||
		    c.witness_moves.failed || c.witness_shows.failed)
			out->failed = 1;
		listed++;
		bp_claim_free(&c);
	}
	if (json)
		bp_text_printf(out, "]}\n");
	return BP_OK;
}
