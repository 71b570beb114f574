/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/check.c — `pagelab check [--json]` (harness/cmd/cli.md): what this host
 * can and cannot run, and why, from host/host.h's facts.  Exit status: 0 the
 * MADV_FREE scenarios can run here, 3 they cannot (the reasons are listed),
 * 2 bad usage, 1 the check itself failed. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "readcmd.h"
#include "exitcode.h"
#include "host/host.h"

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: pagelab check [--json]\n"
		"\n"
		"Report what this host can and cannot run, and why.  Reads /proc, /sys and the\n"
		"cgroup mounts only; changes nothing.\n"
		"\n"
		"Facts: root, kernel, cgroup mode (v2 / v1 / hybrid / none) and where the memory\n"
		"controller lives, pagelab's own memory cgroup, swap, MemTotal, THP modes, whether\n"
		"smaps_rollup prints LazyFree, memory.reclaim, tracefs, PSI, whether this is a\n"
		"pagelab QEMU guest (PAGELAB_GUEST=1), and quirks found on the kernel command line\n"
		"and in the cgroup setup that change how figures must be read.\n"
		"\n"
		"  --json   print the host object that result documents carry (with every\n"
		"           /proc/sys/vm value and the zones), plus \"madv_free_ready\" and\n"
		"           \"missing\"\n"
		"\n"
		"exit status: 0 the MADV_FREE scenarios can run here (root, a memory cgroup\n"
		"controller, LazyFree); 3 they cannot (the reasons are listed); 2 bad usage;\n"
		"1 the check itself failed.  Other scenarios state their own requirements\n"
		"(cgroup v2, swap, VM mode), checked by `pagelab run` before anything changes.\n");
}

static void row(const char *fact, const char *state, const char *value, const char *why)
{
	if (why != NULL && why[0] != '\0')
		printf("  %-16s %-8s %s -- %s\n", fact, state, value, why);
	else
		printf("  %-16s %-8s %s\n", fact, state, value);
}

static void print_table(const struct host_facts *h)
{
	char v[8500];

	printf("pagelab check: %s %s\n\n", h->kernel, h->machine);
	row("root", h->root ? "ok" : "missing", h->root ? "yes" : "no",
	    "cgroups and /proc/sys/vm can only be changed as root");

	if (h->cg_ok)
		snprintf(v, sizeof(v), "%s, memory controller on %s at %s, own cgroup %s",
			 h->cg.mode, host_cg_version_name(h->cg.memory), h->cg.mount, h->cg.self);
	else
		snprintf(v, sizeof(v), "%s: %s", h->cg.mode[0] ? h->cg.mode : "none", h->cg_error);
	row("memory cgroup", h->cg_ok ? "ok" : "missing", v,
	    "every scenario's workloads run in a sandbox cgroup with a memory limit");
	row("cgroup v2 memory", h->cg_ok && h->cg.memory == CG_VERSION_V2 ? "ok" : "missing",
	    h->cg_ok && h->cg.memory == CG_VERSION_V2 ? "yes" : "no",
	    h->cg_ok && h->cg.memory == CG_VERSION_V2 ? "" :
	    "v2-only steps (memory.reclaim, oom.group, memory.events) need VM mode");

	row("LazyFree", h->lazyfree ? "ok" : "missing",
	    h->lazyfree ? "smaps_rollup prints LazyFree" : "smaps_rollup has no LazyFree line",
	    "the MADV_FREE scenarios count lazily freed pages with it");

	if (h->thp)
		snprintf(v, sizeof(v), "enabled [%s], defrag [%s]", h->thp_enabled, h->thp_defrag);
	else
		snprintf(v, sizeof(v), "not built in");
	row("THP", h->thp ? "ok" : "missing", v,
	    "THP on/off variants madvise the region (MADV_HUGEPAGE needs [always] or [madvise]); nothing global is changed");

	snprintf(v, sizeof(v), "%s, SwapTotal %llu kB", h->swap_active ? "active" : "none",
		 h->swap_total_kb);
	row("swap", h->swap_active ? "ok" : "none", v,
	    h->swap_active ? "sandboxes get swap 0 anyway; watermark runs with swap-out need it" :
	    "sandboxes never swap; the kswapd runs that count swap-out need it (VM mode)");

	snprintf(v, sizeof(v), "%llu kB", h->memtotal_kb);
	row("MemTotal", "ok", v, NULL);

	row("memory.reclaim", h->memory_reclaim ? "ok" : "missing",
	    h->memory_reclaim ? "present" : "absent",
	    "step 11 (memory.reclaim drains lazily freed memory) needs v2 and 5.19+");
	row("tracefs", h->tracefs ? "ok" : "missing", h->tracefs ? "available" : "absent",
	    "vmscan/compaction/oom tracepoints explain reclaim");
	row("PSI", h->psi ? "ok" : "missing", h->psi ? "/proc/pressure/memory readable" : "absent",
	    "memory stall time beside the counters");
	row("VM guest", h->in_vm_guest ? "yes" : "no", h->in_vm_guest ? "PAGELAB_GUEST=1" : "host",
	    h->in_vm_guest ? "" : "destructive scenarios want VM mode (or --allow-destructive)");

	if (h->nr_quirks > 0) {
		size_t i;

		printf("\nquirks:\n");
		for (i = 0; i < h->nr_quirks; i++)
			printf("  - %s\n", h->quirks[i]);
	}
}

/* getopt_long, permuting: --json, --help; no operands.  -1 to go on, else
 * the exit status. */
static int parse_options(int argc, char **argv, bool *json)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;             /* glibc: a fresh scan */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'h':
			check_usage(stdout);
			return LAB_EXIT_RAN;
		default:
			readcmd_say("check", "unknown argument '%s'", argv[optind - 1]);
			check_usage(stderr);
			return LAB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		readcmd_say("check", "unknown argument '%s'", argv[optind]);
		check_usage(stderr);
		return LAB_EXIT_USAGE;
	}
	return -1;
}

int cmd_check(int argc, char **argv)
{
	struct host_facts h;
	struct lab_error err;
	char why[2048];
	bool json = false;
	unsigned miss;
	int ret;

	if ((ret = parse_options(argc, argv, &json)) >= 0)
		return ret;
	lab_error_clear(&err);
	if (host_probe(&h, &err) < 0) {
		readcmd_say("check", "%s", err.msg);
		return LAB_EXIT_HARNESS;
	}
	miss = host_missing(&h, HOST_MADV_FREE_REQS, why, sizeof(why));

	if (json) {
		json_t *o = host_to_json(&h), *m = json_array();
		char *line, *save = NULL;
		char *text;

		if (o == NULL || m == NULL) {
			fprintf(stderr, "pagelab check: out of memory\n");
			return LAB_EXIT_HARNESS;
		}
		for (line = strtok_r(why, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
			json_array_append_new(m, json_string(line));
		json_object_set_new(o, "madv_free_ready", json_boolean(miss == 0));
		json_object_set_new(o, "missing", m);
		text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (text == NULL) {
			fprintf(stderr, "pagelab check: cannot serialise the host object\n");
			return LAB_EXIT_HARNESS;
		}
		printf("%s\n", text);
		free(text);
	} else {
		print_table(&h);
		if (miss == 0) {
			printf("\nMADV_FREE scenarios: can run here\n");
		} else {
			char *line, *save = NULL;

			printf("\nMADV_FREE scenarios: cannot run here:\n");
			for (line = strtok_r(why, "\n", &save); line != NULL;
			     line = strtok_r(NULL, "\n", &save))
				printf("  - %s\n", line);
		}
	}
	return miss == 0 ? LAB_EXIT_RAN : LAB_EXIT_CANNOT;
}
