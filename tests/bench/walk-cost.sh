#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# walk-cost.sh — what the per-process sources cost over a service of several
# processes at 1 and 4 GiB resident (docs/benchmark.md, "The per-process walk
# over a forking service"): tests/scenarios/bench-procs.scn, PROCS copies of
# pagelab's hold each holding its share, walked every WALK_MS while held.
# Per size it prints the walk's read cost (source `workloads`: smaps_rollup of
# every process of the sandbox, summary.audit.sources[].read_ns p50 / p99 /
# max), the walks taken, the Rss summed, and what the walks cost as a share of
# one CPU at pagelab's default walk interval (2000 ms) and at the one asked.
# Sizes alternate round by round so drift falls on both.  Run it under the
# heavy lock:
#   flock /tmp/pagelab-heavy.lock sh tests/bench/walk-cost.sh build 3
set -eu
build=${1:-build} rounds=${2:-3} procs=${3:-4} walk=${4:-500}
here=$(cd "$(dirname "$0")" && pwd)
scn="$here/../scenarios/bench-procs.scn"
hold=$(cd "$build" && pwd)/workloads/hold
[ -x "$hold" ] || { echo "walk-cost: no $hold (build first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ); $procs processes, walks every $walk ms, $rounds rounds"
for r in $(seq "$rounds"); do
	for total in 1024 4096; do
		each=$((total / procs))M
		"$build/pagelab" run "$scn" --set procs="$procs" --set each="$each" --set memory_max="$((total + 512))M" \
			--set hold_bin="$hold" --set walk_ms="$walk" --no-report --out "$out/$total-$r.json" >"$out/log" 2>&1 ||
			{ tail -5 "$out/log" >&2; exit 1; }
		jq -r --arg t "$total" --arg r "$r" '.runs[0] as $x |
			($x.summary.audit.sources[] | select(.name == "workloads")) as $w |
			($x.samples | map(select(.workloads.svc.processes != null)) | last | .workloads.svc) as $s |
			"\($t) \($r) \($w.read_ns.p50 / 1000) \($w.read_ns.p99 / 1000) \($w.read_ns.max / 1000) \($w.samples) \($s.processes) \($s.rss_kb)"' \
			"$out/$total-$r.json"
	done
done | tee "$out/rows"
awk -v walk="$walk" '
function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
{ n[$1]++; p50[$1, n[$1]] = $3; p99[$1, n[$1]] = $4; mx[$1, n[$1]] = $5; rss[$1, n[$1]] = $8; procs[$1] = $7 }
END {
	split("1024 4096", ts, " ")
	for (k = 1; k <= 2; k++) { t = ts[k]
		for (i = 1; i <= n[t]; i++) { a[i] = p50[t, i]; b[i] = p99[t, i]; c[i] = mx[t, i]; d[i] = rss[t, i] }
		P = med(a, n[t]); Q = med(b, n[t]); M = med(c, n[t]); R = med(d, n[t])
		printf "median %4d MiB: %d processes, Rss %.0f kB; walk p50 %.0f us, p99 %.0f us, max %.0f us; %.3f %% of a CPU at 2000 ms, %.3f %% at %d ms\n",
			t, procs[t], R, P, Q, M, P / 20000, P / (walk * 10), walk }
}' "$out/rows"
