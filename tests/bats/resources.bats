#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The host's resources checked like its memory, and the outputs checked on
# every component (harness/run/resources.c, harness/result/result.c,
# docs/refusals-pipeline.md):
#   - hugetlb counts in checked arithmetic with the real huge page size:
#     9007199254740993 pages (which wrapped to 2 MiB in 64 bits) and anything
#     above MemTotal are exit 2 even with --allow-destructive;
#   - swap = off is destructive (exit 3 without --allow-destructive);
#   - a swap file (beside the journal) and a cache file (in /var/tmp) must
#     fit their file system's free space with 5 % of it (at least 64 MiB) to
#     spare: exit 3 naming the figure and the limit;
#   - [trace] buffer_kb x online CPUs at most 1/16 of MemTotal: exit 2;
#   - no symbolic link on the way to --out, none as the default results/;
#     a stream file with other hard links is not emptied: exit 2.
# Every refusal comes before anything on the host changes: each run here
# also names an empty PAGELAB_WORKLOADS, so a harness that let one through
# would stop at "workload program ... is missing" (exit 1) before touching a
# knob.  Small file systems are tmpfs mounts in a private mount namespace
# (unshare -m); hostile paths are made in private temporary directories.

load helpers

setup() {
  [ "$(id -u)" = 0 ] || skip "needs root"
  before_cg=$(pagelab_cgroups)
  before_host=$(host_state)
  P=$(mktemp -d "$BATS_TEST_TMPDIR/p.XXXXXX")
  mkdir -m 0755 "$P/noprograms"
  export PAGELAB_JOURNAL="$P/journal/journal"
}

teardown() {
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "a cgroup was created: $(cgroups_new "${before_cg:-}")"; return 1; }
  [ "$(host_state)" = "$before_host" ] || { echo "the host changed"; return 1; }
  [ ! -e "${PAGELAB_JOURNAL:-/nonexistent}" ] || { echo "a journal was written"; return 1; }
}

# scn NAME [KNOBS-LINES] [TRACE-LINES] [WORKLOAD-SECTION]: a small scenario in $P
scn() {
  {
    printf '[scenario]\nname = test/res-%s\nrequires = root memcg\n\n[sandbox]\nmemory_max = 64M\n\n' "$1"
    [ -z "${2:-}" ] || printf '[knobs]\n%s\n\n' "$2"
    [ -z "${3:-}" ] || printf '[trace]\n%s\n\n' "$3"
    printf '%s\n' "${4:-[workload region]
program = region
size = 16M
steps = fill:0xA5}"
  } >"$P/$1.scn"
  echo "$P/$1.scn"
}

# refused STATUS ARGS...: pagelab run ARGS exits STATUS with one line on
# stderr, nothing on stdout, no result.
refused() {
  local want=$1
  shift
  run --separate-stderr env PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$@" --no-report
  [ "$status" = "$want" ] || { echo "exit $status, wanted $want: $stderr"; return 1; }
  [ -z "$output" ]
  [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || { echo "stderr: $stderr"; return 1; }
}

@test "hugetlb pages: a count whose bytes wrap, or above MemTotal, is exit 2 even with --allow-destructive" {
  kb=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)
  [ -n "$kb" ] || skip "this kernel has no hugetlb pages"
  size=$(( kb / 1024 ))
  f=$(scn huge "hugetlb_pages = 9007199254740993")
  refused 2 "$f" --allow-destructive --out "$RESULTS/never.json"
  [[ "$stderr" == *"hugetlb_pages = 9007199254740993 pages of $size MiB is more than 16 EiB: more than this machine's MemTotal"* ]] ||
    { echo "$stderr"; return 1; }
  # Just above MemTotal in pages of the real size.
  n=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / kb + 1 ))
  f=$(scn huge2 "vm.nr_hugepages = $n")
  refused 2 "$f" --allow-destructive --out "$RESULTS/never.json"
  [[ "$stderr" == *"vm.nr_hugepages = $n pages of $size MiB is "*"more than this machine's MemTotal"* ]] || { echo "$stderr"; return 1; }
  # A quarter of it and a page more: the gate of a host (exit 3, as before).
  n=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 4 / kb + 1 ))
  f=$(scn huge3 "hugetlb_pages = $n")
  refused 3 "$f" --out "$RESULTS/never.json"
  [[ "$stderr" == *"hugetlb_pages = $n could starve this machine"* ]] || { echo "$stderr"; return 1; }
  [ "$(cat /proc/sys/vm/nr_hugepages)" = 0 ]
  [ ! -e "$RESULTS/never.json" ]
}

@test "swap = off is destructive: exit 3 without --allow-destructive" {
  f=$(scn swapoff "swap = off")
  refused 3 "$f" --out "$RESULTS/never.json"
  [[ "$stderr" == *"swap = off turns off every swap area of this host, which is destructive"*"--allow-destructive"* ]] ||
    { echo "$stderr"; return 1; }
}

@test "a swap file that does not fit beside the journal with the margin: exit 3, the figure and the limit" {
  f=$(scn swapfile "swap = 64M")
  mkdir -m 0700 "$P/small"
  run --separate-stderr unshare -m sh -c 'mount -t tmpfs -o size=96M,mode=0700 tmpfs "$1" && shift && exec "$@"' \
    sh "$P/small" env PAGELAB_JOURNAL="$P/small/j/journal" PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$f" \
    --no-report --out "$RESULTS/never.json"
  [ "$status" = 3 ] || { echo "exit $status: $stderr"; return 1; }
  [[ "$stderr" == *"the file system of $P/small has 96 MiB free, too little for a 64 MiB swap file in $P/small/j (64 MiB) with the 64 MiB pagelab keeps free there (5 % of its 96 MiB, at least 64 MiB)"* ]] ||
    { echo "$stderr"; return 1; }
  [ ! -e "$P/small/j" ]
}

# small_var_tmp SIZE CMD...: CMD in a private mount namespace whose /var/tmp is a
# tmpfs of SIZE; a checkout or build that lies under /var/tmp is bound back into it
# (empty directories take no blocks on tmpfs: the free figure stays SIZE).
small_var_tmp() {
  mkdir -p "$P/old-var-tmp"
  unshare -m sh -c 'size=$1 old=$2 top=$3 build=$4; shift 4
    mount --bind /var/tmp "$old" && mount -t tmpfs -o "size=$size,mode=1777" tmpfs /var/tmp || exit 99
    for d in "$top" "$build"; do
      case $d in /var/tmp/*) mkdir -p "$d" && mount --bind "$old/${d#/var/tmp/}" "$d" || exit 99 ;; esac
    done
    exec "$@"' sh "$1" "$P/old-var-tmp" "$TOP" "$BUILD" "${@:2}"
}

@test "a cache file that does not fit /var/tmp with the margin: exit 3, the figure and the limit" {
  f=$(scn cache "" "" "[workload cache]
program = cachefill
size = 48M")
  run --separate-stderr small_var_tmp 100M env PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$f" --no-report --out "$RESULTS/never.json"
  [ "$status" = 3 ] || { echo "exit $status: $stderr"; return 1; }
  [[ "$stderr" == *"the file system of /var/tmp has 100 MiB free, too little for cache's 48 MiB file in /var/tmp (48 MiB) with the 64 MiB pagelab keeps free there"* ]] ||
    { echo "$stderr"; return 1; }
  # The same file on a file system with room: past the check (to the missing programs).
  run --separate-stderr small_var_tmp 200M env PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$f" --no-report --out "$RESULTS/never.json"
  [ "$status" = 1 ] && [[ "$stderr" == *"workload program"*"is missing"* ]] || { echo "exit $status: $stderr"; return 1; }
}

@test "[trace] buffer_kb x online CPUs above 1/16 of MemTotal: exit 2 naming both" {
  cpus=$(getconf _NPROCESSORS_ONLN)
  mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  [ $(( 1048576 * cpus )) -gt $(( mem_kb / 16 )) ] || skip "1 GiB per CPU fits 1/16 of this machine's MemTotal"
  f=$(scn trace "" "events = direct
buffer_kb = 1048576")
  refused 2 "$f" --out "$RESULTS/never.json"
  [[ "$stderr" == *"[trace] buffer_kb = 1048576 per CPU x $cpus online CPUs = $cpus GiB of kernel memory nothing can reclaim: more than 1/16 of this machine's MemTotal"* ]] ||
    { echo "$stderr"; return 1; }
  # Without tracing there are no ring buffers to bound.
  run --separate-stderr env PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$f" --trace none --no-report \
    --out "$RESULTS/never.json"
  [ "$status" = 1 ] && [[ "$stderr" == *"workload program"*"is missing"* ]] || { echo "exit $status: $stderr"; return 1; }
}

@test "--out through a symbolic link on the way, or a symbolic link as the default results/: exit 2, nothing made" {
  f=$(scn out)
  mkdir "$P/real"
  ln -s "$P/real" "$P/link"
  refused 2 "$f" --out "$P/link/r.json"
  [[ "$stderr" == "pagelab: --out $P/link/r.json: $P/link is a symbolic link: pagelab writes through none"* ]] ||
    { echo "$stderr"; return 1; }
  mkdir "$P/real/sub"
  refused 2 "$f" --out "$P/link/sub/r.json"
  [[ "$stderr" == *"$P/link is a symbolic link"* ]]
  PAGELAB_RESULTS="$P/link" refused 2 "$f"
  [[ "$stderr" == "pagelab: the results directory $P/link: $P/link is a symbolic link"* ]] || { echo "$stderr"; return 1; }
  PAGELAB_RESULTS="$P/link/new" refused 2 "$f"
  [[ "$stderr" == *"$P/link is a symbolic link"* ]]
  # The default results/ of the current directory, a link.
  ln -s "$P/real" "$P/cwd-results"
  mkdir "$P/here" && ln -s "$P/real" "$P/here/results"
  cd "$P/here"
  run --separate-stderr env -u PAGELAB_RESULTS PAGELAB_WORKLOADS="$P/noprograms" "$PAGELAB" run "$f" --no-report
  [ "$status" = 2 ] || { echo "exit $status: $stderr"; return 1; }
  [[ "$stderr" == "pagelab: the results directory results: results is a symbolic link"* ]] || { echo "$stderr"; return 1; }
  [ -z "$(ls -A "$P/real/sub")" ] && [ "$(ls -A "$P/real")" = sub ]
}

@test "a stream file with other hard links is not emptied: exit 2" {
  f=$(scn links)
  echo precious >"$P/precious"
  ln "$P/precious" "$P/r.jsonl"
  refused 2 "$f" --out "$P/r.json"
  [[ "$stderr" == "pagelab: --out's stream $P/r.jsonl has 2 hard links: emptying it would empty the other names too"* ]] ||
    { echo "$stderr"; return 1; }
  [ "$(cat "$P/precious")" = precious ]
  [ ! -e "$P/r.json" ]
}
