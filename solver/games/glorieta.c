/* SPDX-License-Identifier: MIT */
/* Revised Glorieta on bitboards. A position is
 *
 *     w[0]  yellow stones (y)        w[4]  yellow's hand: bits 0-6 the stones, bit 7
 *     w[1]  black stones (b)               set after a flip since taking it ('+'),
 *     w[2]  neutral stones (n)             HAND_NONE before the hands are taken
 *     w[3]  to move: 0 yellow, 1 b   w[5]  black's hand, the same way
 *                                    w[6]  the outcome by loops for the player to
 *                                          move (derived, so outcome() is cheap)
 *
 * Players are 0 (yellow) and 1 (black) everywhere, ring owners included.
 *
 * Move code: bits 0-7 the first cell, bits 8-15 the second cell of a two-stone drop
 * (greater than the first), bits 16-17 the kind: 0 drop one, 1 drop two, 2 flip.
 *
 * Symmetries: the board symmetries that keep every ring space's colour, plus those
 * that exchange all of them combined with exchanging the players (stones, hands and
 * the side to move); with ring=none every board symmetry comes in both forms. The
 * rules are the same for both colours after yellow's first stone, so values are
 * invariant; but that first stone is outside the hands, so the colour-exchanged image
 * of a position can fail validation (its counts would need black to have dropped the
 * first stone). canonical() therefore takes the smallest image that passes
 * validation, which makes the classes the orbits intersected with the valid
 * positions: still a partition, and every class member has the same value.
 *
 * Ranking. The tier is stones on the board plus neutral stones (a drop adds one or
 * two stones, a flip one neutral), 0 .. 2n; tier 0 is the start position alone. A
 * position of tier t with k occupied cells holds m = t - k neutrals; with HS = 2H + 1
 * hand states (h = 0 .. H, '+' or not, no "0+"):
 *
 *     off[t][k] + (((((colex(occupied) * C(k, m) + colex(neutrals within occupied))
 *                    * 2^(k-m) + black stones within the rest, as bits)
 *                   * HS + yellow hand) * HS + black hand) * 2 + side to move
 *
 * where a hand state is 0 for h = 0, else 1 + 2 (h - 1) + plus. Indices whose
 * position fails validation are holes. */
#include "solver/games/glorieta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/rank.h"
#include "canon/symmetry.h"
#include "solver/games/loops.h"
#include "solver/games/postext.h"

#define HAND_NONE 0x100u
#define HAND_PLUS 0x80u

#define MV_ONE 0u
#define MV_TWO 1u
#define MV_FLIP 2u

struct glorieta {
	struct bp_loops L;
	int n, hand;
	int both_mover;
	int has_ring;
	char ring_text[6 * 64 + 1];
	bp_perm64 *perm; /* every board symmetry */
	int nsyms;
	int sym[24], swap[24]; /* the instance's symmetries: board symmetry, exchange */
	uint64_t off[129][66]; /* off[t][k], k from ceil(t/2); off[t][kmax + 1] = size */
	uint8_t too_big[129];
};

static const char *const both_choices[] = { "mover", "opponent", NULL };
static const struct bp_option glorieta_options[] = {
	{ .key = "both",
	  .def = "mover",
	  .choices = both_choices,
	  .help = "who wins when one turn forms loops for both players (cannot happen here)" },
	{ .key = "hand", .def = "6", .help = "H, the stones in a hand" },
	{ .key = "ring",
	  .def = "sides",
	  .help = "sides (six runs of N), alt (alternating spaces), none, or 6N letters b/y "
		  "clockwise from the corner above-left of a1" },
	{ 0 },
};

#define YELLOW(p) ((p)->w[0])
#define BLACK(p) ((p)->w[1])
#define NEUTRAL(p) ((p)->w[2])
#define TOMOVE(p) ((p)->w[3])
#define HAND(p, pl) ((p)->w[4 + (pl)])
#define OVER(p) ((p)->w[6])

static const struct glorieta *GL(const struct bp_game *g)
{
	return g->impl;
}

static int popc(uint64_t m)
{
	return __builtin_popcountll(m);
}

static uint64_t occupied(const struct bp_pos *p)
{
	return YELLOW(p) | BLACK(p) | NEUTRAL(p);
}

static int is_start(const struct bp_pos *p)
{
	return HAND(p, 0) == HAND_NONE;
}

static enum bp_value judge(const struct glorieta *gl, const struct bp_pos *p, int loop_y,
			   int loop_b)
{
	int mover = (int)TOMOVE(p);
	int mine = mover ? loop_b : loop_y, theirs = mover ? loop_y : loop_b;
	if (mine && theirs)
		return gl->both_mover ? BP_VALUE_LOSS : BP_VALUE_WIN;
	return mine ? BP_VALUE_WIN : theirs ? BP_VALUE_LOSS : BP_VALUE_NONE;
}

/* The empty board: an explicit ring of one colour already holds that player's loop
 * (it surrounds the whole board), and a finished position is terminal. */
static void glorieta_start(const struct bp_game *g, struct bp_pos *out)
{
	const struct glorieta *gl = GL(g);
	memset(out, 0, sizeof *out);
	HAND(out, 0) = HAND(out, 1) = HAND_NONE;
	OVER(out) = judge(gl, out, bp_loops_enclosed(&gl->L, 0, 0) != 0,
			  bp_loops_enclosed(&gl->L, 1, 0) != 0);
}

static int glorieta_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct glorieta *gl = GL(g);
	if (OVER(p))
		return 0;
	uint64_t empty = gl->L.full & ~occupied(p);
	int n = 0;
	if (is_start(p)) {
		for (uint64_t e = empty; e; e &= e - 1)
			out[n++].v = (uint32_t)__builtin_ctzll(e);
		return n;
	}
	int mover = (int)TOMOVE(p);
	unsigned h = (unsigned)HAND(p, mover) & 0x7f;
	if (h > 0) {
		for (uint64_t e = empty; e; e &= e - 1) {
			uint32_t c = (uint32_t)__builtin_ctzll(e);
			out[n++].v = c;
			if (h >= 2)
				for (uint64_t f = e & (e - 1); f; f &= f - 1)
					out[n++].v = c | (uint32_t)__builtin_ctzll(f) << 8 |
						     MV_TWO << 16;
		}
	}
	for (uint64_t s = p->w[mover]; s; s &= s - 1)
		out[n++].v = (uint32_t)__builtin_ctzll(s) | MV_FLIP << 16;
	return n;
}

static void glorieta_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	const struct glorieta *gl = GL(g);
	int c1 = (int)(m.v & 255), c2 = (int)(m.v >> 8 & 255);
	unsigned kind = m.v >> 16 & 3;
	if (is_start(p)) {
		YELLOW(p) |= 1ull << c1;
		HAND(p, 0) = HAND(p, 1) = (uint64_t)gl->hand;
		TOMOVE(p) = 1;
		int loop = bp_loops_enclosed(&gl->L, 0, YELLOW(p)) != 0;
		OVER(p) = judge(gl, p, loop, 0);
		return;
	}
	int mover = (int)TOMOVE(p), opp = !mover;
	uint64_t gm = p->w[mover] | NEUTRAL(p);
	int loop_m = 0, loop_o = 0;
	uint64_t hand = HAND(p, mover);
	if (kind == MV_FLIP) {
		loop_o = bp_loops_closes(&gl->L, opp, p->w[opp] | NEUTRAL(p), c1);
		p->w[mover] &= ~(1ull << c1);
		NEUTRAL(p) |= 1ull << c1;
		hand |= HAND_PLUS;
	} else {
		/* the turn is judged after both stones: the second may fill the only cell
		 * the first enclosed */
		int may = bp_loops_may_close(&gl->L, mover, gm, c1);
		p->w[mover] |= 1ull << c1;
		hand--;
		if (kind == MV_TWO) {
			may = may || bp_loops_may_close(&gl->L, mover, gm | 1ull << c1, c2);
			p->w[mover] |= 1ull << c2;
			hand--;
		}
		loop_m = may && bp_loops_enclosed(&gl->L, mover, p->w[mover] | NEUTRAL(p)) != 0;
	}
	if ((hand & 0x7f) == 0 && hand & HAND_PLUS)
		hand = (uint64_t)gl->hand; /* the refill at the end of the turn */
	HAND(p, mover) = hand;
	TOMOVE(p) = (uint64_t)opp;
	OVER(p) = judge(gl, p, mover ? loop_o : loop_m, mover ? loop_m : loop_o);
}

static enum bp_value glorieta_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	if (OVER(p))
		return (enum bp_value)OVER(p);
	if (is_start(p))
		return BP_VALUE_NONE;
	int mover = (int)TOMOVE(p);
	int can_drop = (HAND(p, mover) & 0x7f) && occupied(p) != GL(g)->L.full;
	/* no drop and no stone of theirs to flip: no legal turn, a draw ([choice]) */
	return can_drop || p->w[mover] ? BP_VALUE_NONE : BP_VALUE_DRAW;
}

static char glorieta_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	return YELLOW(p) >> cell & 1	? 'y'
	       : BLACK(p) >> cell & 1	? 'b'
	       : NEUTRAL(p) >> cell & 1 ? 'n'
					: '.';
}

static void format_hand(struct bp_text *out, char who, uint64_t h)
{
	if (h == HAND_NONE)
		bp_text_printf(out, " %c=-", who);
	else
		bp_text_printf(out, " %c=%u%s", who, (unsigned)(h & 0x7f),
			       h & HAND_PLUS ? "+" : "");
}

static void glorieta_pos_format(const struct bp_game *g, const struct bp_pos *p,
				struct bp_text *out)
{
	char cells[64];
	for (int i = 0; i < g->board->ncells; i++)
		cells[i] = glorieta_cell_char(g, p, i);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %c", "yb"[TOMOVE(p)]);
	format_hand(out, 'y', HAND(p, 0));
	format_hand(out, 'b', HAND(p, 1));
}

static int ceil_half(int x)
{
	return (x + 1) / 2;
}

/* Is there a history for the counts? See check_counts. */
static int counts_fit(const struct glorieta *gl, const struct bp_pos *p)
{
	int H = gl->hand, N = popc(NEUTRAL(p));
	int s[2] = { popc(YELLOW(p)), popc(BLACK(p)) };
	int h[2], plus[2];
	for (int pl = 0; pl < 2; pl++) {
		h[pl] = (int)(HAND(p, pl) & 0x7f);
		plus[pl] = (HAND(p, pl) & HAND_PLUS) != 0;
	}
	for (int ny = 0; ny <= N; ny++) {
		int flips[2] = { ny, N - ny };
		int lo[2], hi[2], ok = 1;
		for (int pl = 0; pl < 2 && ok; pl++) {
			/* stones dropped from hands: yellow's first stone is not one */
			int used = s[pl] + flips[pl] - (pl == 0);
			int u = H - h[pl]; /* from the current hand */
			if (used < u || (used - u) % H) {
				ok = 0;
				break;
			}
			int k = (used - u) / H; /* hands used up and refilled */
			if (flips[pl] < k + plus[pl]) {
				ok = 0;
				break;
			}
			lo[pl] = k * ceil_half(H) + ceil_half(u) + flips[pl];
			hi[pl] = k * H + u + flips[pl];
		}
		if (!ok)
			continue;
		/* turns after yellow's first: black's minus yellow's is 0 when black is
		 * to move, 1 when yellow is */
		int d = TOMOVE(p) ? 0 : 1;
		if (lo[1] <= hi[0] + d && lo[0] + d <= hi[1])
			return 1;
	}
	return 0;
}

/* Everything but the loops. With hands: each player's stones placed (on the board or
 * flipped since) are the first stone (yellow) plus full hands plus what the current
 * hand lost; each used-up hand had a flip, and so did the current one when '+'; each
 * turn after the first drops one or two stones of one hand or flips one, and the
 * turns alternate from black. The neutral stones may have been flipped by either
 * player, so every split is tried. */
static int check_counts(const struct glorieta *gl, const struct bp_pos *p, struct bp_err *err)
{
	if (is_start(p) || HAND(p, 1) == HAND_NONE) {
		if (HAND(p, 0) != HAND(p, 1))
			return bp_err_set(err, BP_EPARSE,
					  "y=- and b=- go together (before the hands are taken)");
		if (occupied(p) || TOMOVE(p))
			return bp_err_set(err, BP_EPARSE,
					  "y=- b=- is only the start position: an empty board, y "
					  "to move");
		return BP_OK;
	}
	for (int pl = 0; pl < 2; pl++) {
		int h = (int)(HAND(p, pl) & 0x7f);
		if (h > gl->hand)
			return bp_err_set(err, BP_EPARSE, "%c=%d: a hand holds at most %d stones",
					  "yb"[pl], h, gl -> hand);
		if (h == 0 && HAND(p, pl) & HAND_PLUS)
			return bp_err_set(err, BP_EPARSE,
					  "%c=0+: a player whose hand is empty and who has flipped "
					  "takes a new hand at the end of the turn",
					  "yb"[pl]);
	}
	if (!counts_fit(gl, p))
		return bp_err_set(err, BP_EPARSE,
				  "the stone counts do not fit the turn order: %d yellow, %d black "
				  "and %d neutral stones with y=%d%s b=%d%s and %c to move (after "
				  "yellow's first stone: hands of %d, a flip in each hand, one or "
				  "two stones or a flip a turn, black first)",
				  popc(YELLOW(p)), popc(BLACK(p)), popc(NEUTRAL(p)),
				  (int)(HAND(p, 0) & 0x7f), HAND(p, 0) & HAND_PLUS ? "+" : "",
				  (int)(HAND(p, 1) & 0x7f), HAND(p, 1) & HAND_PLUS ? "+" : "",
				  "yb"[TOMOVE(p)], gl -> hand);
	return BP_OK;
}

static int check_position(const struct glorieta *gl, struct bp_pos *p, struct bp_err *err)
{
	int rc = check_counts(gl, p, err);
	if (rc)
		return rc;
	int ly = bp_loops_enclosed(&gl->L, 0, YELLOW(p) | NEUTRAL(p)) != 0;
	int lb = bp_loops_enclosed(&gl->L, 1, BLACK(p) | NEUTRAL(p)) != 0;
	if (ly && lb)
		return bp_err_set(err, BP_EPARSE,
				  "both players have a loop: a drop forms only the mover's loop "
				  "and a flip only the opponent's, and the first loop ends the "
				  "game");
	OVER(p) = judge(gl, p, ly, lb);
	return BP_OK;
}

static int parse_hand(const struct glorieta *gl, const char *key, const char *v, uint64_t *out,
		      struct bp_err *err)
{
	if (!v)
		return bp_err_set(err, BP_EPARSE,
				  "missing key '%s' (stones in hand, as %s=%d or "
				  "%s=3+, or - at the start)",
				  key, key, gl->hand, key);
	if (strcmp(v, "-") == 0) {
		*out = HAND_NONE;
		return BP_OK;
	}
	char *end;
	long h = strtol(v, &end, 10);
	if (end == v || v[0] < '0' || v[0] > '9' || (v[0] == '0' && v[1] >= '0' && v[1] <= '9') ||
	    h > 127 || (*end && strcmp(end, "+") != 0))
		return bp_err_set(err, BP_EPARSE,
				  "%s=%s: expected the stones in hand, then + if that player "
				  "flipped since taking it (as 3 or 3+), or -",
				  key, v);
	*out = (uint64_t)h | (*end ? HAND_PLUS : 0);
	return BP_OK;
}

static int glorieta_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			      struct bp_err *err)
{
	const struct glorieta *gl = GL(g);
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, "ybn", &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < gl->n; i++) {
		const char *k = strchr("ybn", pt.cells[i]);
		if (pt.cells[i] != '.' && k)
			out->w[k - "ybn"] |= 1ull << i;
	}
	if (strcmp(pt.to_move, "y") != 0 && strcmp(pt.to_move, "b") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be y or b", pt.to_move);
	TOMOVE(out) = pt.to_move[0] == 'b';
	if ((rc = parse_hand(gl, "y", bp_postext_key(&pt, "y"), &HAND(out, 0), err)) ||
	    (rc = parse_hand(gl, "b", bp_postext_key(&pt, "b"), &HAND(out, 1), err)) ||
	    (rc = bp_postext_check_keys(&pt, err)))
		return rc;
	return check_position(gl, out, err);
}

static int glorieta_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
			       struct bp_move *out, struct bp_err *err)
{
	const struct glorieta *gl = GL(g);
	int c1, c2 = -1, used, rc, flip = text[0] == '~';
	const char *s = text + flip;
	if ((rc = bp_board_cell_parse(g->board, s, &c1, &used, err)))
		return rc;
	const char *rest = s + used;
	char n1[16], n2[16];
	snprintf(n1, sizeof n1, "%.*s", used, s);
	if (!flip && *rest == '+') {
		if ((rc = bp_board_cell_parse(g->board, rest + 1, &c2, &used, err)))
			return rc;
		snprintf(n2, sizeof n2, "%.*s", used, rest + 1);
		rest += 1 + used;
	}
	if (*rest)
		return bp_err_set(err, BP_EPARSE,
				  "unexpected '%.12s' in move '%.24s' (expected c3, c3+d2 or ~c3)",
				  rest, text);
	if (glorieta_outcome(g, p))
		return bp_err_set(err, BP_EILLEGAL, "move %s: the game is over", text);
	int mover = (int)TOMOVE(p);
	const char *who = mover ? "black" : "yellow";
	if (flip) {
		if (is_start(p))
			return bp_err_set(err, BP_EILLEGAL,
					  "move %s: yellow's first turn drops one stone", text);
		if (!(p->w[mover] >> c1 & 1))
			return bp_err_set(err, BP_EILLEGAL, "move %s: %s holds no %s stone to flip",
					  text, n1, who);
		out->v = (uint32_t)c1 | MV_FLIP << 16;
		return BP_OK;
	}
	uint64_t occ = occupied(p);
	unsigned h = is_start(p) ? 1 : (unsigned)HAND(p, mover) & 0x7f;
	if (occ == gl->L.full)
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: the board is full, the turn must be a flip (~cell)",
				  text);
	if (h == 0)
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: %s's hand is empty and %s has not flipped since "
				  "taking it, so the turn must be a flip (~cell)",
				  text, who, who);
	if (occ >> c1 & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, n1);
	if (c2 < 0) {
		out->v = (uint32_t)c1;
		return BP_OK;
	}
	if (is_start(p))
		return bp_err_set(err, BP_EILLEGAL, "move %s: yellow's first turn drops one stone",
				  text);
	if (h < 2)
		return bp_err_set(err, BP_EILLEGAL, "move %s: %s has only one stone in hand", text,
				  who);
	if (occ >> c2 & 1)
		return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text, n2);
	if (c1 == c2)
		return bp_err_set(err, BP_EILLEGAL, "move %s: two stones need two cells", text);
	int lo = c1 < c2 ? c1 : c2, hi = c1 < c2 ? c2 : c1;
	out->v = (uint32_t)lo | (uint32_t)hi << 8 | MV_TWO << 16;
	return BP_OK;
}

static void glorieta_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
				 struct bp_text *out)
{
	char name[16];
	(void)p;
	unsigned kind = m.v >> 16 & 3;
	bp_board_cell_name(g->board, (int)(m.v & 255), name, sizeof name);
	bp_text_printf(out, "%s%s", kind == MV_FLIP ? "~" : "", name);
	if (kind == MV_TWO) {
		bp_board_cell_name(g->board, (int)(m.v >> 8 & 255), name, sizeof name);
		bp_text_printf(out, "+%s", name);
	}
}

static void glorieta_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			       struct bp_pos *out)
{
	const struct glorieta *gl = GL(g);
	int bs = gl->sym[s], x = gl->swap[s];
	*out = *p;
	out->w[0] = bp_perm64_apply(gl->perm, bs, p->w[x]);
	out->w[1] = bp_perm64_apply(gl->perm, bs, p->w[!x]);
	NEUTRAL(out) = bp_perm64_apply(gl->perm, bs, NEUTRAL(p));
	if (x) {
		TOMOVE(out) = !TOMOVE(p);
		HAND(out, 0) = HAND(p, 1);
		HAND(out, 1) = HAND(p, 0);
	}
}

static void glorieta_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	const struct glorieta *gl = GL(g);
	struct bp_pos img;
	*out = *p;
	for (int s = 1; s < gl->nsyms; s++) {
		glorieta_transform(g, p, s, &img);
		if (memcmp(&img, out, sizeof img) < 0 &&
		    (!gl->swap[s] || (!is_start(&img) && counts_fit(gl, &img))))
			*out = img;
	}
}

static uint32_t glorieta_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (uint32_t)(popc(occupied(p)) + popc(NEUTRAL(p)));
}

static int kmin(int t)
{
	return (t + 1) / 2;
}

static int kmax(const struct glorieta *gl, int t)
{
	return t < gl->n ? t : gl->n;
}

static int glorieta_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct glorieta *gl = GL(g);
	if (tier > 2u * (uint32_t)gl->n || gl->too_big[tier])
		return BP_ERANGE;
	*out = tier == 0 ? 1 : gl->off[tier][kmax(gl, (int)tier) + 1];
	return BP_OK;
}

static uint64_t hand_state(uint64_t h)
{
	unsigned v = (unsigned)h & 0x7f;
	return v == 0 ? 0 : 1 + 2 * (v - 1) + ((h & HAND_PLUS) != 0);
}

static uint64_t hand_of_state(uint64_t s)
{
	return s == 0 ? 0 : ((s - 1) / 2 + 1) | ((s - 1) % 2 ? HAND_PLUS : 0);
}

static int glorieta_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct glorieta *gl = GL(g);
	uint32_t t = glorieta_tier(g, p);
	if (t == 0 || is_start(p)) {
		if (t != 0 || !is_start(p))
			return BP_ERANGE;
		*out = 0;
		return BP_OK;
	}
	if (gl->too_big[t])
		return BP_ERANGE;
	uint64_t occ = occupied(p), hs = 2 * (uint64_t)gl->hand + 1;
	int k = popc(occ), m = popc(NEUTRAL(p));
	uint64_t stones = occ & ~NEUTRAL(p);
	uint64_t idx = bp_rank_subset(occ) * bp_binom(k, m) +
		       bp_rank_subset(bp_bits_extract(NEUTRAL(p), occ));
	idx = (idx << (k - m)) | bp_bits_extract(BLACK(p), stones);
	idx = ((idx * hs + hand_state(HAND(p, 0))) * hs + hand_state(HAND(p, 1))) * 2 + TOMOVE(p);
	*out = gl->off[t][k] + idx;
	return BP_OK;
}

static int glorieta_unrank(const struct bp_game *g, uint32_t tier, uint64_t index,
			   struct bp_pos *out)
{
	const struct glorieta *gl = GL(g);
	uint64_t size;
	int rc = glorieta_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	if (tier == 0) {
		glorieta_start(g, out);
		return BP_OK;
	}
	int t = (int)tier, k = kmin(t);
	while (index >= gl->off[t][k + 1])
		k++;
	index -= gl->off[t][k];
	int m = t - k;
	uint64_t hs = 2 * (uint64_t)gl->hand + 1;
	memset(out, 0, sizeof *out);
	TOMOVE(out) = index % 2;
	index /= 2;
	HAND(out, 1) = hand_of_state(index % hs);
	index /= hs;
	HAND(out, 0) = hand_of_state(index % hs);
	index /= hs;
	uint64_t colours = index & ((1ull << (k - m)) - 1);
	index >>= k - m;
	uint64_t cm = bp_binom(k, m);
	uint64_t occ = bp_unrank_subset(k, index / cm);
	NEUTRAL(out) = bp_bits_deposit(bp_unrank_subset(m, index % cm), occ);
	uint64_t stones = occ & ~NEUTRAL(out);
	BLACK(out) = bp_bits_deposit(colours, stones);
	YELLOW(out) = stones & ~BLACK(out);
	return check_position(gl, out, NULL) ? BP_ENOTFOUND : BP_OK;
}

static void glorieta_describe(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			      struct bp_text *text)
{
	const struct glorieta *gl = GL(g);
	const uint64_t sets[2] = { YELLOW(p) | NEUTRAL(p), BLACK(p) | NEUTRAL(p) };
	bp_loops_describe(&gl->L, g->board, sets, "yb", json, text);
	bp_text_printf(json, ", \"ring\": \"%s\"", gl->has_ring ? gl->ring_text : "");
	if (gl->has_ring)
		bp_text_printf(text, "ring:     %s (clockwise from above-left of a1)\n",
			       gl->ring_text);
	else
		bp_text_printf(text, "ring:     none\n");
}

/* ---- the instance ------------------------------------------------------------- */

/* The 12 linear maps of the hex lattice, as in canon/board.c: t = 2k + m rotates by
 * k * 60 degrees after swapping q and r when m = 1. */
static void point_map(int t, int q, int r, int *oq, int *or_)
{
	if (t % 2) {
		int tmp = q;
		q = r;
		r = tmp;
	}
	for (int i = 0; i < t / 2; i++) {
		int nq = -r, nr = q + r;
		q = nq;
		r = nr;
	}
	*oq = q;
	*or_ = r;
}

/* Fills gl->sym/swap: for each board symmetry, the lattice map it is (hexN is centred
 * on the origin), then whether it keeps or exchanges the ring's colours. */
static int find_symmetries(struct glorieta *gl, const struct bp_board *b)
{
	gl->nsyms = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int s = 0; s < b->nsym; s++) {
			int keep = 1, swap = 1;
			if (gl->has_ring) {
				int t;
				for (t = 0; t < 12; t++) {
					int ok = 1;
					for (int c = 0; c < b->ncells && ok; c++) {
						int q, r;
						point_map(t, b->cells[c].q, b->cells[c].r, &q, &r);
						ok = bp_board_find(b, q, r) ==
						     bp_board_sym(b, s, c);
					}
					if (ok)
						break;
				}
				if (t == 12)
					return BP_EINVAL;
				for (int i = 0; i < gl->L.nring; i++) {
					int q, r, j;
					point_map(t, gl->L.ring_q[i], gl->L.ring_r[i], &q, &r);
					for (j = 0; j < gl->L.nring; j++)
						if (gl->L.ring_q[j] == q && gl->L.ring_r[j] == r)
							break;
					if (j == gl->L.nring)
						return BP_EINVAL;
					keep &= gl->L.ring[j] == gl->L.ring[i];
					swap &= gl->L.ring[j] != gl->L.ring[i];
				}
			}
			if (pass == 0 ? keep : swap) {
				gl->sym[gl->nsyms] = s;
				gl->swap[gl->nsyms++] = pass;
			}
		}
	return BP_OK;
}

static int parse_ring(struct glorieta *gl, const struct bp_board *b, const char *v, uint8_t *ring,
		      struct bp_err *err)
{
	gl->has_ring = strcmp(v, "none") != 0;
	if (!gl->has_ring)
		return BP_OK;
	if (b->shape != BP_SHAPE_HEX)
		return bp_err_set(err, BP_ESPEC,
				  "glorieta: ring=%s: a ring exists only on hexN boards; board %s "
				  "needs ring=none",
				  v, b->name);
	int n = b->a, len = 6 * n;
	if (strcmp(v, "sides") == 0) {
		for (int i = 0; i < len; i++)
			gl->ring_text[i] = (i / n) % 2 ? 'y' : 'b';
	} else if (strcmp(v, "alt") == 0) {
		for (int i = 0; i < len; i++)
			gl->ring_text[i] = i % 2 ? 'y' : 'b';
	} else {
		if ((int)strlen(v) != len)
			return bp_err_set(err, BP_ESPEC,
					  "glorieta: ring=%.40s: expected sides, alt, none or %d "
					  "letters b/y (the ring of %s has %d spaces), got %d "
					  "characters",
					  v, len, b->name, len, (int)strlen(v));
		for (int i = 0; i < len; i++)
			if (v[i] != 'b' && v[i] != 'y')
				return bp_err_set(err, BP_ESPEC,
						  "glorieta: ring: character %d is '%c', expected "
						  "b or y",
						  i + 1, v[i]);
		memcpy(gl->ring_text, v, (size_t)len);
	}
	gl->ring_text[len] = '\0';
	for (int i = 0; i < len; i++)
		ring[i] = gl->ring_text[i] == 'b'; /* player 1 is black */
	return BP_OK;
}

static void glorieta_destroy(struct bp_game *g)
{
	struct glorieta *gl = g->impl;
	bp_perm64_destroy(gl->perm);
	free(gl);
	g->impl = NULL;
}

static int glorieta_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *b = g->board;
	int rc;
	if (b->ncells > 64)
		return bp_err_set(err, BP_ESPEC,
				  "glorieta: board %s has %d cells; at most 64 are supported "
				  "(hex5, rh8x8, tri10 and smaller)",
				  b->name, b->ncells);
	const char *ht = g->value[1];
	char *end;
	long h = strtol(ht, &end, 10);
	if (*end || end == ht || ht[0] < '1' || ht[0] > '9' || h < 1 || h > 99)
		return bp_err_set(err, BP_ESPEC,
				  "glorieta: hand=%s: expected a whole number from 1 to 99", ht);
	struct glorieta *gl = calloc(1, sizeof *gl);
	if (!gl)
		return BP_ENOMEM;
	uint8_t ring[6 * 64];
	if ((rc = parse_ring(gl, b, g->value[2], ring, err)) ||
	    (rc = bp_loops_init(&gl->L, b, gl->has_ring ? ring : NULL)))
		goto fail;
	gl->n = b->ncells;
	gl->hand = (int)h;
	gl->both_mover = strcmp(g->value[0], "mover") == 0;
	int every[12];
	for (int s = 0; s < b->nsym; s++)
		every[s] = s;
	if ((rc = bp_perm64_create(b, every, b->nsym, &gl->perm)))
		goto fail;
	if ((rc = find_symmetries(gl, b))) {
		bp_perm64_destroy(gl->perm);
		goto fail;
	}
	uint64_t hs = 2 * (uint64_t)gl->hand + 1, hands = hs * hs * 2;
	for (int t = 1; t <= 2 * gl->n; t++) {
		uint64_t acc = 0;
		for (int k = kmin(t); k <= kmax(gl, t); k++) {
			uint64_t s;
			int m = t - k;
			gl->off[t][k] = acc;
			if (__builtin_mul_overflow(bp_binom(gl->n, k), bp_binom(k, m), &s) ||
			    k - m >= 64 || __builtin_mul_overflow(s, 1ull << (k - m), &s) ||
			    __builtin_mul_overflow(s, hands, &s) ||
			    __builtin_add_overflow(acc, s, &acc))
				gl->too_big[t] = 1;
		}
		gl->off[t][kmax(gl, t) + 1] = acc;
	}
	g->impl = gl;
	g->max_moves = gl->n + gl->n * (gl->n - 1) / 2 + gl->n;
	g->nsym = gl->nsyms;
	g->ntiers = 2 * (uint32_t)gl->n + 1;
	return BP_OK;
fail:
	free(gl);
	return rc;
}

/* Yellow, black, neutral (pink side up) stones and the ring's coloured spaces. */
static void glorieta_picture(const struct bp_game *g, const struct bp_pos *p,
			     struct bp_picture *out)
{
	(void)p;
	static const uint32_t owner[2] = { 0xf2c81e, 0x1a1a1a }; /* yellow, black */
	out->nchars = 3;
	out->chars[0] = 'y';
	out->colour[0] = owner[0];
	out->name[0] = "yellow";
	out->chars[1] = 'b';
	out->colour[1] = owner[1];
	out->name[1] = "black";
	out->chars[2] = 'n';
	out->colour[2] = 0xf0a0c0;
	out->name[2] = "neutral";
	out->neutral = 'n';
	const struct glorieta *gl = GL(g);
	for (int i = 0; i < gl->L.nring && i < BP_PICTURE_MAX_RING; i++) {
		out->ring[i].q = gl->L.ring_q[i];
		out->ring[i].r = gl->L.ring_r[i];
		out->ring[i].colour = owner[gl->L.ring[i] ? 1 : 0];
		out->nring = i + 1;
	}
}

const struct bp_game_ops bp_glorieta_ops = {
	.name = "glorieta",
	.title = "Glorieta, revised: hands of stones, flips to neutral, a coloured ring",
	.shapes = BP_SHAPES_HEXCELL,
	.flags = BP_GAME_TIER_SKIP,
	.options = glorieta_options,
	.create = glorieta_create,
	.destroy = glorieta_destroy,
	.start = glorieta_start,
	.moves = glorieta_moves,
	.apply = glorieta_apply,
	.outcome = glorieta_outcome,
	.pos_parse = glorieta_pos_parse,
	.pos_format = glorieta_pos_format,
	.cell_char = glorieta_cell_char,
	.move_parse = glorieta_move_parse,
	.move_format = glorieta_move_format,
	.transform = glorieta_transform,
	.canonical = glorieta_canonical,
	.tier = glorieta_tier,
	.tier_size = glorieta_tier_size,
	.rank = glorieta_rank,
	.unrank = glorieta_unrank,
	.describe = glorieta_describe,
	.picture = glorieta_picture,
	.claims = "no-draw first-player board-fills",
};
