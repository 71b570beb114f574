#!/usr/bin/env bats
# Bad input: every broken scenario file (tests/bad-input/*.scn, each naming the
# message and position it must get) and every bad argument gets ONE line on
# stderr naming the file, line:column where there is one, and what is wrong;
# exit 2; no cgroup created; nothing on the host changed.

load helpers

setup() {
  before_cg=$(pagelab_cgroups)
  before_host=$(host_state)
}

teardown() {
  [ "$(pagelab_cgroups)" = "$before_cg" ] || { echo "a cgroup was created: $(pagelab_cgroups)"; return 1; }
  [ "$(host_state)" = "$before_host" ] || { echo "the host changed"; return 1; }
}

# refused ARGS...: exit 2 and exactly one line of output (stderr; stdout empty)
refused() {
  run --separate-stderr "$PAGELAB" run "$@" --out "$RESULTS/never.json"
  assert_equal "$status" 2
  assert_equal "$output" ""
  [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "stderr: $stderr"; return 1; }
  [ ! -e "$RESULTS/never.json" ]
}

@test "each broken scenario file: exit 2, one line with FILE:LINE:COL and what is wrong" {
  n=0
  for f in "$TOP"/tests/bad-input/*.scn; do
    want=$(sed -n 's/^# expect: //p' "$f")
    at=$(sed -n 's/^# at: //p' "$f")
    refused "$f"
    [[ "$stderr" == "pagelab: $f:$at: "* ]] || { echo "$f: wanted position $at, got: $stderr"; return 1; }
    [[ "$stderr" == *"$want"* ]] || { echo "$f: wanted '$want', got: $stderr"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -ge 12 ]
}

@test "--set with a size like 12XB names the parameter and the use site" {
  refused madv-free/pressure --set pressure=12XB
  [[ "$stderr" == *"pressure.scn:"*"--set pressure=12XB"* ]]
  [[ "$stderr" == *"12XB"* ]]
}

@test "--set of a negative or zero size is refused" {
  refused madv-free/pressure --set region=-512M
  [[ "$stderr" == *"'-512M'"* ]]
  refused madv-free/pressure --set region=0
  [[ "$stderr" == *"greater than zero"* ]]
}

@test "--set of an unknown parameter lists the known ones" {
  refused madv-free/pressure --set regoin=300M
  [[ "$stderr" == *"no parameter 'regoin'"*"region"* ]]
}

@test "a limit above MemTotal is refused" {
  refused madv-free/pressure --set memory_max=64T
  [[ "$stderr" == *"MemTotal"* ]]
}

@test "an unknown scenario name" {
  refused madv-free/no-such-thing
  [[ "$stderr" == *"unknown scenario 'madv-free/no-such-thing'"* ]]
}

@test "an unreadable scenario file" {
  d="$BATS_TEST_TMPDIR/dir.scn"
  mkdir -p "$d"
  refused "$d"
  [[ "$stderr" == *"$d"* ]]
  refused "$BATS_TEST_TMPDIR/missing/nothing.scn"
  [[ "$stderr" == *"nothing.scn"* ]]
}

@test "bad option values" {
  refused madv-free/probe --repeat 0
  refused madv-free/probe --interval 5
  refused madv-free/probe --bogus
  refused
}
