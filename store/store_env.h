/* SPDX-License-Identifier: MIT */
/* For the store's own modules only (store/kv.c): the LMDB environment of a bp_store and
 * its count of open handles (bp_store_close checks that none is left). */
#ifndef BP_STORE_STORE_ENV_H
#define BP_STORE_STORE_ENV_H

#include <lmdb.h>

#include "store/store.h"

MDB_env *bp_store_env(bp_store *s);
int bp_store_readonly(const bp_store *s);
void bp_store_handles(bp_store *s, int delta);

#endif
