/* SPDX-License-Identifier: MIT */
/* Blooms on bitboards: one 64-bit word per colour (layout in blooms.h). Colours are
 * numbered 0 r, 1 y, 2 g, 3 k, so player i (0 or 1) owns colours 2i and 2i + 1.
 *
 * Geometry. Hex rows of different lengths make shifted-word neighbour tricks
 * shape-dependent, so every cell carries its neighbour mask and sets grow cell by
 * cell. Blooms are small, and the move generator below avoids flood fills for most
 * turns anyway.
 *
 * A turn places P (one or two stones), then captures every opponent bloom that has
 * no empty neighbour *after the placement*, all at once (a capture never saves
 * another opponent bloom), then requires every mover bloom to have an empty
 * neighbour. Only blooms next to P can change: an opponent bloom elsewhere keeps
 * its liberties, and a mover bloom elsewhere can only gain some. place() checks
 * exactly those.
 *
 * Move generation. A two-stone turn on hex5 has up to 60 * 59 choices, so calling
 * place() for each would dominate. Instead the position is scanned once (every
 * bloom with its liberties, and for each empty cell and mover colour the bloom a
 * stone there would form, with its liberties). Captures only add empty cells, so
 * they never make a turn illegal; what can is a mover bloom left without a liberty
 * among the cells the stones took. Call a cell *weak* when it is a liberty of one of
 * the mover's blooms with at most two liberties. Then, with no capture worked out:
 *   - a single stone on a cell that is not weak, whose bloom has a liberty, is legal;
 *   - a pair (v1, v2), neither weak, is legal when v1's bloom has a liberty other
 *     than v2 and v2's a liberty other than v1: an older mover bloom that the pair
 *     fenced would have had all its liberties (at most two) among the pair, so v1
 *     or v2 would be weak.
 * For each v1 the partners that pass are a few mask operations (which cells' blooms
 * have two or more liberties, exactly one, exactly the one v1); every other turn is
 * decided by scan_legal() from the scanned blooms next to its stones. apply() and
 * move_parse() use place() instead, a separate path; the tests check the two against
 * each other and against a naive implementation. children(), the counter engine's
 * fast path, plays each turn from the same scan (see blooms_children). */
#include "solver/games/blooms.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/rank.h"
#include "canon/symmetry.h"
#include "solver/games/postext.h"

struct blooms {
	int n;
	uint64_t full;
	uint64_t nbr[64];
	int nbsym;	 /* board symmetries; the instance has 4 * nbsym */
	bp_perm64 *perm; /* every board symmetry */
	/* the same maps, a byte of cells at a time, for canonical(): tab[(i * nbytes +
	 * byte) * 256 + v] is the image under symmetry i of the cells v of that byte */
	int nbytes;
	uint64_t *tab;
	/* Boards of at most SMALL_CELLS cells (every board that a solver can hold),
	 * for canonical(), rank(), unrank() and children(): stab[i][k][v], the image
	 * under board symmetry i of the cells v of byte k of a 16-cell plane; srank[m],
	 * the colex rank of the cell set m among sets of its size; sof[sfirst[t] + r],
	 * the set of t cells of colex rank r. NULL on bigger boards. */
	uint16_t (*stab)[2][256];
	uint32_t *srank;
	uint16_t *sof;
	uint32_t sfirst[17];
	/* On boards of at most FULL_CELLS cells, sfull[(i << n) + m]: the image of the
	 * whole plane m under board symmetry i, one lookup (NULL on bigger boards). And
	 * on small boards ext[m][v], the bits of v at the cells of m packed low (PEXT)
	 * for a byte m and a byte v. */
	uint16_t *sfull;
	uint8_t (*ext)[256];
};

#define FULL_CELLS 12

#define SMALL_CELLS 16
/* The most moves of a position on 64 cells: a pass, 2 * 64 single stones, 64 * 63 pairs */
#define MAX_MOVES (1 + 2 * 64 + 64 * 63)

#define STONES(p, c) ((p)->w[(c)])
#define MOVER(p) ((p)->w[4])
#define FIRSTPASS(p) ((p)->w[5])
#define PASSED(p) ((p)->w[6])
#define OVER(p) ((p)->w[7])

static const char colour_chars[] = "rygk";

/* Move codes: 0 is a pass; otherwise bits 0-7 hold the first stone and bit 8 says it
 * is there, bits 16-23 the second stone and bit 24 likewise. A stone is colour * 64 +
 * cell. In a two-stone turn the first stone has the mover's first colour (r or g). */
#define MOVE_PASS 0u
#define MOVE_ONE 0x100u
#define MOVE_TWO 0x1000000u

static uint32_t stone_code(int colour, int cell)
{
	return (uint32_t)(colour * 64 + cell);
}

static const struct blooms *B(const struct bp_game *g)
{
	return g->impl;
}

static uint64_t occupied(const struct bp_pos *p)
{
	return p->w[0] | p->w[1] | p->w[2] | p->w[3];
}

static uint64_t neighbours(const struct blooms *b, uint64_t set)
{
	uint64_t m = 0;
	while (set) {
		m |= b->nbr[__builtin_ctzll(set)];
		set &= set - 1;
	}
	return m;
}

/* The connected part of region that contains the cells of seed. */
static uint64_t flood(const struct blooms *b, uint64_t region, uint64_t seed)
{
	uint64_t comp = seed & region, frontier = comp;
	while (frontier) {
		uint64_t grown = b->nbr[__builtin_ctzll(frontier)] & region & ~comp;
		frontier &= frontier - 1;
		comp |= grown;
		frontier |= grown;
	}
	return comp;
}

/* Places add[0] (colour 2 * pl) and add[1] (colour 2 * pl + 1) for player pl on the
 * stones s[4], captures, and checks the mover's blooms. Returns 1 and leaves the
 * result in s when legal; returns 0 when a mover bloom would be fenced, with one of
 * its cells in *fenced_cell when that is not NULL (s is then garbage). */
static int place(const struct blooms *b, uint64_t s[4], int pl, uint64_t add0, uint64_t add1,
		 int *fenced_cell)
{
	uint64_t P = add0 | add1;
	s[2 * pl] |= add0;
	s[2 * pl + 1] |= add1;
	uint64_t empty = b->full & ~(s[0] | s[1] | s[2] | s[3]);
	uint64_t near = neighbours(b, P);
	uint64_t captured[2] = { 0, 0 };
	for (int i = 0; i < 2; i++) {
		int oc = 2 * (1 - pl) + i;
		uint64_t cand = s[oc] & near;
		while (cand) {
			uint64_t bloom = flood(b, s[oc], cand & -cand);
			cand &= ~bloom;
			if (!(neighbours(b, bloom) & empty))
				captured[i] |= bloom;
		}
	}
	s[2 * (1 - pl)] &= ~captured[0];
	s[2 * (1 - pl) + 1] &= ~captured[1];
	empty |= captured[0] | captured[1];
	for (int i = 0; i < 2; i++) {
		int mc = 2 * pl + i;
		uint64_t cand = s[mc] & (near | P);
		while (cand) {
			uint64_t bloom = flood(b, s[mc], cand & -cand);
			cand &= ~bloom;
			if (!(neighbours(b, bloom) & empty)) {
				if (fenced_cell)
					*fenced_cell = __builtin_ctzll(bloom);
				return 0;
			}
		}
	}
	return 1;
}

static int is_first_turn(const struct bp_pos *p)
{
	return occupied(p) == 0 && !OVER(p);
}

/* What move generation needs about a position, computed once: every bloom with its
 * cells, liberties and neighbouring cells, the bloom of each stone, and the quiet
 * cells. With it, the legality of a turn is a handful of mask operations on the
 * blooms next to the placed stones, without any flood fill. */
struct scan {
	uint64_t s[4], empty;
	int pl;
	uint8_t id[64];
	uint64_t mask[64], libs[64], nb[64];
	/* per mover colour i (colour 2 pl + i) and empty cell v, for a stone of that
	 * colour on v: the bloom it forms (v and the blooms it joins), that bloom's
	 * liberties other than v, and the cells next to it */
	uint64_t joined[2][64], newlibs[2][64], around[2][64];
	/* liberties of the mover's blooms that have at most two */
	uint64_t weak;
	/* per mover colour: the cells where that bloom has at least two liberties,
	 * exactly one, and (single_at[i][x]) exactly the one x */
	uint64_t many[2], single[2], single_at[2][64];
};

/* at least two bits / at most two bits, without a popcount instruction */
static int two_or_more(uint64_t x)
{
	return (x & (x - 1)) != 0;
}

static int at_most_two(uint64_t x)
{
	x &= x - 1;
	return (x & (x - 1)) == 0;
}

static void scan_build(const struct blooms *b, const struct bp_pos *p, int pl, struct scan *sc)
{
	int nblooms = 0;
	uint64_t weak = 0;
	sc->pl = pl;
	sc->empty = b->full & ~occupied(p);
	for (int c = 0; c < 4; c++) {
		sc->s[c] = STONES(p, c);
		for (uint64_t left = sc->s[c]; left;) {
			uint64_t bloom = flood(b, sc->s[c], left & -left);
			left &= ~bloom;
			uint64_t nb = neighbours(b, bloom);
			sc->mask[nblooms] = bloom;
			sc->nb[nblooms] = nb;
			sc->libs[nblooms] = nb & sc->empty;
			if (c / 2 == pl && at_most_two(sc->libs[nblooms]))
				weak |= sc->libs[nblooms];
			for (uint64_t m = bloom; m; m &= m - 1)
				sc->id[__builtin_ctzll(m)] = (uint8_t)nblooms;
			nblooms++;
		}
	}
	sc->weak = weak;
	for (int i = 0; i < 2; i++) {
		uint64_t own = sc->s[2 * pl + i];
		sc->many[i] = sc->single[i] = 0;
		/* single_at is only written and read at empty cells (liberties, partners):
		 * clearing those costs less than clearing all 64 */
		for (uint64_t e = sc->empty; e; e &= e - 1)
			sc->single_at[i][__builtin_ctzll(e)] = 0;
		for (uint64_t e = sc->empty; e; e &= e - 1) {
			int v = __builtin_ctzll(e);
			uint64_t bit = 1ull << v;
			uint64_t libs = b->nbr[v] & sc->empty, around = b->nbr[v], joined = bit;
			for (uint64_t o = own & b->nbr[v]; o;) {
				int k = sc->id[__builtin_ctzll(o)];
				o &= ~sc->mask[k];
				libs |= sc->libs[k];
				around |= sc->nb[k];
				joined |= sc->mask[k];
			}
			libs &= ~bit;
			sc->joined[i][v] = joined;
			sc->newlibs[i][v] = libs;
			sc->around[i][v] = around;
			if (two_or_more(libs)) {
				sc->many[i] |= bit;
			} else if (libs) {
				sc->single[i] |= bit;
				sc->single_at[i][__builtin_ctzll(libs)] |= bit;
			}
		}
	}
}

/* The opponent blooms next to the stones P (adj: their neighbours) that have no
 * liberty outside P. */
static uint64_t scan_captures(const struct scan *sc, uint64_t P, uint64_t adj)
{
	int op = 1 - sc->pl;
	uint64_t captured = 0;
	for (uint64_t o = (sc->s[2 * op] | sc->s[2 * op + 1]) & adj; o;) {
		int k = sc->id[__builtin_ctzll(o)];
		o &= ~sc->mask[k];
		if (!(sc->libs[k] & ~P))
			captured |= sc->mask[k];
	}
	return captured;
}

/* Is placing a stone of colour 2 pl on v0 and one of colour 2 pl + 1 on v1 (either
 * may be -1: absent) legal? The same rule as place(), on the scanned blooms: a new
 * bloom (the stone and the blooms of its colour that it joins) needs a liberty that
 * is no stone, or a captured neighbour; so does every other mover bloom next to a
 * stone. An opponent bloom next to a stone is captured when all its liberties are
 * stones; captures are only worked out when some mover bloom needs one. */
static int scan_legal(const struct blooms *b, const struct scan *sc, int v0, int v1)
{
	int pl = sc->pl;
	int v[2] = { v0, v1 };
	uint64_t P = 0, adj = 0, captured = 0, joined = 0;
	int have_captures = 0;
	for (int i = 0; i < 2; i++)
		if (v[i] >= 0) {
			P |= 1ull << v[i];
			adj |= b->nbr[v[i]];
			joined |= sc->joined[i][v[i]];
		}
	for (int i = 0; i < 2; i++) {
		if (v[i] < 0 || (sc->newlibs[i][v[i]] & ~P))
			continue;
		if (!have_captures) {
			captured = scan_captures(sc, P, adj);
			have_captures = 1;
		}
		if (!(sc->around[i][v[i]] & captured))
			return 0;
	}
	uint64_t rest = (sc->s[2 * pl] | sc->s[2 * pl + 1]) & adj & ~joined;
	while (rest) {
		int k = sc->id[__builtin_ctzll(rest)];
		rest &= ~sc->mask[k];
		if (sc->libs[k] & ~P)
			continue;
		if (!have_captures) {
			captured = scan_captures(sc, P, adj);
			have_captures = 1;
		}
		if (!(sc->nb[k] & captured))
			return 0;
	}
	return 1;
}

/* The moves of p, which is neither over nor the first turn, with its scan (made here). */
static int scan_moves(const struct blooms *b, const struct bp_pos *p, struct scan *sc,
		      struct bp_move *out)
{
	int pl = (int)MOVER(p), n = 0;
	uint64_t empty = b->full & ~occupied(p);
	scan_build(b, p, pl, sc);
	/* a single stone off the weak cells whose bloom has a liberty is legal */
	for (int i = 0; i < 2; i++) {
		uint64_t sure = (sc->many[i] | sc->single[i]) & ~sc->weak;
		for (uint64_t e = empty; e; e &= e - 1) {
			int v = __builtin_ctzll(e);
			if ((sure >> v & 1) || scan_legal(b, sc, i ? -1 : v, i ? v : -1))
				out[n++].v = MOVE_ONE | stone_code(2 * pl + i, v);
		}
	}
	for (uint64_t e1 = empty; e1; e1 &= e1 - 1) {
		int v1 = __builtin_ctzll(e1);
		uint64_t bit1 = 1ull << v1;
		uint32_t first = MOVE_TWO | MOVE_ONE | stone_code(2 * pl, v1);
		/* partners v2 that are surely legal: v1's bloom keeps a liberty that is
		 * not v2, v2's keeps one that is not v1, and neither is a weak cell */
		uint64_t sure = 0, libs0 = sc->newlibs[0][v1];
		if (libs0 && !(sc->weak & bit1)) {
			uint64_t keeps1 = sc->many[1] | (sc->single[1] & ~sc->single_at[1][v1]);
			uint64_t takes0 = two_or_more(libs0) ? 0 : libs0;
			sure = keeps1 & ~sc->weak & ~takes0;
		}
		for (uint64_t e2 = empty & ~bit1; e2; e2 &= e2 - 1) {
			int v2 = __builtin_ctzll(e2);
			if ((sure >> v2 & 1) || scan_legal(b, sc, v1, v2))
				out[n++].v = first | stone_code(2 * pl + 1, v2) << 16;
		}
	}
	out[n++].v = MOVE_PASS;
	return n;
}

static int blooms_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct blooms *b = B(g);
	if (OVER(p))
		return 0;
	int pl = (int)MOVER(p), n = 0;
	if (is_first_turn(p)) {
		/* one stone of either colour anywhere: on an empty board of at least
		 * three cells it always has an empty neighbour */
		for (int i = 0; i < 2; i++)
			for (uint64_t e = b->full; e; e &= e - 1)
				out[n++].v = MOVE_ONE | stone_code(2 * pl + i, __builtin_ctzll(e));
		return n;
	}
	struct scan sc;
	return scan_moves(b, p, &sc, out);
}

static void blooms_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	const struct blooms *b = B(g);
	int pl = (int)MOVER(p);
	if (m.v == MOVE_PASS) {
		if (PASSED(p))
			OVER(p) = 1;
		PASSED(p) = 1;
		if (!FIRSTPASS(p))
			FIRSTPASS(p) = (uint64_t)pl + 1;
	} else {
		uint64_t add[2] = { 0, 0 };
		uint32_t st = m.v & 0xff;
		add[(st >> 6) & 1] |= 1ull << (st & 63);
		if (m.v & MOVE_TWO) {
			st = (m.v >> 16) & 0xff;
			add[(st >> 6) & 1] |= 1ull << (st & 63);
		}
		int ok = place(b, p->w, pl, add[0], add[1], NULL);
		assert(ok);
		(void)ok;
		PASSED(p) = 0;
	}
	MOVER(p) = (uint64_t)(1 - pl);
}

void bp_blooms_evaluate(const struct bp_game *g, const struct bp_pos *p, struct bp_blooms_eval *out)
{
	const struct blooms *b = B(g);
	memset(out, 0, sizeof *out);
	uint64_t own[2] = { p->w[0] | p->w[1], p->w[2] | p->w[3] };
	uint64_t empty = b->full & ~(own[0] | own[1]);
	for (uint64_t left = empty; left;) {
		uint64_t region = flood(b, empty, left & -left);
		left &= ~region;
		uint64_t around = neighbours(b, region);
		int t1 = (around & own[0]) != 0, t2 = (around & own[1]) != 0;
		if (t1 && !t2)
			out->territory[0] |= region;
		else if (t2 && !t1)
			out->territory[1] |= region;
		else
			out->neutral |= region;
	}
	for (int c = 0; c < 4; c++)
		for (uint64_t left = STONES(p, c); left;) {
			uint64_t bloom = flood(b, STONES(p, c), left & -left);
			left &= ~bloom;
			if (!(neighbours(b, bloom) & empty))
				out->fenced |= bloom;
		}
	for (int i = 0; i < 2; i++) {
		out->stones[i] = __builtin_popcountll(own[i]);
		out->score[i] = out->stones[i] + __builtin_popcountll(out->territory[i]);
	}
}

static enum bp_value blooms_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	if (!OVER(p))
		return BP_VALUE_NONE;
	struct bp_blooms_eval e;
	bp_blooms_evaluate(g, p, &e);
	int pl = (int)MOVER(p);
	int lead = e.score[pl] - e.score[1 - pl];
	if (lead)
		return lead > 0 ? BP_VALUE_WIN : BP_VALUE_LOSS;
	/* a game over has had two passes, so firstpass is set */
	assert(FIRSTPASS(p));
	return (int)FIRSTPASS(p) == pl + 1 ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

static void blooms_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
}

static char blooms_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	for (int c = 0; c < 4; c++)
		if (STONES(p, c) >> cell & 1)
			return colour_chars[c];
	return '.';
}

/* A finished game (two passes) is not a position (RULES.md 8), but solvers and tools
 * hold it as one; it prints as the position before the final pass would, with the
 * side to move and keys after that pass, followed by "over=1", which pos_parse
 * refuses with an explanation. So it can be shown in a log but never read back. */
static void blooms_pos_format(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out)
{
	char cells[64];
	for (int c = 0; c < g->board->ncells; c++)
		cells[c] = blooms_cell_char(g, p, c);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %d firstpass=%c passed=%d", (int)MOVER(p) + 1,
		       FIRSTPASS(p) <= 2 ? "-12"[FIRSTPASS(p)] : '?', (int)PASSED(p));
	if (OVER(p))
		bp_text_printf(out, " over=1");
}

static int blooms_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			    struct bp_err *err)
{
	const struct blooms *b = B(g);
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, colour_chars, &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	for (int c = 0; c < b->n; c++) {
		const char *at = strchr(colour_chars, pt.cells[c]);
		if (pt.cells[c] != '.' && at)
			STONES(out, at - colour_chars) |= 1ull << c;
	}
	if (strcmp(pt.to_move, "1") != 0 && strcmp(pt.to_move, "2") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be 1 or 2", pt.to_move);
	MOVER(out) = pt.to_move[0] == '2';
	if (bp_postext_key(&pt, "over"))
		return bp_err_set(err, BP_EPARSE,
				  "key 'over': a game ended by two passes is not a position "
				  "(RULES.md 8)");
	const char *fp = bp_postext_key(&pt, "firstpass");
	const char *pa = bp_postext_key(&pt, "passed");
	if (!fp)
		return bp_err_set(err, BP_EPARSE, "missing key 'firstpass' (-, 1 or 2)");
	if (!pa)
		return bp_err_set(err, BP_EPARSE, "missing key 'passed' (0 or 1)");
	if (strcmp(fp, "-") == 0)
		FIRSTPASS(out) = 0;
	else if (strcmp(fp, "1") == 0)
		FIRSTPASS(out) = 1;
	else if (strcmp(fp, "2") == 0)
		FIRSTPASS(out) = 2;
	else
		return bp_err_set(err, BP_EPARSE, "firstpass=%s: expected -, 1 or 2", fp);
	if (strcmp(pa, "0") == 0)
		PASSED(out) = 0;
	else if (strcmp(pa, "1") == 0)
		PASSED(out) = 1;
	else
		return bp_err_set(err, BP_EPARSE, "passed=%s: expected 0 or 1", pa);
	rc = bp_postext_check_keys(&pt, err);
	if (rc)
		return rc;

	/* Fenced blooms: after every turn none is left (the opponent's are captured,
	 * the mover's are forbidden), and a pass changes nothing. */
	uint64_t empty = b->full & ~occupied(out);
	for (int c = 0; c < 4; c++)
		for (uint64_t left = STONES(out, c); left;) {
			uint64_t bloom = flood(b, STONES(out, c), left & -left);
			left &= ~bloom;
			if (!(neighbours(b, bloom) & empty)) {
				char name[16];
				bp_board_cell_name(g->board, __builtin_ctzll(bloom), name,
						   sizeof name);
				return bp_err_set(
					err, BP_EPARSE,
					"the %c bloom at %s (%d stone%s) is fenced: it has "
					"no empty neighbour, which no turn leaves",
					colour_chars[c], name, __builtin_popcountll(bloom),
					__builtin_popcountll(bloom) == 1 ? "" : "s");
			}
		}
	/* Turn order. The first turn places a stone and every placement leaves one of
	 * the mover's stones, so the board is empty exactly at the start. A previous
	 * turn that placed stones left the player who made it (not to move) with a
	 * stone; a previous pass followed a position with passed=0, so the player to
	 * move now made the turn before it, which placed stones. */
	int pl = (int)MOVER(out);
	uint64_t own[2] = { out->w[0] | out->w[1], out->w[2] | out->w[3] };
	if (!occupied(out)) {
		if (pl != 0 || FIRSTPASS(out) || PASSED(out))
			return bp_err_set(err, BP_EPARSE,
					  "an empty board is the start position: player 1 to move, "
					  "firstpass=-, passed=0 (got %d firstpass=%s passed=%s)",
					  pl + 1, fp, pa);
		return BP_OK;
	}
	if (PASSED(out) && !FIRSTPASS(out))
		return bp_err_set(err, BP_EPARSE,
				  "passed=1 with firstpass=-: the pass just made was the first");
	if (!PASSED(out) && !own[1 - pl])
		return bp_err_set(err, BP_EPARSE,
				  "passed=0 and player %d to move, but player %d, who just placed "
				  "stones, has none on the board",
				  pl + 1, 2 - pl);
	if (PASSED(out) && !own[pl])
		return bp_err_set(
			err, BP_EPARSE,
			"passed=1 and player %d to move, but player %d, who placed stones "
			"on the turn before the pass, has none on the board",
			pl + 1, pl + 1);
	return BP_OK;
}

/* Parses one stone "rc3" at text; stores colour and cell and the length read. */
static int parse_stone(const struct bp_game *g, const char *text, const char *whole, int *colour,
		       int *cell, int *used, struct bp_err *err)
{
	const char *at = text[0] ? strchr(colour_chars, text[0]) : NULL;
	if (!at)
		return bp_err_set(err, BP_EPARSE,
				  "move '%.20s': a stone starts with its colour r, y, g or k (as "
				  "rc3), or the move is 'pass'",
				  whole);
	*colour = (int)(at - colour_chars);
	int rc = bp_board_cell_parse(g->board, text + 1, cell, used, err);
	if (rc)
		return rc;
	*used += 1;
	return BP_OK;
}

static int blooms_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
			     struct bp_move *out, struct bp_err *err)
{
	const struct blooms *b = B(g);
	int pl = (int)MOVER(p);
	int colour[2], cell[2], used, n = 1;
	if (strcmp(text, "pass") == 0) {
		if (OVER(p))
			return bp_err_set(err, BP_EILLEGAL, "move pass: the game is over");
		if (is_first_turn(p))
			return bp_err_set(err, BP_EILLEGAL,
					  "move pass: the first turn must place a stone");
		out->v = MOVE_PASS;
		return BP_OK;
	}
	int rc = parse_stone(g, text, text, &colour[0], &cell[0], &used, err);
	if (rc)
		return rc;
	const char *rest = text + used;
	if (rest[0] == '+') {
		rc = parse_stone(g, rest + 1, text, &colour[1], &cell[1], &used, err);
		if (rc)
			return rc;
		rest += 1 + used;
		n = 2;
	}
	if (rest[0] != '\0')
		return bp_err_set(err, BP_EPARSE, "unexpected '%.12s' after move %.*s", rest,
				  (int)(rest - text), text);
	if (OVER(p))
		return bp_err_set(err, BP_EILLEGAL, "move %s: the game is over", text);
	uint64_t occ = occupied(p), add[2] = { 0, 0 };
	char name[16];
	for (int i = 0; i < n; i++) {
		if (colour[i] / 2 != pl)
			return bp_err_set(err, BP_EILLEGAL,
					  "move %s: %c is not a colour of player %d (%s)", text,
					  colour_chars[colour[i]], pl + 1, pl ? "g, k" : "r, y");
		if (occ >> cell[i] & 1) {
			bp_board_cell_name(g->board, cell[i], name, sizeof name);
			return bp_err_set(err, BP_EILLEGAL, "move %s: cell %s is occupied", text,
					  name);
		}
		add[colour[i] & 1] |= 1ull << cell[i];
	}
	if (n == 2) {
		if (colour[0] == colour[1])
			return bp_err_set(err, BP_EILLEGAL,
					  "move %s: a two-stone turn places one stone of each of "
					  "the mover's colours",
					  text);
		if (cell[0] == cell[1])
			return bp_err_set(err, BP_EILLEGAL, "move %s: both stones on one cell",
					  text);
		if (is_first_turn(p))
			return bp_err_set(err, BP_EILLEGAL,
					  "move %s: the first turn places a single stone", text);
	}
	uint64_t s[4] = { p->w[0], p->w[1], p->w[2], p->w[3] };
	int fenced;
	if (!place(b, s, pl, add[0], add[1], &fenced)) {
		bp_board_cell_name(g->board, fenced, name, sizeof name);
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: it leaves the mover's bloom at %s fenced (no empty "
				  "neighbour after captures)",
				  text, name);
	}
	if (n == 1) {
		out->v = MOVE_ONE | stone_code(colour[0], cell[0]);
	} else {
		int f = colour[0] & 1; /* index of the stone of the second colour */
		out->v = MOVE_TWO | MOVE_ONE | stone_code(colour[f], cell[f]) |
			 stone_code(colour[1 - f], cell[1 - f]) << 16;
	}
	return BP_OK;
}

static void blooms_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move m,
			       struct bp_text *out)
{
	(void)p;
	if (m.v == MOVE_PASS) {
		bp_text_printf(out, "pass");
		return;
	}
	char name[16];
	uint32_t st = m.v & 0xff;
	bp_board_cell_name(g->board, (int)(st & 63), name, sizeof name);
	bp_text_printf(out, "%c%s", colour_chars[st >> 6], name);
	if (m.v & MOVE_TWO) {
		st = (m.v >> 16) & 0xff;
		bp_board_cell_name(g->board, (int)(st & 63), name, sizeof name);
		bp_text_printf(out, "+%c%s", colour_chars[st >> 6], name);
	}
}

/* Symmetry s = swaps * nbsym + board symmetry, where bit 0 of swaps exchanges r and y
 * and bit 1 exchanges g and k: a player's two colours play identical roles. */
static void swap_colours(const uint64_t in[4], int swaps, uint64_t out[4])
{
	out[0] = in[swaps & 1];
	out[1] = in[1 - (swaps & 1)];
	out[2] = in[2 + (swaps >> 1 & 1)];
	out[3] = in[3 - (swaps >> 1 & 1)];
}

static void blooms_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			     struct bp_pos *out)
{
	const struct blooms *b = B(g);
	uint64_t sw[4];
	*out = *p;
	swap_colours(p->w, s / b->nbsym, sw);
	for (int c = 0; c < 4; c++)
		out->w[c] = bp_perm64_apply(b->perm, s % b->nbsym, sw[c]);
}

static uint64_t sym_apply(const struct blooms *b, int i, uint64_t m)
{
	const uint64_t *t = b->tab + (size_t)i * (size_t)b->nbytes * 256;
	uint64_t r = 0;
	for (int k = 0; k < b->nbytes; k++, m >>= 8)
		r |= t[k * 256 + (m & 255)];
	return r;
}

/* The least image, comparing planes r, y, g, k in turn as words, over every colour swap
 * and board symmetry. A swap only reorders planes, so each plane is moved by each board
 * symmetry once, and only when the first plane (r or y, as the swap puts it first) of
 * some order can still be the least.
 *
 * On small boards (at most 16 cells) the four planes of an image pack into one word,
 *
 *     bits 63..48  47..32  31..16  15..0
 *          first   second  third   fourth plane
 *
 * whose numeric order is the order of the planes compared in turn. The swaps act on
 * the two halves independently (r, y above; g, k below), so the least of an image's
 * four swaps is the least order of each pair, and the canonical form is the least of
 * nbsym such words: no branch but the one that skips an image whose first plane
 * cannot win. */
/* The least order of a pair of planes (r, y or g, k) as 32 bits. */
static uint64_t pair_key(uint64_t a, uint64_t b)
{
	return a < b ? a << 16 | b : b << 16 | a;
}

/* The image of plane x under symmetry i, from the whole-plane table (full) or the byte
 * tables; inlined with a constant `full`, so each loop below has one kind of lookup. */
static inline uint64_t image_by(const struct blooms *b, int full, int i, uint64_t x)
{
	if (full)
		return b->sfull[((size_t)i << b->n) + x];
	return (uint64_t)b->stab[i][0][x & 255] | (uint64_t)b->stab[i][1][x >> 8 & 255];
}

static uint64_t small_image(const struct blooms *b, int i, uint64_t x)
{
	return b->sfull ? image_by(b, 1, i, x) : image_by(b, 0, i, x);
}

static inline uint64_t least_key(const struct blooms *b, int full, const uint64_t in[4])
{
	uint64_t best = ~0ull;
	for (int i = 0; i < b->nbsym; i++) {
		uint64_t hi = pair_key(image_by(b, full, i, in[0]), image_by(b, full, i, in[1]));
		if (hi > best >> 32)
			continue;
		uint64_t key = hi << 32 |
			       pair_key(image_by(b, full, i, in[2]), image_by(b, full, i, in[3]));
		best = key < best ? key : best;
	}
	return best;
}

static void small_canonical(const struct blooms *b, const uint64_t in[4], uint64_t out[4])
{
	uint64_t best = b->sfull ? least_key(b, 1, in) : least_key(b, 0, in);
	out[0] = best >> 48;
	out[1] = best >> 32 & 0xffff;
	out[2] = best >> 16 & 0xffff;
	out[3] = best & 0xffff;
}

static void canonical_planes(const struct blooms *b, const uint64_t in[4], uint64_t out[4])
{
	if (b->stab) {
		small_canonical(b, in, out);
		return;
	}
	uint64_t best[4] = { in[0], in[1], in[2], in[3] };
	for (int i = 0; i < b->nbsym; i++) {
		uint64_t img[4];
		img[0] = sym_apply(b, i, in[0]);
		img[1] = sym_apply(b, i, in[1]);
		if (img[0] > best[0] && img[1] > best[0])
			continue;
		img[2] = sym_apply(b, i, in[2]);
		img[3] = sym_apply(b, i, in[3]);
		for (int swaps = 0; swaps < 4; swaps++) {
			uint64_t cur[4];
			swap_colours(img, swaps, cur);
			int c = 0;
			while (c < 4 && cur[c] == best[c])
				c++;
			if (c < 4 && cur[c] < best[c])
				memcpy(best, cur, sizeof best);
		}
	}
	memcpy(out, best, sizeof best);
}

static void blooms_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	uint64_t best[4];
	canonical_planes(B(g), p->w, best);
	*out = *p;
	memcpy(out->w, best, sizeof best);
}

/* Tiers and ranking, for the solvers that hold a dense index space in memory
 * (solver/cyclic.h). Moves do not raise the tier here: a tier is only the number of
 * stones on the board, which captures lower. Within tier t the index is
 *
 *     ((colex rank of the occupied cells) * 4^t + colours) * 24 + state
 *
 * where colours packs two bits a stone (bit 0 of a stone's colour from the y and k
 * stones, bit 1 from the g and k stones, in cell order) and state = mover
 * + 2 * firstpass + 6 * passed + 12 * over. Holes are the indices whose keys no game
 * produces (passed without firstpass, over without passed, keys set on the empty
 * board: 14 of the 24 states remain, VALID_STATES) and those that pos_parse refuses
 * for their stones: a fenced bloom, which no turn leaves, and a side without stones
 * where the turn order needs one (turn_states). On tri4 these two refuse 4.49 of the
 * 5.81 million canonical indices, nearly all for a fenced bloom. */
#define NSTATES 24
#define VALID_STATES 0xf00f3fu /* 0-5 (no pass), 8-11 (passed), 20-23 (over) */

/* The states of VALID_STATES as sets of bits: mover 1 or 2, passed 0, passed 1 without
 * over, over */
#define MOVER1_STATES 0x555555u
#define MOVER2_STATES 0xaaaaaau
#define PLACED_STATES 0x00003fu
#define PASSED_STATES 0x000f00u
#define OVER_STATES 0xf00000u

/* The states in which stones s[4] (not none) can follow a turn, as bits of
 * VALID_STATES. A turn that placed stones (passed 0) leaves its player, now not to
 * move, with a stone (a turn never loses the mover's own); a pass (passed 1) followed
 * such a turn of the player now to move; a game over followed two passes, the first
 * after a turn that placed stones of the player not to move. So a player without
 * stones rules out the states that need theirs. */
static uint32_t turn_states(const uint64_t s[4])
{
	uint32_t st = 0;
	if (s[0] | s[1]) /* player 1 has stones */
		st |= (PLACED_STATES & MOVER2_STATES) | (PASSED_STATES & MOVER1_STATES) |
		      (OVER_STATES & MOVER2_STATES);
	if (s[2] | s[3])
		st |= (PLACED_STATES & MOVER1_STATES) | (PASSED_STATES & MOVER2_STATES) |
		      (OVER_STATES & MOVER1_STATES);
	return st;
}

/* Does every bloom of stones s[4] have an empty neighbour (as after every turn)? */
static int none_fenced(const struct blooms *b, const uint64_t s[4])
{
	uint64_t near = neighbours(b, b->full & ~(s[0] | s[1] | s[2] | s[3]));
	for (int c = 0; c < 4; c++)
		if (flood(b, s[c], s[c] & near) != s[c])
			return 0;
	return 1;
}

static uint32_t blooms_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return (uint32_t)__builtin_popcountll(occupied(p));
}

static int blooms_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct blooms *b = B(g);
	uint64_t s;
	if (tier > (uint32_t)b->n || 2 * tier >= 64)
		return BP_ERANGE;
	if (__builtin_mul_overflow(bp_binom(b->n, (int)tier), 1ull << (2 * tier), &s) ||
	    __builtin_mul_overflow(s, (uint64_t)NSTATES, &s))
		return BP_ERANGE;
	*out = s;
	return BP_OK;
}

/* The index of stones s[4] with state (see above) on a small board: every such index
 * fits, so there is nothing to check. The colour bits are gathered in one pass over the
 * stones. */
static uint64_t small_rank(const struct blooms *b, const uint64_t s[4], uint64_t state)
{
	uint64_t occ = s[0] | s[1] | s[2] | s[3];
	uint64_t a = s[1] | s[3], c = s[2] | s[3], o0 = occ & 255, o1 = occ >> 8;
	int t = __builtin_popcountll(occ), t0 = __builtin_popcountll(o0);
	uint64_t lo = b->ext[o0][a & 255] | (uint64_t)b->ext[o1][a >> 8] << t0;
	uint64_t hi = b->ext[o0][c & 255] | (uint64_t)b->ext[o1][c >> 8] << t0;
	return (((uint64_t)b->srank[occ] << (2 * t)) + (lo | hi << t)) * NSTATES + state;
}

static uint64_t state_of(const struct bp_pos *p)
{
	return MOVER(p) + 2 * FIRSTPASS(p) + 6 * PASSED(p) + 12 * OVER(p);
}

static int rank_planes(const struct bp_game *g, const uint64_t s[4], uint64_t state, uint64_t *out)
{
	const struct blooms *b = B(g);
	if (b->srank) {
		*out = small_rank(b, s, state);
		return BP_OK;
	}
	uint64_t occ = s[0] | s[1] | s[2] | s[3], size;
	uint32_t t = (uint32_t)__builtin_popcountll(occ);
	int rc = blooms_tier_size(g, t, &size);
	if (rc)
		return rc;
	uint64_t lo = bp_bits_extract(s[1] | s[3], occ);
	uint64_t hi = bp_bits_extract(s[2] | s[3], occ);
	uint64_t colours = lo | hi << t;
	*out = ((bp_rank_subset(occ) << (2 * t)) + colours) * NSTATES + state;
	return BP_OK;
}

static int blooms_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	return rank_planes(g, p->w, state_of(p), out);
}

static int blooms_unrank(const struct bp_game *g, uint32_t tier, uint64_t index, struct bp_pos *out)
{
	uint64_t size;
	int rc = blooms_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	memset(out, 0, sizeof *out);
	uint64_t state = index % NSTATES;
	index /= NSTATES;
	MOVER(out) = state & 1;
	FIRSTPASS(out) = state / 2 % 3;
	PASSED(out) = state / 6 % 2;
	OVER(out) = state / 12;
	if ((PASSED(out) && !FIRSTPASS(out)) || (OVER(out) && !PASSED(out)) ||
	    (tier == 0 && state != 0))
		return BP_ENOTFOUND;
	uint64_t mask = tier ? (1ull << tier) - 1 : 0;
	uint64_t colours = index & ((1ull << (2 * tier)) - 1);
	const struct blooms *b = B(g);
	uint64_t occ = b->sof ? b->sof[b->sfirst[tier] + (index >> (2 * tier))]
			      : bp_unrank_subset((int)tier, index >> (2 * tier));
	uint64_t lo = bp_bits_deposit(colours & mask, occ);
	uint64_t hi = bp_bits_deposit(colours >> tier & mask, occ);
	out->w[0] = occ & ~lo & ~hi;
	out->w[1] = lo & ~hi;
	out->w[2] = hi & ~lo;
	out->w[3] = lo & hi;
	if (tier && (!(turn_states(out->w) >> state & 1) || !none_fenced(b, out->w)))
		return BP_ENOTFOUND;
	return BP_OK;
}

/* ---- the structural holes: canonical_mask -----------------------------------------
 *
 * An index is q * 24 + state, q = (colex rank of the occupied cells) * 4^t + colours,
 * so the mask is a 24-bit pattern per stone layout q: unrank() accepts the states of
 * turn_states() when no bloom is fenced (only state 0 on the empty board), and
 * canonical() moves only the planes, so either every accepted state of q is canonical
 * or none is. The layouts of a range are visited in order, their planes kept by
 * increments: a step adds one to the t-bit counter of the y and k stones (flipping its
 * lowest j bits flips the colour bit at the lowest j cells of the occupied set), and a
 * carry out of it adds one to the counter of the g and k stones the same way. A layout
 * is canonical when r <= y and g <= k (else a colour swap is smaller) and no board
 * symmetry's image, its colours ordered the same way, is smaller (canonical_planes'
 * order); most fail at the swaps, the rest at the first image or two; the fenced test
 * comes last. 4-6 us a block of 16384 indices (bench_codec's mask_us, tri4 and rh3x3). */

/* Are the planes w[4] (with w[0] <= w[1] and w[2] <= w[3]) the least image? */
static int planes_least(const struct blooms *b, const uint64_t w[4])
{
	if (b->stab) {
		const int full = b->sfull != NULL;
		const uint64_t own = w[0] << 48 | w[1] << 32 | w[2] << 16 | w[3];
		for (int i = 0; i < b->nbsym; i++) {
			uint64_t hi =
				pair_key(image_by(b, full, i, w[0]), image_by(b, full, i, w[1]));
			if (hi != own >> 32) {
				if (hi < own >> 32)
					return 0;
				continue;
			}
			uint64_t lo =
				pair_key(image_by(b, full, i, w[2]), image_by(b, full, i, w[3]));
			if (lo < (own & 0xffffffffu))
				return 0;
		}
		return 1;
	}
	for (int i = 0; i < b->nbsym; i++) {
		uint64_t img[4];
		for (int c = 0; c < 4; c++)
			img[c] = sym_apply(b, i, w[c]);
		for (int c = 0; c < 4; c += 2)
			if (img[c] > img[c + 1]) {
				uint64_t x = img[c];
				img[c] = img[c + 1];
				img[c + 1] = x;
			}
		int c = 0;
		while (c < 4 && img[c] == w[c])
			c++;
		if (c < 4 && img[c] < w[c])
			return 0;
	}
	return 1;
}

/* ORs the bits pat of indices pos.. (pos may be negative) into bits[] of n indices. */
static void mask_put(uint64_t *bits, int64_t pos, uint32_t n, uint64_t pat)
{
	if (pos < 0) {
		pat >>= -pos;
		pos = 0;
	}
	if ((uint64_t)pos + NSTATES > n)
		pat &= (1ull << (n - (uint64_t)pos)) - 1;
	bits[pos / 64] |= pat << (pos % 64);
	if (pos % 64 > 64 - NSTATES && pat >> (64 - pos % 64))
		bits[pos / 64 + 1] |= pat >> (64 - pos % 64);
}

static int blooms_canonical_mask(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
				 uint64_t *bits)
{
	const struct blooms *b = B(g);
	int rc = bp_game_mask_begin(g, tier, first, n, bits);
	if (rc)
		return rc;
	if (tier == 0) { /* one index is valid, the start */
		bits[0] = first == 0;
		return BP_OK;
	}
	const int t = (int)tier;
	const uint64_t top = 1ull << t;
	uint64_t q = first / NSTATES, last = (first + n - 1) / NSTATES;
	uint64_t occ = 0, low[65], lo = 0, hi = 0, cl = 0, ch = top;
	for (; q <= last; q++) {
		if (ch == top) { /* a new occupied set: the range's first, or a carry */
			uint64_t R = q >> (2 * t), colours = q & ((1ull << (2 * t)) - 1);
			occ = b->sof ? b->sof[b->sfirst[t] + R] : bp_unrank_subset(t, R);
			low[0] = 0;
			int j = 0;
			for (uint64_t m = occ; m; m &= m - 1, j++)
				low[j + 1] = low[j] | (m & -m);
			cl = colours & (top - 1);
			ch = colours >> t;
			lo = bp_bits_deposit(cl, occ);
			hi = bp_bits_deposit(ch, occ);
		}
		uint64_t w[4] = { occ & ~lo & ~hi, lo & ~hi, hi & ~lo, lo & hi };
		if (w[0] <= w[1] && w[2] <= w[3] && planes_least(b, w) && none_fenced(b, w))
			mask_put(bits, (int64_t)(q * NSTATES - first), n, turn_states(w));
		if (++cl < top) {
			lo ^= low[__builtin_ctzll(cl) + 1];
		} else {
			cl = 0;
			lo = 0;
			if (++ch < top)
				hi ^= low[__builtin_ctzll(ch) + 1];
		}
	}
	return BP_OK;
}

/* The children of p (children() in game.h) from the scan that generated its moves: a
 * turn adds its stones and removes the opponent blooms next to them whose liberties
 * are all among them (scan_captures), exactly as place() does, without a flood fill;
 * the planes are canonicalized and ranked as words, never as a whole struct bp_pos.
 * The first turn (one position) takes the ordinary path. */
static int blooms_children(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
			   uint64_t *index)
{
	const struct blooms *b = B(g);
	struct bp_move mv[MAX_MOVES];
	int n, rc, pl = (int)MOVER(p), op = 1 - pl;
	if (OVER(p))
		return 0;
	if (is_first_turn(p)) {
		n = blooms_moves(g, p, mv);
		for (int i = 0; i < n; i++) {
			struct bp_pos c = *p, canon;
			blooms_apply(g, &c, mv[i]);
			blooms_canonical(g, &c, &canon);
			tier[i] = blooms_tier(g, &canon);
			if ((rc = blooms_rank(g, &canon, &index[i])))
				return rc;
		}
		return n;
	}
	struct scan sc;
	n = scan_moves(b, p, &sc, mv);
	uint64_t fp = FIRSTPASS(p);
	uint64_t placed = (uint64_t)op + 2 * fp; /* passed 0, over 0 */
	uint64_t passed = (uint64_t)op + 2 * (fp ? fp : (uint64_t)pl + 1) + 6 + 12 * PASSED(p);
	for (int i = 0; i < n; i++) {
		uint64_t s[4] = { sc.s[0], sc.s[1], sc.s[2], sc.s[3] }, c[4], state = passed;
		uint32_t m = mv[i].v;
		if (m != MOVE_PASS) {
			uint64_t P = 0, adj = 0;
			for (uint32_t st = m & 0xff, k = 0; k < 2; k++, st = (m >> 16) & 0xff) {
				if (k && !(m & MOVE_TWO))
					break;
				int cell = (int)(st & 63);
				s[2 * pl + (int)(st >> 6 & 1)] |= 1ull << cell;
				P |= 1ull << cell;
				adj |= b->nbr[cell];
			}
			uint64_t captured = scan_captures(&sc, P, adj);
			s[2 * op] &= ~captured;
			s[2 * op + 1] &= ~captured;
			state = placed;
		}
		canonical_planes(b, s, c);
		tier[i] = (uint32_t)__builtin_popcountll(c[0] | c[1] | c[2] | c[3]);
		if ((rc = rank_planes(g, c, state, &index[i])))
			return rc;
	}
	return n;
}

static void append_cells(const struct bp_game *g, uint64_t set, struct bp_text *json,
			 struct bp_text *text)
{
	char name[16];
	int first = 1;
	bp_text_printf(json, "[");
	for (; set; set &= set - 1) {
		bp_board_cell_name(g->board, __builtin_ctzll(set), name, sizeof name);
		bp_text_printf(json, "%s\"%s\"", first ? "" : ", ", name);
		bp_text_printf(text, " %s", name);
		first = 0;
	}
	bp_text_printf(json, "]");
	if (first)
		bp_text_printf(text, " none");
}

static void blooms_describe(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			    struct bp_text *text)
{
	struct bp_blooms_eval e;
	bp_blooms_evaluate(g, p, &e);
	bp_text_printf(json,
		       "\"score\": {\"1\": %d, \"2\": %d}, \"stones\": {\"1\": %d, \"2\": %d}",
		       e.score[0], e.score[1], e.stones[0], e.stones[1]);
	bp_text_printf(text, "score:    1: %d (%d stones + %d territory), 2: %d (%d + %d)\n",
		       e.score[0], e.stones[0], e.score[0] - e.stones[0], e.score[1], e.stones[1],
		       e.score[1] - e.stones[1]);
	for (int i = 0; i < 2; i++) {
		bp_text_printf(json, ", \"territory_%d\": ", i + 1);
		bp_text_printf(text, "territory %d:", i + 1);
		append_cells(g, e.territory[i], json, text);
		bp_text_printf(text, "\n");
	}
	bp_text_printf(json, ", \"neutral\": ");
	bp_text_printf(text, "neutral:    ");
	append_cells(g, e.neutral, json, text);
	bp_text_printf(json, ", \"fenced\": ");
	bp_text_printf(text, "\nfenced:     ");
	append_cells(g, e.fenced, json, text);
	bp_text_printf(text, "\n");
	if (OVER(p)) {
		bp_text_printf(json, ", \"over\": true");
		bp_text_printf(text, "over:        two passes in a row ended the game\n");
	}
}

static void blooms_destroy_impl(struct blooms *b)
{
	bp_perm64_destroy(b->perm);
	free(b->tab);
	free(b->stab);
	free(b->srank);
	free(b->sof);
	free(b->sfull);
	free(b->ext);
	free(b);
}

static void blooms_destroy(struct bp_game *g)
{
	blooms_destroy_impl(g->impl);
	g->impl = NULL;
}

/* The tables of small boards (struct blooms). @return BP_OK; BP_ENOMEM. */
static int small_tables(struct blooms *b)
{
	size_t sets = (size_t)1 << b->n;
	b->stab = calloc((size_t)b->nbsym, sizeof *b->stab);
	b->srank = malloc(sets * sizeof *b->srank);
	b->sof = malloc(sets * sizeof *b->sof);
	b->ext = malloc(256 * sizeof *b->ext);
	if (!b->stab || !b->srank || !b->sof || !b->ext)
		return BP_ENOMEM;
	for (int m = 0; m < 256; m++)
		for (int v = 0; v < 256; v++)
			b->ext[m][v] = (uint8_t)bp_bits_extract((uint64_t)v, (uint64_t)m);
	for (int i = 0; i < b->nbsym; i++)
		for (int k = 0; k < 2; k++)
			for (int v = 0; v < 256; v++)
				b->stab[i][k][v] = (uint16_t)bp_perm64_apply(
					b->perm, i, (uint64_t)v << (8 * k) & b->full);
	b->sfirst[0] = 0;
	for (int t = 0; t < 16; t++)
		b->sfirst[t + 1] = b->sfirst[t] + (uint32_t)bp_binom(b->n, t);
	for (size_t m = 0; m < sets; m++) {
		uint64_t r = bp_rank_subset(m);
		b->srank[m] = (uint32_t)r;
		b->sof[b->sfirst[__builtin_popcountll(m)] + r] = (uint16_t)m;
	}
	if (b->n <= FULL_CELLS) {
		uint16_t *full = malloc(((size_t)b->nbsym << b->n) * sizeof *full);
		if (!full)
			return BP_ENOMEM;
		for (int i = 0; i < b->nbsym; i++)
			for (size_t m = 0; m < sets; m++)
				full[((size_t)i << b->n) + m] = (uint16_t)small_image(b, i, m);
		b->sfull = full; /* small_image reads it from here on */
	}
	return BP_OK;
}

static int blooms_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *bd = g->board;
	if (bd->ncells > 64)
		return bp_err_set(err, BP_ESPEC,
				  "blooms: board %s has %d cells; at most 64 are supported",
				  bd->name, bd->ncells);
	struct blooms *b = calloc(1, sizeof *b);
	if (!b)
		return BP_ENOMEM;
	b->n = bd->ncells;
	b->full = b->n == 64 ? ~0ull : (1ull << b->n) - 1;
	for (int c = 0; c < b->n; c++)
		for (int i = 0; i < bd->cells[c].degree; i++)
			b->nbr[c] |= 1ull << bd->cells[c].nb[i];
	int syms[12];
	for (int s = 0; s < bd->nsym; s++)
		syms[s] = s;
	int rc = bp_perm64_create(bd, syms, bd->nsym, &b->perm);
	if (rc) {
		free(b);
		return rc;
	}
	b->nbsym = bd->nsym;
	b->nbytes = (b->n + 7) / 8;
	b->tab = calloc((size_t)b->nbsym * (size_t)b->nbytes * 256, sizeof *b->tab);
	if (!b->tab) {
		bp_perm64_destroy(b->perm);
		free(b);
		return BP_ENOMEM;
	}
	for (int i = 0; i < b->nbsym; i++)
		for (int k = 0; k < b->nbytes; k++)
			for (int v = 0; v < 256; v++)
				b->tab[((size_t)i * (size_t)b->nbytes + (size_t)k) * 256 +
				       (size_t)v] =
					bp_perm64_apply(b->perm, i,
							(uint64_t)v << (8 * k) & b->full);
	if (b->n <= SMALL_CELLS && (rc = small_tables(b))) {
		blooms_destroy_impl(b);
		return rc;
	}
	g->impl = b;
	g->max_moves = 1 + 2 * b->n + b->n * (b->n - 1);
	g->nsym = 4 * bd->nsym;
	g->ntiers = (uint32_t)b->n + 1;
	return BP_OK;
}

/* Player 1's red and yellow, player 2's grey and black. */
static void blooms_picture(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *out)
{
	(void)g;
	(void)p;
	static const uint32_t colour[4] = { 0xd22828, 0xf2c81e, 0x9a9a9a, 0x1a1a1a };
	static const char *const name[4] = { "red (1)", "yellow (1)", "grey (2)", "black (2)" };
	out->nchars = 4;
	for (int c = 0; c < 4; c++) {
		out->chars[c] = colour_chars[c];
		out->colour[c] = colour[c];
		out->name[c] = name[c];
	}
}

const struct bp_game_ops bp_blooms_ops = {
	.name = "blooms",
	.title = "Blooms: two colours each, fenced blooms are captured, stones + territory",
	.shapes = BP_SHAPES_HEXCELL,
	.flags = BP_GAME_CYCLIC,
	.create = blooms_create,
	.destroy = blooms_destroy,
	.start = blooms_start,
	.moves = blooms_moves,
	.apply = blooms_apply,
	.outcome = blooms_outcome,
	.pos_parse = blooms_pos_parse,
	.pos_format = blooms_pos_format,
	.cell_char = blooms_cell_char,
	.move_parse = blooms_move_parse,
	.move_format = blooms_move_format,
	.transform = blooms_transform,
	.canonical = blooms_canonical,
	.tier = blooms_tier,
	.tier_size = blooms_tier_size,
	.rank = blooms_rank,
	.unrank = blooms_unrank,
	.children = blooms_children,
	.canonical_mask = blooms_canonical_mask,
	.describe = blooms_describe,
	.picture = blooms_picture,
	.claims = "no-draw soft-finite first-player",
	/* games that repeat search with weak numbers whatever is asked (solver/dfpn.c) */
	.dfpn_weak = 1,
};
