/* SPDX-License-Identifier: MIT */
/* For the store's own modules only (store/kv.c): the LMDB environment of a bp_store and
 * its count of open handles (bp_store_close checks that none is left). */
#ifndef BP_STORE_STORE_ENV_H
#define BP_STORE_STORE_ENV_H

#include <lmdb.h>

#include "store/store.h"

/* The store's header database (store/store.c), which also keeps the records of key
 * spaces (store/kv.c). */
#define BP_STORE_HEADER_DB ".boardproof"

MDB_env *bp_store_env(bp_store *s);
int bp_store_readonly(const bp_store *s);
void bp_store_handles(bp_store *s, int delta);

/* Names why a write of the database failed, in buf (n bytes): by its cause where that
 * is known ("database full (MDB_MAP_FULL: ...)", "disk full (No space left on
 * device)"; LMDB's EIO for a short write is a full disk when data.mdb's file system
 * has almost no space left), else in LMDB's or the system's words; during (may be
 * NULL) says what was being done ("committing"). s may be NULL. */
void bp_store_write_why(bp_store *s, int rc, const char *during, char *buf, size_t n);

/* mdb_get and mdb_cursor_get under the store's crash guard (store/guard.h), with the
 * key and value checked to lie inside the file, so that a damaged page is reported
 * (BP_ECORRUPT), never followed into a crash. @return BP_OK; BP_ENOTFOUND;
 * BP_ECORRUPT (also MDB_BAD_TXN: an earlier read of the transaction met damage); as
 * the store's translation of LMDB's other codes. */
int bp_store_get(bp_store *s, MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v);
int bp_store_cursor_get(bp_store *s, MDB_cursor *cur, MDB_val *k, MDB_val *v, MDB_cursor_op op);

/* mdb_dbi_open without MDB_CREATE (a read of LMDB's main database) under the guard.
 * @return BP_OK; BP_ENOTFOUND; BP_ECORRUPT; as the store's translation of LMDB's codes. */
int bp_store_dbi_open(MDB_txn *txn, const char *name, MDB_dbi *dbi);

#endif
