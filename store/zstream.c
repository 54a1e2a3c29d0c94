/* SPDX-License-Identifier: MIT */
/* Compressed byte streams (store/zstream.h): zstd's streaming API over a growing
 * output buffer, and its inverse with a small window of decoded bytes. */
#include "store/zstream.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

struct bp_zout {
	ZSTD_CCtx *cctx;
	uint8_t *b;
	size_t n, cap;
	uint64_t in;
	int err;
};

int bp_zout_create(int level, bp_zout **out)
{
	*out = NULL;
	struct bp_zout *z = calloc(1, sizeof *z);
	if (!z || !(z->cctx = ZSTD_createCCtx())) {
		free(z);
		return BP_ENOMEM;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1))) {
		bp_zout_destroy(z);
		return BP_EIO;
	}
	*out = z;
	return BP_OK;
}

/* Makes room for at least `need` more output bytes. */
static int grow(bp_zout *z, size_t need)
{
	if (z->cap - z->n >= need)
		return BP_OK;
	size_t cap = z->cap ? z->cap : 1 << 16;
	while (cap - z->n < need)
		cap += cap / 2 + need;
	uint8_t *b = realloc(z->b, cap);
	if (!b)
		return BP_ENOMEM;
	z->b = b;
	z->cap = cap;
	return BP_OK;
}

/* Runs the compressor over `in` with directive `end` until it has taken all of it (and,
 * for an end, written the whole frame). */
static int pump(bp_zout *z, ZSTD_inBuffer *in, ZSTD_EndDirective end)
{
	for (;;) {
		if ((z->err = grow(z, ZSTD_CStreamOutSize())))
			return z->err;
		ZSTD_outBuffer o = { z->b, z->cap, z->n };
		size_t left = ZSTD_compressStream2(z->cctx, &o, in, end);
		z->n = o.pos;
		if (ZSTD_isError(left))
			return z->err = ZSTD_getErrorCode(left) == ZSTD_error_memory_allocation
						? BP_ENOMEM
						: BP_EIO;
		if (end == ZSTD_e_end ? left == 0 : in->pos == in->size)
			return BP_OK;
	}
}

int bp_zout_write(bp_zout *z, const void *p, size_t n)
{
	if (z->err)
		return z->err;
	ZSTD_inBuffer in = { p, n, 0 };
	z->in += n;
	return pump(z, &in, ZSTD_e_continue);
}

uint64_t bp_zout_in(const bp_zout *z)
{
	return z->in;
}

uint64_t bp_zout_out(const bp_zout *z)
{
	return z->n;
}

int bp_zout_finish(bp_zout *z, uint8_t **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	int rc = z->err ? z->err : pump(z, &in, ZSTD_e_end);
	if (!rc) {
		uint8_t *b = realloc(z->b, z->n ? z->n : 1); /* give back the slack */
		if (b)
			z->b = b;
		*buf = z->b;
		*len = z->n;
		z->b = NULL;
	}
	bp_zout_destroy(z);
	return rc;
}

void bp_zout_destroy(bp_zout *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z->b);
	free(z);
}

struct bp_zin {
	ZSTD_DCtx *dctx;
	ZSTD_inBuffer in;
	uint8_t *w; /* decoded bytes not yet read: w[at .. n) */
	size_t at, n, cap;
	size_t frame_left; /* 0 once the frame has ended */
};

int bp_zin_create(const void *buf, size_t len, bp_zin **out)
{
	*out = NULL;
	struct bp_zin *z = calloc(1, sizeof *z);
	if (!z)
		return BP_ENOMEM;
	z->cap = ZSTD_DStreamOutSize();
	z->w = malloc(z->cap);
	z->dctx = ZSTD_createDCtx();
	if (!z->w || !z->dctx) {
		bp_zin_destroy(z);
		return BP_ENOMEM;
	}
	z->in = (ZSTD_inBuffer){ buf, len, 0 };
	z->frame_left = 1;
	*out = z;
	return BP_OK;
}

/* Decodes more bytes into the window (which is empty). @return BP_OK (some, or the end:
 * then n stays 0); BP_ECORRUPT. */
static int refill(bp_zin *z)
{
	z->at = z->n = 0;
	while (z->n == 0 && z->frame_left) {
		if (z->in.pos == z->in.size)
			return BP_ECORRUPT; /* the frame is cut short */
		ZSTD_outBuffer o = { z->w, z->cap, 0 };
		size_t r = ZSTD_decompressStream(z->dctx, &o, &z->in);
		if (ZSTD_isError(r)) /* zstd allocates its window on the first call */
			return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? BP_ENOMEM
										    : BP_ECORRUPT;
		z->n = o.pos;
		z->frame_left = r;
	}
	if (!z->frame_left && z->in.pos != z->in.size)
		return BP_ECORRUPT; /* one frame only */
	return BP_OK;
}

int bp_zin_read(bp_zin *z, void *p, size_t n)
{
	uint8_t *d = p;
	while (n) {
		if (z->at == z->n) {
			int rc = refill(z);
			if (rc)
				return rc;
			if (!z->n)
				return BP_ENOTFOUND;
		}
		size_t k = z->n - z->at < n ? z->n - z->at : n;
		memcpy(d, z->w + z->at, k);
		z->at += k;
		d += k;
		n -= k;
	}
	return BP_OK;
}

int bp_zin_end(bp_zin *z)
{
	if (z->at < z->n)
		return BP_ECORRUPT;
	if (z->frame_left) {
		int rc = refill(z);
		if (rc)
			return rc;
		if (z->n)
			return BP_ECORRUPT;
	}
	return !z->frame_left && z->in.pos == z->in.size ? BP_OK : BP_ECORRUPT;
}

void bp_zin_destroy(bp_zin *z)
{
	if (!z)
		return;
	ZSTD_freeDCtx(z->dctx);
	free(z->w);
	free(z);
}
