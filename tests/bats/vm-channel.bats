#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A guest is untrusted: what it hands back (the tar stream on its result
# channel, guest/vm-guest-init step 5) is unpacked by guest/vm-run as regular
# files and directories only, into a private directory, with no owner from
# the archive and no mode but 0644 / 0755, and only under the names the
# channel is documented to hold (stdout, stderr, exit-code, guest-info,
# files/...).  Anything else — a symbolic link, a hard link, a device node, a
# FIFO, a setuid file, a `../` or an absolute name, a member the channel does
# not hold (console.log), more bytes than the cap — refuses the whole channel:
# vm-run exits 125 with status `channel-refused` and one line naming the
# member, and nothing of the archive is left in --out.
#
# No guest boots: a stand-in for qemu-system-x86_64 (first in PATH) writes the
# crafted archive where qemu would write the guest's channel and exits as
# isa-debug-exit does for a guest that finished (33).  The archives are made
# with Python's tarfile in this test's private temporary directory; the
# "host file" a link points at is a file made there too.  guest/vm-run runs
# for real (initramfs, command cpio, verdict, unpacking), with its cache in
# this file's temporary directory.  About 2 s per case here.

load helpers

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  CH_SKIP=""
  if ! command -v python3 >/dev/null; then
    CH_SKIP="no python3 (the crafted archives are made with its tarfile module)"
  elif ! command -v gcc >/dev/null || ! command -v cpio >/dev/null; then
    CH_SKIP="guest/vm-run needs gcc and cpio (scripts/setup installs them)"
  fi
  export CH_SKIP
  mkdir -p "$BATS_FILE_TMPDIR/bin"
  # qemu's stand-in: the guest's console, then the crafted channel, then
  # isa-debug-exit's status for "done" ((16 << 1) | 1).
  cat >"$BATS_FILE_TMPDIR/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
for a in "$@"; do
  case "$a" in
  file,id=con,path=*) con=${a#file,id=con,path=} ;;
  file,id=out,path=*) chan=${a#file,id=out,path=} ;;
  esac
done
printf '[    0.5] Run /init as init process\n[    1.0] pagelab-init: exit 16\n' >"$con"
cat "$FAKE_CHANNEL" >"$chan"
exit 33
EOF
  chmod +x "$BATS_FILE_TMPDIR/bin/qemu-system-x86_64"
  echo "not a kernel: qemu is a stand-in here" >"$BATS_FILE_TMPDIR/vmlinuz-standin"
  export PAGELAB_CACHE_DIR="$BATS_FILE_TMPDIR/cache"
}

setup() {
  [ -z "$CH_SKIP" ] || skip "$CH_SKIP"
  SECRET="$BATS_TEST_TMPDIR/host-secret"
  echo "HOST-SECRET-$$-$RANDOM" >"$SECRET"
  chmod 0600 "$SECRET"
  OUT="$BATS_TEST_TMPDIR/out"
  TAR="$BATS_TEST_TMPDIR/channel.tar"
}

# craft [MEMBER...]: the channel a well-behaved guest writes (./, stdout,
# stderr, exit-code 0, guest-info, files/), then each MEMBER, one of
#   reg:NAME[:MODE[:SIZE]]  dir:NAME  sym:NAME:TARGET  hard:NAME:TARGET
#   chr:NAME  fifo:NAME
# into $TAR.
craft() {
  python3 - "$TAR" "$@" <<'EOF'
import io, sys, tarfile
out, members = sys.argv[1], sys.argv[2:]
t = tarfile.open(out, "w", format=tarfile.GNU_FORMAT)
def add(name, kind="reg", mode=0o644, data=b"", link=""):
    ti = tarfile.TarInfo(name)
    ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = mode, 1000, 1000, "guest", "guest"
    ti.mtime = 1700000000
    ti.type = {"reg": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE,
               "hard": tarfile.LNKTYPE, "chr": tarfile.CHRTYPE, "fifo": tarfile.FIFOTYPE}[kind]
    ti.linkname = link
    if kind == "chr":
        ti.devmajor, ti.devminor = 1, 3
    if kind == "reg":
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    else:
        t.addfile(ti)
add("./", "dir", 0o755)
add("./stdout", data=b"guest stdout line\n")
add("./stderr", data=b"guest stderr line\n")
add("./exit-code", data=b"0\n")
add("./guest-info", data=b"uname_r: 6.12.0-standin\nuptime_cmd_start_s: 1.00\nuptime_cmd_end_s: 2.00\n")
add("./files/", "dir", 0o755)
for m in members:
    kind, name, *rest = m.split(":")
    if kind == "reg":
        mode = int(rest[0], 8) if rest else 0o644
        size = int(rest[1]) if len(rest) > 1 else 6
        add(name, "reg", mode, (b"guest\n" * (size // 6 + 1))[:size])
    elif kind in ("sym", "hard"):
        add(name, kind, 0o777 if kind == "sym" else 0o644, link=rest[0])
    else:
        add(name, kind, 0o755 if kind == "dir" else 0o644)
t.close()
EOF
}

# vmrun [vm-run options]: guest/vm-run with the stand-in, output in $OUT.
vmrun() {
  rm -rf "$OUT"
  FAKE_CHANNEL=$TAR PATH="$BATS_FILE_TMPDIR/bin:$PATH" \
    run "$TOP/guest/vm-run" --kernel "$BATS_FILE_TMPDIR/vmlinuz-standin" --build none --timeout 60 \
    --out "$OUT" "$@" -- true
}

# What a refused channel must leave: exit 125, status channel-refused, one
# line naming the member and why, nothing of the archive in $OUT (no link, no
# device, no setuid file, no file with two names, none of its files), and the
# host file's bytes nowhere in the output.
refused() {
  local member=$1 why=$2
  assert_failure 125
  grep -qx 'status: channel-refused' "$OUT/vm-status"
  assert_output --partial "$member"
  assert_output --partial "$why"
  refute_output --partial "$(cat "$SECRET")"
  [ -z "$(find "$OUT" -type l -o ! -type f ! -type d -o -perm /7000 -o -type f -links +1)" ]
  for f in stdout stderr exit-code guest-info files; do [ ! -e "$OUT/$f" ]; done
  [ -z "$(find "$OUT" -name '.channel.*')" ]
  ! grep -rqs "$(cat "$SECRET")" "$OUT"
}

@test "vm-run channel: a well-behaved guest's archive comes back as regular files, 0644 / 0755, owned here" {
  craft reg:./files/result.json:0600 reg:./files/tool:0777 dir:./files/sub reg:./files/sub/x:0666
  vmrun
  assert_success
  assert_output --partial "guest stdout line"
  grep -qx 'status: ok' "$OUT/vm-status"
  [ "$(stat -c %a "$OUT/files/result.json")" = 644 ]
  [ "$(stat -c %a "$OUT/files/tool")" = 755 ]
  [ "$(stat -c %a "$OUT/files/sub/x")" = 644 ]
  [ "$(stat -c %a "$OUT/files/sub")" = 755 ]
  [ "$(stat -c %a "$OUT/files")" = 755 ]
  # No owner from the archive (uid 1000 there): the files are this user's.
  [ -z "$(find "$OUT" ! -uid "$(id -u)")" ]
  [ -z "$(find "$OUT" -type l -o ! -type f ! -type d)" ]
  [ "$(cat "$OUT/exit-code")" = 0 ]
}

@test "vm-run channel: a symbolic link to a host file is refused, and not followed" {
  craft "sym:./files/result.json:$SECRET"
  vmrun
  refused files/result.json "symbolic link"
  # The same in a documented name vm-run prints (stdout).
  python3 - "$TAR" "$SECRET" <<'EOF'
import sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT)
ti = tarfile.TarInfo("./stdout"); ti.type = tarfile.SYMTYPE; ti.linkname = sys.argv[2]; t.addfile(ti)
for n in ("./stderr", "./guest-info"):
    t.addfile(tarfile.TarInfo(n))
t.close()
EOF
  vmrun
  refused stdout "symbolic link"
}

@test "vm-run channel: a hard link is refused" {
  craft hard:./files/twin:./stdout
  vmrun
  refused files/twin "hard link"
}

@test "vm-run channel: a device node is refused, and none is made" {
  craft chr:./files/null
  vmrun
  refused files/null "character device"
}

@test "vm-run channel: a FIFO is refused" {
  craft fifo:./files/pipe
  vmrun
  refused files/pipe "FIFO"
}

@test "vm-run channel: a ../ name is refused and nothing lands outside --out" {
  craft "reg:../escaped"
  vmrun
  refused ../escaped "'..'"
  [ ! -e "$BATS_TEST_TMPDIR/escaped" ]
  craft "reg:./files/../../escaped2"
  vmrun
  refused escaped2 "'..'"
  [ ! -e "$BATS_TEST_TMPDIR/escaped2" ]
}

@test "vm-run channel: a setuid or setgid file is refused" {
  craft reg:./files/suid:4755
  vmrun
  refused files/suid "setuid"
  craft reg:./files/sgid:2755
  vmrun
  refused files/sgid "setuid"
}

@test "vm-run channel: an absolute name is refused, and nothing is written there or below --out" {
  craft "reg:$BATS_TEST_TMPDIR/abs-target"
  vmrun
  refused "$BATS_TEST_TMPDIR/abs-target" "absolute"
  [ ! -e "$BATS_TEST_TMPDIR/abs-target" ]
  [ -z "$(find "$OUT" -name abs-target)" ]
}

@test "vm-run channel: a member the channel does not hold (the host's console.log) is refused, the host's copy kept" {
  craft reg:./console.log
  vmrun
  refused console.log "not one the channel holds"
  grep -q 'pagelab-init: exit 16' "$OUT/console.log"
}

@test "vm-run channel: more bytes than the cap are refused (PAGELAB_VM_CHANNEL_MAX)" {
  craft reg:./files/big:0644:20000
  PAGELAB_VM_CHANNEL_MAX=10000 vmrun
  refused files/big "more than"
}
