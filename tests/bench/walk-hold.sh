#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# walk-hold.sh — what an observer reading /proc/PID/smaps_rollup does to a
# memory cgroup's OOM kill, without pagelab (docs/findings/observer.md).
# TRIALS times each: a 32 MiB cgroup (below this shell's own) holds a sleeper,
# then a shell runs dd with a 64 MiB buffer, which the OOM killer takes, and
# goes on (writes a file, runs sleep).  Beside it, nothing, or
# build/tests/bench/mm-hold reading every process's smaps_rollup in a loop,
# with and without its check (a process exiting or SIGKILLed is not read),
# or reading /proc/PID/stat instead.  Prints, per mode, the trials whose
# cgroup counted more than one OOM kill.
#   tests/bench/walk-hold.sh [BUILD [TRIALS]]
# MODES="none smaps_rollup" picks modes; READER_CPU=N and DD_CPU=N pin the
# reader, and the shell with its dd, to a CPU (taskset): on one CPU the second
# kill is far likelier (docs/findings/observer.md).
# Root; cgroup v1 (memory and memsw at 32 MiB, as a pagelab sandbox with
# swap_max 0) or v2 (memory.max, swap.max 0); about 20 s a mode for 20 trials.
set -u
build=${1:-build} trials=${2:-20}
hold=$(cd "$build" && pwd)/tests/bench/mm-hold
[ -x "$hold" ] || { echo "walk-hold: no $hold (build first)" >&2; exit 2; }
own=$(awk -F: '$2 == "memory" || $2 == "" { print $3; exit }' /proc/self/cgroup)
if [ -d /sys/fs/cgroup/memory ]; then root=/sys/fs/cgroup/memory; else root=/sys/fs/cgroup; fi
cg="$root$own/walk-hold-$$"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$cg" ] && rmdir "$cg"
	rm -rf "$tmp"
}
tmp=$(mktemp -d)
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
mkdir "$cg" || exit 1
if [ -e "$cg/memory.limit_in_bytes" ]; then
	echo 32M >"$cg/memory.limit_in_bytes"; echo 32M >"$cg/memory.memsw.limit_in_bytes" 2>/dev/null
	kills() { awk '/^oom_kill /{ print $2 }' "$cg/memory.oom_control"; }
else
	echo 32M >"$cg/memory.max"; echo 0 >"$cg/memory.swap.max" 2>/dev/null
	kills() { awk '/^oom_kill /{ print $2 }' "$cg/memory.events"; }
fi
echo "# $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ), $trials trials a mode${READER_CPU:+, reader on CPU $READER_CPU}${DD_CPU:+, dd on CPU $DD_CPU}"
for mode in ${MODES:-none smaps_rollup smaps_rollup+check stat}; do
	multi=0
	for i in $(seq "$trials"); do
		before=$(kills)
		sh -c "echo \$\$ >$cg/cgroup.procs; exec sleep 3" & s=$!; pids=("$s")
		sleep 0.05
		if [ "$mode" != none ]; then
			${READER_CPU:+taskset -c "$READER_CPU"} "$hold" "$cg/cgroup.procs" 0.6 "${mode%+check}" $([ "${mode#*+}" = check ] && echo check) 2>/dev/null &
			pids+=("$!")
		fi
		${DD_CPU:+taskset -c "$DD_CPU"} sh -c "echo \$\$ >$cg/cgroup.procs; (dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null; true); echo x >$tmp/up.\$\$; sleep 0.3" &
		pids+=("$!")
		wait "${pids[@]:1}" 2>/dev/null
		kill "$s" 2>/dev/null; wait "$s" 2>/dev/null
		[ "$(($(kills) - before))" -gt 1 ] && multi=$((multi + 1))
	done
	echo "$mode: $multi of $trials trials with more than one OOM kill"
done
