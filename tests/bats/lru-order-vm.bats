#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# madv-free/lru-order in a 6.1 guest (classic LRU) and a 6.12 guest (MGLRU): the
# invariants and the order that lru-order.bats asserts on this host (its header
# has them and the figures per kernel), and cgroup v2's own sources.

load helpers
load lru-checks

@test "lru-order in 6.1 (classic LRU) and 6.12 (MGLRU) guests: the same invariants, the same order; the v2 sources" {
  skip_reason=$(vm_skip_reason 6.1 6.12)
  [ -z "$skip_reason" ] || skip "$skip_reason"
  guest_run vm-lru-order --timeout 300 --kernel 6.1 --kernel 6.12 run madv-free/lru-order --no-report
  assert_success
  [ "$(ls "$RESULTS"/vm-lru-order/*-guest-*.json | wc -l)" -eq 2 ]
  for f in "$RESULTS"/vm-lru-order/*-guest-*.json; do
    jq -e '.host.cgroup.memory == "v2" and (.host.lru_gen == "0x0000" or .host.lru_gen == "0x0007")' "$f"
    lru_checks "$f"
    lru_lowest_first "$f"
    # v2's own sources: the sandbox's PSI and memory.events, read at every tick
    jq -e '.runs[0].sources | map(select(.name == "memcg_pressure" or .name == "memory_events") | .available) == [true, true]' "$f"
    jq -e '.runs[0].samples[-1] | .memcg_pressure.some.total_us > 0 and .memory_events.max > 0 and .memory_events.oom_kill == 0' "$f"
  done
  jq -rs 'map(.host.lru_gen) | sort | join(" ")' "$RESULTS"/vm-lru-order/*-guest-*.json | grep -qx '0x0000 0x0007'
}
