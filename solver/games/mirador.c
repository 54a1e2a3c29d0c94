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
 * Placement (9.1) for a new block with top-left (x, y): an occupied square u of a row
 * y..y+P-1 forbids x in [u-P, u+1] (overlap or side contact); one of rows y-1, y+P
 * forbids x in [u-P+1, u] (side contact); an opponent square there also forbids
 * x = u+1 and x = u-P (corner contact). Each is a few shifts of the row word.
 *
 * Links (9.2) of one colour are found piece by piece: from each piece, per row it
 * covers, the first occupied square to the right (a friendly piece: a line-of-sight
 * link along that row; none: line of sight to the east side), the same downwards and
 * towards the other sides, and the two pieces touching its right-hand corners. A
 * line-of-sight link is one link with one *lane* (the empty squares strictly between)
 * per row or column it uses; it is broken when every lane holds an opponent square.
 * Corner contact and touching a side cannot be broken.
 *
 * The unbreakable test (9.3). Opponent pieces only ever fill squares, so they only
 * remove links, and legality is a pairwise condition, so a set of placements can be
 * played one after another exactly when each is legal now and no two of them overlap
 * or touch along a side. The question is whether some such set cuts every
 * north-south and every east-west chain. Only placements covering a lane square can
 * help; those are the candidates. The search keeps a set T of chosen candidates and a
 * set X of excluded ones; a candidate is *available* when it is not in T or X and
 * compatible with all of T. Availability only shrinks down the tree, so a link with
 * an unblocked lane that no available candidate covers can never be cut below this
 * node: its weight is 0. Other links weigh the smallest number of available
 * candidates covering one of their unblocked lanes. At each node:
 *
 *   - find, per direction, the chain (side to side, sides only at the ends) of least
 *     total weight (Dijkstra over the pieces);
 *   - no chain in either direction: T breaks every chain, the answer is "breakable";
 *   - a chain of weight 0: no extension of T breaks it: fail;
 *   - else take the lighter direction's chain. Any breaking set containing T must cut
 *     one of its links, so it contains an available candidate covering that link's
 *     chosen lane. Branch on these candidates s1, s2, ...: child i adds si to T and
 *     excludes s1..s(i-1), so each breaking set is found in exactly one branch and
 *     the tree never revisits a set.
 *
 * The test is exact (every pruning step is a proof) and the cut structure keeps it
 * small: only candidates on the lanes of the lightest chain are ever branched on.
 * The tests compare it with a brute force over every set of placements on grids up
 * to 7x7; on positions of random 27x27 games it takes well under a millisecond.
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

#include "canon/rank.h"
#include "canon/symmetry.h"
#include "solver/games/postext.h"

#define MAX_SIDE 64
#define MAX_CELLS 768
#define PLANE_WORDS 12
#define TO_MOVE(p) ((p)->w[24])
#define PASSED(p) ((p)->w[25])

enum { SIDE_N, SIDE_S, SIDE_W, SIDE_E };
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
	int w, h, p, ncells;
	int nx, ny;	/* top-left positions: x < nx, y < ny (0 when the piece never fits) */
	uint64_t xmask; /* bits 0 .. nx-1 */
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

/* ---- unpacked board ------------------------------------------------------------ */

struct mb {
	uint64_t row[2][MAX_SIDE], col[2][MAX_SIDE]; /* per colour */
	uint64_t orow[MAX_SIDE], ocol[MAX_SIDE];     /* either colour */
};

static void unpack(const struct mirador *m, const struct bp_pos *p, struct mb *b)
{
	memset(b, 0, sizeof *b);
	for (int c = 0; c < 2; c++) {
		const uint64_t *pl = cplane(p, c);
		for (int i = 0; i < PLANE_WORDS; i++) {
			uint64_t v = pl[i];
			while (v) {
				int cell = i * 64 + __builtin_ctzll(v);
				v &= v - 1;
				int x = cell % m->w, y = cell / m->w;
				b->row[c][y] |= 1ull << x;
				b->col[c][x] |= 1ull << y;
			}
		}
	}
	for (int i = 0; i < MAX_SIDE; i++) {
		b->orow[i] = b->row[0][i] | b->row[1][i];
		b->ocol[i] = b->col[0][i] | b->col[1][i];
	}
}

static uint64_t shr(uint64_t v, int k)
{
	return k >= 64 ? 0 : v >> k;
}

static int colour_at(const struct mb *b, int x, int y)
{
	return b->row[0][y] >> x & 1 ? 0 : b->row[1][y] >> x & 1 ? 1 : -1;
}

/* Legal top-left columns for colour c, one word per top-left row (see the header). */
static void legal_rows(const struct mirador *m, const struct mb *b, int c, uint64_t *out)
{
	uint64_t body[MAX_SIDE], end[MAX_SIDE], corner[MAX_SIDE];
	for (int y = 0; y < m->h; y++) {
		uint64_t o = b->orow[y], d1 = o << 1, d2 = 0;
		for (int k = 0; k < m->p; k++)
			d2 |= o >> k;
		d1 |= d2 | shr(o, m->p);
		body[y] = d1;
		end[y] = d2;
		uint64_t opp = b->row[1 - c][y];
		corner[y] = opp << 1 | shr(opp, m->p);
	}
	for (int y = 0; y < m->ny; y++) {
		uint64_t bad = 0;
		for (int k = 0; k < m->p; k++)
			bad |= body[y + k];
		if (y > 0)
			bad |= end[y - 1] | corner[y - 1];
		if (y + m->p < m->h)
			bad |= end[y + m->p] | corner[y + m->p];
		out[y] = ~bad & m->xmask;
	}
}

static int has_legal(const struct mirador *m, const struct mb *b, int c)
{
	uint64_t legal[MAX_SIDE];
	legal_rows(m, b, c, legal);
	for (int y = 0; y < m->ny; y++)
		if (legal[y])
			return 1;
	return 0;
}

/* ---- pieces, links and lanes of one colour ---------------------------------------- */

struct lane {
	uint8_t vert; /* 0: along row `at`, columns lo..hi; 1: along column `at` */
	uint8_t at, lo, hi;
};

struct link {
	int16_t a, b; /* piece indices; b >= n is side b - n */
	int l0, nl;   /* lanes l0 .. l0+nl-1; nl == 0: cannot be broken */
	uint8_t kind; /* 'c' corner, 't' touching a side, 's' line of sight */
};

struct net {
	int n; /* pieces */
	uint8_t px[MAX_CELLS], py[MAX_CELLS];
	int16_t pid[MAX_CELLS]; /* piece of that colour covering the cell, or -1 */
	int nlinks, nlanes, caplinks, caplanes;
	struct link *links;
	struct lane *lanes;
};

static void *xmalloc(size_t n)
{
	void *v = malloc(n ? n : 1);
	if (!v)
		abort(); /* the game interface has no error path for outcome() */
	return v;
}

static void *xrealloc(void *old, size_t n)
{
	void *v = realloc(old, n ? n : 1);
	if (!v)
		abort();
	return v;
}

static void net_free(struct net *t)
{
	free(t->links);
	free(t->lanes);
}

static int add_lane(struct net *t, int vert, int at, int lo, int hi)
{
	if (t->nlanes == t->caplanes) {
		t->caplanes = t->caplanes ? 2 * t->caplanes : 64;
		t->lanes = xrealloc(t->lanes, sizeof *t->lanes * (size_t)t->caplanes);
	}
	t->lanes[t->nlanes] = (struct lane){ (uint8_t)vert, (uint8_t)at, (uint8_t)lo, (uint8_t)hi };
	return t->nlanes++;
}

static void add_link(struct net *t, int a, int b, int kind)
{
	if (t->nlinks == t->caplinks) {
		t->caplinks = t->caplinks ? 2 * t->caplinks : 64;
		t->links = xrealloc(t->links, sizeof *t->links * (size_t)t->caplinks);
	}
	t->links[t->nlinks++] =
		(struct link){ (int16_t)a, (int16_t)b, t->nlanes, 0, (uint8_t)kind };
}

/* Finds colour c's pieces, their links and the links' lanes. */
static void build_net(const struct mirador *m, const struct mb *b, int c, struct net *t)
{
	int W = m->w, H = m->h, P = m->p;
	memset(t, 0, sizeof *t);
	for (int i = 0; i < MAX_CELLS; i++)
		t->pid[i] = -1;
	for (int y = 0; y < H; y++) {
		uint64_t v = b->row[c][y];
		while (v) {
			int x = __builtin_ctzll(v);
			v &= v - 1;
			if ((x > 0 && b->row[c][y] >> (x - 1) & 1) ||
			    (y > 0 && b->row[c][y - 1] >> x & 1))
				continue;
			int id = t->n++;
			t->px[id] = (uint8_t)x;
			t->py[id] = (uint8_t)y;
			for (int dy = 0; dy < P; dy++)
				for (int dx = 0; dx < P; dx++)
					t->pid[(y + dy) * W + x + dx] = (int16_t)id;
		}
	}
	int n = t->n;
	for (int i = 0; i < n; i++) {
		int x = t->px[i], y = t->py[i];
		/* sides */
		for (int s = 0; s < 4; s++) {
			int touch = s == SIDE_N	  ? y == 0
				    : s == SIDE_S ? y + P == H
				    : s == SIDE_W ? x == 0
						  : x + P == W;
			if (touch) {
				add_link(t, i, n + s, 't');
				continue;
			}
			int l0 = t->nlanes;
			for (int k = 0; k < P; k++) {
				if (s == SIDE_N && !(b->ocol[x + k] & ((1ull << y) - 1)))
					add_lane(t, 1, x + k, 0, y - 1);
				else if (s == SIDE_S && !(b->ocol[x + k] >> (y + P)))
					add_lane(t, 1, x + k, y + P, H - 1);
				else if (s == SIDE_W && !(b->orow[y + k] & ((1ull << x) - 1)))
					add_lane(t, 0, y + k, 0, x - 1);
				else if (s == SIDE_E && !(b->orow[y + k] >> (x + P)))
					add_lane(t, 0, y + k, x + P, W - 1);
			}
			if (t->nlanes > l0) {
				add_link(t, i, n + s, 's');
				t->links[t->nlinks - 1].l0 = l0;
				t->links[t->nlinks - 1].nl = t->nlanes - l0;
			}
		}
		/* corners to the right (each corner link is found from its left piece) */
		if (x + P < W && y + P < H && colour_at(b, x + P, y + P) == c)
			add_link(t, i, t->pid[(y + P) * W + x + P], 'c');
		if (x + P < W && y > 0 && colour_at(b, x + P, y - 1) == c)
			add_link(t, i, t->pid[(y - 1) * W + x + P], 'c');
		/* line of sight to the right and downwards: the first occupied square in
		 * each row (column) of the piece; partners are gathered one at a time so
		 * that each link's lanes are contiguous */
		for (int vert = 0; vert < 2; vert++) {
			int partner[MAX_SIDE], at[MAX_SIDE], lo = vert ? y + P : x + P;
			int hit[MAX_SIDE];
			for (int k = 0; k < P; k++) {
				uint64_t line = vert ? b->ocol[x + k] : b->orow[y + k];
				uint64_t ahead = lo < 64 ? line >> lo : 0;
				partner[k] = -1;
				if (!ahead)
					continue;
				int u = lo + __builtin_ctzll(ahead);
				int cx = vert ? x + k : u, cy = vert ? u : y + k;
				if (colour_at(b, cx, cy) != c)
					continue;
				partner[k] = t->pid[cy * W + cx];
				at[k] = vert ? x + k : y + k;
				hit[k] = u;
			}
			for (int k = 0; k < P; k++) {
				if (partner[k] < 0)
					continue;
				int j = partner[k], l0 = t->nlanes;
				for (int k2 = k; k2 < P; k2++)
					if (partner[k2] == j) {
						add_lane(t, vert, at[k2], lo, hit[k2] - 1);
						partner[k2] = -1;
					}
				add_link(t, i, j, 's');
				t->links[t->nlinks - 1].l0 = l0;
				t->links[t->nlinks - 1].nl = t->nlanes - l0;
			}
		}
	}
}

/* ---- the search ------------------------------------------------------------------ */

struct search {
	const struct mirador *m;
	struct net *net;
	int nnodes;	 /* graph nodes: pieces, then the four sides */
	int *adj0, *adj; /* node -> links */
	/* candidates */
	int ncand;
	int *cand_cell; /* top-left cell */
	int *cl0, *cl;	/* candidate -> lanes */
	int *lc0, *lc;	/* lane -> candidates */
	int *cf0, *cf;	/* candidate -> incompatible candidates */
	int *score;	/* branching order: lanes covered */
	int *conf;	/* members of T incompatible with the candidate */
	uint8_t *in_t, *excl, *mark;
	int *navail, *ncover; /* per lane */
	int *lw, *lbest;      /* per link: weight (-1 cut) and branching lane */
	int *dist, *via;      /* per node */
	uint8_t *done;
	int *t;
	int nt;
	int *stack; /* branching lists of all open nodes */
	int nstack, capstack;
	uint64_t nodes;
	int dirs; /* BP_MIRADOR_* directions whose chains must be broken */
	struct bp_mirador_verdict *out;
};

static void link_weights(struct search *s)
{
	const struct net *t = s->net;
	for (int i = 0; i < t->nlinks; i++) {
		const struct link *l = &t->links[i];
		if (l->nl == 0) {
			s->lw[i] = 0;
			continue;
		}
		int best = INT_MAX, bl = -1;
		for (int k = l->l0; k < l->l0 + l->nl; k++)
			if (!s->ncover[k] && s->navail[k] < best) {
				best = s->navail[k];
				bl = k;
			}
		s->lw[i] = bl < 0 ? -1 : best;
		s->lbest[i] = bl;
	}
}

/* Least-weight chain from side `from` to side `to` (sides only at the ends).
 * @return its weight, or -1 when there is no chain; s->via holds the path. */
static int lightest_chain(struct search *s, int from, int to)
{
	const struct net *t = s->net;
	int n = t->n, V = s->nnodes, src = n + from, dst = n + to;
	for (int v = 0; v < V; v++) {
		s->dist[v] = INT_MAX;
		s->done[v] = 0;
		s->via[v] = -1;
	}
	s->dist[src] = 0;
	for (;;) {
		int u = -1;
		for (int v = 0; v < V; v++)
			if (!s->done[v] && s->dist[v] != INT_MAX &&
			    (u < 0 || s->dist[v] < s->dist[u]))
				u = v;
		if (u < 0)
			return -1;
		if (u == dst)
			return s->dist[u];
		s->done[u] = 1;
		if (u >= n && u != src)
			continue; /* a side is never an intermediate step */
		for (int k = s->adj0[u]; k < s->adj0[u + 1]; k++) {
			int li = s->adj[k];
			const struct link *l = &t->links[li];
			int v = l->a == u ? l->b : l->a;
			if (s->lw[li] < 0 || (v >= n && v != dst))
				continue;
			int d = s->dist[u] + s->lw[li];
			if (d < s->dist[v]) {
				s->dist[v] = d;
				s->via[v] = li;
			}
		}
	}
}

static void lanes_avail(struct search *s, int c, int delta)
{
	for (int k = s->cl0[c]; k < s->cl0[c + 1]; k++)
		s->navail[s->cl[k]] += delta;
}

static void take(struct search *s, int c)
{
	s->in_t[c] = 1;
	s->t[s->nt++] = c;
	lanes_avail(s, c, -1);
	for (int k = s->cl0[c]; k < s->cl0[c + 1]; k++)
		s->ncover[s->cl[k]]++;
	for (int k = s->cf0[c]; k < s->cf0[c + 1]; k++) {
		int o = s->cf[k];
		if (s->conf[o]++ == 0 && !s->in_t[o] && !s->excl[o])
			lanes_avail(s, o, -1);
	}
}

static void untake(struct search *s, int c)
{
	for (int k = s->cf0[c]; k < s->cf0[c + 1]; k++) {
		int o = s->cf[k];
		if (--s->conf[o] == 0 && !s->in_t[o] && !s->excl[o])
			lanes_avail(s, o, +1);
	}
	for (int k = s->cl0[c]; k < s->cl0[c + 1]; k++)
		s->ncover[s->cl[k]]--;
	lanes_avail(s, c, +1);
	s->nt--;
	s->in_t[c] = 0;
}

static void push(struct search *s, int v)
{
	if (s->nstack == s->capstack) {
		s->capstack = s->capstack ? 2 * s->capstack : 256;
		s->stack = xrealloc(s->stack, sizeof *s->stack * (size_t)s->capstack);
	}
	s->stack[s->nstack++] = v;
}

/* 1 when some extension of T by available candidates breaks every chain. */
static int breakable(struct search *s)
{
	s->nodes++;
	link_weights(s);
	int dir = -1, best = INT_MAX;
	for (int d = 0; d < 2; d++) {
		if (!(s->dirs & (1 << d)))
			continue;
		int w = d == 0 ? lightest_chain(s, SIDE_N, SIDE_S)
			       : lightest_chain(s, SIDE_W, SIDE_E);
		if (w == 0)
			return 0;
		if (w > 0 && w < best) {
			best = w;
			dir = d;
		}
	}
	if (dir < 0) {
		struct bp_mirador_verdict *o = s->out;
		int cap = (int)(sizeof o->witness / sizeof o->witness[0]);
		o->nwitness = s->nt < cap ? s->nt : cap;
		for (int i = 0; i < o->nwitness; i++)
			o->witness[i] = s->cand_cell[s->t[i]];
		return 1;
	}
	if (dir == 0)
		lightest_chain(s, SIDE_N, SIDE_S);
	/* (dir == 1: the last call already left the east-west path in via) */
	const struct net *t = s->net;
	int base = s->nstack, dst = t->n + (dir == 0 ? SIDE_S : SIDE_E);
	for (int v = dst; s->via[v] >= 0;) {
		int li = s->via[v];
		const struct link *l = &t->links[li];
		if (s->lw[li] > 0) {
			int lane = s->lbest[li];
			for (int k = s->lc0[lane]; k < s->lc0[lane + 1]; k++) {
				int c = s->lc[k];
				if (s->mark[c] || s->in_t[c] || s->excl[c] || s->conf[c])
					continue;
				s->mark[c] = 1;
				push(s, c);
			}
		}
		v = l->a == v ? l->b : l->a;
	}
	int top = s->nstack;
	for (int i = base; i < top; i++)
		s->mark[s->stack[i]] = 0;
	/* most lanes covered first: insertion sort, the lists are short */
	for (int i = base + 1; i < top; i++) {
		int c = s->stack[i], j = i;
		while (j > base && s->score[s->stack[j - 1]] < s->score[c]) {
			s->stack[j] = s->stack[j - 1];
			j--;
		}
		s->stack[j] = c;
	}
	int found = 0, i;
	for (i = base; i < top; i++) {
		int c = s->stack[i];
		take(s, c);
		found = breakable(s);
		untake(s, c);
		if (found)
			break;
		s->excl[c] = 1;
		lanes_avail(s, c, -1);
	}
	for (int k = base; k < i && k < top; k++) {
		int c = s->stack[k];
		s->excl[c] = 0;
		lanes_avail(s, c, +1);
	}
	s->nstack = base;
	return found;
}

/* Incompatible placements of one player: overlap or side contact. */
static int incompatible(int P, int dx, int dy)
{
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	return (dx < P && dy <= P) || (dy < P && dx <= P);
}

static int csr(int n, const int *key, const int *val, int npairs, int **start, int **list)
{
	*start = xmalloc(sizeof(int) * (size_t)(n + 1));
	*list = xmalloc(sizeof(int) * (size_t)npairs);
	memset(*start, 0, sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < npairs; i++)
		(*start)[key[i] + 1]++;
	for (int i = 0; i < n; i++)
		(*start)[i + 1] += (*start)[i];
	int *fill = xmalloc(sizeof(int) * (size_t)(n + 1));
	memcpy(fill, *start, sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < npairs; i++)
		(*list)[fill[key[i]]++] = val[i];
	free(fill);
	return 0;
}

/* The link graph of t (pieces, then the four sides) and the per-link and per-node
 * arrays that lightest_chain needs; every link weighs `weight` until link_weights
 * runs. */
static void graph_open(struct search *s, struct net *t, int weight)
{
	s->net = t;
	s->nnodes = t->n + 4;
	int *key = xmalloc(sizeof(int) * (size_t)(2 * t->nlinks + 1));
	int *val = xmalloc(sizeof(int) * (size_t)(2 * t->nlinks + 1));
	for (int i = 0; i < t->nlinks; i++) {
		key[2 * i] = t->links[i].a;
		key[2 * i + 1] = t->links[i].b;
		val[2 * i] = val[2 * i + 1] = i;
	}
	csr(s->nnodes, key, val, 2 * t->nlinks, &s->adj0, &s->adj);
	free(key);
	free(val);
	s->lw = xmalloc(sizeof(int) * (size_t)(t->nlinks + 1));
	s->lbest = xmalloc(sizeof(int) * (size_t)(t->nlinks + 1));
	for (int i = 0; i < t->nlinks; i++)
		s->lw[i] = weight;
	s->dist = xmalloc(sizeof(int) * (size_t)s->nnodes);
	s->via = xmalloc(sizeof(int) * (size_t)s->nnodes);
	s->done = xmalloc((size_t)s->nnodes);
}

static void graph_close(struct search *s)
{
	free(s->adj0);
	free(s->adj);
	free(s->lw);
	free(s->lbest);
	free(s->dist);
	free(s->via);
	free(s->done);
}

/* The directions (BP_MIRADOR_* mask) in which some chain exists: with every
 * weight 0 or more, any path at all. */
static int chain_mask(struct search *s)
{
	return (lightest_chain(s, SIDE_N, SIDE_S) >= 0 ? BP_MIRADOR_NS : 0) |
	       (lightest_chain(s, SIDE_W, SIDE_E) >= 0 ? BP_MIRADOR_EW : 0);
}

static void run_test(const struct mirador *m, const struct mb *b, struct net *t, int colour,
		     int dirs, struct bp_mirador_verdict *out)
{
	struct search s = { .m = m, .out = out, .dirs = dirs };
	int W = m->w, P = m->p;
	graph_open(&s, t, 0);
	s.ncover = calloc((size_t)t->nlanes + 1, sizeof(int));
	s.navail = calloc((size_t)t->nlanes + 1, sizeof(int));
	if (!s.ncover || !s.navail)
		abort();

	/* does any chain exist at all? */
	link_weights(&s);
	out->chains = chain_mask(&s);
	out->unbreakable = 0;
	out->nwitness = 0;
	out->nodes = 0;
	if (!(out->chains & dirs))
		goto done;

	/* candidates: the opponent's legal placements covering a lane square */
	{
		uint64_t legal[MAX_SIDE];
		legal_rows(m, b, 1 - colour, legal);
		int cid[MAX_CELLS];
		for (int i = 0; i < MAX_CELLS; i++)
			cid[i] = -1;
		int cap = 256, np = 0;
		int *pk = xmalloc(sizeof(int) * (size_t)cap),
		    *pv = xmalloc(sizeof(int) * (size_t)cap);
		s.cand_cell = xmalloc(sizeof(int) * (size_t)(m->nx * m->ny + 1));
		for (int ln = 0; ln < t->nlanes; ln++) {
			const struct lane *l = &t->lanes[ln];
			/* top-lefts of blocks meeting the lane */
			int along0 = l->lo - P + 1, along1 = l->hi;
			int across0 = l->at - P + 1, across1 = l->at;
			for (int a = across0; a <= across1; a++)
				for (int u = along0; u <= along1; u++) {
					int x = l->vert ? a : u, y = l->vert ? u : a;
					if (x < 0 || y < 0 || x >= m->nx || y >= m->ny ||
					    !(legal[y] >> x & 1))
						continue;
					int cell = y * W + x;
					if (cid[cell] < 0) {
						cid[cell] = s.ncand;
						s.cand_cell[s.ncand++] = cell;
					}
					if (np == cap) {
						cap *= 2;
						pk = xrealloc(pk, sizeof(int) * (size_t)cap);
						pv = xrealloc(pv, sizeof(int) * (size_t)cap);
					}
					pk[np] = cid[cell];
					pv[np++] = ln;
				}
		}
		csr(s.ncand, pk, pv, np, &s.cl0, &s.cl);
		csr(t->nlanes, pv, pk, np, &s.lc0, &s.lc);
		/* incompatibilities */
		np = 0;
		for (int c = 0; c < s.ncand; c++) {
			int x = s.cand_cell[c] % W, y = s.cand_cell[c] / W;
			for (int dy = -P; dy <= P; dy++)
				for (int dx = -P; dx <= P; dx++) {
					int x2 = x + dx, y2 = y + dy;
					if ((!dx && !dy) || !incompatible(P, dx, dy) || x2 < 0 ||
					    y2 < 0 || x2 >= m->nx || y2 >= m->ny ||
					    cid[y2 * W + x2] < 0)
						continue;
					if (np == cap) {
						cap *= 2;
						pk = xrealloc(pk, sizeof(int) * (size_t)cap);
						pv = xrealloc(pv, sizeof(int) * (size_t)cap);
					}
					pk[np] = c;
					pv[np++] = cid[y2 * W + x2];
				}
		}
		csr(s.ncand, pk, pv, np, &s.cf0, &s.cf);
		free(pk);
		free(pv);
	}
	s.score = xmalloc(sizeof(int) * (size_t)(s.ncand + 1));
	s.conf = calloc((size_t)s.ncand + 1, sizeof(int));
	s.in_t = calloc((size_t)s.ncand + 1, 1);
	s.excl = calloc((size_t)s.ncand + 1, 1);
	s.mark = calloc((size_t)s.ncand + 1, 1);
	s.t = xmalloc(sizeof(int) * (size_t)(s.ncand + 1));
	if (!s.conf || !s.in_t || !s.excl || !s.mark)
		abort();
	for (int c = 0; c < s.ncand; c++)
		s.score[c] = s.cl0[c + 1] - s.cl0[c];
	for (int ln = 0; ln < t->nlanes; ln++)
		s.navail[ln] = s.lc0[ln + 1] - s.lc0[ln];
	out->unbreakable = !breakable(&s);
	out->nodes = s.nodes;
	free(s.cand_cell);
	free(s.cl0);
	free(s.cl);
	free(s.lc0);
	free(s.lc);
	free(s.cf0);
	free(s.cf);
	free(s.score);
	free(s.conf);
	free(s.in_t);
	free(s.excl);
	free(s.mark);
	free(s.t);
	free(s.stack);
done:
	graph_close(&s);
	free(s.ncover);
	free(s.navail);
}

void bp_mirador_test(const struct bp_game *g, const struct bp_pos *p, int colour,
		     struct bp_mirador_verdict *out)
{
	bp_mirador_test_dirs(g, p, colour, BP_MIRADOR_NS | BP_MIRADOR_EW, out);
}

void bp_mirador_test_dirs(const struct bp_game *g, const struct bp_pos *p, int colour, int dirs,
			  struct bp_mirador_verdict *out)
{
	const struct mirador *m = M(g);
	struct mb b;
	struct net *t = xmalloc(sizeof *t);
	unpack(m, p, &b);
	build_net(m, &b, colour, t);
	memset(out, 0, sizeof *out);
	run_test(m, &b, t, colour, dirs, out);
	net_free(t);
	free(t);
}

int bp_mirador_chains(const struct bp_game *g, const struct bp_pos *p, int colour)
{
	const struct mirador *m = M(g);
	struct mb b;
	struct net *t = xmalloc(sizeof *t);
	unpack(m, p, &b);
	build_net(m, &b, colour, t);
	struct search s = { .m = m };
	graph_open(&s, t, 0);
	int mask = chain_mask(&s);
	graph_close(&s);
	net_free(t);
	free(t);
	return mask;
}

int bp_mirador_links(const struct bp_game *g, const struct bp_pos *p, int colour,
		     struct bp_mirador_link *out, int cap)
{
	const struct mirador *m = M(g);
	struct mb b;
	struct net *t = xmalloc(sizeof *t);
	unpack(m, p, &b);
	build_net(m, &b, colour, t);
	int n = t->nlinks;
	for (int i = 0; i < n && i < cap; i++) {
		const struct link *l = &t->links[i];
		out[i].from = t->py[l->a] * m->w + t->px[l->a];
		out[i].to = l->b >= t->n ? -1 - (l->b - t->n) : t->py[l->b] * m->w + t->px[l->b];
		out[i].kind = (char)l->kind;
		out[i].lanes = l->nl;
	}
	net_free(t);
	free(t);
	return n;
}

int bp_mirador_can_place(const struct bp_game *g, const struct bp_pos *p, int colour, int x, int y)
{
	const struct mirador *m = M(g);
	if (x < 0 || y < 0 || x >= m->nx || y >= m->ny)
		return 0;
	struct mb b;
	uint64_t legal[MAX_SIDE];
	unpack(m, p, &b);
	legal_rows(m, &b, colour, legal);
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

static int unbreakable(const struct bp_game *g, const struct bp_pos *p, int colour)
{
	struct bp_mirador_verdict v;
	bp_mirador_test(g, p, colour, &v);
	return v.unbreakable;
}

static enum bp_value mirador_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	if (unbreakable(g, p, 1 - (int)TO_MOVE(p)))
		return BP_VALUE_LOSS;
	if (double_pass(p, M(g)->p))
		return BP_VALUE_DRAW;
	return BP_VALUE_NONE;
}

static void mirador_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
}

static int mirador_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	const struct mirador *m = M(g);
	if (mirador_outcome(g, p) != BP_VALUE_NONE)
		return 0;
	struct mb b;
	uint64_t legal[MAX_SIDE];
	unpack(m, p, &b);
	legal_rows(m, &b, (int)TO_MOVE(p), legal);
	int n = 0;
	for (int y = 0; y < m->ny; y++) {
		uint64_t v = legal[y];
		while (v) {
			int x = __builtin_ctzll(v);
			v &= v - 1;
			out[n++].v = (uint32_t)(y * m->w + x);
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
		int x = (int)mv.v % m->w, y = (int)mv.v / m->w;
		for (int dy = 0; dy < m->p; dy++)
			for (int dx = 0; dx < m->p; dx++) {
				int cell = (y + dy) * m->w + x + dx;
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
	bp_board_cell_name(g->board, y * M(g)->w + x, buf, 16);
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
	int W = m->w, H = m->h, P = m->p;

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
			cell_name(g, x, y, name);
			for (int dy = 0; dy < P; dy++)
				for (int dx = 0; dx < P; dx++) {
					int cx = x + dx, cy = y + dy;
					if (cx >= W || cy >= H || cells[cy * W + cx] != ch ||
					    owner[cy * W + cx] >= 0)
						return bp_err_set(err, BP_EPARSE,
								  "broken %s piece at %s: the %c "
								  "squares from %s "
								  "are not a full %dx%d block",
								  colour_names[col], name, ch, name,
								  P, P);
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
	struct mb b;
	unpack(m, out, &b);
	int e = npieces[0] - npieces[1] - (int)TO_MOVE(out);
	int red_out = !has_legal(m, &b, 0), blue_out = !has_legal(m, &b, 1);
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
	struct mb b;
	unpack(m, p, &b);
	int c = (int)TO_MOVE(p);
	int can = has_legal(m, &b, c);
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
	int x = cell % m->w, y = cell / m->w, P = m->p;
	if (!can)
		return bp_err_set(err, BP_EILLEGAL,
				  "move %s: %s has no legal placement and must pass", text,
				  colour_names[c]);
	if (x >= m->nx || y >= m->ny)
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
			side |= (x > 0 && colour_at(&b, x - 1, y + k) >= 0) ||
				(x + P < m->w && colour_at(&b, x + P, y + k) >= 0) ||
				(y > 0 && colour_at(&b, x + k, y - 1) >= 0) ||
				(y + P < m->h && colour_at(&b, x + k, y + P) >= 0);
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
	memset(out, 0, sizeof *out);
	for (int c = 0; c < 2; c++)
		bp_sym_apply_bits(g->board, s, cplane(p, c), plane(out, c));
	TO_MOVE(out) = TO_MOVE(p);
	PASSED(out) = PASSED(p);
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
static int passes_of(const struct bp_pos *p, int P)
{
	int e = pass_balance(p, P);
	if (!PASSED(p))
		return e < 0 ? -e : e;
	if (!TO_MOVE(p))
		return e >= 1 ? e : 2 - e;
	return e <= -1 ? -e : e + 2;
}

static uint32_t mirador_tier(const struct bp_game *g, const struct bp_pos *p)
{
	int P = M(g)->p;
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
	for (int y = 0; y < m->ny; y++)
		for (int x = 0; x < m->nx; x++) {
			int cell = y * m->w + x;
			if (test_bit(pl, cell) && (x == 0 || !test_bit(pl, cell - 1)) &&
			    (y == 0 || !test_bit(pl, cell - m->w)))
				set |= 1ull << (y * m->nx + x);
		}
	return set;
}

static int mirador_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	const struct mirador *m = M(g);
	uint32_t t = mirador_tier(g, p);
	uint64_t size;
	int rc = mirador_tier_size(g, t, &size);
	if (rc)
		return rc;
	uint64_t rs = placement_set(m, p, 0), bs = placement_set(m, p, 1);
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
	char cells[MAX_CELLS];
	memset(cells, '.', (size_t)m->ncells);
	for (int c = 0; c < 2; c++)
		for (uint64_t v = sets[c]; v; v &= v - 1) {
			int i = __builtin_ctzll(v), x = i % m->nx, y = i / m->nx;
			if (x >= m->nx || y >= m->ny)
				return BP_ENOTFOUND;
			for (int dy = 0; dy < m->p; dy++)
				for (int dx = 0; dx < m->p; dx++) {
					char *cell = &cells[(y + dy) * m->w + x + dx];
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
	int full;
};

/* Every compatible set, each once (elements chosen in increasing order), until
 * MAX_SET_TABLE of them. */
static void list_sets(struct set_lists *l, const uint64_t *nb, uint64_t chosen, uint64_t allowed,
		      int k)
{
	if (l->full)
		return;
	if (l->total == MAX_SET_TABLE) {
		l->full = 1;
		return;
	}
	if (l->n[k] == l->cap[k]) {
		l->cap[k] = l->cap[k] ? 2 * l->cap[k] : 16;
		l->v[k] = xrealloc(l->v[k], sizeof(uint64_t) * l->cap[k]);
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

static int build_set_table(struct mirador *m, const uint64_t *nb)
{
	struct set_lists l;
	memset(&l, 0, sizeof l);
	int N = m->nplace;
	list_sets(&l, nb, 0, N == 64 ? ~0ull : (1ull << N) - 1, 0);
	if (l.full) {
		for (int k = 0; k <= 64; k++)
			free(l.v[k]);
		return BP_OK;
	}
	m->sets = calloc(65, sizeof *m->sets);
	m->nsets = calloc(65, sizeof *m->nsets);
	if (!m->sets || !m->nsets)
		return BP_ENOMEM;
	for (int k = 0; k <= 64; k++) {
		m->sets[k] = l.v[k];
		m->nsets[k] = l.n[k];
		if (l.n[k])
			qsort(l.v[k], l.n[k], sizeof(uint64_t), cmp_u64);
	}
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
				if (i != j && incompatible(m->p, i % m->nx - j % m->nx,
							   i / m->nx - j / m->nx))
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
		m->maxpieces = m->ncells / (m->p * m->p);
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

static void node_name(const struct bp_game *g, const struct net *t, int v, char *buf)
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
	struct mb b;
	struct net *t = xmalloc(sizeof *t);
	char a[16], c2[16];
	unpack(m, p, &b);
	build_net(m, &b, colour, t);
	const char *cn = colour_names[colour];
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
		const struct link *l = &t->links[i];
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
	struct bp_mirador_verdict v;
	run_test(m, &b, t, colour, BP_MIRADOR_NS | BP_MIRADOR_EW, &v);
	char draw[MAX_CELLS];
	for (int c = 0; c < m->ncells; c++)
		draw[c] = mirador_cell_char(g, p, c);
	for (int d = 0; d < 2; d++) {
		struct search s = { .m = m };
		graph_open(&s, t, 1); /* weight 1 a link: the chain with fewest pieces */
		int from = d == 0 ? SIDE_N : SIDE_W, to = d == 0 ? SIDE_S : SIDE_E;
		int len = lightest_chain(&s, from, to);
		const char *dn = d == 0 ? "ns" : "ew";
		bp_text_printf(json, ", \"chain_%s\": [", dn);
		bp_text_printf(text, "%s %s chain:", cn, d == 0 ? "north-south" : "east-west");
		if (len < 0) {
			bp_text_printf(text, " none");
		} else {
			int path[MAX_CELLS + 4], np = 0;
			for (int x = t->n + to; x >= 0;) {
				path[np++] = x;
				if (s.via[x] < 0)
					break;
				const struct link *l = &t->links[s.via[x]];
				x = l->a == x ? l->b : l->a;
			}
			for (int i = np - 1; i >= 0; i--) {
				node_name(g, t, path[i], a);
				bp_text_printf(json, "%s\"%s\"", i < np - 1 ? ", " : "", a);
				bp_text_printf(text, " %s", a);
				if (path[i] < t->n)
					for (int dy = 0; dy < m->p; dy++)
						for (int dx = 0; dx < m->p; dx++)
							draw[(t->py[path[i]] + dy) * m->w +
							     t->px[path[i]] + dx] = "RB"[colour];
				if (i == 0)
					continue;
				/* the link to the next node: mark its lanes */
				int li = s.via[path[i - 1]];
				const struct link *l = &t->links[li];
				for (int k = l->l0; k < l->l0 + l->nl; k++) {
					const struct lane *ln = &t->lanes[k];
					for (int u = ln->lo; u <= ln->hi; u++) {
						int cell = ln->vert ? u * m->w + ln->at
								    : ln->at * m->w + u;
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
		graph_close(&s);
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
			for (int dy = 0; dy < m->p; dy++)
				for (int dx = 0; dx < m->p; dx++)
					draw[v.witness[i] + dy * m->w + dx] = 'x';
	}
	if (v.chains) {
		bp_text_printf(text,
			       "%s chains drawn (%c: their pieces, | -: their lines of sight%s):\n",
			       cn, "RB"[colour], v.unbreakable ? "" : ", x: the breaking set");
		for (int y = 0; y < m->h; y++) {
			bp_board_row_name(y, a, sizeof a);
			bp_text_printf(text, "%3s ", a);
			for (int x = 0; x < m->w; x++)
				bp_text_printf(text, "%c%s", draw[y * m->w + x],
					       x + 1 < m->w ? " " : "\n");
		}
	}
	bp_text_printf(json, "}");
	net_free(t);
	free(t);
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
	m->w = b->a;
	m->h = b->b;
	m->p = (int)P;
	m->ncells = b->ncells;
	m->nx = m->w >= m->p ? m->w - m->p + 1 : 0;
	m->ny = m->h >= m->p ? m->h - m->p + 1 : 0;
	m->xmask = m->nx >= 64 ? ~0ull : (1ull << m->nx) - 1;
	m->nplace = m->nx * m->ny;
	g->impl = m;
	g->max_moves = m->nplace + 1;
	g->nsym = b->nsym;
	int rc = build_tiers(g, m);
	if (rc) {
		mirador_destroy(g);
		return rc;
	}
	return BP_OK;
}

const struct bp_game_ops bp_mirador_ops = {
	.name = "mirador",
	.title = "Mirador: place 2x2 watchtowers; an unbreakable side-to-side chain wins",
	.shapes = BP_SHAPE_SQUARE,
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
	.tier = mirador_tier,
	.tier_size = mirador_tier_size,
	.rank = mirador_rank,
	.unrank = mirador_unrank,
	.describe = mirador_describe,
};
