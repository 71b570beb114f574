/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trust.h — may pagelab believe a path, or an environment, someone else could
 * have prepared?
 *
 * pagelab runs as root.  It executes the programs $PAGELAB_WORKLOADS names,
 * reads scenarios from $PAGELAB_SCENARIOS and the guest tooling (which it
 * executes) from $PAGELAB_DATA_DIR, and acts on what its knob journal says.
 * Each is believed only where nobody but root and pagelab's own user (the
 * effective uid) could have written it — the knob journal's rule
 * (harness/host/knobs.c), made general:
 *
 *   1. the path, and every directory on the way to it from / (each
 *      component, symbolic links followed as the kernel follows them, at most
 *      40: include/linux/namei.h MAXSYMLINKS), belongs to root or to
 *      pagelab's user (LAB_TRUST_OWN: the path itself to pagelab's user);
 *   2. none of them can be written by its group or by others;
 *   3. one exception to 2: a directory ON THE WAY (never the path itself)
 *      that is sticky (S_ISVTX) and belongs to root or pagelab's user, such
 *      as /tmp.  In a sticky directory only an entry's owner, the
 *      directory's owner or CAP_FOWNER may rename or remove the entry
 *      (fs/namei.c: may_delete -> check_sticky), and the next component must
 *      itself belong to root or pagelab's user (rule 1), so nobody else can
 *      swap it.  The sticky directory's own entries could be planted by
 *      anyone, so it is never trusted as the path itself: PAGELAB_SCENARIOS
 *      =/tmp is refused, /tmp/mine (root's, 0755) is not;
 *   4. a symbolic link on the way belongs to root or pagelab's user too (in
 *      a sticky directory its owner may replace it), and the directory
 *      holding it was checked by 1-3 before it is followed.
 *
 * Not looked at: POSIX ACLs (a group-writable ACL entry on a 0755
 * directory), and who could write the file system underneath (a mount).
 * Pure reads: lstat(2), readlink(2), getcwd(3).
 */
#ifndef PAGELAB_TRUST_H
#define PAGELAB_TRUST_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define LAB_TRUST_DIR 0x1u        /* the path must be a directory */
#define LAB_TRUST_FILE 0x2u       /* the path must be a regular file */
#define LAB_TRUST_NOFOLLOW 0x4u   /* the path itself must not be a symbolic link */
#define LAB_TRUST_OWN 0x8u        /* the path itself belongs to pagelab's user, not merely to root */
#define LAB_TRUST_MISSING_OK 0x10u /* a path that does not exist (yet): its existing part is checked */

/* Check path by the rules above.  what names it in messages ("the knob
 * journal's directory", "PAGELAB_SCENARIOS directory"); hint (may be NULL)
 * is appended to a refusal (" (chmod go-w it, ...)").  Returns 0 when it is
 * trusted; 1 when it does not exist and LAB_TRUST_MISSING_OK allowed that
 * (what exists of it is trusted); -EPERM when it is refused (err: "WHAT
 * PATH ...: pagelab will not trust it"); -ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG or another -errno when it cannot be walked. */
int lab_trust_path(const char *path, const char *what, unsigned flags, const char *hint,
		   struct lab_error *err);

/* The environment variable var when it is set and not empty, checked as a
 * directory by lab_trust_path (what: "VAR directory").  *value gets it, or
 * NULL when var is unset or empty (then 0: nothing to check). */
int lab_trust_env_dir(const char *var, const char **value, struct lab_error *err);

/* The directories pagelab takes from its environment, each checked as
 * lab_trust_env_dir does: PAGELAB_WORKLOADS (programs root executes),
 * PAGELAB_DATA_DIR (scenarios, reference tables, the guest tooling it
 * executes), PAGELAB_SCENARIOS (the catalogue) — except that one which does
 * not exist (yet) is let through here when what exists of its path is
 * trusted: nothing is read from it, and whoever uses it checks it whole then
 * (a guest running a FILE has PAGELAB_SCENARIOS=/scenarios, which is not
 * there).  0, or the first refusal. */
int lab_trust_environment(struct lab_error *err);

/* Is this pagelab's own QEMU guest?  PAGELAB_GUEST=1 alone is a word anyone
 * can put in an environment; it is honoured only with one of two pieces of
 * evidence a process on a host cannot fake:
 *   - the kernel command line (/proc/cmdline, set by whoever booted the
 *     kernel) holds the word pagelab.guest=1, which guest/vm-run passes to
 *     every guest it boots;
 *   - pid 1 is pagelab's guest init: /proc/1/cmdline names /init, and /init
 *     is root's regular file, not writable by group or others, whose header
 *     names guest/vm-guest-init.
 * true with why saying which; false with why saying what is missing. */
bool lab_guest_evidence(char *why, size_t len);

/* PAGELAB_GUEST=1 and lab_guest_evidence.  false for any other value. */
bool lab_in_pagelab_guest(void);

#endif
