#!/usr/bin/env bats
# `pagelab report`: the article's tables with this host's column beside the
# article's figures (results/reference/madv-free.json), in markdown, CSV and
# JSON, from result documents made here by real runs.

load helpers

setup_file() {
  [ "$(id -u)" = 0 ] && "$PAGELAB" check >/dev/null 2>&1 || return 0
  "$PAGELAB" run madv-free/probe --repeat 2 --no-report --out "$RESULTS/report-probe.json" 2>/dev/null
  "$PAGELAB" run madv-free/three-paths --repeat 1 --no-report --out "$RESULTS/report-three.json" 2>/dev/null
}

setup() {
  require_memcg
  [ -f "$RESULTS/report-probe.json" ] && [ -f "$RESULTS/report-three.json" ] || skip "the runs for the report did not happen"
}

@test "markdown: both tables, this kernel's column beside the article's" {
  run "$PAGELAB" report "$RESULTS/report-probe.json" "$RESULTS/report-three.json"
  assert_success
  assert_output --partial "## 1. "
  assert_output --partial "## 9. "
  assert_output --partial "$(uname -r) · cgroup"
  assert_output --partial "article: 6.10.14-linuxkit"
  # The article's published figures appear as it printed them.
  assert_output --partial "65,536 kB"
  assert_output --partial "131,071 pages zeroed"
  # This host's DONTNEED run: every page but the written one is zero.
  assert_output --regexp 'Pages read back as zero \| 131,071 pages zeroed \| 131,071 pages zeroed'
  # The drained probe's row is there, within one lazyfree batch of the region.
  assert_output --regexp 'After a drain of the per-CPU batches \| LazyFree, median of the series \| 65,(4[2-9][0-9]|5[0-3][0-9]) kB'
}

@test "the OOM-killed path is reported as such, with the count of runs" {
  run "$PAGELAB" report "$RESULTS/report-three.json"
  assert_success
  assert_output --regexp 'no call at all · Under pressure \| Outcome \| OOM-kill \(137\) \| OOM-kill \(137\) \|'
  assert_output --regexp 'MADV_FREE · Under pressure \| Outcome \| survived \|'
}

@test "csv: one row per figure and column, the article included" {
  run "$PAGELAB" report --format csv "$RESULTS/report-probe.json"
  assert_success
  [ "$(head -1 <<<"$output")" = "table,row,figure,column,kernel,cgroup,unit,runs,median,min,max,with_value,values,text" ]
  grep -q '^probe,.*,article,6.10.14-linuxkit,v2,kB,' <<<"$output"
  grep -q "^probe,.*,$(uname -r)," <<<"$output"
}

@test "json: a document whose probe table holds this host's column and the article's" {
  run "$PAGELAB" report --format json "$RESULTS/report-probe.json"
  assert_success
  jq -e '.tables | length == 1' <<<"$output"
  jq -e --arg k "$(uname -r)" '.tables[0].columns[0].kernel == $k and .tables[0].columns[0].runs == 2' <<<"$output"
  jq -e '.tables[0].rows[0].article.value == 65536' <<<"$output"
  jq -e '.tables[0].rows[0].cells[0].values | length == 2' <<<"$output"
}

@test "bad input: a missing file, a document that is not a result, a bad format" {
  run "$PAGELAB" report "$RESULTS/does-not-exist.json"
  assert_failure 2
  echo '{"schema":"something/else"}' > "$BATS_TEST_TMPDIR/other.json"
  run "$PAGELAB" report "$BATS_TEST_TMPDIR/other.json"
  assert_failure 2
  assert_output --partial "not a pagelab.result/1 document"
  run "$PAGELAB" report --format yaml "$RESULTS/report-probe.json"
  assert_failure 2
}
