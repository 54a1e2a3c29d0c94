/* SPDX-License-Identifier: MIT */
/* Model coding of records (see rcmodel.h). Payload layout, as the frame of a block
 * with the model flag (store/codec.c):
 *
 *   offset  size  field
 *        0     1  layout: bit 0 set = every record of value 0 is 0 (a hole), so their
 *                 remoteness is not coded; bit 1 is 0; bits 2-3, 4-5, 6-7 = the parity
 *                 of every remoteness of value 1, 2, 3 (0 not known, 1 even, 2 odd;
 *                 3 is refused)
 *        1     2  stride S, little-endian, >= 1
 *        3     2  stride T, little-endian, >= 1
 *        5     .  the range coder's bytes (the first is always 0, as in LZMA); the
 *                 decoder must end exactly at the last byte
 *
 * The coder. A binary range coder over 32 bits with 12-bit probabilities, as LZMA's
 * "rc" (with one more bit of probability): about ten cheap instructions and one
 * unpredictable branch a decision. Each probability carries a count of the bits it
 * has seen: the first moves it half way to the bit, the next ones a quarter, an eighth
 * ... and from the 16th on a 32nd (LZMA's fixed rate). A block of 16384 records is
 * too short for the fixed rate alone to learn a few hundred contexts from an even
 * start; the counts took 5% to 13% off the model's bits on the tables measured
 * (bench/bench_codec, landscape, blooms and Glorieta).
 *
 * The model. Records are coded in index order, every block from fresh probabilities
 * (a probe decodes its block alone). Three things predict record i:
 *
 *   - the match model: the index after the last place where the MATCH_MIN records
 *     before i occurred (a hash of them), whose record is predicted to come again, for
 *     as long as that holds (what an LZ coder's matches capture: a dense index repeats
 *     whole stretches of records, a periodic pattern of holes, the same sub-board under
 *     each setting of the digits above it);
 *   - two strides S and T, chosen per block by the encoder: for each nonzero record,
 *     the distance back to the last place where the same three records ended, counted,
 *     and the two most frequent (dense indices are mixed-radix numbers whose radices
 *     differ per game, tier and block: 18, 40, 108, 504, 1024 ... so no fixed list
 *     finds them);
 *   - the last nonzero record L (positions interleave with holes in most dense indices,
 *     so record i - 1 alone often says only "hole").
 *
 * Record i is binarised as:
 *
 *   [hint] when the caller's hints mark record i (rcmodel.h: the rules foretell a win
 *     in 1 there, record 5): a decision "it is that record", in the context of
 *     whether the last hint held and record i - 1's value; when it holds, that is the
 *     whole record. A hint that fails (an unreached position the rules still see a win
 *     in, a wrong hint) costs bits, never the record: what follows codes it as any;
 *   [match flag] when the match has held for MATCH_LONG records or more: a decision
 *     "the predicted record again", in the context of the match's length and the
 *     predicted value; when it holds, that is the whole record;
 *   value v: "a position?" (v != 0), then "a win?", then "a loss or a draw?", in the
 *     context of the values of records i - 1, i - S, i - T, L and, when there is a
 *     match, of the predicted record (else record i - 2): 2048 contexts. Asking for
 *     the hole first took 1% to 2% off every table against the value's two bits in
 *     order (which split the holes between both decisions);
 *   remoteness r, unless the layout implies it (holes): in the parity domain q = r / 2
 *     when the layout knows r's parity for v, else q = r. A prediction P of q from the
 *     first of (the match's record, else record i - 1), record i - S and L that has
 *     value v, else from the last record of value v; a decision "q == P" in the context
 *     of (v, where P came from, whether i - 1 and i - S agree, how big P is). When that
 *     fails and record i - S offers a second, different prediction, a decision "q ==
 *     that one". Otherwise the side (q above or below P) and the distance |q - P| in
 *     Elias-gamma form: its bit length in unary, then its bits below the leading one,
 *     each decision with its own probability per (v, side, length, position).
 *
 * The layout's flags leave out the records that a hint foretold, so a table whose wins
 * in 1 were its only odd remoteness of a win keeps the parity shortcut.
 *
 * The parity shortcut is there because a solved game's remoteness often has the
 * parity of its value; in this code base's tables it does not (taifas:4x4: half the
 * wins' remoteness is even, the turn and the remoteness being counted differently),
 * so it only serves tables that have it. The layout flags are found by a pass over
 * the block, so records against a rule (any 16-bit record is accepted) only lose the
 * shortcut.
 *
 * Tried on five tables (taifas:3x5, landscape a1;c3;e3, chicken:rh3x4, blooms:tri4,
 * glorieta:rh3x4 hand 2), model bits per position: the match's record as the whole
 * prediction (a flag on every match, no context): blooms 8.21, the others 8% to 26%
 * worse than with the record as context only (no flag: taifas:3x5 1.41, landscape
 * 2.14, chicken 2.54, glorieta 1.52, blooms 10.25); the flag from 64 records of match
 * on (kept): 1.44, 2.17, 2.60, 1.53 and blooms 8.81; from 16: worse on all but blooms.
 * One stride from a fixed list, scored by value agreement, before the match model:
 * taifas:3x5 1.43, glorieta 2.87 (its radices are in no short list). */
#include "store/rcmodel.h"

#include <assert.h>
#include <string.h>

#define PROB_BITS 12
#define PROB_ONE (1u << PROB_BITS)
#define MOVE_BITS 5
#define TOP (1u << 24)
#define REM_MAX 0x3fffu
#define LEN_MAX 14 /* the bit length of a distance of at most REM_MAX */
#define HEAD 5

typedef uint16_t prob;

enum { SRC_AB, SRC_A, SRC_B, SRC_L, SRC_LAST, NSRC };

#define MATCH_MIN 6
#define MATCH_HASH_BITS 14
#define MATCH_HASH (1u << MATCH_HASH_BITS)
#define MATCH_CTX 24
#define MATCH_LONG 64 /* a match this long codes a flag "the same again" first */
#define RC_HINTED 5u  /* the record a hint foretells: a win (1) in 1 (1 << 2) */

struct model {
	prob match[MATCH_CTX][4];
	prob value[2048][3];
	prob eq[4][NSRC][4];
	prob eq2[4];
	prob side[4][NSRC];
	prob len[4][2][LEN_MAX];
	prob bits[4][2][LEN_MAX + 1][LEN_MAX];
	prob hint[8];
};

static void model_init(struct model *m)
{
	prob *p = (prob *)m;
	for (size_t i = 0; i < sizeof *m / sizeof *p; i++)
		p[i] = (prob)(PROB_ONE / 2 << 4);
}

/* ---- the range coder ---- */

struct enc {
	uint8_t *at, *end;
	uint64_t low;
	uint32_t range;
	uint32_t pending; /* bytes held back for a carry: the cache and pending - 1 0xff */
	uint8_t cache;
	int over;
};

static void enc_put(struct enc *e, uint8_t b)
{
	if (e->at < e->end)
		*e->at++ = b;
	else
		e->over = 1;
}

static void enc_shift(struct enc *e)
{
	if ((uint32_t)e->low < 0xff000000u || (e->low >> 32) != 0) {
		uint8_t carry = (uint8_t)(e->low >> 32), t = e->cache;
		do {
			enc_put(e, (uint8_t)(t + carry));
			t = 0xff;
		} while (--e->pending);
		e->cache = (uint8_t)(e->low >> 24);
	}
	e->pending++;
	e->low = (e->low & 0x00ffffffu) << 8;
}

/* A probability (of a 0) in the high 12 bits and how many bits it has seen (up to 15)
 * in the low 4: the first few bits move it by a half, a quarter, ... (close to the
 * running frequency), later ones by 1/2^MOVE_BITS. A block's 16384 records are too few
 * for the slow rate alone to learn a thousand contexts from an even start. */
static const uint8_t rate[16] = { 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, MOVE_BITS };

static inline void update(prob *s, unsigned bit)
{
	unsigned p = *s >> 4, n = *s & 15u, r = rate[n];
	if (!bit)
		p += (PROB_ONE - p) >> r;
	else
		p -= p >> r;
	*s = (prob)(p << 4 | (n + (n < 15)));
}

static inline void enc_bit(struct enc *e, prob *p, unsigned bit)
{
	uint32_t bound = (e->range >> PROB_BITS) * (*p >> 4);
	if (!bit) {
		e->range = bound;
	} else {
		e->low += bound;
		e->range -= bound;
	}
	update(p, bit);
	while (e->range < TOP) {
		e->range <<= 8;
		enc_shift(e);
	}
}

struct dec {
	const uint8_t *at, *end;
	uint32_t range, code;
	int over;
};

static inline uint8_t dec_next(struct dec *d)
{
	if (d->at < d->end)
		return *d->at++;
	d->over = 1;
	return 0;
}

static inline unsigned dec_bit(struct dec *d, prob *p)
{
	uint32_t bound = (d->range >> PROB_BITS) * (*p >> 4);
	unsigned bit;
	if (d->code < bound) {
		d->range = bound;
		bit = 0;
	} else {
		d->code -= bound;
		d->range -= bound;
		bit = 1;
	}
	update(p, bit);
	/* a probability is at least 1 / 4096 of the range: at most two shifts */
	while (d->range < TOP) {
		d->range <<= 8;
		d->code = d->code << 8 | dec_next(d);
	}
	return bit;
}

/* ---- the model's choices, shared by both directions ---- */

/* The context of a record's remoteness: where its prediction came from. */
struct pred {
	unsigned p1, p2, src, has2;
};

static unsigned bucket(unsigned q)
{
	return q < 2 ? q : q < 4 ? 2 : 3;
}

/* The predictions of q for value v, from the earlier records a, b, l and the last
 * remoteness of value v; shift is 1 in the parity domain. */
static inline struct pred predict(unsigned v, uint16_t a, uint16_t b, uint16_t l, unsigned last,
				  unsigned shift)
{
	struct pred p = { 0, 0, SRC_LAST, 0 };
	unsigned va = a & 3u, vb = b & 3u;
	if (va == v) {
		p.p1 = (unsigned)(a >> 2) >> shift;
		if (vb == v && b == a) {
			p.src = SRC_AB;
		} else {
			p.src = SRC_A;
			if (vb == v) {
				p.p2 = (unsigned)(b >> 2) >> shift;
				p.has2 = p.p2 != p.p1;
			}
		}
	} else if (vb == v) {
		p.p1 = (unsigned)(b >> 2) >> shift;
		p.src = SRC_B;
	} else if ((l & 3u) == v) {
		p.p1 = (unsigned)(l >> 2) >> shift;
		p.src = SRC_L;
	} else {
		p.p1 = last >> shift;
	}
	return p;
}

static unsigned bit_length(unsigned x)
{
	unsigned k = 0;
	while (x) {
		k++;
		x >>= 1;
	}
	return k;
}

static inline unsigned hinted(const uint64_t *hints, uint32_t i)
{
	return hints && (hints[i / 64] >> (i % 64) & 1u);
}

/* The layout byte of a block (see the top of the file); the records that a hint
 * foretells (a win in 1 at a hint) are coded by the hint and do not count. */
static uint8_t layout_of(const uint16_t *r, uint32_t n, const uint64_t *hints)
{
	unsigned hole_nonzero = 0, seen[4] = { 0 }; /* bit 0: an even remoteness, bit 1: odd */
	for (uint32_t i = 0; i < n; i++) {
		if (r[i] == RC_HINTED && hinted(hints, i))
			continue;
		unsigned v = r[i] & 3u;
		seen[v] |= 1u << ((r[i] >> 2) & 1u);
		hole_nonzero |= v == 0 && r[i] != 0;
	}
	uint8_t layout = hole_nonzero ? 0 : 1;
	for (unsigned v = 1; v < 4; v++)
		if (seen[v] == 1 || seen[v] == 2)
			layout |= (uint8_t)(seen[v] << 2 * v);
	return layout;
}

/* The two strides S, T (>= 3) that repeat the block's records most: for each nonzero
 * record, the distance back to the last place where the same three records ended (one
 * hash table, as an LZ match finder does), counted, and the two most frequent taken.
 * Dense indices are mixed-radix numbers whose radices differ per game, tier and block
 * (40, 108, 504, 1024 ...), so no fixed list finds them. hist and last are scratch of
 * n + 1 and RC_HASH entries. */
#define RC_HASH 4096
static void strides_of(const uint16_t *r, uint32_t n, uint16_t s[2], uint16_t *hist, uint32_t *last)
{
	uint32_t lim = n < 65536 ? n : 65536;
	memset(hist, 0, sizeof *hist * lim);
	memset(last, 0xff, sizeof *last * RC_HASH);
	for (uint32_t i = 2; i < n; i++) {
		if (!r[i])
			continue;
		uint32_t h = ((uint32_t)r[i - 2] * 0x9e3779b1u ^ (uint32_t)r[i - 1] * 0x85ebca77u ^
			      (uint32_t)r[i] * 0xc2b2ae3du) >>
			     20;
		uint32_t d = i - last[h];
		last[h] = i;
		if (d >= 3 && d < lim && hist[d] < UINT16_MAX)
			hist[d]++;
	}
	uint32_t best[2] = { 0, 0 };
	s[0] = 3;
	s[1] = 4;
	for (uint32_t d = 3; d < lim; d++) {
		if (hist[d] > best[0]) {
			best[1] = best[0];
			s[1] = s[0];
			best[0] = hist[d];
			s[0] = (uint16_t)d;
		} else if (hist[d] > best[1]) {
			best[1] = hist[d];
			s[1] = (uint16_t)d;
		}
	}
}

/* The match model: where the last MATCH_MIN records occurred before (a hash of them
 * to the index after their last occurrence), the record that followed is predicted to
 * follow again, for as long as the prediction holds. This is what an LZ coder's
 * matches capture: dense indices repeat whole stretches of records (a periodic
 * pattern of holes, the same sub-board under each setting of the digits above it). */
struct match {
	uint32_t ptr, len; /* len 0: no prediction; else records[ptr] is the prediction */
	uint64_t w4, w2;   /* the last 4 records, and the 2 before them, 16 bits each */
	uint32_t at[MATCH_HASH];
};

static void match_init(struct match *mt)
{
	mt->ptr = mt->len = 0;
	mt->w4 = mt->w2 = 0;
	memset(mt->at, 0, sizeof mt->at);
}

static inline unsigned match_ctx(uint32_t len)
{
	if (len < 16)
		return len;
	unsigned k = 16;
	for (uint32_t x = len >> 5; x && k < MATCH_CTX - 1; x >>= 1)
		k++;
	return k;
}

/* Moves the match model past record i (already in r). */
static inline void match_next(struct match *mt, const uint16_t *r, uint32_t i)
{
	if (mt->len) {
		if (r[i] == r[mt->ptr]) {
			mt->len++;
			mt->ptr++;
		} else {
			mt->len = 0;
		}
	}
	/* a rolling window instead of hashing MATCH_MIN records anew: the hash was a third
	 * of the decoding time */
	mt->w2 = (mt->w2 << 16 | mt->w4 >> 48) & 0xffffffffu;
	mt->w4 = mt->w4 << 16 | r[i];
	if (i + 1 < MATCH_MIN)
		return;
	uint32_t h =
		(uint32_t)(((mt->w4 ^ mt->w2 * 0xc2b2ae3d27d4eb4full) * 0x9e3779b185ebca87ull) >>
			   (64 - MATCH_HASH_BITS));
	uint32_t c = mt->at[h];
	mt->at[h] = i + 1;
	if (mt->len || c == 0)
		return;
	uint32_t k = 0;
	while (k < 32 && k < c && r[c - 1 - k] == r[i - k])
		k++;
	if (k >= MATCH_MIN) {
		mt->ptr = c;
		mt->len = k;
	}
}

/* The context of a record's value: the values of the records 1, 2, S and T back and of
 * the last nonzero one. */
static inline unsigned value_ctx(const uint16_t *r, uint32_t i, uint32_t s, uint32_t t, uint16_t l,
				 const struct match *mt)
{
	unsigned a = i ? r[i - 1] & 3u : 0, a2 = i > 1 ? r[i - 2] & 3u : 0;
	unsigned b = i >= s ? r[i - s] & 3u : 0, c = i >= t ? r[i - t] & 3u : 0;
	if (mt->len)
		return 1u << 10 | a << 8 | (r[mt->ptr] & 3u) << 6 | b << 4 | c << 2 | (l & 3u);
	return a << 8 | a2 << 6 | b << 4 | c << 2 | (l & 3u);
}

/* The context of a hint's decision: whether the last hint held, and record i - 1's
 * value. */
static inline unsigned hint_ctx(unsigned held, uint16_t a)
{
	return held << 2 | (a & 3u);
}

long bp_rcmodel_encode(const uint16_t *records, uint32_t n, const uint64_t *hints, uint8_t *out,
		       size_t cap)
{
	if (cap < HEAD + 5)
		return BP_ERANGE;
	uint8_t layout = layout_of(records, n, hints);
	uint16_t st[2], hist[65536];
	uint32_t last_at[RC_HASH];
	strides_of(records, n, st, hist, last_at);
	uint16_t stride = st[0];
	out[0] = layout;
	out[1] = (uint8_t)st[0];
	out[2] = (uint8_t)(st[0] >> 8);
	out[3] = (uint8_t)st[1];
	out[4] = (uint8_t)(st[1] >> 8);
	struct model m;
	model_init(&m);
	struct enc e = { .at = out + HEAD,
			 .end = out + cap,
			 .low = 0,
			 .range = 0xffffffffu,
			 .pending = 1,
			 .cache = 0,
			 .over = 0 };
	unsigned last[4] = { 0 };
	uint16_t l = 0;
	struct match mt;
	match_init(&mt);
	unsigned held = 1;
	for (uint32_t i = 0; i < n && !e.over; i++) {
		uint16_t a = i ? records[i - 1] : 0, b = i >= stride ? records[i - stride] : 0;
		uint16_t rec = records[i];
		unsigned v = rec & 3u, rem = (unsigned)rec >> 2;
		if (hinted(hints, i)) {
			unsigned hit = rec == RC_HINTED;
			enc_bit(&e, &m.hint[hint_ctx(held, a)], !hit);
			held = hit;
			if (hit)
				goto next;
		}
		if (mt.len >= MATCH_LONG) {
			uint16_t guess = records[mt.ptr];
			unsigned hit = rec == guess;
			enc_bit(&e, &m.match[match_ctx(mt.len)][guess & 3u], !hit);
			if (hit)
				goto next;
		}
		unsigned ctx = value_ctx(records, i, st[0], st[1], l, &mt);
		enc_bit(&e, &m.value[ctx][0], v != 0);
		if (v) {
			enc_bit(&e, &m.value[ctx][1], v != 1);
			if (v != 1)
				enc_bit(&e, &m.value[ctx][2], v == 3);
		}
		if (v == 0 && (layout & 1u))
			goto next; /* a hole */
		unsigned par = (layout >> 2 * v) & 3u, shift = v && par ? 1 : 0;
		unsigned q = rem >> shift;
		struct pred p = predict(v, mt.len ? records[mt.ptr] : a, b, l, last[v], shift);
		unsigned hit = q == p.p1;
		enc_bit(&e, &m.eq[v][p.src][bucket(p.p1)], !hit);
		if (hit)
			goto next;
		if (p.has2) {
			hit = q == p.p2;
			enc_bit(&e, &m.eq2[v], !hit);
			if (hit)
				goto next;
		}
		unsigned up = q > p.p1, x = up ? q - p.p1 : p.p1 - q; /* x >= 1 */
		enc_bit(&e, &m.side[v][p.src], up);
		unsigned k = bit_length(x);
		assert(k >= 1 && k <= LEN_MAX);
		for (unsigned j = 0; j + 1 < LEN_MAX; j++) {
			unsigned more = j + 1 < k;
			enc_bit(&e, &m.len[v][up][j], more);
			if (!more)
				break;
		}
		for (unsigned j = k - 1; j-- > 0;)
			enc_bit(&e, &m.bits[v][up][k][j], (x >> j) & 1u);
	next:
		last[v] = rem;
		if (rec)
			l = rec;
		match_next(&mt, records, i);
	}
	for (int i = 0; i < 5; i++)
		enc_shift(&e);
	if (e.over)
		return BP_ERANGE;
	return (long)(e.at - out);
}

/* Decodes the remoteness of a record of value v. @return it, or -1 when out of range. */
static int decode_rem(struct dec *d, struct model *m, unsigned v, uint8_t layout, uint16_t a,
		      uint16_t b, uint16_t l, unsigned last)
{
	unsigned par = (layout >> 2 * v) & 3u, shift = v && par ? 1 : 0;
	struct pred p = predict(v, a, b, l, last, shift);
	unsigned q;
	if (!dec_bit(d, &m->eq[v][p.src][bucket(p.p1)])) {
		q = p.p1;
	} else if (p.has2 && !dec_bit(d, &m->eq2[v])) {
		q = p.p2;
	} else {
		unsigned up = dec_bit(d, &m->side[v][p.src]), k = 1;
		while (k < LEN_MAX && dec_bit(d, &m->len[v][up][k - 1]))
			k++;
		unsigned x = 1;
		for (unsigned j = k - 1; j-- > 0;)
			x = x << 1 | dec_bit(d, &m->bits[v][up][k][j]);
		if (up ? x > (REM_MAX >> shift) - p.p1 : x > p.p1)
			return -1;
		q = up ? p.p1 + x : p.p1 - x;
	}
	unsigned rem = shift ? q << 1 | (par == 2) : q;
	return rem > REM_MAX ? -1 : (int)rem;
}

int bp_rcmodel_decode(const uint8_t *in, size_t len, const uint64_t *hints, uint16_t *records,
		      uint32_t n)
{
	if (len < HEAD + 5)
		return BP_ECORRUPT;
	uint8_t layout = in[0];
	uint16_t stride = (uint16_t)(in[1] | in[2] << 8), stride2 = (uint16_t)(in[3] | in[4] << 8);
	if (stride == 0 || stride2 == 0 || (layout & 2u))
		return BP_ECORRUPT;
	for (unsigned v = 1; v < 4; v++)
		if (((layout >> 2 * v) & 3u) == 3)
			return BP_ECORRUPT;
	struct model m;
	model_init(&m);
	struct dec d = { .at = in + HEAD, .end = in + len, .range = 0xffffffffu, .code = 0 };
	if (dec_next(&d) != 0)
		return BP_ECORRUPT;
	for (int i = 0; i < 4; i++)
		d.code = d.code << 8 | dec_next(&d);
	unsigned last[4] = { 0 };
	uint16_t l = 0;
	struct match mt;
	match_init(&mt);
	unsigned held = 1;
	for (uint32_t i = 0; i < n; i++) {
		uint16_t a = i ? records[i - 1] : 0, b = i >= stride ? records[i - stride] : 0;
		uint16_t rec = 0;
		unsigned hit = 0;
		if (hinted(hints, i))
			held = hit = !dec_bit(&d, &m.hint[hint_ctx(held, a)]);
		if (hit) {
			rec = RC_HINTED;
		} else if (mt.len >= MATCH_LONG &&
			   !dec_bit(&d, &m.match[match_ctx(mt.len)][records[mt.ptr] & 3u])) {
			rec = records[mt.ptr];
		} else {
			unsigned ctx = value_ctx(records, i, stride, stride2, l, &mt);
			unsigned v = 0;
			if (dec_bit(&d, &m.value[ctx][0]))
				v = !dec_bit(&d, &m.value[ctx][1])
					    ? 1
					    : 2 + dec_bit(&d, &m.value[ctx][2]);
			if (v != 0 || !(layout & 1u)) {
				int got = decode_rem(&d, &m, v, layout,
						     mt.len ? records[mt.ptr] : a, b, l, last[v]);
				if (got < 0)
					return BP_ECORRUPT;
				rec = (uint16_t)(v | (unsigned)got << 2);
			}
		}
		records[i] = rec;
		last[rec & 3u] = (unsigned)rec >> 2;
		if (rec)
			l = rec;
		match_next(&mt, records, i);
	}
	if (d.over || d.at != d.end)
		return BP_ECORRUPT;
	return BP_OK;
}
