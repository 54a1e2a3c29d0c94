/* SPDX-License-Identifier: MIT */
/* Named key spaces of the position database for sparse data beside the dense tables:
 * values that proof-number search proved for single positions, and saved proof trees.
 * Each key space is one LMDB database named ".<kind>:<spec>" (a leading '.', so that
 * bp_store_tables does not list it as a table); keys and values are bytes whose
 * layout belongs to the caller (solver/dfpn_db.c documents the ones it writes). A batch
 * of puts is one transaction: a process killed at any moment leaves every committed
 * batch and nothing of the one in progress. Added in store format 1 without changing
 * anything a dense table stores (see store/store.c).
 *
 * Every value carries a checksum over its key and bytes, and each key space has a
 * record in the store's header database with its entry count and the sum of those
 * checksums (key-space format BP_KV_FORMAT, laid out in store/kv.c): a damaged value,
 * a value moved under another key, and (when a whole key space is read with
 * bp_kv_each) a lost or added entry are reported as BP_ECORRUPT, never handed back.
 * A key space written before there were checksums (format 1) is refused with
 * BP_EFORMAT, for reading and for writing. */
#ifndef BP_STORE_KV_H
#define BP_STORE_KV_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define BP_KV_FORMAT 2

typedef struct bp_kv bp_kv;

/* Opens the key space `name` (must start with '.', at most 400 bytes), creating it with
 * BP_STORE_CREATE. Same threading rules as bp_table_open. @return BP_OK; BP_ENOTFOUND;
 * BP_EINVAL; BP_EFORMAT (a key space of another format, err says which); BP_ECORRUPT
 * (its record is damaged, or the record is there and the key space is lost); BP_ENOMEM;
 * BP_EIO. The caller owns *out (bp_kv_close, before the store is closed). */
int bp_kv_open(bp_store *s, const char *name, int flags, bp_kv **out, struct bp_err *err);

void bp_kv_close(bp_kv *k);

/* Reads the value of key into a fresh buffer *val (malloc'd; the caller frees it) of
 * *vlen bytes. @return BP_OK; BP_ENOTFOUND; BP_ENOMEM; BP_ECORRUPT (a damaged page,
 * reported, never followed, or a value that fails its checksum); BP_EIO. */
int bp_kv_get(bp_kv *k, const void *key, size_t klen, void **val, size_t *vlen);

/* Reads a value of at most cap bytes into val without allocating (for small values).
 * @return the value's length (>= 0; only cap bytes are copied); BP_ENOTFOUND;
 * BP_ECORRUPT; BP_EIO. */
int bp_kv_get_small(bp_kv *k, const void *key, size_t klen, void *val, size_t cap);

struct bp_kv_item {
	const void *key, *val;
	size_t klen, vlen;
};

/* Writes n items in one transaction (replacing values of existing keys).
 * @return BP_OK; BP_EIO (nothing is written); BP_EINVAL (a key of more than 511 bytes);
 * BP_ENOMEM; BP_ECORRUPT (a value it replaces, or the key space's record, is damaged:
 * nothing is written). */
int bp_kv_put(bp_kv *k, size_t n, const struct bp_kv_item *items);

/* Calls fn for every item in key order (stops at fn's first non-zero return, which it
 * returns), and when all were read checks their count and checksums against the key
 * space's record. @return that, BP_OK, BP_ECORRUPT (a damaged item, which fn is not
 * given, or an entry lost or added), BP_ENOMEM or BP_EIO. */
int bp_kv_each(bp_kv *k,
	       int (*fn)(void *ctx, const void *key, size_t klen, const void *val, size_t vlen),
	       void *ctx);

/* What the last call that returned BP_ECORRUPT found: "LMDB: ..." for damage LMDB
 * reported or the store's guard caught, "checksum: ..." for damage the checksums
 * found; after a bp_kv_put that failed to write, its cause as the store names it
 * ("database full (MDB_MAP_FULL: ...)", "disk full (No space left on device)", "i/o
 * error while committing: ..."). Owned by k; "" before any. */
const char *bp_kv_why(const bp_kv *k);

/* The number of items. @return >= 0, or BP_EIO. */
int64_t bp_kv_count(bp_kv *k);

#endif
