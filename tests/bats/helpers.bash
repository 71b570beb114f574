# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the bats suites: where pagelab is, how to run a scenario into a
# result file, and the checks that nothing was left on the host.
bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load.bash'
load '/usr/lib/bats/bats-assert/load.bash'

TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
BUILD="${PAGELAB_BUILD:-$TOP/build}"
PAGELAB="$BUILD/pagelab"
export PAGELAB_SCENARIOS="$TOP/scenarios"
RESULTS="${PAGELAB_RESULTS:-${BATS_RUN_TMPDIR:-/tmp}/results}"
mkdir -p "$RESULTS"

# The memory cgroup this shell stands in: pagelab's sandboxes go below it
# (scripts/lib.sh: lab_own_memcg, which takes a container's own root off
# /proc/self/cgroup's path when there is no cgroup namespace).
. "$TOP/scripts/lib.sh"
own_memcg() {
  lab_own_memcg && echo "$LAB_MEMCG_DIR"
}

# Every pagelab cgroup below our own (there must be none between runs).
pagelab_cgroups() {
  find "$(own_memcg)" -mindepth 1 -maxdepth 3 -type d -name 'pagelab-*' 2>/dev/null | sort
}

# cgroups_new BEFORE: the pagelab-* cgroups there now that BEFORE (an earlier
# pagelab_cgroups) did not list.  A teardown asks this, not for equality: a
# run sweeps dead runs' stale sandboxes, so one left by an earlier failed test
# is gone after the next, and is that test's failure, not this one's.
cgroups_new() {
  comm -13 <(printf '%s\n' "$1" | sed '/^$/d') <(pagelab_cgroups)
}

# Everything a scenario must not change on the host: vm sysctls, THP, swap.
host_state() {
  local f
  for f in /proc/sys/vm/*; do
    [ -r "$f" ] && printf '%s=%s\n' "${f##*/}" "$(cat "$f" 2>/dev/null | tr '\n\t' '  ')"
  done
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null
  tail -n +2 /proc/swaps
}

# quiet_hold: from here to the end of the test nothing of scripts/test's other
# lane starts or runs beside it (its lanes' lock, PAGELAB_TEST_QUIET; the other
# lane takes it shared a step at a time); outside scripts/test it does nothing.
# For tests that judge timings of runs made one after the other.
quiet_hold() {
  local f=${PAGELAB_TEST_QUIET:-}
  case $f in /tmp/pagelab-test.*/quiet.lock) ;; *) return 0 ;; esac
  [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %u "$f")" = "$(id -u)" ] || return 0
  exec 8>>"$f"
  flock -x 8
}

require_memcg() {
  [ "$(id -u)" = 0 ] || skip "needs root"
  "$PAGELAB" check >/dev/null 2>&1 || skip "pagelab check: this host cannot run the MADV_FREE scenarios"
}

# A service test's needs: the memory cgroup, redis and its client, the user
# pagelab, and no process of that user around (the tests count on none).
require_redis_host() {
  require_memcg
  command -v redis-server >/dev/null || skip "no redis-server (scripts/setup installs redis-server)"
  command -v redis-benchmark >/dev/null || skip "no redis-benchmark (scripts/setup installs redis-tools)"
  getent passwd pagelab >/dev/null || skip "no user pagelab (scripts/setup makes it)"
  [ -z "$(pgrep -u pagelab)" ] || skip "processes of user pagelab are running: $(pgrep -u pagelab -l | tr '\n' ' ')"
}

# run_scenario NAME FILE-STEM [pagelab run options...]: runs into $RESULTS/STEM.json
# PAGELAB_SANDBOX=self|child picks the sandbox mode (containers/run sets it
# for a suite run inside a container started with --memory M --memory-swap M).
run_scenario() {
  local name=$1 stem=$2
  shift 2
  run "$PAGELAB" run "$name" --no-report --out "$RESULTS/$stem.json" \
    ${PAGELAB_SANDBOX:+--sandbox "$PAGELAB_SANDBOX"} "$@"
}

# wait_for STEM STEP: until the stream shows that step (10 s at most)
wait_for() {
  for _ in $(seq 100); do
    grep -q "\"step\":\"$2\"" "$RESULTS/$1.jsonl" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# jq on a result: rq STEM FILTER
rq() {
  jq -r "$2" "$RESULTS/$1.json"
}

# Kernel release for messages.
KREL=$(uname -r)

# vm_skip_reason KERNEL...: empty when qemu and every kernel can be had, else the
# reason to skip VM-mode tests (for setup_file; fetches a missing kernel once).
vm_skip_reason() {
  local k
  if ! command -v qemu-system-x86_64 >/dev/null; then
    echo "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
    return
  fi
  # Only "cannot be had here" (exit 1: offline, no candidate) skips; a kernel that
  # was downloaded and not unpacked (exit 3) is left to fail the tests that boot it.
  local rc
  for k in "$@"; do
    rc=0
    "$TOP/guest/vm-kernel" "$k" --info >/dev/null 2>"$BATS_FILE_TMPDIR/vm-kernel-$k.err" || rc=$?
    if [ "$rc" = 1 ]; then
      echo "cannot get Debian's $k kernel: $(tail -n1 "$BATS_FILE_TMPDIR/vm-kernel-$k.err")"
      return
    fi
  done
}

# guest_run DIR [vm options...] run NAME [run options...]: `pagelab vm`, results in
# $RESULTS/DIR/ (emptied first), status and output as bats' run gives them.
guest_run() {
  local dir=$1
  shift
  rm -rf "${RESULTS:?}/$dir"
  mkdir -p "$RESULTS/$dir"
  run "$PAGELAB" vm --out-dir "$RESULTS/$dir" "$@"
}
