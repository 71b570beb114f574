#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# capture-guest.sh — runs INSIDE a pagelab QEMU guest (busybox sh), started by
# tests/tools/capture-v2-fixtures through guest/vm-run. Writes the cgroup v2 fixtures to
# $PAGELAB_OUT/fixtures and facts for their README to $PAGELAB_OUT/meta.
#
# Hierarchy (pure cgroup v2, +memory enabled in the root by vm-guest-init):
#   /sys/fs/cgroup/lab   memory.max 1G, memory.swap.max 0: lazyfree-probe maps 64 MiB,
#                        fills it, MADV_FREEs it and copies its smaps/status, /proc and
#                        the group's memory.* files while it still holds the region;
#                        then `lazyfree-probe thp` does the same with an 8 MiB
#                        MADV_HUGEPAGE region and copies only its smaps;
#   /sys/fs/cgroup/oom   memory.max 64M, memory.swap.max 0, memory.oom.group 1:
#                        lazyfree-probe hog 256 touches 256 MiB and is OOM-killed;
#                        memory.events is copied after the kill.
set -eu
out=$PAGELAB_OUT/fixtures
meta=$PAGELAB_OUT/meta
cg=/sys/fs/cgroup
mkdir -p "$out" "$meta"

uname -r >"$meta/uname-r"
cat /sys/kernel/mm/transparent_hugepage/enabled >"$meta/thp-enabled"
cat /sys/kernel/mm/lru_gen/enabled >"$meta/lru-gen-enabled" 2>/dev/null || echo none >"$meta/lru-gen-enabled"
cat $cg/cgroup.controllers >"$meta/cgroup-controllers"

mkdir $cg/lab
echo 1G >$cg/lab/memory.max
echo 0 >$cg/lab/memory.swap.max
ls $cg/lab >"$meta/lab-files"
# The shell moves itself into the group and then becomes the probe: only the probe is in it.
sh -c 'echo $$ >/sys/fs/cgroup/lab/cgroup.procs && exec lazyfree-probe probe "$0"' "$out"
# Then, in the same group, the THP pair (self-smaps-thp, self-smaps-thp.range): a second
# process, so the files above are not disturbed by it.
sh -c 'echo $$ >/sys/fs/cgroup/lab/cgroup.procs && exec lazyfree-probe thp "$0"' "$out"

mkdir $cg/oom
echo 64M >$cg/oom/memory.max
echo 0 >$cg/oom/memory.swap.max
echo 1 >$cg/oom/memory.oom.group
rc=0
sh -c 'echo $$ >/sys/fs/cgroup/oom/cgroup.procs && exec lazyfree-probe hog 256' || rc=$?
echo "$rc" >"$meta/oom-hog-status"
# The kill is asynchronous to our wait: memory.events is updated by the OOM killer before
# the victim's exit is reaped, so it is complete by now; the group empties shortly after.
cp $cg/oom/memory.events "$out/memcg-memory.events-oom"
i=0
while [ -n "$(cat $cg/oom/cgroup.procs)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
rmdir $cg/oom $cg/lab
if [ "$rc" -ne 137 ]; then
	echo "capture-guest: the hog was not OOM-killed (status $rc)" >&2
	exit 1
fi
grep -q '^pglazyfree [1-9]' "$out/memcg-memory.stat" || { echo "capture-guest: pglazyfree is 0" >&2; exit 1; }
ls -l "$out" >&2
