/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmkernel.h — the Debian kernel series a guest boots by name, and for which
 * architectures and flavours each one exists (guest/vm-kernel fetches them;
 * its header table says which metapackage each is).  The one table of them:
 * `pagelab vm --kernel`, a scenario's `[vm] kernel`, `pagelab vm --help` and
 * the check before a guest is built all read it.
 */
#ifndef PAGELAB_PLAN_VMKERNEL_H
#define PAGELAB_PLAN_VMKERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct vm_series {
	const char *name;               /* what --kernel and [vm] kernel take: "6.12-16k" */
	const char *arches;             /* the --arch values it exists for, '|'-separated */
	const char *flavours;           /* the --flavour values, '|'-separated */
	const char *what;               /* one phrase for a message */
};

/* The series named NAME, or NULL. */
const struct vm_series *vm_series_find(const char *name);

/* The I-th series (0, 1, ...), NULL past the last. */
const struct vm_series *vm_series_at(size_t i);

/* "6.1|6.12|6.12-16k": every series, for an enum and a usage line. */
const char *vm_series_names(void);

/* Whether series NAME exists for ARCH and FLAVOUR: 0, or -EINVAL with a
 * message naming what it needs (-ENOENT: no such series). */
int vm_series_check(const char *name, const char *arch, const char *flavour, struct lab_error *err);

#endif
