#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The watermark lab on this host, non-destructive: the audit's arithmetic
# against the kernel's own lines, the knob journal under SIGKILL, and the
# advice lint on the checklist article.
#
# What may change here, and only through the knob journal: watermark_scale_factor
# (10/50/200/500 only move where kswapd wakes), watermark_boost_factor, THP
# (never for a moment: min_free_kbytes drops to the sqrt formula's value and
# comes back), and two 2 MiB hugetlb pages.  vm.min_free_kbytes is never
# written on the host: a write sets the kernel's user_min_free_kbytes until
# reboot (mm/page_alloc.c), which no restore can undo — those tests run in VM
# mode.  Every test ends with the knobs, THP, hugetlb and swap exactly as they
# were and no pagelab cgroup left (teardown).  The journal is a per-test file
# ($PAGELAB_JOURNAL), so these tests never touch /var/lib/pagelab.

load helpers

KNOBS_SCN="$TOP/tests/scenarios/knobs.scn"
CHECKLIST="$TOP/tests/fixtures/advice/page-allocator-checklist.conf"

# Every knob these tests may touch, and what they must leave behind.
knob_state() {
  local f
  for f in min_free_kbytes watermark_scale_factor watermark_boost_factor nr_hugepages lowmem_reserve_ratio; do
    printf '%s=%s\n' "$f" "$(tr '\t' ' ' </proc/sys/vm/$f)"
  done
  printf 'thp=%s\n' "$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  printf 'defrag=%s\n' "$(cat /sys/kernel/mm/transparent_hugepage/defrag)"
  grep -E '^HugePages_Total' /proc/meminfo
  printf 'swaps=%s\n' "$(tail -n +2 /proc/swaps | wc -l)"
}

setup() {
  [ "$(id -u)" = 0 ] || skip "needs root (the audit reads /dev/kmsg; knobs need root)"
  export PAGELAB_JOURNAL="$BATS_TEST_TMPDIR/journal"
  before_knobs=$(knob_state)
  before_cg=$(pagelab_cgroups)
}

teardown() {
  if [ -n "${bg:-}" ]; then
    kill -9 "$bg" 2>/dev/null || true
    wait "$bg" 2>/dev/null || true
  fi
  # Whatever a test left journaled goes back, whatever happened.
  "$PAGELAB" restore >/dev/null 2>&1 || true
  [ "$(knob_state)" = "$before_knobs" ] || {
    echo "knobs changed:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

thp_on() {
  grep -q '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled
}

# wait_stopped PID: until the process is stopped (SIGSTOP at a test stop point)
wait_stopped() {
  for _ in $(seq 100); do
    [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
    sleep 0.1
  done
  echo "pid $1 never stopped"; return 1
}

# ---------------------------------------------------------------------------
# The audit's arithmetic

@test "audit: min_free_kbytes is khugepaged's pageblocks x zones x 11, and THP off would give the sqrt value" {
  thp_on || skip "THP is [never] here: khugepaged does not set min_free_kbytes"
  run "$PAGELAB" audit --json --watch 0
  assert_success
  a=$output
  pb=$(jq .pageblock_pages <<<"$a"); z=$(jq .min_free_kbytes.khugepaged.zones <<<"$a")
  # mm/khugepaged.c: set_recommended_min_free_kbytes: pb*z*2 + pb*z*3*3 pages, in kB
  [ "$(jq .min_free_kbytes.khugepaged.kb <<<"$a")" -eq $(( (pb * z * 2 + pb * z * 9) * 4 )) ]
  [ "$(jq .min_free_kbytes.value_kb <<<"$a")" -eq "$(cat /proc/sys/vm/min_free_kbytes)" ]
  [ "$(jq -r .min_free_kbytes.set_by <<<"$a")" = khugepaged ]
  # int_sqrt(lowmem_kb * 16), clamped to [128, 262144]
  lk=$(jq .min_free_kbytes.sqrt.lowmem_kb <<<"$a"); sq=$(jq .min_free_kbytes.sqrt.kb <<<"$a")
  [ $((sq * sq)) -le $((lk * 16)) ] && [ $(((sq + 1) * (sq + 1))) -gt $((lk * 16)) ]
  [ "$(jq .min_free_kbytes.with_thp_never_kb <<<"$a")" -eq "$sq" ]
  [ "$sq" -lt "$(jq .min_free_kbytes.value_kb <<<"$a")" ]
}

@test "audit: each zone's lines equal /proc/zoneinfo after a fresh write of watermark_scale_factor 10, 50, 200, 500" {
  for w in 10 50 200 500; do
    run --separate-stderr "$PAGELAB" audit --json --watch 0 --with vm.watermark_scale_factor=$w
    assert_success
    a=$output
    [ "$(jq .settings.watermark_scale_factor <<<"$a")" -eq "$w" ]
    [ "$(jq .zones_mismatch <<<"$a")" -eq 0 ]
    [ "$(jq .zones_drift <<<"$a")" -eq 0 ] || { jq -c '.zones[] | [.zone, .status]' <<<"$a"; return 1; }
    [ "$(jq '[.zones[] | select(.status != "exact")] | length' <<<"$a")" -eq 0 ]
    [ "$(jq '[.zones[] | select(.protection_exact | not)] | length' <<<"$a")" -eq 0 ]
    # The kernel's own numbers obey the formula, checked here in shell:
    # gap = max(min/4, managed * w / 10000) (mm/page_alloc.c: __setup_per_zone_wmarks).
    while read -r zone managed min low high; do
      [ "$managed" -gt 0 ] || continue
      [ "$zone" = Movable ] && continue
      g1=$((min / 4)); g2=$(( (managed / 10000) * w + ((managed % 10000) * w) / 10000 ))
      gap=$(( g1 > g2 ? g1 : g2 ))
      [ $((low - min)) -eq "$gap" ] || { echo "w=$w $zone: low-min $((low - min)), want $gap"; return 1; }
      [ $((high - low)) -eq "$gap" ]
    done < <(jq -r '.zones[] | "\(.zone) \(.managed) \(.kernel.min - .kernel.boost) \(.kernel.low - .kernel.boost) \(.kernel.high - .kernel.boost)"' <<<"$a")
    [[ "$stderr" == *"restored vm.watermark_scale_factor"* ]]
    [ "$(cat /proc/sys/vm/watermark_scale_factor)" = "$(sed -n 's/^watermark_scale_factor=//p' <<<"$before_knobs")" ]
  done
}

@test "audit: MemAvailable is predicted from vmstat and the lines (plus memory no zone manages yet)" {
  run "$PAGELAB" audit --json --watch 0
  assert_success
  p=$(jq .mem_available.predicted_with_lazy_kb <<<"$output"); m=$(jq .mem_available.meminfo_kb <<<"$output")
  # Read a few microseconds apart: within 1 %.
  [ $((p * 100)) -le $((m * 101)) ] && [ $((m * 100)) -le $((p * 101)) ]
  [ "$(jq .mem_available.totalreserve_pages <<<"$output")" -gt 0 ]
}

@test "audit --wsf 50: the new gap per zone, in pages, from the kernel's formula" {
  run "$PAGELAB" audit --json --watch 0 --wsf 50
  assert_success
  a=$output
  while read -r managed min gap; do
    g2=$(( (managed / 10000) * 50 + ((managed % 10000) * 50) / 10000 ))
    want=$(( min / 4 > g2 ? min / 4 : g2 ))
    [ "$gap" -eq "$want" ]
  done < <(jq -r '.zones as $z | .wsf.zones[] | . as $w | ($z[] | select(.zone == $w.zone and .node == $w.node)) as $k | "\($k.managed) \($k.predicted.min) \($w.gap)"' <<<"$a")
  [ "$(jq '.wsf.low_rise_pages' <<<"$a")" -gt 0 ]
  run "$PAGELAB" audit --watch 0 --wsf 50
  assert_output --partial "watermark_scale_factor 50 instead of"
}

@test "THP madvise -> never -> back through the journal: min_free_kbytes drops to the predicted sqrt value, then returns unwritten" {
  thp_on || skip "THP is [never] here"
  mfk0=$(cat /proc/sys/vm/min_free_kbytes)
  run "$PAGELAB" audit --json --watch 0
  assert_success
  predicted=$(jq .min_free_kbytes.with_thp_never_kb <<<"$output")
  run --separate-stderr "$PAGELAB" audit --json --watch 0 --with thp=never
  assert_success
  got=$(jq .min_free_kbytes.value_kb <<<"$output")
  echo "min_free_kbytes $mfk0 -> $got with THP never (predicted $predicted)"
  [ "$(jq -r .thp_enabled <<<"$output")" = never ]
  [ "$(jq -r .min_free_kbytes.set_by <<<"$output")" = sqrt ]
  # Within 0.1 %: zones may grow between the two reads (deferred_init=lazy).
  [ $((got * 1000)) -le $((predicted * 1001)) ] && [ $((predicted * 1000)) -le $((got * 1001)) ]
  [ "$got" -lt "$mfk0" ]
  # Back: THP restored first, and that alone brought min_free_kbytes back, so it
  # was never written (a write would set user_min_free_kbytes until reboot).
  [[ "$stderr" == *"restored thp: never -> "* ]]
  [[ "$stderr" == *"restored vm.min_free_kbytes: $mfk0 (already back)"* ]]
  [ "$(cat /proc/sys/vm/min_free_kbytes)" -eq "$mfk0" ]
}

@test "scenario watermarks/lines: at scale 10, 50, 200 and 500 every zone's gap follows the kernel's rule, min stays" {
  require_memcg
  run_scenario watermarks/lines lines
  assert_success
  f="$RESULTS/lines.json"
  jq -e '[.runs[].variant.wsf] == ["10", "50", "200", "500"] and all(.runs[]; .exit.outcome == "completed")' "$f"
  jq -e 'all(.runs[]; .knobs.restored_ok)' "$f"
  # low - min = high - low = max(min/4, managed x scale / 10000) in every sample of every
  # zone with pages (managed grows here, deferred_init=lazy: each sample has its own)
  jq -e 'all(.runs[]; (.variant.wsf | tonumber) as $s | all(.samples[].zones[] | select(.managed > 0 and .zone != "Movable");
           (.low - .min) == (.high - .low) and
           ((((.low - .min) - ([((.min - .boost) / 4 | floor), (.managed * $s / 10000 | floor)] | max)) | fabs) <= 1)))' "$f"
  # the scale moves low and high, not min (min's share moves only if Normal grows
  # between runs: deferred_init=lazy; within 1 %)
  jq -e '[.runs[].samples[0].zones[] | select(.zone == "DMA32") | .min] | (max - min) <= max / 100' "$f"
  jq -e '[.runs[].samples[0].zones[] | select(.zone == "DMA32") | .low] | . == (sort) and (unique | length) == 4' "$f"
  run "$PAGELAB" report --format json "$f"
  assert_success
  [ "$(jq '[.tables[] | select(.id == "lines") | .rows[] | select(.figure == "Normal low")] | length' <<<"$output")" -eq 4 ]
  [ "$(jq -r .reference.path <<<"$output")" = results/reference/watermarks.json ] ||
    [[ "$(jq -r .reference.path <<<"$output")" == */results/reference/watermarks.json ]]
}

@test "scenario watermarks/who-sets: THP madvise keeps khugepaged's 67584, never gives the sqrt value, put back unwritten" {
  require_memcg
  thp_on || skip "THP is [never] here"
  mfk0=$(cat /proc/sys/vm/min_free_kbytes)
  run "$PAGELAB" audit --json --watch 0
  predicted=$(jq .min_free_kbytes.with_thp_never_kb <<<"$output")
  run_scenario watermarks/who-sets who-sets
  assert_success
  f="$RESULTS/who-sets.json"
  jq -e '[.runs[].variant.thp] == ["madvise", "never"]' "$f"
  [ "$(jq '.runs[0].knobs.min_free_kbytes_after' "$f")" -eq "$mfk0" ]
  got=$(jq '.runs[1].knobs.min_free_kbytes_after' "$f")
  [ "$got" -lt "$mfk0" ]
  [ $((got * 1000)) -le $((predicted * 1001)) ] && [ $((predicted * 1000)) -le $((got * 1001)) ]
  # min_free_kbytes came back with THP, so the journal did not write it
  jq -e '.runs[1].knobs.restored | map(select(.name == "vm.min_free_kbytes"))[0] | .ok and (.written | not)' "$f"
  [ "$(cat /proc/sys/vm/min_free_kbytes)" -eq "$mfk0" ]
  run "$PAGELAB" report "$f"
  assert_success
  grouped=$(sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$got")
  assert_output --partial "| THP never | min_free_kbytes after the knobs | $grouped kB | 13,769 kB |"
  assert_output --partial "13,769 kB"
}

@test "report: results of two articles are refused with one line (exit 2)" {
  require_memcg
  run_scenario watermarks/lines lines-2 --set wsf=10
  assert_success
  run_scenario madv-free/probe probe-2
  assert_success
  run "$PAGELAB" report "$RESULTS/lines-2.json" "$RESULTS/probe-2.json"
  assert_failure 2
  assert_output --partial "the results come from two articles (watermarks and madv-free)"
}

# ---------------------------------------------------------------------------
# The knob journal

@test "a knob-changing run sets its knobs, records them, and puts every one back" {
  require_memcg
  stem=knobs-normal
  run_scenario "$KNOBS_SCN" $stem
  assert_success
  [ "$(rq $stem '.runs[0].knobs.applied | length')" -eq 4 ]
  [ "$(rq $stem '.runs[0].knobs.applied[] | select(.name == "vm.watermark_scale_factor") | .after')" = 200 ]
  [ "$(rq $stem '.runs[0].knobs.applied[] | select(.name == "hugetlb_pages") | .after')" = 2 ]
  [ "$(rq $stem '.runs[0].knobs.restored_ok')" = true ]
  [ "$(rq $stem '[.runs[0].knobs.restored[] | select(.ok | not)] | length')" -eq 0 ]
  if thp_on; then
    # THP never moved min_free_kbytes down during the run; THP's restore moved it back.
    [ "$(rq $stem '.runs[0].knobs.min_free_kbytes_after')" -lt "$(cat /proc/sys/vm/min_free_kbytes)" ]
    [ "$(rq $stem '.runs[0].knobs.restored[] | select(.name == "vm.min_free_kbytes") | .written')" = false ]
  fi
  # Reverse order of change: hugetlb first, the scale factor last.
  [ "$(rq $stem '.runs[0].knobs.restored[0].name')" = hugetlb_pages ]
  [ "$(rq $stem '.runs[0].knobs.restored[-1].name')" = vm.watermark_scale_factor ]
  [ ! -e "$PAGELAB_JOURNAL" ]
}

@test "SIGKILL after the journal is written, after the change, at the THP switch, mid-run: pagelab restore puts every knob back" {
  require_memcg
  for point in journaled:1 changed:1 journaled:3 changed:3 changed:4 midrun; do
    stem=knobs-kill-${point/:/-}
    if [ "$point" = midrun ]; then
      "$PAGELAB" run "$KNOBS_SCN" --no-report --set hold_ms=20000 --out "$RESULTS/$stem.json" 2>"$RESULTS/$stem.err" &
      bg=$!
      wait_for $stem mincore
      [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 200 ]
      [ "$(cat /proc/sys/vm/nr_hugepages)" = 2 ]
      grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled
    else
      PAGELAB_TEST_STOP=$point "$PAGELAB" run "$KNOBS_SCN" --no-report --out "$RESULTS/$stem.json" \
        2>"$RESULTS/$stem.err" &
      bg=$!
      wait_stopped $bg
    fi
    # The journal is on disk before any change: it names the original.
    grep -q "^knob vm.watermark_scale_factor $(sed -n 's/^watermark_scale_factor=//p' <<<"$before_knobs")\$" \
      "$PAGELAB_JOURNAL"
    case $point in
      journaled:1) [ "$(knob_state)" = "$before_knobs" ] ;;   # journaled, not yet changed
      changed:1) [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 200 ] ;;
      journaled:3) grep -q '^knob thp ' "$PAGELAB_JOURNAL"; grep -q '^knob vm.min_free_kbytes ' "$PAGELAB_JOURNAL" ;;
      changed:3|changed:4) grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled ;;
    esac
    kill -9 $bg
    wait $bg 2>/dev/null || true
    bg=
    [ -e "$PAGELAB_JOURNAL" ]
    run "$PAGELAB" restore
    assert_success
    assert_output --partial "verified back; journal removed"
    [ "$(knob_state)" = "$before_knobs" ] || { echo "after $point:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
    [ ! -e "$PAGELAB_JOURNAL" ]
    [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "after $point, cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
    [ "$(awk '/^HugePages_Total/ {print $2}' /proc/meminfo)" -eq 0 ]
    # Idempotent: a second restore finds nothing to do.
    run "$PAGELAB" restore
    assert_success
    assert_output --partial "nothing to restore"
  done
}

@test "SIGINT, SIGTERM or SIGHUP mid-run: exit 130 and every knob back before pagelab exits" {
  require_memcg
  for sig in INT TERM HUP; do
    stem=knobs-sig-$sig
    "$PAGELAB" run "$KNOBS_SCN" --no-report --set hold_ms=20000 --out "$RESULTS/$stem.json" 2>"$RESULTS/$stem.err" &
    bg=$!
    wait_for $stem mincore
    [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 200 ]
    kill -$sig $bg
    st=0; wait $bg || st=$?
    bg=
    [ "$st" -eq 130 ]
    [ "$(knob_state)" = "$before_knobs" ] || { echo "after SIG$sig:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
    [ ! -e "$PAGELAB_JOURNAL" ]
    [ "$(rq $stem '.runs[0].knobs.restored_ok')" = true ]
    [ "$(rq $stem .status)" = interrupted ]
  done
}

@test "a swap file through the journal: on during the run, off and removed after it, and after a SIGKILL" {
  require_memcg
  stem=knobs-swap
  run_scenario "$TOP/tests/scenarios/knobs-swap.scn" $stem
  assert_success
  [ "$(rq $stem '.runs[0].knobs.restored_ok')" = true ]
  f=$(rq $stem '.runs[0].knobs.restored[0].name')
  [[ "$f" == "$BATS_TEST_TMPDIR"/swapfile-* ]]
  [ "$(rq $stem '.runs[0].knobs.restored[0].found')" = "swapped on" ]
  [ ! -e "$f" ]
  ! grep -q "$f" /proc/swaps
  PAGELAB_TEST_STOP=changed:1 "$PAGELAB" run "$TOP/tests/scenarios/knobs-swap.scn" --no-report \
    --out "$RESULTS/$stem-kill.json" 2>/dev/null &
  bg=$!
  wait_stopped $bg
  # Stopped right after swapon: one area more than before.
  [ "$(tail -n +2 /proc/swaps | wc -l)" -eq $(( $(sed -n 's/^swaps=//p' <<<"$before_knobs") + 1 )) ]
  kill -9 $bg
  wait $bg 2>/dev/null || true
  bg=
  run "$PAGELAB" restore
  assert_success
  assert_output --partial "swapped on -> removed (restored)"
  [ -z "$(ls "$BATS_TEST_TMPDIR" | grep swapfile)" ]
}

@test "a run that finds a dead run's journal restores it first, and says so" {
  require_memcg
  PAGELAB_TEST_STOP=changed:1 "$PAGELAB" run "$KNOBS_SCN" --no-report --out "$RESULTS/dead.json" 2>/dev/null &
  bg=$!
  wait_stopped $bg
  kill -9 $bg
  wait $bg 2>/dev/null || true
  bg=
  [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 200 ]
  run_scenario "$KNOBS_SCN" after-dead
  assert_success
  assert_output --partial "found the knob journal of a run that did not finish: restoring it first"
  assert_output --partial "vm.watermark_scale_factor: 200 -> "
  [ "$(rq after-dead '.runs[0].knobs.restored_ok')" = true ]
  # The host object was recorded after the old journal was restored.
  [ "$(rq after-dead '.host.vm_sysctl.watermark_scale_factor')" = "$(sed -n 's/^watermark_scale_factor=//p' <<<"$before_knobs")" ]
}

@test "while a run holds the journal, another knob-changing run and pagelab restore are refused (exit 3), nothing changed" {
  require_memcg
  PAGELAB_TEST_STOP=journaled:1 "$PAGELAB" run "$KNOBS_SCN" --no-report --out "$RESULTS/holder.json" 2>/dev/null &
  bg=$!
  wait_stopped $bg
  run "$PAGELAB" run "$KNOBS_SCN" --no-report --out "$RESULTS/second.json"
  assert_equal "$status" 3
  assert_output --partial "belongs to a running pagelab (pid $bg)"
  run "$PAGELAB" restore
  assert_equal "$status" 3
  [ "$(knob_state)" = "$before_knobs" ]
  kill -9 $bg
  wait $bg 2>/dev/null || true
  bg=
  run "$PAGELAB" restore
  assert_success
}

@test "pagelab restore with no journal says so and exits 0" {
  [ ! -e "$PAGELAB_JOURNAL" ]
  run "$PAGELAB" restore
  assert_success
  assert_output --partial "no knob journal at $PAGELAB_JOURNAL: nothing to restore"
}

@test "knob values are range-checked before anything is touched" {
  run --separate-stderr "$PAGELAB" run "$KNOBS_SCN" --no-report --set wsf=0 --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"vm.watermark_scale_factor: '0' is outside the kernel's range 1..3000"* ]]
  [[ "$stderr" == *"--set wsf=0"* ]]
  run "$PAGELAB" run "$KNOBS_SCN" --no-report --set thp=sometimes --out "$RESULTS/never.json"
  assert_equal "$status" 2
  run "$PAGELAB" audit --watch 0 --with vm.watermark_scale_factor=3001
  assert_equal "$status" 2
  # A reserve above what the kernel itself ever picks would starve this host.
  run "$PAGELAB" audit --watch 0 --with vm.min_free_kbytes=2G
  assert_equal "$status" 3
  [ ! -e "$PAGELAB_JOURNAL" ]
  [ ! -e "$RESULTS/never.json" ]
}

# ---------------------------------------------------------------------------
# The advice lint

@test "advice lint on the checklist article: a removed knob, a wrong default, a trigger, /sys files, a harmful reserve" {
  run --separate-stderr "$PAGELAB" audit --advice "$CHECKLIST" --json
  assert_equal "$status" 4          # errors found
  a=$output
  code() { jq -r --arg k "$1" '[.findings[] | select(.key == $k) | .code] | join(",")' <<<"$a"; }
  sev() { jq -r --arg k "$1" --arg c "$2" '[.findings[] | select(.key == $k and .code == $c) | .severity] | first' <<<"$a"; }
  msg() { jq -r --arg k "$1" --arg c "$2" '[.findings[] | select(.key == $k and .code == $c) | .message] | first' <<<"$a"; }
  # 4. vm.percpu_pagelist_fraction: gone since 5.14
  [ "$(sev vm.percpu_pagelist_fraction unknown-knob)" = error ]
  [[ "$(msg vm.percpu_pagelist_fraction unknown-knob)" == *"removed in 5.14"* ]]
  # 2. "watermark_scale_factor to 10 (default 1000)": the default is 10, and 10 changes nothing
  [ "$(sev vm.watermark_scale_factor wrong-default)" = error ]
  [[ "$(msg vm.watermark_scale_factor wrong-default)" == *"default is 1000; this kernel's default is 10"* ]]
  if [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 10 ]; then
    [ "$(sev vm.watermark_scale_factor no-change)" = note ]
  fi
  # 6. vm.compact_memory=1: a trigger
  [ "$(sev vm.compact_memory trigger)" = error ]
  # 1. min_free_kbytes 3-5 % of RAM: prose, evaluated at both ends, harmful at both
  [ "$(jq '[.findings[] | select(.key == "vm.min_free_kbytes" and .code == "not-a-value")] | length' <<<"$a")" -eq 2 ]
  [ "$(jq '[.findings[] | select(.key == "vm.min_free_kbytes" and .code == "harmful")] | length' <<<"$a")" -eq 2 ]
  [[ "$(msg vm.min_free_kbytes harmful)" == *"MemAvailable falls by"* ]]
  # 5. THP off: not a sysctl, and it silently drops min_free_kbytes (when THP set it)
  [ "$(sev /sys/kernel/mm/transparent_hugepage/enabled not-sysctl)" = error ]
  if thp_on; then
    [[ "$(msg /sys/kernel/mm/transparent_hugepage/enabled harmful)" == *"drops silently from $(cat /proc/sys/vm/min_free_kbytes)"* ]]
  fi
  [ "$(sev /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages not-sysctl)" = error ]
  # 3. zone_reclaim_mode=0 is no error
  [[ "$(code vm.zone_reclaim_mode)" != *unknown* ]]
  [ "$(jq '[.findings[] | select(.key == "vm.zone_reclaim_mode" and .severity == "error")] | length' <<<"$a")" -eq 0 ]
  [ "$(jq .summary.errors <<<"$a")" -eq 5 ]
  # The text form says the same, one line per finding with FILE:LINE.
  run "$PAGELAB" audit --advice "$CHECKLIST"
  assert_equal "$status" 4
  assert_output --partial "page-allocator-checklist.conf:30: error: vm.percpu_pagelist_fraction = 8: [unknown-knob]"
  assert_output --partial "5 error(s)"
}

@test "advice lint: a clean file passes, values out of range and trailing comments are errors" {
  f="$BATS_TEST_TMPDIR/advice.conf"
  printf '%s\n' "# defaults, as this kernel has them" "vm.watermark_scale_factor = 10" "vm.swappiness=60" >"$f"
  run "$PAGELAB" audit --advice "$f"
  assert_success
  printf '%s\n' "vm.watermark_scale_factor = 5000" "vm.swappiness = 60 # default 60" "-vm.no_such_knob = 1" >"$f"
  run --separate-stderr "$PAGELAB" audit --advice "$f" --json
  assert_equal "$status" 4
  [ "$(jq -r '.findings[] | select(.line == 1) | .code' <<<"$output")" = out-of-range ]
  [ "$(jq -r '[.findings[] | select(.line == 2) | .code] | index("trailing-comment") != null' <<<"$output")" = true ]
  [ "$(jq -r '.findings[] | select(.line == 3) | .code' <<<"$output")" = unknown-knob ]
}

@test "advice lint: a file's keys, values and name are data on the terminal and in JSON" {
  # An advice file is untrusted input: an ESC sequence, DEL, a C1 CSI and a
  # right-to-left override in a value, a control in the file's name.
  local d="$BATS_TEST_TMPDIR/adv"
  mkdir -p "$d"
  f="$d/"$'a\e]0;t\a.conf'
  printf 'vm.swappiness = 60\e[31mred\x7f\xc2\x9b\xe2\x80\xae\n' >"$f"
  run --separate-stderr "$PAGELAB" audit --advice "$f"
  printf '%s\n%s\n' "$output" "$stderr" >"$d/out"
  LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80\xae' "$d/out" && {
    echo "raw control on the terminal:"; cat -v "$d/out"; return 1; }
  [[ "$output" == *'60\x1b[31mred\x7f\xc2\x9b\xe2\x80\xae'* ]]
  [[ "$output" == *'a\x1b]0;t\x07.conf'* ]]
  run --separate-stderr "$PAGELAB" audit --advice "$f" --json
  LC_ALL=C grep -qaP '\x7f|\xc2[\x80-\x9f]|\xe2\x80\xae' <<<"$output" && { echo "raw in JSON"; return 1; }
  [ "$(jq -r '.findings[0].value' <<<"$output")" = $'60\e[31mred\x7f\xc2\x9b\xe2\x80\xae' ]
}
