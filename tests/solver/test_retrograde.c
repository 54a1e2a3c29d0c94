/* SPDX-License-Identifier: MIT */
/* The retrograde solver against a brute-force memoized minimax (no symmetry, no tiers,
 * no ranking: positions as raw bytes in a hash table), on every reachable position of
 * tiny instances; content hashes independent of block size, compression and threads;
 * and verify catching a flipped bit in a compressed block and two swapped blocks (a
 * flipped value: tests/solver/test_verify.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/verify.h"
#include "tests/support.h"

/* ---- brute force ------------------------------------------------------------ */

struct memo_entry {
	struct bp_pos pos;
	int used;
	enum bp_value value;
	unsigned rem;
};

struct memo {
	struct memo_entry *e;
	size_t cap, n;
};

static struct memo_entry *memo_slot(struct memo *m, const struct bp_pos *p)
{
	size_t i = bp_pos_hash(p) & (m->cap - 1);
	while (m->e[i].used && !bp_pos_equal(&m->e[i].pos, p))
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

/* Value and remoteness by the definitions of RULES.md section 10, by plain recursion
 * over the game tree with memoization. */
static void minimax(const struct bp_game *g, struct memo *m, const struct bp_pos *p,
		    enum bp_value *v, unsigned *rem)
{
	struct memo_entry *slot = memo_slot(m, p);
	if (slot->used) {
		*v = slot->value;
		*rem = slot->rem;
		return;
	}
	enum bp_value out = g->ops->outcome(g, p);
	unsigned r = 0;
	if (out == BP_VALUE_NONE) {
		struct bp_move *mv = bp_game_move_buffer(g);
		int n = g->ops->moves(g, p, mv);
		cr_assert_gt(n, 0);
		enum bp_value best = BP_VALUE_NONE;
		unsigned best_rem = 0;
		for (int i = 0; i < n; i++) {
			struct bp_pos c = *p;
			enum bp_value cv;
			unsigned cr;
			g->ops->apply(g, &c, mv[i]);
			minimax(g, m, &c, &cv, &cr);
			enum bp_value mine = bp_value_flip(cv);
			/* prefer win (fastest), then draw (fastest), then loss (slowest) */
			int take = best == BP_VALUE_NONE;
			if (!take && mine != best)
				take = mine == BP_VALUE_WIN ||
				       (mine == BP_VALUE_DRAW && best == BP_VALUE_LOSS);
			else if (!take)
				take = mine == BP_VALUE_LOSS ? cr + 1 > best_rem
							     : cr + 1 < best_rem;
			if (take) {
				best = mine;
				best_rem = cr + 1;
			}
		}
		free(mv);
		out = best;
		r = best_rem;
	}
	slot = memo_slot(m, p); /* the table does not move, but the recursion filled it */
	slot->used = 1;
	slot->pos = *p;
	slot->value = out;
	slot->rem = r;
	m->n++;
	cr_assert_lt(m->n, m->cap / 2, "memo table too small");
	*v = out;
	*rem = r;
}

ParameterizedTestParameters(retrograde, agrees_with_minimax)
{
	static char specs[][64] = {
		"taifas:3x3",
		"taifas:3x3,tie=last-stone",
		"taifas:3x3,tie=draw",
		"taifas:2x4,score=fraction",
		"taifas:2x3,tie=draw,score=fraction",
		"chicken:hex2",
		"chicken:hex2,both=opponent,forced=free",
		"glorieta:hex2",
		"glorieta:hex2,ring=alt,hand=2",
		"glorieta:tri3,ring=none,hand=3,both=opponent",
		"landscape:rh3x3,neutrals=1,layout=a1",
		"landscape:hex2,neutrals=2",
		"mirador:4x4",
		"mirador:5x4,piece=1",
	};
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

/* Every reachable position, raw (not canonical), probed through the table. */
ParameterizedTest(char (*spec)[64], retrograde, agrees_with_minimax)
{
	struct bp_game *g = open_game(*spec);
	char *dir = temp_db();
	struct bp_solve_result res =
		solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 256 });
	struct memo m = { .cap = 1 << 18 }; /* the instances here have under 2^17 positions */
	m.e = calloc(m.cap, sizeof *m.e);
	cr_assert_not_null(m.e);
	struct bp_pos start;
	enum bp_value v;
	unsigned rem;
	g->ops->start(g, &start);
	minimax(g, &m, &start, &v, &rem);
	cr_expect_eq(res.value, v, "%s: start value", *spec);
	cr_expect_eq(res.remoteness, rem, "%s: start remoteness", *spec);
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	size_t checked = 0;
	for (size_t i = 0; i < m.cap; i++) {
		if (!m.e[i].used)
			continue;
		struct bp_probe pr;
		int rc = bp_probe_position(g, t, &m.e[i].pos, &pr);
		cr_assert_eq(rc, BP_OK, "%s: a reachable position is not in the table", *spec);
		if (pr.value != m.e[i].value || pr.remoteness != m.e[i].rem) {
			struct bp_text pt = { 0 };
			g->ops->pos_format(g, &m.e[i].pos, &pt);
			cr_assert_fail("%s: '%s': table says %s in %u, minimax %s in %u", *spec,
				       bp_text_str(&pt), bp_value_name(pr.value), pr.remoteness,
				       bp_value_name(m.e[i].value), m.e[i].rem);
		}
		checked++;
	}
	cr_expect_gt(checked, 0);
	struct bp_verify_report vr = verify_db(dir, g);
	cr_expect_eq(vr.inconsistencies, 0);
	cr_expect_eq(vr.corrupt_blocks, 0);
	cr_expect_eq(vr.positions_checked, res.positions);
	printf("%s: %zu reachable positions agree with minimax; %llu canonical stored\n", *spec,
	       checked, (unsigned long long)res.positions);
	bp_table_close(t);
	bp_store_close(db);
	free(m.e);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(retrograde, content_hash_independent_of_layout)
{
	struct bp_game *g = open_game("taifas:3x4");
	uint64_t first = 0;
	struct {
		int threads;
		uint32_t block;
		int level;
	} runs[] = { { 1, 64, 1 }, { 2, 65536, 19 }, { 2, 1000, 3 } };
	for (int i = 0; i < 3; i++) {
		char *dir = temp_db();
		solve_into(dir, g,
			   (struct bp_solve_opts){ .threads = runs[i].threads,
						   .block_records = runs[i].block,
						   .compression_level = runs[i].level });
		struct bp_verify_report vr = verify_db(dir, g);
		cr_expect_eq(vr.inconsistencies, 0);
		if (i == 0)
			first = vr.content_hash;
		cr_expect_eq(vr.content_hash, first, "run %d: content hash differs", i);
		remove_db(dir);
	}
	bp_game_destroy(g);
}

Test(retrograde, resume_reuses_stored_tiers)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	struct bp_solve_result a, b;
	a = solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 128 });
	cr_expect_eq(a.resumed_tiers, 0);
	b = solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .block_records = 128 });
	cr_expect_eq(b.resumed_tiers, g->ntiers);
	cr_expect_eq(a.value, b.value);
	cr_expect_eq(a.remoteness, b.remoteness);
	cr_expect_eq(a.positions, b.positions);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(retrograde, memory_limit_refused_up_front)
{
	struct bp_game *g = open_game("taifas:4x4");
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	struct bp_solve_opts o = { .threads = 1, .memory_limit = 1 << 20 };
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ERANGE);
	cr_expect(strstr(err.msg, "memory limit"), "%s", err.msg);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

/* Raw LMDB access to the table's blocks (format: store/store.c): key = tier u32 BE +
 * block u64 BE in the database named by the spec. */
static void tamper(const char *dir, const char *spec, int swap)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	cr_assert_eq(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	mdb_env_set_mapsize(env, (size_t)1 << 30);
	cr_assert_eq(mdb_env_open(env, dir, 0, 0644), 0);
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, spec, 0, &dbi), 0);
	unsigned char k1[12] = { 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0 }, k2[12];
	memcpy(k2, k1, sizeof k2);
	k2[11] = 1;
	MDB_val key1 = { sizeof k1, k1 }, key2 = { sizeof k2, k2 }, v1, v2;
	cr_assert_eq(mdb_get(txn, dbi, &key1, &v1), 0, "tier 5 block 0 not found");
	cr_assert_eq(mdb_get(txn, dbi, &key2, &v2), 0, "tier 5 block 1 not found");
	unsigned char *b1 = malloc(v1.mv_size), *b2 = malloc(v2.mv_size);
	memcpy(b1, v1.mv_data, v1.mv_size);
	memcpy(b2, v2.mv_data, v2.mv_size);
	MDB_val n1 = { v1.mv_size, b1 }, n2 = { v2.mv_size, b2 };
	if (swap) {
		cr_assert_eq(mdb_put(txn, dbi, &key1, &n2, 0), 0);
		cr_assert_eq(mdb_put(txn, dbi, &key2, &n1, 0), 0);
	} else {
		b1[v1.mv_size - 3] ^= 0x10; /* a bit inside the compressed frame */
		cr_assert_eq(mdb_put(txn, dbi, &key1, &n1, 0), 0);
	}
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	free(b1);
	free(b2);
}

static void corrupt_and_check(int swap)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *dir = temp_db();
	solve_into(dir, g,
		   (struct bp_solve_opts){
			   .threads = 1,
			   .block_records = 128 }); /* tier 5 has 7812 * 2 indices: many blocks */
	tamper(dir, g->spec, swap);
	struct bp_verify_report vr = verify_db(dir, g);
	cr_expect_geq(vr.corrupt_blocks, swap ? 2 : 1, "corrupt blocks: %llu",
		      (unsigned long long)vr.corrupt_blocks);
	/* reading the tier fails cleanly */
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	uint16_t rec;
	cr_expect_eq(bp_table_get(t, 5, 3, &rec), BP_ECORRUPT);
	bp_table_close(t);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(verify, catches_a_flipped_bit)
{
	corrupt_and_check(0);
}

Test(verify, catches_swapped_blocks)
{
	corrupt_and_check(1);
}

#include "solver/cyclic.h"

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
	ra = solve_into(a, g, (struct bp_solve_opts){ .threads = 2, .block_records = 512 });
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
