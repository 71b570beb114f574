#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# guest-tick.sh — scripts/bench (c) inside a QEMU guest (busybox sh; run by
# scripts/bench --guest through guest/vm-run): the harness holds a region and
# ticks at INTERVAL ms with no page walk and no adaptive burst (a zone near
# its low line — the Normal zone of a 6 GiB 6.1 guest holding 4 GiB — would
# burst at 10 ms: the tick alone is measured here), and in each of ROUNDS rounds its CPU
# per tick (its schedstat over a window ÷ the ticks the stream showed in it)
# is measured while both floor readers (floor-ref: open/read/close, and -k:
# kept descriptors, pread from 0) read the tick's own files — the run's
# `sources` line — on the same schedule, a third of an interval apart.
#
#   sh guest-tick.sh SIZE MEMORY_MAX ROUNDS TICKS INTERVAL_MS
#
# Prints "files: …", per round "round SIZE N HARNESS_NS_PER_TICK ORC_CPU
# ORC_WALL ORC_LOOP KEPT_CPU KEPT_WALL KEPT_LOOP" (µs but the first), and
# "window SIZE C0 C1": the rounds' ticks are the run's tick samples C0 to
# C1 (the fill's before them are not the hold's); the result document is
# left in $PAGELAB_OUT/tick-SIZE.json.
set -u
size=$1 max=$2 rounds=$3 ticks=$4 iv=$5
out=/tmp/tick-$size.json
PAGELAB_WORKLOADS=/bin PAGELAB_GUEST=1 pagelab run /bench/bench-hold.scn --interval "$iv" --set "region=$size" \
	--set "memory_max=$max" --set walk_ms=0 --burst 0 --set hold_ms=3600000 --timeout 3600 --no-report --out "$out" \
	>/tmp/run.out 2>/tmp/run.err &
hpid=$!
n=0
until grep -q '"step":"fill"' "${out}l" 2>/dev/null; do
	kill -0 "$hpid" 2>/dev/null || { echo "pagelab ended before the fill: $(tail -3 /tmp/run.err)" >&2; exit 1; }
	n=$((n + 1))
	[ "$n" -lt 3000 ] || { echo "no fill after 300 s" >&2; exit 1; }
	sleep 0.1
done
# The tick's files: every available source of cadence tick in the sources line,
# each once (memcg and memory_events name memory.events: one read a sample).
grep -m1 '"type":"sources"' "${out}l" | awk '{
	n = split($0, src, "\\{\"name\":")
	for (i = 2; i <= n; i++) {
		if (src[i] !~ /"cadence":"tick"/ || src[i] !~ /"available":true/) continue
		f = src[i]; sub(/.*"files":\[/, "", f); sub(/\].*/, "", f)
		m = split(f, a, ",")
		for (k = 1; k <= m; k++) { gsub(/"/, "", a[k]); if (a[k] != "" && !(a[k] in seen)) { seen[a[k]] = 1; print a[k] } }
	}
}' >/tmp/files
[ -s /tmp/files ] || { echo "no tick files in the sources line" >&2; exit 1; }
echo "files: $(tr '\n' ' ' </tmp/files)"
count() { grep -c '"cause":"tick"' "${out}l"; }
cpu() { read -r a _ <"/proc/$hpid/schedstat"; echo "$a"; }
third=$(awk -v iv="$iv" 'BEGIN { printf "%.3f", iv / 3000 }')
# wait_ticks N: until the stream shows N tick lines.
wait_ticks() {
	while [ "$(count)" -lt "$1" ]; do
		kill -0 "$hpid" 2>/dev/null || { echo "pagelab ended during the hold" >&2; exit 1; }
		sleep 0.05
	done
}
wait_ticks $(($(count) + 2))
c0=$(count)
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	wait_ticks $(($(count) + 1))
	t0=$(count) s0=$(cpu)
	sleep "$third"
	floor-ref "$iv" "$ticks" $(cat /tmp/files) >/tmp/orc &
	o=$!
	sleep "$third"
	floor-ref -k "$iv" "$ticks" $(cat /tmp/files) >/tmp/kept &
	k=$!
	wait_ticks $((t0 + ticks))
	t1=$(count) s1=$(cpu)
	wait "$o" && wait "$k" || { echo "a floor reader failed" >&2; exit 1; }
	echo "round $size $r $(((s1 - s0) / (t1 - t0))) $(cat /tmp/orc) $(cat /tmp/kept)"
done
echo "window $size $c0 $(count)"
kill -INT "$hpid"
wait "$hpid"
mkdir -p "$PAGELAB_OUT"
cp "$out" "$PAGELAB_OUT/tick-$size.json"
