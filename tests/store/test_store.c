/* SPDX-License-Identifier: MIT */
/* The position database: tier and metadata round trips, refusing mismatching tables
 * and other format versions, catching damaged blocks (written through LMDB directly),
 * tables that leave each other alone, the same bytes and findings whatever the number
 * of threads, readers during writes, kill -9 during writes, and a full disk. Each test
 * works in its own directory under /tmp. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <lmdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bp_config.h"
#include "store/codec.h"
#include "store/store.h"
#include "store/store_env.h"
#include "tests/rng.h"

#define SEED 20261121u

/* ---- helpers ---- */

static char dir[64];

static uint64_t rng_state;

static uint64_t rng(void)
{
	return splitmix64(&rng_state);
}

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/bp-store-XXXXXX");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	rng_state = SEED;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(store, .init = setup, .fini = teardown);

/* A tier's records as a solver would leave them: runs of values, small remoteness,
 * some holes. */
static uint16_t *tier_records(uint64_t n)
{
	uint16_t *r = malloc((n ? n : 1) * sizeof *r);
	cr_assert(r);
	unsigned v = 1, rem = 5;
	for (uint64_t i = 0; i < n; i++) {
		if (rng() % 16 == 0) {
			v = (unsigned)(rng() % 4);
			rem = (unsigned)(rng() % 60);
		}
		r[i] = v ? bp_record_make(v, v == 3 && rem > 50 ? BP_RECORD_NO_REMOTENESS : rem)
			 : 0;
	}
	return r;
}

/* The record of version `version` at index i: every record differs between versions,
 * so one record tells which version a whole tier was written as. */
static uint16_t versioned(unsigned version, uint64_t i)
{
	return bp_record_make(1 + (unsigned)((version + i) % 3),
			      (unsigned)((version * 7 + i) % 1000));
}

static bp_store *open_store(int flags)
{
	bp_store *s;
	struct bp_err err = { "" };
	int rc = bp_store_open(dir, flags, &s, &err);
	cr_assert_eq(rc, BP_OK, "open %s: %s (%s)", dir, bp_strerror(rc), err.msg);
	return s;
}

static bp_table *open_table(bp_store *s, const struct bp_table_info *info, int flags)
{
	bp_table *t;
	struct bp_err err = { "" };
	int rc = bp_table_open(s, info->spec, info, flags, &t, &err);
	cr_assert_eq(rc, BP_OK, "open table %s: %s (%s)", info->spec, bp_strerror(rc), err.msg);
	return t;
}

static bp_table *open_table_threads(bp_store *s, const struct bp_table_info *info, int flags,
				    int threads)
{
	bp_table *t = open_table(s, info, flags);
	cr_assert_eq(bp_table_set_threads(t, threads), BP_OK);
	return t;
}

/* A file's bytes, to show that a failed open changed nothing. */
static char *slurp(const char *name, size_t *len)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc(*len ? *len : 1);
	cr_assert(fread(buf, 1, *len, f) == *len);
	fclose(f);
	return buf;
}

static void expect_unchanged(const char *before, size_t len)
{
	size_t len2;
	char *after = slurp("data.mdb", &len2);
	cr_expect(len2 == len && memcmp(before, after, len) == 0, "data.mdb changed");
	free(after);
}

/* ---- raw LMDB access, as an attacker or a cosmic ray would have it ---- */

static MDB_env *raw_open_at(const char *path)
{
	MDB_env *env;
	cr_assert_eq(mdb_env_create(&env), 0);
	cr_assert_eq(mdb_env_set_maxdbs(env, 16), 0);
	/* a map of its own size: LMDB would take the writer's (up to 256 GiB), which a
	 * process short of address space (Valgrind) cannot map */
	cr_assert_eq(mdb_env_set_mapsize(env, (size_t)1 << 30), 0);
	int rc = mdb_env_open(env, path, 0, 0664);
	cr_assert_eq(rc, 0, "raw open %s: %s", path, mdb_strerror(rc));
	return env;
}

static MDB_env *raw_open(void)
{
	return raw_open_at(dir);
}

static void block_key(uint8_t key[12], uint32_t tier, uint64_t block)
{
	for (int i = 0; i < 4; i++)
		key[i] = (uint8_t)(tier >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		key[4 + i] = (uint8_t)(block >> (56 - 8 * i));
}

/* Reads a value (a malloc'd copy). */
static void *raw_get(const char *db, const void *key, size_t klen, size_t *len)
{
	MDB_env *env = raw_open();
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k = { klen, (void *)key }, v;
	cr_assert_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, db, 0, &dbi), 0);
	cr_assert_eq(mdb_get(txn, dbi, &k, &v), 0);
	void *copy = malloc(v.mv_size);
	memcpy(copy, v.mv_data, v.mv_size);
	*len = v.mv_size;
	mdb_txn_abort(txn);
	mdb_env_close(env);
	return copy;
}

/* Writes a value, or deletes the key when val is NULL. */
static void raw_put(const char *db, const void *key, size_t klen, const void *val, size_t len)
{
	MDB_env *env = raw_open();
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k = { klen, (void *)key }, v = { len, (void *)val };
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, db, MDB_CREATE, &dbi), 0);
	if (val)
		cr_assert_eq(mdb_put(txn, dbi, &k, &v, 0), 0);
	else
		cr_assert_eq(mdb_del(txn, dbi, &k, NULL), 0);
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

/* ---- round trips ---- */

static const uint64_t sizes[] = { 0, 1, 1000, 4096, 4097, 3 * 4096 + 5, 70000 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

Test(store, tier_round_trip)
{
	struct bp_table_info info = { .spec = "test:round",
				      .rules_version = 1,
				      .ntiers = NSIZES,
				      .tier_size = sizes,
				      .block_records = 4096 };
	uint16_t *want[NSIZES];
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	for (uint32_t i = 0; i < NSIZES; i++) {
		want[i] = tier_records(sizes[i]);
		cr_assert_eq(bp_table_put_tier(t, i, want[i], 1.0, 100, NULL), BP_OK, "tier %u", i);
	}
	/* read back through this handle, then through a fresh store */
	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 0; i < NSIZES; i++) {
			uint16_t *got = malloc((sizes[i] + 1) * sizeof *got);
			got[sizes[i]] = 0xbeef; /* guard */
			cr_assert_eq(bp_table_get_tier(t, i, got), BP_OK, "tier %u", i);
			cr_expect_arr_eq(got, want[i], sizes[i] * sizeof *got, "tier %u", i);
			cr_expect_eq(got[sizes[i]], 0xbeef, "tier %u wrote past its end", i);
			for (uint64_t j = 0; j < sizes[i]; j++) {
				uint16_t r = 0;
				cr_assert_eq(bp_table_get(t, i, j, &r), BP_OK);
				if (r != want[i][j])
					cr_assert_fail("tier %u index %llu: %#x, want %#x", i,
						       (unsigned long long)j, r, want[i][j]);
			}
			uint16_t r;
			cr_expect_eq(bp_table_get(t, i, sizes[i], &r), BP_ENOTFOUND);
			free(got);
		}
		cr_expect_eq(bp_table_check_blocks(t, NULL, NULL), 0);
		bp_table_close(t);
		bp_store_close(s);
		s = open_store(BP_STORE_READONLY);
		t = open_table(s, &info, 0);
	}
	/* random probes against the cache */
	for (int k = 0; k < 20000; k++) {
		uint32_t i = (uint32_t)(rng() % NSIZES);
		if (!sizes[i])
			continue;
		uint64_t j = rng() % sizes[i];
		uint16_t r;
		cr_assert_eq(bp_table_get(t, i, j, &r), BP_OK);
		cr_assert_eq(r, want[i][j]);
	}
	bp_table_close(t);
	bp_store_close(s);
	for (uint32_t i = 0; i < NSIZES; i++)
		free(want[i]);
}

/* A fill callback serving records from an array, counting its calls and checking that
 * they come in order and cover the tier once; fails at call fail_at (0: never). */
struct filler {
	const uint16_t *src;
	uint64_t next;
	int calls, fail_at;
};

static int fill_from(void *ctx, uint64_t first, uint64_t n, uint16_t *dst)
{
	struct filler *f = ctx;
	if (++f->calls == f->fail_at)
		return BP_EIO;
	cr_assert_eq(first, f->next, "fill out of order");
	memcpy(dst, f->src + first, n * sizeof *dst);
	f->next += n;
	return BP_OK;
}

/* bp_table_put_tier_fill stores what bp_table_put_tier stores, on 1 and 3 threads,
 * and a failing fill changes nothing. */
Test(store, put_tier_fill_is_put_tier)
{
	struct bp_table_info a = { .spec = "test:whole",
				   .rules_version = 1,
				   .ntiers = NSIZES,
				   .tier_size = sizes,
				   .block_records = 64 },
			     b = a;
	snprintf(b.spec, sizeof b.spec, "test:filled");
	bp_store *s = open_store(BP_STORE_CREATE);
	for (int threads = 1; threads <= 3; threads += 2) {
		bp_table *ta = open_table_threads(s, &a, BP_STORE_CREATE, threads);
		bp_table *tb = open_table_threads(s, &b, BP_STORE_CREATE, threads);
		for (uint32_t i = 0; i < NSIZES; i++) {
			uint16_t *want = tier_records(sizes[i]);
			struct filler f = { .src = want };
			cr_assert_eq(bp_table_put_tier(ta, i, want, 1.0, 100, NULL), BP_OK);
			cr_assert_eq(bp_table_put_tier_fill(tb, i, fill_from, &f, 1.0, 100, NULL),
				     BP_OK, "tier %u", i);
			cr_expect_eq(f.next, sizes[i], "tier %u: fill covered %llu", i,
				     (unsigned long long)f.next);
			uint16_t *got = malloc((sizes[i] + 1) * sizeof *got);
			cr_assert_eq(bp_table_get_tier(tb, i, got), BP_OK);
			cr_expect_arr_eq(got, want, sizes[i] * sizeof *got, "tier %u", i);
			free(got);
			free(want);
		}
		struct bp_table_meta ma, mb;
		cr_assert_eq(bp_table_meta_get(ta, &ma), BP_OK);
		cr_assert_eq(bp_table_meta_get(tb, &mb), BP_OK);
		cr_expect_eq(ma.stored_bytes, mb.stored_bytes, "the same blocks");
		cr_expect_arr_eq(ma.tier_count, mb.tier_count, 4 * NSIZES * sizeof(uint64_t));
		bp_table_close(ta);
		bp_table_close(tb);
	}
	/* a fill that fails on its second call: the tier stays as it was */
	bp_table *tb = open_table(s, &b, 0);
	uint16_t *other = tier_records(sizes[NSIZES - 1]);
	struct filler f = { .src = other, .fail_at = 2 };
	struct bp_table_meta before, after;
	cr_assert_eq(bp_table_meta_get(tb, &before), BP_OK);
	uint64_t bytes = before.stored_bytes;
	cr_expect_eq(bp_table_put_tier_fill(tb, NSIZES - 1, fill_from, &f, 2.0, 100, NULL), BP_EIO);
	cr_assert_eq(bp_table_meta_get(tb, &after), BP_OK);
	cr_expect_eq(after.stored_bytes, bytes);
	cr_expect_eq(bp_table_put_tier_fill(tb, 0, NULL, NULL, 1.0, 0, NULL), BP_EINVAL);
	free(other);
	bp_table_close(tb);
	bp_store_close(s);
}

/* bp_table_get_range reads any range of a done tier: inside a block, across blocks,
 * whole, empty, up to the tier's shorter last block; on one thread and on three (the
 * whole blocks inside the range on the table's threads, the edges by themselves);
 * refuses ranges past the end and tiers not done. */
Test(store, get_range)
{
	static const uint64_t sz[] = { 1000, 5 };
	struct bp_table_info info = { .spec = "test:range",
				      .rules_version = 1,
				      .ntiers = 2,
				      .tier_size = sz,
				      .block_records = 64 };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	uint16_t *want = tier_records(sz[0]), got[1001];
	cr_assert_eq(bp_table_put_tier(t, 0, want, 1.0, 100, NULL), BP_OK);
	static const uint64_t ranges[][2] = { { 0, 1000 }, { 0, 1 },	 { 999, 1 },   { 10, 20 },
					      { 60, 10 },  { 63, 2 },	 { 64, 64 },   { 100, 777 },
					      { 500, 0 },  { 64, 936 },	 { 100, 900 }, { 0, 960 },
					      { 1, 998 },  { 128, 192 }, { 127, 194 }, { 960, 40 },
					      { 900, 100 } };
	for (int threads = 1; threads <= 3; threads += 2) {
		cr_assert_eq(bp_table_set_threads(t, threads), BP_OK);
		for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
			uint64_t first = ranges[k][0], n = ranges[k][1];
			memset(got, 0, sizeof got);
			got[n] = 0xbeef;
			cr_assert_eq(bp_table_get_range(t, 0, first, n, got), BP_OK,
				     "[%llu, +%llu) on %d threads", (unsigned long long)first,
				     (unsigned long long)n, threads);
			cr_expect_arr_eq(got, want + first, n * sizeof *got,
					 "[%llu, +%llu) on %d threads", (unsigned long long)first,
					 (unsigned long long)n, threads);
			cr_expect_eq(got[n], 0xbeef, "wrote past the range");
		}
	}
	cr_expect_eq(bp_table_get_range(t, 0, 990, 11, got), BP_EINVAL);
	cr_expect_eq(bp_table_get_range(t, 0, 1001, 0, got), BP_EINVAL);
	cr_expect_eq(bp_table_get_range(t, 1, 0, 5, got), BP_ENOTFOUND);
	free(want);
	bp_table_close(t);
	bp_store_close(s);
}

/* The default block size, a tier of several blocks, and the space it takes. */
Test(store, default_blocks)
{
	const uint64_t size[] = { 300000 };
	struct bp_table_info info = {
		.spec = "test:big", .rules_version = 2, .ntiers = 1, .tier_size = size
	};
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	uint16_t *want = tier_records(size[0]), *got = malloc(size[0] * sizeof *got);
	cr_assert_eq(bp_table_put_tier(t, 0, want, 0, 0, NULL), BP_OK);
	cr_assert_eq(bp_table_get_tier(t, 0, got), BP_OK);
	cr_expect_arr_eq(got, want, size[0] * sizeof *got);
	struct bp_table_meta m;
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	cr_expect_eq(m.block_records, 16384);
	printf("store.default_blocks: %llu records (seed %u) -> %llu bytes, %.3f bits/record\n",
	       (unsigned long long)size[0], SEED, (unsigned long long)m.stored_bytes,
	       8.0 * (double)m.stored_bytes / (double)size[0]);
	/* sequential probes hit the block cache: time them, for the record */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint64_t j = 0; j < size[0]; j++) {
		uint16_t r;
		cr_assert_eq(bp_table_get(t, 0, j, &r), BP_OK);
		cr_assert_eq(r, want[j]);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	printf("store.default_blocks: %.1f M sequential probes/s\n", (double)size[0] / secs / 1e6);
	bp_table_close(t);
	bp_store_close(s);
	free(want);
	free(got);
}

Test(store, metadata_round_trip)
{
	const uint64_t size[] = { 10, 0, 5000 };
	struct bp_table_info info = { .spec = "taifas:3x3",
				      .rules_version = 7,
				      .ntiers = 3,
				      .tier_size = size,
				      .block_records = 1024,
				      .compression_level = 3 };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	struct bp_table_meta m;
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	for (uint32_t i = 0; i < 3; i++)
		cr_expect_eq(m.tier_done[i], 0);
	cr_expect_eq(m.stored_bytes, 0);
	cr_expect_str_eq(m.extra, "");

	uint16_t t0[10] = { 0, 1, 2, 3, 5, 6, 7, 0, 0, bp_record_make(3, BP_RECORD_NO_REMOTENESS) };
	uint16_t *t2 = tier_records(5000);
	uint64_t want2[4] = { 0 };
	for (int i = 0; i < 5000; i++)
		want2[t2[i] & 3]++;
	cr_assert_eq(bp_table_put_tier(t, 0, t0, 1.5, 1000, "threads=2\n"), BP_OK);
	cr_assert_eq(bp_table_put_tier(t, 2, t2, 2.5, 500, NULL), BP_OK);
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	uint64_t after_two = m.stored_bytes;
	bp_table_close(t);
	bp_store_close(s);

	s = open_store(0);
	t = open_table(s, &info, 0);
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	cr_expect_str_eq(m.spec, "taifas:3x3");
	cr_expect_eq(m.format_version, BP_STORE_FORMAT);
	cr_expect_eq(m.rules_version, 7);
	cr_expect_str_eq(m.tool_version, BP_VERSION);
	cr_expect_eq(m.ntiers, 3);
	cr_expect_eq(m.block_records, 1024);
	for (uint32_t i = 0; i < 3; i++)
		cr_expect_eq(m.tier_size[i], size[i]);
	cr_expect_eq(m.tier_done[0], 1);
	cr_expect_eq(m.tier_done[1], 0);
	cr_expect_eq(m.tier_done[2], 1);
	const uint64_t want0[4] = { 3, 2, 2, 3 }; /* 0,0,0 | 1,5 | 2,6 | 3,7,draw */
	cr_expect_arr_eq(m.tier_count, want0, sizeof want0);
	cr_expect_arr_eq(m.tier_count + 4, ((uint64_t[4]){ 0 }), sizeof want0);
	cr_expect_arr_eq(m.tier_count + 8, want2, sizeof want2);
	cr_expect_eq(m.stored_bytes, after_two);
	cr_expect_gt(m.stored_bytes, 0);
	cr_expect(m.seconds == 2.5);
	cr_expect_eq(m.peak_memory, 1000, "the peak is the largest reported");
	cr_expect_str_eq(m.extra, "threads=2\n", "NULL extra keeps the lines");

	/* an empty tier, new extra lines; rewriting tier 0 replaces its counts and bytes */
	cr_assert_eq(bp_table_put_tier(t, 1, NULL, 3.0, 2000, "threads=1\nnote=x\n"), BP_OK);
	uint16_t zeros[10] = { 0 };
	cr_assert_eq(bp_table_put_tier(t, 0, zeros, 3.5, 10, ""), BP_OK);
	bp_table_close(t);
	t = open_table(s, &info, 0);
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	cr_expect_eq(m.tier_done[1], 1);
	const uint64_t zero_counts[4] = { 10, 0, 0, 0 };
	cr_expect_arr_eq(m.tier_count, zero_counts, sizeof zero_counts);
	cr_expect(m.seconds == 3.5);
	cr_expect_eq(m.peak_memory, 2000);
	cr_expect_str_eq(m.extra, "");
	uint16_t back[10];
	cr_assert_eq(bp_table_get_tier(t, 0, back), BP_OK);
	cr_expect_arr_eq(back, zeros, sizeof zeros);
	cr_assert_eq(bp_table_get_tier(t, 1, back), BP_OK);
	bp_table_close(t);

	/* opened as it is, without an info */
	bp_table *u;
	cr_assert_eq(bp_table_open(s, "taifas:3x3", NULL, 0, &u, NULL), BP_OK);
	cr_assert_eq(bp_table_meta_get(u, &m), BP_OK);
	cr_expect_eq(m.rules_version, 7);
	bp_table_close(u);
	bp_store_close(s);
	free(t2);
}

/* ---- refusals ---- */

Test(store, missing_things)
{
	bp_store *s;
	bp_table *t;
	struct bp_err err;
	char sub[128];
	snprintf(sub, sizeof sub, "%s/a/b", dir);
	cr_expect_eq(bp_store_open(sub, BP_STORE_READONLY, &s, &err), BP_ENOTFOUND);
	cr_expect_eq(bp_store_open(sub, 0, &s, &err), BP_ENOTFOUND);
	cr_expect_eq(bp_store_open(dir, 0, &s, &err), BP_ENOTFOUND, "empty directory");
	cr_expect_eq(bp_store_open(dir, BP_STORE_READONLY | BP_STORE_CREATE, &s, &err), BP_EINVAL);
	cr_assert_eq(bp_store_open(sub, BP_STORE_CREATE, &s, &err), BP_OK, "%s", err.msg);
	const uint64_t size[] = { 100 };
	struct bp_table_info info = { .spec = "x:1", .ntiers = 1, .tier_size = size };
	cr_expect_eq(bp_table_open(s, "x:1", &info, 0, &t, &err), BP_ENOTFOUND);
	cr_expect_eq(bp_table_open(s, "x:2", &info, BP_STORE_CREATE, &t, &err), BP_EINVAL,
		     "spec and info disagree");
	cr_expect_eq(bp_table_open(s, ".boardproof", NULL, 0, &t, &err), BP_EINVAL);
	t = open_table(s, &info, BP_STORE_CREATE);
	uint16_t r, rec[100] = { 1 };
	cr_expect_eq(bp_table_get(t, 0, 0, &r), BP_ENOTFOUND, "tier not done");
	cr_expect_eq(bp_table_get(t, 1, 0, &r), BP_ENOTFOUND, "no such tier");
	cr_expect_eq(bp_table_get_tier(t, 0, rec), BP_ENOTFOUND);
	cr_expect_eq(bp_table_put_tier(t, 1, rec, 0, 0, NULL), BP_EINVAL);
	cr_expect_eq(bp_table_put_tier(t, 0, rec, 0, 0, NULL), BP_OK);
	cr_expect_eq(bp_table_get(t, 0, 100, &r), BP_ENOTFOUND, "index out of range");
	bp_table_close(t);
	bp_store_close(s);
	/* a read-only store refuses writes */
	cr_assert_eq(bp_store_open(sub, BP_STORE_READONLY, &s, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(bp_table_open(s, "y:1", &info, BP_STORE_CREATE, &t, &err), BP_EINVAL);
	cr_assert_eq(bp_table_open(s, "x:1", &info, 0, &t, &err), BP_OK);
	cr_expect_eq(bp_table_put_tier(t, 0, rec, 0, 0, NULL), BP_EINVAL);
	bp_table_close(t);
	bp_store_close(s);
}

Test(store, mismatching_info)
{
	const uint64_t size[] = { 50, 60 }, other_size[] = { 50, 61 }, three[] = { 50, 60, 1 };
	struct bp_table_info info = { .spec = "g:1",
				      .rules_version = 3,
				      .ntiers = 2,
				      .tier_size = size,
				      .block_records = 16 };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	uint16_t *want = tier_records(60), got[60];
	cr_assert_eq(bp_table_put_tier(t, 1, want, 0, 0, NULL), BP_OK);
	bp_table_close(t);
	bp_store_close(s);
	size_t len;
	char *before = slurp("data.mdb", &len);

	struct bp_table_info bad[4] = { info, info, info, info };
	bad[0].rules_version = 4;
	bad[1].tier_size = other_size;
	bad[2].ntiers = 3;
	bad[2].tier_size = three;
	bad[3].block_records = 32;
	s = open_store(0);
	for (int i = 0; i < 4; i++) {
		struct bp_err err = { "" };
		cr_expect_eq(bp_table_open(s, "g:1", &bad[i], BP_STORE_CREATE, &t, &err),
			     i == 0 ? BP_ERULES : BP_EFORMAT, "case %d", i);
		cr_expect_neq(err.msg[0], 0, "case %d names the difference", i);
		if (i == 1)
			cr_expect(strstr(err.msg, "tier 1 has 60 records stored, 61 expected") &&
					  strstr(err.msg, "another index layout") &&
					  strstr(err.msg, "solve --replace"),
				  "%s", err.msg);
	}
	bp_store_close(s);
	expect_unchanged(before, len);
	/* and the table is intact */
	s = open_store(0);
	info.block_records = 0; /* 0: whatever is stored */
	t = open_table(s, &info, 0);
	cr_assert_eq(bp_table_get_tier(t, 1, got), BP_OK);
	cr_expect_arr_eq(got, want, sizeof got);
	bp_table_close(t);
	bp_store_close(s);
	free(before);
	free(want);
}

/* A table opened as it is can be asked whether it was solved under a rules version,
 * which leaves it untouched; dropping a table removes it and only it. */
Test(store, rules_check_and_drop)
{
	const uint64_t size[] = { 40 };
	struct bp_table_info a = { .spec = "a:1",
				   .rules_version = 1,
				   .ntiers = 1,
				   .tier_size = size },
			     b = a;
	snprintf(b.spec, sizeof b.spec, "b:1");
	b.rules_version = 2;
	bp_store *s = open_store(BP_STORE_CREATE);
	uint16_t *want = tier_records(40), got[40];
	bp_table *t = open_table(s, &a, BP_STORE_CREATE);
	cr_assert_eq(bp_table_put_tier(t, 0, want, 0, 0, NULL), BP_OK);
	bp_table_close(t);
	t = open_table(s, &b, BP_STORE_CREATE);
	cr_assert_eq(bp_table_put_tier(t, 0, want, 0, 0, NULL), BP_OK);
	bp_table_close(t);
	bp_store_close(s);
	size_t len;
	char *before = slurp("data.mdb", &len);
	s = open_store(0);
	struct bp_err err = { "" };
	cr_assert_eq(bp_table_open(s, "a:1", NULL, 0, &t, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(bp_table_check_rules(t, 1, NULL), BP_OK);
	cr_expect_eq(bp_table_check_rules(t, 2, &err), BP_ERULES);
	cr_expect(strstr(err.msg, "rules version 1") && strstr(err.msg, "rules version 2"), "%s",
		  err.msg);
	cr_expect_eq(bp_store_drop_table(s, "a:1", &err), BP_EINVAL, "the table is open");
	bp_table_close(t);
	bp_store_close(s);
	expect_unchanged(before, len);
	free(before);
	s = open_store(0);
	cr_expect_eq(bp_store_drop_table(s, "a:1", &err), BP_OK, "%s", err.msg);
	cr_expect_eq(bp_store_drop_table(s, "a:1", &err), BP_ENOTFOUND);
	cr_expect_eq(bp_table_open(s, "a:1", NULL, 0, &t, &err), BP_ENOTFOUND);
	t = open_table(s, &b, 0);
	cr_assert_eq(bp_table_get_tier(t, 0, got), BP_OK, "the other table is intact");
	cr_expect_arr_eq(got, want, sizeof got);
	bp_table_close(t);
	bp_store_close(s);
	free(want);
}

Test(store, other_format_version)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	const uint64_t size[] = { 10 };
	struct bp_table_info info = { .spec = "g:1", .ntiers = 1, .tier_size = size };
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	bp_table_close(t);
	bp_store_close(s);

	/* the store header, as documented in store.c: magic, then the version at 8 */
	size_t hlen;
	uint8_t *h = raw_get(".boardproof", "header", 6, &hlen);
	cr_assert_geq(hlen, 12);
	cr_expect_arr_eq(h, "BPSTORE", 8);
	cr_expect_eq(h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24, BP_STORE_FORMAT);
	h[8] = BP_STORE_FORMAT + 1;
	raw_put(".boardproof", "header", 6, h, hlen);
	size_t len;
	char *before = slurp("data.mdb", &len);
	for (int flags = 0; flags <= BP_STORE_CREATE; flags++) {
		struct bp_err err = { "" };
		cr_expect_eq(bp_store_open(dir, flags, &s, &err), BP_EFORMAT, "flags %d", flags);
		cr_expect(strstr(err.msg, "version") != NULL, "message: %s", err.msg);
	}
	expect_unchanged(before, len);
	free(before);

	/* a good header again, but the table's metadata of another version */
	h[8] = BP_STORE_FORMAT;
	raw_put(".boardproof", "header", 6, h, hlen);
	size_t mlen;
	uint8_t *m = raw_get("g:1", "meta", 4, &mlen);
	cr_expect_arr_eq(m, "BPTABLE", 8);
	m[8] = BP_STORE_FORMAT + 1;
	raw_put("g:1", "meta", 4, m, mlen);
	s = open_store(0);
	struct bp_err err = { "" };
	cr_expect_eq(bp_table_open(s, "g:1", &info, 0, &t, &err), BP_EFORMAT);
	cr_expect(strstr(err.msg, "format") != NULL, "message: %s", err.msg);
	/* damaged metadata is corruption, not another format */
	m[8] = BP_STORE_FORMAT;
	m[mlen - 20] ^= 1;
	bp_store_close(s);
	raw_put("g:1", "meta", 4, m, mlen);
	s = open_store(0);
	cr_expect_eq(bp_table_open(s, "g:1", &info, 0, &t, &err), BP_ECORRUPT);
	bp_store_close(s);
	free(h);
	free(m);
}

Test(store, not_a_boardproof_database)
{
	/* an LMDB environment of something else */
	raw_put("other", "k", 1, "v", 1);
	size_t len;
	char *before = slurp("data.mdb", &len);
	bp_store *s;
	struct bp_err err = { "" };
	cr_expect_eq(bp_store_open(dir, BP_STORE_CREATE, &s, &err), BP_EFORMAT);
	cr_expect(strstr(err.msg, "not a boardproof database") != NULL, "message: %s", err.msg);
	cr_expect_eq(bp_store_open(dir, BP_STORE_READONLY, &s, &err), BP_EFORMAT);
	expect_unchanged(before, len);
	free(before);
	/* a file that is not LMDB at all */
	char path[128];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	FILE *f = fopen(path, "wb");
	for (int i = 0; i < 5000; i++)
		fputc('x', f);
	fclose(f);
	cr_expect_eq(bp_store_open(dir, BP_STORE_CREATE, &s, &err), BP_EFORMAT, "%s", err.msg);
}

/* ---- damage ---- */

struct bad_list {
	int n;
	uint32_t tier[8];
	uint64_t block[8];
};

static void note_bad(void *ctx, uint32_t tier, uint64_t block, const char *why)
{
	struct bad_list *b = ctx;
	cr_expect(why && *why);
	if (b->n < 8) {
		b->tier[b->n] = tier;
		b->block[b->n] = block;
	}
	b->n++;
}

enum damage { FLIP, TRUNCATE, SWAP, DELETE, FOREIGN };

/* Writes a table "d:1" (tier 0: 5 blocks of 100 records; tier 1: 150 records) and a
 * table "d:2" with the same content, damages d:1 through LMDB, and checks that every
 * reader catches exactly the damaged blocks. */
static void damage_case(enum damage kind)
{
	const uint64_t size[] = { 500, 150 };
	struct bp_table_info info = {
		.spec = "d:1", .ntiers = 2, .tier_size = size, .block_records = 100
	};
	struct bp_table_info info2 = info;
	snprintf(info2.spec, sizeof info2.spec, "d:2");
	uint16_t *t0 = tier_records(500), *t1 = tier_records(150), got[500];
	bp_store *s = open_store(BP_STORE_CREATE);
	for (int k = 0; k < 2; k++) {
		bp_table *t = open_table_threads(s, k ? &info2 : &info, BP_STORE_CREATE, 1 + k);
		cr_assert_eq(bp_table_put_tier(t, 0, t0, 0, 0, NULL), BP_OK);
		cr_assert_eq(bp_table_put_tier(t, 1, t1, 0, 0, NULL), BP_OK);
		bp_table_close(t);
	}
	bp_store_close(s);

	uint8_t k1[12], k2[12];
	block_key(k1, 0, 1);
	block_key(k2, 0, 3);
	size_t l1, l2;
	uint8_t *v1 = raw_get("d:1", k1, 12, &l1), *v2 = raw_get("d:1", k2, 12, &l2);
	int nbad = 1;
	switch (kind) {
	case FLIP:
		v1[l1 - 3] ^= 0x10; /* inside the zstd frame */
		raw_put("d:1", k1, 12, v1, l1);
		break;
	case TRUNCATE: raw_put("d:1", k1, 12, v1, l1 - 5); break;
	case SWAP:
		raw_put("d:1", k1, 12, v2, l2);
		raw_put("d:1", k2, 12, v1, l1);
		nbad = 2;
		break;
	case DELETE: raw_put("d:1", k1, 12, NULL, 0); break;
	case FOREIGN: {
		/* the same block of a table with the same content: only the seed differs */
		size_t lf;
		uint8_t *vf = raw_get("d:2", k1, 12, &lf);
		cr_expect(lf != l1 || memcmp(vf, v1, lf) != 0, "tables share a checksum");
		raw_put("d:1", k1, 12, vf, lf);
		free(vf);
		break;
	}
	}

	s = open_store(0);
	for (int threads = 1; threads <= 3; threads++) {
		bp_table *t = open_table_threads(s, &info, 0, threads);
		cr_expect_eq(bp_table_get_tier(t, 0, got), BP_ECORRUPT, "%d threads", threads);
		uint16_t r;
		cr_expect_eq(bp_table_get(t, 0, 150, &r), BP_ECORRUPT, "a probe in block 1");
		cr_expect_eq(bp_table_get(t, 0, 150, &r), BP_ECORRUPT, "not cached after failing");
		cr_expect_eq(bp_table_get(t, 0, 50, &r), BP_OK, "block 0 is fine");
		cr_expect_eq(r, t0[50]);
		cr_expect_eq(bp_table_get(t, 0, 399, &r), nbad == 2 ? BP_ECORRUPT : BP_OK);
		cr_expect_eq(bp_table_get_tier(t, 1, got), BP_OK, "tier 1 is fine");
		cr_expect_arr_eq(got, t1, 150 * sizeof *got);
		struct bad_list bl = { 0 };
		cr_expect_eq(bp_table_check_blocks(t, note_bad, &bl), nbad, "%d threads", threads);
		cr_expect_eq(bl.n, nbad);
		cr_expect(bl.tier[0] == 0 && bl.block[0] == 1);
		if (nbad == 2)
			cr_expect(bl.tier[1] == 0 && bl.block[1] == 3);
		bp_table_close(t);
	}
	/* the other table is untouched */
	bp_table *t = open_table_threads(s, &info2, 0, 2);
	cr_expect_eq(bp_table_check_blocks(t, NULL, NULL), 0);
	cr_expect_eq(bp_table_get_tier(t, 0, got), BP_OK);
	cr_expect_arr_eq(got, t0, 500 * sizeof *got);
	bp_table_close(t);
	bp_store_close(s);
	free(v1);
	free(v2);
	free(t0);
	free(t1);
}

Test(store, flipped_bit)
{
	damage_case(FLIP);
}

Test(store, truncated_block)
{
	damage_case(TRUNCATE);
}

Test(store, swapped_blocks)
{
	damage_case(SWAP);
}

Test(store, missing_block)
{
	damage_case(DELETE);
}

Test(store, block_from_another_table)
{
	damage_case(FOREIGN);
}

/* ---- damaged LMDB pages ----
 *
 * LMDB trusts its pages. It checks a page number against the newest meta page's page
 * count (MDB_PAGE_NOTFOUND), but not node flags: a leaf node whose "duplicates" flag
 * (F_DUPDATA, 4) is flipped on, in a database without duplicates, makes mdb_get write
 * through a NULL sub-cursor (the SIGSEGV the corruption campaign found). These tests
 * damage data.mdb that way, and by pointing branch pages past the file, and expect
 * reads to report damage (BP_ECORRUPT) instead of dying. LMDB 0.9's page layout on a
 * 64-bit machine: an 8-byte page number, 2 bytes of padding, 2 bytes of flags
 * (1: branch, 2: leaf, 8: meta), the 2-byte lower and upper bounds, then 2-byte node
 * offsets; a node starts with three 16-bit words (lo, hi, flags; a branch node's
 * child page number is all three) and its 16-bit key size. */
enum { PSIZE = 4096 };

/* For every node of every page of kind `flags` whose first key is `ksize` bytes long:
 * mode 0 sets the child page number to child + the node's number; mode 1 sets F_DUPDATA
 * in the node's flags. @return the pages changed. */
static int damage_only = -1; /* >= 0: damage_pages changes only that matching page */

static int damage_pages(unsigned kind, unsigned ksize, int mode, uint64_t child)
{
	int seen = 0;
	char path[128];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	size_t len;
	uint8_t *f = (uint8_t *)slurp("data.mdb", &len);
	int pages = 0;
	for (size_t p = 2; p < len / PSIZE; p++) {
		uint8_t *pg = f + p * PSIZE;
		uint64_t pgno;
		uint16_t flags, lower, first, k;
		memcpy(&pgno, pg, 8);
		memcpy(&flags, pg + 10, 2);
		memcpy(&lower, pg + 12, 2);
		memcpy(&first, pg + 16, 2);
		if (pgno != p || flags != kind || lower <= 16 || lower > PSIZE ||
		    first + 8u > PSIZE)
			continue;
		memcpy(&k, pg + first + 6, 2);
		if (kind == 2 && k != ksize)
			continue;
		if (damage_only >= 0 && seen++ != damage_only)
			continue;
		for (unsigned i = 0; i < (lower - 16u) / 2; i++) {
			uint16_t off;
			memcpy(&off, pg + 16 + 2 * i, 2);
			if (off + 6u > PSIZE)
				continue;
			if (mode == 1) {
				pg[off + 4] |= 4;
				continue;
			}
			uint64_t c = child + i;
			for (int w = 0; w < 3; w++) {
				uint16_t part = (uint16_t)(c >> 16 * w);
				memcpy(pg + off + 2 * w, &part, 2);
			}
		}
		pages++;
	}
	FILE *out = fopen(path, "r+b");
	cr_assert(out);
	cr_assert_eq(fwrite(f, 1, len, out), len);
	fclose(out);
	free(f);
	return pages;
}

/* A table of 800 blocks (several leaf pages under a branch page). */
static const uint64_t psize800[] = { 256 * 800 };
static const struct bp_table_info pinfo = {
	.spec = "p:1", .ntiers = 1, .tier_size = psize800, .block_records = 256
};

static uint16_t *write_800_blocks(void)
{
	uint16_t *t0 = tier_records(psize800[0]);
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &pinfo, BP_STORE_CREATE);
	cr_assert_eq(bp_table_put_tier(t, 0, t0, 0, 0, NULL), BP_OK);
	bp_table_close(t);
	bp_store_close(s);
	return t0;
}

/* Every read of the damaged table reports damage, on one thread and two. */
static void expect_damage_reported(uint16_t *buf)
{
	bp_store *rs;
	bp_table *t;
	struct bp_err err = { "" };
	int rc = bp_store_open(dir, BP_STORE_READONLY, &rs, &err);
	cr_assert_eq(rc, BP_OK, "%s", err.msg);
	rc = bp_table_open(rs, pinfo.spec, &pinfo, 0, &t, &err);
	if (rc == BP_OK) {
		for (int threads = 1; threads <= 2; threads++) {
			cr_expect_eq(bp_table_set_threads(t, threads), BP_OK);
			cr_expect_gt(bp_table_check_blocks(t, NULL, NULL), 0);
			uint16_t r;
			cr_expect_eq(bp_table_get(t, 0, 1000, &r), BP_ECORRUPT);
			cr_expect_eq(bp_table_get_tier(t, 0, buf), BP_ECORRUPT);
		}
		bp_table_close(t);
	} else {
		cr_expect_eq(rc, BP_ECORRUPT, "%s", err.msg);
	}
	bp_store_close(rs);
}

Test(store, leaf_nodes_flagged_as_duplicates)
{
	uint16_t *t0 = write_800_blocks();
	cr_assert_gt(damage_pages(2, BP_CODEC_KEY_SIZE, 1, 0), 1, "no leaf page of blocks");
	expect_damage_reported(t0);
	free(t0);
}

Test(store, branch_page_past_the_file)
{
	uint16_t *t0 = write_800_blocks();
	size_t len;
	free(slurp("data.mdb", &len));
	cr_assert_gt(damage_pages(1, 0, 0, len / PSIZE + 3), 0, "no branch page");
	expect_damage_reported(t0);
	free(t0);
}

/* A writer is refused before it writes through a damaged page: LMDB's writes are not
 * guarded, and inserting blocks would read the damaged tree (a fault, or LMDB's
 * assertion, killing the process). Both kinds of damage above. */
static void expect_writer_refused(void)
{
	bp_store *s;
	bp_table *t = NULL;
	struct bp_err err = { "" };
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &s, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(bp_table_open(s, pinfo.spec, &pinfo, BP_STORE_CREATE, &t, &err), BP_ECORRUPT);
	cr_expect(strstr(err.msg, "damaged") || strstr(err.msg, "page not found"), "message: %s",
		  err.msg);
	cr_expect_null(t);
	bp_store_close(s);
}

/* Each leaf page of blocks damaged alone, in turn: a writer is always refused, and on
 * some pages only the walk before writing finds it (the open's own reads pass them). */
Test(store, writer_refused_on_damaged_pages)
{
	uint16_t *t0 = write_800_blocks();
	size_t len;
	char *orig = slurp("data.mdb", &len), path[128];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	int tried = 0, by_walk = 0;
	for (damage_only = 0; damage_pages(2, BP_CODEC_KEY_SIZE, 1, 0) == 1; damage_only++) {
		bp_store *s;
		bp_table *t = NULL;
		struct bp_err err = { "" };
		cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &s, &err), BP_OK, "%s", err.msg);
		cr_expect_eq(bp_table_open(s, pinfo.spec, &pinfo, BP_STORE_CREATE, &t, &err),
			     BP_ECORRUPT, "leaf page %d", damage_only);
		cr_expect_null(t);
		by_walk += strstr(err.msg, "writing would read") != NULL;
		bp_store_close(s);
		tried++;
		FILE *f = fopen(path, "wb");
		cr_assert(f);
		cr_assert_eq(fwrite(orig, 1, len, f), len);
		fclose(f);
	}
	damage_only = -1;
	cr_expect_gt(tried, 1, "no leaf pages of blocks");
	cr_expect_gt(by_walk, 0, "the walk before writing never was what found the damage");
	cr_assert_gt(damage_pages(2, BP_CODEC_KEY_SIZE, 1, 0), 1); /* every leaf page at once */
	expect_writer_refused();
	free(orig);
	free(t0);
}

Test(store, writer_refused_on_damaged_branch)
{
	uint16_t *t0 = write_800_blocks();
	size_t len;
	free(slurp("data.mdb", &len));
	cr_assert_gt(damage_pages(1, 0, 0, len / PSIZE + 3), 0, "no branch page");
	expect_writer_refused();
	free(t0);
}

/* ... and a sound table opens for writing as before (the walk finds nothing). */
Test(store, writer_opens_a_sound_table)
{
	uint16_t *t0 = write_800_blocks();
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &pinfo, BP_STORE_CREATE);
	cr_expect_eq(bp_table_put_tier(t, 0, t0, 0, 0, NULL), BP_OK);
	bp_table_close(t);
	bp_store_close(s);
	free(t0);
}

/* A data.mdb cut short is named as such when the store opens. */
Test(store, truncated_file)
{
	uint16_t *t0 = write_800_blocks();
	bp_store *s;
	char path[128];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size / 2), 0);
	struct bp_err err = { "" };
	cr_expect_eq(bp_store_open(dir, BP_STORE_READONLY, &s, &err), BP_ECORRUPT);
	cr_expect(strstr(err.msg, "truncated"), "message: %s", err.msg);
	free(t0);
}

/* ---- threads ---- */

/* Tiers of TB-record blocks: empty, one record, whole blocks, and enough blocks with a
 * ragged end to fill several batches of every thread count tried. Blocks are large
 * enough that a helper thread gets its share before the calling thread is done. */
#define TB 256
static const uint64_t tsizes[] = { 0, 1, TB * 5, TB * 1000 + 17, TB * 46 + 3 };
#define NTSIZES (sizeof tsizes / sizeof tsizes[0])
static const struct bp_table_info tinfo = { .spec = "t:1",
					    .rules_version = 1,
					    .ntiers = NTSIZES,
					    .tier_size = tsizes,
					    .block_records = TB };

/* Every key and value of table db in two databases, compared. @return the entries. */
static size_t expect_same_table(const char *a, const char *b, const char *db)
{
	MDB_env *ea = raw_open_at(a), *eb = raw_open_at(b);
	MDB_txn *ta, *tb;
	MDB_dbi da, dbb;
	MDB_cursor *ca, *cb;
	cr_assert_eq(mdb_txn_begin(ea, NULL, MDB_RDONLY, &ta), 0);
	cr_assert_eq(mdb_txn_begin(eb, NULL, MDB_RDONLY, &tb), 0);
	cr_assert_eq(mdb_dbi_open(ta, db, 0, &da), 0);
	cr_assert_eq(mdb_dbi_open(tb, db, 0, &dbb), 0);
	cr_assert_eq(mdb_cursor_open(ta, da, &ca), 0);
	cr_assert_eq(mdb_cursor_open(tb, dbb, &cb), 0);
	MDB_val ka, va, kb, vb;
	size_t n = 0;
	int ra, rb;
	for (ra = mdb_cursor_get(ca, &ka, &va, MDB_FIRST),
	    rb = mdb_cursor_get(cb, &kb, &vb, MDB_FIRST);
	     ra == 0 && rb == 0; ra = mdb_cursor_get(ca, &ka, &va, MDB_NEXT),
	    rb = mdb_cursor_get(cb, &kb, &vb, MDB_NEXT), n++) {
		cr_assert(ka.mv_size == kb.mv_size &&
				  memcmp(ka.mv_data, kb.mv_data, ka.mv_size) == 0,
			  "%s and %s: key %zu differs", a, b, n);
		cr_assert(va.mv_size == vb.mv_size &&
				  memcmp(va.mv_data, vb.mv_data, va.mv_size) == 0,
			  "%s and %s: value %zu differs", a, b, n);
	}
	cr_expect(ra == MDB_NOTFOUND && rb == MDB_NOTFOUND, "%s and %s: %d and %d", a, b, ra, rb);
	mdb_cursor_close(ca);
	mdb_cursor_close(cb);
	mdb_txn_abort(ta);
	mdb_txn_abort(tb);
	mdb_env_close(ea);
	mdb_env_close(eb);
	return n;
}

/* The same tiers written with 1, 2, 3 and 8 threads (and 0: one) into databases of their
 * own store the same bytes under the same keys, blocks equal to the codec's own
 * encoding, the same metadata, and read back the same records with any count. */
Test(store, threads_store_same_bytes)
{
	static const int counts[] = { 1, 2, 3, 8, 0 };
	enum { NCOUNTS = sizeof counts / sizeof counts[0] };
	char sub[NCOUNTS][96];
	uint16_t *want[NTSIZES], *got = malloc((tsizes[3] + 1) * sizeof *got);
	for (uint32_t i = 0; i < NTSIZES; i++)
		want[i] = tier_records(tsizes[i]);
	for (int c = 0; c < NCOUNTS; c++) {
		snprintf(sub[c], sizeof sub[c], "%s/t%d", dir, counts[c]);
		struct bp_err err = { "" };
		bp_store *s;
		cr_assert_eq(bp_store_open(sub[c], BP_STORE_CREATE, &s, &err), BP_OK, "%s",
			     err.msg);
		bp_table *t = open_table_threads(s, &tinfo, BP_STORE_CREATE, counts[c]);
		/* last tier first: a write's order must not matter either */
		for (uint32_t i = NTSIZES; i-- > 0;)
			cr_assert_eq(bp_table_put_tier(t, i, want[i], 1.5, 1000, "x=1"), BP_OK,
				     "%d threads, tier %u", counts[c], i);
		bp_table_close(t);
		bp_store_close(s);
	}
	for (int c = 1; c < NCOUNTS; c++)
		cr_expect_eq(expect_same_table(sub[0], sub[c], "t:1"), 1 + 0 + 1 + 5 + 1001 + 47);

	/* the blocks are what the codec makes of them, one at a time */
	bp_codec *codec;
	cr_assert_eq(bp_codec_create(&codec), BP_OK);
	uint64_t seed = bp_hash64("t:1", 3, 0);
	MDB_env *env = raw_open_at(sub[2]);
	MDB_txn *txn;
	MDB_dbi dbi;
	cr_assert_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, "t:1", 0, &dbi), 0);
	for (uint32_t i = 0; i < NTSIZES; i++)
		for (uint64_t b = 0; b * TB < tsizes[i]; b++) {
			uint8_t key[BP_CODEC_KEY_SIZE];
			const void *val;
			size_t len;
			uint64_t left = tsizes[i] - b * TB;
			bp_codec_key(key, i, b);
			cr_assert_eq(bp_codec_encode(codec, key, sizeof key, seed, want[i] + b * TB,
						     (uint32_t)(left < TB ? left : TB), 0, &val,
						     &len),
				     BP_OK);
			MDB_val k = { sizeof key, key }, v;
			cr_assert_eq(mdb_get(txn, dbi, &k, &v), 0, "tier %u block %llu", i,
				     (unsigned long long)b);
			cr_assert(v.mv_size == len && memcmp(v.mv_data, val, len) == 0,
				  "tier %u block %llu differs from the codec's", i,
				  (unsigned long long)b);
		}
	mdb_txn_abort(txn);
	mdb_env_close(env);
	bp_codec_destroy(codec);

	/* metadata and records, read with every count from every database */
	uint64_t bytes = 0;
	for (int c = 0; c < NCOUNTS; c++) {
		bp_store *s;
		cr_assert_eq(bp_store_open(sub[c], BP_STORE_READONLY, &s, NULL), BP_OK);
		for (int r = 0; r < NCOUNTS; r++) {
			bp_table *t = open_table_threads(s, &tinfo, 0, counts[r]);
			struct bp_table_meta m;
			cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
			if (!bytes)
				bytes = m.stored_bytes;
			cr_expect_eq(m.stored_bytes, bytes, "written with %d threads", counts[c]);
			for (uint32_t i = 0; i < NTSIZES; i++) {
				uint64_t count[4] = { 0 };
				for (uint64_t j = 0; j < tsizes[i]; j++)
					count[want[i][j] & 3]++;
				cr_expect_arr_eq(m.tier_count + 4 * i, count, sizeof count);
				got[tsizes[i]] = 0xbeef;
				cr_assert_eq(bp_table_get_tier(t, i, got), BP_OK,
					     "written with %d, read with %d threads: tier %u",
					     counts[c], counts[r], i);
				cr_expect_arr_eq(got, want[i], tsizes[i] * sizeof *got,
						 "written with %d, read with %d threads: tier %u",
						 counts[c], counts[r], i);
				cr_expect_eq(got[tsizes[i]], 0xbeef, "tier %u: past its end", i);
			}
			cr_expect_eq(bp_table_check_blocks(t, NULL, NULL), 0);
			bp_table_close(t);
		}
		bp_store_close(s);
	}
	for (uint32_t i = 0; i < NTSIZES; i++)
		free(want[i]);
	free(got);
}

struct finding {
	uint32_t tier;
	uint64_t block;
	char why[64];
};

struct findings {
	int n;
	struct finding f[16];
};

static void note_finding(void *ctx, uint32_t tier, uint64_t block, const char *why)
{
	struct findings *fs = ctx;
	cr_assert_lt(fs->n, 16);
	struct finding *f = &fs->f[fs->n++];
	f->tier = tier;
	f->block = block;
	snprintf(f->why, sizeof f->why, "%s", why);
}

/* Damage in several batches of a large tier (a block deleted, one flipped, one
 * truncated, one with its header's record count changed) is found the same way with
 * 1, 2 and 3 threads: the same code from get_tier, the same blocks, in the same order
 * and for the same reasons from check_blocks. */
Test(store, threads_find_the_same_damage)
{
	static const struct {
		uint32_t tier;
		uint64_t block;
	} hit[] = { { 3, 2 }, { 3, 300 }, { 3, 701 }, { 3, 1000 }, { 4, 46 } };
	enum { NHIT = sizeof hit / sizeof hit[0] };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table_threads(s, &tinfo, BP_STORE_CREATE, 2);
	uint16_t *want[NTSIZES], *got = malloc(tsizes[3] * sizeof *got);
	for (uint32_t i = 0; i < NTSIZES; i++) {
		want[i] = tier_records(tsizes[i]);
		cr_assert_eq(bp_table_put_tier(t, i, want[i], 0, 0, NULL), BP_OK);
	}
	bp_table_close(t);
	bp_store_close(s);
	for (int h = 0; h < NHIT; h++) {
		uint8_t key[12];
		size_t len;
		block_key(key, hit[h].tier, hit[h].block);
		uint8_t *v = raw_get("t:1", key, 12, &len);
		switch (h % 4) {
		case 0: raw_put("t:1", key, 12, NULL, 0); break;
		case 1:
			v[len - 2] ^= 0x40;
			raw_put("t:1", key, 12, v, len);
			break;
		case 2: raw_put("t:1", key, 12, v, len - 1); break;
		case 3:
			v[8] ^= 1; /* the record count */
			raw_put("t:1", key, 12, v, len);
			break;
		}
		free(v);
	}

	struct findings first = { 0 };
	s = open_store(0);
	for (int threads = 1; threads <= 3; threads++) {
		t = open_table_threads(s, &tinfo, 0, threads);
		for (uint32_t i = 0; i < NTSIZES; i++) {
			int damaged = i >= 3;
			cr_expect_eq(bp_table_get_tier(t, i, got), damaged ? BP_ECORRUPT : BP_OK,
				     "%d threads, tier %u", threads, i);
			if (!damaged)
				cr_expect_arr_eq(got, want[i], tsizes[i] * sizeof *got);
		}
		struct findings fs = { 0 };
		cr_expect_eq(bp_table_check_blocks(t, note_finding, &fs), NHIT);
		cr_assert_eq(fs.n, NHIT);
		if (threads == 1)
			first = fs;
		for (int h = 0; h < NHIT; h++) {
			cr_expect(fs.f[h].tier == hit[h].tier && fs.f[h].block == hit[h].block,
				  "%d threads: finding %d is tier %u block %llu", threads, h,
				  fs.f[h].tier, (unsigned long long)fs.f[h].block);
			cr_expect_str_eq(fs.f[h].why, first.f[h].why, "%d threads: finding %d",
					 threads, h);
		}
		bp_table_close(t);
	}
	cr_expect_str_eq(first.f[0].why, "missing block");
	cr_expect_str_eq(first.f[3].why, "wrong record count");
	bp_store_close(s);
	for (uint32_t i = 0; i < NTSIZES; i++)
		free(want[i]);
	free(got);
}

Test(store, set_threads)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &tinfo, BP_STORE_CREATE);
	cr_expect_eq(bp_table_set_threads(NULL, 2), BP_EINVAL);
	cr_expect_eq(bp_table_set_threads(t, -1), BP_EINVAL);
	cr_expect_eq(bp_table_set_threads(t, 0), BP_OK);
	cr_expect_eq(bp_table_set_threads(t, 1000000), BP_OK, "cut to BP_STORE_MAX_THREADS");
	uint16_t *r = tier_records(tsizes[3]), *got = malloc(tsizes[3] * sizeof *got);
	cr_expect_eq(bp_table_put_tier(t, 3, r, 0, 0, NULL), BP_OK);
	cr_expect_eq(bp_table_get_tier(t, 3, got), BP_OK);
	cr_expect_arr_eq(got, r, tsizes[3] * sizeof *got);
	bp_table_close(t);
	bp_store_close(s);
	free(r);
	free(got);
}

/* ---- tables side by side ---- */

static void list_fn(void *ctx, const char *spec)
{
	char *buf = ctx;
	strcat(buf, spec);
	strcat(buf, ";");
}

Test(store, two_tables)
{
	const uint64_t sa[] = { 1000, 2000 }, sb[] = { 2000, 1000, 10 };
	struct bp_table_info ia = { .spec = "a:1",
				    .rules_version = 1,
				    .ntiers = 2,
				    .tier_size = sa,
				    .block_records = 256 };
	struct bp_table_info ib = { .spec = "b:1",
				    .rules_version = 2,
				    .ntiers = 3,
				    .tier_size = sb,
				    .block_records = 512 };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *a = open_table(s, &ia, BP_STORE_CREATE), *b = open_table(s, &ib, BP_STORE_CREATE);
	uint16_t *a0 = tier_records(1000), *a1 = tier_records(2000), *b0 = tier_records(2000),
		 *b1 = tier_records(1000), *got = malloc(2000 * sizeof *got);
	cr_assert_eq(bp_table_put_tier(a, 0, a0, 1, 1, "a"), BP_OK);
	cr_assert_eq(bp_table_put_tier(b, 0, b0, 2, 2, "b"), BP_OK);
	cr_assert_eq(bp_table_put_tier(b, 1, b1, 3, 3, NULL), BP_OK);
	cr_assert_eq(bp_table_put_tier(a, 1, a1, 4, 4, NULL), BP_OK);
	/* rewriting a's tier 0 with b's tier 1 content leaves b alone */
	cr_assert_eq(bp_table_put_tier(a, 0, b1, 5, 5, NULL), BP_OK);
	bp_table_close(a);
	bp_table_close(b);
	bp_store_close(s);

	s = open_store(BP_STORE_READONLY);
	char names[64] = "";
	cr_expect_eq(bp_store_tables(s, list_fn, names), BP_OK);
	cr_expect_str_eq(names, "a:1;b:1;");
	a = open_table(s, &ia, 0);
	b = open_table(s, &ib, 0);
	cr_assert_eq(bp_table_get_tier(a, 0, got), BP_OK);
	cr_expect_arr_eq(got, b1, 1000 * sizeof *got);
	cr_assert_eq(bp_table_get_tier(a, 1, got), BP_OK);
	cr_expect_arr_eq(got, a1, 2000 * sizeof *got);
	cr_assert_eq(bp_table_get_tier(b, 0, got), BP_OK);
	cr_expect_arr_eq(got, b0, 2000 * sizeof *got);
	cr_assert_eq(bp_table_get_tier(b, 1, got), BP_OK);
	cr_expect_arr_eq(got, b1, 1000 * sizeof *got);
	cr_expect_eq(bp_table_get_tier(b, 2, got), BP_ENOTFOUND);
	struct bp_table_meta ma, mb;
	cr_assert_eq(bp_table_meta_get(a, &ma), BP_OK);
	cr_assert_eq(bp_table_meta_get(b, &mb), BP_OK);
	cr_expect_str_eq(ma.extra, "a");
	cr_expect_str_eq(mb.extra, "b");
	cr_expect_eq(ma.rules_version, 1);
	cr_expect_eq(mb.rules_version, 2);
	cr_expect(ma.seconds == 5 && mb.seconds == 3);
	cr_expect_eq(bp_table_check_blocks(a, NULL, NULL), 0);
	cr_expect_eq(bp_table_check_blocks(b, NULL, NULL), 0);
	bp_table_close(a);
	bp_table_close(b);
	bp_store_close(s);
	free(a0);
	free(a1);
	free(b0);
	free(b1);
	free(got);
}

/* ---- concurrency and crashes ---- */

#define VSIZE 20000 /* 5 blocks of 4096 */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const uint64_t vsizes[] = { VSIZE, VSIZE };
static const struct bp_table_info vinfo = { .spec = "v:1",
					    .ntiers = 2,
					    .tier_size = vsizes,
					    .block_records = 4096,
					    .compression_level = 1 };

static void put_version(bp_table *t, uint32_t tier, unsigned version, uint16_t *buf)
{
	for (uint64_t i = 0; i < VSIZE; i++)
		buf[i] = versioned(version, i);
	cr_assert_eq(bp_table_put_tier(t, tier, buf, version, version, NULL), BP_OK);
}

/* Which version a tier holds, or -1 if it mixes versions. */
static int version_of(const uint16_t *r)
{
	for (unsigned v = 0; v < 1000; v++) {
		if (r[0] != versioned(v, 0) || r[1] != versioned(v, 1) || r[2] != versioned(v, 2))
			continue;
		for (uint64_t i = 0; i < VSIZE; i++)
			if (r[i] != versioned(v, i))
				return -1;
		return (int)v;
	}
	return -1;
}

/* A reader in another process, reading whole tiers while this one rewrites them, sees
 * one version at a time, and sees new versions appear. */
/* The list of tables is checked against the registry in the header database: a table
 * missing from LMDB's main database (as a damaged leaf page can hide one), a table
 * nobody registered, or a damaged registry is damage, not a shorter list. */
static void count_table(void *ctx, const char *spec)
{
	(void)spec;
	++*(int *)ctx;
}

Test(store, table_registry)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	struct bp_table_info other = vinfo;
	snprintf(other.spec, sizeof other.spec, "v:2");
	bp_table_close(open_table(s, &vinfo, BP_STORE_CREATE));
	bp_table_close(open_table(s, &other, BP_STORE_CREATE));
	int n = 0;
	cr_expect_eq(bp_store_tables(s, count_table, &n), BP_OK);
	cr_expect_eq(n, 2);
	bp_store_close(s);

	/* a damaged registry (then put back) */
	size_t len;
	uint8_t *reg = raw_get(".boardproof", "tables", 6, &len);
	reg[len / 2] ^= 1;
	raw_put(".boardproof", "tables", 6, reg, len);
	s = open_store(BP_STORE_READONLY);
	cr_expect_eq(bp_store_tables(s, count_table, &n), BP_ECORRUPT, "a damaged registry");
	bp_store_close(s);
	reg[len / 2] ^= 1;
	raw_put(".boardproof", "tables", 6, reg, len);
	free(reg);

	/* hide v:2 from the main database */
	MDB_env *env = raw_open();
	MDB_txn *txn;
	MDB_dbi dbi;
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, "v:2", 0, &dbi), 0);
	cr_assert_eq(mdb_drop(txn, dbi, 1), 0);
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	s = open_store(BP_STORE_READONLY);
	cr_expect_eq(bp_store_tables(s, count_table, &n), BP_ECORRUPT, "a hidden table");
	bp_table *t;
	struct bp_err err = { "" };
	cr_expect_eq(bp_table_open(s, "v:2", NULL, 0, &t, &err), BP_ECORRUPT,
		     "opening a hidden table is damage, not absence");
	cr_expect(strstr(err.msg, "registry"), "message: %s", err.msg);
	bp_store_close(s);

	/* a table nobody registered (and v:2 back) */
	raw_put("v:2", "meta", 4, "x", 1);
	raw_put("v:3", "meta", 4, "x", 1);
	s = open_store(BP_STORE_READONLY);
	cr_expect_eq(bp_store_tables(s, count_table, &n), BP_ECORRUPT, "an unregistered table");
	bp_store_close(s);
}

/* One writer per table: a second handle opened for writing is refused with BP_EBUSY
 * while the first is open (in this process or another), and accepted after it closes;
 * another table, and readers, are not held up. */
Test(store, one_writer_per_table)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &vinfo, BP_STORE_CREATE), *t2;
	struct bp_err err = { "" };
	cr_expect_eq(bp_table_open(s, vinfo.spec, &vinfo, BP_STORE_CREATE, &t2, &err), BP_EBUSY);
	cr_expect(strstr(err.msg, "being solved by another"), "message: %s", err.msg);
	cr_expect_eq(bp_table_open(s, vinfo.spec, &vinfo, 0, &t2, &err), BP_OK, "a reader: %s",
		     err.msg);
	bp_table_close(t2);
	struct bp_table_info other = vinfo;
	snprintf(other.spec, sizeof other.spec, "v:2");
	bp_table *t3 = open_table(s, &other, BP_STORE_CREATE);
	bp_table_close(t3);

	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) { /* another process: 0 refused as expected */
		bp_store *cs;
		bp_table *ct;
		int rc = bp_store_open(dir, 0, &cs, NULL);
		if (rc == BP_OK)
			rc = bp_table_open(cs, vinfo.spec, &vinfo, BP_STORE_CREATE, &ct, NULL);
		_exit(rc == BP_EBUSY ? 0 : 1);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "another process was let in");
	bp_table_close(t);
	t = open_table(s, &vinfo, BP_STORE_CREATE);
	bp_table_close(t);
	bp_store_close(s);
}

/* Every reader slot taken: opening the database says so (BP_EBUSY). Another process
 * creates the lock file with room for two readers and holds both. */
Test(store, reader_slots_exhausted)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_store_close(s);
	char lock[128];
	snprintf(lock, sizeof lock, "%s/lock.mdb", dir);
	cr_assert_eq(unlink(lock), 0);
	int ready[2], done[2];
	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(done), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		MDB_env *env;
		MDB_txn *a, *b;
		if (mdb_env_create(&env) || mdb_env_set_maxreaders(env, 2) ||
		    mdb_env_set_maxdbs(env, 16) || mdb_env_set_mapsize(env, (size_t)1 << 30) ||
		    mdb_env_open(env, dir, MDB_NOTLS, 0664) ||
		    mdb_txn_begin(env, NULL, MDB_RDONLY, &a) ||
		    mdb_txn_begin(env, NULL, MDB_RDONLY, &b))
			_exit(1);
		(void)!write(ready[1], "r", 1);
		char c;
		(void)!read(done[0], &c, 1);
		_exit(0);
	}
	close(ready[1]); /* so that a holder that failed gives end of file, not a hang */
	close(done[0]);
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1, "the holder did not start");
	struct bp_err err = { "" };
	int rc = bp_store_open(dir, BP_STORE_READONLY, &s, &err);
	cr_expect_eq(rc, BP_EBUSY, "%s", bp_strerror(rc));
	cr_expect(strstr(err.msg, "reader slot"), "message: %s", err.msg);
	if (rc == BP_OK)
		bp_store_close(s);
	(void)!write(done[1], "d", 1);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(unlink(lock), 0); /* the holder's small reader table */
	s = open_store(BP_STORE_READONLY);
	bp_store_close(s);
	close(ready[0]);
	close(done[1]);
}

/* Ends a forked child, freeing what it inherited first (so that Valgrind, following
 * children, finds no leak to turn into a failing exit code). */
static _Noreturn void child_exit(void *inherited, int code)
{
	free(inherited);
	_exit(code);
}

Test(store, reader_during_writes)
{
	uint16_t *buf = malloc(VSIZE * sizeof *buf);
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &vinfo, BP_STORE_CREATE);
	put_version(t, 0, 0, buf);
	bp_table_close(t);
	bp_store_close(s);

	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* exit codes: 0 fine, 1 a mixed tier, 2 no progress, 3 setup */
		bp_store *rs;
		bp_table *rt;
		if (bp_store_open(dir, BP_STORE_READONLY, &rs, NULL) != BP_OK ||
		    bp_table_open(rs, "v:1", NULL, 0, &rt, NULL) != BP_OK ||
		    bp_table_set_threads(rt, 2) != BP_OK)
			child_exit(buf, 3);
		int seen_last = 0, reads = 0, last = -1, changes = 0;
		(void)!write(ready[1], "r", 1);
		for (double end = now() + 5; now() < end && !seen_last; reads++) {
			if (bp_table_get_tier(rt, 0, buf) != BP_OK)
				child_exit(buf, 3);
			int v = version_of(buf);
			if (v < 0)
				child_exit(buf, 1);
			changes += v != last;
			last = v;
			seen_last = v == 99;
		}
		bp_table_close(rt);
		bp_store_close(rs);
		child_exit(buf, seen_last && changes > 2 ? 0 : 2);
	}
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	s = open_store(0);
	t = open_table_threads(s, &vinfo, 0, 2);
	for (unsigned v = 1; v < 100; v++)
		put_version(t, 0, v, buf);
	bp_table_close(t);
	bp_store_close(s);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "reader status %d (1: saw a mixed tier, 2: saw no progress)",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	close(ready[0]);
	close(ready[1]);
	free(buf);
}

/* A writer killed with SIGKILL at an arbitrary moment leaves every tier wholly at one
 * version, with metadata that agrees with the blocks. */
Test(store, kill_during_writes)
{
	uint16_t *buf = malloc(VSIZE * sizeof *buf);
	for (int round = 0; round < 3; round++) {
		int ready[2];
		cr_assert_eq(pipe(ready), 0);
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			bp_store *ws;
			bp_table *wt;
			if (bp_store_open(dir, BP_STORE_CREATE, &ws, NULL) != BP_OK ||
			    bp_table_open(ws, "v:1", &vinfo, BP_STORE_CREATE, &wt, NULL) != BP_OK ||
			    bp_table_set_threads(wt, 1 + round % 2) != BP_OK)
				_exit(3);
			for (unsigned v = 0;; v = (v + 1) % 1000) {
				for (uint32_t tier = 0; tier < 2; tier++) {
					for (uint64_t i = 0; i < VSIZE; i++)
						buf[i] = versioned(v, i);
					if (bp_table_put_tier(wt, tier, buf, v, v, NULL) != BP_OK)
						_exit(4);
				}
				if (v == 2)
					(void)!write(ready[1], "w", 1);
			}
		}
		char c;
		cr_assert_eq(read(ready[0], &c, 1), 1);
		/* let it run a little longer, by a seeded amount */
		struct timespec ts = { 0, (long)(rng() % 40000000) };
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int status;
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFSIGNALED(status), "writer stopped on its own: %d", status);
		close(ready[0]);
		close(ready[1]);

		bp_store *s = open_store(0);
		bp_table *t = open_table(s, &vinfo, 0);
		struct bp_table_meta m;
		cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
		int v[2];
		for (uint32_t tier = 0; tier < 2; tier++) {
			cr_assert(m.tier_done[tier]);
			cr_assert_eq(bp_table_get_tier(t, tier, buf), BP_OK);
			v[tier] = version_of(buf);
			cr_expect_geq(v[tier], 0, "round %d tier %u mixes versions", round, tier);
			uint64_t count[4] = { 0 };
			for (uint64_t i = 0; i < VSIZE; i++)
				count[buf[i] & 3]++;
			cr_expect_arr_eq(m.tier_count + 4 * tier, count, sizeof count,
					 "round %d: metadata counts disagree with tier %u", round,
					 tier);
		}
		/* tier 1 is written after tier 0: at most one version behind */
		cr_expect(v[0] == v[1] || (unsigned)v[0] == ((unsigned)v[1] + 1) % 1000,
			  "tiers at versions %d and %d", v[0], v[1]);
		cr_expect(m.seconds == (double)v[0], "seconds from the last commit (tier 0 leads)");
		cr_expect_eq(bp_table_check_blocks(t, NULL, NULL), 0);
		bp_table_close(t);
		bp_store_close(s);
	}
	free(buf);
}

/* A full disk (here: a map too small for the tier) changes nothing; once there is room
 * the same write succeeds. */
Test(store, map_full)
{
	const uint64_t size[] = { 1000, 1 << 20 };
	struct bp_table_info info = { .spec = "f:1", .ntiers = 2, .tier_size = size };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	uint16_t *small = tier_records(1000), *noise = malloc((size_t)size[1] * 2),
		 *got = malloc((size_t)size[1] * 2);
	for (uint64_t i = 0; i < size[1]; i++)
		noise[i] = (uint16_t)rng(); /* incompressible: 2 MiB on disk */
	cr_assert_eq(bp_table_put_tier(t, 0, small, 1, 1, "before"), BP_OK);
	struct bp_table_meta m;
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	uint64_t bytes = m.stored_bytes;
	cr_assert_eq(bp_store_set_map_size(s, 1 << 20), BP_OK);
	cr_expect_eq(bp_table_put_tier(t, 1, noise, 2, 2, "after"), BP_EIO);
	/* the cause is named, in LMDB's words */
	cr_expect(strstr(bp_table_why(t), "database full (MDB_MAP_FULL: ") == bp_table_why(t),
		  "why: '%s'", bp_table_why(t));
	bp_table_close(t);
	t = open_table(s, &info, 0);
	cr_assert_eq(bp_table_meta_get(t, &m), BP_OK);
	cr_expect_eq(m.tier_done[1], 0);
	cr_expect_eq(m.stored_bytes, bytes);
	cr_expect_str_eq(m.extra, "before");
	cr_expect_eq(bp_table_get_tier(t, 1, got), BP_ENOTFOUND);
	cr_assert_eq(bp_table_get_tier(t, 0, got), BP_OK);
	cr_expect_arr_eq(got, small, 1000 * 2);
	cr_assert_eq(bp_store_set_map_size(s, (uint64_t)1 << 30), BP_OK);
	cr_expect_eq(bp_table_put_tier(t, 1, noise, 2, 2, "after"), BP_OK);
	cr_expect_str_eq(bp_table_why(t), "", "a write that succeeds leaves no cause behind");
	cr_assert_eq(bp_table_get_tier(t, 1, got), BP_OK);
	cr_expect_arr_eq(got, noise, (size_t)size[1] * 2);
	bp_table_close(t);
	bp_store_close(s);
	free(small);
	free(noise);
	free(got);
}

/* An I/O error while writing, on a disk that is not full (an EIO from the device):
 * named with the database's file, so that the user knows which disk to look at; a
 * full map keeps its own name. */
Test(store, io_error_names_the_file)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	char why[512], want[256];
	bp_store_write_why(s, EIO, "committing", why, sizeof why);
	snprintf(want, sizeof want, "i/o error while committing to %s/data.mdb: Input/output error",
		 dir);
	/* /tmp has more than a MiB free: otherwise the store would call it a full disk */
	if (strncmp(why, "disk full", 9) != 0)
		cr_expect_str_eq(why, want);
	bp_store_write_why(s, MDB_MAP_FULL, "committing", why, sizeof why);
	cr_expect(strncmp(why, "database full (MDB_MAP_FULL: ", 29) == 0, "why: '%s'", why);
	bp_store_close(s);
}

/* data.mdb replaced by a FIFO, a directory or a device is refused by name (exit 3
 * for the command), never handed to LMDB, where opening a FIFO to read would wait
 * for a writer. Found by tests/tools/damage.sh: a FIFO passed for an empty data.mdb
 * ("no database here", which a solve would then fill) or failed with "Illegal seek",
 * a directory with "Is a directory" (exit 4). */
Test(store, data_file_not_regular)
{
	char path[128];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	const char *kind[] = { "a FIFO", "a directory", "a device" };
	for (int k = 0; k < 3; k++) {
		remove(path);
		int made = k == 0   ? mkfifo(path, 0644)
			   : k == 1 ? mkdir(path, 0755)
				    : symlink("/dev/zero", path);
		cr_assert_eq(made, 0, "%s", strerror(errno));
		for (int create = 0; create < 2; create++) {
			bp_store *s = NULL;
			struct bp_err err = { "" };
			int rc = bp_store_open(dir, create ? BP_STORE_CREATE : BP_STORE_READONLY,
					       &s, &err);
			cr_expect_eq(rc, BP_EFORMAT, "%s: %s", kind[k], bp_strerror(rc));
			cr_expect(strstr(err.msg, kind[k]) != NULL, "%s", err.msg);
			bp_store_close(s);
		}
	}
	remove(path);
}

/* A data.mdb with one of its two meta pages zeroed, or cut shorter than both, is
 * damage (exit 3, named), not "not a boardproof database" as LMDB's MDB_INVALID made
 * it (found by tests/tools/damage.sh). */
Test(store, meta_page_damaged)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_store_close(s);
	char path[128];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	static unsigned char orig[1 << 16], zero[4096];
	size_t n = fread(orig, 1, sizeof orig, f);
	fclose(f);
	cr_assert_geq(n, 2 * 4096);
	const char *want[] = { "the first of LMDB's two meta pages",
			       "the second of LMDB's two meta pages", "shorter than" };
	for (int k = 0; k < 3; k++) {
		f = fopen(path, "wb");
		cr_assert_not_null(f);
		if (k < 2) {
			fwrite(orig, 1, n, f);
			fseek(f, k * 4096, SEEK_SET);
			fwrite(zero, 1, sizeof zero, f);
		} else {
			fwrite(orig, 1, 100, f);
		}
		fclose(f);
		struct bp_err err = { "" };
		int rc = bp_store_open(dir, BP_STORE_READONLY, &s, &err);
		cr_expect_eq(rc, BP_ECORRUPT, "case %d: %s (%s)", k, bp_strerror(rc), err.msg);
		cr_expect(strstr(err.msg, want[k]) != NULL, "case %d: %s", k, err.msg);
		if (rc == BP_OK)
			bp_store_close(s);
	}
}

/* Probes see a rewrite made through the same handle, never a stale cached block. */
Test(store, cache_follows_rewrites)
{
	const uint64_t size[] = { 3000 };
	struct bp_table_info info = {
		.spec = "c:1", .ntiers = 1, .tier_size = size, .block_records = 256
	};
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table(s, &info, BP_STORE_CREATE);
	uint16_t *buf = malloc(3000 * sizeof *buf);
	for (unsigned v = 0; v < 3; v++) {
		for (uint64_t i = 0; i < 3000; i++)
			buf[i] = versioned(v, i);
		cr_assert_eq(bp_table_put_tier(t, 0, buf, 0, 0, NULL), BP_OK);
		for (uint64_t i = 0; i < 3000; i += 7) {
			uint16_t r;
			cr_assert_eq(bp_table_get(t, 0, i, &r), BP_OK);
			cr_assert_eq(r, versioned(v, i), "version %u index %llu", v,
				     (unsigned long long)i);
		}
	}
	bp_table_close(t);
	bp_store_close(s);
	free(buf);
}

/* ---- structural holes (bp_table_set_mask) ---- */

/* A deterministic mask: index i of tier t may hold a position when a hash of (t, i)
 * says so (about 1 in 4), so that every block has its own pattern. */
static int test_mask(void *ctx, uint32_t tier, uint64_t first, uint32_t n, uint64_t *bits)
{
	int *calls = ctx;
	__atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
	memset(bits, 0, ((size_t)n + 63) / 64 * 8);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t st = (uint64_t)tier << 40 ^ (first + i);
		if (splitmix64(&st) % 4 == 0)
			bits[i / 64] |= 1ull << i % 64;
	}
	return BP_OK;
}

struct bad_blocks {
	int other, last_tier_block0;
};

static void holes_bad(void *ctx, uint32_t tier, uint64_t block, const char *why)
{
	struct bad_blocks *b = ctx;
	b->other += !strstr(why, "needs its game's index mask");
	b->last_tier_block0 |= tier == NSIZES - 1 && block == 0;
}

/* Every read of t (whole tier, a range, single records, the blocks' check) gives the
 * NSIZES tiers of want. */
static void expect_tiers(bp_table *t, uint16_t *const *want)
{
	for (uint32_t i = 0; i < NSIZES; i++) {
		uint16_t *got = malloc((sizes[i] + 1) * sizeof *got);
		cr_assert_eq(bp_table_get_tier(t, i, got), BP_OK, "tier %u", i);
		cr_expect_arr_eq(got, want[i], sizes[i] * sizeof *got, "tier %u", i);
		if (sizes[i] > 10) {
			cr_assert_eq(bp_table_get_range(t, i, 3, sizes[i] - 10, got), BP_OK);
			cr_expect_arr_eq(got, want[i] + 3, (sizes[i] - 10) * sizeof *got);
		}
		for (uint64_t j = 0; j < sizes[i]; j += 7) {
			uint16_t r = 0;
			cr_assert_eq(bp_table_get(t, i, j, &r), BP_OK);
			cr_assert_eq(r, want[i][j], "tier %u index %llu", i, (unsigned long long)j);
		}
		free(got);
	}
	cr_expect_eq(bp_table_check_blocks(t, NULL, NULL), 0);
}

/* Tiers written with a mask round-trip through every read (whole tier, range, probe,
 * check) on 1 and 3 threads, store fewer bytes than without, and the same table read
 * without its mask fails every read with BP_ECORRUPT naming the mask, never a misread;
 * a record at a clear bit (block 0 of the last tier) is stored whole and reads back
 * either way. */
Test(store, holes_round_trip)
{
	struct bp_table_info info = { .spec = "test:holes",
				      .rules_version = 1,
				      .ntiers = NSIZES,
				      .tier_size = sizes,
				      .block_records = 4096,
				      .compression_level = 10 }; /* holes from the archival level */
	struct bp_table_info plain = info;
	snprintf(plain.spec, sizeof plain.spec, "test:plain");
	uint16_t *want[NSIZES];
	int calls = 0;
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table_threads(s, &info, BP_STORE_CREATE, 3),
		 *p = open_table(s, &plain, BP_STORE_CREATE);
	bp_table_set_mask(t, test_mask, &calls);
	for (uint32_t i = 0; i < NSIZES; i++) {
		want[i] = tier_records(sizes[i]);
		uint64_t *bits = malloc((sizes[i] / 64 + 1) * 8);
		if (sizes[i])
			test_mask(&calls, i, 0, (uint32_t)sizes[i], bits);
		int stray = i == NSIZES - 1; /* one record at a clear bit in this tier */
		for (uint64_t j = 0; j < sizes[i]; j++)
			if (!(bits[j / 64] >> j % 64 & 1)) {
				want[i][j] = stray ? 7 : 0;
				stray = 0;
			}
		free(bits);
		cr_assert_eq(bp_table_put_tier(t, i, want[i], 1.0, 100, NULL), BP_OK, "tier %u", i);
		cr_assert_eq(bp_table_put_tier(p, i, want[i], 1.0, 100, NULL), BP_OK, "tier %u", i);
	}
	cr_expect_gt(calls, 0);
	struct bp_table_meta mt, mp;
	cr_assert_eq(bp_table_meta_get(t, &mt), BP_OK);
	cr_assert_eq(bp_table_meta_get(p, &mp), BP_OK);
	printf("store.holes_round_trip: %llu bytes with the mask, %llu without\n",
	       (unsigned long long)mt.stored_bytes, (unsigned long long)mp.stored_bytes);
	cr_expect_lt(mt.stored_bytes, mp.stored_bytes * 3 / 4);
	bp_table_close(p);
	for (int round = 0; round < 2; round++) {
		expect_tiers(t, want);
		bp_table_close(t);
		t = open_table_threads(s, &info, 0, 1);
		bp_table_set_mask(t, test_mask, &calls);
	}
	/* without the mask: refused, with the reason */
	bp_table_set_mask(t, NULL, NULL);
	uint32_t big = NSIZES - 2; /* 3 * 4096 + 5 records: its blocks need the mask */
	uint16_t *got = malloc(sizes[big] * sizeof *got), r;
	cr_expect_eq(bp_table_get_tier(t, big, got), BP_ECORRUPT);
	cr_expect_eq(bp_table_get(t, big, 0, &r), BP_ECORRUPT);
	cr_expect(strstr(bp_table_why(t), "index mask"), "%s", bp_table_why(t));
	struct bad_blocks bad = { 0 };
	cr_expect_geq(bp_table_check_blocks(t, holes_bad, &bad), 4 + 18);
	cr_expect_eq(bad.other, 0, "blocks failing for another reason than the mask");
	cr_expect(!bad.last_tier_block0, "block 0 of the last tier is stored whole");
	free(got);
	bp_table_close(t);
	bp_store_close(s);
	for (uint32_t i = 0; i < NSIZES; i++)
		free(want[i]);
}

/* Foretold wins for the test mask: every third set bit of the mask, by a hash. */
static int test_hints(void *ctx, uint32_t tier, uint64_t first, uint32_t n, const uint64_t *mask,
		      uint64_t *hints)
{
	int *calls = ctx;
	__atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
	for (uint32_t w = 0; w < (n + 63) / 64; w++) {
		hints[w] = 0;
		for (uint32_t k = 0; k < 64 && 64 * w + k < n; k++) {
			uint64_t st = (uint64_t)tier << 40 ^ (first + 64 * w + k) ^ 0x5bd1e995u;
			if ((mask[w] >> k & 1) && splitmix64(&st) % 3 == 0)
				hints[w] |= 1ull << k;
		}
	}
	return BP_OK;
}

struct hint_blocks {
	int other;
};

static void hints_bad(void *ctx, uint32_t tier, uint64_t block, const char *why)
{
	(void)tier;
	(void)block;
	struct hint_blocks *b = ctx;
	b->other += !strstr(why, "needs its game's foretold wins");
}

/* Tiers written with a mask and foretold wins (most hinted records a win in 1, one in
 * fifty not) round-trip through every read on 1 and 3 threads, store fewer bytes than
 * with the mask alone, and read without the hints fail with BP_ECORRUPT naming them;
 * a table given hints without write codes none (its blocks read without hints). */
Test(store, hints_round_trip)
{
	struct bp_table_info info = { .spec = "test:hints",
				      .rules_version = 1,
				      .ntiers = NSIZES,
				      .tier_size = sizes,
				      .block_records = 4096,
				      .compression_level = 10 };
	struct bp_table_info holes = info, unused = info;
	snprintf(holes.spec, sizeof holes.spec, "test:holes-only");
	snprintf(unused.spec, sizeof unused.spec, "test:hints-read-only");
	uint16_t *want[NSIZES];
	int calls = 0, hcalls = 0;
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table_threads(s, &info, BP_STORE_CREATE, 3),
		 *h = open_table(s, &holes, BP_STORE_CREATE),
		 *u = open_table(s, &unused, BP_STORE_CREATE);
	bp_table_set_mask(t, test_mask, &calls);
	bp_table_set_hints(t, test_hints, &hcalls, 1);
	bp_table_set_mask(h, test_mask, &calls);
	bp_table_set_mask(u, test_mask, &calls);
	bp_table_set_hints(u, test_hints, &hcalls, 0);
	uint64_t seed = 99;
	for (uint32_t i = 0; i < NSIZES; i++) {
		want[i] = tier_records(sizes[i]);
		uint64_t *bits = malloc((sizes[i] / 64 + 1) * 8),
			 *hb = malloc((sizes[i] / 64 + 1) * 8);
		if (sizes[i]) {
			test_mask(&calls, i, 0, (uint32_t)sizes[i], bits);
			test_hints(&hcalls, i, 0, (uint32_t)sizes[i], bits, hb);
		}
		for (uint64_t j = 0; j < sizes[i]; j++) {
			if (!(bits[j / 64] >> j % 64 & 1))
				want[i][j] = 0;
			else if ((hb[j / 64] >> j % 64 & 1) && splitmix64(&seed) % 50)
				want[i][j] = bp_record_make(1, 1);
		}
		free(bits);
		free(hb);
		cr_assert_eq(bp_table_put_tier(t, i, want[i], 1.0, 100, NULL), BP_OK, "tier %u", i);
		cr_assert_eq(bp_table_put_tier(h, i, want[i], 1.0, 100, NULL), BP_OK, "tier %u", i);
		cr_assert_eq(bp_table_put_tier(u, i, want[i], 1.0, 100, NULL), BP_OK, "tier %u", i);
	}
	struct bp_table_meta mt, mh, mu;
	cr_assert_eq(bp_table_meta_get(t, &mt), BP_OK);
	cr_assert_eq(bp_table_meta_get(h, &mh), BP_OK);
	cr_assert_eq(bp_table_meta_get(u, &mu), BP_OK);
	printf("store.hints_round_trip: %llu bytes with hints, %llu with the mask alone\n",
	       (unsigned long long)mt.stored_bytes, (unsigned long long)mh.stored_bytes);
	cr_expect_lt(mt.stored_bytes, mh.stored_bytes);
	cr_expect_eq(mu.stored_bytes, mh.stored_bytes, "hints without write code nothing");
	bp_table_close(h);
	bp_table_close(u);
	for (int round = 0; round < 2; round++) {
		expect_tiers(t, want);
		bp_table_close(t);
		t = open_table_threads(s, &info, 0, 1);
		bp_table_set_mask(t, test_mask, &calls);
		bp_table_set_hints(t, test_hints, &hcalls, 0); /* a reader */
	}
	cr_expect_gt(hcalls, 0);
	/* with the mask but without the hints: refused, with the reason */
	bp_table_set_hints(t, NULL, NULL, 0);
	uint32_t big = NSIZES - 2;
	uint16_t *got = malloc(sizes[big] * sizeof *got), r;
	cr_expect_eq(bp_table_get_tier(t, big, got), BP_ECORRUPT);
	cr_expect_eq(bp_table_get(t, big, 0, &r), BP_ECORRUPT);
	cr_expect(strstr(bp_table_why(t), "foretold wins"), "%s", bp_table_why(t));
	struct hint_blocks bad = { 0 };
	cr_expect_geq(bp_table_check_blocks(t, hints_bad, &bad), 4);
	cr_expect_eq(bad.other, 0, "blocks failing for another reason than the hints");
	free(got);
	bp_table_close(t);
	bp_store_close(s);
	for (uint32_t i = 0; i < NSIZES; i++)
		free(want[i]);
}

struct put_calls {
	uint32_t tier;
	uint64_t last, total;
	int calls, backwards;
};

static void on_put(void *ctx, uint32_t tier, uint64_t done, uint64_t total)
{
	struct put_calls *c = ctx;
	if (tier != c->tier || done < c->last)
		c->backwards += tier == c->tier;
	c->tier = tier;
	c->last = done;
	c->total = total;
	c->calls++;
}

/* The write progress: after each batch of a tier's blocks, the records coded so far,
 * never going back, ending at the tier's size; once a batch (a tier of 385 blocks, on
 * one thread: 128 blocks a batch). */
Test(store, put_progress)
{
	static const uint64_t size = 3 * 128 * 64 + 5;
	struct bp_table_info info = { .spec = "test:progress",
				      .rules_version = 1,
				      .ntiers = 1,
				      .tier_size = &size,
				      .block_records = 64 };
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_table *t = open_table_threads(s, &info, BP_STORE_CREATE, 1);
	struct put_calls c = { 0 };
	bp_table_set_put_progress(t, on_put, &c);
	uint16_t *r = tier_records(size);
	cr_assert_eq(bp_table_put_tier(t, 0, r, 1.0, 100, NULL), BP_OK);
	cr_expect_eq(c.calls, 4, "%d calls", c.calls);
	cr_expect_eq(c.backwards, 0);
	cr_expect_eq(c.last, size);
	cr_expect_eq(c.total, size);
	free(r);
	bp_table_close(t);
	bp_store_close(s);
}

/* bp_table_fill_bytes: the staging of one batch, as put_tier_fill takes it (a memory
 * plan counts it): whole blocks of 16-bit records, at most 128 blocks a thread and 64
 * MiB, never more blocks than the tier has. */
Test(store, fill_bytes_follow_the_batch)
{
	const uint64_t block = 16384 * 2;
	cr_expect_eq(bp_table_fill_bytes(1, 1), block);
	cr_expect_eq(bp_table_fill_bytes(16384 * 10, 1), 10 * block);
	cr_expect_eq(bp_table_fill_bytes(16384 * 10 + 1, 4), 11 * block);
	cr_expect_eq(bp_table_fill_bytes(16384ull * 1000, 1), 128 * block);
	cr_expect_eq(bp_table_fill_bytes(16384ull * 1000, 2), 256 * block);
	cr_expect_eq(bp_table_fill_bytes(16384ull * 100000, 64), (uint64_t)64 << 20);
	cr_expect_eq(bp_table_fill_bytes(16384ull * 1000, 0), 128 * block); /* one thread */
}
