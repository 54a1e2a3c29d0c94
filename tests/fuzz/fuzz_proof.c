/* SPDX-License-Identifier: MIT */
/* Fuzzes the saved-proof decoder and the proof checker (solver/proof.c). The first byte
 * picks an instance (fuzz_common.c); the rest is a saved proof. It is decoded as it is,
 * and behind a correct header naming the instance (magic, version, spec), so that the
 * fuzzer reaches the strategies and the checker (in both the old node format and the
 * decisions' format, whose strategies are zstd frames). A proof that decodes must encode to
 * bytes that decode and encode again to the same bytes, and the checker must either
 * accept it or name a problem; it never crashes, whatever the positions in it. */
#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "solver/proof.h"
#include "tests/fuzz/fuzz_common.h"

static void decode_and_check(const struct bp_game *g, const uint8_t *data, size_t size)
{
	struct bp_proof *pf = NULL, *pf2 = NULL;
	struct bp_err err = { { 0 } };
	int rc = bp_proof_decode(data, size, &pf, &err);
	BP_FUZZ_CHECK(rc == BP_OK || rc == BP_ECORRUPT || rc == BP_EFORMAT || rc == BP_ENOMEM,
		      "decode's codes");
	BP_FUZZ_CHECK(rc == BP_OK ? pf != NULL : pf == NULL && err.msg[0],
		      "a proof, or a reason and none");
	if (rc != BP_OK)
		return;
	uint8_t *enc, *enc2;
	size_t len, len2;
	BP_FUZZ_CHECK(bp_proof_encode(pf, &enc, &len) == BP_OK, "what decodes encodes");
	BP_FUZZ_CHECK(bp_proof_decode(enc, len, &pf2, &err) == BP_OK, "what encodes decodes");
	BP_FUZZ_CHECK(bp_proof_encode(pf2, &enc2, &len2) == BP_OK, "and encodes again");
	BP_FUZZ_CHECK(len == len2 && memcmp(enc, enc2, len) == 0, "encoding is stable");
	BP_FUZZ_CHECK(bp_proof_size(pf) == bp_proof_size(pf2), "same size");
	free(enc);
	free(enc2);
	bp_proof_free(pf2);
	struct bp_proof_report rep;
	rc = bp_proof_check(g, pf, NULL, &rep);
	BP_FUZZ_CHECK(rc == BP_OK || rc == BP_EFORMAT || rc == BP_ENOMEM, "check's codes");
	if (rc == BP_OK)
		BP_FUZZ_CHECK(rep.ok == 1 || (rep.ok == 0 && rep.problem[0]),
			      "a failing proof names its problem");
	bp_proof_free(pf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_game **games;
	int n = bp_fuzz_games(&games);
	if (size < 1 || size > (1u << 16) || n == 0)
		return 0;
	const struct bp_game *g = games[data[0] % n];
	decode_and_check(g, data + 1, size - 1);

	size_t sl = strlen(g->spec), hl = 16 + sl;
	uint8_t *buf = malloc(hl + size - 1);
	BP_FUZZ_CHECK(buf, "copy");
	/* behind a header of the old node format (1) and of the decisions' format (3) */
	for (int version = 1; version <= 3; version += 2) {
		memcpy(buf, "BPPROOF", 8);
		buf[8] = (uint8_t)version;
		buf[9] = buf[10] = buf[11] = 0;
		for (int i = 0; i < 4; i++)
			buf[12 + i] = (uint8_t)(sl >> 8 * i);
		memcpy(buf + 16, g->spec, sl);
		memcpy(buf + hl, data + 1, size - 1);
		decode_and_check(g, buf, hl + size - 1);
	}
	free(buf);
	return 0;
}
