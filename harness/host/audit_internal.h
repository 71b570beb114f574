/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit_internal.h — what the audit's three files share (audit.c gathers,
 * audit_print.c prints, advice.c lints).  Not for outside host/. */
#ifndef PAGELAB_AUDIT_INTERNAL_H
#define PAGELAB_AUDIT_INTERNAL_H

#include <stdbool.h>

#include "audit.h"
#include "base/kv.h"
#include "base/zoneinfo.h"
#include "wmark.h"

/* Everything read from the host, once. */
struct audit_host {
	char kernel[128];
	int kmajor, kminor;
	unsigned page_kb;
	unsigned long long pageblock_pages;     /* PMD size / page size (x86-64: 512) */
	struct zoneinfo *zi;
	struct wm_params params;                /* as the kernel has them now */
	unsigned long long boost_factor;
	char thp_enabled[16];                   /* bracketed word, "" without THP */
	char thp_pmd[16];                       /* hugepages-<PMD>kB/enabled: always|inherit|madvise|never, "" pre-6.8 */
	bool thp_pmd_on;                        /* khugepaged runs: this kernel's activation rule (khugepaged_rule) */
	char shmem_enabled[16];                 /* transparent_hugepage/shmem_enabled, "" if absent */
	char pmd_shmem[16];                     /* hugepages-<PMD>kB/shmem_enabled (6.11+), "" if absent */
	char mthp_on[256];                      /* anon sizes other than PMD set always|madvise: "64kB=always ..." */
	char khugepaged_why[1024];              /* which control keeps khugepaged on, or why none does */
	bool lazy_init;                         /* deferred_init=lazy on the command line */
	struct kv_list meminfo, vmstat;
	unsigned nr_nodes;
};

/* What the kernel log says about the reserve (audit.c: kmsg_scan). */
struct kmsg_facts {
	bool readable;
	unsigned long long alloc_failures;      /* "page allocation failure" */
	unsigned long long oom_kills;           /* "Out of memory: Killed process" */
	unsigned long long raising;             /* khugepaged's "raising min_free_kbytes" (user value set) */
	unsigned long long not_updated;         /* "min_free_kbytes is not updated to" (user value preferred) */
	long long last_user_value;              /* from the last "not updated" line, -1 if none */
	long long last_not_updated_to;
	unsigned long long freed_late_kb;       /* "Freeing initrd memory", "Freeing unused kernel
						 * memory": what joined the zones after the initcalls */
	bool freed_late_seen;
};

/* nr_free_buffer_pages() as this kernel computes it (audit.c). */
unsigned long long audit_free_buffer_pages(const struct audit_host *h);

/* pages in MiB */
double audit_mib(unsigned long long pages, unsigned page_kb);

#endif
