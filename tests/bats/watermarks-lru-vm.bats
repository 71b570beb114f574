#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# watermarks/kswapd-runs' run C with the classic LRU in a Debian 6.12 QEMU guest
# (lru_gen 0x0000 through the guest's journal): kswapd naps and is woken early, as
# in the article.  A guest only, like watermarks-vm.bats, whose other tests it
# shares its checks with (watermarks-checks.bash); a file of its own so that
# scripts/test's guest queue, which either lane takes from, can run it beside
# watermarks-vm.bats (its 3900M guest, about 60–90 s).

load helpers
load watermarks-checks

@test "vm kswapd run C with the classic LRU (lru_gen 0x0000 through the journal): kswapd naps and is woken early, as in the article" {
  wm_vm lru --mem 3900M --disk 2G run watermarks/kswapd-runs --set pace=128M/0 --set wsf=10 \
    --set lru_gen=0x0000 --set cache=1280M --set target=1792M --set others_leave=2304M --set limit=3600M
  assert_success
  f=$(wm_result lru)
  jq -e '(.runs | length) == 1 and .runs[0].exit.outcome == "completed" and .host.lru_gen == "0x0007"' "$f"
  jq -e '.runs[0].knobs | (.applied | any(.name == "lru_gen" and .before == "0x0007" and .after == "0x0000"))
         and (.restored | any(.name == "lru_gen" and .now == "0x0007" and .ok))' "$f"
  # the classic LRU: kswapd reaches high, naps, and is woken again soon (the article's
  # "premature sleep": lowQ 11 and 23). Recorded on 6.12: 95-98 at full size and 21 at
  # half size with the classic LRU (15 on 6.12.118, 2026-12-03), 0-2 with MGLRU; a
  # range, kernel-dependent
  [ "$(wm_cell "$f" kswapd-runs C "kswapd_low_wmark_hit_quickly")" -ge 8 ]
  [ "$(wm_cell "$f" kswapd-runs C "kswapd scan (pgscan_kswapd)")" -gt 50000 ]
  echo "# classic LRU, C: allocstall $(wm_cell "$f" kswapd-runs C "allocstall (all zones)"), lowQ $(wm_cell "$f" kswapd-runs C "kswapd_low_wmark_hit_quickly")" >&3
  wm_trace_invariants "$f"
  # kswapd's wake/sleep intervals, from the tracepoints: with the classic LRU it
  # naps and is woken early, so it re-wakes without a full sleep at least as
  # often as it was woken during a nap (recorded on 6.12 at half size: 9 awake
  # intervals over 6.2 s, 32 re-wakes = lowQ 21 + highQ 11, 3 premature sleeps)
  jq -e '.runs[0].summary.trace.kswapd | .rewakes_without_sleep >= .low_wmark_hit_quickly and .awake_intervals >= 2' "$f"
}
