#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# VM mode (pagelab vm, docs/vm.md): the MADV_FREE invariants of madv-free.bats
# asserted inside QEMU guests booted from Debian's own 6.1 and 6.12 kernels,
# where the memory controller is on a pure cgroup v2 hierarchy and pagelab sits
# in the root cgroup: sandbox.c's v2 path (lab group + ctl leaf + sandbox-N,
# memory.max, memory.swap.max = 0, memory.oom.group = 1, memory.events,
# memory.stat's pglazyfree/pglazyfreed, memory.reclaim, cgroup.kill,
# clone3(CLONE_INTO_CGROUP)) runs here and nowhere else on this machine.
#
# Sizes: the article's own (512 MiB region, 1 GiB limit, 154M ballast, 700 MiB
# of pressure) in both kernels, repeat 1: under TCG each scenario takes 2-12 s
# inside the guest, plus 7-12 s of boot per guest (measured on this 2-core
# machine, docs/vm.md), so nothing needs scaling down.  Each test boots one
# guest per kernel, one after the other.
#
# The checks are tests/bats/madv-free-checks.bash, shared with madv-free.bats.
# Skips (with the reason) only when qemu or the kernels cannot be had.

load helpers
load madv-free-checks

KERNELS=(6.1 6.12)

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  VM_SKIP=$(vm_skip_reason "${KERNELS[@]}")
  export VM_SKIP
}

setup() {
  [ -z "$VM_SKIP" ] || skip "$VM_SKIP"
}

# vm_run STEM [vm options...] run NAME [run options...]: both kernels (unless
# the options name one), results in $RESULTS/vm-STEM/.
vm_run() {
  local stem=$1
  shift
  guest_run "vm-$stem" --timeout 300 "$@"
}

# The guest result documents of STEM, one per line (kernel order as booted).
guest_results() {
  ls "$RESULTS/vm-$1"/*-guest-*.json
}

# What every guest result must say: a pure v2 guest, the sandbox on v2, the
# guest's shape recorded, and its console log kept beside it.
check_guest_doc() {
  local f=$1
  jq -e '.host.in_vm_guest == true and .host.cgroup.memory == "v2" and .host.cgroup.mode == "v2"' "$f"
  jq -e '.host.cgroup.self == "/"' "$f"
  jq -e '.runs | length > 0 and all(.sandbox | .version == "v2" and .swap_max_bytes == 0 and .oom_group == true and (.path | test("^/sys/fs/cgroup/pagelab-[0-9]+/sandbox-[0-9]+$")))' "$f"
  jq -e '.vm.release == .host.kernel and .vm.accel == "tcg" and .vm.exit_code == 0' "$f"
  [ -s "$(jq -r .vm.console_log "$f")" ]
  [ -s "${f%.json}.jsonl" ]
}

# Both kernels came back, one result each.
check_both_kernels() {
  local stem=$1
  [ "$(guest_results "$stem" | wc -l)" -eq 2 ]
  [ "$(jq -rs 'map(.vm.kernel_asked) | sort | join(" ")' $(guest_results "$stem"))" = "6.1 6.12" ]
}

@test "vm: bad input is refused before anything is built or booted (exit 2)" {
  runs_before=$(ls "$TOP/.cache/vm/runs" 2>/dev/null | wc -l)
  vm_run bad --kernel 6.12 run madv-free/probe --set region=12XB
  assert_failure 2
  assert_output --partial "12XB"
  vm_run bad --kernel 6.12 --mem 512M run madv-free/probe
  assert_failure 2
  assert_output --partial "MemTotal"
  vm_run bad --kernel 6.12 run madv-free/probe --out x.json
  assert_failure 2
  vm_run bad --kernel 5.4 run madv-free/probe
  assert_failure 2
  [ "$(ls "$TOP/.cache/vm/runs" 2>/dev/null | wc -l)" -eq "$runs_before" ]
}

@test "vm: no qemu is exit 3 with one clear line" {
  run env PATH=/nonexistent "$PAGELAB" vm --kernel 6.12 run madv-free/probe
  assert_failure 3
  assert_output --partial "no qemu"
}

@test "vm item 1 probe, with a zram swap device: LazyFree of 64 MiB in 6.1 and 6.12" {
  # --swap 256M: a zram device in the guest (the zram module from the kernel
  # package); the sandbox keeps memory.swap.max = 0 all the same.
  vm_run probe --kernel 6.1 --kernel 6.12 --swap 256M run madv-free/probe --repeat 1 --no-report
  assert_success
  check_both_kernels probe
  for f in $(guest_results probe); do
    check_guest_doc "$f"
    jq -e '.host.swap_total_kb > 250000 and .vm.swap_device == "/dev/zram0" and .vm.swap_bytes == 268435456' "$f"
    check_probe "$f"
  done
}

@test "vm item 2 counters: MADV_FREE moves no counter but LazyFree, in 6.1 and 6.12" {
  vm_run counters --kernel 6.1 --kernel 6.12 run madv-free/counters --repeat 1 --no-report
  assert_success
  check_both_kernels counters
  for f in $(guest_results counters); do
    check_guest_doc "$f"
    check_counters "$f"
  done
}

@test "vm item 5 pressure 700 MiB: every page accounted for, the written page survives, in 6.1 and 6.12" {
  vm_run pressure --kernel 6.1 --kernel 6.12 run madv-free/pressure --repeat 1 --no-report
  assert_success
  check_both_kernels pressure
  for f in $(guest_results pressure); do
    check_guest_doc "$f"
    check_pressure "$f"
  done
}

@test "vm item 9 three paths, host + 6.1 + 6.12: OOM kill named, FREE survives, DONTNEED empties at once; one report column per kernel" {
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

@test "vm item 10 memcg counters: pglazyfree/pglazyfreed from memory.stat, in 6.1 and 6.12" {
  vm_run memcg-counters --kernel 6.1 --kernel 6.12 run madv-free/memcg-counters --repeat 1 --no-report
  assert_success
  check_both_kernels memcg-counters
  for f in $(guest_results memcg-counters); do
    check_guest_doc "$f"
    check_memcg_counters "$f"
  done
}

@test "vm item 11 memory.reclaim drains the lazily freed pool (cgroup v2), in 6.1 and 6.12" {
  vm_run reclaim --kernel 6.1 --kernel 6.12 run madv-free/reclaim --no-report
  assert_success
  check_both_kernels reclaim
  for f in $(guest_results reclaim); do
    check_guest_doc "$f"
    check_reclaim "$f"
  done
}

@test "vm: a guest that outlives --timeout is a one-line error with its console log (exit 1)" {
  vm_run timeout --kernel 6.12 --timeout 10 run madv-free/three-paths --repeat 1 --no-report
  assert_failure 1
  assert_output --partial "guest timeout"
  log=$(ls "$RESULTS/vm-timeout"/*-guest-*.console.log)
  [ -s "$log" ]
  assert_output --partial "$log"
  ! ls "$RESULTS/vm-timeout"/*-guest-*.json 2>/dev/null
  # pagelab keeps a failed guest's files for diagnosis; this one was on purpose.
  rm -rf "$TOP/.cache/vm/runs/$(basename "${log%.console.log}")"
}

@test "vm: a guest kernel panic is a one-line error with its console log (exit 1)" {
  # No init to run: the kernel panics ("No working init found"), qemu exits
  # (panic=-1 -no-reboot) and vm-run finds "Kernel panic" on the console.
  vm_run panic --kernel 6.12 --cmdline "rdinit=/nonexistent init=/nonexistent" run madv-free/probe --no-report
  assert_failure 1
  assert_output --partial "guest panic"
  log=$(ls "$RESULTS/vm-panic"/*-guest-*.console.log)
  grep -q "Kernel panic" "$log"
  rm -rf "$TOP/.cache/vm/runs/$(basename "${log%.console.log}")"
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
