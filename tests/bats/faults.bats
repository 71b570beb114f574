#!/usr/bin/env bats
# The fault campaign: pagelab is killed, starved of disk or raced at moments it
# does not choose, and every time the host must be as it was — knobs as found,
# no pagelab cgroup, no workload or qemu left — and a result is either absent
# or a valid JSON document (never torn).
#
# Changes knobs (through a per-test journal, $PAGELAB_JOURNAL) and boots
# guests: run it under flock /tmp/pagelab-heavy.lock.  Random moments come from
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
  [ "$(pagelab_cgroups)" = "$before_cg" ] || { echo "cgroups left: $(pagelab_cgroups)"; return 1; }
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
