/* SPDX-License-Identifier: MIT */
/* The cycles engine (solver/cyclic.c) against the tiers engine on acyclic games (one
 * content hash from two independent algorithms), and on games that repeat against
 * a textbook retrograde analysis with predecessor lists and child counters. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/cyclic.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/verify.h"
#include "tests/support.h"

/* The cycle-aware solver, run on acyclic games, must store exactly what the tiered
 * solver stores: two independent algorithms, one content hash. */
ParameterizedTestParameters(cyclic, agrees_with_tiered_solver)
{
	static char specs[][64] = {
		"taifas:3x3",	"taifas:2x4,tie=draw", "taifas:3x3,tie=last-stone",
		"chicken:hex2", "glorieta:hex2",       "mirador:4x4"
	};
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], cyclic, agrees_with_tiered_solver)
{
	struct bp_game *g = open_game(*spec);
	char *a = temp_db(), *b = temp_db();
	struct bp_solve_result ra, rb;
	/* the dense index, as bp_solve_cycles has (Mirador's default is its reachable
	 * positions: BP_GAME_SPARSE_FIRST) */
	ra = solve_into(a, g,
			(struct bp_solve_opts){
				.threads = 2, .block_records = 512, .index = BP_INDEX_DENSE });
	bp_store *db;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(b, BP_STORE_CREATE, &db, &err), BP_OK);
	struct bp_solve_opts o = { .threads = 2, .block_records = 512 };
	cr_assert_eq(bp_solve_cycles(g, db, &o, &rb, &err), BP_OK, "%s", err.msg);
	bp_store_close(db);
	cr_expect_eq(ra.value, rb.value);
	cr_expect_eq(ra.remoteness, rb.remoteness);
	cr_expect_eq(ra.positions, rb.positions);
	struct bp_verify_report va = verify_db(a, g), vb = verify_db(b, g);
	cr_expect_eq(vb.inconsistencies, 0);
	cr_expect_eq(va.content_hash, vb.content_hash, "%s: tiered and cyclic solvers differ",
		     *spec);
	remove_db(a);
	remove_db(b);
	bp_game_destroy(g);
}

/* ---- cyclic games: a second, classic algorithm ----------------------------------
 * The explicit graph of every reachable raw position (no symmetry), then retrograde
 * analysis with predecessor lists and child counters from a FIFO queue: the textbook
 * method, independent of the level passes in solver/cyclic.c. */

struct graph {
	struct memo ids; /* position -> index (in .rem) */
	struct bp_pos *pos;
	uint32_t *child_start, *child; /* CSR children */
	uint32_t *pred_start, *pred;   /* CSR predecessors */
	uint32_t n, nedges;
};

static uint32_t graph_id(struct graph *gr, const struct bp_pos *p, int *fresh)
{
	struct memo_entry *e = memo_slot(&gr->ids, p);
	*fresh = !e->used;
	if (!e->used) {
		e->used = 1;
		e->pos = *p;
		e->rem = gr->n;
		gr->pos[gr->n++] = *p;
		cr_assert_lt(gr->n, gr->ids.cap / 2, "graph too large for the test");
	}
	return e->rem;
}

ParameterizedTestParameters(cyclic, agrees_with_counter_retrograde)
{
	/* blooms:hex2 has 420,797 reachable states, the largest here */
	static char specs[][64] = { "blooms:tri2", "blooms:rh2x3", "blooms:tri3", "blooms:hex2",
				    "taifas:2x3" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], cyclic, agrees_with_counter_retrograde)
{
	struct bp_game *g = open_game(*spec);
	struct graph gr = { .ids = { .cap = 1 << 20 } };
	gr.ids.e = calloc(gr.ids.cap, sizeof *gr.ids.e);
	gr.pos = malloc(sizeof *gr.pos * (gr.ids.cap / 2));
	size_t edge_cap = 1 << 24;
	gr.child = malloc(sizeof *gr.child * edge_cap);
	gr.child_start = malloc(sizeof *gr.child_start * (gr.ids.cap / 2 + 1));
	cr_assert(gr.ids.e && gr.pos && gr.child && gr.child_start);
	struct bp_move *mv = bp_game_move_buffer(g);
	struct bp_pos start;
	int fresh;
	g->ops->start(g, &start);
	graph_id(&gr, &start, &fresh);
	/* breadth-first: node i's children are listed when node i is expanded, in order */
	for (uint32_t i = 0; i < gr.n; i++) {
		gr.child_start[i] = gr.nedges;
		if (g->ops->outcome(g, &gr.pos[i]) != BP_VALUE_NONE)
			continue;
		int k = g->ops->moves(g, &gr.pos[i], mv);
		for (int j = 0; j < k; j++) {
			struct bp_pos c = gr.pos[i];
			g->ops->apply(g, &c, mv[j]);
			cr_assert_lt(gr.nedges, edge_cap, "too many edges for the test");
			gr.child[gr.nedges++] = graph_id(&gr, &c, &fresh);
		}
	}
	gr.child_start[gr.n] = gr.nedges;
	uint32_t n = gr.n;
	gr.pred_start = calloc(n + 1, sizeof *gr.pred_start);
	gr.pred = malloc(sizeof *gr.pred * (gr.nedges ? gr.nedges : 1));
	for (uint32_t e = 0; e < gr.nedges; e++)
		gr.pred_start[gr.child[e] + 1]++;
	for (uint32_t i = 0; i < n; i++)
		gr.pred_start[i + 1] += gr.pred_start[i];
	uint32_t *fill = calloc(n, sizeof *fill);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t e = gr.child_start[i]; e < gr.child_start[i + 1]; e++)
			gr.pred[gr.pred_start[gr.child[e]] + fill[gr.child[e]]++] = i;
	enum bp_value *val = calloc(n, sizeof *val);
	unsigned *rem = calloc(n, sizeof *rem);
	uint32_t *left = malloc(sizeof *left * n), *queue = malloc(sizeof *queue * n), head = 0,
		 tail = 0;
	for (uint32_t i = 0; i < n; i++) {
		left[i] = gr.child_start[i + 1] - gr.child_start[i];
		enum bp_value v = g->ops->outcome(g, &gr.pos[i]);
		if (v == BP_VALUE_WIN || v == BP_VALUE_LOSS) {
			val[i] = v;
			queue[tail++] = i;
		} else if (v == BP_VALUE_DRAW) {
			val[i] = v; /* terminal draws: spread in the draw phase below */
		}
	}
	while (head < tail) {
		uint32_t v = queue[head++];
		for (uint32_t e = gr.pred_start[v]; e < gr.pred_start[v + 1]; e++) {
			uint32_t u = gr.pred[e];
			if (val[u])
				continue;
			if (val[v] == BP_VALUE_LOSS) {
				val[u] = BP_VALUE_WIN;
				rem[u] = rem[v] + 1;
				queue[tail++] = u;
			} else if (--left[u] == 0) {
				val[u] = BP_VALUE_LOSS;
				rem[u] = rem[v] + 1; /* FIFO order: v is the slowest win */
				queue[tail++] = u;
			}
		}
	}
	/* draws: fewest turns to a terminal draw through draws, else by repetition */
	head = tail = 0;
	for (uint32_t i = 0; i < n; i++)
		if (val[i] == BP_VALUE_DRAW)
			queue[tail++] = i;
	unsigned *drem = malloc(sizeof *drem * n);
	for (uint32_t i = 0; i < n; i++)
		drem[i] = val[i] == BP_VALUE_DRAW ? 0 : BP_RECORD_NO_REMOTENESS;
	while (head < tail) {
		uint32_t v = queue[head++];
		for (uint32_t e = gr.pred_start[v]; e < gr.pred_start[v + 1]; e++) {
			uint32_t u = gr.pred[e];
			if (val[u] || drem[u] != BP_RECORD_NO_REMOTENESS)
				continue;
			drem[u] = drem[v] + 1;
			queue[tail++] = u;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (!val[i] || val[i] == BP_VALUE_DRAW) {
			val[i] = BP_VALUE_DRAW;
			rem[i] = drem[i];
		}
	char *dir = temp_db();
	bp_store *db;
	bp_table *t;
	struct bp_err err = { { 0 } };
	struct bp_solve_result res;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK);
	struct bp_solve_opts o = { .threads = 2 };
	cr_assert_eq(bp_solve_cycles(g, db, &o, &res, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	uint64_t repetition = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct bp_probe pr;
		cr_assert_eq(bp_probe_position(g, t, &gr.pos[i], &pr), BP_OK,
			     "%s: a reachable position is not stored", *spec);
		if (pr.value != val[i] || pr.remoteness != rem[i]) {
			struct bp_text pt = { 0 };
			g->ops->pos_format(g, &gr.pos[i], &pt);
			cr_assert_fail("%s: '%s': table says %s in %u, counters say %s in %u",
				       *spec, bp_text_str(&pt), bp_value_name(pr.value),
				       pr.remoteness, bp_value_name(val[i]), rem[i]);
		}
		repetition += val[i] == BP_VALUE_DRAW && rem[i] == BP_RECORD_NO_REMOTENESS;
	}
	printf("%s: %u reachable positions, %u moves, %llu draws by repetition; start %s in %u\n",
	       *spec, n, gr.nedges, (unsigned long long)repetition, bp_value_name(val[0]), rem[0]);
	bp_table_close(t);
	bp_store_close(db);
	struct bp_verify_report vr = verify_db(dir, g);
	cr_expect_eq(vr.inconsistencies, 0);
	remove_db(dir);
	free(val);
	free(rem);
	free(drem);
	free(left);
	free(queue);
	free(fill);
	free(gr.pred);
	free(gr.pred_start);
	free(gr.child);
	free(gr.child_start);
	free(gr.pos);
	free(gr.ids.e);
	free(mv);
	bp_game_destroy(g);
}
