/* SPDX-License-Identifier: MIT */
/* Helpers every test file shares: open a game, parse a position and print one, each
 * failing the test with the library's message when the input is refused. */
#ifndef BP_TESTS_SUPPORT_H
#define BP_TESTS_SUPPORT_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/games/game.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/verify.h"
#include "store/store.h"
#include "tests/rng.h"

/* 1 in a build with AddressSanitizer, whose shadow memory and redzones make the
 * process's resident set say nothing about what the code allocates. */
#if defined(__SANITIZE_ADDRESS__)
#define BP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BP_TEST_ASAN 1
#endif
#endif
#ifndef BP_TEST_ASAN
#define BP_TEST_ASAN 0
#endif

static inline struct bp_game *open_game(const char *spec)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	int rc = bp_game_create(spec, &g, &err);
	cr_assert_eq(rc, BP_OK, "%s: %s", spec, err.msg);
	return g;
}

static inline struct bp_pos parse_pos(const struct bp_game *g, const char *text)
{
	struct bp_pos p;
	struct bp_err err = { { 0 } };
	int rc = bp_game_parse_position(g, text, &p, &err);
	cr_assert_eq(rc, BP_OK, "%s '%s': %s", g->spec, text, err.msg);
	return p;
}

/* The position's text, in a static buffer (valid until the next call). */
static inline const char *fmt_pos(const struct bp_game *g, const struct bp_pos *p)
{
	static char buf[2048];
	struct bp_text t = { 0 };
	g->ops->pos_format(g, p, &t);
	snprintf(buf, sizeof buf, "%s", bp_text_str(&t));
	bp_text_free(&t);
	return buf;
}

/* Walks every index of g's tiers 0..max_tier: each is a hole (unrank says
 * BP_ENOTFOUND) or unranks to a position that ranks back to it, lies in that tier and
 * reads back from its own text. With each_tier set, every tier must hold a position.
 * @return the positions found. */
static inline uint64_t expect_rank_round_trip(const struct bp_game *g, uint32_t max_tier,
					      int each_tier)
{
	uint64_t total = 0;
	for (uint32_t t = 0; t < g->ntiers && t <= max_tier; t++) {
		uint64_t size, valid = 0;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		for (uint64_t i = 0; i < size; i++) {
			struct bp_pos p;
			int rc = g->ops->unrank(g, t, i, &p);
			if (rc == BP_ENOTFOUND)
				continue;
			cr_assert_eq(rc, BP_OK);
			uint64_t j;
			cr_assert_eq(g->ops->rank(g, &p, &j), BP_OK);
			cr_assert_eq(i, j, "%s tier %u: %llu -> %s -> %llu", g->spec, t,
				     (unsigned long long)i, fmt_pos(g, &p), (unsigned long long)j);
			cr_assert_eq(g->ops->tier(g, &p), t);
			struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
			cr_assert(bp_pos_equal(&p, &q), "%s: unranked and parsed differ",
				  fmt_pos(g, &p));
			valid++;
		}
		if (each_tier)
			cr_expect_gt(valid, 0, "%s tier %u has no valid position", g->spec, t);
		total += valid;
	}
	return total;
}

/* The outcome of position text in game spec. */
static inline enum bp_value outcome_of(const char *spec, const char *text)
{
	struct bp_game *g = open_game(spec);
	struct bp_pos p = parse_pos(g, text);
	enum bp_value v = g->ops->outcome(g, &p);
	bp_game_destroy(g);
	return v;
}

/* Plays move from position text; copies the resulting text into result (if not NULL,
 * 2048 bytes) and returns the outcome, checking that a fresh parse of the resulting
 * text gives the same outcome. */
static inline enum bp_value after(const char *spec, const char *text, const char *move,
				  char *result)
{
	struct bp_game *g = open_game(spec);
	struct bp_pos p = parse_pos(g, text);
	struct bp_move mv;
	struct bp_err err = { { 0 } };
	cr_assert_eq(g->ops->move_parse(g, &p, move, &mv, &err), BP_OK, "%s: %s", move, err.msg);
	g->ops->apply(g, &p, mv);
	if (result)
		snprintf(result, 2048, "%s", fmt_pos(g, &p));
	enum bp_value v = g->ops->outcome(g, &p);
	struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
	cr_assert_eq(g->ops->outcome(g, &q), v, "cached and fresh outcomes differ");
	bp_game_destroy(g);
	return v;
}

/* Position text that game spec must refuse with BP_EPARSE and a message containing
 * needle (the part of the input it names). */
static inline void expect_malformed(const char *spec, const char *text, const char *needle)
{
	struct bp_game *g = open_game(spec);
	struct bp_pos p;
	struct bp_err err = { { 0 } };
	int rc = g->ops->pos_parse(g, text, &p, &err);
	cr_expect_eq(rc, BP_EPARSE, "%s: '%s' accepted", spec, text);
	cr_expect(strstr(err.msg, needle) != NULL, "%s: '%s': message '%s' lacks '%s'", spec, text,
		  err.msg, needle);
	bp_game_destroy(g);
}

/* A set of positions (open addressing; cap a power of two, at most half full), for
 * tests that walk every reachable position. */
struct pos_set {
	struct bp_pos *tab;
	char *used;
	size_t cap;
	long n;
};

static inline void pos_set_init(struct pos_set *s, size_t cap)
{
	s->tab = malloc(sizeof *s->tab * cap);
	s->used = calloc(cap, 1);
	s->cap = cap;
	s->n = 0;
	cr_assert(s->tab && s->used, "no memory for a position set of %zu", cap);
}

/* Adds p; returns 1 when it was new. */
static inline int set_insert(struct pos_set *s, const struct bp_pos *p)
{
	size_t h = bp_pos_hash(p) & (s->cap - 1);
	while (s->used[h]) {
		if (bp_pos_equal(&s->tab[h], p))
			return 0;
		h = (h + 1) & (s->cap - 1);
	}
	cr_assert_lt(s->n, (long)(s->cap / 2), "position set full");
	s->used[h] = 1;
	s->tab[h] = *p;
	s->n++;
	return 1;
}

static inline void pos_set_free(struct pos_set *s)
{
	free(s->tab);
	free(s->used);
}

/* RULES.md section 10 for the brute-force solvers of the tests: whether a move worth
 * `mine` in `rem` turns for the mover beats the best so far (BP_VALUE_NONE: none yet):
 * a win, fastest first; then a draw, fastest first; then a loss, slowest first. */
static inline int prefer_move(enum bp_value best, unsigned best_rem, enum bp_value mine,
			      unsigned rem)
{
	if (best == BP_VALUE_NONE)
		return 1;
	if (mine != best)
		return mine == BP_VALUE_WIN || (mine == BP_VALUE_DRAW && best == BP_VALUE_LOSS);
	return mine == BP_VALUE_LOSS ? rem > best_rem : rem < best_rem;
}

/* Positions as raw bytes in an open-addressing hash table (no symmetry), with a value
 * and remoteness each: the brute-force solvers of the tests memoize in it. */
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

static inline struct memo_entry *memo_slot(struct memo *m, const struct bp_pos *p)
{
	size_t i = bp_pos_hash(p) & (m->cap - 1);
	while (m->e[i].used && !bp_pos_equal(&m->e[i].pos, p))
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

/* ---- solved tables in temporary databases ---------------------------------- */

/* A fresh directory under /tmp; remove_db deletes it and frees the name. */
/* kids_child (after kids_node on p, whose images' hashes are h) on move m against the
 * three ops it stands for: the same child as apply, outcome()'s value and
 * sym_hash_move's key. Returns the child; `what` names the case in a failure. */
static inline struct bp_pos expect_kids_child(const struct bp_game *g, void *ctx,
					      const struct bp_pos *p, const uint64_t *h,
					      struct bp_move m, const char *what)
{
	struct bp_pos want = *p, got = *p;
	g->ops->apply(g, &want, m);
	enum bp_value ov;
	uint64_t key = g->ops->kids_child(g, ctx, h, &got, m, &ov);
	cr_assert(bp_pos_equal(&want, &got), "%s: kids_child differs from apply on move %#x", what,
		  m.v);
	cr_assert_eq(ov, g->ops->outcome(g, &want), "%s: kids_child's outcome on move %#x", what,
		     m.v);
	cr_assert_eq(key, g->ops->sym_hash_move(g, p, h, &want, NULL),
		     "%s: kids_child's key on move %#x", what, m.v);
	if (g->ops->kids_move_count) { /* -1, or moves()'s count of a child not over */
		int k = g->ops->kids_move_count(g, ctx);
		struct bp_move *mv = malloc(sizeof *mv * (size_t)(g->max_moves + 1));
		cr_assert(mv);
		cr_assert(k == -1 || (ov == BP_VALUE_NONE && k == g->ops->moves(g, &want, mv)),
			  "%s: kids_move_count %d on move %#x", what, k, m.v);
		free(mv);
	}
	return want;
}

/* canonical_mask of tier t (size indices, size >= 1) against want[i], the naive answer
 * for each index: the whole tier in one call, then `ranges` seeded random ranges (any
 * start, any length) drawn from *state. `spec` names the case in a failure. */
static inline void expect_canonical_mask(const struct bp_game *g, uint32_t t, uint64_t size,
					 const uint8_t *want, int ranges, uint64_t *state,
					 const char *spec)
{
	uint64_t *bits = malloc(((size + 63) / 64 + 1) * 8);
	cr_assert(bits);
	for (int r = 0; r <= ranges; r++) {
		uint64_t first = r ? splitmix64(state) % size : 0;
		uint32_t n = (uint32_t)(r ? 1 + splitmix64(state) % (size - first) : size);
		cr_assert_eq(g->ops->canonical_mask(g, t, first, n, bits), BP_OK);
		for (uint32_t i = 0; i < n; i++)
			cr_assert_eq(bits[i / 64] >> i % 64 & 1, want[first + i],
				     "%s tier %u range %llu+%u, index %llu", spec, t,
				     (unsigned long long)first, n, (unsigned long long)(first + i));
	}
	free(bits);
}

/* The naive hole test of canonical_mask's contract: index i of tier t is a valid
 * canonical position (unrank() accepts it and canonical() leaves it as it is). */
static inline int naive_valid_canonical(const struct bp_game *g, uint32_t t, uint64_t i)
{
	struct bp_pos p, q;
	if (g->ops->unrank(g, t, i, &p) != BP_OK)
		return 0;
	bp_game_canonical(g, &p, &q);
	return memcmp(&p, &q, sizeof p) == 0;
}

/* expect_canonical_mask on tiers from..to of g (to clamped to the last) against
 * naive(g, t, i) for each index (20 seeded ranges a tier from *state), and a range
 * past a tier's end refused; prints how many indices of how many were set, which must
 * be some but not all. */
static inline void expect_canonical_mask_range(const struct bp_game *g, const char *spec,
					       int (*naive)(const struct bp_game *, uint32_t,
							    uint64_t),
					       uint32_t from, uint32_t to, uint64_t *state)
{
	cr_assert(g->ops->canonical_mask, "%s has no canonical_mask", spec);
	uint64_t set = 0, all = 0;
	if (to >= g->ntiers)
		to = g->ntiers - 1;
	for (uint32_t t = from; t <= to; t++) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		if (!size)
			continue;
		uint8_t *want = malloc(size);
		cr_assert(want);
		for (uint64_t i = 0; i < size; i++)
			set += want[i] = (uint8_t)naive(g, t, i);
		all += size;
		expect_canonical_mask(g, t, size, want, 20, state, spec);
		uint64_t past;
		cr_expect_eq(g->ops->canonical_mask(g, t, size, 1, &past), BP_ERANGE);
		free(want);
	}
	printf("%s tiers %u-%u: %llu of %llu indices are valid canonical positions\n", spec, from,
	       to, (unsigned long long)set, (unsigned long long)all);
	cr_expect_gt(set, 0, "%s: no index set", spec);
	cr_expect_lt(set, all, "%s: the index has no holes", spec);
}

/* expect_canonical_mask_range over every tier of g. */
static inline void expect_canonical_mask_tiers(const struct bp_game *g, const char *spec,
					       int (*naive)(const struct bp_game *, uint32_t,
							    uint64_t),
					       uint64_t *state)
{
	expect_canonical_mask_range(g, spec, naive, 0, UINT32_MAX, state);
}

static inline char *temp_db(void)
{
	char *dir = strdup("/tmp/bp_test_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

static inline void remove_db(char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
	free(dir);
}

/* Solves g into the database at dir with o, failing the test on any error. */
static inline struct bp_solve_result solve_into(const char *dir, const struct bp_game *g,
						struct bp_solve_opts o)
{
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_solve(g, db, &o, &r, &err), BP_OK, "%s", err.msg);
	bp_store_close(db);
	return r;
}

/* verify's report on g's table in the database at dir (all cores, no callbacks). */
static inline struct bp_verify_report verify_db_opts(const char *dir, const struct bp_game *g,
						     const struct bp_verify_opts *o)
{
	bp_store *db;
	bp_table *t;
	struct bp_verify_report r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	cr_assert_eq(bp_verify(g, t, o, &r), BP_OK);
	bp_table_close(t);
	bp_store_close(db);
	return r;
}

static inline struct bp_verify_report verify_db(const char *dir, const struct bp_game *g)
{
	return verify_db_opts(dir, g, NULL);
}

#endif
