/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox/settings.c — the sandbox's settings as one table (settings.h).
 *
 * Files and semantics: Documentation/admin-guide/cgroup-v2.rst ("Memory
 * Interface Files") and cgroup-v1/memory.rst; the writers are
 * mm/memcontrol.c (memory_max_write, memory_high_write, memory_low_write,
 * memory_min_write, swap_max_write, memory_oom_group_write, zswap_max_write)
 * and mm/memcontrol-v1.c (mem_cgroup_write for the limits,
 * mem_cgroup_swappiness_write).
 */
#include "settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/size.h"

#define SIZE_MAX_LL ((unsigned long long)LLONG_MAX)

const struct sandbox_setting sandbox_settings[SB_NR_SETTINGS] = {
	{ SB_MEMORY_MAX, "memory_max", "memory.max", "memory.limit_in_bytes", SB_TYPE_SIZE, 1, SIZE_MAX_LL,
	  SB_ON_V1 | SB_ON_V2, SB_F_REQUIRED | SB_F_LE_MEMTOTAL, NULL, 0, "memory_max_bytes", NULL,
	  "the hard limit: reclaim, then the OOM killer inside the sandbox" },
	{ SB_MEMORY_HIGH, "memory_high", "memory.high", NULL, SB_TYPE_SIZE, 0, SIZE_MAX_LL,
	  SB_ON_V2, 0, NULL, 0, "memory_high_bytes", NULL,
	  "the throttle limit: above it the sandbox's tasks are throttled and reclaim hard, never "
	  "OOM-killed for it (v1 has no such file; memory.soft_limit_in_bytes is another thing)" },
	{ SB_MEMORY_LOW, "memory_low", "memory.low", NULL, SB_TYPE_SIZE, 0, SIZE_MAX_LL,
	  SB_ON_V2, SB_F_NOOP, NULL, 0, "memory_low_bytes", NULL,
	  "best-effort protection: reclaimed only when no unprotected memory is left" },
	{ SB_MEMORY_MIN, "memory_min", "memory.min", NULL, SB_TYPE_SIZE, 0, SIZE_MAX_LL,
	  SB_ON_V2, SB_F_NOOP, NULL, 0, "memory_min_bytes", NULL,
	  "hard protection: never reclaimed below it (an OOM instead)" },
	{ SB_SWAP_MAX, "swap_max", "memory.swap.max", "memory.memsw.limit_in_bytes", SB_TYPE_SIZE, 0,
	  SIZE_MAX_LL, SB_ON_V1 | SB_ON_V2, SB_F_V1_PLUS_MAX | SB_F_SWAP, "0", 0, "swap_max_bytes", NULL,
	  "swap the sandbox may use (v1: memsw = limit + swap_max; 0 = none)" },
	{ SB_OOM_GROUP, "oom_group", "memory.oom.group", NULL, SB_TYPE_BOOL, 0, 1,
	  SB_ON_V2, SB_F_NOOP, "yes", 0, "oom_group", NULL,
	  "an OOM kill takes the whole sandbox (4.19+; v1 kills one task)" },
	{ SB_ZSWAP_MAX, "zswap_max", "memory.zswap.max", NULL, SB_TYPE_SIZE, 0, SIZE_MAX_LL,
	  SB_ON_V2, 0, NULL, 0, "zswap_max_bytes", "/sys/module/zswap",
	  "compressed swap cache the sandbox may use (5.19+, CONFIG_ZSWAP)" },
	{ SB_SWAPPINESS, "swappiness", NULL, "memory.swappiness", SB_TYPE_UINT, 0, 200,
	  SB_ON_V1, 0, NULL, 0, "swappiness", NULL,
	  "the sandbox's own vm.swappiness (0..200, include/linux/swap.h MAX_SWAPPINESS; v2 has "
	  "no per-cgroup swappiness)" },
};

const struct sandbox_setting *sandbox_setting_find(const char *key)
{
	for (size_t i = 0; i < SB_NR_SETTINGS; i++)
		if (strcmp(sandbox_settings[i].key, key) == 0)
			return &sandbox_settings[i];
	return NULL;
}

void sandbox_setting_keys(char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < SB_NR_SETTINGS && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", sandbox_settings[i].key);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

const char *sandbox_setting_file(const struct sandbox_setting *d, enum cg_version v)
{
	return v == CG_VERSION_V2 ? d->v2 : v == CG_VERSION_V1 ? d->v1 : NULL;
}

int sandbox_setting_parse(const struct sandbox_setting *d, const char *text, unsigned long long *out,
			  struct lab_error *err)
{
	struct lab_error e2;

	switch (d->type) {
	case SB_TYPE_SIZE:
		if (lab_parse_size(text, out, &e2) < 0)
			return lab_error_set(err, EINVAL, "%s", e2.msg);
		if (*out < d->min)
			return lab_error_set(err, ERANGE, "size must be greater than zero, got '%s'", text);
		if (*out > d->max)
			return lab_error_set(err, ERANGE, "'%s' is too large", text);
		return 0;
	case SB_TYPE_BOOL:
		if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "on") || !strcmp(text, "1"))
			*out = 1;
		else if (!strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "off") || !strcmp(text, "0"))
			*out = 0;
		else
			return lab_error_set(err, EINVAL, "expected yes or no, got '%s'", text);
		return 0;
	case SB_TYPE_UINT:
		if (lab_parse_uint(text, out, &e2) < 0)
			return lab_error_set(err, EINVAL, "expected a whole number, got '%s'", text);
		if (*out < d->min || *out > d->max)
			return lab_error_set(err, ERANGE, "expected %llu..%llu, got '%s'", d->min, d->max, text);
		return 0;
	}
	return lab_error_set(err, EINVAL, "unknown type");
}

int sandbox_setting_format(const struct sandbox_setting *d, const struct sandbox_values *sv,
			   enum cg_version cv, char *buf, size_t len, struct lab_error *err)
{
	unsigned long long v = sv->val[d->id];
	int n;

	if (cv == CG_VERSION_V1 && (d->flags & SB_F_V1_PLUS_MAX)) {
		unsigned long long lim = sv->val[SB_MEMORY_MAX];

		if (v > SIZE_MAX_LL - lim)
			return lab_error_set(err, ERANGE, "%s + memory_max is too large", d->key);
		v += lim;
	}
	n = snprintf(buf, len, "%llu", v);
	if (n < 0 || (size_t)n >= len)
		return lab_error_set(err, ERANGE, "%s: value too long", d->key);
	return 0;
}

bool sandbox_setting_wanted(const struct sandbox_setting *d, const struct sandbox_values *sv)
{
	if (!(sv->apply & (1u << d->id)))
		return false;
	return !((d->flags & SB_F_NOOP) && sv->val[d->id] == d->noop);
}

int sandbox_values_check(const struct sandbox_values *sv, enum cg_version v,
			 bool (*has_file)(const char *name, void *ctx), void *ctx, struct lab_error *err)
{
	const char *vname = v == CG_VERSION_V2 ? "v2" : v == CG_VERSION_V1 ? "v1" : "absent";

	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, v);

		/* A default the host lacks is not asked for: oom_group on v1. */
		if (!(sv->given & (1u << d->id)) || !sandbox_setting_wanted(d, sv))
			continue;
		if (f == NULL || !(d->versions & (1u << v))) {
			const char *other = d->v2 ? d->v2 : d->v1;

			return lab_error_set(err, EOPNOTSUPP,
					     "[sandbox] %s is cgroup %s's %s: this host's memory controller is %s "
					     "(%s)%s", d->key, d->v2 ? "v2" : "v1", other, vname, d->why,
					     v == CG_VERSION_V1 ? "; run it in VM mode (pagelab vm), whose guests are v2" : "");
		}
		if (d->present != NULL && has_file != NULL && !has_file(d->present, ctx))
			return lab_error_set(err, EOPNOTSUPP, "[sandbox] %s: this kernel has no %s (%s is absent: %s)",
					     d->key, f, d->present, d->why);
		if (d->present == NULL && has_file != NULL && !(d->flags & SB_F_SWAP) && !has_file(f, ctx))
			return lab_error_set(err, EOPNOTSUPP, "[sandbox] %s: this kernel's memory cgroups have no %s "
					     "(%s)", d->key, f, d->why);
	}
	return 0;
}
