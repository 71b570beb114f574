/* fuzz_result.c — libFuzzer entry for `pagelab report`'s result-document reader
 * (harness/report/: the loader, the run index, the engine, the formats).
 *
 * An input is a result document: handed to report_main exactly as a user's
 * file would be (a memfd, which is a regular file, so lab_read_input takes
 * it), once as Markdown and once as JSON, with stdout on /dev/null (its
 * one-line refusals stay on stderr, where a crash report must reach too).  A document that is not one is refused (exit 2); nothing may
 * crash, leak or hit UB, and the exit status is 0, 1 or 2 — never a signal.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/result/ by ctest.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	if (null >= 0 && getenv("FUZZ_RESULT_VERBOSE") == NULL)
		dup2(null, 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz-result.json", MFD_CLOEXEC), rc;

	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	{
		char *argv[] = { "report", path, NULL };

		rc = report_main(2, argv);
		if (rc < 0 || rc > 2)
			abort();
	}
	{
		char *argv[] = { "report", "--format", "json", path, NULL };

		rc = report_main(4, argv);
		if (rc < 0 || rc > 2)
			abort();
	}
	fflush(stdout);
	close(fd);
	return 0;
}
