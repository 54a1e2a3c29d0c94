/* SPDX-License-Identifier: MIT */
/* A growable text buffer, for position text, game reports and JSON. Library code
 * writes into one instead of printing. */
#ifndef BP_CANON_TEXT_H
#define BP_CANON_TEXT_H

#include <stddef.h>

struct bp_text {
	char *s;    /* always NUL-terminated once anything was added; NULL before */
	size_t len; /* characters, without the NUL */
	size_t cap;
	int failed; /* set when an allocation failed; the text is then incomplete */
};

/* Appends formatted text. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void bp_text_printf(struct bp_text *t, const char *fmt, ...);

/* Appends s as a JSON string literal, quotes and escapes included. */
void bp_text_json_string(struct bp_text *t, const char *s);

/* The text so far ("" when empty). */
const char *bp_text_str(const struct bp_text *t);

/* Empties the buffer, keeping its memory. */
void bp_text_clear(struct bp_text *t);

/* Frees the buffer's memory and empties it. */
void bp_text_free(struct bp_text *t);

/* Writes a byte count in human units into buf ("512 bytes", "1.50 KiB", "153 TiB"):
 * three significant figures, binary prefixes, never "0 MiB" for a non-zero count.
 * @return buf. */
char *bp_text_bytes(unsigned long long bytes, char *buf, size_t len);

#endif
