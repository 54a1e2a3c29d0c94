/* SPDX-License-Identifier: MIT */
/* Compressed byte streams: a buffer that grows as bytes are written to it, compressed
 * as it goes (one zstd frame with its checksum), and a reader that gives the bytes
 * back in any slices. For large things written once and read through in order, such as
 * saved proofs, whose uncompressed form would not fit in memory beside the search that
 * makes them. Knows nothing of what the bytes mean. */
#ifndef BP_STORE_ZSTREAM_H
#define BP_STORE_ZSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "canon/error.h"

typedef struct bp_zout bp_zout;
typedef struct bp_zin bp_zin;

/* A new stream, compressed at zstd level `level` (1..19). @return BP_OK; BP_ENOMEM.
 * The caller owns *out (bp_zout_finish or bp_zout_destroy). */
int bp_zout_create(int level, bp_zout **out);

/* Appends n bytes. @return BP_OK; BP_ENOMEM; BP_EIO (zstd failed). After an error
 * every later write and the finish fail the same way. */
int bp_zout_write(bp_zout *z, const void *p, size_t n);

/* The bytes written so far in uncompressed and compressed form (the last, not yet
 * flushed, part of the frame not counted). */
uint64_t bp_zout_in(const bp_zout *z);
uint64_t bp_zout_out(const bp_zout *z);

/* Ends the frame and hands its bytes to the caller (*buf, *len; free()), destroying z.
 * @return BP_OK; BP_ENOMEM; BP_EIO; on error *buf is NULL and z is destroyed too. */
int bp_zout_finish(bp_zout *z, uint8_t **buf, size_t *len);

void bp_zout_destroy(bp_zout *z);

/* A reader over the len bytes at buf (not copied: they must outlive the reader).
 * @return BP_OK; BP_ENOMEM. The caller owns *out (bp_zin_destroy). */
int bp_zin_create(const void *buf, size_t len, bp_zin **out);

/* Reads exactly n bytes into p. @return BP_OK; BP_ENOTFOUND (the stream ends first:
 * fewer than n bytes were left; at the very end with n > 0 too); BP_ECORRUPT (not a
 * zstd frame, damaged, a failed checksum, or bytes after the frame); BP_ENOMEM. */
int bp_zin_read(bp_zin *z, void *p, size_t n);

/* Whether every byte has been read and the frame ended cleanly. @return BP_OK;
 * BP_ECORRUPT (bytes left, damage, or more after the frame); BP_ENOMEM. */
int bp_zin_end(bp_zin *z);

void bp_zin_destroy(bp_zin *z);

#endif
