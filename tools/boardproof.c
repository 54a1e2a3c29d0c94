/* SPDX-License-Identifier: MIT */
/* The `boardproof` command: global options, then a subcommand from the table. */
#include <stdio.h>
#include <string.h>

#include "bp_config.h"
#include "solver/game.h"
#include "solver/retrograde.h"
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
	  "\n"
	  "Options:\n"
	  "  --db DIR          the database (default $BOARDPROOF_DB, else data/db)\n"
	  "  --threads N       worker threads (default: one per core)\n"
	  "  --memory B        refuse up front when the solve needs more (default 80% of RAM)\n"
	  "  --block-records N records per compressed block (default 16384; larger blocks\n"
	  "                    store less and probe slower)\n"
	  "  --level L         zstd compression level\n"
	  "  --solver S        auto (default: walk where the game has one, else tiers or\n"
	  "                    cycles), walk (tier by tier over expanded tiers: children\n"
	  "                    read in place, no canonical form per child; Taifas), tiers\n"
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
	  "is an error (exit 2); an unsolved GAME exits 3.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default $BOARDPROOF_DB, else data/db)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"position\", \"value\", \"remoteness\", \"moves\": [{\"move\", \"value\",\n"
	  "\"remoteness\"}, ...]}.\n" },
	{ "verify", "re-derive every stored value from its children", bp_cmd_verify,
	  "usage: boardproof verify [GAME] [--db DIR] [--threads N] [--progress] [--json]\n"
	  "       boardproof verify GAME --proofs [--db DIR] [--json]\n"
	  "\n"
	  "With --proofs: checks every proof that `prove --save-proof` saved for GAME, from\n"
	  "the rules alone (each node's moves regenerated, each leaf terminal or in the solved\n"
	  "table); exit 1 when one fails.\n"
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
	  "JSON: {\"ok\", \"positions_checked\", \"inconsistencies\", \"corrupt_blocks\",\n"
	  "\"content_hash\", \"tables\": [...]}.\n" },
	{ "prove", "prove a position's value by proof-number search", bp_cmd_prove,
	  "usage: boardproof prove GAME [--position P] [--memory SIZE] [--time-limit S]\n"
	  "                        [--max-nodes N] [--threads N] [--openings] [--save-proof]\n"
	  "                        [--db DIR] [--checkpoint S] [--progress] [--json]\n"
	  "\n"
	  "Proves the value of P (default: the start) for its player to move by depth-first\n"
	  "proof-number search (df-pn with the 1+epsilon threshold) over canonical positions,\n"
	  "without enumerating the instance: win or loss by one search, a draw by two (win\n"
	  "against not-win, then loss against not-loss). Positions of a solved table in the\n"
	  "database end the search with their stored value; values proven on the way (for\n"
	  "subtrees of 256 nodes or more) are written to the database every 10 s and at the\n"
	  "end, so that `query` answers them and a later prove starts from them. Positions\n"
	  "that repeat count as draws on the search path, and no result that rests on the\n"
	  "path is reused elsewhere. Remoteness is not computed.\n"
	  "\n"
	  "Options:\n"
	  "  --position P   the position to prove (default: the start)\n"
	  "  --memory SIZE  transposition table size (default 256M; at least 1M): entries of\n"
	  "                 16 bytes in buckets of four\n"
	  "  --time-limit S, --max-nodes N  stop cleanly: the value is then unknown and the\n"
	  "                 root's proof and disproof numbers are reported\n"
	  "  --threads N    2 or more: the win and not-lose searches at once on two threads\n"
	  "                 sharing the table (default 1)\n"
	  "  --openings     prove each move from P in turn\n"
	  "  --save-proof   store the proof tree in the database (check it with verify GAME\n"
	  "                 --proofs)\n"
	  "  --db DIR       the database (default $BOARDPROOF_DB, else data/db)\n"
	  "  --checkpoint S write proven values every S seconds (default 10; 0: at once)\n"
	  "  --progress     the root's numbers on stderr every second (default when stderr\n"
	  "                 is a terminal)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"position\", \"value\" (win, loss, draw or unknown),\n"
	  "\"remoteness\": null, \"proof_size\", \"root_pn\", \"root_dn\", \"search\", "
	  "\"searches\",\n"
	  "\"stopped\", \"nodes\", \"evaluated\", \"seconds\", \"nodes_per_second\",\n"
	  "\"tt_hit_rate\", \"tt_entries\", \"tt_used\", \"threads\", \"peak_memory_bytes\",\n"
	  "\"proof_saved\"}; with --openings {\"openings\": [{\"move\", \"value\", "
	  "\"proof_size\",\n"
	  "\"nodes\"}], ...}.\n" },
	{ "list", "the solved instances in the database", bp_cmd_list,
	  "usage: boardproof list [--db DIR] [--json]\n"
	  "\n"
	  "Lists every table in the database: instance, start value and remoteness,\n"
	  "positions, stored bytes, bits per position, tiers stored.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default $BOARDPROOF_DB, else data/db)\n" COMMON_OPTIONS },
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
