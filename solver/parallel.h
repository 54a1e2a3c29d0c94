/* SPDX-License-Identifier: MIT */
/* A minimal parallel for-loop over work items, on POSIX threads: each worker takes the
 * next item from a shared atomic counter until none is left. Used by the solvers,
 * whose work items are chunks of a tier's index space. */
#ifndef BP_SOLVER_PARALLEL_H
#define BP_SOLVER_PARALLEL_H

#include <stdint.h>

/* Runs fn(ctx, worker, item) for every item in 0..nitems-1 on `threads` threads (the
 * calling thread is one of them). worker is 0..threads-1, for per-worker buffers.
 * Items run in no particular order. fn returns BP_OK or an error; after the first
 * error no new items start, and that error is returned. */
int bp_parallel_for(int threads, uint64_t nitems, int (*fn)(void *ctx, int worker, uint64_t item),
		    void *ctx);

/* The number of online cores (at least 1). */
int bp_parallel_cores(void);

/* Seconds on the monotonic clock (for rates and ticks between threads). */
double bp_parallel_clock(void);

#endif
