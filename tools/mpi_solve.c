/* SPDX-License-Identifier: MIT */
#include "tools/mpi_solve.h"

#ifdef BP_HAVE_MPI
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

/* MPI counts are ints: long arrays go in pieces of at most this many elements. */
#define PIECE ((uint64_t)1 << 28)

static int reduce_or(void *ctx, uint64_t *words, uint64_t n)
{
	(void)ctx;
	for (uint64_t i = 0; i < n; i += PIECE) {
		int k = (int)(n - i < PIECE ? n - i : PIECE);
		if (MPI_Allreduce(MPI_IN_PLACE, words + i, k, MPI_UINT64_T, MPI_BOR,
				  MPI_COMM_WORLD) != MPI_SUCCESS)
			return BP_EIO;
	}
	return BP_OK;
}

static int sum(void *ctx, uint64_t *v, int n)
{
	(void)ctx;
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) ==
			       MPI_SUCCESS
		       ? BP_OK
		       : BP_EIO;
}

/* Each rank's slice in turn, broadcast from its owner in pieces: no count passes
 * INT_MAX whatever the tier's size. */
static int gather(void *ctx, uint16_t *rec, const uint64_t *bounds)
{
	const struct bp_solve_dist *d = ctx;
	for (int r = 0; r < d->nranks; r++)
		for (uint64_t i = bounds[r]; i < bounds[r + 1]; i += PIECE) {
			uint64_t k = bounds[r + 1] - i < PIECE ? bounds[r + 1] - i : PIECE;
			if (MPI_Bcast(rec + i, (int)k, MPI_UINT16_T, r, MPI_COMM_WORLD) !=
			    MPI_SUCCESS)
				return BP_EIO;
		}
	return BP_OK;
}

int bp_mpi_init(struct bp_solve_dist *d)
{
	int provided;
	/* the solver's threads never call MPI: only the thread that called
	 * bp_solve does, between its parallel loops */
	MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &d->nranks);
	d->ctx = d;
	d->reduce_or = reduce_or;
	d->sum = sum;
	d->gather = gather;
	return 0;
}

void bp_mpi_barrier(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
}

void bp_mpi_bcast_int(int *v)
{
	MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

uint64_t bp_mpi_max(uint64_t v)
{
	MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	return v;
}

void bp_mpi_finish(void)
{
	MPI_Finalize();
}

#else

int bp_mpi_init(struct bp_solve_dist *d)
{
	(void)d;
	return -1;
}

void bp_mpi_barrier(void)
{
}

void bp_mpi_bcast_int(int *v)
{
	(void)v;
}

uint64_t bp_mpi_max(uint64_t v)
{
	return v;
}

void bp_mpi_finish(void)
{
}

#endif
