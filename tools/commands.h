/* SPDX-License-Identifier: MIT */
/* The subcommands of `boardproof`, one file each (tools/cmd_<name>.c). */
#ifndef BP_TOOLS_COMMANDS_H
#define BP_TOOLS_COMMANDS_H

#include "tools/cli.h"

int bp_cmd_show(int argc, char **argv);
int bp_cmd_moves(int argc, char **argv);
int bp_cmd_perft(int argc, char **argv);
int bp_cmd_count(int argc, char **argv);
int bp_cmd_branching(int argc, char **argv);
int bp_cmd_solve(int argc, char **argv);
int bp_cmd_query(int argc, char **argv);
int bp_cmd_verify(int argc, char **argv);
int bp_cmd_list(int argc, char **argv);
int bp_cmd_layouts(int argc, char **argv);
int bp_cmd_prove(int argc, char **argv);
/* verify GAME --proofs (tools/cmd_prove.c): checks the saved proofs of GAME. */
int bp_cmd_verify_proofs(int argc, char **argv);

/* Joins positionals from index `from` on with spaces (a position given as several
 * words); NULL when there are none. The caller frees the result. */
char *bp_cmd_join(const struct bp_cli_args *a, int from);

#endif
