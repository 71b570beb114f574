/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmkernel.c — the Debian kernel series of VM mode (vmkernel.h). */
#include "vmkernel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/lex.h"

/* Debian 12's kernels (guest/vm-kernel's header: the metapackages).  The 16K
 * kernel is linux-image-6.12-arm64-16k: Debian builds it for arm64 only
 * (CONFIG_ARM64_16K_PAGES) and in no cloud flavour.  6.18 is Debian 13's, from
 * trixie-backports through vm-kernel's private apt tree: the first kernel here
 * with the lazily freed THP unmapped whole at reclaim (6.15+). */
static const struct vm_series series[] = {
	{ "6.1", "amd64|arm64", "generic|cloud", "Debian 12's kernel" },
	{ "6.12", "amd64|arm64", "generic|cloud", "Debian 12 security's 6.12" },
	{ "6.12-16k", "arm64", "generic", "the 6.12 arm64 kernel with 16 KiB pages, PMD 32 MiB" },
	{ "6.18", "amd64|arm64", "generic|cloud", "Debian 13 backports' 6.18 (trixie-backports)" },
};

#define NSERIES (sizeof(series) / sizeof(series[0]))

const struct vm_series *vm_series_find(const char *name)
{
	for (size_t i = 0; name != NULL && i < NSERIES; i++)
		if (strcmp(series[i].name, name) == 0)
			return &series[i];
	return NULL;
}

const struct vm_series *vm_series_at(size_t i)
{
	return i < NSERIES ? &series[i] : NULL;
}

const char *vm_series_names(void)
{
	static char names[64];

	if (names[0] == '\0') {
		size_t off = 0;

		for (size_t i = 0; i < NSERIES; i++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? "|" : "", series[i].name);
	}
	return names;
}

int vm_series_check(const char *name, const char *arch, const char *flavour, struct lab_error *err)
{
	const struct vm_series *s = vm_series_find(name);

	if (s == NULL)
		return lab_error_set(err, ENOENT, "no Debian kernel series '%s' (expected %s)", name,
				     vm_series_names());
	if (!lex_list_has(s->arches, strlen(s->arches), arch, '|') ||
	    !lex_list_has(s->flavours, strlen(s->flavours), flavour, '|'))
		return lab_error_set(err, EINVAL, "--kernel %s exists for --arch %s --flavour %s only (%s), "
				     "not for --arch %s --flavour %s", s->name, s->arches, s->flavours, s->what,
				     arch, flavour);
	return 0;
}
