# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for qemu-system-x86_64, for the VM-mode tests that need no guest
# to boot (vm-catalogue.bats, vm-cli.bats): first in PATH, it records that it
# was started, keeps the initramfs it was given and vm-run's vm-status (the
# guest's command is its "command:" line), writes a console and the channel
# $FAKE_CHANNEL where qemu would write the guest's, and exits as
# isa-debug-exit does for a guest that finished (33).  The default channel's
# result is a real pagelab.result/1 document (tests/golden/report/inputs).

# standin_setup (from setup_file): the stand-in, a kernel file that is not
# one, the default channel; the initramfs cache in this file's temp directory.
standin_setup() {
  mkdir -p "$BATS_FILE_TMPDIR/bin"
  cat >"$BATS_FILE_TMPDIR/bin/qemu-system-x86_64" <<'SH'
#!/bin/bash
prev=""
for a in "$@"; do
  case "$a" in
  file,id=con,path=*) con=${a#file,id=con,path=} ;;
  file,id=out,path=*) chan=${a#file,id=out,path=} ;;
  esac
  [ "$prev" = -initrd ] && cp "$a" "$FAKE_SAVE/initrd.cpio.gz"
  prev=$a
done
touch "$FAKE_SAVE/qemu-started"
cp "$(dirname "$chan")/vm-status" "$FAKE_SAVE/vm-status"
printf '[    0.5] Run /init as init process\n[    1.0] pagelab-init: exit 16\n' >"$con"
cat "$FAKE_CHANNEL" >"$chan"
exit 33
SH
  chmod +x "$BATS_FILE_TMPDIR/bin/qemu-system-x86_64"
  echo "not a kernel" >"$BATS_FILE_TMPDIR/vmlinuz-standin"
  local ch="$BATS_FILE_TMPDIR/ch"
  mkdir -p "$ch/files"
  gzip -dc "$TOP/tests/golden/report/inputs/pressure.json.gz" >"$ch/files/result.json"
  echo 0 >"$ch/exit-code"
  : >"$ch/stdout"
  : >"$ch/stderr"
  printf 'uname_r: 6.12.0-standin\nuptime_cmd_start_s: 1.00\nuptime_cmd_end_s: 2.00\n' >"$ch/guest-info"
  tar -C "$ch" -cf "$BATS_FILE_TMPDIR/channel.tar" .
  export PAGELAB_CACHE_DIR="$BATS_FILE_TMPDIR/cache"
}

# standin_vm ARGS...: `pagelab vm ARGS` with the stand-in first in PATH, the
# channel $FAKE_CHANNEL (default: the golden result), what it saw in $SAVE.
standin_vm() {
  mkdir -p "$SAVE"
  FAKE_SAVE=$SAVE FAKE_CHANNEL=${FAKE_CHANNEL:-$BATS_FILE_TMPDIR/channel.tar} \
    PATH="$BATS_FILE_TMPDIR/bin:$PATH" run --separate-stderr "$PAGELAB" vm "$@"
}
