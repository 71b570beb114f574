#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# containers/fleet/audit-table: the fleet's `pagelab audit --json` documents,
# one column per host, in markdown.  The documents come from the fleet's
# hosts, so they are data: one document per file or the file is refused, and
# every string is escaped as pagelab's own markdown is (harness/cmd/cli.md,
# "What a document's strings become").  The documents are this host's own
# audit (reads only), some with strings planted.  About 2 s alone; 20 s in
# scripts/test beside the guest lane (a pagelab audit --json in each setup).

load helpers

setup() {
  command -v jq >/dev/null || skip "jq is not installed (scripts/setup installs it)"
  TABLE="$BATS_TEST_DIRNAME/../../containers/fleet/audit-table"
  D="$BATS_TEST_TMPDIR/results"
  mkdir -p "$D/fleet-1" "$D/fleet-2"
  "$PAGELAB" audit --json >"$D/fleet-1/audit.json"
  cp "$D/fleet-1/audit.json" "$D/fleet-2/audit.json"
}

# cells LINE: the number of cell separators (pipes not escaped by a backslash)
cells() {
  printf '%s' "$1" | sed 's/\\\\//g; s/\\|//g' | tr -cd '|' | wc -c
}

@test "fleet table: one column per host, this host's own audit in each" {
  run "$TABLE" "$D"/*/audit.json
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "| | fleet-1 | fleet-2 |" ]
  mf=$(jq -r .min_free_kbytes.value_kb "$D/fleet-1/audit.json")
  [ "$(printf '%s\n' "${lines[@]}" | grep '^| min_free_kbytes |')" = "| min_free_kbytes | $mf | $mf |" ]
  # one managed-pages row and one watermark row per zone of the document
  nz=$(jq '.zones | length' "$D/fleet-1/audit.json")
  [ "$(printf '%s\n' "${lines[@]}" | grep -c ': managed pages |')" -eq "$nz" ]
  for l in "${lines[@]}"; do [ "$(cells "$l")" -eq 4 ]; done
}

@test "fleet table: a fleet host's strings stay data (one cell each, no HTML, no link, no control)" {
  jq '.kernel = "6.1 | x\n<script>alert(1)</script> [l](http://e) \u001b[31mred \u202eevil\\"
      | .min_free_kbytes.set_by = "a\tb|c]" | .zones[0].zone = "DMA|<b>"' \
    "$D/fleet-2/audit.json" >"$BATS_TEST_TMPDIR/x" && mv "$BATS_TEST_TMPDIR/x" "$D/fleet-2/audit.json"
  mkdir "$D/h|<i>"
  cp "$D/fleet-1/audit.json" "$D/h|<i>/audit.json"
  run "$TABLE" "$D"/*/audit.json
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = '| | fleet-1 | fleet-2 | h\|\<i> |' ]
  for l in "${lines[@]}"; do [ "$(cells "$l")" -eq 5 ]; done
  k=$(printf '%s\n' "${lines[@]}" | grep '^| kernel |')
  [[ "$k" == *'6.1 \| x \<script>alert(1)\</script> [l\](http://e) \x1B[31mred \xE2\x80\xAEevil\\ |'* ]]
  [[ "$(printf '%s\n' "${lines[@]}" | grep '^| … set by |')" == *'| a b\|c\] |'* ]]
  # the planted zone gets rows of its own, its name escaped
  printf '%s\n' "${lines[@]}" | grep -qF '| DMA\|\<b>: managed pages | — |'
  # no escape byte, and every '<' before a letter or '/' escaped
  [ -z "$(printf '%s' "$output" | grep $'\e')" ]
  [ -z "$(printf '%s' "$output" | grep -E '(^|[^\\])<[A-Za-z/]')" ]
}

@test "fleet table: a file that is not one audit document is refused, naming it and why (exit 2)" {
  cat "$D/fleet-1/audit.json" "$D/fleet-1/audit.json" >"$D/fleet-2/audit.json"
  run "$TABLE" "$D"/*/audit.json
  [ "$status" -eq 2 ]
  [ "$output" = "audit-table: $D/fleet-2/audit.json holds 2 JSON documents, not one: not a pagelab audit --json document" ]
  echo '{"min_free_kbytes":{"value_kb":1},"zones":null}' >"$D/fleet-2/audit.json"
  run "$TABLE" "$D"/*/audit.json
  [ "$status" -eq 2 ]
  [[ "$output" == *"fleet-2/audit.json has no array in .zones: "* ]]
  : >"$D/fleet-2/audit.json"
  run "$TABLE" "$D"/*/audit.json
  [ "$status" -eq 2 ]
  [[ "$output" == *"fleet-2/audit.json holds 0 JSON documents, not one: "* ]]
  echo '{"a":' >"$D/fleet-2/audit.json"
  run "$TABLE" "$D"/*/audit.json
  [ "$status" -eq 2 ]
  [[ "$output" == *"fleet-2/audit.json is not JSON: "* ]]
  run "$TABLE" "$D/fleet-3/audit.json"
  [ "$status" -eq 2 ]
  [[ "$output" == *"cannot read $D/fleet-3/audit.json: not a readable regular file" ]]
}
