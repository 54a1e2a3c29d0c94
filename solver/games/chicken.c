/* SPDX-License-Identifier: MIT */
/* Chicken on bitboards. A position is
 *
 *     w[0]  black stones (b)          w[3]  declined: 0 '-', 1 b, 2 o
 *     w[1]  orange stones (o)         w[4]  the outcome for the player to move
 *     w[2]  neutral stones (n)              (enum bp_value; derived, kept so that
 *                                            outcome() is a load)
 *
 * with cell index = drawing order. Black moves first and every turn drops exactly one
 * friendly stone, so black is to move exactly when the two colours are level.
 *
 * Move code: bits 0-7 the friendly cell, bits 8-15 the neutral cell, bit 16 set when a
 * neutral is dropped, bit 17 set on a single drop made because no legal pair exists
 * (a forced decline: it counts as declining under forced=decline only).
 *
 * Pairs: with the mover's group set G (own stones and neutrals), a friendly stone on f
 * joins the groups of G that touch f into C_f; a neutral on x then joins f's group
 * exactly when x touches C_f. So the legal neutrals for f are the empty cells outside
 * grow(C_f), from one component labelling of G per position.
 *
 * Ranking (tier = stones on the board, t): the neutral count m runs over 0..(t-1)/2
 * (every neutral came with a friendly stone, after black's first); the friendly
 * stones split as b = ceil((t-m)/2), o = floor((t-m)/2). Within tier t the index is
 *
 *     off[t][m] + ((colex(occupied) * C(t, m) + colex(neutrals within occupied))
 *                  * C(t-m, o) + colex(orange within the friendly stones)) * D
 *               + declined
 *
 * and indices whose position fails the validation of pos_parse are holes. D = 3
 * under forced=free; under forced=decline `declined` follows from the counts (nobody
 * when every turn after the first brought a neutral, else the player of turn m + 1),
 * so D = 1 and the index leaves it out. */
#include "solver/games/chicken.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/rank.h"
#include "canon/symmetry.h"
#include "canon/zobrist.h"
#include "solver/games/cellsets.h"
#include "solver/games/loops.h"
#include "solver/games/postext.h"
#include "solver/games/setrank.h"

struct chicken {
	struct bp_loops L;
	int n;
	int both_mover;	    /* both=mover */
	int formed_mover;   /* formed=mover */
	int forced_decline; /* forced=decline */
	int decl_states;    /* values of `declined` the index spells out: 1 or 3 */
	bp_perm64 *perm;
	uint64_t off[65][34];	/* off[t][m]; off[t][mmax + 1] is the tier size */
	uint8_t too_big[65];	/* tier sizes that pass 2^64 */
	uint64_t binom[67][67]; /* C(n, k), 0 for k > n: the walk's child ranks */
	/* per cell set: what the walk asks of it (solver/games/cellsets.h) */
	uint16_t *sets;
	uint8_t cimg[12][64];	 /* cimg[s][c]: the image of cell c under symmetry s */
	struct bp_setrank crank; /* colex rank of a small set by bytes */
	bp_zobrist *zob;	 /* planes b, o, n; declined and the outcome as the extra word */
};

static const char *const both_choices[] = { "mover", "opponent", NULL };
static const char *const forced_choices[] = { "decline", "free", NULL };
static const char *const formed_choices[] = { "owner", "mover", NULL };
static const struct bp_option chicken_options[] = {
	{ .key = "both",
	  .def = "mover",
	  .choices = both_choices,
	  .help = "who wins when one turn forms loops for both players" },
	{ .key = "forced",
	  .def = "decline",
	  .choices = forced_choices,
	  .help = "decline: a single stone forced by the lack of a legal pair counts as "
		  "declining; free: it does not" },
	{ .key = "formed",
	  .def = "owner",
	  .choices = formed_choices,
	  .help = "owner: a formed loop wins for its owner; mover: any loop a turn forms, "
		  "the opponent's included, wins for the player who made the turn" },
	{ 0 },
};

#define BLACK(p) ((p)->w[0])
#define ORANGE(p) ((p)->w[1])
#define NEUTRAL(p) ((p)->w[2])
#define DECLINED(p) ((p)->w[3])
#define OVER(p) ((p)->w[4])

#define MV_NEUTRAL (1u << 16)
#define MV_FORCED (1u << 17)

static const struct chicken *C(const struct bp_game *g)
{
	return g->impl;
}

static int popc(uint64_t m)
{
	return __builtin_popcountll(m);
}

static int to_move(const struct bp_pos *p)
{
	return popc(BLACK(p)) > popc(ORANGE(p)); /* 0 black, 1 orange */
}

static uint64_t occupied(const struct bp_pos *p)
{
	return BLACK(p) | ORANGE(p) | NEUTRAL(p);
}

/* The outcome for the player to move from the loops on the board and, on a full
 * board, the decline rule. Any loop on the board was formed by the last turn, made by
 * the opponent of the player to move: under formed=mover that turn wins, whoever owns
 * the loops. */
static enum bp_value judge_core(const struct chicken *c, int mover, int full, uint64_t declined,
				int loop_b, int loop_o)
{
	int mine = mover ? loop_o : loop_b, theirs = mover ? loop_b : loop_o;
	if (c->formed_mover && (mine || theirs))
		return BP_VALUE_LOSS;
	if (mine && theirs) /* formed by the last turn, made by the opponent */
		return c->both_mover ? BP_VALUE_LOSS : BP_VALUE_WIN;
	if (mine)
		return BP_VALUE_WIN;
	if (theirs)
		return BP_VALUE_LOSS;
	if (!full)
		return BP_VALUE_NONE;
	if (!declined)
		return BP_VALUE_DRAW;
	return (int)declined - 1 == mover ? BP_VALUE_LOSS : BP_VALUE_WIN;
}

static enum bp_value judge_planes(const struct chicken *c, uint64_t black, uint64_t orange,
				  uint64_t neutral, uint64_t declined, int loop_b, int loop_o)
{
	return judge_core(c, popc(black) > popc(orange), (black | orange | neutral) == c->L.full,
			  declined, loop_b, loop_o);
}

static enum bp_value judge(const struct chicken *c, const struct bp_pos *p, int loop_b, int loop_o)
{
	return judge_planes(c, BLACK(p), ORANGE(p), NEUTRAL(p), DECLINED(p), loop_b, loop_o);
}

static enum bp_value judge_full(const struct chicken *c, const struct bp_pos *p)
{
	int lb = bp_loops_enclosed(&c->L, 0, BLACK(p) | NEUTRAL(p)) != 0;
	int lo = bp_loops_enclosed(&c->L, 1, ORANGE(p) | NEUTRAL(p)) != 0;
	return judge(c, p, lb, lo);
}

static void chicken_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
}

/* The legal neutral cells for a friendly stone on f, given the components of the
 * mover's group set. */
static uint64_t neutral_cells(const struct chicken *c, const uint64_t *comps, int ncomps,
			      uint64_t empty, int f)
{
	uint64_t cf = 1ull << f;
	for (int i = 0; i < ncomps; i++)
		if (comps[i] & c->L.nb[f])
			cf |= comps[i];
	return empty & ~bp_loops_grow(&c->L, cf);
}

static int components(const struct chicken *c, uint64_t set, uint64_t *comps)
{
	int n = 0;
	while (set) {
		uint64_t comp = bp_loops_flood(&c->L, set, set & -set);
		set &= ~comp;
		comps[n++] = comp;
	}
	return n;
}

static int neutrals_allowed(const struct bp_pos *p)
{
	return !DECLINED(p) && (BLACK(p) | ORANGE(p)) != 0;
}

static int chicken_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct chicken *c = C(g);
	if (OVER(p))
		return 0;
	uint64_t empty = c->L.full & ~occupied(p);
	int n = 0;
	uint32_t single_flag = 0;
	if (neutrals_allowed(p)) {
		uint64_t comps[64];
		int mover = to_move(p);
		int nc = components(c, p->w[mover] | NEUTRAL(p), comps);
		for (uint64_t fs = empty; fs; fs &= fs - 1) {
			int f = __builtin_ctzll(fs);
			for (uint64_t xs = neutral_cells(c, comps, nc, empty, f); xs; xs &= xs - 1)
				out[n++].v = (uint32_t)f | (uint32_t)__builtin_ctzll(xs) << 8 |
					     MV_NEUTRAL;
		}
		if (n == 0)
			single_flag = MV_FORCED;
	}
	for (uint64_t fs = empty; fs; fs &= fs - 1)
		out[n++].v = (uint32_t)__builtin_ctzll(fs) | single_flag;
	return n;
}

static void chicken_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	const struct chicken *c = C(g);
	int mover = to_move(p);
	int f = (int)(m.v & 255);
	uint64_t gm = p->w[mover] | NEUTRAL(p), go = p->w[!mover] | NEUTRAL(p);
	/* the turn is judged after both stones are down */
	int may = bp_loops_may_close(&c->L, mover, gm, f), loop_o = 0;
	if (m.v & MV_NEUTRAL) {
		int x = (int)(m.v >> 8 & 255);
		may = may || bp_loops_may_close(&c->L, mover, gm | 1ull << f, x);
		loop_o = bp_loops_closes(&c->L, !mover, go, x);
		NEUTRAL(p) |= 1ull << x;
	} else if (neutrals_allowed(p) && (c->forced_decline || !(m.v & MV_FORCED))) {
		DECLINED(p) = (uint64_t)mover + 1;
	}
	p->w[mover] |= 1ull << f;
	int loop_m = may && bp_loops_enclosed(&c->L, mover, p->w[mover] | NEUTRAL(p)) != 0;
	OVER(p) = judge(c, p, mover ? loop_o : loop_m, mover ? loop_m : loop_o);
}

static enum bp_value chicken_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (enum bp_value)OVER(p);
}

static char chicken_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	return BLACK(p) >> cell & 1	? 'b'
	       : ORANGE(p) >> cell & 1	? 'o'
	       : NEUTRAL(p) >> cell & 1 ? 'n'
					: '.';
}

static void chicken_pos_format(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out)
{
	char cells[64];
	for (int i = 0; i < g->board->ncells; i++)
		cells[i] = chicken_cell_char(g, p, i);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %c declined=%c", "bo"[to_move(p)],
		       DECLINED(p) <= 2 ? "-bo"[DECLINED(p)] : '?');
}

/* Can the stone counts and `declined` come from a line of play? Turn 0 is black's
 * single stone; turn k >= 1 (orange when k is odd) drops one friendly stone and, until
 * the first decline, one neutral. So with T = b + o - 1 turns after the first and m
 * neutrals: nobody declined -> m == T (forced=free: m <= T, the free forced turns
 * being singles); X first declined on turn k -> m == k - 1 (forced=free: m <= k - 1),
 * 1 <= k <= T, and k odd exactly when X is orange. */
static int check_counts(const struct chicken *c, const struct bp_pos *p, struct bp_err *err)
{
	int b = popc(BLACK(p)), o = popc(ORANGE(p)), m = popc(NEUTRAL(p));
	int t = b + o - 1;
	if (b != o && b != o + 1)
		return bp_err_set(err, BP_EPARSE,
				  "%d black and %d orange stones: each turn drops one friendly "
				  "stone, black first, so black has as many as orange or one more",
				  b, o);
	if (t < 0) {
		if (m || DECLINED(p))
			return bp_err_set(err, BP_EPARSE,
					  "an empty board must have no neutral stones and "
					  "declined=-");
		return BP_OK;
	}
	if (m > t)
		return bp_err_set(err, BP_EPARSE,
				  "%d neutral stones but only %d turns after black's first "
				  "(at most one neutral a turn)",
				  m, t);
	if (!DECLINED(p)) {
		if (c->forced_decline && m != t)
			return bp_err_set(err, BP_EPARSE,
					  "declined=- but only %d neutral stones after %d turns "
					  "(each turn drops one until somebody declines)",
					  m, t);
		return BP_OK;
	}
	int orange = DECLINED(p) == 2;
	int kmin = m + 1; /* the decline turn */
	if (c->forced_decline) {
		if (kmin > t || (kmin % 2 == 1) != orange)
			return bp_err_set(err, BP_EPARSE,
					  "declined=%c does not fit %d neutral stones and %d turns "
					  "(the first decline comes right after the last neutral, "
					  "on turn %d, which is %s's)",
					  "bo"[orange], m, t, kmin, kmin % 2 ? "orange" : "black");
		return BP_OK;
	}
	int k = (kmin % 2 == 1) == orange ? kmin : kmin + 1;
	if (k > t)
		return bp_err_set(err, BP_EPARSE,
				  "declined=%c does not fit %d neutral stones and %d turns "
				  "(no later turn of that player to decline on)",
				  "bo"[orange], m, t);
	return BP_OK;
}

static int check_position(const struct chicken *c, struct bp_pos *p, struct bp_err *err)
{
	int rc = check_counts(c, p, err);
	if (rc)
		return rc;
	OVER(p) = judge_full(c, p);
	return BP_OK;
}

static int chicken_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			     struct bp_err *err)
{
	const struct chicken *c = C(g);
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, "bon", &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < c->n; i++) {
		const char *k = strchr("bon", pt.cells[i]);
		if (pt.cells[i] != '.' && k)
			out->w[k - "bon"] |= 1ull << i;
	}
	if (strcmp(pt.to_move, "b") != 0 && strcmp(pt.to_move, "o") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be b or o", pt.to_move);
	const char *d = bp_postext_key(&pt, "declined");
	if (!d)
		return bp_err_set(err, BP_EPARSE, "missing key 'declined' (-, b or o)");
	if (strcmp(d, "-") == 0)
		DECLINED(out) = 0;
	else if (strcmp(d, "b") == 0)
		DECLINED(out) = 1;
	else if (strcmp(d, "o") == 0)
		DECLINED(out) = 2;
	else
		return bp_err_set(err, BP_EPARSE, "declined=%s: expected -, b or o", d);
	if ((rc = bp_postext_check_keys(&pt, err)))
		return rc;
	if ((rc = check_counts(c, out, err)))
		return rc;
	char want = "bo"[to_move(out)];
	if (pt.to_move[0] != want)
		return bp_err_set(err, BP_EPARSE,
				  "side to move is %s, but with %d black and %d orange stones %c "
				  "moves (black first, one friendly stone a turn)",
				  pt.to_move, popc(BLACK(out)), popc(ORANGE(out)), want);
	return check_position(c, out, err);
}

static int parse_cell(const struct bp_game *g, const char *text, int *cell, int *used,
		      struct bp_err *err)
{
	return bp_board_cell_parse(g->board, text, cell, used, err);
}

static int chicken_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
			      struct bp_move *out, struct bp_err *err)
{
	const struct chicken *c = C(g);
	int f, x = -1, used, rc;
	char fname[16], xname[16];
	if ((rc = parse_cell(g, text, &f, &used, err)))
		return rc;
	const char *rest = text + used;
	snprintf(fname, sizeof fname, "%.*s", used, text);
	if (*rest == '+') {
		if ((rc = parse_cell(g, rest + 1, &x, &used, err)))
			return rc;
		snprintf(xname, sizeof xname, "%.*s", used, rest + 1);
		rest += 1 + used;
	}
	if (*rest)
		return bp_err_set(err, BP_EPARSE,
				  "unexpected '%.12s' in move '%.24s' (expected c3 or c3+d2)", rest,
				  text);
	if (OVER(p))
		return bp_err_set(err, BP_EILLEGAL, "move %s: the game is over", text);
	uint64_t occ = occupied(p);
	if (occ >> f & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, fname);
	if (x < 0) {
		struct bp_move *mv = bp_game_move_buffer(g);
		if (!mv)
			return BP_ENOMEM;
		int n = chicken_moves(g, p, mv);
		out->v = mv[n - 1].v & ~255u; /* the flag of single drops */
		out->v |= (uint32_t)f;
		free(mv);
		return BP_OK;
	}
	if (occ >> x & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, xname);
	if (x == f)
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: the friendly and the neutral stone need two cells",
				  text);
	if (!(BLACK(p) | ORANGE(p)))
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: black's first turn drops one black stone only", text);
	if (DECLINED(p))
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: %s declined, so no more neutral stones are played",
				  text, DECLINED(p) == 1 ? "black" : "orange");
	uint64_t comps[64];
	int mover = to_move(p);
	int nc = components(c, p->w[mover] | NEUTRAL(p), comps);
	if (!(neutral_cells(c, comps, nc, c->L.full & ~occ, f) >> x & 1))
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: the stones on %s and %s would be in one group of "
				  "%s",
				  text, fname, xname, mover ? "orange" : "black");
	out->v = (uint32_t)f | (uint32_t)x << 8 | MV_NEUTRAL;
	return BP_OK;
}

static void chicken_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
				struct bp_text *out)
{
	char name[16];
	(void)p;
	bp_board_cell_name(g->board, (int)(m.v & 255), name, sizeof name);
	bp_text_printf(out, "%s", name);
	if (m.v & MV_NEUTRAL) {
		bp_board_cell_name(g->board, (int)(m.v >> 8 & 255), name, sizeof name);
		bp_text_printf(out, "+%s", name);
	}
}

static void chicken_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			      struct bp_pos *out)
{
	const struct chicken *c = C(g);
	*out = *p;
	for (int i = 0; i < 3; i++)
		out->w[i] = bp_perm64_apply(c->perm, s, p->w[i]);
}

static void chicken_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	*out = *p;
	bp_perm64_canonical(C(g)->perm, p->w, 3, out->w);
}

static int mmax(uint32_t t)
{
	return t == 0 ? 0 : (int)(t - 1) / 2;
}

static uint32_t chicken_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (uint32_t)popc(occupied(p));
}

static int chicken_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct chicken *c = C(g);
	if (tier > (uint32_t)c->n || c->too_big[tier])
		return BP_ERANGE;
	*out = c->off[tier][mmax(tier) + 1];
	return BP_OK;
}

/* bp_bits_extract for v within mask, in steps of v's cells (few) instead of mask's. */
static uint64_t extract_sparse(uint64_t v, uint64_t mask)
{
	uint64_t out = 0;
	for (; v; v &= v - 1)
		out |= 1ull << popc(mask & ((v & -v) - 1));
	return out;
}

/* The index of a position within tier t from its planes (no checks). */
static uint64_t rank_planes(const struct chicken *c, int t, uint64_t occ, uint64_t neutral,
			    uint64_t orange, uint64_t declined)
{
	int m = popc(neutral), o = (t - m) / 2;
	uint64_t friendly = occ & ~neutral;
	uint64_t idx =
		bp_rank_subset(occ) * c->binom[t][m] + bp_rank_subset(extract_sparse(neutral, occ));
	idx = idx * c->binom[t - m][o] + bp_rank_subset(extract_sparse(orange, friendly));
	return c->off[t][m] + idx * (uint64_t)c->decl_states + (c->decl_states == 3 ? declined : 0);
}

static int chicken_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct chicken *c = C(g);
	uint64_t occ = occupied(p);
	int t = popc(occ), m = popc(NEUTRAL(p));
	if (c->too_big[t] || m > mmax((uint32_t)t))
		return BP_ERANGE;
	*out = rank_planes(c, t, occ, NEUTRAL(p), ORANGE(p), DECLINED(p));
	return BP_OK;
}

static int chicken_unrank(const struct bp_game *g, uint32_t tier, uint64_t index,
			  struct bp_pos *out)
{
	const struct chicken *c = C(g);
	uint64_t size;
	int rc = chicken_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	int t = (int)tier, m = 0;
	while (index >= c->off[t][m + 1])
		m++;
	index -= c->off[t][m];
	memset(out, 0, sizeof *out);
	if (c->decl_states == 3) {
		DECLINED(out) = index % 3;
		index /= 3;
	} else if (t > 0 && m != t - m - 1) {
		DECLINED(out) = (m + 1) % 2 ? 2 : 1; /* turn m + 1: odd turns are orange's */
	}
	int o = (t - m) / 2;
	uint64_t co = bp_binom(t - m, o), cm = bp_binom(t, m);
	uint64_t ro = index % co, rest = index / co;
	uint64_t rn = rest % cm, rocc = rest / cm;
	uint64_t occ = bp_unrank_subset(t, rocc);
	if (occ & ~c->L.full)
		return BP_ENOTFOUND;
	NEUTRAL(out) = bp_bits_deposit(bp_unrank_subset(m, rn), occ);
	uint64_t friendly = occ & ~NEUTRAL(out);
	ORANGE(out) = bp_bits_deposit(bp_unrank_subset(o, ro), friendly);
	BLACK(out) = friendly & ~ORANGE(out);
	return check_position(c, out, NULL) ? BP_ENOTFOUND : BP_OK;
}

/* ---- the tier walk: the solver's fast path ---------------------------------------
 *
 * A single drop leads from tier t to t + 1 and a pair to t + 2 (bp_walk.far), and
 * rank() covers every position, canonical or not. The walk steps through the indices
 * of a tier in order, keeping the four ranks of the index formula (declined, orange
 * within the friendly stones, neutrals within the occupied set, the occupied set) and
 * their cell sets, each set moved to the next one of its size in colex order by
 * Gosper's step; the tier's blocks (one per neutral count m) are entered afresh. It
 * keeps the canonical positions that pos_parse would accept and lists their children
 * as ranks of the children's planes: no canonical form and no check per child.
 *
 * Which valid positions a game reaches depends on the order of play (a neutral must
 * not join the group of the friendly stone dropped with it when it is dropped), so the
 * walk visits every valid canonical position and the engine marks the reached ones
 * (BP_GAME_WALK_UNREACHED). */

/* The next set of as many cells in colex order (s != 0). */
static uint64_t gosper(uint64_t s)
{
	uint64_t lowest = s & -s, r = s + lowest;
	return (((r ^ s) >> 2) >> __builtin_ctzll(s)) | r; /* / lowest, without a division */
}

/* The walk's table of cell sets (solver/games/cellsets.h) over every symmetry of the
 * board: black stones first in the canonical order, so the black set alone settles
 * most canonical tests, and the loop tests of both group sets become look-ups. Boards
 * of more than BP_CELLSETS_CELLS cells go without it and compare every symmetry's
 * images and fill per position. */

struct cwalk {
	int t, m, o;
	uint64_t co, cm; /* C(t - m, o), C(t, m) */
	uint64_t decl, ro, rn;
	uint64_t opat, npat, occ;
	uint64_t end;	 /* the block's end index */
	uint64_t bstart; /* the index where the current occupied and neutral sets begin */
};

/* Positions the state at index idx of tier t. */
static void cwalk_enter(const struct chicken *c, int t, uint64_t idx, struct cwalk *s)
{
	int m = 0;
	while (idx >= c->off[t][m + 1])
		m++;
	uint64_t local = idx - c->off[t][m];
	s->t = t;
	s->m = m;
	s->o = (t - m) / 2;
	s->co = bp_binom(t - m, s->o);
	s->cm = bp_binom(t, m);
	s->end = c->off[t][m + 1];
	s->decl = c->decl_states == 3 ? local % 3 : 0;
	local /= (uint64_t)c->decl_states;
	s->ro = local % s->co;
	local /= s->co;
	s->rn = local % s->cm;
	s->opat = bp_unrank_subset(s->o, s->ro);
	s->npat = bp_unrank_subset(m, s->rn);
	s->occ = bp_unrank_subset(t, local / s->cm);
	s->bstart = idx - (s->ro * (uint64_t)c->decl_states + s->decl);
}

/* Moves the state to the next index (within the block). */
static void cwalk_step(const struct chicken *c, struct cwalk *s)
{
	if (c->decl_states == 3 && s->decl < 2) {
		s->decl++;
		return;
	}
	s->decl = 0;
	if (++s->ro < s->co) {
		s->opat = gosper(s->opat);
		return;
	}
	s->ro = 0;
	s->opat = s->o ? (1ull << s->o) - 1 : 0;
	s->bstart += s->co * (uint64_t)c->decl_states;
	if (++s->rn < s->cm) {
		s->npat = gosper(s->npat);
		return;
	}
	s->rn = 0;
	s->npat = s->m ? (1ull << s->m) - 1 : 0;
	s->occ = gosper(s->occ);
}

/* Moves the state forward from its index to index `to` of tier t: over whole
 * occupied and neutral sets by their steps, then to the orange pattern by Gosper's
 * steps when it is near, else by unranking; a far jump enters afresh. */
static void cwalk_jump(const struct chicken *c, int t, uint64_t to, struct cwalk *s)
{
	const uint64_t D = (uint64_t)c->decl_states, bs = s->co * D;
	uint64_t nb = to - s->bstart < bs ? 0 : (to - s->bstart) / bs, ro = s->ro;
	if (to >= s->end || nb > 64) {
		cwalk_enter(c, t, to, s);
		return;
	}
	for (; nb; nb--) {
		s->bstart += bs;
		ro = 0;
		s->opat = s->o ? (1ull << s->o) - 1 : 0;
		if (++s->rn < s->cm) {
			s->npat = gosper(s->npat);
		} else {
			s->rn = 0;
			s->npat = s->m ? (1ull << s->m) - 1 : 0;
			s->occ = gosper(s->occ);
		}
	}
	const uint64_t within = to - s->bstart;
	s->decl = D == 1 ? 0 : within % D;
	s->ro = D == 1 ? within : within / D;
	if (s->ro - ro <= 16)
		for (; ro < s->ro; ro++)
			s->opat = gosper(s->opat);
	else
		s->opat = bp_unrank_subset(s->o, s->ro);
}

/* The first index from i on whose bit is set in marked, or hi when none is below hi. */
static uint64_t next_marked(const uint64_t *marked, uint64_t i, uint64_t hi)
{
	const uint64_t w = marked[i / 64] >> (i % 64);
	if (w)
		return i + (uint64_t)__builtin_ctzll(w);
	for (uint64_t k = i / 64 + 1; k * 64 < hi; k++)
		if (marked[k])
			return k * 64 + (uint64_t)__builtin_ctzll(marked[k]);
	return hi;
}

/* Child ranks in O(1) a child. Colex rank of a set {s_0 < s_1 < ...} is
 * sum_j C(s_j, j + 1). A child adds one or two cells to the occupied set, which
 * shifts the index j of the cells above them; a neutral (or orange) stone's slot
 * within the occupied (or friendly) set shifts by the added cells below it, and its
 * index by the added neutral (or orange) ones below it. So each part of a child's
 * index is a prefix sum below the added cells plus shifted suffix sums above them,
 * prepared once per occupied set (cranks_occ) and once per neutral set
 * (cranks_neutral; the slots of the neutrals within occ are the bits of the walk's
 * pattern). The orange part of a child's index is its pattern's rank (below). */
struct cranks {
	uint64_t occ;
	int slot[64];	  /* cells of occ below each cell */
	uint64_t P[66];	  /* P[k] = sum_{j<k} C(s_j, j + 1) */
	uint64_t Q1[66];  /* Q1[k] = sum_{j>=k} C(s_j, j + 2) */
	uint64_t Q2[66];  /* Q2[k] = sum_{j>=k} C(s_j, j + 3) */
	uint64_t N00[34]; /* neutrals i: prefix of C(p_i, i + 1) */
	uint64_t N10[34]; /* suffixes of C(p_i + 1, i + 1) */
	uint64_t N11[34]; /* C(p_i + 1, i + 2) */
	uint64_t N21[34]; /* C(p_i + 2, i + 2) */
};

static void cranks_occ(const struct chicken *c, uint64_t occ, struct cranks *k)
{
	int s[64], t = 0;
	k->occ = occ;
	for (int i = 0; i < c->n; i++) {
		k->slot[i] = t;
		if (occ >> i & 1)
			s[t++] = i;
	}
	k->P[0] = 0;
	for (int j = 0; j < t; j++)
		k->P[j + 1] = k->P[j] + c->binom[s[j]][j + 1];
	k->Q1[t] = k->Q2[t] = 0;
	for (int j = t; j-- > 0;) {
		k->Q1[j] = k->Q1[j + 1] + c->binom[s[j]][j + 2];
		k->Q2[j] = k->Q2[j + 1] + c->binom[s[j]][j + 3];
	}
}

/* npat: the neutrals' pattern within occ (bit j: the j-th cell of occ). */
static void cranks_neutral(const struct chicken *c, uint64_t npat, struct cranks *k)
{
	int p[34], m = 0;
	for (uint64_t r = npat; r; r &= r - 1)
		p[m++] = __builtin_ctzll(r);
	k->N00[0] = 0;
	for (int i = 0; i < m; i++)
		k->N00[i + 1] = k->N00[i] + c->binom[p[i]][i + 1];
	k->N10[m] = k->N11[m] = k->N21[m] = 0;
	for (int i = m; i-- > 0;) {
		k->N10[i] = k->N10[i + 1] + c->binom[p[i] + 1][i + 1];
		k->N11[i] = k->N11[i + 1] + c->binom[p[i] + 1][i + 2];
		k->N21[i] = k->N21[i + 1] + c->binom[p[i] + 2][i + 2];
	}
}

/* bp_rank_subset, by bytes for a set below 2^BP_SETRANK_BITS. */
static uint64_t rank_small(const struct chicken *c, uint64_t set)
{
	return set >> BP_SETRANK_BITS ? bp_rank_subset(set) : bp_setrank_of(&c->crank, set);
}

static int chicken_tier_walk(const struct bp_game *g, uint32_t tier, uint64_t lo, uint64_t hi,
			     unsigned what, const uint64_t *marked,
			     int (*visit)(void *ctx, const struct bp_walk *w), void *ctx)
{
	const struct chicken *c = C(g);
	uint64_t size;
	int rc = chicken_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (lo > hi || hi > size)
		return BP_ERANGE;
	if (lo == hi)
		return BP_OK;
	const int t = (int)tier, nsym = g->nsym;
	/* boards of at most 16 cells: every pattern ranks by two bytes */
	const int n16 = c->n <= 16;
	uint64_t children[64], images[16];
	uint64_t *far = malloc(sizeof *far * (size_t)(c->n * c->n + 1));
	if (!far)
		return BP_ENOMEM;
	struct cwalk s;
	struct cranks k;
	k.occ = ~0ull; /* no occupied set prepared */
	/* per empty cell, a single's index less its orange part (see below); kready:
	 * made for the current occupied and neutral sets */
	uint64_t single[64];
	int fbelow[64], kready = 0;
	/* flow[j]: the j lowest friendly cells */
	uint64_t flow[65] = { 0 };
	uint64_t ocell[64], fcell[64], last_occ = ~0ull, last_npat = ~0ull, last_neutral = 0;
	/* per symmetry, the images of occ and of the neutrals, and their parts of an
	 * image's index, made when those sets change */
	uint64_t iocc[12], iocc_rank[12], ifr[12], in_rank[12], ibase[12];
	const int images_asked = (what & BP_WALK_IMAGES) && nsym <= 12;
	/* per friendly stone j (in fcell's order) and symmetry, the bit of its image in
	 * the pattern of the image's orange stones within the image's friendly stones:
	 * an image's orange part is then the colex rank of an OR of these (made for the
	 * first canonical position of an occupied set and neutral set that needs them) */
	uint64_t islot[64][12];
	int islot_ready = 0, nfriendly = 0, iocc_ready = 0;
	/* ipat[s]: the pattern of symmetry s's image's orange stones within its friendly
	 * ones, for the orange pattern ipat_opat (kept while islot is) */
	uint64_t ipat[12] = { 0 }, ipat_opat = 0;
	const uint16_t *bt = bp_cellsets_get(&((struct chicken *)c)->sets, &c->L, c->perm, nsym);
	/* orange, kept from one index to the next: a step of the pattern changes a few of
	 * its bits, and only those cells are looked up */
	uint64_t orange = 0, last_opat = 0;
	int orange_ready = 0;
	cwalk_enter(c, t, lo, &s);
	for (uint64_t idx = lo; idx < hi; idx++) {
		if (idx > lo) {
			if (idx == s.end) {
				cwalk_enter(c, t, idx, &s);
				orange_ready = 0;
			} else {
				cwalk_step(c, &s);
			}
		}
		/* only marked positions asked: straight to the next one */
		if ((what & BP_WALK_ONLY_MARKED) && marked) {
			const uint64_t next = next_marked(marked, idx, hi);
			if (next >= hi)
				break;
			if (next > idx) {
				idx = next;
				cwalk_jump(c, t, idx, &s);
			}
		}
		/* the patterns' cells, through the cell lists of occ and of the friendly
		 * stones, each made when its set changes */
		const uint64_t occ = s.occ;
		if (occ != last_occ || s.npat != last_npat) {
			if (occ != last_occ) {
				int j = 0;
				for (uint64_t r = occ; r; r &= r - 1)
					ocell[j++] = r & -r;
				last_occ = occ;
				iocc_ready = 0;
			}
			last_neutral = 0;
			for (uint64_t r = s.npat; r; r &= r - 1)
				last_neutral |= ocell[__builtin_ctzll(r)];
			int j = 0;
			for (uint64_t r = occ & ~last_neutral; r; r &= r - 1, j++) {
				fcell[j] = r & -r;
				flow[j + 1] = flow[j] | fcell[j];
			}
			last_npat = s.npat;
			orange_ready = 0;
			kready = 0;
			islot_ready = 0;
			nfriendly = j;
		}
		const int mark = marked && (marked[idx / 64] >> (idx % 64) & 1);
		if ((what & BP_WALK_ONLY_MARKED) && marked && !mark)
			continue; /* the engine skips it: no canonical test, no children */
		const uint64_t neutral = last_neutral, friendly = occ & ~neutral;
		if (!orange_ready) {
			orange = 0;
			last_opat = 0;
			orange_ready = 1;
		}
		for (uint64_t r = s.opat ^ last_opat; r; r &= r - 1)
			orange ^= fcell[__builtin_ctzll(r)];
		last_opat = s.opat;
		const uint64_t black = friendly & ~orange;
		uint64_t declined = s.decl;
		if (c->decl_states == 1 && t > 0 && s.m != t - s.m - 1)
			declined = (s.m + 1) % 2 ? 2 : 1; /* as unrank */
		/* under forced=decline every index spells valid counts (the index leaves
		 * out `declined`, which unrank derives from them); under forced=free the
		 * combinations of `declined` are checked as unrank does */
		if (c->decl_states == 3) {
			struct bp_pos q;
			q.w[0] = black;
			q.w[1] = orange;
			q.w[2] = neutral;
			q.w[3] = declined;
			if (check_counts(c, &q, NULL))
				continue;
		}
		/* canonical: no symmetry gives a smaller image in bp_perm64_canonical's
		 * order (black, orange, neutral) */
		int canonical = 1;
		const unsigned fixing = bt ? bt[black] : 0;
		if (fixing & BP_CELLSETS_SMALLER) {
			/* a run of such indices within the block of one occupied and
			 * neutral set, one index an orange pattern (forced=decline): stepped
			 * over here as cwalk_step would, up to the last one before a black
			 * set the table does not rule out (most of the walk over a tier
			 * that is not jumping to its marked positions) */
			if (c->decl_states == 1 && !(what & BP_WALK_ONLY_MARKED))
				while (idx + 1 < hi && s.ro + 1 < s.co) {
					/* the orange set's own successor, Gosper's step within
					 * the friendly cells: the carry runs through the cells
					 * that are not friendly, and the lowest friendly cells
					 * make up the count (orange's pattern follows it) */
					uint64_t o2 = ((orange | ~friendly) + (orange & -orange)) &
						      friendly;
					o2 |= flow[s.o - popc(o2)];
					if (!(bt[friendly & ~o2] & BP_CELLSETS_SMALLER))
						break;
					s.opat = last_opat = gosper(s.opat);
					s.ro++;
					orange = o2;
					idx++;
				}
			continue;
		}
		for (unsigned f = fixing & BP_CELLSETS_FIXING; f && canonical; f &= f - 1) {
			const int sy = __builtin_ctz(f);
			uint64_t so = bp_perm64_apply(c->perm, sy, orange);
			if (so != orange) {
				canonical = so > orange;
				continue;
			}
			canonical = bp_perm64_apply(c->perm, sy, neutral) >= neutral;
		}
		for (int sy = 1; !bt && sy < nsym && canonical; sy++) {
			uint64_t sb = bp_perm64_apply(c->perm, sy, black);
			if (sb != black) {
				canonical = sb > black;
				continue;
			}
			uint64_t so = bp_perm64_apply(c->perm, sy, orange);
			if (so != orange) {
				canonical = so > orange;
				continue;
			}
			canonical = bp_perm64_apply(c->perm, sy, neutral) >= neutral;
		}
		if (!canonical)
			continue;
		struct bp_walk w = { .index = idx, .nchildren = -1 };
		if ((what & BP_WALK_IMAGES) && !((what & BP_WALK_IMAGES_UNMARKED) && mark)) {
			const uint64_t base = c->off[t][s.m];
			const uint64_t D = (uint64_t)c->decl_states, d = D == 3 ? declined : 0;
			const int by_slot = images_asked && nfriendly <= BP_SETRANK_BITS;
			if (images_asked && !iocc_ready) {
				for (int sy = 1; sy < nsym; sy++) {
					iocc[sy] = bp_perm64_apply(c->perm, sy, occ);
					iocc_rank[sy] = rank_small(c, iocc[sy]);
				}
				iocc_ready = 1;
			}
			if (images_asked && !islot_ready) {
				for (int sy = 1; sy < nsym; sy++) {
					uint64_t in = bp_perm64_apply(c->perm, sy, neutral);
					in_rank[sy] = rank_small(c, extract_sparse(in, iocc[sy]));
					ifr[sy] = iocc[sy] & ~in;
					ibase[sy] = base +
						    (iocc_rank[sy] * s.cm + in_rank[sy]) * s.co * D;
				}
			}
			if (by_slot && !islot_ready) {
				for (int j = 0; j < nfriendly; j++) {
					const int cell = __builtin_ctzll(fcell[j]);
					for (int sy = 1; sy < nsym; sy++)
						islot[j][sy] =
							1ull
							<< popc(ifr[sy] &
								((1ull << c->cimg[sy][cell]) - 1));
				}
				memset(ipat, 0, sizeof ipat);
				ipat_opat = 0;
			}
			islot_ready = 1;
			/* ipat follows the orange pattern's changed bits, as orange does,
			 * or is made afresh when fewer bits are set than changed */
			uint64_t diff = s.opat ^ ipat_opat;
			if (by_slot && popc(diff) > popc(s.opat)) {
				memset(ipat, 0, sizeof ipat);
				diff = s.opat;
			}
			if (by_slot)
				for (uint64_t r = diff; r; r &= r - 1) {
					const uint64_t *sl = islot[__builtin_ctzll(r)];
					for (int sy = 1; sy < nsym; sy++)
						ipat[sy] ^= sl[sy];
				}
			ipat_opat = s.opat;
			for (int sy = 1; sy < nsym; sy++) {
				uint64_t r;
				if (by_slot)
					r = ibase[sy] +
					    (n16 ? bp_setrank_of16(&c->crank, ipat[sy])
						 : bp_setrank_of(&c->crank, ipat[sy])) *
						    D +
					    d;
				else if (images_asked)
					r = base +
					    ((iocc_rank[sy] * s.cm + in_rank[sy]) * s.co +
					     bp_rank_subset(extract_sparse(
						     bp_perm64_apply(c->perm, sy, orange),
						     ifr[sy]))) *
						    D +
					    d;
				else
					r = rank_planes(c, t, bp_perm64_apply(c->perm, sy, occ),
							bp_perm64_apply(c->perm, sy, neutral),
							bp_perm64_apply(c->perm, sy, orange),
							declined);
				if (r != idx)
					images[w.nimages++] = r;
			}
			w.images = images;
		}
		/* the forward pass decides a class by its members' bits: a class with none
		 * set needs no children */
		if ((what & BP_WALK_ONLY_CLASS_MARKED) && marked && !mark && w.images) {
			int any = 0;
			for (int i = 0; i < w.nimages && !any; i++)
				any = marked[w.images[i] / 64] >> (w.images[i] % 64) & 1;
			if (!any)
				continue;
		}
		const int lb = (what & BP_WALK_CHILDREN) &&
			       (bt ? (bt[black | neutral] & BP_CELLSETS_LOOP0) != 0
				   : bp_loops_enclosed(&c->L, 0, black | neutral) != 0);
		const int lor = (what & BP_WALK_CHILDREN) &&
				(bt ? (bt[orange | neutral] & BP_CELLSETS_LOOP1) != 0
				    : bp_loops_enclosed(&c->L, 1, orange | neutral) != 0);
		/* a position over: its outcome, as outcome() after unrank would say */
		if (what & BP_WALK_CHILDREN)
			w.outcome = judge_planes(c, black, orange, neutral, declined, lb, lor);
		if ((what & BP_WALK_CHILDREN) && w.outcome == BP_VALUE_NONE) {
			const int mover = popc(black) > popc(orange);
			const uint64_t own = mover ? orange : black, empty = c->L.full & ~occ;
			const int m = s.m, t1 = t + 1, o1 = (t1 - m) / 2;
			const uint64_t D = (uint64_t)c->decl_states;
			/* the child tiers' factors: singles (t + 1, m), pairs (t + 2, m + 1);
			 * both have t + 1 - m friendly stones */
			const uint64_t cm1 = c->binom[t1][m], cm2 = c->binom[t1 + 1][m + 1];
			const uint64_t co = c->binom[t1 - m][o1];
			const uint64_t base1 = c->off[t1][m],
				       base2 = t1 + 1 <= c->n ? c->off[t1 + 1][m + 1] : 0;
			/* what depends on occ and the neutrals only: the sums of
			 * cranks_occ and cranks_neutral, and per empty cell f a single's
			 * index less its orange part and `declined` */
			if (!kready) {
				if (k.occ != occ)
					cranks_occ(c, occ, &k);
				cranks_neutral(c, s.npat, &k);
				for (uint64_t fs = empty; fs; fs &= fs - 1) {
					const int f = __builtin_ctzll(fs);
					const uint64_t below_f = (fs & -fs) - 1;
					const int kf = k.slot[f], jf = popc(neutral & below_f);
					const uint64_t rocc1 =
						k.P[kf] + c->binom[f][kf + 1] + k.Q1[kf];
					single[f] = base1 +
						    (rocc1 * cm1 + k.N00[jf] + k.N10[jf]) * co * D;
					fbelow[f] = popc(friendly & below_f);
				}
				kready = 1;
			}
			/* a child's orange pattern is the position's with a bit put in at
			 * the new friendly stone's slot (set when orange moves); its rank
			 * by bytes where it fits */
			const int by_bytes = popc(friendly) < BP_SETRANK_BITS;
			uint64_t comps[64];
			w.nchildren = 0;
			w.nfar = 0;
			int pairs = !declined && friendly,
			    nc = pairs ? components(c, own | neutral, comps) : 0;
			/* singles, as chicken_apply: a decline, unless forced under
			 * forced=free; the decline depends on whether any pair exists (the
			 * index spells it under forced=free only) */
			int any_pair = 0;
			for (uint64_t fs = empty; D == 3 && pairs && fs && !any_pair; fs &= fs - 1)
				any_pair = neutral_cells(c, comps, nc, empty,
							 __builtin_ctzll(fs)) != 0;
			uint64_t cdecl = declined;
			if (pairs && (c->forced_decline || any_pair))
				cdecl = (uint64_t)mover + 1;
			if (D != 3)
				cdecl = 0;
			for (uint64_t fs = empty; fs; fs &= fs - 1) {
				const int f = __builtin_ctzll(fs);
				const uint64_t below_f = (fs & -fs) - 1;
				const int fb = fbelow[f];
				const uint64_t lowm = (1ull << fb) - 1;
				const uint64_t cpat = (s.opat & lowm) | (s.opat & ~lowm) << 1 |
						      (uint64_t)mover << fb;
				const uint64_t ro = n16	       ? bp_setrank_of16(&c->crank, cpat)
						    : by_bytes ? bp_setrank_of(&c->crank, cpat)
							       : bp_rank_subset(cpat);
				children[w.nchildren++] = single[f] + ro * D + cdecl;
				if (!pairs)
					continue;
				const int kf = k.slot[f], jf = popc(neutral & below_f);
				/* pairs, as chicken_moves: the neutral outside the grown group
				 * of the friendly stone */
				for (uint64_t xs = neutral_cells(c, comps, nc, empty, f); xs;
				     xs &= xs - 1) {
					const int x = __builtin_ctzll(xs);
					const int kx = k.slot[x],
						  jx = popc(neutral & ((xs & -xs) - 1));
					uint64_t rocc, rn;
					if (f < x) {
						rocc = k.P[kf] + c->binom[f][kf + 1] + k.Q1[kf] -
						       k.Q1[kx] + c->binom[x][kx + 2] + k.Q2[kx];
						rn = k.N00[jf] + k.N10[jf] - k.N10[jx] + k.N21[jx] +
						     c->binom[kx + 1][jx + 1];
					} else {
						rocc = k.P[kx] + c->binom[x][kx + 1] + k.Q1[kx] -
						       k.Q1[kf] + c->binom[f][kf + 2] + k.Q2[kf];
						rn = k.N00[jx] + k.N11[jx] - k.N11[jf] + k.N21[jf] +
						     c->binom[kx][jx + 1];
					}
					far[w.nfar++] = base2 + ((rocc * cm2 + rn) * co + ro) * D;
				}
			}
		}
		w.children = children;
		w.far = far;
		if ((rc = visit(ctx, &w)))
			break;
	}
	free(far);
	return rc;
}

/* Segments: the block of one neutral count m, indices off[t][m] .. off[t][m + 1] - 1 of
 * tier t (a symmetry keeps the counts). A single drop leads from (t, m) to (t + 1, m), a
 * pair to (t + 2, m + 1). With d = t - 2m, a single raises d and a pair keeps d and
 * raises m, so the order d descending, then m descending, lists every segment after
 * its children; and it frees segments early: (t, m) is read only by (t - 1, m) and
 * (t - 2, m - 1), which follow it closely in that order (the live segments of hex3 peak
 * near 10.7 G records, where tiers 13 to 15 in tier order hold 33.5 G). */
static int chicken_walk_segments(const struct bp_game *g, struct bp_segment *out, int max)
{
	const struct chicken *c = C(g);
	int n = 0, place[65][34];
	for (int d = c->n; d >= 0; d--)
		for (int m = (c->n - d) / 2; m >= 0; m--) {
			int t = d + 2 * m;
			if (t > c->n || m > mmax((uint32_t)t))
				continue;
			if (c->too_big[t])
				return BP_ERANGE;
			place[t][m] = n;
			if (out && n < max) {
				struct bp_segment *sg = &out[n];
				memset(sg, 0, sizeof *sg);
				sg->tier = (uint32_t)t;
				sg->lo = c->off[t][m];
				sg->hi = c->off[t][m + 1];
				if (t + 1 <= c->n)
					sg->children[sg->nchildren++] = place[t + 1][m];
				if (t + 2 <= c->n && m + 1 <= mmax((uint32_t)t + 2))
					sg->children[sg->nchildren++] = place[t + 2][m + 1];
			}
			n++;
		}
	return n;
}

static void chicken_describe(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			     struct bp_text *text)
{
	const uint64_t sets[2] = { BLACK(p) | NEUTRAL(p), ORANGE(p) | NEUTRAL(p) };
	bp_loops_describe(&C(g)->L, g->board, sets, "bo", json, text);
}

static void chicken_destroy(struct bp_game *g)
{
	struct chicken *c = g->impl;
	bp_perm64_destroy(c->perm);
	bp_zobrist_destroy(c->zob);
	free(c->sets);
	free(c);
	g->impl = NULL;
}

static int chicken_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *b = g->board;
	if (b->ncells > 64)
		return bp_err_set(err, BP_ESPEC,
				  "chicken: board %s has %d cells; at most 64 are supported "
				  "(hex5, rh8x8, tri10 and smaller)",
				  b->name, b->ncells);
	struct chicken *c = calloc(1, sizeof *c);
	if (!c)
		return BP_ENOMEM;
	int rc = bp_loops_init(&c->L, b, NULL);
	if (rc) {
		free(c);
		return rc;
	}
	c->n = b->ncells;
	c->both_mover = strcmp(g->value[0], "mover") == 0;
	c->forced_decline = strcmp(g->value[1], "decline") == 0;
	c->formed_mover = strcmp(g->value[2], "mover") == 0;
	c->decl_states = c->forced_decline ? 1 : 3;
	for (int i = 0; i < 67; i++)
		for (int k = 0; k < 67; k++)
			c->binom[i][k] = i <= 64 ? bp_binom(i, k) : 0;
	for (int t = 0; t <= c->n; t++) {
		uint64_t acc = 0;
		for (int m = 0; m <= mmax((uint32_t)t); m++) {
			uint64_t s;
			c->off[t][m] = acc;
			int o = (t - m) / 2;
			if (__builtin_mul_overflow(bp_binom(c->n, t), bp_binom(t, m), &s) ||
			    __builtin_mul_overflow(s, bp_binom(t - m, o), &s) ||
			    __builtin_mul_overflow(s, (uint64_t)c->decl_states, &s) ||
			    __builtin_add_overflow(acc, s, &acc))
				c->too_big[t] = 1;
		}
		c->off[t][mmax((uint32_t)t) + 1] = acc;
	}
	int syms[12];
	for (int s = 0; s < b->nsym; s++)
		syms[s] = s;
	for (int s = 0; s < b->nsym && s < 12; s++)
		for (int cell = 0; cell < c->n; cell++)
			c->cimg[s][cell] = (uint8_t)bp_board_sym(b, s, cell);
	bp_setrank_init(&c->crank);
	if ((rc = bp_perm64_create(b, syms, b->nsym, &c->perm))) {
		free(c);
		return rc;
	}
	if ((rc = bp_zobrist_create(b, 3, &c->zob))) {
		bp_perm64_destroy(c->perm);
		free(c);
		return rc;
	}
	g->impl = c;
	g->max_moves = c->n * c->n;
	g->pos_words = 5; /* b, o, n, declined, the outcome */
	g->nsym = b->nsym;
	g->ntiers = (uint32_t)c->n + 1;
	return BP_OK;
}

void bp_chicken_picture(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *out)
{
	(void)g;
	(void)p;
	out->nchars = 3;
	out->chars[0] = 'b';
	out->colour[0] = 0x1a1a1a;
	out->name[0] = "black";
	out->chars[1] = 'o';
	out->colour[1] = 0xf08c1e;
	out->name[1] = "orange";
	out->chars[2] = 'n';
	out->colour[2] = 0xb4b4b4;
	out->name[2] = "neutral";
	out->neutral = 'n';
}

/* Hashes of the images for proof-number search: the three stone planes, with
 * `declined` and the stored outcome (which no symmetry moves) as the extra word. */
static uint64_t chicken_extra(const struct bp_pos *p)
{
	return DECLINED(p) | OVER(p) << 8;
}

static uint64_t chicken_sym_hash(const struct bp_game *g, const struct bp_pos *p, uint64_t *h)
{
	return bp_zobrist_hash(C(g)->zob, p->w, chicken_extra(p), h);
}

static uint64_t chicken_sym_hash_move(const struct bp_game *g, const struct bp_pos *p,
				      const uint64_t *h, const struct bp_pos *c, uint64_t *out)
{
	/* one move drops a friendly stone and perhaps a neutral: their planes and cells
	 * name the rows at once, without the update's scan of the planes (this runs once
	 * per child of a search) */
	uint64_t db = BLACK(p) ^ BLACK(c), dfr = db | (ORANGE(p) ^ ORANGE(c));
	uint64_t dn = NEUTRAL(p) ^ NEUTRAL(c);
	if (dfr == 0 || (dfr & (dfr - 1)) != 0 || (dn & (dn - 1)) != 0)
		return bp_zobrist_update(C(g)->zob, p->w, c->w, chicken_extra(p), chicken_extra(c),
					 h, out);
	int cells[2] = { __builtin_ctzll(dfr) * 3 + (db == 0),
			 dn ? __builtin_ctzll(dn) * 3 + 2 : -1 };
	if (!out)
		return bp_zobrist_child_key(C(g)->zob, cells[0], cells[1], chicken_extra(p),
					    chicken_extra(c), h);
	return bp_zobrist_update_cells(C(g)->zob, cells, dn ? 2 : 1, chicken_extra(p),
				       chicken_extra(c), h, out);
}

/* ---- the children of one node (proof-number search) ----
 *
 * Every child of a node is the node plus the mover's stone on f and perhaps a neutral
 * on x, so what chicken_apply finds from the position (the mover, both group sets,
 * whether the single drop declines) is found once per node, and the child's outcome
 * is a table look-up on the two loop tests' answers: kind (pair, single that
 * declines or keeps `declined`), the mover's new loop, the opponent's new loop. The
 * board is full after the child exactly when one empty cell (single) or two (pair)
 * were left, which the kind's entry already says.
 *
 * The parent holds no loop for either side, since it is not over. So the mover's set
 * G plus the friendly stone f holds a loop exactly when bp_loops_closes_in says so,
 * from G's groups (found once per node, each when first needed), with no flood of
 * the free cells: nearly every child is a single in the searches of
 * bench/dfpn_results.md, and before, 17% of them passed bp_loops_may_close's local
 * filter and paid a whole bp_loops_enclosed, which found a loop in 1% of those.
 * Pairs keep chicken_apply's tests for the neutral, with two memos, since their f and
 * x each come back with many partners: the opponent's loop through a neutral on x
 * depends on x alone, and a loop of G + f stays when x is added too (a cell that
 * cannot reach the outside avoiding g cannot avoid g plus x either:
 * bp_loops_enclosed only grows with g), so G + f with a loop means a loop for every
 * x, and G + f without one holds no loop, which is what bp_loops_may_close needs to
 * test x alone. */
enum { KID_PAIR, KID_DECLINES, KID_KEEPS };

struct kids {
	uint64_t gm, go;     /* the mover's and the opponent's group sets */
	uint64_t extra, exf; /* the parent's extra word of the keys (chicken_extra), mixed */
	struct bp_zobrist_keys zk;
	uint64_t decl[3];	       /* a child's `declined`, by kind */
	uint64_t f_done, f_loop;       /* pairs: G + f tested; G + f holds a loop */
	struct bp_loops_groups groups; /* the mover's groups, for G + f */
	uint64_t x_done, x_loop;       /* pairs: the opponent's set + x tested; holds a loop */
	int mover;
	uint8_t single_kind[2]; /* a single's kind, by its forced flag */
	uint8_t over[3][2][2];	/* the child's outcome: kind, mover's loop, opponent's loop */
};

static void chicken_kids_node(const struct bp_game *g, const struct bp_pos *p, void *ctx)
{
	const struct chicken *c = C(g);
	struct kids *k = ctx;
	int mover = to_move(p);
	int nempty = popc(c->L.full & ~occupied(p));
	k->mover = mover;
	k->gm = p->w[mover] | NEUTRAL(p);
	k->go = p->w[!mover] | NEUTRAL(p);
	k->extra = chicken_extra(p);
	bp_zobrist_keys(c->zob, &k->zk);
	assert(k->extra < BP_ZOBRIST_EXTRA_KEPT); /* declined <= 2, the outcome <= 3 */
	k->exf = k->zk.ex[k->extra];
	k->f_done = k->f_loop = k->x_done = k->x_loop = 0;
	bp_loops_groups_init(&c->L, mover, k->gm, &k->groups);
	/* chicken_apply's decline: a single when neutrals are allowed declines, unless it
	 * was forced under forced=free */
	int allowed = neutrals_allowed(p);
	k->decl[KID_PAIR] = DECLINED(p);
	k->decl[KID_DECLINES] = (uint64_t)mover + 1;
	k->decl[KID_KEEPS] = DECLINED(p);
	k->single_kind[0] = allowed ? KID_DECLINES : KID_KEEPS;
	k->single_kind[1] = allowed && c->forced_decline ? KID_DECLINES : KID_KEEPS;
	for (int kind = 0; kind < 3; kind++)
		for (int lm = 0; lm < 2; lm++)
			for (int lo = 0; lo < 2; lo++)
				k->over[kind][lm][lo] = (uint8_t)judge_core(
					c, !mover, nempty == (kind == KID_PAIR ? 2 : 1),
					k->decl[kind], mover ? lo : lm, mover ? lm : lo);
}

/* A pair's child (kids_child), out of line so that the singles' path saves no more
 * registers than it needs. */
static __attribute__((noinline)) void kids_pair(const struct chicken *c, struct kids *k,
						struct bp_pos *p, struct bp_move m)
{
	const int mover = k->mover, f = (int)(m.v & 255), x = (int)(m.v >> 8 & 255);
	const uint64_t fb = 1ull << f, xb = 1ull << x, gm = k->gm;
	if (!(k->f_done & fb)) {
		k->f_done |= fb;
		if (bp_loops_closes_in(&c->L, &k->groups, f))
			k->f_loop |= fb;
	}
	int lm = (k->f_loop & fb) || (bp_loops_may_close(&c->L, mover, gm | fb, x) &&
				      bp_loops_enclosed(&c->L, mover, gm | fb | xb) != 0);
	if (!(k->x_done & xb)) {
		k->x_done |= xb;
		if (bp_loops_closes(&c->L, !mover, k->go, x))
			k->x_loop |= xb;
	}
	NEUTRAL(p) |= xb;
	p->w[mover] |= fb;
	OVER(p) = k->over[KID_PAIR][lm][(k->x_loop & xb) != 0];
}

static uint64_t chicken_kids_child(const struct bp_game *g, void *ctx, const uint64_t *h,
				   struct bp_pos *p, struct bp_move m, enum bp_value *v)
{
	const struct chicken *c = C(g);
	struct kids *k = ctx;
	const int f = (int)(m.v & 255);
	/* the friendly stone's row (plane `mover`: b 0, o 1), as chicken_sym_hash_move
	 * finds it from the planes */
	const uint64_t *r0 = k->zk.t + ((size_t)f * 3 + (size_t)k->mover) * BP_ZOBRIST_MAX_SYM;
	if (m.v & MV_NEUTRAL) {
		kids_pair(c, k, p, m);
		*v = (enum bp_value)OVER(p);
		const uint64_t to = chicken_extra(p);
		const uint64_t e = to == k->extra ? 0 : k->exf ^ k->zk.ex[to];
		return k->zk.key[1](k->zk.nsym, h, e, r0,
				    k->zk.t + ((size_t)(m.v >> 8 & 255) * 3 + 2) *
						      BP_ZOBRIST_MAX_SYM);
	}
	const int kind = k->single_kind[(m.v & MV_FORCED) != 0];
	const int lm = bp_loops_closes_in(&c->L, &k->groups, f);
	DECLINED(p) = k->decl[kind];
	p->w[k->mover] |= 1ull << f;
	OVER(p) = k->over[kind][lm][0];
	*v = (enum bp_value)OVER(p);
	/* the key's extra word: the child's is below 1024, as its parent's */
	const uint64_t to = chicken_extra(p), e = to == k->extra ? 0 : k->exf ^ k->zk.ex[to];
	return k->zk.key[0](k->zk.nsym, h, e, r0, r0);
}

const struct bp_game_ops bp_chicken_ops = {
	.name = "chicken",
	.title = "Glorieta \"Chicken\": friendly + neutral stone a turn until someone declines",
	.shapes = BP_SHAPES_HEXCELL,
	.flags = BP_GAME_WALK_UNREACHED | BP_GAME_TIER_SKIP,
	.options = chicken_options,
	.create = chicken_create,
	.destroy = chicken_destroy,
	.start = chicken_start,
	.moves = chicken_moves,
	.apply = chicken_apply,
	.outcome = chicken_outcome,
	.pos_parse = chicken_pos_parse,
	.pos_format = chicken_pos_format,
	.cell_char = chicken_cell_char,
	.move_parse = chicken_move_parse,
	.move_format = chicken_move_format,
	.transform = chicken_transform,
	.canonical = chicken_canonical,
	.tier = chicken_tier,
	.tier_size = chicken_tier_size,
	.rank = chicken_rank,
	.unrank = chicken_unrank,
	.tier_walk = chicken_tier_walk,
	.canonical_mask = bp_game_walk_mask, /* the walk visits the valid canonical ones */
	.walk_segments = chicken_walk_segments,
	.describe = chicken_describe,
	.picture = bp_chicken_picture,
	.claims = "no-draw first-player",
	/* 1.9 times fewer nodes on hex4; mobility collapses here (>28 times more) (bench/dfpn_results.md, session 9) */
	.dfpn_weak = 1,
	.sym_hash = chicken_sym_hash,
	.sym_hash_move = chicken_sym_hash_move,
	.kids_ctx_size = sizeof(struct kids),
	.kids_node = chicken_kids_node,
	.kids_child = chicken_kids_child,
};
