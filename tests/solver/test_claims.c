/* SPDX-License-Identifier: MIT */
/* The claim checks against answers computed here independently: values by a naive
 * memoized minimax over raw positions (no symmetry, no table), and each claim's
 * expected verdict by plain enumeration of every raw reachable position (the memo's
 * keys), with its own group counting and corner distances. Instances where claims
 * hold and where they fail; every witness is replayed from its position and checked
 * to show what it says. No verdict or count is pinned. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/claims.h"
#include "solver/reach.h"
#include "tests/support.h"

#define MEMO_CAP (1u << 18)

struct entry {
	struct bp_pos pos;
	int used;
	enum bp_value value;
	unsigned rem;
};

struct naive {
	const struct bp_game *g;
	struct entry *e;
	size_t n;
};

static struct entry *slot_of(struct naive *s, const struct bp_pos *p)
{
	size_t i = bp_pos_hash(p) & (MEMO_CAP - 1);
	while (s->e[i].used && !bp_pos_equal(&s->e[i].pos, p))
		i = (i + 1) & (MEMO_CAP - 1);
	return &s->e[i];
}

/* RULES.md section 10, by recursion: the fastest win, else the fastest draw, else the
 * slowest loss. */
static void minimax(struct naive *s, const struct bp_pos *p, enum bp_value *v, unsigned *rem)
{
	const struct bp_game *g = s->g;
	struct entry *e = slot_of(s, p);
	if (e->used) {
		*v = e->value;
		*rem = e->rem;
		return;
	}
	enum bp_value out = g->ops->outcome(g, p);
	unsigned r = 0;
	if (!out) {
		struct bp_move *mv = bp_game_move_buffer(g);
		int n = g->ops->moves(g, p, mv);
		unsigned bw = ~0u, bd = ~0u, bl = 0;
		int win = 0, draw = 0;
		for (int i = 0; i < n; i++) {
			struct bp_pos c = *p;
			enum bp_value cv;
			unsigned cr;
			g->ops->apply(g, &c, mv[i]);
			minimax(s, &c, &cv, &cr);
			if (cv == BP_VALUE_LOSS) {
				win = 1;
				bw = cr + 1 < bw ? cr + 1 : bw;
			} else if (cv == BP_VALUE_DRAW) {
				draw = 1;
				bd = cr + 1 < bd ? cr + 1 : bd;
			} else {
				bl = cr + 1 > bl ? cr + 1 : bl;
			}
		}
		free(mv);
		out = win ? BP_VALUE_WIN : draw ? BP_VALUE_DRAW : BP_VALUE_LOSS;
		r = win ? bw : draw ? bd : bl;
	}
	e = slot_of(s, p);
	e->used = 1;
	e->pos = *p;
	e->value = out;
	e->rem = r;
	cr_assert_lt(++s->n, MEMO_CAP / 2, "memo too small");
	*v = out;
	*rem = r;
}

static int naive_value(void *ctx, const struct bp_pos *p, enum bp_value *v, unsigned *rem)
{
	minimax(ctx, p, v, rem);
	return BP_OK;
}

/* Solves every raw position reachable from the start into s. */
static struct naive *naive_open(const char *spec)
{
	struct naive *s = calloc(1, sizeof *s);
	s->g = open_game(spec);
	s->e = calloc(MEMO_CAP, sizeof *s->e);
	cr_assert(s->e);
	struct bp_pos start;
	enum bp_value v;
	unsigned rem;
	s->g->ops->start(s->g, &start);
	minimax(s, &start, &v, &rem);
	return s;
}

static void naive_close(struct naive *s)
{
	struct bp_game *g = (struct bp_game *)s->g;
	free(s->e);
	free(s);
	bp_game_destroy(g);
}

static struct bp_claim check(struct naive *s, const char *name)
{
	struct bp_oracle o = { naive_value, s, NULL };
	struct bp_claim c;
	cr_assert_eq(bp_claim_check(s->g, name, &o, NULL, &c), BP_OK);
	printf("%s %s: %s; %s\n", s->g->spec, name, bp_verdict_name(c.verdict),
	       bp_text_str(&c.detail));
	return c;
}

/* Replays the witness: every move legal from its position; returns the end. */
static struct bp_pos replay(const struct bp_game *g, const struct bp_claim *c)
{
	cr_assert(c->has_witness, "%s: no witness", c->name);
	struct bp_pos p = parse_pos(g, bp_text_str(&c->witness_position));
	char *moves = strdup(bp_text_str(&c->witness_moves));
	for (char *save = NULL, *m = strtok_r(moves, " ", &save); m;
	     m = strtok_r(NULL, " ", &save)) {
		struct bp_move mv;
		struct bp_err err = { { 0 } };
		cr_assert_eq(g->ops->move_parse(g, &p, m, &mv, &err), BP_OK,
			     "%s witness: move %s: %s", c->name, m, err.msg);
		g->ops->apply(g, &p, mv);
	}
	free(moves);
	return p;
}

static enum bp_value value_of(struct naive *s, const struct bp_pos *p, unsigned *rem)
{
	enum bp_value v;
	unsigned r;
	minimax(s, p, &v, &r);
	if (rem)
		*rem = r;
	return v;
}

/* ---- no-draw -------------------------------------------------------------------- */

ParameterizedTestParameters(claims, no_draw)
{
	static char specs[][40] = { "taifas:2x2",	   "taifas:2x2,tie=draw", "taifas:2x3",
				    "taifas:3x3,tie=draw", "taifas:3x3",	  "mirador:6x6" };
	return cr_make_param_array(char[40], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[40], claims, no_draw)
{
	struct naive *s = naive_open(*spec);
	int draws = 0;
	for (size_t i = 0; i < MEMO_CAP; i++)
		draws += s->e[i].used && s->e[i].value == BP_VALUE_DRAW;
	struct bp_claim c = check(s, "no-draw");
	cr_expect_eq(c.verdict, draws ? BP_VERDICT_FAILS : BP_VERDICT_HOLDS, "%s: %d draws", *spec,
		     draws);
	struct bp_pos end = replay(s->g, &c);
	if (draws)
		cr_expect_eq(value_of(s, &end, NULL), BP_VALUE_DRAW, "witness ends in %s",
			     fmt_pos(s->g, &end));
	else
		cr_expect_neq(s->g->ops->outcome(s->g, &end), BP_VALUE_NONE, "line not finished");
	bp_claim_free(&c);
	naive_close(s);
}

/* ---- first-player and pie ------------------------------------------------------- */

ParameterizedTestParameters(claims, first_player_and_pie)
{
	static char specs[][40] = { "taifas:2x2",	   "taifas:2x2,tie=draw", "taifas:3x3",
				    "taifas:3x3,tie=draw", "mirador:6x6",	  "chicken:hex2" };
	return cr_make_param_array(char[40], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[40], claims, first_player_and_pie)
{
	struct naive *s = naive_open(*spec);
	const struct bp_game *g = s->g;
	struct bp_pos start;
	g->ops->start(g, &start);
	struct bp_claim c = check(s, "first-player");
	cr_expect_eq(c.verdict, value_of(s, &start, NULL) == BP_VALUE_WIN ? BP_VERDICT_HOLDS
									  : BP_VERDICT_FAILS);
	struct bp_pos end = replay(g, &c);
	cr_expect_neq(g->ops->outcome(g, &end), BP_VALUE_NONE, "perfect line not finished");
	bp_claim_free(&c);

	/* the pie: a drawing opening keeps a draw; every winning one is taken over */
	c = check(s, "pie");
	if (!(g->ops->flags & BP_GAME_PIE)) {
		cr_expect_eq(c.verdict, BP_VERDICT_NA);
	} else {
		struct bp_move *mv = bp_game_move_buffer(g);
		int n = g->ops->moves(g, &start, mv), fair = 0;
		for (int i = 0; i < n; i++) {
			struct bp_pos ch = start;
			g->ops->apply(g, &ch, mv[i]);
			fair |= value_of(s, &ch, NULL) == BP_VALUE_DRAW;
		}
		free(mv);
		cr_expect_eq(c.verdict, fair ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS);
		end = replay(g, &c);
		enum bp_value v = bp_value_flip(value_of(s, &end, NULL)); /* for its maker */
		cr_expect_eq(v == BP_VALUE_DRAW, fair != 0, "the witness opening is a %s",
			     bp_value_name(v));
	}
	bp_claim_free(&c);
	naive_close(s);
}

/* ---- fewer-groups --------------------------------------------------------------- */

/* Groups of one stone character, by a flood fill of its own. */
static int count_groups(const struct bp_game *g, const struct bp_pos *p, char ch)
{
	const struct bp_board *b = g->board;
	int seen[64] = { 0 }, n = 0, stack[64];
	for (int c = 0; c < b->ncells; c++) {
		if (seen[c] || g->ops->cell_char(g, p, c) != ch)
			continue;
		n++;
		int top = 0;
		stack[top++] = c;
		seen[c] = 1;
		while (top) {
			int x = stack[--top];
			for (int k = 0; k < b->cells[x].degree; k++) {
				int y = b->cells[x].nb[k];
				if (!seen[y] && g->ops->cell_char(g, p, y) == ch) {
					seen[y] = 1;
					stack[top++] = y;
				}
			}
		}
	}
	return n;
}

/* 1 when the finished position p contradicts "fewer groups win". */
static int contradicts(const struct bp_game *g, const struct bp_pos *p)
{
	const char *text = fmt_pos(g, p);
	char mover = strchr(text, ' ')[1]; /* Taifas: the colour owned by the mover */
	int mine = count_groups(g, p, mover), theirs = count_groups(g, p, mover == 'x' ? 'o' : 'x');
	enum bp_value out = g->ops->outcome(g, p);
	return mine != theirs && out != (mine < theirs ? BP_VALUE_WIN : BP_VALUE_LOSS);
}

ParameterizedTestParameters(claims, fewer_groups)
{
	static char specs[][40] = { "taifas:2x2",	   "taifas:2x3",
				    "taifas:3x3",	   "taifas:3x3,tie=last-stone",
				    "taifas:2x2,tie=draw", "taifas:3x3,score=fraction" };
	return cr_make_param_array(char[40], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[40], claims, fewer_groups)
{
	struct naive *s = naive_open(*spec);
	int against = 0;
	for (size_t i = 0; i < MEMO_CAP; i++)
		if (s->e[i].used && s->g->ops->outcome(s->g, &s->e[i].pos))
			against += contradicts(s->g, &s->e[i].pos);
	struct bp_claim c = check(s, "fewer-groups");
	cr_expect_eq(c.verdict, against ? BP_VERDICT_FAILS : BP_VERDICT_HOLDS, "%s: %d against",
		     *spec, against);
	if (against) {
		struct bp_pos end = replay(s->g, &c);
		cr_expect(contradicts(s->g, &end), "witness %s does not contradict",
			  fmt_pos(s->g, &end));
	}
	bp_claim_free(&c);
	naive_close(s);
}

/* ---- board-fills: perfect-play lines counted by plain recursion ----------------- */

static int full(const struct bp_game *g, const struct bp_pos *p)
{
	for (int c = 0; c < g->board->ncells; c++)
		if (g->ops->cell_char(g, p, c) == '.')
			return 0;
	return 1;
}

static void count_lines(struct naive *s, const struct bp_pos *p, double *lines, double *filled)
{
	const struct bp_game *g = s->g;
	if (g->ops->outcome(g, p)) {
		*lines += 1;
		*filled += full(g, p);
		return;
	}
	enum bp_value v;
	unsigned rem;
	minimax(s, p, &v, &rem);
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = g->ops->moves(g, p, mv);
	for (int i = 0; i < n; i++) {
		struct bp_pos c = *p;
		enum bp_value cv;
		unsigned cr;
		g->ops->apply(g, &c, mv[i]);
		minimax(s, &c, &cv, &cr);
		if (bp_value_flip(cv) == v && cr + 1 == rem) /* one of the best moves */
			count_lines(s, &c, lines, filled);
	}
	free(mv);
}

static double json_number(const struct bp_claim *c, const char *key)
{
	const char *at = strstr(bp_text_str(&c->json), key);
	cr_assert(at, "%s missing in %s", key, bp_text_str(&c->json));
	return strtod(at + strlen(key) + 2, NULL); /* past ": " */
}

ParameterizedTestParameters(claims, board_fills)
{
	static char specs[][40] = { "taifas:2x3", "mirador:6x6", "chicken:hex2" };
	return cr_make_param_array(char[40], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[40], claims, board_fills)
{
	struct naive *s = naive_open(*spec);
	struct bp_pos start;
	s->g->ops->start(s->g, &start);
	double lines = 0, filled = 0;
	count_lines(s, &start, &lines, &filled);
	struct bp_claim c = check(s, "board-fills");
	cr_expect_eq(json_number(&c, "\"perfect_lines\""), lines);
	cr_expect_eq(json_number(&c, "\"perfect_lines_filled\""), filled);
	double random = json_number(&c, "\"random_filled\"") / json_number(&c, "\"random_games\"");
	cr_expect_eq(c.verdict,
		     filled / lines < 0.1 && random < 0.1 ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS);
	struct bp_pos end = replay(s->g, &c);
	cr_expect_neq(s->g->ops->outcome(s->g, &end), BP_VALUE_NONE);
	bp_claim_free(&c);
	naive_close(s);
}

/* ---- corner-openings ------------------------------------------------------------ */

ParameterizedTestParameters(claims, corner_openings)
{
	static char specs[][40] = { "taifas:3x3", "mirador:6x6", "chicken:hex2", "taifas:2x3" };
	return cr_make_param_array(char[40], specs, sizeof specs / sizeof specs[0]);
}

/* An opening's strength for its maker: higher is better. */
static long strength(enum bp_value v, unsigned rem)
{
	return v == BP_VALUE_WIN ? 1000 - (long)rem : v == BP_VALUE_LOSS ? -1000 + (long)rem : 0;
}

ParameterizedTest(char (*spec)[40], claims, corner_openings)
{
	struct naive *s = naive_open(*spec);
	const struct bp_game *g = s->g;
	const struct bp_board *b = g->board;
	/* corner distance: repeated relaxation instead of a queue */
	int dist[64], mindeg = 99;
	for (int i = 0; i < b->ncells; i++)
		mindeg = b->cells[i].degree < mindeg ? b->cells[i].degree : mindeg;
	for (int i = 0; i < b->ncells; i++)
		dist[i] = b->cells[i].degree == mindeg ? 0 : 999;
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < b->ncells; i++)
			for (int k = 0; k < b->cells[i].degree; k++)
				if (dist[b->cells[i].nb[k]] + 1 < dist[i]) {
					dist[i] = dist[b->cells[i].nb[k]] + 1;
					changed = 1;
				}
	}
	long best[64];
	int have[64] = { 0 }, maxd = 0;
	struct bp_pos start;
	g->ops->start(g, &start);
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = g->ops->moves(g, &start, mv);
	for (int i = 0; i < n; i++) {
		struct bp_pos ch = start;
		g->ops->apply(g, &ch, mv[i]);
		int d = 999;
		for (int c = 0; c < b->ncells; c++)
			if (g->ops->cell_char(g, &start, c) != g->ops->cell_char(g, &ch, c) &&
			    dist[c] < d)
				d = dist[c];
		if (d == 999)
			continue;
		unsigned rem;
		enum bp_value v = bp_value_flip(value_of(s, &ch, &rem));
		long st = strength(v, rem + 1);
		if (!have[d] || st > best[d])
			best[d] = st;
		have[d] = 1;
		maxd = d > maxd ? d : maxd;
	}
	free(mv);
	/* the documented reading: no farther distance has a better best opening than
	 * every nearer one, and the corner's best beats the farthest's */
	int holds = have[0] && maxd > 0 && best[0] > best[maxd];
	long running = have[0] ? best[0] : -100000;
	for (int d = 1; d <= maxd; d++)
		if (have[d]) {
			holds &= best[d] <= running;
			running = best[d] > running ? best[d] : running;
		}
	struct bp_claim c = check(s, "corner-openings");
	cr_expect_eq(c.verdict, holds ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS);
	replay(g, &c);
	bp_claim_free(&c);
	naive_close(s);
}

/* ---- soft-finite: Blooms, with the in-memory cycle-aware solver as the oracle ---- */

static int reach_value(void *ctx, const struct bp_pos *p, enum bp_value *v, unsigned *rem)
{
	int rc = bp_reach_table_lookup(ctx, p, v, rem);
	if (!rc && *rem == BP_REACH_NO_REMOTENESS)
		*rem = BP_CLAIM_NO_REMOTENESS;
	return rc;
}

Test(claims, soft_finite)
{
	struct bp_game *g = open_game("blooms:hex2");
	bp_reach_table *t = NULL;
	cr_assert_eq(bp_reach_solve(g, 1ull << 30, &t), BP_OK);
	struct bp_reach_summary sum;
	bp_reach_table_summary(t, &sum);
	struct bp_oracle o = { reach_value, t, NULL };
	struct bp_claim c;
	cr_assert_eq(bp_claim_check(g, "soft-finite", &o, NULL, &c), BP_OK);
	printf("%s: %s; %s\n", g->spec, bp_verdict_name(c.verdict), bp_text_str(&c.detail));
	cr_expect_eq(c.verdict, sum.repetition_draws ? BP_VERDICT_FAILS : BP_VERDICT_HOLDS);
	if (sum.repetition_draws) {
		/* the witness ends in a cycle: its last position was seen before */
		struct bp_pos p = parse_pos(g, bp_text_str(&c.witness_position));
		char *moves = strdup(bp_text_str(&c.witness_moves));
		struct bp_pos *seen = malloc(sizeof *seen * 100000);
		int n = 0;
		seen[n++] = p;
		for (char *save = NULL, *m = strtok_r(moves, " ", &save); m;
		     m = strtok_r(NULL, " ", &save)) {
			struct bp_move mv;
			cr_assert_eq(g->ops->move_parse(g, &p, m, &mv, NULL), BP_OK);
			g->ops->apply(g, &p, mv);
			seen[n++] = p;
		}
		int again = 0;
		for (int i = 0; i < n - 1; i++)
			again |= bp_pos_equal(&seen[i], &p);
		cr_expect(again, "the witness line does not come back to a position");
		enum bp_value v;
		unsigned rem;
		cr_assert_eq(bp_reach_table_lookup(t, &p, &v, &rem), BP_OK);
		cr_expect(v == BP_VALUE_DRAW && rem == BP_REACH_NO_REMOTENESS);
		free(seen);
		free(moves);
	}
	bp_claim_free(&c);
	/* a game that cannot repeat: not applicable */
	struct bp_game *tg = open_game("taifas:2x2");
	cr_assert_eq(bp_claim_check(tg, "soft-finite", &o, NULL, &c), BP_OK);
	cr_expect_eq(c.verdict, BP_VERDICT_NA);
	bp_claim_free(&c);
	bp_game_destroy(tg);
	bp_reach_table_destroy(t);
	bp_game_destroy(g);
}

/* ---- unknown ---------------------------------------------------------------------- */

static int no_value(void *ctx, const struct bp_pos *p, enum bp_value *v, unsigned *rem)
{
	(void)ctx, (void)p, (void)v, (void)rem;
	return BP_ENOTFOUND;
}

Test(claims, unknown_without_values_or_room)
{
	struct bp_game *g = open_game("taifas:2x3");
	struct bp_oracle o = { no_value, NULL, NULL };
	struct bp_claim c;
	for (int i = 0; bp_claim_names[i]; i++) {
		if (!strcmp(bp_claim_names[i], "fewer-groups"))
			continue; /* reads only finished positions' outcomes, no values */
		cr_assert_eq(bp_claim_check(g, bp_claim_names[i], &o, NULL, &c), BP_OK);
		cr_expect(c.verdict == BP_VERDICT_UNKNOWN || c.verdict == BP_VERDICT_NA,
			  "%s: %s without values", bp_claim_names[i], bp_verdict_name(c.verdict));
		bp_claim_free(&c);
	}
	struct naive *s = naive_open("taifas:2x3");
	struct bp_oracle no = { naive_value, s, NULL };
	struct bp_claims_opts tiny = { .max_positions = 10 };
	cr_assert_eq(bp_claim_check(s->g, "no-draw", &no, &tiny, &c), BP_OK);
	cr_expect_eq(c.verdict, BP_VERDICT_UNKNOWN);
	bp_claim_free(&c);
	cr_expect_eq(bp_claim_check(g, "no-such-claim", &o, NULL, &c), BP_EINVAL);
	naive_close(s);
	bp_game_destroy(g);
}

/* ---- each(): the scan over stored classes gives what the walk gives ---------------- */

static int naive_each(void *ctx,
		      int (*visit)(void *vctx, const struct bp_pos *p, enum bp_value v,
				   unsigned rem),
		      void *vctx)
{
	struct naive *s = ctx;
	/* one per class: the raw positions that are their own canonical form */
	for (size_t i = 0; i < MEMO_CAP; i++) {
		if (!s->e[i].used)
			continue;
		struct bp_pos canon, p = s->e[i].pos;
		bp_game_canonical(s->g, &p, &canon);
		if (!bp_pos_equal(&canon, &p))
			continue;
		int rc = visit(vctx, &p, s->e[i].value, s->e[i].rem);
		if (rc)
			return rc;
	}
	return BP_OK;
}

ParameterizedTestParameters(claims, each_agrees_with_walk)
{
	static char specs[][40] = { "taifas:2x2,tie=draw", "taifas:3x3,tie=last-stone",
				    "taifas:2x3", "mirador:6x6" };
	return cr_make_param_array(char[40], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[40], claims, each_agrees_with_walk)
{
	struct naive *s = naive_open(*spec);
	struct bp_oracle walk = { naive_value, s, NULL }, each = { naive_value, s, naive_each };
	for (int i = 0; bp_claim_names[i]; i++) {
		struct bp_claim a, b;
		cr_assert_eq(bp_claim_check(s->g, bp_claim_names[i], &walk, NULL, &a), BP_OK);
		cr_assert_eq(bp_claim_check(s->g, bp_claim_names[i], &each, NULL, &b), BP_OK);
		cr_expect_eq(a.verdict, b.verdict, "%s %s", *spec, bp_claim_names[i]);
		cr_expect_str_eq(bp_text_str(&a.json), bp_text_str(&b.json), "%s %s", *spec,
				 bp_claim_names[i]);
		cr_expect_str_eq(bp_text_str(&a.witness_moves), bp_text_str(&b.witness_moves));
		bp_claim_free(&a);
		bp_claim_free(&b);
	}
	naive_close(s);
}
