/* SPDX-License-Identifier: MIT */
/* The one entry point for strong solving: picks the engine (or runs the one asked
 * for), solves the instance into the position database and says which engine ran.
 *
 * Every position reachable from the start gets a value for the player to move and a
 * remoteness (RULES.md section 10). Positions are stored once per symmetry class, at
 * the dense index (ops->rank) of their canonical form; other indices hold record 0.
 * Every engine stores the same table for the same instance (the tests compare their
 * content hashes). */
#ifndef BP_SOLVER_SOLVE_H
#define BP_SOLVER_SOLVE_H

#include "solver/engine.h"

/* "auto", "tiers", "walk", "cycles" or "counter"; "unknown" for a number outside the
 * enum. */
const char *bp_engine_name(enum bp_engine e);

/* The engine named name. @return BP_OK; BP_ENOTFOUND. */
int bp_engine_parse(const char *name, enum bp_engine *out);

/* Solves g into db (the table named g->spec, created if absent; the tiered engines
 * reuse completed tiers) with opts->engine: BP_ENGINE_AUTO picks counter for games
 * flagged BP_GAME_CYCLIC (the same table as cycles, several times faster: the tests
 * compare them) -- or, under opts->memory_limit, cycles when the counter engine
 * would not fit and the cycles engine does (checked up front, or after the counter
 * engine's marking refuses) -- else walk for games with a tier walk, else tiers.
 * out->engine says which ran.
 * @return BP_OK; BP_EUNSUPPORTED (the game lacks what the engine needs: tiers and
 * ranking, a tier walk, or positions that never repeat for tiers and walk; err says
 * which engines can solve it); BP_ERANGE (over opts->memory_limit, before any work;
 * or a remoteness too large to store); BP_EFORMAT (a table of another spec or
 * version); BP_ECORRUPT; BP_EIO; BP_ENOMEM (also when a game op failed, see
 * bp_game_status: nothing computed after it is stored). err says what. */
int bp_solve(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
	     struct bp_solve_result *out, struct bp_err *err);

/* Removes the scratch files an interrupted solve of g left next to db (the walk
 * engine's segments and reached bits: solver/expanded.h), before the table is solved
 * anew (solve --replace). @return the files removed (>= 0); BP_EIO; BP_ENOMEM. */
int bp_solve_remove_scratch(const struct bp_game *g, bp_store *db);

/* 1 when g's dense index does not fit (some tier over 2^64 indices) and g has keys for
 * an index of its reachable positions only (solver/sparse.h), so that every solve of it
 * uses that index. */
int bp_solve_sparse_wanted(const struct bp_game *g);

#endif
