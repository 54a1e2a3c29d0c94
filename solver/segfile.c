/* SPDX-License-Identifier: MIT */
#include "solver/segfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/codec.h"

static uint64_t checksum(uint64_t h, const void *p, uint64_t n)
{
	const uint8_t *b = p;
	for (uint64_t at = 0; at < n; at += BP_SEGFILE_PIECE) {
		uint64_t k = n - at < BP_SEGFILE_PIECE ? n - at : BP_SEGFILE_PIECE;
		h = bp_hash64(b + at, (size_t)k, h);
	}
	return h;
}

int bp_segfile_write(const char *path, struct bp_segfile_head *h, const void *rec)
{
	char tmp[4200];
	uint64_t bytes = (h->hi - h->lo) * h->width;
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return BP_EIO;
	}
	h->checksum = checksum(0, rec, bytes);
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return BP_EIO;
	int ok = fwrite(BP_SEGFILE_MAGIC, 8, 1, f) == 1 && fwrite(h, sizeof *h, 1, f) == 1 &&
		 (bytes == 0 || fwrite(rec, (size_t)bytes, 1, f) == 1) && fflush(f) == 0 &&
		 fsync(fileno(f)) == 0;
	int e = errno;
	ok = fclose(f) == 0 && ok;
	if (ok && rename(tmp, path) == 0)
		return BP_OK;
	e = errno ? errno : e;
	remove(tmp);
	errno = e;
	return BP_EIO;
}

/* Opens path and checks its magic, head and length against want. */
static int open_checked(const char *path, struct bp_segfile_head *want, FILE **out)
{
	char magic[8];
	struct bp_segfile_head h;
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? BP_ENOTFOUND : BP_ECORRUPT;
	uint64_t bytes = (want->hi - want->lo) * want->width;
	long end = -1;
	if (fread(magic, 8, 1, f) != 1 || memcmp(magic, BP_SEGFILE_MAGIC, 8) != 0 ||
	    fread(&h, sizeof h, 1, f) != 1 || h.solve != want->solve || h.tier != want->tier ||
	    h.width != want->width || h.lo != want->lo || h.hi != want->hi ||
	    fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 ||
	    (uint64_t)end != 8 + sizeof h + bytes ||
	    fseek(f, (long)(8 + sizeof h), SEEK_SET) != 0) {
		fclose(f);
		return BP_ECORRUPT;
	}
	memcpy(want->count, h.count, sizeof h.count);
	want->checksum = h.checksum;
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

int bp_segfile_read(const char *path, struct bp_segfile_head *want, void *rec)
{
	FILE *f;
	int rc = open_checked(path, want, &f);
	if (rc)
		return rc;
	uint64_t bytes = (want->hi - want->lo) * want->width;
	if ((bytes && fread(rec, (size_t)bytes, 1, f) != 1) ||
	    checksum(0, rec, bytes) != want->checksum)
		rc = BP_ECORRUPT;
	fclose(f);
	return rc;
}

int bp_segfile_open(const char *path, const struct bp_segfile_head *want,
		    struct bp_segfile_stream *s)
{
	struct bp_segfile_head h = *want;
	FILE *f;
	memset(s, 0, sizeof *s);
	int rc = open_checked(path, &h, &f);
	if (rc)
		return rc;
	if (!(s->piece = malloc(BP_SEGFILE_PIECE))) {
		fclose(f);
		return BP_ENOMEM;
	}
	s->f = f;
	s->width = want->width;
	s->left = (want->hi - want->lo) * want->width;
	s->want = h.checksum;
	return BP_OK;
}

int bp_segfile_next(struct bp_segfile_stream *s, uint64_t n, uint16_t *dst)
{
	while (n) {
		if (s->at == s->have) {
			uint64_t k = s->left < BP_SEGFILE_PIECE ? s->left : BP_SEGFILE_PIECE;
			if (k == 0 || fread(s->piece, (size_t)k, 1, s->f) != 1)
				return BP_ECORRUPT;
			s->checksum = bp_hash64(s->piece, (size_t)k, s->checksum);
			s->left -= k;
			s->have = k;
			s->at = 0;
			if (s->left == 0 && s->checksum != s->want)
				return BP_ECORRUPT;
		}
		uint64_t k = (s->have - s->at) / s->width;
		k = k < n ? k : n;
		if (s->width == 2)
			memcpy(dst, s->piece + s->at, (size_t)k * 2);
		else
			for (uint64_t i = 0; i < k; i++)
				dst[i] = s->piece[s->at + i];
		s->at += k * s->width;
		dst += k;
		n -= k;
	}
	return BP_OK;
}

void bp_segfile_close(struct bp_segfile_stream *s)
{
	if (s->f)
		fclose(s->f);
	free(s->piece);
	memset(s, 0, sizeof *s);
}
