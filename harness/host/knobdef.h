/* SPDX-License-Identifier: GPL-2.0-or-later */
/* knobdef.h — the machine-wide settings pagelab knows: where each lives, its
 * type, the range the running kernel accepts, and its compiled-in default.
 * Pure (no I/O): the scenario parser types [knobs] with it before anything is
 * touched, the knob journal (knobs.h) writes what it says, and `pagelab audit
 * --advice` lints sysctl.conf-style advice against it.
 *
 * Ranges and defaults are the kernel's own, cited per entry (6.x sources:
 * mm/page_alloc.c page_alloc_sysctl_table, mm/vmscan.c, mm/compaction.c,
 * mm/util.c, fs/drop_caches.c, kernel/sysctl.c).
 */
#ifndef PAGELAB_KNOBDEF_H
#define PAGELAB_KNOBDEF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

enum knob_kind {
	KNOB_SYSCTL,            /* /proc/sys/vm/NAME */
	KNOB_THP,               /* /sys/kernel/mm/transparent_hugepage/{enabled,defrag} */
	KNOB_SWAP,              /* a swap area pagelab adds (swapon) or all areas off */
};

enum knob_type {
	KT_INT,                 /* one integer in [min, max] */
	KT_KB,                  /* a size written as kB: "2G" -> 2097152; plain numbers are kB */
	KT_INTS,                /* blank-separated integers (lowmem_reserve_ratio) */
	KT_ENUM,                /* one of enums ("always|madvise|never") */
	KT_SWAP,                /* "off" or a size (a swap file of that size) */
	KT_TRIGGER,             /* write-only action (compact_memory, drop_caches): never a setting */
};

struct knob_def {
	const char *name;       /* as written in [knobs] and sysctl.conf: "vm.min_free_kbytes", "thp" */
	enum knob_kind kind;
	enum knob_type type;
	const char *path;       /* the file (NULL for swap) */
	long long min, max;     /* KT_INT/KT_KB/KT_INTS: the kernel's accepted range */
	const char *enums;      /* KT_ENUM: "a|b|c" */
	const char *def;        /* compiled-in default as printed, NULL when computed at boot */
	bool scenario;          /* may a scenario's [knobs] change it */
	const char *source;     /* where the range and default come from */
	const char *note;       /* what the audit says about it (NULL: nothing) */
};

/* The knob called name ("vm.x", "vm/x" and "x" for a vm sysctl; "thp",
 * "thp_defrag", "hugetlb_pages", "swap"), or NULL. */
const struct knob_def *knob_def_find(const char *name);

/* Every known knob, for listing (NULL-terminated by name == NULL). */
const struct knob_def *knob_def_table(void);

/* Sysctls that no longer exist, with the release that removed them and what
 * replaced them: NULL when name is not one of them. */
const char *knob_def_removed(const char *name);

/* Why a knob's file may be missing on a kernel (the configs and releases that
 * lack it), for the message of a run that asks for it there. */
const char *knob_def_absent_why(const struct knob_def *d);

/* Type and range-check text for knob d and write, into out (size len), the
 * exact string the journal will write to d->path ("2097152" for
 * vm.min_free_kbytes = 2G; "never" for thp; "67108864" bytes for swap = 64M;
 * "0" for swap = off).  Errors say what was expected. */
int knob_def_value(const struct knob_def *d, const char *text, char *out, size_t len,
		   struct lab_error *err);

#endif
