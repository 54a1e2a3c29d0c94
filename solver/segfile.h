/* SPDX-License-Identifier: MIT */
/* Scratch files of the walk engine's segments (solver/expanded.c): a solved segment's
 * records wait in one of these, next to the database, until the rest of its tier is
 * solved and the tier is stored in one transaction; a solve resumed after a kill takes
 * back the segments whose files check out and solves the others again.
 *
 * Format (host byte order: a scratch file never leaves the machine that wrote it):
 *     magic "BPSEG001" (8 bytes), then struct bp_segfile_head, then the records
 *     (width bytes each, hi - lo of them).
 * The head's checksum is XXH64 (bp_hash64) chained over the records in pieces of
 * BP_SEGFILE_PIECE bytes, each piece's seed the hash so far (0 first). A file is
 * written under a temporary name, flushed to disk and renamed, so that a kill leaves
 * either the whole file or none under the name; a file that is short, of another
 * solve, or fails its checksum is never used. */
#ifndef BP_SOLVER_SEGFILE_H
#define BP_SOLVER_SEGFILE_H

#include <stdint.h>

#include "canon/error.h"

#define BP_SEGFILE_MAGIC "BPSEG001"
#define BP_SEGFILE_PIECE ((uint64_t)1 << 20)

struct bp_segfile_head {
	uint64_t solve;	   /* a hash of the instance's spec and the table's tier sizes */
	uint32_t tier;	   /* the segment's tier */
	uint32_t width;	   /* bytes a record: 1 or 2 */
	uint64_t lo, hi;   /* its indices */
	uint64_t count[4]; /* its positions per value */
	uint64_t checksum; /* of the records */
};

/* Writes path (through path.tmp, flushed and renamed) with head h (its checksum filled
 * in) and the records rec. @return BP_OK; BP_EIO (errno says why; no file is left under
 * path or path.tmp). */
int bp_segfile_write(const char *path, struct bp_segfile_head *h, const void *rec);

/* Reads path's records into rec when its head matches want (solve, tier, width, lo,
 * hi) and its records their checksum; fills want->count. @return BP_OK; BP_ENOTFOUND
 * (no such file); BP_ECORRUPT (another solve's, short, or failing its checksum: rec's
 * content unspecified). */
int bp_segfile_read(const char *path, struct bp_segfile_head *want, void *rec);

/* Checks path's magic, head (as bp_segfile_read) and length, not its records, and fills
 * want->count and want->checksum: what a resumed solve looks at before it counts a
 * segment solved (its records are checked when they are read). @return as
 * bp_segfile_read. */
int bp_segfile_probe(const char *path, struct bp_segfile_head *want);

/* A stream of a checked file's records, for a tier's store. */
struct bp_segfile_stream {
	void *f; /* FILE * */
	uint64_t left, checksum, width;
	uint8_t *piece;	   /* BP_SEGFILE_PIECE bytes */
	uint64_t have, at; /* bytes in piece, bytes of it taken */
	uint64_t want;	   /* the head's checksum */
};

/* Opens path for reading its records in order (its head must match want).
 * @return as bp_segfile_read; BP_ENOMEM. */
int bp_segfile_open(const char *path, const struct bp_segfile_head *want,
		    struct bp_segfile_stream *s);

/* The next n records, widened to 16 bits. The checksum is checked when the last piece
 * is read. @return BP_OK; BP_ECORRUPT (short, or the checksum fails); BP_EIO. */
int bp_segfile_next(struct bp_segfile_stream *s, uint64_t n, uint16_t *dst);

void bp_segfile_close(struct bp_segfile_stream *s);

#endif
