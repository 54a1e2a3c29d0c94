/* SPDX-License-Identifier: MIT */
/* Taifas on bitboards. A position is
 *
 *     w[0]  cells holding x (black) stones      cell index = y * W + x, top row first
 *     w[1]  cells holding o (white) stones
 *     w[2]  `last`: 0 '-', 1 x, 2 o
 *
 * and the player to move owns x when an even number of stones is on the board.
 *
 * Zones (7.2) are components of the cells not holding the player's stones that touch
 * one of them. They are found by bitboard flood fill: grow a set by its four shifted
 * copies (columns masked so nothing wraps) until it stops growing.
 *
 * Whether a stone of colour c "completes a zone" (tie=last-zone) is decided locally:
 * only the component C of non-c cells that contained the new stone changes. Every
 * piece of C minus the stone touches the stone, so each piece is a zone, and the
 * count rises exactly when the pieces outnumber what C contributed before (1 if it
 * already touched a c stone, else 0). */
#include "solver/games/taifas.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/count.h"
#include "canon/rank.h"
#include "canon/symmetry.h"
#include "canon/zobrist.h"
#include "solver/games/postext.h"

enum tie_rule { TIE_LAST_ZONE, TIE_LAST_STONE, TIE_DRAW };
enum score_rule { SCORE_ZONES, SCORE_FRACTION };

struct taifas {
	int n, w;
	uint64_t full, not_left, not_right; /* not_left: cells with x > 0 */
	uint64_t nbr[64], box[64];	    /* per cell: its 4 neighbours; its 3x3 box but itself */
	uint8_t joined[64];
	/* completes[A] (boards of at most COMPLETES_CELLS cells; built by the first tier
	 * walk, atomically): bit c set when a stone on empty cell c raises the zone count
	 * of the colour whose stones are A. The walk asks it once per colour and pattern
	 * instead of completes_zone once per child. */
	uint32_t *completes; /* see box_table */
	/* match_rows[a | f << w] (boards at most 8 wide; NULL on wider ones or when out of
	 * memory): independent_bound's greedy matching over one row, see there */
	uint16_t *match_rows;
	enum tie_rule tie;
	enum score_rule score;
	bp_perm64 *perm; /* every board symmetry */
	bp_zobrist *zob; /* planes x and o; `last` as the extra word (sym_hash) */
};

static const char *const tie_choices[] = { "last-zone", "last-stone", "draw", NULL };
static const char *const score_choices[] = { "zones", "fraction", NULL };
static const struct bp_option taifas_options[] = {
	{ .key = "tie",
	  .def = "last-zone",
	  .choices = tie_choices,
	  .help = "tie-break on equal scores: last-zone (the last zone's completer loses), "
		  "last-stone (the final stone's owner wins), draw" },
	{ .key = "score",
	  .def = "zones",
	  .choices = score_choices,
	  .help = "zones (count them) or fraction (a zone of n squares scores 1/n)" },
	{ 0 },
};

#define X_STONES(p) ((p)->w[0])
#define O_STONES(p) ((p)->w[1])
#define LAST(p) ((p)->w[2])

static const struct taifas *T(const struct bp_game *g)
{
	return g->impl;
}

/* grow with the board's width w given: the bounds op passes a constant (taifas_bounds),
 * a shift by which is one instruction where a shift by t->w is three. */
static inline uint64_t grow_w(const struct taifas *t, uint64_t m, int w)
{
	return (m | (m << 1 & t->not_left) | (m >> 1 & t->not_right) | m << w | m >> w) & t->full;
}

static uint64_t grow(const struct taifas *t, uint64_t m)
{
	return grow_w(t, m, t->w);
}

/* The component of region containing the cells of seed, on a board w wide (a constant
 * where the caller is inlined per width: see grow_w). */
static inline __attribute__((always_inline)) uint64_t flood_w(const struct taifas *t, int w,
							      uint64_t region, uint64_t seed)
{
	uint64_t m = seed & region, prev;
	do {
		prev = m;
		m = grow_w(t, m, w) & region;
	} while (m != prev);
	return m;
}

/* The component of region containing the cells of seed. */
static uint64_t flood(const struct taifas *t, uint64_t region, uint64_t seed)
{
	return flood_w(t, t->w, region, seed);
}

static int zones_of(const struct taifas *t, uint64_t own, int sizes[64])
{
	uint64_t region = t->full & ~own;
	int count = 0;
	while (region) {
		uint64_t comp = flood(t, region, region & -region);
		region &= ~comp;
		if (grow(t, comp) & own) {
			if (sizes)
				sizes[count] = __builtin_popcountll(comp);
			count++;
		}
	}
	return count;
}

int bp_taifas_zones(const struct bp_game *g, uint64_t x, uint64_t o, int colour)
{
	return zones_of(T(g), colour ? o : x, NULL);
}

/* Do the neighbours of cell in region lie in one component of the region within the
 * cell's 3x3 box (t->joined)? Boards at least 3 wide. */
static inline __attribute__((always_inline)) int joined_in_box(const struct taifas *t, int w,
							       uint64_t region, int cell)
{
	unsigned r = (unsigned)(cell - w - 1) & 63;
	uint64_t m = region & t->box[cell];
	m = m >> r | m << ((64 - r) & 63);
	unsigned cfg = (unsigned)((m & 7) | (m >> (w - 3) & 070) | (m >> (2 * w - 6) & 0700));
	return t->joined[cfg >> 3] >> (cfg & 7) & 1;
}

/* Does placing a stone of a colour whose stones are `own` on cell bit v raise that
 * colour's zone count? Let C be the component of non-own cells holding v. The pieces
 * of C minus v each touch v, so each is a zone after the move; before it, C was one
 * zone if it touched an own stone, else none. So the count rises exactly when
 *     there are two pieces or more, or
 *     there is one and C touched no own stone (v itself does not touch one).
 * Whether the cells next to v form one piece is first looked up from v's 3x3 box
 * (they usually join through a diagonal there; t->joined) and only then decided by a
 * flood over the board; the flood toward an own stone stops at the first one.
 *
 * Inlined per board width w (a constant in the copies completes_zone dispatches to;
 * see grow_w): this runs once per child of a proof-number search. The box comes to
 * bits 0-2, w..w+2, 2w..2w+2 by one rotation by v's cell less w + 1: the box's cells
 * all lie on the board, so the rotation moves each to its place whether that amount
 * is negative (v on the top row) or not, with no branch on its sign. */
static inline __attribute__((always_inline)) int completes_zone_w(const struct taifas *t, int w,
								  uint64_t own, uint64_t v)
{
	int cell = __builtin_ctzll(v);
	uint64_t rest = t->full & ~own & ~v;
	uint64_t touching = t->nbr[cell] & rest;
	if (!touching)
		return 0; /* no piece */
	uint64_t piece = touching, prev;
	if ((touching & (touching - 1)) != 0) {
		if (w < 3 || !joined_in_box(t, w, rest, cell)) {
			/* not joined in the box: flood until every neighbour is reached */
			piece = touching & -touching;
			do {
				prev = piece;
				piece = grow_w(t, piece, w) & rest;
			} while (piece != prev && (touching & ~piece) != 0);
			if ((touching & ~piece) != 0)
				return 1; /* two pieces or more */
		}
	}
	if (t->nbr[cell] & own)
		return 0; /* one piece; C touched an own stone at v */
	for (;;) {
		uint64_t grown = grow_w(t, piece, w);
		if (grown & own)
			return 0; /* C touched an own stone already */
		prev = piece;
		piece = grown & rest;
		if (piece == prev)
			return 1; /* one piece, and C touched no own stone: a new zone */
	}
}

/* The copy for the board's width; inlined into apply (once per child of a search, where
 * the call's own cost was a fifth of the test's), called by the tier walk. */
static inline __attribute__((always_inline)) int completes_zone_inline(const struct taifas *t,
								       uint64_t own, uint64_t v)
{
	switch (t->w) {
	case 3: return completes_zone_w(t, 3, own, v);
	case 4: return completes_zone_w(t, 4, own, v);
	case 5: return completes_zone_w(t, 5, own, v);
	case 6: return completes_zone_w(t, 6, own, v);
	case 7: return completes_zone_w(t, 7, own, v);
	case 8: return completes_zone_w(t, 8, own, v);
	default: return completes_zone_w(t, t->w, own, v);
	}
}

static int completes_zone(const struct taifas *t, uint64_t own, uint64_t v)
{
	return completes_zone_inline(t, own, v);
}

/* joined[cfg]: do the orthogonal neighbours of the centre of a 3x3 box (cfg: the
 * box's cells in the region, bit 3 * row + column, centre bit 4 clear) lie in one
 * component of the region within the box? */
static void box_table(uint8_t joined[64])
{
	static const int nbr4[4] = { 1, 3, 5, 7 };
	memset(joined, 0, 64);
	for (unsigned cfg = 0; cfg < 512; cfg++) {
		if (cfg & 16)
			continue;
		unsigned want = 0, m, prev;
		for (int i = 0; i < 4; i++)
			if (cfg >> nbr4[i] & 1)
				want |= 1u << nbr4[i];
		m = want & -want;
		do {
			prev = m;
			for (int c = 0; c < 9; c++)
				if (prev >> c & 1) {
					int r = c / 3, q = c % 3;
					if (r > 0)
						m |= 1u << (c - 3);
					if (r < 2)
						m |= 1u << (c + 3);
					if (q > 0)
						m |= 1u << (c - 1);
					if (q < 2)
						m |= 1u << (c + 1);
				}
			m &= cfg;
		} while (m != prev);
		if ((want & ~m) == 0)
			joined[cfg >> 3] |= (uint8_t)(1u << (cfg & 7));
	}
}

static int mover_colour(const struct bp_pos *p)
{
	return __builtin_popcountll(X_STONES(p) | O_STONES(p)) & 1;
}

__extension__ typedef unsigned __int128 u128;

static u128 gcd128(u128 a, u128 b)
{
	while (b) {
		u128 r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* Exact sum of 1/size over zones, as num / den, reduced. lcm(1..64) < 2^93, and at
 * most 64 zones, so everything fits in 128 bits. */
static void fraction_points(const int *sizes, int count, u128 *num, u128 *den)
{
	u128 l = 1;
	for (int i = 0; i < count; i++)
		l = l / gcd128(l, (u128)sizes[i]) * (u128)sizes[i];
	u128 s = 0;
	for (int i = 0; i < count; i++)
		s += l / (u128)sizes[i];
	u128 g = gcd128(s, l);
	*num = g ? s / g : 0;
	*den = g ? l / g : 1;
}

/* The sign of sum 1/a[i] - sum 1/b[j], exactly. The sums' denominators divide
 * lcm(1..64): cross products < 2^186 could overflow, so they are compared through the
 * common multiple instead. */
static int compare_points(const int *a, int na, const int *b, int nb)
{
	u128 n1, d1, n2, d2;
	fraction_points(a, na, &n1, &d1);
	fraction_points(b, nb, &n2, &d2);
	u128 l = d1 / gcd128(d1, d2) * d2;
	u128 x = n1 * (l / d1), y = n2 * (l / d2);
	return (x > y) - (x < y);
}

/* Score comparison for the owner of x: > 0 when x's player leads. */
static int compare_scores(const struct taifas *t, uint64_t x, uint64_t o)
{
	int sx[64], so[64];
	int zx = zones_of(t, x, sx), zo = zones_of(t, o, so);
	if (t->score == SCORE_ZONES)
		return (zx > zo) - (zx < zo);
	return compare_points(sx, zx, so, zo);
}

static enum bp_value taifas_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	const struct taifas *t = T(g);
	if ((X_STONES(p) | O_STONES(p)) != t->full)
		return BP_VALUE_NONE;
	int mover = mover_colour(p);
	int lead = compare_scores(t, X_STONES(p), O_STONES(p));
	if (mover)
		lead = -lead;
	if (lead)
		return lead > 0 ? BP_VALUE_WIN : BP_VALUE_LOSS;
	int last = (int)LAST(p) - 1; /* colour, or -1 */
	switch (t->tie) {
	case TIE_LAST_ZONE: /* the owner of the last zone-completing colour loses */
		return last < 0 ? BP_VALUE_DRAW : last == mover ? BP_VALUE_LOSS : BP_VALUE_WIN;
	case TIE_LAST_STONE: /* the owner of the final stone's colour wins */
		return last < 0 ? BP_VALUE_DRAW : last == mover ? BP_VALUE_WIN : BP_VALUE_LOSS;
	case TIE_DRAW: return BP_VALUE_DRAW;
	}
	return BP_VALUE_DRAW;
}

static void taifas_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
}

/* Move code: cell * 2 + colour (0 x, 1 o). */
static int taifas_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct taifas *t = T(g);
	uint64_t empty = t->full & ~(X_STONES(p) | O_STONES(p));
	if (!empty)
		return 0;
	int n = 0;
	while (empty) {
		uint32_t c = (uint32_t)__builtin_ctzll(empty);
		empty &= empty - 1;
		out[n++].v = c * 2;
		out[n++].v = c * 2 + 1;
	}
	return n;
}

static void taifas_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	const struct taifas *t = T(g);
	int colour = (int)(m.v & 1);
	uint64_t v = 1ull << (m.v >> 1);
	switch (t->tie) {
	case TIE_LAST_ZONE:
		/* where `last` already names the colour, the move keeps it either way: the
		 * zone test (the costliest part of a child in a proof-number search) is
		 * needed for about half the moves only */
		if (LAST(p) != (uint64_t)colour + 1 && completes_zone_inline(t, p->w[colour], v))
			LAST(p) = (uint64_t)colour + 1;
		break;
	case TIE_LAST_STONE: LAST(p) = (uint64_t)colour + 1; break;
	case TIE_DRAW: break;
	}
	p->w[colour] |= v;
}

static char taifas_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	return X_STONES(p) >> cell & 1 ? 'x' : O_STONES(p) >> cell & 1 ? 'o' : '.';
}

static void taifas_pos_format(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out)
{
	char cells[64];
	for (int c = 0; c < g->board->ncells; c++)
		cells[c] = taifas_cell_char(g, p, c);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %c", mover_colour(p) ? 'o' : 'x');
	if (T(g)->tie != TIE_DRAW)
		bp_text_printf(out, " last=%c", LAST(p) <= 2 ? "-xo"[LAST(p)] : '?');
}

static int taifas_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			    struct bp_err *err)
{
	const struct taifas *t = T(g);
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, "xo", &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	for (int c = 0; c < t->n; c++) {
		if (pt.cells[c] == 'x')
			X_STONES(out) |= 1ull << c;
		else if (pt.cells[c] == 'o')
			O_STONES(out) |= 1ull << c;
	}
	int stones = __builtin_popcountll(X_STONES(out) | O_STONES(out));
	char want = stones & 1 ? 'o' : 'x';
	if (strcmp(pt.to_move, "x") != 0 && strcmp(pt.to_move, "o") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be x or o", pt.to_move);
	if (pt.to_move[0] != want)
		return bp_err_set(err, BP_EPARSE,
				  "side to move is %s, but with %d stones on the board %c moves "
				  "(black, x, moves first and turns alternate)",
				  pt.to_move, stones, want);
	const char *last = bp_postext_key(&pt, "last");
	if (t->tie == TIE_DRAW) {
		if (last && strcmp(last, "-") != 0)
			return bp_err_set(err, BP_EPARSE,
					  "last=%s: under tie=draw the key must be - or omitted",
					  last);
	} else {
		if (!last)
			return bp_err_set(err, BP_EPARSE, "missing key 'last' (-, x or o)");
		if (strcmp(last, "-") == 0)
			LAST(out) = 0;
		else if (strcmp(last, "x") == 0)
			LAST(out) = 1;
		else if (strcmp(last, "o") == 0)
			LAST(out) = 2;
		else
			return bp_err_set(err, BP_EPARSE, "last=%s: expected -, x or o", last);
		/* the first stone always completes a zone and is the last stone so far, so
		 * '-' means an empty board, and the named colour must be on the board */
		if (stones == 0 && LAST(out))
			return bp_err_set(err, BP_EPARSE, "last=%s on an empty board (must be -)",
					  last);
		if (stones > 0 && !LAST(out))
			return bp_err_set(err, BP_EPARSE,
					  "last=- with stones on the board (must be x or o)");
		if (LAST(out) && !out->w[LAST(out) - 1])
			return bp_err_set(err, BP_EPARSE,
					  "last=%s, but there is no %s stone on the board", last,
					  last);
	}
	return bp_postext_check_keys(&pt, err);
}

static int taifas_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
			     struct bp_move *out, struct bp_err *err)
{
	int cell, used;
	if (text[0] != 'x' && text[0] != 'o')
		return bp_err_set(err, BP_EPARSE,
				  "move '%.20s' must start with the colour placed, x or o (as xc3)",
				  text);
	int rc = bp_board_cell_parse(g->board, text + 1, &cell, &used, err);
	if (rc)
		return rc;
	if (text[1 + used] != '\0')
		return bp_err_set(err, BP_EPARSE, "unexpected '%.12s' after move %.*s",
				  text + 1 + used, used + 1, text);
	if ((X_STONES(p) | O_STONES(p)) == T(g)->full)
		return bp_err_set(err, BP_EILLEGAL, "move %s: the board is full, the game is over",
				  text);
	if ((X_STONES(p) | O_STONES(p)) >> cell & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, text + 1);
	out->v = (uint32_t)cell * 2 + (text[0] == 'o');
	return BP_OK;
}

static void taifas_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
			       struct bp_text *out)
{
	char name[16];
	(void)p;
	bp_board_cell_name(g->board, (int)(m.v >> 1), name, sizeof name);
	bp_text_printf(out, "%c%s", m.v & 1 ? 'o' : 'x', name);
}

static void taifas_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			     struct bp_pos *out)
{
	const struct taifas *t = T(g);
	*out = *p;
	X_STONES(out) = bp_perm64_apply(t->perm, s, X_STONES(p));
	O_STONES(out) = bp_perm64_apply(t->perm, s, O_STONES(p));
}

static void taifas_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	*out = *p;
	bp_perm64_canonical(T(g)->perm, p->w, 2, out->w);
}

/* Tiers are stone counts. The index within tier k is
 *     ((colex rank of the occupied cells) * 2^k + (o stones among them)) * L + last - 1
 * with L = 2 under the last-* tie rules for k > 0 (last = x or o), else L = 1. The two
 * one-coloured fillings with `last` naming the absent colour are holes. */
static uint64_t last_choices(const struct taifas *t, uint32_t tier)
{
	return t->tie == TIE_DRAW || tier == 0 ? 1 : 2;
}

static uint32_t taifas_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (uint32_t)__builtin_popcountll(X_STONES(p) | O_STONES(p));
}

static int taifas_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct taifas *t = T(g);
	uint64_t s;
	if (tier > (uint32_t)t->n || tier >= 63)
		return BP_ERANGE;
	if (__builtin_mul_overflow(bp_binom(t->n, (int)tier), 1ull << tier, &s) ||
	    __builtin_mul_overflow(s, last_choices(t, tier), &s))
		return BP_ERANGE;
	*out = s;
	return BP_OK;
}

static int taifas_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct taifas *t = T(g);
	uint64_t occ = X_STONES(p) | O_STONES(p);
	uint32_t k = (uint32_t)__builtin_popcountll(occ);
	if (k >= 63)
		return BP_ERANGE; /* the index would not fit; tier_size says so too */
	uint64_t idx = (bp_rank_subset(occ) << k | bp_bits_extract(O_STONES(p), occ));
	if (last_choices(t, k) == 2)
		idx = idx * 2 + LAST(p) - 1;
	*out = idx;
	return BP_OK;
}

static int taifas_unrank(const struct bp_game *g, uint32_t tier, uint64_t index, struct bp_pos *out)
{
	const struct taifas *t = T(g);
	uint64_t size;
	int rc = taifas_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	memset(out, 0, sizeof *out);
	if (last_choices(t, tier) == 2) {
		LAST(out) = (index & 1) + 1;
		index >>= 1;
	}
	uint64_t occ = bp_unrank_subset((int)tier, index >> tier);
	O_STONES(out) = bp_bits_deposit(index & ((1ull << tier) - 1), occ);
	X_STONES(out) = occ & ~O_STONES(out);
	if (LAST(out) && !out->w[LAST(out) - 1])
		return BP_ENOTFOUND;
	return BP_OK;
}

/* ---- the tier walk: the solver's fast path ---------------------------------------
 *
 * Within tier k the index runs through the occupied sets S in colex order (which is
 * the numeric order of the bitmask), then the o pattern b (bit i: the i-th lowest
 * cell of S holds o), then `last`. The walk prepares, once per S, everything that
 * does not depend on b, then steps b by one: b - 1 -> b flips the lowest ctz(b) + 1
 * bits, so o and each symmetric image of o change by one precomputed XOR, and so does
 * the image's own pattern within its occupied set. The children of (S, b) lie in the
 * sets S | e, one per empty cell e, at pattern b with a bit inserted where e falls;
 * none of it needs a canonical form or a rank per position. */

struct walk_block {
	uint64_t occ;
	int k;
	uint64_t low[65]; /* low[j]: the lowest j cells of occ */
	/* per symmetry s: the image of occ, its rank, the images of low[j] (cells) and
	 * their bits in the pattern within that image, [j][s] so that one step's updates
	 * are contiguous */
	uint64_t socc[8], srank[8], scells[65][8], sbits[65][8];
	/* per empty cell */
	int nempty;
	uint64_t ecell[64], ebase[64], ehigh[64]; /* ehigh: pattern bits above the cell */
	int eshift[64];
};

static void walk_block_setup(const struct taifas *t, int nsym, uint64_t occ, int k,
			     struct walk_block *B)
{
	B->occ = occ;
	B->k = k;
	B->low[0] = 0;
	int j = 0;
	for (uint64_t m = occ; m; m &= m - 1, j++)
		B->low[j + 1] = B->low[j] | (m & -m);
	for (int s = 0; s < nsym; s++) {
		B->socc[s] = bp_perm64_apply(t->perm, s, occ);
		B->srank[s] = bp_rank_subset(B->socc[s]);
		B->scells[0][s] = B->sbits[0][s] = 0;
		for (j = 0; j < k; j++) {
			uint64_t img = bp_perm64_apply(t->perm, s, B->low[j + 1] ^ B->low[j]);
			int at = __builtin_popcountll(B->socc[s] & (img - 1));
			B->scells[j + 1][s] = B->scells[j][s] | img;
			B->sbits[j + 1][s] = B->sbits[j][s] | 1ull << at;
		}
	}
	B->nempty = 0;
	for (uint64_t m = t->full & ~occ; m; m &= m - 1) {
		uint64_t v = m & -m;
		int below = __builtin_popcountll(occ & (v - 1));
		B->ecell[B->nempty] = v;
		B->eshift[B->nempty] = below;
		B->ehigh[B->nempty] = ~((1ull << below) - 1);
		B->ebase[B->nempty] = bp_rank_subset(occ | v) << (k + 1);
		B->nempty++;
	}
}

#define COMPLETES_CELLS 24 /* a 64 MiB table at most */

/* The completes table, building it on first use; NULL on a larger board or when out
 * of memory (the walk then calls completes_zone). Threads that race each build one;
 * the first stored is kept. */
static const uint32_t *completes_table(const struct taifas *tc)
{
	struct taifas *t = (struct taifas *)tc; /* the one lazily set field */
	uint32_t *z = __atomic_load_n(&t->completes, __ATOMIC_ACQUIRE), *none = NULL;
	if (z || t->n > COMPLETES_CELLS)
		return z;
	if (!(z = malloc(sizeof(uint32_t) << t->n)))
		return NULL;
	for (uint64_t a = 0; a <= t->full; a++) {
		uint32_t m = 0;
		for (uint64_t e = t->full & ~a; e; e &= e - 1)
			m |= (uint32_t)completes_zone(t, a, e & -e) << __builtin_ctzll(e);
		z[a] = m;
	}
	if (!__atomic_compare_exchange_n(&t->completes, &none, z, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(z);
		z = none;
	}
	return z;
}

static int taifas_tier_walk(const struct bp_game *g, uint32_t tier, uint64_t lo, uint64_t hi,
			    unsigned what, const uint64_t *marked,
			    int (*visit)(void *ctx, const struct bp_walk *w), void *ctx)
{
	(void)marked; /* every index it visits is reached: no bits are passed */
	const struct taifas *t = T(g);
	uint64_t size;
	int rc = taifas_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (lo > hi || hi > size)
		return BP_ERANGE;
	const int k = (int)tier, nsym = g->nsym, terminal = k == t->n;
	const uint64_t L = last_choices(t, tier), nb = 1ull << k;
	struct walk_block B = { 0 };
	const uint32_t *zt = t->tie == TIE_LAST_ZONE ? completes_table(t) : NULL;
	uint64_t children[2][128], images[8], o = 0, so[8] = { 0 }, sp[8] = { 0 };
	uint64_t cur = UINT64_MAX; /* the occupied set's rank that B holds */
	int first_last = L == 2 ? 1 : 0;
	for (uint64_t pi = lo / L; pi < (hi + L - 1) / L; pi++) {
		uint64_t R = pi >> k, b = pi & (nb - 1);
		if (R != cur) {
			walk_block_setup(t, nsym, bp_unrank_subset(k, R), k, &B);
			cur = R;
			o = bp_bits_deposit(b, B.occ);
			for (int s = 0; s < nsym; s++) {
				so[s] = bp_perm64_apply(t->perm, s, o);
				sp[s] = bp_bits_extract(so[s], B.socc[s]);
			}
		} else {
			int flip = __builtin_ctzll(b) + 1;
			o ^= B.low[flip];
			for (int s = 0; s < 8; s++)
				so[s] ^= B.scells[flip][s];
			if (what & BP_WALK_IMAGES)
				for (int s = 0; s < 8; s++)
					sp[s] ^= B.sbits[flip][s];
		}
		uint64_t x = B.occ ^ o;
		int canonical = 1;
		for (int s = 1; s < nsym && canonical; s++) {
			uint64_t sx = B.socc[s] ^ so[s];
			canonical = sx > x || (sx == x && so[s] >= o);
		}
		if (!canonical)
			continue;
		/* the children of both `last` values at once: completing a zone depends on
		 * the stones only */
		int n = 0;
		uint64_t zc[2] = { zt ? zt[x] : 0, zt ? zt[o] : 0 };
		if ((what & BP_WALK_CHILDREN) && !terminal)
			for (int e = 0; e < B.nempty; e++) {
				uint64_t v = B.ecell[e];
				uint64_t pat = b + (b & B.ehigh[e]);
				for (int c = 0; c < 2; c++, n++) {
					uint64_t cpi =
						B.ebase[e] | pat | (uint64_t)c << B.eshift[e];
					switch (t->tie) {
					case TIE_LAST_ZONE:
						if (zt ? (zc[c] & v) != 0
						       : completes_zone(t, c ? o : x, v)) {
							children[0][n] = children[1][n] =
								cpi * 2 + (uint64_t)c;
						} else {
							children[0][n] = cpi * 2;
							children[1][n] = cpi * 2 + 1;
						}
						break;
					case TIE_LAST_STONE:
						children[0][n] = children[1][n] =
							cpi * 2 + (uint64_t)c;
						break;
					case TIE_DRAW: children[0][n] = children[1][n] = cpi; break;
					}
				}
			}
		for (int last = first_last; last <= (L == 2 ? 2 : 0); last++) {
			uint64_t idx = L == 2 ? pi * 2 + (uint64_t)last - 1 : pi;
			if (idx < lo || idx >= hi)
				continue;
			if ((last == 1 && !x) || (last == 2 && !o))
				continue; /* a hole: `last` names a colour not on the board */
			/* the empty board's children all have last = the stone's colour */
			struct bp_walk w = { .index = idx,
					     .nchildren = terminal ? -1 : n,
					     .children = children[last == 2] };
			if (what & BP_WALK_IMAGES) {
				for (int s = 1; s < nsym; s++)
					if (so[s] != o || (B.socc[s] ^ so[s]) != x)
						images[w.nimages++] =
							((B.srank[s] << k | sp[s]) * L) +
							(L == 2 ? (uint64_t)last - 1 : 0);
				w.images = images;
			}
			if ((rc = visit(ctx, &w)))
				return rc;
		}
	}
	return BP_OK;
}

/* The structural holes of indices first..first+n-1: the walk's loop above without
 * its children, one occupied set at a time: the images of o change by one XOR per
 * symmetry and step, and most indices fail at the first image or two. A set bit is a
 * canonical filling whose `last` names a colour on the board. About 50 us for a block
 * of 16384 indices of taifas:4x4 (bench_codec's mask_us), twice a probe's zstd decode:
 * variants that tested all 8 images without a branch (90 us) or computed the images
 * afresh instead of by XOR (60 us) were slower. */
static int taifas_canonical_mask(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
				 uint64_t *bits)
{
	const struct taifas *t = T(g);
	int rc = bp_game_mask_begin(g, tier, first, n, bits);
	if (rc)
		return rc;
	const int k = (int)tier, nsym = g->nsym;
	const uint64_t L = last_choices(t, tier), nb = 1ull << k, hi = first + n;
	/* per occupied set: its images and the images of its lowest j cells, [j][s] */
	uint64_t occ = 0, low[65], socc[8], scells[65][8];
	uint64_t o = 0, so[8] = { 0 }, cur = UINT64_MAX;
	for (uint64_t pi = first / L; pi < (hi + L - 1) / L; pi++) {
		uint64_t R = pi >> k, b = pi & (nb - 1);
		if (R != cur) {
			occ = bp_unrank_subset(k, R);
			cur = R;
			low[0] = 0;
			int j = 0;
			for (uint64_t m = occ; m; m &= m - 1, j++)
				low[j + 1] = low[j] | (m & -m);
			for (int s = 0; s < nsym; s++) {
				socc[s] = bp_perm64_apply(t->perm, s, occ);
				scells[0][s] = 0;
			}
			for (j = 0; j < k; j++)
				for (int s = 0; s < nsym; s++)
					scells[j + 1][s] =
						scells[j][s] |
						bp_perm64_apply(t->perm, s, low[j + 1] ^ low[j]);
			o = bp_bits_deposit(b, occ);
			for (int s = 0; s < nsym; s++)
				so[s] = bp_perm64_apply(t->perm, s, o);
		} else {
			int flip = __builtin_ctzll(b) + 1;
			o ^= low[flip];
			for (int s = 0; s < nsym; s++)
				so[s] ^= scells[flip][s];
		}
		/* canonical: no image (x, o) is smaller, x = the x stones */
		uint64_t x = occ ^ o;
		int canonical = 1;
		for (int s = 1; s < nsym && canonical; s++) {
			uint64_t sx = socc[s] ^ so[s];
			canonical = sx > x || (sx == x && so[s] >= o);
		}
		if (!canonical)
			continue;
		for (uint64_t last = 0; last < L; last++) {
			uint64_t idx = pi * L + last;
			if (idx < first || idx >= hi || (L == 2 && !(last ? o : x)))
				continue; /* outside, or `last` names a colour not on the board */
			bits[(idx - first) / 64] |= 1ull << (idx - first) % 64;
		}
	}
	return BP_OK;
}

/* Every filling is reachable (either player may place either colour, and only a full
 * board ends the game), and so is every `last` colour present on the board: place
 * the other colour's stones first, then this colour's, whose first stone completes a
 * zone and is also the latest stone. So the reachable positions of tier k > 0 are the
 * fillings with k stones times the colours present, and a symmetry fixes
 * 2 * (fixed fillings - fixed one-colour fillings) of them; Burnside does the rest. */
static int taifas_count_tier(const struct bp_game *g, uint32_t tier, mpz_t raw, mpz_t classes)
{
	const struct taifas *t = T(g);
	const struct bp_board *b = g->board;
	if (tier > (uint32_t)t->n)
		return BP_ERANGE;
	int rc = BP_OK;
	mpz_t *two = malloc(sizeof(mpz_t) * (size_t)(t->n + 1));
	mpz_t *one = malloc(sizeof(mpz_t) * (size_t)(t->n + 1));
	mpz_t *fixed = malloc(sizeof(mpz_t) * (size_t)b->nsym);
	if (!two || !one || !fixed) {
		free(two);
		free(one);
		free(fixed);
		return BP_ENOMEM;
	}
	for (int k = 0; k <= t->n; k++) {
		mpz_init(two[k]);
		mpz_init(one[k]);
	}
	for (int s = 0; s < b->nsym; s++) /* all first: an error leaves none uninitialized */
		mpz_init(fixed[s]);
	for (int s = 0; s < b->nsym; s++) {
		if ((rc = bp_count_fixed_fillings(b, s, 2, two)) ||
		    (rc = bp_count_fixed_fillings(b, s, 1, one)))
			break;
		if (last_choices(t, tier) == 2) {
			mpz_sub(fixed[s], two[tier], one[tier]);
			mpz_mul_ui(fixed[s], fixed[s], 2);
		} else {
			mpz_set(fixed[s], two[tier]);
		}
		if (s == 0)
			mpz_set(raw, fixed[0]);
	}
	if (!rc)
		bp_count_burnside(classes, (const mpz_t *)fixed, b->nsym);
	for (int k = 0; k <= t->n; k++) {
		mpz_clear(two[k]);
		mpz_clear(one[k]);
	}
	for (int s = 0; s < b->nsym; s++)
		mpz_clear(fixed[s]);
	free(two);
	free(one);
	free(fixed);
	return rc;
}

static void print_u128(struct bp_text *out, u128 v)
{
	char buf[48];
	int n = 0;
	do {
		buf[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	while (n)
		bp_text_printf(out, "%c", buf[--n]);
}

static void taifas_describe(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			    struct bp_text *text)
{
	const struct taifas *t = T(g);
	int sx[64], so[64];
	int zx = zones_of(t, X_STONES(p), sx), zo = zones_of(t, O_STONES(p), so);
	bp_text_printf(json, "\"zones\": {\"x\": %d, \"o\": %d}", zx, zo);
	bp_text_printf(text, "zones: x %d, o %d\n", zx, zo);
	if (t->score == SCORE_FRACTION) {
		u128 n[2], d[2];
		fraction_points(sx, zx, &n[0], &d[0]);
		fraction_points(so, zo, &n[1], &d[1]);
		bp_text_printf(json, ", \"points\": {");
		bp_text_printf(text, "points:");
		for (int c = 0; c < 2; c++) {
			bp_text_printf(json, "%s\"%c\": \"", c ? ", " : "", "xo"[c]);
			print_u128(json, n[c]);
			bp_text_printf(json, "/");
			print_u128(json, d[c]);
			bp_text_printf(json, "\"");
			bp_text_printf(text, "%s %c ", c ? "," : "", "xo"[c]);
			print_u128(text, n[c]);
			bp_text_printf(text, "/");
			print_u128(text, d[c]);
		}
		bp_text_printf(json, "}");
		bp_text_printf(text, "\n");
	}
}

static void taifas_destroy(struct bp_game *g)
{
	struct taifas *t = g->impl;
	bp_perm64_destroy(t->perm);
	bp_zobrist_destroy(t->zob);
	free(t->completes);
	free(t->match_rows);
	free(t);
	g->impl = NULL;
}

static uint16_t *match_rows_table(int w);

static int taifas_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *b = g->board;
	if (b->ncells > 64)
		return bp_err_set(err, BP_ESPEC,
				  "taifas: board %s has %d cells; at most 64 are supported",
				  b->name, b->ncells);
	struct taifas *t = calloc(1, sizeof *t);
	if (!t)
		return BP_ENOMEM;
	t->n = b->ncells;
	t->w = b->a;
	t->full = t->n == 64 ? ~0ull : (1ull << t->n) - 1;
	for (int c = 0; c < t->n; c++) {
		if (b->cells[c].q != 0)
			t->not_left |= 1ull << c;
		if (b->cells[c].q != t->w - 1)
			t->not_right |= 1ull << c;
	}
	for (int c = 0; c < t->n; c++) {
		uint64_t v = 1ull << c, row = v | (v << 1 & t->not_left) | (v >> 1 & t->not_right);
		t->nbr[c] = grow(t, v) & ~v;
		t->box[c] = (row | row << t->w | row >> t->w) & t->full & ~v;
	}
	box_table(t->joined);
	t->match_rows = match_rows_table(t->w);
	const char *tie = g->value[0], *score = g->value[1];
	t->tie = strcmp(tie, "last-zone") == 0	  ? TIE_LAST_ZONE
		 : strcmp(tie, "last-stone") == 0 ? TIE_LAST_STONE
						  : TIE_DRAW;
	t->score = strcmp(score, "fraction") == 0 ? SCORE_FRACTION : SCORE_ZONES;
	int syms[8];
	for (int s = 0; s < b->nsym; s++)
		syms[s] = s;
	int rc = bp_perm64_create(b, syms, b->nsym, &t->perm);
	if (rc) {
		free(t->match_rows);
		free(t);
		return rc;
	}
	if ((rc = bp_zobrist_create(b, 2, &t->zob))) {
		bp_perm64_destroy(t->perm);
		free(t->match_rows);
		free(t);
		return rc;
	}
	g->impl = t;
	g->max_moves = 2 * t->n;
	g->pos_words = 3; /* x, o, last */
	g->nsym = b->nsym;
	g->ntiers = (uint32_t)t->n + 1;
	return BP_OK;
}

/* Black and white stones; the pie rule is derived (BP_GAME_PIE). */
static void taifas_picture(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *out)
{
	(void)g;
	(void)p;
	out->nchars = 2;
	out->chars[0] = 'x';
	out->colour[0] = 0x1a1a1a;
	out->name[0] = "black";
	out->chars[1] = 'o';
	out->colour[1] = 0xf5f5f0;
	out->name[1] = "white";
}

/* Maximal orthogonally connected sets of one colour's stones, by flood fill. */
static int colour_groups(const struct bp_board *b, uint64_t stones)
{
	int n = 0;
	while (stones) {
		uint64_t grp = stones & -stones, frontier = grp;
		while (frontier) {
			int c = __builtin_ctzll(frontier);
			frontier &= frontier - 1;
			for (int k = 0; k < b->cells[c].degree; k++) {
				uint64_t bit = 1ull << b->cells[c].nb[k];
				if ((stones & bit) && !(grp & bit)) {
					grp |= bit;
					frontier |= bit;
				}
			}
		}
		stones &= ~grp;
		n++;
	}
	return n;
}

static int taifas_groups(const struct bp_game *g, const struct bp_pos *p, int *mover, int *other)
{
	int gx = colour_groups(g->board, X_STONES(p)), go = colour_groups(g->board, O_STONES(p));
	*mover = mover_colour(p) ? go : gx;
	*other = mover_colour(p) ? gx : go;
	return BP_OK;
}

/* Hashes of the images for proof-number search: the two stone planes, with `last`
 * (which no symmetry moves) as the extra word. */
static uint64_t taifas_sym_hash(const struct bp_game *g, const struct bp_pos *p, uint64_t *h)
{
	return bp_zobrist_hash(T(g)->zob, p->w, LAST(p), h);
}

static uint64_t taifas_sym_hash_move(const struct bp_game *g, const struct bp_pos *p,
				     const uint64_t *h, const struct bp_pos *c, uint64_t *out)
{
	/* one move places one stone: its plane and cell name the row at once, without
	 * the update's scan of the planes (this runs once per child of a search) */
	uint64_t dx = X_STONES(p) ^ X_STONES(c), d = dx | (O_STONES(p) ^ O_STONES(c));
	if (d == 0 || (d & (d - 1)) != 0)
		return bp_zobrist_update(T(g)->zob, p->w, c->w, LAST(p), LAST(c), h, out);
	int cell = __builtin_ctzll(d) * 2 + (dx == 0);
	if (!out)
		return bp_zobrist_child_key(T(g)->zob, cell, -1, LAST(p), LAST(c), h);
	return bp_zobrist_update_cells(T(g)->zob, &cell, 1, LAST(p), LAST(c), h, out);
}

/* The children of one node for proof-number search (bp_game_ops.kids_*): apply as
 * it is, and a child's key by bp_zobrist_keys' parts with the parent's `last` mixed
 * once, without finding the placed stone again from the planes. */
struct kids_keys {
	struct bp_zobrist_keys zk;
	uint64_t last, exf; /* the parent's `last` and its extra word */
	int last_cell;	    /* the parent has one empty cell */
};

static void taifas_kids_node(const struct bp_game *g, const struct bp_pos *p, void *ctx)
{
	struct kids_keys *k = ctx;
	bp_zobrist_keys(T(g)->zob, &k->zk);
	k->last = LAST(p);
	assert(k->last < BP_ZOBRIST_EXTRA_KEPT); /* 0 to 2 */
	k->exf = k->zk.ex[k->last];
	const uint64_t empty = T(g)->full & ~(X_STONES(p) | O_STONES(p));
	k->last_cell = empty && !(empty & (empty - 1));
}

static uint64_t taifas_kids_child(const struct bp_game *g, void *ctx, const uint64_t *h,
				  struct bp_pos *c, struct bp_move m, enum bp_value *v)
{
	const struct kids_keys *k = ctx;
	taifas_apply(g, c, m);
	/* over only on a full board: the child of a node with one empty cell */
	*v = k->last_cell ? taifas_outcome(g, c) : BP_VALUE_NONE;
	/* the stone on cell m.v >> 1, plane m.v & 1 (x 0, o 1), as taifas_sym_hash_move
	 * finds it from the planes */
	const uint64_t e = LAST(c) == k->last ? 0 : k->exf ^ k->zk.ex[LAST(c)];
	const uint64_t *r = k->zk.t + (size_t)m.v * BP_ZOBRIST_MAX_SYM;
	return k->zk.key[0](k->zk.nsym, h, e, r, r);
}

static int taifas_bounds(const struct bp_game *g, const struct bp_pos *p, int *lo, int *hi);
static void taifas_bounds_node(const struct bp_game *g, const struct bp_pos *p, void *ctx);
static int taifas_bounds_child(const struct bp_game *g, void *ctx, const struct bp_pos *c,
			       struct bp_move m, int *lo, int *hi);
/* bp_game_ops.bounds_ctx_size: room for struct kids (checked where it is defined) */
#define TAIFAS_KIDS_SIZE 1280

const struct bp_game_ops bp_taifas_ops = {
	.name = "taifas",
	.title = "Taifas: place either colour; most zones on the full board wins",
	.shapes = BP_SHAPE_SQUARE,
	.flags = BP_GAME_DENSE_REACHABLE | BP_GAME_PIE, /* see taifas_count_tier */
	.options = taifas_options,
	.create = taifas_create,
	.destroy = taifas_destroy,
	.start = taifas_start,
	.moves = taifas_moves,
	.apply = taifas_apply,
	.outcome = taifas_outcome,
	.pos_parse = taifas_pos_parse,
	.pos_format = taifas_pos_format,
	.cell_char = taifas_cell_char,
	.move_parse = taifas_move_parse,
	.move_format = taifas_move_format,
	.transform = taifas_transform,
	.canonical = taifas_canonical,
	.tier = taifas_tier,
	.tier_size = taifas_tier_size,
	.rank = taifas_rank,
	.unrank = taifas_unrank,
	.tier_walk = taifas_tier_walk,
	.canonical_mask = taifas_canonical_mask,
	.count_tier = taifas_count_tier,
	.describe = taifas_describe,
	.picture = taifas_picture,
	.groups = taifas_groups,
	.claims = "no-draw first-player pie fewer-groups",
	/* plain df-pn (sum/1): with the bounds it proves t55-3 in 73 M nodes, where weak/moves
	 * (session 9's advice, without the bounds) had not in 126 M nor sum/moves in 98 M
	 * (bench/dfpn_results.md, session 10: Taifas guidance with the bounds) */
	.dfpn_weak = 0,
	.dfpn_mobility = 0,
	.sym_hash = taifas_sym_hash,
	.sym_hash_move = taifas_sym_hash_move,
	.bounds = taifas_bounds,
	.kids_ctx_size = sizeof(struct kids_keys),
	.kids_node = taifas_kids_node,
	.kids_child = taifas_kids_child,
	.bounds_ctx_size = TAIFAS_KIDS_SIZE,
	.bounds_node = taifas_bounds_node,
	.bounds_child = taifas_bounds_child,
};

/* ---- bounds for proof-number search (bp_game_ops.bounds) ------------------------
 *
 * No Taifas game ends before the board is full, so without knowledge every leaf of a
 * proof lies at full depth. The bounds below decide many positions some moves earlier,
 * from the position alone.
 *
 * The argument. Let p have stones X (black) and O (white), both non-empty, and empty
 * cells E. Every filling of E is the end of some line of play from p (either player
 * may place either colour anywhere), and the value of p is the outcome of one of
 * those lines, so it lies between the least and the greatest outcome over the
 * fillings. We bound each side's score over all fillings at once:
 *
 * 1. On a full board holding both colours, black's zones are exactly white's groups
 *    (7.2: the components of the cells not black are the white groups, and each
 *    touches a black stone, the board being connected and not all white), and white's
 *    zones are black's groups. Both colours stay on the board, so this holds for every
 *    filling. Under score=zones black scores the number of white groups; under
 *    score=fraction the sum of 1/|g| over white's groups g.
 * 2. Upper bound for a colour c with stones C. A final c group either contains a
 *    current c group (at most G(C) of those: the current groups are disjoint, each
 *    lies in one final group) or consists of new stones only; such a group touches no
 *    stone of C, so it lies in F = E minus the neighbours of C, and distinct ones do
 *    not touch, so one cell of each is an independent set of F. Any matching M of F's
 *    adjacency graph (greedy here) bounds that set by |F| - |M|, at most one end of
 *    each matched pair being in it. So the final groups number at most G(C) + m,
 *    m = |F| - |M|. For the fraction: a final group holding current groups is at least
 *    as large as each, so charging it to one of them it scores at most that group's
 *    1/|g|; a group of new stones scores at most 1. So at most sum 1/|g| + m.
 * 3. Lower bound for c, with D the other colour's stones: the final c stones lie in
 *    the cells not in D, so each final group lies in one component K of those cells,
 *    and every component K holding a stone of C holds a final group, of at most |K|
 *    cells. So at least as many groups as such components, and at least the sum of
 *    1/|K| over them.
 * 4. Black's lead (black's score minus white's) is then at least lo(white's groups) -
 *    hi(black's groups) and at most hi(white's) - lo(black's), compared exactly (the
 *    sums of fractions as in compare_scores). A lead that is positive for every filling
 *    is a black win; negative, a loss. Where a filling may tie, the tie-break decides:
 *    under tie=draw a tie is a draw (0); under last-zone and last-stone a tie goes to
 *    one side or the other by `last` and the order of play, never a draw (stones are on
 *    the board, so `last` names a colour): -1 or 1, unless 6 says which.
 * 5. A second bound on the lead, coupled (a cell holds one colour, which 4 forgets):
 *    fill the empty cells one at a time in index order. A stone of colour c on cell v
 *    changes c's group count by 1 - k, k the number of c groups next to v at that
 *    moment, and the other colour's count not at all. Those groups each hold a
 *    neighbour of v: a stone of one of the a_c(v) current c groups next to v, or one of
 *    the q(v) empty neighbours that come earlier in the order, so k <= a_c(v) + q(v);
 *    and k >= 1 when a_c(v) >= 1. So black's lead, white's groups less black's, moves
 *    with cell v by
 *        as white: 1 - k in [1 - a_o - q, 1 - [a_o >= 1]]
 *        as black: k - 1 in [[a_x >= 1] - 1, a_x + q - 1]
 *    and over every filling it lies within the current difference plus the sum over
 *    the cells of the least (greatest) of these ends. Under score=zones the tighter of
 *    4 and 5 is taken at each end.
 * 6. Who wins a tie under tie=last-zone. A stone of colour c on v completes a zone
 *    exactly when the component C of non-c cells holding v falls into two pieces or
 *    more without v (completes_zone; C always touches a c stone, c being on the board,
 *    which is connected). Each piece holds a non-c neighbour of v: a stone of one of
 *    the a_d(v) groups of the other colour d next to v, or one of v's e(v) empty
 *    neighbours. As play goes on, a_d(v) + e(v) never grows (an empty neighbour that
 *    fills adds at most one group next to v and is one empty neighbour less; groups
 *    only merge). So colour c can complete a zone from here on only if some empty v
 *    has a_d(v) + e(v) >= 2 now, and the final `last` is the current one or such a
 *    colour. A tie is lost by the owner of the final `last`: if that can only be x,
 *    a tie is a black loss; only o, a black win. Under last-stone any colour can fall
 *    last, and a tie is left as either.
 * 7. With one empty cell left the value itself is taken: the mover places the last
 *    stone, of the better colour for them (the tie-break included).
 *
 * Positions with one colour only are left unbounded (a one-coloured filling scores no
 * zones for either side, outside the group identity of 1). The order of cells in 2
 * (the greedy matching) and 5 makes the bounds of symmetric positions differ at
 * times; each is sound.
 *
 * Cost. df-pn asks the op of every child of every node it expands, so it is written
 * for speed, and its answer (return code, lo and hi) must stay exactly that of its
 * first, plainer version, which tests/solver/games/test_taifas.c keeps as the
 * reference and compares on every 3x3 and 3x4 board and on samples up to 8x8: the
 * search tree, its nodes and its proofs depend on it. What makes it cheap:
 *   - the per-cell sums of 5 and the tie tests of 6 are counted in bit planes with
 *     popcounts (cell_planes, lead_sum), not cell by cell;
 *   - the greedy matching of 2 goes a row at a time through a table (match_rows);
 *   - the groups of one and two stones are counted at once; only larger ones are
 *     flooded (groups_touching);
 *   - the component counts of 4 stop where they can no longer change a sign, and are
 *     skipped where they cannot change the value (bounds_w);
 *   - the m of 2 is found only where its bounds |F| / 2 <= m <= |F| leave a test
 *     open (below_zero);
 *   - the helpers are inlined with the board's width a constant (taifas_bounds);
 *   - the children of one node take their parent's groups and components, found once
 *     (bounds_node and bounds_child, see struct kids; session 12).
 * On the positions a taifas:5x5 search meets it costs about 0.55 of its first
 * version (bench/dfpn_results.md, session 11). */

/* The op's helpers are inlined into it, so that the board's width is a constant in
 * them where taifas_bounds makes it one. */
#define BOUNDS_INLINE static inline __attribute__((always_inline))

/* The components of region holding a cell of seed, counted up to `most` (INT_MAX: all
 * of them): their number, or `most` when there are that many or more; and their sizes
 * into sizes (when not NULL). */
BOUNDS_INLINE int components(const struct taifas *t, int w, uint64_t region, uint64_t seed,
			     int most, int *sizes)
{
	int n = 0;
	for (seed &= region; seed && n < most; n++) {
		uint64_t comp = flood_w(t, w, region, seed & -seed);
		seed &= ~comp;
		if (sizes)
			sizes[n] = __builtin_popcountll(comp);
	}
	return n;
}

/* An upper bound on the largest set of pairwise non-adjacent cells of f: |f| less a
 * greedy matching of f's cells. The greedy takes the cells in index order and matches
 * each one still free with its first free neighbour after it: the next cell of its row
 * when that is in f and free, else the cell below when that is in f (nothing has
 * taken it: only the cell above a cell matches down to it). So it goes row by row,
 * each row depending only on its cells still free and the next row's cells of f, and
 * match_rows tabulates one row: the matches it makes and the cells below it that it
 * takes. Within a row that is runs of free cells paired off from their left ends, the
 * last cell of an odd run matching down where it can. */
BOUNDS_INLINE int independent_bound(const struct taifas *t, int w, uint64_t f)
{
	int n = __builtin_popcountll(f), matched = 0;
	if ((f & f >> 1 & t->not_right) == 0 && (f & f >> w) == 0)
		return n; /* no two cells of f touch: nothing to match */
	if (t->match_rows) {
		uint64_t row = (1ull << w) - 1, taken = 0;
		int first = __builtin_ctzll(f) / w; /* the rows before it hold no cell of f */
		for (uint64_t rest = f >> first * w; rest; rest >>= w) {
			unsigned e =
				t->match_rows[((rest & ~taken) & row) | ((rest >> w) & row) << w];
			matched += (int)(e >> 8);
			taken = e & 0xff;
		}
		return n - matched;
	}
	for (uint64_t left = f; left;) {
		uint64_t v = left & -left;
		left &= ~v;
		uint64_t nb = t->nbr[__builtin_ctzll(v)] & left;
		if (nb) {
			left &= ~(nb & -nb);
			matched++;
		}
	}
	return n - matched;
}

/* independent_bound's table for rows of w cells (w <= 8): at a | f << w, for the free
 * cells a of a row and the cells f of f in the next row, the matches the greedy makes
 * in the row (bits 8 up) and the cells of the next row it takes (bits 0-7). NULL when
 * w > 8 (the table would pass 128 KiB) or out of memory: the op then runs the greedy
 * itself, with the same result. */
static uint16_t *match_rows_table(int w)
{
	if (w > 8)
		return NULL;
	unsigned size = 1u << 2 * w;
	uint16_t *tab = malloc(size * sizeof *tab);
	if (!tab)
		return NULL;
	for (unsigned i = 0; i < size; i++) {
		unsigned a = i & ((1u << w) - 1), below = i >> w, taken = 0, matched = 0;
		for (int c = 0; c < w; c++) {
			if (!(a >> c & 1))
				continue;
			if (c + 1 < w && (a >> (c + 1) & 1)) {
				a &= ~(1u << (c + 1)); /* matched with the next cell */
				matched++;
			} else if (below >> c & 1) {
				taken |= 1u << c; /* matched with the cell below */
				matched++;
			}
		}
		tab[i] = (uint16_t)(matched << 8 | taken);
	}
	return tab;
}

/* The points of a colour's final groups over every filling (2 and 3 of the argument,
 * score=fraction): at least the sum of 1/lo_sizes[i] over *nlo entries, at most that of
 * 1/hi_sizes[i] over *nhi. */
BOUNDS_INLINE void points_bounds(const struct taifas *t, int w, uint64_t own, uint64_t other,
				 int *nlo, int lo_sizes[64], int *nhi, int hi_sizes[64])
{
	uint64_t empty = t->full & ~own & ~other;
	int m = independent_bound(t, w, empty & ~grow_w(t, own, w));
	*nlo = components(t, w, t->full & ~other, own, INT_MAX, lo_sizes);
	int g = components(t, w, own, own, INT_MAX, hi_sizes);
	for (int i = 0; i < m; i++)
		hi_sizes[g + i] = 1; /* g + m <= 64: the groups and F are disjoint */
	*nhi = g + m;
}

/* How many groups of one colour each empty cell touches, as counters in bit planes:
 * bit v of ge[k] is set when cell v touches more than k of them (a cell has at most
 * four neighbours). */
struct touching {
	uint64_t ge[4];
};

/* The groups of stones each empty cell touches, into *a; @return the groups. */
BOUNDS_INLINE int groups_touching(const struct taifas *t, int w, uint64_t stones, uint64_t empty,
				  struct touching *a)
{
	/* Groups of one stone and of two are counted all at once: no cell touches two
	 * stones of such a group, so each of their stones adds one to the count of each
	 * empty cell next to it (left, right, above, below). The other groups are
	 * flooded. A stone with one neighbour of its own whose neighbour has only it is
	 * half of a group of two. */
	uint64_t l = stones << 1 & t->not_left, r = stones >> 1 & t->not_right;
	uint64_t u = stones << w, d = stones >> w;
	uint64_t n1 = l | r | u | d, n2 = (l & r) | (u & d) | ((l | r) & (u | d));
	uint64_t one = stones & n1 & ~n2, single = stones & ~n1;
	uint64_t across = one & one >> 1 & t->not_right, down = one & one >> w;
	uint64_t small = single | across | across << 1 | down | down << w;
	uint64_t ge0 = 0, ge1 = 0, ge2 = 0, ge3 = 0;
	const uint64_t side[4] = { small << 1 & t->not_left, small >> 1 & t->not_right,
				   small << w & t->full, small >> w };
	for (int k = 0; k < 4; k++) {
		uint64_t m = side[k] & empty;
		ge3 |= ge2 & m;
		ge2 |= ge1 & m;
		ge1 |= ge0 & m;
		ge0 |= m;
	}
	int n = __builtin_popcountll(single) + __builtin_popcountll(across) +
		__builtin_popcountll(down);
	for (uint64_t left = stones & ~small; left; n++) {
		/* a flood from the group's first stone, keeping the last grown set: the
		 * group and the cells around it */
		uint64_t grp = grow_w(t, left & -left, w) & left, around = grow_w(t, grp, w);
		for (uint64_t next = around & left; next != grp; next = around & left) {
			grp = next;
			around = grow_w(t, grp, w);
		}
		left &= ~grp;
		uint64_t m = around & empty;
		ge3 |= ge2 & m;
		ge2 |= ge1 & m;
		ge1 |= ge0 & m;
		ge0 |= m;
	}
	*a = (struct touching){ { ge0, ge1, ge2, ge3 } };
	return n;
}

/* The empty cells and, as bit planes over them, what 5 and 6 of the argument count
 * per cell: q(v), v's empty neighbours before it in index order (the one left of it
 * and the one above: q1 when q >= 1, q2 when q = 2), and e(v), all its empty
 * neighbours (e1 when e >= 1, e2 when e >= 2). Counting in planes, not cell by cell,
 * is what makes the op cheap: the sums of 5 become a few popcounts (lead_sum). */
struct cell_planes {
	uint64_t empty, q1, q2, e1, e2;
	int n; /* empty cells */
};

BOUNDS_INLINE void cell_planes(const struct taifas *t, int w, uint64_t empty, struct cell_planes *c)
{
	/* l: the cells whose left neighbour is empty; r right, u above, d below */
	uint64_t l = empty << 1 & t->not_left, r = empty >> 1 & t->not_right;
	uint64_t u = empty << w & t->full, d = empty >> w;
	c->empty = empty;
	c->n = __builtin_popcountll(empty);
	c->q1 = (l | u) & empty;
	c->q2 = l & u & empty;
	c->e1 = (l | r | u | d) & empty;
	c->e2 = ((l & r) | (u & d) | ((l | r) & (u | d))) & empty;
}

/* The sum over the empty cells v of max(0, a(v) + q(v) + b(v) - 2), for a count a
 * given as planes (bit v of a[k] set when a(v) > k) and a 0/1 plane b. Every sum of 5
 * has this form (lead_bounds). Summing a + q + b - 2 over the cells, each cell with a
 * sum of 0 is owed 2 and each with a sum of 1 is owed 1. */
BOUNDS_INLINE int lead_sum(const struct cell_planes *c, const uint64_t a[4], uint64_t b)
{
	uint64_t e = c->empty;
	int sum = __builtin_popcountll(a[0] & e) + __builtin_popcountll(a[1] & e) +
		  __builtin_popcountll(a[2] & e) + __builtin_popcountll(a[3] & e) +
		  __builtin_popcountll(c->q1) + __builtin_popcountll(c->q2) +
		  __builtin_popcountll(b & e) - 2 * c->n;
	uint64_t zero = e & ~a[0] & ~c->q1 & ~b;
	uint64_t one = e & ((a[0] & ~a[1] & ~c->q1 & ~b) | (~a[0] & c->q1 & ~c->q2 & ~b) |
			    (~a[0] & ~c->q1 & b));
	return sum + 2 * __builtin_popcountll(zero) + __builtin_popcountll(one);
}

/* Black's lead over every filling by 5 of the argument, from the current difference d
 * and the groups of each colour next to each cell (ax, ao as in struct touching; exact
 * counts, or only "at least one" for lead_undecided): *least <= lead <= *most. Per cell,
 *     least: min(1 - a_o - q, [a_x >= 1] - 1) = -[a_x = 0] - max(0, a_o + q + [a_x >= 1] - 2)
 *     most:  max([a_o = 0], a_x + q - 1)      =  [a_o = 0] + max(0, a_x + q + [a_o >= 1] - 2)
 * (check each against a_x = 0 or not, a_o = 0 or not). */
BOUNDS_INLINE void lead_bounds(const struct cell_planes *c, const uint64_t ax[4],
			       const uint64_t ao[4], int d, int *least, int *most)
{
	*least = d - (c->n - __builtin_popcountll(ax[0] & c->empty)) - lead_sum(c, ao, ax[0]);
	*most = d + (c->n - __builtin_popcountll(ao[0] & c->empty)) + lead_sum(c, ax, ao[0]);
}

/* Bounds on the number of groups of a non-empty set s, without a flood: at most its
 * cells with no neighbour of s before them (left or above; the first cell of a group
 * is one), at least V - E + F over its cells, neighbour pairs and 2x2 blocks (the
 * Euler characteristic of the groups with their 2x2 blocks filled: the groups less
 * the independent cycles left), and at least 1. */
BOUNDS_INLINE void group_count_bounds(const struct taifas *t, int w, uint64_t s, int *lo, int *hi)
{
	uint64_t h = s & s >> 1 & t->not_right, v = s & s >> w;
	*hi = __builtin_popcountll(s & ~(s << 1 & t->not_left) & ~(s << w));
	int chi = __builtin_popcountll(s) - __builtin_popcountll(h) - __builtin_popcountll(v) +
		  __builtin_popcountll(h & v & v >> 1);
	*lo = chi > 1 ? chi : 1;
}

/* Whether max(a, k - m) < 0, or = 0 where zero_ok, for m = independent_bound(f), the m
 * of 2: first from the bounds |f| - |f| / 2 <= m <= |f| (a matching pairs off at most
 * half the cells), and only where they leave it open from m itself, found into *m
 * (-1 until found) and kept for the caller. */
BOUNDS_INLINE int below_zero(const struct taifas *t, int w, int a, int k, uint64_t f, int zero_ok,
			     int *m)
{
	int nf = __builtin_popcountll(f);
	int top = k - (nf - nf / 2), bot = k - nf; /* k - m lies in [bot, top] */
	top = a > top ? a : top;
	bot = a > bot ? a : bot;
	if (top < 0 || (top == 0 && zero_ok))
		return 1;
	if (bot > 0 || (bot == 0 && !zero_ok))
		return 0;
	if (*m < 0)
		*m = independent_bound(t, w, f);
	int v = a > k - *m ? a : k - *m;
	return v < 0 || (v == 0 && zero_ok);
}

/* 1 when 4 to 6 cannot bound the value above a loss or below a win (score=zones),
 * found without a flood: with the groups bounded as in group_count_bounds and the
 * groups next to a cell only known to be at least one where a stone is next to it,
 * the least lead of 5 is at most d_hi + sum min(1 - [o next] - q, [x next] - 1),
 * that of 4 at most d_hi - mx; the greatest lead of 5 at least d_lo + sum max([no o
 * next], [x next] + q - 1), that of 4 at least d_lo + mo. A least lead of 0 bounds
 * nothing either where a tie may be a black loss for sure: under last-stone, or under
 * last-zone where `last` is x or some empty v has [o next] + e(v) >= 2 (6); and so
 * for the greatest, the other way. */
BOUNDS_INLINE int lead_undecided(const struct taifas *t, int w, const struct bp_pos *p,
				 const struct cell_planes *c, uint64_t fx, uint64_t fo, int *mx,
				 int *mo, uint64_t grown_x, uint64_t grown_o, const int *gb)
{
	uint64_t x = X_STONES(p), o = O_STONES(p);
	int tie_loss = t->tie == TIE_LAST_STONE || (t->tie == TIE_LAST_ZONE && LAST(p) == 1);
	int tie_win = t->tie == TIE_LAST_STONE || (t->tie == TIE_LAST_ZONE && LAST(p) == 2);
	int xlo, xhi, olo, ohi;
	if (gb && gb[0] >= 0) {
		xlo = gb[0];
		xhi = gb[1];
	} else {
		group_count_bounds(t, w, x, &xlo, &xhi);
	}
	if (gb && gb[2] >= 0) {
		olo = gb[2];
		ohi = gb[3];
	} else {
		group_count_bounds(t, w, o, &olo, &ohi);
	}
	int dhi = ohi - xlo, dlo = olo - xhi;
	const uint64_t hx[4] = { grown_x }, ho[4] = { grown_o };
	int least, most;
	lead_bounds(c, hx, ho, 0, &least, &most);
	least += dhi;
	most += dlo;
	if (t->tie == TIE_LAST_ZONE) {
		tie_loss |= (c->e2 | (ho[0] & c->e1)) != 0;
		tie_win |= (c->e2 | (hx[0] & c->e1)) != 0;
	}
	/* least: max(least, dhi - mx) < 0 (or 0); most: min(most, dlo + mo) > 0 (or 0),
	 * that is max(-most, -dlo - mo) < 0 (or 0) */
	return below_zero(t, w, least, dhi, fx, tie_loss, mx) &&
	       below_zero(t, w, -most, -dlo, fo, tie_win, mo);
}

/* The value with one empty cell (6 of the argument). */
static int last_cell_value(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_move m[2];
	int best = -1;
	for (int i = 0, n = taifas_moves(g, p, m); i < n; i++) {
		struct bp_pos c = *p;
		taifas_apply(g, &c, m[i]);
		enum bp_value v = taifas_outcome(g, &c); /* for the other player */
		int mine = v == BP_VALUE_LOSS ? 1 : v == BP_VALUE_WIN ? -1 : 0;
		best = mine > best ? mine : best;
	}
	return best;
}

/* ---- the children of one node (bp_game_ops.bounds_node, bounds_child) ----
 *
 * df-pn asks the op of every child of a node it expands, and those children are the
 * node plus one stone. What the op floods is nearly the same in all of them:
 *   - the groups of each colour and the cells around each (groups_touching). A stone
 *     of colour c on v leaves the other colour's groups as they are, and joins the c
 *     groups next to v (those whose surroundings hold v) with v into one, whose
 *     surroundings are theirs and v's neighbours;
 *   - the components of the cells not of one colour d, counting those that hold a
 *     stone of the other colour c (4 of the argument). A stone of c on v leaves them
 *     as they are, and adds one where v's component held no c stone. A stone of d on
 *     v takes v out of its component K, which may fall into pieces: only K is flooded
 *     again, and not even K where v's neighbours in K join within v's 3x3 box
 *     (t->joined, as completes_zone does), for then K less v is one piece.
 * So the parent's groups and components are found once, each only when a child first
 * needs it (most children end at the flood-free filter), and each child's answer is
 * the op's own code (bounds_w) run with these counts in place of its floods: the
 * answers are exactly the op's, which the tests check child by child. Under
 * score=fraction, which needs the sizes of every group and component, and where the
 * node lacks a colour, the children take the op itself. The child comes made (the
 * search has made it, `last` and all); the move says where the stone went. */
struct kids {
	uint64_t stones[2], empty; /* the parent's: x, o; its empty cells */
	int share; /* both colours on the board, score=zones: else bounds_w per child */
	/* per colour: grow() of its stones and group_count_bounds' lo, hi (for lead_undecided:
	 * a child keeps those of the colour it did not place) */
	uint64_t grown[2];
	int gcb[2][2];
	int groups_ready; /* ng, around, tp found */
	int ng[2];	  /* groups of x, of o */
	/* per colour, per group: grow() of its stones, the group and the cells around it
	 * (groups of one colour are pairwise apart: 32 at most) */
	uint64_t around[2][32];
	struct touching tp[2]; /* groups_touching's planes over the parent's empty */
	/* per d (0 x, 1 o), the components of the cells not d (found when comps_ready[d]):
	 * comp[d][j]; bit j of holds[d] when comp j holds a stone of the other colour,
	 * held[d] of them */
	int comps_ready[2], ncomp[2], held[2];
	uint64_t holds[2], comp[2][32];
};
_Static_assert(sizeof(struct kids) <= TAIFAS_KIDS_SIZE, "TAIFAS_KIDS_SIZE: room for struct kids");

BOUNDS_INLINE void add_touching(uint64_t m, struct touching *a)
{
	a->ge[3] |= a->ge[2] & m;
	a->ge[2] |= a->ge[1] & m;
	a->ge[1] |= a->ge[0] & m;
	a->ge[0] |= m;
}

/* The parent's groups of both colours, each flooded once. */
BOUNDS_INLINE void kids_groups(const struct taifas *t, int w, struct kids *k)
{
	for (int c = 0; c < 2; c++) {
		struct touching a = { { 0, 0, 0, 0 } };
		int n = 0;
		for (uint64_t left = k->stones[c]; left; n++) {
			uint64_t grp = left & -left, around = grow_w(t, grp, w);
			for (uint64_t next = around & left; next != grp; next = around & left) {
				grp = next;
				around = grow_w(t, grp, w);
			}
			left &= ~grp;
			assert(n < 32);
			k->around[c][n] = around;
			add_touching(around & k->empty, &a);
		}
		k->ng[c] = n;
		k->tp[c] = a;
	}
	k->groups_ready = 1;
}

/* groups_touching of a child, a stone of colour col on v (bit vb), for colour c:
 * @return its groups, with the planes over the child's empty cells into *a. */
BOUNDS_INLINE int kid_touching(const struct taifas *t, struct kids *k, int c, int col, uint64_t vb,
			       struct touching *a)
{
	uint64_t empty = k->empty & ~vb;
	const struct touching *tp = &k->tp[c];
	if (c != col) {
		/* the same groups: the same cells around them, less v */
		*a = (struct touching){ { tp->ge[0] & empty, tp->ge[1] & empty, tp->ge[2] & empty,
					  tp->ge[3] & empty } };
		return k->ng[c];
	}
	if (!(tp->ge[0] & vb)) {
		/* v touches no c group: one more group, of v alone */
		*a = (struct touching){ { tp->ge[0] & empty, tp->ge[1] & empty, tp->ge[2] & empty,
					  tp->ge[3] & empty } };
		add_touching(t->nbr[__builtin_ctzll(vb)] & empty, a);
		return k->ng[c] + 1;
	}
	/* the groups next to v and v become one group, around which lie the cells around
	 * them and v's neighbours */
	uint64_t joined = t->nbr[__builtin_ctzll(vb)];
	int n = k->ng[c] + 1;
	*a = (struct touching){ { 0, 0, 0, 0 } };
	for (int j = 0; j < k->ng[c]; j++) {
		uint64_t around = k->around[c][j];
		if (around & vb) {
			joined |= around;
			n--;
		} else {
			add_touching(around & empty, a);
		}
	}
	add_touching(joined & empty, a);
	return n;
}

/* The parent's components of the cells not of colour d, each flooded once. */
BOUNDS_INLINE void kids_comps(const struct taifas *t, int w, struct kids *k, int d)
{
	uint64_t region = t->full & ~k->stones[d], seeds = k->stones[!d], holds = 0;
	int n = 0, held = 0;
	while (region) {
		uint64_t comp = flood_w(t, w, region, region & -region);
		region &= ~comp;
		assert(n < 32);
		k->comp[d][n] = comp;
		if (comp & seeds) {
			holds |= 1ull << n;
			held++;
		}
		n++;
	}
	k->ncomp[d] = n;
	k->holds[d] = holds;
	k->held[d] = held;
	k->comps_ready[d] = 1;
}

/* components(t->full & ~D, C, most, NULL) of a child, a stone of colour col on v (bit
 * vb), D the stones of colour d and C those of the other colour, by the parent's
 * components. */
BOUNDS_INLINE int kid_components(const struct taifas *t, int w, struct kids *k, int d, int col,
				 uint64_t vb, int most)
{
	if (!k->comps_ready[d])
		kids_comps(t, w, k, d);
	int j = 0;
	while (!(k->comp[d][j] & vb))
		j++;
	int n = k->held[d], holds = (int)(k->holds[d] >> j & 1);
	if (col != d) {
		n += !holds; /* the region stays; v's component now holds a stone */
	} else if (holds) {
		/* v leaves its component K, which held a stone: K less v holds one in each
		 * of its pieces that does (v held none) */
		int cell = __builtin_ctzll(vb);
		uint64_t rest = k->comp[d][j] & ~vb;
		uint64_t touching = t->nbr[cell] & rest;
		int one = (touching & (touching - 1)) == 0; /* K less v is one piece */
		if (!one && w >= 3)
			one = joined_in_box(t, w, rest, cell);
		if (!one)
			n += components(t, w, rest, k->stones[!d], INT_MAX, NULL) - 1;
	}
	return n < most ? n : most;
}

/* The op on a board w wide: inlined into taifas_bounds once per common width, with w a
 * constant there. With k (not NULL), p is a child of k's node, a stone of colour col on
 * bit vb, and the floods are k's (taifas_bounds_child). */
BOUNDS_INLINE int bounds_w(const struct bp_game *g, const struct bp_pos *p, int *lo, int *hi, int w,
			   struct kids *k, uint64_t vb, int col)
{
	const struct taifas *t = T(g);
	uint64_t x = X_STONES(p), o = O_STONES(p), empty = t->full & ~x & ~o;
	if (!x || !o || !empty)
		return 0;
	if (__builtin_popcountll(empty) == 1) {
		*lo = *hi = last_cell_value(g, p);
		return 1;
	}
	uint64_t grown_x, grown_o;
	const int *gb = NULL; /* group_count_bounds of x (gb[0] lo, gb[1] hi) and o, or -1 */
	int kgb[4];
	if (k) {
		/* the colour not placed keeps the parent's; the placed one grows by v's */
		uint64_t around_v = vb | t->nbr[__builtin_ctzll(vb)];
		grown_x = k->grown[0] | (col == 0 ? around_v : 0);
		grown_o = k->grown[1] | (col == 1 ? around_v : 0);
		kgb[0] = col == 0 ? -1 : k->gcb[0][0];
		kgb[1] = k->gcb[0][1];
		kgb[2] = col == 1 ? -1 : k->gcb[1][0];
		kgb[3] = k->gcb[1][1];
		gb = kgb;
	} else {
		grown_x = grow_w(t, x, w);
		grown_o = grow_w(t, o, w);
	}
	uint64_t fx = empty & ~grown_x, fo = empty & ~grown_o;
	/* the m of 2 for each colour (mx, mo), found only where needed: -1 until then */
	int mx = -1, mo = -1;
	struct cell_planes c;
	cell_planes(t, w, empty, &c);
	if (t->score == SCORE_ZONES &&
	    lead_undecided(t, w, p, &c, fx, fo, &mx, &mo, grown_x, grown_o, gb))
		return 0; /* the flood-free filter: nothing to decide, at a fraction of the cost */
	struct touching ax, ao;
	int gx, go;
	if (k) {
		if (!k->groups_ready)
			kids_groups(t, w, k);
		gx = kid_touching(t, k, 0, col, vb, &ax);
		go = kid_touching(t, k, 1, col, vb, &ao);
	} else {
		gx = groups_touching(t, w, x, empty, &ax);
		go = groups_touching(t, w, o, empty, &ao);
	}
	/* a tie's value for black (6 of the argument), where a tie may happen */
	int tie_lo = -1, tie_hi = 1;
	if (t->tie == TIE_DRAW) {
		tie_lo = tie_hi = 0;
	} else if (t->tie == TIE_LAST_ZONE) {
		/* colours `last` may end on (1 x, 2 o): x where some a_o(v) + e(v) >= 2 */
		unsigned may = LAST(p) == 1 ? 1u : 2u;
		may |= (ao.ge[1] | c.e2 | (ao.ge[0] & c.e1)) & empty ? 1u : 0u;
		may |= (ax.ge[1] | c.e2 | (ax.ge[0] & c.e1)) & empty ? 2u : 0u;
		tie_lo = may & 1 ? -1 : 1;
		tie_hi = may & 2 ? 1 : -1;
	}
	/* the signs of black's least and greatest lead over every filling */
	int least, most;
	if (t->score == SCORE_FRACTION) {
		int xlo, xhi, olo, ohi, xs_lo[64], xs_hi[64], os_lo[64], os_hi[64];
		points_bounds(t, w, x, o, &xlo, xs_lo, &xhi, xs_hi);
		points_bounds(t, w, o, x, &olo, os_lo, &ohi, os_hi);
		least = compare_points(os_lo, olo, xs_hi, xhi);
		most = compare_points(os_hi, ohi, xs_lo, xlo);
	} else {
		/* 5, then 4 where it can still change a sign: white's least groups (olo)
		 * less black's most (gx + mx) is at most go - gx - mx, and so on. Only the
		 * sign of the greater of the two counts, so olo is counted only up to gx +
		 * mx + 1, and not at all where it cannot change the value: at go - gx - mx
		 * = 0, 4 can take the least lead to 0 at most, which gives black a loss as
		 * a negative lead does when a tie may be a black loss (tie_lo = -1). The
		 * same for the greatest lead, the other way. */
		int cl, cm, d = go - gx;
		lead_bounds(&c, ax.ge, ao.ge, d, &cl, &cm);
		if (cl <= 0 && mx < 0)
			mx = independent_bound(t, w, fx);
		if (cm >= 0 && mo < 0)
			mo = independent_bound(t, w, fo);
		if (cl <= 0 && d - mx >= 0 && !(d - mx == 0 && tie_lo == -1)) {
			int olo = k ? kid_components(t, w, k, 0, col, vb, gx + mx + 1)
				    : components(t, w, t->full & ~x, o, gx + mx + 1, NULL);
			cl = cl > olo - gx - mx ? cl : olo - gx - mx;
		}
		if (cm >= 0 && d + mo <= 0 && !(d + mo == 0 && tie_hi == 1)) {
			int xlo = k ? kid_components(t, w, k, 1, col, vb, go + mo + 1)
				    : components(t, w, t->full & ~o, x, go + mo + 1, NULL);
			cm = cm < go + mo - xlo ? cm : go + mo - xlo;
		}
		least = (cl > 0) - (cl < 0);
		most = (cm > 0) - (cm < 0);
	}
	int blo = least > 0 ? 1 : least == 0 ? tie_lo : -1;
	int bhi = most < 0 ? -1 : most == 0 ? tie_hi : 1;
	if (mover_colour(p)) {
		*lo = -bhi;
		*hi = -blo;
	} else {
		*lo = blo;
		*hi = bhi;
	}
	return 1;
}

static int taifas_bounds(const struct bp_game *g, const struct bp_pos *p, int *lo, int *hi)
{
	switch (T(g)->w) {
	case 3: return bounds_w(g, p, lo, hi, 3, NULL, 0, 0);
	case 4: return bounds_w(g, p, lo, hi, 4, NULL, 0, 0);
	case 5: return bounds_w(g, p, lo, hi, 5, NULL, 0, 0);
	case 6: return bounds_w(g, p, lo, hi, 6, NULL, 0, 0);
	case 7: return bounds_w(g, p, lo, hi, 7, NULL, 0, 0);
	case 8: return bounds_w(g, p, lo, hi, 8, NULL, 0, 0);
	default: return bounds_w(g, p, lo, hi, T(g)->w, NULL, 0, 0);
	}
}

/* bp_game_ops.bounds_node: the parent's groups and components are found later, each
 * when a child first needs it. */
static void taifas_bounds_node(const struct bp_game *g, const struct bp_pos *p, void *ctx)
{
	const struct taifas *t = T(g);
	struct kids *k = ctx;
	k->stones[0] = X_STONES(p);
	k->stones[1] = O_STONES(p);
	k->empty = t->full & ~k->stones[0] & ~k->stones[1];
	k->share = k->stones[0] && k->stones[1] && t->score == SCORE_ZONES;
	for (int c = 0; c < 2 && k->share; c++) {
		k->grown[c] = grow(t, k->stones[c]);
		group_count_bounds(t, t->w, k->stones[c], &k->gcb[c][0], &k->gcb[c][1]);
	}
	k->groups_ready = k->comps_ready[0] = k->comps_ready[1] = 0;
	k->held[0] = k->held[1] = 0;
	k->holds[0] = k->holds[1] = 0;
}

/* bounds_w for a child, with the parent's floods where k shares them. */
BOUNDS_INLINE int bounds_child_w(const struct bp_game *g, struct kids *k, const struct bp_pos *c,
				 struct bp_move m, int *lo, int *hi, int w)
{
	if (!k->share)
		return bounds_w(g, c, lo, hi, w, NULL, 0, 0);
	return bounds_w(g, c, lo, hi, w, k, 1ull << (m.v >> 1), (int)(m.v & 1));
}

static int taifas_bounds_child(const struct bp_game *g, void *ctx, const struct bp_pos *c,
			       struct bp_move m, int *lo, int *hi)
{
	struct kids *k = ctx;
	switch (T(g)->w) {
	case 3: return bounds_child_w(g, k, c, m, lo, hi, 3);
	case 4: return bounds_child_w(g, k, c, m, lo, hi, 4);
	case 5: return bounds_child_w(g, k, c, m, lo, hi, 5);
	case 6: return bounds_child_w(g, k, c, m, lo, hi, 6);
	case 7: return bounds_child_w(g, k, c, m, lo, hi, 7);
	case 8: return bounds_child_w(g, k, c, m, lo, hi, 8);
	default: return bounds_child_w(g, k, c, m, lo, hi, T(g)->w);
	}
}
