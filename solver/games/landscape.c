/* SPDX-License-Identifier: MIT */
/* Landscape on bitboards. A position is
 *
 *     w[0]  black stones (b)     w[2]  neutral stones (n), the layout
 *     w[1]  orange stones (o)    w[3]  the outcome for the player to move (derived)
 *
 * and black is to move exactly when the colours are level. With `layout=` the
 * neutral cells are fixed and positions are canonicalized by the symmetries that map
 * the layout onto itself. Without it, positions of any valid layout are accepted and
 * ranked (the layout is part of the index), and the start position is the layout
 * that comes first in colex order (the smallest cell set read as a binary number);
 * the symmetries are still only those keeping that start layout, so that the
 * positions reachable from the start are closed under them and `count` stays exact.
 * Solving "every layout" means one instance per class that `boardproof layouts`
 * lists.
 *
 * Move code: the cell.
 *
 * Ranking (tier = friendly stones t; o = t / 2 of them orange), with F the free cells
 * (not neutral) and f = |F|:
 *
 *     index = colex(occupied within F) * C(t, o) + colex(orange within occupied)
 *
 * and without a fixed layout, colex(neutrals) * C(f, t) * C(t, o) is added, with holes
 * for neutral sets that are not layouts. */
#include "solver/games/landscape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/count.h"
#include "canon/rank.h"
#include "canon/symmetry.h"
#include "solver/games/cellsets.h"
#include "solver/games/chicken.h"
#include "solver/games/loops.h"
#include "solver/games/postext.h"
#include "solver/games/setrank.h"

struct landscape {
	struct bp_loops L;
	int n, k;
	int fixed;	 /* layout= given */
	uint64_t layout; /* the fixed layout, or the start layout */
	int both_mover;
	bp_perm64 *perm;
	bp_perm64 *all; /* every symmetry of the board: finding a layout's class */
	/* the tier walk's: its table of cell sets under perm (built by the first walk),
	 * colex ranks by bytes, binomials, and each cell's image under perm's s */
	uint16_t *sets;
	uint8_t sub8[256];   /* canonical_mask: the bytes by popcount, each in numeric order */
	uint16_t sub8_at[9]; /* where each popcount's begin in sub8 */
	struct bp_setrank crank;
	uint64_t binom[66][66];
	uint8_t cimg[12][64];
	char layout_text[512];
};

static const char *const both_choices[] = { "mover", "opponent", NULL };
static const struct bp_option landscape_options[] = {
	{ .key = "both",
	  .def = "mover",
	  .choices = both_choices,
	  .help = "who wins when one turn forms loops for both players (cannot happen here)" },
	{ .key = "layout", .help = "the neutral cells, as a1;c2;e3 (omitted: every layout)" },
	{ .key = "neutrals",
	  .required = 1,
	  .help = "K, the number of neutral stones, on pairwise non-adjacent cells" },
	{ 0 },
};

#define BLACK(p) ((p)->w[0])
#define ORANGE(p) ((p)->w[1])
#define NEUTRAL(p) ((p)->w[2])
#define OVER(p) ((p)->w[3])

static const struct landscape *LS(const struct bp_game *g)
{
	return g->impl;
}

static int popc(uint64_t m)
{
	return __builtin_popcountll(m);
}

static int to_move(const struct bp_pos *p)
{
	return popc(BLACK(p)) > popc(ORANGE(p));
}

static int independent(const struct bp_loops *L, uint64_t set)
{
	for (uint64_t s = set; s; s &= s - 1)
		if (L->nb[__builtin_ctzll(s)] & set)
			return 0;
	return 1;
}

static enum bp_value judge(const struct landscape *ls, const struct bp_pos *p, int loop_b,
			   int loop_o)
{
	int mover = to_move(p);
	int mine = mover ? loop_o : loop_b, theirs = mover ? loop_b : loop_o;
	if (mine && theirs)
		return ls->both_mover ? BP_VALUE_LOSS : BP_VALUE_WIN;
	if (mine)
		return BP_VALUE_WIN;
	if (theirs)
		return BP_VALUE_LOSS;
	if ((BLACK(p) | ORANGE(p) | NEUTRAL(p)) == ls->L.full)
		return BP_VALUE_DRAW;
	return BP_VALUE_NONE;
}

static void landscape_start(const struct bp_game *g, struct bp_pos *out)
{
	memset(out, 0, sizeof *out);
	NEUTRAL(out) = LS(g)->layout;
}

static int landscape_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	if (OVER(p))
		return 0;
	int n = 0;
	for (uint64_t e = LS(g)->L.full & ~(BLACK(p) | ORANGE(p) | NEUTRAL(p)); e; e &= e - 1)
		out[n++].v = (uint32_t)__builtin_ctzll(e);
	return n;
}

static void landscape_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	const struct landscape *ls = LS(g);
	int mover = to_move(p);
	int loop = bp_loops_closes(&ls->L, mover, p->w[mover] | NEUTRAL(p), (int)m.v);
	p->w[mover] |= 1ull << m.v;
	OVER(p) = judge(ls, p, mover ? 0 : loop, mover ? loop : 0);
}

static enum bp_value landscape_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (enum bp_value)OVER(p);
}

static char landscape_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	return BLACK(p) >> cell & 1	? 'b'
	       : ORANGE(p) >> cell & 1	? 'o'
	       : NEUTRAL(p) >> cell & 1 ? 'n'
					: '.';
}

static void landscape_pos_format(const struct bp_game *g, const struct bp_pos *p,
				 struct bp_text *out)
{
	char cells[64];
	for (int i = 0; i < g->board->ncells; i++)
		cells[i] = landscape_cell_char(g, p, i);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %c", "bo"[to_move(p)]);
}

/* Checks everything but the side-to-move character, and fills in the outcome.
 * Loops: a turn drops one stone of the mover's colour, so it can form only the
 * mover's loop; the player to move can never own one. */
static int check_position(const struct landscape *ls, const struct bp_game *g, struct bp_pos *p,
			  struct bp_err *err)
{
	int b = popc(BLACK(p)), o = popc(ORANGE(p));
	int k = popc(NEUTRAL(p));
	if (k != ls->k)
		return bp_err_set(err, BP_EPARSE, "%d neutral stones, but the instance has %d", k,
				  ls->k);
	if (ls->fixed && NEUTRAL(p) != ls->layout)
		return bp_err_set(err, BP_EPARSE, "the neutral stones are not on the layout %s",
				  ls->layout_text);
	if (!independent(&ls->L, NEUTRAL(p))) {
		char a[16] = "", c[16] = "";
		for (uint64_t s = NEUTRAL(p); s; s &= s - 1) {
			int x = __builtin_ctzll(s);
			uint64_t adj = ls->L.nb[x] & NEUTRAL(p);
			if (adj) {
				bp_board_cell_name(g->board, x, a, sizeof a);
				bp_board_cell_name(g->board, __builtin_ctzll(adj), c, sizeof c);
				break;
			}
		}
		return bp_err_set(err, BP_EPARSE,
				  "neutral stones on %s and %s are adjacent (a layout has no two "
				  "adjacent)",
				  a, c);
	}
	if (b != o && b != o + 1)
		return bp_err_set(err, BP_EPARSE,
				  "%d black and %d orange stones: each turn drops one stone, black "
				  "first, so black has as many as orange or one more",
				  b, o);
	int lb = bp_loops_enclosed(&ls->L, 0, BLACK(p) | NEUTRAL(p)) != 0;
	int lo = bp_loops_enclosed(&ls->L, 1, ORANGE(p) | NEUTRAL(p)) != 0;
	int mover = to_move(p);
	if (mover ? lo : lb)
		return bp_err_set(err, BP_EPARSE,
				  "%s, the player to move, has a loop: only the player who just "
				  "moved can have formed one",
				  mover ? "orange" : "black");
	OVER(p) = judge(ls, p, lb, lo);
	return BP_OK;
}

static int landscape_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			       struct bp_err *err)
{
	const struct landscape *ls = LS(g);
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, "bon", &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < ls->n; i++) {
		const char *k = strchr("bon", pt.cells[i]);
		if (pt.cells[i] != '.' && k)
			out->w[k - "bon"] |= 1ull << i;
	}
	if (strcmp(pt.to_move, "b") != 0 && strcmp(pt.to_move, "o") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be b or o", pt.to_move);
	if ((rc = bp_postext_check_keys(&pt, err)))
		return rc;
	if ((rc = check_position(ls, g, out, err)))
		return rc;
	char want = "bo"[to_move(out)];
	if (pt.to_move[0] != want)
		return bp_err_set(err, BP_EPARSE,
				  "side to move is %s, but with %d black and %d orange stones %c "
				  "moves (black first, one stone a turn)",
				  pt.to_move, popc(BLACK(out)), popc(ORANGE(out)), want);
	return BP_OK;
}

static int landscape_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
				struct bp_move *out, struct bp_err *err)
{
	int cell, used;
	int rc = bp_board_cell_parse(g->board, text, &cell, &used, err);
	if (rc)
		return rc;
	if (text[used])
		return bp_err_set(err, BP_EPARSE,
				  "unexpected '%.12s' after move %.*s (one cell, as c3)",
				  text + used, used, text);
	if (OVER(p))
		return bp_err_set(err, BP_EILLEGAL, "move %s: the game is over", text);
	if (NEUTRAL(p) >> cell & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s holds a neutral stone", text,
				  text);
	if ((BLACK(p) | ORANGE(p)) >> cell & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, text);
	out->v = (uint32_t)cell;
	return BP_OK;
}

static void landscape_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
				  struct bp_text *out)
{
	char name[16];
	(void)p;
	bp_board_cell_name(g->board, (int)m.v, name, sizeof name);
	bp_text_printf(out, "%s", name);
}

static void landscape_transform(const struct bp_game *g, const struct bp_pos *p, int s,
				struct bp_pos *out)
{
	const struct landscape *ls = LS(g);
	*out = *p;
	for (int i = 0; i < 3; i++)
		out->w[i] = bp_perm64_apply(ls->perm, s, p->w[i]);
}

static void landscape_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	*out = *p;
	bp_perm64_canonical(LS(g)->perm, p->w, 3, out->w);
}

static uint32_t landscape_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (uint32_t)popc(BLACK(p) | ORANGE(p));
}

static int per_layout(const struct landscape *ls, uint32_t tier, uint64_t *out)
{
	int f = ls->n - ls->k, t = (int)tier;
	if (t > f)
		return BP_ERANGE;
	if (__builtin_mul_overflow(bp_binom(f, t), bp_binom(t, t / 2), out))
		return BP_ERANGE;
	return BP_OK;
}

static int landscape_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct landscape *ls = LS(g);
	int rc = per_layout(ls, tier, out);
	if (rc || ls->fixed)
		return rc;
	return __builtin_mul_overflow(*out, bp_binom(ls->n, ls->k), out) ? BP_ERANGE : BP_OK;
}

static int landscape_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct landscape *ls = LS(g);
	uint64_t occ = BLACK(p) | ORANGE(p), size;
	int t = popc(occ);
	int rc = landscape_tier_size(g, (uint32_t)t, &size);
	if (rc)
		return rc;
	uint64_t free_ = ls->L.full & ~NEUTRAL(p);
	uint64_t idx = bp_rank_subset(bp_bits_extract(occ, free_)) * bp_binom(t, t / 2) +
		       bp_rank_subset(bp_bits_extract(ORANGE(p), occ));
	if (!ls->fixed) {
		uint64_t per = 0;
		per_layout(ls, (uint32_t)t, &per);
		idx += bp_rank_subset(NEUTRAL(p)) * per;
	}
	*out = idx;
	return BP_OK;
}

static int landscape_unrank(const struct bp_game *g, uint32_t tier, uint64_t index,
			    struct bp_pos *out)
{
	const struct landscape *ls = LS(g);
	uint64_t size, per = 0;
	int rc = landscape_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	per_layout(ls, tier, &per);
	memset(out, 0, sizeof *out);
	NEUTRAL(out) = ls->fixed ? ls->layout : bp_unrank_subset(ls->k, index / per);
	index %= per;
	int t = (int)tier;
	uint64_t co = bp_binom(t, t / 2);
	uint64_t free_ = ls->L.full & ~NEUTRAL(out);
	uint64_t occ = bp_bits_deposit(bp_unrank_subset(t, index / co), free_);
	ORANGE(out) = bp_bits_deposit(bp_unrank_subset(t / 2, index % co), occ);
	BLACK(out) = occ & ~ORANGE(out);
	return check_position(ls, g, out, NULL) ? BP_ENOTFOUND : BP_OK;
}

static void landscape_describe(const struct bp_game *g, const struct bp_pos *p,
			       struct bp_text *json, struct bp_text *text)
{
	const uint64_t sets[2] = { BLACK(p) | NEUTRAL(p), ORANGE(p) | NEUTRAL(p) };
	bp_loops_describe(&LS(g)->L, g->board, sets, "bo", json, text);
}

/* ---- the tier walk: the solver's fast path ---------------------------------------
 *
 * One stone a turn, so every move leads from tier t to t + 1, and rank() covers every
 * position of a layout, canonical or not. The walk steps through the indices of the
 * start layout's block, keeps the canonical positions that are valid (the player to
 * move has no loop) and reachable, and lists their children as ranks of the child's
 * own stones: no canonical form and no check per child.
 *
 * Reachable, without a search: adding stones never breaks a loop, so every position
 * without a loop is reached (any order of its stones, black first, passes only through
 * positions without loops), and a position where the player who just moved has a loop
 * is reached exactly when removing one of that player's stones leaves no loop (that
 * parent is reached, and the game was not over there). The tiers engine marks the
 * same set by search; the tests compare both tables. */

/* The index of p in its tier, given its occupied set and tier (no checks). */
static uint64_t walk_rank(const struct landscape *ls, uint64_t occ, uint64_t orange, int t,
			  uint64_t base)
{
	uint64_t free_ = ls->L.full & ~ls->layout;
	return base + bp_rank_subset(bp_bits_extract(occ, free_)) * bp_binom(t, t / 2) +
	       bp_rank_subset(bp_bits_extract(orange, occ));
}

/* What the walk prepares once per occupied set: its cells, per empty cell the part of
 * a child's index that depends on the occupied set only, and (when the first position
 * of the set asks for images) per symmetry the part of an image's index that depends
 * on it, and where each of its cells goes in the image's pattern.
 *
 * A child's orange pattern within its occupied set is the position's pattern b with
 * the bits at and above the empty cell's slot sh moved up one, plus bit sh when orange
 * moves. The colex rank of {q_0 < q_1 < ...} is sum_i C(q_i, i + 1), so the child's is
 * a prefix sum over the q_i below sh, the added term C(sh, jo + 1) (jo of them below),
 * and a suffix sum of C(q_i + 1, i + 1 + mover) above: two sums per position
 * (lwalk_pos), O(1) per child. */
struct lwalk_block {
	uint64_t occ;
	uint64_t cell[64]; /* cell[j]: the j-th lowest cell of occ */
	int nempty;
	uint64_t ebase[64];
	int eshift[64]; /* cells of occ below the empty cell */
	int images_ready;
	uint64_t ibase[12];	/* per symmetry: the image's index less its orange part */
	uint64_t islot[64][12]; /* [j][s]: the bit of cell j's image in the image's pattern */
};

static void lwalk_setup(const struct landscape *ls, uint64_t occ, int t, uint64_t cbase,
			struct lwalk_block *B)
{
	const uint64_t free_ = ls->L.full & ~ls->layout, cco = bp_binom(t + 1, (t + 1) / 2);
	B->occ = occ;
	B->images_ready = 0;
	int j = 0;
	for (uint64_t m = occ; m; m &= m - 1)
		B->cell[j++] = m & -m;
	B->nempty = 0;
	const uint64_t x = bp_bits_extract(occ, free_);
	for (uint64_t e = free_ & ~occ; e; e &= e - 1) {
		uint64_t v = e & -e;
		B->eshift[B->nempty] = popc(occ & (v - 1));
		B->ebase[B->nempty] =
			cbase + bp_rank_subset(x | 1ull << popc(free_ & (v - 1))) * cco;
		B->nempty++;
	}
}

static void lwalk_images(const struct landscape *ls, int t, int nsym, uint64_t base,
			 struct lwalk_block *B)
{
	const uint64_t free_ = ls->L.full & ~ls->layout, co = bp_binom(t, t / 2);
	for (int s = 1; s < nsym; s++) {
		const uint64_t sx = bp_perm64_apply(ls->perm, s, B->occ);
		B->ibase[s] = base + bp_rank_subset(bp_bits_extract(sx, free_)) * co;
		for (int j = 0; j < t; j++)
			B->islot[j][s] =
				1ull
				<< popc(sx &
					((1ull << ls->cimg[s][__builtin_ctzll(B->cell[j])]) - 1));
	}
	B->images_ready = 1;
}

/* The prefix and suffix sums of a position's orange pattern b (see lwalk_block). */
static void lwalk_pos(const struct landscape *ls, uint64_t b, int mover, uint64_t *pre,
		      uint64_t *suf)
{
	int q[33], o = 0;
	for (uint64_t r = b; r; r &= r - 1)
		q[o++] = __builtin_ctzll(r);
	pre[0] = 0;
	for (int i = 0; i < o; i++)
		pre[i + 1] = pre[i] + ls->binom[q[i]][i + 1];
	suf[o] = 0;
	for (int i = o; i-- > 0;)
		suf[i] = suf[i + 1] + ls->binom[q[i] + 1][i + 1 + mover];
}

static int landscape_tier_walk(const struct bp_game *g, uint32_t tier, uint64_t lo, uint64_t hi,
			       unsigned what, const uint64_t *marked,
			       int (*visit)(void *ctx, const struct bp_walk *w), void *ctx)
{
	(void)marked; /* every index it visits is reached: no bits are passed */
	const struct landscape *ls = LS(g);
	uint64_t size, per = 0, cper = 0;
	int rc = landscape_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (lo > hi || hi > size)
		return BP_ERANGE;
	per_layout(ls, tier, &per);
	per_layout(ls, tier + 1, &cper); /* 0 past the last tier */
	/* without layout=, the index has a block per neutral set: only the start
	 * layout's block is reachable (and the symmetries keep that layout) */
	uint64_t block = ls->fixed ? 0 : bp_rank_subset(ls->layout);
	uint64_t b0 = block * per, cbase = block * cper;
	if (lo < b0)
		lo = b0;
	if (hi > b0 + per)
		hi = b0 + per;
	if (lo >= hi)
		return BP_OK;
	const int t = (int)tier, mover = t & 1, last = !mover, nsym = g->nsym;
	const uint64_t co = bp_binom(t, t / 2), free_ = ls->L.full & ~ls->layout;
	const uint64_t neutral = ls->layout;
	const unsigned loop_mover = mover ? BP_CELLSETS_LOOP1 : BP_CELLSETS_LOOP0;
	const unsigned loop_last = last ? BP_CELLSETS_LOOP1 : BP_CELLSETS_LOOP0;
	/* the table of cell sets under the layout's symmetries: black stones first in
	 * the canonical order, then orange (the neutral plane is fixed) */
	const uint16_t *bt =
		bp_cellsets_get(&((struct landscape *)ls)->sets, &ls->L, ls->perm, nsym);
	const int by_slot = nsym <= 12 && t <= BP_SETRANK_BITS;
	uint64_t children[64], images[16], pre[34], suf[34];
	struct lwalk_block *B = malloc(sizeof *B);
	if (!B)
		return BP_ENOMEM;
	/* the orange pattern b (bit j: the j-th cell of occ is orange) runs through the
	 * t/2-subsets in colex order, which is numeric order: Gosper's step; orange
	 * follows b's changed bits */
	uint64_t R = (lo - b0) / co, b = bp_unrank_subset(t / 2, (lo - b0) % co);
	uint64_t orange = 0, last_b = 0;
	lwalk_setup(ls, bp_bits_deposit(bp_unrank_subset(t, R), free_), t, cbase, B);
	for (uint64_t idx = lo; idx < hi; idx++) {
		if (idx > lo) {
			if ((idx - b0) % co == 0) {
				R++;
				b = t / 2 ? (1ull << (t / 2)) - 1 : 0;
				lwalk_setup(ls, bp_bits_deposit(bp_unrank_subset(t, R), free_), t,
					    cbase, B);
				orange = last_b = 0;
			} else {
				uint64_t c = b & -b, r = b + c;
				b = (((r ^ b) >> 2) >> __builtin_ctzll(b)) | r;
			}
		}
		for (uint64_t m = b ^ last_b; m; m &= m - 1)
			orange ^= B->cell[__builtin_ctzll(m)];
		last_b = b;
		const uint64_t occ = B->occ;
		const uint64_t planes[2] = { occ & ~orange, orange };
		/* canonical: no symmetry gives a smaller image, in bp_perm64_canonical's
		 * order (black, then orange; the instance's symmetries keep the neutral
		 * plane), stopping at the first smaller one */
		int canonical = 1;
		if (bt) {
			const unsigned e = bt[planes[0]];
			if (e & BP_CELLSETS_SMALLER)
				continue;
			for (unsigned f = e & BP_CELLSETS_FIXING; f && canonical; f &= f - 1)
				canonical = bp_perm64_apply(ls->perm, __builtin_ctz(f), orange) >=
					    orange;
		} else {
			for (int sy = 1; sy < nsym && canonical; sy++) {
				uint64_t sb = bp_perm64_apply(ls->perm, sy, planes[0]);
				canonical = sb > planes[0] ||
					    (sb == planes[0] &&
					     bp_perm64_apply(ls->perm, sy, orange) >= orange);
			}
		}
		if (!canonical)
			continue;
		/* the player to move may not have a loop; the one who just moved may, and
		 * then the position is reached when some stone of theirs, taken away,
		 * leaves none */
		const uint64_t gm = planes[mover] | neutral, gl = planes[last] | neutral;
		if (bt ? (bt[gm] & loop_mover) != 0 : bp_loops_enclosed(&ls->L, mover, gm) != 0)
			continue;
		int over =
			bt ? (bt[gl] & loop_last) != 0 : bp_loops_enclosed(&ls->L, last, gl) != 0;
		if (over) {
			int reached = 0;
			for (uint64_t m = planes[last]; m && !reached; m &= m - 1)
				reached = bt ? !(bt[gl & ~(m & -m)] & loop_last)
					     : !bp_loops_enclosed(&ls->L, last, gl & ~(m & -m));
			if (!reached)
				continue;
		}
		struct bp_walk w = { .index = idx, .nchildren = -1 };
		if (!over && occ != free_) {
			w.nchildren = B->nempty;
			if (what & BP_WALK_CHILDREN) {
				lwalk_pos(ls, b, mover, pre, suf);
				for (int e = 0; e < B->nempty; e++) {
					const int sh = B->eshift[e];
					const int jo = popc(b & ((1ull << sh) - 1));
					children[e] = B->ebase[e] + pre[jo] + suf[jo] +
						      (mover ? ls->binom[sh][jo + 1] : 0);
				}
			}
			w.children = children;
		}
		if (what & BP_WALK_IMAGES) {
			if (by_slot && !B->images_ready)
				lwalk_images(ls, t, nsym, b0, B);
			uint64_t ipat[12] = { 0 };
			if (by_slot)
				for (uint64_t r = b; r; r &= r - 1) {
					const uint64_t *sl = B->islot[__builtin_ctzll(r)];
					for (int s = 1; s < nsym; s++)
						ipat[s] |= sl[s];
				}
			for (int s = 1; s < nsym; s++) {
				uint64_t r;
				if (by_slot)
					r = B->ibase[s] + bp_setrank_of(&ls->crank, ipat[s]);
				else
					r = walk_rank(ls, bp_perm64_apply(ls->perm, s, occ),
						      bp_perm64_apply(ls->perm, s, orange), t, b0);
				if (r != idx)
					images[w.nimages++] = r;
			}
			w.images = images;
		}
		if ((rc = visit(ctx, &w)))
			break;
	}
	free(B);
	return rc;
}

/* ---- the structural holes: canonical_mask -----------------------------------------
 *
 * The walk's index stepping and canonical test over every layout block of the range,
 * without its reachability filter and without children: a set bit is an index that
 * unrank() accepts (its neutral set is a layout and the player to move has no loop)
 * and that canonical() leaves as it is. The walk visits fewer, since it drops the
 * positions whose loop cannot have been formed last; those are valid positions all
 * the same, so they are in the mask, and the solver stores a zero for each (the
 * contract is unrank()'s and canonical()'s, which do not ask how a position arose).
 *
 * Without layout=, a block's neutral plane need not be fixed by the symmetries (they
 * keep the start layout only), so where black and orange images tie with the
 * position, the neutral plane's image decides, as in bp_perm64_canonical's order. */

/* Whether no symmetry among `syms` (bit s) maps the position (black, orange, neutral)
 * to a smaller one in bp_perm64_canonical's order; sn[s] is the neutral set's image. */
static int none_smaller(const struct landscape *ls, unsigned syms, uint64_t black, uint64_t orange,
			uint64_t neutral, const uint64_t *sn)
{
	for (; syms; syms &= syms - 1) {
		const int s = __builtin_ctz(syms);
		const uint64_t sb = bp_perm64_apply(ls->perm, s, black);
		if (sb != black) {
			if (sb < black)
				return 0;
			continue;
		}
		const uint64_t so = bp_perm64_apply(ls->perm, s, orange);
		if (so < orange || (so == orange && sn[s] < neutral))
			return 0;
	}
	return 1;
}

/* The bits of indices lo..hi-1 of the block with neutral set `neutral` (b0 its first
 * index), into bits at index first; bt: the board's cell-set table, or NULL.
 *
 * Within an occupied set the orange pattern b (bit j: the j-th cell of occ is orange)
 * runs through the t/2-subsets in colex order, which is numeric order: so its bits
 * from 8 up, H, stay put while its low byte L runs through the subsets of its size
 * in numeric order, read from sub8 (landscape_create), and orange is b's deposit into
 * occ by nibble tables built per occupied set. No step depends on the one before
 * (Gosper's step as in the walk, 6 or 7 dependent instructions an index, took 80 us a
 * block of 16384 on hex3 with three neutral stones, against 56 us). With the table
 * an index costs one or two lookups (the black plane's canonical test; the mover's
 * loop) and no unpredictable branch (branching on the answer cost another 13 us): only
 * a black plane fixed by some symmetry compares further, with its other planes. */
static void mask_block(const struct landscape *ls, const uint16_t *bt, int nsym, int t,
		       uint64_t neutral, uint64_t b0, uint64_t lo, uint64_t hi, uint64_t first,
		       uint64_t *bits)
{
	const int mover = t & 1, half = t / 2, m = t < 8 ? t : 8, nq = t < 8 ? 2 : (t + 3) / 4;
	const unsigned loop_mover = mover ? BP_CELLSETS_LOOP1 : BP_CELLSETS_LOOP0;
	const unsigned all = (1u << nsym) - 2; /* symmetries 1..nsym-1 */
	const uint64_t co = bp_binom(t, half), free_ = ls->L.full & ~neutral;
	const uint64_t msel = mover ? ~0ull : 0; /* the mover's plane: orange or black */
	const uint64_t h_first = half > m ? (1ull << (half - m)) - 1 : 0;
	uint64_t sn[12], cell[68] = { 0 }, nib[16][16];
	for (int s = 0; s < nsym; s++)
		sn[s] = bp_perm64_apply(ls->perm, s, neutral);
	const uint64_t R0 = (lo - b0) / co, pat = bp_unrank_subset(half, (lo - b0) % co);
	uint64_t oc = bp_unrank_subset(t, R0);		/* occ, numbered within the free cells */
	uint64_t H = pat >> m, i = lo - first, acc = 0; /* acc: bits of i's word so far */
	int k = (int)bp_rank_subset(pat & ((1ull << m) - 1));
	const uint64_t end = hi - first;
	for (;;) {
		const uint64_t occ = bp_bits_deposit(oc, free_);
		int c = 0;
		for (uint64_t x = occ; x; x &= x - 1)
			cell[c++] = x & -x;
		for (int q = 0; q < nq; q++) {
			nib[q][0] = 0;
			for (int v = 1; v < 16; v++)
				nib[q][v] = nib[q][v & (v - 1)] | cell[4 * q + __builtin_ctz(v)];
		}
		for (;;) {
			/* the patterns of high part H: L runs over the a-subsets of m bits */
			const int a = half - __builtin_popcountll(H);
			uint64_t hd = 0;
			for (int q = 2; q < nq; q++)
				hd |= nib[q][(H << m) >> 4 * q & 15];
			const uint8_t *sub = ls->sub8 + ls->sub8_at[a];
			const int n = (int)bp_binom(m, a);
			for (; k < n; k++) {
				const unsigned L = sub[k];
				const uint64_t orange = nib[0][L & 15] | nib[1][L >> 4] | hd;
				const uint64_t black = occ ^ orange;
				const uint64_t gm = ((orange & msel) | (black & ~msel)) | neutral;
				unsigned ok;
				if (bt) {
					const unsigned e = bt[black];
					ok = !((e & BP_CELLSETS_SMALLER) | (bt[gm] & loop_mover));
					if (__builtin_expect((e & BP_CELLSETS_FIXING) != 0, 0) &&
					    ok)
						ok = none_smaller(ls, e & BP_CELLSETS_FIXING, black,
								  orange, neutral, sn);
				} else {
					ok = none_smaller(ls, all, black, orange, neutral, sn) &&
					     !bp_loops_enclosed(&ls->L, mover, gm);
				}
				acc |= (uint64_t)ok << i % 64;
				if (i % 64 == 63) {
					bits[i / 64] |= acc;
					acc = 0;
				}
				if (++i == end) {
					if (i % 64)
						bits[i / 64] |= acc;
					return;
				}
			}
			/* the next high part whose low part can make up the count */
			k = 0;
			do
				H++;
			while (!(H >> (t - m)) && (__builtin_popcountll(H) > half ||
						   half - __builtin_popcountll(H) > m));
			if (H >> (t - m))
				break;
		}
		/* the next occupied set: Gosper's step */
		const uint64_t r = oc + (oc & -oc);
		oc = r | (((r ^ oc) >> 2) >> __builtin_ctzll(oc));
		H = h_first;
	}
}

static int landscape_canonical_mask(const struct bp_game *g, uint32_t tier, uint64_t first,
				    uint32_t n, uint64_t *bits)
{
	const struct landscape *ls = LS(g);
	uint64_t per = 0;
	int rc = bp_game_mask_begin(g, tier, first, n, bits);
	if (rc)
		return rc;
	per_layout(ls, tier, &per);
	const uint16_t *bt =
		bp_cellsets_get(&((struct landscape *)ls)->sets, &ls->L, ls->perm, g->nsym);
	for (uint64_t lo = first, hi = first + n; lo < hi;) {
		const uint64_t blk = lo / per, b0 = blk * per, end = hi < b0 + per ? hi : b0 + per;
		const uint64_t neutral = ls->fixed ? ls->layout : bp_unrank_subset(ls->k, blk);
		if (ls->fixed || independent(&ls->L, neutral))
			mask_block(ls, bt, g->nsym, (int)tier, neutral, b0, lo, end, first, bits);
		lo = end;
	}
	return BP_OK;
}

/* ---- layouts ------------------------------------------------------------------- */

/* The colex-smallest set of k pairwise non-adjacent cells within allowed, or 0 with
 * *found = 0. Colex order compares the highest cell first, so the search tries the
 * highest cell in increasing order and completes below it. */
static uint64_t first_layout(const struct bp_loops *L, int k, uint64_t allowed, int *found)
{
	*found = 1;
	if (k == 0)
		return 0;
	for (uint64_t a = allowed; a; a &= a - 1) {
		int m = __builtin_ctzll(a);
		uint64_t below = allowed & ((1ull << m) - 1) & ~L->nb[m];
		if (popc(below) < k - 1)
			continue;
		uint64_t sub = first_layout(L, k - 1, below, found);
		if (*found)
			return sub | 1ull << m;
	}
	*found = 0;
	return 0;
}

struct walk {
	const struct bp_loops *L;
	bp_perm64 *perm;
	int nsym;
	uint64_t *reps;
	int *orbits;
	size_t nreps, cap;
	mpz_t *raw;
	int failed;
};

static void walk_layouts(struct walk *w, int k, uint64_t chosen, uint64_t allowed)
{
	if (w->failed)
		return;
	if (k == 0) {
		mpz_add_ui(*w->raw, *w->raw, 1);
		uint64_t best = chosen;
		int stab = 0;
		for (int s = 0; s < w->nsym; s++) {
			uint64_t img = bp_perm64_apply(w->perm, s, chosen);
			if (img < best)
				return; /* not the representative */
			stab += img == chosen;
		}
		if (w->nreps == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 256;
			uint64_t *r = realloc(w->reps, cap * sizeof *r);
			if (r)
				w->reps = r;
			int *o = realloc(w->orbits, cap * sizeof *o);
			if (o)
				w->orbits = o;
			if (!r || !o) {
				w->failed = 1;
				return;
			}
			w->cap = cap;
		}
		w->reps[w->nreps] = best;
		w->orbits[w->nreps++] = w->nsym / stab;
		return;
	}
	for (uint64_t a = allowed; a; a &= a - 1) {
		int c = __builtin_ctzll(a);
		if (popc(a) < k)
			return;
		walk_layouts(w, k - 1, chosen | 1ull << c, a & ~(1ull << c) & ~w->L->nb[c]);
	}
}

static int cmp_rep(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

int bp_landscape_layouts(const struct bp_board *b, int k, bp_layout_visit *visit, void *ctx,
			 mpz_t raw, mpz_t classes)
{
	struct bp_loops *L = malloc(sizeof *L);
	struct walk w = { 0 };
	int rc, syms[12];
	if (!L)
		return BP_ENOMEM;
	if ((rc = bp_loops_init(L, b, NULL)))
		goto out;
	for (int s = 0; s < b->nsym; s++)
		syms[s] = s;
	if ((rc = bp_perm64_create(b, syms, b->nsym, &w.perm)))
		goto out;
	w.L = L;
	w.nsym = b->nsym;
	w.raw = (mpz_t *)raw;
	mpz_set_ui(raw, 0);
	walk_layouts(&w, k, 0, L->full);
	if (w.failed) {
		rc = BP_ENOMEM;
		goto out;
	}
	mpz_set_ui(classes, (unsigned long)w.nreps);
	/* sort representatives with their orbit sizes */
	uint64_t *pairs = malloc(2 * w.nreps * sizeof *pairs + 1);
	if (!pairs) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < w.nreps; i++) {
		pairs[2 * i] = w.reps[i];
		pairs[2 * i + 1] = (uint64_t)w.orbits[i];
	}
	qsort(pairs, w.nreps, 2 * sizeof *pairs, cmp_rep);
	for (size_t i = 0; i < w.nreps && !rc; i++)
		rc = visit ? visit(ctx, pairs[2 * i], (int)pairs[2 * i + 1]) : 0;
	free(pairs);
out:
	free(w.reps);
	free(w.orbits);
	bp_perm64_destroy(w.perm);
	free(L);
	return rc;
}

/* ---- the instance ------------------------------------------------------------- */

static void landscape_destroy(struct bp_game *g)
{
	struct landscape *ls = g->impl;
	bp_perm64_destroy(ls->perm);
	bp_perm64_destroy(ls->all);
	free(ls->sets);
	free(ls);
	g->impl = NULL;
}

/* Parses "a1;c2;e3" into a cell set, naming the bad part on error. */
static int parse_layout(const struct bp_game *g, const char *text, uint64_t *out,
			struct bp_err *err)
{
	const char *p = text;
	*out = 0;
	for (;;) {
		int cell, used;
		struct bp_err cerr;
		if (bp_board_cell_parse(g->board, p, &cell, &used, &cerr))
			return bp_err_set(err, BP_ESPEC, "landscape: layout=%s: %s", text,
					  cerr.msg);
		if (*out >> cell & 1)
			return bp_err_set(err, BP_ESPEC, "landscape: layout=%s: cell %.*s twice",
					  text, used, p);
		*out |= 1ull << cell;
		p += used;
		if (!*p)
			return BP_OK;
		if (*p != ';')
			return bp_err_set(err, BP_ESPEC,
					  "landscape: layout=%s: expected ';' between cells at "
					  "'%.12s'",
					  text, p);
		p++;
	}
}

/* K from neutrals=: a whole number from 0 to the number of cells, no leading zero. */
static int parse_neutrals(const struct bp_game *g, int *k, struct bp_err *err)
{
	const char *kt = g->value[2];
	char *end;
	long v = strtol(kt, &end, 10);
	if (*end || end == kt || v < 0 || v > g->board->ncells || (kt[0] == '0' && kt[1]))
		return bp_err_set(err, BP_ESPEC,
				  "landscape: neutrals=%s: expected a whole number from 0 to %d",
				  kt, g->board->ncells);
	*k = (int)v;
	return BP_OK;
}

static int landscape_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *b = g->board;
	int rc, k = 0;
	if (b->ncells > 64)
		return bp_err_set(err, BP_ESPEC,
				  "landscape: board %s has %d cells; at most 64 are supported "
				  "(hex5, rh8x8, tri10 and smaller); `boardproof layouts` counts "
				  "layouts on bigger boards",
				  b->name, b->ncells);
	if ((rc = parse_neutrals(g, &k, err)))
		return rc;
	struct landscape *ls = calloc(1, sizeof *ls);
	if (!ls)
		return BP_ENOMEM;
	if ((rc = bp_loops_init(&ls->L, b, NULL)))
		goto fail;
	ls->n = b->ncells;
	ls->k = k;
	ls->both_mover = strcmp(g->value[0], "mover") == 0;
	int syms[12], nsyms = 0;
	if (g->value[1]) {
		uint64_t lay;
		if ((rc = parse_layout(g, g->value[1], &lay, err)))
			goto fail;
		if (popc(lay) != ls->k) {
			rc = bp_err_set(err, BP_ESPEC,
					"landscape: layout=%s names %d cells, but neutrals=%d",
					g->value[1], popc(lay), ls->k);
			goto fail;
		}
		if (!independent(&ls->L, lay)) {
			rc = bp_err_set(err, BP_ESPEC,
					"landscape: layout=%s has adjacent cells (a layout has no "
					"two adjacent)",
					g->value[1]);
			goto fail;
		}
		ls->fixed = 1;
		ls->layout = lay;
	} else {
		int found;
		ls->layout = first_layout(&ls->L, ls->k, ls->L.full, &found);
		if (!found) {
			rc = bp_err_set(err, BP_ESPEC,
					"landscape: no %d cells of board %s are pairwise "
					"non-adjacent",
					ls->k, b->name);
			goto fail;
		}
	}
	/* the layout in board order, as the canonical spelling of layout= */
	size_t used = 0;
	ls->layout_text[0] = '\0';
	for (uint64_t s = ls->layout; s; s &= s - 1) {
		char name[16];
		bp_board_cell_name(b, __builtin_ctzll(s), name, sizeof name);
		used += (size_t)snprintf(ls->layout_text + used, sizeof ls->layout_text - used,
					 "%s%s", used ? ";" : "", name);
	}
	if (ls->fixed) {
		g->value[1] = ls->layout_text;
		int len = snprintf(g->spec, sizeof g->spec, "landscape:%s,both=%s,layout=", b->name,
				   g->value[0]);
		if (len + strlen(ls->layout_text) + 16 >= sizeof g->spec) {
			rc = bp_err_set(err, BP_ESPEC, "landscape: layout too long");
			goto fail;
		}
		strcat(g->spec, ls->layout_text);
		len = (int)strlen(g->spec);
		snprintf(g->spec + len, sizeof g->spec - (size_t)len, ",neutrals=%d", ls->k);
	}
	/* symmetries: those keeping the layout (without layout=, the start layout's, so
	 * that the positions reachable from the start are closed under them) */
	bp_perm64 *all;
	int every[12];
	for (int s = 0; s < b->nsym; s++)
		every[s] = s;
	if ((rc = bp_perm64_create(b, every, b->nsym, &all)))
		goto fail;
	for (int s = 0; s < b->nsym; s++)
		if (bp_perm64_apply(all, s, ls->layout) == ls->layout)
			syms[nsyms++] = s;
	ls->all = all;
	if ((rc = bp_perm64_create(b, syms, nsyms, &ls->perm)))
		goto fail;
	for (int s = 0; s < nsyms && s < 12; s++)
		for (int cell = 0; cell < ls->n; cell++)
			ls->cimg[s][cell] = (uint8_t)bp_board_sym(b, syms[s], cell);
	for (int i = 0; i < 66; i++)
		for (int j = 0; j < 66; j++)
			ls->binom[i][j] = i <= 64 ? bp_binom(i, j) : 0;
	bp_setrank_init(&ls->crank);
	for (int a = 0, at = 0; a <= 8; a++) {
		ls->sub8_at[a] = (uint16_t)at;
		for (int v = 0; v < 256; v++)
			if (popc((uint64_t)v) == a)
				ls->sub8[at++] = (uint8_t)v;
	}
	g->impl = ls;
	g->max_moves = ls->n > 0 ? ls->n : 1;
	g->nsym = nsyms;
	g->ntiers = (uint32_t)(ls->n - ls->k) + 1;
	return BP_OK;
fail:
	bp_perm64_destroy(ls->all);
	free(ls);
	return rc;
}

/* ---- the family: a spec without layout= ---------------------------------------- */

/* RULES.md 5.1: without layout=, a spec stands for every layout. Its members are the
 * fixed-layout instances, one per class of layouts up to the board's symmetry, each
 * named by its class's representative (the smallest cell set read as a binary
 * number, as bp_landscape_layouts lists them). With K = 0 the one layout is empty,
 * which layout= cannot spell: the member is then the spec itself, whose only layout
 * is the empty one. */

/* The canonical spec of the member with layout lay (as create spells it), or g's own
 * spec for the empty layout; its layout= value into value. */
static int member_spec(const struct bp_game *g, uint64_t lay, char *spec, size_t len, char *value,
		       size_t vlen)
{
	size_t used = 0;
	value[0] = '\0';
	for (uint64_t s = lay; s; s &= s - 1) {
		char name[16];
		bp_board_cell_name(g->board, __builtin_ctzll(s), name, sizeof name);
		used += (size_t)snprintf(value + used, used < vlen ? vlen - used : 0, "%s%s",
					 used ? ";" : "", name);
	}
	int n = lay ? snprintf(spec, len, "landscape:%s,both=%s,layout=%s,neutrals=%s",
			       g->board->name, g->value[0], value, g->value[2])
		    : snprintf(spec, len, "%s", g->spec);
	return used >= vlen || n < 0 || (size_t)n >= len ? BP_ERANGE : BP_OK;
}

static int landscape_family_count(const struct bp_game *g, mpz_t raw, mpz_t classes,
				  struct bp_err *err)
{
	int k = 0, rc = parse_neutrals(g, &k, err);
	return rc ? rc : bp_landscape_count_layouts(g->board, k, raw, classes);
}

struct family_walk {
	const struct bp_game *g;
	int (*visit)(void *ctx, const char *spec, const char *key_value, uint64_t multiplicity);
	void *ctx;
};

static int family_visit(void *ctx, uint64_t layout, int orbit)
{
	struct family_walk *f = ctx;
	char spec[256], value[256];
	int rc = member_spec(f->g, layout, spec, sizeof spec, value, sizeof value);
	return rc ? rc : f->visit(f->ctx, spec, value, (uint64_t)orbit);
}

static int landscape_family_list(const struct bp_game *g,
				 int (*visit)(void *ctx, const char *spec, const char *key_value,
					      uint64_t multiplicity),
				 void *ctx, struct bp_err *err)
{
	int k = 0, rc = parse_neutrals(g, &k, err);
	if (rc)
		return rc;
	if (g->board->ncells > 64)
		return bp_err_set(err, BP_ERANGE,
				  "landscape: listing layouts needs a board of at most 64 cells "
				  "(%s has %d)",
				  g->board->name, g->board->ncells);
	struct family_walk f = { g, visit, ctx };
	mpz_t raw, classes;
	mpz_inits(raw, classes, NULL);
	rc = bp_landscape_layouts(g->board, k, family_visit, &f, raw, classes);
	mpz_clears(raw, classes, NULL);
	return rc;
}

static int landscape_family_member(const struct bp_game *g, const struct bp_pos *p, char *spec,
				   size_t len, struct bp_pos *out)
{
	const struct landscape *ls = LS(g);
	uint64_t lay = NEUTRAL(p), best = lay;
	int sbest = 0;
	for (int s = 1; s < g->board->nsym; s++) {
		uint64_t img = bp_perm64_apply(ls->all, s, lay);
		if (img < best) {
			best = img;
			sbest = s;
		}
	}
	*out = *p;
	for (int i = 0; i < 3; i++)
		out->w[i] = bp_perm64_apply(ls->all, sbest, p->w[i]);
	char value[256];
	return member_spec(g, best, spec, len, value, sizeof value);
}

const struct bp_game_ops bp_landscape_ops = {
	.name = "landscape",
	.title = "Glorieta \"Landscape\": neutral stones laid out, then one stone a turn",
	.shapes = BP_SHAPES_HEXCELL,
	.flags = BP_GAME_PIE, /* the colour choice */
	.options = landscape_options,
	.create = landscape_create,
	.destroy = landscape_destroy,
	.start = landscape_start,
	.moves = landscape_moves,
	.apply = landscape_apply,
	.outcome = landscape_outcome,
	.pos_parse = landscape_pos_parse,
	.pos_format = landscape_pos_format,
	.cell_char = landscape_cell_char,
	.move_parse = landscape_move_parse,
	.move_format = landscape_move_format,
	.transform = landscape_transform,
	.canonical = landscape_canonical,
	.tier = landscape_tier,
	.tier_size = landscape_tier_size,
	.rank = landscape_rank,
	.unrank = landscape_unrank,
	.tier_walk = landscape_tier_walk,
	.canonical_mask = landscape_canonical_mask,
	.family_key = "layout",
	.family_count = landscape_family_count,
	.family_list = landscape_family_list,
	.family_member = landscape_family_member,
	.describe = landscape_describe,
	.picture = bp_chicken_picture /* the same stones */,
	.claims = "no-draw first-player pie",
	/* 1.6 times fewer nodes on hex3 a1;c3;e3 (bench/dfpn_results.md, session 9) */
	.dfpn_weak = 1,
	.dfpn_mobility = 1,
};

/* ---- counting layouts on any board --------------------------------------------- */

/* Layouts fixed by a symmetry s are unions of whole cycles of s, so they are the
 * independent sets of the quotient graph (one node a cycle, weighing its length;
 * a cycle with two adjacent cells can never be taken). Counting independent sets of
 * total weight k in that graph is a frontier dynamic program: the nodes are taken in
 * the order of their first cell (drawing order, so the frontier is about one row),
 * and the state is which frontier nodes are taken, each state carrying the counts per
 * weight as a polynomial truncated at z^k. Nodes leave the frontier after their last
 * neighbour; states that then agree are merged. The identity gives the raw count and
 * Burnside's lemma the classes. */

struct fstate {
	uint64_t *mask; /* frontier slots taken */
	mpz_t *poly;	/* (k + 1) counts a state */
	int n, cap;
	int *hash; /* open addressing over 2 * cap entries, -1 empty */
};

static int fstate_reserve(struct fstate *f, int cap, int k)
{
	if (cap <= f->cap)
		return BP_OK;
	uint64_t *m = realloc(f->mask, sizeof *m * (size_t)cap);
	if (!m)
		return BP_ENOMEM;
	f->mask = m;
	mpz_t *p = realloc(f->poly, sizeof *p * (size_t)cap * (size_t)(k + 1));
	if (!p)
		return BP_ENOMEM;
	f->poly = p;
	for (int i = f->cap * (k + 1); i < cap * (k + 1); i++)
		mpz_init(f->poly[i]);
	int *h = realloc(f->hash, sizeof *h * (size_t)cap * 2);
	if (!h)
		return BP_ENOMEM;
	f->hash = h;
	f->cap = cap;
	return BP_OK;
}

static void fstate_free(struct fstate *f, int k)
{
	for (int i = 0; i < f->cap * (k + 1); i++)
		mpz_clear(f->poly[i]);
	free(f->mask);
	free(f->poly);
	free(f->hash);
	memset(f, 0, sizeof *f);
}

static void fstate_clear(struct fstate *f)
{
	f->n = 0;
	for (int i = 0; i < 2 * f->cap; i++)
		f->hash[i] = -1;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Adds poly shifted by `shift` into the state `mask`, creating it when new. */
static int fstate_add(struct fstate *f, uint64_t mask, mpz_t *poly, int shift, int k)
{
	if (f->n * 2 + 2 > f->cap) {
		int rc = fstate_reserve(f, f->cap ? f->cap * 2 : 64, k);
		if (rc)
			return rc;
		/* rehash */
		for (int i = 0; i < 2 * f->cap; i++)
			f->hash[i] = -1;
		for (int i = 0; i < f->n; i++) {
			size_t h = mix(f->mask[i]) % (size_t)(2 * f->cap);
			while (f->hash[h] >= 0)
				h = (h + 1) % (size_t)(2 * f->cap);
			f->hash[h] = i;
		}
	}
	size_t h = mix(mask) % (size_t)(2 * f->cap);
	while (f->hash[h] >= 0 && f->mask[f->hash[h]] != mask)
		h = (h + 1) % (size_t)(2 * f->cap);
	int i = f->hash[h];
	if (i < 0) {
		i = f->n++;
		f->hash[h] = i;
		f->mask[i] = mask;
		for (int d = 0; d <= k; d++)
			mpz_set_ui(f->poly[(size_t)i * (size_t)(k + 1) + (size_t)d], 0);
	}
	mpz_t *dst = f->poly + (size_t)i * (size_t)(k + 1);
	for (int d = 0; d + shift <= k; d++)
		mpz_add(dst[d + shift], dst[d + shift], poly[d]);
	return BP_OK;
}

static int cmp_int_by(const void *a, const void *b, const int *key)
{
	int x = key[*(const int *)a], y = key[*(const int *)b];
	return (x > y) - (x < y);
}

static const int *sort_key;

static int cmp_orbit(const void *a, const void *b)
{
	return cmp_int_by(a, b, sort_key);
}

/* Independent sets of weight k in the quotient of b by symmetry s, into out. */
static int count_fixed(const struct bp_board *b, int s, int k, mpz_t out)
{
	int n = b->ncells, rc = BP_OK;
	int *orbit = malloc(sizeof(int) * (size_t)n); /* cell -> orbit */
	int *first = malloc(sizeof(int) * (size_t)n); /* orbit -> first cell */
	int *weight = calloc((size_t)n, sizeof(int)); /* orbit -> cycle length */
	int *bad = calloc((size_t)n, sizeof(int));    /* orbit has adjacent cells */
	int *order = malloc(sizeof(int) * (size_t)n); /* processing order */
	int *pos = malloc(sizeof(int) * (size_t)n);   /* orbit -> place in order */
	int *last = malloc(sizeof(int) * (size_t)n);  /* last place of a neighbour */
	int *slot = malloc(sizeof(int) * (size_t)n);  /* frontier slot or -1 */
	struct fstate cur = { 0 }, next = { 0 };
	mpz_t *one = malloc(sizeof(mpz_t) * (size_t)(k + 1)); /* the polynomial 1 */
	for (int d = 0; one && d <= k; d++)
		mpz_init_set_ui(one[d], d == 0);
	if (!orbit || !first || !weight || !bad || !order || !pos || !last || !slot || !one) {
		rc = BP_ENOMEM;
		goto out;
	}
	int m = 0;
	for (int c = 0; c < n; c++)
		orbit[c] = -1;
	for (int c = 0; c < n; c++) {
		if (orbit[c] >= 0)
			continue;
		first[m] = c;
		for (int x = c; orbit[x] < 0; x = bp_board_sym(b, s, x)) {
			orbit[x] = m;
			weight[m]++;
		}
		m++;
	}
	for (int c = 0; c < n; c++)
		for (int i = 0; i < b->cells[c].degree; i++)
			if (orbit[b->cells[c].nb[i]] == orbit[c])
				bad[orbit[c]] = 1;
	for (int o = 0; o < m; o++)
		order[o] = o;
	sort_key = first;
	qsort(order, (size_t)m, sizeof *order, cmp_orbit);
	for (int i = 0; i < m; i++) {
		pos[order[i]] = i;
		last[order[i]] = i;
		slot[order[i]] = -1;
	}
	for (int c = 0; c < n; c++)
		for (int i = 0; i < b->cells[c].degree; i++) {
			int o = orbit[c], u = orbit[b->cells[c].nb[i]];
			if (pos[u] > last[o])
				last[o] = pos[u];
		}
	if ((rc = fstate_reserve(&cur, 64, k)) || (rc = fstate_reserve(&next, 64, k)))
		goto out;
	fstate_clear(&cur);
	if ((rc = fstate_add(&cur, 0, one, 0, k)))
		goto out;
	uint64_t used = 0; /* slots in use */
	for (int i = 0; i < m; i++) {
		int o = order[i];
		/* slots of the earlier neighbours of o */
		uint64_t nbmask = 0;
		for (int c = 0; c < n; c++)
			if (orbit[c] == o)
				for (int j = 0; j < b->cells[c].degree; j++) {
					int u = orbit[b->cells[c].nb[j]];
					if (u != o && pos[u] < i && slot[u] >= 0)
						nbmask |= 1ull << slot[u];
				}
		uint64_t mine = 0;
		if (last[o] > i) {
			if (used == ~0ull) {
				rc = BP_ERANGE;
				goto out;
			}
			slot[o] = __builtin_ctzll(~used);
			used |= 1ull << slot[o];
			mine = 1ull << slot[o];
		}
		/* the orbits whose last neighbour is o leave the frontier now */
		uint64_t leaving = 0;
		for (int j = 0; j <= i; j++)
			if (slot[order[j]] >= 0 && last[order[j]] == i) {
				leaving |= 1ull << slot[order[j]];
				slot[order[j]] = -1;
			}
		used &= ~leaving;
		fstate_clear(&next);
		for (int t = 0; t < cur.n; t++) {
			mpz_t *poly = cur.poly + (size_t)t * (size_t)(k + 1);
			uint64_t mask = cur.mask[t];
			if ((rc = fstate_add(&next, mask & ~leaving, poly, 0, k)))
				goto out;
			if (!bad[o] && !(mask & nbmask) && weight[o] <= k &&
			    (rc = fstate_add(&next, (mask | mine) & ~leaving, poly, weight[o], k)))
				goto out;
		}
		struct fstate tmp = cur;
		cur = next;
		next = tmp;
	}
	mpz_set_ui(out, 0);
	for (int t = 0; t < cur.n; t++)
		mpz_add(out, out, cur.poly[(size_t)t * (size_t)(k + 1) + (size_t)k]);
out:
	for (int d = 0; one && d <= k; d++)
		mpz_clear(one[d]);
	free(one);
	fstate_free(&cur, k);
	fstate_free(&next, k);
	free(orbit);
	free(first);
	free(weight);
	free(bad);
	free(order);
	free(pos);
	free(last);
	free(slot);
	return rc;
}

int bp_landscape_count_layouts(const struct bp_board *b, int k, mpz_t raw, mpz_t classes)
{
	int rc = BP_OK;
	if (k < 0)
		return BP_EINVAL;
	mpz_t *fixed = malloc(sizeof(mpz_t) * (size_t)b->nsym);
	if (!fixed)
		return BP_ENOMEM;
	for (int s = 0; s < b->nsym; s++)
		mpz_init(fixed[s]);
	for (int s = 0; s < b->nsym && !rc; s++)
		rc = count_fixed(b, s, k, fixed[s]);
	if (!rc) {
		mpz_set(raw, fixed[0]);
		bp_count_burnside(classes, (const mpz_t *)fixed, b->nsym);
	}
	for (int s = 0; s < b->nsym; s++)
		mpz_clear(fixed[s]);
	free(fixed);
	return rc;
}
