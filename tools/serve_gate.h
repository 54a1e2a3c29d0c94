/* SPDX-License-Identifier: MIT */
/* The gate in front of `boardproof serve`'s HTTP library: it accepts the connections
 * itself and looks at each one's first request head (MSG_PEEK, so nothing is
 * consumed) before handing the socket over. What the library would refuse with its
 * own HTML page, the gate refuses with a JSON error and closes:
 *
 *   414  a request line longer than max_head bytes
 *   431  a request head (line and headers) longer than max_head bytes
 *   400  a request line or header line that is not HTTP/1.0 or 1.1, or an HTTP/1.1
 *        request without Host
 *   408  no complete head within timeout seconds (a slow or silent client)
 *
 * A client that is slow to send its head holds no thread and no library connection:
 * it waits in the gate, which keeps at most max_pending of them and drops the one
 * waiting longest when a new connection would pass that (so a crowd of slow clients
 * cannot keep new ones out). Later requests on a kept-alive connection are the
 * library's to read (tools/cmd_serve.c checks them again). */
#ifndef BP_TOOLS_SERVE_GATE_H
#define BP_TOOLS_SERVE_GATE_H

#include <stddef.h>
#include <sys/socket.h>

typedef struct bp_gate bp_gate;

struct bp_gate_opts {
	int listen_fd;	  /* bound and listening; the gate closes it when stopped */
	unsigned timeout; /* seconds a connection may take to send its first head */
	size_t max_head;  /* bytes of request line and headers; at most 60 KiB */
	int max_pending;  /* connections waiting for their head */
	/* Takes a socket whose first head is complete and sound, and owns it from then
	 * on; or returns -1 when the server is full (the gate answers 503 and closes
	 * it), or -2 when it could not take it and has closed it (out of memory: the gate
	 * answers 503 on a copy of the socket it kept). Called from the gate's thread. */
	int (*handoff)(void *ctx, int fd, const struct sockaddr *addr, socklen_t len);
	void *ctx;
};

/* Starts the gate's thread. @return 0, or -1 (errno set). */
int bp_gate_start(const struct bp_gate_opts *o, bp_gate **out);

/* Stops the thread, closing the listening socket and every connection still waiting. */
void bp_gate_stop(bp_gate *g);

#endif
