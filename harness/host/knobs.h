/* SPDX-License-Identifier: GPL-2.0-or-later */
/* knobs.h — the crash-safe knob journal.
 *
 * Every machine-wide change pagelab makes (a vm sysctl, a THP mode, the
 * hugetlb reservation, a swap area) goes through knob_set(), which first
 * appends the ORIGINAL value to the journal and fsyncs it (the file, and the
 * directory when the file is new), and only then changes the knob.  So at any
 * instant — a SIGKILL included — the journal names every knob that may differ
 * from how the machine was found.  knob_journal_restore() puts them back in
 * reverse order of first change, writes a knob only when it differs (a write
 * of vm.min_free_kbytes is not neutral: it sets the kernel's
 * user_min_free_kbytes), verifies each by reading it back, and removes the
 * journal only when every knob is verified.  Restoring is idempotent.
 *
 * The journal lives at $PAGELAB_JOURNAL or /var/lib/pagelab/journal, with a
 * lock file beside it (JOURNAL.lock, never removed) that a knob-changing run
 * holds with flock(2) for its whole life.  A journal nobody holds belongs to a
 * run that died: `pagelab restore`, or the next run, restores it.
 *
 * Journal format (text, append-only, one record per line, values %-escaped):
 *   pagelab-journal 1 pid=PID           first line
 *   knob NAME ORIGINAL                  before NAME is first changed
 *   swapfile PATH                       before PATH is created and swapped on
 *   swapoff PATH PRIORITY               before an active area is swapped off
 *   wrote vm.min_free_kbytes VALUE      after a write of it (the user value the kernel keeps)
 * A last line without its newline was torn by a crash before its fsync, so
 * the change it announced was never made: it is ignored.
 */
#ifndef PAGELAB_KNOBS_H
#define PAGELAB_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/error.h"
#include "knobdef.h"

struct knob_journal;

/* The signals after which a knob-changing process puts the knobs back and
 * still writes its result, as for SIGTERM: SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGUSR1, SIGUSR2 and SIGPIPE (each of them would otherwise end the
 * process with the knobs changed).  The caller blocks them, takes each back
 * to SIG_DFL (an ignored signal never reaches a signalfd: a shell starts
 * background jobs with SIGINT and SIGQUIT ignored) and reads them from a
 * signalfd (sampler.h).  Fills set with them. */
void knob_stop_signals(sigset_t *set);

/* Does signal signo, sent by sender (signalfd's ssi_pid), stop the run?
 * Every signal of knob_stop_signals does, but a SIGPIPE the process sent
 * itself: a write of its own to a pipe nobody reads (a workload that died
 * before its ack, `pagelab run | head`), which that write's EPIPE handles. */
bool knob_signal_stops(int signo, pid_t sender);

/* $PAGELAB_JOURNAL, else /var/lib/pagelab/journal. */
const char *knob_journal_path(void);

/* Take the journal's lock for a knob-changing run (creating the directory and
 * the lock file).  -EBUSY when a live process holds it (*owner gets its pid,
 * 0 if unknown).  *stale says whether a journal of a dead run is there: the
 * caller restores it (knob_journal_restore) before changing anything. */
int knob_journal_open(const char *path, struct knob_journal **out, bool *stale, pid_t *owner,
		      struct lab_error *err);

/* Release the lock.  Does not restore: call knob_journal_restore first. */
void knob_journal_close(struct knob_journal *j);

/* Is there a journal file (records to restore)? */
bool knob_journal_pending(const struct knob_journal *j);

/* Change knob d to value (already typed by knob_def_value): journal the
 * original first (for THP also vm.min_free_kbytes, which the kernel
 * recomputes on a THP change), fsync, write, read back. */
int knob_set(struct knob_journal *j, const struct knob_def *d, const char *value, struct lab_error *err);

/* The value of a knob as it reads now (normalised: blanks collapsed, THP's
 * bracketed word).  Returns 0 or -errno. */
int knob_read(const struct knob_def *d, char *out, size_t len, struct lab_error *err);

struct knob_restored {
	char name[64];
	char original[128];     /* as journaled */
	char found[128];        /* as it read before restoring */
	char now[128];          /* as it reads after */
	bool written;           /* pagelab had to write it */
	bool ok;                /* verified back */
	char msg[256];          /* what failed, or a note */
};

struct knob_restore_report {
	size_t n;
	struct knob_restored items[32];
	bool min_free_written;          /* a write of vm.min_free_kbytes happened during the run */
	long long user_min_free_kbytes; /* the last value written (the kernel keeps it until reboot) */
	pid_t journal_pid;              /* the run that wrote the journal */
};

/* Restore every journaled knob (reverse order of first change), verify, and
 * remove the journal when all are back.  0 when all are back (or there was no
 * journal: rep->n = 0), -EIO when some are not (the journal stays; rep says
 * which), other -errno when the journal could not be read. */
int knob_journal_restore(struct knob_journal *j, struct knob_restore_report *rep, struct lab_error *err);

/* One line per knob of rep on f, each prefixed with prefix. */
void knob_report_print(const struct knob_restore_report *rep, FILE *f, const char *prefix);

#endif
