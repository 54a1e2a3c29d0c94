/* SPDX-License-Identifier: MIT */
/* The `boardproof` command: global options, then a subcommand from the table. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp_config.h"
#include "solver/games/game.h"
#include "tools/cli.h"
#include "tools/commands.h"

#define COMMON_OPTIONS                                       \
	"  --json       machine-readable output on stdout\n" \
	"  --help       this text\n"

#define MOVES_OPTION                                                                              \
	"  --moves M    then play the moves M (one argument: \"xa1 ob2 ...\"); an illegal move\n" \
	"               is named by its number\n"

#define DB_HELP                                                                                 \
	"The database directory, for solve, query, verify, list, claims, openings, play and\n"  \
	"paper: --db DIR when given; else $BOARDPROOF_DB; else $XDG_DATA_HOME/boardproof/db;\n" \
	"else ~/.local/share/boardproof/db. It is never taken relative to the current\n"        \
	"directory unless you say so (tools/run uses data/db of the checkout).\n"

#define EXIT_CODES                                                                              \
	"Exit codes: 0 success; 1 a check found a problem or the command is not available;\n"   \
	"2 usage or bad input (game spec, position, move); 3 database missing, corrupt or of\n" \
	"another format; 4 I/O or resource failure.\n"

const struct bp_command bp_commands[] = {
	{ "show", "draw a position with its state and the game's evaluation", bp_cmd_show,
	  "usage: boardproof show GAME [POSITION] [--moves M] [--json]\n"
	  "\n"
	  "Draws POSITION (default: the start position) of GAME: the board, the side to move,\n"
	  "the state keys, the game's own figures (Taifas: zones), and whether the game is over\n"
	  "with its outcome for the player to move. POSITION may be quoted or given as several\n"
	  "words; \"start\" names the start position.\n"
	  "\n"
	  "Options:\n" MOVES_OPTION COMMON_OPTIONS "\n"
	  "JSON: {\"game\", \"position\", \"to_move\", \"terminal\", \"outcome\" (win, loss, draw "
	  "or\n"
	  "null), \"moves\", and the game's figures}.\n" },
	{ "moves", "list the legal moves of a position", bp_cmd_moves,
	  "usage: boardproof moves GAME [POSITION] [--moves M] [--count] [--json]\n"
	  "\n"
	  "Lists every legal move of POSITION (default: the start position), one a line.\n"
	  "A turn that places two stones is one move (Blooms: rc3+yd2). On a finished game\n"
	  "it says so (JSON: \"finished\": true and the \"outcome\" for the player to move).\n"
	  "\n"
	  "Options:\n" MOVES_OPTION
	  "  --count      print only the number of legal moves\n" COMMON_OPTIONS "\n"
	  "JSON: {\"moves\": [...], \"count\": N}; with --count only {\"count\": N}.\n" },
	{ "perft", "count move sequences to a depth", bp_cmd_perft,
	  "usage: boardproof perft GAME DEPTH [--position P] [--moves M] [--stats] [--json]\n"
	  "\n"
	  "For d = 1..DEPTH prints \"perft d = N\": the number of distinct move sequences of\n"
	  "length d from the start (or from P). A sequence that ends the game is not extended.\n"
	  "\n"
	  "Options:\n"
	  "  --position P start from position P instead of the start position\n" MOVES_OPTION
	  "  --stats      also print the moves generated and moves per second\n" COMMON_OPTIONS },
	{ "count", "count reachable positions exactly, per tier and up to symmetry", bp_cmd_count,
	  "usage: boardproof count GAME [--method auto|formula|enumerate|keys] [--memory BYTES]\n"
	  "                        [--threads N] [--dir DIR] [--progress] [--json]\n"
	  "\n"
	  "Counts the positions reachable from the start of GAME, per tier (stones placed) and\n"
	  "in total, raw and up to the game's symmetries, exactly (GMP). With a counting\n"
	  "formula (auto prefers it) any board size works; enumeration visits every position\n"
	  "and is refused when its bitmaps would pass --memory (default 4G).\n"
	  "Games with a 128-bit key whose index space is too large for that (Mirador from\n"
	  "10x10; auto picks it there) are counted by keys: the canonical positions tier by\n"
	  "tier, each tier's keys in a file under DIR and the children's keys sorted and\n"
	  "merged on disk, so that memory holds buffers of --memory bytes (default 1G) and\n"
	  "disk about two tiers' keys (16 bytes a position), with the positions that are\n"
	  "over counted too; the files are removed when it ends.\n"
	  "Games whose positions repeat (Blooms) are enumerated breadth-first\n"
	  "with a hash set instead, per depth (the fewest turns that reach a position), with\n"
	  "the terminal positions counted too; the count gives up when the set passes\n"
	  "--memory.\n"
	  "\n"
	  "Options:\n"
	  "  --method M   auto (default), formula, enumerate, or keys\n"
	  "  --memory B   memory limit for enumeration (keys: its buffers): bytes, or with\n"
	  "               K, M, G\n"
	  "  --threads N  keys: worker threads (default: one per core)\n"
	  "  --dir DIR    keys: where its files go (default $TMPDIR, else /tmp)\n"
	  "  --progress   a line per tier on stderr (default when stderr is a "
	  "terminal)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"method\", \"tiers\": [{\"tier\", \"positions\", \"classes\"}],\n"
	  "\"positions\", \"classes\"}; numbers may exceed 2^64. By keys: each tier and the\n"
	  "total also with \"over\", and \"disk_peak_bytes\", \"seconds\". Games that repeat:\n"
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
	  "                        [--index I] [--spill DIR] [--foretell-wins] [--replace]\n"
	  "                        [--progress]\n"
	  "                        [--mpi] [--json]\n"
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
	  "  --db DIR          the database (default: see boardproof help db)\n"
	  "  --threads N       worker threads (default: one per core)\n"
	  "  --memory B        refuse up front when the solve needs more (default 80% of RAM)\n"
	  "  --block-records N records per compressed block (default 16384, or as --level\n"
	  "                    says; larger blocks store less and probe slower)\n"
	  "  --level L         zstd compression level (default 9); from 10 up, archival: a\n"
	  "                    block is model-coded instead where that is smaller (1-16%\n"
	  "                    fewer bytes, cold probes about 15 times slower), and\n"
	  "                    Taifas, Chicken, Glorieta, Landscape, Blooms and Havannah\n"
	  "                    store no bits for indices that are no position, in\n"
	  "                    blocks of about 65536 positions unless --block-records\n"
	  "                    (taifas:4x4 0.52 bits a position, not 2.07)\n"
	  "  --foretell-wins   with --level 10+: wins in 1 coded from the rules, not stored\n"
	  "                    (smaller tables; a cold probe takes milliseconds)\n"
	  "  --solver S        the engine: auto (default: counter for games that repeat,\n"
	  "                    else walk where the game has one, else tiers), walk (tier\n"
	  "                    by tier over expanded tiers: children read in place, no\n"
	  "                    canonical form per child; games with a tier walk), tiers\n"
	  "                    (tier by tier, canonicalizing every child; resumable too),\n"
	  "                    cycles (level passes over all positions in memory; any game\n"
	  "                    with dense ranking; games that repeat; the cross-check), or\n"
	  "                    counter (child counters over the reachable graph, each\n"
	  "                    position's moves generated once; the same table as cycles)\n"
	  "  --index I         sparse (the reachable canonical positions only, enumerated\n"
	  "                    first and stored with the table; games with a position key:\n"
	  "                    mirador; walk or tiers engine; one process), dense (every\n"
	  "                    arrangement), or auto (default: a begun table's, else\n"
	  "                    sparse where the dense index is too large or mostly holes)\n"
	  "  --spill DIR       sparse: enumerate with the tiers in files under DIR, mapped\n"
	  "                    (keys that do not fit in memory)\n"
	  "  --replace         drop GAME's table first and solve it anew (needed for a table\n"
	  "                    solved under another rules version, which is refused: exit 3)\n"
	  "  --progress        a line per tier on stderr (default when stderr is a "
	  "terminal)\n"
	  "  --mpi             one rank of an MPI job: mpirun -np N boardproof solve GAME\n"
	  "                    --mpi deals each tier's index range out to the N ranks\n"
	  "                    (the tiers engine); rank 0 alone writes the database,\n"
	  "                    which every rank must be able to open. See boardproof plan.\n"
	  "                    Builds without MPI say it is not available (exit 1)\n" COMMON_OPTIONS
	  "\n"
	  "JSON: {\"instance\", \"value\", \"remoteness\", \"positions\", \"seconds\",\n"
	  "\"positions_per_second\", \"peak_memory_bytes\", \"bits_per_position\", \"solver\",\n"
	  "...}.\n" },
	{ "plan", "what a solve split across ranks would need, per tier, before running it",
	  bp_cmd_plan,
	  "usage: boardproof plan GAME [--ranks R] [--memory-per-rank BYTES] [--threads T]\n"
	  "                       [--bits-per-position B] [--rate P] [--solver S] [--count]\n"
	  "                       [--json]\n"
	  "\n"
	  "Plans the tiered solve of GAME split across R ranks (solve --mpi) from the exact\n"
	  "tier sizes (records per tier) and, where the game counts them exactly, its\n"
	  "positions up to symmetry per tier (else the records stand in, an upper bound).\n"
	  "Each rank holds only its share of every tier. Per tier: the children per\n"
	  "position (averaged over positions sampled from the tier); the memory per rank\n"
	  "while solving it (tiers engine: 1/R of each reachability bitmap, of the tier\n"
	  "and of the two tiers above it; walk engine: 1/R of two buffers of the largest\n"
	  "tier; and one round's exchange buffers); the bytes a rank sends and receives\n"
	  "(reach marks or images, child lookups, its share of the records for rank 0, the\n"
	  "writer); the disk; a time. Nothing is solved. Exit 2 when a rank's share does\n"
	  "not fit.\n"
	  "\n"
	  "For a game that repeats (Blooms), what solve runs: the counter engine (or with\n"
	  "--solver, the cycles engine), in one process. Their peak follows the reachable\n"
	  "positions, not known before running: the plan gives the range it lies in (the\n"
	  "bitmap over the index space, up to every position reachable with the most\n"
	  "moves; for cycles, records for every index). --count runs the counter engine's\n"
	  "marking step (its time and memory, under --memory-per-rank) and gives the exact\n"
	  "peak. Exit 2 when it cannot fit: the least figure (for cycles, the need it\n"
	  "checks up front) passes --memory-per-rank.\n"
	  "\n"
	  "Options:\n"
	  "  --ranks R              ranks (processes; default 1)\n"
	  "  --memory-per-rank B    bytes a rank may use (K, M, G, T; default: no limit)\n"
	  "  --threads T            threads per rank (default 1)\n"
	  "  --bits-per-position B  stored bits per position (default 0.913, measured on\n"
	  "                         taifas:4x5)\n"
	  "  --rate P               positions solved per second per thread (default\n"
	  "                         8.65e6: taifas:4x5's walk, 17.3 M/s on 2 cores; the\n"
	  "                         tiered engine is slower, so the time is a lower "
	  "bound)\n"
	  "  --solver S             the engine to plan: walk, tiers, counter or cycles\n"
	  "                         (default auto: what solve runs; across ranks the walk\n"
	  "                         where the game has one; counter for games that repeat)\n"
	  "  --count                count the reachable graph first (counter, "
	  "cycles)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"solver\", \"ranks\", \"threads\", \"tiers\": [{\"tier\",\n"
	  "\"records\", "
	  "\"positions\", \"children_per_position\", \"memory_per_rank\",\n"
	  "\"memory_one_process\", \"sent\", \"received\", \"writer_received\", \"disk\",\n"
	  "\"estimated_seconds\"}], \"peak_memory_per_rank\", \"peak_tier\", \"sent\",\n"
	  "\"received\", \"writer_received\", \"disk\", \"estimated_seconds\", \"fits\", ...};\n"
	  "counter or cycles: {\"instance\", \"solver\", \"indices\", \"counted\",\n"
	  "\"reachable_positions\" (null unless counted), \"peak_memory_per_rank\" (null\n"
	  "unless exact), \"peak_memory_low\", \"peak_memory_high\", \"fits\" (null: cannot\n"
	  "tell), ...}.\n" },
	{ "query", "value and every move's value of a position: perfect play", bp_cmd_query,
	  "usage: boardproof query GAME [POSITION] [--moves M] [--line] [--db DIR] [--json]\n"
	  "\n"
	  "Looks POSITION (default: the start; then the moves M) up in the solved table of\n"
	  "GAME and prints its value and remoteness, then every legal move with the value\n"
	  "and remoteness it leads to, for the player making it, and the position it leads\n"
	  "to, grouped winning, drawing and losing, best first. --line adds a perfect-play\n"
	  "line to the end of the game (or to the first repeated position of a draw by\n"
	  "repetition). A position outside the solved set is an error (exit 2); an unsolved\n"
	  "GAME exits 3. For a spec that stands for a family of instances, the position's\n"
	  "own instance (for landscape without layout=, the layout of its neutral stones,\n"
	  "up to symmetry) is looked up. A position no table holds that proof-number\n"
	  "search proved (prove) gets its value without remoteness or moves; where it is\n"
	  "one of the decisions of a saved proof (prove --save-proof), also the proof's\n"
	  "move there; where a saved proof answers every move, each move's answer (JSON\n"
	  "\"source\": \"proven\" or \"proof\", \"proof_move\", \"proof_replies\": [{\"move\",\n"
	  "\"answer\"}]).\n"
	  "\n"
	  "Options:\n" MOVES_OPTION
	  "  --line       also print a perfect-play line from the position\n"
	  "  --db DIR     the database (default: see boardproof help db)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"position\", \"value\", \"remoteness\", \"terminal\", \"moves\":\n"
	  "[{\"move\", \"value\", \"remoteness\", \"group\" (winning, drawing, losing),\n"
	  "\"position\"}, ...]}; with --line also \"line\": [{\"move\", \"value\", "
	  "\"remoteness\",\n"
	  "\"position\"}, ...] and \"line_end\".\n" },
	{ "verify", "re-derive every stored value from its children", bp_cmd_verify,
	  "usage: boardproof verify [GAME] [--db DIR] [--threads N] [--hash-only] [--spill DIR]\n"
	  "                         [--progress] [--json]\n"
	  "       boardproof verify GAME --sample N [--seed S] [--db DIR] [--json]\n"
	  "       boardproof verify [GAME] --proofs [--db DIR] [--json]\n"
	  "\n"
	  "With --proofs: checks every proof that `prove --save-proof` saved for GAME\n"
	  "(default: for every instance that has one; JSON {\"instances\": [...], \"ok\"}),\n"
	  "from the rules alone (every reply to each decision regenerated, each leaf\n"
	  "terminal, in the solved table or settled by the game's bounds), and reads every\n"
	  "proven value; exit 1 when a proof fails, 3 for damage.\n"
	  "\n"
	  "Checks the table of GAME (default: every table): decodes and checksums every\n"
	  "block, and recomputes every stored position's value and remoteness from the\n"
	  "terminal rules and its children's stored values, independently of the solver.\n"
	  "Exit 1 when an inconsistency or a missing tier is found, 3 for a corrupt block.\n"
	  "The content hash identifies the decoded content whatever the compression; the\n"
	  "report, the hash and the order of the problems shown do not depend on --threads.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default: see boardproof help db)\n"
	  "  --threads N  worker threads (default: one per core)\n"
	  "  --hash-only  only decode, checksum and hash the stored records (minutes less on\n"
	  "               big tables): the content hash, to compare two tables, without\n"
	  "               re-deriving any value; positions_checked stays 0\n"
	  "  --sample N   re-derive only N stored positions drawn at random, tiers in\n"
	  "               proportion to their positions, on one thread, reading each record\n"
	  "               it needs by itself: for tables whose tiers do not fit in memory\n"
	  "               (no content hash: null)\n"
	  "  --seed S     the sample's seed (default 1)\n"
	  "  --spill DIR  a table indexed by its reachable positions: enumerate them afresh\n"
	  "               with the tiers on disk under DIR (as solve --spill) and compare\n"
	  "               the stored index a tier at a time: neither is held in memory\n"
	  "  --progress   a line per tier on stderr (default when stderr is a "
	  "terminal)\n" COMMON_OPTIONS "\n"
	  "A GAME that stands for a family of instances checks every member's table.\n"
	  "The full check holds the tiers a tier's moves reach in a cache of 4 GiB (or three\n"
	  "times the largest tier); a tier is held packed (a bitmap and the stored records\n"
	  "alone, a few percent slower) when three dense ones would not fit.\n"
	  "Environment: BOARDPROOF_VERIFY_PACKED=always|never|auto and\n"
	  "BOARDPROOF_VERIFY_CACHE_BYTES=SIZE override that choice and the cache's size.\n"
	  "JSON: {\"ok\", \"positions_checked\", \"positions_hashed\", \"inconsistencies\",\n"
	  "\"corrupt_blocks\", \"missing_tiers\", \"hash_only\", \"content_hash\", \"tables\":\n"
	  "[...]}; with --sample also \"sample\" and \"seed\"; a table indexed by its\n"
	  "reachable positions also \"index\": \"sparse\" and \"index_enumerated\".\n" },
	{ "prove", "prove a position's value by proof-number search", bp_cmd_prove,
	  "usage: boardproof prove GAME [--position P] [--moves M] [--memory SIZE]\n"
	  "                        [--time-limit S] [--max-nodes N] [--threads N] [--openings]\n"
	  "                        [--save-proof] [--db DIR] [--keep-table [--keep-every S]]\n"
	  "                        [--checkpoint S] [--progress]\n"
	  "                        [--pn-rule sum|weak|game] [--init 1|moves|game] [--json]\n"
	  "\n"
	  "Proves the value of P (default: the start; then the moves M) for its player to\n"
	  "move by depth-first proof-number search (df-pn with the 1+epsilon threshold)\n"
	  "over canonical positions, without enumerating the instance: win or loss by one\n"
	  "search, a draw by two (win against not-win, then loss against not-loss).\n"
	  "Positions of a solved table in the database end the search with their stored\n"
	  "value; values proven on the way (subtrees of 256+ nodes) are written to the\n"
	  "database every 10 s and at the end, so that `query` answers them and a later\n"
	  "prove starts from them. A repetition counts as a draw on the search path,\n"
	  "and no result resting on the path is reused. Remoteness is not computed.\n"
	  "Ctrl-C stops the search as a limit does: the values proven so far are written,\n"
	  "the report is printed, and the exit status is 130 (a second Ctrl-C: at once).\n"
	  "\n"
	  "Options:\n"
	  "  --position P   the position to prove (default: the start)\n"
	  "  --moves M      then play the moves M (one argument: \"a1 b2 ...\"); an illegal\n"
	  "                 move is named by its number\n"
	  "  --memory SIZE  transposition table size (default 256M; at least 1M): entries of\n"
	  "                 16 bytes in buckets of four, and a filter of one bit an entry\n"
	  "  --time-limit S, --max-nodes N  stop cleanly: the value is then unknown and the\n"
	  "                 root's proof and disproof numbers are reported\n"
	  "  --threads N    N threads sharing the table, each searching from the root\n"
	  "                 (default 1; games that repeat: the win and not-lose searches at\n"
	  "                 once on two threads)\n"
	  "  --openings     prove each move from P in turn\n"
	  "  --save-proof   store the proof (the winner's moves) in the database (check\n"
	  "                 it with verify GAME --proofs); proofs saved there before are\n"
	  "                 copied in whole where the build reaches their positions\n"
	  "  --db DIR       the database (default $BOARDPROOF_DB, else data/db)\n"
	  "  --keep-table   when the search stops undecided (a limit, Ctrl-C), write its\n"
	  "                 table to DIR/dfpn-HASH.table (as large as --memory), and go on\n"
	  "                 from such a file of the same game and --memory; it is removed\n"
	  "                 once the value is decided; also written every --keep-every S\n"
	  "                 seconds (default 1800): a killed search loses the work since\n"
	  "  --checkpoint S write proven values every S seconds (default 10; 0: at once)\n"
	  "  --progress     the root's numbers, and those of the child being searched, on\n"
	  "                 stderr every second (default when stderr is a terminal)\n"
	  "  --pn-rule R    sum (plain df-pn), weak (a node that needs all its children\n"
	  "                 counts the largest plus one per other open child) or game\n"
	  "  --init I       a new leaf's numbers: 1 (pn = dn = 1), moves (its legal moves\n"
	  "                 for the side that must answer them all) or game\n"
	  "                 game (the default): the game's advice, weak/moves for glorieta,\n"
	  "                 landscape; sum/moves for mirador; weak/1 for chicken, blooms;\n"
	  "                 else sum/1. Neither option changes a value.\n" COMMON_OPTIONS "\n"
	  "BOARDPROOF_PROVE_BOUNDS=off: no value bounds (Taifas'), for comparisons.\n"
	  "JSON: {\"instance\", \"position\", \"value\" (win, loss, draw or unknown),\n"
	  "\"remoteness\": null, \"proof_size\" (decisions), \"root_pn\", \"root_dn\",\n"
	  "\"search\", \"searches\", \"stopped\" (time-limit, max-nodes, interrupt or null),\n"
	  "\"nodes\", \"evaluated\", \"seconds\", \"nodes_per_second\", \"tt_hit_rate\",\n"
	  "\"outcome_cache_hits\", \"tt_entries\", \"tt_used\", \"threads\", \"pn_rule\",\n"
	  "\"init\", \"peak_memory_bytes\", \"proof_saved\", \"proof_lemmas\",\n"
	  "\"table_resumed\", \"table_kept\"};\n"
	  "with --openings {\"pn_rule\", \"init\", \"openings\": [{\"move\", \"value\",\n"
	  "\"proof_size\", \"nodes\"}], \"stopped\", ...}.\n" },
	{ "list", "the solved instances and saved proofs in the database", bp_cmd_list,
	  "usage: boardproof list [--db DIR] [--json]\n"
	  "\n"
	  "Lists every table in the database: instance, start value and remoteness,\n"
	  "positions, stored bytes, bits per position, tiers stored; then what proof-\n"
	  "number search left there (prove): each saved proof (instance, value, its\n"
	  "decisions, stored bytes, rules version, root position) and each instance's\n"
	  "count of proven positions. A value under other rules shows as \"outdated\";\n"
	  "a damaged table or proof is an error (exit 3), never a line left out.\n"
	  "JSON: {\"tables\": [...], \"saved_proofs\": [{\"instance\", \"position\",\n"
	  "\"value\", \"decisions\", \"stored_bytes\", \"rules_version\"}],\n"
	  "\"proven_values\": [{\"instance\", \"positions\", \"rules_version\"}]}.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default: see boardproof help db)\n" COMMON_OPTIONS },
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
	{ "render", "draw a position as SVG, optionally with every move's value", bp_cmd_render,
	  "usage: boardproof render GAME [POSITION] [--moves M] --svg FILE [--values]\n"
	  "                         [--db DIR] [--json]\n"
	  "\n"
	  "Draws POSITION (default: the start; then the moves M) of GAME as an SVG picture\n"
	  "into FILE (\"-\": stdout): hex or square cells with the row letters and cell\n"
	  "numbers on the margins (and each empty hex cell's name), the stones in the game's\n"
	  "colours with a legend, neutral stones dashed, a ring's coloured spaces, pieces and\n"
	  "their links. --values tints every cell that a legal move changes with the best\n"
	  "such move's value from the database (green win, grey draw, red loss, for the\n"
	  "player to move) and writes it as W3, D4, L5 (turns to the end; D alone: a draw by\n"
	  "repetition).\n"
	  "\n"
	  "Options:\n" MOVES_OPTION "  --svg FILE   where to write the picture (required)\n"
	  "  --values     mark every move's value (needs the solved table)\n"
	  "  --db DIR     the database (default: see boardproof help db)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"position\", \"svg\", \"marks\"}.\n" },
	{ "openings", "every first move's value, as a list and a picture", bp_cmd_openings,
	  "usage: boardproof openings GAME [--svg FILE] [--db DIR] [--json]\n"
	  "\n"
	  "Lists every first move of GAME with its value and remoteness for the first\n"
	  "player from the solved table, best first, and the cells it changes. Where the\n"
	  "game has a pie rule or a colour choice after the first turn (not part of the\n"
	  "position), also what each opening is worth once the second player has chosen\n"
	  "(a winning opening is taken over: a loss; draws stay draws) and the first\n"
	  "player's best result. --svg draws the start with each first move's value over\n"
	  "its cells as in render --values.\n"
	  "\n"
	  "Options:\n"
	  "  --svg FILE   also draw the opening map into FILE\n"
	  "  --db DIR     the database (default: see boardproof help db)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"position\", \"pie\", \"openings\": [{\"move\", \"value\",\n"
	  "\"remoteness\", \"after_choice\" (pie games), \"cells\"}], \"value_with_choice\"}.\n" },
	{ "play", "play against perfect play from the database", bp_cmd_play,
	  "usage: boardproof play GAME [--position P] [--moves M] [--as first|second]\n"
	  "                       [--hint] [--db DIR]\n"
	  "\n"
	  "Plays GAME against perfect play from its solved table, from the start or from P\n"
	  "(then the moves M). You play the side to move first (--as first, default) or the\n"
	  "other. Each turn shows the board and the position text; type a move, or undo\n"
	  "(your last move and the reply), hint (every move's value), moves (the legal\n"
	  "moves) or quit. An illegal move is named and asked for again. Where the game has a\n"
	  "pie rule or a colour choice, the second player decides after the first turn\n"
	  "whether to take over the first player's side (perfect play takes it exactly when\n"
	  "the opening wins). Perfect play chooses the fastest win or the slowest loss. The\n"
	  "game ends with who won, or a draw (a position seen three times is a draw by\n"
	  "repetition). Input may come from a pipe, one move a line; it is echoed.\n"
	  "\n"
	  "Options:\n"
	  "  --position P start from position P\n" MOVES_OPTION
	  "  --as SIDE    first or second: the side you play\n"
	  "  --hint       show every move's value before each of your turns\n"
	  "  --db DIR     the database (default: see boardproof help db)\n"
	  "  --help       this text\n" },
	{ "claims", "verdicts on the designers' claims, with witnesses", bp_cmd_claims,
	  "usage: boardproof claims GAME [--solve] [--claim NAME] [--all] [--check]\n"
	  "                         [--max-positions N] [--db DIR] [--progress] [--json]\n"
	  "\n"
	  "Checks the claims made about GAME's family against its solved table (with\n"
	  "--solve, solving it first when it is missing) and prints for each a verdict:\n"
	  "holds, fails, unknown (a value is missing, or the instance is too large to walk)\n"
	  "or n/a; what was counted; and a witness to replay: a position and a line of moves,\n"
	  "as a query command. Claims walk every position reachable from the start, one per\n"
	  "symmetry class: the stored ones, a tier at a time (one tier's index of reachable\n"
	  "positions in memory at a time: mirador:11x11 4.9 GB, 5 minutes), or by a walk\n"
	  "from the start of at most --max-positions.\n"
	  "  no-draw          no reachable position is a draw under perfect play; counts\n"
	  "                   drawn ends and draws, and the start's value\n"
	  "  soft-finite      no reachable position is a draw by repetition (games that\n"
	  "                   repeat); a witness cycle\n"
	  "  first-player     the start is a win for the first player\n"
	  "  pie              with the pie rule or colour choice the first player can keep a\n"
	  "                   draw: each opening's value after the choice\n"
	  "  fewer-groups     on every reachable full board, fewer groups win\n"
	  "  board-fills      the board fills in under 10% of perfect-play lines and of\n"
	  "                   1000 random games (seed 1)\n"
	  "  corner-openings  the best opening does not improve with the distance from a\n"
	  "                   corner, and the corner's beats the farthest\n"
	  "\n"
	  "Options:\n"
	  "  --solve      solve GAME into the database first when it is not there\n"
	  "  --claim NAME check only this claim\n"
	  "  --all        check every claim, not only those made about the family\n"
	  "  --check      exit 1 when a claim fails\n"
	  "  --max-positions N  classes a walk may hold (default 4M, about 64 bytes each);\n"
	  "               past it the verdict is unknown\n"
	  "  --db DIR     the database (default: see boardproof help db)\n"
	  "  --progress   show how far the walk over the stored positions has got (on a\n"
	  "               terminal it shows anyway, on one line)\n" COMMON_OPTIONS "\n"
	  "JSON: {\"instance\", \"claims\": [{\"name\", \"verdict\", \"detail\", \"witness\":\n"
	  "{\"position\", \"moves\", \"shows\"} or null, and the claim's counts}]}.\n" },
	{ "paper", "write a game family's paper from the database", bp_cmd_paper,
	  "usage: boardproof paper FAMILY [--db DIR] [--out DIR] [--progress] [--json]\n"
	  "\n"
	  "Writes OUT/FAMILY.md (default OUT: papers) and its figures in OUT/FAMILY/: the\n"
	  "rules version and the reading of the rules (the family's spec keys), every\n"
	  "instance of FAMILY solved in the database with its start value and position\n"
	  "counts, each instance's opening map (an SVG and a table) and the verdicts on the\n"
	  "family's claims with their witnesses (as in boardproof claims), the values that\n"
	  "proof-number search proved with a saved proof (prove --save-proof: instance,\n"
	  "position, value, decisions; verify --proofs re-checks them), and the commands\n"
	  "that regenerate each part. The paper holds no times, dates or paths, so the same\n"
	  "tables and proofs give the same bytes. A damaged table or proof is an error.\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default: see boardproof help db)\n"
	  "  --out DIR    where to write (default papers)\n"
	  "  --progress   show how far the claims' walks have got (as claims "
	  "--progress)\n" COMMON_OPTIONS },
	{ "serve", "the explorer: a local web page and JSON API over the database", bp_cmd_serve,
	  "usage: boardproof serve [--db DIR] [--port P] [--host H] [--threads N]\n"
	  "                        [--timeout S] [--json]\n"
	  "\n"
	  "Serves the explorer on http://H:P/: a page that draws a position of any solved\n"
	  "instance with every move's value and remoteness, plays a move on a click, and\n"
	  "keeps a shareable address per position; and its JSON API, read-only:\n"
	  "  GET /api/instances                        the tables in the database\n"
	  "  GET /api/query?instance=GAME[&position=P][&moves=M1+M2...]\n"
	  "      the position (P, default the start, then the moves), its value and\n"
	  "      remoteness, every move with its value, remoteness and resulting position,\n"
	  "      the moves grouped (winning, drawing, losing), and the board to draw\n"
	  "      (moves separated by + or commas; a + inside a move, as in Blooms, is %2B)\n"
	  "  GET /api/openings?instance=GAME            the first moves and their values\n"
	  "  GET /api/claims?instance=GAME              what `claims GAME --json` prints\n"
	  "      (computed once per table, in the background: other requests go on)\n"
	  "Bad requests get a 4xx answer {\"error\": ...}: a request head over 32 KiB (414,\n"
	  "431), one that is not HTTP/1.x (400) or not complete within the timeout (408);\n"
	  "a position outside the solved table is 404. Tables are reopened every few\n"
	  "seconds, so a solve may write meanwhile.\n"
	  "Prints the address, then serves until interrupted (SIGINT or SIGTERM).\n"
	  "\n"
	  "Options:\n"
	  "  --db DIR     the database (default: see boardproof help db)\n"
	  "  --port P     the TCP port (default 8417; 0: any free port, printed)\n"
	  "  --host H     the address to listen on (default 127.0.0.1: this machine only)\n"
	  "  --threads N  threads serving connections (default 4)\n"
	  "  --timeout S  seconds a silent or slow connection is kept (default 10)\n" COMMON_OPTIONS
	  "\n"
	  "JSON: {\"url\", \"host\", \"port\", \"db\"} once listening.\n" },
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
		"\nEvery command takes --help and --json (errors are then JSON on stderr:\n"
		"{\"error\": {\"command\", \"message\", \"exit\"}}). Run 'boardproof help "
		"<command>'\n"
		"or 'boardproof help db' (where the database is).\n\n%s",
		EXIT_CODES);
}

/* GMP cannot report a failed allocation: its own allocator aborts (SIGABRT, a crash
 * to the user). These end the command as every other out-of-memory error does: a
 * message and exit 4, without flushing stdout (a report cut short is never printed).
 * Only tools/ may end the process. */
static const char *gmp_cmd = "boardproof";

static void gmp_out_of_memory(void)
{
	bp_cli_error(gmp_cmd, "out of memory");
	bp_cli_json_error_flush(gmp_cmd, BP_EXIT_IO);
	_exit(BP_EXIT_IO);
}

static void *gmp_alloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		gmp_out_of_memory();
	return p;
}

static void *gmp_realloc(void *p, size_t old, size_t n)
{
	(void)old;
	void *q = realloc(p, n);
	if (!q)
		gmp_out_of_memory();
	return q;
}

static void gmp_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

int main(int argc, char **argv)
{
	mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
	if (argc < 2) {
		usage(stderr);
		return BP_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2) {
		/* boardproof help query: the command's --help */
		for (int i = 0; bp_commands[i].name; i++)
			if (strcmp(argv[2], bp_commands[i].name) == 0) {
				fputs(bp_commands[i].help, stdout);
				return BP_EXIT_OK;
			}
		if (strcmp(argv[2], "db") == 0) {
			fputs(DB_HELP, stdout);
			return BP_EXIT_OK;
		}
		fprintf(stderr, "boardproof: help: unknown command '%s' (see boardproof --help)\n",
			argv[2]);
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
		if (strcmp(argv[1], bp_commands[i].name) == 0) {
			/* with --json, errors are JSON too: {"error": {..., "exit": N}} */
			for (int k = 2; k < argc && strcmp(argv[k], "--") != 0; k++)
				if (strcmp(argv[k], "--json") == 0)
					bp_cli_json_errors(1);
			gmp_cmd = bp_commands[i].name;
			int rc = bp_commands[i].run(argc - 1, argv + 1);
			bp_cli_json_error_flush(bp_commands[i].name, rc);
			return rc;
		}
	fprintf(stderr, "boardproof: unknown command '%s' (see boardproof --help)\n", argv[1]);
	return BP_EXIT_USAGE;
}
