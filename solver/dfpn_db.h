/* SPDX-License-Identifier: MIT */
/* The database behind proof-number search: solved tables as an endgame oracle, values
 * proven by earlier searches (a sparse table per instance, store/kv.h), checkpoints
 * of new proven values, and saved proofs. */
#ifndef BP_SOLVER_DFPN_DB_H
#define BP_SOLVER_DFPN_DB_H

#include "solver/dfpn.h"
#include "solver/proof.h"
#include "store/kv.h"
#include "store/store.h"

struct bp_dfpn_db;

/* Opens the database in dir for instance g (flags as bp_store_open: BP_STORE_CREATE
 * creates what is absent; BP_STORE_READONLY for reading): its solved table when there
 * is one, and its sparse tables of proven values and saved proofs.
 * @return BP_OK; as bp_store_open. The caller owns *out (bp_dfpn_db_close). */
int bp_dfpn_db_open(const char *dir, const struct bp_game *g, int flags, struct bp_dfpn_db **out,
		    struct bp_err *err);

/* Closes after a last checkpoint. NULL is allowed. */
void bp_dfpn_db_close(struct bp_dfpn_db *db);

/* Points o's known, record and ctx at the database: a solved table's values and
 * proven values end the search; proven values of large subtrees are collected and
 * written every `seconds` (bp_dfpn_db_set_interval; default 10). Reads the keys of
 * the values proven so far once, into a filter (2 bytes a value) that keeps the search
 * from asking the database about positions it has not got. Call before searching. */
void bp_dfpn_db_attach(struct bp_dfpn_db *db, struct bp_dfpn_opts *o);

/* Sets the checkpoint interval in seconds (0: every recorded value at once). */
void bp_dfpn_db_set_interval(struct bp_dfpn_db *db, double seconds);

/* Writes the collected proven values now, in one transaction. @return BP_OK; BP_EIO;
 * BP_ENOMEM; BP_ECORRUPT (a stored value it would narrow is damaged). */
int bp_dfpn_db_checkpoint(struct bp_dfpn_db *db);

/* The proven bound of a position (any, canonicalized here). @return 1 when known,
 * 0 when not, negative on error. */
int bp_dfpn_db_lookup(struct bp_dfpn_db *db, const struct bp_pos *p, struct bp_dfpn_bound *out);

/* The proven bound of p (any position, canonicalized here) in the sparse table of g in
 * an open store, for readers such as `query` that hold the store already.
 * @return 1 when known, 0 when not (or no sparse table), negative on error. */
int bp_dfpn_proven_get(bp_store *s, const struct bp_game *g, const struct bp_pos *p,
		       struct bp_dfpn_bound *out);

/* Reads every proven value of the instance: each must pass its checksum, be a bound
 * and be stored under a canonical position; their count and checksums must match the
 * key space's record. *count gets how many were read. @return BP_OK (also when there
 * are none); BP_ECORRUPT; BP_ENOMEM; BP_EIO. */
int bp_dfpn_db_check_proven(struct bp_dfpn_db *db, uint64_t *count);

/* What the last damage found in the proofs or proven values was (bp_kv_why), or "". */
const char *bp_dfpn_db_why(const struct bp_dfpn_db *db);

/* bp_kv_why of the proven values alone: why the last checkpoint failed, or "". */
const char *bp_dfpn_db_proven_why(const struct bp_dfpn_db *db);

/* The solved table of the instance, or NULL. */
bp_table *bp_dfpn_db_table(struct bp_dfpn_db *db);

/* Stores a proof under its root position (replacing an earlier one) and frees it,
 * whatever the outcome: once encoded, the proof's own frames are let go before the
 * write, so that a large proof is held twice at most (encoded, and LMDB's pages of it).
 * @return BP_OK; BP_EIO; BP_ENOMEM. */
int bp_dfpn_db_save_proof(struct bp_dfpn_db *db, struct bp_proof *pf, struct bp_err *err);

/* The saved proofs of the instance as lemmas of a proof build (bp_proof_build): their
 * roots are read once, here; a build then reads a proof only at its root. */
void bp_dfpn_db_lemmas(struct bp_dfpn_db *db, struct bp_proof_lemmas *out);

/* Calls fn for every saved proof of the instance (decoded; fn must not keep it).
 * @return BP_OK, fn's first non-zero return, or an error. */
int bp_dfpn_db_each_proof(struct bp_dfpn_db *db,
			  int (*fn)(void *ctx, const struct bp_proof *pf, int decode_rc,
				    const char *why),
			  void *ctx);

/* What the database holds of proof-number search, for `list`: each saved proof (its
 * head: instance, root, value, decisions) and each instance's count of proven values,
 * under every rules version (rules_version says which; only the current one is read by
 * prove, query and verify). */
enum { BP_DFPN_SAVED_PROOF, BP_DFPN_SAVED_PROVEN };
struct bp_dfpn_saved {
	const char *spec; /* the instance, as its key space names it */
	int rules_version;
	int kind;		    /* BP_DFPN_SAVED_PROOF or _PROVEN */
	struct bp_proof_info proof; /* a proof's head */
	size_t bytes;		    /* a proof's stored bytes */
	uint64_t count;		    /* proven values */
	int rc;			    /* not BP_OK: this proof or key space is damaged */
	const char *why;	    /* then what was found */
};

/* Calls fn for each saved proof and each key space of proven values in s, by key space
 * name; a damaged one is told with its rc (the walk goes on unless fn returns
 * non-zero). @return BP_OK; fn's first non-zero return; BP_ECORRUPT, BP_EIO or
 * BP_ENOMEM from the walk itself. */
int bp_dfpn_db_saved(bp_store *s, int (*fn)(void *ctx, const struct bp_dfpn_saved *it), void *ctx);

/* The move that a saved proof of g (under this rules version) makes at p, when p is
 * one of its decisions: *move in p's own frame, d what the decision shows (the player
 * to move at p wins, goal 0, or does not lose, goal 1). Reads the proofs' frames
 * without keeping them. @return 1; 0 (no saved proof decides at p); BP_ECORRUPT (a
 * damaged proof, or its move is none of p's), BP_EIO, BP_ENOMEM (err says what). */
int bp_dfpn_proof_move(bp_store *s, const struct bp_game *g, const struct bp_pos *p,
		       struct bp_move *move, struct bp_proof_decision *d, struct bp_err *err);

/* bp_dfpn_proof_move for n positions at once (one pass over each saved proof): found[i]
 * says whether ps[i] is a decision, moves[i] and d[i] then its move (in ps[i]'s frame)
 * and what it shows. @return how many are found (>= 0); as bp_dfpn_proof_move on
 * error. */
int bp_dfpn_proof_moves(bp_store *s, const struct bp_game *g, const struct bp_pos *ps, int n,
			struct bp_move *moves, struct bp_proof_decision *d, uint8_t *found,
			struct bp_err *err);

#endif
