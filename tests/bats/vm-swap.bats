#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# With swap (issue "Beyond the articles", item 2; scenarios/beyond/swap-pressure.scn):
# the MADV_FREE article's pressure run with swap allowed to the sandbox
# (memory.swap.max 2G) on a zram device in a 6.12 guest (`pagelab vm`, [vm] swap
# = 2G).  Which of the region's pages are dropped and which are swapped: the
# region's pagemap at the pressure step (present / swapped bits; read without
# faulting), memory.stat's pglazyfreed and the vmstat pswpout delta.
#
# Invariants (mm/vmscan.c: shrink_folio_list): a lazily freed page is clean and
# !swapbacked, so reclaim discards it and never writes it to swap — with
# MADV_FREE at most the one page written after the call (dirty again, so
# swapbacked) can be swapped; without madvise the region is anonymous dirty
# memory, and what the article saw OOM-killed now survives by swapping it out.

load helpers

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  SWAP_SKIP=$(vm_skip_reason 6.12)
  export SWAP_SKIP
}

setup() {
  [ -z "$SWAP_SKIP" ] || skip "$SWAP_SKIP"
}

# pstep FILE RUN STEP: the region's step.
pstep() {
  jq -c --argjson r "$2" --arg s "$3" '[.runs[$r].steps[] | select(.workload == "region" and .step == $s)][0]' "$1"
}

@test "vm swap (6.12, zram 2G, memory.swap.max 2G): lazily freed pages are dropped, never swapped; without madvise the region is swapped out and survives" {
  guest_run swap --kernel 6.12 --timeout 600 run beyond/swap-pressure
  assert_success
  f=$(ls "$RESULTS"/swap/*-guest-*.json)
  jq -e '.vm.swap_device == "/dev/zram0" and (.runs | all(.sandbox.swap_max_bytes == 2147483648))' "$f"
  jq -e '[.runs[].variant.advice] == ["free", "none"]' "$f"
  # A: MADV_FREE — survives; the region's lost pages went without swap.
  jq -e '.runs[0].exit.outcome == "completed"' "$f"
  p=$(pstep "$f" 0 pressure)
  lost=$((131072 - $(jq '.pagemap.region.present' <<<"$p")))
  [ "$lost" -gt 50000 ]
  jq -e '.pagemap.region.swapped <= 1' <<<"$p"
  # pglazyfreed (the sandbox's memory.stat) counts every page dropped, within one batch.
  lf=$(jq '.memcg.stat.pglazyfreed' <<<"$p")
  [ "$lf" -ge $((lost - 32)) ]
  [ "$lf" -le $((lost + 32)) ]
  # B: no madvise — the article's OOM kill does not happen: the region is swapped.
  jq -e '.runs[1].exit.outcome == "completed"' "$f"
  q=$(pstep "$f" 1 pressure)
  jq -e '.pagemap.region.swapped > 10000' <<<"$q"
  jq -e '(.vmstat_delta.pswpout // 0) >= .pagemap.region.swapped' <<<"$q"
  echo "# advise=free: $lost pages dropped (pglazyfreed $lf), $(jq '.pagemap.region.swapped' <<<"$p") swapped, pswpout $(jq '.vmstat_delta.pswpout // 0' <<<"$p"); advise=none: $(jq '.pagemap.region.swapped' <<<"$q") swapped, pswpout $(jq '.vmstat_delta.pswpout // 0' <<<"$q")" >&3
}
