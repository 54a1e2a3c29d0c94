/* SPDX-License-Identifier: MIT */
#include "tools/cli.h"

#include <assert.h>
#include <stdlib.h>

#include "solver/probe.h"
#include "store/store.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static int json_errors;
static char json_message[1024];
static char error_prefix[32]; /* "rank R: " in an MPI job, else empty */

void bp_cli_error_rank(int rank)
{
	if (rank < 0)
		error_prefix[0] = '\0';
	else
		snprintf(error_prefix, sizeof error_prefix, "rank %d: ", rank);
}

void bp_cli_json_errors(int on)
{
	json_errors = on;
	json_message[0] = '\0';
}

void bp_cli_json_error_flush(const char *cmd, int rc)
{
	if (!json_errors || !json_message[0])
		return;
	struct bp_text t = { 0 };
	bp_text_printf(&t, "{\"error\": {\"command\": ");
	bp_text_json_string(&t, cmd);
	bp_text_printf(&t, ", \"message\": ");
	bp_text_json_string(&t, json_message);
	bp_text_printf(&t, ", \"exit\": %d}}\n", rc);
	if (t.failed) /* out of memory: the message without JSON escapes is unsafe */
		fprintf(stderr,
			"{\"error\": {\"command\": \"%s\", \"message\": \"out of memory\", "
			"\"exit\": %d}}\n",
			cmd, rc);
	else
		fputs(bp_text_str(&t), stderr);
	bp_text_free(&t);
	json_message[0] = '\0';
}

void bp_cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	if (json_errors) {
		if (json_message[0])
			return; /* the first error is the one that stopped the command */
		size_t k = strlen(error_prefix);
		memcpy(json_message, error_prefix, k + 1);
		va_start(ap, fmt);
		vsnprintf(json_message + k, sizeof json_message - k, fmt, ap);
		va_end(ap);
		return;
	}
	/* one write: the ranks of an MPI job share a stderr, and their lines must not mix */
	char line[2048];
	int k = snprintf(line, sizeof line, "boardproof: %s: %s", cmd, error_prefix);
	if (k < 0 || (size_t)k >= sizeof line - 1)
		k = 0;
	va_start(ap, fmt);
	vsnprintf(line + k, sizeof line - 1 - (size_t)k, fmt, ap);
	va_end(ap);
	k = (int)strlen(line);
	line[k] = '\n';
	fwrite(line, 1, (size_t)k + 1, stderr);
}

int bp_cli_exit_code(int rc)
{
	switch (rc) {
	case BP_OK: return BP_EXIT_OK;
	case BP_ESPEC:
	case BP_EPARSE:
	case BP_EILLEGAL:
	case BP_EINVAL:
	case BP_ERANGE: return BP_EXIT_USAGE;
	case BP_ECORRUPT:
	case BP_EFORMAT:
	case BP_ERULES:
	case BP_ENOTFOUND: return BP_EXIT_DB;
	case BP_EUNSUPPORTED: return BP_EXIT_PROBLEM;
	default: return BP_EXIT_IO;
	}
}

void bp_cli_tick_line(int tty, int *open, const char *line)
{
	if (tty) {
		fprintf(stderr, "\r\033[K%s", line);
		*open = 1;
	} else {
		fprintf(stderr, "%s\n", line);
	}
}

void bp_cli_end_tick_line(int tty, int *open)
{
	if (*open && tty)
		fputs("\r\033[K", stderr);
	*open = 0;
}

int bp_cli_print_text(const char *cmd, const struct bp_text *t)
{
	if (t->failed) {
		bp_cli_error(cmd, "out of memory");
		return BP_EXIT_IO;
	}
	fputs(bp_text_str(t), stdout);
	return 0;
}

static const char *const cli_flags[] = { "json", "help", "progress", "stats", NULL };

int bp_cli_parse(const char *cmd, int argc, char **argv, const char *const *valued,
		 struct bp_cli_args *out)
{
	memset(out, 0, sizeof *out);
	int only_positional = 0;
	for (int i = 1; i < argc; i++) {
		char *arg = argv[i];
		if (only_positional || arg[0] != '-' || arg[1] != '-') {
			if (!only_positional && arg[0] == '-' && arg[1] &&
			    !(arg[1] >= '0' && arg[1] <= '9')) {
				if (strcmp(arg, "-h") == 0) {
					out->help = 1;
					continue;
				}
				bp_cli_error(cmd, "unknown option '%s' (see boardproof %s --help)",
					     arg, cmd);
				return BP_EXIT_USAGE;
			}
			if (out->npos == (int)(sizeof out->pos / sizeof out->pos[0])) {
				bp_cli_error(cmd, "too many arguments at '%s'", arg);
				return BP_EXIT_USAGE;
			}
			out->pos[out->npos++] = arg;
			continue;
		}
		if (arg[2] == '\0') {
			only_positional = 1;
			continue;
		}
		const char *name = arg + 2;
		char *eq = strchr(arg, '=');
		size_t namelen = eq ? (size_t)(eq - name) : strlen(name);
		int matched = 0;
		for (int f = 0; cli_flags[f]; f++)
			if (strlen(cli_flags[f]) == namelen &&
			    strncmp(cli_flags[f], name, namelen) == 0) {
				if (eq) {
					bp_cli_error(cmd, "option --%s takes no value",
						     cli_flags[f]);
					return BP_EXIT_USAGE;
				}
				int *slot[] = { &out->json, &out->help, &out->progress,
						&out->stats };
				*slot[f] = 1;
				matched = 1;
			}
		for (int v = 0; valued && valued[v] && !matched; v++) {
			assert(v < (int)(sizeof out->opt / sizeof out->opt[0]));
			if (strlen(valued[v]) == namelen &&
			    strncmp(valued[v], name, namelen) == 0) {
				if (eq) {
					out->opt[v] = eq + 1;
				} else if (i + 1 < argc) {
					out->opt[v] = argv[++i];
				} else {
					bp_cli_error(cmd, "option --%s needs a value", valued[v]);
					return BP_EXIT_USAGE;
				}
				matched = 1;
			}
		}
		if (!matched) {
			bp_cli_error(cmd, "unknown option '--%.*s' (see boardproof %s --help)",
				     (int)namelen, name, cmd);
			return BP_EXIT_USAGE;
		}
	}
	return 0;
}

int bp_cli_take_flag(int *argc, char **argv, const char *name)
{
	int kept = 1, found = 0, options = 1;
	for (int i = 1; i < *argc; i++) {
		options &= strcmp(argv[i], "--") != 0;
		if (options && strcmp(argv[i], name) == 0)
			found = 1;
		else
			argv[kept++] = argv[i];
	}
	if (*argc > 0) {
		argv[kept] = NULL;
		*argc = kept;
	}
	return found;
}

int bp_cli_maybe_help(const char *cmd, const struct bp_cli_args *a)
{
	if (!a->help)
		return 0;
	for (int i = 0; bp_commands[i].name; i++)
		if (strcmp(bp_commands[i].name, cmd) == 0)
			fputs(bp_commands[i].help, stdout);
	return 1;
}

int bp_cli_open_game(const char *cmd, const char *spec, struct bp_game **g)
{
	struct bp_err err = { { 0 } };
	int rc = bp_game_create(spec, g, &err);
	if (rc) {
		bp_cli_error(cmd, "%s", err.msg[0] ? err.msg : bp_strerror(rc));
		return bp_cli_exit_code(rc);
	}
	return 0;
}

int bp_cli_open_member(const char *cmd, const struct bp_game *g, const struct bp_pos *p,
		       struct bp_game **member, struct bp_pos *q)
{
	char spec[256];
	*member = NULL;
	*q = *p;
	if (!bp_game_is_family(g))
		return 0;
	if (!g->ops->family_member) {
		bp_cli_error(cmd, "%s stands for several instances: name one", g->spec);
		return BP_EXIT_USAGE;
	}
	int rc = g->ops->family_member(g, p, spec, sizeof spec, q);
	if (rc) {
		bp_cli_error(cmd, "%s: finding the instance of the position: %s", g->spec,
			     bp_strerror(rc));
		return bp_cli_exit_code(rc);
	}
	return bp_cli_open_game(cmd, spec, member);
}

int bp_cli_game_status(const char *cmd, const struct bp_game *g)
{
	int rc = bp_game_status(g);
	if (!rc)
		return 0;
	bp_cli_error(cmd, "%s: a rule could not be evaluated: %s", g->spec, bp_strerror(rc));
	return bp_cli_exit_code(rc);
}

int bp_cli_open_position(const char *cmd, const struct bp_game *g, const char *text,
			 struct bp_pos *p)
{
	struct bp_err err = { { 0 } };
	int rc = bp_game_parse_position(g, text, p, &err);
	if (rc) {
		bp_cli_error(cmd, "bad position '%s': %s", text,
			     err.msg[0] ? err.msg : bp_strerror(rc));
		return bp_cli_exit_code(rc);
	}
	return 0;
}

int bp_cli_apply_moves(const char *cmd, const struct bp_game *g, const char *moves,
		       struct bp_pos *p)
{
	struct bp_err err = { { 0 } };
	int rc = bp_game_play_line(g, p, moves, " \t\n", 0, NULL, NULL, NULL, &err);
	if (rc == BP_ENOMEM) {
		bp_cli_error(cmd, "out of memory");
		return BP_EXIT_IO;
	}
	if (rc) {
		bp_cli_error(cmd, "%s", err.msg);
		return BP_EXIT_USAGE;
	}
	return 0;
}

int bp_cli_open_position_moves(const char *cmd, const struct bp_game *g, const char *text,
			       const char *moves, struct bp_pos *p)
{
	int rc = bp_cli_open_position(cmd, g, text, p);
	if (!rc && moves)
		rc = bp_cli_apply_moves(cmd, g, moves, p);
	return rc;
}

void bp_cli_position_text(const struct bp_game *g, const struct bp_pos *p, struct bp_text *t)
{
	bp_text_clear(t);
	g->ops->pos_format(g, p, t);
}

const char *bp_cli_remoteness(unsigned rem, int json, char buf[24])
{
	if (rem == BP_RECORD_NO_REMOTENESS)
		return json ? "null" : "by repetition";
	snprintf(buf, 24, json ? "%u" : "in %u", rem);
	return buf;
}

double bp_cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

void bp_cli_catch_sigint(struct bp_cli_sigint *s, int once)
{
	struct sigaction sa = { .sa_handler = on_sigint, .sa_flags = once ? SA_RESETHAND : 0 };
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	s->caught = sigaction(SIGINT, &sa, &s->old) == 0;
}

void bp_cli_release_sigint(struct bp_cli_sigint *s)
{
	if (s->caught)
		sigaction(SIGINT, &s->old, NULL);
	s->caught = 0;
}

int bp_cli_interrupted(void)
{
	return interrupted;
}

int bp_cli_cancel(void *ctx)
{
	(void)ctx;
	return bp_cli_interrupted();
}

int bp_cli_parse_u64(const char *text, uint64_t *out)
{
	char *end;
	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (*end || errno == ERANGE)
		return -1;
	*out = v;
	return 0;
}

int bp_cli_parse_bytes(const char *text, uint64_t *out)
{
	char *end;
	if (!text || text[0] < '0' || text[0] > '9')
		return -1;
	unsigned long long v = strtoull(text, &end, 10);
	int shift = 0;
	switch (*end) {
	case 'K':
	case 'k':
		shift = 10;
		end++;
		break;
	case 'M':
	case 'm':
		shift = 20;
		end++;
		break;
	case 'G':
	case 'g':
		shift = 30;
		end++;
		break;
	case 'T':
	case 't':
		shift = 40;
		end++;
		break;
	default: break;
	}
	if (*end || v > (~0ull >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

const char *bp_cli_db_path(const char *opt)
{
	if (opt)
		return opt;
	const char *env = getenv("BOARDPROOF_DB");
	if (env && *env)
		return env;
	static char path[4096];
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		snprintf(path, sizeof path, "%s/boardproof/db", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.local/share/boardproof/db", home);
	else
		return "/tmp/boardproof-db"; /* no home at all: say so in every message */
	return path;
}

int bp_cli_open_store(const char *cmd, const char *path, int flags, struct bp_store **out)
{
	struct bp_err err = { { 0 } };
	int rc = bp_store_open(path, flags, out, &err);
	if (rc == BP_ENOTFOUND) {
		bp_cli_error(cmd, "no database at %s (solve something first, or give --db DIR)",
			     path);
		return BP_EXIT_DB;
	}
	if (rc) {
		bp_cli_error(cmd, "database %s: %s", path, err.msg[0] ? err.msg : bp_strerror(rc));
		return rc == BP_EFORMAT || rc == BP_ECORRUPT ? BP_EXIT_DB : bp_cli_exit_code(rc);
	}
	return 0;
}

void bp_cli_rules_error(const char *cmd, const char *spec, const char *msg)
{
	bp_cli_error(cmd,
		     "%s; its values are of another reading of the rules and are not used. "
		     "Re-solve it with 'boardproof solve %s --replace' (which replaces the old "
		     "table), or into another database with --db DIR",
		     msg, spec);
}

int bp_cli_open_table(const char *cmd, struct bp_store *db, const struct bp_game *g,
		      struct bp_table **out)
{
	struct bp_err err = { { 0 } };
	int rc = bp_probe_open(db, g, out, &err);
	if (rc == BP_ERULES) {
		bp_cli_rules_error(cmd, g->spec, err.msg);
		return BP_EXIT_DB;
	}
	if (rc == BP_ENOTFOUND) {
		bp_cli_error(cmd, "%s is not solved in this database (run boardproof solve %s)",
			     g->spec, g->spec);
		return BP_EXIT_DB;
	}
	if (rc) {
		bp_cli_error(cmd, "table %s: %s", g->spec, err.msg[0] ? err.msg : bp_strerror(rc));
		return BP_EXIT_DB;
	}
	return 0;
}

int bp_cli_threads(const char *cmd, const char *text, int *out)
{
	char *end;
	*out = 0;
	if (!text)
		return 0;
	long n = strtol(text, &end, 10);
	if (end == text || *end || n < 1 || n > 1024) {
		bp_cli_error(cmd, "bad --threads '%s' (a whole number from 1 to 1024)", text);
		return BP_EXIT_USAGE;
	}
	*out = (int)n;
	return 0;
}
