/* SPDX-License-Identifier: MIT */
/* Scratch files of the walk engine's segments (solver/expanded.c): a solved segment's
 * records wait in one of these, next to the database, until the rest of its tier is
 * solved and the tier is stored in one transaction; a solve resumed after a kill takes
 * back the segments whose files check out and solves the others again.
 *
 * Format (host byte order: a scratch file never leaves the machine that wrote it):
 *     magic "BPSEG001" (8 bytes), struct bp_segfile_head, then the records in pieces of
 *     BP_SEGFILE_PIECE (the last one shorter): per piece its length (uint64_t) and the
 *     store's block codec's bytes (store/codec.h: zstd, with checksums of the key, the
 *     stored bytes and the content) under the key (tier, index of the piece's first
 *     record), seeded with the head's `solve`.
 * The records are mostly zeros (the canonical layout: every other member of a class is
 * 0), so a file takes a small part of the segment's memory: chicken:hex3's segments,
 * 55 GiB in memory, would wait on disk nearly all at once. A file is written under a
 * temporary name and renamed, so that a kill leaves either the whole file or none under
 * the name (it is not synced to disk: after a system crash a file cut short or garbled
 * fails its length or a checksum); a file that is short, of another solve, or fails a
 * checksum is never used.
 *
 * The forward pass's reached bits (BP_GAME_WALK_UNREACHED) are kept in the same files,
 * a tier to a file: its bit words as records of width 2 (four to a word), lo 0, under a
 * `solve` of their own and with count[] saying how far the pass had got (see "reach
 * files" in solver/expanded.c). */
#ifndef BP_SOLVER_SEGFILE_H
#define BP_SOLVER_SEGFILE_H

#include <stdint.h>

#include "canon/error.h"

#define BP_SEGFILE_MAGIC "BPSEG001"
#define BP_SEGFILE_PIECE ((uint64_t)1 << 20) /* records */

struct bp_segfile_head {
	uint64_t solve;	   /* a hash of the instance's spec and the table's tier sizes */
	uint32_t tier;	   /* the segment's tier */
	uint32_t width;	   /* bytes a record in memory: 1 or 2 */
	uint64_t lo, hi;   /* its indices */
	uint64_t count[4]; /* its positions per value */
	uint64_t bytes;	   /* of the pieces after the head (set by bp_segfile_write) */
};

/* Writes path (through path.tmp, renamed) with head h (its bytes filled in)
 * and the records rec (width bytes each); keep NULL, or one bit per record (bit i of
 * word i / 64 for record i): a record whose bit is clear is written as 0 (a segment
 * solved and expanded in one pass keeps only its canonical records so). The pieces are
 * encoded on `threads` threads, a few at a time, and written in order. @return BP_OK;
 * BP_ENOMEM; BP_EIO (errno says why; no file is left under path or path.tmp). */
int bp_segfile_write(const char *path, struct bp_segfile_head *h, const void *rec,
		     const uint64_t *keep, int threads);

/* Reads path's records into rec (width bytes each) when its head matches want (solve,
 * tier, width, lo, hi) and every piece its checksums; fills want->count.
 * @return BP_OK; BP_ENOTFOUND (no such file); BP_ECORRUPT (another solve's, short, or
 * failing a checksum: rec's content unspecified); BP_ENOMEM. */
int bp_segfile_read(const char *path, struct bp_segfile_head *want, void *rec);

/* Checks path's magic, head (as bp_segfile_read) and length, not its records, and fills
 * want->count: what a resumed solve looks at before it counts a segment solved (its
 * records are checked when they are read). @return as bp_segfile_read. */
int bp_segfile_probe(const char *path, struct bp_segfile_head *want);

/* A stream of a file's records, a piece at a time, for a tier's store. */
struct bp_segfile_stream {
	void *f; /* FILE * */
	struct bp_segfile_head h;
	struct bp_codec *c;
	uint16_t *w;	/* the piece decoded */
	void *buf;	/* its stored bytes */
	uint64_t piece; /* the next piece to read */
	uint64_t have, at;
};

/* Opens path for reading its records in order (its head must match want).
 * @return as bp_segfile_read. */
int bp_segfile_open(const char *path, const struct bp_segfile_head *want,
		    struct bp_segfile_stream *s);

/* The next n records, as the store's 16-bit records, each piece checked as it is read.
 * @return BP_OK; BP_ECORRUPT (short, or a checksum fails); BP_ENOMEM. */
int bp_segfile_next(struct bp_segfile_stream *s, uint64_t n, uint16_t *dst);

void bp_segfile_close(struct bp_segfile_stream *s);

#endif
