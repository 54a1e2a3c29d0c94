/* SPDX-License-Identifier: MIT */
/* The model coding of records: round trips of every kind of record (random 16-bit
 * words, solved-table shapes, every value, remoteness up to its maximum) at every block
 * size from 0 to BP_CODEC_MAX_RECORDS, the layout byte's shortcuts, the size cap, and
 * payloads that are damaged, cut short or made up, which must be refused or decode to
 * something without reading or writing outside their buffers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "store/rcmodel.h"
#include "store/store.h"
#include "tests/rng.h"

#define SEED 20261124u

static uint64_t rng_state;

static uint64_t rng(void)
{
	return splitmix64(&rng_state);
}

/* Records shaped like a solved tier: holes in a repeating pattern, runs of a value, a
 * remoteness that drifts, a win's odd and a loss's even when parity is set, draws with
 * a remoteness or without one (BP_RECORD_NO_REMOTENESS), and now and then a jump to
 * the largest remoteness. */
static void fill_solved(uint16_t *r, uint32_t n, int parity)
{
	unsigned v = 1, rem = 5, period = 3 + (unsigned)(rng() % 40);
	for (uint32_t i = 0; i < n; i++) {
		if (i % period == 0 || rng() % 7 == 0) {
			r[i] = 0;
			continue;
		}
		uint64_t x = rng();
		if (x % 13 == 0)
			v = 1 + (unsigned)(x >> 8) % 3;
		if (x % 5 == 0)
			rem = (unsigned)(rem + (x >> 16) % 5) % 60;
		if (x % 997 == 0)
			rem = BP_RECORD_NO_REMOTENESS;
		unsigned r2 = rem;
		if (parity && v == 1)
			r2 |= 1u;
		if (parity && v == 2)
			r2 &= ~1u;
		r[i] = bp_record_make(v, r2);
	}
}

/* Encodes into a buffer of 4 bytes a record (plenty for these records), checks the
 * round trip, and returns the payload's length. */
static long round_trip(const uint16_t *in, uint32_t n, const char *what)
{
	size_t cap = (size_t)n * 4 + 64;
	uint8_t *out = malloc(cap);
	uint16_t *back = malloc((size_t)n * 2 + 2);
	cr_assert(out && back);
	long len = bp_rcmodel_encode(in, n, NULL, out, cap);
	cr_assert_gt(len, 0, "%s: %u records", what, n);
	memset(back, 0x5a, (size_t)n * 2 + 2);
	cr_expect_eq(bp_rcmodel_decode(out, (size_t)len, NULL, back, n), BP_OK, "%s: %u records",
		     what, n);
	cr_expect_arr_eq(back, in, (size_t)n * 2, "%s: %u records", what, n);
	cr_expect_eq(back[n], 0x5a5a, "%s: wrote past the records", what);
	free(out);
	free(back);
	return len;
}

Test(rcmodel, round_trip_every_size)
{
	static const uint32_t sizes[] = { 0, 1, 2, 5, 6, 7, 100, 16384, 65536, 65537 };
	rng_state = SEED;
	printf("rcmodel.round_trip_every_size: seed %u\n", SEED);
	uint16_t *r = malloc(65537 * 2);
	cr_assert(r);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		uint32_t n = sizes[s];
		fill_solved(r, n, 1);
		long len = round_trip(r, n, "solved, parity");
		if (n == 65536)
			printf("rcmodel: 65536 solved-shaped records -> %ld bytes\n", len);
		fill_solved(r, n, 0);
		round_trip(r, n, "solved");
		for (uint32_t i = 0; i < n; i++)
			r[i] = (uint16_t)rng();
		round_trip(r, n, "random words");
		memset(r, 0, (size_t)n * 2);
		len = round_trip(r, n, "holes");
		cr_expect_leq(len, 16 + n / 64, "a block of holes is nearly free: %ld bytes", len);
	}
	free(r);
}

/* Every value with every remoteness from 0 to the largest, in both orders, and with the
 * largest jumps between neighbours. */
Test(rcmodel, every_value_and_remoteness)
{
	uint32_t n = 4 * (BP_RECORD_NO_REMOTENESS + 1);
	uint16_t *r = malloc((size_t)n * 2);
	cr_assert(r);
	for (uint32_t i = 0; i < n; i++)
		r[i] = (uint16_t)i;
	round_trip(r, n, "ascending");
	for (uint32_t i = 0; i < n; i++)
		r[i] = (uint16_t)(n - 1 - i);
	round_trip(r, n, "descending");
	for (uint32_t i = 0; i < n; i++)
		r[i] = bp_record_make(i % 4, i & 8 ? BP_RECORD_NO_REMOTENESS : 0);
	round_trip(r, n, "jumps");
	free(r);
}

Test(rcmodel, largest_block)
{
	uint32_t n = BP_CODEC_MAX_RECORDS;
	uint16_t *r = malloc((size_t)n * 2);
	cr_assert(r);
	rng_state = SEED + 1;
	printf("rcmodel.largest_block: seed %u\n", SEED + 1);
	fill_solved(r, n, 1);
	round_trip(r, n, "largest");
	free(r);
}

/* The layout byte: holes that are all 0 and the parity of a win's and a loss's
 * remoteness are seen and used; one record against the rule turns the shortcut off. */
Test(rcmodel, layout_shortcuts)
{
	uint32_t n = 5000;
	uint16_t *r = malloc((size_t)n * 2);
	uint8_t *out = malloc((size_t)n * 4 + 64);
	cr_assert(r && out);
	rng_state = SEED + 2;
	fill_solved(r, n, 1);
	long len = bp_rcmodel_encode(r, n, NULL, out, (size_t)n * 4 + 64);
	cr_assert_gt(len, 0);
	cr_expect_eq(out[0] & 1u, 1u, "holes are all 0");
	cr_expect_eq((out[0] >> 2) & 3u, 2u, "a win's remoteness is odd");
	cr_expect_eq((out[0] >> 4) & 3u, 1u, "a loss's remoteness is even");
	r[n / 2] = bp_record_make(1, 6);
	r[n / 3] = bp_record_make(0, 1);
	len = round_trip(r, n, "against the rule");
	len = bp_rcmodel_encode(r, n, NULL, out, (size_t)n * 4 + 64);
	cr_assert_gt(len, 0);
	cr_expect_eq(out[0] & 1u, 0u);
	cr_expect_eq((out[0] >> 2) & 3u, 0u);
	free(r);
	free(out);
}

/* The encoder stops at the cap it is given (the codec passes the zstd frame's size). */
Test(rcmodel, cap_is_kept)
{
	uint32_t n = 20000;
	uint16_t *r = malloc((size_t)n * 2);
	uint8_t *out = malloc((size_t)n * 4 + 64);
	cr_assert(r && out);
	rng_state = SEED + 3;
	for (uint32_t i = 0; i < n; i++)
		r[i] = (uint16_t)rng();
	long full = bp_rcmodel_encode(r, n, NULL, out, (size_t)n * 4 + 64);
	cr_assert_gt(full, 100);
	memset(out, 0xee, (size_t)n * 4 + 64);
	cr_expect_eq(bp_rcmodel_encode(r, n, NULL, out, (size_t)full - 1), BP_ERANGE);
	cr_expect_eq(out[full - 1], 0xee, "wrote past the cap");
	cr_expect_eq(bp_rcmodel_encode(r, n, NULL, out, (size_t)full), full);
	cr_expect_eq(bp_rcmodel_encode(r, n, NULL, out, 4), BP_ERANGE);
	free(r);
	free(out);
}

/* Damaged payloads: every truncation, every single-bit flip, a bad layout byte, a zero
 * stride and made-up bytes are refused or decode to some records, never outside the
 * buffers (the sanitizer build checks that part). A flip that still decodes is the
 * block checksums' business (test_codec). */
Test(rcmodel, damaged_payloads)
{
	uint32_t n = 3000;
	uint16_t *r = malloc((size_t)n * 2), *back = malloc((size_t)n * 2);
	uint8_t *out = malloc((size_t)n * 4 + 64), *bad = malloc((size_t)n * 4 + 64);
	cr_assert(r && back && out && bad);
	rng_state = SEED + 4;
	printf("rcmodel.damaged_payloads: seed %u\n", SEED + 4);
	fill_solved(r, n, 1);
	long len = bp_rcmodel_encode(r, n, NULL, out, (size_t)n * 4 + 64);
	cr_assert_gt(len, 10);
	for (long cut = 0; cut < len; cut++)
		cr_expect_eq(bp_rcmodel_decode(out, (size_t)cut, NULL, back, n), BP_ECORRUPT,
			     "cut to %ld of %ld bytes", cut, len);
	unsigned refused = 0, flips = 0;
	for (long at = 0; at < len; at++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(bad, out, (size_t)len);
			bad[at] ^= (uint8_t)(1u << bit);
			int rc = bp_rcmodel_decode(bad, (size_t)len, NULL, back, n);
			cr_expect(rc == BP_OK || rc == BP_ECORRUPT);
			refused += rc == BP_ECORRUPT || memcmp(back, r, (size_t)n * 2) != 0;
			flips++;
		}
	printf("rcmodel.damaged_payloads: %u of %u flips refused or decode to other records\n",
	       refused, flips);
	/* the coder's last bytes carry a few bits that no decision reads, so not all */
	cr_expect_geq(refused, flips - flips / 20, "%u of %u flips", refused, flips);
	memcpy(bad, out, (size_t)len);
	bad[0] |= 3u << 2; /* parity 3 is not a layout */
	cr_expect_eq(bp_rcmodel_decode(bad, (size_t)len, NULL, back, n), BP_ECORRUPT);
	memcpy(bad, out, (size_t)len);
	bad[1] = bad[2] = 0;
	cr_expect_eq(bp_rcmodel_decode(bad, (size_t)len, NULL, back, n), BP_ECORRUPT);
	for (int k = 0; k < 200; k++) {
		size_t l = 5 + (size_t)(rng() % 400);
		for (size_t i = 0; i < l; i++)
			bad[i] = (uint8_t)rng();
		int rc = bp_rcmodel_decode(bad, l, NULL, back, n);
		cr_expect(rc == BP_OK || rc == BP_ECORRUPT);
	}
	free(r);
	free(back);
	free(out);
	free(bad);
}

/* Hints: records foretold as a win in 1 round-trip at every block size with the hints
 * they were coded with, a wrong hint (the record is another) included, and cost less
 * than without hints; decoded with no hints, the payload gives other records or is
 * refused, never these. */
Test(rcmodel, hints_round_trip)
{
	static const uint32_t sizes[] = { 1, 2, 7, 100, 16384, 65537 };
	rng_state = SEED + 3;
	printf("rcmodel.hints_round_trip: seed %u\n", SEED + 3);
	uint16_t *r = malloc(65537 * 2), *back = malloc(65537 * 2);
	uint64_t *hints = calloc(65537 / 64 + 1, 8);
	uint8_t *out = malloc(65537 * 4 + 64), *plain = malloc(65537 * 4 + 64);
	cr_assert(r && back && hints && out && plain);
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		uint32_t n = sizes[k];
		fill_solved(r, n, (int)(k & 1));
		memset(hints, 0, (65537 / 64 + 1) * 8);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t x = rng() % 100;
			if (x < 40) {
				hints[i / 64] |= 1ull << i % 64;
				if (x > 0) /* 1 in 40 a hint that fails */
					r[i] = bp_record_make(1, 1);
			}
		}
		long len = bp_rcmodel_encode(r, n, hints, out, (size_t)n * 4 + 64);
		long nolen = bp_rcmodel_encode(r, n, NULL, plain, (size_t)n * 4 + 64);
		cr_assert_gt(len, 0, "%u records", n);
		cr_assert_gt(nolen, 0, "%u records", n);
		if (n >= 16384)
			cr_expect_lt(len, nolen * 3 / 4, "%u records: %ld against %ld", n, len,
				     nolen);
		memset(back, 0x5a, 65537 * 2);
		cr_expect_eq(bp_rcmodel_decode(out, (size_t)len, hints, back, n), BP_OK, "%u", n);
		cr_expect_arr_eq(back, r, (size_t)n * 2, "%u records", n);
		if (n >= 100) {
			int rc = bp_rcmodel_decode(out, (size_t)len, NULL, back, n);
			cr_expect(rc != BP_OK || memcmp(back, r, (size_t)n * 2) != 0, "%u", n);
		}
	}
	free(r);
	free(back);
	free(hints);
	free(out);
	free(plain);
}
