#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: guest (QEMU guests only: nothing on this host's cgroups, knobs or processes; scripts/test)
# The MADV_FREE article's own architecture: arm64 guests (`pagelab vm --arch
# arm64`, docs/vm.md "arm64 guests") booted from Debian's arm64 kernels under
# qemu-system-aarch64 (TCG, -M virt), with static arm64 binaries cross-built by
# cmake/aarch64-linux-gnu.cmake, through the same initramfs path as the x86
# guests.
#
# 1. The watermark article: "an arm64 VM with zones DMA and Normal shows
#    min_free_kbytes 45056 = 512 x 2 x 11 x 4 kB" (mm/khugepaged.c:
#    set_recommended_min_free_kbytes: pageblock_nr_pages x populated zones x
#    (2 + MIGRATE_PCPTYPES^2) pages).  On arm64 ZONE_DMA ends at 4 GiB of
#    physical address (arch/arm64/mm/init.c: zone_sizes_init, max_zone_phys(32)),
#    virt's RAM starts at 1 GiB, so DMA32 is empty and a 4.8 GB guest has DMA +
#    Normal: two zones.  Measured on 6.1.0-57-arm64 and 6.12.117+deb12-arm64: 45056.
#    With THP never both recompute the sqrt value (measured 8,619-8,674 kB).
# 2. The MADV_FREE invariants and the THP-on outcome at reduced sizes (the
#    suite's budget; the article's sizes are results/recorded/madv-free-arm64.md):
#    a 128 MiB region in a 256 MiB sandbox with 38M of ballast (the article's
#    baseline scaled by 1/4), 200 MiB of pressure (800 MiB / 4).
#    Traced as the x86 guests are (the static arm64 build links libtracefs,
#    libtraceevent and GSL; the lru group added to madv-free's default set): the
#    memcg reclaim stalls with their quantiles, and the file list's
#    shrink_inactive sums that read lead A (nr_activate0, docs/findings/thp.md).
#    What the tracepoints add up must agree with the counters: the file list's
#    nr_reclaimed over every scanner is the region's pages lost over the run
#    (nothing else in the sandbox can be reclaimed without swap; measured on
#    6.1.0-57-arm64 and 6.12.117+deb12-arm64, 2026-12-02: equal to the page).
#
# Skips (with the reason) when qemu-system-aarch64 is missing, when the cross
# compiler cannot link a static arm64 program with the arm64 static libraries
# (tried: arm_links), when libgsl-dev:arm64 cannot be fetched into the cache
# (guest/vm-sysroot: not installable beside the amd64 one), or when Debian's arm64
# kernel cannot be had (scripts/setup installs the rest).

load helpers

# arm_links DIR GSL_LIBDIR: whether the cross compiler links a static arm64
# program against the libraries the guest's static build links (libcgroup,
# jansson, libseccomp, yajl, libtracefs, libtraceevent, and GSL from the
# unpacked libgsl-dev:arm64), decided by doing it: looking for the .a files
# passed on a fresh machine where the cross C library (libc6-dev-arm64-cross,
# a Recommends of gcc-aarch64-linux-gnu) was missing and the build then failed
# at link ("cannot find crt1.o", "-lc").  The compiler's messages: DIR/arm-cc.err.
arm_links() {
  local d=$1 gsl=$2
  cat >"$d/arm-probe.c" <<'EOF'
extern void *json_object(void);
extern int cgroup_init(void);
extern void *seccomp_init(unsigned int def_action);
extern void *yajl_alloc(const void *callbacks, const void *afs, void *ctx);
extern void *tracefs_instance_create(const char *name);
extern void *tep_alloc(void);
extern double gsl_cdf_tdist_P(double x, double nu);
int main(void)
{
	return json_object() != 0 && cgroup_init() >= 0 && seccomp_init(0) != 0 && yajl_alloc(0, 0, 0) != 0 &&
	       tracefs_instance_create(0) != 0 && tep_alloc() != 0 && gsl_cdf_tdist_P(0, 1) > 0 ? 0 : 1;
}
EOF
  aarch64-linux-gnu-gcc -static -o "$d/arm-probe" "$d/arm-probe.c" -L/usr/lib/aarch64-linux-gnu -L"$gsl" \
    -lcgroup -ljansson -lseccomp -lyajl_s -ltracefs -ltraceevent -lgsl -lgslcblas -lm -lpthread >"$d/arm-cc.err" 2>&1 &&
    LC_ALL=C readelf -h "$d/arm-probe" 2>/dev/null | grep -q 'Machine:.*AArch64'
}

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
  ARM_SKIP=""
  local pc rc=0
  # GSL for arm64: unpacked into the cache, as the static build's configure does
  # (cmake/aarch64-linux-gnu.cmake).  1: it cannot be had here (a skip); 3: it
  # was fetched and is not what apt says, or would not unpack (a failure).
  pc=$("$TOP/guest/vm-sysroot" 2>"$BATS_FILE_TMPDIR/sysroot.err") || rc=$?
  [ "$rc" != 3 ] || { cat "$BATS_FILE_TMPDIR/sysroot.err" >&2; return 1; }
  if ! command -v qemu-system-aarch64 >/dev/null; then
    ARM_SKIP="no qemu-system-aarch64 (apt-get install qemu-system-arm)"
  elif [ "$rc" != 0 ]; then
    ARM_SKIP="guest/vm-sysroot cannot get libgsl-dev:arm64: $(tail -n1 "$BATS_FILE_TMPDIR/sysroot.err")"
  elif ! arm_links "$BATS_FILE_TMPDIR" "$(sed -n 's/^libdir=//p' "$pc/gsl.pc")"; then
    ARM_SKIP="aarch64-linux-gnu-gcc cannot link a static arm64 program with the guest's libraries: $(grep -m1 -E 'cannot find|not found|error' "$BATS_FILE_TMPDIR/arm-cc.err" | sed 's/^.*ld: //') (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross; dpkg --add-architecture arm64; apt-get install libcgroup-dev:arm64 libjansson-dev:arm64 libseccomp-dev:arm64 libyajl-dev:arm64 libtracefs-dev:arm64 libtraceevent-dev:arm64)"
  else
    for k in 6.1 6.12; do
      if ! "$TOP/guest/vm-kernel" $k --arch arm64 --info >/dev/null 2>"$BATS_FILE_TMPDIR/k.err"; then
        ARM_SKIP="cannot get Debian's arm64 $k kernel: $(tail -n1 "$BATS_FILE_TMPDIR/k.err")"
        break
      fi
    done
  fi
  export ARM_SKIP
}

setup() {
  [ -z "$ARM_SKIP" ] || skip "$ARM_SKIP"
}

# arm_result DIR: the one guest document of a run.
arm_result() {
  ls "$RESULTS/$1"/*-guest-*arm64.json
}

@test "vm arm64 audit (4.8 GB, 6.1 and 6.12): zones DMA + Normal, min_free_kbytes 45056 = 512 x 2 x 11 x 4 kB; THP never: the sqrt value" {
  guest_run arm-audit --arch arm64 --kernel 6.1 --kernel 6.12 --mem 4800M --timeout 300 \
    audit --json --then --json --with thp=never
  assert_success
  for f in "$RESULTS"/arm-audit/audit-*-guest-*arm64.json; do
    jq -e '.schema == "pagelab.vm-audit/1" and .vm.machine == "aarch64" and .vm.arch == "arm64"' "$f"
    jq -e '[.states[].exit] == [0, 0]' "$f"
    a='.states[0].audit'
    # 4 KiB pages, PMD 2 MiB: pageblock 512 pages; populated zones DMA and Normal only.
    jq -e "$a | .page_kb == 4 and .pageblock_pages == 512" "$f"
    jq -e "[$a.zones[] | select(.managed > 0) | .zone] == [\"DMA\", \"Normal\"]" "$f"
    jq -e "$a.zones[] | select(.zone == \"DMA32\") | .managed == 0" "$f"
    # The article's arithmetic, and the kernel agreeing with it.
    jq -e "$a.min_free_kbytes | .value_kb == 45056 and .value_kb == 512 * 2 * 11 * 4 and .set_by == \"khugepaged\" and .khugepaged.zones == 2 and .khugepaged.kb == 45056 and .khugepaged_runs == true" "$f"
    # Per zone: the kernel's lines follow the rules (exact, or drift: the same
    # rules over the managed counts of boot time, before the initramfs was freed);
    # the gap is min/4 on both zones (managed x 10 / 10000 is smaller).
    jq -e "[$a.zones[] | select(.managed > 0) | .status] | all(. == \"exact\" or . == \"drift\")" "$f"
    jq -e "[$a.zones[] | select(.managed > 0) | .predicted.gap_rule] | all(. == \"min/4\")" "$f"
    jq -e "([$a.zones[] | select(.managed > 0) | .kernel.min] | add) == ([$a.zones[] | select(.managed > 0) | .predicted.min] | add)" "$f"
    # THP never (through the guest's journal): the sqrt value, as predicted.
    b='.states[1].audit'
    jq -e "$b.min_free_kbytes | .set_by == \"sqrt\" and .khugepaged_runs == false and .value_kb < 45056 and .value_kb > 4000" "$f"
    jq -e "$a.min_free_kbytes.with_thp_never_kb as \$p | $b.min_free_kbytes.value_kb as \$v | (\$v - \$p) * (\$v - \$p) <= 100 * 100" "$f"
    echo "# $(jq -r '.vm.release' "$f"): 45056 with THP always; $(jq -r "$b.min_free_kbytes.value_kb" "$f") kB with THP never; boot $(jq -r .vm.boot_wall_s "$f") s, qemu peak RSS $(jq -r .vm.qemu_peak_rss_kb "$f") kB" >&3
  done
}

# The reduced pressure-800: a 128 MiB region (the article's 512 MiB / 4) in a
# 256 MiB sandbox with 38M of ballast, 200 MiB of pressure; THP on and off.
ARM_SMALL=(--set region=128M --set memory_max=256M --set ballast=38M --set pressure=200M)

@test "vm arm64 pressure-800 at 1/4 size (6.1 and 6.12), traced: THP off survives; THP on: coverage, outcome and what was reclaimed recorded; the tracepoints agree with the counters" {
  guest_run arm-p800 --arch arm64 --kernel 6.1 --kernel 6.12 --mem 1G --timeout 600 \
    run madv-free/pressure-800 --repeat 1 "${ARM_SMALL[@]}" --trace memcg,direct,oom,markers,lru
  assert_success
  for f in "$RESULTS"/arm-p800/*-guest-*arm64.json; do
    jq -e '.status == "ok" and .vm.arch == "arm64" and .vm.machine == "aarch64" and .host.cgroup.memory == "v2"' "$f"
    # Traced in the guest: every event of the set in this kernel, nothing lost.
    jq -e '.tracing.available and all(.runs[]; .summary.trace | .set == "direct memcg oom markers lru"
           and .missing_events == [] and .lost.total == 0 and .clock == "mono")' "$f"
    # The memcg reclaim stalls: GSL's quantiles in order, the per-interval
    # histograms adding up to the count, and each run reclaimed under its limit.
    jq -e 'all(.runs[]; .summary.trace.stalls.memcg as $m
           | $m.count > 0 and $m.pages > 0 and $m.other_tasks_count == 0 and $m.quantiles_of == $m.count
             and 0 < $m.p50_us and $m.p50_us <= $m.p99_us and $m.p99_us <= $m.max_us
             and ([.trace_intervals[].memcg.count // 0] | add) == $m.count)' "$f"
    # The file list's shrink_inactive sums (lead A's counter): the sandbox's
    # passes scanned and reclaimed, and over every scanner exactly the region's
    # pages lost (a lazily freed page reclaimed is a page the region lost).
    jq -e 'all(.runs[]; .summary.trace.lru.file as $l
           | ([.steps[] | select(.workload == "region" and .step == "pressure")][0].counters.region) as $r
           | ($l.sandbox | .nr_scanned >= .nr_reclaimed and .nr_reclaimed > 0
              and (.nr_activate0 | type) == "number" and (.nr_unmap_fail | type) == "number")
             and ([$l[].nr_reclaimed] | add) * 4 == $r.size_kb - $r.rss_kb)' "$f"
    for r in 0 1; do
      thp=$(jq -r ".runs[$r].variant.thp" "$f")
      fill=$(jq -c "[.runs[$r].steps[] | select(.workload == \"region\" and .step == \"fill\")][0]" "$f")
      out=$(jq -r ".runs[$r].exit.outcome" "$f")
      if [ "$thp" = off ]; then
        [ "$out" = completed ]
        jq -e '.counters.region.anonhuge_kb == 0' <<<"$fill"
        scan=$(jq -c "[.runs[$r].steps[] | select(.workload == \"region\" and .step == \"scan\")][0]" "$f")
        jq -e '.counters.scan | .pattern + .zero + .written + .other == 32768 and .written == 1 and .other == 0' <<<"$scan"
      else
        # Huge pages back the region (MADV_HUGEPAGE, 2 MiB aligned): PMD folios
        # of 2,048 kB on arm64 with 4 KiB pages as on x86.
        jq -e '.counters.region.anonhuge_kb >= 65536 and .counters.region.anonhuge_kb % 2048 == 0' <<<"$fill"
        [ "$out" = completed ] || { [ "$out" = oom_killed ] && jq -e ".runs[$r].exit.victims | index(\"region\")" "$f"; }
      fi
      echo "# $(jq -r .vm.release "$f") THP $thp: AnonHugePages $(jq .counters.region.anonhuge_kb <<<"$fill") kB after the fill, $out; $(jq -r ".runs[$r].summary.trace | \"\(.stalls.memcg.count) memcg stalls (p50 \(.stalls.memcg.p50_us | floor) µs, p99 \(.stalls.memcg.p99_us | floor) µs), file list: \(.lru.file.sandbox | \"\(.nr_scanned) scanned, \(.nr_reclaimed) reclaimed, nr_activate0 \(.nr_activate0), nr_unmap_fail \(.nr_unmap_fail), nr_ref_keep \(.nr_ref_keep)\")\"" "$f")" >&3
    done
  done
}
