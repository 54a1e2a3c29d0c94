/* SPDX-License-Identifier: MIT */
/* Proof trees (solver/proof.h): extraction from the df-pn table, serialization, and
 * the independent checker.
 *
 * Serialized format, version 2 (BP_PROOF_VERSION), little-endian:
 *
 *     "BPPROOF\0"  u32 version  u32 speclen  spec bytes
 *     u8 value  u8 nparts  u8 nwords  root position words (u64 each)
 *     per part:  u8 player (0 the root's player to move, 1 the other)  u8 goal (0 win,
 *                1 not lose)  u64 nnodes
 *                per node: u8 kind | pmove << 2  u8 nwords  words  [u32 move]
 *
 * kind 0 an inner node, 1 a terminal leaf, 2 a leaf of the solved table, 3 a leaf
 * that the game's value bounds decide (bp_game_ops.bounds: rules code, which the
 * checker calls again on the leaf; the part's goal must hold for every value within
 * them); pmove 1 when the part's player is to move there (then an inner node carries
 * the move it plays, a move of the canonical position). Positions are canonical, cut
 * after their last non-zero word. There is no checksum on purpose: the checker is the
 * check. Version 1 is version 2 without kind 3; it is still read.
 *
 * Extraction. Each strategy is the attacker's or defender's side of one df-pn goal:
 * "win" for the root's player is a proof of GOAL_WIN; "win" for the other player a
 * disproof of GOAL_NOTLOSE; "not lose" for the root's player a proof of GOAL_NOTLOSE;
 * "not lose" for the other a disproof of GOAL_WIN. The builder walks from the root:
 * at a node of P it picks a child that the table (or a fresh search) shows good for
 * P, preferring terminal children, then children already in the proof, then final
 * table entries, searching only when none is known; at the other player's nodes it
 * takes every child. A node joins the set before its children are visited, so a cycle
 * closes on it (allowed in "not lose" strategies only, which the checker enforces). */
#include "solver/proof.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/probe.h"

#define MAX_BUILD_DEPTH 20000

#define BP_PROOF_VERSION 2

enum { KIND_INNER = 0, KIND_TERMINAL = 1, KIND_TABLE = 2, KIND_BOUND = 3 };

struct pnode {
	uint64_t off; /* into the part's word arena */
	uint8_t nwords, kind, pmove;
	uint32_t move;
};

struct part {
	uint8_t player, goal;
	struct pnode *n;
	uint64_t count, cap;
	uint64_t *words;
	uint64_t nw, capw;
	/* index: open addressing over node numbers + 1 (0 empty) */
	uint64_t *idx;
	uint64_t icap, nidx;
};

struct bp_proof {
	char spec[256];
	struct bp_pos root;
	enum bp_value value;
	int nparts;
	struct part parts[2];
};

static uint64_t mixh(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return x;
}

static int pos_nwords(const struct bp_pos *p)
{
	int n = BP_POS_WORDS;
	while (n > 0 && p->w[n - 1] == 0)
		n--;
	return n;
}

static uint64_t node_hash(const struct bp_pos *p, int pmove)
{
	return mixh(bp_pos_hash(p) ^ (uint64_t)pmove);
}

static void node_pos(const struct part *pt, const struct pnode *n, struct bp_pos *out)
{
	memset(out, 0, sizeof *out);
	if (n->nwords)
		memcpy(out->w, pt->words + n->off, sizeof(uint64_t) * n->nwords);
}

/* @return the node number of (p, pmove) in pt, or -1. */
static int64_t part_find(const struct part *pt, const struct bp_pos *p, int pmove)
{
	if (!pt->icap)
		return -1;
	int nw = pos_nwords(p);
	for (uint64_t h = node_hash(p, pmove) & (pt->icap - 1);; h = (h + 1) & (pt->icap - 1)) {
		uint64_t v = pt->idx[h];
		if (!v)
			return -1;
		const struct pnode *n = &pt->n[v - 1];
		if (n->pmove == pmove && n->nwords == nw &&
		    (!nw || memcmp(pt->words + n->off, p->w, sizeof(uint64_t) * (size_t)nw) == 0))
			return (int64_t)(v - 1);
	}
}

static int index_put(struct part *pt, uint64_t i)
{
	if (2 * (pt->nidx + 1) > pt->icap) {
		uint64_t cap = pt->icap ? pt->icap * 2 : 1024;
		uint64_t *idx = calloc(cap, sizeof *idx);
		if (!idx)
			return BP_ENOMEM;
		for (uint64_t h = 0; h < pt->icap; h++) {
			uint64_t v = pt->idx[h];
			if (!v)
				continue;
			struct bp_pos p;
			node_pos(pt, &pt->n[v - 1], &p);
			uint64_t x = node_hash(&p, pt->n[v - 1].pmove) & (cap - 1);
			while (idx[x])
				x = (x + 1) & (cap - 1);
			idx[x] = v;
		}
		free(pt->idx);
		pt->idx = idx;
		pt->icap = cap;
	}
	struct bp_pos p;
	node_pos(pt, &pt->n[i], &p);
	uint64_t h = node_hash(&p, pt->n[i].pmove) & (pt->icap - 1);
	while (pt->idx[h])
		h = (h + 1) & (pt->icap - 1);
	pt->idx[h] = i + 1;
	pt->nidx++;
	return BP_OK;
}

/* Appends a node (not yet indexed). @return its number, or BP_ENOMEM. */
static int64_t part_add(struct part *pt, const struct bp_pos *p, int pmove, int kind)
{
	int nw = pos_nwords(p);
	if (pt->count == pt->cap) {
		uint64_t cap = pt->cap ? pt->cap * 2 : 256;
		struct pnode *n = realloc(pt->n, sizeof *n * cap);
		if (!n)
			return BP_ENOMEM;
		pt->n = n;
		pt->cap = cap;
	}
	if (pt->nw + (uint64_t)nw > pt->capw) {
		uint64_t cap = pt->capw ? pt->capw * 2 : 1024;
		while (cap < pt->nw + (uint64_t)nw)
			cap *= 2;
		uint64_t *w = realloc(pt->words, sizeof *w * cap);
		if (!w)
			return BP_ENOMEM;
		pt->words = w;
		pt->capw = cap;
	}
	struct pnode *n = &pt->n[pt->count];
	n->off = pt->nw;
	n->nwords = (uint8_t)nw;
	n->kind = (uint8_t)kind;
	n->pmove = (uint8_t)pmove;
	n->move = 0;
	if (nw) /* an all-zero position (an empty board) has no words */
		memcpy(pt->words + pt->nw, p->w, sizeof(uint64_t) * (size_t)nw);
	pt->nw += (uint64_t)nw;
	pt->count++;
	return (int64_t)(pt->count - 1);
}

static void part_free(struct part *pt)
{
	free(pt->n);
	free(pt->words);
	free(pt->idx);
}

/* Whether a value for the player to move at a node meets the part's goal. */
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

/* ---- extraction ---- */

struct builder {
	bp_dfpn *d;
	const struct bp_game *g;
	bp_table *table;
	struct part *pt;
	int sgoal, want; /* df-pn goal (0 win, 1 not lose) and the wanted outcome */
	struct bp_move *mv;
	int err_depth;
};

/* Whether child c (canonical, pmove its flag) is good for the part's player: 1 yes,
 * 0 no, BP_ENOTFOUND unknown without a search (may_search unset). */
static int child_good(struct builder *b, const struct bp_pos *c, int pmove, int may_search)
{
	int or_node = b->want ? pmove : !pmove; /* the attacker is P when proving */
	int r = bp_dfpn_goal(b->d, c, b->sgoal, or_node, may_search);
	if (r < 0)
		return r;
	return r == b->want;
}

static int build_node(struct builder *b, const struct bp_pos *c, int pmove, int depth);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Adds a leaf or inner node for c and fills it. */
static int build_node(struct builder *b, const struct bp_pos *c, int pmove, int depth)
{
	const struct bp_game *g = b->g;
	struct part *pt = b->pt;
	if (part_find(pt, c, pmove) >= 0)
		return BP_OK;
	if (depth > MAX_BUILD_DEPTH)
		return BP_ERANGE;
	enum bp_value v = g->ops->outcome(g, c);
	int kind = KIND_INNER;
	if (v != BP_VALUE_NONE)
		kind = KIND_TERMINAL;
	else if (depth > 0 && table_value(g, b->table, c, &v))
		kind = KIND_TABLE;
	else if (depth > 0 && bound_meets(g, pt, pmove, c))
		kind = KIND_BOUND;
	if ((kind == KIND_TERMINAL || kind == KIND_TABLE) && !meets(pt, pmove, v))
		return BP_ECORRUPT;
	int64_t i = part_add(pt, c, pmove, kind);
	if (i < 0)
		return (int)i;
	int rc = index_put(pt, (uint64_t)i);
	if (rc || kind != KIND_INNER)
		return rc;
	struct bp_move *mv = malloc(sizeof *mv * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	if (!mv)
		return BP_ENOMEM;
	int n = g->ops->moves(g, c, mv);
	struct bp_pos ch, canon;
	if (pmove) {
		/* pass 0: terminal children, children already in the proof and children the
		 * bounds settle; pass 1: final entries of the table; pass 2: search */
		int chosen = -1;
		/* the order of the searches of pass 2: the moves whose table numbers say
		 * they are the easiest to show good first (the one that proved this node
		 * is among them unless its entry was replaced), so that a search rarely
		 * has to refute a move that was never good */
		uint64_t *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
		if (!order) {
			free(mv);
			return BP_ENOMEM;
		}
		for (int k = 0; k < n; k++) {
			uint32_t cpn = 1, cdn = 1;
			ch = *c;
			g->ops->apply(g, &ch, mv[k]);
			bp_dfpn_numbers(b->d, &ch, b->sgoal, b->want ? 0 : 1, &cpn, &cdn);
			uint32_t phi = b->want ? cpn : cdn;
			order[k] = (uint64_t)phi << 32 | (uint32_t)k;
		}
		qsort(order, (size_t)n, sizeof *order, cmp_u64);
		for (int pass = 0; pass < 3 && chosen < 0; pass++)
			for (int j = 0; j < n && chosen < 0; j++) {
				int k = (int)(uint32_t)order[j];
				ch = *c;
				g->ops->apply(g, &ch, mv[k]);
				bp_game_canonical(g, &ch, &canon);
				enum bp_value cv = g->ops->outcome(g, &canon);
				if (pass == 0) {
					if ((cv != BP_VALUE_NONE && meets(pt, 0, cv)) ||
					    (cv == BP_VALUE_NONE &&
					     (part_find(pt, &canon, 0) >= 0 ||
					      bound_meets(g, pt, 0, &canon))))
						chosen = k;
					continue;
				}
				if (cv != BP_VALUE_NONE)
					continue;
				int r = child_good(b, &canon, 0, pass == 2);
				if (r == 1)
					chosen = k;
				else if (r < 0 && r != BP_ENOTFOUND) {
					free(mv);
					return r;
				}
			}
		free(order);
		if (chosen < 0) {
			free(mv);
			return BP_ECORRUPT;
		}
		pt->n[i].move = mv[chosen].v;
		ch = *c;
		g->ops->apply(g, &ch, mv[chosen]);
		bp_game_canonical(g, &ch, &canon);
		rc = build_node(b, &canon, 0, depth + 1);
	} else {
		for (int k = 0; k < n && !rc; k++) {
			ch = *c;
			g->ops->apply(g, &ch, mv[k]);
			bp_game_canonical(g, &ch, &canon);
			rc = build_node(b, &canon, 1, depth + 1);
		}
	}
	free(mv);
	return rc;
}

int bp_proof_build(bp_dfpn *d, const struct bp_game *g, bp_table *table, const struct bp_pos *root,
		   enum bp_value v, struct bp_proof **out, struct bp_err *err)
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
	for (int k = 0; k < pf->nparts && !rc; k++) {
		struct part *pt = &pf->parts[k];
		struct builder b = { d, g, table, pt, 0, 0, NULL, 0 };
		b.want = pt->player == 0;
		b.sgoal = pt->player == 0 ? (pt->goal == 0 ? 0 : 1) : (pt->goal == 0 ? 1 : 0);
		rc = build_node(&b, &canon, pt->player == 0, 0);
	}
	if (rc) {
		bp_proof_free(pf);
		return bp_err_set(err, rc,
				  rc == BP_ECORRUPT ? "the search's table holds no proof here"
				  : rc == BP_ENOTFOUND
					  ? "a search below the root was stopped by a limit"
				  : rc == BP_ERANGE ? "the proof is deeper than the builder allows"
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

static void put_u64(struct wbuf *w, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, 8);
}

static void put_u32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, 4);
}

static void put_u8(struct wbuf *w, unsigned v)
{
	uint8_t b = (uint8_t)v;
	put(w, &b, 1);
}

int bp_proof_encode(const struct bp_proof *pf, uint8_t **buf, size_t *len)
{
	struct wbuf w = { 0 };
	put(&w, "BPPROOF", 8);
	put_u32(&w, BP_PROOF_VERSION);
	uint32_t sl = (uint32_t)strlen(pf->spec);
	put_u32(&w, sl);
	put(&w, pf->spec, sl);
	put_u8(&w, pf->value);
	put_u8(&w, (unsigned)pf->nparts);
	int nw = pos_nwords(&pf->root);
	put_u8(&w, (unsigned)nw);
	for (int i = 0; i < nw; i++)
		put_u64(&w, pf->root.w[i]);
	for (int k = 0; k < pf->nparts; k++) {
		const struct part *pt = &pf->parts[k];
		put_u8(&w, pt->player);
		put_u8(&w, pt->goal);
		put_u64(&w, pt->count);
		for (uint64_t i = 0; i < pt->count; i++) {
			const struct pnode *n = &pt->n[i];
			put_u8(&w, (unsigned)(n->kind | n->pmove << 2));
			put_u8(&w, n->nwords);
			for (int j = 0; j < n->nwords; j++)
				put_u64(&w, pt->words[n->off + (uint64_t)j]);
			if (n->kind == KIND_INNER && n->pmove)
				put_u32(&w, n->move);
		}
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
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->b[r->at + (size_t)i] << (8 * i);
	r->at += (size_t)bytes;
	return v;
}

int bp_proof_decode(const uint8_t *buf, size_t len, struct bp_proof **out, struct bp_err *err)
{
	*out = NULL;
	if (len < 16 || memcmp(buf, "BPPROOF", 8) != 0)
		return bp_err_set(err, BP_ECORRUPT, "not a saved proof");
	struct rbuf r = { buf, len, 8, 0 };
	uint64_t version = get(&r, 4);
	if (version != 1 && version != BP_PROOF_VERSION)
		return bp_err_set(err, BP_EFORMAT, "a proof of another format version");
	struct bp_proof *pf = calloc(1, sizeof *pf);
	if (!pf)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
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
		uint64_t cnt = get(&r, 8);
		if (pt->player > 1 || pt->goal > 1 || cnt > r.n)
			goto bad;
		for (uint64_t i = 0; i < cnt && !r.bad; i++) {
			unsigned kp = (unsigned)get(&r, 1);
			int w = (int)get(&r, 1);
			if ((kp & 3) > (version == 1 ? KIND_TABLE : KIND_BOUND) || kp > 7 ||
			    w > BP_POS_WORDS)
				goto bad;
			struct bp_pos p = { { 0 } };
			for (int j = 0; j < w; j++)
				p.w[j] = get(&r, 8);
			if (pos_nwords(&p) != w)
				goto bad; /* not in its cut form */
			int64_t x = part_add(pt, &p, (int)(kp >> 2), (int)(kp & 3));
			if (x < 0) {
				bp_proof_free(pf);
				return bp_err_set(err, BP_ENOMEM, "out of memory");
			}
			if ((kp & 3) == KIND_INNER && (kp >> 2))
				pt->n[x].move = (uint32_t)get(&r, 4);
		}
	}
	if (r.bad || r.at != r.n)
		goto bad;
	*out = pf;
	return BP_OK;
bad:
	bp_proof_free(pf);
	return bp_err_set(err, BP_ECORRUPT, "malformed proof near byte %zu", r.at);
}

int bp_proof_tamper(struct bp_proof *pf, uint64_t which)
{
	struct part *pt = &pf->parts[0];
	if (!pt->count)
		return BP_EINVAL;
	struct pnode *n = &pt->n[which % pt->count];
	if (n->kind == KIND_INNER && n->pmove)
		n->move ^= 1; /* another move, or no move at all */
	else if (n->nwords)
		pt->words[n->off] ^= 1; /* another position */
	else
		n->kind = KIND_TERMINAL;
	return BP_OK;
}

/* ---- the checker ---- */

struct checker {
	const struct bp_game *g;
	bp_table *table;
	struct part *pt; /* a private copy's index over the decoded nodes */
	struct bp_proof_report *rep;
};

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

/* Checks one strategy: each node reached from the root is verified locally, its
 * children's node numbers kept for the cycle check of "win" strategies. */
static int check_part(const struct bp_game *g, bp_table *table, struct part *pt,
		      const struct bp_pos *root, struct bp_proof_report *rep)
{
	int rc = BP_OK;
	/* index every node; a repeated node is a malformed proof */
	for (uint64_t i = 0; i < pt->count; i++) {
		struct bp_pos p;
		node_pos(pt, &pt->n[i], &p);
		if (part_find(pt, &p, pt->n[i].pmove) >= 0) {
			fail(rep, "node %llu appears twice", (unsigned long long)i);
			return BP_OK;
		}
		if ((rc = index_put(pt, i)))
			return rc;
	}
	struct bp_pos canon;
	bp_game_canonical(g, root, &canon);
	int64_t r0 = part_find(pt, &canon, pt->player == 0);
	if (r0 < 0) {
		fail(rep, "the root is not in the proof");
		return BP_OK;
	}
	/* adjacency: first child edge of node i at adj_at[i], count adj_n[i] */
	uint64_t *adj_at = malloc(sizeof *adj_at * (pt->count + 1));
	uint32_t *adj_n = calloc(pt->count + 1, sizeof *adj_n);
	uint8_t *state = calloc(pt->count + 1, 1);
	uint64_t *queue = malloc(sizeof *queue * (pt->count + 1));
	uint64_t *edges = NULL, ne = 0, cape = 0;
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!adj_at || !adj_n || !state || !queue || !mv) {
		rc = BP_ENOMEM;
		goto out;
	}
	uint64_t qh = 0, qt = 0;
	queue[qt++] = (uint64_t)r0;
	state[r0] = 1;
	while (qh < qt && rep->ok) {
		uint64_t i = queue[qh++];
		const struct pnode *n = &pt->n[i];
		struct bp_pos p;
		node_pos(pt, n, &p);
		rep->nodes++;
		adj_at[i] = ne;
		struct bp_pos c;
		bp_game_canonical(g, &p, &c);
		if (!bp_pos_equal(&c, &p)) {
			fail(rep, "node %llu is not in canonical form", (unsigned long long)i);
			break;
		}
		enum bp_value v = g->ops->outcome(g, &p);
		if (n->kind == KIND_BOUND) {
			if (v != BP_VALUE_NONE || !bound_meets(g, pt, n->pmove, &p)) {
				fail(rep, "leaf %llu is not settled by the game's bounds",
				     (unsigned long long)i);
				break;
			}
			rep->bound_leaves++;
			continue;
		}
		if (n->kind == KIND_TERMINAL || n->kind == KIND_TABLE) {
			if (n->kind == KIND_TERMINAL && v == BP_VALUE_NONE) {
				fail(rep, "leaf %llu is not terminal", (unsigned long long)i);
				break;
			}
			if (n->kind == KIND_TABLE) {
				struct bp_probe pr;
				if (v != BP_VALUE_NONE || !table ||
				    bp_probe_position(g, table, &p, &pr)) {
					fail(rep, "leaf %llu is not in the solved table",
					     (unsigned long long)i);
					break;
				}
				v = pr.value;
				rep->table_leaves++;
			} else
				rep->terminal_leaves++;
			if (!meets(pt, n->pmove, v)) {
				fail(rep,
				     "leaf %llu is %s for its player to move, which misses the "
				     "goal",
				     (unsigned long long)i, bp_value_name(v));
				break;
			}
			continue;
		}
		if (v != BP_VALUE_NONE) {
			fail(rep, "inner node %llu is terminal", (unsigned long long)i);
			break;
		}
		int nm = g->ops->moves(g, &p, mv);
		int from = 0, to = nm;
		if (n->pmove) {
			from = -1;
			for (int k = 0; k < nm; k++)
				if (mv[k].v == n->move)
					from = k;
			if (from < 0) {
				fail(rep, "node %llu plays a move that is not legal",
				     (unsigned long long)i);
				break;
			}
			to = from + 1;
		}
		for (int k = from; k < to; k++) {
			struct bp_pos ch = p;
			g->ops->apply(g, &ch, mv[k]);
			bp_game_canonical(g, &ch, &c);
			int64_t j = part_find(pt, &c, !n->pmove);
			if (j < 0) {
				fail(rep, "a child of node %llu is missing", (unsigned long long)i);
				break;
			}
			if (ne == cape) {
				cape = cape ? cape * 2 : 1024;
				uint64_t *e = realloc(edges, sizeof *e * cape);
				if (!e) {
					rc = BP_ENOMEM;
					goto out;
				}
				edges = e;
			}
			edges[ne++] = (uint64_t)j;
			adj_n[i]++;
			if (!state[j]) {
				state[j] = 1;
				queue[qt++] = (uint64_t)j;
			}
		}
	}
	if (rep->ok && pt->goal == 0) {
		/* a "win" strategy must not cycle: iterative depth-first search, colours
		 * 1 unvisited (reached), 2 on the stack, 3 done */
		uint64_t *stack = queue, *pos = malloc(sizeof *pos * (pt->count + 1));
		if (!pos) {
			rc = BP_ENOMEM;
			goto out;
		}
		uint64_t sp = 0;
		stack[sp] = (uint64_t)r0;
		pos[sp++] = 0;
		state[r0] = 2;
		while (sp && rep->ok) {
			uint64_t i = stack[sp - 1];
			if (pos[sp - 1] == adj_n[i]) {
				state[i] = 3;
				sp--;
				continue;
			}
			uint64_t j = edges[adj_at[i] + pos[sp - 1]++];
			if (state[j] == 2)
				fail(rep, "the win strategy cycles through node %llu",
				     (unsigned long long)j);
			else if (state[j] == 1) {
				state[j] = 2;
				stack[sp] = j;
				pos[sp++] = 0;
			}
		}
		free(pos);
	}
out:
	free(adj_at);
	free(adj_n);
	free(state);
	free(queue);
	free(edges);
	free(mv);
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
	 * be a position of g (the nodes below it are matched against children the rules
	 * make, so they need no such check) */
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
		/* a private index: the proof itself stays read-only */
		struct part pt = pf->parts[k];
		pt.idx = NULL;
		pt.icap = pt.nidx = 0;
		int rc = check_part(g, table, &pt, &pf->root, out);
		free(pt.idx);
		if (rc)
			return rc;
	}
	return BP_OK;
}
