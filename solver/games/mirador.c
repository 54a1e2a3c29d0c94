/* SPDX-License-Identifier: MIT */
/* Mirador on row and column bitboards. A position is
 *
 *     w[0..11]   red micro squares        cell index = y * W + x, top row first
 *     w[12..23]  blue micro squares
 *     w[24]      colour to move (0 red, 1 blue)
 *     w[25]      passed: 1 when the previous turn was a pass
 *
 * Everything else is derived. Inside a call the planes are unpacked into one 64-bit
 * word per row and per column (W, H <= 64), so that placement legality and line of
 * sight are shifts and masks.
 *
 * Passes. A player with no legal placement never gets one back (pieces are only
 * added), so the history is: alternate placements; at some point one player X is
 * out and passes on each of its turns while the other places; when the other is out
 * too it passes, and that second pass in a row ends the game. With r red and b blue
 * pieces let e = r - b - (1 if blue is to move). Then e = (blue passes) - (red
 * passes), at most one player has passed while the game goes on, and
 *
 *     passed=0:  e == 0 (nobody passed), or e < 0 with red to move and red out,
 *                or e > 0 with blue to move and blue out;
 *     passed=1:  red to move:  e >= 1: blue is out and just passed (game goes on),
 *                              e <= 0: red passed once, then blue: over, drawn;
 *                blue to move: e <= -1: red is out and just passed,
 *                              e >= 0: blue passed, then red: over, drawn.
 *
 * So the text's `passed=0|1` is enough to tell the game-ending second pass from a
 * first one, and the number of passes so far (hence the turn count) is |e| or so.
 *
 * The placement rule, the links and the unbreakable test (the chain-breaking search)
 * live in solver/games/mirador_chain.c.
 *
 * Tiers are turns played (pieces + passes, see "tiers and ranks" below); grids
 * with at most 64 top-left positions (9x9 for 2x2 pieces) also have ranks, dense
 * enough to solve up to 9x9. */
#include "solver/games/mirador.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/random.h"
#include "canon/rank.h"
#include "canon/symmetry.h"
#include "solver/games/mirador_chain.h"
#include "solver/games/postext.h"

#define MAX_SIDE BP_MIRADOR_MAX_SIDE
#define MAX_CELLS BP_MIRADOR_MAX_CELLS
#define PLANE_WORDS BP_MIRADOR_PLANE_WORDS
#define TO_MOVE(p) ((p)->w[24])
#define PASSED(p) ((p)->w[25])

static const char side_names[] = "NSWE";

/* One block of a tier's index space: the positions with r red and b blue pieces
 * (and hence a known number of passes, and `passed`). */
struct tier_block {
	int r, b, passed;
	uint64_t offset, size; /* 0 when the size overflows */
};

/* Sets of top-left positions that can hold pieces together (no overlap, no side
 * contact), by size, each sorted: the dense part of the rank when they are few. */
#define MAX_SET_TABLE (1u << 21)

struct mirador {
	struct bp_mirador_grid gr; /* the geometry */
	/* tiers: turns played. Dense ranks need the N = nx * ny top-left positions to
	 * fit a 64-bit set. */
	int nplace, maxpieces;
	struct tier_block *blocks;
	int *tier_first; /* ntiers + 1 entries: blocks of tier t */
	int ranked;	 /* nplace <= 64 */
	/* ranked and at most MAX_SET_TABLE compatible sets: sets[k] lists those of size k
	 * (nsets[k] of them); else (sets == NULL) sizes are C(N, r) * C(N, b) */
	uint64_t **sets;
	uint64_t *nsets;
	/* small grids (at most 128 squares and 126 top-left places): the fast paths on
	 * place sets (see "small grids" below); NULL otherwise */
	struct small *sm;
	/* class hashes for proof-number search (mirador_sym_hash): zob[(s * 2 + c) *
	 * ncells + q] is the word of colour c's square sym(s, q), for nsym symmetries */
	uint64_t *zob;
};

static const struct bp_option mirador_options[] = {
	{ .key = "piece",
	  .def = "2",
	  .help = "side of a piece in micro squares (the seed's miradors are 2x2)" },
	{ 0 },
};

static const struct mirador *M(const struct bp_game *g)
{
	return g->impl;
}

static uint64_t *plane(struct bp_pos *p, int colour)
{
	return p->w + (colour ? PLANE_WORDS : 0);
}

static const uint64_t *cplane(const struct bp_pos *p, int colour)
{
	return p->w + (colour ? PLANE_WORDS : 0);
}

static int count_bits(const uint64_t *pl)
{
	int n = 0;
	for (int i = 0; i < PLANE_WORDS; i++)
		n += __builtin_popcountll(pl[i]);
	return n;
}

static int test_bit(const uint64_t *pl, int cell)
{
	return (int)(pl[cell >> 6] >> (cell & 63) & 1);
}

int bp_mirador_test(const struct bp_game *g, const struct bp_pos *p, int colour,
		    struct bp_mirador_verdict *out)
{
	return bp_mirador_test_dirs(g, p, colour, BP_MIRADOR_NS | BP_MIRADOR_EW, out);
}

/* Unpacks p's board and builds colour's network into a fresh *t (free it with
 * free_net, whatever this returns). @return BP_OK; BP_ENOMEM. */
static int open_net(const struct mirador *m, const struct bp_pos *p, int colour,
		    struct bp_mirador_board *b, struct bp_mirador_net **t)
{
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), b);
	*t = malloc(sizeof **t);
	return *t ? bp_mirador_net_build(&m->gr, b, colour, *t) : BP_ENOMEM;
}

static void free_net(struct bp_mirador_net *t)
{
	if (t)
		bp_mirador_net_free(t);
	free(t);
}

/* bp_mirador_test_dirs on board b, unpacked already. */
static int test_board(const struct mirador *m, const struct bp_mirador_board *b, int colour,
		      int dirs, struct bp_mirador_verdict *out)
{
	struct bp_mirador_net t; /* on the stack: this runs for every position solved */
	memset(out, 0, sizeof *out);
	int rc = bp_mirador_net_build(&m->gr, b, colour, &t);
	if (!rc)
		rc = bp_mirador_chain_test(&m->gr, b, &t, colour, dirs, out);
	bp_mirador_net_free(&t);
	return rc;
}

int bp_mirador_test_dirs(const struct bp_game *g, const struct bp_pos *p, int colour, int dirs,
			 struct bp_mirador_verdict *out)
{
	const struct mirador *m = M(g);
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	return test_board(m, &b, colour, dirs, out);
}

int bp_mirador_chains(const struct bp_game *g, const struct bp_pos *p, int colour)
{
	const struct mirador *m = M(g);
	struct bp_mirador_board b;
	struct bp_mirador_net *t;
	int mask = 0, rc = open_net(m, p, colour, &b, &t);
	if (!rc)
		rc = bp_mirador_chain_mask(t, &mask);
	free_net(t);
	return rc ? rc : mask;
}

int bp_mirador_links(const struct bp_game *g, const struct bp_pos *p, int colour,
		     struct bp_mirador_link *out, int cap)
{
	const struct mirador *m = M(g);
	struct bp_mirador_board b;
	struct bp_mirador_net *t;
	int rc = open_net(m, p, colour, &b, &t);
	int n = rc ? rc : t->nlinks;
	for (int i = 0; i < n && i < cap; i++) {
		const struct bp_mirador_edge *l = &t->links[i];
		out[i].from = t->py[l->a] * m->gr.w + t->px[l->a];
		out[i].to = l->b >= t->n ? -1 - (l->b - t->n) : t->py[l->b] * m->gr.w + t->px[l->b];
		out[i].kind = (char)l->kind;
		out[i].lanes = l->nl;
	}
	free_net(t);
	return n;
}

int bp_mirador_greedy(const struct bp_game *g, const struct bp_pos *p, int colour, int order)
{
	const struct mirador *m = M(g);
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	return bp_mirador_greedy_breaks(&m->gr, &b, colour, BP_MIRADOR_NS | BP_MIRADOR_EW, order);
}

int bp_mirador_can_place(const struct bp_game *g, const struct bp_pos *p, int colour, int x, int y)
{
	const struct mirador *m = M(g);
	if (x < 0 || y < 0 || x >= m->gr.nx || y >= m->gr.ny)
		return 0;
	struct bp_mirador_board b;
	uint64_t legal[MAX_SIDE];
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	bp_mirador_board_legal(&m->gr, &b, colour, legal);
	return (int)(legal[y] >> x & 1);
}

/* ---- turn order ------------------------------------------------------------------- */

/* e = r - b - (blue to move): blue's passes minus red's (see the header). */
static int pass_balance(const struct bp_pos *p, int P)
{
	int r = count_bits(cplane(p, 0)) / (P * P), b = count_bits(cplane(p, 1)) / (P * P);
	return r - b - (int)TO_MOVE(p);
}

/* The previous two turns were passes: the game is over, drawn. */
static int double_pass(const struct bp_pos *p, int P)
{
	if (!PASSED(p))
		return 0;
	int e = pass_balance(p, P);
	return TO_MOVE(p) ? e >= 0 : e <= 0;
}

/* The unbreakable test for outcome(), which has no error path: when the search runs
 * out of memory the instance is marked failed (bp_game_fail; engines, verify and
 * perft then stop with BP_ENOMEM) and the chains count as breakable. */
static int unbreakable(const struct bp_game *g, const struct bp_pos *p, int colour)
{
	int rc = bp_mirador_unbreakable(g, p, colour);
	if (rc < 0) {
		bp_game_fail(g, rc);
		return 0;
	}
	return rc;
}

static enum bp_value mirador_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	if (unbreakable(g, p, 1 - (int)TO_MOVE(p)))
		return BP_VALUE_LOSS;
	if (double_pass(p, M(g)->gr.p))
		return BP_VALUE_DRAW;
	return BP_VALUE_NONE;
}

static void mirador_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
}

/* The legal places of the player to move in p (RULES.md 9.1), by row, whether or not
 * the game is over. */
static void legal_places(const struct mirador *m, const struct bp_pos *p, uint64_t *legal)
{
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	bp_mirador_board_legal(&m->gr, &b, (int)TO_MOVE(p), legal);
}

/* The moves of a player whose legal places are `legal` (by row): a pass when none. */
static int moves_of_legal(const struct mirador *m, const uint64_t *legal)
{
	int n = 0;
	for (int y = 0; y < m->gr.ny; y++)
		n += __builtin_popcountll(legal[y]);
	return n ? n : 1;
}

static int mirador_move_count(const struct bp_game *g, const struct bp_pos *p)
{
	const struct mirador *m = M(g);
	uint64_t legal[MAX_SIDE];
	legal_places(m, p, legal);
	return moves_of_legal(m, legal);
}

static int mirador_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct mirador *m = M(g);
	if (mirador_outcome(g, p) != BP_VALUE_NONE)
		return 0;
	uint64_t legal[MAX_SIDE];
	legal_places(m, p, legal);
	int n = 0;
	for (int y = 0; y < m->gr.ny; y++) {
		uint64_t v = legal[y];
		while (v) {
			int x = __builtin_ctzll(v);
			v &= v - 1;
			out[n++].v = (uint32_t)(y * m->gr.w + x);
		}
	}
	if (n == 0)
		out[n++].v = BP_MIRADOR_PASS;
	return n;
}

static void mirador_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move mv)
{
	const struct mirador *m = M(g);
	if (mv.v == BP_MIRADOR_PASS) {
		PASSED(p) = 1;
	} else {
		uint64_t *pl = plane(p, (int)TO_MOVE(p));
		int x = (int)mv.v % m->gr.w, y = (int)mv.v / m->gr.w;
		for (int dy = 0; dy < m->gr.p; dy++)
			for (int dx = 0; dx < m->gr.p; dx++) {
				int cell = (y + dy) * m->gr.w + x + dx;
				pl[cell >> 6] |= 1ull << (cell & 63);
			}
		PASSED(p) = 0;
	}
	TO_MOVE(p) ^= 1;
}

/* ---- text ------------------------------------------------------------------------ */

static char mirador_cell_char(const struct bp_game *g, const struct bp_pos *p, int cell)
{
	(void)g;
	return test_bit(cplane(p, 0), cell) ? 'r' : test_bit(cplane(p, 1), cell) ? 'b' : '.';
}

static void mirador_pos_format(const struct bp_game *g, const struct bp_pos *p, struct bp_text *out)
{
	char cells[MAX_CELLS];
	for (int c = 0; c < g->board->ncells; c++)
		cells[c] = mirador_cell_char(g, p, c);
	bp_postext_format_rows(g->board, cells, out);
	bp_text_printf(out, " %c passed=%d", TO_MOVE(p) ? 'b' : 'r', (int)PASSED(p));
}

static void cell_name(const struct bp_game *g, int x, int y, char *buf)
{
	bp_board_cell_name(g->board, y * M(g)->gr.w + x, buf, 16);
}

static const char *const colour_names[] = { "red", "blue" };

static int validate_cells(const struct bp_game *g, const char *cells, struct bp_pos *out,
			  struct bp_err *err);

static int mirador_pos_parse(const struct bp_game *g, const char *text, struct bp_pos *out,
			     struct bp_err *err)
{
	struct bp_postext pt;
	int rc = bp_postext_parse(g->board, text, "rb", &pt, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	if (strcmp(pt.to_move, "r") != 0 && strcmp(pt.to_move, "b") != 0)
		return bp_err_set(err, BP_EPARSE, "side to move '%s' must be r or b", pt.to_move);
	TO_MOVE(out) = pt.to_move[0] == 'b';
	const char *passed = bp_postext_key(&pt, "passed");
	if (!passed || strcmp(passed, "0") == 0)
		PASSED(out) = 0;
	else if (strcmp(passed, "1") == 0)
		PASSED(out) = 1;
	else
		return bp_err_set(err, BP_EPARSE, "passed=%s: expected 0 or 1", passed);
	rc = bp_postext_check_keys(&pt, err);
	if (rc)
		return rc;
	return validate_cells(g, pt.cells, out, err);
}

/* Builds out's planes from one character a cell ('r', 'b', '.'), out's to-move and
 * passed already set, and checks everything RULES.md 9 and section 2 ask of a
 * position: whole pieces, contacts that placements allow, and the turn order.
 * @return BP_OK or BP_EPARSE saying what and where. */
static int validate_cells(const struct bp_game *g, const char *cells, struct bp_pos *out,
			  struct bp_err *err)
{
	const struct mirador *m = M(g);
	int W = m->gr.w, H = m->gr.h, P = m->gr.p;

	/* decompose each colour into P x P blocks: scanning in drawing order, the first
	 * square of a piece not yet accounted for is its top-left */
	int16_t owner[MAX_CELLS];
	char name[16], name2[16];
	int npieces[2] = { 0, 0 };
	for (int c = 0; c < W * H; c++)
		owner[c] = -1;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			char ch = cells[y * W + x];
			if (ch == '.' || owner[y * W + x] >= 0)
				continue;
			int col = ch == 'b';
			for (int dy = 0; dy < P; dy++)
				for (int dx = 0; dx < P; dx++) {
					int cx = x + dx, cy = y + dy;
					if (cx >= W || cy >= H || cells[cy * W + cx] != ch ||
					    owner[cy * W + cx] >= 0) {
						cell_name(g, x, y, name);
						return bp_err_set(err, BP_EPARSE,
								  "broken %s piece at %s: the %c "
								  "squares from "
								  "%s are not a full %dx%d block",
								  colour_names[col], name, ch, name,
								  P, P);
					}
					owner[cy * W + cx] = (int16_t)(y * W + x);
				}
			uint64_t *pl = plane(out, col);
			for (int dy = 0; dy < P; dy++)
				for (int dx = 0; dx < P; dx++) {
					int cell = (y + dy) * W + x + dx;
					pl[cell >> 6] |= 1ull << (cell & 63);
				}
			npieces[col]++;
		}
	/* contacts between pieces: never along a side, at a corner only within a colour */
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			int a = owner[y * W + x];
			if (a < 0)
				continue;
			static const int dirs[3][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 } };
			for (int d = 0; d < 4; d++) {
				int dx = d < 3 ? dirs[d][0] : -1, dy = d < 3 ? dirs[d][1] : 1;
				int x2 = x + dx, y2 = y + dy;
				if (x2 < 0 || x2 >= W || y2 >= H)
					continue;
				int o = owner[y2 * W + x2];
				if (o < 0 || o == a)
					continue;
				char ca = cells[y * W + x], cb = cells[y2 * W + x2];
				if (dx != 0 && dy != 0 && ca == cb)
					continue; /* a corner within a colour: allowed */
				bp_board_cell_name(g->board, a, name, sizeof name);
				bp_board_cell_name(g->board, o, name2, sizeof name2);
				if ((dx == 0 || dy == 0) && ca == cb)
					return bp_err_set(err, BP_EPARSE,
							  "broken %s piece: the %c squares at %s "
							  "and %s do not "
							  "split into %dx%d pieces that no side "
							  "contact joins",
							  ca == 'r' ? "red" : "blue", ca, name,
							  name2, P, P);
				if (dx == 0 || dy == 0)
					return bp_err_set(
						err, BP_EPARSE,
						"red and blue pieces at %s and %s touch along "
						"a side, which no placement allows",
						name, name2);
				if (ca != cb)
					return bp_err_set(
						err, BP_EPARSE,
						"red and blue pieces at %s and %s touch at "
						"a corner, which no placement allows",
						name, name2);
			}
		}

	/* turn order (see the header) */
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(out, 0), cplane(out, 1), &b);
	int e = npieces[0] - npieces[1] - (int)TO_MOVE(out);
	int red_out = !bp_mirador_board_has_legal(&m->gr, &b, 0),
	    blue_out = !bp_mirador_board_has_legal(&m->gr, &b, 1);
	const char *who = TO_MOVE(out) ? "blue" : "red";
	if (!PASSED(out)) {
		if (e > 0 && (!TO_MOVE(out) || !blue_out))
			return bp_err_set(err, BP_EPARSE,
					  "%d red and %d blue pieces with %s to move and passed=0: "
					  "red is ahead by more than the turn order allows%s",
					  npieces[0], npieces[1], who,
					  TO_MOVE(out)
						  ? " (blue could only have fallen behind "
						    "by passing, but blue has a legal placement)"
						  : "");
		if (e < 0 && (TO_MOVE(out) || !red_out))
			return bp_err_set(err, BP_EPARSE,
					  "%d red and %d blue pieces with %s to move and passed=0: "
					  "blue is ahead by more than the turn order allows%s",
					  npieces[0], npieces[1], who,
					  !TO_MOVE(out)
						  ? " (red could only have fallen behind "
						    "by passing, but red has a legal placement)"
						  : "");
	} else {
		int over = double_pass(out, P);
		/* the player who just passed had no placement; after two passes both */
		int passer_out = TO_MOVE(out) ? red_out : blue_out;
		const char *passer = TO_MOVE(out) ? "red" : "blue";
		if (!passer_out)
			return bp_err_set(err, BP_EPARSE,
					  "passed=1, but %s, who moved last, has a legal placement "
					  "(a player passes only when it has none)",
					  passer);
		if (over && !(red_out && blue_out))
			return bp_err_set(err, BP_EPARSE,
					  "passed=1 with %d red and %d blue pieces and %s to move "
					  "means two passes in a row, but %s has a legal placement",
					  npieces[0], npieces[1], who, who);
	}
	return BP_OK;
}

static int mirador_move_parse(const struct bp_game *g, const struct bp_pos *p, const char *text,
			      struct bp_move *out, struct bp_err *err)
{
	const struct mirador *m = M(g);
	if (mirador_outcome(g, p) != BP_VALUE_NONE)
		return bp_err_set(err, BP_EILLEGAL, "move %s: the game is over", text);
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	int c = (int)TO_MOVE(p);
	int can = bp_mirador_board_has_legal(&m->gr, &b, c);
	if (strcmp(text, "pass") == 0) {
		if (can)
			return bp_err_set(err, BP_EILLEGAL,
					  "pass: %s has a legal placement (a player passes only "
					  "when it has none)",
					  colour_names[c]);
		out->v = BP_MIRADOR_PASS;
		return BP_OK;
	}
	int cell, used;
	int rc = bp_board_cell_parse(g->board, text, &cell, &used, err);
	if (rc)
		return rc;
	if (text[used] != '\0')
		return bp_err_set(err, BP_EPARSE, "unexpected '%.12s' after move %.*s", text + used,
				  used, text);
	int x = cell % m->gr.w, y = cell / m->gr.w, P = m->gr.p;
	if (!can)
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: %s has no legal placement and must pass", text,
				  colour_names[c]);
	if (x >= m->gr.nx || y >= m->gr.ny)
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: a %dx%d piece with its top-left square there leaves "
				  "the grid",
				  text, P, P);
	for (int dy = 0; dy < P; dy++)
		for (int dx = 0; dx < P; dx++)
			if (b.orow[y + dy] >> (x + dx) & 1)
				return bp_err_set(err, BP_EILLEGAL,
						  "move %s: the piece would cover an occupied "
						  "square",
						  text);
	if (!bp_mirador_can_place(g, p, c, x, y)) {
		/* side contact, else corner contact with the opponent */
		int side = 0;
		for (int k = 0; k < P; k++) {
			side |= (x > 0 && bp_mirador_board_colour(&b, x - 1, y + k) >= 0) ||
				(x + P < m->gr.w &&
				 bp_mirador_board_colour(&b, x + P, y + k) >= 0) ||
				(y > 0 && bp_mirador_board_colour(&b, x + k, y - 1) >= 0) ||
				(y + P < m->gr.h && bp_mirador_board_colour(&b, x + k, y + P) >= 0);
		}
		return bp_err_set(err, BP_EILLEGAL,
				  side ? "move %s: the piece would touch another piece along a "
					 "side"
				       : "move %s: the piece would touch an opponent's piece at "
					 "a corner",
				  text);
	}
	out->v = (uint32_t)cell;
	return BP_OK;
}

static void mirador_move_format(const struct bp_game *g, const struct bp_pos *p, struct bp_move mv,
				struct bp_text *out)
{
	char name[16];
	(void)p;
	if (mv.v == BP_MIRADOR_PASS) {
		bp_text_printf(out, "pass");
		return;
	}
	bp_board_cell_name(g->board, (int)mv.v, name, sizeof name);
	bp_text_printf(out, "%s", name);
}

/* ---- symmetry --------------------------------------------------------------------- */

static void mirador_transform(const struct bp_game *g, const struct bp_pos *p, int s,
			      struct bp_pos *out)
{
	bp_pos_clear(out);
	for (int c = 0; c < 2; c++)
		bp_sym_apply_bits(g->board, s, cplane(p, c), plane(out, c));
	TO_MOVE(out) = TO_MOVE(p);
	PASSED(out) = PASSED(p);
}

/* Class hashes for proof-number search (bp_game_ops.sym_hash): with fixed random
 * words Z[c][q] for colour c's square q, the hash of a position is the XOR of Z over
 * its squares and a word of its to-move and passed fields (which no symmetry moves),
 * so that h[s], the hash of its image under symmetry s, XORs Z[c][sym(s, q)] over the
 * same squares (the table zob). A move changes h[s] by the squares it fills and the
 * fields. On grids past 128 squares the search made a canonical form of every child
 * (7 images of both planes, mirador:18x18) where a child's key is now 8 XORs a square
 * filled. The words come from a fixed generator: a kept table's keys stay valid. */
static int zob_create(const struct bp_game *g, struct mirador *m)
{
	int n = g->board->ncells, ns = g->nsym;
	uint64_t *base = malloc(sizeof(uint64_t) * (size_t)n * 2), x = 0x4d4952414430ull;
	if (!base || !(m->zob = malloc(sizeof(uint64_t) * (size_t)n * 2 * (size_t)ns))) {
		free(base);
		return BP_ENOMEM;
	}
	for (int i = 0; i < 2 * n; i++)
		base[i] = bp_splitmix64(&x);
	for (int s = 0; s < ns; s++)
		for (int c = 0; c < 2; c++)
			for (int q = 0; q < n; q++)
				m->zob[((size_t)s * 2 + (size_t)c) * (size_t)n + (size_t)q] =
					base[c * n + bp_board_sym(g->board, s, q)];
	free(base);
	return BP_OK;
}

/* The word of p's fields that no symmetry moves. */
static uint64_t zob_fields(const struct bp_pos *p)
{
	uint64_t x = 0x5ab1e5ull + (TO_MOVE(p) & 1) + 2 * (PASSED(p) & 1);
	return bp_splitmix64(&x);
}

/* XORs the words of colour c's squares in set (ncells bits) into h[0 .. nsym). */
static void zob_squares(const struct bp_game *g, const uint64_t *set, int c, uint64_t *h)
{
	const struct mirador *m = M(g);
	const int n = g->board->ncells, ns = g->nsym;
	for (int w = 0; w < PLANE_WORDS; w++)
		for (uint64_t v = set[w]; v; v &= v - 1) {
			int q = w * 64 + __builtin_ctzll(v);
			if (q >= n)
				break;
			const uint64_t *z = m->zob + (size_t)c * (size_t)n + (size_t)q;
			for (int s = 0; s < ns; s++)
				h[s] ^= z[(size_t)s * 2 * (size_t)n];
		}
}

static uint64_t least_of(const uint64_t *h, int n)
{
	uint64_t k = h[0];
	for (int s = 1; s < n; s++)
		k = h[s] < k ? h[s] : k;
	return k;
}

static uint64_t mirador_sym_hash(const struct bp_game *g, const struct bp_pos *p, uint64_t *h)
{
	uint64_t f = zob_fields(p);
	for (int s = 0; s < g->nsym; s++)
		h[s] = f;
	for (int c = 0; c < 2; c++)
		zob_squares(g, cplane(p, c), c, h);
	return least_of(h, g->nsym);
}

static uint64_t mirador_sym_hash_move(const struct bp_game *g, const struct bp_pos *p,
				      const uint64_t *h, const struct bp_pos *c, uint64_t *out)
{
	uint64_t t[BP_GAME_SYM_HASH_MAX], f = zob_fields(p) ^ zob_fields(c);
	uint64_t *o = out ? out : t;
	for (int s = 0; s < g->nsym; s++)
		o[s] = h[s] ^ f;
	for (int k = 0; k < 2; k++) { /* the squares that differ, of either colour */
		uint64_t d[PLANE_WORDS];
		for (int w = 0; w < PLANE_WORDS; w++)
			d[w] = cplane(p, k)[w] ^ cplane(c, k)[w];
		zob_squares(g, d, k, o);
	}
	return least_of(o, g->nsym);
}

/* ---- the children of one node (proof-number search) ----
 *
 * A child is the node plus one piece of the mover (or a pass), and its outcome is
 * whether the mover's chains are unbreakable after it. On grids past the small ones
 * that test unpacked the child's board, found the opponent's legal places and the
 * mover's lanes afresh, then packed greedy sets (bp_mirador_unbreakable): a fifth of
 * a mirador:19x19 search went to the first three. Here they are found once per node
 * (bp_mirador_kids_node) and each child's from them by what its piece changes
 * (bp_mirador_kids_child), with the same greedy sets and search after. The key is
 * sym_hash_move's, by the piece's squares. Small grids and passes take the ops'
 * own path. */
static int general_unbreakable(const struct mirador *m, const struct bp_mirador_board *b,
			       const struct bp_mirador_greedy *gr);

struct kids_ctx {
	int general, mover;
	int moves;	 /* kids_move_count of the last child, or -1 */
	uint64_t fields; /* zob_fields of the node */
	struct bp_mirador_kids k;
};

static void mirador_kids_node(const struct bp_game *g, const struct bp_pos *p, void *ctx)
{
	const struct mirador *m = M(g);
	struct kids_ctx *kc = ctx;
	kc->general = m->sm == NULL;
	kc->moves = -1;
	kc->mover = (int)TO_MOVE(p);
	kc->fields = zob_fields(p);
	if (kc->general) {
		bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &kc->k.b);
		bp_mirador_kids_node(&m->gr, &kc->k.b, kc->mover, &kc->k);
	}
}

static uint64_t mirador_kids_child(const struct bp_game *g, void *ctx, const uint64_t *h,
				   struct bp_pos *c, struct bp_move mv, enum bp_value *v)
{
	const struct mirador *m = M(g);
	struct kids_ctx *kc = ctx;
	const int n = g->board->ncells, ns = g->nsym, P = m->gr.p;
	kc->moves = -1;
	mirador_apply(g, c, mv);
	uint64_t o[BP_GAME_SYM_HASH_MAX], f = kc->fields ^ zob_fields(c);
	for (int s = 0; s < ns; s++)
		o[s] = h[s] ^ f;
	/* the key: the piece's squares, of the mover's colour (sym_hash_move's update) */
	int x = 0, y = 0;
	if (mv.v != BP_MIRADOR_PASS) {
		x = (int)mv.v % m->gr.w, y = (int)mv.v / m->gr.w;
		for (int dy = 0; dy < P; dy++)
			for (int dx = 0; dx < P; dx++) {
				const uint64_t *z = m->zob + (size_t)kc->mover * (size_t)n +
						    (size_t)((y + dy) * m->gr.w + x + dx);
				for (int s = 0; s < ns; s++)
					o[s] ^= z[(size_t)s * 2 * (size_t)n];
			}
	}
	if (mv.v == BP_MIRADOR_PASS || !kc->general) {
		*v = mirador_outcome(g, c);
		return least_of(o, ns);
	}
	struct bp_mirador_board cb;
	struct bp_mirador_greedy gr;
	bp_mirador_kids_child(&m->gr, &kc->k, x, y, &cb, &gr);
	int rc = general_unbreakable(m, &cb, &gr);
	if (rc < 0) { /* as unbreakable(): the instance fails, the chains count breakable */
		bp_game_fail(g, rc);
		rc = 0;
	}
	*v = rc ? BP_VALUE_LOSS : double_pass(c, P) ? BP_VALUE_DRAW : BP_VALUE_NONE;
	if (*v == BP_VALUE_NONE) /* the child's mover's legal places, as move_count */
		kc->moves = moves_of_legal(m, gr.legal);
	return least_of(o, ns);
}

static int mirador_kids_move_count(const struct bp_game *g, const void *ctx)
{
	(void)g;
	return ((const struct kids_ctx *)ctx)->moves;
}

int bp_mirador_kids_agree(const struct bp_game *g, const struct bp_pos *p)
{
	const struct mirador *m = M(g);
	if (m->sm || mirador_outcome(g, p) != BP_VALUE_NONE)
		return -1;
	struct kids_ctx *kc = malloc(sizeof *kc);
	struct bp_move *mv = malloc(sizeof *mv * (size_t)g->max_moves);
	if (!kc || !mv) {
		free(kc);
		free(mv);
		return -1;
	}
	mirador_kids_node(g, p, kc);
	int n = mirador_moves(g, p, mv), differ = 0, W = m->gr.w, H = m->gr.h;
	for (int i = 0; i < n; i++) {
		if (mv[i].v == BP_MIRADOR_PASS)
			continue;
		struct bp_pos c = *p;
		mirador_apply(g, &c, mv[i]);
		struct bp_mirador_board cb, fb;
		struct bp_mirador_greedy gr, fg;
		bp_mirador_kids_child(&m->gr, &kc->k, (int)mv[i].v % W, (int)mv[i].v / W, &cb, &gr);
		bp_mirador_board_unpack(&m->gr, cplane(&c, 0), cplane(&c, 1), &fb);
		bp_mirador_greedy_prepare(&m->gr, &fb, kc->mover, &fg);
		int same = gr.colour == fg.colour && gr.n == fg.n;
		for (int y = 0; y < H && same; y++)
			same = cb.row[0][y] == fb.row[0][y] && cb.row[1][y] == fb.row[1][y] &&
			       cb.orow[y] == fb.orow[y];
		for (int x = 0; x < W && same; x++)
			same = cb.col[0][x] == fb.col[0][x] && cb.col[1][x] == fb.col[1][x] &&
			       cb.ocol[x] == fb.ocol[x];
		for (int y = 0; y < m->gr.ny && same; y++)
			same = gr.legal[y] == fg.legal[y] && gr.cand[y] == fg.cand[y];
		/* the same pieces, in any order */
		for (int a = 0; a < gr.n && same; a++) {
			int found = 0;
			for (int b = 0; b < fg.n && !found; b++)
				found = gr.px[a] == fg.px[b] && gr.py[a] == fg.py[b];
			same = found;
		}
		differ += !same;
	}
	free(mv);
	free(kc);
	return differ;
}

/* ---- tiers and ranks ---------------------------------------------------------------- */

/* Tier = turns played = pieces + passes. The passes follow from the counts, the
 * colour to move and `passed` (see the header): with e = r - b - (blue to move),
 *
 *     passed=0: e == 0: none; e < 0 (red out): -e red passes; e > 0: e blue passes
 *     passed=1: red to move:  e >= 1: e blue passes;  e <= 0: 2 - e (both passed)
 *               blue to move: e <= -1: -e red passes; e >= 0: e + 2 (both passed)
 *
 * so within a tier the pair (r, b) fixes everything but where the pieces stand. When
 * the sets of top-left positions that can hold pieces together (no overlap, no side
 * contact) number at most MAX_SET_TABLE (every grid up to 9x9 for 2x2 pieces; 5x5
 * for 1x1), they are listed by size at create time and the dense index is
 *
 *     offset(r, b) + (place of the union in the sorted list of (r + b)-sets)
 *                      * C(r + b, r) + colex(which of its pieces are red)
 *
 * (9x9: 1.4 million sets); else, for at most 64 top-left positions,
 *
 *     offset(r, b) + colex(red top-lefts) * C(N, b) + colex(blue top-lefts).
 *
 * Indices whose pieces overlap, touch illegally or break the turn order are holes
 * (unrank says BP_ENOTFOUND). */
static int passes_of_counts(int r, int b, int to_move, int passed)
{
	int e = r - b - to_move;
	if (!passed)
		return e < 0 ? -e : e;
	if (!to_move)
		return e >= 1 ? e : 2 - e;
	return e <= -1 ? -e : e + 2;
}

static int passes_of(const struct bp_pos *p, int P)
{
	return passes_of_counts(count_bits(cplane(p, 0)) / (P * P),
				count_bits(cplane(p, 1)) / (P * P), (int)TO_MOVE(p),
				(int)PASSED(p));
}

static uint32_t mirador_tier(const struct bp_game *g, const struct bp_pos *p)
{
	int P = M(g)->gr.p;
	int pieces = (count_bits(cplane(p, 0)) + count_bits(cplane(p, 1))) / (P * P);
	return (uint32_t)(pieces + passes_of(p, P));
}

static int mirador_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	const struct mirador *m = M(g);
	if (!m->ranked || tier >= g->ntiers)
		return BP_ERANGE;
	uint64_t total = 0;
	for (int i = m->tier_first[tier]; i < m->tier_first[tier + 1]; i++) {
		if (!m->blocks[i].size && m->blocks[i].r + m->blocks[i].b > 0)
			return BP_ERANGE;
		if (__builtin_add_overflow(total, m->blocks[i].size, &total))
			return BP_ERANGE;
	}
	*out = total;
	return BP_OK;
}

/* The set of top-left positions (y * nx + x) of colour c's pieces. */
static uint64_t placement_set(const struct mirador *m, const struct bp_pos *p, int c)
{
	const uint64_t *pl = cplane(p, c);
	uint64_t set = 0;
	for (int y = 0; y < m->gr.ny; y++)
		for (int x = 0; x < m->gr.nx; x++) {
			int cell = y * m->gr.w + x;
			if (test_bit(pl, cell) && (x == 0 || !test_bit(pl, cell - 1)) &&
			    (y == 0 || !test_bit(pl, cell - m->gr.w)))
				set |= 1ull << (y * m->gr.nx + x);
		}
	return set;
}

/* The dense index of the position of tier t whose red and blue top-left sets are rs
 * and bs (the rest follows from the tier). @return BP_OK; BP_ERANGE. */
static int rank_sets(const struct mirador *m, uint32_t t, uint64_t rs, uint64_t bs, uint64_t *out)
{
	int r = __builtin_popcountll(rs), b = __builtin_popcountll(bs);
	for (int i = m->tier_first[t]; i < m->tier_first[t + 1]; i++) {
		const struct tier_block *k = &m->blocks[i];
		if (k->r != r || k->b != b)
			continue;
		if (!m->sets) {
			*out = k->offset + bp_rank_subset(rs) * bp_binom(m->nplace, b) +
			       bp_rank_subset(bs);
			return BP_OK;
		}
		/* the union's place in the sorted list, then which of its pieces are red */
		uint64_t u = rs | bs, lo = 0, hi = m->nsets[r + b];
		const uint64_t *list = m->sets[r + b];
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (list[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == m->nsets[r + b] || list[lo] != u)
			return BP_ERANGE; /* not a legal arrangement */
		*out = k->offset + lo * bp_binom(r + b, r) + bp_rank_subset(bp_bits_extract(rs, u));
		return BP_OK;
	}
	return BP_ERANGE;
}

static int mirador_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct mirador *m = M(g);
	uint32_t t = mirador_tier(g, p);
	uint64_t size;
	int rc = mirador_tier_size(g, t, &size);
	if (rc)
		return rc;
	return rank_sets(m, t, placement_set(m, p, 0), placement_set(m, p, 1), out);
}

static int small_unrank(const struct mirador *m, uint32_t tier, uint64_t rs, uint64_t bs,
			int passed, struct bp_pos *out);

static int mirador_unrank(const struct bp_game *g, uint32_t tier, uint64_t index,
			  struct bp_pos *out)
{
	const struct mirador *m = M(g);
	uint64_t size;
	int rc = mirador_tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (index >= size)
		return BP_ERANGE;
	const struct tier_block *k = NULL;
	for (int i = m->tier_first[tier]; i < m->tier_first[tier + 1]; i++)
		if (index >= m->blocks[i].offset && index - m->blocks[i].offset < m->blocks[i].size)
			k = &m->blocks[i];
	if (!k)
		return BP_ENOTFOUND;
	uint64_t q = index - k->offset, sets[2];
	if (!m->sets) {
		uint64_t nb = bp_binom(m->nplace, k->b);
		sets[0] = bp_unrank_subset(k->r, q / nb);
		sets[1] = bp_unrank_subset(k->b, q % nb);
	} else {
		uint64_t nc = bp_binom(k->r + k->b, k->r);
		uint64_t u = m->sets[k->r + k->b][q / nc];
		sets[0] = bp_bits_deposit(bp_unrank_subset(k->r, q % nc), u);
		sets[1] = u & ~sets[0];
	}
	if (m->sm)
		return small_unrank(m, tier, sets[0], sets[1], k->passed, out);
	char cells[MAX_CELLS];
	memset(cells, '.', (size_t)m->gr.ncells);
	for (int c = 0; c < 2; c++)
		for (uint64_t v = sets[c]; v; v &= v - 1) {
			int i = __builtin_ctzll(v), x = i % m->gr.nx, y = i / m->gr.nx;
			if (x >= m->gr.nx || y >= m->gr.ny)
				return BP_ENOTFOUND;
			for (int dy = 0; dy < m->gr.p; dy++)
				for (int dx = 0; dx < m->gr.p; dx++) {
					char *cell = &cells[(y + dy) * m->gr.w + x + dx];
					if (*cell != '.')
						return BP_ENOTFOUND;
					*cell = "rb"[c];
				}
		}
	memset(out, 0, sizeof *out);
	TO_MOVE(out) = tier & 1;
	PASSED(out) = (uint64_t)k->passed;
	if (validate_cells(g, cells, out, NULL))
		return BP_ENOTFOUND;
	assert(mirador_tier(g, out) == tier);
	return BP_OK;
}

/* The key of a position for an index of reachable positions only (game.h key_pack),
 * for any grid whose N = nx * ny top-left positions and n pieces fit 128 bits:
 *
 *     bit 127 ............ 128 - N | ... | 2 + n - 1 ....... 2 | 1       | 0
 *     the union of both colours'   | 0   | which of the union's | to move | passed
 *     top-left sets (bit i: place  |     | pieces (in increasing |         |
 *     128 - N + i)                 |     | place order) are red  |         |
 *
 * The union sits in the high bits so that sorted keys share their leading bytes (the
 * stored index is front-coded, solver/sparse.c). 10x10 with 2x2 pieces: N = 81 and
 * n <= 25; 11x11: N = 100 and the side-contact rule keeps n far below 26. */
/* Where a key's places begin (bit 128 - N), and whether n pieces' colour bits and the
 * two flags fit below them. */
static int key_base(const struct mirador *m)
{
	return 128 - m->nplace;
}

static int key_room(const struct mirador *m, int n)
{
	return 2 + n <= key_base(m);
}

static void key_set_bit(uint64_t key[2], int bit)
{
	key[bit >> 6] |= 1ull << (bit & 63);
}

static int key_bit(const uint64_t key[2], int bit)
{
	return (int)(key[bit >> 6] >> (bit & 63) & 1);
}

static int small_key_pack(const struct mirador *m, const struct bp_pos *p, uint64_t key[2]);
static int small_key_unpack(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			    struct bp_pos *out);

static int mirador_key_pack(const struct bp_game *g, const struct bp_pos *p, uint64_t key[2])
{
	const struct mirador *m = M(g);
	int N = m->nplace, base = key_base(m), n = 0, red[MAX_CELLS], places[MAX_CELLS];
	key[0] = key[1] = 0;
	if (N > 126)
		return BP_ERANGE;
	int rc = m->sm ? small_key_pack(m, p, key) : 1;
	if (rc <= 0)
		return rc;
	/* a top-left square: set, with no square of its colour left of it or above it
	 * (pieces of one colour never touch along a side) */
	for (int y = 0; y < m->gr.ny; y++)
		for (int x = 0; x < m->gr.nx; x++) {
			int cell = y * m->gr.w + x;
			for (int c = 0; c < 2; c++) {
				const uint64_t *pl = cplane(p, c);
				if (test_bit(pl, cell) && (x == 0 || !test_bit(pl, cell - 1)) &&
				    (y == 0 || !test_bit(pl, cell - m->gr.w))) {
					places[n] = y * m->gr.nx + x;
					red[n++] = c == 0;
				}
			}
		}
	if (!key_room(m, n))
		return BP_ERANGE;
	for (int i = 0; i < n; i++) {
		key_set_bit(key, base + places[i]);
		if (red[i])
			key_set_bit(key, 2 + i);
	}
	if (TO_MOVE(p))
		key_set_bit(key, 1);
	if (PASSED(p))
		key_set_bit(key, 0);
	return BP_OK;
}

static int mirador_key_unpack(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			      struct bp_pos *out)
{
	const struct mirador *m = M(g);
	int N = m->nplace, base = key_base(m), n = 0;
	if (N > 126)
		return BP_ERANGE;
	if (m->sm)
		return small_key_unpack(g, tier, key, out);
	char cells[MAX_CELLS];
	memset(cells, '.', (size_t)m->gr.ncells);
	for (int i = 0; i < N; i++) {
		if (!key_bit(key, base + i))
			continue;
		int x = i % m->gr.nx, y = i / m->gr.nx;
		if (2 + n >= base)
			return BP_ENOTFOUND;
		char ch = key_bit(key, 2 + n++) ? 'r' : 'b';
		for (int dy = 0; dy < m->gr.p; dy++)
			for (int dx = 0; dx < m->gr.p; dx++) {
				char *cell = &cells[(y + dy) * m->gr.w + x + dx];
				if (*cell != '.')
					return BP_ENOTFOUND;
				*cell = ch;
			}
	}
	for (int b = 2 + n; b < base; b++)
		if (key_bit(key, b))
			return BP_ENOTFOUND;
	memset(out, 0, sizeof *out);
	TO_MOVE(out) = (uint64_t)key_bit(key, 1);
	PASSED(out) = (uint64_t)key_bit(key, 0);
	if (validate_cells(g, cells, out, NULL) || mirador_tier(g, out) != tier)
		return BP_ENOTFOUND;
	return BP_OK;
}

/* ---- small grids: place sets ------------------------------------------------------ */

/* On grids of at most 128 squares with at most 126 top-left places (up to 11x11 with
 * 2x2 pieces), each colour's plane is two words and its pieces a 128-bit set of
 * places (place y * nx + x). The engines' hot paths work on those sets, with tables
 * made at create time:
 *
 *   pmask[i]      the squares a piece at place i covers
 *   psym[s][i]    the place of that piece's image under symmetry s
 *   nb[i]         the places no piece may take beside a piece at i (overlap or side
 *                 contact, i itself included); diag[i] the places touching it at a
 *                 corner only, closed to the other colour (RULES.md 9.1)
 *
 * canonical() builds each image's planes from its pieces, a word or two a piece
 * rather than a bit a square. children() and children_keys() go further: they map
 * the position's pieces under every symmetry once, and a child's images are those
 * plus its new piece, so a child costs a few words a symmetry, with no position
 * built. Both choose exactly the image that the generic rule does (the
 * bytewise-smallest position, game.c): the two words of a plane compare bytewise as
 * their byte-swapped values, low word first, the red plane before the blue one, and
 * every other word is the same in all images. */
__extension__ typedef unsigned __int128 u128;

#define SMALL_MAX_SYM 8	   /* a square grid's */
#define MAX_PLACE_SIDE 128 /* places along a side of a small grid, at most */

struct small {
	int nsym;
	int w;		    /* squares a row */
	u128 sq_all;	    /* every square */
	u128 sq_w, sq_e;    /* the squares of the first and of the last column */
	u128 sq_n, sq_s;    /* of the first and of the last row */
	u128 sq_tl;	    /* the squares that are a place's top-left */
	int p;		    /* a piece's side */
	u128 all;	    /* every place */
	u128 *pmask;	    /* nplace */
	u128 *nb, *diag;    /* nplace each */
	uint8_t *psym;	    /* nsym * nplace */
	int16_t *cellplace; /* ncells: the place whose top-left square it is, or -1 */
	u128 *opsym;	    /* nsym * nplace: order_of(pmask[psym[s][i]]) */
	int h;		    /* rows */
	/* per square (ncells): the top-left squares of the pieces that cover it
	 * (cover_tl), and for a place's top-left square, those of the places touching it
	 * at a corner only (diag_tl; diag's, as squares) */
	u128 *cover_tl, *diag_tl;
	/* per square t that is a place's top-left, per direction (east, west, south,
	 * north) and k < P: the squares of row (column) k of that piece from the piece
	 * to the side, exclusive; ncells * 4 * P */
	u128 *ray;
	/* the places whose piece covers a square of ray[j] (rayc[j]); and per square s and
	 * direction (as ray's), those covering a square from s to the side, s included:
	 * segc[4 * s + dir] (both for the search's network, fast_net) */
	u128 *rayc, *segc;
	/* per place i: the top-left squares of the places that a piece of the other colour
	 * may not take beside a piece at i (nb and diag's, as squares; lost_children) */
	u128 *conf_tl;
	uint8_t *px, *py; /* per place: its column and row (fast_net: no division) */
	/* the places of each column and of each row of places (greedy_breaks) */
	u128 colplaces[MAX_PLACE_SIDE], rowplaces[MAX_PLACE_SIDE];
	/* per place i, 4 * SMALL_MAX_SYM words: under symmetry s, the image's place as a
	 * set (words 2s, 2s + 1) and opsym (words 2 * SMALL_MAX_SYM + 2s, + 1), zero
	 * past nsym; a piece's images in one run that small_children ORs as words */
	uint64_t *pimg;
};

/* bit128(i) by table: a shift of a 128-bit number by a variable count is half a dozen
 * instructions with a branch or two conditional moves, a load one */
#define B1(i) ((u128)1 << (i))
#define B4(i) B1(i), B1(i + 1), B1(i + 2), B1(i + 3)
#define B16(i) B4(i), B4(i + 4), B4(i + 8), B4(i + 12)
static const u128 bit_table[128] = { B16(0),  B16(16), B16(32), B16(48),
				     B16(64), B16(80), B16(96), B16(112) };
#undef B16
#undef B4
#undef B1

static u128 bit128(int i)
{
	return bit_table[i];
}

static int ctz128(u128 v)
{
	uint64_t lo = (uint64_t)v;
	return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(v >> 64));
}

/* The highest set bit of v (not 0). */
static int top128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64);
	return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)v);
}

static int popcount128(u128 v)
{
	return __builtin_popcountll((uint64_t)v) + __builtin_popcountll((uint64_t)(v >> 64));
}

static u128 get_plane(const struct bp_pos *p, int c)
{
	const uint64_t *pl = cplane(p, c);
	return (u128)pl[1] << 64 | pl[0];
}

static void put_plane(struct bp_pos *p, int c, u128 v)
{
	uint64_t *pl = plane(p, c);
	pl[0] = (uint64_t)v;
	pl[1] = (uint64_t)(v >> 64);
}

/* The places of v's set bits, lowest first, into at. @return how many. A word at a
 * time: on a 128-bit v, clearing the lowest bit and finding the next took a dozen
 * instructions and a branch a bit. */
static int list_bits(u128 v, int *at)
{
	int n = 0;
	for (uint64_t w = (uint64_t)v; w; w &= w - 1)
		at[n++] = __builtin_ctzll(w);
	for (uint64_t w = (uint64_t)(v >> 64); w; w &= w - 1)
		at[n++] = 64 + __builtin_ctzll(w);
	return n;
}

/* A plane as a number that orders planes as memcmp orders their words. */
static u128 order_of(u128 v)
{
	return (u128)__builtin_bswap64((uint64_t)v) << 64 | __builtin_bswap64((uint64_t)(v >> 64));
}

/* Colour c's places in p. The lowest square left is always a piece's top-left
 * (nothing above it, or left of it in its row, is left). @return 0 when the plane is
 * not whole pieces within two words (not a valid position). */
static int small_places(const struct small *sm, const struct bp_pos *p, int c, u128 *out)
{
	const uint64_t *w = cplane(p, c);
	u128 pl = get_plane(p, c), set = 0;
	for (int i = 2; i < PLANE_WORDS; i++)
		if (w[i])
			return 0;
	while (pl) {
		int place = sm->cellplace[ctz128(pl)];
		if (place < 0 || (pl & sm->pmask[place]) != sm->pmask[place])
			return 0;
		set |= bit128(place);
		pl &= ~sm->pmask[place];
	}
	*out = set;
	return 1;
}

static void small_free(struct small *sm)
{
	if (!sm)
		return;
	free(sm->pmask);
	free(sm->nb);
	free(sm->diag);
	free(sm->psym);
	free(sm->cellplace);
	free(sm->opsym);
	free(sm->cover_tl);
	free(sm->diag_tl);
	free(sm->ray);
	free(sm->rayc);
	free(sm->segc);
	free(sm->conf_tl);
	free(sm->px);
	free(sm->py);
	free(sm->pimg);
	free(sm);
}

/* The tables, for grids that qualify (m->sm stays NULL for the others).
 * @return BP_OK; BP_ENOMEM. */
static int small_create(const struct bp_game *g, struct mirador *m)
{
	const struct bp_mirador_grid *gr = &m->gr;
	int N = m->nplace, P = gr->p;
	if (gr->ncells > 128 || N > 126 || N < 1 || g->nsym > SMALL_MAX_SYM)
		return BP_OK;
	struct small *sm = calloc(1, sizeof *sm);
	if (!sm)
		return BP_ENOMEM;
	sm->nsym = g->nsym;
	sm->pmask = calloc((size_t)N, sizeof *sm->pmask);
	sm->nb = calloc((size_t)N, sizeof *sm->nb);
	sm->diag = calloc((size_t)N, sizeof *sm->diag);
	sm->psym = calloc((size_t)N * (size_t)g->nsym, 1);
	sm->cellplace = malloc(sizeof *sm->cellplace * (size_t)gr->ncells);
	sm->opsym = calloc((size_t)N * (size_t)g->nsym, sizeof *sm->opsym);
	sm->cover_tl = calloc((size_t)gr->ncells, sizeof *sm->cover_tl);
	sm->diag_tl = calloc((size_t)gr->ncells, sizeof *sm->diag_tl);
	sm->ray = calloc((size_t)gr->ncells * 4 * (size_t)P, sizeof *sm->ray);
	sm->pimg = calloc((size_t)N * 4 * SMALL_MAX_SYM, sizeof *sm->pimg);
	sm->rayc = calloc((size_t)gr->ncells * 4 * (size_t)P, sizeof *sm->rayc);
	sm->segc = calloc((size_t)gr->ncells * 4, sizeof *sm->segc);
	sm->conf_tl = calloc((size_t)N, sizeof *sm->conf_tl);
	sm->px = malloc((size_t)N);
	sm->py = malloc((size_t)N);
	if (!sm->pmask || !sm->nb || !sm->diag || !sm->psym || !sm->cellplace || !sm->opsym ||
	    !sm->cover_tl || !sm->diag_tl || !sm->ray || !sm->pimg || !sm->rayc || !sm->segc ||
	    !sm->conf_tl || !sm->px || !sm->py) {
		small_free(sm);
		return BP_ENOMEM;
	}
	sm->w = gr->w;
	sm->h = gr->h;
	sm->p = P;
	for (int c = 0; c < gr->ncells; c++) {
		int x = c % gr->w, y = c / gr->w;
		sm->cellplace[c] = (int16_t)(x < gr->nx && y < gr->ny ? y * gr->nx + x : -1);
		sm->sq_all |= bit128(c);
		sm->sq_w |= x == 0 ? bit128(c) : 0;
		sm->sq_e |= x == gr->w - 1 ? bit128(c) : 0;
		sm->sq_n |= y == 0 ? bit128(c) : 0;
		sm->sq_s |= y == gr->h - 1 ? bit128(c) : 0;
		sm->sq_tl |= x < gr->nx && y < gr->ny ? bit128(c) : 0;
	}
	for (int i = 0; i < N; i++) {
		int x = i % gr->nx, y = i / gr->nx;
		sm->px[i] = (uint8_t)x;
		sm->py[i] = (uint8_t)y;
		sm->colplaces[x] |= bit128(i);
		sm->rowplaces[y] |= bit128(i);
		sm->all |= bit128(i);
		for (int dy = 0; dy < P; dy++)
			for (int dx = 0; dx < P; dx++)
				sm->pmask[i] |= bit128((y + dy) * gr->w + x + dx);
		for (int j = 0; j < N; j++) {
			int ddx = j % gr->nx - x, ddy = j / gr->nx - y;
			if (i == j || bp_mirador_incompatible(P, ddx, ddy))
				sm->nb[i] |= bit128(j);
			if ((ddx == P || ddx == -P) && (ddy == P || ddy == -P))
				sm->diag[i] |= bit128(j);
		}
		for (int s = 0; s < g->nsym; s++) {
			int low = INT_MAX;
			for (int dy = 0; dy < P; dy++)
				for (int dx = 0; dx < P; dx++) {
					int to = bp_board_sym(g->board, s,
							      (y + dy) * gr->w + x + dx);
					low = to < low ? to : low;
				}
			assert(sm->cellplace[low] >= 0);
			sm->psym[(size_t)s * (size_t)N + (size_t)i] = (uint8_t)sm->cellplace[low];
		}
	}
	for (size_t k = 0; k < (size_t)N * (size_t)g->nsym; k++) /* all pmask made */
		sm->opsym[k] = order_of(sm->pmask[sm->psym[k]]);
	for (int i = 0; i < N; i++)
		for (int s = 0; s < g->nsym; s++) {
			uint64_t *w = sm->pimg + (size_t)i * 4 * SMALL_MAX_SYM;
			u128 b = bit128(sm->psym[(size_t)s * (size_t)N + (size_t)i]);
			u128 o = sm->opsym[(size_t)s * (size_t)N + (size_t)i];
			w[2 * s] = (uint64_t)b;
			w[2 * s + 1] = (uint64_t)(b >> 64);
			w[2 * SMALL_MAX_SYM + 2 * s] = (uint64_t)o;
			w[2 * SMALL_MAX_SYM + 2 * s + 1] = (uint64_t)(o >> 64);
		}
	for (int i = 0; i < N; i++) {
		int ti = i / gr->nx * gr->w + i % gr->nx; /* place i's top-left square */
		for (u128 v = sm->pmask[i]; v; v &= v - 1)
			sm->cover_tl[ctz128(v)] |= bit128(ti);
		for (u128 v = sm->diag[i]; v; v &= v - 1) {
			int j = ctz128(v);
			sm->diag_tl[ti] |= bit128(j / gr->nx * gr->w + j % gr->nx);
		}
		for (u128 v = sm->nb[i] | sm->diag[i]; v; v &= v - 1) {
			int j = ctz128(v);
			sm->conf_tl[i] |= bit128(j / gr->nx * gr->w + j % gr->nx);
		}
		int px = i % gr->nx, py = i / gr->nx;
		u128 *ray = sm->ray + (size_t)ti * 4 * (size_t)P;
		for (int k = 0; k < P; k++) {
			for (int x = px + P; x < gr->w; x++)
				ray[0 * P + k] |= bit128((py + k) * gr->w + x);
			for (int x = 0; x < px; x++)
				ray[1 * P + k] |= bit128((py + k) * gr->w + x);
			for (int y = py + P; y < gr->h; y++)
				ray[2 * P + k] |= bit128(y * gr->w + px + k);
			for (int y = 0; y < py; y++)
				ray[3 * P + k] |= bit128(y * gr->w + px + k);
		}
	}
	for (size_t j = 0; j < (size_t)gr->ncells * 4 * (size_t)P; j++)
		for (int i = 0; i < N; i++)
			if (sm->pmask[i] & sm->ray[j])
				sm->rayc[j] |= bit128(i);
	for (int c = 0; c < gr->ncells; c++) {
		int x = c % gr->w, y = c / gr->w;
		u128 seg[4] = { 0, 0, 0, 0 };
		for (int k = x; k < gr->w; k++)
			seg[0] |= bit128(y * gr->w + k);
		for (int k = 0; k <= x; k++)
			seg[1] |= bit128(y * gr->w + k);
		for (int k = y; k < gr->h; k++)
			seg[2] |= bit128(k * gr->w + x);
		for (int k = 0; k <= y; k++)
			seg[3] |= bit128(k * gr->w + x);
		for (int d = 0; d < 4; d++)
			for (int i = 0; i < N; i++)
				if (sm->pmask[i] & seg[d])
					sm->segc[4 * c + d] |= bit128(i);
	}
	m->sm = sm;
	return BP_OK;
}

/* The generic canonical rule (game.c): the bytewise-smallest image. */
static void canonical_generic(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	struct bp_pos img;
	*out = *p;
	for (int s = 1; s < g->nsym; s++) {
		mirador_transform(g, p, s, &img);
		if (memcmp(&img, out, sizeof img) < 0)
			*out = img;
	}
}

/* The cell planes of both colours' pieces, at places set[c], under symmetry s. */
static inline void places_image(const struct small *sm, int N, const u128 set[2], int s,
				u128 img[2])
{
	const uint8_t *ps = sm->psym + (size_t)s * (size_t)N;
	for (int c = 0; c < 2; c++) {
		img[c] = 0;
		for (u128 v = set[c]; v; v &= v - 1)
			img[c] |= sm->pmask[ps[ctz128(v)]];
	}
}

static void mirador_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	const struct small *sm = M(g)->sm;
	int N = M(g)->nplace;
	u128 set[2];
	if (!sm || !small_places(sm, p, 0, &set[0]) || !small_places(sm, p, 1, &set[1])) {
		canonical_generic(g, p, out);
		return;
	}
	u128 best[2] = { get_plane(p, 0), get_plane(p, 1) };
	u128 b0 = order_of(best[0]), b1 = order_of(best[1]);
	for (int s = 1; s < sm->nsym; s++) {
		u128 img[2];
		places_image(sm, N, set, s, img);
		u128 o0 = order_of(img[0]);
		if (o0 > b0)
			continue;
		u128 o1 = order_of(img[1]);
		if (o0 == b0 && o1 >= b1)
			continue;
		best[0] = img[0];
		best[1] = img[1];
		b0 = o0;
		b1 = o1;
	}
	*out = *p;
	put_plane(out, 0, best[0]);
	put_plane(out, 1, best[1]);
}

/* How many symmetries map p to itself: its places' images under each, as canonical()
 * makes them (transform() on other grids). */
static int mirador_sym_fixed(const struct bp_game *g, const struct bp_pos *p)
{
	const struct small *sm = M(g)->sm;
	int N = M(g)->nplace, fixed = 1;
	u128 set[2];
	if (!sm || !small_places(sm, p, 0, &set[0]) || !small_places(sm, p, 1, &set[1])) {
		struct bp_pos img;
		for (int s = 1; s < g->nsym; s++) {
			mirador_transform(g, p, s, &img);
			fixed += bp_pos_equal(&img, p);
		}
		return fixed;
	}
	u128 pl[2] = { get_plane(p, 0), get_plane(p, 1) };
	for (int s = 1; s < sm->nsym; s++) {
		u128 img[2];
		places_image(sm, N, set, s, img);
		fixed += img[0] == pl[0] && img[1] == pl[1];
	}
	return fixed;
}

/* The key's colour bits of the pieces at places r (red) and u (all): bit i set when
 * the i-th lowest place of u is red. A key has room for at most 63 pieces (see
 * key_pack), so no more are counted. */
static uint64_t red_bits(u128 r, u128 u)
{
	uint64_t bits = 0;
	for (int n = 0; u && n < 64; u &= u - 1, n++)
		if (r & u & (~u + 1))
			bits |= 1ull << n;
	return bits;
}

/* The low bits of a small grid's key (the layout above mirador_key_pack): the colour
 * bits (red_bits) from bit 2, to_move in bit 1 and passed in bit 0; key_store puts a
 * key in its two words. For key_pack and small_children_sets. */
static u128 key_low(uint64_t red, int to_move, int passed)
{
	return (u128)red << 2 | (u128)(to_move << 1 | passed);
}

static void key_store(u128 v, uint64_t key[2])
{
	key[0] = (uint64_t)v;
	key[1] = (uint64_t)(v >> 64);
}

/* The key (see mirador_key_pack) of the pieces at places u with colour bits red
 * (red_bits). @return BP_OK; BP_ERANGE. */
static int key_pack(const struct mirador *m, u128 u, uint64_t red, int to_move, int passed,
		    uint64_t key[2])
{
	if (!key_room(m, popcount128(u)))
		return BP_ERANGE;
	key_store(u << key_base(m) | key_low(red, to_move, passed), key);
	return BP_OK;
}

/* The key of the position with red and blue places r and b. @return BP_OK;
 * BP_ERANGE. */
static int key_of_sets(const struct mirador *m, u128 r, u128 b, int to_move, int passed,
		       uint64_t key[2])
{
	return key_pack(m, r | b, red_bits(r, r | b), to_move, passed, key);
}

/* One canonical child on a small grid. */
struct small_child {
	u128 set[2];
	uint64_t red; /* bit i: the i-th lowest place of set[0] | set[1] is red (the key's) */
	uint32_t tier;
	int to_move, passed;
};

/* The first `max` canonical children of p (a position of a small grid that is not
 * over), in moves() order, into out, or as tiers and keys (small_children_sets).
 * @return how many (at least one: a pass when nothing else), or 0 when p is not a
 * valid position of the grid (the caller falls back); BP_ERANGE (keys: see there). */
static int small_children_sets(const struct mirador *m, const u128 set[2], int mover, u128 legal,
			       int max, struct small_child *out, uint32_t *ktier, uint64_t *keys);

static int small_children(const struct mirador *m, const struct bp_pos *p, int max,
			  struct small_child *out, uint32_t *ktier, uint64_t *keys)
{
	const struct small *sm = m->sm;
	int mover = (int)TO_MOVE(p);
	u128 set[2];
	if (!small_places(sm, p, 0, &set[0]) || !small_places(sm, p, 1, &set[1]))
		return 0;
	/* legal places (RULES.md 9.1) */
	u128 bad = 0;
	for (u128 v = set[0] | set[1]; v; v &= v - 1)
		bad |= sm->nb[ctz128(v)];
	for (u128 v = set[1 - mover]; v; v &= v - 1)
		bad |= sm->diag[ctz128(v)];
	return small_children_sets(m, set, mover, sm->all & ~bad, max, out, ktier, keys);
}

/* small_children of the position with red and blue places set[0] and set[1], mover
 * to move, whose legal places are `legal`; with keys not NULL, the children's tiers
 * and keys (key_of_sets's) into ktier and keys instead of out, each key the image's
 * places shifted once per symmetry taken, with the new piece's bit and the colour
 * bits ORed in (key_pack's shift by a variable count, and its count of the pieces, a
 * child at a time were a twentieth of expand_key). @return as small_children;
 * BP_ERANGE where a key has no room for the pieces. */
static int small_children_sets(const struct mirador *m, const u128 set[2], int mover, u128 legal,
			       int max, struct small_child *out, uint32_t *ktier, uint64_t *keys)
{
	const struct small *sm = m->sm;
	int N = m->nplace;
	u128 img[SMALL_MAX_SYM][2], opl[SMALL_MAX_SYM][2];
	/* the position's images: pieces, and planes as order_of. order_of permutes bits,
	 * so a plane's is the OR of its pieces' (opsym), and a child's plane is the
	 * parent's OR the new piece's. A piece's images under every symmetry are one run
	 * of words (pimg), ORed a word at a time in a loop of fixed length that the
	 * compiler makes vector operations: the loop over symmetries, then pieces, each
	 * image's place a shift, was a quarter of small_children's time. The planes are
	 * needed under every symmetry (to choose among them), the pieces' images only
	 * under a symmetry some child takes: made then (most children take the identity,
	 * whose images are the sets themselves). */
	enum { IW = 4 * SMALL_MAX_SYM, PW = 2 * SMALL_MAX_SYM };
	uint64_t acc[2][PW];
	int at[2][128], np[2];
	for (int c = 0; c < 2; c++) {
		bp_words_clear(acc[c], PW);
		np[c] = list_bits(set[c], at[c]);
		for (int i = 0; i < np[c]; i++) {
			const uint64_t *w = sm->pimg + (size_t)at[c][i] * IW + PW;
			for (int k = 0; k < PW; k++)
				acc[c][k] |= w[k];
		}
		for (int s = 0; s < sm->nsym; s++)
			opl[s][c] = (u128)acc[c][2 * s + 1] << 64 | acc[c][2 * s];
		img[0][c] = set[c];
	}
	int r = popcount128(set[0]), b = popcount128(set[1]), n = 0;
	int passed = legal == 0;
	if (!passed) {
		if (mover)
			b++;
		else
			r++;
	}
	uint32_t tier = (uint32_t)(r + b + passes_of_counts(r, b, 1 - mover, passed));
	const int base = key_base(m);
	if (keys && !key_room(m, r + b))
		return BP_ERANGE;
	const u128 flags = key_low(0, 1 - mover, passed);
	u128 shifted[SMALL_MAX_SYM]; /* with keys: an image's places as the key has them */
	/* each image's colour bits, when a child first takes it: a child's are its
	 * image's with the new piece's bit inserted where its place falls */
	uint64_t red[SMALL_MAX_SYM];
	unsigned have = 0;
	/* Symmetries that cannot give the smallest image. Where the parent's red image
	 * under s is larger than the identity's (opl[s][0] > opl[0][0], as for every s
	 * when the parent is canonical, the positions the solvers ask about), the two
	 * differ first (from the top) at a bit d[s] that opl[s][0] has and opl[0][0] has
	 * not; a child's red image under s is opl[s][0] | add_s, under the identity
	 * opl[0][0] | add_0, and when add_0 has no bit at d[s] or above, the two agree
	 * above d[s] but for bits only s's may add, and s's has d[s]: s's image is the
	 * larger, and s is not taken. So with blue to move (add_0 on the blue plane)
	 * those symmetries are never tried, with red to move only where d[s] is at most
	 * the top bit of add_0: cand lists the symmetries other than the identity by d
	 * (cd), -1 (always tried) where the red image under s is not larger. Symmetries
	 * whose images tie give the same child, so the order they are tried in does not
	 * matter. */
	int cand[SMALL_MAX_SYM], cd[SMALL_MAX_SYM], nc = 0;
	for (int s = 1; s < sm->nsym; s++) {
		u128 x = opl[s][0] ^ opl[0][0];
		int ds = opl[s][0] > opl[0][0] ? top128(x) : -1, j = nc++;
		for (; j > 0 && cd[j - 1] > ds; j--) {
			cand[j] = cand[j - 1];
			cd[j] = cd[j - 1];
		}
		cand[j] = s;
		cd[j] = ds;
	}
	do {
		int q = passed ? -1 : ctz128(legal), bs = 0, top0 = -1;
		u128 add = q < 0 ? 0 : sm->opsym[q];
		u128 o0 = opl[0][0] | (mover ? 0 : add), o1 = opl[0][1] | (mover ? add : 0);
		if (q >= 0 && !mover)
			top0 = top128(add);
		for (int i = 0; i < nc && cd[i] <= top0; i++) {
			int s = cand[i];
			add = q < 0 ? 0 : sm->opsym[(size_t)s * (size_t)N + (size_t)q];
			u128 a0 = opl[s][0] | (mover ? 0 : add);
			if (a0 > o0)
				continue;
			u128 a1 = opl[s][1] | (mover ? add : 0);
			if (a0 == o0 && a1 >= o1)
				continue;
			bs = s;
			o0 = a0;
			o1 = a1;
		}
		if (!(have >> bs & 1)) {
			for (int c = 0; bs && c < 2; c++) {
				uint64_t i0 = 0, i1 = 0;
				for (int i = 0; i < np[c]; i++) {
					const uint64_t *w = sm->pimg + (size_t)at[c][i] * IW;
					i0 |= w[2 * bs];
					i1 |= w[2 * bs + 1];
				}
				img[bs][c] = (u128)i1 << 64 | i0;
			}
			u128 ub = img[bs][0] | img[bs][1];
			red[bs] = red_bits(img[bs][0], ub);
			if (keys)
				shifted[bs] = ub << base | flags;
			have |= 1u << bs;
		}
		u128 u = img[bs][0] | img[bs][1];
		uint64_t kred = red[bs];
		int qs = -1;
		if (q >= 0) {
			qs = sm->psym[(size_t)bs * (size_t)N + (size_t)q];
			assert(popcount128(u) < 63); /* no grid here has room for more */
			uint64_t below = (1ull << popcount128(u & (bit128(qs) - 1))) - 1;
			kred = (kred & below) | (kred & ~below) << 1 | (mover ? 0 : below + 1);
		}
		if (keys) {
			key_store(shifted[bs] | key_low(kred, 0, 0) |
					  (qs < 0 ? 0 : bit128(qs + base)),
				  keys + 2 * n);
			ktier[n++] = tier;
		} else {
			struct small_child *k = &out[n++];
			k->set[0] = img[bs][0];
			k->set[1] = img[bs][1];
			if (qs >= 0)
				k->set[mover] |= bit128(qs);
			k->red = kred;
			k->tier = tier;
			k->to_move = 1 - mover;
			k->passed = passed;
		}
		legal &= legal - 1;
	} while (legal && n < max);
	return n;
}

/* children_keys and children on any grid, one child at a time. */
static int children_generic(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
			    uint64_t *keys, uint64_t *index)
{
	struct bp_move mv[MAX_CELLS + 1];
	struct bp_pos c, canon;
	int n = mirador_moves(g, p, mv), rc;
	for (int i = 0; i < n; i++) {
		c = *p;
		mirador_apply(g, &c, mv[i]);
		mirador_canonical(g, &c, &canon);
		tier[i] = mirador_tier(g, &canon);
		rc = keys ? mirador_key_pack(g, &canon, keys + 2 * i)
			  : mirador_rank(g, &canon, index + i);
		if (rc)
			return rc;
	}
	return n;
}

static int mirador_children_keys_first(const struct bp_game *g, const struct bp_pos *p, int max,
				       uint32_t *tier, uint64_t *keys)
{
	const struct mirador *m = M(g);
	int n = m->sm ? small_children(m, p, max, NULL, tier, keys) : 0;
	if (n == 0) { /* one child at a time, each kept here, the first max given */
		uint32_t t2[MAX_CELLS + 1];
		uint64_t k2[2 * (MAX_CELLS + 1)];
		if ((n = children_generic(g, p, t2, k2, NULL)) < 0)
			return n;
		n = n > max ? max : n;
		memcpy(tier, t2, sizeof *tier * (size_t)n);
		memcpy(keys, k2, 2 * sizeof *keys * (size_t)n);
	}
	return n;
}

static int mirador_children_keys(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
				 uint64_t *keys)
{
	return mirador_children_keys_first(g, p, INT_MAX, tier, keys);
}

static int mirador_children(const struct bp_game *g, const struct bp_pos *p, uint32_t *tier,
			    uint64_t *index)
{
	const struct mirador *m = M(g);
	struct small_child kid[128];
	int n = m->sm && m->ranked ? small_children(m, p, INT_MAX, kid, NULL, NULL) : 0;
	if (n == 0)
		return children_generic(g, p, tier, NULL, index);
	for (int i = 0; i < n; i++) {
		uint64_t size;
		int rc = mirador_tier_size(g, kid[i].tier, &size);
		if (rc || (rc = rank_sets(m, kid[i].tier, (uint64_t)kid[i].set[0],
					  (uint64_t)kid[i].set[1], index + i)))
			return rc;
		tier[i] = kid[i].tier;
	}
	return n;
}

static int small_key_pack(const struct mirador *m, const struct bp_pos *p, uint64_t key[2])
{
	u128 r, b;
	if (!small_places(m->sm, p, 0, &r) || !small_places(m->sm, p, 1, &b))
		return 1; /* not whole pieces: the caller's own path */
	return key_of_sets(m, r, b, (int)TO_MOVE(p), (int)PASSED(p), key);
}

/* key_unpack on a small grid: the checks of validate_cells on place sets. Pieces that
 * neither overlap nor touch along a side split the squares into exactly those pieces,
 * and two pieces' squares touch at a corner only when the pieces do; so a key names
 * a valid position exactly when no two pieces conflict (nb), no two of different
 * colours touch at a corner (diag), and the turn order holds. */
static int small_build(const struct mirador *m, uint32_t tier, const u128 set[2], int tm,
		       int passed, struct bp_pos *out);

static int small_check_rest(const struct small *sm, uint32_t tier, const u128 set[2], int tm,
			    int passed, u128 bad, const u128 corner[2]);
static void small_put(const u128 pl[2], int tm, int passed, struct bp_pos *out);

/* The red and blue places (set), to-move and passed of a key on a small grid, with
 * small_check's tests and answers, in one pass over the key's pieces in the order of
 * their places (a conflict is found whichever of two pieces comes first: nb is
 * symmetric). */
static int small_key_check(const struct mirador *m, uint32_t tier, const uint64_t key[2],
			   u128 set[2], int *tm, int *passed, u128 pl[2], u128 *bad_out,
			   u128 corner[2])
{
	const struct small *sm = m->sm;
	int base = key_base(m);
	u128 k = (u128)key[1] << 64 | key[0], u = k >> base, bad = 0;
	u128 st[2] = { 0, 0 }, cn[2] = { 0, 0 }, sq[2] = { 0, 0 };
	int np = popcount128(u);
	if (!key_room(m, np) || (k & (bit128(base) - 1)) >> (2 + np) != 0)
		return BP_ENOTFOUND;
	/* the colour bits: at most 63 (np <= N and 2 + np <= 128 - N) */
	uint64_t blue = ~(uint64_t)(k >> 2);
	int at[128], n = list_bits(u, at);
	for (int i = 0; i < n; i++, blue >>= 1) {
		int q = at[i], c = (int)(blue & 1);
		u128 b = bit128(q);
		if (bad & b)
			return BP_ENOTFOUND; /* overlap or side contact */
		bad |= sm->nb[q];
		st[c] |= b;
		cn[c] |= sm->diag[q];
		sq[c] |= sm->pmask[q];
	}
	for (int c = 0; c < 2; c++) {
		set[c] = st[c];
		corner[c] = cn[c];
		pl[c] = sq[c];
	}
	*bad_out = bad;
	*tm = (int)(k >> 1 & 1);
	*passed = (int)(k & 1);
	return small_check_rest(sm, tier, set, *tm, *passed, bad, corner);
}

static int small_key_unpack(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			    struct bp_pos *out)
{
	const struct mirador *m = M(g);
	u128 set[2], pl[2], bad, corner[2];
	int tm, passed, rc = small_key_check(m, tier, key, set, &tm, &passed, pl, &bad, corner);
	if (rc == BP_OK)
		small_put(pl, tm, passed, out);
	return rc;
}

/* The checks of small_build on red and blue places set[0] and set[1], to-move tm and
 * passed: BP_OK when they are a valid position of tier `tier`, with its planes
 * (squares) in pl, the places overlapping a piece or touching one along a side (the OR
 * of nb) in *bad, and the places touching colour c's pieces at a corner (the OR of
 * diag) in corner[c]; so colour c's legal places are sm->all & ~*bad & ~corner[1 - c].
 * Else BP_ENOTFOUND. */
static int small_check(const struct mirador *m, uint32_t tier, const u128 set[2], int tm,
		       int passed, u128 pl[2], u128 *bad_out, u128 corner[2])
{
	const struct small *sm = m->sm;
	u128 bad = 0;
	if (set[0] & set[1])
		return BP_ENOTFOUND;
	for (int c = 0; c < 2; c++) {
		u128 cn = 0, sq = 0;
		for (u128 v = set[c]; v; v &= v - 1) {
			int q = ctz128(v);
			if (bad & v & (~v + 1))
				return BP_ENOTFOUND; /* overlap or side contact */
			bad |= sm->nb[q];
			cn |= sm->diag[q];
			sq |= sm->pmask[q];
		}
		corner[c] = cn;
		pl[c] = sq;
	}
	*bad_out = bad;
	return small_check_rest(sm, tier, set, tm, passed, bad, corner);
}

/* small_check's tests past the pieces' own: corner contact, tier and turn order. */
static int small_check_rest(const struct small *sm, uint32_t tier, const u128 set[2], int tm,
			    int passed, u128 bad, const u128 corner[2])
{
	if ((corner[0] & set[1]) != 0)
		return BP_ENOTFOUND; /* red and blue touch at a corner */
	int r = popcount128(set[0]), b = popcount128(set[1]), e = r - b - tm;
	if (r + b + passes_of_counts(r, b, tm, passed) != (int)tier)
		return BP_ENOTFOUND;
	/* the turn order (see the header and validate_cells): who has no placement left
	 * matters only after a pass (passed, or counts that a pass put apart) */
	if (passed || e != 0) {
		int red_out = (sm->all & ~bad & ~corner[1]) == 0;
		int blue_out = (sm->all & ~bad & ~corner[0]) == 0;
		if (!passed) {
			if ((e > 0 && (!tm || !blue_out)) || (e < 0 && (tm || !red_out)))
				return BP_ENOTFOUND;
		} else {
			int over = tm ? e >= 0 : e <= 0;
			if (!(tm ? red_out : blue_out) || (over && !(red_out && blue_out)))
				return BP_ENOTFOUND;
		}
	}
	return BP_OK;
}

/* The position with planes pl, to-move tm and passed. */
static void small_put(const u128 pl[2], int tm, int passed, struct bp_pos *out)
{
	bp_pos_clear(out);
	put_plane(out, 0, pl[0]);
	put_plane(out, 1, pl[1]);
	TO_MOVE(out) = (uint64_t)tm;
	PASSED(out) = (uint64_t)passed;
}

/* The position of tier `tier` with red and blue places set[0] and set[1], to-move tm
 * and passed, when it is valid; else BP_ENOTFOUND. */
static int small_build(const struct mirador *m, uint32_t tier, const u128 set[2], int tm,
		       int passed, struct bp_pos *out)
{
	u128 pl[2], bad, corner[2];
	int rc = small_check(m, tier, set, tm, passed, pl, &bad, corner);
	if (rc == BP_OK)
		small_put(pl, tm, passed, out);
	return rc;
}

/* ---- small grids: chains no placement can cut ---------------------------------------- */

/* Most positions a solve meets are over: the player who just moved has a chain of
 * links that no legal placement of the opponent can cut, and the chain-breaking search
 * (mirador_chain.c) says so at its first node, where a link weighs the fewest
 * opponent placements covering one of its lanes, and it finds a chain of weight 0.
 * Such a chain is found here with no network built, from the *safe* squares (empty,
 * and covered by no legal placement of the opponent: a lane of safe squares is one no
 * placement can fill, found on the squares as bitboards by sq_cover) and the player's
 * pieces: a link of weight 0 is a corner, a side touched, or a line of sight over
 * safe squares only (safe_chain_pieces). Sides are never crossed, so they are only a
 * chain's ends. This is exactly the search's first step, so the answer 1 is the
 * search's and 0 leaves it to the search. */

static u128 sq_east(const struct small *sm, u128 v)
{
	return v << 1 & ~sm->sq_w & sm->sq_all;
}

static u128 sq_west(const struct small *sm, u128 v)
{
	return v >> 1 & ~sm->sq_e;
}

static u128 sq_south(const struct small *sm, u128 v)
{
	return v << sm->w & sm->sq_all;
}

static u128 sq_north(const struct small *sm, u128 v)
{
	return v >> sm->w;
}

/* The top-left squares of the legal placements of the opponent of the player on
 * squares x, on a board whose occupied squares are occ (RULES.md 9.1), as shifts of
 * boards: a square may hold a square of the new piece when neither it nor a square
 * beside it is occupied and no square diagonal to it is the player's (the corners of
 * the frame around a piece; the other diagonal squares are beside some square of the
 * piece); a top-left square is legal when all P x P squares from it may. */
static inline u128 sq_legal_tl_p(const struct small *sm, u128 x, u128 occ, const int P)
{
	u128 near =
		occ | sq_east(sm, occ) | sq_west(sm, occ) | sq_north(sm, occ) | sq_south(sm, occ);
	u128 xv = sq_north(sm, x) | sq_south(sm, x);
	u128 ok = sm->sq_all & ~(near | sq_east(sm, xv) | sq_west(sm, xv));
	u128 row = ok, east = ok;
	for (int k = 1; k < P; k++) { /* ok here and on the P - 1 squares east */
		east = sq_west(sm, east);
		row &= east;
	}
	u128 tl = row & sm->sq_tl;
	for (int k = 1; k < P; k++) /* and so on the P - 1 rows below */
		tl &= row >> (k * sm->w);
	return tl;
}

/* P = 2 (most grids) with its loops unrolled, as side_rays */
static u128 sq_legal_tl(const struct small *sm, u128 x, u128 occ)
{
	return sm->p == 2 ? sq_legal_tl_p(sm, x, occ, 2) : sq_legal_tl_p(sm, x, occ, sm->p);
}

/* The squares that pieces with top-left squares `across` cover (those legal
 * placements': sq_cover_p): the top-left squares shifted by 0 .. P - 1 each way. */
static inline u128 tl_cover_p(const struct small *sm, u128 across, const int P)
{
	u128 cover = 0;
	for (int k = 1; k < P; k++)
		across |= sq_east(sm, across);
	for (int k = 0; k < P; k++)
		cover |= across << (k * sm->w);
	return cover & sm->sq_all;
}

static inline u128 sq_cover_p(const struct small *sm, u128 x, u128 occ, const int P)
{
	return tl_cover_p(sm, sq_legal_tl_p(sm, x, occ, P), P);
}

static u128 sq_cover(const struct small *sm, u128 x, u128 occ)
{
	return sm->p == 2 ? sq_cover_p(sm, x, occ, 2) : sq_cover_p(sm, x, occ, sm->p);
}

/* For safe_chain_pieces: side[d0] and side[d0 + 1] get the pieces (top-left squares
 * at[0 .. n)) with a ray in direction d0 (d0 + 1) free of unsafe squares. A piece's P
 * rays are ORed with no branch, and P = 2 (most grids) has its own loop the compiler
 * unrolls: the loop that stops at the first free ray was most of the time here. */
static void side_rays_p(const struct small *sm, const int *at, int n, u128 unsafe, int d0,
			uint64_t *side, const int P)
{
	for (int i = 0; i < n; i++) {
		const u128 *ray = sm->ray + (size_t)at[i] * 4 * (size_t)P + (size_t)d0 * (size_t)P;
		uint64_t free0 = 0, free1 = 0;
		for (int k = 0; k < P; k++) {
			free0 |= (uint64_t)((ray[k] & unsafe) == 0);
			free1 |= (uint64_t)((ray[P + k] & unsafe) == 0);
		}
		side[d0] |= free0 << i;
		side[d0 + 1] |= free1 << i;
	}
}

static void side_rays(const struct small *sm, const int *at, int n, u128 unsafe, int d0,
		      uint64_t *side)
{
	if (sm->p == 2)
		side_rays_p(sm, at, n, unsafe, d0, side, 2);
	else
		side_rays_p(sm, at, n, unsafe, d0, side, sm->p);
}

/* The first square of ray r (sm->ray's order) in ns, the ray's unsafe squares (not
 * empty): east and south, the nearest is the lowest. */
static inline int ray_first(u128 ns, int r, const int P)
{
	int d = r / P;
	return d == 0 || d == 2 ? ctz128(ns) : top128(ns);
}

/* The links over squares not in `unsafe` of the piece with top-left square t, among
 * the player's pieces with top-left squares tl (numbered by ord): the pieces it
 * touches at a corner or sees first along its rays (a square of the player met is one
 * of its pieces': cover_tl), as bits of ord's numbers; with sides not NULL, *sides
 * gets the sides its rays reach (bit d for direction d: east, west, south, north). */
static inline uint64_t piece_links_p(const struct small *sm, int t, u128 tl, const int8_t *ord,
				     u128 unsafe, unsigned *sides, const int P)
{
	const u128 *ray = sm->ray + (size_t)t * 4 * (size_t)P;
	uint64_t a = 0;
	unsigned m = 0;
	for (u128 v = sm->diag_tl[t] & tl; v; v &= v - 1)
		a |= 1ull << ord[ctz128(v)];
#pragma GCC unroll 16
	for (int r = 0; r < 4 * P; r++) {
		u128 ns = ray[r] & unsafe;
		if (!ns) {
			m |= 1u << (r / P);
			continue;
		}
		u128 by = sm->cover_tl[ray_first(ns, r, P)] & tl;
		if (by)
			a |= 1ull << ord[ctz128(by)];
	}
	if (sides)
		*sides = m;
	return a;
}

/* Whether the player with squares x has a chain of weight-0 links, on its pieces:
 * each piece casts a ray along each of its P rows east and west and each of its P
 * columns south and north (sm->ray: the squares from the piece to the side), and the
 * ray stops at the first square that is not safe (unsafe: occupied, or covered by a
 * legal placement of the opponent), the lowest or highest bit of unsafe on the ray.
 * None: the ray reaches the side (a piece touching a side has an empty ray there, the
 * same case); a square of the player: a link to the piece covering it (cover_tl).
 * With the corners (diag_tl) these are the weight-0 links, and a chain is a path from
 * a piece linked to one side to a piece linked to the opposite side, found by a search
 * over the pieces that makes a piece's links when it first takes it. Until
 * 2026-12-02 the same walk ran on the squares, spreading over a piece's squares a
 * neighbour at a time and along each ray a square at a time: a ninth of a one-thread
 * mirador:10x10 solve, against about a thirteenth now. A colour has at most 64 pieces:
 * no two touch along a side, so at most half of the 128 squares are top-left
 * squares. */
static inline int safe_chain_pieces_p(const struct small *sm, u128 x, u128 unsafe, const int P)
{
	/* top-left squares: pieces of one colour never touch along a side */
	u128 tl = x & ~sq_east(sm, x) & ~sq_south(sm, x);
	assert(popcount128(tl) <= 64);
	int8_t ord[128];
	int at[64], n = list_bits(tl, at);
	for (int i = 0; i < n; i++)
		ord[at[i]] = (int8_t)i;
	/* side[d]: the pieces whose ray in direction d (east, west, south, north)
	 * reaches the side; north and south only when east-west finds no chain */
	uint64_t side[4] = { 0, 0, 0, 0 };
	side_rays(sm, at, n, unsafe, 0, side);
	uint64_t adj[64], known = 0;
	/* east-west first: on mirador:10x10's positions it holds a safe chain more often
	 * than north-south (5.8 M against 5.2 M of 9.1 M; canonical forms favour one
	 * orientation), so the north and south rays are needed less often */
	for (int d = 0; d < 2; d++) {
		if (d == 1)
			side_rays(sm, at, n, unsafe, 2, side);
		uint64_t goal = side[d == 0 ? 0 : 2], reached = side[d == 0 ? 1 : 3];
		if (!goal || !reached)
			continue;
		for (uint64_t open = reached; open;) {
			if (reached & goal)
				return 1;
			int i = __builtin_ctzll(open);
			open &= open - 1;
			if (!(known >> i & 1)) {
				adj[i] = piece_links_p(sm, at[i], tl, ord, unsafe, NULL, P);
				known |= 1ull << i;
			}
			uint64_t nb = adj[i] & ~reached;
			reached |= nb;
			open |= nb;
		}
		if (reached & goal)
			return 1;
	}
	return 0;
}

/* P = 2 (most grids) with its loops over a piece's rays unrolled, as side_rays */
static int safe_chain_pieces(const struct small *sm, u128 x, u128 unsafe)
{
	return sm->p == 2 ? safe_chain_pieces_p(sm, x, unsafe, 2)
			  : safe_chain_pieces_p(sm, x, unsafe, sm->p);
}

/* bp_mirador_safe_chain of the player on squares x, the occupied squares being occ. */
static int safe_chain_planes(const struct small *sm, u128 x, u128 occ)
{
	u128 safe = sm->sq_all & ~occ & ~sq_cover(sm, x, occ);
	return safe_chain_pieces(sm, x, sm->sq_all & ~safe);
}

int bp_mirador_safe_chain(const struct bp_game *g, const struct bp_pos *p, int colour)
{
	const struct small *sm = M(g)->sm;
	if (!sm)
		return BP_EUNSUPPORTED;
	u128 x = get_plane(p, colour);
	return safe_chain_planes(sm, x, x | get_plane(p, 1 - colour));
}

/* wins_at_once on small grids: whether one of the mover's first WIN_TRIES legal
 * placements (in moves() order) leaves the mover a safe chain (bp_mirador_safe_chain
 * on the position with the piece placed): that child is over, lost for its player
 * to move. On mirador:10x10's 972 K positions not over, the first placement does for
 * 697 K, one of the first four for 900 K; the walk over the index then makes and
 * ranks no child of those (a tenth of a one-thread solve, for about a third of that
 * here). Tries further on find few more (the first such child is the 1.5th of 15 on
 * average), and a position with none pays for every try. */
#define WIN_TRIES 4

static int wins_at_once_planes(const struct small *sm, u128 me, u128 opp);

static int mirador_wins_at_once(const struct bp_game *g, const struct bp_pos *p)
{
	const struct small *sm = M(g)->sm;
	if (!sm)
		return 0;
	int mover = (int)TO_MOVE(p);
	return wins_at_once_planes(sm, get_plane(p, mover), get_plane(p, 1 - mover));
}

/* mirador_wins_at_once of the mover on squares me against the opponent's squares opp. */
static int wins_at_once_planes(const struct small *sm, u128 me, u128 opp)
{
	u128 occ = me | opp;
	u128 tl = sq_legal_tl(sm, opp, occ);
	for (int i = 0; tl && i < WIN_TRIES; tl &= tl - 1, i++) {
		u128 piece = sm->pmask[sm->cellplace[ctz128(tl)]];
		u128 x = me | piece, o = occ | piece;
		u128 safe = sm->sq_all & ~o & ~sq_cover(sm, x, o);
		if (safe_chain_pieces(sm, x, sm->sq_all & ~safe))
			return 1;
	}
	return 0;
}

/* expand_key's lost on small grids: the children (the mover's legal places `legal`, in
 * children order) after which the mover has a safe chain (bp_mirador_safe_chain),
 * found with the position's own safe links rather than a walk a child. With the mover
 * on squares x, the occupied squares occ and the squares the opponent's legal
 * placements cover now, `unsafe` = occ | cover: the mover's pieces linked over safe
 * squares fall into parts, each with the sides it reaches. A piece q placed adds its
 * squares to the occupied ones and takes placements from the opponent (fewer squares
 * covered), so every safe link stays one or runs through q (a line of sight that q now
 * meets: q sees both of its ends, over squares that were safe), and q's own links over
 * squares safe now are safe in the child. So when q's links (its rays' first unsafe
 * square, a piece of the mover's or none, a side; its corners) join parts that reach
 * two opposite sides, or one part already does, the child has a safe chain: over,
 * lost for the opponent to move. It may miss a chain that the child's fewer covered
 * squares open elsewhere: the enumeration then asks the child itself. Sides are a
 * chain's ends only: a part is pieces, with the sides it reaches as a mask. */
static inline void lost_children_p(const struct small *sm, u128 x, u128 occ, u128 legal, int n,
				   uint64_t *lost, const int P)
{
	memset(lost, 0, sizeof *lost * (size_t)((n + 63) / 64));
	/* the opponent's placements, as top-left squares */
	u128 otl = sq_legal_tl_p(sm, x, occ, P), unsafe = occ | tl_cover_p(sm, otl, P);
	u128 tl = x & ~sq_east(sm, x) & ~sq_south(sm, x);
	int8_t ord[128];
	int at[64], np = list_bits(tl, at);
	for (int i = 0; i < np; i++)
		ord[at[i]] = (int8_t)i;
	/* each piece's links: other pieces (adj) and sides (mask: east, west, south,
	 * north, as the rays) */
	uint64_t adj[64];
	unsigned sides[64], whole = 0;
	for (int i = 0; i < np; i++)
		adj[i] = piece_links_p(sm, at[i], tl, ord, unsafe, &sides[i], P);
	/* the parts, each piece's squares given its part's sides (part: per square, 0
	 * where the mover has none) */
	uint8_t part[128];
	memset(part, 0, sizeof part);
	uint64_t left = np == 64 ? ~0ull : (1ull << np) - 1;
	while (left) {
		uint64_t in = left & (~left + 1), open = in;
		while (open) {
			int i = __builtin_ctzll(open);
			open &= open - 1;
			uint64_t nb = adj[i] & ~in;
			in |= nb;
			open |= nb;
		}
		left &= ~in;
		unsigned m = 0;
		for (uint64_t v = in; v; v &= v - 1)
			m |= sides[__builtin_ctzll(v)];
		for (uint64_t v = in; v; v &= v - 1) {
			int t = at[__builtin_ctzll(v)];
			for (int dy = 0; dy < P; dy++)
				for (int dx = 0; dx < P; dx++)
					part[t + dy * sm->w + dx] = (uint8_t)m;
		}
		whole |= (m & 3) == 3 || (m & 12) == 12;
	}
	for (int i = 0; legal && i < n; legal &= legal - 1, i++) {
		unsigned m = 0;
		if (!whole) {
			int q = ctz128(legal);
			u128 piece = sm->pmask[q];
			int t = ctz128(piece);
			const u128 *ray = sm->ray + (size_t)t * 4 * (size_t)P;
			for (u128 v = sm->diag_tl[t] & tl; v; v &= v - 1)
				m |= part[ctz128(v)];
			/* the child's own unsafe squares, for q's rays: the opponent's
			 * placements that q leaves legal (legality is pairwise) */
			u128 uq = occ | piece | tl_cover_p(sm, otl & ~sm->conf_tl[q], P);
			/* east and west first; north and south only when those join no
			 * two opposite sides */
#pragma GCC unroll 8
			for (int r = 0; r < 2 * P; r++) {
				u128 ns = ray[r] & uq;
				m |= ns ? part[ray_first(ns, r, P)] : 1u << (r / P);
			}
			if ((m & 3) != 3 && (m & 12) != 12)
#pragma GCC unroll 8
				for (int r = 2 * P; r < 4 * P; r++) {
					u128 ns = ray[r] & uq;
					m |= ns ? part[ray_first(ns, r, P)] : 1u << (r / P);
				}
		}
		if (whole || (m & 3) == 3 || (m & 12) == 12)
			lost[i / 64] |= 1ull << (i % 64);
	}
}

/* P = 2 (most grids) with its loops over a piece's rays unrolled, as side_rays */
static void lost_children(const struct small *sm, u128 x, u128 occ, u128 legal, int n,
			  uint64_t *lost)
{
	if (sm->p == 2)
		lost_children_p(sm, x, occ, legal, n, lost, 2);
	else
		lost_children_p(sm, x, occ, legal, n, lost, sm->p);
}

/* ---- small grids: the chain-breaking search on place sets ------------------------------ */

/* The positions whose chains bp_mirador_safe_chain cannot call unbreakable (a sixth of
 * mirador:10x10's, two thirds of them breakable) go to the chain-breaking search of
 * mirador_chain.c. On small grids it runs here instead: the same tree, node by node
 * (see there for why it is exact), on the same network (the links and lanes that
 * bp_mirador_net_build finds, found here on the squares as bitboards: fast_net), but
 * with the opponent's placements as sets of places:
 *
 *   legal        the opponent's legal places now (RULES.md 9.1: no overlap or side
 *                contact with any piece, no corner contact with the player's)
 *   lc[l]        lane l's candidates: the legal places whose piece covers one of its
 *                squares (rayc and segc: fast_net)
 *   T, X         the places taken and excluded on the way to the node
 *   avail        legal & ~nb(T) & ~X, nb(T) being the OR of nb over T: the places
 *                that overlap T's pieces or touch them along a side, T's own among
 *                them. Two legal placements can be played one after the other
 *                exactly when neither is in the other's nb (legality is pairwise),
 *                which is what mirador_chain.c counts candidate by candidate
 *                (conflicts), so avail is its set of available candidates
 *   lane l       cut when lc[l] & T is not empty (T holds an opponent square on it);
 *                else it weighs popcount(lc[l] & avail), as navail there
 *
 * mirador_chain.c builds lists (lane -> candidates, candidate -> lanes) and keeps
 * counts through them as candidates are taken and excluded: making and keeping them
 * was a third of its time, where a node here is a few 128-bit ANDs and popcounts a
 * lane. The branching order (most lanes covered first, then by place where
 * mirador_chain.c goes by the order it met them) and ties between equally light chains
 * may differ from there, which changes the number of nodes but not the answer: each
 * step is a proof whatever the order. The tests compare the two on random positions
 * and against a brute force over every set of placements. */
#define FAST_MAX_NODES 132 /* pieces and the four sides */
#define FAST_MAX_LINKS 512
#define FAST_MAX_LANES 1024

struct fast {
	const struct small *sm;
	u128 legal;
	int n, V; /* pieces; nodes (pieces, then the sides N, S, W, E) */
	int nlinks, nlanes;
	struct bp_mirador_edge link[FAST_MAX_LINKS];
	int16_t adj0[FAST_MAX_NODES + 1], adj[2 * FAST_MAX_LINKS]; /* node -> links */
	int16_t nbr[2 * FAST_MAX_LINKS];	       /* the node at the other end of adj's link */
	int lw[FAST_MAX_LINKS], lbest[FAST_MAX_LINKS]; /* as in the search */
	/* per place, the lanes it covers (mod 256), bit-sliced: bit j of a place's
	 * count is its bit in sc[j]. A lane adds its candidates to the count with a
	 * carry or two, where a byte a place took a step a candidate (fast_lane's
	 * loop); the counts are read only for the few places branched on */
	u128 sc[8];
	u128 lc[FAST_MAX_LANES];
};

/* mirador_chain.c's lightest_chain on f's weights: the weight of the least-weight
 * chain from side `from` to side `to` (sides only at its ends), or -1 when there is
 * none; via gets the link that reached each node on the chain found (side `to` and
 * the pieces back to side `from`, whose via is -1; other entries are left as they
 * were). Dijkstra over the pieces, which are at most 64 (of one colour, fast_net):
 * the open and the settled ones are 64-bit sets, so nothing is cleared per node and a
 * piece not yet reached has no distance to read. Side `to` is kept apart: it ends every chain, so the
 * search stops when no open piece is nearer than it. A network has a few pieces
 * (mirador:10x10's searches: 3.2 on average), so the open set is scanned for its
 * nearest piece; the weights are small sums of popcounts. */
static int fast_lightest(const struct fast *f, int from, int to, int *via)
{
	int n = f->n, src = n + from, dst = n + to, ddst = INT_MAX;
	int dist[FAST_MAX_NODES];
	uint64_t open = 0, seen = 0; /* pieces: 64 at most (fast_net) */
	via[src] = -1;
	for (int u = src;;) {
		int du = u == src ? 0 : dist[u];
		for (int k = f->adj0[u]; k < f->adj0[u + 1]; k++) {
			int li = f->adj[k], v = f->nbr[k], w = f->lw[li];
			if (w < 0)
				continue;
			int d = du + w;
			if (v < n) {
				uint64_t b = 1ull << v;
				if (!(seen & b)) {
					seen |= b;
					open |= b;
				} else if (!(open & b) || d >= dist[v]) {
					continue;
				}
				dist[v] = d;
				via[v] = li;
			} else if (v == dst && d < ddst) {
				ddst = d;
				via[dst] = li;
			}
		}
		if (!open)
			break;
		int best = INT_MAX;
		for (uint64_t o = open; o; o &= o - 1) {
			int v = __builtin_ctzll(o);
			if (dist[v] < best) {
				best = dist[v];
				u = v;
			}
		}
		if (ddst <= best)
			break; /* no chain through an open piece is lighter */
		open &= ~(1ull << u);
	}
	return ddst == INT_MAX ? -1 : ddst;
}

/* 1 when some set of available placements, with T, breaks every chain (the search's
 * breakable(); nbt is nb(T), X the excluded places). */
static int fast_breakable(struct fast *f, u128 T, u128 nbt, u128 X)
{
	u128 avail = f->legal & ~nbt & ~X;
	for (int i = 0; i < f->nlinks; i++) {
		const struct bp_mirador_edge *l = &f->link[i];
		int best = INT_MAX, bl = -1;
		for (int k = l->l0; k < l->l0 + l->nl; k++) {
			if (f->lc[k] & T)
				continue; /* cut */
			int w = popcount128(f->lc[k] & avail);
			if (w < best) {
				best = w;
				bl = k;
			}
		}
		f->lw[i] = l->nl == 0 ? 0 : bl < 0 ? -1 : best;
		f->lbest[i] = bl;
	}
	int via[2][FAST_MAX_NODES], dir = -1, best = INT_MAX;
	for (int d = 0; d < 2; d++) {
		int w = d == 0 ? fast_lightest(f, BP_MIRADOR_SIDE_N, BP_MIRADOR_SIDE_S, via[0])
			       : fast_lightest(f, BP_MIRADOR_SIDE_W, BP_MIRADOR_SIDE_E, via[1]);
		if (w == 0)
			return 0; /* a chain no extension of T can cut */
		if (w > 0 && w < best) {
			best = w;
			dir = d;
		}
	}
	if (dir < 0)
		return 1; /* T breaks every chain */
	/* any breaking set with T holds an available place covering the chosen lane of a
	 * link of this chain: branch on those */
	u128 br = 0;
	const int *vv = via[dir];
	for (int v = f->n + (dir == 0 ? BP_MIRADOR_SIDE_S : BP_MIRADOR_SIDE_E); vv[v] >= 0;) {
		int li = vv[v];
		const struct bp_mirador_edge *l = &f->link[li];
		if (f->lw[li] > 0)
			br |= f->lc[f->lbest[li]] & avail;
		v = l->a == v ? l->b : l->a;
	}
	int list[128], score[128], nl = 0;
	for (; br; br &= br - 1) { /* most lanes covered first */
		int c = ctz128(br), j = nl++, sc = 0;
		for (int b = 0; b < 8; b++)
			sc |= (int)(f->sc[b] >> c & 1) << b;
		while (j > 0 && score[j - 1] < sc) {
			list[j] = list[j - 1];
			score[j] = score[j - 1];
			j--;
		}
		list[j] = c;
		score[j] = sc;
	}
	for (int i = 0; i < nl; i++) {
		int c = list[i];
		if (fast_breakable(f, T | bit128(c), nbt | f->sm->nb[c], X))
			return 1;
		X |= bit128(c); /* the later branches break without c */
	}
	return 0;
}

/* Adds a lane to the link being made, whose candidates are the places in c (the
 * legal places whose piece covers one of its squares). @return 0; -1 when full. */
static int fast_lane(struct fast *f, u128 c)
{
	if (f->nlanes == FAST_MAX_LANES)
		return -1;
	u128 add = c;
	for (int b = 0; b < 8 && add; b++) {
		u128 carry = f->sc[b] & add;
		f->sc[b] ^= add;
		add = carry;
	}
	f->lc[f->nlanes++] = c;
	return 0;
}

/* Ends the link from node a to node b whose lanes are l0 .. f->nlanes - 1 (none: it
 * cannot be cut). @return 0; -1 when full. */
static int fast_link(struct fast *f, int a, int b, int l0)
{
	if (f->nlinks == FAST_MAX_LINKS)
		return -1;
	f->link[f->nlinks++] =
		(struct bp_mirador_edge){ (int16_t)a, (int16_t)b, l0, f->nlanes - l0, 0 };
	return 0;
}

/* The network of the player with places xs (squares xsq, their top-left squares tl)
 * on a board whose occupied squares are occ, into f: the links of RULES.md 9.2 as
 * bp_mirador_net_build finds them (each piece's four sides, its corners to the right,
 * and the first occupied square to the right in each of its rows and downwards in each
 * of its columns), from the rays of safe_chain_pieces: a piece's ray in one of its
 * rows (columns) towards a side meets the first occupied square as its lowest or
 * highest bit, or none (line of sight to the side; an empty ray: the piece touches
 * it). A lane's candidates are the legal places covering a square of the ray
 * (rayc) but none from the square met on (segc: a legal place covering squares on
 * both sides of it would cover it). A piece met is whole and touches no other of its
 * colour along a side, so the square a corner meets is its piece's top-left (or
 * bottom-left) and cover_tl names the piece a ray meets. Until 2026-12-02 the rows and
 * columns were cut out of the board and its transpose by shifts of a variable
 * length, each lane's candidates a rectangle of places (prefix tables): the network
 * took 5.8% of a one-thread mirador:10x10 solve's samples, against 4.2% now.
 * @return 0; -1 when an array is full. */
static inline int fast_net_p(struct fast *f, const struct mirador *m, u128 xs, u128 xsq, u128 occ,
			     const int P)
{
	const struct small *sm = f->sm;
	const int W = sm->w, nx = m->gr.nx;
	int8_t id[128]; /* place -> piece, for xs */
	int n = 0;
	for (u128 v = xs; v; v &= v - 1)
		id[ctz128(v)] = (int8_t)n++;
	f->n = n;
	f->V = n + 4;
	if (f->V > FAST_MAX_NODES || n > 64) /* one colour has 64 pieces at most here */
		return -1;
	u128 tl = xsq & ~sq_east(sm, xsq) & ~sq_south(sm, xsq);
	/* the sides in the order N, S, W, E and their rays' directions (ray's order:
	 * east, west, south, north) */
	static const int side[4] = { BP_MIRADOR_SIDE_N, BP_MIRADOR_SIDE_S, BP_MIRADOR_SIDE_W,
				     BP_MIRADOR_SIDE_E };
	static const int side_dir[4] = { 3, 2, 1, 0 };
	int i = 0;
	for (u128 v = xs; v; v &= v - 1, i++) {
		int q = ctz128(v), x = sm->px[q], y = sm->py[q], t = y * W + x, l0;
		const u128 *ray = sm->ray + (size_t)t * 4 * (size_t)P;
		const u128 *rayc = sm->rayc + (size_t)t * 4 * (size_t)P;
		/* sides: touched (the rays that way are empty), else line of sight in each
		 * row (column) of the piece */
		for (int d = 0; d < 4; d++) {
			const int r0 = side_dir[d] * P;
			int touch = ray[r0] == 0;
			l0 = f->nlanes;
			for (int k = 0; k < P && !touch; k++)
				if (!(ray[r0 + k] & occ) && fast_lane(f, rayc[r0 + k] & f->legal))
					return -1;
			if ((touch || f->nlanes > l0) && fast_link(f, i, n + side[d], l0))
				return -1;
		}
		/* corners to the right: the piece there has its top-left at (x + P, y + P),
		 * or its bottom-left at (x + P, y - 1) */
		if (x + P < W && y + P < sm->h && (xsq >> (t + P * W + P) & 1))
			if (fast_link(f, i, id[q + P * nx + P], f->nlanes))
				return -1;
		if (x + P < W && y > 0 && (xsq >> (t - W + P) & 1))
			if (fast_link(f, i, id[q - P * nx + P], f->nlanes))
				return -1;
		/* line of sight to the right (east rays) and downwards (south rays); each
		 * partner's lanes together */
		for (int vert = 0; vert < 2; vert++) {
			const int r0 = vert ? 2 * P : 0, dir = vert ? 2 : 0;
			int partner[128], hit[128];
			for (int k = 0; k < P; k++) {
				u128 ns = ray[r0 + k] & occ;
				partner[k] = -1;
				if (!ns)
					continue;
				int h = ctz128(ns); /* east and south: the nearest is the lowest */
				if (!(xsq >> h & 1))
					continue; /* the opponent's */
				partner[k] = id[sm->cellplace[ctz128(sm->cover_tl[h] & tl)]];
				hit[k] = h;
			}
			for (int k = 0; k < P; k++) {
				if (partner[k] < 0)
					continue;
				int j = partner[k];
				l0 = f->nlanes;
				for (int k2 = k; k2 < P; k2++) {
					if (partner[k2] != j)
						continue;
					u128 c = rayc[r0 + k2] & ~sm->segc[4 * hit[k2] + dir];
					if (fast_lane(f, c & f->legal))
						return -1;
					partner[k2] = -1;
				}
				if (fast_link(f, i, j, l0))
					return -1;
			}
		}
	}
	return 0;
}

/* P = 2 (most grids) with its loops over a piece's rows and columns unrolled */
static int fast_net(struct fast *f, const struct mirador *m, u128 xs, u128 xsq, u128 occ)
{
	return f->sm->p == 2 ? fast_net_p(f, m, xs, xsq, occ, 2)
			     : fast_net_p(f, m, xs, xsq, occ, f->sm->p);
}

/* Whether one greedy set of the opponent's placements breaks every chain of the player
 * on squares xsq (occupied squares occ, the opponent's legal places `legal`): the set
 * is packed from the lowest place of `first` up (high: from the highest down), then
 * from the lowest (highest) of the other legal places, each place taken when no place
 * taken conflicts with it (nb), so it can be played (legality is pairwise, see above);
 * it breaks every chain when, with its squares filled, the player has no chain of
 * links at all, which is safe_chain_pieces with every occupied square unsafe (a ray
 * then stops at the first occupied square: the links as they stand). 1 is a proof
 * that the chains are breakable, the search's answer; 0 proves nothing.
 *
 * `first` (fast_unbreakable_sets) is the places in line with one of the player's
 * pieces, in its columns or in its rows (sm->colplaces, rowplaces): such a piece
 * covers every lane of a link that runs along them at once, where a place one square
 * off covers one lane and blocks the place in line. On mirador:10x10's 1.45 M
 * searches (972 K breakable) the two sets over all legal places from the lowest and
 * the highest found 679 K; the two with the places in line first find 767 K, and the
 * search's time over those positions fell by about a twentieth (the 88 K more spare
 * a network and nodes each). Two more (columns first, rows first) would find 64 K
 * more, for about what they cost on every other search. */
static int greedy_breaks(const struct small *sm, u128 first, u128 legal, u128 xsq, u128 occ,
			 int high)
{
	u128 sq = occ, v = first & legal;
	while (v) {
		int q = high ? top128(v) : ctz128(v);
		sq |= sm->pmask[q];
		v &= ~sm->nb[q];
		legal &= ~sm->nb[q];
	}
	for (v = legal; v;) {
		int q = high ? top128(v) : ctz128(v);
		sq |= sm->pmask[q];
		v &= ~sm->nb[q];
	}
	return !safe_chain_pieces(sm, xsq, sq);
}

/* The chain-breaking search for colour on p (a valid position of a small grid) after
 * bp_mirador_safe_chain said 0. @return 1 unbreakable; 0; BP_EUNSUPPORTED (a network
 * beyond the arrays above, or p not whole pieces: the caller's search). */
static int fast_unbreakable_sets(const struct mirador *m, const u128 set[2], int colour, u128 xsq,
				 u128 occ, u128 legal);

static int fast_unbreakable(const struct mirador *m, const struct bp_pos *p, int colour)
{
	const struct small *sm = m->sm;
	u128 set[2];
	if (!small_places(sm, p, 0, &set[0]) || !small_places(sm, p, 1, &set[1]))
		return BP_EUNSUPPORTED;
	u128 bad = 0;
	for (u128 v = set[0] | set[1]; v; v &= v - 1)
		bad |= sm->nb[ctz128(v)];
	for (u128 v = set[colour]; v; v &= v - 1)
		bad |= sm->diag[ctz128(v)];
	u128 xsq = get_plane(p, colour);
	return fast_unbreakable_sets(m, set, colour, xsq, xsq | get_plane(p, 1 - colour),
				     sm->all & ~bad);
}

/* fast_unbreakable on red and blue places set, colour's squares xsq, the occupied
 * squares occ and the opponent's legal places `legal`. */
static int fast_unbreakable_sets(const struct mirador *m, const u128 set[2], int colour, u128 xsq,
				 u128 occ, u128 legal)
{
	const struct small *sm = m->sm;
	struct fast f;
	f.sm = sm;
	f.nlinks = f.nlanes = 0;
	f.legal = legal;
	u128 in_line = 0; /* the places in line with the player's pieces (greedy_breaks) */
	for (u128 v = set[colour]; v; v &= v - 1) {
		int q = ctz128(v);
		in_line |= sm->colplaces[sm->px[q]] | sm->rowplaces[sm->py[q]];
	}
	if (greedy_breaks(sm, in_line, legal, xsq, occ, 0) ||
	    greedy_breaks(sm, in_line, legal, xsq, occ, 1))
		return 0; /* breakable: a set was found with no search */
	bp_words_clear((uint64_t *)f.sc, 16);
	if (fast_net(&f, m, set[colour], xsq, occ))
		return BP_EUNSUPPORTED;
	/* node -> links, in compressed rows */
	memset(f.adj0, 0, sizeof(int16_t) * (size_t)(f.V + 1));
	for (int i = 0; i < f.nlinks; i++) {
		f.adj0[f.link[i].a + 1]++;
		f.adj0[f.link[i].b + 1]++;
	}
	for (int v = 0; v < f.V; v++)
		f.adj0[v + 1] = (int16_t)(f.adj0[v + 1] + f.adj0[v]);
	int16_t fill[FAST_MAX_NODES];
	memcpy(fill, f.adj0, sizeof(int16_t) * (size_t)f.V);
	for (int i = 0; i < f.nlinks; i++) {
		f.nbr[fill[f.link[i].a]] = f.link[i].b;
		f.adj[fill[f.link[i].a]++] = (int16_t)i;
		f.nbr[fill[f.link[i].b]] = f.link[i].a;
		f.adj[fill[f.link[i].b]++] = (int16_t)i;
	}
	return !fast_breakable(&f, 0, 0, 0);
}

int bp_mirador_unbreakable(const struct bp_game *g, const struct bp_pos *p, int colour)
{
	const struct mirador *m = M(g);
	int rc = m->sm ? bp_mirador_safe_chain(g, p, colour) : 0;
	if (rc == 1)
		return 1; /* the search would stop at its first node with the same answer */
	if (m->sm && (rc = fast_unbreakable(m, p, colour)) != BP_EUNSUPPORTED)
		return rc;
	/* other grids: greedy sets of the opponent's placements first, as
	 * fast_unbreakable_sets does (greedy_breaks), then the search, on the board
	 * unpacked once. The orders by how often each breaks the chains on
	 * mirador:18x18's searches (of 947 K tests: the lanes' places bottom-right first
	 * by columns 601 K, by rows 576 K; all places top-left by rows 514 K, ...), rows
	 * before columns where that costs few tries (a column order transposes the
	 * places first): 7.5% fewer instructions than by the counts alone (16x16 to
	 * 20x20). The eight leave 2.4% of the tests to the search, the first four of all
	 * places alone 10.6% */
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	struct bp_mirador_greedy gr;
	bp_mirador_greedy_prepare(&m->gr, &b, colour, &gr);
	return general_unbreakable(m, &b, &gr);
}

/* The unbreakable test on grids past the small ones, on board b with gr prepared for
 * its colour (bp_mirador_greedy_prepare, or bp_mirador_kids_child): the greedy sets,
 * then the search. @return 1; 0; BP_ENOMEM. */
static int general_unbreakable(const struct mirador *m, const struct bp_mirador_board *b,
			       const struct bp_mirador_greedy *gr)
{
	const int dirs = BP_MIRADOR_NS | BP_MIRADOR_EW;
	struct bp_mirador_verdict v;
	static const int seq[] = { 5, 0, 1, 7, 3, 2, 6, 4 };
	for (int k = 0; k < 8; k++)
		if (bp_mirador_greedy_try(&m->gr, b, gr, dirs, seq[k]))
			return 0;
	int rc = test_board(m, b, gr->colour, dirs, &v);
	return rc ? rc : v.unbreakable;
}

/* expand_key (see bp_game_ops): on small grids the key's places are used as they are,
 * where key_unpack, outcome, wins_at_once and children_keys would each make them from
 * the position's squares again (small_places) and find the pieces' neighbours (bad)
 * again; the position itself is made only where the chain-breaking search falls back
 * to mirador_chain.c's. */
static int mirador_expand_key(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			      enum bp_value *outcome, int *wins, uint32_t *ctier, uint64_t *keys,
			      uint64_t *lost)
{
	const struct mirador *m = M(g);
	const struct small *sm = m->sm;
	if (!sm)
		return bp_game_expand_key_each(g, tier, key, outcome, wins, ctier, keys, lost);
	u128 set[2], pl[2], bad, corner[2];
	int tm, passed, rc;
	if (wins)
		*wins = 0;
	if (small_key_check(m, tier, key, set, &tm, &passed, pl, &bad, corner))
		return BP_ENOTFOUND;
	/* outcome (mirador_outcome): the player who just moved, c, has an unbreakable
	 * chain (bp_mirador_unbreakable); against c, the legal places are those
	 * touching no piece along a side and none of c's at a corner */
	int c = 1 - tm, occ_lost;
	u128 occ = pl[0] | pl[1];
	if (!(occ_lost = safe_chain_planes(sm, pl[c], occ))) {
		rc = fast_unbreakable_sets(m, set, c, pl[c], occ, sm->all & ~bad & ~corner[c]);
		if (rc == BP_EUNSUPPORTED) {
			struct bp_pos p;
			small_put(pl, tm, passed, &p);
			rc = unbreakable(g, &p, c);
		}
		occ_lost = rc;
	}
	if (occ_lost) {
		*outcome = BP_VALUE_LOSS;
		return 0;
	}
	if (passed) { /* double_pass */
		int e = popcount128(set[0]) - popcount128(set[1]) - tm;
		if (tm ? e >= 0 : e <= 0) {
			*outcome = BP_VALUE_DRAW;
			return 0;
		}
	}
	*outcome = BP_VALUE_NONE;
	u128 legal = sm->all & ~bad & ~corner[c];
	int n = small_children_sets(m, set, tm, legal, INT_MAX, NULL, ctier, keys);
	if (n < 0)
		return n;
	if (lost && n > 0)
		lost_children(sm, pl[tm], occ, legal, n, lost); /* none for a pass: legal 0 */
	/* wins_at_once's tries are the first WIN_TRIES children: one known lost has a
	 * safe chain over the child's own unsafe squares (fewer than lost_children's),
	 * which the try would find */
	if (wins)
		*wins = (lost && n > 0 &&
			 (lost[0] & ((1ull << (n < WIN_TRIES ? n : WIN_TRIES)) - 1))) ||
			wins_at_once_planes(sm, pl[tm], pl[c]);
	return n;
}

/* unrank on a small grid, from the places the index gives. */
static int small_unrank(const struct mirador *m, uint32_t tier, uint64_t rs, uint64_t bs,
			int passed, struct bp_pos *out)
{
	const u128 set[2] = { rs, bs };
	return small_build(m, tier, set, (int)(tier & 1), passed, out);
}

/* Most pieces that fit together: a maximum independent set of the top-left
 * positions under "overlap or side contact" (corner contact allowed), by branching
 * on a vertex of highest degree after taking every vertex of degree 0 or 1. */
static int max_pieces(const uint64_t *nb, uint64_t mask)
{
	if (!mask)
		return 0;
	int best = -1, bestdeg = -1;
	for (uint64_t t = mask; t; t &= t - 1) {
		int v = __builtin_ctzll(t), d = __builtin_popcountll(nb[v] & mask);
		if (d <= 1)
			return 1 + max_pieces(nb, mask & ~nb[v] & ~(1ull << v));
		if (d > bestdeg) {
			bestdeg = d;
			best = v;
		}
	}
	int without = max_pieces(nb, mask & ~(1ull << best));
	int with = 1 + max_pieces(nb, mask & ~nb[best] & ~(1ull << best));
	return with > without ? with : without;
}

struct set_lists {
	uint64_t *v[65];
	uint64_t n[65], cap[65], total;
	int full; /* more than MAX_SET_TABLE sets */
	int oom;
};

/* Every compatible set, each once (elements chosen in increasing order), until
 * MAX_SET_TABLE of them. */
static void list_sets(struct set_lists *l, const uint64_t *nb, uint64_t chosen, uint64_t allowed,
		      int k)
{
	if (l->full || l->oom)
		return;
	if (l->total == MAX_SET_TABLE) {
		l->full = 1;
		return;
	}
	if (l->n[k] == l->cap[k]) {
		uint64_t cap = l->cap[k] ? 2 * l->cap[k] : 16;
		uint64_t *v = realloc(l->v[k], sizeof(uint64_t) * cap);
		if (!v) {
			l->oom = 1;
			return;
		}
		l->v[k] = v;
		l->cap[k] = cap;
	}
	l->v[k][l->n[k]++] = chosen;
	l->total++;
	while (allowed) {
		int v = __builtin_ctzll(allowed);
		allowed &= allowed - 1; /* later elements only */
		list_sets(l, nb, chosen | 1ull << v, allowed & ~nb[v], k + 1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts n values of `bits` bits (tmp: room for n): least significant byte first, a
 * counting pass a byte (a tenth of qsort's time on 9x9's 1.4 million sets). */
static void sort_u64(uint64_t *v, uint64_t n, uint64_t *tmp, int bits)
{
	for (int shift = 0; shift < bits; shift += 8) {
		uint64_t count[257] = { 0 };
		for (uint64_t i = 0; i < n; i++)
			count[(v[i] >> shift & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (uint64_t i = 0; i < n; i++)
			tmp[count[v[i] >> shift & 0xff]++] = v[i];
		memcpy(v, tmp, sizeof *v * n);
	}
}

static int build_set_table(struct mirador *m, const uint64_t *nb)
{
	struct set_lists l;
	memset(&l, 0, sizeof l);
	int N = m->nplace;
	list_sets(&l, nb, 0, N == 64 ? ~0ull : (1ull << N) - 1, 0);
	if (l.full || l.oom) {
		for (int k = 0; k <= 64; k++)
			free(l.v[k]);
		return l.oom ? BP_ENOMEM : BP_OK;
	}
	m->sets = calloc(65, sizeof *m->sets);
	m->nsets = calloc(65, sizeof *m->nsets);
	if (!m->sets || !m->nsets)
		return BP_ENOMEM;
	uint64_t *tmp = malloc(sizeof(uint64_t) * (l.total ? l.total : 1));
	for (int k = 0; k <= 64; k++) {
		m->sets[k] = l.v[k];
		m->nsets[k] = l.n[k];
		if (l.n[k] > 1 && tmp)
			sort_u64(l.v[k], l.n[k], tmp, N);
		else if (l.n[k] > 1)
			qsort(l.v[k], l.n[k], sizeof(uint64_t), cmp_u64);
	}
	free(tmp);
	return BP_OK;
}

/* Lists every (r, b) pair of each tier; see passes_of for the pass kinds. */
static int build_tiers(struct bp_game *g, struct mirador *m)
{
	int N = m->nplace;
	if (N <= 64) {
		uint64_t nb[64] = { 0 };
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++)
				if (i != j &&
				    bp_mirador_incompatible(m->gr.p, i % m->gr.nx - j % m->gr.nx,
							    i / m->gr.nx - j / m->gr.nx))
					nb[i] |= 1ull << j;
		m->maxpieces = max_pieces(nb, N == 64 ? ~0ull : (1ull << N) - 1);
		m->ranked = 1;
		int rc = build_set_table(m, nb);
		if (rc)
			return rc;
	} else {
		/* no ranks: only a bound on the tiers. With r + b <= M pieces, the first
		 * player to pass passes when it runs out and after each later placement of
		 * the other, who passes once at the end: a game lasts at most 2M + 2 turns */
		m->maxpieces = m->gr.ncells / (m->gr.p * m->gr.p);
		g->ntiers = (uint32_t)(2 * m->maxpieces + 3);
		return BP_OK;
	}
	int maxt = 3 * m->maxpieces + 4, nblocks = 0;
	m->blocks = calloc((size_t)(maxt + 1) * 3 * (size_t)(maxt + 1), sizeof *m->blocks);
	m->tier_first = calloc((size_t)maxt + 2, sizeof *m->tier_first);
	if (!m->blocks || !m->tier_first)
		return BP_ENOMEM;
	int ntiers = 0;
	for (int t = 0; t <= maxt; t++) {
		int blue = t & 1;
		m->tier_first[t] = nblocks;
		uint64_t offset = 0;
		for (int p = 0; p <= t; p++) {
			int e[3], passed[3], kinds = 0;
			if (p == 0) {
				e[kinds] = 0;
				passed[kinds++] = 0;
			} else {
				e[kinds] = p; /* blue passed p times */
				passed[kinds++] = !blue;
				e[kinds] = -p; /* red passed p times */
				passed[kinds++] = blue;
				if (p >= 2) { /* both passed, the game is over */
					e[kinds] = blue ? p - 2 : 2 - p;
					passed[kinds++] = 1;
				}
			}
			for (int k = 0; k < kinds; k++) {
				int sum = t - p, diff = e[k] + blue;
				if ((sum + diff) % 2 || sum + diff < 0 || sum - diff < 0)
					continue;
				int r = (sum + diff) / 2, b = (sum - diff) / 2;
				if (r + b > m->maxpieces)
					continue;
				struct tier_block *bl = &m->blocks[nblocks++];
				bl->r = r;
				bl->b = b;
				bl->passed = passed[k];
				bl->offset = offset;
				uint64_t a = m->sets ? m->nsets[r + b] : bp_binom(N, r);
				uint64_t c = m->sets ? bp_binom(r + b, r) : bp_binom(N, b);
				if (m->ranked && !__builtin_mul_overflow(a, c, &bl->size) &&
				    !__builtin_add_overflow(offset, bl->size, &offset))
					continue;
				bl->size = 0;
				offset = UINT64_MAX;
			}
		}
		if (nblocks > m->tier_first[t])
			ntiers = t + 1;
	}
	m->tier_first[maxt + 1] = nblocks;
	g->ntiers = (uint32_t)ntiers;
	return BP_OK;
}

/* ---- describe ---------------------------------------------------------------------- */

static void node_name(const struct bp_game *g, const struct bp_mirador_net *t, int v, char *buf)
{
	if (v >= t->n) {
		buf[0] = side_names[v - t->n];
		buf[1] = '\0';
		return;
	}
	cell_name(g, t->px[v], t->py[v], buf);
}

static void describe_colour(const struct bp_game *g, const struct bp_pos *p, int colour,
			    struct bp_text *json, struct bp_text *text)
{
	const struct mirador *m = M(g);
	struct bp_mirador_board b;
	struct bp_mirador_net *t;
	struct bp_mirador_verdict v;
	char a[16], c2[16];
	const char *cn = colour_names[colour];
	int rc = open_net(m, p, colour, &b, &t);
	if (!rc)
		rc = bp_mirador_chain_test(&m->gr, &b, t, colour, BP_MIRADOR_NS | BP_MIRADOR_EW,
					   &v);
	if (rc) {
		/* describe() has no error path: say so in the output and mark the instance */
		bp_game_fail(g, rc);
		bp_text_printf(json, "\"%s\": {\"error\": \"%s\"}", cn, bp_strerror(rc));
		bp_text_printf(text, "%s: %s\n", cn, bp_strerror(rc));
		free_net(t);
		return;
	}
	bp_text_printf(json, "\"%s\": {\"pieces\": [", cn);
	bp_text_printf(text, "%s pieces (%d):", cn, t->n);
	for (int i = 0; i < t->n; i++) {
		node_name(g, t, i, a);
		bp_text_printf(json, "%s\"%s\"", i ? ", " : "", a);
		bp_text_printf(text, " %s", a);
	}
	bp_text_printf(json, "], \"links\": [");
	bp_text_printf(text, "\n%s links (%d):", cn, t->nlinks);
	for (int i = 0; i < t->nlinks; i++) {
		const struct bp_mirador_edge *l = &t->links[i];
		node_name(g, t, l->a, a);
		node_name(g, t, l->b, c2);
		const char *kind = l->kind == 'c' ? "corner" : l->kind == 't' ? "touch" : "sight";
		bp_text_printf(json, "%s{\"from\": \"%s\", \"to\": \"%s\", \"kind\": \"%s\"}",
			       i ? ", " : "", a, c2, kind);
		bp_text_printf(text, " %s-%s(%s)", a, c2, kind);
	}
	bp_text_printf(json, "]");
	bp_text_printf(text, "\n");
	/* one chain per direction, the one with fewest pieces, drawn on a copy of the
	 * board: its pieces in capitals, its lines of sight as | and -, and the
	 * breaking set (if any) as x */
	char draw[MAX_CELLS];
	for (int c = 0; c < m->gr.ncells; c++)
		draw[c] = mirador_cell_char(g, p, c);
	for (int d = 0; d < 2; d++) {
		int via[MAX_CELLS + 4], len;
		int from = d == 0 ? BP_MIRADOR_SIDE_N : BP_MIRADOR_SIDE_W;
		int to = d == 0 ? BP_MIRADOR_SIDE_S : BP_MIRADOR_SIDE_E;
		if ((rc = bp_mirador_chain_shortest(t, from, to, via, &len)))
			bp_game_fail(g, rc); /* drawn as no chain; the instance is marked */
		const char *dn = d == 0 ? "ns" : "ew";
		bp_text_printf(json, ", \"chain_%s\": [", dn);
		bp_text_printf(text, "%s %s chain:", cn, d == 0 ? "north-south" : "east-west");
		if (len < 0) {
			bp_text_printf(text, " none");
		} else {
			int path[MAX_CELLS + 4], np = 0;
			for (int x = t->n + to; x >= 0;) {
				path[np++] = x;
				if (via[x] < 0)
					break;
				const struct bp_mirador_edge *l = &t->links[via[x]];
				x = l->a == x ? l->b : l->a;
			}
			for (int i = np - 1; i >= 0; i--) {
				node_name(g, t, path[i], a);
				bp_text_printf(json, "%s\"%s\"", i < np - 1 ? ", " : "", a);
				bp_text_printf(text, " %s", a);
				if (path[i] < t->n)
					for (int dy = 0; dy < m->gr.p; dy++)
						for (int dx = 0; dx < m->gr.p; dx++)
							draw[(t->py[path[i]] + dy) * m->gr.w +
							     t->px[path[i]] + dx] = "RB"[colour];
				if (i == 0)
					continue;
				/* the link to the next node: mark its lanes */
				const struct bp_mirador_edge *l = &t->links[via[path[i - 1]]];
				for (int k = l->l0; k < l->l0 + l->nl; k++) {
					const struct bp_mirador_lane *ln = &t->lanes[k];
					for (int u = ln->lo; u <= ln->hi; u++) {
						int cell = ln->vert ? u * m->gr.w + ln->at
								    : ln->at * m->gr.w + u;
						char mark = ln->vert ? '|' : '-';
						draw[cell] = draw[cell] == '.' || draw[cell] == mark
								     ? mark
								     : '+';
					}
				}
			}
		}
		bp_text_printf(json, "]");
		bp_text_printf(text, "\n");
	}
	bp_text_printf(json, ", \"unbreakable\": %s, \"breaking_set\": ",
		       v.unbreakable ? "true" : "false");
	if (!v.chains) {
		bp_text_printf(json, "[]");
		bp_text_printf(text, "%s has no chain\n", cn);
	} else if (v.unbreakable) {
		bp_text_printf(json, "null");
		bp_text_printf(text, "%s chains cannot be broken\n", cn);
	} else {
		bp_text_printf(json, "[");
		bp_text_printf(text, "%s chains can be broken by %s placing:", cn,
			       colour_names[1 - colour]);
		for (int i = 0; i < v.nwitness; i++) {
			bp_board_cell_name(g->board, v.witness[i], a, sizeof a);
			bp_text_printf(json, "%s\"%s\"", i ? ", " : "", a);
			bp_text_printf(text, " %s", a);
		}
		bp_text_printf(json, "]");
		bp_text_printf(text, "\n");
		for (int i = 0; i < v.nwitness; i++)
			for (int dy = 0; dy < m->gr.p; dy++)
				for (int dx = 0; dx < m->gr.p; dx++)
					draw[v.witness[i] + dy * m->gr.w + dx] = 'x';
	}
	if (v.chains) {
		bp_text_printf(text,
			       "%s chains drawn (%c: their pieces, | -: their lines of sight%s):\n",
			       cn, "RB"[colour], v.unbreakable ? "" : ", x: the breaking set");
		for (int y = 0; y < m->gr.h; y++) {
			bp_board_row_name(y, a, sizeof a);
			bp_text_printf(text, "%3s ", a);
			for (int x = 0; x < m->gr.w; x++)
				bp_text_printf(text, "%c%s", draw[y * m->gr.w + x],
					       x + 1 < m->gr.w ? " " : "\n");
		}
	}
	bp_text_printf(json, "}");
	free_net(t);
}

static void mirador_describe(const struct bp_game *g, const struct bp_pos *p, struct bp_text *json,
			     struct bp_text *text)
{
	bp_text_printf(json, "\"mirador\": {");
	for (int c = 0; c < 2; c++) {
		if (c)
			bp_text_printf(json, ", ");
		describe_colour(g, p, c, json, text);
	}
	bp_text_printf(json, "}");
}

/* ---- instance ---------------------------------------------------------------------- */

static void mirador_destroy(struct bp_game *g)
{
	struct mirador *m = g->impl;
	if (m->sets)
		for (int k = 0; k <= 64; k++)
			free(m->sets[k]);
	free(m->sets);
	free(m->nsets);
	free(m->blocks);
	free(m->tier_first);
	free(m->zob);
	small_free(m->sm);
	free(g->impl);
	g->impl = NULL;
}

static int mirador_create(struct bp_game *g, struct bp_err *err)
{
	const struct bp_board *b = g->board;
	const char *ps = g->value[0];
	char *end;
	long P = strtol(ps, &end, 10);
	if (!*ps || *end || P < 1 || P > MAX_SIDE)
		return bp_err_set(err, BP_ESPEC,
				  "mirador: piece=%s: expected a whole number from 1 to %d", ps,
				  MAX_SIDE);
	if (b->a > MAX_SIDE || b->b > MAX_SIDE || b->ncells > MAX_CELLS)
		return bp_err_set(err, BP_ESPEC,
				  "mirador: board %s too large: at most %d columns, %d rows and "
				  "%d micro squares",
				  b->name, MAX_SIDE, MAX_SIDE, MAX_CELLS);
	struct mirador *m = calloc(1, sizeof *m);
	if (!m)
		return BP_ENOMEM;
	m->gr.w = b->a;
	m->gr.h = b->b;
	m->gr.p = (int)P;
	m->gr.ncells = b->ncells;
	m->gr.nx = m->gr.w >= m->gr.p ? m->gr.w - m->gr.p + 1 : 0;
	m->gr.ny = m->gr.h >= m->gr.p ? m->gr.h - m->gr.p + 1 : 0;
	m->gr.xmask = m->gr.nx >= 64 ? ~0ull : (1ull << m->gr.nx) - 1;
	m->nplace = m->gr.nx * m->gr.ny;
	g->impl = m;
	g->max_moves = m->nplace + 1;
	g->nsym = b->nsym;
	int rc = build_tiers(g, m);
	if (!rc)
		rc = small_create(g, m);
	/* a key's bits below its places hold two flags and a colour bit a piece: the
	 * highest of them is free where even pieces covering the whole grid leave it so */
	int base = key_base(m), most = m->gr.w * m->gr.h / (m->gr.p * m->gr.p);
	if (m->sm && 2 + most < base - 1)
		g->key_spare_bit = base - 1;
	if (!rc && g->nsym <= BP_GAME_SYM_HASH_MAX)
		rc = zob_create(g, m);
	if (rc) {
		mirador_destroy(g);
		return rc;
	}
	/* the sets of compatible places behind the ranks (1.4 M on 9x9, 12 MB with the
	 * lists' room), which memory plans count */
	for (int k = 0; m->sets && k <= 64; k++)
		g->table_bytes += m->nsets[k] * sizeof(uint64_t);
	return BP_OK;
}

/* Red and blue miradors and every link of each colour (rule 2). */
static void mirador_picture(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *out)
{
	static const uint32_t colour[2] = { 0xc82828, 0x2850c8 };
	const struct mirador *m = M(g);
	out->nchars = 2;
	out->chars[0] = 'r';
	out->colour[0] = colour[0];
	out->name[0] = "red";
	out->chars[1] = 'b';
	out->colour[1] = colour[1];
	out->name[1] = "blue";
	struct bp_mirador_board b;
	bp_mirador_board_unpack(&m->gr, cplane(p, 0), cplane(p, 1), &b);
	for (int c = 0; c < 2; c++) {
		struct bp_mirador_net t;
		/* out of memory: the picture shows the pieces found so far, without links */
		int rc = bp_mirador_net_build(&m->gr, &b, c, &t);
		for (int i = 0; i < t.n && out->npieces < BP_PICTURE_MAX_PIECES; i++) {
			int k = out->npieces++;
			out->piece[k].cell = (int16_t)(t.py[i] * m->gr.w + t.px[i]);
			out->piece[k].size = (uint8_t)m->gr.p;
			out->piece[k].colour = colour[c];
		}
		/* side numbers as bp_picture asks: N -1, S -2, W -3, E -4 */
		for (int i = 0; !rc && i < t.nlinks && out->nlinks < BP_PICTURE_MAX_LINKS; i++) {
			const struct bp_mirador_edge *l = &t.links[i];
			int k = out->nlinks++;
			out->link[k].a = (int16_t)(t.py[l->a] * m->gr.w + t.px[l->a]);
			out->link[k].b = l->b >= t.n ? (int16_t)(-1 - (l->b - t.n))
						     : (int16_t)(t.py[l->b] * m->gr.w + t.px[l->b]);
			out->link[k].colour = colour[c];
		}
		bp_mirador_net_free(&t);
	}
}

const struct bp_game_ops bp_mirador_ops = {
	.name = "mirador",
	.title = "Mirador: place 2x2 watchtowers; an unbreakable side-to-side chain wins",
	.shapes = BP_SHAPE_SQUARE,
	.flags = BP_GAME_PIE | BP_GAME_COSTLY_OUTCOME | BP_GAME_SPARSE_FIRST,
	.options = mirador_options,
	.create = mirador_create,
	.destroy = mirador_destroy,
	.start = mirador_start,
	.moves = mirador_moves,
	.apply = mirador_apply,
	.outcome = mirador_outcome,
	.pos_parse = mirador_pos_parse,
	.pos_format = mirador_pos_format,
	.cell_char = mirador_cell_char,
	.move_parse = mirador_move_parse,
	.move_format = mirador_move_format,
	.transform = mirador_transform,
	.canonical = mirador_canonical,
	.sym_hash = mirador_sym_hash,
	.sym_hash_move = mirador_sym_hash_move,
	.kids_ctx_size = sizeof(struct kids_ctx),
	.kids_node = mirador_kids_node,
	.kids_child = mirador_kids_child,
	.kids_move_count = mirador_kids_move_count,
	.sym_fixed = mirador_sym_fixed,
	.tier = mirador_tier,
	.tier_size = mirador_tier_size,
	.rank = mirador_rank,
	.unrank = mirador_unrank,
	.key_pack = mirador_key_pack,
	.key_unpack = mirador_key_unpack,
	.children = mirador_children,
	.children_keys = mirador_children_keys,
	.children_keys_first = mirador_children_keys_first,
	.wins_at_once = mirador_wins_at_once,
	.move_count = mirador_move_count,
	.expand_key = mirador_expand_key,
	.describe = mirador_describe,
	.picture = mirador_picture,
	.claims = "no-draw first-player pie corner-openings",
	/* mobility initial numbers (sum/moves): expansions to prove the start, against plain
	 * df-pn's, one thread (2026-12-04): 10x10 58 / 139, 12x12 98 / 434, 14x14 161 /
	 * 2,494, 15x15 204 / 4,324, 16x16 39,987 / 1,696,434, 17x17 1,449,670 / 2,884,666,
	 * 18x18 1,195,910 / 14,117,022 (two threads); 11x14 286 / 601, 15x15 piece 3 122 /
	 * 291; 12x16 the one loss, 5,180 / 1,239. weak/moves searched as sum/moves on the
	 * square grids up to 15x15, then 16x16 43,603, 17x17 246,590, 18x18 1,834,218,
	 * 12x16 1,816: no better everywhere (bench/dfpn_results.md, session 26) */
	.dfpn_mobility = 1,
};
