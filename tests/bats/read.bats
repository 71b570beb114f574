#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# The readers load result documents as a stream with every sample pruned to
# the paths they declared (harness/result/read.h): report from its tables'
# figures, plot from its charts' series.  A path read but not declared would
# make a figure silently "—" or a chart line vanish, so here every reader's
# output from the pruned load must be byte for byte its output from the whole
# jansson load (PAGELAB_READ=full), on real recorded results: the golden
# inputs (tests/golden/report/inputs: this host 6.18 v1 and 6.12 guests v2)
# and the traced run of tests/fixtures/results.  The control PAGELAB_READ=bare
# (samples pruned to t_ms and cause whatever was declared) must differ, or
# these comparisons could not fail.  Needs no root.

load helpers

GOLDEN="$TOP/tests/golden/report"

setup_file() {
  local d="$BATS_FILE_TMPDIR/read" f
  mkdir -p "$d/inputs"
  for f in "$GOLDEN"/inputs/*.json.gz "$TOP"/tests/fixtures/results/*.json.gz; do
    gzip -dc "$f" > "$d/inputs/$(basename "${f%.gz}")"
  done
  ln -sfn "$TOP/results" "$d/results"
}

setup() {
  cd "$BATS_FILE_TMPDIR/read"
}

# same MODE CMD...: the command's stdout under PAGELAB_READ=MODE is its
# stdout with the streaming reader; prints the first difference.
same() {
  local mode=$1 a b
  shift
  a=$("$@" 2>&1) || { echo "exit $?: $*: $a"; return 1; }
  b=$(PAGELAB_READ=$mode "$@" 2>&1) || { echo "PAGELAB_READ=$mode: exit $?: $*: $b"; return 1; }
  [ "$a" = "$b" ] || { echo "$* differs under PAGELAB_READ=$mode:"; diff <(echo "$b") <(echo "$a") | head -8; return 1; }
}

@test "report: every golden case and every input alone, in each format, prints what the whole load prints" {
  local name args fmt f n=0
  while IFS=: read -r name args; do
    case $name in '#'* | '') continue ;; esac
    for fmt in markdown csv json; do
      # shellcheck disable=SC2086
      same full "$PAGELAB" report --format "$fmt" $args
      n=$((n + 1))
    done
  done < "$GOLDEN/cases"
  for f in inputs/*.json; do
    same full "$PAGELAB" report --format json "$f"
    n=$((n + 1))
  done
  [ "$n" -ge 60 ]
}

@test "the control: samples pruned bare, the report and the charts' data differ (the comparisons can fail)" {
  run same bare "$PAGELAB" report --format csv inputs/kswapd-runs-6.12.json
  assert_failure
  mkdir -p bare whole
  PAGELAB_READ=bare "$PAGELAB" plot --out bare inputs/pressure.json >/dev/null
  "$PAGELAB" plot --out whole inputs/pressure.json >/dev/null
  ! cmp -s bare/pressure-A1.dat whole/pressure-A1.dat
}

@test "plot: the charts' data and gnuplot scripts are the whole load's, on inputs of every shape" {
  command -v gnuplot >/dev/null || skip "gnuplot is not installed"
  local f stem
  # v1 host runs with and without pressure, v2 guests with kswapd runs, an
  # OOM kill, a traced run with events and bursts, two kernels.
  for f in inputs/{pressure,host-scan,pressure-800,kswapd-runs-6.12,run-five-6.12,kswapd-runs-C-6.12-trace,three-paths-6.1}.json; do
    stem=$(basename "$f" .json)
    rm -rf p w
    mkdir p w
    "$PAGELAB" plot --out p "$f" >/dev/null 2>p.err || { echo "$f: $(cat p.err)"; return 1; }
    PAGELAB_READ=full "$PAGELAB" plot --out w "$f" >/dev/null
    diff -r --exclude='*.svg' w p || { echo "$f: the charts' data differ"; return 1; }
    ls p/"$stem"-*.dat >/dev/null
  done
}

@test "compare: both forms print what the whole load prints" {
  same full "$PAGELAB" compare inputs/three-paths.json -- inputs/three-paths-6.1.json
  same full "$PAGELAB" compare --format json --by kernel inputs/three-paths.json inputs/three-paths-6.1.json
  same full "$PAGELAB" compare inputs/kswapd-runs-6.12.json -- inputs/kswapd-runs-C-6.12-trace.json
}

@test "report --html: the page is the whole load's" {
  command -v gnuplot >/dev/null || skip "gnuplot is not installed"
  "$PAGELAB" report --html p inputs/three-paths.json inputs/three-paths-6.1.json >/dev/null 2>&1
  PAGELAB_READ=full "$PAGELAB" report --html w inputs/three-paths.json inputs/three-paths-6.1.json >/dev/null 2>&1
  cmp p/index.html w/index.html
}

@test "a document that is not JSON: one line with the byte offset and line, exit 2, from every reader" {
  head -c 5000 inputs/probe.json > cut.json
  printf '{"schema":"pagelab.result/1",\n"runs":[1,2,}' > token.json
  for cmd in "report" "plot --out o" "compare cut.json --"; do
    # shellcheck disable=SC2086
    run "$PAGELAB" $cmd cut.json
    assert_failure 2
    assert_output --regexp "cut\.json: not JSON at byte [0-9]+ \(line [0-9]+\): "
    [ "${#lines[@]}" = 1 ]
  done
  run "$PAGELAB" report token.json
  assert_failure 2
  assert_output --partial "token.json: not JSON at byte 43 (line 2): parse error"
}

@test "not a regular file (a FIFO, a directory, a .jsonl FIFO): refused at once, exit 2" {
  mkfifo fifo.json fifo.jsonl
  for f in fifo.json fifo.jsonl inputs; do
    run timeout 5 "$PAGELAB" report "$f"
    assert_failure 2
    assert_output --partial "not a regular file"
    run timeout 5 "$PAGELAB" plot --out o "$f"
    assert_failure 2
  done
}
