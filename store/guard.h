/* SPDX-License-Identifier: MIT */
/* A fault guard for reads of the memory-mapped database: runs a function with SIGBUS
 * and SIGSEGV turned into a return code on the calling thread, so that LMDB following
 * a damaged page reference (past the end of the file, or out of the map) makes a read
 * fail with BP_ECORRUPT instead of killing the process. Used only around LMDB calls
 * of read-only transactions; why that is sound is explained in guard.c. */
#ifndef BP_STORE_GUARD_H
#define BP_STORE_GUARD_H

/* Runs fn(ctx) and returns what it returns. If fn faults with SIGBUS or SIGSEGV on
 * this thread, fn is abandoned at the fault and BP_ECORRUPT is returned. The first
 * call installs process-wide handlers for both signals; a fault outside a guarded
 * call, or sent by kill(), goes to the handler that was there before (by default:
 * the process dies as it would have). fn must not take locks, allocate, or leave
 * any state that abandoning it half-way would break. Guarded calls may nest and may
 * run on several threads at once. */
int bp_guard_call(int (*fn)(void *ctx), void *ctx);

/* Inside a guarded call on this thread: abandons it as a fault would (the call returns
 * BP_ECORRUPT) and does not return. Outside one: returns at once. For LMDB's assertion
 * callback, which fires on some damaged pages just before LMDB aborts. */
void bp_guard_abandon(void);

#endif
