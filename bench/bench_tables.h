/* SPDX-License-Identifier: MIT */
/* The benchmark programs' list of a database's tables (bp_store_tables' callback). */
#ifndef BP_BENCH_TABLES_H
#define BP_BENCH_TABLES_H

#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_TABLES 4096

struct bench_tables {
	char **spec; /* room for BENCH_MAX_TABLES */
	int n;
};

/* Adds a table's spec to the list (struct bench_tables *ctx); a spec that does not fit
 * or cannot be copied is left out. */
static inline void bench_tables_add(void *ctx, const char *spec)
{
	struct bench_tables *l = ctx;
	if (l->n < BENCH_MAX_TABLES && (l->spec[l->n] = strdup(spec)))
		l->n++;
}

#endif
