/* SPDX-License-Identifier: MIT */
/* Tests of store/zstream.c: bytes written come back the same in any slices, from an
 * empty stream to one of many megabytes; a stream cut short, a flipped byte and bytes
 * after the frame are reported (BP_ECORRUPT), and reading past the end says so
 * (BP_ENOTFOUND). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "store/zstream.h"
#include "tests/rng.h"

/* n bytes of a seeded stream that compresses some: runs and noise. */
static uint8_t *sample(size_t n, uint64_t seed)
{
	uint8_t *b = malloc(n ? n : 1);
	cr_assert(b);
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++)
		b[i] = (i / 64) % 3 ? (uint8_t)(i / 64) : (uint8_t)splitmix64(&s);
	return b;
}

/* Writes b in slices of 1..97 bytes and returns the frame. */
static uint8_t *pack(const uint8_t *b, size_t n, size_t *len)
{
	bp_zout *z;
	cr_assert_eq(bp_zout_create(3, &z), BP_OK);
	for (size_t at = 0, k = 1; at < n; k = k % 97 + 1) {
		size_t m = n - at < k ? n - at : k;
		cr_assert_eq(bp_zout_write(z, b + at, m), BP_OK);
		at += m;
	}
	cr_assert_eq(bp_zout_in(z), n);
	uint8_t *f;
	cr_assert_eq(bp_zout_finish(z, &f, len), BP_OK);
	return f;
}

Test(zstream, round_trip_in_any_slices)
{
	static const size_t sizes[] = { 0, 1, 5, 1000, 200000, 3000000 };
	for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
		size_t n = sizes[t], len;
		uint8_t *b = sample(n, 7 + t), *f = pack(b, n, &len);
		if (n >= 200000)
			cr_expect_lt(len, n, "a compressible stream is smaller");
		bp_zin *in;
		cr_assert_eq(bp_zin_create(f, len, &in), BP_OK);
		uint8_t *back = malloc(n + 1);
		for (size_t at = 0, k = 3; at < n; k = k * 7 % 5003 + 1) {
			size_t m = n - at < k ? n - at : k;
			cr_assert_eq(bp_zin_read(in, back + at, m), BP_OK, "size %zu at %zu", n,
				     at);
			at += m;
		}
		cr_expect(n == 0 || memcmp(back, b, n) == 0, "size %zu: the same bytes", n);
		cr_expect_eq(bp_zin_end(in), BP_OK, "size %zu: done at the end", n);
		cr_expect_eq(bp_zin_read(in, back, 1), BP_ENOTFOUND, "size %zu: nothing more", n);
		bp_zin_destroy(in);
		free(back);
		free(b);
		free(f);
	}
}

/* Reads the whole stream; @return the first error, or BP_OK. */
static int read_all(const uint8_t *f, size_t len, size_t n)
{
	bp_zin *in;
	cr_assert_eq(bp_zin_create(f, len, &in), BP_OK);
	uint8_t *back = malloc(n + 1);
	int rc = bp_zin_read(in, back, n);
	if (!rc)
		rc = bp_zin_end(in);
	bp_zin_destroy(in);
	free(back);
	return rc;
}

Test(zstream, damage_is_reported)
{
	size_t n = 100000, len;
	uint8_t *b = sample(n, 11), *f = pack(b, n, &len);
	cr_assert_eq(read_all(f, len, n), BP_OK);
	/* cut short anywhere */
	for (size_t cut = 0; cut < len; cut += len / 37 + 1) {
		int rc = read_all(f, cut, n);
		cr_expect(rc == BP_ECORRUPT, "cut at %zu of %zu: %d", cut, len, rc);
	}
	/* a byte flipped anywhere: damage or (in the few bits zstd ignores) the same bytes,
	 * never other bytes handed back as good */
	int caught = 0;
	for (size_t at = 0; at < len; at += len / 53 + 1) {
		f[at] ^= 0x10;
		bp_zin *in;
		cr_assert_eq(bp_zin_create(f, len, &in), BP_OK);
		uint8_t *back = malloc(n);
		int rc = bp_zin_read(in, back, n);
		if (!rc)
			rc = bp_zin_end(in);
		cr_expect(rc == BP_ECORRUPT || (rc == BP_OK && memcmp(back, b, n) == 0),
			  "flip at %zu: %d", at, rc);
		caught += rc == BP_ECORRUPT;
		bp_zin_destroy(in);
		free(back);
		f[at] ^= 0x10;
	}
	cr_expect_gt(caught, 0);
	/* bytes after the frame */
	uint8_t *g = malloc(len + 4);
	memcpy(g, f, len);
	memcpy(g + len, "junk", 4);
	cr_expect_eq(read_all(g, len + 4, n), BP_ECORRUPT);
	/* not a frame at all */
	cr_expect_eq(read_all(b, 1000, 10), BP_ECORRUPT);
	free(g);
	free(b);
	free(f);
}
