/* SPDX-License-Identifier: MIT */
/* Fuzzes the table metadata decoder (store/meta.c). The input is decoded as it is
 * (which almost always fails the checksum: cleanly), and with its checksum appended
 * made right, so that the fuzzer reaches the fields behind it. Metadata that decodes
 * must encode and decode again to the same fields. */
#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "store/codec.h"
#include "store/meta.h"
#include "tests/fuzz/fuzz_common.h"

static void same(const struct bp_meta *a, const struct bp_meta *b)
{
	BP_FUZZ_CHECK(strcmp(a->spec, b->spec) == 0 &&
			      strcmp(a->tool_version, b->tool_version) == 0 &&
			      strcmp(a->extra, b->extra) == 0,
		      "strings survive a round trip");
	BP_FUZZ_CHECK(a->format_version == b->format_version &&
			      a->rules_version == b->rules_version && a->ntiers == b->ntiers &&
			      a->block_records == b->block_records &&
			      a->stored_bytes == b->stored_bytes &&
			      memcmp(&a->seconds, &b->seconds, sizeof a->seconds) == 0 &&
			      a->peak_memory == b->peak_memory,
		      "numbers survive a round trip");
	for (uint32_t i = 0; i < a->ntiers; i++)
		BP_FUZZ_CHECK(a->tier_size[i] == b->tier_size[i] &&
				      a->tier_done[i] == b->tier_done[i] &&
				      a->tier_bytes[i] == b->tier_bytes[i] &&
				      memcmp(a->tier_count + 4 * i, b->tier_count + 4 * i,
					     4 * sizeof *a->tier_count) == 0,
			      "tiers survive a round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	struct bp_meta m, m2;
	int rc = bp_meta_decode(data, size, &m);
	BP_FUZZ_CHECK(rc == BP_OK || rc == BP_ECORRUPT || rc == BP_EFORMAT || rc == BP_ENOMEM,
		      "decode's codes");
	bp_meta_free(&m);

	uint8_t *v = malloc(size + 8);
	BP_FUZZ_CHECK(v, "copy");
	memcpy(v, data, size);
	uint64_t sum = bp_hash64(v, size, 0);
	for (int i = 0; i < 8; i++)
		v[size + (size_t)i] = (uint8_t)(sum >> 8 * i);
	rc = bp_meta_decode(v, size + 8, &m);
	BP_FUZZ_CHECK(rc == BP_OK || rc == BP_ECORRUPT || rc == BP_EFORMAT || rc == BP_ENOMEM,
		      "decode's codes");
	if (rc == BP_OK) {
		uint8_t *enc;
		size_t len;
		BP_FUZZ_CHECK(bp_meta_encode(&m, &enc, &len) == BP_OK, "what decodes encodes");
		BP_FUZZ_CHECK(bp_meta_decode(enc, len, &m2) == BP_OK, "what encodes decodes");
		same(&m, &m2);
		bp_meta_free(&m2);
		free(enc);
	}
	bp_meta_free(&m);
	free(v);
	return 0;
}
