#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# madv-free/lru-order (issue 10, item 7): WHICH pages of a MADV_FREE'd region
# reclaim takes first, from the pagemap source (harness/sample/sources/pagemap.c:
# /proc/PID/pagemap at every step, never faulting a page in).
#
# Sizes (scenarios/madv-free/lru-order.scn): 128 MiB region in a 256 MiB
# sandbox under 200 MiB of pressure, THP off: a shortfall of ~72 MiB.
#
# Invariants, on every kernel:
#  - pagemap's present count equals the workload's own mincore count at every
#    step (two kernel interfaces read while the workload stands still);
#  - reclaim covers the shortfall (usage before the pressure + pressure -
#    limit) and stops within 8 MiB past it (memcg reclaim stops once a charge
#    fits: mm/memcontrol.c try_charge_memcg); "covers" within 1 MiB, because
#    usage is charged through per-CPU stocks of MEMCG_CHARGE_BATCH (64) pages
#    (16 pages short in one run on 6.18);
#  - the page written after MADV_FREE (page 0) stays: no reclaimed range
#    holds it;
#  - the scan reads every reclaimed page back: pagemap shows them present
#    again (the shared zero page is mapped) while Rss does not grow.
# The guests' run (6.1 and 6.12) is lru-order-vm.bats; both files check with
# lru-checks.bash.
# Measured per kernel, then asserted: the ORDER.  MADV_FREE queues the folios
# in address order (mm/madvise.c: madvise_free_pte_range ->
# folio_mark_lazyfree; mm/swap.c: lru_lazyfree moves them to the inactive
# file list, or with MGLRU to a generation, in that order), and reclaim takes
# the oldest first, so the lowest addresses go first, from page 1:
#  - 6.18 on this host (classic LRU): one range [1, 18670) in most runs; with
#    the machine busy once 26 ranges, 25 single pages left behind in them,
#    and once (2026-12-07, a suite run) 39 ranges, more than the source lists;
#  - 6.1 guest (classic LRU, lru_gen 0x0000): one range [1, 18670);
#  - 6.12 guest (MGLRU on, lru_gen 0x0007): one range [1, 18688) — the same
#    order; its walk samples during the pressure step show it growing from
#    the start ([1, 7040) 250 ms before the step ended).

load helpers
load lru-checks

@test "lru-order on this host: the lowest addresses go first, from page 1 (classic LRU)" {
  [ ! -e /sys/kernel/mm/lru_gen/enabled ] || [ "$(cat /sys/kernel/mm/lru_gen/enabled)" = 0x0000 ] ||
    skip "MGLRU is on here: the classic-LRU order is asserted only where it runs"
  before_cg=$(pagelab_cgroups)
  run "$PAGELAB" run madv-free/lru-order --no-report --out "$RESULTS/lru-order.json"
  assert_success
  f="$RESULTS/lru-order.json"
  lru_checks "$f"
  lru_lowest_first "$f"
  [ "$(pagelab_cgroups)" = "$before_cg" ]
}

@test "[sample] walk_interval_ms: the page walks only at steps and every walk ms, the tick reads only O(1) sources" {
  run "$PAGELAB" run "$TOP/tests/scenarios/walk.scn" --no-report --out "$RESULTS/walk.json"
  assert_success
  f="$RESULTS/walk.json"
  # What the run read, and at which cadence (runs[].sources).
  jq -e '.runs[0].sources | (map(select(.cadence == "step") | .name) | sort) == ["buddyinfo", "pagemap", "workloads"]' "$f"
  jq -e '.runs[0].sources | all(.[] | select(.cadence == "tick" and .available) | .files[]; startswith("/proc/PID/") | not)' "$f"
  # Plain ticks: no page walk in them; walks and steps: the region's pagemap.
  jq -e '[.runs[0].samples[] | select(.cause == "tick")] | length >= 4 and all(.workloads == null and .pagemap == null and .buddyinfo == null and .zones != null)' "$f"
  jq -e '[.runs[0].samples[] | select(.cause == "walk")] | length >= 2 and all(.pagemap.region.present == 4096 and .workloads.region.rss_kb >= 16384)' "$f"
  jq -e '[.runs[0].steps[] | .pagemap.region.present] == [4096, 4096]' "$f"
  # A walk comes walk ms after the last sample that read the walks (a step,
  # the start, a walk), less at most half a tick (sampler.c: walk_due), and
  # no later than a tick after that.
  jq -e '[.runs[0].samples[] | select(.cause != "tick" and .cause != "burst")] as $w
         | [range(1; $w | length) as $i | select($w[$i].cause == "walk") | $w[$i].t_ms - $w[$i - 1].t_ms]
         | length >= 2 and all(. >= 500 - 125 - 5 and . <= 500 + 250 + 50)' "$f"
}
