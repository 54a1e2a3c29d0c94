/* SPDX-License-Identifier: MIT */
/* Proof trees (solver/proof.h): extraction from the df-pn table, serialization, and
 * the independent checker.
 *
 * A strategy is stored as its player's decisions only: the set of canonical positions
 * where its player P is to move and plays, each with the move it plays (a move of the
 * canonical position). Everything else follows from the rules: the position after a
 * decision, the other player's replies there (all of them), and the leaves, which the
 * checker decides itself (terminal, in the solved table, or settled by the game's
 * value bounds). So a proof holds no node of the other player and no leaf, and its
 * size is the number of decisions.
 *
 * Serialized format, version 3 (BP_PROOF_VERSION), little-endian:
 *
 *     "BPPROOF\0"  u32 version  u32 speclen  spec bytes
 *     u8 value  u8 nparts  u8 nwords  root position words (u64 each)
 *     per part:  u8 player (0 the root's player to move, 1 the other)  u8 goal (0 win,
 *                1 not lose)  u8 width (the most words of any decision's position)
 *                u64 count  u64 zlen  zlen bytes: one zstd frame (store/zstream.h) of
 *                count decisions, each  u8 nwords  nwords words  u32 move
 *
 * Positions are cut after their last non-zero word. There is no checksum of our own on
 * purpose: the checker is the check (the frame carries zstd's, against damage). Versions
 * 1 and 2 stored every node of the tree, the other player's and the leaves as well
 * (u8 kind | pmove << 2, u8 nwords, words, [u32 move] for a decision, per node, in
 * place of the frame); they are still read, keeping their decisions only.
 *
 * Extraction. Each strategy is the attacker's or defender's side of one df-pn goal:
 * "win" for the root's player is a proof of GOAL_WIN; "win" for the other player a
 * disproof of GOAL_NOTLOSE; "not lose" for the root's player a proof of GOAL_NOTLOSE;
 * "not lose" for the other a disproof of GOAL_WIN. The builder walks from the root: at a
 * position of P it picks a move whose result the table (or a fresh search) shows good
 * for P, preferring results that end the game or are already in the proof, then final
 * table entries, searching only when none is known; at the other player's positions it
 * takes every move. Decisions stream into the compressed frame as they are made; which
 * positions were visited is kept as 64-bit fingerprints only, so that the builder's
 * memory is about 16 bytes per decision beside the compressed frame. Two positions with
 * one fingerprint (about one chance in 10^4 at 10^8 decisions) would leave a position
 * out of the proof, which the checker then finds missing: never a false proof. A
 * position joins the visited set before its children are visited, so a cycle closes on
 * it (allowed in "not lose" strategies only, which the checker enforces). */
#include "solver/proof.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/text.h"
#include "solver/probe.h"
#include "store/codec.h"
#include "store/zstream.h"

#define MAX_BUILD_DEPTH 20000

#define BP_PROOF_VERSION 3

/* the zstd level of the decisions' frame */
#define PROOF_ZLEVEL 3

enum { KIND_INNER = 0, KIND_TERMINAL = 1, KIND_TABLE = 2, KIND_BOUND = 3 };

/* One strategy. Built or decoded, it has its decisions as a compressed frame (z) or
 * decoded into fixed-width records (words, moves), or both. */
struct part {
	uint8_t player, goal, width;
	uint64_t count;
	uint8_t *z;
	size_t zlen, zat; /* zat: the frame's offset in the bytes decoded (head only) */
	uint64_t *words;  /* count * width words, each position zero-padded */
	uint32_t *moves;
};

struct bp_proof {
	char spec[256];
	struct bp_pos root;
	enum bp_value value;
	int nparts;
	struct part parts[2];
	uint64_t lemmas; /* saved proofs the build took whole (not stored) */
};

/* The number of words of w[0 .. n) up to the last non-zero one. */
static int cut_len(const uint64_t *w, int n)
{
	while (n > 0 && w[n - 1] == 0)
		n--;
	return n;
}

static int pos_nwords(const struct bp_pos *p)
{
	return cut_len(p->w, BP_POS_WORDS);
}

static int same_words(const uint64_t *a, const uint64_t *b, int n)
{
	return !n || memcmp(a, b, sizeof(uint64_t) * (size_t)n) == 0;
}

/* The fingerprint of a position (cut form) with a flag: never 0. */
static uint64_t fingerprint(const struct bp_pos *p, int flag)
{
	uint64_t h = bp_hash64(p->w, sizeof(uint64_t) * (size_t)pos_nwords(p),
			       0x70726f6f66ull + (uint64_t)flag);
	return h ? h : 1;
}

static void part_free(struct part *pt)
{
	free(pt->z);
	free(pt->words);
	free(pt->moves);
	pt->z = NULL;
	pt->words = NULL;
	pt->moves = NULL;
}

/* Whether a value for the player to move at a position meets the part's goal (pmove:
 * the part's player is to move there). */
static int meets(const struct part *pt, int pmove, enum bp_value v)
{
	enum bp_value vp = pmove ? v : bp_value_flip(v);
	return pt->goal == 0 ? vp == BP_VALUE_WIN : vp != BP_VALUE_LOSS && vp != BP_VALUE_NONE;
}

/* Whether the game's value bounds on p (not over) settle the part's goal there: its
 * player's least value within them meets it. */
static int bound_meets(const struct bp_game *g, const struct part *pt, int pmove,
		       const struct bp_pos *p)
{
	int lo, hi;
	if (!g->ops->bounds || !g->ops->bounds(g, p, &lo, &hi))
		return 0;
	return (pmove ? lo : -hi) >= (pt->goal == 0 ? 1 : 0);
}

static int table_value(const struct bp_game *g, bp_table *t, const struct bp_pos *p,
		       enum bp_value *v)
{
	struct bp_probe pr;
	if (!t || bp_probe_position(g, t, p, &pr))
		return 0;
	*v = pr.value;
	return 1;
}

/* How a position (canonical, not in the proof's decisions) ends the strategy: 1 a leaf
 * that meets the goal; 0 no leaf (it must be played on); -1 a leaf that misses it.
 * *kind says which leaf. The order is the checker's: the rules' outcome, then the
 * solved table, then the bounds. */
static int leaf_of(const struct bp_game *g, bp_table *table, const struct part *pt, int pmove,
		   const struct bp_pos *p, int *kind)
{
	enum bp_value v = g->ops->outcome(g, p);
	*kind = KIND_TERMINAL;
	if (v != BP_VALUE_NONE)
		return meets(pt, pmove, v) ? 1 : -1;
	*kind = KIND_TABLE;
	if (table_value(g, table, p, &v))
		return meets(pt, pmove, v) ? 1 : -1;
	*kind = KIND_BOUND;
	if (bound_meets(g, pt, pmove, p))
		return 1;
	*kind = KIND_INNER;
	return 0;
}

/* ---- a set of 64-bit fingerprints ----
 * 256 open-addressing tables (0 empty), chosen by a fingerprint's top byte, each
 * doubled on its own: growing never holds the whole set twice, which beside a search
 * table of most of the machine's memory is the difference between fitting and not. */

#define FP_PARTS 256

struct fpset {
	uint64_t *s[FP_PARTS];
	uint64_t cap[FP_PARTS], n[FP_PARTS];
};

static void fp_free(struct fpset *f)
{
	for (int i = 0; i < FP_PARTS; i++)
		free(f->s[i]);
}

/* @return 1 added, 0 already there, BP_ENOMEM. */
static int fp_add(struct fpset *f, uint64_t x)
{
	int t = (int)(x >> 56);
	uint64_t *s = f->s[t], cap = f->cap[t];
	if (4 * (f->n[t] + 1) > 3 * cap) {
		uint64_t ncap = cap ? cap * 2 : 64;
		uint64_t *ns = calloc(ncap, sizeof *ns);
		if (!ns)
			return BP_ENOMEM;
		for (uint64_t i = 0; i < cap; i++)
			if (s[i]) {
				uint64_t h = s[i] & (ncap - 1);
				while (ns[h])
					h = (h + 1) & (ncap - 1);
				ns[h] = s[i];
			}
		free(s);
		f->s[t] = s = ns;
		f->cap[t] = cap = ncap;
	}
	uint64_t h = x & (cap - 1);
	for (; s[h]; h = (h + 1) & (cap - 1))
		if (s[h] == x)
			return 0;
	s[h] = x;
	f->n[t]++;
	return 1;
}

static int fp_has(const struct fpset *f, uint64_t x)
{
	int t = (int)(x >> 56);
	const uint64_t *s = f->s[t];
	uint64_t cap = f->cap[t];
	if (!cap)
		return 0;
	for (uint64_t h = x & (cap - 1); s[h]; h = (h + 1) & (cap - 1))
		if (s[h] == x)
			return 1;
	return 0;
}

/* ---- little-endian fields ---- */

static void le_put(uint8_t *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t le_get(const uint8_t *b, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/* Appends one decision to a frame. */
static int put_decision(bp_zout *z, const uint64_t *w, int nw, uint32_t move)
{
	uint8_t b[1 + 8 * BP_POS_WORDS + 4];
	b[0] = (uint8_t)nw;
	for (int i = 0; i < nw; i++)
		le_put(b + 1 + 8 * i, w[i], 8);
	le_put(b + 1 + 8 * nw, move, 4);
	return bp_zout_write(z, b, (size_t)(1 + 8 * nw + 4));
}

/* ---- extraction ---- */

/* Where the search's claim first failed (BP_ECORRUPT): a position of P with no move
 * good for P (mine), or one of the other's with a reply that is. */
struct claim_failure {
	struct bp_pos pos;
	int set, mine, depth;
};

struct builder {
	bp_dfpn *d;
	const struct bp_game *g;
	bp_table *table;
	struct part *pt;
	int sgoal, want;    /* df-pn goal (0 win, 1 not lose) and the wanted outcome */
	struct fpset *seen; /* fingerprints of P's positions (flag 1), the other's (flag 0) */
	bp_zout *z;
	int width;
	const struct bp_proof_progress *progress;
	const struct bp_proof_lemmas *lemmas;
	uint64_t decisions;   /* over the proof's strategies */
	uint64_t lemma_roots; /* lemmas taken */
	struct claim_failure bad;
};

/* Notes the first position where the search's claim does not hold. */
static int claim_fails(struct builder *b, const struct bp_pos *p, int mine, int depth)
{
	if (!b->bad.set)
		b->bad = (struct claim_failure){ *p, 1, mine, depth };
	return BP_ECORRUPT;
}

/* Whether position c (canonical, P not to move there) is good for P: 1 yes, 0 no,
 * BP_ENOTFOUND unknown without a search (may_search unset). */
static int child_good(struct builder *b, const struct bp_pos *c, int may_search)
{
	int or_node = !b->want; /* the attacker is P when proving */
	int r = bp_dfpn_goal(b->d, c, b->sgoal, or_node, may_search);
	if (r < 0)
		return r;
	return r == b->want;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int build_other(struct builder *b, const struct bp_pos *o, int depth);

static int part_records(struct part *pt);

/* Appends one decision to the proof. */
static int write_decision(struct builder *b, const uint64_t *w, int nw, uint32_t move)
{
	int rc = put_decision(b->z, w, nw, move);
	if (rc)
		return rc;
	b->pt->count++;
	if (b->progress && ++b->decisions % 65536 == 0)
		b->progress->fn(b->progress->ctx, b->decisions, bp_zout_out(b->z));
	if (nw > b->width)
		b->width = nw;
	return BP_OK;
}

/* Appends one decision unless its position has one already. */
static int add_decision(struct builder *b, const uint64_t *w, int nw, uint32_t move)
{
	struct bp_pos p = { { 0 } };
	memcpy(p.w, w, sizeof *w * (size_t)nw);
	int rc = fp_add(b->seen, fingerprint(&p, 1));
	return rc <= 0 ? rc : write_decision(b, w, nw, move);
}

/* At o (canonical, P's opponent to move, not a leaf, not seen): when a lemma shows P's
 * goal there, copies its strategy for P into the proof. @return 1 taken, 0 none, or an
 * error. */
static int take_lemma(struct builder *b, const struct bp_pos *o)
{
	if (!b->lemmas)
		return 0;
	struct bp_proof *l = b->lemmas->find(b->lemmas->ctx, o);
	if (!l)
		return 0;
	/* P is the player not to move at o: the lemma's player 1. A loss at o is a win
	 * strategy for P, good for either goal; a draw's player-1 strategy is a "not
	 * lose" one, good for that goal only. */
	const struct part *use = NULL;
	struct bp_pos lroot;
	bp_game_canonical(b->g, &l->root, &lroot);
	if (!strcmp(l->spec, b->g->spec) && bp_pos_equal(&lroot, o))
		for (int k = 0; k < l->nparts; k++)
			if (l->parts[k].player == 1 && l->parts[k].goal <= b->pt->goal)
				use = &l->parts[k];
	int rc = 0;
	if (use && !(rc = part_records((struct part *)use))) {
		for (uint64_t i = 0; i < use->count && !rc; i++)
			rc = add_decision(b, use->words + i * use->width,
					  cut_len(use->words + i * use->width, use->width),
					  use->moves[i]);
		if (!rc) {
			b->lemma_roots++;
			rc = 1;
		}
	}
	bp_proof_free(l);
	return rc;
}

/* Decides at c (canonical, P to move, not over, not yet seen), then goes on from the
 * position the decision leads to. */
static int build_mine(struct builder *b, const struct bp_pos *c, int depth)
{
	const struct bp_game *g = b->g;
	struct part *pt = b->pt;
	if (depth > MAX_BUILD_DEPTH)
		return BP_ERANGE;
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	int n = g->ops->moves(g, c, mv);
	/* pass 0, in the moves' order: a result that is a leaf meeting the goal, or
	 * already in the proof (most decisions end here, before any look at the table) */
	struct bp_pos ch, canon;
	int chosen = -1, chosen_leaf = 0, rc = BP_OK, kind; /* canon: the chosen's result */
	for (int k = 0; k < n && chosen < 0; k++) {
		ch = *c;
		g->ops->apply(g, &ch, mv[k]);
		bp_game_canonical(g, &ch, &canon);
		int leaf = leaf_of(g, b->table, pt, 0, &canon, &kind);
		if (leaf == 1 || (leaf == 0 && fp_has(b->seen, fingerprint(&canon, 0))))
			chosen = k, chosen_leaf = leaf;
		else if (leaf == 0 && (rc = take_lemma(b, &canon)) != 0) {
			if (rc < 0)
				break;
			/* the lemma's strategy is the proof below: the result is seen */
			chosen = k, chosen_leaf = 1, rc = BP_OK;
			if ((rc = fp_add(b->seen, fingerprint(&canon, 0))) < 0)
				break;
			rc = BP_OK;
		}
	}
	if (rc) {
		free(mv);
		return rc;
	}
	/* pass 1: final entries of the search's table; pass 2: search. In the order of
	 * the moves whose table numbers say they are the easiest to show good (the one
	 * that proved this position is among them unless its entry was replaced), so that
	 * a search rarely has to refute a move that was never good. */
	uint64_t *order = chosen < 0 ? malloc(sizeof *order * (size_t)(n > 0 ? n : 1)) : NULL;
	if (chosen < 0 && !order) {
		free(mv);
		return BP_ENOMEM;
	}
	if (chosen < 0) {
		for (int k = 0; k < n; k++) {
			uint32_t cpn = 1, cdn = 1;
			ch = *c;
			g->ops->apply(g, &ch, mv[k]);
			bp_dfpn_numbers(b->d, &ch, b->sgoal, b->want ? 0 : 1, &cpn, &cdn);
			uint32_t phi = b->want ? cpn : cdn;
			order[k] = (uint64_t)phi << 32 | (uint32_t)k;
		}
		qsort(order, (size_t)n, sizeof *order, cmp_u64);
	}
	for (int pass = 1; pass < 3 && chosen < 0 && !rc; pass++)
		for (int j = 0; j < n && chosen < 0; j++) {
			int k = (int)(uint32_t)order[j];
			ch = *c;
			g->ops->apply(g, &ch, mv[k]);
			bp_game_canonical(g, &ch, &canon);
			if (leaf_of(g, b->table, pt, 0, &canon, &kind))
				continue;
			int r = child_good(b, &canon, pass == 2);
			if (r == 1)
				chosen = k;
			else if (r < 0 && r != BP_ENOTFOUND)
				rc = r;
		}
	free(order);
	if (!rc && chosen < 0)
		rc = claim_fails(b, c, 1, depth);
	if (!rc)
		rc = write_decision(b, c->w, pos_nwords(c), mv[chosen].v);
	if (!rc && !chosen_leaf)
		rc = build_other(b, &canon, depth + 1);
	free(mv);
	return rc;
}

/* Takes every move at o (canonical, P's opponent to move, not a leaf). */
static int build_other(struct builder *b, const struct bp_pos *o, int depth)
{
	const struct bp_game *g = b->g;
	int rc = fp_add(b->seen, fingerprint(o, 0));
	if (rc <= 0)
		return rc;
	if (depth > MAX_BUILD_DEPTH)
		return BP_ERANGE;
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!mv)
		return BP_ENOMEM;
	int n = g->ops->moves(g, o, mv);
	rc = BP_OK;
	for (int k = 0; k < n && !rc; k++) {
		struct bp_pos ch = *o, c;
		g->ops->apply(g, &ch, mv[k]);
		bp_game_canonical(g, &ch, &c);
		int kind;
		enum bp_value v = g->ops->outcome(g, &c);
		if (v != BP_VALUE_NONE) {
			if (!meets(b->pt, 1, v))
				rc = claim_fails(b, o, 0, depth);
			continue;
		}
		uint64_t f = fingerprint(&c, 1);
		if (fp_has(b->seen, f))
			continue;
		int leaf = leaf_of(g, b->table, b->pt, 1, &c, &kind);
		if (leaf < 0)
			rc = claim_fails(b, o, 0, depth);
		else if (!leaf && (rc = fp_add(b->seen, f)) == 1)
			rc = build_mine(b, &c, depth + 1);
	}
	free(mv);
	return rc;
}

int bp_proof_build(bp_dfpn *d, const struct bp_game *g, bp_table *table,
		   const struct bp_proof_lemmas *lemmas, const struct bp_pos *root, enum bp_value v,
		   const struct bp_proof_progress *progress, struct bp_proof **out,
		   struct bp_err *err)
{
	*out = NULL;
	struct bp_proof *pf = calloc(1, sizeof *pf);
	if (!pf)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	snprintf(pf->spec, sizeof pf->spec, "%s", g->spec);
	pf->root = *root;
	pf->value = v;
	/* (player, goal) of each strategy */
	if (v == BP_VALUE_WIN) {
		pf->nparts = 1;
		pf->parts[0].player = 0, pf->parts[0].goal = 0;
	} else if (v == BP_VALUE_LOSS) {
		pf->nparts = 1;
		pf->parts[0].player = 1, pf->parts[0].goal = 0;
	} else if (v == BP_VALUE_DRAW) {
		pf->nparts = 2;
		pf->parts[0].player = 0, pf->parts[0].goal = 1;
		pf->parts[1].player = 1, pf->parts[1].goal = 1;
	} else {
		free(pf);
		return bp_err_set(err, BP_EINVAL, "no value to prove");
	}
	int rc = BP_OK;
	struct bp_pos canon;
	bp_game_canonical(g, root, &canon);
	if (g->ops->outcome(g, &canon) != BP_VALUE_NONE)
		rc = BP_ECORRUPT; /* a game over has no proof to build */
	uint64_t decisions = 0;
	struct claim_failure failed = { 0 };
	for (int k = 0; k < pf->nparts && !rc; k++) {
		struct part *pt = &pf->parts[k];
		struct builder b = { .d = d,
				     .g = g,
				     .table = table,
				     .pt = pt,
				     .seen = calloc(1, sizeof(struct fpset)),
				     .progress = progress,
				     .lemmas = lemmas,
				     .decisions = decisions };
		b.want = pt->player == 0;
		b.sgoal = pt->player == 0 ? (pt->goal == 0 ? 0 : 1) : (pt->goal == 0 ? 1 : 0);
		rc = b.seen ? bp_zout_create(PROOF_ZLEVEL, &b.z) : BP_ENOMEM;
		if (!rc && pt->player == 0)
			rc = fp_add(b.seen, fingerprint(&canon, 1)) < 0 ? BP_ENOMEM
									: build_mine(&b, &canon, 0);
		else if (!rc)
			rc = build_other(&b, &canon, 0);
		if (b.seen)
			fp_free(b.seen);
		free(b.seen);
		decisions = b.decisions;
		pf->lemmas += b.lemma_roots;
		if (b.bad.set)
			failed = b.bad;
		if (!rc) {
			rc = bp_zout_finish(b.z, &pt->z, &pt->zlen);
			pt->width = (uint8_t)b.width;
		} else
			bp_zout_destroy(b.z);
	}
	if (rc == BP_ECORRUPT && failed.set) {
		bp_proof_free(pf);
		struct bp_text t = { 0 };
		g->ops->pos_format(g, &failed.pos, &t);
		bp_err_set(err, rc,
			   "no proof: at ply %d (%s) %s, so the value rests on something false "
			   "(a key collision, or a stored value); prove again into a fresh "
			   "database",
			   failed.depth, t.s ? t.s : "?",
			   failed.mine ? "no move is good" : "a reply is not answered");
		bp_text_free(&t);
		return rc;
	}
	if (rc) {
		bp_proof_free(pf);
		return bp_err_set(err, rc,
				  rc == BP_ECORRUPT ? "the search's table holds no proof here"
				  : rc == BP_ENOTFOUND
					  ? "a search below the root was stopped by a limit"
				  : rc == BP_ERANGE ? "the proof is deeper than the builder allows"
				  : rc == BP_EIO    ? "compressing the proof failed"
						    : "out of memory");
	}
	*out = pf;
	return BP_OK;
}

void bp_proof_free(struct bp_proof *pf)
{
	if (!pf)
		return;
	for (int k = 0; k < 2; k++)
		part_free(&pf->parts[k]);
	free(pf);
}

uint64_t bp_proof_lemmas_taken(const struct bp_proof *pf)
{
	return pf->lemmas;
}

uint64_t bp_proof_size(const struct bp_proof *pf)
{
	uint64_t n = 0;
	for (int k = 0; k < pf->nparts; k++)
		n += pf->parts[k].count;
	return n;
}

enum bp_value bp_proof_value(const struct bp_proof *pf)
{
	return pf->value;
}

const struct bp_pos *bp_proof_root(const struct bp_proof *pf)
{
	return &pf->root;
}

const char *bp_proof_spec(const struct bp_proof *pf)
{
	return pf->spec;
}

/* ---- serialization ---- */

struct wbuf {
	uint8_t *b;
	size_t n, cap;
	int oom;
};

static void put(struct wbuf *w, const void *p, size_t n)
{
	if (w->oom)
		return;
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		while (cap < w->n + n)
			cap *= 2;
		uint8_t *b = realloc(w->b, cap);
		if (!b) {
			w->oom = 1;
			return;
		}
		w->b = b;
		w->cap = cap;
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void put_le(struct wbuf *w, uint64_t v, int bytes)
{
	uint8_t b[8];
	le_put(b, v, bytes);
	put(w, b, (size_t)bytes);
}

/* Compresses a part's decoded records into its frame. */
static int part_compress(const struct part *pt, uint8_t **z, size_t *zlen)
{
	bp_zout *o;
	int rc = bp_zout_create(PROOF_ZLEVEL, &o);
	for (uint64_t i = 0; i < pt->count && !rc; i++) {
		struct bp_pos p = { { 0 } };
		memcpy(p.w, pt->words + i * pt->width, sizeof(uint64_t) * pt->width);
		rc = put_decision(o, p.w, pos_nwords(&p), pt->moves[i]);
	}
	if (rc) {
		bp_zout_destroy(o);
		return rc;
	}
	return bp_zout_finish(o, z, zlen);
}

int bp_proof_encode(const struct bp_proof *pf, uint8_t **buf, size_t *len)
{
	struct wbuf w = { 0 };
	put(&w, "BPPROOF", 8);
	put_le(&w, BP_PROOF_VERSION, 4);
	uint32_t sl = (uint32_t)strlen(pf->spec);
	put_le(&w, sl, 4);
	put(&w, pf->spec, sl);
	put_le(&w, pf->value, 1);
	put_le(&w, (unsigned)pf->nparts, 1);
	int nw = pos_nwords(&pf->root);
	put_le(&w, (unsigned)nw, 1);
	for (int i = 0; i < nw; i++)
		put_le(&w, pf->root.w[i], 8);
	for (int k = 0; k < pf->nparts; k++) {
		const struct part *pt = &pf->parts[k];
		uint8_t *z = pt->z;
		size_t zlen = pt->zlen;
		if (!z) {
			int rc = part_compress(pt, &z, &zlen);
			if (rc) {
				free(w.b);
				return rc == BP_EIO ? BP_EIO : BP_ENOMEM;
			}
		}
		put_le(&w, pt->player, 1);
		put_le(&w, pt->goal, 1);
		put_le(&w, pt->width, 1);
		put_le(&w, pt->count, 8);
		put_le(&w, zlen, 8);
		put(&w, z, zlen);
		if (z != pt->z)
			free(z);
	}
	if (w.oom) {
		free(w.b);
		return BP_ENOMEM;
	}
	*buf = w.b;
	*len = w.n;
	return BP_OK;
}

struct rbuf {
	const uint8_t *b;
	size_t n, at;
	int bad;
};

static uint64_t get(struct rbuf *r, int bytes)
{
	if (r->bad || r->n - r->at < (size_t)bytes) {
		r->bad = 1;
		return 0;
	}
	uint64_t v = le_get(r->b + r->at, bytes);
	r->at += (size_t)bytes;
	return v;
}

/* Room for cap records of a part's width (more as they come: glibc moves large blocks
 * by remapping, so growing costs no copy). @return BP_OK; BP_ENOMEM. */
static int part_reserve(struct part *pt, uint64_t cap)
{
	uint64_t *w = realloc(pt->words, sizeof *w * (cap * pt->width + 1));
	if (w)
		pt->words = w;
	uint32_t *m = realloc(pt->moves, sizeof *m * (cap + 1));
	if (m)
		pt->moves = m;
	return w && m ? BP_OK : BP_ENOMEM;
}

/* Decodes a version 3 part's frame into its records. @return BP_OK; BP_ECORRUPT;
 * BP_ENOMEM. */
/* Reads one record of a version 3 part's frame: its words into w (the width's words,
 * zero past the nw it holds) and its move. @return BP_OK; BP_ECORRUPT (wider than the
 * part, or not in its cut form); bp_zin_read's error. */
static int read_record(bp_zin *in, int width, uint64_t *w, int *nw, uint32_t *move)
{
	uint8_t b[8 * BP_POS_WORDS + 4];
	int rc = bp_zin_read(in, b, 1);
	if (rc)
		return rc;
	*nw = b[0];
	if (*nw > width)
		return BP_ECORRUPT;
	if ((rc = bp_zin_read(in, b, (size_t)(8 * *nw + 4))))
		return rc;
	memset(w, 0, sizeof(uint64_t) * (size_t)width);
	for (int j = 0; j < *nw; j++)
		w[j] = le_get(b + 8 * j, 8);
	*move = (uint32_t)le_get(b + 8 * *nw, 4);
	return *nw && w[*nw - 1] == 0 ? BP_ECORRUPT : BP_OK; /* not in its cut form */
}

static int part_decode(struct part *pt, const uint8_t *z, size_t zlen)
{
	/* the records come as they decode, never trusting the count for an allocation */
	uint64_t cap = pt->count < 4096 ? pt->count : 4096;
	bp_zin *in;
	int rc = part_reserve(pt, cap);
	if (rc || (rc = bp_zin_create(z, zlen, &in)))
		return rc;
	for (uint64_t i = 0; i < pt->count && !rc; i++) {
		if (i == cap) {
			cap = pt->count - cap < cap ? pt->count : 2 * cap;
			if ((rc = part_reserve(pt, cap)))
				break;
		}
		int nw;
		rc = read_record(in, pt->width, pt->words + i * pt->width, &nw, &pt->moves[i]);
	}
	if (!rc)
		rc = bp_zin_end(in);
	bp_zin_destroy(in);
	return rc == BP_ENOTFOUND ? BP_ECORRUPT : rc;
}

/* Reads a version 1 or 2 part's nodes, keeping the decisions: two passes, the first
 * for their count and width. @return BP_OK; BP_ECORRUPT; BP_ENOMEM. */
static int part_decode_nodes(struct part *pt, struct rbuf *r, uint64_t version)
{
	uint64_t cnt = get(r, 8);
	if (cnt > r->n)
		return BP_ECORRUPT;
	size_t start = r->at;
	for (int pass = 0; pass < 2; pass++) {
		r->at = start;
		uint64_t d = 0;
		for (uint64_t i = 0; i < cnt && !r->bad; i++) {
			unsigned kp = (unsigned)get(r, 1);
			int w = (int)get(r, 1);
			if ((kp & 3) > (version == 1 ? KIND_TABLE : KIND_BOUND) || kp > 7 ||
			    w > BP_POS_WORDS)
				return BP_ECORRUPT;
			struct bp_pos p = { { 0 } };
			for (int j = 0; j < w; j++)
				p.w[j] = get(r, 8);
			if (pos_nwords(&p) != w)
				return BP_ECORRUPT; /* not in its cut form */
			if ((kp & 3) != KIND_INNER || !(kp >> 2))
				continue;
			uint32_t move = (uint32_t)get(r, 4);
			if (pass == 0) {
				if (w > pt->width)
					pt->width = (uint8_t)w;
			} else {
				uint64_t *to = pt->words + d * pt->width;
				memset(to, 0, sizeof(uint64_t) * pt->width);
				memcpy(to, p.w, sizeof(uint64_t) * (size_t)w);
				pt->moves[d] = move;
			}
			d++;
		}
		if (r->bad)
			return BP_ECORRUPT;
		pt->count = d;
		if (pass == 0 && part_reserve(pt, d))
			return BP_ENOMEM;
	}
	return BP_OK;
}

static int decode(const uint8_t *buf, size_t len, int head, struct bp_proof **out,
		  struct bp_err *err);

int bp_proof_decode(const uint8_t *buf, size_t len, struct bp_proof **out, struct bp_err *err)
{
	return decode(buf, len, 0, out, err);
}

int bp_proof_peek(const uint8_t *buf, size_t len, struct bp_proof_info *out, struct bp_err *err)
{
	struct bp_proof *pf;
	int rc = decode(buf, len, 1, &pf, err);
	if (rc)
		return rc;
	snprintf(out->spec, sizeof out->spec, "%s", pf->spec);
	out->value = pf->value;
	out->root = pf->root;
	out->decisions = bp_proof_size(pf);
	bp_proof_free(pf);
	return BP_OK;
}

/* Targets of bp_proof_find_many by the hash of their words (open addressing, a power
 * of two at least twice their number): a record is hashed once and compared with the
 * few targets in its run of slots. */
struct targets {
	const struct bp_pos *p;
	int n, mask;
	int *slot; /* target index + 1; 0 empty */
};

static uint64_t words_hash(const uint64_t *w, int nw)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)nw;
	for (int i = 0; i < nw; i++)
		h = (h ^ w[i]) * 0xbf58476d1ce4e5b9ull + (h >> 29);
	return h ^ h >> 31;
}

/* The first target (from *from on) whose words are w[0 .. nw): its index, or -1. */
static int target_of(const struct targets *t, const uint64_t *w, int nw, int *from)
{
	for (int k = *from; t->slot[k]; k = (k + 1) & t->mask) {
		int i = t->slot[k] - 1;
		*from = (k + 1) & t->mask;
		if (pos_nwords(&t->p[i]) == nw && same_words(t->p[i].w, w, nw))
			return i;
	}
	return -1;
}

static void mark(const struct targets *t, const uint64_t *w, int nw, const struct part *pt,
		 uint32_t mv, enum bp_value v, struct bp_proof_decision *out, uint8_t *found,
		 int *nfound)
{
	int from = (int)(words_hash(w, nw) & (uint64_t)t->mask), i;
	while ((i = target_of(t, w, nw, &from)) >= 0)
		if (!found[i]) {
			found[i] = 1;
			out[i] = (struct bp_proof_decision){ mv, pt->player, pt->goal, v };
			++*nfound;
		}
}

/* Scans a version 3 part's frame (len bytes at z) for the targets' decisions without
 * keeping the records. @return BP_OK; BP_ECORRUPT; BP_ENOMEM. */
static int frame_find(const struct part *pt, const uint8_t *z, size_t len, const struct targets *t,
		      enum bp_value v, struct bp_proof_decision *out, uint8_t *found, int *nfound)
{
	bp_zin *in;
	int rc = bp_zin_create(z, len, &in);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < pt->count && !rc && *nfound < t->n; i++) {
		uint64_t w[BP_POS_WORDS];
		uint32_t mv;
		int nw;
		if (!(rc = read_record(in, pt->width, w, &nw, &mv)))
			mark(t, w, nw, pt, mv, v, out, found, nfound);
	}
	bp_zin_destroy(in);
	return rc == BP_ENOTFOUND ? BP_ECORRUPT : rc;
}

int bp_proof_find_many(const uint8_t *buf, size_t len, const struct bp_pos *canons, int n,
		       struct bp_proof_decision *out, uint8_t *found, struct bp_err *err)
{
	struct targets t = { canons, n, 1, NULL };
	int nfound = 0;
	for (int i = 0; i < n; i++)
		nfound += found[i];
	while (t.mask + 1 < 2 * n)
		t.mask = 2 * t.mask + 1;
	if (!(t.slot = calloc((size_t)t.mask + 1, sizeof *t.slot)))
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		int k = (int)(words_hash(canons[i].w, pos_nwords(&canons[i])) & (uint64_t)t.mask);
		while (t.slot[k])
			k = (k + 1) & t.mask;
		t.slot[k] = i + 1;
	}
	struct bp_proof *pf;
	int rc = decode(buf, len, 1, &pf, err);
	uint64_t version = rc ? 0 : le_get(buf + 8, 4);
	if (!rc && version < 3) { /* the old formats: decoded whole (their proofs are small) */
		bp_proof_free(pf);
		rc = bp_proof_decode(buf, len, &pf, err);
	}
	if (rc) {
		free(t.slot);
		return rc;
	}
	for (int k = 0; k < pf->nparts && !rc && nfound < n; k++) {
		const struct part *pt = &pf->parts[k];
		if (version >= 3) {
			rc = frame_find(pt, buf + pt->zat, pt->zlen, &t, pf->value, out, found,
					&nfound);
			continue;
		}
		for (uint64_t i = 0; i < pt->count && nfound < n; i++) {
			const uint64_t *w = pt->words + i * pt->width;
			mark(&t, w, cut_len(w, pt->width), pt, pt->moves[i], pf->value, out, found,
			     &nfound);
		}
	}
	bp_proof_free(pf);
	free(t.slot);
	if (rc)
		return bp_err_set(err, rc, "%s",
				  rc == BP_ENOMEM ? "out of memory" : "a damaged proof frame");
	return nfound;
}

int bp_proof_find(const uint8_t *buf, size_t len, const struct bp_pos *canon,
		  struct bp_proof_decision *out, struct bp_err *err)
{
	uint8_t found = 0;
	int rc = bp_proof_find_many(buf, len, canon, 1, out, &found, err);
	return rc < 0 ? rc : found;
}

/* bp_proof_decode; with head set, a version 3 part's frame is skipped, not decoded
 * (its count is read, its records left out: the proof serves bp_proof_peek only). */
static int decode(const uint8_t *buf, size_t len, int head, struct bp_proof **out,
		  struct bp_err *err)
{
	*out = NULL;
	if (len < 16 || memcmp(buf, "BPPROOF", 8) != 0)
		return bp_err_set(err, BP_ECORRUPT, "not a saved proof");
	struct rbuf r = { buf, len, 8, 0 };
	uint64_t version = get(&r, 4);
	if (version < 1 || version > BP_PROOF_VERSION)
		return bp_err_set(err, BP_EFORMAT, "a proof of another format version");
	struct bp_proof *pf = calloc(1, sizeof *pf);
	if (!pf)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	int rc = BP_OK;
	uint64_t sl = get(&r, 4);
	if (sl >= sizeof pf->spec || r.n - r.at < sl)
		goto bad;
	memcpy(pf->spec, buf + r.at, sl);
	r.at += sl;
	pf->value = (enum bp_value)get(&r, 1);
	pf->nparts = (int)get(&r, 1);
	int nw = (int)get(&r, 1);
	if (nw > BP_POS_WORDS || pf->nparts < 1 || pf->nparts > 2 || pf->value > 3)
		goto bad;
	for (int i = 0; i < nw; i++)
		pf->root.w[i] = get(&r, 8);
	for (int k = 0; k < pf->nparts && !r.bad; k++) {
		struct part *pt = &pf->parts[k];
		pt->player = (uint8_t)get(&r, 1);
		pt->goal = (uint8_t)get(&r, 1);
		if (pt->player > 1 || pt->goal > 1)
			goto bad;
		if (version < 3) {
			rc = part_decode_nodes(pt, &r, version);
		} else {
			pt->width = (uint8_t)get(&r, 1);
			pt->count = get(&r, 8);
			uint64_t zlen = get(&r, 8);
			if (r.bad || pt->width > BP_POS_WORDS || zlen > r.n - r.at)
				goto bad;
			rc = head ? BP_OK : part_decode(pt, buf + r.at, (size_t)zlen);
			pt->zat = r.at;
			pt->zlen = (size_t)zlen;
			r.at += (size_t)zlen;
		}
		if (rc == BP_ENOMEM) {
			bp_proof_free(pf);
			return bp_err_set(err, BP_ENOMEM, "out of memory");
		}
		if (rc)
			goto bad;
	}
	if (r.bad || r.at != r.n)
		goto bad;
	*out = pf;
	return BP_OK;
bad:
	bp_proof_free(pf);
	return bp_err_set(err, BP_ECORRUPT, "malformed proof near byte %zu", r.at);
}

/* Decodes a built part's frame (once) for the checker or a change. */
static int part_records(struct part *pt)
{
	if (pt->words)
		return BP_OK;
	if (!pt->z) /* no decisions */
		return part_reserve(pt, 0);
	int rc = part_decode(pt, pt->z, pt->zlen);
	return rc == BP_ECORRUPT ? BP_EIO : rc;
}

int bp_proof_tamper(struct bp_proof *pf, uint64_t which)
{
	struct part *pt = &pf->parts[0];
	if (!pt->count || part_records(pt))
		return BP_EINVAL;
	free(pt->z); /* the records are the proof now: encode compresses them again */
	pt->z = NULL;
	pt->zlen = 0;
	uint64_t i = which % pt->count;
	if (which / pt->count % 2 == 0 || !pt->width)
		pt->moves[i] ^= 1; /* another move, or no move at all */
	else
		pt->words[i * pt->width] ^= 1; /* another position */
	return BP_OK;
}

/* ---- the checker ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
fail(struct bp_proof_report *rep, const char *fmt, ...)
{
	if (!rep->ok)
		return;
	rep->ok = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->problem, sizeof rep->problem, fmt, ap);
	va_end(ap);
}

/* One level of the checker's walk: the position o after a decision (or the root, when
 * the root's player is not the strategy's), its moves, and the next one to look at. */
struct frame {
	uint64_t rec; /* the decision that led here, or UINT64_MAX for the root */
	struct bp_pos o;
	struct bp_move *mv;
	int n, k;
};

struct checker {
	const struct bp_game *g;
	bp_table *table;
	const struct part *pt;
	struct bp_proof_report *rep;
	uint32_t *idx; /* open addressing over record numbers + 1 (0 empty) */
	uint64_t icap;
	uint8_t *state; /* per record: 0 not reached, 1 on the walk's path, 2 done */
	struct frame *fr;
	int nfr, capfr;
	struct bp_move *mv; /* scratch for a decision's moves */
	char where[160];    /* scratch for position text */
};

static uint64_t rec_hash(const uint64_t *w, int nw)
{
	return bp_hash64(w, sizeof(uint64_t) * (size_t)nw, 0x636865636bull);
}

/* The record holding p, or -1. */
static int64_t find(const struct checker *c, const struct bp_pos *p)
{
	const struct part *pt = c->pt;
	int nw = pos_nwords(p);
	if (nw > pt->width || !c->icap)
		return -1;
	/* records are zero-padded to the width, as p is past its last word */
	for (uint64_t h = rec_hash(p->w, nw) & (c->icap - 1);; h = (h + 1) & (c->icap - 1)) {
		uint32_t v = c->idx[h];
		if (!v)
			return -1;
		if (same_words(pt->words + (uint64_t)(v - 1) * pt->width, p->w, pt->width))
			return (int64_t)(v - 1);
	}
}

/* Indexes every record; a position twice is a malformed proof. */
static int index_all(struct checker *c)
{
	const struct part *pt = c->pt;
	if (pt->count >= UINT32_MAX)
		return BP_ERANGE;
	c->icap = 16;
	while (c->icap < pt->count + pt->count / 2 + 1)
		c->icap *= 2;
	c->idx = calloc(c->icap, sizeof *c->idx);
	c->state = calloc(pt->count + 1, 1);
	if (!c->idx || !c->state)
		return BP_ENOMEM;
	for (uint64_t i = 0; i < pt->count; i++) {
		const uint64_t *w = pt->words + i * pt->width;
		uint64_t h = rec_hash(w, cut_len(w, pt->width)) & (c->icap - 1);
		for (; c->idx[h]; h = (h + 1) & (c->icap - 1)) {
			uint32_t v = c->idx[h];
			if (same_words(pt->words + (uint64_t)(v - 1) * pt->width, w, pt->width)) {
				fail(c->rep, "decision %llu repeats decision %llu's position",
				     (unsigned long long)i, (unsigned long long)(v - 1));
				return BP_OK;
			}
		}
		c->idx[h] = (uint32_t)(i + 1);
	}
	return BP_OK;
}

/* Text for p in problems. */
static const char *where(struct checker *c, const struct bp_pos *p)
{
	struct bp_text t = { 0 };
	c->g->ops->pos_format(c->g, p, &t);
	snprintf(c->where, sizeof c->where, "%s", t.s ? bp_text_str(&t) : "a position");
	bp_text_free(&t);
	return c->where;
}

/* A leaf met on the walk, counted; 0 when p is no leaf, -1 when it misses the goal
 * (the problem said). */
static int leaf_checked(struct checker *c, int pmove, const struct bp_pos *p)
{
	int kind, r = leaf_of(c->g, c->table, c->pt, pmove, p, &kind);
	if (r < 0) {
		fail(c->rep, "%s (%s) ends the strategy with a value that misses its goal",
		     where(c, p), kind == KIND_TERMINAL ? "the game is over" : "the solved table");
		return -1;
	}
	if (r > 0) {
		if (kind == KIND_TERMINAL)
			c->rep->terminal_leaves++;
		else if (kind == KIND_TABLE)
			c->rep->table_leaves++;
		else
			c->rep->bound_leaves++;
	}
	return r;
}

/* Enters o, the position after decision rec (UINT64_MAX: the root) with P's opponent
 * to move: a leaf ends there, else a frame for its moves. */
static int enter_other(struct checker *c, uint64_t rec, const struct bp_pos *o, int root)
{
	if (!root) {
		int r = leaf_checked(c, 0, o);
		if (r) {
			if (rec != UINT64_MAX)
				c->state[rec] = 2;
			return BP_OK;
		}
	}
	if (c->nfr == c->capfr) {
		int cap = c->capfr ? 2 * c->capfr : 64;
		struct frame *f = realloc(c->fr, sizeof *f * (size_t)cap);
		if (!f)
			return BP_ENOMEM;
		for (int i = c->capfr; i < cap; i++)
			f[i].mv = NULL;
		c->fr = f;
		c->capfr = cap;
	}
	struct frame *f = &c->fr[c->nfr];
	if (!f->mv && !(f->mv = bp_game_move_buffer(c->g)))
		return BP_ENOMEM;
	c->nfr++;
	f->rec = rec;
	f->o = *o;
	f->n = c->g->ops->moves(c->g, o, f->mv);
	f->k = 0;
	return BP_OK;
}

/* Enters decision rec: its move must be legal; then the position after it. */
static int enter_mine(struct checker *c, uint64_t rec)
{
	const struct part *pt = c->pt;
	const struct bp_game *g = c->g;
	struct bp_pos p = { { 0 } }, ch, o;
	memcpy(p.w, pt->words + rec * pt->width, sizeof(uint64_t) * pt->width);
	c->state[rec] = 1;
	c->rep->nodes++;
	struct bp_move *mv = c->mv;
	int n = g->ops->moves(g, &p, mv), k = 0;
	while (k < n && mv[k].v != pt->moves[rec])
		k++;
	if (k == n) {
		fail(c->rep, "decision %llu at %s plays a move that is not legal",
		     (unsigned long long)rec, where(c, &p));
		return BP_OK;
	}
	ch = p;
	g->ops->apply(g, &ch, mv[k]);
	bp_game_canonical(g, &ch, &o);
	return enter_other(c, rec, &o, 0);
}

/* Checks one strategy by a depth-first walk from the root over its decisions. */
static int check_part(const struct bp_game *g, bp_table *table, const struct part *pt,
		      const struct bp_pos *root, struct bp_proof_report *rep)
{
	struct checker c = { g, table, pt, rep, NULL, 0, NULL, NULL, 0, 0, NULL, { 0 } };
	int rc = (c.mv = bp_game_move_buffer(g)) ? index_all(&c) : BP_ENOMEM;
	struct bp_pos canon;
	bp_game_canonical(g, root, &canon);
	if (!rc && rep->ok) {
		if (pt->player == 0) {
			int64_t r0 = find(&c, &canon);
			if (r0 < 0)
				fail(rep, "the root is not among the proof's decisions");
			else
				rc = enter_mine(&c, (uint64_t)r0);
		} else
			rc = enter_other(&c, UINT64_MAX, &canon, 1);
	}
	while (!rc && rep->ok && c.nfr) {
		struct frame *f = &c.fr[c.nfr - 1];
		if (f->k == f->n) {
			if (f->rec != UINT64_MAX)
				c.state[f->rec] = 2;
			c.nfr--;
			continue;
		}
		struct bp_pos ch = f->o, p;
		g->ops->apply(g, &ch, f->mv[f->k++]);
		bp_game_canonical(g, &ch, &p);
		if (g->ops->outcome(g, &p) != BP_VALUE_NONE) {
			leaf_checked(&c, 1, &p);
			continue;
		}
		int64_t j = find(&c, &p);
		if (j >= 0) {
			if (c.state[j] == 0)
				rc = enter_mine(&c, (uint64_t)j);
			else if (c.state[j] == 1 && pt->goal == 0)
				fail(rep, "the win strategy cycles through %s", where(&c, &p));
			continue;
		}
		if (!leaf_checked(&c, 1, &p))
			fail(rep,
			     "%s, a reply's result, is not among the proof's decisions, and is not "
			     "over, in the solved table or settled by the game's bounds",
			     where(&c, &p));
	}
	for (int i = 0; i < c.capfr; i++)
		free(c.fr[i].mv);
	free(c.fr);
	free(c.mv);
	free(c.idx);
	free(c.state);
	return rc;
}

int bp_proof_check(const struct bp_game *g, const struct bp_proof *pf, bp_table *table,
		   struct bp_proof_report *out)
{
	memset(out, 0, sizeof *out);
	out->ok = 1;
	if (strcmp(pf->spec, g->spec) != 0)
		return BP_EFORMAT;
	/* the root comes as words from outside: no op may read it before it is known to
	 * be a position of g (the positions below it are matched against children the
	 * rules make, so they need no such check) */
	struct bp_err perr = { { 0 } };
	int prc = bp_game_pos_check(g, &pf->root, &perr);
	if (prc == BP_ENOMEM)
		return BP_ENOMEM;
	if (prc) {
		fail(out, "the root is not a position of the game: %s", perr.msg);
		return BP_OK;
	}
	/* the strategies the value needs */
	int need[2][2] = { { 0 } }; /* [player][goal] */
	if (pf->value == BP_VALUE_WIN)
		need[0][0] = 1;
	else if (pf->value == BP_VALUE_LOSS)
		need[1][0] = 1;
	else if (pf->value == BP_VALUE_DRAW)
		need[0][1] = need[1][1] = 1;
	else {
		fail(out, "the proof claims no value");
		return BP_OK;
	}
	for (int k = 0; k < pf->nparts; k++)
		need[pf->parts[k].player][pf->parts[k].goal] = 0;
	if (need[0][0] || need[1][0] || need[0][1] || need[1][1]) {
		fail(out, "the proof lacks a strategy that a %s needs", bp_value_name(pf->value));
		return BP_OK;
	}
	if (g->ops->outcome(g, &pf->root) != BP_VALUE_NONE) {
		fail(out, "the root is terminal");
		return BP_OK;
	}
	for (int k = 0; k < pf->nparts && out->ok; k++) {
		/* a built proof has its decisions compressed only: a private decoded copy */
		struct part pt = pf->parts[k];
		int own = !pt.words;
		if (own) {
			pt.words = NULL;
			pt.moves = NULL;
			int rc = part_records(&pt);
			if (rc) {
				free(pt.words);
				free(pt.moves);
				return rc;
			}
		}
		int rc = check_part(g, table, &pt, &pf->root, out);
		if (own) {
			free(pt.words);
			free(pt.moves);
		}
		if (rc)
			return rc;
	}
	return BP_OK;
}
