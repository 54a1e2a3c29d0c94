/* SPDX-License-Identifier: MIT */
#include "solver/parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "canon/error.h"

struct pfor {
	int (*fn)(void *ctx, int worker, uint64_t item);
	void *ctx;
	uint64_t nitems, next;
	int error;
};

struct worker {
	struct pfor *pf;
	int id;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	struct pfor *pf = w->pf;
	for (;;) {
		if (__atomic_load_n(&pf->error, __ATOMIC_RELAXED))
			break;
		uint64_t item = __atomic_fetch_add(&pf->next, 1, __ATOMIC_RELAXED);
		if (item >= pf->nitems)
			break;
		int rc = pf->fn(pf->ctx, w->id, item);
		if (rc) {
			int zero = 0;
			__atomic_compare_exchange_n(&pf->error, &zero, rc, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

int bp_parallel_for(int threads, uint64_t nitems, int (*fn)(void *ctx, int worker, uint64_t item),
		    void *ctx)
{
	struct pfor pf = { fn, ctx, nitems, 0, 0 };
	if (threads < 1)
		threads = 1;
	if ((uint64_t)threads > nitems)
		threads = nitems ? (int)nitems : 1;
	pthread_t *tid = malloc(sizeof *tid * (size_t)threads);
	struct worker *w = malloc(sizeof *w * (size_t)threads);
	if (!tid || !w) {
		free(tid);
		free(w);
		return BP_ENOMEM;
	}
	int started = 1;
	for (int i = 0; i < threads; i++)
		w[i] = (struct worker){ &pf, i };
	for (int i = 1; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, run, &w[i]) != 0)
			break;
		started++;
	}
	run(&w[0]);
	for (int i = 1; i < started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	free(w);
	return pf.error;
}

double bp_parallel_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bp_parallel_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
