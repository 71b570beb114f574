/* SPDX-License-Identifier: GPL-2.0-or-later */
/* catalog.h — where scenario files are found (harness/cmd/cli.md, "Which file a
 * scenario argument names").
 *
 * An argument is a PATH or a NAME, decided by its spelling alone — never by
 * what the current directory happens to hold:
 *   PATH  starts with '/', './' or '../', or holds a '/' and is not a NAME
 *         (tests/scenarios/knobs.scn): that file, wherever it is;
 *   NAME  words of letters, digits, '_', '-' and '.' (not starting with '.'
 *         or '-') joined by single '/', not ending in ".scn"
 *         (madv-free/probe): DIR/NAME.scn of the catalogue DIR only;
 *   anything else (x.scn, "") is neither, and refused: a file in the current
 *         directory is named ./x.scn.
 * The catalogue DIR is the first of $PAGELAB_SCENARIOS (after the trust
 * check of base/trust.h), <dir of the pagelab binary>/scenarios (a QEMU
 * guest's initramfs) and <data directory>/scenarios (base/paths.h: the
 * installed share/pagelab, $PAGELAB_DATA_DIR after the same check, or the
 * source tree of an in-tree build).  ./scenarios is never looked at.
 */
#ifndef PAGELAB_CATALOG_H
#define PAGELAB_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* The catalogue directory.  0; -EPERM when $PAGELAB_SCENARIOS or
 * $PAGELAB_DATA_DIR is refused by the trust check (err names it);
 * -ENAMETOOLONG. */
int catalog_dir(char *buf, size_t len, struct lab_error *err);

/* Does arg name a file (a PATH above) rather than a scenario name? */
bool catalog_is_file(const char *arg);

/* Is arg spelled as a scenario NAME? */
bool catalog_is_name(const char *arg);

/* The path of NAME|PATH.  0; -ENOENT when NAME is unknown (the message says
 * where it was looked for); -EINVAL when arg is neither; -EPERM when the
 * catalogue (or, for a catalogue from the environment, the file in it) is
 * refused by the trust check; -ENAMETOOLONG. */
int catalog_find(const char *arg, char *path, size_t plen, struct lab_error *err);

#endif
