#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGQUIT, SIGUSR1, SIGUSR2 and SIGPIPE end a run as SIGTERM does
# (harness/run/run.c: run_signals): the workloads stopped, every knob put
# back before pagelab exits, the result written with status "interrupted",
# exit 130.  Their default actions would end the harness at once with the
# knobs still changed (SIGQUIT, SIGUSR1/2), or never reach it (SIGPIPE, which
# the harness ignores for its writes: blocked, it is queued all the same,
# kernel/signal.c: sig_ignored).  A SIGPIPE the harness raises itself, by a
# write to a closed pipe, is that write's EPIPE and stops nothing.
#
# One knob changes, through a private journal: vm.watermark_scale_factor 200
# (only where kswapd wakes; tests/scenarios/knobs.scn with its other knobs
# kept).  Changes knobs: run it under flock /tmp/pagelab-heavy.lock.

load helpers

KNOBS_SCN="$TOP/tests/scenarios/knobs.scn"

knob_state() {
  local f
  for f in min_free_kbytes watermark_scale_factor watermark_boost_factor nr_hugepages; do
    printf '%s=%s\n' "$f" "$(cat /proc/sys/vm/$f)"
  done
  cat /sys/kernel/mm/transparent_hugepage/enabled
}

setup() {
  require_memcg
  export PAGELAB_JOURNAL="$BATS_TEST_TMPDIR/journal/journal"
  before_knobs=$(knob_state)
  before_cg=$(pagelab_cgroups)
}

teardown() {
  if [ -n "${bg:-}" ]; then
    kill -9 "$bg" 2>/dev/null || true
    wait "$bg" 2>/dev/null || true
  fi
  "$PAGELAB" restore >/dev/null 2>&1 || true
  [ "$(knob_state)" = "$before_knobs" ] || { echo "knobs changed:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

@test "SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE mid-run: exit 130, the result written, every knob back before pagelab exits" {
  [ "$(cat /proc/sys/vm/watermark_scale_factor)" != 200 ] || skip "watermark_scale_factor is 200 already"
  for sig in QUIT USR1 USR2 PIPE; do
    stem=signal-$sig
    "$PAGELAB" run "$KNOBS_SCN" --no-report --set hold_ms=20000 --set wbf=keep --set thp=keep --set hugetlb=keep \
      --out "$RESULTS/$stem.json" 2>"$RESULTS/$stem.err" &
    bg=$!
    wait_for $stem mincore || { echo "$sig: the run did not reach its hold: $(cat "$RESULTS/$stem.err")"; return 1; }
    [ "$(cat /proc/sys/vm/watermark_scale_factor)" = 200 ]
    kill -$sig $bg
    st=0; wait $bg || st=$?
    bg=
    [ "$st" -eq 130 ] || { echo "SIG$sig: exit $st: $(cat "$RESULTS/$stem.err")"; return 1; }
    [ "$(knob_state)" = "$before_knobs" ] || { echo "after SIG$sig:"; diff <(echo "$before_knobs") <(knob_state); return 1; }
    [ ! -e "$PAGELAB_JOURNAL" ]
    [ "$(rq $stem .status)" = interrupted ]
    [ "$(rq $stem '.runs[0].exit.outcome')" = interrupted ]
    [ "$(rq $stem '.runs[0].knobs.restored_ok')" = true ]
    [ "$(rq $stem '.runs[0].knobs.applied | length')" = 1 ]
    [[ "$(rq $stem .error)" == "stopped by "* ]]
    grep -q "restored vm.watermark_scale_factor: 200 -> " "$RESULTS/$stem.err"
  done
}

@test "a SIGPIPE the harness raises itself (its stdout and stderr a closed pipe) is that write's EPIPE: the run goes on to its end" {
  stem=signal-own-pipe
  # `true` exits at once: every line pagelab writes meets a closed pipe, and
  # the kernel queues a SIGPIPE from pagelab itself (fs/pipe.c: pipe_write).
  st=0
  "$PAGELAB" run madv-free/probe --repeat 1 --set region=16M --set memory_max=64M --out "$RESULTS/$stem.json" 2>&1 |
    true || true
  st=${PIPESTATUS[0]}
  [ "$st" -eq 0 ] || { echo "exit $st"; return 1; }
  [ "$(rq $stem .status)" = ok ]
  [ "$(rq $stem '.runs[0].exit.outcome')" = completed ]
}
