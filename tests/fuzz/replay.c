/* SPDX-License-Identifier: MIT */
/* Replays a fuzz corpus without libFuzzer: calls the harness on every file of the
 * directories given, so the test suite (built with gcc) checks every committed input. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz_common.h"

int main(int argc, char **argv)
{
	int files = 0;
	for (int a = 1; a < argc; a++) {
		DIR *d = opendir(argv[a]);
		if (!d) {
			fprintf(stderr, "replay: cannot open %s\n", argv[a]);
			return 1;
		}
		for (struct dirent *e; (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
			FILE *f = fopen(path, "rb");
			if (!f)
				continue;
			static uint8_t buf[1 << 16];
			size_t n = fread(buf, 1, sizeof buf, f);
			fclose(f);
			LLVMFuzzerTestOneInput(buf, n);
			files++;
		}
		closedir(d);
	}
	printf("replayed %d inputs: %d passed, 0 failed\n", files, files);
	return files > 0 ? 0 : 1;
}
