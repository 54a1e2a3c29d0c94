/* SPDX-License-Identifier: MIT */
/* The `boardproof` command: global options, then a subcommand from the table. */
#include <stdio.h>
#include <string.h>

#include "bp_config.h"
#include "solver/game.h"
#include "tools/cli.h"
#include "tools/commands.h"

#define BP_RULES_VERSION 1

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
	  "usage: boardproof moves GAME [POSITION] [--json]\n"
	  "\n"
	  "Lists every legal move of POSITION (default: the start position), one a line.\n"
	  "\n"
	  "Options:\n" COMMON_OPTIONS "\n"
	  "JSON: {\"moves\": [...], \"count\": N}.\n" },
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
	  "\n"
	  "Options:\n"
	  "  --method M   auto (default), formula, or enumerate\n"
	  "  --memory B   memory limit for enumeration: bytes, or with K, M, G\n"
	  "  --progress   a line per tier on stderr (default when stderr is a "
	  "terminal)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"method\", \"tiers\": [{\"tier\", \"positions\", \"classes\"}],\n"
	  "\"positions\", \"classes\"}; numbers may exceed 2^64.\n" },
	{ "solve", "strongly solve an instance into the database (not yet available)", bp_cmd_solve,
	  "usage: boardproof solve GAME [--json]\n"
	  "\n"
	  "Strongly solves GAME: every reachable position's value and remoteness, stored in\n"
	  "the position database. Not available in this build yet: the command fails with\n"
	  "exit code 1 and solves nothing.\n"
	  "\n"
	  "Options:\n" COMMON_OPTIONS },
	{ "layouts", "count and list Landscape layouts up to symmetry", bp_cmd_layouts,
	  "usage: boardproof layouts GAME [--limit N] [--json]\n"
	  "\n"
	  "GAME is landscape:BOARD,neutrals=K (other keys are ignored). Counts the layouts:\n"
	  "the sets of K pairwise non-adjacent cells of BOARD, exactly (GMP) and up to the\n"
	  "board's symmetries, on any board size; then, for boards of at most 64 cells with\n"
	  "at most N classes, lists one layout per class (the smallest as a cell set, in\n"
	  "the layout=a1;c2;e3 form) with the number of layouts in its class.\n"
	  "\n"
	  "Options:\n"
	  "  --limit N    list only when there are at most N classes (default "
	  "1000)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"board\", \"neutrals\", \"symmetries\", \"layouts\", \"classes\", \"listed\",\n"
	  "\"list\": [{\"layout\", \"count\"}]}; numbers may exceed 2^64.\n" },
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
		fprintf(f, "  %-8s %s\n", bp_commands[i].name, bp_commands[i].summary);
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
