/* SPDX-License-Identifier: MIT */
/* The explorer's page (tools/web/), embedded at build time by tools/web_embed.c so that
 * `boardproof serve` needs no files at run time and serves exactly these names. */
#ifndef BP_TOOLS_WEB_FILES_H
#define BP_TOOLS_WEB_FILES_H

#include <stddef.h>

struct bp_web_file {
	const char *path; /* "/index.html" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t size;
};

/* The files, ending with an entry whose path is NULL. */
extern const struct bp_web_file bp_web_files[];

#endif
