#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# capture-procstat-guest.sh — runs INSIDE a pagelab QEMU guest (busybox sh), started by
# `tests/tools/capture-v2-fixtures --procstat`: `lazyfree-probe procstat` copies three
# /proc/PID/stat lines (a child with a hostile name and SIGUSR1 pending, a zombie,
# kthreadd) and procstat.expect, for tests/unit/test_procstat.c.
set -eu
out=$PAGELAB_OUT/fixtures
meta=$PAGELAB_OUT/meta
mkdir -p "$out" "$meta"
uname -r >"$meta/uname-r"
lazyfree-probe procstat "$out"
ls -l "$out" >&2
