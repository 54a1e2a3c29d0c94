/* SPDX-License-Identifier: MIT */
/* The reachable canonical positions counted tier by tier by their keys, with the tiers
 * on disk (see enumerate.h). Files, in a directory made for the count and removed with it:
 *   tier-T      tier T's keys, sorted and each once (two words a key, the low one
 *               first, as in solver/sparse.c), written by merging T's runs
 *   run-T-N     the N-th run of tier T: a worker's keys of T, sorted and each once
 * Keys are in the machine's byte order: the files live only while the count runs. */
#include "solver/enumerate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"
#include "solver/sparse.h"

#define KEY_BYTES 16
#define CHUNK_KEYS 4096	   /* keys of a tier a work item reads and expands */
#define CACHE_KEYS 4096	   /* keys a worker remembers pushing lately (a power of 2) */
#define IO_KEYS (1u << 16) /* keys a reader or writer buffers (1 MiB) */
#define MERGE_FANIN 128	   /* runs a merge reads at once (files open, buffers): default */
#define DEFAULT_MEMORY (1ull << 30)

struct run_list {
	uint32_t n, cap;
	uint64_t *keys; /* keys in run i (its file: run-T-i) */
};

/* One worker's keys of one tier, pushed since its last run. */
struct kbuf {
	uint64_t *a;
	uint64_t n, cap;
};

struct worker {
	struct kbuf *buf; /* per tier */
	uint64_t held;	  /* bytes of buf's arrays */
	uint64_t *seen;	  /* CACHE_KEYS slots of (low, high, 1 + tier) */
	uint32_t *ctier;
	uint64_t *ckey;
	uint64_t *in; /* a chunk of the tier being expanded */
	uint64_t classes_over, positions;
	int used;
};

struct count {
	const struct bp_game *g;
	const struct bp_enum_keys_opts *o;
	char dir[4096];
	uint32_t nt, t;
	int threads, fd; /* fd: the tier being expanded */
	uint64_t n;	 /* its keys */
	uint64_t budget; /* bytes of buffers a worker may hold */
	struct worker *w;
	struct run_list *runs; /* per tier */
	pthread_mutex_t lock;  /* runs, disk, errmsg */
	uint64_t disk, disk_peak;
	uint32_t max_runs; /* the most runs one tier's merge read */
	uint32_t fanin;	   /* runs a merge reads at once */
	/* o->tick: positions of the tier expanded, when the next tick is due (seconds
	 * since t0), and whether a worker is ticking */
	uint64_t done, next_tick_us;
	double t0;
	int ticking;
	char errmsg[256];
	int err_code;
	/* keep: the tiers stay on disk for an index (bp_sparse_enumerate_on_disk), with
	 * each position's outcome (2 bits) and wins_at_once (1 bit) as sparse.c's
	 * enumeration makes them; no orbits are counted */
	int keep;
	uint64_t **outcome, **wins;
};

/* Keeps the first failure's message: path (its last 180 bytes) and the system's reason
 * (errno). */
static void set_error(struct count *c, int code, const char *path)
{
	int e = errno;
	pthread_mutex_lock(&c->lock);
	if (!c->errmsg[0]) {
		size_t n = strlen(path);
		snprintf(c->errmsg, sizeof c->errmsg, "%s%.180s: %.60s", n > 180 ? "..." : "",
			 path + (n > 180 ? n - 180 : 0), strerror(e));
		c->err_code = code;
	}
	pthread_mutex_unlock(&c->lock);
}

static void path_of(const struct count *c, char *out, size_t len, const char *kind, uint32_t t,
		    uint32_t i)
{
	if (i == UINT32_MAX)
		snprintf(out, len, "%s/%s-%u", c->dir, kind, t);
	else
		snprintf(out, len, "%s/%s-%u-%u", c->dir, kind, t, i);
}

static void disk_add(struct count *c, int64_t bytes)
{
	pthread_mutex_lock(&c->lock);
	c->disk += (uint64_t)bytes;
	if (c->disk > c->disk_peak)
		c->disk_peak = c->disk;
	pthread_mutex_unlock(&c->lock);
}

/* Reads (writing 0) or writes all n bytes of buf at fd's offset, or at off where off
 * >= 0 (pread). @return 0, or -1 with errno set (EIO for a short file, ENOSPC for a
 * write that wrote nothing). */
static int io_full(int fd, void *buf, size_t n, int64_t off, int writing)
{
	char *p = buf;
	while (n) {
		ssize_t k = writing    ? write(fd, p, n)
			    : off >= 0 ? pread(fd, p, n, (off_t)off)
				       : read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = writing ? ENOSPC : EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
		if (off >= 0)
			off += k;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	return io_full(fd, (void *)(uintptr_t)buf, n, -1, 1);
}

/* Writes worker w's keys of tier t (sorted and each once first) as a new run. */
static int write_run(struct count *c, struct worker *w, uint32_t t)
{
	struct kbuf *b = &w->buf[t];
	if (!b->n)
		return BP_OK;
	uint64_t m = bp_sparse_sort_unique(b->a, b->n);
	pthread_mutex_lock(&c->lock);
	struct run_list *r = &c->runs[t];
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : 16;
		uint64_t *k = realloc(r->keys, cap * sizeof *k);
		if (!k) {
			pthread_mutex_unlock(&c->lock);
			return BP_ENOMEM;
		}
		r->keys = k;
		r->cap = cap;
	}
	uint32_t i = r->n++;
	r->keys[i] = 0;
	pthread_mutex_unlock(&c->lock);
	char path[4200];
	path_of(c, path, sizeof path, "run", t, i);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, b->a, m * KEY_BYTES) || close(fd)) {
		set_error(c, BP_EIO, path);
		if (fd >= 0)
			close(fd);
		return BP_EIO;
	}
	pthread_mutex_lock(&c->lock); /* another worker may be growing the list */
	r->keys[i] = m;
	c->disk += m * KEY_BYTES;
	if (c->disk > c->disk_peak)
		c->disk_peak = c->disk;
	pthread_mutex_unlock(&c->lock);
	b->n = 0;
	return BP_OK;
}

/* Every buffer of worker w written as a run (its arrays kept). */
static int flush_worker(struct count *c, struct worker *w)
{
	for (uint32_t t = 0; t < c->nt; t++) {
		int rc = write_run(c, w, t);
		if (rc)
			return rc;
	}
	return BP_OK;
}

static int push(struct count *c, struct worker *w, uint32_t ct, const uint64_t key[2])
{
	if (ct <= c->t || ct >= c->nt) {
		pthread_mutex_lock(&c->lock);
		if (!c->errmsg[0]) {
			snprintf(c->errmsg, sizeof c->errmsg,
				 "a move from tier %u leads to tier %u: the game's tiers are not "
				 "monotone",
				 c->t, ct);
			c->err_code = BP_EINVAL;
		}
		pthread_mutex_unlock(&c->lock);
		return BP_EINVAL;
	}
	/* a key this worker pushed lately is in its buffer or a run already */
	uint64_t h = key[0] ^ key[1] * 0x9e3779b97f4a7c15ull ^ ct;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	uint64_t *slot = w->seen + 3 * (h >> 40 & (CACHE_KEYS - 1));
	if (slot[0] == key[0] && slot[1] == key[1] && slot[2] == (uint64_t)ct + 1)
		return BP_OK;
	slot[0] = key[0];
	slot[1] = key[1];
	slot[2] = (uint64_t)ct + 1;
	struct kbuf *b = &w->buf[ct];
	if (b->n == b->cap) {
		uint64_t cap = b->cap ? 2 * b->cap : 1024;
		if (w->held + (cap - b->cap) * KEY_BYTES > c->budget) {
			/* full: every buffer out as runs, then room in this one */
			int rc = flush_worker(c, w);
			if (rc)
				return rc;
			if (b->cap)
				cap = b->cap;
		}
		if (cap != b->cap) {
			uint64_t *a = realloc(b->a, cap * KEY_BYTES);
			if (!a)
				return BP_ENOMEM;
			w->held += (cap - b->cap) * KEY_BYTES;
			b->a = a;
			b->cap = cap;
		}
	}
	b->a[2 * b->n] = key[0];
	b->a[2 * b->n + 1] = key[1];
	b->n++;
	return BP_OK;
}

static int unpacks_not(struct count *c)
{
	pthread_mutex_lock(&c->lock);
	if (!c->errmsg[0]) {
		snprintf(c->errmsg, sizeof c->errmsg,
			 "tier %u: a key the game packed does not unpack", c->t);
		c->err_code = BP_EINVAL;
	}
	pthread_mutex_unlock(&c->lock);
	return BP_EINVAL;
}

static int expand_item(void *ctx, int worker, uint64_t item)
{
	struct count *c = ctx;
	const struct bp_game *g = c->g;
	struct worker *w = &c->w[worker];
	uint64_t i0 = item * CHUNK_KEYS, i1 = i0 + CHUNK_KEYS;
	if (i1 > c->n)
		i1 = c->n;
	if (c->o && c->o->cancel && c->o->cancel(c->o->ctx))
		return BP_ECANCELED;
	if (io_full(c->fd, w->in, (size_t)(i1 - i0) * KEY_BYTES, (int64_t)(i0 * KEY_BYTES), 0)) {
		char path[4200];
		path_of(c, path, sizeof path, "tier", c->t, UINT32_MAX);
		set_error(c, BP_EIO, path);
		return BP_EIO;
	}
	w->used = 1;
	struct bp_pos p;
	for (uint64_t i = 0; i < i1 - i0; i++) {
		const uint64_t *key = w->in + 2 * i;
		/* the count's images need the position (expand_key unpacks the key itself) */
		if (!c->keep) {
			bp_pos_clear(&p);
			if (g->ops->key_unpack(g, c->t, key, &p))
				return unpacks_not(c);
			w->positions += bp_game_orbit(g, &p);
		}
		enum bp_value v = BP_VALUE_NONE;
		int wins = 0, *wp = c->wins ? &wins : NULL;
		int n = g->ops->expand_key
				? g->ops->expand_key(g, c->t, key, &v, wp, w->ctier, w->ckey, NULL)
				: bp_game_expand_key_each(g, c->t, key, &v, wp, w->ctier, w->ckey,
							  NULL);
		if (n == BP_ENOTFOUND)
			return unpacks_not(c);
		if (n < 0) {
			pthread_mutex_lock(&c->lock);
			if (!c->errmsg[0]) {
				snprintf(c->errmsg, sizeof c->errmsg,
					 "tier %u: a child does not fit the game's 128-bit key",
					 c->t);
				c->err_code = n;
			}
			pthread_mutex_unlock(&c->lock);
			return n;
		}
		/* a chunk's bits fill whole words of its own (CHUNK_KEYS: a multiple of 64) */
		uint64_t at = i0 + i;
		if (c->outcome)
			c->outcome[c->t][at / 32] |= (uint64_t)v << 2 * (at % 32);
		if (v != BP_VALUE_NONE) {
			w->classes_over++;
			continue;
		}
		if (wins)
			c->wins[c->t][at / 64] |= 1ull << (at % 64);
		for (int k = 0; k < n; k++) {
			int rc = push(c, w, w->ctier[k], w->ckey + 2 * k);
			if (rc)
				return rc;
		}
	}
	__atomic_add_fetch(&c->done, i1 - i0, __ATOMIC_RELAXED);
	if (c->o && c->o->tick) {
		double now = bp_solve_clock() - c->t0;
		int idle = 0;
		if ((uint64_t)(now * 1e6) >= __atomic_load_n(&c->next_tick_us, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&c->ticking, &idle, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			/* read again here: ticks, one at a time, never go back */
			c->o->tick(c->o->ctx, c->t, c->nt,
				   __atomic_load_n(&c->done, __ATOMIC_RELAXED), c->n, now);
			double every = c->o->tick_seconds > 0 ? c->o->tick_seconds : 0.5;
			__atomic_store_n(&c->next_tick_us, (uint64_t)((now + every) * 1e6),
					 __ATOMIC_RELAXED);
			__atomic_store_n(&c->ticking, 0, __ATOMIC_RELEASE);
		}
	}
	return BP_OK;
}

/* ---- merging a tier's runs ----------------------------------------------------------- */

struct reader {
	int fd;
	uint64_t left; /* keys not yet read from the file */
	uint64_t *buf, n, i;
};

static int reader_fill(struct reader *r)
{
	uint64_t k = r->left < IO_KEYS ? r->left : IO_KEYS;
	if (io_full(r->fd, r->buf, (size_t)k * KEY_BYTES, -1, 0))
		return -1;
	r->left -= k;
	r->n = k;
	r->i = 0;
	return 0;
}

static int key_less(const uint64_t *a, const uint64_t *b)
{
	return a[1] != b[1] ? a[1] < b[1] : a[0] < b[0];
}

/* Merges runs [first, first + nr) of tier t into the file at opath (created), each key
 * once, and removes them; *total gets the keys written. */
static int merge_some(struct count *c, uint32_t t, uint32_t first, uint32_t nr, const char *opath,
		      uint64_t *total)
{
	struct run_list *rl = &c->runs[t];
	struct reader *rd = calloc(nr ? nr : 1, sizeof *rd);
	uint32_t *heap = malloc((nr ? nr : 1) * sizeof *heap);
	uint64_t *out = malloc((size_t)IO_KEYS * KEY_BYTES);
	char path[4200];
	int rc = BP_OK, ofd = -1;
	uint64_t no = 0, in_bytes = 0;
	*total = 0;
	if (!rd || !heap || !out) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < nr; i++)
		rd[i].fd = -1;
	ofd = open(opath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (ofd < 0) {
		set_error(c, BP_EIO, opath);
		rc = BP_EIO;
		goto out;
	}
	uint32_t nh = 0;
	for (uint32_t i = 0; i < nr; i++) {
		path_of(c, path, sizeof path, "run", t, first + i);
		in_bytes += rl->keys[first + i] * KEY_BYTES;
		rd[i].left = rl->keys[first + i];
		if (!rd[i].left)
			continue;
		if (!(rd[i].buf = malloc((size_t)IO_KEYS * KEY_BYTES))) {
			rc = BP_ENOMEM;
			goto out;
		}
		if ((rd[i].fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || reader_fill(&rd[i])) {
			set_error(c, BP_EIO, path);
			rc = BP_EIO;
			goto out;
		}
		/* sift up */
		uint32_t j = nh++;
		heap[j] = i;
		while (j > 0) {
			uint32_t p = (j - 1) / 2;
			if (!key_less(rd[heap[j]].buf + 2 * rd[heap[j]].i,
				      rd[heap[p]].buf + 2 * rd[heap[p]].i))
				break;
			uint32_t x = heap[j];
			heap[j] = heap[p];
			heap[p] = x;
			j = p;
		}
	}
	uint64_t last[2] = { 0, 0 };
	int have_last = 0;
	while (nh) {
		struct reader *r = &rd[heap[0]];
		const uint64_t *k = r->buf + 2 * r->i;
		if (!have_last || k[0] != last[0] || k[1] != last[1]) {
			last[0] = k[0];
			last[1] = k[1];
			have_last = 1;
			out[2 * no] = k[0];
			out[2 * no + 1] = k[1];
			++*total;
			if (++no == IO_KEYS) {
				if (write_all(ofd, out, (size_t)no * KEY_BYTES)) {
					set_error(c, BP_EIO, opath);
					rc = BP_EIO;
					goto out;
				}
				no = 0;
			}
		}
		if (++r->i == r->n) {
			if (r->left) {
				if (reader_fill(r)) {
					path_of(c, path, sizeof path, "run", t, first + heap[0]);
					set_error(c, BP_EIO, path);
					rc = BP_EIO;
					goto out;
				}
			} else {
				heap[0] = heap[--nh];
				if (!nh)
					break;
			}
		}
		/* sift down */
		uint32_t j = 0;
		for (;;) {
			uint32_t l = 2 * j + 1, m = j;
			if (l < nh && key_less(rd[heap[l]].buf + 2 * rd[heap[l]].i,
					       rd[heap[m]].buf + 2 * rd[heap[m]].i))
				m = l;
			if (l + 1 < nh && key_less(rd[heap[l + 1]].buf + 2 * rd[heap[l + 1]].i,
						   rd[heap[m]].buf + 2 * rd[heap[m]].i))
				m = l + 1;
			if (m == j)
				break;
			uint32_t x = heap[j];
			heap[j] = heap[m];
			heap[m] = x;
			j = m;
		}
	}
	if ((no && write_all(ofd, out, (size_t)no * KEY_BYTES)) || close(ofd)) {
		ofd = -1;
		set_error(c, BP_EIO, opath);
		rc = BP_EIO;
		goto out;
	}
	ofd = -1;
	disk_add(c, (int64_t)(*total * KEY_BYTES));
out:
	if (ofd >= 0)
		close(ofd);
	for (uint32_t i = 0; rd && i < nr; i++) {
		if (rd[i].fd >= 0)
			close(rd[i].fd);
		free(rd[i].buf);
		path_of(c, path, sizeof path, "run", t, first + i);
		unlink(path);
		rl->keys[first + i] = 0;
	}
	if (rd)
		disk_add(c, -(int64_t)in_bytes);
	free(rd);
	free(heap);
	free(out);
	return rc;
}

/* Merges tier t's runs into its file, each key once, removing the runs; c->n gets the
 * keys. With no run (nothing reached t) the file is empty. At most c->fanin runs are
 * read at once (a read buffer and a file each): more are first merged, that many at a
 * time, into new runs of the same tier. */
static int merge_runs(struct count *c, uint32_t t)
{
	struct run_list *rl = &c->runs[t];
	uint32_t first = 0;
	int rc = BP_OK;
	char path[4200];
	while (!rc && rl->n - first > c->fanin) {
		/* a slot for the merged run (no worker runs now) */
		if (rl->n == rl->cap) {
			uint32_t cap = 2 * rl->cap;
			uint64_t *k = realloc(rl->keys, cap * sizeof *k);
			if (!k) {
				rc = BP_ENOMEM;
				break;
			}
			rl->keys = k;
			rl->cap = cap;
		}
		uint32_t to = rl->n++;
		rl->keys[to] = 0;
		uint64_t got;
		path_of(c, path, sizeof path, "run", t, to);
		rc = merge_some(c, t, first, c->fanin, path, &got);
		rl->keys[to] = got;
		first += c->fanin;
	}
	uint32_t nr = rl->n - first;
	if (nr > c->max_runs)
		c->max_runs = nr;
	if (!rc) {
		path_of(c, path, sizeof path, "tier", t, UINT32_MAX);
		rc = merge_some(c, t, first, nr, path, &c->n);
	}
	/* what a failure left (the caller removes the directory's files) */
	for (uint32_t i = 0; i < rl->n; i++) {
		path_of(c, path, sizeof path, "run", t, i);
		unlink(path);
	}
	rl->n = 0;
	return rc;
}

/* ---- the count ----------------------------------------------------------------------- */

/* bp_sparse_enumerate_on_disk's progress and cancel, as bp_solve_opts's */
struct disk_progress {
	const struct bp_solve_opts *o;
	uint64_t base; /* positions of the tiers expanded before (ticks count on from it) */
};

static void tier_done(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t classes,
		      uint64_t positions, uint64_t over, uint64_t disk_bytes, double seconds)
{
	struct disk_progress *dp = ctx;
	(void)positions, (void)over, (void)disk_bytes;
	dp->base += classes;
	struct bp_solve_progress pr = {
		.phase = 0, .tier = tier, .ntiers = ntiers, .positions = classes, .seconds = seconds
	};
	if (dp->o->progress)
		dp->o->progress(dp->o->ctx, &pr);
}

static void tier_tick(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done, uint64_t total,
		      double seconds)
{
	const struct disk_progress *dp = ctx;
	struct bp_solve_tick t = { .phase = 0,
				   .tier = tier,
				   .ntiers = ntiers,
				   .tier_done = done,
				   .tier_total = total,
				   .phase_done = dp->base + done,
				   .seconds = seconds };
	dp->o->tick(dp->o->ctx, &t);
}

static int disk_cancel(void *ctx)
{
	const struct disk_progress *dp = ctx;
	return dp->o->cancel(dp->o->ctx);
}

int bp_enumerate_keys_supported(const struct bp_game *g)
{
	return bp_sparse_supported(g);
}

int bp_enumerate_keys_wanted(const struct bp_game *g)
{
	return bp_sparse_wanted(g);
}

void bp_enum_keys_counts_free(struct bp_enum_keys_counts *c)
{
	free(c->classes);
	free(c->positions);
	free(c->over);
	*c = (struct bp_enum_keys_counts){ 0 };
}

static int start_tier(struct count *c, uint32_t *st)
{
	const struct bp_game *g = c->g;
	struct bp_pos start, canon;
	uint64_t key[2];
	g->ops->start(g, &start);
	bp_game_canonical(g, &start, &canon);
	*st = g->ops->tier(g, &canon);
	if (*st >= c->nt || g->ops->key_pack(g, &canon, key)) {
		snprintf(c->errmsg, sizeof c->errmsg, "the start position has no key");
		return BP_EINVAL;
	}
	char path[4200];
	path_of(c, path, sizeof path, "tier", *st, UINT32_MAX);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, key, KEY_BYTES) || close(fd)) {
		set_error(c, BP_EIO, path);
		if (fd >= 0)
			close(fd);
		return BP_EIO;
	}
	disk_add(c, KEY_BYTES);
	c->n = 1;
	return BP_OK;
}

/* The count, or with ix the index (keep mode: the tiers' files are handed to
 * bp_sparse_from_files). */
static int run(const struct bp_game *g, const struct bp_enum_keys_opts *opts,
	       struct bp_enum_keys_counts *out, bp_sparse **ix, struct bp_err *err)
{
	struct count c = { .g = g, .o = opts, .fd = -1, .keep = ix != NULL };
	double t0 = bp_solve_clock();
	c.t0 = t0;
	int rc = BP_OK, made_dir = 0;
	char path[4200];
	*out = (struct bp_enum_keys_counts){ 0 };
	if (!bp_enumerate_keys_supported(g))
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s has no 128-bit key to count its positions by", g->spec);
	pthread_mutex_init(&c.lock, NULL);
	c.nt = g->ntiers;
	c.threads = opts && opts->threads > 0 ? opts->threads : bp_parallel_cores();
	uint64_t mem = opts && opts->memory ? opts->memory : DEFAULT_MEMORY;
	c.budget = mem / (uint64_t)c.threads;
	c.fanin = opts && opts->merge_fanin >= 2 ? opts->merge_fanin : MERGE_FANIN;
	if (c.budget < (uint64_t)KEY_BYTES * 1024)
		c.budget = (uint64_t)KEY_BYTES * 1024;
	const char *base = opts && opts->dir ? opts->dir : getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(c.dir, sizeof c.dir, "%s/boardproof-count-XXXXXX", base);
	out->ntiers = c.nt;
	out->classes = calloc(c.nt ? c.nt : 1, sizeof *out->classes);
	out->positions = calloc(c.nt ? c.nt : 1, sizeof *out->positions);
	out->over = calloc(c.nt ? c.nt : 1, sizeof *out->over);
	c.runs = calloc(c.nt ? c.nt : 1, sizeof *c.runs);
	c.w = calloc((size_t)c.threads, sizeof *c.w);
	if (!out->classes || !out->positions || !out->over || !c.runs || !c.w) {
		rc = BP_ENOMEM;
		goto out;
	}
	if (c.keep &&
	    (!(c.outcome = calloc(c.nt ? c.nt : 1, sizeof *c.outcome)) ||
	     (g->ops->wins_at_once && !(c.wins = calloc(c.nt ? c.nt : 1, sizeof *c.wins))))) {
		rc = BP_ENOMEM;
		goto out;
	}
	size_t mm = (size_t)(g->max_moves > 0 ? g->max_moves : 1);
	for (int i = 0; i < c.threads; i++) {
		struct worker *w = &c.w[i];
		if (!(w->buf = calloc(c.nt, sizeof *w->buf)) ||
		    !(w->seen = calloc(3 * CACHE_KEYS, sizeof *w->seen)) ||
		    !(w->ctier = malloc(mm * sizeof *w->ctier)) ||
		    !(w->ckey = malloc(mm * KEY_BYTES)) ||
		    !(w->in = malloc((size_t)CHUNK_KEYS * KEY_BYTES))) {
			rc = BP_ENOMEM;
			goto out;
		}
	}
	if (!mkdtemp(c.dir)) {
		snprintf(c.errmsg, sizeof c.errmsg,
			 "cannot make a directory for the count in %s: %s", base, strerror(errno));
		rc = BP_EIO;
		goto out;
	}
	made_dir = 1;
	uint32_t st;
	if ((rc = start_tier(&c, &st)))
		goto out;
	for (uint32_t t = st; t < c.nt; t++) {
		c.t = t;
		if (t > st && (rc = merge_runs(&c, t)))
			goto out;
		path_of(&c, path, sizeof path, "tier", t, UINT32_MAX);
		if ((c.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			set_error(&c, BP_EIO, path);
			rc = BP_EIO;
			goto out;
		}
		for (int i = 0; i < c.threads; i++)
			c.w[i].classes_over = c.w[i].positions = 0;
		c.done = 0;
		if ((c.outcome &&
		     !(c.outcome[t] = calloc((c.n + 31) / 32 + 1, sizeof(uint64_t)))) ||
		    (c.wins && !(c.wins[t] = calloc((c.n + 63) / 64 + 1, sizeof(uint64_t))))) {
			rc = BP_ENOMEM;
			goto out;
		}
		rc = bp_parallel_for(c.threads, (c.n + CHUNK_KEYS - 1) / CHUNK_KEYS, expand_item,
				     &c);
		for (int i = 0; !rc && i < c.threads; i++)
			rc = flush_worker(&c, &c.w[i]);
		if (rc)
			goto out;
		close(c.fd);
		c.fd = -1;
		if (!c.keep) {
			unlink(path);
			disk_add(&c, -(int64_t)(c.n * KEY_BYTES));
		}
		out->classes[t] = c.n;
		for (int i = 0; i < c.threads; i++) {
			out->over[t] += c.w[i].classes_over;
			out->positions[t] += c.w[i].positions;
		}
		if (opts && opts->progress)
			opts->progress(opts->ctx, t, c.nt, out->classes[t], out->positions[t],
				       out->over[t], c.disk_peak, bp_solve_clock() - t0);
	}
	rc = bp_game_status(g);
	if (!rc && c.keep) {
		/* the index's keys are its tiers' files, mapped (and unlinked) there */
		/* the workers' buffers only grow (a run leaves them allocated): their sum
		 * now is their most, beside each worker's chunk and a merge's readers */
		uint64_t held = 0;
		for (int i = 0; i < c.threads; i++)
			held += c.w[i].held + (uint64_t)CHUNK_KEYS * KEY_BYTES;
		held += (uint64_t)(c.max_runs + 1) * IO_KEYS * KEY_BYTES;
		rc = bp_sparse_from_files(c.nt, out->classes, c.dir, c.outcome, c.wins, c.threads,
					  held, ix);
		c.outcome = c.wins = NULL; /* the index's now, or freed */
		if (rc == BP_EIO)
			snprintf(c.errmsg, sizeof c.errmsg,
				 "cannot map the tiers' files in %.180s: %s", c.dir,
				 strerror(errno));
	}
out:
	for (uint32_t t = 0; c.outcome && t < c.nt; t++)
		free(c.outcome[t]);
	free(c.outcome);
	for (uint32_t t = 0; c.wins && t < c.nt; t++)
		free(c.wins[t]);
	free(c.wins);
	out->disk_peak = c.disk_peak;
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, c.errmsg[0] ? c.errmsg : bp_strerror(rc));
	if (c.fd >= 0)
		close(c.fd);
	for (uint32_t t = 0; made_dir && t < c.nt; t++) {
		for (uint32_t i = 0; c.runs && i < c.runs[t].n; i++) {
			path_of(&c, path, sizeof path, "run", t, i);
			unlink(path);
		}
		path_of(&c, path, sizeof path, "tier", t, UINT32_MAX);
		unlink(path);
	}
	if (made_dir)
		rmdir(c.dir);
	for (uint32_t t = 0; c.runs && t < c.nt; t++)
		free(c.runs[t].keys);
	free(c.runs);
	for (int i = 0; c.w && i < c.threads; i++) {
		for (uint32_t t = 0; c.w[i].buf && t < c.nt; t++)
			free(c.w[i].buf[t].a);
		free(c.w[i].buf);
		free(c.w[i].seen);
		free(c.w[i].ctier);
		free(c.w[i].ckey);
		free(c.w[i].in);
	}
	free(c.w);
	pthread_mutex_destroy(&c.lock);
	return rc;
}

int bp_enumerate_keys(const struct bp_game *g, const struct bp_enum_keys_opts *opts,
		      struct bp_enum_keys_counts *out, struct bp_err *err)
{
	return run(g, opts, out, NULL, err);
}

int bp_sparse_enumerate_on_disk(const struct bp_game *g, const struct bp_solve_opts *opts,
				const char *dir, bp_sparse **out, struct bp_err *err)
{
	struct disk_progress dp = { opts, 0 };
	struct bp_enum_keys_opts o = {
		.threads = opts ? opts->threads : 0,
		/* a quarter of the limit (at least a byte: the floor is then the least) */
		.memory = opts && opts->memory_limit ? opts->memory_limit / 4 + 1 : 0,
		.dir = dir,
		.progress = opts && (opts->progress || opts->tick) ? tier_done : NULL,
		.tick = opts && opts->tick ? tier_tick : NULL,
		.tick_seconds = opts ? opts->tick_seconds : 0,
		.cancel = opts && opts->cancel ? disk_cancel : NULL,
		.ctx = &dp,
	};
	struct bp_enum_keys_counts c;
	*out = NULL;
	int rc = run(g, &o, &c, out, err);
	bp_enum_keys_counts_free(&c);
	return rc;
}
