/* SPDX-License-Identifier: MIT */
/* Fuzzes the block decoder (store/codec.c) with a stored value as LMDB would hand it
 * back. The input is decoded twice: as it is (which almost always fails a checksum:
 * it must fail cleanly, with a reason), and with its record count, frame size and
 * value checksum made right, so that the fuzzer reaches zstd and the record layout
 * behind them. A block that decodes must encode again to a block that decodes, with
 * both checksums, to the same records. */
#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "store/codec.h"
#include "tests/fuzz/fuzz_common.h"

#define MOST_RECORDS 65536u
#define SEED 0x5eedu

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bp_codec *c;
	static uint16_t *rec, *again;
	if (!c) {
		BP_FUZZ_CHECK(bp_codec_create(&c) == BP_OK, "codec");
		rec = malloc(MOST_RECORDS * sizeof *rec);
		again = malloc(MOST_RECORDS * sizeof *again);
		BP_FUZZ_CHECK(rec && again, "buffers");
	}
	if (size > (1u << 18))
		return 0;
	uint8_t key[BP_CODEC_KEY_SIZE];
	bp_codec_key(key, 3, 7);
	const char *why = NULL;
	uint32_t n = size >= 12 ? (uint32_t)(data[8] | data[9] << 8 | data[10] << 16 |
					     (uint32_t)data[11] << 24)
				: 0;
	n = n < MOST_RECORDS ? n : MOST_RECORDS;
	int rc = bp_codec_decode(c, key, sizeof key, SEED, data, size, rec, n, 0, &why);
	BP_FUZZ_CHECK(rc == BP_OK || rc == BP_ECORRUPT || rc == BP_ENOMEM, "decode's codes");
	BP_FUZZ_CHECK(rc == BP_OK || why, "a failure says why");
	if (size < BP_CODEC_HEADER_SIZE)
		return 0;

	uint8_t *v = malloc(size);
	BP_FUZZ_CHECK(v, "copy");
	memcpy(v, data, size);
	put32(v + 12, (uint32_t)(size - BP_CODEC_HEADER_SIZE));
	uint64_t k = bp_hash64(key, sizeof key, SEED);
	put64(v + 24, bp_hash64(v + BP_CODEC_HEADER_SIZE, size - BP_CODEC_HEADER_SIZE,
				bp_hash64(v, 24, k)));
	why = NULL;
	rc = bp_codec_decode(c, key, sizeof key, SEED, v, size, rec, n, BP_CODEC_FAST, &why);
	BP_FUZZ_CHECK(rc == BP_OK || rc == BP_ECORRUPT || rc == BP_ENOMEM, "decode's codes");
	BP_FUZZ_CHECK(rc == BP_OK || why, "a failure says why");
	if (rc == BP_OK) {
		const void *enc;
		size_t len;
		BP_FUZZ_CHECK(bp_codec_encode(c, key, sizeof key, SEED, rec, n, 1, &enc, &len) ==
				      BP_OK,
			      "what decodes encodes");
		uint8_t *copy = malloc(len);
		BP_FUZZ_CHECK(copy, "copy");
		memcpy(copy, enc, len);
		BP_FUZZ_CHECK(bp_codec_decode(c, key, sizeof key, SEED, copy, len, again, n, 0,
					      NULL) == BP_OK,
			      "a re-encoded block decodes with both checksums");
		BP_FUZZ_CHECK(memcmp(rec, again, (size_t)n * sizeof *rec) == 0,
			      "a re-encoded block holds the same records");
		copy[len / 2] ^= 0x20;
		BP_FUZZ_CHECK(bp_codec_decode(c, key, sizeof key, SEED, copy, len, again, n, 0,
					      NULL) == BP_ECORRUPT,
			      "a flipped bit of a good block is caught");
		free(copy);
	}
	free(v);
	return 0;
}
