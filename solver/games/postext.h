/* SPDX-License-Identifier: MIT */
/* The common shape of position text (RULES.md section 2), shared by every game:
 *
 *     ROWS TO-MOVE [key=value ...]       e.g.  "x2o/3/.x. o last=x"
 *
 * ROWS lists the board's rows top to bottom, separated by '/', one character a cell
 * and a decimal number for a run of empty cells. This module checks the row count
 * and lengths, the characters, and that keys are neither repeated nor unknown; the
 * game then checks what the characters and keys mean. */
#ifndef BP_SOLVER_GAMES_POSTEXT_H
#define BP_SOLVER_GAMES_POSTEXT_H

#include "canon/board.h"
#include "canon/error.h"
#include "canon/text.h"

#define BP_POSTEXT_MAX_KEYS 8

struct bp_postext {
	char cells[BP_BOARD_MAX_CELLS]; /* one character a cell, '.' when empty */
	char to_move[16];
	int nkeys;
	struct {
		char key[16];
		char value[64];
		int taken;
	} keys[BP_POSTEXT_MAX_KEYS];
};

/* Splits and checks position text. cell_chars lists the game's stone characters
 * ("xo"). @return BP_OK; BP_EPARSE with err saying what and where. */
int bp_postext_parse(const struct bp_board *b, const char *text, const char *cell_chars,
		     struct bp_postext *out, struct bp_err *err);

/* The value of key, marking it as understood; NULL when absent. */
const char *bp_postext_key(struct bp_postext *pt, const char *key);

/* Fails with BP_EPARSE naming the first key that no bp_postext_key() call took. */
int bp_postext_check_keys(const struct bp_postext *pt, struct bp_err *err);

/* Appends ROWS for one character a cell (cells[c], '.' empty), with runs of empty
 * cells as numbers. */
void bp_postext_format_rows(const struct bp_board *b, const char *cells, struct bp_text *out);

#endif
