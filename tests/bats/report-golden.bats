#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# The article tables are data (results/reference/tables/*.json): they must
# print byte for byte what the compiled-in tables printed.  The inputs are
# real result documents (tests/golden/report/inputs: madv-free scenarios on
# this host, 6.18 cgroup v1; the watermark and min_free_kbytes scenarios and
# memory.reclaim in a 6.12 guest, cgroup v2); expected/ is what `pagelab
# report` printed for them before the tables moved to data.  Needs no root.

load helpers

GOLDEN="$TOP/tests/golden/report"

setup_file() {
  mkdir -p "$BATS_FILE_TMPDIR/golden/inputs"
  for f in "$GOLDEN"/inputs/*.json.gz; do
    gzip -dc "$f" > "$BATS_FILE_TMPDIR/golden/inputs/$(basename "${f%.gz}")"
  done
  ln -sfn "$TOP/results" "$BATS_FILE_TMPDIR/golden/results"
}

# golden FORMAT EXT: every case in that format; prints each difference.
golden() {
  local fmt=$1 ext=$2 name args bad=0 n=0
  cd "$BATS_FILE_TMPDIR/golden"
  while IFS=: read -r name args; do
    case $name in '#'* | '') continue ;; esac
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$PAGELAB" report --format "$fmt" $args > "out-$name.$ext" 2> "err-$name" ||
      { echo "$name: exit $?: $(cat "err-$name")"; bad=1; continue; }
    cmp -s "out-$name.$ext" "$GOLDEN/expected/$name.$ext" ||
      { echo "$name.$ext differs:"; diff "$GOLDEN/expected/$name.$ext" "out-$name.$ext" | head -20; bad=1; }
  done < "$GOLDEN/cases"
  [ "$n" -ge 8 ] || { echo "only $n cases"; bad=1; }
  return $bad
}

@test "golden: markdown of the 21 article tables unchanged" {
  golden markdown md
}

@test "golden: csv unchanged" {
  golden csv csv
}

@test "golden: json unchanged" {
  golden json json
}

@test "golden: the inputs are real runs of the scenarios their tables name" {
  for f in "$BATS_FILE_TMPDIR"/golden/inputs/*.json; do
    jq -e '.schema == "pagelab.result/1" and .status == "ok" and (.runs | length) >= 1
           and ((.scenario.report | length) >= 1 or .scenario.name == "test/report-table")
           and (.runs[0].samples | length) >= 2' "$f" >/dev/null ||
      { echo "$f"; return 1; }
  done
  # every article table appears in some expected markdown
  for id in $(jq -r '.tables[].id' "$TOP"/results/reference/tables/{madv-free,watermarks,min-free}.json); do
    grep -q "(\`$id\`)" "$GOLDEN"/expected/*.md || echo "no golden case for table $id" >&3
  done
}

# bad_table NAME JSON MESSAGE: --tables FILE with that content is exit 2 naming it.
bad_table() {
  printf '%s\n' "$2" > "$BATS_TEST_TMPDIR/$1.tables.json"
  run "$PAGELAB" report --tables "$BATS_TEST_TMPDIR/$1.tables.json" inputs/probe.json
  assert_failure 2
  assert_output --partial "$1.tables.json"
  assert_output --partial "$3"
  [ "${#lines[@]}" = 1 ]
}

@test "a tables file is refused whole, in one line naming file, table and row (exit 2)" {
  cd "$BATS_FILE_TMPDIR/golden"
  local t='"schema": "pagelab.tables/1", "tables": [{"id": "t", "name": "n", "compare": "c", "rows": '
  bad_table notjson '{"schema": ' "not JSON"
  bad_table schema '{"schema": "pagelab.result/1", "tables": []}' "not a pagelab.tables/1 document"
  bad_table notables '{"schema": "pagelab.tables/1"}' "'tables' must be a list"
  bad_table noid '{"schema": "pagelab.tables/1", "tables": [{"name": "n"}]}' "a table needs an 'id'"
  bad_table nofig "{$t [{\"path\": \"x\"}]}]}" "table 't', row 1: 'figure' (the figure's name) is required"
  bad_table agg "{$t [{\"figure\": \"f\", \"path\": \"x\", \"aggregate\": \"mean\"}]}]}" "row 1: 'aggregate': unknown value 'mean'"
  bad_table use "{$t [{\"figure\": \"f\", \"path\": \"x\"}, {\"use\": \"nope\"}]}]}" "row 2: 'use': the file's \"rows\" has no row 'nope'"
  bad_table text "{$t [{\"figure\": \"f\", \"aggregate\": \"text\"}]}]}" "aggregate 'text' needs a 'text' function"
  bad_table twice "{$t [{\"figure\": \"f\", \"path\": \"x\"}]}, {\"id\": \"t\", \"name\": \"n\", \"compare\": \"c\", \"rows\": [{\"figure\": \"f\", \"path\": \"x\"}]}]}" "a second table with this id"
  mknod "$BATS_TEST_TMPDIR/dev.tables.json" c 1 3
  run "$PAGELAB" report --tables "$BATS_TEST_TMPDIR/dev.tables.json" inputs/probe.json
  assert_failure 2
  rm -f "$BATS_TEST_TMPDIR/dev.tables.json"
}

@test "a table over real results: each cell keeps every run's value, the aggregates agree with them" {
  cd "$BATS_FILE_TMPDIR/golden"
  cat > "$BATS_TEST_TMPDIR/agg.tables.json" <<'JSON'
{"schema": "pagelab.tables/1", "tables": [{"id": "agg", "name": "aggregates", "compare": "c", "row_head": "Step",
  "rows": [
    {"row": "advise", "figure": "median", "step": "advise", "path": "counters.rollup.lazyfree_kb", "unit": "kB"},
    {"row": "advise", "figure": "runs", "aggregate": "runs", "step": "advise", "path": "counters.rollup.lazyfree_kb"},
    {"row": "advise", "figure": "min", "aggregate": "min", "step": "advise", "path": "counters.rollup.lazyfree_kb"},
    {"row": "advise", "figure": "max", "aggregate": "max", "step": "advise", "path": "counters.rollup.lazyfree_kb"},
    {"row": "advise", "figure": "first", "aggregate": "first", "step": "region:advise", "path": "counters.rollup.lazyfree_kb"},
    {"row": "advise", "figure": "last", "aggregate": "last", "step": "advise#last", "path": "counters.rollup.lazyfree_kb"},
    {"row": "samples", "figure": "usage max", "samples": "max", "path": "memcg.usage_bytes"},
    {"row": "samples", "figure": "usage delta", "samples": "delta", "path": "memcg.usage_bytes"},
    {"row": "series", "figure": "reading {n}", "each": {"step": "series", "path": "counters.series_kb"},
     "step": "series", "path": "counters.series_kb[{i}]"},
    {"row": "none", "figure": "absent", "path": "no.such.key", "optional": true},
    {"row": "none", "figure": "absent, kept", "path": "no.such.key"}
  ]}]}
JSON
  run "$PAGELAB" report --format json --tables "$BATS_TEST_TMPDIR/agg.tables.json" inputs/probe.json
  assert_success
  r='.tables | map(select(.id == "agg"))[0].rows'
  # two repeats: two values per cell; min/max/median over them
  jq -e "$r | map(select(.row == \"advise\")) | all(.cells[0].values | length == 2)" <<<"$output"
  jq -e "$r | map(select(.row == \"advise\")) | (.[0].cells[0].values) as \$v
         | .[0].cells[0].median == (\$v | add / 2) and
           (map(select(.figure == \"min\"))[0].cells[0].text | gsub(\"[^0-9]\"; \"\") | tonumber) == (\$v | min) and
           (map(select(.figure == \"max\"))[0].cells[0].text | gsub(\"[^0-9]\"; \"\") | tonumber) == (\$v | max) and
           (map(select(.figure == \"first\"))[0].cells[0].text | gsub(\"[^0-9]\"; \"\") | tonumber) == \$v[0] and
           (map(select(.figure == \"last\"))[0].cells[0].text | gsub(\"[^0-9]\"; \"\") | tonumber) == \$v[1]" <<<"$output"
  # the sampled usage: delta = last - first sample (the end reads ~0 after the workload left)
  jq -e "$r | map(select(.figure == \"usage max\"))[0].cells[0].min > 60000000" <<<"$output"
  jq -e "$r | map(select(.figure == \"usage delta\"))[0].cells[0].values | length == 2" <<<"$output"
  # one row per reading of the longest series (probe: 11)
  jq -e "$r | map(select(.row == \"series\")) | length == 11 and .[10].figure == \"reading 11\"" <<<"$output"
  # no data: an optional row is left out, another prints "—" with no values
  jq -e "$r | map(select(.row == \"none\")) | length == 1 and .[0].cells[0].text == \"—\" and (.[0].cells[0] | has(\"values\") | not)" <<<"$output"
  # a table from --tables has no article column; the article's own still does
  jq -e '.tables | map(select(.id == "agg"))[0] | .article_column == null and all(.rows[]; .article == null)' <<<"$output"
  jq -e '.tables | map(select(.id == "probe"))[0].article_column | startswith("article: ")' <<<"$output"
}
