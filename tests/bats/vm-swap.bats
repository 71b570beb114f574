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
#
# And the other way round (thp/swap-present, one 6.1 guest): the machine has swap,
# the sandbox may not use it.

load helpers

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  SWAP_SKIP=$(vm_skip_reason 6.12)
  SWAP_SKIP_61=$(vm_skip_reason 6.1)
  export SWAP_SKIP SWAP_SKIP_61
}

# pstep FILE RUN STEP: the region's step.
pstep() {
  jq -c --argjson r "$2" --arg s "$3" '[.runs[$r].steps[] | select(.workload == "region" and .step == $s)][0]' "$1"
}

@test "vm swap (6.12, zram 2G, memory.swap.max 2G): lazily freed pages are dropped, never swapped; without madvise the region is swapped out and survives" {
  [ -z "$SWAP_SKIP" ] || skip "$SWAP_SKIP"
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

# thp/swap-present at a reduced size (scenarios/thp/swap-present.scn, lead E of the THP
# question, docs/thp.md): a 6.1 guest booted THP [madvise] with a 256 MiB zram device,
# the sandbox's memory.swap.max 0, THP [always] through the guest's journal and put back.
# Invariants (mm/vmscan.c, 6.1: get_scan_count scans only the file lists when
# can_reclaim_anon_pages() says no, and a memcg's swap pages are bounded by its
# swap.max, mm/memcontrol.c: mem_cgroup_get_nr_swap_pages): no anon page of the machine
# is scanned or swapped during the pressure although the machine has swap, and the
# region's lazily freed huge pages are what covers the shortfall.
@test "vm swap (6.1, zram 256M, memory.swap.max 0): thp/swap-present at 64 MiB: the machine's swap unused, no anon scan, lazily freed THPs reclaimed" {
  [ -z "$SWAP_SKIP_61" ] || skip "$SWAP_SKIP_61"
  guest_run swap-thp --kernel 6.1 --mem 1200M --swap 256M --thp madvise --timeout 300 \
    run thp/swap-present --repeat 1 --set region=64M --set memory_max=128M --set ballast=16M --set pressure=100M
  assert_success
  f=$(ls "$RESULTS"/swap-thp/*-guest-*.json)
  jq -e '.vm.swap_device == "/dev/zram0" and .host.fingerprint.swap.present and .host.fingerprint.swap.total_kb > 200000' "$f"
  jq -e '[.runs[].variant.thp] == ["default", "on"] and (.runs | all(.sandbox.swap_max_bytes == 0))' "$f"
  jq -e '.runs | all(.knobs | .restored_ok
    and (.applied | any(.name == "thp" and .before == "madvise" and .after == "always"))
    and (.restored | any(.name == "thp" and .now == "madvise" and .ok)))' "$f"
  for r in 0 1; do
    jq -e --argjson r "$r" '.runs[$r].exit.outcome == "completed"' "$f"
    fill=$(pstep "$f" "$r" fill)
    mc=$(pstep "$f" "$r" mincore)
    p=$(pstep "$f" "$r" pressure)
    # THP [always] without madvise fills a fresh guest's region with huge pages too.
    jq -e '.counters.region | .rss_kb == 65536 and .anonhuge_kb >= 32768' <<<"$fill"
    # ballast 16 + region 64 + pressure 100 > 128 MiB: at least 52 MiB of the region go.
    jq -e '.counters.region.rss_kb <= 65536 - 52 * 1024' <<<"$p"
    for k in pgscan_anon pswpout; do
      [ "$(( $(jq ".vmstat_delta.$k // 0" <<<"$p") - $(jq ".vmstat_delta.$k // 0" <<<"$mc") ))" -eq 0 ]
    done
    jq -e '.pagemap.region.swapped == 0' <<<"$p"
    lost=$(( 16384 - $(jq '.pagemap.region.present' <<<"$p") ))
    lf=$(( $(jq '.memcg.stat.pglazyfreed' <<<"$p") - $(jq '.memcg.stat.pglazyfreed // 0' <<<"$mc") ))
    [ "$lf" -ge $((lost - 32)) ] && [ "$lf" -le $((lost + 32)) ]
    echo "# thp=$(jq -r --argjson r "$r" '.runs[$r].variant.thp' "$f"): $lost pages reclaimed (pglazyfreed $lf), pgrefill $(( $(jq '.vmstat_delta.pgrefill // 0' <<<"$p") - $(jq '.vmstat_delta.pgrefill // 0' <<<"$mc") )), thp_split_pmd $(( $(jq '.vmstat_delta.thp_split_pmd // 0' <<<"$p") - $(jq '.vmstat_delta.thp_split_pmd // 0' <<<"$mc") ))" >&3
  done
}
