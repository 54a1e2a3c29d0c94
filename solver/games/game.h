/* SPDX-License-Identifier: MIT */
/* The game interface: one `struct bp_game_ops` table per game family, listed in the
 * registry (solver/games/registry.c), and `struct bp_game`, one instance of a family made
 * from a spec such as "taifas:4x4,tie=draw". Everything tools and solvers do with a
 * game goes through this table, so a new game is one new file plus a registry line.
 * There is no global state: any number of instances may live in one process.
 *
 * Positions are fixed-size plain values (`struct bp_pos`) whose layout belongs to the
 * game; games keep every unused word zero so that positions compare and hash as
 * bytes. Moves are 32-bit codes whose meaning also belongs to the game; a turn that
 * places two stones, flips a stone or passes is one move. */
#ifndef BP_SOLVER_GAMES_GAME_H
#define BP_SOLVER_GAMES_GAME_H

#include <gmp.h>
#include <stdint.h>
#include <string.h>

#include "canon/board.h"
#include "canon/error.h"
#include "canon/text.h"

/* The version of ../shared/RULES.md the games here implement. Stored with every
 * solved table (store/), so that values solved under other rules are told apart; it
 * belongs to the rules layer because a rule change is made here. */
#define BP_RULES_VERSION 2

/* Room for the largest state: the seed's 27x27 Mirador grid as two 729-bit planes
 * (24 words) plus game keys. */
#define BP_POS_WORDS 32

struct bp_pos {
	uint64_t w[BP_POS_WORDS];
};

/* Zeroes the words w[0, n) (n even, known where it is inlined) with 16-byte stores.
 * gcc compiles memset of a position's 256 bytes to `rep stos`, whose start-up cost was
 * a third of Mirador's key_unpack (small_build) in a mirador:10x10 solve, and turns a
 * loop of plain stores back into it; the empty asm hides that the stored value is 0. */
static inline void bp_words_clear(uint64_t *w, int n)
{
#if defined(__x86_64__) || defined(__i386__)
	typedef uint64_t bp_w2 __attribute__((vector_size(16), aligned(8), may_alias));
	bp_w2 z = { 0, 0 };
	__asm__("" : "+x"(z)); /* an SSE register: x86 only */
#pragma GCC unroll 16
	for (int i = 0; i < n; i += 2)
		*(bp_w2 *)&w[i] = z;
#else
	memset(w, 0, sizeof *w * (size_t)n);
#endif
}

/* The position with every word 0. */
static inline void bp_pos_clear(struct bp_pos *p)
{
	bp_words_clear(p->w, BP_POS_WORDS);
}

struct bp_move {
	uint32_t v;
};

/* Values for the player to move. The numbers are stable: they are stored on disk. */
enum bp_value {
	BP_VALUE_NONE = 0, /* not decided: the game goes on (or, in a table, unknown) */
	BP_VALUE_WIN = 1,
	BP_VALUE_LOSS = 2,
	BP_VALUE_DRAW = 3
};

/* "win", "loss", "draw" or "none". */
const char *bp_value_name(enum bp_value v);

/* The value for the other player: win <-> loss. */
static inline enum bp_value bp_value_flip(enum bp_value v)
{
	return v == BP_VALUE_WIN ? BP_VALUE_LOSS : v == BP_VALUE_LOSS ? BP_VALUE_WIN : v;
}

/* One key of a game spec ("tie=last-zone"). */
struct bp_option {
	const char *key;
	/* Value when the key is omitted; NULL: the key is absent unless given (and then
	 * required when `required` is set). */
	const char *def;
	/* NULL-terminated list of the allowed values; NULL: any value, which the game's
	 * create() checks. */
	const char *const *choices;
	int required;
	const char *help; /* one line for --help */
};

/* Flags of a game family. */
enum {
	BP_GAME_CYCLIC = 1, /* positions can repeat: solvers must handle cycles */
	/* Every index that unrank() accepts is a position reachable from the start (the
	 * game's comments prove it and its tests check it by enumeration), so a solver may
	 * skip the reachability pass. */
	BP_GAME_DENSE_REACHABLE = 2,
	/* After the first turn the second player may take over the first player's side (a
	 * pie rule or a colour choice). It is not part of the position: tools derive the
	 * value of the choice from the openings' values. */
	BP_GAME_PIE = 4,
	/* tier_walk visits every valid canonical position of a tier, reached from the
	 * start or not (the game cannot tell cheaply: Chicken's pairs depend on the order
	 * of play), so the walk engine finds the reached ones itself by a forward pass
	 * over the walk's children. */
	BP_GAME_WALK_UNREACHED = 8,
	/* Some moves raise the tier by two (Chicken's pairs, Glorieta's two-stone drops;
	 * a Glorieta flip raises it by one): a tier walk lists those children in
	 * bp_walk.far, and the engines keep
	 * two child tiers in memory. Without it, the memory plans count on every move
	 * raising the tier by one. */
	BP_GAME_TIER_SKIP = 16,
	/* Every index of every tier (0 .. tier_size - 1) is a valid canonical position
	 * reachable from the start (with BP_GAME_DENSE_REACHABLE; the view of an index of
	 * reachable positions, solver/sparse.h), so a solver marks them all without
	 * unrank() or canonical(). */
	BP_GAME_INDEX_CANONICAL = 32,
	/* outcome() costs far more than a look-up in memory (Mirador's chain-breaking
	 * test): proof-number search, with class keys (sym_hash), keeps the outcomes of
	 * the children it makes in a cache by key, so that a node expanded again, or a
	 * child met again through another parent, is not tested again. */
	BP_GAME_COSTLY_OUTCOME = 64,
	/* The dense index is mostly holes even where it fits (Mirador 9x9: 43.6 bits a
	 * position stored against 8.5 over the reachable positions): a solve indexes the
	 * reachable positions (solver/sparse.h) unless asked otherwise, or split across
	 * ranks, or by an engine that only the dense index serves. */
	BP_GAME_SPARSE_FIRST = 128
};

/* What a picture of a position shows besides each cell's character, filled by the
 * game (bp_game_ops.picture); tools decide how to draw it. Colours are 0xRRGGBB. */
#define BP_PICTURE_MAX_CHARS 8
#define BP_PICTURE_MAX_RING 384
#define BP_PICTURE_MAX_PIECES 1024
#define BP_PICTURE_MAX_LINKS 4096

struct bp_picture {
	/* the stone characters of the position text, each with its colour and a name for
	 * legends ("black"); neutral stones are also listed here */
	int nchars;
	char chars[BP_PICTURE_MAX_CHARS];
	uint32_t colour[BP_PICTURE_MAX_CHARS];
	const char *name[BP_PICTURE_MAX_CHARS];
	char neutral; /* the neutral stone's character, or 0 */
	/* coloured spaces off the board (a ring), at hex axial coordinates */
	int nring;
	struct {
		int16_t q, r;
		uint32_t colour;
	} ring[BP_PICTURE_MAX_RING];
	/* pieces covering size x size cells of a square grid, by their top-left cell */
	int npieces;
	struct {
		int16_t cell;
		uint8_t size;
		uint32_t colour;
	} piece[BP_PICTURE_MAX_PIECES];
	/* links between two cells' pieces, or from a piece to a side (b = -1 north, -2
	 * south, -3 west, -4 east); nlinks may stop at the maximum */
	int nlinks;
	struct {
		int16_t a, b;
		uint32_t colour;
	} link[BP_PICTURE_MAX_LINKS];
};

#define BP_GAME_MAX_OPTIONS 8

/* What bp_game_ops.tier_walk reports of one canonical position. */
enum {
	BP_WALK_CHILDREN = 1, /* fill children / nchildren */
	BP_WALK_IMAGES = 2,   /* fill images / nimages */
	/* Hints on the tier walk's `marked` bits; a walk may ignore them. */
	BP_WALK_ONLY_MARKED = 4,     /* positions whose bit is clear may be left out */
	BP_WALK_IMAGES_UNMARKED = 8, /* images may be left out (nimages 0) where it is set */
	/* positions whose bit and whose images' bits are all clear may be left out */
	BP_WALK_ONLY_CLASS_MARKED = 16
};

struct bp_walk {
	uint64_t index; /* the canonical position's index in its tier */
	int nchildren;	/* -1: the game is over (the solver asks outcome()) */
	/* with nchildren -1: the outcome for the player to move, as outcome() would
	 * say, where the walk knows it (the solver then unranks nothing); NONE where
	 * the solver should ask outcome() */
	enum bp_value outcome;
	/* indices in the next tier, one per legal move; or, where the walk knows that a
	 * move leads to a position over and lost for its player to move (the largest
	 * child there is for the value rule: the position is a win in 1), that child
	 * alone (solver/sparse.c's view; only where no forward pass needs every child:
	 * a game without BP_GAME_WALK_UNREACHED) */
	const uint64_t *children;
	/* with nchildren 0: 1 where the walk knows that some move leads to a position
	 * over and lost for its player to move but tells no child (bp_game_ops
	 * .wins_at_once); the solver records what that child told alone would give, a
	 * win in 1. 0 everywhere else */
	int wins_at_once;
	/* moves that raise the tier by two (Chicken's friendly + neutral pair): their
	 * children's indices in tier + 2, one per move, not counted in nchildren */
	int nfar;
	const uint64_t *far;
	int nimages;
	const uint64_t *images; /* the class's other members in this tier (may repeat) */
};

/* A segment of a tier (bp_game_ops.walk_segments): a range of its indices closed under
 * the symmetry (every member of a class lies in the segment of its canonical one), with
 * the segments that its positions' moves lead into. */
#define BP_SEGMENT_MAX_CHILDREN 4
struct bp_segment {
	uint32_t tier;
	uint64_t lo, hi; /* indices lo .. hi - 1 of the tier */
	int nchildren;
	/* the segments (places in the list) that hold every child of its positions */
	int children[BP_SEGMENT_MAX_CHILDREN];
};

struct bp_game;

struct bp_game_ops {
	const char *name;  /* REQUIRED: the spec's prefix, "taifas" */
	const char *title; /* REQUIRED: one line for listings */
	unsigned shapes;   /* REQUIRED: mask of enum bp_shape the game accepts */
	unsigned flags;	   /* BP_GAME_* */
	/* The spec keys, ending with a zeroed entry; NULL: the game takes no keys. The
	 * generic parser rejects unknown keys and values outside `choices`. */
	const struct bp_option *options;

	/* REQUIRED. Builds the instance from g->board and g->value[]: checks free-form
	 * values, sets g->max_moves, g->nsym, g->ntiers and g->impl.
	 * @return BP_OK or BP_ESPEC with err naming the bad part. */
	int (*create)(struct bp_game *g, struct bp_err *err);
	/* Frees g->impl. NULL: nothing to free. */
	void (*destroy)(struct bp_game *g);

	/* REQUIRED. The start position. */
	void (*start)(const struct bp_game *g, struct bp_pos *out);
	/* REQUIRED. Writes every legal move (at most g->max_moves) and returns how many;
	 * 0 exactly when the position is terminal. A pass, where the rules allow one,
	 * is a move. Each move appears once. */
	int (*moves)(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out);
	/* REQUIRED. Plays a legal move of p in place. */
	void (*apply)(const struct bp_game *g, struct bp_pos *p, struct bp_move m);
	/* REQUIRED. The outcome for the player to move when the game is over, else
	 * BP_VALUE_NONE. */
	enum bp_value (*outcome)(const struct bp_game *g, const struct bp_pos *p);

	/* REQUIRED. Parses and fully validates position text (RULES.md section 2).
	 * @return BP_OK or BP_EPARSE with err saying what and where. */
	int (*pos_parse)(const struct bp_game *g, const char *text, struct bp_pos *out,
			 struct bp_err *err);
	/* REQUIRED. Appends the position's text. Whatever p's words hold, it reads no
	 * memory outside them and its tables (a field out of range prints as '?', which
	 * pos_parse refuses): bp_game_pos_check relies on it for positions read from
	 * outside, such as a saved proof's root. */
	void (*pos_format)(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out);
	/* REQUIRED. The character of one cell, as in the position text ('.' empty). */
	char (*cell_char)(const struct bp_game *g, const struct bp_pos *p, int cell);
	/* REQUIRED. Parses a move and checks that it is legal in p.
	 * @return BP_OK; BP_EPARSE (malformed) or BP_EILLEGAL (says why). */
	int (*move_parse)(const struct bp_game *g, const struct bp_pos *p, const char *text,
			  struct bp_move *out, struct bp_err *err);
	/* REQUIRED. Appends a move's text. */
	void (*move_format)(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
			    struct bp_text *out);

	/* Applies the instance's symmetry s (0 <= s < g->nsym; 0 is the identity): board
	 * symmetries combined with colour exchanges as the game allows. Values are
	 * invariant under it. NULL: no symmetry is used (g->nsym == 1). */
	void (*transform)(const struct bp_game *g, const struct bp_pos *p, int s,
			  struct bp_pos *out);
	/* The canonical representative of p's class. NULL: the bytewise-smallest image
	 * under transform(), which is correct but slower. */
	void (*canonical)(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out);
	/* OPTIONAL: how many of the instance's symmetries map p to itself (1 and up: the
	 * identity does), exactly as transform() and bp_pos_equal count them; for counts
	 * of every image (bp_game_orbit). NULL: counted that way. */
	int (*sym_fixed)(const struct bp_game *g, const struct bp_pos *p);

	/* Tiers: a measure that every move raises (stones placed), so each tier needs
	 * only higher tiers solved. NULL: the game has no tiers (cyclic games). */
	uint32_t (*tier)(const struct bp_game *g, const struct bp_pos *p);
	/* The size of the dense index space of a tier. @return BP_OK; BP_ERANGE. */
	int (*tier_size)(const struct bp_game *g, uint32_t tier, uint64_t *out);
	/* Dense rank of p within its tier (< tier_size). @return BP_OK; BP_ERANGE. */
	int (*rank)(const struct bp_game *g, const struct bp_pos *p, uint64_t *out);
	/* Inverse of rank. @return BP_OK; BP_ENOTFOUND when the index names no valid
	 * position (games whose index space has holes). */
	int (*unrank)(const struct bp_game *g, uint32_t tier, uint64_t index, struct bp_pos *out);

	/* OPTIONAL, with rank(): the structural holes of n consecutive dense indices of a
	 * tier (n >= 1, first + n <= tier_size), for tables that store no bit for them
	 * (store/codec.c, flag bit 2; solver/holes.h). Writes ceil(n / 64) words into
	 * bits, bit i % 64 of word i / 64 set exactly when index first + i is a valid
	 * canonical position (unrank() accepts it and canonical() leaves it as it is).
	 * Tables are read with it, so its answer for an index must never change while
	 * the index does not (rules version). Safe from several threads at once. Must
	 * agree with unrank() and canonical(); the tests compare them on every index of
	 * small boards. @return BP_OK; BP_ERANGE (a range outside the tier). NULL: tables
	 * store a record (0) for every hole too, which costs bits per position. */
	int (*canonical_mask)(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
			      uint64_t *bits);

	/* OPTIONAL fast path for engines that expand positions by the rules (the counter
	 * engine, solver/counter.c, and the tiers engine, solver/retrograde.c), for games
	 * with tier() and rank(): for a position p that is not over, writes for each of
	 * its moves, in moves() order, the tier and the dense index of the canonical form
	 * of the child (tier[i], index[i]) and returns the number of moves, or a negative
	 * error (as rank()). Must agree exactly
	 * with moves(), apply(), canonical(), tier() and rank(); the tests compare them on
	 * every reachable position of small boards. NULL: the engine does those one child
	 * at a time. */
	int (*children)(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
			uint64_t *index);

	/* A fixed-width key for an index of reachable positions only (solver/sparse.h),
	 * for boards whose dense index is too large or mostly holes. key_pack writes the
	 * 128-bit key of a canonical position p (key[1] the high word); keys are injective
	 * within a tier, and key_unpack(tier(p), key_pack(p)) gives p back exactly.
	 * @return BP_OK; BP_ERANGE (p does not fit 128 bits); key_unpack BP_ENOTFOUND
	 * (the key names no valid position of the tier). NULL (both): no sparse index. */
	int (*key_pack)(const struct bp_game *g, const struct bp_pos *p, uint64_t key[2]);
	int (*key_unpack)(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			  struct bp_pos *out);
	/* OPTIONAL fast path for the index of reachable positions (solver/sparse.c), with
	 * key_pack: for a position p that is not over, writes for each of its moves, in
	 * moves() order, the tier (tier[i]) and the key_pack key of the canonical form of
	 * the child (keys[2 * i] the low word, keys[2 * i + 1] the high one), and returns
	 * the number of moves, or a negative error (as key_pack). Must agree exactly with
	 * moves(), apply(), canonical(), tier() and key_pack(); the tests compare them on
	 * every reachable position of small boards. NULL: the enumeration and the solve
	 * over the index do those one child at a time. */
	int (*children_keys)(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
			     uint64_t *keys);
	/* OPTIONAL, with children_keys: its first `max` children only (max >= 1), the same
	 * as children_keys writes them. @return how many were written (all the moves when
	 * there are at most max), or a negative error. For callers that may stop at an
	 * early child (the walk over an index of reachable positions, at a move that wins
	 * at once: solver/sparse.c). NULL: they ask children_keys for every child. */
	int (*children_keys_first)(const struct bp_game *g, const struct bp_pos *p, int max,
				   uint32_t *tier, uint64_t *keys);

	/* OPTIONAL: 1 when some move from p (a position not over) is known to lead to a
	 * position that is over and lost for its player to move (a move that wins at
	 * once), found cheaply; 0 when none is known (there may still be one). Must never
	 * say 1 wrongly: the walk over an index of reachable positions (solver/sparse.c)
	 * then records a win in 1 with no child made or ranked. NULL: never known; that
	 * walk finds such a move by making and ranking the children. Unlike wins_now
	 * (proof-number search's, exact both ways), this one may miss such moves. */
	int (*wins_at_once)(const struct bp_game *g, const struct bp_pos *p);
	/* OPTIONAL fast path for the enumeration of an index of reachable positions
	 * (solver/sparse.c), with key_unpack, outcome and children_keys: one key's step
	 * in one call, what those share made once. For the position p that
	 * key_unpack(tier, key) gives, *outcome gets outcome(p); when that is
	 * BP_VALUE_NONE, *wins (where wins is not NULL) gets 1 when wins_at_once(p) says
	 * 1 (else 0), and ctier and keys get children_keys(p). @return how many children
	 * were written (0 when p is over); BP_ENOTFOUND where key_unpack fails; another
	 * error (< 0) as children_keys's. Must agree exactly with those ops, which
	 * bp_game_expand_key_each calls in turn; the tests compare the two on every key
	 * of small boards' enumerations. `lost`: NULL, or room for (max_moves + 63) / 64
	 * words, which get bit i (of word i / 64) set where child i is known, cheaply, to
	 * be over and lost for its player to move (as wins_at_once: never wrongly, and
	 * it may miss some), every other bit clear; the enumeration then takes the child
	 * for over without asking again (where the game has a key_spare_bit to carry
	 * that in). NULL: the enumeration calls them in turn. */
	int (*expand_key)(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			  enum bp_value *outcome, int *wins, uint32_t *ctier, uint64_t *keys,
			  uint64_t *lost);

	/* OPTIONAL fast path for the retrograde solver (solver/expanded.c), for games
	 * whose every move leads from tier t to tier t + 1 (or t + 2: bp_walk.far) and
	 * whose rank() covers every position, canonical or not. Visits, in index order,
	 * each canonical position reachable from the start (with BP_GAME_WALK_UNREACHED:
	 * each valid one) whose index in `tier` lies in [lo, hi) (any bounds: a range may
	 * start or end inside a game's own blocks), telling what `what` asks for
	 * (BP_WALK_*). Must agree exactly
	 * with canonical(), moves(), apply(), tier() and rank(); the tests compare the
	 * tables both ways. Stops at and returns visit's first non-zero return.
	 * `marked`: NULL, or one bit per index of the tier (bit i % 64 of word i / 64)
	 * for the hints in `what`: with BP_WALK_ONLY_MARKED the walk may leave out,
	 * unvisited, any position whose bit is clear (the engine passes the reached bits
	 * when it would skip those positions anyway); with BP_WALK_IMAGES_UNMARKED it may
	 * list no images of a position whose bit is set (the forward pass needs them only
	 * to find whether a position is reached, which its own bit says already); with
	 * BP_WALK_ONLY_CLASS_MARKED it may leave out, unvisited, any position whose bit
	 * and whose images' bits are all clear (the forward pass, which marks only the
	 * classes with a member marked). Each saves work where the walk can; ignoring
	 * them is just as correct.
	 * NULL: the solver canonicalizes and ranks each child itself. */
	int (*tier_walk)(const struct bp_game *g, uint32_t tier, uint64_t lo, uint64_t hi,
			 unsigned what, const uint64_t *marked,
			 int (*visit)(void *ctx, const struct bp_walk *w), void *ctx);

	/* OPTIONAL, with tier_walk: the tiers cut into segments (struct bp_segment), listed
	 * in an order in which every segment comes after the segments its children lie in
	 * (Chicken: one per tier and neutral count, in the order of Chicken's comment). The
	 * segments of a tier tile its index range. Writes at most max of them into out
	 * (NULL: none) and returns how many there are, or a negative error. The walk
	 * engine then solves segment by segment in that order and holds only the segments
	 * still to be read, which bounds its memory well below whole tiers. NULL: the
	 * engine holds whole tiers. */
	int (*walk_segments)(const struct bp_game *g, struct bp_segment *out, int max);

	/* Exact number of positions of a tier reachable from the start, raw and up to the
	 * instance's symmetry, for boards too big to enumerate. NULL: counts come from
	 * enumeration only. @return BP_OK; BP_EUNSUPPORTED. */
	int (*count_tier)(const struct bp_game *g, uint32_t tier, mpz_t raw, mpz_t classes);

	/* Families. A spec without the key `family_key` stands for a family of instances,
	 * one for each value of that key (Landscape without layout=: every layout, RULES.md
	 * 5.1). NULL: every spec is one instance. With family_key set, family_count and
	 * family_list are REQUIRED; family_member too, for query and verify on a family.
	 * Count and list read only the parsed spec (g->board, g->value[]; see
	 * bp_game_parse_spec), so they work on boards too big to play. */
	const char *family_key;
	/* The number of instances in g's family, exactly, raw and up to the board's
	 * symmetry (classes). @return BP_OK; BP_ESPEC (err names the bad key); BP_ENOMEM;
	 * BP_ERANGE (too large to count). */
	int (*family_count)(const struct bp_game *g, mpz_t raw, mpz_t classes, struct bp_err *err);
	/* Calls visit once per class of instances up to symmetry, in a fixed order, with
	 * the spec of the class's representative instance (canonical spelling; it may
	 * equal g's own spec when the family has a single instance that the key cannot
	 * name), the family key's value in it ("" when absent), and the number of
	 * instances in the class. A non-zero return of visit stops the walk and is
	 * returned. @return BP_OK; BP_ESPEC; BP_ERANGE (too large to list); BP_ENOMEM. */
	int (*family_list)(const struct bp_game *g,
			   int (*visit)(void *ctx, const char *spec, const char *key_value,
					uint64_t multiplicity),
			   void *ctx, struct bp_err *err);
	/* The member a position of the created family instance g belongs to: writes the
	 * spec that family_list gives for its class into spec (len bytes) and p carried by
	 * a symmetry into that member's own frame into out (a valid position of the
	 * member instance, whose position layout is g's). @return BP_OK; BP_ERANGE (spec
	 * too long). */
	int (*family_member)(const struct bp_game *g, const struct bp_pos *p, char *spec,
			     size_t len, struct bp_pos *out);

	/* The game's own figures for a position: JSON members (`"zones": {...}`, no
	 * surrounding braces, no trailing comma) into json and human-readable lines into
	 * text. NULL: none. */
	void (*describe)(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			 struct bp_text *text);

	/* What a picture of p shows: stone colours and names, a ring, pieces and links
	 * (out is zeroed by the caller). NULL: tools colour each character from a fixed
	 * palette, with no names, ring, pieces or links. */
	void (*picture)(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *out);

	/* The number of groups (maximal connected sets of one player's stones) of the
	 * player to move and of the other player, for claims that compare them (Taifas'
	 * "fewer groups wins"). NULL: such claims do not apply. @return BP_OK. */
	int (*groups)(const struct bp_game *g, const struct bp_pos *p, int *mover, int *other);

	/* The designers' claims about this family that `boardproof claims` checks, as
	 * names separated by spaces ("no-draw first-player pie"). NULL: every claim that
	 * the interface lets the tools compute. */
	const char *claims;

	/* Advice to proof-number search (solver/dfpn.c) on the order of its search,
	 * measured by nodes to proof per family (bench/dfpn_results.md, session 9): 1
	 * where weak proof numbers (dfpn_weak) or mobility initial numbers
	 * (dfpn_mobility) found this family's proofs with fewer nodes than plain df-pn.
	 * `prove` follows it unless told otherwise; it never changes a value. 0 (both):
	 * plain df-pn. */
	unsigned char dfpn_weak, dfpn_mobility;
	/* OPTIONAL. How many moves moves() lists for p, a position the caller knows is not
	 * over, without moves()' own test of whether it is (on Mirador the chain-breaking
	 * search, which cost more than the moves: mobility initial numbers made every new
	 * child pay for it twice). For proof-number search's mobility numbers; the tests
	 * compare it with moves() on positions not over. NULL: moves(). */
	int (*move_count)(const struct bp_game *g, const struct bp_pos *p);

	/* Whether the player to move in p (a position that is not over) has a move after
	 * which they have won at once: 1 yes, 0 no. Must agree exactly with moves(),
	 * apply() and outcome() (the tests compare them). Proof-number search settles
	 * such a position without expanding it, which keeps its proof numbers honest in
	 * games decided by threats (Havannah). NULL: the search finds those moves by
	 * expanding. */
	int (*wins_now)(const struct bp_game *g, const struct bp_pos *p);

	/* OPTIONAL fast path for proof-number search (solver/dfpn.c), for games with
	 * transform() and g->nsym <= BP_GAME_SYM_HASH_MAX: hashes of a position's
	 * symmetric images, so that a key of its class costs no canonical form.
	 * sym_hash writes g->nsym hashes of p, h[s] = H(transform(p, s)) for one 64-bit
	 * hash H of positions fixed by the instance, and returns the smallest of them:
	 * the same for every member of p's class (its images are the class), the key
	 * the search takes for the class. sym_hash_move does the same for c, a position
	 * that one move makes of p, from p's hashes h and what changed between p and c
	 * (a Zobrist update; out NULL: only the key); it must equal sym_hash(c). The tests compare both with
	 * transform() and canonical(). NULL (both): the search hashes canonical forms. */
	uint64_t (*sym_hash)(const struct bp_game *g, const struct bp_pos *p, uint64_t *h);
	uint64_t (*sym_hash_move)(const struct bp_game *g, const struct bp_pos *p,
				  const uint64_t *h, const struct bp_pos *c, uint64_t *out);

	/* OPTIONAL knowledge for proof-number search: bounds on the game-theoretic value
	 * of p (a position that is not over) for its player to move, computed from the
	 * position alone, in the order loss (-1) < draw (0) < win (1): on return 1, *lo
	 * <= value <= *hi (-1 <= *lo <= *hi <= 1); on return 0 it knows nothing (and
	 * leaves them). Must be PROVABLY right under every option of the instance (an
	 * option it cannot bound: return 0); the game's comment gives the argument. The
	 * search settles a child whose bounds decide its goal without a table entry, and
	 * a saved proof may end in such a leaf: the proof checker calls this op again
	 * (solver/proof.c, leaf kind 3), so it is rules code, checked against the solved
	 * tables on every position of small boards. It may bound the members of a
	 * symmetry class differently (an order of cells in the argument): the search asks
	 * it of the positions it meets, a proof of the canonical ones it holds, which at
	 * worst makes a proof expand a node that the search settled.
	 * NULL: the search expands such positions. */
	int (*bounds)(const struct bp_game *g, const struct bp_pos *p, int *lo, int *hi);
	/* OPTIONAL fast path for bounds, with it, for the children of one node: bounds_node
	 * readies ctx (bounds_ctx_size bytes of the caller's, aligned as malloc's) for the
	 * children of p (a position that is not over); bounds_child then gives exactly
	 * bounds(c)'s answer for c, the child that p's legal move m makes, for any number
	 * of p's children in any order until the next bounds_node. The work the children
	 * share (Taifas: the parent's groups and components) is done once, when a child
	 * first needs it, so a caller that stops at a child that settles its node pays
	 * nothing for the children after it. Proof-number search asks it of each child of
	 * a node it expands; the proof checker asks bounds() of each leaf, and the tests
	 * compare the two child by child. NULL (both): the search calls bounds(). */
	size_t bounds_ctx_size;
	void (*bounds_node)(const struct bp_game *g, const struct bp_pos *p, void *ctx);
	int (*bounds_child)(const struct bp_game *g, void *ctx, const struct bp_pos *c,
			    struct bp_move m, int *lo, int *hi);
	/* OPTIONAL fast path for proof-number search, for the children of one node:
	 * kids_node readies ctx (kids_ctx_size bytes of the caller's, aligned as malloc's)
	 * for the children of p (a position that is not over); then, until the next
	 * kids_node, for any of p's legal moves m in any order, kids_child(g, ctx, h, c,
	 * m, &v), with c a copy of p (its first pos_words words, the rest as in p) and h
	 * p's sym_hash images, does exactly what apply(g, c, m) does, sets v to
	 * outcome(g, c) and returns sym_hash_move(g, p, h, c, NULL) for that child. One
	 * call instead of three, and what a node's children share (Chicken: the mover,
	 * its groups, the child's outcome for each loop test's answer) found once. The
	 * search makes every child it evaluates this way; the tests compare it with apply,
	 * outcome and sym_hash_move child by child. NULL (both): those three ops. */
	size_t kids_ctx_size;
	void (*kids_node)(const struct bp_game *g, const struct bp_pos *p, void *ctx);
	uint64_t (*kids_child)(const struct bp_game *g, void *ctx, const uint64_t *h,
			       struct bp_pos *c, struct bp_move m, enum bp_value *v);
	/* OPTIONAL, with the kids ops: move_count() of the child that the last kids_child
	 * on ctx made, where that call found it not over and knows the count from what it
	 * made (Mirador: the opponent's legal places, which its unbreakable test needs);
	 * -1 where it does not. The tests compare it with moves(). */
	int (*kids_move_count)(const struct bp_game *g, const void *ctx);
};

/* The most symmetries for which bp_game_ops.sym_hash is used. */
#define BP_GAME_SYM_HASH_MAX 24

/* One instance of a game. Made by bp_game_create(), read-only afterwards, so that
 * threads can share it. */
struct bp_game {
	const struct bp_game_ops *ops;
	struct bp_board *board;
	char spec[256]; /* canonical spelling: every key, sorted, with its value */
	/* Option values in ops->options order; NULL when absent. Point into valbuf. */
	const char *value[BP_GAME_MAX_OPTIONS];
	char valbuf[512];
	int max_moves;	 /* set by create: room that any move list needs */
	int nsym;	 /* set by create: number of symmetries transform() knows */
	uint32_t ntiers; /* set by create for tiered games: tiers are 0 .. ntiers-1 */
	/* set by create: bytes of the game's own tables (held while it lives), which
	 * memory plans count; 0 where they are small */
	uint64_t table_bytes;
	void *impl; /* the game's own data */
	int failed; /* bp_game_fail: the first error of an op without an error path */
	/* may be set by create: positions use words 0 .. pos_words-1 only (apply never
	 * writes past them), so that a search copies no more; 0: all BP_POS_WORDS */
	int pos_words;
	/* may be set by create: a bit (1 .. 127) clear in every key the game packs, for
	 * the enumeration's own mark beside a key (expand_key's lost); 0: none */
	int key_spare_bit;
};

/* The registry: every game family, NULL-terminated. */
extern const struct bp_game_ops *const bp_games[];

/* The family named name, or NULL. */
const struct bp_game_ops *bp_game_find(const char *name);

/* Parses a spec "GAME:BOARD[,key=value]..." and creates the instance.
 * @return BP_OK; BP_ESPEC (err names the unknown game, board, key or value);
 * BP_ENOMEM. The caller owns *out (bp_game_destroy). */
int bp_game_create(const char *spec, struct bp_game **out, struct bp_err *err);

void bp_game_destroy(struct bp_game *g);

/* Parses a spec as bp_game_create does (game, board, keys, defaults, spelling) without
 * making the instance: g->impl stays NULL and only the family ops (family_count,
 * family_list) may be called on it. For boards too big to play.
 * @return as bp_game_create. The caller owns *out (bp_game_destroy). */
int bp_game_parse_spec(const char *spec, struct bp_game **out, struct bp_err *err);

/* 1 when g's spec stands for a family of instances (see bp_game_ops.family_key). */
int bp_game_is_family(const struct bp_game *g);

/* Errors of ops that have no error path. outcome(), moves(), apply(), canonical()
 * and describe() return no code, yet a game may need memory in them (Mirador's
 * chain-breaking search does, in outcome()). Such an op calls bp_game_fail with the
 * code, returns something harmless, and the first code sticks to the instance
 * (atomically: threads share it). Whoever runs ops over many positions (the engines,
 * verify, perft, enumeration) checks bp_game_status when its work is done, before
 * storing anything, and fails with that code: a result computed after a failure is
 * never kept. g stays const: the flag is the one field that changes after create. */
void bp_game_fail(const struct bp_game *g, int code);

/* BP_OK, or the first code given to bp_game_fail. */
int bp_game_status(const struct bp_game *g);

/* The value of option key, or NULL when absent. */
const char *bp_game_option(const struct bp_game *g, const char *key);

/* Allocates room for a move list of g (g->max_moves moves). Free with free(). */
struct bp_move *bp_game_move_buffer(const struct bp_game *g);

/* Whether p's words are exactly those of a valid position of g, for positions read
 * from outside as words rather than text (a saved proof's root): p must print
 * (pos_format) to text that pos_parse accepts and reads back to the same words. Call
 * it before giving such a position to any other op. A finished position that the text
 * cannot spell (Blooms' game ended by two passes) is refused too.
 * @return BP_OK; BP_EPARSE (err says why); BP_ENOMEM. */
int bp_game_pos_check(const struct bp_game *g, const struct bp_pos *p, struct bp_err *err);

/* Called by bp_game_play_line with each move of a line before it is applied to p;
 * a non-zero return stops the line with that code. */
typedef int (*bp_game_line_fn)(void *ctx, const struct bp_game *g, const struct bp_pos *p,
			       struct bp_move m);

/* The longest move text of a line (BP_GAME_LINE_WORD - 1 characters). */
#define BP_GAME_LINE_WORD 64

/* Plays a move list from p in place: move texts separated by any character of seps
 * (a line of only separators is no move), each read by move_parse at the position it
 * is played from, given to each (when not NULL) and applied. At most max moves (0: no
 * limit). On an error p is the position before the move that failed, *number (when
 * not NULL) that move's number from 1 (0 for an error not of one move), and err says
 * "move N 'TEXT': why" (the text cut to BP_GAME_LINE_WORD characters and made
 * printable).
 * @return BP_OK; BP_EPARSE (a text too long, more than max moves, or unreadable);
 * BP_EILLEGAL (not legal there, or the game is over: no move is); BP_ENOMEM; or what
 * each returned. */
int bp_game_play_line(const struct bp_game *g, struct bp_pos *p, const char *line, const char *seps,
		      int max, bp_game_line_fn each, void *ctx, int *number, struct bp_err *err);

/* The canonical form of p: ops->canonical, or the smallest image under transform. */
void bp_game_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out);

/* The start every canonical_mask shares: checks that first..first+n-1 lies in the
 * tier and clears the ceil(n / 64) words of bits. @return BP_OK; BP_ERANGE (a range
 * outside the tier); tier_size's error. */
int bp_game_mask_begin(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
		       uint64_t *bits);

/* A canonical_mask from tier_walk, for games with BP_GAME_WALK_UNREACHED (whose walk
 * visits exactly the valid canonical positions): the bits of the indices a walk over
 * first..first+n-1 with no BP_WALK_* asked visits. @return as tier_walk. */
int bp_game_walk_mask(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
		      uint64_t *bits);

/* Whether the player to move in p has a move after which they have won at once (a win
 * in 1): 1 yes, 0 no (also when p is over). Exact both ways: the game's wins_now where
 * it has one, else every move made (into moves, room for g->max_moves) and its outcome
 * asked. Tables coded with foretold wins (solver/probe.h) are read with it, so its
 * answer for a position must never change while the rules version does not. */
int bp_game_wins_in_one(const struct bp_game *g, const struct bp_pos *p, struct bp_move *moves);

/* The number of distinct images of p under the instance's symmetries (g->nsym over
 * the symmetries that fix p: the game's sym_fixed, else transform() of each). */
uint64_t bp_game_orbit(const struct bp_game *g, const struct bp_pos *p);

/* expand_key's answer (see bp_game_ops) from key_unpack, outcome, wins_at_once and
 * children_keys in turn: what a game without expand_key does, and what a game's own
 * is tested against. */
int bp_game_expand_key_each(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			    enum bp_value *outcome, int *wins, uint32_t *ctier, uint64_t *keys,
			    uint64_t *lost);

/* Parses position text, or gives the start position when text is NULL or "start".
 * @return as ops->pos_parse. */
int bp_game_parse_position(const struct bp_game *g, const char *text, struct bp_pos *out,
			   struct bp_err *err);

static inline int bp_pos_equal(const struct bp_pos *a, const struct bp_pos *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* A 64-bit hash of a position's bytes (for hash sets; not stored on disk). */
uint64_t bp_pos_hash(const struct bp_pos *p);

#endif
