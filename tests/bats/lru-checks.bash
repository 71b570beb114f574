# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# madv-free/lru-order's invariants and its order, checked of a result on this
# host (lru-order.bats) and in the guests (lru-order-vm.bats); the reasons are
# in lru-order.bats' header.

lru_checks() {
  local f=$1
  jq -e '.runs[0].exit.outcome == "completed"' "$f"
  jq -e '.runs[0].sources | map(select(.name == "pagemap"))[0].available' "$f"
  # pagemap present == mincore resident, at every step
  jq -e '[.runs[0].steps[] | select(.workload == "region")] | length == 9 and
         all(.pagemap.region.present == .counters.resident_pages)' "$f"
  # the pressure step: reclaimed covers the shortfall, and not much more
  jq -e '.runs[0] as $r
         | ([$r.steps[] | select(.step == "write")][0].memcg.usage_bytes) as $u
         | ([$r.steps[] | select(.step == "pressure")][0]) as $p
         | ($p.counters.pressure_bytes) as $press
         | ($r.sandbox.memory_max_bytes) as $lim
         | (($u + $press - $lim) / 4096) as $need
         | $p.pagemap.region.reclaimed_pages >= $need - 256 and
           $p.pagemap.region.reclaimed_pages <= $need + 2048 and
           $p.pagemap.region.reclaimed_pages == ([$r.steps[] | select(.step == "write")][0].pagemap.region.present - $p.pagemap.region.present)' "$f"
  # the written page 0 stays.  The source walks the pages in order and keeps
  # the first SOURCE_PAGEMAP_RANGES ranges of each list: what it leaves out
  # (ranges_dropped) is the highest, so the first present range decides page 0.
  # A busy machine leaves single pages behind in the reclaimed span: 39
  # reclaimed ranges, 7 of them past the list's 32, in a suite run of
  # 2026-12-07 on 6.18 (the order itself held: lru_lowest_first).
  jq -e '[.runs[0].steps[] | select(.step == "pressure")][0].pagemap.region
         | .present_ranges[0][0] == 0 and all(.reclaimed[]; .[0] >= 1)' "$f"
  # the scan faults every reclaimed page back in: present again, as the zero
  # page (Rss unmoved), or as a page of its own where the kernel does not map
  # the zero page on a read (host.fingerprint.zero_page "allocate")
  jq -e '.host.fingerprint as $fp | .runs[0].steps as $s
         | ([$s[] | select(.step == "pressure")][0]) as $p | ([$s[] | select(.step == "scan")][0]) as $c
         | (if $fp.zero_page == "allocate" then $p.pagemap.region.reclaimed_pages * $fp.page_size / 1024 else 0 end) as $grew
         | $c.pagemap.region.faulted_pages == $p.pagemap.region.reclaimed_pages and
           $c.pagemap.region.present == $c.pagemap.region.pages and
           $c.counters.region.rss_kb == $p.counters.region.rss_kb + $grew' "$f" "$f"
}

# The lowest addresses first, from page 1: every
# 1/32 slice of the region above the first reclaimed_pages + 64 pages is still
# whole.  Mostly one range; a loaded machine left single pages behind in it
# (26 ranges, 25 pages skipped, in one run on 6.18 with the machine busy;
# 1 range in the others).
lru_lowest_first() {
  jq -e '[.runs[0].steps[] | select(.step == "pressure")][0].pagemap.region
         | (.pages / (.buckets | length)) as $slice
         | ((.reclaimed_pages + 1 + 64) / $slice | ceil) as $b
         | .reclaimed[0][0] == 1 and all(.buckets[$b:][]; . == $slice)' "$1"
}
