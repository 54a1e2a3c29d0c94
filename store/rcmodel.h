/* SPDX-License-Identifier: MIT */
/* The model coding of a block of records: an adaptive binary range coder (written
 * here, in the manner of LZMA's) driven by a context model of (value, remoteness)
 * records, for blocks whose records zstd squeezes poorly. The codec (store/codec.c)
 * stores its output as the frame of a block with the model flag; the algorithm and
 * the payload layout are documented in rcmodel.c. Pure functions: no allocation, no
 * state between calls, so that every block decodes on its own; their scratch is on
 * the stack (about 85 KB to decode, 230 KB to encode: fine for glibc's 8 MiB thread
 * stacks, not for tiny ones). */
#ifndef BP_STORE_RCMODEL_H
#define BP_STORE_RCMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "canon/error.h"

/* Encodes n records into out, writing at most cap bytes: the caller passes the size
 * it wants to beat (the zstd frame's), and the coder gives up as soon as it passes it.
 * Any 16-bit records round-trip, not only well-formed ones. hints (NULL: none):
 * ceil(n / 64) words, bit i % 64 of word i / 64 set where the caller foretells that
 * record i is a win in 1 (bp_record_make(1, 1)); such a record then costs a fraction
 * of a bit, and a hint that is wrong costs a few bits more, never correctness. The
 * decoder must be given the same hints.
 * @return the payload's length (> 0) when it fits in cap bytes; BP_ERANGE when it does
 * not (out then holds garbage). */
long bp_rcmodel_encode(const uint16_t *records, uint32_t n, const uint64_t *hints, uint8_t *out,
		       size_t cap);

/* Decodes a payload of len bytes written by bp_rcmodel_encode into exactly n records,
 * with the hints it was written with (other hints give other records, which the
 * block's checksums catch).
 * Never reads outside in[0..len) nor writes past records[n - 1], whatever the bytes.
 * @return BP_OK; BP_ECORRUPT (a malformed payload: bad layout byte, a remoteness out of
 * range, or a payload shorter than what the records need). A payload damaged in a way
 * that still decodes gives wrong records: the block's checksums are what catch that. */
int bp_rcmodel_decode(const uint8_t *in, size_t len, const uint64_t *hints, uint16_t *records,
		      uint32_t n);

#endif
