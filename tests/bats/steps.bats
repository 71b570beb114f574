#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Workload steps declared once (workloads/decl/region.c): the new region steps
# on this host, the same table refusing what it does not know on both sides
# (the scenario parser and region's own), and madv-free/pageout's three
# advices under the article's pressure (no swap here: anonymous pages have
# nowhere to go but MADV_FREE's drop).

load helpers
load madv-free-checks

setup() {
  require_memcg
  tmp=$(mktemp -d)
  before_cg=$(pagelab_cgroups)
}

teardown() {
  [ -z "${tmp:-}" ] || rm -rf "$tmp"
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "a cgroup was left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

# scn FILE STEPS: a 128 MiB region under 512 MiB with these steps.
scn() {
  printf '[scenario]\nname = test/steps\nrequires = root memcg\nrepeat = 1\n[sandbox]\nmemory_max = 512M\n[workload region]\nprogram = region\nsize = 128M\nthp = off\nsteps = %s\n' "$2" >"$1"
}

@test "steps: advise on the region's first SIZE, populate:write, pageout and cold without swap" {
  [ -z "$(tail -n +2 /proc/swaps)" ] || skip "swap is on: MADV_PAGEOUT could swap"
  scn "$tmp/s.scn" "populate:write advise:free:64M advise:dontneed:32M advise:cold advise:pageout mincore"
  run "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/steps.json"
  assert_success
  f=$RESULTS/steps.json
  s() { jq ".runs[0].steps | map(select(.workload == \"region\"))[$1].counters" "$f"; }
  # populate:write faults every page in: Rss is the region, all resident.
  [ "$(s 0 | jq .region.rss_kb)" -eq 131072 ]
  [ "$(s 0 | jq .resident_pages)" -eq 32768 ]
  # advise:free:64M marks the first 64 MiB lazy (within a per-CPU batch of 31 pages).
  lf=$(s 1 | jq .region.lazyfree_kb)
  [ "$lf" -le 65536 ] && [ "$lf" -ge $((65536 - 31 * 4)) ]
  # advise:dontneed:32M drops the first 32 MiB at once.
  [ "$(s 2 | jq .region.rss_kb)" -eq $((131072 - 32768)) ]
  [ "$(s 2 | jq .resident_pages)" -eq $((32768 - 8192)) ]
  # cold of the whole region moves nothing out; pageout without swap drops
  # exactly the pages still lazily freed (the 32 MiB of free:64M that dontneed
  # left) and keeps every other one (anon has no backing store; measured 6.18).
  [ "$(s 3 | jq .region.rss_kb)" -eq $((131072 - 32768)) ]
  # (within one per-CPU batch of 31 pages not yet marked lazy: 124 kB)
  lf=$(s 3 | jq .region.lazyfree_kb)
  [ "$lf" -le 32768 ] && [ "$lf" -ge $((32768 - 124)) ]
  pr=$(s 4 | jq .region.rss_kb)
  [ "$pr" -ge 65536 ] && [ "$pr" -le $((65536 + 124)) ]
  [ "$(s 4 | jq .region.lazyfree_kb)" -eq 0 ]
  jq -e '.runs[0].steps | map(select(.step == "advise")) | map(.counters.advice) == ["MADV_FREE","MADV_DONTNEED","MADV_COLD","MADV_PAGEOUT"]' "$f"
  jq -e '.runs[0].steps | map(select(.step == "advise"))[0].counters.advised_bytes == 67108864' "$f"
}

@test "steps: both parsers read one table: an unknown advice or step, a partial advice past the region" {
  scn "$tmp/s.scn" "fill:0xA5 advise:sideways"
  run --separate-stderr "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"'sideways' is not one of free|dontneed|none|pageout|cold|collapse"* ]]
  scn "$tmp/s.scn" "fill:0xA5 advise:free:256M"
  run --separate-stderr "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"advise: 268435456 bytes are more than the region (134217728)"* ]]
  # An offset: the advised range must end inside the region (64M from 96M of 128M).
  scn "$tmp/s.scn" "fill:0xA5 advise:free:64M:96M"
  run --separate-stderr "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"advise: 67108864 bytes from 100663296 run past the region's end (134217728)"* ]]
  scn "$tmp/s.scn" "fill:0xA5 explode"
  run --separate-stderr "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"unknown step 'explode' (known: fill advise populate series"* ]]
  # region itself, from the same rows.
  run "$BUILD/workloads/region" --size 1M advise:sideways
  assert_equal "$status" 2
  assert_output --partial "'sideways' is not one of free|dontneed|none|pageout|cold|collapse"
  run "$BUILD/workloads/region" --help
  assert_success
  assert_output --partial "advise:ADVICE[:SIZE[:OFFSET]]"
  assert_output --partial "populate:ADVICE"
}

@test "steps: a failing madvise names its own advice (MADV_COLLAPSE with THP off), exit 1" {
  scn "$tmp/s.scn" "fill:0xA5 advise:collapse"
  run "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/steps-collapse.json"
  assert_failure 1
  jq -e '.runs[0].exit.workloads[0].error | test("madvise\\(MADV_COLLAPSE\\) of 134217728 bytes")' "$RESULTS/steps-collapse.json"
}

@test "madv-free/pageout: without swap PAGEOUT and COLD free nothing and are OOM-killed; FREE survives" {
  [ -z "$(tail -n +2 /proc/swaps)" ] || skip "swap is on: MADV_PAGEOUT could swap"
  run_scenario madv-free/pageout pageout --repeat 1
  f=$RESULTS/pageout.json
  for r in 0 1; do
    [ "$(jq -r ".runs[$r].variant.advice" "$f")" = "$([ $r = 0 ] && echo pageout || echo cold)" ]
    [ "$(rstep "$f" $r advise | jq .counters.region.rss_kb)" -eq 524288 ]
    [ "$(rstep "$f" $r advise | jq .counters.resident_pages)" -eq 131072 ]
    [ "$(rstep "$f" $r advise | jq .counters.region.lazyfree_kb)" -eq 0 ]
    [ "$(jq -r ".runs[$r].exit.outcome" "$f")" = oom_killed ]
  done
  [ "$(jq -r '.runs[2].variant.advice' "$f")" = free ]
  [ "$(jq -r '.runs[2].exit.outcome' "$f")" = completed ]
  sc=$(rstep "$f" 2 scan | jq .counters.scan)
  [ "$(jq '.pattern + .zero + .written' <<<"$sc")" -eq 131072 ]
  [ "$(jq .written <<<"$sc")" -eq 1 ]
  [ "$(jq .zero <<<"$sc")" -gt 0 ]
}
