#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# `pagelab report`: the article's tables with this host's column beside the
# article's figures (results/reference/madv-free.json), in markdown, CSV and
# JSON, from result documents made here by real runs.

load helpers

setup_file() {
  [ "$(id -u)" = 0 ] && "$PAGELAB" check >/dev/null 2>&1 || return 0
  "$PAGELAB" run madv-free/probe --repeat 2 --no-report --out "$RESULTS/report-probe.json" 2>/dev/null
  "$PAGELAB" run madv-free/three-paths --repeat 1 --no-report --out "$RESULTS/report-three.json" 2>/dev/null
  # A user's scenario outside the tree (tests/scenarios/report-table.scn,
  # copied alone): `pagelab run` prints its report, the generic one.
  export USERDIR="$BATS_FILE_TMPDIR/user"
  mkdir -p "$USERDIR"
  cp "$TOP/tests/scenarios/report-table.scn" "$USERDIR/"
  "$PAGELAB" run "$USERDIR/report-table.scn" --out "$RESULTS/report-user.json" >"$RESULTS/report-user.out" 2>/dev/null
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
  # The probe table, and how it was measured (printed last: "measured").
  jq -e '.tables | length == 2 and (.[1].id == "measured" and .[1].measured)' <<<"$output"
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

# The user's result as a JSON report (pagelab.report/1).
user_report() {
  "$PAGELAB" report --format json "$@" "$RESULTS/report-user.json"
}

@test "a scenario written outside the tree gets the generic report: outcome, steps, summaries" {
  [ -f "$RESULTS/report-user.json" ] || skip "the user's run did not happen"
  rm -f "$USERDIR/report-table.tables.json"
  # pagelab run printed it: no table named, none beside the scenario
  grep -q '(`generic-outcome`)' "$RESULTS/report-user.out"
  run "$PAGELAB" report "$RESULTS/report-user.json"
  assert_success
  assert_output --partial '## 1. Outcome — test/report-table (`generic-outcome`)'
  assert_output --partial '## 2. Workload steps — test/report-table (`generic-steps`)'
  assert_output --partial '## 3. Run summary — test/report-table (`generic-summary`)'
  # one column per variant, within the kernel's
  assert_output --regexp '\| Step \| Figure \| [^|]+ · advice=free \(2 runs\) \| [^|]+ · advice=dontneed \(2 runs\) \|'
  assert_output --regexp 'Main workload \| Outcome \| survived 2/2 \| survived 2/2 \|'
  # MADV_FREE: LazyFree ~ the region; DONTNEED: nothing resident at once
  assert_output --regexp 'region: advise \| LazyFree \| 65,[0-9]{3} kB( \(65,[0-9]{3}–65,[0-9]{3}\))? \| 0 kB \|'
  assert_output --regexp 'region: advise \| Resident \(mincore\) \| 16,384 pages \| 0 pages \|'
  refute_output --partial 'article:'
  run user_report
  assert_success
  jq -e '[.tables[].id] == ["generic-outcome", "generic-steps", "generic-summary", "measured"]
         and all(.tables[] | select(.measured | not); .generic and .scenario == "test/report-table" and .article_column == null
                 and ([.columns[].variant] == ["advice=free", "advice=dontneed"]))
         and .reference == null' <<<"$output"
  # every step, with each repeat's value behind the cell
  # the whole region LazyFree but the folios still in a per-CPU batch (31
  # pages each, mm/swap.c: folio_mark_lazyfree; the workload may have moved
  # between CPUs during the call, leaving one part-filled batch on each)
  jq -e --argjson low "$((65536 - $(nproc) * 31 * 4))" \
    '.tables[1].rows | map(select(.row == "region: advise" and .figure == "LazyFree"))[0]
     | (.cells[0].values | length == 2) and .cells[0].min >= $low and .cells[0].max <= 65536 and .cells[1].max == 0' <<<"$output"
  jq -e '[.tables[1].rows[].row] | unique == ["region: advise", "region: fill", "region: mincore", "region: pressure", "region: scan"]' <<<"$output"
  jq -e '.tables[1].rows | map(select(.row == "region: advise" and .figure == "Rss (smaps_rollup)"))[0]
         | .cells[1].max < 4096' <<<"$output"
  # the sandbox hit its limit under pressure: peak = memory_max (160 MiB)
  jq -e '.tables[2].rows | map(select(.figure | startswith("Peak usage")))[0] | .cells[0].median == 163840' <<<"$output"
  # every populated zone against its lines, node 0 Normal included — the
  # run's lowest free against min and low with its drift bound too
  jq -e '.tables[2].rows | map(select(.row == "node 0 Normal")) | map(.figure)
         == ["lowest free (sampled)", "lowest free, whole run, against min (± drift)",
             "lowest free, whole run, against low (± drift)", "min line", "low line", "high line"]' <<<"$output"
  jq -e '.tables[2].rows | map(select(.row == "node 0 Normal" and (.figure | startswith("lowest free, whole run"))))
         | all(.cells[0].text | test("^(unresolved: )?[0-9,]+ ± [0-9,]+ pages (above|under) (min|low)"))' <<<"$output"
  jq -e '.tables[2].rows | map(select(.row == "node 0 Normal" and .figure == "min line"))[0]
         | .cells[0].median > 0' <<<"$output"
  run "$PAGELAB" report --format csv "$RESULTS/report-user.json"
  assert_success
  refute_output --regexp '^[^,]*,[^,]*,[^,]*,article,'
}

@test "the same scenario declares its own table in a data file beside it, without rebuilding" {
  [ -f "$RESULTS/report-user.json" ] || skip "the user's run did not happen"
  cp "$TOP/tests/scenarios/report-table.tables.json" "$USERDIR/"
  run "$PAGELAB" report "$RESULTS/report-user.json"
  rm -f "$USERDIR/report-table.tables.json"
  assert_success
  assert_output --partial '## 1. MADV_FREE vs MADV_DONTNEED of 64 MiB under 128 MiB of pressure (`lazy-pressure`)'
  refute_output --partial 'generic-'
  assert_output --regexp '\| Advice \| Figure \| [^|]+ \(4 runs\) \| expected \|'
  assert_output --regexp 'MADV_FREE · After advise \| Region LazyFree \| 65,[0-9]{3} kB( \(65,[0-9]{3}–65,[0-9]{3}\))? \| 65,536 kB \|'
  assert_output --regexp 'MADV_FREE · Outcome \| The region.s workload \| survived 2/2 \|'
  cp "$TOP/tests/scenarios/report-table.tables.json" "$USERDIR/"
  run user_report
  rm -f "$USERDIR/report-table.tables.json"
  assert_success
  t='.tables[0].rows'
  jq -e "[.tables[].id] == [\"lazy-pressure\", \"measured\"]" <<<"$output"
  jq -e --argjson low "$((65536 - $(nproc) * 31 * 4))" \
    "$t | map(select(.row == \"MADV_FREE · After advise\" and .figure == \"Region LazyFree\"))[0].cells[0] | .min >= \$low and .max <= 65536" <<<"$output"
  # DONTNEED: empty at once, all of it "reclaimed"; FREE: memory.current did not move
  jq -e "$t | map(select(.row == \"MADV_DONTNEED · After advise\" and .figure == \"Region LazyFree\"))[0].cells[0].max == 0" <<<"$output"
  jq -e "$t | map(select(.row == \"MADV_DONTNEED · After pressure\" and .figure == \"Reclaimed\"))[0].cells[0].median == 64" <<<"$output"
  jq -e "$t | map(select(.row == \"MADV_FREE · After advise\" and (.figure | startswith(\"memory.current moved\"))))[0].cells[0]
         | .min >= -1 and .max <= 0" <<<"$output"
  # pressure took some of the lazily freed region, not all of it, and the
  # two rows agree run by run: reclaimed MiB = (region pages - resident) / 256
  jq -e "$t | (map(select(.row == \"MADV_FREE · After pressure\" and .figure == \"Reclaimed\"))[0].cells[0].values) as \$mib
         | (map(select(.row == \"MADV_FREE · After pressure\" and (.figure | endswith(\"run by run\"))))[0].cells[0].values) as \$res
         | (\$mib | length) == 2 and all(range(2); \$mib[.] > 0 and \$mib[.] < 64 and \$mib[.] == (((16384 - \$res[.]) / 256) | floor))" <<<"$output"
  # the "min" aggregate is the fewest of the per-run values
  jq -e "$t | (map(select(.row == \"MADV_FREE · After pressure\" and (.figure | endswith(\"run by run\"))))[0].cells[0].values | min) as \$m
         | map(select(.row == \"MADV_FREE · After pressure\" and (.figure | endswith(\"the fewest\"))))[0].cells[0]
         | .min == \$m and (.text | test(\"^[0-9,]+ pages$\")) and (.text | gsub(\"[^0-9]\"; \"\") | tonumber) == \$m" <<<"$output"
}

@test "a table file is checked whole: a bad row is one line naming file, table and row (exit 2); --tables takes one from anywhere" {
  [ -f "$RESULTS/report-user.json" ] || skip "the user's run did not happen"
  jq '.tables[0].rows[1].paht = .tables[0].rows[1].path' "$TOP/tests/scenarios/report-table.tables.json" \
    > "$USERDIR/report-table.tables.json"
  run "$PAGELAB" report "$RESULTS/report-user.json"
  assert_failure 2
  assert_output --partial "report-table.tables.json: table 'lazy-pressure', row 2: unknown key 'paht'"
  jq '.tables[0].rows[3].get = "reclaimed_gib"' "$TOP/tests/scenarios/report-table.tables.json" \
    > "$USERDIR/report-table.tables.json"
  run "$PAGELAB" report "$RESULTS/report-user.json"
  assert_failure 2
  assert_output --partial "row 4: 'get': no derived quantity 'reclaimed_gib' (get: reclaimed_mib"
  rm -f "$USERDIR/report-table.tables.json"
  run "$PAGELAB" report --tables "$TOP/tests/scenarios/report-table.tables.json" "$RESULTS/report-user.json"
  assert_success
  assert_output --partial '(`lazy-pressure`)'
  refute_output --partial 'generic-'
}
