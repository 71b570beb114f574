/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c — run a fuzz target's entry point on files, without libFuzzer.
 *
 *   replay_TARGET PATH...   each PATH a file, or a directory of files
 *
 * Every input a fuzzer ever crashed on is kept in tests/fuzz/regress/TARGET/
 * and replayed by ctest (under ASan+UBSan in build-asan): a crash found once
 * stays a unit test.  The seed corpora replay too.  Exit 0 when every input
 * returned; a crash aborts.  As libFuzzer stops at 2 GB of RSS, an input
 * after which the process's peak RSS is past REPLAY_RSS_MAX fails, named: an
 * out-of-memory input stays a unit test too, though no allocation fails here.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#define REPLAY_RSS_MAX (1024L * 1024)   /* KiB: 1 GiB, half of libFuzzer's limit */

static int replay_file(const char *path)
{
	struct lab_error err;
	struct rusage ru;
	long before;
	char *buf = NULL;
	size_t len = 0;

	if (lab_read_file(path, &buf, &len, &err) < 0) {
		fprintf(stderr, "replay: %s\n", err.msg);
		return 1;
	}
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		ru.ru_maxrss = 0;
	before = ru.ru_maxrss;
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	if (before <= REPLAY_RSS_MAX && getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > REPLAY_RSS_MAX) {
		fprintf(stderr, "replay: %s: the peak RSS reached %ld MiB (at most %ld)\n", path, ru.ru_maxrss / 1024,
			REPLAY_RSS_MAX / 1024);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0, n = 0;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **ents;
		int k;

		if (stat(argv[i], &st) < 0)
			continue;       /* an empty regress directory is not in git */
		if (!S_ISDIR(st.st_mode)) {
			bad |= replay_file(argv[i]);
			n++;
			continue;
		}
		k = scandir(argv[i], &ents, NULL, alphasort);
		for (int j = 0; j < k; j++) {
			char path[4096];
			struct stat fst;

			if (ents[j]->d_name[0] != '.' &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name) < sizeof(path) &&
			    stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
				bad |= replay_file(path);
				n++;
			}
			free(ents[j]);
		}
		if (k >= 0)
			free(ents);
	}
	printf("replay: %d input(s)\n", n);
	return bad;
}
