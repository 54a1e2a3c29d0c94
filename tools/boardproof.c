/* SPDX-License-Identifier: MIT */
/* The `boardproof` command: global options, then a subcommand from the table. */
#include <stdio.h>
#include <string.h>

#include "bp_config.h"
#include "solver/games/game.h"
#include "tools/cli.h"
#include "tools/commands.h"

#define COMMON_OPTIONS                                       \
	"  --json       machine-readable output on stdout\n" \
	"  --help       this text\n"

#define EXIT_CODES                                                                              \
	"Exit codes: 0 success; 1 a check found a problem or the command is not available;\n"   \
	"2 usage or bad input (game spec, position, move); 3 database missing, corrupt or of\n" \
	"another format; 4 I/O or resource failure.\n"

const struct bp_command bp_commands[] = {
	{ "show", "draw a position with its state and the game's evaluation", bp_cmd_show,
	  "usage: boardproof show GAME [POSITION] [--json]\n"
	  "\n"
	  "Draws POSITION (default: the start position) of GAME: the board, the side to move,\n"
	  "the state keys, the game's own figures (Taifas: zones), and whether the game is over\n"
	  "with its outcome for the player to move. POSITION may be quoted or given as several\n"
	  "words; \"start\" names the start position.\n"
	  "\n"
	  "Options:\n" COMMON_OPTIONS "\n"
	  "JSON: {\"game\", \"position\", \"to_move\", \"terminal\", \"outcome\" (win, loss, draw "
	  "or\n"
	  "null), \"moves\", and the game's figures}.\n" },
	{ "moves", "list the legal moves of a position", bp_cmd_moves,
	  "usage: boardproof moves GAME [POSITION] [--count] [--json]\n"
	  "\n"
	  "Lists every legal move of POSITION (default: the start position), one a line.\n"
	  "A turn that places two stones is one move (Blooms: rc3+yd2).\n"
	  "\n"
	  "Options:\n"
	  "  --count      print only the number of legal moves\n" COMMON_OPTIONS "\n"
	  "JSON: {\"moves\": [...], \"count\": N}; with --count only {\"count\": N}.\n" },
	{ "perft", "count move sequences to a depth", bp_cmd_perft,
	  "usage: boardproof perft GAME DEPTH [--position P] [--stats] [--json]\n"
	  "\n"
	  "For d = 1..DEPTH prints \"perft d = N\": the number of distinct move sequences of\n"
	  "length d from the start (or from P). A sequence that ends the game is not extended.\n"
	  "\n"
	  "Options:\n"
	  "  --position P start from position P instead of the start position\n"
	  "  --stats      also print the moves generated and moves per second\n" COMMON_OPTIONS },
	{ "count", "count reachable positions exactly, per tier and up to symmetry", bp_cmd_count,
	  "usage: boardproof count GAME [--method auto|formula|enumerate] [--memory BYTES]\n"
	  "                        [--progress] [--json]\n"
	  "\n"
	  "Counts the positions reachable from the start of GAME, per tier (stones placed) and\n"
	  "in total, raw and up to the game's symmetries, exactly (GMP). With a counting\n"
	  "formula (auto prefers it) any board size works; enumeration visits every position\n"
	  "and is refused when its bitmaps would pass --memory (default 4G).\n"
	  "Games whose positions repeat (Blooms) are enumerated breadth-first\n"
	  "with a hash set instead, per depth (the fewest turns that reach a position), with\n"
	  "the terminal positions counted too; the count gives up when the set passes\n"
	  "--memory.\n"
	  "\n"
	  "Options:\n"
	  "  --method M   auto (default), formula, or enumerate\n"
	  "  --memory B   memory limit for enumeration: bytes, or with K, M, G\n"
	  "  --progress   a line per tier on stderr (default when stderr is a "
	  "terminal)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"method\", \"tiers\": [{\"tier\", \"positions\", \"classes\"}],\n"
	  "\"positions\", \"classes\"}; numbers may exceed 2^64. Games that repeat:\n"
	  "{\"instance\", \"method\": \"reach\", \"depths\": [{\"depth\", \"positions\", "
	  "\"classes\",\n\"terminal\"}], \"positions\", \"classes\", \"terminal\"}.\n" },
	{ "branching", "number of legal turns along seeded random games", bp_cmd_branching,
	  "usage: boardproof branching GAME [--samples N] [--seed S] [--turns T] [--json]\n"
	  "\n"
	  "Plays N random games (default 100) from the start of GAME, each turn chosen\n"
	  "uniformly among the legal turns with a generator seeded by S (default 1), for at\n"
	  "most T turns each (default 100), and prints, for every turn number, how many\n"
	  "positions were seen there and the minimum, median and maximum number of legal\n"
	  "turns in them, then the same over all positions. A two-stone turn is one turn.\n"
	  "The same N, S and T give the same output.\n"
	  "\n"
	  "Options:\n"
	  "  --samples N  games to play (1 to 1000000)\n"
	  "  --seed S     seed of the random generator (a whole number)\n"
	  "  --turns T    turns per game at most (1 to 10000)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"game\", \"samples\", \"seed\", \"turns\": [{\"turn\", \"positions\", \"min\",\n"
	  "\"median\", \"max\"}], \"all\": {\"positions\", \"min\", \"median\", \"max\", "
	  "\"mean\"},\n\"finished\"}. Turn 0 is the start position; the median of an even "
	  "count\nis the lower middle value.\n" },
	{ "solve", "strongly solve an instance into the database", bp_cmd_solve,
	  "usage: boardproof solve GAME [--db DIR] [--threads N] [--memory BYTES]\n"
	  "                        [--block-records N] [--level L] [--solver S]\n"
	  "                        [--progress] [--json]\n"
	  "\n"
	  "Strongly solves GAME by retrograde analysis: every position reachable from the\n"
	  "start, up to symmetry, gets its value (win, loss or draw for the player to move)\n"
	  "and remoteness, stored in the database one tier at a time. An interrupted solve\n"
	  "resumes at its first unfinished tier. Prints the start position's value and\n"
	  "remoteness, the positions, time, peak memory and database bits per position.\n"
	  "A spec that stands for a family of instances (landscape without layout=) solves\n"
	  "one instance per class up to symmetry, each into its own table, and reports\n"
	  "each class with the number of instances in it.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR          the database (default $BOARDPROOF_DB, else data/db)\n"
	  "  --threads N       worker threads (default: one per core)\n"
	  "  --memory B        refuse up front when the solve needs more (default 80% of RAM)\n"
	  "  --block-records N records per compressed block (default 16384; larger blocks\n"
	  "                    store less and probe slower)\n"
	  "  --level L         zstd compression level\n"
	  "  --solver S        the engine: auto (default: cycles for games that repeat,\n"
	  "                    else walk where the game has one, else tiers), walk (tier\n"
	  "                    by tier over expanded tiers: children read in place, no\n"
	  "                    canonical form per child; games with a tier walk), tiers\n"
	  "                    (tier by tier, canonicalizing every child; resumable too), or\n"
	  "                    cycles (level passes over all positions in memory; any game\n"
	  "                    with dense ranking, the only one for games that repeat)\n"
	  "  --progress        a line per tier on stderr (default when stderr is a "
	  "terminal)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"value\", \"remoteness\", \"positions\", \"seconds\",\n"
	  "\"positions_per_second\", \"peak_memory_bytes\", \"bits_per_position\", \"solver\",\n"
	  "...}.\n" },
	{ "query", "value and every move's value of a position: perfect play", bp_cmd_query,
	  "usage: boardproof query GAME [POSITION] [--db DIR] [--json]\n"
	  "\n"
	  "Looks POSITION (default: the start) up in the solved table of GAME and prints its\n"
	  "value and remoteness, then every legal move with the value and remoteness it\n"
	  "leads to, for the player making it, best first. A position outside the solved set\n"
	  "is an error (exit 2); an unsolved GAME exits 3. For a spec that stands for a\n"
	  "family of instances, the position's own instance (for landscape without\n"
	  "layout=, the layout of its neutral stones, up to symmetry) is looked up.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default $BOARDPROOF_DB, else data/db)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"position\", \"value\", \"remoteness\", \"moves\": [{\"move\", \"value\",\n"
	  "\"remoteness\"}, ...]}.\n" },
	{ "verify", "re-derive every stored value from its children", bp_cmd_verify,
	  "usage: boardproof verify [GAME] [--db DIR] [--threads N] [--progress] [--json]\n"
	  "\n"
	  "Checks the table of GAME (default: every table): decodes and checksums every\n"
	  "block, and recomputes every stored position's value and remoteness from the\n"
	  "terminal rules and its children's stored values, independently of the solver.\n"
	  "Exit 1 when an inconsistency or a missing tier is found, 3 for a corrupt block.\n"
	  "The content hash identifies the decoded content whatever the compression; the\n"
	  "report, the hash and the order of the problems shown do not depend on --threads.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default $BOARDPROOF_DB, else data/db)\n"
	  "  --threads N  worker threads (default: one per core)\n"
	  "  --progress   a line per tier on stderr (default when stderr is a "
	  "terminal)\n" COMMON_OPTIONS "\n"
	  "A GAME that stands for a family of instances checks every member's table.\n"
	  "JSON: {\"ok\", \"positions_checked\", \"inconsistencies\", \"corrupt_blocks\",\n"
	  "\"content_hash\", \"tables\": [...]}.\n" },
	{ "list", "the solved instances in the database", bp_cmd_list,
	  "usage: boardproof list [--db DIR] [--json]\n"
	  "\n"
	  "Lists every table in the database: instance, start value and remoteness,\n"
	  "positions, stored bytes, bits per position, tiers stored.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default $BOARDPROOF_DB, else data/db)\n" COMMON_OPTIONS },
	{ "layouts", "count and list the instances a family spec stands for", bp_cmd_layouts,
	  "usage: boardproof layouts GAME [--limit N] [--json]\n"
	  "\n"
	  "GAME is a spec that stands for a family of instances: landscape:BOARD,neutrals=K\n"
	  "without layout= stands for every layout, the sets of K pairwise non-adjacent\n"
	  "cells of BOARD. Counts them exactly (GMP) and up to the board's symmetries, on\n"
	  "any board size; then, when the game can list them (landscape: boards of at most\n"
	  "64 cells) and there are at most N classes, lists one per class (for landscape\n"
	  "the smallest as a cell set, in the layout=a1;c2;e3 form) with the number of\n"
	  "instances in its class.\n"
	  "\n"
	  "Options:\n"
	  "  --limit N    list only when there are at most N classes (default "
	  "1000)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"symmetries\", \"layouts\", \"classes\", \"listed\",\n"
	  "\"list\": [{\"layout\", \"count\"}]} (the key named after the family's key);\n"
	  "numbers may exceed 2^64.\n" },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: boardproof [--help|--version] <command> [<args>]\n"
		   "\n"
		   "Proves the outcomes of small-board abstract games.\n"
		   "\n"
		   "Commands:\n");
	for (int i = 0; bp_commands[i].name; i++)
		fprintf(f, "  %-9s %s\n", bp_commands[i].name, bp_commands[i].summary);
	fprintf(f, "\nGames (GAME is NAME:BOARD[,key=value]..., e.g. taifas:4x4,tie=draw):\n");
	for (int i = 0; bp_games[i]; i++) {
		const struct bp_game_ops *o = bp_games[i];
		fprintf(f, "  %-10s %s\n", o->name, o->title);
		for (int k = 0; o->options && o->options[k].key; k++) {
			fprintf(f, "             %s=", o->options[k].key);
			if (o->options[k].choices)
				for (int c = 0; o->options[k].choices[c]; c++)
					fprintf(f, "%s%s", c ? "|" : "", o->options[k].choices[c]);
			else
				fprintf(f, "VALUE");
			if (o->options[k].def)
				fprintf(f, " (default %s)", o->options[k].def);
			fprintf(f, ": %s\n", o->options[k].help);
		}
	}
	fprintf(f,
		"\nEvery command takes --help and --json. Run 'boardproof <command> --help'.\n\n%s",
		EXIT_CODES);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return BP_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return BP_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("boardproof %s (rules version %d)\n", BP_VERSION, BP_RULES_VERSION);
		return BP_EXIT_OK;
	}
	for (int i = 0; bp_commands[i].name; i++)
		if (strcmp(argv[1], bp_commands[i].name) == 0)
			return bp_commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "boardproof: unknown command '%s' (see boardproof --help)\n", argv[1]);
	return BP_EXIT_USAGE;
}
