/* SPDX-License-Identifier: MIT */
/* A deliberately naive solver for the tests of the games that have a naive second
 * implementation of their rules (the Glorieta family): plain memoized minimax by the
 * definitions of RULES.md section 10 over the naive states, keyed by their position
 * text, with no symmetry, no ranking and nothing of the game's fast code. Every
 * position it reaches is then looked up, by its text, in tables that the real solvers
 * stored, and must have the same value and remoteness. */
#ifndef BP_TESTS_NAIVE_SOLVE_H
#define BP_TESTS_NAIVE_SOLVE_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solver/probe.h"
#include "solver/solve.h"
#include "tests/support.h"

/* A naive game: states are `size` bytes, copied freely. */
struct naive_game {
	size_t size;
	int max_children;
	const void *rules;
	/* every child state of s, one per legal turn, written one after another */
	int (*children)(const void *rules, const void *s, void *out);
	/* BP_VALUE_NONE while the game goes on */
	enum bp_value (*outcome)(const void *rules, const void *s);
	/* the position text of RULES.md section 2 */
	void (*text)(const void *rules, const void *s, char *out);
};

#define NAIVE_TEXT 160

struct naive_entry {
	char text[NAIVE_TEXT];
	enum bp_value value;
	unsigned rem;
	int used;
};

struct naive_memo {
	struct naive_entry *e;
	size_t cap, n;
};

static inline uint64_t naive_text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static inline struct naive_entry *naive_slot(struct naive_memo *m, const char *text)
{
	size_t i = naive_text_hash(text) & (m->cap - 1);
	while (m->e[i].used && strcmp(m->e[i].text, text) != 0)
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

/* Value and remoteness of s for the player to move: a win as fast as possible, else a
 * draw as fast as possible, else a loss as slowly as possible. */
static inline void naive_minimax(const struct naive_game *ng, struct naive_memo *m, const void *s,
				 enum bp_value *v, unsigned *rem)
{
	char text[NAIVE_TEXT];
	ng->text(ng->rules, s, text);
	cr_assert_lt(strlen(text), NAIVE_TEXT - 1);
	struct naive_entry *slot = naive_slot(m, text);
	if (slot->used) {
		*v = slot->value;
		*rem = slot->rem;
		return;
	}
	enum bp_value best = ng->outcome(ng->rules, s);
	unsigned best_rem = 0;
	if (best == BP_VALUE_NONE) {
		char *kids = malloc(ng->size * (size_t)ng->max_children);
		cr_assert_not_null(kids);
		int n = ng->children(ng->rules, s, kids);
		cr_assert_gt(n, 0, "'%s' is not over but has no turn", text);
		for (int i = 0; i < n; i++) {
			enum bp_value cv;
			unsigned cr;
			naive_minimax(ng, m, kids + (size_t)i * ng->size, &cv, &cr);
			enum bp_value mine = bp_value_flip(cv);
			if (prefer_move(best, best_rem, mine, cr + 1)) {
				best = mine;
				best_rem = cr + 1;
			}
		}
		free(kids);
	}
	slot = naive_slot(m, text); /* the recursion may have filled the probe path */
	cr_assert_lt(m->n, m->cap / 2, "naive memo full");
	snprintf(slot->text, sizeof slot->text, "%s", text);
	slot->used = 1;
	slot->value = best;
	slot->rem = best_rem;
	m->n++;
	*v = best;
	*rem = best_rem;
}

/* Solves g with the tiers engine and with the cycles engine into fresh
 * databases, runs the naive minimax from start, and checks that both tables hold the
 * naive value and remoteness of every position it reached. Returns that count. */
static inline size_t naive_check_solvers(const struct bp_game *g, const struct naive_game *ng,
					 const void *start, size_t cap)
{
	struct naive_memo m = { .cap = cap };
	m.e = calloc(cap, sizeof *m.e);
	cr_assert_not_null(m.e);
	enum bp_value v;
	unsigned rem;
	naive_minimax(ng, &m, start, &v, &rem);
	for (int engine = 0; engine < 2; engine++) {
		char *dir = temp_db();
		bp_store *db;
		struct bp_err err = { { 0 } };
		struct bp_solve_result r;
		struct bp_solve_opts o = { .threads = 2,
					   .block_records = 512,
					   .engine = engine == 0 ? BP_ENGINE_TIERS
								 : BP_ENGINE_CYCLES };
		cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK, "%s", err.msg);
		int rc = bp_solve(g, db, &o, &r, &err);
		cr_assert_eq(rc, BP_OK, "%s: %s", g->spec, err.msg);
		cr_expect_eq(r.value, v, "%s engine %d: start value", g->spec, engine);
		cr_expect_eq(r.remoteness, rem, "%s engine %d: start remoteness", g->spec, engine);
		bp_table *t;
		cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, &err), BP_OK,
			     "%s", err.msg);
		bp_probe_set_holes(t, g);
		for (size_t i = 0; i < m.cap; i++) {
			if (!m.e[i].used)
				continue;
			struct bp_pos p = parse_pos(g, m.e[i].text);
			struct bp_probe pr;
			cr_assert_eq(bp_probe_position(g, t, &p, &pr), BP_OK,
				     "%s: '%s' is not in the table", g->spec, m.e[i].text);
			if (pr.value != m.e[i].value || pr.remoteness != m.e[i].rem)
				cr_assert_fail("%s engine %d: '%s': table %s in %u, naive %s in %u",
					       g->spec, engine, m.e[i].text,
					       bp_value_name(pr.value), pr.remoteness,
					       bp_value_name(m.e[i].value), m.e[i].rem);
		}
		bp_table_close(t);
		bp_store_close(db);
		remove_db(dir);
	}
	size_t n = m.n;
	free(m.e);
	return n;
}

#endif
