/* SPDX-License-Identifier: MIT */
/* Block codec: the XXH64 hash against known answers and against zstd's own frame
 * checksum, block round trips, and every kind of damage a block can suffer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "store/codec.h"
#include "store/store.h"
#include "tests/rng.h"

#define SEED 20261121u

static uint64_t rng_state;

static uint64_t rng(void)
{
	return splitmix64(&rng_state);
}

/* Records shaped like a solved tier: runs of equal values, small remoteness. */
static void fill(uint16_t *r, uint32_t n)
{
	unsigned v = 1, rem = 3;
	for (uint32_t i = 0; i < n; i++) {
		if (rng() % 16 == 0) {
			v = (unsigned)(rng() % 4);
			rem = (unsigned)(rng() % 40);
		}
		r[i] = (uint16_t)(v | rem << 2);
	}
}

Test(codec, hash_known_answers)
{
	/* published XXH64 test vectors, seed 0 */
	cr_expect_eq(bp_hash64("", 0, 0), 0xEF46DB3751D8E999ull);
	cr_expect_eq(bp_hash64("a", 1, 0), 0xD24EC4F1A98C6E5Bull);
	cr_expect_eq(bp_hash64("abc", 3, 0), 0x44BC2CF5AD770999ull);
}

/* zstd writes the low 32 bits of XXH64(content, seed 0) at the end of a frame made
 * with the checksum flag: an independent implementation to compare with, at every
 * length around the 4-, 8- and 32-byte boundaries of the algorithm. */
Test(codec, hash_agrees_with_zstd)
{
	rng_state = SEED;
	printf("codec.hash_agrees_with_zstd: seed %u\n", SEED);
	uint8_t data[1100], frame[2048];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)rng();
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	cr_assert(cctx);
	cr_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)));
	for (size_t n = 0; n < sizeof data; n += n < 100 ? 1 : 97) {
		size_t f = ZSTD_compress2(cctx, frame, sizeof frame, data, n);
		cr_assert(!ZSTD_isError(f) && f >= 4);
		uint32_t z = (uint32_t)frame[f - 4] | (uint32_t)frame[f - 3] << 8 |
			     (uint32_t)frame[f - 2] << 16 | (uint32_t)frame[f - 1] << 24;
		cr_expect_eq((uint32_t)bp_hash64(data, n, 0), z, "length %zu", n);
	}
	ZSTD_freeCCtx(cctx);
	/* the seed matters */
	cr_expect_neq(bp_hash64(data, 40, 1), bp_hash64(data, 40, 0));
}

Test(codec, key_is_big_endian)
{
	uint8_t key[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, 0x01020304u, 0x05060708090a0b0cull);
	const uint8_t want[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	cr_expect_arr_eq(key, want, sizeof want);
}

Test(codec, round_trip)
{
	static const uint32_t sizes[] = { 0, 1, 2, 7, 1000, 65536 };
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	rng_state = SEED;
	uint16_t *in = malloc(65536 * 2), *back = malloc(65536 * 2);
	cr_assert(in && back);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		uint32_t n = sizes[s];
		uint8_t key[BP_CODEC_KEY_SIZE];
		bp_codec_key(key, 3, s);
		fill(in, n);
		const void *val;
		size_t len;
		cr_assert_eq(bp_codec_encode(c, key, sizeof key, 42, in, n, 0, &val, &len), BP_OK);
		cr_expect_geq(len, BP_CODEC_HEADER_SIZE);
		void *copy = malloc(len);
		memcpy(copy, val, len);
		memset(back, 0xff, 65536 * 2);
		cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, copy, len, back, n, 0, NULL),
			     BP_OK, "%u records", n);
		cr_expect_arr_eq(back, in, (size_t)n * 2, "%u records", n);
		if (n == 65536)
			printf("codec.round_trip: %u records -> %zu bytes (%.3f bits/record)\n", n,
			       len, 8.0 * (double)len / n);
		free(copy);
	}
	free(in);
	free(back);
	bp_codec_destroy(c);
}

/* Every single-bit flip anywhere in a block, every truncation, another key, another
 * seed and another record count are all refused. */
Test(codec, damage_is_caught)
{
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	rng_state = SEED + 1;
	uint16_t in[300], back[300];
	fill(in, 300);
	uint8_t key[BP_CODEC_KEY_SIZE], other[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, 2, 5);
	bp_codec_key(other, 2, 6);
	const void *val;
	size_t len;
	cr_assert_eq(bp_codec_encode(c, key, sizeof key, 7, in, 300, 3, &val, &len), BP_OK);
	uint8_t *v = malloc(len);
	memcpy(v, val, len);
	cr_assert_eq(bp_codec_decode(c, key, sizeof key, 7, v, len, back, 300, 0, NULL), BP_OK);
	const char *why;
	for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST) {
		for (size_t bit = 0; bit < len * 8; bit++) {
			v[bit / 8] ^= (uint8_t)(1u << bit % 8);
			why = NULL;
			cr_expect_eq(bp_codec_decode(c, key, sizeof key, 7, v, len, back, 300,
						     flags, &why),
				     BP_ECORRUPT, "bit %zu flipped, flags %d", bit, flags);
			cr_expect(why != NULL);
			v[bit / 8] ^= (uint8_t)(1u << bit % 8);
		}
		for (size_t cut = 0; cut < len; cut++)
			cr_expect_eq(bp_codec_decode(c, key, sizeof key, 7, v, cut, back, 300,
						     flags, NULL),
				     BP_ECORRUPT, "truncated to %zu, flags %d", cut, flags);
		cr_expect_eq(
			bp_codec_decode(c, other, sizeof other, 7, v, len, back, 300, flags, &why),
			BP_ECORRUPT);
		cr_expect_str_eq(why, "stored bytes fail their checksum");
		cr_expect_eq(bp_codec_decode(c, key, sizeof key, 8, v, len, back, 300, flags, NULL),
			     BP_ECORRUPT);
		cr_expect_eq(bp_codec_decode(c, key, sizeof key, 7, v, len, back, 299, flags, NULL),
			     BP_ECORRUPT);
		cr_expect_eq(bp_codec_decode(c, key, sizeof key, 7, v, len, back, 300, flags, NULL),
			     BP_OK);
	}

	/* The second layer on its own: reseal the value checksum (as codec.c documents it)
	 * for another key, so that only the content checksum still names the first key. */
	uint64_t k = bp_hash64(other, sizeof other, 7),
		 sum = bp_hash64(v + BP_CODEC_HEADER_SIZE, len - BP_CODEC_HEADER_SIZE,
				 bp_hash64(v, 24, k));
	for (int i = 0; i < 8; i++)
		v[24 + i] = (uint8_t)(sum >> 8 * i);
	cr_expect_eq(bp_codec_decode(c, other, sizeof other, 7, v, len, back, 300, 0, &why),
		     BP_ECORRUPT);
	cr_expect_str_eq(why, "content fails its checksum");
	cr_expect_eq(
		bp_codec_decode(c, other, sizeof other, 7, v, len, back, 300, BP_CODEC_FAST, NULL),
		BP_OK, "BP_CODEC_FAST trusts the value checksum");
	free(v);
	bp_codec_destroy(c);
}

/* Encodes into a copy (the codec's buffer is reused by the next call). */
static void *encode_copy(bp_codec *c, uint32_t tier, uint64_t block, const uint16_t *r, uint32_t n,
			 int level, size_t *len)
{
	uint8_t key[BP_CODEC_KEY_SIZE];
	const void *val;
	bp_codec_key(key, tier, block);
	cr_assert_eq(bp_codec_encode(c, key, sizeof key, 42, r, n, level, &val, len), BP_OK);
	void *copy = malloc(*len);
	cr_assert(copy);
	memcpy(copy, val, *len);
	return copy;
}

/* A codec remembers the frame of a block of zeros (a run of holes) and reuses it: every
 * block it encodes is the same bytes as a fresh codec encodes, whatever came before
 * (zero blocks of other sizes, levels and keys, and blocks with records between). */
Test(codec, zero_blocks_same_bytes_as_fresh)
{
	static const struct {
		uint32_t n;
		int level, zero;
	} seq[] = { { 16384, 0, 1 }, { 16384, 0, 1 }, { 16384, 0, 0 }, { 16384, 0, 1 },
		    { 1000, 0, 1 },  { 16384, 0, 1 }, { 16384, 9, 1 }, { 16384, 9, 1 },
		    { 16384, 0, 1 }, { 0, 0, 1 },     { 7, 3, 0 },     { 16384, 0, 1 } };
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	rng_state = SEED;
	printf("codec.zero_blocks_same_bytes_as_fresh: seed %u\n", SEED);
	uint16_t *r = malloc(16384 * 2);
	cr_assert(r);
	for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
		uint32_t n = seq[i].n;
		memset(r, 0, 16384 * 2);
		if (!seq[i].zero)
			fill(r, n);
		cr_expect_eq(bp_codec_all_zero(r, n), seq[i].zero || n == 0);
		bp_codec *fresh;
		cr_assert_eq(bp_codec_create(&fresh), BP_OK);
		size_t la, lb;
		void *a = encode_copy(c, 1, i, r, n, seq[i].level, &la);
		void *b = encode_copy(fresh, 1, i, r, n, seq[i].level, &lb);
		cr_expect(la == lb && memcmp(a, b, la) == 0, "step %zu: %u records", i, n);
		uint8_t key[BP_CODEC_KEY_SIZE];
		bp_codec_key(key, 1, i);
		uint16_t *back = malloc(16384 * 2 + 2);
		cr_assert(back);
		cr_expect_eq(bp_codec_decode(fresh, key, sizeof key, 42, a, la, back, n, 0, NULL),
			     BP_OK, "step %zu", i);
		cr_expect(n == 0 || memcmp(back, r, (size_t)n * 2) == 0, "step %zu", i);
		free(back);
		free(a);
		free(b);
		bp_codec_destroy(fresh);
	}
	/* one nonzero record anywhere makes a block not a run of holes */
	memset(r, 0, 16384 * 2);
	for (uint32_t at = 0; at < 16384; at += 1111) {
		r[at] = 4;
		cr_expect_not(bp_codec_all_zero(r, 16384), "record %u", at);
		r[at] = 0;
	}
	free(r);
	bp_codec_destroy(c);
}

/* Records a context model codes far better than zstd: values that follow a period of 5
 * mixed with a slow drift of remoteness and random noise in value. */
static void fill_modelled(uint16_t *r, uint32_t n)
{
	unsigned rem = 4;
	for (uint32_t i = 0; i < n; i++) {
		if (rng() % 50 == 0)
			rem = 2 + (unsigned)(rng() % 30);
		unsigned v = i % 5 == 0 ? 0 : 1 + (unsigned)(rng() % 2);
		r[i] = v ? bp_record_make(v, rem + (v == 1)) : 0;
	}
}

/* The value's encoding flags (bytes 6-7 of the header). */
static unsigned block_flags(const uint8_t *v)
{
	return v[6] | (unsigned)v[7] << 8;
}

/* Rewrites the value checksum after a change to the header, as codec.c documents it. */
static void reseal(uint8_t *v, size_t len, const uint8_t *key, uint64_t seed)
{
	uint64_t k = bp_hash64(key, BP_CODEC_KEY_SIZE, seed),
		 sum = bp_hash64(v + BP_CODEC_HEADER_SIZE, len - BP_CODEC_HEADER_SIZE,
				 bp_hash64(v, 24, k));
	for (int i = 0; i < 8; i++)
		v[24 + i] = (uint8_t)(sum >> 8 * i);
}

/* The codec writes the model coding (flag bit 1) where it is smaller, never a block
 * larger than zstd's byte planes at the same level, and reads both back. */
Test(codec, model_coding_when_smaller)
{
	static const uint32_t sizes[] = { 1, 2, 100, 4096, 65536 };
	rng_state = SEED + 10;
	printf("codec.model_coding_when_smaller: seed %u\n", SEED + 10);
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint16_t *r = malloc(65536 * 2), *back = malloc(65536 * 2);
	uint8_t *planes = malloc(65536 * 2), *frame = malloc(ZSTD_compressBound(65536 * 2));
	cr_assert(r && back && planes && frame);
	unsigned model = 0;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (int kind = 0; kind < 2; kind++) {
			uint32_t n = sizes[s];
			if (kind)
				fill_modelled(r, n);
			else
				fill(r, n);
			size_t len;
			uint8_t *v = encode_copy(c, 4, s, r, n, BP_CODEC_MODEL_LEVEL, &len);
			for (uint32_t i = 0; i < n; i++) {
				planes[i] = (uint8_t)r[i];
				planes[n + i] = (uint8_t)(r[i] >> 8);
			}
			size_t f = ZSTD_compress(frame, ZSTD_compressBound(65536 * 2), planes,
						 (size_t)n * 2, BP_CODEC_MODEL_LEVEL);
			cr_assert(!ZSTD_isError(f));
			cr_expect_leq(len, BP_CODEC_HEADER_SIZE + f, "%u records: never worse", n);
			unsigned fl = block_flags(v);
			cr_expect(fl == 1 || fl == 2, "flags %u", fl);
			model += fl == 2;
			if (kind && n >= 4096)
				cr_expect_eq(fl, 2u, "%u modelled records: the model coding", n);
			uint8_t key[BP_CODEC_KEY_SIZE];
			bp_codec_key(key, 4, s);
			for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST) {
				memset(back, 0xff, 65536 * 2);
				cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, v, len, back,
							     n, flags, NULL),
					     BP_OK);
				cr_expect_arr_eq(back, r, (size_t)n * 2, "%u records", n);
			}
			if (n == 65536)
				printf("codec: %u records, %s: %zu bytes (zstd %zu), flags %u\n", n,
				       kind ? "modelled" : "runs", len, BP_CODEC_HEADER_SIZE + f,
				       fl);
			free(v);
		}
	cr_expect_gt(model, 0);
	/* lower levels, the default among them, write zstd alone */
	fill_modelled(r, 4096);
	size_t len;
	for (int lv = 0; lv < BP_CODEC_MODEL_LEVEL; lv++) {
		uint8_t *v = encode_copy(c, 4, 99, r, 4096, lv, &len);
		cr_expect_eq(block_flags(v), 1u, "level %d: zstd alone", lv);
		free(v);
	}
	free(r);
	free(back);
	free(planes);
	free(frame);
	bp_codec_destroy(c);
}

/* A model-coded block: every single-bit flip, anywhere in the header or the payload,
 * is caught by the checksums (the value checksum alone with BP_CODEC_FAST). */
Test(codec, model_block_flips_are_caught)
{
	rng_state = SEED + 11;
	printf("codec.model_block_flips_are_caught: seed %u\n", SEED + 11);
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint32_t n = 2000;
	uint16_t *r = malloc(n * 2), *back = malloc(n * 2);
	cr_assert(r && back);
	fill_modelled(r, n);
	size_t len;
	uint8_t *v = encode_copy(c, 5, 6, r, n, BP_CODEC_MODEL_LEVEL, &len);
	cr_assert_eq(block_flags(v), 2u, "the model coding is picked");
	uint8_t key[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, 5, 6);
	for (size_t at = 0; at < len; at++)
		for (int bit = 0; bit < 8; bit++) {
			v[at] ^= (uint8_t)(1u << bit);
			for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST)
				cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, v, len, back,
							     n, flags, NULL),
					     BP_ECORRUPT, "byte %zu bit %d", at, bit);
			v[at] ^= (uint8_t)(1u << bit);
		}
	/* a payload resealed after damage (so that only the content checksum is left)
	 * is still caught when the damage changes the records */
	const char *why = NULL;
	v[BP_CODEC_HEADER_SIZE + 20] ^= 0x10;
	reseal(v, len, key, 42);
	int rc = bp_codec_decode(c, key, sizeof key, 42, v, len, back, n, 0, &why);
	cr_expect_eq(rc, BP_ECORRUPT);
	cr_expect(why && (strcmp(why, "content fails its checksum") == 0 ||
			  strcmp(why, "model coding does not decode") == 0),
		  "why: %s", why ? why : "(null)");
	free(v);
	free(r);
	free(back);
	bp_codec_destroy(c);
}

/* A block as the codec wrote it before the model coding existed (zstd byte planes;
 * these bytes came from the codec at commit cf8ecde): key (3, 7), seed 42, 64 records
 * r[i] = i % 3 ? (1 + i % 2) | (i % 7) << 2 : 0. */
static const uint8_t old_block[93] = {
	0x42, 0x50, 0x42, 0x4b, 0x01, 0x00, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x3d, 0x00,
	0x00, 0x00, 0x1a, 0xa8, 0xd3, 0x22, 0xd5, 0xc6, 0x94, 0x55, 0xe2, 0x20, 0x4c, 0x58,
	0xf1, 0x7b, 0xfb, 0xb0, 0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x80, 0xa5, 0x01, 0x00, 0xa4,
	0x02, 0x00, 0x06, 0x09, 0x00, 0x11, 0x16, 0x00, 0x02, 0x05, 0x00, 0x0d, 0x12, 0x00,
	0x1a, 0x01, 0x00, 0x09, 0x0e, 0x00, 0x16, 0x19, 0x00, 0x05, 0x0a, 0x00, 0x12, 0x15,
	0x00, 0x01, 0x06, 0x00, 0x0e, 0x11, 0x00, 0x19, 0x02, 0x00, 0x0a, 0x0d, 0x00, 0x15,
	0x1a, 0x02, 0x00, 0x05, 0x12, 0x50, 0x53, 0x54, 0x19
};

Test(codec, old_zstd_block_decodes)
{
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint16_t want[64], back[64];
	for (int i = 0; i < 64; i++)
		want[i] = (uint16_t)(i % 3 == 0 ? 0 : (1 + (i & 1)) | (i % 7) << 2);
	uint8_t key[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, 3, 7);
	cr_assert_eq(block_flags(old_block), 1u);
	for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST) {
		memset(back, 0, sizeof back);
		cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, old_block, sizeof old_block,
					     back, 64, flags, NULL),
			     BP_OK);
		cr_expect_arr_eq(back, want, sizeof want);
	}
	bp_codec_destroy(c);
}

/* A block with an encoding flag this codec does not know (a later one's), or with both
 * known flags at once, is refused and named as such, before any decoding: never read
 * as something else. */
Test(codec, unknown_flags_are_refused)
{
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint8_t key[BP_CODEC_KEY_SIZE], v[sizeof old_block];
	uint16_t back[64];
	bp_codec_key(key, 3, 7);
	static const unsigned bad[] = {
		3, 4, 7, 8, 9, 10, 12, 13, 15, 0x100, 0x104, 0x8000, 0xffff
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memcpy(v, old_block, sizeof v);
		v[6] = (uint8_t)bad[i];
		v[7] = (uint8_t)(bad[i] >> 8);
		reseal(v, sizeof v, key, 42);
		for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST) {
			const char *why = NULL;
			cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, v, sizeof v, back, 64,
						     flags, &why),
				     BP_ECORRUPT, "flags 0x%x", bad[i]);
			cr_expect(why && strstr(why, "unknown block encoding"), "flags 0x%x: %s",
				  bad[i], why ? why : "(null)");
		}
	}
	/* a zstd frame marked as the model coding is refused too */
	memcpy(v, old_block, sizeof v);
	v[6] = 2;
	reseal(v, sizeof v, key, 42);
	cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, v, sizeof v, back, 64, 0, NULL),
		     BP_ECORRUPT);
	bp_codec_destroy(c);
}

/* Structural holes (flag bit 2): a random mask of density d, and records that are 0 at
 * every clear bit (and sometimes at set bits too: unreached positions). */
static void random_mask(uint64_t *mask, uint32_t n, unsigned density)
{
	memset(mask, 0, sizeof *mask * ((n + 63) / 64));
	for (uint32_t i = 0; i < n; i++)
		if (rng() % 100 < density)
			mask[i / 64] |= 1ull << i % 64;
	/* bits past n are garbage on purpose: the codec must ignore them */
	if (n % 64)
		mask[n / 64] |= ~0ull << n % 64;
}

static void clear_holes(uint16_t *r, uint32_t n, const uint64_t *mask)
{
	for (uint32_t i = 0; i < n; i++)
		if (!(mask[i / 64] >> i % 64 & 1))
			r[i] = 0;
}

/* Random masks and blocks round-trip through the holes encoding at the zstd and the
 * model levels, are never larger than the whole coding but for the 8-byte mask
 * checksum, and a block with a nonzero record at a clear bit is coded whole. */
Test(codec, holes_round_trip)
{
	static const uint32_t sizes[] = { 0, 1, 63, 64, 65, 1000, 16384, 65536 };
	static const unsigned density[] = { 0, 3, 12, 50, 100 };
	const uint32_t seed = SEED + 7;
	printf("codec.holes_round_trip: seed %u\n", seed);
	rng_state = seed;
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint16_t *in = malloc(65536 * 2), *back = malloc(65536 * 2);
	uint64_t mask[1024];
	cr_assert(in && back);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t d = 0; d < sizeof density / sizeof density[0]; d++)
			for (int level = 9; level <= BP_CODEC_MODEL_LEVEL; level++) {
				uint32_t n = sizes[s];
				uint8_t key[BP_CODEC_KEY_SIZE];
				bp_codec_key(key, (uint32_t)d, s);
				fill(in, n);
				random_mask(mask, n, density[d]);
				clear_holes(in, n, mask);
				const void *val;
				size_t len, whole;
				cr_assert_eq(bp_codec_encode(c, key, sizeof key, 42, in, n, level,
							     &val, &whole),
					     BP_OK);
				cr_assert_eq(bp_codec_encode_mask(c, key, sizeof key, 42, in, n,
								  level, mask, &val, &len),
					     BP_OK);
				uint8_t *v = malloc(len);
				memcpy(v, val, len);
				cr_expect(bp_codec_needs_mask(v, len), "n %u density %u", n,
					  density[d]);
				cr_expect_leq(len, whole + 8, "n %u density %u level %d", n,
					      density[d], level);
				for (int flags = 0; flags <= BP_CODEC_FAST;
				     flags += BP_CODEC_FAST) {
					memset(back, 0xff, 65536 * 2);
					cr_expect_eq(bp_codec_decode_mask(c, key, sizeof key, 42, v,
									  len, mask, back, n, flags,
									  NULL),
						     BP_OK, "n %u density %u level %d", n,
						     density[d], level);
					cr_expect_arr_eq(back, in, (size_t)n * 2,
							 "n %u density %u level %d", n, density[d],
							 level);
				}
				if (n == 65536 && level == 9)
					printf("codec.holes_round_trip: %u records, %u%% set: %zu "
					       "bytes whole, %zu without holes\n",
					       n, density[d], whole, len);
				free(v);
				/* a record where the mask says none can be: coded whole */
				uint32_t at = 0;
				while (at < n && mask[at / 64] >> at % 64 & 1)
					at++;
				if (at < n) {
					in[at] = 5;
					cr_assert_eq(bp_codec_encode_mask(c, key, sizeof key, 42,
									  in, n, level, mask, &val,
									  &len),
						     BP_OK);
					cr_expect(!bp_codec_needs_mask(val, len));
					v = malloc(len);
					memcpy(v, val, len);
					cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, v, len,
								     back, n, 0, NULL),
						     BP_OK);
					cr_expect_arr_eq(back, in, (size_t)n * 2);
					free(v);
				}
			}
	free(in);
	free(back);
	bp_codec_destroy(c);
}

/* A holes block read without a mask, or with another mask (one bit moved, even one
 * that keeps the count; a bit past n does not count), or damaged anywhere (every bit
 * flip, every truncation) fails with BP_ECORRUPT, fast probes included. */
Test(codec, holes_damage_is_caught)
{
	const uint32_t seed = SEED + 8, n = 1000;
	printf("codec.holes_damage_is_caught: seed %u\n", seed);
	rng_state = seed;
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint16_t in[1000], back[1000];
	uint64_t mask[16], other[16];
	fill(in, n);
	random_mask(mask, n, 30);
	clear_holes(in, n, mask);
	for (int level = 9; level <= BP_CODEC_MODEL_LEVEL; level++) {
		uint8_t key[BP_CODEC_KEY_SIZE];
		bp_codec_key(key, 4, 9);
		const void *val;
		size_t len;
		cr_assert_eq(bp_codec_encode_mask(c, key, sizeof key, 42, in, n, level, mask, &val,
						  &len),
			     BP_OK);
		uint8_t *v = malloc(len);
		memcpy(v, val, len);
		cr_expect(block_flags(v) == 5 ||
				  (level >= BP_CODEC_MODEL_LEVEL && block_flags(v) == 6),
			  "flags %u", block_flags(v));
		for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST) {
			const char *why = NULL;
			cr_expect_eq(bp_codec_decode(c, key, sizeof key, 42, v, len, back, n, flags,
						     &why),
				     BP_ECORRUPT);
			cr_expect(why && strstr(why, "needs its game's index mask"), "%s",
				  why ? why : "(null)");
			/* one set bit moved to a clear one: the same count, another mask */
			memcpy(other, mask, sizeof other);
			uint32_t set = 0, clear = 0;
			while (!(mask[set / 64] >> set % 64 & 1))
				set++;
			while (mask[clear / 64] >> clear % 64 & 1)
				clear++;
			other[set / 64] ^= 1ull << set % 64;
			other[clear / 64] ^= 1ull << clear % 64;
			why = NULL;
			cr_expect_eq(bp_codec_decode_mask(c, key, sizeof key, 42, v, len, other,
							  back, n, flags, &why),
				     BP_ECORRUPT);
			cr_expect(why && strstr(why, "index mask does not match"), "%s",
				  why ? why : "(null)");
			/* bits past n are not part of the mask */
			memcpy(other, mask, sizeof other);
			other[n / 64] ^= 1ull << 63;
			cr_expect_eq(bp_codec_decode_mask(c, key, sizeof key, 42, v, len, other,
							  back, n, flags, NULL),
				     BP_OK);
			for (size_t bit = 0; bit < 8 * len; bit++) {
				v[bit / 8] ^= (uint8_t)(1u << bit % 8);
				cr_expect_eq(bp_codec_decode_mask(c, key, sizeof key, 42, v, len,
								  mask, back, n, flags, NULL),
					     BP_ECORRUPT, "bit %zu, level %d", bit, level);
				v[bit / 8] ^= (uint8_t)(1u << bit % 8);
			}
			for (size_t cut = 0; cut < len; cut++)
				cr_expect_eq(bp_codec_decode_mask(c, key, sizeof key, 42, v, cut,
								  mask, back, n, flags, NULL),
					     BP_ECORRUPT, "cut %zu", cut);
		}
		free(v);
	}
	bp_codec_destroy(c);
}

/* Foretold wins (flag bit 3): records at the mask's set bits, a third of them hinted and
 * a win in 1 but for a few hints that fail (an unreached position's 0, another
 * record), round-trip at the model level with the same mask and hints, take fewer
 * bytes than without the hints, and are refused without hints or with other hints;
 * below the model level the hints are not used. */
Test(codec, hints_round_trip)
{
	const uint32_t seed = SEED + 9, n = 16384;
	printf("codec.hints_round_trip: seed %u\n", seed);
	rng_state = seed;
	bp_codec *c;
	cr_assert_eq(bp_codec_create(&c), BP_OK);
	uint16_t *in = malloc(n * 2), *back = malloc(n * 2);
	uint64_t mask[256], hints[256], other[256];
	cr_assert(in && back);
	fill(in, n);
	random_mask(mask, n, 40);
	clear_holes(in, n, mask);
	memset(hints, 0, sizeof hints);
	unsigned wrong = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(mask[i / 64] >> i % 64 & 1) || rng() % 3)
			continue;
		hints[i / 64] |= 1ull << i % 64;
		if (rng() % 50 == 0)
			wrong += in[i] != bp_record_make(1, 1); /* a hint that fails */
		else
			in[i] = bp_record_make(1, 1);
	}
	/* a hint at a hole means nothing */
	for (uint32_t i = 0; i < n; i += 97)
		if (!(mask[i / 64] >> i % 64 & 1))
			hints[i / 64] |= 1ull << i % 64;
	cr_assert_gt(wrong, 0);
	uint8_t key[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, 2, 5);
	const void *val;
	size_t len, plain;
	cr_assert_eq(bp_codec_encode_mask(c, key, sizeof key, 42, in, n, BP_CODEC_MODEL_LEVEL, mask,
					  &val, &plain),
		     BP_OK);
	cr_assert_eq(bp_codec_encode_hinted(c, key, sizeof key, 42, in, n, BP_CODEC_MODEL_LEVEL,
					    mask, hints, &val, &len),
		     BP_OK);
	uint8_t *v = malloc(len);
	memcpy(v, val, len);
	printf("codec.hints_round_trip: %zu bytes without hints, %zu with\n", plain, len);
	cr_expect_lt(len, plain);
	cr_expect(bp_codec_needs_mask(v, len) && bp_codec_needs_hints(v, len));
	cr_expect_eq(block_flags(v), 14);
	for (int flags = 0; flags <= BP_CODEC_FAST; flags += BP_CODEC_FAST) {
		const char *why = NULL;
		memset(back, 0xff, n * 2);
		cr_expect_eq(bp_codec_decode_hinted(c, key, sizeof key, 42, v, len, mask, hints,
						    back, n, flags, &why),
			     BP_OK, "%s", why ? why : "");
		cr_expect_arr_eq(back, in, (size_t)n * 2);
		why = NULL;
		cr_expect_eq(bp_codec_decode_mask(c, key, sizeof key, 42, v, len, mask, back, n,
						  flags, &why),
			     BP_ECORRUPT);
		cr_expect(why && strstr(why, "needs its game's foretold wins"), "%s",
			  why ? why : "(null)");
		/* one hint more at a set bit of the mask */
		memcpy(other, hints, sizeof other);
		uint32_t at = 0;
		while (!(mask[at / 64] >> at % 64 & 1) || (hints[at / 64] >> at % 64 & 1))
			at++;
		other[at / 64] |= 1ull << at % 64;
		why = NULL;
		cr_expect_eq(bp_codec_decode_hinted(c, key, sizeof key, 42, v, len, mask, other,
						    back, n, flags, &why),
			     BP_ECORRUPT);
		cr_expect(why && strstr(why, "foretold wins do not match"), "%s",
			  why ? why : "(null)");
		/* bits at holes are not part of the hints */
		memcpy(other, hints, sizeof other);
		for (uint32_t i = 1; i < n; i += 89)
			if (!(mask[i / 64] >> i % 64 & 1))
				other[i / 64] ^= 1ull << i % 64;
		cr_expect_eq(bp_codec_decode_hinted(c, key, sizeof key, 42, v, len, mask, other,
						    back, n, flags, NULL),
			     BP_OK);
	}
	/* every bit flip and truncation of the stored bytes is caught */
	for (size_t bit = 0; bit < 8 * len; bit += 7) {
		v[bit / 8] ^= (uint8_t)(1u << bit % 8);
		cr_expect_eq(bp_codec_decode_hinted(c, key, sizeof key, 42, v, len, mask, hints,
						    back, n, BP_CODEC_FAST, NULL),
			     BP_ECORRUPT, "bit %zu", bit);
		v[bit / 8] ^= (uint8_t)(1u << bit % 8);
	}
	for (size_t cut = 0; cut < len; cut += 1 + cut / 4)
		cr_expect_eq(bp_codec_decode_hinted(c, key, sizeof key, 42, v, cut, mask, hints,
						    back, n, 0, NULL),
			     BP_ECORRUPT, "cut %zu", cut);
	/* below the model level the hints are not used: a plain holes block */
	cr_assert_eq(
		bp_codec_encode_hinted(c, key, sizeof key, 42, in, n, 9, mask, hints, &val, &len),
		BP_OK);
	cr_expect(bp_codec_needs_mask(val, len) && !bp_codec_needs_hints(val, len));
	free(v);
	free(in);
	free(back);
	bp_codec_destroy(c);
}
