/* SPDX-License-Identifier: MIT */
/* Geometry: hex cells are pointy-top hexagons of radius S at
 *
 *     x = sqrt(3) S (q + r / 2),   y = 1.5 S r       (axial q, r; rows by r)
 *
 * which is the text drawing's half-cell offset per row; a ring space is drawn at its
 * own (q, r) the same way. Square cells are squares of side 2S at (2S x, 2S y). The
 * picture is translated so that the bounding box starts after the margin, which holds
 * the row letters (left and right) and the cell numbers (above the top row and below
 * the bottom row). Hex rows start at different columns, so every empty hex cell also
 * carries its name in small grey letters. */
#include "tools/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S 20.0	    /* hex radius; half a square's side */
#define MARGIN 34.0 /* room for labels around the board */
#define LEGEND 56.0 /* room below the board for the caption and legend */
#define SQRT3 1.7320508075688772

struct geo {
	const struct bp_board *b;
	int square;
	double dx, dy; /* translation */
	double w, h;   /* document size */
};

static void raw_xy(const struct geo *g, int q, int r, double *x, double *y)
{
	if (g->square) {
		*x = 2 * S * q;
		*y = 2 * S * r;
	} else {
		*x = SQRT3 * S * (q + r / 2.0);
		*y = 1.5 * S * r;
	}
}

static void cell_xy(const struct geo *g, int cell, double *x, double *y)
{
	raw_xy(g, g->b->cells[cell].q, g->b->cells[cell].r, x, y);
	*x += g->dx;
	*y += g->dy;
}

static void colour_hex(uint32_t c, char out[8])
{
	snprintf(out, 8, "#%06x", (unsigned)(c & 0xffffff));
}

/* Perceived brightness, to write dark text on light stones and the reverse. */
static int is_light(uint32_t c)
{
	unsigned r = c >> 16 & 255, g = c >> 8 & 255, b = c & 255;
	return 299 * r + 587 * g + 114 * b > 140000;
}

static void cell_shape(struct bp_text *o, const struct geo *g, double x, double y, const char *fill,
		       const char *stroke, double opacity)
{
	if (g->square) {
		bp_text_printf(o,
			       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			       "fill=\"%s\" stroke=\"%s\" fill-opacity=\"%.2f\"/>\n",
			       x - S, y - S, 2 * S, 2 * S, fill, stroke, opacity);
		return;
	}
	bp_text_printf(o, "<polygon points=\"");
	for (int k = 0; k < 6; k++) {
		double a = M_PI / 180 * (60 * k - 30);
		bp_text_printf(o, "%s%.1f,%.1f", k ? " " : "", x + S * cos(a), y + S * sin(a));
	}
	bp_text_printf(o, "\" fill=\"%s\" stroke=\"%s\" fill-opacity=\"%.2f\"/>\n", fill, stroke,
		       opacity);
}

static void escaped(struct bp_text *o, const char *s)
{
	for (; *s; s++)
		if (*s == '<')
			bp_text_printf(o, "&lt;");
		else if (*s == '&')
			bp_text_printf(o, "&amp;");
		else if (*s == '>')
			bp_text_printf(o, "&gt;");
		else
			bp_text_printf(o, "%c", *s);
}

static void text_at(struct bp_text *o, double x, double y, double size, const char *fill,
		    const char *s)
{
	bp_text_printf(o,
		       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" fill=\"%s\" "
		       "text-anchor=\"middle\" dominant-baseline=\"central\">",
		       x, y, size, fill);
	escaped(o, s);
	bp_text_printf(o, "</text>\n");
}

uint32_t bp_svg_value_tint(enum bp_value v)
{
	return v == BP_VALUE_WIN ? 0x2e9e3e : v == BP_VALUE_LOSS ? 0xd03a2a : 0x8a8a8a;
}

int bp_svg_move_cells(const struct bp_game *g, const struct bp_pos *p, struct bp_move m, int *cells,
		      int max)
{
	struct bp_pos c = *p;
	g->ops->apply(g, &c, m);
	int n = 0;
	for (int i = 0; i < g->board->ncells && n < max; i++)
		if (g->ops->cell_char(g, p, i) != g->ops->cell_char(g, &c, i))
			cells[n++] = i;
	return n;
}

/* A stand-in palette for games without a picture op. */
static void default_picture(const struct bp_game *g, const struct bp_pos *p, struct bp_picture *pic)
{
	static const uint32_t palette[BP_PICTURE_MAX_CHARS] = { 0x1a1a1a, 0xf5f5f0, 0xd22828,
								0x2850c8, 0xf2c81e, 0x2e9e3e,
								0x9a9a9a, 0x8040a0 };
	for (int c = 0; c < g->board->ncells; c++) {
		char ch = g->ops->cell_char(g, p, c);
		if (ch == '.' || memchr(pic->chars, ch, (size_t)pic->nchars) ||
		    pic->nchars == BP_PICTURE_MAX_CHARS)
			continue;
		pic->chars[pic->nchars] = ch;
		pic->colour[pic->nchars] = palette[pic->nchars];
		pic->nchars++;
	}
}

void bp_svg_position(const struct bp_game *g, const struct bp_pos *p,
		     const struct bp_svg_mark *marks, int nmarks, const char *caption1,
		     const char *caption2, struct bp_text *o)
{
	const struct bp_board *b = g->board;
	struct bp_picture *pic = calloc(1, sizeof *pic);
	if (!pic) {
		o->failed = 1;
		return;
	}
	if (g->ops->picture)
		g->ops->picture(g, p, pic);
	else
		default_picture(g, p, pic);
	struct geo geo = { .b = b, .square = b->shape == BP_SHAPE_SQUARE };
	double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
	for (int c = 0; c < b->ncells + pic->nring; c++) {
		double x, y;
		if (c < b->ncells)
			raw_xy(&geo, b->cells[c].q, b->cells[c].r, &x, &y);
		else
			raw_xy(&geo, pic->ring[c - b->ncells].q, pic->ring[c - b->ncells].r, &x,
			       &y);
		x0 = fmin(x0, x - S);
		x1 = fmax(x1, x + S);
		y0 = fmin(y0, y - S);
		y1 = fmax(y1, y + S);
	}
	geo.dx = MARGIN - x0;
	geo.dy = MARGIN - y0;
	double legend = 16;
	for (int k = 0; k < pic->nchars && pic->name[k]; k++)
		legend += 22 + 7.0 * (double)(strlen(pic->name[k]) + 2);
	geo.w = fmax(fmax(x1 - x0 + 2 * MARGIN, 360), legend + 10);
	for (int k = 0; k < 2; k++) { /* room for the captions (about 7 px a character) */
		const char *cap = k ? caption2 : caption1;
		if (cap)
			geo.w = fmax(geo.w, 7.0 * (double)strlen(cap) + 20);
	}
	geo.h = y1 - y0 + 2 * MARGIN + LEGEND;
	bp_text_printf(o,
		       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		       "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
		       "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		       geo.w, geo.h, geo.w, geo.h);
	char fill[8];
	/* the ring: coloured spaces off the board */
	for (int i = 0; i < pic->nring; i++) {
		double x, y;
		raw_xy(&geo, pic->ring[i].q, pic->ring[i].r, &x, &y);
		colour_hex(pic->ring[i].colour, fill);
		cell_shape(o, &geo, x + geo.dx, y + geo.dy, fill, "#6a5a3a", 0.7);
	}
	/* the cells */
	for (int c = 0; c < b->ncells; c++) {
		double x, y;
		cell_xy(&geo, c, &x, &y);
		cell_shape(o, &geo, x, y, "#eadcb8", "#8a7a5a", 1.0);
	}
	/* marks under the stones: a tint over the cell */
	for (int i = 0; i < nmarks; i++) {
		double x, y;
		cell_xy(&geo, marks[i].cell, &x, &y);
		colour_hex(marks[i].tint, fill);
		cell_shape(o, &geo, x, y, fill, "#8a7a5a", 0.55);
	}
	/* pieces (covering several cells) or stones */
	char *covered = calloc((size_t)b->ncells, 1);
	if (!covered)
		o->failed = 1; /* stones would be drawn over pieces: no picture */
	for (int i = 0; i < pic->npieces; i++) {
		int c = pic->piece[i].cell, n = pic->piece[i].size;
		double x, y;
		cell_xy(&geo, c, &x, &y);
		colour_hex(pic->piece[i].colour, fill);
		bp_text_printf(
			o,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"5\" "
			"fill=\"%s\" stroke=\"#202020\" stroke-width=\"1.5\"/>\n",
			x - S + 2, y - S + 2, 2 * S * n - 4, 2 * S * n - 4, fill);
		for (int dy = 0; dy < n && covered; dy++)
			for (int dx = 0; dx < n; dx++) {
				int cc = bp_board_find(b, b->cells[c].q + dx, b->cells[c].r + dy);
				if (cc >= 0)
					covered[cc] = 1;
			}
	}
	for (int i = 0; i < pic->nlinks; i++) {
		int a = pic->link[i].a, bb = pic->link[i].b;
		int n = 1;
		for (int k = 0; k < pic->npieces; k++)
			if (pic->piece[k].cell == a)
				n = pic->piece[k].size;
		double xa, ya, xb, yb, half = S * (n - 1);
		cell_xy(&geo, a, &xa, &ya);
		xa += half;
		ya += half;
		if (bb >= 0) {
			cell_xy(&geo, bb, &xb, &yb);
			xb += half;
			yb += half;
		} else { /* a side: N -1, S -2, W -3, E -4, just outside the board */
			xb = bb == -3 ? MARGIN - 4 : bb == -4 ? MARGIN + x1 - x0 + 4 : xa;
			yb = bb == -1 ? MARGIN - 4 : bb == -2 ? MARGIN + y1 - y0 + 4 : ya;
		}
		colour_hex(pic->link[i].colour, fill);
		bp_text_printf(
			o,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2.5\" stroke-opacity=\"0.6\" "
			"stroke-linecap=\"round\"/>\n",
			xa, ya, xb, yb, fill);
	}
	for (int c = 0; c < b->ncells; c++) {
		char ch = g->ops->cell_char(g, p, c);
		double x, y;
		cell_xy(&geo, c, &x, &y);
		int marked = 0;
		for (int i = 0; i < nmarks; i++)
			marked |= marks[i].cell == c;
		if (ch == '.') {
			if (!geo.square && !marked) {
				char name[16];
				bp_board_cell_name(b, c, name, sizeof name);
				text_at(o, x, y, 8, "#a89870", name);
			}
			continue;
		}
		if (covered && covered[c])
			continue;
		uint32_t col = 0x808080;
		for (int k = 0; k < pic->nchars; k++)
			if (pic->chars[k] == ch)
				col = pic->colour[k];
		colour_hex(col, fill);
		bp_text_printf(o,
			       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
			       "stroke=\"#202020\" stroke-width=\"1.2\"%s/>\n",
			       x, y, S * 0.72, fill,
			       ch == pic->neutral ? " stroke-dasharray=\"3,2\"" : "");
		if (ch == pic->neutral)
			text_at(o, x, y, 10, "#202020", "n");
	}
	free(covered);
	/* marks' labels over everything */
	for (int i = 0; i < nmarks; i++) {
		double x, y;
		cell_xy(&geo, marks[i].cell, &x, &y);
		char ch = g->ops->cell_char(g, p, marks[i].cell);
		uint32_t under = 0xeadcb8;
		for (int k = 0; k < pic->nchars; k++)
			if (pic->chars[k] == ch)
				under = pic->colour[k];
		text_at(o, x, y, 11, is_light(under) ? "#101010" : "#ffffff", marks[i].label);
	}
	/* margins: row letters left and right, numbers above the top row and below the
	 * bottom row */
	for (int row = 0; row < b->nrows; row++) {
		char name[8];
		bp_board_row_name(row, name, sizeof name);
		double xl, yl, xr, yr;
		cell_xy(&geo, b->row_start[row], &xl, &yl);
		cell_xy(&geo, b->row_start[row + 1] - 1, &xr, &yr);
		double off = geo.square ? 2 * S : SQRT3 * S;
		/* step over ring spaces in the row: the label goes past the outermost */
		for (int i = 0; i < pic->nring; i++) {
			double rx, ry;
			raw_xy(&geo, pic->ring[i].q, pic->ring[i].r, &rx, &ry);
			if (fabs(ry + geo.dy - yl) < 1)
				off = fmax(off,
					   (fmax(xl - rx - geo.dx, rx + geo.dx - xr) + SQRT3 * S) /
						   0.8);
		}
		text_at(o, xl - off * 0.8, yl, 12, "#404040", name);
		text_at(o, xr + off * 0.8, yr, 12, "#404040", name);
	}
	for (int side = 0; side < 2; side++) {
		int row = side ? b->nrows - 1 : 0;
		if (side && geo.square)
			break; /* square columns are straight: numbers once, on top */
		for (int c = b->row_start[row]; c < b->row_start[row + 1]; c++) {
			double x, y;
			char num[16];
			cell_xy(&geo, c, &x, &y);
			snprintf(num, sizeof num, "%d", c - b->row_start[row] + 1);
			double off = pic->nring ? 3.1 * S : 1.55 * S;
			text_at(o, x, side ? y + off : y - off, 11, "#404040", num);
		}
	}
	/* caption and legend */
	double ly = y1 - y0 + 2 * MARGIN + 8;
	for (int k = 0; k < 2; k++) {
		const char *cap = k ? caption2 : caption1;
		if (!cap)
			continue;
		bp_text_printf(o, "<text x=\"10\" y=\"%.1f\" font-size=\"%d\" fill=\"#202020\">",
			       ly + 6 + 16 * k, k ? 11 : 12);
		escaped(o, cap);
		bp_text_printf(o, "</text>\n");
	}
	double lx = 16;
	for (int k = 0; k < pic->nchars && pic->name[k]; k++) {
		colour_hex(pic->colour[k], fill);
		bp_text_printf(o,
			       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" "
			       "stroke=\"#202020\"/>\n"
			       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#202020\" "
			       "dominant-baseline=\"central\">%c %s</text>\n",
			       lx, ly + 38, fill, lx + 10, ly + 38, pic->chars[k], pic->name[k]);
		lx += 22 + 7.0 * (double)(strlen(pic->name[k]) + 2);
	}
	bp_text_printf(o, "</svg>\n");
	free(pic);
}
