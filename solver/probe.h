/* SPDX-License-Identifier: MIT */
/* Looking up solved positions in a table: the value and remoteness of any position
 * (via its canonical form), and of every move from it, best first, as a tablebase
 * explorer shows them. */
#ifndef BP_SOLVER_PROBE_H
#define BP_SOLVER_PROBE_H

#include "solver/games/game.h"
#include "store/store.h"

struct bp_probe {
	enum bp_value value;
	unsigned remoteness; /* BP_RECORD_NO_REMOTENESS: none (draw by repetition) */
};

/* Opens g's solved table in db for reading. A table solved under another rules
 * version is refused (closed again) and never answered from: RULES.md says tables of
 * other rules are never silently mixed. Every reader of solved values opens tables
 * this way; so is a table whose tier sizes differ from the game's (written with
 * another index layout). @return BP_OK; BP_ENOTFOUND (not solved here); BP_ERULES (err
 * names both versions); BP_EFORMAT (another index layout, or a table indexed by its
 * reachable positions whose stored index is missing); BP_ECORRUPT (that index is
 * damaged: err says where); as bp_table_open. A stored index of reachable positions
 * (solver/sparse.h) is read here and kept with the table (bp_table_attached) for
 * bp_probe_position. The caller owns *out (bp_table_close). */
int bp_probe_open(bp_store *db, const struct bp_game *g, bp_table **out, struct bp_err *err);

/* Gives table t the structural holes of g's dense index (bp_table_set_mask, with the
 * game's canonical_mask) when g has one and t's tiers are g's dense tiers (not a
 * stored index of reachable positions): the table's writes then store no bit for an
 * index that is no canonical position, and its reads decode such blocks. Does
 * nothing otherwise. bp_probe_open and the solver's table opens call it; a reader
 * that opens a table with bp_table_open calls it before reading records. g must
 * outlive t's use. @return 1 when the table got its holes, else 0. */
int bp_probe_set_holes(bp_table *t, const struct bp_game *g);

/* As bp_probe_set_holes, and the table's writes at an archival level (--level 10 and
 * up) code each position whose mover wins in 1 from the rules (bp_table_set_hints,
 * bp_game_wins_in_one): a small fraction of a bit where it took a record's bits, for
 * a cold read that plays every move of every position in its block (a solve's
 * `--foretell-wins`). Every reader decodes such tables (bp_probe_set_holes gives them
 * the same hints). Does nothing where the table gets no holes.
 * @return 1 when the table's writes foretell wins, else 0. */
int bp_probe_foretell_wins(bp_table *t, const struct bp_game *g);

/* The stored value of p. @return BP_OK; BP_ENOTFOUND when p is not in the solved set
 * (not reachable, or its tier not stored); BP_ECORRUPT; BP_EUNSUPPORTED; BP_EFORMAT
 * (a table indexed by its reachable positions opened without its index: with
 * bp_table_open instead of bp_probe_open). */
int bp_probe_position(const struct bp_game *g, bp_table *t, const struct bp_pos *p,
		      struct bp_probe *out);

/* What the last failing read of t found: its stored index of reachable positions (a
 * tier read on first use that failed its checks) or, else, bp_table_why. Owned by
 * t. */
const char *bp_probe_why(const bp_table *t);

/* The position at index i of tier `tier` of table t (opened with bp_probe_open): through
 * the table's stored index of reachable positions when it has one, else the game's
 * unrank. @return BP_OK; BP_ENOTFOUND or BP_ERANGE (no position there);
 * BP_EUNSUPPORTED (the game cannot unrank). */
/* Lets go of tier's keys in t's stored index of reachable positions, where t has one
 * read a tier at a time on first use (bp_probe_open); they are read again when next
 * needed. So a reader that goes through the tiers in turn (claims' walk over every
 * stored position) holds one tier's keys at a time: mirador:11x11's index is 14 GB in
 * memory, its largest tier 4.3 GB. Only while no other thread reads t. */
void bp_probe_release_tier(bp_table *t, uint32_t tier);

int bp_probe_unrank(const struct bp_game *g, bp_table *t, uint32_t tier, uint64_t i,
		    struct bp_pos *out);

struct bp_probe_move {
	struct bp_move move;
	enum bp_value value; /* for the player making the move */
	unsigned remoteness; /* turns to the end after making it, this move included */
};

/* Every legal move of p with its value for the mover, best first: wins by increasing
 * remoteness, then draws, then losses by decreasing remoteness. out needs room for
 * g->max_moves entries. @return the number of moves (>= 0), or an error as
 * bp_probe_position for a child. */
int bp_probe_moves(const struct bp_game *g, bp_table *t, const struct bp_pos *p,
		   struct bp_probe_move *out);

#endif
