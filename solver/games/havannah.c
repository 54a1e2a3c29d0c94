/* SPDX-License-Identifier: MIT */
/* Havannah (Christian Freeling, 1979), `havannah:hexN[,swap=no|yes]`, N = 2..5.
 *
 * Rules, after Freeling's (Havannah, 1979), as implemented:
 *  1. Two players, White (w) and Black (b), place one stone of their colour a turn on
 *     an empty cell; White moves first. Stones never move and are never removed.
 *     (White first, as in Freeling's rules, Ewalds' solutions and Morat.)
 *  2. A group is a maximal connected set of one player's stones.
 *  3. The six corner cells are the vertices of the hexagon; the six sides are the
 *     edge cells between two corners, corners excluded: a corner belongs to no side.
 *        hex3:      a1 . a3            corners a1 a3 c1 c5 e1 e3
 *                 b1 . . b4            sides   a2 | b4 | d4 | e2 | d1 | b1
 *                c1 . . . c5           (hex2 has corners only; hex5 sides of 3)
 *                 d1 . . d4
 *                  e1 . e3
 *  4. A player wins at once when a stone of theirs completes
 *     - a ring: a group that surrounds at least one cell, whatever that cell holds
 *       (empty, the opponent's or the player's own stones: "no matter whether the
 *       encircled cells are occupied"); precisely the loop test of the Glorieta games
 *       under rules version 2 (RULES.md section 3, solver/games/loops.h) with the
 *       player's stones as the group set and no ring spaces;
 *     - a bridge: a group touching two corners;
 *     - a fork: a group touching three different sides.
 *     Only the mover's structures can be completed by a turn.
 *  5. A full board without a winning structure is a draw.
 *  6. swap=yes (the pie rule, which Freeling's rules grant the second player; default
 *     no, as in the published solutions and Morat): on Black's first turn, Black may
 *     play `swap` instead of a stone: White's first stone turns black, and White moves
 *     next (players exchanging colours instead is the same game, colours renamed). The position after a swap is written as any other
 *     (the stone is a `b`); it is told apart by the counts and the side to move:
 *         no swap:    w to move with #w == #b,   b to move with #w == #b + 1
 *         a swap:     w to move with #b == #w + 1, b to move with #b == #w >= 1
 *     Under swap=no the last two are malformed.
 *
 * A position is
 *
 *     w[0]  white stones    w[2]  1 after a swap, else 0
 *     w[1]  black stones    w[3]  the outcome for the player to move (enum bp_value;
 *                                 derived, kept so that outcome() is a load)
 *
 * with cell index = drawing order. Move code: the cell, or MV_SWAP.
 *
 * Tier = turns played = stones + swapped, which every move (the swap included)
 * raises by one; the player to move is the tier's parity (0 white). Within tier t the
 * positions without a swap come first (t stones, ceil(t/2) white), then, under
 * swap=yes and t >= 2, those after a swap (t - 1 stones, ceil((t-1)/2) black):
 *
 *     off[t][k] + colex(occupied) * C(s, m) + colex(the m-colour stones within occupied)
 *
 * with k = swapped, s the stones and m the larger colour's count. Every index is a
 * position with counts that fit; those that fail the validation of pos_parse (a win
 * for the side to move, or one that no single last stone made) are holes.
 *
 * Winning after a move needs only the new stone's group: bp_loops_closes() for the
 * ring, one flood fill for the corners and sides it touches. */
#include "solver/games/havannah.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/rank.h"
#include "canon/symmetry.h"
#include "solver/games/loops.h"
#include "solver/games/postext.h"

#define MAX_N 5

struct havannah {
	struct bp_loops L;
	int n; /* cells */
	int swap;
	uint64_t corners;
	uint64_t side[6];
	bp_perm64 *perm;
	/* the same maps a byte of cells at a time, for canonical_mask: tab[(i * nbytes +
	 * byte) * 256 + v] is the image under symmetry i of the cells v of that byte */
	int nbytes;
	uint64_t *tab;
	uint64_t off[64 + 2][3]; /* off[t][0] = 0, off[t][1] swapped part, off[t][2] size */
	uint8_t too_big[64 + 2];
};

static const char *const swap_choices[] = { "no", "yes", NULL };
static const struct bp_option havannah_options[] = {
	{ .key = "swap",
	  .def = "no",
	  .choices = swap_choices,
	  .help = "yes: on black's first turn black may play `swap`, turning white's first "
		  "stone black (the pie rule)" },
	{ 0 },
};

#define WHITE(p) ((p)->w[0])
#define BLACK(p) ((p)->w[1])
#define SWAPPED(p) ((p)->w[2])
#define OVER(p) ((p)->w[3])

#define MV_SWAP 0x100u

/* What a group set holds: a bit each. */
enum { HAS_RING = 1, HAS_BRIDGE = 2, HAS_FORK = 4 };

static const struct havannah *H(const struct bp_game *g)
{
	return g->impl;
}

static int popc(uint64_t m)
{
	return __builtin_popcountll(m);
}

static uint64_t occupied(const struct bp_pos *p)
{
	return WHITE(p) | BLACK(p);
}

static int turns(const struct bp_pos *p)
{
	return popc(occupied(p)) + (int)SWAPPED(p);
}

static int to_move(const struct bp_pos *p)
{
	return turns(p) % 2; /* 0 white, 1 black */
}

/* Bridge or fork of one group. */
static unsigned group_kinds(const struct havannah *h, uint64_t grp)
{
	unsigned k = 0;
	if (popc(grp & h->corners) >= 2)
		k |= HAS_BRIDGE;
	int sides = 0;
	for (int i = 0; i < 6; i++)
		sides += (grp & h->side[i]) != 0;
	if (sides >= 3)
		k |= HAS_FORK;
	return k;
}

/* Every winning structure of a player's stones `set`. The groups are only flooded
 * when the whole set touches two corners or three sides (a group can only touch what
 * the set does). */
static unsigned kinds(const struct havannah *h, int player, uint64_t set)
{
	unsigned k = bp_loops_enclosed(&h->L, player, set) ? HAS_RING : 0;
	if (popc(set & h->corners) < 2) {
		int sides = 0;
		for (int i = 0; i < 6; i++)
			sides += (set & h->side[i]) != 0;
		if (sides < 3)
			return k;
	}
	while (set) {
		uint64_t grp = bp_loops_flood(&h->L, set, set & -set);
		set &= ~grp;
		k |= group_kinds(h, grp);
	}
	return k;
}

/* The outcome for the player to move, from both players' structures. */
static enum bp_value judge(const struct havannah *h, const struct bp_pos *p, unsigned mine,
			   unsigned theirs)
{
	if (theirs)
		return BP_VALUE_LOSS;
	if (mine) /* not in a valid position */
		return BP_VALUE_WIN;
	return occupied(p) == h->L.full ? BP_VALUE_DRAW : BP_VALUE_NONE;
}

static enum bp_value judge_full(const struct havannah *h, const struct bp_pos *p)
{
	int mover = to_move(p);
	return judge(h, p, kinds(h, mover, p->w[mover]), kinds(h, !mover, p->w[!mover]));
}

static void havannah_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
}

static int swap_allowed(const struct havannah *h, const struct bp_pos *p)
{
	return h->swap && !SWAPPED(p) && !BLACK(p) && popc(WHITE(p)) == 1;
}

static int havannah_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct havannah *h = H(g);
	if (OVER(p))
		return 0;
	int n = 0;
	for (uint64_t e = h->L.full & ~occupied(p); e; e &= e - 1)
		out[n++].v = (uint32_t)__builtin_ctzll(e);
	if (swap_allowed(h, p))
		out[n++].v = MV_SWAP;
	return n;
}

static void havannah_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	const struct havannah *h = H(g);
	if (m.v == MV_SWAP) {
		BLACK(p) = WHITE(p);
		WHITE(p) = 0;
		SWAPPED(p) = 1;
		OVER(p) = judge_full(h, p);
		return;
	}
	int mover = to_move(p), c = (int)m.v;
	uint64_t own = p->w[mover], bit = 1ull << c;
	/* the mover had no structure before: only the new stone's group can have one */
	int win = bp_loops_closes(&h->L, mover, own, c);
	own |= bit;
	p->w[mover] = own;
	if (!win)
		win = group_kinds(h, bp_loops_flood(&h->L, own, bit)) != 0;
	OVER(p) = win ? BP_VALUE_LOSS : occupied(p) == h->L.full ? BP_VALUE_DRAW : BP_VALUE_NONE;
}

/* Whether the player to move has a stone that wins at once. A lone new stone makes no
 * structure, so only empty cells next to the mover's stones count; the groups are
 * found once, and a cell's candidate group is the union of the groups it touches plus
 * itself (what apply's flood fill would find). The swap turns a stone over and wins
 * nothing. */
static int havannah_wins_now(const struct bp_game *g, const struct bp_pos *p)
{
	const struct havannah *h = H(g);
	if (OVER(p))
		return 0;
	int mover = to_move(p);
	uint64_t own = p->w[mover];
	uint64_t cand = bp_loops_grow(&h->L, own) & h->L.full & ~occupied(p);
	/* first what all the stones and candidates together could reach: most positions
	 * of a search are settled here, without finding a group */
	uint64_t all = own | cand;
	int sides = 0;
	for (int i = 0; i < 6; i++)
		sides += (all & h->side[i]) != 0;
	if (popc(all & h->corners) < 2 && sides < 3 && popc(own) < 5)
		return 0;
	uint64_t grp[64];
	int ng = 0;
	for (uint64_t set = own; set; ng++) {
		grp[ng] = bp_loops_flood(&h->L, set, set & -set);
		set &= ~grp[ng];
	}
	for (; cand; cand &= cand - 1) {
		int c = __builtin_ctzll(cand);
		uint64_t bit = 1ull << c, u = bit;
		for (int k = 0; k < ng; k++)
			if (grp[k] & h->L.nb[c])
				u |= grp[k];
		/* a ring is a group around at least one cell: six stones at least */
		if (group_kinds(h, u) || (popc(u) >= 6 && bp_loops_closes(&h->L, mover, own, c)))
			return 1;
	}
	return 0;
}

static enum bp_value havannah_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (enum bp_value)OVER(p);
}

static char havannah_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	return WHITE(p) >> cell & 1 ? 'w' : BLACK(p) >> cell & 1 ? 'b' : '.';
}

static void havannah_pos_format(const struct bp_game *g, const struct bp_pos *p,
				struct bp_text *out)
{
	char cells[64];
	for (int i = 0; i < g->board->ncells; i++)
		cells[i] = havannah_cell_char(g, p, i);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %c", "wb"[to_move(p)]);
}

static void kinds_text(unsigned k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", k & HAS_RING ? "a ring" : "",
		 k & HAS_RING && k & ~(unsigned)HAS_RING ? " and " : "",
		 k & HAS_BRIDGE ? "a bridge" : "", k & HAS_BRIDGE && k & HAS_FORK ? " and " : "",
		 k & HAS_FORK ? "a fork" : "");
}

/* The structures on the board must be ones a line of play stops at: none for the
 * player to move (the game would have ended on their last stone), and for the other
 * player only ones that their last stone completed, so some stone of theirs must
 * leave no structure when taken away. Structures only grow as stones are added, so
 * every position below a structure-free one is structure-free, and a position whose
 * counts fit and that passes this test is reachable. Sets OVER. */
static int check_position(const struct havannah *h, struct bp_pos *p, struct bp_err *err)
{
	int mover = to_move(p);
	unsigned mine = kinds(h, mover, p->w[mover]);
	unsigned theirs = kinds(h, !mover, p->w[!mover]);
	char what[64];
	if (mine) {
		kinds_text(mine, what, sizeof what);
		return bp_err_set(err, BP_EPARSE,
				  "%s, to move, already has %s: the game ended on %s's last "
				  "stone",
				  mover ? "black" : "white", what, mover ? "black" : "white");
	}
	if (theirs) {
		uint64_t set = p->w[!mover];
		int ok = 0;
		for (uint64_t s = set; s && !ok; s &= s - 1)
			ok = kinds(h, !mover, set & ~(s & -s)) == 0;
		if (!ok) {
			kinds_text(theirs, what, sizeof what);
			return bp_err_set(err, BP_EPARSE,
					  "%s has %s that no single last stone completed (the "
					  "game would have ended earlier)",
					  mover ? "white" : "black", what);
		}
	}
	OVER(p) = judge(h, p, mine, theirs);
	return BP_OK;
}

static int havannah_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			      struct bp_err *err)
{
	const struct havannah *h = H(g);
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, "wb", &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < h->n; i++) {
		if (pt.cells[i] == 'w')
			WHITE(out) |= 1ull << i;
		else if (pt.cells[i] == 'b')
			BLACK(out) |= 1ull << i;
	}
	if (strcmp(pt.to_move, "w") != 0 && strcmp(pt.to_move, "b") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be w or b", pt.to_move);
	if ((rc = bp_postext_check_keys(&pt, err)))
		return rc;
	int nw = popc(WHITE(out)), nb = popc(BLACK(out)), black = pt.to_move[0] == 'b';
	if ((!black && nw == nb) || (black && nw == nb + 1))
		SWAPPED(out) = 0;
	else if (h->swap && ((!black && nb == nw + 1) || (black && nb == nw && nb >= 1)))
		SWAPPED(out) = 1;
	else if (h->swap)
		return bp_err_set(err, BP_EPARSE,
				  "%d white and %d black stones with %s to move: white moves "
				  "first, one stone a turn, so w moves when the counts are level "
				  "and b when white has one more, or, after black's swap, w when "
				  "black has one more and b when they are level",
				  nw, nb, black ? "b" : "w");
	else
		return bp_err_set(err, BP_EPARSE,
				  "%d white and %d black stones with %s to move: white moves "
				  "first, one stone a turn, so w moves when the counts are level "
				  "and b when white has one more (swap=no)",
				  nw, nb, black ? "b" : "w");
	return check_position(h, out, err);
}

static int havannah_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
			       struct bp_move *out, struct bp_err *err)
{
	const struct havannah *h = H(g);
	if (strcmp(text, "swap") == 0) {
		if (!h->swap)
			return bp_err_set(err, BP_EILLEGAL,
					  "move swap: this game has no swap (swap=no)");
		if (OVER(p))
			return bp_err_set(err, BP_EILLEGAL, "move swap: the game is over");
		if (!swap_allowed(h, p))
			return bp_err_set(err, BP_EILLEGAL,
					  "move swap: only black's first turn, right after "
					  "white's first stone, may swap");
		out->v = MV_SWAP;
		return BP_OK;
	}
	int c, used, rc;
	if ((rc = bp_board_cell_parse(g->board, text, &c, &used, err)))
		return rc;
	if (text[used])
		return bp_err_set(err, BP_EPARSE,
				  "unexpected '%.12s' in move '%.24s' (expected a cell such as c3, "
				  "or swap)",
				  text + used, text);
	if (OVER(p))
		return bp_err_set(err, BP_EILLEGAL, "move %s: the game is over", text);
	if (occupied(p) >> c & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, text);
	out->v = (uint32_t)c;
	return BP_OK;
}

static void havannah_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
				 struct bp_text *out)
{
	(void)p;
	if (m.v == MV_SWAP) {
		bp_text_printf(out, "swap");
		return;
	}
	char name[16];
	bp_board_cell_name(g->board, (int)m.v, name, sizeof name);
	bp_text_printf(out, "%s", name);
}

static void havannah_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			       struct bp_pos *out)
{
	const struct havannah *h = H(g);
	*out = *p;
	for (int i = 0; i < 2; i++)
		out->w[i] = bp_perm64_apply(h->perm, s, p->w[i]);
}

static void havannah_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	*out = *p;
	bp_perm64_canonical(H(g)->perm, p->w, 2, out->w);
}

static uint32_t havannah_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (uint32_t)turns(p);
}

static int havannah_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct havannah *h = H(g);
	if (tier >= g->ntiers || h->too_big[tier])
		return BP_ERANGE;
	*out = h->off[tier][2];
	return BP_OK;
}

static int havannah_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct havannah *h = H(g);
	uint64_t occ = occupied(p);
	int t = turns(p), s = popc(occ), k = (int)SWAPPED(p);
	if (h->too_big[t])
		return BP_ERANGE;
	/* the colour with ceil(s/2) stones: white without a swap, black after one */
	uint64_t major = k ? BLACK(p) : WHITE(p);
	int m = (s + 1) / 2;
	*out = h->off[t][k] + bp_rank_subset(occ) * bp_binom(s, m) +
	       bp_rank_subset(bp_bits_extract(major, occ));
	return BP_OK;
}

static int havannah_unrank(const struct bp_game *g, uint32_t tier, uint64_t index,
			   struct bp_pos *out)
{
	const struct havannah *h = H(g);
	uint64_t size;
	int rc = havannah_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	int k = index >= h->off[tier][1];
	int s = (int)tier - k, m = (s + 1) / 2;
	index -= h->off[tier][k];
	uint64_t cm = bp_binom(s, m);
	uint64_t occ = bp_unrank_subset(s, index / cm);
	if (occ & ~h->L.full)
		return BP_ENOTFOUND;
	uint64_t major = bp_bits_deposit(bp_unrank_subset(m, index % cm), occ);
	memset(out, 0, sizeof *out);
	SWAPPED(out) = (uint64_t)k;
	WHITE(out) = k ? occ & ~major : major;
	BLACK(out) = occ & ~WHITE(out);
	return check_position(h, out, NULL) ? BP_ENOTFOUND : BP_OK;
}

/* ---- the structural holes: canonical_mask -----------------------------------------
 *
 * The indices of a part (no swap, swap) of a tier run over the occupied sets in colex
 * order and, within each, over the m-subsets of the larger colour in colex order; the
 * colex order of sets of one size is their numeric order, so both step to the next
 * larger set of as many cells: the occupied set as a word, the larger colour among
 * the occupied cells (its lowest run of stones there carries into the next occupied
 * cell that is not its own, and the rest of the run drops to the lowest occupied
 * cells), without a deposit per index. An index is a valid canonical position
 * when no board symmetry makes (white, black) smaller, which most fail at the first
 * image or two, and when unrank()'s validation (check_position) passes, which is
 * asked of the canonical ones only. About 0.39 ms a block of 16384 indices of hex3
 * (bench_codec's mask_us), of which about half is the validation. */

/* The next larger word with as many set bits as x (x != 0). */
static uint64_t next_same_popcount(uint64_t x)
{
	uint64_t low = x & -x, r = x + low;
	return r | ((r ^ x) >> (__builtin_ctzll(x) + 2));
}

static inline uint64_t sym_image(const struct havannah *h, int i, uint64_t m)
{
	const uint64_t *t = h->tab + (size_t)i * (size_t)h->nbytes * 256;
	uint64_t r = t[m & 255];
	for (int k = 1; k < h->nbytes; k++)
		r |= t[k * 256 + (m >> (8 * k) & 255)];
	return r;
}

/* Is (white, black) its own canonical form (bp_perm64_canonical's order)? */
static int planes_least(const struct havannah *h, int nsym, uint64_t white, uint64_t black)
{
	for (int i = 1; i < nsym; i++) {
		uint64_t w = sym_image(h, i, white);
		if (w < white || (w == white && sym_image(h, i, black) < black))
			return 0;
	}
	return 1;
}

static int havannah_canonical_mask(const struct bp_game *g, uint32_t tier, uint64_t first,
				   uint32_t n, uint64_t *bits)
{
	const struct havannah *h = H(g);
	int rc = bp_game_mask_begin(g, tier, first, n, bits);
	if (rc)
		return rc;
	for (int k = 0; k < 2; k++) {
		uint64_t from = h->off[tier][k], to = h->off[tier][k + 1];
		uint64_t lo = first > from ? first : from, end = first + n < to ? first + n : to;
		if (lo >= end)
			continue;
		int s = (int)tier - k, m = (s + 1) / 2;
		uint64_t cm = bp_binom(s, m), r = (lo - from) % cm, low[65];
		uint64_t occ = bp_unrank_subset(s, (lo - from) / cm), major = 0;
		for (uint64_t idx = lo;; idx++) {
			if (idx == lo || r == 0) { /* a new occupied set */
				low[0] = 0;
				int j = 0;
				for (uint64_t x = occ; x; x &= x - 1, j++)
					low[j + 1] = low[j] | (x & -x);
				major = idx == lo ? bp_bits_deposit(bp_unrank_subset(m, r), occ)
						  : low[m];
			}
			uint64_t white = k ? occ & ~major : major, black = occ & ~white;
			if (planes_least(h, g->nsym, white, black)) {
				struct bp_pos p;
				memset(&p, 0, sizeof p);
				SWAPPED(&p) = (uint64_t)k;
				WHITE(&p) = white;
				BLACK(&p) = black;
				if (check_position(h, &p, NULL) == BP_OK)
					bits[(idx - first) / 64] |= 1ull << (idx - first) % 64;
			}
			if (idx + 1 == end)
				break;
			if (++r < cm) { /* the next m-subset of occ */
				uint64_t up = ((major | ~occ) + (major & -major)) & occ;
				major = up | low[popc(major & ~up) - 1];
			} else {
				r = 0;
				occ = next_same_popcount(occ);
			}
		}
	}
	return BP_OK;
}

static void list_cells(const struct bp_board *b, uint64_t m, struct bp_text *json,
		       struct bp_text *text)
{
	char name[16];
	bp_text_printf(json, "[");
	for (int first = 1; m; m &= m - 1, first = 0) {
		bp_board_cell_name(b, __builtin_ctzll(m), name, sizeof name);
		bp_text_printf(json, "%s\"%s\"", first ? "" : ", ", name);
		bp_text_printf(text, " %s", name);
	}
	bp_text_printf(json, "]");
}

/* Rings through bp_loops_describe; bridges and forks as the cells of the groups that
 * make them, a list per player. */
static void havannah_describe(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			      struct bp_text *text)
{
	const struct havannah *h = H(g);
	const uint64_t sets[2] = { WHITE(p), BLACK(p) };
	bp_loops_describe(&h->L, g->board, sets, "wb", json, text);
	static const char *const kind_name[2] = { "bridges", "forks" };
	for (int kd = 0; kd < 2; kd++) {
		bp_text_printf(json, ", \"%s\": {", kind_name[kd]);
		for (int pl = 0; pl < 2; pl++) {
			uint64_t cells = 0;
			int count = 0;
			for (uint64_t set = sets[pl]; set;) {
				uint64_t grp = bp_loops_flood(&h->L, set, set & -set);
				set &= ~grp;
				if (group_kinds(h, grp) & (kd ? HAS_FORK : HAS_BRIDGE)) {
					cells |= grp;
					count++;
				}
			}
			bp_text_printf(json, "%s\"%c\": {\"%s\": %d, \"cells\": ", pl ? ", " : "",
				       "wb"[pl], kind_name[kd], count);
			bp_text_printf(text, "%s %c:  %d", kind_name[kd], "wb"[pl], count);
			struct bp_text sink = { 0 };
			if (count)
				bp_text_printf(text, ", cells");
			list_cells(g->board, cells, json, count ? text : &sink);
			bp_text_free(&sink);
			bp_text_printf(json, "}");
			bp_text_printf(text, "\n");
		}
		bp_text_printf(json, "}");
	}
}

static void havannah_destroy(struct bp_game *g)
{
	struct havannah *h = g->impl;
	bp_perm64_destroy(h->perm);
	free(h->tab);
	free(h);
	g->impl = NULL;
}

/* Corners and sides from axial coordinates: on hexN with k = N - 1, an edge cell has
 * one of |q|, |r|, |q + r| equal to k; a corner has two. A side is named by the
 * coordinate that is at +-k along it. */
static void find_corners(struct havannah *h, const struct bp_board *b)
{
	int k = b->a - 1;
	for (int c = 0; c < b->ncells; c++) {
		int q = b->cells[c].q, r = b->cells[c].r, s = -q - r;
		int at[3] = { q == k || q == -k, r == k || r == -k, s == k || s == -k };
		int sign[3] = { q > 0, r > 0, s > 0 };
		int edges = at[0] + at[1] + at[2];
		if (edges >= 2)
			h->corners |= 1ull << c;
		else if (edges == 1)
			for (int i = 0; i < 3; i++)
				if (at[i])
					h->side[2 * i + sign[i]] |= 1ull << c;
	}
}

static int havannah_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *b = g->board;
	if (b->a > MAX_N)
		return bp_err_set(err, BP_ESPEC,
				  "havannah: board %s is too big; hex2 to hex%d are supported "
				  "(at most 64 cells)",
				  b->name, MAX_N);
	struct havannah *h = calloc(1, sizeof *h);
	if (!h)
		return BP_ENOMEM;
	int rc = bp_loops_init(&h->L, b, NULL);
	if (rc) {
		free(h);
		return rc;
	}
	h->n = b->ncells;
	h->swap = strcmp(g->value[0], "yes") == 0;
	find_corners(h, b);
	int ntiers = h->n + 1 + h->swap;
	for (int t = 0; t < ntiers; t++) {
		uint64_t acc = 0;
		for (int k = 0; k < 2; k++) {
			h->off[t][k] = acc;
			int s = t - k;
			if ((k && (!h->swap || t < 2)) || s > h->n)
				continue;
			uint64_t part;
			if (__builtin_mul_overflow(bp_binom(h->n, s), bp_binom(s, (s + 1) / 2),
						   &part) ||
			    __builtin_add_overflow(acc, part, &acc))
				h->too_big[t] = 1;
		}
		h->off[t][2] = acc;
	}
	int syms[12];
	for (int s = 0; s < b->nsym; s++)
		syms[s] = s;
	if ((rc = bp_perm64_create(b, syms, b->nsym, &h->perm))) {
		free(h);
		return rc;
	}
	h->nbytes = (h->n + 7) / 8;
	h->tab = malloc((size_t)b->nsym * (size_t)h->nbytes * 256 * sizeof *h->tab);
	if (!h->tab) {
		bp_perm64_destroy(h->perm);
		free(h);
		return BP_ENOMEM;
	}
	for (int i = 0; i < b->nsym; i++)
		for (int k = 0; k < h->nbytes; k++)
			for (int v = 0; v < 256; v++)
				h->tab[((size_t)i * (size_t)h->nbytes + (size_t)k) * 256 +
				       (size_t)v] =
					bp_perm64_apply(h->perm, i,
							(uint64_t)v << (8 * k) & h->L.full);
	g->impl = h;
	g->max_moves = h->n + 1;
	g->nsym = b->nsym;
	g->ntiers = (uint32_t)ntiers;
	return BP_OK;
}

const struct bp_game_ops bp_havannah_ops = {
	.name = "havannah",
	.title = "Havannah (Freeling): one stone a turn; a ring, bridge or fork wins",
	.shapes = BP_SHAPE_HEX,
	.options = havannah_options,
	.create = havannah_create,
	.destroy = havannah_destroy,
	.start = havannah_start,
	.moves = havannah_moves,
	.apply = havannah_apply,
	.outcome = havannah_outcome,
	.pos_parse = havannah_pos_parse,
	.pos_format = havannah_pos_format,
	.cell_char = havannah_cell_char,
	.move_parse = havannah_move_parse,
	.move_format = havannah_move_format,
	.transform = havannah_transform,
	.canonical = havannah_canonical,
	.tier = havannah_tier,
	.tier_size = havannah_tier_size,
	.rank = havannah_rank,
	.unrank = havannah_unrank,
	.canonical_mask = havannah_canonical_mask,
	.describe = havannah_describe,
	.wins_now = havannah_wins_now,
};
