#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# `pagelab vm` puts the scenario tree (or the one scenario FILE) into the
# guest's initramfs, which is cached and booted: it copies files as they are,
# never through a symbolic link, and refuses a tree that holds anything but
# regular files and directories, naming the entry, before anything is built
# or booted (exit 2).  Before, guest/vm-initramfs copied with `cp -a -L`, so a
# link in $PAGELAB_SCENARIOS (or a planted ./scenarios) to any file root can
# read landed in the archive.
#
# No guest boots: the stand-in for qemu (vm-standin.bash) records that it
# was started, keeps the initramfs it was given and writes a channel whose
# result is a real pagelab.result/1 document, so the whole of `pagelab vm`
# runs (plan, guest/vm-run, unpacking, the copy into --out-dir, the report).  --build is the dynamic build/ (its binaries and
# their libraries go into the initramfs; nothing executes them).

load helpers
load vm-standin

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  CAT_SKIP=""
  command -v cpio >/dev/null && command -v gcc >/dev/null || CAT_SKIP="guest/vm-run needs gcc and cpio"
  export CAT_SKIP
  standin_setup
}

setup() {
  [ -z "$CAT_SKIP" ] || skip "$CAT_SKIP"
  SAVE="$BATS_TEST_TMPDIR/save"
  OUT="$BATS_TEST_TMPDIR/out"
  SCN="$BATS_TEST_TMPDIR/scenarios"
  SECRET="$BATS_TEST_TMPDIR/host-secret"
  mkdir -p "$SAVE" "$OUT" "$SCN/madv-free"
  echo "HOST-SECRET-$$-$RANDOM" >"$SECRET"
  chmod 0600 "$SECRET"
  cp "$TOP/scenarios/madv-free/probe.scn" "$SCN/madv-free/"
}

# vm [pagelab vm options...]: with the stand-in, the planted tree, the dynamic build.
vm() {
  PAGELAB_SCENARIOS=$SCN standin_vm --kernel "$BATS_FILE_TMPDIR/vmlinuz-standin" --build "$BUILD" \
    --timeout 60 --out-dir "$OUT" "$@"
}

# refused ENTRY WHY: exit 2 naming it, nothing started, nothing written.
refused() {
  assert_equal "$status" 2
  [[ "$stderr" == *"$1"* ]] || { echo "$stderr"; false; }
  [[ "$stderr" == *"$2"* ]] || { echo "$stderr"; false; }
  [ "$(echo "$stderr" | grep -c .)" -eq 1 ] || { echo "$stderr"; false; }
  [ ! -e "$SAVE/qemu-started" ]
  [ -z "$(ls -A "$OUT")" ]
}

@test "vm catalogue: a clean tree goes into the initramfs as regular files, and the run comes back" {
  cp "$TOP/scenarios/madv-free/pressure.scn" "$SCN/madv-free/"
  vm run madv-free/probe --repeat 1
  assert_equal "$status" 0
  [ -e "$SAVE/qemu-started" ]
  ls "$OUT"/madv-free-probe-*-guest-standin.json
  # What the guest got under /scenarios: the two files and their directories, no link.
  list=$(gzip -dc "$SAVE/initrd.cpio.gz" | cpio -itv --quiet 2>/dev/null | grep ' scenarios')
  echo "$list"
  [ "$(grep -c '^-' <<<"$list")" -eq 2 ]
  ! grep -q '^l' <<<"$list"
}

@test "vm catalogue: a symbolic link to a host file in the tree is refused by name, nothing booted" {
  ln -s "$SECRET" "$SCN/madv-free/leak.tables.json"
  vm run madv-free/probe --repeat 1
  refused "$SCN/madv-free/leak.tables.json" "is a symbolic link"
  refute_output --partial "$(cat "$SECRET")"
}

@test "vm catalogue: a symbolic link to a directory, a dangling link, a FIFO: each refused by name" {
  ln -s /etc "$SCN/etc"
  vm run madv-free/probe
  refused "$SCN/etc" "is a symbolic link"
  rm "$SCN/etc"
  ln -s "$BATS_TEST_TMPDIR/nothing" "$SCN/madv-free/dangling.scn"
  vm run madv-free/probe
  refused "$SCN/madv-free/dangling.scn" "is a symbolic link"
  rm "$SCN/madv-free/dangling.scn"
  mkfifo "$SCN/madv-free/pipe"
  vm run madv-free/probe
  refused "$SCN/madv-free/pipe" "a FIFO, not a regular file"
}

@test "vm catalogue: a scenario FILE named through a symbolic link is refused; the file itself runs" {
  cp "$TOP/scenarios/madv-free/probe.scn" "$BATS_TEST_TMPDIR/mine.scn"
  ln -s "$BATS_TEST_TMPDIR/mine.scn" "$BATS_TEST_TMPDIR/link.scn"
  vm run "$BATS_TEST_TMPDIR/link.scn" --repeat 1
  refused "$BATS_TEST_TMPDIR/link.scn" "is a symbolic link"
  vm run "$BATS_TEST_TMPDIR/mine.scn" --repeat 1
  assert_equal "$status" 0
}

@test "vm-initramfs --file: a source that is or holds a symbolic link is refused" {
  mkdir -p "$BATS_TEST_TMPDIR/tree"
  ln -s "$SECRET" "$BATS_TEST_TMPDIR/tree/x"
  run "$TOP/guest/vm-initramfs" "$BATS_TEST_TMPDIR/i.cpio.gz" --init "$TOP/guest/vm-guest-init" \
    --file "$BATS_TEST_TMPDIR/tree:/scenarios"
  assert_failure 1
  assert_output --partial "$BATS_TEST_TMPDIR/tree/x is a symbolic link"
  [ ! -e "$BATS_TEST_TMPDIR/i.cpio.gz" ]
}
