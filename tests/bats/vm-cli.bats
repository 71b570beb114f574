#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# `pagelab vm`'s command line and its outcomes (harness/cmd/vm.c,
# harness/cmd/cli.md "VM mode"): vm options in any order, anywhere before the
# inner `run` / `audit` word (getopt_long, permuting, unique prefixes, --opt=V,
# `--` before the word); everything after the word is the inner command's —
# run options before or after NAME, forwarded to the guest's `pagelab run`
# as given; a vm option after `run` is the run's unknown option.  And a guest
# whose result is refused (docs/refusals-vm.md): exit 1, one line saying so,
# the guest's files kept.
#
# No guest boots: the stand-in for qemu (vm-standin.bash) hands back a real
# result; the guest's command is read from the vm-status it kept.  --build is
# the dynamic build/.  About 2 s a case.

load helpers
load vm-standin

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  CLI_SKIP=""
  command -v cpio >/dev/null && command -v gcc >/dev/null || CLI_SKIP="guest/vm-run needs gcc and cpio"
  export CLI_SKIP
  standin_setup
}

setup() {
  [ -z "$CLI_SKIP" ] || skip "$CLI_SKIP"
  SAVE="$BATS_TEST_TMPDIR/save"
  OUT="$BATS_TEST_TMPDIR/out"
  K="$BATS_FILE_TMPDIR/vmlinuz-standin"
  mkdir -p "$OUT"
}

# ran: exit 0, one guest result back, and the guest's command has WORDS... in it.
ran() {
  assert_equal "$status" 0
  ls "$OUT"/madv-free-probe-*-guest-standin.json
  local cmd
  cmd=$(sed -n 's/^command: //p' "$SAVE/vm-status")
  for w in "$@"; do
    [[ "$cmd" == *"$w"* ]] || { echo "guest command: $cmd"; echo "wanted: $w"; false; }
  done
  rm -rf "${OUT:?}"/* "$SAVE"
}

@test "vm options in any order and form before run; run options before or after NAME reach the guest" {
  standin_vm --build "$BUILD" --timeout 60 --out-dir "$OUT" --kernel "$K" run madv-free/probe --repeat 1 --set region=64M
  ran "'run' 'madv-free/probe' '--out' '/out/files/result.json' '--no-report' '--repeat' '1' '--set' 'region=64M'"
  standin_vm --out-dir="$OUT" --kernel="$K" --build="$BUILD" --timeout=60 run --repeat 2 madv-free/probe
  ran "'madv-free/probe'" "'--repeat' '2'"
  # Unique prefixes, as getopt_long takes them (--ker, --out-d), and `--` before the word.
  standin_vm --ker "$K" --out-d "$OUT" --bui "$BUILD" --time 60 -- run madv-free/probe --timeout 30
  ran "'--timeout' '30'"
  # The shape options reach vm-run, wherever they stand before run.
  standin_vm --mem 1G --out-dir "$OUT" --cpus 3 --kernel "$K" --build "$BUILD" run madv-free/probe --repeat 1 \
    --set region=64M --set memory_max=256M
  grep -qx 'mem: 1024M' "$SAVE/vm-status"
  grep -qx 'cpus: 3' "$SAVE/vm-status"
  ran "'--repeat' '1'"
}

@test "vm: after the run word a vm option is the run's own (unknown); an operand before it is refused" {
  standin_vm --kernel "$K" --build "$BUILD" --out-dir "$OUT" run madv-free/probe --mem 1G
  assert_equal "$status" 2
  [[ "$stderr" == *"pagelab: vm: run: unknown option '--mem'"* ]]
  standin_vm --kernel "$K" stray run madv-free/probe
  assert_equal "$status" 2
  [[ "$stderr" == *"expected 'run', 'fit' or 'audit' after the vm options"* ]]
  standin_vm --kernel "$K" --build "$BUILD"
  assert_equal "$status" 2
  [[ "$stderr" == *"expected: pagelab vm [options] run NAME [run options]"* ]]
  standin_vm --kernel
  assert_equal "$status" 2
  [ ! -e "$SAVE/qemu-started" ]
}

@test "vm: a guest whose result channel is refused is exit 1, one line naming why, its files kept" {
  ch="$BATS_TEST_TMPDIR/ch"
  mkdir -p "$ch/files"
  echo 0 >"$ch/exit-code"
  : >"$ch/stdout" ; : >"$ch/stderr" ; : >"$ch/guest-info"
  echo "HOST-SECRET-$$" >"$BATS_TEST_TMPDIR/secret"
  ln -s "$BATS_TEST_TMPDIR/secret" "$ch/files/result.json"
  tar -C "$ch" -cf "$BATS_TEST_TMPDIR/evil.tar" .
  FAKE_CHANNEL="$BATS_TEST_TMPDIR/evil.tar" standin_vm --kernel "$K" --build "$BUILD" --timeout 60 \
    --out-dir "$OUT" run madv-free/probe --repeat 1
  assert_equal "$status" 1
  [[ "$stderr" == *"guest-standin: the guest's result refused: the guest's result channel is refused: ./files/result.json is a symbolic link"* ]] ||
    { echo "$stderr"; false; }
  kept=$(sed -n "s/^pagelab: vm: guest-standin: the guest's files are kept in //p" <<<"$stderr")
  [ -d "$kept" ] && [ -s "$kept/channel.tar" ] && [ ! -e "$kept/files" ]
  ! grep -rqs "HOST-SECRET-$$" "$OUT"
  [ -z "$(ls "$OUT"/*.json 2>/dev/null)" ]
  # the console log is kept beside, and named
  ls "$OUT"/madv-free-probe-*-guest-standin.console.log
  rm -rf "$kept"
}

# The cache the suite shares is warm on a developer's machine, so the download
# path is only exercised here: a private empty cache, two fetches at once (as
# two lanes booting one kernel would), one kernel dir and nothing half-made.
@test "vm-kernel into an empty cache: two fetches of one kernel at once give one kernel, nothing half-made left" {
  c="$BATS_TEST_TMPDIR/cache"
  rc=0
  "$TOP/guest/vm-kernel" 6.12 --cache "$c" --info >"$BATS_TEST_TMPDIR/a" 2>"$BATS_TEST_TMPDIR/a.err" &
  a=$!
  "$TOP/guest/vm-kernel" 6.12 --cache "$c" --info >"$BATS_TEST_TMPDIR/b" 2>"$BATS_TEST_TMPDIR/b.err" &
  b=$!
  wait "$a" || rc=$?
  wait "$b" || rc=$?
  if [ "$rc" = 1 ] && grep -q "cannot resolve\|download .* failed" "$BATS_TEST_TMPDIR/a.err" "$BATS_TEST_TMPDIR/b.err"; then
    skip "Debian's 6.12 kernel cannot be had here: $(tail -n1 "$BATS_TEST_TMPDIR/a.err")"
  fi
  cat "$BATS_TEST_TMPDIR/a.err" "$BATS_TEST_TMPDIR/b.err"
  assert_equal "$rc" 0
  va=$(sed -n 's/^vmlinuz: //p' "$BATS_TEST_TMPDIR/a")
  assert_equal "$va" "$(sed -n 's/^vmlinuz: //p' "$BATS_TEST_TMPDIR/b")"
  [ -s "$va" ]
  grep -qx "release: 6.12.*" "$BATS_TEST_TMPDIR/a"
  grep -qE "^sha256: [0-9a-f]{64}$" "$BATS_TEST_TMPDIR/a"
  # one kernel directory and apt's kept answer, no stage, no download, no stray .deb
  assert_equal "$(ls -A "$c" | grep -vc '^\.resolved-6\.12-amd64-generic-[0-9a-f]\{16\}$')" 1
  assert_equal "$(ls -A "$c" | grep -c '^\.resolved-')" 1
  [ -f "$c"/linux-image-6.12*/PACKAGE ]
  [ -z "$(find "$c" -name '*.deb' -o -name '*.tmp*' -o -name '.download*')" ]
  # a second call reads the cache and downloads nothing
  # ... and asks apt nothing while its lists, sources and dpkg's status are as
  # they were (each apt-cache call loads the whole package cache)
  w="$BATS_TEST_TMPDIR/wrap"
  mkdir -p "$w"
  printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec /usr/bin/apt-cache "$@"\n' "$w" >"$w/apt-cache"
  chmod +x "$w/apt-cache"
  PATH="$w:$PATH" run --separate-stderr "$TOP/guest/vm-kernel" 6.12 --cache "$c"
  assert_equal "$status" 0
  assert_equal "$output" "$va"
  [[ "$stderr" != *downloading* ]]
  [ ! -e "$w/calls" ]
  # A kept answer is data: one that names no kernel of the series is asked again.
  k=$(ls "$c"/.resolved-*)
  echo "../../../tmp/x 1 y 2" >"$k"
  PATH="$w:$PATH" run --separate-stderr "$TOP/guest/vm-kernel" 6.12 --cache "$c"
  assert_equal "$status" 0
  assert_equal "$output" "$va"
  grep -q "^policy " "$w/calls"
  grep -qx "linux-image-6\.12\.[^ ]* [^ ]* linux-image-6\.12-amd64 [^ ]*" "$k"
}

# The 16K-page kernel exists as arm64's generic build only (guest/vm-kernel's header,
# harness/plan/vmkernel.c): any other --arch or --flavour is bad usage (exit 2), said
# before apt is asked or anything is made, by the script and by pagelab vm alike.
@test "vm: --kernel 6.12-16k is arm64's generic kernel only: exit 2 elsewhere, before anything is fetched; vm --help lists the series" {
  c="$BATS_TEST_TMPDIR/cache16k"
  run --separate-stderr "$TOP/guest/vm-kernel" 6.12-16k --cache "$c"
  assert_equal "$status" 2
  [[ "$stderr" == *"6.12-16k (16 KiB pages) exists only as Debian's arm64 generic kernel"*"--arch amd64"* ]]
  run --separate-stderr "$TOP/guest/vm-kernel" 6.12-16k --arch arm64 --flavour cloud --cache "$c"
  assert_equal "$status" 2
  [[ "$stderr" == *"--flavour cloud"* ]]
  [ ! -e "$c" ]
  run --separate-stderr "$PAGELAB" vm --kernel 6.12-16k --out-dir "$OUT" run madv-free/probe
  assert_equal "$status" 2
  [[ "$stderr" == *"--kernel 6.12-16k exists for --arch arm64 --flavour generic only"*"not for --arch amd64 --flavour generic"* ]]
  run --separate-stderr "$PAGELAB" vm --arch arm64 --flavour cloud --kernel 6.12-16k --out-dir "$OUT" run madv-free/probe
  assert_equal "$status" 2
  [[ "$stderr" == *"not for --arch arm64 --flavour cloud"* ]]
  [ -z "$(ls -A "$OUT")" ]
  run "$PAGELAB" vm --help
  assert_success
  assert_output --partial "[--kernel 6.1|6.12|6.12-16k|6.18|PATH]"
  assert_output --partial "6.12-16k  --arch arm64, --flavour generic"
  assert_output --partial "6.18      --arch amd64|arm64, --flavour generic|cloud: Debian 13 backports' 6.18"
}

@test "vm-kernel 6.18: Debian 13's backports through a private apt tree in the cache, the system's sources untouched" {
  # The tree is the cache's (guest/vm-kernel: CACHE/../apt/trixie-backports): one
  # sources.list line, its own lists.  Resolving needs the mirror (or lists from an
  # earlier day); exit 1 (cannot be had here) skips, as the guest tests do.
  d=$(mktemp -d "$BATS_TEST_TMPDIR/vk.XXXXXX")
  before=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | sha256sum)
  run --separate-stderr "$TOP/guest/vm-kernel" 6.18 --cache "$d/kernels" --info
  [ "$status" -ne 1 ] || skip "Debian 13's 6.18 cannot be had here: ${stderr##*$'\n'}"
  assert_success
  [ "$(cat "$d/apt/trixie-backports/sources.list")" = "deb http://deb.debian.org/debian trixie-backports main" ]
  ls "$d"/apt/trixie-backports/lists/*trixie-backports*Packages* >/dev/null
  [[ "$output" == *"package: linux-image-6.18."*"+deb13-amd64"* ]]
  [[ "$output" == *"vmlinuz: $d/kernels/linux-image-6.18."* ]]
  # The package is the one apt's signed lists name: the recorded sha256 is theirs.
  pkg=$(awk '/^package:/ {print $2}' <<<"$output")
  sum=$(awk '/^sha256:/ {print $2}' <<<"$output")
  grep -q "SHA256: $sum" <(apt-cache -o "Dir::Etc::sourcelist=$d/apt/trixie-backports/sources.list" \
    -o Dir::Etc::sourceparts=/dev/null -o "Dir::State::Lists=$d/apt/trixie-backports/lists" show "$pkg")
  [ "$(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | sha256sum)" = "$before" ]
  # A second call reads the cache: no download.
  run --separate-stderr "$TOP/guest/vm-kernel" 6.18 --cache "$d/kernels"
  assert_success
  [[ "$stderr" != *"downloading"* ]]
  # New lists (a day's apt-get update) change the key: apt is asked again.
  k=$(ls "$d"/kernels/.resolved-6.18-amd64-generic-*)
  touch -d '1 minute ago' "$(ls "$d"/apt/trixie-backports/lists/*trixie-backports*Packages* | head -n1)"
  run --separate-stderr "$TOP/guest/vm-kernel" 6.18 --cache "$d/kernels"
  assert_success
  [ ! -e "$k" ]
  assert_equal "$(ls "$d"/kernels/.resolved-6.18-amd64-generic-* | wc -l)" 1
}

# guest/vm-run reads every binary's ELF header in one readelf call and hashes
# them in one sha256sum: each is still judged by its own name.  An amd64
# program among an arm64 guest's, and a script among an amd64 guest's, are
# refused by name (exit 125, vm-run's "usage" status) before anything is
# built or booted.
@test "vm-run: a binary for another machine, or not ELF at all, is refused by name before any boot" {
  o="$BATS_TEST_TMPDIR/vmrun"
  printf '#!/bin/sh\necho hi\n' >"$BATS_TEST_TMPDIR/not-elf"
  chmod +x "$BATS_TEST_TMPDIR/not-elf"
  run --separate-stderr "$TOP/guest/vm-run" --kernel "$K" --arch arm64 --build none \
    --bin "$BUILD/workloads/hold" --out "$o" -- true
  assert_equal "$status" 125
  [[ "$stderr" == *"$BUILD/workloads/hold is built for 'Advanced Micro Devices X86-64', not the arm64 guest"* ]]
  run --separate-stderr "$TOP/guest/vm-run" --kernel "$K" --build "$BUILD" \
    --bin "$BATS_TEST_TMPDIR/not-elf" --out "$o" -- true
  assert_equal "$status" 125
  [[ "$stderr" == *"$BATS_TEST_TMPDIR/not-elf is built for '', not the amd64 guest"* ]]
  grep -qx 'status: usage' "$o/vm-status"
  [ ! -e "$o/initrd.cpio.gz" ]
  [ -z "$(ls -A "$o" 2>/dev/null | grep -v '^vm-status$')" ]
}
