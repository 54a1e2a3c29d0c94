/* SPDX-License-Identifier: MIT */
/* The block codec: turns a run of 16-bit records into the value stored under one
 * block key (a small header and a zstd frame or a model coding) and back, with a 64-bit checksum of the
 * key and the decoded content, so that a flipped bit, a truncated frame or a block
 * moved under another key is caught. Also the 64-bit hash the checksum uses. Knows
 * nothing about LMDB; the block layout is documented in codec.c. */
#ifndef BP_STORE_CODEC_H
#define BP_STORE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "canon/error.h"

/* Size of a block key: tier (4 bytes) then block index (8 bytes), both big-endian, so
 * that LMDB's byte order is (tier, index) order. */
#define BP_CODEC_KEY_SIZE 12
/* Size of the header in front of each block's zstd frame. */
#define BP_CODEC_HEADER_SIZE 32
/* The largest block the codec accepts, in records. */
#define BP_CODEC_MAX_RECORDS (1u << 24)

typedef struct bp_codec bp_codec;

/* A 64-bit hash of n bytes with a seed: XXH64 (Yann Collet's xxHash, 64-bit variant),
 * written out here so that the on-disk checksum does not depend on a library's
 * private symbols. Equal to the reference XXH64 for every input and seed. */
uint64_t bp_hash64(const void *p, size_t n, uint64_t seed);

/* Fills key with the block key of (tier, block). */
void bp_codec_key(uint8_t key[BP_CODEC_KEY_SIZE], uint32_t tier, uint64_t block);

/* Creates a codec: reusable zstd contexts and scratch buffers for blocks of up to
 * BP_CODEC_MAX_RECORDS records.
 * @return BP_OK; BP_ENOMEM. The caller owns *out (bp_codec_destroy). */
int bp_codec_create(bp_codec **out);

void bp_codec_destroy(bp_codec *c);

/* The bytes of the zstd context a codec holds to encode blocks of n records at zstd
 * level `level` (zstd sizes it by the input), for memory plans. */
uint64_t bp_codec_encoder_bytes(int level, uint64_t n);

/* 1 when all n records are 0 (unreachable indices, or nothing stored yet), else 0. */
int bp_codec_all_zero(const uint16_t *records, uint32_t n);

/* Encodes n records (n <= BP_CODEC_MAX_RECORDS, may be 0) stored under key, with seed
 * mixed into the checksum (the store passes a hash of the table's spec), at zstd level
 * `level` (0: the codec's default, 9); from BP_CODEC_MODEL_LEVEL up, the block is the
 * smaller of the zstd frame and the model coding (store/rcmodel.h), below it zstd
 * alone. On success *out points into the
 * codec's own buffer, valid until the next call on c, and *outlen is its length.
 * @return BP_OK; BP_EINVAL (n too large); BP_ENOMEM; BP_EIO (zstd failed). */
int bp_codec_encode(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
		    const uint16_t *records, uint32_t n, int level, const void **out,
		    size_t *outlen);

/* As bp_codec_encode, with mask (NULL: none) the block's structural holes: ceil(n / 64)
 * words, bit i % 64 of word i / 64 set when record i may hold a position. When every
 * record at a clear bit is 0, only the records at set bits are coded (encoding flag
 * bit 2, codec.c), and the block then decodes only with the same mask
 * (bp_codec_decode_mask); otherwise the block is coded whole, as bp_codec_encode does.
 * @return as bp_codec_encode. */
int bp_codec_encode_mask(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			 const uint16_t *records, uint32_t n, int level, const uint64_t *mask,
			 const void **out, size_t *outlen);

/* As bp_codec_encode_mask, with hints (NULL: none) a second bitmap of the block as
 * mask is, set where the caller foretells a win in 1 (bp_record_make(1, 1)); from
 * BP_CODEC_MODEL_LEVEL up, a block coded without its holes by the model coding codes
 * the records at hints AND mask from them (flag bit 3, codec.c), and it then decodes
 * only with the same mask and hints (bp_codec_decode_hinted). Wrong hints cost bytes,
 * never records. @return as bp_codec_encode. */
int bp_codec_encode_hinted(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			   const uint16_t *records, uint32_t n, int level, const uint64_t *mask,
			   const uint64_t *hints, const void **out, size_t *outlen);

/* The lowest level at which bp_codec_encode may model-code a block: an archival
 * setting, opted into with `solve --level`. The model coding stores 1 to 16% fewer
 * bytes than zstd on solved tables, but decodes 10 times slower (cold probes about 15
 * times fewer a second) and doubles the encoding's CPU time, so the default level (9)
 * and the solver's scratch files (1) write zstd alone. */
#define BP_CODEC_MODEL_LEVEL 10

/* Flag for bp_codec_decode: trust the value checksum (which covers every stored byte,
 * the key and the seed) and skip hashing the decoded content. */
#define BP_CODEC_FAST 1

/* Decodes the value val (vallen bytes) stored under key into records, which has room
 * for exactly n records; the block must hold exactly n records and its checksums must
 * match key, seed, the stored bytes and (unless flags has BP_CODEC_FAST) the decoded
 * content. If why is not NULL, a failure sets *why to a static phrase naming what
 * failed ("bad block header", "content fails its checksum", ...).
 * @return BP_OK; BP_ECORRUPT (bad header, record count, frame or checksum); BP_ENOMEM.
 * On failure the content of records is unspecified. */
int bp_codec_decode(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed, const void *val,
		    size_t vallen, uint16_t *records, uint32_t n, int flags, const char **why);

/* Whether the block value val (vallen bytes) is coded without its structural holes,
 * so that decoding it needs the mask it was written with (bp_codec_decode_mask). Looks
 * at the header only: 1 or 0, checking nothing else. */
int bp_codec_needs_mask(const void *val, size_t vallen);

/* Whether the block value val was coded with foretold wins (bp_codec_encode_hinted), so
 * that decoding it needs the hints it was written with too. Header only: 1 or 0. */
int bp_codec_needs_hints(const void *val, size_t vallen);

/* As bp_codec_decode, with mask (NULL: none; ceil(n / 64) words as for
 * bp_codec_encode_mask) for blocks coded without their holes. Such a block read
 * without a mask fails ("block needs its game's index mask"), and with another mask
 * than it was written with fails its mask checksum ("index mask does not match the
 * block"), fast probes included. Blocks of the other encodings ignore mask.
 * @return as bp_codec_decode. */
int bp_codec_decode_mask(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			 const void *val, size_t vallen, const uint64_t *mask, uint16_t *records,
			 uint32_t n, int flags, const char **why);

/* As bp_codec_decode_mask, with hints (NULL: none) for blocks coded with foretold wins:
 * such a block read without hints fails ("block needs its game's foretold wins"), and
 * with other hints than it was written with fails their checksum ("foretold wins do
 * not match the block"). Other blocks ignore hints. @return as bp_codec_decode. */
int bp_codec_decode_hinted(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			   const void *val, size_t vallen, const uint64_t *mask,
			   const uint64_t *hints, uint16_t *records, uint32_t n, int flags,
			   const char **why);

#endif
