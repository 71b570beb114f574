#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# A result document is untrusted (issue 19, item 1): every string in it is
# data wherever it goes — a gnuplot script, a markdown or CSV report, an HTML
# page, a terminal.  The documents here are real results (the golden inputs:
# run five's two OOM victims on a 6.12 guest, kswapd runs with a traced event
# timeline, three-paths with variants on this host's 6.18) with, planted in
# every string a writer reads, commands for every interpreter on the way:
#   gnuplot      a newline, then `!touch X` and `system "touch X"`; a quote to
#                leave a '...' string; backticks (gnuplot substitutes them
#                outside quotes)
#   the shell    $(touch X) and `touch X`
#   a terminal   ESC sequences (colour, OSC title), BEL, CR
#   markdown     | < ] \ and newlines (a table cell, a link, raw HTML)
#   HTML         </td><script>
#   the reader   a right-to-left override and isolate (U+202E, U+2066): text
#                after them shows reordered ("Trojan Source")
# — host kernel and hostname, scenario name, title and expect, run labels,
# variant keys and values, steps and workloads, OOM victims, event names and
# comm, table ids and labels (--tables), the reference's article (--reference),
# and the file's own name.  plot, report (markdown, csv), report --plots,
# report --html and compare (both forms) run in a private directory, as cwd.
# Expected: every command draws or prints (exit 0: a document with such
# strings is still data), no marker file appears anywhere under the private
# directory, no .gp line starts with ! or system (after blanks), the page has
# no raw <script, nothing printed holds a control character but newline, and
# nothing printed or written (the charts, their scripts and data, the page)
# holds a bidirectional control.

load helpers

setup_file() {
  command -v jq >/dev/null || return 0
  W=$(mktemp -d "${BATS_FILE_TMPDIR}/hostile.XXXXXX")
  export W
  mkdir "$W/m"
  # The payload: the markers it would make are absolute (gnuplot runs in the
  # chart directory, the shell wherever it was).
  P=$'\'"\n!touch '"$W"$'/m/gp-bang\nsystem "touch '"$W"$'/m/gp-system"\n `touch '"$W"$'/m/backtick`$(touch '"$W"$'/m/dollar)\e[31mred\e]0;owned\a\r|cell]link<b>\\slash</td><script>alert(1)</script>\xe2\x80\xaeevil\xe2\x81\xa6\n# '
  export P
  local g="$TOP/tests/golden/report/inputs"
  gzip -dc "$g/run-five-6.12.json.gz" >"$W/run-five.json"
  gzip -dc "$g/three-paths.json.gz" >"$W/three-paths.json"
  gzip -dc "$TOP/tests/fixtures/results/kswapd-runs-C-6.12-trace.json.gz" >"$W/trace.json"
  # Every string but the schema, and the variants' keys: the documents feed
  # the generic report then (their step names changed too).
  for d in run-five three-paths trace; do
    jq --arg p "$P" '
      def plant: walk(if type == "string" then . + $p else . end);
      (.schema) as $s | plant | .schema = $s |
      .runs[] |= (.variant |= ((. // {}) | with_entries(.key += $p)))' "$W/$d.json" >"$W/all-$d.json"
  done
  # Targeted: the article tables still take these (scenario.report, step and
  # workload names kept), so the strings reach their cells: the kernel (a
  # column), the hostname, labels, variant values, victims, events' comm.
  jq --arg p "$P" '
    .host.kernel += $p | .host.hostname = ("host" + $p) | .host.cgroup.memory += $p |
    .scenario.title += $p | .scenario.expect = ("e" + $p) |
    .runs[] |= (.label += $p | (.variant[]? |= (. + $p)) |
                (.exit.workloads[]?.name |= (. + $p)) | (.exit.victims[]? |= (. + $p)) |
                (.exit.outcome |= (. + $p)))' "$W/run-five.json" >"$W/t-run-five.json"
  jq --arg p "$P" '
    .host.kernel += $p | .host.hostname = ("other" + $p) |
    .runs[] |= (.label += $p | (.variant[]? |= (. + $p)) |
                (.events[]? |= (if .task_comm then .task_comm += $p else . end | if .comm then .comm += $p else . end)))' \
    "$W/trace.json" >"$W/t-trace.json"
  # The file's own name (no slash can be in it; the markers are relative: the
  # shell's cwd is $W).
  NAME=$'doc\n!touch MARK-name\n`touch MARK-name`$(touch MARK-name)\e[2J\e]0;x\a<td><script>x.json'
  export NAME
  cp "$W/t-run-five.json" "$W/$NAME"
  # A tables file every result feeds (--tables), its labels hostile.
  jq -n --arg p "$P" '{schema: "pagelab.tables/1", tables: [{
      id: ("hostile" + $p), name: ("Name" + $p), compare: ("Compare" + $p), row_head: ("Head" + $p),
      notes: [("note" + $p)],
      rows: [{row: ("Row" + $p), figure: ("Figure" + $p), step: "run", path: "summary.duration_ms",
              unit: ("ms" + $p)},
             {row: ("Outcome" + $p), figure: ("Fate" + $p), aggregate: "count", label: "outcome"}]}]}' \
    >"$W/hostile.tables.json"
  # The reference: an article's figures, its strings hostile.
  jq --arg p "$P" '.header.article.title += $p | .header.article.author += $p | .header.machine.kernel += $p' \
    "$TOP/results/reference/watermarks.json" >"$W/ref.json"
}

setup() {
  command -v jq >/dev/null || skip "no jq"
  cd "$W"
  # Each test looks at what it made: the last one's charts and pages go.
  rm -rf "$W/m" "$W"/MARK* "$W"/plots-* "$W"/rp* "$W"/page* "$W/o" "$W/out" "$W/err"
  mkdir "$W/m"
}

# clean: no marker, no .gp line that runs a command, printed text without
# control characters but newline (and tab), the page without raw <script.
clean() {
  local marks gp
  marks=$(find "$W" -name 'MARK*' -o -path "$W/m/*" | head -5)
  [ -z "$marks" ] || { echo "a planted command ran: $marks"; return 1; }
  gp=$(find "$W" -name '*.gp' -exec grep -HE '^[[:space:]]*(!|system)' {} + | head -5 || true)
  [ -z "$gp" ] || { echo "a gnuplot line runs a command: $gp"; return 1; }
  [ -z "$(grep -rli --include='*.html' '<script' "$W")" ] || { echo "raw <script in a page"; return 1; }
  # U+202A-E, U+2066-9, U+200E/F, U+061C as UTF-8 bytes; the planted
  # documents themselves hold them (the inputs, $W/*.json and $NAME).
  local bidi='\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c' hit
  hit=$(LC_ALL=C grep -rlaP "$bidi" "$W/out" "$W/err" "$W"/plots-* "$W"/rp* "$W"/page* "$W/o" 2>/dev/null | head -5 || true)
  [ -z "$hit" ] || { echo "a bidirectional control was written raw: $hit"; return 1; }
  if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]' "$W/out" "$W/err" 2>/dev/null; then
    echo "a control character reached the terminal:"
    LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]' "$W/out" "$W/err" | cat -v | head -5
    return 1
  fi
}

# ran CMD...: runs it with stdout and stderr kept apart; must exit 0.
ran() {
  "$@" >"$W/out" 2>"$W/err"
  local rc=$?
  [ "$rc" = 0 ] || { echo "exit $rc: $*"; cat -v "$W/err" | head -5; return 1; }
}

@test "hostile: plot draws every document, runs nothing it holds" {
  command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
  local d i=0
  for d in all-run-five.json all-three-paths.json all-trace.json t-run-five.json t-trace.json "$NAME"; do
    i=$((i + 1))
    ran "$PAGELAB" plot --out "$W/plots-$i" "$W/$d"
    ls "$W/plots-$i"/*.svg >/dev/null
    clean
  done
  # The scripts are gnuplot's still: redrawn by hand, they run nothing.
  (cd "$W/plots-4" && for g in *.gp; do gnuplot "$g" 2>/dev/null || true; done)
  clean
}

@test "hostile: report (markdown, csv, json) prints every document as data" {
  local f
  for f in all-run-five.json all-three-paths.json all-trace.json t-run-five.json t-trace.json "$NAME"; do
    ran "$PAGELAB" report "$W/$f"
    clean
    ran "$PAGELAB" report --format csv "$W/$f"
    clean
    ran "$PAGELAB" report --format json "$W/$f"
    clean
  done
  ran "$PAGELAB" report --tables "$W/hostile.tables.json" "$W/t-run-five.json" "$W/t-trace.json"
  grep -q 'Figure' "$W/out"
  clean
  ran "$PAGELAB" report --tables "$W/hostile.tables.json" --format csv "$W/t-run-five.json"
  clean
  ran "$PAGELAB" report --reference "$W/ref.json" "$W/t-run-five.json"
  clean
  # A markdown cell stays one cell: the planted | is escaped, nothing ends
  # the table's line early (every line of a table has as many cells).
  ran "$PAGELAB" report "$W/t-run-five.json"
  awk '/^\|/ { s = $0; gsub(/\\\|/, "", s); n = gsub(/\|/, "", s)
          if (intable && n != cols) bad = 1
          cols = n; intable = 1; next }
        { intable = 0 }
        END { exit bad }' "$W/out"
}

@test "hostile: report --plots and report --html draw them, the page has no raw script" {
  command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
  ran "$PAGELAB" report --plots "$W/rp" "$W/t-run-five.json"
  clean
  ran "$PAGELAB" report --plots "$W/rp2" "$W/all-three-paths.json"
  clean
  ran "$PAGELAB" report --html "$W/page" --tables "$W/hostile.tables.json" "$W/t-run-five.json" "$W/t-trace.json"
  [ -s "$W/page/index.html" ]
  clean
  ran "$PAGELAB" report --html "$W/page2" "$W/all-run-five.json" "$W/all-trace.json" "$W/$NAME"
  clean
  # --by host: the groups are named by the planted hostnames.
  ran "$PAGELAB" report --html "$W/page3" --by host "$W/t-run-five.json" "$W/t-trace.json"
  grep -q 'Compare by host' "$W/page3/index.html"
  clean
}

@test "hostile: compare prints both forms as data (markdown, csv, json)" {
  local fmt
  for fmt in markdown csv json; do
    ran "$PAGELAB" compare --format "$fmt" "$W/t-run-five.json" -- "$W/$NAME"
    clean
    ran "$PAGELAB" compare --format "$fmt" --by host "$W/t-run-five.json" "$W/t-trace.json"
    clean
    ran "$PAGELAB" compare --format "$fmt" "$W/all-three-paths.json" -- "$W/all-three-paths.json"
    clean
  done
}

@test "hostile: a refusal naming a hostile file is one line without control characters" {
  local bad="$W/bad-$NAME"
  printf '{"schema": "x"}' >"$bad"
  run --separate-stderr "$PAGELAB" report "$bad"
  assert_equal "$status" 2
  printf '%s' "$stderr" >"$W/err"
  : >"$W/out"
  [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
  [[ "$stderr" == *"not a pagelab.result/1 document"* ]]
  clean
  for cmd in "plot --out $W/o" "compare $W/three-paths.json --"; do
    # shellcheck disable=SC2086
    run --separate-stderr "$PAGELAB" $cmd "$bad"
    assert_equal "$status" 2
    printf '%s' "$stderr" >"$W/err"
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "$cmd: $stderr" | cat -v; return 1; }
    clean
  done
  rm -f "$bad"
}
