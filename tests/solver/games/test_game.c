/* SPDX-License-Identifier: MIT */
/* The generic part of the game interface (solver/games/game.c): the spec parser on a
 * table of good specs (with the canonical spelling each must get) and bad ones (with
 * the words the error must say); parsing without creating; families of instances
 * (Landscape without layout=) through the interface's family ops; and the failure flag
 * of ops that have no error path. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/games/game.h"
#include "tests/rng.h"

struct good_spec {
	char spec[64];
	char canonical[80];
};

ParameterizedTestParameters(game, parses_good_specs)
{
	static struct good_spec specs[] = {
		{ "taifas:4x4", "taifas:4x4,score=zones,tie=last-zone" },
		{ "taifas:4x4,tie=draw", "taifas:4x4,score=zones,tie=draw" },
		{ "taifas:3x3,score=fraction", "taifas:3x3,score=fraction,tie=last-zone" },
		{ "taifas:3x3,tie=draw,score=zones", "taifas:3x3,score=zones,tie=draw" },
		{ "chicken:hex2", "chicken:hex2,both=mover,forced=decline,formed=owner" },
		{ "glorieta:hex2", "glorieta:hex2,both=mover,hand=6,ring=sides" },
		{ "glorieta:hex2,ring=none,hand=3", "glorieta:hex2,both=mover,hand=3,ring=none" },
		{ "blooms:hex2", "blooms:hex2" },
		{ "mirador:8x8", "mirador:8x8,piece=2" },
		{ "mirador:6x6,piece=3", "mirador:6x6,piece=3" },
		{ "landscape:hex3,neutrals=2", "landscape:hex3,both=mover,neutrals=2" },
		/* the layout is spelled in board order whatever order it was given in */
		{ "landscape:hex3,neutrals=3,layout=e3;a1;c3",
		  "landscape:hex3,both=mover,layout=a1;c3;e3,neutrals=3" },
		{ "landscape:hex2,neutrals=0", "landscape:hex2,both=mover,neutrals=0" },
	};
	return cr_make_param_array(struct good_spec, specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(struct good_spec *t, game, parses_good_specs)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_game_create(t->spec, &g, &err), BP_OK, "%s: %s", t->spec, err.msg);
	cr_expect_str_eq(g->spec, t->canonical);
	/* the canonical spelling parses to itself */
	struct bp_game *again = NULL;
	cr_assert_eq(bp_game_create(g->spec, &again, &err), BP_OK, "%s: %s", g->spec, err.msg);
	cr_expect_str_eq(again->spec, g->spec);
	bp_game_destroy(again);
	bp_game_destroy(g);
}

struct bad_spec {
	char spec[64];
	char says[64]; /* a piece of the error message */
	int code;
};

ParameterizedTestParameters(game, refuses_bad_specs)
{
	static struct bad_spec specs[] = {
		{ "taifas", "expected GAME:BOARD", BP_ESPEC },
		{ "", "expected GAME:BOARD", BP_ESPEC },
		{ "chess:4x4", "unknown game 'chess'", BP_ESPEC },
		{ "taifas:", "missing or overlong board", BP_ESPEC },
		{ "taifas:4x4,", "trailing comma", BP_ESPEC },
		{ "taifas:4x4,tie=draw,", "trailing comma", BP_ESPEC },
		{ "taifas:4x4,tie", "malformed option 'tie'", BP_ESPEC },
		{ "taifas:4x4,=draw", "malformed option", BP_ESPEC },
		{ "taifas:4x4,tie=", "empty value for key 'tie'", BP_ESPEC },
		{ "taifas:4x4,tie=x", "bad value 'x' for key 'tie'", BP_ESPEC },
		{ "taifas:4x4,foo=1", "unknown key 'foo'", BP_ESPEC },
		{ "taifas:4x4,tie=draw,tie=draw", "key 'tie' given twice", BP_ESPEC },
		{ "taifas:hex3", "not played on board 'hex3'", BP_ESPEC },
		{ "chicken:4x4", "not played on board '4x4'", BP_ESPEC },
		{ "taifas:99x99", "more than the", BP_ESPEC },
		{ "landscape:hex2", "key 'neutrals' is required", BP_ESPEC },
		{ "landscape:hex2,neutrals=x", "neutrals=x", BP_ESPEC },
		{ "landscape:hex2,neutrals=01", "neutrals=01", BP_ESPEC },
		{ "landscape:hex2,neutrals=2,layout=a1", "names 1 cells", BP_ESPEC },
		{ "landscape:hex2,neutrals=2,layout=a1;a2", "adjacent", BP_ESPEC },
		{ "landscape:hex2,neutrals=1,layout=z9", "no cell 'z9'", BP_ESPEC },
		{ "landscape:hex2,neutrals=7", "pairwise non-adjacent", BP_ESPEC },
		{ "mirador:8x8,piece=0", "piece=0", BP_ESPEC },
	};
	return cr_make_param_array(struct bad_spec, specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(struct bad_spec *t, game, refuses_bad_specs)
{
	struct bp_game *g = (struct bp_game *)1;
	struct bp_err err = { { 0 } };
	cr_expect_eq(bp_game_create(t->spec, &g, &err), t->code, "'%s'", t->spec);
	cr_expect_null(g, "'%s': no instance on failure", t->spec);
	cr_expect(strstr(err.msg, t->says) != NULL, "'%s': error '%s' should say '%s'", t->spec,
		  err.msg, t->says);
}

/* Parsing alone accepts a board too big to play, for the family ops. */
Test(game, parse_spec_without_creating)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_game_create("landscape:hex7,neutrals=12", &g, &err), BP_ESPEC);
	cr_assert_eq(bp_game_parse_spec("landscape:hex7,neutrals=12", &g, &err), BP_OK, "%s",
		     err.msg);
	cr_expect_null(g->impl);
	cr_expect(bp_game_is_family(g));
	mpz_t raw, classes;
	mpz_inits(raw, classes, NULL);
	cr_expect_eq(g->ops->family_count(g, raw, classes, &err), BP_OK, "%s", err.msg);
	/* the counts `boardproof layouts` has printed since the count was written */
	cr_expect_eq(mpz_cmp_ui(raw, 812709446913730ul), 0);
	cr_expect_eq(mpz_cmp_ui(classes, 67725820797688ul), 0);
	cr_expect_eq(g->ops->family_list(g, NULL, NULL, &err), BP_ERANGE);
	mpz_clears(raw, classes, NULL);
	bp_game_destroy(g);
	/* bad keys are still refused */
	cr_expect_eq(bp_game_parse_spec("landscape:hex7,neutral=1", &g, &err), BP_ESPEC);
}

struct members {
	int n;
	uint64_t total;
	char spec[32][256], value[32][64];
	uint64_t mult[32];
};

static int collect(void *ctx, const char *spec, const char *value, uint64_t multiplicity)
{
	struct members *m = ctx;
	cr_assert_lt(m->n, 32);
	snprintf(m->spec[m->n], sizeof m->spec[0], "%s", spec);
	snprintf(m->value[m->n], sizeof m->value[0], "%s", value);
	m->mult[m->n++] = multiplicity;
	m->total += multiplicity;
	return 0;
}

Test(game, families)
{
	struct bp_err err = { { 0 } };
	struct bp_game *g = NULL, *one = NULL;
	cr_assert_eq(bp_game_create("taifas:3x3", &one, &err), BP_OK);
	cr_expect_not(bp_game_is_family(one), "taifas has no families");
	bp_game_destroy(one);
	cr_assert_eq(bp_game_create("landscape:hex2,neutrals=1,layout=b2", &one, &err), BP_OK);
	cr_expect_not(bp_game_is_family(one), "layout= names one instance");
	bp_game_destroy(one);

	/* hex2 with one neutral stone: the centre (1 layout) and a corner (6 layouts) */
	cr_assert_eq(bp_game_create("landscape:hex2,neutrals=1", &g, &err), BP_OK);
	cr_assert(bp_game_is_family(g));
	struct members m = { 0 };
	cr_assert_eq(g->ops->family_list(g, collect, &m, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(m.n, 2);
	cr_expect_eq(m.total, 7);
	mpz_t raw, classes;
	mpz_inits(raw, classes, NULL);
	cr_assert_eq(g->ops->family_count(g, raw, classes, &err), BP_OK);
	cr_expect_eq(mpz_cmp_ui(raw, m.total), 0, "the count and the list agree");
	cr_expect_eq(mpz_cmp_ui(classes, (unsigned long)m.n), 0);
	mpz_clears(raw, classes, NULL);
	for (int i = 0; i < m.n; i++) {
		/* each member is an instance whose spec is canonical and names its layout */
		cr_assert_eq(bp_game_create(m.spec[i], &one, &err), BP_OK, "%s", err.msg);
		cr_expect_str_eq(one->spec, m.spec[i]);
		cr_expect_str_eq(bp_game_option(one, "layout"), m.value[i]);
		cr_expect_not(bp_game_is_family(one));
		bp_game_destroy(one);
	}

	/* the member of a position: the class of its neutral stones, the position carried
	 * into that member's frame */
	const char *corners[] = { "n1/3/2 b", "1n/3/2 b", "2/n2/2 b",
				  "2/2n/2 b", "2/3/n1 b", "2/3/1n b" };
	for (int i = 0; i < 6; i++) {
		struct bp_pos p, q;
		char spec[256];
		cr_assert_eq(bp_game_parse_position(g, corners[i], &p, &err), BP_OK, "%s", err.msg);
		cr_assert_eq(g->ops->family_member(g, &p, spec, sizeof spec, &q), BP_OK);
		cr_expect_str_eq(spec, "landscape:hex2,both=mover,layout=a1,neutrals=1", "%s",
				 corners[i]);
		cr_assert_eq(bp_game_create(spec, &one, &err), BP_OK);
		struct bp_text t = { 0 };
		one->ops->pos_format(one, &q, &t);
		cr_expect_str_eq(bp_text_str(&t), "n1/3/2 b", "%s carried to the member",
				 corners[i]);
		bp_text_free(&t);
		bp_game_destroy(one);
	}
	struct bp_pos p, q;
	char spec[256];
	cr_assert_eq(bp_game_parse_position(g, "2/1n1/2 b", &p, &err), BP_OK);
	cr_assert_eq(g->ops->family_member(g, &p, spec, sizeof spec, &q), BP_OK);
	cr_expect_str_eq(spec, "landscape:hex2,both=mover,layout=b2,neutrals=1");
	cr_expect_eq(g->ops->family_member(g, &p, spec, 20, &q), BP_ERANGE, "too small");
	bp_game_destroy(g);

	/* K = 0: one layout, the empty one, which layout= cannot spell: the member is the
	 * spec itself (issue 10: `solve landscape:hex2,neutrals=0` works) */
	cr_assert_eq(bp_game_create("landscape:hex2,neutrals=0", &g, &err), BP_OK);
	memset(&m, 0, sizeof m);
	cr_assert_eq(g->ops->family_list(g, collect, &m, &err), BP_OK);
	cr_assert_eq(m.n, 1);
	cr_expect_str_eq(m.spec[0], g->spec);
	cr_expect_str_eq(m.value[0], "");
	cr_expect_eq(m.mult[0], 1);
	bp_game_destroy(g);
}

/* An op without an error path reports through the instance: the first code sticks. */
Test(game, failure_flag)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_game_create("taifas:3x3", &g, &err), BP_OK);
	cr_expect_eq(bp_game_status(g), BP_OK);
	bp_game_fail(g, BP_ENOMEM);
	bp_game_fail(g, BP_EIO);
	cr_expect_eq(bp_game_status(g), BP_ENOMEM);
	bp_game_destroy(g);
}

/* bp_game_pos_check, for positions read as words (a saved proof's root): every
 * unfinished position of seeded random games passes, and each with a high bit added to any one of
 * its words (a stone off the board, a field out of range, a word the text does not
 * spell) is refused, never read out of bounds (the sanitizer build runs this). */
Test(game, pos_check)
{
	static const char *const specs[] = {
		"taifas:3x4",	 "taifas:3x3,tie=draw",
		"chicken:hex2",	 "chicken:tri4,forced=free",
		"glorieta:hex2", "glorieta:rh2x3,ring=none",
		"blooms:rh2x3",	 "mirador:6x6",
		"havannah:hex3", "landscape:hex3,neutrals=2,layout=a1;e3",
	};
	uint64_t seed = 20261124;
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = NULL;
		struct bp_err err = { { 0 } };
		cr_assert_eq(bp_game_create(specs[k], &g, &err), BP_OK, "%s: %s", specs[k],
			     err.msg);
		struct bp_move *mv = bp_game_move_buffer(g);
		cr_assert_not_null(mv);
		int checked = 0;
		for (int game = 0; game < 20; game++) {
			struct bp_pos p;
			g->ops->start(g, &p);
			for (int ply = 0; ply < 200; ply++) {
				/* a finished game may have no text (Blooms' two passes), and a
				 * proof's root is never one */
				if (g->ops->outcome(g, &p) != BP_VALUE_NONE) {
					(void)bp_game_pos_check(g, &p, &err);
					break;
				}
				cr_assert_eq(bp_game_pos_check(g, &p, &err), BP_OK, "%s ply %d: %s",
					     specs[k], ply, err.msg);
				for (int w = 0; w < BP_POS_WORDS; w++) {
					struct bp_pos bad = p;
					bad.w[w] |= 1ull << 63;
					if (bad.w[w] == p.w[w])
						continue;
					cr_expect_eq(bp_game_pos_check(g, &bad, &err), BP_EPARSE,
						     "%s: word %d with bit 63 set passes", specs[k],
						     w);
				}
				checked++;
				int n = g->ops->moves(g, &p, mv);
				if (n <= 0)
					break;
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				g->ops->apply(g, &p, mv[(seed >> 33) % (uint64_t)n]);
			}
		}
		cr_expect_gt(checked, 20, "%s", specs[k]);
		free(mv);
		bp_game_destroy(g);
	}
}

/* sym_hash and sym_hash_move (the class keys of proof-number search) against their
 * definition, for each game that has them: h[s] of p is h[0] of transform(p, s), so
 * every image of p and its canonical form get p's key; the incremental hashes of
 * each child equal the full ones. On positions of seeded random games. */
static void check_sym_hash_at(const struct bp_game *g, const struct bp_pos *p, struct bp_move *mv)
{
	uint64_t h[BP_GAME_SYM_HASH_MAX], hq[BP_GAME_SYM_HASH_MAX], hc[BP_GAME_SYM_HASH_MAX];
	uint64_t key = g->ops->sym_hash(g, p, h);
	uint64_t least = h[0];
	for (int s = 0; s < g->nsym; s++) {
		struct bp_pos q;
		least = h[s] < least ? h[s] : least;
		g->ops->transform(g, p, s, &q);
		cr_expect_eq(g->ops->sym_hash(g, &q, hq), key, "%s: image %d", g->spec, s);
		cr_expect_eq(hq[0], h[s], "%s: h[%d] is not the image's own hash", g->spec, s);
	}
	cr_expect_eq(key, least, "%s: the key is not the smallest hash", g->spec);
	struct bp_pos canon;
	bp_game_canonical(g, p, &canon);
	cr_expect_eq(g->ops->sym_hash(g, &canon, hq), key, "%s: canonical form", g->spec);
	int n = g->ops->moves(g, p, mv);
	for (int i = 0; i < n; i++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, mv[i]);
		uint64_t inc = g->ops->sym_hash_move(g, p, h, &c, hc);
		cr_expect_eq(inc, g->ops->sym_hash(g, &c, hq), "%s: move %d", g->spec, i);
		cr_expect_eq(g->ops->sym_hash_move(g, p, h, &c, NULL), inc, "%s: move %d, key only",
			     g->spec, i);
		cr_expect_eq(memcmp(hc, hq, sizeof(uint64_t) * (size_t)g->nsym), 0,
			     "%s: move %d: the hashes differ", g->spec, i);
	}
}

Test(game, sym_hash_is_a_class_function)
{
	static const char *const specs[] = {
		"taifas:3x3",
		"taifas:4x4",
		"taifas:5x5",
		"taifas:4x5,tie=last-stone",
		"chicken:hex2",
		"chicken:hex4",
		"chicken:tri4",
		"chicken:hex3,forced=free",
		"glorieta:hex2,hand=2",
		"glorieta:hex3",
		"glorieta:hex3,ring=alt,hand=2",
		"glorieta:hex3,ring=none,hand=3",
		"glorieta:rh3x3,ring=none,hand=2",
		"mirador:6x6",
		"mirador:9x7",
		"mirador:13x13",
		"mirador:7x7,piece=1",
	};
	uint64_t seed = 20261124;
	cr_log_info("seed %llu", (unsigned long long)seed);
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = NULL;
		struct bp_err err = { { 0 } };
		cr_assert_eq(bp_game_create(specs[k], &g, &err), BP_OK, "%s", err.msg);
		cr_assert(g->ops->sym_hash && g->ops->sym_hash_move, "%s has no sym_hash",
			  specs[k]);
		cr_assert_leq(g->nsym, BP_GAME_SYM_HASH_MAX);
		struct bp_move *mv = bp_game_move_buffer(g);
		cr_assert_not_null(mv);
		for (int game = 0; game < 30; game++) {
			struct bp_pos p;
			g->ops->start(g, &p);
			while (g->ops->outcome(g, &p) == BP_VALUE_NONE) {
				check_sym_hash_at(g, &p, mv);
				int n = g->ops->moves(g, &p, mv);
				g->ops->apply(g, &p, mv[splitmix64(&seed) % (uint64_t)n]);
			}
		}
		free(mv);
		bp_game_destroy(g);
	}
}

struct keyed {
	uint64_t key;
	struct bp_pos canon;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return memcmp(&x->canon, &y->canon, sizeof x->canon);
}

/* Every position of small instances (by unrank): members of one class share a key
 * (each has its canonical form's key) and two classes never do. */
Test(game, sym_hash_tells_classes_apart)
{
	static const char *const specs[] = { "taifas:3x3",
					     "taifas:3x4",
					     "chicken:hex2",
					     "chicken:tri4",
					     "glorieta:hex2,hand=2",
					     "glorieta:hex2,hand=6,ring=none",
					     "glorieta:tri3,ring=none,hand=2",
					     "mirador:6x6",
					     "mirador:6x5",
					     "mirador:4x4,piece=1" };
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = NULL;
		struct bp_err err = { { 0 } };
		cr_assert_eq(bp_game_create(specs[k], &g, &err), BP_OK, "%s", err.msg);
		size_t cap = 1 << 16, n = 0;
		struct keyed *all = malloc(sizeof *all * cap);
		cr_assert_not_null(all);
		uint64_t h[BP_GAME_SYM_HASH_MAX];
		for (uint32_t t = 0; t < g->ntiers; t++) {
			uint64_t size;
			cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
			for (uint64_t i = 0; i < size; i++) {
				struct bp_pos p;
				if (g->ops->unrank(g, t, i, &p) != BP_OK)
					continue;
				if (n == cap) {
					cap *= 2;
					all = realloc(all, sizeof *all * cap);
					cr_assert_not_null(all);
				}
				bp_game_canonical(g, &p, &all[n].canon);
				all[n].key = g->ops->sym_hash(g, &p, h);
				cr_expect_eq(all[n].key, g->ops->sym_hash(g, &all[n].canon, h),
					     "%s: tier %u index %llu", specs[k], t,
					     (unsigned long long)i);
				n++;
			}
		}
		qsort(all, n, sizeof *all, by_key);
		size_t classes = 0;
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && bp_pos_equal(&all[i].canon, &all[i - 1].canon))
				continue;
			classes++;
			if (i > 0)
				cr_expect_neq(all[i].key, all[i - 1].key,
					      "%s: two classes share a key", specs[k]);
		}
		cr_log_info("%s: %zu positions, %zu classes, as many keys", specs[k], n, classes);
		cr_expect_gt(classes, 100);
		free(all);
		bp_game_destroy(g);
	}
}

/* bp_game.pos_words: a game that sets it never writes past that many words, on any
 * position of seeded random games (a search copies only those words of a parent into
 * a scratch whose other words stay zero). */
Test(game, pos_words_hold)
{
	static const char *const specs[] = {
		"taifas:3x3",	"taifas:5x5",	"taifas:4x5,tie=last-stone",
		"chicken:hex2", "chicken:hex4", "chicken:tri4,forced=free",
	};
	uint64_t seed = 20261125;
	cr_log_info("seed %llu", (unsigned long long)seed);
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = NULL;
		struct bp_err err = { { 0 } };
		cr_assert_eq(bp_game_create(specs[k], &g, &err), BP_OK, "%s", err.msg);
		cr_assert(g->pos_words > 0 && g->pos_words <= BP_POS_WORDS, "%s: pos_words %d",
			  specs[k], g->pos_words);
		struct bp_move *mv = bp_game_move_buffer(g);
		cr_assert_not_null(mv);
		for (int game = 0; game < 200; game++) {
			struct bp_pos p;
			memset(&p, 0xa5, sizeof p); /* start() must clear every word */
			g->ops->start(g, &p);
			for (;;) {
				for (int w = g->pos_words; w < BP_POS_WORDS; w++)
					cr_assert_eq(p.w[w], 0, "%s: word %d of a position is set",
						     specs[k], w);
				int n = g->ops->moves(g, &p, mv);
				if (n == 0)
					break;
				g->ops->apply(g, &p, mv[splitmix64(&seed) % (uint64_t)n]);
			}
		}
		free(mv);
		bp_game_destroy(g);
	}
}
