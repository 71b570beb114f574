#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What root executes or reads from its environment and its current directory
# (base/trust.h, harness/plan/catalog.h, harness/cmd/cli.md "Which file a
# scenario argument names"):
#   - a scenario NAME resolves only in the catalogue: a planted
#     ./scenarios/NAME.scn or a cwd file spelled like the name is never read;
#     a file outside the catalogue is run only when named as a path;
#   - PAGELAB_SCENARIOS, PAGELAB_DATA_DIR, PAGELAB_WORKLOADS and the knob
#     journal's directory are refused (exit 2, one line naming them) when
#     they or a directory on the way belong to another user or can be
#     written by group or others (and so is each workload program root
#     would execute from PAGELAB_WORKLOADS); a sticky root directory (/tmp) is passed
#     through, never trusted as the directory itself;
#   - PAGELAB_GUEST=1 on a host (no pagelab.guest=1 on the kernel command
#     line, pid 1 not the guest's init) switches off no gate.
# Hostile trees are made in private temporary directories only.

load helpers

setup() {
  before_cg=$(pagelab_cgroups)
  before_host=$(host_state)
  P=$(mktemp -d "$BATS_TEST_TMPDIR/p.XXXXXX")
}

teardown() {
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "a cgroup was created: $(cgroups_new "${before_cg:-}")"; return 1; }
  [ "$(host_state)" = "$before_host" ] || { echo "the host changed"; return 1; }
}

# plant DIR: DIR/scenarios/madv-free/probe.scn, a copy whose title says PLANTED
plant() {
  mkdir -p "$1/scenarios/madv-free"
  sed 's/^title .*/title = PLANTED in the current directory/' "$TOP/scenarios/madv-free/probe.scn" \
    >"$1/scenarios/madv-free/probe.scn"
}

@test "cd DIR && pagelab show madv-free/probe: the catalogue's file, not DIR/scenarios/madv-free/probe.scn" {
  plant "$P"
  title=$(sed -n 's/^title *= *//p' "$TOP/scenarios/madv-free/probe.scn")
  cd "$P"
  run --separate-stderr env -u PAGELAB_SCENARIOS "$PAGELAB" show madv-free/probe
  assert_success
  [[ "$output" == *"$title"* ]] || { echo "$output"; return 1; }
  [[ "$output" != *PLANTED* ]]
  file=$(sed -n 's/^file: //p' <<<"$output")
  [[ "$file" == /*/scenarios/madv-free/probe.scn ]] || { echo "file: '$file'"; return 1; }
  [[ "$file" != "$P"/* ]]
  [ -f "$file" ]
  # Named as a path, the planted file is the one read (and said so).
  run --separate-stderr env -u PAGELAB_SCENARIOS "$PAGELAB" show ./scenarios/madv-free/probe.scn
  assert_success
  [[ "$output" == *PLANTED* ]]
  [[ "$output" == *"file: $P/scenarios/madv-free/probe.scn"* ]]
}

@test "cd DIR && pagelab run madv-free/probe: runs the catalogue's scenario and says which file it read" {
  require_memcg
  plant "$P"
  # A planted file that would not even parse: reading it would be exit 2.
  echo 'this is not a scenario' >"$P/scenarios/madv-free/probe.scn"
  cd "$P"
  run --separate-stderr env -u PAGELAB_SCENARIOS "$PAGELAB" run madv-free/probe --repeat 1 --no-report \
    --set region=16M --set memory_max=64M --out "$RESULTS/trust-cwd.json"
  assert_success
  file=$(jq -r .scenario.file "$RESULTS/trust-cwd.json")
  [[ "$file" != "$P"/* && "$file" == */scenarios/madv-free/probe.scn ]] || { echo "file: $file"; return 1; }
  [[ "$stderr" == *"pagelab: madv-free/probe: scenario file $(realpath "$file")"* ]] || { echo "$stderr"; return 1; }
}

@test "a bare name matching a file of the current directory is not read; ./FILE is" {
  sed 's/^title .*/title = PLANTED bare name/' "$TOP/scenarios/madv-free/probe.scn" >"$P/probe"
  cp "$P/probe" "$P/x.scn"
  cd "$P"
  for arg in probe x.scn; do
    run --separate-stderr "$PAGELAB" show "$arg"
    [ "$status" = 2 ] || { echo "$arg: exit $status: $output"; return 1; }
    [[ "$output" != *PLANTED* ]]
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "$arg: $stderr"; return 1; }
    run --separate-stderr "$PAGELAB" run "$arg" --out "$RESULTS/never.json"
    [ "$status" = 2 ] || { echo "run $arg: exit $status: $stderr"; return 1; }
    [ ! -e "$RESULTS/never.json" ]
  done
  run --separate-stderr "$PAGELAB" show probe
  [[ "$stderr" == *"unknown scenario 'probe'"* ]]
  run --separate-stderr "$PAGELAB" show x.scn
  [[ "$stderr" == *"'x.scn' is neither a scenario name"*"named ./x.scn"* ]] || { echo "$stderr"; return 1; }
  run --separate-stderr "$PAGELAB" show ./x.scn
  assert_success
  [[ "$output" == *"PLANTED bare name"* && "$output" == *"file: $P/x.scn"* ]]
}

# A directory DIR made hostile by KIND, inside the private $P; prints its path.
hostile() {
  local d
  case $1 in
  group-writable) d="$P/g"; mkdir -m 0775 "$d" ;;
  other-writable) d="$P/w"; mkdir -m 0757 "$d" ;;
  other-owned) d="$P/o"; mkdir -m 0755 "$d"; chown 65534 "$d" ;;
  sticky-itself) d="$P/s"; mkdir -m 1777 "$d" ;;
  parent-group-writable) mkdir -m 0775 "$P/pg"; d="$P/pg/in"; mkdir -m 0755 "$d" ;;
  parent-other-owned) mkdir -m 0755 "$P/po"; chown 65534 "$P/po"; d="$P/po/in"; mkdir -m 0755 "$d" ;;
  sticky-other-owned) mkdir -m 1777 "$P/so"; chown 65534 "$P/so"; d="$P/so/in"; mkdir -m 0755 "$d" ;;
  link-other-owned) mkdir -m 0755 "$P/real"; ln -s "$P/real" "$P/l"; chown -h 65534 "$P/l"; d="$P/l" ;;
  esac
  chmod "$(stat -c %a "$d")" "$d"   # the mode past the umask
  echo "$d"
}

KINDS=("group-writable:can be written by its group (mode 0775)"
       "other-writable:can be written by anyone (mode 0757)"
       "other-owned:belongs to uid 65534, not to root"
       "sticky-itself:can be written by anyone (mode 1777)"
       "parent-group-writable:/pg on its path can be written by its group"
       "parent-other-owned:/po on its path belongs to uid 65534"
       "sticky-other-owned:/so on its path belongs to uid 65534"
       "link-other-owned:the symbolic link")

@test "PAGELAB_SCENARIOS, PAGELAB_DATA_DIR, PAGELAB_WORKLOADS: another user's or a writable directory is refused, exit 2" {
  [ "$(id -u)" = 0 ] || skip "needs root (chown)"
  n=0
  for var in PAGELAB_SCENARIOS PAGELAB_DATA_DIR PAGELAB_WORKLOADS; do
    for k in "${KINDS[@]}"; do
      kind=${k%%:*} want=${k#*:}
      rm -rf "$P" && P=$(mktemp -d "$BATS_TEST_TMPDIR/p.XXXXXX")
      d=$(hostile "$kind")
      for cmd in "run madv-free/probe --out $RESULTS/never.json" "show madv-free/probe" "list"; do
        read -ra argv <<<"$cmd"
        run --separate-stderr env "$var=$d" "$PAGELAB" "${argv[@]}"
        [ "$status" = 2 ] || { echo "$var $kind $cmd: exit $status: $stderr"; return 1; }
        [ -z "$output" ] || { echo "$var $kind $cmd: stdout: $output"; return 1; }
        [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "$var $kind $cmd: $stderr"; return 1; }
        [[ "$stderr" == "pagelab: $var directory $d"*"$want"*"pagelab will not trust it"* ]] ||
          { echo "$var $kind $cmd: wanted '$want', got: $stderr"; return 1; }
      done
      [ ! -e "$RESULTS/never.json" ]
      n=$((n + 1))
    done
  done
  [ "$n" -eq 24 ]
}

@test "a trusted catalogue below a sticky root directory (like /tmp) is read, its files checked too" {
  mkdir -m 1777 "$P/sticky"
  chmod 1777 "$P/sticky"
  mkdir -m 0755 "$P/sticky/cat"
  cp -r "$TOP/scenarios/madv-free" "$P/sticky/cat/"
  run --separate-stderr env PAGELAB_SCENARIOS="$P/sticky/cat" "$PAGELAB" show madv-free/probe
  assert_success
  [[ "$output" == *"file: $P/sticky/cat/madv-free/probe.scn"* ]]
  # A scenario file in it that others could write is not read.
  chmod 0666 "$P/sticky/cat/madv-free/probe.scn"
  run --separate-stderr env PAGELAB_SCENARIOS="$P/sticky/cat" "$PAGELAB" show madv-free/probe
  [ "$status" = 2 ]
  [[ "$stderr" == *"scenario file $P/sticky/cat/madv-free/probe.scn can be written by anyone (mode 0666)"* ]] ||
    { echo "$stderr"; return 1; }
  # The tree the tests use passes (helpers.bash sets PAGELAB_SCENARIOS=$TOP/scenarios).
  run --separate-stderr "$PAGELAB" list
  assert_success
  [[ "$output" == *madv-free/probe* ]]
}

@test "the knob journal's directory: a writable or foreign directory on its path is refused, exit 2" {
  [ "$(id -u)" = 0 ] || skip "needs root (chown)"
  wsf=$(cat /proc/sys/vm/watermark_scale_factor)
  for k in "parent-group-writable:/pg on its path can be written by its group" \
           "parent-other-owned:/po on its path belongs to uid 65534" \
           "sticky-other-owned:/so on its path belongs to uid 65534"; do
    kind=${k%%:*} want=${k#*:}
    rm -rf "$P" && P=$(mktemp -d "$BATS_TEST_TMPDIR/p.XXXXXX")
    d=$(hostile "$kind")
    chmod 0700 "$d"
    # A journal that would be harmless to restore: the knob's own value.
    printf 'pagelab-journal 1 pid=4242\nknob vm.watermark_scale_factor %s\n' "$wsf" >"$d/journal"
    chmod 0600 "$d/journal"
    PAGELAB_JOURNAL="$d/journal" run --separate-stderr "$PAGELAB" restore
    [ "$status" = 2 ] || { echo "$kind: restore: exit $status: $output $stderr"; return 1; }
    [[ "$stderr" == "pagelab restore: the knob journal's directory $d: "*"$want"*"pagelab will not trust it"* ]] ||
      { echo "$kind: wanted '$want', got: $stderr"; return 1; }
    [ -e "$d/journal" ]
    PAGELAB_JOURNAL="$d/journal" run --separate-stderr "$PAGELAB" run "$TOP/tests/scenarios/knobs.scn" --no-report \
      --out "$RESULTS/never.json"
    [ "$status" = 2 ] || { echo "$kind: run: exit $status: $stderr"; return 1; }
    [[ "$stderr" == *"$want"* ]]
    [ ! -e "$RESULTS/never.json" ]
  done
}

# A scenario that says it is destructive but is harmless (16 MiB in a 64 MiB
# sandbox), and one whose knob is above the host's gate: both must stop at
# the gate.  PAGELAB_WORKLOADS names an empty directory, so a harness that let
# them through would stop at "workload program ... is missing" (exit 1),
# before anything on the host changed.
gated() {
  cat >"$P/$1.scn" <<EOF
[scenario]
name = test/gate-$1
requires = root memcg
destructive = $2

[sandbox]
memory_max = 64M
${3:+[knobs]}
${3}

[workload region]
program = region
size = 16M
steps = fill:0xA5
EOF
}

@test "PAGELAB_GUEST=1 on the host: no evidence of a pagelab guest, so the destructive and knob gates stay" {
  require_memcg
  grep -qw 'pagelab.guest=1' /proc/cmdline && skip "this is a pagelab guest (pagelab.guest=1 on the kernel command line)"
  mkdir -m 0755 "$P/noprograms"
  export PAGELAB_JOURNAL="$P/journal/journal"
  gated destructive yes
  gated knob no "vm.min_free_kbytes = 300000"
  run --separate-stderr env PAGELAB_GUEST=1 PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$P/destructive.scn" \
    --no-report --out "$RESULTS/never.json"
  [ "$status" = 3 ] || { echo "destructive: exit $status: $stderr"; return 1; }
  [[ "$stderr" == *"test/gate-destructive is destructive"* ]] || { echo "$stderr"; return 1; }
  run --separate-stderr env PAGELAB_GUEST=1 PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$P/knob.scn" \
    --no-report --out "$RESULTS/never.json"
  [ "$status" = 3 ] || { echo "knob: exit $status: $stderr"; return 1; }
  [[ "$stderr" == *"vm.min_free_kbytes = 300000 could starve this machine"* ]] || { echo "$stderr"; return 1; }
  [ ! -e "$RESULTS/never.json" ]
  run env PAGELAB_GUEST=1 "$PAGELAB" check --json
  jq -e '.in_vm_guest == false' <<<"$output"
}

@test "a workload program under PAGELAB_WORKLOADS that others could write, or another user's, is not executed: exit 2" {
  require_memcg
  mkdir -m 0755 "$P/wl"
  cp "$BUILD/workloads/region" "$P/wl/region"
  for kind in group other-owned; do
    case $kind in
    group) chmod 0775 "$P/wl/region"; want="can be written by its group (mode 0775)" ;;
    other-owned) chmod 0755 "$P/wl/region"; chown 65534 "$P/wl/region"; want="belongs to uid 65534, not to root" ;;
    esac
    run --separate-stderr env PAGELAB_WORKLOADS="$P/wl" "$PAGELAB" run madv-free/probe --repeat 1 --no-report \
      --set region=16M --set memory_max=64M --out "$RESULTS/never.json"
    [ "$status" = 2 ] || { echo "$kind: exit $status: $stderr"; return 1; }
    [[ "$stderr" == "pagelab: workload program $P/wl/region $want"*"pagelab will not trust it"* ]] ||
      { echo "$kind: $stderr"; return 1; }
    [ ! -e "$RESULTS/never.json" ]
  done
  # Root's own copy, 0755, runs.
  chown 0 "$P/wl/region"
  run --separate-stderr env PAGELAB_WORKLOADS="$P/wl" "$PAGELAB" run madv-free/probe --repeat 1 --no-report \
    --set region=16M --set memory_max=64M --out "$RESULTS/trust-wl.json"
  assert_success
}
