/* SPDX-License-Identifier: MIT */
/* A table's metadata in memory and its encoding as the value of the table's metadata
 * key: what the table is (spec, rules and format versions, tier sizes, block size)
 * and what it holds so far (done tiers, counts, bytes, time, memory). The byte layout
 * is documented in meta.c. */
#ifndef BP_STORE_META_H
#define BP_STORE_META_H

#include <stddef.h>
#include <stdint.h>

struct bp_meta {
	char spec[256];
	char tool_version[64]; /* BP_VERSION of the last writer */
	uint32_t format_version;
	uint32_t rules_version;
	uint32_t ntiers;
	uint32_t block_records;
	uint64_t *tier_size;   /* ntiers */
	uint8_t *tier_done;    /* ntiers */
	uint64_t *tier_count;  /* ntiers * 4, per enum bp_value */
	uint64_t *tier_bytes;  /* ntiers: stored bytes of the tier's blocks */
	uint64_t stored_bytes; /* sum of tier_bytes */
	double seconds;
	uint64_t peak_memory;
	char *extra; /* never NULL once initialised */
};

/* Allocates the arrays of an empty table of ntiers tiers (sizes zero, nothing done),
 * other fields zero. @return BP_OK; BP_ENOMEM (m is then empty and freeable). */
int bp_meta_init(struct bp_meta *m, uint32_t ntiers);

/* Deep copy. @return BP_OK; BP_ENOMEM. dst must be freed with bp_meta_free either way. */
int bp_meta_copy(struct bp_meta *dst, const struct bp_meta *src);

/* Frees what m owns and zeroes it. */
void bp_meta_free(struct bp_meta *m);

/* Replaces m->extra with a copy of extra. @return BP_OK; BP_ENOMEM (m unchanged). */
int bp_meta_set_extra(struct bp_meta *m, const char *extra);

/* Encodes m. @return BP_OK; BP_ENOMEM. The caller frees *out. */
int bp_meta_encode(const struct bp_meta *m, uint8_t **out, size_t *len);

/* Decodes a value written by bp_meta_encode into m (which the caller frees with
 * bp_meta_free, also on failure).
 * @return BP_OK; BP_EFORMAT (another format version); BP_ECORRUPT (not metadata,
 * truncated or failing its checksum); BP_ENOMEM. */
int bp_meta_decode(const void *p, size_t len, struct bp_meta *m);

#endif
