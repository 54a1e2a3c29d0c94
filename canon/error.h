/* SPDX-License-Identifier: MIT */
/* Error codes shared by every layer, and a small carrier for a message that names
 * the bad input. Library functions return BP_OK or a negative BP_E* code; numbers
 * are fixed forever and never reused (a removed code leaves a hole). */
#ifndef BP_CANON_ERROR_H
#define BP_CANON_ERROR_H

#include <stddef.h>

enum bp_error_code {
	BP_OK = 0,
	BP_EINVAL = -1,	       /* a bad argument from the caller (a programming error) */
	BP_ESPEC = -2,	       /* malformed or unknown game spec, board or option */
	BP_EPARSE = -3,	       /* malformed position or move text */
	BP_EILLEGAL = -4,      /* well-formed move that is not legal in the position */
	BP_ENOMEM = -5,	       /* out of memory */
	BP_ERANGE = -6,	       /* a size or count beyond what the function supports */
	BP_ENOTFOUND = -7,     /* no such record, table or position */
	BP_ECORRUPT = -8,      /* stored data fails its checksum or does not decode */
	BP_EFORMAT = -9,       /* stored data of another format version or instance */
	BP_EIO = -10,	       /* an operating-system I/O failure */
	BP_EUNSUPPORTED = -11, /* the game or instance does not offer this operation */
	BP_ERULES = -12,       /* a table solved under another version of RULES.md */
	BP_ECANCELED = -13,    /* stopped because the caller asked (a cancel callback) */
	BP_EBUSY = -14	       /* in use by another process (a table being solved, every
				  reader slot taken); trying again later may succeed */
};

/* An optional place for a human-readable message naming the bad part of an input.
 * Functions that take one fill it when they fail; callers may pass NULL. */
struct bp_err {
	char msg[256];
};

/* Returns a static, lower-case name for an error code ("malformed position"). */
const char *bp_strerror(int code);

/* Formats a message into err (if not NULL) and returns code, so that a failing
 * function can `return bp_err_set(err, BP_EPARSE, "...", ...);`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int bp_err_set(struct bp_err *err, int code, const char *fmt, ...);

#endif
