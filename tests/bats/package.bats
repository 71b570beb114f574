#!/usr/bin/env bats
# The Debian package and the Ansible fleet (issue 14), end to end in podman
# containers: scripts/package-ci builds the .deb from the tree, lintian finds
# no error, the package installs in a clean Debian 12 container and runs
# `pagelab check` and madv-free/three-paths there, the unpacked package's
# `pagelab vm` runs a scenario in a 6.12 guest; then containers/fleet/playbook.yml
# installs it on three podman containers (the containers.podman.podman
# connection), audits them, refuses a knob-writing scenario and runs
# madv-free/probe: the audit table has one column per host.  Nothing is
# installed on this host.  Measured here on a busy machine: deb 132 s (the
# build with its static guest half 38-72 s, lintian 3-5 s, the container
# 35-43 s, the guest 9 s), fleet 101 s plus 11 s of clean-up.

load helpers

@test "scripts/package-ci deb: the .deb (lintian clean) in a clean Debian 12 container, and pagelab vm from it, nothing left" {
  for c in podman runc debootstrap dpkg-buildpackage dh lintian help2man; do
    command -v $c >/dev/null || skip "$c is not installed (scripts/setup installs it; did apt-get fail?)"
  done
  own=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*:\(.*\)$/\1/p' /proc/self/cgroup)
  log="$BATS_TEST_TMPDIR/package-ci.log"
  run --separate-stderr "$TOP/scripts/package-ci" deb
  st=$status
  printf '%s\n' "$output" "$stderr" >"$log"
  run "$TOP/scripts/package-ci" clean
  [ "$st" -eq 0 ] || { cat "$log"; false; }
  assert_success
  err=$(cat "$log")
  grep -q 'package-ci: built pagelab_.*_amd64.deb' <<<"$err"
  grep -q 'package-ci: lintian: 0 errors' <<<"$err"
  grep -q 'installed in a clean Debian 12 container: check, three-paths' <<<"$err"
  if command -v qemu-system-x86_64 >/dev/null; then
    grep -q 'pagelab vm from the unpacked package: madv-free/probe in a 6.12 guest' <<<"$err"
  fi
  # Nothing left: containers, podman's storage, the package build, cgroups.
  [ -z "$(find /sys/fs/cgroup -path "*$own/package-ci*" 2>/dev/null)" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/pkg" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/storage" ]
  # Nothing was installed on this host.
  ! dpkg-query -W pagelab >/dev/null 2>&1
}

@test "scripts/package-ci fleet: the .deb on three podman containers through Ansible, the audit one column per host" {
  for c in podman runc debootstrap dpkg-buildpackage dh lintian help2man ansible-playbook; do
    command -v $c >/dev/null || skip "$c is not installed (scripts/setup installs it; did apt-get fail?)"
  done
  own=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*:\(.*\)$/\1/p' /proc/self/cgroup)
  log="$BATS_TEST_TMPDIR/fleet.log"
  run --separate-stderr "$TOP/scripts/package-ci" fleet
  st=$status out=$output
  printf '%s\n' "$output" "$stderr" >"$log"
  err=$stderr
  run "$TOP/scripts/package-ci" clean
  [ "$st" -eq 0 ] || { cat "$log"; false; }
  grep -q 'fleet: 3 hosts audited and ran madv-free/probe' <<<"$err"
  grep -q 'watermarks/lines (it writes vm.watermark_scale_factor) refused without pagelab_allow_knobs' <<<"$err"
  # The audit table: one column per inventory host, who set min_free_kbytes on each
  # (containers share this kernel: each says what this host's audit says).
  grep -qx '| | fleet-1 | fleet-2 | fleet-3 |' <<<"$out"
  set_by=$("$PAGELAB" audit --json | jq -r .min_free_kbytes.set_by)
  grep -qx "| … set by | $set_by | $set_by | $set_by |" <<<"$out"
  grep -q '^| Normal: min / low / high | [0-9]* / [0-9]* / [0-9]* |' <<<"$out"
  grep -q '^## host=fleet-1 → host=fleet-3' <<<"$out"
  [ -z "$(find /sys/fs/cgroup -path "*$own/package-ci*" 2>/dev/null)" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/pkg" ]
  ! dpkg-query -W pagelab >/dev/null 2>&1
}
