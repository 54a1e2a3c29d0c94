/* SPDX-License-Identifier: MIT */
/* `solve --mpi`: the ranks of an MPI job as a struct bp_solve_dist (solver/engine.h).
 * Compiled against MPI only when the build found it (BP_HAVE_MPI); otherwise
 * bp_mpi_init says MPI is not available. MPI lives here, in the command, so the
 * libraries and every other binary never need it. */
#ifndef BP_TOOLS_MPI_SOLVE_H
#define BP_TOOLS_MPI_SOLVE_H

#include <stdint.h>

#include "solver/engine.h"

/* Starts MPI and fills d with this rank, the number of ranks and the collectives.
 * @return 0; -1 when this build has no MPI. */
int bp_mpi_init(struct bp_solve_dist *d);

/* Waits for every rank. */
void bp_mpi_barrier(void);

/* Rank 0's value of *v to every rank. */
void bp_mpi_bcast_int(int *v);

/* The largest of every rank's v, on every rank. */
uint64_t bp_mpi_max(uint64_t v);

/* Ends MPI. */
void bp_mpi_finish(void);

#endif
