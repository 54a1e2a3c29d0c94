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
 * position of tier t with k occupied cells holds m = t - k neutrals and k - m stones,
 * b of them black. With HS = 2H + 1 hand states (h = 0 .. H, '+' or not, no "0+"; a
 * hand state is 0 for h = 0, else 1 + 2 (h - 1) + plus), its local hand index is
 * (yellow hand * HS + black hand) * 2 + side to move. Whether a history gives a local
 * hand index depends only on the counts (k - m - b yellow, b black, m neutral
 * stones), so each block (t, k, b) lists the local hand indices that fit
 * its counts, increasing (fit_list, F of them), and only those get an index:
 *
 *     off[t][k][b] + (((colex(occupied) * C(k, m) + colex(neutrals within occupied))
 *                      * C(k - m, b) + colex(black stones within the rest))
 *                     * F[t][k][b] + place of the local hand index in the list)
 *
 * with the blocks of a tier in order of k, then b (off[t][k][b] the sum of the sizes
 * of the blocks before; blk, boff, fstart and fhl below). Indices whose position
 * fails validation otherwise (both players' loops) are holes; the hands' holes of a
 * dense hand index (98% of the indices on rh3x3 with hands of 6) are gone, and a
 * position whose counts do not fit its hands has no index (rank() says BP_ERANGE). */
#include "solver/games/glorieta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/random.h"
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
	/* the index blocks (see the top): block (t, k, b) is blk[t][k] + b, and
	 * blk[t][kmax + 1] is the end of tier t, a block of no positions */
	uint32_t blk[129][66];
	uint64_t *boff;	  /* per block: its first index in the tier; at the end: the size */
	uint32_t *fstart; /* per block: its hand list is fhl[fstart[j] .. fstart[j + 1]) */
	uint32_t *fhl;	  /* the hand lists: local hand indices, increasing */
	uint8_t too_big[129];
	/* the tier walk's tables */
	uint32_t hs;		/* hand states 2H + 1 */
	uint64_t binom[67][68]; /* C(n, k), 0 for k > n */
	/* per hand state: the stones in it, and the state after a drop of one, a drop
	 * of two and a flip (the refill included) */
	uint8_t state_h[199];
	uint16_t state_one[199], state_two[199], state_flip[199];
	/* class hashes for proof-number search (glorieta_sym_hash): zob[plane][cell][i],
	 * the random word of the image of a stone of that plane on that cell under the
	 * instance's symmetry i */
	uint64_t zob[3][64][BP_GAME_SYM_HASH_MAX];
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
	bp_text_printf(out, " %c", TOMOVE(p) <= 1 ? "yb"[TOMOVE(p)] : '?');
	format_hand(out, 'y', HAND(p, 0));
	format_hand(out, 'b', HAND(p, 1));
}

/* Is there a history for p's counts and hands (taken), with its side to move? The rule
 * is stated once, in fit_list; this looks p up in its block's list. */
static int counts_fit(const struct glorieta *gl, const struct bp_pos *p);

/* Everything but the loops: the start position alone without hands, then hands that
 * exist and counts that some history gives (counts_fit, the rule in fit_list). */
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
		return bp_err_set(
			err, BP_EPARSE,
			"the stone counts do not fit the turn order: %d yellow, %d black "
			"and %d neutral stones with y=%d%s b=%d%s and %c to move (after "
			"yellow's first stone: hands of %d, a flip in each hand, none by a "
			"player on the first hand without '+', one or two stones or a flip a turn, "
			"black first)",
			popc(YELLOW(p)), popc(BLACK(p)), popc(NEUTRAL(p)), (int)(HAND(p, 0) & 0x7f),
			HAND(p, 0) & HAND_PLUS ? "+" : "", (int)(HAND(p, 1) & 0x7f),
			HAND(p, 1) & HAND_PLUS ? "+" : "", "yb"[TOMOVE(p)], gl -> hand);
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

/* Words 0 .. 6 of transform(p, s): the rest are p's in every image. */
static void image_words(const struct glorieta *gl, const struct bp_pos *p, int s, uint64_t *w)
{
	const int bs = gl->sym[s], x = gl->swap[s];
	w[0] = bp_perm64_apply(gl->perm, bs, p->w[x]);
	w[1] = bp_perm64_apply(gl->perm, bs, p->w[!x]);
	w[2] = bp_perm64_apply(gl->perm, bs, NEUTRAL(p));
	w[3] = x ? !TOMOVE(p) : TOMOVE(p);
	w[4] = HAND(p, x);
	w[5] = HAND(p, !x);
	w[6] = OVER(p);
}

static void glorieta_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			       struct bp_pos *out)
{
	uint64_t w[7];
	image_words(GL(g), p, s, w);
	*out = *p;
	memcpy(out->w, w, sizeof w);
}

/* memcmp's order of two positions' words 0 .. 6 (bytes in memory order: a word's
 * bytes from its lowest). */
static int words_cmp(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 7; i++)
		if (a[i] != b[i])
			return __builtin_bswap64(a[i]) < __builtin_bswap64(b[i]) ? -1 : 1;
	return 0;
}

/* The image smallest by memcmp among the valid ones (see the top). An image whose
 * yellow plane is already larger is left at once; the colour-exchanged images are
 * all valid or none (their counts, hands and side to move are the same), so that is
 * tested once. Whole images built and compared were half of a glorieta:hex3 proof
 * search's time; this way the search takes 0.6 of the CPU time it took. */
static void glorieta_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	const struct glorieta *gl = GL(g);
	uint64_t best[7], w[7];
	memcpy(best, p->w, sizeof best);
	int swap_ok = -1;
	for (int s = 1; s < gl->nsyms; s++) {
		const uint64_t w0 = bp_perm64_apply(gl->perm, gl->sym[s], p->w[gl->swap[s]]);
		if (w0 != best[0] && __builtin_bswap64(w0) > __builtin_bswap64(best[0]))
			continue;
		image_words(gl, p, s, w);
		if (words_cmp(w, best) >= 0)
			continue;
		if (gl->swap[s]) {
			if (swap_ok < 0) {
				struct bp_pos img = *p;
				memcpy(img.w, w, sizeof w);
				swap_ok = !is_start(&img) && counts_fit(gl, &img);
			}
			if (!swap_ok)
				continue;
		}
		memcpy(best, w, sizeof best);
	}
	*out = *p;
	memcpy(out->w, best, sizeof best);
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
	*out = tier == 0 ? 1 : gl->boff[gl->blk[tier][kmax(gl, (int)tier) + 1]];
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

/* The n lowest bits set (n <= 64). */
static uint64_t low_bits(int n)
{
	return n ? ~0ull >> (64 - n) : 0;
}

/* One player's histories: per (s own stones on the board, f own stones flipped), the
 * hand states a sequence of that player's turns can end in, each with the set of turn
 * counts (after yellow's first stone) that get there. HIST_MAX: the stones dropped
 * from hands, s + f (less yellow's first), fix the hand up to one choice (none or all
 * of the current hand used when H divides them), and only a non-empty hand has a '+'. */
#define HIST_MAX 4
struct hist {
	int n; /* the board's cells: s + f <= n */
	uint8_t cnt[65 * 65];
	uint16_t st[65 * 65][HIST_MAX];
	uint64_t turns[65 * 65][HIST_MAX][3]; /* bit T: after T turns; T <= 2n */
};

static int hist_add(struct hist *hi, int s, int f, uint32_t st, int T)
{
	const int at = s * (hi->n + 1) + f;
	int e = 0;
	while (e < hi->cnt[at] && hi->st[at][e] != st)
		e++;
	if (e == hi->cnt[at]) {
		if (e == HIST_MAX)
			return BP_ERANGE;
		hi->st[at][e] = (uint16_t)st;
		memset(hi->turns[at][e], 0, sizeof hi->turns[at][e]);
		hi->cnt[at]++;
	}
	hi->turns[at][e][T / 64] |= 1ull << (T % 64);
	return BP_OK;
}

/* The rules of section 6 for one player, played out turn by turn over the abstract
 * state (s, f, stones in hand h, '+'): after yellow's first stone (s = 1 for yellow)
 * and the hands of H taken, a turn drops one or two stones of the hand (not when the
 * hand is empty without '+': then it must flip), or flips one of the player's stones
 * on the board (setting '+'); a hand empty with '+' is refilled at the end of the
 * turn. The opponent never touches the player's stones, so the players' histories
 * are independent but for the turn order (fit_list). Every turn adds to s + f or to
 * f, so the turns end by 2n. */
static int player_histories(int n, int H, int first, struct hist *out)
{
	const uint32_t nst = (uint32_t)((n + 1) * (n + 1) * (H + 1) * 2);
	uint32_t *cur = malloc(sizeof *cur * nst), *nxt = malloc(sizeof *nxt * nst);
	uint8_t *mark = calloc(nst, 1);
	int rc = cur && nxt && mark ? BP_OK : BP_ENOMEM;
	out->n = n;
	memset(out->cnt, 0, sizeof out->cnt);
#define HIST_ID(s, f, h, p) \
	(((uint32_t)((s) * (n + 1) + (f)) * (uint32_t)(H + 1) + (uint32_t)(h)) * 2 + (uint32_t)(p))
	uint32_t ncur = 0;
	if (!rc)
		cur[ncur++] = HIST_ID(first, 0, H, 0);
	for (int T = 0; ncur && !rc; T++) {
		uint32_t nn = 0;
		for (uint32_t i = 0; i < ncur && !rc; i++) {
			const uint32_t id = cur[i];
			const int p = (int)(id % 2), h = (int)(id / 2 % (uint32_t)(H + 1));
			const int sf = (int)(id / 2 / (uint32_t)(H + 1));
			const int s = sf / (n + 1), f = sf % (n + 1);
			rc = hist_add(out, s, f, h == 0 ? 0 : (uint32_t)(1 + 2 * (h - 1) + p), T);
			int go[3][4], ng = 0; /* s, f, h, '+' after each turn */
			const int must_flip = h == 0 && !p;
			for (int d = 1; d <= 2; d++)
				if (!must_flip && h >= d) {
					go[ng][0] = s + d, go[ng][1] = f, go[ng][2] = h - d;
					go[ng++][3] = p;
				}
			if (s >= 1) {
				go[ng][0] = s - 1, go[ng][1] = f + 1, go[ng][2] = h;
				go[ng++][3] = 1;
			}
			for (int j = 0; j < ng; j++) {
				if (go[j][0] + go[j][1] > n)
					continue;
				if (go[j][2] == 0 && go[j][3])
					go[j][2] = H, go[j][3] = 0;
				const uint32_t to = HIST_ID(go[j][0], go[j][1], go[j][2], go[j][3]);
				if (!mark[to]) {
					mark[to] = 1;
					nxt[nn++] = to;
				}
			}
		}
		for (uint32_t i = 0; i < nn; i++)
			mark[nxt[i]] = 0;
		uint32_t *sw = cur;
		cur = nxt;
		nxt = sw;
		ncur = nn;
	}
#undef HIST_ID
	free(cur);
	free(nxt);
	free(mark);
	return rc;
}

/* The turn order's rule on counts, stated once: validation looks a position up in
 * these lists (counts_fit), and the index gives only their entries a place. Writes to
 * out the local hand indices (hy * HS + hb) * 2 + tomove whose hands fit s0 yellow, s1
 * black and N neutral stones, increasing: those for which some split of the neutrals
 * into yellow's and black's flips has a history of each player (player_histories)
 * with black's turns less yellow's 0 when black is to move, 1 when yellow is (the
 * turns alternate from black after yellow's first stone). On boards without loops
 * these are exactly the counts that play reaches (tests/solver/games/test_glorieta.c,
 * counts_rule_is_what_play_reaches). out has room for FIT_ROOM(N). Returns how many. */
#define FIT_ROOM(N) (2 * HIST_MAX * HIST_MAX * ((N) + 1))
static uint32_t fit_list(const struct glorieta *gl, const struct hist *hy, const struct hist *hb,
			 int s0, int s1, int N, uint32_t *out)
{
	uint32_t n = 0;
	for (int ny = 0; ny <= N; ny++) {
		const int ay = s0 * (hy->n + 1) + ny, ab = s1 * (hb->n + 1) + (N - ny);
		for (int a = 0; a < hy->cnt[ay]; a++)
			for (int b = 0; b < hb->cnt[ab]; b++) {
				const uint64_t *ty = hy->turns[ay][a], *tb = hb->turns[ab][b];
				/* black to move: equal turns; yellow to move: black one more */
				const int black =
					((ty[0] & tb[0]) | (ty[1] & tb[1]) | (ty[2] & tb[2])) != 0;
				const int yellow = ((ty[0] << 1 & tb[0]) |
						    ((ty[1] << 1 | ty[0] >> 63) & tb[1]) |
						    ((ty[2] << 1 | ty[1] >> 63) & tb[2])) != 0;
				const uint32_t hl = ((uint32_t)hy->st[ay][a] * gl->hs +
						     (uint32_t)hb->st[ab][b]) *
						    2;
				if (yellow)
					out[n++] = hl;
				if (black)
					out[n++] = hl + 1;
			}
	}
	/* increasing, each once (a few dozen entries: insertion sort) */
	for (uint32_t i = 1; i < n; i++) {
		const uint32_t v = out[i];
		uint32_t j = i;
		for (; j > 0 && out[j - 1] > v; j--)
			out[j] = out[j - 1];
		out[j] = v;
	}
	uint32_t u = 0;
	for (uint32_t i = 0; i < n; i++)
		if (u == 0 || out[u - 1] != out[i])
			out[u++] = out[i];
	return u;
}

#define FIT_NONE UINT32_MAX

/* The place of local hand index hl in block j's hand list; FIT_NONE if absent. */
static uint32_t fit_find(const struct glorieta *gl, uint32_t j, uint32_t hl)
{
	const uint32_t *f = gl->fhl + gl->fstart[j];
	uint32_t lo = 0, hi = gl->fstart[j + 1] - gl->fstart[j];
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2;
		if (f[mid] < hl)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < gl->fstart[j + 1] - gl->fstart[j] && f[lo] == hl ? lo : FIT_NONE;
}

static uint64_t fit_count(const struct glorieta *gl, uint32_t j)
{
	return gl->fstart[j + 1] - gl->fstart[j];
}

static int counts_fit(const struct glorieta *gl, const struct bp_pos *p)
{
	const int m = popc(NEUTRAL(p)), k = popc(occupied(p)), t = k + m;
	if (t == 0) /* hands taken after yellow's first stone */
		return 0;
	for (int pl = 0; pl < 2; pl++) {
		const uint64_t h = HAND(p, pl);
		if ((h & 0x7f) > (uint64_t)gl->hand || h == HAND_PLUS || (h & HAND_NONE))
			return 0;
	}
	const uint32_t j = gl->blk[t][k] + (uint32_t)popc(BLACK(p));
	const uint32_t hl =
		(uint32_t)((hand_state(HAND(p, 0)) * gl->hs + hand_state(HAND(p, 1))) * 2 +
			   TOMOVE(p));
	return fit_find(gl, j, hl) != FIT_NONE;
}

/* The block of tier t holding index (< the tier's size): the last one starting at or
 * before it, which is never empty. Sets *k and *b. */
static uint32_t find_block(const struct glorieta *gl, int t, uint64_t index, int *k, int *b)
{
	uint32_t lo = gl->blk[t][kmin(t)], hi = gl->blk[t][kmax(gl, t) + 1];
	while (hi - lo > 1) {
		const uint32_t mid = lo + (hi - lo) / 2;
		if (gl->boff[mid] <= index)
			lo = mid;
		else
			hi = mid;
	}
	int kk = kmin(t);
	while (gl->blk[t][kk + 1] <= lo)
		kk++;
	*k = kk;
	*b = (int)(lo - gl->blk[t][kk]);
	return lo;
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
	if (gl->too_big[t] || HAND(p, 0) == HAND_NONE || HAND(p, 1) == HAND_NONE)
		return BP_ERANGE;
	uint64_t occ = occupied(p);
	int k = popc(occ), m = popc(NEUTRAL(p)), b = popc(BLACK(p));
	uint64_t stones = occ & ~NEUTRAL(p);
	for (int pl = 0; pl < 2; pl++)
		if ((HAND(p, pl) & 0x7f) > (uint64_t)gl->hand)
			return BP_ERANGE;
	const uint32_t j = gl->blk[t][k] + (uint32_t)b;
	const uint32_t hl =
		(uint32_t)((hand_state(HAND(p, 0)) * gl->hs + hand_state(HAND(p, 1))) * 2 +
			   TOMOVE(p));
	const uint32_t at = fit_find(gl, j, hl);
	if (at == FIT_NONE)
		return BP_ERANGE; /* the counts do not fit the hands: no index */
	uint64_t idx = bp_rank_subset(occ) * bp_binom(k, m) +
		       bp_rank_subset(bp_bits_extract(NEUTRAL(p), occ));
	idx = idx * bp_binom(k - m, b) + bp_rank_subset(bp_bits_extract(BLACK(p), stones));
	*out = gl->boff[j] + idx * fit_count(gl, j) + at;
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
	int t = (int)tier, k, b;
	const uint32_t j = find_block(gl, t, index, &k, &b);
	index -= gl->boff[j];
	int m = t - k;
	const uint64_t nf = fit_count(gl, j);
	const uint32_t hl = gl->fhl[gl->fstart[j] + index % nf];
	index /= nf;
	memset(out, 0, sizeof *out);
	TOMOVE(out) = hl & 1;
	HAND(out, 1) = hand_of_state((hl >> 1) % gl->hs);
	HAND(out, 0) = hand_of_state((hl >> 1) / gl->hs);
	const uint64_t cb = bp_binom(k - m, b);
	const uint64_t colours = bp_unrank_subset(b, index % cb);
	index /= cb;
	uint64_t cm = bp_binom(k, m);
	uint64_t occ = bp_unrank_subset(k, index / cm);
	NEUTRAL(out) = bp_bits_deposit(bp_unrank_subset(m, index % cm), occ);
	uint64_t stones = occ & ~NEUTRAL(out);
	BLACK(out) = bp_bits_deposit(colours, stones);
	YELLOW(out) = stones & ~BLACK(out);
	return check_position(gl, out, NULL) ? BP_ENOTFOUND : BP_OK;
}

/* ---- the tier walk: the solver's fast path ---------------------------------------
 *
 * A drop of one stone and a flip lead from tier t to t + 1, a drop of two stones to
 * t + 2 (bp_walk.far), and rank() covers every valid position, canonical or not.
 * The walk goes through a tier's index range in order, block by block, one *plane
 * triple* at a time: the stones on the board (the occupied set, the neutrals within
 * it, the black stones within the rest), which the index spells above the block's
 * list of hand states that fit (yellow's hand, black's hand, the side to move).
 * Everything that depends on the stones alone is made once per triple: the loops
 * (both players' loops: a hole; one: the game is over), how the symmetries' images of
 * the stones compare with them, the images' index parts, and the children's index
 * parts for either mover (the board part of each drop's and flip's child, in the
 * child's block). Everything that depends on the hands alone is made once per block
 * (gwalk_block): for each entry of the list, where the child's hands stand in its
 * block's list after each kind of move, and where the colour-exchanged hands stand
 * in block (t, k, nb - b), if they fit there. A position of the triple then costs
 * whether a colour-exchanging symmetry gives a smaller valid image, and one addition
 * per child (the child's hand part).
 *
 * canonical() takes the bytewise-smallest valid image: memcmp of the words in order,
 * which on a little-endian machine compares their byte-reversed values. The stone
 * planes (w[0..2]) decide unless an image has the same stones; then a board symmetry
 * keeps the hands (the same position) and a colour-exchanging one gives the other side
 * to move (w[3]), smaller exactly when black is to move. An image under a board
 * symmetry is always valid; a colour-exchanged one when its counts fit, which depends
 * only on the counts and hands, the same for every such symmetry.
 *
 * Which valid positions a game reaches depends on the order of play (a loop ends the
 * game, so a position whose loop needs stones dropped after it formed is valid but
 * never reached), so the walk visits every valid canonical position and the engine
 * marks the reached ones (BP_GAME_WALK_UNREACHED). Images are listed for every
 * symmetry but the colour-exchanging ones whose image fails validation (no member of
 * the class, and without an index). */

/* The next set of as many cells in colex order (s != 0). */
static uint64_t gosper(uint64_t s)
{
	uint64_t lowest = s & -s, r = s + lowest;
	return (((r ^ s) >> 2) >> __builtin_ctzll(s)) | r; /* / lowest, without a division */
}

/* The order memcmp gives one word: its bytes from the lowest address. */
static uint64_t byte_order(uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(w);
#else
	return w;
#endif
}

/* The hand part of a child's index after the mover's hand went from state `from` to
 * `to`. */
static uint64_t hand_part(const struct glorieta *gl, uint32_t hl, int mover, uint32_t to)
{
	uint32_t hy = (hl >> 1) / gl->hs, hb = (hl >> 1) % gl->hs;
	if (mover)
		hb = to;
	else
		hy = to;
	return (uint64_t)((hy * gl->hs + hb) * 2 + !mover);
}
struct gwalk {
	const struct glorieta *gl;
	int t, k, m, nb, b; /* tier, occupied cells, neutrals, stones (k - m), black */
	uint32_t blk, nf;   /* the block, its hand list's length */
	const uint32_t *fhl;
	uint64_t ckm, cnb; /* C(k, m), C(nb, b) */
	/* per entry of the block's hand list: where the child's hands stand in its
	 * block's list after a drop of one, a drop of two and a flip, and where the
	 * colour-exchanged hands stand in block (t, k, nb - b); FIT_NONE: nowhere */
	uint32_t cap, *at[4];
	/* the triple */
	uint64_t occ, neutral, yellow, black, bpat;
	uint64_t base; /* index of the triple's first hand state */
	int over;
	int ns_smaller, sw_smaller, sw_equal;
	int kids_ready[2];
	int none[2], ntwo[2], nflip[2];
	uint64_t one[2][64], flip[2][64], two[2][64 * 63 / 2];
	int img_ready;
	uint64_t img[24];
	/* per occupied set and neutral set: the children's colex parts */
	uint64_t ranks_occ, ranks_neutral;
	int slot[64];
	uint64_t P[66], Q1[66], Q2[66];
	uint64_t N00[65], N10[65], N20[65], N01[65];
	/* per black pattern: the children's colex parts of their black stones */
	uint64_t ranks_bpat;
	uint64_t B00[65], B10[65], B20[65], B11[65], B22[65], Bm10[65], Bm11[66];
	/* the visit's lists */
	uint64_t children[128], far[64 * 63 / 2], images[24];
};

/* Enters block (t, k, b): its hand list, and per entry the places of the children's
 * and the colour-exchanged image's hands in their blocks' lists. */
static int gwalk_block(struct gwalk *s, int t, int k, int b)
{
	const struct glorieta *gl = s->gl;
	s->t = t;
	s->k = k;
	s->m = t - k;
	s->nb = k - s->m;
	s->b = b;
	s->ckm = gl->binom[k][s->m];
	s->cnb = gl->binom[s->nb][b];
	s->blk = gl->blk[t][k] + (uint32_t)b;
	s->nf = (uint32_t)fit_count(gl, s->blk);
	s->fhl = gl->fhl + gl->fstart[s->blk];
	s->ranks_occ = s->ranks_neutral = s->ranks_bpat = ~0ull;
	if (s->nf > s->cap) {
		for (int a = 0; a < 4; a++) {
			free(s->at[a]);
			if (!(s->at[a] = malloc(sizeof *s->at[a] * s->nf))) {
				s->cap = 0;
				return BP_ENOMEM;
			}
		}
		s->cap = s->nf;
	}
	const int n = gl->n, nb = s->nb;
	for (uint32_t i = 0; i < s->nf; i++) {
		const uint32_t hl = s->fhl[i], tm = hl & 1, hs = gl->hs;
		const uint32_t hy = (hl >> 1) / hs, hb = (hl >> 1) % hs, st = tm ? hb : hy;
		const uint32_t mover = tm;
		s->at[0][i] =
			k < n ? fit_find(gl, gl->blk[t + 1][k + 1] + (uint32_t)b + mover,
					 (uint32_t)hand_part(gl, hl, (int)tm, gl->state_one[st]))
			      : FIT_NONE;
		s->at[1][i] =
			k + 2 <= n
				? fit_find(gl, gl->blk[t + 2][k + 2] + (uint32_t)b + 2 * mover,
					   (uint32_t)hand_part(gl, hl, (int)tm, gl->state_two[st]))
				: FIT_NONE;
		s->at[2][i] =
			(tm ? b : nb - b) > 0
				? fit_find(gl, gl->blk[t + 1][k] + (uint32_t)b - mover,
					   (uint32_t)hand_part(gl, hl, (int)tm, gl->state_flip[st]))
				: FIT_NONE;
		s->at[3][i] =
			fit_find(gl, gl->blk[t][k] + (uint32_t)(nb - b), (hb * hs + hy) * 2 + !tm);
	}
	return BP_OK;
}

/* The colex parts of the children's indices (see chicken.c's walk): a drop adds a
 * cell to the occupied set at slot kc, which moves the cells above it up one index
 * (two for the second cell of a two-stone drop) and the neutrals above it up one
 * slot; a flip adds a neutral at slot kc, which moves the neutrals above it up one
 * index. Each part is a prefix sum below the new cells plus moved suffix sums above
 * them. */
static void gwalk_ranks(struct gwalk *s)
{
	const struct glorieta *gl = s->gl;
	if (s->occ != s->ranks_occ) {
		int c[64], j = 0;
		for (int i = 0; i < gl->n; i++) {
			s->slot[i] = j;
			if (s->occ >> i & 1)
				c[j++] = i;
		}
		s->P[0] = 0;
		for (int i = 0; i < j; i++)
			s->P[i + 1] = s->P[i] + gl->binom[c[i]][i + 1];
		s->Q1[j] = s->Q2[j] = 0;
		for (int i = j; i-- > 0;) {
			s->Q1[i] = s->Q1[i + 1] + gl->binom[c[i]][i + 2];
			s->Q2[i] = s->Q2[i + 1] + gl->binom[c[i]][i + 3];
		}
		s->ranks_occ = s->occ;
		s->ranks_neutral = ~0ull;
	}
	if (s->neutral != s->ranks_neutral) {
		int p[64], m = 0;
		for (uint64_t r = s->neutral; r; r &= r - 1)
			p[m++] = s->slot[__builtin_ctzll(r)];
		s->N00[0] = 0;
		for (int i = 0; i < m; i++)
			s->N00[i + 1] = s->N00[i] + gl->binom[p[i]][i + 1];
		s->N10[m] = s->N20[m] = s->N01[m] = 0;
		for (int i = m; i-- > 0;) {
			s->N10[i] = s->N10[i + 1] + gl->binom[p[i] + 1][i + 1];
			s->N20[i] = s->N20[i + 1] + gl->binom[p[i] + 2][i + 1];
			s->N01[i] = s->N01[i + 1] + gl->binom[p[i]][i + 2];
		}
		s->ranks_neutral = s->neutral;
	}
}

/* The colex parts of the children's black stones, a b-subset of the stones' slots:
 * with q_i the slot of the i-th black stone, B00[j] sums C(q_i, i + 1) below j, and
 * the sums from j up give the stones from j up moved: up one slot by a yellow stone
 * dropped below them (B10), two slots (B20), one slot and one index by a black stone
 * (B11), two of each (B22), down one slot by a yellow stone flipped below them (Bm10),
 * down one of each by a black stone flipped below them (Bm11). */
static void gwalk_bsums(struct gwalk *s)
{
	const struct glorieta *gl = s->gl;
	if (s->bpat == s->ranks_bpat)
		return;
	int q[64], b = 0;
	for (uint64_t r = s->bpat; r; r &= r - 1)
		q[b++] = __builtin_ctzll(r);
	s->B00[0] = 0;
	for (int i = 0; i < b; i++)
		s->B00[i + 1] = s->B00[i] + gl->binom[q[i]][i + 1];
	s->B10[b] = s->B20[b] = s->B11[b] = s->B22[b] = s->Bm10[b] = s->Bm11[b] = 0;
	for (int i = b; i-- > 0;) {
		s->B10[i] = s->B10[i + 1] + gl->binom[q[i] + 1][i + 1];
		s->B20[i] = s->B20[i + 1] + gl->binom[q[i] + 2][i + 1];
		s->B11[i] = s->B11[i + 1] + gl->binom[q[i] + 1][i + 2];
		s->B22[i] = s->B22[i + 1] + gl->binom[q[i] + 2][i + 3];
		/* q_i = 0 only for i = 0, never moved down */
		s->Bm10[i] = s->Bm10[i + 1] + (q[i] ? gl->binom[q[i] - 1][i + 1] : 0);
		s->Bm11[i] = s->Bm11[i + 1] + (q[i] ? gl->binom[q[i] - 1][i] : 0);
	}
	s->ranks_bpat = s->bpat;
}

/* The board parts of the children's indices for `mover`, as glorieta_moves lists
 * them (the hands decide which kinds are legal): a drop of one lands in block
 * (t + 1, k + 1, b + mover), of two in (t + 2, k + 2, b + 2 mover), a flip in
 * (t + 1, k, b - mover). */
static void gwalk_kids(struct gwalk *s, int mover)
{
	const struct glorieta *gl = s->gl;
	const int t = s->t, k = s->k, m = s->m, nb = s->nb, b = s->b;
	const uint32_t mv = (uint32_t)mover;
	const uint64_t empty = gl->L.full & ~s->occ;
	gwalk_ranks(s);
	gwalk_bsums(s);
	const uint64_t rocc = s->P[k];
	int n1 = 0, n2 = 0, nf = 0;
	if (k < gl->n) {
		const uint32_t j1 = gl->blk[t + 1][k + 1] + (uint32_t)b + mv;
		const uint64_t base1 = gl->boff[j1], f1 = fit_count(gl, j1);
		const uint64_t c1m = gl->binom[k + 1][m], cb1 = gl->binom[nb + 1][b + mover];
		for (uint64_t e = empty; e; e &= e - 1) {
			const int c = __builtin_ctzll(e), kc = s->slot[c];
			const int j = popc(s->neutral & ((e & -e) - 1)), sc = kc - j;
			const int jb = popc(s->bpat & low_bits(sc));
			const uint64_t ro = s->P[kc] + gl->binom[c][kc + 1] + s->Q1[kc];
			const uint64_t r = s->N00[j] + s->N10[j];
			const uint64_t rb = s->B00[jb] + (mover ? gl->binom[sc][jb + 1] + s->B11[jb]
								: s->B10[jb]);
			s->one[mover][n1++] = base1 + ((ro * c1m + r) * cb1 + rb) * f1;
		}
	}
	if (k + 2 <= gl->n) {
		const uint32_t j2 = gl->blk[t + 2][k + 2] + (uint32_t)b + 2 * mv;
		const uint64_t base2 = gl->boff[j2], f2 = fit_count(gl, j2);
		const uint64_t c2m = gl->binom[k + 2][m], cb2 = gl->binom[nb + 2][b + 2 * mover];
		for (uint64_t e = empty; e; e &= e - 1) {
			const int c = __builtin_ctzll(e), kc = s->slot[c];
			const int j = popc(s->neutral & ((e & -e) - 1)), sc = kc - j;
			const int jb = popc(s->bpat & low_bits(sc));
			const uint64_t pre = s->P[kc] + gl->binom[c][kc + 1] + s->Q1[kc];
			for (uint64_t f = e & (e - 1); f; f &= f - 1) {
				const int d = __builtin_ctzll(f), kd = s->slot[d];
				const int jd = popc(s->neutral & ((f & -f) - 1)), sd = kd - jd;
				const int jbd = popc(s->bpat & low_bits(sd));
				const uint64_t ro =
					pre - s->Q1[kd] + gl->binom[d][kd + 2] + s->Q2[kd];
				const uint64_t r = s->N00[j] + s->N10[j] - s->N10[jd] + s->N20[jd];
				/* the first new stone at slot sc, the second at sd + 1 */
				const uint64_t rb =
					mover ? s->B00[jb] + gl->binom[sc][jb + 1] + s->B11[jb] -
							s->B11[jbd] + gl->binom[sd + 1][jbd + 2] +
							s->B22[jbd]
					      : s->B00[jb] + s->B10[jb] - s->B10[jbd] + s->B20[jbd];
				s->two[mover][n2++] = base2 + ((ro * c2m + r) * cb2 + rb) * f2;
			}
		}
	}
	const uint64_t own0 = mover ? s->black : s->yellow;
	if (own0) {
		const uint32_t jf = gl->blk[t + 1][k] + (uint32_t)b - mv;
		const uint64_t basef = gl->boff[jf], ff = fit_count(gl, jf);
		const uint64_t cf = gl->binom[k][m + 1], cbf = gl->binom[nb - 1][b - mover];
		for (uint64_t own = own0; own; own &= own - 1) {
			const int c = __builtin_ctzll(own), kc = s->slot[c];
			const int j = popc(s->neutral & ((own & -own) - 1)), sc = kc - j;
			const int jb = popc(s->bpat & low_bits(sc));
			const uint64_t r = s->N00[j] + gl->binom[kc][j + 1] + s->N01[j];
			const uint64_t rb = s->B00[jb] + (mover ? s->Bm11[jb + 1] : s->Bm10[jb]);
			s->flip[mover][nf++] = basef + ((rocc * cf + r) * cbf + rb) * ff;
		}
	}
	s->none[mover] = n1;
	s->ntwo[mover] = n2;
	s->nflip[mover] = nf;
	s->kids_ready[mover] = 1;
}

/* How the images of the triple's stones compare with them, in canonical()'s order. */
static void gwalk_canon(struct gwalk *s)
{
	const struct glorieta *gl = s->gl;
	const uint64_t mine[3] = { byte_order(s->yellow), byte_order(s->black),
				   byte_order(s->neutral) };
	s->ns_smaller = s->sw_smaller = s->sw_equal = 0;
	for (int i = 1; i < gl->nsyms && !s->ns_smaller; i++) {
		const int bs = gl->sym[i], x = gl->swap[i];
		const uint64_t img[3] = {
			byte_order(bp_perm64_apply(gl->perm, bs, x ? s->black : s->yellow)),
			byte_order(bp_perm64_apply(gl->perm, bs, x ? s->yellow : s->black)),
			byte_order(bp_perm64_apply(gl->perm, bs, s->neutral))
		};
		int cmp = 0;
		for (int w = 0; w < 3 && !cmp; w++)
			cmp = img[w] < mine[w] ? -1 : img[w] > mine[w];
		if (cmp < 0 && !x)
			s->ns_smaller = 1;
		else if (cmp < 0)
			s->sw_smaller = 1;
		else if (cmp == 0 && x)
			s->sw_equal = 1;
	}
}
/* The board parts of the images' indices, one per symmetry 1 .. nsyms - 1; a
 * colour-exchanging symmetry's image lies in block (t, k, nb - b). */
static void gwalk_images(struct gwalk *s)
{
	const struct glorieta *gl = s->gl;
	for (int i = 1; i < gl->nsyms; i++) {
		const int bs = gl->sym[i], x = gl->swap[i];
		const uint64_t occ = bp_perm64_apply(gl->perm, bs, s->occ);
		const uint64_t nt = bp_perm64_apply(gl->perm, bs, s->neutral);
		const uint64_t bk = bp_perm64_apply(gl->perm, bs, x ? s->yellow : s->black);
		const uint32_t j = x ? gl->blk[s->t][s->k] + (uint32_t)(s->nb - s->b) : s->blk;
		const uint64_t idx =
			(bp_rank_subset(occ) * s->ckm + bp_rank_subset(bp_bits_extract(nt, occ))) *
				s->cnb +
			bp_rank_subset(bp_bits_extract(bk, occ & ~nt));
		s->img[i] = gl->boff[j] + idx * fit_count(gl, j);
	}
	s->img_ready = 1;
}

/* Whether any bit of indices lo .. hi - 1 is set (the walk's `marked`). */
static int any_marked(const uint64_t *marked, uint64_t lo, uint64_t hi)
{
	for (uint64_t i = lo; i < hi; i = (i | 63) + 1) {
		uint64_t w = marked[i / 64] >> (i % 64);
		if (hi - i < 64)
			w &= (1ull << (hi - i)) - 1;
		if (w)
			return 1;
	}
	return 0;
}

/* Visits the valid canonical positions of the triple whose places in the block's
 * hand list lie in [from, to), but those whose bit in `marked` is clear. */
static int gwalk_triple(struct gwalk *s, uint32_t from, uint32_t to, unsigned what,
			const uint64_t *marked, int (*visit)(void *ctx, const struct bp_walk *w),
			void *ctx)
{
	const struct glorieta *gl = s->gl;
	const int only = (what & BP_WALK_ONLY_MARKED) && marked;
	if (only && !any_marked(marked, s->base + from, s->base + to))
		return BP_OK; /* the engine skips them all: no symmetries, no loops */
	const uint64_t stones = s->occ & ~s->neutral;
	s->black = bp_bits_deposit(s->bpat, stones);
	s->yellow = stones & ~s->black;
	s->kids_ready[0] = s->kids_ready[1] = s->img_ready = 0;
	/* cheapest first: the symmetries, then the loops */
	gwalk_canon(s);
	if (s->ns_smaller)
		return BP_OK; /* no member of the triple is canonical */
	int ly = bp_loops_enclosed(&gl->L, 0, s->yellow | s->neutral) != 0;
	int lb = bp_loops_enclosed(&gl->L, 1, s->black | s->neutral) != 0;
	if (ly && lb)
		return BP_OK; /* holes: check_position refuses both loops */
	s->over = ly || lb;
	for (uint32_t i = from; i < to; i++) {
		const uint32_t hl = s->fhl[i];
		const int tm = (int)(hl & 1);
		/* a smaller colour-exchanged image, when it is valid */
		if ((s->sw_smaller || (s->sw_equal && tm)) && s->at[3][i] != FIT_NONE)
			continue;
		const int mark = marked && (marked[(s->base + i) / 64] >> ((s->base + i) % 64) & 1);
		if (only && !mark)
			continue;
		struct bp_walk w = { .index = s->base + i, .nchildren = -1 };
		if (what & BP_WALK_CHILDREN && !s->over) {
			const uint32_t hs = gl->hs;
			const uint32_t st = tm ? (hl >> 1) % hs : (hl >> 1) / hs;
			const int h = gl->state_h[st];
			const uint64_t own = tm ? s->black : s->yellow;
			const int drops = h > 0 && s->occ != gl->L.full;
			if (drops || own) {
				if (!s->kids_ready[tm])
					gwalk_kids(s, tm);
				int n = 0;
				/* a legal move's child fits its counts: its hands are listed */
				if (drops) {
					const uint64_t a = s->at[0][i];
					if (a == FIT_NONE)
						return BP_EINVAL;
					for (int c = 0; c < s->none[tm]; c++)
						s->children[n++] = s->one[tm][c] + a;
				}
				if (own) {
					const uint64_t a = s->at[2][i];
					if (a == FIT_NONE)
						return BP_EINVAL;
					for (int c = 0; c < s->nflip[tm]; c++)
						s->children[n++] = s->flip[tm][c] + a;
				}
				w.nchildren = n;
				w.nfar = 0;
				if (h >= 2 && s->ntwo[tm]) {
					const uint64_t a = s->at[1][i];
					if (a == FIT_NONE)
						return BP_EINVAL;
					for (int c = 0; c < s->ntwo[tm]; c++)
						s->far[c] = s->two[tm][c] + a;
					w.nfar = s->ntwo[tm];
				}
			}
		}
		w.children = s->children;
		w.far = s->far;
		if ((what & BP_WALK_IMAGES) && !((what & BP_WALK_IMAGES_UNMARKED) && mark)) {
			if (!s->img_ready)
				gwalk_images(s);
			for (int sy = 1; sy < gl->nsyms; sy++) {
				/* a colour-exchanged image that fails validation is no member
				 * of the class and has no index */
				if (gl->swap[sy] && s->at[3][i] == FIT_NONE)
					continue;
				const uint64_t r = s->img[sy] + (gl->swap[sy] ? s->at[3][i] : i);
				if (r != w.index)
					s->images[w.nimages++] = r;
			}
			w.images = s->images;
		}
		int rc = visit(ctx, &w);
		if (rc)
			return rc;
	}
	return BP_OK;
}

/* Tier 0 holds the start alone: its children come from the rules. */
static int walk_start(const struct bp_game *g, unsigned what,
		      int (*visit)(void *ctx, const struct bp_walk *w), void *ctx)
{
	struct bp_pos p, c;
	struct bp_move mv[64];
	uint64_t children[64];
	struct bp_walk w = { .index = 0, .nchildren = -1, .children = children };
	glorieta_start(g, &p);
	if ((what & BP_WALK_CHILDREN) && !OVER(&p)) {
		int n = glorieta_moves(g, &p, mv);
		for (int i = 0; i < n; i++) {
			c = p;
			glorieta_apply(g, &c, mv[i]);
			int rc = glorieta_rank(g, &c, &children[i]);
			if (rc)
				return rc;
		}
		w.nchildren = n;
	}
	return visit(ctx, &w);
}

static int glorieta_tier_walk(const struct bp_game *g, uint32_t tier, uint64_t lo, uint64_t hi,
			      unsigned what, const uint64_t *marked,
			      int (*visit)(void *ctx, const struct bp_walk *w), void *ctx)
{
	const struct glorieta *gl = GL(g);
	uint64_t size;
	int rc = glorieta_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (lo > hi || hi > size)
		return BP_ERANGE;
	/* the children's tiers must be ranked too */
	for (uint32_t d = 1; d <= 2; d++)
		if (tier + d <= 2u * (uint32_t)gl->n && gl->too_big[tier + d])
			return BP_ERANGE;
	if (lo == hi)
		return BP_OK;
	if (tier == 0)
		return walk_start(g, what, visit, ctx);
	struct gwalk *s = calloc(1, sizeof *s);
	if (!s)
		return BP_ENOMEM;
	s->gl = gl;
	const int t = (int)tier;
	int k, b;
	uint32_t j = find_block(gl, t, lo, &k, &b);
	const uint32_t jend = gl->blk[t][kmax(gl, t) + 1];
	uint64_t idx = lo;
	for (; idx < hi && j < jend; j++) {
		while (gl->blk[t][k + 1] <= j)
			k++;
		b = (int)(j - gl->blk[t][k]);
		const uint64_t start = gl->boff[j], end = gl->boff[j + 1];
		if (idx >= end)
			continue; /* no hands fit the block's counts */
		if ((rc = gwalk_block(s, t, k, b)))
			goto out;
		const int m = t - k;
		uint64_t local = (idx - start) / s->nf;
		uint64_t rb = local % s->cnb;
		local /= s->cnb;
		uint64_t rn = local % s->ckm, ro = local / s->ckm;
		s->occ = bp_unrank_subset(k, ro);
		uint64_t npat = bp_unrank_subset(m, rn);
		s->neutral = bp_bits_deposit(npat, s->occ);
		s->bpat = bp_unrank_subset(b, rb);
		while (idx < hi && idx < end) {
			s->base = start + ((ro * s->ckm + rn) * s->cnb + rb) * s->nf;
			const uint64_t top = s->base + s->nf < hi ? s->base + s->nf : hi;
			if ((rc = gwalk_triple(s, (uint32_t)(idx - s->base),
					       (uint32_t)(top - s->base), what, marked, visit,
					       ctx)))
				goto out;
			idx = s->base + s->nf;
			/* the next triple: black stones, then neutrals, then the occupied
			 * set, each in colex order */
			if (++rb < s->cnb) {
				s->bpat = gosper(s->bpat);
				continue;
			}
			rb = 0;
			s->bpat = low_bits(b);
			if (++rn < s->ckm) {
				npat = gosper(npat);
			} else {
				rn = 0;
				npat = low_bits(m);
				if (++ro < gl->binom[gl->n][k])
					s->occ = gosper(s->occ);
			}
			s->neutral = bp_bits_deposit(npat, s->occ);
		}
	}
out:
	for (int a = 0; a < 4; a++)
		free(s->at[a]);
	free(s);
	return rc;
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

static void glorieta_free(struct glorieta *gl)
{
	bp_perm64_destroy(gl->perm);
	free(gl->boff);
	free(gl->fstart);
	free(gl->fhl);
	free(gl);
}

static void glorieta_destroy(struct bp_game *g)
{
	glorieta_free(g->impl);
	g->impl = NULL;
}

/* ---- class hashes for proof-number search -----------------------------------------
 * The instance's symmetry i maps the stones of plane P on cell c to plane P' (P with
 * yellow and black exchanged when it exchanges the colours) on the board symmetry's
 * image of c; with fixed random words Z[P][c], the hash of image i of p is
 *
 *     h[i] = E(side to move, hands of the image)  ^  XOR over stones: Z[P'][image of c]
 *
 * one function of the image for every i, so the smallest h[i] is the same for every
 * position of p's orbit. Keys of orbits are keys of classes: the members of an orbit
 * that are positions form one class (see the top). E depends on i only through the
 * exchange, so a position has two. A move changes one to three stones and E: one XOR
 * each per symmetry. */
/* E of p (x = 0) and of its colour-exchanged image (x = 1). */
static uint64_t hash_extra(const struct bp_pos *p, int x)
{
	const uint64_t to = x ? !TOMOVE(p) : TOMOVE(p);
	return bp_mix64(0x6a09e667f3bcc909ull ^ to ^ HAND(p, x) << 1 ^ HAND(p, !x) << 12);
}

static void make_hashes(struct glorieta *gl, const struct bp_board *b)
{
	uint64_t z[3][64], state = 0x3c6ef372fe94f82bull;
	for (int pl = 0; pl < 3; pl++)
		for (int c = 0; c < 64; c++)
			z[pl][c] = bp_splitmix64(&state);
	memset(gl->zob, 0, sizeof gl->zob);
	for (int i = 0; i < gl->nsyms; i++)
		for (int pl = 0; pl < 3; pl++)
			for (int c = 0; c < b->ncells; c++) {
				const int to = pl == 2 ? 2 : pl ^ gl->swap[i];
				gl->zob[pl][c][i] = z[to][bp_board_sym(b, gl->sym[i], c)];
			}
}

/* XORs into h[i] the words of the stones of planes (y, b, n) under each symmetry i,
 * and returns the smallest h[i]. */
static uint64_t xor_stones(const struct glorieta *gl, const uint64_t *planes, uint64_t *h)
{
	for (int pl = 0; pl < 3; pl++)
		for (uint64_t m = planes[pl]; m; m &= m - 1) {
			const uint64_t *z = gl->zob[pl][__builtin_ctzll(m)];
			for (int i = 0; i < gl->nsyms; i++)
				h[i] ^= z[i];
		}
	uint64_t least = h[0];
	for (int i = 1; i < gl->nsyms; i++)
		least = h[i] < least ? h[i] : least;
	return least;
}

static uint64_t glorieta_sym_hash(const struct bp_game *g, const struct bp_pos *p, uint64_t *h)
{
	const struct glorieta *gl = GL(g);
	const uint64_t e[2] = { hash_extra(p, 0), hash_extra(p, 1) };
	for (int i = 0; i < gl->nsyms; i++)
		h[i] = e[gl->swap[i]];
	return xor_stones(gl, p->w, h);
}

static uint64_t glorieta_sym_hash_move(const struct bp_game *g, const struct bp_pos *p,
				       const uint64_t *h, const struct bp_pos *c, uint64_t *out)
{
	const struct glorieta *gl = GL(g);
	const uint64_t e[2] = { hash_extra(p, 0) ^ hash_extra(c, 0),
				hash_extra(p, 1) ^ hash_extra(c, 1) };
	const uint64_t changed[3] = { p->w[0] ^ c->w[0], p->w[1] ^ c->w[1], p->w[2] ^ c->w[2] };
	uint64_t d[BP_GAME_SYM_HASH_MAX];
	for (int i = 0; i < gl->nsyms; i++)
		d[i] = h[i] ^ e[gl->swap[i]];
	const uint64_t least = xor_stones(gl, changed, d);
	if (out)
		memcpy(out, d, sizeof *d * (size_t)gl->nsyms);
	return least;
}

/* The index blocks (t, k, b) of every tier but the start's, their hand lists and
 * their first indices; a tier whose size overflows is too big. */
static int make_blocks(struct glorieta *gl)
{
	uint32_t nblocks = 0;
	for (int t = 1; t <= 2 * gl->n; t++) {
		for (int k = kmin(t); k <= kmax(gl, t); k++) {
			gl->blk[t][k] = nblocks;
			nblocks += (uint32_t)(2 * k - t + 1);
		}
		gl->blk[t][kmax(gl, t) + 1] = nblocks++;
	}
	gl->boff = malloc(sizeof *gl->boff * nblocks);
	gl->fstart = malloc(sizeof *gl->fstart * (nblocks + 1));
	uint32_t room = 1024, used = 0, list[FIT_ROOM(64)];
	gl->fhl = malloc(sizeof *gl->fhl * room);
	struct hist *h = malloc(2 * sizeof *h);
	int rc = !gl->boff || !gl->fstart || !gl->fhl || !h ? BP_ENOMEM : BP_OK;
	if (!rc)
		rc = player_histories(gl->n, gl->hand, 1, &h[0]);
	if (!rc)
		rc = player_histories(gl->n, gl->hand, 0, &h[1]);
	if (rc) {
		free(h);
		return rc;
	}
	for (int t = 1; t <= 2 * gl->n; t++) {
		uint64_t acc = 0;
		for (int k = kmin(t); k <= kmax(gl, t); k++) {
			const int m = t - k, nb = k - m;
			for (int b = 0; b <= nb; b++) {
				const uint32_t j = gl->blk[t][k] + (uint32_t)b;
				const uint32_t nf = fit_list(gl, &h[0], &h[1], nb - b, b, m, list);
				if (used + nf > room) {
					while (used + nf > room)
						room *= 2;
					uint32_t *more = realloc(gl->fhl, sizeof *gl->fhl * room);
					if (!more) {
						free(h);
						return BP_ENOMEM;
					}
					gl->fhl = more;
				}
				memcpy(gl->fhl + used, list, sizeof *list * nf);
				gl->fstart[j] = used;
				used += nf;
				gl->boff[j] = acc;
				uint64_t sz;
				if (__builtin_mul_overflow(bp_binom(gl->n, k), bp_binom(k, m),
							   &sz) ||
				    __builtin_mul_overflow(sz, bp_binom(nb, b), &sz) ||
				    __builtin_mul_overflow(sz, (uint64_t)nf, &sz) ||
				    __builtin_add_overflow(acc, sz, &acc))
					gl->too_big[t] = 1;
			}
		}
		const uint32_t end = gl->blk[t][kmax(gl, t) + 1];
		gl->fstart[end] = used;
		gl->boff[end] = acc;
	}
	gl->fstart[nblocks] = used;
	free(h);
	return BP_OK;
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
	make_hashes(gl, b);
	gl->hs = 2 * (uint32_t)gl->hand + 1;
	for (int i = 0; i < 67; i++)
		for (int j = 0; j < 68; j++)
			gl->binom[i][j] = j == 0 ? 1
					  : i == 0 || j > i
						  ? 0
						  : gl->binom[i - 1][j - 1] + gl->binom[i - 1][j];
	for (uint32_t st = 0; st < gl->hs; st++) {
		uint64_t hnd = hand_of_state(st), plus = hnd & HAND_PLUS;
		unsigned in = (unsigned)hnd & 0x7f;
		gl->state_h[st] = (uint8_t)in;
		/* as glorieta_apply: a drop keeps the '+', a flip sets it; a hand empty
		 * after a flip since taking it is refilled */
		uint64_t one = in >= 1 ? (hnd - 1) : 0, two = in >= 2 ? (hnd - 2) : 0;
		uint64_t flip = hnd | HAND_PLUS;
		if (in >= 1 && (one & 0x7f) == 0 && plus)
			one = (uint64_t)gl->hand;
		if (in >= 2 && (two & 0x7f) == 0 && plus)
			two = (uint64_t)gl->hand;
		if ((flip & 0x7f) == 0)
			flip = (uint64_t)gl->hand;
		gl->state_one[st] = (uint16_t)hand_state(one);
		gl->state_two[st] = (uint16_t)hand_state(two);
		gl->state_flip[st] = (uint16_t)hand_state(flip);
	}
	if ((rc = make_blocks(gl))) {
		glorieta_free(gl);
		return rc;
	}
	g->impl = gl;
	g->max_moves = gl->n + gl->n * (gl->n - 1) / 2 + gl->n;
	g->nsym = gl->nsyms;
	g->ntiers = 2 * (uint32_t)gl->n + 1;
	g->pos_words = 7; /* y, b, n, to move, the hands, the outcome */
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
	.flags = BP_GAME_WALK_UNREACHED | BP_GAME_TIER_SKIP,
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
	.tier_walk = glorieta_tier_walk,
	.canonical_mask = bp_game_walk_mask, /* the walk visits the valid canonical ones */
	.sym_hash = glorieta_sym_hash,
	.sym_hash_move = glorieta_sym_hash_move,
	.describe = glorieta_describe,
	.picture = glorieta_picture,
	.claims = "no-draw first-player board-fills",
	/* 1.2 and 3.3 times fewer nodes on hex3 with hands 2 and 6 (bench/dfpn_results.md, session 9) */
	.dfpn_weak = 1,
	.dfpn_mobility = 1,
};
