#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# The reading commands' command line (issue 19 item 10, issue 20 item 1;
# harness/cmd/cli.md): options and files in any order, `--` ends the options,
# compare's first `--` separates its sides and options still work after it;
# and no error is ever empty: a missing file, a directory and an empty file
# each get exactly one line naming the file and saying why, exit 2, nothing on
# stdout — for report, plot and compare, and (for the record) run, show and
# audit --advice.  Inputs: the golden real results (tests/golden/report/inputs).

load helpers

setup() {
  W=$(mktemp -d "$BATS_TEST_TMPDIR/cli.XXXXXX")
  for f in three-paths three-paths-6.1 probe; do
    gzip -dc "$TOP/tests/golden/report/inputs/$f.json.gz" >"$W/$f.json"
  done
  cd "$W"
}

@test "plot FILE --out DIR: options after the files (plot used to take --out as a file)" {
  command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
  run --separate-stderr "$PAGELAB" plot probe.json --out "$W/a" --run A
  assert_success
  # probe's two runs are both A (repeats 1 and 2)
  [ "$output" = "$(printf '%s\n' "$W/a/probe-A1.svg" "$W/a/probe-A2.svg")" ]
  [ -s "$W/a/probe-A1.svg" ] && [ -s "$W/a/probe-A1.gp" ]
  run "$PAGELAB" plot --format png probe.json --out "$W/b" --no-overlay
  assert_success
  [ "$(head -c 4 "$W/b/probe-A1.png" | tail -c 3)" = PNG ]
  [ ! -e "$W/b/probe-variants.png" ]
  # `--` ends the options: a file named like one.
  # (and gnuplot is handed ./--odd-A1.gp, not an option of its own)
  cp probe.json ./--odd.json
  run --separate-stderr "$PAGELAB" plot --out "$W/c" -- --odd.json
  assert_success
  [ -z "$stderr" ]
  [ -s "$W/c/--odd-A1.svg" ]
}

@test "report: options anywhere, -- ends them" {
  run "$PAGELAB" report three-paths.json --format csv
  assert_success
  [ "$(head -1 <<<"$output")" = "table,row,figure,column,kernel,cgroup,unit,runs,median,min,max,with_value,values,text" ]
  a=$output
  run "$PAGELAB" report --format csv three-paths.json
  [ "$output" = "$a" ]
  cp probe.json ./--odd.json
  run "$PAGELAB" report --format json -- --odd.json
  assert_success
  jq -e '.inputs[0].path == "--odd.json"' <<<"$output"
  run --separate-stderr "$PAGELAB" report three-paths.json --format yaml
  assert_equal "$status" 2
  [ "$stderr" = "pagelab report: --format takes markdown, csv or json" ]
  run --separate-stderr "$PAGELAB" report three-paths.json --frobnicate
  assert_equal "$status" 2
  [ "$stderr" = "pagelab report: unknown option '--frobnicate' (see pagelab report --help)" ]
  run --separate-stderr "$PAGELAB" report three-paths.json --tables
  assert_equal "$status" 2
  [ "$stderr" = "pagelab report: --tables takes a file" ]
  run --separate-stderr "$PAGELAB" report --by kernel three-paths.json
  assert_equal "$status" 2
  [[ "$stderr" == *"--by KEY goes with --html DIR"* ]]
}

@test "compare: options after the side separator work (compare A -- B --format json)" {
  run --separate-stderr "$PAGELAB" compare three-paths.json -- three-paths-6.1.json --format json
  assert_success
  jq -e '.schema == "pagelab.compare/1" and (.comparisons[0].figures | length) > 5' <<<"$output"
  a=$output
  run --separate-stderr "$PAGELAB" compare --format json three-paths.json -- three-paths-6.1.json
  [ "$output" = "$a" ]
  run --separate-stderr "$PAGELAB" compare three-paths.json --format json -- three-paths-6.1.json
  [ "$output" = "$a" ]
  # Options on both sides; the threshold is the document's.
  run --separate-stderr "$PAGELAB" compare three-paths.json --threshold 5 -- --format json three-paths-6.1.json
  assert_success
  jq -e '.threshold_pct == 5 and .comparisons[0].base.inputs[0].path == "three-paths.json"' <<<"$output"
  run "$PAGELAB" compare three-paths.json -- three-paths-6.1.json --format csv
  assert_success
  [ "$(head -1 <<<"$output" | cut -d, -f1-4)" = "base,new,kind,table" ]
  # A second `--` ends the options of the new side.
  cp three-paths-6.1.json ./--new.json
  run --separate-stderr "$PAGELAB" compare --format json three-paths.json -- -- --new.json
  assert_success
  jq -e '.comparisons[0].new.inputs[0].path == "--new.json"' <<<"$output"
  # --by: one set of files, options anywhere.
  run --separate-stderr "$PAGELAB" compare three-paths.json --by kernel three-paths-6.1.json --format json
  assert_success
  jq -e '.by == "kernel" and (.comparisons | length) == 1' <<<"$output"
  run --separate-stderr "$PAGELAB" compare --by kernel three-paths.json -- three-paths-6.1.json
  assert_equal "$status" 2
  [ "$stderr" = "pagelab compare: --by KEY takes one set of results, not BASE -- NEW" ]
}

# no_empty_error ARGS...: the command (with the bad file last or where the
# args put it) exits 2 with one non-empty stderr line naming $BAD, and prints
# nothing on stdout.  Returns 1 with the reason, for the caller to fail or skip.
no_empty_error() {
  run --separate-stderr timeout 20 "$PAGELAB" "$@"
  local why=
  [ "$status" = 2 ] || why="exit $status"
  [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || why="$why; stderr has $(printf '%s\n' "$stderr" | grep -c .) lines"
  [[ "$stderr" == *"$BAD"* ]] || why="$why; the message does not name $BAD"
  [[ "$stderr" != *": " ]] || why="$why; the message ends empty"
  [ -z "$output" ] || why="$why; stdout: $output"
  [ -z "$why" ] && return 0
  echo "pagelab $*: $why: $stderr"
  return 1
}

# bad_inputs: a missing file, a directory, an empty file.
bad_inputs() {
  mkdir -p "$W/adir.json"
  : >"$W/empty.json"
  echo "$W/nosuchfile.json" "$W/adir.json" "$W/empty.json"
}

@test "report, plot, compare: a missing file, a directory, an empty file — one line naming it, exit 2" {
  local expect=("No such file or directory" "is a directory, not a regular file" "not JSON")
  local nth=0                  # (bats' run changes a caller's i)
  for BAD in $(bad_inputs); do
    no_empty_error report "$BAD"
    [[ "$stderr" == *"${expect[$nth]}"* ]] || { echo "wanted '${expect[$nth]}': $stderr"; false; }
    no_empty_error report --format json three-paths.json "$BAD"
    no_empty_error plot --out "$W/never" "$BAD"
    [[ "$stderr" == *"${expect[$nth]}"* ]] || { echo "wanted '${expect[$nth]}': $stderr"; false; }
    no_empty_error plot "$BAD"
    no_empty_error compare three-paths.json -- "$BAD"
    no_empty_error compare "$BAD" -- three-paths.json
    no_empty_error compare --by kernel three-paths.json "$BAD"
    no_empty_error report --html "$W/never" "$BAD"
    no_empty_error report --plots "$W/never" "$BAD"
    [ ! -e "$W/never" ] && [ ! -e plots ]
    nth=$((nth + 1))
  done
  # The message of the issue: `pagelab plot nosuchfile.json` printed
  # "pagelab plot: " and nothing else.
  run --separate-stderr "$PAGELAB" plot nosuchfile.json
  assert_equal "$status" 2
  [ "$stderr" = "pagelab plot: cannot read result nosuchfile.json: No such file or directory" ]
}

# The other commands, for the lead's list: each case a check of its own, so
# that one a command fails is marked, naming the command, and the rest still
# count.
@test "run and show: a missing file, a directory, an empty file — one line naming it, exit 2" {
  local failed=()
  for BAD in $(bad_inputs); do
    no_empty_error run "$BAD" --out "$W/never.json" || failed+=("run $BAD")
    [ ! -e "$W/never.json" ]
    no_empty_error show "$BAD" || failed+=("show $BAD")
  done
  [ ${#failed[@]} -eq 0 ] || { echo "run / show fail: ${failed[*]}"; false; }
}

@test "audit --advice: a missing file, a directory, an empty file — one line naming it, exit 2" {
  local failed=()
  for BAD in $(bad_inputs); do
    no_empty_error audit --advice "$BAD" || failed+=("${BAD##*/}")
  done
  [ ${#failed[@]} -eq 0 ] || { echo "pagelab audit --advice fails for: ${failed[*]}"; false; }
}
