#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# The instrument on cgroup v2, in QEMU guests of Debian's 6.1 and 6.12
# (`pagelab vm`, one boot per kernel, a reduced run of
# tests/scenarios/bench-hold.scn: 256 MiB filled with THP on and held, 50 ms
# ticks):
#   - every tick file of the machine and the v2 sandbox is kept open and
#     re-read (the audit's reads >= its samples, "read": "kept"), and
#     memory.events once a sample: memory_events types memcg's read of it;
#   - each zone's drift bound is its vm stats threshold x the guest's online
#     CPUs (the guests' own zoneinfo captures are unit-tested in
#     tests/unit/test_zoneinfo.c: tests/fixtures/v2-6.1, v2-6.12);
#   - memory.stat's lag behind memory.current is measured with v2's fields
#     (anon + file + kernel) and recorded, beside what is not staleness: the
#     charge stock and a fault's folio per CPU (the PMD size, THP on);
#   - TCG's cadence is what it is: the audit says what was achieved.

load helpers

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  INSTR_SKIP=$(vm_skip_reason 6.1 6.12)
  export INSTR_SKIP
  [ -n "$INSTR_SKIP" ] && return 0
  rm -rf "${RESULTS:?}/instr-vm"
  mkdir -p "$RESULTS/instr-vm"
  "$PAGELAB" vm --kernel 6.1 --kernel 6.12 --mem 1G --out-dir "$RESULTS/instr-vm" \
    run "$BATS_TEST_DIRNAME/../scenarios/bench-hold.scn" --interval 50 --set region=256M --set thp=on \
    --set memory_max=512M --set hold_ms=1500 >"$RESULTS/instr-vm/out" 2>"$RESULTS/instr-vm/err" || true
}

setup() {
  [ -z "$INSTR_SKIP" ] || skip "$INSTR_SKIP"
}

# guest KERNEL: its result document.
guest() {
  ls "$RESULTS"/instr-vm/*-guest-"$1".*.json 2>/dev/null | grep -v '\.jsonl$' | head -1
}

@test "vm 6.1 and 6.12: tick files kept open on cgroup v2, drift = threshold x the guest's CPUs, memory.stat's lag recorded" {
  for k in 6.1 6.12; do
    f=$(guest "$k")
    [ -n "$f" ] || { echo "no $k result: $(tail -3 "$RESULTS/instr-vm/err")"; false; }
    jq -e '.host.cgroup.memory == "v2" and .runs[0].exit.outcome == "completed"' "$f"
    # The v2 sandbox's files too (memory.current, .stat, .events, .peak, .pressure).
    jq -e '.runs[0] as $r | [$r.sources[] | select(.available and .cadence == "tick")] as $t
           | ($t | length) >= 7 and all($t[]; .read == "kept" or (.name == "memory_events" and .read == "shared"))
           and ([$t[].name] | index("memcg_pressure") != null)
           and all($r.summary.audit.sources[] | select(.name | IN($t[].name));
                   all(.files[]; .read == "kept" and .reads >= 10))' "$f"
    # memory.events is read once a sample: memory_events types memcg's read
    # of it (no descriptor of its own), and says so; the two agree.
    jq -e '.runs[0] as $r | ($r.sources[] | select(.name == "memory_events") | .read == "shared" and .shares == "memcg")
           and ($r.summary.audit.sources[] | select(.name == "memory_events") | .files == [])
           and ([$r.summary.audit.sources[] | select(.name == "memcg") | .files[]
                 | select(.path | endswith("/memory.events")) | .reads][0] >= 10)
           and all($r.samples[] | select(.memory_events != null); .memory_events == .memcg.events)' "$f"
    jq -e '.vm.cpus as $c | all(.runs[0].samples[] | select(.cause != "burst") | .zones[];
           .threshold_cpus == $c and .stat_threshold >= 1 and .drift == .stat_threshold * .threshold_cpus)' "$f"
    jq -e '.vm.cpus as $c | .runs[0].summary.audit | .memory_stat_lag.fields == "anon+file+kernel"
           and .memory_stat_lag.samples >= 10 and .memory_stat_lag.largest_bytes >= 0
           and .memory_stat_lag.fault_folio_bytes >= 4096
           and .memory_stat_lag.in_flight_bytes == .memory_stat_lag.fault_folio_bytes * $c
           and .interval.asked_ms == 50 and .interval.intervals >= 5 and .harness.cpu_us > 0
           and (.interval.wakes as $w | .harness | .steady.wakes >= 5 and .steady.wakes < $w
                and .cpu_us - (.start.cpu_us + .steady.cpu_us + .end.cpu_us) >= 0
                and .cpu_us - (.start.cpu_us + .steady.cpu_us + .end.cpu_us) <= 3)' "$f"
    echo "# $k: $(jq -r '.runs[0].summary.audit | "harness steady \(.harness.steady.cpu_us_per_wake) µs a wakeup, start \(.harness.start.cpu_us) µs; tick p50 \(.interval.p50_us / 1000) ms (50 asked), reads p50 \(.reads.tick.read_ns.p50 / 1000) µs, memory.stat lag \(.memory_stat_lag.largest_bytes) B (stock \(.memory_stat_lag.stock_bytes), in flight \(.memory_stat_lag.in_flight_bytes)) / \(.memory_stat_lag.largest_ms) ms, split snapshots \(.split_snapshots)"' "$f")" >&3
  done
}
