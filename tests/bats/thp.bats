#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The THP question's tools (scenarios/thp/, docs/thp.md) on this host, at reduced
# sizes (tests/scenarios/thp-host.scn, four runs of a 64 MiB region): the counters
# that tell its leads apart, the host's fingerprint, thp_defrag through the journal
# and put back, the region's new steps (fork, partial MADV_FREE with an offset,
# pageflags).  The guests, which run what this host must not, are thp-vm.bats.
# It changes knobs (thp_defrag): run it under flock /tmp/pagelab-heavy.lock.

load helpers
load thp-checks

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

@test "thp host: the leads' counters, pglazyfree = the region's pages after a drain, thp_defrag journaled and put back" {
  require_memcg
  before=$(host_state)
  run_scenario "$TOP/tests/scenarios/thp-host.scn" thp-host
  assert_success
  f=$RESULTS/thp-host.json
  [ "$(host_state)" = "$before" ]
  [ "$(pagelab_cgroups)" = "" ]
  grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/defrag
  # thp_defrag: madvise -> never -> madvise, every run, verified back.
  jq -e '.runs | length == 4 and all(.knobs | (.applied | any(.name == "thp_defrag" and .after == "never"))
         and .restored_ok and (.restored | any(.name == "thp_defrag" and .ok and .now == .original)))' "$f"
  # Without a fork: every page of the range is marked.  LazyFree is per process and
  # exact (huge folios skip the per-CPU batch); pglazyfree is machine-wide /proc/vmstat
  # on this v1 host, so it is read over the MADV_FREE and the drain only (milliseconds).
  for v in '"0"' '"1M"'; do
    jq -e "[.runs[] | select(.variant.first == \"mincore\" and .variant.offset == $v)][0] as \$r
      | ([\$r.steps[] | select(.step == \"drain\")][0]) as \$d
      | ([\$r.steps[] | select(.step == \"mincore\")][0]) as \$m
      | \$d.counters.region.lazyfree_kb == 63488
        and ((\$d.vmstat_delta.pglazyfree // 0) - (\$m.vmstat_delta.pglazyfree // 0)) == 15872
        and ([\$r.steps[] | select(.step == \"pageflags\")][0].counters.pageflags
             | .available and .lazyfree == 15872 and .present == 16384)" "$f"
  done
  # The splits: none for an aligned range, two for [1M, 63M) (mm/huge_memory.c:
  # madvise_free_huge_pmd splits a THP covered in part).
  jq -e '[.runs[] | select(.variant.first == "mincore")] | map([.steps[] | select(.step == "advise")][0].vmstat_delta.thp_split_page // 0) == [0, 2]' "$f"
  # The pressure step's counters are recorded: reclaimed, thp_split_pmd (this kernel's
  # path, lead B), the shrink_inactive sums of the sandbox's file list; the two
  # pressure processes' reclaim counted as the sandbox's (alive through the ack).
  # The two pressure processes were named before they allocated (the "procs"
  # event: exit.workloads[].procs), so an OOM kill of one is placed by its pid.
  jq -e '[.runs[] | select(.variant.first == "mincore")] | all(
      [.exit.workloads[] | select(.name == "region")][0].procs | length == 2 and all(. > 0))' "$f"
  jq -e '[.runs[] | select(.variant.first == "mincore")] | all(
      ([.steps[] | select(.step == "pressure")][0].counters | .pressure_procs == 2 and .region.rss_kb < 65536)
      and (.summary.trace.lru.file.sandbox | .nr_scanned > 0 and .nr_reclaimed > 0)
      and .summary.trace.stalls.memcg.count > 0 and .summary.trace.stalls.memcg.other_tasks_count == 0)' "$f"
  # Recorded, kernel-dependent (6.18.44 here: one thp_split_pmd per reclaimed THP,
  # measured 2026-12-01; mainline 6.18.33's try_to_unmap_one discards them whole).
  echo "# $KREL: $(jq -r '[.runs[] | select(.variant.first == "mincore")][0] | ([.steps[] | select(.step == "pressure")][0].vmstat_delta.thp_split_pmd // 0) - ([.steps[] | select(.step == "mincore")][0].vmstat_delta.thp_split_pmd // 0) | tostring' "$f") thp_split_pmd, $(jq -r '[.runs[] | select(.variant.first == "mincore")][0].summary.trace.lru.file.sandbox | "\(.nr_reclaimed) pages reclaimed, nr_activate0 \(.nr_activate0), nr_activate1 \(.nr_activate1), nr_unmap_fail \(.nr_unmap_fail)"' "$f")" >&3
  check_fingerprint "$f"
  # This host: v1 memory, no MGLRU, its config from /proc/config.gz.
  jq -e '.host.fingerprint | .cgroup.v1_memory_hierarchy and .mglru.enabled == null
         and (.kernel.config.source == "/proc/config.gz" or .kernel.config.source == "/boot/config-" + .kernel.release)
         and .kernel.config.options.CONFIG_MEMCG == "y" and (.kernel.config.options | has("CONFIG_TRANSPARENT_HUGEPAGE"))' "$f"
}

@test "thp host: a child sharing the region keeps MADV_FREE off its huge pages (LazyFree 0, every page swap-backed)" {
  require_memcg
  f=$RESULTS/thp-host.json
  [ -f "$f" ] || skip "needs the first test's run"
  jq -e '[.runs[] | select(.variant.first == "fork")] | length == 2 and all(
      ([.steps[] | select(.step == "fork")][0].counters.child_pid > 0)
      and ([.steps[] | select(.step == "drain")][0].counters.region | .lazyfree_kb == 0 and .anonhuge_kb == 65536)
      and ([.steps[] | select(.step == "pageflags")][0].counters.pageflags | .swapbacked == 16384 and .lazyfree == 0))' "$f"
  # Every victim the kernel named is placed in a tree; the forked child, if
  # taken, is region's by its fork step (exit.oom_victims, tree_from fork_step),
  # a pressure process by the pids region gave before it allocated (procs_event).
  jq -e '[.runs[] | select(.variant.first == "fork")] | all(
      ([.steps[] | select(.step == "fork")][0].counters.child_pid) as $c
      | all(.exit.oom_victims[] | select(.pid != null); .workload == "region")
      and all(.exit.oom_victims[] | select(.pid == $c); .tree_from == "fork_step" and .forked)
      and all(.exit.oom_victims[] | select(.pid != null and .pid != $c and .tree_from != "pid");
              .tree_from == "procs_event" and .forked))' "$f"
  # Nothing to reclaim without swap: the pressure kills (the region or its child).
  jq -e '[.runs[] | select(.variant.first == "fork")] | all(.exit.oom_kill_count >= 1)' "$f"
}

@test "thp host: a knob this kernel lacks (lru_gen without MGLRU) is exit 3 naming the file, before anything changes" {
  require_memcg
  [ ! -e /sys/kernel/mm/lru_gen/enabled ] || skip "this kernel has MGLRU"
  before=$(host_state)
  run "$PAGELAB" run "$TOP/scenarios/thp/pressure.scn" --set lru_gen=0x0000 --no-report --out "$RESULTS/thp-nolru.json"
  assert_failure 3
  assert_output --partial "/sys/kernel/mm/lru_gen/enabled is absent"
  assert_output --partial "CONFIG_LRU_GEN"
  [ ! -e "$RESULTS/thp-nolru.json" ]
  [ "$(host_state)" = "$before" ]
}

@test "thp host: the thp-leads table reads the counters as data (no article table changes)" {
  f=$RESULTS/thp-host.json
  [ -f "$f" ] || skip "needs the first test's run"
  run "$PAGELAB" report "$f"
  assert_success
  assert_output --partial "(\`thp-leads\`)"
  assert_output --partial "| first=mincore, offset=1M · After MADV_FREE and a drain | Region LazyFree | 63,488 kB |"
  assert_output --partial "| first=mincore, offset=1M · After MADV_FREE and a drain | lazily freed pages (kpageflags: anon, not swap-backed) | 15,872 pages |"
  assert_output --partial "| first=mincore, offset=1M · After MADV_FREE and a drain | pglazyfree over them, /proc/vmstat (machine-wide) |"
  assert_output --regexp "first=mincore, offset=0 · During pressure \\| thp_split_pmd \\| [0-9,]+ \\|"
  assert_output --partial "(\`thp-lru\`)"
}
