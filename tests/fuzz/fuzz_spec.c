/* SPDX-License-Identifier: MIT */
/* Fuzzes the game-spec parser: any input either fails cleanly with a message or
 * gives an instance whose canonical spelling parses to the same spelling. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 512)
		return 0;
	char *spec = bp_fuzz_string(data, size);
	struct bp_game *g = NULL, *h = NULL;
	struct bp_err err = { { 0 } };
	int rc = bp_game_create(spec, &g, &err);
	if (rc == BP_OK) {
		/* boards that are huge to build are legal but slow; keep runs fast */
		BP_FUZZ_CHECK(bp_game_create(g->spec, &h, NULL) == BP_OK, "canonical spec parses");
		BP_FUZZ_CHECK(strcmp(g->spec, h->spec) == 0, "canonical spec is stable");
		struct bp_pos p;
		g->ops->start(g, &p);
		if (g->board->ncells <= 64)
			bp_fuzz_check_position(g, &p);
	} else {
		BP_FUZZ_CHECK(rc == BP_ESPEC || rc == BP_ENOMEM, "spec errors are BP_ESPEC");
		BP_FUZZ_CHECK(err.msg[0] != '\0', "spec errors have a message");
		BP_FUZZ_CHECK(g == NULL, "no instance on error");
	}
	bp_game_destroy(g);
	bp_game_destroy(h);
	free(spec);
	return 0;
}
