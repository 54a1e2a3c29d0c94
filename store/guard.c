/* SPDX-License-Identifier: MIT */
/* Fault guard (see guard.h).
 *
 * Why a guard at all. LMDB trusts its own pages. It checks a page number against the
 * newest meta page's page count, but nothing else: random byte flips in a solved
 * table (bench/corrupt.sh) made mdb_get die with SIGSEGV when a leaf node's "has
 * duplicates" flag was flipped on (LMDB 0.9.24 then initialises a sub-cursor that a
 * database without duplicates does not have: a write through NULL), and with SIGBUS
 * when the meta page counts more pages than the file holds (a truncated copy, or a
 * flipped page count), or a damaged node's size reaches past the last page. The
 * alternatives were weighed:
 *
 *  - checking the pages ourselves before LMDB uses them: LMDB 0.9 has no hook for it;
 *    it means re-implementing LMDB's B-tree walk over its private page layout (node
 *    flags, offsets, overflow pages), and a walk that checks the whole tree before
 *    use costs a full read of the file on every open of a query;
 *  - a map no larger than the file: only turns SIGBUS into SIGSEGV;
 *  - mdb_env_info/mdb_env_stat at open: they read only the meta pages; they catch a
 *    file shorter than its page count (store.c checks that, to name it), not a
 *    damaged node.
 *
 * So the reads run under a guard: sigsetjmp before the LMDB call, and a SIGBUS or
 * SIGSEGV handler that siglongjmps back when (and only when) the faulting thread is
 * inside a guarded call. Abandoning LMDB half-way through a call is sound here
 * because of what a read-only transaction's calls do (LMDB 0.9, mdb.c):
 *
 *  - they take no lock: a reader's slot in the lock file is taken once, by
 *    mdb_txn_begin/mdb_txn_renew, which are never guarded; mdb_get, mdb_dbi_open,
 *    mdb_stat and cursor moves only read;
 *  - they allocate nothing that would leak: mdb_get's cursor is on its own stack
 *    frame (which the jump discards); mdb_dbi_open copies the name with strdup only
 *    after its search succeeded; a cursor we open ourselves is closed by the caller;
 *  - they write nothing shared: the map is mapped read-only (no MDB_WRITEMAP), and the
 *    only transaction state a read touches is the copy of a named database's record
 *    (refreshed when stale), which is a plain copy left stale if interrupted; callers
 *    still reset and renew the transaction after a fault, starting from a clean slate.
 *    The one wild write damage can cause is the one above: through the sub-cursor
 *    pointer, which is NULL in our databases (none has duplicates), so it faults at
 *    a small address and writes nothing.
 *
 * Write transactions are never guarded: jumping out of mdb_put would leave its cursor
 * linked into the transaction's cursor list and a page split half-done. A solve
 * resuming on a damaged database is protected instead by the checks it makes before
 * writing (the metadata's checksum, the file's length), not by this guard.
 *
 * Signals: the handler is installed with SA_NODEFER, so the signal is not blocked
 * while it runs and siglongjmp need not restore the signal mask (sigsetjmp(.., 0):
 * no system call per guarded call). The guard's jump buffer is thread-local: a fault
 * is delivered to the thread that caused it, so the handler sees that thread's guard.
 * A fault on an unguarded thread, or a SIGSEGV/SIGBUS sent with kill(), puts the
 * previous handler back; a fault then happens again on return and reaches it (by
 * default the process dies as before), and a sent signal is raised again.
 *
 * LMDB's own assertions (compiled into Debian's liblmdb) fire on some damaged pages
 * ("NUMKEYS(mp) > 1" on a branch page) and then abort(); store.c sets an assertion
 * callback that abandons a guarded call the same way (bp_guard_abandon). */
#include "store/guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

#include "canon/error.h"

static _Thread_local sigjmp_buf *guard_top;
static struct sigaction old_bus, old_segv;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sigjmp_buf *jb = guard_top;
	if (jb && si && si->si_code > 0) /* > 0: raised by the kernel for this thread */
		siglongjmp(*jb, 1);
	sigaction(sig, sig == SIGBUS ? &old_bus : &old_segv, NULL);
	if (!si || si->si_code <= 0)
		raise(sig);
}

static void install(void)
{
	struct sigaction sa = { 0 };
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
}

void bp_guard_abandon(void)
{
	sigjmp_buf *jb = guard_top;
	if (jb)
		siglongjmp(*jb, 1);
}

int bp_guard_call(int (*fn)(void *ctx), void *ctx)
{
	sigjmp_buf here;
	sigjmp_buf *outer = guard_top;
	pthread_once(&installed, install);
	if (sigsetjmp(here, 0)) {
		guard_top = outer;
		return BP_ECORRUPT;
	}
	guard_top = &here;
	int ret = fn(ctx);
	guard_top = outer;
	return ret;
}
