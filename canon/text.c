/* SPDX-License-Identifier: MIT */
#include "canon/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int reserve(struct bp_text *t, size_t more)
{
	if (t->failed)
		return -1;
	if (t->len + more + 1 <= t->cap)
		return 0;
	size_t cap = t->cap ? t->cap : 64;
	while (cap < t->len + more + 1)
		cap *= 2;
	char *s = realloc(t->s, cap);
	if (!s) {
		t->failed = 1;
		return -1;
	}
	t->s = s;
	t->cap = cap;
	return 0;
}

void bp_text_printf(struct bp_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(t, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

void bp_text_json_string(struct bp_text *t, const char *s)
{
	bp_text_printf(t, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			bp_text_printf(t, "\\%c", c);
		else if (c == '\n')
			bp_text_printf(t, "\\n");
		else if (c < 0x20)
			bp_text_printf(t, "\\u%04x", c);
		else
			bp_text_printf(t, "%c", c);
	}
	bp_text_printf(t, "\"");
}

const char *bp_text_str(const struct bp_text *t)
{
	return t->s ? t->s : "";
}

void bp_text_clear(struct bp_text *t)
{
	t->len = 0;
	if (t->s)
		t->s[0] = '\0';
}

void bp_text_free(struct bp_text *t)
{
	free(t->s);
	t->s = NULL;
	t->len = t->cap = 0;
	t->failed = 0;
}

char *bp_text_bytes(unsigned long long bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (bytes < 1024) {
		snprintf(buf, len, "%llu byte%s", bytes, bytes == 1 ? "" : "s");
		return buf;
	}
	double v = (double)bytes / 1024;
	int u = 0;
	/* thresholds after rounding: 1023.6 KiB prints as 1.00 MiB, not "1024 KiB" */
	while (v >= 1023.5 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}
