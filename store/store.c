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
 *   ".KIND:SPEC"    key spaces of store/kv.h (added in format 1 without changing the
 *                   above: older readers never open them): ".proven:SPEC" values that
 *                   proof-number search proved, ".proof:SPEC" saved proof trees; their
 *                   keys and values are documented in solver/dfpn_db.c; store/kv.c
 *                   adds a checksum to each value and a record "kv:NAME" to the
 *                   header database (key-space format 2; format 1 had neither).
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
 * may open it at the same time. Whole-tier calls may start helper threads of their
 * own (bp_table_set_threads; see "Workers" below), which end before the call returns.
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
 * 16384 records and nothing at 65536, so there is none. Those figures are for zstd
 * blocks: a model-coded block (codec.c: only from level BP_CODEC_MODEL_LEVEL up,
 * where it is smaller) decodes at about 90 million records a CPU-second against zstd's 900, so on
 * taifas:4x4 (1.88 bits per position) a cold probe costs about 0.2 ms and bench_probe
 * gave 2,000 cold probes a second against 31,000-33,000 for the zstd table, side by
 * side at load 8.7 (warm probes are the same).
 *
 * A table given its structural holes (bp_table_set_mask) codes blocks without them
 * (codec.c, flag bit 2), and each cold read of such a block first asks the mask
 * function for the block's mask: on taifas:4x4 (1.06 bits per position instead of
 * 2.07) that costs about 50 us a 16384-record block, so bench_probe gave 10,000-12,000
 * cold probes a second against 39,000-53,000 for the same table with its holes,
 * side by side (2026-11-28); warm probes are the same. So, as with the model coding,
 * blocks are written without their holes only from level BP_CODEC_MODEL_LEVEL up (the
 * archival levels, which trade cold probes for space): the default level keeps the
 * target of 50,000 cold probes a second a core. Reads take either kind of block. */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include "store/store.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bp_config.h"
#include "store/codec.h"
#include "store/guard.h"
#include "store/meta.h"
#include "store/store_env.h"

#define BP_STORE_MAGIC "BPSTORE"
#define BP_STORE_MAP_SIZE ((size_t)256 << 30)
#define BP_STORE_MAX_DBS 4096
#define BP_STORE_MAX_READERS 1022
#define BP_DEFAULT_BLOCK_RECORDS 16384u
/* Decoded blocks kept per table for bp_table_get: enough for a position and all its
 * children to stay warm (a query), allocated as they are first used (128 KiB each at
 * the default block size). */
#define BP_CACHE_SLOTS 32
/* Blocks per worker in one batch of a whole-tier read or write, and the most raw
 * record bytes a batch may cover (which bounds the encoded blocks a write holds). */
#define BP_BATCH_PER_WORKER 128
#define BP_BATCH_BYTES ((uint64_t)64 << 20)

static const char bp_meta_key[4] = { 'm', 'e', 't', 'a' };

struct bp_store {
	MDB_env *env;
	int readonly;
	int ntables;	     /* open bp_table handles: atomic (threads open tables at once) */
	int fd;		     /* data.mdb, LMDB's descriptor */
	uint64_t file_bytes; /* data.mdb's length when last looked at (atomic) */
	char *data_path;     /* DIR/data.mdb, for messages */
};

struct cache_slot {
	uint32_t tier;
	uint64_t block;
	uint64_t used; /* last use, for LRU; 0 = empty */
	uint16_t *records;
};

struct bp_table {
	bp_store *s;
	int lockfd; /* writers.lock, holding this table's writer lock; -1 for readers */
	MDB_dbi dbi;
	uint64_t seed; /* bp_hash64(spec): mixed into every block checksum */
	int level;     /* zstd level for writes, 0 = codec default */
	struct bp_meta meta;
	MDB_txn *rtxn; /* reset read transaction, renewed for each read */
	bp_codec *codec;
	struct cache_slot cache[BP_CACHE_SLOTS];
	uint64_t clock;
	int threads;	   /* workers for whole-tier reads and writes (>= 1) */
	bp_codec **wcodec; /* nwcodec codecs of workers 1, 2, ... (worker 0 uses codec) */
	int nwcodec;
	char why[512];		  /* what the last failing bp_table_get or put found */
	bp_table_mask_fn mask_fn; /* bp_table_set_mask, or NULL */
	void *mask_ctx;
	uint64_t *mask;		    /* one block's mask, for reads on the calling thread */
	bp_table_hints_fn hints_fn; /* bp_table_set_hints, or NULL */
	void *hints_ctx;
	int hints_write;		 /* writes at the archival levels code with hints */
	uint64_t *hints;		 /* one block's hints, for reads on the calling thread */
	bp_table_put_progress_fn put_fn; /* bp_table_set_put_progress, or NULL */
	void *put_ctx;
	void *attached; /* bp_table_attach */
	void (*attached_free)(void *data);
};

/* Codes of the guarded LMDB reads below, next to LMDB's own (-30799..-30780) and errno
 * values: LMDB faulted or failed an assertion on a damaged page (caught by the guard),
 * or handed back a value that reaches past the end of data.mdb. */
#define STORE_MDB_FAULT (-30500)
#define STORE_MDB_OUTSIDE (-30501)

static const char *store_strerror(int rc)
{
	switch (rc) {
	case STORE_MDB_FAULT: return "damaged LMDB page (LMDB faulted reading it)";
	case STORE_MDB_OUTSIDE: return "damaged LMDB page (a value past the end of the file)";
	/* a write that did not fit, named by its cause: the map, or the file system */
	case MDB_MAP_FULL: return "database full (MDB_MAP_FULL: Environment mapsize limit reached)";
	case ENOSPC: return "disk full (No space left on device)";
	case EDQUOT: return "disk quota exceeded (Disk quota exceeded)";
	case EFBIG: return "file too large for the file system (File too large)";
	default: return mdb_strerror(rc);
	}
}

/* Translates an LMDB or errno code at the store's edge. */
static int mdb_to_bp(int rc)
{
	switch (rc) {
	case MDB_SUCCESS: return BP_OK;
	case STORE_MDB_FAULT:
	case STORE_MDB_OUTSIDE: return BP_ECORRUPT;
	case MDB_NOTFOUND: return BP_ENOTFOUND;
	case ENOENT: return BP_ENOTFOUND;
	case ENOMEM: return BP_ENOMEM;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND: return BP_ECORRUPT;
	case MDB_INVALID:
	case MDB_VERSION_MISMATCH:
	case MDB_INCOMPATIBLE: return BP_EFORMAT;
	case MDB_DBS_FULL: return BP_ERANGE;
	case MDB_READERS_FULL: return BP_EBUSY;
	default: return BP_EIO;
	}
}

static int mdb_err(struct bp_err *err, int rc, const char *what, const char *name)
{
	if (rc == MDB_READERS_FULL)
		return bp_err_set(err, BP_EBUSY,
				  "%s %s: every reader slot is taken (%d processes or tables are "
				  "reading the database at once); try again when some have ended",
				  what, name, BP_STORE_MAX_READERS);
	return bp_err_set(err, mdb_to_bp(rc), "%s %s: %s", what, name, store_strerror(rc));
}

/* Below this many free bytes left on data.mdb's file system, a failed write is taken
 * for a full disk. */
#define STORE_FULL_BYTES ((uint64_t)1 << 20)

void bp_store_write_why(bp_store *s, int rc, const char *during, char *buf, size_t n)
{
	struct statvfs fs;
	char when[64] = "";
	if (during)
		snprintf(when, sizeof when, " while %s", during);
	/* LMDB turns a short write (a disk that filled up during the write) into EIO:
	 * what the file system has left then tells the two apart */
	if (rc == EIO && s && fstatvfs(s->fd, &fs) == 0) {
		uint64_t left = (uint64_t)fs.f_bavail * fs.f_frsize;
		if (left < STORE_FULL_BYTES)
			snprintf(buf, n,
				 "disk full (a short write%s: Input/output error, with %llu bytes "
				 "left on the file system)",
				 when, (unsigned long long)left);
		else
			snprintf(buf, n, "i/o error%s to %s: Input/output error", when,
				 s->data_path ? s->data_path : "data.mdb");
	} else if (rc == EIO) {
		snprintf(buf, n, "i/o error%s to %s: Input/output error; the disk may be full",
			 when, s && s->data_path ? s->data_path : "data.mdb");
	} else if (rc == ENOMEM) {
		snprintf(buf, n, "out of memory");
	} else {
		snprintf(buf, n, "%s", store_strerror(rc));
	}
}

/* mdb_err for a failed write: a full map, a full disk, an I/O error while `during`. */
static int mdb_write_err(bp_store *s, struct bp_err *err, int rc, const char *during,
			 const char *what, const char *name)
{
	char why[512];
	if (rc != EIO && rc != ENOSPC && rc != MDB_MAP_FULL && rc != EDQUOT && rc != EFBIG)
		return mdb_err(err, rc, what, name);
	bp_store_write_why(s, rc, during, why, sizeof why);
	return bp_err_set(err, BP_EIO, "%s %s: %s", what, name, why);
}

/* ---- guarded reads ----
 *
 * LMDB trusts the pages of data.mdb, so a damaged page number or node offset makes it
 * read past the end of the file (SIGBUS) or of the map (SIGSEGV), or trip one of its
 * assertions (abort). Every LMDB call that reads pages on behalf of a reader (and
 * mdb_get in a write transaction, which reads just the same) runs under the fault
 * guard (store/guard.c, which explains why abandoning these calls is sound). Every
 * value LMDB hands back is touched, one byte per memory page, inside the same guarded
 * call, since the codec reads values on worker threads outside the guard: a damaged
 * node's length or overflow page number can point past the end of the file. A value
 * longer than the file is refused without touching it. (LMDB does not say where it
 * mapped the file, so the pointer itself cannot be checked against the map: past the
 * map lies either unmapped memory, which faults inside the guard, or the process's
 * own readable memory, whose bytes then fail the block's checksum.) A caught fault
 * becomes STORE_MDB_FAULT, reported as damage (BP_ECORRUPT); the caller resets its
 * read transaction before the next read. Writes (mdb_put, commits, mdb_dbi_open with
 * MDB_CREATE) are never guarded. */

static void lmdb_assert(MDB_env *env, const char *msg)
{
	(void)env;
	(void)msg;
	bp_guard_abandon(); /* inside a guarded read: return as a fault; else LMDB aborts */
}

/* Whether the n bytes at p can be a value of data.mdb: no longer than the file (looked
 * up again when a value seems to pass it: the file grows while a solve writes) and
 * readable (touched here, one byte per page: a fault is caught by the caller's guard).
 * Called inside a guarded call. */
static int value_ok(bp_store *s, const void *p, size_t n)
{
	if (n == 0)
		return 1;
	if (!p)
		return 0;
	uint64_t len = __atomic_load_n(&s->file_bytes, __ATOMIC_RELAXED);
	struct stat st;
	if (n > len) {
		if (fstat(s->fd, &st) != 0 || n > (uint64_t)st.st_size)
			return 0;
		__atomic_store_n(&s->file_bytes, (uint64_t)st.st_size, __ATOMIC_RELAXED);
	}
	const volatile unsigned char *c = p;
	unsigned sum = 0;
	for (size_t i = 0; i < n; i += 4096)
		sum += c[i];
	sum += c[n - 1];
	return sum < UINT_MAX; /* always: the reads are what matters */
}

struct get_op {
	bp_store *s;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val *k, *v;
	int rc;
};

static int get_fn(void *ctx)
{
	struct get_op *g = ctx;
	g->rc = mdb_get(g->txn, g->dbi, g->k, g->v);
	if (g->rc == 0 && !value_ok(g->s, g->v->mv_data, g->v->mv_size))
		g->rc = STORE_MDB_OUTSIDE;
	return BP_OK;
}

/* mdb_get under the guard, its value checked (value_ok). @return an LMDB code,
 * STORE_MDB_FAULT or STORE_MDB_OUTSIDE. */
static int safe_get(bp_store *s, MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v)
{
	struct get_op g = { s, txn, dbi, k, v, 0 };
	return bp_guard_call(get_fn, &g) != BP_OK ? STORE_MDB_FAULT : g.rc;
}

struct dbi_op {
	MDB_txn *txn;
	const char *name;
	MDB_dbi *dbi;
	MDB_stat *st; /* not NULL: mdb_stat too */
	int rc;
};

static int dbi_fn(void *ctx)
{
	struct dbi_op *d = ctx;
	d->rc = mdb_dbi_open(d->txn, d->name, 0, d->dbi);
	if (d->rc == 0 && d->st)
		d->rc = mdb_stat(d->txn, *d->dbi, d->st);
	return BP_OK;
}

/* mdb_dbi_open without MDB_CREATE (a search of the main database: a read), and
 * mdb_stat when st is not NULL, under the guard. @return an LMDB code or
 * STORE_MDB_FAULT. */
static int safe_dbi_open(MDB_txn *txn, const char *name, MDB_dbi *dbi, MDB_stat *st)
{
	struct dbi_op d = { txn, name, dbi, st, 0 };
	return bp_guard_call(dbi_fn, &d) != BP_OK ? STORE_MDB_FAULT : d.rc;
}

struct cursor_op {
	bp_store *s;
	MDB_cursor *cur;
	MDB_val *k, *v;
	MDB_cursor_op op;
	int rc;
};

static int cursor_fn(void *ctx)
{
	struct cursor_op *c = ctx;
	c->rc = mdb_cursor_get(c->cur, c->k, c->v, c->op);
	if (c->rc == 0 && (!value_ok(c->s, c->k->mv_data, c->k->mv_size) ||
			   !value_ok(c->s, c->v->mv_data, c->v->mv_size)))
		c->rc = STORE_MDB_OUTSIDE;
	return BP_OK;
}

/* mdb_cursor_get under the guard, its key and value checked (value_ok). */
static int safe_cursor_get(bp_store *s, MDB_cursor *cur, MDB_val *k, MDB_val *v, MDB_cursor_op op)
{
	struct cursor_op c = { s, cur, k, v, op, 0 };
	return bp_guard_call(cursor_fn, &c) != BP_OK ? STORE_MDB_FAULT : c.rc;
}

/* Before a table is written: every page a write transaction may read on its way,
 * walked with guarded reads. LMDB's writes are not guarded (a write abandoned half-way
 * would leave its transaction's state broken), and they read the pages of the tree
 * they insert into, the free list they take pages from and the main database that
 * names the tree: a damaged one of those would fault inside mdb_put. So each of the
 * three is walked whole first (every branch and leaf page, each value checked to lie
 * in the file), and damage found here refuses the write before it begins.
 * @return an LMDB code, STORE_MDB_FAULT or STORE_MDB_OUTSIDE; 0 when sound. */
static int preflight(bp_store *s, MDB_txn *txn, MDB_dbi table)
{
	const MDB_dbi dbis[] = { 0 /* the free list */, 1 /* the main database */, table };
	for (size_t i = 0; i < sizeof dbis / sizeof dbis[0]; i++) {
		MDB_cursor *cur;
		MDB_val k, v;
		int rc = mdb_cursor_open(txn, dbis[i], &cur);
		if (rc)
			return rc;
		for (rc = safe_cursor_get(s, cur, &k, &v, MDB_FIRST); rc == 0;
		     rc = safe_cursor_get(s, cur, &k, &v, MDB_NEXT))
			;
		if (rc != STORE_MDB_FAULT) /* abandoned: the cursor's state is no longer sound */
			mdb_cursor_close(cur);
		if (rc != MDB_NOTFOUND)
			return rc;
	}
	return 0;
}

/* The bytes of lock.mdb backed by the file system before LMDB maps it: LMDB's own
 * size for BP_STORE_MAX_READERS readers on Linux (one 64-byte slot each and a 192-byte
 * header); a lock file already longer is backed to its length. */
#define STORE_LOCK_BYTES ((off_t)65536)

/* LMDB makes lock.mdb a sparse file of STORE_LOCK_BYTES, maps it and writes through the
 * map: its header when it creates the file, a reader's slot when a read transaction
 * starts. On a full disk a page of a sparse file that nothing backs yet cannot be
 * written through a map: the process gets SIGBUS (a solve or prove creating a database
 * on a full disk died so). So every page of the lock file is allocated here, before
 * LMDB opens it (not after: closing a descriptor of the file would drop LMDB's fcntl
 * locks on it), without changing its length (LMDB sizes it, and reads its reader count
 * from that). A full disk is then an error here, by name; a file system that cannot
 * allocate ahead (EOPNOTSUPP) is left to LMDB as before. A read-only open does not
 * create the file, and backs an existing one only when it may write it. */
static int lock_reserve(const char *dir, int readonly, struct bp_err *err)
{
	char path[4096];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/lock.mdb", dir) >= (int)sizeof path)
		return BP_OK;
	int fd = open(path, O_RDWR | O_CLOEXEC | (readonly ? 0 : O_CREAT), 0664);
	if (fd < 0)
		return BP_OK; /* LMDB says what is wrong when it opens the file */
	off_t len = fstat(fd, &st) == 0 && st.st_size > STORE_LOCK_BYTES ? st.st_size
									 : STORE_LOCK_BYTES;
	int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, len) == 0 ? 0 : errno;
	close(fd);
	if (rc == ENOSPC || rc == EDQUOT)
		return bp_err_set(err, BP_EIO, "opening %s: %s: LMDB's lock file needs %lld bytes",
				  dir, store_strerror(rc), (long long)len);
	return BP_OK;
}

/* Reads how long data.mdb is, and checks that the file
 * holds every page the newest meta page counts: a truncated data.mdb (a copy cut
 * short, a full disk during a copy) or a damaged page count is reported here, by name,
 * rather than as damage to whichever block first points past the end. */
static int map_check(bp_store *s, const char *dir, struct bp_err *err)
{
	MDB_envinfo info;
	MDB_stat st;
	struct stat fs;
	int rc;
	if ((rc = mdb_env_info(s->env, &info)) || (rc = mdb_env_stat(s->env, &st)) ||
	    (rc = mdb_env_get_fd(s->env, &s->fd)))
		return mdb_err(err, rc, "opening", dir);
	if (fstat(s->fd, &fs) != 0)
		return bp_err_set(err, BP_EIO, "%s/data.mdb: %s", dir, strerror(errno));
	s->file_bytes = (uint64_t)fs.st_size;
	uint64_t need = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
	if (need > (uint64_t)fs.st_size)
		return bp_err_set(err, BP_ECORRUPT,
				  "%s/data.mdb: damaged: %llu bytes long but its newest meta "
				  "page counts %llu pages of %u bytes (truncated, or the meta "
				  "page is damaged)",
				  dir, (unsigned long long)fs.st_size,
				  (unsigned long long)info.me_last_pgno + 1, st.ms_psize);
	return BP_OK;
}

/* ---- the table registry ----
 *
 * The names of the tables are the keys of LMDB's main database, which no checksum
 * covers: a flipped byte in its leaf page can hide a table from a walk (a node count
 * cut short, a key length made huge), and `verify` would then report every table of
 * the database fine while skipping one. So the header database also keeps the list of
 * table names, with a checksum, written in the transaction that creates each table:
 *
 *   ".boardproof" key "tables" ->  offset 0  8 bytes  magic "BPTABLES"
 *                                         8  4 bytes  n, little-endian
 *                                        12           n names, each ending in a 0 byte
 *                                        end - 8      bp_hash64(all bytes before, 0)
 *
 * bp_store_tables walks the main database and compares: a table in one list and not
 * the other, a damaged registry or a name that is no name is damage (BP_ECORRUPT). A
 * database written before the registry existed has none, and is listed by the walk
 * alone until a solve creates its next table (which writes the registry). */

static const char bp_registry_key[6] = { 't', 'a', 'b', 'l', 'e', 's' };
#define BP_REGISTRY_MAGIC "BPTABLES"

struct names {
	char **v;
	uint32_t n;
};

static void names_free(struct names *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct names){ 0 };
}

static int names_has(const struct names *l, const char *name, size_t len)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && memcmp(l->v[i], name, len) == 0)
			return 1;
	return 0;
}

static int names_add(struct names *l, const char *name, size_t len)
{
	if (names_has(l, name, len))
		return BP_OK;
	char **v = realloc(l->v, sizeof *v * ((size_t)l->n + 1));
	if (!v)
		return BP_ENOMEM;
	l->v = v;
	if (!(v[l->n] = malloc(len + 1)))
		return BP_ENOMEM;
	memcpy(v[l->n], name, len);
	v[l->n++][len] = 0;
	return BP_OK;
}

/* A table name as the main database may hold it: 1 to 255 bytes, printable ASCII,
 * not starting with '.' (the store's own databases). */
static int good_name(const char *p, size_t len)
{
	if (len == 0 || len >= sizeof((struct bp_table_info *)0)->spec || p[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return 0;
	return 1;
}

static int registry_decode(const uint8_t *p, size_t len, struct names *l)
{
	if (len < 20 || memcmp(p, BP_REGISTRY_MAGIC, 8) != 0)
		return BP_ECORRUPT;
	uint64_t sum = 0;
	for (int i = 0; i < 8; i++)
		sum |= (uint64_t)p[len - 8 + (size_t)i] << 8 * i;
	if (sum != bp_hash64(p, len - 8, 0))
		return BP_ECORRUPT;
	uint32_t n = p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
	size_t at = 12;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *end = memchr(p + at, 0, len - 8 - at);
		if (!end || !good_name((const char *)p + at, (size_t)(end - p) - at))
			return BP_ECORRUPT;
		int ret = names_add(l, (const char *)p + at, (size_t)(end - p) - at);
		if (ret != BP_OK)
			return ret;
		at = (size_t)(end - p) + 1;
	}
	return at == len - 8 && l->n == n ? BP_OK : BP_ECORRUPT;
}

/* Writes the registry l under the header database in txn. @return an LMDB code. */
static int registry_put(MDB_txn *txn, MDB_dbi hdr, const struct names *l)
{
	size_t len = 20;
	for (uint32_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	uint8_t *buf = malloc(len);
	if (!buf)
		return ENOMEM;
	memcpy(buf, BP_REGISTRY_MAGIC, 8);
	for (int i = 0; i < 4; i++)
		buf[8 + i] = (uint8_t)(l->n >> 8 * i);
	size_t at = 12;
	for (uint32_t i = 0; i < l->n; i++) {
		size_t n = strlen(l->v[i]) + 1;
		memcpy(buf + at, l->v[i], n);
		at += n;
	}
	uint64_t sum = bp_hash64(buf, at, 0);
	for (int i = 0; i < 8; i++)
		buf[at + (size_t)i] = (uint8_t)(sum >> 8 * i);
	MDB_val k = { sizeof bp_registry_key, (void *)bp_registry_key }, v = { len, buf };
	int rc = mdb_put(txn, hdr, &k, &v, 0);
	free(buf);
	return rc;
}

/* Walks the main database in txn: the table names into l (when not NULL), and
 * whether the header database was seen. @return an LMDB or store code; BP_ECORRUPT as
 * STORE_MDB_FAULT for a key that is neither. */
static int walk_names_of(bp_store *s, MDB_txn *txn, struct names *l, int *header, int spaces);

static int walk_names(bp_store *s, MDB_txn *txn, struct names *l, int *header)
{
	return walk_names_of(s, txn, l, header, 0);
}

/* walk_names, listing into l the tables (spaces 0) or the key spaces (1: the names
 * that start with '.', the store's header database left out). */
static int walk_names_of(bp_store *s, MDB_txn *txn, struct names *l, int *header, int spaces)
{
	MDB_cursor *cur = NULL;
	MDB_dbi main;
	MDB_val k, v;
	int rc;
	*header = 0;
	if ((rc = safe_dbi_open(txn, NULL, &main, NULL)) || (rc = mdb_cursor_open(txn, main, &cur)))
		return rc;
	for (rc = safe_cursor_get(s, cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = safe_cursor_get(s, cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size == sizeof BP_STORE_HEADER_DB - 1 &&
		    memcmp(k.mv_data, BP_STORE_HEADER_DB, k.mv_size) == 0) {
			*header = 1;
			continue;
		}
		/* the store's own spaces (".boardproof", bp_kv's key spaces) start with
		 * '.'; they must still be names */
		const char *key = k.mv_data;
		int own = k.mv_size > 1 && key[0] == '.' && good_name(key + 1, k.mv_size - 1);
		if (own != spaces) {
			if (own || good_name(k.mv_data, k.mv_size))
				continue;
			rc = STORE_MDB_OUTSIDE;
			break;
		}
		if (!own && !good_name(k.mv_data, k.mv_size)) {
			rc = STORE_MDB_OUTSIDE;
			break;
		}
		if (l && names_add(l, k.mv_data, k.mv_size) != BP_OK) {
			rc = ENOMEM;
			break;
		}
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* In a write transaction creating (add) or dropping (!add) table spec: adds it to the
 * registry (made from a walk of the main database when there is none yet) or takes it
 * out. @return an LMDB code. */
static int registry_update(bp_store *s, MDB_txn *txn, const char *spec, int add)
{
	MDB_dbi hdr;
	MDB_val k = { sizeof bp_registry_key, (void *)bp_registry_key }, v;
	struct names l = { 0 };
	int header, rc = safe_dbi_open(txn, BP_STORE_HEADER_DB, &hdr, NULL);
	if (rc)
		return rc;
	rc = safe_get(s, txn, hdr, &k, &v);
	if (rc == 0) {
		int ret = registry_decode(v.mv_data, v.mv_size, &l);
		rc = ret == BP_ENOMEM ? ENOMEM : ret != BP_OK ? MDB_CORRUPTED : 0;
	} else if (rc == MDB_NOTFOUND) {
		if (!add)
			return 0; /* a database from before the registry */
		rc = walk_names(s, txn, &l, &header);
	}
	if (rc == 0 && add)
		rc = names_add(&l, spec, strlen(spec)) == BP_OK ? registry_put(txn, hdr, &l)
								: ENOMEM;
	if (rc == 0 && !add) {
		for (uint32_t i = 0; i < l.n; i++)
			if (strcmp(l.v[i], spec) == 0) {
				free(l.v[i]);
				l.v[i] = l.v[--l.n];
				break;
			}
		rc = registry_put(txn, hdr, &l);
	}
	names_free(&l);
	return rc;
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

static int header_check(bp_store *s, MDB_txn *txn, MDB_dbi hdr, const char *dir, struct bp_err *err)
{
	MDB_val k = { 6, "header" }, v;
	int rc = safe_get(s, txn, hdr, &k, &v);
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
static int header_create(bp_store *s, const char *dir, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	MDB_dbi main, hdr;
	MDB_stat st;
	int rc = mdb_txn_begin(s->env, NULL, 0, &txn), ret;
	if (rc || (rc = safe_dbi_open(txn, NULL, &main, &st))) {
		ret = mdb_err(err, rc, "creating", dir);
		goto out;
	}
	if (st.ms_entries != 0) {
		/* another process may have won the race: then the header is there */
		rc = safe_dbi_open(txn, BP_STORE_HEADER_DB, &hdr, NULL);
		if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE)
			ret = bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database", dir);
		else if (rc)
			ret = mdb_err(err, rc, "opening", dir);
		else
			ret = header_check(s, txn, hdr, dir, err);
		goto out;
	}
	uint8_t buf[12 + sizeof BP_VERSION];
	memcpy(buf, BP_STORE_MAGIC, 8);
	for (int i = 0; i < 4; i++)
		buf[8 + i] = (uint8_t)(BP_STORE_FORMAT >> 8 * i);
	memcpy(buf + 12, BP_VERSION, sizeof BP_VERSION - 1);
	MDB_val k = { 6, "header" }, v = { 12 + sizeof BP_VERSION - 1, buf };
	struct names none = { 0 };
	if ((rc = mdb_dbi_open(txn, BP_STORE_HEADER_DB, MDB_CREATE, &hdr)) ||
	    (rc = mdb_put(txn, hdr, &k, &v, 0)) || (rc = registry_put(txn, hdr, &none))) {
		ret = mdb_write_err(s, err, rc, "writing", "creating", dir);
		goto out;
	}
	rc = mdb_txn_commit(txn);
	txn = NULL;
	ret = rc ? mdb_write_err(s, err, rc, "committing", "creating", dir) : BP_OK;
out:
	if (txn)
		mdb_txn_abort(txn);
	return ret;
}

/* LMDB's magic number, at the start of each of the two meta pages' contents (after
 * the 16-byte page header); LMDB 0.9 writes pages of the system's size, 4 KiB here. */
#define STORE_LMDB_MAGIC 0xBEEFC0DEu
#define STORE_META_AT 16
#define STORE_PAGE 4096

/* Whether a data.mdb LMDB called invalid (MDB_INVALID) is a damaged LMDB file rather
 * than a file of something else: shorter than its two meta pages, or one meta page
 * unreadable while the other is sound (LMDB gives up at either). @return
 * BP_ECORRUPT naming it, or BP_OK (not recognisably LMDB's: another format). */
static int meta_damage(const char *path, struct bp_err *err)
{
	unsigned char b[2 * STORE_PAGE];
	uint32_t m0 = 0, m1 = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return BP_OK;
	ssize_t n = pread(fd, b, sizeof b, 0);
	close(fd);
	if (n < 0)
		return BP_OK;
	if (n >= STORE_META_AT + 4)
		memcpy(&m0, b + STORE_META_AT, 4);
	if (n >= STORE_PAGE + STORE_META_AT + 4)
		memcpy(&m1, b + STORE_PAGE + STORE_META_AT, 4);
	if (n < (ssize_t)sizeof b && (m0 == STORE_LMDB_MAGIC || m1 == STORE_LMDB_MAGIC || n < 64))
		return bp_err_set(
			err, BP_ECORRUPT,
			"%s: damaged: %lld bytes long, shorter than LMDB's two meta pages "
			"(cut short?)",
			path, (long long)n);
	if ((m0 == STORE_LMDB_MAGIC) != (m1 == STORE_LMDB_MAGIC))
		return bp_err_set(err, BP_ECORRUPT,
				  "%s: damaged: the %s of LMDB's two meta pages is unreadable (the "
				  "%s is sound, but LMDB reads both)",
				  path, m0 == STORE_LMDB_MAGIC ? "second" : "first",
				  m0 == STORE_LMDB_MAGIC ? "first" : "second");
	return BP_OK;
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
			return bp_err_set(err, BP_EIO, "creating %s: %s", dir, store_strerror(rc));
	} else if (!S_ISDIR(st.st_mode)) {
		return bp_err_set(err, BP_EFORMAT, "%s: not a directory", dir);
	}
	int fresh = stat(path, &st) != 0;
	if (fresh && !create)
		return bp_err_set(err, BP_ENOTFOUND, "%s: no database here", dir);
	/* data.mdb replaced by a directory, a FIFO (opening it to read would wait for a
	 * writer for ever), a device (a link to /dev/zero) or a socket: never handed to
	 * LMDB */
	if (!fresh && !S_ISREG(st.st_mode))
		return bp_err_set(err, BP_EFORMAT, "%s: not a regular file (%s): not a database",
				  path,
				  S_ISDIR(st.st_mode)			       ? "a directory"
				  : S_ISFIFO(st.st_mode)		       ? "a FIFO"
				  : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
									       : "a socket");
	/* LMDB writes the first two pages when it creates data.mdb; an empty file is a
	 * creation that failed (a full disk, an I/O error), which solve completes */
	if (!fresh && st.st_size == 0 && !create)
		return bp_err_set(err, BP_ENOTFOUND,
				  "%s: no database here (data.mdb is empty: its creation was "
				  "interrupted)",
				  dir);

	s = calloc(1, sizeof *s);
	if (!s || !(s->data_path = strdup(path))) {
		free(s); /* free(NULL) when s itself failed */
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	}
	s->readonly = readonly;
	/* The map is address space, not memory, but a process may have little of it
	 * (ulimit -v, Valgrind): when mapping 256 GiB fails, smaller maps are tried, down
	 * to 1 GiB (LMDB maps at least the whole file whatever is asked). A solve then
	 * stops with a clear "map full" error if its table outgrows the map. */
	if ((ret = lock_reserve(dir, readonly, err)) != BP_OK)
		goto out;
	static const uint64_t maps[] = { BP_STORE_MAP_SIZE, (uint64_t)32 << 30, (uint64_t)4 << 30,
					 (uint64_t)1 << 30 };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
		if ((rc = mdb_env_create(&s->env)) ||
		    (rc = mdb_env_set_maxdbs(s->env, BP_STORE_MAX_DBS)) ||
		    (rc = mdb_env_set_maxreaders(s->env, BP_STORE_MAX_READERS)) ||
		    (rc = mdb_env_set_mapsize(s->env, (size_t)maps[i]))) {
			ret = mdb_err(err, rc, "opening", dir);
			goto out;
		}
		rc = mdb_env_open(s->env, dir, MDB_NOTLS | (readonly ? MDB_RDONLY : 0), 0664);
		if ((rc != ENOMEM && rc != EINVAL) || i + 1 == sizeof maps / sizeof maps[0])
			break;
		mdb_env_close(s->env);
		s->env = NULL;
	}
	if (rc) {
		if (rc == MDB_INVALID && (ret = meta_damage(path, err)) != BP_OK)
			goto out;
		if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH)
			ret = bp_err_set(err, BP_EFORMAT, "%s: not a boardproof database (%s)", dir,
					 mdb_strerror(rc));
		else
			ret = mdb_err(err, rc, "opening", dir);
		goto out;
	}
	mdb_env_set_assert(s->env, lmdb_assert);
	if ((ret = map_check(s, dir, err)) != BP_OK)
		goto out;

	/* Check the header in a read transaction, so that opening never waits for a
	 * writer; only an empty environment gets a header written. */
	MDB_dbi main, hdr;
	MDB_stat ms;
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = safe_dbi_open(txn, NULL, &main, &ms))) {
		ret = mdb_err(err, rc, "opening", dir);
		goto out;
	}
	rc = safe_dbi_open(txn, BP_STORE_HEADER_DB, &hdr, NULL);
	if (rc == MDB_NOTFOUND && ms.ms_entries == 0 && create) {
		mdb_txn_abort(txn);
		txn = NULL;
		ret = header_create(s, dir, err);
		goto out;
	}
	if (rc == MDB_NOTFOUND && ms.ms_entries == 0) {
		ret = bp_err_set(err, BP_ENOTFOUND,
				 "%s: no database here (an empty LMDB environment: its creation "
				 "was interrupted)",
				 dir);
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
	ret = header_check(s, txn, hdr, dir, err);
out:
	if (txn)
		mdb_txn_abort(txn);
	if (ret != BP_OK) {
		if (s && s->env)
			mdb_env_close(s->env);
		if (s)
			free(s->data_path);
		free(s);
		return ret;
	}
	*out = s;
	return BP_OK;
}

const char *bp_store_path(const bp_store *s)
{
	const char *dir = NULL;
	return s && mdb_env_get_path(s->env, &dir) == 0 && dir ? dir : "";
}

void bp_store_close(bp_store *s)
{
	if (!s)
		return;
	assert(__atomic_load_n(&s->ntables, __ATOMIC_ACQUIRE) == 0);
	mdb_env_close(s->env);
	free(s->data_path);
	free(s);
}

int bp_store_set_map_size(bp_store *s, uint64_t bytes)
{
	if (!s || bytes > SIZE_MAX)
		return BP_EINVAL;
	int rc = mdb_env_set_mapsize(s->env, (size_t)bytes);
	return rc == EINVAL ? BP_EINVAL : mdb_to_bp(rc);
}

/* Whether the registry (readable, checksum right) names spec. */
static int registry_has(bp_store *s, MDB_txn *txn, const char *spec)
{
	MDB_dbi hdr;
	MDB_val k = { sizeof bp_registry_key, (void *)bp_registry_key }, v;
	struct names l = { 0 };
	int has = safe_dbi_open(txn, BP_STORE_HEADER_DB, &hdr, NULL) == 0 &&
		  safe_get(s, txn, hdr, &k, &v) == 0 &&
		  registry_decode(v.mv_data, v.mv_size, &l) == BP_OK &&
		  names_has(&l, spec, strlen(spec));
	names_free(&l);
	return has;
}

int bp_store_tables(bp_store *s, void (*fn)(void *ctx, const char *spec), void *ctx)
{
	MDB_txn *txn = NULL;
	MDB_dbi hdr;
	MDB_val k = { sizeof bp_registry_key, (void *)bp_registry_key }, v;
	struct names walked = { 0 }, reg = { 0 };
	int rc, ret = BP_OK, header;
	if (!s || !fn)
		return BP_EINVAL;
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = walk_names(s, txn, &walked, &header)) ||
	    (rc = safe_dbi_open(txn, BP_STORE_HEADER_DB, &hdr, NULL))) {
		ret = mdb_to_bp(rc);
		goto out;
	}
	if (!header) { /* opened by name when the store opened: the walk missed it */
		ret = BP_ECORRUPT;
		goto out;
	}
	rc = safe_get(s, txn, hdr, &k, &v);
	if (rc == 0) {
		if ((ret = registry_decode(v.mv_data, v.mv_size, &reg)) != BP_OK)
			goto out;
		for (uint32_t i = 0; i < reg.n && ret == BP_OK; i++)
			if (!names_has(&walked, reg.v[i], strlen(reg.v[i])))
				ret = BP_ECORRUPT;
		for (uint32_t i = 0; i < walked.n && ret == BP_OK; i++)
			if (!names_has(&reg, walked.v[i], strlen(walked.v[i])))
				ret = BP_ECORRUPT;
	} else if (rc != MDB_NOTFOUND) { /* none: a database from before the registry */
		ret = mdb_to_bp(rc);
	}
	mdb_txn_abort(txn);
	txn = NULL;
	for (uint32_t i = 0; i < walked.n && ret == BP_OK; i++)
		fn(ctx, walked.v[i]);
out:
	if (txn)
		mdb_txn_abort(txn);
	names_free(&walked);
	names_free(&reg);
	return ret;
}

int bp_store_spaces(bp_store *s, void (*fn)(void *ctx, const char *name), void *ctx)
{
	MDB_txn *txn = NULL;
	struct names walked = { 0 };
	int header, rc;
	if (!s || !fn)
		return BP_EINVAL;
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)))
		return mdb_to_bp(rc);
	rc = walk_names_of(s, txn, &walked, &header, 1);
	mdb_txn_abort(txn); /* fn may open what it is told of */
	int ret = rc ? mdb_to_bp(rc) : BP_OK;
	for (uint32_t i = 0; i < walked.n && ret == BP_OK; i++)
		fn(ctx, walked.v[i]);
	names_free(&walked);
	return ret;
}

int bp_store_drop_table(bp_store *s, const char *spec, struct bp_err *err)
{
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	int rc;
	if (!s || !spec || !*spec || spec[0] == '.')
		return bp_err_set(err, BP_EINVAL, "bad table name '%s'", spec ? spec : "");
	if (s->readonly || __atomic_load_n(&s->ntables, __ATOMIC_ACQUIRE))
		return bp_err_set(err, BP_EINVAL, "table %s: cannot drop it %s", spec,
				  s->readonly ? "from a read-only store" : "while tables are open");
	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)))
		return mdb_err(err, rc, "dropping table", spec);
	rc = mdb_dbi_open(txn, spec, 0, &dbi);
	if (rc == MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return bp_err_set(err, BP_ENOTFOUND, "no table %s", spec);
	}
	/* mdb_drop with del = 1 deletes the named database and closes its handle */
	if (rc || (rc = mdb_drop(txn, dbi, 1)) || (rc = registry_update(s, txn, spec, 0))) {
		mdb_txn_abort(txn);
		return mdb_write_err(s, err, rc, "writing", "dropping table", spec);
	}
	if ((rc = mdb_txn_commit(txn)))
		return mdb_write_err(s, err, rc, "committing", "dropping table", spec);
	return BP_OK;
}

/* ---- tables ---- */

static int rules_mismatch(const struct bp_meta *m, uint32_t rules_version, struct bp_err *err)
{
	return bp_err_set(err, BP_ERULES,
			  "table %s was solved under rules version %u, but this build implements "
			  "rules version %u",
			  m->spec, m->rules_version, rules_version);
}

int bp_table_check_rules(bp_table *t, uint32_t rules_version, struct bp_err *err)
{
	if (!t)
		return BP_EINVAL;
	return t->meta.rules_version == rules_version
		       ? BP_OK
		       : rules_mismatch(&t->meta, rules_version, err);
}

/* Compares stored metadata with what the caller expects; names the first difference. */
static int meta_match(const struct bp_meta *m, const struct bp_table_info *info, struct bp_err *err)
{
	if (strcmp(m->spec, info->spec) != 0)
		return bp_err_set(err, BP_EFORMAT, "table %s holds %s", info->spec, m->spec);
	if (m->rules_version != info->rules_version)
		return rules_mismatch(m, info->rules_version, err);
	if (m->ntiers != info->ntiers)
		return bp_err_set(err, BP_EFORMAT, "table %s: %u tiers stored, %u expected",
				  info->spec, m->ntiers, info->ntiers);
	for (uint32_t i = 0; i < m->ntiers; i++)
		if (m->tier_size[i] != info->tier_size[i])
			return bp_err_set(
				err, BP_EFORMAT,
				"table %s: tier %u has %llu records stored, %llu expected: the "
				"tier sizes differ, so the table was written with another index "
				"layout; re-solve it (solve --replace)",
				info->spec, i, (unsigned long long)m->tier_size[i],
				(unsigned long long)info->tier_size[i]);
	if (info->block_records && m->block_records != info->block_records)
		return bp_err_set(err, BP_EFORMAT,
				  "table %s: %u records per block stored, %u asked for", info->spec,
				  m->block_records, info->block_records);
	return BP_OK;
}

/* Reads and decodes the metadata of an open table database. */
static int meta_read(bp_store *s, MDB_txn *txn, MDB_dbi dbi, const char *spec, struct bp_meta *m,
		     struct bp_err *err)
{
	MDB_val k = { sizeof bp_meta_key, (void *)bp_meta_key }, v;
	int rc = safe_get(s, txn, dbi, &k, &v);
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
	if (ret == BP_ENOMEM)
		return bp_err_set(err, ret, "table %s: out of memory reading its metadata", spec);
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

/* One writer per table: a table opened for writing (BP_STORE_CREATE, what a solve
 * does) holds an exclusive lock on one byte of DIR/writers.lock, at an offset hashed
 * from its spec, until it is closed. A second solve of the same table, in this or
 * another process, is refused at once instead of computing the same tiers again and
 * rewriting them. LMDB alone would let both run, taking turns at each transaction:
 * nothing would be corrupted, but the work would be done twice and each solve's
 * figures would be the other's. Open file description locks (F_OFD_SETLK) belong to
 * the descriptor, so they hold between handles of one process too, and the kernel
 * drops them when the process dies: a killed solve never leaves a stale lock. Two
 * tables whose offsets collide (one chance in 2^31 per pair) could not be solved at
 * the same moment, nothing worse. */
static int writer_lock(bp_store *s, const char *spec, int *out, struct bp_err *err)
{
	const char *dir;
	char path[4096];
	int rc = mdb_env_get_path(s->env, &dir);
	if (rc)
		return mdb_err(err, rc, "locking table", spec);
	if (snprintf(path, sizeof path, "%s/writers.lock", dir) >= (int)sizeof path)
		return bp_err_set(err, BP_EINVAL, "%s: path too long", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0664);
	if (fd < 0)
		return bp_err_set(err, BP_EIO, "%s: %s", path, store_strerror(errno));
	struct flock fl = { .l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = (off_t)(bp_hash64(spec, strlen(spec), 1) & 0x7fffffff),
			    .l_len = 1 };
	if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
		int e = errno;
		close(fd);
		if (e == EAGAIN || e == EACCES)
			return bp_err_set(err, BP_EBUSY,
					  "table %s is being solved by another process (or "
					  "handle); run one solve of a table at a time",
					  spec);
		return bp_err_set(err, BP_EIO, "locking %s: %s", path, strerror(e));
	}
	*out = fd;
	return BP_OK;
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
	rc = safe_get(s, txn, *dbi, &k, &v);
	if (rc == 0) {
		ret = meta_read(s, txn, *dbi, spec, m, err);
		if (ret == BP_OK)
			ret = meta_match(m, info, err);
		goto out;
	}
	if (rc != MDB_NOTFOUND) { /* damage is not absence: never write over it */
		ret = mdb_err(err, rc, "reading table", spec);
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
	if ((rc = meta_put(txn, *dbi, m)) != 0 || (rc = registry_update(s, txn, spec, 1)) != 0) {
		ret = mdb_write_err(s, err, rc, "writing", "creating table", spec);
		goto out;
	}
	rc = mdb_txn_commit(txn);
	txn = NULL;
	ret = rc ? mdb_write_err(s, err, rc, "committing", "creating table", spec) : BP_OK;
out:
	if (txn)
		mdb_txn_abort(txn);
	return ret;
}

void bp_table_attach(bp_table *t, void *data, void (*free_fn)(void *data))
{
	if (t->attached && t->attached_free)
		t->attached_free(t->attached);
	t->attached = data;
	t->attached_free = free_fn;
}

void *bp_table_attached(const bp_table *t)
{
	return t->attached;
}

void bp_table_close(bp_table *t)
{
	if (!t)
		return;
	bp_table_attach(t, NULL, NULL);
	if (t->lockfd >= 0)
		close(t->lockfd); /* releases the writer lock */
	if (t->rtxn)
		mdb_txn_abort(t->rtxn);
	bp_codec_destroy(t->codec);
	for (int i = 0; i < t->nwcodec; i++)
		bp_codec_destroy(t->wcodec[i]);
	free(t->wcodec);
	for (int i = 0; i < BP_CACHE_SLOTS; i++)
		free(t->cache[i].records);
	free(t->mask);
	free(t->hints);
	bp_meta_free(&t->meta);
	__atomic_fetch_sub(&t->s->ntables, 1, __ATOMIC_ACQ_REL);
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
	t->lockfd = -1;
	t->threads = 1;
	__atomic_fetch_add(&s->ntables, 1, __ATOMIC_ACQ_REL);
	t->seed = bp_hash64(spec, strlen(spec), 0);
	t->level = info ? info->compression_level : 0;
	if (bp_codec_create(&t->codec) != BP_OK) {
		ret = bp_err_set(err, BP_ENOMEM, "out of memory");
		goto out;
	}
	if ((flags & BP_STORE_CREATE) && (ret = writer_lock(s, spec, &t->lockfd, err)) != BP_OK)
		goto out;

	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))) {
		ret = mdb_err(err, rc, "opening table", spec);
		goto out;
	}
	rc = safe_dbi_open(txn, spec, &t->dbi, NULL);
	if (rc == MDB_NOTFOUND && (flags & BP_STORE_CREATE)) {
		mdb_txn_abort(txn);
		txn = NULL;
		ret = table_create(s, spec, info, &t->dbi, &t->meta, err);
		goto out;
	}
	if (rc == MDB_NOTFOUND && registry_has(s, txn, spec)) {
		ret = bp_err_set(err, BP_ECORRUPT,
				 "table %s: damaged: the registry lists it but LMDB's main "
				 "database has lost it",
				 spec);
		goto out;
	}
	if (rc) {
		ret = rc == MDB_NOTFOUND ? bp_err_set(err, BP_ENOTFOUND, "no table %s", spec)
		      : rc == MDB_INCOMPATIBLE
			      ? bp_err_set(err, BP_EFORMAT, "%s: not a boardproof table", spec)
			      : mdb_err(err, rc, "opening table", spec);
		goto out;
	}
	ret = meta_read(s, txn, t->dbi, spec, &t->meta, err);
	if (ret == BP_OK && info)
		ret = meta_match(&t->meta, info, err);
	if (ret == BP_OK && (flags & BP_STORE_CREATE) && (rc = preflight(s, txn, t->dbi)))
		ret = rc == STORE_MDB_FAULT || rc == STORE_MDB_OUTSIDE
			      ? bp_err_set(err, BP_ECORRUPT,
					   "table %s: damaged: %s, on a page that writing would "
					   "read; nothing was written (run verify; solve into a "
					   "new database)",
					   spec, store_strerror(rc))
			      : mdb_err(err, rc, "opening table", spec);
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

/* ---- workers ----
 *
 * Whole-tier writes and reads (and bp_table_check_blocks) cut a tier into batches of
 * consecutive blocks. The blocks of a batch are encoded or decoded by t->threads
 * workers at once, each with a codec of its own, while every LMDB call stays on the
 * calling thread, in block order:
 *
 *   put:  encode batch k on all workers -> mdb_put its blocks in order -> batch k + 1
 *   get:  mdb_get batch k in order      -> decode it on all workers    -> batch k + 1
 *
 * So a write makes exactly the calls, in the same transaction and order, that one
 * thread would (zstd's output depends only on the input and the level, not on the
 * context or the thread), and stores the same bytes; a read sees one snapshot. LMDB
 * lets only one thread use a transaction, but the values it returns are plain bytes
 * of the map, valid while the transaction is open, which any thread may read. Each
 * block's outcome is kept, and the caller takes them in block order, so the first
 * failing block decides the result exactly as in a walk by one thread (every block
 * before it has been processed in full).
 *
 * Why batches and not a pipeline: a batch costs a barrier, and the workers idle while
 * the calling thread does a batch's LMDB calls, but with 128 blocks per worker both
 * stay near 1% of the work, and the memory stays bounded by one batch of encoded
 * blocks. On two idle cores (bench/bench_store.c, 100 million records, 16384-record
 * blocks) two threads write 1.96 and read 1.9 times as fast as one; the LMDB calls
 * of a write take about 1% of its time. The worker threads live for one call:
 * starting them costs tens of microseconds against the commit's fsync. */

/* A crew: the calling thread (worker 0) and helpers 1..helpers, which run fn(ctx, id)
 * once per crew_run. */
struct crew_member {
	struct crew *c;
	int id;
	pthread_t tid;
};

struct crew {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	void (*fn)(void *ctx, int worker);
	void *ctx;
	uint64_t round; /* crew_runs so far */
	int helpers;	/* started */
	int running;	/* helpers still in this round's fn */
	int quit;
	struct crew_member *member;
};

static void *crew_helper(void *arg)
{
	struct crew_member *me = arg;
	struct crew *c = me->c;
	uint64_t seen = 0;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (c->round == seen && !c->quit)
			pthread_cond_wait(&c->go, &c->mu);
		if (c->quit)
			break;
		seen = c->round;
		void (*fn)(void *, int) = c->fn;
		void *ctx = c->ctx;
		pthread_mutex_unlock(&c->mu);
		fn(ctx, me->id);
		pthread_mutex_lock(&c->mu);
		if (--c->running == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Starts up to workers - 1 helpers (fewer if the system refuses threads: the work is
 * shared by those that started). Helpers block every signal, so that signals meant for
 * the process reach the caller's threads. @return BP_OK; BP_ENOMEM. */
static int crew_start(struct crew *c, int workers)
{
	*c = (struct crew){ 0 };
	if (workers <= 1)
		return BP_OK;
	c->member = calloc((size_t)workers - 1, sizeof *c->member);
	if (!c->member)
		return BP_ENOMEM;
	int mu = pthread_mutex_init(&c->mu, NULL) == 0,
	    go = mu && pthread_cond_init(&c->go, NULL) == 0,
	    done = go && pthread_cond_init(&c->done, NULL) == 0;
	if (!done) {
		if (go)
			pthread_cond_destroy(&c->go);
		if (mu)
			pthread_mutex_destroy(&c->mu);
		free(c->member);
		c->member = NULL;
		return BP_ENOMEM;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < workers - 1; i++) {
		struct crew_member *m = &c->member[c->helpers];
		*m = (struct crew_member){ .c = c, .id = c->helpers + 1 };
		if (pthread_create(&m->tid, NULL, crew_helper, m) != 0)
			break;
		c->helpers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return BP_OK;
}

/* Runs fn(ctx, worker) on every worker (the caller is worker 0) and returns when all
 * are done; what the helpers wrote is then visible to the caller. */
static void crew_run(struct crew *c, void (*fn)(void *ctx, int worker), void *ctx)
{
	if (!c->member) {
		fn(ctx, 0);
		return;
	}
	pthread_mutex_lock(&c->mu);
	c->fn = fn;
	c->ctx = ctx;
	c->round++;
	c->running = c->helpers;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->mu);
	fn(ctx, 0);
	pthread_mutex_lock(&c->mu);
	while (c->running)
		pthread_cond_wait(&c->done, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

static void crew_stop(struct crew *c)
{
	if (!c->member)
		return;
	pthread_mutex_lock(&c->mu);
	c->quit = 1;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->mu);
	for (int i = 0; i < c->helpers; i++)
		pthread_join(c->member[i].tid, NULL);
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->go);
	pthread_mutex_destroy(&c->mu);
	free(c->member);
	c->member = NULL;
}

/* One block's work in a batch. */
struct slot {
	const void *val; /* get: the stored value, in the map; put: buf */
	size_t len;
	void *buf; /* put: the encoded block, copied out of the worker's codec */
	size_t cap;
	int ret;
	const char *why;
};

/* A whole-tier walk: its crew, and the batch being worked on. */
struct walk {
	bp_table *t;
	struct crew crew;
	int workers;  /* ids 0..workers-1 */
	uint64_t cap; /* slots */
	struct slot *slot;
	uint16_t *scratch;    /* check: one block per worker */
	uint64_t *masks;      /* with a mask: one block's mask, then its hints, per worker */
	uint64_t (*count)[4]; /* put: records per value, per worker */
	/* the batch */
	uint32_t tier;
	uint64_t first, n;  /* blocks first..first+n-1 */
	uint64_t next;	    /* next block to take, relative to first (atomic) */
	const uint16_t *in; /* put: the tier's records, from block in_first on */
	uint64_t in_first;
	uint16_t *out; /* get: the records of block out_first on (NULL: into scratch) */
	uint64_t out_first;
	int flags;   /* for bp_codec_decode */
	int restart; /* renew the read transaction before the next fetch */
};

/* Words of one block's mask. */
static size_t mask_words(const bp_table *t)
{
	return ((size_t)t->meta.block_records + 63) / 64;
}

/* Fills mask with the structural holes of block of tier (bp_table_set_mask).
 * @return BP_OK or the mask function's error. */
static int block_mask(const bp_table *t, uint32_t tier, uint64_t block, uint64_t *mask)
{
	uint64_t first = block * t->meta.block_records;
	return t->mask_fn(t->mask_ctx, tier, first, block_len(t, tier, block), mask);
}

/* Fills hints with the foretold wins of block of tier (bp_table_set_hints), given its
 * mask. @return BP_OK; BP_EUNSUPPORTED (no hints function); the function's error. */
static int block_hints(const bp_table *t, uint32_t tier, uint64_t block, const uint64_t *mask,
		       uint64_t *hints)
{
	if (!t->hints_fn)
		return BP_EUNSUPPORTED;
	uint64_t first = block * t->meta.block_records;
	return t->hints_fn(t->hints_ctx, tier, first, block_len(t, tier, block), mask, hints);
}

static bp_codec *worker_codec(const bp_table *t, int worker)
{
	assert(worker <= t->nwcodec);
	return worker ? t->wcodec[worker - 1] : t->codec;
}

/* The workers and the blocks a batch of a walk over at most most_blocks blocks of b
 * records takes on `threads` threads. */
static uint64_t batch_blocks(int threads, uint64_t b, uint64_t most_blocks, int *workers)
{
	int n = threads;
	if (most_blocks < (uint64_t)n)
		n = most_blocks ? (int)most_blocks : 1;
	uint64_t cap = (uint64_t)n * BP_BATCH_PER_WORKER;
	/* larger blocks (the archival levels' on mostly-hole indices): as many records
	 * as that many blocks of the default size */
	if (b > BP_DEFAULT_BLOCK_RECORDS)
		cap = cap * BP_DEFAULT_BLOCK_RECORDS / b;
	if (cap * b * 2 > BP_BATCH_BYTES)
		cap = BP_BATCH_BYTES / (b * 2);
	if (cap < (uint64_t)n)
		cap = (uint64_t)n;
	if (cap > most_blocks)
		cap = most_blocks ? most_blocks : 1;
	if (workers)
		*workers = n;
	return cap;
}

uint64_t bp_table_fill_bytes(uint64_t records, int threads)
{
	const uint64_t b = BP_DEFAULT_BLOCK_RECORDS;
	int n = threads < 1 ? 1 : threads > BP_STORE_MAX_THREADS ? BP_STORE_MAX_THREADS : threads;
	return batch_blocks(n, b, (records + b - 1) / b, NULL) * b * sizeof(uint16_t);
}

/* Prepares a walk over at most most_blocks blocks a batch: the workers' codecs (kept
 * by the table), the slots, per-worker counts or scratch blocks, and the crew.
 * @return BP_OK; BP_ENOMEM. */
static int walk_begin(bp_table *t, uint64_t most_blocks, int scratch, int counts, struct walk *w)
{
	uint64_t b = t->meta.block_records;
	*w = (struct walk){ .t = t };
	w->cap = batch_blocks(t->threads, b, most_blocks, &w->workers);
	if (w->workers - 1 > t->nwcodec) {
		bp_codec **c = realloc(t->wcodec, sizeof *c * (size_t)(w->workers - 1));
		if (!c)
			return BP_ENOMEM;
		t->wcodec = c;
		for (; t->nwcodec < w->workers - 1; t->nwcodec++)
			if (bp_codec_create(&t->wcodec[t->nwcodec]) != BP_OK)
				return BP_ENOMEM;
	}
	w->slot = calloc((size_t)w->cap, sizeof *w->slot);
	if (!w->slot)
		return BP_ENOMEM;
	if (scratch && !(w->scratch = malloc((size_t)w->workers * b * sizeof *w->scratch)))
		return BP_ENOMEM;
	if (counts && !(w->count = calloc((size_t)w->workers, sizeof *w->count)))
		return BP_ENOMEM;
	if (t->mask_fn &&
	    !(w->masks = malloc((size_t)w->workers * 2 * mask_words(t) * sizeof *w->masks)))
		return BP_ENOMEM;
	return crew_start(&w->crew, w->workers);
}

static void walk_end(struct walk *w)
{
	crew_stop(&w->crew);
	if (w->slot)
		for (uint64_t i = 0; i < w->cap; i++)
			free(w->slot[i].buf);
	free(w->slot);
	free(w->scratch);
	free(w->count);
	free(w->masks);
}

/* Sets up the batch of blocks first.. of tier (as many as fit, up to the tier's end). */
static void walk_batch(struct walk *w, uint32_t tier, uint64_t first)
{
	uint64_t left = nblocks(w->t, tier) - first;
	w->tier = tier;
	w->first = first;
	w->n = left < w->cap ? left : w->cap;
	w->next = 0;
}

/* Worker: encodes blocks of the batch into their slots and counts their records. */
static void encode_batch(void *ctx, int worker)
{
	struct walk *w = ctx;
	const bp_table *t = w->t;
	bp_codec *c = worker_codec(t, worker);
	uint64_t count[4] = { 0 };
	for (;;) {
		uint64_t i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
		if (i >= w->n)
			break;
		uint64_t b = w->first + i;
		struct slot *sl = &w->slot[i];
		const uint16_t *r = w->in + (b - w->in_first) * t->meta.block_records;
		uint32_t n = block_len(t, w->tier, b);
		int zero = bp_codec_all_zero(r, n);
		if (zero) { /* a run of holes: counted at once */
			count[0] += n;
		} else {
			/* three sums of comparisons (which vectorize) rather than increments
			 * of count[r[k] & 3] (each waits for the one before) */
			uint32_t c1 = 0, c2 = 0, c3 = 0; /* n < 2^32 */
			for (uint32_t k = 0; k < n; k++) {
				uint32_t v = r[k] & 3u;
				c1 += v == 1;
				c2 += v == 2;
				c3 += v == 3;
			}
			count[0] += n - c1 - c2 - c3;
			count[1] += c1;
			count[2] += c2;
			count[3] += c3;
		}
		uint8_t key[BP_CODEC_KEY_SIZE];
		const void *val;
		size_t len;
		bp_codec_key(key, w->tier, b);
		/* a block of holes alone is coded whole: its frame is a few bytes anyway; below
		 * the archival level the mask is not used (see "Probes" above) */
		uint64_t *mask = w->masks ? w->masks + (size_t)worker * 2 * mask_words(t) : NULL;
		uint64_t *hints = mask ? mask + mask_words(t) : NULL;
		if (mask && (zero || t->level < BP_CODEC_MODEL_LEVEL ||
			     block_mask(t, w->tier, b, mask) != BP_OK))
			mask = NULL; /* without a mask the block is coded whole: still exact */
		if (!mask || !t->hints_write || block_hints(t, w->tier, b, mask, hints) != BP_OK)
			hints = NULL; /* without hints the wins in 1 are coded as any record */
		sl->ret = bp_codec_encode_hinted(c, key, sizeof key, t->seed, r, n, t->level, mask,
						 hints, &val, &len);
		if (sl->ret != BP_OK)
			continue;
		if (sl->cap < len) {
			void *q = realloc(sl->buf, len);
			if (!q) {
				sl->ret = BP_ENOMEM;
				continue;
			}
			sl->buf = q;
			sl->cap = len;
		}
		memcpy(sl->buf, val, len);
		sl->val = sl->buf;
		sl->len = len;
	}
	for (int v = 0; v < 4; v++)
		w->count[worker][v] += count[v];
}

/* After a fault inside LMDB: drops the read transaction's snapshot and takes a fresh
 * one, so that nothing LMDB left half-done in it is used again. @return an LMDB code. */
static int read_restart(bp_table *t)
{
	mdb_txn_reset(t->rtxn);
	return mdb_txn_renew(t->rtxn);
}

/* Looks up the batch's blocks in the open read transaction, in order, on the calling
 * thread. A missing block of a done tier is damage, not absence; any other LMDB failure
 * ends the batch there, as it would end a walk by one thread. */
static void fetch_batch(struct walk *w)
{
	bp_table *t = w->t;
	if (w->restart) {
		w->restart = 0;
		int rc = read_restart(t);
		if (rc) {
			w->slot[0] =
				(struct slot){ .ret = mdb_to_bp(rc), .why = store_strerror(rc) };
			w->n = 1;
			return;
		}
	}
	for (uint64_t i = 0; i < w->n; i++) {
		struct slot *sl = &w->slot[i];
		uint8_t key[BP_CODEC_KEY_SIZE];
		bp_codec_key(key, w->tier, w->first + i);
		MDB_val k = { sizeof key, key }, v;
		int rc = safe_get(t->s, t->rtxn, t->dbi, &k, &v);
		sl->why = NULL;
		if (rc == 0) {
			sl->ret = BP_OK;
			sl->val = v.mv_data;
			sl->len = v.mv_size;
		} else if (rc == MDB_NOTFOUND) {
			sl->ret = BP_ECORRUPT;
			sl->why = "missing block";
		} else if (rc == STORE_MDB_FAULT || rc == STORE_MDB_OUTSIDE ||
			   rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND) {
			/* damage in the B-tree on the way to this block: report it and go on
			 * with the next block; after a fault, the batch ends here and the next
			 * one starts from a fresh snapshot (the values fetched so far stay
			 * valid until this batch is decoded) */
			sl->ret = BP_ECORRUPT;
			sl->why = store_strerror(rc);
			if (rc == STORE_MDB_FAULT) {
				w->restart = 1;
				w->n = i + 1;
				break;
			}
		} else {
			sl->ret = mdb_to_bp(rc);
			sl->why = store_strerror(rc);
			w->n = i + 1;
			break;
		}
	}
}

/* Worker: decodes the fetched blocks of the batch, into the tier's records or the
 * worker's scratch block. */
static void decode_batch(void *ctx, int worker)
{
	struct walk *w = ctx;
	const bp_table *t = w->t;
	bp_codec *c = worker_codec(t, worker);
	uint64_t b = t->meta.block_records;
	for (;;) {
		uint64_t i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
		if (i >= w->n)
			break;
		struct slot *sl = &w->slot[i];
		if (sl->ret != BP_OK)
			continue;
		uint64_t block = w->first + i;
		uint16_t *dst = w->out ? w->out + (block - w->out_first) * b
				       : w->scratch + (uint64_t)worker * b;
		uint8_t key[BP_CODEC_KEY_SIZE];
		bp_codec_key(key, w->tier, block);
		uint64_t *mask = NULL, *hints = NULL;
		if (w->masks && bp_codec_needs_mask(sl->val, sl->len)) {
			mask = w->masks + (size_t)worker * 2 * mask_words(t);
			if ((sl->ret = block_mask(t, w->tier, block, mask)) != BP_OK) {
				sl->why = "the game's index mask failed";
				continue;
			}
		}
		if (mask && t->hints_fn && bp_codec_needs_hints(sl->val, sl->len)) {
			hints = mask + mask_words(t);
			if ((sl->ret = block_hints(t, w->tier, block, mask, hints)) != BP_OK) {
				sl->why = "the game's foretold wins failed";
				continue;
			}
		}
		sl->ret = bp_codec_decode_hinted(c, key, sizeof key, t->seed, sl->val, sl->len,
						 mask, hints, dst, block_len(t, w->tier, block),
						 w->flags, &sl->why);
	}
}

void bp_table_set_mask(bp_table *t, bp_table_mask_fn fn, void *ctx)
{
	t->mask_fn = fn;
	t->mask_ctx = fn ? ctx : NULL;
}

void bp_table_set_put_progress(bp_table *t, bp_table_put_progress_fn fn, void *ctx)
{
	t->put_fn = fn;
	t->put_ctx = fn ? ctx : NULL;
}

void bp_table_set_hints(bp_table *t, bp_table_hints_fn fn, void *ctx, int write)
{
	t->hints_fn = fn;
	t->hints_ctx = fn ? ctx : NULL;
	t->hints_write = fn && write;
}

int bp_table_set_threads(bp_table *t, int threads)
{
	if (!t || threads < 0)
		return BP_EINVAL;
	t->threads = threads > BP_STORE_MAX_THREADS ? BP_STORE_MAX_THREADS : threads ? threads : 1;
	return BP_OK;
}

/* Notes why a write of the table failed (bp_table_why). @return BP_ENOMEM or BP_EIO. */
static int put_err(bp_table *t, int rc, const char *during)
{
	bp_store_write_why(t->s, rc, during, t->why, sizeof t->why);
	return mdb_to_bp(rc) == BP_ENOMEM ? BP_ENOMEM : BP_EIO;
}

/* Figures: seconds replaces the stored time (the solver passes its running total);
 * peak memory keeps the largest ever reported, so a resumed solve does not hide the
 * peak of an earlier run; extra NULL keeps the stored lines. */
/* The two ways a tier's records reach put_tier: the whole array (records), or a batch
 * at a time from fill into staging (one batch of records). */
static int put_tier(bp_table *t, uint32_t tier, const uint16_t *records,
		    int (*fill)(void *ctx, uint64_t first, uint64_t n, uint16_t *dst),
		    void *fill_ctx, double seconds, uint64_t peak_memory, const char *extra)
{
	struct bp_meta m = { 0 };
	struct walk w = { 0 };
	MDB_txn *txn = NULL;
	uint16_t *staging = NULL;
	int rc, ret;
	if (!t || t->s->readonly || tier >= t->meta.ntiers ||
	    (!records && !fill && t->meta.tier_size[tier] > 0))
		return BP_EINVAL;
	t->why[0] = '\0';
	uint64_t count[4] = { 0 }, bytes = 0, n = nblocks(t, tier), b = t->meta.block_records;
	if ((ret = bp_meta_copy(&m, &t->meta)) != BP_OK ||
	    (extra && (ret = bp_meta_set_extra(&m, extra)) != BP_OK) ||
	    (ret = walk_begin(t, n, 0, 1, &w)) != BP_OK)
		goto out;
	if (fill && !(staging = malloc(sizeof *staging * w.cap * b))) {
		ret = BP_ENOMEM;
		goto out;
	}
	if ((rc = mdb_txn_begin(t->s->env, NULL, 0, &txn))) {
		ret = put_err(t, rc, "starting the write");
		goto out;
	}
	w.in = records;
	for (uint64_t first = 0; first < n; first += w.n) {
		walk_batch(&w, tier, first);
		if (fill) {
			uint64_t lo = first * b, hi = (first + w.n) * b;
			if (hi > t->meta.tier_size[tier])
				hi = t->meta.tier_size[tier];
			if ((ret = fill(fill_ctx, lo, hi - lo, staging)) != BP_OK)
				goto out;
			w.in = staging;
			w.in_first = first;
		}
		crew_run(&w.crew, encode_batch, &w);
		if (t->put_fn) {
			uint64_t done = (first + w.n) * b, size = t->meta.tier_size[tier];
			t->put_fn(t->put_ctx, tier, done < size ? done : size, size);
		}
		for (uint64_t i = 0; i < w.n; i++) {
			const struct slot *sl = &w.slot[i];
			if ((ret = sl->ret) != BP_OK)
				goto out;
			uint8_t key[BP_CODEC_KEY_SIZE];
			bp_codec_key(key, tier, first + i);
			MDB_val k = { sizeof key, key }, v = { sl->len, (void *)sl->val };
			if ((rc = mdb_put(txn, t->dbi, &k, &v, 0))) {
				ret = put_err(t, rc, "writing");
				goto out;
			}
			bytes += sl->len;
		}
	}
	for (int i = 0; i < w.workers; i++)
		for (int v = 0; v < 4; v++)
			count[v] += w.count[i][v];
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
		ret = put_err(t, rc, "writing");
		goto out;
	}
	rc = mdb_txn_commit(txn); /* frees txn, also when it fails */
	txn = NULL;
	if (rc) {
		ret = put_err(t, rc, "committing");
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
	walk_end(&w);
	bp_meta_free(&m);
	free(staging);
	return ret;
}

int bp_table_put_tier(bp_table *t, uint32_t tier, const uint16_t *records, double seconds,
		      uint64_t peak_memory, const char *extra)
{
	if (!records && t && tier < t->meta.ntiers && t->meta.tier_size[tier] > 0)
		return BP_EINVAL;
	return put_tier(t, tier, records, NULL, NULL, seconds, peak_memory, extra);
}

int bp_table_put_tier_fill(bp_table *t, uint32_t tier,
			   int (*fill)(void *ctx, uint64_t first, uint64_t n, uint16_t *dst),
			   void *ctx, double seconds, uint64_t peak_memory, const char *extra)
{
	if (!fill)
		return BP_EINVAL;
	return put_tier(t, tier, NULL, fill, ctx, seconds, peak_memory, extra);
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
	int rc = safe_get(t->s, t->rtxn, t->dbi, &k, &v);
	if (rc == MDB_NOTFOUND) {
		*why = "missing block";
		return BP_ECORRUPT;
	}
	if (rc) {
		*why = store_strerror(rc);
		return mdb_to_bp(rc);
	}
	uint64_t *mask = NULL;
	if (t->mask_fn && bp_codec_needs_mask(v.mv_data, v.mv_size)) {
		if (!t->mask && !(t->mask = malloc(mask_words(t) * sizeof *t->mask)))
			return BP_ENOMEM;
		if ((rc = block_mask(t, tier, block, t->mask)) != BP_OK) {
			*why = "the game's index mask failed";
			return rc;
		}
		mask = t->mask;
	}
	uint64_t *hints = NULL;
	if (mask && t->hints_fn && bp_codec_needs_hints(v.mv_data, v.mv_size)) {
		if (!t->hints && !(t->hints = malloc(mask_words(t) * sizeof *t->hints)))
			return BP_ENOMEM;
		if ((rc = block_hints(t, tier, block, mask, t->hints)) != BP_OK) {
			*why = "the game's foretold wins failed";
			return rc;
		}
		hints = t->hints;
	}
	return bp_codec_decode_hinted(t->codec, key, sizeof key, t->seed, v.mv_data, v.mv_size,
				      mask, hints, records, block_len(t, tier, block), flags, why);
}

/* Reads and decodes every block of a done tier, in batches, into out (or the workers'
 * scratch), in the open read transaction, and hands each block's outcome to verdict
 * in block order; stops with the first nonzero verdict. */
static int read_tier(struct walk *w, uint32_t tier, uint16_t *out,
		     int (*verdict)(void *ctx, uint32_t tier, uint64_t block, int ret,
				    const char *why),
		     void *ctx)
{
	uint64_t n = nblocks(w->t, tier);
	w->out = out;
	w->out_first = 0;
	w->flags = 0; /* whole-tier reads hash the decoded content too */
	for (uint64_t first = 0; first < n; first += w->n) {
		walk_batch(w, tier, first);
		fetch_batch(w);
		crew_run(&w->crew, decode_batch, w);
		for (uint64_t i = 0; i < w->n; i++) {
			const struct slot *sl = &w->slot[i];
			int ret = verdict(ctx, tier, first + i, sl->ret, sl->why);
			if (ret != BP_OK)
				return ret;
		}
	}
	return BP_OK;
}

static int first_failure(void *ctx, uint32_t tier, uint64_t block, int ret, const char *why)
{
	(void)ctx;
	(void)tier;
	(void)block;
	(void)why;
	return ret;
}

/* A whole done tier into records on the table's threads, each block's outcome handed
 * to verdict (as read_tier). */
typedef int (*verdict_fn)(void *ctx, uint32_t tier, uint64_t block, int ret, const char *why);

static int get_tier(bp_table *t, uint32_t tier, uint16_t *records, verdict_fn verdict, void *vctx)
{
	struct walk w;
	if (!t || tier >= t->meta.ntiers)
		return BP_EINVAL;
	if (!t->meta.tier_done[tier])
		return BP_ENOTFOUND;
	int ret = walk_begin(t, nblocks(t, tier), 0, 0, &w);
	if (ret == BP_OK && (ret = read_begin(t)) == BP_OK) {
		ret = read_tier(&w, tier, records, verdict, vctx);
		mdb_txn_reset(t->rtxn);
	}
	walk_end(&w);
	return ret;
}

int bp_table_get_tier(bp_table *t, uint32_t tier, uint16_t *records)
{
	return get_tier(t, tier, records, first_failure, NULL);
}

static int get_range_serial(bp_table *t, uint32_t tier, uint64_t first, uint64_t n,
			    uint16_t *records, verdict_fn verdict, void *vctx);

/* Blocks w0..w1-1 of tier, whole, into records on the table's threads (as
 * bp_table_get_tier), each block's outcome handed to verdict in block order (as
 * read_tier). */
static int get_blocks(bp_table *t, uint32_t tier, uint64_t w0, uint64_t w1, uint16_t *records,
		      verdict_fn verdict, void *vctx)
{
	struct walk w;
	int ret = walk_begin(t, w1 - w0, 0, 0, &w);
	if (ret == BP_OK && (ret = read_begin(t)) == BP_OK) {
		w.out = records;
		w.out_first = w0;
		w.flags = 0;
		for (uint64_t first = w0; ret == BP_OK && first < w1; first += w.n) {
			walk_batch(&w, tier, first);
			if (w.n > w1 - first)
				w.n = w1 - first;
			fetch_batch(&w);
			crew_run(&w.crew, decode_batch, &w);
			for (uint64_t i = 0; ret == BP_OK && i < w.n; i++)
				ret = verdict(vctx, tier, first + i, w.slot[i].ret, w.slot[i].why);
		}
		mdb_txn_reset(t->rtxn);
	}
	walk_end(&w);
	return ret;
}

/* bp_table_get_range with each block's outcome handed to verdict (as read_tier). */
static int range_read(bp_table *t, uint32_t tier, uint64_t first, uint64_t n, uint16_t *records,
		      verdict_fn verdict, void *vctx)
{
	if (!t || tier >= t->meta.ntiers || first > t->meta.tier_size[tier] ||
	    n > t->meta.tier_size[tier] - first || (!records && n))
		return BP_EINVAL;
	if (!t->meta.tier_done[tier])
		return BP_ENOTFOUND;
	if (n == 0)
		return BP_OK;
	/* the whole blocks inside the range, w0..w1-1, on the table's threads where it
	 * has more than one and there are two such blocks; the edges on this thread */
	uint64_t b = t->meta.block_records, end = first + n;
	uint64_t w0 = (first + b - 1) / b, w1 = end / b;
	if (end == t->meta.tier_size[tier] && end % b)
		w1++; /* the tier's last block, shorter, ends the range */
	if (t->threads > 1 && w1 > w0 + 1) {
		int ret = w0 * b > first ? get_range_serial(t, tier, first, w0 * b - first, records,
							    verdict, vctx)
					 : BP_OK;
		if (ret == BP_OK)
			ret = get_blocks(t, tier, w0, w1, records + (w0 * b - first), verdict,
					 vctx);
		if (ret == BP_OK && w1 * b < end)
			ret = get_range_serial(t, tier, w1 * b, end - w1 * b,
					       records + (w1 * b - first), verdict, vctx);
		return ret;
	}
	return get_range_serial(t, tier, first, n, records, verdict, vctx);
}

static int first_failure(void *ctx, uint32_t tier, uint64_t block, int ret, const char *why);
static int check_verdict(void *ctx, uint32_t tier, uint64_t block, int ret, const char *why);

int bp_table_get_range(bp_table *t, uint32_t tier, uint64_t first, uint64_t n, uint16_t *records)
{
	return range_read(t, tier, first, n, records, first_failure, NULL);
}

/* bp_table_get_range on this thread, block by block. */
static int get_range_serial(bp_table *t, uint32_t tier, uint64_t first, uint64_t n,
			    uint16_t *records, verdict_fn verdict, void *vctx)
{
	uint64_t b = t->meta.block_records, b0 = first / b, b1 = (first + n - 1) / b;
	uint16_t *scratch = malloc(sizeof *scratch * b);
	int ret = scratch ? read_begin(t) : BP_ENOMEM, begun = ret == BP_OK;
	for (uint64_t k = b0; ret == BP_OK && k <= b1; k++) {
		const char *why = NULL;
		uint64_t lo = k * b, len = block_len(t, tier, k);
		/* whole blocks inside the range straight into records, the edges by scratch */
		int whole = lo >= first && lo + len <= first + n;
		uint16_t *dst = whole ? records + (lo - first) : scratch;
		int got = read_block(t, tier, k, dst, 0, &why);
		ret = verdict(vctx, tier, k, got, why);
		if (got == BP_OK && !whole) {
			uint64_t from = lo > first ? lo : first;
			uint64_t to = lo + len < first + n ? lo + len : first + n;
			memcpy(records + (from - first), scratch + (from - lo),
			       sizeof *scratch * (to - from));
		}
	}
	if (begun)
		mdb_txn_reset(t->rtxn);
	free(scratch);
	return ret;
}

const char *bp_table_why(const bp_table *t)
{
	return t ? t->why : "";
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
	const char *why = NULL;
	int ret = read_begin(t);
	if (ret != BP_OK)
		return ret;
	/* the value checksum covers key, table and every stored byte: enough for a probe */
	ret = read_block(t, tier, block, victim->records, BP_CODEC_FAST, &why);
	mdb_txn_reset(t->rtxn);
	if (ret != BP_OK) {
		snprintf(t->why, sizeof t->why, "tier %u block %llu: %s", tier,
			 (unsigned long long)block, why ? why : bp_strerror(ret));
		return ret;
	}
	victim->tier = tier;
	victim->block = block;
	victim->used = ++t->clock;
	*record = victim->records[index - block * t->meta.block_records];
	return BP_OK;
}

struct check {
	void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why);
	void *ctx;
	int nbad;
};

/* Counts and reports a damaged block and goes on; stops at any other failure. */
static int check_verdict(void *ctx, uint32_t tier, uint64_t block, int ret, const char *why)
{
	struct check *c = ctx;
	if (ret != BP_ECORRUPT)
		return ret;
	if (c->nbad < INT_MAX)
		c->nbad++;
	if (c->bad)
		c->bad(c->ctx, tier, block, why);
	return BP_OK;
}

int bp_table_get_tier_each(bp_table *t, uint32_t tier, uint16_t *records,
			   void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			   void *ctx)
{
	struct check c = { bad, ctx, 0 };
	int ret = get_tier(t, tier, records, check_verdict, &c);
	return ret == BP_OK ? c.nbad : ret;
}

int bp_table_get_range_each(bp_table *t, uint32_t tier, uint64_t first, uint64_t n,
			    uint16_t *records,
			    void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			    void *ctx)
{
	struct check c = { bad, ctx, 0 };
	int ret = range_read(t, tier, first, n, records, check_verdict, &c);
	return ret == BP_OK ? c.nbad : ret;
}

int bp_table_check_blocks(bp_table *t,
			  void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			  void *ctx)
{
	struct check c = { bad, ctx, 0 };
	struct walk w;
	if (!t)
		return BP_EINVAL;
	uint64_t most = 0;
	for (uint32_t tier = 0; tier < t->meta.ntiers; tier++)
		if (t->meta.tier_done[tier] && nblocks(t, tier) > most)
			most = nblocks(t, tier);
	int ret = walk_begin(t, most, 1, 0, &w);
	if (ret == BP_OK && (ret = read_begin(t)) == BP_OK) {
		for (uint32_t tier = 0; tier < t->meta.ntiers && ret == BP_OK; tier++)
			if (t->meta.tier_done[tier])
				ret = read_tier(&w, tier, NULL, check_verdict, &c);
		mdb_txn_reset(t->rtxn);
	}
	walk_end(&w);
	return ret == BP_OK ? c.nbad : ret;
}

/* ---- for store/kv.c (store/store_env.h) ---- */

MDB_env *bp_store_env(bp_store *s)
{
	return s->env;
}

int bp_store_readonly(const bp_store *s)
{
	return s->readonly;
}

void bp_store_handles(bp_store *s, int delta)
{
	__atomic_fetch_add(&s->ntables, delta, __ATOMIC_ACQ_REL);
}

/* MDB_BAD_TXN from a read means an earlier call of the transaction met a damaged page
 * and marked it failed without saying so: mdb_cursor_open's look at a database
 * record LMDB calls stale ignores the error of its page search (LMDB 0.9.24). The
 * corruption campaign of bench/corrupt_proofs.sh met it; it is damage. */
static int read_to_bp(int rc)
{
	return rc == MDB_BAD_TXN ? BP_ECORRUPT : mdb_to_bp(rc);
}

int bp_store_get(bp_store *s, MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v)
{
	return read_to_bp(safe_get(s, txn, dbi, k, v));
}

int bp_store_cursor_get(bp_store *s, MDB_cursor *cur, MDB_val *k, MDB_val *v, MDB_cursor_op op)
{
	return read_to_bp(safe_cursor_get(s, cur, k, v, op));
}

int bp_store_dbi_open(MDB_txn *txn, const char *name, MDB_dbi *dbi)
{
	return mdb_to_bp(safe_dbi_open(txn, name, dbi, NULL));
}
