/* SPDX-License-Identifier: MIT */
/* boardproof query GAME [POSITION] [--moves M] [--line]: perfect play from the
 * database. Every move is shown with the position it leads to, so that a client can
 * walk the game tree with no game logic of its own; moves are grouped winning,
 * drawing and losing, as tablebase explorers show them. */
#include <stdlib.h>
#include <string.h>

#include "solver/dfpn_db.h"
#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"

/* The longest --line printed: a draw by repetition is cut where a position repeats,
 * so this only guards against a table that is not what it claims. */
#define QUERY_MAX_LINE 4096

static void value_text(struct bp_text *t, enum bp_value v, unsigned rem)
{
	if (rem == BP_RECORD_NO_REMOTENESS)
		bp_text_printf(t, "%s (by repetition)", bp_value_name(v));
	else
		bp_text_printf(t, "%s in %u", bp_value_name(v), rem);
}

static void value_json(struct bp_text *t, enum bp_value v, unsigned rem)
{
	bp_text_printf(t, "\"value\": \"%s\", \"remoteness\": ", bp_value_name(v));
	if (rem == BP_RECORD_NO_REMOTENESS)
		bp_text_printf(t, "null");
	else
		bp_text_printf(t, "%u", rem);
}

static const char *const group_name[] = {
	[BP_VALUE_WIN] = "winning", [BP_VALUE_DRAW] = "drawing", [BP_VALUE_LOSS] = "losing"
};

/* The perfect-play line from p: the first (best) move each time, until the game ends
 * or a position repeats (a draw by repetition keeps cycling). */
static int line_out(const struct bp_game *g, bp_table *tab, const struct bp_pos *start,
		    struct bp_probe_move *pm, int json, struct bp_text *out)
{
	struct bp_pos p = *start;
	struct bp_pos *seen = malloc(sizeof *seen * QUERY_MAX_LINE);
	if (!seen)
		return BP_ENOMEM;
	int nseen = 0, rc = BP_OK;
	const char *end = "the game is over";
	bp_text_printf(out, json ? ", \"line\": [" : "perfect-play line:\n");
	for (int ply = 1;; ply++) {
		if (g->ops->outcome(g, &p))
			break;
		int repeat = -1;
		for (int i = 0; i < nseen && repeat < 0; i++)
			if (bp_pos_equal(&seen[i], &p))
				repeat = i;
		if (repeat >= 0) {
			end = "the position repeats: a draw by repetition";
			break;
		}
		if (nseen == QUERY_MAX_LINE) {
			end = "the line is cut here";
			break;
		}
		seen[nseen++] = p;
		int n = bp_probe_moves(g, tab, &p, pm);
		if (n < 0) {
			rc = n;
			goto out;
		}
		if (n == 0)
			break;
		struct bp_text m = { 0 }, pt = { 0 };
		g->ops->move_format(g, &p, pm[0].move, &m);
		g->ops->apply(g, &p, pm[0].move);
		g->ops->pos_format(g, &p, &pt);
		if (json) {
			bp_text_printf(out, "%s{\"move\": ", ply > 1 ? ", " : "");
			bp_text_json_string(out, bp_text_str(&m));
			bp_text_printf(out, ", ");
			value_json(out, pm[0].value, pm[0].remoteness);
			bp_text_printf(out, ", \"position\": ");
			bp_text_json_string(out, bp_text_str(&pt));
			bp_text_printf(out, "}");
		} else {
			bp_text_printf(out, "  %3d. %-10s ", ply, bp_text_str(&m));
			value_text(out, pm[0].value, pm[0].remoteness);
			bp_text_printf(out, "  -> %s\n", bp_text_str(&pt));
		}
		if (m.failed || pt.failed) /* a line without its moves is no answer */
			out->failed = 1;
		bp_text_free(&m);
		bp_text_free(&pt);
	}
	if (json) {
		bp_text_printf(out, "], \"line_end\": ");
		bp_text_json_string(out, end);
	} else {
		enum bp_value v = g->ops->outcome(g, &p);
		bp_text_printf(out, "  %s", end);
		if (v)
			bp_text_printf(out, ": %s for the player to move", bp_value_name(v));
		bp_text_printf(out, "\n");
	}
out:
	free(seen);
	return rc;
}

/* The saved proof's answer to each move of a position (proof_replies). */
struct replies {
	int answered; /* a saved proof answers every move */
	int all_wins; /* ... each with a win (else some with a draw at least) */
	int n;
	char **move, **answer; /* answer NULL: the move ends the game */
};

static void replies_free(struct replies *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->move[i]);
		free(r->answer[i]);
	}
	free(r->move);
	free(r->answer);
	*r = (struct replies){ 0 };
}

static char *move_text(const struct bp_game *g, const struct bp_pos *p, struct bp_move m)
{
	struct bp_text t = { 0 };
	g->ops->move_format(g, p, m, &t);
	char *s = t.failed ? NULL : strdup(bp_text_str(&t));
	bp_text_free(&t);
	return s;
}

/* Whether the saved proofs of g answer every move of p (not over) with a decision of
 * the player who moves next, or the move ends the game as the strategy's goal asks
 * (that player wins; under a not-lose strategy, or draws): into r, each move and its
 * answer. @return 1 answered; 0 not; < 0 an error (err says what). */
static int proof_replies(const struct bp_game *g, bp_store *db, const struct bp_pos *p,
			 struct replies *r, struct bp_err *err)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = mv ? g->ops->moves(g, p, mv) : 0, rc = 0;
	struct bp_pos *c = malloc(sizeof *c * (size_t)(n ? n : 1));
	struct bp_move *ans = malloc(sizeof *ans * (size_t)(n ? n : 1));
	struct bp_proof_decision *d = malloc(sizeof *d * (size_t)(n ? n : 1));
	uint8_t *found = malloc((size_t)(n ? n : 1));
	r->move = calloc((size_t)(n ? n : 1), sizeof *r->move);
	r->answer = calloc((size_t)(n ? n : 1), sizeof *r->answer);
	if (!mv || !c || !ans || !d || !found || !r->move || !r->answer) {
		rc = bp_err_set(err, BP_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		c[i] = *p;
		g->ops->apply(g, &c[i], mv[i]);
	}
	if ((rc = bp_dfpn_proof_moves(db, g, c, n, ans, d, found, err)) < 0)
		goto out;
	int wins = 1, answered = 1;
	for (int i = 0; i < n && answered; i++) {
		enum bp_value v = g->ops->outcome(g, &c[i]); /* for the player who moves next */
		if (v != BP_VALUE_NONE)
			answered = v == BP_VALUE_WIN || v == BP_VALUE_DRAW,
			wins &= v == BP_VALUE_WIN;
		else
			answered = found[i], wins &= found[i] && d[i].goal == 0;
	}
	rc = 0;
	if (!answered || n == 0)
		goto out;
	r->answered = 1;
	r->all_wins = wins;
	for (int i = 0; i < n; i++, r->n++) {
		r->move[i] = move_text(g, p, mv[i]);
		r->answer[i] = found[i] ? move_text(g, &c[i], ans[i]) : NULL;
		if (!r->move[i] || (found[i] && !r->answer[i])) {
			r->n++;
			rc = bp_err_set(err, BP_ENOMEM, "out of memory");
			goto out;
		}
	}
	rc = 1;
out:
	free(mv);
	free(c);
	free(ans);
	free(d);
	free(found);
	return rc;
}

/* A position that no solved table holds but proof-number search proved (`prove`):
 * its value (or bound) from the proven values, without remoteness; and where it is
 * one of the decisions of a saved proof (`prove --save-proof`), the proof's move there
 * (then the value is known from the proof even where no proven value was kept: a
 * subtree too small to record). @return 1 when answered, 0 when not, -1 when the
 * proven values or proofs cannot be read (*rc gets the exit code; the error is
 * printed). */
static int answer_proven(const char *cmd, bp_store *db, const struct bp_game *g,
			 const struct bp_pos *p, const struct bp_text *pos, int json, int *rc)
{
	static const char *const names[] = { "loss", "draw", "win" };
	struct bp_dfpn_bound b;
	int prc = bp_dfpn_proven_get(db, g, p, &b);
	if (prc < 0) {
		bp_cli_error(cmd, "reading the proven values of %s: %s", g->spec,
			     prc == BP_EFORMAT ? "written by an older boardproof (no checksums)"
					       : bp_strerror(prc));
		*rc = bp_cli_exit_code(prc);
		return -1;
	}
	struct bp_move pm;
	struct bp_proof_decision pd;
	struct bp_err err = { { 0 } };
	int frc = bp_dfpn_proof_move(db, g, p, &pm, &pd, &err);
	if (frc < 0) {
		bp_cli_error(cmd, "reading the saved proofs of %s: %s", g->spec,
			     err.msg[0] ? err.msg : bp_strerror(frc));
		*rc = bp_cli_exit_code(frc);
		return -1;
	}
	/* not a decision: where a saved proof answers every move of p, p is its other
	 * player's position (a loss, or at most a draw under a not-lose strategy) */
	struct replies rp = { 0 };
	if (frc != 1 && (prc != 1 || b.hi < 1)) {
		int rrc = proof_replies(g, db, p, &rp, &err);
		if (rrc < 0) {
			bp_cli_error(cmd, "reading the saved proofs of %s: %s", g->spec,
				     err.msg[0] ? err.msg : bp_strerror(rrc));
			*rc = bp_cli_exit_code(rrc);
			replies_free(&rp);
			return -1;
		}
		if (rrc == 1 && prc != 1)
			b.lo = -1, b.hi = rp.all_wins ? -1 : 0;
	}
	if (prc != 1 && frc != 1 && !rp.answered) {
		replies_free(&rp);
		return 0;
	}
	char value[32];
	if (pos->failed) {
		bp_cli_error(cmd, "out of memory");
		*rc = BP_EXIT_IO;
		replies_free(&rp);
		return -1;
	}
	if (prc != 1 && frc == 1) /* the decision alone: its goal for the player to move */
		b.lo = pd.goal == 0 ? 1 : 0, b.hi = 1;
	if (b.lo == b.hi)
		snprintf(value, sizeof value, "%s", names[b.lo + 1]);
	else
		snprintf(value, sizeof value, "%s", b.lo == 0 ? "at least draw" : "at most draw");
	struct bp_text mt = { 0 }, t = { 0 };
	if (frc == 1)
		g->ops->move_format(g, p, pm, &mt);
	const char *shows = frc == 1 && pd.goal == 0 ? "it wins" : "it does not lose";
	if (json) {
		bp_text_printf(&t, "{\"instance\": ");
		bp_text_json_string(&t, g->spec);
		bp_text_printf(&t, ", \"position\": ");
		bp_text_json_string(&t, bp_text_str(pos));
		bp_text_printf(&t, ", \"value\": \"%s\", \"remoteness\": null, \"source\": \"%s\"",
			       value, prc == 1 ? "proven" : "proof");
		bp_text_printf(&t, ", \"proof_move\": ");
		if (frc == 1)
			bp_text_json_string(&t, bp_text_str(&mt));
		else
			bp_text_printf(&t, "null");
		bp_text_printf(&t, ", \"proof_replies\": ");
		if (!rp.answered)
			bp_text_printf(&t, "null");
		for (int i = 0; rp.answered && i < rp.n; i++) {
			bp_text_printf(&t, "%s{\"move\": ", i ? ", " : "[");
			bp_text_json_string(&t, rp.move[i]);
			bp_text_printf(&t, ", \"answer\": ");
			if (rp.answer[i])
				bp_text_json_string(&t, rp.answer[i]);
			else
				bp_text_printf(&t, "null");
			bp_text_printf(&t, "}%s", i + 1 == rp.n ? "]" : "");
		}
		if (rp.answered && !rp.n)
			bp_text_printf(&t, "[]");
		bp_text_printf(&t, "}\n");
	} else {
		bp_text_printf(
			&t,
			"position: %s\nvalue:    %s for the player to move (%s; no remoteness, "
			"no table)\n",
			bp_text_str(pos), value,
			prc == 1 ? "proven by prove" : "shown by a saved proof");
		if (frc == 1)
			bp_text_printf(&t, "move:     %s (a saved proof's: %s)\n", bp_text_str(&mt),
				       shows);
		if (rp.answered) {
			bp_text_printf(&t, "replies:  the saved proof's answer to each move\n");
			for (int i = 0; i < rp.n; i++)
				bp_text_printf(&t, "  %-8s %s\n", rp.move[i],
					       rp.answer[i] ? rp.answer[i] : "(the game is over)");
		}
	}
	replies_free(&rp);
	int failed = t.failed || mt.failed;
	if (!failed)
		fputs(bp_text_str(&t), stdout);
	bp_text_free(&t);
	bp_text_free(&mt);
	if (failed) {
		bp_cli_error(cmd, "out of memory");
		*rc = BP_EXIT_IO;
		return -1;
	}
	return 1;
}

int bp_cmd_query(int argc, char **argv)
{
	const char *cmd = "query";
	static const char *const valued[] = { "db", "moves", NULL };
	struct bp_cli_args a;
	struct bp_game *fam = NULL, *member = NULL;
	const struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct bp_probe_move *pm = NULL;
	struct bp_text out = { 0 }, pos = { 0 };
	char *ptext = NULL;
	struct bp_pos p, fp;
	/* --line is this command's own flag: take it out before the shared parser */
	int line = bp_cli_take_flag(&argc, argv, "--line");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		goto out;
	if (a.npos < 1) {
		bp_cli_error(cmd, "missing GAME (see boardproof query --help)");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	ptext = bp_cmd_join(&a, 1);
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &fam)) ||
	    (rc = bp_cli_open_position_moves(cmd, fam, ptext, a.opt[1], &fp)))
		goto out;
	/* a family spec: the member the position belongs to (its own table), with the
	 * position carried into that member's frame */
	if ((rc = bp_cli_open_member(cmd, fam, &fp, &member, &p)))
		goto out;
	g = member ? member : fam;
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[0]), BP_STORE_READONLY, &db)))
		goto out;
	bp_cli_position_text(g, &p, &pos);
	/* no table of the instance: a value that prove proved, if any */
	if (bp_probe_open(db, g, &tab, NULL) == BP_ENOTFOUND &&
	    answer_proven(cmd, db, g, &p, &pos, a.json, &rc))
		goto out;
	/* the table, or the error (another rules version, not solved) */
	if (!tab && (rc = bp_cli_open_table(cmd, db, g, &tab)))
		goto out;
	struct bp_probe pr;
	int prc = bp_probe_position(g, tab, &p, &pr);
	if (prc == BP_ENOTFOUND && answer_proven(cmd, db, g, &p, &pos, a.json, &rc))
		goto out;
	if (prc) {
		if (prc == BP_ENOTFOUND)
			bp_cli_error(cmd,
				     "position '%s' is not in the solved table of %s (not "
				     "reachable from "
				     "the start, or its tier is not solved yet)",
				     bp_text_str(&pos), g->spec);
		else
			bp_cli_error(cmd, "reading %s: %s%s%s%s", g->spec, bp_strerror(prc),
				     *bp_probe_why(tab) ? " (" : "", bp_probe_why(tab),
				     *bp_probe_why(tab) ? ")" : "");
		/* damage is exit 3; no memory or an I/O error, exit 4 */
		rc = prc == BP_ENOTFOUND ? BP_EXIT_USAGE : bp_cli_exit_code(prc);
		goto out;
	}
	pm = malloc(sizeof *pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	if (!pm) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	int n = bp_probe_moves(g, tab, &p, pm);
	if (n < 0) {
		bp_cli_error(cmd, "reading the moves' values of %s: %s%s%s%s", g->spec,
			     bp_strerror(n), *bp_probe_why(tab) ? " (" : "", bp_probe_why(tab),
			     *bp_probe_why(tab) ? ")" : "");
		rc = n == BP_ENOTFOUND ? BP_EXIT_DB : bp_cli_exit_code(n);
		goto out;
	}
	enum bp_value over = g->ops->outcome(g, &p);
	if (a.json) {
		bp_text_printf(&out, "{\"instance\": ");
		bp_text_json_string(&out, g->spec);
		bp_text_printf(&out, ", \"position\": ");
		bp_text_json_string(&out, bp_text_str(&pos));
		bp_text_printf(&out, ", ");
		value_json(&out, pr.value, pr.remoteness);
		bp_text_printf(&out, ", \"terminal\": %s, \"moves\": [", over ? "true" : "false");
		for (int i = 0; i < n; i++) {
			struct bp_text m = { 0 }, child = { 0 };
			struct bp_pos c = p;
			g->ops->move_format(g, &p, pm[i].move, &m);
			g->ops->apply(g, &c, pm[i].move);
			g->ops->pos_format(g, &c, &child);
			bp_text_printf(&out, "%s{\"move\": ", i ? ", " : "");
			bp_text_json_string(&out, bp_text_str(&m));
			bp_text_printf(&out, ", ");
			value_json(&out, pm[i].value, pm[i].remoteness);
			bp_text_printf(&out, ", \"group\": \"%s\", \"position\": ",
				       group_name[pm[i].value]);
			bp_text_json_string(&out, bp_text_str(&child));
			bp_text_printf(&out, "}");
			if (m.failed || child.failed)
				out.failed = 1;
			bp_text_free(&m);
			bp_text_free(&child);
		}
		bp_text_printf(&out, "]");
	} else {
		if (member && strcmp(g->spec, fam->spec))
			bp_text_printf(&out, "instance: %s (of the family %s)\n", g->spec,
				       fam->spec);
		bp_text_printf(&out, "position: %s\nvalue:    ", bp_text_str(&pos));
		value_text(&out, pr.value, pr.remoteness);
		bp_text_printf(&out, " for the player to move%s\n",
			       over ? " (the game is over)" : "");
		/* bp_probe_moves sorts wins, then draws, then losses: print a heading at
		 * each change */
		enum bp_value group = BP_VALUE_NONE;
		for (int i = 0; i < n; i++) {
			if (pm[i].value != group) {
				group = pm[i].value;
				bp_text_printf(&out,
					       "%s moves (best first; value for the mover, "
					       "then the position it leads to):\n",
					       group_name[group]);
			}
			struct bp_text m = { 0 }, child = { 0 };
			struct bp_pos c = p;
			g->ops->move_format(g, &p, pm[i].move, &m);
			g->ops->apply(g, &c, pm[i].move);
			g->ops->pos_format(g, &c, &child);
			size_t before = out.len;
			bp_text_printf(&out, "  %-10s ", bp_text_str(&m));
			value_text(&out, pm[i].value, pm[i].remoteness);
			int used = (int)(out.len - before);
			bp_text_printf(&out, "%*s %s\n", used < 34 ? 34 - used : 0, "",
				       bp_text_str(&child));
			if (m.failed || child.failed)
				out.failed = 1;
			bp_text_free(&m);
			bp_text_free(&child);
		}
	}
	if (line) {
		int lrc = line_out(g, tab, &p, pm, a.json, &out);
		if (lrc) {
			bp_cli_error(cmd, "reading the line of %s: %s", g->spec, bp_strerror(lrc));
			rc = lrc == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
			goto out;
		}
	}
	if (a.json)
		bp_text_printf(&out, "}\n");
	if (out.failed || pos.failed) { /* never an answer cut short */
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	fputs(bp_text_str(&out), stdout);
out:
	free(pm);
	free(ptext);
	bp_text_free(&out);
	bp_text_free(&pos);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(member);
	bp_game_destroy(fam);
	return rc;
}
