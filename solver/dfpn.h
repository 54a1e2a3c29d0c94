/* SPDX-License-Identifier: MIT */
/* Proof-number search: the value of one position without enumerating the instance.
 * Depth-first proof-number search (Nagai's df-pn) with the 1+epsilon threshold of
 * Pawlewicz and Lew, over canonical positions (bp_game_canonical), with a bounded
 * transposition table. A search proves a goal for the player to move at the root (the
 * attacker): "win", or "not lose" (win or draw). The value comes from one or two such
 * searches: win proven is a win; win disproven with only losses at the leaves is a
 * loss; otherwise "not lose" decides between draw and loss.
 *
 * Positions that repeat (Blooms) count as draws where they repeat a position of the
 * current search path, and a (dis)proof that rests on such a repetition of a position
 * above the node is never stored as final in the table (it stays with the parent that
 * saw it), so that no result proven for one path is reused on another (the
 * graph-history interaction problem). Known values — terminal positions, a solved
 * table, earlier proofs — come in through a callback (see bp_dfpn_known).
 *
 * Remoteness is not computed: df-pn proves values, not distances. */
#ifndef BP_SOLVER_DFPN_H
#define BP_SOLVER_DFPN_H

#include <stdint.h>

#include "solver/games/game.h"

typedef struct bp_dfpn bp_dfpn;

/* Proof and disproof numbers: 0 proven, BP_DFPN_INF disproven (for the other one). */
#define BP_DFPN_INF UINT32_MAX

/* The smallest transposition table bp_dfpn_prove accepts (bytes). */
#define BP_DFPN_MIN_MEMORY ((uint64_t)1 << 20)

/* Bounds on a position's value for its player to move, in the order loss (-1) < draw (0)
 * < win (1): lo <= value <= hi. */
struct bp_dfpn_bound {
	int8_t lo, hi;
};

/* What the caller knows of a canonical non-terminal position (a solved table, values
 * proven before). @return 1 and *out when something is known, else 0. Called from the
 * search threads, one call at a time per thread; it must be thread-safe when
 * bp_dfpn_opts.threads > 1. */
typedef int bp_dfpn_known(void *ctx, const struct bp_pos *canon, struct bp_dfpn_bound *out);

/* A bound the search proved for a canonical position, path-independent, for a subtree
 * of at least bp_dfpn_opts.record_work nodes. Same threading as bp_dfpn_known. */
typedef void bp_dfpn_record(void *ctx, const struct bp_pos *canon, struct bp_dfpn_bound b);

struct bp_dfpn_progress {
	int search;	     /* 0: "win", 1: "not lose" */
	uint32_t pn, dn;     /* the root's numbers */
	uint64_t nodes;	     /* expanded so far, all threads */
	double seconds;	     /* since bp_dfpn_prove started */
	uint64_t tt_used;    /* entries in use */
	uint64_t tt_entries; /* entries in the table */
	/* Below the root, seen by the reporting thread: the root's numbers move only when
	 * a call on one of its children returns, which in a long search can take hours.
	 * child_set: a child is being searched; child_move: its move from the root;
	 * child_pn, child_dn: its numbers for the same goal, as of its last iteration;
	 * depth: the ply of the node the thread is expanding. */
	int child_set;
	struct bp_move child_move;
	uint32_t child_pn, child_dn;
	int depth;
};

/* How an AND node sums its children's proof numbers (and an OR node their disproof
 * numbers). Only the order of the search changes: final values are the same. */
enum bp_dfpn_pn_rule {
	/* the sum (plain df-pn); games that repeat use BP_DFPN_PN_WEAK all the same */
	BP_DFPN_PN_SUM = 0,
	/* weak proof numbers (Ueda, Hashimoto, Hashimoto and Iida 2008): the largest
	 * child's number plus one for each other unsettled child, so that subtrees
	 * shared through transpositions are not counted once per path */
	BP_DFPN_PN_WEAK = 1,
};

/* The numbers of a child met for the first time (no table entry). */
enum bp_dfpn_init {
	BP_DFPN_INIT_ONE = 0, /* pn = dn = 1 */
	/* mobility (as in df-pn+): the number k of the child's legal moves for the
	 * number that needs all of them (dn = k where the attacker is to move, pn = k
	 * where the defender is), 1 for the other; costs one move generation per new
	 * child */
	BP_DFPN_INIT_MOVES = 1,
};

struct bp_dfpn_opts {
	uint64_t memory;    /* bytes of transposition table; 0: 64 MiB */
	double time_limit;  /* seconds; 0: none */
	uint64_t max_nodes; /* expansions; 0: none */
	int threads;	    /* > 1: that many threads share the table, each searching from the root
			(games that repeat: the "win" and "not lose" searches at once on two
			threads; see solver/dfpn.c); <= 1: one thread */
	bp_dfpn_known *known; /* may be NULL */
	/* Whether known may tell anything the search does not hold already, asked at
	 * the start and every 1024 expansions; while it says no, known is not called
	 * (nor a canonical form made for it). NULL: known is always called. */
	int (*known_any)(void *ctx);
	/* May be NULL. 0 when known surely knows nothing of the positions whose class key
	 * (the game's sym_hash) is key; asked first on the search's fast path (class keys
	 * from sym_hash_move), so that a child the oracle cannot know costs no canonical
	 * form. Nonzero: maybe (known is then asked). */
	int (*known_key)(void *ctx, uint64_t key);
	bp_dfpn_record *record;					       /* may be NULL */
	uint64_t record_work;					       /* 0: 256 */
	void (*progress)(void *ctx, const struct bp_dfpn_progress *p); /* may be NULL; ~1/s */
	/* may be NULL; polled with the limits (every 1024 expansions of a thread):
	 * nonzero stops the search as a limit does (result stopped 3) */
	int (*cancel)(void *ctx);
	void *ctx; /* for known, record, progress and cancel */
	/* may be NULL; called every keep_interval seconds of bp_dfpn_prove (> 0) with
	 * every search thread parked between two expansions, so that the table is whole:
	 * for bp_dfpn_keep, so that a killed search loses at most the work since */
	void (*keep)(void *keep_ctx, const bp_dfpn *d);
	void *keep_ctx;
	double keep_interval;
	int keep_table; /* keep the table in the handle after the call (proofs) */
	/* 1: key the table by canonical forms even where the game has sym_hash (for
	 * comparisons and tests); 0: class keys where the game has them */
	int exact_keys;
	enum bp_dfpn_pn_rule pn_rule; /* 0: BP_DFPN_PN_SUM */
	enum bp_dfpn_init init;	      /* 0: BP_DFPN_INIT_ONE */
	/* 1: leave the game's bounds op unused (for comparisons); 0: a child whose
	 * bounds (bp_game_ops.bounds) decide the goal is settled without a table entry */
	int no_bounds;
	/* the filter's first size in bits (a power of two, at least 64; for tests, so
	 * that small searches grow it), and its log of keys a quarter of it; 0: 2^23 */
	uint64_t filter_bits;
};

struct bp_dfpn_result {
	enum bp_value value; /* BP_VALUE_NONE: stopped by a limit before deciding */
	/* the search that was running when stopped (0 "win", 1 "not lose"), its root
	 * numbers; for a decided value, those of the last search */
	int search;
	uint32_t pn, dn;
	int searches;		     /* searches run: 1 or 2 */
	uint64_t nodes;		     /* expansions (positions whose children were generated) */
	uint64_t evaluated;	     /* children looked at */
	uint64_t tt_probes, tt_hits; /* child look-ups in the table and hits */
	/* children whose outcome came from the outcome cache (BP_GAME_COSTLY_OUTCOME),
	 * not from the rules */
	uint64_t outcome_hits;
	uint64_t tt_entries, tt_used;
	uint64_t tt_bytes;
	uint64_t filter_bits; /* the size of the table's filter, grown with its entries */
	double seconds;
	int stopped;	/* 1 time limit, 2 node limit, 3 cancelled, 0 none */
	int class_keys; /* 1: the table was keyed by the game's sym_hash, 0: by canonical forms */
};

/* Sets o->pn_rule and o->init to the guidance that g's family advises
 * (bp_game_ops.dfpn_weak, dfpn_mobility): what found its proofs with the fewest nodes
 * where measured; plain df-pn where not. */
void bp_dfpn_advised(const struct bp_game *g, struct bp_dfpn_opts *o);

/* The names of a guidance, as `prove` spells them: "sum" or "weak", "1" or "moves". */
const char *bp_dfpn_pn_rule_name(enum bp_dfpn_pn_rule r);
const char *bp_dfpn_init_name(enum bp_dfpn_init i);

/* Creates a searcher for g with its transposition table (opts->memory bytes, entries
 * of 16 bytes in buckets of four, and beside it a filter of the keys stored, which
 * grows with them up to two bits an entry).
 * @return BP_OK; BP_ERANGE (memory below BP_DFPN_MIN_MEMORY); BP_ENOMEM. The caller
 * owns *out (bp_dfpn_destroy). */
int bp_dfpn_create(const struct bp_game *g, const struct bp_dfpn_opts *opts, bp_dfpn **out,
		   struct bp_err *err);

void bp_dfpn_destroy(bp_dfpn *d);

/* Proves the value of p for its player to move. The table is kept between calls on the
 * same handle (later calls start from what earlier ones proved). Limits count from
 * the start of each call.
 * @return BP_OK (out->value may be BP_VALUE_NONE when stopped); BP_EINVAL (p is
 * terminal: ask outcome()); BP_ERANGE (the search path passed its depth limit);
 * BP_ENOMEM. */
int bp_dfpn_prove(bp_dfpn *d, const struct bp_pos *p, struct bp_dfpn_result *out,
		  struct bp_err *err);

/* The outcome of one search goal at a position, as the table holds it after a search
 * (for proof extraction): goal 0 "win", 1 "not lose", for the attacker; or_node 1 when
 * the attacker is to move at p. Terminal positions, known values and final table
 * entries are answered at once; otherwise, when may_search is set, a fresh search from
 * p (with the handle's limits) decides. @return 1 proven, 0 disproven; BP_ENOTFOUND
 * (not final in the table and may_search unset, or the search was stopped by a
 * limit); another negative error. */
int bp_dfpn_goal(bp_dfpn *d, const struct bp_pos *p, int goal, int or_node, int may_search);

/* The numbers the table holds for one search goal at p (as bp_dfpn_goal names it),
 * without searching: for ordering a proof's candidate moves. @return 1 and *pn, *dn
 * when p has an entry; 0 when it has none (terminal and known positions included). */
int bp_dfpn_numbers(bp_dfpn *d, const struct bp_pos *p, int goal, int or_node, uint32_t *pn,
		    uint32_t *dn);

/* The file a table of g is kept in, in the database directory dir:
 * DIR/dfpn-HASH.table, HASH a hash of the game's spec.
 * @return BP_OK; BP_ERANGE (out, of len bytes, is too small). */
int bp_dfpn_kept_path(const struct bp_game *g, const char *dir, char *out, size_t len);

/* Writes the handle's table (its entries and goals run) to the file path, by
 * way of path.tmp and a rename, so that a file there is always whole: a search stopped
 * by a limit goes on from it later (bp_dfpn_resume). No search may run meanwhile.
 * @return BP_OK; BP_EIO (err names the cause; the file kept before is untouched). */
int bp_dfpn_keep(const bp_dfpn *d, const char *path, struct bp_err *err);

/* Reads a table written by bp_dfpn_keep into a handle made for the same game with the
 * same memory, before any search on it, and fills its filter from the entries. The
 * file's checksums, rules version, game and key scheme (the keys of the start
 * position) must match.
 * @return BP_OK; BP_ENOTFOUND (no file); BP_ERANGE (a table of another size: err says
 * which); BP_ECORRUPT (another game, rules version or build's keys, or damaged: the
 * handle's table is left empty); BP_EIO. */
int bp_dfpn_resume(bp_dfpn *d, const char *path, struct bp_err *err);

#endif
