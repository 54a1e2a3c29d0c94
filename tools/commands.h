/* SPDX-License-Identifier: MIT */
/* The subcommands of `boardproof`, one file each (tools/cmd_<name>.c). */
#ifndef BP_TOOLS_COMMANDS_H
#define BP_TOOLS_COMMANDS_H

#include "tools/cli.h"

int bp_cmd_show(int argc, char **argv);
int bp_cmd_plan(int argc, char **argv);
int bp_cmd_moves(int argc, char **argv);
int bp_cmd_perft(int argc, char **argv);
int bp_cmd_count(int argc, char **argv);
int bp_cmd_branching(int argc, char **argv);
int bp_cmd_solve(int argc, char **argv);
int bp_cmd_query(int argc, char **argv);
int bp_cmd_verify(int argc, char **argv);
int bp_cmd_list(int argc, char **argv);
int bp_cmd_layouts(int argc, char **argv);
int bp_cmd_render(int argc, char **argv);
int bp_cmd_openings(int argc, char **argv);
int bp_cmd_play(int argc, char **argv);
int bp_cmd_claims(int argc, char **argv);
int bp_cmd_paper(int argc, char **argv);

struct bp_probe_move;
struct bp_svg_mark;

/* "W3", "D4", "L5", or "D" for a draw by repetition. */
void bp_cmd_value_label(enum bp_value v, unsigned rem, char *buf, size_t len);

/* Marks for a picture: each cell that some move changes, tinted and labelled with the
 * best such move's value (pm sorted best first, as bp_probe_moves gives them).
 * @return the number of marks (*out is the caller's to free), or BP_ENOMEM. */
int bp_cmd_value_marks(const struct bp_game *g, const struct bp_pos *p,
		       const struct bp_probe_move *pm, int n, struct bp_svg_mark **out);

/* Values from a solved table for the claim checks (solver/claims.h): value() probes,
 * each() reads the table tier by tier. t must outlive o. */
struct bp_oracle;
struct bp_cmd_table_oracle {
	const struct bp_game *g;
	struct bp_table *tab;
	uint64_t range; /* records each() reads at a time (0, as bp_cmd_table_oracle sets:
			   16 M) */
	/* each() lets go of a tier's stored index of reachable positions once past it
	 * (bp_probe_release_tier): only where no other thread reads the table (0, as
	 * bp_cmd_table_oracle sets: kept) */
	int release;
	/* called by each() before each range of records it reads, and at its end with
	 * done set: how far its walk has got (NULL, as bp_cmd_table_oracle sets: not
	 * called); bp_cmd_walk_tick shows it on stderr for cmd, a line overwritten in
	 * place where tty */
	void (*tick)(struct bp_cmd_table_oracle *t, uint32_t tier, uint32_t ntiers, uint64_t walked,
		     uint64_t total, int done);
	int tty, open;
	double t0;
	const char *cmd;
};
void bp_cmd_walk_tick(struct bp_cmd_table_oracle *t, uint32_t tier, uint32_t ntiers,
		      uint64_t walked, uint64_t total, int done);
/* t set for one command's walk over the whole table, on one thread (claims, paper):
 * tiers let go of once past, and the walk shown on stderr (bp_cmd_walk_tick) where
 * progress is asked for or stderr is a terminal. */
void bp_cmd_walk_alone(struct bp_cmd_table_oracle *t, const char *cmd, int progress);
void bp_cmd_table_oracle(const struct bp_game *g, struct bp_table *tab,
			 struct bp_cmd_table_oracle *t, struct bp_oracle *o);

/* Checks g's claims through o and writes them into out as `boardproof claims` prints
 * them (json: its --json document; `serve`'s /api/claims answers the same text): only
 * that claim when only is not NULL, else every claim with all, else those that apply
 * to g. *failed is set when some verdict is "fails".
 * @return BP_OK; bp_claim_check's error, with *bad naming the claim. */
struct bp_claims_opts;
int bp_cmd_claims_report(const struct bp_game *g, const struct bp_oracle *o,
			 const struct bp_claims_opts *copts, const char *only, int all, int json,
			 struct bp_text *out, int *failed, const char **bad);

/* Writes t to path ("-": stdout), printing the error. @return 0 or BP_EXIT_IO. */
int bp_cmd_write_file(const char *cmd, const char *path, const struct bp_text *t);
int bp_cmd_serve(int argc, char **argv);
int bp_cmd_prove(int argc, char **argv);
/* verify GAME --proofs (tools/cmd_prove.c): checks the saved proofs of GAME. */
int bp_cmd_verify_proofs(int argc, char **argv);

/* Joins positionals from index `from` on with spaces (a position given as several
 * words); NULL when there are none. The caller frees the result. */
char *bp_cmd_join(const struct bp_cli_args *a, int from);

#endif
