/* SPDX-License-Identifier: MIT */
/* Generic part of the game interface: spec parsing (names, boards, keys, defaults,
 * the canonical spelling), and helpers that work for every game. */
#include "solver/games/game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bp_value_name(enum bp_value v)
{
	switch (v) {
	case BP_VALUE_WIN: return "win";
	case BP_VALUE_LOSS: return "loss";
	case BP_VALUE_DRAW: return "draw";
	default: return "none";
	}
}

const struct bp_game_ops *bp_game_find(const char *name)
{
	for (int i = 0; bp_games[i]; i++)
		if (strcmp(bp_games[i]->name, name) == 0)
			return bp_games[i];
	return NULL;
}

static void list_games(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; bp_games[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 bp_games[i]->name);
}

static void list_keys(const struct bp_game_ops *ops, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; ops->options && ops->options[i].key && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 ops->options[i].key);
	if (!buf[0])
		snprintf(buf, len, "none");
}

static int option_index(const struct bp_game_ops *ops, const char *key, size_t keylen)
{
	for (int i = 0; ops->options && ops->options[i].key; i++)
		if (strlen(ops->options[i].key) == keylen &&
		    strncmp(ops->options[i].key, key, keylen) == 0)
			return i;
	return -1;
}

static int check_choice(const struct bp_game_ops *ops, int k, const char *val, struct bp_err *err)
{
	const struct bp_option *o = &ops->options[k];
	if (!o->choices)
		return BP_OK;
	for (int i = 0; o->choices[i]; i++)
		if (strcmp(o->choices[i], val) == 0)
			return BP_OK;
	char allowed[160];
	size_t used = 0;
	allowed[0] = '\0';
	for (int i = 0; o->choices[i] && used < sizeof allowed; i++)
		used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s%s",
					 i ? ", " : "", o->choices[i]);
	return bp_err_set(err, BP_ESPEC, "%s: bad value '%s' for key '%s' (one of: %s)", ops->name,
			  val, o->key, allowed);
}

/* Splits "key=value,key=value" into g->value[], rejecting unknown and repeated keys. */
static int parse_keys(struct bp_game *g, const char *keys, char **store, struct bp_err *err)
{
	const struct bp_game_ops *ops = g->ops;
	char known[160];
	const char *p = keys;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t itemlen = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', itemlen);
		if (!eq || eq == p)
			return bp_err_set(err, BP_ESPEC,
					  "%s: malformed option '%.*s' (expected key=value)",
					  ops->name, (int)itemlen, p);
		size_t keylen = (size_t)(eq - p);
		int k = option_index(ops, p, keylen);
		if (k < 0) {
			list_keys(ops, known, sizeof known);
			return bp_err_set(err, BP_ESPEC, "%s: unknown key '%.*s' (known keys: %s)",
					  ops->name, (int)keylen, p, known);
		}
		if (g->value[k])
			return bp_err_set(err, BP_ESPEC, "%s: key '%s' given twice", ops->name,
					  ops->options[k].key);
		size_t vallen = itemlen - keylen - 1;
		if (vallen == 0)
			return bp_err_set(err, BP_ESPEC, "%s: empty value for key '%s'", ops->name,
					  ops->options[k].key);
		if ((size_t)(*store - g->valbuf) + vallen + 1 > sizeof g->valbuf)
			return bp_err_set(err, BP_ESPEC, "%s: options too long", ops->name);
		memcpy(*store, eq + 1, vallen);
		(*store)[vallen] = '\0';
		g->value[k] = *store;
		*store += vallen + 1;
		int rc = check_choice(ops, k, g->value[k], err);
		if (rc)
			return rc;
		if (!end)
			break;
		p = end + 1;
		if (!*p)
			return bp_err_set(err, BP_ESPEC, "%s: trailing comma in spec", ops->name);
	}
	return BP_OK;
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp((*(const struct bp_option *const *)a)->key,
		      (*(const struct bp_option *const *)b)->key);
}

static int spell(struct bp_game *g, struct bp_err *err)
{
	const struct bp_option *sorted[BP_GAME_MAX_OPTIONS];
	int n = 0;
	for (int i = 0; g->ops->options && g->ops->options[i].key; i++)
		sorted[n++] = &g->ops->options[i];
	qsort(sorted, (size_t)n, sizeof sorted[0], cmp_keys);
	size_t used =
		(size_t)snprintf(g->spec, sizeof g->spec, "%s:%s", g->ops->name, g->board->name);
	for (int i = 0; i < n; i++) {
		const char *v = g->value[sorted[i] - g->ops->options];
		if (v && used < sizeof g->spec)
			used += (size_t)snprintf(g->spec + used, sizeof g->spec - used, ",%s=%s",
						 sorted[i]->key, v);
	}
	if (used >= sizeof g->spec)
		return bp_err_set(err, BP_ESPEC, "spec too long");
	return BP_OK;
}

/* Everything of bp_game_create but ops->create. */
static int parse_spec(const char *spec, struct bp_game **out, struct bp_err *err)
{
	int rc;
	char known[160], boardname[64];
	struct bp_game *g = NULL;
	*out = NULL;
	const char *colon = strchr(spec, ':');
	if (!colon) {
		list_games(known, sizeof known);
		return bp_err_set(err, BP_ESPEC,
				  "malformed game spec '%s' (expected GAME:BOARD, games: %s)", spec,
				  known);
	}
	size_t namelen = (size_t)(colon - spec);
	const struct bp_game_ops *ops = NULL;
	for (int i = 0; bp_games[i]; i++)
		if (strlen(bp_games[i]->name) == namelen &&
		    strncmp(bp_games[i]->name, spec, namelen) == 0)
			ops = bp_games[i];
	if (!ops) {
		list_games(known, sizeof known);
		return bp_err_set(err, BP_ESPEC, "unknown game '%.*s' (games: %s)", (int)namelen,
				  spec, known);
	}
	const char *board = colon + 1;
	const char *comma = strchr(board, ',');
	size_t boardlen = comma ? (size_t)(comma - board) : strlen(board);
	if (boardlen == 0 || boardlen >= sizeof boardname)
		return bp_err_set(err, BP_ESPEC, "%s: missing or overlong board in '%s'", ops->name,
				  spec);
	memcpy(boardname, board, boardlen);
	boardname[boardlen] = '\0';

	g = calloc(1, sizeof *g);
	if (!g)
		return BP_ENOMEM;
	g->ops = ops;
	g->nsym = 1;
	rc = bp_board_create(boardname, &g->board, err);
	if (rc)
		goto out;
	if (!(g->board->shape & ops->shapes)) {
		rc = bp_err_set(
			err, BP_ESPEC, "%s is not played on board '%s' (%s)", ops->name, boardname,
			(ops->shapes & BP_SHAPE_SQUARE) ? "it takes WxH boards"
							: "it takes hexN, rhAxB or triN boards");
		goto out;
	}
	char *store = g->valbuf;
	if (comma) {
		if (!comma[1]) {
			rc = bp_err_set(err, BP_ESPEC, "%s: trailing comma in spec", ops->name);
			goto out;
		}
		rc = parse_keys(g, comma + 1, &store, err);
		if (rc)
			goto out;
	}
	for (int i = 0; ops->options && ops->options[i].key; i++) {
		if (!g->value[i])
			g->value[i] = ops->options[i].def;
		if (!g->value[i] && ops->options[i].required) {
			rc = bp_err_set(err, BP_ESPEC, "%s: key '%s' is required", ops->name,
					ops->options[i].key);
			goto out;
		}
	}
	rc = spell(g, err);
out:
	if (rc) {
		bp_game_destroy(g);
		return rc;
	}
	*out = g;
	return BP_OK;
}

int bp_game_parse_spec(const char *spec, struct bp_game **out, struct bp_err *err)
{
	return parse_spec(spec, out, err);
}

int bp_game_create(const char *spec, struct bp_game **out, struct bp_err *err)
{
	int rc = parse_spec(spec, out, err);
	if (rc)
		return rc;
	struct bp_game *g = *out;
	if ((rc = g->ops->create(g, err))) {
		g->impl = NULL; /* create cleans up after itself on failure */
		bp_game_destroy(g);
		*out = NULL;
	}
	return rc;
}

int bp_game_is_family(const struct bp_game *g)
{
	return g->ops->family_key && !bp_game_option(g, g->ops->family_key);
}

void bp_game_destroy(struct bp_game *g)
{
	if (!g)
		return;
	if (g->impl && g->ops->destroy)
		g->ops->destroy(g);
	bp_board_destroy(g->board);
	free(g);
}

const char *bp_game_option(const struct bp_game *g, const char *key)
{
	int k = option_index(g->ops, key, strlen(key));
	return k < 0 ? NULL : g->value[k];
}

void bp_game_fail(const struct bp_game *g, int code)
{
	int expected = BP_OK;
	/* the flag lives in a non-const object (bp_game_create allocates it), so
	 * writing through the cast is defined */
	__atomic_compare_exchange_n(&((struct bp_game *)g)->failed, &expected, code, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

int bp_game_status(const struct bp_game *g)
{
	return __atomic_load_n(&g->failed, __ATOMIC_RELAXED);
}

struct bp_move *bp_game_move_buffer(const struct bp_game *g)
{
	return malloc(sizeof(struct bp_move) * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
}

int bp_game_pos_check(const struct bp_game *g, const struct bp_pos *p, struct bp_err *err)
{
	struct bp_text t = { 0 };
	struct bp_pos back;
	g->ops->pos_format(g, p, &t);
	int rc = t.failed || !t.s ? bp_err_set(err, BP_ENOMEM, "out of memory")
				  : g->ops->pos_parse(g, t.s, &back, err);
	if (rc == BP_OK && memcmp(&back, p, sizeof back) != 0)
		rc = bp_err_set(err, BP_EPARSE, "its words are not those of the position \"%s\"",
				t.s);
	bp_text_free(&t);
	return rc;
}

uint64_t bp_game_orbit(const struct bp_game *g, const struct bp_pos *p)
{
	if (g->nsym <= 1 || !g->ops->transform)
		return 1;
	int fixed = 0;
	if (g->ops->sym_fixed) {
		fixed = g->ops->sym_fixed(g, p);
	} else {
		struct bp_pos img;
		for (int s = 0; s < g->nsym; s++) {
			bp_pos_clear(&img);
			g->ops->transform(g, p, s, &img);
			fixed += bp_pos_equal(&img, p);
		}
	}
	return fixed > 0 ? (uint64_t)(g->nsym / fixed) : 1;
}

void bp_game_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	if (g->ops->canonical) {
		g->ops->canonical(g, p, out);
		return;
	}
	*out = *p;
	if (!g->ops->transform)
		return;
	struct bp_pos img;
	for (int s = 1; s < g->nsym; s++) {
		g->ops->transform(g, p, s, &img);
		if (memcmp(&img, out, sizeof img) < 0)
			*out = img;
	}
}

int bp_game_parse_position(const struct bp_game *g, const char *text, struct bp_pos *out,
			   struct bp_err *err)
{
	if (!text || strcmp(text, "start") == 0) {
		g->ops->start(g, out);
		return BP_OK;
	}
	return g->ops->pos_parse(g, text, out, err);
}

uint64_t bp_pos_hash(const struct bp_pos *p)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < BP_POS_WORDS; i++) {
		h ^= p->w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	return h;
}

/* Copies at most BP_GAME_LINE_WORD - 1 characters of s (len of them there) into word,
 * each unprintable byte as '?', for a message. */
static void line_word(char word[BP_GAME_LINE_WORD], const char *s, size_t len)
{
	if (len >= BP_GAME_LINE_WORD)
		len = BP_GAME_LINE_WORD - 1;
	for (size_t i = 0; i < len; i++)
		word[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	word[len] = '\0';
}

int bp_game_play_line(const struct bp_game *g, struct bp_pos *p, const char *line, const char *seps,
		      int max, bp_game_line_fn each, void *ctx, int *number, struct bp_err *err)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	char word[BP_GAME_LINE_WORD], shown[BP_GAME_LINE_WORD];
	int n = 0, rc = BP_OK;
	const char *s = line;
	if (number)
		*number = 0;
	if (!mv)
		return bp_err_set(err, BP_ENOMEM, "out of memory");
	for (;;) {
		s += strspn(s, seps);
		if (!*s)
			break;
		size_t len = strcspn(s, seps);
		line_word(shown, s, len);
		n++;
		if (number)
			*number = n;
		if (len >= sizeof word) {
			rc = bp_err_set(err, BP_EPARSE,
					"move %d '%s...': too long (%zu characters)", n, shown,
					len);
			break;
		}
		if (max > 0 && n > max) {
			rc = bp_err_set(err, BP_EPARSE, "move %d '%s': more than %d moves", n,
					shown, max);
			break;
		}
		memcpy(word, s, len);
		word[len] = '\0';
		s += len;
		enum bp_value over = g->ops->outcome(g, p);
		if (over != BP_VALUE_NONE || g->ops->moves(g, p, mv) == 0) {
			rc = bp_err_set(err, BP_EILLEGAL,
					"move %d '%s': the game is already over (%s for the player "
					"to move)",
					n, shown, bp_value_name(over ? over : BP_VALUE_DRAW));
			break;
		}
		struct bp_err why = { { 0 } };
		struct bp_move m;
		if ((rc = g->ops->move_parse(g, p, word, &m, &why))) {
			/* games often start their message with "move TEXT: " already */
			const char *w = why.msg[0] ? why.msg : bp_strerror(rc);
			char head[BP_GAME_LINE_WORD + 8];
			snprintf(head, sizeof head, "move %s: ", word);
			if (strncmp(w, head, strlen(head)) == 0)
				w += strlen(head);
			bp_err_set(err, rc, "move %d '%s': %s", n, shown, w);
			break;
		}
		if (each && (rc = each(ctx, g, p, m)))
			break;
		g->ops->apply(g, p, m);
	}
	if (rc == BP_OK && number)
		*number = 0;
	free(mv);
	return rc;
}

struct walk_mask {
	uint64_t first, *bits;
};

static int walk_mask_visit(void *ctx, const struct bp_walk *w)
{
	struct walk_mask *m = ctx;
	uint64_t i = w->index - m->first;
	m->bits[i / 64] |= 1ull << i % 64;
	return 0;
}

int bp_game_mask_begin(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
		       uint64_t *bits)
{
	uint64_t size;
	int rc = g->ops->tier_size(g, tier, &size);
	if (rc)
		return rc;
	if (first > size || n > size - first)
		return BP_ERANGE;
	memset(bits, 0, sizeof *bits * (((size_t)n + 63) / 64));
	return BP_OK;
}

int bp_game_wins_in_one(const struct bp_game *g, const struct bp_pos *p, struct bp_move *moves)
{
	if (g->ops->outcome(g, p) != BP_VALUE_NONE)
		return 0;
	if (g->ops->wins_now)
		return g->ops->wins_now(g, p);
	int n = g->ops->moves(g, p, moves), won = 0;
	for (int i = 0; i < n && !won; i++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, moves[i]);
		won = g->ops->outcome(g, &c) == BP_VALUE_LOSS;
	}
	return won;
}

int bp_game_walk_mask(const struct bp_game *g, uint32_t tier, uint64_t first, uint32_t n,
		      uint64_t *bits)
{
	int rc = bp_game_mask_begin(g, tier, first, n, bits);
	if (rc)
		return rc;
	struct walk_mask m = { first, bits };
	return g->ops->tier_walk(g, tier, first, first + n, 0, NULL, walk_mask_visit, &m);
}

int bp_game_expand_key_each(const struct bp_game *g, uint32_t tier, const uint64_t key[2],
			    enum bp_value *outcome, int *wins, uint32_t *ctier, uint64_t *keys,
			    uint64_t *lost)
{
	struct bp_pos p;
	if (wins)
		*wins = 0;
	if (g->ops->key_unpack(g, tier, key, &p) != BP_OK)
		return BP_ENOTFOUND;
	if ((*outcome = g->ops->outcome(g, &p)) != BP_VALUE_NONE)
		return 0;
	if (wins && g->ops->wins_at_once)
		*wins = g->ops->wins_at_once(g, &p) == 1;
	int n = g->ops->children_keys(g, &p, ctier, keys);
	if (lost && n > 0)
		memset(lost, 0, sizeof *lost * (size_t)((n + 63) / 64)); /* none known */
	return n;
}
