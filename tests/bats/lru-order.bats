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
# Measured per kernel, then asserted: the ORDER.  MADV_FREE queues the folios
# in address order (mm/madvise.c: madvise_free_pte_range ->
# folio_mark_lazyfree; mm/swap.c: lru_lazyfree moves them to the inactive
# file list, or with MGLRU to a generation, in that order), and reclaim takes
# the oldest first, so the lowest addresses go first, from page 1:
#  - 6.18 on this host (classic LRU): one range [1, 18670) in most runs; with
#    the machine busy once 26 ranges, 25 single pages left behind in them;
#  - 6.1 guest (classic LRU, lru_gen 0x0000): one range [1, 18670);
#  - 6.12 guest (MGLRU on, lru_gen 0x0007): one range [1, 18688) — the same
#    order; its walk samples during the pressure step show it growing from
#    the start ([1, 7040) 250 ms before the step ended).

load helpers

lru_checks() {
  local f=$1
  jq -e '.runs[0].exit.outcome == "completed"' "$f"
  jq -e '.runs[0].sources | map(select(.name == "pagemap"))[0].available' "$f"
  # pagemap present == mincore resident, at every step
  jq -e '[.runs[0].steps[] | select(.workload == "region")] | length == 9 and
         all(.pagemap.region.present == .counters.resident_pages)' "$f"
  # the pressure step: reclaimed covers the shortfall, and not much more
  jq -e '.runs[0] as $r
         | ([$r.steps[] | select(.step == "write")][0].memcg.usage_bytes) as $u
         | ([$r.steps[] | select(.step == "pressure")][0]) as $p
         | ($p.counters.pressure_bytes) as $press
         | ($r.sandbox.memory_max_bytes) as $lim
         | (($u + $press - $lim) / 4096) as $need
         | $p.pagemap.region.reclaimed_pages >= $need - 256 and
           $p.pagemap.region.reclaimed_pages <= $need + 2048 and
           $p.pagemap.region.reclaimed_pages == ([$r.steps[] | select(.step == "write")][0].pagemap.region.present - $p.pagemap.region.present)' "$f"
  # the written page 0 stays
  jq -e '[.runs[0].steps[] | select(.step == "pressure")][0].pagemap.region
         | .present_ranges[0][0] == 0 and all(.reclaimed[]; .[0] >= 1) and .ranges_dropped == 0' "$f"
  # the scan faults every reclaimed page back in: present again, as the zero
  # page (Rss unmoved), or as a page of its own where the kernel does not map
  # the zero page on a read (host.fingerprint.zero_page "allocate")
  jq -e '.host.fingerprint as $fp | .runs[0].steps as $s
         | ([$s[] | select(.step == "pressure")][0]) as $p | ([$s[] | select(.step == "scan")][0]) as $c
         | (if $fp.zero_page == "allocate" then $p.pagemap.region.reclaimed_pages * $fp.page_size / 1024 else 0 end) as $grew
         | $c.pagemap.region.faulted_pages == $p.pagemap.region.reclaimed_pages and
           $c.pagemap.region.present == $c.pagemap.region.pages and
           $c.counters.region.rss_kb == $p.counters.region.rss_kb + $grew' "$f" "$f"
}

# The lowest addresses first, from page 1: every
# 1/32 slice of the region above the first reclaimed_pages + 64 pages is still
# whole.  Mostly one range; a loaded machine left single pages behind in it
# (26 ranges, 25 pages skipped, in one run on 6.18 with the machine busy;
# 1 range in the others).
lru_lowest_first() {
  jq -e '[.runs[0].steps[] | select(.step == "pressure")][0].pagemap.region
         | (.pages / (.buckets | length)) as $slice
         | ((.reclaimed_pages + 1 + 64) / $slice | ceil) as $b
         | .reclaimed[0][0] == 1 and all(.buckets[$b:][]; . == $slice)' "$1"
}

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

@test "lru-order in 6.1 (classic LRU) and 6.12 (MGLRU) guests: the same invariants, the same order; the v2 sources" {
  skip_reason=$(vm_skip_reason 6.1 6.12)
  [ -z "$skip_reason" ] || skip "$skip_reason"
  guest_run vm-lru-order --timeout 300 --kernel 6.1 --kernel 6.12 run madv-free/lru-order --no-report
  assert_success
  [ "$(ls "$RESULTS"/vm-lru-order/*-guest-*.json | wc -l)" -eq 2 ]
  for f in "$RESULTS"/vm-lru-order/*-guest-*.json; do
    jq -e '.host.cgroup.memory == "v2" and (.host.lru_gen == "0x0000" or .host.lru_gen == "0x0007")' "$f"
    lru_checks "$f"
    lru_lowest_first "$f"
    # v2's own sources: the sandbox's PSI and memory.events, read at every tick
    jq -e '.runs[0].sources | map(select(.name == "memcg_pressure" or .name == "memory_events") | .available) == [true, true]' "$f"
    jq -e '.runs[0].samples[-1] | .memcg_pressure.some.total_us > 0 and .memory_events.max > 0 and .memory_events.oom_kill == 0' "$f"
  done
  jq -rs 'map(.host.lru_gen) | sort | join(" ")' "$RESULTS"/vm-lru-order/*-guest-*.json | grep -qx '0x0000 0x0007'
}
