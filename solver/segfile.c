/* SPDX-License-Identifier: MIT */
#include "solver/segfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/parallel.h"
#include "store/codec.h"

#define LEVEL 1 /* zstd's fastest: the files are read once */

static uint64_t piece_records(const struct bp_segfile_head *h, uint64_t p)
{
	uint64_t n = h->hi - h->lo, at = p * BP_SEGFILE_PIECE;
	return n - at < BP_SEGFILE_PIECE ? n - at : BP_SEGFILE_PIECE;
}

static uint64_t pieces(const struct bp_segfile_head *h)
{
	return (h->hi - h->lo + BP_SEGFILE_PIECE - 1) / BP_SEGFILE_PIECE;
}

/* A batch of pieces encoded by the workers, then written in order by the caller. */
struct batch {
	const struct bp_segfile_head *h;
	const void *rec;
	const uint64_t *keep;
	uint64_t first; /* the batch's first piece */
	bp_codec **c;	/* per worker */
	uint16_t **w;	/* per worker: a piece widened */
	struct out {
		void *buf;
		size_t len, cap;
	} * out; /* per piece of the batch */
};

/* Worker: piece first + item, widened, masked by keep and encoded into out[item]. */
static int encode_piece(void *ctx, int worker, uint64_t item)
{
	struct batch *b = ctx;
	const struct bp_segfile_head *h = b->h;
	const uint64_t p = b->first + item, n = piece_records(h, p), at = p * BP_SEGFILE_PIECE;
	const uint64_t *keep = b->keep;
	uint16_t *w = b->w[worker];
	int rc = BP_OK;
	if (!b->c[worker] && (rc = bp_codec_create(&b->c[worker])))
		return rc;
	if (!w && !(w = b->w[worker] = malloc(sizeof *w * BP_SEGFILE_PIECE)))
		return BP_ENOMEM;
	if (h->width == 2)
		memcpy(w, (const uint16_t *)b->rec + at, sizeof *w * n);
	else
		for (uint64_t i = 0; i < n; i++)
			w[i] = ((const uint8_t *)b->rec)[at + i];
	/* pieces start on a word of keep (BP_SEGFILE_PIECE is a multiple of 64); a
	 * word's records are masked without branches, where they are whole */
	for (uint64_t i = 0; keep && i < n; i += 64) {
		const uint64_t k = keep[(at + i) / 64];
		if (k == ~0ull)
			continue;
		if (n - i >= 64) {
			for (unsigned j = 0; j < 64; j++)
				w[i + j] &= (uint16_t)(0 - (k >> j & 1));
			continue;
		}
		for (uint64_t j = 0; i + j < n; j++)
			w[i + j] = k >> j & 1 ? w[i + j] : 0;
	}
	uint8_t key[BP_CODEC_KEY_SIZE];
	const void *enc;
	size_t len;
	bp_codec_key(key, h->tier, h->lo + at);
	if ((rc = bp_codec_encode(b->c[worker], key, sizeof key, h->solve, w, (uint32_t)n, LEVEL,
				  &enc, &len)))
		return rc;
	struct out *o = &b->out[item];
	if (o->cap < len) {
		void *q = realloc(o->buf, len);
		if (!q)
			return BP_ENOMEM;
		o->buf = q;
		o->cap = len;
	}
	memcpy(o->buf, enc, len);
	o->len = len;
	return BP_OK;
}

int bp_segfile_write(const char *path, struct bp_segfile_head *h, const void *rec,
		     const uint64_t *keep, int threads)
{
	char tmp[4200];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return BP_EIO;
	}
	threads = threads < 1 ? 1 : threads;
	/* a few pieces a worker at a time: the encoded bytes wait in memory until written */
	const uint64_t per = 4 * (uint64_t)threads;
	struct batch b = { .h = h, .rec = rec, .keep = keep };
	b.c = calloc((size_t)threads, sizeof *b.c);
	b.w = calloc((size_t)threads, sizeof *b.w);
	b.out = calloc(per, sizeof *b.out);
	FILE *f = NULL;
	int rc = b.c && b.w && b.out ? BP_OK : BP_ENOMEM;
	if (!rc && !(f = fopen(tmp, "wb")))
		rc = BP_EIO;
	h->bytes = 0;
	/* the head is written again at the end, with the payload's length */
	if (!rc && (fwrite(BP_SEGFILE_MAGIC, 8, 1, f) != 1 || fwrite(h, sizeof *h, 1, f) != 1))
		rc = BP_EIO;
	for (uint64_t p = 0; !rc && p < pieces(h); p += per) {
		const uint64_t n = pieces(h) - p < per ? pieces(h) - p : per;
		b.first = p;
		if ((rc = bp_parallel_for(threads, n, encode_piece, &b)))
			break;
		for (uint64_t i = 0; i < n && !rc; i++) {
			uint64_t l = b.out[i].len;
			if (fwrite(&l, sizeof l, 1, f) != 1 || fwrite(b.out[i].buf, l, 1, f) != 1)
				rc = BP_EIO;
			h->bytes += sizeof l + l;
		}
	}
	/* no fsync: a kill leaves the file whole in the page cache, and after a system
	 * crash a file cut short or garbled fails its length or a checksum */
	if (!rc &&
	    (fseek(f, 8, SEEK_SET) != 0 || fwrite(h, sizeof *h, 1, f) != 1 || fflush(f) != 0))
		rc = BP_EIO;
	int e = errno;
	if (f && fclose(f) != 0 && !rc)
		rc = BP_EIO;
	if (!rc && rename(tmp, path) != 0)
		rc = BP_EIO;
	e = rc == BP_EIO && errno ? errno : e;
	if (rc)
		remove(tmp);
	for (int i = 0; i < threads && b.c && b.w; i++) {
		bp_codec_destroy(b.c[i]);
		free(b.w[i]);
	}
	for (uint64_t i = 0; i < per && b.out; i++)
		free(b.out[i].buf);
	free(b.c);
	free(b.w);
	free(b.out);
	errno = e;
	return rc == BP_ENOMEM || rc == BP_OK ? rc : BP_EIO;
}

/* Opens path and checks its magic, head and length against want. */
static int open_checked(const char *path, struct bp_segfile_head *want, FILE **out)
{
	char magic[8];
	struct bp_segfile_head h;
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? BP_ENOTFOUND : BP_ECORRUPT;
	long end = -1;
	if (fread(magic, 8, 1, f) != 1 || memcmp(magic, BP_SEGFILE_MAGIC, 8) != 0 ||
	    fread(&h, sizeof h, 1, f) != 1 || h.solve != want->solve || h.tier != want->tier ||
	    h.width != want->width || h.lo != want->lo || h.hi != want->hi ||
	    fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 ||
	    (uint64_t)end != 8 + sizeof h + h.bytes ||
	    fseek(f, (long)(8 + sizeof h), SEEK_SET) != 0) {
		fclose(f);
		return BP_ECORRUPT;
	}
	memcpy(want->count, h.count, sizeof h.count);
	want->bytes = h.bytes;
	*out = f;
	return BP_OK;
}

int bp_segfile_probe(const char *path, struct bp_segfile_head *want)
{
	FILE *f;
	int rc = open_checked(path, want, &f);
	if (!rc)
		fclose(f);
	return rc;
}

int bp_segfile_open(const char *path, const struct bp_segfile_head *want,
		    struct bp_segfile_stream *s)
{
	FILE *f;
	memset(s, 0, sizeof *s);
	s->h = *want;
	int rc = open_checked(path, &s->h, &f);
	if (rc)
		return rc;
	s->f = f;
	if (!(s->w = malloc(sizeof *s->w * (piece_records(&s->h, 0) + 1))) ||
	    bp_codec_create(&s->c)) {
		bp_segfile_close(s);
		return BP_ENOMEM;
	}
	return BP_OK;
}

/* Reads and decodes the next piece into s->w. */
static int next_piece(struct bp_segfile_stream *s)
{
	uint64_t l, n = piece_records(&s->h, s->piece);
	uint8_t key[BP_CODEC_KEY_SIZE];
	if (s->piece >= pieces(&s->h) || fread(&l, sizeof l, 1, s->f) != 1 || l > (1u << 30))
		return BP_ECORRUPT;
	void *buf = realloc(s->buf, l ? l : 1);
	if (!buf)
		return BP_ENOMEM;
	s->buf = buf;
	if (l && fread(buf, l, 1, s->f) != 1)
		return BP_ECORRUPT;
	bp_codec_key(key, s->h.tier, s->h.lo + s->piece * BP_SEGFILE_PIECE);
	int rc = bp_codec_decode(s->c, key, sizeof key, s->h.solve, buf, l, s->w, (uint32_t)n, 0,
				 NULL);
	if (rc)
		return rc == BP_ENOMEM ? rc : BP_ECORRUPT;
	s->piece++;
	s->have = n;
	s->at = 0;
	return BP_OK;
}

int bp_segfile_next(struct bp_segfile_stream *s, uint64_t n, uint16_t *dst)
{
	while (n) {
		int rc;
		if (s->at == s->have && (rc = next_piece(s)))
			return rc;
		uint64_t k = s->have - s->at < n ? s->have - s->at : n;
		memcpy(dst, s->w + s->at, sizeof *dst * k);
		s->at += k;
		dst += k;
		n -= k;
	}
	return BP_OK;
}

int bp_segfile_read(const char *path, struct bp_segfile_head *want, void *rec)
{
	struct bp_segfile_stream s;
	int rc = bp_segfile_open(path, want, &s);
	uint64_t total = want->hi - want->lo;
	for (uint64_t at = 0; !rc && at < total;) {
		if ((rc = next_piece(&s)))
			break;
		if (want->width == 2)
			memcpy((uint16_t *)rec + at, s.w, sizeof *s.w * s.have);
		else
			for (uint64_t i = 0; i < s.have && !rc; i++) {
				((uint8_t *)rec)[at + i] = (uint8_t)s.w[i];
				rc = s.w[i] >> 8 ? BP_ECORRUPT : BP_OK;
			}
		at += s.have;
	}
	if (!rc)
		memcpy(want->count, s.h.count, sizeof want->count);
	bp_segfile_close(&s);
	return rc;
}

void bp_segfile_close(struct bp_segfile_stream *s)
{
	if (s->f)
		fclose(s->f);
	bp_codec_destroy(s->c);
	free(s->w);
	free(s->buf);
	memset(s, 0, sizeof *s);
}
