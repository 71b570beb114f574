#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Tracepoints on this host (harness/sample/trace/, issue 11): a private tracefs
# instance per run, events on the samples' clock, derived figures in the run
# summary, nothing left behind.  Reduced sizes (a 128 MiB region in a 320 MiB
# sandbox): each run takes under a second.  Measured on 6.18.44 x86_64,
# cgroup v1 (hybrid), where the sandbox's memcg reclaim under pressure took
# exactly the region's lazily freed pages that then read zero (10,573 and
# 10,609 pages over two runs).

load helpers

setup() {
  require_memcg
  [ -d /sys/kernel/tracing/events/vmscan ] || mount | grep -q ' /sys/kernel/tracing ' ||
    grep -q tracefs /proc/filesystems || skip "no tracefs in this kernel"
  before_cg=$(pagelab_cgroups)
}

# Instances named pagelab-PID-* whose PID is dead: left behind (a live
# pagelab on this machine, another user's run, keeps its own; instances of
# another pid namespace, -nsINO, are not this shell's to judge).
pagelab_instances() {
  local n pid
  local ns
  ns=$(stat -Lc %i /proc/self/ns/pid)
  for n in $(ls /sys/kernel/tracing/instances 2>/dev/null | grep '^pagelab-[0-9]*-' || true); do
    case $n in *-ns*) [ "${n##*-ns}" = "$ns" ] || continue ;; esac
    pid=${n#pagelab-}; pid=${pid%%-*}
    kill -0 "$pid" 2>/dev/null || echo "$n"
  done
}

teardown() {
  [ -z "${bg:-}" ] || { kill -9 "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; } || true
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
  [ -z "$(pagelab_instances)" ] || { echo "tracing instances left: $(pagelab_instances)"; return 1; }
}

SMALL=(--set region=128M --set pressure=200M --set memory_max=320M --set ballast=32M)

@test "madv-free/pressure: paired memcg reclaim in the sandbox took exactly the pages the region lost" {
  stem=trace-pressure
  run_scenario madv-free/pressure $stem --repeat 1 "${SMALL[@]}" --trace-raw
  assert_success
  f="$RESULTS/$stem.json"
  jq -e '.tracing.available' "$f"
  jq -e '.runs[0].summary.trace | .lost.total == 0 and .set == "direct memcg oom markers pageout" and .clock == "mono"' "$f"
  # Every sandbox begin has its end on the same task, in order (raw records).
  jq -e '[.runs[0].events[] | select(.sandbox and (.event | startswith("mm_vmscan_memcg_reclaim")))]
         | group_by(.task_pid) | all(sort_by(.t_ms) | . as $e | length % 2 == 0 and
           all(range(0; length); . as $i | $e[$i].event | endswith(if $i % 2 == 0 then "begin" else "end" end)))' "$f"
  # The summary counts exactly those pairs, none open, none begun before tracing.
  jq -e '.runs[0] | ([.events[] | select(.sandbox and .event == "mm_vmscan_memcg_reclaim_end")]) as $ends
         | .summary.trace.stalls.memcg | .count == ($ends | length) and .count > 0
           and .pages == ($ends | map(.nr_reclaimed) | add) and .unpaired_ends == 0' "$f"
  jq -e '.runs[0].summary.trace.stalls.open_at_end == 0' "$f"
  # Pages reclaimed = pages the region lost (they read zero), plus at most the
  # sandbox's page cache before the pressure: the ballast and the pressure
  # region are anonymous with no swap, so nothing else can go.
  jq -e '.runs[0] | ([.steps[] | select(.workload == "region")]) as $s
         | ($s | map(select(.step == "scan"))[0].counters.scan.zero) as $lost
         | ($s | map(select(.step == "pressure"))[0]) as $p
         | ($s | map(select(.step == "mincore"))[0].memcg.stat.total_cache // 0) as $cache
         | .summary.trace.stalls.memcg.pages as $r
         | $lost > 0 and $r >= $lost and $r <= $lost + ($cache / 4096)' "$f"
  # On the samples' clock: the stalls lie between the step before the
  # pressure and the pressure step's own sample; the latencies are ordered.
  jq -e '.runs[0] | ([.steps[] | select(.workload == "region")]) as $s
         | ($s | map(select(.step == "mincore"))[0].t_ms) as $t0 | ($s | map(select(.step == "pressure"))[0].t_ms) as $t1
         | [.events[] | select(.sandbox and (.event | startswith("mm_vmscan_memcg")))] | all(.t_ms >= $t0 and .t_ms <= $t1)' "$f"
  jq -e '.runs[0].summary.trace.stalls.memcg | .p50_us > 0 and .p50_us <= .p99_us and .p99_us <= .max_us' "$f"
  # The step markers came back through the instance's trace_marker, in order.
  jq -e '[.runs[0].events[] | select(.event == "print" and (.buf | startswith("pagelab step"))) | .buf]
         == [.runs[0].steps[] | "pagelab step \(.workload) \(.step)"]' "$f"
  # Each workload said who it is from its own task before its exec (the pid
  # map a container needs): here, outside a pid namespace, the same pid.
  jq -e '.runs[0] | [.events[] | select(.event == "print" and (.buf | startswith("pagelab child"))) | {p: .task_pid, b: .buf}]
         == [.workloads[] | {p: .pid, b: "pagelab child \(.pid)"}]' "$f"
  # Per-interval histograms add up to the stalls.
  jq -e '.runs[0] | ([.trace_intervals[].memcg.count // 0] | add) == .summary.trace.stalls.memcg.count' "$f"
}

@test "a traced run reads the formats of its events, not /proc/kallsyms nor every format of their systems" {
  command -v strace >/dev/null || skip "no strace (scripts/setup installs it)"
  stem=trace-open
  run strace -f -qq -e trace=openat -e signal=none -o "$BATS_TEST_TMPDIR/opens" \
    "$PAGELAB" run "$BATS_TEST_DIRNAME/../scenarios/bench-hold.scn" --set region=16M --set memory_max=64M \
    --set hold_ms=300 --no-report --out "$RESULTS/$stem.json"
  assert_success
  jq -e '.runs[0].summary.trace.events.print >= 1 and .runs[0].summary.trace.missing_events == []' "$RESULTS/$stem.json"
  # libtracefs's tracefs_local_events_system() also reads kallsyms,
  # saved_cmdlines and printk_formats (on this host about 250 ms of CPU and
  # 20 MB at each run's start); no decoded field needs them.
  ! grep -E '"/proc/kallsyms"|/saved_cmdlines"|/printk_formats"' "$BATS_TEST_TMPDIR/opens"
  grep -q '"/sys/kernel/tracing/events/header_page"' "$BATS_TEST_TMPDIR/opens"
  grep -q '"/sys/kernel/tracing/events/vmscan/mm_vmscan_memcg_reclaim_begin/format"' "$BATS_TEST_TMPDIR/opens"
  # Only the formats of the events pagelab knows: not the rest of vmscan
  # (the shrinkers' events, in every kernel since 3.x).
  ! grep -q '/events/vmscan/mm_shrink_slab_start/format"' "$BATS_TEST_TMPDIR/opens"
}

@test "an OOM kill: mark_victim's pid is the victim the result names" {
  stem=trace-oom
  run_scenario madv-free/three-paths $stem --repeat 1 --set advice=none --set region=128M \
    --set memory_max=256M --set ballast=32M --set pressure=200M
  assert_success
  f="$RESULTS/$stem.json"
  [ "$(jq -r '.runs[0].exit.outcome' "$f")" = oom_killed ]
  jq -e '.runs[0] | .exit.victims[0] as $v | ([.workloads[] | select(.name == $v)][0].pid) as $pid
         | [.events[] | select(.event == "mark_victim") | .pid] == [$pid]
           and [.summary.trace.oom_victims[].pid] == [$pid]
           and (.summary.trace.oom_victims | length) == .exit.oom_kill_count' "$f"
  # exit.oom_victims: the workload itself (its own pid), named by the tracepoint too.
  jq -e '.runs[0] | .exit.victims[0] as $v | ([.workloads[] | select(.name == $v)][0].pid) as $pid
         | (.exit.oom_victims | length) == .exit.oom_kill_count
           and (.exit.oom_victims[0] | .pid == $pid and .workload == $v and .forked == false
                and .tree_from == "pid" and (.seen_by | index("trace")) != null and .t_ms > 0)' "$f"
  jq -e '.runs[0].summary.trace.lost.total == 0' "$f"
}

@test "madv-free/pageout: MADV_PAGEOUT is the sandbox's reclaim_pages — every page of the region scanned, none reclaimed without swap, each activated" {
  # mm_vmscan_reclaim_pages (the pageout group, in every lab's default):
  # reclaim of a list the caller chose, which pgscan and pgsteal never count.
  stem=trace-pageout
  run_scenario madv-free/pageout $stem --set advice=pageout --set region=128M --set memory_max=320M \
    --set ballast=32M --set pressure=200M
  assert_success
  f="$RESULTS/$stem.json"
  jq -e '.tracing.available' "$f"
  if jq -e '.runs[0].summary.trace.missing_events | index("vmscan/mm_vmscan_reclaim_pages")' "$f" >/dev/null; then
    skip "this kernel has no vmscan:mm_vmscan_reclaim_pages ($(uname -r))"
  fi
  pages=$((128 * 1024 * 1024 / $(getconf PAGESIZE)))
  jq -c '.runs[0].summary.trace.reclaim_pages' "$f"
  # madvise walks the region a PMD at a time (mm/madvise.c:
  # madvise_cold_or_pageout_pte_range), one reclaim_pages per walk.
  jq -e --argjson n "$pages" '.runs[0].summary.trace.reclaim_pages.sandbox
         | .events >= 64 and .nr_scanned == $n and .nr_reclaimed == 0 and .nr_activate0 == $n' "$f"
  # A DAMON monitor the machine runs is named as who else paged out, if it did.
  jq -e '.runs[0].summary.trace.reclaim_pages | keys - ["sandbox", "kdamond", "other"] == []' "$f"
}

@test "an OOM kill in a pid namespace of the run's own: one victim, the run's pid and the kernel's beside it" {
  # pagelab as pid 1 of a new pid namespace (unshare --pid), as in a
  # container: its workloads' pids are the namespace's, the kernel log's and
  # the tracepoints' the machine's.  The workloads' trace markers map the
  # one to the other (harness/sample/trace/trace.c: learn_pids).
  stem=trace-oom-pidns
  inst0=$(ls /sys/kernel/tracing/instances 2>/dev/null | grep -- '-ns[0-9]*$' || true)
  run unshare --pid --fork --mount-proc "$PAGELAB" run madv-free/three-paths --no-report --out "$RESULTS/$stem.json" \
    --repeat 1 --set advice=none --set region=128M --set memory_max=256M --set ballast=32M --set pressure=200M
  assert_success
  refute_output --partial "of no workload known"
  f="$RESULTS/$stem.json"
  [ "$(jq -r '.runs[0].exit.outcome' "$f")" = oom_killed ]
  jq -e '.runs[0].exit.victims == ["region"]' "$f"
  jq -e '.runs[0] | ([.workloads[] | select(.name == "region")][0].pid) as $pid
         | .kmsg.oom_kills[0].pid as $kpid
         | $pid > 0 and $kpid > 0 and $kpid != $pid
           and (.kmsg.oom_kills | length) == 1 and .exit.oom_kill_count == 1
           and .summary.trace.oom_victims == [.summary.trace.oom_victims[0]]
           and .summary.trace.oom_victims[0].pid == $pid and .summary.trace.oom_victims[0].kernel_pid == $kpid
           and (.exit.oom_victims | length) == 1
           and (.exit.oom_victims[0] | .pid == $pid and .kernel_pid == $kpid and .workload == "region"
                and .forked == false and .tree_from == "pid" and .seen_by == ["kmsg", "trace"] and (has("pid_ns") | not))' "$f"
  # Its tracing instance (pagelab-1-RUN-nsINO, another namespace's) is gone.
  [ "$(ls /sys/kernel/tracing/instances 2>/dev/null | grep -- '-ns[0-9]*$' || true)" = "$inst0" ]
}

@test "a SIGKILLed run's tracing instance is gone after the next start" {
  stem=trace-crash
  "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --no-report --out "$RESULTS/$stem.json" 2>/dev/null &
  bg=$!
  wait_for $stem advise
  ns=$(stat -Lc %i /proc/self/ns/pid)
  inst="/sys/kernel/tracing/instances/pagelab-$bg-0-ns$ns"
  [ -d "$inst" ]
  # Events stream as they come: the step markers are in the stream already.
  jq -se '[.[] | select(.type == "event" and .event == "print")] | length >= 3' "$RESULTS/$stem.jsonl"
  kill -9 "$bg"
  wait "$bg" 2>/dev/null || true
  dead=$bg
  bg=
  [ -d "$inst" ]
  run "$PAGELAB" run madv-free/probe --repeat 1 --no-report --out "$RESULTS/$stem-after.json"
  assert_success
  assert_output --regexp "removed [0-9]+ stale tracing instance"
  [ ! -d "$inst" ]
}

# Each CPU's buffer is watched (one-shot in the sampler's epoll set): a drain
# reads only the CPUs that received records since their last read, so the
# quiet hold costs no read at all.  Reading every CPU at every drain would
# make at least one read per CPU per drain.  The step markers all arrive.
@test "the trace buffers are read only when they hold records: a quiet hold reads none" {
  stem=trace-watched
  # Without pageout: a DAMON monitor the machine runs reclaims by its own
  # schedule (docs/beyond.md, section 7), and its records are not the run's quiet.
  run "$PAGELAB" run "$TOP/tests/scenarios/long.scn" --set hold_ms=3000 --no-report --out "$RESULTS/$stem.json" \
    --trace "kswapd direct memcg oom markers"
  assert_success
  t=$(jq -c '.runs[0].summary.trace | {watched, drains, buffer_reads, records}' "$RESULTS/$stem.json")
  echo "$t"
  jq -e '.watched == true and .drains >= 12 and .buffer_reads >= 1 and .buffer_reads < .drains' <<<"$t"
  # Every step's marker was read: fill, advise, hold, mincore.
  jq -e '[.runs[0].events[] | select(.event == "print") | .buf | select(startswith("pagelab step region "))] | length == 4' \
    "$RESULTS/$stem.json"
}

@test "--trace none: no instance, no events; a bad set or [trace] value is refused before anything runs" {
  stem=trace-none
  run_scenario madv-free/probe $stem --repeat 1 --trace none
  assert_success
  jq -e '.runs[0].summary.trace == null and (.runs[0].events | length) == 0' "$RESULTS/$stem.json"
  run "$PAGELAB" run madv-free/probe --trace kswapd,bogus
  [ "$status" -eq 2 ]
  assert_output --partial "unknown 'bogus'"
  d=$(mktemp -d)
  sed 's/^\[sandbox\]/[trace]\nevents = kswapd nope\n\n[sandbox]/' "$TOP/scenarios/madv-free/probe.scn" >"$d/bad.scn"
  run "$PAGELAB" run "$d/bad.scn"
  [ "$status" -eq 2 ]
  assert_output --regexp "bad.scn:[0-9]+:[0-9]+: \[trace\] events: trace set: unknown 'nope'"
  rm -rf "$d"
}

@test "a ring buffer too small for the pressure: the losses are counted per CPU and said, never silent" {
  stem=trace-lost
  d=$(mktemp -d)
  # madv-free/pressure (full size) with a 4 kB buffer per CPU and every record raw:
  # ~3,500 memcg reclaim records in ~300 ms overwrite a one-page buffer
  # between two samples (measured: 1,360 to 4,760 lost over eleven runs).
  sed 's/^\[sandbox\]/[trace]\nraw = yes\nbuffer_kb = 4\n\n[sandbox]/' "$TOP/scenarios/madv-free/pressure.scn" >"$d/small-buffer.scn"
  # --burst 0: bursts (a stall just ended) would drain every 10 ms and keep up.
  run "$PAGELAB" run "$d/small-buffer.scn" --repeat 1 --burst 0 --out "$RESULTS/$stem.json"
  assert_success
  assert_output --regexp "warning: run 1 lost [0-9]+ trace event"
  assert_output --regexp "\| trace events lost \| [1-9][0-9,]* \|"
  # The records the reader was told it skipped are the overrun seen from the
  # reading side (ring_buffer.c: rb_get_reader_page), a part of it, never added.
  jq -e '.runs[0].summary.trace.lost | .total > 0 and .total == .overrun + .commit_overrun + .dropped_events
         and .total == ([.per_cpu[] | .overrun + .commit_overrun + .dropped_events] | add)
         and (.missed > 0 or .missed_unknown) and all(.per_cpu[]; .missed <= .overrun)' "$RESULTS/$stem.json"
  rm -rf "$d"
}

# Two runs started at the same moment on a host without tracefs mounted: both
# looked, both mounted it, one over the other, and the mount below outlived
# both with no record (scripts/bench-pair left this host so, 2026-12-07; 1 of
# 3 tries in a private mount namespace).  The look and the mount are one step
# under a lock now (harness/sample/trace/trace.c: trace_available).  In a
# mount namespace of the test's own, tracefs taken away there first: never
# two tracefs mounts at once, none after both runs, both traced.  Five tries.
@test "two runs started at once mount tracefs once, and it is gone after both" {
  local t out
  command -v unshare >/dev/null || skip "no unshare (util-linux)"
  out=$BATS_TEST_TMPDIR
  for t in 1 2 3 4 5; do
    run unshare -m --propagation private bash -c '
      umount /sys/kernel/tracing 2>/dev/null || true
      [ "$(stat -f -c %T /sys/kernel/tracing)" != tracefs ] || exit 9
      "$0" run madv-free/probe --no-report --out "$1/a-$2.json" >/dev/null 2>&1 & a=$!
      "$0" run madv-free/probe --no-report --out "$1/b-$2.json" >/dev/null 2>&1 & b=$!
      most=0
      while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do
        n=$(grep -c " - tracefs " /proc/self/mountinfo)
        [ "$n" -le "$most" ] || most=$n
        sleep 0.005
      done
      wait $a; ra=$?; wait $b; rb=$?
      echo "$most $(grep -c " - tracefs " /proc/self/mountinfo) $ra $rb"' "$PAGELAB" "$out" "$t"
    assert_success
    echo "try $t: most mounts at once, mounts after, exits: $output"
    [ "$output" = "1 0 0 0" ]
    jq -e '.runs[0].summary.trace.records >= 1' "$out/a-$t.json" "$out/b-$t.json" >/dev/null
  done
}

@test "a run that ends while another holds tracefs leaves it mounted; the last to end, or restore after, takes it down" {
  local t out
  command -v unshare >/dev/null || skip "no unshare (util-linux)"
  command -v flock >/dev/null || skip "no flock (util-linux)"
  out=$BATS_TEST_TMPDIR
  # A stand-in for a run between its look and its first instance (no file
  # open in tracefs yet): the shared flock of /sys every run holds
  # from its look to its end (trace.h).  The mounting run ends first.
  run unshare -m --propagation private bash -c '
    umount /sys/kernel/tracing 2>/dev/null || true
    [ "$(stat -f -c %T /sys/kernel/tracing)" != tracefs ] || exit 9
    "$0" run madv-free/probe --repeat 2 --no-report --out "$1/a.json" >"$1/a.log" 2>&1 & a=$!
    while ! grep -q " - tracefs " /proc/self/mountinfo; do kill -0 $a 2>/dev/null || exit 8; sleep 0.002; done
    flock -s /sys sleep 3 & h=$!
    wait $a; ra=$?
    mid=$(grep -c " - tracefs " /proc/self/mountinfo)
    "$0" restore >"$1/restore-held.log" 2>&1
    held=$(grep -c " - tracefs " /proc/self/mountinfo)
    kill -0 $h 2>/dev/null || held=late
    wait $h
    "$0" restore >"$1/restore.log" 2>&1; rr=$?
    echo "$ra $mid $held $rr $(grep -c " - tracefs " /proc/self/mountinfo)"' "$PAGELAB" "$out"
  assert_success
  echo "exit, mounts after the mounter ended, after restore under the hold, restore exit, mounts after: $output"
  [ "$output" = "0 1 1 0 0" ]
  grep -q "unmounted tracefs, which a dead pagelab run (pid [0-9]*) had mounted" "$out/restore.log"
  # Two real runs: the mounting one ends while the other is still running
  # (at a different moment of it each try).  The second did not wait for the
  # first (its runs had begun when the first ended), every run of it
  # traced, and it took the mount down at its end.
  for t in 1 2 3 4 5; do
    run unshare -m --propagation private bash -c '
      umount /sys/kernel/tracing 2>/dev/null || true
      [ "$(stat -f -c %T /sys/kernel/tracing)" != tracefs ] || exit 9
      "$0" run madv-free/probe --repeat 4 --no-report --out "$1/a-$2.json" >/dev/null 2>&1 & a=$!
      while ! grep -q " - tracefs " /proc/self/mountinfo; do kill -0 $a 2>/dev/null || exit 8; sleep 0.002; done
      d=(0 0 0.03 0.06 0.1 0.15); sleep "${d[$2]}"
      "$0" run madv-free/probe --repeat 8 --no-report --out "$1/b-$2.json" >"$1/b-$2.log" 2>&1 & b=$!
      wait $a; ra=$?
      began=$(grep -c "\"run-start\"" "$1/b-$2.jsonl" 2>/dev/null)
      kill -0 $b 2>/dev/null && mid=$(grep -c " - tracefs " /proc/self/mountinfo) || mid=late
      wait $b; rb=$?
      echo "$ra $rb $mid $(grep -c " - tracefs " /proc/self/mountinfo) $began"' "$PAGELAB" "$out" "$t"
    assert_success
    echo "try $t: exits, mounts while the second ran on, mounts after, second runs begun when the first ended: $output"
    [[ "$output" =~ ^"0 0 1 0 "[1-8]$ ]]
    jq -e '[.runs[].summary.trace.records] | length == 8 and all(. >= 1)' "$out/b-$t.json" >/dev/null
  done
}
