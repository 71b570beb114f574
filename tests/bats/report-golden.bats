#!/usr/bin/env bats
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
           and (.scenario.report | length) >= 1 and (.runs[0].samples | length) >= 2' "$f" >/dev/null ||
      { echo "$f"; return 1; }
  done
  # every article table appears in some expected markdown
  for id in $(jq -r '.tables[].id' "$TOP"/results/reference/tables/{madv-free,watermarks,min-free}.json); do
    grep -q "(\`$id\`)" "$GOLDEN"/expected/*.md || echo "no golden case for table $id" >&3
  done
}
