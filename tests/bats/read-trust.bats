#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# What the reading commands refuse or survive when a document, a tables file
# or an output directory is not what it should be (issue 19, items 5, 6 and
# "Smaller"; docs/refusals-read.md).  Real result documents (the golden
# inputs); hostile nodes only inside private temporary directories.
# Expected, and why:
#   - a tables file whose grid would expand past 1,024 rows is refused at
#     load: exit 2, one line with both counts and the cap (tables.c: a 4 MiB
#     file could ask for 10^10 rows); 32 x 32 = 1,024 is still taken;
#   - figures near the double's range (1e308, -1e308) and sides without
#     variance never abort compare (GSL's default handler would: gamma.c "x
#     too large to extract fraction part"); exit 0, the JSON parses, the
#     figure is there, without a t-test where none can be computed;
#   - plot and report --html build in a private directory beside DIR
#     (0700, this user's) while gnuplot runs: a gnuplot that looks at its
#     own directory sees that, and DIR does not exist yet; afterwards DIR
#     holds the charts, mode 0755 less the umask, and nothing is left beside it;
#   - a DIR that is a symbolic link (to a directory), or has one on its
#     way, or is another user's directory is refused before a document is
#     read (exit 2, one line), nothing written through or into it; into a DIR of our own the charts
#     are moved one by one, a file already there replaced, other files kept,
#     a link at a chart's name refused before anything moves.

load helpers

setup() {
  W=$(mktemp -d "$BATS_TEST_TMPDIR/trust.XXXXXX")
  gzip -dc "$TOP/tests/golden/report/inputs/pressure.json.gz" >"$W/pressure.json"
  gzip -dc "$TOP/tests/golden/report/inputs/probe.json.gz" >"$W/probe.json"
}

@test "a tables grid past 1,024 rows is refused at load with the figure and the cap (exit 2)" {
  grid() {
    jq -n --argjson s "$1" --argjson f "$2" '{schema: "pagelab.tables/1", tables: [{id: "g", name: "n", compare: "c",
      rows: [{grid: {stages: [range($s) | {row: "s\(.)", step: "run"}],
                     figures: [range($f) | {figure: "f\(.)", path: "summary.duration_ms", unit: "ms"}]}}]}]}'
  }
  grid 40 30 >"$W/big.tables.json"
  run --separate-stderr "$PAGELAB" report --tables "$W/big.tables.json" "$W/probe.json"
  assert_equal "$status" 2
  [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
  [[ "$stderr" == *"big.tables.json: table 'g', row 1: 'grid' of 40 stages x 30 figures would be 1200 rows, over the 1024"* ]]
  [ -z "$output" ]
  # A million-row grid is refused as fast (nothing is expanded first).
  grid 1000 1000 >"$W/huge.tables.json"
  run --separate-stderr timeout 10 "$PAGELAB" report --tables "$W/huge.tables.json" "$W/probe.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"would be 1000000 rows"* ]]
  # The cap itself is taken: 1,024 rows, each with the probe's duration.
  grid 32 32 >"$W/cap.tables.json"
  run "$PAGELAB" report --tables "$W/cap.tables.json" "$W/probe.json"
  assert_success
  [ "$(grep -c '^| s[0-9]* | f[0-9]* | [0-9,.]* ms' <<<"$output")" -eq 1024 ]
}

@test "compare: figures near 1e308 and sides without variance are compared, GSL never aborts (exit 0)" {
  local fill='(.runs[].steps[] | select(.step == "fill") | .counters.region.rss_kb)'
  jq "$fill = 1e308" "$W/pressure.json" >"$W/max.json"
  jq "$fill = -1e308" "$W/pressure.json" >"$W/min.json"
  jq '(.runs[0].steps[] | select(.step == "fill") | .counters.region.rss_kb) = 1e308 |
      (.runs[1].steps[] | select(.step == "fill") | .counters.region.rss_kb) = -1e308' "$W/pressure.json" >"$W/mixed.json"
  local sel='.comparisons[0].figures[] | select(.figure | startswith("Baseline"))'
  for pair in "max min" "mixed max" "pressure mixed" "mixed mixed"; do
    set -- $pair
    run --separate-stderr "$PAGELAB" compare --format json "$W/$1.json" -- "$W/$2.json"
    [ "$status" = 0 ] || { echo "$pair: exit $status: $stderr"; return 1; }
    jq -e "[$sel] | length == 1" <<<"$output" >/dev/null || { echo "$pair: the figure is missing"; return 1; }
    jq -e '.comparisons[0].figures | length > 10' <<<"$output" >/dev/null
  done
  # Both sides without variance, 1e308 against -1e308: Welch's t is
  # infinite (p 0), the change has no percentage, the ranges are disjoint.
  run "$PAGELAB" compare --format json "$W/max.json" -- "$W/min.json"
  jq -e "$sel | .welch.p == 0 and .change_pct == null and .lkp.disjoint and .verdict == \"real\"" <<<"$output"
  # A side whose variance overflows: no t-test, the rest still there.
  run "$PAGELAB" compare --format json "$W/mixed.json" -- "$W/max.json"
  jq -e "$sel | .welch == null and .base.n == 3 and .verdict != \"real\"" <<<"$output"
  for fmt in markdown csv; do
    run "$PAGELAB" compare --format "$fmt" "$W/mixed.json" -- "$W/min.json"
    assert_success
  done
}

# fake_gnuplot DIR LOG: a gnuplot on PATH that writes, for each script, the
# mode and owner of the directory it runs in and whether TARGET exists yet,
# then runs the real one.
fake_gnuplot() {
  command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
  mkdir -p "$1"
  cat >"$1/gnuplot" <<EOF
#!/bin/sh
printf '%s %s %s\n' "\$(stat -c '%a %u' .)" "\${PWD#$W/}" "\$([ -e "\$TARGET" ] && echo there || echo absent)" >>"$2"
exec $(command -v gnuplot) "\$@"
EOF
  chmod +x "$1/gnuplot"
}

@test "plot and report --html: drawn in a private directory beside DIR, DIR appears complete" {
  fake_gnuplot "$W/bin" "$W/log"
  for cmd in "plot --out" "report --html"; do
    : >"$W/log"
    rm -rf "$W/out"
    # shellcheck disable=SC2086
    TARGET="$W/out" PATH="$W/bin:$PATH" run "$PAGELAB" $cmd "$W/out" "$W/pressure.json"
    assert_success
    [ -s "$W/log" ]
    # every gnuplot ran in a 0700 directory of ours, named .out.XXXXXX, while out did not exist
    if grep -v "^700 $(id -u) \.out\.[A-Za-z0-9]\{6\}\(/plots\)\? absent$" "$W/log"; then
      echo "$cmd: gnuplot ran somewhere else:"; cat "$W/log"; return 1
    fi
    [ -d "$W/out" ] && [ ! -L "$W/out" ]
    for d in "$W/out" "$W/out/plots"; do
      [ ! -d "$d" ] || [ "$(stat -c %a "$d")" = "$(printf '%o' $((0755 & ~$(umask))))" ]
    done
    ls "$W"/out/*.svg "$W"/out/plots/*.svg 2>/dev/null | grep -q svg
    [ -z "$(find "$W" -maxdepth 1 -name '.out.*')" ]
  done
  [ -s "$W/out/index.html" ]
}

@test "a DIR that is a symbolic link, has one on its way, or is another user's is refused, nothing written through or into it" {
  mkdir "$W/real"
  ln -s "$W/real" "$W/link"
  for cmd in "plot --out" "report --html" "report --plots"; do
    # shellcheck disable=SC2086
    run --separate-stderr "$PAGELAB" $cmd "$W/link" "$W/pressure.json"
    [ "$status" = 2 ] || { echo "$cmd: exit $status: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
    [[ "$stderr" == *"$W/link is a symbolic link (to $W/real): an output directory is never followed through a link"* ]]
    [ -z "$(ls -A "$W/real")" ]
    [ -z "$(find "$W" -maxdepth 1 -name '.link.*')" ]
    [ -z "$output" ]
  done
  # a link as a directory on the way to DIR: refused the same, naming the link
  mkdir "$W/real/sub"
  for cmd in "plot --out" "report --html" "report --plots"; do
    # shellcheck disable=SC2086
    run --separate-stderr "$PAGELAB" $cmd "$W/link/sub/charts" "$W/pressure.json"
    [ "$status" = 2 ] || { echo "$cmd: exit $status: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ]
    [[ "$stderr" == *"$W/link/sub/charts: $W/link is a symbolic link: pagelab writes through none"* ]]
    [ -z "$(ls -A "$W/real/sub")" ]
    [ -z "$output" ]
  done
  rmdir "$W/real/sub"
  [ "$(id -u)" = 0 ] || skip "needs root to make a directory another user owns"
  mkdir "$W/theirs"
  chown nobody "$W/theirs"
  for cmd in "plot --out" "report --html" "report --plots"; do
    # shellcheck disable=SC2086
    run --separate-stderr "$PAGELAB" $cmd "$W/theirs" "$W/pressure.json"
    [ "$status" = 2 ] || { echo "$cmd: exit $status: $stderr"; return 1; }
    [[ "$stderr" == *"$W/theirs is owned by uid $(id -u nobody), not by this user (uid 0): nothing is written into it"* ]]
    [ -z "$(ls -A "$W/theirs")" ]
  done
}

@test "into a DIR of our own: charts replaced, other files kept, a link at a chart's name refused before anything moves" {
  command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
  mkdir "$W/out"
  echo keep >"$W/out/notes.txt"
  echo old >"$W/out/pressure-A1.svg"
  run "$PAGELAB" plot "$W/pressure.json" --out "$W/out"
  assert_success
  [ "$(cat "$W/out/notes.txt")" = keep ]
  grep -q '<svg' "$W/out/pressure-A1.svg"
  [ -s "$W/out/pressure-A3.gp" ]
  # A link where the second chart goes: refused whole, the first chart not
  # replaced either, the link's target untouched, nothing left beside out.
  rm "$W/out/pressure-A2.svg"
  echo victim >"$W/victim"
  ln -s "$W/victim" "$W/out/pressure-A2.svg"
  before=$(md5sum "$W/out/pressure-A1.svg")
  run --separate-stderr "$PAGELAB" plot --out "$W/out" "$W/pressure.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"$W/out/pressure-A2.svg exists and is a symbolic link: not overwritten"* ]]
  [ "$(cat "$W/victim")" = victim ]
  [ "$(md5sum "$W/out/pressure-A1.svg")" = "$before" ]
  [ -z "$(find "$W" -maxdepth 1 -name '.out.*')" ]
}
