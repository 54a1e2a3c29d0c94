/* SPDX-License-Identifier: MIT */
/* Named key spaces (store/kv.h) on the store's LMDB environment. Each handle opens its
 * database once and keeps one reset read transaction that every read renews, as
 * bp_table does; writes are one write transaction per batch. */
#include "store/kv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_env.h"

struct bp_kv {
	bp_store *s;
	MDB_env *env;
	MDB_dbi dbi;
	MDB_txn *rtxn;
};

static int kv_err(int rc)
{
	return rc == MDB_NOTFOUND ? BP_ENOTFOUND : rc == ENOMEM ? BP_ENOMEM : BP_EIO;
}

int bp_kv_open(bp_store *s, const char *name, int flags, bp_kv **out, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	int rc;
	*out = NULL;
	if (!s || !name || name[0] != '.')
		return bp_err_set(err, BP_EINVAL, "bad key space name");
	int create = (flags & BP_STORE_CREATE) && !bp_store_readonly(s);
	bp_kv *k = calloc(1, sizeof *k);
	if (!k)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	k->s = s;
	k->env = bp_store_env(s);
	if ((rc = mdb_txn_begin(k->env, NULL, create ? 0 : MDB_RDONLY, &txn)))
		goto fail;
	if ((rc = mdb_dbi_open(txn, name, create ? MDB_CREATE : 0, &k->dbi)))
		goto fail;
	if ((rc = mdb_txn_commit(txn))) {
		txn = NULL;
		goto fail;
	}
	txn = NULL;
	bp_store_handles(s, 1);
	*out = k;
	return BP_OK;
fail:
	if (txn)
		mdb_txn_abort(txn);
	free(k);
	return bp_err_set(err, kv_err(rc), "key space %s: %s", name, mdb_strerror(rc));
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
	rc = bp_store_get(k->s, k->rtxn, k->dbi, &kv, &v);
	if (rc == BP_OK) {
		*val = malloc(v.mv_size ? v.mv_size : 1);
		if (*val) {
			memcpy(*val, v.mv_data, v.mv_size);
			*vlen = v.mv_size;
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
	rc = bp_store_get(k->s, k->rtxn, k->dbi, &kv, &v);
	int ret = rc ? rc : (int)v.mv_size;
	if (rc == BP_OK)
		memcpy(val, v.mv_data, v.mv_size < cap ? v.mv_size : cap);
	mdb_txn_reset(k->rtxn);
	return ret;
}

int bp_kv_put(bp_kv *k, size_t n, const struct bp_kv_item *items)
{
	MDB_txn *txn;
	for (size_t i = 0; i < n; i++)
		if (items[i].klen == 0 || items[i].klen > 511)
			return BP_EINVAL;
	int rc = mdb_txn_begin(k->env, NULL, 0, &txn);
	if (rc)
		return kv_err(rc);
	for (size_t i = 0; i < n && !rc; i++) {
		MDB_val kv = { items[i].klen, (void *)items[i].key },
			v = { items[i].vlen, (void *)items[i].val };
		rc = mdb_put(txn, k->dbi, &kv, &v, 0);
	}
	if (rc) {
		mdb_txn_abort(txn);
		return kv_err(rc);
	}
	rc = mdb_txn_commit(txn);
	return rc ? kv_err(rc) : BP_OK;
}

int bp_kv_each(bp_kv *k,
	       int (*fn)(void *ctx, const void *key, size_t klen, const void *val, size_t vlen),
	       void *ctx)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val kv, v;
	int rc = mdb_txn_begin(k->env, NULL, MDB_RDONLY, &txn), ret = BP_OK;
	if (rc)
		return kv_err(rc);
	if ((rc = mdb_cursor_open(txn, k->dbi, &cur))) {
		mdb_txn_abort(txn);
		return kv_err(rc);
	}
	for (rc = bp_store_cursor_get(k->s, cur, &kv, &v, MDB_FIRST); rc == BP_OK;
	     rc = bp_store_cursor_get(k->s, cur, &kv, &v, MDB_NEXT))
		if ((ret = fn(ctx, kv.mv_data, kv.mv_size, v.mv_data, v.mv_size)))
			break;
	if (!ret && rc != BP_ENOTFOUND)
		ret = rc;
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return ret;
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
