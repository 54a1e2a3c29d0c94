/* SPDX-License-Identifier: MIT */
/* Whole-tier store speed: writes one tier of RECORDS records (bp_table_put_tier: encode
 * every block, one write transaction, commit) and reads it back (bp_table_get_tier:
 * decode and verify every block) with each thread count in THREADS, each into a fresh
 * database DIR/tN, and checks that every count stores the same bytes and reads back
 * the same records.
 *
 * The records are those of a solved table (SRCDB SPEC: every done tier, concatenated
 * and repeated up to RECORDS), or else synthetic ones shaped like a solver's: runs of
 * one value, small remoteness, some holes (seeded).
 *
 *     bench_store DIR RECORDS THREADS[,THREADS...] [SRCDB SPEC]
 *
 * prints one JSON object per thread count. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

#define SEED 20261121u

static double clock_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

/* CPU seconds of every thread of the process: with wall seconds, how many cores a
 * phase kept busy, which on a shared machine says more than the wall time alone. */
static double cpu(void)
{
	return clock_of(CLOCK_PROCESS_CPUTIME_ID);
}

static uint64_t rng(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void synthesize(uint16_t *r, uint64_t n)
{
	uint64_t s = SEED;
	unsigned v = 1, rem = 5;
	for (uint64_t i = 0; i < n; i++) {
		if (rng(&s) % 8 == 0) {
			uint64_t x = rng(&s);
			v = (unsigned)(x % 4);
			rem = (unsigned)(x >> 8) % 40;
		}
		r[i] = v ? bp_record_make(v, rem) : 0;
	}
}

/* Fills r with the done tiers of SPEC in SRCDB, repeated. @return 0, or -1. */
static int replicate(uint16_t *r, uint64_t n, const char *srcdb, const char *spec)
{
	bp_store *s;
	bp_table *t;
	struct bp_table_meta m;
	struct bp_err err = { { 0 } };
	if (bp_store_open(srcdb, BP_STORE_READONLY, &s, &err) ||
	    bp_table_open(s, spec, NULL, 0, &t, &err)) {
		fprintf(stderr, "bench_store: %s\n", err.msg);
		return -1;
	}
	bp_table_meta_get(t, &m);
	uint64_t have = 0;
	for (uint32_t i = 0; i < m.ntiers && have < n; i++) {
		if (!m.tier_done[i] || !m.tier_size[i])
			continue;
		uint16_t *buf = malloc((size_t)m.tier_size[i] * sizeof *buf);
		int rc = buf ? bp_table_get_tier(t, i, buf) : BP_ENOMEM;
		if (rc) {
			fprintf(stderr, "bench_store: %s tier %u: %s\n", spec, i, bp_strerror(rc));
			free(buf);
			return -1;
		}
		uint64_t take = m.tier_size[i] < n - have ? m.tier_size[i] : n - have;
		memcpy(r + have, buf, (size_t)take * sizeof *r);
		have += take;
		free(buf);
	}
	bp_table_close(t);
	bp_store_close(s);
	if (!have) {
		fprintf(stderr, "bench_store: %s has no done tier\n", spec);
		return -1;
	}
	for (uint64_t i = have; i < n; i++)
		r[i] = r[i - have];
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 6) {
		fprintf(stderr,
			"usage: bench_store DIR RECORDS THREADS[,THREADS...] [SRCDB SPEC]\n");
		return 2;
	}
	const char *dir = argv[1];
	uint64_t n = strtoull(argv[2], NULL, 10);
	uint16_t *rec = malloc((size_t)(n ? n : 1) * sizeof *rec),
		 *back = malloc((size_t)(n ? n : 1) * sizeof *back);
	if (!rec || !back) {
		fprintf(stderr, "bench_store: out of memory\n");
		return 4;
	}
	if (argc == 6) {
		if (replicate(rec, n, argv[4], argv[5]))
			return 3;
	} else {
		synthesize(rec, n);
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "bench_store: %s: %s\n", dir, strerror(errno));
		return 4;
	}
	const uint64_t size[] = { n };
	struct bp_table_info info = { .spec = "bench:store", .ntiers = 1, .tier_size = size };
	uint64_t first_bytes = 0;
	int status = 0;
	for (char *p = argv[3], *end; *p; p = *end ? end + 1 : end) {
		int threads = (int)strtol(p, &end, 10);
		char sub[4096], path[4200];
		snprintf(sub, sizeof sub, "%s/t%d", dir, threads);
		snprintf(path, sizeof path, "%s/data.mdb", sub);
		unlink(path);
		snprintf(path, sizeof path, "%s/lock.mdb", sub);
		unlink(path);
		bp_store *s;
		bp_table *t;
		struct bp_err err = { { 0 } };
		if (bp_store_open(sub, BP_STORE_CREATE, &s, &err) ||
		    bp_table_open(s, info.spec, &info, BP_STORE_CREATE, &t, &err)) {
			fprintf(stderr, "bench_store: %s\n", err.msg);
			return 3;
		}
		int rc = bp_table_set_threads(t, threads);
		memset(back, 0xff, (size_t)n * sizeof *back);
		double t0 = now(), c0 = cpu();
		if (!rc)
			rc = bp_table_put_tier(t, 0, rec, 0, 0, NULL);
		double t1 = now(), c1 = cpu();
		if (!rc)
			rc = bp_table_get_tier(t, 0, back);
		double t2 = now(), c2 = cpu();
		if (rc) {
			fprintf(stderr, "bench_store: %d threads: %s\n", threads, bp_strerror(rc));
			return 3;
		}
		struct bp_table_meta m;
		bp_table_meta_get(t, &m);
		int same = memcmp(rec, back, (size_t)n * sizeof *rec) == 0 &&
			   (!first_bytes || m.stored_bytes == first_bytes);
		if (!first_bytes)
			first_bytes = m.stored_bytes;
		status |= !same;
		printf("{\"bench\": \"store\", \"records\": %llu, \"threads\": %d, "
		       "\"put_seconds\": %.3f, \"put_cpu_seconds\": %.3f, "
		       "\"put_records_per_second\": %.0f, "
		       "\"get_seconds\": %.3f, \"get_cpu_seconds\": %.3f, "
		       "\"get_records_per_second\": %.0f, "
		       "\"stored_bytes\": %llu, \"bits_per_record\": %.4f, \"same\": %s}\n",
		       (unsigned long long)n, threads, t1 - t0, c1 - c0, (double)n / (t1 - t0),
		       t2 - t1, c2 - c1, (double)n / (t2 - t1), (unsigned long long)m.stored_bytes,
		       n ? 8.0 * (double)m.stored_bytes / (double)n : 0.0, same ? "true" : "false");
		fflush(stdout);
		bp_table_close(t);
		bp_store_close(s);
	}
	free(rec);
	free(back);
	return status;
}
