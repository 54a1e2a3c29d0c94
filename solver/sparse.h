/* SPDX-License-Identifier: MIT */
/* An index of the reachable canonical positions only, for games whose dense index
 * (game.h rank) is too large or mostly holes (Mirador from 10x10 up; 9x9 has 358 M
 * dense indices for 257,663 positions). The positions are found by a forward
 * enumeration from the start, tier by tier, each kept as the game's 128-bit key
 * (game.h key_pack) in one sorted array per tier: rank is a binary search (over a
 * sample of the keys first, where the index was made in memory), unrank an array
 * lookup and key_unpack.
 *
 * Solving through it (bp_solve with BP_INDEX_SPARSE, or auto where the dense index
 * does not fit) runs the walk engine (the tiers engine where asked, or where the game
 * has no children_keys) on a view of the game (bp_sparse_view) whose tier sizes, rank
 * and unrank are the index's, so every index is a reachable canonical position. The
 * index is stored with the table (bp_sparse_store, a key
 * space of its own: format in sparse.c), and every reader of the table loads it
 * (solver/probe.c attaches it to the open table): a query never enumerates, and a
 * table whose index is missing or damaged is refused, never read with other indices. */
#ifndef BP_SOLVER_SPARSE_H
#define BP_SOLVER_SPARSE_H

#include <stdint.h>

#include "solver/engine.h"
#include "solver/games/game.h"
#include "store/store.h"

typedef struct bp_sparse bp_sparse;

/* 1 when g has a sparse key (key_pack) and is tiered; 0 otherwise. */
int bp_sparse_supported(const struct bp_game *g);

/* 1 when g needs the sparse index: it has one and some tier's dense index does not fit
 * (tier_size refuses). */
int bp_sparse_wanted(const struct bp_game *g);

/* Enumerates the reachable canonical positions of g from the start, tier by tier, on
 * opts->threads threads (opts may be NULL: every core, no limit), calling
 * opts->progress (phase 0) after each tier and polling opts->cancel. The keys held
 * (the index so far and the next tiers' keys before they are merged) are checked
 * against opts->memory_limit as they grow.
 * @return BP_OK; BP_EUNSUPPORTED; BP_ERANGE (a position does not fit a key, or the
 * memory limit: err says how much was held); BP_EINVAL (a move that does not raise the
 * tier); BP_ECANCELED; BP_ENOMEM; a rule's failure (bp_game_status). The caller owns
 * *out (bp_sparse_free). */
int bp_sparse_enumerate(const struct bp_game *g, const struct bp_solve_opts *opts, bp_sparse **out,
			struct bp_err *err);

/* bp_sparse_enumerate with the tiers on disk (solver/enumerate_keys.c): each tier's
 * keys sorted in a file in a directory made under dir, the children's keys gathered
 * in buffers (opts->memory_limit / 4 bytes, else 1 GiB) written as sorted runs and
 * merged on disk; the index then maps the tiers' files (unlinked at once: nothing is
 * left on disk when the process ends), so that its keys take page cache, not the
 * process's own memory. The same index as bp_sparse_enumerate (the tests compare
 * them). bp_sparse_enumerate calls it where opts->spill_dir is set.
 * @return as bp_sparse_enumerate; BP_EIO (a file: err names it). */
int bp_sparse_enumerate_on_disk(const struct bp_game *g, const struct bp_solve_opts *opts,
				const char *dir, bp_sparse **out, struct bp_err *err);

/* The index over the files dir/tier-T (T < nt) of n[T] sorted keys each (a file of
 * an empty tier may be missing), mapped read-only and unlinked; takes outcome and
 * wins (per tier, as the enumeration makes them; may be NULL) in every case.
 * @return BP_OK; BP_EIO (errno says why); BP_ENOMEM. */
int bp_sparse_from_files(uint32_t nt, const uint64_t *n, const char *dir, uint64_t **outcome,
			 uint64_t **wins, int threads, uint64_t enum_bytes, bp_sparse **out);

/* The bytes the enumeration held at most besides the index: on disk its buffers, as
 * bp_sparse_from_files was told; in memory its pending keys (the parts written) and
 * what sorting and merging them took, at their most beside the index's tiers so far;
 * 0 for an index loaded. */
uint64_t bp_sparse_enumeration_bytes(const bp_sparse *ix);

/* The bytes held at most while bp_sparse_store wrote the index (after it): the index,
 * each worker's block buffers and zstd context, the encoded blocks and LMDB's copy. */
uint64_t bp_sparse_store_peak(const bp_sparse *ix);

/* Sorts the n keys at k (two words each, the high one second) in increasing order and
 * drops repeats, in place: the enumeration's sort, given for the tests.
 * @return the keys left, at k[0 .. 2 * return). */
uint64_t bp_sparse_sort_unique(uint64_t *k, uint64_t n);

/* An index of nt tiers made from given keys: count[t] keys of tier t at keys[t] (two
 * words each, the high one second), strictly increasing. Copied; rank searches it as
 * it does an enumerated index (a sample of high words first).
 * @return BP_OK; BP_EINVAL (keys out of order); BP_ENOMEM. The caller owns *out. */
int bp_sparse_from_keys(uint32_t nt, const uint64_t *count, const uint64_t *const *keys,
			bp_sparse **out);

void bp_sparse_free(bp_sparse *ix);

/* The positions of tier t (0 outside the tiers). */
uint64_t bp_sparse_count(const bp_sparse *ix, uint32_t t);

/* The number of tiers. */
uint32_t bp_sparse_tiers(const bp_sparse *ix);

/* The positions of every tier. */
uint64_t bp_sparse_positions(const bp_sparse *ix);

/* Bytes of the stored form, once bp_sparse_store wrote it or bp_sparse_load read it
 * (else 0). */
uint64_t bp_sparse_stored_bytes(const bp_sparse *ix);

/* Bytes the index holds in memory (keys mapped from files not counted: they are page
 * cache). */
uint64_t bp_sparse_bytes(const bp_sparse *ix);

/* Of the keys mapped from files (bp_sparse_from_files), the bytes of the two
 * neighbouring tiers with the most: what a solve over the index reads at once (a tier
 * and the tier its moves reach), so the page cache it wants; 0 when none is mapped. */
uint64_t bp_sparse_mapped_pair(const bp_sparse *ix);

/* A hash of every tier's keys in order: equal indices have equal hashes. */
uint64_t bp_sparse_hash(const bp_sparse *ix);

/* The index of key in tier t. @return BP_OK; BP_ERANGE (not in the index). */
int bp_sparse_rank(const bp_sparse *ix, uint32_t t, const uint64_t key[2], uint64_t *out);

/* The index of position p (canonical) of game g: its tier and key_pack, then
 * bp_sparse_rank. @return BP_OK; BP_ERANGE (not in the index, or no key). */
int bp_sparse_rank_position(const bp_sparse *ix, const struct bp_game *g, const struct bp_pos *p,
			    uint64_t *out);

/* The position at index i of tier t: key_unpack of its key. @return BP_OK; BP_ERANGE
 * (out of range); BP_ENOTFOUND (the key names no position of g). */
int bp_sparse_unrank_position(const bp_sparse *ix, const struct bp_game *g, uint32_t t, uint64_t i,
			      struct bp_pos *out);

/* The key at index i of tier t (two words, the high one second), or NULL when out of
 * range. Owned by ix. */
const uint64_t *bp_sparse_key(const bp_sparse *ix, uint32_t t, uint64_t i);

/* Whether a and b hold the same keys in every tier: BP_OK, else BP_ECORRUPT with why
 * (n bytes) naming the first tier that differs and how. */
int bp_sparse_compare(const bp_sparse *a, const bp_sparse *b, char *why, size_t n);

/* bp_sparse_compare of tier t alone (read first where either index reads tiers on first
 * use). @return BP_OK; BP_ECORRUPT (why); a tier's read failure. */
int bp_sparse_compare_tier(const bp_sparse *a, const bp_sparse *b, uint32_t t, char *why, size_t n);

/* Lets go of tier t of an index opened from its stored form (it is read again, and
 * checked again, on its next use); nothing for other indices. Not while another thread
 * may use the tier. */
void bp_sparse_release(bp_sparse *ix, uint32_t t);

/* A view of g indexed by ix: a game instance that shares g's rules and data (g must
 * outlive it) but whose tier_size, rank and unrank are ix's (every index a reachable
 * canonical position: BP_GAME_DENSE_REACHABLE and BP_GAME_INDEX_CANONICAL), whose
 * children() ranks the game's children_keys in ix (when g has them), whose tier walk
 * (with children(), for a game without BP_GAME_TIER_SKIP) tells each position the
 * enumeration found over by its outcome, nothing unranked, and the others' children by
 * index, and whose outcome() is the enumeration's answer where ix was enumerated in
 * this process.
 * Failures of its rules go to the view's own bp_game_status. @return BP_OK; BP_EUNSUPPORTED; BP_ENOMEM. The
 * caller owns *out (bp_sparse_view_free, never bp_game_destroy). */
int bp_sparse_view(const struct bp_game *g, const bp_sparse *ix, struct bp_game **out);

void bp_sparse_view_free(struct bp_game *view);

/* Writes ix as the stored index of the table of spec in db (replacing any), in one
 * transaction; its blocks are encoded on the threads that enumerated ix (one for an
 * index made otherwise), the same bytes whatever their number. @return BP_OK; as bp_kv_open and bp_kv_put (err names the cause). */
int bp_sparse_store(bp_store *db, const char *spec, bp_sparse *ix, struct bp_err *err);

/* bp_sparse_store in index format `version`: the current one (what bp_sparse_store
 * writes) or an older one that readers still accept (1), for tests of the readers.
 * @return as bp_sparse_store; BP_EINVAL for a version not written. */
int bp_sparse_store_format(bp_store *db, const char *spec, bp_sparse *ix, uint32_t version,
			   struct bp_err *err);

/* 1 when an index (sound or not) is stored for the table of spec in db, else 0. */
int bp_sparse_stored(bp_store *db, const char *spec);

/* Opens the stored index of g's table: reads and checks its format record (format,
 * rules version, tiers, counts) now, and each tier's keys on first use (rank, key,
 * unrank, compare, hash), checking them as bp_sparse_load does; a tier that fails
 * makes those return its error (BP_ECORRUPT, BP_ENOMEM, BP_EIO; bp_sparse_why says
 * where), and every later read too. Safe to use from several threads. The kv handle
 * it keeps is closed by bp_sparse_free, which must come before the store is closed.
 * @return as bp_sparse_load. The caller owns *out. */
int bp_sparse_open(bp_store *db, const struct bp_game *g, bp_sparse **out, struct bp_err *err);

/* Reads every tier not read yet. @return BP_OK, or the first tier's error (err says
 * where). */
int bp_sparse_read_all(bp_sparse *ix, struct bp_err *err);

/* What the first tier that failed to read found ("" when none). Owned by ix. */
const char *bp_sparse_why(const bp_sparse *ix);

/* Reads the stored index of g's table, checking every block's checksums, the order
 * of the keys, their count and hash against the index's record.
 * @return BP_OK; BP_ENOTFOUND (no index stored for g); BP_ECORRUPT (damaged: err says
 * where); BP_EFORMAT (another index format, or not g's tiers); BP_ERULES (enumerated
 * under another rules version); BP_ENOMEM; BP_EIO. The caller owns *out. */
int bp_sparse_load(bp_store *db, const struct bp_game *g, bp_sparse **out, struct bp_err *err);

#endif
