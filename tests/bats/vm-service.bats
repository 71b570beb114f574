#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# A program nobody in the tree wrote, as a workload, on cgroup v2: the command
# path (harness/launch/command.c) starts it with clone3(CLONE_INTO_CGROUP)
# straight into the sandbox's v2 cgroup — on this v1 host it forks and
# attaches, so only a guest runs this path.  tests/scenarios/svc-fork.scn: a
# shell and its two children (busybox's sh, sleep and dd in the guest), ready
# when it has started both, stopped by SIGTERM, run as the guest's
# unprivileged user pagelab (guest/vm-initramfs writes /etc/passwd with it and
# root).  One 6.12 guest boot, about 20 s.

load helpers

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  SVC_SKIP=$(vm_skip_reason 6.12)
  export SVC_SKIP
}

setup() {
  [ -z "$SVC_SKIP" ] || skip "$SVC_SKIP"
}

@test "vm: a command workload on cgroup v2 (6.12 guest) — clone3 into the sandbox, every process of it in the figures, stopped by its signal" {
  guest_run vm-svc --kernel 6.12 --timeout 300 run "$TOP/tests/scenarios/svc-fork.scn" --no-report
  echo "$output"
  assert_success
  f=$(ls "$RESULTS"/vm-svc/*-guest-*.json)
  jq -e '.host.cgroup.memory == "v2" and .runs[0].sandbox.version == "v2"' "$f"
  jq -e '.runs[0].workloads[0] | .program == "command" and .user.name == "pagelab" and .user.uid == 999
         and .stop.signal == "TERM" and .stop.planned and (.stop.killed | not) and .ready_ms > 0' "$f"
  s=$(jq -r '.runs[0].steps[0].sample' "$f")
  jq ".runs[0].samples[$s].workloads.svc" "$f" >"$BATS_TEST_TMPDIR/svc.json"
  # The shell and both children are in the sandbox's cgroup.procs: placed there.
  [ "$(jq -r '.processes' "$BATS_TEST_TMPDIR/svc.json")" = 3 ]
  [ "$(jq -r '[.procs[].comm] | sort | join(" ")' "$BATS_TEST_TMPDIR/svc.json")" = "dd sh sleep" ]
  for k in rss_kb pss_kb anonymous_kb; do
    [ "$(jq -r --arg k "$k" '.[$k] == ([.procs[][$k]] | add)' "$BATS_TEST_TMPDIR/svc.json")" = true ]
  done
  [ "$(jq -r '[.procs[] | select(.comm == "dd") | .anonymous_kb][0] >= 8192' "$BATS_TEST_TMPDIR/svc.json")" = true ]
  # The sandbox was charged dd's buffer (v2 memory.current): ready means dd has it resident.
  [ "$(jq -r ".runs[0].samples[$s].memcg.usage_bytes >= 8388608" "$f")" = true ] ||
    { jq -c ".runs[0].samples[] | [.memcg.usage_bytes, .memcg.peak_bytes]" "$f"; false; }
  # No region to walk: no pagemap key at the step, not an error in its place.
  [ "$(jq -r '.runs[0].steps[0] | has("pagemap")' "$f")" = false ]
}
