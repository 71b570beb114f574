/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox/settings.h — the sandbox's settings, one table (sandbox/settings.c):
 * per setting the [sandbox] key, the cgroup v2 file, its v1 alias where one
 * exists, the type and range, the cgroup versions that have it, its default
 * and the result key.  The scenario parser types [sandbox] with it, sandbox.c
 * checks the host against it, writes it on create and compares it under
 * --sandbox self, and the result's runs[].sandbox is written from it.
 * A new setting is one row (docs/extending.md, "a setting").  Pure: no I/O.
 */
#ifndef PAGELAB_SANDBOX_SETTINGS_H
#define PAGELAB_SANDBOX_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

enum cg_version { CG_VERSION_NONE = 0, CG_VERSION_V1 = 1, CG_VERSION_V2 = 2 };

#define SB_ON_V1 (1u << CG_VERSION_V1)
#define SB_ON_V2 (1u << CG_VERSION_V2)

enum sandbox_setting_id {
	SB_MEMORY_MAX,
	SB_MEMORY_HIGH,
	SB_MEMORY_LOW,
	SB_MEMORY_MIN,
	SB_SWAP_MAX,
	SB_OOM_GROUP,
	SB_ZSWAP_MAX,
	SB_SWAPPINESS,
	SB_NR_SETTINGS
};

enum sandbox_setting_type {
	SB_TYPE_SIZE,           /* bytes: "900M" */
	SB_TYPE_BOOL,           /* yes|no, written 1|0 */
	SB_TYPE_UINT,           /* a whole number in [min, max] */
};

/* Flags of a row. */
#define SB_F_REQUIRED     0x1u  /* every scenario states it */
#define SB_F_LE_MEMTOTAL  0x2u  /* at most MemTotal (a limit above it limits nothing) */
#define SB_F_V1_PLUS_MAX  0x4u  /* v1's file holds memory_max + value (memsw = limit + swap) */
#define SB_F_SWAP         0x8u  /* the file is absent without swap accounting: skipped then,
				 * unless swap is on (then nothing could limit it) */
#define SB_F_NOOP         0x10u /* value == noop is the kernel's own default: not written, and
				 * no host is asked to have the file for it */

struct sandbox_setting {
	enum sandbox_setting_id id;
	const char *key;        /* [sandbox] key: "memory_high" */
	const char *v2;         /* cgroup v2 file, NULL: v2 has none */
	const char *v1;         /* cgroup v1 alias, NULL: v1 has none */
	enum sandbox_setting_type type;
	unsigned long long min, max;
	unsigned versions;      /* SB_ON_V1 | SB_ON_V2: where it can be applied */
	unsigned flags;
	const char *dflt;       /* applied when not given (as written in a scenario), NULL: left alone */
	unsigned long long noop;/* SB_F_NOOP: the value that changes nothing */
	const char *result_key; /* in runs[].sandbox: "memory_high_bytes" */
	const char *present;    /* a file whose presence says the kernel has it (zswap), NULL */
	const char *why;        /* what it does and where that is true (the kernel's docs) */
};

/* The values of one variant's sandbox. */
struct sandbox_values {
	unsigned long long val[SB_NR_SETTINGS];
	unsigned given;         /* bit (1u << id): the scenario stated it */
	unsigned apply;         /* bit (1u << id): stated or defaulted: to be written where it exists */
};

/* The table, in the order the settings are written (memory.max before v1's
 * memsw, which may never be below it). */
extern const struct sandbox_setting sandbox_settings[SB_NR_SETTINGS];

const struct sandbox_setting *sandbox_setting_find(const char *key);

/* "memory_max, memory_high, ..." for an error message. */
void sandbox_setting_keys(char *buf, size_t len);

/* The file of setting d on cgroup version v: NULL when v has none. */
const char *sandbox_setting_file(const struct sandbox_setting *d, enum cg_version v);

/* Type and range-check one value as written (after ${} substitution).
 * field names it for the message.  0 or -EINVAL/-ERANGE. */
int sandbox_setting_parse(const struct sandbox_setting *d, const char *text, unsigned long long *out,
			  struct lab_error *err);

/* The text to write into the cgroup file for value v of d on version cv
 * (v1 plus-max rows add the memory limit).  0 or -ERANGE. */
int sandbox_setting_format(const struct sandbox_setting *d, const struct sandbox_values *sv,
			   enum cg_version cv, char *buf, size_t len, struct lab_error *err);

/* Does sv ask d of the host: applied and, for a NOOP row, not the noop value? */
bool sandbox_setting_wanted(const struct sandbox_setting *d, const struct sandbox_values *sv);

/* Can a memory controller of version v apply every setting sv asks for?
 * has_file(name, ctx) says whether the host has a cgroup file (NULL: do not
 * ask; rows with a present path are then checked by it only).  -EOPNOTSUPP
 * with the first reason ("memory_low is cgroup v2's memory.low: this host's
 * memory controller is v1"), else 0. */
int sandbox_values_check(const struct sandbox_values *sv, enum cg_version v,
			 bool (*has_file)(const char *name, void *ctx), void *ctx, struct lab_error *err);

#endif
