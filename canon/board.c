/* SPDX-License-Identifier: MIT */
/* Boards are built from their shape's membership test over a bounding box, in
 * drawing order. Symmetries are found rather than tabulated: each linear map of the
 * lattice's point group (12 for the hex lattice, 8 for the square one) is applied to
 * every cell, the image is translated so that its first cell in (r, q) order lands on
 * the board's first cell, and the map is kept when the image is the board itself.
 * This gives exactly the automorphisms of the drawn figure for every shape, with no
 * per-shape table to get wrong. */
#include "canon/board.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int hex_dirs[6][2] = {
	{ 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 }, { 1, -1 }, { -1, 1 }
};
static const int square_dirs[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };

/* Reads a decimal number >= 2 without a leading zero; returns -1 when absent. */
static long read_size(const char **p)
{
	const char *s = *p;
	long v = 0;
	if (*s < '1' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > 100000)
			return -1;
		s++;
	}
	*p = s;
	return v;
}

static int in_shape(const struct bp_board *b, int q, int r)
{
	switch (b->shape) {
	case BP_SHAPE_HEX: {
		int n = b->a - 1, s = q + r;
		return abs(q) <= n && abs(r) <= n && abs(s) <= n;
	}
	case BP_SHAPE_RHOMBUS:
	case BP_SHAPE_SQUARE: return q >= 0 && q < b->a && r >= 0 && r < b->b;
	case BP_SHAPE_TRIANGLE: return q >= 0 && r >= 0 && q + r <= b->a - 1;
	}
	return 0;
}

/* Applies element t of the lattice's point group to (q, r). Hex: t = 2k + m rotates
 * by k * 60 degrees after reflecting when m = 1; square: the same with 90 degrees. */
static void point_map(int hexcells, int t, int q, int r, int *oq, int *or_)
{
	int k = t / 2;
	if (t % 2) {
		int tmp = q;
		q = r;
		r = tmp;
	}
	for (int i = 0; i < k; i++) {
		int nq, nr;
		if (hexcells) { /* (q, r) -> (-r, q + r): 60 degrees in axial coordinates */
			nq = -r;
			nr = q + r;
		} else { /* (x, y) -> (-y, x): 90 degrees */
			nq = -r;
			nr = q;
		}
		q = nq;
		r = nr;
	}
	*oq = q;
	*or_ = r;
}

static int parse_name(struct bp_board *b, const char *name, struct bp_err *err)
{
	const char *p = name;
	long x, y = 0;
	if (strncmp(p, "hex", 3) == 0) {
		p += 3;
		b->shape = BP_SHAPE_HEX;
		x = read_size(&p);
	} else if (strncmp(p, "tri", 3) == 0) {
		p += 3;
		b->shape = BP_SHAPE_TRIANGLE;
		x = read_size(&p);
	} else if (strncmp(p, "rh", 2) == 0) {
		p += 2;
		b->shape = BP_SHAPE_RHOMBUS;
		x = read_size(&p);
		if (x >= 0 && *p == 'x') {
			p++;
			y = read_size(&p);
		} else {
			y = -1;
		}
	} else if (*p >= '0' && *p <= '9') {
		b->shape = BP_SHAPE_SQUARE;
		x = read_size(&p);
		if (x >= 0 && *p == 'x') {
			p++;
			y = read_size(&p);
		} else {
			y = -1;
		}
	} else {
		return bp_err_set(err, BP_ESPEC,
				  "unknown board '%s' (expected hexN, rhAxB, triN or WxH)", name);
	}
	if (x < 0 || y < 0 || *p != '\0')
		return bp_err_set(err, BP_ESPEC,
				  "malformed board '%s' (expected hexN, rhAxB, triN or WxH with "
				  "numbers written without leading zeros)",
				  name);
	if (x < 2 || (b->shape & (BP_SHAPE_RHOMBUS | BP_SHAPE_SQUARE) && y < 2))
		return bp_err_set(err, BP_ESPEC,
				  "board '%s' is too small (each size must be at least 2)", name);
	long cells;
	switch (b->shape) {
	case BP_SHAPE_HEX: cells = 3 * x * (x - 1) + 1; break;
	case BP_SHAPE_TRIANGLE: cells = x * (x + 1) / 2; break;
	default: cells = x * y; break;
	}
	if (cells > BP_BOARD_MAX_CELLS)
		return bp_err_set(err, BP_ESPEC,
				  "board '%s' has %ld cells, more than the %d supported", name,
				  cells, BP_BOARD_MAX_CELLS);
	b->a = (int)x;
	b->b = (int)y;
	b->ncells = (int)cells;
	switch (b->shape) {
	case BP_SHAPE_HEX: snprintf(b->name, sizeof b->name, "hex%d", b->a); break;
	case BP_SHAPE_TRIANGLE: snprintf(b->name, sizeof b->name, "tri%d", b->a); break;
	case BP_SHAPE_RHOMBUS: snprintf(b->name, sizeof b->name, "rh%dx%d", b->a, b->b); break;
	case BP_SHAPE_SQUARE: snprintf(b->name, sizeof b->name, "%dx%d", b->a, b->b); break;
	}
	return BP_OK;
}

static int build_symmetries(struct bp_board *b)
{
	int hexcells = b->shape != BP_SHAPE_SQUARE;
	int nmaps = hexcells ? 12 : 8;
	b->sym = malloc(sizeof(int) * (size_t)nmaps * (size_t)b->ncells);
	int *img_q = malloc(sizeof(int) * (size_t)b->ncells);
	int *img_r = malloc(sizeof(int) * (size_t)b->ncells);
	if (!b->sym || !img_q || !img_r) {
		free(img_q);
		free(img_r);
		return BP_ENOMEM;
	}
	b->nsym = 0;
	for (int t = 0; t < nmaps; t++) {
		/* first image in (r, q) order */
		int bq = INT_MAX, br = INT_MAX;
		for (int c = 0; c < b->ncells; c++) {
			point_map(hexcells, t, b->cells[c].q, b->cells[c].r, &img_q[c], &img_r[c]);
			if (img_r[c] < br || (img_r[c] == br && img_q[c] < bq)) {
				br = img_r[c];
				bq = img_q[c];
			}
		}
		int dq = b->cells[0].q - bq, dr = b->cells[0].r - br;
		int *perm = b->sym + (size_t)b->nsym * (size_t)b->ncells;
		int ok = 1;
		for (int c = 0; c < b->ncells && ok; c++) {
			int to = bp_board_find(b, img_q[c] + dq, img_r[c] + dr);
			if (to < 0)
				ok = 0;
			perm[c] = to;
		}
		if (ok)
			b->nsym++;
	}
	free(img_q);
	free(img_r);
	return BP_OK;
}

int bp_board_create(const char *name, struct bp_board **out, struct bp_err *err)
{
	int rc;
	struct bp_board *b = calloc(1, sizeof *b);
	if (!b)
		return BP_ENOMEM;
	rc = parse_name(b, name, err);
	if (rc)
		goto out;
	rc = BP_ENOMEM;
	int hexcells = b->shape != BP_SHAPE_SQUARE;
	b->lattice_degree = hexcells ? 6 : 4;
	int n1 = b->a - 1;
	switch (b->shape) {
	case BP_SHAPE_HEX:
		b->qmin = b->rmin = -n1;
		b->qspan = b->rspan = 2 * n1 + 1;
		break;
	case BP_SHAPE_TRIANGLE: b->qspan = b->rspan = b->a; break;
	default:
		b->qspan = b->a;
		b->rspan = b->b;
		break;
	}
	b->grid = malloc(sizeof(int) * (size_t)b->qspan * (size_t)b->rspan);
	b->cells = calloc((size_t)b->ncells, sizeof *b->cells);
	b->row_start = malloc(sizeof(int) * ((size_t)b->rspan + 1));
	if (!b->grid || !b->cells || !b->row_start)
		goto out;
	int n = 0;
	b->nrows = 0;
	for (int r = b->rmin; r < b->rmin + b->rspan; r++) {
		int in_row = 0;
		for (int q = b->qmin; q < b->qmin + b->qspan; q++) {
			int *slot = &b->grid[(r - b->rmin) * b->qspan + (q - b->qmin)];
			*slot = -1;
			if (!in_shape(b, q, r))
				continue;
			if (!in_row)
				b->row_start[b->nrows] = n;
			struct bp_cell *c = &b->cells[n];
			c->q = (int16_t)q;
			c->r = (int16_t)r;
			c->row = (uint16_t)b->nrows;
			c->col = (uint16_t)in_row;
			*slot = n++;
			in_row++;
		}
		if (in_row)
			b->nrows++;
	}
	b->row_start[b->nrows] = n;
	if (n != b->ncells) {
		rc = BP_EINVAL;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct bp_cell *c = &b->cells[i];
		for (int d = 0; d < b->lattice_degree; d++) {
			const int *dir = hexcells ? hex_dirs[d] : square_dirs[d];
			int to = bp_board_find(b, c->q + dir[0], c->r + dir[1]);
			if (to >= 0)
				c->nb[c->degree++] = (int16_t)to;
		}
		c->edge = c->degree < b->lattice_degree;
	}
	rc = build_symmetries(b);
out:
	if (rc) {
		bp_board_destroy(b);
		b = NULL;
	}
	*out = b;
	return rc;
}

void bp_board_destroy(struct bp_board *b)
{
	if (!b)
		return;
	free(b->cells);
	free(b->row_start);
	free(b->sym);
	free(b->grid);
	free(b);
}

int bp_board_find(const struct bp_board *b, int q, int r)
{
	q -= b->qmin;
	r -= b->rmin;
	if (q < 0 || r < 0 || q >= b->qspan || r >= b->rspan)
		return -1;
	return b->grid[r * b->qspan + q];
}

int bp_board_row_name(int row, char *buf, size_t len)
{
	/* bijective base 26, as spreadsheet columns: a..z, aa..az, ba.. */
	char tmp[8];
	int n = 0;
	for (int v = row + 1; v > 0 && n < (int)sizeof tmp; v = (v - 1) / 26)
		tmp[n++] = (char)('a' + (v - 1) % 26);
	int k = 0;
	for (int i = n - 1; i >= 0 && (size_t)k + 1 < len; i--)
		buf[k++] = tmp[i];
	if (len)
		buf[k] = '\0';
	return k;
}

int bp_board_cell_name(const struct bp_board *b, int cell, char *buf, size_t len)
{
	char rows[8];
	bp_board_row_name(b->cells[cell].row, rows, sizeof rows);
	return snprintf(buf, len, "%s%d", rows, b->cells[cell].col + 1);
}

int bp_board_cell_parse(const struct bp_board *b, const char *text, int *cell, int *used,
			struct bp_err *err)
{
	const char *p = text;
	long row = 0, col = 0;
	while (*p >= 'a' && *p <= 'z' && p - text < 4) {
		row = row * 26 + (*p - 'a' + 1);
		p++;
	}
	if (p == text)
		return bp_err_set(err, BP_EPARSE, "expected a cell name at '%.12s'", text);
	if (*p < '1' || *p > '9')
		return bp_err_set(err, BP_EPARSE,
				  "cell name '%.12s' needs a row number after its letters", text);
	const char *digits = p;
	while (*p >= '0' && *p <= '9' && p - digits < 6) {
		col = col * 10 + (*p - '0');
		p++;
	}
	int len = (int)(p - text);
	if (row > b->nrows || col > bp_board_row_len(b, (int)row - 1))
		return bp_err_set(err, BP_EPARSE, "no cell '%.*s' on board %s", len, text, b->name);
	*cell = b->row_start[row - 1] + (int)col - 1;
	*used = len;
	return BP_OK;
}

int bp_board_draw_x(const struct bp_board *b, int cell)
{
	const struct bp_cell *c = &b->cells[cell];
	if (b->shape == BP_SHAPE_SQUARE)
		return 2 * c->q;
	/* x = 2q + r places each hex row half a cell from its neighbours */
	int minx = INT_MAX;
	for (int r = 0; r < b->nrows; r++) {
		const struct bp_cell *f = &b->cells[b->row_start[r]];
		if (2 * f->q + f->r < minx)
			minx = 2 * f->q + f->r;
	}
	return 2 * c->q + c->r - minx;
}
