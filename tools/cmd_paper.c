/* SPDX-License-Identifier: MIT */
/* boardproof paper FAMILY --db DIR --out DIR: one Markdown write-up of a game family
 * from the database, with SVG figures: the rules version and reading, every solved
 * instance with its start value, each instance's opening map, the verdicts on the
 * family's claims with witnesses, and the commands that regenerate each part. The
 * text holds no times, paths or dates, so that regenerating it from the same tables
 * gives the same bytes (the test compares a regenerated paper with a committed one). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "solver/claims.h"
#include "solver/dfpn_db.h"
#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/svg.h"

struct specs {
	const char *family;
	char **spec;
	int n, cap;
	int failed; /* out of memory: a table left out */
};

static void collect(void *ctx, const char *spec)
{
	struct specs *s = ctx;
	size_t len = strlen(s->family);
	if (strncmp(spec, s->family, len) != 0 || spec[len] != ':')
		return;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		char **grown = realloc(s->spec, sizeof *grown * (size_t)cap);
		if (!grown) {
			s->failed = 1;
			return;
		}
		s->spec = grown;
		s->cap = cap;
	}
	s->spec[s->n] = strdup(spec);
	if (s->spec[s->n])
		s->n++;
	else
		s->failed = 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file name for a spec: letters and digits kept, everything else '-'. */
static void slug(const char *spec, char *out, size_t len)
{
	size_t i = 0;
	for (; spec[i] && i + 1 < len; i++) {
		char c = spec[i];
		out[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-';
	}
	out[i] = '\0';
}

static void value_md(struct bp_text *t, enum bp_value v, unsigned rem)
{
	if (rem == BP_RECORD_NO_REMOTENESS)
		bp_text_printf(t, "%s by repetition", bp_value_name(v));
	else
		bp_text_printf(t, "%s in %u", bp_value_name(v), rem);
}

/* The family's saved proofs (bp_dfpn_db_saved) under this tool's rules version, as
 * table rows: instance, root position, value, decisions, sorted by instance then root
 * text. A damaged one stops the collection (rc, why). */
struct proofs_md {
	const char *family;
	char **row; /* "instance\troot\tvalue\tdecisions", sorted at the end */
	int n, cap, rc;
	char why[300];
};

static int proof_row(void *ctx, const struct bp_dfpn_saved *it)
{
	struct proofs_md *pm = ctx;
	size_t len = strlen(pm->family);
	if (it->kind != BP_DFPN_SAVED_PROOF || strncmp(it->spec, pm->family, len) != 0 ||
	    it->spec[len] != ':' || it->rules_version != BP_RULES_VERSION)
		return 0;
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	struct bp_text pos = { 0 }, row = { 0 };
	int rc = it->rc;
	if (rc)
		snprintf(err.msg, sizeof err.msg, "%s", it->why ? it->why : "");
	else if ((rc = bp_game_create(it->spec, &g, &err)) == BP_OK &&
		 (rc = bp_game_pos_check(g, &it->proof.root, &err)) == BP_OK)
		g->ops->pos_format(g, &it->proof.root, &pos);
	bp_game_destroy(g);
	if (rc) {
		pm->rc = rc == BP_ENOMEM ? rc : BP_ECORRUPT;
		snprintf(pm->why, sizeof pm->why, "a saved proof of %.100s: %.150s", it->spec,
			 err.msg[0] ? err.msg : bp_strerror(rc));
		bp_text_free(&pos);
		return pm->rc;
	}
	bp_text_printf(&row, "%s\t%s\t%s\t%llu", it->spec, bp_text_str(&pos),
		       bp_value_name(it->proof.value), (unsigned long long)it->proof.decisions);
	bp_text_free(&pos);
	if (pm->n == pm->cap) {
		int cap = pm->cap ? 2 * pm->cap : 16;
		char **grown = realloc(pm->row, sizeof *grown * (size_t)cap);
		if (!grown) {
			bp_text_free(&row);
			return pm->rc = BP_ENOMEM;
		}
		pm->row = grown;
		pm->cap = cap;
	}
	if (row.failed || !(pm->row[pm->n] = strdup(bp_text_str(&row)))) {
		bp_text_free(&row);
		return pm->rc = BP_ENOMEM;
	}
	pm->n++;
	bp_text_free(&row);
	return 0;
}

/* The section of the family's saved proofs, when the database holds any. @return 0
 * or an exit code (a damaged proof: never a row left out). */
static int proofs_section(const char *cmd, bp_store *db, const char *family, struct bp_text *md)
{
	struct proofs_md pm = { .family = family };
	int rc = bp_dfpn_db_saved(db, proof_row, &pm);
	if (!rc && pm.rc)
		rc = pm.rc;
	if (rc) {
		bp_cli_error(cmd, "reading the saved proofs: %s",
			     pm.why[0] ? pm.why : bp_strerror(rc));
		rc = bp_cli_exit_code(rc);
	} else if (pm.n) {
		qsort(pm.row, (size_t)pm.n, sizeof *pm.row, by_name);
		bp_text_printf(
			md, "\n## Proofs beyond the tables\n\n"
			    "Values that proof-number search proved without a table (`boardproof "
			    "prove GAME --save-proof`), each with its saved proof: the winner's "
			    "move at each of its turns and every reply (a draw: both sides' "
			    "strategies), which `boardproof verify GAME --proofs --db DIR` "
			    "re-derives from the rules alone. No remoteness is known.\n\n"
			    "| instance | position | value | decisions |\n|---|---|---|---|\n");
		for (int i = 0; i < pm.n; i++) {
			char *f[4], *r = pm.row[i];
			for (int k = 0; k < 4; k++) {
				f[k] = r;
				r = strchr(r, '\t');
				if (r)
					*r++ = '\0';
				else
					r = "";
			}
			bp_text_printf(md, "| `%s` | `%s` | %s | %s |\n", f[0], f[1], f[2], f[3]);
		}
	}
	for (int i = 0; i < pm.n; i++)
		free(pm.row[i]);
	free(pm.row);
	return rc;
}

/* One instance's section. @return 0 or an exit code. */
static int instance(const char *cmd, bp_store *db, const char *spec, const char *out_dir,
		    const char *family, int progress, struct bp_text *md)
{
	struct bp_game *g = NULL;
	bp_table *tab = NULL;
	struct bp_probe_move *pm = NULL;
	struct bp_svg_mark *marks = NULL;
	struct bp_text svg = { 0 }, pos = { 0 };
	int rc = bp_cli_open_game(cmd, spec, &g);
	if (rc)
		return rc;
	if ((rc = bp_cli_open_table(cmd, db, g, &tab)))
		goto out;
	struct bp_table_meta m;
	int mrc = bp_table_meta_get(tab, &m);
	if (mrc) {
		bp_cli_error(cmd, "reading the metadata of %s: %s", spec, bp_strerror(mrc));
		rc = bp_cli_exit_code(mrc);
		goto out;
	}
	uint64_t positions = 0, counts[4] = { 0 };
	uint32_t done = 0;
	for (uint32_t t = 0; t < m.ntiers; t++) {
		done += m.tier_done[t];
		for (int v = 1; v < 4; v++) {
			positions += m.tier_count[(size_t)t * 4 + v];
			counts[v] += m.tier_count[(size_t)t * 4 + v];
		}
	}
	struct bp_pos start;
	g->ops->start(g, &start);
	bp_cli_position_text(g, &start, &pos);
	bp_text_printf(md, "\n## `%s`\n\n", spec);
	if (done != m.ntiers) {
		bp_text_printf(md, "Not completely solved (%u of %u tiers): no results.\n", done,
			       m.ntiers);
		goto out;
	}
	struct bp_probe pr;
	int prc = bp_probe_position(g, tab, &start, &pr);
	if (prc == BP_ENOTFOUND) {
		bp_text_printf(md, "The start position has no value in the table.\n");
		goto out;
	}
	if (prc) { /* damage, no memory: an error, not a sentence of the paper */
		bp_cli_error(cmd, "reading the start position of %s: %s", spec, bp_strerror(prc));
		rc = bp_cli_exit_code(prc);
		goto out;
	}
	bp_text_printf(md, "Solved under rules version %u. Start `%s`: **", m.rules_version,
		       bp_text_str(&pos));
	value_md(md, pr.value, pr.remoteness);
	bp_text_printf(md,
		       "** for the first player. %llu positions up to symmetry (win %llu, "
		       "loss %llu, draw %llu).\n\n",
		       (unsigned long long)positions, (unsigned long long)counts[1],
		       (unsigned long long)counts[2], (unsigned long long)counts[3]);
	bp_text_printf(md,
		       "    boardproof solve '%s' --db DIR\n    boardproof verify '%s' --db DIR\n",
		       spec, spec);

	/* the opening map */
	pm = malloc(sizeof *pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	int n = pm ? bp_probe_moves(g, tab, &start, pm) : BP_ENOMEM;
	if (n < 0) {
		bp_cli_error(cmd, "reading the openings of %s: %s", spec, bp_strerror(n));
		rc = n == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
		goto out;
	}
	int nmarks = bp_cmd_value_marks(g, &start, pm, n, &marks);
	if (nmarks < 0) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	char name[300], path[4400];
	slug(spec, name, sizeof name);
	bp_svg_position(g, &start, marks, nmarks, spec,
			"first moves: W win, D draw, L loss; turns to the end", &svg);
	snprintf(path, sizeof path, "%s/%s/%s-openings.svg", out_dir, family, name);
	if ((rc = bp_cmd_write_file(cmd, path, &svg)))
		goto out;
	int c[4] = { 0 };
	for (int i = 0; i < n; i++)
		c[pm[i].value]++;
	bp_text_printf(md,
		       "\n### Openings\n\n%d first moves: %d win, %d draw, %d lose for the first "
		       "player. Each cell shows the best first move that places a stone there.\n\n"
		       "![openings of %s](%s/%s-openings.svg)\n\n",
		       n, c[1], c[3], c[2], spec, family, name);
	bp_text_printf(md, "| move | value for the first player |\n|---|---|\n");
	for (int i = 0; i < n; i++) {
		struct bp_text mt = { 0 };
		g->ops->move_format(g, &start, pm[i].move, &mt);
		bp_text_printf(md, "| `%s` | ", bp_text_str(&mt));
		value_md(md, pm[i].value, pm[i].remoteness);
		bp_text_printf(md, " |\n");
		if (mt.failed)
			md->failed = 1;
		bp_text_free(&mt);
	}
	bp_text_printf(md, "\n    boardproof openings '%s' --db DIR --svg OUT/%s/%s-openings.svg\n",
		       spec, family, name);

	/* the claims */
	struct bp_cmd_table_oracle to;
	struct bp_oracle o;
	bp_cmd_table_oracle(g, tab, &to, &o);
	bp_cmd_walk_alone(&to, cmd, progress);
	bp_text_printf(md, "\n### Claims\n\n");
	for (int i = 0; bp_claim_names[i]; i++) {
		if (!bp_claim_applies(g, bp_claim_names[i]))
			continue;
		struct bp_claim cl;
		int crc = bp_claim_check(g, bp_claim_names[i], &o, NULL, &cl);
		if (crc) {
			bp_cli_error(cmd, "%s: claim %s: %s", spec, bp_claim_names[i],
				     bp_strerror(crc));
			bp_claim_free(&cl);
			rc = crc == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
			goto out;
		}
		bp_text_printf(md, "- **%s: %s.** %s\n", cl.name, bp_verdict_name(cl.verdict),
			       bp_text_str(&cl.detail));
		if (cl.has_witness)
			bp_text_printf(md,
				       "  Witness (%s):\n\n        boardproof query '%s' '%s' "
				       "--moves '%s' --db DIR\n\n",
				       bp_text_str(&cl.witness_shows), spec,
				       bp_text_str(&cl.witness_position),
				       bp_text_str(&cl.witness_moves));
		if (cl.detail.failed || cl.witness_shows.failed || cl.witness_position.failed ||
		    cl.witness_moves.failed)
			md->failed = 1;
		bp_claim_free(&cl);
	}
	bp_text_printf(md, "\n    boardproof claims '%s' --db DIR\n", spec);
out:
	if (pos.failed) /* a section without its start position (bp_cmd_write_file checks) */
		md->failed = 1;
	free(pm);
	free(marks);
	bp_text_free(&svg);
	bp_text_free(&pos);
	bp_table_close(tab);
	bp_game_destroy(g);
	return rc;
}

int bp_cmd_paper(int argc, char **argv)
{
	const char *cmd = "paper";
	static const char *const valued[] = { "db", "out", NULL };
	struct bp_cli_args a;
	bp_store *db = NULL;
	struct specs s = { 0 };
	struct bp_text md = { 0 };
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected FAMILY (see boardproof paper --help)");
		return BP_EXIT_USAGE;
	}
	const struct bp_game_ops *ops = bp_game_find(a.pos[0]);
	if (!ops) {
		bp_cli_error(cmd, "unknown game family '%s'", a.pos[0]);
		return BP_EXIT_USAGE;
	}
	const char *out_dir = a.opt[1] ? a.opt[1] : "papers";
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[0]), BP_STORE_READONLY, &db)))
		return rc;
	s.family = ops->name;
	int lrc = bp_store_tables(db, collect, &s);
	if (lrc || s.failed) { /* a paper with an instance left out is no paper */
		bp_cli_error(cmd, "listing the tables: %s", bp_strerror(lrc ? lrc : BP_ENOMEM));
		rc = bp_cli_exit_code(lrc ? lrc : BP_ENOMEM);
		goto out;
	}
	qsort(s.spec, (size_t)s.n, sizeof *s.spec, by_name);
	char dir[4400];
	snprintf(dir, sizeof dir, "%s/%s", out_dir, ops->name);
	struct stat st;
	mkdir(out_dir, 0777);
	mkdir(dir, 0777);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		bp_cli_error(cmd, "cannot create %s", dir);
		rc = BP_EXIT_IO;
		goto out;
	}
	bp_text_printf(&md, "# %s\n\n", ops->title);
	bp_text_printf(&md,
		       "Results from the position database, regenerated by\n\n"
		       "    boardproof paper %s --db DIR --out OUT\n\n"
		       "Rules: RULES.md (shared with the repository), rules version %d (this "
		       "tool's); each "
		       "instance below says the version its table was solved under. Values are "
		       "for the player to move; the first player moves at the start. Every "
		       "value was read from a table that `boardproof verify` re-derives from "
		       "the rules.\n\n",
		       ops->name, BP_RULES_VERSION);
	bp_text_printf(&md,
		       "The reading of the rules is the spec's keys (defaults in brackets):\n\n");
	for (int k = 0; ops->options && ops->options[k].key; k++)
		bp_text_printf(&md, "- `%s` [%s]: %s\n", ops->options[k].key,
			       ops->options[k].def ? ops->options[k].def : "none",
			       ops->options[k].help);
	if (!ops->options || !ops->options[0].key)
		bp_text_printf(&md, "- no keys\n");
	bp_text_printf(&md, "\n## Instances\n\n");
	if (!s.n)
		bp_text_printf(&md, "None solved in this database.\n");
	else
		bp_text_printf(&md, "| instance | start value |\n|---|---|\n");
	for (int i = 0; i < s.n; i++) {
		struct bp_game *g = NULL;
		bp_table *tab = NULL;
		struct bp_probe pr;
		struct bp_pos sp;
		bp_text_printf(&md, "| `%s` | ", s.spec[i]);
		struct bp_err err = { { 0 } };
		int prc = bp_game_create(s.spec[i], &g, &err);
		if (!prc)
			prc = bp_probe_open(db, g, &tab, &err);
		if (!prc) {
			g->ops->start(g, &sp);
			prc = bp_probe_position(g, tab, &sp, &pr);
			if (prc == BP_OK)
				value_md(&md, pr.value, pr.remoteness);
			else if (prc == BP_ENOTFOUND) /* its tier is not stored yet */
				bp_text_printf(&md, "unfinished");
		} else if (prc == BP_ENOTFOUND) {
			prc = BP_ECORRUPT; /* listed, but not there: never an empty row */
		}
		bp_text_printf(&md, " |\n");
		bp_table_close(tab);
		bp_game_destroy(g);
		/* damage, no memory, a table that cannot be opened: an error, never a row
		 * left empty or called "unfinished" */
		if (prc && prc != BP_ENOTFOUND) {
			bp_cli_error(cmd, "reading the start position of %s: %s", s.spec[i],
				     err.msg[0] ? err.msg : bp_strerror(prc));
			rc = bp_cli_exit_code(prc);
			goto out;
		}
	}
	rc = proofs_section(cmd, db, ops->name, &md);
	for (int i = 0; i < s.n && !rc; i++)
		rc = instance(cmd, db, s.spec[i], out_dir, ops->name, a.progress, &md);
	if (rc)
		goto out;
	char path[4400];
	snprintf(path, sizeof path, "%s/%s.md", out_dir, ops->name);
	if ((rc = bp_cmd_write_file(cmd, path, &md)))
		goto out;
	if (a.json)
		printf("{\"family\": \"%s\", \"instances\": %d, \"paper\": \"%s\"}\n", ops->name,
		       s.n, path);
	else
		printf("wrote %s (%d instances)\n", path, s.n);
out:
	for (int i = 0; i < s.n; i++)
		free(s.spec[i]);
	free(s.spec);
	bp_text_free(&md);
	if (db)
		bp_store_close(db);
	return rc;
}
