/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.h — `pagelab audit`: this host's watermark arithmetic, explained.
 *
 *   pagelab audit [--json] [--wsf N] [--watch S] [--advice FILE] [--floor SIZE]
 *
 * Reads /proc and /sys only (and /dev/kmsg); changes nothing.  Says who set
 * vm.min_free_kbytes (khugepaged's formula, the sqrt formula, or a user
 * write) and what it would become with THP off; predicts every zone's
 * min/low/high and protection array from the zones' managed pages and
 * compares them with /proc/zoneinfo; computes MemAvailable's reserve; prices
 * a proposed watermark_scale_factor (--wsf); answers the article's three
 * questions over a short watch of /proc/vmstat (--watch S, default 5, 0 = no
 * watch).  --advice FILE lints a sysctl.conf-style file against this kernel
 * instead (harness/host/audit.c says what it checks; --floor is the MemAvailable
 * floor below which a value is called harmful, default 10 % of MemTotal).
 *
 * Exit status: 0 the audit ran (its findings are data), 1 a source could not
 * be read, 2 bad usage, and with --advice: 0 nothing flagged as an error,
 * 1 the file could not be read, 4 the advice has errors.
 */
#ifndef PAGELAB_AUDIT_H
#define PAGELAB_AUDIT_H

/* argv[0] is "audit". */
int audit_main(int argc, char **argv);

#endif
