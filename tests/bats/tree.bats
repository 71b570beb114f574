#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
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

# STYLE: no function over ~120 lines without a reason in its comment.  The rule
# (tests/tools/funclen --help, docs/design.md "Long functions"): a body of more
# than 120 lines needs "long: REASON" in the comment just above the function.
# Each offender is printed with its length, longest first.
@test "tree: no C function over 120 lines without a reason (tests/tools/funclen)" {
  run "$TOP/tests/tools/funclen"
  echo "$output"
  assert_success
  assert_output --partial "no function over 120 lines without a reason"
}

@test "tree: funclen finds a planted long function and takes one that says why (the check can fail)" {
  local d="$BATS_TEST_TMPDIR/funclen" i
  mkdir -p "$d"
  {
    printf '/* A short one. */\nstatic int short_one(void)\n{\n\treturn 0;\n}\n\n'
    printf 'static int too_long(int a,\n\t\t    int b)\n{\n'
    for i in $(seq 1 130); do printf '\ta += b;\n'; done
    printf '\treturn a;\n}\n\n'
    printf '/* Every case in one place; long: one case per step kind,\n * each a few lines. */\nstatic int long_with_reason(int a)\n{\n'
    for i in $(seq 1 130); do printf '\ta++;\n'; done
    printf '\treturn a;\n}\n\n'
    printf '/* long: */\nstatic int reason_empty(int a)\n{\n'
    for i in $(seq 1 121); do printf '\ta++;\n'; done
    printf '\treturn a;\n}\n'
  } >"$d/x.c"
  run "$TOP/tests/tools/funclen" --root "$d" "$d/x.c"
  echo "$output"
  assert_failure 1
  assert_output --partial "x.c:7: too_long: 133 lines (limit 120)"
  assert_output --partial "reason_empty: 124 lines (limit 120)"
  refute_output --partial "long_with_reason"
  refute_output --partial "short_one"
  assert_output --partial "2 function(s) over 120 lines without a reason"
  run "$TOP/tests/tools/funclen" --root "$d" -v --max 200 "$d/x.c"
  assert_success
}
