/* SPDX-License-Identifier: MIT */
#include "solver/games/postext.h"

#include <string.h>

static int parse_rows(const struct bp_board *b, const char *rows, size_t len,
		      const char *cell_chars, char *cells, struct bp_err *err)
{
	size_t i = 0;
	char rname[8];
	for (int row = 0; row < b->nrows; row++) {
		int want = bp_board_row_len(b, row), got = 0;
		int base = b->row_start[row];
		bp_board_row_name(row, rname, sizeof rname);
		while (i < len && rows[i] != '/') {
			char ch = rows[i];
			if (ch >= '1' && ch <= '9') {
				long run = 0;
				while (i < len && rows[i] >= '0' && rows[i] <= '9' &&
				       run <= BP_BOARD_MAX_CELLS)
					run = run * 10 + (rows[i++] - '0');
				if (got + run > want)
					return bp_err_set(err, BP_EPARSE,
							  "row %s has more than %d cells", rname,
							  want);
				for (long k = 0; k < run; k++)
					cells[base + got++] = '.';
				continue;
			}
			if (ch == '0')
				return bp_err_set(
					err, BP_EPARSE,
					"row %s: a run of empty cells cannot be 0 or start with 0",
					rname);
			if (ch != '.' && !strchr(cell_chars, ch))
				return bp_err_set(err, BP_EPARSE,
						  "row %s: unknown cell character '%c' (expected . "
						  "or one of %s)",
						  rname, ch, cell_chars);
			if (got == want)
				return bp_err_set(err, BP_EPARSE, "row %s has more than %d cells",
						  rname, want);
			cells[base + got++] = ch;
			i++;
		}
		if (got != want)
			return bp_err_set(err, BP_EPARSE, "row %s has %d cells, expected %d", rname,
					  got, want);
		if (row + 1 < b->nrows) {
			if (i >= len)
				return bp_err_set(err, BP_EPARSE, "%d rows given, board %s has %d",
						  row + 1, b->name, b->nrows);
			i++; /* the '/' */
		}
	}
	if (i < len)
		return bp_err_set(err, BP_EPARSE, "more than %d rows given for board %s", b->nrows,
				  b->name);
	return BP_OK;
}

/* Copies the next space-separated field into buf; returns its length, or -1 when it
 * does not fit. */
static int next_field(const char **p, char *buf, size_t cap)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
	size_t n = 0;
	while (**p && **p != ' ' && **p != '\t' && **p != '\n' && **p != '\r') {
		if (n + 1 >= cap)
			return -1;
		buf[n++] = *(*p)++;
	}
	buf[n] = '\0';
	return (int)n;
}

int bp_postext_parse(const struct bp_board *b, const char *text, const char *cell_chars,
		     struct bp_postext *out, struct bp_err *err)
{
	memset(out->cells, '.', (size_t)b->ncells);
	out->nkeys = 0;
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	const char *rows = p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	if (p == rows)
		return bp_err_set(err, BP_EPARSE,
				  "empty position (expected ROWS TO-MOVE [key=value ...])");
	int rc = parse_rows(b, rows, (size_t)(p - rows), cell_chars, out->cells, err);
	if (rc)
		return rc;
	int n = next_field(&p, out->to_move, sizeof out->to_move);
	if (n < 0)
		return bp_err_set(err, BP_EPARSE, "side to move is too long");
	if (n == 0)
		return bp_err_set(err, BP_EPARSE, "missing side to move after the rows");
	char field[96];
	for (;;) {
		n = next_field(&p, field, sizeof field);
		if (n < 0)
			return bp_err_set(err, BP_EPARSE, "overlong key in position text");
		if (n == 0)
			break;
		char *eq = strchr(field, '=');
		if (!eq || eq == field || !eq[1])
			return bp_err_set(err, BP_EPARSE, "malformed key '%s' (expected key=value)",
					  field);
		*eq = '\0';
		if (strlen(field) >= sizeof out->keys[0].key ||
		    strlen(eq + 1) >= sizeof out->keys[0].value)
			return bp_err_set(err, BP_EPARSE, "overlong key '%s'", field);
		for (int k = 0; k < out->nkeys; k++)
			if (strcmp(out->keys[k].key, field) == 0)
				return bp_err_set(err, BP_EPARSE, "key '%s' given twice", field);
		if (out->nkeys == BP_POSTEXT_MAX_KEYS)
			return bp_err_set(err, BP_EPARSE, "too many keys");
		strcpy(out->keys[out->nkeys].key, field);
		strcpy(out->keys[out->nkeys].value, eq + 1);
		out->keys[out->nkeys].taken = 0;
		out->nkeys++;
	}
	return BP_OK;
}

const char *bp_postext_key(struct bp_postext *pt, const char *key)
{
	for (int k = 0; k < pt->nkeys; k++)
		if (strcmp(pt->keys[k].key, key) == 0) {
			pt->keys[k].taken = 1;
			return pt->keys[k].value;
		}
	return NULL;
}

int bp_postext_check_keys(const struct bp_postext *pt, struct bp_err *err)
{
	for (int k = 0; k < pt->nkeys; k++)
		if (!pt->keys[k].taken)
			return bp_err_set(err, BP_EPARSE, "unknown key '%s'", pt->keys[k].key);
	return BP_OK;
}

void bp_postext_format_rows(const struct bp_board *b, const char *cells, struct bp_text *out)
{
	for (int row = 0; row < b->nrows; row++) {
		int run = 0;
		if (row)
			bp_text_printf(out, "/");
		for (int c = b->row_start[row]; c < b->row_start[row + 1]; c++) {
			if (cells[c] == '.') {
				run++;
				continue;
			}
			if (run)
				bp_text_printf(out, "%d", run);
			run = 0;
			bp_text_printf(out, "%c", cells[c]);
		}
		if (run)
			bp_text_printf(out, "%d", run);
	}
}
