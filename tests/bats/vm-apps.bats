#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# A Debian server in a guest, fitted under memory.high: `pagelab vm fit`
# carries the scenario's programs of this host (redis-server and
# redis-benchmark, with their libraries: guest/vm-initramfs --carry) and
# the metrics tables into a 6.12 guest, whose cgroup v2 has the memory.high
# this v1 host lacks; the guest's own `pagelab fit` bisects it.  One boot,
# about 3 minutes under TCG (the probes below redis's footprint wait out
# the load's 8 s timeout, three repeats each).  The refusals before a boot
# take no time.

load helpers

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  APPS_SKIP=$(vm_skip_reason 6.12)
  export APPS_SKIP
}

setup() {
  [ -z "$APPS_SKIP" ] || skip "$APPS_SKIP"
}

fitdoc() { ls "$RESULTS"/vm-fit/*-guest-*.json; }

@test "vm fit: redis-server under memory.high in a 6.12 guest — throttled to a standstill below its footprint, never OOM-killed; the quota found with its bracket" {
  guest_run vm-fit --kernel 6.12 --mem 2G --timeout 900 \
    fit "$TOP/tests/scenarios/svc-redis-high.scn" --vary memory_high=4M..16M --resolution 2M \
    --set timeout=8000 --slo 'ops>=0.5*base' --slo 'p99<=10*base'
  echo "$output"
  assert_success
  assert_output --regexp "## guest-6\.12\.[0-9]+"
  assert_output --regexp "memory_high found: [0-9.]+ MiB \(bracket: [0-9.]+ MiB failed, [0-9.]+ MiB met; [0-9]+ probes x 3 repeats\)"
  f=$(fitdoc)
  [ "${lines[-1]}" = "$f" ]
  echo "# $(grep -m1 'memory_high found' <<<"$output"); the base's peak usage $(jq -r '[.fit.probes[0].runs[] as $i | .runs[$i].summary.peak_usage_bytes] | max' "$f") B" >&3
  jq -e '.host.cgroup.memory == "v2" and .vm.release != null and .fit.key == "memory_high"' "$f"
  [ "$(jq -r '.fit.answer.status' "$f")" = found ]
  q=$(jq -r '.fit.answer.quota_bytes' "$f")
  lo=$(jq -r '.fit.answer.bracket.failed_bytes' "$f")
  [ "$q" -gt "$lo" ] && [ $((q - lo)) -le $((2 << 20)) ]
  # Every run: the probe's memory.high, memory.max where the scenario put it,
  # redis-server the host's own binary, carried to its own path.
  [ "$(jq '[.fit.probes[] as $p | $p.runs[] as $i | .runs[$i]
            | select(.sandbox.memory_high_bytes != $p.quota_bytes or .sandbox.memory_max_bytes != 134217728)] | length' "$f")" = 0 ]
  [ "$(jq -r '[.runs[].workloads[0].path] | unique | join(",")' "$f")" = "$(command -v redis-server)" ]
  # Below the footprint memory.high throttles: the bench never finishes (its
  # timeout), memory.events high counts, PSI some near 100 %, and no run is
  # OOM-killed — memory.high never kills (mm/memcontrol.c).
  jq -e --argjson lo "$lo" '[.fit.probes[] | select(.base == false and .quota_bytes <= $lo)]
        | length >= 1 and all(.completed_runs == 0 and .oom_runs == 0
                              and any(.why[]; test("killed at its timeout")) and any(.why[]; test("^psi<=10")))' "$f"
  jq -e --argjson lo "$lo" '[.fit.probes[] as $p | select($p.base == false and $p.quota_bytes <= $lo) | $p.runs[] as $i
        | .runs[$i] | [.samples[].memory_events.high // 0] | max] | all(. > 0)' "$f"
  # At and above the quota found every repeat completed.
  jq -e --argjson q "$q" '[.fit.probes[] | select(.quota_bytes >= $q)] | all(.completed_runs == 3 and .oom_runs == 0)' "$f"
}

@test "vm fit: refused before anything boots — no --vary, --out, an arm64 guest for this host's programs, a program this host lacks" {
  run "$PAGELAB" vm --kernel 6.12 fit "$TOP/tests/scenarios/svc-redis-high.scn"
  [ "$status" -eq 2 ]
  assert_output --partial "--vary KEY=LO..HI is required"
  run "$PAGELAB" vm --kernel 6.12 fit "$TOP/tests/scenarios/svc-redis-high.scn" --vary memory_high=4M..16M --out "$BATS_TEST_TMPDIR/x.json"
  [ "$status" -eq 2 ]
  assert_output --partial "each target's document goes to --out-dir"
  run "$PAGELAB" vm --kernel 6.12 --arch arm64 fit "$TOP/tests/scenarios/svc-redis-high.scn" --vary memory_high=4M..16M
  [ "$status" -eq 3 ]
  assert_output --partial "an arm64 guest cannot run"
  sed 's/^command       = redis-server /command       = pagelab-no-such-server /' "$TOP/tests/scenarios/svc-redis-high.scn" \
    >"$BATS_TEST_TMPDIR/missing.scn"
  run "$PAGELAB" vm --kernel 6.12 run "$BATS_TEST_TMPDIR/missing.scn"
  [ "$status" -eq 3 ]
  assert_output --partial "program pagelab-no-such-server: not found in PATH="
  refute_output --partial "booting"
  [ ! -e "$BATS_TEST_TMPDIR/x.json" ]
}
