/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commit.h — the tree this binary was built from, as the build found it:
 * defined in the build directory's gen/commit.c, which cmake/commit.cmake
 * writes at every build (not once at configure time), and only when it
 * changes.  `pagelab version` prints it; every result document records it
 * (harness.commit, harness.modified: harness/result/result.md). */
#ifndef PAGELAB_RUN_COMMIT_H
#define PAGELAB_RUN_COMMIT_H

/* The HEAD commit, 12 hex digits; "unknown" outside a git checkout. */
extern const char run_commit[];
/* 1: a tracked file differed from that commit; 0: none did; -1: unknown. */
extern const int run_modified;

#endif
