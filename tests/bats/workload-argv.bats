#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# Every C workload's command line goes through one loop driven by its
# declaration (workloads/decl.c: wl_parse_argv): region, hold, stepper,
# lazyscan, cachefill and allocs alike.  So each --help is the declaration's
# usage (decl2go --usage prints it from the same rows), an undeclared flag is
# one line naming it, exit 2, a declared flag with a value its type refuses
# names the flag, and the options every workload shares (--event-fd,
# --ack-fd) are typed the same way in each.  Nothing runs in a sandbox: the
# workloads stop at their arguments, or run at a few MiB outside any cgroup.

load helpers

setup() {
  DECL2GO="$BUILD/decl2go"
  [ -x "$DECL2GO" ] || skip "no $DECL2GO (build pagelab first)"
}

C_WORKLOADS="region hold stepper lazyscan cachefill allocs"

@test "workload argv: each C workload's --help is its declaration's usage" {
  for p in $C_WORKLOADS; do
    diff -u <("$DECL2GO" --usage "$p") <("$BUILD/workloads/$p" --help)
  done
}

@test "workload argv: an undeclared flag is one line naming it, exit 2, in every workload" {
  for p in $C_WORKLOADS; do
    run --separate-stderr "$BUILD/workloads/$p" --no-such-flag
    echo "$p: $status: $stderr"
    assert_failure 2
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
    [[ "$stderr" == "$p: --no-such-flag: unknown argument"* ]]
  done
}

@test "workload argv: the shared --event-fd is typed the same in every workload" {
  for p in $C_WORKLOADS; do
    run --separate-stderr "$BUILD/workloads/$p" --event-fd=notanumber
    echo "$p: $status: $stderr"
    assert_failure 2
    [[ "$stderr" == "$p: "*"--event-fd"* ]]
    [[ "$stderr" != *"unknown argument"* ]]
  done
}

@test "workload argv: a declared flag's bad value names the flag (hold, stepper, region)" {
  run --separate-stderr "$BUILD/workloads/hold" --size 4X
  assert_failure 2
  [[ "$stderr" == "hold: --size: size '4X' has an unknown unit"* ]]
  run --separate-stderr "$BUILD/workloads/stepper" --target 8M --interval soon
  assert_failure 2
  [[ "$stderr" == "stepper: --interval: expected a whole number, got 'soon'"* ]]
  run --separate-stderr "$BUILD/workloads/region" --size 1M --thp sometimes fill:0xA5
  assert_failure 2
  [[ "$stderr" == "region: --thp: 'sometimes' is not one of on|off|default"* ]]
  # What a workload checks itself after the loop is still checked.
  run --separate-stderr "$BUILD/workloads/hold" --fill 0x5A
  assert_failure 2
  [[ "$stderr" == "hold: one of --size and --leave is required"* ]]
  run --separate-stderr "$BUILD/workloads/region" fill:0xA5
  assert_failure 2
  [[ "$stderr" == "region: --size is required"* ]]
}

@test "workload argv: options, steps and the shared fds in any order still run (region, stepper)" {
  run --separate-stderr "$BUILD/workloads/region" fill:0xA5 --size=4M advise:free --thp off mincore
  assert_success
  [ "$(printf '%s\n' "$output" | tail -1 | jq -r .event)" = done ]
  [ "$(printf '%s\n' "$output" | jq -r 'select(.event == "step") | .step' | tr '\n' ' ')" = "fill advise mincore " ]
  run --separate-stderr "$BUILD/workloads/stepper" --target=8M --step 4M --hold 0 --no-release
  assert_success
  [ "$(printf '%s\n' "$output" | tail -1 | jq -r .event)" = done ]
}
