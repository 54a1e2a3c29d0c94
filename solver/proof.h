/* SPDX-License-Identifier: MIT */
/* Proof trees of proof-number search, and their checker. A proof of a value is one or
 * two strategies, each for a player P and a goal ("win" or "not lose") from the root.
 * A strategy is P's decisions: a set of canonical positions with P to move, each naming
 * one legal move. From a decision's result every move of the other player must lead to
 * another decision or to a leaf whose value meets the goal: a terminal position, a
 * position of a solved table, or one the game's value bounds settle. A "win" strategy
 * must be acyclic; a "not lose" strategy may cycle (a game that repeats forever is a
 * draw). A win is one "win" strategy for the player to move, a loss one for the
 * opponent, a draw one "not lose" strategy for each player. Only decisions are stored
 * (the other player's positions and the leaves follow from the rules), compressed as
 * they are made, so that building a proof beside the search's table takes about 40
 * bytes a decision.
 *
 * The checker (bp_proof_check) uses only the rules (moves, apply, outcome, canonical
 * form) and the solved table's stored values; nothing of the search. */
#ifndef BP_SOLVER_PROOF_H
#define BP_SOLVER_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "solver/dfpn.h"
#include "solver/games/game.h"
#include "store/store.h"

struct bp_proof;

/* Told, every 65536 decisions, how far a build has got (a build can take as long as the
 * search did). */
struct bp_proof_progress {
	void (*fn)(void *ctx, uint64_t decisions, uint64_t compressed_bytes);
	void *ctx;
};

/* Proofs saved before, which a build may take whole (lemmas): find gives, for a
 * canonical position, a proof rooted there (the caller frees it with bp_proof_free) or
 * NULL. A build that reaches a position of the other player with a lemma showing the
 * goal there copies the lemma's decisions instead of building them again. The proof
 * stays whole (its decisions include the lemma's) and is checked as any other; a lemma
 * that does not hold makes a proof that fails its check, never a false one. */
struct bp_proof_lemmas {
	struct bp_proof *(*find)(void *ctx, const struct bp_pos *canon);
	void *ctx;
};

/* Builds the proof of value v (win, loss or draw, as bp_dfpn_prove found it) of root
 * from the searcher's table, searching again below positions whose entries were
 * replaced. Leaves are terminal positions or positions of `table` (may be NULL), the
 * solved table of g; lemmas and progress may be NULL. @return BP_OK; BP_ENOMEM; BP_ECORRUPT (the table does not hold a
 * proof: a search found otherwise); BP_ENOTFOUND (a search was stopped by a limit);
 * BP_ERANGE (deeper than the builder allows). The caller owns *out (bp_proof_free). */
int bp_proof_build(bp_dfpn *d, const struct bp_game *g, bp_table *table,
		   const struct bp_proof_lemmas *lemmas, const struct bp_pos *root, enum bp_value v,
		   const struct bp_proof_progress *progress, struct bp_proof **out,
		   struct bp_err *err);

void bp_proof_free(struct bp_proof *pf);

/* The number of decisions over all the proof's strategies (before format version 3,
 * saved proofs counted every node, the other player's and the leaves too; such a
 * proof, read back, counts its decisions). */
uint64_t bp_proof_size(const struct bp_proof *pf);
/* How many saved proofs (lemmas) the build that made pf took whole; 0 once read back. */
uint64_t bp_proof_lemmas_taken(const struct bp_proof *pf);

/* The claimed value, the root position and the instance spec. */
enum bp_value bp_proof_value(const struct bp_proof *pf);
const struct bp_pos *bp_proof_root(const struct bp_proof *pf);
const char *bp_proof_spec(const struct bp_proof *pf);

/* Serializes the proof (format in proof.c). @return BP_OK; BP_ENOMEM; BP_EIO (zstd
 * failed). The caller frees *buf. */
int bp_proof_encode(const struct bp_proof *pf, uint8_t **buf, size_t *len);

/* The inverse. @return BP_OK; BP_ECORRUPT (malformed, err says where); BP_EFORMAT
 * (another version); BP_ENOMEM. */
int bp_proof_decode(const uint8_t *buf, size_t len, struct bp_proof **out, struct bp_err *err);

/* What a saved proof says of itself, read from its head: its frames are skipped, not
 * decoded (a proof of 80 million decisions is listed at once). */
struct bp_proof_info {
	char spec[256];
	enum bp_value value;
	struct bp_pos root;
	uint64_t decisions;
};

/* The head of a serialized proof. @return as bp_proof_decode (a damaged frame is not
 * found here: bp_proof_decode or the store's checksums find it). */
int bp_proof_peek(const uint8_t *buf, size_t len, struct bp_proof_info *out, struct bp_err *err);

/* A decision of a saved proof: the move its strategy makes at a position, and what the
 * strategy shows (player 0: the root's player to move, 1: the other; goal 0: win, 1:
 * not lose; value: the proof's claimed value at its root). */
struct bp_proof_decision {
	uint32_t move;
	int player, goal;
	enum bp_value value;
};

/* Looks canon (a canonical position) up among the decisions of a serialized proof,
 * scanning its frames without keeping them. @return 1 (out set); 0 (not a decision
 * of it); BP_ECORRUPT (err says where), BP_EFORMAT, BP_ENOMEM. */
int bp_proof_find(const uint8_t *buf, size_t len, const struct bp_pos *canon,
		  struct bp_proof_decision *out, struct bp_err *err);

/* bp_proof_find for n canonical positions at once, one pass over the proof: found[i]
 * (left set where it was set) says whether canons[i] is a decision, out[i] then what.
 * @return how many are found in all (>= 0); as bp_proof_find on error. */
int bp_proof_find_many(const uint8_t *buf, size_t len, const struct bp_pos *canons, int n,
		       struct bp_proof_decision *out, uint8_t *found, struct bp_err *err);

/* Changes one decision of the proof's first strategy chosen by `which`: its move, or
 * a bit of its position (for the tests: a tampered proof must fail). @return BP_OK;
 * BP_EINVAL when there is nothing to change. */
int bp_proof_tamper(struct bp_proof *pf, uint64_t which);

struct bp_proof_report {
	int ok;			  /* 1: the proof holds */
	uint64_t nodes;		  /* decisions reached from the roots and checked */
	uint64_t terminal_leaves; /* leaves decided by the rules */
	uint64_t table_leaves;	  /* leaves decided by the solved table */
	uint64_t bound_leaves;	  /* leaves decided by the game's value bounds */
	char problem[512];	  /* the first problem found, when !ok */
};

/* Checks pf against the rules of g and the solved table (may be NULL: then a proof
 * that needs one fails). @return BP_OK when the check ran (see out->ok); BP_EFORMAT
 * (the proof is of another instance); BP_ENOMEM. */
int bp_proof_check(const struct bp_game *g, const struct bp_proof *pf, bp_table *table,
		   struct bp_proof_report *out);

#endif
