#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A sample is one line of text (base/jsonw.h) and lives only in the
# stream while the run goes on: the document's samples[] are the stream's
# sample lines, copied at the end (harness/result/result.h: result_samples_here);
# the harness does not grow with the number of samples; bursts between two
# full samples are folded into one line that keeps the lowest free of each
# zone (harness/result/result.md, "Adaptive bursts").

load helpers

setup() {
  require_memcg
  tmp=$(mktemp -d)
  before_cg=$(pagelab_cgroups)
}

teardown() {
  [ -z "${hpid:-}" ] || { kill -INT "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null || true; }
  [ -z "${tmp:-}" ] || rm -rf "$tmp"
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "a cgroup was left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

@test "samples: the document's samples[] are the stream's sample lines, run by run, and steps point at theirs" {
  f=$RESULTS/samples-probe.json
  run "$PAGELAB" run madv-free/probe --no-report --out "$f"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(jq '.runs | length' "$f")" -ge 2 ]
  # Count and content, each run: the line without "type" and "run", in stream order.
  jq -e --slurpfile s "${f}l" '
    [range(0; .runs | length) as $i | .runs[$i]
     | .samples == [$s[] | select(.type == "sample" and .run == $i) | del(.type, .run)]
       and (.samples | length) == .summary.samples and .summary.samples >= 3] | all' "$f"
  # A step's sample index names a step sample at the step's source values.
  jq -e 'all(.runs[]; . as $r | all(.steps[]; $r.samples[.sample] as $s
         | $s.cause == "step" and $s.memcg == .memcg and $s.vmstat_delta == .vmstat_delta))' "$f"
  # memcg_peak joins memcg's object (into): read after usage, never below it.
  jq -e '[.runs[].samples[] | select(.cause != "burst") | .memcg] as $m
         | all($m[]; .peak_bytes >= .usage_bytes and (keys_unsorted | index("peak_bytes")) == length - 1)
           and any($m[]; .usage_bytes > 0)' "$f"
  # Every sample line reads back with its cost and its reals as reals.
  jq -e 'all(.runs[].samples[]; (.t_ms | type) == "number" and
         (.cause == "burst" or (.cost_us.cpu > 0 and .cost_us.wall > 0)))' "$f"
}

@test "samples: the harness's memory does not grow with its samples (VmHWM over 10 ms ticks)" {
  out=$RESULTS/samples-hwm.json
  "$PAGELAB" run "$BATS_TEST_DIRNAME/../scenarios/bench-hold.scn" --interval 10 --set region=32M \
    --set memory_max=256M --set hold_ms=600000 --timeout 120 --no-report --out "$out" \
    >/dev/null 2>"$tmp/err" &
  hpid=$!
  hwm_at() {    # hwm_at N: VmHWM (kB) once the stream holds N sample lines
    local i n
    for ((i = 0; i < 3000; i++)); do
      n=$(grep -c '"type":"sample"' "${out}l" 2>/dev/null) || n=0
      [ "$n" -ge "$1" ] && break
      kill -0 "$hpid" 2>/dev/null || { cat "$tmp/err"; return 1; }
      sleep 0.01
    done
    awk '/^VmHWM/ { print $2 }' "/proc/$hpid/status"
  }
  h1=$(hwm_at 150)
  h2=$(hwm_at 850)
  kill -INT "$hpid"
  wait "$hpid" || [ $? = 130 ]
  hpid=""
  n=$(jq '.runs[0].samples | length' "$out")
  echo "# VmHWM ${h1} kB after 150 samples, ${h2} kB after 850 ($n in the document)" >&3
  [ "$n" -ge 850 ]
  # 700 samples of ~4 KB each: kept as json_t they were ~15 MB; as text in
  # the stream the harness stays within 2 MB of where it was.
  [ "$h2" -le $((h1 + 2048)) ]
}

@test "samples: bursts are folded per full sample, lowest free kept; --trace-raw keeps each" {
  for mode in fold raw; do
    f=$RESULTS/samples-burst-$mode.json
    run "$PAGELAB" run "$BATS_TEST_DIRNAME/../scenarios/bench-burst.scn" --set region=32M --set memory_max=256M \
      --set hold_ms=1500 --no-report --out "$f" $([ $mode = raw ] && echo --trace-raw)
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    jq -e '.runs[0] | .summary.bursts as $b | [.samples[] | select(.cause == "burst")] as $l
           | $b.samples > 50 and ($l | length) == $b.lines and ([$l[] | .bursts // 1] | add) == $b.samples' "$f"
    # The lowest free of each zone is a sample's: the folded line keeps the trough.
    jq -e '.runs[0] as $r | all($r.summary.lowest_free[]; . as $l
           | $l.free_pages == ([$r.samples[].zones[]? | select(.zone == $l.zone and .node == $l.node) | .free] | min))' "$f"
  done
  # Folded: one burst line per full sample at most, each zone's trough with its time
  # inside the folded span; about one twentieth of the raw lines at 10 ms / 250 ms.
  jq -e '.runs[0] | ([.samples[] | select(.cause == "burst")] | length) as $nb
         | ([.samples[] | select(.cause != "burst")] | length) as $nf
         | $nb <= $nf + 1 and .summary.bursts.raw == false
         and all(.samples[] | select(.cause == "burst"); . as $s
                 | .bursts >= 1 and all(.zones[]; .t_ms >= $s.from_ms and .t_ms <= $s.to_ms and .free <= .last_free))' \
    "$RESULTS/samples-burst-fold.json"
  jq -e '.runs[0].summary.bursts.raw == true and .runs[0].summary.bursts.lines == .runs[0].summary.bursts.samples' \
    "$RESULTS/samples-burst-raw.json"
  [ "$(stat -c %s "$RESULTS/samples-burst-fold.json")" -lt "$(stat -c %s "$RESULTS/samples-burst-raw.json")" ]
}
