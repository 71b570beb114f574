#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The catalogue's real applications (scenarios/apps/*.scn; docs/own-workload.md,
# "Four applications"): redis-server, memcached, PostgreSQL and a JVM, each
# driven by its own load client at reduced size, each run's service figures
# (INFO memory, memcached's stats, pg_buffercache, the JVM's flags and heap)
# asserted beside the kernel's (smaps_rollup of the service's processes, the
# sandbox's memory.stat), and nothing left: no process of user pagelab, no
# cgroup, no run directory under /var/tmp.  Sandbox-only runs, no knob
# changed.  Figures that depend on the kernel and the packages are ranges
# recorded on a kernel 6.18 host (6.18.44, cgroup v1, 2 CPUs; Debian 12's
# redis 7.0.15 / jemalloc 5.3.0, memcached 1.6.18, PostgreSQL 15.18,
# OpenJDK 17.0.15), with room for noise.

load helpers

setup() {
  require_memcg
  getent passwd pagelab >/dev/null || skip "no user pagelab (scripts/setup makes it)"
  [ -z "$(pgrep -u pagelab)" ] || skip "processes of user pagelab are running: $(pgrep -u pagelab -l | tr '\n' ' ')"
}

# nothing_left STEM: no process of the run's user, no run directory, no
# pagelab cgroup below ours, no JVM perf file in /tmp.
nothing_left() {
  local dir
  for dir in $(rq "$1" '.runs[].foreign.dir'); do
    [[ "$dir" == /var/tmp/pagelab-*/run ]]
    [ ! -e "$(dirname "$dir")" ] || { echo "left: $(dirname "$dir")"; false; }
  done
  [ -z "$(pgrep -u pagelab)" ] || { echo "left: $(pgrep -u pagelab -l)"; false; }
  [ -z "$(pagelab_cgroups)" ] || { echo "left: $(pagelab_cgroups)"; false; }
  [ ! -e /tmp/hsperfdata_pagelab ] || { ls -la /tmp/hsperfdata_pagelab; false; }
}

# at STEM RUN STEP FILTER: jq FILTER over {m: the step's metrics (values),
# w: the main workload's per-process sum at the step's sample, c: memcg}.
at() {
  jq -r --argjson r "$2" --arg st "$3" '
    .runs[$r] as $run | ($run.steps | map(select(.step == $st)) | .[0]) as $s |
    {m: (($s.metrics // {}) | with_entries(.value = .value.value)),
     w: ($run.samples[$s.sample].workloads | to_entries | .[-1].value),
     c: $run.samples[$s.sample].memcg} | '"$4" "$RESULTS/$1.json"
}

# in_range V LO HI
in_range() {
  awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
    { echo "$1 not in [$2, $3]"; false; }
}

@test "apps/redis: INFO memory beside smaps_rollup, THP never vs madvise, jemalloc's muzzy pages as LazyFree; nothing left" {
  command -v redis-server >/dev/null || skip "no redis-server (scripts/setup installs redis-server)"
  run_scenario apps/redis app-redis --set keyspace=20000 --set requests=40000 --set dels=60000 --set settle=2
  echo "$output"
  assert_success
  # The progress line of a load prints its byte counts in full, not as %g.
  assert_output --regexp 'load filled: completed after [0-9.]+ s: used_memory [0-9]+ B'
  refute_output --regexp '[0-9]e[+-][0-9]'
  [ "$(rq app-redis '[.runs[] | .variant.thp] | join(" ")')" = "default never" ]
  [ "$(rq app-redis '[.runs[].workloads[0].fate] | unique | join(",")')" = completed ]
  [ "$(rq app-redis '[.runs[0].steps[].step] | join(" ")')" = "ready fill filled del after" ]
  [ "$(rq app-redis '[.runs[].loads[] | .valid] | unique | join(",")')" = true ]
  [ "$(rq app-redis '[.runs[].workloads[0].thp_disabled] | map(tostring) | join(" ")')" = "false true" ]
  for r in 0 1; do
    # Filled: about 86 % of 20,000 keys of 1 KiB (kernel 6.18 host: used_memory
    # 24-25 MB, Rss 31-33 MB); redis's own Rss (serverCron's) within 10 % of smaps_rollup's.
    in_range "$(at app-redis $r filled '.m.used_memory')" 18000000 34000000
    in_range "$(at app-redis $r filled '.w.rss_kb')" 24000 48000
    in_range "$(at app-redis $r filled '.m.used_memory_rss / 1024 / .w.rss_kb')" 0.9 1.1
    # After the deletes redis uses a tenth, jemalloc's resident falls, the
    # kernel's Rss does not: the freed pages are MADV_FREEd (muzzy), LazyFree.
    in_range "$(at app-redis $r after '.m.used_memory')" 1000000 6000000
    in_range "$(at app-redis $r after '.m.allocator_resident / (.w.rss_kb * 1024)')" 0 0.85
    in_range "$(at app-redis $r after '.w.rss_kb / 1')" "$(at app-redis $r filled '.w.rss_kb * 0.9')" 1e9
    in_range "$(at app-redis $r after '.w.lazyfree_kb')" 2048 40000
    [ "$(at app-redis $r filled '.w.lazyfree_kb')" = 0 ]
    # redis 7.0 with Debian's jemalloc never madvises huge pages: none under [madvise], none under never.
    [ "$(at app-redis $r after '.w.anonhuge_kb')" = 0 ]
    # The sandbox is charged the anonymous memory, not the cached binary (first touch).
    in_range "$(at app-redis $r filled '.c.usage_bytes / 1024 / .w.anonymous_kb')" 0.9 1.3
    in_range "$(at app-redis $r fill '.m["SET/rps"]')" 1000 1e7
  done
  nothing_left app-redis
  run "$PAGELAB" report "$RESULTS/app-redis.json"
  assert_success
  assert_output --partial "redis under a quota: its own count beside the kernel's"
  assert_output --regexp "\| After the deletes \| LazyFree \(smaps_rollup\) \| [0-9,]+ kB \| [0-9,]+ kB \|"
}

@test "apps/memcached: -m against memory_max — bytes under limit_maxbytes, Rss and the charge above -m; below it an OOM kill; nothing left" {
  command -v memcached >/dev/null || skip "no memcached (scripts/setup installs memcached)"
  command -v memcaslap >/dev/null || skip "no memcaslap (scripts/setup installs libmemcached-tools)"
  run_scenario apps/memcached app-mc --set cache_mib=16 --set memory_max=32M --set sets=50000
  echo "$output"
  assert_success
  [ "$(rq app-mc '.runs[0].workloads[0].fate')" = completed ]
  [ "$(at app-mc 0 full '.m.limit_maxbytes')" = 16777216 ]
  [ "$(at app-mc 0 idle '.m.bytes')" = 0 ]
  [ "$(at app-mc 0 fill '.m.ops')" = 50000 ]
  # Full: bytes just under -m, evicting; the kernel's Rss and the sandbox's
  # usage above -m (kernel 6.18 host, -m 16: Rss 21-23 MB, usage 19-21 MB).
  in_range "$(at app-mc 0 full '.m.bytes / .m.limit_maxbytes')" 0.9 1
  in_range "$(at app-mc 0 full '.m.evictions')" 1 50000
  in_range "$(at app-mc 0 full '.w.rss_kb * 1024 - .m.limit_maxbytes')" 1000000 12000000
  in_range "$(at app-mc 0 full '.c.usage_bytes - .m.limit_maxbytes')" 0 10000000
  [ "$(at app-mc 0 full '.w.lazyfree_kb')" = 0 ]
  nothing_left app-mc
  # A quota at -m: the server is OOM-killed during the fill, memcaslap's
  # count falls short (no result), the run still ends 0 (an OOM kill is data).
  run_scenario apps/memcached app-mc-oom --set cache_mib=16 --set memory_max=16M --set sets=50000
  echo "$output"
  assert_success
  [ "$(rq app-mc-oom '.runs[0].workloads[0].fate')" = oom_killed ]
  [ "$(rq app-mc-oom '.runs[0].loads[] | select(.name == "fill") | .valid')" = false ]
  nothing_left app-mc-oom
}

@test "apps/postgres: shared_buffers against memory_max — shmem vs page cache, Pss vs Rss summed, pg_buffercache beside memory.stat; nothing left" {
  [ -x /usr/lib/postgresql/15/bin/postgres ] || skip "no PostgreSQL 15 (scripts/setup installs postgresql-15)"
  run_scenario apps/postgres app-pg --set scale=2 --set seconds=1
  echo "$output"
  assert_success
  # pg_buffercache's figures have no unit: no blank is left for one.
  assert_output --regexp 'load stats: completed after [0-9.]+ s: shared_buffers_bytes [0-9]+, '
  [ "$(rq app-pg '[.runs[] | .variant.shared_buffers] | join(" ")')" = "16MB 96MB" ]
  [ "$(rq app-pg '[.runs[].workloads[0].fate] | unique | join(",")')" = completed ]
  [ "$(rq app-pg '.runs[0].workloads[0].stop.signal')" = INT ]
  for r in 0 1; do
    [ "$(rq app-pg ".runs[$r].steps[] | select(.step == \"bench\") | .load.valid")" = true ]
    in_range "$(at app-pg $r bench '.w.processes')" 6 12
    # shared_buffers as postgres says it, and as many of its buffers in use as
    # the kernel's shmem holds (v1 total_shmem: shared_buffers, the rest of the
    # main shared memory and the mmap DSM segments).
    sb=$(at app-pg $r stats '.m.shared_buffers_bytes')
    used=$(at app-pg $r stats '.m.buffers_used_bytes')
    in_range "$used" 1 "$sb"
    in_range "$(at app-pg $r stats ".c.stat.total_shmem - $used")" 0 16000000
    # Pss summed under Rss summed (shared_buffers counted in every process that touched it).
    in_range "$(at app-pg $r bench '.w.pss_kb / .w.rss_kb')" 0.1 0.8
    # The tables' files as page cache: file pages charged besides shmem.
    in_range "$(at app-pg $r bench '.c.stat.total_cache - .c.stat.total_shmem')" 8000000 200000000
    in_range "$(at app-pg $r stats '.m.blks_hit')" 1 1e12
  done
  # The larger shared_buffers holds more of the database in shmem (kernel 6.18
  # host, scale 2: 16MB full; 96MB about 30 MB used).
  [ "$(at app-pg 1 stats '.m.buffers_used_bytes > 16777216')" = true ]
  [ "$(jq -r '.runs[1].steps[-1].sample as $a | .runs[0].steps[-1].sample as $b |
              (.runs[1].samples[$a].memcg.stat.total_shmem > .runs[0].samples[$b].memcg.stat.total_shmem)' "$RESULTS/app-pg.json")" = true ]
  nothing_left app-pg
  [ -z "$(ls /dev/shm | grep -i postgres)" ]
}

@test "apps/jvm: the heap the JVM picks from the cgroup's limit, its Rss after a GC, it survives; nothing left" {
  command -v java >/dev/null || skip "no java (scripts/setup installs openjdk-17-jre-headless)"
  run_scenario apps/jvm app-jvm
  echo "$output"
  assert_success
  [ "$(rq app-jvm '.runs[0].workloads[0].fate')" = completed ]
  [ "$(rq app-jvm '.runs[0].workloads[0].code')" = 0 ]
  # The JVM saw the sandbox's 256M as its machine's memory (UseContainerSupport);
  # below 2 x its default MaxHeapSize (96M scaled for 64-bit words: 126 MiB)
  # HotSpot keeps the default instead of MaxRAMPercentage's quarter
  # (runtime/arguments.cpp, Arguments::set_heap_size); the Serial collector.
  [ "$(at app-jvm 0 report '.m.os_total_memory_bytes')" = 268435456 ]
  [ "$(at app-jvm 0 report '.m.max_heap_bytes')" = 132120576 ]
  [ "$(at app-jvm 0 report '.m.serial_gc')" = 1 ]
  [ "$(at app-jvm 0 report '.m.live_mib')" = 24 ]
  # After System.gc(): the live set in the heap (24 MiB and a little); the
  # kernel's Rss of the java process above the heap committed (the JVM's
  # code, metaspace, the in-memory compiler), below the quota (kernel 6.18 host:
  # Rss 130-140 MB, heap committed 60-70 MB).
  in_range "$(at app-jvm 0 report '.m.heap_used_after_gc_bytes / 1048576')" 24 40
  in_range "$(at app-jvm 0 report '.w.rss_kb * 1024 / .m.heap_committed_bytes')" 1 4
  in_range "$(at app-jvm 0 report '.c.usage_bytes')" 50000000 268435456
  [ "$(at app-jvm 0 report '.w.processes')" = 1 ]
  nothing_left app-jvm
  # A live set above the heap it picked: java.lang.OutOfMemoryError, the JVM
  # exits 1 before it is ready and the run fails saying so (not the cgroup's OOM kill).
  run_scenario apps/jvm app-jvm-oome --set live=150
  echo "$output"
  assert_failure 1
  assert_output --partial "workload jvm failed: ended before it was ready (ready = file:held)"
  [ "$(rq app-jvm-oome '.runs[0].workloads[0] | "\(.fate) \(.code) \(.oom_killed)"')" = "failed 1 false" ]
  rq app-jvm-oome '.runs[0].workloads[0].stderr.text' | grep -q "java.lang.OutOfMemoryError: Java heap space"
  nothing_left app-jvm-oome
}
