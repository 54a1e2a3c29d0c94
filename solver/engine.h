/* SPDX-License-Identifier: MIT */
/* The types every solving engine shares: the options of a solve, the progress it
 * reports and the result it returns. The engines are peers, each with
 * its own header (solver/retrograde.h: tiers; solver/expanded.h: the tier walk;
 * solver/cyclic.h: level passes for games with cycles; solver/counter.h: child counters
 * over the reachable graph, also for cycles); solver/solve.h picks one. */
#ifndef BP_SOLVER_ENGINE_H
#define BP_SOLVER_ENGINE_H

#include <stdint.h>

#include "solver/games/game.h"
#include "store/store.h"

/* The engines. The numbers are not stored anywhere. */
enum bp_engine {
	BP_ENGINE_AUTO = 0, /* bp_solve picks: counter for games that repeat, else walk
			       when the game has a tier walk, else tiers */
	BP_ENGINE_TIERS,    /* retrograde analysis tier by tier, canonicalizing children */
	BP_ENGINE_WALK,	    /* the same over expanded tiers with the game's tier walk */
	BP_ENGINE_CYCLES,   /* level passes over the whole index space (cycles allowed) */
	BP_ENGINE_COUNTER   /* child counters over the reachable graph (cycles allowed) */
};

/* What a progress callback sees, after each tier of each phase. */
struct bp_solve_progress {
	int phase; /* 0: marking reachable positions (tiers upwards); 1: solving (downwards) */
	uint32_t tier, ntiers;
	uint64_t positions; /* canonical positions reached (phase 0) or solved (1) in the tier */
	double seconds;	    /* since the solve started */
	int resumed;	    /* 1 when the tier was already stored (phase 0: its reached
			     * bits were taken from their scratch file) */
};

/* What a tick sees: how far the current tier (or pass) and the whole phase have got,
 * in dense indices walked (the unit every engine shares: a work item covers a range of
 * indices, canonical or not). */
struct bp_solve_tick {
	int phase; /* as bp_solve_progress; 2: a pass of the cycles or counter engine; 3:
		    * storing a solved tier (its records coded into the database: tier_done
		    * and phase_done of tier_total = phase_total records; ntiers 0) */
	uint32_t tier, ntiers;		  /* the tier; for phase 2 the pass number and 0 */
	uint64_t tier_done, tier_total;	  /* indices of this tier (pass) walked, and in all */
	uint64_t phase_done, phase_total; /* the same over the phase's work in this run (for
					   * phase 2: the passes so far, total unknown: 0) */
	double seconds;			  /* since the solve started */
};

/* A solve split across ranks (processes; MPI under `solve --mpi`, tools/mpi_solve.c): the
 * tiers and walk engines deal each tier's index range out to the ranks in chunks
 * (solver/dist.h), and a rank holds only its chunks (reach bits and records). Children
 * held by another rank are looked up, and reach marks or images sent, by exchange;
 * rank 0 writes each tier, receiving the others' chunks one at a time. Every call but send and recv is
 * collective: every rank makes the same calls in the same order. Each returns BP_OK or
 * an error (BP_EIO). The other ranks open the table to read tiers stored earlier (a
 * resumed solve), each only its slice. The library knows nothing of MPI. */
struct bp_solve_dist {
	int rank, nranks;
	void *ctx;
	/* ORs n words across the ranks, in place on every rank */
	int (*reduce_or)(void *ctx, uint64_t *words, uint64_t n);
	/* sums n counters across the ranks, in place on every rank */
	int (*sum)(void *ctx, uint64_t *v, int n);
	/* All to all: this rank sends scount[r] elements of elem bytes to rank r (those for
	 * rank 0 first, then rank 1's, ... contiguous in send) and receives rcount[r] from
	 * rank r into recv, in rank order; rcount must be what rank r sends here. Any
	 * sizes: the hook cuts them into pieces whose counts fit an int. */
	int (*exchange)(void *ctx, const void *send, const uint64_t *scount, void *recv,
			const uint64_t *rcount, size_t elem);
	/* Point to point, blocking: bytes to rank `to`, matched by a recv of the same
	 * size on that rank (any size: the hook cuts it into pieces) */
	int (*send)(void *ctx, int to, const void *buf, uint64_t bytes);
	int (*recv)(void *ctx, int from, void *buf, uint64_t bytes);
};

/* How bp_solve indexes a table's positions. The numbers are not stored anywhere. */
enum bp_index {
	BP_INDEX_AUTO = 0, /* a table begun keeps its index; else reachable positions only
			      where the game has keys for them (Mirador) and its dense
			      index does not fit; else dense */
	BP_INDEX_DENSE,	   /* the game's dense rank (game.h tier_size, rank, unrank) */
	BP_INDEX_SPARSE	   /* reachable canonical positions only (solver/sparse.h) */
};

/* The lowest compression_level that is archival: the store's BP_CODEC_MODEL_LEVEL, for
 * the layers above the solver, which do not see the store's codec. */
#define BP_SOLVE_ARCHIVAL_LEVEL 10

struct bp_solve_opts {
	enum bp_engine engine;	/* bp_solve only; engines called directly ignore it */
	enum bp_index index;	/* bp_solve only */
	int threads;		/* worker threads; <= 0: one per online core */
	uint64_t memory_limit;	/* bytes; 0: no limit. Checked up front (BP_ERANGE) */
	uint32_t block_records; /* passed to the store; 0: its default */
	int compression_level;	/* passed to the store; 0: its default */
	/* at an archival level (BP_SOLVE_ARCHIVAL_LEVEL and up), code each win in 1 from the
	 * rules (bp_probe_foretell_wins); below it, nothing */
	int foretell_wins;
	void (*progress)(void *ctx, const struct bp_solve_progress *p); /* may be NULL */
	/* Inside a tier or pass, about every tick_seconds (0: 0.25 s), from any one of the
	 * workers at a time (never two at once); may be NULL. */
	void (*tick)(void *ctx, const struct bp_solve_tick *t);
	double tick_seconds;
	/* Polled between work items (a few thousand times a second at most): when it
	 * returns nonzero the solve stops with BP_ECANCELED. Tiers already stored stay
	 * stored, so the tiers and walk engines resume from them; the cycles and counter
	 * engines store nothing until they have finished. May be NULL. The library installs no signal
	 * handler: a caller that wants Ctrl-C sets a flag in its own handler and returns
	 * it here. */
	int (*cancel)(void *ctx);
	void *ctx;			  /* passed to progress, tick and cancel */
	const struct bp_solve_dist *dist; /* NULL: one process. Tiers and walk engines */
	/* Walk engine: hold the store's 16-bit records in memory even where 8 bits fit
	 * (the tests compare both layouts; the memory plan counts the 8-bit one). */
	int wide_records;
	/* Index of reachable positions (BP_INDEX_SPARSE): enumerate it with the tiers on
	 * disk in a directory made here (bp_sparse_enumerate_on_disk), so that its keys
	 * need no memory of the process's own. NULL: in memory. */
	const char *spill_dir;
};

struct bp_solve_result {
	enum bp_engine engine; /* the engine that ran (never BP_ENGINE_AUTO) */
	enum bp_value value;   /* of the start position */
	unsigned remoteness;
	uint64_t positions;	  /* canonical reachable positions stored */
	uint64_t counts[4];	  /* of those, per value (index enum bp_value) */
	double seconds;		  /* this run's wall time */
	uint64_t peak_memory;	  /* bytes: the process's peak resident set */
	uint64_t memory_estimate; /* bytes the solve planned for */
	uint64_t stored_bytes;	  /* compressed size of the table */
	uint32_t resumed_tiers;	  /* tiers found already stored */
	uint32_t solved_tiers;	  /* tiers solved and stored by this run (also when it
				   * stopped early: what an interrupted run kept) */
	/* split across ranks: bytes this rank sent to and received from the others
	 * (lookups, reach marks and slices for the writer) */
	uint64_t sent_bytes, received_bytes;
	/* indexed by reachable positions only (solver/sparse.h): the index's bytes in
	 * memory and stored (compressed), and the seconds this run enumerated it (0 when
	 * it was read back); all 0 with the dense index */
	uint64_t index_bytes, index_stored_bytes;
	double index_seconds;
	/* walk engine: segments taken back from their scratch files (walk_segments) */
	uint32_t resumed_segments;
	/* walk engine, BP_GAME_WALK_UNREACHED in one process: tiers whose reached bits were
	 * taken back final from their scratch files (the forward pass went on above them),
	 * and scratch files of reached bits found damaged, removed and marked again */
	uint32_t resumed_reach_tiers, damaged_reach_files;
};

#endif
