/* SPDX-License-Identifier: MIT */
/* Verdicts on the designers' claims about a game, from the values of its positions:
 * whether a draw can happen, whether cycles appear under perfect play, how strong the
 * first player is with and without a pie rule, whether fewer groups win, how often
 * the board fills, whether corner openings are stronger. Each check walks every
 * position reachable from the start (one per symmetry class) and reads values through
 * an oracle (a solved table in the tools, an independent solver in the tests), and
 * gives a verdict with a witness a person can replay: the start and a line of moves.
 *
 * Claim names (stable, used in JSON): no-draw, soft-finite, first-player, pie,
 * fewer-groups, board-fills, corner-openings. */
#ifndef BP_SOLVER_CLAIMS_H
#define BP_SOLVER_CLAIMS_H

#include <stdint.h>

#include "solver/games/game.h"

enum bp_verdict {
	BP_VERDICT_UNKNOWN = 0, /* values missing, or the instance too large to walk */
	BP_VERDICT_HOLDS = 1,
	BP_VERDICT_FAILS = 2,
	BP_VERDICT_NA = 3 /* the claim does not apply to this game */
};

/* "holds", "fails", "unknown" or "n/a". */
const char *bp_verdict_name(enum bp_verdict v);

/* Where values come from. value() gives p's value and remoteness for the player to
 * move (remoteness 0x3fff: a draw by repetition, as BP_RECORD_NO_REMOTENESS).
 * @return BP_OK; BP_ENOTFOUND when p has no value; other codes are passed on. */
struct bp_oracle {
	int (*value)(void *ctx, const struct bp_pos *p, enum bp_value *v, unsigned *rem);
	void *ctx;
	/* Optional: calls visit once for every position reachable from the start, one per
	 * symmetry class, with its value, stopping at visit's first non-zero return (and
	 * returning it). A solved table does this tier by tier, much faster than the
	 * walk from the start that the checks use otherwise (NULL). @return BP_OK, visit's
	 * return, or an error (BP_EUNSUPPORTED: the checks walk instead). */
	int (*each)(void *ctx,
		    int (*visit)(void *vctx, const struct bp_pos *p, enum bp_value v, unsigned rem),
		    void *vctx);
};

#define BP_CLAIM_NO_REMOTENESS 0x3fffu

struct bp_claims_opts {
	uint64_t max_positions; /* classes the walk may hold; 0: 4,000,000 */
	int random_games;	/* board-fills: seeded random games; 0: 1000 */
	uint64_t seed;		/* board-fills: seed of the random games; 0: 1 */
};

struct bp_claim {
	const char *name;
	enum bp_verdict verdict;
	struct bp_text detail; /* one paragraph of plain text */
	struct bp_text json;   /* further JSON members ("\"counts\": {...}"), may be empty */
	int has_witness;
	struct bp_text witness_position; /* where the line starts (position text) */
	struct bp_text witness_moves;	 /* the moves, separated by spaces (may be empty) */
	struct bp_text witness_shows;	 /* what replaying it shows */
};

/* The claims names, NULL-terminated, in the order tools list them. */
extern const char *const bp_claim_names[];

/* Whether g's family makes claim name (its ops->claims list; every claim when NULL). */
int bp_claim_applies(const struct bp_game *g, const char *name);

/* The first player's value for an opening worth v to its maker once the second player
 * has used the pie rule or colour choice: a winning opening is taken over (a loss for
 * its maker), the others are kept. */
enum bp_value bp_claim_after_choice(enum bp_value v);

/* Checks one claim of g. out is filled (free with bp_claim_free) even when the
 * verdict is unknown.
 * @return BP_OK; BP_EINVAL for an unknown name; BP_ENOMEM; an oracle error other than
 * BP_ENOTFOUND (a missing value makes the verdict unknown). */
int bp_claim_check(const struct bp_game *g, const char *name, const struct bp_oracle *o,
		   const struct bp_claims_opts *opts, struct bp_claim *out);

void bp_claim_free(struct bp_claim *c);

#endif
