/* SPDX-License-Identifier: MIT */
#include "solver/dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"

int bp_vec_push(struct bp_vec *v, const void *x, size_t elem)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 1024;
		void *a = realloc(v->a, cap * elem);
		if (!a)
			return BP_ENOMEM;
		v->a = a;
		v->cap = cap;
	}
	memcpy((char *)v->a + v->n * elem, x, elem);
	v->n++;
	return BP_OK;
}

void bp_dist_init(struct bp_dist *x, const struct bp_solve_dist *d, char *errmsg, size_t errlen)
{
	*x = (struct bp_dist){ .d = d,
			       .me = d ? d->rank : 0,
			       .nranks = d ? d->nranks : 1,
			       .errmsg = errmsg,
			       .errlen = errlen };
}

int bp_dist_agree(struct bp_dist *x, int rc, uint64_t *extra, int n)
{
	if (!x->d)
		return rc;
	uint64_t v[8] = { rc != 0 };
	for (int i = 0; i < n; i++)
		v[1 + i] = extra[i];
	int crc = x->d->sum(x->d->ctx, v, n + 1);
	if (crc) {
		snprintf(x->errmsg, x->errlen, "combining across ranks: %s", bp_strerror(crc));
		return crc;
	}
	for (int i = 0; i < n; i++)
		extra[i] = v[1 + i];
	if (rc)
		return rc;
	if (v[0]) {
		snprintf(x->errmsg, x->errlen, "%llu other rank%s failed", (unsigned long long)v[0],
			 v[0] == 1 ? "" : "s");
		return BP_EIO;
	}
	return BP_OK;
}

int bp_dist_exchange(struct bp_dist *x, const void *send, const uint64_t *scount, size_t elem,
		     void **recv, uint64_t *rcount)
{
	int nr = x->nranks, rc;
	uint64_t *ones = calloc((size_t)nr, sizeof *ones), total = 0;
	*recv = NULL;
	/* a rank that left now would leave the others waiting in the exchange */
	if ((rc = bp_dist_agree(x, ones ? BP_OK : BP_ENOMEM, NULL, 0))) {
		free(ones);
		return rc;
	}
	for (int r = 0; r < nr; r++)
		ones[r] = 1;
	rc = x->d->exchange(x->d->ctx, scount, ones, rcount, ones, sizeof *scount);
	free(ones);
	if (rc)
		return rc;
	for (int r = 0; r < nr; r++) {
		total += rcount[r];
		x->sent += r == x->me ? 0 : scount[r] * elem;
		x->received += r == x->me ? 0 : rcount[r] * elem;
	}
	*recv = malloc(elem * (total ? total : 1));
	if ((rc = bp_dist_agree(x, *recv ? BP_OK : BP_ENOMEM, NULL, 0)))
		return rc;
	return x->d->exchange(x->d->ctx, send, scount, *recv, rcount, elem);
}

int bp_dist_exchange_lists(struct bp_dist *x, int rc, struct bp_vec *lists, int nlists, size_t elem,
			   void **recv, uint64_t *n)
{
	int nr = x->nranks;
	uint64_t *scount = calloc((size_t)nr * 2, sizeof *scount), *rcount = NULL, total = 0;
	char *send = NULL;
	*recv = NULL;
	*n = 0;
	if (scount) {
		rcount = scount + nr;
		for (int w = 0; w < nlists; w++)
			for (int r = 0; r < nr; r++)
				scount[r] += lists[(size_t)w * (size_t)nr + (size_t)r].n;
		for (int r = 0; r < nr; r++)
			total += scount[r];
		send = malloc(elem * (total ? total : 1));
	}
	if ((rc = bp_dist_agree(x, rc ? rc : send ? BP_OK : BP_ENOMEM, NULL, 0)))
		goto out;
	uint64_t at = 0;
	for (int r = 0; r < nr; r++)
		for (int w = 0; w < nlists; w++) {
			struct bp_vec *v = &lists[(size_t)w * (size_t)nr + (size_t)r];
			if (v->n)
				memcpy(send + at * elem, v->a, elem * v->n);
			at += v->n;
			v->n = 0;
		}
	if ((rc = bp_dist_exchange(x, send, scount, elem, recv, rcount)))
		goto out;
	for (int r = 0; r < nr; r++)
		*n += rcount[r];
out:
	free(send);
	free(scount);
	return rc;
}

int bp_dist_ask_init(struct bp_dist_ask *a, int nranks)
{
	*a = (struct bp_dist_ask){ .cnt = calloc((size_t)nranks * 2, sizeof(uint64_t)) };
	if (!a->cnt)
		return BP_ENOMEM;
	a->cursor = a->cnt + nranks;
	return BP_OK;
}

void bp_dist_ask_clear(struct bp_dist_ask *a, int nranks)
{
	a->keys.n = 0;
	memset(a->cnt, 0, sizeof *a->cnt * (size_t)nranks);
}

void bp_dist_ask_free(struct bp_dist_ask *a)
{
	free(a->keys.a);
	free(a->cnt);
	*a = (struct bp_dist_ask){ 0 };
}

#define PIECE ((uint64_t)1 << 16) /* keys a worker answers at a time */

struct lookup {
	struct bp_dist *x;
	const struct bp_dist_lookup_ops *ops;
	uint64_t *send;	      /* the keys, by owner */
	const uint64_t *keys; /* the keys received */
	uint16_t *out;	      /* their answers */
	uint64_t n;
	int bad; /* a key received is not owned here */
};

/* Item j's keys into send at its cursors (left where they were: pass B reads the
 * answers from there). Items write apart. */
static int pack_item(void *ctx, int worker, uint64_t j)
{
	struct lookup *l = ctx;
	const struct bp_dist_ask *a = l->ops->ask(l->ops->ctx, j);
	const uint64_t *k = a->keys.a;
	uint64_t at[64], *cur = at;
	int nr = l->x->nranks;
	(void)worker;
	if (a->keys.n == 0)
		return BP_OK;
	if (nr > 64) /* the cursors themselves, then back */
		cur = a->cursor;
	else
		memcpy(at, a->cursor, sizeof *at * (size_t)nr);
	for (size_t i = 0; i < a->keys.n; i++)
		l->send[cur[l->ops->owner(l->ops->ctx, k[i])]++] = k[i];
	if (nr > 64)
		for (int r = 0; r < nr; r++)
			cur[r] -= a->cnt[r];
	return BP_OK;
}

static int answer_piece(void *ctx, int worker, uint64_t item)
{
	struct lookup *l = ctx;
	uint64_t i0 = item * PIECE, i1 = i0 + PIECE < l->n ? i0 + PIECE : l->n;
	(void)worker;
	for (uint64_t i = i0; i < i1; i++)
		if (l->ops->owner(l->ops->ctx, l->keys[i]) != l->x->me) {
			l->bad = 1;
			return BP_EIO;
		}
	return l->ops->answer(l->ops->ctx, l->keys + i0, i1 - i0, l->out + i0);
}

int bp_dist_lookup(struct bp_dist *x, int threads, uint64_t nitems,
		   const struct bp_dist_lookup_ops *ops, uint16_t **answers)
{
	int nr = x->nranks, rc = BP_OK;
	uint64_t *scount = calloc((size_t)nr * 3, sizeof *scount), *rcount = NULL, *off = NULL;
	uint64_t total = 0, rtotal = 0, *got = NULL;
	struct lookup l = { .x = x, .ops = ops };
	*answers = NULL;
	if (scount) {
		rcount = scount + nr;
		off = rcount + nr;
		/* item j's keys for rank r start at off[r] + the counts of the items before */
		for (uint64_t j = 0; j < nitems; j++) {
			struct bp_dist_ask *a = ops->ask(ops->ctx, j);
			for (int r = 0; r < nr; r++) {
				a->cursor[r] = scount[r];
				scount[r] += a->cnt[r];
			}
		}
		for (int r = 0; r < nr; r++) {
			off[r] = total;
			total += scount[r];
		}
		for (uint64_t j = 0; j < nitems; j++) {
			struct bp_dist_ask *a = ops->ask(ops->ctx, j);
			for (int r = 0; r < nr; r++)
				a->cursor[r] += off[r];
		}
		l.send = malloc(sizeof *l.send * (total ? total : 1));
	}
	if ((rc = bp_dist_agree(x, l.send ? BP_OK : BP_ENOMEM, NULL, 0)))
		goto out;
	bp_parallel_for(threads, nitems, pack_item, &l);
	if ((rc = bp_dist_exchange(x, l.send, scount, sizeof *l.send, (void **)&got, rcount)))
		goto out;
	for (int r = 0; r < nr; r++)
		rtotal += rcount[r];
	l.keys = got;
	l.n = rtotal;
	if (!(l.out = malloc(sizeof *l.out * (rtotal ? rtotal : 1))) ||
	    !(*answers = malloc(sizeof **answers * (total ? total : 1))))
		rc = BP_ENOMEM;
	else
		rc = bp_parallel_for(threads, (rtotal + PIECE - 1) / PIECE, answer_piece, &l);
	if (l.bad)
		snprintf(x->errmsg, x->errlen, "a rank asked for a record not held here");
	if ((rc = bp_dist_agree(x, rc, NULL, 0)))
		goto out;
	/* the records go back the way the keys came: the counts turned around */
	for (int r = 0; r < nr; r++) {
		x->sent += r == x->me ? 0 : rcount[r] * sizeof *l.out;
		x->received += r == x->me ? 0 : scount[r] * sizeof *l.out;
	}
	rc = x->d->exchange(x->d->ctx, l.out, rcount, *answers, scount, sizeof *l.out);
out:
	free(l.send);
	free(got);
	free(l.out);
	free(scount);
	return rc;
}

/* Chunk c of a tier: its first index and its length. */
static uint64_t chunk_span(uint64_t size, uint64_t cb, uint64_t c, uint64_t *len)
{
	uint64_t i0 = c * cb;
	*len = i0 >= size ? 0 : size - i0 < cb ? size - i0 : cb;
	return i0;
}

/* The writer's source of a tier's records, in index order: its own chunks from memory,
 * the others' received one chunk at a time as the store's writer reaches them (each
 * rank sends its chunks in order, so they arrive in the order they are needed). */
struct feed {
	struct bp_dist *x;
	uint64_t size, cb;
	const void *rec;
	size_t width;	/* bytes a record in memory: 2, or 1 (bp_dist_store_tier) */
	uint8_t *piece; /* one chunk, width bytes a record */
	uint64_t held;	/* the chunk in piece; UINT64_MAX: none */
	uint64_t next;	/* chunks below it have been received or are rank 0's */
};

/* Copies n records from src (width bytes each) into dst, widened. */
static void widen(const void *src, size_t width, uint64_t n, uint16_t *dst)
{
	if (width == sizeof *dst) {
		memcpy(dst, src, n * sizeof *dst);
		return;
	}
	const uint8_t *s = src;
	for (uint64_t i = 0; i < n; i++)
		dst[i] = s[i];
}

static int feed_recv(struct feed *f, uint64_t c)
{
	uint64_t len;
	chunk_span(f->size, f->cb, c, &len);
	f->x->received += len * f->width;
	f->held = c;
	f->next = c + 1;
	return f->x->d->recv(f->x->d->ctx, bp_dist_owner(f->x, f->cb, c * f->cb), f->piece,
			     len * f->width);
}

static int feed_fill(void *ctx, uint64_t first, uint64_t n, uint16_t *dst)
{
	struct feed *f = ctx;
	while (n) {
		uint64_t c = first / f->cb, len, off = first - chunk_span(f->size, f->cb, c, &len);
		uint64_t k = len - off < n ? len - off : n;
		if (bp_dist_owner(f->x, f->cb, first) == 0) {
			uint64_t at = bp_dist_local(f->x, f->cb, first);
			widen((const uint8_t *)f->rec + at * f->width, f->width, k, dst);
			f->next = c + 1;
		} else {
			int rc = f->held == c ? BP_OK : feed_recv(f, c);
			if (rc)
				return rc;
			widen(f->piece + off * f->width, f->width, k, dst);
		}
		first += k;
		dst += k;
		n -= k;
	}
	return BP_OK;
}

int bp_dist_store_tier(struct bp_dist *x, const struct bp_game *g, bp_table *tab, uint32_t t,
		       uint64_t size, uint64_t cb, const void *rec, size_t width, int threads,
		       double seconds, const struct bp_solve_result *out)
{
	if (x->nranks == 1 && width == sizeof(uint16_t))
		return bp_solve_put_tier(g, tab, t, rec, threads, seconds, out, x->errmsg,
					 x->errlen);
	uint64_t nchunks = bp_dist_chunks(size, cb);
	/* the writer's buffer first: without it, it could not take the others' chunks,
	 * and a rank sending a large one would wait for ever */
	struct feed f = {
		.x = x, .size = size, .cb = cb, .rec = rec, .width = width, .held = UINT64_MAX
	};
	int rc = x->me != 0 || x->nranks == 1 || (f.piece = malloc(width * cb)) ? BP_OK : BP_ENOMEM;
	if ((rc = bp_dist_agree(x, rc, NULL, 0))) {
		free(f.piece);
		return rc;
	}
	if (x->me != 0) {
		rc = bp_game_status(g);
		for (uint64_t j = 0, mine = bp_dist_mine(x, nchunks); j < mine; j++) {
			uint64_t len;
			chunk_span(size, cb, (uint64_t)x->me + j * (uint64_t)x->nranks, &len);
			int src = x->d->send(x->d->ctx, 0, (const uint8_t *)rec + j * cb * width,
					     len * width);
			x->sent += len * width;
			rc = rc ? rc : src;
		}
		return rc;
	}
	rc = bp_solve_put_tier_fill(g, tab, t, feed_fill, &f, threads, seconds, out, x->errmsg,
				    x->errlen);
	/* a write that failed part-way: the chunks not taken yet, so that no rank is left
	 * waiting */
	for (uint64_t c = f.next; x->nranks > 1 && c < nchunks; c++)
		if (bp_dist_owner(x, cb, c * cb) != 0 && feed_recv(&f, c))
			break;
	free(f.piece);
	return rc;
}

int bp_dist_read_tier(struct bp_dist *x, bp_table *tab, uint32_t t, uint64_t size, uint64_t cb,
		      void *rec, size_t width)
{
	int rc = BP_OK;
	uint64_t mine = bp_dist_mine(x, bp_dist_chunks(size, cb));
	uint16_t *wide = NULL;
	if (width != sizeof *wide && !(wide = malloc(sizeof *wide * cb)))
		return BP_ENOMEM;
	for (uint64_t j = 0; !rc && j < mine; j++) {
		uint64_t len,
			i0 = chunk_span(size, cb, (uint64_t)x->me + j * (uint64_t)x->nranks, &len);
		if (!wide) {
			rc = bp_table_get_range(tab, t, i0, len, (uint16_t *)rec + j * cb);
			continue;
		}
		if ((rc = bp_table_get_range(tab, t, i0, len, wide)))
			break;
		uint8_t *dst = (uint8_t *)rec + j * cb;
		for (uint64_t i = 0; i < len && !rc; i++) {
			dst[i] = (uint8_t)wide[i];
			rc = wide[i] >> 8 ? BP_ERANGE : BP_OK; /* does not fit: not this game's */
		}
	}
	free(wide);
	return rc;
}
