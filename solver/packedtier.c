/* SPDX-License-Identifier: MIT */
/* The bits are set while the records stream in, index order; the ranks are one
 * prefix sum over the lines at the end. Records get palette codes in the order they
 * first appear; the 257th distinct record widens the array built so far to two bytes
 * a record. The array is sized by the caller's expectation and grows by half when the
 * tier holds more (a table whose metadata disagrees with its records must still be
 * read as it is, for verify to say so). */
#include "solver/packedtier.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define RANGE ((uint64_t)1 << 24) /* records read at a time by default */

/* The state of a build: the palette's inverse and the records array's capacity. */
struct build {
	int16_t code_of[65536]; /* record -> palette code; -1: none yet */
	unsigned npal;
	uint64_t cap;
};

void bp_packedtier_free(struct bp_packedtier *p)
{
	free(p->line);
	free(p->code);
	free(p->rec);
	*p = (struct bp_packedtier){ 0 };
}

uint64_t bp_packedtier_bytes_for(uint64_t size, uint64_t stored)
{
	return 64 * ((size + BP_PACKEDTIER_LINE - 1) / BP_PACKEDTIER_LINE + 1) +
	       (stored ? stored : 1);
}

uint64_t bp_packedtier_bytes(const struct bp_packedtier *p)
{
	uint64_t recs = p->stored ? p->stored : 1;
	return 64 * (p->nlines + 1) + (p->code ? recs : sizeof(uint16_t) * recs);
}

/* Allocates the lines of a tier of size indices, all bits clear, and a one-byte
 * records array of b->cap entries. */
static int start(struct bp_packedtier *p, struct build *b, uint64_t size)
{
	*p = (struct bp_packedtier){ .size = size };
	memset(b->code_of, 0xff, sizeof b->code_of);
	b->npal = 0;
	p->nlines = (size + BP_PACKEDTIER_LINE - 1) / BP_PACKEDTIER_LINE;
	/* one line more than needed: never read, it keeps the allocation non-empty */
	size_t bytes = (size_t)(64 * (p->nlines + 1));
	p->line = aligned_alloc(64, bytes);
	p->code = malloc((size_t)(b->cap ? b->cap : 1));
	if (!p->line || !p->code) {
		bp_packedtier_free(p);
		return BP_ENOMEM;
	}
	memset(p->line, 0, bytes);
	return BP_OK;
}

/* Makes the records two bytes each: the palette is full. */
static int widen(struct bp_packedtier *p, const struct build *b)
{
	uint16_t *r = malloc(sizeof *r * (size_t)(b->cap ? b->cap : 1));
	if (!r)
		return BP_ENOMEM;
	for (uint64_t k = 0; k < p->stored; k++)
		r[k] = p->palette[p->code[k]];
	free(p->code);
	p->code = NULL;
	p->rec = r;
	return BP_OK;
}

/* Grows the records array by half. */
static int grow(struct bp_packedtier *p, struct build *b)
{
	uint64_t cap = b->cap + b->cap / 2 + 1024;
	size_t width = p->code ? 1 : sizeof(uint16_t);
	void *r = realloc(p->code ? (void *)p->code : (void *)p->rec, width * (size_t)cap);
	if (!r)
		return BP_ENOMEM;
	if (p->code)
		p->code = r;
	else
		p->rec = r;
	b->cap = cap;
	return BP_OK;
}

/* Adds records first..first+n-1 (rec[0] is record first) to p. */
static int add(struct bp_packedtier *p, struct build *b, const uint16_t *rec, uint64_t first,
	       uint64_t n)
{
	int rc;
	for (uint64_t i = 0; i < n; i++) {
		uint16_t r = rec[i];
		if (!r)
			continue;
		if (p->stored == b->cap && (rc = grow(p, b)))
			return rc;
		uint64_t idx = first + i, off = idx % BP_PACKEDTIER_LINE;
		p->line[8 * (idx / BP_PACKEDTIER_LINE) + 1 + (off >> 6)] |= 1ull << (off & 63);
		if (p->code) {
			int c = b->code_of[r];
			if (c < 0 && b->npal < 256) {
				c = b->code_of[r] = (int16_t)b->npal;
				p->palette[b->npal++] = r;
			}
			if (c >= 0) {
				p->code[p->stored++] = (uint8_t)c;
				continue;
			}
			if ((rc = widen(p, b)))
				return rc;
		}
		p->rec[p->stored++] = r;
	}
	return BP_OK;
}

/* Writes every line's rank word. */
static void finish(struct bp_packedtier *p)
{
	uint64_t r = 0;
	for (uint64_t l = 0; l < p->nlines; l++) {
		uint64_t *w = p->line + 8 * l;
		w[0] = r;
		for (int j = 1; j < 8; j++)
			r += (uint64_t)__builtin_popcountll(w[j]);
	}
}

int bp_packedtier_from_array(const uint16_t *rec, uint64_t size, struct bp_packedtier *out)
{
	struct build *b = malloc(sizeof *b);
	*out = (struct bp_packedtier){ 0 };
	if (!b)
		return BP_ENOMEM;
	b->cap = 0;
	for (uint64_t i = 0; i < size; i++)
		b->cap += rec[i] != 0;
	int rc = start(out, b, size);
	if (!rc && (rc = add(out, b, rec, 0, size)))
		bp_packedtier_free(out);
	if (!rc)
		finish(out);
	free(b);
	return rc;
}

int bp_packedtier_load(bp_table *t, uint32_t tier, uint64_t size, uint64_t expect, uint64_t range,
		       struct bp_packedtier *out)
{
	int rc = bp_packedtier_load_each(t, tier, size, expect, range, NULL, NULL, out);
	return rc > 0 ? BP_ECORRUPT : rc;
}

int bp_packedtier_load_each(bp_table *t, uint32_t tier, uint64_t size, uint64_t expect,
			    uint64_t range,
			    void (*bad)(void *ctx, uint32_t tier, uint64_t block, const char *why),
			    void *ctx, struct bp_packedtier *out)
{
	*out = (struct bp_packedtier){ 0 };
	range = range ? range : RANGE;
	range = size < range ? (size ? size : 1) : range;
	uint16_t *buf = malloc(sizeof *buf * (size_t)range);
	struct build *b = malloc(sizeof *b);
	int rc = BP_ENOMEM;
	if (buf && b) {
		b->cap = expect;
		rc = start(out, b, size);
	}
	uint64_t nbad = 0;
	for (uint64_t first = 0; first < size && rc == BP_OK; first += range) {
		uint64_t n = size - first < range ? size - first : range;
		int got = bp_table_get_range_each(t, tier, first, n, buf, bad, ctx);
		if (got < 0)
			rc = got;
		else if (got > 0)
			nbad += (uint64_t)got; /* the rest is read for its bad blocks only */
		else if (!nbad)
			rc = add(out, b, buf, first, n);
	}
	free(buf);
	free(b);
	if (rc || nbad) {
		bp_packedtier_free(out);
		return rc ? rc : nbad > INT_MAX ? INT_MAX : (int)nbad;
	}
	finish(out);
	return BP_OK;
}

uint64_t bp_packedtier_next(const struct bp_packedtier *p, uint64_t idx)
{
	if (idx >= p->size)
		return p->size;
	uint64_t l = idx / BP_PACKEDTIER_LINE, off = idx % BP_PACKEDTIER_LINE;
	unsigned k = (unsigned)(off >> 6);
	/* the bits at or after off in its word, then whole words, then whole lines */
	uint64_t word = p->line[8 * l + 1 + k] & (~0ull << (off & 63));
	for (;;) {
		if (word) {
			uint64_t i =
				l * BP_PACKEDTIER_LINE + 64 * k + (uint64_t)__builtin_ctzll(word);
			return i < p->size ? i : p->size;
		}
		if (++k == 7) {
			k = 0;
			if (++l == p->nlines)
				return p->size;
		}
		word = p->line[8 * l + 1 + k];
	}
}
