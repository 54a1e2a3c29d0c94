/* SPDX-License-Identifier: MIT */
/* The packed tier (solver/packedtier.c) against a plain array of records: every
 * look-up, rank and next stored index on seeded random sparse data, at sizes on and
 * around the line boundaries, with few distinct records (one byte each) and with more
 * than 256 (two bytes, widened part-way through), built from an array and streamed
 * from a table in ranges that cut blocks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "solver/packedtier.h"
#include "tests/rng.h"
#include "tests/support.h"

/* Random records: each index stored with probability permille/1000, its record one
 * of `distinct` non-zero values. */
static uint16_t *random_records(uint64_t size, unsigned permille, unsigned distinct,
				uint64_t *state)
{
	uint16_t *a = malloc(sizeof *a * (size ? size : 1));
	cr_assert_not_null(a);
	for (uint64_t i = 0; i < size; i++) {
		uint64_t x = splitmix64(state);
		a[i] = x % 1000 < permille ? (uint16_t)(1 + (x >> 20) % distinct * 7) : 0;
	}
	return a;
}

/* Every query of p against the array it holds. */
static void expect_same_as(const struct bp_packedtier *p, const uint16_t *a, uint64_t size,
			   const char *what)
{
	uint64_t stored = 0;
	for (uint64_t i = 0; i < size; i++)
		stored += a[i] != 0;
	cr_assert_eq(p->size, size, "%s", what);
	cr_assert_eq(p->stored, stored, "%s", what);
	uint64_t rank = 0, next = size; /* the next stored index at or after i, from the end */
	uint64_t *nexts = malloc(sizeof *nexts * (size + 1));
	cr_assert_not_null(nexts);
	nexts[size] = size;
	for (uint64_t i = size; i-- > 0;)
		nexts[i] = next = a[i] ? i : next;
	for (uint64_t i = 0; i < size; i++) {
		cr_assert_eq(bp_packedtier_get(p, i), a[i], "%s: index %llu", what,
			     (unsigned long long)i);
		cr_assert_eq(bp_packedtier_rank(p, i), rank, "%s: rank of %llu", what,
			     (unsigned long long)i);
		cr_assert_eq(bp_packedtier_next(p, i), nexts[i], "%s: next from %llu", what,
			     (unsigned long long)i);
		if (a[i])
			cr_assert_eq(bp_packedtier_at(p, rank), a[i], "%s: record %llu", what,
				     (unsigned long long)rank);
		rank += a[i] != 0;
	}
	cr_assert_eq(bp_packedtier_rank(p, size), stored, "%s: rank of the end", what);
	cr_assert_eq(bp_packedtier_next(p, size), size, "%s", what);
	free(nexts);
}

Test(packedtier, same_as_a_plain_array)
{
	static const uint64_t sizes[] = { 0,   1,   63,	 64,   447,   448,    449,
					  895, 896, 897, 4481, 12345, 100000, 333333 };
	static const unsigned permille[] = { 0, 1, 30, 75, 500, 1000 };
	const uint64_t seed = 20261124;
	uint64_t state = seed;
	printf("packedtier seed %llu\n", (unsigned long long)seed);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t d = 0; d < sizeof permille / sizeof permille[0]; d++)
			for (unsigned distinct = 20; distinct <= 2000; distinct *= 100) {
				uint16_t *a =
					random_records(sizes[s], permille[d], distinct, &state);
				struct bp_packedtier p;
				char what[96];
				snprintf(what, sizeof what, "size %llu, %u per mille, %u values",
					 (unsigned long long)sizes[s], permille[d], distinct);
				cr_assert_eq(bp_packedtier_from_array(a, sizes[s], &p), BP_OK);
				expect_same_as(&p, a, sizes[s], what);
				/* one byte a record exactly when at most 256 distinct ones */
				unsigned seen = 0;
				static uint8_t mark[65536];
				memset(mark, 0, sizeof mark);
				for (uint64_t i = 0; i < sizes[s]; i++)
					if (a[i] && !mark[a[i]]) {
						mark[a[i]] = 1;
						seen++;
					}
				cr_expect_eq(p.code != NULL, seen <= 256, "%s: %u distinct", what,
					     seen);
				bp_packedtier_free(&p);
				free(a);
			}
}

/* Streamed from a table: ranges of 1000 records over blocks of 512, an expectation
 * too small (the records array grows) and one too large; the 257th distinct record
 * comes after the array has grown. */
Test(packedtier, streamed_from_a_table)
{
	char *dir = temp_db();
	const uint64_t size = 50000, seed = 7;
	uint64_t state = seed;
	uint16_t *a = random_records(size, 70, 20, &state);
	for (uint64_t i = 40000; i < size; i += 3)
		a[i] = (uint16_t)(1000 + i % 400); /* more distinct records, late */
	bp_store *db;
	bp_table *t;
	const uint64_t sizes[1] = { size };
	struct bp_table_info info = { .spec = "test:packed",
				      .rules_version = 2,
				      .ntiers = 1,
				      .tier_size = sizes,
				      .block_records = 512 };
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, info.spec, &info, BP_STORE_CREATE, &t, NULL), BP_OK);
	cr_assert_eq(bp_table_put_tier(t, 0, a, 0, 0, NULL), BP_OK);
	uint64_t stored = 0;
	for (uint64_t i = 0; i < size; i++)
		stored += a[i] != 0;
	static const uint64_t expect[] = { 0, 10, 0 };
	for (int k = 0; k < 3; k++) {
		uint64_t e = k == 2 ? 2 * stored : expect[k];
		struct bp_packedtier p;
		cr_assert_eq(bp_packedtier_load(t, 0, size, e, k == 1 ? 0 : 1000, &p), BP_OK);
		expect_same_as(&p, a, size, "streamed");
		cr_expect_null(p.code, "over 256 distinct records: two bytes each");
		bp_packedtier_free(&p);
	}
	bp_table_close(t);
	bp_store_close(db);
	free(a);
	remove_db(dir);
}
