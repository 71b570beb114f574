#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# "The folio, not the page" (issue "Beyond the articles", item 4): a write of
# 1 byte, 4 KiB and 2 MiB into a lazily freed 512 MiB region, THP off and on
# (scenarios/beyond/folio-write.scn), then 700 MiB of pressure with the THP
# split counters recorded.  On this host (6.18, cgroup v1: the vmstat deltas are
# machine-wide) 9 s.  Measured here: THP on, 700 MiB: thp_split_pmd 173-174,
# thp_split_page 0, thp_deferred_split_page 0 — reclaim unmaps each lazily freed
# huge folio by splitting its PMD and frees the folio whole (88,576 pages =
# 173 x 512 reclaimed), it never splits the folio itself.

load helpers
load madv-free-checks

setup() {
  require_memcg
  before_cg=$(pagelab_cgroups)
}

teardown() {
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

@test "folio-write: 1 B and 4 KiB cost one page of LazyFree with THP off, one 2 MiB folio with THP on; 2 MiB costs 2 MiB either way" {
  stem=folio-write
  run_scenario beyond/folio-write $stem
  assert_success
  check_folio_write "$RESULTS/$stem.json"
  # 6.18 here: reclaim never splits a lazily freed huge folio; it splits the PMD
  # mapping (TTU_SPLIT_HUGE_PMD) once per folio it frees whole.
  case "$KREL" in
  6.18.*)
    for r in 3 4 5; do
      scan=$(jq -c "[.runs[$r].steps[] | select(.workload == \"region\" and .step == \"scan\")][0]" "$RESULTS/$stem.json")
      jq -e '(.vmstat_delta.thp_split_page // 0) == 0 and (.vmstat_delta.thp_deferred_split_page // 0) == 0' <<<"$scan"
      zero=$(jq '.counters.scan.zero' <<<"$scan")
      pmd=$(jq '.vmstat_delta.thp_split_pmd // 0' <<<"$scan")
      [ $((zero % 512)) -eq 0 ]
      [ "$pmd" -ge $((zero / 512)) ]
      [ "$pmd" -le $((zero / 512 + 2)) ]
    done ;;
  esac
}
