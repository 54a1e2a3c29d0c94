/* SPDX-License-Identifier: MIT */
/* Tests of store/kv.c: key spaces round-trip; damage to a value, a key, an entry or the
 * key space's record is reported (BP_ECORRUPT), never handed back as data; a key space
 * of the format before checksums (no record) is refused by name (BP_EFORMAT). The
 * damage is made with LMDB directly, as test_store.c does. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/kv.h"
#include "store/store.h"

static char dir[64];
static const char space[] = ".test:space";

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/bp-kv-XXXXXX");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
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

TestSuite(kv, .init = setup, .fini = teardown);

static MDB_env *raw_open(void)
{
	MDB_env *env;
	cr_assert_eq(mdb_env_create(&env), 0);
	cr_assert_eq(mdb_env_set_maxdbs(env, 16), 0);
	cr_assert_eq(mdb_env_set_mapsize(env, (size_t)1 << 30), 0);
	int rc = mdb_env_open(env, dir, 0, 0664);
	cr_assert_eq(rc, 0, "raw open %s: %s", dir, mdb_strerror(rc));
	return env;
}

/* Calls fn on a write transaction of the raw environment and the named database. */
static void raw_edit(const char *db, void (*fn)(MDB_txn *txn, MDB_dbi dbi, void *ctx), void *ctx)
{
	MDB_env *env = raw_open();
	MDB_txn *txn;
	MDB_dbi dbi;
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, db, MDB_CREATE, &dbi), 0);
	fn(txn, dbi, ctx);
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

static bp_store *open_store(int flags)
{
	bp_store *s;
	struct bp_err err = { "" };
	cr_assert_eq(bp_store_open(dir, flags, &s, &err), BP_OK, "open: %s", err.msg);
	return s;
}

static bp_kv *open_kv(bp_store *s, int flags)
{
	bp_kv *k;
	struct bp_err err = { "" };
	cr_assert_eq(bp_kv_open(s, space, flags, &k, &err), BP_OK, "kv open: %s", err.msg);
	return k;
}

/* Writes keys "key0".."key9" with values "value i" (in two batches, the second one
 * replacing three of the first). */
static void write_ten(void)
{
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_kv *k = open_kv(s, BP_STORE_CREATE);
	char keys[10][8], vals[10][16];
	struct bp_kv_item it[10];
	for (int i = 0; i < 10; i++) {
		snprintf(keys[i], sizeof keys[i], "key%d", i);
		snprintf(vals[i], sizeof vals[i], i < 7 ? "old %d" : "value %d", i);
		it[i] = (struct bp_kv_item){ keys[i], vals[i], strlen(keys[i]), strlen(vals[i]) };
	}
	cr_assert_eq(bp_kv_put(k, 10, it), BP_OK);
	for (int i = 0; i < 7; i++) {
		snprintf(vals[i], sizeof vals[i], "value %d", i);
		it[i].vlen = strlen(vals[i]);
	}
	cr_assert_eq(bp_kv_put(k, 7, it), BP_OK);
	bp_kv_close(k);
	bp_store_close(s);
}

static int count_one(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	char want[16];
	int i = ((const char *)key)[3] - '0';
	snprintf(want, sizeof want, "value %d", i);
	cr_expect_eq(klen, 4);
	cr_expect(vlen == strlen(want) && memcmp(val, want, vlen) == 0, "value of key%d", i);
	++*(int *)ctx;
	return 0;
}

/* bp_kv_each's verdict over the whole key space, and how many items it handed out. */
static int each_rc(int *n)
{
	bp_store *s = open_store(BP_STORE_READONLY);
	bp_kv *k = open_kv(s, BP_STORE_READONLY);
	*n = 0;
	int rc = bp_kv_each(k, count_one, n);
	bp_kv_close(k);
	bp_store_close(s);
	return rc;
}

static int get_rc(const char *key)
{
	bp_store *s = open_store(BP_STORE_READONLY);
	bp_kv *k = open_kv(s, BP_STORE_READONLY);
	char buf[32];
	int rc = bp_kv_get_small(k, key, strlen(key), buf, sizeof buf);
	void *v = NULL;
	size_t len;
	int rc2 = bp_kv_get(k, key, strlen(key), &v, &len);
	cr_expect_eq(rc2 == BP_OK ? (int)len : rc2, rc, "bp_kv_get and bp_kv_get_small agree");
	if (rc >= 0 && rc2 == BP_OK)
		cr_expect_arr_eq(v, buf, len);
	free(v);
	bp_kv_close(k);
	bp_store_close(s);
	return rc;
}

Test(kv, round_trip)
{
	write_ten();
	int n;
	cr_expect_eq(each_rc(&n), BP_OK);
	cr_expect_eq(n, 10);
	cr_expect_eq(get_rc("key3"), 7);
	cr_expect_eq(get_rc("key9"), 7);
	cr_expect_eq(get_rc("nokey"), BP_ENOTFOUND);
	bp_store *s = open_store(BP_STORE_READONLY);
	bp_kv *k = open_kv(s, BP_STORE_READONLY);
	cr_expect_eq(bp_kv_count(k), 10);
	bp_kv_close(k);
	bp_store_close(s);
}

struct flip {
	const char *key;
	size_t at; /* byte of the stored value (payload then checksum) */
	uint8_t mask;
};

static void flip_fn(MDB_txn *txn, MDB_dbi dbi, void *ctx)
{
	struct flip *f = ctx;
	MDB_val k = { strlen(f->key), (void *)f->key }, v;
	cr_assert_eq(mdb_get(txn, dbi, &k, &v), 0);
	uint8_t buf[64];
	cr_assert_lt(f->at, v.mv_size);
	memcpy(buf, v.mv_data, v.mv_size);
	buf[f->at] ^= f->mask;
	MDB_val nv = { v.mv_size, buf };
	cr_assert_eq(mdb_put(txn, dbi, &k, &nv, 0), 0);
}

/* Every bit of one stored value (payload and checksum) flipped in turn: each read of
 * the key, and the walk, report damage. */
Test(kv, every_bit_of_a_value)
{
	write_ten();
	for (size_t at = 0; at < 7 + 8; at++)
		for (int bit = 0; bit < 8; bit++) {
			struct flip f = { "key4", at, (uint8_t)(1u << bit) };
			raw_edit(space, flip_fn, &f);
			cr_expect_eq(get_rc("key4"), BP_ECORRUPT, "byte %zu bit %d", at, bit);
			int n;
			cr_expect_eq(each_rc(&n), BP_ECORRUPT, "byte %zu bit %d", at, bit);
			raw_edit(space, flip_fn, &f); /* undo */
		}
	int n;
	cr_expect_eq(each_rc(&n), BP_OK);
	/* a writer refuses to replace a damaged value (and writes nothing) */
	struct flip f = { "key2", 0, 1 };
	raw_edit(space, flip_fn, &f);
	bp_store *s = open_store(BP_STORE_CREATE);
	bp_kv *k = open_kv(s, BP_STORE_CREATE);
	struct bp_kv_item it = { "key2", "new", 4, 3 };
	cr_expect_eq(bp_kv_put(k, 1, &it), BP_ECORRUPT);
	bp_kv_close(k);
	bp_store_close(s);
}

struct move {
	const char *from, *to; /* to NULL: delete */
};

static void move_fn(MDB_txn *txn, MDB_dbi dbi, void *ctx)
{
	struct move *m = ctx;
	MDB_val k = { strlen(m->from), (void *)m->from }, v;
	cr_assert_eq(mdb_get(txn, dbi, &k, &v), 0);
	uint8_t buf[64];
	size_t len = v.mv_size;
	memcpy(buf, v.mv_data, len);
	cr_assert_eq(mdb_del(txn, dbi, &k, NULL), 0);
	if (m->to) {
		MDB_val nk = { strlen(m->to), (void *)m->to }, nv = { len, buf };
		cr_assert_eq(mdb_put(txn, dbi, &nk, &nv, 0), 0);
	}
}

/* A value under another key fails its checksum there; a lost entry is found by the
 * walk (the record's count and sum), while a read of the lost key is "not found". */
Test(kv, moved_and_lost_entries)
{
	write_ten();
	struct move m = { "key5", "key7" }; /* replaces key7's value by key5's */
	raw_edit(space, move_fn, &m);
	cr_expect_eq(get_rc("key7"), BP_ECORRUPT);
	cr_expect_eq(get_rc("key5"), BP_ENOTFOUND);
	int n;
	cr_expect_eq(each_rc(&n), BP_ECORRUPT);

	teardown();
	setup();
	write_ten();
	struct move d = { "key1", NULL };
	raw_edit(space, move_fn, &d);
	cr_expect_eq(get_rc("key1"), BP_ENOTFOUND);
	cr_expect_eq(each_rc(&n), BP_ECORRUPT);
	cr_expect_eq(n, 9, "the other items were read");
}

static void flip_record_fn(MDB_txn *txn, MDB_dbi dbi, void *ctx)
{
	char key[64];
	snprintf(key, sizeof key, "kv:%s", space);
	struct flip f = { key, *(size_t *)ctx, 0x10 };
	flip_fn(txn, dbi, &f);
}

static void drop_fn(MDB_txn *txn, MDB_dbi dbi, void *ctx)
{
	(void)ctx;
	cr_assert_eq(mdb_drop(txn, dbi, 1), 0);
}

static int open_rc(int flags, char *msg, size_t cap)
{
	bp_store *s = open_store(flags);
	bp_kv *k = NULL;
	struct bp_err err = { "" };
	int rc = bp_kv_open(s, space, flags, &k, &err);
	snprintf(msg, cap, "%s", err.msg);
	bp_kv_close(k);
	bp_store_close(s);
	return rc;
}

/* A damaged record, and a record whose key space LMDB has lost. */
Test(kv, damaged_record)
{
	write_ten();
	char msg[300];
	for (size_t at = 0; at < 36; at += 5) {
		raw_edit(".boardproof", flip_record_fn, &at);
		for (int flags = 0; flags <= BP_STORE_CREATE; flags += BP_STORE_CREATE) {
			int rc = open_rc(flags ? flags : BP_STORE_READONLY, msg, sizeof msg);
			cr_expect(rc == BP_ECORRUPT || (at >= 8 && at < 12 && rc == BP_EFORMAT),
				  "byte %zu: %d %s", at, rc, msg);
		}
		raw_edit(".boardproof", flip_record_fn, &at); /* undo */
	}
	int n;
	cr_expect_eq(each_rc(&n), BP_OK);
	raw_edit(space, drop_fn, NULL);
	cr_expect_eq(open_rc(BP_STORE_READONLY, msg, sizeof msg), BP_ECORRUPT);
	cr_expect(strstr(msg, "lost") != NULL, "message: %s", msg);
	cr_expect_eq(open_rc(BP_STORE_CREATE, msg, sizeof msg), BP_ECORRUPT);
}

static void old_space_fn(MDB_txn *txn, MDB_dbi dbi, void *ctx)
{
	(void)ctx;
	uint8_t key[8] = { 1, 2, 3 }, val = 10; /* format 1: one byte, no checksum */
	MDB_val k = { sizeof key, key }, v = { 1, &val };
	cr_assert_eq(mdb_put(txn, dbi, &k, &v, 0), 0);
}

/* A key space from before the checksums (no record): refused, by name, for reading and
 * for writing; nothing of it is read, nothing is written. */
Test(kv, format_1_key_space_refused)
{
	bp_store *s = open_store(BP_STORE_CREATE); /* a store, no key space yet */
	bp_store_close(s);
	raw_edit(space, old_space_fn, NULL);
	char msg[300];
	cr_expect_eq(open_rc(BP_STORE_READONLY, msg, sizeof msg), BP_EFORMAT);
	cr_expect(strstr(msg, space) && strstr(msg, "no record") && strstr(msg, "checksums"),
		  "message: %s", msg);
	cr_expect_eq(open_rc(BP_STORE_CREATE, msg, sizeof msg), BP_EFORMAT);
	cr_expect_eq(open_rc(BP_STORE_READONLY, msg, sizeof msg), BP_EFORMAT,
		     "still refused: the writer created no record");
	/* a key space that is not there at all: not found, for a reader */
	s = open_store(BP_STORE_READONLY);
	bp_kv *k = NULL;
	cr_expect_eq(bp_kv_open(s, ".test:other", BP_STORE_READONLY, &k, NULL), BP_ENOTFOUND);
	bp_store_close(s);
}
