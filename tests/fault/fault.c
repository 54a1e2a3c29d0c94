/* SPDX-License-Identifier: MIT */
/* Fault injection for the reliability tests: a shared object loaded with LD_PRELOAD
 * into the `boardproof` command, which makes the Nth call of one kind fail, once:
 *
 *   BOARDPROOF_FAULT=SITE:N       the Nth call at SITE fails (counting from 1); SITE
 *                                 is a site below or one LMDB function of the lmdb
 *                                 site, as lmdb.FUNCTION (lmdb.get: the Nth mdb_get)
 *   BOARDPROOF_FAULT_COUNT=FILE   at exit, writes "SITE CALLS" lines to FILE (the
 *                                 sites, then one lmdb.FUNCTION line each)
 *   BOARDPROOF_FAULT_MAP=BYTES    LMDB's map size is BYTES (a tiny map: MDB_MAP_FULL)
 *   BOARDPROOF_FAULT_TRACE=1      prints the stack of the failing call to stderr (to
 *                                 find the caller that mishandles it)
 *   BOARDPROOF_FAULT_RANK=R       in an MPI job, only rank R fails (the others count);
 *                                 the rank is read from OMPI_COMM_WORLD_RANK (Open MPI)
 *                                 or PMI_RANK (MPICH), and each rank writes its counts
 *                                 to FILE.RANK
 *
 * Sites, and how a call there fails:
 *
 *   alloc  malloc, calloc, realloc, aligned_alloc, posix_memalign and anonymous mmap
 *          return NULL / ENOMEM / MAP_FAILED
 *   write  write, pwrite, writev, pwritev on a regular file (not stdout or stderr,
 *          nor a socket, pipe or eventfd: a disk's faults, not a network's) return -1
 *          with EIO, writing nothing
 *   sync   fsync, fdatasync, msync return -1 with EIO
 *   lmdb   mdb_env_open, mdb_txn_begin, mdb_txn_renew, mdb_dbi_open, mdb_get,
 *          mdb_put, mdb_cursor_get and mdb_txn_commit return EIO (a failing commit
 *          aborts its transaction first, as LMDB's own does)
 *
 * In an MPI job, only the program's own calls count: none made inside an MPI function
 * (the shim wraps the ones tools/mpi_solve.c calls) and none on a thread that MPI
 * started (its progress threads; a thread counts when the thread that created it did,
 * outside MPI). MPI's internals are not what these tests are about, and Open MPI does
 * not promise to survive a failed allocation of its own.
 *
 * So the failures are real ones, at the boundary between the program and the C
 * library or LMDB; nothing in the program is built differently for the tests. The
 * faults at `write` and `sync` are the ones a full or failing disk gives LMDB; the
 * full disk itself (ENOSPC from a small tmpfs) is tested by tests/tools/faults.sh.
 *
 * The C library's own allocator is reached through glibc's __libc_* entry points, so
 * the shim needs no dlsym at allocation time (dlsym itself allocates). LMDB's
 * functions are found with dlsym(RTLD_NEXT) on first use. Counting is atomic: the
 * solvers allocate on several threads. */
#define _GNU_SOURCE
/* plain names: with 64-bit file offsets glibc would rename mmap to mmap64 and so on,
 * and both spellings are defined below (LMDB calls the plain ones) */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <lmdb.h>
#ifdef BP_FAULT_MPI
#include <mpi.h>
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum site { ALLOC, WRITE, SYNC, LMDB, NSITES };
static const char *const site_name[NSITES] = { "alloc", "write", "sync", "lmdb" };

/* the functions of the lmdb site, each also a site of its own */
enum lmdb_fn { ENV_OPEN, TXN_BEGIN, TXN_RENEW, DBI_OPEN, GET, PUT, CURSOR_GET, COMMIT, NFNS };
static const char *const fn_name[NFNS] = { "env_open", "txn_begin", "txn_renew",  "dbi_open",
					   "get",      "put",	    "cursor_get", "commit" };

static int fault_site = -1;    /* the site that fails, -1 none */
static int fault_fn = -1;      /* or the LMDB function that fails, -1 none */
static unsigned long fault_at; /* its failing call */
static unsigned long calls[NSITES], fn_calls[NFNS];
static const char *count_file;
static int ready, trace;
static char count_path[4096];

/* Nonzero on a thread whose calls are not counted: inside an MPI function, or a thread
 * MPI started. Initial-exec: reaching it must never allocate. */
static __thread int foreign __attribute__((tls_model("initial-exec")));

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

__attribute__((constructor)) static void fault_init(void)
{
	const char *f = getenv("BOARDPROOF_FAULT");
	if (f) {
		for (int s = 0; s < NSITES; s++) {
			size_t n = strlen(site_name[s]);
			if (strncmp(f, site_name[s], n) == 0 && f[n] == ':') {
				fault_site = s;
				fault_at = strtoul(f + n + 1, NULL, 10);
			}
		}
		for (int k = 0; k < NFNS; k++) {
			size_t n = strlen(fn_name[k]);
			if (strncmp(f, "lmdb.", 5) == 0 && strncmp(f + 5, fn_name[k], n) == 0 &&
			    f[5 + n] == ':') {
				fault_fn = k;
				fault_at = strtoul(f + 5 + n + 1, NULL, 10);
			}
		}
	}
	/* one rank of an MPI job: its own count file, and no failure unless it is the rank
	 * named */
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	if (!rank)
		rank = getenv("PMI_RANK");
	const char *only = getenv("BOARDPROOF_FAULT_RANK");
	if (only && *only && (!rank || strcmp(rank, only) != 0))
		fault_site = fault_fn = -1;
	count_file = getenv("BOARDPROOF_FAULT_COUNT");
#ifdef BP_FAULT_MPI
	if (rank) /* nothing counts on this thread before MPI_Init (below) */
		foreign = 1;
#endif
	if (count_file && rank) {
		snprintf(count_path, sizeof count_path, "%s.%s", count_file, rank);
		count_file = count_path;
	}
	trace = getenv("BOARDPROOF_FAULT_TRACE") != NULL;
	if (trace) { /* the first backtrace loads libgcc, which allocates: not later */
		void *frames[2];
		backtrace(frames, 2);
	}
	ready = 1;
}

__attribute__((destructor)) static void fault_fini(void)
{
	if (!count_file)
		return;
	FILE *out = fopen(count_file, "w");
	if (!out)
		return;
	for (int s = 0; s < NSITES; s++)
		fprintf(out, "%s %lu\n", site_name[s],
			__atomic_load_n(&calls[s], __ATOMIC_RELAXED));
	for (int k = 0; k < NFNS; k++)
		fprintf(out, "lmdb.%s %lu\n", fn_name[k],
			__atomic_load_n(&fn_calls[k], __ATOMIC_RELAXED));
	fclose(out);
}

/* With BOARDPROOF_FAULT_TRACE, the stack of the failing call on stderr. */
static void show(void)
{
	void *f[32];
	if (trace)
		backtrace_symbols_fd(f, backtrace(f, 32), 2);
}

/* Counts a call at site s; nonzero when this call must fail. */
static int hit(enum site s)
{
	if (!ready || foreign)
		return 0;
	unsigned long n = __atomic_add_fetch(&calls[s], 1, __ATOMIC_RELAXED);
	int fail = (int)s == fault_site && n == fault_at;
	if (fail)
		show();
	return fail;
}

/* Counts a call of LMDB function k (and one at the lmdb site); nonzero when this call
 * must fail. */
static int hit_lmdb(enum lmdb_fn k)
{
	int fail = hit(LMDB);
	if (!ready || foreign)
		return 0;
	unsigned long n = __atomic_add_fetch(&fn_calls[k], 1, __ATOMIC_RELAXED);
	if ((int)k == fault_fn && n == fault_at) {
		show();
		return 1;
	}
	return fail;
}

/* ---- alloc ---- */

/* A failing allocation sets errno as the C library's does (glibc's own code checks it). */
static int fail_alloc(void)
{
	if (!hit(ALLOC))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail_alloc() ? NULL : __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	return fail_alloc() ? NULL : __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	return fail_alloc() ? NULL : __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return fail_alloc() ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (hit(ALLOC))
		return ENOMEM;
	void *p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if ((flags & MAP_ANONYMOUS) && hit(ALLOC)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

/* ---- write and sync ---- */

static int fail_write(int fd)
{
	struct stat st;
	if (fd > 2 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && hit(WRITE)) {
		errno = EIO;
		return 1;
	}
	return 0;
}

ssize_t write(int fd, const void *p, size_t n)
{
	return fail_write(fd) ? -1 : syscall(SYS_write, fd, p, n);
}

ssize_t pwrite(int fd, const void *p, size_t n, off_t off)
{
	return fail_write(fd) ? -1 : syscall(SYS_pwrite64, fd, p, n, off);
}

ssize_t pwrite64(int fd, const void *p, size_t n, off_t off)
{
	return pwrite(fd, p, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	return fail_write(fd) ? -1 : syscall(SYS_writev, fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	/* the system call takes the offset as two words (low, high) */
	return fail_write(fd) ? -1
			      : syscall(SYS_pwritev, fd, iov, n, (unsigned long)off,
					(unsigned long)((unsigned long long)off >> 32));
}

static int fail_sync(void)
{
	if (hit(SYNC)) {
		errno = EIO;
		return 1;
	}
	return 0;
}

int fsync(int fd)
{
	return fail_sync() ? -1 : (int)syscall(SYS_fsync, fd);
}

int fdatasync(int fd)
{
	return fail_sync() ? -1 : (int)syscall(SYS_fdatasync, fd);
}

int msync(void *p, size_t n, int flags)
{
	return fail_sync() ? -1 : (int)syscall(SYS_msync, p, n, flags);
}

/* ---- LMDB ---- */

/* The next definition of LMDB function `name` (LMDB's own), looked up once. */
#define REAL(name)                            \
	static __typeof__(name) *real_##name; \
	if (!real_##name)                     \
		*(void **)&real_##name = dlsym(RTLD_NEXT, #name);

int mdb_env_set_mapsize(MDB_env *env, size_t size)
{
	REAL(mdb_env_set_mapsize)
	const char *m = getenv("BOARDPROOF_FAULT_MAP");
	if (m && *m)
		size = (size_t)strtoull(m, NULL, 10);
	return real_mdb_env_set_mapsize(env, size);
}

int mdb_env_open(MDB_env *env, const char *path, unsigned flags, mdb_mode_t mode)
{
	REAL(mdb_env_open)
	return hit_lmdb(ENV_OPEN) ? EIO : real_mdb_env_open(env, path, flags, mode);
}

int mdb_txn_begin(MDB_env *env, MDB_txn *parent, unsigned flags, MDB_txn **txn)
{
	REAL(mdb_txn_begin)
	return hit_lmdb(TXN_BEGIN) ? EIO : real_mdb_txn_begin(env, parent, flags, txn);
}

int mdb_txn_renew(MDB_txn *txn)
{
	REAL(mdb_txn_renew)
	return hit_lmdb(TXN_RENEW) ? EIO : real_mdb_txn_renew(txn);
}

int mdb_dbi_open(MDB_txn *txn, const char *name, unsigned flags, MDB_dbi *dbi)
{
	REAL(mdb_dbi_open)
	return hit_lmdb(DBI_OPEN) ? EIO : real_mdb_dbi_open(txn, name, flags, dbi);
}

int mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v)
{
	REAL(mdb_get)
	return hit_lmdb(GET) ? EIO : real_mdb_get(txn, dbi, k, v);
}

int mdb_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v, unsigned flags)
{
	REAL(mdb_put)
	return hit_lmdb(PUT) ? EIO : real_mdb_put(txn, dbi, k, v, flags);
}

int mdb_cursor_get(MDB_cursor *c, MDB_val *k, MDB_val *v, MDB_cursor_op op)
{
	REAL(mdb_cursor_get)
	return hit_lmdb(CURSOR_GET) ? EIO : real_mdb_cursor_get(c, k, v, op);
}

int mdb_txn_commit(MDB_txn *txn)
{
	REAL(mdb_txn_commit)
	if (hit_lmdb(COMMIT)) {
		mdb_txn_abort(txn);
		return EIO;
	}
	return real_mdb_txn_commit(txn);
}

/* ---- threads ---- */

/* A new thread counts when its creator does (an MPI thread is created inside MPI). */
struct start {
	void *(*fn)(void *);
	void *arg;
	int foreign;
};

static void *start_thread(void *p)
{
	struct start st = *(struct start *)p;
	free(p);
	foreign = st.foreign;
	return st.fn(st.arg);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static __typeof__(pthread_create) *real;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	/* not counted: the thread's own record, not the program's allocation */
	struct start *st = __libc_malloc(sizeof *st);
	if (!st)
		return EAGAIN;
	*st = (struct start){ fn, arg, foreign };
	int rc = real(th, attr, start_thread, st);
	if (rc)
		free(st);
	return rc;
}

#ifdef BP_FAULT_MPI
/* ---- MPI: the functions tools/mpi_solve.c calls, not counted inside ---- */

/* calls MPI function name (the next definition: MPI's own) with args, outside the count */
#define MPI_PASS(name, args)                                       \
	do {                                                       \
		static __typeof__(name) *real;                     \
		foreign++;                                         \
		if (!real)                                         \
			*(void **)&real = dlsym(RTLD_NEXT, #name); \
		int rc_ = real args;                               \
		foreign--;                                         \
		return rc_;                                        \
	} while (0)

/* In an MPI job the count runs from MPI_Init's return to MPI_Finalize: a rank that
 * fails before it has joined leaves the others waiting inside MPI's start-up (and Open
 * MPI 4.1's mpirun then crashes in PMIx); what comes before is the same code as in one
 * process, which the other loops test. */
static int mpi_init_done(int rc)
{
	foreign = 0;
	return rc;
}

static int mpi_init(int *argc, char ***argv)
{
	MPI_PASS(MPI_Init, (argc, argv));
}

int MPI_Init(int *argc, char ***argv)
{
	return mpi_init_done(mpi_init(argc, argv));
}

static int mpi_init_thread(int *argc, char ***argv, int required, int *provided)
{
	MPI_PASS(MPI_Init_thread, (argc, argv, required, provided));
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	return mpi_init_done(mpi_init_thread(argc, argv, required, provided));
}

int MPI_Finalize(void)
{
	foreign = 1; /* and no more counting */
	MPI_PASS(MPI_Finalize, ());
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	MPI_PASS(MPI_Comm_rank, (comm, rank));
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
	MPI_PASS(MPI_Comm_size, (comm, size));
}

int MPI_Barrier(MPI_Comm comm)
{
	MPI_PASS(MPI_Barrier, (comm));
}

int MPI_Bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm)
{
	MPI_PASS(MPI_Bcast, (buf, n, type, root, comm));
}

int MPI_Allreduce(const void *send, void *recv, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	MPI_PASS(MPI_Allreduce, (send, recv, n, type, op, comm));
}

int MPI_Alltoallv(const void *send, const int *scount, const int *sdispl, MPI_Datatype stype,
		  void *recv, const int *rcount, const int *rdispl, MPI_Datatype rtype,
		  MPI_Comm comm)
{
	MPI_PASS(MPI_Alltoallv, (send, scount, sdispl, stype, recv, rcount, rdispl, rtype, comm));
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int to, int tag, MPI_Comm comm)
{
	MPI_PASS(MPI_Send, (buf, n, type, to, tag, comm));
}

int MPI_Recv(void *buf, int n, MPI_Datatype type, int from, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	MPI_PASS(MPI_Recv, (buf, n, type, from, tag, comm, status));
}
#endif
