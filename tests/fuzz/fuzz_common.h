/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz harnesses: the game instances they exercise (every game the
 * registry knows, on small boards), and a check that aborts loudly. */
#ifndef BP_TESTS_FUZZ_COMMON_H
#define BP_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "solver/games/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The instances, created once; entries whose game is not built are skipped. */
int bp_fuzz_games(struct bp_game ***out);

/* Copies data into a NUL-terminated string (freed by the caller). */
char *bp_fuzz_string(const uint8_t *data, size_t size);

/* Aborts with a message when cond is false (assert() may be compiled out). */
#define BP_FUZZ_CHECK(cond, what)                               \
	do {                                                    \
		if (!(cond))                                    \
			bp_fuzz_fail(what, __FILE__, __LINE__); \
	} while (0)

_Noreturn void bp_fuzz_fail(const char *what, const char *file, int line);

/* Round-trips p through text and checks its moves: every listed move formats to text
 * that parses back to the same move. */
void bp_fuzz_check_position(const struct bp_game *g, const struct bp_pos *p);

#endif
