/* SPDX-License-Identifier: MIT */
/* Mirador's rule machinery below the game interface (RULES.md 9.1 to 9.3), split out
 * of solver/games/mirador.c: the board unpacked into row and column words, legal
 * placements, the links and lanes of one colour, and the chain-breaking search that
 * decides whether a colour's chains are unbreakable.
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
 * Nothing here exits: every allocation failure comes back as BP_ENOMEM. */
#include "solver/games/mirador_chain.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- unpacked board ------------------------------------------------------------ */

void bp_mirador_board_unpack(const struct bp_mirador_grid *m, const uint64_t *red,
			     const uint64_t *blue, struct bp_mirador_board *b)
{
	/* the grid's rows and columns and one past them cleared, not the whole struct
	 * (3 KiB, sized for 64 x 64: a tenth of a mirador:18x18 proof search's
	 * instructions); nothing reads beyond */
	const size_t rows = sizeof(uint64_t) *
			    (size_t)(m->h < BP_MIRADOR_MAX_SIDE ? m->h + 1 : m->h),
		     cols = sizeof(uint64_t) *
			    (size_t)(m->w < BP_MIRADOR_MAX_SIDE ? m->w + 1 : m->w);
	for (int c = 0; c < 2; c++) {
		memset(b->row[c], 0, rows);
		memset(b->col[c], 0, cols);
	}
	for (int c = 0; c < 2; c++) {
		const uint64_t *pl = c ? blue : red;
		for (int i = 0; i < BP_MIRADOR_PLANE_WORDS; i++) {
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
	for (size_t i = 0; i < rows / sizeof(uint64_t); i++)
		b->orow[i] = b->row[0][i] | b->row[1][i];
	for (size_t i = 0; i < cols / sizeof(uint64_t); i++)
		b->ocol[i] = b->col[0][i] | b->col[1][i];
}

static uint64_t shr(uint64_t v, int k)
{
	return k >= 64 ? 0 : v >> k;
}

int bp_mirador_board_colour(const struct bp_mirador_board *b, int x, int y)
{
	return b->row[0][y] >> x & 1 ? 0 : b->row[1][y] >> x & 1 ? 1 : -1;
}

/* Legal top-left columns for colour c, one word per top-left row (see the header). */
static inline void board_legal_p(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
				 int c, uint64_t *out, const int P)
{
	uint64_t body[BP_MIRADOR_MAX_SIDE], end[BP_MIRADOR_MAX_SIDE], corner[BP_MIRADOR_MAX_SIDE];
	for (int y = 0; y < m->h; y++) {
		uint64_t o = b->orow[y], d1 = o << 1, d2 = 0;
		for (int k = 0; k < P; k++)
			d2 |= o >> k;
		d1 |= d2 | shr(o, P);
		body[y] = d1;
		end[y] = d2;
		uint64_t opp = b->row[1 - c][y];
		corner[y] = opp << 1 | shr(opp, P);
	}
	for (int y = 0; y < m->ny; y++) {
		uint64_t bad = 0;
		for (int k = 0; k < P; k++)
			bad |= body[y + k];
		if (y > 0)
			bad |= end[y - 1] | corner[y - 1];
		if (y + P < m->h)
			bad |= end[y + P] | corner[y + P];
		out[y] = ~bad & m->xmask;
	}
}

/* P = 2 (the seed's pieces) with its loops over a piece's rows unrolled */
void bp_mirador_board_legal(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			    int c, uint64_t *out)
{
	if (m->p == 2)
		board_legal_p(m, b, c, out, 2);
	else
		board_legal_p(m, b, c, out, m->p);
}

int bp_mirador_board_has_legal(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			       int c)
{
	uint64_t legal[BP_MIRADOR_MAX_SIDE];
	bp_mirador_board_legal(m, b, c, legal);
	for (int y = 0; y < m->ny; y++)
		if (legal[y])
			return 1;
	return 0;
}

/* ---- pieces, links and lanes of one colour ---------------------------------------- */

/* Growing the arrays: on failure the net is marked (oom) and the entry dropped, so
 * that bp_mirador_net_build can finish its loops and report BP_ENOMEM once. */
struct grow {
	int oom;
};

void bp_mirador_net_free(struct bp_mirador_net *t)
{
	free(t->links);
	free(t->lanes);
	t->links = NULL;
	t->lanes = NULL;
}

static int add_lane(struct bp_mirador_net *t, struct grow *gr, int vert, int at, int lo, int hi)
{
	if (t->nlanes == t->caplanes) {
		int cap = t->caplanes ? 2 * t->caplanes : 64;
		struct bp_mirador_lane *l = realloc(t->lanes, sizeof *l * (size_t)cap);
		if (!l) {
			gr->oom = 1;
			return -1;
		}
		t->lanes = l;
		t->caplanes = cap;
	}
	t->lanes[t->nlanes] =
		(struct bp_mirador_lane){ (uint8_t)vert, (uint8_t)at, (uint8_t)lo, (uint8_t)hi };
	return t->nlanes++;
}

/* Adds a link whose lanes are l0 .. t->nlanes - 1. */
static void add_link(struct bp_mirador_net *t, struct grow *gr, int a, int b, int kind, int l0)
{
	if (t->nlinks == t->caplinks) {
		int cap = t->caplinks ? 2 * t->caplinks : 64;
		struct bp_mirador_edge *l = realloc(t->links, sizeof *l * (size_t)cap);
		if (!l) {
			gr->oom = 1;
			return;
		}
		t->links = l;
		t->caplinks = cap;
	}
	t->links[t->nlinks++] = (struct bp_mirador_edge){ (int16_t)a, (int16_t)b, l0,
							  t->nlanes - l0, (uint8_t)kind };
}

/* Finds colour c's pieces, their links and the links' lanes. */
int bp_mirador_net_build(const struct bp_mirador_grid *m, const struct bp_mirador_board *b, int c,
			 struct bp_mirador_net *t)
{
	struct grow gr = { 0 };
	int W = m->w, H = m->h, P = m->p;
	/* px, py and pid beyond the grid's squares are never read: not cleared */
	t->n = t->nlinks = t->nlanes = t->caplinks = t->caplanes = 0;
	t->links = NULL;
	t->lanes = NULL;
	for (int i = 0; i < m->w * m->h; i++)
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
			int touch = s == BP_MIRADOR_SIDE_N   ? y == 0
				    : s == BP_MIRADOR_SIDE_S ? y + P == H
				    : s == BP_MIRADOR_SIDE_W ? x == 0
							     : x + P == W;
			if (touch) {
				add_link(t, &gr, i, n + s, 't', t->nlanes);
				continue;
			}
			int l0 = t->nlanes;
			for (int k = 0; k < P; k++) {
				if (s == BP_MIRADOR_SIDE_N && !(b->ocol[x + k] & ((1ull << y) - 1)))
					add_lane(t, &gr, 1, x + k, 0, y - 1);
				else if (s == BP_MIRADOR_SIDE_S && !(b->ocol[x + k] >> (y + P)))
					add_lane(t, &gr, 1, x + k, y + P, H - 1);
				else if (s == BP_MIRADOR_SIDE_W &&
					 !(b->orow[y + k] & ((1ull << x) - 1)))
					add_lane(t, &gr, 0, y + k, 0, x - 1);
				else if (s == BP_MIRADOR_SIDE_E && !(b->orow[y + k] >> (x + P)))
					add_lane(t, &gr, 0, y + k, x + P, W - 1);
			}
			if (t->nlanes > l0) {
				add_link(t, &gr, i, n + s, 's', l0);
			}
		}
		/* corners to the right (each corner link is found from its left piece) */
		if (x + P < W && y + P < H && bp_mirador_board_colour(b, x + P, y + P) == c)
			add_link(t, &gr, i, t->pid[(y + P) * W + x + P], 'c', t->nlanes);
		if (x + P < W && y > 0 && bp_mirador_board_colour(b, x + P, y - 1) == c)
			add_link(t, &gr, i, t->pid[(y - 1) * W + x + P], 'c', t->nlanes);
		/* line of sight to the right and downwards: the first occupied square in
		 * each row (column) of the piece; partners are gathered one at a time so
		 * that each link's lanes are contiguous */
		for (int vert = 0; vert < 2; vert++) {
			int partner[BP_MIRADOR_MAX_SIDE], at[BP_MIRADOR_MAX_SIDE],
				lo = vert ? y + P : x + P;
			int hit[BP_MIRADOR_MAX_SIDE];
			for (int k = 0; k < P; k++) {
				uint64_t line = vert ? b->ocol[x + k] : b->orow[y + k];
				uint64_t ahead = lo < 64 ? line >> lo : 0;
				partner[k] = -1;
				if (!ahead)
					continue;
				int u = lo + __builtin_ctzll(ahead);
				int cx = vert ? x + k : u, cy = vert ? u : y + k;
				if (bp_mirador_board_colour(b, cx, cy) != c)
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
						add_lane(t, &gr, vert, at[k2], lo, hit[k2] - 1);
						partner[k2] = -1;
					}
				add_link(t, &gr, i, j, 's', l0);
			}
		}
	}
	return gr.oom ? BP_ENOMEM : BP_OK;
}

/* ---- the search ------------------------------------------------------------------ */

struct search {
	const struct bp_mirador_grid *m;
	const struct bp_mirador_net *net;
	int oom;	 /* an allocation failed: the search unwinds and reports BP_ENOMEM */
	int nnodes;	 /* graph nodes: pieces, then the four sides */
	int *adj0, *adj; /* node -> links */
	/* candidates */
	int ncand;
	int *cand_cell; /* top-left cell */
	int *cl0, *cl;	/* candidate -> lanes */
	int *lc0, *lc;	/* lane -> candidates */
	int noff, *off; /* (dx, dy) pairs: the other places incompatible with a place */
	int *score;	/* branching order: lanes covered */
	int *conf;	/* members of T incompatible with the candidate */
	uint8_t *in_t, *excl, *mark;
	int *navail, *ncover; /* per lane */
	int *lw, *lbest;      /* per link: weight (-1 cut) and branching lane */
	int *dist, *via;      /* per node */
	int *via2;	      /* per node: breakable's other path */
	int *open;	      /* per node: lightest_chain's list */
	uint8_t *done;
	int *t;
	int nt;
	int *stack; /* branching lists of all open nodes */
	int nstack, capstack;
	uint64_t nodes;
	int dirs;	/* BP_MIRADOR_* directions whose chains must be broken */
	const int *cid; /* top-left cell -> candidate, or -1 */
	struct bp_mirador_verdict *out;
	/* scratch memory for the arrays above (but stack): taken in turn from buf (the
	 * caller's, SCRATCH bytes) and, once it is used up, from heap blocks; all of it
	 * is given back at once by scratch_free. A test on a 10x10 board makes some 30
	 * arrays, and malloc and free for each of them cost a fifth of a solve. */
	unsigned char *buf;
	size_t used;
	struct block *blocks;
};

#define SCRATCH 32768

struct block {
	struct block *next;
	_Alignas(16) unsigned char data[];
};

/* n bytes of scratch, zeroed when zero is set; NULL when out of memory. */
static void *scratch(struct search *s, size_t n, int zero)
{
	void *p;
	n = (n + 15) & ~(size_t)15;
	if (s->buf && n <= SCRATCH - s->used) {
		p = s->buf + s->used;
		s->used += n;
	} else {
		struct block *b = malloc(sizeof *b + n);
		if (!b)
			return NULL;
		b->next = s->blocks;
		s->blocks = b;
		p = b->data;
	}
	if (zero)
		memset(p, 0, n);
	return p;
}

static void scratch_free(struct search *s)
{
	while (s->blocks) {
		struct block *b = s->blocks;
		s->blocks = b->next;
		free(b);
	}
}

static void link_weights(struct search *s)
{
	const struct bp_mirador_net *t = s->net;
	for (int i = 0; i < t->nlinks; i++) {
		const struct bp_mirador_edge *l = &t->links[i];
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
	const struct bp_mirador_net *t = s->net;
	int n = t->n, V = s->nnodes, src = n + from, dst = n + to;
	/* Dijkstra with the nodes reached and not yet settled in a list (open, nopen):
	 * the minimum is searched among those only, usually a few of the V nodes */
	int *open = s->open, nopen = 0;
	for (int v = 0; v < V; v++) {
		s->dist[v] = INT_MAX;
		s->done[v] = 0;
		s->via[v] = -1;
	}
	s->dist[src] = 0;
	open[nopen++] = src;
	while (nopen > 0) {
		int at = 0;
		for (int k = 1; k < nopen; k++) /* ties to the lowest node, as a scan would */
			if (s->dist[open[k]] < s->dist[open[at]] ||
			    (s->dist[open[k]] == s->dist[open[at]] && open[k] < open[at]))
				at = k;
		int u = open[at];
		open[at] = open[--nopen];
		if (u == dst)
			return s->dist[u];
		s->done[u] = 1;
		if (u >= n && u != src)
			continue; /* a side is never an intermediate step */
		for (int k = s->adj0[u]; k < s->adj0[u + 1]; k++) {
			int li = s->adj[k];
			const struct bp_mirador_edge *l = &t->links[li];
			int v = l->a == u ? l->b : l->a;
			if (s->lw[li] < 0 || s->done[v] || (v >= n && v != dst))
				continue;
			int d = s->dist[u] + s->lw[li];
			if (d < s->dist[v]) {
				if (s->dist[v] == INT_MAX)
					open[nopen++] = v;
				s->dist[v] = d;
				s->via[v] = li;
			}
		}
	}
	return -1;
}

static void lanes_avail(struct search *s, int c, int delta)
{
	for (int k = s->cl0[c]; k < s->cl0[c + 1]; k++)
		s->navail[s->cl[k]] += delta;
}

/* Counts candidate c into (delta +1) or out of (-1) the conflicts of the candidates
 * incompatible with it, found by their offsets from c when c is taken: only the few
 * candidates a search takes need them, not every candidate's list. */
static void conflicts(struct search *s, int c, int delta)
{
	const struct bp_mirador_grid *m = s->m;
	int W = m->w, x = s->cand_cell[c] % W, y = s->cand_cell[c] / W;
	for (int k = 0; k < s->noff; k++) {
		int x2 = x + s->off[2 * k], y2 = y + s->off[2 * k + 1];
		if (x2 < 0 || y2 < 0 || x2 >= m->nx || y2 >= m->ny)
			continue;
		int o = s->cid[y2 * W + x2];
		if (o < 0)
			continue;
		if (delta > 0 ? s->conf[o]++ == 0 : --s->conf[o] == 0)
			if (!s->in_t[o] && !s->excl[o])
				lanes_avail(s, o, -delta);
	}
}

static void take(struct search *s, int c)
{
	s->in_t[c] = 1;
	s->t[s->nt++] = c;
	lanes_avail(s, c, -1);
	for (int k = s->cl0[c]; k < s->cl0[c + 1]; k++)
		s->ncover[s->cl[k]]++;
	conflicts(s, c, +1);
}

static void untake(struct search *s, int c)
{
	conflicts(s, c, -1);
	for (int k = s->cl0[c]; k < s->cl0[c + 1]; k++)
		s->ncover[s->cl[k]]--;
	lanes_avail(s, c, +1);
	s->nt--;
	s->in_t[c] = 0;
}

static void push(struct search *s, int v)
{
	if (s->nstack == s->capstack) {
		int cap = s->capstack ? 2 * s->capstack : 256;
		int *st = realloc(s->stack, sizeof *st * (size_t)cap);
		if (!st) {
			s->oom = 1;
			return;
		}
		s->stack = st;
		s->capstack = cap;
	}
	s->stack[s->nstack++] = v;
}

/* 1 when some extension of T by available candidates breaks every chain. After an
 * allocation failure (s->oom) the answer means nothing and the search unwinds. */
static int breakable(struct search *s)
{
	s->nodes++;
	if (s->oom)
		return 0;
	link_weights(s);
	int dir = -1, best = INT_MAX, *via_ns = NULL;
	for (int d = 0; d < 2; d++) {
		if (!(s->dirs & (1 << d)))
			continue;
		int w = d == 0 ? lightest_chain(s, BP_MIRADOR_SIDE_N, BP_MIRADOR_SIDE_S)
			       : lightest_chain(s, BP_MIRADOR_SIDE_W, BP_MIRADOR_SIDE_E);
		if (d == 0 && (s->dirs & BP_MIRADOR_EW)) {
			/* keep the north-south path: the east-west search writes the other
			 * array */
			via_ns = s->via;
			s->via = s->via2;
			s->via2 = via_ns;
		}
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
	if (dir == 0 && via_ns) {
		s->via2 = s->via;
		s->via = via_ns;
	}
	/* (else via holds the path of dir already) */
	const struct bp_mirador_net *t = s->net;
	int base = s->nstack, dst = t->n + (dir == 0 ? BP_MIRADOR_SIDE_S : BP_MIRADOR_SIDE_E);
	for (int v = dst; s->via[v] >= 0;) {
		int li = s->via[v];
		const struct bp_mirador_edge *l = &t->links[li];
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
		if (found || s->oom)
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
static inline int incompatible(int P, int dx, int dy)
{
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	return (dx < P && dy <= P) || (dy < P && dx <= P);
}

int bp_mirador_incompatible(int P, int dx, int dy)
{
	return incompatible(P, dx, dy);
}

/* Doubles the room of two pair arrays. @return BP_OK; BP_ENOMEM (the old arrays stay
 * valid). */
static int grow_pairs(int **pk, int **pv, int *cap)
{
	int n = 2 * *cap, *k = realloc(*pk, sizeof(int) * (size_t)n);
	if (!k)
		return BP_ENOMEM;
	*pk = k;
	int *v = realloc(*pv, sizeof(int) * (size_t)n);
	if (!v)
		return BP_ENOMEM;
	*pv = v;
	*cap = n;
	return BP_OK;
}

/* Groups npairs (key, val) pairs by key into compressed rows: the values of key k
 * are (*list)[(*start)[k] .. (*start)[k + 1] - 1]. @return BP_OK; BP_ENOMEM. */
static int csr(struct search *s, int n, const int *key, const int *val, int npairs, int **start,
	       int **list)
{
	*start = scratch(s, sizeof(int) * ((size_t)n + 1), 1);
	*list = scratch(s, sizeof(int) * (size_t)(npairs + 1), 0);
	int *fill = scratch(s, sizeof(int) * (size_t)(n + 1), 0);
	if (!*start || !*list || !fill)
		return BP_ENOMEM;
	for (int i = 0; i < npairs; i++)
		(*start)[key[i] + 1]++;
	for (int i = 0; i < n; i++)
		(*start)[i + 1] += (*start)[i];
	memcpy(fill, *start, sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < npairs; i++)
		(*list)[fill[key[i]]++] = val[i];
	return BP_OK;
}

/* The link graph of t (pieces, then the four sides) and the per-link and per-node
 * arrays that lightest_chain needs; every link weighs `weight` until link_weights
 * runs. @return BP_OK; BP_ENOMEM (graph_close frees what was made either way). */
static int graph_open(struct search *s, const struct bp_mirador_net *t, int weight)
{
	s->net = t;
	s->nnodes = t->n + 4;
	int *key = scratch(s, sizeof(int) * (size_t)(2 * t->nlinks + 1), 0);
	int *val = scratch(s, sizeof(int) * (size_t)(2 * t->nlinks + 1), 0);
	int rc = BP_ENOMEM;
	if (key && val) {
		for (int i = 0; i < t->nlinks; i++) {
			key[2 * i] = t->links[i].a;
			key[2 * i + 1] = t->links[i].b;
			val[2 * i] = val[2 * i + 1] = i;
		}
		rc = csr(s, s->nnodes, key, val, 2 * t->nlinks, &s->adj0, &s->adj);
	}
	s->lw = scratch(s, sizeof(int) * (size_t)(t->nlinks + 1), 0);
	s->lbest = scratch(s, sizeof(int) * (size_t)(t->nlinks + 1), 0);
	s->dist = scratch(s, sizeof(int) * (size_t)s->nnodes, 0);
	s->via = scratch(s, sizeof(int) * (size_t)s->nnodes, 0);
	s->open = scratch(s, sizeof(int) * (size_t)s->nnodes, 0);
	s->via2 = scratch(s, sizeof(int) * (size_t)s->nnodes, 0);
	s->done = scratch(s, (size_t)s->nnodes, 0);
	if (rc || !s->lw || !s->lbest || !s->dist || !s->via || !s->via2 || !s->open || !s->done)
		return BP_ENOMEM;
	for (int i = 0; i < t->nlinks; i++)
		s->lw[i] = weight;
	return BP_OK;
}

static void graph_close(struct search *s)
{
	scratch_free(s);
}

/* The directions (BP_MIRADOR_* mask) in which some chain exists: with every
 * weight 0 or more, any path at all. */
static int chain_mask(struct search *s)
{
	return (lightest_chain(s, BP_MIRADOR_SIDE_N, BP_MIRADOR_SIDE_S) >= 0 ? BP_MIRADOR_NS : 0) |
	       (lightest_chain(s, BP_MIRADOR_SIDE_W, BP_MIRADOR_SIDE_E) >= 0 ? BP_MIRADOR_EW : 0);
}

int bp_mirador_chain_mask(const struct bp_mirador_net *t, int *mask)
{
	struct search s = { 0 };
	int rc = graph_open(&s, t, 0);
	*mask = rc ? 0 : chain_mask(&s);
	graph_close(&s);
	return rc;
}

int bp_mirador_chain_shortest(const struct bp_mirador_net *t, int from, int to, int *via, int *len)
{
	struct search s = { 0 };
	int rc = graph_open(&s, t, 1); /* weight 1 a link: the chain with fewest pieces */
	*len = -1;
	if (!rc) {
		*len = lightest_chain(&s, from, to);
		memcpy(via, s.via, sizeof(int) * (size_t)s.nnodes);
	}
	graph_close(&s);
	return rc;
}

/* The top-left square of colour c's piece that covers square (x, y), into *tx, *ty:
 * pieces of one colour never touch along a side, so the run of c's squares in a row
 * (column) through a square is its piece's. */
static void piece_at(const struct bp_mirador_board *b, int c, int x, int y, int *tx, int *ty)
{
	uint64_t gap = ~b->row[c][y] & ((1ull << x) - 1);
	*tx = gap ? 64 - __builtin_clzll(gap) : 0;
	gap = ~b->col[c][x] & ((1ull << y) - 1);
	*ty = gap ? 64 - __builtin_clzll(gap) : 0;
}

/* Whether colour c, with the pieces of gr, has a chain (RULES.md 9.3) in one of the
 * directions dirs, its links as they stand on the squares occupied in orow and ocol
 * (b's, with the squares of other pieces added; c's own as in b): a search over c's
 * pieces from those linked to one side, a piece's links made when it is first
 * reached, sides only at the ends. */
static int has_chain(const struct bp_mirador_grid *m, const struct bp_mirador_board *b, int c,
		     const struct bp_mirador_greedy *gr, const uint64_t *orow, const uint64_t *ocol,
		     int dirs)
{
	const int W = m->w, H = m->h, P = m->p;
	int qx[BP_MIRADOR_MAX_CELLS], qy[BP_MIRADOR_MAX_CELLS];
	for (int d = 0; d < 2; d++) { /* north-south, then west-east */
		if (!(dirs & (d == 0 ? BP_MIRADOR_NS : BP_MIRADOR_EW)))
			continue;
		uint64_t seen[BP_MIRADOR_MAX_SIDE];
		memset(seen, 0, sizeof(uint64_t) * (size_t)H);
		int nq = 0;
		/* the pieces linked to the first side: touching it, or in line of sight */
		for (int i = 0; i < gr->n; i++) {
			int x = gr->px[i], y = gr->py[i], link = 0;
			for (int k = 0; k < P && !link; k++)
				link = d == 0 ? !(ocol[x + k] & ((1ull << y) - 1))
					      : !(orow[y + k] & ((1ull << x) - 1));
			if (link) {
				seen[y] |= 1ull << x;
				qx[nq] = x;
				qy[nq++] = y;
			}
		}
		for (int i = 0; i < nq; i++) {
			int x = qx[i], y = qy[i];
			/* linked to the opposite side? */
			for (int k = 0; k < P; k++)
				if (d == 0 ? (y + P >= 64 || !(ocol[x + k] >> (y + P)))
					   : (x + P >= 64 || !(orow[y + k] >> (x + P))))
					return 1;
			/* the squares this piece links through: the first occupied square on
			 * each of its rays, and its four corners */
			int sx[4 * BP_MIRADOR_MAX_SIDE + 4], sy[4 * BP_MIRADOR_MAX_SIDE + 4],
				ns = 0;
			for (int k = 0; k < P; k++) {
				uint64_t col = ocol[x + k], row = orow[y + k];
				uint64_t up = col & ((1ull << y) - 1),
					 left = row & ((1ull << x) - 1);
				uint64_t down = y + P < 64 ? col >> (y + P) : 0;
				uint64_t right = x + P < 64 ? row >> (x + P) : 0;
				if (up) {
					sx[ns] = x + k;
					sy[ns++] = 63 - __builtin_clzll(up);
				}
				if (down) {
					sx[ns] = x + k;
					sy[ns++] = y + P + __builtin_ctzll(down);
				}
				if (left) {
					sx[ns] = 63 - __builtin_clzll(left);
					sy[ns++] = y + k;
				}
				if (right) {
					sx[ns] = x + P + __builtin_ctzll(right);
					sy[ns++] = y + k;
				}
			}
			for (int dy = -1; dy <= P; dy += P + 1)
				for (int dx = -1; dx <= P; dx += P + 1)
					if (x + dx >= 0 && x + dx < W && y + dy >= 0 &&
					    y + dy < H) {
						sx[ns] = x + dx;
						sy[ns++] = y + dy;
					}
			for (int j = 0; j < ns; j++) {
				int tx, ty;
				if (!(b->row[c][sy[j]] >> sx[j] & 1))
					continue; /* not c's */
				piece_at(b, c, sx[j], sy[j], &tx, &ty);
				if (!(seen[ty] >> tx & 1)) {
					seen[ty] |= 1ull << tx;
					qx[nq] = tx;
					qy[nq++] = ty;
				}
			}
		}
	}
	return 0;
}

/* The greedy packing of bp_mirador_greedy_try along lines: line y's places
 * (bits x of legal[y], nlines lines) taken from the lowest x (high: the highest, and
 * the lines from the last), each clearing the P places after it on the line; then the
 * lines ahead lose the places that overlap or touch a taken one along a side
 * (bp_mirador_incompatible: |dx| < P and |dy| <= P, or |dy| < P and |dx| <= P, which
 * is the same across lines as along them). Each piece's squares go into along (words
 * by line, as legal) and across (words by position on the line). Rows as lines for
 * the row orders, columns (legal transposed) for the column orders. */
static inline void pack_lines_p(uint64_t *legal, int nlines, const int P, int high, uint64_t *along,
				uint64_t *across)
{
	const uint64_t piece = (1ull << P) - 1, run = piece << 1 | 1;
	for (int i = 0; i < nlines; i++) {
		int y = high ? nlines - 1 - i : i;
		uint64_t v = legal[y], taken = 0;
		while (v) {
			int x = high ? 63 - __builtin_clzll(v) : __builtin_ctzll(v);
			taken |= 1ull << x;
			/* the places x .. x + P (x - P .. x) of the line go */
			v &= ~(!high ? run << x : x >= P ? run << (x - P) : run >> (P - x));
			for (int k = 0; k < P; k++)
				across[x + k] |= piece << y;
		}
		if (!taken)
			continue;
		uint64_t near = taken, wide; /* taken places dx <= P - 1 away, then P */
		for (int k = 1; k < P; k++)
			near |= taken << k | taken >> k;
		wide = near | taken << P | taken >> P;
		for (int dy = 1; dy <= P; dy++) {
			int yy = high ? y - dy : y + dy;
			if (yy >= 0 && yy < nlines)
				legal[yy] &= ~(dy < P ? wide : near);
		}
		uint64_t sq = taken; /* the squares of the line's pieces */
		for (int k = 1; k < P; k++)
			sq |= taken << k;
		for (int k = 0; k < P; k++)
			along[y + k] |= sq;
	}
}

/* P = 2 (the seed's pieces) with its loops over a piece's lines unrolled */
static void pack_lines(uint64_t *legal, int nlines, int P, int high, uint64_t *along,
		       uint64_t *across)
{
	if (P == 2)
		pack_lines_p(legal, nlines, 2, high, along, across);
	else
		pack_lines_p(legal, nlines, P, high, along, across);
}

/* Bits lo .. hi - 1 of a word (0 <= lo <= hi <= 64). */
static uint64_t span(int lo, int hi)
{
	uint64_t below_hi = hi >= 64 ? ~0ull : (1ull << hi) - 1;
	return lo >= 64 ? 0 : below_hi & ~((1ull << lo) - 1);
}

/* ORs into lane (by row) the lanes of colour's piece with top-left (x, y) on b: the
 * empty runs from the piece along its rows and columns that end at a side or at a
 * square of colour, the lanes of its line-of-sight links (a run that ends at the
 * opponent's square is no lane). */
static inline void piece_lanes(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			       int colour, int x, int y, uint64_t *lane, const int P)
{
	const uint64_t *own = b->row[colour], *ownc = b->col[colour];
	for (int k = 0; k < P; k++) {
		uint64_t row = b->orow[y + k], col = b->ocol[x + k];
		uint64_t w = row & ((1ull << x) - 1), e = x + P < 64 ? row >> (x + P) : 0;
		uint64_t n = col & ((1ull << y) - 1), s = y + P < 64 ? col >> (y + P) : 0;
		int hw = w ? 63 - __builtin_clzll(w) : -1; /* the squares met */
		int he = e ? x + P + __builtin_ctzll(e) : m->w;
		int hn = n ? 63 - __builtin_clzll(n) : -1;
		int hs = s ? y + P + __builtin_ctzll(s) : m->h;
		if (hw < 0 || own[y + k] >> hw & 1)
			lane[y + k] |= span(hw + 1, x);
		if (he >= m->w || own[y + k] >> he & 1)
			lane[y + k] |= span(x + P, he);
		if (hn < 0 || ownc[x + k] >> hn & 1)
			for (int yy = hn + 1; yy < y; yy++)
				lane[yy] |= 1ull << (x + k);
		if (hs >= m->h || ownc[x + k] >> hs & 1)
			for (int yy = y + P; yy < hs; yy++)
				lane[yy] |= 1ull << (x + k);
	}
}

/* The opponent's candidates: legal places whose piece covers a lane square (no other
 * placement cuts a link, and each one taken excludes others). */
static inline void cand_of(const struct bp_mirador_grid *m, const uint64_t *legal,
			   const uint64_t *lane, uint64_t *cand, const int P)
{
	for (int y = 0; y < m->ny; y++) {
		uint64_t near = 0;
		for (int k = 0; k < P; k++)
			near |= lane[y + k];
		uint64_t tl = near;
		for (int j = 1; j < P; j++)
			tl |= near >> j;
		cand[y] = legal[y] & tl;
	}
}

/* colour's pieces (top-left squares, in row order) into px, py and their lanes into
 * lane (m->h words, cleared here). @return how many pieces. */
static inline int pieces_and_lanes(const struct bp_mirador_grid *m,
				   const struct bp_mirador_board *b, int colour, uint8_t *px,
				   uint8_t *py, uint64_t *lane, const int P)
{
	const uint64_t *own = b->row[colour];
	int n = 0;
	memset(lane, 0, sizeof(uint64_t) * (size_t)m->h);
	for (int y = 0; y < m->h; y++)
		for (uint64_t v = own[y]; v; v &= v - 1) {
			int x = __builtin_ctzll(v);
			if ((x > 0 && own[y] >> (x - 1) & 1) || (y > 0 && own[y - 1] >> x & 1))
				continue; /* not a top-left square */
			px[n] = (uint8_t)x;
			py[n++] = (uint8_t)y;
			piece_lanes(m, b, colour, x, y, lane, P);
		}
	return n;
}

static inline void greedy_prepare_p(const struct bp_mirador_grid *m,
				    const struct bp_mirador_board *b, int colour,
				    struct bp_mirador_greedy *gr, const int P)
{
	uint64_t lane[BP_MIRADOR_MAX_SIDE]; /* by row: the squares of colour's lanes */
	bp_mirador_board_legal(m, b, 1 - colour, gr->legal);
	gr->colour = colour;
	gr->n = pieces_and_lanes(m, b, colour, gr->px, gr->py, lane, P);
	cand_of(m, gr->legal, lane, gr->cand, P);
}

/* P = 2 (the seed's pieces) with its loops over a piece's lines unrolled */
void bp_mirador_greedy_prepare(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			       int colour, struct bp_mirador_greedy *gr)
{
	if (m->p == 2)
		greedy_prepare_p(m, b, colour, gr, 2);
	else
		greedy_prepare_p(m, b, colour, gr, m->p);
}

/* ---- the children of one node ---------------------------------------------------- */

void bp_mirador_kids_node(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			  int colour, struct bp_mirador_kids *k)
{
	const size_t rows = (size_t)(m->h < BP_MIRADOR_MAX_SIDE ? m->h + 1 : m->h),
		     cols = (size_t)(m->w < BP_MIRADOR_MAX_SIDE ? m->w + 1 : m->w);
	if (b != &k->b) { /* else unpacked there already */
		for (int c = 0; c < 2; c++) {
			memcpy(k->b.row[c], b->row[c], sizeof(uint64_t) * rows);
			memcpy(k->b.col[c], b->col[c], sizeof(uint64_t) * cols);
		}
		memcpy(k->b.orow, b->orow, sizeof(uint64_t) * rows);
		memcpy(k->b.ocol, b->ocol, sizeof(uint64_t) * cols);
	}
	k->colour = colour;
	bp_mirador_board_legal(m, b, 1 - colour, k->legal);
	k->n = m->p == 2 ? pieces_and_lanes(m, b, colour, k->px, k->py, k->lane, 2)
			 : pieces_and_lanes(m, b, colour, k->px, k->py, k->lane, m->p);
}

static inline void kids_child_p(const struct bp_mirador_grid *m, const struct bp_mirador_kids *k,
				int x, int y, struct bp_mirador_board *cb,
				struct bp_mirador_greedy *gr, const int P)
{
	const int c = k->colour;
	const size_t rows = (size_t)(m->h < BP_MIRADOR_MAX_SIDE ? m->h + 1 : m->h),
		     cols = (size_t)(m->w < BP_MIRADOR_MAX_SIDE ? m->w + 1 : m->w);
	/* the child's board: the node's with the piece's squares */
	for (int cc = 0; cc < 2; cc++) {
		memcpy(cb->row[cc], k->b.row[cc], sizeof(uint64_t) * rows);
		memcpy(cb->col[cc], k->b.col[cc], sizeof(uint64_t) * cols);
	}
	memcpy(cb->orow, k->b.orow, sizeof(uint64_t) * rows);
	memcpy(cb->ocol, k->b.ocol, sizeof(uint64_t) * cols);
	const uint64_t across = span(x, x + P), down = span(y, y + P);
	for (int j = 0; j < P; j++) {
		cb->row[c][y + j] |= across;
		cb->orow[y + j] |= across;
		cb->col[c][x + j] |= down;
		cb->ocol[x + j] |= down;
	}
	/* the opponent's legal places lose those within P of the piece each way: overlap,
	 * side contact, or a corner against another colour (RULES.md 9.1) */
	gr->colour = c;
	memcpy(gr->legal, k->legal, sizeof(uint64_t) * (size_t)m->ny);
	const uint64_t box = span(x > P ? x - P : 0, x + P + 1);
	for (int yy = y > P ? y - P : 0; yy <= y + P && yy < m->ny; yy++)
		gr->legal[yy] &= ~box;
	/* the lanes: the node's, and the piece's own (a lane the piece now stands in is
	 * cut into lanes to it, which its own rays find; its squares and those beside it
	 * no legal place covers, so they may stay) */
	uint64_t lane[BP_MIRADOR_MAX_SIDE];
	memcpy(lane, k->lane, sizeof(uint64_t) * (size_t)m->h);
	piece_lanes(m, cb, c, x, y, lane, P);
	cand_of(m, gr->legal, lane, gr->cand, P);
	gr->n = k->n + 1;
	memcpy(gr->px, k->px, (size_t)k->n);
	memcpy(gr->py, k->py, (size_t)k->n);
	gr->px[k->n] = (uint8_t)x;
	gr->py[k->n] = (uint8_t)y;
}

void bp_mirador_kids_child(const struct bp_mirador_grid *m, const struct bp_mirador_kids *k, int x,
			   int y, struct bp_mirador_board *cb, struct bp_mirador_greedy *gr)
{
	if (m->p == 2)
		kids_child_p(m, k, x, y, cb, gr, 2);
	else
		kids_child_p(m, k, x, y, cb, gr, m->p);
}

int bp_mirador_greedy_try(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			  const struct bp_mirador_greedy *gr, int dirs, int order)
{
	if (m->p >= 64)
		return 0; /* a piece as wide as a word: its masks do not fit (no proof) */
	uint64_t legal[BP_MIRADOR_MAX_SIDE], orow[BP_MIRADOR_MAX_SIDE], ocol[BP_MIRADOR_MAX_SIDE];
	memcpy(orow, b->orow, sizeof(uint64_t) * (size_t)m->h);
	memcpy(ocol, b->ocol, sizeof(uint64_t) * (size_t)m->w);
	const uint64_t *from = order >= 4 ? gr->cand : gr->legal;
	order &= 3;
	if (order < 2) {
		memcpy(legal, from, sizeof(uint64_t) * (size_t)m->ny);
		pack_lines(legal, m->ny, m->p, order, orow, ocol);
	} else { /* column by column: bit y of legal[x] */
		memset(legal, 0, sizeof(uint64_t) * (size_t)m->nx);
		for (int y = 0; y < m->ny; y++)
			for (uint64_t v = from[y]; v; v &= v - 1)
				legal[__builtin_ctzll(v)] |= 1ull << y;
		pack_lines(legal, m->nx, m->p, order - 2, ocol, orow);
	}
	return !has_chain(m, b, gr->colour, gr, orow, ocol, dirs);
}

int bp_mirador_greedy_breaks(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			     int colour, int dirs, int order)
{
	struct bp_mirador_greedy gr;
	bp_mirador_greedy_prepare(m, b, colour, &gr);
	return bp_mirador_greedy_try(m, b, &gr, dirs, order);
}

int bp_mirador_chain_test(const struct bp_mirador_grid *m, const struct bp_mirador_board *b,
			  const struct bp_mirador_net *t, int colour, int dirs,
			  struct bp_mirador_verdict *out)
{
	unsigned char buf[SCRATCH];
	struct search s = { .m = m, .out = out, .dirs = dirs, .buf = buf };
	int W = m->w, P = m->p, rc;
	int *pk = NULL, *pv = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = graph_open(&s, t, 0)))
		goto out;
	s.ncover = scratch(&s, sizeof(int) * ((size_t)t->nlanes + 1), 1);
	s.navail = scratch(&s, sizeof(int) * ((size_t)t->nlanes + 1), 1);
	if (!s.ncover || !s.navail) {
		rc = BP_ENOMEM;
		goto out;
	}

	/* does any chain exist at all? */
	link_weights(&s);
	out->chains = chain_mask(&s);
	if (!(out->chains & dirs))
		goto out;

	/* candidates: the opponent's legal placements covering a lane square, with the
	 * lanes each covers (pk, pv: candidate, lane pairs) */
	uint64_t legal[BP_MIRADOR_MAX_SIDE];
	bp_mirador_board_legal(m, b, 1 - colour, legal);
	int cid[BP_MIRADOR_MAX_CELLS];
	for (int i = 0; i < m->ncells; i++)
		cid[i] = -1;
	int cap = 256, np = 0;
	pk = malloc(sizeof(int) * (size_t)cap);
	pv = malloc(sizeof(int) * (size_t)cap);
	s.cand_cell = scratch(&s, sizeof(int) * (size_t)(m->nx * m->ny + 1), 0);
	if (!pk || !pv || !s.cand_cell) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (int ln = 0; ln < t->nlanes; ln++) {
		const struct bp_mirador_lane *l = &t->lanes[ln];
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
				if (np == cap && (rc = grow_pairs(&pk, &pv, &cap)))
					goto out;
				pk[np] = cid[cell];
				pv[np++] = ln;
			}
	}
	if ((rc = csr(&s, s.ncand, pk, pv, np, &s.cl0, &s.cl)) ||
	    (rc = csr(&s, t->nlanes, pv, pk, np, &s.lc0, &s.lc)))
		goto out;
	/* the candidates' incompatibilities are found when one is taken (conflicts) */
	s.cid = cid;
	s.off = scratch(&s, sizeof(int) * 2 * (size_t)(2 * P + 1) * (size_t)(2 * P + 1), 0);
	if (!s.off) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (int dy = -P; dy <= P; dy++)
		for (int dx = -P; dx <= P; dx++)
			if ((dx || dy) && incompatible(P, dx, dy)) {
				s.off[2 * s.noff] = dx;
				s.off[2 * s.noff + 1] = dy;
				s.noff++;
			}
	s.score = scratch(&s, sizeof(int) * (size_t)(s.ncand + 1), 0);
	s.conf = scratch(&s, sizeof(int) * ((size_t)s.ncand + 1), 1);
	s.in_t = scratch(&s, (size_t)s.ncand + 1, 1);
	s.excl = scratch(&s, (size_t)s.ncand + 1, 1);
	s.mark = scratch(&s, (size_t)s.ncand + 1, 1);
	s.t = scratch(&s, sizeof(int) * (size_t)(s.ncand + 1), 0);
	if (!s.score || !s.conf || !s.in_t || !s.excl || !s.mark || !s.t) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (int c = 0; c < s.ncand; c++)
		s.score[c] = s.cl0[c + 1] - s.cl0[c];
	for (int ln = 0; ln < t->nlanes; ln++)
		s.navail[ln] = s.lc0[ln + 1] - s.lc0[ln];
	out->unbreakable = !breakable(&s);
	out->nodes = s.nodes;
	if (s.oom)
		rc = BP_ENOMEM;
out:
	free(pk);
	free(pv);
	free(s.stack);
	graph_close(&s);
	if (rc)
		memset(out, 0, sizeof *out);
	return rc;
}
