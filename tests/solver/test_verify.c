/* SPDX-License-Identifier: MIT */
/* Verify on several threads: the same report (counts, content hash, progress lines,
 * problems in the same order) as on one thread, on clean tables of a tiered and a
 * cyclic game, on a table with one flipped value and on a table full of wrong
 * records; and the content hash pinned as the documented function of the records,
 * computed here by a second, plain implementation. (Corruption of blocks is tested in
 * test_retrograde.c.) */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/verify.h"
#include "tests/support.h"

/* Everything a run of verify reports, callbacks included. The problem callback runs
 * on worker threads: it records, and the test thread checks afterwards. */
struct run {
	struct bp_verify_report r;
	char **problems;
	size_t nproblems;
	uint64_t progress[256][2]; /* (tier, checked) per call */
	size_t nprogress;
	int in_problem; /* set while a problem callback runs: calls must not overlap */
	int overlaps;	/* problem callbacks that found another one running */
};

static void on_problem(void *ctx, const char *what)
{
	struct run *run = ctx;
	if (__atomic_exchange_n(&run->in_problem, 1, __ATOMIC_SEQ_CST))
		__atomic_fetch_add(&run->overlaps, 1, __ATOMIC_SEQ_CST);
	char **p = realloc(run->problems, sizeof *p * (run->nproblems + 1));
	if (!p)
		abort();
	run->problems = p;
	run->problems[run->nproblems++] = strdup(what);
	usleep(run->nproblems < 4 ? 1000 : 0); /* widen the window for an overlap */
	__atomic_store_n(&run->in_problem, 0, __ATOMIC_SEQ_CST);
}

static void on_progress(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t checked)
{
	struct run *run = ctx;
	(void)ntiers;
	cr_assert_lt(run->nprogress, 256);
	run->progress[run->nprogress][0] = tier;
	run->progress[run->nprogress++][1] = checked;
}

/* Verifies the table of g in dir with the options o (its callbacks set here). */
static void verify_opts_run(const char *dir, const struct bp_game *g, struct bp_verify_opts o,
			    struct run *run)
{
	bp_store *db;
	bp_table *t;
	memset(run, 0, sizeof *run);
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	o.problem = on_problem;
	o.progress = on_progress;
	o.ctx = run;
	cr_assert_eq(bp_verify(g, t, &o, &run->r), BP_OK);
	bp_table_close(t);
	bp_store_close(db);
	cr_expect_eq(run->overlaps, 0, "%d threads: problem callbacks overlapped", o.threads);
	cr_expect_eq(run->nproblems,
		     run->r.inconsistencies + run->r.corrupt_blocks + run->r.missing_tiers,
		     "%d threads: %zu problems reported, %llu counted", o.threads, run->nproblems,
		     (unsigned long long)(run->r.inconsistencies + run->r.corrupt_blocks +
					  run->r.missing_tiers));
}

static void verify_run(const char *dir, const struct bp_game *g, int threads, struct run *run)
{
	verify_opts_run(dir, g, (struct bp_verify_opts){ .threads = threads }, run);
}

static void free_run(struct run *run)
{
	for (size_t i = 0; i < run->nproblems; i++)
		free(run->problems[i]);
	free(run->problems);
}

/* b, run on more threads, reports exactly what a reported. */
static void expect_same(const struct run *a, const struct run *b, int threads)
{
	cr_expect_eq(b->r.positions_checked, a->r.positions_checked, "%d threads", threads);
	cr_expect_eq(b->r.inconsistencies, a->r.inconsistencies, "%d threads", threads);
	cr_expect_eq(b->r.corrupt_blocks, a->r.corrupt_blocks, "%d threads", threads);
	cr_expect_eq(b->r.missing_tiers, a->r.missing_tiers, "%d threads", threads);
	cr_expect_eq(b->r.content_hash, a->r.content_hash, "%d threads: content hash differs",
		     threads);
	cr_assert_eq(b->nproblems, a->nproblems, "%d threads", threads);
	for (size_t i = 0; i < a->nproblems; i++)
		cr_expect_str_eq(b->problems[i], a->problems[i], "%d threads: problem %zu", threads,
				 i);
	cr_assert_eq(b->nprogress, a->nprogress, "%d threads", threads);
	for (size_t i = 0; i < a->nprogress; i++) {
		cr_expect_eq(b->progress[i][0], a->progress[i][0]);
		cr_expect_eq(b->progress[i][1], a->progress[i][1]);
	}
}

/* The content hash as documented: a fixed chain over (tier, index, record) of every
 * stored record, tiers from the last, indices in order. Written out again here. */
static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t plain_hash(const char *dir, const struct bp_game *g, uint64_t *records)
{
	bp_store *db;
	bp_table *t;
	struct bp_table_meta meta;
	uint64_t h = 0x736f6d6570736575ull;
	*records = 0;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	cr_assert_eq(bp_table_meta_get(t, &meta), BP_OK);
	for (uint32_t tier = meta.ntiers; tier-- > 0;) {
		uint64_t n = meta.tier_size[tier];
		uint16_t *rec = malloc((n ? n : 1) * sizeof *rec);
		cr_assert_eq(bp_table_get_tier(t, tier, rec), BP_OK);
		for (uint64_t i = 0; i < n; i++)
			if (rec[i]) {
				h = mix(mix(mix(h, tier), i), rec[i]);
				++*records;
			}
		free(rec);
	}
	bp_table_close(t);
	bp_store_close(db);
	return h;
}

ParameterizedTestParameters(verify, same_report_on_any_thread_count)
{
	/* a tiered game with tiers of many chunks; a cyclic one whose moves reach lower
	 * tiers (captures), so its workers read child tiers in every direction */
	static char specs[][64] = { "taifas:3x4", "glorieta:hex2", "blooms:hex2" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], verify, same_report_on_any_thread_count)
{
	struct bp_game *g = open_game(*spec);
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 512 });
	struct run one, more;
	verify_run(dir, g, 1, &one);
	cr_expect_gt(one.r.positions_checked, 0);
	cr_expect_eq(one.r.inconsistencies, 0);
	cr_expect_eq(one.nprogress, g->ntiers);
	uint64_t records, want = plain_hash(dir, g, &records);
	cr_expect_eq(one.r.positions_checked, records);
	cr_expect_eq(one.r.content_hash, want, "content hash %016llx, the plain chain %016llx",
		     (unsigned long long)one.r.content_hash, (unsigned long long)want);
	for (int threads = 2; threads <= 3; threads++) {
		verify_run(dir, g, threads, &more);
		expect_same(&one, &more, threads);
		free_run(&more);
	}
	printf("%s: %llu positions, content hash %016llx on 1, 2 and 3 threads\n", *spec,
	       (unsigned long long)one.r.positions_checked, (unsigned long long)one.r.content_hash);
	free_run(&one);
	remove_db(dir);
	bp_game_destroy(g);
}

/* A hash-only check reads each tier a range at a time: with ranges that cut blocks
 * (block 512 records, range 1000) it hashes and counts the same records as the full
 * check, and its progress counts the hashed ones. */
Test(verify, hash_only_by_ranges_same_hash)
{
	static const char *const specs[] = { "taifas:3x4", "blooms:hex2" };
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = open_game(specs[k]);
		char *dir = temp_db();
		solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .block_records = 512 });
		uint64_t records, want = plain_hash(dir, g, &records);
		for (uint64_t range = 0; range <= 1000; range += 1000) {
			struct run run;
			verify_opts_run(dir, g,
					(struct bp_verify_opts){
						.threads = 2, .hash_only = 1, .hash_range = range },
					&run);
			cr_expect_eq(run.r.content_hash, want, "%s, range %llu", specs[k],
				     (unsigned long long)range);
			cr_expect_eq(run.r.positions_hashed, records, "%s", specs[k]);
			cr_expect_eq(run.r.positions_checked, 0);
			cr_expect_eq(run.nprogress, g->ntiers);
			cr_expect_eq(run.progress[run.nprogress - 1][1], records);
			free_run(&run);
		}
		remove_db(dir);
		bp_game_destroy(g);
	}
}

/* Rewrites tier of the table in dir through the store: valid blocks, wrong content.
 * change(ctx, rec, n) edits the records. */
static void rewrite_tier(const char *dir, const struct bp_game *g, uint32_t tier,
			 void (*change)(void *ctx, uint16_t *rec, uint64_t n), void *ctx)
{
	bp_store *db;
	bp_table *t;
	struct bp_table_meta meta;
	cr_assert_eq(bp_store_open(dir, 0, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, 0, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	cr_assert_eq(bp_table_meta_get(t, &meta), BP_OK);
	uint64_t n = meta.tier_size[tier];
	uint16_t *rec = malloc(n * sizeof *rec);
	cr_assert_not_null(rec);
	cr_assert_eq(bp_table_get_tier(t, tier, rec), BP_OK);
	change(ctx, rec, n);
	cr_assert_eq(bp_table_put_tier(t, tier, rec, 0, 0, NULL), BP_OK);
	free(rec);
	bp_table_close(t);
	bp_store_close(db);
}

/* Turns the last win of the tier into a loss; *(uint64_t *)ctx: its index. */
static void flip_last_win(void *ctx, uint16_t *rec, uint64_t n)
{
	uint64_t i = n;
	while (i-- > 0 && bp_record_value(rec[i]) != BP_VALUE_WIN)
		;
	cr_assert_lt(i, n, "no win in the tier");
	rec[i] = bp_record_make(BP_VALUE_LOSS, bp_record_remoteness(rec[i]));
	*(uint64_t *)ctx = i;
}

Test(verify, flipped_value_reported_once_on_two_threads)
{
	struct bp_game *g = open_game("taifas:3x4");
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 512 });
	const uint32_t tier = 6; /* a middle tier: many chunks, parents and children */
	uint64_t idx;
	rewrite_tier(dir, g, tier, flip_last_win, &idx);
	char where[64];
	snprintf(where, sizeof where, "(tier %u index %llu)", tier, (unsigned long long)idx);
	struct run one, two;
	verify_run(dir, g, 1, &one);
	verify_run(dir, g, 2, &two);
	cr_expect_geq(one.r.inconsistencies, 1);
	expect_same(&one, &two, 2);
	size_t mentions = 0;
	for (size_t i = 0; i < two.nproblems; i++)
		mentions += strstr(two.problems[i], where) != NULL;
	cr_expect_eq(mentions, 1, "the flipped position %s is reported %zu times", where, mentions);
	for (size_t i = 0; i < two.nproblems; i++)
		printf("taifas:3x4 flipped %s: %s\n", where, two.problems[i]);
	free_run(&one);
	free_run(&two);
	remove_db(dir);
	bp_game_destroy(g);
}

/* Replaces every record of the tier by a pseudo-random one (about one in three
 * empty), from a fixed seed: thousands of problems in every chunk. */
static void scramble(void *ctx, uint16_t *rec, uint64_t n)
{
	uint64_t *state = ctx;
	for (uint64_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ull + 1442695040888963407ull;
		unsigned v = (unsigned)(*state >> 33) % 4, rem = (unsigned)(*state >> 40) % 20;
		rec[i] = v ? bp_record_make(v, rem) : 0;
	}
}

Test(verify, scrambled_tier_same_problems_in_same_order)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 512 });
	uint64_t seed = 20240611, state = seed;
	printf("scramble seed %llu\n", (unsigned long long)seed);
	rewrite_tier(dir, g, 5, scramble, &state);
	uint64_t records, want = plain_hash(dir, g, &records);
	struct run one, more;
	verify_run(dir, g, 1, &one);
	cr_expect_gt(one.r.inconsistencies, 1000);
	cr_expect_eq(one.r.positions_checked, records);
	cr_expect_eq(one.r.content_hash, want, "content hash %016llx, the plain chain %016llx",
		     (unsigned long long)one.r.content_hash, (unsigned long long)want);
	for (int threads = 2; threads <= 4; threads++) {
		verify_run(dir, g, threads, &more);
		expect_same(&one, &more, threads);
		free_run(&more);
	}
	free_run(&one);
	remove_db(dir);
	bp_game_destroy(g);
}

/* Tiers held packed (solver/packedtier.h) or dense, with the cache's default budget
 * or one of a byte (every tier dropped between two tiers' checks, children's tiers
 * read again in each), on 1 and 2 threads: the same report, problems included, on
 * clean tables and on a table with a scrambled tier and one with a flipped value. */
static void expect_packed_same_as_dense(const char *dir, const struct bp_game *g, const char *what)
{
	struct run dense, other;
	verify_opts_run(dir, g, (struct bp_verify_opts){ .threads = 1, .packed = -1 }, &dense);
	static const struct {
		int packed, threads;
		uint64_t cache_bytes;
	} ways[] = { { 1, 1, 0 }, { 1, 2, 0 }, { 1, 2, 1 }, { 0, 2, 0 }, { -1, 2, 1 } };
	for (size_t k = 0; k < sizeof ways / sizeof ways[0]; k++) {
		verify_opts_run(dir, g,
				(struct bp_verify_opts){ .threads = ways[k].threads,
							 .packed = ways[k].packed,
							 .cache_bytes = ways[k].cache_bytes },
				&other);
		printf("%s %s: packed %d, cache %llu, %d threads: %llu checked, %llu "
		       "inconsistencies, hash %016llx\n",
		       g->spec, what, ways[k].packed, (unsigned long long)ways[k].cache_bytes,
		       ways[k].threads, (unsigned long long)other.r.positions_checked,
		       (unsigned long long)other.r.inconsistencies,
		       (unsigned long long)other.r.content_hash);
		expect_same(&dense, &other, ways[k].threads);
		free_run(&other);
	}
	free_run(&dense);
}

ParameterizedTestParameters(verify, packed_tiers_same_report)
{
	static char specs[][64] = { "taifas:3x4", "chicken:hex2", "blooms:hex2" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], verify, packed_tiers_same_report)
{
	struct bp_game *g = open_game(*spec);
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 512 });
	uint64_t records, want = plain_hash(dir, g, &records);
	struct run packed;
	verify_opts_run(dir, g, (struct bp_verify_opts){ .threads = 2, .packed = 1 }, &packed);
	cr_expect_eq(packed.r.inconsistencies, 0);
	cr_expect_eq(packed.r.positions_checked, records);
	cr_expect_eq(packed.r.content_hash, want, "content hash %016llx, the plain chain %016llx",
		     (unsigned long long)packed.r.content_hash, (unsigned long long)want);
	free_run(&packed);
	expect_packed_same_as_dense(dir, g, "clean");
	remove_db(dir);
	bp_game_destroy(g);
}

/* A wrong record is found the same way when its tier, and its parents' and
 * children's, are packed. */
Test(verify, packed_tiers_find_wrong_records)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 512 });
	uint64_t idx;
	rewrite_tier(dir, g, 5, flip_last_win, &idx);
	struct run packed;
	verify_opts_run(dir, g, (struct bp_verify_opts){ .threads = 2, .packed = 1 }, &packed);
	char where[64];
	snprintf(where, sizeof where, "(tier 5 index %llu)", (unsigned long long)idx);
	size_t mentions = 0;
	for (size_t i = 0; i < packed.nproblems; i++)
		mentions += strstr(packed.problems[i], where) != NULL;
	cr_expect_eq(mentions, 1, "the flipped position %s is reported %zu times", where, mentions);
	cr_expect_geq(packed.r.inconsistencies, 1);
	free_run(&packed);
	expect_packed_same_as_dense(dir, g, "flipped");
	uint64_t state = 20240611;
	rewrite_tier(dir, g, 3, scramble, &state);
	expect_packed_same_as_dense(dir, g, "scrambled");
	remove_db(dir);
	bp_game_destroy(g);
}

/* One sampling check: sample positions drawn with seed. */
static void sample_run(const char *dir, const struct bp_game *g, uint64_t sample, uint64_t seed,
		       struct run *run)
{
	verify_opts_run(dir, g, (struct bp_verify_opts){ .sample = sample, .seed = seed }, run);
}

/* The sampling check (--sample): on a clean table every drawn position checks out,
 * with no content hash; on a table with a scrambled tier it finds the wrong records
 * that fall in the sample, the same ones for the same seed. */
Test(verify, sample_finds_wrong_records)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .block_records = 512 });
	struct run clean, bad, again;
	sample_run(dir, g, 3000, 7, &clean);
	cr_expect_eq(clean.r.positions_checked, 3000);
	cr_expect_eq(clean.r.inconsistencies, 0);
	cr_expect_eq(clean.r.content_hash, 0);
	uint64_t state = 20240611;
	rewrite_tier(dir, g, 5, scramble, &state);
	sample_run(dir, g, 3000, 7, &bad);
	sample_run(dir, g, 3000, 7, &again);
	/* tier 5 holds about a fifth of the positions, and most scrambled records are
	 * wrong: hundreds of the 3000 drawn */
	cr_expect_gt(bad.r.inconsistencies, 100, "%llu inconsistencies",
		     (unsigned long long)bad.r.inconsistencies);
	cr_expect_eq(again.r.inconsistencies, bad.r.inconsistencies);
	cr_assert_eq(again.nproblems, bad.nproblems);
	for (size_t i = 0; i < bad.nproblems; i++)
		cr_expect_str_eq(again.problems[i], bad.problems[i]);
	free_run(&clean);
	free_run(&bad);
	free_run(&again);
	remove_db(dir);
	bp_game_destroy(g);
}

/* A table of the cycles engine whose write stopped after its first tiers (a full disk:
 * the engine writes tiers 0, 1, ... and a capture leads to a lower tier, so stored
 * positions have children in tiers not stored yet): verify reports the missing tiers
 * and no inconsistency, and counts as checked only the positions it could check. */
Test(verify, cyclic_table_stopped_half_way)
{
	struct bp_game *g = open_game("blooms:rh2x3");
	char *dir = temp_db(), *part = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 64 });
	bp_store *db, *pdb;
	bp_table *t, *pt;
	struct bp_table_meta m;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	struct bp_table_info info = { .rules_version = m.rules_version,
				      .ntiers = m.ntiers,
				      .tier_size = m.tier_size,
				      .block_records = m.block_records };
	snprintf(info.spec, sizeof info.spec, "%s", g->spec);
	cr_assert_eq(bp_store_open(part, BP_STORE_CREATE, &pdb, NULL), BP_OK);
	cr_assert_eq(bp_table_open(pdb, g->spec, &info, BP_STORE_CREATE, &pt, NULL), BP_OK);
	bp_probe_set_holes(pt, g);
	const uint32_t stored = 3; /* tiers 0, 1, 2, as the full-disk test leaves them */
	cr_assert_gt(m.ntiers, stored);
	uint64_t records = 0;
	for (uint32_t tier = 0; tier < stored; tier++) {
		uint16_t *rec = malloc((m.tier_size[tier] ? m.tier_size[tier] : 1) * sizeof *rec);
		cr_assert_not_null(rec);
		cr_assert_eq(bp_table_get_tier(t, tier, rec), BP_OK);
		for (uint64_t i = 0; i < m.tier_size[tier]; i++)
			records += rec[i] != 0;
		cr_assert_eq(bp_table_put_tier(pt, tier, rec, 0, 0, NULL), BP_OK);
		free(rec);
	}
	bp_table_close(pt);
	bp_store_close(pdb);
	bp_table_close(t);
	bp_store_close(db);
	struct run one, two;
	verify_run(part, g, 1, &one);
	verify_run(part, g, 2, &two);
	cr_expect_eq(one.r.inconsistencies, 0);
	cr_expect_eq(one.r.corrupt_blocks, 0);
	cr_expect_eq(one.r.missing_tiers, m.ntiers - stored);
	cr_expect_gt(one.r.positions_checked, 0, "the positions whose children are stored");
	cr_expect_lt(one.r.positions_checked, records,
		     "%llu of %llu stored positions counted as checked: some have a child in a "
		     "missing tier",
		     (unsigned long long)one.r.positions_checked, (unsigned long long)records);
	expect_same(&one, &two, 2);
	free_run(&one);
	free_run(&two);
	remove_db(dir);
	remove_db(part);
	bp_game_destroy(g);
}

/* A table stored without its structural holes (store/codec.c, flag bit 2; Taifas has a
 * canonical_mask) has the content hash of the same table stored whole: the hash pinned
 * here is what verify of a56c10c, which stored every hole, printed for taifas:3x4. Its
 * blocks need the mask: read without it (bp_table_open alone), a tier is refused. */
Test(verify, holes_keep_the_content_hash)
{
	struct bp_game *g = open_game("taifas:3x4");
	char *dir = temp_db();
	/* blocks without their holes are written from the archival level up */
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .compression_level = 10 });
	struct run run;
	verify_run(dir, g, 2, &run);
	cr_expect_eq(run.r.inconsistencies, 0);
	cr_expect_eq(run.r.positions_checked, 267491);
	cr_expect_eq(run.r.content_hash, 0x0bfbbef855280c49ull, "content hash %016llx",
		     (unsigned long long)run.r.content_hash);
	free_run(&run);
	bp_store *db;
	bp_table *t;
	uint64_t size;
	cr_assert_eq(g->ops->tier_size(g, 6, &size), BP_OK);
	uint16_t *rec = malloc(size * sizeof *rec);
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	cr_expect_eq(bp_table_get_tier(t, 6, rec), BP_ECORRUPT);
	bp_probe_set_holes(t, g);
	cr_expect_eq(bp_table_get_tier(t, 6, rec), BP_OK);
	bp_table_close(t);
	bp_store_close(db);
	free(rec);
	remove_db(dir);
	bp_game_destroy(g);
}

/* At the archival level a table of a game with holes gets blocks of about 65536 valid
 * positions (solver/solve_common.c): taifas:3x4 (1,062,881 indices, 267,491 of them
 * canonical: 65536 positions in 260,408 indices) blocks of 262144, blooms:tri3 (375,000
 * indices, 3,711 canonical) the largest, 1 << 20, each with
 * the content hash of its default-level table. A table begun with other blocks keeps
 * them when solved again at that level (a resumed solve), and an explicit
 * --block-records wins. */
Test(verify, archival_blocks_follow_the_holes)
{
	static const struct {
		const char *spec;
		uint32_t blocks; /* what the estimate gives */
	} cases[] = { { "taifas:3x4", 262144 }, { "blooms:tri3", 1u << 20 } };
	for (int v = 0; v < 2; v++) {
		struct bp_game *g = open_game(cases[v].spec);
		char *dir9 = temp_db(), *dir10 = temp_db(), *dir512 = temp_db();
		solve_into(dir9, g, (struct bp_solve_opts){ .threads = 2 });
		solve_into(dir10, g,
			   (struct bp_solve_opts){ .threads = 2, .compression_level = 10 });
		solve_into(dir512, g,
			   (struct bp_solve_opts){
				   .threads = 2, .compression_level = 10, .block_records = 512 });
		/* again at the archival level without --block-records: already solved */
		struct bp_solve_result again = solve_into(
			dir512, g, (struct bp_solve_opts){ .threads = 2, .compression_level = 10 });
		cr_expect_eq(again.solved_tiers, 0, "%s", cases[v].spec);
		cr_expect_gt(again.resumed_tiers, 0, "%s", cases[v].spec);
		const char *dirs[3] = { dir9, dir10, dir512 };
		const uint32_t want[3] = { 16384, cases[v].blocks, 512 };
		uint64_t hash[3];
		for (int i = 0; i < 3; i++) {
			bp_store *db;
			bp_table *t;
			struct bp_table_meta m;
			cr_assert_eq(bp_store_open(dirs[i], BP_STORE_READONLY, &db, NULL), BP_OK);
			cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL),
				     BP_OK);
			cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
			cr_expect_eq(m.block_records, want[i], "%s table %d: blocks of %u",
				     cases[v].spec, i, m.block_records);
			bp_table_close(t);
			bp_store_close(db);
			struct run r;
			verify_run(dirs[i], g, 2, &r);
			cr_expect_eq(r.r.inconsistencies, 0);
			hash[i] = r.r.content_hash;
			free_run(&r);
		}
		cr_expect(hash[0] == hash[1] && hash[1] == hash[2],
			  "%s: content hashes %016llx %016llx %016llx", cases[v].spec,
			  (unsigned long long)hash[0], (unsigned long long)hash[1],
			  (unsigned long long)hash[2]);
		remove_db(dir9);
		remove_db(dir10);
		remove_db(dir512);
		bp_game_destroy(g);
	}
}

/* Landscape's tables lose nothing without their holes either: its canonical_mask keeps
 * every valid canonical position, those no line of play reaches included (a loop that
 * cannot have been formed last: two on the first layout, five on the second, each a
 * record 0), so every block written at the archival level is coded without its holes
 * (the codec codes a block whole when a record at a hole is not 0, and such a block
 * would read without the mask), reads back with the mask to the records of the table
 * written at the default level, and has its content hash. */
Test(verify, landscape_holes_keep_the_records)
{
	static const char *specs[] = { "landscape:hex3,neutrals=6,layout=a1;a3;c1;c3;c5;e1",
				       "landscape:hex3,neutrals=7,layout=a2;b1;b4;c3;d1;d4;e2" };
	for (int v = 0; v < 2; v++) {
		struct bp_game *g = open_game(specs[v]);
		char *dir9 = temp_db(), *dir10 = temp_db();
		solve_into(dir9, g, (struct bp_solve_opts){ .threads = 2 });
		solve_into(dir10, g,
			   (struct bp_solve_opts){ .threads = 2, .compression_level = 10 });
		struct run r9, r10;
		verify_run(dir9, g, 2, &r9);
		verify_run(dir10, g, 2, &r10);
		cr_expect_eq(r9.r.inconsistencies, 0, "%s", specs[v]);
		cr_expect_eq(r10.r.inconsistencies, 0, "%s", specs[v]);
		cr_expect_gt(r10.r.positions_checked, 0);
		cr_expect_eq(r10.r.positions_checked, r9.r.positions_checked, "%s", specs[v]);
		cr_expect_eq(r10.r.content_hash, r9.r.content_hash,
			     "%s: content hash %016llx, %016llx", specs[v],
			     (unsigned long long)r10.r.content_hash,
			     (unsigned long long)r9.r.content_hash);
		free_run(&r9);
		free_run(&r10);
		bp_store *db9, *db10;
		bp_table *t9, *t10;
		cr_assert_eq(bp_store_open(dir9, BP_STORE_READONLY, &db9, NULL), BP_OK);
		cr_assert_eq(bp_store_open(dir10, BP_STORE_READONLY, &db10, NULL), BP_OK);
		cr_assert_eq(bp_table_open(db9, g->spec, NULL, BP_STORE_READONLY, &t9, NULL),
			     BP_OK);
		cr_assert_eq(bp_table_open(db10, g->spec, NULL, BP_STORE_READONLY, &t10, NULL),
			     BP_OK);
		struct bp_table_meta m;
		cr_assert_eq(bp_table_meta_get(t10, &m), BP_OK);
		uint64_t blocks = 0;
		for (uint32_t tier = 0; tier < g->ntiers; tier++) {
			const uint64_t size = m.tier_size[tier];
			uint16_t *a = malloc(size * sizeof *a + 1),
				 *b = malloc(size * sizeof *b + 1);
			cr_assert(a && b);
			/* without the mask, every block is refused */
			for (uint64_t at = 0; at < size; at += m.block_records, blocks++) {
				uint64_t n =
					size - at < m.block_records ? size - at : m.block_records;
				cr_expect_eq(bp_table_get_range(t10, tier, at, n, b), BP_ECORRUPT,
					     "%s tier %u block at %llu coded with its holes",
					     specs[v], tier, (unsigned long long)at);
			}
			bp_probe_set_holes(t10, g);
			cr_assert_eq(bp_table_get_tier(t9, tier, a), BP_OK);
			cr_assert_eq(bp_table_get_tier(t10, tier, b), BP_OK);
			cr_expect_eq(memcmp(a, b, size * sizeof *a), 0, "%s tier %u", specs[v],
				     tier);
			free(a);
			free(b);
			bp_table_close(t10);
			cr_assert_eq(
				bp_table_open(db10, g->spec, NULL, BP_STORE_READONLY, &t10, NULL),
				BP_OK);
			cr_assert_eq(bp_table_meta_get(t10, &m), BP_OK);
		}
		printf("%s: %llu positions, %llu blocks, each without its holes\n", specs[v],
		       (unsigned long long)r10.r.positions_checked, (unsigned long long)blocks);
		bp_table_close(t9);
		bp_table_close(t10);
		bp_store_close(db9);
		bp_store_close(db10);
		remove_db(dir9);
		remove_db(dir10);
		bp_game_destroy(g);
	}
}

/* Foretold wins (solve --foretell-wins): a table solved at the archival level with each
 * win in 1 coded from the rules holds exactly what the default level's holds (verify's
 * content hash, every record read back), some of its blocks are coded from hints, and
 * bp_game_wins_in_one, which the hints come from, says 1 at exactly the records that
 * are a win in 1 (the generic test by the moves, and Havannah's wins_now). */
Test(verify, foretold_wins_same_table)
{
	static const char *specs[] = { "landscape:hex3,neutrals=6,layout=a1;a3;c1;c3;c5;e1",
				       "havannah:hex2", "taifas:3x3", "chicken:hex2",
				       "glorieta:hex2,ring=none,hand=2" };
	for (size_t v = 0; v < sizeof specs / sizeof specs[0]; v++) {
		struct bp_game *g = open_game(specs[v]);
		char *dir9 = temp_db(), *dir10 = temp_db(), *plain10 = temp_db();
		solve_into(dir9, g, (struct bp_solve_opts){ .threads = 2 });
		solve_into(plain10, g,
			   (struct bp_solve_opts){ .threads = 2, .compression_level = 10 });
		solve_into(dir10, g,
			   (struct bp_solve_opts){
				   .threads = 2, .compression_level = 10, .foretell_wins = 1 });
		struct run r9, r10;
		verify_run(dir9, g, 2, &r9);
		verify_run(dir10, g, 2, &r10);
		cr_expect_eq(r10.r.inconsistencies, 0, "%s", specs[v]);
		cr_expect_eq(r10.r.corrupt_blocks, 0, "%s", specs[v]);
		cr_expect_gt(r10.r.positions_checked, 0);
		cr_expect_eq(r10.r.content_hash, r9.r.content_hash, "%s", specs[v]);
		free_run(&r9);
		free_run(&r10);
		bp_store *db9, *db10;
		bp_table *t9, *t10;
		cr_assert_eq(bp_store_open(dir9, BP_STORE_READONLY, &db9, NULL), BP_OK);
		cr_assert_eq(bp_store_open(dir10, BP_STORE_READONLY, &db10, NULL), BP_OK);
		cr_assert_eq(bp_probe_open(db9, g, &t9, NULL), BP_OK);
		cr_assert_eq(bp_probe_open(db10, g, &t10, NULL), BP_OK);
		/* the same level without the hints stores more */
		struct bp_table_meta m;
		bp_store *dbp;
		bp_table *tp;
		cr_assert_eq(bp_store_open(plain10, BP_STORE_READONLY, &dbp, NULL), BP_OK);
		cr_assert_eq(bp_probe_open(dbp, g, &tp, NULL), BP_OK);
		cr_assert_eq(bp_table_meta_get(tp, &m), BP_OK);
		const uint64_t plain_bytes = m.stored_bytes;
		bp_table_close(tp);
		bp_store_close(dbp);
		remove_db(plain10);
		cr_assert_eq(bp_table_meta_get(t10, &m), BP_OK);
		if (v == 0)
			cr_expect_lt(m.stored_bytes, plain_bytes * 3 / 4, "%s: %llu against %llu",
				     specs[v], (unsigned long long)m.stored_bytes,
				     (unsigned long long)plain_bytes);
		struct bp_move *moves = malloc((size_t)g->max_moves * sizeof *moves);
		uint64_t wins = 0, positions = 0, wrong = 0;
		for (uint32_t tier = 0; tier < g->ntiers; tier++) {
			const uint64_t size = m.tier_size[tier];
			uint16_t *a = malloc(size * sizeof *a + 1),
				 *b = malloc(size * sizeof *b + 1);
			cr_assert(a && b && moves);
			cr_assert_eq(bp_table_get_tier(t9, tier, a), BP_OK);
			cr_assert_eq(bp_table_get_tier(t10, tier, b), BP_OK, "%s tier %u", specs[v],
				     tier);
			cr_expect_eq(memcmp(a, b, size * sizeof *a), 0, "%s tier %u", specs[v],
				     tier);
			for (uint64_t i = 0; i < size; i++) {
				struct bp_pos p;
				if (!a[i] || g->ops->unrank(g, tier, i, &p) != BP_OK)
					continue;
				int w = a[i] == bp_record_make(BP_VALUE_WIN, 1);
				positions++;
				wins += (uint64_t)w;
				wrong += (uint64_t)(bp_game_wins_in_one(g, &p, moves) != w);
			}
			free(a);
			free(b);
		}
		cr_expect_eq(wrong, 0, "%s: %llu of %llu positions", specs[v],
			     (unsigned long long)wrong, (unsigned long long)positions);
		cr_expect_gt(wins, 0, "%s", specs[v]);
		printf("%s: %llu positions, %llu wins in 1, %llu stored bytes against %llu\n",
		       specs[v], (unsigned long long)positions, (unsigned long long)wins,
		       (unsigned long long)m.stored_bytes, (unsigned long long)plain_bytes);
		free(moves);
		bp_table_close(t9);
		bp_table_close(t10);
		bp_store_close(db9);
		bp_store_close(db10);
		remove_db(dir9);
		remove_db(dir10);
		bp_game_destroy(g);
	}
}

struct ticks {
	uint32_t tier;
	uint64_t last, total;
	int calls, backwards, over, at_once;
};

static void on_tick(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done, uint64_t total,
		    double seconds)
{
	struct ticks *t = ctx;
	(void)ntiers;
	if (__atomic_exchange_n(&t->at_once, 1, __ATOMIC_SEQ_CST))
		t->over = -1000; /* two ticks at once */
	if (tier == t->tier && done < t->last)
		t->backwards++;
	t->over += done > total || seconds < 0;
	t->tier = tier;
	t->last = done;
	t->total = total;
	t->calls++;
	__atomic_store_n(&t->at_once, 0, __ATOMIC_SEQ_CST);
}

/* Ticks inside a tier (verify's progress on a long tier): one at a time, never going
 * back within a tier, never past the tier's size; with a tick every nanosecond, a tick
 * after nearly every chunk, on 1, 2 and 3 threads, and with hash_only after nearly
 * every range read. */
Test(verify, ticks_inside_tiers)
{
	struct bp_game *g = open_game("taifas:3x4");
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 2 });
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_probe_open(db, g, &t, NULL), BP_OK);
	for (int threads = 1; threads <= 4; threads++) {
		struct ticks k = { .tier = UINT32_MAX };
		/* 4: hash_only, reading 1000 records at a time */
		struct bp_verify_opts o = { .threads = threads < 4 ? threads : 2,
					    .tick = on_tick,
					    .tick_seconds = 1e-9,
					    .hash_only = threads == 4,
					    .hash_range = 1000,
					    .ctx = &k };
		struct bp_verify_report r;
		cr_assert_eq(bp_verify(g, t, &o, &r), BP_OK);
		cr_expect_eq(r.inconsistencies, 0);
		cr_expect_gt(k.calls, 10, "%d ticks", k.calls);
		cr_expect_eq(k.backwards, 0);
		cr_expect_eq(k.over, 0);
	}
	bp_table_close(t);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}
