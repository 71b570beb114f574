#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Every signal that would end the harness with the knobs changed stops a run as
# SIGTERM does (host/knobs.h: knob_stop_signals; the sampler reads them from its
# signalfd): the workloads are stopped, the knobs put back from the journal, the
# result written with status "interrupted", exit 130.  Before, SIGQUIT dumped core
# and SIGUSR1/SIGUSR2 killed the harness with the knobs still changed (issue 19,
# "Smaller"), and SIGPIPE was ignored whoever sent it.  A SIGPIPE the harness
# brings on itself — a write to a pipe nobody reads any more — is no stop: that
# write's EPIPE is handled where it happens.
#
# The knob test changes four knobs through a per-test journal (tests/scenarios/
# knobs.scn, safe on a borrowed host): run it under flock /tmp/pagelab-heavy.lock.

load helpers

KNOBS_SCN="$TOP/tests/scenarios/knobs.scn"

knob_state() {
  local f
  for f in min_free_kbytes watermark_scale_factor watermark_boost_factor nr_hugepages; do
    printf '%s=%s\n' "$f" "$(tr '\t' ' ' </proc/sys/vm/$f)"
  done
  printf 'thp=%s\n' "$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  grep -E '^HugePages_Total' /proc/meminfo
}

setup() {
  require_memcg
  export PAGELAB_JOURNAL="$BATS_TEST_TMPDIR/journal"
  before_knobs=$(knob_state)
  before_cg=$(pagelab_cgroups)
}

teardown() {
  if [ -n "${bg:-}" ]; then
    kill -9 "$bg" 2>/dev/null || true
    wait "$bg" 2>/dev/null || true
  fi
  "$PAGELAB" restore >/dev/null 2>&1 || true
  [ "$(knob_state)" = "$before_knobs" ] || {
    echo "knobs changed:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

@test "SIGQUIT, SIGUSR1, SIGUSR2 and another process's SIGPIPE stop a knob-changing run like SIGTERM: knobs back, result written, exit 130" {
  for sig in QUIT USR1 USR2 PIPE; do
    stem=stop-$sig
    "$PAGELAB" run "$KNOBS_SCN" --set hold_ms=20000 --no-report --out "$RESULTS/$stem.json" \
      2>"$RESULTS/$stem.err" &
    bg=$!
    wait_for "$stem" mincore
    # the knobs read the run's values while it holds
    [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 200 ]
    kill -"$sig" "$bg"
    st=0; wait "$bg" || st=$?
    bg=
    cat "$RESULTS/$stem.err"
    [ "$st" -eq 130 ]
    [ "$(knob_state)" = "$before_knobs" ]
    [ ! -e "$PAGELAB_JOURNAL" ]
    [ "$(rq "$stem" .status)" = interrupted ]
    [ "$(rq "$stem" '.runs[0].exit.outcome')" = interrupted ]
    rq "$stem" .error | grep -q '^stopped by '
    grep -q 'received: stopping the workloads' "$RESULTS/$stem.err"
    grep -q 'restor' "$RESULTS/$stem.err"
  done
}

@test "a reader that went away is no stop: with stderr's pipe closed the second run of two still runs to its end" {
  stem=stop-epipe
  # head reads one byte and exits: every later progress line is a write to a
  # pipe nobody reads (EPIPE and a SIGPIPE of the harness's own), some of them
  # between the two runs, so the second run's signalfd holds one when it starts.
  set +o pipefail
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --set hold_ms=300 --repeat 2 --no-report \
    --out "$RESULTS/$stem.json" 2>&1 | head -c 1 >/dev/null
  st=${PIPESTATUS[0]}
  [ "$st" -eq 0 ]
  [ "$(rq "$stem" .status)" = ok ]
  [ "$(rq "$stem" '[.runs[].exit.outcome] | join(" ")')" = "completed completed" ]
}

@test "audit --with: SIGQUIT or SIGUSR1 during the watch puts the knob back, exit 130; its own SIGPIPE on a closed stdout does not stop it" {
  for sig in QUIT USR1; do
    "$PAGELAB" audit --with vm.watermark_scale_factor=50 --watch 20 >/dev/null 2>"$BATS_TEST_TMPDIR/audit-$sig.err" &
    bg=$!
    for _ in $(seq 100); do
      [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 50 ] && break
      sleep 0.1
    done
    [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 50 ]
    kill -"$sig" "$bg"
    st=0; wait "$bg" || st=$?
    bg=
    cat "$BATS_TEST_TMPDIR/audit-$sig.err"
    [ "$st" -eq 130 ]
    grep -q 'stopped by' "$BATS_TEST_TMPDIR/audit-$sig.err"
    [ "$(knob_state)" = "$before_knobs" ]
  done
  # true has gone before the audit prints: its text is written to a pipe
  # nobody reads (EPIPE and a SIGPIPE of its own, which used to kill it with
  # the knob still set); the knob comes back and the audit ends 0.
  set +o pipefail
  "$PAGELAB" audit --with vm.watermark_scale_factor=50 --watch 1 2>"$BATS_TEST_TMPDIR/audit-pipe.err" | true
  st=${PIPESTATUS[0]}
  cat "$BATS_TEST_TMPDIR/audit-pipe.err"
  [ "$st" -eq 0 ]
  [ "$(knob_state)" = "$before_knobs" ]
}
