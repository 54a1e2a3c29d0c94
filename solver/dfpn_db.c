/* SPDX-License-Identifier: MIT */
/* The database behind proof-number search (solver/dfpn_db.h).
 *
 * Key spaces (store/kv.h), per instance SPEC and rules version R (BP_RULES_VERSION):
 * values proven or proofs saved under other rules are never seen, as a solved table of
 * another rules version is never used as the oracle (RULES.md: never silently mixed).
 *
 *   ".proven:rR:SPEC"  key: a canonical position, its words (u64, host order, which is
 *                   little-endian on every machine the project runs on) cut after the
 *                   last non-zero word; value: 1 byte, (lo + 1) | (hi + 1) << 2, the
 *                   proven bounds lo <= value <= hi of the position for its player to
 *                   move, loss -1, draw 0, win 1. A write intersects with what is
 *                   stored, so bounds only narrow.
 *   ".proof:rR:SPEC"   key: the canonical root position as above; value: a proof in the
 *                   format of solver/proof.c.
 *
 * (store/kv.c frames each value with a checksum over key and value, and keeps a count
 * and sum of them per key space.)
 *
 * The solved table of the instance (when the database has one) is probed for every
 * position the search reaches; a miss (tier not done, or not reachable) is no answer.
 * All calls go through one mutex: the search threads share the handle. */
#include "solver/dfpn_db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "canon/random.h"
#include "solver/probe.h"
#include "store/codec.h"

struct pending {
	struct bp_pos p;
	struct bp_dfpn_bound b;
};

struct bp_dfpn_db {
	const struct bp_game *g;
	bp_store *s;
	bp_table *t;
	bp_kv *proven, *proofs;
	int64_t nproven;      /* entries stored (0: skip look-ups) */
	int64_t nproven_open; /* of them, stored before this opening (see known_any) */
	uint64_t *filter;     /* a Bloom filter of their keys (NULL: none, ask LMDB) */
	uint64_t fblocks;     /* its blocks of FILTER_BLOCK_WORDS, a power of two */
	int by_class;	      /* it holds class keys (sym_hash), not stored keys */
	uint64_t *lemma;      /* hashes of the saved proofs' keys, sorted (bp_dfpn_db_lemmas) */
	size_t nlemma, caplemma;
	pthread_mutex_t lock;
	struct pending *pend;
	size_t npend, cappend;
	double interval, last;
	int readonly;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t key_of(const struct bp_pos *canon)
{
	int n = BP_POS_WORDS;
	while (n > 0 && canon->w[n - 1] == 0)
		n--;
	return n ? sizeof(uint64_t) * (size_t)n : 1; /* an empty position: one zero byte */
}

static uint8_t bound_byte(struct bp_dfpn_bound b)
{
	return (uint8_t)((b.lo + 1) | (b.hi + 1) << 2);
}

static int byte_bound(uint8_t v, struct bp_dfpn_bound *b)
{
	b->lo = (int8_t)((v & 3) - 1);
	b->hi = (int8_t)(((v >> 2) & 3) - 1);
	return b->lo >= -1 && b->hi <= 1 && b->lo <= b->hi && v < 16;
}

/* The Bloom filter of the values proven before this opening: 16 bits and 4 probes a
 * key, all four in one cache line (a blocked filter: about one miss in 250 asks LMDB
 * for nothing), so that a search resumed over a database of millions of proven values
 * asks the B-tree, under the lock both threads share, only for keys that may be there.
 * Without it such a search spent 10 times longer per node (bench/dfpn_results.md,
 * session 17). Where the game has class keys (sym_hash) and there is no solved table,
 * the filter holds the class keys of the stored positions, so that the search's fast
 * path asks it (known_key) before it makes a canonical form: a resumed Glorieta search
 * spent two fifths of its time on canonical forms and filter probes for the oracle
 * (session 18). Otherwise it holds a hash of the stored key. */
#define FILTER_PROBES 4
#define FILTER_BLOCK_WORDS 8 /* 512 bits: a cache line */

static uint64_t filter_hash(const void *key, size_t klen)
{
	return bp_hash64(key, klen, 0x626c6f6f6dull);
}

/* The filter's hash of a class key: a class key is the least of its images' hashes, so
 * its top bits are mostly zero; mixed, every bit counts. */
static uint64_t class_hash(uint64_t key)
{
	return bp_mix64(key ^ 0x636c617373ull);
}

/* The block of h: its top bits; the probes: four 9-bit fields of its low bits. */
static uint64_t *filter_block(const struct bp_dfpn_db *db, uint64_t h)
{
	return db->filter + (h >> 40 & (db->fblocks - 1)) * FILTER_BLOCK_WORDS;
}

static void filter_add(struct bp_dfpn_db *db, uint64_t h)
{
	uint64_t *b = filter_block(db, h);
	for (int i = 0; i < FILTER_PROBES; i++, h >>= 9)
		b[(h >> 6) & 7] |= 1ull << (h & 63);
}

static int filter_has(const struct bp_dfpn_db *db, uint64_t h)
{
	const uint64_t *b = filter_block(db, h);
	for (int i = 0; i < FILTER_PROBES; i++, h >>= 9)
		if (!(b[(h >> 6) & 7] >> (h & 63) & 1))
			return 0;
	return 1;
}

/* The class key of a stored position (its key: the canonical form's words, cut). */
static uint64_t stored_class(const struct bp_dfpn_db *db, const void *key, size_t klen)
{
	struct bp_pos p;
	uint64_t img[BP_GAME_SYM_HASH_MAX];
	memset(&p, 0, sizeof p);
	memcpy(p.w, key, klen < sizeof p.w ? klen : sizeof p.w);
	return db->g->ops->sym_hash(db->g, &p, img);
}

static int filter_one(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	struct bp_dfpn_db *db = ctx;
	(void)val;
	(void)vlen;
	filter_add(db,
		   db->by_class ? class_hash(stored_class(db, key, klen)) : filter_hash(key, klen));
	return 0;
}

/* Builds the filter from the key space; on any failure there is none (look-ups then go
 * to LMDB, which reports damage as before). */
static void filter_build(struct bp_dfpn_db *db)
{
	if (!db->proven || db->nproven <= 0)
		return;
	const struct bp_game *g = db->g;
	db->by_class =
		!db->t && g->ops->sym_hash && g->nsym >= 1 && g->nsym <= BP_GAME_SYM_HASH_MAX;
	db->fblocks = 2;
	while (db->fblocks * FILTER_BLOCK_WORDS * 64 < 16 * (uint64_t)db->nproven &&
	       db->fblocks < (uint64_t)1 << 24)
		db->fblocks *= 2;
	if (!(db->filter = calloc(db->fblocks * FILTER_BLOCK_WORDS, sizeof *db->filter)))
		return;
	if (bp_kv_each(db->proven, filter_one, db) != BP_OK) {
		free(db->filter);
		db->filter = NULL;
	}
}

int bp_dfpn_db_open(const char *dir, const struct bp_game *g, int flags, struct bp_dfpn_db **out,
		    struct bp_err *err)
{
	*out = NULL;
	struct bp_dfpn_db *db = calloc(1, sizeof *db);
	if (!db)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	db->g = g;
	db->interval = 10;
	db->last = now();
	db->readonly = (flags & BP_STORE_READONLY) != 0;
	pthread_mutex_init(&db->lock, NULL);
	int rc = bp_store_open(dir, flags, &db->s, err);
	if (rc)
		goto fail;
	/* a table of other rules is no oracle: say so, never ignore it */
	if ((rc = bp_probe_open(db->s, g, &db->t, err)) == BP_ERULES)
		goto fail;
	rc = BP_OK;
	char name[300];
	snprintf(name, sizeof name, ".proven:r%d:%s", BP_RULES_VERSION, g->spec);
	rc = bp_kv_open(db->s, name, flags, &db->proven, err);
	if (rc == BP_ENOTFOUND && db->readonly)
		db->proven = NULL;
	else if (rc)
		goto fail;
	snprintf(name, sizeof name, ".proof:r%d:%s", BP_RULES_VERSION, g->spec);
	rc = bp_kv_open(db->s, name, flags, &db->proofs, err);
	if (rc == BP_ENOTFOUND && db->readonly)
		db->proofs = NULL;
	else if (rc)
		goto fail;
	db->nproven = db->proven ? bp_kv_count(db->proven) : 0;
	if (db->nproven < 0)
		db->nproven = 0;
	db->nproven_open = db->nproven;
	*out = db;
	return BP_OK;
fail:
	bp_dfpn_db_close(db);
	return rc;
}

void bp_dfpn_db_close(struct bp_dfpn_db *db)
{
	if (!db)
		return;
	if (db->s && !db->readonly)
		bp_dfpn_db_checkpoint(db);
	bp_kv_close(db->proven);
	bp_kv_close(db->proofs);
	bp_table_close(db->t);
	if (db->s)
		bp_store_close(db->s);
	pthread_mutex_destroy(&db->lock);
	free(db->filter);
	free(db->lemma);
	free(db->pend);
	free(db);
}

/* Looks up a canonical position; the caller holds the lock. */
static int lookup_locked(struct bp_dfpn_db *db, const struct bp_pos *canon,
			 struct bp_dfpn_bound *out)
{
	if (db->t) {
		struct bp_probe pr;
		if (bp_probe_position(db->g, db->t, canon, &pr) == BP_OK) {
			int v = pr.value == BP_VALUE_WIN ? 1 : pr.value == BP_VALUE_LOSS ? -1 : 0;
			out->lo = out->hi = (int8_t)v;
			return 1;
		}
	}
	if (db->nproven > 0) {
		uint8_t v;
		if (bp_kv_get_small(db->proven, canon->w, key_of(canon), &v, 1) == 1 &&
		    byte_bound(v, out))
			return 1;
	}
	return 0;
}

static int known(void *ctx, const struct bp_pos *canon, struct bp_dfpn_bound *out)
{
	struct bp_dfpn_db *db = ctx;
	if (!db->t && db->nproven == 0)
		return 0;
	/* what the filter rules out was not stored before this opening, and what was
	 * stored since came from the search's own table */
	if (!db->t && db->filter &&
	    !filter_has(db, db->by_class ? class_hash(stored_class(db, canon->w, key_of(canon)))
					 : filter_hash(canon->w, key_of(canon))))
		return 0;
	pthread_mutex_lock(&db->lock);
	int r = lookup_locked(db, canon, out);
	pthread_mutex_unlock(&db->lock);
	return r;
}

static int known_key(void *ctx, uint64_t key)
{
	const struct bp_dfpn_db *db = ctx;
	return db->t || !db->filter || !db->by_class || filter_has(db, class_hash(key));
}

/* Whether the oracle can tell the search anything it does not hold already: a solved
 * table, or values proven before this opening. The values this opening recorded came
 * from the search's own table, which keeps final values before any other entry, so
 * looking each child up again in the database (a canonical form, the lock and a
 * B-tree search per child) would cost a fifth to a third of the search's time for
 * next to nothing once the first checkpoint is written (bench/dfpn_results.md). */
static int known_any(void *ctx)
{
	const struct bp_dfpn_db *db = ctx;
	return db->t || db->nproven_open > 0;
}

static int checkpoint_locked(struct bp_dfpn_db *db)
{
	if (!db->npend || !db->proven || db->readonly)
		return BP_OK;
	struct bp_kv_item *it = malloc(sizeof *it * db->npend);
	uint8_t *val = malloc(db->npend);
	if (!it || !val) {
		free(it);
		free(val);
		return BP_ENOMEM;
	}
	for (size_t i = 0; i < db->npend; i++) {
		struct pending *p = &db->pend[i];
		struct bp_dfpn_bound b = p->b, old;
		uint8_t v;
		/* narrow with what is stored (and with earlier pending values: LMDB keeps the
		 * last put of a key in the transaction, so later ones see earlier ones only
		 * through the intersection below) */
		if (bp_kv_get_small(db->proven, p->p.w, key_of(&p->p), &v, 1) == 1 &&
		    byte_bound(v, &old)) {
			if (old.lo > b.lo)
				b.lo = old.lo;
			if (old.hi < b.hi)
				b.hi = old.hi;
		}
		for (size_t j = 0; j < i; j++)
			if (bp_pos_equal(&db->pend[j].p, &p->p)) {
				if (db->pend[j].b.lo > b.lo)
					b.lo = db->pend[j].b.lo;
				if (db->pend[j].b.hi < b.hi)
					b.hi = db->pend[j].b.hi;
			}
		if (b.lo > b.hi) /* contradicting proofs: keep neither claim */
			b.lo = -1, b.hi = 1;
		p->b = b;
		val[i] = bound_byte(b);
		it[i] = (struct bp_kv_item){ p->p.w, &val[i], key_of(&p->p), 1 };
	}
	int rc = bp_kv_put(db->proven, db->npend, it);
	free(it);
	free(val);
	if (rc == BP_OK) {
		db->nproven += (int64_t)db->npend;
		db->npend = 0;
	}
	db->last = now();
	return rc;
}

static void record(void *ctx, const struct bp_pos *canon, struct bp_dfpn_bound b)
{
	struct bp_dfpn_db *db = ctx;
	pthread_mutex_lock(&db->lock);
	if (db->npend == db->cappend) {
		size_t cap = db->cappend ? db->cappend * 2 : 256;
		struct pending *p = realloc(db->pend, sizeof *p * cap);
		if (!p)
			goto out;
		db->pend = p;
		db->cappend = cap;
	}
	db->pend[db->npend].p = *canon;
	db->pend[db->npend].b = b;
	db->npend++;
	/* a check of the clock every 64 values keeps the cost small */
	if ((db->npend & 63) == 0 || db->interval == 0)
		if (now() - db->last >= db->interval)
			checkpoint_locked(db);
out:
	pthread_mutex_unlock(&db->lock);
}

void bp_dfpn_db_attach(struct bp_dfpn_db *db, struct bp_dfpn_opts *o)
{
	if (!db->filter) /* before any search thread runs */
		filter_build(db);
	o->known = known;
	o->known_any = known_any;
	o->known_key = known_key;
	o->record = db->readonly ? NULL : record;
	o->ctx = db;
}

void bp_dfpn_db_set_interval(struct bp_dfpn_db *db, double seconds)
{
	db->interval = seconds;
}

int bp_dfpn_db_checkpoint(struct bp_dfpn_db *db)
{
	pthread_mutex_lock(&db->lock);
	int rc = checkpoint_locked(db);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int bp_dfpn_db_lookup(struct bp_dfpn_db *db, const struct bp_pos *p, struct bp_dfpn_bound *out)
{
	struct bp_pos canon;
	bp_game_canonical(db->g, p, &canon);
	if (db->g->ops->outcome(db->g, &canon) != BP_VALUE_NONE) {
		enum bp_value v = db->g->ops->outcome(db->g, &canon);
		out->lo = out->hi = (int8_t)(v == BP_VALUE_WIN ? 1 : v == BP_VALUE_LOSS ? -1 : 0);
		return 1;
	}
	pthread_mutex_lock(&db->lock);
	int64_t saved = db->nproven;
	db->nproven = db->proven ? 1 : 0; /* look even when it was empty at opening */
	int r = lookup_locked(db, &canon, out);
	db->nproven = saved;
	pthread_mutex_unlock(&db->lock);
	return r;
}

const char *bp_dfpn_db_why(const struct bp_dfpn_db *db)
{
	const char *w = db->proofs ? bp_kv_why(db->proofs) : "";
	return *w || !db->proven ? w : bp_kv_why(db->proven);
}

const char *bp_dfpn_db_proven_why(const struct bp_dfpn_db *db)
{
	return db->proven ? bp_kv_why(db->proven) : "";
}

bp_table *bp_dfpn_db_table(struct bp_dfpn_db *db)
{
	return db->t;
}

int bp_dfpn_db_save_proof(struct bp_dfpn_db *db, struct bp_proof *pf, struct bp_err *err)
{
	if (!db->proofs || db->readonly) {
		bp_proof_free(pf);
		return bp_err_set(err, BP_EINVAL, "the database is open for reading");
	}
	uint8_t *buf;
	size_t len;
	int rc = bp_proof_encode(pf, &buf, &len);
	struct bp_pos canon;
	bp_game_canonical(db->g, bp_proof_root(pf), &canon);
	bp_proof_free(pf);
	if (rc)
		return bp_err_set(err, rc,
				  rc == BP_EIO ? "compressing the proof failed" : "out of memory");
	struct bp_kv_item it = { canon.w, buf, key_of(&canon), len };
	pthread_mutex_lock(&db->lock);
	rc = bp_kv_put(db->proofs, 1, &it);
	pthread_mutex_unlock(&db->lock);
	free(buf);
	const char *why = bp_kv_why(db->proofs);
	if (rc == BP_EIO && *why) /* the cause of a failed write, named by the store */
		return bp_err_set(err, rc, "writing the proof: %s", why);
	return rc ? bp_err_set(err, rc, "writing the proof: %s%s%s%s", bp_strerror(rc),
			       *why ? " (" : "", why, *why ? ")" : "")
		  : BP_OK;
}

/* ---- saved proofs as lemmas of a build ---- */

static int lemma_key(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	struct bp_dfpn_db *db = ctx;
	(void)val;
	(void)vlen;
	if (db->nlemma == db->caplemma) {
		size_t cap = db->caplemma ? 2 * db->caplemma : 64;
		uint64_t *more = realloc(db->lemma, sizeof *more * cap);
		if (!more)
			return BP_ENOMEM;
		db->lemma = more;
		db->caplemma = cap;
	}
	db->lemma[db->nlemma++] = filter_hash(key, klen);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A saved proof rooted at canon, decoded, or NULL (none, or one that does not read). */
static struct bp_proof *lemma_find(void *ctx, const struct bp_pos *canon)
{
	struct bp_dfpn_db *db = ctx;
	uint64_t h = filter_hash(canon->w, key_of(canon));
	if (!db->nlemma || !bsearch(&h, db->lemma, db->nlemma, sizeof h, cmp_u64))
		return NULL;
	void *val = NULL;
	size_t vlen = 0;
	pthread_mutex_lock(&db->lock);
	int rc = bp_kv_get(db->proofs, canon->w, key_of(canon), &val, &vlen);
	pthread_mutex_unlock(&db->lock);
	if (rc)
		return NULL;
	struct bp_proof *pf = NULL;
	struct bp_err err = { { 0 } };
	rc = bp_proof_decode(val, vlen, &pf, &err);
	free(val);
	if (rc == BP_OK && bp_game_pos_check(db->g, bp_proof_root(pf), &err) != BP_OK) {
		bp_proof_free(pf);
		pf = NULL;
	}
	return rc == BP_OK ? pf : NULL;
}

void bp_dfpn_db_lemmas(struct bp_dfpn_db *db, struct bp_proof_lemmas *out)
{
	if (db->proofs && !db->lemma) {
		if (bp_kv_each(db->proofs, lemma_key, db) != BP_OK)
			db->nlemma = 0; /* none then: a build makes every decision itself */
		else if (db->nlemma)
			qsort(db->lemma, db->nlemma, sizeof *db->lemma, cmp_u64);
	}
	out->find = lemma_find;
	out->ctx = db;
}

struct each {
	const struct bp_game *g;
	int (*fn)(void *ctx, const struct bp_proof *pf, int decode_rc, const char *why);
	void *ctx;
};

static int each_one(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	struct each *e = ctx;
	struct bp_proof *pf = NULL;
	struct bp_err err = { { 0 } };
	int rc = bp_proof_decode(val, vlen, &pf, &err);
	if (rc == BP_OK && (rc = bp_game_pos_check(e->g, bp_proof_root(pf), &err)) != BP_OK &&
	    rc != BP_ENOMEM) {
		/* words from outside: checked before any op reads them */
		char why[sizeof err.msg];
		snprintf(why, sizeof why, "%s", err.msg);
		rc = bp_err_set(&err, BP_ECORRUPT, "the proof's root is not a position: %.200s",
				why);
	}
	if (rc == BP_OK) {
		/* a proof is stored under its canonical root: one found under another key
		 * was moved by damage (the key space's checksums make this a second line) */
		struct bp_pos canon;
		bp_game_canonical(e->g, bp_proof_root(pf), &canon);
		if (klen != key_of(&canon) || memcmp(key, canon.w, klen) != 0) {
			rc = BP_ECORRUPT;
			snprintf(err.msg, sizeof err.msg, "the proof is not stored under its root");
		}
	}
	int r = e->fn(e->ctx, pf, rc, err.msg);
	bp_proof_free(pf);
	return r;
}

int bp_dfpn_db_each_proof(struct bp_dfpn_db *db,
			  int (*fn)(void *ctx, const struct bp_proof *pf, int decode_rc,
				    const char *why),
			  void *ctx)
{
	if (!db->proofs)
		return BP_OK;
	struct each e = { db->g, fn, ctx };
	return bp_kv_each(db->proofs, each_one, &e);
}

int bp_dfpn_proven_get(bp_store *s, const struct bp_game *g, const struct bp_pos *p,
		       struct bp_dfpn_bound *out)
{
	char name[300];
	bp_kv *kv;
	struct bp_pos canon;
	uint8_t v;
	snprintf(name, sizeof name, ".proven:r%d:%s", BP_RULES_VERSION, g->spec);
	int rc = bp_kv_open(s, name, BP_STORE_READONLY, &kv, NULL);
	if (rc == BP_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	bp_game_canonical(g, p, &canon);
	rc = bp_kv_get_small(kv, canon.w, key_of(&canon), &v, 1);
	bp_kv_close(kv);
	if (rc == BP_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	/* the value passed its checksum: one that is no bound is not ours */
	return rc == 1 && byte_bound(v, out) ? 1 : BP_ECORRUPT;
}

struct proven_check {
	const struct bp_game *g;
	uint64_t n;
};

static int check_proven_one(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	struct proven_check *c = ctx;
	struct bp_pos p = { { 0 } }, canon;
	struct bp_dfpn_bound b;
	c->n++;
	if (vlen != 1 || !byte_bound(*(const uint8_t *)val, &b) || klen > sizeof p.w ||
	    (klen % sizeof(uint64_t) && klen != 1))
		return BP_ECORRUPT;
	memcpy(p.w, key, klen);
	bp_game_canonical(c->g, &p, &canon);
	return key_of(&canon) == klen && bp_pos_equal(&canon, &p) ? 0 : BP_ECORRUPT;
}

int bp_dfpn_db_check_proven(struct bp_dfpn_db *db, uint64_t *count)
{
	struct proven_check c = { db->g, 0 };
	int rc = db->proven ? bp_kv_each(db->proven, check_proven_one, &c) : BP_OK;
	*count = c.n;
	return rc;
}

/* ---- what a database holds, for `list` ---- */

struct saved_walk {
	bp_store *s;
	int (*fn)(void *ctx, const struct bp_dfpn_saved *it);
	void *ctx;
	struct bp_dfpn_saved it;
	int rc; /* fn's first non-zero return, or an error of the walk: it stops there */
};

/* Tells fn of w->it; its non-zero return stops the walk. */
static int tell(struct saved_walk *w)
{
	int r = w->fn(w->ctx, &w->it);
	if (r && !w->rc)
		w->rc = r;
	return r;
}

static int saved_proof(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	struct saved_walk *w = ctx;
	struct bp_err err = { { 0 } };
	(void)key;
	(void)klen;
	w->it.bytes = vlen;
	w->it.rc = bp_proof_peek(val, vlen, &w->it.proof, &err);
	w->it.why = err.msg;
	if (w->it.rc == BP_OK && strcmp(w->it.proof.spec, w->it.spec) != 0) {
		w->it.rc = BP_ECORRUPT; /* a proof of another instance in this one's space */
		w->it.why = "the proof names another instance";
	}
	return tell(w);
}

static void saved_space(void *ctx, const char *name)
{
	struct saved_walk *w = ctx;
	char spec[300];
	int rules, kind, n = 0;
	if (w->rc)
		return;
	if (sscanf(name, ".proof:r%d:%n", &rules, &n) == 1 && n > 0)
		kind = BP_DFPN_SAVED_PROOF;
	else if (sscanf(name, ".proven:r%d:%n", &rules, &n) == 1 && n > 0)
		kind = BP_DFPN_SAVED_PROVEN;
	else
		return; /* another kind of key space: not proof-number search's */
	snprintf(spec, sizeof spec, "%s", name + n);
	bp_kv *kv = NULL;
	w->it = (struct bp_dfpn_saved){ .spec = spec, .rules_version = rules, .kind = kind };
	struct bp_err err = { { 0 } };
	int rc = bp_kv_open(w->s, name, BP_STORE_READONLY, &kv, &err);
	if (rc == BP_OK && kind == BP_DFPN_SAVED_PROVEN) {
		int64_t c = bp_kv_count(kv);
		rc = c < 0 ? (int)c : BP_OK;
		w->it.count = c < 0 ? 0 : (uint64_t)c;
		if (rc == BP_OK)
			tell(w);
	} else if (rc == BP_OK) {
		rc = bp_kv_each(kv, saved_proof, w);
	}
	if (rc == BP_ENOMEM && !w->rc)
		w->rc = rc;
	else if (rc && !w->rc) {
		/* the key space itself: opening it, or an entry that bp_kv_each found
		 * damaged (never handed to saved_proof) */
		w->it.rc = rc;
		w->it.why = err.msg[0] ? err.msg : kv ? bp_kv_why(kv) : "";
		tell(w);
	}
	bp_kv_close(kv);
}

int bp_dfpn_db_saved(bp_store *s, int (*fn)(void *ctx, const struct bp_dfpn_saved *it), void *ctx)
{
	struct saved_walk w = { .s = s, .fn = fn, .ctx = ctx };
	int rc = bp_store_spaces(s, saved_space, &w);
	return rc ? rc : w.rc;
}

/* ---- positions' moves in the saved proofs, for `query` ---- */

struct proof_look {
	const struct bp_pos *canon;
	int n, nfound;
	struct bp_proof_decision *d;
	uint8_t *found;
	int rc;
	char why[200];
};

static int look_one(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
	struct proof_look *pl = ctx;
	struct bp_err err = { { 0 } };
	(void)key;
	(void)klen;
	int rc = bp_proof_find_many(val, vlen, pl->canon, pl->n, pl->d, pl->found, &err);
	if (rc < 0) {
		pl->rc = rc;
		snprintf(pl->why, sizeof pl->why, "%s", err.msg);
		return rc;
	}
	pl->nfound = rc;
	return rc == pl->n; /* all found: stop */
}

/* The move of p whose result is the class of the canonical position canon after move
 * cm (canon being p's class): cm in p's own frame. @return 1; 0 when none is. */
static int move_in_frame(const struct bp_game *g, const struct bp_pos *p,
			 const struct bp_pos *canon, uint32_t cm, struct bp_move *mv,
			 struct bp_move *out)
{
	struct bp_pos c = *canon, want, cc, cw;
	/* the stored move is from the database: one of canon's, or no move at all */
	int n = g->ops->moves(g, canon, mv), legal = 0;
	for (int i = 0; i < n && !legal; i++)
		legal = mv[i].v == cm;
	if (!legal)
		return 0;
	g->ops->apply(g, &c, (struct bp_move){ cm });
	bp_game_canonical(g, &c, &want);
	n = g->ops->moves(g, p, mv);
	for (int i = 0; i < n; i++) {
		cc = *p;
		g->ops->apply(g, &cc, mv[i]);
		bp_game_canonical(g, &cc, &cw);
		if (bp_pos_equal(&cw, &want)) {
			*out = mv[i];
			return 1;
		}
	}
	return 0;
}

int bp_dfpn_proof_moves(bp_store *s, const struct bp_game *g, const struct bp_pos *ps, int n,
			struct bp_move *moves, struct bp_proof_decision *d, uint8_t *found,
			struct bp_err *err)
{
	char name[300];
	bp_kv *kv;
	memset(found, 0, (size_t)n);
	snprintf(name, sizeof name, ".proof:r%d:%s", BP_RULES_VERSION, g->spec);
	int rc = bp_kv_open(s, name, BP_STORE_READONLY, &kv, err);
	if (rc == BP_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	struct bp_pos *canon = malloc(sizeof *canon * (size_t)(n ? n : 1));
	struct bp_move *mv = bp_game_move_buffer(g);
	if (!canon || !mv) {
		free(canon);
		free(mv);
		bp_kv_close(kv);
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++)
		bp_game_canonical(g, &ps[i], &canon[i]);
	struct proof_look pl = { .canon = canon, .n = n, .d = d, .found = found };
	rc = n ? bp_kv_each(kv, look_one, &pl) : BP_OK;
	if (pl.rc)
		rc = bp_err_set(err, pl.rc, "a saved proof: %s", pl.why);
	else if (rc < 0)
		bp_err_set(err, rc, "the saved proofs: %s", bp_kv_why(kv));
	bp_kv_close(kv);
	int nfound = 0;
	for (int i = 0; i < n && rc >= 0; i++) {
		if (!found[i])
			continue;
		nfound++;
		if (!move_in_frame(g, &ps[i], &canon[i], d[i].move, mv, &moves[i]))
			rc = bp_err_set(
				err, BP_ECORRUPT,
				"a saved proof's move at a position is not one of its moves");
	}
	free(mv);
	free(canon);
	return rc < 0 ? rc : nfound;
}

int bp_dfpn_proof_move(bp_store *s, const struct bp_game *g, const struct bp_pos *p,
		       struct bp_move *move, struct bp_proof_decision *d, struct bp_err *err)
{
	uint8_t found;
	return bp_dfpn_proof_moves(s, g, p, 1, move, d, &found, err);
}
