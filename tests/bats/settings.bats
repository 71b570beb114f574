#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Sandbox settings as one table (harness/sandbox/settings.c): what this host's
# cgroup version cannot apply is refused with exit 3 and the reason before
# any cgroup is made; what it can is written, read back and recorded in
# runs[].sandbox.  The v2 settings run in a 6.12 guest (tests/bats/memory-high.bats).

load helpers

setup() {
  [ "$(id -u)" = 0 ] || skip "needs root"
  mem=$("$PAGELAB" check --json | jq -r .cgroup.memory)
  tmp=$(mktemp -d)
  before_cg=$(pagelab_cgroups)
}

teardown() {
  [ -z "${tmp:-}" ] || rm -rf "$tmp"
  if [ -n "${selfcg:-}" ] && [ -d "$selfcg" ]; then rmdir "$selfcg" || echo "cannot remove $selfcg"; fi
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "a cgroup was left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

# scn FILE KEY=VALUE...: a one-workload scenario with these [sandbox] lines.
scn() {
  local f=$1
  shift
  {
    printf '[scenario]\nname = test/setting\nrequires = root memcg\nrepeat = 1\n[sandbox]\nmemory_max = 128M\n'
    printf '%s\n' "$@"
    printf '[workload region]\nprogram = region\nsize = 16M\nthp = off\nsteps = fill:0xA5\n'
  } >"$f"
}

@test "settings: what cgroup v1 cannot apply is exit 3 with the reason, before any cgroup is made" {
  [ "$mem" = v1 ] || skip "this host's memory controller is $mem"
  for kv in "memory_high = 900M:memory.high" "memory_low = 64M:memory.low" "memory_min = 64M:memory.min" \
            "zswap_max = 0:memory.zswap.max" "oom_group = yes:memory.oom.group"; do
    scn "$tmp/s.scn" "${kv%%:*}"
    run --separate-stderr "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/never.json"
    assert_equal "$status" 3
    key=${kv%% *}
    [[ "$stderr" == *"[sandbox] $key is cgroup v2's ${kv##*:}"*"memory controller is v1"* ]] || { echo "$kv: $stderr"; return 1; }
    [ ! -e "$RESULTS/never.json" ]
  done
  # The kernel's own default asks nothing of the host: memory_low = 0, oom_group = no.
  scn "$tmp/s.scn" "memory_low = 0" "oom_group = no"
  run "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/settings-noop.json"
  assert_success
}

@test "settings: swappiness (v1 only) is written, read back and recorded; out of range is exit 2" {
  [ "$mem" = v1 ] || skip "this host's memory controller is $mem"
  run "$PAGELAB" run "$TOP/tests/scenarios/settings-v1.scn" --no-report --out "$RESULTS/settings-v1.json"
  assert_success
  jq -e '.runs[0].sandbox | .swappiness == 10 and .version == "v1" and .memory_max_bytes == 134217728
         and .swap_max_bytes == 0 and .oom_group == false' "$RESULTS/settings-v1.json"
  jq -e '.runs[0].exit.outcome == "completed"' "$RESULTS/settings-v1.json"
  run --separate-stderr "$PAGELAB" run "$TOP/tests/scenarios/settings-v1.scn" --set swappiness=201 --no-report \
    --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"[sandbox] swappiness: expected 0..200, got '201'"* ]]
}

@test "settings: an unknown [sandbox] key lists the table's keys (exit 2)" {
  scn "$tmp/s.scn" "memory_hihg = 900M"
  run --separate-stderr "$PAGELAB" run "$tmp/s.scn" --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 2
  [[ "$stderr" == *"unknown key 'memory_hihg' in [sandbox] (known: memory_max, memory_high, memory_low, memory_min, swap_max, oom_group, zswap_max, swappiness)"* ]]
}

@test "settings: show prints the stated settings of each variant" {
  run "$PAGELAB" show "$TOP/tests/scenarios/settings-v1.scn"
  assert_success
  assert_output --partial "sandbox 134217728 bytes, memory_low 0, swap_max 0, swappiness 10"
}

@test "settings: on cgroup v2, swappiness (v1 only) is exit 3" {
  [ "$mem" = v2 ] || skip "this host's memory controller is $mem (the guest test runs it on v2)"
  run --separate-stderr "$PAGELAB" run "$TOP/tests/scenarios/settings-v1.scn" --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 3
  [[ "$stderr" == *"swappiness is cgroup v1's memory.swappiness"* ]]
}

@test "settings: --sandbox self compares a stated setting with pagelab's own cgroup (v1 swappiness)" {
  [ "$mem" = v1 ] || skip "this host's memory controller is $mem"
  selfcg="$(own_memcg)/self-settings-$$"
  mkdir "$selfcg"
  echo 134217728 >"$selfcg/memory.limit_in_bytes"
  [ ! -e "$selfcg/memory.memsw.limit_in_bytes" ] || echo 134217728 >"$selfcg/memory.memsw.limit_in_bytes"
  echo 60 >"$selfcg/memory.swappiness"
  run --separate-stderr bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$selfcg" "$PAGELAB" run \
    "$TOP/tests/scenarios/settings-v1.scn" --sandbox self --no-report --out "$RESULTS/never.json"
  assert_equal "$status" 3
  [[ "$stderr" == *"memory.swappiness of pagelab's own cgroup"*"is 60, the scenario's swappiness is 10"* ]]
  echo 10 >"$selfcg/memory.swappiness"
  run bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$selfcg" "$PAGELAB" run \
    "$TOP/tests/scenarios/settings-v1.scn" --sandbox self --no-report --out "$RESULTS/settings-self.json"
  assert_success
  jq -e '.runs[0].sandbox | .mode == "self" and .swappiness == 10' "$RESULTS/settings-self.json"
  for _ in 1 2 3 4 5; do rmdir "$selfcg" 2>/dev/null && break; sleep 0.2; done
  [ ! -d "$selfcg" ]
}
