/* SPDX-License-Identifier: MIT */
/* Depth-first, one move buffer per level, counting the last level in bulk (the
 * number of moves of each node one level up) instead of visiting it. */
#include "solver/games/perft.h"

#include <stdlib.h>

struct perft {
	const struct bp_game *g;
	int depth;
	uint64_t *counts;
	struct bp_move *buf; /* depth levels of g->max_moves moves */
	int overflow;
};

static void walk(struct perft *w, const struct bp_pos *p, int d)
{
	if (w->g->ops->outcome(w->g, p) != BP_VALUE_NONE || d == w->depth)
		return;
	struct bp_move *mv = w->buf + (size_t)d * (size_t)w->g->max_moves;
	int n = w->g->ops->moves(w->g, p, mv);
	if (__builtin_add_overflow(w->counts[d + 1], (uint64_t)n, &w->counts[d + 1]))
		w->overflow = 1;
	if (d + 1 == w->depth)
		return;
	for (int i = 0; i < n && !w->overflow; i++) {
		struct bp_pos c = *p;
		w->g->ops->apply(w->g, &c, mv[i]);
		walk(w, &c, d + 1);
	}
}

int bp_perft(const struct bp_game *g, const struct bp_pos *p, int depth, uint64_t *counts)
{
	struct perft w = { .g = g, .depth = depth, .counts = counts };
	for (int d = 0; d <= depth; d++)
		counts[d] = 0;
	counts[0] = 1;
	if (depth == 0)
		return BP_OK;
	w.buf = malloc(sizeof(struct bp_move) * (size_t)g->max_moves * (size_t)depth);
	if (!w.buf)
		return BP_ENOMEM;
	walk(&w, p, 0);
	free(w.buf);
	int failed = bp_game_status(g);
	return failed ? failed : w.overflow ? BP_ERANGE : BP_OK;
}
