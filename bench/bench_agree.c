/* SPDX-License-Identifier: MIT */
/* Proof-number search against a solved table on seeded random positions: the cross-
 * check of a table too big for `verify` to re-derive in the time at hand (and of the
 * search on an instance too big for the tests). Plays GAMES seeded random games of
 * SPEC from the start, each stopped after a random number of turns between MIN and
 * MAX (or at its end), proves the position reached with df-pn alone (no database: no
 * oracle, nothing written), and compares the value with the table's in DB.
 *
 *     bench_agree DB SPEC GAMES SEED MIN MAX MEMORY_MIB SECONDS
 *
 * SECONDS bounds each search; a search stopped by it is counted as unknown, never as
 * agreeing. Prints one JSON object per position (turns, the position, both values,
 * nodes, seconds), then a summary {"agree", "disagree", "unknown", "terminal"}. Exit
 * 1 when a value disagrees, 2 on bad arguments or an unreadable table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "canon/random.h"
#include "canon/text.h"
#include "solver/dfpn.h"
#include "solver/games/game.h"
#include "solver/probe.h"
#include "store/store.h"

static int number(const char *s, unsigned long long *out)
{
	char *end;
	*out = strtoull(s, &end, 10);
	return *s && !*end ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long long games, seed, lo, hi, mib, secs;
	if (argc != 9 || number(argv[3], &games) || number(argv[4], &seed) ||
	    number(argv[5], &lo) || number(argv[6], &hi) || number(argv[7], &mib) ||
	    number(argv[8], &secs) || lo > hi || mib < 1) {
		fprintf(stderr,
			"usage: bench_agree DB SPEC GAMES SEED MIN MAX MEMORY_MIB SECONDS\n");
		return 2;
	}
	struct bp_err err = { { 0 } };
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *t = NULL;
	bp_dfpn *d = NULL;
	struct bp_move *mv = NULL;
	int rc = bp_game_create(argv[2], &g, &err);
	if (rc == BP_OK)
		rc = bp_store_open(argv[1], BP_STORE_READONLY, &db, &err);
	if (rc == BP_OK)
		rc = bp_probe_open(db, g, &t, &err);
	struct bp_dfpn_opts o = { .memory = (uint64_t)mib << 20, .time_limit = (double)secs };
	if (rc == BP_OK)
		rc = bp_dfpn_create(g, &o, &d, &err);
	if (rc == BP_OK && !(mv = bp_game_move_buffer(g)))
		rc = bp_err_set(&err, BP_ENOMEM, "out of memory");
	if (rc) {
		fprintf(stderr, "bench_agree: %s\n", err.msg[0] ? err.msg : bp_strerror(rc));
		goto out;
	}
	uint64_t st = seed;
	long agree = 0, disagree = 0, unknown = 0, terminal = 0;
	struct bp_text pt = { 0 };
	for (unsigned long long k = 0; k < games && rc == BP_OK; k++) {
		struct bp_pos p;
		g->ops->start(g, &p);
		unsigned long long stop = lo + bp_splitmix64(&st) % (hi - lo + 1), turns = 0;
		for (; turns < stop; turns++) {
			int n = g->ops->moves(g, &p, mv);
			if (n <= 0)
				break;
			g->ops->apply(g, &p, mv[bp_splitmix64(&st) % (uint64_t)n]);
			if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
				break;
		}
		if (g->ops->outcome(g, &p) != BP_VALUE_NONE) {
			terminal++;
			continue;
		}
		struct bp_probe pr;
		struct bp_dfpn_result r;
		if ((rc = bp_probe_position(g, t, &p, &pr))) {
			fprintf(stderr, "bench_agree: position not in the table: %s\n",
				bp_strerror(rc));
			break;
		}
		if ((rc = bp_dfpn_prove(d, &p, &r, &err))) {
			fprintf(stderr, "bench_agree: %s\n", err.msg);
			break;
		}
		bp_text_clear(&pt);
		g->ops->pos_format(g, &p, &pt);
		const char *verdict = r.value == BP_VALUE_NONE ? "unknown"
				      : r.value == pr.value    ? "agree"
							       : "disagree";
		agree += r.value != BP_VALUE_NONE && r.value == pr.value;
		disagree += r.value != BP_VALUE_NONE && r.value != pr.value;
		unknown += r.value == BP_VALUE_NONE;
		printf("{\"turns\": %llu, \"position\": \"%s\", \"table\": \"%s\", \"dfpn\": "
		       "\"%s\", "
		       "\"verdict\": \"%s\", \"nodes\": %llu, \"seconds\": %.3f}\n",
		       turns, bp_text_str(&pt), bp_value_name(pr.value),
		       r.value == BP_VALUE_NONE ? "unknown" : bp_value_name(r.value), verdict,
		       (unsigned long long)r.nodes, r.seconds);
		fflush(stdout);
	}
	bp_text_free(&pt);
	if (rc == BP_OK) {
		printf("{\"spec\": \"%s\", \"seed\": %llu, \"agree\": %ld, \"disagree\": %ld, "
		       "\"unknown\": %ld, \"terminal\": %ld}\n",
		       g->spec, seed, agree, disagree, unknown, terminal);
		rc = disagree ? 1 : 0;
	}
out:
	free(mv);
	bp_dfpn_destroy(d);
	bp_table_close(t);
	bp_store_close(db);
	bp_game_destroy(g);
	return rc == 0 ? 0 : rc == 1 ? 1 : 2;
}
