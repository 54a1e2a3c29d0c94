/* SPDX-License-Identifier: MIT */
/* The count by keys with the tiers on disk (solver/enumerate_keys.c): the same classes per
 * tier as the in-memory enumeration of the sparse index, and the same positions (every
 * image) and classes as the dense enumeration, on Mirador's small boards, with buffers
 * so small that every tier is merged from many runs, on one and three threads; the
 * positions over as the rules say; a directory it cannot write is named in the error,
 * a cancelled count removes its files; and a game's sym_fixed agrees with transform(). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/enumerate.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/sparse.h"
#include "solver/verify.h"
#include "tests/support.h"

static const char *const boards[] = { "mirador:4x4", "mirador:5x4,piece=1", "mirador:5x5",
				      "mirador:6x6", "mirador:7x7",	    "mirador:5x7",
				      "mirador:8x8" };

/* The entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static struct bp_enum_keys_counts count(const struct bp_game *g, int threads, uint64_t memory,
					const char *dir)
{
	/* on one thread, runs merged two at a time: tiers of more take several passes */
	struct bp_enum_keys_opts o = { .threads = threads,
				       .memory = memory,
				       .dir = dir,
				       .merge_fanin = threads == 1 ? 2 : 0 };
	struct bp_enum_keys_counts c;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_enumerate_keys(g, &o, &c, &err), BP_OK, "%s: %s", g->spec, err.msg);
	return c;
}

Test(enumerate_keys, same_counts_as_both_enumerations, .timeout = 120)
{
	char *dir = temp_db();
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		struct bp_game *g = open_game(boards[b]);
		bp_sparse *ix = NULL;
		struct bp_err err = { { 0 } };
		struct bp_solve_opts so = { .threads = 2 };
		cr_assert_eq(bp_sparse_enumerate(g, &so, &ix, &err), BP_OK, "%s", err.msg);
		struct bp_enum_counts ec = { 0 };
		cr_assert_eq(bp_enumerate(g, 1ull << 30, NULL, NULL, &ec), BP_OK, "%s", boards[b]);
		/* 16 KiB of buffers a worker (the floor): many runs a tier */
		for (int threads = 1; threads <= 3; threads += 2) {
			struct bp_enum_keys_counts c = count(g, threads, 1, dir);
			cr_assert_eq(c.ntiers, g->ntiers);
			uint64_t over = 0, classes = 0;
			for (uint32_t t = 0; t < g->ntiers; t++) {
				cr_expect_eq(c.classes[t], bp_sparse_count(ix, t),
					     "%s tier %u: %llu classes, the index %llu", boards[b],
					     t, (unsigned long long)c.classes[t],
					     (unsigned long long)bp_sparse_count(ix, t));
				cr_expect_eq(c.classes[t], ec.classes[t], "%s tier %u", boards[b],
					     t);
				cr_expect_eq(c.positions[t], ec.raw[t],
					     "%s tier %u: %llu positions, dense %llu", boards[b], t,
					     (unsigned long long)c.positions[t],
					     (unsigned long long)ec.raw[t]);
				/* the positions over, by the rules */
				uint64_t n = 0;
				for (uint64_t i = 0; i < bp_sparse_count(ix, t); i++) {
					struct bp_pos p;
					bp_pos_clear(&p);
					cr_assert_eq(g->ops->key_unpack(
							     g, t, bp_sparse_key(ix, t, i), &p),
						     BP_OK);
					n += g->ops->outcome(g, &p) != BP_VALUE_NONE;
				}
				cr_expect_eq(c.over[t], n, "%s tier %u: %llu over, the rules %llu",
					     boards[b], t, (unsigned long long)c.over[t],
					     (unsigned long long)n);
				over += c.over[t];
				classes += c.classes[t];
			}
			cr_expect_eq(classes, bp_sparse_positions(ix));
			cr_expect_gt(over, 0);
			cr_expect_gt(c.disk_peak, 0);
			cr_expect_eq(entries(dir), 0, "%s: files left behind", boards[b]);
			bp_enum_keys_counts_free(&c);
		}
		bp_enum_counts_free(&ec);
		bp_sparse_free(ix);
		bp_game_destroy(g);
	}
	remove_db(dir);
}

Test(enumerate_keys, a_directory_it_cannot_use_is_named)
{
	struct bp_game *g = open_game("mirador:5x5");
	struct bp_enum_keys_opts o = { .threads = 1, .dir = "/nonexistent/boardproof-dir" };
	struct bp_enum_keys_counts c;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_enumerate_keys(g, &o, &c, &err), BP_EIO);
	cr_expect(strstr(err.msg, "/nonexistent/boardproof-dir") != NULL, "%s", err.msg);
	bp_enum_keys_counts_free(&c);
	bp_game_destroy(g);
}

static int stop_at_once(void *ctx)
{
	int *calls = ctx;
	return ++*calls > 3;
}

Test(enumerate_keys, a_cancelled_count_removes_its_files)
{
	char *dir = temp_db();
	struct bp_game *g = open_game("mirador:8x8");
	int calls = 0;
	struct bp_enum_keys_opts o = {
		.threads = 2, .memory = 1, .dir = dir, .cancel = stop_at_once, .ctx = &calls
	};
	struct bp_enum_keys_counts c;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_enumerate_keys(g, &o, &c, &err), BP_ECANCELED, "%s", err.msg);
	cr_expect_eq(entries(dir), 0);
	cr_expect_eq(c.classes[0], 1, "the tiers finished before are filled in");
	bp_enum_keys_counts_free(&c);
	bp_game_destroy(g);
	remove_db(dir);
}

Test(enumerate_keys, a_game_without_keys_is_refused)
{
	struct bp_game *g = open_game("taifas:3x3");
	struct bp_enum_keys_counts c;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_enumerate_keys(g, NULL, &c, &err), BP_EUNSUPPORTED);
	cr_expect(strstr(err.msg, "taifas") != NULL, "%s", err.msg);
	bp_game_destroy(g);
}

/* Mirador's sym_fixed against transform() on every reachable position of small boards
 * and their images (symmetric positions among them: the empty board, centred pieces). */
Test(enumerate_keys, sym_fixed_as_transform)
{
	const char *const specs[] = { "mirador:5x5", "mirador:6x6", "mirador:7x7", "mirador:5x7",
				      "mirador:13x13" };
	for (size_t b = 0; b < sizeof specs / sizeof specs[0]; b++) {
		struct bp_game *g = open_game(specs[b]);
		cr_assert_not_null(g->ops->sym_fixed);
		uint64_t checked = 0, symmetric = 0;
		if (b < 4) {
			bp_sparse *ix = NULL;
			struct bp_err err = { { 0 } };
			struct bp_solve_opts so = { .threads = 1 };
			cr_assert_eq(bp_sparse_enumerate(g, &so, &ix, &err), BP_OK, "%s", err.msg);
			for (uint32_t t = 0; t < g->ntiers; t++)
				for (uint64_t i = 0; i < bp_sparse_count(ix, t); i++) {
					struct bp_pos p, img;
					bp_pos_clear(&p);
					cr_assert_eq(g->ops->key_unpack(
							     g, t, bp_sparse_key(ix, t, i), &p),
						     BP_OK);
					for (int s = 0; s < g->nsym; s++) {
						bp_pos_clear(&img);
						g->ops->transform(g, &p, s, &img);
						int want = 0;
						for (int u = 0; u < g->nsym; u++) {
							struct bp_pos q;
							bp_pos_clear(&q);
							g->ops->transform(g, &img, u, &q);
							want += bp_pos_equal(&q, &img);
						}
						cr_expect_eq(g->ops->sym_fixed(g, &img), want,
							     "%s: %s", specs[b], fmt_pos(g, &img));
						symmetric += want > 1;
						checked++;
					}
				}
			bp_sparse_free(ix);
		} else {
			/* a grid past the small tables (13x13: 144 places): the generic way */
			struct bp_pos p = parse_pos(g, "start");
			cr_expect_eq(g->ops->sym_fixed(g, &p), g->nsym);
			checked++;
		}
		cr_expect_gt(checked, 0);
		if (b < 4)
			cr_expect_gt(symmetric, 0, "%s: no symmetric position tried", specs[b]);
		bp_game_destroy(g);
	}
}

/* The index enumerated with its tiers on disk is the in-memory one, key for key, on one
 * and three threads with buffers small enough for many runs, and leaves no file. */
Test(enumerate_keys, index_on_disk_as_in_memory, .timeout = 120)
{
	char *dir = temp_db();
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		struct bp_game *g = open_game(boards[b]);
		bp_sparse *mem = NULL;
		struct bp_err err = { { 0 } };
		struct bp_solve_opts so = { .threads = 2 };
		cr_assert_eq(bp_sparse_enumerate(g, &so, &mem, &err), BP_OK, "%s", err.msg);
		for (int threads = 1; threads <= 3; threads += 2) {
			bp_sparse *disk = NULL;
			struct bp_solve_opts o = { .threads = threads,
						   .memory_limit = 1,
						   .spill_dir = dir };
			cr_assert_eq(bp_sparse_enumerate(g, &o, &disk, &err), BP_OK, "%s", err.msg);
			cr_expect_eq(entries(dir), 0, "%s: files left while the index lives",
				     boards[b]);
			char why[200] = "";
			cr_expect_eq(bp_sparse_compare(mem, disk, why, sizeof why), BP_OK, "%s: %s",
				     boards[b], why);
			cr_expect_eq(bp_sparse_hash(mem), bp_sparse_hash(disk));
			bp_sparse_free(disk);
		}
		bp_sparse_free(mem);
		bp_game_destroy(g);
	}
	remove_db(dir);
}

static void say_problem(void *ctx, const char *what)
{
	(void)ctx;
	cr_log_warn("%s", what);
}

/* verify's report on g's table at dir, opened with its stored index (bp_probe_open). */
static struct bp_verify_report verify_sparse(const char *dir, const struct bp_game *g)
{
	bp_store *db;
	bp_table *t;
	struct bp_err err = { { 0 } };
	struct bp_verify_report r;
	struct bp_verify_opts vo = { .threads = 2, .problem = say_problem };
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_probe_open(db, g, &t, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_verify(g, t, &vo, &r), BP_OK);
	bp_table_close(t);
	bp_store_close(db);
	return r;
}

/* A solve whose index was enumerated on disk stores the same table (content hash, with
 * the index's) as one enumerated in memory, and verify re-derives it. */
Test(enumerate_keys, solve_with_spill_stores_the_same_table, .timeout = 120)
{
	const char *const specs[] = { "mirador:7x7", "mirador:8x8" };
	for (size_t b = 0; b < sizeof specs / sizeof specs[0]; b++) {
		struct bp_game *g = open_game(specs[b]);
		char *d1 = temp_db(), *d2 = temp_db(), *sp = temp_db();
		struct bp_solve_opts o = { .threads = 2, .index = BP_INDEX_SPARSE };
		struct bp_solve_result r1 = solve_into(d1, g, o);
		o.spill_dir = sp;
		struct bp_solve_result r2 = solve_into(d2, g, o);
		cr_expect_eq(r1.value, r2.value);
		cr_expect_eq(r1.positions, r2.positions);
		cr_expect_eq(entries(sp), 0);
		struct bp_verify_report v1 = verify_sparse(d1, g), v2 = verify_sparse(d2, g);
		cr_expect_eq(v1.inconsistencies, 0);
		cr_expect_eq(v2.inconsistencies, 0);
		cr_expect_eq(v1.positions_checked, r1.positions);
		cr_expect_eq(v2.index_enumerated, r1.positions);
		cr_expect_eq(v1.content_hash, v2.content_hash, "%s: %016llx and %016llx", specs[b],
			     (unsigned long long)v1.content_hash,
			     (unsigned long long)v2.content_hash);
		remove_db(d1);
		remove_db(d2);
		remove_db(sp);
		bp_game_destroy(g);
	}
}

/* A solve stopped after some tiers, resumed with --spill (the stored index then read a
 * tier at a time and let go behind the solve), stores the same table as one run. */
struct stop_after {
	int solved, limit;
};

static void count_solved(void *ctx, const struct bp_solve_progress *p)
{
	struct stop_after *s = ctx;
	s->solved += p->phase == 1;
}

static int stop_when_enough(void *ctx)
{
	const struct stop_after *s = ctx;
	return s->solved >= s->limit;
}

Test(enumerate_keys, resumed_with_spill_stores_the_same_table, .timeout = 120)
{
	struct bp_game *g = open_game("mirador:8x8");
	char *d1 = temp_db(), *d2 = temp_db(), *sp = temp_db();
	struct bp_solve_opts o = { .threads = 2, .index = BP_INDEX_SPARSE };
	struct bp_solve_result r1 = solve_into(d1, g, o);
	struct stop_after st = { 0, 4 };
	o.progress = count_solved;
	o.cancel = stop_when_enough;
	o.ctx = &st;
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(d2, BP_STORE_CREATE, &db, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_solve(g, db, &o, &r, &err), BP_ECANCELED, "%s", err.msg);
	bp_store_close(db);
	cr_assert_geq(st.solved, 4);
	st = (struct stop_after){ 0, 1000 };
	o.spill_dir = sp;
	struct bp_solve_result r2 = solve_into(d2, g, o);
	cr_expect_gt(r2.resumed_tiers, 0);
	cr_expect_eq(r2.value, r1.value);
	cr_expect_eq(entries(sp), 0);
	struct bp_verify_report v1 = verify_sparse(d1, g), v2 = verify_sparse(d2, g);
	cr_expect_eq(v2.inconsistencies, 0);
	cr_expect_eq(v1.content_hash, v2.content_hash, "%016llx and %016llx",
		     (unsigned long long)v1.content_hash, (unsigned long long)v2.content_hash);
	remove_db(d1);
	remove_db(d2);
	remove_db(sp);
	bp_game_destroy(g);
}

/* Ticks inside the tiers: called, from one worker at a time, with the tier's share
 * expanded so far never past its positions and never going back within a tier. */
struct ticks {
	int calls, bad;
	uint32_t tier;
	uint64_t last;
};

static void on_tick(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done, uint64_t total,
		    double seconds)
{
	struct ticks *t = ctx;
	if (tier != t->tier)
		t->last = 0;
	t->bad += tier >= ntiers || done > total || done < t->last || seconds < 0;
	t->tier = tier;
	t->last = done;
	t->calls++;
}

Test(enumerate_keys, ticks_inside_tiers)
{
	char *dir = temp_db();
	struct bp_game *g = open_game("mirador:8x8");
	struct ticks tk = { 0 };
	struct bp_enum_keys_opts o = {
		.threads = 2, .dir = dir, .tick = on_tick, .tick_seconds = 1e-9, .ctx = &tk
	};
	struct bp_enum_keys_counts c;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_enumerate_keys(g, &o, &c, &err), BP_OK, "%s", err.msg);
	cr_expect_gt(tk.calls, 3);
	cr_expect_eq(tk.bad, 0);
	bp_enum_keys_counts_free(&c);
	bp_game_destroy(g);
	remove_db(dir);
}
