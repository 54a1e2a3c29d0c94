/* SPDX-License-Identifier: MIT */
/* The position database on LMDB.
 *
 * On-disk format, version BP_STORE_FORMAT (1). A database is one LMDB environment in a
 * directory (data.mdb, lock.mdb) holding named LMDB databases:
 *
 *   ".boardproof"   the store header: key "header" ->
 *                     offset 0  8 bytes  magic "BPSTORE\0"
 *                            8  4 bytes  format version, little-endian (BP_STORE_FORMAT)
 *                           12  t bytes  BP_VERSION of the tool that created it
 *   SPEC            one per table, named by its canonical spec (never starting with '.'):
 *                     key "meta" (4 bytes)  -> the table's metadata (store/meta.c)
 *                     key tier:u32be block:u64be (12 bytes) -> one block (store/codec.c)
 *
 * Block b of tier t holds records [b * B, min((b + 1) * B, size)) of the tier, B the
 * table's records per block; a done tier of n records has exactly ceil(n / B) blocks
 * (none when n is 0). Big-endian keys make LMDB's order (tier, block) order. The
 * checksum of each block is seeded with bp_hash64(spec), so a block copied from another
 * table fails too. Opening a database whose header has another magic or format fails
 * with BP_EFORMAT before anything is written; so does a table whose metadata has
 * another format version.
 *
 * Transactions. bp_table_put_tier writes every block of the tier and the new metadata
 * in one LMDB write transaction: a crash leaves the old state or the new one. Reads use
 * read-only transactions (MVCC snapshots), so readers never wait for the writer and
 * bp_table_get_tier sees one consistent version of a tier. The environment is opened
 * with MDB_NOTLS so that a thread may hold read transactions of several tables and
 * write at the same time; each bp_table keeps one reset read transaction to renew
 * cheaply.
 *
 * Threads: a bp_store may be shared by threads, but bp_table_open, bp_table_close and
 * bp_store_close must not run concurrently with anything else on the store (LMDB's
 * mdb_dbi_open rule). A bp_table is used by one thread at a time; different bp_table
 * handles may be used by different threads at once (writers then take turns). A
 * directory must be opened at most once per process (LMDB's rule); other processes
 * may open it at the same time.
 *
 * Caching and freshness: a bp_table sees the metadata as of its opening plus its own
 * writes; bp_table_get keeps the last BP_CACHE_SLOTS decoded blocks. Reopen the table
 * to see tiers that another handle or process has written since.
 *
 * Probes: bp_table_get decodes a whole block on a miss and checks the value checksum
 * (key, table and every stored byte: any damage); bp_table_get_tier and
 * bp_table_check_blocks also hash the decoded content. On the solved taifas:4x4 table
 * (86 million records, 10.8 million positions) a cold probe costs about 25 us with
 * 65536-record blocks (1.74 bits per position) and 8 us with 16384 (2.07 bits per
 * position): block_records trades probe speed for space. The default is 16384, which
 * meets the target of 50,000 cold probes a second a core; 65536 or more (and a higher
 * zstd level) favour space. A dictionary trained on the table's blocks saved 2% at
 * 16384 records and nothing at 65536, so there is none. */
#include "store/store.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bp_config.h"
#include "store/codec.h"
#include "store/meta.h"

#define BP_STORE_MAGIC "BPSTORE"
#define BP_STORE_HEADER_DB ".boardproof"
#define BP_STORE_MAP_SIZE ((size_t)256 << 30)
#define BP_STORE_MAX_DBS 4096
#define BP_STORE_MAX_READERS 1022
#define BP_DEFAULT_BLOCK_RECORDS 16384u
/* Decoded blocks kept per table for bp_table_get: enough for a position and all its
 * children to stay warm (a query), allocated as they are first used (128 KiB each at
 * the default block size). */
#define BP_CACHE_SLOTS 32

static const char bp_meta_key[4] = { 'm', 'e', 't', 'a' };

struct bp_store {
	MDB_env *env;
	int readonly;
	int ntables; /* open bp_table handles */
};

struct cache_slot {
	uint32_t tier;
	uint64_t block;
	uint64_t used; /* last use, for LRU; 0 = empty */
	uint16_t *records;
};

struct bp_table {
	bp_store *s;
	MDB_dbi dbi;
	uint64_t seed; /* bp_hash64(spec): mixed into every block checksum */
	int level;     /* zstd level for writes, 0 = codec default */
	struct bp_meta meta;
	MDB_txn *rtxn; /* reset read transaction, renewed for each read */
	bp_codec *codec;
	struct cache_slot cache[BP_CACHE_SLOTS];
	uint64_t clock;
	uint16_t *scratch; /* one block, for check_blocks */
};

/* Translates an LMDB or errno code at the store's edge. */
static int mdb_to_bp(int rc)
{
	switch (rc) {
	case MDB_SUCCESS: return BP_OK;
	case MDB_NOTFOUND: return BP_ENOTFOUND;
	case ENOENT: return BP_ENOTFOUND;
	case ENOMEM: return BP_ENOMEM;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND: return BP_ECORRUPT;
	case MDB_INVALID:
	case MDB_VERSION_MISMATCH:
	case MDB_INCOMPATIBLE: return BP_EFORMAT;
	case MDB_DBS_FULL:
	case MDB_READERS_FULL: return BP_ERANGE;
	default: return BP_EIO;
	}
}

static int mdb_err(struct bp_err *err, int rc, const char *what, const char *name)
{
	return bp_err_set(err, mdb_to_bp(rc), "%s %s: %s", what, name, mdb_strerror(rc));
}

/* ---- store ---- */

/* mkdir -p: creates dir and its missing parents. */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof path)
		return EINVAL;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != 0)
			continue;
		char c = path[i];
		path[i] = 0;
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return errno;
		path[i] = c;
	}
	return 0;
}

static int header_check(MDB_txn *txn, MDB_dbi hdr, const char *dir, struct bp_err *err)
{
	MDB_val k = { 6, "header" }, v;
	int rc = mdb_get(txn, hdr, &k, &v);
	if (rc == MDB_NOTFOUND)
		return bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database (no header)",
				  dir);
	if (rc)
		return mdb_err(err, rc, "reading the header of", dir);
	const uint8_t *p = v.mv_data;
	if (v.mv_size < 12 || memcmp(p, BP_STORE_MAGIC, 8) != 0)
		return bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database (bad magic)",
				  dir);
	uint32_t format =
		p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
	if (format != BP_STORE_FORMAT)
		return bp_err_set(
			err, BP_EFORMAT,
			"%s: database format version %u, this boardproof reads version %d", dir,
			format, BP_STORE_FORMAT);
	return BP_OK;
}

/* Writes the header into an empty environment; leaves a non-empty one alone. */
static int header_create(MDB_env *env, const char *dir, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	MDB_dbi main, hdr;
	MDB_stat st;
	int rc = mdb_txn_begin(env, NULL, 0, &txn), ret;
	if (rc || (rc = mdb_dbi_open(txn, NULL, 0, &main)) || (rc = mdb_stat(txn, main, &st))) {
		ret = mdb_err(err, rc, "creating", dir);
		goto out;
	}
	if (st.ms_entries != 0) {
		/* another process may have won the race: then the header is there */
		rc = mdb_dbi_open(txn, BP_STORE_HEADER_DB, 0, &hdr);
		if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE)
			ret = bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database", dir);
		else if (rc)
			ret = mdb_err(err, rc, "opening", dir);
		else
			ret = header_check(txn, hdr, dir, err);
		goto out;
	}
	uint8_t buf[12 + sizeof BP_VERSION];
	memcpy(buf, BP_STORE_MAGIC, 8);
	for (int i = 0; i < 4; i++)
		buf[8 + i] = (uint8_t)(BP_STORE_FORMAT >> 8 * i);
	memcpy(buf + 12, BP_VERSION, sizeof BP_VERSION - 1);
	MDB_val k = { 6, "header" }, v = { 12 + sizeof BP_VERSION - 1, buf };
	if ((rc = mdb_dbi_open(txn, BP_STORE_HEADER_DB, MDB_CREATE, &hdr)) ||
	    (rc = mdb_put(txn, hdr, &k, &v, 0))) {
		ret = mdb_err(err, rc, "creating", dir);
		goto out;
	}
	rc = mdb_txn_commit(txn);
	txn = NULL;
	ret = rc ? mdb_err(err, rc, "creating", dir) : BP_OK;
out:
	if (txn)
		mdb_txn_abort(txn);
	return ret;
}

int bp_store_open(const char *dir, int flags, bp_store **out, struct bp_err *err)
{
	bp_store *s = NULL;
	MDB_txn *txn = NULL;
	int ret, rc;
	int readonly = (flags & BP_STORE_READONLY) != 0, create = (flags & BP_STORE_CREATE) != 0;
	char path[4096];
	struct stat st;

	*out = NULL;
	if (!dir || (readonly && create) || (flags & ~(BP_STORE_READONLY | BP_STORE_CREATE)))
		return bp_err_set(err, BP_EINVAL, "bad arguments to bp_store_open");
	if (snprintf(path, sizeof path, "%s/data.mdb", dir) >= (int)sizeof path)
		return bp_err_set(err, BP_EINVAL, "%s: path too long", dir);
	if (stat(dir, &st) != 0) {
		if (errno != ENOENT || !create)
			return bp_err_set(err, errno == ENOENT ? BP_ENOTFOUND : BP_EIO, "%s: %s",
					  dir, strerror(errno));
		if ((rc = make_dirs(dir)) != 0)
			return bp_err_set(err, BP_EIO, "creating %s: %s", dir, strerror(rc));
	} else if (!S_ISDIR(st.st_mode)) {
		return bp_err_set(err, BP_EFORMAT, "%s: not a directory", dir);
	}
	int fresh = stat(path, &st) != 0;
	if (fresh && !create)
		return bp_err_set(err, BP_ENOTFOUND, "%s: no database here", dir);

	s = calloc(1, sizeof *s);
	if (!s)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	s->readonly = readonly;
	if ((rc = mdb_env_create(&s->env)) || (rc = mdb_env_set_maxdbs(s->env, BP_STORE_MAX_DBS)) ||
	    (rc = mdb_env_set_maxreaders(s->env, BP_STORE_MAX_READERS)) ||
	    (rc = mdb_env_set_mapsize(s->env, BP_STORE_MAP_SIZE))) {
		ret = mdb_err(err, rc, "opening", dir);
		goto out;
	}
	rc = mdb_env_open(s->env, dir, MDB_NOTLS | (readonly ? MDB_RDONLY : 0), 0664);
	if (rc) {
		if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH)
			ret = bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database (%s)", dir,
					 mdb_strerror(rc));
		else
			ret = mdb_err(err, rc, "opening", dir);
		goto out;
	}

	/* Check the header in a read transaction, so that opening never waits for a
	 * writer; only an empty environment gets a header written. */
	MDB_dbi main, hdr;
	MDB_stat ms;
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = mdb_dbi_open(txn, NULL, 0, &main)) || (rc = mdb_stat(txn, main, &ms))) {
		ret = mdb_err(err, rc, "opening", dir);
		goto out;
	}
	rc = mdb_dbi_open(txn, BP_STORE_HEADER_DB, 0, &hdr);
	if (rc == MDB_NOTFOUND && ms.ms_entries == 0 && create) {
		mdb_txn_abort(txn);
		txn = NULL;
		ret = header_create(s->env, dir, err);
		goto out;
	}
	if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
		ret = bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database", dir);
		goto out;
	}
	if (rc) {
		ret = mdb_err(err, rc, "opening", dir);
		goto out;
	}
	ret = header_check(txn, hdr, dir, err);
out:
	if (txn)
		mdb_txn_abort(txn);
	if (ret != BP_OK) {
		if (s && s->env)
			mdb_env_close(s->env);
		free(s);
		return ret;
	}
	*out = s;
	return BP_OK;
}

void bp_store_close(bp_store *s)
{
	if (!s)
		return;
	assert(s->ntables == 0);
	mdb_env_close(s->env);
	free(s);
}

int bp_store_set_map_size(bp_store *s, uint64_t bytes)
{
	if (!s || bytes > SIZE_MAX)
		return BP_EINVAL;
	int rc = mdb_env_set_mapsize(s->env, (size_t)bytes);
	return rc == EINVAL ? BP_EINVAL : mdb_to_bp(rc);
}

int bp_store_tables(bp_store *s, void (*fn)(void *ctx, const char *spec), void *ctx)
{
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi main;
	MDB_val k, v;
	int rc, ret = BP_OK;
	if (!s || !fn)
		return BP_EINVAL;
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = mdb_dbi_open(txn, NULL, 0, &main)) || (rc = mdb_cursor_open(txn, main, &cur))) {
		ret = mdb_to_bp(rc);
		goto out;
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		char name[512];
		if (k.mv_size == 0 || k.mv_size >= sizeof name || *(const char *)k.mv_data == '.')
			continue;
		memcpy(name, k.mv_data, k.mv_size);
		name[k.mv_size] = 0;
		fn(ctx, name);
	}
	if (rc != MDB_NOTFOUND)
		ret = mdb_to_bp(rc);
out:
	if (cur)
		mdb_cursor_close(cur);
	if (txn)
		mdb_txn_abort(txn);
	return ret;
}

/* ---- tables ---- */

/* Compares stored metadata with what the caller expects; names the first difference. */
static int meta_match(const struct bp_meta *m, const struct bp_table_info *info, struct bp_err *err)
{
	if (strcmp(m->spec, info->spec) != 0)
		return bp_err_set(err, BP_EFORMAT, "table %s holds %s", info->spec, m->spec);
	if (m->rules_version != info->rules_version)
		return bp_err_set(err, BP_EFORMAT,
				  "table %s: solved under rules version %u, not %u", info->spec,
				  m->rules_version, info->rules_version);
	if (m->ntiers != info->ntiers)
		return bp_err_set(err, BP_EFORMAT, "table %s: %u tiers stored, %u expected",
				  info->spec, m->ntiers, info->ntiers);
	for (uint32_t i = 0; i < m->ntiers; i++)
		if (m->tier_size[i] != info->tier_size[i])
			return bp_err_set(
				err, BP_EFORMAT,
				"table %s: tier %u has %llu records stored, %llu expected",
				info->spec, i, (unsigned long long)m->tier_size[i],
				(unsigned long long)info->tier_size[i]);
	if (info->block_records && m->block_records != info->block_records)
		return bp_err_set(err, BP_EFORMAT,
				  "table %s: %u records per block stored, %u asked for", info->spec,
				  m->block_records, info->block_records);
	return BP_OK;
}

/* Reads and decodes the metadata of an open table database. */
static int meta_read(MDB_txn *txn, MDB_dbi dbi, const char *spec, struct bp_meta *m,
		     struct bp_err *err)
{
	MDB_val k = { sizeof bp_meta_key, (void *)bp_meta_key }, v;
	int rc = mdb_get(txn, dbi, &k, &v);
	if (rc == MDB_NOTFOUND)
		return bp_err_set(err, BP_ECORRUPT, "table %s: no metadata", spec);
	if (rc)
		return mdb_err(err, rc, "reading table", spec);
	int ret = bp_meta_decode(v.mv_data, v.mv_size, m);
	if (ret == BP_EFORMAT)
		return bp_err_set(err, ret,
				  "table %s: metadata of another format version (this "
				  "boardproof reads version %d)",
				  spec, BP_STORE_FORMAT);
	if (ret != BP_OK)
		return bp_err_set(err, ret, "table %s: unreadable metadata", spec);
	if (strcmp(m->spec, spec) != 0)
		return bp_err_set(err, BP_ECORRUPT, "table %s: metadata names %s", spec, m->spec);
	if (m->block_records == 0 || m->block_records > BP_CODEC_MAX_RECORDS)
		return bp_err_set(err, BP_ECORRUPT, "table %s: bad block size", spec);
	return BP_OK;
}

static int meta_put(MDB_txn *txn, MDB_dbi dbi, const struct bp_meta *m)
{
	uint8_t *buf;
	size_t len;
	if (bp_meta_encode(m, &buf, &len) != BP_OK)
		return ENOMEM;
	MDB_val k = { sizeof bp_meta_key, (void *)bp_meta_key }, v = { len, buf };
	int rc = mdb_put(txn, dbi, &k, &v, 0);
	free(buf);
	return rc;
}

/* Creates the table (one write transaction), or checks it if another process created
 * it meanwhile. */
static int table_create(bp_store *s, const char *spec, const struct bp_table_info *info,
			MDB_dbi *dbi, struct bp_meta *m, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	int rc, ret;
	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) ||
	    (rc = mdb_dbi_open(txn, spec, MDB_CREATE, dbi))) {
		ret = rc == MDB_INCOMPATIBLE
			      ? bp_err_set(err, BP_EFORMAT, "%s: not a boardproof table", spec)
			      : mdb_err(err, rc, "creating table", spec);
		goto out;
	}
	MDB_val k = { sizeof bp_meta_key, (void *)bp_meta_key }, v;
	rc = mdb_get(txn, *dbi, &k, &v);
	if (rc == 0) {
		ret = meta_read(txn, *dbi, spec, m, err);
		if (ret == BP_OK)
			ret = meta_match(m, info, err);
		goto out;
	}
	if ((ret = bp_meta_init(m, info->ntiers)) != BP_OK)
		goto out;
	snprintf(m->spec, sizeof m->spec, "%s", spec);
	snprintf(m->tool_version, sizeof m->tool_version, "%s", BP_VERSION);
	m->format_version = BP_STORE_FORMAT;
	m->rules_version = info->rules_version;
	m->block_records = info->block_records ? info->block_records : BP_DEFAULT_BLOCK_RECORDS;
	for (uint32_t i = 0; i < info->ntiers; i++)
		m->tier_size[i] = info->tier_size[i];
	if ((rc = meta_put(txn, *dbi, m)) != 0) {
		ret = mdb_err(err, rc, "creating table", spec);
		goto out;
	}
	rc = mdb_txn_commit(txn);
	txn = NULL;
	ret = rc ? mdb_err(err, rc, "creating table", spec) : BP_OK;
out:
	if (txn)
		mdb_txn_abort(txn);
	return ret;
}

void bp_table_close(bp_table *t)
{
	if (!t)
		return;
	if (t->rtxn)
		mdb_txn_abort(t->rtxn);
	bp_codec_destroy(t->codec);
	for (int i = 0; i < BP_CACHE_SLOTS; i++)
		free(t->cache[i].records);
	free(t->scratch);
	bp_meta_free(&t->meta);
	t->s->ntables--;
	free(t);
}

int bp_table_open(bp_store *s, const char *spec, const struct bp_table_info *info, int flags,
		  bp_table **out, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	bp_table *t = NULL;
	int rc, ret;
	*out = NULL;
	if (!s || !spec || !*spec || spec[0] == '.' || strlen(spec) >= sizeof info->spec)
		return bp_err_set(err, BP_EINVAL, "bad table name '%s'", spec ? spec : "");
	if (info && (strcmp(info->spec, spec) != 0 || (info->ntiers && !info->tier_size) ||
		     info->block_records > BP_CODEC_MAX_RECORDS))
		return bp_err_set(err, BP_EINVAL, "table %s: bad table info", spec);
	if ((flags & BP_STORE_CREATE) && (s->readonly || !info))
		return bp_err_set(err, BP_EINVAL, "table %s: cannot create %s", spec,
				  s->readonly ? "in a read-only store" : "without an info");
	t = calloc(1, sizeof *t);
	if (!t)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	t->s = s;
	s->ntables++;
	t->seed = bp_hash64(spec, strlen(spec), 0);
	t->level = info ? info->compression_level : 0;
	if (bp_codec_create(&t->codec) != BP_OK) {
		ret = bp_err_set(err, BP_ENOMEM, "out of memory");
		goto out;
	}

	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))) {
		ret = mdb_err(err, rc, "opening table", spec);
		goto out;
	}
	rc = mdb_dbi_open(txn, spec, 0, &t->dbi);
	if (rc == MDB_NOTFOUND && (flags & BP_STORE_CREATE)) {
		mdb_txn_abort(txn);
		txn = NULL;
		ret = table_create(s, spec, info, &t->dbi, &t->meta, err);
		goto out;
	}
	if (rc) {
		ret = rc == MDB_NOTFOUND ? bp_err_set(err, BP_ENOTFOUND, "no table %s", spec)
		      : rc == MDB_INCOMPATIBLE
			      ? bp_err_set(err, BP_EFORMAT, "%s: not a boardproof table", spec)
			      : mdb_err(err, rc, "opening table", spec);
		goto out;
	}
	ret = meta_read(txn, t->dbi, spec, &t->meta, err);
	if (ret == BP_OK && info)
		ret = meta_match(&t->meta, info, err);
	if (ret == BP_OK) {
		/* committing (not aborting) keeps the dbi handle for later transactions */
		rc = mdb_txn_commit(txn);
		txn = NULL;
		if (rc)
			ret = mdb_err(err, rc, "opening table", spec);
	}
out:
	if (txn)
		mdb_txn_abort(txn);
	if (ret != BP_OK) {
		bp_table_close(t);
		return ret;
	}
	*out = t;
	return BP_OK;
}

int bp_table_meta_get(bp_table *t, struct bp_table_meta *out)
{
	if (!t || !out)
		return BP_EINVAL;
	const struct bp_meta *m = &t->meta;
	*out = (struct bp_table_meta){
		.spec = m->spec,
		.format_version = m->format_version,
		.rules_version = m->rules_version,
		.tool_version = m->tool_version,
		.ntiers = m->ntiers,
		.block_records = m->block_records,
		.tier_size = m->tier_size,
		.tier_done = m->tier_done,
		.tier_count = m->tier_count,
		.stored_bytes = m->stored_bytes,
		.seconds = m->seconds,
		.peak_memory = m->peak_memory,
		.extra = m->extra,
	};
	return BP_OK;
}

static uint64_t nblocks(const bp_table *t, uint32_t tier)
{
	uint64_t b = t->meta.block_records;
	return (t->meta.tier_size[tier] + b - 1) / b;
}

/* Records in block `block` of `tier`. */
static uint32_t block_len(const bp_table *t, uint32_t tier, uint64_t block)
{
	uint64_t b = t->meta.block_records, start = block * b, size = t->meta.tier_size[tier];
	assert(start < size);
	return (uint32_t)(size - start < b ? size - start : b);
}

/* Figures: seconds replaces the stored time (the solver passes its running total);
 * peak memory keeps the largest ever reported, so a resumed solve does not hide the
 * peak of an earlier run; extra NULL keeps the stored lines. */
int bp_table_put_tier(bp_table *t, uint32_t tier, const uint16_t *records, double seconds,
		      uint64_t peak_memory, const char *extra)
{
	struct bp_meta m = { 0 };
	MDB_txn *txn = NULL;
	int rc, ret;
	if (!t || t->s->readonly || tier >= t->meta.ntiers ||
	    (!records && t->meta.tier_size[tier] > 0))
		return BP_EINVAL;
	if ((ret = bp_meta_copy(&m, &t->meta)) != BP_OK ||
	    (extra && (ret = bp_meta_set_extra(&m, extra)) != BP_OK))
		goto out;
	if ((rc = mdb_txn_begin(t->s->env, NULL, 0, &txn))) {
		ret = mdb_to_bp(rc) == BP_ENOMEM ? BP_ENOMEM : BP_EIO;
		goto out;
	}
	uint64_t count[4] = { 0 }, bytes = 0, n = nblocks(t, tier);
	for (uint64_t i = 0; i < t->meta.tier_size[tier]; i++)
		count[records[i] & 3]++;
	for (uint64_t b = 0; b < n; b++) {
		uint8_t key[BP_CODEC_KEY_SIZE];
		const void *val;
		size_t len;
		bp_codec_key(key, tier, b);
		ret = bp_codec_encode(t->codec, key, sizeof key, t->seed,
				      records + b * t->meta.block_records, block_len(t, tier, b),
				      t->level, &val, &len);
		if (ret != BP_OK)
			goto out;
		MDB_val k = { sizeof key, key }, v = { len, (void *)val };
		if ((rc = mdb_put(txn, t->dbi, &k, &v, 0))) {
			ret = mdb_to_bp(rc) == BP_ENOMEM ? BP_ENOMEM : BP_EIO;
			goto out;
		}
		bytes += len;
	}
	m.tier_done[tier] = 1;
	memcpy(m.tier_count + 4 * (size_t)tier, count, sizeof count);
	m.tier_bytes[tier] = bytes;
	m.stored_bytes = 0;
	for (uint32_t i = 0; i < m.ntiers; i++)
		m.stored_bytes += m.tier_bytes[i];
	m.seconds = seconds;
	m.peak_memory = peak_memory > m.peak_memory ? peak_memory : m.peak_memory;
	snprintf(m.tool_version, sizeof m.tool_version, "%s", BP_VERSION);
	if ((rc = meta_put(txn, t->dbi, &m))) {
		ret = rc == ENOMEM ? BP_ENOMEM : BP_EIO;
		goto out;
	}
	rc = mdb_txn_commit(txn); /* frees txn, also when it fails */
	txn = NULL;
	if (rc) {
		ret = BP_EIO;
		goto out;
	}
	bp_meta_free(&t->meta);
	t->meta = m;
	m = (struct bp_meta){ 0 };
	for (int i = 0; i < BP_CACHE_SLOTS; i++)
		if (t->cache[i].tier == tier)
			t->cache[i].used = 0;
	ret = BP_OK;
out:
	if (txn)
		mdb_txn_abort(txn);
	bp_meta_free(&m);
	return ret;
}

/* Starts (or renews) the table's read transaction. */
static int read_begin(bp_table *t)
{
	int rc = t->rtxn ? mdb_txn_renew(t->rtxn)
			 : mdb_txn_begin(t->s->env, NULL, MDB_RDONLY, &t->rtxn);
	return mdb_to_bp(rc);
}

/* Reads and decodes one block of a done tier in the open read transaction. A missing
 * block of a done tier is damage, not absence. */
static int read_block(bp_table *t, uint32_t tier, uint64_t block, uint16_t *records, int flags,
		      const char **why)
{
	uint8_t key[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, tier, block);
	MDB_val k = { sizeof key, key }, v;
	int rc = mdb_get(t->rtxn, t->dbi, &k, &v);
	if (rc == MDB_NOTFOUND) {
		*why = "missing block";
		return BP_ECORRUPT;
	}
	if (rc) {
		*why = mdb_strerror(rc);
		return mdb_to_bp(rc);
	}
	return bp_codec_decode(t->codec, key, sizeof key, t->seed, v.mv_data, v.mv_size, records,
			       block_len(t, tier, block), flags, why);
}

int bp_table_get_tier(bp_table *t, uint32_t tier, uint16_t *records)
{
	const char *why;
	if (!t || tier >= t->meta.ntiers)
		return BP_EINVAL;
	if (!t->meta.tier_done[tier])
		return BP_ENOTFOUND;
	int ret = read_begin(t);
	if (ret != BP_OK)
		return ret;
	uint64_t n = nblocks(t, tier);
	for (uint64_t b = 0; b < n && ret == BP_OK; b++)
		ret = read_block(t, tier, b, records + b * t->meta.block_records, 0, &why);
	mdb_txn_reset(t->rtxn);
	return ret;
}

int bp_table_get(bp_table *t, uint32_t tier, uint64_t index, uint16_t *record)
{
	if (!t || !record)
		return BP_EINVAL;
	if (tier >= t->meta.ntiers || !t->meta.tier_done[tier] || index >= t->meta.tier_size[tier])
		return BP_ENOTFOUND;
	uint64_t block = index / t->meta.block_records;
	struct cache_slot *victim = &t->cache[0];
	for (int i = 0; i < BP_CACHE_SLOTS; i++) {
		struct cache_slot *c = &t->cache[i];
		if (c->used && c->tier == tier && c->block == block) {
			c->used = ++t->clock;
			*record = c->records[index - block * t->meta.block_records];
			return BP_OK;
		}
		if (c->used < victim->used)
			victim = c;
	}
	if (!victim->records) {
		victim->records = malloc((size_t)t->meta.block_records * sizeof *victim->records);
		if (!victim->records)
			return BP_ENOMEM;
	}
	victim->used = 0;
	const char *why;
	int ret = read_begin(t);
	if (ret != BP_OK)
		return ret;
	/* the value checksum covers key, table and every stored byte: enough for a probe */
	ret = read_block(t, tier, block, victim->records, BP_CODEC_FAST, &why);
	mdb_txn_reset(t->rtxn);
	if (ret != BP_OK)
		return ret;
	victim->tier = tier;
	victim->block = block;
	victim->used = ++t->clock;
	*record = victim->records[index - block * t->meta.block_records];
	return BP_OK;
}

int bp_table_check_blocks(bp_table *t,
			  void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			  void *ctx)
{
	if (!t)
		return BP_EINVAL;
	if (!t->scratch) {
		t->scratch = malloc((size_t)t->meta.block_records * sizeof *t->scratch);
		if (!t->scratch)
			return BP_ENOMEM;
	}
	int ret = read_begin(t), nbad = 0;
	if (ret != BP_OK)
		return ret;
	for (uint32_t tier = 0; tier < t->meta.ntiers; tier++) {
		if (!t->meta.tier_done[tier])
			continue;
		uint64_t n = nblocks(t, tier);
		for (uint64_t b = 0; b < n; b++) {
			const char *why = NULL;
			ret = read_block(t, tier, b, t->scratch, 0, &why);
			if (ret == BP_ECORRUPT) {
				if (nbad < INT_MAX)
					nbad++;
				if (bad)
					bad(ctx, tier, b, why);
			} else if (ret != BP_OK) {
				goto out;
			}
		}
	}
	ret = nbad;
out:
	mdb_txn_reset(t->rtxn);
	return ret;
}
