/* SPDX-License-Identifier: MIT */
/* Fuzzes position text: the first byte picks a game instance, the rest is the text.
 * Rejected text must come with a message; accepted text must print and parse back to
 * the same position, with consistent moves and outcome. */
#include <stdlib.h>

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_game **games;
	int n = bp_fuzz_games(&games);
	if (size < 1 || n == 0 || size > 4096)
		return 0;
	const struct bp_game *g = games[data[0] % n];
	char *text = bp_fuzz_string(data + 1, size - 1);
	struct bp_pos p;
	struct bp_err err = { { 0 } };
	int rc = g->ops->pos_parse(g, text, &p, &err);
	if (rc == BP_OK)
		bp_fuzz_check_position(g, &p);
	else
		BP_FUZZ_CHECK(rc == BP_EPARSE && err.msg[0],
			      "position errors are BP_EPARSE with a message");
	free(text);
	return 0;
}
