#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The container CI removes the cgroups its engine made, never the machine's:
# not this shell's own memory cgroup nor any group above it, whatever a
# book-keeping file in a shared cache says (scripts/container-ci:
# is_own_or_above, clean_cgroups; scripts/lib.sh: lab_own_cgroup_in).

load helpers

setup() {
  # shellcheck source=../../scripts/lib.sh
  . "$TOP/scripts/lib.sh"
  eval "$(sed -n '/^is_own_or_above()/,/^}/p' "$TOP/scripts/container-ci")"
  lab_own_memcg || skip "no memory cgroup found for this shell"
  MNT=${LAB_MEMCG_DIR%"$LAB_MEMCG_REL"}
}

@test "ci-safety: this shell's own cgroup and every group above it are protected in its hierarchy" {
  [ "$(lab_own_cgroup_in "$MNT")" = "$LAB_MEMCG_REL" ]
  is_own_or_above "$MNT" "$LAB_MEMCG_DIR"
  p=$LAB_MEMCG_REL
  while [ -n "$p" ]; do
    is_own_or_above "$MNT" "$MNT$p"
    p=${p%/*}
  done
  is_own_or_above "$MNT" "$MNT"
}

@test "ci-safety: a group below this shell's own is not protected (the check can fail)" {
  ! is_own_or_above "$MNT" "$LAB_MEMCG_DIR/container-ci"
  ! is_own_or_above "$MNT" "$LAB_MEMCG_DIR/container-ci/libpod-x"
  # a sibling whose name starts like ours is not ours either
  ! is_own_or_above "$MNT" "${LAB_MEMCG_DIR}x"
}
