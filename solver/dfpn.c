/* SPDX-License-Identifier: MIT */
/* Depth-first proof-number search (Nagai 2002) with the 1+epsilon trick (Pawlewicz and
 * Lew 2007).
 *
 * Terms. The attacker is the player to move at the root; a search proves or disproves
 * one goal for it: GOAL_WIN ("win") or GOAL_NOTLOSE ("win or draw"). OR nodes have the
 * attacker to move, AND nodes the defender. pn is the proof number, dn the disproof
 * number; pn = 0 proven, dn = 0 disproven, and the other is then INF.
 *
 * MID. A node is expanded with its children in a frame of the search path (local
 * child arrays, Nagai's formulation with the values carried back by the recursive call
 * rather than re-read from the table): each child is first evaluated once (terminal,
 * repetition of the path, a known value, else its table entry, else pn = dn = 1); then
 * the most proving child is searched with thresholds
 *
 *     OR node:  th_pn(c) = min(th_pn, pn2 * (1 + eps) + 1),  th_dn(c) = th_dn - dn + dn(c)
 *     AND node: th_dn(c) = min(th_dn, dn2 * (1 + eps) + 1),  th_pn(c) = th_pn - pn + pn(c)
 *
 * (pn2, dn2 the second smallest among the siblings, eps = 1/4) until the node's own
 * numbers reach its thresholds. The 1+eps factor lets a child be searched longer before
 * the search jumps to a sibling, which removes most of the re-expansions plain df-pn
 * makes (Pawlewicz and Lew).
 *
 * Guidance (bp_dfpn_opts.pn_rule, init). Two switches change the order of the search
 * and nothing else: a final value is computed from final children the same way, so
 * a proof stays a proof. With weak proof numbers (Ueda, Hashimoto, Hashimoto and Iida
 * 2008) a node's "delta" (pn at AND, dn at OR) is the largest child's plus one for
 * each other open child instead of their sum: in placement games most positions are
 * reached by many move orders, and the sum counts a shared subtree once for every
 * path into it, so that the numbers grow with the number of paths, not the work
 * left. The child's delta threshold keeps the sum's form (th - delta + delta(c)):
 * giving it all the room the weak number leaves (th - open children + 1) let one
 * child's subtree grow far past need (a chicken:hex4 position stayed at root pn 35
 * to 54 for 9.6 M expansions; with the sum's form it is proven in 0.39 M). With init = moves, a
 * child met for the first time starts with the number of its legal moves for the
 * side that must refute each of them (dn where the attacker is to move, pn where
 * the defender is) and 1 for the other (df-pn+'s mobility). Measured in
 * bench/dfpn_results.md ("Session 9").
 *
 * Transposition table. Buckets of four 16-byte entries (one 64-byte cache line):
 *
 *     offset 0  u32  check: bits 32-63 of the key (the bucket comes from bits 0-31)
 *            4  u32  pn
 *            8  u32  dn
 *           12  u32  bits 0-11 work (expansions in the subtree over every search of it,
 *                    as a float: 6 bits of exponent, 6 of mantissa, exact below 128),
 *                    bit 12 strict (a final value that holds for the stricter goal),
 *                    bit 13 path entry: bits 0-11 are then the depth it relies on,
 *                    bits 14-31 tag: bits 0-17 of the key
 *
 * An entry is found by its check and its tag, so a look-up compares every bit of the
 * 64-bit key (the bucket stands for the top bits of bits 0-31, the tag for the low
 * ones). With a 32-bit check alone (the kept table format 1, session 17 and before),
 * one look-up in about 2^31 / (other entries in its bucket) took another key's entry
 * for its own: by that count a search of 2 * 10^9 look-ups in a half-full table met one
 * (glorieta:hex3 with hands of 3 made 2.75 a node), and any of them could be a final
 * value, so a false proof that only a saved proof's check would catch. Now two
 * classes must share all 64 bits of their keys.
 *
 * The key mixes the hash of the position's symmetry class with the goal and the node
 * type (a colour-exchanged position of the other side to move is the same canonical
 * position but another question).
 *
 * Keys. The class's hash is the hash of its canonical form, or, in games with the
 * sym_hash op (and no repetitions), the smallest of the Zobrist hashes of the
 * position's images under every symmetry: a function of the class, since the images
 * of any member are the whole class. A child's hashes follow from its parent's by the
 * stones the move placed (sym_hash_move), one XOR per symmetry, so an expansion makes
 * no canonical form at all. They are still made where a position itself is needed:
 * for the oracle (only while bp_dfpn_opts.known_any says it may know something), for
 * a value recorded to the database, and for the repetition check of games that
 * repeat, which keep canonical keys. Like any 64-bit hash, two classes may collide;
 * the tests check that none do on every position of small boards. A store replaces, in order: the entry with the same check,
 * an empty entry, else the one with the least work, proven and disproven entries
 * counting as more work than any open one, so large subtrees and final values stay.
 * Threads share the table through a striped array of sequence counters (a seqlock per
 * stripe of buckets): a store takes its stripe's counter from even to odd, writes,
 * and makes it even again; a look-up reads the counter, the entry, and the counter
 * again, and reads anew when a store came between. Look-ups, a dozen for each
 * store, so write nothing, and the two cores do not pull lock lines from each other
 * on every probe.
 *
 * Cycles. In a game whose positions repeat, a child equal to a position on the current
 * path (the node itself included) is a draw by repetition. A final value computed from
 * such a leaf depends on the path: the node carries `dep`, the smallest depth of a
 * path position its (dis)proof relies on, and the result is stored as final only when
 * dep >= the node's depth (it relies on nothing above the node: a search rooted there
 * would find the same). Otherwise only the parent's frame keeps it while the parent is
 * being searched, which is exactly the path it was proven on. A proof of "win" and a
 * disproof of "not lose" never rest on a repetition (a repetition fails "win" and
 * satisfies "not lose"), so those are always final; that is why the two goals are
 * separate searches.
 *
 * Strictness. A final value whose leaves all satisfy the stricter claim (a disproof of
 * "win" with only attacker losses at its leaves, a proof of "not lose" with only wins)
 * is marked strict; a strict disproof of "win" at the root is a loss, which saves the
 * second search in games without draws.
 *
 * Threats. A child whose player to move can win with the next stone (the game's
 * wins_now op, where it has one) is settled at once, like a terminal position: in
 * games decided by threats (Havannah) most children are such, and without this their
 * unit proof numbers make the search think every node easy (Morat's PNS checks each
 * new leaf the same way, one or two plies deep). A child that settles its node as
 * strictly as any could (a win for the mover) ends the expansion.
 *
 * Children. Where the game has the kids ops (Chicken, Taifas) and class keys are on,
 * a node's children are made by kids_child after one kids_node per expansion: the
 * child, its outcome and its key in one call, with what the children share (the
 * mover, its group sets, the key's extra word) found once per node. The answers are
 * apply's, outcome's and sym_hash_move's, so the search is the same node for node.
 * expand's loops come in two copies: one for that case with nothing else on (no
 * repetitions, oracle, bounds, the other goal's entries or mobility), without their
 * tests (bench/dfpn_results.md, session 13).
 *
 * Bounds. A child whose value bounds from the rules (the game's bounds op, where it
 * has one and bp_dfpn_opts.no_bounds is unset: Taifas bounds each side's final score
 * over every filling of the board) decide the goal is settled the same way, with no
 * table entry. A saved proof ends there in a leaf that the checker re-derives by the
 * same op (solver/proof.c, leaf kind 3). Where the game has bounds_node and
 * bounds_child, expand() asks those instead, which give the same answers with the
 * work that a node's children share done once.
 *
 * Two goals, one table. Once both goals have been searched on a handle, each reads
 * the other's final entries where they decide it (see cross()), so that the second
 * search of a position whose "win" was disproven through a draw starts from every
 * subtree the first one settled strictly.
 *
 * Parallel search (threads > 1), games without repetitions: every thread searches
 * the same goal from the root over the shared table. A child that other threads are
 * inside (a counter per key hash in `busy`) counts one more in the selection, so an
 * equally promising sibling is taken instead; at each step a thread reads back the
 * final value that another thread stored for its node, and at every 8th step those of
 * its children, so that a thread leaves a subtree another one has settled. Open
 * numbers are not read back (see refresh()). The first thread to settle the root stops
 * the others.
 * Games with repetitions keep the portfolio: the two goals at once on two threads
 * sharing the table (see prove_portfolio), because their path entries belong to one
 * thread's path. */
#include "solver/dfpn.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "store/codec.h" /* bp_hash64 */

#define INF BP_DFPN_INF
#define GOAL_WIN 0
#define GOAL_NOTLOSE 1
#define INDEP INT_MAX
#define MAX_DEPTH 4096
#define NLOCKS 4096
#define NBUSY (1u << 16)
#define WORK_BITS 12 /* an entry's work code, or a path entry's depth (< MAX_DEPTH) */
#define WORK_MASK ((1u << WORK_BITS) - 1)
#define STRICT_BIT (1u << 12)
#define DEP_BIT (1u << 13)
#define TAG_SHIFT 14 /* bits 14-31 of meta: bits 0-17 of the key */
#define TAG_MASK ((1u << (32 - TAG_SHIFT)) - 1)
#define WORK_MANT 6		       /* the work code's mantissa bits */
#define OCACHE_MAX ((uint64_t)1 << 30) /* bytes of the outcome cache (d->ocache) at most */

struct tt_entry {
	uint32_t check, pn, dn, meta;
};

struct tt_bucket {
	struct tt_entry e[4];
};

/* The work code: a float of 6 exponent and 6 mantissa bits, exact below 128 and
 * within 1.6% above, monotonic, so that 12 bits hold any subtree's size (see the
 * table's layout above). */
static inline uint32_t work_code(uint64_t w)
{
	if (w < ((uint64_t)2 << WORK_MANT))
		return (uint32_t)w;
	int b = 63 - __builtin_clzll(w); /* >= WORK_MANT + 1 */
	uint32_t e = (uint32_t)(b - WORK_MANT + 1);
	if (e >= 1u << (WORK_BITS - WORK_MANT))
		return WORK_MASK;
	return e << WORK_MANT | ((uint32_t)(w >> (b - WORK_MANT)) & ((1u << WORK_MANT) - 1));
}

static inline uint64_t work_of(uint32_t code)
{
	uint32_t e = code >> WORK_MANT, m = code & ((1u << WORK_MANT) - 1);
	return e == 0 ? m : (uint64_t)(m | 1u << WORK_MANT) << (e - 1);
}

/* What an entry holds of its key beyond the check and the bucket. */
static inline uint32_t key_tag(uint64_t key)
{
	return ((uint32_t)key & TAG_MASK) << TAG_SHIFT;
}

struct child {
	struct bp_move m;
	int32_t mob; /* its move count where the game's kids op told it, else -1 */
	uint64_t key;
	uint64_t xkey; /* the key of the other goal's entry (when bp_dfpn.ran says it exists) */
	uint32_t pn, dn;
	int32_t dep; /* for final values: INDEP, or the depth of the path position relied on */
	uint8_t strict;
	uint8_t known; /* final from a terminal, repetition or known value: never stored */
};

struct frame {
	struct bp_pos pos, canon;
	int canon_ok;	/* canon is set (with class keys it is made only when needed) */
	uint64_t phash; /* hash of canon, for the repetition check */
	/* class keys: the hashes of pos's images, on their own cache lines (a child's key
	 * reads the first eight with one 64-byte load) */
	_Alignas(64) uint64_t sh[BP_GAME_SYM_HASH_MAX];
	uint64_t key;
	uint64_t ph; /* hash of the keys of the path from the root to here */
	struct child *ch;
	int n;
};

/* A filter of the table's keys: two bits of a word set when the key was stored, both
 * from bits 33-63 of the key, so that it can be filled again from the entries' checks
 * ((key >> 32) | 1). */
struct seen_filter {
	_Atomic uint64_t *w;
	uint64_t mask; /* bits - 1, a power of two */
	size_t len;    /* the bytes mapped (zeroed_alloc) */
};

/* The filter starts at SEEN_FIRST bits and doubles (at most to bp_dfpn.seen_max)
 * when the keys in use pass an eighth of its bits. A bit an entry from the start
 * made the filter of a 1 GiB table 8 MiB, mostly out of the caches: 0.89 of the speed
 * of a 1 MiB filter on bench/dfpn_sbs.sh's chicken:hex4 search (session 28), which
 * stores 0.7 M entries. Doubling with two bits a key (seen_places), against growing
 * eight times at once with one: 1.01 times as fast on its taifas:5x5 search (6 M
 * entries), 1.04 on the chicken:hex4 one, 1.07 on 5 M expansions of chicken:hex4
 * from the start (4.5 M entries; with one bit a key, doubling left more keys not
 * stored to find their bit set: 0.95 there).
 *
 * Filling a filter from the table reads all of it (0.1 s a GiB): the checks of the
 * first keys stored are logged instead, one a sixteenth of the table's entries (16 MiB
 * a GiB), or a quarter of the first filter's bits if more: enough for the growths
 * while fewer than a sixteenth of the entries are in use, less the keys stored again
 * after they were replaced (logged again); later growths read the table. */
#define SEEN_FIRST ((uint64_t)1 << 23)
#define SEEN_GROWTH 2
#define SEEN_LEVELS 32

struct bp_dfpn {
	const struct bp_game *g;
	struct bp_dfpn_opts o;
	struct tt_bucket *tt;
	uint64_t nbuckets;
	/* the filter: bits set for every key stored (never cleared), so that a child
	 * with a bit clear is not in the table; most children are not (hit rates of 5 to
	 * 10%), and their look-ups stop here instead of at a cache miss in the table.
	 * It grows with the entries in use (see grow_filter): `seen` is the one in use,
	 * the smaller ones before it stay mapped until the handle goes where threads
	 * search (one may still read one), are unmapped at once where one does */
	struct seen_filter sf[SEEN_LEVELS];
	_Atomic(const struct seen_filter *) seen;
	int nsf;	   /* filters made */
	uint64_t seen_max; /* bits of the largest filter: two an entry, at most 2^31 */
	atomic_int growing;
	/* the checks of the keys stored, in order (log_key), while the filter may grow;
	 * nlog past log_keys: no longer whole (and freed where one thread searches) */
	uint32_t *log;
	_Atomic uint64_t nlog;
	uint64_t log_keys; /* the log's size */
	/* games with BP_GAME_COSTLY_OUTCOME and class keys: children's outcomes by key,
	 * one word each, the key with its low 2 bits replaced by the outcome (0: empty),
	 * at a slot from the mixed key (see outcome_of); NULL otherwise */
	_Atomic uint64_t *ocache;
	uint64_t ocache_mask; /* slots - 1 */
	size_t ocache_len;
	size_t tt_len;		      /* the bytes mapped (zeroed_alloc) */
	_Atomic uint32_t seq[NLOCKS]; /* seqlocks, by bucket (stripe_of) */
	int cyclic;
	/* weak proof numbers (bp_dfpn_opts.pn_rule, and always in games that repeat) */
	int weak;
	int init_moves; /* new children's numbers from their move counts (bp_dfpn_opts.init) */
	int bounds;	/* the game's bounds op settles children (bp_dfpn_opts.no_bounds unset) */
	/* class keys (see "Keys" above): the game's sym_hash instead of canonical forms */
	int fast;
	int pos_words; /* words of a position that a child's copy takes (bp_game.pos_words) */
	/* per call */
	double t0;
	_Atomic int stop; /* 1 time, 2 nodes, 3 done (another thread finished), 4 error,
			     5 cancelled */
	_Atomic uint64_t nodes;
	atomic_uint_fast64_t used;
	pthread_mutex_t progress_lock;
	double next_progress;
	int goal;
	/* the two-thread portfolio: each goal's root outcome (-1 open, 0 disproven, 1
	 * proven) and strictness, under progress_lock */
	int portfolio;
	int outcome[2], strict[2];
	/* the shared search (threads > 1, games without repetitions): how many threads
	 * are inside each node, by a hash of its key (NBUSY counters) */
	int shared;
	_Atomic uint8_t *busy;
	/* goals searched on this handle: the other goal's final entries settle children
	 * (see cross()) */
	_Atomic int ran[2];
	/* keeping the table while searching (bp_dfpn_opts.keep): when it is due, the
	 * first thread to see it waits for the others to park between two expansions,
	 * writes, and wakes them; all under progress_lock */
	pthread_cond_t park_cond;
	int active, parked, parking; /* threads searching, parked; a write waiting */
	double next_keep;
};

struct search {
	bp_dfpn *d;
	int goal;
	int root_or;
	struct frame *path;
	int cap;
	uint64_t nodes, evaluated, probes, hits, pending;
	uint64_t ohits;	 /* outcomes from the outcome cache */
	uint64_t *okeys; /* with the outcome cache: a node's children's class keys */
	int known_on;	 /* the oracle may know something (bp_dfpn_opts.known_any) */
	uint32_t root_pn, root_dn;
	/* for progress: the root's child being searched and its numbers, and the ply of
	 * the node being expanded */
	int top_set, depth;
	struct bp_move top_move;
	uint32_t top_pn, top_dn;
	int err;
	struct bp_move *mv; /* scratch move list */
	void *kctx;	    /* the game's bounds_node context (bounds_ctx_size bytes) */
	void *cctx;	    /* the game's kids_node context (kids_ctx_size bytes) */
	/* a child is made here: its words past d->pos_words stay zero, so that only the
	 * parent's first pos_words words are copied in (a whole position is 256 bytes) */
	struct bp_pos cpos;
};

/* s->cpos made a copy of parent's first `words` words (s->d->pos_words). */
static inline void copy_parent(struct search *s, const struct bp_pos *parent, int words)
{
	/* the word counts of the games with pos_words (Taifas 3, Chicken 5) copied inline:
	 * a call to memcpy with a length it must first look at cost more than the copy */
	uint64_t *w = s->cpos.w;
	const uint64_t *pw = parent->w;
	switch (words) {
	case 5: w[4] = pw[4]; /* fall through */
	case 4: w[3] = pw[3]; /* fall through */
	case 3:
		w[2] = pw[2];
		w[1] = pw[1];
		w[0] = pw[0];
		break;
	default: memcpy(w, pw, sizeof pw[0] * (size_t)words); break;
	}
}

/* s->cpos made the child of parent by m; words is s->d->pos_words. */
static inline struct bp_pos *make_child(struct search *s, const struct bp_pos *parent,
					struct bp_move m, int words)
{
	const struct bp_game *g = s->d->g;
	copy_parent(s, parent, words);
	g->ops->apply(g, &s->cpos, m);
	return &s->cpos;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* The table key of a canonical position with hash h for a goal and node type. */
static inline uint64_t node_key(uint64_t h, int goal, int or_node)
{
	return mix(h ^ (0x5851f42d4c957f2dull * (uint64_t)(1 + goal * 2 + or_node)));
}

/* The key of a path entry: a final value that holds only on the path whose hash is ph
 * (see "Cycles" above). */
static inline uint64_t path_key(uint64_t ph)
{
	return mix(ph ^ 0x2545f4914f6cdd1dull);
}

/* A hash of a position's words up to its last non-zero one (games keep unused words
 * zero, so most positions end early). */
static inline uint64_t pos_hash(const struct bp_pos *p)
{
	int n = BP_POS_WORDS;
	while (n > 0 && p->w[n - 1] == 0)
		n--;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = (h ^ p->w[i]) * 0xbf58476d1ce4e5b9ull + (h >> 29);
	return mix(h);
}

/* The hash of p's class: with class keys the smallest hash of its images (sh gets
 * them all), else the hash of its canonical form (canon gets it, when not NULL). */
static uint64_t class_hash(const bp_dfpn *d, const struct bp_pos *p, uint64_t *sh,
			   struct bp_pos *canon)
{
	const struct bp_game *g = d->g;
	if (d->fast) {
		uint64_t tmp[BP_GAME_SYM_HASH_MAX];
		uint64_t m = g->ops->sym_hash(g, p, sh ? sh : tmp);
		if (canon)
			bp_game_canonical(g, p, canon);
		return m;
	}
	struct bp_pos c;
	bp_game_canonical(g, p, canon ? canon : &c);
	return pos_hash(canon ? canon : &c);
}

static inline uint32_t add_sat(uint32_t a, uint32_t b)
{
	if (a == INF || b == INF)
		return INF;
	uint64_t s = (uint64_t)a + b;
	return s >= INF - 1 ? INF - 1 : (uint32_t)s;
}

/* The outcome of child p of a search with an outcome cache (d->ocache), whose class
 * key is key: from the cache where it holds key, else from the rules, and kept. A
 * slot holds the key's bits 2-63 and the outcome in bits 0-1, so that one word is
 * read or written whole, whatever another thread does (the slot is found from all 64
 * bits, mixed). A key whose bits 2-63 are all 0 is not kept (0 is an empty slot). */
static inline _Atomic uint64_t *ocache_slot(const bp_dfpn *d, uint64_t key)
{
	return &d->ocache[mix(key ^ 0x6f7574636f6d65ull) & d->ocache_mask];
}

/* The cached outcome of the child whose class key is key: 1 (*v set) when the cache
 * holds it, else 0. */
static inline int ocache_get(struct search *s, uint64_t key, enum bp_value *v)
{
	uint64_t w = atomic_load_explicit(ocache_slot(s->d, key), memory_order_relaxed),
		 k = key & ~3ull;
	if (!k || (w & ~3ull) != k)
		return 0;
	s->ohits++;
	*v = (enum bp_value)(w & 3);
	return 1;
}

static inline void ocache_put(struct search *s, uint64_t key, enum bp_value v)
{
	uint64_t k = key & ~3ull;
	if (k)
		atomic_store_explicit(ocache_slot(s->d, key), k | (uint64_t)v,
				      memory_order_relaxed);
}

static enum bp_value outcome_of(struct search *s, uint64_t key, const struct bp_pos *p)
{
	enum bp_value v;
	if (ocache_get(s, key, &v))
		return v;
	v = s->d->g->ops->outcome(s->d->g, p);
	ocache_put(s, key, v);
	return v;
}

/* ---- transposition table ---- */

static inline uint64_t bucket_index(const bp_dfpn *d, uint64_t key)
{
	return ((uint64_t)(uint32_t)key * d->nbuckets) >> 32;
}

static inline struct tt_bucket *bucket_of(const bp_dfpn *d, uint64_t key)
{
	return &d->tt[bucket_index(d, key)];
}

/* The seqlock of key's bucket: striped by bucket, never by key, so that two keys
 * that share a bucket (a store may put one in the slot the other's look-up reads)
 * share the counter. */
static inline _Atomic uint32_t *stripe_of(bp_dfpn *d, uint64_t key)
{
	return &d->seq[bucket_index(d, key) % NLOCKS];
}

/* A store's side of the seqlock: the stripe's counter made odd (waiting while another
 * store holds it). @return the even value it had. */
static inline uint32_t lock(bp_dfpn *d, uint64_t key)
{
	if (d->o.threads <= 1)
		return 0;
	_Atomic uint32_t *q = stripe_of(d, key);
	for (;;) {
		uint32_t v = atomic_load_explicit(q, memory_order_relaxed);
		if (!(v & 1) && atomic_compare_exchange_weak_explicit(
					q, &v, v + 1, memory_order_acquire, memory_order_relaxed)) {
			/* the entry's stores stay after the odd counter */
			atomic_thread_fence(memory_order_release);
			return v;
		}
	}
}

static inline void unlock(bp_dfpn *d, uint64_t key, uint32_t v)
{
	if (d->o.threads > 1)
		atomic_store_explicit(stripe_of(d, key), v + 2, memory_order_release);
}

/* Entry fields are read by look-ups while a store may write them: both sides use
 * relaxed atomic accesses (plain moves on x86), and the seqlock tells a torn read. */
static inline uint32_t ld(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void st(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* The filter in use (a search reads it once per expansion). */
static inline const struct seen_filter *filter_of(const bp_dfpn *d)
{
	return atomic_load_explicit(&((bp_dfpn *)d)->seen, memory_order_acquire);
}

/* A key's word in the filter: from bits 33-63 of the key, which its entry's check
 * holds (fill_filter). */
static inline uint64_t seen_index(const struct seen_filter *f, uint64_t key)
{
	return key >> 33 & f->mask >> 6;
}

static inline _Atomic uint64_t *seen_word(const struct seen_filter *f, uint64_t key)
{
	return &f->w[seen_index(f, key)];
}

/* A key's two bits in its word, as two places of 6 bits (the second in bits 6-11),
 * from the same bits of the key mixed. Two bits in one word, not one: at an eighth
 * of the bits per key stored, a key not stored finds both of its bits set 5% of the
 * time against 12% for one bit, and still one word is read. */
static inline uint32_t seen_places(uint64_t key)
{
	return (uint32_t)(((key >> 33) * 0x9e3779b97f4a7c15ull) >> 52);
}

static inline uint64_t seen_bits(uint32_t places)
{
	return (uint64_t)1 << (places & 63) | (uint64_t)1 << (places >> 6);
}

static inline int seen_has(const struct seen_filter *f, uint64_t key)
{
	uint64_t b = seen_bits(seen_places(key));
	return (atomic_load_explicit(seen_word(f, key), memory_order_relaxed) & b) == b;
}

static inline void seen_set(const struct seen_filter *f, uint64_t key)
{
	atomic_fetch_or_explicit(seen_word(f, key), seen_bits(seen_places(key)),
				 memory_order_relaxed);
}

static void *zeroed_alloc(size_t bytes, size_t align, size_t *len);

/* Maps an empty filter of `bits` bits into f, on huge pages where it spans one (it may
 * span thousands of 4 KiB pages, one TLB miss for most look-ups). @return 1; 0 (no
 * memory). */
static int make_filter(struct seen_filter *f, uint64_t bits)
{
	size_t align = (size_t)2 << 20, sbytes = (size_t)(bits / 8);
	f->w = zeroed_alloc(sbytes, sbytes >= align ? align : 4096, &f->len);
	f->mask = bits - 1;
	return f->w != NULL;
}

/* Sets the bits of every entry in the table in f: from the log of the keys stored
 * while it is whole, else from the entries. */
static void fill_filter(bp_dfpn *d, const struct seen_filter *f)
{
	uint64_t n = atomic_load_explicit(&d->nlog, memory_order_acquire);
	if (d->log && n <= d->log_keys) {
		for (uint64_t i = 0; i < n; i++)
			seen_set(f, (uint64_t)__atomic_load_n(&d->log[i], __ATOMIC_RELAXED) << 32);
		return;
	}
	for (uint64_t b = 0; b < d->nbuckets; b++)
		for (int i = 0; i < 4; i++) {
			uint32_t check = __atomic_load_n(&d->tt[b].e[i].check, __ATOMIC_RELAXED);
			if (check)
				seen_set(f, (uint64_t)check << 32); /* bit 32 is not used */
		}
}

/* Whether a filter of `bits` bits should grow with `used` entries in use: past an
 * eighth of its bits, below the largest. */
static inline int filter_short(const bp_dfpn *d, uint64_t bits, uint64_t used)
{
	return used > bits / 8 && bits < d->seen_max;
}

/* The size a filter of `bits` bits grows to. */
static inline uint64_t filter_next(const bp_dfpn *d, uint64_t bits)
{
	return bits * SEEN_GROWTH < d->seen_max ? bits * SEEN_GROWTH : d->seen_max;
}

/* A filter of `bits` bits, filled (fill_filter) and put in use; with one thread the one
 * before it unmapped (no other thread may still read it). @return 1; 0 (no memory, or
 * SEEN_LEVELS made: the filter in use stays). */
static int add_filter(bp_dfpn *d, uint64_t bits)
{
	struct seen_filter *f = &d->sf[d->nsf];
	if (d->nsf >= SEEN_LEVELS || !make_filter(f, bits))
		return 0;
	fill_filter(d, f);
	d->nsf++;
	atomic_store_explicit(&d->seen, f, memory_order_release);
	if (d->o.threads <= 1) {
		struct seen_filter *o = &d->sf[d->nsf - 2];
		munmap((void *)o->w, o->len);
		o->w = NULL;
	}
	return 1;
}

/* The filter SEEN_GROWTH times larger (at most seen_max bits), made by one thread while
 * the others search on: an entry stored meanwhile may have its bits in the old filter
 * only, and is then taken for absent until it is stored again (as if it had been
 * replaced: the search is the same, only longer). Nothing happens when another thread
 * is growing it or has grown it since the caller counted; when add_filter fails, no
 * growth is tried again. */
static void grow_filter(bp_dfpn *d)
{
	int idle = 0;
	if (!atomic_compare_exchange_strong(&d->growing, &idle, 1))
		return;
	const struct seen_filter *old = filter_of(d);
	uint64_t bits = old->mask + 1;
	if (!filter_short(d, bits, atomic_load_explicit(&d->used, memory_order_relaxed))) {
		atomic_store(&d->growing, 0); /* another thread grew it meanwhile */
		return;
	}
	if (add_filter(d, filter_next(d, bits)))
		atomic_store(&d->growing, 0); /* else growing stays set */
}

/* Logs the check of a key stored for the first time (its bits in a larger filter),
 * until the log is full: then it is no longer whole. */
static inline void log_key(bp_dfpn *d, uint32_t check)
{
	if (!d->log || atomic_load_explicit(&d->nlog, memory_order_relaxed) > d->log_keys)
		return;
	uint64_t i = atomic_fetch_add_explicit(&d->nlog, 1, memory_order_relaxed);
	if (i < d->log_keys) {
		__atomic_store_n(&d->log[i], check, __ATOMIC_RELAXED);
	} else if (d->o.threads <= 1) {
		free(d->log); /* no longer whole: of no use (nothing else reads it now) */
		d->log = NULL;
	}
}

/* Counts an entry newly in use, and grows the filter when they pass an eighth of its
 * bits. */
static inline void count_used(bp_dfpn *d, const struct seen_filter *f)
{
	uint64_t u = atomic_fetch_add_explicit(&d->used, 1, memory_order_relaxed) + 1;
	if (filter_short(d, f->mask + 1, u))
		grow_filter(d);
}

/* Reads the entry of key from its bucket, whatever the filter says. @return 1 and the
 * numbers when present. */
static int tt_read(bp_dfpn *d, uint64_t key, uint32_t *pn, uint32_t *dn, uint32_t *meta)
{
	struct tt_bucket *b = bucket_of(d, key);
	uint32_t check = (uint32_t)(key >> 32) | 1, tag = key_tag(key); /* check 0: empty */
	int shared = d->o.threads > 1;
	_Atomic uint32_t *q = stripe_of(d, key);
	for (;;) {
		uint32_t v = shared ? atomic_load_explicit(q, memory_order_acquire) : 0;
		if (v & 1)
			continue; /* a store is writing this stripe */
		int found = 0;
		for (int i = 0; i < 4; i++)
			if (ld(&b->e[i].check) == check) {
				uint32_t m = ld(&b->e[i].meta);
				if ((m & ~((1u << TAG_SHIFT) - 1)) != tag)
					continue;
				*pn = ld(&b->e[i].pn);
				*dn = ld(&b->e[i].dn);
				*meta = m;
				found = 1;
				break;
			}
		if (!shared)
			return found;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(q, memory_order_relaxed) == v)
			return found;
	}
}

/* Reads the entry of key. @return 1 and the numbers when present. */
static inline int tt_get(bp_dfpn *d, uint64_t key, uint32_t *pn, uint32_t *dn, uint32_t *meta)
{
	return seen_has(filter_of(d), key) && tt_read(d, key, pn, dn, meta);
}

static inline uint64_t priority(const struct tt_entry *e)
{
	uint64_t w = e->meta & WORK_MASK; /* the code: monotonic in the work */
	return e->pn == 0 || e->dn == 0 ? w + ((uint64_t)1 << 31) : w;
}

/* Stores an entry; @return the work it now holds (the subtree's expansions over every
 * search of it that the table remembers, saturating), 0 when a final value kept it. */
static uint64_t tt_put(bp_dfpn *d, uint64_t key, uint32_t pn, uint32_t dn, uint32_t flags,
		       uint64_t work)
{
	struct tt_bucket *b = bucket_of(d, key);
	uint32_t check = (uint32_t)(key >> 32) | 1, tag = key_tag(key);
	const struct seen_filter *f = filter_of(d);
	if (!seen_has(f, key))
		seen_set(f, key);
	int added = 0;
	uint32_t sv = lock(d, key);
	struct tt_entry *v = NULL;
	for (int i = 0; i < 4 && !v; i++)
		if (b->e[i].check == check && (b->e[i].meta & ~((1u << TAG_SHIFT) - 1)) == tag)
			v = &b->e[i];
	const int fresh = !v; /* the key is not in the table yet */
	if (v && (v->pn == 0 || v->dn == 0) && pn != 0 && dn != 0 && !(v->meta & DEP_BIT)) {
		/* a final value stays: open numbers for it can only come from a thread that
		 * left the node before it saw the value another thread stored */
		unlock(d, key, sv);
		return 0;
	}
	if (v && !(flags & DEP_BIT) && !(v->meta & DEP_BIT))
		work += work_of(v->meta & WORK_MASK);
	else {
		for (int i = 0; i < 4 && !v; i++)
			if (b->e[i].check == 0) {
				v = &b->e[i];
				added = 1;
			}
		if (!v) {
			v = &b->e[0];
			for (int i = 1; i < 4; i++)
				if (priority(&b->e[i]) < priority(v))
					v = &b->e[i];
		}
	}
	st(&v->check, check);
	st(&v->pn, pn);
	st(&v->dn, dn);
	uint32_t code = flags & DEP_BIT ? (uint32_t)work : work_code(work);
	st(&v->meta, code | flags | tag);
	unlock(d, key, sv);
	if (fresh)
		log_key(d, check);
	if (added)
		count_used(d, f);
	return flags & DEP_BIT ? work : work_of(code);
}

/* ---- the search ---- */

static int grow_path(struct search *s, int depth)
{
	if (depth < s->cap)
		return BP_OK;
	if (depth >= MAX_DEPTH)
		return BP_ERANGE;
	int cap = s->cap ? s->cap * 2 : 64;
	if (cap > MAX_DEPTH)
		cap = MAX_DEPTH;
	/* aligned as struct frame asks (its image hashes), which realloc does not promise */
	struct frame *f = aligned_alloc(_Alignof(struct frame), sizeof *f * (unsigned)cap);
	if (!f)
		return BP_ENOMEM;
	if (s->cap)
		memcpy(f, s->path, sizeof *f * (unsigned)s->cap);
	for (int i = s->cap; i < cap; i++) {
		f[i].ch = NULL;
		/* a descent copies the parent's first pos_words words only (see mid()) */
		memset(&f[i].pos, 0, sizeof f[i].pos);
	}
	free(s->path);
	s->path = f;
	s->cap = cap;
	return BP_OK;
}

/* Evaluates a leaf of known value v (mover's bounds lo..hi) for the attacker: sets
 * pn/dn when it decides the goal. @return 1 when decided. */
static int decide(int goal, int or_node, int lo, int hi, struct child *c)
{
	int alo = or_node ? lo : -hi, ahi = or_node ? hi : -lo;
	int need = goal == GOAL_WIN ? 1 : 0;
	if (alo >= need) {
		c->pn = 0;
		c->dn = INF;
		c->strict = goal == GOAL_WIN || alo == 1;
		return 1;
	}
	if (ahi < need) {
		c->pn = INF;
		c->dn = 0;
		c->strict = goal == GOAL_NOTLOSE || ahi == -1;
		return 1;
	}
	return 0;
}

static inline int value_int(enum bp_value v)
{
	return v == BP_VALUE_WIN ? 1 : v == BP_VALUE_LOSS ? -1 : 0;
}

/* What the rules alone say of p, a position the search meets (v: its outcome()):
 * its value where it is over or its mover wins with the next stone (lo = hi, which
 * always decides), else
 * the game's bounds where it has them and they are on: with kctx (not NULL: expand()
 * readied it by bounds_node for p's parent, m the move to p) by bounds_child, which
 * shares the work of the node's children, else by bounds. @return 1 with lo..hi set;
 * 0 when the rules say nothing. lean: d has no bounds (a constant in expand's copies). */
static inline int rules_bounds(const bp_dfpn *d, const struct bp_pos *p, enum bp_value v,
			       void *kctx, struct bp_move m, int *lo, int *hi, const int lean)
{
	const struct bp_game *g = d->g;
	if (v != BP_VALUE_NONE || (g->ops->wins_now && g->ops->wins_now(g, p))) {
		*lo = *hi = v != BP_VALUE_NONE ? value_int(v) : 1;
		return 1;
	}
	if (lean)
		return 0; /* no bounds (expand's lean copy) */
	if (kctx)
		return g->ops->bounds_child(g, kctx, p, m, lo, hi);
	return d->bounds && g->ops->bounds(g, p, lo, hi);
}

/* The two goals share their final values one way each: "win" proven is "not lose"
 * proven, "not lose" disproven is "win" disproven, and the strict values carry over
 * the other way ("win" disproven with only losses is "not lose" disproven; "not
 * lose" proven with only wins is "win" proven). Sets a child's numbers from the
 * other goal's entry xkey when that entry decides this goal. Such entries never rest
 * on a repetition (those are path entries, under other keys). */
static void cross(bp_dfpn *d, int goal, uint64_t xkey, uint32_t *pn, uint32_t *dn, uint8_t *strict)
{
	uint32_t xpn, xdn, meta;
	if (!tt_get(d, xkey, &xpn, &xdn, &meta) || (meta & DEP_BIT))
		return;
	int xstrict = (meta & STRICT_BIT) != 0;
	int proven = goal == GOAL_NOTLOSE ? xpn == 0 : xpn == 0 && xstrict;
	int disproven = goal == GOAL_NOTLOSE ? xdn == 0 && xstrict : xdn == 0;
	if (proven) {
		*pn = 0;
		*dn = INF;
		*strict = 1;
	} else if (disproven) {
		*pn = INF;
		*dn = 0;
		*strict = 1;
	}
}

/* expand()'s loops over the n children of frame f (its moves in s->mv): each child
 * evaluated, then the table look-ups. lean (a constant in each copy): the game has
 * kids ops and class keys, and nothing else is on (no repetitions, oracle, bounds,
 * other goal's entries or mobility), so that copy has no tests for them. */
static inline __attribute__((always_inline)) int children(struct search *s, int depth, int or_node,
							  int n, void *kctx, void *cctx,
							  const int xran, const int lean)
{
	bp_dfpn *d = s->d;
	const struct bp_game *g = d->g;
	struct frame *f = &s->path[depth];
	struct bp_move *mv = s->mv;
	/* read once: the game's ops are calls the compiler cannot see through, so it would
	 * load these again for every child; none changes while a search runs */
	const int goal = s->goal, fast = lean || d->fast, cyclic = !lean && d->cyclic,
		  words = d->pos_words, init_moves = !lean && d->init_moves,
		  ocache = !lean && d->ocache != NULL;
	uint64_t (*const key_move)(const struct bp_game *, const struct bp_pos *, const uint64_t *,
				   const struct bp_pos *, uint64_t *) = g->ops->sym_hash_move;
	int (*const kids_moves)(const struct bp_game *, const void *) = g->ops->kids_move_count;
	uint64_t evaluated = 0;
	const struct seen_filter *sf = filter_of(d);
	if (ocache) {
		/* the children's keys first and their cache slots asked for at once, so
		 * that the misses overlap (the cache is an eighth of the table: mostly
		 * not in the processor's caches) */
		for (int i = 0; i < n; i++) {
			s->okeys[i] = key_move(g, &f->pos, f->sh,
					       make_child(s, &f->pos, mv[i], words), NULL);
			__builtin_prefetch(ocache_slot(d, s->okeys[i]));
		}
	}
	for (int i = 0; i < n; i++) {
		struct child *c = &f->ch[i];
		struct bp_pos canon;
		c->m = mv[i];
		c->mob = -1;
		c->dep = INDEP;
		c->strict = 0;
		c->known = 1;
		/* the child, its outcome, and with the game's kids ops its key, in one call */
		const struct bp_pos *p = &s->cpos;
		enum bp_value v;
		uint64_t ckey = 0;
		if (lean || (cctx && !ocache)) {
			copy_parent(s, &f->pos, words);
			ckey = g->ops->kids_child(g, cctx, f->sh, &s->cpos, mv[i], &v);
			if (init_moves && kids_moves)
				c->mob = kids_moves(g, cctx);
		} else if (ocache && cctx) {
			/* the cached outcome, else the game's kids op (the same key) */
			ckey = s->okeys[i];
			if (ocache_get(s, ckey, &v)) {
				make_child(s, &f->pos, mv[i], words);
			} else {
				copy_parent(s, &f->pos, words);
				g->ops->kids_child(g, cctx, f->sh, &s->cpos, mv[i], &v);
				ocache_put(s, ckey, v);
				if (init_moves && kids_moves)
					c->mob = kids_moves(g, cctx);
			}
		} else if (ocache) {
			make_child(s, &f->pos, mv[i], words);
			ckey = s->okeys[i];
			v = outcome_of(s, ckey, p);
		} else {
			make_child(s, &f->pos, mv[i], words);
			v = g->ops->outcome(g, p);
		}
		evaluated++;
		int lo, hi;
		if (rules_bounds(d, p, v, kctx, mv[i], &lo, &hi, lean) &&
		    decide(goal, !or_node, lo, hi, c)) {
			/* over, won by its mover's next stone, or decided by the game's bounds:
			 * a value that no path changes */
			c->key = 0;
			if (or_node ? c->pn == 0 && c->strict : c->dn == 0 && c->strict) {
				/* it settles this node at once, as strictly as any sibling could:
				 * the other children are not needed */
				n = f->n = i + 1;
				break;
			}
			continue;
		}
		uint64_t h;
		int ask = !lean && s->known_on; /* the oracle, while it may know something */
		if (fast) {
			/* the class key from the parent's image hashes; a canonical form only
			 * for the oracle */
			h = lean || cctx || ocache ? ckey : key_move(g, &f->pos, f->sh, p, NULL);
			if (ask && d->o.known_key && !d->o.known_key(d->o.ctx, h))
				ask = 0;
			if (ask)
				bp_game_canonical(g, p, &canon);
		} else {
			bp_game_canonical(g, p, &canon);
			h = pos_hash(&canon);
		}
		if (cyclic) {
			int rep = -1;
			for (int k = depth; k >= 0 && rep < 0; k--)
				if (s->path[k].phash == h &&
				    bp_pos_equal(&s->path[k].canon, &canon))
					rep = k;
			if (rep >= 0) {
				decide(goal, !or_node, 0, 0, c);
				c->dep = rep;
				c->key = 0;
				continue;
			}
		}
		struct bp_dfpn_bound b;
		if (ask && d->o.known(d->o.ctx, &canon, &b) &&
		    decide(goal, !or_node, b.lo, b.hi, c)) {
			c->key = 0;
			continue;
		}
		c->known = 0;
		c->key = node_key(h, goal, !or_node);
		/* the filter's word: its index in pn, the key's places in it in dn until the
		 * look-up below (numbers come only then), so that they are found once */
		uint64_t word = seen_index(sf, c->key);
		c->pn = (uint32_t)word; /* bits are at most 2^31 */
		c->dn = seen_places(c->key);
		__builtin_prefetch(&sf->w[word]);
		if (xran) {
			c->xkey = node_key(h, !goal, !or_node);
			__builtin_prefetch(seen_word(sf, c->xkey));
		}
	}
	s->evaluated += evaluated;
	/* the table look-ups after the moves: the filter's words fetched meanwhile, then
	 * the buckets of the keys it may hold; a child whose bit is clear is marked
	 * (known 2: not in the table) so that its look-up is skipped */
	for (int i = 0; i < n; i++) {
		struct child *c = &f->ch[i];
		if (c->known)
			continue;
		uint64_t bits = seen_bits(c->dn);
		if ((atomic_load_explicit(&sf->w[c->pn], memory_order_relaxed) & bits) == bits)
			__builtin_prefetch(bucket_of(d, c->key));
		else
			c->known = 2;
		if (xran && seen_has(sf, c->xkey))
			__builtin_prefetch(bucket_of(d, c->xkey));
	}
	for (int i = 0; i < n; i++) {
		struct child *c = &f->ch[i];
		if (c->known == 1)
			continue;
		int absent = c->known == 2;
		c->known = 0;
		s->probes++;
		uint32_t meta;
		if (cyclic && tt_get(d, path_key(mix(f->ph ^ c->key)), &c->pn, &c->dn, &meta) &&
		    (meta & DEP_BIT)) {
			/* a value proven on exactly this path, relying on a position of it */
			s->hits++;
			c->strict = (meta & STRICT_BIT) != 0;
			c->dep = (int32_t)(meta & WORK_MASK);
		} else if (!absent && tt_read(d, c->key, &c->pn, &c->dn, &meta)) {
			s->hits++;
			c->strict = (meta & STRICT_BIT) != 0;
		} else if (init_moves) {
			/* mobility: the side that must refute every move of the child needs
			 * about as many settled subtrees as it has moves (s->mv is free: the
			 * node's moves are in its children) */
			uint32_t k;
			if (c->mob >= 0) {
				k = (uint32_t)c->mob;
			} else {
				const struct bp_pos *cp = make_child(s, &f->pos, c->m, words);
				k = (uint32_t)(g->ops->move_count ? g->ops->move_count(g, cp)
								  : g->ops->moves(g, cp, s->mv));
			}
			if (k < 1)
				k = 1;
			c->pn = or_node ? k : 1; /* the child is an AND node: pn needs every move */
			c->dn = or_node ? 1 : k;
		} else {
			c->pn = 1;
			c->dn = 1;
		}
		if (xran && c->pn != 0 && c->dn != 0)
			cross(d, goal, c->xkey, &c->pn, &c->dn, &c->strict);
	}
	return BP_OK;
}

/* Fills frame f's children of the node at depth `depth` (its type or_node). */
static int expand(struct search *s, int depth, int or_node)
{
	bp_dfpn *d = s->d;
	const struct bp_game *g = d->g;
	struct frame *f = &s->path[depth];
	if (!f->ch &&
	    !(f->ch = malloc(sizeof *f->ch * (size_t)(g->max_moves > 0 ? g->max_moves : 1))))
		return BP_ENOMEM;
	if (!s->mv && !(s->mv = bp_game_move_buffer(g)))
		return BP_ENOMEM;
	if (d->ocache && !s->okeys &&
	    !(s->okeys = malloc(sizeof *s->okeys * (size_t)(g->max_moves > 0 ? g->max_moves : 1))))
		return BP_ENOMEM;
	struct bp_move *mv = s->mv;
	int n = g->ops->moves(g, &f->pos, mv);
	assert(n > 0);
	f->n = n;
	/* the other goal's entries exist (cross()); read once, since `ran` is atomic */
	const int xran = d->ran[!s->goal];
	/* the children's bounds with the work they share done once, where the game can */
	void *kctx = NULL;
	if (d->bounds && g->ops->bounds_node) {
		if (!s->kctx && !(s->kctx = malloc(g->ops->bounds_ctx_size)))
			return BP_ENOMEM;
		kctx = s->kctx;
		g->ops->bounds_node(g, &f->pos, kctx);
	}
	/* the children made with the work they share done once, where the game can (its
	 * keys are the class keys: with canonical keys the frame has no image hashes) */
	void *cctx = NULL;
	if (g->ops->kids_node && d->fast) {
		if (!s->cctx && !(s->cctx = malloc(g->ops->kids_ctx_size)))
			return BP_ENOMEM;
		cctx = s->cctx;
		g->ops->kids_node(g, &f->pos, cctx);
	}
	/* the common case, a copy of the loops without the tests of what it lacks */
	if (cctx && d->fast && !d->cyclic && !s->known_on && !kctx && !d->bounds && !xran &&
	    !d->init_moves && !d->ocache)
		return children(s, depth, or_node, n, NULL, cctx, 0, 1);
	return children(s, depth, or_node, n, kctx, cctx, xran, 0);
}

/* How often the shared search reads its children's entries back (refresh()): every
 * REFRESH_EVERY-th step at a node, its own entry at every step. Reading every child at
 * every step cost as many look-ups again as the expansions themselves, and each of two
 * threads made 0.76 of one thread's expansions a second; every 8th step, 0.83-0.88
 * (t55-4, bench/dfpn_threads.sh; every 4th and every 32nd measured too, the latter
 * with 10-20% more expansions to the proof: the threads repeat each other's work
 * longer). */
#define REFRESH_EVERY 8

/* The shared search: reads the node's own entry, and with children set the children's
 * final values that other threads have stored since. @return 1 when the node itself is
 * final in the table (*strict set), else 0. */
static int refresh(struct search *s, struct frame *f, uint8_t *strict, int children)
{
	bp_dfpn *d = s->d;
	uint32_t pn, dn, meta;
	if (tt_get(d, f->key, &pn, &dn, &meta) && (pn == 0 || dn == 0)) {
		*strict = (meta & STRICT_BIT) != 0;
		return 1;
	}
	if (!children)
		return 0;
	for (int i = 0; i < f->n; i++)
		__builtin_prefetch(bucket_of(d, f->ch[i].key));
	for (int i = 0; i < f->n; i++) {
		struct child *c = &f->ch[i];
		if (c->known || c->pn == 0 || c->dn == 0)
			continue;
		/* final values only: a frame's open numbers are the freshest this thread
		 * has, and trading them for another thread's older ones can make two
		 * threads undo each other's work without end */
		if (tt_get(d, c->key, &pn, &dn, &meta) && (pn == 0 || dn == 0)) {
			c->pn = pn;
			c->dn = dn;
			c->strict = (meta & STRICT_BIT) != 0;
		}
	}
	return 0;
}

/* A thread at a point between two expansions: writes the table when it is due (once
 * the other searching threads have parked), or parks while another writes it. */
static void park(bp_dfpn *d, double t)
{
	pthread_mutex_lock(&d->progress_lock);
	if (!d->parking && t >= d->next_keep) {
		d->parking = 1;
		while (d->parked < d->active - 1)
			pthread_cond_wait(&d->park_cond, &d->progress_lock);
		d->o.keep(d->o.keep_ctx, d);
		d->next_keep = now() + d->o.keep_interval;
		d->parking = 0;
		pthread_cond_broadcast(&d->park_cond);
	} else if (d->parking) {
		d->parked++;
		pthread_cond_broadcast(&d->park_cond);
		while (d->parking)
			pthread_cond_wait(&d->park_cond, &d->progress_lock);
		d->parked--;
	}
	pthread_mutex_unlock(&d->progress_lock);
}

static void check_limits(struct search *s)
{
	bp_dfpn *d = s->d;
	uint64_t total = atomic_fetch_add(&d->nodes, s->pending) + s->pending;
	s->pending = 0;
	if (d->o.known_any)
		s->known_on = d->o.known && d->o.known_any(d->o.ctx);
	if (d->o.max_nodes && total >= d->o.max_nodes && !d->stop)
		d->stop = 2;
	double t = now();
	if (d->o.time_limit > 0 && t - d->t0 >= d->o.time_limit && !d->stop)
		d->stop = 1;
	if (d->o.cancel && !d->stop && d->o.cancel(d->o.ctx))
		d->stop = 5;
	if (d->o.keep && (t >= d->next_keep || d->parking))
		park(d, t);
	if (d->o.progress && t >= d->next_progress) {
		pthread_mutex_lock(&d->progress_lock);
		if (t >= d->next_progress) {
			d->next_progress = t + 1.0;
			struct bp_dfpn_progress p = {
				.search = d->goal,
				.pn = s->root_pn,
				.dn = s->root_dn,
				.nodes = total,
				.seconds = t - d->t0,
				.tt_used = d->used,
				.tt_entries = d->nbuckets * 4,
				.child_set = s->top_set,
				.child_move = s->top_move,
				.child_pn = s->top_pn,
				.child_dn = s->top_dn,
				.depth = s->depth,
			};
			d->o.progress(d->o.ctx, &p);
		}
		pthread_mutex_unlock(&d->progress_lock);
	}
}

/* The node at depth `depth` (its frame's pos, canon, phash and key are set): searches
 * until its numbers reach the thresholds. Returns its numbers in *pn, *dn, its
 * dependence in *dep and strictness in *strict. */
static void mid(struct search *s, int depth, uint32_t thpn, uint32_t thdn, uint32_t *pn_out,
		uint32_t *dn_out, int32_t *dep_out, uint8_t *strict_out)
{
	bp_dfpn *d = s->d;
	const struct bp_game *g = d->g;
	int or_node = s->root_or ^ (depth & 1);
	uint64_t start = s->nodes;
	/* the node's own entry is stored when it returns: its bucket is fetched while the
	 * children are made (below the root, the parent fetched it when it chose the
	 * node) */
	if (depth == 0)
		__builtin_prefetch(bucket_of(d, s->path[depth].key));
	s->nodes++;
	if (++s->pending >= 1024) {
		s->depth = depth;
		check_limits(s);
	}
	int rc = expand(s, depth, or_node);
	if (rc) {
		s->err = rc;
		d->stop = 4;
		*pn_out = 1;
		*dn_out = 1;
		*dep_out = INDEP;
		*strict_out = 0;
		return;
	}
	uint32_t pn, dn;
	int adopted = 0; /* the node's final value was read from the table (shared search) */
	uint8_t adopted_strict = 0;
	_Atomic uint8_t *busy = d->shared ? &d->busy[s->path[depth].key % NBUSY] : NULL;
	if (busy)
		atomic_fetch_add_explicit(busy, 1, memory_order_relaxed);
	for (int iter = 0;; iter++) {
		struct frame *f = &s->path[depth];
		if (d->shared && iter > 0 &&
		    refresh(s, f, &adopted_strict, iter % REFRESH_EVERY == 0)) {
			/* another thread settled this node meanwhile */
			uint32_t meta;
			tt_get(d, f->key, &pn, &dn, &meta);
			adopted = 1;
			break;
		}
		/* phi/delta view: at an OR node phi = pn, delta = dn; at an AND node swapped.
		 * phi is the smallest child's (abest), delta the sum: INF when a child's is
		 * INF (then dmax is), else the sum saturated at INF - 1, as add_sat would
		 * give it one child at a time */
		uint32_t dmax = 0, nopen = 0, abest = INF, asecond = INF;
		uint64_t dsum = 0;
		int ai = -1;
		for (int i = 0; i < f->n; i++) {
			const struct child *c = &f->ch[i];
			uint32_t cphi = or_node ? c->pn : c->dn; /* the child's "delta" */
			uint32_t cdelta = or_node ? c->dn : c->pn;
			if (cphi < asecond) {
				if (cphi < abest) {
					asecond = abest;
					abest = cphi;
					ai = i;
				} else
					asecond = cphi;
			}
			dsum += cdelta;
			dmax = cdelta > dmax ? cdelta : dmax;
			nopen += cdelta != 0;
		}
		uint32_t phi = abest;
		uint32_t delta = dmax == INF ? INF : dsum >= INF - 1 ? INF - 1 : (uint32_t)dsum;
		uint32_t best = abest, second = asecond; /* the same with the virtual numbers */
		int bi = ai;
		if (d->shared) {
			/* virtual proof numbers: a child that other threads are searching looks
			 * one harder than it is, so that this thread takes an equally promising
			 * sibling instead (as Morat's PNS does with its thread counts); larger
			 * penalties (twice the number, or 2^20 more) sent the threads into
			 * subtrees the proof did not need: 1.3 to 1.9 times the expansions of
			 * one thread on the Havannah position of bench/dfpn_results.md */
			best = second = INF;
			bi = -1;
			for (int i = 0; i < f->n; i++) {
				const struct child *c = &f->ch[i];
				uint32_t cphi = or_node ? c->pn : c->dn;
				if (cphi != 0 && cphi < INF - 1 && c->key &&
				    atomic_load_explicit(&d->busy[c->key % NBUSY],
							 memory_order_relaxed))
					cphi++;
				if (cphi < best) {
					second = best;
					best = cphi;
					bi = i;
				} else if (cphi < second)
					second = cphi;
			}
		}
		/* weak proof numbers (Ueda et al.): max + open children - 1. Games that
		 * repeat always use them, since the sum counts the same positions again
		 * around every cycle and grows without bound; other games on request
		 * (bp_dfpn_opts.pn_rule), where the sum counts a subtree reached by
		 * transpositions once for every path to it */
		if (d->weak && delta != INF && delta != 0)
			delta = add_sat(dmax, nopen - 1);
		pn = or_node ? phi : delta;
		dn = or_node ? delta : phi;
		if (depth == 0) {
			s->root_pn = pn;
			s->root_dn = dn;
		} else if (depth == 1) {
			s->top_pn = pn;
			s->top_dn = dn;
		}
		uint32_t thphi = or_node ? thpn : thdn, thdelta = or_node ? thdn : thpn;
		if (phi >= thphi || delta >= thdelta || pn == 0 || dn == 0 || d->stop)
			break;
		struct child *c = &f->ch[bi];
		uint32_t cphi = or_node ? c->pn : c->dn, cdelta = or_node ? c->dn : c->pn;
		uint64_t t = second == INF ? thphi : (uint64_t)second + second / 4 + 1;
		uint32_t cthphi = t > thphi ? thphi : (uint32_t)t;
		if (bi != ai && cphi >= cthphi) {
			/* the sibling the virtual numbers chose would return at once (its own
			 * number is already at the threshold), and this thread would choose it
			 * again for as long as the other thread stays in the best child: take
			 * the best child after all */
			bi = ai;
			second = asecond;
			c = &f->ch[bi];
			cphi = or_node ? c->pn : c->dn;
			cdelta = or_node ? c->dn : c->pn;
			t = second == INF ? thphi : (uint64_t)second + second / 4 + 1;
			cthphi = t > thphi ? thphi : (uint32_t)t;
		}
		/* the child's own entry is stored when its call returns: its bucket is
		 * fetched while its position and keys are made */
		__builtin_prefetch(bucket_of(d, c->key));
		t = thdelta == INF ? INF : (uint64_t)thdelta - delta + cdelta;
		uint32_t cthdelta = t >= INF ? INF - 1 : (uint32_t)t;
		if ((rc = grow_path(s, depth + 1))) {
			s->err = rc;
			d->stop = 4;
			break;
		}
		f = &s->path[depth];
		c = &f->ch[bi];
		if (depth == 0) {
			s->top_set = 1;
			s->top_move = c->m;
			s->top_pn = c->pn;
			s->top_dn = c->dn;
		}
		struct frame *nf = &s->path[depth + 1];
		/* the words past pos_words are zero in every frame (grow_path, the root) */
		memcpy(nf->pos.w, f->pos.w, sizeof f->pos.w[0] * (size_t)d->pos_words);
		g->ops->apply(g, &nf->pos, c->m);
		if (d->fast) {
			g->ops->sym_hash_move(g, &f->pos, f->sh, &nf->pos, nf->sh);
			nf->canon_ok = 0;
		} else {
			bp_game_canonical(g, &nf->pos, &nf->canon);
			nf->phash = pos_hash(&nf->canon);
			nf->canon_ok = 1;
		}
		nf->key = c->key;
		nf->ph = mix(f->ph ^ c->key);
		uint32_t cpn, cdn;
		int32_t cdep;
		uint8_t cstrict;
		/* the child's thresholds in its own pn/dn terms */
		if (or_node)
			mid(s, depth + 1, cthphi, cthdelta, &cpn, &cdn, &cdep, &cstrict);
		else
			mid(s, depth + 1, cthdelta, cthphi, &cpn, &cdn, &cdep, &cstrict);
		c = &s->path[depth].ch[bi];
		c->pn = cpn;
		c->dn = cdn;
		c->dep = cdep;
		c->strict = cstrict;
	}
	if (busy)
		atomic_fetch_sub_explicit(busy, 1, memory_order_relaxed);
	struct frame *f = &s->path[depth];
	int32_t dep = INDEP;
	uint8_t strict = 0;
	if (adopted) {
		*pn_out = pn;
		*dn_out = dn;
		*dep_out = INDEP;
		*strict_out = adopted_strict;
		return;
	}
	if (pn == 0 || dn == 0) {
		/* which children the final value rests on: all of them where every child
		 * had to be final (OR disproven, AND proven), else the best single one */
		int all = or_node ? dn == 0 : pn == 0;
		if (all) {
			strict = 1;
			for (int i = 0; i < f->n; i++) {
				if (f->ch[i].dep < dep)
					dep = f->ch[i].dep;
				strict &= f->ch[i].strict;
			}
		} else {
			int found = 0;
			for (int i = 0; i < f->n; i++) {
				const struct child *c = &f->ch[i];
				if ((pn == 0 ? c->pn : c->dn) != 0)
					continue;
				/* best: independent, strict; else the latest dependence */
				int better = !found || (c->dep > dep) ||
					     (c->dep == dep && c->strict > strict);
				if (better) {
					dep = c->dep;
					strict = c->strict;
					found = 1;
				}
			}
			assert(found);
		}
		if (dep >= depth)
			dep = INDEP;
	}
	uint64_t work = s->nodes - start;
	/* a subtree is proven in the last of the calls that searched it, which alone may
	 * be small: its size for the record is the work the table holds for it */
	if (dep == INDEP)
		work = tt_put(d, f->key, pn, dn, strict ? STRICT_BIT : 0, work);
	else
		tt_put(d, path_key(f->ph), pn, dn, DEP_BIT | (strict ? STRICT_BIT : 0),
		       (uint64_t)dep);
	if (dep == INDEP && (pn == 0 || dn == 0) && d->o.record &&
	    work >= (d->o.record_work ? d->o.record_work : 256)) {
		/* the attacker's bounds, then the mover's */
		int alo, ahi;
		if (s->goal == GOAL_WIN)
			alo = pn == 0 ? 1 : -1, ahi = pn == 0 ? 1 : strict ? -1 : 0;
		else
			alo = pn == 0 ? (strict ? 1 : 0) : -1, ahi = pn == 0 ? 1 : -1;
		struct bp_dfpn_bound b = { (int8_t)(or_node ? alo : -ahi),
					   (int8_t)(or_node ? ahi : -alo) };
		if (!f->canon_ok) {
			bp_game_canonical(g, &f->pos, &f->canon);
			f->canon_ok = 1;
		}
		d->o.record(d->o.ctx, &f->canon, b);
	}
	*pn_out = pn;
	*dn_out = dn;
	*dep_out = dep;
	*strict_out = strict;
}

/* ---- one search from a root ---- */

struct run {
	bp_dfpn *d;
	struct bp_pos root;
	int goal, root_or;
	struct search s;
	uint32_t pn, dn;
	uint8_t strict;
};

/* The value that the two goals' outcomes so far decide, or BP_VALUE_NONE. */
static enum bp_value portfolio_value(const bp_dfpn *d)
{
	int w = d->outcome[GOAL_WIN], l = d->outcome[GOAL_NOTLOSE];
	if (w == 1 || (l == 1 && d->strict[GOAL_NOTLOSE]))
		return BP_VALUE_WIN;
	if (l == 0 || (w == 0 && d->strict[GOAL_WIN]))
		return BP_VALUE_LOSS;
	if (w == 0 && l == 1)
		return BP_VALUE_DRAW;
	return BP_VALUE_NONE;
}

static void search_root(struct run *r);

/* A search thread: counted as active while it searches, so that a table write waits
 * for it to park and never for a thread that has finished. */
static void *run_search(void *arg)
{
	struct run *r = arg;
	bp_dfpn *d = r->d;
	pthread_mutex_lock(&d->progress_lock);
	d->active++;
	pthread_mutex_unlock(&d->progress_lock);
	search_root(r);
	pthread_mutex_lock(&d->progress_lock);
	d->active--;
	pthread_cond_broadcast(&d->park_cond);
	pthread_mutex_unlock(&d->progress_lock);
	return NULL;
}

static void search_root(struct run *r)
{
	struct search *s = &r->s;
	bp_dfpn *d = r->d;
	memset(s, 0, sizeof *s);
	s->d = d;
	s->goal = r->goal;
	s->root_or = r->root_or;
	s->root_pn = s->root_dn = 1;
	if ((s->err = grow_path(s, 0)))
		return;
	struct frame *f = &s->path[0];
	f->pos = r->root;
	uint64_t h = class_hash(d, &f->pos, f->sh, &f->canon);
	f->canon_ok = 1;
	f->phash = pos_hash(&f->canon);
	f->key = node_key(h, r->goal, r->root_or);
	s->known_on = d->o.known && (!d->o.known_any || d->o.known_any(d->o.ctx));
	f->ph = mix(f->key);
	int32_t dep;
	/* thresholds INF - 1: numbers that saturate end the search as undecided instead of
	 * spinning at the root */
	mid(s, 0, INF - 1, INF - 1, &r->pn, &r->dn, &dep, &r->strict);
	if (d->portfolio) {
		pthread_mutex_lock(&d->progress_lock);
		if (r->pn == 0 || r->dn == 0) {
			d->outcome[r->goal] = r->pn == 0;
			d->strict[r->goal] = r->strict;
		}
		if (portfolio_value(d) != BP_VALUE_NONE && !d->stop)
			d->stop = 3; /* the other search is not needed any more */
		pthread_mutex_unlock(&d->progress_lock);
	} else if ((r->pn == 0 || r->dn == 0) && !d->stop)
		d->stop = 3;
	atomic_fetch_add(&d->nodes, s->pending);
	s->pending = 0;
}

static void free_search(struct search *s)
{
	for (int i = 0; i < s->cap; i++)
		free(s->path[i].ch);
	free(s->path);
	free(s->mv);
	free(s->kctx);
	free(s->cctx);
	free(s->okeys);
}

/* Runs one goal from p on the handle's threads. Adds the counts to out (may be NULL).
 * @return 1 proven, 0 disproven, BP_ENOTFOUND stopped, or an error. */
static int search_goal(bp_dfpn *d, const struct bp_pos *p, int goal, int root_or,
		       struct bp_dfpn_result *out, int *strict)
{
	int nt = d->shared ? d->o.threads : 1;
	struct run *r = calloc((size_t)nt, sizeof *r);
	pthread_t *th = calloc((size_t)nt, sizeof *th);
	int rc = BP_OK;
	if (!r || !th) {
		free(r);
		free(th);
		return BP_ENOMEM;
	}
	d->goal = goal;
	d->stop = 0;
	d->ran[goal] = 1;
	int started = 1;
	for (int i = 0; i < nt; i++) {
		r[i].d = d;
		r[i].root = *p;
		r[i].goal = goal;
		r[i].root_or = root_or;
	}
	for (int i = 1; i < nt; i++) {
		if (pthread_create(&th[i], NULL, run_search, &r[i]))
			break;
		started++;
	}
	run_search(&r[0]);
	for (int i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	/* the root's final value: from any thread that finished it, else the table */
	int decided = -1;
	uint8_t st = 0;
	for (int i = 0; i < nt; i++) {
		if (r[i].s.err && !rc)
			rc = r[i].s.err;
		if (i < started && decided < 0 && (r[i].pn == 0 || r[i].dn == 0)) {
			decided = r[i].pn == 0;
			st = r[i].strict;
		}
		if (out) {
			out->nodes += r[i].s.nodes;
			out->evaluated += r[i].s.evaluated;
			out->tt_probes += r[i].s.probes;
			out->tt_hits += r[i].s.hits;
			out->outcome_hits += r[i].s.ohits;
		}
		free_search(&r[i].s);
	}
	if (out) {
		out->pn = r[0].pn;
		out->dn = r[0].dn;
		out->search = goal;
	}
	if (strict)
		*strict = st;
	free(r);
	free(th);
	if (rc)
		return rc;
	return decided < 0 ? BP_ENOTFOUND : decided;
}

/* Two threads: "win" and "not lose" at once, sharing the table (different keys), each
 * stopping the other as soon as the outcomes so far decide the value. In a game
 * without draws the two goals are the same question and the faster search answers
 * it; in a game with draws both are needed and run side by side. */
static int prove_portfolio(bp_dfpn *d, const struct bp_pos *p, struct bp_dfpn_result *out)
{
	struct run r[2];
	pthread_t th;
	memset(r, 0, sizeof r);
	d->portfolio = 1;
	d->stop = 0;
	d->ran[0] = d->ran[1] = 1;
	d->outcome[0] = d->outcome[1] = -1;
	d->strict[0] = d->strict[1] = 0;
	for (int i = 0; i < 2; i++) {
		r[i].d = d;
		r[i].root = *p;
		r[i].goal = i;
		r[i].root_or = 1;
	}
	int two = pthread_create(&th, NULL, run_search, &r[1]) == 0;
	run_search(&r[0]);
	if (two)
		pthread_join(th, NULL);
	else
		run_search(&r[1]);
	d->portfolio = 0;
	int rc = BP_OK;
	for (int i = 0; i < 2; i++) {
		if (r[i].s.err && !rc)
			rc = r[i].s.err;
		out->nodes += r[i].s.nodes;
		out->evaluated += r[i].s.evaluated;
		out->tt_probes += r[i].s.probes;
		out->tt_hits += r[i].s.hits;
		out->outcome_hits += r[i].s.ohits;
		free_search(&r[i].s);
	}
	out->searches = 2;
	out->value = portfolio_value(d);
	/* the numbers of the search that decided, else of "win" */
	int k = out->value == BP_VALUE_NONE || d->outcome[GOAL_WIN] >= 0 ? 0 : 1;
	out->search = k;
	out->pn = r[k].pn;
	out->dn = r[k].dn;
	if (rc)
		return rc;
	return out->value == BP_VALUE_NONE ? BP_ENOTFOUND : BP_OK;
}

/* Zeroed memory for the table or its filter: bytes rounded up to align (a power of
 * two, at least a page), aligned to it, on huge pages where the system gives them;
 * *len gets the bytes mapped (munmap). Anonymous pages are zero when the kernel hands
 * them over, which it does at each page's first touch: the pages are touched here,
 * one write each, so that the memory is taken at once as before, but not written
 * whole again (a memset of the table zeroed it twice, the second time in the
 * process's own CPU time: 0.1 s or more a GiB). @return NULL when out of memory. */
static void *zeroed_alloc(size_t bytes, size_t align, size_t *len)
{
	size_t n = (bytes + align - 1) / align * align;
	char *m = mmap(NULL, n + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1);
	size_t head = (size_t)(a - (uintptr_t)m);
	if (head)
		munmap(m, head);
	if (align - head)
		munmap((char *)a + n, align - head);
	if (align >= ((size_t)2 << 20))
		madvise((void *)a, n, MADV_HUGEPAGE);
	volatile char *p = (volatile char *)a;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 0;
	*len = n;
	return (void *)a;
}

void bp_dfpn_advised(const struct bp_game *g, struct bp_dfpn_opts *o)
{
	o->pn_rule = g->ops->dfpn_weak ? BP_DFPN_PN_WEAK : BP_DFPN_PN_SUM;
	o->init = g->ops->dfpn_mobility ? BP_DFPN_INIT_MOVES : BP_DFPN_INIT_ONE;
}

const char *bp_dfpn_pn_rule_name(enum bp_dfpn_pn_rule r)
{
	return r == BP_DFPN_PN_WEAK ? "weak" : "sum";
}

const char *bp_dfpn_init_name(enum bp_dfpn_init i)
{
	return i == BP_DFPN_INIT_MOVES ? "moves" : "1";
}

int bp_dfpn_create(const struct bp_game *g, const struct bp_dfpn_opts *opts, bp_dfpn **out,
		   struct bp_err *err)
{
	struct bp_dfpn_opts o = opts ? *opts : (struct bp_dfpn_opts){ 0 };
	if (!o.memory)
		o.memory = (uint64_t)64 << 20;
	if (o.memory < BP_DFPN_MIN_MEMORY)
		return bp_err_set(
			err, BP_ERANGE,
			"a transposition table of %llu bytes is too small (at least %llu)",
			(unsigned long long)o.memory, (unsigned long long)BP_DFPN_MIN_MEMORY);
	if (o.threads < 1)
		o.threads = 1;
	bp_dfpn *d = calloc(1, sizeof *d);
	if (!d)
		return bp_err_set(err, BP_ENOMEM, "no memory");
	d->g = g;
	d->o = o;
	d->bounds = g->ops->bounds && !o.no_bounds;
	d->nbuckets = o.memory / sizeof(struct tt_bucket);
	if (d->nbuckets > ((uint64_t)1 << 32)) /* the bucket index is 32 bits of the key */
		d->nbuckets = (uint64_t)1 << 32;
	/* 2 MiB alignment and huge pages where the system allows them: a probe is a
	 * random access anywhere in the table, and 4 KiB pages would add a TLB miss to
	 * most of them */
	size_t bytes = (size_t)(d->nbuckets * sizeof(struct tt_bucket));
	size_t align = (size_t)2 << 20;
	d->tt = zeroed_alloc(bytes, align, &d->tt_len);
	if (!d->tt) {
		free(d);
		return bp_err_set(err, BP_ENOMEM, "no memory for a table of %llu bytes",
				  (unsigned long long)o.memory);
	}
	d->seen_max = 64;
	while (d->seen_max * 2 <= d->nbuckets * 8 && d->seen_max < ((uint64_t)1 << 31))
		d->seen_max *= 2;
	uint64_t bits = o.filter_bits >= 64 ? o.filter_bits : SEEN_FIRST;
	if (bits > d->seen_max || (bits & (bits - 1)))
		bits = d->seen_max;
	int filter_made = make_filter(&d->sf[0], bits);
	d->nsf = 1;
	atomic_init(&d->seen, &d->sf[0]);
	atomic_init(&d->growing, 0);
	atomic_init(&d->nlog, 0);
	d->log_keys = bits / 4;
	if (!o.filter_bits && d->log_keys < d->seen_max / 32)
		d->log_keys = d->seen_max / 32;
	if (d->seen_max > bits)
		d->log = malloc(d->log_keys * sizeof *d->log); /* none: filled from the table */
	if (!filter_made) {
		free(d->log);
		munmap(d->tt, d->tt_len);
		free(d);
		return bp_err_set(err, BP_ENOMEM, "no memory for a table of %llu bytes",
				  (unsigned long long)o.memory);
	}
	for (int i = 0; i < NLOCKS; i++)
		atomic_init(&d->seq[i], 0);
	d->cyclic = (g->ops->flags & BP_GAME_CYCLIC) != 0;
	d->weak = d->cyclic || o.pn_rule == BP_DFPN_PN_WEAK;
	d->init_moves = o.init == BP_DFPN_INIT_MOVES;
	d->pos_words =
		g->pos_words > 0 && g->pos_words <= BP_POS_WORDS ? g->pos_words : BP_POS_WORDS;
	/* class keys need no repetition check by canonical forms: games that repeat
	 * keep the canonical path */
	d->fast = g->ops->sym_hash && g->ops->sym_hash_move && !d->cyclic &&
		  g->nsym <= BP_GAME_SYM_HASH_MAX && !o.exact_keys;
	if (o.threads > 1 && !d->cyclic) {
		d->shared = 1;
		d->busy = calloc(NBUSY, sizeof *d->busy);
		if (!d->busy) {
			free(d->log);
			munmap((void *)d->sf[0].w, d->sf[0].len);
			munmap(d->tt, d->tt_len);
			free(d);
			return bp_err_set(err, BP_ENOMEM, "no memory");
		}
	}
	if (d->fast && (g->ops->flags & BP_GAME_COSTLY_OUTCOME)) {
		/* an eighth of the table's memory (a power of two, at most OCACHE_MAX);
		 * without it (no memory) the search tests every child as before */
		uint64_t cb = OCACHE_MAX;
		while (cb > 4096 && cb > o.memory / 8)
			cb /= 2;
		d->ocache = zeroed_alloc((size_t)cb, cb >= align ? align : 4096, &d->ocache_len);
		d->ocache_mask = d->ocache ? cb / sizeof(uint64_t) - 1 : 0;
	}
	pthread_mutex_init(&d->progress_lock, NULL);
	pthread_cond_init(&d->park_cond, NULL);
	d->next_keep = 1e300;
	*out = d;
	return BP_OK;
}

void bp_dfpn_destroy(bp_dfpn *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->progress_lock);
	pthread_cond_destroy(&d->park_cond);
	free(d->busy);
	if (d->ocache)
		munmap((void *)d->ocache, d->ocache_len);
	free(d->log);
	for (int i = 0; i < d->nsf; i++)
		if (d->sf[i].w)
			munmap((void *)d->sf[i].w, d->sf[i].len);
	munmap(d->tt, d->tt_len);
	free(d);
}

int bp_dfpn_prove(bp_dfpn *d, const struct bp_pos *p, struct bp_dfpn_result *out,
		  struct bp_err *err)
{
	memset(out, 0, sizeof *out);
	if (d->g->ops->outcome(d->g, p) != BP_VALUE_NONE)
		return bp_err_set(err, BP_EINVAL, "the position is over: nothing to prove");
	d->t0 = now();
	d->next_progress = d->t0 + 1.0;
	d->next_keep = d->o.keep_interval > 0 ? d->t0 + d->o.keep_interval : 1e300;
	d->nodes = 0;
	int strict = 0, rc;
	if (d->o.threads > 1 && !d->shared) {
		rc = prove_portfolio(d, p, out);
		goto done;
	}
	rc = search_goal(d, p, GOAL_WIN, 1, out, &strict);
	out->searches = 1;
	if (rc == 1)
		out->value = BP_VALUE_WIN;
	else if (rc == 0 && strict)
		out->value = BP_VALUE_LOSS;
	else if (rc == 0) {
		out->searches = 2;
		rc = search_goal(d, p, GOAL_NOTLOSE, 1, out, NULL);
		if (rc == 1)
			out->value = BP_VALUE_DRAW;
		else if (rc == 0)
			out->value = BP_VALUE_LOSS;
	}
done:
	out->seconds = now() - d->t0;
	out->stopped = d->stop == 1 ? 1 : d->stop == 2 ? 2 : d->stop == 5 ? 3 : 0;
	out->tt_entries = d->nbuckets * 4;
	out->tt_used = d->used;
	out->tt_bytes = d->nbuckets * sizeof(struct tt_bucket);
	out->filter_bits = filter_of(d)->mask + 1;
	out->class_keys = d->fast;
	if (rc == BP_ENOTFOUND)
		return BP_OK;
	if (rc == BP_ERANGE)
		return bp_err_set(err, rc, "the search path passed %d positions", MAX_DEPTH);
	if (rc < 0)
		return bp_err_set(err, rc, "out of memory");
	return BP_OK;
}

int bp_dfpn_goal(bp_dfpn *d, const struct bp_pos *p, int goal, int or_node, int may_search)
{
	const struct bp_game *g = d->g;
	struct child c = { 0 };
	int lo, hi;
	if (rules_bounds(d, p, g->ops->outcome(g, p), NULL, (struct bp_move){ 0 }, &lo, &hi, 0) &&
	    decide(goal, or_node, lo, hi, &c))
		return c.pn == 0;
	struct bp_pos canon;
	bp_game_canonical(g, p, &canon);
	struct bp_dfpn_bound b;
	if (d->o.known && d->o.known(d->o.ctx, &canon, &b) && decide(goal, or_node, b.lo, b.hi, &c))
		return c.pn == 0;
	uint32_t pn, dn, meta;
	uint64_t h = class_hash(d, p, NULL, NULL);
	if (tt_get(d, node_key(h, goal, or_node), &pn, &dn, &meta) && (pn == 0 || dn == 0))
		return pn == 0;
	uint8_t st;
	pn = dn = 1;
	if (d->ran[!goal])
		cross(d, goal, node_key(h, !goal, or_node), &pn, &dn, &st);
	if (pn == 0 || dn == 0)
		return pn == 0;
	if (!may_search)
		return BP_ENOTFOUND;
	d->next_keep = 1e300; /* a proof's searches are not kept */
	d->t0 = now();
	d->nodes = 0;
	return search_goal(d, p, goal, or_node, NULL, NULL);
}

int bp_dfpn_numbers(bp_dfpn *d, const struct bp_pos *p, int goal, int or_node, uint32_t *pn,
		    uint32_t *dn)
{
	uint32_t meta;
	return tt_get(d, node_key(class_hash(d, p, NULL, NULL), goal, or_node), pn, dn, &meta);
}

/* ---- the table kept on disk ----
 *
 * File: a header, then the buckets as they are in memory (this machine's byte order:
 * the header's magic tells another order apart). The filter is not kept: it is filled
 * again from the entries when the table is read back.
 *
 *     magic "BPDFPNT3", the header's own size, the rules version, the hash of the game's
 *     spec, the buckets' count, the entries in use, the key mode (class keys or
 *     canonical forms), the goals run, four probe keys, the checksum of the buckets,
 *     and last the header's checksum.
 *
 * The probe keys are the table keys of the game's start position for both goals and
 * node types, as the writer computed them: a build whose keys differ (another hash
 * scheme, other Zobrist numbers) computes others, and its entries would be another
 * table's, so such a file is refused. Entries keyed by a search path (see "Cycles")
 * hash the path from the root: from another root they are never found again. */

struct kept_header {
	char magic[8];
	uint32_t size, rules;
	uint64_t spec;
	uint64_t nbuckets, used;
	uint32_t fast, cyclic;
	uint32_t ran[2];
	uint64_t probe[4];
	uint64_t sum_tt;
	uint64_t sum_header; /* of every byte before it */
};

/* 1: checks of 32 bits, work in 30 (session 17); 2: with the filter (session 28) */
#define KEPT_MAGIC "BPDFPNT3"
#define KEPT_SEED 0x6b657074ull /* "kept" */

static void kept_probe(const bp_dfpn *d, uint64_t probe[4])
{
	struct bp_pos p;
	d->g->ops->start(d->g, &p);
	uint64_t h = class_hash(d, &p, NULL, NULL);
	for (int i = 0; i < 4; i++)
		probe[i] = node_key(h, i >> 1, i & 1);
}

static void kept_header_of(const bp_dfpn *d, struct kept_header *h)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, KEPT_MAGIC, 8);
	h->size = sizeof *h;
	h->rules = BP_RULES_VERSION;
	h->spec = bp_hash64(d->g->spec, strlen(d->g->spec), KEPT_SEED);
	h->nbuckets = d->nbuckets;
	h->used = d->used;
	h->fast = (uint32_t)d->fast;
	h->cyclic = (uint32_t)d->cyclic;
	h->ran[0] = (uint32_t)d->ran[0];
	h->ran[1] = (uint32_t)d->ran[1];
	kept_probe(d, h->probe);
}

/* Writes or reads n bytes in pieces (a single call moves at most about 2 GiB). */
static int io_all(int fd, void *buf, uint64_t n, int writing)
{
	char *b = buf;
	while (n) {
		size_t k = n > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)n;
		ssize_t r = writing ? write(fd, b, k) : read(fd, b, k);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		b += r;
		n -= (uint64_t)r;
	}
	return 0;
}

int bp_dfpn_kept_path(const struct bp_game *g, const char *dir, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/dfpn-%016llx.table", dir,
			 (unsigned long long)bp_hash64(g->spec, strlen(g->spec), 0));
	return n >= 0 && (size_t)n < len ? BP_OK : BP_ERANGE;
}

int bp_dfpn_keep(const bp_dfpn *d, const char *path, struct bp_err *err)
{
	struct kept_header h;
	kept_header_of(d, &h);
	uint64_t ttb = d->nbuckets * sizeof(struct tt_bucket);
	h.sum_tt = bp_hash64(d->tt, ttb, KEPT_SEED);
	h.sum_header = bp_hash64(&h, offsetof(struct kept_header, sum_header), KEPT_SEED);
	char tmp[4200];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return bp_err_set(err, BP_EINVAL, "the path %s is too long", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return bp_err_set(err, BP_EIO, "creating %s: %s", tmp, strerror(errno));
	int rc = io_all(fd, &h, sizeof h, 1);
	if (!rc)
		rc = io_all(fd, d->tt, ttb, 1);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	/* the file replaces the one kept before only once it is whole on disk */
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return bp_err_set(err, BP_EIO, "writing %s: %s", path, strerror(-rc));
	}
	return BP_OK;
}

int bp_dfpn_resume(bp_dfpn *d, const char *path, struct bp_err *err)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT
			       ? BP_ENOTFOUND
			       : bp_err_set(err, BP_EIO, "opening %s: %s", path, strerror(errno));
	struct kept_header h, want;
	kept_header_of(d, &want);
	uint64_t ttb = d->nbuckets * sizeof(struct tt_bucket);
	int rc = io_all(fd, &h, sizeof h, 0);
	if (rc) {
		close(fd);
		return bp_err_set(err, BP_ECORRUPT, "%s: no table header (%s)", path,
				  strerror(-rc));
	}
	const char *bad = NULL;
	if (memcmp(h.magic, KEPT_MAGIC, 8) || h.size != sizeof h)
		bad = "not a kept table of this build";
	else if (h.sum_header != bp_hash64(&h, offsetof(struct kept_header, sum_header), KEPT_SEED))
		bad = "its header is damaged";
	else if (h.rules != want.rules)
		bad = "it is of another rules version";
	else if (h.spec != want.spec)
		bad = "it is of another game";
	else if (h.fast != want.fast || h.cyclic != want.cyclic ||
		 memcmp(h.probe, want.probe, sizeof h.probe))
		bad = "its keys are not this build's";
	if (bad) {
		close(fd);
		return bp_err_set(err, BP_ECORRUPT, "%s: %s", path, bad);
	}
	if (h.nbuckets != want.nbuckets) {
		close(fd);
		return bp_err_set(err, BP_ERANGE,
				  "%s is a table of %llu bytes: prove with --memory %llu to go on "
				  "from it",
				  path, (unsigned long long)(h.nbuckets * sizeof(struct tt_bucket)),
				  (unsigned long long)(h.nbuckets * sizeof(struct tt_bucket)));
	}
	rc = io_all(fd, d->tt, ttb, 0);
	close(fd);
	if (!rc && bp_hash64(d->tt, ttb, KEPT_SEED) != h.sum_tt)
		rc = -EBADMSG;
	if (rc) {
		/* nothing half-read stays in the table */
		memset(d->tt, 0, ttb);
		return bp_err_set(err, BP_ECORRUPT, "%s: %s", path,
				  rc == -EBADMSG ? "its entries are damaged (checksum)"
						 : strerror(-rc));
	}
	/* the filter from the entries, as large as they need (the log holds none of them) */
	d->used = h.used;
	atomic_store(&d->nlog, d->log_keys + 1);
	free(d->log); /* no search runs yet */
	d->log = NULL;
	uint64_t bits = filter_of(d)->mask + 1, need = bits;
	while (filter_short(d, need, d->used))
		need = filter_next(d, need);
	if (need == bits || !add_filter(d, need))
		fill_filter(d, filter_of(d)); /* one pass over the table either way */
	d->ran[0] = (int)h.ran[0];
	d->ran[1] = (int)h.ran[1];
	return BP_OK;
}
