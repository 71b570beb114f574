#!/usr/bin/env bats
# Bad input: every broken scenario file (tests/bad-input/*.scn, each naming the
# message and position it must get) and every bad argument gets ONE line on
# stderr naming the file, line:column where there is one, and what is wrong;
# exit 2; no cgroup created; nothing on the host changed.

load helpers

setup() {
  before_cg=$(pagelab_cgroups)
  before_host=$(host_state)
}

teardown() {
  [ "$(pagelab_cgroups)" = "$before_cg" ] || { echo "a cgroup was created: $(pagelab_cgroups)"; return 1; }
  [ "$(host_state)" = "$before_host" ] || { echo "the host changed"; return 1; }
}

# refused ARGS...: exit 2 and exactly one line of output (stderr; stdout empty)
refused() {
  run --separate-stderr "$PAGELAB" run "$@" --out "$RESULTS/never.json"
  assert_equal "$status" 2
  assert_equal "$output" ""
  [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "stderr: $stderr"; return 1; }
  [ ! -e "$RESULTS/never.json" ]
}

@test "each broken scenario file: exit 2, one line with FILE:LINE:COL and what is wrong" {
  n=0
  for f in "$TOP"/tests/bad-input/*.scn; do
    want=$(sed -n 's/^# expect: //p' "$f")
    at=$(sed -n 's/^# at: //p' "$f")
    refused "$f"
    [[ "$stderr" == "pagelab: $f:$at: "* ]] || { echo "$f: wanted position $at, got: $stderr"; return 1; }
    [[ "$stderr" == *"$want"* ]] || { echo "$f: wanted '$want', got: $stderr"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -ge 12 ]
}

@test "--set with a size like 12XB names the parameter and the use site" {
  refused madv-free/pressure --set pressure=12XB
  [[ "$stderr" == *"pressure.scn:"*"--set pressure=12XB"* ]]
  [[ "$stderr" == *"12XB"* ]]
}

@test "--set of a negative or zero size is refused" {
  refused madv-free/pressure --set region=-512M
  [[ "$stderr" == *"'-512M'"* ]]
  refused madv-free/pressure --set region=0
  [[ "$stderr" == *"greater than zero"* ]]
}

@test "--set of an unknown parameter lists the known ones" {
  refused madv-free/pressure --set regoin=300M
  [[ "$stderr" == *"no parameter 'regoin'"*"region"* ]]
}

@test "a limit above MemTotal is refused" {
  refused madv-free/pressure --set memory_max=64T
  [[ "$stderr" == *"MemTotal"* ]]
}

@test "an unknown scenario name" {
  refused madv-free/no-such-thing
  [[ "$stderr" == *"unknown scenario 'madv-free/no-such-thing'"* ]]
}

@test "an unreadable scenario file" {
  d="$BATS_TEST_TMPDIR/dir.scn"
  mkdir -p "$d"
  refused "$d"
  [[ "$stderr" == *"$d"* ]]
  refused "$BATS_TEST_TMPDIR/missing/nothing.scn"
  [[ "$stderr" == *"nothing.scn"* ]]
}

@test "bad option values" {
  refused madv-free/probe --repeat 0
  refused madv-free/probe --interval 5
  refused madv-free/probe --bogus
  refused
}

# Input files are data from outside: a device, FIFO, socket or directory is
# refused before it is read (a read of /dev/zero never ends; an open of a FIFO
# blocks), and so is a file over its kind's cap (harness/fileio.h: 1 MiB for
# a scenario or an advice file, 256 MiB for a result document).  Each case is a
# row of tests/bad-input/input-files.tsv, made in a private directory here.
# input_file KIND: make one of the non-regular or huge files, print its path.
input_file() {
  local d="$BATS_TEST_TMPDIR/in" f
  mkdir -p "$d"
  case $1 in
  chardev) f=$d/zero.scn; mknod "$f" c 1 5 ;;          # a /dev/zero of our own
  symlink-to-device) f=$d/link.scn; ln -sf /dev/urandom "$f" ;;
  fifo) f=$d/fifo.scn; mkfifo "$f" ;;
  socket) f=$d/sock.scn; python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$f" ;;
  directory) f=$d/dir.scn; mkdir "$f" ;;
  huge-scenario) f=$d/huge.scn; truncate -s 2M "$f" ;;
  huge-result) f=$d/huge.json; truncate -s 300M "$f" ;;
  esac
  echo "$f"
}

@test "non-regular and huge input files: one line naming the file and why, exit 2, at once" {
  n=0
  while IFS=$'\t' read -r cmd kind want; do
    case $cmd in ''|'#'*) continue ;; esac
    f=$(input_file "$kind")
    case $cmd in
    run) args=(run "$f" --out "$RESULTS/never.json") ;;
    show) args=(show "$f") ;;
    report) args=(report "$f") ;;
    advice) args=(audit --advice "$f") ;;
    esac
    run --separate-stderr timeout 10 "$PAGELAB" "${args[@]}"
    [ "$status" = 2 ] || { echo "$cmd $kind: exit $status (124 = it blocked or read forever): $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "$cmd $kind: stderr: $stderr"; return 1; }
    [[ "$stderr" == *"$f"*"$want"* ]] || { echo "$cmd $kind: wanted '$f … $want', got: $stderr"; return 1; }
    [ ! -e "$RESULTS/never.json" ]
    rm -rf "$BATS_TEST_TMPDIR/in"
    n=$((n + 1))
  done < "$TOP/tests/bad-input/input-files.tsv"
  [ "$n" -ge 12 ]
}
