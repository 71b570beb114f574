#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What happens when things go wrong: a forbidden syscall, a signal to the
# harness, a SIGKILLed workload, a SIGKILLed harness.  Each leaves a readable
# result (or, after SIGKILL of the harness, a stream and a stale cgroup that
# the next run sweeps), and nothing running.

load helpers

setup() {
  require_memcg
  before_cg=$(pagelab_cgroups)
}

teardown() {
  [ -z "${bg:-}" ] || { kill -9 "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; } || true
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

@test "a forbidden syscall (mount) kills the workload with SIGSYS" {
  stem=seccomp
  run_scenario "$TOP/tests/scenarios/seccomp.scn" $stem
  assert_success
  [ "$(rq $stem '.runs[0].exit.outcome')" = seccomp ]
  [ "$(rq $stem '.runs[0].workloads[0].signal')" -eq 31 ]
  # The fill before the call was reported; nothing after it ran.
  [ "$(rq $stem '[.runs[0].steps[].step] | join(",")')" = fill ]
}

@test "ptrace is forbidden too" {
  stem=seccomp-ptrace
  run_scenario "$TOP/tests/scenarios/seccomp.scn" $stem --set call=ptrace
  assert_success
  [ "$(rq $stem '.runs[0].exit.outcome')" = seccomp ]
}

@test "SIGINT to the harness: exit 130, an interrupted result with what was sampled" {
  stem=sigint
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>"$RESULTS/$stem.err" &
  bg=$!
  wait_for $stem advise
  sleep 0.6
  kill -INT "$bg"
  st=0; wait "$bg" || st=$?
  bg=
  [ "$st" -eq 130 ]
  [ "$(rq $stem .status)" = interrupted ]
  [ "$(rq $stem '.runs[0].exit.outcome')" = interrupted ]
  [ "$(rq $stem '.runs[0].samples | length')" -ge 4 ]
  [ "$(rq $stem '[.runs[0].steps[].step] | index("advise") != null')" = true ]
  # Every line of the stream is JSON.
  jq -e . "$RESULTS/$stem.jsonl" >/dev/null
}

@test "a SIGKILLed workload: outcome killed, not an OOM kill" {
  stem=killed
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>/dev/null &
  bg=$!
  wait_for $stem advise
  pid=$(jq -r 'select(.type == "workload" and .name == "region") | .pid' "$RESULTS/$stem.jsonl")
  [ -n "$pid" ]
  kill -9 "$pid"
  st=0; wait "$bg" || st=$?
  bg=
  [ "$st" -eq 0 ]
  [ "$(rq $stem '.runs[0].exit.outcome')" = killed ]
  [ "$(rq $stem '.runs[0].exit.victims | length')" -eq 0 ]
}

@test "a SIGKILLed harness: its workloads die with it, the next run sweeps its cgroup" {
  stem=crash
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>/dev/null &
  bg=$!
  wait_for $stem advise
  kill -9 "$bg"
  wait "$bg" 2>/dev/null || true
  stale=$(pagelab_cgroups | grep "pagelab-$bg-" || true)
  bg=
  [ -n "$stale" ]
  # The stream is there and readable up to the crash.  Each line goes out in
  # one write(), but SIGKILL can land inside it (the kernel stops copying
  # between pages), so the last line may be cut: the whole lines are JSON, a
  # step among them, and report reads the stream, leaving a cut line out.
  head -n "$(wc -l < "$RESULTS/$stem.jsonl")" "$RESULTS/$stem.jsonl" >"$RESULTS/$stem.whole"
  # (Slurped: jq -e judges only its last input's output, and the last line
  # may be a sample or a tracing event.)
  jq -e -s 'map(select(.type == "step")) | length > 0' "$RESULTS/$stem.whole" >/dev/null
  [ ! -e "$RESULTS/$stem.json" ]
  run "$PAGELAB" report "$RESULTS/$stem.jsonl"
  assert_success
  assert_output --partial "the run did not finish (no result document): read from its stream; 1 run(s)"
  # A last line cut on purpose: left out, and said.
  head -c "$(( $(stat -c %s "$RESULTS/$stem.jsonl") - 20 ))" "$RESULTS/$stem.jsonl" >"$RESULTS/$stem-cut.jsonl"
  run "$PAGELAB" report "$RESULTS/$stem-cut.jsonl"
  assert_success
  assert_output --partial "its last line cut short (left out)"
  # PR_SET_PDEATHSIG: no workload outlives the harness.
  sleep 0.3
  for pid in $(cat "$stale/cgroup.procs" 2>/dev/null); do
    echo "still in the stale cgroup: $pid"; false
  done
  run "$PAGELAB" run madv-free/probe --repeat 1 --no-report --out "$RESULTS/after-crash.json"
  assert_success
  assert_output --partial "removed 1 stale sandbox"
  [ ! -d "$stale" ]
}
