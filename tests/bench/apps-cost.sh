#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# apps-cost.sh — what pagelab's sampling costs a real service (docs/benchmark.md,
# "What sampling costs a service"): redis-server under a quota driven by
# redis-benchmark (tests/scenarios/svc-redis-cost.scn), the same run in three
# sampling modes and once without pagelab at all, alternating mode by mode in
# each of ROUNDS rounds so drift and neighbours fall on all four alike:
#   bare     no pagelab: redis-server as the user pagelab (setpriv, no
#            cgroup, no network namespace) on a unix socket in a private
#            directory, the same redis-benchmark against it, then SIGTERM
#   off      --interval 10000, walk_interval_ms 0 (the tick at most once, the
#            page walks only at the steps: the least pagelab samples)
#   default  --interval 250, walk_interval_ms 2000 (the defaults)
#   hard     --interval 10, walk_interval_ms 10 (the fastest the ranges allow)
# Per run it prints "MODE ROUND SET_RPS GET_RPS WALK_P50_US WALK_MAX_US
# HARNESS_CPU_PCT" (the per-process walk, source `workloads`: smaps_rollup of
# every process of the sandbox; bare has none), then the medians and each
# mode's throughput as a ratio to bare's and to off's.  Run it under the heavy lock:
#   flock /tmp/pagelab-heavy.lock sh tests/bench/apps-cost.sh build/pagelab 5 100000
set -eu
pl=${1:-build/pagelab} rounds=${2:-5} req=${3:-100000}
here=$(cd "$(dirname "$0")" && pwd)
scn="$here/../scenarios/svc-redis-cost.scn"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ); requests $req per test, $rounds rounds"
# bare ROUND: redis-server and redis-benchmark with nothing of pagelab around them.
bare() {
	d=$(mktemp -d /var/tmp/apps-cost.XXXXXX)
	chown pagelab: "$d"
	setpriv --reuid=pagelab --regid=pagelab --clear-groups --inh-caps=-all -- redis-server --port 0 \
		--unixsocket "$d/redis.sock" --unixsocketperm 700 --save "" --appendonly no --daemonize no --dir "$d" \
		>"$out/bare.log" 2>&1 &
	pid=$!
	i=0
	while [ ! -S "$d/redis.sock" ] && [ "$i" -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	setpriv --reuid=pagelab --regid=pagelab --clear-groups --inh-caps=-all -- timeout 30 redis-benchmark \
		-s "$d/redis.sock" -n "$req" -t set,get -d 1024 --csv >"$out/bare.csv" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -rf "$d"
	awk -F'"' -v r="$1" '$2 == "SET" { s = $4 } $2 == "GET" { g = $4 } END { print "bare", r, s, g, 0, 0, 0 }' "$out/bare.csv"
}
for r in $(seq "$rounds"); do
	bare "$r"
	for mode in off default hard; do
		case $mode in
		off) iv=10000 walk=0 ;;
		default) iv=250 walk=2000 ;;
		hard) iv=10 walk=10 ;;
		esac
		"$pl" run "$scn" --interval "$iv" --set "walk=$walk" --set "requests=$req" --no-report \
			--out "$out/$mode-$r.json" >"$out/log" 2>&1 || { tail -5 "$out/log" >&2; exit 1; }
		jq -r --arg m "$mode" --arg r "$r" '.runs[0] as $x | ($x.steps[] | select(.step == "bench") | .metrics) as $s |
			($x.summary.audit.sources[] | select(.name == "workloads") | .read_ns) as $w |
			"\($m) \($r) \($s["SET/rps"].value) \($s["GET/rps"].value) \($w.p50 / 1000) \($w.max / 1000) \($x.summary.audit.harness.cpu_share_pct)"' \
			"$out/$mode-$r.json"
	done
done | tee "$out/rows"
awk '
function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
{ n[$1]++; set[$1, n[$1]] = $3; get[$1, n[$1]] = $4; wp[$1, n[$1]] = $5; cpu[$1, n[$1]] = $7 }
END {
	split("bare off default hard", ms, " ")
	for (k = 1; k <= 4; k++) { m = ms[k]
		for (i = 1; i <= n[m]; i++) { s[i] = set[m, i]; g[i] = get[m, i]; w[i] = wp[m, i]; c[i] = cpu[m, i] }
		S[m] = med(s, n[m]); G[m] = med(g, n[m]); W[m] = med(w, n[m]); C[m] = med(c, n[m]) }
	for (k = 1; k <= 4; k++) { m = ms[k]
		printf "median %-8s SET %.0f req/s (%.3f x bare, %.3f x off)  GET %.0f req/s (%.3f x bare, %.3f x off)  walk p50 %.0f us  harness %.2f %% of a CPU\n",
			m, S[m], S[m] / S["bare"], S[m] / S["off"], G[m], G[m] / G["bare"], G[m] / G["off"], W[m], C[m] }
}' "$out/rows"
