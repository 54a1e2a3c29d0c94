/* SPDX-License-Identifier: MIT */
/* The corruption campaign's helper (bench/corrupt.sh):
 *
 *   corrupt_tool flip FILE SEED N        changes N random bytes of FILE (each XORed with a
 *                                        random nonzero byte; splitmix64 from SEED) and
 *                                        prints their offsets
 *   corrupt_tool bit FILE OFFSET BIT     flips one bit of FILE
 *   corrupt_tool where DIR TABLE TIER BLOCK
 *                                        prints "OFFSET LENGTH" of the stored value of
 *                                        block BLOCK of tier TIER of table TABLE in
 *                                        DIR/data.mdb (found by its bytes in the file)
 *
 *   corrupt_tool kvwhere DIR DBNAME MIN
 *                                        prints "OFFSET LENGTH" of the shortest stored
 *                                        value of at least MIN bytes in the named LMDB
 *                                        database DBNAME (a key space of store/kv.h):
 *                                        its live copy in DIR/data.mdb
 *
 *   corrupt_tool kvdump DIR DBNAME OUTDIR BYTE
 *                                        writes each value of that key space, without
 *                                        its checksum and behind one byte BYTE, to a
 *                                        file OUTDIR/kvN (seeds for tests/fuzz)
 *
 * Exit 0 on success, 1 on any failure (with a message on stderr). */
#define _GNU_SOURCE
#include <errno.h>
#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "tests/rng.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int spill(const char *path, const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "r+b");
	if (!f)
		return 1;
	int bad = fwrite(buf, 1, len, f) != len;
	return fclose(f) != 0 || bad;
}

static int cmd_flip(const char *path, uint64_t seed, unsigned long n)
{
	size_t len;
	unsigned char *buf = slurp(path, &len);
	if (!buf || len == 0) {
		fprintf(stderr, "corrupt_tool: %s: cannot read\n", path);
		return 1;
	}
	uint64_t st = seed;
	for (unsigned long i = 0; i < n; i++) {
		size_t off = (size_t)(splitmix64(&st) % len);
		unsigned char x = (unsigned char)(1 + splitmix64(&st) % 255);
		buf[off] ^= x;
		printf("%zu%c", off, i + 1 < n ? ' ' : '\n');
	}
	int rc = spill(path, buf, len);
	free(buf);
	return rc;
}

static int cmd_bit(const char *path, size_t off, unsigned bit)
{
	size_t len;
	unsigned char *buf = slurp(path, &len);
	if (!buf || off >= len || bit > 7) {
		fprintf(stderr, "corrupt_tool: %s: no byte %zu\n", path, off);
		free(buf);
		return 1;
	}
	buf[off] ^= (unsigned char)(1u << bit);
	int rc = spill(path, buf, len);
	free(buf);
	return rc;
}

static int cmd_where(const char *dir, const char *table, uint32_t tier, uint64_t block)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	uint8_t key[BP_CODEC_KEY_SIZE];
	MDB_val k = { sizeof key, key }, v;
	int rc, ret = 1;
	bp_codec_key(key, tier, block);
	if ((rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 4096)) ||
	    (rc = mdb_env_open(env, dir, MDB_RDONLY | MDB_NOTLS, 0664)) ||
	    (rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = mdb_dbi_open(txn, table, 0, &dbi)) || (rc = mdb_get(txn, dbi, &k, &v))) {
		fprintf(stderr, "corrupt_tool: %s %s: %s\n", dir, table, mdb_strerror(rc));
		goto out;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	size_t len;
	unsigned char *file = slurp(path, &len);
	const unsigned char *at = file ? memmem(file, len, v.mv_data, v.mv_size) : NULL;
	if (at && memmem(at + 1, len - (size_t)(at - file) - 1, v.mv_data, v.mv_size))
		at = NULL; /* not unique: cannot tell which copy is live */
	if (at) {
		printf("%zu %zu\n", (size_t)(at - file), v.mv_size);
		ret = 0;
	} else {
		fprintf(stderr, "corrupt_tool: block %u/%llu: not found once in %s\n", tier,
			(unsigned long long)block, path);
	}
	free(file);
out:
	if (txn)
		mdb_txn_abort(txn);
	if (env)
		mdb_env_close(env);
	return ret;
}

/* Where this process mapped the file at path from its start (LMDB's map: LMDB does
 * not tell unless the map is fixed), from /proc/self/maps; NULL if not found. */
static const unsigned char *map_of(const char *path)
{
	char want[4096], line[8192];
	if (!realpath(path, want))
		return NULL;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return NULL;
	const unsigned char *at = NULL;
	while (!at && fgets(line, sizeof line, f)) {
		unsigned long lo, off;
		int name = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %n", &lo, &off, &name) >= 2 && name > 0 &&
		    off == 0 && strcmp(line + name, want) == 0)
			at = (const unsigned char *)lo;
	}
	fclose(f);
	return at;
}

static int cmd_kvwhere(const char *dir, const char *name, size_t min)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	int rc, ret = 1;
	char path[4096];
	size_t len, best = 0, best_len = 0;
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	unsigned char *file = slurp(path, &len);
	if (!file || (rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 4096)) ||
	    (rc = mdb_env_open(env, dir, MDB_RDONLY | MDB_NOTLS, 0664)) ||
	    (rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = mdb_dbi_open(txn, name, 0, &dbi)) || (rc = mdb_cursor_open(txn, dbi, &cur))) {
		fprintf(stderr, "corrupt_tool: %s %s: cannot read\n", dir, name);
		goto out;
	}
	/* the live copy: where LMDB's map holds it (stale copies of a leaf page may
	 * linger in free pages, so the bytes alone do not tell) */
	const unsigned char *map = map_of(path);
	if (!map) {
		fprintf(stderr, "corrupt_tool: %s: not found in /proc/self/maps\n", path);
		goto out;
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (v.mv_size < min || (best_len && v.mv_size >= best_len))
			continue;
		const unsigned char *p = v.mv_data;
		if (p < map || (size_t)(p - map) + v.mv_size > len ||
		    memcmp(file + (p - map), p, v.mv_size) != 0)
			continue;
		best = (size_t)(p - map);
		best_len = v.mv_size;
	}
	if (best_len) {
		printf("%zu %zu\n", best, best_len);
		ret = 0;
	} else
		fprintf(stderr, "corrupt_tool: %s: no value of %zu bytes or more\n", name, min);
out:
	if (cur)
		mdb_cursor_close(cur);
	if (txn)
		mdb_txn_abort(txn);
	if (env)
		mdb_env_close(env);
	free(file);
	return ret;
}

static int cmd_kvdump(const char *dir, const char *name, const char *out, unsigned byte)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	int rc, ret = 1, n = 0;
	if ((rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 4096)) ||
	    (rc = mdb_env_open(env, dir, MDB_RDONLY | MDB_NOTLS, 0664)) ||
	    (rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) ||
	    (rc = mdb_dbi_open(txn, name, 0, &dbi)) || (rc = mdb_cursor_open(txn, dbi, &cur))) {
		fprintf(stderr, "corrupt_tool: %s %s: %s\n", dir, name, mdb_strerror(rc));
		goto out;
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		char path[4096];
		snprintf(path, sizeof path, "%s/kv%d", out, n++);
		FILE *f = fopen(path, "wb");
		unsigned char b = (unsigned char)byte;
		size_t len = v.mv_size >= 8 ? v.mv_size - 8 : 0;
		if (!f || fwrite(&b, 1, 1, f) != 1 || fwrite(v.mv_data, 1, len, f) != len) {
			fprintf(stderr, "corrupt_tool: %s: cannot write\n", path);
			if (f)
				fclose(f);
			goto out;
		}
		fclose(f);
	}
	ret = 0;
out:
	if (cur)
		mdb_cursor_close(cur);
	if (txn)
		mdb_txn_abort(txn);
	if (env)
		mdb_env_close(env);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "kvdump") == 0)
		return cmd_kvdump(argv[2], argv[3], argv[4], (unsigned)strtoul(argv[5], NULL, 0));
	if (argc == 5 && strcmp(argv[1], "kvwhere") == 0)
		return cmd_kvwhere(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (argc == 5 && strcmp(argv[1], "flip") == 0)
		return cmd_flip(argv[2], strtoull(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 5 && strcmp(argv[1], "bit") == 0)
		return cmd_bit(argv[2], strtoull(argv[3], NULL, 0),
			       (unsigned)strtoul(argv[4], NULL, 0));
	if (argc == 6 && strcmp(argv[1], "where") == 0)
		return cmd_where(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 0),
				 strtoull(argv[5], NULL, 0));
	fprintf(stderr, "usage: corrupt_tool flip FILE SEED N | bit FILE OFFSET BIT | where DIR "
			"TABLE TIER BLOCK | kvwhere DIR DBNAME MIN | kvdump DIR DBNAME OUTDIR "
			"BYTE\n");
	return 1;
}
