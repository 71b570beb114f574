#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# The fault campaign's guest part (faults.bats is the host's): pagelab vm is
# killed by SIGKILL while its guest boots and while the guest runs the
# scenario, and everything it started must be gone.  Each check is of this
# test's own process tree (pid and start time), so it holds beside the other
# lane's runs.

load helpers

teardown() {
  if [ -n "${bg:-}" ]; then
    kill -9 "$bg" 2>/dev/null || true
    wait "$bg" 2>/dev/null || true
  fi
}

# pagelab vm under SIGKILL.  Its children get SIGTERM when it dies
# (PR_SET_PDEATHSIG, harness/vm/vm.c: spawn_fds); vm-run traps it, stops qemu and
# removes the disk image, the initramfs copy and its temporary directory.
# What stays is the run's console log in .cache/vm/runs/ (the record of what
# the guest did).

vm_ready() {
  command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
  "$TOP/guest/vm-kernel" 6.12 --info >/dev/null 2>&1 || skip "Debian's 6.12 kernel cannot be had"
}

# tree PID: "pid:start-time" of PID and every process below it
tree() {
  local todo=("$1") p c st
  while [ ${#todo[@]} -gt 0 ]; do
    p=${todo[0]}; todo=("${todo[@]:1}")
    # A process that exits between here and the read gives no start time:
    # it is not recorded (an empty start time would match any missing pid).
    st=$(awk '{print $22}' "/proc/$p/stat" 2>/dev/null)
    [ -n "$st" ] && echo "$p:$st"
    for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do todo+=("$c"); done
  done
  return 0
}

# alive LIST: those of "pid:start-time" still running (the same process, not a reused pid)
alive() {
  local e st
  for e in $1; do
    st=$(awk '{print $22}' "/proc/${e%%:*}/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" = "${e#*:}" ] && echo "$e $(tr '\0' ' ' <"/proc/${e%%:*}/cmdline" 2>/dev/null)"
  done
  return 0
}

# vm_kill_at WHEN: start a guest of test/long with a disk, SIGKILL pagelab vm
# when WHEN is true (boot: qemu is up; run: the guest's pagelab has started
# the scenario), then everything it started must be gone.
vm_kill_at() {
  local when=$1 tmp="$BATS_TEST_TMPDIR/tmp" out="$BATS_TEST_TMPDIR/vm-out" procs q rundir i
  mkdir -p "$tmp" "$out"
  touch "$BATS_TEST_TMPDIR/mark"
  TMPDIR=$tmp "$PAGELAB" vm --kernel 6.12 --mem 512M --disk 64M --timeout 300 --out-dir "$out" \
    run "$TOP/tests/scenarios/long.scn" --no-report >"$BATS_TEST_TMPDIR/vm.out" 2>"$BATS_TEST_TMPDIR/vm.err" &
  bg=$!
  for i in $(seq 1200); do         # the static build may come first (2 min at most)
    q=$(tree $bg | while IFS=: read -r p _; do
          if [[ "$(readlink /proc/$p/exe 2>/dev/null)" == */qemu-system-* ]]; then echo "$p"; fi; done)
    [ -n "$q" ] && break
    kill -0 $bg 2>/dev/null || { cat "$BATS_TEST_TMPDIR/vm.err"; return 1; }
    sleep 0.1
  done
  [ -n "$q" ] || { echo "no qemu started"; cat "$BATS_TEST_TMPDIR/vm.err"; return 1; }
  rundir=$(find "$TOP/.cache/vm/runs" -maxdepth 1 -newer "$BATS_TEST_TMPDIR/mark" -name 'test-long-*' | head -n1)
  [ -n "$rundir" ] && [ -e "$rundir/disk.img" ]
  if [ "$when" = run ]; then
    # The guest's own pagelab announces its first run on the console.
    for i in $(seq 1200); do grep -q 'pagelab: run 1: ' "$rundir/console.log" 2>/dev/null && break; sleep 0.1; done
    grep -q 'pagelab: run 1: ' "$rundir/console.log" || { echo "the guest never ran"; tail "$rundir/console.log"; return 1; }
  fi
  procs=$(tree $bg)
  kill -9 $bg
  wait $bg 2>/dev/null || true
  bg=
  for i in $(seq 300); do [ -z "$(alive "$procs")" ] && break; sleep 0.1; done
  [ -z "$(alive "$procs")" ] || { echo "left running after SIGKILL ($when):"; alive "$procs"; return 1; }
  [ ! -e "$rundir/disk.img" ] || { echo "disk image left: $rundir/disk.img"; return 1; }
  [ ! -e "$rundir/initrd.cpio.gz" ] || { echo "initramfs copy left in $rundir"; return 1; }
  [ -z "$(ls -A "$tmp")" ] || { echo "temporary files left: $(ls -A "$tmp")"; return 1; }
  rm -rf "$rundir"
}

@test "pagelab vm SIGKILLed while the guest boots: no qemu, no disk image, no temporary directory" {
  vm_ready
  vm_kill_at boot
}

@test "pagelab vm SIGKILLed while the guest runs the scenario: no qemu, no disk image, no temporary directory" {
  vm_ready
  vm_kill_at run
}
