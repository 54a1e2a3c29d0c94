/* SPDX-License-Identifier: MIT */
/* The walk engine's scratch files (solver/segfile.c): what is written is read back,
 * records whose keep bit is clear as 0, whatever the number of threads that encode the
 * pieces, over several batches of pieces and a short last piece. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/random.h"
#include "solver/segfile.h"
#include "tests/support.h"

struct segfile_case {
	unsigned width;
	int keep;    /* with a keep mask */
	int threads; /* encoding */
};

ParameterizedTestParameters(segfile, reads_back_what_was_kept)
{
	static struct segfile_case cases[] = {
		{ 1, 1, 1 }, { 1, 1, 3 }, { 1, 0, 2 }, { 2, 1, 2 }, { 2, 0, 1 },
	};
	return cr_make_param_array(struct segfile_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct segfile_case *sc, segfile, reads_back_what_was_kept)
{
	/* 4 * 3 + 1 pieces and a bit: more than one batch at every thread count here,
	 * with a last piece that ends inside a word of the mask */
	const uint64_t lo = 12345, n = 13 * BP_SEGFILE_PIECE + 1000 + 37;
	uint64_t seed = 20261124 + sc->width * 10 + (uint64_t)sc->threads, st = seed;
	cr_log_info("seed %llu", (unsigned long long)seed);
	uint8_t *rec = malloc(n * sc->width), *back = malloc(n * sc->width);
	uint64_t *keep = calloc(n / 64 + 1, sizeof *keep);
	cr_assert(rec && back && keep);
	for (uint64_t i = 0; i < n * sc->width; i++)
		rec[i] = (uint8_t)bp_splitmix64(&st);
	for (uint64_t i = 0; i < n / 64 + 1; i++) /* runs of all, none and some */
		keep[i] = i % 7 == 0 ? ~0ull : i % 7 == 1 ? 0 : bp_splitmix64(&st);
	if (sc->width == 1) /* records in memory of 8 bits: no high byte */
		for (uint64_t i = 0; i < n; i++)
			rec[i] &= 0x7f;
	char *dir = temp_db(), path[256];
	snprintf(path, sizeof path, "%s/seg", dir);
	struct bp_segfile_head h = { .solve = 77,
				     .tier = 5,
				     .width = sc->width,
				     .lo = lo,
				     .hi = lo + n,
				     .count = { 1, 2, 3, 4 } };
	cr_assert_eq(bp_segfile_write(path, &h, rec, sc->keep ? keep : NULL, sc->threads), BP_OK);
	struct bp_segfile_head want = h;
	memset(want.count, 0, sizeof want.count);
	cr_assert_eq(bp_segfile_read(path, &want, back), BP_OK);
	cr_expect_eq(want.count[3], 4);
	for (uint64_t i = 0; i < n; i++) {
		const int kept = !sc->keep || (keep[i / 64] >> (i % 64) & 1);
		for (unsigned b = 0; b < sc->width; b++)
			cr_assert_eq(back[i * sc->width + b], kept ? rec[i * sc->width + b] : 0,
				     "record %llu byte %u (kept %d)", (unsigned long long)i, b,
				     kept);
	}
	free(rec);
	free(back);
	free(keep);
	remove_db(dir);
}
