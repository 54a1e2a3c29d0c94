/* SPDX-License-Identifier: MIT */
/* Loop detection by flood fill from the outside (see loops.h).
 *
 * The six directions, in cyclic order around a cell, in axial coordinates; each is
 * adjacent to the next, which is what the arc test of bp_loops_may_close() needs:
 *
 *              NW (0,-1)   NE (1,-1)
 *         W (-1,0)     c      E (1,0)
 *              SW (-1,1)   SE (0,1)
 *
 * Growing a set by one step is eight byte-table lookups (the union of the neighbour
 * masks of the cells in each byte), so a flood fill costs eight loads per step
 * whatever the board's shape, and needs no shifts with per-row masks.
 *
 * The ring of hexN, walked clockwise from the corner above-left of a1 in six runs of
 * N spaces, each run starting at a corner (RULES.md section 6); for hex2:
 *
 *          0  1  2
 *        11  a1 a2  3
 *      10  b1 b2 b3  4
 *        9  c1 c2  5
 *          8  7  6
 */
#include "solver/games/loops.h"

#include <assert.h>
#include <string.h>

static const int dirs[6][2] = { { 1, 0 }, { 1, -1 }, { 0, -1 }, { -1, 0 }, { -1, 1 }, { 0, 1 } };

void bp_loops_ring_coord(int n, int i, int *q, int *r)
{
	/* run k starts at corner[k] and steps along step[k] */
	static const int corner[6][2] = { { 0, -1 }, { 1, -1 }, { 1, 0 },
					  { 0, 1 },  { -1, 1 }, { -1, 0 } };
	static const int step[6][2] = { { 1, 0 },  { 0, 1 },  { -1, 1 },
					{ -1, 0 }, { 0, -1 }, { 1, -1 } };
	int k = i / n, j = i % n;
	*q = corner[k][0] * n + step[k][0] * j;
	*r = corner[k][1] * n + step[k][1] * j;
}

/* Number of maximal runs of zero bits in a cyclic 6-bit mask (bit d: direction d). */
static int zero_arcs(unsigned m)
{
	int arcs = 0;
	for (int d = 0; d < 6; d++)
		if (!(m >> d & 1) && (m >> ((d + 5) % 6) & 1))
			arcs++;
	return arcs == 0 && m != 63 ? 1 : arcs;
}

int bp_loops_init(struct bp_loops *L, const struct bp_board *b, const uint8_t *ring)
{
	memset(L, 0, sizeof *L);
	if (b->ncells > 64)
		return BP_ERANGE;
	if (ring && b->shape != BP_SHAPE_HEX)
		return BP_EINVAL;
	int n = b->a;
	L->ncells = b->ncells;
	L->full = b->ncells == 64 ? ~0ull : (1ull << b->ncells) - 1;
	if (ring) {
		L->nring = 6 * n;
		for (int i = 0; i < L->nring; i++) {
			int q, r;
			bp_loops_ring_coord(n, i, &q, &r);
			L->ring_q[i] = (int16_t)q;
			L->ring_r[i] = (int16_t)r;
			L->ring[i] = ring[i];
		}
	}
	for (int c = 0; c < b->ncells; c++) {
		const struct bp_cell *cell = &b->cells[c];
		for (int d = 0; d < 6; d++) {
			int q = cell->q + dirs[d][0], r = cell->r + dirs[d][1];
			int to = bp_board_find(b, q, r);
			if (to >= 0) {
				L->around[c][d] = (uint8_t)to;
				L->nb[c] |= 1ull << to;
				continue;
			}
			L->edge |= 1ull << c;
			L->around[c][d] = BP_LOOPS_OUT;
			if (!ring) {
				L->open[0] |= 1ull << c;
				L->open[1] |= 1ull << c;
				continue;
			}
			for (int i = 0; i < L->nring; i++)
				if (L->ring_q[i] == q && L->ring_r[i] == r) {
					L->around[c][d] = (uint8_t)(BP_LOOPS_RING + i);
					/* a space of the other player's colour opens the cell */
					L->open[!L->ring[i]] |= 1ull << c;
				}
			if (L->around[c][d] == BP_LOOPS_OUT)
				return BP_EINVAL; /* cannot happen on hexN */
		}
	}
	for (int c = 0; c < b->ncells; c++)
		for (int d = 0; d < 6; d++) {
			int to = L->around[c][d];
			if (to >= BP_LOOPS_RING && to != BP_LOOPS_OUT)
				L->fixed_in[L->ring[to - BP_LOOPS_RING]][c] |= (uint8_t)(1u << d);
		}
	/* directions 0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE (dirs[] above) */
	for (int c = 0; c < b->ncells; c++) {
		const uint8_t *to = L->around[c];
		for (int d = 0; d < 6; d++)
			L->on_board[c] |= (uint8_t)((to[d] < BP_LOOPS_RING) << d);
		/* mod 64: NE may be cell 0 (then the pair starts at "cell -1", bit 63,
		 * which on_board clears), and the rotation takes amounts below 64 */
		int up = to[1] < BP_LOOPS_RING ? to[1] - 1 : to[2] < BP_LOOPS_RING ? to[2] : 0;
		int down = to[5] < BP_LOOPS_RING ? to[5] - 1 : to[4] < BP_LOOPS_RING ? to[4] : 0;
		L->up_base[c] = (uint8_t)(up & 63);
		L->down_base[c] = (uint8_t)(down & 63);
	}
	for (unsigned i = 0; i < 64; i++)
		L->dir_of[i] = (uint8_t)((i & 1) << 3 | (i >> 1 & 1) | (i >> 2 & 1) << 2 |
					 (i >> 3 & 1) << 1 | (i >> 4 & 1) << 4 | (i >> 5 & 1) << 5);
	for (unsigned m = 0; m < 64; m++)
		L->multi_arc[m] = zero_arcs(m) > 1;
	for (int byte = 0; byte < 8; byte++)
		for (int v = 0; v < 256; v++) {
			uint64_t m = 0;
			for (int bit = 0; bit < 8; bit++)
				if (v >> bit & 1 && byte * 8 + bit < b->ncells)
					m |= L->nb[byte * 8 + bit];
			L->grow_tab[byte][v] = m;
		}
	return BP_OK;
}

uint64_t bp_loops_flood(const struct bp_loops *L, uint64_t region, uint64_t seed)
{
	uint64_t m = seed & region, prev;
	do {
		prev = m;
		m = bp_loops_grow(L, m) & region;
	} while (m != prev);
	return m;
}

/* Section 3 of RULES.md version 2: the board cells that cannot reach the outside by a
 * path avoiding every cell of g but themselves. A cell outside g is such a cell when
 * the free cells' flood from the open cells misses it (a hole); a cell of g, when it
 * is not open itself and no neighbour of it is reached (all six neighbours are in g or
 * in holes). Either kind exists exactly when g holds a loop. */
static uint64_t enclosed_open(const struct bp_loops *L, uint64_t g, uint64_t open)
{
	uint64_t free_ = L->full & ~g;
	uint64_t reach = bp_loops_flood(L, free_, open & free_);
	return (free_ & ~reach) | (g & ~open & ~bp_loops_grow(L, reach));
}

uint64_t bp_loops_enclosed(const struct bp_loops *L, int player, uint64_t g)
{
	return enclosed_open(L, g, L->open[player]);
}

void bp_loops_groups_init(const struct bp_loops *L, int player, uint64_t g,
			  struct bp_loops_groups *G)
{
	assert(L->nring == 0);
	G->g = g;
	G->found = 0;
	G->n = 0;
	G->last_free = 0;
	for (uint64_t y = g & ~L->open[player]; y; y &= y - 1) {
		uint64_t f = L->nb[__builtin_ctzll(y)] & ~g;
		if (f && !(f & (f - 1)))
			G->last_free |= f;
	}
}

int bp_loops_arcs_share_group(const struct bp_loops *L, struct bp_loops_groups *G, int c,
			      unsigned in)
{
	/* the first direction of each member arc (a member whose predecessor is not);
	 * each cell's group is flooded when first asked */
	unsigned starts = in & ~((in << 1 | in >> 5) & 63);
	uint64_t seen = 0;
	for (; starts; starts &= starts - 1) {
		int y = L->around[c][__builtin_ctz(starts)], i = 0;
		if (G->found >> y & 1)
			while (!(G->comp[i] >> y & 1))
				i++;
		else {
			uint64_t comp = bp_loops_flood(L, G->g, 1ull << y);
			G->found |= comp;
			G->comp[i = G->n++] = comp;
		}
		if (seen >> i & 1)
			return 1;
		seen |= 1ull << i;
	}
	return 0;
}

int bp_loops_loop_groups(const struct bp_loops *L, int player, uint64_t g, uint64_t *loop_cells)
{
	/* Nodes 0..63 are board cells, 64.. ring spaces. Components by breadth-first
	 * search over board adjacency, board-ring adjacency and consecutive ring spaces. */
	int total = L->ncells + L->nring;
	int comp[64 + 6 * 64], queue[64 + 6 * 64];
	int count = 0;
	*loop_cells = 0;
	for (int i = 0; i < total; i++)
		comp[i] = -1;
	for (int s = 0; s < total; s++) {
		int in = s < L->ncells ? (int)(g >> s & 1) : L->ring[s - L->ncells] == player;
		if (!in || comp[s] >= 0)
			continue;
		int head = 0, tail = 0;
		uint64_t board = 0, ring_in[6] = { 0 };
		queue[tail++] = s;
		comp[s] = s;
		while (head < tail) {
			int v = queue[head++];
			int nbs[8], k = 0;
			if (v < L->ncells) {
				board |= 1ull << v;
				for (int d = 0; d < 6; d++) {
					int to = L->around[v][d];
					if (to < BP_LOOPS_RING && g >> to & 1)
						nbs[k++] = to;
					else if (to >= BP_LOOPS_RING && to != BP_LOOPS_OUT &&
						 L->ring[to - BP_LOOPS_RING] == player)
						nbs[k++] = L->ncells + to - BP_LOOPS_RING;
				}
			} else {
				int i = v - L->ncells;
				ring_in[i / 64] |= 1ull << (i % 64);
				int a = (i + 1) % L->nring, z = (i + L->nring - 1) % L->nring;
				if (L->ring[a] == player)
					nbs[k++] = L->ncells + a;
				if (L->ring[z] == player)
					nbs[k++] = L->ncells + z;
				for (int c = 0; c < L->ncells; c++)
					for (int d = 0; d < 6; d++)
						if (L->around[c][d] == BP_LOOPS_RING + i &&
						    g >> c & 1)
							nbs[k++] = c;
			}
			for (int j = 0; j < k; j++)
				if (comp[nbs[j]] < 0) {
					comp[nbs[j]] = s;
					queue[tail++] = nbs[j];
				}
		}
		/* this group alone: the cells next to a ring space outside it are open */
		uint64_t open = L->nring ? 0 : L->edge;
		for (int c = 0; L->nring && c < L->ncells; c++)
			for (int d = 0; d < 6; d++) {
				int to = L->around[c][d];
				if (to >= BP_LOOPS_RING && to != BP_LOOPS_OUT) {
					int i = to - BP_LOOPS_RING;
					if (!(ring_in[i / 64] >> (i % 64) & 1))
						open |= 1ull << c;
				}
			}
		if (enclosed_open(L, board, open)) {
			*loop_cells |= board;
			count++;
		}
	}
	return count;
}

static void list_cells(const struct bp_board *b, uint64_t m, struct bp_text *json,
		       struct bp_text *text)
{
	char name[16];
	bp_text_printf(json, "[");
	for (int first = 1; m; m &= m - 1, first = 0) {
		bp_board_cell_name(b, __builtin_ctzll(m), name, sizeof name);
		bp_text_printf(json, "%s\"%s\"", first ? "" : ", ", name);
		if (text)
			bp_text_printf(text, " %s", name);
	}
	bp_text_printf(json, "]");
}

void bp_loops_describe(const struct bp_loops *L, const struct bp_board *b, const uint64_t sets[2],
		       const char *names, struct bp_text *json, struct bp_text *text)
{
	bp_text_printf(json, "\"loops\": {");
	for (int pl = 0; pl < 2; pl++) {
		uint64_t cells;
		int n = bp_loops_loop_groups(L, pl, sets[pl], &cells);
		uint64_t enc = bp_loops_enclosed(L, pl, sets[pl]);
		bp_text_printf(json, "%s\"%c\": {\"loops\": %d, \"cells\": ", pl ? ", " : "",
			       names[pl], n);
		bp_text_printf(text, "loops %c:  %d", names[pl], n);
		if (n)
			bp_text_printf(text, ", cells");
		list_cells(b, cells, json, n ? text : NULL);
		bp_text_printf(json, ", \"enclosed\": ");
		if (enc)
			bp_text_printf(text, ", enclosing");
		list_cells(b, enc, json, enc ? text : NULL);
		bp_text_printf(json, "}");
		bp_text_printf(text, "\n");
	}
	bp_text_printf(json, "}");
}
