/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.h — what this host is and what it can run (`pagelab check` prints it:
 * harness/cmd/check.c), and the "host" object every result document carries. */
#ifndef PAGELAB_HOST_H
#define PAGELAB_HOST_H

#include <stdbool.h>
#include <jansson.h>

#include "base/error.h"
#include "sandbox/sandbox.h"

struct host_facts {
	bool root;
	char kernel[128];               /* uname -r */
	char machine[32];               /* uname -m */
	char hostname[65];              /* uname -n: a fleet's results, one column per host */
	struct cg_host cg;              /* memory.none when no memory controller */
	bool cg_ok;
	char cg_error[256];
	bool swap_active;
	unsigned long long swap_total_kb;
	unsigned long long memtotal_kb;
	char thp_enabled[16];           /* the bracketed mode: always|madvise|never, "" if no THP */
	char thp_defrag[32];
	char lru_gen[16];               /* /sys/kernel/mm/lru_gen/enabled ("0x0007"), "" without MGLRU */
	bool thp;                       /* /sys/kernel/mm/transparent_hugepage exists */
	bool lazyfree;                  /* smaps_rollup prints LazyFree */
	bool memory_reclaim;            /* v2 memory.reclaim present */
	bool tracefs;                   /* mounted or mountable (in /proc/filesystems) */
	bool psi;                       /* /proc/pressure/memory readable */
	bool in_vm_guest;               /* running as a pagelab QEMU guest's /init */
	size_t nr_quirks;
	char quirks[8][256];            /* e.g. "deferred_init=lazy: zone managed pages grow on first touch" */
};

int host_probe(struct host_facts *out, struct lab_error *err);

/* A /proc/meminfo figure in bytes ("MemTotal", "SwapTotal"); 0 when unknown. */
unsigned long long host_meminfo_bytes(const char *key);

/* The requirements a scenario can state, as a bit set. */
enum host_req {
	REQ_ROOT = 1 << 0,
	REQ_MEMCG = 1 << 1,       /* a memory controller, v1 or v2 */
	REQ_CGROUP_V2 = 1 << 2,
	REQ_THP = 1 << 3,
	REQ_SWAP = 1 << 4,
	REQ_LAZYFREE = 1 << 5,
	REQ_VM = 1 << 6,          /* must run inside a pagelab QEMU guest */
};

/* Which of req this host lacks, one reason per line appended to why
 * (size whylen).  Returns the missing bits (0 = can run). */
unsigned host_missing(const struct host_facts *h, unsigned req, char *why, size_t whylen);

/* The result document's "host": kernel, cgroup mode, THP modes, every
 * /proc/sys/vm value before the run, MemTotal, zones with managed pages,
 * swap, quirks. */
json_t *host_to_json(const struct host_facts *h);

/* What the MADV_FREE scenarios need (scenarios/madv-free/): `pagelab check`'s verdict. */
#define HOST_MADV_FREE_REQS (REQ_ROOT | REQ_MEMCG | REQ_LAZYFREE)

/* "v1", "v2", or NULL for no memory controller. */
const char *host_cg_version_name(enum cg_version v);

#endif
