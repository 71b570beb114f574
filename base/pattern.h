/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pattern.h — a POSIX extended regular expression from outside, compiled
 * only when what it costs to compile is bounded.
 *
 * A scenario's `ready = stdout:RE` and a metrics table's patterns are
 * written by whoever wrote the file, and glibc's regcomp trusts its
 * pattern: it expands every bounded repetition by copying the repeated
 * subtree, so nested repetitions multiply.  ((a{200}){200}){200} is eight
 * million copies of `a`: regcomp took 1.6 GB of peak RSS and 2 s to build
 * it, from 20 characters (glibc 2.36, Debian 12): about 210 bytes a copy.
 *
 * lab_pattern_cost counts the parts the pattern expands to, the way
 * regcomp copies them (an atom, a bracket expression or a group's
 * contents, times each repetition over it: {n} n, {n,} n + 1, {n,m} m,
 * + 2), saturating above LAB_PATTERN_MAX_PARTS.  It overcounts a little
 * (an operator counts as a part, {0,m} as m); the trial below bounds what
 * it misses.
 *
 * The count is not the whole cost.  glibc's epsilon closures grow with
 * repetitions of what may match nothing, nested or side by side: within
 * the count, ^(g?|h?){300}c=([0-9]+)$ (with submatches) took 2 GB and 6 s
 * before regcomp gave up with REG_ESPACE, and ((((g*)?)*)?){100} did not finish in 30 s.  No count
 * found so far says which, so a pattern that passes the checks below is
 * first compiled in a child process, which is killed once it holds
 * LAB_PATTERN_MAX_BYTES more than it began with or has run
 * LAB_PATTERN_MAX_SECONDS; only then is it compiled here.  A pattern
 * pagelab ships takes well under a millisecond there; a flat one
 * (lab_pattern_flat) is not tried.
 *
 * lab_pattern_compile refuses, before regcomp sees it here:
 *   - a pattern longer than LAB_PATTERN_MAX_LEN bytes;
 *   - one that expands to more than LAB_PATTERN_MAX_PARTS parts (at the
 *     bound, a{1999} took 2.2 MB and 0.3 ms);
 *   - a back-reference (\1 to \9): not POSIX ERE but a glibc extension,
 *     and the one feature whose matching time can grow exponentially with
 *     the line matched;
 *   - one whose trial compile (above) went past its bounds: REG_ESPACE;
 * and otherwise gives regcomp's own verdict.
 */
#ifndef PAGELAB_BASE_PATTERN_H
#define PAGELAB_BASE_PATTERN_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#define LAB_PATTERN_MAX_LEN 255
#define LAB_PATTERN_MAX_PARTS 2000UL
#define LAB_PATTERN_MAX_BYTES (64UL << 20)
#define LAB_PATTERN_MAX_SECONDS 0.5

/* The parts PAT expands to, at most LAB_PATTERN_MAX_PARTS + 1. */
unsigned long lab_pattern_cost(const char *pat);

/* Is PAT flat: each repetition in it a *, + or ? right after one atom (a
 * character, a bracket expression, .), no interval, none over a group or
 * another repetition?  Such a pattern of at most LAB_PATTERN_MAX_LEN bytes
 * is at most 510 parts: the worst such shapes compiled in 0.4 ms and 2 MB
 * here, and test_pattern holds them to 0.2 s and 64 MiB.  It needs no
 * trial, and no fork is made for it. */
bool lab_pattern_flat(const char *pat);

/* regcomp(RE, PAT, CFLAGS) (CFLAGS must hold REG_EXTENDED) when PAT is
 * within the bounds above: 0, or a REG_* code with why in MSG (a refused
 * pattern: REG_ESIZE, or REG_BADPAT for a back-reference).  On failure RE
 * holds nothing to free. */
int lab_pattern_compile(regex_t *re, const char *pat, int cflags, char *msg, size_t msglen);

#endif
