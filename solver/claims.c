/* SPDX-License-Identifier: MIT */
/* The walk: breadth-first from the start, one entry per symmetry class (keyed by the
 * canonical form), each entry keeping the position as actually reached from its
 * parent and the move that reached it. So a witness is replayable as it stands: the
 * moves along the parent chain, from the real start, reach exactly the stored
 * position (not merely a symmetric image, which would need moves mapped through a
 * symmetry that the interface cannot do). Entries store only the words any position
 * uses so far; the stride grows when a position needs more. Breadth-first order also
 * makes every witness line a shortest one.
 *
 * The checks read values only through the oracle, and each verdict states the rule
 * it applies in its detail text, so that a reader can re-derive it. */
#include "solver/claims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/random.h"

const char *const bp_claim_names[] = { "no-draw",      "soft-finite", "first-player",	 "pie",
				       "fewer-groups", "board-fills", "corner-openings", NULL };

const char *bp_verdict_name(enum bp_verdict v)
{
	switch (v) {
	case BP_VERDICT_HOLDS: return "holds";
	case BP_VERDICT_FAILS: return "fails";
	case BP_VERDICT_NA: return "n/a";
	default: return "unknown";
	}
}

int bp_claim_applies(const struct bp_game *g, const char *name)
{
	const char *list = g->ops->claims;
	if (!list)
		return 1;
	size_t len = strlen(name);
	for (const char *s = list; (s = strstr(s, name)); s += len)
		if ((s == list || s[-1] == ' ') && (s[len] == ' ' || s[len] == '\0'))
			return 1;
	return 0;
}

/* ---- the walk ------------------------------------------------------------------- */

#define NONE UINT32_MAX

struct walk {
	const struct bp_game *g;
	int stride;
	int exact;		  /* key by the position itself, not its canonical form */
	uint64_t *canon, *actual; /* n * stride words each */
	uint32_t *parent;
	struct bp_move *move;
	uint32_t n, cap;
	uint32_t *slot; /* open addressing: entry + 1, 0 empty */
	uint64_t nslot;
	uint64_t max;
};

static int used_words(const struct bp_pos *p)
{
	int n = BP_POS_WORDS;
	while (n > 1 && p->w[n - 1] == 0)
		n--;
	return n;
}

static void load(const struct walk *w, const uint64_t *base, uint32_t i, struct bp_pos *out)
{
	memset(out, 0, sizeof *out);
	memcpy(out->w, base + (size_t)i * (size_t)w->stride, sizeof(uint64_t) * (size_t)w->stride);
}

static int restride(struct walk *w, int stride)
{
	size_t words = (size_t)w->cap * (size_t)stride;
	uint64_t *c = calloc(words ? words : 1, sizeof *c),
		 *a = calloc(words ? words : 1, sizeof *a);
	if (!c || !a) {
		free(c);
		free(a);
		return BP_ENOMEM;
	}
	for (uint32_t i = 0; i < w->n; i++) {
		memcpy(c + (size_t)i * (size_t)stride, w->canon + (size_t)i * (size_t)w->stride,
		       sizeof(uint64_t) * (size_t)w->stride);
		memcpy(a + (size_t)i * (size_t)stride, w->actual + (size_t)i * (size_t)w->stride,
		       sizeof(uint64_t) * (size_t)w->stride);
	}
	free(w->canon);
	free(w->actual);
	w->canon = c;
	w->actual = a;
	w->stride = stride;
	return BP_OK;
}

static uint64_t *find_slot(const struct walk *w, const struct bp_pos *canon, uint32_t **at)
{
	uint64_t h = bp_pos_hash(canon), mask = w->nslot - 1;
	for (uint64_t k = h & mask;; k = (k + 1) & mask) {
		uint32_t e = w->slot[k];
		if (!e) {
			*at = &w->slot[k];
			return NULL;
		}
		struct bp_pos q;
		load(w, w->canon, e - 1, &q);
		if (bp_pos_equal(&q, canon)) {
			*at = &w->slot[k];
			return (uint64_t *)1;
		}
	}
}

static int grow(struct walk *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 1024;
	if ((uint64_t)cap > w->max + 1)
		cap = (uint32_t)(w->max + 1);
	size_t words = (size_t)cap * (size_t)w->stride;
	uint64_t *c = realloc(w->canon, words * sizeof *c);
	if (c)
		w->canon = c;
	uint64_t *a = realloc(w->actual, words * sizeof *a);
	if (a)
		w->actual = a;
	uint32_t *par = realloc(w->parent, cap * sizeof *par);
	if (par)
		w->parent = par;
	struct bp_move *mv = realloc(w->move, cap * sizeof *mv);
	if (mv)
		w->move = mv;
	if (!c || !a || !par || !mv)
		return BP_ENOMEM;
	w->cap = cap;
	/* the hash table at most half full */
	if ((uint64_t)cap * 2 > w->nslot) {
		uint64_t nslot = w->nslot ? w->nslot : 2048;
		while (nslot < (uint64_t)cap * 2)
			nslot *= 2;
		uint32_t *slot = calloc(nslot, sizeof *slot);
		if (!slot)
			return BP_ENOMEM;
		free(w->slot);
		w->slot = slot;
		w->nslot = nslot;
		for (uint32_t i = 0; i < w->n; i++) {
			struct bp_pos q;
			uint32_t *at;
			load(w, w->canon, i, &q);
			find_slot(w, &q, &at);
			*at = i + 1;
		}
	}
	return BP_OK;
}

/* Adds p (reached from parent by m) unless its class is known. @return BP_OK;
 * BP_ERANGE past max; BP_ENOMEM. */
static int add(struct walk *w, const struct bp_pos *p, uint32_t parent, struct bp_move m)
{
	struct bp_pos canon;
	if (w->exact)
		canon = *p;
	else
		bp_game_canonical(w->g, p, &canon);
	uint32_t *at;
	if (w->nslot && find_slot(w, &canon, &at))
		return BP_OK;
	if (w->n == w->cap) {
		if ((uint64_t)w->n >= w->max)
			return BP_ERANGE;
		int rc = grow(w);
		if (rc)
			return rc;
		find_slot(w, &canon, &at);
	}
	int need = used_words(p) > used_words(&canon) ? used_words(p) : used_words(&canon);
	if (need > w->stride) {
		int rc = restride(w, need);
		if (rc)
			return rc;
	}
	memcpy(w->canon + (size_t)w->n * (size_t)w->stride, canon.w,
	       sizeof(uint64_t) * (size_t)w->stride);
	memcpy(w->actual + (size_t)w->n * (size_t)w->stride, p->w,
	       sizeof(uint64_t) * (size_t)w->stride);
	w->parent[w->n] = parent;
	w->move[w->n] = m;
	*at = ++w->n;
	return BP_OK;
}

static void walk_free(struct walk *w)
{
	free(w->canon);
	free(w->actual);
	free(w->parent);
	free(w->move);
	free(w->slot);
	memset(w, 0, sizeof *w);
}

/* Every class reachable from the start; with pred, only until the first position
 * (in breadth-first order, so by a shortest line) for which pred returns non-zero:
 * *found is then its entry (else NONE). pred's negative return is an error. */
static int walk_until(struct walk *w, const struct bp_game *g, uint64_t max,
		      int (*pred)(void *ctx, const struct bp_pos *p), void *pctx, uint32_t *found)
{
	memset(w, 0, sizeof *w);
	w->g = g;
	w->stride = 1;
	w->max = max;
	*found = NONE;
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	struct bp_pos p;
	g->ops->start(g, &p);
	int rc = add(w, &p, NONE, (struct bp_move){ 0 });
	for (uint32_t i = 0; !rc && i < w->n; i++) {
		load(w, w->actual, i, &p);
		if (pred) {
			int hit = pred(pctx, &p);
			if (hit < 0) {
				rc = hit;
				break;
			}
			if (hit) {
				*found = i;
				break;
			}
		}
		int n = g->ops->outcome(g, &p) ? 0 : g->ops->moves(g, &p, mv);
		for (int k = 0; k < n && !rc; k++) {
			struct bp_pos c = p;
			g->ops->apply(g, &c, mv[k]);
			rc = add(w, &c, i, mv[k]);
		}
	}
	free(mv);
	return rc;
}

static int walk_all(struct walk *w, const struct bp_game *g, uint64_t max)
{
	uint32_t unused;
	return walk_until(w, g, max, NULL, NULL, &unused);
}

/* The moves from the start to entry i, as text. */
static void path_text(const struct walk *w, uint32_t i, struct bp_text *out)
{
	uint32_t chain[4096];
	int n = 0;
	for (uint32_t e = i; e != NONE && w->parent[e] != NONE && n < 4096; e = w->parent[e])
		chain[n++] = e;
	for (int k = n - 1; k >= 0; k--) {
		struct bp_pos before;
		load(w, w->actual, w->parent[chain[k]], &before);
		if (k != n - 1)
			bp_text_printf(out, " ");
		w->g->ops->move_format(w->g, &before, w->move[chain[k]], out);
	}
}

/* ---- values --------------------------------------------------------------------- */

/* A move's worth for the mover, as one number: wins (sooner better) above draws
 * (sooner better, as tablebases sort them) above losses (later better). */
static long score(enum bp_value v, unsigned rem)
{
	if (v == BP_VALUE_WIN)
		return 100000L - (long)rem;
	if (v == BP_VALUE_LOSS)
		return -100000L + (long)rem;
	return -(long)rem;
}

/* The best move of p by the oracle: its value for the mover (flipped child value) and
 * remoteness (+1). @return BP_OK; BP_ENOTFOUND (no move or no value). */
static int best_move(const struct bp_game *g, const struct bp_oracle *o, const struct bp_pos *p,
		     struct bp_move *mv, struct bp_move *best, enum bp_value *bv, unsigned *brem)
{
	int n = g->ops->moves(g, p, mv), found = 0;
	long bs = 0;
	for (int k = 0; k < n; k++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, mv[k]);
		enum bp_value v;
		unsigned rem;
		int rc = o->value(o->ctx, &c, &v, &rem);
		if (rc)
			return rc;
		v = bp_value_flip(v);
		rem = rem == BP_CLAIM_NO_REMOTENESS ? rem : rem + 1;
		long s = score(v, rem == BP_CLAIM_NO_REMOTENESS ? 0 : rem);
		if (!found || s > bs) {
			found = 1;
			bs = s;
			*best = mv[k];
			*bv = v;
			*brem = rem;
		}
	}
	return found ? BP_OK : BP_ENOTFOUND;
}

/* Appends a perfect-play line from p (moves separated by spaces) until the game ends,
 * a position repeats or max moves; *end_pos gets the last position. @return BP_OK or
 * an oracle error; *repeated set when it stopped at a repetition. */
static int perfect_line(const struct bp_game *g, const struct bp_oracle *o, const struct bp_pos *p,
			int max, struct bp_text *out, struct bp_pos *end_pos, int *repeated)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	struct bp_pos *seen = malloc(sizeof *seen * (size_t)(max + 1));
	int rc = BP_OK, nseen = 0;
	*repeated = 0;
	if (!mv || !seen) {
		rc = BP_ENOMEM;
		goto out;
	}
	struct bp_pos cur = *p;
	while (!g->ops->outcome(g, &cur) && nseen < max) {
		for (int i = 0; i < nseen; i++)
			if (bp_pos_equal(&seen[i], &cur))
				*repeated = 1;
		if (*repeated)
			break;
		seen[nseen++] = cur;
		struct bp_move m;
		enum bp_value v;
		unsigned rem;
		if ((rc = best_move(g, o, &cur, mv, &m, &v, &rem)))
			break;
		if (out->len && out->s[out->len - 1] != ' ')
			bp_text_printf(out, " ");
		g->ops->move_format(g, &cur, m, out);
		g->ops->apply(g, &cur, m);
	}
	*end_pos = cur;
out:
	free(mv);
	free(seen);
	return rc;
}

static void set_witness(struct bp_claim *c, const struct bp_game *g, const struct bp_pos *from)
{
	c->has_witness = 1;
	bp_text_clear(&c->witness_position);
	g->ops->pos_format(g, from, &c->witness_position);
}

static void value_words(struct bp_text *t, enum bp_value v, unsigned rem)
{
	if (rem == BP_CLAIM_NO_REMOTENESS)
		bp_text_printf(t, "%s by repetition", bp_value_name(v));
	else
		bp_text_printf(t, "%s in %u", bp_value_name(v), rem);
}

static int start_value(const struct bp_game *g, const struct bp_oracle *o, enum bp_value *v,
		       unsigned *rem)
{
	struct bp_pos s;
	g->ops->start(g, &s);
	return o->value(o->ctx, &s, v, rem);
}

/* ---- the claims ----------------------------------------------------------------- */

static int is_full(const struct bp_game *g, const struct bp_pos *p)
{
	for (int c = 0; c < g->board->ncells; c++)
		if (g->ops->cell_char(g, p, c) == '.')
			return 0;
	return 1;
}

typedef int scan_visit(void *ctx, const struct bp_pos *p, enum bp_value v, unsigned rem);

/* Visits every reachable class with its value: through the oracle's each() when it
 * has one, else by walking from the start. @return BP_OK; BP_ERANGE (too many to
 * walk); an oracle or visit error. */
static int scan(const struct bp_game *g, const struct bp_oracle *o, uint64_t max, scan_visit *visit,
		void *ctx)
{
	if (o->each) {
		int rc = o->each(o->ctx, visit, ctx);
		if (rc != BP_EUNSUPPORTED)
			return rc;
	}
	struct walk w;
	int rc = walk_all(&w, g, max);
	for (uint32_t i = 0; !rc && i < w.n; i++) {
		struct bp_pos p;
		enum bp_value v;
		unsigned rem;
		load(&w, w.actual, i, &p);
		if (!(rc = o->value(o->ctx, &p, &v, &rem)))
			rc = visit(ctx, &p, v, rem);
	}
	walk_free(&w);
	return rc;
}

/* Appends a shortest line from the start to a position where pred holds.
 * @return 1 found; 0 not found (or the walk passed max); < 0 an error. */
static int find_line(const struct bp_game *g, uint64_t max,
		     int (*pred)(void *ctx, const struct bp_pos *p), void *pctx,
		     struct bp_text *out, struct bp_pos *at)
{
	struct walk w;
	uint32_t found;
	int rc = walk_until(&w, g, max, pred, pctx, &found);
	if (!rc && found != NONE) {
		path_text(&w, found, out);
		load(&w, w.actual, found, at);
	}
	walk_free(&w);
	if (rc == BP_ERANGE)
		return 0;
	return rc ? rc : found != NONE;
}

struct pred_ctx {
	const struct bp_game *g;
	const struct bp_oracle *o;
	int kind; /* 0 drawn end, 1 draw by value, 2 draw by repetition, 3 against groups */
};

static int groups_against(const struct bp_game *g, const struct bp_pos *p);

static int pred(void *ctx, const struct bp_pos *p)
{
	const struct pred_ctx *c = ctx;
	if (c->kind == 0)
		return c->g->ops->outcome(c->g, p) == BP_VALUE_DRAW;
	if (c->kind == 3)
		return groups_against(c->g, p);
	enum bp_value v;
	unsigned rem;
	int rc = c->o->value(c->o->ctx, p, &v, &rem);
	if (rc)
		return rc < 0 ? rc : BP_EINVAL;
	return v == BP_VALUE_DRAW && (c->kind == 1 || rem == BP_CLAIM_NO_REMOTENESS);
}

struct draw_counts {
	const struct bp_game *g;
	uint64_t positions, ends, drawn_ends, draws, repetition;
};

static int count_draws(void *ctx, const struct bp_pos *p, enum bp_value v, unsigned rem)
{
	struct draw_counts *d = ctx;
	enum bp_value out = d->g->ops->outcome(d->g, p);
	d->positions++;
	d->ends += out != BP_VALUE_NONE;
	d->drawn_ends += out == BP_VALUE_DRAW;
	d->draws += v == BP_VALUE_DRAW;
	d->repetition += v == BP_VALUE_DRAW && rem == BP_CLAIM_NO_REMOTENESS;
	return 0;
}

/* The draw counts over every reachable class and the start's value: what no-draw and
 * soft-finite both read. */
static int scan_draws(const struct bp_game *g, const struct bp_oracle *o, uint64_t max,
		      struct draw_counts *d, enum bp_value *sv, unsigned *srem)
{
	*d = (struct draw_counts){ .g = g };
	int rc = scan(g, o, max, count_draws, d);
	return rc ? rc : start_value(g, o, sv, srem);
}

static int check_no_draw(const struct bp_game *g, const struct bp_oracle *o, uint64_t max,
			 struct bp_claim *c)
{
	struct draw_counts d;
	enum bp_value sv;
	unsigned srem;
	int rc = scan_draws(g, o, max, &d, &sv, &srem);
	if (rc)
		return rc;
	c->verdict = d.draws ? BP_VERDICT_FAILS : BP_VERDICT_HOLDS;
	bp_text_printf(&c->detail,
		       "The claim \"the game never ends in a draw\" holds when no reachable "
		       "position is a draw under perfect play (then no drawn end can be forced "
		       "either). Of %llu reachable positions (up to symmetry), %llu are "
		       "finished games, %llu of them drawn; %llu positions are draws under "
		       "perfect play (%llu by repetition). The start is a ",
		       (unsigned long long)d.positions, (unsigned long long)d.ends,
		       (unsigned long long)d.drawn_ends, (unsigned long long)d.draws,
		       (unsigned long long)d.repetition);
	value_words(&c->detail, sv, srem);
	bp_text_printf(&c->detail, " for the first player.");
	bp_text_printf(&c->json,
		       "\"positions\": %llu, \"finished\": %llu, \"drawn_ends\": %llu, "
		       "\"draws\": %llu, \"repetition_draws\": %llu, \"start\": \"%s\"",
		       (unsigned long long)d.positions, (unsigned long long)d.ends,
		       (unsigned long long)d.drawn_ends, (unsigned long long)d.draws,
		       (unsigned long long)d.repetition, bp_value_name(sv));
	struct bp_pos s, end;
	g->ops->start(g, &s);
	set_witness(c, g, &s);
	struct pred_ctx pc = { g, o, d.drawn_ends ? 0 : 1 };
	if (d.draws) {
		rc = find_line(g, max, pred, &pc, &c->witness_moves, &end);
		if (rc < 0)
			return rc;
		if (rc == 1)
			bp_text_printf(&c->witness_shows,
				       d.drawn_ends ? "a shortest line to a drawn end"
						    : "a shortest line to a position that is a "
						      "draw under perfect play");
		else
			c->has_witness = 0; /* too large to search */
		return BP_OK;
	}
	int rep;
	if ((rc = perfect_line(g, o, &s, 4096, &c->witness_moves, &end, &rep)))
		return rc;
	bp_text_printf(&c->witness_shows,
		       "a perfect-play line; at its end the player to move has a %s",
		       bp_value_name(g->ops->outcome(g, &end)));
	return BP_OK;
}

/* A short cycle reachable from p along moves that keep a draw by repetition (each
 * move's child is one too): breadth-first over exact positions from p until a move
 * leads back to a position on the tree path that reached it. Appends the moves from
 * p to the end of the cycle (the last position equals an earlier one of the line) and
 * sets len to the cycle's turns. @return 1 found; 0 none within the search's room;
 * < 0 an error. */
static int shortest_cycle(const struct bp_game *g, const struct bp_oracle *o,
			  const struct bp_pos *p, struct bp_text *out, int *len)
{
	struct walk w = { 0 };
	w.g = g;
	w.stride = 1;
	w.exact = 1;
	w.max = 200000;
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	int rc = add(&w, p, NONE, (struct bp_move){ 0 }), found = 0;
	uint32_t from = NONE;
	struct bp_move last = { 0 };
	for (uint32_t i = 0; !rc && !found && i < w.n; i++) {
		struct bp_pos q;
		load(&w, w.actual, i, &q);
		int n = g->ops->outcome(g, &q) ? 0 : g->ops->moves(g, &q, mv);
		for (int k = 0; k < n && !rc && !found; k++) {
			struct bp_pos ch = q;
			enum bp_value v;
			unsigned rem;
			g->ops->apply(g, &ch, mv[k]);
			if ((rc = o->value(o->ctx, &ch, &v, &rem)))
				break;
			if (v != BP_VALUE_DRAW || rem != BP_CLAIM_NO_REMOTENESS)
				continue;
			uint32_t *at;
			if (w.nslot && find_slot(&w, &ch, &at)) {
				/* seen: a cycle when it is on the tree path to q */
				uint32_t j = *at - 1;
				for (uint32_t e = i; e != NONE && !found; e = w.parent[e])
					if (e == j) {
						found = 1;
						from = i;
						last = mv[k];
						*len = 1;
						for (uint32_t f = i; f != j; f = w.parent[f])
							(*len)++;
					}
			} else {
				rc = add(&w, &ch, i, mv[k]);
			}
		}
	}
	if (found) {
		struct bp_pos before;
		if (from != 0)
			path_text(&w, from, out);
		load(&w, w.actual, from, &before);
		if (out->len && out->s[out->len - 1] != ' ')
			bp_text_printf(out, " ");
		g->ops->move_format(g, &before, last, out);
	}
	free(mv);
	walk_free(&w);
	if (rc == BP_ERANGE)
		return 0;
	return rc ? rc : found;
}

static int check_soft_finite(const struct bp_game *g, const struct bp_oracle *o, uint64_t max,
			     struct bp_claim *c)
{
	struct draw_counts d;
	enum bp_value sv;
	unsigned srem;
	int rc = scan_draws(g, o, max, &d, &sv, &srem);
	if (rc)
		return rc;
	uint64_t rep = d.repetition;
	int start_rep = sv == BP_VALUE_DRAW && srem == BP_CLAIM_NO_REMOTENESS;
	c->verdict = rep ? BP_VERDICT_FAILS : BP_VERDICT_HOLDS;
	bp_text_printf(&c->detail,
		       "The claim \"play repeats forever only if neither player tries to win\" "
		       "fails when some reachable position is a draw by repetition under "
		       "perfect play: neither side can force an end, so both keep a cycle. "
		       "%llu of %llu reachable positions (up to symmetry) are; the start %s.",
		       (unsigned long long)rep, (unsigned long long)d.positions,
		       start_rep ? "is one" : "is not");
	bp_text_printf(&c->json,
		       "\"positions\": %llu, \"repetition_draws\": %llu, \"start_is_one\": %s",
		       (unsigned long long)d.positions, (unsigned long long)rep,
		       start_rep ? "true" : "false");
	if (!rep)
		return BP_OK;
	struct bp_pos s, p, end;
	int repeated;
	struct pred_ctx pc = { g, o, 2 };
	g->ops->start(g, &s);
	set_witness(c, g, &s);
	rc = find_line(g, max, pred, &pc, &c->witness_moves, &p);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		c->has_witness = 0;
		return BP_OK;
	}
	size_t mark = c->witness_moves.len;
	int len = 0;
	if ((rc = shortest_cycle(g, o, &p, &c->witness_moves, &len)) < 0)
		return rc;
	if (rc == 1) {
		bp_text_printf(&c->witness_shows,
			       "a shortest line to a draw by repetition (%s), then moves that "
			       "keep the draw into a cycle of %d turns: the last position of the "
			       "line is one seen before",
			       mark ? "the moves up to it" : "the start itself", len);
	} else {
		if ((rc = perfect_line(g, o, &p, 4096, &c->witness_moves, &end, &repeated)))
			return rc;
		bp_text_printf(&c->witness_shows,
			       "a shortest line to a draw by repetition, then perfect play from "
			       "there until a position repeats (%s)",
			       repeated ? "it does" : "cut");
	}
	return BP_OK;
}

static int check_first_player(const struct bp_game *g, const struct bp_oracle *o,
			      struct bp_claim *c)
{
	enum bp_value sv;
	unsigned srem;
	int rc = start_value(g, o, &sv, &srem);
	if (rc)
		return rc;
	c->verdict = sv == BP_VALUE_WIN ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS;
	bp_text_printf(&c->detail,
		       "The claim \"the first player wins with perfect play\" (without any pie "
		       "rule or colour choice): the start is a ");
	value_words(&c->detail, sv, srem);
	bp_text_printf(&c->detail, " for the first player.");
	bp_text_printf(&c->json, "\"start\": \"%s\", \"remoteness\": ", bp_value_name(sv));
	if (srem == BP_CLAIM_NO_REMOTENESS)
		bp_text_printf(&c->json, "null");
	else
		bp_text_printf(&c->json, "%u", srem);
	struct bp_pos s, end;
	int rep;
	g->ops->start(g, &s);
	set_witness(c, g, &s);
	if ((rc = perfect_line(g, o, &s, 4096, &c->witness_moves, &end, &rep)))
		return rc;
	bp_text_printf(&c->witness_shows, "a perfect-play line from the start%s",
		       rep ? ", until a position repeats" : "");
	return BP_OK;
}

enum bp_value bp_claim_after_choice(enum bp_value v)
{
	return v == BP_VALUE_WIN ? BP_VALUE_LOSS : v;
}

static int check_pie(const struct bp_game *g, const struct bp_oracle *o, struct bp_claim *c)
{
	if (!(g->ops->flags & BP_GAME_PIE)) {
		c->verdict = BP_VERDICT_NA;
		bp_text_printf(&c->detail, "The game has no pie rule or colour choice.");
		return BP_OK;
	}
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	struct bp_pos s;
	g->ops->start(g, &s);
	int n = g->ops->moves(g, &s, mv), rc = BP_OK, counts[4] = { 0 }, best = -1;
	enum bp_value *value = malloc(sizeof *value * (size_t)(n > 0 ? n : 1));
	if (!value) {
		free(mv);
		return BP_ENOMEM;
	}
	long best_score = 0;
	enum bp_value best_v = BP_VALUE_NONE;
	for (int k = 0; k < n; k++) {
		struct bp_pos ch = s;
		g->ops->apply(g, &ch, mv[k]);
		enum bp_value v;
		unsigned rem;
		if ((rc = o->value(o->ctx, &ch, &v, &rem)))
			goto out;
		v = bp_value_flip(v); /* for the opening's maker */
		value[k] = v;
		counts[v]++;
		enum bp_value a = bp_claim_after_choice(v);
		/* the maker's best: a draw, else the slowest loss */
		long sc = a == BP_VALUE_DRAW ? 1000000L
					     : (long)(rem == BP_CLAIM_NO_REMOTENESS ? 0 : rem);
		if (best < 0 || sc > best_score) {
			best = k;
			best_score = sc;
			best_v = a;
		}
	}
	c->verdict = best_v == BP_VALUE_DRAW ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS;
	bp_text_printf(&c->detail,
		       "The claim \"the pie rule (or colour choice) makes the game fair\": the "
		       "second player takes over after a winning opening, so the first player "
		       "keeps a draw only with a drawing opening. Of %d openings, %d win for "
		       "the player making them, %d draw and %d lose; with the choice the first "
		       "player's best is a %s. Openings fair in practice (draws): %d",
		       n, counts[BP_VALUE_WIN], counts[BP_VALUE_DRAW], counts[BP_VALUE_LOSS],
		       bp_value_name(best_v), counts[BP_VALUE_DRAW]);
	bp_text_printf(&c->json,
		       "\"openings\": %d, \"win\": %d, \"draw\": %d, \"loss\": %d, "
		       "\"value_with_choice\": \"%s\", \"fair\": [",
		       n, counts[BP_VALUE_WIN], counts[BP_VALUE_DRAW], counts[BP_VALUE_LOSS],
		       bp_value_name(best_v));
	for (int k = 0, shown = 0; k < n; k++) {
		if (value[k] != BP_VALUE_DRAW)
			continue;
		struct bp_text m = { 0 };
		g->ops->move_format(g, &s, mv[k], &m);
		if (shown < 12)
			bp_text_printf(&c->detail, "%s%s", shown ? ", " : ": ", bp_text_str(&m));
		else if (shown == 12)
			bp_text_printf(&c->detail, ", ...");
		bp_text_printf(&c->json, "%s", shown ? ", " : "");
		bp_text_json_string(&c->json, bp_text_str(&m));
		bp_text_free(&m);
		shown++;
	}
	bp_text_printf(&c->detail, ".");
	bp_text_printf(&c->json, "]");
	if (best >= 0) {
		set_witness(c, g, &s);
		g->ops->move_format(g, &s, mv[best], &c->witness_moves);
		bp_text_printf(&c->witness_shows,
			       "the first player's best opening once the choice is counted: a "
			       "%s for the first player after it",
			       bp_value_name(best_v));
	}
out:
	free(value);
	free(mv);
	return rc;
}

/* 1 when the finished position p contradicts "fewer groups win". */
static int groups_against(const struct bp_game *g, const struct bp_pos *p)
{
	enum bp_value out = g->ops->outcome(g, p);
	int mine, theirs;
	if (!out || g->ops->groups(g, p, &mine, &theirs) || mine == theirs)
		return 0;
	return out != (mine < theirs ? BP_VALUE_WIN : BP_VALUE_LOSS);
}

struct group_counts {
	const struct bp_game *g;
	uint64_t ends, agree, ties, against;
};

static int count_groups(void *ctx, const struct bp_pos *p, enum bp_value v, unsigned rem)
{
	(void)v;
	(void)rem;
	struct group_counts *k = ctx;
	const struct bp_game *g = k->g;
	if (!g->ops->outcome(g, p))
		return 0;
	int mine, theirs;
	int rc = g->ops->groups(g, p, &mine, &theirs);
	if (rc)
		return rc;
	k->ends++;
	if (mine == theirs)
		k->ties++;
	else if (groups_against(g, p))
		k->against++;
	else
		k->agree++;
	return 0;
}

static int check_fewer_groups(const struct bp_game *g, const struct bp_oracle *o, uint64_t max,
			      struct bp_claim *c)
{
	struct group_counts k = { .g = g };
	int rc = scan(g, o, max, count_groups, &k);
	if (rc)
		return rc;
	c->verdict = k.against ? BP_VERDICT_FAILS : BP_VERDICT_HOLDS;
	bp_text_printf(&c->detail,
		       "The claim \"on the full board the player with fewer groups wins\", "
		       "checked on every reachable finished position (up to symmetry): %llu "
		       "finished, %llu agree, %llu contradict it, and on %llu both players have "
		       "as many groups (the claim says nothing there).",
		       (unsigned long long)k.ends, (unsigned long long)k.agree,
		       (unsigned long long)k.against, (unsigned long long)k.ties);
	bp_text_printf(&c->json,
		       "\"finished\": %llu, \"agree\": %llu, \"contradict\": %llu, \"equal\": %llu",
		       (unsigned long long)k.ends, (unsigned long long)k.agree,
		       (unsigned long long)k.against, (unsigned long long)k.ties);
	if (k.against) {
		struct bp_pos s, end;
		struct pred_ctx pc = { g, o, 3 };
		g->ops->start(g, &s);
		set_witness(c, g, &s);
		rc = find_line(g, max, pred, &pc, &c->witness_moves, &end);
		if (rc < 0)
			return rc;
		if (rc == 0)
			c->has_witness = 0;
		else
			bp_text_printf(&c->witness_shows,
				       "a line to a full board where the player with fewer groups "
				       "does not win");
	}
	return BP_OK;
}

static int check_board_fills(const struct bp_game *g, const struct bp_oracle *o, struct walk *w,
			     const struct bp_claims_opts *opts, struct bp_claim *c)
{
	if (g->ops->flags & BP_GAME_CYCLIC) {
		c->verdict = BP_VERDICT_NA;
		bp_text_printf(&c->detail, "Positions repeat: perfect-play lines need not end.");
		return BP_OK;
	}
	/* perfect-play lines: from each position, every move of the best (value,
	 * remoteness) for the mover; counted per class from the end backwards (the walk
	 * is breadth-first and every move of an acyclic game leads deeper or sideways,
	 * so entries are finished in reverse order after a fixpoint over children) */
	double *lines = calloc(w->n ? w->n : 1, sizeof *lines);
	double *filled = calloc(w->n ? w->n : 1, sizeof *filled);
	char *done = calloc(w->n ? w->n : 1, 1);
	struct bp_move *mv = bp_game_move_buffer(g);
	int rc = BP_OK;
	if (!lines || !filled || !done || !mv) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (int pass = 0, left = 1; left; pass++) {
		left = 0;
		for (uint32_t i = w->n; i-- > 0;) {
			if (done[i])
				continue;
			struct bp_pos p;
			load(w, w->actual, i, &p);
			if (g->ops->outcome(g, &p)) {
				lines[i] = 1;
				filled[i] = is_full(g, &p);
				done[i] = 1;
				continue;
			}
			int n = g->ops->moves(g, &p, mv), ready = 1;
			long best = 0;
			int have = 0;
			double l = 0, f = 0;
			for (int k = 0; k < n && ready; k++) {
				struct bp_pos ch = p, canon;
				g->ops->apply(g, &ch, mv[k]);
				enum bp_value v;
				unsigned rem;
				if ((rc = o->value(o->ctx, &ch, &v, &rem)))
					goto out;
				long s = score(bp_value_flip(v), rem + 1);
				bp_game_canonical(g, &ch, &canon);
				uint32_t *at;
				find_slot(w, &canon, &at);
				uint32_t j = *at - 1;
				if (!have || s > best) {
					have = 1;
					best = s;
					l = f = 0;
				}
				if (s == best) {
					if (!done[j])
						ready = 0;
					l += lines[j];
					f += filled[j];
				}
			}
			if (!ready) {
				left = 1;
				continue;
			}
			lines[i] = l;
			filled[i] = f;
			done[i] = 1;
		}
		if (pass > 100000) {
			rc = BP_ERANGE;
			goto out;
		}
	}
	/* seeded random games */
	int games = opts && opts->random_games > 0 ? opts->random_games : 1000, full = 0;
	uint64_t seed = opts && opts->seed ? opts->seed : 1, rng = seed;
	struct bp_text first_full = { 0 };
	for (int gi = 0; gi < games; gi++) {
		struct bp_pos p;
		struct bp_text line = { 0 };
		g->ops->start(g, &p);
		for (int t = 0; t < 100000 && !g->ops->outcome(g, &p); t++) {
			int n = g->ops->moves(g, &p, mv);
			struct bp_move m = mv[bp_splitmix64(&rng) % (uint64_t)n];
			if (!first_full.len) {
				if (line.len)
					bp_text_printf(&line, " ");
				g->ops->move_format(g, &p, m, &line);
			}
			g->ops->apply(g, &p, m);
		}
		if (is_full(g, &p)) {
			if (!full++)
				bp_text_printf(&first_full, "%s", bp_text_str(&line));
		}
		bp_text_free(&line);
	}
	double share_lines = lines[0] > 0 ? filled[0] / lines[0] : 0;
	double share_random = (double)full / games;
	c->verdict = share_lines < 0.1 && share_random < 0.1 ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS;
	bp_text_printf(&c->detail,
		       "The claim \"the board will rarely fill\", read as: in under 10%% of the "
		       "perfect-play lines from the start and under 10%% of random games the "
		       "board is full when the game ends. Perfect-play lines (every best move "
		       "of each side, counted as distinct sequences): %.6g, of which %.6g fill "
		       "the board (%.1f%%). Random games (uniform legal moves, seed %llu): %d of "
		       "%d fill it (%.1f%%).",
		       lines[0], filled[0], 100 * share_lines, (unsigned long long)seed, full,
		       games, 100 * share_random);
	bp_text_printf(&c->json,
		       "\"perfect_lines\": %.17g, \"perfect_lines_filled\": %.17g, "
		       "\"random_games\": %d, \"random_filled\": %d, \"seed\": %llu",
		       lines[0], filled[0], games, full, (unsigned long long)seed);
	struct bp_pos s;
	g->ops->start(g, &s);
	if (full) {
		set_witness(c, g, &s);
		bp_text_printf(&c->witness_moves, "%s", bp_text_str(&first_full));
		bp_text_printf(&c->witness_shows, "the first random game that filled the board");
	} else {
		struct bp_pos end;
		int rep;
		set_witness(c, g, &s);
		if ((rc = perfect_line(g, o, &s, 4096, &c->witness_moves, &end, &rep)))
			goto out;
		bp_text_printf(&c->witness_shows, "a perfect-play line; the board is %s at its end",
			       is_full(g, &end) ? "full" : "not full");
	}
	bp_text_free(&first_full);
out:
	free(lines);
	free(filled);
	free(done);
	free(mv);
	return rc;
}

static int check_corner_openings(const struct bp_game *g, const struct bp_oracle *o,
				 struct bp_claim *c)
{
	const struct bp_board *b = g->board;
	int nc = b->ncells, mindeg = BP_BOARD_MAX_DEGREE + 1, rc = BP_OK;
	int *dist = malloc(sizeof *dist * (size_t)nc), *queue = malloc(sizeof *queue * (size_t)nc);
	int *cells = malloc(sizeof *cells * (size_t)nc);
	struct bp_move *mv = bp_game_move_buffer(g);
	long bestd[64], worstd[64];
	int countd[64] = { 0 }, bestk[64];
	if (!dist || !queue || !cells || !mv) {
		rc = BP_ENOMEM;
		goto out;
	}
	/* corners: the cells with the fewest neighbours; distance by steps to the nearest */
	for (int i = 0; i < nc; i++)
		if (b->cells[i].degree < mindeg)
			mindeg = b->cells[i].degree;
	int head = 0, tail = 0;
	for (int i = 0; i < nc; i++) {
		dist[i] = b->cells[i].degree == mindeg ? 0 : -1;
		if (!dist[i])
			queue[tail++] = i;
	}
	while (head < tail) {
		int x = queue[head++];
		for (int k = 0; k < b->cells[x].degree; k++) {
			int y = b->cells[x].nb[k];
			if (dist[y] < 0) {
				dist[y] = dist[x] + 1;
				queue[tail++] = y;
			}
		}
	}
	struct bp_pos s;
	g->ops->start(g, &s);
	int n = g->ops->moves(g, &s, mv), maxd = 0;
	for (int k = 0; k < n; k++) {
		struct bp_pos ch = s;
		g->ops->apply(g, &ch, mv[k]);
		enum bp_value v;
		unsigned rem;
		if ((rc = o->value(o->ctx, &ch, &v, &rem)))
			goto out;
		long sc = score(bp_value_flip(v), rem == BP_CLAIM_NO_REMOTENESS ? 0 : rem + 1);
		/* an opening's distance: its nearest changed cell's */
		int m = 0, d = 63;
		struct bp_pos after = s;
		g->ops->apply(g, &after, mv[k]);
		for (int i = 0; i < nc; i++)
			if (g->ops->cell_char(g, &s, i) != g->ops->cell_char(g, &after, i))
				cells[m++] = i;
		for (int i = 0; i < m; i++)
			if (dist[cells[i]] >= 0 && dist[cells[i]] < d)
				d = dist[cells[i]];
		if (!m)
			continue; /* a pass: no place on the board */
		if (!countd[d] || sc > bestd[d]) {
			bestd[d] = sc;
			bestk[d] = k;
		}
		if (!countd[d] || sc < worstd[d])
			worstd[d] = sc;
		countd[d]++;
		if (d > maxd)
			maxd = d;
	}
	/* holds: the best opening at each distance is no better than the best nearer the
	 * corner, and the corner's best beats the farthest's */
	int holds = countd[0] > 0, dnear = 0;
	long running = countd[0] ? bestd[0] : 0;
	int against = -1;
	for (int d = 1; d <= maxd; d++) {
		if (!countd[d])
			continue;
		if (bestd[d] > running && against < 0)
			against = d;
		if (bestd[d] > running)
			holds = 0;
		running = bestd[d] > running ? bestd[d] : running;
		dnear = d;
	}
	if (countd[0] && dnear > 0 && bestd[0] <= bestd[dnear])
		holds = 0;
	if (dnear == 0)
		holds = 0; /* every opening at one distance: nothing to compare */
	c->verdict = holds ? BP_VERDICT_HOLDS : BP_VERDICT_FAILS;
	bp_text_printf(&c->detail,
		       "The claim \"opening moves are stronger near a corner\", read as: the "
		       "best opening at each distance from the nearest corner (steps between "
		       "cells; corners are the cells with fewest neighbours) is no better than "
		       "the best one nearer, and the corner's best beats the farthest's. Per "
		       "distance, best and worst opening for the first player:");
	bp_text_printf(&c->json, "\"distances\": [");
	for (int d = 0; d <= maxd; d++) {
		if (!countd[d])
			continue;
		char best_t[64], worst_t[64];
		struct bp_text t1 = { 0 }, t2 = { 0 };
		long sb = bestd[d], sw = worstd[d];
		value_words(&t1,
			    sb > 0   ? BP_VALUE_WIN
			    : sb < 0 ? BP_VALUE_LOSS
				     : BP_VALUE_DRAW,
			    sb > 0   ? (unsigned)(100000L - sb)
			    : sb < 0 ? (unsigned)(sb + 100000L)
				     : 0);
		value_words(&t2,
			    sw > 0   ? BP_VALUE_WIN
			    : sw < 0 ? BP_VALUE_LOSS
				     : BP_VALUE_DRAW,
			    sw > 0   ? (unsigned)(100000L - sw)
			    : sw < 0 ? (unsigned)(sw + 100000L)
				     : 0);
		snprintf(best_t, sizeof best_t, "%s", bp_text_str(&t1));
		snprintf(worst_t, sizeof worst_t, "%s", bp_text_str(&t2));
		bp_text_free(&t1);
		bp_text_free(&t2);
		bp_text_printf(&c->detail, " %d: %d openings, best %s, worst %s;", d, countd[d],
			       best_t, worst_t);
		bp_text_printf(
			&c->json,
			"%s{\"distance\": %d, \"openings\": %d, \"best\": \"%s\", \"worst\": "
			"\"%s\"}",
			d ? ", " : "", d, countd[d], best_t, worst_t);
	}
	bp_text_printf(&c->json, "]");
	if (c->detail.len && c->detail.s[c->detail.len - 1] == ';')
		c->detail.s[c->detail.len - 1] = '.';
	int show = against >= 0 ? against : countd[0] ? 0 : -1;
	if (show >= 0) {
		struct bp_pos ch = s, end;
		int rep;
		g->ops->apply(g, &ch, mv[bestk[show]]);
		set_witness(c, g, &s);
		g->ops->move_format(g, &s, mv[bestk[show]], &c->witness_moves);
		if ((rc = perfect_line(g, o, &ch, 4096, &c->witness_moves, &end, &rep)))
			goto out;
		bp_text_printf(&c->witness_shows,
			       against >= 0 ? "the best opening at distance %d, better than every "
					      "opening nearer the corner, then perfect play"
					    : "the best opening at distance %d, then perfect play",
			       show);
	}
out:
	free(dist);
	free(queue);
	free(cells);
	free(mv);
	return rc;
}

int bp_claim_check(const struct bp_game *g, const char *name, const struct bp_oracle *o,
		   const struct bp_claims_opts *opts, struct bp_claim *out)
{
	memset(out, 0, sizeof *out);
	int known = -1;
	for (int i = 0; bp_claim_names[i]; i++)
		if (strcmp(name, bp_claim_names[i]) == 0)
			known = i;
	if (known < 0)
		return BP_EINVAL;
	out->name = bp_claim_names[known];
	uint64_t max = opts && opts->max_positions ? opts->max_positions : 4000000;
	if (!strcmp(name, "soft-finite") && !(g->ops->flags & BP_GAME_CYCLIC)) {
		out->verdict = BP_VERDICT_NA;
		bp_text_printf(&out->detail, "Positions never repeat in this game.");
		return BP_OK;
	}
	if (!strcmp(name, "fewer-groups") && !g->ops->groups) {
		out->verdict = BP_VERDICT_NA;
		bp_text_printf(&out->detail, "The game does not count groups.");
		return BP_OK;
	}
	struct walk w = { 0 };
	int rc = BP_OK;
	if (!strcmp(name, "board-fills") && !(g->ops->flags & BP_GAME_CYCLIC) &&
	    (rc = walk_all(&w, g, max)) && rc != BP_ERANGE)
		goto out;
	if (rc != BP_ERANGE) {
		if (!strcmp(name, "no-draw"))
			rc = check_no_draw(g, o, max, out);
		else if (!strcmp(name, "soft-finite"))
			rc = check_soft_finite(g, o, max, out);
		else if (!strcmp(name, "first-player"))
			rc = check_first_player(g, o, out);
		else if (!strcmp(name, "pie"))
			rc = check_pie(g, o, out);
		else if (!strcmp(name, "fewer-groups"))
			rc = check_fewer_groups(g, o, max, out);
		else if (!strcmp(name, "board-fills"))
			rc = check_board_fills(g, o, &w, opts, out);
		else
			rc = check_corner_openings(g, o, out);
	}
	if (rc == BP_ERANGE) {
		bp_claim_free(out);
		out->name = bp_claim_names[known];
		out->verdict = BP_VERDICT_UNKNOWN;
		bp_text_printf(&out->detail,
			       "Unknown: the instance has more than %llu reachable positions up to "
			       "symmetry, more than the walk may hold.",
			       (unsigned long long)max);
		rc = BP_OK;
		goto out;
	}
	if (rc == BP_ENOTFOUND) {
		/* a value the oracle does not have: no verdict */
		bp_claim_free(out);
		out->name = bp_claim_names[known];
		out->verdict = BP_VERDICT_UNKNOWN;
		bp_text_printf(&out->detail,
			       "Unknown: a position the check needs has no value (the instance is "
			       "not solved, or only in part).");
		rc = BP_OK;
	}
out:
	walk_free(&w);
	return rc;
}

void bp_claim_free(struct bp_claim *c)
{
	bp_text_free(&c->detail);
	bp_text_free(&c->json);
	bp_text_free(&c->witness_position);
	bp_text_free(&c->witness_moves);
	bp_text_free(&c->witness_shows);
	c->has_witness = 0;
}
