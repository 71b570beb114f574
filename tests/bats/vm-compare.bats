#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Kernel matrices: `pagelab vm --kernel 6.1 --kernel 6.12 --host run X`, then
# `pagelab compare --by kernel` and `report --html` on what came back.
#
# Sizes: madv-free/pressure at a quarter of the article's (region 128M,
# memory.max 256M, ballast 38M, 175M of pressure), 3 repeats, in 1 GiB guests:
# each guest took ~11 s here under TCG (boot 4–6 s, the three runs 5–8 s),
# the host's three runs ~3 s.  Measured (2026-12-01, this 2-core machine):
# 6.1 reclaimed 85 MiB (85–86), 6.12 86 MiB; "After pressure · LazyFree" is
# t-test significant (p 0.02) but moves 0.6 %: the LKP rule keeps it from
# being called real — the reason compare needs both.
# Expected, and why: one result per kernel with 3 runs each; compare pairs
# every figure of the pressure table, each with 3 repeats a side, and every
# verdict agrees with its own numbers (real ⇔ p < 0.05 and disjoint ranges
# and |change| > 1 %); the invariants of the scenario are "same" between any
# two kernels (the region before pressure, the one written page); the
# tracepoints' timings are judged between the two guests (one clock: TCG)
# and "not comparable" between a guest and the host.  Which figures differ
# between kernels is recorded, not asserted.
# Skips (with the reason) only when qemu or the kernels cannot be had.

load helpers

KERNELS=(6.1 6.12)

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  VM_SKIP=$(vm_skip_reason "${KERNELS[@]}")
  [ -z "$VM_SKIP" ] && [ "$(id -u)" != 0 ] && VM_SKIP="needs root (the host's run)"
  export VM_SKIP
  [ -z "$VM_SKIP" ] || return 0
  rm -rf "${RESULTS:?}/vm-compare"
  mkdir -p "$RESULTS/vm-compare"          # pagelab vm makes no directory it is given
  "$PAGELAB" vm --kernel 6.1 --kernel 6.12 --host --mem 1G --timeout 300 --out-dir "$RESULTS/vm-compare" \
    run madv-free/pressure --repeat 3 --set region=128M --set memory_max=256M --set ballast=38M \
    --set pressure=175M >"$RESULTS/vm-compare.log" 2>&1 || true
}

setup() {
  [ -z "$VM_SKIP" ] || skip "$VM_SKIP"
  [ "$(ls "$RESULTS/vm-compare"/*.json 2>/dev/null | wc -l)" -eq 3 ] ||
    { tail -20 "$RESULTS/vm-compare.log"; false; }
  # Guests first (6.1, 6.12), then the host: compare's base is the first.
  FILES=($(ls "$RESULTS/vm-compare"/*-guest-6.1.*.json) $(ls "$RESULTS/vm-compare"/*-guest-6.12.*.json) \
    $(ls "$RESULTS/vm-compare"/*-host-*.json))
}

@test "vm --kernel 6.1 --kernel 6.12 --host: one result per kernel, three runs each" {
  [ "${#FILES[@]}" -eq 3 ]
  for f in "${FILES[@]}"; do
    jq -e '.runs | length == 3 and all(.exit.outcome == "completed")' "$f"
  done
  [ "$(jq -rs 'map(.host.kernel) | unique | length' "${FILES[@]}")" -eq 3 ]
}

@test "compare --by kernel: every pressure figure paired, each verdict true to its numbers" {
  run "$PAGELAB" compare --by kernel --format json "${FILES[@]}"
  assert_success
  j=$output
  jq -e '.by == "kernel" and (.comparisons | length) == 2' <<<"$j"
  jq -e '.comparisons[0].base.name | startswith("kernel=6.1.")' <<<"$j"
  jq -e '.comparisons[0].new.name | startswith("kernel=6.12.")' <<<"$j"
  for c in 0 1; do
    jq -e ".comparisons[$c].figures | map(select(.table == \"pressure\")) | length >= 15" <<<"$j"
    jq -e ".comparisons[$c].figures | all(.base.n == 3 and .new.n == 3 and .verdict != \"not enough runs\")" <<<"$j"
    # real exactly when the t-test and the LKP rule both hold (of the figures
    # judged: a timing of two clocks is not, below).
    jq -e ".comparisons[$c].figures | map(select(.verdict != \"not comparable\")) | all((.verdict == \"real\") ==
            (.welch.p < 0.05 and .lkp.disjoint and .lkp.above_threshold))" <<<"$j"
    jq -e ".comparisons[$c].figures | map(select(.verdict != \"not comparable\")) | all((.verdict == \"t-test only\") ==
            (.welch.p < 0.05 and ((.lkp.disjoint and .lkp.above_threshold) | not)))" <<<"$j"
    # The scenario's invariants do not depend on the kernel.
    jq -e ".comparisons[$c].figures[] | select(.figure == \"Pages 0x5A (written)\") | .verdict == \"same\" and .base.median == 1" <<<"$j"
    jq -e ".comparisons[$c].figures[] | select(.row == \"Before pressure\" and .figure == \"Region Rss\") | .verdict == \"same\" and .base.median == 131072" <<<"$j"
    jq -e ".comparisons[$c].counts[] | select(.outcome == \"completed\") | .base.k == 3 and .new.k == 3 and .verdict == \"same\"" <<<"$j"
  done
  # Two guests share a clock (TCG, amd64): their timings are judged.  A guest
  # against the host is two clocks: every timing "not comparable", no count.
  jq -e '.comparisons[0].figures | all(.verdict != "not comparable")' <<<"$j"
  jq -e '.comparisons[1].figures | all((.class == "timing") == (.verdict == "not comparable"))' <<<"$j"
  jq -e '.comparisons[1].notes | any(startswith("timings not judged") and contains("(tcg guest, amd64) against"))' <<<"$j"
  # The markdown names both kernels' sides.
  run "$PAGELAB" compare --by kernel "${FILES[@]}"
  assert_success
  assert_output --regexp '## kernel=6\.1\.[^ ]+ → kernel=6\.12\.'
  assert_output --partial 'figures: '
}

@test "report --html of three kernels: a column per kernel and the compare by kernel" {
  run "$PAGELAB" report --html "$BATS_TEST_TMPDIR/html" "${FILES[@]}"
  assert_success
  p="$BATS_TEST_TMPDIR/html/index.html"
  [ "$(grep -o '<th>[^<]* · cgroup v[12][^<]*(3 runs)</th>' "$p" | wc -l)" -eq 3 ]
  grep -q '<h2 id="compare">Compare by kernel</h2>' "$p"
  [ "$(grep -o '<img ' "$p" | wc -l)" -eq 9 ]
}
