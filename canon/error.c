/* SPDX-License-Identifier: MIT */
#include "canon/error.h"

#include <stdarg.h>
#include <stdio.h>

const char *bp_strerror(int code)
{
	switch (code) {
	case BP_OK: return "success";
	case BP_EINVAL: return "invalid argument";
	case BP_ESPEC: return "bad game spec";
	case BP_EPARSE: return "malformed text";
	case BP_EILLEGAL: return "illegal move";
	case BP_ENOMEM: return "out of memory";
	case BP_ERANGE: return "out of range";
	case BP_ENOTFOUND: return "not found";
	case BP_ECORRUPT: return "corrupt data";
	case BP_EFORMAT: return "data of another format";
	case BP_ERULES: return "solved under another rules version";
	case BP_EIO: return "i/o error";
	case BP_EUNSUPPORTED: return "not supported";
	case BP_ECANCELED: return "canceled";
	case BP_EBUSY: return "in use by another process";
	default: return "unknown error";
	}
}

int bp_err_set(struct bp_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}
