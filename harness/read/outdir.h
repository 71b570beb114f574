/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outdir.h — a directory of charts or a page, private to the run until it
 * is complete (`plot --out DIR`, `report --html DIR`, `report --plots DIR`).
 *
 * gnuplot opens its output files itself, following symlinks; a directory
 * another user can write into, or swap for a link between pagelab's check
 * and gnuplot's open, would let them choose what is written where.  So
 * nothing is written into DIR while it is made: every file goes into a
 * fresh directory beside it (mkdtemp, 0700, its owner checked: DIR's parent
 * /.DIR.XXXXXX), and when all are written
 *   - DIR did not exist: the private directory is renamed onto DIR (one
 *     rename: DIR appears complete, mode 0755 less the umask);
 *   - DIR exists: each file is renamed into it (a file of the same name is
 *     replaced; anything else of that name — a link, a FIFO, a directory —
 *     is refused before a file moves), and the private directory removed.
 * DIR itself must be nothing yet, or a directory (not a symbolic link to
 * one) owned by this user and writable; anything else is refused before a
 * document is read.  A failure removes the private directory and all in it:
 * DIR is left as it was.  Refusals: harness/cmd/cli.md, docs/refusals-read.md.
 */
#ifndef PAGELAB_OUTDIR_H
#define PAGELAB_OUTDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct outdir {
	char target[PATH_MAX];          /* DIR, as given (messages and the files' paths) */
	char path[PATH_MAX];            /* DIR, trailing slashes dropped (what is renamed onto) */
	char stage[PATH_MAX];           /* the private directory beside it; "" none */
};

/* Whether dir can be an output directory (what names it in messages:
 * "--html"; purpose says what for: "the page").  Makes nothing.  0, or
 * -errno with one line in err: -ENOTDIR for a file, FIFO, device … or a
 * link to one, -ENOENT for a link to nothing, -ELOOP for a link to a
 * directory or a link as any directory on the way to dir, -EPERM for one
 * owned by another user, -EACCES for one that cannot be written, -EINVAL
 * for an empty path. */
int outdir_check(const char *dir, const char *what, const char *purpose, struct lab_error *err);

/* Check dir again, make its missing parents (0755), and make the private
 * directory beside it (d->stage).  0 or -errno. */
int outdir_begin(struct outdir *d, const char *dir, const char *what, const char *purpose,
		 struct lab_error *err);

/* A directory inside the private one (the page's plots/): its path in out. */
int outdir_sub(struct outdir *d, const char *name, char *out, size_t len, struct lab_error *err);

/* Publish what the private directory holds as described above, and forget
 * it.  0 or -errno: -EEXIST for a name in DIR that is not a regular file
 * (nothing was moved), others from the renames. */
int outdir_commit(struct outdir *d, struct lab_error *err);

/* Remove the private directory and everything in it (after a failure). */
void outdir_abort(struct outdir *d);

#endif
