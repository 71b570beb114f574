#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
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
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "a cgroup was created: $(cgroups_new "${before_cg:-}")"; return 1; }
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
# blocks), and so is a file over its kind's cap (base/fileio.h: 1 MiB for
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

# Output paths are checked before anything on the host changes (base/fileio.h:
# lab_check_output): --out and its .jsonl stream must be nothing yet or a regular
# file, in a directory that exists and can be written.  Each case is a row of
# tests/bad-input/output-paths.tsv; the hostile nodes are made in a private
# directory, never at a system path.  What was there must still be there after.
# output_path KIND DIR: make the case in DIR, print the --out to give.
output_path() {
  local d=$2
  case $1 in
  chardev) mknod "$d/full" c 1 7; echo "$d/full" ;;            # a /dev/full of our own
  fifo) mkfifo "$d/fifo.json"; echo "$d/fifo.json" ;;
  socket) python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/s.json"; echo "$d/s.json" ;;
  directory) mkdir "$d/dir.json"; echo "$d/dir.json" ;;
  symlink) echo precious > "$d/precious"; ln -s "$d/precious" "$d/link.json"; echo "$d/link.json" ;;
  dangling-symlink) ln -s "$d/elsewhere" "$d/dangle.json"; echo "$d/dangle.json" ;;
  stream-fifo) mkfifo "$d/r.jsonl"; echo "$d/r.json" ;;
  stream-symlink) echo precious > "$d/precious"; ln -s "$d/precious" "$d/r.jsonl"; echo "$d/r.json" ;;
  missing-dir) echo "$d/no/such/tree/r.json" ;;
  file-as-dir) touch "$d/plain"; echo "$d/plain/r.json" ;;
  read-only-dir) mkdir "$d/ro"; mount -t tmpfs -o ro,size=64k tmpfs "$d/ro"; echo "$d/ro/r.json" ;;
  esac
}

@test "hostile output paths: refused before the host is touched, exit 2, nothing replaced or made" {
  n=0
  while IFS=$'\t' read -r kind want; do
    case $kind in ''|'#'*) continue ;; esac
    d=$(mktemp -d "$BATS_TEST_TMPDIR/out.XXXXXX")
    out=$(output_path "$kind" "$d")
    before=$(cd "$d" && find . -printf '%p %y %s\n' | sort; cat "$d/precious" 2>/dev/null || true)
    run --separate-stderr timeout 20 "$PAGELAB" run madv-free/probe --no-report --out "$out"
    after=$(cd "$d" && find . -printf '%p %y %s\n' | sort; cat "$d/precious" 2>/dev/null || true)
    if mountpoint -q "$d/ro"; then umount "$d/ro"; fi
    [ "$status" = 2 ] || { echo "$kind: exit $status: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "$kind: stderr: $stderr"; return 1; }
    [[ "$stderr" == "pagelab: "*"$want"* ]] || { echo "$kind: wanted '$want', got: $stderr"; return 1; }
    [ "$before" = "$after" ] || { echo "$kind: the directory changed: $before -> $after"; return 1; }
    n=$((n + 1))
  done < "$TOP/tests/bad-input/output-paths.tsv"
  [ "$n" -ge 11 ]
}

@test "pagelab vm --out-dir: a directory that does not exist, or is not one, is refused (exit 2)" {
  command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64: VM mode refuses earlier"
  run --separate-stderr "$PAGELAB" vm --out-dir "$BATS_TEST_TMPDIR/none/here" run madv-free/probe
  assert_equal "$status" 2
  [[ "$stderr" == *"--out-dir $BATS_TEST_TMPDIR/none/here does not exist"* ]]
  [ ! -e "$BATS_TEST_TMPDIR/none" ]
  mkfifo "$BATS_TEST_TMPDIR/fifo"
  run --separate-stderr "$PAGELAB" vm --out-dir "$BATS_TEST_TMPDIR/fifo" run madv-free/probe
  assert_equal "$status" 2
  [[ "$stderr" == *"is a FIFO, not a directory"* ]]
}

@test "report --html / --plots: a FIFO, a file or a link where the directory should be: exit 2, one line, nothing made" {
  # harness/read/html.c: the directory is checked (lab_check_output_dir, made when
  # missing) before any result is read.  Before, a link to nothing was
  # mkdir'ed through at the plots (exit 1) and a FIFO was found only then.
  gzip -dc "$TOP/tests/golden/report/inputs/pressure.json.gz" >"$BATS_TEST_TMPDIR/r.json"
  for opt in --html --plots; do
    for kind in fifo file dangling tofile; do
      d=$(mktemp -d "$BATS_TEST_TMPDIR/page.XXXXXX")
      case $kind in
        fifo) mkfifo "$d/out"; want="is a FIFO, not a directory" ;;
        file) echo precious >"$d/out"; want="is a regular file, not a directory" ;;
        dangling) ln -s "$BATS_TEST_TMPDIR/outside-$kind/x" "$d/out"; want="does not exist" ;;
        tofile) echo precious >"$d/precious"; ln -s "$d/precious" "$d/out"; want="is a regular file, not a directory" ;;
      esac
      before=$(cd "$d" && find . -printf '%p %y %s\n' | sort; for f in "$d/precious" "$d/out"; do [ ! -f "$f" ] || cat "$f"; done)
      run --separate-stderr timeout 20 "$PAGELAB" report "$opt" "$d/out" "$BATS_TEST_TMPDIR/r.json"
      after=$(cd "$d" && find . -printf '%p %y %s\n' | sort; for f in "$d/precious" "$d/out"; do [ ! -f "$f" ] || cat "$f"; done)
      [ "$status" = 2 ] || { echo "$opt $kind: exit $status: $stderr"; return 1; }
      [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "$opt $kind: stderr: $stderr"; return 1; }
      [[ "$stderr" == "pagelab report: $opt $d/out"*"$want"* ]] || { echo "$opt $kind: wanted '$want', got: $stderr"; return 1; }
      [ "$before" = "$after" ] || { echo "$opt $kind: the directory changed: $before -> $after"; return 1; }
      [ ! -e "$BATS_TEST_TMPDIR/outside-$kind" ] || { echo "$opt $kind: made outside: $BATS_TEST_TMPDIR/outside-$kind"; return 1; }
      [ -z "$output" ]
    done
  done
}

# The knob journal is data, not instructions (harness/host/knobs.c: trusted,
# own_swapfile, restore_one).  Each hostile journal of tests/bad-input/journals.tsv
# is restored from a private directory: the record is reported NOT restored and
# left in place (exit 1), nothing written, the file "precious" beside it kept.
# No record here would change a knob: a valid one names the value the knob has.
@test "hostile journals: a record pagelab did not make is reported, left in place, exit 1, nothing written" {
  [ "$(id -u)" = 0 ] || skip "needs root"
  before=$(host_state)
  n=0
  while IFS=$'\t' read -r name want_status want; do
    case $name in ''|'#'*) continue ;; esac
    d=$(mktemp -d "$BATS_TEST_TMPDIR/j.XXXXXX")
    echo precious > "$d/precious"
    sed "s|@DIR@|$d|g" "$TOP/tests/bad-input/journals/$name.journal" > "$d/journal"
    chmod 600 "$d/journal"
    cp "$d/journal" "$d/journal.orig"
    PAGELAB_JOURNAL="$d/journal" run "$PAGELAB" restore
    [ "$status" = "$want_status" ] || { echo "$name: exit $status: $output"; return 1; }
    [[ "$output" == *"$want"* ]] || { echo "$name: wanted '$want', got: $output"; return 1; }
    cmp -s "$d/journal" "$d/journal.orig" || { echo "$name: the journal changed or went"; return 1; }
    [ "$(cat "$d/precious")" = precious ] || { echo "$name: precious removed"; return 1; }
    [ -e /etc/passwd ] && [ -c /dev/null ]
    n=$((n + 1))
  done < "$TOP/tests/bad-input/journals.tsv"
  [ "$n" -ge 15 ]
  [ "$(host_state)" = "$before" ]
}

@test "a good record beside a hostile one: the good one is checked back, the journal stays, exit 1" {
  [ "$(id -u)" = 0 ] || skip "needs root"
  d=$(mktemp -d "$BATS_TEST_TMPDIR/j.XXXXXX")
  wsf=$(cat /proc/sys/vm/watermark_scale_factor)
  printf 'pagelab-journal 1 pid=4242\nknob vm.watermark_scale_factor %s\nswapfile /etc/passwd\n' "$wsf" > "$d/journal"
  chmod 600 "$d/journal"
  PAGELAB_JOURNAL="$d/journal" run "$PAGELAB" restore
  assert_equal "$status" 1
  assert_output --partial "vm.watermark_scale_factor: $wsf (already back)"
  assert_output --partial "/etc/passwd: NOT restored"
  assert_output --partial "1 knob(s) not restored; the journal $d/journal stays"
  [ -e "$d/journal" ] && [ -e /etc/passwd ]
}

# A journal (or its directory, or its lock) that someone else could have
# written is not read at all: exit 2, one line naming it and why.
# untrusted_journal KIND DIR: make the case, print PAGELAB_JOURNAL.
untrusted_journal() {
  local d=$2
  printf 'pagelab-journal 1 pid=4242\nswapfile %s/precious\n' "$d" > "$d/journal"
  chmod 600 "$d/journal"
  case $1 in
  dir-world-writable) chmod 0777 "$d" ;;
  dir-group-writable) chmod 0770 "$d" ;;
  sticky-tmp-like) chmod 1777 "$d" ;;
  file-world-writable) chmod 0666 "$d/journal" ;;
  file-other-owner) chown nobody "$d/journal" ;;
  dir-other-owner) chown nobody "$d" ;;
  lock-other-owner) touch "$d/journal.lock"; chown nobody "$d/journal.lock" ;;
  symlink) mv "$d/journal" "$d/real"; ln -s "$d/real" "$d/journal" ;;
  fifo) rm "$d/journal"; mkfifo -m 600 "$d/journal" ;;
  huge) truncate -s 2M "$d/journal" ;;
  esac
  echo "$d/journal"
}

@test "untrusted journals (another owner, group/other-writable, a link, a FIFO, huge): refused, exit 2" {
  [ "$(id -u)" = 0 ] || skip "needs root"
  for kind in dir-world-writable:"can be written by anyone" dir-group-writable:"can be written by its group" \
              sticky-tmp-like:"can be written by anyone" file-world-writable:"can be written by anyone" \
              file-other-owner:"belongs to uid" dir-other-owner:"belongs to uid" lock-other-owner:"lock" \
              symlink:"is a symbolic link, not a regular file" fifo:"is a FIFO, not a regular file" \
              huge:"is 2 MiB, over the 1 MiB"; do
    want=${kind#*:} kind=${kind%%:*}
    d=$(mktemp -d "$BATS_TEST_TMPDIR/u.XXXXXX")
    echo precious > "$d/precious"
    j=$(untrusted_journal "$kind" "$d")
    PAGELAB_JOURNAL="$j" run --separate-stderr timeout 10 "$PAGELAB" restore
    [ "$status" = 2 ] || { echo "$kind: exit $status: $stderr"; return 1; }
    [[ "$stderr" == *"pagelab will not trust it"* && "$stderr" == *"$want"* ]] ||
      { echo "$kind: wanted '$want', got: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "$kind: $stderr"; return 1; }
    [ "$(cat "$d/precious")" = precious ]
    # A knob-changing run refuses it too, before it changes anything.
    PAGELAB_JOURNAL="$j" run --separate-stderr "$PAGELAB" run "$TOP/tests/scenarios/knobs.scn" --no-report \
      --out "$RESULTS/never.json"
    [ "$status" = 2 ] || { echo "$kind: run: exit $status: $stderr"; return 1; }
    [[ "$stderr" == *"pagelab will not trust it"* ]]
    [ ! -e "$RESULTS/never.json" ]
  done
}

# Sizes against the machine (harness/plan/typecheck.c: K_MEM): a region, pressure,
# ballast, stepper step or target, or cache file larger than MemTotal +
# SwapTotal (in VM mode the guest's --mem + --swap) is refused at validation
# with the figure and the limit.  The scenario files are tests/bad-input/beyond-machine-*.scn.
@test "--set of a size beyond the machine: the figure and the limit, exit 2" {
  refused madv-free/probe --set region=999T
  [[ "$stderr" == *"999 TiB is more than this machine could ever hold (this machine's MemTotal + SwapTotal: "*"GiB) (from --set region=999T)"* ]]
  refused madv-free/pressure --set pressure=64T
  [[ "$stderr" == *"steps: pressure: 64 TiB is more than this machine could ever hold"* ]]
  refused watermarks/kswapd-runs --set target=64T --allow-destructive
  [[ "$stderr" == *"target: 64 TiB is more than"* ]]
  refused min-free/cache-capacity --set file=64T --allow-destructive
  [[ "$stderr" == *"[workload cache] size: 64 TiB is more than"* ]]
}

@test "pagelab vm: a size beyond the guest's --mem + --swap is refused before anything boots (exit 2)" {
  run --separate-stderr "$PAGELAB" vm --mem 1G --build /nonexistent --kernel 6.12 run madv-free/probe --set region=2G
  assert_equal "$status" 2
  [[ "$stderr" == *"2 GiB is more than this machine could ever hold (the guest's --mem + --swap: 1 GiB)"* ]]
}

@test "a workload that fails on its own: exit 1 with its message; an OOM kill stays data (exit 0)" {
  require_memcg
  run --separate-stderr "$PAGELAB" run "$TOP/tests/scenarios/fails.scn" --no-report --out "$RESULTS/fails.json"
  assert_equal "$status" 1
  [[ "$stderr" == *"pagelab: run 1: workload ballast failed: --leave 70368744177664: MemFree is only "*" kB"* ]]
  [ "$(jq -r .status "$RESULTS/fails.json")" = error ]
  [ "$(jq -r '.runs[0].workloads[0].fate' "$RESULTS/fails.json")" = failed ]
  # An OOM kill (a 256 MiB region in a 64 MiB sandbox) is what was measured: exit 0.
  run --separate-stderr "$PAGELAB" run madv-free/probe --repeat 1 --set region=256M --set memory_max=64M \
    --no-report --out "$RESULTS/oom.json"
  assert_equal "$status" 0
  [ "$(jq -r '.runs[0].exit.outcome' "$RESULTS/oom.json")" = oom_killed ]
}
