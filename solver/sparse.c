/* SPDX-License-Identifier: MIT */
/* The sparse index: enumeration, rank and unrank, the game view, and the stored form.
 *
 * Enumeration goes tier by tier upwards, as the tiers engine's reach pass does, and
 * expands exactly what it expands (the canonical positions reached, terminal ones
 * not), so the index holds exactly the positions the dense solve would store. Each
 * worker appends its children's keys to one array per target tier; an array that
 * fills is sorted and made unique in place before it grows, which bounds it by about
 * twice the distinct keys it has seen (a hash set would cost more per key, and the
 * arrays are sorted at the end anyway). When tier t is done, tier t + 1's arrays are
 * merged, sorted and made unique: that is the tier's index, complete because every
 * move raises the tier.
 *
 * Stored form, index format SPARSE_FORMAT (2; format 1 is read too), in the key space
 * ".index:SPEC" of the database (store/kv.h: every value checksummed over its key and
 * bytes, and the key space's record), little-endian:
 *
 *   key "format"        offset 0  8 bytes  magic "BPSPIDX\0"
 *                              8  4 bytes  format version (SPARSE_FORMAT)
 *                             12  4 bytes  rules version the positions were reached under
 *                             16  4 bytes  ntiers
 *                             20  4 bytes  key bytes (16)
 *                             24  4 bytes  keys per block (BLOCK_KEYS)
 *                             28  8 bytes  per tier: number of keys
 *                              .  8 bytes  per tier: bp_hash64 of its keys (as
 *                                          little-endian words, low then high) seeded
 *                                          0x7370617273650000 ^ tier
 *   key "k" TIER BLOCK  (u32 and u32, big-endian: 9 bytes) for each block of
 *                       BLOCK_KEYS keys of a tier, in order:
 *                              0  4 bytes  records n of the frame
 *                              4  4 bytes  keys in the block
 *                              8  ...      the block codec's value (store/codec.h: a
 *                                          zstd frame with checksums over the kv key,
 *                                          the spec's hash and the content) of n
 *                                          16-bit records holding the bytes of the
 *                                          front-coded keys, 2n of them:
 *
 *   each key as 16 bytes big-endian (high word first), written as one byte s, the
 *   bytes it shares with the previous key of the block (0 for the first), then its
 *   16 - s other bytes; a zero byte pads an odd length. Format 2: record i holds byte
 *   i (low) and byte n + i (high), written at zstd level INDEX_LEVEL; format 1: record
 *   i holds bytes 2i (low) and 2i + 1, at the codec's default level (9).
 *
 * Why format 2: the codec codes the records' low bytes, then their high bytes (byte
 * planes, for tables of values), so format 1's records gave zstd the stream's even
 * bytes, then its odd ones: a key's bytes torn apart, every other byte of each match.
 * Format 2's records give zstd the stream as written. mirador:10x10's 46 blocks: 9.09
 * MB at level 9 in format 1; in format 2 6.08 MB at level 9, 7.21 at level 5, 8.76 at
 * level 4, with zstd's time 1.0 s, 0.74, 0.41 and 0.19 (zstd's command line on the
 * blocks as files). Level 4 keeps the index's size (a little smaller) for a fifth of
 * the time, which was a sixth of a one-thread solve.
 *
 * Sorted keys share their leading bytes (the game puts its coarsest fields on top), so
 * the front coding removes most of them before zstd sees the rest. A reader checks the
 * checksums, that each block holds its count, that the keys increase strictly (also
 * across blocks) and the tier's count and hash in the record: an index that fails any
 * of these is damaged, never used. Readers (bp_sparse_open) read the record at once and
 * a tier's keys on first use, so a query reads the tiers it touches, not the index. */
#define _GNU_SOURCE /* mremap */
#include "solver/sparse.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"
#include "store/codec.h"
#include "store/kv.h"

#define SPARSE_MAGIC "BPSPIDX"
#define SPARSE_FORMAT 2
#define SPARSE_FORMAT_OLDEST 1 /* the oldest format read */
#define INDEX_LEVEL 4	       /* format 2's zstd level (above) */
#define KEY_BYTES 16
#define BLOCK_KEYS (1u << 18)
#define CHUNK_KEYS 1024 /* keys of a tier a work item expands */
#define HEADER_BYTES 8
#define TOP_SHIFT 5 /* rank's first level: every 32nd key */
#define TOP_EVERY (1u << TOP_SHIFT)
#define VIEW_MAX_MOVES 1024 /* moves a position of a view with children() may have */
#define CACHE_KEYS 4096	    /* keys a worker of the enumeration remembers (a power of 2) */
#define WALK_FIRST 4	    /* children the walk asks for first (walk_children) */

struct bp_sparse {
	uint32_t nt;
	uint64_t *n;	 /* keys per tier */
	uint64_t **k;	 /* tier t: n[t] keys, two words each (low, high), increasing */
	uint64_t stored; /* bytes of the stored form, when known */
	int threads;	 /* the enumeration's, which bp_sparse_store encodes on (0: one) */
	/* opened from its stored form (bp_sparse_open): a tier's keys are read, checked
	 * and kept on first use (ready[t] set, atomically, under lock) */
	uint8_t *ready;	 /* NULL: every tier is in memory */
	uint64_t *thash; /* per tier, from the format record */
	bp_kv *kv;	 /* its key space, read under lock only */
	bp_codec *codec;
	uint16_t *rec;	 /* one block's records */
	uint8_t *bytes;	 /* their bytes, in order */
	uint32_t format; /* of the stored form, when opened */
	uint64_t seed;
	pthread_mutex_t lock;
	/* made by the enumeration, never stored: per tier, 2 bits a position (bit 2i of
	 * the tier's words), its outcome() (enum bp_value) as the rules gave it when the
	 * enumeration asked; NULL when the index was read from its stored form */
	uint64_t **outcome;
	/* made by the enumeration, never stored, where the game has wins_at_once: per
	 * tier, 1 bit a position (bit i % 64 of word i / 64), set where wins_at_once said
	 * 1 of a position not over; NULL otherwise */
	uint64_t **wins;
	/* made by the enumeration, never stored: per tier, every TOP_EVERY-th key
	 * (rank searches these first, a few hundred KiB that stay in cache, then one
	 * block of keys); NULL: rank searches the keys alone */
	uint64_t **top;
	/* made by the enumeration on disk (bp_sparse_from_files): per tier, the bytes of
	 * its keys' file mapped at k[t] (0: k[t] is malloc'd); NULL: none mapped */
	uint64_t *maplen;
	/* made by the enumeration in memory: per tier, the bytes of the anonymous mapping
	 * at k[t] (its keys as a worker gathered them, struct kvec; 0: k[t] is malloc'd);
	 * NULL: none */
	uint64_t *anonlen;
	uint64_t enum_bytes; /* the enumeration's buffers at most, beside the index */
	int bad;	     /* the first error reading a tier (sticks) */
	char why[200];	     /* what it was */
};

int bp_sparse_supported(const struct bp_game *g)
{
	return g->ops->key_pack && g->ops->key_unpack && g->ops->tier && g->ntiers > 0 &&
	       !(g->ops->flags & BP_GAME_CYCLIC);
}

int bp_sparse_wanted(const struct bp_game *g)
{
	if (!bp_sparse_supported(g))
		return 0;
	if (!g->ops->tier_size || !g->ops->rank || !g->ops->unrank)
		return 1;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t sz;
		if (g->ops->tier_size(g, t, &sz) != BP_OK)
			return 1;
	}
	return 0;
}

static int key_cmp(const uint64_t *a, const uint64_t *b)
{
	if (a[1] != b[1])
		return a[1] < b[1] ? -1 : 1;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

static int key_qcmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

static int key_less(const uint64_t *a, const uint64_t *b)
{
	return a[1] != b[1] ? a[1] < b[1] : a[0] < b[0];
}

/* key_less for the sort: as 128-bit numbers, a subtraction with borrow and no branch
 * on the high words, whose outcome a partition cannot predict (the sort's time fell by
 * a quarter, mirador:10x10); the searches keep key_less, whose branches predict. */
static int key_less_sort(const uint64_t *a, const uint64_t *b)
{
	__extension__ typedef unsigned __int128 u128;
	return ((u128)a[1] << 64 | a[0]) < ((u128)b[1] << 64 | b[0]);
}

static void key_swap(uint64_t *a, uint64_t *b)
{
	uint64_t t0 = a[0], t1 = a[1];
	a[0] = b[0];
	a[1] = b[1];
	b[0] = t0;
	b[1] = t1;
}

/* Sorts n keys: quicksort with the comparison inline (qsort's call per comparison was
 * a tenth of the enumeration), the median of three as pivot, insertion sort for short
 * ranges, and qsort itself past a depth that only bad pivots reach. The partition is
 * Lomuto's with no branch on the comparison: each key is swapped with the first key
 * not below the pivot and that place moves on by the comparison's result (0 or 1), so
 * nothing depends on a guess at the outcome; Hoare's partition, branching on every
 * comparison of keys in random order, mispredicted about half of them. Keys equal to
 * the pivot all go to the right side; when nothing is below the pivot, a second pass
 * of the same kind moves the keys equal to it to the front of that side and the sort
 * goes on past them, so a key repeated many times costs one pass, not one a copy. */
static void key_sort(uint64_t *k, uint64_t n, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			qsort(k, n, 2 * sizeof(uint64_t), key_qcmp);
			return;
		}
		/* the median of three keys from places drawn at random (a fixed generator:
		 * a run is repeatable). The first, middle and last keys, in arrays that the
		 * enumeration fills in order of their parents and that the partition's
		 * rotations leave far from random, gave pivots so lopsided that ranges of
		 * a one-thread mirador:10x10 solve, over 1 M keys in all, ran down the
		 * depth to qsort; random places took a third off the sort's time */
		uint64_t r = n * 0x9e3779b97f4a7c15ull ^ (uint64_t)depth * 0xbf58476d1ce4e5b9ull;
		uint64_t *p3[3];
		for (int q = 0; q < 3; q++) {
			r ^= r >> 31;
			r *= 0xd6e8feb86659fd93ull;
			r ^= r >> 32;
			p3[q] = k + 2 * (r % n);
		}
		const uint64_t *x = p3[0], *y = p3[1], *z = p3[2], *m;
		if (key_less_sort(x, y))
			m = key_less_sort(y, z) ? y : key_less_sort(x, z) ? z : x;
		else
			m = key_less_sort(x, z) ? x : key_less_sort(y, z) ? z : y;
		key_swap(k, (uint64_t *)m); /* the pivot first, out of the way */
		const uint64_t piv[2] = { k[0], k[1] };
		uint64_t lt = 1; /* [1, lt) below the pivot, [lt, i) not */
		for (uint64_t i = 1; i < n; i++) {
			uint64_t v0 = k[2 * i], v1 = k[2 * i + 1];
			uint64_t less = (uint64_t)key_less_sort(k + 2 * i, piv);
			k[2 * i] = k[2 * lt];
			k[2 * i + 1] = k[2 * lt + 1];
			k[2 * lt] = v0;
			k[2 * lt + 1] = v1;
			lt += less;
		}
		key_swap(k, k + 2 * (lt - 1)); /* the pivot between the sides */
		/* [0, lt - 1) below, lt - 1 the pivot, [lt, n) not below: the smaller
		 * side by recursion, the larger by the loop */
		uint64_t left = lt - 1, right = n - lt;
		if (left == 0) {
			/* the pivot is the least: skip the keys equal to it, [lt, eq) after
			 * this pass ([eq, i) above it) */
			uint64_t eq = lt;
			for (uint64_t i = lt; i < n; i++) {
				uint64_t v0 = k[2 * i], v1 = k[2 * i + 1];
				uint64_t same = (uint64_t)((v0 == piv[0]) & (v1 == piv[1]));
				k[2 * i] = k[2 * eq];
				k[2 * i + 1] = k[2 * eq + 1];
				k[2 * eq] = v0;
				k[2 * eq + 1] = v1;
				eq += same;
			}
			k += 2 * eq;
			n -= eq;
			continue;
		}
		if (left < right) {
			key_sort(k, left, depth);
			k += 2 * lt;
			n = right;
		} else {
			key_sort(k + 2 * lt, right, depth);
			n = left;
		}
	}
	for (uint64_t i = 1; i < n; i++) {
		uint64_t v0 = k[2 * i], v1 = k[2 * i + 1], j = i;
		const uint64_t v[2] = { v0, v1 };
		for (; j > 0 && key_less_sort(v, k + 2 * (j - 1)); j--) {
			k[2 * j] = k[2 * j - 2];
			k[2 * j + 1] = k[2 * j - 1];
		}
		k[2 * j] = v0;
		k[2 * j + 1] = v1;
	}
}

static uint64_t drop_repeats(uint64_t *k, uint64_t n, int marked);

/* bp_sparse_sort_unique, keys marked (drop_repeats) or not. */
static uint64_t sort_unique(uint64_t *k, uint64_t n, int marked)
{
	if (n < 2)
		return n;
	key_sort(k, n, 2 * 64);
	return drop_repeats(k, n, marked);
}

uint64_t bp_sparse_sort_unique(uint64_t *k, uint64_t n)
{
	return sort_unique(k, n, 0);
}

static int make_top(bp_sparse *ix, uint32_t t);

static bp_sparse *sparse_new(uint32_t nt)
{
	bp_sparse *ix = calloc(1, sizeof *ix);
	if (!ix)
		return NULL;
	ix->nt = nt;
	ix->n = calloc(nt ? nt : 1, sizeof *ix->n);
	ix->k = calloc(nt ? nt : 1, sizeof *ix->k);
	if (!ix->n || !ix->k) {
		bp_sparse_free(ix);
		return NULL;
	}
	return ix;
}

int bp_sparse_from_keys(uint32_t nt, const uint64_t *count, const uint64_t *const *keys,
			bp_sparse **out)
{
	bp_sparse *ix = sparse_new(nt);
	*out = NULL;
	if (!ix || !(ix->top = calloc(nt ? nt : 1, sizeof *ix->top))) {
		bp_sparse_free(ix);
		return BP_ENOMEM;
	}
	for (uint32_t t = 0; t < nt; t++) {
		for (uint64_t i = 1; i < count[t]; i++)
			if (key_cmp(keys[t] + 2 * (i - 1), keys[t] + 2 * i) >= 0) {
				bp_sparse_free(ix);
				return BP_EINVAL;
			}
		if (!(ix->k[t] = malloc((count[t] ? count[t] : 1) * KEY_BYTES))) {
			bp_sparse_free(ix);
			return BP_ENOMEM;
		}
		if (count[t])
			memcpy(ix->k[t], keys[t], count[t] * KEY_BYTES);
		ix->n[t] = count[t];
		if (make_top(ix, t)) {
			bp_sparse_free(ix);
			return BP_ENOMEM;
		}
	}
	*out = ix;
	return BP_OK;
}

int bp_sparse_from_files(uint32_t nt, const uint64_t *n, const char *dir, uint64_t **outcome,
			 uint64_t **wins, int threads, uint64_t enum_bytes, bp_sparse **out)
{
	bp_sparse *ix = sparse_new(nt);
	int rc = BP_OK;
	*out = NULL;
	if (!ix || !(ix->top = calloc(nt ? nt : 1, sizeof *ix->top)) ||
	    !(ix->maplen = calloc(nt ? nt : 1, sizeof *ix->maplen))) {
		rc = BP_ENOMEM;
		goto out;
	}
	ix->threads = threads;
	ix->enum_bytes = enum_bytes;
	for (uint32_t t = 0; t < nt; t++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/tier-%u", dir, t);
		ix->n[t] = n[t];
		if (!n[t]) {
			unlink(path);
			if (!(ix->k[t] = malloc(KEY_BYTES))) {
				rc = BP_ENOMEM;
				goto out;
			}
		} else {
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			struct stat st;
			void *m = MAP_FAILED;
			/* a file shorter than its keys would fault when read past its end */
			if (fd >= 0 && fstat(fd, &st) == 0 &&
			    (uint64_t)st.st_size != n[t] * KEY_BYTES)
				errno = EIO;
			else if (fd >= 0)
				m = mmap(NULL, n[t] * KEY_BYTES, PROT_READ, MAP_SHARED, fd, 0);
			int e = errno;
			if (fd >= 0)
				close(fd);
			if (m == MAP_FAILED) {
				errno = e;
				rc = BP_EIO;
				goto out;
			}
			unlink(path); /* the mapping keeps it while the index lives */
			ix->k[t] = m;
			ix->maplen[t] = n[t] * KEY_BYTES;
		}
		if ((rc = make_top(ix, t)))
			goto out;
	}
out:
	if (ix) {
		ix->outcome = outcome;
		ix->wins = wins;
	} else {
		for (uint32_t t = 0; t < nt; t++) {
			free(outcome ? outcome[t] : NULL);
			free(wins ? wins[t] : NULL);
		}
		free(outcome);
		free(wins);
	}
	if (rc)
		bp_sparse_free(ix);
	else
		*out = ix;
	return rc;
}

void bp_sparse_free(bp_sparse *ix)
{
	if (!ix)
		return;
	for (uint32_t t = 0; ix->k && t < ix->nt; t++)
		if (ix->maplen && ix->maplen[t])
			munmap(ix->k[t], ix->maplen[t]);
		else if (ix->anonlen && ix->anonlen[t])
			munmap(ix->k[t], ix->anonlen[t]);
		else
			free(ix->k[t]);
	free(ix->maplen);
	free(ix->anonlen);
	for (uint32_t t = 0; ix->outcome && t < ix->nt; t++)
		free(ix->outcome[t]);
	free(ix->outcome);
	for (uint32_t t = 0; ix->wins && t < ix->nt; t++)
		free(ix->wins[t]);
	free(ix->wins);
	for (uint32_t t = 0; ix->top && t < ix->nt; t++)
		free(ix->top[t]);
	free(ix->top);
	if (ix->ready)
		pthread_mutex_destroy(&ix->lock);
	bp_kv_close(ix->kv);
	bp_codec_destroy(ix->codec);
	free(ix->rec);
	free(ix->bytes);
	free(ix->ready);
	free(ix->thash);
	free(ix->k);
	free(ix->n);
	free(ix);
}

uint64_t bp_sparse_count(const bp_sparse *ix, uint32_t t)
{
	return t < ix->nt ? ix->n[t] : 0;
}

uint32_t bp_sparse_tiers(const bp_sparse *ix)
{
	return ix->nt;
}

uint64_t bp_sparse_positions(const bp_sparse *ix)
{
	uint64_t n = 0;
	for (uint32_t t = 0; t < ix->nt; t++)
		n += ix->n[t];
	return n;
}

uint64_t bp_sparse_stored_bytes(const bp_sparse *ix)
{
	return ix->stored;
}

uint64_t bp_sparse_bytes(const bp_sparse *ix)
{
	uint64_t b = sizeof *ix + (uint64_t)ix->nt * 16;
	for (uint32_t t = 0; t < ix->nt; t++)
		b += (ix->maplen && ix->maplen[t] ? 0 : ix->n[t] * KEY_BYTES) +
		     (ix->outcome ? ((ix->n[t] + 31) / 32 + 1) * 8 : 0) +
		     (ix->wins ? ((ix->n[t] + 63) / 64 + 1) * 8 : 0) +
		     (ix->top && ix->top[t] ? (ix->n[t] + TOP_EVERY - 1) / TOP_EVERY * KEY_BYTES
					    : 0);
	return b;
}

uint64_t bp_sparse_enumeration_bytes(const bp_sparse *ix)
{
	return ix->enum_bytes;
}

/* The index's blocks (BLOCK_KEYS keys each, a tier's last one fewer), and the threads
 * bp_sparse_store encodes them on: the enumeration's, no more than there are blocks. */
static uint64_t index_blocks(const bp_sparse *ix)
{
	uint64_t blocks = 0;
	for (uint32_t t = 0; t < ix->nt; t++)
		blocks += (ix->n[t] + BLOCK_KEYS - 1) / BLOCK_KEYS;
	return blocks;
}

static int store_workers(const bp_sparse *ix, uint64_t blocks)
{
	int threads = ix->threads > 0 ? ix->threads : 1;
	return (uint64_t)threads > blocks ? (blocks ? (int)blocks : 1) : threads;
}

uint64_t bp_sparse_store_peak(const bp_sparse *ix)
{
	uint64_t most = 0;
	for (uint32_t t = 0; t < ix->nt; t++) {
		uint64_t m = ix->n[t] < BLOCK_KEYS ? ix->n[t] : BLOCK_KEYS;
		most = m > most ? m : most;
	}
	uint64_t workers = (uint64_t)store_workers(ix, index_blocks(ix));
	/* store_block's bytes and records, and the coder's zstd context (the coder's own
	 * buffers, about as large again, left out: they take memory the enumeration freed
	 * just before, and counted they put mirador:9x9's estimate 30% over its peak) */
	uint64_t buf = most * (KEY_BYTES + 1) + 2;
	return bp_sparse_bytes(ix) + 2 * ix->stored +
	       workers * (2 * buf + bp_codec_encoder_bytes(INDEX_LEVEL, buf / 2));
}

uint64_t bp_sparse_mapped_pair(const bp_sparse *ix)
{
	uint64_t most = 0;
	for (uint32_t t = 0; ix->maplen && t < ix->nt; t++) {
		uint64_t b = ix->maplen[t] + (t + 1 < ix->nt ? ix->maplen[t + 1] : 0);
		most = b > most ? b : most;
	}
	return most;
}

static uint64_t tier_hash(const bp_sparse *ix, uint32_t t)
{
	return bp_hash64(ix->k[t] ? (const void *)ix->k[t] : (const void *)"", ix->n[t] * KEY_BYTES,
			 0x7370617273650000ull ^ t);
}

static int need_tier(const bp_sparse *ix, uint32_t t);

uint64_t bp_sparse_hash(const bp_sparse *ix)
{
	uint64_t h = 0x7370617273650000ull ^ ix->nt;
	for (uint32_t t = 0; t < ix->nt; t++) {
		uint64_t th = need_tier(ix, t) == BP_OK ? tier_hash(ix, t) : 0;
		h = bp_hash64(&th, sizeof th, h ^ t);
	}
	return h;
}

/* Where key may lie in tier t (in memory): [*lo, *hi). With the tier's sample of
 * keys (struct bp_sparse top), after the last sampled key not above it and within
 * TOP_EVERY keys of it: one search of the sample, then one of a block of TOP_EVERY
 * keys (a sample of high words alone needed two searches, and then a range as long
 * as the keys sharing the key's high word). */
static void rank_range(const bp_sparse *ix, uint32_t t, const uint64_t key[2], uint64_t *lo,
		       uint64_t *hi)
{
	uint64_t n = ix->n[t];
	*lo = 0;
	*hi = n;
	if (!ix->top || !ix->top[t] || n <= TOP_EVERY)
		return;
	const uint64_t *top = ix->top[t];
	uint64_t a = 0, b = (n + TOP_EVERY - 1) / TOP_EVERY;
	while (a < b) { /* the first sample above the key */
		uint64_t mid = a + (b - a) / 2;
		if (key_less(key, top + 2 * mid))
			b = mid;
		else
			a = mid + 1;
	}
	if (a == 0) { /* below the tier's first key */
		*hi = 0;
		return;
	}
	*lo = (a - 1) * TOP_EVERY;
	if (*lo + TOP_EVERY < n)
		*hi = *lo + TOP_EVERY;
}

/* Binary search for key in k[lo, hi). @return BP_OK; BP_ERANGE. */
static int rank_in(const uint64_t *k, uint64_t lo, uint64_t hi, const uint64_t key[2],
		   uint64_t *out)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(k + 2 * mid, key);
		if (c == 0) {
			*out = mid;
			return BP_OK;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return BP_ERANGE;
}

int bp_sparse_rank(const bp_sparse *ix, uint32_t t, const uint64_t key[2], uint64_t *out)
{
	int rc;
	uint64_t lo, hi;
	if (t >= ix->nt)
		return BP_ERANGE;
	if ((rc = need_tier(ix, t)))
		return rc;
	rank_range(ix, t, key, &lo, &hi);
	return rank_in(ix->k[t], lo, hi, key, out);
}

const uint64_t *bp_sparse_key(const bp_sparse *ix, uint32_t t, uint64_t i)
{
	return t < ix->nt && i < ix->n[t] && need_tier(ix, t) == BP_OK ? ix->k[t] + 2 * i : NULL;
}

int bp_sparse_rank_position(const bp_sparse *ix, const struct bp_game *g, const struct bp_pos *p,
			    uint64_t *out)
{
	uint64_t key[2];
	int rc = g->ops->key_pack(g, p, key);
	return rc ? rc : bp_sparse_rank(ix, g->ops->tier(g, p), key, out);
}

int bp_sparse_unrank_position(const bp_sparse *ix, const struct bp_game *g, uint32_t t, uint64_t i,
			      struct bp_pos *out)
{
	int rc = t < ix->nt ? need_tier(ix, t) : BP_OK;
	const uint64_t *key = rc ? NULL : bp_sparse_key(ix, t, i);
	if (!key)
		return rc ? rc : BP_ERANGE;
	return g->ops->key_unpack(g, t, key, out) ? BP_ENOTFOUND : BP_OK;
}

int bp_sparse_compare_tier(const bp_sparse *a, const bp_sparse *b, uint32_t t, char *why, size_t n)
{
	int rc = need_tier(a, t);
	if (rc || (rc = need_tier(b, t))) {
		snprintf(why, n, "tier %u cannot be read: %s", t, bp_strerror(rc));
		return rc;
	}
	if (a->n[t] != b->n[t]) {
		snprintf(why, n, "tier %u: %llu positions against %llu", t,
			 (unsigned long long)a->n[t], (unsigned long long)b->n[t]);
		return BP_ECORRUPT;
	}
	for (uint64_t i = 0; i < a->n[t]; i++)
		if (key_cmp(a->k[t] + 2 * i, b->k[t] + 2 * i) != 0) {
			snprintf(why, n, "tier %u: position %llu differs", t,
				 (unsigned long long)i);
			return BP_ECORRUPT;
		}
	return BP_OK;
}

int bp_sparse_compare(const bp_sparse *a, const bp_sparse *b, char *why, size_t n)
{
	if (a->nt != b->nt) {
		snprintf(why, n, "%u tiers against %u", a->nt, b->nt);
		return BP_ECORRUPT;
	}
	for (uint32_t t = 0; t < a->nt; t++) {
		int rc = bp_sparse_compare_tier(a, b, t, why, n);
		if (rc)
			return rc;
	}
	return BP_OK;
}

void bp_sparse_release(bp_sparse *ix, uint32_t t)
{
	if (!ix->ready || t >= ix->nt)
		return;
	pthread_mutex_lock(&ix->lock);
	if (ix->ready[t]) {
		__atomic_store_n(&ix->ready[t], 0, __ATOMIC_RELEASE);
		free(ix->k[t]);
		ix->k[t] = NULL;
	}
	pthread_mutex_unlock(&ix->lock);
}

/* ---- enumeration ------------------------------------------------------------------ */

/* A worker's keys for one tier, in an anonymous mapping of cap keys (a multiple of
 * KVEC_FIRST) that grows by mremap: its pages are never copied or written twice, and
 * once the tier is merged the mapping serves the next tier (struct enumr's spare).
 * malloc's arrays, grown by realloc (a copy into fresh pages), and the merge's copy
 * aside into fresh pages each time, faulted in 560 MB of pages for the 220 MB a
 * two-thread mirador:10x10 enumeration holds at most. */
struct kvec {
	uint64_t *a; /* n keys, two words each: [0, s) sorted and unique, then as pushed */
	uint64_t n, cap, s;
	uint64_t hw; /* the keys' places written at most (the mapping's resident part) */
};

#define KVEC_FIRST 1024 /* keys: 16 KiB, whole pages */

/* v's mapping grown (or made) to cap keys. @return BP_OK; BP_ENOMEM (v unchanged). */
static int kvec_map(struct kvec *v, uint64_t cap)
{
	void *a = v->a ? mremap(v->a, v->cap * KEY_BYTES, cap * KEY_BYTES, MREMAP_MAYMOVE)
		       : mmap(NULL, cap * KEY_BYTES, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return BP_ENOMEM;
	v->a = a;
	v->cap = cap;
	return BP_OK;
}

static void kvec_unmap(struct kvec *v)
{
	if (v->a)
		munmap(v->a, v->cap * KEY_BYTES);
	*v = (struct kvec){ 0 };
}

/* Drops the keys of k[0, n) (sorted) equal to their predecessor, with no branch on
 * the comparison: each key is written at the next place and that place moves on when
 * it differs from the last kept (a fifth of the keys the enumeration pushes are
 * repeats, in no order a branch could guess). The last kept key stays in registers:
 * read back from where it was just written, each key waited on the last one's store
 * (over half the time of kvec_settle and of the sort's own pass). @return the keys
 * left. */
static uint64_t drop_repeats(uint64_t *k, uint64_t n, int marked)
{
	if (n == 0)
		return 0;
	uint64_t m = 1, last0 = k[0], last1 = k[1];
	if (marked) {
		/* keys marked in bit 0 (struct enumr's mark): the marks of a key's copies,
		 * side by side (they differ in bit 0 alone), ORed into the one kept */
		for (uint64_t i = 1; i < n; i++) {
			uint64_t v0 = k[2 * i], v1 = k[2 * i + 1];
			uint64_t differs = ((v0 ^ last0) >> 1 != 0) | (v1 != last1);
			k[2 * m] = v0;
			k[2 * m + 1] = v1;
			m += differs;
			k[2 * (m - 1)] |= v0 & 1; /* a repeat's mark into the key kept */
			last0 = v0;
			last1 = v1;
		}
		return m;
	}
	for (uint64_t i = 1; i < n; i++) {
		uint64_t v0 = k[2 * i], v1 = k[2 * i + 1];
		uint64_t differs = (v0 != last0) | (v1 != last1);
		k[2 * m] = v0;
		k[2 * m + 1] = v1;
		m += differs;
		last0 = v0; /* the same key when it does not differ */
		last1 = v1;
	}
	return m;
}

/* Sorts v's keys pushed since it was last settled and merges them into its sorted
 * part, dropping repeats: the sorted part is never sorted again (sorting the whole
 * array each time it filled sorted twice as many keys as were pushed, mirador:10x10).
 * The merge goes backwards from the end, with the new keys copied aside past them
 * (settle makes v room for them), and takes each key with no branch on the comparison
 * (the sides interleave at random; the branch mispredicted about half the time and the
 * merge was a tenth of a one-thread mirador:10x10 solve). Once the sorted part is used
 * up, the new keys left are the smallest and go to the front as they are. */
static void kvec_settle(struct kvec *v, int marked)
{
	if (v->n == v->s)
		return;
	uint64_t s = v->s, m = sort_unique(v->a + 2 * s, v->n - s, marked);
	if (s && m) {
		/* aside at [n, n + m): the merge writes below s + m <= n */
		uint64_t *tmp = v->a + 2 * v->n, i = s, j = m, o = s + m;
		memcpy(tmp, v->a + 2 * s, m * KEY_BYTES);
		uint64_t *a = v->a;
		while (i > 0 && j > 0) {
			const uint64_t *x = a + 2 * (i - 1), *y = tmp + 2 * (j - 1);
			uint64_t take_x = (uint64_t)key_less_sort(y, x);
			const uint64_t *from = take_x ? x : y;
			uint64_t f0 = from[0], f1 = from[1];
			o--;
			a[2 * o] = f0;
			a[2 * o + 1] = f1;
			i -= take_x;
			j -= take_x ^ 1;
		}
		memcpy(a, tmp, j * KEY_BYTES); /* o == j here when i reached 0 */
		v->n = drop_repeats(v->a, s + m, marked);
	} else {
		v->n = s + m;
	}
	v->s = v->n;
}

/* Merges the sorted, unique keys a[0, na) and b[0, nb) into out, each once.
 * @return the keys written. */
static uint64_t merge_unique(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
			     uint64_t *out, int marked)
{
	/* both sides' keys, in order, with no branch on the comparison (as kvec_settle's
	 * merge: the sides interleave at random), then the repeats dropped */
	uint64_t i = 0, j = 0, o = 0;
	while (i < na && j < nb) {
		const uint64_t *x = a + 2 * i, *y = b + 2 * j;
		uint64_t take_y = (uint64_t)key_less_sort(y, x);
		const uint64_t *from = take_y ? y : x;
		uint64_t f0 = from[0], f1 = from[1];
		out[2 * o] = f0;
		out[2 * o + 1] = f1;
		o++;
		j += take_y;
		i += take_y ^ 1;
	}
	memcpy(out + 2 * o, a + 2 * i, (na - i) * KEY_BYTES);
	o += na - i;
	memcpy(out + 2 * o, b + 2 * j, (nb - j) * KEY_BYTES);
	o += nb - j;
	return drop_repeats(out, o, marked);
}

/* merge_unique in two halves, one a thread: a's first half with b's keys below a's
 * middle key, and the rest, each into its own part of out (the halves share no key),
 * the second then moved down to follow the first. On mirador:10x10 the merge of the
 * workers' arrays was the one step of the enumeration on one thread. */
struct merge_job {
	const uint64_t *a, *b;
	uint64_t na, nb, ia, jb; /* the split: a[0, ia) and b[0, jb) first */
	uint64_t *out, got[2];
	int marked;
};

static int merge_half(void *ctx, int worker, uint64_t h)
{
	struct merge_job *m = ctx;
	(void)worker;
	if (h == 0)
		m->got[0] = merge_unique(m->a, m->ia, m->b, m->jb, m->out, m->marked);
	else
		m->got[1] = merge_unique(m->a + 2 * m->ia, m->na - m->ia, m->b + 2 * m->jb,
					 m->nb - m->jb, m->out + 2 * (m->ia + m->jb), m->marked);
	return BP_OK;
}

static uint64_t merge_unique_on(int threads, const uint64_t *a, uint64_t na, const uint64_t *b,
				uint64_t nb, uint64_t *out, int marked)
{
	if (threads < 2 || na < 2 || nb == 0)
		return merge_unique(a, na, b, nb, out, marked);
	struct merge_job m = {
		.a = a, .b = b, .na = na, .nb = nb, .ia = na / 2, .out = out, .marked = marked
	};
	/* jb: the first of b's keys not below a[ia] (marks aside: a key's copies, which
	 * differ in their marks alone, stay on one side) */
	const uint64_t piv[2] = { a[2 * m.ia] & ~(uint64_t)marked, a[2 * m.ia + 1] };
	uint64_t lo = 0, hi = nb;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint64_t bm[2] = { b[2 * mid] & ~(uint64_t)marked, b[2 * mid + 1] };
		if (key_less(bm, piv))
			lo = mid + 1;
		else
			hi = mid;
	}
	m.jb = lo;
	if (bp_parallel_for(2, 2, merge_half, &m) != BP_OK)
		return merge_unique(a, na, b, nb, out, marked);
	memmove(out + 2 * m.got[0], out + 2 * (m.ia + m.jb), m.got[1] * KEY_BYTES);
	return m.got[0] + m.got[1];
}

struct enumr {
	const struct bp_game *g;
	const struct bp_solve_opts *o;
	bp_sparse *ix;
	uint32_t t;
	int threads;
	struct kvec *pend; /* threads * nt: worker w's keys for tier c at w * nt + c */
	struct bp_move **mv;
	/* per worker, with children_keys: one position's children (tiers, then keys) */
	uint32_t **ktier;
	uint64_t **kkey;
	/* per worker: the keys it pushed lately, CACHE_KEYS slots by hash, three words
	 * each (low, high, 1 + tier); a key found there is in the worker's array already */
	uint64_t **seen;
	/* mappings of tiers merged, for the next tier's arrays (threads of them at most,
	 * counted in held and touched as before) */
	struct kvec *spare;
	int nspare;
	/* The mark: where the game has a key_spare_bit b and expand_key, a child that
	 * expand_key knows to be lost (over) is pushed marked, its key's bits below b
	 * moved up one (b is clear in every key) and bit 0 the mark, so that the copies of
	 * a key sort side by side whatever their marks and keep one key, marked when any
	 * copy was (drop_repeats); merge_tier moves the bits back and keeps the marks
	 * apart (lost), and the tier's expansion takes a marked key for lost without
	 * asking the game again. 0: no marks. */
	int mark_bit;
	uint64_t mark_low[2];	      /* the bits below mark_bit */
	uint64_t **klost;	      /* per worker: expand_key's lost words */
	uint64_t **lost;	      /* per tier, while it is expanded: its marks, a bit a key */
	const struct kvec *unmarking; /* the keys merge_tier unmarks */
	uint32_t merging;	      /* the tier merge_tier merges */
	uint64_t held;		      /* bytes of the pending arrays (atomic) */
	uint64_t touched;	      /* bytes of the pending arrays written (resident; atomic) */
	/* the most touched and fixed at once, with what merging takes beside it (atomic) */
	uint64_t peak;
	uint64_t fixed; /* bytes of the index so far */
	uint64_t limit;
	char errmsg[200];
};

/* Notes that the pending arrays' written part and extra bytes beside them are
 * resident at once: the enumeration's own peak, beside the keys it kept. (Their
 * capacity, which doubles, overstates it: pages never written are not resident.) */
static void note_peak(struct enumr *e, uint64_t extra)
{
	uint64_t now = __atomic_load_n(&e->touched, __ATOMIC_RELAXED) +
		       __atomic_load_n(&e->fixed, __ATOMIC_RELAXED) + extra;
	uint64_t was = __atomic_load_n(&e->peak, __ATOMIC_RELAXED);
	while (now > was && !__atomic_compare_exchange_n(&e->peak, &was, now, 1, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
		;
}

/* Lets go of v's mapping, and what held and touched counted of it. */
static void kvec_drop(struct enumr *e, struct kvec *v)
{
	__atomic_sub_fetch(&e->held, v->cap * KEY_BYTES, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&e->touched, v->hw * KEY_BYTES, __ATOMIC_RELAXED);
	kvec_unmap(v);
}

/* v grown (doubling) to at least `keys`, within the memory limit. @return BP_OK;
 * BP_ENOMEM; BP_ERANGE (v let go). */
static int kvec_grow(struct enumr *e, struct kvec *v, uint64_t keys)
{
	uint64_t cap = v->cap ? v->cap : KVEC_FIRST;
	while (cap < keys)
		cap *= 2;
	if (cap == v->cap)
		return BP_OK;
	uint64_t held = __atomic_add_fetch(&e->held, (cap - v->cap) * KEY_BYTES, __ATOMIC_RELAXED);
	if (e->limit && held + e->fixed > e->limit) {
		__atomic_sub_fetch(&e->held, (cap - v->cap) * KEY_BYTES, __ATOMIC_RELAXED);
		kvec_drop(e, v);
		return BP_ERANGE;
	}
	if (kvec_map(v, cap)) {
		__atomic_sub_fetch(&e->held, (cap - v->cap) * KEY_BYTES, __ATOMIC_RELAXED);
		return BP_ENOMEM;
	}
	return BP_OK;
}

/* kvec_settle(v), grown first where it has no room for its new keys' copy, with the
 * places written (the copy's too) counted as resident. */
static int settle(struct enumr *e, struct kvec *v)
{
	uint64_t room = v->n + (v->s ? v->n - v->s : 0);
	int rc;
	if (room > v->cap && (rc = kvec_grow(e, v, room)))
		return rc;
	if (room > v->hw) {
		__atomic_add_fetch(&e->touched, (room - v->hw) * KEY_BYTES, __ATOMIC_RELAXED);
		v->hw = room;
	}
	note_peak(e, 0);
	kvec_settle(v, e->mark_bit != 0);
	return BP_OK;
}

/* A key marked (struct enumr's mark) or not, and back; low: the bits below the
 * mark's bit b (low[0] the low word's, low[1] the high word's). Where b is below 64
 * (Mirador's grids up to 11x11), the high word stays as it is. */
static void mark_key(const uint64_t low[2], const uint64_t key[2], int mark, uint64_t out[2])
{
	if (low[1] == 0 && !(low[0] >> 63)) {
		out[0] = (key[0] & ~low[0]) | (key[0] & low[0]) << 1 | (uint64_t)(mark != 0);
		out[1] = key[1];
		return;
	}
	__extension__ typedef unsigned __int128 u128;
	u128 k = (u128)key[1] << 64 | key[0], lo = (u128)low[1] << 64 | low[0];
	k = (k & ~lo) | (k & lo) << 1 | (u128)(mark != 0);
	out[0] = (uint64_t)k;
	out[1] = (uint64_t)(k >> 64);
}

static int unmark_key(const uint64_t low[2], uint64_t key[2])
{
	int mark = (int)(key[0] & 1);
	if (low[1] == 0 && !(low[0] >> 63)) { /* bit b, clear in the key, from 0 */
		key[0] = (key[0] & ~(low[0] << 1 | 1)) | (key[0] >> 1 & low[0]);
		return mark;
	}
	__extension__ typedef unsigned __int128 u128;
	u128 k = (u128)key[1] << 64 | key[0], lo = (u128)low[1] << 64 | low[0];
	k = (k & ~(lo << 1 | 1)) | (k >> 1 & lo);
	key[0] = (uint64_t)k;
	key[1] = (uint64_t)(k >> 64);
	return mark;
}

static int push_key(struct enumr *e, struct kvec *v, const uint64_t key[2])
{
	if (v->n == v->cap) {
		int rc;
		if ((rc = settle(e, v)))
			return rc;
		if ((v->n > v->cap / 2 || v->cap == 0) && (rc = kvec_grow(e, v, 2 * v->n + 1)))
			return rc;
	}
	v->a[2 * v->n] = key[0];
	v->a[2 * v->n + 1] = key[1];
	v->n++;
	return BP_OK;
}

/* A key that a move reached: tier ct, into worker's array (marked as the mark says,
 * where the enumeration marks keys). */
static int reached(struct enumr *e, int worker, uint32_t t, uint32_t ct, const uint64_t *key0,
		   int mark)
{
	uint32_t nt = e->ix->nt;
	uint64_t marked[2];
	const uint64_t *key = key0;
	if (e->mark_bit) {
		mark_key(e->mark_low, key0, mark, marked);
		key = marked;
	}
	if (ct <= t || ct >= nt) {
		snprintf(e->errmsg, sizeof e->errmsg,
			 "a move from tier %u leads to tier %u: the game's tiers are not monotone",
			 t, ct);
		return BP_EINVAL;
	}
	/* Children of neighbouring positions coincide often: a key this worker pushed
	 * lately is in its array already (arrays lose only repeats before their tier is
	 * merged, and no move leads into a tier merged), so it is not pushed again. */
	uint64_t h = key[0] ^ key[1] * 0x9e3779b97f4a7c15ull ^ ct;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	uint64_t *slot = e->seen[worker] + 3 * (h >> 40 & (CACHE_KEYS - 1));
	if (slot[0] == key[0] && slot[1] == key[1] && slot[2] == (uint64_t)ct + 1)
		return BP_OK;
	slot[0] = key[0];
	slot[1] = key[1];
	slot[2] = (uint64_t)ct + 1;
	return push_key(e, &e->pend[(size_t)worker * nt + ct], key);
}

/* The n children (or an error, n < 0) that children_keys or expand_key wrote into
 * the worker's arrays for a position of tier t. */
static int push_children(struct enumr *e, int worker, uint32_t t, int n)
{
	const uint32_t *ct = e->ktier[worker];
	const uint64_t *keys = e->kkey[worker], *lost = e->mark_bit ? e->klost[worker] : NULL;
	int rc;
	if (n < 0) {
		snprintf(e->errmsg, sizeof e->errmsg,
			 "tier %u: a child does not fit the game's 128-bit key", t);
		return n;
	}
	for (int i = 0; i < n; i++)
		if ((rc = reached(e, worker, t, ct[i], keys + 2 * i,
				  lost ? (int)(lost[i / 64] >> (i % 64) & 1) : 0)))
			return rc;
	return BP_OK;
}

/* The children of p (tier t, not over) by the game's children_keys. */
static int children_keyed(struct enumr *e, int worker, uint32_t t, const struct bp_pos *p)
{
	return push_children(e, worker, t,
			     e->g->ops->children_keys(e->g, p, e->ktier[worker], e->kkey[worker]));
}

static int unpack_failed(struct enumr *e, uint32_t t)
{
	snprintf(e->errmsg, sizeof e->errmsg, "tier %u: a key the game packed does not unpack", t);
	return BP_EINVAL;
}

/* The 32 bits of x spread to the even bits of a word (bit i to bit 2i). */
static uint64_t spread32(uint64_t x)
{
	x = (x | x << 16) & 0x0000ffff0000ffffull;
	x = (x | x << 8) & 0x00ff00ff00ff00ffull;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
	x = (x | x << 2) & 0x3333333333333333ull;
	return (x | x << 1) & 0x5555555555555555ull;
}

/* expand_chunk's keys i0 .. i1 - 1 of tier t by the game's expand_key. The keys a
 * parent knew lost are over, as outcome() says, and are taken 32 at a time (a word
 * of outcomes from their marks): on mirador:10x10's 7.4 M of them, 0.2 G fewer
 * instructions than one at a time. */
_Static_assert(CHUNK_KEYS % 64 == 0, "a chunk's keys fill whole words of marks and outcomes");
static int expand_keyed(struct enumr *e, int worker, uint32_t t, uint64_t i0, uint64_t i1)
{
	const struct bp_game *g = e->g;
	const uint64_t *lost = e->mark_bit ? e->lost[t] : NULL;
	for (uint64_t i32 = i0; i32 < i1; i32 += 32) { /* i0 is a multiple of 32 */
		uint64_t n32 = i1 - i32 < 32 ? i1 - i32 : 32;
		uint64_t todo = n32 == 32 ? 0xffffffffull : (1ull << n32) - 1;
		if (lost) {
			uint64_t known = lost[i32 / 64] >> (i32 % 64) & todo;
			if (e->ix->outcome)
				e->ix->outcome[t][i32 / 32] |= spread32(known) * BP_VALUE_LOSS;
			todo &= ~known;
		}
		for (; todo; todo &= todo - 1) {
			uint64_t i = i32 + (uint64_t)__builtin_ctzll(todo);
			enum bp_value v = BP_VALUE_NONE;
			int wins = 0, rc;
			int n = g->ops->expand_key(g, t, e->ix->k[t] + 2 * i, &v,
						   e->ix->wins ? &wins : NULL, e->ktier[worker],
						   e->kkey[worker],
						   e->mark_bit ? e->klost[worker] : NULL);
			if (n == BP_ENOTFOUND)
				return unpack_failed(e, t);
			if (n < 0) /* push_children has the error's message */
				return push_children(e, worker, t, n);
			if (e->ix->outcome)
				e->ix->outcome[t][i / 32] |= (uint64_t)v << 2 * (i % 32);
			if (v != BP_VALUE_NONE)
				continue;
			if (wins)
				e->ix->wins[t][i / 64] |= 1ull << (i % 64);
			if ((rc = push_children(e, worker, t, n)))
				return rc;
		}
	}
	return BP_OK;
}

static int expand_chunk(void *ctx, int worker, uint64_t item)
{
	struct enumr *e = ctx;
	const struct bp_game *g = e->g;
	const struct bp_game_ops *ops = g->ops;
	uint32_t t = e->t, nt = e->ix->nt;
	uint64_t i0 = item * CHUNK_KEYS, i1 = i0 + CHUNK_KEYS;
	if (i1 > e->ix->n[t])
		i1 = e->ix->n[t];
	if (e->o && e->o->cancel && e->o->cancel(e->o->ctx))
		return BP_ECANCELED;
	if (ops->expand_key && e->ktier)
		return expand_keyed(e, worker, t, i0, i1);
	struct bp_pos p, c, canon;
	struct bp_move *mv = e->mv[worker];
	for (uint64_t i = i0; i < i1; i++) {
		uint64_t key[2];
		int rc = ops->key_unpack(g, t, e->ix->k[t] + 2 * i, &p);
		if (rc)
			return unpack_failed(e, t);
		enum bp_value v = ops->outcome(g, &p);
		if (e->ix->outcome)
			e->ix->outcome[t][i / 32] |= (uint64_t)v << 2 * (i % 32);
		if (v != BP_VALUE_NONE)
			continue;
		if (e->ix->wins && ops->wins_at_once(g, &p) == 1)
			e->ix->wins[t][i / 64] |= 1ull << (i % 64);
		if (e->ktier) {
			if ((rc = children_keyed(e, worker, t, &p)))
				return rc;
			continue;
		}
		int nm = ops->moves(g, &p, mv);
		for (int m = 0; m < nm; m++) {
			c = p;
			ops->apply(g, &c, mv[m]);
			bp_game_canonical(g, &c, &canon);
			uint32_t ct = ops->tier(g, &canon);
			if (ct <= t || ct >= nt) {
				snprintf(e->errmsg, sizeof e->errmsg,
					 "a move from tier %u leads to tier %u: the game's "
					 "tiers are not monotone",
					 t, ct);
				return BP_EINVAL;
			}
			if ((rc = ops->key_pack(g, &canon, key))) {
				snprintf(e->errmsg, sizeof e->errmsg,
					 "tier %u: a position does not fit the game's 128-bit "
					 "key",
					 ct);
				return rc;
			}
			if ((rc = push_key(e, &e->pend[(size_t)worker * nt + ct], key)))
				return rc;
		}
	}
	return BP_OK;
}

/* The first level of rank for tier t (see struct bp_sparse). @return BP_OK;
 * BP_ENOMEM. */
static int make_top(bp_sparse *ix, uint32_t t)
{
	uint64_t ns = (ix->n[t] + TOP_EVERY - 1) / TOP_EVERY;
	if (!ix->top || !(ix->top[t] = malloc((ns ? ns : 1) * KEY_BYTES)))
		return BP_ENOMEM;
	for (uint64_t j = 0; j < ns; j++) {
		ix->top[t][2 * j] = ix->k[t][2 * (j * TOP_EVERY)];
		ix->top[t][2 * j + 1] = ix->k[t][2 * (j * TOP_EVERY) + 1];
	}
	return BP_OK;
}

/* Work item w of merge_tier: settles worker w's array of the tier being merged. */
static int settle_item(void *ctx, int worker, uint64_t w)
{
	struct enumr *e = ctx;
	(void)worker;
	return settle(e, &e->pend[(size_t)w * e->ix->nt + e->merging]);
}

/* Work item j of merge_tier: the marks of keys [j, j + 1) * UNMARK_KEYS of the tier
 * being merged (whole words of its lost bits) apart, the keys unmarked. */
#define UNMARK_KEYS (1u << 16)
static int unmark_item(void *ctx, int worker, uint64_t j)
{
	struct enumr *e = ctx;
	const struct kvec *k = e->unmarking;
	uint64_t *lost = e->lost[e->merging], i1 = (j + 1) * UNMARK_KEYS;
	(void)worker;
	for (uint64_t i = j * UNMARK_KEYS; i < i1 && i < k->n; i++)
		lost[i / 64] |= (uint64_t)unmark_key(e->mark_low, k->a + 2 * i) << (i % 64);
	return BP_OK;
}

/* Keeps v's mapping, emptied, for a later tier's array (at most threads of them),
 * else lets it go. */
static void kvec_spare(struct enumr *e, struct kvec *v)
{
	if (!v->a)
		return;
	if (e->nspare < e->threads) {
		v->n = v->s = 0;
		e->spare[e->nspare++] = *v;
		*v = (struct kvec){ 0 };
	} else {
		kvec_drop(e, v);
	}
}

/* Merges the workers' arrays of tier c into the index's tier c: the first worker's
 * mapping becomes the tier's keys, each other worker's is merged into a mapping of
 * their total, and the mappings merged from are kept as spares. */
static int merge_tier(struct enumr *e, uint32_t c)
{
	uint32_t nt = e->ix->nt;
	struct kvec k = { 0 }; /* the keys merged so far */
	int rc;
	/* the workers' new keys sorted on every thread, then merged here */
	e->merging = c;
	if ((rc = bp_parallel_for(e->threads, (uint64_t)e->threads, settle_item, e)))
		return rc;
	for (int w = 0; w < e->threads; w++) {
		struct kvec *v = &e->pend[(size_t)w * nt + c], a = { 0 };
		if (!v->n)
			continue;
		if (!k.a) {
			k = *v; /* the first worker's keys as they are */
			*v = (struct kvec){ 0 };
			continue;
		}
		/* its keys were settled above: merged with k's into a new mapping */
		if ((rc = kvec_grow(e, &a, k.n + v->n))) {
			kvec_drop(e, &k);
			return rc;
		}
		a.hw = k.n + v->n;
		__atomic_add_fetch(&e->touched, a.hw * KEY_BYTES, __ATOMIC_RELAXED);
		note_peak(e, 0);
		a.n = a.s =
			merge_unique_on(e->threads, k.a, k.n, v->a, v->n, a.a, e->mark_bit != 0);
		kvec_spare(e, &k);
		kvec_spare(e, v);
		k = a;
	}
	if (!k.a && (rc = kvec_grow(e, &k, 1)))
		return rc;
	if (e->mark_bit) {
		/* the marks apart, the keys as the game packed them (the same order: the
		 * keys differ above bit 0) */
		if (!(e->lost[c] = calloc(k.n / 64 + 1, sizeof(uint64_t)))) {
			kvec_drop(e, &k);
			return BP_ENOMEM;
		}
		e->unmarking = &k;
		if ((rc = bp_parallel_for(e->threads, (k.n + UNMARK_KEYS - 1) / UNMARK_KEYS,
					  unmark_item, e))) {
			kvec_drop(e, &k);
			return rc;
		}
	}
	/* the index keeps its pages written and no more: the mapping shrunk to them */
	uint64_t bytes = (k.n * KEY_BYTES + 4095) & ~(uint64_t)4095;
	if (bytes == 0)
		bytes = 4096;
	void *shrunk = bytes < k.cap * KEY_BYTES ? mremap(k.a, k.cap * KEY_BYTES, bytes, 0) : k.a;
	__atomic_sub_fetch(&e->held, k.cap * KEY_BYTES, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&e->touched, k.hw * KEY_BYTES, __ATOMIC_RELAXED);
	e->ix->k[c] = k.a;
	e->ix->anonlen[c] = shrunk == MAP_FAILED ? k.cap * KEY_BYTES : bytes;
	e->ix->n[c] = k.n;
	e->fixed += k.n * KEY_BYTES;
	return make_top(e->ix, c);
}

int bp_sparse_enumerate(const struct bp_game *g, const struct bp_solve_opts *opts, bp_sparse **out,
			struct bp_err *err)
{
	if (opts && opts->spill_dir)
		return bp_sparse_enumerate_on_disk(g, opts, opts->spill_dir, out, err);
	struct enumr e = { .g = g, .o = opts };
	double t0 = bp_solve_clock();
	int rc = BP_OK;
	*out = NULL;
	if (!bp_sparse_supported(g))
		return bp_err_set(err, BP_EUNSUPPORTED, "%s has no index of reachable positions",
				  g->spec);
	e.threads = opts && opts->threads > 0 ? opts->threads : bp_parallel_cores();
	e.limit = opts ? opts->memory_limit : 0;
	uint32_t nt = g->ntiers;
	e.ix = sparse_new(nt);
	if (e.ix)
		e.ix->threads = e.threads;
	e.pend = calloc((size_t)e.threads * nt, sizeof *e.pend);
	e.spare = calloc((size_t)e.threads, sizeof *e.spare);
	if (e.ix &&
	    (!(e.ix->anonlen = calloc(nt ? nt : 1, sizeof *e.ix->anonlen)) ||
	     !(e.ix->outcome = calloc(nt ? nt : 1, sizeof *e.ix->outcome)) ||
	     !(e.ix->top = calloc(nt ? nt : 1, sizeof *e.ix->top)) ||
	     (g->ops->wins_at_once && !(e.ix->wins = calloc(nt ? nt : 1, sizeof *e.ix->wins))))) {
		rc = BP_ENOMEM;
		goto out;
	}
	e.mv = bp_solve_move_buffers(g, e.threads);
	if (g->ops->children_keys && (e.ktier = calloc((size_t)e.threads, sizeof *e.ktier)) &&
	    (e.kkey = calloc((size_t)e.threads, sizeof *e.kkey)) &&
	    (e.seen = calloc((size_t)e.threads, sizeof *e.seen)))
		for (int w = 0; w < e.threads; w++) {
			size_t mm = (size_t)(g->max_moves ? g->max_moves : 1);
			if (!(e.ktier[w] = malloc(mm * sizeof(uint32_t))) ||
			    !(e.kkey[w] = malloc(mm * KEY_BYTES)) ||
			    !(e.seen[w] = calloc(3 * CACHE_KEYS, sizeof(uint64_t)))) {
				rc = BP_ENOMEM;
				goto out;
			}
		}
	if (g->ops->expand_key && e.ktier && e.kkey && e.seen && g->key_spare_bit > 0 &&
	    g->key_spare_bit < 128 && !rc) {
		e.mark_bit = g->key_spare_bit;
		e.mark_low[0] = e.mark_bit >= 64 ? ~0ull : (1ull << e.mark_bit) - 1;
		e.mark_low[1] = e.mark_bit > 64 ? (1ull << (e.mark_bit - 64)) - 1 : 0;
		if (!(e.lost = calloc(nt ? nt : 1, sizeof *e.lost)) ||
		    !(e.klost = calloc((size_t)e.threads, sizeof *e.klost)))
			rc = BP_ENOMEM;
		for (int w = 0; !rc && w < e.threads; w++)
			if (!(e.klost[w] =
				      calloc(((size_t)(g->max_moves ? g->max_moves : 1) + 63) / 64,
					     sizeof(uint64_t))))
				rc = BP_ENOMEM;
		if (rc)
			goto out;
	}
	if (!e.ix || !e.pend || !e.spare || !e.mv ||
	    (g->ops->children_keys && (!e.ktier || !e.kkey || !e.seen))) {
		rc = BP_ENOMEM;
		goto out;
	}
	struct bp_pos start, canon;
	uint64_t key[2];
	g->ops->start(g, &start);
	bp_game_canonical(g, &start, &canon);
	uint32_t st = g->ops->tier(g, &canon);
	if (st >= nt || (rc = g->ops->key_pack(g, &canon, key))) {
		rc = rc ? rc : BP_EINVAL;
		snprintf(e.errmsg, sizeof e.errmsg, "the start position has no key");
		goto out;
	}
	if (!(e.ix->k[st] = malloc(KEY_BYTES))) {
		rc = BP_ENOMEM;
		goto out;
	}
	e.ix->k[st][0] = key[0];
	e.ix->k[st][1] = key[1];
	e.ix->n[st] = 1;
	if ((rc = make_top(e.ix, st)))
		goto out;
	for (uint32_t t = st; t < nt; t++) {
		if (t > st && (rc = merge_tier(&e, t)))
			goto out;
		if (e.limit && e.held + e.fixed > e.limit) {
			rc = BP_ERANGE;
			goto out;
		}
		e.t = t;
		/* the spare mappings for the next tier's arrays, where its moves lead */
		for (int w = 0; t + 1 < nt && w < e.threads && e.nspare; w++) {
			struct kvec *v = &e.pend[(size_t)w * nt + t + 1];
			if (!v->a)
				*v = e.spare[--e.nspare];
		}
		/* a chunk's outcomes and wins bits fill whole words (CHUNK_KEYS is a
		 * multiple of 64) */
		if ((e.ix->outcome &&
		     !(e.ix->outcome[t] = calloc((e.ix->n[t] + 31) / 32 + 1, sizeof(uint64_t)))) ||
		    (e.ix->wins &&
		     !(e.ix->wins[t] = calloc((e.ix->n[t] + 63) / 64 + 1, sizeof(uint64_t))))) {
			rc = BP_ENOMEM;
			goto out;
		}
		rc = bp_parallel_for(e.threads, (e.ix->n[t] + CHUNK_KEYS - 1) / CHUNK_KEYS,
				     expand_chunk, &e);
		if (e.lost) {
			free(e.lost[t]);
			e.lost[t] = NULL;
		}
		if (rc)
			goto out;
		if (opts && opts->progress) {
			struct bp_solve_progress pr = { .phase = 0,
							.tier = t,
							.ntiers = nt,
							.positions = e.ix->n[t],
							.seconds = bp_solve_clock() - t0 };
			opts->progress(opts->ctx, &pr);
		}
	}
	rc = bp_game_status(g);
	/* its peak beyond the index it made (the index's keys counted in the peak as they
	 * were kept, so that a large tier's pending keys early count against a small index) */
	e.ix->enum_bytes = e.peak > bp_sparse_bytes(e.ix) ? e.peak - bp_sparse_bytes(e.ix) : 0;
out:
	if (rc == BP_ERANGE && !e.errmsg[0]) {
		char hb[32], lb[32];
		snprintf(e.errmsg, sizeof e.errmsg,
			 "enumerating its reachable positions (tier %u) needs more than the "
			 "memory limit of %s (%s of keys held)",
			 e.t, bp_text_bytes(e.limit, lb, sizeof lb),
			 bp_text_bytes(e.held + e.fixed, hb, sizeof hb));
	}
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, e.errmsg[0] ? e.errmsg : bp_strerror(rc));
	if (e.pend)
		for (size_t i = 0; i < (size_t)e.threads * nt; i++)
			kvec_unmap(&e.pend[i]);
	free(e.pend);
	for (int i = 0; i < e.nspare; i++)
		kvec_unmap(&e.spare[i]);
	free(e.spare);
	for (int w = 0; w < e.threads; w++) {
		free(e.ktier ? e.ktier[w] : NULL);
		free(e.kkey ? e.kkey[w] : NULL);
		free(e.seen ? e.seen[w] : NULL);
	}
	free(e.ktier);
	free(e.kkey);
	free(e.seen);
	for (uint32_t t = 0; e.lost && t < nt; t++)
		free(e.lost[t]);
	free(e.lost);
	for (int w = 0; e.klost && w < e.threads; w++)
		free(e.klost[w]);
	free(e.klost);
	bp_solve_free_move_buffers(e.mv, e.threads);
	if (rc)
		bp_sparse_free(e.ix);
	else
		*out = e.ix;
	return rc;
}

/* ---- the view ------------------------------------------------------------------------ */

struct view {
	struct bp_game g; /* first: the view's ops get a pointer to it */
	struct bp_game_ops ops;
	const bp_sparse *ix;
	const struct bp_game_ops *base; /* the game's own */
	uint64_t id;			/* unique in the process (views_made) */
};

static uint64_t views_made;

/* The position a thread last unranked through a view, and where: the solve asks
 * outcome() of each position right after unrank, and a position equal to this one
 * needs no search for its index (a tenth of mirador:10x10's binary searches). The id
 * tells views apart, also a new view at a freed one's address. */
static _Thread_local struct {
	uint64_t view, i;
	uint32_t t;
	struct bp_pos p;
} last_unranked;

static const bp_sparse *ix_of(const struct bp_game *g)
{
	return ((const struct view *)(const void *)g)->ix;
}

static int view_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const bp_sparse *ix = ix_of(g);
	if (tier >= ix->nt)
		return BP_ERANGE;
	*out = ix->n[tier];
	return BP_OK;
}

static int view_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	return bp_sparse_rank_position(ix_of(g), g, p, out);
}

static int view_unrank(const struct bp_game *g, uint32_t tier, uint64_t index, struct bp_pos *out)
{
	int rc = bp_sparse_unrank_position(ix_of(g), g, tier, index, out);
	if (rc == BP_OK) {
		last_unranked.view = ((const struct view *)(const void *)g)->id;
		last_unranked.t = tier;
		last_unranked.i = index;
		last_unranked.p = *out;
	}
	return rc;
}

/* outcome() over an index just enumerated: the enumeration's answer for a position
 * of the index (its key ranked), else the game's. The solve asks it of every
 * position, and the game's rule can be costly (Mirador's chain-breaking search). */
static enum bp_value view_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	const struct view *v = (const struct view *)(const void *)g;
	const bp_sparse *ix = v->ix;
	uint32_t t;
	uint64_t key[2], i;
	if (last_unranked.view == v->id && memcmp(&last_unranked.p, p, sizeof *p) == 0) {
		t = last_unranked.t;
		i = last_unranked.i;
	} else {
		t = g->ops->tier(g, p);
		if (!(t < ix->nt && ix->outcome[t] && g->ops->key_pack(g, p, key) == BP_OK &&
		      bp_sparse_rank(ix, t, key, &i) == BP_OK))
			return v->base->outcome(g, p);
	}
	if (!ix->outcome[t])
		return v->base->outcome(g, p);
	return (enum bp_value)(ix->outcome[t][i / 32] >> 2 * (i % 32) & 3);
}

/* children() over the index: the game's children_keys, each key ranked. */
static int view_children(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
			 uint64_t *index)
{
	const bp_sparse *ix = ix_of(g);
	uint64_t keys[2 * VIEW_MAX_MOVES], hi[VIEW_MAX_MOVES];
	int n = g->ops->children_keys(g, p, tier, keys), rc;
	/* every child's range first, its keys' cache lines asked for at once, then the
	 * searches: the misses of all children overlap instead of following each other */
	for (int i = 0; i < n; i++) {
		if (tier[i] >= ix->nt)
			return BP_ERANGE;
		if ((rc = need_tier(ix, tier[i])))
			return rc;
		rank_range(ix, tier[i], keys + 2 * i, &index[i], &hi[i]);
		if (hi[i] - index[i] <= 2 * TOP_EVERY)
			for (uint64_t j = index[i]; j < hi[i]; j += 4)
				__builtin_prefetch(ix->k[tier[i]] + 2 * j);
	}
	for (int i = 0; i < n; i++)
		if ((rc = rank_in(ix->k[tier[i]], index[i], hi[i], keys + 2 * i, &index[i])))
			return rc;
	return n;
}

/* Ranks the keys of children from .. n - 1 of a position (all of tier ct) one at a
 * time, in move order, up to the first that the enumeration found over and lost for
 * its player to move: *at gets its place, or -1 when none is (all of them ranked then,
 * into index). @return BP_OK; BP_EINVAL (a child not in tier ct); BP_ERANGE (a key
 * not in the index). */
static int first_lost_child(const bp_sparse *ix, uint32_t ct, const uint32_t *tier,
			    const uint64_t *keys, int from, int n, uint64_t *index, int *at)
{
	const uint64_t *known = ix->outcome[ct];
	*at = -1;
	for (int i = from; i < n; i++) {
		uint64_t lo, hi;
		if (tier[i] != ct)
			return BP_EINVAL; /* not a move the walk can tell */
		rank_range(ix, ct, keys + 2 * i, &lo, &hi);
		int rc = rank_in(ix->k[ct], lo, hi, keys + 2 * i, &index[i]);
		if (rc)
			return rc;
		if ((enum bp_value)(known[index[i] / 32] >> 2 * (index[i] % 32) & 3) ==
		    BP_VALUE_LOSS) {
			*at = i;
			return BP_OK;
		}
	}
	return BP_OK;
}

/* The children that view_tier_walk tells of p (tier t, not over, tier t + 1's outcomes
 * known), into idx: the first child whose move wins at once alone, else every child.
 * Where the game has children_keys_first, the first WALK_FIRST children are asked
 * first, and the rest only when none of them wins at once. @return how many; an
 * error (< 0). */
static int walk_children(const struct bp_game *g, const bp_sparse *ix, uint32_t t,
			 const struct bp_pos *p, uint32_t *ct, uint64_t *keys, uint64_t *idx)
{
	const struct bp_game_ops *ops = g->ops;
	int rc, at = -1, n = 0, done = 0;
	if ((rc = need_tier(ix, t + 1)))
		return rc;
	if (ops->children_keys_first) {
		if ((n = ops->children_keys_first(g, p, WALK_FIRST, ct, keys)) < 0)
			return n;
		if ((rc = first_lost_child(ix, t + 1, ct, keys, 0, n, idx, &at)))
			return rc;
		done = n < WALK_FIRST || at >= 0; /* all of them, or one found */
	}
	if (!done) {
		int from = n;
		if ((n = ops->children_keys(g, p, ct, keys)) < 0)
			return n;
		if ((rc = first_lost_child(ix, t + 1, ct, keys, from, n, idx, &at)))
			return rc;
	}
	if (at < 0)
		return n;
	idx[0] = idx[at]; /* told alone (see view_tier_walk) */
	return 1;
}

/* tier_walk over the index, for the walk engine (solver/expanded.c): every index of
 * the tier is a reachable canonical position with no other member of its class in the
 * index, and every move of a game without BP_GAME_TIER_SKIP raises the tier by one
 * (else BP_EINVAL: the walk has no place for it). A position the enumeration found
 * over is told with its outcome, nothing unranked (the tiers engine unranked each of
 * them, 89% of mirador:10x10's positions, to ask outcome()); the others with their
 * children's indices, as view_children gives them, but for one shortcut:
 *
 * A child that the enumeration found over and lost for its player to move (a move
 * that wins at once: Mirador's unbreakable chain) is told alone. The engine's value
 * rule (bp_solve_child_key) takes the child with the largest key, and a loss with
 * remoteness 0 has the largest key there is (the parent is a win in 1 whatever its
 * other children are), so the record is the same as with every child; the walk
 * engine's solve, which alone asks this walk for children (the view has no
 * BP_GAME_WALK_UNREACHED, so no forward pass marks children through it), reads no
 * more of them. The children are ranked one at a time up to the first such child:
 * on mirador:10x10, all but 2,289 of the 972,352 positions not over have one, on
 * average the 1.5th of their 15 children, so that 14.6 M binary searches become
 * 1.5 M; and a game with children_keys_first makes the first few children's keys
 * only (walk_children). Cheaper still: where the game's wins_at_once told the
 * enumeration that a position not over has such a move (the wins bits), the walk says
 * so (bp_walk.wins_at_once) and makes, ranks and unranks nothing for it; the solver
 * records the win in 1 that the child told alone would give. On mirador:10x10 that
 * is 900 K of the 972 K positions not over. */
static int view_tier_walk(const struct bp_game *g, uint32_t tier, uint64_t lo, uint64_t hi,
			  unsigned what, const uint64_t *marked,
			  int (*visit)(void *ctx, const struct bp_walk *w), void *ctx)
{
	const struct view *v = (const struct view *)(const void *)g;
	const bp_sparse *ix = v->ix;
	uint32_t ct[VIEW_MAX_MOVES];
	uint64_t idx[VIEW_MAX_MOVES], keys[2 * VIEW_MAX_MOVES];
	int rc;
	(void)marked; /* every index is reached */
	if (tier >= ix->nt)
		return BP_ERANGE;
	if ((rc = need_tier(ix, tier)))
		return rc;
	const uint64_t *known = ix->outcome ? ix->outcome[tier] : NULL;
	if (hi > ix->n[tier])
		hi = ix->n[tier];
	for (uint64_t i = lo; i < hi; i++) {
		struct bp_walk w = { .index = i, .children = idx };
		if (what & BP_WALK_CHILDREN) {
			enum bp_value o = BP_VALUE_NONE;
			struct bp_pos p;
			int n, unranked = 0;
			if (known) {
				o = (enum bp_value)(known[i / 32] >> 2 * (i % 32) & 3);
			} else {
				if ((rc = bp_sparse_unrank_position(ix, g, tier, i, &p)))
					return rc;
				unranked = 1;
				o = v->base->outcome(g, &p);
			}
			if (o != BP_VALUE_NONE) {
				w.nchildren = -1;
				w.outcome = o;
			} else if (known && ix->wins && (ix->wins[tier][i / 64] >> (i % 64) & 1)) {
				w.nchildren = 0; /* a move wins at once, known with no child */
				w.wins_at_once = 1;
			} else {
				if (!unranked &&
				    (rc = bp_sparse_unrank_position(ix, g, tier, i, &p)))
					return rc;
				if (known && tier + 1 < ix->nt && ix->outcome[tier + 1]) {
					if ((n = walk_children(g, ix, tier, &p, ct, keys, idx)) < 0)
						return n;
				} else {
					if ((n = view_children(g, &p, ct, idx)) < 0)
						return n;
					for (int k = 0; k < n; k++)
						if (ct[k] != tier + 1)
							return BP_EINVAL; /* not a move the walk can
									   * tell */
				}
				w.nchildren = n;
			}
		}
		if ((rc = visit(ctx, &w)))
			return rc;
	}
	return BP_OK;
}

int bp_sparse_view(const struct bp_game *g, const bp_sparse *ix, struct bp_game **out)
{
	*out = NULL;
	if (!bp_sparse_supported(g) || ix->nt != g->ntiers)
		return BP_EUNSUPPORTED;
	struct view *v = malloc(sizeof *v);
	if (!v)
		return BP_ENOMEM;
	v->g = *g;
	v->g.failed = BP_OK;
	v->ops = *g->ops;
	v->ops.tier_size = view_tier_size;
	v->ops.rank = view_rank;
	v->ops.unrank = view_unrank;
	v->ops.tier_walk = NULL; /* set below where the game has children_keys */
	v->base = g->ops;
	if (ix->outcome)
		v->ops.outcome = view_outcome;
	/* the game's children() gives its own indices: only the index's may be given */
	v->ops.children =
		g->ops->children_keys && g->max_moves <= VIEW_MAX_MOVES ? view_children : NULL;
	/* the walk tells each child in the next tier, which a tier skip would break */
	if (v->ops.children && !(g->ops->flags & BP_GAME_TIER_SKIP))
		v->ops.tier_walk = view_tier_walk;
	v->ops.walk_segments = NULL;
	v->ops.flags = (g->ops->flags | BP_GAME_DENSE_REACHABLE | BP_GAME_INDEX_CANONICAL) &
		       ~(unsigned)BP_GAME_WALK_UNREACHED;
	v->g.ops = &v->ops;
	v->ix = ix;
	v->id = __atomic_add_fetch(&views_made, 1, __ATOMIC_RELAXED);
	*out = &v->g;
	return BP_OK;
}

void bp_sparse_view_free(struct bp_game *view)
{
	free(view); /* the view is the first member of its struct view */
}

/* ---- stored form ----------------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << 8 * i;
	return v;
}

static void block_key(uint8_t key[9], uint32_t tier, uint32_t block)
{
	key[0] = 'k';
	for (int i = 0; i < 4; i++) {
		key[1 + i] = (uint8_t)(tier >> 8 * (3 - i));
		key[5 + i] = (uint8_t)(block >> 8 * (3 - i));
	}
}

static void key_bytes(const uint64_t *k, uint8_t be[KEY_BYTES])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w[2] = { __builtin_bswap64(k[1]), __builtin_bswap64(k[0]) };
	memcpy(be, w, KEY_BYTES); /* the high word's bytes first, each word's from its top */
#else
	for (int i = 0; i < 8; i++) {
		be[i] = (uint8_t)(k[1] >> 8 * (7 - i));
		be[8 + i] = (uint8_t)(k[0] >> 8 * (7 - i));
	}
#endif
}

static uint64_t seed_of(const char *spec)
{
	return bp_hash64(spec, strlen(spec), 0x5350);
}

static void index_name(char *name, size_t n, const char *spec)
{
	snprintf(name, n, ".index:%s", spec);
}

/* Front-codes keys[0..n) into bytes (room for 17 * n + 1), then lays them out as
 * records of index format `format` in rec (see the top). @return the records. */
static uint32_t encode_block(const uint64_t *keys, uint32_t n, uint16_t *rec, uint8_t *bytes,
			     uint32_t format)
{
	/* the key's bytes, then zeros: its last 16 - s bytes are copied as 16 bytes, of
	 * which the next key's overwrite those past them (bytes has room: 17 a key) */
	uint8_t cur[2 * KEY_BYTES] = { 0 };
	size_t len = 0;
	for (uint32_t i = 0; i < n; i++) {
		key_bytes(keys + 2 * i, cur);
		/* the bytes shared with the key before, from the top: the leading zero bytes
		 * of the words' difference (a byte at a time, this loop was a fortieth of a
		 * one-thread mirador:10x10 solve) */
		int s = 0;
		if (i > 0) {
			uint64_t x1 = keys[2 * i + 1] ^ keys[2 * i - 1],
				 x0 = keys[2 * i] ^ keys[2 * i - 2];
			s = x1	 ? __builtin_clzll(x1) / 8
			    : x0 ? 8 + __builtin_clzll(x0) / 8
				 : KEY_BYTES;
		}
		bytes[len++] = (uint8_t)s;
		memcpy(bytes + len, cur + s, KEY_BYTES);
		len += (size_t)(KEY_BYTES - s);
	}
	if (len % 2)
		bytes[len++] = 0;
	size_t h = len / 2;
	if (format == 1)
		for (size_t i = 0; i < h; i++)
			rec[i] = (uint16_t)(bytes[2 * i] | bytes[2 * i + 1] << 8);
	else
		for (size_t i = 0; i < h; i++)
			rec[i] = (uint16_t)(bytes[i] | bytes[h + i] << 8);
	return (uint32_t)h;
}

/* The inverse of encode_block: n keys from nrec records of index format `format`, by
 * way of bytes (room for 2 * nrec). @return BP_OK; BP_ECORRUPT. */
static int decode_block(const uint16_t *rec, uint32_t nrec, uint32_t n, uint64_t *keys,
			uint8_t *bytes, uint32_t format)
{
	uint8_t cur[KEY_BYTES] = { 0 }; /* the previous key, whose first s bytes the next shares */
	size_t len = (size_t)nrec * 2, at = 0;
	if (format == 1)
		for (size_t i = 0; i < nrec; i++) {
			bytes[2 * i] = (uint8_t)rec[i];
			bytes[2 * i + 1] = (uint8_t)(rec[i] >> 8);
		}
	else
		for (size_t i = 0; i < nrec; i++) {
			bytes[i] = (uint8_t)rec[i];
			bytes[nrec + i] = (uint8_t)(rec[i] >> 8);
		}
	for (uint32_t i = 0; i < n; i++) {
		if (at >= len)
			return BP_ECORRUPT;
		unsigned s = bytes[at++];
		if (s > KEY_BYTES || (i == 0 && s != 0) || at + (KEY_BYTES - s) > len)
			return BP_ECORRUPT;
		memcpy(cur + s, bytes + at, KEY_BYTES - s);
		at += KEY_BYTES - s;
		uint64_t hi = 0, lo = 0;
		for (int j = 0; j < 8; j++) {
			hi = hi << 8 | cur[j];
			lo = lo << 8 | cur[8 + j];
		}
		keys[2 * i] = lo;
		keys[2 * i + 1] = hi;
	}
	/* at most one padding byte, zero */
	if (len - at > 1 || (len - at == 1 && bytes[at] != 0))
		return BP_ECORRUPT;
	return BP_OK;
}

/* bp_sparse_store's blocks, encoded on the enumeration's threads (the zstd frames of
 * mirador:10x10's 35 blocks were a tenth of its one-thread solve, all of it on one
 * core): block j is items[1 + j], each worker with its own codec and buffers, so the
 * bytes are those one thread writes. */
struct store_job {
	const bp_sparse *ix;
	uint64_t seed;
	uint32_t *tier, *blk; /* per block */
	uint8_t *keys;	      /* per block: its 9-byte key */
	struct bp_kv_item *items;
	bp_codec **codec; /* per worker */
	uint16_t **rec;
	uint8_t **bytes;
	uint32_t format; /* the index format written */
	uint64_t *thash; /* per tier: its hash, made by the first nt items */
};

static int store_block(void *ctx, int worker, uint64_t j)
{
	struct store_job *sj = ctx;
	if (j < sj->ix->nt) { /* the tiers' hashes first (a tier's keys in one pass) */
		sj->thash[j] = tier_hash(sj->ix, (uint32_t)j);
		return BP_OK;
	}
	j -= sj->ix->nt;
	uint32_t t = sj->tier[j];
	uint64_t b0 = (uint64_t)sj->blk[j] * BLOCK_KEYS, left = sj->ix->n[t] - b0;
	uint32_t n = (uint32_t)(left < BLOCK_KEYS ? left : BLOCK_KEYS);
	uint8_t *k = sj->keys + 9 * j;
	block_key(k, t, sj->blk[j]);
	uint32_t nrec = encode_block(sj->ix->k[t] + 2 * b0, n, sj->rec[worker], sj->bytes[worker],
				     sj->format);
	const void *enc;
	size_t elen;
	int rc = bp_codec_encode(sj->codec[worker], k, 9, sj->seed, sj->rec[worker], nrec,
				 sj->format == 1 ? 0 : INDEX_LEVEL, &enc, &elen);
	if (rc)
		return rc;
	uint8_t *val = malloc(HEADER_BYTES + elen);
	if (!val)
		return BP_ENOMEM;
	put_u32(val, nrec);
	put_u32(val + 4, n);
	memcpy(val + HEADER_BYTES, enc, elen);
	sj->items[1 + j] =
		(struct bp_kv_item){ .key = k, .klen = 9, .val = val, .vlen = HEADER_BYTES + elen };
	return BP_OK;
}

int bp_sparse_store(bp_store *db, const char *spec, bp_sparse *ix, struct bp_err *err)
{
	return bp_sparse_store_format(db, spec, ix, SPARSE_FORMAT, err);
}

int bp_sparse_store_format(bp_store *db, const char *spec, bp_sparse *ix, uint32_t version,
			   struct bp_err *err)
{
	char name[300];
	bp_kv *kv = NULL;
	struct store_job sj = { .ix = ix, .format = version };
	uint8_t *format = NULL;
	size_t nitems = 1, at = 0;
	int rc = BP_OK, threads;
	if (version < SPARSE_FORMAT_OLDEST || version > SPARSE_FORMAT)
		return bp_err_set(err, BP_EINVAL, "%s: no index format %u to write", spec, version);
	index_name(name, sizeof name, spec);
	nitems += index_blocks(ix);
	threads = store_workers(ix, nitems - 1);
	size_t flen = 28 + 16 * (size_t)ix->nt;
	sj.items = calloc(nitems, sizeof *sj.items);
	sj.keys = malloc(nitems * 9);
	sj.tier = malloc(nitems * sizeof *sj.tier);
	sj.blk = malloc(nitems * sizeof *sj.blk);
	format = malloc(flen);
	sj.codec = calloc((size_t)threads, sizeof *sj.codec);
	sj.rec = calloc((size_t)threads, sizeof *sj.rec);
	sj.bytes = calloc((size_t)threads, sizeof *sj.bytes);
	sj.thash = calloc(ix->nt ? ix->nt : 1, sizeof *sj.thash);
	if (!sj.items || !sj.keys || !sj.tier || !sj.blk || !format || !sj.codec || !sj.rec ||
	    !sj.bytes || !sj.thash)
		rc = BP_ENOMEM;
	for (int w = 0; !rc && w < threads; w++)
		if (!(sj.bytes[w] = malloc((size_t)BLOCK_KEYS * (KEY_BYTES + 1) + 2)) ||
		    !(sj.rec[w] = malloc(((size_t)BLOCK_KEYS * (KEY_BYTES + 1) + 2) / 2 *
					 sizeof *sj.rec[w])) ||
		    bp_codec_create(&sj.codec[w]))
			rc = BP_ENOMEM;
	if (rc)
		goto out;
	memcpy(format, SPARSE_MAGIC, 8);
	put_u32(format + 8, version);
	put_u32(format + 12, BP_RULES_VERSION);
	put_u32(format + 16, ix->nt);
	put_u32(format + 20, KEY_BYTES);
	put_u32(format + 24, BLOCK_KEYS);
	for (uint32_t t = 0; t < ix->nt; t++)
		put_u64(format + 28 + 8 * (size_t)t, ix->n[t]);
	for (uint32_t t = 0; t < ix->nt; t++)
		if ((rc = need_tier(ix, t)))
			goto out;
	sj.items[at++] =
		(struct bp_kv_item){ .key = "format", .klen = 6, .val = format, .vlen = flen };
	sj.seed = seed_of(spec);
	for (uint32_t t = 0; t < ix->nt; t++)
		for (uint64_t b0 = 0, blk = 0; b0 < ix->n[t]; b0 += BLOCK_KEYS, blk++) {
			sj.tier[at - 1] = t;
			sj.blk[at - 1] = (uint32_t)blk;
			at++;
		}
	if ((rc = bp_parallel_for(threads, ix->nt + at - 1, store_block, &sj)))
		goto out;
	for (uint32_t t = 0; t < ix->nt; t++)
		put_u64(format + 28 + 8 * ((size_t)ix->nt + t), sj.thash[t]);
	if ((rc = bp_kv_open(db, name, BP_STORE_CREATE, &kv, err)))
		goto out_quiet;
	ix->stored = 0;
	for (size_t i = 0; i < at; i++)
		ix->stored += sj.items[i].klen + sj.items[i].vlen;
	if ((rc = bp_kv_put(kv, at, sj.items)))
		bp_err_set(err, rc, "%s: writing its index of positions: %s", spec,
			   bp_kv_why(kv)[0] ? bp_kv_why(kv) : bp_strerror(rc));
	goto out_quiet;
out:
	bp_err_set(err, rc, "%s: encoding its index of positions: %s", spec, bp_strerror(rc));
out_quiet:
	for (size_t i = 1; sj.items && i < at; i++)
		free((void *)sj.items[i].val);
	bp_kv_close(kv);
	for (int w = 0; w < threads; w++) {
		if (sj.codec)
			bp_codec_destroy(sj.codec[w]);
		free(sj.rec ? sj.rec[w] : NULL);
		free(sj.bytes ? sj.bytes[w] : NULL);
	}
	free(sj.codec);
	free(sj.rec);
	free(sj.bytes);
	free(sj.items);
	free(sj.keys);
	free(sj.tier);
	free(sj.blk);
	free(sj.thash);
	free(format);
	return rc;
}

int bp_sparse_stored(bp_store *db, const char *spec)
{
	char name[300];
	bp_kv *kv = NULL;
	index_name(name, sizeof name, spec);
	if (bp_kv_open(db, name, BP_STORE_READONLY, &kv, NULL) == BP_ENOTFOUND)
		return 0;
	bp_kv_close(kv);
	return 1;
}

/* Reads, decodes and checks tier t's keys. Called under ix->lock. */
static int load_tier(bp_sparse *ix, uint32_t t)
{
	uint64_t n = ix->n[t];
	int rc = BP_OK;
	if (!(ix->k[t] = malloc((n ? n : 1) * KEY_BYTES)))
		return BP_ENOMEM;
	for (uint64_t b0 = 0, blk = 0; b0 < n; b0 += BLOCK_KEYS, blk++) {
		uint32_t want = (uint32_t)(n - b0 < BLOCK_KEYS ? n - b0 : BLOCK_KEYS);
		uint8_t k[9];
		void *val = NULL;
		size_t vlen = 0;
		const char *why = NULL;
		block_key(k, t, (uint32_t)blk);
		rc = bp_kv_get(ix->kv, k, 9, &val, &vlen);
		ix->stored += 9 + vlen;
		if (rc == BP_ENOTFOUND)
			rc = BP_ECORRUPT, why = "missing";
		else if (rc == BP_ECORRUPT)
			why = bp_kv_why(ix->kv);
		else if (!rc && (vlen < HEADER_BYTES || get_u32(val) > (BLOCK_KEYS * 17 + 2) / 2 ||
				 get_u32((uint8_t *)val + 4) != want))
			rc = BP_ECORRUPT, why = "bad block header";
		else if (!rc)
			rc = bp_codec_decode(ix->codec, k, 9, ix->seed,
					     (uint8_t *)val + HEADER_BYTES, vlen - HEADER_BYTES,
					     ix->rec, get_u32(val), 0, &why);
		if (!rc && decode_block(ix->rec, get_u32(val), want, ix->k[t] + 2 * b0, ix->bytes,
					ix->format))
			rc = BP_ECORRUPT, why = "keys do not decode";
		free(val);
		if (rc) {
			snprintf(ix->why, sizeof ix->why,
				 "its index of positions: tier %u block %llu: %s", t,
				 (unsigned long long)blk, why ? why : bp_strerror(rc));
			goto fail;
		}
	}
	for (uint64_t i = 1; i < n; i++)
		if (key_cmp(ix->k[t] + 2 * (i - 1), ix->k[t] + 2 * i) >= 0) {
			snprintf(ix->why, sizeof ix->why,
				 "its index of positions: tier %u: keys out of order at %llu", t,
				 (unsigned long long)i);
			rc = BP_ECORRUPT;
			goto fail;
		}
	if (tier_hash(ix, t) != ix->thash[t]) {
		snprintf(ix->why, sizeof ix->why,
			 "its index of positions: tier %u fails the hash of its format record", t);
		rc = BP_ECORRUPT;
		goto fail;
	}
	return BP_OK;
fail:
	free(ix->k[t]);
	ix->k[t] = NULL;
	return rc;
}

/* Tier t in memory: at once, or read on first use (index opened from its stored form).
 * The index is logically const: reading a tier fills a cache. */
static int need_tier(const bp_sparse *cix, uint32_t t)
{
	bp_sparse *ix = (bp_sparse *)(uintptr_t)cix; /* allocated non-const (sparse_new) */
	if (!ix->ready || __atomic_load_n(&ix->ready[t], __ATOMIC_ACQUIRE))
		return BP_OK;
	pthread_mutex_lock(&ix->lock);
	int rc = ix->bad;
	if (!rc && !ix->ready[t]) {
		rc = load_tier(ix, t);
		if (rc)
			ix->bad = rc;
		else
			__atomic_store_n(&ix->ready[t], 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ix->lock);
	return rc;
}

int bp_sparse_read_all(bp_sparse *ix, struct bp_err *err)
{
	for (uint32_t t = 0; t < ix->nt; t++) {
		int rc = need_tier(ix, t);
		if (rc)
			return bp_err_set(err, rc, "%s", ix->why[0] ? ix->why : bp_strerror(rc));
	}
	return BP_OK;
}

const char *bp_sparse_why(const bp_sparse *ix)
{
	return ix->why;
}

int bp_sparse_open(bp_store *db, const struct bp_game *g, bp_sparse **out, struct bp_err *err)
{
	char name[300];
	bp_kv *kv = NULL;
	bp_sparse *ix = NULL;
	uint8_t *format = NULL;
	size_t flen = 0;
	int rc;
	*out = NULL;
	index_name(name, sizeof name, g->spec);
	if ((rc = bp_kv_open(db, name, BP_STORE_READONLY, &kv, err)))
		return rc;
	rc = bp_kv_get(kv, "format", 6, (void **)&format, &flen);
	if (rc == BP_ENOTFOUND) {
		rc = bp_err_set(err, BP_ECORRUPT, "its index of positions has no format record");
		goto out;
	}
	if (rc) {
		bp_err_set(err, rc, "its index of positions: format record: %s",
			   rc == BP_ECORRUPT ? bp_kv_why(kv) : bp_strerror(rc));
		goto out;
	}
	if (flen < 28 || memcmp(format, SPARSE_MAGIC, 8) != 0) {
		rc = bp_err_set(err, BP_EFORMAT, "its index of positions is not one (bad magic)");
		goto out;
	}
	if (get_u32(format + 8) < SPARSE_FORMAT_OLDEST || get_u32(format + 8) > SPARSE_FORMAT ||
	    get_u32(format + 20) != KEY_BYTES || get_u32(format + 24) != BLOCK_KEYS) {
		rc = bp_err_set(err, BP_EFORMAT,
				"its index of positions is of format %u, this build reads %u to %u",
				get_u32(format + 8), SPARSE_FORMAT_OLDEST, SPARSE_FORMAT);
		goto out;
	}
	if (get_u32(format + 12) != BP_RULES_VERSION) {
		rc = bp_err_set(err, BP_ERULES,
				"its index of positions was enumerated under rules version %u, "
				"this build implements %u",
				get_u32(format + 12), BP_RULES_VERSION);
		goto out;
	}
	uint32_t nt = get_u32(format + 16);
	if (nt != g->ntiers) {
		rc = bp_err_set(err, BP_EFORMAT, "its index of positions has %u tiers, the game %u",
				nt, g->ntiers);
		goto out;
	}
	if (flen != 28 + 16 * (size_t)nt) {
		rc = bp_err_set(err, BP_ECORRUPT,
				"its index of positions has a format record of %zu bytes, %zu "
				"expected",
				flen, 28 + 16 * (size_t)nt);
		goto out;
	}
	if ((ix = sparse_new(nt)) && (ix->ready = calloc(nt ? nt : 1, 1)))
		pthread_mutex_init(&ix->lock, NULL); /* bp_sparse_free destroys it */
	if (!ix || !ix->ready || !(ix->thash = calloc(nt ? nt : 1, sizeof *ix->thash)) ||
	    bp_codec_create(&ix->codec) ||
	    !(ix->rec = malloc(((size_t)BLOCK_KEYS * (KEY_BYTES + 1) + 2) / 2 * sizeof *ix->rec)) ||
	    !(ix->bytes = malloc((size_t)BLOCK_KEYS * (KEY_BYTES + 1) + 2))) {
		rc = bp_err_set(err, BP_ENOMEM, "its index of positions: out of memory");
		goto out;
	}
	ix->stored = 6 + flen;
	ix->seed = seed_of(g->spec);
	ix->format = get_u32(format + 8);
	for (uint32_t t = 0; t < nt; t++) {
		ix->n[t] = get_u64(format + 28 + 8 * (size_t)t);
		ix->thash[t] = get_u64(format + 28 + 8 * ((size_t)nt + t));
		if (ix->n[t] > ((uint64_t)1 << 40)) {
			rc = bp_err_set(err, BP_ECORRUPT,
					"its index of positions: tier %u: %llu positions", t,
					(unsigned long long)ix->n[t]);
			goto out;
		}
	}
	ix->kv = kv;
	kv = NULL;
out:
	bp_kv_close(kv);
	free(format);
	if (rc)
		bp_sparse_free(ix);
	else
		*out = ix;
	return rc;
}

int bp_sparse_load(bp_store *db, const struct bp_game *g, bp_sparse **out, struct bp_err *err)
{
	int rc = bp_sparse_open(db, g, out, err);
	if (!rc && (rc = bp_sparse_read_all(*out, err))) {
		bp_sparse_free(*out);
		*out = NULL;
	}
	return rc;
}
