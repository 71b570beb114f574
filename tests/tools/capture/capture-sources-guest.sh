#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# capture-sources-guest.sh — runs INSIDE a pagelab QEMU guest (busybox sh), started by
# `tests/tools/capture-v2-fixtures --sources`: the fixtures of the sampler's newer sources
# (harness/sample/sources/), without touching the older captures.
#
#   /sys/fs/cgroup/lab   memory.max 1G, memory.swap.max 0: `lazyfree-probe pagemap` maps
#                        4 MiB, fills it, MADV_DONTNEEDs pages 256..511 and every odd page
#                        of 768..1023, and copies its own pagemap entries for the region
#                        (self-pagemap, self-pagemap.range), /proc/pressure/memory,
#                        /proc/buddyinfo and the group's memory.pressure and memory.peak.
set -eu
out=$PAGELAB_OUT/fixtures
meta=$PAGELAB_OUT/meta
cg=/sys/fs/cgroup
mkdir -p "$out" "$meta"
uname -r >"$meta/uname-r"
mkdir $cg/lab
echo 1G >$cg/lab/memory.max
echo 0 >$cg/lab/memory.swap.max
sh -c 'echo $$ >/sys/fs/cgroup/lab/cgroup.procs && exec lazyfree-probe pagemap "$0"' "$out"
rmdir $cg/lab
ls -l "$out" >&2
