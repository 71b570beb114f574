# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# What thp.bats (this host) and thp-vm.bats (the guests) both check of a result.

# The fields of host.fingerprint (harness/result/result.md): every one must be there,
# null where this kernel lacks the file.
check_fingerprint() {
  local f=$1
  jq -e '.host.fingerprint as $p
    | ($p | has("kernel") and has("mglru") and has("cgroup") and has("page_size") and has("pmd_size")
            and has("hugetlb_page_kb") and has("thp") and has("swap") and has("cpus_online")
            and has("cpus_online_list") and has("zones") and has("clocksource") and has("damon"))
    and ($p.damon | has("kdamonds") and has("modules")
                    and (.kdamonds == "absent" or (.kdamonds | type == "array")))
    and ($p.clocksource | type == "string")
    and ($p.kernel | has("release") and has("version") and has("machine") and has("config"))
    and ($p.kernel.release == .host.kernel)
    and ($p.mglru | has("enabled") and has("on") and has("min_ttl_ms"))
    and ($p.cgroup | has("cgroup2_options") and has("memory_recursiveprot") and has("v1_memory_hierarchy")
                     and has("v2_controllers") and has("v2_memory_controller") and has("proc_cgroups_memory"))
    and ($p.thp | .available and has("enabled") and has("defrag") and has("shmem_enabled")
                  and has("khugepaged") and has("mthp") and has("mthp_anon_sizes") and has("hpage_pmd_size"))
    and ($p.thp.khugepaged | has("defrag") and has("max_ptes_none") and has("pages_to_scan"))
    and ($p.swap | has("present") and has("total_kb") and has("zswap"))
    and ($p.swap.zswap == "enabled" or $p.swap.zswap == "disabled" or $p.swap.zswap == "absent")
    and ($p.page_size == 4096 and $p.pmd_size == 2097152)
    and ($p.cpus_online >= 1)
    and ($p.zones | length > 0 and all(.stat_threshold | length == $p.cpus_online and all(. >= 1 and . <= 125)))' "$f"
}
