/* SPDX-License-Identifier: MIT */
/* Text buffers: byte counts in human units (never "0 MiB" for a real size). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "canon/text.h"

struct bytes_case {
	unsigned long long bytes;
	char want[16];
};

ParameterizedTestParameters(text, bytes)
{
	static struct bytes_case cases[] = {
		{ 0, "0 bytes" },
		{ 1, "1 byte" },
		{ 1023, "1023 bytes" },
		{ 1024, "1.00 KiB" },
		{ 1536, "1.50 KiB" },
		{ 100 * 1024 - 1, "100 KiB" },
		{ 1048576, "1.00 MiB" },
		{ 1048575, "1.00 MiB" },
		{ 10 * 1024 - 1, "10.0 KiB" },
		{ 153ull << 40, "153 TiB" },
		{ ~0ull, "16.0 EiB" },
	};
	return cr_make_param_array(struct bytes_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bytes_case *c, text, bytes)
{
	char buf[32];
	cr_expect_str_eq(bp_text_bytes(c->bytes, buf, sizeof buf), c->want, "%llu bytes", c->bytes);
}
