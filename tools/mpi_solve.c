/* SPDX-License-Identifier: MIT */
#include "tools/mpi_solve.h"

#ifdef BP_HAVE_MPI
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* MPI counts are ints: long arrays go in pieces of at most this many elements. */
#define PIECE ((uint64_t)1 << 28)

/* The most bytes one MPI call moves between two ranks (exchange, send, recv): INT_MAX,
 * or less from BOARDPROOF_MPI_PIECE_BYTES (at least 16), so that the tests can make the
 * cutting happen on small solves. */
static uint64_t piece_bytes = INT_MAX;

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

/* Alltoallv with byte counts and displacements that fit an int: when the whole does
 * not, it goes in rounds, each moving at most `each` bytes between any two ranks
 * through packed buffers of nranks * each bytes (displacements included in an int).
 *
 * Every rank makes the same MPI calls whatever happens here: a rank that leaves before
 * a collective the others have entered leaves them waiting for ever (MPI does not end
 * the job for it), or worse, meets their next collective instead. So a failed
 * allocation is combined into the reductions every rank makes anyway, and every rank
 * returns an error: BP_ENOMEM where it failed, BP_EIO on the others. */
static int exchange(void *ctx, const void *send, const uint64_t *scount, void *recv,
		    const uint64_t *rcount, size_t elem)
{
	const struct bp_solve_dist *d = ctx;
	int nr = d->nranks, rc = BP_OK;
	uint64_t stotal = 0, rtotal = 0, most = 0;
	for (int r = 0; r < nr; r++) {
		stotal += scount[r] * elem;
		rtotal += rcount[r] * elem;
		most = scount[r] * elem > most ? scount[r] * elem : most;
		most = rcount[r] * elem > most ? rcount[r] * elem : most;
	}
	int *sc = calloc((size_t)nr * 4, sizeof *sc), *sd = NULL, *rc_ = NULL, *rd = NULL;
	if (sc) {
		sd = sc + nr;
		rc_ = sd + nr;
		rd = rc_ + nr;
	}
	/* whether every rank can go in one call, and whether any failed */
	uint64_t v[2] = { stotal > rtotal ? stotal : rtotal, !sc };
	if (MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) !=
	    MPI_SUCCESS) {
		free(sc);
		return BP_EIO;
	}
	if (v[1]) {
		rc = sc ? BP_EIO : BP_ENOMEM;
		free(sc);
		return rc;
	}
	if (v[0] <= piece_bytes) {
		uint64_t so = 0, ro = 0;
		for (int r = 0; r < nr; r++) {
			sc[r] = (int)(scount[r] * elem);
			sd[r] = (int)so;
			rc_[r] = (int)(rcount[r] * elem);
			rd[r] = (int)ro;
			so += scount[r] * elem;
			ro += rcount[r] * elem;
		}
		if (MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc_, rd, MPI_BYTE,
				  MPI_COMM_WORLD) != MPI_SUCCESS)
			rc = BP_EIO;
		free(sc);
		return rc;
	}
	uint64_t each = (piece_bytes / (uint64_t)nr) / elem * elem;
	if (each == 0)
		each = elem;
	char *sbuf = malloc((size_t)(each * (uint64_t)nr)),
	     *rbuf = malloc((size_t)(each * (uint64_t)nr));
	uint64_t *soff = calloc((size_t)nr * 2, sizeof *soff), *roff = soff ? soff + nr : NULL;
	int mine = !sbuf || !rbuf || !soff;
	uint64_t w[2] = { most, mine };
	if (MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = BP_EIO;
	else if (w[1])
		rc = mine ? BP_ENOMEM : BP_EIO;
	for (int r = 1; rc == BP_OK && r < nr; r++) {
		soff[r] = soff[r - 1] + scount[r - 1] * elem;
		roff[r] = roff[r - 1] + rcount[r - 1] * elem;
	}
	uint64_t rounds = (w[0] + each - 1) / each;
	for (uint64_t k = 0; rc == BP_OK && k < rounds; k++) {
		int so = 0, ro = 0;
		for (int r = 0; r < nr; r++) {
			uint64_t from = k * each, sb = scount[r] * elem, rb = rcount[r] * elem;
			uint64_t sn = sb > from ? (sb - from < each ? sb - from : each) : 0;
			uint64_t rn = rb > from ? (rb - from < each ? rb - from : each) : 0;
			memcpy(sbuf + so, (const char *)send + soff[r] + from, (size_t)sn);
			sc[r] = (int)sn;
			sd[r] = so;
			rc_[r] = (int)rn;
			rd[r] = ro;
			so += (int)sn;
			ro += (int)rn;
		}
		if (MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc_, rd, MPI_BYTE,
				  MPI_COMM_WORLD) != MPI_SUCCESS) {
			rc = BP_EIO;
			break;
		}
		for (int r = 0; r < nr; r++)
			memcpy((char *)recv + roff[r] + k * each, rbuf + rd[r], (size_t)rc_[r]);
	}
	free(sbuf);
	free(rbuf);
	free(soff);
	free(sc);
	return rc;
}

/* Point to point in pieces of at most piece_bytes; both ends cut the same way. */
static int send_to(void *ctx, int to, const void *buf, uint64_t bytes)
{
	(void)ctx;
	for (uint64_t i = 0; i < bytes; i += piece_bytes) {
		uint64_t k = bytes - i < piece_bytes ? bytes - i : piece_bytes;
		if (MPI_Send((const char *)buf + i, (int)k, MPI_BYTE, to, 1, MPI_COMM_WORLD) !=
		    MPI_SUCCESS)
			return BP_EIO;
	}
	return BP_OK;
}

static int recv_from(void *ctx, int from, void *buf, uint64_t bytes)
{
	(void)ctx;
	for (uint64_t i = 0; i < bytes; i += piece_bytes) {
		uint64_t k = bytes - i < piece_bytes ? bytes - i : piece_bytes;
		if (MPI_Recv((char *)buf + i, (int)k, MPI_BYTE, from, 1, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE) != MPI_SUCCESS)
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
	const char *pb = getenv("BOARDPROOF_MPI_PIECE_BYTES");
	if (pb && strtoull(pb, NULL, 10) >= 16 && strtoull(pb, NULL, 10) < INT_MAX)
		piece_bytes = strtoull(pb, NULL, 10);
	d->reduce_or = reduce_or;
	d->sum = sum;
	d->exchange = exchange;
	d->send = send_to;
	d->recv = recv_from;
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
