/* SPDX-License-Identifier: MIT */
/* The retrograde solver against a brute-force memoized minimax (no symmetry, no tiers,
 * no ranking: positions as raw bytes in a hash table), on every reachable position of
 * tiny instances; content hashes independent of block size, compression and threads;
 * and verify catching a flipped bit in a compressed block and two swapped blocks (a
 * flipped value: tests/solver/test_verify.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/verify.h"
#include "tests/support.h"

/* ---- brute force ------------------------------------------------------------ */

/* Value and remoteness by the definitions of RULES.md section 10, by plain recursion
 * over the game tree with memoization. */
static void minimax(const struct bp_game *g, struct memo *m, const struct bp_pos *p,
		    enum bp_value *v, unsigned *rem)
{
	struct memo_entry *slot = memo_slot(m, p);
	if (slot->used) {
		*v = slot->value;
		*rem = slot->rem;
		return;
	}
	enum bp_value out = g->ops->outcome(g, p);
	unsigned r = 0;
	if (out == BP_VALUE_NONE) {
		struct bp_move *mv = bp_game_move_buffer(g);
		int n = g->ops->moves(g, p, mv);
		cr_assert_gt(n, 0);
		enum bp_value best = BP_VALUE_NONE;
		unsigned best_rem = 0;
		for (int i = 0; i < n; i++) {
			struct bp_pos c = *p;
			enum bp_value cv;
			unsigned cr;
			g->ops->apply(g, &c, mv[i]);
			minimax(g, m, &c, &cv, &cr);
			enum bp_value mine = bp_value_flip(cv);
			/* prefer win (fastest), then draw (fastest), then loss (slowest) */
			if (prefer_move(best, best_rem, mine, cr + 1)) {
				best = mine;
				best_rem = cr + 1;
			}
		}
		free(mv);
		out = best;
		r = best_rem;
	}
	slot = memo_slot(m, p); /* the table does not move, but the recursion filled it */
	slot->used = 1;
	slot->pos = *p;
	slot->value = out;
	slot->rem = r;
	m->n++;
	cr_assert_lt(m->n, m->cap / 2, "memo table too small");
	*v = out;
	*rem = r;
}

ParameterizedTestParameters(retrograde, agrees_with_minimax)
{
	static char specs[][64] = {
		"taifas:3x3",
		"taifas:3x3,tie=last-stone",
		"taifas:3x3,tie=draw",
		"taifas:2x4,score=fraction",
		"taifas:2x3,tie=draw,score=fraction",
		"chicken:hex2",
		"chicken:hex2,both=opponent,forced=free",
		"glorieta:hex2",
		"glorieta:hex2,ring=alt,hand=2",
		"glorieta:tri3,ring=none,hand=3,both=opponent",
		"landscape:rh3x3,neutrals=1,layout=a1",
		"landscape:hex2,neutrals=2",
		"mirador:4x4",
		"mirador:5x4,piece=1",
	};
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

/* Every reachable position, raw (not canonical), probed through the table. */
ParameterizedTest(char (*spec)[64], retrograde, agrees_with_minimax)
{
	struct bp_game *g = open_game(*spec);
	char *dir = temp_db();
	struct bp_solve_result res =
		solve_into(dir, g,
			   (struct bp_solve_opts){
				   .threads = 2, .block_records = 256, .index = BP_INDEX_DENSE });
	struct memo m = { .cap = 1 << 18 }; /* the instances here have under 2^17 positions */
	m.e = calloc(m.cap, sizeof *m.e);
	cr_assert_not_null(m.e);
	struct bp_pos start;
	enum bp_value v;
	unsigned rem;
	g->ops->start(g, &start);
	minimax(g, &m, &start, &v, &rem);
	cr_expect_eq(res.value, v, "%s: start value", *spec);
	cr_expect_eq(res.remoteness, rem, "%s: start remoteness", *spec);
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	size_t checked = 0;
	for (size_t i = 0; i < m.cap; i++) {
		if (!m.e[i].used)
			continue;
		struct bp_probe pr;
		int rc = bp_probe_position(g, t, &m.e[i].pos, &pr);
		cr_assert_eq(rc, BP_OK, "%s: a reachable position is not in the table", *spec);
		if (pr.value != m.e[i].value || pr.remoteness != m.e[i].rem) {
			struct bp_text pt = { 0 };
			g->ops->pos_format(g, &m.e[i].pos, &pt);
			cr_assert_fail("%s: '%s': table says %s in %u, minimax %s in %u", *spec,
				       bp_text_str(&pt), bp_value_name(pr.value), pr.remoteness,
				       bp_value_name(m.e[i].value), m.e[i].rem);
		}
		checked++;
	}
	cr_expect_gt(checked, 0);
	struct bp_verify_report vr = verify_db(dir, g);
	cr_expect_eq(vr.inconsistencies, 0);
	cr_expect_eq(vr.corrupt_blocks, 0);
	cr_expect_eq(vr.positions_checked, res.positions);
	printf("%s: %zu reachable positions agree with minimax; %llu canonical stored\n", *spec,
	       checked, (unsigned long long)res.positions);
	bp_table_close(t);
	bp_store_close(db);
	free(m.e);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(retrograde, content_hash_independent_of_layout)
{
	struct bp_game *g = open_game("taifas:3x4");
	uint64_t first = 0;
	struct {
		int threads;
		uint32_t block;
		int level;
	} runs[] = { { 1, 64, 1 }, { 2, 65536, 19 }, { 2, 1000, 3 } };
	for (int i = 0; i < 3; i++) {
		char *dir = temp_db();
		solve_into(dir, g,
			   (struct bp_solve_opts){ .threads = runs[i].threads,
						   .block_records = runs[i].block,
						   .compression_level = runs[i].level });
		struct bp_verify_report vr = verify_db(dir, g);
		cr_expect_eq(vr.inconsistencies, 0);
		if (i == 0)
			first = vr.content_hash;
		cr_expect_eq(vr.content_hash, first, "run %d: content hash differs", i);
		remove_db(dir);
	}
	bp_game_destroy(g);
}

Test(retrograde, resume_reuses_stored_tiers)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	struct bp_solve_result a, b;
	a = solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 128 });
	cr_expect_eq(a.resumed_tiers, 0);
	b = solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .block_records = 128 });
	cr_expect_eq(b.resumed_tiers, g->ntiers);
	cr_expect_eq(a.value, b.value);
	cr_expect_eq(a.remoteness, b.remoteness);
	cr_expect_eq(a.positions, b.positions);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(retrograde, memory_limit_refused_up_front)
{
	struct bp_game *g = open_game("taifas:4x4");
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	struct bp_solve_opts o = { .threads = 1, .memory_limit = 1 << 20 };
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ERANGE);
	cr_expect(strstr(err.msg, "memory limit"), "%s", err.msg);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

/* Raw LMDB access to the table's blocks (format: store/store.c): key = tier u32 BE +
 * block u64 BE in the database named by the spec. */
static void tamper_tier(const char *dir, const char *spec, uint32_t tier, int swap)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	cr_assert_eq(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	mdb_env_set_mapsize(env, (size_t)1 << 30);
	cr_assert_eq(mdb_env_open(env, dir, 0, 0644), 0);
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, spec, 0, &dbi), 0);
	unsigned char k1[12] = { 0, 0, 0, (unsigned char)tier, 0, 0, 0, 0, 0, 0, 0, 0 }, k2[12];
	cr_assert_lt(tier, 256);
	memcpy(k2, k1, sizeof k2);
	k2[11] = 1;
	MDB_val key1 = { sizeof k1, k1 }, key2 = { sizeof k2, k2 }, v1, v2;
	cr_assert_eq(mdb_get(txn, dbi, &key1, &v1), 0, "tier %u block 0 not found", tier);
	cr_assert_eq(mdb_get(txn, dbi, &key2, &v2), 0, "tier %u block 1 not found", tier);
	unsigned char *b1 = malloc(v1.mv_size), *b2 = malloc(v2.mv_size);
	memcpy(b1, v1.mv_data, v1.mv_size);
	memcpy(b2, v2.mv_data, v2.mv_size);
	MDB_val n1 = { v1.mv_size, b1 }, n2 = { v2.mv_size, b2 };
	if (swap) {
		cr_assert_eq(mdb_put(txn, dbi, &key1, &n2, 0), 0);
		cr_assert_eq(mdb_put(txn, dbi, &key2, &n1, 0), 0);
	} else {
		b1[v1.mv_size - 3] ^= 0x10; /* a bit inside the compressed frame */
		cr_assert_eq(mdb_put(txn, dbi, &key1, &n1, 0), 0);
	}
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	free(b1);
	free(b2);
}

static void tamper(const char *dir, const char *spec, int swap)
{
	tamper_tier(dir, spec, 5, swap);
}

static void corrupt_and_check(int swap)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	solve_into(dir, g,
		   (struct bp_solve_opts){
			   .threads = 1,
			   .block_records = 128 }); /* tier 5 has 7812 * 2 indices: many blocks */
	tamper(dir, g->spec, swap);
	struct bp_verify_report vr = verify_db(dir, g);
	cr_expect_geq(vr.corrupt_blocks, swap ? 2 : 1, "corrupt blocks: %llu",
		      (unsigned long long)vr.corrupt_blocks);
	/* the full check with its tiers held packed (read a range at a time) counts the
	 * same blocks as with them whole */
	struct bp_verify_opts po = { .threads = 2, .packed = 1, .hash_range = 1000 };
	struct bp_verify_report pr = verify_db_opts(dir, g, &po);
	cr_expect_eq(pr.corrupt_blocks, vr.corrupt_blocks, "packed: %llu",
		     (unsigned long long)pr.corrupt_blocks);
	cr_expect_eq(pr.content_hash, vr.content_hash);
	/* a hash-only check, which reads each block once as it hashes (ranges that cut
	 * blocks, on one thread and on two), counts the same blocks and hashes the same
	 * records (the damaged tier's left out) */
	for (int threads = 1; threads <= 2; threads++) {
		struct bp_verify_opts ho = { .threads = threads,
					     .hash_only = 1,
					     .hash_range = 1000 };
		struct bp_verify_report hr = verify_db_opts(dir, g, &ho);
		cr_expect_eq(hr.corrupt_blocks, vr.corrupt_blocks, "hash-only, %d threads: %llu",
			     threads, (unsigned long long)hr.corrupt_blocks);
		cr_expect_gt(hr.positions_hashed, 0);
		cr_expect_eq(hr.positions_hashed, vr.positions_hashed);
		cr_expect_eq(hr.content_hash, vr.content_hash);
	}
	/* reading the tier fails cleanly */
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	uint16_t rec;
	cr_expect_eq(bp_table_get(t, 5, 3, &rec), BP_ECORRUPT);
	bp_table_close(t);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(verify, catches_a_flipped_bit)
{
	corrupt_and_check(0);
}

Test(verify, catches_swapped_blocks)
{
	corrupt_and_check(1);
}

/* A game whose moves may go down a tier (Blooms' captures) counts a damaged block
 * when a tier is first read, as the others do, where that read may be a worker's:
 * with a cache of one byte every tier is dropped after its check and read again when
 * a later check needs it, and the block is still counted once, on one thread or two,
 * and reported once, never two reports at a time. */
struct problems {
	int n, in, overlaps;
};

static void count_problem(void *ctx, const char *what)
{
	struct problems *p = ctx;
	(void)what;
	if (__atomic_exchange_n(&p->in, 1, __ATOMIC_SEQ_CST))
		__atomic_fetch_add(&p->overlaps, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&p->n, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->in, 0, __ATOMIC_SEQ_CST);
}

Test(verify, cyclic_game_counts_a_damaged_block_once)
{
	struct bp_game *g = open_game("blooms:rh2x3");
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .block_records = 16 });
	struct bp_verify_report clean = verify_db(dir, g);
	cr_assert_eq(clean.corrupt_blocks, 0);
	cr_assert_eq(clean.inconsistencies, 0);
	/* the lowest tier above the start's of two blocks or more with a tier above it */
	uint32_t tier = 1;
	while (tier + 1 < g->ntiers) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, tier, &size), BP_OK);
		if (size > 16)
			break;
		tier++;
	}
	cr_assert_lt(tier + 1, g->ntiers);
	tamper_tier(dir, g->spec, tier, 0);
	for (int threads = 1; threads <= 2; threads++)
		for (int tiny = 0; tiny <= 1; tiny++) {
			struct problems pr = { 0 };
			struct bp_verify_opts o = { .threads = threads,
						    .cache_bytes = tiny,
						    .problem = count_problem,
						    .ctx = &pr };
			struct bp_verify_report r = verify_db_opts(dir, g, &o);
			cr_expect_eq(r.corrupt_blocks, 1, "%d threads, cache %s: %llu", threads,
				     tiny ? "of one byte" : "default",
				     (unsigned long long)r.corrupt_blocks);
			/* and "tier T cannot be read; its positions are not checked" */
			cr_expect_eq((uint64_t)pr.n, r.corrupt_blocks + r.inconsistencies + 1,
				     "%d problems reported", pr.n);
			cr_expect_eq(pr.overlaps, 0);
			cr_expect_lt(r.positions_checked, clean.positions_checked);
		}
	remove_db(dir);
	bp_game_destroy(g);
}
