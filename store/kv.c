/* SPDX-License-Identifier: MIT */
/* Named key spaces (store/kv.h) on the store's LMDB environment. Each handle opens its
 * database once and keeps one reset read transaction that every read renews, as
 * bp_table does; writes are one write transaction per batch.
 *
 * On-disk format, key-space format BP_KV_FORMAT (2), little-endian:
 *
 *   NAME (the LMDB database)   key: the caller's bytes
 *                              value: the caller's bytes, then
 *                                     u64 sum = bp_hash64(bytes, bp_hash64(key, S))
 *   ".boardproof" key "kv:" NAME  (the record of the key space)
 *                     offset 0  8 bytes  magic "BPKVSPC\0"
 *                            8  4 bytes  format version (BP_KV_FORMAT)
 *                           12  8 bytes  number of entries
 *                           20  8 bytes  the sum, mod 2^64, of every entry's sum
 *                           28  8 bytes  bp_hash64(bytes 0-27, S)
 *
 * where S = bp_hash64(NAME, 0x6b76) seeds every checksum with the key space's name, so
 * that a value or record copied from another key space fails too. The key is inside
 * the value's checksum: a damaged key makes its value fail (the lost key then reads as
 * not found, as it would without the damage; bp_kv_each, which reads every entry,
 * finds the sums and count short). The record is written in the transaction that
 * creates the key space and in every batch of puts. Why a record rather than a store
 * format bump: dense tables did not change, and a database whose key spaces predate
 * the checksums (format 1: a key space without a record) keeps its tables readable
 * while its key spaces are refused by name. A record without its key space is damage
 * to LMDB's main database (as the table registry in store.c catches for tables). */
#include "store/kv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "store/store_env.h"

#define KV_MAGIC "BPKVSPC"
#define KV_RECORD_BYTES 36
#define KV_SUM_BYTES 8
#define KV_NAME_MAX 400

struct bp_kv {
	bp_store *s;
	MDB_env *env;
	MDB_dbi dbi, hdr;
	MDB_txn *rtxn;
	uint64_t seed;
	char why[512]; /* what the last BP_ECORRUPT found, or why a write failed */
	size_t reclen; /* bytes of reckey */
	char reckey[3 + KV_NAME_MAX + 1];
};

struct record {
	uint64_t count, sum;
};

static int kv_err(int rc)
{
	return rc == MDB_NOTFOUND	? BP_ENOTFOUND
	       : rc == ENOMEM		? BP_ENOMEM
	       : rc == MDB_READERS_FULL ? BP_EBUSY
					: BP_EIO;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << 8 * i;
	return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* Notes what a read found damaged (for bp_kv_why). @return BP_ECORRUPT. */
static int damaged(bp_kv *k, const char *what)
{
	snprintf(k->why, sizeof k->why, "%s", what);
	return BP_ECORRUPT;
}

/* Notes an error of a guarded LMDB read: BP_ECORRUPT is LMDB's (a damaged page). */
static int lmdb_read(bp_kv *k, int rc)
{
	return rc == BP_ECORRUPT ? damaged(k, "LMDB: a damaged page") : rc;
}

/* Notes why a write failed while `during` (a full map, a full disk: named by the store,
 * in LMDB's or the system's words). @return the store's code. */
static int write_err(bp_kv *k, int rc, const char *during)
{
	bp_store_write_why(k->s, rc, during, k->why, sizeof k->why);
	return kv_err(rc);
}

/* The checksum of one entry. */
static uint64_t entry_sum(const bp_kv *k, const void *key, size_t klen, const void *val,
			  size_t vlen)
{
	return bp_hash64(val, vlen, bp_hash64(key, klen, k->seed));
}

/* Checks one stored value (payload and sum); *sum gets the sum. @return the payload's
 * length, or -1 when the value is damaged. */
static int64_t entry_check(const bp_kv *k, const void *key, size_t klen, const MDB_val *v,
			   uint64_t *sum)
{
	if (v->mv_size < KV_SUM_BYTES)
		return -1;
	size_t n = v->mv_size - KV_SUM_BYTES;
	*sum = get_u64((const uint8_t *)v->mv_data + n);
	return entry_sum(k, key, klen, v->mv_data, n) == *sum ? (int64_t)n : -1;
}

/* Reads the record of the key space in txn. @return BP_OK; BP_ENOTFOUND; BP_ECORRUPT;
 * BP_EFORMAT; BP_EIO. */
static int record_get(bp_kv *k, MDB_txn *txn, struct record *r)
{
	MDB_val key = { k->reclen, k->reckey }, v;
	int rc = bp_store_get(k->s, txn, k->hdr, &key, &v);
	if (rc)
		return lmdb_read(k, rc);
	const uint8_t *p = v.mv_data;
	if (v.mv_size != KV_RECORD_BYTES || memcmp(p, KV_MAGIC, 8) != 0 ||
	    get_u64(p + 28) != bp_hash64(p, 28, k->seed))
		return damaged(k, "checksum: the key space's record fails its checksum");
	if ((p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24) !=
	    BP_KV_FORMAT)
		return BP_EFORMAT;
	r->count = get_u64(p + 12);
	r->sum = get_u64(p + 20);
	return BP_OK;
}

/* Writes the record in the write transaction txn. @return an LMDB code. */
static int record_put(bp_kv *k, MDB_txn *txn, const struct record *r)
{
	uint8_t b[KV_RECORD_BYTES];
	memcpy(b, KV_MAGIC, 8);
	for (int i = 0; i < 4; i++)
		b[8 + i] = (uint8_t)(BP_KV_FORMAT >> 8 * i);
	put_u64(b + 12, r->count);
	put_u64(b + 20, r->sum);
	put_u64(b + 28, bp_hash64(b, 28, k->seed));
	MDB_val key = { k->reclen, k->reckey }, v = { sizeof b, b };
	return mdb_put(txn, k->hdr, &key, &v, 0);
}

int bp_kv_open(bp_store *s, const char *name, int flags, bp_kv **out, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	struct record r;
	int rc, mrc = 0;
	*out = NULL;
	if (!s || !name || name[0] != '.' || strlen(name) > KV_NAME_MAX)
		return bp_err_set(err, BP_EINVAL, "bad key space name");
	int create = (flags & BP_STORE_CREATE) && !bp_store_readonly(s);
	bp_kv *k = calloc(1, sizeof *k);
	if (!k)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	k->s = s;
	k->env = bp_store_env(s);
	k->seed = bp_hash64(name, strlen(name), 0x6b76);
	k->reclen = (size_t)snprintf(k->reckey, sizeof k->reckey, "kv:%s", name);
	const char *during = "starting a transaction"; /* for a failing LMDB call */
	if ((mrc = mdb_txn_begin(k->env, NULL, create ? 0 : MDB_RDONLY, &txn)))
		goto lmdb_fail;
	if ((rc = bp_store_dbi_open(txn, BP_STORE_HEADER_DB, &k->hdr))) {
		bp_err_set(err, rc == BP_ENOTFOUND ? BP_ECORRUPT : rc,
			   "key space %s: the store's header database: %s", name,
			   rc == BP_ENOTFOUND ? "lost (damaged)" : bp_strerror(rc));
		rc = rc == BP_ENOTFOUND ? BP_ECORRUPT : rc;
		goto fail;
	}
	int rrc = record_get(k, txn, &r);
	rc = bp_store_dbi_open(txn, name, &k->dbi);
	if (rrc == BP_ECORRUPT || rrc == BP_EFORMAT || (rrc && rrc != BP_ENOTFOUND)) {
		bp_err_set(err, rrc, "key space %s: %s", name,
			   rrc == BP_ECORRUPT  ? "damaged: its record fails its checksum"
			   : rrc == BP_EFORMAT ? "a record of another key-space format"
					       : bp_strerror(rrc));
		rc = rrc;
		goto fail;
	}
	if (rc && rc != BP_ENOTFOUND) {
		bp_err_set(err, rc, "key space %s: %s", name, bp_strerror(rc));
		goto fail;
	}
	if (rrc == BP_OK && rc == BP_ENOTFOUND) {
		rc = BP_ECORRUPT;
		bp_err_set(err, rc,
			   "key space %s: damaged: the store's header has its record but LMDB's "
			   "main database has lost it",
			   name);
		goto fail;
	}
	if (rrc == BP_ENOTFOUND && rc == BP_OK) {
		rc = BP_EFORMAT;
		bp_err_set(err, rc,
			   "key space %s has no record: it was written by a boardproof before "
			   "key-space format %d (values without checksums), or its record is "
			   "lost; it is not read: prove again into another database (--db)",
			   name, BP_KV_FORMAT);
		goto fail;
	}
	if (rc == BP_ENOTFOUND) { /* neither there */
		if (!create) {
			bp_err_set(err, rc, "key space %s: not found", name);
			goto fail;
		}
		r = (struct record){ 0, 0 };
		during = "writing";
		if ((mrc = mdb_dbi_open(txn, name, MDB_CREATE, &k->dbi)) ||
		    (mrc = record_put(k, txn, &r)))
			goto lmdb_fail;
	}
	during = "committing";
	mrc = mdb_txn_commit(txn);
	txn = NULL;
	if (mrc)
		goto lmdb_fail;
	bp_store_handles(s, 1);
	*out = k;
	return BP_OK;
lmdb_fail:
	rc = kv_err(mrc);
	write_err(k, mrc, during);
	bp_err_set(err, rc, "key space %s: %s", name, k->why);
fail:
	if (txn)
		mdb_txn_abort(txn);
	free(k);
	return rc;
}

void bp_kv_close(bp_kv *k)
{
	if (!k)
		return;
	if (k->rtxn)
		mdb_txn_abort(k->rtxn);
	bp_store_handles(k->s, -1);
	free(k);
}

static int read_begin(bp_kv *k)
{
	int rc = k->rtxn ? mdb_txn_renew(k->rtxn)
			 : mdb_txn_begin(k->env, NULL, MDB_RDONLY, &k->rtxn);
	return rc ? kv_err(rc) : BP_OK;
}

int bp_kv_get(bp_kv *k, const void *key, size_t klen, void **val, size_t *vlen)
{
	int rc = read_begin(k);
	if (rc)
		return rc;
	MDB_val kv = { klen, (void *)key }, v;
	uint64_t sum;
	rc = lmdb_read(k, bp_store_get(k->s, k->rtxn, k->dbi, &kv, &v));
	int64_t n = rc == BP_OK ? entry_check(k, key, klen, &v, &sum) : 0;
	if (n < 0)
		rc = damaged(k, "checksum: a value fails its checksum");
	if (rc == BP_OK) {
		*val = malloc(n ? (size_t)n : 1);
		if (*val) {
			memcpy(*val, v.mv_data, (size_t)n);
			*vlen = (size_t)n;
		} else
			rc = BP_ENOMEM;
	}
	mdb_txn_reset(k->rtxn);
	return rc;
}

int bp_kv_get_small(bp_kv *k, const void *key, size_t klen, void *val, size_t cap)
{
	int rc = read_begin(k);
	if (rc)
		return rc;
	MDB_val kv = { klen, (void *)key }, v;
	uint64_t sum;
	rc = lmdb_read(k, bp_store_get(k->s, k->rtxn, k->dbi, &kv, &v));
	int64_t n = rc == BP_OK ? entry_check(k, key, klen, &v, &sum) : 0;
	if (n < 0 || n > INT32_MAX)
		rc = damaged(k, "checksum: a value fails its checksum");
	int ret = rc ? rc : (int)n;
	if (rc == BP_OK)
		memcpy(val, v.mv_data, (size_t)n < cap ? (size_t)n : cap);
	mdb_txn_reset(k->rtxn);
	return ret;
}

int bp_kv_put(bp_kv *k, size_t n, const struct bp_kv_item *items)
{
	MDB_txn *txn;
	struct record r;
	for (size_t i = 0; i < n; i++)
		if (items[i].klen == 0 || items[i].klen > 511)
			return BP_EINVAL;
	int rc = mdb_txn_begin(k->env, NULL, 0, &txn);
	if (rc)
		return kv_err(rc);
	/* the record as of this transaction (another process may have written since) */
	int ret = record_get(k, txn, &r);
	if (ret == BP_ENOTFOUND) /* the record was there when the key space was opened */
		ret = damaged(k, "LMDB: the key space's record is lost");
	for (size_t i = 0; i < n && !ret; i++) {
		MDB_val kv = { items[i].klen, (void *)items[i].key }, v;
		uint64_t sum;
		/* a value replaced: its sum leaves the record's (a damaged one cannot) */
		ret = lmdb_read(k, bp_store_get(k->s, txn, k->dbi, &kv, &v));
		if (ret == BP_OK) {
			if (entry_check(k, items[i].key, items[i].klen, &v, &sum) < 0) {
				ret = damaged(k, "checksum: a value to replace fails its checksum");
				break;
			}
			r.count--;
			r.sum -= sum;
		} else if (ret != BP_ENOTFOUND)
			break;
		ret = BP_OK;
		/* written straight into LMDB's pages (MDB_RESERVE): a large value (a saved
		 * proof) is not held a third time */
		size_t len = items[i].vlen + KV_SUM_BYTES;
		v = (MDB_val){ len, NULL };
		if ((rc = mdb_put(txn, k->dbi, &kv, &v, MDB_RESERVE))) {
			ret = write_err(k, rc, "writing");
			break;
		}
		uint8_t *to = v.mv_data;
		if (items[i].vlen)
			memcpy(to, items[i].val, items[i].vlen);
		sum = entry_sum(k, items[i].key, items[i].klen, to, items[i].vlen);
		put_u64(to + items[i].vlen, sum);
		r.count++;
		r.sum += sum;
	}
	if (!ret && (rc = record_put(k, txn, &r)))
		ret = write_err(k, rc, "writing");
	if (ret) {
		mdb_txn_abort(txn);
		return ret;
	}
	rc = mdb_txn_commit(txn);
	return rc ? write_err(k, rc, "committing") : BP_OK;
}

int bp_kv_each(bp_kv *k,
	       int (*fn)(void *ctx, const void *key, size_t klen, const void *val, size_t vlen),
	       void *ctx)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val kv, v;
	struct record r, seen = { 0, 0 };
	int rc = mdb_txn_begin(k->env, NULL, MDB_RDONLY, &txn), ret = BP_OK;
	if (rc)
		return kv_err(rc);
	if ((ret = record_get(k, txn, &r)) != BP_OK) {
		mdb_txn_abort(txn);
		return ret == BP_ENOTFOUND ? damaged(k, "LMDB: the key space's record is lost")
					   : ret;
	}
	if ((rc = mdb_cursor_open(txn, k->dbi, &cur))) {
		mdb_txn_abort(txn);
		return kv_err(rc);
	}
	for (rc = bp_store_cursor_get(k->s, cur, &kv, &v, MDB_FIRST); rc == BP_OK;
	     rc = bp_store_cursor_get(k->s, cur, &kv, &v, MDB_NEXT)) {
		uint64_t sum;
		int64_t n = entry_check(k, kv.mv_data, kv.mv_size, &v, &sum);
		if (n < 0) {
			ret = damaged(k, "checksum: a value fails its checksum");
			break;
		}
		seen.count++;
		seen.sum += sum;
		if ((ret = fn(ctx, kv.mv_data, kv.mv_size, v.mv_data, (size_t)n)))
			break;
	}
	if (!ret && rc != BP_ENOTFOUND)
		ret = lmdb_read(k, rc);
	if (!ret && (seen.count != r.count || seen.sum != r.sum))
		ret = damaged(k,
			      seen.count != r.count
				      ? "checksum: entries lost or added (the record counts "
					"another number)"
				      : "checksum: an entry lost, added or changed (the record's "
					"sum of checksums differs)");
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return ret;
}

const char *bp_kv_why(const bp_kv *k)
{
	return k->why;
}

int64_t bp_kv_count(bp_kv *k)
{
	MDB_txn *txn;
	MDB_stat st;
	int rc = mdb_txn_begin(k->env, NULL, MDB_RDONLY, &txn);
	if (rc)
		return kv_err(rc);
	rc = mdb_stat(txn, k->dbi, &st);
	mdb_txn_abort(txn);
	return rc ? kv_err(rc) : (int64_t)st.ms_entries;
}
