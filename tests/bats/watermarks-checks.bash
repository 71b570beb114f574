# SPDX-License-Identifier: GPL-2.0-or-later
# The watermark lab's guest checks, shared by watermarks-vm.bats (the guest lane)
# and watermarks-lru-vm.bats (the host lane: its one 3900M guest boot balances the
# two lanes of scripts/test): both files' setup (one 6.12 guest a test, skipped with
# the reason when the kernel or qemu cannot be had) and their checks.

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  WM_SKIP=$(vm_skip_reason 6.12)
  export WM_SKIP
}

setup() {
  [ -z "$WM_SKIP" ] || skip "$WM_SKIP"
}

# wm_vm STEM [vm options...] run NAME [run options...]: one 6.12 guest.
wm_vm() {
  local stem=$1
  shift
  guest_run "wm-$stem" --kernel 6.12 --timeout 900 "$@"
}

# wm_knob FILE RUN NAME VALUE: the run set the knob to VALUE and put it back.
wm_knob() {
  jq -e --argjson r "$2" --arg n "$3" --arg v "$4" \
    '.runs[$r].knobs | (.applied | any(.name == $n and .after == $v)) and .restored_ok == true' "$1"
}

wm_result() {
  ls "$RESULTS/wm-$1"/*-guest-*.json
}

# The report's JSON row: wm_cell FILE TABLE ROW-PREFIX FIGURE -> the median.
wm_cell() {
  "$PAGELAB" report --format json "$1" |
    jq -r --arg t "$2" --arg r "$3" --arg f "$4" \
      '.tables[] | select(.id == $t) | .rows[] | select((.row | startswith($r)) and .figure == $f) | .cells[0].median // "none"'
}

# The guest's tracepoints (harness/sample/trace/) agree with its counters, run by run:
# nothing lost; every direct reclaim stall is one allocstall and every stall
# closed; every balance_pgdat() pass that followed no full sleep is one
# kswapd_{low,high}_wmark_hit_quickly (mm/vmscan.c: kswapd_try_to_sleep counts
# exactly one of them whenever it returns without the full sleep); the awake
# intervals end in the full sleeps; kswapd woke, so the sampler burst.  The
# one event the lab's default may miss is the pageout group's, which Debian's
# 6.12.118 does not have (memory-high.bats asserts that).
wm_trace_invariants() {
  jq -e 'all(.runs[]; .summary.trace as $t | .samples[-1].vmstat_delta as $v
         | $t.lost.total == 0 and ($t.missing_events - ["vmscan/mm_vmscan_reclaim_pages"]) == []
           and $t.stalls.direct.count == ([$v | to_entries[] | select(.key | startswith("allocstall_")) | .value] | add // 0)
           and $t.stalls.open_at_end == 0
           and ($t.kswapd.rewakes_without_sleep - (($v.kswapd_low_wmark_hit_quickly // 0) + ($v.kswapd_high_wmark_hit_quickly // 0)) | fabs) <= 1
           and $t.kswapd.sleeps >= 1 and $t.kswapd.awake_intervals >= $t.kswapd.sleeps
           and $t.kswapd.awake_longest_ms <= $t.kswapd.awake_total_ms
           and $t.kswapd.premature_sleeps <= $t.kswapd.sleeps
           and .summary.bursts.samples > 0
           and ([.samples[] | select(.cause == "burst")] | length) == .summary.bursts.lines
           and ([.samples[] | select(.cause == "burst") | .bursts // 1] | add) == .summary.bursts.samples)' "$1"
  # The lowest free figure says how it was sampled (a tick that also walked the
  # pages is "walk": seen on 6.12.118), and it is the lowest of every sample.
  jq -e 'all(.runs[]; . as $r | .summary.lowest_free[] | select(.zone == "Normal") as $l
         | $l.free_pages == ([$r.samples[].zones[] | select(.zone == "Normal") | .free] | min)
           and ($l.sampled_by | IN("burst", "tick", "walk", "step", "start", "end")))' "$1"
  echo "# tracepoints: $(jq -c '[.runs[] | {run: .label, k: (.summary.trace.kswapd | {awake_intervals, awake_total_ms, premature_sleeps, rewakes_without_sleep, low_wmark_hit_quickly, high_wmark_hit_quickly}), direct: (.summary.trace.stalls.direct | {count, max_us}), lowest: [.summary.lowest_free[] | select(.zone == "Normal") | .free_pages, .sampled_by], bursts: (.summary.bursts | {samples, stretched_to_ms})}]' "$1")" >&3
}
