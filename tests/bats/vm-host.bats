#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The VM-mode tests that run on this host as well: `pagelab vm --host` (a host run
# beside the guests' results) and the v1 host's refusal of a v2-only setting
# (memory-high.bats has the guests). They stay in scripts/test's host lane, where
# their "no pagelab cgroup left" checks see only their own runs.

load helpers
load madv-free-checks
load vm-checks

KERNELS=(6.1 6.12)

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  VM_SKIP=$(vm_skip_reason "${KERNELS[@]}")
  export VM_SKIP
}

need_guest() {
  [ -z "$VM_SKIP" ] || skip "$VM_SKIP"
}

teardown() {
  if [ -n "${bg:-}" ]; then kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; fi
  return 0
}

@test "memory-high: on this cgroup v1 host it is exit 3 naming memory_high, before anything is made" {
  require_memcg
  [ "$("$PAGELAB" check --json | jq -r .cgroup.memory)" = v1 ] || skip "this host's memory controller is not v1"
  before=$(pagelab_cgroups)
  run --separate-stderr "$PAGELAB" run madv-free/memory-high --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 3
  [[ "$stderr" == *"[sandbox] memory_high is cgroup v2's memory.high: this host's memory controller is v1"* ]]
  [ ! -e "$RESULTS/never.json" ]
  [ "$(pagelab_cgroups)" = "$before" ]
}

@test "vm item 9 three paths, host + 6.1 + 6.12: OOM kill named, FREE survives, DONTNEED empties at once; one report column per kernel" {
  need_guest
  before_cg=$(pagelab_cgroups)
  vm_run three-paths --kernel 6.1 --kernel 6.12 --host run madv-free/three-paths --repeat 1
  assert_success
  check_both_kernels three-paths
  for f in $(guest_results three-paths); do
    check_guest_doc "$f"
    check_three_paths "$f"
    # v2 memory.oom.group = 1: the whole sandbox goes, so ballast is named too,
    # and the group kill is counted once in oom_group_kill.
    jq -e '[.runs[] | select(.variant.advice == "none")][0] | (.exit.victims | sort) == ["ballast", "region"]' "$f"
    jq -e '[.runs[] | select(.variant.advice == "none")][0].samples[-1].memcg.events.oom_group_kill >= 1' "$f"
  done
  # The host's run, when this host can run it, sits beside them.
  n=2
  if ls "$RESULTS/vm-three-paths"/*-host-*.json >/dev/null 2>&1; then
    check_three_paths "$RESULTS/vm-three-paths"/*-host-*.json
    n=3
  fi
  [ "$(pagelab_cgroups)" = "$before_cg" ]
  # The summary on stdout is the report of every result: one column per kernel.
  assert_output --partial "6.1.0-"
  assert_output --partial "6.12."
  run "$PAGELAB" report --format json "$RESULTS/vm-three-paths"/*.json
  assert_success
  [ "$(jq '[.tables[] | select(.id == "three-paths")][0].columns | length' <<<"$output")" -eq "$n" ]
  jq -e '[.tables[] | select(.id == "three-paths")][0].columns | map(.cgroup) | index("v2") != null' <<<"$output"
}

@test "vm --host: the pagelab binary replaced while pagelab vm waits for the static build's lock still runs the host part" {
  # harness/vm/vm.c run_host: the host target used to exec the path
  # /proc/self/exe reads, which after a rebuild (the linker unlinks the old
  # file) is "…/pagelab (deleted)": "cannot start …/pagelab (deleted): No such
  # file or directory".  Reproduced here before the fix by holding
  # build-static/.vm-build.lock (as a second pagelab vm's build would) while
  # build/ was rebuilt.  Now the child execs the running image itself.  No
  # guest boots: the kernel is a file that is not one, which qemu refuses at
  # once (exit 1, "qemu-failed").  About 3 s (the no-op static build).
  need_guest
  bin="$BATS_TEST_TMPDIR/bin" out="$RESULTS/vm-replaced"
  rm -rf "$out"; mkdir -p "$bin" "$out" "$TOP/build-static"
  cp "$PAGELAB" "$bin/pagelab"
  ln -s "$BUILD/workloads" "$bin/workloads"
  lock="$TOP/build-static/.vm-build.lock"
  exec {lk}>>"$lock"
  flock "$lk"
  echo "not a kernel" >"$BATS_TEST_TMPDIR/vmlinuz-bogus"
  "$bin/pagelab" vm --host --kernel "$BATS_TEST_TMPDIR/vmlinuz-bogus" --out-dir "$out" \
    run madv-free/probe --repeat 1 --no-report {lk}>&- >"$BATS_TEST_TMPDIR/vm.out" 2>"$BATS_TEST_TMPDIR/vm.err" &
  bg=$!
  # Until it waits for the lock (/proc/locks lists it as a waiter, "->").
  ino=$(stat -c %i "$lock")
  for _ in $(seq 100); do grep -Eq -- "-> FLOCK .* $bg [0-9a-f]+:[0-9a-f]+:$ino " /proc/locks && break; sleep 0.1; done
  grep -Eq -- "-> FLOCK .* $bg [0-9a-f]+:[0-9a-f]+:$ino " /proc/locks
  # The rebuild: a new file in the old one's place.
  cp "$bin/pagelab" "$bin/pagelab.new"
  mv -f "$bin/pagelab.new" "$bin/pagelab"
  [[ "$(readlink "/proc/$bg/exe")" == *"pagelab (deleted)" ]]
  flock -u "$lk"
  exec {lk}>&-
  st=0
  wait "$bg" || st=$?
  bg=
  cat "$BATS_TEST_TMPDIR/vm.err"
  ! grep -q "cannot start" "$BATS_TEST_TMPDIR/vm.err" || false
  jq -e '.runs[0].exit.outcome == "completed" and (.host.in_vm_guest | not)' "$out"/*-host-*.json
  # The bogus kernel is the guest's failure (exit 1), said in one line.
  [ "$st" -eq 1 ]
  grep -q "guest-bogus: the guest failed (qemu-failed)" "$BATS_TEST_TMPDIR/vm.err"
  rm -rf "$TOP/.cache/vm/runs/"madv-free-probe-*-guest-bogus
}
