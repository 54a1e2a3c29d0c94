/* SPDX-License-Identifier: MIT */
/* The sparse index (solver/sparse.c): Mirador's keys round trip on every reachable
 * position; a table indexed by its reachable positions holds the same value and
 * remoteness for every position as the dense table, the same counts and start value;
 * verify re-derives it and catches an index that is not the reachable set; a stored
 * index that is damaged or missing is refused, never read. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/games/postext.h"
#include "solver/probe.h"
#include "solver/retrograde.h"
#include "solver/solve.h"
#include "solver/solve_common.h"
#include "solver/sparse.h"
#include "solver/verify.h"
#include "store/kv.h"
#include "tests/support.h"

static const char *const boards[] = { "mirador:4x4", "mirador:5x4,piece=1", "mirador:5x5",
				      "mirador:6x6", "mirador:7x7",	    "mirador:8x8" };

static bp_sparse *enumerate(const struct bp_game *g)
{
	bp_sparse *ix = NULL;
	struct bp_err err = { { 0 } };
	struct bp_solve_opts o = { .threads = 2 };
	cr_assert_eq(bp_sparse_enumerate(g, &o, &ix, &err), BP_OK, "%s", err.msg);
	return ix;
}

Test(sparse, keys_round_trip_on_every_reachable_position)
{
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		struct bp_game *g = open_game(boards[b]), *view = NULL;
		bp_sparse *ix = enumerate(g);
		cr_assert_eq(bp_sparse_view(g, ix, &view), BP_OK);
		uint64_t total = 0;
		for (uint32_t t = 0; t < g->ntiers; t++)
			for (uint64_t i = 0; i < bp_sparse_count(ix, t); i++, total++) {
				struct bp_pos p, canon;
				uint64_t key[2], idx;
				const uint64_t *k = bp_sparse_key(ix, t, i);
				cr_assert_eq(g->ops->key_unpack(g, t, k, &p), BP_OK);
				bp_game_canonical(g, &p, &canon);
				cr_assert(bp_pos_equal(&p, &canon), "%s: not canonical: %s",
					  boards[b], fmt_pos(g, &p));
				cr_assert_eq(g->ops->tier(g, &p), t);
				cr_assert_eq(g->ops->key_pack(g, &p, key), BP_OK);
				cr_assert(key[0] == k[0] && key[1] == k[1]);
				cr_assert_eq(view->ops->rank(view, &p, &idx), BP_OK);
				cr_assert_eq(idx, i);
				/* the dense index knows it too (these boards have one) */
				cr_assert_eq(g->ops->rank(g, &p, &idx), BP_OK);
			}
		cr_expect_eq(total, bp_sparse_positions(ix));
		cr_expect_eq(bp_game_status(view), BP_OK);
		bp_sparse_view_free(view);
		bp_sparse_free(ix);
		bp_game_destroy(g);
	}
}

/* The naive rank: a linear scan. */
static int naive_rank(const uint64_t *k, uint64_t n, const uint64_t key[2], uint64_t *out)
{
	for (uint64_t i = 0; i < n; i++)
		if (k[2 * i] == key[0] && k[2 * i + 1] == key[1]) {
			*out = i;
			return BP_OK;
		}
	return BP_ERANGE;
}

static void expect_rank(const bp_sparse *ix, uint32_t t, const uint64_t *k, uint64_t n,
			const uint64_t key[2])
{
	uint64_t a = UINT64_MAX, b = UINT64_MAX;
	int ra = bp_sparse_rank(ix, t, key, &a), rb = naive_rank(k, n, key, &b);
	cr_expect_eq(ra, rb, "tier %u key %016llx %016llx: %d, naive %d", t,
		     (unsigned long long)key[1], (unsigned long long)key[0], ra, rb);
	if (ra == BP_OK && rb == BP_OK)
		cr_expect_eq(a, b, "tier %u: index %llu, naive %llu", t, (unsigned long long)a,
			     (unsigned long long)b);
}

/* rank searches a sample of high words first, then a block of keys: runs of one high
 * word across many blocks, keys before the first and after the last, and every
 * reachable key of an enumerated index (and its neighbours) rank as a scan does. */
Test(sparse, rank_agrees_with_a_scan)
{
	/* tier 0: runs of equal high words (long, short, one key), gaps between */
	uint64_t n = 0, cap = 4000, *k = malloc(cap * 16);
	for (uint64_t hi = 3; hi < 40; hi += 3) {
		uint64_t run = hi == 9 ? 1500 : hi == 21 ? 70 : hi % 2 ? 1 : 33;
		for (uint64_t j = 0; j < run && n < cap; j++, n++) {
			k[2 * n] = 10 + 2 * j;
			k[2 * n + 1] = hi;
		}
	}
	const uint64_t count[2] = { n, 0 };
	const uint64_t *keys[2] = { k, k };
	bp_sparse *ix = NULL;
	cr_assert_eq(bp_sparse_from_keys(2, count, keys, &ix), BP_OK);
	for (uint64_t hi = 0; hi < 44; hi++)
		for (uint64_t lo = 0; lo < 3020; lo++) {
			const uint64_t key[2] = { lo, hi };
			expect_rank(ix, 0, k, n, key);
		}
	const uint64_t huge[2] = { UINT64_MAX, UINT64_MAX }, zero[2] = { 0, 0 };
	expect_rank(ix, 0, k, n, huge);
	expect_rank(ix, 0, k, n, zero);
	expect_rank(ix, 1, k, 0, zero);
	bp_sparse_free(ix);
	free(k);

	struct bp_game *g = open_game("mirador:8x8");
	ix = enumerate(g);
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t nt = bp_sparse_count(ix, t);
		const uint64_t *kt = nt ? bp_sparse_key(ix, t, 0) : NULL;
		for (uint64_t i = 0; i < nt; i++) {
			const uint64_t *q = kt + 2 * i;
			const uint64_t near[5][2] = { { q[0], q[1] },
						      { q[0] + 1, q[1] },
						      { q[0] - 1, q[1] },
						      { q[0], q[1] + 1 },
						      { q[0], q[1] - 1 } };
			for (int j = 0; j < 5; j++)
				expect_rank(ix, t, kt, nt, near[j]);
		}
	}
	bp_sparse_free(ix);
	bp_game_destroy(g);
}

/* Opens g's table in dir as every reader does. */
static void open_table(const char *dir, const struct bp_game *g, bp_store **db, bp_table **t)
{
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, db, NULL), BP_OK);
	cr_assert_eq(bp_probe_open(*db, g, t, &err), BP_OK, "%s", err.msg);
}

Test(sparse, same_values_as_the_dense_table, .timeout = 60)
{
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		struct bp_game *g = open_game(boards[b]);
		char *da = temp_db(), *db_ = temp_db();
		struct bp_solve_opts o = { .threads = 2, .index = BP_INDEX_DENSE };
		struct bp_solve_result rd = solve_into(da, g, o);
		o.index = BP_INDEX_SPARSE;
		struct bp_solve_result rs = solve_into(db_, g, o);
		cr_expect_eq(rd.value, rs.value, "%s", boards[b]);
		cr_expect_eq(rd.remoteness, rs.remoteness, "%s", boards[b]);
		cr_expect_eq(rd.positions, rs.positions, "%s", boards[b]);
		for (int v = 0; v < 4; v++)
			cr_expect_eq(rd.counts[v], rs.counts[v], "%s value %d", boards[b], v);
		cr_expect_gt(rs.index_bytes, 0);
		cr_expect_eq(rd.index_bytes, 0);

		bp_store *sa, *sb;
		bp_table *ta, *tb;
		open_table(da, g, &sa, &ta);
		open_table(db_, g, &sb, &tb);
		cr_assert_null(bp_table_attached(ta));
		cr_assert_not_null(bp_table_attached(tb));
		struct bp_table_meta ma, mb;
		cr_assert_eq(bp_table_meta_get(ta, &ma), BP_OK);
		cr_assert_eq(bp_table_meta_get(tb, &mb), BP_OK);
		uint64_t n = 0;
		for (uint32_t t = 0; t < g->ntiers; t++) {
			/* every sparse index holds a position, and the dense table's count */
			uint64_t stored = 0;
			for (int v = 1; v < 4; v++) {
				stored += mb.tier_count[t * 4 + v];
				cr_expect_eq(ma.tier_count[t * 4 + v], mb.tier_count[t * 4 + v]);
			}
			cr_expect_eq(stored, mb.tier_size[t], "%s tier %u", boards[b], t);
			for (uint64_t i = 0; i < mb.tier_size[t]; i++, n++) {
				struct bp_pos p;
				struct bp_probe pa, pb;
				cr_assert_eq(bp_probe_unrank(g, tb, t, i, &p), BP_OK);
				cr_assert_eq(bp_probe_position(g, ta, &p, &pa), BP_OK);
				cr_assert_eq(bp_probe_position(g, tb, &p, &pb), BP_OK);
				cr_assert(pa.value == pb.value && pa.remoteness == pb.remoteness,
					  "%s %s: dense %d in %u, sparse %d in %u", boards[b],
					  fmt_pos(g, &p), pa.value, pa.remoteness, pb.value,
					  pb.remoteness);
			}
			/* let go of the tier's keys, as claims' walk does */
			bp_probe_release_tier(tb, t);
		}
		cr_expect_eq(n, rs.positions);
		/* a tier let go is read again when next needed: its first and last
		 * positions, and their values, as before */
		for (uint32_t t = 0; t < g->ntiers; t++)
			for (int end = 0; end < 2 && mb.tier_size[t]; end++) {
				struct bp_pos p;
				struct bp_probe pa, pb;
				uint64_t i = end ? mb.tier_size[t] - 1 : 0;
				cr_assert_eq(bp_probe_unrank(g, tb, t, i, &p), BP_OK);
				cr_assert_eq(bp_probe_position(g, ta, &p, &pa), BP_OK);
				cr_assert_eq(bp_probe_position(g, tb, &p, &pb), BP_OK);
				cr_expect(pa.value == pb.value && pa.remoteness == pb.remoteness,
					  "%s tier %u index %llu after release", boards[b], t,
					  (unsigned long long)i);
				bp_probe_release_tier(tb, t);
			}

		struct bp_verify_report vr, vl;
		struct bp_verify_opts vo = { .threads = 2 };
		cr_assert_eq(bp_verify(g, tb, &vo, &vr), BP_OK);
		cr_expect_eq(vr.inconsistencies, 0, "%s", boards[b]);
		cr_expect_eq(vr.positions_checked, rs.positions);
		cr_expect_eq(vr.index_enumerated, rs.positions);
		/* the same report with the fresh index on disk (verify --spill) */
		char *spill = temp_db();
		vo.spill_dir = spill;
		cr_assert_eq(bp_verify(g, tb, &vo, &vl), BP_OK);
		cr_expect_eq(vl.inconsistencies, 0, "%s", boards[b]);
		cr_expect_eq(vl.positions_checked, rs.positions);
		cr_expect_eq(vl.index_enumerated, rs.positions);
		cr_expect_eq(vl.content_hash, vr.content_hash, "%s", boards[b]);
		remove_db(spill);
		bp_table_close(ta);
		bp_table_close(tb);
		bp_store_close(sa);
		bp_store_close(sb);
		remove_db(da);
		remove_db(db_);
		bp_game_destroy(g);
	}
}

/* A sparse table of spec solved into a fresh database. */
static char *solved_sparse(const struct bp_game *g)
{
	char *dir = temp_db();
	struct bp_solve_opts o = { .threads = 2, .index = BP_INDEX_SPARSE };
	solve_into(dir, g, o);
	return dir;
}

/* Writes one item into the index's key space of g's table, checksummed as any write
 * is: what a bug or an edit, not a flipped bit, would leave. */
static void put_index_item(const char *dir, const struct bp_game *g, const void *key, size_t klen,
			   const void *val, size_t vlen)
{
	bp_store *db;
	bp_kv *kv;
	char name[300];
	snprintf(name, sizeof name, ".index:%s", g->spec);
	cr_assert_eq(bp_store_open(dir, 0, &db, NULL), BP_OK);
	cr_assert_eq(bp_kv_open(db, name, 0, &kv, NULL), BP_OK);
	struct bp_kv_item it = { .key = key, .klen = klen, .val = val, .vlen = vlen };
	cr_assert_eq(bp_kv_put(kv, 1, &it), BP_OK);
	bp_kv_close(kv);
	bp_store_close(db);
}

static void *get_index_item(const char *dir, const struct bp_game *g, const void *key, size_t klen,
			    size_t *vlen)
{
	bp_store *db;
	bp_kv *kv;
	void *val = NULL;
	char name[300];
	snprintf(name, sizeof name, ".index:%s", g->spec);
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_kv_open(db, name, BP_STORE_READONLY, &kv, NULL), BP_OK);
	cr_assert_eq(bp_kv_get(kv, key, klen, &val, vlen), BP_OK);
	bp_kv_close(kv);
	bp_store_close(db);
	return val;
}

/* As get_index_item; NULL when there is no such item. */
static void *get_index_item_or_null(const char *dir, const struct bp_game *g, const void *key,
				    size_t klen, size_t *vlen)
{
	bp_store *db;
	bp_kv *kv;
	void *val = NULL;
	char name[300];
	snprintf(name, sizeof name, ".index:%s", g->spec);
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_kv_open(db, name, BP_STORE_READONLY, &kv, NULL), BP_OK);
	int rc = bp_kv_get(kv, key, klen, &val, vlen);
	cr_assert(rc == BP_OK || rc == BP_ENOTFOUND, "%d", rc);
	bp_kv_close(kv);
	bp_store_close(db);
	return rc == BP_OK ? val : NULL;
}

static int open_code(const char *dir, const struct bp_game *g, char *msg, size_t n)
{
	bp_store *db;
	bp_table *t = NULL;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	int rc = bp_probe_open(db, g, &t, &err);
	snprintf(msg, n, "%s", err.msg);
	if (!rc)
		bp_table_close(t);
	bp_store_close(db);
	return rc;
}

/* A damaged tier is found when it is first read: by a reader that touches it
 * (bp_probe_unrank of its first position: BP_ECORRUPT, bp_probe_why naming it), and by
 * reading the whole index (bp_sparse_load, as solve and verify do). */
static void expect_tier_refused(const char *dir, const struct bp_game *g, uint32_t tier,
				const char *needle)
{
	bp_store *db;
	bp_table *t = NULL;
	bp_sparse *ix = NULL;
	struct bp_err err = { { 0 } };
	struct bp_pos p;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_expect_eq(bp_sparse_load(db, g, &ix, &err), BP_ECORRUPT);
	cr_expect(strstr(err.msg, "index") && strstr(err.msg, needle), "%s", err.msg);
	cr_assert_eq(bp_probe_open(db, g, &t, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(bp_probe_unrank(g, t, tier, 0, &p), BP_ECORRUPT);
	cr_expect(strstr(bp_probe_why(t), needle), "%s", bp_probe_why(t));
	bp_table_close(t);
	bp_store_close(db);
}

static void block_key(uint8_t key[9], uint32_t tier, uint32_t block)
{
	key[0] = 'k';
	for (int i = 0; i < 4; i++) {
		key[1 + i] = (uint8_t)(tier >> 8 * (3 - i));
		key[5 + i] = (uint8_t)(block >> 8 * (3 - i));
	}
}

/* The stored index is the same bytes whatever the threads that encoded it
 * (bp_sparse_store encodes its blocks on the enumeration's threads). */
Test(sparse, stored_index_is_the_same_on_any_threads)
{
	struct bp_game *g = open_game("mirador:8x8");
	char *d1 = temp_db(), *d3 = temp_db();
	struct bp_solve_opts o = { .threads = 1, .index = BP_INDEX_SPARSE };
	struct bp_solve_result r1 = solve_into(d1, g, o);
	o.threads = 3;
	struct bp_solve_result r3 = solve_into(d3, g, o);
	cr_expect_eq(r1.index_stored_bytes, r3.index_stored_bytes);
	int blocks = 0;
	for (uint32_t t = 0; t <= g->ntiers; t++) {
		uint8_t key[9];
		const void *k = key;
		size_t klen = 9, n1, n3;
		block_key(key, t, 0);
		if (t == g->ntiers) { /* last, the format record */
			k = "format";
			klen = 6;
		}
		void *v1 = get_index_item_or_null(d1, g, k, klen, &n1);
		void *v3 = get_index_item_or_null(d3, g, k, klen, &n3);
		cr_expect((v1 == NULL) == (v3 == NULL), "tier %u", t);
		if (v1 && v3) {
			cr_expect(n1 == n3 && memcmp(v1, v3, n1) == 0, "tier %u: the blocks differ",
				  t);
			blocks++;
		}
		free(v1);
		free(v3);
	}
	cr_expect_gt(blocks, 10);
	remove_db(d1);
	remove_db(d3);
	bp_game_destroy(g);
}

/* Index format 2 (records holding the front-coded bytes in order, zstd level 4) reads
 * back the keys that format 1 (records of byte pairs, level 9), still read, does: both
 * written from one enumeration of mirador:9x9 (257,663 positions over several blocks a
 * tier), loaded and compared with it key by key. The two formats' blocks differ, so
 * each reader is the one that decodes its blocks; other versions are not written. */
Test(sparse, index_formats_read_alike)
{
	struct bp_game *g = open_game("mirador:9x9");
	bp_sparse *ix = enumerate(g);
	uint64_t stored[3] = { 0, 0, 0 };
	char *dir[3] = { NULL, NULL, NULL };
	for (uint32_t v = 1; v <= 2; v++) {
		bp_store *db;
		bp_sparse *back = NULL;
		struct bp_err err = { { 0 } };
		char why[200];
		dir[v] = temp_db();
		cr_assert_eq(bp_store_open(dir[v], BP_STORE_CREATE, &db, NULL), BP_OK);
		cr_assert_eq(bp_sparse_store_format(db, g->spec, ix, v, &err), BP_OK, "%s",
			     err.msg);
		bp_store_close(db);
		cr_assert_eq(bp_store_open(dir[v], BP_STORE_READONLY, &db, NULL), BP_OK);
		cr_assert_eq(bp_sparse_load(db, g, &back, &err), BP_OK, "format %u: %s", v,
			     err.msg);
		cr_expect_eq(bp_sparse_compare(ix, back, why, sizeof why), 0, "format %u: %s", v,
			     why);
		stored[v] = bp_sparse_stored_bytes(back);
		bp_sparse_free(back);
		bp_store_close(db);
	}
	printf("sparse index_formats_read_alike: %llu bytes in format 1, %llu in format 2\n",
	       (unsigned long long)stored[1], (unsigned long long)stored[2]);
	int differ = 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint8_t key[9];
		size_t n1, n2;
		block_key(key, t, 0);
		void *v1 = get_index_item_or_null(dir[1], g, key, 9, &n1);
		void *v2 = get_index_item_or_null(dir[2], g, key, 9, &n2);
		cr_expect((v1 == NULL) == (v2 == NULL), "tier %u", t);
		differ += v1 && v2 && (n1 != n2 || memcmp(v1, v2, n1) != 0);
		free(v1);
		free(v2);
	}
	cr_expect_gt(differ, 5);
	bp_store *db;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir[1], 0, &db, NULL), BP_OK);
	cr_expect_eq(bp_sparse_store_format(db, g->spec, ix, 0, &err), BP_EINVAL);
	cr_expect_eq(bp_sparse_store_format(db, g->spec, ix, 3, &err), BP_EINVAL);
	bp_store_close(db);
	remove_db(dir[1]);
	remove_db(dir[2]);
	bp_sparse_free(ix);
	bp_game_destroy(g);
}

Test(sparse, damaged_index_is_refused)
{
	struct bp_game *g = open_game("mirador:7x7");
	char msg[256];
	uint8_t k3[9], k4[9];
	block_key(k3, 3, 0);
	block_key(k4, 4, 0);

	/* a block's frame damaged (its kv checksum rewritten to match) */
	char *dir = solved_sparse(g);
	cr_assert_eq(open_code(dir, g, msg, sizeof msg), BP_OK, "%s", msg);
	size_t vlen;
	uint8_t *val = get_index_item(dir, g, k4, 9, &vlen);
	val[vlen - 3] ^= 0x10;
	put_index_item(dir, g, k4, 9, val, vlen);
	free(val);
	expect_tier_refused(dir, g, 4, "tier 4");
	remove_db(dir);

	/* a block moved under another tier's key */
	dir = solved_sparse(g);
	val = get_index_item(dir, g, k3, 9, &vlen);
	put_index_item(dir, g, k4, 9, val, vlen);
	free(val);
	expect_tier_refused(dir, g, 4, "tier 4");
	remove_db(dir);

	/* the format record's counts changed: the table's tiers no longer match */
	dir = solved_sparse(g);
	val = get_index_item(dir, g, "format", 6, &vlen);
	val[28 + 8 * 4] ^= 1; /* tier 4's count */
	put_index_item(dir, g, "format", 6, val, vlen);
	free(val);
	int rc = open_code(dir, g, msg, sizeof msg);
	cr_expect(rc == BP_ECORRUPT || rc == BP_EFORMAT, "%d", rc);
	cr_expect(strstr(msg, "index"), "%s", msg);
	remove_db(dir);

	/* another format version */
	dir = solved_sparse(g);
	val = get_index_item(dir, g, "format", 6, &vlen);
	val[8] = 9;
	put_index_item(dir, g, "format", 6, val, vlen);
	free(val);
	cr_expect_eq(open_code(dir, g, msg, sizeof msg), BP_EFORMAT);
	cr_expect(strstr(msg, "format 9"), "%s", msg);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(sparse, missing_index_is_refused)
{
	/* a table solved through the view, its index never stored */
	struct bp_game *g = open_game("mirador:7x7"), *view = NULL;
	bp_sparse *ix = enumerate(g);
	char *dir = temp_db(), msg[256];
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	struct bp_solve_opts o = { .threads = 2 };
	cr_assert_eq(bp_sparse_view(g, ix, &view), BP_OK);
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	cr_assert_eq(bp_solve_tiers(view, db, &o, &r, &err), BP_OK, "%s", err.msg);
	bp_store_close(db);
	cr_expect_eq(open_code(dir, g, msg, sizeof msg), BP_EFORMAT);
	cr_expect(strstr(msg, "index of reachable positions is missing"), "%s", msg);
	/* and a solve does not go on into it with another index */
	cr_assert_eq(bp_store_open(dir, 0, &db, NULL), BP_OK);
	o.index = BP_INDEX_SPARSE;
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_EFORMAT);
	bp_store_close(db);
	remove_db(dir);
	bp_sparse_view_free(view);
	bp_sparse_free(ix);
	bp_game_destroy(g);
}

struct problems {
	int index;
	int n;
};

static void on_problem(void *ctx, const char *what)
{
	struct problems *p = ctx;
	p->n++;
	p->index += strstr(what, "not the set of reachable positions") != NULL;
}

Test(sparse, verify_catches_an_index_that_is_not_the_reachable_set)
{
	struct bp_game *g = open_game("mirador:7x7");
	bp_sparse *ix = enumerate(g);
	char *dir = solved_sparse(g);
	/* the same counts, one key changed: a position that is not reachable (not even
	 * valid) in place of one that is */
	uint32_t nt = bp_sparse_tiers(ix), bad = 0;
	uint64_t *count = calloc(nt, sizeof *count);
	const uint64_t **keys = calloc(nt, sizeof *keys);
	uint64_t *copy = NULL;
	for (uint32_t t = 0; t < nt; t++) {
		count[t] = bp_sparse_count(ix, t);
		keys[t] = bp_sparse_key(ix, t, 0);
		if (count[t] >= 2 && !copy) {
			copy = malloc(count[t] * 16);
			memcpy(copy, keys[t], count[t] * 16);
			copy[0] ^= 1; /* "passed" flipped: still below the next key */
			keys[t] = copy;
			bad = t;
		}
	}
	cr_assert_not_null(copy);
	bp_sparse *wrong;
	cr_assert_eq(bp_sparse_from_keys(nt, count, keys, &wrong), BP_OK, "tier %u", bad);
	bp_store *db;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir, 0, &db, NULL), BP_OK);
	cr_assert_eq(bp_sparse_store(db, g->spec, wrong, &err), BP_OK, "%s", err.msg);
	bp_store_close(db);

	bp_store *s;
	bp_table *t;
	open_table(dir, g, &s, &t);
	/* in memory, and with the fresh enumeration on disk (verify --spill), each stored
	 * tier compared and let go */
	char *spill = temp_db();
	for (int low = 0; low < 2; low++) {
		struct problems pr = { 0 };
		struct bp_verify_opts vo = { .threads = 2,
					     .problem = on_problem,
					     .ctx = &pr,
					     .spill_dir = low ? spill : NULL };
		struct bp_verify_report vr;
		cr_assert_eq(bp_verify(g, t, &vo, &vr), BP_OK);
		cr_expect_gt(vr.inconsistencies, 0, "spill %d", low);
		cr_expect_eq(pr.index, 1, "spill %d", low);
	}
	remove_db(spill);
	bp_table_close(t);
	bp_store_close(s);
	remove_db(dir);
	bp_sparse_free(wrong);
	bp_sparse_free(ix);
	free(copy);
	free(count);
	free(keys);
	bp_game_destroy(g);
}

Test(sparse, a_table_opened_without_its_index_is_not_read)
{
	struct bp_game *g = open_game("mirador:7x7");
	char *dir = solved_sparse(g);
	bp_store *db;
	bp_table *t;
	struct bp_pos start;
	struct bp_probe pr;
	g->ops->start(g, &start);
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	cr_expect_eq(bp_probe_position(g, t, &start, &pr), BP_EFORMAT);
	bp_table_close(t);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

/* ---- Mirador's fast paths against the rules ----------------------------------------- */

/* The canonical form by its definition (game.h): the bytewise-smallest image under
 * transform, with no help from the game's canonical(). */
static void naive_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	struct bp_pos img;
	*out = *p;
	for (int s = 1; s < g->nsym; s++) {
		g->ops->transform(g, p, s, &img);
		if (memcmp(&img, out, sizeof img) < 0)
			*out = img;
	}
}

/* On every reachable canonical position of each board (and every image of it):
 * canonical() is the definition's, the view's outcome() the game's; children(), children_keys() and the view's
 * children() are the moves applied, canonicalized by the definition, tiered, ranked
 * and keyed one at a time. */
Test(sparse, mirador_fast_paths_agree_with_the_rules, .timeout = 120)
{
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		struct bp_game *g = open_game(boards[b]), *view = NULL;
		bp_sparse *ix = enumerate(g);
		cr_assert_eq(bp_sparse_view(g, ix, &view), BP_OK);
		cr_assert_not_null(g->ops->children_keys);
		cr_assert_not_null(view->ops->children);
		struct bp_move *mv = bp_game_move_buffer(g);
		int mm = g->max_moves;
		uint32_t *ta = malloc(sizeof *ta * (size_t)mm),
			 *tb = malloc(sizeof *tb * (size_t)mm),
			 *tc = malloc(sizeof *tc * (size_t)mm);
		uint64_t *keys = malloc(2 * sizeof *keys * (size_t)mm),
			 *first = malloc(2 * sizeof *first * (size_t)mm),
			 *dense = malloc(sizeof *dense * (size_t)mm),
			 *sparse = malloc(sizeof *sparse * (size_t)mm);
		uint64_t expanded = 0;
		for (uint32_t t = 0; t < g->ntiers; t++)
			for (uint64_t i = 0; i < bp_sparse_count(ix, t); i++) {
				struct bp_pos p, img, fast, slow;
				cr_assert_eq(g->ops->key_unpack(g, t, bp_sparse_key(ix, t, i), &p),
					     BP_OK);
				for (int s = 0; s < g->nsym; s++) {
					g->ops->transform(g, &p, s, &img);
					g->ops->canonical(g, &img, &fast);
					naive_canonical(g, &img, &slow);
					cr_assert(bp_pos_equal(&fast, &slow), "%s: %s image %d",
						  boards[b], fmt_pos(g, &p), s);
					/* the view's outcome: from the enumeration in the index,
					 * the game's for the other images */
					cr_assert_eq(view->ops->outcome(view, &img),
						     g->ops->outcome(g, &img), "%s: %s image %d",
						     boards[b], fmt_pos(g, &p), s);
				}
				if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
					continue;
				expanded++;
				int n = g->ops->moves(g, &p, mv);
				cr_assert_eq(g->ops->children_keys(g, &p, ta, keys), n);
				cr_assert_eq(g->ops->children(g, &p, tb, dense), n);
				cr_assert_eq(view->ops->children(view, &p, tc, sparse), n);
				for (int k = 0; k < n; k++) {
					struct bp_pos c = p, canon;
					uint64_t key[2], idx, sidx;
					g->ops->apply(g, &c, mv[k]);
					naive_canonical(g, &c, &canon);
					uint32_t ct = g->ops->tier(g, &canon);
					cr_assert_eq(g->ops->key_pack(g, &canon, key), BP_OK);
					cr_assert_eq(g->ops->rank(g, &canon, &idx), BP_OK);
					cr_assert_eq(bp_sparse_rank(ix, ct, key, &sidx), BP_OK);
					cr_assert(ta[k] == ct && tb[k] == ct && tc[k] == ct,
						  "%s: %s move %d", boards[b], fmt_pos(g, &p), k);
					cr_assert(keys[2 * k] == key[0] &&
							  keys[2 * k + 1] == key[1],
						  "%s: %s move %d: key", boards[b], fmt_pos(g, &p),
						  k);
					cr_assert_eq(dense[k], idx);
					cr_assert_eq(sparse[k], sidx);
				}
				/* the first few children alone: the same, fewer */
				for (int max = 1; max <= 5; max++) {
					int nf = g->ops->children_keys_first(g, &p, max, tb, first);
					cr_assert_eq(nf, n < max ? n : max, "%s: %s first %d",
						     boards[b], fmt_pos(g, &p), max);
					for (int k = 0; k < nf; k++)
						cr_assert(tb[k] == ta[k] &&
								  first[2 * k] == keys[2 * k] &&
								  first[2 * k + 1] ==
									  keys[2 * k + 1],
							  "%s: %s first %d move %d", boards[b],
							  fmt_pos(g, &p), max, k);
				}
				/* from every image of p too, canonical or not: each move's child
				 * keyed by its canonical form */
				for (int s = 1; s < g->nsym; s++) {
					struct bp_pos im;
					g->ops->transform(g, &p, s, &im);
					int ni = g->ops->moves(g, &im, mv);
					cr_assert_eq(g->ops->children_keys(g, &im, tb, first), ni);
					for (int k = 0; k < ni; k++) {
						struct bp_pos c = im, canon;
						uint64_t key[2];
						g->ops->apply(g, &c, mv[k]);
						naive_canonical(g, &c, &canon);
						cr_assert_eq(g->ops->key_pack(g, &canon, key),
							     BP_OK);
						cr_assert(first[2 * k] == key[0] &&
								  first[2 * k + 1] == key[1],
							  "%s: %s image %d move %d", boards[b],
							  fmt_pos(g, &p), s, k);
					}
				}
			}
		cr_expect_gt(expanded, 0);
		cr_expect_eq(bp_game_status(g), BP_OK);
		free(ta);
		free(tb);
		free(tc);
		free(keys);
		free(first);
		free(dense);
		free(sparse);
		free(mv);
		bp_sparse_view_free(view);
		bp_sparse_free(ix);
		bp_game_destroy(g);
	}
}

/* A game's expand_key (the enumeration's step on one key) gives what key_unpack,
 * outcome, wins_at_once and children_keys give in turn (bp_game_expand_key_each), on
 * every key of each board's enumeration and on each key with one bit flipped (a key
 * of no position, or of another one, reachable or not), with wins asked and not; and
 * every child it says is lost is over and lost for its player to move by the rules
 * (outcome), with some said so. */
Test(sparse, expand_key_as_the_ops_in_turn, .timeout = 120)
{
	const char *const more[] = { "mirador:9x9", "mirador:7x6,piece=3" };
	uint64_t checked = 0, over = 0, flipped_valid = 0, seed = 12345, lost_said = 0;
	for (size_t b = 0; b < sizeof boards / sizeof boards[0] + 2; b++) {
		const char *spec = b < sizeof boards / sizeof boards[0]
					   ? boards[b]
					   : more[b - sizeof boards / sizeof boards[0]];
		struct bp_game *g = open_game(spec);
		cr_assert_not_null(g->ops->expand_key, "%s", spec);
		bp_sparse *ix = enumerate(g);
		int mm = g->max_moves;
		uint32_t *ta = malloc(sizeof *ta * (size_t)mm),
			 *tb = malloc(sizeof *tb * (size_t)mm);
		uint64_t *ka = malloc(2 * sizeof *ka * (size_t)mm),
			 *kb = malloc(2 * sizeof *kb * (size_t)mm);
		uint64_t *lost = calloc((size_t)(mm + 63) / 64, sizeof *lost);
		cr_assert(ta && tb && ka && kb && lost);
		for (uint32_t t = 0; t < g->ntiers; t++)
			for (uint64_t i = 0; i < bp_sparse_count(ix, t); i++)
				for (int flip = 0; flip < 2; flip++) {
					uint64_t key[2];
					memcpy(key, bp_sparse_key(ix, t, i), sizeof key);
					if (flip) {
						seed = seed * 6364136223846793005ull +
						       1442695040888963407ull;
						key[seed >> 63] ^= 1ull << (seed >> 57 & 63);
					}
					enum bp_value va = BP_VALUE_WIN, vb = BP_VALUE_WIN;
					int wa = -1, wb = -1, ask = (int)(i & 1);
					int na =
						g->ops->expand_key(g, t, key, &va, ask ? &wa : NULL,
								   ta, ka, ask ? lost : NULL);
					int nb = bp_game_expand_key_each(
						g, t, key, &vb, ask ? &wb : NULL, tb, kb, NULL);
					cr_assert_eq(na, nb, "%s tier %u key %llu flip %d", spec, t,
						     (unsigned long long)i, flip);
					if (na == BP_ENOTFOUND) {
						cr_assert(flip, "%s: a key of the index", spec);
						continue;
					}
					cr_assert_eq(va, vb, "%s tier %u key %llu flip %d", spec, t,
						     (unsigned long long)i, flip);
					cr_assert_eq(wa, wb, "%s tier %u key %llu", spec, t,
						     (unsigned long long)i);
					for (int k = 0; k < na; k++)
						cr_assert(ta[k] == tb[k] &&
								  ka[2 * k] == kb[2 * k] &&
								  ka[2 * k + 1] == kb[2 * k + 1],
							  "%s tier %u key %llu child %d", spec, t,
							  (unsigned long long)i, k);
					for (int k = 0; ask && k < na; k++) {
						if (!(lost[k / 64] >> (k % 64) & 1))
							continue;
						struct bp_pos c;
						cr_assert_eq(g->ops->key_unpack(g, ta[k],
										ka + 2 * k, &c),
							     BP_OK);
						cr_assert_eq(
							g->ops->outcome(g, &c), BP_VALUE_LOSS,
							"%s tier %u key %llu child %d: said lost",
							spec, t, (unsigned long long)i, k);
						lost_said++;
					}
					checked++;
					over += va != BP_VALUE_NONE;
					flipped_valid += flip;
				}
		cr_expect_eq(bp_game_status(g), BP_OK);
		free(ta);
		free(tb);
		free(ka);
		free(kb);
		free(lost);
		bp_sparse_free(ix);
		bp_game_destroy(g);
	}
	/* both kinds seen: positions over and not, flipped keys that name a position */
	cr_expect_gt(over, 0);
	cr_expect_gt(checked - over, 0);
	cr_expect_gt(lost_said, 0);
	cr_expect_gt(flipped_valid, 0);
}

/* key_unpack accepts exactly the keys whose position the text parser accepts (and in
 * that position's tier only), on random sets of pieces of random colours, to-move and
 * passed: overlapping pieces, side and corner contacts, broken turn order. */
/* The view's tier walk (the walk engine's way over an index) against the rules: every
 * index of every tier visited once, in order; a position over with outcome()'s answer
 * and no children, the others with each move's child ranked in the next tier. Over an
 * index just enumerated (the outcomes known) and over the same index read back from a
 * table (each position unranked and asked). Over the enumerated index a position with
 * a move to a child over and lost for its player to move is told with the first such
 * child alone (the value rule's best child, view_tier_walk); `told_alone` counts them,
 * and `lost_first` the positions over the read index that have such a child. */
struct walk_check {
	const struct bp_game *g, *view;
	const bp_sparse *ix;
	uint32_t t;
	uint64_t next; /* the index expected next */
	struct bp_move *mv;
	int shortcut; /* the index's outcomes are known: the walk's shortcut expected */
	uint64_t told_alone, lost_first, won_known;
};

static int walk_check_visit(void *ctx, const struct bp_walk *w)
{
	struct walk_check *c = ctx;
	const struct bp_game *g = c->g;
	struct bp_pos p;
	cr_assert_eq(w->index, c->next, "tier %u", c->t);
	c->next++;
	cr_assert_eq(w->nimages, 0);
	cr_assert_eq(w->nfar, 0);
	cr_assert_eq(bp_sparse_unrank_position(c->ix, g, c->t, w->index, &p), BP_OK);
	enum bp_value o = g->ops->outcome(g, &p);
	if (o != BP_VALUE_NONE) {
		cr_assert(w->nchildren == -1 && w->outcome == o, "%s: over, walk %d %d",
			  fmt_pos(g, &p), w->nchildren, (int)w->outcome);
		return BP_OK;
	}
	int n = g->ops->moves(g, &p, c->mv), lost = -1;
	uint64_t idx[512];
	cr_assert_leq(n, 512);
	for (int k = 0; k < n; k++) {
		struct bp_pos ch = p, canon;
		uint64_t key[2];
		g->ops->apply(g, &ch, c->mv[k]);
		naive_canonical(g, &ch, &canon);
		cr_assert_eq(g->ops->tier(g, &canon), c->t + 1);
		cr_assert_eq(g->ops->key_pack(g, &canon, key), BP_OK);
		cr_assert_eq(bp_sparse_rank(c->ix, c->t + 1, key, &idx[k]), BP_OK);
		if (lost < 0 && g->ops->outcome(g, &canon) == BP_VALUE_LOSS)
			lost = k;
	}
	if (w->wins_at_once) {
		/* the game's wins_at_once said so during the enumeration: the rules agree */
		cr_assert(c->shortcut && lost >= 0 && w->nchildren == 0,
			  "%s: a move wins at once, the walk says, but the rules find none "
			  "(or the index's outcomes are unknown)",
			  fmt_pos(g, &p));
		c->won_known++;
		return BP_OK;
	}
	if (lost >= 0 && c->shortcut) {
		cr_assert(w->nchildren == 1 && w->children[0] == idx[lost],
			  "%s: move %d wins at once, the walk told %d children, the first %llu "
			  "(expected %llu)",
			  fmt_pos(g, &p), lost, w->nchildren,
			  (unsigned long long)(w->nchildren > 0 ? w->children[0] : 0),
			  (unsigned long long)idx[lost]);
		c->told_alone++;
		return BP_OK;
	}
	c->lost_first += lost >= 0;
	cr_assert_eq(w->nchildren, n, "%s", fmt_pos(g, &p));
	for (int k = 0; k < n; k++)
		cr_assert_eq(w->children[k], idx[k], "%s move %d", fmt_pos(g, &p), k);
	return BP_OK;
}

Test(sparse, tier_walk_over_the_index_as_the_rules, .timeout = 240)
{
	/* the boards above, and 9x9's 257,663 positions */
	const char *walked[sizeof boards / sizeof boards[0] + 1];
	size_t nb = sizeof boards / sizeof boards[0];
	memcpy(walked, boards, sizeof boards);
	walked[nb++] = "mirador:9x9";
	for (size_t b = 0; b < nb; b++) {
		struct bp_game *g = open_game(walked[b]), *view[2];
		bp_sparse *ix[2];
		char *dir = solved_sparse(g);
		bp_store *db;
		struct bp_err err = { { 0 } };
		ix[0] = enumerate(g);
		cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
		cr_assert_eq(bp_sparse_load(db, g, &ix[1], &err), BP_OK, "%s", err.msg);
		for (int k = 0; k < 2; k++) {
			cr_assert_eq(bp_sparse_view(g, ix[k], &view[k]), BP_OK);
			cr_assert_not_null(view[k]->ops->tier_walk);
			struct walk_check c = {
				.g = g, .view = view[k], .ix = ix[k], .shortcut = k == 0
			};
			c.mv = bp_game_move_buffer(g);
			for (c.t = 0; c.t < g->ntiers; c.t++) {
				uint64_t n = bp_sparse_count(ix[k], c.t), half = n / 2;
				c.next = 0; /* two ranges, as the engine's work items */
				cr_assert_eq(view[k]->ops->tier_walk(view[k], c.t, 0, half,
								     BP_WALK_CHILDREN, NULL,
								     walk_check_visit, &c),
					     BP_OK);
				cr_assert_eq(view[k]->ops->tier_walk(view[k], c.t, half, n + 5,
								     BP_WALK_CHILDREN, NULL,
								     walk_check_visit, &c),
					     BP_OK);
				cr_assert_eq(c.next, n, "%s tier %u", walked[b], c.t);
			}
			/* the shortcuts are taken over the enumerated index, and only there */
			if (k == 0)
				cr_expect_gt(c.told_alone + c.won_known, 0, "%s", walked[b]);
			else
				cr_expect_gt(c.lost_first, 0, "%s", walked[b]);
			cr_expect_eq(k == 0 ? c.lost_first : c.told_alone + c.won_known, 0, "%s",
				     walked[b]);
			if (k == 0)
				printf("tier_walk_over_the_index_as_the_rules %s: %llu told alone, "
				       "%llu known to win at once\n",
				       walked[b], (unsigned long long)c.told_alone,
				       (unsigned long long)c.won_known);
			free(c.mv);
			bp_sparse_view_free(view[k]);
			bp_sparse_free(ix[k]);
		}
		cr_expect_eq(bp_game_status(g), BP_OK);
		bp_store_close(db);
		remove_db(dir);
		bp_game_destroy(g);
	}
}

/* The walk engine over the index (the default) and the tiers engine store the same
 * table, and say which engine ran. */
Test(sparse, walk_and_tiers_engines_store_the_same_table, .timeout = 60)
{
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		struct bp_game *g = open_game(boards[b]);
		char *dw = temp_db(), *dt = temp_db();
		struct bp_solve_opts o = { .threads = 2, .index = BP_INDEX_SPARSE };
		struct bp_solve_result rw = solve_into(dw, g, o);
		o.engine = BP_ENGINE_TIERS;
		o.threads = 3;
		struct bp_solve_result rt = solve_into(dt, g, o);
		cr_expect_eq(rw.engine, BP_ENGINE_WALK, "%s", boards[b]);
		cr_expect_eq(rt.engine, BP_ENGINE_TIERS, "%s", boards[b]);
		cr_expect(rw.value == rt.value && rw.remoteness == rt.remoteness, "%s", boards[b]);
		for (int v = 0; v < 4; v++)
			cr_expect_eq(rw.counts[v], rt.counts[v], "%s value %d", boards[b], v);
		bp_store *sw, *st;
		bp_table *tw, *tt;
		open_table(dw, g, &sw, &tw);
		open_table(dt, g, &st, &tt);
		struct bp_table_meta m;
		cr_assert_eq(bp_table_meta_get(tw, &m), BP_OK);
		for (uint32_t t = 0; t < g->ntiers; t++)
			for (uint64_t i = 0; i < m.tier_size[t]; i++) {
				uint16_t a = 0, c = 1;
				cr_assert_eq(bp_table_get(tw, t, i, &a), BP_OK);
				cr_assert_eq(bp_table_get(tt, t, i, &c), BP_OK);
				cr_assert_eq(a, c, "%s tier %u index %llu", boards[b], t,
					     (unsigned long long)i);
			}
		bp_table_close(tw);
		bp_table_close(tt);
		bp_store_close(sw);
		bp_store_close(st);
		remove_db(dw);
		remove_db(dt);
		bp_game_destroy(g);
	}
}

Test(sparse, mirador_key_unpack_as_the_text_parser)
{
	static const char *const specs[] = { "mirador:5x4,piece=1", "mirador:6x6", "mirador:7x7",
					     "mirador:10x10", "mirador:11x11" };
	const unsigned seed = 20261124;
	printf("mirador_key_unpack_as_the_text_parser: seed %u\n", seed);
	srand(seed);
	for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
		struct bp_game *g = open_game(specs[sp]);
		const struct bp_board *bd = g->board;
		int W = bd->a, H = bd->b, P = sp == 0 ? 1 : 2, nx = W - P + 1, ny = H - P + 1;
		int N = nx * ny, base = 128 - N, accepted = 0;
		for (int trial = 0; trial < 4000; trial++) {
			char cells[128];
			int clash = 0, n = 0, want = rand() % 8;
			uint64_t key[2] = { 0, 0 };
			memset(cells, '.', sizeof cells);
			for (int q = 0; q < N; q++) {
				if (rand() % N >= want)
					continue;
				int red = rand() % 2, x = q % nx, y = q / nx, bit = base + q;
				key[bit / 64] |= 1ull << (bit % 64);
				if (red)
					key[(2 + n) / 64] |= 1ull << ((2 + n) % 64);
				n++;
				for (int dy = 0; dy < P; dy++)
					for (int dx = 0; dx < P; dx++) {
						char *c = &cells[(y + dy) * W + x + dx];
						clash |= *c != '.';
						*c = red ? 'r' : 'b';
					}
			}
			if (2 + n > base)
				continue;
			int tm = rand() % 2, passed = rand() % 4 == 0;
			key[0] |= (uint64_t)(tm << 1 | passed);
			struct bp_text txt = { 0 };
			bp_postext_format_rows(bd, cells, &txt);
			bp_text_printf(&txt, " %c passed=%d", tm ? 'b' : 'r', passed);
			struct bp_pos parsed, unpacked;
			struct bp_err err = { { 0 } };
			int ok = !clash && g->ops->pos_parse(g, txt.s, &parsed, &err) == BP_OK;
			uint32_t tier = ok ? g->ops->tier(g, &parsed) : (uint32_t)n;
			for (uint32_t t = tier > 0 ? tier - 1 : 0; t <= tier + 2; t++) {
				int rc = g->ops->key_unpack(g, t, key, &unpacked);
				int expect = ok && t == tier ? BP_OK : BP_ENOTFOUND;
				cr_assert_eq(rc, expect, "%s: %s in tier %u: %d, expected %d",
					     specs[sp], txt.s, t, rc, expect);
				if (rc == BP_OK)
					cr_assert(bp_pos_equal(&unpacked, &parsed), "%s: %s",
						  specs[sp], txt.s);
			}
			accepted += ok;
			bp_text_free(&txt);
		}
		printf("%s: %d of 4000 keys name a position\n", specs[sp], accepted);
		cr_expect_gt(accepted, 100, "%s", specs[sp]);
		bp_game_destroy(g);
	}
}

static int naive_key_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The enumeration's sort (median of three at random places, a pass for keys equal to
 * the pivot) against qsort and a plain loop dropping repeats, on arrays made to hit
 * its cases: keys at random, few distinct keys repeated many times, sorted and
 * reversed runs, organ pipes, and keys that differ in their low word only. */
Test(sparse, sort_unique_as_qsort)
{
	uint64_t seed = 20261202;
	printf("sort_unique_as_qsort: seed %llu\n", (unsigned long long)seed);
	static const uint64_t sizes[] = { 0, 1, 2, 3, 15, 16, 17, 100, 1000, 4099, 65536, 200003 };
	for (int kind = 0; kind < 6; kind++)
		for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
			uint64_t n = sizes[si];
			uint64_t *a = malloc(2 * sizeof(uint64_t) * (n ? n : 1));
			uint64_t *b = malloc(2 * sizeof(uint64_t) * (n ? n : 1));
			cr_assert(a && b);
			for (uint64_t i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				uint64_t r = seed ^ seed >> 29;
				uint64_t hi, lo;
				switch (kind) {
				case 0: /* at random */
					hi = r;
					lo = r * 0x9e3779b97f4a7c15ull;
					break;
				case 1: /* few distinct keys, many repeats */
					hi = r % 5;
					lo = r >> 40 & 1;
					break;
				case 2: /* sorted, with a run of repeats */
					hi = i / 3;
					lo = i % 2;
					break;
				case 3: /* reversed */
					hi = n - i;
					lo = 7;
					break;
				case 4: /* organ pipe */
					hi = i < n / 2 ? i : n - i;
					lo = r % 3;
					break;
				default: /* one high word, low words at random and repeated */
					hi = 42;
					lo = r % (n / 4 + 1);
					break;
				}
				a[2 * i] = b[2 * i] = lo;
				a[2 * i + 1] = b[2 * i + 1] = hi;
			}
			uint64_t m = bp_sparse_sort_unique(a, n);
			if (n)
				qsort(b, n, 2 * sizeof(uint64_t), naive_key_cmp);
			uint64_t mb = n ? 1 : 0;
			for (uint64_t i = 1; i < n; i++)
				if (naive_key_cmp(b + 2 * i, b + 2 * (mb - 1)) != 0) {
					b[2 * mb] = b[2 * i];
					b[2 * mb + 1] = b[2 * i + 1];
					mb++;
				}
			cr_expect_eq(m, mb, "kind %d, %llu keys: %llu left, expected %llu", kind,
				     (unsigned long long)n, (unsigned long long)m,
				     (unsigned long long)mb);
			cr_expect(m != mb || memcmp(a, b, 2 * sizeof(uint64_t) * m) == 0,
				  "kind %d, %llu keys: not the sorted unique keys", kind,
				  (unsigned long long)n);
			free(a);
			free(b);
		}
}

/* The enumeration in memory reports what it held beside the index at most (solve adds
 * it to its estimate): with two threads, the merge of a tier holds both workers' keys
 * and the merged array at once, beside the index's tiers so far. (mirador:9x9: its
 * large tiers span many work items, so that both workers hold keys of them; on 8x8 one
 * worker may take a whole tier.) An index read back from the database made none.
 * The solve's estimate also counts what writing the index held (below). */
Test(sparse, estimate_counts_enumerating_and_writing)
{
	struct bp_game *g = open_game("mirador:9x9");
	bp_sparse *ix = enumerate(g);
	cr_expect_gt(bp_sparse_enumeration_bytes(ix), 0);
	bp_sparse_free(ix);
	char *dir = temp_db();
	struct bp_solve_result r = solve_into(
		dir, g, (struct bp_solve_opts){ .threads = 2, .index = BP_INDEX_SPARSE });
	bp_store *db;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir, 0, &db, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_sparse_load(db, g, &ix, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(bp_sparse_enumeration_bytes(ix), 0);
	/* writing the index held it, its blocks encoded and LMDB's copy of them, and each
	 * worker's buffers of a block's keys as bytes and records (17 bytes a key each;
	 * 9x9's tiers are under a block): the estimate counts them beside the base */
	uint64_t most = 0;
	for (uint32_t t = 0; t < bp_sparse_tiers(ix); t++)
		most = bp_sparse_count(ix, t) > most ? bp_sparse_count(ix, t) : most;
	uint64_t writing = r.index_bytes + 2 * r.index_stored_bytes + 2 * 2 * 17 * most +
			   bp_solve_base_memory(g);
	cr_expect_geq(r.memory_estimate, writing, "%llu < %llu",
		      (unsigned long long)r.memory_estimate, (unsigned long long)writing);
	bp_sparse_free(ix);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}
