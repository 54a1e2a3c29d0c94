/* SPDX-License-Identifier: MIT */
/* Block codec. A block value, as stored under its 12-byte key (see codec.h):
 *
 *   offset  size  field (integers little-endian)
 *        0     4  block magic "BPBK"
 *        4     2  format version (BP_STORE_FORMAT)
 *        6     2  encoding flags: bit 0 set = byte planes (see below); bit 1 set =
 *                 the model coding (store/rcmodel.c) instead of zstd; bit 2 set =
 *                 structural holes not stored (see below); bit 3 set = wins in 1
 *                 foretold by the rules (see below); others 0
 *        8     4  record count n
 *       12     4  frame size f: the value is exactly 32 + f bytes
 *       16     8  content checksum = bp_hash64(content, K)
 *       24     8  value checksum = bp_hash64(frame, bp_hash64(bytes 0-23, K))
 *                 where K = bp_hash64(key, seed)
 *       32     f  one zstd frame (with its content size) of the 2n encoded bytes, or
 *                 with bit 1, the model coder's payload (laid out in rcmodel.c); with
 *                 bit 2, the payload below
 *
 * "content" is the n records as 2n little-endian bytes, whatever the encoding, so the
 * checksum is a function of what the block means: a bit flipped anywhere (header,
 * frame, or a frame that still decodes to something else), a truncated value or a
 * value moved under another key (another block, tier or, through the seed, another
 * table) all fail it. The value checksum covers the stored bytes themselves, with the
 * same key and seed: zstd ignores a few bits of a frame (an unused header bit,
 * padding), and a flip there leaves the content intact but is still damage to report.
 * It alone catches every flip, truncation and misplaced block, before zstd sees the
 * frame; single-record probes rely on it and skip hashing the decoded content
 * (BP_CODEC_FAST), while whole-tier reads and checks verify both. The record count and
 * frame size are checked before decoding so that a damaged header never makes zstd
 * write past the buffer.
 *
 * Byte planes: the records' low bytes first, then their high bytes. Remoteness is
 * small for almost every position, so the high plane is nearly constant and zstd
 * squeezes it to almost nothing, while the low plane keeps the value bits next to
 * each other (the "shuffle" filter of Blosc and HDF5, for the same reason). On the
 * solved taifas:3x4 table, 65536-record blocks at level 9 take 0.49 bits per record
 * as planes against 0.63 interleaved (0.36 against 0.41 at level 19); bit-packing the
 * values apart from the remoteness did worse (0.68). Decoding also accepts interleaved
 * records (flag clear), which nothing writes today.
 *
 * The default level, 9, is where the ratio levels off on that table (level 3: 0.65,
 * 7: 0.55, 9: 0.50 bits per record) while writing still runs at about 50 million
 * records per second per core; level 19 squeezes to 0.36 but writes 20 times slower.
 *
 * The model coding (flag bit 1, flags exactly 2): from level BP_CODEC_MODEL_LEVEL up,
 * the encoder also codes the block with store/rcmodel.c (an adaptive binary range
 * coder over a context model of the records) and keeps it when it is strictly smaller
 * than the zstd frame, so a block is never larger than before. Lower levels, the
 * default 9 among them, stay zstd alone: the model coding decodes about 10 times
 * slower, which makes cold probes about 15 times fewer a second (store.c), for 1 to
 * 16% fewer bytes. On solved tables
 * (bench/bench_codec) the model coding wins most blocks of havannah:hex3, chicken:tri5
 * and taifas:4x4 and few of revised Glorieta's, whose long exact repeats zstd's
 * matches already take. Both checksums are as before: the content checksum is of the
 * records, whatever the encoding, and the value checksum of the stored bytes.
 *
 * Structural holes (flag bit 2, flags exactly 5 = zstd planes or 6 = model coding):
 * most indices of a dense index are not positions at all (on taifas:4x4, 75 million
 * of 86 million are symmetric images of another index), and their records are 0 by
 * construction. The caller that knows the index (the solver, through the game: store/
 * only passes it on) gives a mask of the block's indices, bit i of word i / 64 set
 * when index first + i may hold a position; the encoder stores only the records at
 * set bits, so a hole the index already implies costs nothing, and the decoder, given
 * the same mask, puts zeros back at the clear bits. The encoder writes this encoding
 * only when every record at a clear bit is 0 (else the block is coded whole, as
 * before), so it is lossless for any mask; the mask only has to be the same at both
 * ends. The payload with bit 2 is
 *
 *   offset  size  field
 *        0     8  mask checksum = bp_hash64(mask, K), the mask as ceil(n / 64)
 *                 little-endian 64-bit words with the bits past n clear
 *        8   f-8  the zstd frame (byte planes) of the m records at set bits, 2m
 *                 bytes, or (flags 6) their model coding; m = the mask's popcount
 *
 * The mask checksum makes a wrong mask (a game whose index changed, a damaged or
 * mismatched mask) fail as "index mask does not match the block" (BP_ECORRUPT) before
 * anything is decoded, probes included (which skip the content checksum). Both
 * checksums keep their meaning: the content checksum is of all n records, holes
 * included, so a table's content hash does not depend on the encoding, and the value
 * checksum covers the stored bytes, mask checksum among them. A block needing a mask
 * read without one (bp_codec_decode, or a reader that does not know the game) fails
 * with "block needs its game's index mask" (BP_ECORRUPT), never a misread; a codec
 * older than this encoding refuses flags 5 and 6 as an unknown encoding.
 *
 * Foretold wins (flag bit 3, flags exactly 14 = holes and the model coding): the caller
 * may also give hints, a second bitmap of the block, set where the rules foretell that
 * the record is a win in 1 (the mover has a move that wins at once: the solver layer
 * asks the game). The model coding then codes each hinted record as one decision,
 * "the record foretold" (store/rcmodel.c), so that those positions cost a small
 * fraction of a bit, and a hint that fails (an unreached position, whose record is 0)
 * still codes its record. Payload: the mask checksum, then 8 bytes of hints checksum
 * (bp_hash64 of hints AND mask as for the mask, seeded with K + 1), then the model
 * coding. A wrong set of hints fails "foretold wins do not match the block", a read
 * without them "block needs its game's foretold wins", and a codec older than this
 * flag refuses it as an unknown encoding. When zstd beats the model coding the block
 * is written as flags 5, without hints.
 *
 * Compatibility. Blocks written before the model coding (flags 0 or 1) decode as
 * before, and the format version stays 1: a database is still read by this codec
 * whatever mix of encodings its blocks have, and bumping BP_STORE_FORMAT would have
 * made every existing database unreadable for no gain. A codec older than the model
 * coding checks the flags before anything else and refuses any flag it does not know
 * ("bad block header", BP_ECORRUPT: query and verify exit 3), so it never misreads a
 * model-coded block; it cannot say why, which is the price of not bumping the
 * version. This codec names such a block "unknown block encoding", so a later
 * encoding (a flag this codec does not know) is refused with a message that says so. */
#include "store/codec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_estimateCCtxSize */
#include <zstd.h>

#include "canon/error.h"
#include "store/rcmodel.h"
#include "store/store.h"

#define BP_BLOCK_MAGIC "BPBK"
#define BP_BLOCK_PLANES 1u
#define BP_BLOCK_MODEL 2u
#define BP_BLOCK_HOLES 4u
#define BP_BLOCK_HINTS 8u
#define BP_MASK_SUM_SIZE 8
#define BP_CODEC_DEFAULT_LEVEL 9

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BP_BIG_ENDIAN 1
#else
#define BP_BIG_ENDIAN 0
#endif

struct bp_codec {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	uint8_t *planes; /* 2n bytes: the encoded (byte-plane) records */
	size_t planes_cap;
	uint8_t *out; /* header + frame */
	size_t out_cap;
	uint8_t *model; /* the model coding of the block being encoded */
	size_t model_cap;
	uint16_t *le; /* big-endian hosts only: records as little-endian for hashing */
	size_t le_cap;
	uint16_t *packed; /* the records at the mask's set bits */
	size_t packed_cap;
	uint64_t *mle; /* big-endian hosts only: the mask as little-endian for hashing */
	size_t mle_cap;
	uint64_t *hints; /* the hints at the mask's set bits, packed as the records are */
	size_t hints_cap;
	/* the zstd frame of zn zero records at zlevel, the last one made: a dense index
	 * that is mostly holes stores block after block of zeros, whose frame is always
	 * the same bytes */
	uint8_t *zframe;
	size_t zlen;
	uint32_t zn;
	int zlevel;
};

/* ---- XXH64 ---- */

static const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full,
		      P3 = 0x165667B19E3779F9ull, P4 = 0x85EBCA77C2B2AE63ull,
		      P5 = 0x27D4EB2F165667C5ull;

static uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void wr64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t xxh_round(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

static uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	acc ^= xxh_round(0, v);
	return acc * P1 + P4;
}

uint64_t bp_hash64(const void *data, size_t n, uint64_t seed)
{
	const uint8_t *p = data, *end = p + n;
	uint64_t h;
	if (n >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		const uint8_t *limit = end - 32;
		do {
			v1 = xxh_round(v1, rd64(p));
			v2 = xxh_round(v2, rd64(p + 8));
			v3 = xxh_round(v3, rd64(p + 16));
			v4 = xxh_round(v4, rd64(p + 24));
			p += 32;
		} while (p <= limit);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xxh_merge(h, v1);
		h = xxh_merge(h, v2);
		h = xxh_merge(h, v3);
		h = xxh_merge(h, v4);
	} else {
		h = seed + P5;
	}
	h += (uint64_t)n;
	for (; end - p >= 8; p += 8) {
		h ^= xxh_round(0, rd64(p));
		h = rotl64(h, 27) * P1 + P4;
	}
	if (end - p >= 4) {
		h ^= (uint64_t)rd32(p) * P1;
		h = rotl64(h, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++) {
		h ^= *p * P5;
		h = rotl64(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

/* ---- keys, buffers ---- */

void bp_codec_key(uint8_t key[BP_CODEC_KEY_SIZE], uint32_t tier, uint64_t block)
{
	for (int i = 0; i < 4; i++)
		key[i] = (uint8_t)(tier >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		key[4 + i] = (uint8_t)(block >> (56 - 8 * i));
}

int bp_codec_create(bp_codec **out)
{
	bp_codec *c = calloc(1, sizeof *c);
	if (!c)
		return BP_ENOMEM;
	c->cctx = ZSTD_createCCtx();
	c->dctx = ZSTD_createDCtx();
	if (!c->cctx || !c->dctx) {
		bp_codec_destroy(c);
		return BP_ENOMEM;
	}
	*out = c;
	return BP_OK;
}

void bp_codec_destroy(bp_codec *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	free(c->planes);
	free(c->out);
	free(c->model);
	free(c->le);
	free(c->packed);
	free(c->mle);
	free(c->hints);
	free(c->zframe);
	free(c);
}

uint64_t bp_codec_encoder_bytes(int level, uint64_t n)
{
	/* zstd sizes its context by the input's size: small blocks, small tables */
	ZSTD_compressionParameters cp = ZSTD_getCParams(level, 2 * n, 0);
	return ZSTD_estimateCCtxSize_usingCParams(cp);
}

static int grow(void *pp, size_t *cap, size_t need)
{
	void **p = pp;
	if (*cap >= need && *p)
		return BP_OK;
	void *q = realloc(*p, need ? need : 1);
	if (!q)
		return BP_ENOMEM;
	*p = q;
	*cap = need;
	return BP_OK;
}

/* The content checksum of a block: its records as little-endian bytes, seeded with
 * K = bp_hash64(key, seed). */
static int content_checksum(bp_codec *c, uint64_t k, const uint16_t *records, uint32_t n,
			    uint64_t *sum)
{
	const void *bytes = records;
	if (BP_BIG_ENDIAN) {
		if (grow(&c->le, &c->le_cap, (size_t)n * 2) != BP_OK)
			return BP_ENOMEM;
		uint8_t *le = (uint8_t *)c->le;
		for (uint32_t i = 0; i < n; i++) {
			le[2 * i] = (uint8_t)records[i];
			le[2 * i + 1] = (uint8_t)(records[i] >> 8);
		}
		bytes = le;
	}
	*sum = bp_hash64(bytes, (size_t)n * 2, k);
	return BP_OK;
}

/* The value checksum: the first 24 header bytes, then the frame, seeded with K. */
static uint64_t value_checksum(const uint8_t *h, const uint8_t *frame, size_t f, uint64_t k)
{
	return bp_hash64(frame, f, bp_hash64(h, 24, k));
}

/* The mask checksum (bit 2 payloads): the ceil(n / 64) words of mask, bits past n
 * clear, as little-endian bytes, seeded with K; with and (not NULL), of mask AND and
 * (the hints checksum of bit 3 payloads, seeded with K + 1). */
static int mask_checksum(bp_codec *c, uint64_t k, const uint64_t *mask, const uint64_t *and,
			 uint32_t n, uint64_t *sum)
{
	size_t words = ((size_t)n + 63) / 64;
	if (grow(&c->mle, &c->mle_cap, words * 8 + 8) != BP_OK)
		return BP_ENOMEM;
	uint8_t *b = (uint8_t *)c->mle;
	for (size_t i = 0; i < words; i++) {
		uint64_t v = and? mask[i] & and[i] : mask[i];
		if (i == words - 1 && n % 64)
			v &= (1ull << n % 64) - 1;
		wr64(b + 8 * i, v);
	}
	*sum = bp_hash64(b, words * 8, k);
	return BP_OK;
}

/* Whether every record at a clear bit of mask is 0; *m counts the set bits. */
static int holes_are_zero(const uint16_t *records, uint32_t n, const uint64_t *mask, uint32_t *m)
{
	uint32_t set = 0;
	uint16_t any = 0;
	for (uint32_t i = 0; i < n; i++) {
		unsigned bit = mask[i / 64] >> (i % 64) & 1;
		set += bit;
		any |= bit ? 0 : records[i];
	}
	*m = set;
	return any == 0;
}

/* Codes n records into c->out at offset BP_CODEC_HEADER_SIZE + off (room for the
 * zstd bound of 2n bytes there): the zstd frame of their byte planes, or from
 * BP_CODEC_MODEL_LEVEL up the model coding when strictly smaller. cache: the records
 * are the whole block (the frame of an all-zero block may be remembered). */
static int code_records(bp_codec *c, const uint16_t *records, uint32_t n, int lv, size_t off,
			int cache, const uint64_t *hints, size_t *flen, unsigned *enc)
{
	size_t raw = (size_t)n * 2, bound = ZSTD_compressBound(raw);
	uint8_t *dst = c->out + BP_CODEC_HEADER_SIZE + off;
	if (grow(&c->planes, &c->planes_cap, raw) != BP_OK)
		return BP_ENOMEM;
	int zero = cache && bp_codec_all_zero(records, n);
	size_t f;
	if (zero && c->zframe && c->zn == n && c->zlevel == lv) {
		/* the same input at the same level: zstd would write these bytes again */
		f = c->zlen;
		memcpy(dst, c->zframe, f);
	} else {
		/* restrict: the planes never overlap the records, so the split vectorizes */
		uint8_t *restrict lo = c->planes, *restrict hi = c->planes + n;
		const uint16_t *restrict in = records;
		for (uint32_t i = 0; i < n; i++) {
			lo[i] = (uint8_t)in[i];
			hi[i] = (uint8_t)(in[i] >> 8);
		}
		f = ZSTD_compressCCtx(c->cctx, dst, bound, c->planes, raw, lv);
		if (ZSTD_isError(f))
			return BP_EIO;
		if (zero) {
			uint8_t *z = realloc(c->zframe, f ? f : 1);
			if (z) { /* without room it is only not remembered */
				memcpy(z, dst, f);
				c->zframe = z;
				c->zlen = f;
				c->zn = n;
				c->zlevel = lv;
			}
		}
	}
	*enc = BP_BLOCK_PLANES;
	if (lv >= BP_CODEC_MODEL_LEVEL && n > 0 && f > 1) {
		/* the model coding when it is strictly smaller: its coder stops at f - 1 */
		if (grow(&c->model, &c->model_cap, f - 1) != BP_OK)
			return BP_ENOMEM;
		long m = bp_rcmodel_encode(records, n, hints, c->model, f - 1);
		if (m > 0) {
			f = (size_t)m;
			memcpy(dst, c->model, f);
			*enc = BP_BLOCK_MODEL;
		}
	}
	*flen = f;
	return BP_OK;
}

int bp_codec_encode(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
		    const uint16_t *records, uint32_t n, int level, const void **out,
		    size_t *outlen)
{
	return bp_codec_encode_mask(c, key, keylen, seed, records, n, level, NULL, out, outlen);
}

int bp_codec_encode_mask(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			 const uint16_t *records, uint32_t n, int level, const uint64_t *mask,
			 const void **out, size_t *outlen)
{
	return bp_codec_encode_hinted(c, key, keylen, seed, records, n, level, mask, NULL, out,
				      outlen);
}

/* Packs into c->hints the bits of hints at the set bits of mask (n records, m set):
 * bit j for the j-th set bit. @return BP_OK; BP_ENOMEM. */
static int pack_hints(bp_codec *c, const uint64_t *mask, const uint64_t *hints, uint32_t n,
		      uint32_t m)
{
	if (grow(&c->hints, &c->hints_cap, ((size_t)m + 63) / 64 * 8 + 8) != BP_OK)
		return BP_ENOMEM;
	memset(c->hints, 0, ((size_t)m + 63) / 64 * 8 + 8);
	uint32_t j = 0;
	for (uint32_t w = 0; w < (n + 63) / 64; w++) {
		uint64_t bits = mask[w];
		if (w == (n - 1) / 64 && n % 64)
			bits &= (1ull << n % 64) - 1;
		for (; bits; bits &= bits - 1, j++)
			if (hints[w] >> __builtin_ctzll(bits) & 1)
				c->hints[j / 64] |= 1ull << (j % 64);
	}
	return BP_OK;
}

int bp_codec_encode_hinted(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			   const uint16_t *records, uint32_t n, int level, const uint64_t *mask,
			   const uint64_t *hints, const void **out, size_t *outlen)
{
	if (n > BP_CODEC_MAX_RECORDS)
		return BP_EINVAL;
	size_t raw = (size_t)n * 2, bound = ZSTD_compressBound(raw);
	if (grow(&c->out, &c->out_cap, BP_CODEC_HEADER_SIZE + 2 * BP_MASK_SUM_SIZE + bound) !=
	    BP_OK)
		return BP_ENOMEM;
	int lv = level ? level : BP_CODEC_DEFAULT_LEVEL;
	uint64_t k = bp_hash64(key, keylen, seed), sum;
	uint32_t m = 0;
	size_t f;
	unsigned enc;
	int rc;
	if (mask && holes_are_zero(records, n, mask, &m)) {
		if (grow(&c->packed, &c->packed_cap, (size_t)m * 2) != BP_OK)
			return BP_ENOMEM;
		uint32_t j = 0;
		for (uint32_t w = 0; w < (n + 63) / 64; w++) {
			uint64_t bits = mask[w];
			if (w == (n - 1) / 64 && n % 64)
				bits &= (1ull << n % 64) - 1;
			for (; bits; bits &= bits - 1)
				c->packed[j++] = records[64 * w + (uint32_t)__builtin_ctzll(bits)];
		}
		assert(j == m);
		/* with hints (the model coding only), a second checksum after the mask's */
		int hinted = hints && lv >= BP_CODEC_MODEL_LEVEL;
		size_t off = BP_MASK_SUM_SIZE * (hinted ? 2 : 1);
		uint64_t hsum = 0;
		if ((rc = mask_checksum(c, k, mask, NULL, n, &sum)) != BP_OK ||
		    (hinted && ((rc = pack_hints(c, mask, hints, n, m)) != BP_OK ||
				(rc = mask_checksum(c, k + 1, mask, hints, n, &hsum)) != BP_OK)) ||
		    (rc = code_records(c, c->packed, m, lv, off, 0, hinted ? c->hints : NULL, &f,
				       &enc)) != BP_OK)
			return rc;
		wr64(c->out + BP_CODEC_HEADER_SIZE, sum);
		if (hinted && enc == BP_BLOCK_MODEL) {
			wr64(c->out + BP_CODEC_HEADER_SIZE + BP_MASK_SUM_SIZE, hsum);
			enc |= BP_BLOCK_HINTS;
		} else if (hinted) { /* zstd won: no hints, the frame moves up */
			memmove(c->out + BP_CODEC_HEADER_SIZE + BP_MASK_SUM_SIZE,
				c->out + BP_CODEC_HEADER_SIZE + off, f);
			off = BP_MASK_SUM_SIZE;
		}
		f += off;
		enc |= BP_BLOCK_HOLES;
	} else if ((rc = code_records(c, records, n, lv, 0, 1, NULL, &f, &enc)) != BP_OK) {
		return rc;
	}
	assert(f <= UINT32_MAX);
	if (content_checksum(c, k, records, n, &sum) != BP_OK)
		return BP_ENOMEM;
	uint8_t *h = c->out;
	memcpy(h, BP_BLOCK_MAGIC, 4);
	h[4] = (uint8_t)BP_STORE_FORMAT;
	h[5] = (uint8_t)(BP_STORE_FORMAT >> 8);
	h[6] = (uint8_t)enc;
	h[7] = 0;
	wr32(h + 8, n);
	wr32(h + 12, (uint32_t)f);
	wr64(h + 16, sum);
	wr64(h + 24, value_checksum(h, h + BP_CODEC_HEADER_SIZE, f, k));
	*out = c->out;
	*outlen = BP_CODEC_HEADER_SIZE + f;
	return BP_OK;
}

int bp_codec_all_zero(const uint16_t *records, uint32_t n)
{
	uint16_t any = 0;
	for (uint32_t i = 0; i < n; i++)
		any |= records[i];
	return any == 0;
}

/* Records the reason for a failure and returns code. */
static int fail(const char **why, const char *what, int code)
{
	if (why)
		*why = what;
	return code;
}

/* Decodes a zstd frame of f bytes (byte planes, or interleaved with enc 0) into n
 * records. @return BP_OK; BP_ECORRUPT or BP_ENOMEM, *why saying which. */
static int decode_zstd(bp_codec *c, const uint8_t *frame, size_t f, unsigned enc, uint16_t *records,
		       uint32_t n, const char **why)
{
	size_t raw = (size_t)n * 2;
	if (ZSTD_getFrameContentSize(frame, f) != raw)
		return fail(why, "bad zstd frame", BP_ECORRUPT);
	if (grow(&c->planes, &c->planes_cap, raw) != BP_OK)
		return fail(why, "out of memory", BP_ENOMEM);
	size_t got = ZSTD_decompressDCtx(c->dctx, c->planes, raw, frame, f);
	if (ZSTD_isError(got) || got != raw)
		return fail(why, "zstd frame does not decode", BP_ECORRUPT);
	if (enc & BP_BLOCK_PLANES) {
		for (uint32_t i = 0; i < n; i++)
			records[i] = (uint16_t)(c->planes[i] | c->planes[n + i] << 8);
	} else {
		for (uint32_t i = 0; i < n; i++)
			records[i] = (uint16_t)(c->planes[2 * i] | c->planes[2 * i + 1] << 8);
	}
	return BP_OK;
}

/* Decodes a payload of f bytes of encoding enc (without bit 2) into n records. */
static int decode_payload(bp_codec *c, const uint8_t *frame, size_t f, unsigned enc,
			  const uint64_t *hints, uint16_t *records, uint32_t n, const char **why)
{
	if (enc == BP_BLOCK_MODEL) {
		if (bp_rcmodel_decode(frame, f, hints, records, n) != BP_OK)
			return fail(why, "model coding does not decode", BP_ECORRUPT);
		return BP_OK;
	}
	return decode_zstd(c, frame, f, enc, records, n, why);
}

int bp_codec_needs_mask(const void *val, size_t vallen)
{
	const uint8_t *h = val;
	return vallen >= BP_CODEC_HEADER_SIZE && memcmp(h, BP_BLOCK_MAGIC, 4) == 0 && h[7] == 0 &&
	       (h[6] == (BP_BLOCK_HOLES | BP_BLOCK_PLANES) ||
		h[6] == (BP_BLOCK_HOLES | BP_BLOCK_MODEL) ||
		h[6] == (BP_BLOCK_HOLES | BP_BLOCK_MODEL | BP_BLOCK_HINTS));
}

int bp_codec_needs_hints(const void *val, size_t vallen)
{
	const uint8_t *h = val;
	return vallen >= BP_CODEC_HEADER_SIZE && memcmp(h, BP_BLOCK_MAGIC, 4) == 0 && h[7] == 0 &&
	       h[6] == (BP_BLOCK_HOLES | BP_BLOCK_MODEL | BP_BLOCK_HINTS);
}

int bp_codec_decode(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed, const void *val,
		    size_t vallen, uint16_t *records, uint32_t n, int flags, const char **why)
{
	return bp_codec_decode_mask(c, key, keylen, seed, val, vallen, NULL, records, n, flags,
				    why);
}

int bp_codec_decode_mask(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			 const void *val, size_t vallen, const uint64_t *mask, uint16_t *records,
			 uint32_t n, int flags, const char **why)
{
	return bp_codec_decode_hinted(c, key, keylen, seed, val, vallen, mask, NULL, records, n,
				      flags, why);
}

int bp_codec_decode_hinted(bp_codec *c, const uint8_t *key, size_t keylen, uint64_t seed,
			   const void *val, size_t vallen, const uint64_t *mask,
			   const uint64_t *hints, uint16_t *records, uint32_t n, int flags,
			   const char **why)
{
	const uint8_t *h = val;
	if (n > BP_CODEC_MAX_RECORDS)
		return fail(why, "block too large", BP_EINVAL);
	if (vallen < BP_CODEC_HEADER_SIZE || memcmp(h, BP_BLOCK_MAGIC, 4) != 0)
		return fail(why, "bad block header", BP_ECORRUPT);
	unsigned format = h[4] | (unsigned)h[5] << 8, enc = h[6] | (unsigned)h[7] << 8;
	if (format != BP_STORE_FORMAT)
		return fail(why, "bad block header", BP_ECORRUPT);
	unsigned base = enc & ~(BP_BLOCK_HOLES | BP_BLOCK_HINTS);
	if ((enc & BP_BLOCK_HINTS) ? enc != (BP_BLOCK_HOLES | BP_BLOCK_MODEL | BP_BLOCK_HINTS)
	    : (enc & BP_BLOCK_HOLES)
		    ? base != BP_BLOCK_PLANES && base != BP_BLOCK_MODEL
		    : base != 0 && base != BP_BLOCK_PLANES && base != BP_BLOCK_MODEL)
		return fail(why, "unknown block encoding (written by a newer boardproof?)",
			    BP_ECORRUPT);
	if (rd32(h + 8) != n)
		return fail(why, "wrong record count", BP_ECORRUPT);
	if (rd32(h + 12) != vallen - BP_CODEC_HEADER_SIZE)
		return fail(why, "truncated or overlong block", BP_ECORRUPT);
	const uint8_t *frame = h + BP_CODEC_HEADER_SIZE;
	size_t f = vallen - BP_CODEC_HEADER_SIZE;
	uint64_t k = bp_hash64(key, keylen, seed);
	if (value_checksum(h, frame, f, k) != rd64(h + 24))
		return fail(why, "stored bytes fail their checksum", BP_ECORRUPT);
	int rc;
	if (enc & BP_BLOCK_HOLES) {
		uint64_t msum;
		if (!mask)
			return fail(why,
				    "block needs its game's index mask (holes not stored; read "
				    "the table through its game)",
				    BP_ECORRUPT);
		size_t off = BP_MASK_SUM_SIZE * (enc & BP_BLOCK_HINTS ? 2 : 1);
		if (f < off)
			return fail(why, "truncated or overlong block", BP_ECORRUPT);
		if (mask_checksum(c, k, mask, NULL, n, &msum) != BP_OK)
			return fail(why, "out of memory", BP_ENOMEM);
		if (msum != rd64(frame))
			return fail(why, "index mask does not match the block", BP_ECORRUPT);
		if ((enc & BP_BLOCK_HINTS) && !hints)
			return fail(why,
				    "block needs its game's foretold wins (wins in 1 coded from "
				    "the rules; read the table through its game)",
				    BP_ECORRUPT);
		uint32_t m = 0;
		for (uint32_t w = 0; w < n / 64; w++)
			m += (uint32_t)__builtin_popcountll(mask[w]);
		if (n % 64)
			m += (uint32_t)__builtin_popcountll(mask[n / 64] & ((1ull << n % 64) - 1));
		if (grow(&c->packed, &c->packed_cap, (size_t)m * 2) != BP_OK)
			return fail(why, "out of memory", BP_ENOMEM);
		if (enc & BP_BLOCK_HINTS) {
			if (mask_checksum(c, k + 1, mask, hints, n, &msum) != BP_OK ||
			    pack_hints(c, mask, hints, n, m) != BP_OK)
				return fail(why, "out of memory", BP_ENOMEM);
			if (msum != rd64(frame + BP_MASK_SUM_SIZE))
				return fail(why, "foretold wins do not match the block",
					    BP_ECORRUPT);
		}
		if ((rc = decode_payload(c, frame + off, f - off, base,
					 enc & BP_BLOCK_HINTS ? c->hints : NULL, c->packed, m,
					 why)) != BP_OK)
			return rc;
		memset(records, 0, (size_t)n * sizeof *records);
		uint32_t j = 0;
		for (uint32_t w = 0; w < (n + 63) / 64; w++) {
			uint64_t bits = mask[w];
			if (w == (n - 1) / 64 && n % 64)
				bits &= (1ull << n % 64) - 1;
			for (; bits; bits &= bits - 1)
				records[64 * w + (uint32_t)__builtin_ctzll(bits)] = c->packed[j++];
		}
	} else if ((rc = decode_payload(c, frame, f, enc, NULL, records, n, why)) != BP_OK) {
		return rc;
	}
	if (flags & BP_CODEC_FAST)
		return BP_OK;
	uint64_t sum;
	if (content_checksum(c, k, records, n, &sum) != BP_OK)
		return fail(why, "out of memory", BP_ENOMEM);
	if (sum != rd64(h + 16))
		return fail(why, "content fails its checksum", BP_ECORRUPT);
	return BP_OK;
}
