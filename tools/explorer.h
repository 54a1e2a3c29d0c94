/* SPDX-License-Identifier: MIT */
/* The explorer's JSON API, apart from HTTP: `boardproof serve` hands each request's
 * path and query arguments to bp_explorer_answer and sends back the status and JSON
 * it gets. One bp_explorer holds the database open read-only and is shared by the
 * server's threads; tables are opened on demand, each handle used by one request at
 * a time, and reopened every few seconds so that tiers a running solve has written
 * since become visible.
 *
 *   GET /api/instances                     the database's tables
 *   GET /api/query?instance=S[&position=P][&moves=M1+M2...]
 *                                          a position, its value, every move's value,
 *                                          remoteness and resulting position, grouped
 *   GET /api/openings?instance=S           the start's first moves and their values
 *
 * Errors are 4xx (5xx for a damaged database) with {"error": "..."} naming the bad
 * input. */
#ifndef BP_TOOLS_EXPLORER_H
#define BP_TOOLS_EXPLORER_H

#include "canon/error.h"
#include "canon/text.h"

typedef struct bp_explorer bp_explorer;

/* Seconds after which a table handle is reopened (to see a solve's new tiers). */
#define BP_EXPLORER_REFRESH 2.0

/* Longest query argument value accepted (bytes); longer ones are refused with 414. */
#define BP_EXPLORER_MAX_ARG 4096

/* Most query arguments in one request. */
#define BP_EXPLORER_MAX_ARGS 8

/* One query argument, percent-decoded. */
struct bp_explorer_arg {
	const char *key, *value;
};

/* Opens the database in dir read-only for serving.
 * @return BP_OK; as bp_store_open (err names the problem); BP_ENOMEM.
 * The caller owns *out (bp_explorer_close). */
int bp_explorer_open(const char *dir, bp_explorer **out, struct bp_err *err);

/* Closes the database. No call may be running. */
void bp_explorer_close(bp_explorer *ex);

/* Answers GET path?args: writes the JSON body into body (cleared first) and returns
 * the HTTP status (200, 400, 404, 405, 409, 414, 500, 503). Safe to call from several
 * threads at once. */
int bp_explorer_answer(bp_explorer *ex, const char *path, const struct bp_explorer_arg *args,
		       int nargs, struct bp_text *body);

/* Writes {"error": msg} into body (cleared first) and returns status. */
int bp_explorer_error(struct bp_text *body, int status, const char *msg);

#endif
