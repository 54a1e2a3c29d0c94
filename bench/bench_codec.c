/* SPDX-License-Identifier: MIT */
/* The block codec's two encodings side by side on solved tables: for each table of a
 * database (or those named), cut every done tier into blocks of the table's size (or
 * --block N) and print one JSON object with
 *
 *   positions, blocks        records that hold a position (nonzero), and blocks
 *   stored_bits              the table's stored bits per position, as it was written
 *   zstd_bits                zstd byte planes alone (the codec's level 9), per position
 *   model_bits               the model coding alone (store/rcmodel.c)
 *   best_bits                what the codec writes at an archival level
 *                            (BP_CODEC_MODEL_LEVEL): the smaller of zstd at that
 *                            level and the model coding per block, with the 32-byte
 *                            block header
 *   model_blocks             blocks where the model coding is the smaller
 *   zstd_encode_mrps, model_encode_mrps, codec_encode_mrps
 *                            million records a second encoded: zstd alone, the model
 *                            alone, and bp_codec_encode (both, and the checksum)
 *   zstd_decode_mrps, model_decode_mrps
 *                            million records a second decoded, each encoding alone
 *   probe_decode_us          bp_codec_decode of one block as a probe does it
 *                            (BP_CODEC_FAST), in microseconds, averaged over the blocks
 *
 * and, for a game with a canonical_mask (store/codec.c's flag bit 2: records the
 * dense index already says are holes are not stored),
 *
 *   holes_bits               what the default level (9) writes without the holes
 *   holes_best_bits          the same at BP_CODEC_MODEL_LEVEL (zstd or model coding of
 *                            the records left, the smaller per block)
 *   zstd_probe_us            a probe's decode of the level-9 block with its holes (what
 *                            the default wrote before the holes encoding)
 *   holes_probe_us           a probe's decode of the level-9 block without its holes,
 *                            the game's mask of the block included
 *   mask_us                  of which the mask
 *
 * Every block is decoded back and compared with the records; a mismatch ends the run
 * with exit 1. One thread; times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
 * so that a loaded machine slows the figures less than wall-clock time would.
 *
 *     bench_codec [--block N] DB [SPEC...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "bench/bench_tables.h"
#include "canon/error.h"
#include "solver/games/game.h"
#include "solver/probe.h"
#include "store/codec.h"
#include "store/rcmodel.h"
#include "store/store.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct totals {
	uint64_t records, positions, blocks, model_blocks;
	uint64_t zstd_bytes, model_bytes, best_bytes;
	double t_zenc, t_menc, t_cenc, t_zdec, t_mdec, t_probe;
	uint64_t holes_bytes, holes_best_bytes;
	double t_zprobe, t_hprobe, t_mask;
};

struct bufs {
	uint8_t *planes, *frame, *model, *copy;
	uint16_t *back;
	uint64_t *mask;
	size_t frame_cap, model_cap;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

/* Encodes and decodes one block every way; adds to t. @return 0, or 1 on a mismatch. */
static int one_block(bp_codec *c, struct bufs *b, const uint16_t *r, uint32_t n, uint32_t tier,
		     uint64_t blk, uint64_t first, const struct bp_game *g, struct totals *t)
{
	for (uint32_t i = 0; i < n; i++)
		t->positions += r[i] != 0;
	t->records += n;
	t->blocks++;
	/* zstd alone, as the codec does it */
	double t0 = now();
	for (uint32_t i = 0; i < n; i++) {
		b->planes[i] = (uint8_t)r[i];
		b->planes[n + i] = (uint8_t)(r[i] >> 8);
	}
	size_t f = ZSTD_compressCCtx(b->cctx, b->frame, b->frame_cap, b->planes, (size_t)n * 2, 9);
	double t1 = now();
	if (ZSTD_isError(f))
		return 1;
	t->zstd_bytes += BP_CODEC_HEADER_SIZE + f;
	t->t_zenc += t1 - t0;
	t0 = now();
	size_t got = ZSTD_decompressDCtx(b->dctx, b->planes, (size_t)n * 2, b->frame, f);
	for (uint32_t i = 0; i < n; i++)
		b->back[i] = (uint16_t)(b->planes[i] | b->planes[n + i] << 8);
	t->t_zdec += now() - t0;
	if (got != (size_t)n * 2 || memcmp(b->back, r, (size_t)n * 2) != 0)
		return 1;
	/* the model alone */
	if (n) {
		t0 = now();
		long m = bp_rcmodel_encode(r, n, NULL, b->model, b->model_cap);
		t1 = now();
		if (m <= 0)
			return 1;
		t->model_bytes += BP_CODEC_HEADER_SIZE + (uint64_t)m;
		t->t_menc += t1 - t0;
		t0 = now();
		int rc = bp_rcmodel_decode(b->model, (size_t)m, NULL, b->back, n);
		t->t_mdec += now() - t0;
		if (rc || memcmp(b->back, r, (size_t)n * 2) != 0)
			return 1;
	}
	/* the codec: both, the smaller kept */
	uint8_t key[BP_CODEC_KEY_SIZE];
	const void *val;
	size_t len;
	bp_codec_key(key, tier, blk);
	t0 = now();
	if (bp_codec_encode(c, key, sizeof key, 1, r, n, BP_CODEC_MODEL_LEVEL, &val, &len))
		return 1;
	t->t_cenc += now() - t0;
	t->best_bytes += len;
	t->model_blocks += len < BP_CODEC_HEADER_SIZE + f;
	memcpy(b->copy, val, len);
	t0 = now();
	int rc = bp_codec_decode(c, key, sizeof key, 1, b->copy, len, b->back, n, BP_CODEC_FAST,
				 NULL);
	t->t_probe += now() - t0;
	if (rc || memcmp(b->back, r, (size_t)n * 2) != 0)
		return 1;
	if (!g)
		return 0;
	/* level 9, with its holes and without */
	if (bp_codec_encode(c, key, sizeof key, 1, r, n, 0, &val, &len))
		return 1;
	memcpy(b->copy, val, len);
	t0 = now();
	rc = bp_codec_decode(c, key, sizeof key, 1, b->copy, len, b->back, n, BP_CODEC_FAST, NULL);
	t->t_zprobe += now() - t0;
	if (rc || memcmp(b->back, r, (size_t)n * 2) != 0 ||
	    g->ops->canonical_mask(g, tier, first, n, b->mask))
		return 1;
	for (int level = BP_CODEC_MODEL_LEVEL; level >= 0; level -= BP_CODEC_MODEL_LEVEL) {
		if (bp_codec_encode_mask(c, key, sizeof key, 1, r, n, level, b->mask, &val, &len))
			return 1;
		*(level ? &t->holes_best_bytes : &t->holes_bytes) += len;
	}
	memcpy(b->copy, val, len);
	t0 = now();
	rc = g->ops->canonical_mask(g, tier, first, n, b->mask);
	t1 = now();
	rc = rc ? rc
		: bp_codec_decode_mask(c, key, sizeof key, 1, b->copy, len, b->mask, b->back, n,
				       BP_CODEC_FAST, NULL);
	t->t_hprobe += now() - t0;
	t->t_mask += t1 - t0;
	return rc || memcmp(b->back, r, (size_t)n * 2) != 0;
}

static double mrps(uint64_t records, double s)
{
	return s > 0 ? (double)records / s / 1e6 : 0;
}

static int measure(bp_store *s, const char *spec, uint32_t block_opt)
{
	struct bp_err err = { 0 };
	bp_table *tb;
	if (bp_table_open(s, spec, NULL, 0, &tb, &err)) {
		fprintf(stderr, "bench_codec: %s: %s\n", spec, err.msg);
		return 1;
	}
	struct bp_table_meta m;
	int rc = bp_table_meta_get(tb, &m), bad = 0;
	/* the game, for its holes: tables of unknown games are measured without them */
	struct bp_game *g = NULL;
	if (bp_game_create(spec, &g, NULL) == BP_OK) {
		bp_probe_set_holes(tb, g);
		if (!g->ops->canonical_mask || g->ntiers != m.ntiers)
			g = (bp_game_destroy(g), NULL);
		for (uint32_t i = 0; g && i < m.ntiers; i++) {
			uint64_t size;
			if (g->ops->tier_size(g, i, &size) || size != m.tier_size[i])
				g = (bp_game_destroy(g), NULL); /* not the dense index */
		}
	}
	uint32_t block = block_opt ? block_opt : m.block_records;
	struct totals t = { 0 };
	struct bufs b = { 0 };
	bp_codec *c = NULL;
	b.frame_cap = ZSTD_compressBound((size_t)block * 2);
	b.model_cap = (size_t)block * 16 + 64;
	b.planes = malloc((size_t)block * 2);
	b.frame = malloc(b.frame_cap);
	b.model = malloc(b.model_cap);
	b.copy = malloc(BP_CODEC_HEADER_SIZE + b.frame_cap);
	b.back = malloc((size_t)block * 2);
	b.mask = malloc(((size_t)block + 63) / 64 * 8);
	b.cctx = ZSTD_createCCtx();
	b.dctx = ZSTD_createDCtx();
	if (rc == BP_OK && (!b.planes || !b.frame || !b.model || !b.copy || !b.back || !b.mask ||
			    !b.cctx || !b.dctx || bp_codec_create(&c)))
		rc = BP_ENOMEM;
	for (uint32_t tier = 0; rc == BP_OK && !bad && tier < m.ntiers; tier++) {
		if (!m.tier_done[tier])
			continue;
		uint64_t n = m.tier_size[tier];
		uint16_t *r = malloc(n * sizeof *r + 1);
		if (!r) {
			rc = BP_ENOMEM;
			break;
		}
		if ((rc = bp_table_get_tier(tb, tier, r)) == BP_OK)
			for (uint64_t at = 0, blk = 0; at < n && !bad; at += block, blk++) {
				uint32_t k = (uint32_t)(n - at < block ? n - at : block);
				bad = one_block(c, &b, r + at, k, tier, blk, at, g, &t);
			}
		free(r);
	}
	if (rc == BP_OK && !bad) {
		double p = t.positions ? (double)t.positions : 1;
		printf("{\"spec\": \"%s\", \"positions\": %llu, \"records\": %llu, \"blocks\": "
		       "%llu, \"block_records\": %u, \"stored_bits\": %.4f, \"zstd_bits\": %.4f, "
		       "\"model_bits\": %.4f, \"best_bits\": %.4f, \"model_blocks\": %llu, "
		       "\"zstd_encode_mrps\": %.1f, \"model_encode_mrps\": %.1f, "
		       "\"codec_encode_mrps\": %.1f, \"zstd_decode_mrps\": %.1f, "
		       "\"model_decode_mrps\": %.1f, \"probe_decode_us\": %.1f}\n",
		       spec, (unsigned long long)t.positions, (unsigned long long)t.records,
		       (unsigned long long)t.blocks, block, 8.0 * (double)m.stored_bytes / p,
		       8.0 * (double)t.zstd_bytes / p, 8.0 * (double)t.model_bytes / p,
		       8.0 * (double)t.best_bytes / p, (unsigned long long)t.model_blocks,
		       mrps(t.records, t.t_zenc), mrps(t.records, t.t_menc),
		       mrps(t.records, t.t_cenc), mrps(t.records, t.t_zdec),
		       mrps(t.records, t.t_mdec),
		       t.blocks ? 1e6 * t.t_probe / (double)t.blocks : 0);
		if (g)
			printf("{\"spec\": \"%s\", \"holes_bits\": %.4f, \"holes_best_bits\": "
			       "%.4f, \"zstd_probe_us\": %.1f, \"holes_probe_us\": %.1f, "
			       "\"mask_us\": %.1f}\n",
			       spec, 8.0 * (double)t.holes_bytes / p,
			       8.0 * (double)t.holes_best_bytes / p,
			       t.blocks ? 1e6 * t.t_zprobe / (double)t.blocks : 0,
			       t.blocks ? 1e6 * t.t_hprobe / (double)t.blocks : 0,
			       t.blocks ? 1e6 * t.t_mask / (double)t.blocks : 0);
		fflush(stdout);
	}
	if (bad)
		fprintf(stderr, "bench_codec: %s: a block does not round-trip\n", spec);
	else if (rc)
		fprintf(stderr, "bench_codec: %s: %s\n", spec, bp_strerror(rc));
	bp_codec_destroy(c);
	ZSTD_freeCCtx(b.cctx);
	ZSTD_freeDCtx(b.dctx);
	free(b.planes);
	free(b.frame);
	free(b.model);
	free(b.copy);
	free(b.back);
	free(b.mask);
	bp_table_close(tb);
	bp_game_destroy(g);
	return rc || bad;
}

int main(int argc, char **argv)
{
	int i = 1;
	uint32_t block = 0;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "--block") == 0)
			block = (uint32_t)strtoul(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (i >= argc || block > BP_CODEC_MAX_RECORDS) {
		fprintf(stderr, "usage: bench_codec [--block N] DB [SPEC...]\n");
		return 2;
	}
	struct bp_err err = { 0 };
	bp_store *s;
	if (bp_store_open(argv[i], BP_STORE_READONLY, &s, &err)) {
		fprintf(stderr, "bench_codec: %s\n", err.msg);
		return 3;
	}
	int bad = 0;
	if (i + 1 < argc) {
		for (int k = i + 1; k < argc; k++)
			bad |= measure(s, argv[k], block);
	} else {
		struct bench_tables l = { calloc(BENCH_MAX_TABLES, sizeof(char *)), 0 };
		if (!l.spec || bp_store_tables(s, bench_tables_add, &l)) {
			bp_store_close(s);
			return 4;
		}
		for (int k = 0; k < l.n; k++) {
			bad |= measure(s, l.spec[k], block);
			free(l.spec[k]);
		}
		free(l.spec);
	}
	bp_store_close(s);
	return bad;
}
