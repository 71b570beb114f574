#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The fault campaign: pagelab is killed, starved of disk or raced at moments it
# does not choose, and every time the host must be as it was — knobs as found,
# no pagelab cgroup, no workload or qemu left — and a result is either absent
# or a valid JSON document (never torn).
#
# Changes knobs (through a per-test journal, $PAGELAB_JOURNAL): run it under
# flock /tmp/pagelab-heavy.lock.  pagelab vm under SIGKILL is faults-vm.bats
# (a guest file: scripts/test runs it in either lane).  Random moments come from
# $FAULT_SEED (printed; set it to replay a failure).

load helpers

KNOBS_SCN="$TOP/tests/scenarios/knobs.scn"

knob_state() {
  local f
  for f in min_free_kbytes watermark_scale_factor watermark_boost_factor nr_hugepages lowmem_reserve_ratio; do
    printf '%s=%s\n' "$f" "$(tr '\t' ' ' </proc/sys/vm/$f)"
  done
  printf 'thp=%s\n' "$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  printf 'defrag=%s\n' "$(cat /sys/kernel/mm/transparent_hugepage/defrag)"
  printf 'swaps=%s\n' "$(tail -n +2 /proc/swaps | wc -l)"
}

# What is mounted at the tracefs directory: tracefs, or the sysfs under it.
tracefs_state() {
  stat -f -c %T /sys/kernel/tracing 2>/dev/null || echo none
}

# Processes of this build (the harness and its workloads: others may run their
# own pagelab on the machine at the same time), and qemu guests of this test.
BUILD_REAL=$(realpath "$BUILD")
pagelab_procs() {
  local p exe
  for p in /proc/[0-9]*; do
    exe=$(readlink "$p/exe" 2>/dev/null) || continue
    case $exe in
    "$BUILD_REAL"/*) echo "${p#/proc/} $exe" ;;
    */qemu-system-*) grep -qF "$BATS_TEST_TMPDIR" "$p/cmdline" 2>/dev/null && echo "${p#/proc/} $exe" ;;
    esac
  done
  return 0
}

setup() {
  require_memcg
  export PAGELAB_JOURNAL="$BATS_TEST_TMPDIR/journal/journal"
  mkdir -p -m 0700 "$BATS_TEST_TMPDIR/journal"
  before_knobs=$(knob_state)
  before_cg=$(pagelab_cgroups)
  before_tracefs=$(tracefs_state)
}

teardown() {
  if [ -n "${bg:-}" ]; then
    kill -9 "$bg" 2>/dev/null || true
    wait "$bg" 2>/dev/null || true
  fi
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
  "$PAGELAB" restore >/dev/null 2>&1 || true
  [ "$(knob_state)" = "$before_knobs" ] || {
    echo "knobs changed:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
  [ -z "$(pagelab_procs)" ] || { echo "processes left: $(pagelab_procs)"; return 1; }
}

mounts=()

# small_fs SIZE: a tmpfs of SIZE in a private directory, its path in $fs
# (unmounted in teardown).  Not in $(...): the list must reach teardown.
small_fs() {
  fs=$(mktemp -d "$BATS_TEST_TMPDIR/fs.XXXXXX")
  mount -t tmpfs -o "size=$1" tmpfs "$fs"
  mounts+=("$fs")
}

@test "the results file system fills up mid-run: the run stops, sandbox removed, exit 1 naming the stream" {
  small_fs 64k; d=$fs
  run --separate-stderr "$PAGELAB" run madv-free/series --no-report --out "$d/r.json"
  assert_equal "$status" 1
  [[ "$stderr" == *"write $d/r.jsonl: No space left on device"* ]] || { echo "$stderr"; return 1; }
  # It stopped at the failure: not every run of the three was made.
  [ "$(grep -c '^pagelab: run [0-9]*: .* sandbox ' <<<"$stderr")" -lt 3 ]
  [ ! -e "$d/r.json" ] || jq -e .status "$d/r.json" >/dev/null
  [ -z "$(ls "$d" | grep '\.tmp\.')" ]
}

@test "the results file system fills up during a knob-changing run: every knob back, exit 1" {
  small_fs 48k; d=$fs
  run --separate-stderr "$PAGELAB" run "$KNOBS_SCN" --no-report --set hold_ms=3000 --out "$d/r.json"
  assert_equal "$status" 1
  [[ "$stderr" == *"$d/r.json"*"No space left on device"* ]] || { echo "$stderr"; return 1; }
  [ "$(knob_state)" = "$before_knobs" ]
  [ ! -e "$PAGELAB_JOURNAL" ]
}

# The non-destructive host scenarios at small sizes (so 30 kills take well under
# a minute), and the test scenarios that change knobs and swap through the journal.
# Each entry: NAME|--set options.
CAMPAIGN=(
  "madv-free/probe|--set region=16M --set memory_max=64M"
  "madv-free/counters|--set region=64M --set memory_max=160M --set ballast=16M"
  "madv-free/pressure|--set region=64M --set memory_max=160M --set ballast=16M --set pressure=96M"
  "madv-free/pressure-800|--set region=64M --set memory_max=160M --set ballast=16M --set pressure=96M"
  "madv-free/three-paths|--set region=64M --set memory_max=160M --set ballast=16M --set pressure=96M"
  "madv-free/memcg-counters|--set region=64M --set memory_max=160M --set ballast=16M --set pressure=96M"
  "madv-free/thp-reclaim|--set region=64M --set memory_max=160M --set ballast=16M --set pressure=96M"
  "madv-free/thp-write|--set region=64M --set memory_max=160M --set readings=3"
  "madv-free/readback|--set region=64M --set memory_max=160M"
  "madv-free/series|--set region=64M --set memory_max=160M --set readings=3"
  "madv-free/host-scan|--set control=16M --set memory_max=64M"
  "madv-free/lru-order|--set region=32M --set memory_max=64M --set pressure=48M"
  "watermarks/lines|"
  "watermarks/who-sets|"
  "$TOP/tests/scenarios/knobs.scn|--set hold_ms=300"
  "$TOP/tests/scenarios/knobs-swap.scn|--set hold_ms=300"
)

# stream_ok FILE: every complete line of a result stream is JSON (a last line
# without its newline may be torn by the kill: it was never acknowledged).
stream_ok() {
  [ -e "$1" ] || return 0
  if [ -n "$(tail -c1 "$1")" ]; then sed '$d' "$1"; else cat "$1"; fi | jq -e . >/dev/null
}

# after_kill WHAT: pagelab restore, then the host is as found (teardown's checks, now).
after_kill() {
  local i
  run "$PAGELAB" restore
  [ "$status" = 0 ] || { echo "$1: pagelab restore exit $status: $output"; return 1; }
  [ ! -e "$PAGELAB_JOURNAL" ] || { echo "$1: the journal is still there"; return 1; }
  [ "$(knob_state)" = "$before_knobs" ] || {
    echo "$1: knobs changed:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "$1: cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
  # A run that mounted tracefs and was killed: restore took the mount down.
  [ "$(tracefs_state)" = "$before_tracefs" ] ||
    { echo "$1: /sys/kernel/tracing was $before_tracefs, now $(tracefs_state)"; return 1; }
  # Workloads die of PR_SET_PDEATHSIG, a moment after the harness.
  for i in $(seq 50); do [ -z "$(pagelab_procs)" ] && break; sleep 0.05; done
  [ -z "$(pagelab_procs)" ] || { echo "$1: processes left: $(pagelab_procs)"; return 1; }
}

@test "campaign: SIGKILL at 30 random moments over the host scenarios; after pagelab restore the host is as found" {
  # (tracefs too: when it was not mounted before, a killed run that mounted
  # it leaves it to restore; a kill between the mount and its record, a few
  # system calls, would leave it: not seen in the campaigns run here)
  # FAULT_ONLY=PATTERN keeps the scenarios matching it (a replay of one).
  if [ -n "${FAULT_ONLY:-}" ]; then
    local keep=()
    for e in "${CAMPAIGN[@]}"; do [[ "$e" == *$FAULT_ONLY* ]] && keep+=("$e"); done
    CAMPAIGN=("${keep[@]}")
  fi
  seed=${FAULT_SEED:-$(( $(date +%s%N) % 32768 ))}
  RANDOM=$seed
  echo "# fault campaign: FAULT_SEED=$seed replays these moments" >&3
  log="$RESULTS/faults-campaign.log"
  echo "seed $seed" >"$log"
  # Each scenario once to its end at these sizes: it runs (exit 0), and how
  # long it takes is the span its kill moments are drawn from.
  declare -A dur_ms
  for e in "${CAMPAIGN[@]}"; do
    name=${e%%|*}; read -r -a sets <<<"${e#*|}"
    t0=$(date +%s%N)
    run "$PAGELAB" run "$name" --repeat 1 --no-report --out "$RESULTS/calib.json" "${sets[@]}"
    [ "$status" = 0 ] || { echo "$name at campaign sizes: exit $status: $output"; return 1; }
    dur_ms[$name]=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "calibrated $name ${dur_ms[$name]} ms" >>"$log"
  done
  kills=0 absent=0 complete=0 streams=0 i=0
  # 30 kills of a live harness: a moment after the run ended is drawn again.
  while [ "$kills" -lt 30 ] && [ "$i" -lt 60 ]; do
    i=$((i + 1))
    e=${CAMPAIGN[$(( RANDOM % ${#CAMPAIGN[@]} ))]}
    name=${e%%|*}; read -r -a sets <<<"${e#*|}"
    at=$(( RANDOM % (${dur_ms[$name]} + 1) ))
    out="$RESULTS/fault-$i.json"
    "$PAGELAB" run "$name" --repeat 1 --no-report --out "$out" "${sets[@]}" >/dev/null 2>"$RESULTS/fault-$i.err" &
    bg=$!
    sleep "$(printf '%d.%03d' $((at / 1000)) $((at % 1000)))"
    st=0
    kill -9 "$bg" 2>/dev/null || st=$?
    wait "$bg" 2>/dev/null || true
    bg=
    if [ "$st" = 0 ]; then
      kills=$((kills + 1))
      echo "kill $i: $name at $at ms of ${dur_ms[$name]}" >>"$log"
    else
      echo "late $i: $name had ended by $at ms" >>"$log"
    fi
    what="kill $i ($name at $at ms, FAULT_SEED=$seed)"
    after_kill "$what"
    # The result: absent, or a whole document (never torn); the stream whole lines.
    if [ -e "$out" ]; then
      jq -e 'type == "object" and .schema == "pagelab.result/1" and (.status | type) == "string"' "$out" >/dev/null ||
        { echo "$what: a torn or foreign result document"; return 1; }
      complete=$((complete + 1))
    else
      absent=$((absent + 1))
      # What the kill left is still read: the stream, by report, whenever
      # its header line is whole (a cut last line is left out).
      if [ "$(wc -l < "${out}l" 2>/dev/null || echo 0)" -ge 1 ] &&
         [ "$(head -n1 "${out}l" | jq -r .type 2>/dev/null)" = header ]; then
        "$PAGELAB" report "${out}l" >/dev/null 2>"$RESULTS/fault-$i.read" ||
          { echo "$what: report of the stream: exit $?: $(cat "$RESULTS/fault-$i.read")"; return 1; }
        grep -q "the run did not finish" "$RESULTS/fault-$i.read" ||
          { echo "$what: report of the stream did not say the run did not finish"; return 1; }
        streams=$((streams + 1))
      fi
    fi
    stream_ok "${out}l" || { echo "$what: a torn line inside the stream"; return 1; }
    rm -f "$out" "${out}l"
  done
  echo "kills $kills, results absent $absent (streams read by report $streams), complete $complete" >>"$log"
  [ "$kills" -ge 30 ] || { echo "only $kills kills landed while the harness ran"; return 1; }
  echo "# $kills kills: $absent results absent (killed before the end; $streams streams read by report), $complete complete" >&3
  # The moments were spread: most kills landed while the harness ran.
  [ "$absent" -ge 15 ]
}

# A run that mounts tracefs records the mount beside the journal
# (harness/host/mountmark.h); killed, its mount stays until `pagelab restore`
# or the next tracing run's end takes it down, and only a mount so recorded.
# The record is written while the mount is still detached: a run killed just
# before it is attached (strace injects SIGKILL at move_mount's entry) leaves
# no mount at all, and a record restore drops; where fsopen is refused, the
# run falls back to mount(2).  In a private mount namespace (unshare -m): its
# tracefs mounts and unmounts are its own, whatever the host has mounted.
@test "SIGKILLed after mounting tracefs: pagelab restore unmounts it; a mount it did not make stays; killed before attaching it, nothing is mounted" {
  command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
  cat >"$BATS_TEST_TMPDIR/inner.sh" <<'INNER'
set -eu
T=/sys/kernel/tracing
MARK=$PAGELAB_JOURNAL.tracefs
SCN=$TOP/tests/scenarios/bench-hold.scn
SMALL=(--set region=16M --set memory_max=64M --no-report)
is_tracefs() { [ "$(stat -f -c %T "$T" 2>/dev/null)" = tracefs ]; }
fail() { echo "$*"; exit 1; }
# killed_run NAME: a run that mounts tracefs, SIGKILLed once its record is there
killed_run() {
  "$PAGELAB" run "$SCN" "${SMALL[@]}" --set hold_ms=30000 --out "$R/$1.json" 2>"$R/$1.err" &
  bg=$!
  for _ in $(seq 300); do [ -s "$MARK" ] && break; sleep 0.05; done
  [ -s "$MARK" ] || { cat "$R/$1.err"; fail "$1: no record of the mount at $MARK"; }
  grep -Eqx "pagelab-tracefs 1 pid=$bg boot=$(cat /proc/sys/kernel/random/boot_id) mnt=[0-9]+ unique=[01]" "$MARK" ||
    fail "$1: the record: $(cat "$MARK")"
  kill -9 "$bg"
  wait "$bg" || true
  is_tracefs || fail "$1: tracefs not mounted after the kill"
}
# This namespace's copies of the host's mounts, if any, go first.
for _ in 1 2 3 4; do is_tracefs || break; umount "$T"; done
is_tracefs && fail "tracefs still mounted in the private namespace"
killed_run first
out=$("$PAGELAB" restore)
grep -qF "unmounted tracefs, which a dead pagelab run (pid $bg) had mounted" <<<"$out" || fail "restore said: $out"
is_tracefs && fail "restore left tracefs mounted"
[ ! -e "$MARK" ] || fail "restore left the record"
# Its mount unmounted by hand and tracefs mounted anew by somebody else: the
# record goes, that mount stays.
killed_run second
umount "$T"
mount -t tracefs nodev "$T"
out=$("$PAGELAB" restore)
is_tracefs || fail "restore took down a mount it did not make: $out"
[ ! -e "$MARK" ] || fail "a record naming a mount that is gone stayed"
grep -q tracefs <<<"$out" && fail "restore spoke of tracefs: $out"
# A run that finds it mounted neither records nor takes it down.
"$PAGELAB" run "$SCN" "${SMALL[@]}" --set hold_ms=300 --out "$R/other.json" 2>"$R/other.err" ||
  { cat "$R/other.err"; fail "a run with tracefs mounted by somebody else failed"; }
is_tracefs || fail "a run took down a mount it did not make"
[ ! -e "$MARK" ] || fail "a run recorded a mount it did not make"
umount "$T"
# The next tracing run's end takes a killed run's mount down too.
killed_run third
"$PAGELAB" run "$SCN" "${SMALL[@]}" --set hold_ms=300 --out "$R/next.json" 2>"$R/next.err" ||
  { cat "$R/next.err"; fail "the run after the kill failed"; }
grep -qF "tracefs unmounted: pagelab pid $bg had mounted it and is gone" "$R/next.err" ||
  { cat "$R/next.err"; fail "the next run did not say it took the mount down"; }
is_tracefs && fail "the next run left the killed run's tracefs mounted"
[ ! -e "$MARK" ] || fail "the next run left the record"
"$PAGELAB" restore >/dev/null
# Without the new mount API (strace makes fsopen fail with ENOSYS): mount(2)
# as before, the run traced, its mount and record gone at its end.
strace -qq -o "$R/legacy.strace" -e trace=fsopen,mount -e inject=fsopen:error=ENOSYS \
  "$PAGELAB" run "$SCN" "${SMALL[@]}" --set hold_ms=300 --out "$R/legacy.json" 2>"$R/legacy.err" ||
  { cat "$R/legacy.err"; fail "a run without fsopen failed"; }
grep -q '^mount("nodev", "/sys/kernel/tracing", "tracefs"' "$R/legacy.strace" ||
  fail "no mount(2) once fsopen was refused: $(cat "$R/legacy.strace")"
jq -e '.runs[0].summary.trace != null' "$R/legacy.json" >/dev/null || fail "the run without fsopen traced nothing"
is_tracefs && fail "the run without fsopen left tracefs mounted"
[ ! -e "$MARK" ] || fail "the run without fsopen left its record"
# Killed between the record and the mount's attaching: no tracefs mount
# anywhere in this namespace (the detached one went with the process), the
# record names the dead run, and restore drops it without unmounting anything.
strace -qq -o /dev/null -e trace=move_mount -e inject=move_mount:error=EPERM:signal=KILL \
  "$PAGELAB" run "$SCN" "${SMALL[@]}" --set hold_ms=300 --out "$R/detached.json" 2>"$R/detached.err" && fail "strace's SIGKILL did not land"
is_tracefs && fail "a run killed before move_mount left tracefs mounted"
grep -q ' - tracefs ' /proc/self/mountinfo && fail "a tracefs mount is left: $(grep ' - tracefs ' /proc/self/mountinfo)"
grep -Eqx "pagelab-tracefs 1 pid=[0-9]+ boot=$(cat /proc/sys/kernel/random/boot_id) mnt=[0-9]+ unique=[01]" "$MARK" ||
  fail "no record before the mount was attached: $(cat "$MARK" 2>&1)"
out=$("$PAGELAB" restore)
[ ! -e "$MARK" ] || fail "restore left the record of a mount that never was attached"
grep -q tracefs <<<"$out" && fail "restore spoke of tracefs: $out"
if is_tracefs; then fail "restore mounted tracefs"; fi
INNER
  R="$RESULTS" TOP="$TOP" PAGELAB="$PAGELAB" run unshare -m --propagation private bash "$BATS_TEST_TMPDIR/inner.sh"
  echo "$output"
  [ "$status" = 0 ]
}

# sandbox_of STEM: the sandbox path the stream announced for the first run
sandbox_of() {
  jq -r 'select(.type == "run-start") | .sandbox.path' "$RESULTS/$1.jsonl" | head -n1
}

@test "the sandbox cgroup is killed from outside mid-run: outcome killed (data), exit 0, nothing left" {
  stem=outside-kill
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>"$RESULTS/$stem.err" &
  bg=$!
  wait_for $stem advise
  cg=$(sandbox_of $stem)
  [ -d "$cg" ]
  # Everything in it at once, as an operator's `kill -9 $(cat cgroup.procs)` (v1 has no cgroup.kill).
  if [ -e "$cg/cgroup.kill" ]; then echo 1 >"$cg/cgroup.kill"; else kill -9 $(cat "$cg/cgroup.procs"); fi
  st=0; wait "$bg" || st=$?
  bg=
  [ "$st" = 0 ] || { cat "$RESULTS/$stem.err"; return 1; }
  [ "$(rq $stem '.runs[0].exit.outcome')" = killed ]
  [ "$(rq $stem '.runs[0].exit.victims | length')" = 0 ]
  [ ! -d "$cg" ]
}

@test "the sandbox cgroup is removed from outside mid-run: the run ends, the result says so, nothing left" {
  stem=outside-rmdir
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>"$RESULTS/$stem.err" &
  bg=$!
  wait_for $stem advise
  cg=$(sandbox_of $stem)
  kill -9 $(cat "$cg/cgroup.procs")
  for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.02; done
  [ ! -d "$cg" ]
  st=0; wait "$bg" || st=$?
  bg=
  # The workload's fate is data; a sandbox that is already gone is "gone", not an error.
  [ "$st" = 0 ] || { echo "exit $st"; cat "$RESULTS/$stem.err"; return 1; }
  jq -e '.status == "ok" and .runs[0].exit.outcome == "killed"' "$RESULTS/$stem.json" >/dev/null
}

@test "a workload killed from outside mid-run: outcome killed, exit 0, the run goes on to its end" {
  stem=outside-wl
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>/dev/null &
  bg=$!
  wait_for $stem advise
  pid=$(jq -r 'select(.type == "workload" and .name == "ballast") | .pid' "$RESULTS/$stem.jsonl")
  kill -9 "$pid"
  pid=$(jq -r 'select(.type == "workload" and .name == "region") | .pid' "$RESULTS/$stem.jsonl")
  kill -9 "$pid"
  st=0; wait "$bg" || st=$?
  bg=
  [ "$st" = 0 ]
  [ "$(rq $stem '.runs[0].exit.outcome')" = killed ]
}

@test "two sandbox-only runs at once: both succeed, each in its own sandbox" {
  "$PAGELAB" run madv-free/probe --repeat 1 --set region=16M --set memory_max=64M --no-report \
    --out "$RESULTS/two-a.json" 2>"$RESULTS/two-a.err" &
  a=$!
  "$PAGELAB" run madv-free/probe --repeat 1 --set region=16M --set memory_max=64M --no-report \
    --out "$RESULTS/two-b.json" 2>"$RESULTS/two-b.err" &
  b=$!
  sa=0; wait $a || sa=$?
  sb=0; wait $b || sb=$?
  [ "$sa" = 0 ] && [ "$sb" = 0 ] || { cat "$RESULTS/two-a.err" "$RESULTS/two-b.err"; return 1; }
  [ "$(rq two-a '.runs[0].exit.outcome')" = completed ]
  [ "$(rq two-b '.runs[0].exit.outcome')" = completed ]
  [ "$(rq two-a '.runs[0].sandbox.path')" != "$(rq two-b '.runs[0].sandbox.path')" ]
}

@test "a second knob-changing run while one runs: refused with the first's pid, exit 3, nothing changed" {
  "$PAGELAB" run "$KNOBS_SCN" --set hold_ms=4000 --no-report --out "$RESULTS/first.json" 2>/dev/null &
  bg=$!
  wait_for first mincore
  during=$(knob_state)
  [ "$during" != "$before_knobs" ]
  run --separate-stderr "$PAGELAB" run "$KNOBS_SCN" --set wsf=500 --no-report --out "$RESULTS/second.json"
  assert_equal "$status" 3
  [[ "$stderr" == *"belongs to a running pagelab (pid $bg)"* ]] || { echo "$stderr"; return 1; }
  [ "$(knob_state)" = "$during" ]          # the second changed nothing (wsf stays the first's 200)
  [ ! -e "$RESULTS/second.json" ]
  st=0; wait "$bg" || st=$?
  bg=
  [ "$st" = 0 ]
  [ "$(knob_state)" = "$before_knobs" ]
}

# A run killed by SIGKILL leaves no result document (the document is written
# at the end) but its stream, whole up to the kill: report and plot read it
# line by line (harness/result/read.h), say in one stderr line that the run did
# not finish, and show what was recorded.
@test "SIGKILLed mid-run: no document, but report and plot read its stream and say the run did not finish" {
  stem=killed-stream
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --set hold_ms=5000 --no-report --out "$RESULTS/$stem.json" \
    2>"$RESULTS/$stem.err" &
  bg=$!
  wait_for $stem advise
  sleep 0.6
  kill -9 "$bg"
  wait "$bg" 2>/dev/null || true
  bg=
  after_kill "the stream test"
  [ ! -e "$RESULTS/$stem.json" ]
  stream="$RESULTS/$stem.jsonl"
  n=$(grep -c '"type":"sample"' "$stream")
  [ "$n" -ge 3 ]
  run --separate-stderr "$PAGELAB" report "$stream"
  assert_success
  [ "${#stderr_lines[@]}" = 1 ]
  [[ "$stderr" == *"$stem.jsonl: the run did not finish (no result document): read from its stream; 1 run(s), $n sample(s) recorded"* ]]
  # What was recorded: the probe table's LazyFree right after MADV_FREE (the
  # advise step came before the kill): the 64 MiB region, 65,536 kB on this
  # host less what the kernel had not yet counted.
  assert_output --partial "(test/long, 1 run, interrupted)"
  assert_output --regexp "LazyFree, smaps_rollup \(advise step\) \| 6[0-9],[0-9]{3} kB"
  run --separate-stderr "$PAGELAB" report --format json "$stream"
  assert_success
  echo "$output" | jq -e '.inputs[0].status == "interrupted" and .inputs[0].runs == 1' >/dev/null
  if command -v gnuplot >/dev/null; then
    run "$PAGELAB" plot --out "$RESULTS/$stem-plots" "$stream"
    assert_success
    assert_output --partial "did not finish"
    # every sample of the stream is a row of the chart's data (its first block)
    [ "$(awk '/^$/ { exit } !/^#/ { n++ } END { print n }' "$RESULTS/$stem-plots/$stem-A1.dat")" = "$n" ]
  fi
}
