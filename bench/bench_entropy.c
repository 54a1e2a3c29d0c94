/* SPDX-License-Identifier: MIT */
/* How far a table's stored bits per position are from what its values carry (issue
 * 14's goal of at most 1 bit per position for value and remoteness). For each solved
 * table of a database (or the one named), prints one JSON object with:
 *
 *   positions, indices       records that hold a position, and all records
 *   stored_bits              the database's compressed bits per position
 *   h0_record, h0_record_tier, h0_value
 *                            the order-0 entropy, in bits per position, of the
 *                            (value, remoteness) records, of the same given the tier
 *                            (a coder with one table of frequencies per tier), and of
 *                            the value alone
 *   holes_filled_bits        the store's own codec on the same blocks with every hole
 *                            (record 0) replaced by the record before it: what the
 *                            records would cost with an index free of holes, where the
 *                            holes' positions cost nothing
 *   canonical                with --canonical (the game's rules: unrank, canonical
 *                            form, rank): the indices that are canonical, so that
 *                            canonical - positions are canonical but unreachable
 *   reach_floor_bits         with --canonical: log2 of the number of ways to choose each
 *                            tier's positions among its canonical indices, per position:
 *                            the fewest bits any table that tells reachable positions
 *                            from unreachable ones can spend on that alone, when the
 *                            unreachable ones follow no rule it knows
 *
 * An order-0 coder cannot go below h0_record_tier; zstd goes below it only where
 * neighbouring indices have related values. So a table whose h0_record_tier is over 1
 * meets the goal only through a model of the values (or by storing less than value and
 * remoteness), and one whose holes_filled_bits is near 1 or under needs an index
 * without its holes more than a better codec.
 *
 *     bench_entropy [--canonical] DB [SPEC]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_tables.h"
#include "canon/error.h"
#include "solver/games/game.h"
#include "solver/probe.h"
#include "store/codec.h"
#include "store/store.h"

/* Entropy in bits of a histogram of n entries, as a total over the entries. */
static double entropy_total(const uint64_t *hist, size_t size, uint64_t n)
{
	double h = 0;
	for (size_t i = 0; i < size; i++)
		if (hist[i])
			h -= (double)hist[i] * log2((double)hist[i] / (double)n);
	return h;
}

/* The canonical indices of a tier (each index unranked, put in canonical form and
 * ranked back). @return BP_OK or the game's error. */
static int canonical_count(const struct bp_game *g, uint32_t tier, uint64_t n, uint64_t *out)
{
	uint64_t k = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct bp_pos p, c;
		uint64_t r;
		int rc = g->ops->unrank(g, tier, i, &p);
		if (rc == BP_ENOTFOUND)
			continue; /* not a position */
		if (rc)
			return rc;
		bp_game_canonical(g, &p, &c);
		if ((rc = g->ops->rank(g, &c, &r)))
			return rc;
		k += r == i;
	}
	*out = k;
	return BP_OK;
}

/* log2 of n choose k. */
static double log2_choose(uint64_t n, uint64_t k)
{
	if (k == 0 || k >= n)
		return 0;
	return (lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1)) /
	       log(2.0);
}

static int measure(bp_store *s, bp_codec *c, const char *spec, int canonical)
{
	struct bp_err err = { 0 };
	bp_table *t;
	if (bp_table_open(s, spec, NULL, 0, &t, &err)) {
		fprintf(stderr, "bench_entropy: %s: %s\n", spec, err.msg);
		return 1;
	}
	struct bp_table_meta m;
	struct bp_game *g = NULL;
	int rc = bp_table_meta_get(t, &m);
	/* the game reads a table stored without its holes (store/codec.c), and counts
	 * the canonical indices with --canonical */
	if (rc == BP_OK && bp_game_create(spec, &g, &err) == BP_OK)
		bp_probe_set_holes(t, g);
	else if (rc == BP_OK && canonical) {
		fprintf(stderr, "bench_entropy: %s: %s\n", spec, err.msg);
		rc = BP_EINVAL;
	}
	uint64_t ncanon = 0;
	double floor_bits = 0;
	uint64_t *all = calloc(65536, sizeof *all), *tier_hist = calloc(65536, sizeof *tier_hist);
	uint64_t values[4] = { 0 }, positions = 0, indices = 0, filled_bytes = 0;
	double h_tier = 0;
	uint32_t block = m.block_records;
	for (uint32_t tier = 0; rc == BP_OK && all && tier_hist && tier < m.ntiers; tier++) {
		if (!m.tier_done[tier])
			continue;
		uint64_t n = m.tier_size[tier], in_tier = 0;
		uint16_t *r = malloc(n * sizeof *r + 1);
		if (!r) {
			rc = BP_ENOMEM;
			break;
		}
		if ((rc = bp_table_get_tier(t, tier, r))) {
			free(r);
			break;
		}
		memset(tier_hist, 0, 65536 * sizeof *tier_hist);
		uint16_t prev = 0;
		for (uint64_t i = 0; i < n; i++) {
			if (r[i]) {
				all[r[i]]++;
				tier_hist[r[i]]++;
				values[bp_record_value(r[i])]++;
				in_tier++;
				prev = r[i];
			}
			r[i] = prev; /* the hole takes the record before it */
		}
		indices += n;
		positions += in_tier;
		uint64_t kc;
		if (canonical && g && rc == BP_OK &&
		    (rc = canonical_count(g, tier, n, &kc)) == BP_OK) {
			ncanon += kc;
			floor_bits += log2_choose(kc, in_tier);
		}
		h_tier += entropy_total(tier_hist, 65536, in_tier);
		uint8_t key[BP_CODEC_KEY_SIZE];
		for (uint64_t b = 0; b < n && rc == BP_OK; b += block) {
			const void *out;
			size_t len;
			uint32_t k = (uint32_t)(n - b < block ? n - b : block);
			bp_codec_key(key, tier, b / block);
			if ((rc = bp_codec_encode(c, key, sizeof key, 0, r + b, k, 0, &out,
						  &len)) == BP_OK)
				filled_bytes += len;
		}
		free(r);
	}
	if (rc == BP_OK && (!all || !tier_hist))
		rc = BP_ENOMEM;
	if (rc == BP_OK) {
		double p = positions ? (double)positions : 1;
		printf("{\"spec\": \"%s\", \"positions\": %llu, \"indices\": %llu, "
		       "\"stored_bits\": %.3f, \"h0_record\": %.3f, \"h0_record_tier\": %.3f, "
		       "\"h0_value\": %.3f, \"holes_filled_bits\": %.3f",
		       spec, (unsigned long long)positions, (unsigned long long)indices,
		       (double)m.stored_bytes * 8 / p, entropy_total(all, 65536, positions) / p,
		       h_tier / p, entropy_total(values, 4, positions) / p,
		       (double)filled_bytes * 8 / p);
		if (canonical && g)
			printf(", \"canonical\": %llu, \"reach_floor_bits\": %.3f",
			       (unsigned long long)ncanon, floor_bits / p);
		printf("}\n");
		fflush(stdout);
	} else {
		fprintf(stderr, "bench_entropy: %s: %s\n", spec, bp_strerror(rc));
	}
	free(all);
	free(tier_hist);
	bp_table_close(t);
	bp_game_destroy(g);
	return rc != BP_OK;
}

int main(int argc, char **argv)
{
	int canonical = argc > 1 && strcmp(argv[1], "--canonical") == 0;
	argv += canonical;
	argc -= canonical;
	if (argc < 2 || argc > 3 || strcmp(argv[1], "--help") == 0) {
		fprintf(stderr, "usage: bench_entropy [--canonical] DB [SPEC]\n");
		return argc == 2 ? 0 : 2;
	}
	struct bp_err err = { 0 };
	bp_store *s;
	bp_codec *c;
	if (bp_store_open(argv[1], 0, &s, &err)) {
		fprintf(stderr, "bench_entropy: %s\n", err.msg);
		return 1;
	}
	if (bp_codec_create(&c)) {
		bp_store_close(s);
		return 1;
	}
	char *specs[BENCH_MAX_TABLES];
	struct bench_tables l = { specs, 0 };
	if (argc == 3)
		specs[l.n++] = strdup(argv[2]);
	else
		bp_store_tables(s, bench_tables_add, &l);
	int bad = 0;
	for (int i = 0; i < l.n; i++) {
		bad |= specs[i] ? measure(s, c, specs[i], canonical) : 1;
		free(specs[i]);
	}
	bp_codec_destroy(c);
	bp_store_close(s);
	return bad;
}
