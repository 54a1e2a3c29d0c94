/* SPDX-License-Identifier: MIT */
/* The table oracle of `boardproof claims` (tools/claims_report.c): its each() reads a
 * tier a range at a time, and visits the same positions in the same order with the
 * same values whatever the range (one range a tier, ranges that cut blocks, ranges
 * of a few records); the claims report it gives is the one the walk from the start
 * (no each()) gives. */
#include <criterion/parameterized.h>

#include "solver/claims.h"
#include "solver/probe.h"
#include "tests/support.h"
#include "tools/commands.h"

/* What a pass of each() saw: a chain over every visit, and their number. */
struct seen {
	uint64_t hash, n;
};

static int note(void *ctx, const struct bp_pos *p, enum bp_value v, unsigned rem)
{
	struct seen *s = ctx;
	uint64_t h = s->hash;
	for (int i = 0; i < BP_POS_WORDS; i++)
		h = (h ^ p->w[i]) * 0x100000001b3ull;
	s->hash = ((h ^ (uint64_t)v) * 0x100000001b3ull ^ rem) * 0x100000001b3ull;
	s->n++;
	return 0;
}

/* The report of every claim (--all --json) through o. */
static char *report(const struct bp_game *g, const struct bp_oracle *o)
{
	struct bp_claims_opts copts = { 0 };
	struct bp_text out = { 0 };
	int failed;
	const char *bad;
	cr_assert_eq(bp_cmd_claims_report(g, o, &copts, NULL, 1, 1, &out, &failed, &bad), BP_OK);
	char *s = strdup(bp_text_str(&out));
	bp_text_free(&out);
	return s;
}

ParameterizedTestParameters(claims_report, each_by_ranges)
{
	static char specs[][64] = { "taifas:3x3", "chicken:hex2", "landscape:hex2,neutrals=1" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], claims_report, each_by_ranges)
{
	struct bp_game *g = open_game(*spec);
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .block_records = 512 });
	bp_store *db;
	bp_table *t;
	struct bp_table_meta m;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	uint64_t stored = 0;
	for (uint32_t tier = 0; tier < m.ntiers; tier++)
		stored += m.tier_count[4 * tier + BP_VALUE_WIN] +
			  m.tier_count[4 * tier + BP_VALUE_LOSS] +
			  m.tier_count[4 * tier + BP_VALUE_DRAW];
	struct bp_cmd_table_oracle to;
	struct bp_oracle o;
	bp_cmd_table_oracle(g, t, &to, &o);
	struct seen whole = { 0 };
	cr_assert_eq(o.each(o.ctx, note, &whole), BP_OK);
	cr_expect_eq(whole.n, stored, "%s: %llu visits, %llu stored", *spec,
		     (unsigned long long)whole.n, (unsigned long long)stored);
	char *want = report(g, &o);
	static const uint64_t ranges[] = { 1000, 7 };
	for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
		to.range = ranges[k];
		struct seen part = { 0 };
		cr_assert_eq(o.each(o.ctx, note, &part), BP_OK);
		cr_expect_eq(part.n, whole.n, "%s, range %llu", *spec,
			     (unsigned long long)ranges[k]);
		cr_expect_eq(part.hash, whole.hash, "%s, range %llu: other visits", *spec,
			     (unsigned long long)ranges[k]);
		char *got = report(g, &o);
		cr_expect_str_eq(got, want, "%s, range %llu", *spec, (unsigned long long)ranges[k]);
		free(got);
	}
	o.each = NULL; /* the walk from the start */
	char *walked = report(g, &o);
	cr_expect_str_eq(walked, want, "%s: the walk's report", *spec);
	printf("%s: %llu positions visited, the same report by ranges and by the walk\n", *spec,
	       (unsigned long long)whole.n);
	free(walked);
	free(want);
	bp_table_close(t);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}
