/* SPDX-License-Identifier: MIT */
/* Table metadata, the value of the key "meta" in the table's LMDB database:
 *
 *   offset  size  field (integers little-endian)
 *        0     8  magic "BPTABLE\0"
 *        8     4  format version (BP_STORE_FORMAT)
 *       12     4  rules version
 *       16     4  ntiers
 *       20     4  records per block
 *       24     8  stored bytes (all blocks, headers included)
 *       32     8  seconds, IEEE-754 binary64 bits
 *       40     8  peak memory, bytes
 *       48     2  spec length s, then s bytes of spec (no NUL)
 *              2  tool version length t, then t bytes
 *              4  extra length e, then e bytes
 *              49 per tier: size (8), stored bytes (8), count of records per
 *                 value none/win/loss/draw (4 x 8), done flag (1)
 *              8  bp_hash64 of every byte before it, seed 0
 *
 * The magic and the format are checked before the checksum, so that metadata of
 * another format version is reported as such (BP_EFORMAT) and not as damage. */
#include "store/meta.h"

#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "store/codec.h"
#include "store/store.h"

#define BP_META_MAGIC "BPTABLE"
#define BP_META_FIXED 48
#define BP_META_PER_TIER 49

int bp_meta_init(struct bp_meta *m, uint32_t ntiers)
{
	memset(m, 0, sizeof *m);
	size_t n = ntiers ? ntiers : 1;
	m->ntiers = ntiers;
	m->tier_size = calloc(n, sizeof *m->tier_size);
	m->tier_done = calloc(n, sizeof *m->tier_done);
	m->tier_count = calloc(n * 4, sizeof *m->tier_count);
	m->tier_bytes = calloc(n, sizeof *m->tier_bytes);
	m->extra = calloc(1, 1);
	if (!m->tier_size || !m->tier_done || !m->tier_count || !m->tier_bytes || !m->extra) {
		bp_meta_free(m);
		return BP_ENOMEM;
	}
	return BP_OK;
}

void bp_meta_free(struct bp_meta *m)
{
	free(m->tier_size);
	free(m->tier_done);
	free(m->tier_count);
	free(m->tier_bytes);
	free(m->extra);
	memset(m, 0, sizeof *m);
}

int bp_meta_set_extra(struct bp_meta *m, const char *extra)
{
	char *e = strdup(extra ? extra : "");
	if (!e)
		return BP_ENOMEM;
	free(m->extra);
	m->extra = e;
	return BP_OK;
}

int bp_meta_copy(struct bp_meta *dst, const struct bp_meta *src)
{
	if (bp_meta_init(dst, src->ntiers) != BP_OK)
		return BP_ENOMEM;
	uint64_t *size = dst->tier_size, *count = dst->tier_count, *bytes = dst->tier_bytes;
	uint8_t *done = dst->tier_done;
	char *extra = dst->extra;
	*dst = *src;
	dst->tier_size = size;
	dst->tier_done = done;
	dst->tier_count = count;
	dst->tier_bytes = bytes;
	dst->extra = extra;
	size_t n = src->ntiers;
	memcpy(size, src->tier_size, n * sizeof *size);
	memcpy(done, src->tier_done, n * sizeof *done);
	memcpy(count, src->tier_count, n * 4 * sizeof *count);
	memcpy(bytes, src->tier_bytes, n * sizeof *bytes);
	return bp_meta_set_extra(dst, src->extra);
}

/* A cursor over a byte buffer; running past the end sets bad instead of reading. */
struct cur {
	uint8_t *w;	  /* writing: NULL while only measuring */
	const uint8_t *r; /* reading */
	size_t pos, len;
	int bad;
};

static void put(struct cur *c, uint64_t v, int bytes)
{
	if (c->w)
		for (int i = 0; i < bytes; i++)
			c->w[c->pos + i] = (uint8_t)(v >> 8 * i);
	c->pos += bytes;
}

static void put_bytes(struct cur *c, const void *p, size_t n)
{
	if (c->w && n)
		memcpy(c->w + c->pos, p, n);
	c->pos += n;
}

static uint64_t get(struct cur *c, int bytes)
{
	uint64_t v = 0;
	if (c->bad || c->len - c->pos < (size_t)bytes) {
		c->bad = 1;
		return 0;
	}
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | c->r[c->pos + i];
	c->pos += bytes;
	return v;
}

static const uint8_t *get_bytes(struct cur *c, size_t n)
{
	if (c->bad || c->len - c->pos < n) {
		c->bad = 1;
		return NULL;
	}
	c->pos += n;
	return c->r + c->pos - n;
}

static void encode(struct cur *c, const struct bp_meta *m)
{
	uint64_t secs;
	memcpy(&secs, &m->seconds, sizeof secs);
	put_bytes(c, BP_META_MAGIC, 8);
	put(c, m->format_version, 4);
	put(c, m->rules_version, 4);
	put(c, m->ntiers, 4);
	put(c, m->block_records, 4);
	put(c, m->stored_bytes, 8);
	put(c, secs, 8);
	put(c, m->peak_memory, 8);
	size_t s = strlen(m->spec), t = strlen(m->tool_version), e = strlen(m->extra);
	put(c, s, 2);
	put_bytes(c, m->spec, s);
	put(c, t, 2);
	put_bytes(c, m->tool_version, t);
	put(c, e, 4);
	put_bytes(c, m->extra, e);
	for (uint32_t i = 0; i < m->ntiers; i++) {
		put(c, m->tier_size[i], 8);
		put(c, m->tier_bytes[i], 8);
		for (int v = 0; v < 4; v++)
			put(c, m->tier_count[4 * i + v], 8);
		put(c, m->tier_done[i], 1);
	}
}

int bp_meta_encode(const struct bp_meta *m, uint8_t **out, size_t *len)
{
	struct cur c = { 0 };
	encode(&c, m);
	size_t n = c.pos + 8;
	uint8_t *buf = malloc(n);
	if (!buf)
		return BP_ENOMEM;
	c = (struct cur){ .w = buf };
	encode(&c, m);
	put(&c, bp_hash64(buf, c.pos, 0), 8);
	*out = buf;
	*len = n;
	return BP_OK;
}

int bp_meta_decode(const void *p, size_t len, struct bp_meta *m)
{
	struct cur c = { .r = p, .len = len };
	memset(m, 0, sizeof *m);
	const uint8_t *magic = get_bytes(&c, 8);
	if (!magic || memcmp(magic, BP_META_MAGIC, 8) != 0)
		return BP_ECORRUPT;
	uint32_t format = (uint32_t)get(&c, 4);
	if (c.bad)
		return BP_ECORRUPT;
	if (format != BP_STORE_FORMAT)
		return BP_EFORMAT;
	struct cur tail = { .r = p, .len = len, .pos = len - 8 };
	if (len < BP_META_FIXED + 8 || bp_hash64(p, len - 8, 0) != get(&tail, 8))
		return BP_ECORRUPT;
	c.len = len - 8;
	uint32_t rules = (uint32_t)get(&c, 4), ntiers = (uint32_t)get(&c, 4);
	uint32_t block = (uint32_t)get(&c, 4);
	uint64_t stored = get(&c, 8), secs = get(&c, 8), peak = get(&c, 8);
	size_t s = (size_t)get(&c, 2);
	const uint8_t *spec = get_bytes(&c, s);
	size_t t = (size_t)get(&c, 2);
	const uint8_t *tool = get_bytes(&c, t);
	size_t e = (size_t)get(&c, 4);
	const uint8_t *extra = get_bytes(&c, e);
	if (c.bad || s >= sizeof m->spec || t >= sizeof m->tool_version ||
	    (c.len - c.pos) / BP_META_PER_TIER < ntiers ||
	    c.len - c.pos != (size_t)ntiers * BP_META_PER_TIER)
		return BP_ECORRUPT;
	if (bp_meta_init(m, ntiers) != BP_OK)
		return BP_ENOMEM;
	m->format_version = format;
	m->rules_version = rules;
	m->block_records = block;
	m->stored_bytes = stored;
	memcpy(&m->seconds, &secs, sizeof secs);
	m->peak_memory = peak;
	memcpy(m->spec, spec, s);
	memcpy(m->tool_version, tool, t);
	free(m->extra);
	m->extra = malloc(e + 1);
	if (!m->extra)
		return BP_ENOMEM;
	memcpy(m->extra, extra, e);
	m->extra[e] = 0;
	for (uint32_t i = 0; i < ntiers; i++) {
		m->tier_size[i] = get(&c, 8);
		m->tier_bytes[i] = get(&c, 8);
		for (int v = 0; v < 4; v++)
			m->tier_count[4 * i + v] = get(&c, 8);
		uint64_t done = get(&c, 1);
		if (done > 1)
			return BP_ECORRUPT;
		m->tier_done[i] = (uint8_t)done;
	}
	return c.bad ? BP_ECORRUPT : BP_OK;
}
