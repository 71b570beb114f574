#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's own rules (DESIGN.md, "The shape"): the arrows between folders run
# one way, checked on the includes and on the built libraries' symbols
# (tests/tools/layers); every source file carries its licence.

load helpers

@test "tree: every include and every call between folders runs down the pipeline" {
  run "$TOP/tests/tools/layers" --build "$BUILD"
  echo "$output"
  assert_success
  assert_output --partial "every arrow runs down"
}

@test "tree: layers finds a planted upward include (the check can fail)" {
  local d="$BATS_TEST_TMPDIR/tree"
  mkdir -p "$d/base" "$d/harness/cmd" "$d/tests/tools"
  cp "$TOP/tests/tools/layers" "$d/tests/tools/"
  printf '#include "cmd/exitcode.h"\n' >"$d/base/up.c"
  printf '/* */\n' >"$d/harness/cmd/exitcode.h"
  run "$d/tests/tools/layers"
  assert_failure
  assert_output --partial "base/up.c: includes harness/cmd/exitcode.h (base must not reach up into cmd)"
}

@test "tree: every source file names its licence (GPL-2.0-or-later), and LICENSE is its text" {
  cd "$TOP"
  local missing
  missing=$(git ls-files -- '*.c' '*.h' '*.go' '*.bats' '*.bash' '*.sh' '*CMakeLists.txt' '*.cmake' \
              scripts guest containers .ci | grep -v -e '^tests/fixtures/' -e '^tests/golden/' -e '^tests/bad-input/' \
              -e '^tests/fuzz/corpus/' -e '^tests/fuzz/regress/' -e '\.md$' -e '\.json$' -e '\.scn$' |
            sort -u | while read -r f; do [ -f "$f" ] && ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' && echo "$f"; done; true)
  [ -z "$missing" ] || { echo "no SPDX line: $missing"; false; }
  grep -q 'GNU GENERAL PUBLIC LICENSE' LICENSE
  grep -q 'Version 2, June 1991' LICENSE
  grep -q '^License: GPL-2.0+' debian/copyright
}
