#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# A Debian server in a guest, fitted under memory.high: `pagelab vm fit`
# carries the scenario's programs of this host (redis-server and
# redis-benchmark, with their libraries: guest/vm-initramfs --carry) and
# the metrics tables into a 6.12 guest, whose cgroup v2 has the memory.high
# this v1 host lacks; the guest's own `pagelab fit` bisects it.  One boot,
# about 2 minutes under TCG (the probes below redis's footprint, 8.6 MiB at
# its peak, wait out the load's 5 s timeout, three repeats each; a 3 MiB bracket:
# 12, 6 and one bisection, two probes fewer than at 2 MiB).  The refusals before a boot
# take no time.  Then apps/jvm on v2: its [vm] carry brings the JDK (260 MB:
# the initramfs is built once, about 40 s, then cached), one boot, about
# 30 s.

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
    fit "$TOP/tests/scenarios/svc-redis-high.scn" --vary memory_high=6M..12M --resolution 3M \
    --set timeout=5000 --slo 'ops>=0.5*base' --slo 'p99<=10*base'
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
  [ "$q" -gt "$lo" ] && [ $((q - lo)) -le $((3 << 20)) ]
  # Every run: the probe's memory.high, memory.max where the scenario put it,
  # redis-server the host's own binary, carried to its own path.
  [ "$(jq '[.fit.probes[] as $p | $p.runs[] as $i | .runs[$i]
            | select(.sandbox.memory_high_bytes != $p.quota_bytes or .sandbox.memory_max_bytes != 134217728)] | length' "$f")" = 0 ]
  [ "$(jq -r '[.runs[].workloads[0].path] | unique | join(",")' "$f")" = "$(command -v redis-server)" ]
  # Below the footprint memory.high throttles: the bench never finishes (its
  # timeout), memory.events high counts, PSI some near 100 %, and no run is
  # OOM-killed — memory.high never kills (mm/memcontrol.c).
  # Every probe at or below the bracket's failed end failed with no OOM kill;
  # the range's bottom (6 MiB, well below the footprint) stalled outright.
  jq -e --argjson lo "$lo" '[.fit.probes[] | select(.base == false and .quota_bytes <= $lo)]
        | length >= 1 and all(.meets == false and .oom_runs == 0)' "$f"
  jq -e '[.fit.probes[] | select(.base == false and .quota_bytes == 6291456)]
        | length == 1 and all(.completed_runs == 0 and .oom_runs == 0
                              and any(.why[]; test("killed at its timeout")) and any(.why[]; test("^psi<=10")))' "$f"
  jq -e '[.fit.probes[] as $p | select($p.base == false and $p.quota_bytes == 6291456) | $p.runs[] as $i
        | .runs[$i] | [.samples[].memory_events.high // 0] | max] | length == 3 and all(. > 0)' "$f"
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
  # [vm] carry: a path with .. is bad input; so is a tree with a file not
  # every user may read, or a FIFO: refused before anything is built or
  # booted (exit 2, named), never put into a cached image.
  sed 's|^carry = .*|carry = /usr/../etc|' "$TOP/scenarios/apps/jvm.scn" >"$BATS_TEST_TMPDIR/dots.scn"
  run "$PAGELAB" vm --kernel 6.12 run "$BATS_TEST_TMPDIR/dots.scn"
  [ "$status" -eq 2 ]
  assert_output --partial "[vm] carry: '/usr/../etc': expected an absolute path"
  mkdir -p "$BATS_TEST_TMPDIR/tree"
  chmod 755 "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/tree"
  echo secret >"$BATS_TEST_TMPDIR/tree/key"
  chmod 600 "$BATS_TEST_TMPDIR/tree/key"
  sed "s|^carry = .*|carry = $BATS_TEST_TMPDIR/tree|" "$TOP/scenarios/apps/jvm.scn" >"$BATS_TEST_TMPDIR/secret.scn"
  run "$PAGELAB" vm --kernel 6.12 --mem 1G run "$BATS_TEST_TMPDIR/secret.scn"
  [ "$status" -eq 2 ]
  assert_output --partial "$BATS_TEST_TMPDIR/tree/key is not root's, is writable by group or others, or is not readable by all: not carried"
  [ "$(grep -c . <<<"$output")" -eq 1 ]
  refute_output --partial "booting"
  chmod 644 "$BATS_TEST_TMPDIR/tree/key"
  mkfifo "$BATS_TEST_TMPDIR/tree/fifo"
  run "$PAGELAB" vm --kernel 6.12 --mem 1G run "$BATS_TEST_TMPDIR/secret.scn"
  [ "$status" -eq 2 ]
  assert_output --partial "$BATS_TEST_TMPDIR/tree/fifo is not a regular file, a directory or a link: not carried"
  rm -f "$BATS_TEST_TMPDIR/tree/fifo"
}

@test "vm run apps/jvm in a 6.12 guest: the JDK carried in ([vm] carry); on cgroup v2 the JVM sees memory.max as its machine, 126 MiB of heap at 256M as on v1, Serial, survives" {
  # In TCG the JVM compiles Hold.java and is held after 46 s (2026-12-06, a
  # suite run), past 60 s in another with the host lane busy beside it: it
  # gets four minutes here, the scenario's 60 s stay the host's.
  guest_run vm-jvm --kernel 6.12 --mem 2G --timeout 900 run apps/jvm --set memory_max=256M --set ready_ms=240000 --no-report
  echo "$output"
  assert_success
  f=$(ls "$RESULTS"/vm-jvm/*-guest-*.json | grep -v '\.jsonl$')
  jq -e '.host.cgroup.memory == "v2" and .runs[0].workloads[0].fate == "completed" and .runs[0].exit.oom_kill_count == 0' "$f"
  m() { jq -r --arg k "$1" '[.runs[0].steps[] | select(.metrics) | .metrics[$k].value][0]' "$f"; }
  # UseContainerSupport reads v2's memory.max as the machine's memory; at
  # 256 MiB HotSpot keeps its default MaxHeapSize (126 MiB: 96M scaled for
  # 64-bit words), as on this host's v1 (docs/own-workload.md).
  [ "$(m os_total_memory_bytes)" = 268435456 ]
  [ "$(m max_heap_bytes)" = 132120576 ]
  [ "$(m serial_gc)" = 1 ]
  [ "$(m live_mib)" = 24 ]
  echo "# v2 (6.12): heap used/committed after the GC $(m heap_used_after_gc_bytes)/$(m heap_committed_bytes) B, memory.current $(jq -r '.runs[0].steps[-1].memcg.usage_bytes' "$f") B" >&3
}
