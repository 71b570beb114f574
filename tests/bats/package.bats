#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package and the Ansible fleet (issue 14), end to end in podman
# containers: scripts/package-ci builds the .deb from the tree, lintian finds
# no error, the package installs in a clean Debian 12 container and runs
# `pagelab check` and madv-free/three-paths there, the unpacked package's
# `pagelab vm` runs a scenario in a 6.12 guest; then containers/fleet/playbook.yml
# installs it on two podman containers (the containers.podman.podman
# connection), audits them, refuses a knob-writing scenario and runs
# madv-free/probe: the audit table has one column per host.  Nothing is
# installed on this host.
#
# One scripts/package-ci run (its default verb: deb, then fleet, from one
# build of the .deb) serves both tests: setup_file keeps its output, its exit
# status and that of `package-ci clean` in the file's temp directory, and each
# test asserts its part (each part prints its phase lines only when all of it
# passed).  Measured here (6.18, 2 vCPUs, under the heavy-run lock, a busy
# machine): the file took 302 s when each test ran its own package-ci (the
# .deb built twice, 38-72 s each), 161 s with the one run.  Two inventory
# hosts (PAGELAB_FLEET_HOSTS=2; package-ci's default is three): the plays took
# 98 s against 128 s with three (2026-12-07, alone on this 2-CPU machine),
# and two columns show as well as three that each host is its own.

load helpers

PKG_TOOLS="podman runc debootstrap dpkg-buildpackage dh lintian help2man"

setup_file() {
  local c verb=all
  for c in $PKG_TOOLS; do
    command -v $c >/dev/null || { echo "$c" >"$BATS_FILE_TMPDIR/missing"; return 0; }
  done
  # Without Ansible only the package's part can run (the fleet test skips).
  command -v ansible-playbook >/dev/null || verb=deb
  echo "$verb" >"$BATS_FILE_TMPDIR/verb"
  # PAGELAB_CI_KEEP: the default verb leaves the clean-up to the explicit
  # `clean` below, whose exit status is asserted.
  st=0
  ls "${TMPDIR:-/tmp}" >"$BATS_FILE_TMPDIR/tmp-before"
  PAGELAB_CI_KEEP=1 PAGELAB_FLEET_HOSTS=2 "$TOP/scripts/package-ci" $([ "$verb" = deb ] && echo deb) \
    >"$BATS_FILE_TMPDIR/out" 2>"$BATS_FILE_TMPDIR/err" || st=$?
  echo "$st" >"$BATS_FILE_TMPDIR/status"
  ls "${TMPDIR:-/tmp}" >"$BATS_FILE_TMPDIR/tmp-after"
  st=0
  "$TOP/scripts/package-ci" clean >"$BATS_FILE_TMPDIR/clean.log" 2>&1 || st=$?
  echo "$st" >"$BATS_FILE_TMPDIR/clean.status"
  return 0
}

# The run's files as the tests read them: out (stdout), err (stderr), st (exit).
load_run() {
  [ ! -e "$BATS_FILE_TMPDIR/missing" ] ||
    skip "$(cat "$BATS_FILE_TMPDIR/missing") is not installed (scripts/setup installs it; did apt-get fail?)"
  out=$(cat "$BATS_FILE_TMPDIR/out")
  err=$(cat "$BATS_FILE_TMPDIR/err")
  st=$(cat "$BATS_FILE_TMPDIR/status")
  verb=$(cat "$BATS_FILE_TMPDIR/verb")
  log="$BATS_FILE_TMPDIR/package-ci.log"
  printf '%s\n' "$out" "$err" >"$log"
  # The clean-up ran and succeeded whatever the tests find.
  [ "$(cat "$BATS_FILE_TMPDIR/clean.status")" -eq 0 ] || { cat "$BATS_FILE_TMPDIR/clean.log"; false; }
}

# Nothing left: containers, podman's storage, the package build, cgroups, and
# nothing installed on this host.
nothing_left() {
  local own
  lab_own_memcg || return 1
  own=$LAB_MEMCG_REL
  [ -z "$(find /sys/fs/cgroup -path "*$own/package-ci*" 2>/dev/null)" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/pkg" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/storage" ]
  ! dpkg-query -W pagelab >/dev/null 2>&1
}

@test "scripts/package-ci deb: the .deb (lintian clean) in a clean Debian 12 container, and pagelab vm from it, nothing left" {
  load_run
  # deb alone (no Ansible here): its exit status is the part's.
  [ "$verb" != deb ] || [ "$st" -eq 0 ] || { cat "$log"; false; }
  grep -q 'package-ci: built pagelab_.*_amd64.deb' <<<"$err" || { cat "$log"; false; }
  grep -q 'package-ci: lintian: 0 errors' <<<"$err"
  # lintian's ELF caches stayed in package-ci's own directory, not in TMPDIR
  ! comm -13 "$BATS_FILE_TMPDIR/tmp-before" "$BATS_FILE_TMPDIR/tmp-after" | grep '^mldbm-'
  grep -q 'installed in a clean Debian 12 container: check, three-paths' <<<"$err" || { cat "$log"; false; }
  if command -v qemu-system-x86_64 >/dev/null; then
    grep -q 'pagelab vm from the unpacked package: madv-free/probe in a 6.12 guest' <<<"$err" || { cat "$log"; false; }
  fi
  nothing_left
}

@test "scripts/package-ci fleet: the .deb on two podman containers through Ansible, the audit one column per host" {
  load_run
  [ "$verb" = all ] || skip "ansible-playbook is not installed (scripts/setup installs ansible; did apt-get fail?)"
  # The whole run (the package's part and the fleet's) exited 0.
  [ "$st" -eq 0 ] || { cat "$log"; false; }
  # One build of the .deb served both parts.
  [ "$(grep -c 'package-ci: built pagelab_.*_amd64.deb' <<<"$err")" -eq 1 ]
  grep -q 'fleet: 2 hosts audited and ran madv-free/probe' <<<"$err"
  grep -q 'watermarks/lines (it writes vm.watermark_scale_factor) refused without pagelab_allow_knobs' <<<"$err"
  # The fixed paths a local user could make first (/var/tmp/pagelab.deb,
  # /var/tmp/pagelab-fleet) were planted by nobody on every host before the
  # play, and are exactly as planted after it (containers/fleet/playbook.yml:
  # a private directory per run; docs/refusals-vm.md).
  grep -q 'fleet: /var/tmp/pagelab.deb and /var/tmp/pagelab-fleet planted by nobody on every host first: neither used nor trusted' <<<"$err"
  # The audit table: one column per inventory host, who set min_free_kbytes on each
  # (containers share this kernel: each says what this host's audit says).
  grep -qx '| | fleet-1 | fleet-2 |' <<<"$out"
  set_by=$("$PAGELAB" audit --json | jq -r .min_free_kbytes.set_by)
  grep -qx "| … set by | $set_by | $set_by |" <<<"$out"
  grep -q '^| Normal: min / low / high | [0-9]* / [0-9]* / [0-9]* |' <<<"$out"
  grep -q '^## host=fleet-1 → host=fleet-2' <<<"$out"
  nothing_left
}
