/* SPDX-License-Identifier: MIT */
/* What every subcommand of `boardproof` shares: the exit codes, error messages in the
 * form "boardproof: <command>: <what>", option parsing, and opening a game spec and a
 * position with errors that name the bad input. Only tools/ prints. */
#ifndef BP_TOOLS_CLI_H
#define BP_TOOLS_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "solver/games/game.h"

/* Exit codes, documented in `boardproof --help`. */
enum {
	BP_EXIT_OK = 0,
	BP_EXIT_PROBLEM = 1,	  /* a check found a problem, or the command is not available */
	BP_EXIT_USAGE = 2,	  /* usage or bad input: game spec, position, move */
	BP_EXIT_DB = 3,		  /* database missing, corrupt or of another format */
	BP_EXIT_IO = 4,		  /* I/O or resource failure */
	BP_EXIT_INTERRUPTED = 130 /* stopped by Ctrl-C (128 + SIGINT, as shells report) */
};

struct bp_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the command's name */
	const char *help;		   /* the full --help text */
};

extern const struct bp_command bp_commands[];

/* Prints "boardproof: <cmd>: <what>\n" to stderr; in JSON mode (bp_cli_json_errors)
 * keeps the message instead, for bp_cli_json_error_flush. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void bp_cli_error(const char *cmd, const char *fmt, ...);

/* In an MPI job of several ranks, every later error message names the rank that
 * prints it ("boardproof: <cmd>: rank R: <what>"); rank < 0 stops that. */
void bp_cli_error_rank(int rank);

/* Switches errors to JSON: bp_cli_error keeps the first message, and
 * bp_cli_json_error_flush prints {"error": {"command", "message", "exit"}} on stderr
 * once the exit code is known. Set by main when --json is on the command line. */
void bp_cli_json_errors(int on);

/* In JSON mode, prints the kept error (if any) with exit code rc. */
void bp_cli_json_error_flush(const char *cmd, int rc);

/* The exit code for a library error code. */
int bp_cli_exit_code(int rc);

/* A progress line on stderr: on a terminal (tty) it overwrites the last one in place
 * and *open says one is showing; elsewhere it is a line of its own. */
void bp_cli_tick_line(int tty, int *open, const char *line);

/* Clears a progress line left showing on a terminal, before other output. */
void bp_cli_end_tick_line(int tty, int *open);

/* Prints a report built in t to stdout, or, when building it ran out of memory
 * (t->failed: the text is incomplete), nothing there and "out of memory" as cmd's
 * error: a report cut short is never printed. @return 0 or BP_EXIT_IO. */
struct bp_text;
int bp_cli_print_text(const char *cmd, const struct bp_text *t);

/* A parsed command line: flags and options known to the command, positionals. */
struct bp_cli_args {
	int json, help, progress, stats;
	const char *opt[12]; /* values of the command's valued options, in spec order */
	int npos;
	char *pos[8];
};

/* Parses argv for a command. valued lists the long options that take a value
 * ("position", "samples"), NULL-terminated; flags --json, --help, --progress and
 * --stats are always understood (a command's own flags: bp_cli_take_flag). Prints an
 * error and returns BP_EXIT_USAGE on a bad or unknown option or too many positionals,
 * else 0. */
int bp_cli_parse(const char *cmd, int argc, char **argv, const char *const *valued,
		 struct bp_cli_args *out);

/* Takes a command's own flag out of argv before bp_cli_parse: removes every `name`
 * (such as "--line") standing before a lone "--" (argv[0], the command, is kept) and
 * returns 1 when there was one. argv stays NULL-terminated. */
int bp_cli_take_flag(int *argc, char **argv, const char *name);

/* Prints the command's help when --help was given; returns 1 if it did. */
int bp_cli_maybe_help(const char *cmd, const struct bp_cli_args *a);

/* Creates a game from a spec, printing the error on failure.
 * @return 0 or an exit code. */
int bp_cli_open_game(const char *cmd, const char *spec, struct bp_game **g);

/* For a family spec g (bp_game_is_family): the member instance position p belongs
 * to, created into *member, with p carried into its frame (*q). For any other g:
 * *member = NULL and *q = *p. @return 0 or an exit code (the error printed). */
int bp_cli_open_member(const char *cmd, const struct bp_game *g, const struct bp_pos *p,
		       struct bp_game **member, struct bp_pos *q);

/* Parses a position (NULL or "start": the start position), printing the error.
 * @return 0 or an exit code. */
int bp_cli_open_position(const char *cmd, const struct bp_game *g, const char *text,
			 struct bp_pos *p);

/* Plays the moves of `moves` (move texts separated by spaces) from p in place
 * (bp_game_play_line). A malformed or illegal move, or a move after the game ended, is
 * an error naming the move's number (1 = the first move of the list), its text and why.
 * @return 0, BP_EXIT_USAGE or BP_EXIT_IO (out of memory); the error is printed. */
int bp_cli_apply_moves(const char *cmd, const struct bp_game *g, const char *moves,
		       struct bp_pos *p);

/* bp_cli_open_position, then bp_cli_apply_moves when moves is not NULL.
 * @return 0 or an exit code. */
int bp_cli_open_position_moves(const char *cmd, const struct bp_game *g, const char *text,
			       const char *moves, struct bp_pos *p);

/* Writes the position's text into t (cleared first). */
void bp_cli_position_text(const struct bp_game *g, const struct bp_pos *p, struct bp_text *t);

/* After a command has run g's ops: when one of them failed without an error path
 * (bp_game_status), prints why and returns the exit code; else 0. */
int bp_cli_game_status(const char *cmd, const struct bp_game *g);

/* Parses a byte count: digits with an optional K, M, G or T suffix.
 * @return 0, or -1 when malformed. */
int bp_cli_parse_bytes(const char *text, uint64_t *out);

/* Parses a whole decimal number of 64 bits (no sign, nothing after it).
 * @return 0 and *out; -1 for anything else (out of range included). */
int bp_cli_parse_u64(const char *text, uint64_t *out);

/* --threads: text (NULL: 0, one per core) must be a whole number from 1 to 1024;
 * otherwise prints the error for cmd. @return 0 or BP_EXIT_USAGE. */
int bp_cli_threads(const char *cmd, const char *text, int *out);

/* The database directory: --db, else $BOARDPROOF_DB, else $XDG_DATA_HOME/boardproof/db,
 * else $HOME/.local/share/boardproof/db; never silently relative to the current
 * directory (tools/run sets BOARDPROOF_DB=data/db of the checkout). The returned
 * string is static or opt. */
const char *bp_cli_db_path(const char *opt);

/* Opens the database, printing the error. flags as bp_store_open.
 * @return 0 or an exit code. */
struct bp_store;
int bp_cli_open_store(const char *cmd, const char *path, int flags, struct bp_store **out);

/* Says that the table of spec (msg: the store's words) was solved under another rules
 * version, and how to solve it again. */
void bp_cli_rules_error(const char *cmd, const char *spec, const char *msg);

/* Opens the table of g for reading, printing the error (exit 3 when absent, or solved
 * under another rules version).
 * @return 0 or an exit code. */
struct bp_table;
int bp_cli_open_table(const char *cmd, struct bp_store *db, const struct bp_game *g,
		      struct bp_table **out);

/* A remoteness for output: the number, or for a draw by repetition (no remoteness)
 * "null" when json is set and "by repetition" otherwise (text then reads "in N"). */
const char *bp_cli_remoteness(unsigned rem, int json, char buf[24]);

/* Seconds on a monotonic clock. */
double bp_cli_now(void);

/* Ctrl-C during a long command (count, solve, prove): the handler only sets a flag,
 * which the engines poll through their cancel callback (bp_cli_cancel) between work
 * items; the command then says what it kept. With once, SIGINT goes back to its
 * default at the first Ctrl-C, so that a second ends the process at once. */
struct bp_cli_sigint {
	struct sigaction old;
	int caught;
};
void bp_cli_catch_sigint(struct bp_cli_sigint *s, int once);
/* Gives SIGINT back what it had before bp_cli_catch_sigint. */
void bp_cli_release_sigint(struct bp_cli_sigint *s);
/* Whether Ctrl-C came since bp_cli_catch_sigint. */
int bp_cli_interrupted(void);
/* bp_cli_interrupted as an engine's cancel callback (ctx unused). */
int bp_cli_cancel(void *ctx);

#endif
