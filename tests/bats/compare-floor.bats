#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# compare knows what is a timing (harness/read/floor.h, docs/compare-floor.md):
# every figure is a count or a timing, a timing's change must clear its noise
# floor (an A/A calibration's spread on this machine, else the default), and
# the calibration file is untrusted input.
#
# The inputs are real runs recorded once on the 6.18 host (2 vCPUs) and kept
# in tests/fixtures/compare/ (its README says how): madv-free/pressure, THP
# off, at a quarter of the article's sizes (region 128M, memory.max 256M,
# ballast 38M), 3 repeats a set — a1, a2, a3 at 175M of pressure (the
# article's 700 MiB, scaled), back to back, and p200 at 200M (its 800 MiB).
# Expected, and why:
#   - stall p50/p99/max (µs) and time stalled (ms) are timings by their unit;
#     pages, kB, MiB and the unit-less event counts are counts, judged as
#     before (threshold 1 %);
#   - two sets at the same settings: no figure is real (with the default
#     floor, and with a1+a2's calibration applied to a2 against a3);
#   - 175 vs 200 MiB of pressure: the reclaimed pages are still real (counts
#     keep their test), whatever the floor;
#   - --calibrate writes the spreads it prints, and compare reads them back
#     (the JSON's floor.pct is the file's spread_pct for that figure);
#   - a calibration of another machine is refused when named (exit 2, one
#     line) and set aside with a note when found at the default location;
#   - timings of two clocks (a TCG guest's against a host's, by the
#     documents' "vm") are "not comparable", counts judged as ever;
#   - hostile calibration files (unknown key, a spread out of range, a FIFO,
#     a file others may write, a symbolic link to a device, over 1 MiB) are
#     refused: exit 2, one line naming the file.

load helpers

setup() {
  W=$(mktemp -d "$BATS_TEST_TMPDIR/floor.XXXXXX")
  for f in a1 a2 a3 p200; do
    gzip -dc "$TOP/tests/fixtures/compare/$f.json.gz" >"$W/$f.json"
  done
  cd "$W"
}

@test "compare: every figure says whether it is a count or a timing, and which floor it had" {
  run --separate-stderr "$PAGELAB" compare --floor none --format json a1.json -- a2.json
  assert_success
  j=$output
  jq -e '.timing_floor.default_pct > 0 and .timing_floor.file == null' <<<"$j"
  jq -e '[.comparisons[0].figures[] | .class] | all(. == "count" or . == "timing")' <<<"$j"
  jq -e '[.comparisons[0].figures[] | select(.unit == "µs" or .unit == "ms")] | length == 4 and
         all(.class == "timing" and .floor.from == "default" and .floor.class_from == "unit")' <<<"$j"
  jq -e '[.comparisons[0].figures[] | select(.unit == "pages" or .unit == "kB" or .unit == "MiB" or .unit == null)] |
         length > 15 and all(.class == "count" and .floor.from == "threshold" and .floor.pct == 1)' <<<"$j"
  run "$PAGELAB" compare --floor none a1.json -- a2.json
  assert_success
  assert_output --regexp '\| stall p99 \| .* \| timing \([0-9.]+ %, default\) \|'
  assert_output --regexp '\| Reclaimed, median \| .* \| count \(1 %\) \|'
  run "$PAGELAB" compare --floor none --format csv a1.json -- a2.json
  assert_success
  [ "$(head -1 <<<"$output" | awk -F, '{print $(NF-2) "," $(NF-1) "," $NF}')" = "class,floor_pct,floor_from" ]
  grep -q '"stall p99",.*,"timing",[0-9.]*,"default"$' <<<"$output"
}

@test "compare: sides measured by different pagelab builds, or by a modified one, say so in a note" {
  # The fixtures' sets were measured by one build: no note.
  run --separate-stderr "$PAGELAB" compare --floor none --format json a1.json -- a2.json
  assert_success
  jq -e '[.comparisons[0].notes[] | select(test("pagelab"))] | length == 0' <<<"$output"
  c=$(jq -r .harness.commit a1.json)
  [[ $c =~ ^[0-9a-f]{12}$ ]]
  jq '.harness.commit = "0123456789ab" | .harness.modified = true' a2.json >b2.json
  run "$PAGELAB" compare --floor none a1.json -- b2.json
  assert_success
  assert_output --partial "- measured by different builds of pagelab: base $c, new 0123456789ab (modified); a timing may differ because the harness did"
  # One side mixing two builds.
  run "$PAGELAB" compare --floor none a1.json -- a2.json b2.json
  assert_success
  assert_output --partial "measured by different builds of pagelab: base $c, new mixed;"
  # The same modified build on both sides cannot be told from two.
  jq '.harness.modified = true' a1.json >m1.json
  jq '.harness.modified = true' a2.json >m2.json
  run "$PAGELAB" compare --floor none m1.json -- m2.json
  assert_success
  assert_output --partial "- both sides measured by pagelab $c (modified): whether by the same build, the documents cannot say"
  # A document's commit is never repeated unless it is what pagelab writes.
  jq '.harness.commit = "<b>x</b>|y"' a2.json >h2.json
  run "$PAGELAB" compare --floor none a1.json -- h2.json
  assert_success
  assert_output --partial "new unknown;"
  refute_output --partial "<b>x</b>"
}

@test "compare: timings of a TCG guest against a host's are not comparable; counts are judged as ever" {
  # p200 said to have run in a TCG guest (its "vm", as pagelab vm writes it):
  # what compare reads is the document's own word on its clock.
  jq '.vm = {accel: "tcg", arch: "amd64"} | .host.in_vm_guest = true' p200.json >p200-tcg.json
  run --separate-stderr "$PAGELAB" compare --floor none --format json a1.json -- p200-tcg.json
  assert_success
  j=$output
  jq -e '[.comparisons[0].figures[] | select(.class == "timing")] | length == 4 and
         all(.verdict == "not comparable" and .welch == null and
             (.why | contains("base (host) against new (tcg guest, amd64)")))' <<<"$j"
  jq -e '[.comparisons[0].figures[] | select(.class == "count")] | length > 15 and
         all(.verdict != "not comparable")' <<<"$j"
  jq -e '.comparisons[0].figures[] | select(.figure == "Reclaimed, median") | .verdict == "real"' <<<"$j"
  jq -e '[.comparisons[0].notes[] | select(startswith("timings not judged"))] | length == 1' <<<"$j"
  run "$PAGELAB" compare --floor none a1.json -- p200-tcg.json
  assert_success
  assert_output --regexp '\| stall p99 \| .* \| not comparable \| timing'
  assert_output --partial ', 4 not comparable (timings of two clocks).'
  # A side of both clocks is "mixed"; the same clock on both sides judges.
  jq '.vm = {accel: "tcg", arch: "amd64"}' a2.json >a2-tcg.json
  run --separate-stderr "$PAGELAB" compare --floor none --format json a1.json a2-tcg.json -- a3.json
  assert_success
  jq -e '[.comparisons[0].figures[] | select(.class == "timing")] | all(.why | contains("(mixed) against"))' <<<"$output"
  run --separate-stderr "$PAGELAB" compare --floor none --format json a1.json -- p200.json
  assert_success
  jq -e '[.comparisons[0].figures[] | select(.verdict == "not comparable")] | length == 0' <<<"$output"
  jq -e '[.comparisons[0].notes[] | select(startswith("timings not judged"))] | length == 0' <<<"$output"
}

@test "compare: an A/A pair calls no figure real; 175 vs 200 MiB of pressure still is, in its counts" {
  for pair in "a1 a2" "a2 a3" "a1 a3"; do
    set -- $pair
    run --separate-stderr "$PAGELAB" compare --floor none --format json "$1.json" -- "$2.json"
    assert_success
    jq -e '.comparisons[0].figures | length > 20' <<<"$output"
    jq -e '[.comparisons[0].figures[] | .verdict] | all(. != "real" and . != "not enough runs")' <<<"$output"
  done
  run --separate-stderr "$PAGELAB" compare --floor none --format json a1.json -- p200.json
  assert_success
  sel='.comparisons[0].figures[] | select(.table == "pressure" and .figure == "Reclaimed, median")'
  jq -e "$sel | .class == \"count\" and .verdict == \"real\" and .new.median > .base.median" <<<"$output"
  jq -e '[.comparisons[0].figures[] | select(.class == "count" and .verdict == "real")] | length >= 8' <<<"$output"
  jq -e '.comparisons[0].figures[] | select(.figure == "Pages 0x5A (written)") | .verdict == "same"' <<<"$output"
}

@test "compare --calibrate: the spreads round-trip through the calibration file and judge the next pair" {
  run --separate-stderr "$PAGELAB" compare --calibrate --floor cal.json a1.json a2.json
  assert_success
  [ "${lines[-1]}" = cal.json ]
  assert_output --regexp '\| pressure \| memcg reclaim \(tracepoints\) \| stall p99 \| 6 \|'
  jq -e '.schema == "pagelab.floor/1" and .scenario == "madv-free/pressure" and (.sets | length) == 2' cal.json
  k=$(gzip -dc "$TOP/tests/fixtures/compare/a1.json.gz" | jq -c '.host | [.kernel, .machine, .cpu.model, .cpu.online]')
  [ "$(jq -c '.host | [.kernel, .machine, .cpu_model, .cpus]' cal.json)" = "$k" ]
  jq -e '[.figures[] | .spread_pct >= 0 and .spread_pct <= 1000 and .n == 6 and .min <= .median and .median <= .max and
          ((.max / .min - 1) * 100 - .spread_pct | fabs) < 0.01] | length == 4 and all' cal.json
  # Each timing's floor is the file's spread (or the threshold, when larger).
  run --separate-stderr "$PAGELAB" compare --floor cal.json --format json a2.json -- a3.json
  assert_success
  j=$output
  jq -e '.timing_floor.file == "cal.json"' <<<"$j"
  for fig in "stall p50" "stall p99" "stall max" "time stalled, total"; do
    want=$(jq --arg f "$fig" '.figures[] | select(.figure == $f) | .spread_pct' cal.json)
    jq -e --arg f "$fig" --argjson w "$want" '.comparisons[0].figures[] | select(.figure == $f) |
           .floor.from == "calibration" and .floor.file == "cal.json" and (.floor.pct - $w | fabs) < 1e-9 and
           .lkp.above_threshold == (((([.base.median, .new.median] | max) / ([.base.median, .new.median] | min)) - 1) * 100 > ([$w, 1] | max))' <<<"$j"
  done
  jq -e '[.comparisons[0].figures[] | .verdict] | all(. != "real")' <<<"$j"
  run --separate-stderr "$PAGELAB" compare --floor cal.json --format json a1.json -- p200.json
  assert_success
  jq -e '.comparisons[0].figures[] | select(.figure == "Reclaimed, median") | .verdict == "real"' <<<"$output"
  # The default location: results/floor.json of the current directory.
  run --separate-stderr "$PAGELAB" compare --calibrate a1.json -- a2.json
  assert_success
  [ "${lines[-1]}" = results/floor.json ]
  cmp <(jq -S 'del(.made)' cal.json) <(jq -S 'del(.made)' results/floor.json)
  run --separate-stderr "$PAGELAB" compare --format json a2.json -- a3.json
  assert_success
  jq -e '.timing_floor.file == "results/floor.json" and
         ([.comparisons[0].figures[] | select(.class == "timing") | .floor.from] | all(. == "calibration"))' <<<"$output"
  # Sets that are not at the same settings are no A/A pair.
  run --separate-stderr "$PAGELAB" compare --calibrate --floor x.json a1.json p200.json
  assert_failure 2
  [ "${#stderr_lines[@]}" -eq 1 ]
  assert_equal "$stderr" "pagelab compare: a1.json and p200.json are not the same scenario at the same settings (scenario.name and scenario.params differ): an A/A calibration needs both"
  [ ! -e x.json ]
}

@test "compare --floor: a calibration of another machine is refused when named, set aside when found" {
  "$PAGELAB" compare --calibrate --floor cal.json a1.json a2.json >/dev/null
  jq '.host.kernel = "6.1.0-99-amd64"' cal.json >other.json
  run --separate-stderr "$PAGELAB" compare --floor other.json a1.json -- a2.json
  assert_failure 2
  [ "${#stderr_lines[@]}" -eq 1 ]
  [[ "$stderr" == "pagelab compare: calibration file other.json is not of the machine a1.json ran on (kernel 6.1.0-99-amd64 vs "* ]]
  [ -z "$output" ]
  jq '.host.cpus = 64' cal.json >cpus.json
  run --separate-stderr "$PAGELAB" compare --floor cpus.json a1.json -- a2.json
  assert_failure 2
  [[ "$stderr" == *"64 vs 2 online CPUs"* ]]
  jq '.host.fingerprint = "elsewhere"' cal.json >fp.json
  run --separate-stderr "$PAGELAB" compare --floor fp.json a1.json -- a2.json
  assert_failure 2
  [[ "$stderr" == *"host fingerprint 'elsewhere' vs 'none'"* ]]
  mkdir results && cp other.json results/floor.json
  run --separate-stderr "$PAGELAB" compare --format json a1.json -- a2.json
  assert_success
  jq -e '.comparisons[0].notes | any(startswith("calibration file results/floor.json set aside: a1.json ran on another machine"))' <<<"$output"
  jq -e '[.comparisons[0].figures[] | select(.class == "timing") | .floor.from] | all(. == "default")' <<<"$output"
}

@test "compare --floor: hostile calibration files are refused, exit 2, one line naming the file" {
  "$PAGELAB" compare --calibrate --floor cal.json a1.json a2.json >/dev/null
  bad() {
    run --separate-stderr "$PAGELAB" compare --floor "$1" a1.json -- a2.json
    assert_failure 2
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "$stderr" == *"$1"* ]]
    [[ "$stderr" == *"$2"* ]]
    [ -z "$output" ]
  }
  jq '.figures[0].floor = 0' cal.json >key.json
  bad key.json "unknown key 'floor'"
  jq '.figures[0].spread_pct = 5000' cal.json >range.json
  bad range.json "'spread_pct' must be a number 0..1000"
  jq '.figures[1] = .figures[0]' cal.json >twice.json
  bad twice.json "is there twice"
  jq '.schema = "pagelab.result/1"' cal.json >schema.json
  bad schema.json "not a calibration file"
  jq '.figures[0].row = "x\u001b]0;owned\u0007"' cal.json >ctl.json
  bad ctl.json "control character"
  head -c 1100000 /dev/zero | tr '\0' ' ' >big.json
  bad big.json "big.json"
  mkfifo fifo.json
  timeout 10 "$PAGELAB" compare --floor fifo.json a1.json -- a2.json 2>err || s=$?
  [ "${s:-0}" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q fifo.json err
  ln -s /dev/zero dev.json
  bad dev.json "dev.json"
  cp cal.json open.json && chmod 0666 open.json
  bad open.json "pagelab will not trust it"
  mkdir -m 0777 shared && cp cal.json shared/cal.json
  bad shared/cal.json "pagelab will not trust it"
  # --floor FILE that does not exist is an error; the default location's absence is not.
  bad nosuch.json "nosuch.json"
}

@test "report --html --floor: the page's comparison judges timings by the calibration and says how, per figure" {
  command -v gnuplot >/dev/null || skip "no gnuplot (scripts/setup installs gnuplot-nox)"
  "$PAGELAB" compare --calibrate --floor cal.json a1.json a2.json >/dev/null
  run --separate-stderr "$PAGELAB" report --html page --by pressure --floor cal.json a2.json p200.json
  assert_success
  grep -q '<th>Judged as (floor)</th>' page/index.html
  grep -q 'the spread calibrated in cal.json' page/index.html
  # each timing with cal.json's spread, each count with the threshold
  p99=$(jq '.figures[] | select(.figure == "stall p99") | .spread_pct' cal.json)
  grep -q "<td>timing ($(printf '%g' "$p99") %, calibrated)</td>" page/index.html
  grep -q '<td>count (1 %)</td>' page/index.html
  run --separate-stderr "$PAGELAB" report --html page-none --by pressure --floor none a2.json p200.json
  assert_success
  grep -q '<td>timing (100 %, default)</td>' page-none/index.html
  ! grep -q 'calibrated' page-none/index.html
  # --floor is the page's; a file that is not there is refused, exit 2
  run --separate-stderr "$PAGELAB" report --floor cal.json a1.json
  assert_failure 2
  assert_equal "$stderr" "pagelab report: --floor FILE|none goes with --html DIR (the page's comparison)"
  run --separate-stderr "$PAGELAB" report --html page2 --floor nosuch.json a1.json
  assert_failure 2
  assert_equal "$stderr" "pagelab report: calibration file nosuch.json does not exist"
  [ ! -e page2 ]
}

# Ten A/A pairs run here and now, not recorded, judged by a calibration of
# this machine made first in the same test: six sets of three at 175M pooled
# by `compare --calibrate`; then twenty sets back to back at 175M, paired
# 1-2 … 19-20, and one set at 200M.  No figure of any pair may be real, counts
# (at their 1 % threshold) and timings (at the calibrated floor) alike; 175 vs
# 200M must still be, in its counts.  What the default floor (100 %) calls
# real is logged, not asserted: on a machine of this kind on 2026-12-07
# (6.18.44-fc-v1300) a run's stall p99 sat near 30, 125 or 190 µs, and with
# three runs a side one pair in ten landed all of one side in one mood and
# the other in another, back to back (35–79 against 122–132 µs) and
# interleaved a b a b a b alike (39–78 against 136–199 µs): real by every
# rule of compare's, and a change of the machine only.  The calibration
# stores that spread (600 % for stall p99 there); docs/compare-floor.md.
# About 40 s on the 6.18 host, on a quiet machine: under scripts/test the
# other lane waits (quiet_hold), since a fuzzer or a guest starting beside one
# set of a pair is a change between A and A.
@test "compare: calibrated on this machine, ten fresh A/A pairs call no figure real; 175 vs 200 MiB still is" {
  require_memcg
  # Not i: bats 1.8.2's `run --separate-stderr` sets a global i to 2 (common.bash:
  # bats_version_lt loops over i without making it local).
  local k a b real dflt cal=$BATS_TEST_TMPDIR/cal.json
  S=(--set thp=off --set region=128M --set memory_max=256M --set ballast=38M)
  quiet_hold
  for k in $(seq 1 6); do
    run_scenario madv-free/pressure "cal-$k" "${S[@]}" --set pressure=175M --repeat 3
    assert_success
  done
  for k in $(seq 1 20); do
    run_scenario madv-free/pressure "aa-$k" "${S[@]}" --set pressure=175M --repeat 3
    assert_success
  done
  run_scenario madv-free/pressure aa-p200 "${S[@]}" --set pressure=200M --repeat 3
  assert_success
  [ -z "$(pagelab_cgroups)" ]
  run --separate-stderr "$PAGELAB" compare --calibrate --floor "$cal" "$RESULTS"/cal-{1,2,3,4,5,6}.json
  assert_success
  jq -e '[.figures[] | select(.figure == "stall p99" or .figure == "stall p50")] | length == 2' "$cal"
  echo "# calibrated: $(jq -c '[.figures[] | "\(.figure) \(.spread_pct) %"]' "$cal")" >&3
  for k in $(seq 1 2 19); do
    a=$RESULTS/aa-$k.json b=$RESULTS/aa-$((k + 1)).json
    run --separate-stderr "$PAGELAB" compare --format json --floor "$cal" "$a" -- "$b"
    assert_success
    jq -e '(.comparisons[0].figures | length > 20)
           and ([.comparisons[0].figures[] | select(.figure == "stall p99")] | length == 1
                and all(.floor.from == "calibration"))' <<<"$output" >/dev/null
    real=$(jq -c '[.comparisons[0].figures[] | select(.verdict == "real" or .verdict == "not enough runs") |
                  "\(.figure): \(.base.values) -> \(.new.values)"]' <<<"$output")
    [ "$real" = "[]" ] || { echo "pair ${a##*/} ${b##*/}: $real"; false; }
    run --separate-stderr "$PAGELAB" compare --format json --floor none "$a" -- "$b"
    assert_success
    dflt=$(jq -c '[.comparisons[0].figures[] | select(.verdict == "real") | "\(.figure): \(.base.values) -> \(.new.values)"]' <<<"$output")
    [ "$dflt" = "[]" ] || echo "# pair ${a##*/} ${b##*/}, at the default floor: $dflt" >&3
  done
  run --separate-stderr "$PAGELAB" compare --format json --floor "$cal" "$RESULTS/aa-1.json" -- "$RESULTS/aa-p200.json"
  assert_success
  jq -e '.comparisons[0].figures[] | select(.table == "pressure" and .figure == "Reclaimed, median") |
         .class == "count" and .verdict == "real" and .new.median > .base.median' <<<"$output"
}
