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
 *                                          (with a pie rule, each one's worth after
 *                                          the choice, as `openings --json` says)
 *   GET /api/claims?instance=S             the verdicts on the designers' claims:
 *                                          exactly what `boardproof claims S --json`
 *                                          prints (tools/cmd_claims.c writes both)
 *
 * Claims walk the whole table, which can take seconds: they are computed by one
 * background thread, once per instance and table content, and kept (the last
 * BP_EXPLORER_CLAIMS_KEEP instances). A request that must wait for them gets
 * BP_EXPLORER_PENDING and a call back when they are ready, so that the server can
 * park it and go on answering others.
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

/* Instances whose claims are kept in memory. */
#define BP_EXPLORER_CLAIMS_KEEP 16

/* The status bp_explorer_answer returns for a request whose answer is being computed:
 * wait->ready(wait->ctx) is called once, from another thread, when it is ready (or
 * the computation has stopped); then ask again with wait->again set. */
#define BP_EXPLORER_PENDING 0

struct bp_explorer_wait {
	void (*ready)(void *ctx);
	void *ctx;
	int again; /* asking again after ready(): take what was computed, however fresh */
};

/* One query argument, percent-decoded. */
struct bp_explorer_arg {
	const char *key, *value;
};

/* Opens the database in dir read-only for serving.
 * @return BP_OK; as bp_store_open (err names the problem); BP_ENOMEM.
 * The caller owns *out (bp_explorer_close). */
int bp_explorer_open(const char *dir, bp_explorer **out, struct bp_err *err);

/* Stops the background computation (a claims walk under way is cancelled) and calls
 * back every request still waiting for it; from then on such requests get 503.
 * Safe to call more than once. */
void bp_explorer_stop(bp_explorer *ex);

/* Stops (bp_explorer_stop) and closes the database. No call may be running. */
void bp_explorer_close(bp_explorer *ex);

/* Answers GET path?args: writes the JSON body into body (cleared first) and returns
 * the HTTP status (200, 400, 404, 405, 409, 414, 500, 503). An answer that needs a
 * background computation (/api/claims) is waited for when wait is NULL; otherwise
 * BP_EXPLORER_PENDING may be returned (see there) with body untouched. Safe to call
 * from several threads at once. */
int bp_explorer_answer(bp_explorer *ex, const char *path, const struct bp_explorer_arg *args,
		       int nargs, const struct bp_explorer_wait *wait, struct bp_text *body);

/* Writes {"error": msg} into body (cleared first) and returns status. */
int bp_explorer_error(struct bp_text *body, int status, const char *msg);

#endif
