#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# The documents: every relative link in every markdown file resolves, headings
# included (tests/tools/linkcheck); docs/README.md indexes every document; the
# README's first commands are the ones CI runs, and the suite's time is kept
# in one place (docs/testing.md), not in the README.  Reads files only.

load helpers

@test "docs: every relative link in every markdown file resolves (files and #headings)" {
  run "$TOP/tests/tools/linkcheck"
  echo "$output"
  assert_success
  assert_output --partial "every relative link resolves"
}

@test "docs: linkcheck finds a planted broken link, a missing heading, and skips code (the check can fail)" {
  local d="$BATS_TEST_TMPDIR/links"
  mkdir -p "$d/docs"
  cat >"$d/docs/a.md" <<'EOF'
# A page

## The tick, met (6.18.44, 2 vCPU)

[fine](b.md) [fine too](#the-tick-met-61844-2-vcpu) [web](https://example.org/x)
[gone](missing.md)
[no such heading](b.md#nowhere)
`[in code](nothere.md)`

```
[in a fence](nothere-either.md)
```
EOF
  printf '# B\n\n[back](a.md#a-page)\n' >"$d/docs/b.md"
  run "$TOP/tests/tools/linkcheck" --root "$d" "$d/docs/a.md" "$d/docs/b.md"
  echo "$output"
  assert_failure 1
  assert_output --partial "docs/a.md:6: missing.md: no such file"
  assert_output --partial "docs/a.md:7: b.md#nowhere: no heading #nowhere in docs/b.md"
  refute_output --partial "nothere"
  refute_output --partial "example.org"
  assert_output --partial "2 broken link(s)"
}

@test "docs: docs/README.md links every document of the tree" {
  cd "$TOP"
  local f missing=()
  while IFS= read -r f; do
    case $f in
    docs/README.md | results/recorded/* | tests/golden/* | docs/refusals-*.md) continue ;;
    esac
    [ -f "$f" ] || continue
    # The index links each by its path relative to docs/.
    grep -qF "]($(realpath --relative-to=docs "$f"))" docs/README.md || missing+=("$f")
  done < <(git ls-files --cached --others --exclude-standard -- '*.md')
  [ ${#missing[@]} -eq 0 ] || { printf 'not in docs/README.md: %s\n' "${missing[@]}"; false; }
}

@test "docs: the README starts with the two commands, and CI runs exactly its test command" {
  cd "$TOP"
  # The first code block of the README: setup and a real scenario, then the suite.
  block=$(awk '/^```/ { n++; next } n == 1' README.md)
  [ "$(sed -n 1p <<<"$block" | awk '{ print $1, $2, $3, $4, $5 }')" = "scripts/setup && build/pagelab run madv-free/three-paths" ]
  [ "$(sed -n 2p <<<"$block" | awk '{ print $1 }')" = "scripts/test" ]
  [ "$(wc -l <<<"$block")" -eq 2 ]
  # .ci/run ends by running that command from the top of the tree.
  [ "$(tail -1 .ci/run)" = 'cd "$(dirname "$0")/.." && exec scripts/test' ]
}

@test "docs: the suite's time is in docs/testing.md only, not in the README" {
  cd "$TOP"
  run grep -nE '[0-9]+ min [0-9]+ s|[0-9]+ passed, [0-9]+ failed' README.md
  assert_failure
  grep -qE 'the whole suite took [0-9]+ min [0-9]+ s' docs/testing.md
}
