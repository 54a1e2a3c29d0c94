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
 *
 * An order-0 coder cannot go below h0_record_tier; zstd goes below it only where
 * neighbouring indices have related values. So a table whose h0_record_tier is over 1
 * meets the goal only through a model of the values (or by storing less than value and
 * remoteness), and one whose holes_filled_bits is near 1 or under needs an index
 * without its holes more than a better codec.
 *
 *     bench_entropy DB [SPEC]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "store/codec.h"
#include "store/store.h"

#define MAX_TABLES 4096

struct list {
	char **spec;
	int n;
};

static void collect(void *ctx, const char *spec)
{
	struct list *l = ctx;
	if (l->n < MAX_TABLES && (l->spec[l->n] = strdup(spec)))
		l->n++;
}

/* Entropy in bits of a histogram of n entries, as a total over the entries. */
static double entropy_total(const uint64_t *hist, size_t size, uint64_t n)
{
	double h = 0;
	for (size_t i = 0; i < size; i++)
		if (hist[i])
			h -= (double)hist[i] * log2((double)hist[i] / (double)n);
	return h;
}

static int measure(bp_store *s, bp_codec *c, const char *spec)
{
	struct bp_err err = { 0 };
	bp_table *t;
	if (bp_table_open(s, spec, NULL, 0, &t, &err)) {
		fprintf(stderr, "bench_entropy: %s: %s\n", spec, err.msg);
		return 1;
	}
	struct bp_table_meta m;
	int rc = bp_table_meta_get(t, &m);
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
		       "\"h0_value\": %.3f, \"holes_filled_bits\": %.3f}\n",
		       spec, (unsigned long long)positions, (unsigned long long)indices,
		       (double)m.stored_bytes * 8 / p, entropy_total(all, 65536, positions) / p,
		       h_tier / p, entropy_total(values, 4, positions) / p,
		       (double)filled_bytes * 8 / p);
		fflush(stdout);
	} else {
		fprintf(stderr, "bench_entropy: %s: %s\n", spec, bp_strerror(rc));
	}
	free(all);
	free(tier_hist);
	bp_table_close(t);
	return rc != BP_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || strcmp(argv[1], "--help") == 0) {
		fprintf(stderr, "usage: bench_entropy DB [SPEC]\n");
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
	char *specs[MAX_TABLES];
	struct list l = { specs, 0 };
	if (argc == 3)
		specs[l.n++] = strdup(argv[2]);
	else
		bp_store_tables(s, collect, &l);
	int bad = 0;
	for (int i = 0; i < l.n; i++) {
		bad |= specs[i] ? measure(s, c, specs[i]) : 1;
		free(specs[i]);
	}
	bp_codec_destroy(c);
	bp_store_close(s);
	return bad;
}
