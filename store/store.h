/* SPDX-License-Identifier: MIT */
/* The position database: one LMDB environment (a directory) holding one table per
 * solved instance, named by the instance's canonical spec. A table stores, per tier,
 * one 16-bit record per dense index (see bp_record_*), cut into fixed-size blocks;
 * each block is compressed (zstd, or at archival levels the model coding of
 * store/rcmodel.h where that is smaller) and carries a checksum of its key and decoded content, so that a flipped bit, a truncated frame or a block swapped with another
 * is caught as BP_ECORRUPT. Metadata says exactly what the table is: spec, rules
 * version, format version, tool version, tier sizes, which tiers are complete, counts
 * per value and per tier, the solve's time and peak memory.
 *
 * A tier is written whole in one transaction together with the metadata that marks
 * it done, so a process killed at any moment leaves every finished tier intact and
 * no half-written one visible. Readers never block the writer (LMDB MVCC), so queries
 * can run while a solve writes. Nothing here changes another table.
 *
 * On-disk format: see BP_STORE_FORMAT in store.c, next to its magic number. */
#ifndef BP_STORE_STORE_H
#define BP_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "canon/error.h"

/* Format version of the database layout; bumped on any incompatible change. Opening
 * a database or table of another version fails with BP_EFORMAT. */
#define BP_STORE_FORMAT 1

/* A record: value (enum bp_value numbering: 0 none/unknown, 1 win, 2 loss, 3 draw) in
 * bits 0-1, remoteness in bits 2-15. BP_RECORD_NO_REMOTENESS marks a draw by
 * repetition (no remoteness). Record 0 is "no position here" (hole, unreachable or
 * not canonical). */
#define BP_RECORD_NO_REMOTENESS 0x3fff
static inline uint16_t bp_record_make(unsigned value, unsigned remoteness)
{
	return (uint16_t)((value & 3u) | (remoteness & 0x3fffu) << 2);
}
static inline unsigned bp_record_value(uint16_t r)
{
	return r & 3u;
}
static inline unsigned bp_record_remoteness(uint16_t r)
{
	return r >> 2;
}

typedef struct bp_store bp_store;
typedef struct bp_table bp_table;

enum {
	BP_STORE_READONLY = 1, /* open for reading; fails with BP_ENOTFOUND if absent */
	BP_STORE_CREATE = 2    /* create the directory and database when absent */
};

/* Opens (or with BP_STORE_CREATE creates) the database in directory dir.
 * @return BP_OK; BP_ENOTFOUND (absent, read-only); BP_EFORMAT (another format
 * version, or not a boardproof database); BP_EIO; BP_ENOMEM. err names the problem.
 * The caller owns *out (bp_store_close). */
int bp_store_open(const char *dir, int flags, bp_store **out, struct bp_err *err);

void bp_store_close(bp_store *s);

/* The database's directory, as opened. Owned by the store. */
const char *bp_store_path(const bp_store *s);

/* Sets the largest size the database file may reach (default 256 GiB; LMDB's map
 * size), e.g. to bound a solve's disk use. A size below what is in use is raised to
 * it. Call only while no other call on the store or its tables is running.
 * @return BP_OK; BP_EINVAL; BP_EIO. */
int bp_store_set_map_size(bp_store *s, uint64_t bytes);

/* What a table is: fixed when it is created and checked on every open. */
struct bp_table_info {
	char spec[256];		/* canonical instance spec */
	uint32_t rules_version; /* RULES.md version the values were solved under */
	uint32_t ntiers;
	const uint64_t *tier_size; /* ntiers entries: records in each tier */
	uint32_t block_records;	   /* records per block (0: the store's default, 16384) */
	int compression_level;	   /* zstd level (0: the store's default) */
};

/* Opens the table of spec, creating it (empty, no tier done) with BP_STORE_CREATE when
 * absent. An existing table must match info exactly (spec, rules version, tiers and
 * their sizes): otherwise BP_ERULES (another rules version) or BP_EFORMAT, and nothing
 * is changed. With info NULL the table is opened as it is (for reading; see
 * bp_table_check_rules).
 * @return BP_OK; BP_ENOTFOUND; BP_EFORMAT; BP_ERULES; BP_ECORRUPT (unreadable
 * metadata); BP_EIO.
 * The caller owns *out (bp_table_close), which must be closed before the store. */
int bp_table_open(bp_store *s, const char *spec, const struct bp_table_info *info, int flags,
		  bp_table **out, struct bp_err *err);

void bp_table_close(bp_table *t);

/* Keeps data that a layer above reads with this open table (the solver's stored index
 * of positions, solver/sparse.h) until the table is closed, when free_fn (may be NULL)
 * frees it. A second call replaces (and frees) the first data. */
void bp_table_attach(bp_table *t, void *data, void (*free_fn)(void *data));

/* The data given to bp_table_attach, or NULL. */
void *bp_table_attached(const bp_table *t);

/* Whether the table's values were solved under rules version rules_version: a table
 * of another version must never be answered from (RULES.md: tables are refused, never
 * silently mixed). @return BP_OK; BP_ERULES, err naming both versions; BP_EINVAL. */
int bp_table_check_rules(bp_table *t, uint32_t rules_version, struct bp_err *err);

/* Removes the table of spec and everything in it, in one transaction; the only way a
 * table is ever deleted (solve --replace). @return BP_OK; BP_ENOTFOUND; BP_EINVAL
 * (read-only store, or the table is open); BP_EIO. */
int bp_store_drop_table(bp_store *s, const char *spec, struct bp_err *err);

/* Metadata read from the table. Strings are owned by the table. */
struct bp_table_meta {
	const char *spec;
	uint32_t format_version, rules_version;
	const char *tool_version;
	uint32_t ntiers, block_records;
	const uint64_t *tier_size;  /* ntiers */
	const uint8_t *tier_done;   /* ntiers: 1 when the tier is stored completely */
	const uint64_t *tier_count; /* ntiers * 4: records per value (none, win, loss, draw) */
	uint64_t stored_bytes;	    /* compressed bytes of all blocks */
	double seconds;		    /* solving time so far */
	uint64_t peak_memory;	    /* bytes */
	const char *extra;	    /* free-form key=value lines the solver added */
};

/* @return BP_OK; the pointers stay valid until the table is closed or written. */
int bp_table_meta_get(bp_table *t, struct bp_table_meta *out);

/* Writes into bits the structural holes of records first..first+n-1 of tier (one
 * block; n >= 1): ceil(n / 64) words, bit i % 64 of word i / 64 set when record
 * first + i may hold a position, clear when the table's index says it never does (an
 * index that names no position, or a symmetric image of another index). Must give
 * the same bits for the same arguments in every process and version that reads the
 * table, and be safe to call from several threads at once.
 * @return BP_OK or a negative BP_E* code. */
typedef int (*bp_table_mask_fn)(void *ctx, uint32_t tier, uint64_t first, uint32_t n,
				uint64_t *bits);

/* Gives the table its structural holes (NULL: none, the default): from then on, at a
 * compression level of BP_CODEC_MODEL_LEVEL or more (the archival levels: each cold
 * read of such a block computes its mask first, store.c "Probes"), its writes code
 * only the records at set bits of each block's mask (store/codec.c, flag bit 2; a
 * block with a nonzero record at a clear bit is coded whole), and at any level its
 * reads decode such blocks. A block written without its holes and read by a table given no
 * mask fails as BP_ECORRUPT ("block needs its game's index mask"); blocks of the
 * other encodings read with or without a mask. The store knows no game: the solver
 * layer passes the game's index mask (bp_probe_set_holes, solver/probe.h). ctx must outlive the table's
 * use of it. */
void bp_table_set_mask(bp_table *t, bp_table_mask_fn fn, void *ctx);

/* Writes into hints the foretold wins of records first..first+n-1 of tier (one block),
 * given the block's mask as the table's mask function wrote it: ceil(n / 64) words,
 * bit i % 64 of word i / 64 set where the rules foretell that record first + i is a
 * win in 1 (bp_record_make(1, 1): the player to move has a move that wins at once);
 * bits at clear bits of mask are ignored. The same demands as on a mask function.
 * @return BP_OK or a negative BP_E* code. */
typedef int (*bp_table_hints_fn)(void *ctx, uint32_t tier, uint64_t first, uint32_t n,
				 const uint64_t *mask, uint64_t *hints);

/* Gives a table with a mask its foretold wins (NULL: none, the default). With write,
 * blocks written at an archival level code those records from the hints
 * (store/codec.c, flag bit 3: a small fraction of a bit each; each such block's write
 * and cold read asks fn for the block, the price of the smaller table); without, such
 * blocks are only read. ctx must outlive the table's use of it. */
void bp_table_set_hints(bp_table *t, bp_table_hints_fn fn, void *ctx, int write);

/* The most threads bp_table_set_threads gives a table; larger counts are cut to it. */
#define BP_STORE_MAX_THREADS 256

/* Sets how many threads encode or decode the blocks of bp_table_put_tier,
 * bp_table_get_tier and bp_table_check_blocks: 0 or 1 (the default) the calling thread
 * alone; n > 1 the calling thread and n - 1 helper threads that live for the call
 * (never more threads than the tier has blocks). LMDB is only ever called from the
 * calling thread, and the bytes stored, the records read, the damaged blocks reported
 * and the codes returned are the same for every count. Each thread beyond the first
 * keeps a codec (zstd contexts, two blocks of buffers) in the table until it is
 * closed. @return BP_OK; BP_EINVAL (t NULL or threads negative). */
int bp_table_set_threads(bp_table *t, int threads);

/* Called by bp_table_put_tier and bp_table_put_tier_fill on the calling thread after
 * each batch of blocks is coded: done of the tier's total records so far (a writer's
 * progress display: a tier coded from foretold wins takes minutes). */
typedef void (*bp_table_put_progress_fn)(void *ctx, uint32_t tier, uint64_t done, uint64_t total);

/* Sets the table's write progress function (NULL: none, the default). */
void bp_table_set_put_progress(bp_table *t, bp_table_put_progress_fn fn, void *ctx);

/* Writes a whole tier (tier_size[tier] records) and marks it done, with the solve's
 * figures so far, in one transaction. extra (may be NULL) replaces the free-form
 * metadata lines. Rewriting a done tier replaces it. Encodes on the table's threads
 * (bp_table_set_threads), holding one batch of encoded blocks at a time besides
 * LMDB's dirty pages (128 blocks a thread, fewer when that would pass 64 MiB of
 * records).
 * @return BP_OK; BP_EINVAL (bad tier); BP_EIO (disk or map full, or an I/O error:
 * nothing is changed; bp_table_why names the cause); BP_ENOMEM (nothing is changed). */
int bp_table_put_tier(bp_table *t, uint32_t tier, const uint16_t *records, double seconds,
		      uint64_t peak_memory, const char *extra);

/* As bp_table_put_tier, but the records come a batch at a time (at most 64 MiB of
 * them, in increasing order, covering the tier once): fill(ctx, first, n, dst) writes
 * records first..first+n-1 into dst and returns BP_OK, or an error that ends the write
 * with nothing changed and is returned. For a writer that never holds the whole tier
 * (a solve split across processes streams the other ranks' slices in).
 * @return as bp_table_put_tier; fill's error. */
int bp_table_put_tier_fill(bp_table *t, uint32_t tier,
			   int (*fill)(void *ctx, uint64_t first, uint64_t n, uint16_t *dst),
			   void *ctx, double seconds, uint64_t peak_memory, const char *extra);

/* The bytes of records that bp_table_put_tier_fill stages at once (one batch) for a
 * tier of `records` records written on `threads` threads (as bp_table_set_threads
 * counts them) in blocks of the default size: what a solver's memory plan counts for
 * the write of a tier it streams. */
uint64_t bp_table_fill_bytes(uint64_t records, int threads);

/* Reads records first..first+n-1 of a done tier into records, verifying the checksums
 * of every block they touch, on the calling thread.
 * @return BP_OK; BP_EINVAL (range outside the tier); BP_ENOTFOUND (tier not done);
 * BP_ECORRUPT; BP_ENOMEM. On failure the content of records is unspecified. */
int bp_table_get_range(bp_table *t, uint32_t tier, uint64_t first, uint64_t n, uint16_t *records);

/* bp_table_get_range going on past the blocks that fail their checks (as
 * bp_table_check_blocks): calls bad() for each corrupt or missing block, in block
 * order on the calling thread (may be NULL), leaving its records unspecified.
 * @return the number of such blocks (>= 0); another error as bp_table_get_range's. */
int bp_table_get_range_each(bp_table *t, uint32_t tier, uint64_t first, uint64_t n,
			    uint16_t *records,
			    void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			    void *ctx);

/* bp_table_get_tier going on past the blocks that fail their checks, as
 * bp_table_get_range_each. @return the number of such blocks (>= 0); another error as
 * bp_table_get_tier's. */
int bp_table_get_tier_each(bp_table *t, uint32_t tier, uint16_t *records,
			   void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			   void *ctx);

/* Reads a whole done tier into records (tier_size[tier] entries), verifying every
 * block's checksums, on the table's threads (bp_table_set_threads), from one snapshot.
 * @return BP_OK; BP_ENOTFOUND (tier not done); BP_ECORRUPT; BP_ENOMEM: the outcome of
 * the first failing block in block order. On failure the content of records is
 * unspecified. */
int bp_table_get_tier(bp_table *t, uint32_t tier, uint16_t *records);

/* Reads one record, decoding (and caching) its block.
 * @return BP_OK; BP_ENOTFOUND (tier not done or index out of range); BP_ECORRUPT. */
int bp_table_get(bp_table *t, uint32_t tier, uint64_t index, uint16_t *record);

/* What the last failing bp_table_get on t found, naming the block ("tier 3 block 12:
 * stored bytes fail their checksum"), or why the last bp_table_put_tier or
 * bp_table_put_tier_fill that failed to write could not ("database full
 * (MDB_MAP_FULL: ...)", "disk full (No space left on device)", "i/o error while
 * committing to DIR/data.mdb: ..."; "" when it failed before writing: no memory, a fill error); ""
 * when none has failed. Owned by the table, valid until the next call on it. */
const char *bp_table_why(const bp_table *t);

/* Names of the tables in the database, for `list`: calls fn for each spec. */
int bp_store_tables(bp_store *s, void (*fn)(void *ctx, const char *spec), void *ctx);

/* Names of the key spaces in the database (store/kv.h: they start with '.'), in name
 * order, for `list`: calls fn for each, after the walk's read has ended (fn may open
 * them). @return BP_OK; BP_ECORRUPT (a name that is no name); BP_EIO. */
int bp_store_spaces(bp_store *s, void (*fn)(void *ctx, const char *name), void *ctx);

/* Checks every block of the table: decodes it and verifies its checksum (on the
 * table's threads). Calls bad() for each corrupt or missing block of a done tier (may
 * be NULL), in (tier, block) order on the calling thread, and returns the number of
 * such blocks (>= 0), or a negative error. */
int bp_table_check_blocks(bp_table *t,
			  void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			  void *ctx);

#endif
