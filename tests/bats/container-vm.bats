#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# A cgroup v2 container as pagelab sees it (docs/container.md): Docker Desktop
# and modern servers are cgroup v2 with a private cgroup namespace, so the
# container's cgroup is "/" inside, a non-root one.  No v2 engine runs on this
# host (hybrid, memory on v1), so a pure v2 QEMU guest (guest/vm-run, Debian's
# 6.12) stands in: tests/bats/guest/container-v2.sh makes the namespace with
# util-linux unshare, mounts cgroup2 inside it, and checks --sandbox self,
# --sandbox child and a mount from outside the namespace refused.  The
# container tests that use this host (podman, Docker Engine, --sandbox self in
# a v1 cgroup) are container.bats'.

load helpers

@test "cgroup v2 as a container shows it (6.12 guest, unshare --cgroup): self, child, and a mount from outside refused" {
  command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 is not installed (scripts/setup installs it)"
  static="${PAGELAB_STATIC_BUILD:-$TOP/build-static}"
  # Made or brought up to date as pagelab vm does it (harness/vm/targets.c):
  # under the build directory's lock, so that a pagelab vm of the other lane
  # never boots a half-linked binary, and with Ninja when it is there.
  mkdir -p "$static"
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  flock "$static/.vm-build.lock" bash -c \
    '{ [ -f "$1/CMakeCache.txt" ] || cmake -S "$2" -B "$1" -DPAGELAB_STATIC=ON "${@:3}"; } && cmake --build "$1" -j2' \
    _ "$static" "$TOP" ${gen[@]+"${gen[@]}"} >"$BATS_TEST_TMPDIR/static-build.log" 2>&1 ||
    { tail -20 "$BATS_TEST_TMPDIR/static-build.log"; false; }
  out="$BATS_TEST_TMPDIR/guest"
  # util-linux's unshare (busybox's has no --cgroup), under a name no busybox applet has
  cp "$(command -v unshare)" "$BATS_TEST_TMPDIR/ul-unshare"
  run "$TOP/guest/vm-run" --kernel 6.12 --build "$static" --timeout 600 --out "$out" \
    --bin "$BATS_TEST_TMPDIR/ul-unshare" \
    --file "$TOP/scenarios/madv-free/three-paths.scn:/scn/three-paths.scn" \
    --file "$TOP/tests/bats/guest/container-v2.sh:/container-v2.sh" -- /bin/sh /container-v2.sh
  [ "$status" -eq 0 ] || { echo "$output"; cat "$out/stdout" "$out/stderr" 2>/dev/null; false; }
  cat "$out/stdout"
  ! grep -q '^FAIL' "$out/stdout"
  [ "$(grep -c '^PASS' "$out/stdout")" -eq 9 ]
}
