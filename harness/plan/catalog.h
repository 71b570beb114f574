/* SPDX-License-Identifier: GPL-2.0-or-later */
/* catalog.h — where scenario files are found.
 *
 * NAME (e.g. madv-free/pressure) is looked up as DIR/NAME.scn in the first of
 * $PAGELAB_SCENARIOS, ./scenarios, <dir of the pagelab binary>/scenarios (a
 * QEMU guest's initramfs) and the source tree; anything that looks like a path
 * (a '/' and ".scn", or starting with '/' or '.') or names an existing file is
 * taken as a FILE.
 */
#ifndef PAGELAB_CATALOG_H
#define PAGELAB_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* The scenarios directory.  0, or -ENAMETOOLONG. */
int catalog_dir(char *buf, size_t len, struct lab_error *err);

/* Does arg name a file rather than a scenario name? */
bool catalog_is_file(const char *arg);

/* The path of NAME|FILE.  0; -ENOENT when NAME is unknown (the message says
 * where it was looked for); -ENAMETOOLONG. */
int catalog_find(const char *arg, char *path, size_t plen, struct lab_error *err);

#endif
